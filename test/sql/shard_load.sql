--
-- chash_shard_load: chash_load read from each node's target (a local or
-- foreign table), rows counted by the unit the ring places their keys in
--
\set VERBOSITY terse
CREATE TABLE sl_rows (id bigint, tenant text, payload text);
INSERT INTO sl_rows
SELECT i, '{tenant' || (i % 23) || '}:' || i, repeat('x', i % 50) FROM generate_series(1, 6000) i;

-- a ring of points: two nodes in schemas holding table items, one in a
-- schema-qualified table of another name
SELECT chash_ring_create('sl_ring', vnodes => 20);
SELECT chash_node_add('sl_ring', 'n1', target => 'sl_s1');
SELECT chash_node_add('sl_ring', 'n2', target => 'sl_s2');
SELECT chash_node_add('sl_ring', 'n3', target => 'sl_s3.items_n3');
CREATE SCHEMA sl_s1;
CREATE SCHEMA sl_s2;
CREATE SCHEMA sl_s3;
CREATE TABLE sl_s1.items (LIKE sl_rows);
CREATE TABLE sl_s2.items (LIKE sl_rows);
CREATE TABLE sl_s3.items_n3 (LIKE sl_rows);
INSERT INTO sl_s1.items SELECT * FROM sl_rows WHERE chash_lookup('sl_ring', id) = 'n1';
INSERT INTO sl_s2.items SELECT * FROM sl_rows WHERE chash_lookup('sl_ring', id) = 'n2';
INSERT INTO sl_s3.items_n3 SELECT * FROM sl_rows WHERE chash_lookup('sl_ring', id) = 'n3';
-- and a row on n2 that the ring places on another node, a NULL key too
INSERT INTO sl_s2.items
SELECT i, 'misplaced', 'here' FROM generate_series(6001::bigint, 6100) i
WHERE chash_lookup('sl_ring', i) <> 'n2' ORDER BY i LIMIT 1;
INSERT INTO sl_s1.items VALUES (NULL, NULL, 'no key');
SELECT count(*) AS misplaced_on_n2 FROM sl_s2.items WHERE chash_lookup('sl_ring', id) <> 'n2';
-- all the rows in one table, for chash_load
CREATE TABLE sl_union AS
SELECT * FROM sl_s1.items UNION ALL SELECT * FROM sl_s2.items UNION ALL SELECT * FROM sl_s3.items_n3;

-- the load read from the shards is chash_load's over all their rows; the
-- misplaced row counts where the ring places it, and a NOTICE names its
-- table; with cost rows no bytes are read
SELECT count(*) AS units, sum(rows) AS rows, count(bytes) AS bytes_read,
	   bool_and(load = rows) AS load_is_rows, bool_and(rows_error = 0) AS exact
FROM chash_shard_load('sl_ring', 'id', relname => 'items');
SELECT (SELECT array_agg(ROW(s.unit, s.node, s.rows, s.load, s.rows_error) ORDER BY s.unit)
		FROM chash_shard_load('sl_ring', 'id', relname => 'items') s) =
	   (SELECT array_agg(ROW(l.unit, l.node, l.rows, l.load, l.rows_error) ORDER BY l.unit)
		FROM chash_load('sl_ring', 'sl_union', 'id') l) AS rows_as_chash_load;
SELECT count(*) AS units, sum(bytes) > sum(rows) AS has_bytes,
	   bool_and(load = bytes) AS load_is_bytes, bool_and(bytes_error = 0) AS exact
FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items');
SELECT (SELECT array_agg(s ORDER BY s.unit) FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items') s) =
	   (SELECT array_agg(l ORDER BY l.unit) FROM chash_load('sl_ring', 'sl_union', 'id', 'bytes') l) AS bytes_as_chash_load;
-- per node, the rows the ring places there wherever they are
SET client_min_messages = warning;
SELECT s.node, sum(s.rows) AS rows,
	   sum(s.rows) = (SELECT count(*) FROM sl_union u WHERE chash_lookup('sl_ring', u.id) = s.node) AS by_the_ring
FROM chash_shard_load('sl_ring', 'id', relname => 'items') s GROUP BY s.node ORDER BY s.node;

-- a sample of local targets: each node's estimate within four standard
-- errors of the truth, the same rows on every call
WITH est AS (
	SELECT s.node, sum(s.rows) AS rows, sqrt(sum(s.rows_error ^ 2)) AS err,
		   sum(s.bytes) AS bytes, sqrt(sum(s.bytes_error ^ 2)) AS bytes_err
	FROM chash_shard_load('sl_ring', 'id', 'bytes', sample => 0.2, relname => 'items') s GROUP BY s.node),
truth AS (
	SELECT s.node, sum(s.rows) AS rows, sum(s.bytes) AS bytes
	FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items') s GROUP BY s.node)
SELECT e.node, e.err > 0 AS has_error,
	   abs(e.rows - t.rows) <= 4 * e.err AS rows_within,
	   abs(e.bytes - t.bytes) <= 4 * e.bytes_err AS bytes_within
FROM est e JOIN truth t USING (node) ORDER BY e.node;
SELECT (SELECT array_agg(rows ORDER BY unit) FROM chash_shard_load('sl_ring', 'id', sample => 0.1, relname => 'items')) =
	   (SELECT array_agg(rows ORDER BY unit) FROM chash_shard_load('sl_ring', 'id', sample => 0.1, relname => 'items')) AS repeatable;
SELECT sum(rows) AS rows, sum(rows_error) AS rows_error
FROM chash_shard_load('sl_ring', 'id', sample => 1, relname => 'items');
RESET client_min_messages;

-- a slot ring keyed by text with hash tags, nothing misplaced: no NOTICE
SELECT chash_ring_create('sl_slots', profile => 'redis_cluster');
SELECT chash_node_add('sl_slots', 'm' || i, target => 'sl_m' || i) FROM generate_series(1, 3) i;
CREATE SCHEMA sl_m1;
CREATE SCHEMA sl_m2;
CREATE SCHEMA sl_m3;
CREATE TABLE sl_m1.sessions (LIKE sl_rows);
CREATE TABLE sl_m2.sessions (LIKE sl_rows);
CREATE TABLE sl_m3.sessions (LIKE sl_rows);
INSERT INTO sl_m1.sessions SELECT * FROM sl_rows WHERE chash_lookup('sl_slots', tenant) = 'm1';
INSERT INTO sl_m2.sessions SELECT * FROM sl_rows WHERE chash_lookup('sl_slots', tenant) = 'm2';
INSERT INTO sl_m3.sessions SELECT * FROM sl_rows WHERE chash_lookup('sl_slots', tenant) = 'm3';
SELECT count(*) AS slots, count(*) FILTER (WHERE rows > 0) AS slots_with_rows, sum(rows) AS rows,
	   (SELECT array_agg(s ORDER BY s.unit) FROM chash_shard_load('sl_slots', 'tenant', 'bytes', relname => 'sessions') s) =
	   (SELECT array_agg(l ORDER BY l.unit) FROM chash_load('sl_slots', 'sl_rows', 'tenant', 'bytes') l) AS as_chash_load
FROM chash_shard_load('sl_slots', 'tenant', relname => 'sessions');

-- nodes that share a table: it is read once, and its rows are misplaced
-- only where the ring gives them to neither
SELECT chash_ring_create('sl_shared', vnodes => 20);
SELECT chash_node_add('sl_shared', 'a', target => 'sl_s1.items');
SELECT chash_node_add('sl_shared', 'b', target => 'sl_s1');
SELECT chash_node_add('sl_shared', 'c', target => 'sl_s2.items');
SELECT count(*) FILTER (WHERE chash_lookup('sl_shared', id) NOT IN ('a', 'b')) AS misplaced_in_s1,
	   count(*) FILTER (WHERE chash_lookup('sl_shared', id) IS NOT NULL) AS keys_in_s1
FROM sl_s1.items;
SELECT count(*) FILTER (WHERE chash_lookup('sl_shared', id) <> 'c') AS misplaced_in_s2, count(*) AS keys_in_s2
FROM sl_s2.items;
SELECT sum(rows) AS rows FROM chash_shard_load('sl_shared', 'id', relname => 'items');

-- foreign targets: a loopback postgres_fdw server in this database
CREATE EXTENSION postgres_fdw;
DO $$
BEGIN
	EXECUTE format('CREATE SERVER sl_loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L)',
				   split_part(current_setting('unix_socket_directories'), ',', 1),
				   current_setting('port'), current_database());
END
$$;
CREATE USER MAPPING FOR CURRENT_USER SERVER sl_loop;
-- a view of the shard's table whose columns but the key cannot be read:
-- reading one raises an error on the shard (IMMUTABLE, so that a column
-- not asked for is not computed)
CREATE FUNCTION sl_s2.not_read(payload text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RAISE EXCEPTION 'a column other than the key was read';
END
$$;
CREATE VIEW sl_s2.items_key AS
	SELECT id, sl_s2.not_read(tenant) AS tenant, sl_s2.not_read(payload) AS payload FROM sl_s2.items;
CREATE SCHEMA sl_f2;
CREATE SCHEMA sl_fk;
CREATE FOREIGN TABLE sl_f2.items (id bigint, tenant text, payload text)
	SERVER sl_loop OPTIONS (schema_name 'sl_s2', table_name 'items');
CREATE FOREIGN TABLE sl_fk.items (id bigint, tenant text, payload text)
	SERVER sl_loop OPTIONS (schema_name 'sl_s2', table_name 'items_key');
SELECT chash_node_set('sl_ring', 'n2', target => 'sl_f2');
-- the same load, bytes included (the rows' sizes as fetched)
SELECT (SELECT array_agg(s ORDER BY s.unit) FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items') s) =
	   (SELECT array_agg(l ORDER BY l.unit) FROM chash_load('sl_ring', 'sl_union', 'id', 'bytes') l) AS foreign_as_chash_load;
-- by rows, only the key column crosses: the view that lets nothing else
-- be read suffices; by bytes, it does not
SELECT chash_node_set('sl_ring', 'n2', target => 'sl_fk.items');
SELECT (SELECT array_agg(ROW(s.unit, s.node, s.rows, s.load, s.rows_error) ORDER BY s.unit)
		FROM chash_shard_load('sl_ring', 'id', relname => 'items') s) =
	   (SELECT array_agg(ROW(l.unit, l.node, l.rows, l.load, l.rows_error) ORDER BY l.unit)
		FROM chash_load('sl_ring', 'sl_union', 'id') l) AS key_only_as_chash_load;
-- (the shard's own error, as postgres_fdw reports it)
SELECT count(*) FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items');
-- foreign tables are not sampled
SELECT count(*) FROM chash_shard_load('sl_ring', 'id', sample => 0.5, relname => 'items');

\set VERBOSITY default
-- the caller's own rights: USAGE on each target's schema, SELECT on its
-- key column (with cost bytes, on every column)
SELECT chash_node_set('sl_ring', 'n2', target => 'sl_s2');
CREATE ROLE regress_chash_sl_nobody;
SET ROLE regress_chash_sl_nobody;
SELECT count(*) FROM chash_shard_load('sl_ring', 'id', relname => 'items');
RESET ROLE;
GRANT USAGE ON SCHEMA sl_s1, sl_s2, sl_s3 TO regress_chash_sl_nobody;
SET ROLE regress_chash_sl_nobody;
SELECT count(*) FROM chash_shard_load('sl_ring', 'id', relname => 'items');
RESET ROLE;
GRANT SELECT (id) ON sl_s1.items, sl_s2.items, sl_s3.items_n3 TO regress_chash_sl_nobody;
SET ROLE regress_chash_sl_nobody;
SELECT sum(rows) AS rows FROM chash_shard_load('sl_ring', 'id', relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_ring', 'id', 'bytes', relname => 'items');
RESET ROLE;

-- refusals
SELECT chash_ring_create('sl_bad', vnodes => 5);
SELECT chash_node_add('sl_bad', 'b1', target => 'sl_s1');
SELECT chash_node_add('sl_bad', 'b2');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'items');
SELECT chash_node_set('sl_bad', 'b2', target => 'sl_nowhere');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'items');
SELECT chash_node_set('sl_bad', 'b2', target => 'sl_s1.nothing');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'items');
SELECT chash_node_set('sl_bad', 'b2', target => 'a.b.c');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'items');
SELECT chash_node_set('sl_bad', 'b2', target => 'a"b');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'items');
SELECT chash_node_set('sl_bad', 'b2', target => 'sl_s2');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id');
SELECT count(*) FROM chash_shard_load('sl_bad', 'nope', relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', 'disk', relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', sample => 0, relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', sample => 'NaN', relname => 'items');
SELECT count(*) FROM chash_shard_load(NULL, 'id', relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_bad', NULL, relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', NULL, relname => 'items');
SELECT count(*) FROM chash_shard_load('sl_none', 'id', relname => 'items');
SELECT chash_ring_create('sl_jump', algorithm => 'jump');
SELECT chash_node_add('sl_jump', 'j1', target => 'sl_s1');
SELECT count(*) FROM chash_shard_load('sl_jump', 'id', relname => 'items');
SELECT chash_ring_create('sl_empty');
SELECT count(*) FROM chash_shard_load('sl_empty', 'id', relname => 'items');
CREATE TABLE sl_s1.times (id timestamptz);
CREATE TABLE sl_s2.times (id timestamptz);
SELECT count(*) FROM chash_shard_load('sl_bad', 'id', relname => 'times');
-- nothing changed
SELECT ring, node, target FROM chash.node_config WHERE ring = 'sl_bad' ORDER BY node;

SET client_min_messages = warning;
DROP EXTENSION postgres_fdw CASCADE;
DROP SCHEMA sl_s1, sl_s2, sl_s3, sl_m1, sl_m2, sl_m3, sl_f2, sl_fk CASCADE;
RESET client_min_messages;
DROP ROLE regress_chash_sl_nobody;
DROP TABLE sl_rows, sl_union;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config WHERE ring LIKE 'sl\_%';
