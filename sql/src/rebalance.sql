/*
 * Rebalancing: the change that evens out a table's load over a ring's
 * nodes, moving as little of it as it can, made as a new ring that every
 * plan of planning.sql carries out.  Slot rings so far.
 */

-- Each node's load before and after a change, from the same table: the
-- figures to judge a rebalance (or any change of a ring by units) by
CREATE OR REPLACE FUNCTION chash_rebalance_report(ring text, into_ring text, relation regclass,
												  key_column name, cost text DEFAULT 'rows')
	RETURNS TABLE(node text, weight double precision, target double precision,
				  before double precision, after double precision)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
	IF ring IS NULL OR into_ring IS NULL OR relation IS NULL OR key_column IS NULL OR cost IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column and cost must not be null';
	END IF;
	-- the target: the load shared by the active weights of the new ring
	RETURN QUERY
	WITH b AS (SELECT l.node, sum(l.load) AS load FROM @extschema@.chash_load(ring, relation, key_column, cost) l
			   GROUP BY l.node),
		 a AS (SELECT l.node, sum(l.load) AS load FROM @extschema@.chash_load(into_ring, relation, key_column, cost) l
			   GROUP BY l.node),
		 w AS (SELECT n.node, n.weight, n.state FROM chash.node_config n WHERE n.ring = into_ring),
		 total AS (SELECT sum(b.load) AS load FROM b)
	SELECT coalesce(w.node, b.node), w.weight,
		   CASE WHEN w.state = 'active'
				THEN total.load * w.weight / nullif((SELECT sum(x.weight) FROM w x WHERE x.state = 'active'), 0)
				ELSE 0 END,
		   coalesce(b.load, 0), coalesce(a.load, 0)
	FROM w FULL JOIN b ON b.node = w.node
	LEFT JOIN a ON a.node = coalesce(w.node, b.node)
	CROSS JOIN total
	ORDER BY 1;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_rebalance_report(text, text, regclass, name, text) IS
	'each node''s load (rows or bytes of a relation) on ring and on ring into_ring, and its target: the load shared by the active weights of into_ring';

/*
 * chash_rebalance: a new ring, into_ring, that evens out the relation's load.
 * Each node's target is the load times its share of the weights (0 for a
 * drained node); a node over target_peak times its target gives slots to
 * the nodes under theirs.  Donors, the most loaded first, give their
 * slots heaviest first while a slot fits in what they must shed, then the
 * lightest slot that sheds the rest; each goes to the node with the most
 * room.  So each donor moves its excess and at most one slot more, and
 * slots that carry no load move only from a drained node.  A drain moves
 * the drained nodes' slots and nothing else.
 */
CREATE OR REPLACE FUNCTION chash_rebalance(ring text, into_ring text, relation regclass, key_column name,
										   target_peak double precision DEFAULT 1.05,
										   cost text DEFAULT 'rows', drain text[] DEFAULT '{}',
										   max_moved double precision DEFAULT NULL)
	RETURNS TABLE(from_node text, to_node text, slots int4multirange, units integer,
				  moved double precision)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET enable_nestloop = off
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
	weights double precision;
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
	   OR target_peak IS NULL OR cost IS NULL OR drain IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, into_ring, relation, key_column, target_peak, cost and drain must not be null';
	END IF;
	PERFORM chash.check_ring_privileges(into_ring, 'A rebalance', '{INSERT}', '{INSERT,UPDATE}');
	SELECT c.algorithm INTO algorithm FROM chash.ring_config c WHERE c.ring = chash_rebalance.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create().';
	END IF;
	IF algorithm <> 'slots' THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('chash_rebalance cannot plan ring "%s" of algorithm "%s"',
							 chash.message_name(ring), algorithm),
			DETAIL = 'It reassigns the slots of slot rings so far.',
			HINT = CASE WHEN algorithm IN ('modulo', 'jump', 'rendezvous')
						THEN 'Only the number of nodes changes where its keys go: add or remove nodes, and compare with chash_move_summary().'
						ELSE 'Change the weights on a copy (chash_ring_copy, chash_node_set) and compare the load with chash_rebalance_report().' END;
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

	SELECT array_agg(n.node ORDER BY n.node), array_agg(n.node = ANY (drain) ORDER BY n.node),
		   array_agg(n.weight ORDER BY n.node)
	INTO names, drained, limits
	FROM chash.node_config n WHERE n.ring = chash_rebalance.ring AND n.state = 'active';
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

	-- the load of every slot, owned or not (a slot of no node stays so)
	SELECT array_agg(array_position(names, l.node) ORDER BY l.unit), array_agg(l.load ORDER BY l.unit),
		   count(*), sum(l.load)
	INTO owner, slot_load, nslots, total
	FROM @extschema@.chash_load(ring, relation, key_column, cost) l;
	SELECT sum(w) INTO weights FROM unnest(limits, drained) AS x(w, dr) WHERE NOT dr;
	SELECT array_agg(CASE WHEN dr THEN 0 ELSE target_peak * total * w / weights END ORDER BY i)
	INTO limits FROM unnest(limits, drained) WITH ORDINALITY AS x(w, dr, i);
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
			CONTINUE WHEN r IS NULL OR (NOT drained[d] AND limits[r] - loads[r] < s.load);
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

	RAISE NOTICE USING
		MESSAGE = format('chash rebalance of ring "%s" into ring "%s": peak-to-mean %s before, %s after; moved %s of %s %s (%s%%), at least %s had to move',
						 ring, into_ring, round(peak_before::numeric, 3), round(peak_after::numeric, 3),
						 round(spent::numeric), round(total::numeric), cost,
						 round((100 * spent / nullif(total, 0))::numeric, 2), round(bound::numeric));
	RETURN QUERY
	SELECT names[m.from_node], names[m.to_node], range_agg(int4range(m.slot, m.slot + 1)),
		   count(*)::integer, sum(m.load)
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
COMMENT ON FUNCTION chash_rebalance(text, text, regclass, name, double precision, text, text[], double precision) IS
	'create ring into_ring, a copy of slot ring ring whose slots even out a relation''s load (rows or bytes) to target_peak times each node''s weighted share, moving as little load as it can (within max_moved), drained nodes giving all their slots; one row a pair of nodes with the slots that move';
