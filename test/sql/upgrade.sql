--
-- Upgrading from 1.0: routing goes on between installing the new library
-- and ALTER EXTENSION chash UPDATE, and the update keeps every route.
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

ALTER EXTENSION chash UPDATE;
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

\c :regress_db
DROP DATABASE chash_upgrade;
