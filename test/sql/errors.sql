--
-- Every misuse is a clear error with a proper SQLSTATE, and changes nothing.
--

-- Ordinals come from a sequence that earlier suites draw from too: start it
-- where this suite's output does not depend on those.  (Versions are
-- transaction ids, never shown.)
SELECT setval('chash.node_ordinal_seq', 2000000) > 0 AS ordinals_from;

-- Runs a statement that must fail; shows its SQLSTATE, message, detail and
-- hint on one line
CREATE FUNCTION expect_error(stmt text) RETURNS text
	LANGUAGE plpgsql
	AS $$
DECLARE
	state text;
	msg text;
	detail text;
	hint text;
BEGIN
	EXECUTE stmt;
	RETURN 'NO ERROR';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	-- a failing row of ring_config ends with its version, a transaction id
	detail := regexp_replace(detail, '^(Failing row contains \((?:[^,]*, ){9})\d+(.*)$', '\1<version>\2');
	RETURN state || ' ' || msg ||
		coalesce(nullif(' | DETAIL: ' || detail, ' | DETAIL: '), '') ||
		coalesce(nullif(' | HINT: ' || hint, ' | HINT: '), '');
END
$$;

SELECT chash_ring_create('r');
SELECT chash_node_add('r', 'a');
SELECT chash_node_add('r', 'b', 2);
SELECT chash_node_add('r', 'c', vnodes => 3);
SELECT chash_ring_create('empty');
SELECT chash_ring_create('all_down');
SELECT chash_node_add('all_down', 'x');
SELECT chash_node_add('all_down', 'y');
SELECT chash_node_set('all_down', 'x', state => 'down');
SELECT chash_node_set('all_down', 'y', state => 'down');
SELECT chash_ring_create('k', algorithm => 'ketama');
SELECT chash_node_add('k', 'a');

-- A fingerprint of the whole catalog and of the points of every ring (but
-- the versions, which the tests below that succeed change)
CREATE VIEW fingerprint AS
	SELECT md5(string_agg(x, ',' ORDER BY x)) AS fingerprint FROM (
		SELECT format('%s', row(r.ring, r.algorithm, r.hash, r.key_hash, r.vnodes, r.vnode_name,
								r.vnode_first, r.ketama_variant, r.ties)) AS x
		FROM chash.ring_config r
		UNION ALL SELECT format('%s', n) FROM chash.node_config n
		UNION ALL SELECT format('%s %s', r.ring, p)
		FROM chash.ring_config r, chash_points(r.ring) p) f;
SELECT fingerprint AS before FROM fingerprint \gset

-- Unknown ring, at every function that names one
SELECT expect_error($$SELECT chash_lookup('nope', 'k')$$);
SELECT expect_error($$SELECT chash_lookup('nope', 1)$$);
SELECT expect_error($$SELECT chash_lookup('nope', 1::bigint)$$);
SELECT expect_error($$SELECT chash_lookup('nope', '\x00'::bytea)$$);
SELECT expect_error($$SELECT chash_lookup('nope', md5('')::uuid)$$);
SELECT expect_error($$SELECT chash_lookup_n('nope', 'k', 1)$$);
SELECT expect_error($$SELECT chash_position('nope', 'k')$$);
SELECT expect_error($$SELECT * FROM chash_points('nope')$$);
SELECT expect_error($$SELECT chash_lookup('', 'k')$$);
SELECT expect_error($$SELECT chash_lookup(repeat('x', 64), 'k')$$);
SELECT expect_error($$SELECT chash_ring_drop('nope')$$);
SELECT expect_error($$SELECT chash_node_add('nope', 'a')$$);
SELECT expect_error($$SELECT chash_node_remove('nope', 'a')$$);
SELECT expect_error($$SELECT chash_node_set('nope', 'a', weight => 2)$$);

-- Unknown node
SELECT expect_error($$SELECT chash_node_remove('r', 'zz')$$);
SELECT expect_error($$SELECT chash_node_set('r', 'zz', weight => 2)$$);

-- Duplicates
SELECT expect_error($$SELECT chash_ring_create('r')$$);
SELECT expect_error($$SELECT chash_node_add('r', 'a')$$);

-- Empty ring, or no active node, at lookup
SELECT expect_error($$SELECT chash_lookup('empty', 'k')$$);
SELECT expect_error($$SELECT chash_lookup_n('empty', 'k', 1)$$);
SELECT expect_error($$SELECT chash_lookup('all_down', 'k')$$);
SELECT expect_error($$SELECT chash_lookup_n('all_down', 'k', 1)$$);
-- ... while positions and points need no node
SELECT chash_position('empty', 'k') = chash_hash('xxh3_64', 'k') AS position_of_empty_ring;
SELECT count(*) AS points_of_empty_ring FROM chash_points('empty');

-- Weights: positive and finite
SELECT expect_error($$SELECT chash_node_add('r', 'd', 0)$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', -1)$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', 'NaN')$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', 'Infinity')$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', '-Infinity')$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', NULL)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', weight => 0)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', weight => -0.5)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', weight => 'NaN')$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', weight => 'Infinity')$$);

-- vnodes: 1 to 16777216
SELECT expect_error($$SELECT chash_ring_create('v', vnodes => 0)$$);
SELECT expect_error($$SELECT chash_ring_create('v', vnodes => 16777217)$$);
-- from 1.4 on a NULL setting is its default (or its profile's), as unset
BEGIN;
SELECT chash_ring_create('v', algorithm => NULL, vnodes => NULL, vnode_first => NULL);
SELECT algorithm, vnodes, vnode_first FROM chash.rings WHERE ring = 'v';
ROLLBACK;
SELECT expect_error($$SELECT chash_node_add('r', 'd', vnodes => 0)$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', vnodes => -5)$$);
SELECT expect_error($$SELECT chash_node_add('r', 'd', vnodes => 16777217)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', vnodes => 0)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', vnodes => 16777217)$$);

-- Too many points: a weight that would give a node more than 16777216, or a
-- ring of more than 67108864
SELECT expect_error($$SELECT chash_node_add('r', 'd', 200000)$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', weight => 200000)$$);
SELECT chash_ring_create('huge', vnodes => 16777216);
SELECT chash_node_add('huge', n) FROM unnest(ARRAY['h1', 'h2', 'h3', 'h4']) n;
SELECT expect_error($$SELECT chash_node_add('huge', 'h5')$$);
-- a node that is down has no points, until it comes back
SELECT chash_node_set('huge', 'h4', state => 'down');
SELECT chash_node_add('huge', 'h5');
SELECT expect_error($$SELECT chash_node_set('huge', 'h4', state => 'active')$$);
SELECT node, state FROM chash.node_config WHERE ring = 'huge' ORDER BY node;
SELECT chash_ring_drop('huge');

-- A query that fires several of the catalog's statement triggers (a
-- writable CTE, ON CONFLICT DO UPDATE, a rename that cascades to the
-- nodes) writes all its rows before the first fires: its rings are counted
-- whole, in a new backend too (which knows no ring's size beforehand), and
-- no row is counted twice
SELECT chash_ring_create('huge', vnodes => 10);
INSERT INTO chash.node_config (ring, node, vnodes)
SELECT 'huge', 'n' || g, 16777216 FROM generate_series(1, 4) g;
\c
WITH gone AS (DELETE FROM chash.node_config WHERE ring = 'huge')
INSERT INTO chash.node_config (ring, node, vnodes)
SELECT 'huge', 'm' || g, 16777216 FROM generate_series(1, 4) g;
SELECT expect_error($$INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('huge', 'x', 16777216)$$);
SELECT expect_error($$SELECT chash_node_add('huge', 'x', vnodes => 1)$$);
\c
UPDATE chash.ring_config SET ring = 'huge_renamed' WHERE ring = 'huge';
UPDATE chash.ring_config SET ring = 'huge' WHERE ring = 'huge_renamed';
SELECT expect_error($$SELECT chash_node_add('huge', 'x', vnodes => 1)$$);
SELECT chash_node_remove('huge', 'm4');
\c
INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('huge', 'm1', 16777216), ('huge', 'm4', 16777216)
	ON CONFLICT (ring, node) DO UPDATE SET vnodes = excluded.vnodes;
SELECT expect_error($$SELECT chash_node_add('huge', 'x', vnodes => 1)$$);
SELECT count(*) AS nodes, sum(vnodes) AS points FROM chash.node_config WHERE ring = 'huge';
SELECT chash_ring_drop('huge');

-- Every change is checked, removals too: taking a ketama ring's heaviest
-- node away gives the others larger shares of the points
SELECT chash_ring_create('kh', algorithm => 'ketama', vnodes => 10000000);
SELECT chash_node_add('kh', 'h', 5);
SELECT chash_node_add('kh', 'y', 4.5);
SELECT chash_node_add('kh', 'z', 0.5);
SELECT expect_error($$SELECT chash_node_remove('kh', 'h')$$);
SELECT expect_error($$DELETE FROM chash.node_config WHERE ring = 'kh' AND node = 'h'$$);
SELECT expect_error($$UPDATE chash.node_config SET state = 'down' WHERE ring = 'kh' AND node = 'h'$$);
SELECT expect_error($$UPDATE chash.node_config SET ring = 'r' WHERE ring = 'kh' AND node = 'h'$$);
SELECT node, weight FROM chash.node_config WHERE ring = 'kh' ORDER BY node;
-- A ring that cannot be built (here the check was switched off; the ring
-- was never built in this backend) fails its lookups, but not the views:
-- they show why
ALTER TABLE chash.node_config DISABLE TRIGGER node_config_check_delete;
DELETE FROM chash.node_config WHERE ring = 'kh' AND node = 'h';
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_delete;
SELECT expect_error($$SELECT chash_lookup('kh', 'k')$$);
SELECT ring, nodes, active_nodes, points, problem FROM chash.rings ORDER BY ring;
SELECT ring, node, points FROM chash.nodes WHERE ring IN ('kh', 'r') ORDER BY ring, node;
SELECT ring, nodes, points, peak_to_mean IS NOT NULL AS has_figures FROM chash.ring_balance ORDER BY ring;
SELECT chash_ring_drop('kh');

-- Unknown algorithm, hash function, key hash, state; key hash of another width
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'consistent')$$);
SELECT expect_error($$SELECT chash_ring_create('v', hash => 'sha256')$$);
SELECT expect_error($$SELECT chash_ring_create('v', key_hash => 'sha256')$$);
SELECT expect_error($$SELECT chash_ring_create('v', hash => 'xxh3_64', key_hash => 'md5')$$);
SELECT expect_error($$SELECT chash_ring_create('v', hash => 'crc32', key_hash => 'pg')$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', state => 'draining')$$);
SELECT expect_error($$SELECT chash_node_set('r', 'a', state => 'ACTIVE')$$);
SELECT expect_error($$SELECT chash_hash('sha256', 'k')$$);
SELECT expect_error($$SELECT chash_hash('sha256', '\x00'::bytea)$$);
SELECT expect_error($$SELECT chash_hash('XXH3_64', 'k')$$);

-- Templates must name the node and the vnode number
SELECT expect_error($$SELECT chash_ring_create('v', vnode_name => '{node}')$$);
SELECT expect_error($$SELECT chash_ring_create('v', vnode_name => 'shard-{i}')$$);
SELECT expect_error($$SELECT chash_ring_create('v', vnode_name => '{node}-{I}')$$);

-- Ketama rings: MD5 points, four a digest, a known variant, the client's ties
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', hash => 'xxh3_64')$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', key_hash => 'pg')$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', vnodes => 162)$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', ketama_variant => 'spy')$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', ketama_variant => 'LIBMEMCACHED')$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', ties => 'last')$$);
SELECT expect_error($$SELECT chash_ring_create('v', algorithm => 'ketama', vnode_name => '{node}')$$);
SELECT expect_error($$SELECT chash_ring_create('v', ketama_variant => 'libmemcached')$$);
SELECT expect_error($$SELECT chash_ring_create('v', ties => 'random')$$);
SELECT expect_error($$SELECT chash_node_add('k', 'b', vnodes => 10)$$);
SELECT expect_error($$SELECT chash_node_set('k', 'a', vnodes => 161)$$);
-- weights fit the clients' 32-bit integers, and some node must get points
SELECT expect_error($$SELECT chash_node_add('k', 'b', weight => 4294967296)$$);
SELECT expect_error($$SELECT chash_node_set('k', 'a', weight => 1e-300)$$);
-- the same rules hold for plain DML on the catalog
SELECT expect_error($$UPDATE chash.ring_config SET hash = 'murmur3_32' WHERE ring = 'k'$$);
SELECT expect_error($$UPDATE chash.ring_config SET vnodes = 42 WHERE ring = 'k'$$);
SELECT expect_error($$UPDATE chash.ring_config SET ketama_variant = 'memcache' WHERE ring = 'k'$$);
SELECT expect_error($$UPDATE chash.ring_config SET ties = 'first' WHERE ring = 'k'$$);
SELECT expect_error($$UPDATE chash.ring_config SET ties = 'random' WHERE ring = 'r'$$);
SELECT expect_error($$UPDATE chash.ring_config SET ketama_variant = 'node' WHERE ring = 'r'$$);
SELECT expect_error($$INSERT INTO chash.ring_config (ring, algorithm) VALUES ('v', 'ketama')$$);
SELECT expect_error($$UPDATE chash.node_config SET vnodes = 2 WHERE ring = 'k'$$);
SELECT expect_error($$UPDATE chash.node_config SET ordinal = NULL WHERE ring = 'k'$$);

-- The Java hashes take text: a bytea key must hold UTF-8
SELECT expect_error($$SELECT chash_hash('java_fnv32', '\xff'::bytea)$$);
SELECT expect_error($$SELECT chash_hash('java_fnv64', '\x61e282'::bytea)$$);
SELECT expect_error($$SELECT chash_hash('java_hashcode', '\xc0af'::bytea)$$);

-- n of chash_lookup_n: 1 to the number of active nodes
SELECT expect_error($$SELECT chash_lookup_n('r', 'k', 0)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', 'k', -1)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', 'k', 4)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', 42, 4)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', 42::bigint, 4)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', '\x00'::bytea, 4)$$);
SELECT expect_error($$SELECT chash_lookup_n('r', md5('')::uuid, 4)$$);
SELECT cardinality(chash_lookup_n('r', 'k', 3)) AS all_three_nodes;

-- Names and other required arguments
SELECT expect_error($$SELECT chash_ring_create('')$$);
SELECT expect_error($$SELECT chash_ring_create(repeat('x', 64))$$);
SELECT expect_error($$SELECT chash_ring_create(NULL)$$);
SELECT expect_error($$SELECT chash_ring_drop(NULL)$$);
SELECT expect_error($$SELECT chash_node_add('r', '')$$);
SELECT expect_error($$SELECT chash_node_add('r', NULL)$$);
SELECT expect_error($$SELECT chash_node_add(NULL, 'a')$$);
SELECT expect_error($$SELECT chash_node_remove('r', NULL)$$);
SELECT expect_error($$SELECT chash_node_set(NULL, 'a')$$);
SELECT expect_error($$SELECT chash_node_set('r', NULL)$$);
-- the longest ring name is 63 bytes, counted in bytes, not characters
SELECT chash_ring_create(repeat('x', 63));
SELECT chash_ring_drop(repeat('x', 63));
SELECT expect_error($$SELECT chash_ring_create(repeat('é', 32))$$);

-- Node names: 1 to 1024 bytes; templates: at most 256 bytes
SELECT chash_node_add('r', repeat('n', 1024));
SELECT chash_node_remove('r', repeat('n', 1024));
SELECT expect_error($$SELECT chash_node_add('r', repeat('n', 1025))$$);
SELECT expect_error($$SELECT chash_node_add('r', repeat('é', 513))$$);
SELECT expect_error($$INSERT INTO chash.node_config (ring, node) VALUES ('r', repeat('n', 1025))$$);
SELECT expect_error($$UPDATE chash.node_config SET node = repeat('n', 1025) WHERE ring = 'r' AND node = 'a'$$);
SELECT chash_ring_create('t', vnode_name => repeat('-', 247) || '{node}{i}');
SELECT chash_ring_drop('t');
SELECT expect_error($$SELECT chash_ring_create('t', vnode_name => repeat('-', 248) || '{node}{i}')$$);
SELECT expect_error($$UPDATE chash.ring_config SET vnode_name = repeat('-', 248) || '{node}{i}' WHERE ring = 'r'$$);

-- Names in messages are cut after 64 bytes: a name of megabytes writes
-- no megabytes to the log
SELECT expect_error(format($$SELECT chash_lookup(%L, 'k')$$, repeat('x', 1000000)));
SELECT expect_error(format($$SELECT chash_ring_drop(%L)$$, repeat('é', 1000000)));
SELECT expect_error(format($$SELECT chash_node_remove('r', %L)$$, repeat('n', 1000000)));
SELECT expect_error(format($$SELECT chash_node_add('r', %L)$$, repeat('n', 1000000)));
SELECT expect_error(format($$SELECT chash_ring_create('v', hash => %L)$$, repeat('h', 1000000)));
SELECT expect_error(format($$SELECT chash_node_set('r', 'a', state => %L)$$, repeat('s', 1000000)));
SELECT expect_error(format($$SELECT * FROM chash_moved_ranges(%L, %L)$$, repeat('x', 1000000), repeat('x', 1000000)));

-- NULL: routing and hash functions are STRICT (a NULL key has no owner);
-- every other function says which argument is NULL
SELECT chash_lookup(NULL, 'k') IS NULL AS lookup_null_ring,
	   chash_lookup('r', NULL::text) IS NULL AS lookup_null_key,
	   chash_lookup_n('r', 'k', NULL) IS NULL AS lookup_n_null_n,
	   chash_hash(NULL, 'k') IS NULL AS hash_null_name,
	   (SELECT count(*) FROM chash_points(NULL)) AS points_of_null;
SELECT expect_error($$SELECT * FROM chash_moved_ranges(NULL, 'r')$$);
SELECT expect_error($$SELECT * FROM chash_moved_ranges('r', NULL)$$);
SELECT expect_error($$SELECT * FROM chash_move_summary(NULL, 'r')$$);
SELECT expect_error($$SELECT * FROM chash_move_summary('r', NULL, 'pg_class', 'oid')$$);
SELECT expect_error($$SELECT * FROM chash_moved_keys('r', NULL, ARRAY[1])$$);
SELECT expect_error($$SELECT * FROM chash_moved_keys('r', 'empty', NULL::integer[])$$);
SELECT expect_error($$SELECT * FROM chash_ownership(NULL)$$);
SELECT expect_error($$SELECT * FROM chash_ownership('r', NULL)$$);
SELECT expect_error($$SELECT * FROM chash_ring_stats(NULL)$$);
SELECT expect_error($$SELECT * FROM chash_key_distribution(NULL, 'pg_class', 'oid')$$);
SELECT expect_error($$SELECT chash_ring_svg(NULL)$$);
SELECT expect_error($$SELECT chash_ring_svg('r', NULL)$$);
SELECT expect_error($$SELECT chash_ownership_svg(NULL)$$);
SELECT expect_error($$SELECT chash_ownership_svg('r', NULL)$$);

-- Ownership of a ring with no active node is an error, as its lookups are
-- (its pictures draw it)
SELECT expect_error($$SELECT * FROM chash_ownership('empty')$$);
SELECT expect_error($$SELECT * FROM chash_ownership('all_down', 2)$$);
SELECT expect_error($$SELECT * FROM chash_ring_stats('all_down')$$);
SELECT length(chash_ring_svg('all_down')) > 0 AS picture_of_all_down,
	   length(chash_ownership_svg('empty')) > 0 AS picture_of_empty;

-- MySQL plans cannot write numeric NaN or infinite keys
CREATE TABLE nan_keys (id numeric PRIMARY KEY);
INSERT INTO nan_keys SELECT g FROM generate_series(1, 200) g;
INSERT INTO nan_keys VALUES ('NaN'), ('Infinity'), ('-Infinity');
SELECT chash_ring_copy('r', 'r_next');
SELECT chash_node_add('r_next', 'd', target => 'db4');
UPDATE chash.node_config SET target = 'db_' || node WHERE ring IN ('r', 'r_next');
SELECT count(*) > 0 AS nan_keys_move FROM chash_moved_keys('r', 'r_next', 'nan_keys', 'id')
	AS m(key numeric, from_node text, to_node text)
WHERE key IN ('NaN', 'Infinity', '-Infinity');
SELECT expect_error($$SELECT * FROM chash_migration_sql('r', 'r_next', 'nan_keys', 'id', 'mysql')$$);
-- (the PostgreSQL dialect moves them like any key)
SELECT count(*) > 0 AS postgresql_plan FROM chash_migration_sql('r', 'r_next', 'nan_keys', 'id');
SELECT chash_ring_drop('r_next');
UPDATE chash.node_config SET target = NULL WHERE ring = 'r';
DROP TABLE nan_keys;

-- The catalog's trigger fires on the catalog only
SELECT expect_error($$SELECT chash.catalog_trigger()$$);
CREATE TEMP TABLE impostor (ring text, node text, weight float8, vnodes integer, state text);
CREATE TRIGGER impostor_check AFTER INSERT ON impostor REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
SELECT expect_error($$INSERT INTO impostor VALUES ('r', 'x', 1, NULL, 'active')$$);
DROP TABLE impostor;
-- (columns of other types and NULLs, as a role might make them to crash it)
CREATE TEMP TABLE impostor (ring integer, node bytea);
CREATE TRIGGER impostor_check AFTER INSERT ON impostor REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER impostor_lock BEFORE INSERT ON impostor
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
SELECT expect_error($$INSERT INTO impostor VALUES (NULL, NULL), (42, '\x00')$$);
DROP TABLE impostor;
-- ... and from the events it is made for
CREATE TRIGGER node_config_impostor AFTER INSERT ON chash.node_config
	FOR EACH ROW EXECUTE FUNCTION chash.catalog_trigger();
SELECT expect_error($$SELECT chash_node_add('r', 'x')$$);
DROP TRIGGER node_config_impostor ON chash.node_config;
CREATE TRIGGER node_config_impostor AFTER INSERT ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
SELECT expect_error($$SELECT chash_node_add('r', 'x')$$);
DROP TRIGGER node_config_impostor ON chash.node_config;

-- Helpers in schema chash that any role may call refuse what they cannot
-- use, rather than guess
SELECT expect_error($$SELECT chash.replace_redis_masters('r', ARRAY['a', 'b'], ARRAY['active'], ARRAY['{}'])$$);
SELECT expect_error($$SELECT chash.replace_redis_masters('r', ARRAY['a'], ARRAY['active'], ARRAY['{"[0,16384)"}'])$$);
SELECT expect_error($$SELECT chash.replace_redis_masters('r', NULL, ARRAY['active'], ARRAY['{}'])$$);
SELECT expect_error($$SELECT chash.migration_target('r', 'a', 'users', 'oracle')$$);
SELECT expect_error($$SELECT chash.migration_target('r', 'a', 'users', NULL)$$);
SELECT expect_error($$SELECT chash.mysql_node_rows('nope', NULL, '`id`')$$);
SELECT expect_error($$SELECT chash.mysql_node_rows(NULL, NULL, '`id`')$$);
SELECT expect_error($$SELECT chash.import_nodetool_ring('r', NULL, NULL)$$);
SELECT expect_error($$SELECT * FROM chash.ring_ownership('r', 1, NULL, false)$$);
SELECT chash.key_expr('k', NULL) IS NULL AS key_expr_gives_no_value;

-- Keys are hashed by their text: a key type whose text depends on the
-- session's settings is refused by every plan and report, judged through
-- domains and arrays
CREATE DOMAIN key_stamp AS timestamptz;
CREATE DOMAIN key_label AS text;
CREATE DOMAIN key_bytes AS bytea;
CREATE TYPE key_mood AS ENUM ('calm', 'cross');
CREATE TABLE typed_keys (ts timestamptz, f double precision, r real, d date, t time, iv interval,
						 m money, st key_stamp, fa real[], kb key_bytes, ba bytea[],
						 lb key_label, mo key_mood, b bytea, n numeric, u uuid, la text[]);
INSERT INTO typed_keys VALUES (now(), 1.5, 1.5, current_date, '12:00', '1 day', 1, now(), '{1.5}', '\x01', '{"\\x01"}',
							   'x', 'calm', '\x01', 1.5, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{x}');
SELECT a.attname AS key_column,
	   expect_error(format('SELECT count(*) FROM chash_key_distribution(%L, %L, %L)', 'r', 'typed_keys', a.attname)) AS outcome
FROM pg_attribute a WHERE a.attrelid = 'typed_keys'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT expect_error($$SELECT count(*) FROM chash_moved_keys('r', 'k', 'typed_keys', 'ts') AS t(key timestamptz, from_node text, to_node text)$$);
SELECT expect_error($$SELECT count(*) FROM chash_move_summary('r', 'k', 'typed_keys', 'f')$$);
SELECT expect_error($$SELECT count(*) FROM chash_migration_sql('r', 'k', 'typed_keys', 'd', 'mysql')$$);
SELECT expect_error($$SELECT count(*) FROM chash_moved_keys('r', 'k', ARRAY[now()])$$);
SELECT count(*) AS keys_of_a_domain_over_text FROM chash_moved_keys('r', 'k', ARRAY['a', 'b']::key_label[]);
DROP TABLE typed_keys;
DROP TYPE key_mood;
DROP DOMAIN key_stamp, key_label, key_bytes;

-- None of the above changed anything
SELECT fingerprint = :'before' AS catalog_unchanged FROM fingerprint;
-- and lookups work as before
SELECT count(*) AS keys, count(DISTINCT chash_lookup('r', k)) AS nodes
FROM generate_series(1, 1000) k;

-- Other systems' spellings and the function to call next, in the hints:
-- twemproxy's own name for a hash, and the slots of two table rings
SELECT expect_error($$SELECT chash_ring_create('tw', profile => 'twemproxy', key_hash => 'fnv1a_64')$$);
SELECT expect_error($$SELECT chash_ring_create('tw', profile => 'twemproxy', key_hash => 'fnv1_64')$$);
SELECT expect_error($$SELECT chash_ring_create('tw', key_hash => 'crc32')$$);
SELECT chash_ring_create('sl', algorithm => 'slots');
SELECT chash_node_add('sl', 'a');
SELECT chash_ring_copy('sl', 'sl_next');
SELECT chash_node_add('sl_next', 'b');
SELECT expect_error($$SELECT count(*) FROM chash_moved_ranges('sl', 'sl_next')$$);
SELECT expect_error($$SELECT count(*) FROM chash_moved_ranges('sl', 'r')$$);
SELECT count(*) AS moved_slot_ranges FROM chash_moved_slots('sl', 'sl_next');
SELECT chash_ring_drop('sl'), chash_ring_drop('sl_next');
-- the picture of a move refuses what the plans refuse, and its width
SELECT expect_error($$SELECT chash_move_svg('r', 'r')$$);
SELECT expect_error($$SELECT chash_move_svg('r', 'sl_missing')$$);
SELECT expect_error($$SELECT chash_move_svg('r', 'k', 100)$$);
SELECT expect_error($$SELECT chash_move_svg('r', 'k', 20000)$$);
SELECT expect_error($$SELECT chash_move_svg('r', NULL)$$);
SELECT length(chash_move_svg('r', 'k')) > 1000 AS drawn;

-- The errors of the functions written in PL/pgSQL carry no CONTEXT of
-- chash's own helpers and statements, as a function in C: only the
-- caller's frames (here a DO block's), with the error's SQLSTATE, detail
-- and hint kept
\set VERBOSITY default
\set SHOW_CONTEXT always
CREATE TABLE ctx_keys (id integer);
INSERT INTO ctx_keys VALUES (1), (2);
SELECT chash_ring_copy('r', 'r_ctx');
SELECT * FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'nope', NULL::integer);
SELECT chash_ring_import('r', 'redis_cluster_nodes', 'garbage');
SELECT chash_ring_switch('r', 'no_such_ring');
DO $$ BEGIN PERFORM chash_ring_svg('no_such_ring'); END $$;
-- (their SQLSTATEs, as raised inside)
SELECT expect_error($$SELECT * FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'nope', NULL::integer)$$);
SELECT expect_error($$SELECT chash_ring_switch('r', 'no_such_ring')$$);
SELECT expect_error($$SELECT chash_ring_svg('r', 10)$$);
-- a column definition list of the wrong key type: what to write instead
SELECT * FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'id') AS m(key text, from_node text, to_node text);
SELECT expect_error($$SELECT * FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'id') AS m(key text, from_node text, to_node text)$$);
SELECT count(*) FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'id') AS m(key integer, from_node text, to_node text);
-- a query the planner would otherwise run with a parallel scan beside the
-- function (where a parallel restricted function runs in the leader, in
-- parallel mode, and its exception block cannot start): the functions
-- that catch errors keep it serial
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) AS moved FROM chash_moved_keys('r', 'r_ctx', 'ctx_keys', 'id', NULL::integer) m
JOIN ctx_keys k ON k.id = m.key;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- the function that raises them: what it is given, or a clear refusal
SELECT chash.raise_without_context('22023', 'a message', 'A detail.', '');
SELECT expect_error($$SELECT chash.raise_without_context('22023', 'a message', 'A detail.', '')$$);
SELECT chash.raise_without_context('P0001', 'a message', NULL, 'A hint.');
SELECT chash.raise_without_context(NULL, 'a message', NULL, NULL);
SELECT chash.raise_without_context('P0001', '', NULL, NULL);
SELECT chash.raise_without_context('P001', 'a message', NULL, NULL);
SELECT chash.raise_without_context('p0001', 'a message', NULL, NULL);
SELECT chash.raise_without_context('00000', 'a message', NULL, NULL);
\set SHOW_CONTEXT errors
SELECT chash_ring_drop('r_ctx');
DROP TABLE ctx_keys;

DROP VIEW fingerprint;
DROP FUNCTION expect_error(text);
SELECT chash_ring_drop(ring) FROM chash.ring_config ORDER BY ring;
