#!/usr/bin/env bash
# Text is hashed as its UTF-8 bytes whatever the database encoding (in a
# SQL_ASCII database, byte for byte): the same rings and keys in UTF8,
# LATIN1 and SQL_ASCII databases give the same points, positions and owners.
#
#   test/with-cluster.sh test/scripts/encodings.sh
set -euo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
export PGCLIENTENCODING=UTF8
tag=$$
declare -A dbs=([UTF8]=chash_enc_utf8_$tag [LATIN1]=chash_enc_latin1_$tag [SQL_ASCII]=chash_enc_ascii_$tag)
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-enc.XXXXXX")

cleanup() {
	local rc=$?
	for db in "${dbs[@]}"; do
		"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

# Only characters LATIN1 has, so that every database can store them
cat >"$work/fingerprint.sql" <<'SQL'
\pset format unaligned
\pset tuples_only on
CREATE EXTENSION chash;
SELECT chash_ring_create('enc', vnodes => 20, vnode_name => '{node}·{i}');
SELECT chash_node_add('enc', n) FROM unnest(ARRAY['nodo-ñ', 'plain', 'über', 'café']) n;
SELECT 'hash', h.name, chash_hash(h.name, k)
FROM chash_hash_functions() h, unnest(ARRAY['', 'a', 'ñandú', 'Grüße', 'ÿ']) k
ORDER BY 1, 2, 3;
-- keys in a table, an empty one beside others
-- (digests of the text's UTF-8, which is the same in every database)
CREATE TABLE keys (id integer, k text, filler text);
INSERT INTO keys SELECT g, CASE WHEN g % 7 = 0 THEN '' ELSE 'clé-' || g || '-ñ' END, repeat('z', g % 50)
FROM generate_series(1, 2000) g;
SELECT 'points', md5(convert_to(string_agg(point || ' ' || node || ' ' || vnode, ',' ORDER BY ord), 'UTF8'))
FROM chash_points('enc') WITH ORDINALITY AS p(point, node, vnode, ord);
SELECT 'owners', md5(convert_to(string_agg(k || '>' || chash_lookup('enc', k) || '@' || chash_position('enc', k), ',' ORDER BY id), 'UTF8'))
FROM keys;
SELECT 'empty key', count(DISTINCT chash_hash('xxh3_64', k)), min(chash_hash('xxh3_64', k))
FROM keys WHERE k = '';
SELECT 'node', node, points FROM chash.nodes ORDER BY node;
SQL

status=0
for enc in UTF8 LATIN1 SQL_ASCII; do
	db=${dbs[$enc]}
	"$bindir/createdb" -E "$enc" -T template0 --locale=C "$db"
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$work/fingerprint.sql" >"$work/$enc.out" 2>&1 || {
		echo "  FAIL  $enc: the fingerprint failed:" >&2
		cat "$work/$enc.out" >&2
		status=1
		continue
	}
done
[ $status -eq 0 ] || exit 1

echo "  ok    UTF8: $(grep -c '' "$work/UTF8.out") lines of hashes, points and owners"
for enc in LATIN1 SQL_ASCII; do
	if diff -u "$work/UTF8.out" "$work/$enc.out" >"$work/$enc.diff"; then
		echo "  ok    $enc routes as UTF8"
	else
		echo "  FAIL  $enc differs from UTF8:" >&2
		head -n 40 "$work/$enc.diff" >&2
		status=1
	fi
done
if [ $status -eq 0 ]; then
	echo "encodings: all checks passed"
fi
exit $status
