#!/usr/bin/env bash
# pg_dump / pg_restore carry every ring.
#
# Against the server in PGHOST/PGPORT/PGUSER (test/bin/with-cluster.sh provides
# one; chash installed but not created anywhere): creates a database with
# rings of every kind of setting, dumps it in custom and in plain format,
# restores each dump into a new database, and checks that the restored
# databases are identical to the source in everything chash shows: the rows
# of chash.ring_config and chash.node_config, the views, every point of
# every ring in ring order, and where 2000 keys go on each ring.  Then the
# same change is made in all three databases, to check that the restored
# extension works as the original does (constraints, cache invalidation).
#
# Drops the databases it created, whatever happens.  Exits non-zero if
# anything differs or any step fails.
#
#   test/bin/with-cluster.sh test/scripts/dump_restore.sh
set -euo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)

tag=$$
src=chash_dump_src_$tag
dst_custom=chash_dump_custom_$tag
dst_plain=chash_dump_plain_$tag
created=()
failures=0
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-dump.XXXXXX")

cleanup() {
	local rc=$?
	if [ $rc -ne 0 ] && [ $failures -eq 0 ]; then
		echo "dump_restore: FAILED (a step failed, exit status $rc)" >&2
	fi
	for db in "${created[@]}"; do
		"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 ||
			echo "dump_restore: could not drop database $db" >&2
	done
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

new_db() {
	"$bindir/createdb" "$1"
	created+=("$1")
}

# Everything chash shows of the rings, as text, in a fixed order
cat >"$work/fingerprint.sql" <<'EOF'
\pset format unaligned
\pset null <null>
\pset footer off
SELECT extname, extversion, array_length(extconfig, 1) AS config_tables
FROM pg_extension WHERE extname = 'chash';
SELECT c.conrelid::regclass AS "table", c.conname, pg_get_constraintdef(c.oid)
FROM pg_constraint c
WHERE c.conrelid IN ('chash.ring_config'::regclass, 'chash.node_config'::regclass)
ORDER BY 1, 2;
SELECT t.tgrelid::regclass AS "table", t.tgname, t.tgenabled
FROM pg_trigger t
WHERE t.tgrelid IN ('chash.ring_config'::regclass, 'chash.node_config'::regclass)
	AND NOT t.tgisinternal
ORDER BY 1, 2;
-- versions are transaction ids: a restored ring gets the restore's
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, vnode_first, ketama_variant, ties,
	   version > 0 AS has_version, notify
FROM chash.ring_config ORDER BY ring;
SELECT * FROM chash.node_config ORDER BY ring, node;
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, vnode_first, nodes, active_nodes,
	   points, ketama_variant, ties, problem
FROM chash.rings ORDER BY ring;
SELECT * FROM chash.nodes ORDER BY ring, node;
SELECT last_value, is_called FROM chash.node_ordinal_seq;
-- every point of every ring, in the order chash_points gives them
SELECT r.ring, count(p.point) AS points,
	   md5(coalesce(string_agg(concat_ws(' ', p.point, p.node, p.vnode), E'\n'
							   ORDER BY p.ord), '')) AS points_md5
FROM chash.ring_config r
LEFT JOIN LATERAL chash_points(r.ring) WITH ORDINALITY p(point, node, vnode, ord)
	ON true
GROUP BY r.ring ORDER BY r.ring;
-- 2000 keys of each type on every ring that has active nodes
SELECT r.ring,
	   md5(string_agg(chash_lookup(r.ring, 'key:' || i), ',' ORDER BY i)) AS text_keys,
	   md5(string_agg(chash_lookup(r.ring, i), ',' ORDER BY i)) AS int_keys,
	   md5(string_agg(chash_lookup(r.ring, md5(i::text)::uuid), ',' ORDER BY i)) AS uuid_keys,
	   md5(string_agg(chash_lookup_n(r.ring, i::bigint, r.active_nodes)::text, ','
					  ORDER BY i)) AS preference_lists,
	   md5(string_agg(chash_position(r.ring, 'key:' || i)::text, ',' ORDER BY i)) AS positions
FROM chash.rings r CROSS JOIN generate_series(1, 2000) i
WHERE r.active_nodes > 0
GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring, chash_lookup(r.ring, 'key:' || i) AS node, count(*) AS keys
FROM chash.rings r CROSS JOIN generate_series(1, 2000) i
WHERE r.active_nodes > 0
GROUP BY 1, 2 ORDER BY 1, 2;
EOF

fingerprint() {
	"${psql[@]}" -d "$1" -f "$work/fingerprint.sql" >"$work/$2"
}

# Compare a database's fingerprint with the source's
compare() {
	local what=$1 file=$2
	if diff -u "$work/src.fp" "$work/$file" >"$work/$file.diff"; then
		ok "$what: identical to the source ($(wc -l <"$work/$file") lines)"
	else
		fail "$what: differs from the source:"
		head -n 60 "$work/$file.diff" >&2
	fi
}

# A command's exit status and stderr must both be clean
run_clean() {
	local what=$1
	shift
	local rc=0
	"$@" 2>"$work/stderr" || rc=$?
	if [ $rc -ne 0 ] || [ -s "$work/stderr" ]; then
		fail "$what: exit status $rc"
		sed 's/^/        /' "$work/stderr" >&2
		return 1
	fi
	ok "$what"
}

echo "== dump and restore of chash rings (databases *_$tag)"

# The source: rings covering the settings
new_db "$src"
"${psql[@]}" -d "$src" >/dev/null <<'EOF'
CREATE EXTENSION chash;
-- every default
SELECT chash_ring_create('default');
SELECT chash_node_add('default', node) FROM unnest(ARRAY['a', 'b', 'c']) node;
-- ketama style: md5 points, '{node}-{i}' names counted from 1
SELECT chash_ring_create('ketama', hash => 'md5', vnodes => 100,
						 vnode_name => '{node}-{i}', vnode_first => 1);
SELECT chash_node_add('ketama', node)
FROM unnest(ARRAY['mc1:11211', 'mc2:11211', 'mc3:11211']) node;
-- keys hashed differently from the points, same width (64 and 32 bits)
SELECT chash_ring_create('keyhash64', hash => 'xxh64', key_hash => 'pg', vnodes => 64);
SELECT chash_node_add('keyhash64', node) FROM unnest(ARRAY['k1', 'k2', 'k3', 'k4']) node;
SELECT chash_ring_create('keyhash32', hash => 'murmur3_32', key_hash => 'crc32',
						 vnode_name => 'vn{i}:{node}', vnode_first => 7);
SELECT chash_node_add('keyhash32', node) FROM unnest(ARRAY['s1', 's2']) node;
-- weights, own vnodes, zones, capacities, an address, a node down; notify
SELECT chash_ring_create('mixed', vnodes => 80, notify => true);
SELECT chash_node_add('mixed', 'heavy', 2.5, zone => 'eu-west', capacity => 4, address => '10.0.0.1:6379');
SELECT chash_node_add('mixed', 'light', 0.25, zone => 'eu-west', capacity => 0.5);
SELECT chash_node_add('mixed', 'fixed', 3, vnodes => 37, zone => 'us-east');
SELECT chash_node_add('mixed', 'plain');
SELECT chash_node_add('mixed', 'gone', 1.5, zone => 'us-east');
SELECT chash_node_set('mixed', 'gone', state => 'down');
-- names beyond ASCII
SELECT chash_ring_create('ring ünïcode', hash => 'fnv1a_64');
SELECT chash_node_add('ring ünïcode', node) FROM unnest(ARRAY['nöde 1', 'nœud 2', '節点 3']) node;
-- a ring whose only node is down, and an empty ring
SELECT chash_ring_create('all_down', hash => 'fnv1_32');
SELECT chash_node_add('all_down', 'sleeping');
SELECT chash_node_set('all_down', 'sleeping', state => 'down');
SELECT chash_ring_create('empty', algorithm => 'ring', vnodes => 3);
-- ketama rings of two variants, weighted, in a server order other than names'
SELECT chash_ring_create('libmemcached', algorithm => 'ketama');
SELECT chash_node_add('libmemcached', node, weight)
FROM (VALUES ('10.0.1.3', 200), ('10.0.1.1:11212', 600), ('10.0.1.2', 300)) v(node, weight);
SELECT chash_ring_create('uhashring', algorithm => 'ketama', ketama_variant => 'uhashring',
						 key_hash => 'twemproxy_fnv1a_64');
SELECT chash_node_add('uhashring', node, weight)
FROM (VALUES ('c', 3), ('a', 1), ('b', 2)) v(node, weight);
-- ties given by the server order: 'Aa' and 'BB' share every point, and the
-- one listed last (after reordering) wins
SELECT chash_ring_create('java', hash => 'java_hashcode', vnode_name => '{node}&&VN{i}',
						 vnodes => 20, ties => 'last');
SELECT chash_node_add('java', node) FROM unnest(ARRAY['Aa', 'BB', 'other']) node;
UPDATE chash.node_config SET ordinal = -ordinal WHERE ring = 'java' AND node = 'BB';
EOF
fingerprint "$src" src.fp
rings=$("${psql[@]}" -d "$src" -At -c "SELECT count(*) FROM chash.ring_config")
nodes=$("${psql[@]}" -d "$src" -At -c "SELECT count(*) FROM chash.node_config")
points=$("${psql[@]}" -d "$src" -At -c "SELECT sum(points) FROM chash.rings")
ok "source: $rings rings, $nodes nodes, $points points"

# Custom format, through pg_restore
run_clean "pg_dump -Fc" "$bindir/pg_dump" -Fc -f "$work/dump.custom" "$src"
new_db "$dst_custom"
run_clean "pg_restore into a new database" \
	"$bindir/pg_restore" -d "$dst_custom" "$work/dump.custom" || true
fingerprint "$dst_custom" custom.fp
compare "custom-format restore" custom.fp

# Plain format, through psql
run_clean "pg_dump -Fp" "$bindir/pg_dump" -Fp -f "$work/dump.sql" "$src"
new_db "$dst_plain"
run_clean "psql -f of the plain dump into a new database" \
	"${psql[@]}" -d "$dst_plain" -f "$work/dump.sql" -o /dev/null || true
fingerprint "$dst_plain" plain.fp
compare "plain-format restore" plain.fp

# Routing right after restore, each lookup in a session of its own
expect=$("${psql[@]}" -d "$src" -At -c "SELECT chash_lookup('mixed', 'user:1')")
for db in "$dst_custom" "$dst_plain"; do
	got=$("${psql[@]}" -d "$db" -At -c "SELECT chash_lookup('mixed', 'user:1')" 2>&1) || true
	if [ "$got" = "$expect" ]; then
		ok "first lookup in a new session of $db: $got"
	else
		fail "first lookup in a new session of $db: '$got', expected '$expect'"
	fi
done

# A session that routed by a restored ring sees another session's change
# to it: a restore sets the catalog's versions of the dump, and a version
# must never come back for another configuration
for db in "$dst_custom" "$dst_plain"; do
	seen=$("${psql[@]}" -d "$db" -At <<SQL 2>&1
SELECT string_agg(DISTINCT chash_lookup('mixed', 'user:' || g), ',') FROM generate_series(1, 200) g;
\! "$bindir/psql" -X -q -d "$db" -c "UPDATE chash.node_config SET state = 'down' WHERE ring = 'mixed' AND state = 'active' AND node <> (SELECT min(node) FROM chash.node_config WHERE ring = 'mixed' AND state = 'active')"
SELECT string_agg(DISTINCT chash_lookup('mixed', 'user:' || g), ',') FROM generate_series(1, 200) g;
SQL
	) || true
	fresh=$("${psql[@]}" -d "$db" -At -c "SELECT string_agg(DISTINCT chash_lookup('mixed', 'user:' || g), ',') FROM generate_series(1, 200) g" 2>&1) || true
	"${psql[@]}" -d "$db" -q -c "UPDATE chash.node_config SET state = 'active' WHERE ring = 'mixed' AND node <> 'gone'" || true
	before=$(sed -n 1p <<<"$seen")
	after=$(sed -n 2p <<<"$seen")
	if [ -n "$before" ] && [ -n "$fresh" ] && [ "$after" = "$fresh" ] && [ "$before" != "$after" ]; then
		ok "after restore, a session sees another's change of a ring it routed by ($db: $before, then $after)"
	else
		fail "after restore, a session routed by '$before', then '$after' after another's change; a new session: '$fresh' ($db)"
	fi
done

# The restored extension works as the original: the same changes, through
# the functions and through plain DML, give the same rings, seen in the
# session that made them (whose cached rings the changes must invalidate)
cat >"$work/change.sql" <<'EOF'
\o /dev/null
-- the constraints are there: this must fail
DO $$
BEGIN
	INSERT INTO chash.ring_config (ring, hash) VALUES ('bad', 'no such hash');
	RAISE EXCEPTION 'constraint ring_config_hash_check is missing';
EXCEPTION WHEN check_violation THEN
	NULL;
END $$;
SELECT chash_ring_create('after_restore', hash => 'fnv1a_32');
SELECT chash_ring_drop('keyhash64');
-- build every ring into this session's cache; from here on only nodes
-- change, so only node_config's trigger can tell the cache
SELECT count(*) FROM chash.rings;
SELECT count(chash_lookup(ring, 'warm the cache')) FROM chash.rings WHERE active_nodes > 0;
SELECT chash_node_add('default', 'd', 2);
SELECT chash_node_set('ketama', 'mc2:11211', state => 'down');
UPDATE chash.node_config SET state = 'active' WHERE ring = 'mixed' AND node = 'gone';
SELECT chash_node_remove('keyhash32', 's1');
SELECT chash_node_add('empty', 'first');
INSERT INTO chash.node_config (ring, node, weight)
VALUES ('after_restore', 'n1', 1), ('after_restore', 'n2', 2);
\o
\i fingerprint.sql
EOF
(cd "$work" && "${psql[@]}" -d "$src" -f change.sql >src.fp)
(cd "$work" && "${psql[@]}" -d "$dst_custom" -f change.sql >custom-changed.fp)
(cd "$work" && "${psql[@]}" -d "$dst_plain" -f change.sql >plain-changed.fp)
compare "custom-format restore, after the same changes" custom-changed.fp
compare "plain-format restore, after the same changes" plain-changed.fp

if [ $failures -gt 0 ]; then
	echo "dump_restore: $failures check(s) FAILED" >&2
	exit 1
fi
echo "dump_restore: all checks passed"
