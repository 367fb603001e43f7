--
-- Upgrading from 1.0 and 1.1: routing goes on between installing the new
-- library and ALTER EXTENSION chash UPDATE, and each update keeps every
-- route.
--
SELECT current_database() AS regress_db \gset
SET client_min_messages = warning;
DROP DATABASE IF EXISTS chash_upgrade;
RESET client_min_messages;
CREATE DATABASE chash_upgrade;
\c chash_upgrade
SET client_encoding = 'UTF8';
CREATE EXTENSION chash VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'chash';
SELECT chash_ring_create('users');
SELECT chash_node_add('users', n, w) FROM (VALUES ('b', 1), ('a', 2), ('c', 1)) v(n, w);
-- the 1.0 catalog has no ketama_variant, ties nor ordinal: this library
-- reads it as their defaults
CREATE TABLE routes AS
	SELECT k, chash_lookup('users', k) AS node FROM generate_series(1, 10000) k;
SELECT node, count(*) FROM routes GROUP BY node ORDER BY node;
-- rings can be created and changed through the 1.0 functions
SELECT chash_ring_create('cache', hash => 'md5', vnode_name => '{node}-{i}');
SELECT chash_node_add('cache', n) FROM unnest(ARRAY['10.0.1.2', '10.0.1.1']) n;
SELECT chash_node_set('users', 'c', weight => 1);
CREATE TABLE cache_routes AS
	SELECT k, chash_lookup('cache', k) AS node FROM generate_series(1, 10000) k;
-- but not ketama rings: the 1.0 catalog cannot keep their variant and server
-- order, through the functions or plain DML
SELECT chash_ring_create('ketama', algorithm => 'ketama', hash => 'md5', vnode_name => '{node}-{i}');
INSERT INTO chash.ring_config (ring, algorithm, hash) VALUES ('ketama', 'ketama', 'md5');
UPDATE chash.ring_config SET algorithm = 'ketama' WHERE ring = 'cache';

ALTER EXTENSION chash UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'chash';
-- nodes are numbered in the order in which 1.0 broke ties, by name
SELECT ring, node, ordinal FROM chash.node_config ORDER BY ordinal;
SELECT ring, algorithm, ketama_variant, ties FROM chash.rings ORDER BY ring;
-- every route is the same
SELECT count(*) AS keys, count(*) FILTER (WHERE chash_lookup('users', k) = node) AS same
FROM routes;
SELECT count(*) AS keys, count(*) FILTER (WHERE chash_lookup('cache', k) = node) AS same
FROM cache_routes;
-- new nodes are numbered after the old ones
SELECT chash_node_add('users', 'd');
SELECT node, ordinal FROM chash.node_config WHERE ring = 'users' ORDER BY ordinal;
-- and the 1.1 functions work
SELECT chash_ring_create('twem', algorithm => 'ketama', ketama_variant => 'twemproxy',
						 key_hash => 'twemproxy_fnv1a_64');
SELECT ring, hash, key_hash, vnode_name, ketama_variant FROM chash.rings WHERE ring = 'twem';

-- and now ketama rings can be made
SELECT chash_ring_create('ketama', algorithm => 'ketama');
SELECT ring, hash, vnode_name, ketama_variant FROM chash.rings WHERE ring = 'ketama';

-- The 1.1 catalog has no versions: this library reads a ring's
-- configuration on each new snapshot and finds its ring by fingerprint,
-- and the 1.1 trigger functions check changes as 1.1 did
SELECT chash_node_add(r, n) FROM unnest(ARRAY['twem', 'ketama']) r, unnest(ARRAY['s1', 's2']) n;
CREATE TABLE routes_1_1 AS
	SELECT r.ring, k, chash_lookup(r.ring, k) AS node
	FROM chash.ring_config r, generate_series(1, 2000) k;
SELECT * FROM chash.cache_stats();
SELECT chash_node_set('cache', '10.0.1.1', state => 'down');
SELECT DISTINCT chash_lookup('cache', k) AS only_node FROM generate_series(1, 100) k;
SELECT chash_node_set('cache', '10.0.1.1', state => 'active');
SELECT count(*) FILTER (WHERE chash_lookup(ring, k) <> node) AS differ FROM routes_1_1;
SELECT chash_node_add('users', 'huge', 200000);
SELECT rings, bound_rings FROM chash.cache_stats();
-- the views' functions are PARALLEL SAFE in the 1.1 catalog: the library
-- takes no subtransaction there in parallel mode
-- (16 renamed force_parallel_mode debug_parallel_query)
SELECT CASE WHEN current_setting('server_version_num')::int >= 160000
			THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END AS parallel_setting \gset
SET :parallel_setting = on;
SELECT ring, count(*) AS nodes, sum(points) AS points FROM chash.nodes GROUP BY ring ORDER BY ring;
RESET :parallel_setting;
-- The 1.1 trigger functions are executable by PUBLIC: attached by a role
-- to a table of its own, with a transition table of other types and NULL
-- rings, or before its statements, they refuse to run (the library of
-- 1.1 read that table as the catalog and crashed, or took the ring-change
-- lock for the role's transaction)
CREATE ROLE regress_chash_intruder;
SET ROLE regress_chash_intruder;
CREATE TEMP TABLE intruder (ring integer, node bytea);
CREATE TRIGGER intruder_check AFTER INSERT ON intruder REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
INSERT INTO intruder VALUES (NULL, NULL), (42, '\x00');
DROP TRIGGER intruder_check ON intruder;
CREATE TRIGGER intruder_lock BEFORE INSERT ON intruder
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER intruder_invalidate AFTER INSERT ON intruder
	FOR EACH ROW EXECUTE FUNCTION chash.invalidate_cache();
BEGIN;
INSERT INTO intruder VALUES (1, NULL);
ROLLBACK;
DROP TRIGGER intruder_lock ON intruder;
INSERT INTO intruder VALUES (1, NULL);
DROP TABLE intruder;
RESET ROLE;
DROP ROLE regress_chash_intruder;

ALTER EXTENSION chash UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'chash';
-- every route is the same; each ring has a version, and notify off; the
-- triggers are 1.2's, 1.4's check of a node's values and 1.4's notification
SELECT count(*) AS keys, count(*) FILTER (WHERE chash_lookup(ring, k) = node) AS same
FROM routes_1_1;
SELECT ring, version > 0 AS has_version, problem, notify FROM chash.rings ORDER BY ring;
SELECT DISTINCT p.proname AS trigger_function
FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
WHERE t.tgrelid IN ('chash.ring_config'::regclass, 'chash.node_config'::regclass)
	AND NOT t.tgisinternal
ORDER BY 1;
SELECT count(*) AS old_functions FROM pg_proc
WHERE proname IN ('check_ring_size', 'invalidate_cache');
-- removals are checked now, and a change to one ring rebuilds no other
SELECT builds FROM chash.cache_stats() \gset
SELECT chash_node_remove('users', 'd');
SELECT count(*) FILTER (WHERE chash_lookup(ring, k) IS NULL) AS unrouted FROM routes_1_1;
SELECT builds - :builds AS rings_built FROM chash.cache_stats();

-- A version never comes back (they are transaction ids): after DROP and
-- CREATE EXTENSION, this session routes by the new ring of the same name
SELECT chash_lookup('users', 'k') IN ('a', 'b', 'c') AS routed_by_the_old_ring;
SET client_min_messages = warning;
DROP EXTENSION chash CASCADE;
RESET client_min_messages;
CREATE EXTENSION chash;
SELECT chash_ring_create('users');
SELECT chash_node_add('users', 'z');
SELECT chash_lookup('users', 'k') AS routed_by_the_new_ring;

\c :regress_db
DROP DATABASE chash_upgrade;
