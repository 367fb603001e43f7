#!/usr/bin/env bash
# chash_rebalance against redis-cli --cluster rebalance, on real Redis
# clusters holding the same keys.
#
#   test/bin/with-cluster.sh test/scripts/rebalance_redis.sh
#
# Real redis-server processes (Debian's redis-server and redis-tools, 7.0;
# test/compat/redis_cluster.py starts them, test/compat/redis_slots.py fills
# them, measures them and moves chosen slots) hold a skewed data set: 800
# tenants whose key counts follow Zipf's law (s = 1), each tenant's keys in
# one hash tag ({tenantN}:i) and so in one slot, beside 12,000 untagged
# keys; values of 8 B to 4 KiB (each tenant has its own typical size).  The
# same keys and sizes are a table here (the value a string of that many
# bytes, stored uncompressed).
#
# Each scenario starts three identical clusters (retire: two).  One is
# rebalanced by redis-cli --cluster rebalance (--cluster-use-empty-masters,
# its default threshold of 2 %); on the others the cluster is imported
# into a ring (chash_ring_import), chash_rebalance plans by rows and by
# bytes (default target_peak 1.05), and the plan is carried out on the real
# cluster by the script chash_export_plan(ring, new ring, 'redis_cli')
# writes (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE per
# range of slots that chash_moved_slots lists).  Measured on the real
# clusters, before and after: each master's keys (every key found on the
# master of its slot, DBSIZE agreeing) and bytes (MEMORY USAGE),
# peak-to-mean of each (the fullest master over its share), and the keys
# whose master changed.  Checked:
#   - the clusters of a scenario start with the same slot map
#   - chash's plan by rows leaves a lower peak of keys than redis-cli's,
#     its plan by bytes a lower peak of bytes, and neither moves more keys
#   - after each chash plan: the cluster's slot map (CLUSTER SLOTS) is
#     chash_slot_ranges() of the new ring, every key is on the master
#     chash_lookup() names, the keys that moved are chash_moved_keys()'s,
#     and (by rows) each master's keys are chash_rebalance_report()'s
# Scenarios: out, scale-out (4 masters with the keys, a 5th added empty);
# uneven, 5 masters of 6277, 277, 3277, 3277 and 3276 slots (as after a
# reshard of 3,000 slots), the 3rd of weight 2 (redis-cli's
# --cluster-weight, chash's capacity); retire, 5 masters, the 5th emptied:
# redis-cli's --cluster-weight of 0 against chash's drain (by bytes planned
# only: its figures from the keys' measured bytes).  Then equal data
# per slot: one key of 64 bytes in each of the 16,384 slots of an uneven
# cluster; chash_rebalance with target_peak 1 must give each master its
# share of the slots to within one slot: equal shares (carried out on the
# real cluster and checked there too), then from there weights
# (capacities) 1 to 5, then master 5 drained (planned only: the clusters
# above check plans carried out).
#
# Prints each figure, one line a check ("ok" or "FAILED"), and
# "N checks, M failed".  Any step that fails, fails the suite.
#
# Environment:
#   CHASH_REBALANCE_KEEP  if set, keep the working directory and the database
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
py=/usr/bin/python3
db=chash_rebalance_redis_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-rebalance-redis.XXXXXX")
clusters=()

# the CPU time (utime + stime) of the redis-server processes, added up
# before each is stopped, in clock ticks
server_ticks=0
# stop_cluster NAME: stop one cluster as soon as it is measured (idle
# cluster nodes still spend CPU on their cluster bus)
stop_cluster() {
	local f t
	for f in "$work/$1"/node-*/pid; do
		[ -e "$f" ] || continue
		t=$(awk '{ print $14 + $15 }' "/proc/$(cat "$f")/stat" 2>/dev/null) || continue
		server_ticks=$((server_ticks + t))
	done
	$py "$compat/redis_cluster.py" stop "$work/$1" >/dev/null 2>&1 || true
	rm -f "$work/$1/ports"
}
stop_clusters() {
	local c
	for c in "${clusters[@]}"; do
		[ ! -e "$c/ports" ] || stop_cluster "$(basename "$c")"
	done
	clusters=()
}
finished=
cleanup() {
	local rc=$?
	[ $rc -eq 0 ] || [ -n "$finished" ] ||
		echo "rebalance_redis: FAILED (exit $rc); nothing after this point was checked" >&2
	stop_clusters
	if [ -n "${CHASH_REBALANCE_KEEP:-}" ]; then
		echo "rebalance_redis: kept $work and database $db" >&2
	else
		"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for cmd in redis-server redis-cli; do
	command -v $cmd >/dev/null || {
		echo "rebalance_redis: $cmd is missing (test/bin/setup.sh installs redis-server and redis-tools)" >&2
		exit 1
	}
done
echo "rebalance_redis: $(redis-server --version | cut -d' ' -f1-3), $(redis-cli --version)"

. "$root/test/scripts/lib/sql_checks.sh"

# --- the data ---------------------------------------------------------------
$py - >"$work/data.tsv" <<'PY'
import random
rng = random.Random(27)
tenants, tagged, untagged = 800, 30000, 12000
w = [1 / t for t in range(1, tenants + 1)]
tw = sum(w)
out = []
for t in range(1, tenants + 1):
    base = 16 * 2 ** (rng.random() * 7)      # 16 B to 2 KiB a tenant
    for i in range(max(1, round(tagged * w[t - 1] / tw))):
        out.append((f"{{tenant{t}}}:{i}", max(1, int(base * 2 ** (rng.random() * 2 - 1)))))
for i in range(untagged):
    out.append((f"obj:{i}", int(16 * 2 ** (rng.random() * 6))))
print("".join(f"{k}\t{s}\n" for k, s in out), end="")
PY
cut -f1 "$work/data.tsv" >"$work/keys.txt"
nkeys=$(wc -l <"$work/keys.txt")
(cd "$work" && psql_db) <<'SQL'
CREATE TABLE kv (key text PRIMARY KEY, value text);
-- bytes as stored, not compressed
ALTER TABLE kv ALTER COLUMN value SET STORAGE EXTERNAL;
CREATE TEMP TABLE d (key text, size integer);
\copy d FROM 'data.tsv'
INSERT INTO kv SELECT key, repeat('x', size) FROM d;
-- where the real clusters hold each key, before and after a rebalance
CREATE TABLE placed (cluster text, phase text, key text, master text, bytes bigint,
					 PRIMARY KEY (cluster, phase, key));
-- each cluster's masters with their weights and order, and its slot map
CREATE TABLE masters (cluster text, idx integer, master text, weight float8,
					  PRIMARY KEY (cluster, master));
CREATE TABLE slot_map (cluster text, phase text, slot integer, master text,
					   PRIMARY KEY (cluster, phase, slot));
-- the figures of each rebalance
CREATE TABLE result (scenario text, cluster text, plan text, keys_moved bigint,
					 slots_moved bigint, keys_peak float8, bytes_peak float8);
SQL
echo "rebalance_redis: $nkeys keys, $(sql -c "SELECT pg_size_pretty(sum(length(value))) FROM kv") of values;" \
	"largest tenant $(sql -c "SELECT round(100.0 * count(*) / $nkeys, 1) FROM kv WHERE key LIKE '{tenant1}:%'") % of the keys"

# --- helpers ----------------------------------------------------------------
# start NAME MASTERS [SLOT_COUNTS]: a cluster in $work/NAME, created by
# redis-cli, or with SLOT_COUNTS slots for its masters
start() {
	clusters+=("$work/$1")
	$py "$compat/redis_cluster.py" start "$work/$1" "$2" ${3:-} >/dev/null
}

# register NAME [INDEX=WEIGHT...]: the cluster's masters, in DIR/ports
# order, with their weights (1 unless given)
register() {
	local name=$1 i=0 port w
	shift
	while read -r port; do
		i=$((i + 1))
		w=1
		for a in "$@"; do [ "${a%%=*}" != $i ] || w=${a#*=}; done
		sql -c "INSERT INTO masters VALUES ('$name', $i, '127.0.0.1:$port', $w)"
	done <"$work/$name/ports"
}

# snapshot NAME PHASE [KEYS]: where the cluster holds every key (of
# $work/keys.txt, or of KEYS), and its slot map
snapshot() {
	local keys=${3:-$work/keys.txt}
	$py "$compat/redis_slots.py" measure "$work/$1" "$keys" >"$work/$1.$2.places"
	$py "$compat/redis_cluster.py" slot_owners "$work/$1" >"$work/$1.$2.slots"
	[ "$(wc -l <"$work/$1.$2.places")" = "$(wc -l <"$keys")" ] || {
		echo "rebalance_redis: $1 $2: the cluster answered for too few keys" >&2
		exit 1
	}
	# (\copy takes its file name literally)
	cp "$work/$1.$2.places" "$work/places.copy"
	cp "$work/$1.$2.slots" "$work/slots.copy"
	(cd "$work" && psql_db -v c="$1" -v p="$2") <<'SQL'
CREATE TEMP TABLE x (key text, master text, bytes bigint);
\copy x FROM 'places.copy'
INSERT INTO placed SELECT :'c', :'p', key, master, bytes FROM x;
CREATE TEMP TABLE y (slot integer, master text);
\copy y FROM 'slots.copy'
INSERT INTO slot_map SELECT :'c', :'p', slot, master FROM y;
-- (a sample of 3,000 rows, not 30,000: enough for these plans, and 40 ms
-- where the default took 0.5 s once the tables hold every snapshot)
SET default_statistics_target = 10;
ANALYZE placed, slot_map;
SQL
}

# import_ring NAME RING: a ring of the cluster's CLUSTER NODES, each
# master's weight its capacity (a weight of 0 is a drain, given to
# chash_rebalance)
import_ring() {
	$py "$compat/redis_cluster.py" nodes "$work/$1" >"$work/$1.nodes"
	psql_db -v c="$1" -v r="$2" -v nodes="$(cat "$work/$1.nodes")" <<'SQL'
SELECT chash_ring_create(:'r', profile => 'redis_cluster') \g /dev/null
SELECT chash_ring_import(:'r', 'redis_cluster_nodes', :'nodes') \g /dev/null
SELECT chash_node_set(:'r', master, capacity => weight) FROM masters
WHERE cluster = :'c' AND weight > 0 AND weight <> 1 \g /dev/null
SQL
}

# carry_out NAME RING INTO: move the slots chash_moved_slots(RING, INTO)
# lists on the real cluster
carry_out() {
	sql -c "SELECT g, m.from_node, m.to_node
			FROM chash_moved_slots('$2', '$3') m, generate_series(lower(m.slots), upper(m.slots) - 1) g
			ORDER BY g" >"$work/$1.moves"
	[ -s "$work/$1.moves" ] || {
		echo "rebalance_redis: $1: the plan moves no slot" >&2
		exit 1
	}
	# the plan's redis_cli script, as chash_export_plan writes it
	sql -c "SELECT command FROM chash_export_plan('$2', '$3', 'redis_cli') ORDER BY step" >"$work/$1.plan.sh"
	bash "$work/$1.plan.sh" 2>"$work/$1.plan.log" || {
		echo "rebalance_redis: $1: the plan's script failed:" >&2
		tail -5 "$work/$1.plan.log" >&2
		exit 1
	}
}

# same_start A B: two clusters with the same slot map, master by master
same_start() {
	check "$1 and $2 start with the same slot map" "
		(SELECT count(*) FROM slot_map a
		 JOIN masters ma ON ma.cluster = a.cluster AND ma.master = a.master
		 JOIN slot_map b ON b.cluster = '$2' AND b.phase = 'before' AND b.slot = a.slot
		 JOIN masters mb ON mb.cluster = b.cluster AND mb.master = b.master
		 WHERE a.cluster = '$1' AND a.phase = 'before' AND ma.idx = mb.idx) = 16384"
}

# figures SCENARIO NAME PLAN: the rebalance's figures, from the snapshots
# before and after
figures() {
	sql -c "
	WITH m AS (SELECT master, weight / sum(weight) OVER () AS share FROM masters WHERE cluster = '$2'),
		 per AS (SELECT m.master, m.share, count(p.key) AS keys, coalesce(sum(p.bytes), 0) AS bytes
				 FROM m LEFT JOIN placed p ON p.cluster = '$2' AND p.phase = 'after' AND p.master = m.master
				 GROUP BY m.master, m.share)
	INSERT INTO result
	SELECT '$1', '$2', '$3',
		   (SELECT count(*) FROM placed b JOIN placed a USING (cluster, key)
			WHERE b.cluster = '$2' AND b.phase = 'before' AND a.phase = 'after' AND a.master <> b.master),
		   (SELECT count(*) FROM slot_map b JOIN slot_map a USING (cluster, slot)
			WHERE b.cluster = '$2' AND b.phase = 'before' AND a.phase = 'after' AND a.master <> b.master),
		   (SELECT max(keys / nullif(share * (SELECT sum(keys) FROM per), 0)) FROM per),
		   (SELECT max(bytes / nullif(share * (SELECT sum(bytes) FROM per), 0)) FROM per)"
}

# agrees NAME RING INTO COST [FROM_PHASE TO_PHASE RELATION NKEYS]: the
# real cluster after chash's plan (its snapshot TO_PHASE, default after) is
# the ring INTO, slot for slot and key for key
agrees() {
	local name=$1 ring=$2 into=$3 cost=$4 from=${5:-before} to=${6:-after} rel=${7:-kv} n=${8:-$nkeys}
	check "$name: CLUSTER SLOTS is chash_slot_ranges('$into'), 16384 slots" "
		(SELECT count(*) FROM slot_map s
		 JOIN (SELECT g.slot, x.node FROM chash_slot_ranges('$into') x,
			   generate_series(lower(x.slots), upper(x.slots) - 1) g(slot)) c USING (slot)
		 WHERE s.cluster = '$name' AND s.phase = '$to' AND s.master = c.node) = 16384"
	check "$name: each of the $n keys is on the master chash_lookup('$into') names" "
		(SELECT count(*) FROM placed p WHERE p.cluster = '$name' AND p.phase = '$to'
		 AND p.master = chash_lookup('$into', p.key)) = $n"
	check "$name: the keys whose master changed are chash_moved_keys('$ring', '$into')'s" "
		0 = (SELECT count(*) FROM (SELECT b.key, b.master AS from_node, a.master AS to_node
								 FROM placed b JOIN placed a USING (cluster, key)
								 WHERE b.cluster = '$name' AND b.phase = '$from' AND a.phase = '$to'
								   AND a.master <> b.master) r
					FULL JOIN chash_moved_keys('$ring', '$into', '$rel', 'key', NULL::text) m USING (key)
					WHERE r.from_node IS DISTINCT FROM m.from_node OR r.to_node IS DISTINCT FROM m.to_node)"
	[ "$cost" = rows ] || return 0
	check "$name: each master's keys are chash_rebalance_report('$ring', '$into')'s after" "
		0 = (SELECT count(*) FROM chash_rebalance_report('$ring', '$into', '$rel', 'key') r
					FULL JOIN (SELECT master, count(*) AS keys FROM placed
							   WHERE cluster = '$name' AND phase = '$to' GROUP BY master) p
					ON p.master = r.node
					WHERE r.after IS DISTINCT FROM coalesce(p.keys, 0)::float8)"
}

# chash_run SCENARIO NAME COST [DRAIN_INDEX]: chash_rebalance by COST on
# cluster NAME (draining its master DRAIN_INDEX), carried out there
chash_run() {
	local scenario=$1 name=$2 cost=$3 drain=${4:-} plan
	import_ring "$name" "$name"
	plan="chash_rebalance, cost $cost"
	if [ -n "$drain" ]; then
		drain=$(sql -c "SELECT master FROM masters WHERE cluster = '$name' AND idx = $drain")
		plan="$plan, drain {$drain}"
	fi
	sql -c "SELECT count(*) FROM chash_rebalance('$name', '${name}_into', 'kv', 'key', cost => '$cost',
												drain => array_remove(ARRAY['$drain'], ''))" >/dev/null
	carry_out "$name" "$name" "${name}_into"
	snapshot "$name" after
	stop_cluster "$name"
	figures "$scenario" "$name" "$plan"
	agrees "$name" "$name" "${name}_into" "$cost"
}

# cli_run SCENARIO NAME [INDEX=WEIGHT...]: redis-cli --cluster rebalance of
# cluster NAME (default threshold, --cluster-use-empty-masters)
cli_run() {
	local scenario=$1 name=$2 plan
	shift 2
	plan="redis-cli --cluster rebalance --cluster-use-empty-masters"
	[ $# -eq 0 ] || plan="$plan --cluster-weight (by index) $*"
	$py "$compat/redis_cluster.py" rebalance "$work/$name" --threshold 2 "$@" >/dev/null
	snapshot "$name" after
	stop_cluster "$name"
	figures "$scenario" "$name" "$plan"
}

# [variants="cli rows ..."] prepare SCENARIO MASTERS [SLOT_COUNTS]: three
# clusters (or those of variants) started alike, side by side
# (SCENARIO_cli, _rows, _bytes), filled with the keys; with SLOT_COUNTS no
# keys until each has one more master, added empty
prepare() {
	local s=$1 v pids=() pid
	for v in ${variants:-cli rows bytes}; do
		clusters+=("$work/${s}_$v")
		(
			if [ "$2" = "4+1" ]; then
				$py "$compat/redis_cluster.py" start "$work/${s}_$v" 4 >/dev/null
				$py "$compat/redis_slots.py" fill "$work/${s}_$v" "$work/data.tsv"
				$py "$compat/redis_cluster.py" add_master "$work/${s}_$v" >/dev/null
			else
				$py "$compat/redis_cluster.py" start "$work/${s}_$v" "$2" ${3:-} >/dev/null
				$py "$compat/redis_slots.py" fill "$work/${s}_$v" "$work/data.tsv"
			fi
		) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || {
			echo "rebalance_redis: $s: a cluster failed to start or to take the keys" >&2
			exit 1
		}
	done
}

# compare SCENARIO: chash's plans against redis-cli's (by bytes only where
# variants has it)
compare() {
	local s=$1 c="$1_cli" r="$1_rows" b="$1_bytes"
	check "$s: chash by rows leaves a lower peak of keys than redis-cli ($(sql -c "SELECT round(x.keys_peak::numeric, 3) || ' < ' || round(y.keys_peak::numeric, 3) FROM result x, result y WHERE x.cluster = '$r' AND y.cluster = '$c'"))" "
		(SELECT x.keys_peak < y.keys_peak FROM result x, result y WHERE x.cluster = '$r' AND y.cluster = '$c')"
	check "$s: chash by rows moves no more keys than redis-cli ($(sql -c "SELECT x.keys_moved || ' <= ' || y.keys_moved FROM result x, result y WHERE x.cluster = '$r' AND y.cluster = '$c'"))" "
		(SELECT x.keys_moved <= y.keys_moved FROM result x, result y WHERE x.cluster = '$r' AND y.cluster = '$c')"
	[[ " ${variants:-bytes} " == *" bytes "* ]] || return 0
	check "$s: chash by bytes leaves a lower peak of bytes than redis-cli ($(sql -c "SELECT round(x.bytes_peak::numeric, 3) || ' < ' || round(y.bytes_peak::numeric, 3) FROM result x, result y WHERE x.cluster = '$b' AND y.cluster = '$c'"))" "
		(SELECT x.bytes_peak < y.bytes_peak FROM result x, result y WHERE x.cluster = '$b' AND y.cluster = '$c')"
	check "$s: chash by bytes moves no more keys than redis-cli ($(sql -c "SELECT x.keys_moved || ' <= ' || y.keys_moved FROM result x, result y WHERE x.cluster = '$b' AND y.cluster = '$c'"))" "
		(SELECT x.keys_moved <= y.keys_moved FROM result x, result y WHERE x.cluster = '$b' AND y.cluster = '$c')"
}

# [weights="INDEX=WEIGHT ..."] [variants="cli rows ..."] scenario SCENARIO
# MASTERS [SLOT_COUNTS [DRAIN_INDEX]]: the three clusters (or those of
# variants), their rebalances (redis-cli with --cluster-weight of each
# weight, and of 0 for the drained master; chash with each weight as the
# master's capacity), and the comparison
scenario() {
	local s=$1 v
	prepare "$1" "$2" "${3:-}"
	for v in ${variants:-cli rows bytes}; do
		register "${s}_$v" ${4:+$4=0} ${weights:-}
		snapshot "${s}_$v" before
		[ $v = cli ] || same_start "${s}_cli" "${s}_$v"
	done
	cli_run "$s" "${s}_cli" ${4:+$4=0} ${weights:-}
	chash_run "$s" "${s}_rows" rows ${4:-}
	[[ " ${variants:-bytes} " != *" bytes "* ]] || chash_run "$s" "${s}_bytes" bytes ${4:-}
	compare "$s"
	if [ -n "${4:-}" ]; then
		for v in ${variants:-cli rows bytes}; do
			check "${s}_$v: the drained master holds no key and no slot" "
				0 = (SELECT count(*) FROM masters m JOIN placed p ON p.cluster = m.cluster AND p.master = m.master
							WHERE m.cluster = '${s}_$v' AND m.idx = $4 AND p.phase = 'after')
				AND 0 = (SELECT count(*) FROM masters m JOIN slot_map p ON p.cluster = m.cluster AND p.master = m.master
								WHERE m.cluster = '${s}_$v' AND m.idx = $4 AND p.phase = 'after')"
		done
	fi
	stop_clusters
}

t0=$EPOCHSECONDS
# scale-out: 4 masters with the keys, a 5th added empty
scenario out 4+1
# 5 masters, made uneven in slots (as by a reshard of 3,000 slots); the
# 3rd of weight 2
weights="3=2" scenario uneven 5 6277,277,3277,3277,3276
# a master retired: redis-cli --cluster-weight INDEX=0, chash's drain by
# rows carried out; its drain by bytes planned only (it moves the same
# 3,277 slots, to other masters: carrying them out took a tenth of the
# suite's CPU time, and the other plans check carrying out), its figures
# from the keys' measured bytes and chash_lookup() of its ring
variants="cli rows" scenario retire 5 "" 5
m5=$(sql -c "SELECT master FROM masters WHERE cluster = 'retire_rows' AND idx = 5")
sql -c "SELECT count(*) FROM chash_rebalance('retire_rows', 'retire_bytes_plan', 'kv', 'key', cost => 'bytes',
											drain => ARRAY['$m5'])" >/dev/null
check "retire_bytes_plan: the drained master has no slot left" "
	NOT EXISTS (SELECT FROM chash_slot_ranges('retire_bytes_plan') WHERE node = '$m5')
	AND (SELECT sum(upper(slots) - lower(slots)) FROM chash_slot_ranges('retire_bytes_plan')) = 16384"
check "retire: chash by bytes moves exactly the drained master's keys, no more than redis-cli ($(sql -c "
	SELECT count(*) || ' <= ' || (SELECT keys_moved FROM result WHERE cluster = 'retire_cli')
	FROM chash_moved_keys('retire_rows', 'retire_bytes_plan', 'kv', 'key', NULL::text)"))" "
	(SELECT count(*) FILTER (WHERE from_node <> '$m5') = 0
			AND count(*) = (SELECT count(*) FROM placed WHERE cluster = 'retire_rows' AND phase = 'before'
							AND master = '$m5')
			AND count(*) <= (SELECT keys_moved FROM result WHERE cluster = 'retire_cli')
	 FROM chash_moved_keys('retire_rows', 'retire_bytes_plan', 'kv', 'key', NULL::text))"
bytes_peak="
	WITH m AS (SELECT master, weight / sum(weight) OVER () AS share FROM masters WHERE cluster = 'retire_rows'),
		 per AS (SELECT m.master, m.share, coalesce(sum(p.bytes), 0) AS bytes
				 FROM m LEFT JOIN placed p ON p.cluster = 'retire_rows' AND p.phase = 'before'
				 AND chash_lookup('retire_bytes_plan', p.key) = m.master
				 GROUP BY m.master, m.share)
	SELECT max(bytes / nullif(share * (SELECT sum(bytes) FROM per), 0)) FROM per"
check "retire: chash by bytes leaves a lower peak of bytes than redis-cli ($(sql -c "
	SELECT round(($bytes_peak)::numeric, 3) || ' < ' || round(bytes_peak::numeric, 3) FROM result
	WHERE cluster = 'retire_cli'"))" "
	($bytes_peak) < (SELECT bytes_peak FROM result WHERE cluster = 'retire_cli')"

# --- equal data per slot: one key of 64 bytes in each slot ------------------------
# (the first of k1, k2, ... to fall in each slot, by chash_position of a
# redis_cluster ring, which compat_redis checks against CLUSTER KEYSLOT)
psql_db <<'SQL'
SELECT chash_ring_create('keyslot', profile => 'redis_cluster') \g /dev/null
SELECT chash_node_add('keyslot', 'any') \g /dev/null
CREATE TABLE eqkv (key text PRIMARY KEY, value text);
INSERT INTO eqkv
SELECT DISTINCT ON (chash_position('keyslot', 'k' || i) % 16384) 'k' || i, repeat('x', 64)
FROM generate_series(1, 400000) i
ORDER BY chash_position('keyslot', 'k' || i) % 16384, i;
SQL
[ "$(sql -c "SELECT count(DISTINCT chash_position('keyslot', key) % 16384) FROM eqkv")" = 16384 ] || {
	echo "rebalance_redis: equal data: not every slot has a key" >&2
	exit 1
}
sql -c "SELECT key, 64 FROM eqkv ORDER BY key" >"$work/eq.tsv"
cut -f1 "$work/eq.tsv" >"$work/eq.keys"
start eq 5 6277,277,3277,3277,3276
$py "$compat/redis_slots.py" fill "$work/eq" "$work/eq.tsv"
register eq
snapshot eq before "$work/eq.keys"
import_ring eq eq0

# within_one NAME PHASE RING W1,W2,W3,W4,W5: each master's slots in the
# ring, and in the real cluster's snapshot PHASE unless PHASE is "-",
# within one slot of its share: 16384 times its weight over the weights'
# sum
within_one() {
	local ideal="16384.0 * (ARRAY[$4])[m.idx] / (SELECT sum(w) FROM unnest(ARRAY[$4]) w)"
	local where="ring '$3'"
	[ "$2" = - ] || where="$where and the cluster"
	check "$1: each master's slots, in $where, within one of its share (weights $4): $(sql -c "
		SELECT string_agg(coalesce(n, 0) || ' (' || round($ideal, 1) || ')', ' ' ORDER BY idx) FROM masters m
		LEFT JOIN (SELECT node AS master, sum(upper(slots) - lower(slots)) AS n
				   FROM chash_slot_ranges('$3') GROUP BY node) r
		USING (master) WHERE m.cluster = '$1'")" "
		WITH ring AS (SELECT node AS master, sum(upper(slots) - lower(slots)) AS n
					  FROM chash_slot_ranges('$3') GROUP BY node),
			 real AS (SELECT master, count(*) AS n FROM slot_map WHERE cluster = '$1' AND phase = '$2' GROUP BY master)
		SELECT bool_and(abs(coalesce(ring.n, 0) - $ideal) <= 1
						AND ('$2' = '-' OR abs(coalesce(real.n, 0) - $ideal) <= 1))
			   AND count(*) = 5
		FROM masters m LEFT JOIN ring USING (master) LEFT JOIN real USING (master)
		WHERE m.cluster = '$1'"
}

# equal weights
sql -c "SELECT count(*) FROM chash_rebalance('eq0', 'eq1', 'eqkv', 'key', target_peak => 1)" >/dev/null
carry_out eq eq0 eq1
snapshot eq after1 "$work/eq.keys"
agrees eq eq0 eq1 rows before after1 eqkv 16384
within_one eq after1 eq1 1,1,1,1,1
# weights 1 to 5: the masters' capacities
sql -c "SELECT chash_ring_copy('eq1', 'eq1w');
		SELECT chash_node_set('eq1w', master, capacity => idx) FROM masters WHERE cluster = 'eq'" >/dev/null
sql -c "SELECT count(*) FROM chash_rebalance('eq1w', 'eq2', 'eqkv', 'key', target_peak => 1)" >/dev/null
within_one eq - eq2 1,2,3,4,5
# master 5 drained (weight 0), the others keeping 1 to 4
m5=$(sql -c "SELECT master FROM masters WHERE cluster = 'eq' AND idx = 5")
sql -c "SELECT count(*) FROM chash_rebalance('eq2', 'eq3', 'eqkv', 'key', target_peak => 1, drain => ARRAY['$m5'])" >/dev/null
within_one eq - eq3 1,2,3,4,0
stop_clusters

echo
printf '%-8s %-13s %10s %11s %9s %10s  %s\n' scenario cluster "keys moved" "slots moved" "keys peak" "bytes peak" plan
sql -c "SELECT scenario, cluster, keys_moved, slots_moved, round(keys_peak::numeric, 3), round(bytes_peak::numeric, 3), plan
		FROM result ORDER BY scenario, cluster" |
	while IFS=$'\t' read -r a b c d e f g; do
		printf '%-8s %-13s %10s %11s %9s %10s  %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"
	done
echo "rebalance_redis: done in $((EPOCHSECONDS - t0)) s; the redis-server processes used $((server_ticks / $(getconf CLK_TCK))) s of CPU"
echo "rebalance_redis: $checks checks, $failed failed"
finished=1
[ $failed -eq 0 ]
