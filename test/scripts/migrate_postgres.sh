#!/usr/bin/env bash
# A migration that chash_migration_sql generates moves rows between real
# PostgreSQL servers, and moves exactly the rows chash predicted: nothing
# lost, nothing duplicated, nothing changed, nothing moved that should stay.
#
# The server in PGHOST/PGPORT/PGUSER (test/bin/with-cluster.sh provides one;
# chash installed but not created anywhere) is the coordinator: in a
# database of its own it gets chash, postgres_fdw, a local table `accounts`
# (the source of truth, 200,000 rows) and, for each of five shard clusters
# this script starts, a server, a user mapping and a schema shardN with a
# foreign table shardN.accounts.
#
#   1. Ring r4 (shard1..shard4, each node's target its schema) routes the
#      rows into the shards with chash_lookup.
#   2. r5 = r4 plus shard5.  chash_moved_keys and chash_moved_ranges
#      predict the moves; chash_migration_sql's statements are run, in
#      order, with psql on the coordinator: first as a run that stops after
#      its first transaction, then whole, as one resumes such a run.
#   3. r5b = r5 without shard2, the same way, the whole plan run twice.
#   4. m5 = hash % 5 over shard1..shard5 (algorithm modulo), from r5b,
#      and 5. back from m5 to r5m (a copy of r5): changes of scheme, planned key by key
#      (chash_moved_ranges refuses the pair; the plan looks every key up
#      in both rings), each plan run twice.
#
# After each step every shard is read directly (COPY from the shard's own
# server, not through postgres_fdw) and checked: every id exactly once, on
# the node the new ring names, the contents of every row unchanged
# (checksum), the rows that moved are exactly chash_moved_keys' keys
# (from and to nodes included), exactly the rows whose positions are in
# chash_moved_ranges, and chash_move_summary's counts; adding a node moves
# rows only to it, removing one moves only its rows.
#
# The shard clusters listen on Unix sockets in a private directory only (as
# the postgres user when run as root) and are stopped and removed, and the
# coordinator's database dropped, whatever happens.  Exits non-zero if any
# check or step fails.
#
#   test/bin/with-cluster.sh test/scripts/migrate_postgres.sh
#
# CHASH_MIGRATE_FAULT=lose|duplicate|misroute|alter damages the shards after
# the first migration, to see the checks fail.  CHASH_MIGRATE_PLANS=DIR
# keeps the generated plans there.
set -euo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
: "${PGHOST:?run under test/bin/with-cluster.sh}"
rows=200000
shards=5
fault=${CHASH_MIGRATE_FAULT:-}
db=chash_migrate_$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-migrate.XXXXXX")
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$tmp"
	as_owner() { (cd "$tmp" && runuser -u postgres -- "$@"); }
	shard_user=postgres
else
	as_owner() { (cd "$tmp" && "$@"); }
	shard_user=$(id -un)
fi
failures=0
checks=0

now() { date +%s%3N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", (b - a) / 1000 }'; }
t0=$(now)

cleanup() {
	local rc=$? i
	set +e
	for i in $(seq 1 $shards); do
		if [ -f "$tmp/s$i/data/postmaster.pid" ]; then
			as_owner "$bindir/pg_ctl" -D "$tmp/s$i/data" -m immediate -w stop >/dev/null 2>&1
		fi
	done
	if [ $rc -ne 0 ]; then
		[ $failures -eq 0 ] && echo "migrate_postgres: FAILED (a step failed, exit status $rc)" >&2
		for i in $(seq 1 $shards); do
			[ -f "$tmp/s$i/server.log" ] || continue
			grep -E 'ERROR|FATAL|PANIC' "$tmp/s$i/server.log" | tail -n 5 | sed "s/^/  shard$i: /" >&2
		done
	fi
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 ||
		echo "migrate_postgres: could not drop database $db" >&2
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

coord() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
shard() {
	local i=$1
	shift
	"$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$tmp/s$i" -p 5432 -U "$shard_user" -d postgres "$@"
}

# --- five shard clusters, started side by side
start_shard() {
	local dir=$tmp/s$1
	as_owner mkdir "$dir"
	as_owner "$bindir/initdb" -D "$dir/data" -U "$shard_user" -A trust -E UTF8 \
		--locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		return 1
	}
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-c listen_addresses='' -k $dir -c port=5432 -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c shared_buffers=16MB -c max_connections=10 -c autovacuum=off -c jit=off" \
		start >/dev/null
	shard "$1" -c "CREATE TABLE accounts (id bigint PRIMARY KEY, name text, balance numeric)"
}
pids=()
for i in $(seq 1 $shards); do
	start_shard "$i" &
	pids+=($!)
done
started=0
for p in "${pids[@]}"; do
	if wait "$p"; then started=$((started + 1)); fi
done
[ $started -eq $shards ] || {
	echo "migrate_postgres: only $started of $shards shard clusters started" >&2
	exit 1
}
echo "  $shards shard clusters up in $(since "$t0")"

# --- the coordinator
t=$(now)
"$bindir/createdb" "$db"
{
	cat <<'SQL'
CREATE EXTENSION chash;
CREATE EXTENSION postgres_fdw;
SQL
	for i in $(seq 1 $shards); do
		cat <<SQL
CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$tmp/s$i', port '5432', dbname 'postgres', batch_size '1000', fetch_size '10000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i OPTIONS (user '$shard_user');
CREATE SCHEMA shard$i;
IMPORT FOREIGN SCHEMA public LIMIT TO (accounts) FROM SERVER shard$i INTO shard$i;
SQL
	done
	# Negative and large ids, NULLs, quotes, non-ASCII text, numerics of
	# every scale: whatever the moves must carry unchanged
	cat <<SQL
CREATE TABLE accounts (id bigint PRIMARY KEY, name text, balance numeric);
INSERT INTO accounts
SELECT g * 2654435761 % 1000000000000 - 500000000000,
	   CASE WHEN g % 997 = 0 THEN NULL
			WHEN g % 7 = 0 THEN 'O''Brien, "Ann" ' || g
			ELSE 'account ' || g || ' é' END,
	   CASE WHEN g % 1009 = 0 THEN NULL
			WHEN g % 3 = 0 THEN (g * 7919 % 100000000) / 100.0
			WHEN g % 3 = 1 THEN round(g * 7919 % 100000000 / 100.0, 2)
			ELSE -(g * 31 % 100000) / 7.0 END
FROM generate_series(1, $rows) g;
ANALYZE accounts;
SELECT chash_ring_create('r4');
SQL
	for i in 1 2 3 4; do
		echo "SELECT chash_node_add('r4', 'shard$i', target => 'shard$i');"
	done
	for i in 1 2 3 4; do
		echo "INSERT INTO shard$i.accounts SELECT * FROM accounts WHERE chash_lookup('r4', id) = 'shard$i';"
	done
} >"$tmp/setup.sql"
coord -f "$tmp/setup.sql" >/dev/null
echo "  coordinator set up, $rows rows routed on r4 in $(since "$t")"

# --- reading the shards

# Every row of every shard, read from the shards' own servers, into table
# $1 of the coordinator: (shard, id, name, balance)
observe() {
	local table=$1 i
	coord -c "CREATE TABLE $table (shard text, id bigint, name text, balance numeric)"
	for i in $(seq 1 $shards); do
		shard "$i" -c "COPY (SELECT 'shard$i', id, name, balance FROM accounts) TO STDOUT" |
			coord -c "COPY $table FROM STDIN"
	done
	coord -c "CREATE INDEX ON $table (id)" -c "ANALYZE $table"
}

# run_checks N ARGS...: runs a file of N checks with coord ARGS; each
# statement gives one row (passed, what, detail).  A check whose passed is
# not true fails, also NULL (shown as nothing), and so does a file that
# gives other than N rows: a check that gave no row cannot pass.
run_checks() {
	local want=$1 out ok what detail got=0
	shift
	out=$(coord "$@")
	while IFS='|' read -r ok what detail; do
		[ -n "$ok$what$detail" ] || continue
		got=$((got + 1))
		checks=$((checks + 1))
		if [ "$ok" = t ]; then
			echo "  ok    $what: $detail"
		else
			[ "$ok" = f ] || detail="$detail (passed is ${ok:-NULL}, not true)"
			echo "  FAIL  $what: $detail" >&2
			failures=$((failures + 1))
		fi
	done <<<"$out"
	if [ $got -ne "$want" ]; then
		echo "  FAIL  $got result rows for $want checks" >&2
		checks=$((checks + 1))
		failures=$((failures + 1))
	fi
}

# progress_check NAME PLAN OUTPUT: the plan's progress NOTICEs, one for
# each batch the plan has, count moves and batches in order, add up the
# rows, and say the seconds since the plan began (never fewer than before)
progress_check() {
	local name=$1 planned out
	planned=$(grep -c 'chash migration: move [0-9]* of [0-9]*, batch' "$2" || true)
	out=$(awk -v planned="$planned" -v name="$name" '
		/NOTICE:  chash migration: move / {
			match($0, /move [0-9]+ of [0-9]+, batch [0-9]+ of [0-9]+: [0-9]+ rows .* checked; [0-9]+ rows so far/)
			if (RSTART == 0) { bad = bad " unreadable:" NR; next }
			split(substr($0, RSTART, RLENGTH), w, /[ ,:;]+/)
			move = w[2]; moves = w[4]; b = w[6]; bs = w[8]; rows = w[9]
			n = split(substr($0, RSTART, RLENGTH), v, " ")
			so_far = v[n - 3]
			notices++
			if (move != last_move) { if (last_b != last_bs) bad = bad " move " last_move " ended at batch " last_b; expect = 1 }
			if (b != expect || b > bs || move > moves) bad = bad " line " NR ": move " move " batch " b " of " bs
			expect = b + 1; last_move = move; last_b = b; last_bs = bs
			sum += rows
			if (so_far != sum) bad = bad " line " NR ": " so_far " rows so far, not " sum
			want_detail = 1; next
		}
		want_detail && /DETAIL:  [0-9.]+ s since the plan began\./ {
			match($0, /[0-9.]+ s since/); s = substr($0, RSTART, RLENGTH - 8) + 0
			if (s < last_s) bad = bad " line " NR ": time went back"
			last_s = s; details++; want_detail = 0; next
		}
		END {
			if (last_b != last_bs) bad = bad " the last move ended at batch " last_b
			ok = (notices == planned && details == notices && planned > 0 && bad == "")
			printf "%s|progress NOTICEs of %s|%d of %d batches reported, %d rows in all, %s s%s\n",
				ok ? "t" : "f", name, notices, planned, sum, last_s, bad
		}' "$3")
	while IFS='|' read -r ok what detail; do
		checks=$((checks + 1))
		if [ "$ok" = t ]; then
			echo "  ok    $what: $detail"
		else
			echo "  FAIL  $what: $detail" >&2
			failures=$((failures + 1))
		fi
	done <<<"$out"
}

cat >"$tmp/initial.sql" <<'SQL'
SELECT count(*) = :rows AND count(DISTINCT id) = :rows, 'routed on r4',
	   format('%s rows, %s distinct ids on the shards', count(*), count(DISTINCT id))
FROM obs_r4;
SELECT count(*) = 0, 'each row on its node of r4',
	   format('%s rows elsewhere', count(*))
FROM obs_r4 WHERE shard IS DISTINCT FROM chash_lookup('r4', id);
SELECT (SELECT md5(string_agg((id, name, balance)::text, E'\n' ORDER BY id)) FROM obs_r4) =
	   (SELECT md5(string_agg((id, name, balance)::text, E'\n' ORDER BY id)) FROM accounts),
	   'contents as the source', 'checksum of every row'
SQL

t=$(now)
observe obs_r4
run_checks 3 -v rows=$rows -f "$tmp/initial.sql"
echo "    rows a shard on r4: $(coord -c "SELECT string_agg(format('%s %s', shard, n), ', ' ORDER BY shard) FROM (SELECT shard, count(*) n FROM obs_r4 GROUP BY 1) s")"

# --- predictions of a change from ring :from to ring :to, before it runs
cat >"$tmp/predict.sql" <<'SQL'
-- keys: chash_moved_keys on the source table
CREATE TABLE :"s_keys" AS
SELECT * FROM chash_moved_keys(:'from', :'to', 'accounts', 'id')
	AS m(key bigint, from_node text, to_node text);
-- (tens of thousands of rows, joined in the checks: give the planner
-- their statistics, which nothing else gathers before the checks run)
ANALYZE :"s_keys";
-- ranges: chash_moved_ranges, in unsigned ring order (64-bit positions are
-- shown as signed bigints: flip the sign bit); a range that wraps, if any,
-- is split in two.  Rings that compare key by key (modulo and a ring) have
-- no ranges: the tables stay empty.
SELECT chash.plan_kind(:'from', :'to') = 'ranges' AS by_ranges \gset
\if :by_ranges
CREATE TABLE :"s_ranges" AS
SELECT row_number() OVER () AS n, * FROM chash_moved_ranges(:'from', :'to');
\else
CREATE TABLE :"s_ranges" AS
SELECT 0::bigint AS n, * FROM chash_moved_ranges('r4', 'r5') WITH NO DATA;
\endif
CREATE TABLE :"s_pieces" AS
WITH c AS (
	SELECT CASE WHEN chash.hash_bits(key_hash) = 64 THEN -9223372036854775807 - 1 ELSE 0 END AS flip,
		   CASE WHEN chash.hash_bits(key_hash) = 64 THEN 9223372036854775807 ELSE 4294967295 END AS umax,
		   CASE WHEN chash.hash_bits(key_hash) = 64 THEN -9223372036854775807 - 1 ELSE 0 END AS umin
	FROM chash.rings WHERE ring = :'from'),
r AS (SELECT n, from_node, to_node, lo # flip AS ulo, hi # flip AS uhi, umin, umax
	  FROM :"s_ranges", c)
SELECT n, from_node, to_node, ulo, uhi FROM r WHERE ulo <= uhi
UNION ALL SELECT n, from_node, to_node, ulo, umax FROM r WHERE ulo > uhi
UNION ALL SELECT n, from_node, to_node, umin, uhi FROM r WHERE ulo > uhi;
CREATE INDEX ON :"s_pieces" (ulo);
ANALYZE :"s_pieces";
-- the rows of the source whose positions fall in a range, with its nodes
\if :by_ranges
CREATE TABLE :"s_in_ranges" AS
SELECT a.id, p.n, p.from_node, p.to_node
FROM (SELECT id, chash_position(:'from', id) #
			 CASE WHEN (SELECT chash.hash_bits(key_hash) FROM chash.rings WHERE ring = :'from') = 64
				  THEN -9223372036854775807 - 1 ELSE 0 END AS u
	  FROM accounts) a
CROSS JOIN LATERAL (SELECT * FROM :"s_pieces" p WHERE p.ulo <= a.u ORDER BY p.ulo DESC LIMIT 1) p
WHERE a.u <= p.uhi;
\else
CREATE TABLE :"s_in_ranges" (id bigint, n bigint, from_node text, to_node text);
\endif
ANALYZE :"s_in_ranges";
CREATE TABLE :"s_summary" AS
SELECT * FROM chash_move_summary(:'from', :'to', 'accounts', 'id');
SQL

# --- checks of the shards after a change from :from to :to
cat >"$tmp/verify.sql" <<'SQL'
SELECT count(*) = :rows AND count(DISTINCT id) = :rows, 'every id exactly once',
	   format('%s rows, %s distinct ids on the shards', count(*), count(DISTINCT id))
FROM :"after";
SELECT count(*) = 0, 'the ids of the source',
	   format('%s missing, %s not in the source',
			  count(*) FILTER (WHERE o.id IS NULL), count(*) FILTER (WHERE a.id IS NULL))
FROM accounts a FULL JOIN (SELECT DISTINCT id FROM :"after") o USING (id)
WHERE a.id IS NULL OR o.id IS NULL;
SELECT count(*) = 0, 'each row on its node of ' || :'to',
	   format('%s rows elsewhere', count(*))
FROM :"after" WHERE shard IS DISTINCT FROM chash_lookup(:'to', id);
SELECT (SELECT md5(string_agg((id, name, balance)::text, E'\n' ORDER BY id, shard)) FROM :"after") =
	   (SELECT md5(string_agg((id, name, balance)::text, E'\n' ORDER BY id)) FROM accounts),
	   'contents unchanged', 'checksum of every row against the source';
-- moves seen on the shards: (id, from, to) for the ids whose shard changed
CREATE TEMP VIEW moved AS
SELECT id, b.shard AS from_node, a.shard AS to_node
FROM :"before" b JOIN :"after" a USING (id) WHERE a.shard <> b.shard;
SELECT count(*) FILTER (WHERE m.id IS NULL OR k.key IS NULL) = 0,
	   'moved rows are chash_moved_keys''',
	   format('%s moved, %s predicted, %s differ (key or nodes)',
			  count(m.id), count(k.key), count(*) FILTER (WHERE m.id IS NULL OR k.key IS NULL))
FROM moved m FULL JOIN :"s_keys" k
	ON k.key = m.id AND k.from_node = m.from_node AND k.to_node = m.to_node;
SELECT chash.plan_kind(:'from', :'to') = 'ranges' AS by_ranges \gset
\if :by_ranges
SELECT count(*) FILTER (WHERE m.id IS NULL OR r.id IS NULL) = 0,
	   'moved rows are those in chash_moved_ranges',
	   format('%s moved, %s in the %s ranges, %s differ (key or nodes)',
			  count(m.id), count(r.id), (SELECT count(*) FROM :"s_ranges"),
			  count(*) FILTER (WHERE m.id IS NULL OR r.id IS NULL))
FROM moved m FULL JOIN :"s_in_ranges" r
	ON r.id = m.id AND r.from_node = m.from_node AND r.to_node = m.to_node;
SELECT count(*) FILTER (WHERE prev_uhi >= ulo) = 0 AND bool_and(from_node <> to_node) IS NOT false,
	   'ranges disjoint, each a change of owner',
	   format('%s overlaps, %s pieces, %s across the ring''s end', count(*) FILTER (WHERE prev_uhi >= ulo),
			  count(*), count(*) - count(DISTINCT n))
FROM (SELECT *, lag(uhi) OVER (ORDER BY ulo) AS prev_uhi FROM :"s_pieces") p;
\else
-- key by key: the moved rows are those whose owner the rings name
-- differently, and the summary has no ranges to weigh
SELECT count(*) = (SELECT count(*) FROM accounts WHERE chash_lookup(:'from', id) <> chash_lookup(:'to', id)),
	   'moved rows are those the rings place apart',
	   format('%s moved, %s placed apart', count(*),
			  (SELECT count(*) FROM accounts WHERE chash_lookup(:'from', id) <> chash_lookup(:'to', id)))
FROM moved;
SELECT bool_and(fraction IS NULL) AND count(*) > 0, 'chash_move_summary: keys only',
	   format('%s pairs, none with a fraction of the hash space', count(*))
FROM :"s_summary";
\endif
SELECT count(*) FILTER (WHERE s.keys IS DISTINCT FROM m.n) = 0,
	   'chash_move_summary''s counts',
	   coalesce(string_agg(format('%s->%s %s/%s', coalesce(s.from_node, m.from_node),
								  coalesce(s.to_node, m.to_node), s.keys, m.n), ', '
						   ORDER BY coalesce(s.from_node, m.from_node), coalesce(s.to_node, m.to_node))
					FILTER (WHERE s.keys IS DISTINCT FROM m.n), 'all pairs equal')
FROM (SELECT * FROM :"s_summary" WHERE from_node <> to_node) s
FULL JOIN (SELECT from_node, to_node, count(*) AS n FROM moved GROUP BY 1, 2) m
	USING (from_node, to_node);
-- adding a node moves rows only to it; removing one moves only its rows
-- (a change of scheme moves rows between many pairs; that each moved to
-- its node is checked above)
SELECT CASE :'change'
		   WHEN 'add' THEN count(*) FILTER (WHERE to_node <> :'node') = 0
		   WHEN 'scheme' THEN count(DISTINCT (from_node, to_node)) > 1
		   ELSE count(*) FILTER (WHERE from_node <> :'node') = 0
				AND count(*) = (SELECT count(*) FROM :"before" WHERE shard = :'node')
				AND NOT EXISTS (SELECT FROM :"after" WHERE shard = :'node') END,
	   CASE :'change' WHEN 'add' THEN 'every moved row went to ' || :'node'
		   WHEN 'scheme' THEN 'rows moved between several pairs of shards'
		   ELSE 'exactly ' || :'node' || '''s rows moved, ' || :'node' || ' empty' END,
	   format('%s moved between other shards', count(*) FILTER (WHERE from_node <> :'node' AND to_node <> :'node'))
FROM moved;
SQL

# figures of a change: moved, fraction, ideal, the ranges' share of the ring
cat >"$tmp/figures.sql" <<'SQL'
CREATE TEMP VIEW moved AS
SELECT id, b.shard AS from_node, a.shard AS to_node
FROM :"before" b JOIN :"after" a USING (id) WHERE a.shard <> b.shard;
SELECT CASE :'change' WHEN 'scheme' THEN
		   format('moved %s of %s rows (%s %%), key by key', (SELECT count(*) FROM moved), :rows,
				  round(100.0 * (SELECT count(*) FROM moved) / :rows, 2))
	   ELSE format('moved %s of %s rows (%s %%), ideal %s %% (%s); ranges: %s, %s %% of the ring',
			  (SELECT count(*) FROM moved), :rows,
			  round(100.0 * (SELECT count(*) FROM moved) / :rows, 2),
			  CASE :'change' WHEN 'add'
				  THEN round(100.0 / (SELECT count(*) FROM chash.node_config WHERE ring = :'to'), 2)
				  ELSE round(100.0 * (SELECT count(*) FROM :"before" WHERE shard = :'node') / :rows, 2) END,
			  CASE :'change' WHEN 'add'
				  THEN '1/' || (SELECT count(*) FROM chash.node_config WHERE ring = :'to')
				  ELSE :'node' || '''s share' END,
			  (SELECT count(*) FROM :"s_ranges"),
			  round(100 * (SELECT sum(fraction) FROM :"s_ranges")::numeric, 2)) END;
SELECT 'rows a shard: ' || string_agg(format('%s %s->%s', shard, coalesce(b, 0), coalesce(a, 0)), ', ' ORDER BY shard)
FROM (SELECT shard, count(*) AS b FROM :"before" GROUP BY 1) x
FULL JOIN (SELECT shard, count(*) AS a FROM :"after" GROUP BY 1) y USING (shard);
SQL

# Damage the shards on purpose (CHASH_MIGRATE_FAULT), to see checks fail
damage() {
	case $fault in
	'') return 0 ;;
	lose) shard 5 -c "DELETE FROM accounts WHERE id = (SELECT min(id) FROM accounts)" ;;
	duplicate)
		shard 5 -c "COPY (SELECT * FROM accounts ORDER BY id LIMIT 1) TO STDOUT" |
			shard 1 -c "COPY accounts FROM STDIN"
		;;
	misroute)
		shard 1 -c "COPY (SELECT * FROM accounts ORDER BY id LIMIT 1) TO STDOUT" |
			shard 3 -c "COPY accounts FROM STDIN"
		shard 1 -c "DELETE FROM accounts WHERE id = (SELECT min(id) FROM accounts)"
		;;
	alter) shard 3 -c "UPDATE accounts SET balance = balance + 0.01 WHERE id = (SELECT min(id) FROM accounts)" ;;
	*)
		echo "unknown CHASH_MIGRATE_FAULT: $fault" >&2
		exit 2
		;;
	esac
	echo "  (damaged the shards on purpose: $fault)"
}

# step NAME FROM TO CHANGE NODE: predict, generate the plan, run it, check
step() {
	local name=$1 from=$2 to=$3 change=$4 node=$5 t plan stats how f runs k
	local vars=(-v rows="$rows" -v from="$from" -v to="$to" -v change="$change" -v node="$node"
		-v s_keys="keys_$name" -v s_ranges="ranges_$name" -v s_pieces="pieces_$name"
		-v s_in_ranges="in_ranges_$name" -v s_summary="summary_$name"
		-v before="obs_$from" -v after="obs_$to")
	echo "== $name: $from -> $to"
	t=$(now)
	coord "${vars[@]}" -f "$tmp/predict.sql"
	echo "    predictions in $(since "$t")"

	t=$(now)
	plan=$tmp/plan_$name.sql
	coord -c "CREATE TABLE plan_$name AS
				SELECT n, s FROM chash_migration_sql('$from', '$to', 'accounts', 'id') WITH ORDINALITY AS p(s, n)"
	coord -c "SELECT s FROM plan_$name ORDER BY n" >"$plan"
	stats=$(coord -c "SELECT format('%s statements (%s comments), %s transactions, %s bytes',
						   count(*), count(*) FILTER (WHERE s LIKE '--%'),
						   count(*) FILTER (WHERE s ~* '^\s*(BEGIN|START TRANSACTION)'), sum(length(s) + 1))
						 FROM plan_$name")
	[ -z "${CHASH_MIGRATE_PLANS:-}" ] || cp "$plan" "$CHASH_MIGRATE_PLANS/"
	echo "    plan: $stats, generated in $(since "$t")"

	# Adding: a run interrupted after its first transaction, then the whole
	# plan from the start.  Removing: the whole plan, then again.  Either way
	# what is already moved must not move again.
	if [ "$change" = add ]; then
		awk '{ print } /^COMMIT;$/ { exit }' "$plan" >"$tmp/first_$name.sql"
		runs=("$tmp/first_$name.sql" "$plan")
		how="its first transaction alone, then the whole plan"
	else
		runs=("$plan" "$plan")
		how="the whole plan twice"
	fi
	t=$(now)
	k=0
	for f in "${runs[@]}"; do
		k=$((k + 1))
		if ! coord -f "$f" >"$tmp/run_${name}_$k.out" 2>&1; then
			cat "$tmp/run_${name}_$k.out" >>"$tmp/run_$name.out"
			echo "  FAIL  running the plan of $name ($f):" >&2
			tail -n 20 "$tmp/run_$name.out" | sed 's/^/        /' >&2
			failures=$((failures + 1))
			exit 1
		fi
		cat "$tmp/run_${name}_$k.out" >>"$tmp/run_$name.out"
	done
	# the whole plan's first run: a NOTICE a batch, with its move and batch
	# numbers, the rows so far and the time since the plan began
	if [ "${runs[0]}" = "$plan" ]; then k=1; else k=2; fi
	progress_check "$name" "$plan" "$tmp/run_${name}_$k.out"
	echo "    ran $how in $(since "$t")$([ -s "$tmp/run_$name.out" ] && echo "; output: $(wc -l <"$tmp/run_$name.out") lines, the first: $(head -n 1 "$tmp/run_$name.out")")"
	[ "$name" != add ] || damage

	t=$(now)
	observe "obs_$to"
	run_checks 9 "${vars[@]}" -f "$tmp/verify.sql"
	coord "${vars[@]}" -f "$tmp/figures.sql" | sed 's/^/    /'
	echo "    checks in $(since "$t")"
}

coord -c "SELECT chash_ring_copy('r4', 'r5')" \
	-c "SELECT chash_node_add('r5', 'shard5', target => 'shard5')" >/dev/null
step add r4 r5 add shard5

coord -c "SELECT chash_ring_copy('r5', 'r5b')" \
	-c "SELECT chash_node_remove('r5b', 'shard2')" >/dev/null
step remove r5 r5b remove shard2

# A change of scheme, both ways: the ring to hash % 5 (modulo on the keys'
# xxh3_64, the five shards in order: the ids include negative ones, which
# id % n cannot place), and back to the ring of five.  Plans between them
# go key by key.
{
	echo "SELECT chash_ring_create('m5', algorithm => 'modulo');"
	for i in 1 2 3 4 5; do
		echo "SELECT chash_node_add('m5', 'shard$i', target => 'shard$i');"
	done
} >"$tmp/m5.sql"
echo "SELECT chash_ring_copy('r5', 'r5m');" >>"$tmp/m5.sql"
coord -f "$tmp/m5.sql" >/dev/null
step to_modulo r5b m5 scheme -
step from_modulo m5 r5m scheme -

if [ $failures -gt 0 ]; then
	echo "migrate_postgres: FAILED, $failures of $checks checks (total $(since "$t0"))" >&2
	exit 1
fi
echo "migrate_postgres: all $checks checks passed (total $(since "$t0"))"
