#!/usr/bin/env bash
# Compatibility proof for Redis Cluster: a ring created with profile
# redis_cluster, filled by chash_ring_import() from a real cluster's CLUSTER
# NODES, routes every key to the master the real cluster says serves it.
#
#   test/bin/with-cluster.sh test/scripts/compat_redis.sh
#
# Real redis-server processes (Debian's redis-server and redis-tools, 7.0;
# test/compat/redis_cluster.py drives them) make clusters of 3, 5 and 7
# masters with redis-cli --cluster create.  Keys: test/compat/keys.py's
# (ASCII, Latin-1, CJK, outside the BMP), the same keys inside hash tags
# and beside them, tags that are empty or not closed, the empty key, and
# keys that are their slot's first key.  For each cluster state the suite
# compares, on every key and every slot:
#   keyslot  CLUSTER KEYSLOT of each key against chash_position() % 16384
#   owner    the master that serves each key (a GET sent to one master,
#            answered or -MOVED) against chash_lookup() on the imported ring
#   slots    the master of each of the 16384 slots (CLUSTER SLOTS) against
#            chash_slot_ranges() of the imported ring
#   shards   rings imported from redis-cli --json CLUSTER SHARDS (its RESP3
#            and RESP2 forms) against the same slot owners, and the same
#            masters and states as the ring from CLUSTER NODES
#   split    (freshly created clusters) the same against a ring given the
#            masters in redis-cli's order and no slots: chash's even split
#   moved    (after a change) the slots whose master changed, against
#            chash_moved_slots() between the rings imported before and after
# The changes are real: redis-cli --cluster reshard of 1,000 slots, and
# add-node of an empty master followed by redis-cli --cluster rebalance,
# with weights.  Any difference, or any step that fails, fails the suite.
#
# Environment:
#   CHASH_COMPAT_KEYS  generated keys (default 30000; with the tagged forms
#                      about 4.5 times as many are checked)
#   CHASH_COMPAT_KEEP  if set, keep the working directory
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
export PGCLIENTENCODING=UTF8
py=/usr/bin/python3
nkeys=${CHASH_COMPAT_KEYS:-30000}
db=chash_compat_redis_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-compat-redis.XXXXXX")
clusters=()

cleanup() {
	local rc=$? c
	for c in "${clusters[@]}"; do
		$py "$compat/redis_cluster.py" stop "$c" >/dev/null 2>&1 || true
	done
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	if [ -n "${CHASH_COMPAT_KEEP:-}" ]; then
		echo "compat_redis: kept $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for cmd in redis-server redis-cli; do
	command -v $cmd >/dev/null || {
		echo "compat_redis: $cmd is missing (test/bin/setup.sh installs redis-server and redis-tools)" >&2
		exit 1
	}
done
echo "compat_redis: $(redis-server --version | cut -d' ' -f1-3)"

# --- keys --------------------------------------------------------------------
$py "$compat/keys.py" "$nkeys" 20261202 >"$work/plain.txt"
$py - "$work/plain.txt" >"$work/keys.txt" <<'PY'
import sys
keys = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
out = list(keys)
for i, k in enumerate(keys):
    # the same key as a tag, so that its slot is the plain key's, and
    # beside a tag; a tag that is empty, or opened and not closed
    out.append(f"{{{k}}}:{i}")
    out.append(f"u{i % 97}{{{k}}}")
    if i % 2 == 0:
        out.append(f"{k}{{}}{{x{i}}}")
    else:
        out.append(f"{{{k}")
    if i % 4 == 0:
        out.append(f"}}{k}{{")
# a few the specification names, and the empty key
out += ["", "{}", "{", "}", "}{", "{{}}", "foo{}{bar}", "foo{{bar}}zap",
        "foo{bar}{zap}", "{user1000}.following", "{user1000}.followers",
        "123456789", "{\U0001F418}", "\u043a\u043b\u044e\u0447{\u00f1}"]
seen = set()
sys.stdout.buffer.write("".join(k + "\n" for k in out
                                if not (k in seen or seen.add(k))).encode("utf-8"))
PY
nk=$(wc -l <"$work/keys.txt")

"$bindir/createdb" -T template0 -E UTF8 "$db"
psql_db() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
psql_db -c 'CREATE EXTENSION chash'
# keys have no tabs; backslashes are COPY's escapes
sed 's/\\/\\\\/g' "$work/keys.txt" >"$work/keys.copy"

# --- one cluster state against chash ------------------------------------------
fmt='%-40s %7s %8s %8s %8s %8s %8s %8s %8s\n'
printf "$fmt" "state" masters keys keyslot owner slots shards split moved
failed=0

# check DIR RING LABEL [SPLIT_RING] [BEFORE_RING]: import the cluster's state
# into a new ring RING and compare; prints one line of the table
check() {
	local dir=$1 ring=$2 label=$3 split=${4:-} before=${5:-} out masters
	$py "$compat/redis_cluster.py" nodes "$dir" >"$dir/nodes.txt"
	$py "$compat/redis_cluster.py" shards "$dir" >"$dir/shards.json"
	$py "$compat/redis_cluster.py" shards_resp2 "$dir" >"$dir/shards2.json"
	$py "$compat/redis_cluster.py" keyslots "$dir" "$work/keys.txt" >"$dir/keyslots.txt"
	$py "$compat/redis_cluster.py" owners "$dir" "$work/keys.txt" >"$dir/owners.txt"
	$py "$compat/redis_cluster.py" slot_owners "$dir" >"$dir/slot_owners.txt"
	[ "$(wc -l <"$dir/keyslots.txt")" = "$nk" ] && [ "$(wc -l <"$dir/owners.txt")" = "$nk" ] &&
		[ "$(wc -l <"$dir/slot_owners.txt")" = 16384 ] || {
		echo "compat_redis: $label: the cluster answered for too few keys or slots" >&2
		return 1
	}
	paste "$work/keys.copy" "$dir/keyslots.txt" "$dir/owners.txt" >"$dir/data.copy"
	masters=$(awk '$3 ~ /(^|,)master(,|$)/' "$dir/nodes.txt" | wc -l)
	local vars=(-v ring="$ring" -v ring_slots="${ring}_slots")
	[ -z "$split" ] || vars+=(-v split="$split")
	[ -z "$before" ] || vars+=(-v before="$before" -v before_slots="${before}_slots")
	out=$(cd "$dir" && psql_db -At -F ' ' "${vars[@]}" <<'SQL'
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE TEMP TABLE k (id integer GENERATED ALWAYS AS IDENTITY, key text, slot integer, owner text);
\copy k (key, slot, owner) FROM 'data.copy'
CREATE TEMP TABLE s (slot integer, owner text);
\copy s FROM 'slot_owners.txt'
\set nodes `cat nodes.txt`
\set shards `cat shards.json`
\set shards2 `cat shards2.json`
SELECT chash_ring_create(:'ring', profile => 'redis_cluster') \g /dev/null
SELECT chash_ring_import(:'ring', 'redis_cluster_nodes', :'nodes') \g /dev/null
-- the same cluster from CLUSTER SHARDS, in both of redis-cli's JSON forms
SELECT chash_ring_create(:'ring' || '_shards', profile => 'redis_cluster'),
	   chash_ring_create(:'ring' || '_shards2', profile => 'redis_cluster') \g /dev/null
SELECT chash_ring_import(:'ring' || '_shards', 'redis_cluster_shards', :'shards'),
	   chash_ring_import(:'ring' || '_shards2', 'redis_cluster_shards', :'shards2') \g /dev/null
CREATE TEMP TABLE mine AS
SELECT g.slot, x.node FROM chash_slot_ranges(:'ring') x,
	   generate_series(lower(x.slots), upper(x.slots) - 1) g(slot);
SELECT (SELECT count(*) FROM k),
	   (SELECT count(*) FROM k WHERE chash_position(:'ring', key) % 16384 IS DISTINCT FROM slot),
	   (SELECT count(*) FROM k WHERE chash_lookup(:'ring', key) IS DISTINCT FROM owner),
	   (SELECT count(*) FROM s FULL JOIN mine USING (slot) WHERE s.owner IS DISTINCT FROM mine.node),
	   (SELECT count(*) FROM s
		FULL JOIN (SELECT g.slot, x.node FROM chash_slot_ranges(:'ring' || '_shards') x,
				   generate_series(lower(x.slots), upper(x.slots) - 1) g(slot)) a USING (slot)
		FULL JOIN (SELECT g.slot, x.node FROM chash_slot_ranges(:'ring' || '_shards2') x,
				   generate_series(lower(x.slots), upper(x.slots) - 1) g(slot)) b USING (slot)
		WHERE s.owner IS DISTINCT FROM a.node OR s.owner IS DISTINCT FROM b.node)
	   + (SELECT count(*) FROM (
			(SELECT node, state FROM chash.nodes WHERE ring = :'ring'
			 EXCEPT SELECT node, state FROM chash.nodes WHERE ring = :'ring' || '_shards')
			UNION ALL
			(SELECT node, state FROM chash.nodes WHERE ring = :'ring' || '_shards'
			 EXCEPT SELECT node, state FROM chash.nodes WHERE ring = :'ring')) d);
\if :{?split}
SELECT count(*) FROM s
LEFT JOIN (SELECT g.slot, x.node FROM chash_slot_ranges(:'split') x,
		   generate_series(lower(x.slots), upper(x.slots) - 1) g(slot)) e USING (slot)
WHERE s.owner IS DISTINCT FROM e.node;
\else
SELECT '-';
\endif
-- the slots that moved, by the cluster's own slot maps before and after:
-- "differing/moved"
\if :{?before}
SELECT (SELECT count(*) FROM (
			SELECT g.slot, m.from_node, m.to_node
			FROM chash_moved_slots(:'before', :'ring') m,
				 generate_series(lower(m.slots), upper(m.slots) - 1) g(slot)) c
		FULL JOIN (SELECT b.slot, b.node AS from_node, s.owner AS to_node
				   FROM s JOIN :"before_slots" b USING (slot)
				   WHERE b.node <> s.owner) r USING (slot)
		WHERE c.from_node IS DISTINCT FROM r.from_node OR c.to_node IS DISTINCT FROM r.to_node)
	   || '/' || (SELECT count(*) FROM s JOIN :"before_slots" b USING (slot) WHERE b.node <> s.owner);
\else
SELECT '-';
\endif
-- this state's slots, for the next change's check
CREATE TABLE :"ring_slots" AS SELECT slot, owner AS node FROM s;
SQL
) || {
		echo "compat_redis: $label: chash failed" >&2
		return 1
	}
	local checked keyslot owner slots shards splitd moved
	read -r checked keyslot owner slots shards <<<"$(sed -n 1p <<<"$out")"
	splitd=$(sed -n 2p <<<"$out")
	moved=$(sed -n 3p <<<"$out")
	printf "$fmt" "$label" "$masters" "$checked" "$keyslot" "$owner" "$slots" "$shards" "$splitd" "$moved"
	[ "$checked" = "$nk" ] && [ "$keyslot" = 0 ] && [ "$owner" = 0 ] && [ "$slots" = 0 ] &&
		[ "$shards" = 0 ] &&
		{ [ "$splitd" = - ] || [ "$splitd" = 0 ]; } &&
		{ [ "$moved" = - ] || [ "${moved%%/*}" = 0 ]; } || {
		echo "    differences in $label" >&2
		failed=$((failed + 1))
	}
}

# split_ring RING DIR: a ring of the cluster's masters in redis-cli's order
# (DIR/ports), without slots: chash splits them as redis-cli create does
split_ring() {
	psql_db -c "SELECT chash_ring_create('$1', profile => 'redis_cluster')" >/dev/null
	while read -r port; do
		psql_db -c "SELECT chash_node_add('$1', '127.0.0.1:$port')" >/dev/null
	done <"$2/ports"
}

t0=$EPOCHSECONDS
for m in 3 5 7; do
	dir=$work/c$m
	mkdir "$dir"
	clusters+=("$dir")
	$py "$compat/redis_cluster.py" start "$dir" "$m" >/dev/null
	split_ring "split$m" "$dir"
	check "$dir" "created$m" "$m masters, created by redis-cli" "split$m"
done

# the 3-master cluster through real changes
dir=$work/c3
$py "$compat/redis_cluster.py" reshard "$dir" 1 3 1000 >"$dir/reshard.out"
check "$dir" "reshard3" "reshard of 1000 slots, master 1 to 3" "" "created3"
port=$($py "$compat/redis_cluster.py" add_master "$dir")
check "$dir" "added3" "add-node 127.0.0.1:$port (no slots)" "" "reshard3"
$py "$compat/redis_cluster.py" rebalance "$dir" 2=2 >"$dir/rebalance.out"
check "$dir" "rebalanced3" "rebalance, master 2 of weight 2" "" "added3"
# the 7-master cluster: two reshards in a row, then a rebalance to equal shares
dir=$work/c7
$py "$compat/redis_cluster.py" reshard "$dir" 2 5 1000 >/dev/null
$py "$compat/redis_cluster.py" reshard "$dir" 7 1 333 >/dev/null
check "$dir" "reshard7" "reshards of 1000 (2 to 5) and 333 (7 to 1)" "" "created7"
$py "$compat/redis_cluster.py" rebalance "$dir" --threshold 2 >/dev/null
check "$dir" "rebalanced7" "rebalance to equal shares" "" "reshard7"

echo "compat_redis: $nk keys and 16384 slots in each state, $((EPOCHSECONDS - t0)) s"
if [ $failed -gt 0 ]; then
	echo "compat_redis: $failed state(s) differ" >&2
	exit 1
fi
