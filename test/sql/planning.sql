--
-- Planning a change: copies of rings, the ranges and keys that move, the
-- summary, and migration plans run against local tables standing in for
-- the shards (test/scripts/migrate_*.sh run them between real servers).
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (3.9 CPU-seconds with JIT, 2.9 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;
SET client_encoding = 'UTF8';

-- The owner of a position of a 32-bit ring, from the points alone (in
-- chash_points' order, which breaks ties): the reference lookup
CREATE FUNCTION owner_at(ring text, pos bigint) RETURNS text
	LANGUAGE sql STABLE
	AS $$
	SELECT coalesce(
		(SELECT node FROM chash_points(ring) WITH ORDINALITY p
		 WHERE CASE WHEN (SELECT ketama_variant FROM chash.rings WHERE rings.ring = owner_at.ring) = 'uhashring'
					THEN p.point > pos ELSE p.point >= pos END
		 ORDER BY p.ordinality LIMIT 1),
		(SELECT node FROM chash_points(ring) WITH ORDINALITY p ORDER BY p.ordinality LIMIT 1))
$$;

--
-- chash_ring_copy: the same settings, nodes, order and targets
--
SELECT chash_ring_create('r4', hash => 'murmur3_32', vnodes => 50);
SELECT chash_node_add('r4', 'shard' || i, weight => i, target => 's' || i)
FROM generate_series(1, 4) i;
SELECT chash_node_set('r4', 'shard3', zone => 'eu-west');
SELECT chash_ring_copy('r4', 'r5');
SELECT r.ring, r.algorithm, r.hash, r.key_hash, r.vnodes, r.vnode_name, r.points
FROM chash.rings r WHERE r.ring IN ('r4', 'r5') ORDER BY r.ring;
SELECT count(*) AS nodes,
	   count(*) FILTER (WHERE (a.weight, a.vnodes, a.zone, a.state, a.ordinal, a.target)
							  IS NOT DISTINCT FROM (b.weight, b.vnodes, b.zone, b.state, b.ordinal, b.target)) AS same
FROM chash.nodes a JOIN chash.nodes b USING (node)
WHERE a.ring = 'r4' AND b.ring = 'r5';
SELECT count(*) AS points, count(*) FILTER (WHERE a.point = b.point AND a.node = b.node) AS same
FROM chash_points('r4') WITH ORDINALITY a(point, node, vnode, n)
JOIN chash_points('r5') WITH ORDINALITY b(point, node, vnode, n) USING (n);
-- copies are independent
SELECT chash_node_add('r5', 'shard5', weight => 2, target => 's5');
SELECT ring, count(*) FROM chash.node_config WHERE ring IN ('r4', 'r5') GROUP BY ring ORDER BY ring;

--
-- chash_moved_ranges: adding a node moves only ranges onto it
--
CREATE TABLE keys AS SELECT i AS id, 'user:' || i AS name FROM generate_series(1, 20000) i;
SELECT count(*) AS ranges, count(DISTINCT from_node) AS from_nodes,
	   array_agg(DISTINCT to_node) AS to_nodes, bool_and(lo <= hi) AS lo_le_hi,
	   round(sum(fraction)::numeric, 4) AS fraction
FROM chash_moved_ranges('r4', 'r5');
-- ordered, disjoint, and each really moves (the reference owner at both ends)
SELECT bool_and(lo > coalesce(prev_hi, -1)) AS ordered_disjoint,
	   bool_and(owner_at('r4', lo) = from_node AND owner_at('r4', hi) = from_node) AS from_owner,
	   bool_and(owner_at('r5', lo) = to_node AND owner_at('r5', hi) = to_node) AS to_owner,
	   bool_and(from_node <> to_node) AS moving
FROM (SELECT r.*, lag(hi) OVER (ORDER BY lo) AS prev_hi FROM chash_moved_ranges('r4', 'r5') r) s;
-- all ranges (moved or not) tile the space and change owners at each
-- border; owners change only just after a point, and after every point
-- inside a range they are still the range's
SELECT min(lo) = 0 AS starts_at_0, max(hi) = 4294967295 AS ends_at_max,
	   bool_and(lo = coalesce(prev_hi + 1, 0)) AS contiguous,
	   bool_and(prev_pair IS DISTINCT FROM (from_node, to_node)) AS merged,
	   round(sum(fraction)::numeric, 12) AS fraction,
	   bool_and(owner_at('r4', lo) = from_node AND owner_at('r4', hi) = from_node AND
				owner_at('r5', lo) = to_node AND owner_at('r5', hi) = to_node) AS owners,
	   bool_and(NOT EXISTS (SELECT 1
							FROM (SELECT point FROM chash_points('r4')
								  UNION SELECT point FROM chash_points('r5')) p
							WHERE p.point >= lo AND p.point < hi
							  AND (owner_at('r4', p.point + 1) <> from_node OR
								   owner_at('r5', p.point + 1) <> to_node))) AS constant
FROM (SELECT r.*, lag(hi) OVER (ORDER BY lo) AS prev_hi,
			 lag((from_node, to_node)) OVER (ORDER BY lo) AS prev_pair
	  FROM chash.ring_ranges('r4', 'r5') r) s;
-- the keys the ranges select are exactly the keys that move
CREATE TABLE moved_reference AS
	SELECT id FROM keys k WHERE chash_lookup('r4', k.id) <> chash_lookup('r5', k.id);
CREATE TABLE moved_by_ranges AS
	SELECT id FROM keys k
	WHERE EXISTS (SELECT 1 FROM chash_moved_ranges('r4', 'r5') r
				  WHERE chash_position('r4', k.id) BETWEEN r.lo AND r.hi);
CREATE TABLE moved_by_keys AS
	SELECT key AS id FROM chash_moved_keys('r4', 'r5', 'keys', 'id')
		AS m(key integer, from_node text, to_node text);
SELECT (SELECT count(*) FROM moved_reference) AS reference,
	   (SELECT count(*) FROM (SELECT id FROM moved_reference EXCEPT SELECT id FROM moved_by_ranges
							  UNION ALL
							  SELECT id FROM moved_by_ranges EXCEPT SELECT id FROM moved_reference) d) AS ranges_differ,
	   (SELECT count(*) FROM (SELECT id FROM moved_reference EXCEPT SELECT id FROM moved_by_keys
							  UNION ALL
							  SELECT id FROM moved_by_keys EXCEPT SELECT id FROM moved_reference) d) AS keys_differ;
DROP TABLE moved_reference, moved_by_ranges, moved_by_keys;
-- moved keys come with their owners, typed as the column
SELECT m.key, m.from_node, m.to_node, pg_typeof(m.key) AS type,
	   m.from_node = chash_lookup('r4', m.key) AND m.to_node = chash_lookup('r5', m.key) AS owners
FROM chash_moved_keys('r4', 'r5', 'keys', 'id') AS m(key integer, from_node text, to_node text)
ORDER BY m.key LIMIT 5;
SELECT count(*) AS moved_names
FROM chash_moved_keys('r4', 'r5', 'keys', 'name') AS m(key text, from_node text, to_node text);

-- the summary: the fractions of every pair, and the keys when given a table
SELECT from_node, to_node, round(fraction::numeric, 4) AS fraction, keys
FROM chash_move_summary('r4', 'r5');
SELECT from_node, to_node, round(fraction::numeric, 4) AS fraction, keys
FROM chash_move_summary('r4', 'r5', 'keys', 'id');
SELECT round(sum(fraction)::numeric, 12) AS all_fractions, sum(keys) AS all_keys
FROM chash_move_summary('r4', 'r5', 'keys', 'id');

-- keys given as an array, typed as its elements; bytea keys as their bytes
SELECT * FROM chash_moved_keys('r4', 'r5', ARRAY(SELECT id FROM keys ORDER BY id LIMIT 40)) ORDER BY key;
SELECT (SELECT count(*) FROM chash_moved_keys('r4', 'r5', ARRAY(SELECT name FROM keys))) AS text_keys,
	   (SELECT count(*) FROM chash_moved_keys('r4', 'r5', ARRAY(SELECT convert_to(name, 'UTF8') FROM keys))) AS bytea_keys,
	   (SELECT count(*) FROM chash_moved_keys('r4', 'r5', ARRAY(SELECT id::bigint FROM keys))) AS bigint_keys;

-- removing a node moves its ranges, and only them, to the others
SELECT chash_ring_copy('r5', 'r5b');
SELECT chash_node_remove('r5b', 'shard2');
SELECT array_agg(DISTINCT from_node) AS from_nodes, bool_and(to_node <> 'shard2') AS none_to_removed,
	   round(sum(fraction)::numeric, 12) = round((SELECT sum(fraction) FROM chash.ring_ranges('r5', 'r5b') WHERE from_node = 'shard2')::numeric, 12) AS all_of_it
FROM chash_moved_ranges('r5', 'r5b');

-- 64-bit positions: ranges in chash_position (signed) order, the upper
-- half of the unsigned space first
SELECT chash_ring_create('x4');
SELECT chash_node_add('x4', 'n' || i) FROM generate_series(1, 4) i;
SELECT chash_ring_copy('x4', 'x5');
SELECT chash_node_add('x5', 'n5');
SELECT bool_and(lo <= hi) AS lo_le_hi, bool_and(prev_hi IS NULL OR lo > prev_hi) AS ordered,
	   bool_or(lo < 0) AND bool_or(hi > 0) AS both_halves, array_agg(DISTINCT to_node) AS to_nodes
FROM (SELECT r.*, lag(hi) OVER (ORDER BY lo) AS prev_hi FROM chash_moved_ranges('x4', 'x5') r) s;
-- (neighbours in signed order, -1 and 0 included, are of different pairs)
SELECT min(lo) = -9223372036854775808 AS starts_at_min, max(hi) = 9223372036854775807 AS ends_at_max,
	   bool_and(lo = coalesce(prev_hi + 1, lo)) AS contiguous,
	   bool_and(prev_pair IS DISTINCT FROM (from_node, to_node)) AS merged,
	   round(sum(fraction)::numeric, 12) AS fraction
FROM (SELECT r.*, lag(hi) OVER (ORDER BY lo) AS prev_hi,
			 lag((from_node, to_node)) OVER (ORDER BY lo) AS prev_pair
	  FROM chash.ring_ranges('x4', 'x5') r) s;
-- a range around 0 is one row
SELECT count(*) AS ranges_around_0 FROM chash.ring_ranges('x4', 'x5') WHERE lo <= -1 AND hi >= 0;
SELECT (SELECT count(*) FROM keys k
		WHERE EXISTS (SELECT 1 FROM chash_moved_ranges('x4', 'x5') r
					  WHERE chash_position('x4', k.name) BETWEEN r.lo AND r.hi)) AS in_ranges,
	   (SELECT count(*) FROM chash_moved_keys('x4', 'x5', 'keys', 'name')
			AS m(key text, from_node text, to_node text)) AS moved_keys;

-- a ketama ring whose keys belong to the point after them (uhashring), and
-- a weight change in a libmemcached ring, which moves keys between old nodes
SELECT chash_ring_create('u3', algorithm => 'ketama', ketama_variant => 'uhashring');
SELECT chash_node_add('u3', 'a', 1), chash_node_add('u3', 'b', 2), chash_node_add('u3', 'c', 1);
SELECT chash_ring_copy('u3', 'u4');
SELECT chash_node_add('u4', 'd', 3);
SELECT chash_ring_create('m3', algorithm => 'ketama');
SELECT chash_node_add('m3', 'a', 1), chash_node_add('m3', 'b', 2), chash_node_add('m3', 'c', 1);
SELECT chash_ring_copy('m3', 'm3w');
SELECT chash_node_set('m3w', 'b', weight => 3);
SELECT f AS from_ring, t AS to_ring,
	   (SELECT count(*) FROM keys k
		WHERE EXISTS (SELECT 1 FROM chash_moved_ranges(f, t) r
					  WHERE chash_position(f, k.name) BETWEEN r.lo AND r.hi)) AS in_ranges,
	   (SELECT count(*) FROM keys k WHERE chash_lookup(f, k.name) <> chash_lookup(t, k.name)) AS reference,
	   (SELECT bool_and(owner_at(f, lo) = from_node AND owner_at(f, hi) = from_node AND
						owner_at(t, lo) = to_node AND owner_at(t, hi) = to_node)
		FROM chash_moved_ranges(f, t)) AS owners,
	   (SELECT count(DISTINCT (from_node, to_node)) FROM chash_moved_ranges(f, t)) AS pairs
FROM (VALUES ('u3', 'u4'), ('m3', 'm3w')) v(f, t);
-- a key exactly on a point of a uhashring ring goes to the next point
SELECT count(*) AS keys_on_points,
	   count(*) FILTER (WHERE chash_lookup('u3', k) <> chash_lookup('u4', k)) AS moved,
	   count(*) FILTER (WHERE (chash_lookup('u3', k) <> chash_lookup('u4', k)) <>
						EXISTS (SELECT 1 FROM chash_moved_ranges('u3', 'u4') r
								WHERE chash_position('u3', k) BETWEEN r.lo AND r.hi)) AS ranges_disagree
FROM (SELECT regexp_replace(vnode, '\[0\]$', '') AS k FROM chash_points('u4') WHERE vnode LIKE '%[0]') s;

--
-- Migration plans, run here against local tables that stand for shards
--
CREATE SCHEMA s1;
CREATE SCHEMA s2;
CREATE SCHEMA s3;
CREATE SCHEMA s4;
CREATE SCHEMA s5;
CREATE TABLE s1.keys (id integer PRIMARY KEY, name text);
CREATE TABLE s2.keys (LIKE s1.keys INCLUDING ALL);
CREATE TABLE s3.keys (LIKE s1.keys INCLUDING ALL);
CREATE TABLE s4.keys (LIKE s1.keys INCLUDING ALL);
-- (no primary key here, so that a stray copy can go unnoticed but for the
-- check; and the columns in another order)
CREATE TABLE s5.keys (name text, id integer);
CREATE VIEW shards AS
	SELECT 'shard1' AS shard, * FROM s1.keys UNION ALL SELECT 'shard2', * FROM s2.keys
	UNION ALL SELECT 'shard3', * FROM s3.keys UNION ALL SELECT 'shard4', * FROM s4.keys
	UNION ALL SELECT 'shard5', id, name FROM s5.keys;
INSERT INTO s1.keys SELECT * FROM keys WHERE chash_lookup('r4', id) = 'shard1';
INSERT INTO s2.keys SELECT * FROM keys WHERE chash_lookup('r4', id) = 'shard2';
INSERT INTO s3.keys SELECT * FROM keys WHERE chash_lookup('r4', id) = 'shard3';
INSERT INTO s4.keys SELECT * FROM keys WHERE chash_lookup('r4', id) = 'shard4';
SELECT shard, count(*) FROM shards GROUP BY shard ORDER BY shard;
-- the plan's first lines
SELECT * FROM chash_migration_sql('r4', 'r5', 'keys', 'id') LIMIT 3;
SELECT count(*) FILTER (WHERE s = 'BEGIN;') AS copy_transactions,
	   count(*) FILTER (WHERE s = 'BEGIN ISOLATION LEVEL REPEATABLE READ;') AS check_transactions,
	   count(*) FILTER (WHERE s = 'SET LOCAL search_path = pg_catalog, pg_temp;') AS pinned,
	   count(*) FILTER (WHERE s LIKE 'INSERT INTO s5.keys (id, name) SELECT id, name FROM s_.keys t WHERE % AND NOT EXISTS %') AS copies,
	   count(*) FILTER (WHERE s LIKE 'DO $chash$%moved_sum%') AS checks,
	   count(*) FILTER (WHERE s LIKE 'DELETE FROM s_.keys t WHERE public.chash_hash(%) OPERATOR(pg_catalog.<@) ANY (%::pg_catalog.int8range[]);') AS deletes
FROM chash_migration_sql('r4', 'r5', 'keys', 'id') s;
-- a stray row in a range that moves to shard5, a key that is there with
-- other contents: its batch's check fails and nothing of that batch is
-- deleted; the rows it copied stay copied (the plan runs with \gexec,
-- quietly)
INSERT INTO s5.keys (id, name)
	SELECT id, name || ' (stale)' FROM keys
	WHERE chash_lookup('r4', id) = 'shard1' AND chash_lookup('r5', id) = 'shard5'
	ORDER BY id LIMIT 1;
\set VERBOSITY terse
\set ECHO none
SELECT s FROM chash_migration_sql('r4', 'r5', 'keys', 'id') s \gexec
\set ECHO all
\set VERBOSITY default
SELECT (SELECT count(*) FROM shards) AS rows,
	   (SELECT count(*) FROM keys k WHERE NOT EXISTS (SELECT 1 FROM shards s WHERE s.id = k.id)) AS lost,
	   (SELECT count(*) FROM keys k JOIN shards s ON s.id = k.id AND s.shard = chash_lookup('r4', k.id)
		WHERE chash_lookup('r5', k.id) = 'shard5' AND chash_lookup('r4', k.id) = 'shard1') AS shard1_rows_kept,
	   (SELECT count(*) FROM s5.keys s JOIN s1.keys USING (id, name)) AS copied_too;
-- without the stray row, the plan run again copies the rows not yet copied
-- (no second copy of the others), and moves every row once, to where r5 says;
-- operators and functions planted where the session looks first change
-- nothing (the plan's statements pin search_path)
DELETE FROM s5.keys t WHERE t.name LIKE '% (stale)';
CREATE SCHEMA planted;
CREATE FUNCTION planted.always(bigint, int8range) RETURNS boolean
	LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR planted.<@ (LEFTARG = bigint, RIGHTARG = int8range, FUNCTION = planted.always);
CREATE FUNCTION planted.hashtextextended(text, integer) RETURNS bigint
	LANGUAGE sql AS 'SELECT 0::bigint';
SET search_path = planted, public, pg_catalog;
\set ECHO none
\set VERBOSITY terse
SELECT s FROM chash_migration_sql('r4', 'r5', 'keys', 'id') s \gexec
\set VERBOSITY default
\set ECHO all
SELECT count(*) AS rows, count(DISTINCT id) AS ids,
	   count(*) FILTER (WHERE shard = chash_lookup('r5', id)) AS on_their_node,
	   count(*) FILTER (WHERE shard = 'shard5') AS moved,
	   (SELECT count(*) FROM keys k JOIN shards s USING (id, name)) AS unchanged
FROM shards;
RESET search_path;
DROP SCHEMA planted CASCADE;
-- run again, the plan finds nothing left to move and changes nothing
\set ECHO none
\set VERBOSITY terse
SELECT s FROM chash_migration_sql('r4', 'r5', 'keys', 'id') s \gexec
\set VERBOSITY default
\set ECHO all
SELECT count(*) AS rows, count(DISTINCT id) AS ids, count(*) FILTER (WHERE shard = 'shard5') AS on_shard5
FROM shards;

-- two nodes whose rows live in one table: nothing to copy, nothing deleted
SELECT chash_ring_copy('r5', 'r5s');
SELECT chash_node_add('r5s', 'shard1b', target => 's1');
SELECT s FROM chash_migration_sql('r5', 'r5s', 'keys', 'id') s WHERE s LIKE '--%';
\set ECHO none
\set VERBOSITY terse
SELECT s FROM chash_migration_sql('r5', 'r5s', 'keys', 'id') s \gexec
\set VERBOSITY default
\set ECHO all
SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM shards;
-- a plan whose rings have changed since it was made stops at its first statement
CREATE TABLE plan AS SELECT n, s FROM chash_migration_sql('r5', 'r5s', 'keys', 'id') WITH ORDINALITY p(s, n);
SELECT chash_node_set('r5s', 'shard1b', weight => 2);
SELECT s FROM plan WHERE n = 2 \gexec
DROP TABLE plan;

-- the MySQL dialect: CRC32() and MD5() where they are the key hash, else key lists
SELECT chash_ring_create('c2', hash => 'crc32');
SELECT chash_node_add('c2', n, target => 'db_' || n || '.keys') FROM unnest(ARRAY['a', 'b']) n;
SELECT chash_ring_copy('c2', 'c3');
SELECT chash_node_add('c3', 'c', target => 'db_c');
SELECT left(s, 240) FROM chash_migration_sql('c2', 'c3', 'keys', 'id', 'mysql') s LIMIT 4;
UPDATE chash.node_config SET target = 'db_' || node WHERE ring IN ('m3', 'm3w');
SELECT left(s, 400) FROM chash_migration_sql('m3', 'm3w', 'keys', 'name', 'mysql') s LIMIT 1;
SELECT left(s, 240) FROM chash_migration_sql('r4', 'r5', 'keys', 'name', 'mysql') s LIMIT 4;

--
-- Bad plans: clear errors
--
\set VERBOSITY default
SELECT * FROM chash_moved_ranges('r4', 'r4');
SELECT * FROM chash_moved_ranges('r4', 'nope');
SELECT * FROM chash_moved_ranges('r4', 'x5');
SELECT * FROM chash_move_summary('nope', 'r5');
-- (PL/pgSQL numbers the line of this error's context differently before 15)
\set VERBOSITY terse
SELECT * FROM chash_moved_keys('r4', 'r5', 'keys', 'nope') AS m(key integer, from_node text, to_node text);
\set VERBOSITY default
-- (PostgreSQL's DETAIL of this error is worded differently from 18 on)
\set VERBOSITY terse
SELECT * FROM chash_moved_keys('r4', 'r5', 'keys', 'id') AS m(key bigint, from_node text, to_node text);
\set VERBOSITY default
SELECT * FROM chash_moved_keys('r4', 'r5', 'no_such_table', 'id') AS m(key bigint, from_node text, to_node text);
SELECT * FROM chash_moved_keys('r4', NULL, ARRAY[1]);
SELECT * FROM chash_migration_sql('r4', 'r5', 'keys', 'id', 'oracle');
SELECT * FROM chash_migration_sql('r4', 'r5', 'keys', 'id', NULL);
SELECT chash_node_set('r5', 'shard5', target => NULL);
UPDATE chash.node_config SET target = NULL WHERE ring = 'r5' AND node = 'shard5';
SELECT * FROM chash_migration_sql('r4', 'r5', 'keys', 'id');
SELECT chash_ring_create('empty', hash => 'murmur3_32');
SELECT * FROM chash_moved_ranges('r4', 'empty');
SELECT chash_ring_copy('nope', 'r6');
SELECT chash_ring_copy('r4', 'r5');
SELECT chash_ring_copy('r4', repeat('x', 64));
SELECT chash_ring_copy('r4', NULL);

SELECT count(chash_ring_drop(ring)) FROM chash.ring_config;
DROP VIEW shards;
DROP SCHEMA s1, s2, s3, s4, s5 CASCADE;
DROP TABLE keys;
DROP FUNCTION owner_at(text, bigint);
