#!/usr/bin/env bash
# chash_export_plan's haproxy_runtime commands carried out on a real
# HAProxy, without a reload.
#
#   test/bin/with-cluster.sh test/scripts/export_haproxy.sh
#
# A real HAProxy (Debian's /usr/sbin/haproxy, run in the foreground by this
# script and stopped on exit, whatever the outcome) loads the backend of
# chash_export(r0, 'haproxy', '{"balance": "hdr(X-Key)"}'), its servers at
# echo frontends of the same process (127.0.0.1 ports, one at a unix
# socket) that answer with their own address; its stats socket is in a
# temporary directory (test/compat/haproxy_runtime.py writes the
# configuration and drives the Runtime API).  Then a chain of rings, each
# reached from the one before by the commands of chash_export_plan(from,
# to, 'haproxy_runtime') sent over the stats socket, twice (the second
# time every answer must be a success or a harmless one that the plan's
# step 0 documents):
#   r1 weights changed (one to 256, one down from 5 to 1);
#   r2 a server disabled;
#   r3 it is enabled again, another disabled;
#   r4 a server added;
#   r5 a server removed;
#   r6 several at once: a weight, a server enabled, one disabled, one at a
#      new address, one with a new id, one added at a unix socket, one
#      added down, one removed.
# Then a second HAProxy loads r0's backend and takes the plan r0 -> r6 in
# one go.  After each plan: HAProxy's process id is the one it started with
# (no reload), "show servers state" lists to_ring's servers with their ids,
# weights and states, and 100,000 keys routed through it go, every one,
# to the server chash_lookup(to_ring, key) names, at that node's address.
#
# Prints one line a check ("ok" or "FAILED") and "N checks, M failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
py=/usr/bin/python3
haproxy=/usr/sbin/haproxy
db=chash_export_haproxy_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-export-haproxy.XXXXXX")
nkeys=100000
hpid=

finished=
stop_haproxy() {
	[ -n "$hpid" ] || return 0
	kill "$hpid" 2>/dev/null || true
	wait "$hpid" 2>/dev/null || true
	hpid=
}
cleanup() {
	local rc=$?
	[ $rc -eq 0 ] || [ -n "$finished" ] ||
		echo "export_haproxy: FAILED (exit $rc); nothing after this point was checked" >&2
	stop_haproxy
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x $haproxy ] || {
	echo "export_haproxy: $haproxy is missing (test/bin/setup.sh installs Debian's haproxy)" >&2
	exit 1
}
echo "export_haproxy: $($haproxy -v | head -1)"

. "$root/test/scripts/lib/sql_checks.sh"

# the keys: keys.py's, but those with a comma (HAProxy hashes a header's
# first comma-separated element only)
$py "$compat/keys.py" $((nkeys + nkeys / 5)) 28 >"$work/keys.all"
grep -v , "$work/keys.all" | awk -v n=$nkeys 'NR <= n' >"$work/keys"
[ "$(wc -l <"$work/keys")" -eq $nkeys ] || { echo "export_haproxy: fewer than $nkeys keys" >&2; exit 1; }
sql -c "CREATE TABLE keys (k text PRIMARY KEY)"
psql_db -c "\\copy keys (k) FROM '$work/keys' WITH (FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01')"
sql -c "ANALYZE keys"
sql -c "CREATE TABLE routes (k text PRIMARY KEY, srv text NOT NULL, address text NOT NULL)"
sql -c "CREATE TABLE wrong (k text, srv text, address text, expected text)"

# the servers' addresses: 127.0.0.1 ports for s1 to s7 and s9, a second
# one for s4 (it moves), and a unix socket for s8
mapfile -t port < <($py "$compat/haproxy_runtime.py" ports 10)
addr() { echo "127.0.0.1:${port[$1]}"; }
usock="unix@$work/s8.sock"
{ for i in $(seq 0 9); do addr "$i"; done; echo "$usock"; } >"$work/addresses"

sql >/dev/null <<SQL
SELECT chash_ring_create('r0', profile => 'haproxy', key_hash => 'haproxy_djb2_avalanche');
SELECT chash_node_add('r0', 's' || i, w, address => '127.0.0.1:' || p)
FROM unnest(ARRAY[1, 2, 3, 4, 5, 6], ARRAY[1, 2, 1, 3, 5, 1], ARRAY[${port[1]}, ${port[2]}, ${port[3]}, ${port[4]}, ${port[5]}, ${port[6]}]) AS x(i, w, p);
-- r1: weights
SELECT chash_ring_copy('r0', 'r1');
SELECT chash_node_set('r1', 's1', weight => 256);
SELECT chash_node_set('r1', 's5', weight => 1);
SELECT chash_node_set('r1', 's3', weight => 7);
-- r2: s2 disabled
SELECT chash_ring_copy('r1', 'r2');
SELECT chash_node_set('r2', 's2', state => 'down');
-- r3: s2 enabled again, s6 disabled
SELECT chash_ring_copy('r2', 'r3');
SELECT chash_node_set('r3', 's2', state => 'active');
SELECT chash_node_set('r3', 's6', state => 'down');
-- r4: s7 added
SELECT chash_ring_copy('r3', 'r4');
SELECT chash_node_add('r4', 's7', 4, address => '$(addr 7)');
-- r5: s3 removed
SELECT chash_ring_copy('r4', 'r5');
SELECT chash_node_remove('r5', 's3');
-- r6: several at once
SELECT chash_ring_copy('r5', 'r6');
SELECT chash_node_set('r6', 's1', weight => 2);
SELECT chash_node_set('r6', 's6', state => 'active');
SELECT chash_node_set('r6', 's5', state => 'down');
SELECT chash_node_set('r6', 's4', address => '$(addr 0)');
SELECT chash_node_remove('r6', 's7');
SELECT chash_node_add('r6', 's8', 3, address => '$usock');
SELECT chash_node_add('r6', 's9', 2, address => '$(addr 9)');
SELECT chash_node_set('r6', 's9', state => 'down');
UPDATE chash.node_config SET ordinal = 1000 WHERE ring = 'r6' AND node = 's2';
SQL

# start_haproxy NAME RING: a HAProxy (in the foreground, our child) with
# the backend of chash_export(RING), named b
start_haproxy() {
	local d=$work/$1 i
	mkdir -p "$d"
	sql -c "SELECT chash_export('$2', 'haproxy', '{\"balance\": \"hdr(X-Key)\", \"name\": \"b\"}')" >"$d/backend"
	$py "$compat/haproxy_runtime.py" config "$d" "$d/backend" "$work/addresses"
	$haproxy -c -q -f "$d/haproxy.cfg"
	$haproxy -db -f "$d/haproxy.cfg" >"$d/haproxy.log" 2>&1 &
	hpid=$!
	hdir=$d
	for ((i = 0; i < 300; i++)); do
		[ -S "$d/stats.sock" ] && [ -S "$d/front.sock" ] && $py "$compat/haproxy_runtime.py" pid "$d" >/dev/null 2>&1 && return 0
		kill -0 $hpid 2>/dev/null || { echo "export_haproxy: haproxy exited:" >&2; cat "$d/haproxy.log" >&2; exit 1; }
		sleep 0.1
	done
	echo "export_haproxy: haproxy did not start in 30 s" >&2
	exit 1
}

# verify WHAT RING: HAProxy, still the process it was started as, has the
# servers of RING and routes every key as chash_lookup(RING, key)
verify() {
	local what=$1 ring=$2 p t
	p=$($py "$compat/haproxy_runtime.py" pid "$hdir")
	checks=$((checks + 1))
	if [ "$p" = "$hpid" ] && kill -0 "$hpid" 2>/dev/null; then
		echo "ok      $what: haproxy is still process $hpid (show info: Pid $p), not reloaded"
	else
		echo "FAILED  $what: haproxy's Pid is $p, started as $hpid"
		failed=$((failed + 1))
	fi
	$py "$compat/haproxy_runtime.py" state "$hdir" b >"$work/state"
	check "$what: show servers state lists the $(sql -c "SELECT count(*) FROM chash.node_config WHERE ring = '$ring'") servers of $ring with their ids, weights and states" "
		(SELECT string_agg(node || ' ' || ordinal || ' ' || weight::integer || ' ' || (state = 'down')::integer, ',' ORDER BY node)
		 FROM chash.node_config WHERE ring = '$ring')
		= (SELECT string_agg(replace(l, E'\t', ' '), ',' ORDER BY l) FROM regexp_split_to_table(trim(E'\n' FROM \$s\$$(cat "$work/state")\$s\$), E'\n') l)"
	t=$EPOCHREALTIME
	$py "$compat/haproxy_runtime.py" route "$hdir" "$work/keys" >"$work/routes"
	echo "export_haproxy: $what: $nkeys keys routed in $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
	sql -c "TRUNCATE routes"
	psql_db -c "\\copy routes FROM '$work/routes' WITH (FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01')"
	sql -c "ANALYZE routes"
	# (each key once, joined by hash: the tables are analyzed)
	sql -c "TRUNCATE wrong; INSERT INTO wrong
		SELECT k.k, r.srv, r.address, x.node AS expected
		FROM keys k LEFT JOIN routes r USING (k)
		CROSS JOIN LATERAL (SELECT chash_lookup('$ring', k.k) AS node) x
		LEFT JOIN chash.node_config c ON c.ring = '$ring' AND c.node = x.node
		WHERE r.srv IS DISTINCT FROM x.node OR r.address IS DISTINCT FROM coalesce(c.address, c.node)"
	check "$what: $(sql -c "SELECT count(*) FROM routes") keys routed, every one to chash_lookup('$ring', key) at its address ($(sql -c "SELECT count(*) FROM wrong") of them not)" "
		(SELECT count(*) FROM routes) = $nkeys AND (SELECT count(*) FROM keys) = $nkeys
		AND NOT EXISTS (SELECT FROM wrong)"
}

# plan FROM TO: the plan's commands sent to HAProxy, twice, then verified
plan() {
	local steps
	sql -c "SELECT command FROM chash_export_plan('$1', '$2', 'haproxy_runtime', '{\"backend\": \"b\"}') WHERE step > 0 ORDER BY step" >"$work/plan"
	steps=$(wc -l <"$work/plan")
	echo "export_haproxy: $1 -> $2: $steps commands: $(paste -sd';' "$work/plan" | sed 's/;/; /g')"
	for mode in first again; do
		checks=$((checks + 1))
		if $py "$compat/haproxy_runtime.py" apply "$hdir" "$work/plan" $mode >"$work/answers" 2>"$work/apply.err"; then
			echo "ok      $1 -> $2: the $steps commands sent ($mode): $(cut -f1 "$work/answers" | sort | uniq -c | awk '{ $1 = $1 " x"; print }' | paste -sd, | sed 's/,/, /g'); $(grep -o '[0-9]* del server retried for connections' "$work/apply.err")"
		else
			echo "FAILED  $1 -> $2: the commands sent ($mode): $(cat "$work/apply.err")"
			failed=$((failed + 1))
		fi
	done
	verify "$1 -> $2" "$2"
}

t0=$EPOCHSECONDS
start_haproxy h1 r0
verify "r0 loaded" r0
plan r0 r1
plan r1 r2
plan r2 r3
plan r3 r4
plan r4 r5
plan r5 r6
stop_haproxy
start_haproxy h2 r0
verify "r0 loaded again" r0
plan r0 r6
stop_haproxy

echo "export_haproxy: done in $((EPOCHSECONDS - t0)) s"
echo "export_haproxy: $checks checks, $failed failed"
finished=1
[ $failed -eq 0 ]
