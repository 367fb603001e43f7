/*
 * Tokens for a new node of a "tokens" ring, so that nodes added one by one
 * keep the keys' copies even (src/placement/token_allocation.c)
 */
CREATE OR REPLACE FUNCTION chash_allocate_tokens(ring text, tokens integer, replicas integer DEFAULT 1)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'chash_allocate_tokens_sql'
	LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION chash_allocate_tokens(text, integer, integer) IS
	'positions for a new node of a tokens ring (ascending, as chash_node_add takes them) that keep each node''s share of the keys, held by their first replicas distinct nodes, even';
