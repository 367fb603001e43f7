CREATE OR REPLACE FUNCTION chash_ring_drop(ring text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_drop'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_drop(text) IS
	'drop a ring and all its nodes';

CREATE OR REPLACE FUNCTION chash_node_remove(ring text, node text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_remove'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_remove(text, text) IS
	'remove a node from a ring';

CREATE OR REPLACE FUNCTION chash_ring_copy(src text, dst text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_copy'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_copy(text, text) IS
	'create ring dst with the settings and nodes (their order, targets, capacities and addresses included) of ring src';

CREATE OR REPLACE FUNCTION chash_node_add(ring text,
							   node text,
							   weight double precision DEFAULT 1,
							   vnodes integer DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL,
							   capacity double precision DEFAULT 1,
							   address text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_add'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_add(text, text, double precision, integer, text, text, bigint[], int4range[], double precision, text) IS
	'add a node to a ring: weight (> 0), own vnodes (default: from the weight), zone, target (where its rows live), tokens (its points, instead of vnodes), slots (the slot ranges it owns, for slots rings), capacity (> 0, the load planning gives it relative to the others; default 1), address (where the system''s server is, for chash_export; default: the node''s name)';

CREATE OR REPLACE FUNCTION chash_node_set(ring text,
							   node text,
							   weight double precision DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   state text DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL,
							   capacity double precision DEFAULT NULL,
							   address text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_set(text, text, double precision, integer, text, text, text, bigint[], int4range[], double precision, text) IS
	'change a node''s weight, vnodes, state (active or down), zone, target, tokens or slots (''{}'' for none), capacity or address; NULL leaves a setting as it is';

CREATE OR REPLACE FUNCTION chash_ring_set(ring text,
							   hash text DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   vnode_name text DEFAULT NULL,
							   vnode_first integer DEFAULT NULL,
							   key_hash text DEFAULT NULL,
							   ketama_variant text DEFAULT NULL,
							   ties text DEFAULT NULL,
							   table_size integer DEFAULT NULL,
							   lookup text DEFAULT NULL,
							   hash_tag text DEFAULT NULL,
							   notify boolean DEFAULT NULL)
	RETURNS double precision
	AS 'MODULE_PATHNAME', 'chash_ring_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_set(text, text, integer, text, integer, text, text, text, integer, text, text, boolean) IS
	'change a ring''s settings, checked as chash_ring_create checks them, or whether its changes notify (NULL leaves a setting as it is); returns the share of the keys the change moves where the placements tell it, else NULL with a NOTICE';

CREATE OR REPLACE FUNCTION chash_profiles()
	RETURNS TABLE(profile text, system text, settings text, may_set text[],
				  nodes text, checked_against text)
	AS 'MODULE_PATHNAME', 'chash_profiles'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION chash_profiles() IS
	'the profiles of chash_ring_create: the system each routes as, its settings as chash_ring_create''s arguments, those that may be given with it, how to name the nodes, and the software it was checked against';

CREATE OR REPLACE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT NULL,
								  hash text DEFAULT NULL,
								  vnodes integer DEFAULT NULL,
								  vnode_name text DEFAULT NULL,
								  vnode_first integer DEFAULT NULL,
								  key_hash text DEFAULT NULL,
								  ketama_variant text DEFAULT NULL,
								  ties text DEFAULT NULL,
								  table_size integer DEFAULT NULL,
								  lookup text DEFAULT NULL,
								  hash_tag text DEFAULT NULL,
								  profile text DEFAULT NULL,
								  notify boolean DEFAULT false)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text, text, text, boolean) IS
	'create a ring: algorithm (ring, ketama, tokens, modulo, jump, rendezvous, maglev, slots, nginx, haproxy, dalli, elasticsearch or envoy_ring_hash; default ring), hash of the points or node names (default: the algorithm''s), vnodes per node of average weight (default 160), vnode name template ({node}, {i}), first i (default 0), hash of the keys (default: hash), ketama variant, ties rule, table size, lookup rule, hash tag (two characters, as ''{}''), or the profile of a real system (chash_profiles()); notify: each committed change sends NOTIFY chash_ring_changed with the ring and its version';


/*
 * The cutover of a batch migration: ring takes planned's settings and
 * nodes (their order, targets, tokens, slots, capacities and addresses)
 * and whether its changes notify, in
 * one statement's worth of catalog changes, which the catalog's trigger
 * checks, versions and makes every backend's cache see, as for any change.  The planned copy
 * is dropped unless asked not to.  Rings in an online move under way are
 * refused: chash_move_online switches them itself.
 */
CREATE OR REPLACE FUNCTION chash_ring_switch(ring text, planned text,
											 drop_planned boolean DEFAULT true)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	target_ring text := ring;
	planned_ring text := planned;
	moving text;
	nodes integer;
BEGIN
	IF target_ring IS NULL OR planned_ring IS NULL OR drop_planned IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, planned and drop_planned must not be null';
	END IF;
	IF target_ring = planned_ring THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" cannot be switched to itself', chash.message_name(target_ring)),
			HINT = 'Copy the ring with chash_ring_copy(), change the copy, move the rows, then switch the ring to the copy.';
	END IF;
	PERFORM chash.check_ring_privileges(target_ring, 'A switch', '{UPDATE,DELETE}', '{INSERT,DELETE}');
	-- both rows locked, in name order, before anything is read
	PERFORM FROM chash.ring_config c WHERE c.ring IN (target_ring, planned_ring)
	ORDER BY c.ring FOR UPDATE;
	IF NOT EXISTS (SELECT FROM chash.ring_config c WHERE c.ring = target_ring) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(target_ring));
	END IF;
	IF NOT EXISTS (SELECT FROM chash.ring_config c WHERE c.ring = planned_ring) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(planned_ring));
	END IF;
	SELECT m.from_ring INTO moving FROM chash.online_moves m
	WHERE m.step <> 'done'
	  AND (m.from_ring IN (target_ring, planned_ring) OR m.to_ring IN (target_ring, planned_ring))
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'object_in_use',
			MESSAGE = format('ring "%s" is in an online move under way', chash.message_name(moving)),
			DETAIL = 'chash_move_online switches the ring itself when the move is done.',
			HINT = 'Let the move finish with chash_move_online(), or abort it with chash_move_abort().';
	END IF;

	-- the nodes go first, so that the new settings are checked with the
	-- planned nodes only
	DELETE FROM chash.node_config n WHERE n.ring = target_ring;
	UPDATE chash.ring_config c
	SET algorithm = p.algorithm, hash = p.hash, key_hash = p.key_hash,
		vnodes = p.vnodes, vnode_name = p.vnode_name, vnode_first = p.vnode_first,
		ketama_variant = p.ketama_variant, ties = p.ties, table_size = p.table_size,
		lookup = p.lookup, hash_tag = p.hash_tag, profile = p.profile,
		notify = p.notify
	FROM chash.ring_config p
	WHERE c.ring = target_ring AND p.ring = planned_ring;
	INSERT INTO chash.node_config (ring, node, weight, vnodes, zone, state, ordinal,
								   target, tokens, slots, capacity, address)
	SELECT target_ring, n.node, n.weight, n.vnodes, n.zone, n.state, n.ordinal,
		   n.target, n.tokens, n.slots, n.capacity, n.address
	FROM chash.node_config n WHERE n.ring = planned_ring
	ORDER BY n.ordinal, n.node;
	GET DIAGNOSTICS nodes = ROW_COUNT;
	IF drop_planned THEN
		DELETE FROM chash.ring_config c WHERE c.ring = planned_ring;
	END IF;
	RETURN nodes;
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_ring_switch(text, text, boolean) IS
	'the cutover of a migration: ring takes the settings and nodes (order, targets, tokens, slots, capacities, addresses) of its planned copy, checked and versioned as any change; the copy is dropped unless drop_planned is false; returns the ring''s number of nodes';
