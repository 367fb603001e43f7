#!/usr/bin/env bash
# CALL chash_move_online moves the rows of a ring change between real
# PostgreSQL shards while clients keep writing, and loses nothing.
#
# The server in PGHOST/PGPORT (test/bin/with-cluster.sh provides one; chash
# installed but not created anywhere) is the coordinator; lib/shards.sh
# starts four shard clusters (wal_level = logical, chash created, a table
# users) and gives the coordinator a database with a server, a user
# mapping and a schema shardN with the foreign table shardN.users each.
#
#   0. What a move refuses, on real shards, with nothing made anywhere.
#   1. Ring users (shard1..shard3) holds 25,000 rows.  Four pgbench clients
#      write through the coordinator for the whole of steps 2 and 3, each
#      transaction routed by chash_lookup('users', k) at the time: an
#      UPDATE v = v + 1 of a random key, a DELETE of a random key of a
#      range kept for deletes, an INSERT of a new key; every write that
#      succeeds is also recorded in the coordinator in the same transaction
#      (the acknowledgements).  pgbench retries a transaction that meets
#      the move's fence (40001), with -T and --max-tries=0.  They write at
#      most 50 transactions a second in all (-R), a write every 20 ms,
#      without taking the CPU the other lanes of make test need.
#   2. users_add = users + shard4, moved online.
#   3. users_remove = users without shard2, moved online.
#   4. Without writers, users_back = users + shard2, moved online while the
#      move is killed (kill -9 of its coordinator backend): during the
#      initial copy; at cutover with its fences up (they then lift by
#      themselves at the deadline max_write_block set, not before, and
#      the move records the time up to it in its write block); after the switch
#      waiting for an older transaction.  Each time the same CALL is run
#      again.  The last waits for an older transaction that ends while it
#      waits, and one with a short wait_timeout is refused while such a
#      transaction stays open.
#
# After 3 and after 4 every shard is read directly (COPY from the shard's
# own server) and checked: every key exactly once, on the node the ring
# users now names; every acknowledged insert present, every acknowledged
# delete absent, every v equal to its number of acknowledged updates; no
# row whose key did not move and that no client wrote has a new xmin (the
# move did not touch it); after 4, every row as it was before.  Nothing of
# a move is left on any shard.  Prints the longest transaction of pgbench's
# log (retries and the wait for its scheduled start included) and the write
# block each move measured.
#
#   test/bin/with-cluster.sh test/scripts/move_online.sh
set -euo pipefail
suite=move_online
shards=4
. "$(dirname "$0")/lib/shards.sh"
[ -n "$pgbench" ] || { echo "move_online: no pgbench with --max-tries (15 or later) found" >&2; exit 1; }
rows=25000
# the writers run this long, and both moves must end before they do
bench_seconds=${CHASH_MOVE_BENCH_SECONDS:-60}
bench_pid=

start_shards
make_coordinator
{
	acked_writes_sql
	cat <<'SQL'
SELECT chash_ring_create('users');
SELECT chash_node_add('users', 'shard' || i, target => 'shard' || i) FROM generate_series(1, 3) i;
SQL
	for i in 1 2 3; do
		echo "INSERT INTO shard$i.users SELECT g, 0, 'row ' || g FROM generate_series(1, $rows) g WHERE chash_lookup('users', g::text) = 'shard$i';"
	done
} >"$tmp/setup.sql"
coord -f "$tmp/setup.sql" >/dev/null
echo "  $shards shard clusters and the coordinator set up, $rows rows on ring users"

move() { coord -c "CALL chash_move_online('$1', '$2', 'users', 'k')" 2>&1 | sed 's/^/    /'; }

# --- 0: what a move refuses, with nothing made anywhere
me=$(coord -c "SELECT current_user")
shard 1 -c "CREATE ROLE mover LOGIN" -c "CREATE DATABASE lim OWNER mover" -c "CREATE DATABASE nopk"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/s1" -p 5432 -U "$shard_user" -d lim \
	-c "CREATE EXTENSION chash" -c "SET ROLE mover" -c "CREATE TABLE users (k bigint PRIMARY KEY, v integer NOT NULL, note text)"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/s1" -p 5432 -U "$shard_user" -d nopk \
	-c "CREATE EXTENSION chash" -c "CREATE TABLE users (k bigint, v integer, note text)" -c "CREATE INDEX ON users (k)"
shard 4 -c "CREATE DATABASE bare"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/s4" -p 5432 -U "$shard_user" -d bare \
	-c "CREATE TABLE users (k bigint PRIMARY KEY, v integer NOT NULL, note text)"
coord >/dev/null <<SQL
CREATE SERVER self FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$PGHOST', port '${PGPORT:-5432}', dbname '$db');
CREATE USER MAPPING FOR CURRENT_USER SERVER self OPTIONS (user '$me');
CREATE SERVER shard1_mover FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp/s1', port '5432', dbname 'lim');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1_mover OPTIONS (user 'mover');
CREATE SERVER shard1_nopk FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp/s1', port '5432', dbname 'nopk');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1_nopk OPTIONS (user '$shard_user');
CREATE SERVER shard4_bare FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp/s4', port '5432', dbname 'bare');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard4_bare OPTIONS (user '$shard_user');
CREATE SCHEMA selfs;
CREATE FOREIGN TABLE selfs.users (k bigint, v integer, note text) SERVER self OPTIONS (schema_name 'public', table_name 'users');
CREATE SCHEMA lim;
CREATE FOREIGN TABLE lim.users (k bigint, v integer, note text) SERVER shard1_mover OPTIONS (schema_name 'public', table_name 'users');
CREATE SCHEMA nopk;
CREATE FOREIGN TABLE nopk.users (k bigint, v integer, note text) SERVER shard1_nopk OPTIONS (schema_name 'public', table_name 'users');
CREATE SCHEMA bare;
CREATE FOREIGN TABLE bare.users (k bigint, v integer, note text) SERVER shard4_bare OPTIONS (schema_name 'public', table_name 'users');
SELECT chash_ring_copy('users', 'with_self');
SELECT chash_node_add('with_self', 'self', target => 'selfs');
SELECT chash_ring_copy('users', 'with_lim');
SELECT chash_node_add('with_lim', 'lim', target => 'lim');
SELECT chash_ring_copy('users', 'with_nopk');
SELECT chash_node_add('with_nopk', 'nopk', target => 'nopk');
SELECT chash_ring_copy('users', 'with_bare');
SELECT chash_node_add('with_bare', 'bare', target => 'bare');
SELECT chash_ring_copy('users', 'users_add');
SELECT chash_node_add('users_add', 'shard4', target => 'shard4');
SQL
refused "a source without wal_level = logical" 'node "self" cannot take part in an online move: wal_level is' \
	-c "CALL chash_move_online('with_self', 'users', 'users', 'k')"
refused "a source whose mapped role may not replicate" 'node "lim" cannot take part in an online move: the mapped role may not replicate' \
	-c "CALL chash_move_online('with_lim', 'users', 'users', 'k')"
refused "a destination whose mapped role may not subscribe" 'node "lim" cannot take part in an online move: the mapped role may not create subscriptions' \
	-c "CALL chash_move_online('users', 'with_lim', 'users', 'k')"
refused "a table without a primary key" 'relation public.users has no primary key or replica identity' \
	-c "CALL chash_move_online('users', 'with_nopk', 'users', 'k')"
refused "a shard without chash" 'node "bare" cannot take part in an online move: extension "chash" is not installed' \
	-c "CALL chash_move_online('users', 'with_bare', 'users', 'k')"
stray=$(coord -c "SELECT g FROM generate_series(900000000, 900001000) g WHERE chash_lookup('users_add', g::text) = 'shard4' LIMIT 1")
shard 4 -c "INSERT INTO users VALUES ($stray, 0, 'stray')"
refused "a destination that holds a moving key already" 'node "shard4" already holds rows of keys that move to it' \
	-c "CALL chash_move_online('users', 'users_add', 'users', 'k')"
shard 4 -c "DELETE FROM users WHERE k = $stray"
refused "a move in a transaction block" 'invalid transaction termination' \
	-c "BEGIN" -c "CALL chash_move_online('users', 'users_add', 'users', 'k')"
run_checks 1 <<'SQL'
SELECT count(*) = 0, 'no move recorded by the refused ones', count(*) || ' moves' FROM chash.online_moves;
SQL
check_leftovers
coord -c "SELECT chash_ring_drop(r) FROM unnest(ARRAY['with_self', 'with_lim', 'with_nopk', 'with_bare']) r" >/dev/null

# --- 1 to 3: two moves while pgbench writes
observe before
cat >"$tmp/write.sql" <<'SQL'
\set upd random(1, 20000)
\set del random(20001, 25000)
SELECT write(:upd, :del);
SQL
coord -c "SELECT chash_ring_copy('users_add', 'users_remove')" -c "SELECT chash_node_remove('users_remove', 'shard2')" >/dev/null
(cd "$tmp" && exec "$pgbench" -n -f write.sql -c 4 -j 2 -T $bench_seconds -R 50 --max-tries=0 -l --log-prefix="$tmp/bench" "$db" >"$tmp/bench.out" 2>&1) &
bench_pid=$!
background+=($bench_pid)
sleep 3
echo "  move 1: add shard4, with 4 pgbench clients writing"
move users users_add
coord -c "SELECT chash_ring_drop('users_add')" >/dev/null
sleep 2
echo "  move 2: remove shard2, with the clients still writing"
move users users_remove
coord -c "SELECT chash_ring_drop('users_remove')" >/dev/null
if kill -0 "$bench_pid" 2>/dev/null; then
	ok "both moves ended while the clients were still writing"
else
	fail "the clients stopped writing before the moves ended (CHASH_MOVE_BENCH_SECONDS=$bench_seconds)"
fi
rc=0
wait "$bench_pid" || rc=$?
bench_pid=
if [ $rc -eq 0 ] && grep -q "^number of failed transactions: 0 " "$tmp/bench.out"; then
	ok "pgbench: every client ran to the end, no transaction failed"
else
	fail "pgbench (exit status $rc): $(tail -n 20 "$tmp/bench.out")"
fi
grep -E "^number of (transactions actually processed|failed transactions|transactions retried|total retries)" "$tmp/bench.out" | sed 's/^/  pgbench: /'
cat "$tmp"/bench* 2>/dev/null | awk 'NF >= 6 && $3 ~ /^[0-9]+$/ { if ($3 > m) m = $3 } END { printf "  longest pgbench transaction, retries and schedule lag included: %.1f ms\n", m / 1000 }'
coord -c "SELECT 'write block of move ' || move_id || ': ' || round(extract(epoch FROM write_block) * 1000, 1) || ' ms, ' || (SELECT sum(rows_moved) FROM chash.online_move_pairs p WHERE p.move_id = m.move_id) || ' rows' FROM chash.online_moves m ORDER BY move_id" | sed 's/^/  /'
observe after
run_checks 8 <<'SQL'
SELECT count(*) = count(DISTINCT k), 'every key once', count(*) || ' rows' FROM after;
SELECT count(*) = 0, 'every row on the node users names', count(*) || ' elsewhere'
FROM after WHERE shard <> chash_lookup('users', k::text);
SELECT count(*) = 0, 'every acknowledged insert present', count(*) || ' missing'
FROM ack_insert a WHERE NOT EXISTS (SELECT FROM after f WHERE f.k = a.k) AND NOT EXISTS (SELECT FROM ack_delete d WHERE d.k = a.k);
SELECT count(*) = 0, 'every acknowledged delete absent', count(*) || ' present of ' || (SELECT count(*) FROM ack_delete)
FROM ack_delete d JOIN after f ON f.k = d.k;
SELECT count(*) = 0, 'no row but those loaded and acknowledged', count(*) || ' others'
FROM after f WHERE f.k > 25000 AND NOT EXISTS (SELECT FROM ack_insert a WHERE a.k = f.k);
SELECT count(*) = 0 AND (SELECT sum(n) FROM ack_update) > 0, 'every v is its number of acknowledged updates',
	   count(*) || ' differ, ' || (SELECT sum(n) FROM ack_update) || ' updates'
FROM after f LEFT JOIN ack_update u ON u.k = f.k WHERE f.v <> coalesce(u.n, 0);
SELECT count(*) = (SELECT count(*) FROM before WHERE k <= 25000) - (SELECT count(*) FROM ack_delete), 'every loaded row not deleted present', count(*) || ' rows'
FROM after WHERE k <= 25000;
SELECT count(*) = 0 AND (SELECT count(*) FROM before b WHERE b.shard = chash_lookup('users', b.k::text)) > 0,
	   'no row the move kept in place and no client wrote was touched', count(*) || ' touched'
FROM before b JOIN after f ON f.k = b.k
WHERE b.shard = f.shard AND NOT EXISTS (SELECT FROM ack_update u WHERE u.k = b.k) AND f.x <> b.x;
SQL
check_leftovers

# --- 4: a move killed (kill -9 of its coordinator backend) and run again.
# A session that holds a lock on a shard, or a transaction open on the
# coordinator, keeps the move at a chosen point.
kill_move() { # kill_move WHAT: kill -9 of the backend running the CALL
	local pid tries
	pid=$(coord -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL chash_move_online%' AND pid <> pg_backend_pid()")
	[ -n "$pid" ] || { fail "no move to kill $1"; exit 1; }
	kill -9 "$pid"
	wait "$move_pid" 2>/dev/null || true
	for tries in $(seq 1 100); do
		coord -c "SELECT 1" >/dev/null 2>&1 && break
		sleep 0.2
	done
	echo "  killed the move $1; the coordinator is back"
}
epoch() { coord -c "SELECT extract(epoch FROM clock_timestamp())"; }
coord -c "SELECT chash_ring_copy('users', 'users_back')" -c "SELECT chash_node_add('users_back', 'shard2', target => 'shard2')" >/dev/null
observe before_back
echo "  move 3: add shard2 again, without writers, killed three times"
move users users_back >"$tmp/move3a.out" &
move_pid=$!
wait_for "its first subscription" shard 2 -c "SELECT count(*) > 0 FROM pg_subscription"
kill_move "during the initial copy"
coord -c "SELECT chash_node_add('users_back', 'extra', target => 'shard2')" >/dev/null
refused "a ring changed since the move started" 'ring "users" or ring "users_back" has changed since online move' \
	-c "CALL chash_move_online('users', 'users_back', 'users', 'k')"
coord -c "SELECT chash_node_remove('users_back', 'extra')" >/dev/null

# a transaction on shard1 that wrote a row there before the fence went up
# keeps the cutover waiting for it, with the fences up
moving=$(coord -c "SELECT g FROM generate_series(1, 20000) g WHERE chash_lookup('users', g::text) = 'shard1' AND chash_lookup('users_back', g::text) = 'shard2' LIMIT 1")
read -r staying staying2 <<<"$(coord -c "SELECT string_agg(g::text, ' ') FROM (SELECT g FROM generate_series(1, 20000) g WHERE chash_lookup('users', g::text) = 'shard1' AND chash_lookup('users_back', g::text) = 'shard1' LIMIT 2) x")"
hold chash_hold 1 "BEGIN; UPDATE users SET note = note WHERE k = $staying"
coord -c "CALL chash_move_online('users', 'users_back', 'users', 'k', max_write_block => '20 s')" >"$tmp/move3b.out" 2>&1 &
move_pid=$!
wait_for "its fence on shard1" fence_up 1
write_moving() { coord -c "UPDATE shard1.users SET v = v WHERE k = $moving" 2>&1; }
out=$(write_moving) && fail "a write to a moving key at cutover was not refused" ||
	{ grep -q 'this key is moving to another node' <<<"$out" && ok "a write to a moving key at cutover is refused: $(grep -m1 ERROR <<<"$out" | sed 's/^.*ERROR: *//')" ||
		fail "a write to a moving key at cutover failed otherwise: $out"; }
out=$(coord -c "UPDATE shard1.users SET v = v WHERE k = $staying2" 2>&1) &&
	ok "writes to other keys go on while the fences are up" || fail "a write to a key that stays failed: $out"
fenced_since=$(coord -c "SELECT extract(epoch FROM fenced_since) FROM chash.online_moves WHERE to_ring = 'users_back'")
kill_move "at cutover, with its fences up"
release chash_hold 1
# the fences lift by themselves at their deadline (epoch microseconds in
# the state of shard1's fence), not before
deadline=$(shard 1 -c "SELECT last_value / 1000000.0 FROM pg_sequences WHERE sequencename ~ '^chash_move_[0-9a-f]{10}_state$' AND last_value >= 1000000000000000")
[ -n "$deadline" ] || { fail "no fence with a deadline on shard1 after the kill"; exit 1; }
lifted=
for i in $(seq 1 300); do
	if write_moving >/dev/null; then
		lifted=$(epoch)
		break
	fi
	sleep 0.1
done
if [ -n "$lifted" ] && awk -v l="$lifted" -v d="$deadline" 'BEGIN { exit !(l >= d) }'; then
	ok "the fences of the killed move lifted by themselves at their deadline, $(awk -v a="$fenced_since" -v b="$deadline" 'BEGIN { printf "%.2f", b - a }') s after the move recorded them (max_write_block 20 s); a client's write went through $(awk -v a="$fenced_since" -v b="$lifted" 'BEGIN { printf "%.2f", b - a }') s after"
elif [ -n "$lifted" ]; then
	fail "the fences of the killed move lifted $(awk -v l="$lifted" -v d="$deadline" 'BEGIN { printf "%.2f", d - l }') s before their deadline"
else
	fail "the fences of the killed move never lifted"
fi

hold chash_hold coordinator "BEGIN; SELECT txid_current()"
move users users_back >"$tmp/move3c.out" &
move_pid=$!
wait_for "the switch" coord -c "SELECT count(*) > 0 FROM chash.online_moves WHERE step = 'switched'"
kill_move "after the switch, waiting for an older transaction"
move users users_back
coord -c "SELECT chash_ring_drop('users_back')" >/dev/null
observe after_back
run_checks 5 <<SQL
SELECT count(*) = count(DISTINCT k) AND count(*) = (SELECT count(*) FROM before_back), 'every key once, as many as before', count(*) || ' rows'
FROM after_back;
SELECT count(*) = 0, 'every row on the node users names', count(*) || ' elsewhere'
FROM after_back WHERE shard <> chash_lookup('users', k::text);
SELECT count(*) = 0, 'every row as it was', count(*) || ' differ'
FROM before_back b FULL JOIN after_back a ON a.k = b.k
WHERE a.k IS NULL OR b.k IS NULL OR (a.v, a.note) IS DISTINCT FROM (b.v, b.note);
SELECT count(*) = 1 AND bool_and(step = 'done'), 'the killed move ran once, to its end', count(*) || ' moves of users_back'
FROM chash.online_moves WHERE to_ring = 'users_back';
-- what clients could see: refused from the killed cutover's fences to
-- their deadline, and by the last cutover
SELECT extract(epoch FROM write_block_total) >= $deadline - $fenced_since + extract(epoch FROM write_block) - 0.001,
	   'the recorded write block covers the killed cutover''s fences and the last',
	   round(extract(epoch FROM write_block_total)::numeric, 3) || ' s recorded in all, ' ||
	   round(($deadline - $fenced_since)::numeric, 3) || ' s of the killed cutover''s fences, ' ||
	   round(extract(epoch FROM write_block)::numeric * 1000, 1) || ' ms by the last'
FROM chash.online_moves WHERE to_ring = 'users_back';
SQL
check_leftovers
finish
