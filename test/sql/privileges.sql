--
-- Privileges: routing is open to everyone, changing rings needs write
-- privileges on the catalog tables.  Every function runs with the caller's
-- rights; a refused change is a clear error and leaves the ring as it was.
--
-- Rings of this test are named priv*, roles regress_chash_*; everything is
-- dropped at the end.
--

-- Ordinals come from a sequence that earlier suites draw from too: start it
-- where this suite's output does not depend on those.  (Versions are
-- transaction ids, never shown.)
SELECT setval('chash.node_ordinal_seq', 3000000) > 0 AS ordinals_from;

-- As superuser: a ring with nodes of every kind
SELECT chash_ring_create('priv');
SELECT chash_node_add('priv', 'a');
SELECT chash_node_add('priv', 'b', 2);
SELECT chash_node_add('priv', 'c', vnodes => 20, zone => 'eu-west');
SELECT chash_node_add('priv', 'd');
SELECT chash_node_set('priv', 'd', state => 'down');
SELECT ring, node, weight, vnodes, zone, state, points,
	   rank() OVER (ORDER BY ordinal) AS place_in_list
FROM chash.nodes WHERE ring = 'priv' ORDER BY node;

-- Everything a change could touch, in one row: the points of ring priv and
-- the rows of the catalog tables of every priv* ring.  The view runs as its
-- owner; the test only compares its value before and after each refusal.
CREATE VIEW regress_chash_fingerprint AS
SELECT (SELECT md5(string_agg(concat_ws(' ', point, node, vnode), ','
							  ORDER BY point, node, vnode))
		FROM chash_points('priv')) AS points,
	   (SELECT md5(string_agg(row(r.ring, r.algorithm, r.hash, r.key_hash, r.vnodes,
								  r.vnode_name, r.vnode_first, r.ketama_variant, r.ties)::text,
							  ',' ORDER BY ring))
		FROM chash.ring_config r WHERE ring LIKE 'priv%') AS rings,
	   (SELECT md5(string_agg(n::text, ',' ORDER BY ring, node))
		FROM chash.node_config n WHERE ring LIKE 'priv%') AS nodes;
GRANT SELECT ON regress_chash_fingerprint TO PUBLIC;
SELECT f::text AS fingerprint FROM regress_chash_fingerprint f \gset
-- where 1000 keys go, to see changes reach the lookups
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;

-- The default privileges: PUBLIC may read the catalog but not change it
SELECT t AS "table",
	   has_table_privilege('public', t, 'SELECT') AS "select",
	   has_table_privilege('public', t, 'INSERT') AS "insert",
	   has_table_privilege('public', t, 'UPDATE') AS "update",
	   has_table_privilege('public', t, 'DELETE') AS "delete",
	   has_table_privilege('public', t, 'TRUNCATE') AS "truncate"
FROM unnest(ARRAY['chash.ring_config', 'chash.node_config',
				  'chash.rings', 'chash.nodes']) t;

-- No function of chash is SECURITY DEFINER, and PUBLIC may execute every
-- one of them but the catalog's trigger: the table privileges alone decide
-- who may change rings
SELECT count(*) >= 28 AS all_functions_seen,
	   count(*) FILTER (WHERE p.prosecdef) AS security_definer,
	   count(*) FILTER (WHERE NOT has_function_privilege('public', p.oid, 'EXECUTE'))
		   AS not_executable_by_public
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chash';
SELECT p.oid::regprocedure AS routing_function, p.prosecdef,
	   has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p
WHERE p.proname IN ('chash_lookup', 'chash_lookup_n', 'chash_position',
					'chash_hash', 'chash_points', 'chash_hash_functions')
	AND p.pronamespace = (SELECT extnamespace FROM pg_extension
						  WHERE extname = 'chash')
ORDER BY p.proname, p.oid::regprocedure::text;

CREATE ROLE regress_chash_reader;
CREATE ROLE regress_chash_writer;

--
-- A role with no privileges of its own can route
--
SET ROLE regress_chash_reader;
SELECT current_user;
SELECT chash_lookup('priv', 'user:42'::text) AS text_key,
	   chash_lookup('priv', '\x0102ff'::bytea) AS bytea_key,
	   chash_lookup('priv', 42) AS int_key,
	   chash_lookup('priv', 42::bigint) AS bigint_key,
	   chash_lookup('priv', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS uuid_key;
SELECT chash_lookup_n('priv', 'user:42'::text, 3) AS text_key,
	   chash_lookup_n('priv', '\x0102ff'::bytea, 3) AS bytea_key,
	   chash_lookup_n('priv', 42, 3) AS int_key,
	   chash_lookup_n('priv', 42::bigint, 3) AS bigint_key,
	   chash_lookup_n('priv', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 3) AS uuid_key;
SELECT chash_position('priv', 'user:42'::text) AS text_key,
	   chash_position('priv', '\x0102ff'::bytea) AS bytea_key,
	   chash_position('priv', 42) AS int_key,
	   chash_position('priv', 42::bigint) AS bigint_key,
	   chash_position('priv', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS uuid_key;
SELECT chash_hash('xxh3_64', 'user:42'::text) AS text_key,
	   chash_hash('xxh3_64', '\x0102ff'::bytea) AS bytea_key;
SELECT count(*) AS points, count(DISTINCT node) AS nodes FROM chash_points('priv');
SELECT count(*) > 0 AS has_hash_functions FROM chash_hash_functions();
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
-- the views and the catalog tables
SELECT ring, algorithm, hash, key_hash, vnodes, nodes, active_nodes, points
FROM chash.rings WHERE ring = 'priv';
SELECT ring, node, weight, vnodes, zone, state, points,
	   rank() OVER (ORDER BY ordinal) AS place_in_list
FROM chash.nodes WHERE ring = 'priv' ORDER BY node;
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, vnode_first, ketama_variant,
	   ties, version > 0 AS has_version
FROM chash.ring_config WHERE ring = 'priv';
SELECT ring, node, weight, vnodes, zone, state,
	   rank() OVER (ORDER BY ordinal) AS place_in_list
FROM chash.node_config WHERE ring = 'priv' ORDER BY node;

--
-- ... but every change is refused, and the ring stays as it was
--
\set VERBOSITY default
SELECT chash_ring_create('priv_new');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_ring_drop('priv');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_node_add('priv', 'e');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_node_remove('priv', 'a');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_node_set('priv', 'a', weight => 5);
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_ring_copy('priv', 'priv_copy');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
SELECT chash_node_set('priv', 'd', state => 'active');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
-- the privilege is checked before the ring or node is looked for
SELECT chash_ring_drop('priv_nonexistent');
SELECT chash_node_remove('priv', 'nonexistent');
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
-- plain DML and TRUNCATE on the catalog tables
INSERT INTO chash.ring_config (ring) VALUES ('priv_new');
INSERT INTO chash.node_config (ring, node) VALUES ('priv', 'e');
UPDATE chash.ring_config SET vnodes = 10 WHERE ring = 'priv';
UPDATE chash.node_config SET state = 'down' WHERE ring = 'priv';
DELETE FROM chash.node_config WHERE ring = 'priv';
DELETE FROM chash.ring_config WHERE ring = 'priv';
TRUNCATE chash.node_config;
TRUNCATE chash.ring_config CASCADE;
\set VERBOSITY terse
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
-- lookups are as before
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;

-- the writer, too, is refused before it is granted anything
SET ROLE regress_chash_writer;
SELECT chash_ring_create('priv_w');
SELECT chash_node_set('priv', 'd', state => 'active');
SELECT chash_node_set('priv', 'd', capacity => 2);
SELECT chash_node_set('priv', 'd', address => '10.0.0.4:80');
-- an import is refused before its input is read
SELECT chash_ring_import('priv', 'redis_cluster_nodes', 'not a line');
UPDATE chash.node_config SET state = 'active' WHERE ring = 'priv';
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
RESET ROLE;

--
-- Granted write privileges on the catalog tables, the writer can change
-- rings, and lookups see the changes at once
--
GRANT INSERT, UPDATE, DELETE ON chash.ring_config, chash.node_config
	TO regress_chash_writer;
SET ROLE regress_chash_writer;
SELECT current_user;
-- a ring of its own
SELECT chash_ring_create('priv_w', hash => 'murmur3_32', vnodes => 50);
SELECT chash_node_add('priv_w', 'x');
SELECT chash_node_add('priv_w', 'y', 2, zone => 'z1');
SELECT chash_lookup('priv_w', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
SELECT chash_node_set('priv_w', 'y', state => 'down');
SELECT chash_lookup('priv_w', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
SELECT chash_node_remove('priv_w', 'y');
SELECT ring, hash, vnodes, nodes, active_nodes, points
FROM chash.rings WHERE ring = 'priv_w';
-- a copy of it, to plan a change with
SELECT chash_ring_copy('priv_w', 'priv_w2');
SELECT chash_node_add('priv_w2', 'z');
SELECT count(*) > 0 AS moving_ranges, bool_and(to_node = 'z') AS all_to_z
FROM chash_moved_ranges('priv_w', 'priv_w2');
SELECT chash_ring_drop('priv_w2');
SELECT chash_ring_drop('priv_w');
SELECT count(*) AS priv_w_rings FROM chash.ring_config WHERE ring = 'priv_w';
-- the superuser's ring: node d comes back up, through the function
SELECT chash_node_set('priv', 'd', state => 'active');
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
-- ... and goes down again, through plain DML
UPDATE chash.node_config SET state = 'down' WHERE ring = 'priv' AND node = 'd';
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
-- a node added and removed by plain DML
INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('priv', 'e', 500);
SELECT chash_lookup('priv', k) AS node, count(*) AS keys
FROM generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
DELETE FROM chash.node_config WHERE ring = 'priv' AND node = 'e';
-- back where it started
SELECT f::text = :'fingerprint' AS as_at_start FROM regress_chash_fingerprint f;
RESET ROLE;

--
-- Each function needs exactly the privilege of the statement it runs: a
-- role granted only UPDATE on node_config can set nodes, nothing else
--
REVOKE INSERT, UPDATE, DELETE ON chash.ring_config, chash.node_config
	FROM regress_chash_writer;
GRANT UPDATE ON chash.node_config TO regress_chash_writer;
SET ROLE regress_chash_writer;
\set VERBOSITY default
SELECT chash_node_set('priv', 'c', zone => 'eu-central');
SELECT zone FROM chash.node_config WHERE ring = 'priv' AND node = 'c';
SELECT chash_node_set('priv', 'c', zone => 'eu-west');
SELECT chash_node_set('priv', 'c', capacity => 2);
SELECT capacity FROM chash.node_config WHERE ring = 'priv' AND node = 'c';
SELECT chash_node_set('priv', 'c', capacity => 1);
SELECT chash_node_set('priv', 'c', address => '10.0.0.3:80');
SELECT address FROM chash.node_config WHERE ring = 'priv' AND node = 'c';
UPDATE chash.node_config SET address = NULL WHERE ring = 'priv' AND node = 'c';
SELECT chash_node_add('priv', 'e');
SELECT chash_node_remove('priv', 'c');
SELECT chash_ring_create('priv_w');
SELECT chash_ring_drop('priv');
\set VERBOSITY terse
SELECT f::text = :'fingerprint' AS unchanged FROM regress_chash_fingerprint f;
RESET ROLE;
REVOKE UPDATE ON chash.node_config FROM regress_chash_writer;

--
-- The functions name the catalog with qualified names: with an empty
-- search_path, or one without chash, the functions work when called
-- schema-qualified.  A new ring makes them read the catalog, not a cache.
--
SET search_path = '';
SELECT public.chash_ring_create('priv_sp', hash => 'md5', vnodes => 40);
SELECT public.chash_node_add('priv_sp', 'p');
SELECT public.chash_node_add('priv_sp', 'q', 3);
SELECT public.chash_node_add('priv_sp', 'r', vnodes => 7);
SELECT public.chash_node_set('priv_sp', 'r', state => 'down');
SELECT public.chash_node_remove('priv_sp', 'p');
SELECT ring, hash, nodes, active_nodes, points FROM chash.rings
WHERE ring = 'priv_sp';
SET ROLE regress_chash_reader;
SELECT public.chash_lookup('priv_sp', 'k'::text) AS lookup,
	   public.chash_lookup_n('priv_sp', 'k'::text, 1) AS lookup_n,
	   public.chash_position('priv_sp', 'k'::text) AS position,
	   public.chash_hash('md5', 'k'::text) AS hash;
SELECT count(*) AS points FROM public.chash_points('priv_sp');
SELECT node, points FROM chash.nodes WHERE ring = 'priv_sp' ORDER BY node;
RESET ROLE;
SELECT public.chash_node_add('priv_sp', 'p', vnodes => 1);
CREATE SCHEMA regress_chash_other;
SET search_path = regress_chash_other;
SELECT public.chash_lookup('priv_sp', k) AS node, count(*) AS keys
FROM pg_catalog.generate_series(1, 1000) k GROUP BY 1 ORDER BY 1;
SELECT public.chash_ring_drop('priv_sp');
RESET search_path;
DROP SCHEMA regress_chash_other;

--
-- A role cannot attach the catalog's trigger to a table of its own (where
-- it would take the ring-change lock, or read rows it made up)
--
SET ROLE regress_chash_reader;
CREATE TEMP TABLE regress_chash_mine (ring text);
\set VERBOSITY default
CREATE TRIGGER mine BEFORE INSERT ON regress_chash_mine
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
\set VERBOSITY terse
DROP TABLE regress_chash_mine;
RESET ROLE;

--
-- Routing sees exactly what the caller may see of the catalog, whoever
-- built the cached ring: privileges are checked on every resolve, and rings
-- read under row-level security are told apart by their contents
--
CREATE FUNCTION regress_chash_nodes_routed() RETURNS text[]
	LANGUAGE plpgsql AS $$
DECLARE
	nodes text[] := '{}';
	node text;
BEGIN
	FOR k IN 1..1000 LOOP
		node := chash_lookup('priv', k);
		IF NOT node = ANY (nodes) THEN
			nodes := nodes || node;
		END IF;
	END LOOP;
	RETURN ARRAY(SELECT unnest(nodes) ORDER BY 1);
END
$$;
SELECT regress_chash_nodes_routed() AS superuser_routes_to;
SELECT chash_ring_copy('priv', 'priv_copy');
-- an export reads the catalog as any reader does
SELECT chash_ring_create('priv_ng', profile => 'nginx');
SELECT chash_node_add('priv_ng', '10.0.0.1:80'), chash_node_add('priv_ng', '10.0.0.2:80', 2);
SET ROLE regress_chash_reader;
SELECT chash_export('priv_ng');
RESET ROLE;
-- no SELECT on node_config: no routing, no points, no plans, no views,
-- no export
REVOKE SELECT ON chash.node_config FROM PUBLIC;
SET ROLE regress_chash_reader;
\set VERBOSITY default
SELECT chash_export('priv_ng');
SELECT chash_lookup('priv', 'k');
SELECT regress_chash_nodes_routed();
SELECT count(*) FROM chash_points('priv');
SELECT chash_position('priv', 'k');
SELECT count(*) FROM chash_moved_ranges('priv', 'priv_copy');
-- (on 14 the error's context names the functions the views read through)
\set VERBOSITY terse
SELECT * FROM chash.rings WHERE ring = 'priv';
RESET ROLE;
-- the columns routing reads are enough
GRANT SELECT (ring, node, weight, vnodes, state, ordinal, zone, tokens, slots) ON chash.node_config
	TO regress_chash_reader;
SET ROLE regress_chash_reader;
SELECT regress_chash_nodes_routed() AS reader_with_column_grants;
-- (capacity and address are not among them: routing never reads them)
SELECT capacity FROM chash.node_config WHERE ring = 'priv';
SELECT address FROM chash.node_config WHERE ring = 'priv';
-- (an export reads the addresses)
SELECT chash_export('priv_ng');
RESET ROLE;
REVOKE SELECT (ring, node, weight, vnodes, state, ordinal, zone, tokens, slots) ON chash.node_config
	FROM regress_chash_reader;
GRANT SELECT ON chash.node_config TO PUBLIC;
SELECT chash_ring_drop('priv_copy');
SELECT chash_ring_drop('priv_ng');

-- row-level security hides node a from the reader
ALTER TABLE chash.node_config ENABLE ROW LEVEL SECURITY;
CREATE POLICY regress_chash_hide_a ON chash.node_config FOR SELECT TO PUBLIC
	USING (node <> 'a' OR current_user <> 'regress_chash_reader');
SELECT regress_chash_nodes_routed() AS superuser_routes_to;
SET ROLE regress_chash_reader;
SELECT regress_chash_nodes_routed() AS reader_routes_to;
SELECT count(*) FILTER (WHERE node = 'a') AS points_of_a, count(DISTINCT node) AS nodes
FROM chash_points('priv');
SELECT node, points FROM chash.nodes WHERE ring = 'priv' ORDER BY node;
RESET ROLE;
SELECT regress_chash_nodes_routed() AS superuser_again;
-- ... inside a SECURITY DEFINER function, as its owner
CREATE FUNCTION regress_chash_routed_as_owner() RETURNS text[]
	LANGUAGE sql SECURITY DEFINER
	SET search_path = public, pg_catalog
	AS $$ SELECT regress_chash_nodes_routed() $$;
ALTER FUNCTION regress_chash_routed_as_owner() OWNER TO regress_chash_reader;
SELECT regress_chash_routed_as_owner() AS definer_reader_routes_to,
	   regress_chash_nodes_routed() AS caller_routes_to;
-- ... and through one call site, in one snapshot, across SET ROLE
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT regress_chash_nodes_routed() AS superuser;
SET LOCAL ROLE regress_chash_reader;
SELECT regress_chash_nodes_routed() AS then_reader;
RESET ROLE;
SELECT regress_chash_nodes_routed() AS then_superuser;
COMMIT;
DROP FUNCTION regress_chash_routed_as_owner();
DROP POLICY regress_chash_hide_a ON chash.node_config;
ALTER TABLE chash.node_config DISABLE ROW LEVEL SECURITY;
SET ROLE regress_chash_reader;
SELECT regress_chash_nodes_routed() AS reader_without_the_policy;
RESET ROLE;
DROP FUNCTION regress_chash_nodes_routed();

--
-- Clean up: nothing of this test is left
--
DROP VIEW regress_chash_fingerprint;
SELECT chash_ring_drop('priv');
DROP ROLE regress_chash_reader;
DROP ROLE regress_chash_writer;
SELECT count(*) AS priv_rings FROM chash.ring_config WHERE ring LIKE 'priv%';
SELECT count(*) AS priv_nodes FROM chash.node_config WHERE ring LIKE 'priv%';
