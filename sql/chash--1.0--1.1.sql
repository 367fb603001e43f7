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
	IF relation IS NULL OR key_column IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'relation and key_column must not be null';
	END IF;
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
 * target, then check that both sides hold the same rows and delete them
 * from the source.
 */
CREATE FUNCTION chash.migration_target(ring text, node text, relname name, dialect text)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	target text;
	parts text[];
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
		-- a schema, or a schema-qualified table, as SQL names them
		parts := parse_ident(target);
		IF cardinality(parts) = 1 THEN
			RETURN format('%I.%I', parts[1], relname);
		ELSIF cardinality(parts) = 2 THEN
			RETURN format('%I.%I', parts[1], parts[2]);
		END IF;
	ELSE
		-- MySQL: a database, or database.table
		parts := string_to_array(target, '.');
		IF cardinality(parts) = 1 THEN
			parts := parts || relname::text;
		END IF;
		IF cardinality(parts) = 2 AND parts[1] <> '' AND parts[2] <> '' THEN
			RETURN format('`%s`.`%s`', replace(parts[1], '`', '``'), replace(parts[2], '`', '``'));
		END IF;
	END IF;
	RAISE EXCEPTION USING
		ERRCODE = 'invalid_parameter_value',
		MESSAGE = format('target "%s" of node "%s" of ring "%s" is not a table', target, node, ring),
		HINT = CASE dialect WHEN 'postgresql' THEN 'A PostgreSQL target is a schema or a schema-qualified table.'
			   ELSE 'A MySQL target is a database or database.table.' END;
END
$$;
COMMENT ON FUNCTION chash.migration_target(text, text, name, text) IS
	'the table of a node''s rows in a migration, from its target; an error if it has none';

-- A line of comment in a generated plan: names cannot end it early
CREATE FUNCTION chash.plan_comment(message text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT '-- ' || regexp_replace(message, '[\r\n]+', ' ', 'g') $$;
COMMENT ON FUNCTION chash.plan_comment(text) IS
	'a comment line of a generated plan, with line breaks in names replaced';

-- A dollar quote that the body does not contain
CREATE FUNCTION chash.dollar_quote(body text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	tag text := '$chash$';
	i integer := 0;
BEGIN
	WHILE strpos(body, tag) > 0 LOOP
		i := i + 1;
		tag := '$chash' || i || '$';
	END LOOP;
	RETURN tag || body || tag;
END
$$;
COMMENT ON FUNCTION chash.dollar_quote(text) IS
	'body in dollar quotes whose tag it does not contain';

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
	ext text := quote_ident('@extschema@');
	relname name;
	hashed text;				-- the key's position, in the dialect
	chooses text;				-- how the statements choose the rows, for people
	by_keys boolean := false;	-- MySQL without the key hash: key lists
	key_mysql text := format('`%s`', replace(key_column, '`', '``'));
	columns text;				-- the columns copied, quoted for the dialect
	row_expr text;				-- PostgreSQL: those columns of row t
	overriding text := '';
	key_eq text := 'OPERATOR(pg_catalog.=)';
	checksum text;
	fingerprint text;
	nranges bigint;
	npairs bigint;
	fraction double precision;
	pair record;
	batch record;
	src text;
	dst text;
	pred text;
	pin constant text := 'SET LOCAL search_path = pg_catalog, pg_temp;';
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
	SELECT count(*), count(DISTINCT (r.from_node, r.to_node)), coalesce(sum(r.fraction), 0),
		   md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
	INTO nranges, npairs, fraction, fingerprint
	FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r;

	IF dialect = 'postgresql' THEN
		hashed := format('%s.chash_hash(%L, t.%s)', ext, key_hash,
						 chash.key_expr(key_column, key_type));
		chooses := format('rows chosen by %s in PostgreSQL', hashed);
		-- generated columns are computed again; identity ones copied as they are
		SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   string_agg('t.' || quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   CASE WHEN bool_or(a.attidentity = 'a') THEN ' OVERRIDING SYSTEM VALUE' ELSE '' END
		INTO columns, row_expr, overriding
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- the key type's own equality, wherever it lives
		SELECT format('OPERATOR(%I.=)', n.nspname) INTO key_eq
		FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
		WHERE o.oprname = '=' AND o.oprleft = key_type AND o.oprright = key_type
		LIMIT 1;
		key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');
	ELSE
		IF key_hash = 'crc32' THEN
			hashed := format('CRC32(%s)', key_mysql);
			chooses := format('rows chosen by MySQL''s %s, which is key hash crc32', hashed);
		ELSIF key_hash = 'md5' THEN
			-- the first four bytes of the digest, little-endian
			hashed := format('CAST(CONV(HEX(REVERSE(UNHEX(LEFT(MD5(%s), 8)))), 16, 10) AS UNSIGNED)', key_mysql);
			chooses := format('rows chosen by MySQL''s MD5(%s), the first four bytes little-endian, which is key hash md5',
							  key_mysql);
		ELSE
			by_keys := true;
			chooses := format('rows chosen by explicit key lists: MySQL cannot compute key hash %s', key_hash);
			IF key_type NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype,
								'text'::regtype, 'character varying'::regtype, 'character'::regtype) THEN
				RAISE EXCEPTION USING
					ERRCODE = 'feature_not_supported',
					MESSAGE = format('the mysql dialect cannot list keys of type %s', key_type),
					DETAIL = format('Key hash %s is not one MySQL computes, so the plan lists the keys.', key_hash),
					HINT = 'Key lists take integer, numeric and text keys; crc32 and md5 rings need no lists.';
			END IF;
		END IF;
		SELECT string_agg(format('`%s`', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum),
			   string_agg(format('QUOTE(`%s`)', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum)
		INTO columns, checksum
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- QUOTE() tells NULL from 'NULL' and keeps NULLs in place
		checksum := format('COALESCE(SUM(CRC32(CONCAT_WS(''|'', %s))), 0)', checksum);
	END IF;

	RETURN NEXT chash.plan_comment(format(
		'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: %s moving ranges in %s moves, %s%% of the hash space; %s',
		relation, quote_ident(key_column), from_ring, to_ring, dialect, nranges, npairs,
		round((fraction * 100)::numeric, 2), chooses));
	IF dialect = 'postgresql' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF (SELECT md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
		FROM %1$s.chash_moved_ranges(%2$L, %3$L) r) IS DISTINCT FROM %4$L THEN
		RAISE EXCEPTION 'chash migration: ring %% or ring %% has changed since this plan was made', %2$L, %3$L;
	END IF;
END
$g$, ext, from_ring, to_ring, fingerprint)));
	ELSE
		-- keys are hashed as UTF-8: key columns must be utf8mb4 (or ASCII)
		RETURN NEXT 'SET NAMES utf8mb4;';
	END IF;

	FOR pair IN
		SELECT r.from_node, r.to_node, count(*) AS ranges, sum(r.fraction) AS fraction
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r
		GROUP BY r.from_node, r.to_node
		ORDER BY r.from_node, r.to_node
	LOOP
		src := chash.migration_target(from_ring, pair.from_node, relname, dialect);
		dst := chash.migration_target(to_ring, pair.to_node, relname, dialect);
		IF src = dst OR (dialect = 'postgresql' AND to_regclass(src) = to_regclass(dst)) THEN
			-- copying a table into itself and deleting would lose the rows
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" to node "%s": both in %s, nothing to move',
				pair.from_node, pair.to_node, src));
			CONTINUE;
		END IF;
		RETURN NEXT chash.plan_comment(format(
			'from node "%s" (%s) to node "%s" (%s): %s ranges, %s%% of the hash space',
			pair.from_node, src, pair.to_node, dst, pair.ranges,
			round((pair.fraction * 100)::numeric, 2)));

		FOR batch IN EXECUTE CASE WHEN NOT by_keys THEN $q$
			SELECT array_agg(b.lo ORDER BY b.lo) AS los, array_agg(b.hi ORDER BY b.lo) AS his
			FROM (SELECT r.lo, r.hi, (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$
		ELSE format($q$
			SELECT array_agg(b.key ORDER BY b.key) AS keys
			FROM (SELECT m.key::text AS key, (row_number() OVER (ORDER BY m.key) - 1) / 1000 AS n
				  FROM @extschema@.chash_moved_keys($1, $2, %s::regclass, %L)
					   AS m(key %s, from_node text, to_node text)
				  WHERE m.from_node = $3 AND m.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, relation::oid, key_column, key_type)
		END
		USING from_ring, to_ring, pair.from_node, pair.to_node
		LOOP
			IF dialect = 'postgresql' THEN
				pred := format('%s OPERATOR(pg_catalog.<@) ANY (%L::pg_catalog.int8range[])', hashed,
							   (SELECT array_agg(CASE WHEN hi = 9223372036854775807 THEN format('[%s,)', lo)
													  ELSE format('[%s,%s]', lo, hi) END ORDER BY lo)
								FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				/*
				 * Copy, commit; then check and delete, commit.  Foreign
				 * servers commit one after the other, so each transaction
				 * writes to one of them only: a failure leaves rows on both
				 * sides at worst, never on neither, and the plan run again
				 * copies nothing twice (keys already there are skipped).
				 * The second transaction is REPEATABLE READ, so that it
				 * deletes no row it did not check.
				 */
				RETURN NEXT 'BEGIN;';
				RETURN NEXT pin;
				RETURN NEXT format('INSERT INTO %1$s (%3$s)%4$s SELECT %3$s FROM %2$s t WHERE %5$s'
								   ' AND NOT EXISTS (SELECT 1 FROM %1$s d WHERE d.%6$I %7$s t.%6$I);',
								   dst, src, columns, overriding, pred, key_column, key_eq);
				RETURN NEXT 'COMMIT;';
				RETURN NEXT 'BEGIN ISOLATION LEVEL REPEATABLE READ;';
				RETURN NEXT pin;
				RETURN NEXT format('DO %s;', chash.dollar_quote(format($v$
DECLARE
	moved bigint;
	copied bigint;
	moved_sum numeric;
	copied_sum numeric;
BEGIN
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO moved, moved_sum FROM %1$s t WHERE %3$s;
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO copied, copied_sum FROM %2$s t WHERE %3$s;
	-- nothing left to move (a plan run again) is no error
	IF moved > 0 AND (moved <> copied OR moved_sum <> copied_sum) THEN
		RAISE EXCEPTION 'chash migration: %% rows (checksum %%) in %%, but %% rows (checksum %%) in %%',
			moved, moved_sum, %5$L, copied, copied_sum, %6$L;
	END IF;
	RAISE NOTICE 'chash migration: %% rows from %% in %%, checked', moved, %5$L, %6$L;
END
$v$, src, dst, pred, row_expr, src, dst)));
				RETURN NEXT format('DELETE FROM %s t WHERE %s;', src, pred);
				RETURN NEXT 'COMMIT;';
			ELSE
				IF by_keys THEN
					-- numbers as they are; text as the hex of its UTF-8 bytes,
					-- compared as bytes: exact whatever the SQL mode or collation
					IF key_type IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype) THEN
						pred := format('%s IN (%s)', key_mysql, array_to_string(batch.keys, ', '));
					ELSE
						pred := format('CAST(%s AS BINARY) IN (%s)', key_mysql,
									   (SELECT string_agg(format('X''%s''', encode(convert_to(k, 'UTF8'), 'hex')), ', ')
										FROM unnest(batch.keys) AS k));
					END IF;
				ELSE
					-- one hash a row: INTERVAL() finds it among the ascending
					-- bounds lo, hi + 1 of the ranges; an odd place is inside one
					pred := format('INTERVAL(%s, %s) %% 2 = 1', hashed,
								   (SELECT string_agg(lo || ', ' || (hi + 1), ', ' ORDER BY lo)
									FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				END IF;
				RETURN NEXT 'START TRANSACTION;';
				RETURN NEXT format('INSERT INTO %1$s (%3$s) SELECT %3$s FROM %2$s WHERE (%4$s);',
								   dst, src, columns, pred);
				RETURN NEXT chash.plan_comment('check: fails with "Subquery returns more than 1 row" if the copies differ; do not run plans with --force');
				RETURN NEXT format('SELECT (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE NOT ('
								   'NOT EXISTS (SELECT 1 FROM %1$s WHERE (%3$s)) OR '
								   '(SELECT COUNT(*), %4$s FROM %1$s WHERE (%3$s)) = (SELECT COUNT(*), %4$s FROM %2$s WHERE (%3$s))'
								   ')) AS chash_check;',
								   src, dst, pred, checksum);
				RETURN NEXT format('DELETE FROM %s WHERE (%s);', src, pred);
				RETURN NEXT 'COMMIT;';
			END IF;
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash_migration_sql(text, text, regclass, name, text) IS
	'the statements that move a relation''s rows from the nodes of one ring to those of another (dialect postgresql or mysql): per batch, copy, then check and delete';

/*
 * Load reports: each node's exact share of the hash space (from the points,
 * no sampling), the imbalance figures, the keys of a table per node, and
 * pictures.
 */
CREATE FUNCTION chash.ring_ownership(ring text, replicas integer)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer) IS
	'each node''s points, the fraction of the hash space whose keys it holds (each key held by its first replicas distinct nodes), and the fraction expected of it';

CREATE FUNCTION chash.ring_arcs(ring text)
	RETURNS TABLE(start double precision, stop double precision, node text)
	AS 'MODULE_PATHNAME', 'chash_ring_arcs'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_arcs(text) IS
	'the ring as arcs of one owner each, in fractions of the hash space from position 0 clockwise';

CREATE FUNCTION chash_ownership(ring text, replicas integer DEFAULT 1)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(chash_ownership.ring, chash_ownership.replicas) o
JOIN chash.node_config n ON n.ring = chash_ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash_ownership(text, integer) IS
	'each node''s exact share of the hash space (owned), its share of the active weight (expected) and their ratio; with replicas, the keys it holds when each key is stored on chash_lookup_n(..., replicas)';

CREATE FUNCTION chash_ring_stats(ring text)
	RETURNS TABLE(nodes integer, points integer, peak_to_mean double precision,
				  stddev double precision, min_ratio double precision, max_ratio double precision)
	LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT count(*)::integer, coalesce(sum(o.points), 0)::integer,
	   max(o.ratio) / avg(o.ratio), stddev_pop(o.ratio), min(o.ratio), max(o.ratio)
FROM @extschema@.chash_ownership(chash_ring_stats.ring) o
WHERE o.state = 'active'
$$;
COMMENT ON FUNCTION chash_ring_stats(text) IS
	'a ring''s imbalance from exact ownership: active nodes, points, and over the active nodes the largest owned/expected ratio over the mean, their standard deviation, the smallest and the largest';

CREATE FUNCTION chash_key_distribution(ring text, relation regclass, key_column name)
	RETURNS TABLE(node text, keys bigint, share double precision,
				  expected double precision, ratio double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_expr text := chash.key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	IF ring IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring must not be null';
	END IF;
	RETURN QUERY EXECUTE format($q$
		WITH counted AS (
			SELECT @extschema@.chash_lookup($1, %1$s) AS node, count(*) AS keys
			FROM %2$s WHERE %3$I IS NOT NULL GROUP BY 1),
		total AS (SELECT sum(c.keys) AS keys FROM counted c)
		SELECT o.node, coalesce(c.keys, 0)::bigint,
			   coalesce(c.keys, 0)::double precision / nullif(t.keys, 0),
			   o.expected,
			   coalesce(c.keys, 0)::double precision / nullif(t.keys, 0) / nullif(o.expected, 0)
		FROM @extschema@.chash_ownership($1) WITH ORDINALITY o
		LEFT JOIN counted c ON c.node = o.node
		CROSS JOIN total t
		ORDER BY o.ordinality$q$, key_expr, relation, key_column)
	USING ring;
END
$$;
COMMENT ON FUNCTION chash_key_distribution(text, regclass, name) IS
	'the keys of a relation per node of a ring, in one pass: their number, share, the expected share and the ratio';

CREATE VIEW chash.ring_balance AS
	SELECT r.ring, r.algorithm, s.nodes, s.points, s.peak_to_mean, s.stddev,
		   s.min_ratio, s.max_ratio
	FROM chash.ring_config r
	CROSS JOIN LATERAL @extschema@.chash_ring_stats(r.ring) s;
COMMENT ON VIEW chash.ring_balance IS
	'one row a ring: its imbalance figures from exact ownership, for dashboards';
GRANT SELECT ON chash.ring_balance TO PUBLIC;

-- Pictures: standalone SVG 1.1
CREATE FUNCTION chash.svg_text(s text)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	result text := '';
	c text;
	b bytea;
	cp integer;
	-- SQL_ASCII text is bytes of no known encoding
	raw boolean := current_setting('server_encoding') = 'SQL_ASCII';
BEGIN
	FOR c IN SELECT regexp_split_to_table(s, '') LOOP
		IF ascii(c) < 128 THEN
			cp := ascii(c);
		ELSIF raw THEN
			cp := -1;
		ELSE
			-- the character's code point, from its UTF-8
			b := convert_to(c, 'UTF8');
			cp := CASE length(b)
				WHEN 2 THEN ((get_byte(b, 0) & 31) << 6) | (get_byte(b, 1) & 63)
				WHEN 3 THEN ((get_byte(b, 0) & 15) << 12) | ((get_byte(b, 1) & 63) << 6) | (get_byte(b, 2) & 63)
				ELSE ((get_byte(b, 0) & 7) << 18) | ((get_byte(b, 1) & 63) << 12) |
					 ((get_byte(b, 2) & 63) << 6) | (get_byte(b, 3) & 63) END;
		END IF;
		result := result || CASE
			WHEN cp = 38 THEN '&amp;'
			WHEN cp = 60 THEN '&lt;'
			WHEN cp = 62 THEN '&gt;'
			WHEN cp = 34 THEN '&quot;'
			WHEN cp = 39 THEN '&#39;'
			WHEN cp BETWEEN 32 AND 126 OR cp IN (9, 10, 13) THEN c
			-- what XML 1.0 does not allow, and bytes of no known encoding
			WHEN cp < 32 OR cp IN (65534, 65535) OR cp < 0 THEN '?'
			ELSE '&#x' || upper(to_hex(cp)) || ';' END;
	END LOOP;
	RETURN result;
END
$$;
COMMENT ON FUNCTION chash.svg_text(text) IS
	'text for XML in ASCII: markup escaped, other characters as references, those XML does not allow as question marks';

-- The colour of the k-th node, as #rrggbb: HSV with saturation 0.65 and
-- value 0.85, hues a golden angle apart so that neighbours differ
CREATE FUNCTION chash.svg_color(k integer)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT '#' || string_agg(lpad(to_hex(round(255 * (0.85 - 0.85 * 0.65 *
										  greatest(0, least(c.kc, 4 - c.kc, 1))))::integer), 2, '0'),
						 '' ORDER BY c.ord)
FROM (SELECT v.ord, mod((v.n + h.hue * 6)::numeric, 6)::double precision AS kc
	  FROM (VALUES (1, 5), (2, 3), (3, 1)) v(ord, n),
		   (SELECT mod((k * 0.618033988749895)::numeric, 1) AS hue) h) c
$$;
COMMENT ON FUNCTION chash.svg_color(integer) IS
	'the colour of a ring''s k-th node in its pictures';

-- A picture: the XML declaration, the SVG 1.1 doctype and root element
CREATE FUNCTION chash.svg_document(width integer, height integer, title text, body text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT concat_ws(E'\n',
	'<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
	'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">',
	format('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">',
		   width, height, width, height),
	format('<title>%s</title>', chash.svg_text(title)),
	'<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>',
	body,
	'</svg>')
$$;
COMMENT ON FUNCTION chash.svg_document(integer, integer, text, text) IS
	'a standalone SVG 1.1 document around body';

CREATE FUNCTION chash_ring_svg(ring text, width integer DEFAULT 640)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	size double precision;		-- the square the circle is drawn in
	radius double precision;
	cx double precision;
	cy double precision;
	nnodes integer;
	height integer;
	body text;
BEGIN
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	size := round(width * 0.55);
	radius := size * 0.38;
	cx := size / 2;
	cy := size / 2 + 24;
	SELECT count(*) INTO nnodes FROM @extschema@.chash_ownership(ring);
	height := greatest(size + 36, 56 + 20 * nnodes)::integer;

	WITH nodes AS (
		SELECT o.node, o.state, o.owned, o.expected, o.ordinality::integer - 1 AS k
		FROM @extschema@.chash_ownership(ring) WITH ORDINALITY o),
	-- the circle in 1440 slices (a quarter of a degree), each drawn in the
	-- colour of the node that owns most of it: the picture's size does not
	-- grow with the ring's points
	cover AS (
		SELECT b.b, a.node,
			   least(a.stop, (b.b + 1) / 1440.0) - greatest(a.start, b.b / 1440.0) AS len
		FROM chash.ring_arcs(ring) a
		CROSS JOIN LATERAL generate_series(floor(a.start * 1440)::integer,
										   least(ceil(a.stop * 1440)::integer - 1, 1439)) b(b)),
	slices AS (
		SELECT DISTINCT ON (c.b) c.b, c.node
		FROM cover c ORDER BY c.b, c.len DESC, c.node),
	runs AS (
		SELECT r.node, min(r.b) / 1440.0 AS start, (max(r.b) + 1) / 1440.0 AS stop
		FROM (SELECT sl.b, sl.node, sl.b - row_number() OVER (PARTITION BY sl.node ORDER BY sl.b) AS grp
			  FROM slices sl) r
		GROUP BY r.node, r.grp),
	arcs AS (
		-- an arc over half the circle is drawn as two halves, so that its
		-- ends are apart
		SELECT r.node, h.start, h.stop
		FROM runs r
		CROSS JOIN LATERAL (
			SELECT r.start, CASE WHEN r.stop - r.start > 0.5 THEN (r.start + r.stop) / 2 ELSE r.stop END
			UNION ALL
			SELECT (r.start + r.stop) / 2, r.stop WHERE r.stop - r.start > 0.5) h(start, stop)),
	paths AS (
		SELECT n.k, string_agg(format('M %s %s A %s %s 0 %s 1 %s %s',
									  round((cx + radius * sin(2 * pi() * a.start))::numeric, 2),
									  round((cy - radius * cos(2 * pi() * a.start))::numeric, 2),
									  radius, radius,
									  0,
									  round((cx + radius * sin(2 * pi() * a.stop))::numeric, 2),
									  round((cy - radius * cos(2 * pi() * a.stop))::numeric, 2)),
							   ' ' ORDER BY a.start) AS d
		FROM arcs a JOIN nodes n USING (node)
		GROUP BY n.k)
	SELECT concat_ws(E'\n',
		format('<text x="%s" y="18" font-size="14" font-weight="bold">ring %s</text>',
			   12, chash.svg_text(ring)),
		format('<circle cx="%s" cy="%s" r="%s" fill="none" stroke="#dddddd" stroke-width="%s"/>',
			   cx, cy, radius, round((size * 0.09)::numeric, 2)),
		(SELECT string_agg(format('<path d="%s" fill="none" stroke="%s" stroke-width="%s"/>',
								  p.d, chash.svg_color(p.k), round((size * 0.09)::numeric, 2)),
						   E'\n' ORDER BY p.k)
		 FROM paths p),
		format('<text x="%s" y="%s" text-anchor="middle" fill="#555555">0</text>',
			   cx, round((cy - radius - size * 0.06)::numeric, 2)),
		format('<text x="%s" y="40" font-weight="bold">node</text>', size + 12),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">owned</text>', width - 84),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">expected</text>', width - 12),
		(SELECT string_agg(concat_ws(E'\n',
					format('<rect x="%s" y="%s" width="12" height="12" fill="%s"/>',
						   size + 12, 48 + 20 * n.k, chash.svg_color(n.k)),
					format('<text x="%s" y="%s">%s%s</text>', size + 30, 58 + 20 * n.k,
						   chash.svg_text(n.node), CASE WHEN n.state = 'down' THEN ' (down)' ELSE '' END),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 84, 58 + 20 * n.k,
						   round((100 * n.owned)::numeric, 2)),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 12, 58 + 20 * n.k,
						   round((100 * n.expected)::numeric, 2))),
						   E'\n' ORDER BY n.k)
		 FROM nodes n))
	INTO body;
	RETURN chash.svg_document(width, height, format('chash ring %s', ring), body);
END
$$;
COMMENT ON FUNCTION chash_ring_svg(text, integer) IS
	'an SVG 1.1 picture of a ring: each node''s arcs in its own colour, with a legend of owned and expected shares';

CREATE FUNCTION chash_ownership_svg(ring text, width integer DEFAULT 640)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	label_width integer;
	bar_width double precision;
	top double precision;
	nnodes integer;
	body text;
BEGIN
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	label_width := round(width * 0.3);
	bar_width := width - label_width - 70;
	SELECT count(*), greatest(max(o.owned), max(o.expected), 1e-9)
	INTO nnodes, top
	FROM @extschema@.chash_ownership(ring) o;

	SELECT concat_ws(E'\n',
		format('<text x="12" y="18" font-size="14" font-weight="bold">ring %s: owned (bar) and expected (line) share of the hash space</text>',
			   chash.svg_text(ring)),
		(SELECT string_agg(concat_ws(E'\n',
					format('<text x="%s" y="%s" text-anchor="end">%s</text>', label_width - 6,
						   46 + 24 * (o.ordinality - 1), chash.svg_text(o.node)),
					format('<rect x="%s" y="%s" width="%s" height="14" fill="%s"/>', label_width,
						   35 + 24 * (o.ordinality - 1),
						   round((bar_width * o.owned / top)::numeric, 2), chash.svg_color((o.ordinality - 1)::integer)),
					format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000000" stroke-width="2"/>',
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 31 + 24 * (o.ordinality - 1),
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 53 + 24 * (o.ordinality - 1)),
					format('<text x="%s" y="%s">%s%%</text>',
						   round((label_width + bar_width * greatest(o.owned, o.expected) / top + 6)::numeric, 2),
						   46 + 24 * (o.ordinality - 1), round((100 * o.owned)::numeric, 2))),
						   E'\n' ORDER BY o.ordinality)
		 FROM @extschema@.chash_ownership(ring) WITH ORDINALITY o))
	INTO body;
	RETURN chash.svg_document(width, (40 + 24 * nnodes + 12)::integer,
							  format('chash ownership of ring %s', ring), body);
END
$$;
COMMENT ON FUNCTION chash_ownership_svg(text, integer) IS
	'an SVG 1.1 bar chart of each node''s owned share of the hash space against its expected share';

DO $$
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.ring_balance SET (security_invoker = true);
	END IF;
END
$$;
