CREATE OR REPLACE FUNCTION chash.ring_arcs(ring text)
	RETURNS TABLE(start double precision, stop double precision, node text)
	AS 'MODULE_PATHNAME', 'chash_ring_arcs'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
-- The pictures draw computed placements: tables by their slots, modulo
-- and jump by their members
COMMENT ON FUNCTION chash.ring_arcs(text) IS
	'the ring as arcs of one owner each, in fractions of the hash space from position 0 clockwise; of a table (slots, maglev, elasticsearch), in fractions of its slots; of modulo and jump, an equal arc a member in member order; none for rendezvous';

CREATE OR REPLACE FUNCTION chash_ring_stats(ring text)
	RETURNS TABLE(nodes integer, points integer, peak_to_mean double precision,
				  stddev double precision, min_ratio double precision, max_ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT count(*)::integer, coalesce(sum(o.points), 0)::integer,
	   max(o.ratio) / avg(o.ratio), stddev_pop(o.ratio), min(o.ratio), max(o.ratio)
FROM @extschema@.chash_ownership(chash_ring_stats.ring) o
WHERE o.state = 'active'
$$;
COMMENT ON FUNCTION chash_ring_stats(text) IS
	'a ring''s imbalance from exact ownership: active nodes, points, and over the active nodes the largest owned/expected ratio over the mean, their standard deviation, the smallest and the largest';

CREATE OR REPLACE FUNCTION chash_key_distribution(ring text, relation regclass, key_column name)
	RETURNS TABLE(node text, keys bigint, share double precision,
				  expected double precision, ratio double precision,
				  bytes bigint, bytes_share double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	key_expr text := chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	IF ring IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring must not be null';
	END IF;
	/*
	 * The bytes of a row are its pg_column_size, taken in the scan (OFFSET
	 * 0 keeps it there): a whole row that a sort carries is stored again
	 * with a shorter header, and would count 3 bytes less if of at most 130.
	 */
	RETURN QUERY EXECUTE format($q$
		WITH counted AS (
			SELECT s.node, count(*) AS keys, sum(s.size) AS bytes
			FROM (SELECT @extschema@.chash_lookup($1, %1$s) AS node, pg_column_size(r.*) AS size
				  FROM %2$s r WHERE r.%3$I IS NOT NULL OFFSET 0) s
			GROUP BY 1),
		total AS (SELECT sum(c.keys) AS keys, sum(c.bytes) AS bytes FROM counted c)
		SELECT o.node, coalesce(c.keys, 0)::bigint,
			   coalesce(c.keys, 0)::double precision / nullif(t.keys, 0),
			   o.expected,
			   coalesce(c.keys, 0)::double precision / nullif(t.keys, 0) / nullif(o.expected, 0),
			   coalesce(c.bytes, 0)::bigint,
			   coalesce(c.bytes, 0)::double precision / nullif(t.bytes, 0)
		FROM @extschema@.chash_ownership($1) WITH ORDINALITY o
		LEFT JOIN counted c ON c.node = o.node
		CROSS JOIN total t
		ORDER BY o.ordinality$q$, key_expr, relation, key_column)
	USING ring;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_key_distribution(text, regclass, name) IS
	'the keys of a relation per node of a ring, in one pass: their number, share, the expected share and the ratio, and their rows'' bytes (pg_column_size) and share of the bytes';

CREATE OR REPLACE FUNCTION chash.ring_ownership(ring text, replicas integer, require_active boolean)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer, boolean) IS
	'each node''s points, the fraction of the hash space whose keys it holds (each key held by its first replicas distinct nodes), and the fraction expected of it; with require_active, an error for a ring with no active node';

CREATE OR REPLACE FUNCTION chash.ownership(ring text, replicas integer, require_active boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
-- A left join, so that chash.ring_ownership() runs, and raises its errors
-- (a NULL or unknown ring), whatever the plan: an inner join may never call
-- it, where node_config has no row of the ring (a hash join with nothing to
-- probe, or 18's planner seeing a NULL ring).  Every node it returns is in
-- node_config.
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(ownership.ring, ownership.replicas, ownership.require_active) o
LEFT JOIN chash.node_config n ON n.ring = ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash.ownership(text, integer, boolean) IS
	'chash_ownership, and with require_active false also for a ring with no active node';

CREATE OR REPLACE FUNCTION chash_ownership(ring text, replicas integer DEFAULT 1)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT * FROM chash.ownership(chash_ownership.ring, chash_ownership.replicas, true) $$;
COMMENT ON FUNCTION chash_ownership(text, integer) IS
	'each node''s exact share of the hash space (owned), its share of the active weight (expected) and their ratio; with replicas, the keys it holds when each key is stored on chash_lookup_n(..., replicas)';

-- Balance of every ring: NULL figures where a ring cannot be built or has
-- no active node, instead of an error
CREATE OR REPLACE FUNCTION chash.balance(ring text)
	RETURNS TABLE(nodes integer, points integer, peak_to_mean double precision,
				  stddev double precision, min_ratio double precision, max_ratio double precision)
	LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE ROWS 1
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF chash.ring_problem(ring) IS NOT NULL THEN
		RETURN;
	END IF;
	IF EXISTS (SELECT FROM chash.node_config n WHERE n.ring = balance.ring AND n.state = 'active') THEN
		RETURN QUERY SELECT * FROM @extschema@.chash_ring_stats(ring);
	ELSE
		-- as chash_ring_stats over no active node would say
		RETURN QUERY SELECT 0, 0, NULL::double precision, NULL::double precision,
							NULL::double precision, NULL::double precision;
	END IF;
END
$$;
COMMENT ON FUNCTION chash.balance(text) IS
	'chash_ring_stats of a ring for the view ring_balance: no row for a ring that cannot be built, no figures for one with no active node';

-- Ownership by zones: chash_ownership(ring, replicas, distinct_zones)
CREATE OR REPLACE FUNCTION chash.ring_ownership(ring text, replicas integer, require_active boolean,
									 distinct_zones boolean)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer, boolean, boolean) IS
	'chash.ring_ownership, the replicas picked by zones with distinct_zones';

CREATE OR REPLACE FUNCTION chash.ownership(ring text, replicas integer, require_active boolean,
								distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
-- a left join, as chash.ownership(ring, replicas, require_active) says
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(ownership.ring, ownership.replicas, ownership.require_active,
						  ownership.distinct_zones) o
LEFT JOIN chash.node_config n ON n.ring = ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash.ownership(text, integer, boolean, boolean) IS
	'chash_ownership by zones if asked, and with require_active false also for a ring with no active node';

CREATE OR REPLACE FUNCTION chash_ownership(ring text, replicas integer, distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT * FROM chash.ownership(chash_ownership.ring, chash_ownership.replicas, true,
										 chash_ownership.distinct_zones) $$;
COMMENT ON FUNCTION chash_ownership(text, integer, boolean) IS
	'each node''s exact share of the keys held on chash_lookup_n(..., replicas, distinct_zones), its share of the active weight (expected, whatever the zones) and their ratio';

