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
	'create ring dst with the settings and nodes (their order and targets included) of ring src';

CREATE OR REPLACE FUNCTION chash_node_add(ring text,
							   node text,
							   weight double precision DEFAULT 1,
							   vnodes integer DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_add'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_add(text, text, double precision, integer, text, text, bigint[], int4range[]) IS
	'add a node to a ring: weight (> 0), own vnodes (default: from the weight), zone, target (where its rows live), tokens (its points, instead of vnodes), slots (the slot ranges it owns, for slots rings)';

CREATE OR REPLACE FUNCTION chash_node_set(ring text,
							   node text,
							   weight double precision DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   state text DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_set(text, text, double precision, integer, text, text, text, bigint[], int4range[]) IS
	'change a node''s weight, vnodes, state (active or down), zone, target, tokens or slots (''{}'' for none); NULL leaves a setting as it is';

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
								  profile text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text, text, text) IS
	'create a ring: algorithm (ring, ketama, tokens, modulo, jump, rendezvous, maglev, slots, nginx, haproxy, dalli, elasticsearch or envoy_ring_hash; default ring), hash of the points or node names (default: the algorithm''s), vnodes per node of average weight (default 160), vnode name template ({node}, {i}), first i (default 0), hash of the keys (default: hash), ketama variant, ties rule, table size, lookup rule, hash tag (two characters, as ''{}''), or the profile of a real system (chash_profiles())';

