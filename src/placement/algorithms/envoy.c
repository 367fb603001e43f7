/*-------------------------------------------------------------------------
 *
 * envoy.c
 *	  The "envoy_ring_hash" algorithm: Envoy's ring_hash load balancer.
 *
 * Envoy (ring_hash_lb.cc) normalises the hosts' weights (w = weight / sum,
 * in double), scales them to a ring of at least minimum_ring_size points,
 * scale = min(ceil(min_w * minimum_ring_size) / min_w, maximum_ring_size)
 * with min_w the smallest normalised weight (and at most 1), and then
 * walks the hosts in order with two running doubles: target grows by
 * scale * w for each host, and the host adds points "<key>_<i>" (i from 0)
 * while the points made so far, counted from the first host, are fewer
 * than target.  So host j gets ceil(T_j) - ceil(T_j-1) points, T being the
 * running sum: a fraction carries over to the next host, and a light host
 * may get none.  A key goes to the first point at or after its hash.
 *
 * Here the hosts are the active nodes in ordinal order, the ring's vnodes
 * is minimum_ring_size (the profile's is Envoy's 1024), maximum_ring_size
 * is Envoy's default, and the points are named by the ring's template
 * (the profile's "{node}_{i}") and hashed with its hash (xxh64).  A node's
 * count depends on every node before it: prepare counts them all.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "placement/placement.h"

/* ring_hash's default maximum_ring_size, which is also its limit */
#define ENVOY_MAX_RING_SIZE		8388608

/* Active nodes in Envoy's host order: by ordinal, then name */
static int
host_order_cmp(const void *a, const void *b, void *arg)
{
	const ChashRingSpec *spec = arg;
	int			ia = *(const int *) a;
	int			ib = *(const int *) b;
	int64		oa = spec->nodes[ia].ordinal;
	int64		ob = spec->nodes[ib].ordinal;

	if (oa != ob)
		return oa < ob ? -1 : 1;
	return ia - ib;
}

static void
envoy_ring_prepare(ChashRingSpec *spec)
{
	int		   *order = palloc(sizeof(int) * Max(spec->nnodes, 1));
	int			n = 0;
	double		sum = 0;
	double		min_w = 1.0;
	double		scale;
	double		target = 0;
	double		current = 0;

	chash_refuse_variant(spec);
	if (spec->vnodes > ENVOY_MAX_RING_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vnodes of ring \"%s\" is larger than Envoy's maximum_ring_size", spec->name),
				 errdetail("An envoy_ring_hash ring's vnodes is its minimum_ring_size, at most %d; it is %d.",
						   ENVOY_MAX_RING_SIZE, spec->vnodes)));
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *node = &spec->nodes[k];

		spec->nodes[k].prepared_points = 0;
		if (node->vnodes > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("node \"%s\" of ring \"%s\" cannot have vnodes of its own",
							chash_message_name(node->name, node->name_len), spec->name),
					 errdetail("Envoy gives a host points by its weight alone.")));
		if (node->active)
			order[n++] = k;
	}
	if (n == 0)
	{
		pfree(order);
		return;
	}
	qsort_arg(order, n, sizeof(int), host_order_cmp, spec);
	for (int i = 0; i < n; i++)
		sum += spec->nodes[order[i]].weight;
	for (int i = 0; i < n; i++)
		min_w = Min(min_w, spec->nodes[order[i]].weight / sum);
	scale = Min(ceil(min_w * spec->vnodes) / min_w, (double) ENVOY_MAX_RING_SIZE);
	for (int i = 0; i < n; i++)
	{
		ChashNodeSpec *node = &spec->nodes[order[i]];
		int64		count = 0;

		target += scale * (node->weight / sum);
		while (current < target)
		{
			count++;
			current += 1.0;
		}
		node->prepared_points = count;
	}
	pfree(order);
}

static int64
envoy_ring_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	return n->active ? n->prepared_points : 0;
}

/* Hash the names of the node's points, "<key>_<i>" by the profile */
static void
envoy_ring_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	chash_template_build(spec, node, envoy_ring_node_points(spec, node), out);
}

static void
envoy_ring_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
					   StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	chash_template_expand(buf, spec->vnode_name, n->name, n->name_len,
						  (int64) spec->vnode_first + vnode);
}

const ChashAlgorithm chash_algorithm_envoy_ring_hash = {
	.name = "envoy_ring_hash",
	.kind = CHASH_PLACEMENT_POINTS,
	.default_hash = "xxh64",
	.default_vnode_name = "{node}_{i}",
	.prepare = envoy_ring_prepare,
	.node_points = envoy_ring_node_points,
	.node_build = envoy_ring_node_build,
	.point_label = envoy_ring_point_label,
	.description = "Envoy's ring_hash: points \"<node>_<i>\" counted from the running sum of the scaled, normalised weights of the active nodes in ordinal order (vnodes: minimum_ring_size)",
	.node_points_alone = false, /* a node's count depends on those before it */
	.names_hashed = true,
	.weighted = true,
};
