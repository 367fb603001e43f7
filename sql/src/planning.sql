-- The checks of every plan: both rings exist, differ and hash keys alike
CREATE OR REPLACE FUNCTION chash.plan_key_hash(from_ring text, to_ring text)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_plan_key_hash'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash.plan_key_hash(text, text) IS
	'checks two rings for a plan (both exist, they differ, they hash keys alike) and returns their key hash';

CREATE OR REPLACE FUNCTION chash.ring_ranges(from_ring text, to_ring text)
	RETURNS TABLE(lo bigint, hi bigint, from_node text, to_node text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ranges'
	LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_ranges(text, text) IS
	'every range of positions on which both rings'' owners are constant, in chash_position order';

-- CALLED ON NULL INPUT: it raises null_value_not_allowed, since an empty
-- plan for a NULL ring would read as "nothing moves".
CREATE OR REPLACE FUNCTION chash_moved_ranges(from_ring text, to_ring text)
	RETURNS TABLE(lo bigint, hi bigint, from_node text, to_node text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_moved_ranges'
	LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION chash_moved_ranges(text, text) IS
	'the ranges of positions (inclusive, in chash_position order) whose owner differs between two rings, with the fraction of the hash space each covers';

CREATE OR REPLACE FUNCTION chash_move_summary(from_ring text, to_ring text)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT r.from_node, r.to_node, sum(r.fraction), NULL::bigint
FROM chash.ring_ranges(from_ring, to_ring) r
GROUP BY r.from_node, r.to_node
ORDER BY r.from_node, r.to_node
$$;
COMMENT ON FUNCTION chash_move_summary(text, text) IS
	'for each pair of owners (from, to), the fraction of the hash space that goes from one to the other; from = to stays';

-- Plans between any two rings.  Rings of points that hash keys alike are
-- compared range by range, as before; any other pair key by key: one
-- lookup in each ring (chash.plan_kind says which).  chash_moved_ranges
-- and chash_move_summary without a relation need ranges and say so.
CREATE OR REPLACE FUNCTION chash.plan_kind(from_ring text, to_ring text) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_plan_kind'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash.plan_kind(text, text) IS
	'the checks of every plan; ranges where the rings compare range by range (rings of points hashing keys alike), else keys';

-- Rings that hash keys as their SQL type (key hash postgres_partition,
-- PostgreSQL's hash partitioning) are given a relation's key column as it
-- is, in its own type: whether either ring of a plan does, and then the
-- key column's type (its text matters to the other ring only, whose
-- chash_lookup refuses a type whose text depends on settings)
CREATE OR REPLACE FUNCTION chash.plan_typed_keys(from_ring text, to_ring text)
	RETURNS boolean
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT EXISTS (SELECT FROM chash.ring_config c
			   WHERE c.ring IN (from_ring, to_ring)
				 AND coalesce(c.key_hash, c.hash) = 'postgres_partition')
$$;
COMMENT ON FUNCTION chash.plan_typed_keys(text, text) IS
	'whether either ring of a plan hashes keys as their SQL type (key hash postgres_partition), so that a key column is routed as it is';

CREATE OR REPLACE FUNCTION chash.typed_key_column_type(relation regclass, key_column name)
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
COMMENT ON FUNCTION chash.typed_key_column_type(regclass, name) IS
	'the type of a relation''s key column, routed as it is to a ring that hashes keys as their SQL type; an error if there is no such column';

CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text,
								 relation regclass, key_column name)
	RETURNS SETOF record
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 1000
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	typed boolean := chash.plan_typed_keys(from_ring, to_ring);
	key_type regtype := CASE WHEN typed THEN chash.typed_key_column_type(relation, key_column)
							 ELSE chash.key_column_type(relation, key_column) END;
BEGIN
	PERFORM chash.plan_kind(from_ring, to_ring);
	RETURN QUERY EXECUTE CASE WHEN typed THEN chash.typed_moved_keys_query(relation, key_column)
							  ELSE chash.moved_keys_query(relation, key_column, key_type) END
	USING from_ring, to_ring;
EXCEPTION WHEN datatype_mismatch THEN
	-- the caller's column definition list guessed the key's type wrong
	RAISE EXCEPTION USING
		ERRCODE = 'datatype_mismatch',
		MESSAGE = format('key column %s of %s is of type %s', quote_ident(key_column), relation, key_type),
		DETAIL = 'The column definition list gives the key another type.',
		HINT = format('Declare it AS m(key %1$s, from_node text, to_node text), or pass NULL::%1$s as a fifth argument, which types the result.',
					  key_type);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_moved_keys(text, text, regclass, name) IS
	'every key of a relation whose owner differs between two rings; call with a column definition list: AS (key <column type>, from_node text, to_node text)';

CREATE OR REPLACE FUNCTION chash_move_summary(from_ring text, to_ring text,
								   relation regclass, key_column name)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	key_expr text := CASE WHEN chash.plan_typed_keys(from_ring, to_ring)
						  THEN CASE WHEN chash.typed_key_column_type(relation, key_column) IS NOT NULL
									THEN quote_ident(key_column) END
						  ELSE chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column)) END;
BEGIN
	IF chash.plan_kind(from_ring, to_ring) = 'keys' THEN
		-- no ranges to weigh: the keys only (fraction NULL)
		RETURN QUERY EXECUTE format($q$
			SELECT f, t, NULL::double precision, count(*)
			FROM (SELECT @extschema@.chash_lookup($1, %1$s) AS f,
						 @extschema@.chash_lookup($2, %1$s) AS t
				  FROM %2$s OFFSET 0) s
			WHERE f IS NOT NULL
			GROUP BY f, t
			ORDER BY 1, 2$q$, key_expr, relation)
		USING from_ring, to_ring;
		RETURN;
	END IF;
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
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_move_summary(text, text, regclass, name) IS
	'for every pair of nodes: the fraction of the hash space moving from one to the other (NULL where the rings compare key by key) and the number of the relation''s keys that do';

-- The slots whose owner differs between two rings of slots of one size,
-- as ranges of one old and one new owner each (NULL: no owner)
CREATE OR REPLACE FUNCTION chash_moved_slots(from_ring text, to_ring text)
	RETURNS TABLE(slots int4range, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	a record;
	b record;
	size_a integer;
	size_b integer;
BEGIN
	IF from_ring IS NULL OR to_ring IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'the rings of a plan must not be null';
	END IF;
	IF from_ring = to_ring THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'a plan compares two different rings',
			DETAIL = format('Both rings are "%s".', chash.message_name(from_ring)),
			HINT = 'Copy the ring with chash_ring_copy(), change the copy, and compare the two.';
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO a
	FROM chash.ring_config c WHERE c.ring = from_ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(from_ring));
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO b
	FROM chash.ring_config c WHERE c.ring = to_ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(to_ring));
	END IF;
	-- the tables as built: the library knows their sizes
	size_a := chash.table_size(from_ring);
	size_b := chash.table_size(to_ring);
	-- elasticsearch's slot is floorMod of the signed hash, the others' the
	-- unsigned position mod the size
	IF size_a IS NULL OR size_b IS NULL OR size_a <> size_b OR
	   a.key_hash <> b.key_hash OR a.hash_tag IS DISTINCT FROM b.hash_tag OR
	   (a.algorithm = 'elasticsearch') <> (b.algorithm = 'elasticsearch') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('rings "%s" and "%s" are not tables of slots that hash keys alike',
							 chash.message_name(from_ring), chash.message_name(to_ring)),
			DETAIL = format('Ring "%s" uses algorithm "%s" with %s slots, key hash "%s" and hash tag %s; ring "%s" "%s" with %s, "%s" and %s.',
							chash.message_name(from_ring), a.algorithm, coalesce(size_a::text, 'no'), a.key_hash,
							coalesce('"' || a.hash_tag || '"', 'none'),
							chash.message_name(to_ring), b.algorithm, coalesce(size_b::text, 'no'), b.key_hash,
							coalesce('"' || b.hash_tag || '"', 'none')),
			HINT = 'Compare other rings key by key: chash_moved_keys().';
	END IF;
	-- each ring's owner of each slot, then the slots whose owner differs
	RETURN QUERY
	WITH fa AS (
		SELECT generate_series(lower(x.slots), upper(x.slots) - 1) AS s, x.node
		FROM @extschema@.chash_slot_ranges(from_ring) x
	), fb AS (
		SELECT generate_series(lower(x.slots), upper(x.slots) - 1) AS s, x.node
		FROM @extschema@.chash_slot_ranges(to_ring) x
	), moved AS (
		SELECT t.s, fa.node AS from_node, fb.node AS to_node,
			   t.s - row_number() OVER (PARTITION BY fa.node, fb.node ORDER BY t.s) AS run
		FROM generate_series(0, size_a - 1) AS t(s)
		LEFT JOIN fa ON fa.s = t.s
		LEFT JOIN fb ON fb.s = t.s
		WHERE fa.node IS DISTINCT FROM fb.node
	)
	SELECT int4range(min(m.s), max(m.s), '[]'), m.from_node, m.to_node
	FROM moved m
	GROUP BY m.run, m.from_node, m.to_node
	ORDER BY min(m.s);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_moved_slots(text, text) IS
	'the slots whose owner differs between two tables of slots of one size (slots and maglev rings, or two elasticsearch rings), as ranges with their old and new owner';

/*
 * Keys are hashed by their text (bytea by its bytes), so a key type whose
 * text depends on session settings would be planned, moved and reported
 * differently per session: a timestamptz key under two TimeZones gave two
 * different sets of moved keys.  The settings a type's text depends on,
 * NULL if none: domains and arrays are judged by their base and element
 * types, and bytea only as itself (as text it follows bytea_output).
 */
CREATE OR REPLACE FUNCTION chash.key_text_settings(key_type regtype)
	RETURNS text
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
WITH RECURSIVE t(oid, depth) AS (
	SELECT key_type::oid, 0
	UNION ALL
	SELECT CASE WHEN y.typtype = 'd' THEN y.typbasetype ELSE y.typelem END, t.depth + 1
	FROM t JOIN pg_type y ON y.oid = t.oid
	WHERE (y.typtype = 'd' OR (y.typcategory = 'A' AND y.typelem <> 0)) AND t.depth < 32
)
SELECT CASE
	WHEN y.oid = 'bytea'::regtype THEN CASE WHEN key_type = 'bytea'::regtype THEN NULL ELSE 'bytea_output' END
	WHEN y.typtype = 'e' OR y.typcategory = 'S'
		 OR y.oid IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype,
					  'oid'::regtype, 'uuid'::regtype, 'boolean'::regtype, 'inet'::regtype, 'cidr'::regtype,
					  'macaddr'::regtype, 'macaddr8'::regtype, 'json'::regtype, 'jsonb'::regtype,
					  'bit'::regtype, 'bit varying'::regtype, '"char"'::regtype) THEN NULL
	WHEN y.oid IN ('real'::regtype, 'double precision'::regtype) THEN 'extra_float_digits'
	WHEN y.oid IN ('timestamp with time zone'::regtype, 'time with time zone'::regtype) THEN 'DateStyle and TimeZone'
	WHEN y.oid IN ('date'::regtype, 'timestamp without time zone'::regtype, 'time without time zone'::regtype) THEN 'DateStyle'
	WHEN y.oid = 'interval'::regtype THEN 'IntervalStyle'
	WHEN y.oid = 'money'::regtype THEN 'lc_monetary'
	ELSE 'whatever its output function reads'
END
FROM t JOIN pg_type y ON y.oid = t.oid
ORDER BY t.depth DESC LIMIT 1
$$;
COMMENT ON FUNCTION chash.key_text_settings(regtype) IS
	'the session settings the text of a key type depends on, NULL if none';

CREATE OR REPLACE FUNCTION chash.key_column_type(relation regclass, key_column name)
	RETURNS regtype
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_type regtype;
	settings text;
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
	settings := chash.key_text_settings(key_type);
	IF settings IS NOT NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'feature_not_supported',
			MESSAGE = format('key column "%s" of relation %s has type %s, whose text depends on settings',
							 key_column, relation, key_type),
			DETAIL = format('Keys are hashed by their text, and the text of type %s depends on %s: sessions with other settings would route its rows elsewhere.',
							key_type, settings),
			HINT = 'Key the rows by a column whose text no setting changes (an integer, numeric, text, uuid or bytea column), such as a generated column computed from this one.';
	END IF;
	RETURN key_type;
END
$$;
COMMENT ON FUNCTION chash.key_column_type(regclass, name) IS
	'the type of a relation''s key column; an error if there is no such column';

-- The same, typed by an argument of the key column's type (NULL::bigint,
-- say), as populate_record is: no column definition list needed
CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text,
								 relation regclass, key_column name, as_type anyelement)
	RETURNS TABLE(key anyelement, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 1000
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	typed boolean := chash.plan_typed_keys(from_ring, to_ring);
	column_type regtype := CASE WHEN typed THEN chash.typed_key_column_type(relation, key_column)
								ELSE chash.key_column_type(relation, key_column) END;
BEGIN
	IF pg_typeof(as_type) <> column_type THEN
		RAISE EXCEPTION USING ERRCODE = 'datatype_mismatch',
			MESSAGE = format('as_type has type %s, but column "%s" of relation %s has type %s',
							 pg_typeof(as_type), key_column, relation, column_type),
			HINT = format('Pass NULL::%s as as_type.', column_type);
	END IF;
	PERFORM chash.plan_kind(from_ring, to_ring);
	RETURN QUERY EXECUTE CASE WHEN typed THEN chash.typed_moved_keys_query(relation, key_column)
							  ELSE chash.moved_keys_query(relation, key_column, column_type) END
	USING from_ring, to_ring;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_moved_keys(text, text, regclass, name, anyelement) IS
	'every key of a relation whose owner differs between two rings, typed as as_type, a value (NULL will do) of the key column''s type: chash_moved_keys(a, b, relation, column, NULL::bigint)';

CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text, keys anyarray)
	RETURNS TABLE(key anyelement, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 100
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	key_type regtype;
	settings text;
BEGIN
	PERFORM chash.plan_kind(from_ring, to_ring);
	IF keys IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'keys must not be null';
	END IF;
	SELECT y.typelem::regtype INTO key_type FROM pg_type y WHERE y.oid = pg_typeof(keys);
	IF chash.plan_typed_keys(from_ring, to_ring) THEN
		-- as they are (the other ring's chash_lookup checks their text)
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k) AS f,
						 @extschema@.chash_lookup(to_ring, u.k) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
		RETURN;
	END IF;
	settings := chash.key_text_settings(key_type);
	IF settings IS NOT NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'feature_not_supported',
			MESSAGE = format('keys of type %s have a text that depends on settings', key_type),
			DETAIL = format('Keys are hashed by their text, and the text of type %s depends on %s: sessions with other settings would route them elsewhere.',
							key_type, settings),
			HINT = 'Pass the keys as the text, integers or bytea the application routes by.';
	END IF;
	IF key_type = 'bytea'::regtype THEN
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::bytea) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::bytea) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	ELSIF key_type IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'uuid'::regtype) THEN
		-- as chash_lookup routes them (in binary on cassandra_murmur3 rings)
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k) AS f,
						 @extschema@.chash_lookup(to_ring, u.k) AS t
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
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_moved_keys(text, text, anyarray) IS
	'every key of an array whose owner differs between two rings, typed as the array''s elements';

-- What the plans and reports route a key column by: the column itself
-- where chash_lookup has its type's own form (bytea, integers, uuid; a
-- cassandra_murmur3 ring hashes those in binary, as CQL serialises them),
-- its text otherwise, which is how chash_lookup hashes any other type.
-- (not STRICT, as chash.key_expr below)
CREATE OR REPLACE FUNCTION chash.routing_key_expr(key_column name, key_type regtype)
	RETURNS text
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE WHEN key_type IS NULL THEN NULL
			WHEN (SELECT CASE WHEN y.typtype = 'd' THEN y.typbasetype ELSE y.oid END
				  FROM pg_type y WHERE y.oid = key_type)
				 IN ('bytea'::regtype, 'smallint'::regtype, 'integer'::regtype,
					 'bigint'::regtype, 'uuid'::regtype) THEN quote_ident(key_column)
			ELSE quote_ident(key_column) || '::text' END
$$;
COMMENT ON FUNCTION chash.routing_key_expr(name, regtype) IS
	'the expression the plans and reports route a key column by: the column for bytea, integer and uuid columns, its text otherwise';

-- The query of chash_moved_keys with a relation: each key looked up in
-- both rings ($1 and $2) as chash_lookup routes it, those whose owners
-- differ kept; the key in its column's type
CREATE OR REPLACE FUNCTION chash.moved_keys_query(relation regclass, key_column name, key_type regtype)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format($q$
		SELECT k, f, t
		FROM (SELECT %1$I AS k,
					 @extschema@.chash_lookup($1, %2$s) AS f,
					 @extschema@.chash_lookup($2, %2$s) AS t
			  FROM %3$s OFFSET 0) s
		WHERE f <> t$q$, key_column, chash.routing_key_expr(key_column, key_type), relation)
$$;
COMMENT ON FUNCTION chash.moved_keys_query(regclass, name, regtype) IS
	'the query of chash_moved_keys with a relation, from ring $1 to ring $2';

-- The same where a ring hashes keys as their SQL type: the column as it is
CREATE OR REPLACE FUNCTION chash.typed_moved_keys_query(relation regclass, key_column name)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format($q$
		SELECT k, f, t
		FROM (SELECT %1$I AS k,
					 @extschema@.chash_lookup($1, %1$I) AS f,
					 @extschema@.chash_lookup($2, %1$I) AS t
			  FROM %2$s OFFSET 0) s
		WHERE f <> t$q$, key_column, relation)
$$;
COMMENT ON FUNCTION chash.typed_moved_keys_query(regclass, name) IS
	'the query of chash_moved_keys with a relation, from ring $1 to ring $2, where a ring hashes keys as their SQL type: the key column as it is';

-- (not STRICT: a strict call with a NULL constant would not evaluate
-- chash.key_column_type, which names the NULL argument)
CREATE OR REPLACE FUNCTION chash.key_expr(key_column name, key_type regtype)
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE WHEN key_type IS NULL THEN NULL
			WHEN key_type = 'bytea'::regtype THEN quote_ident(key_column)
			ELSE quote_ident(key_column) || '::text' END
$$;
COMMENT ON FUNCTION chash.key_expr(name, regtype) IS
	'the expression the plans hash for a key column: the column itself for bytea, its text otherwise';

