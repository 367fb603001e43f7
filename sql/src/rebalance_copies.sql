/*
 * Rebalancing the copies of a ring of tokens (replicas above 1): where a
 * key's copies go is the walk from its token, so the plan shifts tokens and
 * cuts new ones into ranges, read in the rows' cumulative load, in C
 * (placement/copy_plan.c).
 */

-- The plan's tokens: each node that holds some, its tokens in ring order
CREATE OR REPLACE FUNCTION chash.rebalance_copy_tokens(ring text, positions bigint[],
													   position_load double precision[], names text[],
													   limits double precision[], drained boolean[],
													   replicas integer, distinct_zones boolean,
													   max_moved double precision)
	RETURNS TABLE(node text, tokens bigint[])
	AS 'MODULE_PATHNAME', 'chash_rebalance_copy_tokens'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.rebalance_copy_tokens(text, bigint[], double precision[], text[], double precision[], boolean[], integer, boolean, double precision) IS
	'the tokens of a ring that even out the copies of rows (positions with their loads) to each active node''s limit, moving at most max_moved of their load, drained nodes giving all their tokens; each node that holds tokens, with them';

-- The copies that move between two placings of the same positions, paired
-- as chash.rebalance_copy_moves pairs them (each copy a node loses with one
-- a node gains, in preference order), but by joins: its slices of the
-- arrays cost a pass over them each, too much for 100,000 positions
CREATE OR REPLACE FUNCTION chash.rebalance_copy_pairs(before integer[], after integer[],
													  position_load double precision[], replicas integer)
	RETURNS TABLE(lost integer, gained integer, moved double precision)
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	WITH b AS (SELECT (y.o - 1) / replicas + 1 AS i, y.o, y.x AS node
			   FROM unnest(before) WITH ORDINALITY AS y(x, o)),
		 a AS (SELECT (y.o - 1) / replicas + 1 AS i, y.o, y.x AS node
			   FROM unnest(after) WITH ORDINALITY AS y(x, o)),
		 l AS (SELECT b.i, b.node, row_number() OVER (PARTITION BY b.i ORDER BY b.o) AS r
			   FROM b WHERE NOT EXISTS (SELECT FROM a WHERE a.i = b.i AND a.node = b.node)),
		 g AS (SELECT a.i, a.node, row_number() OVER (PARTITION BY a.i ORDER BY a.o) AS r
			   FROM a WHERE NOT EXISTS (SELECT FROM b WHERE b.i = a.i AND b.node = a.node))
	SELECT l.node, g.node, sum(c.load)
	FROM l
	JOIN g ON g.i = l.i AND g.r = l.r
	JOIN unnest(position_load) WITH ORDINALITY AS c(load, i) ON c.i = l.i
	GROUP BY l.node, g.node
$$;
COMMENT ON FUNCTION chash.rebalance_copy_pairs(integer[], integer[], double precision[], integer) IS
	'the load of the copies that move between two placings of positions (replicas nodes each), by pair of the node that loses a copy and the node that gains it';

/*
 * Rebalancing the copies of a ring of tokens (replicas above 1): the plan
 * of chash.rebalance_copy_tokens, which lowers the sum of every node's
 * load over its limit (target_peak times its target) step by step, each
 * step the change that takes off most for what it moves: a token shifted
 * between its neighbours (the rows between change from one range's copies
 * to the next's), or a new token for a node with room cut into a range at
 * the rows' positions (it comes first there, the last copy drops out).  A
 * drain gives each of the drained nodes' tokens to the node that leaves
 * the loads most even, or takes it out, so only their copies move; the
 * drained nodes are then down.  The figures are the rows' positions placed
 * on both rings by chash_lookup_n's rule.
 */
CREATE OR REPLACE FUNCTION chash.rebalance_token_copies(ring text, into_ring text, relation regclass,
														key_column name, target_peak double precision,
														cost text, drain text[], max_moved double precision,
														replicas integer, distinct_zones boolean)
	RETURNS TABLE(from_node text, to_node text, slots int4multirange, tokens bigint[], units integer,
				  moved double precision)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
	SET jit = off
	AS $$
DECLARE
	names text[];
	drained boolean[];
	limits double precision[];
	loads double precision[];
	positions bigint[];
	position_load double precision[];
	copy_load double precision[];
	owner_before integer[];
	owner_now integer[];
	total double precision;
	bound double precision;
	peak_before double precision;
	peak_now double precision;
	moved_now double precision;
	pair_lost integer[];		-- the copies that move, by pair of nodes
	pair_gained integer[];
	pair_moved double precision[];
	draining boolean := cardinality(drain) > 0;
	kept text;
	min64 constant bigint := -9223372036854775807 - 1;
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL
	   OR target_peak IS NULL OR cost IS NULL OR drain IS NULL OR replicas IS NULL OR distinct_zones IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, target_peak, cost, drain, replicas and distinct_zones must not be null';
	END IF;
	SELECT x.names, x.drained, x.shares INTO names, drained, limits
	FROM chash.rebalance_nodes(ring, drain) x;
	SELECT x.positions, x.position_load INTO positions, position_load
	FROM chash.rebalance_positions(ring, relation, key_column, cost) x;
	total := coalesce((SELECT sum(x) FROM unnest(position_load) x), 0);
	SELECT coalesce(array_agg(c ORDER BY i, k), '{}') INTO copy_load
	FROM unnest(position_load) WITH ORDINALITY AS x(c, i), generate_series(1, replicas) k;
	SELECT array_agg(target_peak * replicas * total * limits[i] ORDER BY i) INTO limits
	FROM generate_series(1, cardinality(names)) i;

	-- the copy, its nodes of points made tokens
	PERFORM @extschema@.chash_ring_copy(ring, into_ring);
	UPDATE chash.node_config c
	SET tokens = (SELECT array_agg(p.point ORDER BY p.point # min64) FROM @extschema@.chash_points(rebalance_token_copies.ring) p
				  WHERE p.node = c.node)
	WHERE c.ring = into_ring AND c.state = 'active' AND c.tokens IS NULL;
	owner_before := chash.rebalance_copies(into_ring, names, positions, replicas, distinct_zones);
	loads := chash.rebalance_loads(cardinality(names), owner_before, copy_load);
	SELECT coalesce(sum(CASE WHEN draining THEN CASE WHEN drained[i] THEN loads[i] ELSE 0 END
						ELSE greatest(0, loads[i] - limits[i]) END), 0)
	INTO bound FROM generate_series(1, cardinality(names)) i;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_before
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	-- the plan's tokens; a drained node left with none is down
	WITH plan AS MATERIALIZED (
			SELECT x.node, x.tokens
			FROM chash.rebalance_copy_tokens(into_ring, positions, position_load, names, limits, drained,
											 replicas, distinct_zones, coalesce(max_moved, 'Infinity')) x),
		 changed AS (
			UPDATE chash.node_config c SET tokens = plan.tokens
			FROM plan
			WHERE c.ring = into_ring AND c.node = plan.node
			  AND (SELECT array_agg(t ORDER BY t) FROM unnest(c.tokens) t)
				  IS DISTINCT FROM (SELECT array_agg(t ORDER BY t) FROM unnest(plan.tokens) t)
			RETURNING c.node)
	UPDATE chash.node_config c SET state = 'down', tokens = NULL
	WHERE c.ring = into_ring AND c.node = ANY (drain) AND c.node NOT IN (SELECT plan.node FROM plan);
	-- nodes whose tokens did not change keep what they had (names, for a
	-- ring of points)
	UPDATE chash.node_config c SET tokens = o.tokens
	FROM chash.node_config o
	WHERE c.ring = into_ring AND o.ring = rebalance_token_copies.ring AND o.node = c.node
	  AND c.state = 'active' AND o.tokens IS NULL
	  AND c.tokens = (SELECT array_agg(p.point ORDER BY p.point # min64) FROM @extschema@.chash_points(rebalance_token_copies.ring) p
					  WHERE p.node = c.node);
	owner_now := chash.rebalance_copies(into_ring, names, positions, replicas, distinct_zones);
	loads := chash.rebalance_loads(cardinality(names), owner_now, copy_load);
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_now
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];
	SELECT coalesce(array_agg(m.lost ORDER BY m.lost, m.gained), '{}'),
		   coalesce(array_agg(m.gained ORDER BY m.lost, m.gained), '{}'),
		   coalesce(array_agg(m.moved ORDER BY m.lost, m.gained), '{}'), coalesce(sum(m.moved), 0)
	INTO pair_lost, pair_gained, pair_moved, moved_now
	FROM chash.rebalance_copy_pairs(owner_before, owner_now, position_load, replicas) m;
	IF draining THEN
		SELECT c.node INTO kept FROM chash.node_config c
		WHERE c.ring = into_ring AND c.node = ANY (drain) AND c.state = 'active' ORDER BY c.node LIMIT 1;
		IF kept IS NOT NULL THEN
			RAISE NOTICE USING
				MESSAGE = format('drained node "%s" keeps %s of its load', kept,
								 round(loads[array_position(names, kept)]::numeric, 1)),
				DETAIL = format('The budget max_moved (%s) is spent.', max_moved);
		END IF;
	ELSIF peak_now > target_peak THEN
		RAISE NOTICE USING
			MESSAGE = format('ring "%s" stays at peak-to-mean %s, over the target %s',
							 chash.message_name(into_ring), round(peak_now::numeric, 3), target_peak),
			DETAIL = CASE WHEN max_moved IS NOT NULL
						  THEN format('The budget max_moved (%s) allows no better tokens.', max_moved)
						  ELSE 'No token that the plan tried lowers the peak further.' END;
	END IF;
	-- with copies, what moves and the whole are counted in copies
	RAISE NOTICE '%', chash.rebalance_summary(ring, into_ring,
											  CASE WHEN replicas = 1 THEN cost WHEN cost = 'rows' THEN 'row copies'
												   ELSE 'bytes of copies' END,
											  peak_before, peak_now, moved_now, replicas * total, bound);
	RETURN QUERY
	SELECT names[m.lost], names[m.gained], NULL::int4multirange,
		   (SELECT n.tokens FROM chash.node_config n WHERE n.ring = into_ring AND n.node = names[m.gained]),
		   NULL::integer, m.moved
	FROM unnest(pair_lost, pair_gained, pair_moved) AS m(lost, gained, moved)
	ORDER BY 1, 2;
END
$$;
COMMENT ON FUNCTION chash.rebalance_token_copies(text, text, regclass, name, double precision, text, text[], double precision, integer, boolean) IS
	'chash_rebalance of the copies of a ring of tokens, or of points made tokens: tokens shifted or cut into ranges at the rows'' positions where they lower the load over the target most for the copies they move';
