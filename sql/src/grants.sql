/*
 * Privileges, all in one place.  Routing reads the catalog with the
 * caller's rights; changing it needs write privileges, which only the
 * owner has until granted.  The functions of online moves, and the tables
 * they keep, are for the owner: chash_move_online checks what its caller
 * may do (see doc/security.md).  A trigger function needs no EXECUTE
 * privilege to fire; PUBLIC may not execute chash.catalog_trigger or
 * chash.check_node_values, so that no role can attach them to a table of
 * its own.
 *
 * Both the install script and every upgrade run this file: each statement
 * leaves the same privileges however often it runs.
 */
GRANT USAGE ON SCHEMA chash TO PUBLIC;
GRANT SELECT ON chash.ring_config, chash.node_config TO PUBLIC;
GRANT USAGE, SELECT ON SEQUENCE chash.node_ordinal_seq TO PUBLIC;
GRANT SELECT ON chash.rings, chash.nodes, chash.ring_balance TO PUBLIC;
-- (they name rings that row-level security may hide, in every session)
REVOKE ALL ON FUNCTION chash.shared_rings(), chash.shared_ring_stats() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION chash.shared_rings(), chash.shared_ring_stats() TO pg_read_all_stats;
REVOKE ALL ON FUNCTION chash.catalog_trigger(), chash.check_node_values(),
	chash.notify_ring_changed() FROM PUBLIC;

REVOKE ALL ON chash.online_moves, chash.online_move_pairs, chash.online_move_nodes FROM PUBLIC;
REVOKE ALL ON FUNCTION chash.move_dblink(), chash.move_shard(text, text, regclass),
	chash.move_remote(text, text), chash.move_connect(text, name, interval),
	chash.move_disconnect(), chash.move_ddl(text, text, text, timestamptz),
	chash.move_key(text, name, regtype), chash.move_hashed(jsonb, text), chash.move_moving(jsonb, text, int8multirange),
	chash.move_ranges(text, text),
	chash.move_node_ranges(bigint, text, boolean), chash.move_object(text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION chash.move_check_shard(text, integer, text, name, name, name, text[], text, text,
											 boolean, boolean, integer, integer, boolean, boolean, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION chash.move_reach(chash.online_moves, boolean, interval, boolean, boolean),
	chash.move_obj(jsonb, text, text), chash.move_state_sql(jsonb, text, text),
	chash.move_set_fences(chash.online_moves, jsonb, text),
	chash.move_make_objects(chash.online_moves, jsonb, timestamptz),
	chash.move_subscribe(chash.online_moves, jsonb, boolean), chash.move_check_streams(chash.online_moves, jsonb),
	chash.move_recopy_stalled(chash.online_moves, jsonb, timestamptz, jsonb),
	chash.move_wait_copies(chash.online_moves, jsonb, timestamptz),
	chash.move_barrier(chash.online_moves, jsonb, timestamptz),
	chash.move_sums(chash.online_moves, jsonb, int8multirange, boolean, jsonb, integer[]),
	chash.move_differ(jsonb, jsonb), chash.move_claim(chash.online_moves, jsonb, jsonb, integer),
	chash.move_compare(chash.online_moves, jsonb, jsonb, timestamptz), chash.move_count(jsonb),
	chash.move_verify(chash.online_moves, jsonb, timestamptz),
	chash.move_repair(chash.online_moves, jsonb, integer, jsonb),
	chash.move_cutover(chash.online_moves, jsonb, jsonb, interval),
	chash.move_wait_quiet(chash.online_moves, jsonb, interval, timestamptz),
	chash.move_delete_rows(chash.online_moves, jsonb, int8multirange, boolean),
	chash.move_drop_streams(chash.online_moves, jsonb, timestamptz, integer),
	chash.move_drop_objects(chash.online_moves, text, jsonb, boolean, timestamptz),
	chash.move_wait_older(chash.online_moves, timestamptz), chash.move_running(chash.online_moves),
	chash.move_take(text, regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION chash.move_lower_fences(chash.online_moves, jsonb) FROM PUBLIC;
REVOKE ALL ON PROCEDURE chash_move_online(text, text, regclass, name, interval, interval, boolean) FROM PUBLIC;
REVOKE ALL ON PROCEDURE chash_move_abort(text, interval) FROM PUBLIC;
