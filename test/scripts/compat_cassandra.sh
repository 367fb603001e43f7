#!/usr/bin/env bash
# Compatibility proof for Cassandra: a ring created with profile cassandra,
# filled by chash_ring_import() from `nodetool ring` output, gives every
# key the token, owner and replicas that the DataStax Python driver
# (Debian's python3-cassandra, test/compat/cassandra_tokens.py) computes
# for the same ring.  No Cassandra server runs here (Debian has none): the
# driver's Murmur3 tokens, its CQL serialisers and its replication
# strategies, which its token-aware routing uses, are the reference.
#
#   test/bin/with-cluster.sh test/scripts/compat_cassandra.sh
#
# Each configuration is a cluster written as `nodetool ring` output: data
# centres, racks, nodes with 1 to 256 random tokens (Up and Down, Normal,
# Leaving and Moving; and Joining nodes, which own no range yet and which
# the driver, fed only what system.peers would show it, does not see), some
# tokens equal to the tokens of keys, so that keys fall exactly on points.
# Keys: test/compat/keys.py's text (ASCII, Latin-1, CJK, outside the BMP),
# int, bigint, smallint, uuid and blob values (blobs of 1 to 40 bytes, many
# with bytes of 0x80 and more in their tail, where Cassandra's murmur3
# differs from the reference one), and composite keys (text, int), (uuid,
# bigint, text) and (boolean, smallint, blob), built in SQL by
# chash_cql_key().  For each key the suite compares:
#   token     chash_position() against the driver's token
#   owner     chash_lookup() against SimpleStrategy with one replica
#   simple    chash_lookup_n(ring, key, n) against SimpleStrategy's n
#   nts       chash_lookup_n(ring, key, n, true), racks as zones, against
#             NetworkTopologyStrategy's replicas in that data centre (one
#             ring a data centre)
# And the other way: chash_export(ring, 'cassandra') of four of those data
# centres' rings, its initial_token lines given to the driver as the
# cluster, must give each of 100,000 keys of their own (CHASH_COMPAT_EXPORT_KEYS)
# chash_lookup's owner.
# Any difference, or any step that fails, fails the suite.
#
# Environment:
#   CHASH_COMPAT_KEYS  text keys a configuration (default 20000; with the
#                      other types, twice as many keys)
#   CHASH_COMPAT_KEEP  if set, keep the working directory
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
export PGCLIENTENCODING=UTF8
py=/usr/bin/python3
nkeys=${CHASH_COMPAT_KEYS:-20000}
export_keys=${CHASH_COMPAT_EXPORT_KEYS:-100000}
db=chash_compat_cassandra_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-compat-cassandra.XXXXXX")

cleanup() {
	local rc=$?
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	if [ -n "${CHASH_COMPAT_KEEP:-}" ]; then
		echo "compat_cassandra: kept $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

$py -c 'import cassandra, cassandra.cmurmur3' 2>/dev/null || {
	echo "compat_cassandra: the driver is missing (test/bin/setup.sh installs python3-cassandra)" >&2
	exit 1
}
echo "compat_cassandra: DataStax Python driver $($py -c 'import cassandra; print(cassandra.__version__)')"

$py "$compat/keys.py" "$nkeys" 20261203 >"$work/text_keys.txt"

"$bindir/createdb" "$db"
psql_db() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
psql_db -c 'CREATE EXTENSION chash'

# make_case DIR SEED DCS: the configuration's ring, keys and the driver's
# answers in DIR.  DCS: dc:nodes:tokens:racks:rf[,...].  Writes ring.txt
# (what chash imports), driver_ring.txt (the same without joining nodes),
# keys.copy (type, key, token, owner, simple replicas, and for each data
# centre its NTS replicas) and dcs.txt (dc rf, a line each).
make_case() {
	$py - "$compat/cassandra_tokens.py" "$work/text_keys.txt" "$@" <<'PY'
import os, random, subprocess, sys, uuid

driver, text_keys, out, seed, spec = sys.argv[1:6]
rng = random.Random(int(seed))
py = "/usr/bin/python3"
MIN, MAX = -2 ** 63, 2 ** 63 - 1

def run(args, keys_file):
    r = subprocess.run([py, driver] + args + [keys_file], capture_output=True)
    if r.returncode != 0:
        sys.exit(f"driver {args}: {r.stderr.decode()}")
    return r.stdout.decode("utf-8").split("\n")[:-1]

# keys of every type, one file a type, as the driver reads them
texts = [k for k in open(text_keys, encoding="utf-8").read().split("\n")[:-1]]
keys = {"text": texts}
keys["int"] = [str(v) for v in [0, 1, -1, 2 ** 31 - 1, -2 ** 31] +
               [rng.randint(-2 ** 31, 2 ** 31 - 1) for _ in range(3000)]]
keys["bigint"] = [str(v) for v in [0, 1, -1, MAX, MIN] +
                  [rng.randint(MIN, MAX) for _ in range(3000)]]
keys["smallint"] = [str(v) for v in [0, -1, 32767, -32768] +
                    [rng.randint(-32768, 32767) for _ in range(1000)]]
keys["uuid"] = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(3000)]
keys["blob"] = [bytes(rng.choice([rng.randrange(256), rng.randrange(128, 256)])
                      for _ in range(rng.randint(1, 40))).hex() for _ in range(3000)]
comma_free = [t for t in texts if "," not in t]
keys["text,int"] = [f"{rng.choice(comma_free)},{rng.randint(-2 ** 31, 2 ** 31 - 1)}"
                    for _ in range(3000)] + [f",{i}" for i in range(10)]
keys["uuid,bigint,text"] = [f"{uuid.UUID(int=rng.getrandbits(128))},{rng.randint(MIN, MAX)},{rng.choice(comma_free)}"
                            for _ in range(2000)]
keys["boolean,smallint,blob"] = [f"{rng.choice(['true', 'false'])},{rng.randint(-32768, 32767)},"
                                 f"{rng.randbytes(rng.randint(0, 20)).hex()}" for _ in range(2000)]

def type_args(t):
    return ["--composite", t] if "," in t else ["--type", t]

tokens_of = {}
for t, ks in keys.items():
    path = os.path.join(out, f"keys_{t}.txt")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(k + "\n" for k in ks))
    tokens_of[t] = [int(x) for x in run(type_args(t), path)]

# the cluster: some tokens are keys' tokens, so that keys fall on points
key_tokens = [tok for ts in tokens_of.values() for tok in ts]
dcs, used, n_addr = [], set(), 0
for item in spec.split(","):
    dc, nodes, ntokens, nracks, rf = item.split(":")
    nodes, ntokens, nracks = int(nodes), int(ntokens), int(nracks)
    members = []
    for i in range(nodes):
        n_addr += 1
        addr = f"10.{n_addr // 250}.{n_addr % 250}.{rng.randint(1, 254)}"
        toks = []
        while len(toks) < ntokens:
            tok = rng.choice(key_tokens) if rng.random() < 0.05 else rng.randint(MIN + 1, MAX)
            if tok not in used:
                used.add(tok)
                toks.append(tok)
        status = "Down" if rng.random() < 0.1 else "Up"
        state = rng.choice(["Normal"] * 8 + ["Leaving", "Moving"])
        members.append((addr, f"rack{i % nracks + 1}", status, state, toks))
    # a joining node beside them, in a dc of several nodes
    if nodes > 2:
        n_addr += 1
        toks = [rng.randint(MIN + 1, MAX) for _ in range(ntokens)]
        used.update(toks)
        members.append((f"10.99.{n_addr % 250}.1", "rack1", "Up", "Joining", toks))
    dcs.append((dc, rf, members))

def nodetool(with_joining, only_dc=None):
    lines = []
    for dc, rf, members in dcs:
        if only_dc is not None and dc != only_dc:
            continue
        rows = sorted((tok, m) for m in members for tok in m[4]
                      if with_joining or m[3] != "Joining")
        lines += ["", f"Datacenter: {dc}", "==========",
                  "Address         Rack        Status State   Load            Owns                Token",
                  " " * 79 + str(rows[-1][0])]
        for tok, (addr, rack, status, state, _) in rows:
            load = rng.choice(["112.36 KiB", "1.02 MiB", "?"])
            lines.append(f"{addr:<15} {rack:<11} {status:<6} {state:<7} {load:<15} {'?':<19} {tok}")
    lines += ["", '  Warning: "nodetool ring" is used to output all the tokens of a node.',
              '  To view status related info of a node use "nodetool status" instead.', ""]
    return "\n".join(lines)

open(os.path.join(out, "ring.txt"), "w").write(nodetool(True))
driver_ring = os.path.join(out, "driver_ring.txt")
open(driver_ring, "w").write(nodetool(False))
# SimpleStrategy walks every data centre's tokens: it is checked on the
# first data centre's ring, given to the driver alone
first_ring = os.path.join(out, "driver_ring_first.txt")
open(first_ring, "w").write(nodetool(False, dcs[0][0]))
dc_of = {m[0]: dc for dc, _, ms in dcs for m in ms}
owners = sum(1 for m in dcs[0][2] if m[3] != "Joining")
with open(os.path.join(out, "dcs.txt"), "w") as f:
    for dc, rf, ms in dcs:
        f.write(f"{dc} {rf}\n")
nts = ",".join(f"{dc}:{rf}" for dc, rf, _ in dcs)
simple_n = min(3, owners)

def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")

with open(os.path.join(out, "keys.copy"), "w", encoding="utf-8") as f:
    for t, ks in keys.items():
        path = os.path.join(out, f"keys_{t}.txt")
        own = run(type_args(t) + ["--ring", first_ring], path)
        simple = run(type_args(t) + ["--ring", first_ring, "--replicas", str(simple_n)], path)
        by_nts = run(type_args(t) + ["--ring", driver_ring, "--nts", nts], path)
        for k, tok, o, s, r in zip(ks, tokens_of[t], own, simple, by_nts):
            per_dc = []
            for dc, _, _ in dcs:
                per_dc.append(",".join(h for h in r.split("\t") if dc_of[h] == dc))
            f.write("\t".join([t, esc(k), str(tok), o, s.replace("\t", ","),
                               "{" + ",".join(f'"{p}"' for p in per_dc) + "}"]) + "\n")
print(sum(len(ks) for ks in keys.values()),
      sum(1 for _, _, ms in dcs for m in ms if m[3] != "Joining"),
      sum(len(m[4]) for _, _, ms in dcs for m in ms if m[3] != "Joining"), simple_n)
PY
}

# check_case NAME SPEC SEED: one configuration, every comparison
failed=0
total_keys=0
check_case() {
	local name=$1 spec=$2 seed=$3 dir=$work/$1 facts nkeys_case nodes ntokens simple_n
	mkdir -p "$dir"
	facts=$(make_case "$dir" "$seed" "$spec")
	read -r nkeys_case nodes ntokens simple_n <<<"$facts"
	[ -n "$simple_n" ] || { echo "compat_cassandra: $name: no facts from the driver" >&2; exit 1; }
	local out
	out=$(cd "$dir" && psql_db -At -F ' ' -v case="$name" -v simple_n="$simple_n" <<'SQL'
\set ON_ERROR_STOP 1
CREATE TEMP TABLE k (type text, key text, token bigint, owner text, simple text, nts text[]);
\copy k FROM 'keys.copy'
CREATE TEMP TABLE dc (dc text, rf integer, ord serial);
\copy dc (dc, rf) FROM 'dcs.txt' WITH (DELIMITER ' ')
\set input `cat ring.txt`
-- one ring a data centre, filled from nodetool ring
CREATE TEMP TABLE imported AS
SELECT dc.dc, chash_ring_create(:'case' || '_' || dc.dc, profile => 'cassandra') IS NULL AS created,
	   chash_ring_import(:'case' || '_' || dc.dc, 'nodetool_ring', :'input', datacenter => dc.dc) AS nodes
FROM dc ORDER BY dc.ord;
-- a key as chash takes it: CQL's serialisation of its type
CREATE TEMP VIEW kk AS
SELECT k.*,
	   CASE type
		   WHEN 'text' THEN chash_cql_key(key)
		   WHEN 'int' THEN chash_cql_key(key::integer)
		   WHEN 'bigint' THEN chash_cql_key(key::bigint)
		   WHEN 'smallint' THEN chash_cql_key(key::smallint)
		   WHEN 'uuid' THEN chash_cql_key(key::uuid)
		   WHEN 'blob' THEN chash_cql_key(decode(key, 'hex'))
		   WHEN 'text,int' THEN chash_cql_key(split_part(key, ',', 1), split_part(key, ',', 2)::integer)
		   WHEN 'uuid,bigint,text' THEN chash_cql_key(split_part(key, ',', 1)::uuid, split_part(key, ',', 2)::bigint,
													 substr(key, length(split_part(key, ',', 1)) + length(split_part(key, ',', 2)) + 3))
		   WHEN 'boolean,smallint,blob' THEN chash_cql_key(split_part(key, ',', 1)::boolean, split_part(key, ',', 2)::smallint,
														  decode(split_part(key, ',', 3), 'hex'))
	   END AS cql
FROM k;
-- keys "nodes types tokens owners simple nts": counts of differences
SELECT count(*) FILTER (WHERE r.ord = 1),
	   (SELECT sum(nodes) FROM imported),
	   count(DISTINCT type),
	   count(*) FILTER (WHERE chash_position(r.ring, kk.cql) IS DISTINCT FROM kk.token),
	   count(*) FILTER (WHERE r.ord = 1 AND chash_lookup(r.ring, kk.cql) IS DISTINCT FROM kk.owner),
	   count(*) FILTER (WHERE r.ord = 1 AND array_to_string(chash_lookup_n(r.ring, kk.cql, :simple_n), ',')
						IS DISTINCT FROM kk.simple),
	   count(*) FILTER (WHERE array_to_string(chash_lookup_n(r.ring, kk.cql, r.rf, true), ',')
						IS DISTINCT FROM kk.nts[r.ord])
FROM kk, (SELECT :'case' || '_' || dc AS ring, rf, ord FROM dc) r;
-- the typed overloads hash as chash_cql_key does
SELECT count(*) FILTER (WHERE type = 'text' AND chash_position(:'case' || '_' || (SELECT dc FROM dc WHERE ord = 1), key) <> token)
	   + count(*) FILTER (WHERE type = 'int' AND chash_position(:'case' || '_' || (SELECT dc FROM dc WHERE ord = 1), key::integer) <> token)
	   + count(*) FILTER (WHERE type = 'bigint' AND chash_position(:'case' || '_' || (SELECT dc FROM dc WHERE ord = 1), key::bigint) <> token)
	   + count(*) FILTER (WHERE type = 'uuid' AND chash_position(:'case' || '_' || (SELECT dc FROM dc WHERE ord = 1), key::uuid) <> token)
	   + count(*) FILTER (WHERE type = 'blob' AND chash_hash('cassandra_murmur3', decode(key, 'hex')) <> token)
FROM k;
SQL
	)
	local keys imported types tokens owners simple nts overloads
	read -r keys imported types tokens owners simple nts <<<"$(sed -n 1p <<<"$out")"
	overloads=$(sed -n 2p <<<"$out")
	# every key and every node the driver knows were checked
	if [ -z "$nts" ] || [ -z "$overloads" ] || [ "$types" != 9 ] ||
		[ "$keys" != "$nkeys_case" ] || [ "$imported" != "$nodes" ]; then
		echo "compat_cassandra: $name: the checks did not run: $out" >&2
		exit 1
	fi
	printf '  %-10s %-34s %6d keys %5d nodes %6d tokens  differing token %d, owner %d, simple(%d) %d, nts %d, overloads %d\n' \
		"$name" "$spec" "$nkeys_case" "$nodes" "$ntokens" "$tokens" "$owners" "$simple_n" "$simple" "$nts" "$overloads"
	if [ "$tokens" != 0 ] || [ "$owners" != 0 ] || [ "$simple" != 0 ] || [ "$nts" != 0 ] || [ "$overloads" != 0 ]; then
		failed=$((failed + 1))
	fi
	total_keys=$((total_keys + nkeys_case))
}

check_case one dc1:1:1:1:1 1
check_case three dc1:3:1:3:3 2
check_case racks dc1:6:16:3:3 3
check_case unbalanced dc1:7:16:2:3 4
check_case two_dcs dc1:6:16:3:3,dc2:4:8:2:2 5
check_case default dc1:12:256:3:3 6
check_case hundred dc1:100:16:5:3 7
check_case thousand dc1:1000:4:10:3 8

# chash_export the other way: the cassandra.yaml tokens chash_export
# writes for a data centre's ring, given to the driver as the cluster
# (cassandra_tokens.py --config); the owner of each of 100,000 text keys of
# their own must be chash_lookup's
$py "$compat/keys.py" "$export_keys" 20261207 >"$work/export_keys.txt"
exported=0
export_case() {
	local ring=$1 dir=$work/export_$1 out keys differing nodes
	mkdir -p "$dir"
	psql_db -At -c "SELECT chash_export('$ring')" >"$dir/tokens.conf"
	$py "$compat/cassandra_tokens.py" --config "$dir/tokens.conf" "$work/export_keys.txt" >"$dir/owners.txt"
	paste "$work/export_keys.txt" "$dir/owners.txt" | sed 's/\\/\\\\/g' >"$dir/owners.copy"
	out=$(cd "$dir" && psql_db -At -F ' ' -v ring="$ring" <<'SQL'
CREATE TEMP TABLE o (key text, owner text);
\copy o FROM 'owners.copy'
SELECT count(*), count(*) FILTER (WHERE chash_lookup(:'ring', chash_cql_key(key)) IS DISTINCT FROM owner),
	   (SELECT count(*) FROM chash.node_config WHERE ring = :'ring')
FROM o;
SQL
	)
	read -r keys differing nodes <<<"$out"
	printf '  %-14s exported: %6s keys %5s nodes, the driver on chash_export'"'"'s tokens: differing owner %s\n' \
		"$ring" "$keys" "$nodes" "$differing"
	if [ "$keys" != "$export_keys" ] || [ "$differing" != 0 ]; then
		failed=$((failed + 1))
	fi
	exported=$((exported + 1))
}
export_case racks_dc1
export_case two_dcs_dc2
export_case default_dc1
export_case thousand_dc1

if [ "$failed" != 0 ]; then
	echo "compat_cassandra: $failed configuration(s) differ" >&2
	exit 1
fi
echo "compat_cassandra: 8 configurations, $total_keys keys, 0 differing; $exported exported, $export_keys keys each, 0 differing"
