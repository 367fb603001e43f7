#!/usr/bin/env bash
# A backend killed with SIGKILL in the middle of a ring change or of a long
# plan: after PostgreSQL's crash recovery (the postmaster ends every backend
# and replays the WAL), the rings are exactly the last committed state, and
# the killed transaction left nothing.
#
# Each scenario commits a change, takes a fingerprint of everything chash
# shows (the catalog rows, versions included; every ring's points; 20,000
# keys routed by chash_lookup over text and integer keys, chash_lookup_n and
# chash_position on every ring; a plan's moved keys, ranges, summary and
# migration statements over a table of 200,000 keys), then starts the
# victim, waits until it blocks where the scenario wants it (on an advisory
# lock held by another session, or in pg_sleep after its change, in the
# same transaction), kills its backend (found by pg_backend_pid()) with
# kill -9, waits for the postmaster's restart, and compares a fresh
# fingerprint with the committed one.  The killed transaction's own view,
# taken before it blocked, must differ from the committed state (else the
# comparison would prove nothing), and its transaction id must read as
# aborted after recovery, or as unknown to the recovered server when none of
# its WAL had been written (WAL buffers are shared memory, which the restart
# reinitializes; test/bin/with-cluster.sh's fsync=off loses nothing here, since
# the kernel keeps what was written).
#
#   1. a transaction of three changes (a node added, the ring's vnodes by
#      DML, then an UPDATE of every node's weight), killed inside the third
#      statement, blocked at one of the nodes
#   2. a change followed by pg_sleep in its transaction, killed there, while
#      another change waits for the ring-change lock
#   3. chash_moved_keys over a table, killed part-way through the table, in
#      a transaction that copied and changed a ring
#   4. chash_migration_sql (mysql dialect, key lists read from the table),
#      killed part-way through the table
#   5. a prepared transaction (two-phase commit) of ring changes survives a
#      crash: routes are the committed state's until COMMIT PREPARED, then
#      the prepared transaction's own
#
# After each recovery a new change must commit (the ring-change lock is
# free) and be seen by another session; versions keep growing.  Drops its
# database (and any prepared transaction of it) whatever happens; the
# cluster stays usable for the suites after it.  Takes about 17 s.
#
#   test/bin/with-cluster.sh test/scripts/crash.sh
set -euo pipefail
shopt -s inherit_errexit

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
: "${PGHOST:?run under test/bin/with-cluster.sh}"
: "${CHASH_PGLOG:?run under test/bin/with-cluster.sh (the server log tells of the restarts)}"
. "$(dirname "$0")/lib/sharing.sh"
db=chash_crash_$$
gid=chash_crash_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-crash.XXXXXX")
failures=0
bg_pids=()

psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db")

cleanup() {
	local rc=$?
	local pid
	for pid in "${bg_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [ $rc -ne 0 ] && [ $failures -eq 0 ]; then
		echo "crash: FAILED (a step failed, exit status $rc)" >&2
	fi
	if [ $rc -ne 0 ]; then
		for f in "$work"/*.err; do
			[ -s "$f" ] || continue
			# sessions ended by a crash, as they should be
			grep -q "server closed the connection unexpectedly" "$f" && continue
			echo "--- $(basename "$f" .err), the last lines of its errors:" >&2
			tail -n 5 "$f" >&2
		done
	fi
	# the server may be restarting: wait for it, then drop what is ours
	for _ in $(seq 1 100); do
		"$bindir/pg_isready" -q && break
		sleep 0.1
	done
	"$bindir/psql" -X -q -At -d postgres -c \
		"SELECT gid FROM pg_prepared_xacts WHERE gid = '$gid'" 2>/dev/null | grep -q . &&
		"$bindir/psql" -X -q -d "$db" -c "ROLLBACK PREPARED '$gid'" >/dev/null 2>&1
	"$bindir/dropdb" --if-exists --force "$db" >/dev/null 2>&1 ||
		echo "crash: could not drop database $db" >&2
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "  ok    $*"; }
fail() {
	echo "  FAIL  $*" >&2
	failures=$((failures + 1))
}

# One value from the database; an error (and the suite's end) if none
one() {
	local v
	v=$("${psql[@]}" -At -c "$1")
	if [ -z "$v" ]; then
		echo "crash: no value from: $1" >&2
		exit 1
	fi
	echo "$v"
}

# wait_for SQL WHAT [SESSION]: until SQL (one boolean) is true, at most
# 30 s; an error at once if the background session SESSION has ended
declare -A session_pids
wait_for() {
	local i
	for i in $(seq 1 300); do
		if [ "$("${psql[@]}" -At -c "$1" 2>/dev/null)" = t ]; then
			return 0
		fi
		if [ -n "${3:-}" ] && ! kill -0 "${session_pids[$3]}" 2>/dev/null; then
			# a session that ends once it is done (PREPARE TRANSACTION is
			# its last statement) may have got there since the query above
			if [ "$("${psql[@]}" -At -c "$1" 2>/dev/null)" = t ]; then
				return 0
			fi
			echo "crash: session $3 ended while waiting for $2:" >&2
			tail -n 5 "$work/$3.err" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "crash: timed out waiting for $2" >&2
	exit 1
}

log_count() { grep -c "$1" "$CHASH_PGLOG" || true; }

# kill_backend SESSION WHAT: SIGKILL to the backend of a background session,
# then wait for the postmaster to notice, end every backend, and accept
# connections again; the session must have lost its connection
kill_backend() {
	local session=$1 what=$2
	local pid
	pid=$(pid_of "$session")
	local ready_before resets_before ready i
	if [ "$(one "SELECT count(*) FROM pg_stat_activity WHERE pid = $pid AND datname = current_database()")" != 1 ]; then
		echo "crash: $pid is not a backend of $db" >&2
		exit 1
	fi
	if [ "$(ps -o comm= -p "$pid")" != postgres ]; then
		echo "crash: process $pid is not a postgres process" >&2
		exit 1
	fi
	ready_before=$(log_count "database system is ready to accept connections")
	resets_before=$(log_count "all server processes terminated; reinitializing")
	kill -9 "$pid"
	for i in $(seq 1 600); do
		ready=$(log_count "database system is ready to accept connections")
		if [ "$ready" -gt "$ready_before" ] && "$bindir/pg_isready" -q &&
			"${psql[@]}" -At -c "SELECT 1" >/dev/null 2>&1; then
			break
		fi
		sleep 0.1
	done
	if [ "$ready" -le "$ready_before" ]; then
		echo "crash: the server did not come back after the kill of $pid" >&2
		exit 1
	fi
	# (18 names the process a "client backend", 14 to 17 a "server process")
	if grep -qE "(server process|client backend) \(PID $pid\) was terminated by signal 9" "$CHASH_PGLOG" &&
		[ "$(log_count "all server processes terminated; reinitializing")" -gt "$resets_before" ]; then
		ok "$what: backend $pid killed, the postmaster ended every backend and recovered"
	else
		fail "$what: the server log does not tell of the kill of $pid and a restart"
	fi
	wait "${session_pids[$session]}" 2>/dev/null || true
	if grep -q "server closed the connection unexpectedly" "$work/$session.err"; then
		ok "$what: the session lost its connection, its transaction unfinished"
	else
		fail "$what: session $session did not lose its connection:"
		cat "$work/$session.out" "$work/$session.err" >&2
	fi
}

# The background sessions end with the crash; collect them
reap() {
	local pid
	for pid in "${bg_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	bg_pids=()
}

# Everything chash shows, in a fixed order
cat >"$work/fingerprint.sql" <<'EOF'
\pset tuples_only off
\pset format unaligned
\pset null <null>
\pset footer off
SELECT * FROM chash.ring_config ORDER BY ring;
SELECT * FROM chash.node_config ORDER BY ring, node;
SELECT ring, nodes, active_nodes, points, version, problem FROM chash.rings ORDER BY ring;
SELECT r.ring, count(p.point) AS points,
	   md5(string_agg(concat_ws(' ', p.point, p.node, p.vnode), ',' ORDER BY p.ord)) AS points_md5
FROM chash.ring_config r
CROSS JOIN LATERAL chash_points(r.ring) WITH ORDINALITY p(point, node, vnode, ord)
GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring,
	   md5(string_agg(chash_lookup(r.ring, 'key:' || i), ',' ORDER BY i)) AS text_keys,
	   md5(string_agg(chash_lookup(r.ring, i), ',' ORDER BY i)) AS int_keys,
	   md5(string_agg(chash_lookup_n(r.ring, i::bigint, 2)::text, ',' ORDER BY i)) AS preference_lists,
	   md5(string_agg(chash_position(r.ring, 'key:' || i)::text, ',' ORDER BY i)) AS positions
FROM chash.ring_config r CROSS JOIN generate_series(1, 20000) i
GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring, chash_lookup(r.ring, 'key:' || i) AS node, count(*) AS keys
FROM chash.ring_config r CROSS JOIN generate_series(1, 20000) i
GROUP BY 1, 2 ORDER BY 1, 2;
-- a plan between the two rings of the plan, over the whole table
SELECT count(*) AS moved_keys, md5(string_agg(concat_ws(' ', key, from_node, to_node), ',' ORDER BY key))
FROM chash_moved_keys('r', 'r_next', 'big', 'id') AS m(key bigint, from_node text, to_node text);
SELECT count(*) AS moved_ranges, md5(string_agg(concat_ws(' ', lo, hi, from_node, to_node, fraction), ',' ORDER BY lo))
FROM chash_moved_ranges('r', 'r_next');
SELECT from_node, to_node, round(fraction::numeric, 12) AS fraction, keys
FROM chash_move_summary('r', 'r_next', 'big', 'id');
SELECT count(*) AS statements, md5(string_agg(s, E'\n'))
FROM chash_migration_sql('r', 'r_next', 'big', 'id') s;
SELECT count(*) AS big_rows, sum(id) FROM big;
EOF

fingerprint() {
	"${psql[@]}" -f "$work/fingerprint.sql" >"$work/$1"
	complete "$1"
}

# A fingerprint file as fingerprint() or inflight makes them: all there
complete() {
	local f
	for f in "$@"; do
		if [ ! -f "$work/$f" ] || [ "$(grep -c . "$work/$f")" -lt 50 ]; then
			echo "crash: fingerprint $f is missing or incomplete" >&2
			exit 1
		fi
	done
}

# same A B WHAT: two fingerprints must be identical
same() {
	complete "$1" "$2"
	if diff -u "$work/$1" "$work/$2" >"$work/$1-$2.diff"; then
		ok "$3 ($(wc -l <"$work/$2") lines identical)"
	else
		fail "$3: they differ:"
		head -n 40 "$work/$1-$2.diff" >&2
	fi
}

# differ A B WHAT: the killed transaction saw something else than the
# committed state (the routes and points of ring r, or the catalog)
differ() {
	complete "$1" "$2"
	if diff -q "$work/$1" "$work/$2" >/dev/null; then
		fail "$3: the transaction saw the committed state, the check would prove nothing"
	else
		ok "$3 ($(diff "$work/$1" "$work/$2" | grep -c '^[<>]') lines differ)"
	fi
}

# After recovery: a new change commits, another session sees it, its
# version is newer than every one before
change_after_recovery() {
	local what=$1 node=$2
	local max_before version seen
	max_before=$(one "SELECT max(version) FROM chash.ring_config")
	"${psql[@]}" -c "SET lock_timeout = '20s'" -c "SELECT chash_node_add('k', '$node', weight => 2)" >/dev/null
	version=$(one "SELECT version FROM chash.ring_config WHERE ring = 'k'")
	seen=$(one "SELECT count(*) FROM generate_series(1, 20000) i WHERE chash_lookup('k', 'key:' || i) = '$node'")
	if [ "$version" -gt "$max_before" ] && [ "$seen" -gt 0 ]; then
		ok "$what: a new change commits (version $version > $max_before), a new session routes $seen keys to it"
	else
		fail "$what: new change: version $version (before: $max_before), $seen keys routed to $node"
	fi
}

# xact_status XID8 WANT WHAT: the transaction's status after recovery.  A
# killed transaction is "aborted", or, if none of its WAL had been written
# when the server reset (WAL buffers are shared memory), unknown: past the
# recovered server's next transaction id.
xact_status() {
	local status
	status=$(one "SELECT CASE WHEN x >= pg_snapshot_xmax(pg_current_snapshot()) THEN 'unknown'
		ELSE pg_xact_status(x) END FROM (SELECT '$1'::xid8 AS x) s")
	if [ "$status" = "$2" ] || { [ "$2" = aborted ] && [ "$status" = unknown ]; }; then
		case $status in
		unknown) ok "$3: transaction $1 is unknown after recovery (none of its WAL was written)" ;;
		*) ok "$3: transaction $1 is $status" ;;
		esac
	else
		fail "$3: transaction $1 is $status, expected $2"
	fi
}

# start_session NAME SQL: a psql session in the background; its output in
# NAME.out, its backend's pid in NAME.pid (written first, by pg_backend_pid())
start_session() {
	local name=$1 sql=$2
	if [ -e "$work/$name.sql" ]; then
		echo "crash: session $name started twice" >&2
		exit 1
	fi
	{
		echo "\\o $work/$name.pid"
		echo "SELECT pg_backend_pid();"
		echo "\\o"
		echo "$sql"
	} >"$work/$name.sql"
	"$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" -f "$work/$name.sql" \
		>"$work/$name.out" 2>"$work/$name.err" &
	bg_pids+=($!)
	session_pids[$name]=$!
	local i
	for i in $(seq 1 300); do
		[ -s "$work/$name.pid" ] && break
		sleep 0.1
	done
	if ! [[ "$(cat "$work/$name.pid" 2>/dev/null)" =~ ^[0-9]+$ ]]; then
		echo "crash: session $name did not tell its backend's pid" >&2
		cat "$work/$name.err" >&2
		exit 1
	fi
}
pid_of() { cat "$work/$1.pid"; }

echo "== kill -9 of backends during ring changes and plans (database $db)"
"$bindir/createdb" "$db"
"${psql[@]}" >/dev/null <<'EOF'
CREATE EXTENSION chash;
SELECT chash_ring_create('r', vnodes => 100);
SELECT chash_node_add('r', 'n' || i, weight => 1 + (i % 3) * 0.5, target => 'shard' || i)
FROM generate_series(1, 8) i;
SELECT chash_ring_create('k', algorithm => 'ketama');
SELECT chash_node_add('k', '10.0.0.' || i || ':11211', weight => i) FROM generate_series(1, 5) i;
-- the plan's second ring: r and one node more
SELECT chash_ring_copy('r', 'r_next');
SELECT chash_node_add('r_next', 'n9', target => 'shard9');
CREATE TABLE big (id bigint PRIMARY KEY);
INSERT INTO big SELECT generate_series(1, 200000);
ANALYZE big;
-- blocks while another session holds the advisory lock k; counts its calls
CREATE SEQUENCE block_calls;
CREATE FUNCTION block_on(k bigint) RETURNS boolean
	LANGUAGE plpgsql VOLATILE
	AS $$
BEGIN
	PERFORM nextval('public.block_calls');  -- (plans pin search_path)
	PERFORM pg_advisory_lock_shared(k);
	PERFORM pg_advisory_unlock_shared(k);
	RETURN true;
END
$$;
-- the table, read in order, blocking at its 120,000th row
CREATE VIEW big_slow AS SELECT id FROM big WHERE id <> 120000 OR block_on(2);
EOF
big_rows=$(one "SELECT count(*) FROM big")
ok "rings r (8 nodes), k (ketama, 5 nodes), r_next (r and a node more); table big of $big_rows keys"
# big_slow reads big in the order of its ids and calls block_on at id
# 120,000 only: a scan of it blocks part-way
out=$(one "SELECT (SELECT count(*) FROM big_slow) || ' rows, ' || (SELECT nextval('block_calls') - 1) || ' call, '
	|| (SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY ctid) AS back FROM big) x WHERE back) || ' ids out of order'")
if [ "$out" = "200000 rows, 1 call, 0 ids out of order" ]; then
	ok "a scan of big_slow reads ids in order and blocks at id 120,000 only ($out)"
else
	fail "a scan of big_slow: $out"
fi

# hold_lock KEY NAME: a session that holds advisory lock KEY until the
# crash ends it
hold_lock() {
	start_session "$2" "SELECT pg_advisory_lock($1); SELECT pg_sleep(600);"
	wait_for "SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND pid = $(pid_of "$2")" \
		"the advisory lock $1" "$2"
}

# wait_blocked NAME LOCKTYPE: the session's backend waits for a lock
wait_blocked() {
	wait_for "SELECT count(*) = 1 FROM pg_locks WHERE pid = $(pid_of "$1") AND NOT granted AND locktype = '$2'" \
		"session $1 to wait for a lock ($2)" "$1"
}

# The in-transaction view of the victim, and its transaction id, written
# before it blocks (psql's \o closes the file when switched back)
inflight() {
	cat <<EOF
\\o $work/$1.inflight
\\i $work/fingerprint.sql
\\pset tuples_only on
\\o $work/$1.xid
SELECT pg_current_xact_id();
\\o
EOF
}

##### 1: killed part-way through the third change of a transaction
"${psql[@]}" -c "SELECT chash_node_set('r', 'n2', weight => 2.5)" >/dev/null
fingerprint committed1
hold_lock 1 holder1
start_session victim1 "BEGIN;
SELECT chash_node_add('r', 'x1', weight => 3, target => 'shard_x1');
UPDATE chash.ring_config SET vnodes = 77 WHERE ring = 'r';
$(inflight victim1)
UPDATE chash.node_config SET weight = weight * 3 WHERE ring = 'r' AND (node <> 'n5' OR block_on(1));
COMMIT;"
wait_blocked victim1 advisory
differ committed1 victim1.inflight "1: the transaction saw its own changes before the kill"
xid1=$(cat "$work/victim1.xid")
kill_backend victim1 "1: three changes, killed inside the third (blocked at node n5)"
reap
fingerprint recovered1
same committed1 recovered1 "1: after recovery everything is as committed before the kill"
xact_status "$xid1" aborted "1: the killed transaction"
change_after_recovery 1 k1

##### 2: killed in pg_sleep after a change, another change queued behind it
"${psql[@]}" -c "UPDATE chash.node_config SET state = 'down' WHERE ring = 'r' AND node = 'n3'" >/dev/null
fingerprint committed2
start_session victim2 "BEGIN;
SELECT chash_node_remove('r', 'n1');
SELECT chash_node_set('k', '10.0.0.2:11211', state => 'down');
$(inflight victim2)
SELECT pg_sleep(600);
COMMIT;"
wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = $(pid_of victim2) AND wait_event = 'PgSleep'" \
	"session victim2 to sleep" victim2
start_session queued2 "SELECT chash_node_add('r', 'q2', target => 'shard_q2');"
wait_blocked queued2 object
differ committed2 victim2.inflight "2: the transaction saw its own changes before the kill"
xid2=$(cat "$work/victim2.xid")
kill_backend victim2 "2: a change, killed in pg_sleep after it, another change queued"
reap
if grep -q "terminating connection because of crash of another server process\|server closed the connection unexpectedly" \
	"$work/queued2.err"; then
	ok "2: the queued change's session was ended by the restart"
else
	fail "2: the queued change's session was not ended by the restart:"
	cat "$work/queued2.out" "$work/queued2.err" >&2
fi
fingerprint recovered2
same committed2 recovered2 "2: after recovery everything is as committed before the kill (neither change)"
xact_status "$xid2" aborted "2: the killed transaction"
change_after_recovery 2 k2

##### 3: chash_moved_keys, killed part-way through the table, after a ring copy
fingerprint committed3
hold_lock 2 holder3
start_session victim3 "BEGIN;
SELECT chash_ring_copy('r', 'r_plan');
SELECT chash_node_add('r_plan', 'planned');
SELECT chash_node_set('r', 'n4', weight => 0.5);
$(inflight victim3)
SELECT count(*) FROM chash_moved_keys('r', 'r_plan', 'big_slow', 'id') AS m(key bigint, from_node text, to_node text);
COMMIT;"
wait_blocked victim3 advisory
differ committed3 victim3.inflight "3: the transaction saw its copy and change before the kill"
xid3=$(cat "$work/victim3.xid")
kill_backend victim3 "3: chash_moved_keys over 200,000 keys, killed at key 120,000"
reap
fingerprint recovered3
same committed3 recovered3 "3: after recovery everything is as committed before the kill (no copy, no change)"
xact_status "$xid3" aborted "3: the killed transaction"

##### 4: chash_migration_sql, killed while it reads the table for its key lists
fingerprint committed4
plan_before=$(one "SELECT count(*) || ' ' || md5(string_agg(s, E'\n')) FROM chash_migration_sql('r', 'r_next', 'big_slow', 'id', 'mysql') s")
hold_lock 2 holder4
start_session victim4 "$(inflight victim4)
SELECT count(*) FROM chash_migration_sql('r', 'r_next', 'big_slow', 'id', 'mysql');"
wait_blocked victim4 advisory
# (the same fingerprint from the victim's session: the ones that differ
# above differ by what they saw, not by how they were taken)
same committed4 victim4.inflight "4: the session saw the committed state before the kill"
kill_backend victim4 "4: chash_migration_sql (mysql key lists over 200,000 keys), killed at key 120,000"
reap
fingerprint recovered4
same committed4 recovered4 "4: after recovery everything is as before the kill"
# the plan, killed part-way, runs to its end after recovery and gives the
# statements it gave before
plan=$(one "SELECT count(*) || ' ' || md5(string_agg(s, E'\n')) FROM chash_migration_sql('r', 'r_next', 'big_slow', 'id', 'mysql') s")
if [ "$plan" = "$plan_before" ] && [ "${plan%% *}" -gt 10 ]; then
	ok "4: the plan runs to its end after recovery, the same as before the kill ($plan)"
else
	fail "4: the plan after recovery: '$plan', before the kill: '$plan_before'"
fi
change_after_recovery 4 k4

##### 5: a prepared transaction of ring changes survives the crash
fingerprint committed5
start_session victim5 "BEGIN;
SELECT chash_node_add('r', 'p5', weight => 2, target => 'shard_p5');
UPDATE chash.node_config SET weight = 0.75 WHERE ring = 'k' AND node = '10.0.0.5:11211';
$(inflight victim5)
PREPARE TRANSACTION '$gid';"
wait_for "SELECT count(*) = 1 FROM pg_prepared_xacts WHERE gid = '$gid'" "the transaction to be prepared" victim5
reap
xid5=$(cat "$work/victim5.xid")
differ committed5 victim5.inflight "5: the prepared transaction saw its own changes"
start_session sleeper5 "SELECT pg_sleep(600);"
wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = $(pid_of sleeper5) AND wait_event = 'PgSleep'" \
	"session sleeper5 to sleep" sleeper5
kill_backend sleeper5 "5: a sleeping backend killed while a ring change is prepared"
reap
fingerprint recovered5
if [ "$(one "SELECT count(*) FROM pg_prepared_xacts WHERE gid = '$gid'")" = 1 ]; then
	ok "5: the prepared transaction survived the crash"
else
	fail "5: the prepared transaction is gone after the crash"
fi
same committed5 recovered5 "5: after recovery, routes are the committed state's, not the prepared one's"
xact_status "$xid5" "in progress" "5: the prepared transaction"
"${psql[@]}" -c "COMMIT PREPARED '$gid'" >/dev/null
fingerprint committed5b
same victim5.inflight committed5b "5: after COMMIT PREPARED, everything is as the prepared transaction saw it"
xact_status "$xid5" committed "5: the prepared transaction"
change_after_recovery 5 k5

# After the restarts, rings are shared again, or not, as this run wants
# (chash.shared_rings on, the default, or off: crash_unshared)
sharing=$(expected_sharing "${psql[@]}")
seen=$(sharing_seen r "${psql[@]}")
if [ "$seen" = "$sharing $([ "$sharing" = on ] && echo mapped || echo built)" ]; then
	ok "sharing $sharing after the crashes: a second session ${seen#* } the ring a first one held"
else
	fail "sharing $sharing after the crashes, yet a second session saw: '$seen'"
fi

# The cluster is usable for what comes after
if [ "$("$bindir/psql" -X -At -d postgres -c "SELECT 1")" = 1 ] &&
	[ "$(one "SELECT count(*) FROM pg_prepared_xacts")" = 0 ]; then
	ok "the cluster accepts connections, no prepared transaction is left"
else
	fail "the cluster is not as it should be after the suite"
fi

if [ $failures -gt 0 ]; then
	echo "crash: $failures check(s) FAILED" >&2
	exit 1
fi
echo "crash: all checks passed"
