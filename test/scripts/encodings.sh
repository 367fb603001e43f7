#!/usr/bin/env bash
# Text is hashed as its UTF-8 bytes whatever the database encoding (in a
# SQL_ASCII database, byte for byte): the same rings and keys in UTF8,
# LATIN1 and SQL_ASCII databases give the same points, positions and owners.
# In SQL_ASCII, where text may hold any bytes, a ring whose hash reads names
# as Java strings refuses a node name that is not UTF-8 when it is added,
# by function or plain DML, and the ring stays as it was.
#
#   test/bin/with-cluster.sh test/scripts/encodings.sh
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
-- (identity and int64 take decimal integers only)
SELECT 'hash', h.name, chash_hash(h.name, k)
FROM chash_hash_functions() h, unnest(ARRAY['', 'a', 'ñandú', 'Grüße', 'ÿ']) k
WHERE h.name NOT IN ('identity', 'int64')
UNION ALL
SELECT 'hash', h, chash_hash(h, k)
FROM unnest(ARRAY['identity', 'int64']) h, unnest(ARRAY['0', '42', '9223372036854775807']) k
ORDER BY 1, 2, 3;
-- a CQL partition key holds the text's UTF-8
SELECT 'cql', encode(chash_cql_key(k), 'hex'), encode(chash_cql_key(k, 1), 'hex')
FROM unnest(ARRAY['ñandú', 'Grüße', 'ÿ']) k ORDER BY 1, 2;
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

# SQL_ASCII: a name that is not UTF-8, on a ring with a Java hash
cat >"$work/not_utf8.sql" <<'SQL'
\pset format unaligned
\pset tuples_only on
\set VERBOSITY default
SELECT chash_ring_create('java', hash => 'java_fnv32', vnode_name => '{node}&&VN{i}', ties => 'last');
SELECT chash_node_add('java', 'server-1');
SELECT 'before', md5(string_agg(point || ' ' || node, ',' ORDER BY ord))
FROM chash_points('java') WITH ORDINALITY AS p(point, node, vnode, ord);
SELECT chash_node_add('java', convert_from('\x7365727665722dff'::bytea, 'SQL_ASCII'));
INSERT INTO chash.node_config (ring, node) VALUES ('java', convert_from('\x6361666580'::bytea, 'SQL_ASCII'));
UPDATE chash.node_config SET node = convert_from('\xc0af'::bytea, 'SQL_ASCII') WHERE ring = 'java';
SELECT 'after', md5(string_agg(point || ' ' || node, ',' ORDER BY ord))
FROM chash_points('java') WITH ORDINALITY AS p(point, node, vnode, ord);
SELECT 'lookup', chash_lookup('java', 'k');
SELECT 'rings', ring, nodes, points, problem FROM chash.rings WHERE ring = 'java';
-- other hashes take any bytes
SELECT chash_ring_create('bytes');
SELECT chash_node_add('bytes', convert_from('\x7365727665722dff'::bytea, 'SQL_ASCII'));
SELECT 'bytes', points, problem FROM chash.rings WHERE ring = 'bytes';
SQL
out=$(PGCLIENTENCODING=SQL_ASCII "$bindir/psql" -X -q -d "${dbs[SQL_ASCII]}" -f "$work/not_utf8.sql" 2>&1) || {
	echo "  FAIL  SQL_ASCII: the check of names that are not UTF-8 could not run:" >&2
	echo "$out" >&2
	exit 1
}
before=$(grep '^before|' <<<"$out" | cut -d'|' -f2)
# (the names are not UTF-8: match bytes, whatever the locale)
refused=$(LC_ALL=C grep -ac 'ERROR:  node name "[^"]*" is not valid UTF-8' <<<"$out" || true)
if [ -n "$before" ] && [ "$refused" = 3 ] &&
	grep -qx "after|$before" <<<"$out" &&
	grep -qx 'lookup|server-1' <<<"$out" &&
	grep -qx 'rings|java|1|160|' <<<"$out" &&
	grep -qx 'bytes|160|' <<<"$out"; then
	echo "  ok    SQL_ASCII: a Java-hashed ring refuses 3 names that are not UTF-8 (function, INSERT, UPDATE) and stays as it was; other rings take them"
else
	echo "  FAIL  SQL_ASCII: names that are not UTF-8 on a Java-hashed ring:" >&2
	echo "$out" >&2
	status=1
fi

if [ $status -eq 0 ]; then
	echo "encodings: all checks passed"
fi
exit $status
