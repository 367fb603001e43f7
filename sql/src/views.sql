CREATE OR REPLACE VIEW chash.ring_balance AS
	SELECT r.ring, r.algorithm, s.nodes, s.points, s.peak_to_mean, s.stddev,
		   s.min_ratio, s.max_ratio
	FROM chash.ring_config r
	LEFT JOIN LATERAL chash.balance(r.ring) s ON true;
COMMENT ON VIEW chash.ring_balance IS
	'one row a ring: its imbalance figures from exact ownership, for dashboards (NULL for a ring that cannot be built)';

CREATE OR REPLACE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state,
		   chash.node_points(n.ring, n.node) AS points,
		   n.ordinal, n.target, n.tokens, n.slots, n.capacity, n.address
	FROM chash.node_config n;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points (NULL if its ring cannot be built or places no points), place in the server list, target, tokens, slot ranges, capacity and address (NULL: its name)';

CREATE OR REPLACE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   CASE WHEN pg_catalog.count(n.node) OPERATOR(pg_catalog.=) pg_catalog.count(n.points)
				THEN coalesce(pg_catalog.sum(n.points), 0)::bigint END AS points,
		   r.ketama_variant, r.ties, r.version,
		   chash.ring_problem(r.ring) AS problem,
		   r.table_size, r.lookup, r.hash_tag, r.profile, r.notify
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points, its version, why it cannot be built if it cannot, table size, lookup rule, hash tag, the profile it was created with and whether its changes notify';


/*
 * The views read the catalog as their caller, as routing does: from 15 on
 * with security_invoker (which CREATE OR REPLACE VIEW resets, so it is set
 * here after them); on 14 through a function of the same query, since a
 * function runs with its caller's privileges and row-level security, where
 * a view's own tables are read as the view's owner.
 */
DO $$
DECLARE
	path text := pg_catalog.current_setting('search_path');
	v text;
	columns text;
	body text;
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
		ALTER VIEW chash.ring_balance SET (security_invoker = true);
		RETURN;
	END IF;
	-- every name of the queries qualified but pg_catalog's
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	FOREACH v IN ARRAY ARRAY['nodes', 'rings', 'ring_balance'] LOOP
		SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
								   pg_catalog.format_type(a.atttypid, a.atttypmod)),
								   ', ' ORDER BY a.attnum)
		INTO columns
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = pg_catalog.to_regclass('chash.' || v) AND a.attnum > 0;
		body := pg_catalog.pg_get_viewdef(pg_catalog.to_regclass('chash.' || v));
		EXECUTE pg_catalog.format(
			'CREATE OR REPLACE FUNCTION chash.%I() RETURNS TABLE(%s) LANGUAGE sql STABLE '
			'SET search_path = pg_catalog, pg_temp AS %L',
			v || '_as_caller', columns, body);
		EXECUTE pg_catalog.format(
			'COMMENT ON FUNCTION chash.%I() IS %L', v || '_as_caller',
			'the rows of the view chash.' || v || ' as the caller may read them (PostgreSQL 14)');
		EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW chash.%I AS SELECT * FROM chash.%I()',
								  v, v || '_as_caller');
	END LOOP;
	PERFORM pg_catalog.set_config('search_path', path, true);
END
$$;
