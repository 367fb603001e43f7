CREATE OR REPLACE FUNCTION chash_points(ring text)
	RETURNS TABLE(point bigint, node text, vnode text)
	AS 'MODULE_PATHNAME', 'chash_points'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash_points(text) IS
	'every point of a ring in ring order (unsigned): its position, node and virtual node name';

/*
 * Views for people: the rings and nodes with their point counts.
 */
-- It catches the ring's own errors in a subtransaction (the views show a
-- ring that cannot be built too), so it cannot run in parallel mode.
CREATE OR REPLACE FUNCTION chash.ring_node_points(ring text)
	RETURNS TABLE(node text, points integer)
	AS 'MODULE_PATHNAME', 'chash_ring_node_points'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_node_points(text) IS
	'number of points of each node of a ring, from the cached ring; no rows if the ring cannot be built';

-- The view chash.nodes looks each node up here rather than joining
-- chash.ring_node_points, so that no plan reads a ring once a node.
CREATE OR REPLACE FUNCTION chash.node_points(ring text, node text)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_node_points'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION chash.node_points(text, text) IS
	'number of points of one node of a ring, each ring counted once a query; NULL if the ring cannot be built or places no points';

CREATE OR REPLACE FUNCTION chash.ring_problem(ring text)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_ring_problem'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION chash.ring_problem(text) IS
	'why a ring cannot be built (the error its lookups raise), NULL if it can';

CREATE OR REPLACE FUNCTION chash.ring_node_ranges(ring text)
	RETURNS TABLE(lo bigint, hi bigint, node text, node_again text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_node_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_node_ranges(text) IS
	'a ring''s ranges of positions and the node owning each (no rows for placements without points)';

CREATE OR REPLACE FUNCTION chash.placement_members(ring text)
	RETURNS TABLE(node text, member integer)
	AS 'MODULE_PATHNAME', 'chash_placement_members'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.placement_members(text) IS
	'the active nodes of a computed placement as its owners are numbered (modulo: position mod n is the member), none for rings of points';

-- The slots of slots and maglev rings, as ranges of one owner each
CREATE OR REPLACE FUNCTION chash_slot_ranges(ring text)
	RETURNS TABLE(node text, slots int4range)
	AS 'MODULE_PATHNAME', 'chash_slot_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION chash_slot_ranges(text) IS
	'the slots of a slots or maglev ring as ranges of one owner each, in slot order (unowned slots in none)';

-- The number of slots of a ring's table as the library builds it
CREATE OR REPLACE FUNCTION chash.table_size(ring text) RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_table_size_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.table_size(text) IS
	'the number of slots of a slots, maglev or elasticsearch ring''s table as built, NULL for other rings';

-- A ring's routing configuration, for plans to check that it is
-- unchanged: with its hash tag (concat_ws skips a NULL one, so untagged
-- rings keep their fingerprints)
CREATE OR REPLACE FUNCTION chash.routing_fingerprint(ring text) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT md5(concat_ws(' ', r.algorithm, r.hash, coalesce(r.key_hash, r.hash), r.vnodes, r.vnode_name,
					 r.vnode_first, r.ketama_variant, r.ties, r.table_size, r.lookup,
					 (SELECT string_agg(concat_ws(' ', quote_literal(n.node), n.weight, n.vnodes, n.state,
												  n.ordinal, quote_nullable(n.zone), n.tokens::text,
												  n.slots::text), ',' ORDER BY n.node)
					  FROM chash.node_config n WHERE n.ring = r.ring),
					 r.hash_tag))
FROM chash.ring_config r WHERE r.ring = routing_fingerprint.ring
$$;
COMMENT ON FUNCTION chash.routing_fingerprint(text) IS
	'an md5 of everything a ring''s routing depends on';

CREATE OR REPLACE FUNCTION chash.cache_stats()
	RETURNS TABLE(rings integer, cached integer, builds bigint,
				  version_reads bigint, config_reads bigint,
				  full_checks bigint, delta_checks bigint,
				  memory bigint, evictions bigint, call_memory bigint)
	AS 'MODULE_PATHNAME', 'chash_cache_stats_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION chash.cache_stats() IS
	'this backend''s ring cache and ring changes: ring names with a ring cached, rings cached (all versions), rings built, versions read, configurations read, changed rings checked by counting them whole and from the changed rows, since the backend started; bytes the cached rings hold now, rings freed to fit chash.cache_memory, and bytes the routing calls of running statements keep between calls (chash_lookup''s node names, at most two rings'' a call site)';

CREATE OR REPLACE FUNCTION chash.shared_rings()
	RETURNS TABLE(ring text, version bigint, state text, bytes bigint,
				  backends integer, builds bigint, maps bigint,
				  built_at timestamptz, builder integer)
	AS 'MODULE_PATHNAME', 'chash_shared_rings_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION chash.shared_rings() IS
	'the rings of this database in shared memory (chash.shared_rings): each one''s version, state (shared, or building), bytes, the backends that hold it, how often backends built it (1 when every other one mapped it; more when one waited too long for the build, or could not map it) and mapped it, when it was built and by which backend';

CREATE OR REPLACE FUNCTION chash.shared_ring_stats()
	RETURNS TABLE(counter text, backend bigint, server bigint, detail text)
	AS 'MODULE_PATHNAME', 'chash_shared_ring_stats_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION chash.shared_ring_stats() IS
	'rings built and shared, rings mapped that another backend built, the bytes of the shared rings held (by this backend; in all), and rings built in a backend''s own memory instead, by reason (fallback: ...): this backend''s counts and the server''s since it started (NULL without shared memory); detail says why sharing is unavailable, or the last error';

