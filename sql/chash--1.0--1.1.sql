/* sql/chash--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.1'" to load this file. \quit

/*
 * 1.1: compatibility profiles.  The ketama algorithm with the variants of
 * its clients, the order of nodes in a client's server list (which breaks
 * ties between nodes on one position), and a ties rule for ring rings.
 */

-- A node's place in its client's server list: the order of addition,
-- unless changed.  Existing nodes are numbered in the order in which 1.0
-- broke ties, their names' UTF-8 bytes; ties rules that look at ordinals
-- are new, so no route depends on them yet.
CREATE SEQUENCE chash.node_ordinal_seq AS bigint;
SELECT pg_catalog.pg_extension_config_dump('chash.node_ordinal_seq', '');
GRANT USAGE, SELECT ON SEQUENCE chash.node_ordinal_seq TO PUBLIC;

ALTER TABLE chash.node_config ADD COLUMN ordinal bigint;
ALTER TABLE chash.ring_config
	ADD COLUMN ketama_variant text,
	ADD COLUMN ties text,
	ADD CONSTRAINT ring_config_ties_check
		CHECK (ties IN ('name'::text, 'first'::text, 'last'::text));

UPDATE chash.node_config n SET ordinal = o.ordinal
	FROM (SELECT ring, node,
				 pg_catalog.row_number() OVER (ORDER BY ring, pg_catalog.convert_to(node, 'UTF8')) AS ordinal
		  FROM chash.node_config) o
	WHERE n.ring OPERATOR(pg_catalog.=) o.ring
	  AND n.node OPERATOR(pg_catalog.=) o.node;
SELECT pg_catalog.setval('chash.node_ordinal_seq',
						 coalesce(pg_catalog.max(ordinal), 0) OPERATOR(pg_catalog.+) 1,
						 false)
	FROM chash.node_config;
ALTER TABLE chash.node_config
	ALTER COLUMN ordinal SET DEFAULT pg_catalog.nextval('chash.node_ordinal_seq'),
	ALTER COLUMN ordinal SET NOT NULL;

COMMENT ON COLUMN chash.node_config.ordinal IS
	'the node''s place in its client''s server list (order of addition unless changed); breaks ties between nodes under ties rules first and last';
COMMENT ON COLUMN chash.ring_config.ketama_variant IS
	'for ketama rings, the client whose arithmetic is reproduced: libmemcached, libketama, twemproxy, uhashring or node';
COMMENT ON COLUMN chash.ring_config.ties IS
	'which node owns a position shared by points of several nodes: name (first by name), first or last (by ordinal); NULL: the algorithm''s rule';

DROP FUNCTION chash_ring_create(text, text, text, integer, text, integer, text);
CREATE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT 'ring',
								  hash text DEFAULT NULL,
								  vnodes integer DEFAULT 160,
								  vnode_name text DEFAULT NULL,
								  vnode_first integer DEFAULT 0,
								  key_hash text DEFAULT NULL,
								  ketama_variant text DEFAULT NULL,
								  ties text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text) IS
	'create a ring: algorithm (ring or ketama), hash of the points (default: the algorithm''s), vnodes per node of average weight, vnode name template ({node}, {i}), first i, hash of the keys (default: hash), ketama variant, ties rule';

-- The views gain the new settings as last columns
CREATE OR REPLACE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points,
		   n.ordinal
	FROM chash.ring_config r
	CROSS JOIN LATERAL chash.ring_node_points(r.ring) p
	JOIN chash.node_config n ON n.ring = r.ring AND n.node = p.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points and place in the server list';

CREATE OR REPLACE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   coalesce(pg_catalog.sum(n.points), 0)::bigint AS points,
		   r.ketama_variant, r.ties
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points';

DO $$
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
	END IF;
END
$$;

/*
 * Planning a change: compare two rings (typically one and its changed
 * copy), find the keys and the ranges of positions that move, and generate
 * the statements that move them.  A node's target says where its rows
 * live.
 */
ALTER TABLE chash.node_config ADD COLUMN target text;
COMMENT ON COLUMN chash.node_config.target IS
	'where the node''s rows live, for chash_migration_sql: a schema or schema-qualified (foreign) table in PostgreSQL, database.table in MySQL';

DROP FUNCTION chash_node_add(text, text, double precision, integer, text);
CREATE FUNCTION chash_node_add(ring text,
							   node text,
							   weight double precision DEFAULT 1,
							   vnodes integer DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_add'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_add(text, text, double precision, integer, text, text) IS
	'add a node to a ring: weight (> 0), own vnodes (default: from the weight), zone, target (where its rows live)';

DROP FUNCTION chash_node_set(text, text, double precision, integer, text, text);
CREATE FUNCTION chash_node_set(ring text,
							   node text,
							   weight double precision DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   state text DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_set(text, text, double precision, integer, text, text, text) IS
	'change a node''s weight, vnodes, state (active or down), zone or target; NULL leaves a setting as it is';

CREATE FUNCTION chash_ring_copy(src text, dst text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_copy'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_copy(text, text) IS
	'create ring dst with the settings and nodes (their order and targets included) of ring src';

CREATE OR REPLACE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points,
		   n.ordinal, n.target
	FROM chash.ring_config r
	CROSS JOIN LATERAL chash.ring_node_points(r.ring) p
	JOIN chash.node_config n ON n.ring = r.ring AND n.node = p.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points, place in the server list and target';

-- The checks of every plan: both rings exist, differ and hash keys alike
CREATE FUNCTION chash.plan_key_hash(from_ring text, to_ring text)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_plan_key_hash'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash.plan_key_hash(text, text) IS
	'checks two rings for a plan (both exist, they differ, they hash keys alike) and returns their key hash';

CREATE FUNCTION chash.ring_ranges(from_ring text, to_ring text)
	RETURNS TABLE(lo bigint, hi bigint, from_node text, to_node text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_ranges(text, text) IS
	'every range of positions on which both rings'' owners are constant, in chash_position order';

-- The type of a relation's column, or an error naming what is missing
CREATE FUNCTION chash.key_column_type(relation regclass, key_column name)
	RETURNS regtype
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_type regtype;
BEGIN
	SELECT a.atttypid::regtype INTO key_type
	FROM pg_attribute a
	WHERE a.attrelid = relation AND a.attname = key_column
	  AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING
			ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', key_column, relation);
	END IF;
	RETURN key_type;
END
$$;
COMMENT ON FUNCTION chash.key_column_type(regclass, name) IS
	'the type of a relation''s key column; an error if there is no such column';

-- How the plans route a key column: as chash_lookup does (bytea as its
-- bytes, every other type as its text)
CREATE FUNCTION chash.key_expr(key_column name, key_type regtype)
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE WHEN key_type = 'bytea'::regtype THEN quote_ident(key_column)
			ELSE quote_ident(key_column) || '::text' END
$$;
COMMENT ON FUNCTION chash.key_expr(name, regtype) IS
	'the expression the plans hash for a key column: the column itself for bytea, its text otherwise';


CREATE FUNCTION chash_moved_ranges(from_ring text, to_ring text)
	RETURNS TABLE(lo bigint, hi bigint, from_node text, to_node text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_moved_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION chash_moved_ranges(text, text) IS
	'the ranges of positions (inclusive, in chash_position order) whose owner differs between two rings, with the fraction of the hash space each covers';

CREATE FUNCTION chash_move_summary(from_ring text, to_ring text)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT r.from_node, r.to_node, sum(r.fraction), NULL::bigint
FROM chash.ring_ranges(from_ring, to_ring) r
GROUP BY r.from_node, r.to_node
ORDER BY r.from_node, r.to_node
$$;
COMMENT ON FUNCTION chash_move_summary(text, text) IS
	'for each pair of owners (from, to), the fraction of the hash space that goes from one to the other; from = to stays';

CREATE FUNCTION chash_move_summary(from_ring text, to_ring text,
								   relation regclass, key_column name)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_expr text := chash.key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	PERFORM chash.plan_key_hash(from_ring, to_ring);
	RETURN QUERY EXECUTE format($q$
		SELECT coalesce(r.from_node, c.from_node), coalesce(r.to_node, c.to_node),
			   coalesce(r.fraction, 0), coalesce(c.keys, 0)
		FROM (SELECT from_node, to_node, sum(fraction) AS fraction
			  FROM chash.ring_ranges($1, $2) GROUP BY from_node, to_node) r
		FULL JOIN (SELECT f AS from_node, t AS to_node, count(*) AS keys
				   FROM (SELECT @extschema@.chash_lookup($1, %1$s) AS f,
								@extschema@.chash_lookup($2, %1$s) AS t
						 FROM %2$s OFFSET 0) s
				   WHERE f IS NOT NULL
				   GROUP BY f, t) c
		  ON r.from_node = c.from_node AND r.to_node = c.to_node
		ORDER BY 1, 2$q$, key_expr, relation)
	USING from_ring, to_ring;
END
$$;
COMMENT ON FUNCTION chash_move_summary(text, text, regclass, name) IS
	'for each pair of owners (from, to), the fraction of the hash space and the number of the relation''s keys that go from one to the other; from = to stays';

CREATE FUNCTION chash_moved_keys(from_ring text, to_ring text,
								 relation regclass, key_column name)
	RETURNS SETOF record
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED ROWS 1000
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_expr text := chash.key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	PERFORM chash.plan_key_hash(from_ring, to_ring);
	RETURN QUERY EXECUTE format($q$
		SELECT k, f, t
		FROM (SELECT %1$I AS k,
					 @extschema@.chash_lookup($1, %2$s) AS f,
					 @extschema@.chash_lookup($2, %2$s) AS t
			  FROM %3$s OFFSET 0) s
		WHERE f <> t$q$, key_column, key_expr, relation)
	USING from_ring, to_ring;
END
$$;
COMMENT ON FUNCTION chash_moved_keys(text, text, regclass, name) IS
	'every key of a relation whose owner differs between two rings; call with a column definition list: AS (key <column type>, from_node text, to_node text)';

CREATE FUNCTION chash_moved_keys(from_ring text, to_ring text, keys anyarray)
	RETURNS TABLE(key anyelement, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 100
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM chash.plan_key_hash(from_ring, to_ring);
	IF pg_typeof(keys) = 'bytea[]'::regtype THEN
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::bytea) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::bytea) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	ELSE
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::text) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::text) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	END IF;
END
$$;
COMMENT ON FUNCTION chash_moved_keys(text, text, anyarray) IS
	'every key of an array whose owner differs between two rings, typed as the array''s elements';

/*
 * The statements that carry out a move for one table: for each pair of
 * nodes (from, to) and each batch of its moving ranges (or, in MySQL when
 * it cannot compute the key hash, of its moving keys), copy the rows to the
 * target, check that both sides hold the same rows, delete them from the
 * source, in one transaction.
 */
CREATE FUNCTION chash.migration_target(ring text, node text, relname name, dialect text)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	target text;
BEGIN
	SELECT n.target INTO target FROM chash.node_config n
	WHERE n.ring = migration_target.ring AND n.node = migration_target.node;
	IF target IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" of ring "%s" has no target', node, ring),
			HINT = 'Say where its rows live with chash_node_set(ring, node, target => ...).';
	END IF;
	IF dialect = 'postgresql' THEN
		-- a schema-qualified table as it is, a schema with the table's name
		RETURN CASE WHEN strpos(target, '.') > 0 THEN target
					ELSE format('%I.%I', target, relname) END;
	END IF;
	-- MySQL: database.table, or a database with the table's name
	RETURN format('`%s`.`%s`',
				  replace(split_part(target, '.', 1), '`', '``'),
				  replace(CASE WHEN strpos(target, '.') > 0
							   THEN substr(target, strpos(target, '.') + 1)
							   ELSE relname END, '`', '``'));
END
$$;
COMMENT ON FUNCTION chash.migration_target(text, text, name, text) IS
	'the table of a node''s rows in a migration, from its target; an error if it has none';

CREATE FUNCTION chash_migration_sql(from_ring text, to_ring text,
									relation regclass, key_column name,
									dialect text DEFAULT 'postgresql')
	RETURNS SETOF text
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_type regtype := chash.key_column_type(relation, key_column);
	key_hash text := chash.plan_key_hash(from_ring, to_ring);
	relname name;
	hashed text;				-- the key's position, in the dialect
	chooses text;				-- how the statements choose the rows, for people
	by_keys boolean := false;	-- MySQL without the key hash: key lists
	columns text;
	nranges bigint;
	npairs bigint;
	fraction double precision;
	pair record;
	batch record;
	src text;
	dst text;
	checksum text;
BEGIN
	IF dialect IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'dialect must not be null';
	END IF;
	IF dialect NOT IN ('postgresql', 'mysql') THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown dialect "%s"', dialect),
			HINT = 'Valid dialects are "postgresql" and "mysql".';
	END IF;
	SELECT c.relname INTO relname FROM pg_class c WHERE c.oid = relation;
	SELECT count(*), count(DISTINCT (r.from_node, r.to_node)), coalesce(sum(r.fraction), 0)
	INTO nranges, npairs, fraction
	FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r;

	IF dialect = 'postgresql' THEN
		hashed := format('@extschema@.chash_hash(%L, t.%s)', key_hash,
						 chash.key_expr(key_column, key_type));
		chooses := format('rows chosen by %s in PostgreSQL', hashed);
	ELSIF key_hash = 'crc32' THEN
		hashed := format('CRC32(`%s`)', replace(key_column, '`', '``'));
		chooses := format('rows chosen by MySQL''s %s, which is key hash crc32', hashed);
	ELSIF key_hash = 'md5' THEN
		-- the first four bytes of the digest, little-endian
		hashed := format('CAST(CONV(HEX(REVERSE(UNHEX(LEFT(MD5(`%s`), 8)))), 16, 10) AS UNSIGNED)',
						 replace(key_column, '`', '``'));
		chooses := format('rows chosen by MySQL''s MD5(`%s`), the first four bytes little-endian, which is key hash md5',
						  replace(key_column, '`', '``'));
	ELSE
		by_keys := true;
		chooses := format('rows chosen by explicit key lists: MySQL cannot compute key hash %s', key_hash);
	END IF;

	RETURN NEXT format('-- chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: %s moving ranges in %s moves, %s%% of the hash space; %s',
					   relation, key_column, from_ring, to_ring, dialect, nranges, npairs,
					   round((fraction * 100)::numeric, 2), chooses);
	IF dialect = 'mysql' THEN
		-- keys are hashed as UTF-8: key columns must be utf8mb4 (or ASCII)
		RETURN NEXT 'SET NAMES utf8mb4;';
	END IF;

	-- the relation's columns, named in every copy: the shards' tables need
	-- them, not in the same order
	IF dialect = 'mysql' THEN
		SELECT string_agg(format('`%s`', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum)
		INTO columns
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped;
		-- QUOTE() tells NULL from 'NULL' and keeps NULLs in place
		SELECT string_agg(format('QUOTE(`%s`)', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum)
		INTO checksum
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped;
		checksum := format('COALESCE(SUM(CRC32(CONCAT_WS(''|'', %s))), 0)', checksum);
	ELSE
		SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
		INTO columns
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped;
	END IF;

	FOR pair IN
		SELECT r.from_node, r.to_node, count(*) AS ranges, sum(r.fraction) AS fraction
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r
		GROUP BY r.from_node, r.to_node
		ORDER BY r.from_node, r.to_node
	LOOP
		src := chash.migration_target(from_ring, pair.from_node, relname, dialect);
		dst := chash.migration_target(to_ring, pair.to_node, relname, dialect);
		RETURN NEXT format('-- from node "%s" (%s) to node "%s" (%s): %s ranges, %s%% of the hash space',
						   pair.from_node, src, pair.to_node, dst, pair.ranges,
						   round((pair.fraction * 100)::numeric, 2));
		FOR batch IN EXECUTE CASE WHEN dialect = 'postgresql' THEN format($q$
			SELECT b.n, format('%%s <@ ANY (%%L::int8range[])', %L,
							   array_agg(CASE WHEN b.hi = 9223372036854775807
											  THEN format('[%%s,)', b.lo)
											  ELSE format('[%%s,%%s]', b.lo, b.hi) END
										 ORDER BY b.lo)) AS pred
			FROM (SELECT r.lo, r.hi,
						 (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, hashed)
		WHEN NOT by_keys THEN format($q$
			-- one hash a row: INTERVAL() finds it among the ascending bounds
			-- lo, hi + 1 of the ranges; an odd place is inside a range
			SELECT b.n, format('INTERVAL(%%s, %%s) %%%% 2 = 1', %L,
							   string_agg(b.lo || ', ' || (b.hi + 1), ', ' ORDER BY b.lo)) AS pred
			FROM (SELECT r.lo, r.hi,
						 (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, hashed)
		ELSE format($q$
			SELECT b.n, format('`%s` IN (%%s)', string_agg(b.lit, ', ' ORDER BY b.ord)) AS pred
			-- numbers as they are, other keys as the hex of their UTF-8
			-- bytes: exact whatever the SQL mode and the column's collation
			FROM (SELECT CASE WHEN %L IN ('smallint', 'integer', 'bigint', 'numeric') THEN m.key::text
							  ELSE 'X''' || encode(convert_to(m.key::text, 'UTF8'), 'hex') || '''' END AS lit,
						 row_number() OVER (ORDER BY m.key) AS ord,
						 (row_number() OVER (ORDER BY m.key) - 1) / 1000 AS n
				  FROM @extschema@.chash_moved_keys($1, $2, %L::regclass, %L)
					   AS m(key %s, from_node text, to_node text)
				  WHERE m.from_node = $3 AND m.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$,
			replace(key_column, '`', '``'), key_type::text, relation::oid, key_column, key_type)
		END
		USING from_ring, to_ring, pair.from_node, pair.to_node
		LOOP
			IF dialect = 'postgresql' THEN
				/*
				 * Copy, commit; then check and delete, commit.  Foreign
				 * servers commit one after the other, so each transaction
				 * writes to one of them only: a failure leaves rows on both
				 * sides at worst, never on neither, and the plan run again
				 * copies nothing twice (keys already there are skipped).
				 */
				RETURN NEXT 'BEGIN;';
				RETURN NEXT format('INSERT INTO %1$s (%3$s) SELECT %3$s FROM %2$s t WHERE %4$s'
								   ' AND NOT EXISTS (SELECT 1 FROM %1$s d WHERE d.%5$I = t.%5$I);',
								   dst, src, columns, batch.pred, key_column);
				RETURN NEXT 'COMMIT;';
				RETURN NEXT 'BEGIN;';
				RETURN NEXT format($v$DO $chash$
DECLARE
	moved bigint;
	copied bigint;
	moved_sum numeric;
	copied_sum numeric;
BEGIN
	SELECT count(*), coalesce(sum(hashtextextended(t::text, 0)), 0) INTO moved, moved_sum
	FROM %1$s t WHERE %3$s;
	SELECT count(*), coalesce(sum(hashtextextended(t::text, 0)), 0) INTO copied, copied_sum
	FROM %2$s t WHERE %3$s;
	-- nothing left to move (a plan run again) is no error
	IF moved > 0 AND (moved <> copied OR moved_sum <> copied_sum) THEN
		RAISE EXCEPTION 'chash migration: %% rows (checksum %%) in %1$s, but %% rows (checksum %%) in %2$s',
			moved, moved_sum, copied, copied_sum;
	END IF;
	RAISE NOTICE 'chash migration: %% rows from %1$s in %2$s, checked', moved;
END
$chash$;$v$, src, dst, batch.pred);
				RETURN NEXT format('DELETE FROM %s t WHERE %s;', src, batch.pred);
				RETURN NEXT 'COMMIT;';
			ELSE
				RETURN NEXT 'START TRANSACTION;';
				RETURN NEXT format('INSERT INTO %1$s (%3$s) SELECT %3$s FROM %2$s WHERE (%4$s);',
								   dst, src, columns, batch.pred);
				RETURN NEXT '-- check: fails with "Subquery returns more than 1 row" if the copies differ';
				RETURN NEXT format('SELECT (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE NOT ('
								   'NOT EXISTS (SELECT 1 FROM %1$s WHERE (%3$s)) OR '
								   '(SELECT COUNT(*), %4$s FROM %1$s WHERE (%3$s)) = (SELECT COUNT(*), %4$s FROM %2$s WHERE (%3$s))'
								   ')) AS chash_check;',
								   src, dst, batch.pred, checksum);
				RETURN NEXT format('DELETE FROM %s WHERE (%s);', src, batch.pred);
				RETURN NEXT 'COMMIT;';
			END IF;
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash_migration_sql(text, text, regclass, name, text) IS
	'the statements that move a relation''s rows from the nodes of one ring to those of another (dialect postgresql or mysql), a transaction per batch, each checked before the source rows are deleted';
