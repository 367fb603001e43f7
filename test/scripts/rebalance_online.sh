#!/usr/bin/env bash
# A rebalance carried out end to end: chash_rebalance plans a slot ring
# that evens out a skewed table's rows, CALL chash_move_online moves the
# rows between real PostgreSQL shards, and the rows are then counted on the
# shards themselves.
#
# The server in PGHOST/PGPORT (test/bin/with-cluster.sh provides one; chash
# installed but not created anywhere) is the coordinator; lib/shards.sh
# starts four shard clusters, each given a table tenant_rows (k text
# PRIMARY KEY, n integer, payload text), and the coordinator a server, a
# user mapping and a schema shardN with the foreign table
# shardN.tenant_rows each.
#
#   1. Ring tenants: Redis Cluster's slots (hash tags), shard1..shard4 with
#      4,096 slots each.  Tenants of Zipf-like sizes, 6,000 / t rows for
#      tenant t of 2,000 (48,141 rows, the largest tenant 12 % of them),
#      keys '{tT}:G' so that a tenant's rows share a slot, payloads of 0
#      to 399 bytes, copied to the shard that ring tenants names (COPY
#      from the coordinator's routing into each shard's own server).
#   2. The coordinator reads the load from the shards themselves: its
#      tenant_rows is a view, the UNION ALL of the four foreign tables, so
#      that chash_load counts the rows where they are when it runs, with
#      nothing to keep in step.  The move takes the same relation: its
#      name names each shard's table, its columns the columns moved.
#      chash_rebalance('tenants', 'tenants_new', 'tenant_rows', 'k')
#      (target_peak 1.05), its report and chash_moved_keys are kept.
#   3. CALL chash_move_online('tenants', 'tenants_new', ...), while two
#      pgbench clients (at most 20 transactions a second) update random
#      rows through the coordinator, each routed by chash_lookup at the
#      time and acknowledged in the same transaction.
#   4. Each shard's rows are counted on its own server and checked: every
#      key exactly once, on the node tenants_new names; each shard's rows
#      are the report's after; their peak-to-mean is at most 1.05 (and was
#      more before); the rows that changed shards are exactly the keys
#      chash_moved_keys listed, pair by pair as the plan and the move
#      counted them.
#   5. A drain: chash_rebalance(..., drain => '{shard4}') moved online in
#      the same way, with the same checks; shard4 ends with no row.
#   6. With the writers stopped: every row's n is its number of
#      acknowledged updates, every payload as loaded; nothing of a move is
#      left on any shard.
#
# Prints the figures of each move: rows, moved, peak-to-mean before and
# after (from the shards' counts), write block and duration.
#
#   test/bin/with-cluster.sh test/scripts/rebalance_online.sh
set -euo pipefail
suite=rebalance_online
shards=4
. "$(dirname "$0")/lib/shards.sh"
[ -n "$pgbench" ] || { echo "rebalance_online: no pgbench with --max-tries (15 or later) found" >&2; exit 1; }
writer_tps=20

start_shards
for i in $(seq 1 $shards); do
	shard "$i" -c "CREATE TABLE tenant_rows (k text PRIMARY KEY, n integer NOT NULL DEFAULT 0, payload text NOT NULL)"
done
make_coordinator
{
	for i in $(seq 1 $shards); do
		echo "IMPORT FOREIGN SCHEMA public LIMIT TO (tenant_rows) FROM SERVER shard$i INTO shard$i;"
	done
	echo "CREATE VIEW tenant_rows AS"
	for i in $(seq 1 $shards); do
		[ "$i" -eq 1 ] || echo "UNION ALL"
		echo "SELECT k, n, payload FROM shard$i.tenant_rows"
	done
	echo ";"
	cat <<'SQL'
-- the rows as loaded, the test's own record (the plans read the shards)
CREATE TABLE loaded (id integer PRIMARY KEY, k text NOT NULL UNIQUE, payload text NOT NULL);
INSERT INTO loaded
SELECT row_number() OVER (ORDER BY t, g), '{t' || t || '}:' || g, repeat('x', (g * 7 + t) % 400)
FROM generate_series(1, 2000) t, generate_series(1, greatest(1, 6000 / t)) g;
CREATE TABLE ack_update (k text PRIMARY KEY, n integer NOT NULL);
CREATE FUNCTION bump(i integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	key text := (SELECT k FROM loaded WHERE id = i);
	c bigint;
BEGIN
	EXECUTE format('UPDATE %I.tenant_rows SET n = n + 1 WHERE k = $1', chash_lookup('tenants', key)) USING key;
	GET DIAGNOSTICS c = ROW_COUNT;
	IF c = 1 THEN
		INSERT INTO ack_update VALUES (key, 1) ON CONFLICT (k) DO UPDATE SET n = ack_update.n + 1;
	END IF;
END
$$;
SELECT chash_ring_create('tenants', profile => 'redis_cluster');
SELECT chash_node_add('tenants', 'shard' || i, target => 'shard' || i) FROM generate_series(1, 4) i;
SQL
} | coord >/dev/null
for i in $(seq 1 $shards); do
	coord -c "COPY (SELECT k, 0, payload FROM loaded WHERE chash_lookup('tenants', k) = 'shard$i') TO STDOUT" |
		shard "$i" -c "COPY tenant_rows FROM STDIN"
	shard "$i" -c "ANALYZE tenant_rows"
done
rows=$(coord -c "SELECT count(*) FROM loaded")
echo "  $shards shard clusters and the coordinator set up, $rows rows on ring tenants"

# counted SUFFIX: each shard's rows, counted on its own server, into the
# coordinator's table counted_SUFFIX (shard, rows); and every key there
# with its shard, n and payload into placed_SUFFIX
counted() {
	local t=$1 i
	coord -c "CREATE TABLE counted_$t (shard text PRIMARY KEY, rows bigint NOT NULL)" \
		-c "CREATE TABLE placed_$t (shard text NOT NULL, k text NOT NULL, n integer, payload text)"
	for i in $(seq 1 $shards); do
		coord -c "INSERT INTO counted_$t VALUES ('shard$i', $(shard "$i" -c "SELECT count(*) FROM tenant_rows"))"
		shard "$i" -c "COPY (SELECT 'shard$i', k, n, payload FROM tenant_rows) TO STDOUT" |
			coord -c "COPY placed_$t FROM STDIN"
	done
	coord -c "CREATE INDEX ON placed_$t (k)" -c "ANALYZE placed_$t"
}

# peak SUFFIX [DRAINED]: the shards' largest count over their mean, a
# drained shard left out, to 3 decimals
peak() {
	coord -c "SELECT round(max(rows) / avg(rows), 3) FROM counted_$1 WHERE shard IS DISTINCT FROM ${2:-NULL}"
}
# peak_vs SUFFIX OP LIMIT: the peak (unrounded) compared with LIMIT, as
# "PEAK OP LIMIT" when true
peak_vs() {
	coord -c "SELECT round(max(rows) / avg(rows), 3) || ' $2 $3' FROM counted_$1 HAVING max(rows) / avg(rows) $2 $3"
}

counted before
run_checks 3 <<'SQL'
SELECT count(*) = (SELECT count(*) FROM loaded) AND count(DISTINCT k) = count(*), 'every key loaded once', count(*) || ' rows on the shards'
FROM placed_before;
SELECT count(*) = 0, 'every row on the node ring tenants names', count(*) || ' elsewhere'
FROM placed_before WHERE shard <> chash_lookup('tenants', k);
-- what chash_load reads through the view is what the shards hold
SELECT count(*) = 4 AND bool_and(l.rows = c.rows), 'chash_load through the view counts each shard''s rows',
	   string_agg(coalesce(c.shard, l.node) || ' ' || coalesce(c.rows::text, 'none') || ' counted, ' || coalesce(l.rows::text, 'none') || ' by chash_load', ', '
				  ORDER BY coalesce(c.shard, l.node))
FROM counted_before c
FULL JOIN (SELECT node, sum(rows) AS rows FROM chash_load('tenants', 'tenant_rows', 'k') GROUP BY node) l ON l.node = c.shard;
SQL
peak_before=$(peak before)
echo "  peak-to-mean of the shards' rows before: $peak_before ($(coord -c "SELECT string_agg(shard || ' ' || rows, ', ' ORDER BY shard) FROM counted_before"))"

# rebalance FROM TO SUFFIX [ARGS]: the plan, its report and its moved keys
# kept in plan_SUFFIX, report_SUFFIX and moved_SUFFIX
rebalance() {
	local from=$1 to=$2 t=$3 args=${4:-}
	coord -c "CREATE TABLE plan_$t AS SELECT * FROM chash_rebalance('$from', '$to', 'tenant_rows', 'k'$args)" 2>&1 |
		sed 's/^/    /'
	coord -c "CREATE TABLE report_$t AS SELECT * FROM chash_rebalance_report('$from', '$to', 'tenant_rows', 'k')" \
		-c "CREATE TABLE moved_$t AS SELECT key AS k, from_node, to_node FROM chash_moved_keys('$from', '$to', 'tenant_rows', 'k', NULL::text)"
}

# move FROM TO: CALL chash_move_online, its NOTICEs shown
move() {
	coord -c "CALL chash_move_online('$1', '$2', 'tenant_rows', 'k')" 2>&1 | sed 's/^/    /'
}

# checks_after SUFFIX BEFORE TO: the shards' rows after a move to ring TO,
# against the plan, its report and its moved keys
checks_after() {
	local t=$1 b=$2 to=$3
	run_checks 7 <<SQL
SELECT count(*) = (SELECT count(*) FROM loaded) AND count(DISTINCT k) = count(*)
	   AND NOT EXISTS (SELECT FROM loaded l WHERE NOT EXISTS (SELECT FROM placed_$t p WHERE p.k = l.k)),
	   'every key exactly once', count(*) || ' rows on the shards, ' || count(DISTINCT k) || ' keys'
FROM placed_$t;
SELECT count(*) = 0, 'every row on the node $to names', count(*) || ' elsewhere'
FROM placed_$t WHERE shard <> chash_lookup('$to', k);
SELECT count(*) = 4 AND bool_and(c.rows = r.after) AND sum(c.rows) = (SELECT count(*) FROM loaded),
	   'each shard''s rows, counted there, are the report''s after',
	   string_agg(coalesce(c.shard, r.node) || ' ' || coalesce(c.rows::text, 'none') || ' (report ' || coalesce(r.after::text, 'none') || ')', ', '
				  ORDER BY coalesce(c.shard, r.node))
FROM counted_$t c FULL JOIN report_$t r ON r.node = c.shard;
-- the rows that changed shards, against the keys chash_moved_keys listed
SELECT count(*) = 0 AND (SELECT count(*) FROM moved_$t) > 0, 'the rows that moved are the keys chash_moved_keys lists',
	   (SELECT count(*) FROM moved_$t) || ' listed, ' || count(*) || ' differ'
FROM (SELECT b.k, b.shard AS from_node, a.shard AS to_node FROM placed_$b b JOIN placed_$t a USING (k) WHERE a.shard <> b.shard) o
FULL JOIN moved_$t m USING (k)
WHERE (o.from_node, o.to_node) IS DISTINCT FROM (m.from_node, m.to_node);
-- pair by pair, as the plan planned them and the move counted them
SELECT count(*) = 0, 'each pair of shards moved the rows the plan and the move count',
	   (SELECT string_agg(from_node || '->' || to_node || ' ' || moved, ', ' ORDER BY from_node, to_node) FROM plan_$t) ||
	   coalesce('; differ: ' || string_agg(coalesce(p.from_node, m.from_node, o.from_node) || '->' || coalesce(p.to_node, m.to_node, o.to_node), ', '), '')
FROM (SELECT from_node, to_node, moved::bigint AS rows FROM plan_$t) p
FULL JOIN (SELECT from_node, to_node, count(*) AS rows FROM moved_$t GROUP BY 1, 2) m USING (from_node, to_node)
FULL JOIN (SELECT from_node, to_node, sum(rows_moved) AS rows FROM chash.online_move_pairs
		   WHERE move_id = (SELECT max(move_id) FROM chash.online_moves) GROUP BY 1, 2) o USING (from_node, to_node)
WHERE p.rows IS DISTINCT FROM m.rows OR p.rows IS DISTINCT FROM o.rows;
SELECT step = 'done' AND to_ring = '$to', 'the move is done', 'step ' || step || ', write block ' || round(extract(epoch FROM write_block) * 1000, 1) || ' ms'
FROM chash.online_moves WHERE move_id = (SELECT max(move_id) FROM chash.online_moves);
SELECT count(*) = 0, 'no row changed shards but those', count(*) || ' others'
FROM placed_$b b JOIN placed_$t a USING (k) WHERE a.shard <> b.shard AND NOT EXISTS (SELECT FROM moved_$t m WHERE m.k = b.k);
SQL
}

# figures MOVE SUFFIX BEFORE [DRAINED]: what a move did, for the report
# (the peak after leaves a drained shard out)
figures() {
	coord -c "SELECT '$1: ' || (SELECT sum(rows) FROM counted_$2) || ' rows, ' || (SELECT count(*) FROM moved_$2) || ' moved ('
			|| round(100.0 * (SELECT count(*) FROM moved_$2) / (SELECT sum(rows) FROM counted_$2), 2) || ' %), peak-to-mean '
			|| '$(peak "$3") before, $(peak "$2" "${4:-}") after; write block ' || round(extract(epoch FROM write_block) * 1000, 1)
			|| ' ms, the CALL ' || round(extract(epoch FROM finished - started)::numeric, 1) || ' s'
		FROM chash.online_moves WHERE move_id = (SELECT max(move_id) FROM chash.online_moves)" | sed 's/^/  /'
}

# --- the plan, then the move while two clients write
rebalance tenants tenants_new new
cat >"$tmp/bump.sql" <<SQL
\set i random(1, $rows)
SELECT bump(:i);
SQL
start_writers w bump.sql 2
sleep 2
echo "  move 1: chash_rebalance's ring tenants_new, with 2 pgbench clients writing"
move tenants tenants_new
counted new
checks_after new before tenants_new
peak_new=$(peak new)
check "peak-to-mean of the shards' rows before, more than 1.05 (the table is skewed)" "$(peak_vs before '>' 1.05)" "$peak_before > 1.05"
check "peak-to-mean of the shards' rows after, at most 1.05" "$(peak_vs new '<=' 1.05)" "$peak_new <= 1.05"
figures "move 1" new before
check_leftovers

# --- a drain of shard4, planned on the ring as moved
rebalance tenants tenants_drain drain ", drain => ARRAY['shard4']"
echo "  move 2: drain shard4, with the clients still writing"
move tenants tenants_drain
counted drain
checks_after drain new tenants_drain
check "rows left on the drained shard4, counted there" "$(coord -c "SELECT rows FROM counted_drain WHERE shard = 'shard4'")" 0
figures "move 2 (drain shard4)" drain new "'shard4'"
stop_writers w

# --- every acknowledged update, every payload as loaded
counted final
run_checks 3 <<'SQL'
SELECT count(*) = 0 AND (SELECT sum(n) FROM ack_update) > 0, 'every n is its number of acknowledged updates',
	   count(*) || ' differ, ' || (SELECT sum(n) FROM ack_update) || ' updates of ' || (SELECT count(*) FROM ack_update) || ' keys'
FROM placed_final p LEFT JOIN ack_update a USING (k) WHERE p.n <> coalesce(a.n, 0);
SELECT count(*) = 0, 'every payload as loaded', count(*) || ' differ'
FROM loaded l FULL JOIN placed_final p USING (k) WHERE p.payload IS DISTINCT FROM l.payload;
SELECT count(*) = 0, 'every row still on the node the drained ring names', count(*) || ' elsewhere'
FROM placed_final WHERE shard <> chash_lookup('tenants', k);
SQL
check_leftovers
finish
