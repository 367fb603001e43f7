/*
 * The load a rebalance plans from: a table's rows and bytes in each unit a
 * plan can give to another node (a ring's points, each with the arc up to
 * it, or a table's slots).
 */
CREATE OR REPLACE FUNCTION chash.ring_units(ring text)
	RETURNS TABLE(unit integer, node text)
	AS 'MODULE_PATHNAME', 'chash_ring_units'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_units(text) IS
	'the units of a ring a rebalance can reassign (its points in ring order, or its table''s slots), each with its node (NULL: a slot of none)';

CREATE OR REPLACE FUNCTION chash.position_unit(ring text, key_position bigint)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_position_unit'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.position_unit(text, bigint) IS
	'the unit of a ring that a position, as chash_position gives it, falls in';

CREATE OR REPLACE FUNCTION chash.position_replicas(ring text, key_position bigint, replicas integer,
													distinct_zones boolean)
	RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_position_replicas'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.position_replicas(text, bigint, integer, boolean) IS
	'the first replicas nodes of a position''s preference order, as chash_lookup_n gives a key''s (distinct_zones: picked by zones first)';

CREATE OR REPLACE FUNCTION chash.rebalance_unit_rows(ring text, names text[], positions bigint[],
													 loads double precision[],
													 OUT unit_token bigint[], OUT unit_owner integer[],
													 OUT unit_load double precision[], OUT row_pos bigint[],
													 OUT row_upto double precision[], OUT first_row integer[],
													 OUT last_row integer[], OUT cut_row integer[], OUT by_node integer[],
													 OUT node_first integer[], OUT node_last integer[])
	AS 'MODULE_PATHNAME', 'chash_rebalance_unit_rows'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.rebalance_unit_rows(text, text[], bigint[], double precision[]) IS
	'what a plan of tokens works on: the units of a ring of points with their owners (indexes of names), the rows'' positions unit by unit with running loads, and the units node by node, heaviest first';

CREATE OR REPLACE FUNCTION chash_load(ring text, relation regclass, key_column name,
									  cost text DEFAULT 'rows', sample double precision DEFAULT NULL)
	RETURNS TABLE(unit integer, node text, rows double precision, bytes double precision,
				  load double precision, rows_error double precision, bytes_error double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 1000
	SET search_path = pg_catalog, pg_temp
	-- (a join of the units to their counts by nested loop would be
	-- quadratic in the units: 16,384 slots, millions of points)
	SET enable_nestloop = off
	SET jit = off
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	key_expr text := chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column));
	rate double precision := coalesce(sample, 1);
BEGIN
	IF ring IS NULL OR cost IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and cost must not be null';
	END IF;
	IF cost NOT IN ('rows', 'bytes') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown cost "%s"', chash.message_name(cost)),
			HINT = 'The costs are "rows" and "bytes" (pg_column_size of each row).';
	END IF;
	IF sample IS NOT NULL AND NOT (sample > 0 AND sample <= 1) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'sample must be a fraction greater than 0 and at most 1',
			DETAIL = format('sample is %s.', sample);
	END IF;
	/*
	 * One pass over the table (a Bernoulli sample of it: each row kept with
	 * probability rate, the same rows on every call), counted per unit and
	 * scaled up; the error is one standard error of that estimate, 0 for
	 * the whole table.  Keys that are NULL have no owner and count nowhere.
	 * A row's bytes are taken in the scan (OFFSET 0 keeps them there): a
	 * whole row that a sort carries is stored again with a shorter header,
	 * and would count 3 bytes less if of at most 130.
	 */
	RETURN QUERY EXECUTE format($q$
		WITH counted AS (
			SELECT s.unit, count(*)::double precision AS k,
				   sum(s.size)::double precision AS b,
				   sum(s.size::double precision ^ 2) AS b2
			FROM (SELECT chash.position_unit($1, @extschema@.chash_position($1, %1$s)) AS unit,
						 pg_column_size(t.*) AS size
				  FROM %2$s t %3$s
				  WHERE t.%4$I IS NOT NULL OFFSET 0) s
			GROUP BY 1)
		SELECT u.unit, u.node, l.rows, l.bytes,
			   CASE WHEN $2 = 'rows' THEN l.rows ELSE l.bytes END,
			   l.rows_error, l.bytes_error
		FROM chash.ring_units($1) u
		LEFT JOIN counted c ON c.unit = u.unit,
		LATERAL (SELECT coalesce(c.k, 0) / $3 AS rows, coalesce(c.b, 0) / $3 AS bytes,
						sqrt(coalesce(c.k, 0) * (1 - $3)) / $3 AS rows_error,
						sqrt(coalesce(c.b2, 0) * (1 - $3)) / $3 AS bytes_error) l
		ORDER BY u.unit$q$,
		key_expr, relation,
		CASE WHEN sample IS NULL OR sample = 1 THEN ''
			 ELSE format('TABLESAMPLE BERNOULLI (%s) REPEATABLE (0)', rate * 100) END,
		key_column)
	USING ring, cost, rate;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_load(text, regclass, name, text, double precision) IS
	'a relation''s rows and bytes in each unit of a ring a rebalance can reassign (its points or its slots), with the node owning the unit; load is the cost chosen; with sample, estimates from a Bernoulli sample and their standard errors';

/*
 * The same load read from the shards: each node's target (a schema, where
 * the table is named relname, or a schema-qualified table, local or
 * foreign) read once, as the calling role, and its rows counted by the
 * unit the ring places their keys in.  Rows a node holds that the ring
 * places elsewhere are counted where the ring places them, and a NOTICE a
 * table says how many there are.
 */
CREATE OR REPLACE FUNCTION chash_shard_load(ring text, key_column name, cost text DEFAULT 'rows',
											sample double precision DEFAULT NULL,
											relname name DEFAULT NULL)
	RETURNS TABLE(unit integer, node text, rows double precision, bytes double precision,
				  load double precision, rows_error double precision, bytes_error double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 1000
	SET search_path = pg_catalog, pg_temp
	-- (as chash_load: no quadratic join of the units to their counts)
	SET enable_nestloop = off
	SET jit = off
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	rate double precision := coalesce(sample, 1);
	n record;
	parts text[];
	rel_name text;
	rel regclass;
	rels regclass[] := '{}';	-- the tables read, each once
	rel_nodes text[] := '{}';	-- each node, beside the index of its table
	rel_of integer[] := '{}';
	i integer;
	parts_sql text[] := '{}';
	bytes_sql text := CASE WHEN cost = 'bytes'
					  THEN 'sum(pg_column_size(t.*))::double precision, sum(pg_column_size(t.*)::double precision ^ 2)'
					  ELSE 'NULL::double precision, NULL::double precision' END;
	c_src integer[];
	c_unit integer[];
	c_k double precision[];
	c_b double precision[];
	c_b2 double precision[];
	m record;
BEGIN
	IF ring IS NULL OR key_column IS NULL OR cost IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, key_column and cost must not be null';
	END IF;
	IF cost NOT IN ('rows', 'bytes') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown cost "%s"', chash.message_name(cost)),
			HINT = 'The costs are "rows" and "bytes" (pg_column_size of each row as read).';
	END IF;
	IF sample IS NOT NULL AND NOT (sample > 0 AND sample <= 1) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'sample must be a fraction greater than 0 and at most 1',
			DETAIL = format('sample is %s.', sample);
	END IF;
	-- the ring and its units, before any shard is read (an error for
	-- rings without units)
	PERFORM chash.position_unit(ring, 0);

	FOR n IN SELECT c.node, c.target FROM chash.node_config c
			 WHERE c.ring = chash_shard_load.ring ORDER BY c.node LOOP
		IF n.target IS NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'object_not_in_prerequisite_state',
				MESSAGE = format('node "%s" of ring "%s" has no target',
								 chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'Say where its rows live with chash_node_set(ring, node, target => ...).';
		END IF;
		-- a schema, or a schema-qualified table, as chash_migration_sql reads it
		BEGIN
			parts := parse_ident(n.target);
		EXCEPTION WHEN invalid_parameter_value THEN
			parts := NULL;
		END;
		IF cardinality(parts) = 1 AND relname IS NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'null_value_not_allowed',
				MESSAGE = format('target "%s" of node "%s" of ring "%s" is a schema, and relname is null',
								 chash.message_name(n.target), chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'Name the table the nodes'' schemas hold with relname => ..., or give the node a schema-qualified table as its target.';
		ELSIF cardinality(parts) = 1 THEN
			parts := parts || relname::text;
		ELSIF cardinality(parts) IS DISTINCT FROM 2 THEN
			RAISE EXCEPTION USING
				ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('target "%s" of node "%s" of ring "%s" is not a table',
								 chash.message_name(n.target), chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'A PostgreSQL target is a schema or a schema-qualified table.';
		END IF;
		rel_name := format('%I.%I', parts[1], parts[2]);
		-- the caller reads the shards with their own rights
		IF to_regnamespace(quote_ident(parts[1])) IS NOT NULL AND
		   NOT has_schema_privilege(to_regnamespace(quote_ident(parts[1])), 'USAGE') THEN
			RAISE EXCEPTION USING
				ERRCODE = 'insufficient_privilege',
				MESSAGE = format('permission denied for schema %s, which holds the target of node "%s" of ring "%s"',
								 quote_ident(parts[1]), chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'chash_shard_load reads each node''s target as the calling role: it needs USAGE on the schema and SELECT on the table.';
		END IF;
		rel := to_regclass(rel_name);
		IF rel IS NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'undefined_table',
				MESSAGE = format('relation %s, the target of node "%s" of ring "%s", does not exist',
								 chash.message_name(rel_name), chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'Create it, or say where the node''s rows live with chash_node_set(ring, node, target => ...).';
		END IF;
		PERFORM chash.key_column_type(rel, key_column);
		IF NOT has_column_privilege(rel, key_column, 'SELECT') OR
		   (cost = 'bytes' AND EXISTS (
				SELECT FROM pg_attribute a
				WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped
				  AND NOT has_column_privilege(rel, a.attnum, 'SELECT'))) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'insufficient_privilege',
				MESSAGE = format('permission denied for table %s, the target of node "%s" of ring "%s"',
								 rel, chash.message_name(n.node), chash.message_name(ring)),
				HINT = 'chash_shard_load reads each node''s target as the calling role: it needs SELECT on the key column, and with cost "bytes" on the whole row.';
		END IF;
		IF sample IS NOT NULL AND sample < 1 AND
		   (SELECT c.relkind FROM pg_class c WHERE c.oid = rel) NOT IN ('r', 'm', 'p') THEN
			RAISE EXCEPTION USING
				ERRCODE = 'feature_not_supported',
				MESSAGE = format('cannot sample relation %s, the target of node "%s" of ring "%s"',
								 rel, chash.message_name(n.node), chash.message_name(ring)),
				DETAIL = 'Only tables and materialized views can be sampled; a sample of a foreign table would be taken after its rows crossed the network.',
				HINT = 'Read it whole (sample => NULL), or call chash_load on the shard itself.';
		END IF;
		i := array_position(rels, rel);
		IF i IS NULL THEN
			rels := rels || rel;
			i := cardinality(rels);
			/*
			 * One pass over the table (a Bernoulli sample of a local one),
			 * counted per unit.  Only the key column is read unless bytes
			 * are the cost: a foreign table sends only that column then.
			 */
			parts_sql := parts_sql || format($q$
				SELECT %1$s AS src, chash.position_unit($1, @extschema@.chash_position($1, %2$s)) AS unit,
					   count(*)::double precision AS k, %3$s
				FROM %4$s t %5$s
				WHERE t.%6$I IS NOT NULL
				GROUP BY 2$q$,
				i, chash.routing_key_expr(key_column, chash.key_column_type(rel, key_column)),
				bytes_sql, rel,
				CASE WHEN sample IS NULL OR sample = 1 THEN ''
					 ELSE format('TABLESAMPLE BERNOULLI (%s) REPEATABLE (0)', rate * 100) END,
				key_column);
		END IF;
		rel_nodes := rel_nodes || n.node;
		rel_of := rel_of || i;
	END LOOP;

	IF cardinality(parts_sql) > 0 THEN
		EXECUTE format('SELECT array_agg(c.src), array_agg(c.unit), array_agg(c.k), array_agg(c.b), array_agg(c.b2)
						FROM (%s) AS c(src, unit, k, b, b2)',
					   array_to_string(parts_sql, ' UNION ALL '))
		INTO c_src, c_unit, c_k, c_b, c_b2
		USING ring;
	END IF;

	-- rows a table holds in units the ring gives none of its nodes
	FOR m IN
		SELECT c.src, sum(c.k) AS k
		FROM unnest(c_src, c_unit, c_k) AS c(src, unit, k)
		JOIN chash.ring_units(ring) u ON u.unit = c.unit
		WHERE NOT EXISTS (SELECT FROM unnest(rel_of, rel_nodes) AS o(src, node)
						  WHERE o.src = c.src AND o.node = u.node)
		GROUP BY c.src ORDER BY c.src
	LOOP
		RAISE NOTICE USING
			MESSAGE = format('table %s of %s of ring "%s" holds %s %s that the ring places elsewhere',
							 rels[m.src],
							 (SELECT CASE WHEN count(*) = 1 THEN 'node ' ELSE 'nodes ' END ||
									 string_agg(format('"%s"', chash.message_name(o.node)), ', ' ORDER BY o.node)
							  FROM unnest(rel_of, rel_nodes) AS o(src, node) WHERE o.src = m.src),
							 chash.message_name(ring),
							 CASE WHEN rate < 1 THEN 'about ' ELSE '' END || round(m.k / rate),
							 CASE WHEN round(m.k / rate) = 1 THEN 'row' ELSE 'rows' END),
			DETAIL = 'They are counted in the units the ring places their keys in.',
			HINT = 'Move them to their nodes, or delete them where they are copies.';
	END LOOP;

	RETURN QUERY
		WITH counted AS (
			SELECT c.unit, sum(c.k) AS k, sum(c.b) AS b, sum(c.b2) AS b2
			FROM unnest(c_unit, c_k, c_b, c_b2) AS c(unit, k, b, b2)
			GROUP BY c.unit)
		SELECT u.unit, u.node, l.rows, l.bytes,
			   CASE WHEN cost = 'rows' THEN l.rows ELSE l.bytes END,
			   l.rows_error, l.bytes_error
		FROM chash.ring_units(ring) u
		LEFT JOIN counted c ON c.unit = u.unit,
		LATERAL (SELECT coalesce(c.k, 0) / rate AS rows,
						CASE WHEN cost = 'bytes' THEN coalesce(c.b, 0) / rate END AS bytes,
						sqrt(coalesce(c.k, 0) * (1 - rate)) / rate AS rows_error,
						CASE WHEN cost = 'bytes' THEN sqrt(coalesce(c.b2, 0) * (1 - rate)) / rate END AS bytes_error) l
		ORDER BY u.unit;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_shard_load(text, name, text, double precision, name) IS
	'chash_load read from the shards: each node''s target (a schema''s table relname, or a schema-qualified table, local or foreign) read once as the caller, its rows counted by the unit the ring places them in; bytes only with cost bytes (rows as read); a NOTICE for rows a node holds that the ring places elsewhere';
