--
-- Routing as PostgreSQL's own hash partitioning (key hash
-- postgres_partition, profile postgres_partitions), the import of a
-- partitioned table's layout, and plans from such a layout.  PostgreSQL
-- itself is the reference: rows inserted into real hash-partitioned tables
-- land in the partition tableoid names, and chash must name the same one
-- for every row.
--
SET jit = off;
-- the rings of other tests, left as they are
CREATE TEMP TABLE pgp_rings_before AS SELECT ring FROM chash.ring_config;
SET client_min_messages = warning;
CREATE SCHEMA pgp;
CREATE TYPE pgp.mood AS ENUM ('sad', 'ok', 'happy', 'elated', 'calm');
RESET client_min_messages;

-- A table partitioned by hash on the given columns, with partitions of the
-- given moduli and remainders, filled by the given query; then imported as
-- a ring of the same name
CREATE FUNCTION pgp.make(tbl text, columns text, key text, bounds int[][],
						 fill text) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE pgp.%I (%s) PARTITION BY HASH (%s)', tbl, columns, key);
	FOR i IN 1 .. array_length(bounds, 1) LOOP
		EXECUTE format('CREATE TABLE pgp.%I PARTITION OF pgp.%I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
					   tbl || '_' || bounds[i][1] || '_' || bounds[i][2], tbl, bounds[i][1], bounds[i][2]);
	END LOOP;
	EXECUTE format('INSERT INTO pgp.%I %s', tbl, fill);
	RETURN chash_ring_import(tbl, 'postgres_partitions', 'pgp.' || tbl);
END
$$;

-- The partitions of modulus m
CREATE FUNCTION pgp.moduli(m int) RETURNS int[][]
LANGUAGE sql AS $$
SELECT array_agg(ARRAY[m, r] ORDER BY r) FROM generate_series(0, m - 1) r
$$;

-- For every row of a table: the partition PostgreSQL put it in, against
-- chash's answer for its key (an expression of the row's columns)
CREATE FUNCTION pgp.check(tbl text, key text)
	RETURNS TABLE(rows bigint, keys bigint, partitions bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT count(*), count(DISTINCT %2$s), count(DISTINCT t.tableoid),
			   count(*) FILTER (WHERE chash_lookup(%1$L, %2$s) IS DISTINCT FROM format('%%I.%%I', n.nspname, c.relname))
		FROM pgp.%1$I t
		JOIN pg_class c ON c.oid = t.tableoid
		JOIN pg_namespace n ON n.oid = c.relnamespace$q$, tbl, key);
END
$$;

-- One configuration a key type (modulus 7), each over 100,000 rows or more
SELECT pgp.make('t_int2', 'k int2', 'k', pgp.moduli(7),
				'SELECT g::int2 FROM generate_series(-32768, 32767) g, generate_series(1, 2) r');
SELECT * FROM pgp.check('t_int2', 'k');
SELECT pgp.make('t_int4', 'k int4', 'k', pgp.moduli(7),
				'SELECT (g * 21474)::int4 FROM generate_series(-50000, 50000) g');
SELECT * FROM pgp.check('t_int4', 'k');
SELECT pgp.make('t_int8', 'k int8', 'k', pgp.moduli(7),
				'SELECT g * 92233720368547 + g FROM generate_series(-50000, 50000) g');
SELECT * FROM pgp.check('t_int8', 'k');
-- numerics of several scales (1.5 and 1.50 are one value), huge and tiny
SELECT pgp.make('t_numeric', 'k numeric', 'k', pgp.moduli(7),
				$$SELECT CASE g % 4 WHEN 0 THEN g / 7.0 WHEN 1 THEN g * 1e20 WHEN 2 THEN g / 1e30
									 ELSE round(g::numeric / 100, 2) END
				  FROM generate_series(-50000, 50000) g$$);
SELECT * FROM pgp.check('t_numeric', 'k');
SELECT pgp.make('t_text', 'k text', 'k', pgp.moduli(7),
				$$SELECT CASE WHEN g % 10 = 0 THEN '' ELSE md5(g::text) END || g FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_text', 'k');
SELECT pgp.make('t_text_c', 'k text COLLATE "C"', 'k', pgp.moduli(7),
				$$SELECT 'key:' || g FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_text_c', 'k');
SELECT pgp.make('t_varchar', 'k varchar(40)', 'k', pgp.moduli(7),
				$$SELECT left(md5(g::text), g % 33) || g FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_varchar', 'k');
SELECT pgp.make('t_bytea', 'k bytea', 'k', pgp.moduli(7),
				$$SELECT decode(md5(g::text), 'hex') || int4send(g) FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_bytea', 'k');
SELECT pgp.make('t_uuid', 'k uuid', 'k', pgp.moduli(7),
				$$SELECT md5(g::text)::uuid FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_uuid', 'k');
SELECT pgp.make('t_date', 'k date', 'k', pgp.moduli(7),
				$$SELECT date '2000-01-01' + g FROM generate_series(-50000, 50000) g$$);
SELECT * FROM pgp.check('t_date', 'k');
SELECT pgp.make('t_timestamp', 'k timestamp', 'k', pgp.moduli(7),
				$$SELECT timestamp '2020-02-29 12:00' + g * interval '1 hour 7.123456 seconds' FROM generate_series(-50000, 50000) g$$);
SELECT * FROM pgp.check('t_timestamp', 'k');
SELECT pgp.make('t_bool', 'k boolean', 'k', pgp.moduli(7),
				$$SELECT g % 3 = 0 FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_bool', 'k');
SELECT pgp.make('t_enum', 'k pgp.mood', 'k', pgp.moduli(7),
				$$SELECT (enum_range(NULL::pgp.mood))[1 + g % 5] FROM generate_series(1, 100000) g$$);
-- (an enum hashes as its labels' OIDs, which differ from one database to
-- the next: how many partitions its 5 values fill varies)
SELECT rows, keys, differ FROM pgp.check('t_enum', 'k');
-- two columns, NULLs in one (NULL columns are skipped), a key as ROW(a, b)
SELECT pgp.make('t_two', 'a int4, b text', 'a, b', pgp.moduli(7),
				$$SELECT g / 3, CASE WHEN g % 3 = 0 THEN NULL ELSE 'b' || g END FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('t_two', 'ROW(a, b)');
SELECT count(*) FILTER (WHERE b IS NULL) AS null_b FROM pgp.t_two;
SELECT key_types, key_collations FROM chash.ring_config WHERE ring = 't_two';

-- Moduli 1, 2, 8 and 64, and a mixed layout of moduli 4, 8 and 16
SELECT pgp.make('m_1', 'k int8', 'k', pgp.moduli(1),
				'SELECT g FROM generate_series(1, 100000) g');
SELECT * FROM pgp.check('m_1', 'k');
SELECT pgp.make('m_2', 'k int8', 'k', pgp.moduli(2),
				'SELECT g * 7 FROM generate_series(1, 100000) g');
SELECT * FROM pgp.check('m_2', 'k');
SELECT pgp.make('m_8', 'k text', 'k', pgp.moduli(8),
				$$SELECT 'user-' || g FROM generate_series(1, 100000) g$$);
SELECT * FROM pgp.check('m_8', 'k');
SELECT pgp.make('m_64', 'k int8', 'k', pgp.moduli(64),
				'SELECT g::int8 * 1000003 FROM generate_series(1, 100000) g');
SELECT * FROM pgp.check('m_64', 'k');
SELECT pgp.make('m_mixed', 'k int8', 'k',
				'{{4,0},{4,2},{8,1},{8,5},{8,3},{16,7},{16,15}}',
				'SELECT g FROM generate_series(1, 100000) g');
SELECT * FROM pgp.check('m_mixed', 'k');
SELECT node, slots FROM chash.node_config WHERE ring = 'm_mixed' ORDER BY node;

-- The layout of moduli 4, 8, 8, 16 and 16 leaves slots to no partition:
-- PostgreSQL refuses those rows, and chash finds no node for them
CREATE TABLE pgp.gap (k int8) PARTITION BY HASH (k);
CREATE TABLE pgp.gap_a PARTITION OF pgp.gap FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE pgp.gap_b PARTITION OF pgp.gap FOR VALUES WITH (MODULUS 8, REMAINDER 1);
CREATE TABLE pgp.gap_c PARTITION OF pgp.gap FOR VALUES WITH (MODULUS 8, REMAINDER 5);
CREATE TABLE pgp.gap_d PARTITION OF pgp.gap FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE pgp.gap_e PARTITION OF pgp.gap FOR VALUES WITH (MODULUS 16, REMAINDER 11);
SELECT chash_ring_import('gap', 'postgres_partitions', 'pgp.gap');
CREATE FUNCTION pgp.gap_check(n int)
	RETURNS TABLE(keys int, placed int, refused int, differ int)
LANGUAGE plpgsql AS $$
DECLARE
	part oid;
	pg text;
	ch text;
BEGIN
	keys := 0; placed := 0; refused := 0; differ := 0;
	FOR k IN 1 .. n LOOP
		keys := keys + 1;
		BEGIN
			INSERT INTO pgp.gap VALUES (k) RETURNING tableoid INTO part;
			pg := (SELECT format('%I.%I', 'pgp', c.relname) FROM pg_class c WHERE c.oid = part);
			placed := placed + 1;
		EXCEPTION WHEN check_violation THEN
			pg := NULL;
			refused := refused + 1;
		END;
		BEGIN
			ch := chash_lookup('gap', k::int8);
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			ch := NULL;
		END;
		IF pg IS DISTINCT FROM ch THEN
			differ := differ + 1;
		END IF;
	END LOOP;
	RETURN NEXT;
END
$$;
SELECT * FROM pgp.gap_check(3000);
SELECT chash_lookup('gap', g.k)
FROM (SELECT k FROM generate_series(1::int8, 100) k
	  WHERE NOT EXISTS (SELECT FROM pgp.gap p WHERE p.k = k.k) ORDER BY k LIMIT 1) g;

-- chash_position is PostgreSQL's row hash, whose remainder picks the slot
SELECT chash_position('m_8', 'user-1'::text) = chash_hash('postgres_partition', 'user-1') AS text_hash_matches;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE (CASE WHEN p < 0 THEN p + 2::numeric ^ 64 ELSE p END) % 7
						<> split_part(chash_lookup('t_int4', k), '_', 4)::int) AS differ
FROM (SELECT k, chash_position('t_int4', k)::numeric AS p FROM pgp.t_int4 LIMIT 1000) s;

-- A split: partition 3 of modulus 8 becomes partitions 3 and 11 of modulus
-- 16, done in PostgreSQL (detach, create the two, re-insert the rows);
-- the rows that moved are exactly those chash_moved_keys lists, and only
-- rows of partition 3 move
SELECT pgp.make('s', 'k int4, v text', 'k', pgp.moduli(8),
				$$SELECT g, 'v' || g FROM generate_series(1, 100000) g$$);
SELECT chash_ring_import('s_before', 'postgres_partitions', 'pgp.s');
CREATE TEMP TABLE s_before AS
SELECT k, format('%I.%I', 'pgp', c.relname) AS part FROM pgp.s JOIN pg_class c ON c.oid = s.tableoid;
ALTER TABLE pgp.s DETACH PARTITION pgp.s_8_3;
ALTER TABLE pgp.s_8_3 RENAME TO s_8_3_old;
CREATE TABLE pgp.s_8_3 PARTITION OF pgp.s FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE pgp.s_16_11 PARTITION OF pgp.s FOR VALUES WITH (MODULUS 16, REMAINDER 11);
INSERT INTO pgp.s SELECT * FROM pgp.s_8_3_old;
DROP TABLE pgp.s_8_3_old;
SELECT chash_ring_import('s_after', 'postgres_partitions', 'pgp.s');
SELECT table_size FROM chash.ring_config WHERE ring = 's_after';
CREATE TEMP TABLE s_moved_pg AS
SELECT b.k, b.part AS from_part, format('%I.%I', 'pgp', c.relname) AS to_part
FROM pgp.s JOIN pg_class c ON c.oid = s.tableoid JOIN s_before b ON b.k = s.k
WHERE b.part <> format('%I.%I', 'pgp', c.relname);
CREATE TEMP TABLE s_moved_plan AS
SELECT * FROM chash_moved_keys('s_before', 's_after', 'pgp.s'::regclass, 'k', NULL::int4);
SELECT (SELECT count(*) FROM pgp.s) AS rows,
	   (SELECT count(*) FROM s_moved_pg) AS moved_in_postgres,
	   (SELECT count(*) FROM s_moved_plan) AS moved_in_plan,
	   (SELECT count(*) FROM (SELECT k, from_part, to_part FROM s_moved_pg
							  EXCEPT SELECT key, from_node, to_node FROM s_moved_plan) d) AS pg_not_in_plan,
	   (SELECT count(*) FROM (SELECT key, from_node, to_node FROM s_moved_plan
							  EXCEPT SELECT k, from_part, to_part FROM s_moved_pg) d) AS plan_not_in_pg;
SELECT from_part, to_part, count(*) FROM s_moved_pg GROUP BY 1, 2;
SELECT * FROM chash_move_summary('s_before', 's_after', 'pgp.s'::regclass, 'k')
WHERE from_node <> to_node;
-- by an array of keys, too
SELECT count(*) FROM chash_moved_keys('s_before', 's_after', ARRAY(SELECT k FROM pgp.s));

-- From the layout to a ring that adds shards cheaply: ketama over 8
-- shards, then jump; each key counted in both rings' answers
SELECT chash_ring_create('s_ketama', profile => 'libmemcached');
SELECT count(chash_node_add('s_ketama', 'shard' || i)) FROM generate_series(1, 8) i;
SELECT chash_ring_create('s_jump', algorithm => 'jump', key_hash => 'xxh64');
SELECT count(chash_node_add('s_jump', 'shard' || i)) FROM generate_series(1, 8) i;
SELECT sum(keys) AS keys, count(*) AS pairs, count(DISTINCT from_node) AS partitions,
	   count(DISTINCT to_node) AS shards
FROM chash_move_summary('s_after', 's_ketama', 'pgp.s'::regclass, 'k');
SELECT count(*) = (SELECT count(*) FROM pgp.s t WHERE chash_lookup('s_after', t.k) <> chash_lookup('s_ketama', t.k::text))
	   AS moved_as_looked_up
FROM chash_moved_keys('s_after', 's_ketama', 'pgp.s'::regclass, 'k', NULL::int4);
SELECT count(*) = (SELECT count(*) FROM pgp.s t WHERE chash_lookup('s_after', t.k) <> chash_lookup('s_jump', t.k))
	   AS moved_as_looked_up
FROM chash_moved_keys('s_after', 's_jump', 'pgp.s'::regclass, 'k', NULL::int4);
-- a date key between two layouts, routed by its value, not its text
SELECT chash_ring_create('t_date_ketama', profile => 'libmemcached');
SELECT chash_node_add('t_date_ketama', 'shard1');
SELECT chash_ring_import('t_date2', 'postgres_partitions', 'pgp.t_date');
SELECT count(*) FROM chash_moved_keys('t_date', 't_date2', 'pgp.t_date'::regclass, 'k', NULL::date);
SELECT count(*) FROM chash_moved_keys('t_date', 't_date_ketama', 'pgp.t_date'::regclass, 'k', NULL::date);

-- Partitions that are foreign tables keep their server as target
CREATE EXTENSION postgres_fdw;
CREATE SERVER pgp_remote FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'nowhere');
CREATE TABLE pgp.f (k int8) PARTITION BY HASH (k);
CREATE TABLE pgp.f_0 PARTITION OF pgp.f FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE FOREIGN TABLE pgp.f_1 PARTITION OF pgp.f FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER pgp_remote;
SELECT chash_ring_import('f', 'postgres_partitions', 'pgp.f');
SELECT node, target, slots FROM chash.node_config WHERE ring = 'f' ORDER BY node;
-- an import replaces the nodes of a ring it made before
SELECT chash_ring_import('f', 'postgres_partitions', 'pgp.m_mixed');
SELECT count(*), min(node) FROM chash.node_config WHERE ring = 'f';

-- Errors: imports
SELECT chash_ring_import('e', 'postgres_partitions', NULL);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.nosuch');
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.m_1', 'dc1');
CREATE TABLE pgp.plain (k int);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.plain');
CREATE TABLE pgp.listed (k int) PARTITION BY LIST (k);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.listed');
CREATE TABLE pgp.ranged (k int) PARTITION BY RANGE (k);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.ranged');
CREATE TABLE pgp.expr (k int) PARTITION BY HASH ((k + 1));
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.expr');
CREATE TABLE pgp.opclass (k text) PARTITION BY HASH (k text_pattern_ops);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.opclass');
CREATE TABLE pgp.empty (k int) PARTITION BY HASH (k);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.empty');
CREATE TABLE pgp.sub (k int, j int) PARTITION BY HASH (k);
CREATE TABLE pgp.sub_0 PARTITION OF pgp.sub FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pgp.sub_1 PARTITION OF pgp.sub FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	PARTITION BY HASH (j);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.sub');
CREATE TABLE pgp.huge (k int) PARTITION BY HASH (k);
CREATE TABLE pgp.huge_0 PARTITION OF pgp.huge FOR VALUES WITH (MODULUS 131072, REMAINDER 0);
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.huge');
SELECT chash_ring_create('e_ketama', profile => 'libmemcached');
SELECT chash_ring_import('e_ketama', 'postgres_partitions', 'pgp.m_1');
SELECT count(*) AS rings_made FROM chash.ring_config WHERE ring = 'e';
-- a role that may change rings but not read the table
CREATE ROLE regress_chash_pgp_writer;
GRANT SELECT, INSERT, UPDATE ON chash.ring_config TO regress_chash_pgp_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON chash.node_config TO regress_chash_pgp_writer;
GRANT USAGE ON SCHEMA pgp TO regress_chash_pgp_writer;
SET ROLE regress_chash_pgp_writer;
SELECT chash_ring_import('e', 'postgres_partitions', 'pgp.m_1');
RESET ROLE;
-- and one that may not change rings
CREATE ROLE regress_chash_pgp_nobody;
SET ROLE regress_chash_pgp_nobody;
SELECT chash_ring_import('m_1', 'postgres_partitions', 'pgp.m_1');
RESET ROLE;

-- Errors: keys of another type than the ring's key columns
SELECT chash_lookup('t_int4', 5::int8);
SELECT chash_lookup('t_int4', 'five');
SELECT chash_lookup('t_two', 5);
SELECT chash_lookup('t_two', ROW(5, 6));
SELECT chash_lookup('t_two', ROW(5, 'b', 6));
SELECT chash_position('t_two', ROW(5));
SELECT chash_lookup_n('t_int4', 5::int8, 1);
-- text keys into a varchar layout, and ROW(a, NULL) with its NULL skipped
SELECT chash_lookup('t_varchar', 'abc'::text) = chash_lookup('t_varchar', 'abc'::varchar) AS text_as_varchar;
SELECT chash_lookup('t_two', ROW(7, NULL::text)) = (SELECT format('%I.%I', 'pgp', c.relname) FROM pgp.t_two t JOIN pg_class c ON c.oid = t.tableoid WHERE a = 7 AND b IS NULL) AS null_skipped;
-- a ring made by profile, without key types, hashes a key as its own type
SELECT chash_ring_create('untyped', profile => 'postgres_partitions', table_size => 7);
SELECT count(chash_node_add('untyped', 'p' || r, slots => ARRAY[int4range(r, r + 1)])) FROM generate_series(0, 6) r;
SELECT count(*) FILTER (WHERE chash_lookup('untyped', k) <> 'p' || split_part(chash_lookup('t_int4', k), '_', 4)) AS differ
FROM pgp.t_int4;
SELECT chash_lookup('untyped', point(1, 2));
-- key types only where keys are hashed as their type; a missing collation
UPDATE chash.ring_config SET key_types = '{integer}', key_collations = '{NULL}' WHERE ring = 'e_ketama';
UPDATE chash.ring_config SET key_collations = '{pg_catalog.nosuch}' WHERE ring = 't_text';
SELECT chash_lookup('t_text', 'a');
SELECT chash_ring_create('e_rendezvous', algorithm => 'rendezvous', ketama_variant => 'pymemcache',
						 hash => 'pymemcache_murmur3', key_hash => 'postgres_partition');

-- The migration SQL from a layout to a ketama ring over the same
-- partitions and one more table: its statements move exactly the rows
-- whose owner differs, each from its partition to its new table
CREATE TABLE pgp.mig (id int8 PRIMARY KEY, v text) PARTITION BY HASH (id);
CREATE TABLE pgp.mig_0 PARTITION OF pgp.mig FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE pgp.mig_1 PARTITION OF pgp.mig FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE pgp.mig_2 PARTITION OF pgp.mig FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE pgp.mig_3 PARTITION OF pgp.mig FOR VALUES WITH (MODULUS 4, REMAINDER 3);
CREATE TABLE pgp.mig_4 (id int8 PRIMARY KEY, v text);
INSERT INTO pgp.mig SELECT g, 'v' || g FROM generate_series(1, 10000) g;
SELECT chash_ring_import('mig_parts', 'postgres_partitions', 'pgp.mig');
SELECT chash_ring_create('mig_ketama', profile => 'libmemcached');
SELECT count(chash_node_add('mig_ketama', 'pgp.mig_' || i)) FROM generate_series(0, 4) i;
SELECT count(chash_node_set(ring, node, target => node)) FROM chash.node_config WHERE ring IN ('mig_parts', 'mig_ketama');
WITH s AS (SELECT s FROM chash_migration_sql('mig_parts', 'mig_ketama', 'pgp.mig', 'id') s WHERE s ~ '^INSERT INTO'),
	 k AS (SELECT substring(s FROM 'INSERT INTO (\S+)') AS dst, substring(s FROM 'FROM (\S+) t') AS src,
				  unnest(substring(s FROM 'ANY \(''(\{[^'']*\})''')::int8[]) AS id FROM s)
SELECT count(*) AS listed,
	   count(*) FILTER (WHERE chash_lookup('mig_parts', k.id) <> k.src OR chash_lookup('mig_ketama', k.id) <> k.dst) AS misplaced,
	   (SELECT count(*) FROM pgp.mig m WHERE chash_lookup('mig_parts', m.id) <> chash_lookup('mig_ketama', m.id)) AS changing,
	   (SELECT count(*) FROM pgp.mig m WHERE m.tableoid::regclass::text <> chash_lookup('mig_parts', m.id)) AS not_in_partition
FROM k;

-- and the reports count the table's rows where PostgreSQL keeps them
SELECT count(*) AS nodes,
	   count(*) FILTER (WHERE d.keys IS DISTINCT FROM p.n) AS key_distribution_differs,
	   count(*) FILTER (WHERE l.rows IS DISTINCT FROM p.n) AS load_differs
FROM (SELECT m.tableoid::regclass::text AS node, count(*) AS n FROM pgp.mig m GROUP BY 1) p
LEFT JOIN chash_key_distribution('mig_parts', 'pgp.mig', 'id') d ON d.node = p.node
LEFT JOIN (SELECT node, sum(rows) AS rows FROM chash_load('mig_parts', 'pgp.mig', 'id') GROUP BY node) l ON l.node = p.node;

SET client_min_messages = warning;
DROP SCHEMA pgp CASCADE;
DROP OWNED BY regress_chash_pgp_writer;
DROP ROLE regress_chash_pgp_writer;
DROP ROLE regress_chash_pgp_nobody;
DROP SERVER pgp_remote;
DROP EXTENSION postgres_fdw;
SELECT count(chash_ring_drop(r))
FROM (SELECT array_agg(ring) AS a FROM chash.ring_config
	  WHERE ring NOT IN (SELECT ring FROM pgp_rings_before)) s, unnest(s.a) r;
RESET client_min_messages;
