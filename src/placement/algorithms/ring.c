/*-------------------------------------------------------------------------
 *
 * ring.c
 *	  The "ring" algorithm: virtual nodes named by a template.
 *
 * A node of weight w gets its own vnodes, else round(ring vnodes * w) and
 * at least 1, points.  Point i sits at hash(name), the name being the
 * template with {node} and {i} replaced, i counting from vnode_first.  A
 * point depends on its node's name and its number only, so changing one
 * node's weight or vnodes adds or removes that node's points and no others.
 * A node given tokens has those points instead (its weight and the
 * template do not apply to it).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "placement/placement.h"

/* The generic settings suffice: a template and, optionally, a ties rule */
static void
ring_prepare(ChashRingSpec *spec)
{
	chash_refuse_variant(spec);
}

static int64
ring_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	double		points;

	if (!n->active)
		return 0;
	if (n->ntokens > 0)
		return n->ntokens;
	if (n->vnodes > 0)
		return n->vnodes;

	points = round((double) spec->vnodes * n->weight);
	if (points > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node \"%s\" would have too many points",
						chash_message_name(n->name, n->name_len)),
				 errdetail("Weight %g times the ring's %d vnodes is %.0f; the most a node can have is %d.",
						   n->weight, spec->vnodes, points, CHASH_MAX_VNODES),
				 errhint("Lower the node's weight or give it vnodes of its own.")));
	return points < 1 ? 1 : (int64) points;
}

/* Hash the names of all the node's vnodes */
static void
ring_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	if (n->ntokens > 0)
	{
		chash_tokens_build(spec, n, node, out);
		return;
	}
	chash_template_build(spec, node, ring_node_points(spec, node), out);
}

static void
ring_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				 StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	if (n->ntokens > 0)
	{
		appendStringInfo(buf, "token %d", (int) vnode);
		return;
	}
	chash_template_expand(buf, spec->vnode_name, n->name, n->name_len,
						  (int64) spec->vnode_first + vnode);
}

const ChashAlgorithm chash_algorithm_ring = {
	.name = "ring",
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = ring_prepare,
	.node_points = ring_node_points,
	.node_build = ring_node_build,
	.point_label = ring_point_label,
	.kind = CHASH_PLACEMENT_POINTS,
	.has_lookup_rules = true,
	.takes_tokens = true,
	.names_hashed = true,
	.weighted = true,
	.description = "virtual nodes named by a template, each hashed onto the ring",
	.node_points_alone = true,
};
