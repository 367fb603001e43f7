#!/usr/bin/env bash
# Compatibility proof for partitioned Elasticsearch indices: on a ring of
# profile elasticsearch, chash_lookup_partitioned() gives every document
# (its routing and _id) the shard Elasticsearch gives it in an index of
# routing_partition_size P, and every search routing the shards it visits.
# (Unpartitioned routing is compat.sh's.)
#
#   test/bin/with-cluster.sh test/scripts/compat_elasticsearch.sh
#
# The reference is test/compat/es_routing.py: the hash by Debian's Lucene
# (its StringHelper.murmurhash3_x86_32, after Elasticsearch's published
# hash values), the shard rule as Elasticsearch's IndexRouting writes it.
# No Elasticsearch runs here (Debian has none).  Documents: routing values
# from test/compat/keys.py (ASCII, Latin-1, CJK, outside the BMP) with _ids
# of their own; searches: the same routing values.  Any difference, or any
# step that fails, fails the suite.
#
# Environment:
#   CHASH_COMPAT_KEYS  documents a configuration (default 20000)
#   CHASH_COMPAT_KEEP  if set, keep the working directory
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
export PGCLIENTENCODING=UTF8
py=/usr/bin/python3
nkeys=${CHASH_COMPAT_KEYS:-20000}
db=chash_compat_es_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-compat-es.XXXXXX")

cleanup() {
	local rc=$?
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	if [ -n "${CHASH_COMPAT_KEEP:-}" ]; then
		echo "compat_elasticsearch: kept $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v java >/dev/null && command -v javac >/dev/null &&
	compgen -G '/usr/share/java/lucene-core-*.jar' >/dev/null || {
	echo "compat_elasticsearch: a JDK and Lucene's jar are needed (test/bin/setup.sh installs openjdk-17-jdk-headless and liblucene8-java)" >&2
	exit 1
}

# documents "routing<TAB>id" and search routings, one a line
$py "$compat/keys.py" "$nkeys" 20261204 >"$work/routing.txt"
$py "$compat/keys.py" "$nkeys" 20261205 | paste "$work/routing.txt" - >"$work/docs.txt"

"$bindir/createdb" "$db"
psql_db() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
psql_db -c 'CREATE EXTENSION chash'

failed=0
total=0
# check NAME SHARDS ROUTING_SHARDS|default P
check() {
	local name=$1 n=$2 r=$3 p=$4 dir=$work/$1 rs=() table_size=NULL out
	mkdir -p "$dir"
	if [ "$r" != default ]; then
		rs=(--routing-shards "$r")
		table_size=$r
	fi
	$py "$compat/es_routing.py" --shards "$n" "${rs[@]}" --partition-size "$p" "$work/docs.txt" >"$dir/doc_shards.txt"
	$py "$compat/es_routing.py" --shards "$n" "${rs[@]}" --partition-size "$p" "$work/routing.txt" >"$dir/search_shards.txt"
	# one table line a key: routing, id, its shard, the search's shards
	paste "$work/docs.txt" "$dir/doc_shards.txt" |
		paste - <(tr '\t' ',' <"$dir/search_shards.txt") |
		sed 's/\\/\\\\/g' >"$dir/data.copy"
	out=$(cd "$dir" && psql_db -At -F ' ' -v ring="es_$name" -v n="$n" -v p="$p" -v table_size="$table_size" <<'SQL'
SELECT chash_ring_create(:'ring', profile => 'elasticsearch', table_size => :table_size) \g /dev/null
-- the index's shards, in shard order, at once
INSERT INTO chash.node_config (ring, node, ordinal)
SELECT :'ring', 'shard-' || i, i FROM generate_series(0, :n - 1) i;
CREATE TEMP TABLE d (routing text, id text, shard integer, search text);
\copy d FROM 'data.copy'
SELECT count(*),
	   count(*) FILTER (WHERE chash_lookup_partitioned(:'ring', routing, id, :p)
						IS DISTINCT FROM 'shard-' || shard),
	   count(*) FILTER (WHERE array_to_string(chash_lookup_partitioned(:'ring', routing, :p), ',')
						IS DISTINCT FROM (SELECT string_agg('shard-' || s, ',' ORDER BY s::integer)
										  FROM unnest(string_to_array(search, ',')) s)),
	   (SELECT max(cardinality(chash_lookup_partitioned(:'ring', routing, :p))) FROM d)
FROM d;
SQL
	)
	local keys docs searches widest
	read -r keys docs searches widest <<<"$out"
	if [ -z "$widest" ] || [ "$keys" != "$nkeys" ]; then
		echo "compat_elasticsearch: $name: the checks did not run: $out" >&2
		exit 1
	fi
	printf '  %-12s %4d shards  R %-7s P %-4d %6d documents and searches  differing: documents %d, searches %d (widest search %d shards)\n' \
		"$name" "$n" "$r" "$p" "$keys" "$docs" "$searches" "$widest"
	[ "$docs" = 0 ] && [ "$searches" = 0 ] || failed=$((failed + 1))
	total=$((total + keys))
}

check one 1 default 1
check five 5 default 2
check three 3 768 3
check split 6 768 5
check before7 10 10 3
check hundred 100 200 7
check wide 8 default 1000

if [ "$failed" != 0 ]; then
	echo "compat_elasticsearch: $failed configuration(s) differ" >&2
	exit 1
fi
echo "compat_elasticsearch: 7 configurations, $total documents and as many searches, 0 differing"
