#!/usr/bin/env bash
# chash_export_plan's redis_cli script carried out on a real Redis Cluster.
#
#   test/bin/with-cluster.sh test/scripts/export_redis.sh
#
# One cluster of 3 masters (test/compat/redis_cluster.py; Debian's
# redis-server and redis-tools) holds 100,000 keys with values
# (test/compat/redis_keys.py).  Imported into a ring (chash_ring_import of
# its CLUSTER NODES), it is resharded twice by the script that
# chash_export_plan(from, to, 'redis_cli') writes:
#   add: a 4th server, started but not met, gets a quarter of each
#        master's slots (the plan meets it first);
#   drain: the 2nd master gives its slots to the others and is forgotten.
# Each plan is first cut short, then run whole from the start: add's
# killed (SIGKILL, with its redis-cli) after a random 1 to 6 s, inside a
# step; drain's run to a random step K only (its rows 0 to K).  After each plan: the
# ring imported from the cluster's CLUSTER NODES has the slot ranges of
# the plan's to_ring, every key is on the master of its slot with its
# value, and the masters' DBSIZEs add up to 100,000.  Also: the exported
# CLUSTER ADDSLOTSRANGE lines of the ring are its slot ranges, the
# plan, run again once done, changes nothing, and three new servers given
# the last ring's export (its ADDSLOTSRANGE lines, then CLUSTER MEET) make
# a cluster equal to that ring, which takes all 100,000 keys.  The drain's
# plan is run once more after the master that left is shut down (its steps
# skipped), and a cluster asking for a password (REDISCLI_AUTH, MIGRATE's
# AUTH) is resharded too.
#
# Prints one line a check ("ok" or "FAILED") and "N checks, M failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
py=/usr/bin/python3
db=chash_export_redis_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-export-redis.XXXXXX")
dir=$work/c
nkeys=100000
# RANDOM seeded for a reproducible run: CHASH_EXPORT_SEED
seed=${CHASH_EXPORT_SEED:-$$}
RANDOM=$seed

finished=
server_ticks=0
cleanup() {
	local rc=$? f t
	[ $rc -eq 0 ] || [ -n "$finished" ] ||
		echo "export_redis: FAILED (exit $rc); nothing after this point was checked" >&2
	for f in "$dir"/node-*/pid "$work"/n/node-*/pid; do
		[ -e "$f" ] || continue
		t=$(awk '{ print $14 + $15 }' "/proc/$(cat "$f")/stat" 2>/dev/null) || continue
		server_ticks=$((server_ticks + t))
	done
	[ -z "$finished" ] || echo "export_redis: the redis-server processes used $((server_ticks / $(getconf CLK_TCK))).$((server_ticks * 100 / $(getconf CLK_TCK) % 100)) s of CPU"
	[ ! -d "$dir" ] || $py "$compat/redis_cluster.py" stop "$dir" >/dev/null 2>&1 || true
	[ ! -d "$work/n" ] || $py "$compat/redis_cluster.py" stop "$work/n" >/dev/null 2>&1 || true
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for cmd in redis-server redis-cli; do
	command -v $cmd >/dev/null || {
		echo "export_redis: $cmd is missing (test/bin/setup.sh installs redis-server and redis-tools)" >&2
		exit 1
	}
done
echo "export_redis: $(redis-server --version | cut -d' ' -f1-3), seed $seed"

. "$root/test/scripts/lib/sql_checks.sh"
# check_keys WHAT [DIR]: every key with its value, on the master of its
# slot (of the cluster of DIR, the first unless given)
check_keys() {
	local out
	checks=$((checks + 1))
	if out=$($py "$compat/redis_keys.py" check "${2:-$dir}" $nkeys 2>&1); then
		echo "ok      $1: $out"
	else
		echo "FAILED  $1: $out"
		failed=$((failed + 1))
	fi
}
# import RING [DIR]: the cluster (of DIR) as it is now, into a new ring
import() {
	$py "$compat/redis_keys.py" settle "${2:-$dir}"
	$py "$compat/redis_cluster.py" nodes "${2:-$dir}" >"$work/nodes"
	sql -v nodes="$(cat "$work/nodes")" >/dev/null <<SQL
SELECT chash_ring_create('$1', profile => 'redis_cluster');
SELECT chash_ring_import('$1', 'redis_cluster_nodes', :'nodes');
SQL
}
# same_slots WHAT A B: rings A and B give every slot to the same node
same_slots() {
	check "$1: chash_slot_ranges('$2') = chash_slot_ranges('$3') ($(sql -c "SELECT count(*) FROM chash_slot_ranges('$3')") ranges)" "
		NOT EXISTS (SELECT * FROM chash_slot_ranges('$2') EXCEPT SELECT * FROM chash_slot_ranges('$3'))
		AND NOT EXISTS (SELECT * FROM chash_slot_ranges('$3') EXCEPT SELECT * FROM chash_slot_ranges('$2'))
		AND (SELECT sum(upper(slots) - lower(slots)) FROM chash_slot_ranges('$2')) = 16384"
}
# run_plan NAME FROM TO steps|kill: the plan's script, first cut short,
# then whole from the start: "steps" runs its rows 0 to a random step K
# (as if killed between steps K and K + 1); "kill" runs it all and
# SIGKILLs it, with the redis-cli it runs, after a random 1 to 6 s (inside
# a step, where a MIGRATE batch or a SETSLOT batch may be cut)
run_plan() {
	local name=$1 n k pid
	sql -c "SELECT command FROM chash_export_plan('$2', '$3', 'redis_cli') ORDER BY step" >"$work/$name.sh"
	n=$(sql -c "SELECT max(step) FROM chash_export_plan('$2', '$3', 'redis_cli')")
	if [ "$4" = steps ]; then
		k=$((1 + RANDOM % (n - 1)))
		sql -c "SELECT command FROM chash_export_plan('$2', '$3', 'redis_cli') WHERE step <= $k ORDER BY step" >"$work/$name.part.sh"
		echo "export_redis: $name: $n steps; run to step $k, then whole"
		bash "$work/$name.part.sh" 2>"$work/$name.part.log" || {
			echo "export_redis: $name: steps 0 to $k failed:" >&2
			tail -5 "$work/$name.part.log" >&2
			exit 1
		}
	else
		k=$((1 + RANDOM % 6))
		setsid bash "$work/$name.sh" 2>"$work/$name.part.log" &
		pid=$!
		sleep $k
		kill -KILL -- -$pid 2>/dev/null || true
		wait $pid 2>/dev/null || true
		echo "export_redis: $name: $n steps; killed after $k s in $(grep -E '^step [0-9]+: [a-z]' "$work/$name.part.log" | grep -v 'done in' | tail -1 | cut -d: -f1 || echo 'no step'), then run whole"
	fi
	bash "$work/$name.sh" 2>"$work/$name.log" || {
		echo "export_redis: $name: the plan failed:" >&2
		tail -5 "$work/$name.log" >&2
		exit 1
	}
	echo "export_redis: $name: the plan's slowest steps: $(awk '/^step [0-9]+: done in/ { print $5 " s (" w[$2] ")" } /^step [0-9]+: [a-z]/ && !/done in/ { w[$2] = $3 }' "$work/$name.log" | sort -rn | head -3 | paste -sd, | sed 's/,/, /g')"
}

t0=$EPOCHSECONDS
$py "$compat/redis_cluster.py" start "$dir" 3 >/dev/null
$py "$compat/redis_keys.py" fill "$dir" $nkeys
import c0
check_keys "start"
# the export of the ring: one ADDSLOTSRANGE line per master, its ranges
sql -c "SELECT chash_export('c0')" >"$work/export"
check "chash_export('c0', 'redis_cluster') gives each master its slot ranges" "
	(SELECT string_agg(x.node || ' ' || lower(x.slots) || '-' || (upper(x.slots) - 1), ',' ORDER BY x.node, lower(x.slots))
	 FROM chash_slot_ranges('c0') x)
	= (SELECT string_agg(m[1] || ' ' || r[1] || '-' || r[2], ',' ORDER BY m[1], r[1]::int)
	   FROM (SELECT l, lead(l) OVER (ORDER BY n) AS nxt FROM regexp_split_to_table(\$e\$$(cat "$work/export")\$e\$, E'\n') WITH ORDINALITY AS t(l, n)) s,
			regexp_match(s.l, '^# (\S+)$') m,
			regexp_matches(substring(s.nxt FROM '^CLUSTER ADDSLOTSRANGE (.*)$'), '(\d+) (\d+)', 'g') r)"

# --- add: a 4th master, not met, takes a quarter of each master's slots
p4=$($py "$compat/redis_keys.py" spawn "$dir")
sql >/dev/null <<SQL
SELECT chash_ring_copy('c0', 'c1');
SELECT chash_node_set('c1', node, slots => ARRAY[int4range(lower(slots) + (upper(slots) - lower(slots)) / 4, upper(slots))])
FROM chash_slot_ranges('c0');
SELECT chash_node_add('c1', '127.0.0.1:$p4',
					  slots => (SELECT array_agg(int4range(lower(slots), lower(slots) + (upper(slots) - lower(slots)) / 4) ORDER BY lower(slots))
								FROM chash_slot_ranges('c0')));
SQL
run_plan add c0 c1 kill
echo "$p4" >>"$dir/ports"
import c1_real
same_slots "add" c1_real c1
check_keys "add"

# --- drain: the 2nd master's slots to the others, then forgotten
m2=$(sql -c "SELECT node FROM chash_slot_ranges('c1_real') ORDER BY lower(slots) LIMIT 1 OFFSET 1")
sql >/dev/null <<SQL
SELECT chash_ring_copy('c1_real', 'c2');
SELECT chash_node_remove('c2', '$m2');
SELECT chash_node_set('c2', x.to_node, slots => (SELECT array_agg(s ORDER BY lower(s)) FROM (
		SELECT y.slots AS s FROM chash_slot_ranges('c1_real') y WHERE y.node = x.to_node
		UNION ALL
		SELECT int4range(g, g + 1) FROM generate_series(0, 16383) g
		WHERE g IN (SELECT generate_series(lower(z.slots), upper(z.slots) - 1) FROM chash_slot_ranges('c1_real') z WHERE z.node = '$m2')
		  AND (g - (SELECT min(lower(z.slots)) FROM chash_slot_ranges('c1_real') z WHERE z.node = '$m2')) * 3
			  / (SELECT sum(upper(z.slots) - lower(z.slots)) FROM chash_slot_ranges('c1_real') z WHERE z.node = '$m2') = x.k - 1) q))
FROM (SELECT node AS to_node, row_number() OVER (ORDER BY node) AS k FROM (SELECT DISTINCT node FROM chash_slot_ranges('c1_real') WHERE node <> '$m2') d) x;
SQL
# a replica of the master that leaves
rp=$($py "$compat/redis_keys.py" spawn "$dir")
redis-cli -p "$rp" CLUSTER MEET 127.0.0.1 "${m2##*:}" >/dev/null
for ((i = 0; i < 100; i++)); do
	[ "$(redis-cli -p "$rp" CLUSTER REPLICATE "$(redis-cli -p "${m2##*:}" CLUSTER MYID)" 2>/dev/null)" = OK ] && break
	sleep 0.1
done
echo "$rp" >>"$dir/ports"
$py "$compat/redis_keys.py" settle "$dir"
check "drain: 127.0.0.1:$rp replicates $m2" "'$(redis-cli -p "$rp" CLUSTER NODES | awk '$3 ~ /myself/ { print $4 }')' = '$(redis-cli -p "${m2##*:}" CLUSTER MYID)'"
echo "export_redis: drain: $m2 leaves"
run_plan drain c1_real c2 steps
# once more: nothing to do, nothing changes
bash "$work/drain.sh" 2>"$work/again.log" || {
	echo "export_redis: drain: the plan, run again, failed:" >&2
	tail -5 "$work/again.log" >&2
	exit 1
}
$py "$compat/redis_keys.py" drop "$dir" "${m2##*:}"
# and once more with the master that left shut down: its steps are skipped
bash "$work/drain.sh" 2>"$work/again2.log" || {
	echo "export_redis: drain: the plan, run again after $m2 was shut down, failed:" >&2
	tail -5 "$work/again2.log" >&2
	exit 1
}
check "drain: run again after $m2 was shut down, the plan skips its steps" "$(grep -c "$m2 has left the cluster" "$work/again2.log") > 0"
import c2_real
same_slots "drain" c2_real c2
check "drain: $m2 is no longer in CLUSTER NODES" "NOT EXISTS (SELECT FROM chash_slot_ranges('c2_real') WHERE node = '$m2')
	AND position('$m2@' IN \$n\$$(cat "$work/nodes")\$n\$) = 0"
check_keys "drain"
check "drain: the replica of $m2 replicates a master that stays, and has forgotten $m2" "
	'$(redis-cli -p "$rp" CLUSTER NODES | awk '$3 ~ /myself/ { print $4 }')' IN ($(for p in $(cat "$dir/ports"); do printf "'%s'," "$(redis-cli -p "$p" CLUSTER MYID)"; done) '-')
	AND position('$m2@' IN \$r\$$(redis-cli -p "$rp" CLUSTER NODES)\$r\$) = 0"

# --- a cluster that asks for a password (one with a space, a quote and a
# backslash): redis-cli takes it from REDISCLI_AUTH, MIGRATE from the
# plan's AUTH; a slot range moves from one master to another
pass='s3cr"t p\ss'
sql >/dev/null <<SQL
SELECT chash_ring_copy('c2_real', 'c3');
SELECT chash_node_set('c3', a.node, slots => (SELECT array_agg(y.slots ORDER BY lower(y.slots)) FROM chash_slot_ranges('c2_real') y
											  WHERE y.node = a.node AND lower(y.slots) <> lower(a.first))),
	   chash_node_set('c3', b.node, slots => (SELECT array_agg(y.slots ORDER BY lower(y.slots)) FROM (
													SELECT z.slots FROM chash_slot_ranges('c2_real') z WHERE z.node = b.node
													UNION ALL SELECT a.first) y))
FROM (SELECT node, (array_agg(slots ORDER BY lower(slots)))[1] AS first FROM chash_slot_ranges('c2_real')
	  GROUP BY node ORDER BY node LIMIT 1) a,
	 (SELECT DISTINCT node FROM chash_slot_ranges('c2_real') ORDER BY node DESC LIMIT 1) b;
SQL
while read -r p; do
	redis-cli -p "$p" CONFIG SET requirepass "$pass" >/dev/null
done <"$dir/ports"
sql -c "SELECT command FROM chash_export_plan('c2_real', 'c3', 'redis_cli') ORDER BY step" >"$work/auth.sh"
REDISCLI_AUTH=$pass bash "$work/auth.sh" 2>"$work/auth.log" || {
	echo "export_redis: auth: the plan failed:" >&2
	tail -5 "$work/auth.log" >&2
	exit 1
}
check "auth: the plan moved slots, MIGRATE with the password" "$(grep -c 'step [0-9]*: migrate' "$work/auth.log") > 0
	AND (SELECT count(*) FROM chash_moved_slots('c2_real', 'c3')) > 0"
while read -r p; do
	REDISCLI_AUTH=$pass redis-cli -p "$p" CONFIG SET requirepass "" >/dev/null
done <"$dir/ports"
import c3_real
same_slots "auth" c3_real c3
check_keys "auth"

# --- a new cluster from chash_export: three servers of no cluster take
# the drained ring's slot ranges by the export's CLUSTER ADDSLOTSRANGE
# lines, each sent to the master named above it, then meet; the cluster
# they make is the ring, and takes every key
mapfile -t newports < <($py "$compat/redis_keys.py" servers "$work/n" 3)
sql >/dev/null <<SQL
SELECT chash_ring_create('n0', profile => 'redis_cluster');
SELECT chash_node_add('n0', '127.0.0.1:' || p.port, slots => (SELECT array_agg(y.slots ORDER BY lower(y.slots))
															   FROM chash_slot_ranges('c2_real') y WHERE y.node = o.node))
FROM unnest(ARRAY[${newports[0]}, ${newports[1]}, ${newports[2]}]) WITH ORDINALITY AS p(port, k)
JOIN (SELECT node, row_number() OVER (ORDER BY node) AS k FROM (SELECT DISTINCT node FROM chash_slot_ranges('c2_real')) d) o
  USING (k);
SQL
sql -c "SELECT chash_export('n0')" >"$work/export_n0"
awk '/^# [0-9.]+:[0-9]+$/ { split($2, a, ":"); host = a[1]; port = a[2]; next }
	/^CLUSTER ADDSLOTSRANGE / { printf "redis-cli -h %s -p %s %s\n", host, port, $0 }' "$work/export_n0" >"$work/addslots.sh"
check "the export of n0 is one CLUSTER ADDSLOTSRANGE line per master" "$(grep -c '^redis-cli ' "$work/addslots.sh") = 3"
while read -r -a c; do
	out=$("${c[@]}")
	[ "$out" = OK ] || { echo "export_redis: ${c[*]}: $out" >&2; exit 1; }
done <"$work/addslots.sh"
for p in "${newports[@]:1}"; do
	redis-cli -p "${newports[0]}" CLUSTER MEET 127.0.0.1 "$p" >/dev/null
done
import n0_real "$work/n"
same_slots "new cluster" n0_real n0
$py "$compat/redis_keys.py" fill "$work/n" $nkeys
check_keys "new cluster" "$work/n"

echo "export_redis: done in $((EPOCHSECONDS - t0)) s"
echo "export_redis: $checks checks, $failed failed"
finished=1
[ $failed -eq 0 ]
