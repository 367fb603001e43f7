#!/usr/bin/env bash
# The online move's write block against the moving rows, with clients
# writing (part of make bench, not of make test: these are timings).
#
# Three shard clusters (test/scripts/lib/shards.sh) and a fourth to add,
# and for each of two tables, small (200,000 rows) and big (2,000,000), a
# ring of the three: adding the fourth moves a quarter of the rows, about
# 50,000 and 500,000.  Each move runs with four pgbench clients writing
# through the coordinator to the table being moved (an UPDATE of a random
# row and an INSERT of a new one, each routed by chash_lookup, retried when
# a fence refuses it).
#
# For each move: the write block (the fences' first commit to the ring
# switch's commit, as chash.online_moves records it) and the cutover's
# steps (the move's NOTICE), the longest client transaction (pgbench's
# log, retries included), the initial copy and the whole move.  The peer
# is the work a cutover that compares every moving row does (1.4's): one
# count and checksum of the moving rows on each source and on the
# destination, timed on the servers (EXPLAIN ANALYZE's Execution Time).
#
#   make bench   (or: test/bin/with-cluster.sh test/bench/move_online.sh)
#
# CHASH_BENCH_MOVE_ROWS   rows of the big table (default 2000000)
set -euo pipefail
suite=bench_move
shards=4
. "$(dirname "$0")/../scripts/lib/shards.sh"
[ -n "$pgbench" ] || { echo "bench move_online: no pgbench with --max-tries (15 or later) found" >&2; exit 1; }
big=${CHASH_BENCH_MOVE_ROWS:-2000000}
case $big in '' | *[!0-9]* | 0*) echo "bench: CHASH_BENCH_MOVE_ROWS must be a positive integer" >&2; exit 2 ;; esac
small=$((big / 10))

start_shards
make_coordinator
for t in small big; do
	for i in $(seq 1 $shards); do
		shard "$i" -c "CREATE TABLE $t (k bigint PRIMARY KEY, v integer NOT NULL, note text)"
	done
done
{
	echo "CREATE SEQUENCE new_keys START 100000000;"
	for t in small big; do
		for i in $(seq 1 $shards); do
			echo "IMPORT FOREIGN SCHEMA public LIMIT TO ($t) FROM SERVER shard$i INTO shard$i;"
		done
		cat <<SQL
CREATE TABLE $t (k bigint PRIMARY KEY, v integer NOT NULL, note text);
SELECT chash_ring_create('$t');
SELECT chash_node_add('$t', 'shard' || i, target => 'shard' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_copy('$t', '${t}_add');
SELECT chash_node_add('${t}_add', 'shard4', target => 'shard4');
CREATE FUNCTION write_$t(upd bigint) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE
	nk bigint := nextval('new_keys');
BEGIN
	EXECUTE format('UPDATE %I.$t SET v = v + 1 WHERE k = \$1', chash_lookup('$t', upd::text)) USING upd;
	EXECUTE format('INSERT INTO %I.$t VALUES (\$1, 0, \$2)', chash_lookup('$t', nk::text)) USING nk, 'new ' || nk;
END
\$\$;
SQL
	done
} | coord >/dev/null
# each shard fills its own rows: the keys whose positions its ranges hold
for t in small big; do
	rows=$([ $t = small ] && echo $small || echo $big)
	for i in 1 2 3; do
		ranges=$(coord -c "SELECT range_agg(int8range(lo, CASE WHEN hi = 9223372036854775807 THEN NULL ELSE hi + 1 END)) FROM chash.ring_node_ranges('$t') WHERE node = 'shard$i'")
		shard "$i" -c "INSERT INTO $t SELECT g, 0, 'row ' || g FROM generate_series(1, $rows) g
			WHERE chash_hash('$(coord -c "SELECT key_hash FROM chash.rings WHERE ring = '$t'")', g::text) <@ '$ranges'::int8multirange" \
			-c "VACUUM ANALYZE $t" &
	done
	wait
done
echo "online move bench (test/bench/move_online.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, load average at start $(cut -d' ' -f1-3 /proc/loadavg); server $(shard 1 -c 'SHOW server_version')"
echo

exec_ms() { # exec_ms SHARD SQL: the server's Execution Time of SQL, in ms
	shard "$1" -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) $2" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
}
# the count and checksum of a table's rows that move, on one shard
checksum_sql() { # checksum_sql TABLE
	local r kh
	r=$(coord -c "SELECT range_agg(int8range(lo, CASE WHEN hi = 9223372036854775807 THEN NULL ELSE hi + 1 END)) FROM chash_moved_ranges('$1', '${1}_add')")
	kh=$(coord -c "SELECT key_hash FROM chash.rings WHERE ring = '$1'")
	echo "SELECT count(*), sum(hashtextextended(ROW(t.k, t.v, t.note)::text, 0)) FROM $1 t WHERE chash_hash('$kh', t.k::text) <@ '$r'::int8multirange"
}

printf '%-6s | %12s | %10s | %22s | %17s | %14s | %9s | %s\n' table "moving rows" "write block" "longest client txn" "compare all rows" "initial copy" "move" "cutover steps"
for t in small big; do
	rows=$([ $t = small ] && echo $small || echo $big)
	sql=$(checksum_sql $t)
	peer=0
	for i in 1 2 3; do
		peer=$(awk -v a="$peer" -v b="$(exec_ms "$i" "$sql")" 'BEGIN { print a + b }')
	done
	cat >"$tmp/write_$t.sql" <<SQL
\set upd random(1, $rows)
SELECT write_$t(:upd);
SQL
	start_writers "w_$t" "write_$t.sql" 4
	sleep 3
	start=$(date +%s%3N)
	coord -c "CALL chash_move_online('$t', '${t}_add', '$t', 'k')" >"$tmp/move_$t.out" 2>&1 || {
		cat "$tmp/move_$t.out" >&2
		exit 1
	}
	took=$(($(date +%s%3N) - start))
	stop_writers "w_$t" >/dev/null || exit 1
	peer=$(awk -v a="$peer" -v b="$(exec_ms 4 "$sql")" 'BEGIN { print a + b }')
	longest=$(longest_txn "w_$t")
	block=$(coord -c "SELECT round(extract(epoch FROM write_block) * 1000, 1) FROM chash.online_moves WHERE from_ring = '$t'")
	moved=$(coord -c "SELECT sum(p.rows_moved) FROM chash.online_move_pairs p JOIN chash.online_moves m USING (move_id) WHERE m.from_ring = '$t'")
	copy=$(sed -n 's/.*initial copies done in \([0-9.]*\) s.*/\1/p' "$tmp/move_$t.out")
	steps=$(sed -n 's/.*refused for [0-9.]* ms (\(.*\)switched).*/\1/p' "$tmp/move_$t.out" | sed 's/, $//')
	printf '%-6s | %12s | %7s ms | %19s ms | %14s ms | %12s s | %7.1f s | %s\n' $t "$moved" "$block" "$longest" "$peer" "$copy" "$(awk -v t="$took" 'BEGIN { print t / 1000 }')" "$steps"
	eval "block_$t=$block peer_$t=$peer"
done
echo
awk -v bs="$block_small" -v bb="$block_big" -v ps="$peer_small" -v pb="$peer_big" 'BEGIN {
	printf "write block, big against small: %.2f (moving rows: 10x); the peer'"'"'s compare of every moving row: %.2f\n", bb / bs, pb / ps
	printf "write block against the peer (a cutover comparing every moving row): small %.3f, big %.3f\n", bs / ps, bb / pb
}'
