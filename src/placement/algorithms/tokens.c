/*-------------------------------------------------------------------------
 *
 * tokens.c
 *	  The "tokens" algorithm: every node at the positions it is given.
 *
 * Each active node must have tokens (chash_node_add(..., tokens => ...)):
 * its points are exactly those positions, in the key hash's space, and a
 * key belongs to the first at or after it, as on any ring.  This is how
 * Cassandra's token rings, range sharding on identity keys (a node's
 * tokens are the upper ends of its ranges) and rings imported from
 * elsewhere are kept.  Nothing is hashed but the keys: the ring's hash of
 * points is not used, and weights do not apply.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement/placement.h"

static void
tokens_prepare(ChashRingSpec *spec)
{
	chash_refuse_variant(spec);
}

static int64
tokens_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	return n->active ? n->ntokens : 0;
}

static void
tokens_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	chash_tokens_build(spec, &spec->nodes[node], node, out);
}

static void
tokens_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				   StringInfo buf)
{
	appendStringInfo(buf, "token %d", (int) vnode);
}

const ChashAlgorithm chash_algorithm_tokens = {
	.name = "tokens",
	.kind = CHASH_PLACEMENT_POINTS,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = tokens_prepare,
	.node_points = tokens_node_points,
	.node_build = tokens_node_build,
	.point_label = tokens_point_label,
	.description = "each node at the tokens it is given (Cassandra's rings, ranges of identity keys)",
	.node_points_alone = true,
	.has_lookup_rules = true,
	.takes_tokens = true,
	.needs_tokens = true,
};
