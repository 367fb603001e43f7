/*
 * Rebalancing: the change that evens out a table's load over a ring's
 * nodes, moving as little of it as it can, made as a new ring that every
 * plan of planning.sql carries out.  By placement: slot rings give slots
 * to other masters; token rings (and rings of points, where the user
 * allows their points to become tokens) split ranges at the rows' own
 * positions; rings whose points come from names change their vnodes or
 * weights.
 */

-- Each node's load before and after a change, from the same table: the
-- figures to judge a rebalance (or any change of a ring by units) by
CREATE OR REPLACE FUNCTION chash_rebalance_report(ring text, into_ring text, relation regclass,
												  key_column name, cost text DEFAULT 'rows',
												  replicas integer DEFAULT 1, distinct_zones boolean DEFAULT false)
	RETURNS TABLE(node text, weight double precision, target double precision,
				  before double precision, after double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
	SET jit = off
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL OR cost IS NULL
	   OR replicas IS NULL OR distinct_zones IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, cost, replicas and distinct_zones must not be null';
	END IF;
	/*
	 * The target: the load shared as ring's weights share it, among the
	 * nodes that hold part of into_ring (a drained node holds none; a plan
	 * of weights changes into_ring's weights, not the shares it aims at)
	 */
	RETURN QUERY
	WITH b AS (SELECT l.node, l.load FROM chash.copies_load(ring, relation, key_column, cost, replicas, distinct_zones) l),
		 a AS (SELECT l.node, l.load FROM chash.copies_load(into_ring, relation, key_column, cost, replicas, distinct_zones) l),
		 w AS (SELECT n.node, n.weight,
					  coalesce((SELECT o.weight FROM chash.node_config o
								WHERE o.ring = chash_rebalance_report.ring AND o.node = n.node), n.weight)
					  * n.capacity AS share
			   FROM chash.node_config n
			   WHERE n.ring = into_ring AND n.state = 'active' AND n.node IN (SELECT a.node FROM a)),
		 total AS (SELECT sum(b.load) AS load FROM b)
	SELECT n.node, n.weight,
		   coalesce(total.load * w.share / nullif((SELECT sum(x.share) FROM w x), 0), 0),
		   coalesce(b.load, 0), coalesce(a.load, 0)
	FROM (SELECT c.node, c.weight FROM chash.node_config c WHERE c.ring = into_ring
		  UNION ALL
		  SELECT b.node, NULL FROM b
		  WHERE b.node NOT IN (SELECT c.node FROM chash.node_config c WHERE c.ring = into_ring)) n
	LEFT JOIN w ON w.node = n.node
	LEFT JOIN b ON b.node = n.node
	LEFT JOIN a ON a.node = n.node
	CROSS JOIN total
	ORDER BY 1;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_rebalance_report(text, text, regclass, name, text, integer, boolean) IS
	'each node''s load (rows or bytes of a relation) on ring and on ring into_ring, and its target: the load shared as ring''s weights times into_ring''s capacities share it among the nodes that hold part of into_ring';

-- The active nodes of a ring in name order, which of them a drain empties,
-- and each one's target share of the load: its weight times its capacity,
-- among the nodes that keep load (0 for a drained node)
CREATE OR REPLACE FUNCTION chash.rebalance_nodes(ring text, drain text[],
												 OUT names text[], OUT drained boolean[],
												 OUT shares double precision[])
	LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	SELECT array_agg(n.node ORDER BY n.node), array_agg(n.node = ANY (drain) ORDER BY n.node)
	INTO names, drained
	FROM chash.node_config n WHERE n.ring = rebalance_nodes.ring AND n.state = 'active';
	IF EXISTS (SELECT FROM unnest(drain) x WHERE x IS NULL OR NOT x = ANY (coalesce(names, '{}'))) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('drained node "%s" is not an active node of ring "%s"',
							 chash.message_name((SELECT x FROM unnest(drain) x
												 WHERE x IS NULL OR NOT x = ANY (coalesce(names, '{}')) LIMIT 1)),
							 chash.message_name(ring));
	END IF;
	IF names IS NULL OR false = ALL (SELECT NOT x FROM unnest(drained) x) THEN
		RAISE EXCEPTION USING ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('ring "%s" would have no active node to take the load', chash.message_name(ring)),
			HINT = 'Drain fewer nodes, or add a node to the ring first.';
	END IF;
	SELECT array_agg(CASE WHEN n.node = ANY (drain) THEN 0 ELSE n.weight * n.capacity / w.total END ORDER BY n.node)
	INTO shares
	FROM chash.node_config n,
		 (SELECT sum(m.weight * m.capacity) AS total FROM chash.node_config m
		  WHERE m.ring = rebalance_nodes.ring AND m.state = 'active' AND NOT m.node = ANY (drain)) w
	WHERE n.ring = rebalance_nodes.ring AND n.state = 'active';
END
$$;
COMMENT ON FUNCTION chash.rebalance_nodes(text, text[]) IS
	'the active nodes of a ring by name, which a drain empties, and each one''s share of the load a rebalance aims at';

-- A row's cost as an expression over the row t: 1, or its size in bytes
CREATE OR REPLACE FUNCTION chash.rebalance_cost_expr(cost text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF cost NOT IN ('rows', 'bytes') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown cost "%s"', chash.message_name(cost)),
			HINT = 'The costs are "rows" and "bytes" (pg_column_size of each row).';
	END IF;
	RETURN CASE WHEN cost = 'rows' THEN '1::double precision' ELSE 'pg_column_size(t.*)::double precision' END;
END
$$;

-- Each node's load on a ring: of the keys it owns, or with replicas of the
-- copies it holds (a key's first replicas nodes, as chash_lookup_n gives
-- them); nodes that hold nothing have no row
CREATE OR REPLACE FUNCTION chash.copies_load(ring text, relation regclass, key_column name, cost text,
											 replicas integer, distinct_zones boolean)
	RETURNS TABLE(node text, load double precision)
	LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
	SET jit = off
	AS $$
BEGIN
	IF replicas = 1 AND NOT distinct_zones THEN
		RETURN QUERY
		SELECT l.node, sum(l.load) FROM @extschema@.chash_load(ring, relation, key_column, cost) l
		WHERE l.load > 0 OR l.node IS NOT NULL
		GROUP BY l.node;
		RETURN;
	END IF;
	-- (a row's bytes taken in the scan, as chash_load takes them)
	RETURN QUERY EXECUTE format($q$
		SELECT c.node, sum(k.c)
		FROM (SELECT @extschema@.chash_position($1, %1$s) AS p, %2$s AS c
			  FROM %3$s t WHERE t.%4$I IS NOT NULL OFFSET 0) k,
			 unnest(chash.position_replicas($1, k.p, $2, $3)) AS c(node)
		GROUP BY c.node$q$,
		chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column)),
		chash.rebalance_cost_expr(cost), relation, key_column)
	USING ring, replicas, distinct_zones;
END
$$;

-- The summary of a plan, as its NOTICE says it
CREATE OR REPLACE FUNCTION chash.rebalance_summary(ring text, into_ring text, cost text,
												   peak_before double precision, peak_after double precision,
												   moved double precision, total double precision,
												   bound double precision)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('chash rebalance of ring "%s" into ring "%s": peak-to-mean %s before, %s after; moved %s of %s %s (%s%%), at least %s had to move',
				  ring, into_ring, round(peak_before::numeric, 3), round(peak_after::numeric, 3),
				  round(moved::numeric), round(total::numeric), cost,
				  round((100 * moved / nullif(total, 0))::numeric, 2), round(bound::numeric))
$$;

/*
 * Rebalancing a ring of tokens (and a ring of points whose points may
 * become tokens): a node over its limit gives whole ranges (the arc up to
 * one of its tokens) heaviest first while they fit in what it must shed,
 * then splits ranges at its rows' own positions: the receiver, the node
 * with the most room, gets a new token at the last position that moves.
 * A cut falls between two positions, so it takes what the node must shed
 * or, where that would fill the receiver past its limit, a position less;
 * a position heavier than any room is named in a NOTICE.  A drained node
 * gives all its ranges and is set down.  The ring's keys go to the first
 * token at or after them, so only that lookup rule can be planned.
 */
CREATE OR REPLACE FUNCTION chash.rebalance_tokens(ring text, into_ring text, relation regclass, key_column name,
												  target_peak double precision, cost text, drain text[],
												  max_moved double precision)
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
	limits double precision[];	-- target_peak times each node's target
	loads double precision[];	-- each node's load as the plan goes
	pos bigint[];				-- each unit's token, in ring order
	owner integer[];			-- each unit's node, as an index of names
	unit_load double precision[];
	n integer;
	-- the rows' distinct positions, unit by unit, each unit's from its low
	-- end, with the load up to and including each within its unit
	row_pos bigint[];
	row_upto double precision[];
	first_row integer[];		-- each unit's first position's index, or its
	last_row integer[];			-- last's (first > last: no rows)
	cut_row integer[];			-- the last position already given away
	done boolean[];				-- its token given away with the rest
	total double precision;
	spent double precision := 0;
	bound double precision;
	peak_before double precision;
	peak_after double precision;
	draining boolean := cardinality(drain) > 0;
	eps double precision;
	d integer;
	r integer;
	k integer;
	s record;
	need double precision;
	room double precision;
	amt double precision;
	lo integer;
	hi integer;
	mid integer;
	base double precision;
	took double precision;
	blocked integer[];
	mine integer[];				-- the ranges of the node that gives, heaviest first
	by_node integer[];			-- every node's, one node after another
	node_first integer[];		-- where each node's begin in by_node
	node_last integer[];
	unit_no integer;
	left_in double precision;
	score double precision;
	best double precision;
	-- the pieces: a unit, its donor and receiver, the position the piece
	-- ends at (NULL: the rest of the unit, its token with it), its load
	pc_unit integer[] := '{}';
	pc_from integer[] := '{}';
	pc_to integer[] := '{}';
	pc_cut bigint[] := '{}';
	pc_load double precision[] := '{}';
	key_expr text := chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL
	   OR target_peak IS NULL OR cost IS NULL OR drain IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, target_peak, cost and drain must not be null';
	END IF;
	SELECT x.names, x.drained, x.shares INTO names, drained, limits
	FROM chash.rebalance_nodes(ring, drain) x;
	/*
	 * One pass over the table (a row's bytes taken in the scan, as
	 * chash_load takes them): each distinct position with its load; then,
	 * in C, the units with their owners and the positions unit by unit,
	 * each unit's from its low end (first the positions after the token
	 * before it, then, for the first unit, those that wrap around)
	 */
	EXECUTE format($q$
		SELECT coalesce(array_agg(k.p), '{}'), coalesce(array_agg(k.c), '{}')
		FROM (SELECT r.p, sum(r.c) AS c
			  FROM (SELECT @extschema@.chash_position($1, %1$s) AS p, %2$s AS c
					FROM %3$s t WHERE t.%4$I IS NOT NULL OFFSET 0) r
			  GROUP BY r.p) k$q$,
		key_expr, chash.rebalance_cost_expr(cost),
		relation, key_column)
	INTO row_pos, row_upto
	USING ring;
	SELECT x.unit_token, x.unit_owner, x.unit_load, x.row_pos, x.row_upto, x.first_row, x.last_row,
		   x.cut_row, x.by_node, x.node_first, x.node_last
	INTO pos, owner, unit_load, row_pos, row_upto, first_row, last_row, cut_row, by_node, node_first, node_last
	FROM chash.rebalance_unit_rows(ring, names, row_pos, row_upto) x;
	n := cardinality(pos);
	done := array_fill(false, ARRAY[n]);
	total := coalesce((SELECT sum(x) FROM unnest(unit_load) x), 0);
	eps := 1e-9 * greatest(total, 1);

	SELECT array_agg(target_peak * total * limits[i] ORDER BY i) INTO limits
	FROM generate_series(1, cardinality(names)) i;
	loads := chash.rebalance_loads(cardinality(names), owner, unit_load);
	SELECT coalesce(sum(CASE WHEN draining THEN CASE WHEN drained[i] THEN loads[i] ELSE 0 END
						ELSE greatest(0, loads[i] - limits[i]) END), 0)
	INTO bound FROM generate_series(1, cardinality(names)) i;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_before
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	FOR d IN SELECT i FROM generate_series(1, cardinality(names)) i
			 WHERE CASE WHEN draining THEN drained[i] ELSE loads[i] > limits[i] + eps END
			 ORDER BY loads[i] - limits[i] DESC, i LOOP
		need := CASE WHEN drained[d] THEN loads[d] ELSE loads[d] - limits[d] END;
		-- the node's ranges, heaviest first (the loops below walk this
		-- array, never all of a ring's ranges)
		mine := coalesce(by_node[node_first[d]:node_last[d]], '{}');
		-- whole ranges, heaviest first, while one fits in what the node
		-- must shed and in the room of the node with the most
		FOR s IN SELECT x.u, unit_load[x.u] AS load FROM unnest(mine) WITH ORDINALITY AS x(u, i) ORDER BY x.i LOOP
			EXIT WHEN NOT drained[d] AND need <= eps;
			CONTINUE WHEN NOT drained[d] AND (s.load > need OR s.load = 0);
			CONTINUE WHEN max_moved IS NOT NULL AND spent + s.load > max_moved;
			SELECT i INTO r FROM generate_series(1, cardinality(names)) i
			WHERE NOT drained[i] AND i <> d ORDER BY limits[i] - loads[i] DESC, i LIMIT 1;
			CONTINUE WHEN r IS NULL OR (limits[r] - loads[r] < s.load AND NOT (drained[d] AND s.load = 0));
			pc_unit := pc_unit || s.u; pc_from := pc_from || d; pc_to := pc_to || r;
			pc_cut := pc_cut || NULL::bigint; pc_load := pc_load || s.load;
			done[s.u] := true;
			cut_row[s.u] := last_row[s.u];
			loads[d] := loads[d] - s.load;
			loads[r] := loads[r] + s.load;
			need := need - s.load;
			spent := spent + s.load;
		END LOOP;
		-- the rest by cuts between positions: the range that can shed it
		-- all with the least left over, else the heaviest left
		blocked := '{}';
		LOOP
			EXIT WHEN NOT drained[d] AND need <= eps;
			k := NULL;
			best := NULL;
			FOREACH unit_no IN ARRAY mine LOOP
				CONTINUE WHEN done[unit_no] OR unit_no = ANY (blocked);
				left_in := unit_load[unit_no] - CASE WHEN cut_row[unit_no] >= first_row[unit_no] THEN row_upto[cut_row[unit_no]] ELSE 0 END;
				CONTINUE WHEN NOT drained[d] AND left_in <= eps;
				-- (a range that holds all the node must shed first, then the
				-- closest to it)
				score := CASE WHEN left_in >= need THEN left_in - need ELSE 1e300 + (need - left_in) END;
				IF best IS NULL OR score < best THEN
					best := score;
					k := unit_no;
				END IF;
			END LOOP;
			EXIT WHEN k IS NULL;
			SELECT i INTO r FROM generate_series(1, cardinality(names)) i
			WHERE NOT drained[i] AND i <> d ORDER BY limits[i] - loads[i] DESC, i LIMIT 1;
			EXIT WHEN r IS NULL;
			room := limits[r] - loads[r];
			base := CASE WHEN cut_row[k] >= first_row[k] THEN row_upto[cut_row[k]] ELSE 0 END;
			-- what the piece should hold: what the node must shed, as much as
			-- the receiver has room for (a drained node's rest goes whole
			-- where no node has room left)
			amt := least(CASE WHEN drained[d] THEN unit_load[k] - base ELSE need END, unit_load[k] - base,
						 CASE WHEN drained[d] AND room <= eps THEN 'Infinity' ELSE room END,
						 coalesce(max_moved - spent, 'Infinity'));
			-- the first position at which the piece holds amt (a ceiling)
			lo := cut_row[k] + 1;
			hi := last_row[k];
			WHILE lo < hi LOOP
				mid := (lo + hi) / 2;
				IF row_upto[mid] - base >= amt - eps THEN hi := mid; ELSE lo := mid + 1; END IF;
			END LOOP;
			-- or the position before it, where the ceiling overfills the
			-- receiver or overspends the budget (a drained node's rows must
			-- all go: its ceiling stands if there is none before)
			IF lo <= last_row[k] AND ((row_upto[lo] - base > room AND NOT (drained[d] AND room <= eps))
									  OR (max_moved IS NOT NULL AND spent + row_upto[lo] - base > max_moved + eps))
			   AND (lo - 1 > cut_row[k] OR NOT drained[d]) THEN
				lo := lo - 1;
			END IF;
			IF lo <= cut_row[k] OR lo > last_row[k] THEN
				-- not one more position fits: this range is done here
				blocked := blocked || k;
				CONTINUE;
			END IF;
			took := row_upto[lo] - base;
			pc_unit := pc_unit || k; pc_from := pc_from || d; pc_to := pc_to || r;
			IF lo = last_row[k] THEN
				-- the rest of the range: its token goes with it
				pc_cut := pc_cut || NULL::bigint;
				done[k] := true;
			ELSE
				pc_cut := pc_cut || row_pos[lo];
			END IF;
			pc_load := pc_load || took;
			cut_row[k] := lo;
			loads[d] := loads[d] - took;
			loads[r] := loads[r] + took;
			need := need - took;
			spent := spent + took;
		END LOOP;
		-- a drained node's ranges without rows go whole, to the node with
		-- the most room
		IF drained[d] THEN
			FOR k IN SELECT x.u FROM unnest(mine) x(u) WHERE NOT done[x.u] AND cut_row[x.u] >= last_row[x.u] LOOP
				SELECT i INTO r FROM generate_series(1, cardinality(names)) i
				WHERE NOT drained[i] ORDER BY limits[i] - loads[i] DESC, i LIMIT 1;
				pc_unit := pc_unit || k; pc_from := pc_from || d; pc_to := pc_to || r;
				pc_cut := pc_cut || NULL::bigint; pc_load := pc_load || 0::double precision;
				done[k] := true;
			END LOOP;
		END IF;
		IF drained[d] AND loads[d] > eps THEN
			RAISE NOTICE USING
				MESSAGE = format('drained node "%s" keeps %s of its load', names[d], round(loads[d]::numeric, 1)),
				DETAIL = format('The budget max_moved (%s) is spent.', max_moved);
		ELSIF NOT drained[d] AND need > eps THEN
			IF max_moved IS NOT NULL AND max_moved - spent < need THEN
				RAISE NOTICE USING
					MESSAGE = format('node "%s" stays %s over its target', names[d], round(need::numeric, 1)),
					DETAIL = format('The budget max_moved (%s) is spent.', max_moved);
			ELSE
				-- the position that would not fit, in the range that could
				-- shed the most
				SELECT u INTO k FROM unnest(blocked) u ORDER BY unit_load[u] DESC, u LIMIT 1;
				RAISE NOTICE USING
					MESSAGE = format('node "%s" stays %s over its target', names[d], round(need::numeric, 1)),
					DETAIL = CASE WHEN k IS NULL THEN 'No other node has room for its load.'
							 ELSE format('Position %s holds %s, more than any other node has room for.',
										 row_pos[cut_row[k] + 1],
										 round((row_upto[cut_row[k] + 1]
												- CASE WHEN cut_row[k] >= first_row[k] THEN row_upto[cut_row[k]] ELSE 0 END)::numeric, 1))
							 END;
			END IF;
		END IF;
	END LOOP;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_after
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	/*
	 * The new ring: a copy in which every node that gives or takes load
	 * has as its tokens the positions it owns now (its points become
	 * tokens), and a drained node that gave everything is down.
	 */
	PERFORM @extschema@.chash_ring_copy(ring, into_ring);
	UPDATE chash.node_config c
	SET tokens = x.tokens
	FROM (WITH pieces AS (SELECT * FROM unnest(pc_unit, pc_to, pc_cut) AS q(u, t, cp)),
			   rest AS (SELECT pieces.u, pieces.t FROM pieces WHERE pieces.cp IS NULL)
		  SELECT names[o.node] AS node, array_agg(o.p ORDER BY o.u, o.p # (-9223372036854775807 - 1)) AS tokens
		  FROM (SELECT y.u, coalesce(rest.t, y.o) AS node, y.p
				FROM unnest(owner, pos) WITH ORDINALITY AS y(o, p, u) LEFT JOIN rest ON rest.u = y.u
				UNION ALL
				SELECT pieces.u, pieces.t, pieces.cp FROM pieces WHERE pieces.cp IS NOT NULL) o
		  GROUP BY o.node) x
	WHERE c.ring = into_ring AND c.node = x.node
	  AND x.node IN (SELECT names[f] FROM unnest(pc_from) f UNION SELECT names[t] FROM unnest(pc_to) t);
	UPDATE chash.node_config c SET state = 'down', tokens = NULL
	WHERE c.ring = into_ring AND c.node = ANY (names) AND drained[array_position(names, c.node)]
	  AND NOT EXISTS (SELECT FROM unnest(owner, done) AS y(o, gone)
					  WHERE y.o = array_position(names, c.node) AND NOT y.gone);

	RAISE NOTICE '%', chash.rebalance_summary(ring, into_ring, cost, peak_before, peak_after, spent, total, bound);
	RETURN QUERY
	SELECT names[x.f], names[x.t], NULL::int4multirange,
		   array_agg(coalesce(x.cp, pos[x.u]) ORDER BY x.i), count(*)::integer, sum(x.m)
	FROM unnest(pc_unit, pc_from, pc_to, pc_cut, pc_load) WITH ORDINALITY AS x(u, f, t, cp, m, i)
	GROUP BY x.f, x.t ORDER BY 1, 2;
END
$$;
COMMENT ON FUNCTION chash.rebalance_tokens(text, text, regclass, name, double precision, text, text[], double precision) IS
	'chash_rebalance of a ring of tokens, or of points made tokens: ranges given whole or split at their rows'' positions';

/*
 * Rebalancing a ring whose points or table come from its nodes' names:
 * only how much of the ring each node gets can change, its vnodes (ring)
 * or its weight (the others).  Each round scales each node's share by its
 * target over its load and places the rows' positions again on the
 * changed copy; the best round within the budget is kept.  The rows move
 * wherever the new points fall, so such a plan moves more than the least
 * that must move; the summary says how much more.  A drain sets the
 * drained nodes down and changes nothing else.
 */
CREATE OR REPLACE FUNCTION chash.rebalance_weights(ring text, into_ring text, relation regclass, key_column name,
												   target_peak double precision, cost text, drain text[],
												   max_moved double precision, replicas integer,
												   distinct_zones boolean)
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
	positions bigint[];			-- the rows' distinct positions
	position_load double precision[];
	-- each position's copies on ring (replicas of them, one position after
	-- another), as indexes of names; their loads
	owner_before integer[];
	owner_now integer[];
	copy_load double precision[];
	algorithm text;
	by_vnodes boolean;
	scale double precision;
	e_message text;
	sizes double precision[];	-- each node's vnodes or weight, as the rounds go
	best_sizes double precision[];
	total double precision;
	bound double precision;
	peak_before double precision;
	peak_now double precision;
	best_peak double precision;
	moved_now double precision;
	best_moved double precision := 0;
	draining boolean := cardinality(drain) > 0;
	round_no integer;
	stale integer := 0;
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL
	   OR target_peak IS NULL OR cost IS NULL OR drain IS NULL OR replicas IS NULL OR distinct_zones IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, target_peak, cost, drain, replicas and distinct_zones must not be null';
	END IF;
	SELECT x.names, x.drained, x.shares INTO names, drained, limits
	FROM chash.rebalance_nodes(ring, drain) x;
	SELECT c.algorithm, c.algorithm = 'ring' INTO algorithm, by_vnodes
	FROM chash.ring_config c WHERE c.ring = rebalance_weights.ring;
	SELECT x.positions, x.position_load INTO positions, position_load
	FROM chash.rebalance_positions(ring, relation, key_column, cost) x;
	total := coalesce((SELECT sum(x) FROM unnest(position_load) x), 0);
	owner_before := chash.rebalance_copies(ring, names, positions, replicas, distinct_zones);
	SELECT coalesce(array_agg(c ORDER BY i, k), '{}') INTO copy_load
	FROM unnest(position_load) WITH ORDINALITY AS x(c, i), generate_series(1, replicas) k;
	-- (with copies, each node's target is its share of every copy's load)
	SELECT array_agg(target_peak * replicas * total * limits[i] ORDER BY i) INTO limits
	FROM generate_series(1, cardinality(names)) i;
	loads := chash.rebalance_loads(cardinality(names), owner_before, copy_load);
	SELECT coalesce(sum(CASE WHEN draining THEN CASE WHEN drained[i] THEN loads[i] ELSE 0 END
						ELSE greatest(0, loads[i] - limits[i]) END), 0)
	INTO bound FROM generate_series(1, cardinality(names)) i;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_before
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	PERFORM @extschema@.chash_ring_copy(ring, into_ring);
	IF draining THEN
		UPDATE chash.node_config c SET state = 'down'
		WHERE c.ring = into_ring AND c.node = ANY (drain);
	ELSE
		/*
		 * The clients take whole weights, and most place by a node's
		 * share of the total only: their weights are scaled by 100 to
		 * give the plan steps of about 1 %, which places every key as
		 * before.  nginx and HAProxy give a node points per unit of
		 * weight, so theirs keep their scale.
		 */
		scale := CASE WHEN by_vnodes OR algorithm IN ('nginx', 'haproxy') THEN 1 ELSE 100 END;
		SELECT array_agg(CASE WHEN by_vnodes THEN (SELECT count(*) FROM @extschema@.chash_points(ring) p
													WHERE p.node = names[i])
							  ELSE scale * (SELECT c.weight FROM chash.node_config c
											WHERE c.ring = rebalance_weights.ring AND c.node = names[i]) END
						 ORDER BY i)
		INTO sizes FROM generate_series(1, cardinality(names)) i;
		best_sizes := sizes;
		best_peak := peak_before;
		peak_now := peak_before;
		-- (at most 40 rounds, and none after 8 that did no better)
		FOR round_no IN 1 .. 40 LOOP
			EXIT WHEN peak_now <= target_peak OR stale >= 8;
			-- each node's share scaled towards its target, at most halved or
			-- doubled a round
			SELECT array_agg(sizes[i] * least(2, greatest(0.5, power(limits[i] / target_peak
																	   / greatest(loads[i], 1e-9 * greatest(total, 1)), 0.8)))
							 ORDER BY i)
			INTO sizes FROM generate_series(1, cardinality(names)) i;
			SELECT array_agg(greatest(1, least(CASE WHEN algorithm = 'haproxy' THEN 256 ELSE 16777216 END,
											   round(x))) ORDER BY i)
			INTO sizes FROM unnest(sizes) WITH ORDINALITY AS s(x, i);
			BEGIN
				IF by_vnodes THEN
					UPDATE chash.node_config c SET vnodes = sizes[array_position(names, c.node)]::integer
					WHERE c.ring = into_ring AND c.node = ANY (names);
				ELSE
					UPDATE chash.node_config c SET weight = sizes[array_position(names, c.node)]
					WHERE c.ring = into_ring AND c.node = ANY (names);
				END IF;
				owner_now := chash.rebalance_copies(into_ring, names, positions, replicas, distinct_zones);
			EXCEPTION WHEN invalid_parameter_value OR feature_not_supported OR check_violation THEN
				GET STACKED DIAGNOSTICS e_message = MESSAGE_TEXT;
				RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
					MESSAGE = format('chash_rebalance cannot change the weights of ring "%s"',
									 chash.message_name(ring)),
					DETAIL = format('The ring''s client takes no such weights: %s.', e_message),
					HINT = 'Add or remove nodes on a copy (chash_ring_copy), and compare the load with chash_rebalance_report().';
			END;
			loads := chash.rebalance_loads(cardinality(names), owner_now, copy_load);
			SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_now
			FROM generate_series(1, cardinality(names)) i;
			moved_now := chash.rebalance_copies_moved(owner_before, owner_now, position_load, replicas);
			IF peak_now < best_peak AND (max_moved IS NULL OR moved_now <= max_moved) THEN
				best_peak := peak_now;
				best_sizes := sizes;
				best_moved := moved_now;
				stale := 0;
			ELSE
				stale := stale + 1;
			END IF;
		END LOOP;
		-- the best round, or ring's own settings if no round did better
		IF best_peak >= peak_before THEN
			UPDATE chash.node_config c SET vnodes = o.vnodes, weight = o.weight
			FROM chash.node_config o
			WHERE c.ring = into_ring AND o.ring = rebalance_weights.ring AND o.node = c.node;
		ELSIF by_vnodes THEN
			UPDATE chash.node_config c SET vnodes = best_sizes[array_position(names, c.node)]::integer
			WHERE c.ring = into_ring AND c.node = ANY (names);
		ELSE
			UPDATE chash.node_config c SET weight = best_sizes[array_position(names, c.node)]
			WHERE c.ring = into_ring AND c.node = ANY (names);
		END IF;
	END IF;
	owner_now := chash.rebalance_copies(into_ring, names, positions, replicas, distinct_zones);
	loads := chash.rebalance_loads(cardinality(names), owner_now, copy_load);
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_now
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];
	IF peak_now > target_peak AND NOT draining THEN
		RAISE NOTICE USING
			MESSAGE = format('ring "%s" stays at peak-to-mean %s, over the target %s',
							 chash.message_name(into_ring), round(peak_now::numeric, 3), target_peak),
			DETAIL = CASE WHEN max_moved IS NOT NULL
						  THEN format('The budget max_moved (%s) allows no better %s.', max_moved,
									  CASE WHEN by_vnodes THEN 'vnodes' ELSE 'weights' END)
						  ELSE format('No %s that the plan tried place the load closer.',
									  CASE WHEN by_vnodes THEN 'vnodes' ELSE 'weights' END) END,
			HINT = CASE WHEN by_vnodes
						THEN 'With allow_tokens => true the plan can split ranges at the rows instead.'
						ELSE 'A ring of algorithm ring or tokens can be planned to the row.' END;
	END IF;
	moved_now := chash.rebalance_copies_moved(owner_before, owner_now, position_load, replicas);
	-- with copies, what moves and the whole are counted in copies
	RAISE NOTICE '%', chash.rebalance_summary(ring, into_ring,
											  CASE WHEN replicas = 1 THEN cost WHEN cost = 'rows' THEN 'row copies'
												   ELSE 'bytes of copies' END,
											  peak_before, peak_now, moved_now, replicas * total, bound);
	-- the copies that move, each lost copy paired with a gained one
	RETURN QUERY
	SELECT names[m.lost], names[m.gained], NULL::int4multirange, NULL::bigint[], NULL::integer, m.moved
	FROM chash.rebalance_copy_moves(owner_before, owner_now, position_load, replicas) m
	ORDER BY 1, 2;
END
$$;
COMMENT ON FUNCTION chash.rebalance_weights(text, text, regclass, name, double precision, text, text[], double precision, integer, boolean) IS
	'chash_rebalance of a ring whose points or table come from names: each node''s vnodes (ring) or weight scaled towards its target';

-- The copies of each position on a ring (its first replicas nodes, as
-- chash_lookup_n gives them), one position after another, as indexes of
-- names
CREATE OR REPLACE FUNCTION chash.rebalance_copies(ring text, names text[], positions bigint[],
												  replicas integer, distinct_zones boolean)
	RETURNS integer[]
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
	SET jit = off
	AS $$
	SELECT CASE WHEN replicas = 1 AND NOT distinct_zones THEN
		(SELECT coalesce(array_agg(array_position(names, u.node) ORDER BY x.i), '{}')
		 FROM unnest(positions) WITH ORDINALITY AS x(p, i)
		 JOIN chash.ring_units(ring) u ON u.unit = chash.position_unit(ring, x.p))
	ELSE
		(SELECT coalesce(array_agg(array_position(names, c.node) ORDER BY x.i, c.k), '{}')
		 FROM unnest(positions) WITH ORDINALITY AS x(p, i),
			  unnest(chash.position_replicas(ring, x.p, replicas, distinct_zones)) WITH ORDINALITY AS c(node, k))
	END
$$;

-- The rows' distinct positions on a ring, in ring order, each with its
-- load (a row's bytes taken in the scan, as chash_load takes them): what a
-- plan of weights or of copies places again round after round
CREATE OR REPLACE FUNCTION chash.rebalance_positions(ring text, relation regclass, key_column name, cost text,
													 OUT positions bigint[], OUT position_load double precision[])
	LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	EXECUTE format($q$
		SELECT coalesce(array_agg(k.p ORDER BY k.p # (-9223372036854775807 - 1)), '{}'),
			   coalesce(array_agg(k.c ORDER BY k.p # (-9223372036854775807 - 1)), '{}')
		FROM (SELECT r.p, sum(r.c) AS c
			  FROM (SELECT @extschema@.chash_position($1, %1$s) AS p, %2$s AS c
					FROM %3$s t WHERE t.%4$I IS NOT NULL OFFSET 0) r
			  GROUP BY r.p) k$q$,
		chash.routing_key_expr(key_column, chash.key_column_type(relation, key_column)),
		chash.rebalance_cost_expr(cost), relation, key_column)
	INTO positions, position_load USING ring;
END
$$;

-- The copies that move between two placings of the same positions (each
-- position's replicas nodes, one position after another, as
-- rebalance_copies gives them): each copy a node loses paired with one a
-- node gains, in preference order, and the load that so moves
CREATE OR REPLACE FUNCTION chash.rebalance_copy_moves(before integer[], after integer[],
													  position_load double precision[], replicas integer)
	RETURNS TABLE(lost integer, gained integer, moved double precision)
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT m.lost, m.gained, sum(m.c)
	FROM generate_series(1, cardinality(position_load)) i,
		 LATERAL (SELECT before[(i - 1) * replicas + 1 : i * replicas] AS b,
						 after[(i - 1) * replicas + 1 : i * replicas] AS a) s,
		 LATERAL (SELECT l.lost, g.gained, position_load[i] AS c
				  FROM (SELECT x AS lost, row_number() OVER (ORDER BY o) AS r
						FROM unnest(s.b) WITH ORDINALITY AS y(x, o) WHERE NOT x = ANY (s.a)) l
				  JOIN (SELECT x AS gained, row_number() OVER (ORDER BY o) AS r
						FROM unnest(s.a) WITH ORDINALITY AS y(x, o) WHERE NOT x = ANY (s.b)) g ON g.r = l.r) m
	GROUP BY m.lost, m.gained
$$;

-- The load of the copies that move: each position's load for each of its
-- copies on a node that did not hold one
CREATE OR REPLACE FUNCTION chash.rebalance_copies_moved(before integer[], after integer[],
														position_load double precision[], replicas integer)
	RETURNS double precision
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(sum(position_load[i]
						* (SELECT count(*) FROM unnest(after[(i - 1) * replicas + 1 : i * replicas]) a
						   WHERE NOT a = ANY (before[(i - 1) * replicas + 1 : i * replicas]))), 0)
	FROM generate_series(1, cardinality(position_load)) i
$$;

-- Each node's load, from the owners and loads of positions
CREATE OR REPLACE FUNCTION chash.rebalance_loads(nodes integer, owners integer[], position_load double precision[])
	RETURNS double precision[]
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT array_agg(coalesce(l.load, 0) ORDER BY i)
	FROM generate_series(1, nodes) i
	LEFT JOIN (SELECT x.o, sum(x.c) AS load FROM unnest(owners, position_load) x(o, c) GROUP BY x.o) l ON l.o = i
$$;

/*
 * chash_rebalance: a new ring, into_ring, that evens out the relation's load.
 * It checks the arguments and plans slot rings itself; tokens rings (and
 * rings of points with allow_tokens) go to chash.rebalance_tokens, the
 * rest to chash.rebalance_weights.  Each node's target is the load times
 * its share of the weights times capacities (0 for a drained node); for a
 * slot ring, a node over target_peak times its target gives slots to the
 * nodes under theirs.  Donors, the most loaded first, give their
 * slots heaviest first while a slot fits in what they must shed, then the
 * lightest slot that sheds the rest; each goes to the node with the most
 * room.  So each donor moves its excess and at most one slot more, and
 * slots that carry no load move only from a drained node.  A drain moves
 * the drained nodes' slots and nothing else.
 */
CREATE OR REPLACE FUNCTION chash_rebalance(ring text, into_ring text, relation regclass, key_column name,
										   target_peak double precision DEFAULT 1.05,
										   cost text DEFAULT 'rows', drain text[] DEFAULT '{}',
										   max_moved double precision DEFAULT NULL,
										   allow_tokens boolean DEFAULT false, replicas integer DEFAULT 1,
										   distinct_zones boolean DEFAULT false)
	RETURNS TABLE(from_node text, to_node text, slots int4multirange, tokens bigint[], units integer,
				  moved double precision)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
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
	algorithm text;
	names text[];				-- the active nodes, in name order
	limits double precision[];	-- target_peak times each one's target
	loads double precision[];	-- each one's load as the plan goes
	drained boolean[];
	owner integer[];			-- each slot's node, as an index of names
	slot_load double precision[];
	nslots integer;
	total double precision;
	spent double precision := 0;
	bound double precision := 0;
	peak_before double precision;
	peak_after double precision;
	d integer;
	r integer;
	s record;
	need double precision;
	heavy integer;
	draining boolean := cardinality(drain) > 0;
	-- the moves, a slot each: its number, donor, receiver and load
	mv_slot integer[] := '{}';
	mv_from integer[] := '{}';
	mv_to integer[] := '{}';
	mv_load double precision[] := '{}';
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL
	   OR target_peak IS NULL OR cost IS NULL OR drain IS NULL OR allow_tokens IS NULL
	   OR replicas IS NULL OR distinct_zones IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, target_peak, cost, drain, allow_tokens, replicas and distinct_zones must not be null';
	END IF;
	PERFORM chash.check_ring_privileges(into_ring, 'A rebalance', '{INSERT}', '{INSERT,UPDATE}');
	SELECT c.algorithm INTO algorithm FROM chash.ring_config c WHERE c.ring = chash_rebalance.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create().';
	END IF;
	-- (slots and tokens are given to other nodes; the points and tables
	-- made from names change with the nodes' vnodes or weights)
	IF algorithm NOT IN ('slots', 'tokens', 'ring', 'ketama', 'nginx', 'haproxy', 'envoy', 'dalli', 'maglev') THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('chash_rebalance cannot plan ring "%s" of algorithm "%s"',
							 chash.message_name(ring), algorithm),
			DETAIL = 'Its keys go where the number of nodes sends them: no slot, token or weight changes that.',
			HINT = 'Add or remove nodes on a copy (chash_ring_copy), and compare the load with chash_rebalance_report().';
	END IF;
	IF allow_tokens AND algorithm NOT IN ('ring', 'tokens') THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('the points of ring "%s" of algorithm "%s" cannot become tokens',
							 chash.message_name(ring), algorithm),
			DETAIL = 'Only rings of algorithm ring take explicit tokens; the clients of the other algorithms place their points by name.',
			HINT = 'Leave allow_tokens false to plan the nodes'' weights.';
	END IF;
	IF replicas < 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'replicas must be at least 1',
			DETAIL = format('replicas is %s.', replicas);
	END IF;
	IF replicas > 1 AND algorithm = 'slots' THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('chash_rebalance cannot plan the copies of ring "%s"', chash.message_name(ring)),
			DETAIL = 'A plan of slots evens out the masters; a master''s replicas hold its slots.',
			HINT = 'Plan the masters with replicas => 1.';
	END IF;
	IF (algorithm = 'tokens' OR allow_tokens)
	   AND EXISTS (SELECT FROM chash.ring_config c WHERE c.ring = chash_rebalance.ring
				   AND coalesce(c.lookup, 'successor') <> 'successor') THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('chash_rebalance cannot split the ranges of ring "%s" with lookup "%s"',
							 chash.message_name(ring),
							 (SELECT c.lookup FROM chash.ring_config c WHERE c.ring = chash_rebalance.ring)),
			DETAIL = 'It splits ranges that end at a token: rings whose keys go to the first point at or after them.';
	END IF;
	IF EXISTS (SELECT FROM chash.ring_config c WHERE c.ring = into_ring) THEN
		RAISE EXCEPTION USING ERRCODE = 'duplicate_object',
			MESSAGE = format('ring "%s" already exists', chash.message_name(into_ring)),
			HINT = 'A rebalance creates its ring: name one that does not exist.';
	END IF;
	IF NOT (target_peak >= 1 AND target_peak <= 100) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'target_peak must be between 1 and 100',
			DETAIL = format('target_peak is %s.', target_peak);
	END IF;
	IF max_moved IS NOT NULL AND NOT (max_moved >= 0 AND max_moved < 'Infinity') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'max_moved must be a finite number of at least 0',
			DETAIL = format('max_moved is %s.', max_moved);
	END IF;

	IF (algorithm = 'tokens' OR allow_tokens) AND replicas > 1 THEN
		RETURN QUERY SELECT * FROM chash.rebalance_token_copies(ring, into_ring, relation, key_column, target_peak,
																cost, drain, max_moved, replicas, distinct_zones);
		RETURN;
	ELSIF algorithm = 'tokens' OR allow_tokens THEN
		RETURN QUERY SELECT * FROM chash.rebalance_tokens(ring, into_ring, relation, key_column, target_peak,
														  cost, drain, max_moved);
		RETURN;
	ELSIF algorithm <> 'slots' THEN
		RETURN QUERY SELECT * FROM chash.rebalance_weights(ring, into_ring, relation, key_column, target_peak,
														   cost, drain, max_moved, replicas, distinct_zones);
		RETURN;
	END IF;

	SELECT x.names, x.drained, x.shares INTO names, drained, limits
	FROM chash.rebalance_nodes(ring, drain) x;
	-- the load of every slot, owned or not (a slot of no node stays so)
	SELECT array_agg(array_position(names, l.node) ORDER BY l.unit), array_agg(l.load ORDER BY l.unit),
		   count(*), sum(l.load)
	INTO owner, slot_load, nslots, total
	FROM @extschema@.chash_load(ring, relation, key_column, cost) l;
	SELECT array_agg(target_peak * total * share ORDER BY i)
	INTO limits FROM unnest(limits) WITH ORDINALITY AS x(share, i);
	SELECT array_agg(coalesce((SELECT sum(slot_load[k]) FROM generate_series(1, nslots) k WHERE owner[k] = i), 0)
					 ORDER BY i)
	INTO loads FROM generate_series(1, cardinality(names)) i;
	-- what must move at least: every node's excess over its limit, or with
	-- a drain the drained nodes' load
	SELECT coalesce(sum(CASE WHEN draining THEN CASE WHEN drained[i] THEN loads[i] ELSE 0 END
						ELSE greatest(0, loads[i] - limits[i]) END), 0)
	INTO bound FROM generate_series(1, cardinality(names)) i;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_before
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	-- donors, the most over their limit first: with a drain, the drained
	-- nodes only
	FOR d IN SELECT i FROM generate_series(1, cardinality(names)) i
			 WHERE CASE WHEN draining THEN drained[i] ELSE loads[i] > limits[i] END
			 ORDER BY loads[i] - limits[i] DESC, i LOOP
		need := loads[d] - limits[d];
		-- heaviest first while it fits in what the donor must shed (all of
		-- a drained node's), then the lightest that sheds the rest
		FOR s IN SELECT k, slot_load[k] AS load FROM generate_series(1, nslots) k
				 WHERE owner[k] = d ORDER BY slot_load[k] DESC, k LOOP
			EXIT WHEN NOT drained[d] AND need <= 0;
			CONTINUE WHEN NOT drained[d] AND s.load > need;
			CONTINUE WHEN NOT drained[d] AND s.load = 0;
			CONTINUE WHEN max_moved IS NOT NULL AND spent + s.load > max_moved;
			-- the receiver with the most room (drained nodes take nothing)
			SELECT i INTO r FROM generate_series(1, cardinality(names)) i
			WHERE NOT drained[i] AND i <> d
			ORDER BY limits[i] - loads[i] DESC, i LIMIT 1;
			-- (a receiver may end over its limit if by less than the donor
			-- would stay over it: with equal slots, the last slot's place)
			CONTINUE WHEN r IS NULL OR (NOT drained[d] AND limits[r] - loads[r] < s.load
										AND loads[r] + s.load - limits[r] >= need);
			owner[s.k] := r;
			loads[d] := loads[d] - s.load;
			loads[r] := loads[r] + s.load;
			need := need - s.load;
			spent := spent + s.load;
			mv_slot := mv_slot || (s.k - 1);
			mv_from := mv_from || d;
			mv_to := mv_to || r;
			mv_load := mv_load || s.load;
		END LOOP;
		IF NOT drained[d] AND need > 0 THEN
			SELECT k INTO heavy FROM generate_series(1, nslots) k
			WHERE owner[k] = d AND slot_load[k] >= need
			  AND (max_moved IS NULL OR spent + slot_load[k] <= max_moved)
			ORDER BY slot_load[k], k LIMIT 1;
			IF heavy IS NOT NULL THEN
				SELECT i INTO r FROM generate_series(1, cardinality(names)) i
				WHERE NOT drained[i] AND i <> d AND limits[i] - loads[i] >= slot_load[heavy]
				ORDER BY limits[i] - loads[i] DESC, i LIMIT 1;
				IF r IS NOT NULL THEN
					owner[heavy] := r;
					loads[d] := loads[d] - slot_load[heavy];
					loads[r] := loads[r] + slot_load[heavy];
					spent := spent + slot_load[heavy];
					need := need - slot_load[heavy];
					mv_slot := mv_slot || (heavy - 1);
					mv_from := mv_from || d;
					mv_to := mv_to || r;
					mv_load := mv_load || slot_load[heavy];
				END IF;
			END IF;
		END IF;
		IF drained[d] AND EXISTS (SELECT FROM generate_series(1, nslots) k WHERE owner[k] = d) THEN
			RAISE NOTICE USING
				MESSAGE = format('drained node "%s" keeps %s slots', names[d],
								 (SELECT count(*) FROM generate_series(1, nslots) k WHERE owner[k] = d)),
				DETAIL = format('The budget max_moved (%s) is spent.', max_moved);
		ELSIF need > 0 AND NOT drained[d] THEN
			SELECT k INTO heavy FROM generate_series(1, nslots) k WHERE owner[k] = d ORDER BY slot_load[k] DESC, k LIMIT 1;
			RAISE NOTICE USING
				MESSAGE = format('node "%s" stays %s over its target', names[d], round(need::numeric, 1)),
				DETAIL = CASE WHEN max_moved IS NOT NULL AND spent + need > max_moved
							  THEN format('The budget max_moved (%s) is spent.', max_moved)
							  ELSE format('No other node has room for its slots; its heaviest, slot %s, holds %s.',
										  heavy - 1, round(slot_load[heavy]::numeric, 1)) END;
		END IF;
	END LOOP;
	SELECT max(loads[i] * target_peak / nullif(limits[i], 0)) INTO peak_after
	FROM generate_series(1, cardinality(names)) i WHERE NOT drained[i];

	-- the new ring: a copy whose active nodes are given their slot ranges,
	-- all in one change
	PERFORM @extschema@.chash_ring_copy(ring, into_ring);
	UPDATE chash.node_config n
	SET slots = coalesce((SELECT array_agg(int4range(g.lo, g.hi + 1) ORDER BY g.lo)
						  FROM (SELECT min(k - 1) AS lo, max(k - 1) AS hi
								FROM (SELECT k, k - row_number() OVER (ORDER BY k) AS grp
									  FROM generate_series(1, nslots) k
									  WHERE owner[k] = array_position(names, n.node)) x
								GROUP BY x.grp) g), '{}')
	WHERE n.ring = into_ring AND n.state = 'active';

	RAISE NOTICE '%', chash.rebalance_summary(ring, into_ring, cost, peak_before, peak_after, spent, total, bound);
	RETURN QUERY
	SELECT names[m.from_node], names[m.to_node], range_agg(int4range(m.slot, m.slot + 1)),
		   NULL::bigint[], count(*)::integer, sum(m.load)
	FROM unnest(mv_slot, mv_from, mv_to, mv_load) AS m(slot, from_node, to_node, load)
	GROUP BY m.from_node, m.to_node
	ORDER BY 1, 2;
END;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_rebalance(text, text, regclass, name, double precision, text, text[], double precision, boolean, integer, boolean) IS
	'create ring into_ring, a copy of ring whose slots, tokens, vnodes or weights even out a relation''s load (rows or bytes, of the owners or, for rings planned by vnodes or weights, of their replicas copies) to target_peak times each node''s share of weight times capacity, moving as little load as it can (within max_moved), drained nodes giving all their load; one row a pair of nodes with the load that moves';
