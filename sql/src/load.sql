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

CREATE OR REPLACE FUNCTION chash_load(ring text, relation regclass, key_column name,
									  cost text DEFAULT 'rows', sample double precision DEFAULT NULL)
	RETURNS TABLE(unit integer, node text, rows double precision, bytes double precision,
				  load double precision, rows_error double precision, bytes_error double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 1000
	SET search_path = pg_catalog, pg_temp
	-- (a join of the units to their counts by nested loop would be
	-- quadratic in the units: 16,384 slots, millions of points)
	SET enable_nestloop = off
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
	 */
	RETURN QUERY EXECUTE format($q$
		WITH counted AS (
			SELECT chash.position_unit($1, @extschema@.chash_position($1, %1$s)) AS unit,
				   count(*)::double precision AS k,
				   sum(pg_column_size(t.*))::double precision AS b,
				   sum(pg_column_size(t.*)::double precision ^ 2) AS b2
			FROM %2$s t %3$s
			WHERE t.%4$I IS NOT NULL
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
