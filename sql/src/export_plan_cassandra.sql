/*
 * chash_export_plan for Cassandra: the steps that take a cluster placed as
 * from_ring to to_ring, one node at a time as Cassandra changes its ring.
 * New nodes join first, each with the initial_token lines of chash_export;
 * then every node of one token whose token changes moves (nodetool move),
 * with the primary ranges it takes and gives up, computed on the ring as
 * the steps before left it; then the nodes that leave are decommissioned.
 * Each command checks the node first and skips what is done.
 */

-- A token range (lo, hi] of Murmur3's ring, as the text Cassandra prints,
-- or its two parts where it wraps past the largest token
CREATE OR REPLACE FUNCTION chash.cassandra_range_text(lo bigint, hi bigint)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE WHEN lo < hi THEN format('(%s,%s]', lo, hi)
			ELSE format('(%s,%s] and (%s,%s]', lo, 9223372036854775807, -9223372036854775808, hi) END
$$;
COMMENT ON FUNCTION chash.cassandra_range_text(bigint, bigint) IS
	'a token range (lo, hi] of Murmur3''s ring as text, in two parts where it wraps';

CREATE OR REPLACE FUNCTION chash.export_plan_cassandra(from_ring text, to_ring text, options jsonb)
	RETURNS TABLE(step integer, target text, command text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
	bad record;
	map jsonb;				-- token (as text) -> node, the ring as the steps leave it
	k integer := 0;
	old_token bigint;
	new_token bigint;
	before_lo bigint;
	after_lo bigint;
BEGIN
	-- both rings as Cassandra holds them (chash_export's checks)
	PERFORM chash.export_cassandra(from_ring, '{}');
	PERFORM chash.export_cassandra(to_ring, '{}');
	SELECT x.node, cardinality(f.tokens) AS before, cardinality(t.tokens) AS after INTO bad
	FROM chash.export_plan_nodes(from_ring, to_ring) x
	JOIN chash.node_config f ON f.ring = from_ring AND f.node = x.node
	JOIN chash.node_config t ON t.ring = to_ring AND t.node = x.node
	WHERE (SELECT array_agg(v ORDER BY v) FROM unnest(f.tokens) v) IS DISTINCT FROM (SELECT array_agg(v ORDER BY v) FROM unnest(t.tokens) v)
	  AND (cardinality(f.tokens) <> 1 OR cardinality(t.tokens) <> 1)
	ORDER BY x.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" changes its %s tokens to %s, which format "cassandra" cannot carry out',
							 chash.message_name(bad.node), bad.before, bad.after),
			DETAIL = 'nodetool move moves a node of one token; a node of several keeps its tokens for life.',
			HINT = 'Give the node a new name in to_ring: the plan then bootstraps it with its new tokens and decommissions the old one.';
	END IF;
	-- addresses go into shell commands: only those of hosts
	SELECT x.node, x.address INTO bad FROM chash.export_plan_nodes(from_ring, to_ring) x
	WHERE x.address !~ '^[A-Za-z0-9_.:%-]+$' AND x.address !~ '^\[[0-9A-Fa-f:.]+\]$' ORDER BY x.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" has address "%s", which format "cassandra" cannot write',
							 chash.message_name(bad.node), chash.message_name(bad.address)),
			DETAIL = 'A plan''s commands reach each node by its address, a host name or an IP address.',
			HINT = 'Give the node its address with chash_node_set(ring, node, address => ...).';
	END IF;
	SELECT jsonb_object_agg(v::text, c.node) INTO map
	FROM chash.node_config c, unnest(c.tokens) v WHERE c.ring = from_ring;

	-- new nodes, one at a time: their cassandra.yaml lines, then started
	FOR n IN
		SELECT x.node, x.address, t.tokens, t.zone FROM chash.export_plan_nodes(from_ring, to_ring) x
		JOIN chash.node_config t ON t.ring = to_ring AND t.node = x.node
		WHERE NOT x.in_from ORDER BY x.k
	LOOP
		k := k + 1;
		step := k;
		target := n.address;
		command := format(E'# join: in cassandra.yaml of %s%s, before its first start\nnum_tokens: %s\ninitial_token: %s\n'
						  '# then start it and wait until nodetool status shows it UN (a node that has joined is left as it is)',
						  n.node, CASE WHEN n.zone IS NOT NULL THEN format(' (rack %s)', n.zone) ELSE '' END,
						  cardinality(n.tokens), (SELECT string_agg(v::text, ',' ORDER BY v) FROM unnest(n.tokens) v));
		RETURN NEXT;
		map := map || (SELECT jsonb_object_agg(v::text, n.node) FROM unnest(n.tokens) v);
	END LOOP;

	-- moves of nodes of one token, on the ring as it is at each
	FOR n IN
		SELECT x.node, x.address, f.tokens[1] AS old_token, t.tokens[1] AS new_token
		FROM chash.export_plan_nodes(from_ring, to_ring) x
		JOIN chash.node_config f ON f.ring = from_ring AND f.node = x.node
		JOIN chash.node_config t ON t.ring = to_ring AND t.node = x.node
		WHERE f.tokens[1] <> t.tokens[1] AND cardinality(f.tokens) = 1
		ORDER BY x.k
	LOOP
		old_token := n.old_token;
		new_token := n.new_token;
		-- the token before each, clockwise (the largest below it, else the largest)
		SELECT coalesce(max(m.key::bigint) FILTER (WHERE m.key::bigint < old_token), max(m.key::bigint)) INTO before_lo
		FROM jsonb_each_text(map) m WHERE m.key::bigint <> old_token;
		map := map - old_token::text || jsonb_build_object(new_token::text, n.node);
		SELECT coalesce(max(m.key::bigint) FILTER (WHERE m.key::bigint < new_token), max(m.key::bigint)) INTO after_lo
		FROM jsonb_each_text(map) m WHERE m.key::bigint <> new_token;
		k := k + 1;
		step := k;
		target := n.address;
		command := format(E'# move: %s owned %s, owns %s after\n'
						  'nodetool -h %s info --tokens | grep -Eq ''^Token +: %s$'' || nodetool -h %s move -- %s',
						  n.node, coalesce(chash.cassandra_range_text(before_lo, old_token), 'every token'),
						  coalesce(chash.cassandra_range_text(after_lo, new_token), 'every token'),
						  n.address, new_token, n.address, new_token);
		RETURN NEXT;
	END LOOP;

	-- nodes that leave, one at a time
	FOR n IN
		SELECT x.node, x.address FROM chash.export_plan_nodes(from_ring, to_ring) x
		WHERE NOT x.in_to ORDER BY x.k
	LOOP
		k := k + 1;
		step := k;
		target := n.address;
		command := format(E'# leave: %s streams its ranges to the nodes that take them\n'
						  'nodetool -h %s netstats | grep -q ''^Mode: DECOMMISSIONED'' || nodetool -h %s decommission',
						  n.node, n.address, n.address);
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash.export_plan_cassandra(text, text, jsonb) IS
	'chash_export_plan of format cassandra: new nodes join with their initial_token lines, nodes of one token move (nodetool move, with the primary ranges before and after), nodes that leave are decommissioned, one at a time';
