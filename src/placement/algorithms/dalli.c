/*-------------------------------------------------------------------------
 *
 * dalli.c
 *	  The "dalli" algorithm: the ring of Dalli, Ruby's memcached client.
 *
 * Dalli 3.0 (lib/dalli/ring.rb) gives server s of weight w, among N
 * servers of total weight W, floor(N * 160 * w / W) points; point i is
 * the first four bytes, big-endian, of SHA-1("host:port:i") (the ring's
 * hash sha1_be32 and template "{node}:{i}"), i from 0.  A key hashed
 * with CRC-32 goes to the last point at or before it, wrapping to the
 * last point (the lookup rule predecessor), and of two servers on one
 * point the one listed later wins (Ruby's sort_by is glibc's merge sort,
 * which keeps list order, and the lookup takes the last of equal points).
 * A bare host is Dalli's "host:11211".  Every node's share depends on all
 * the weights, as for ketama.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

#define DALLI_POINTS_PER_SERVER 160

static void
dalli_prepare(ChashRingSpec *spec)
{
	chash_refuse_variant(spec);
	if (strcmp(spec->hash->name, "sha1_be32") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dalli rings place their points with \"sha1_be32\", not \"%s\"",
						spec->hash->name),
				 errdetail("Ring \"%s\" is a dalli ring.", spec->name),
				 errhint("Leave hash unset; key_hash chooses the hash of the keys.")));
	if (spec->ties_name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ties cannot be set for dalli rings"),
				 errdetail("Dalli gives a shared point to the server listed last.")));
	/* in ring order the later server is last at a position: it owns it */
	spec->ties = CHASH_TIES_FIRST;
	spec->lookup = CHASH_LOOKUP_PREDECESSOR;
}

static int64
dalli_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	double		points;

	if (!n->active)
		return 0;
	points = floor((double) spec->nactive * DALLI_POINTS_PER_SERVER * n->weight /
				   spec->active_weight);
	if (points > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node \"%s\" would have too many points",
						chash_message_name(n->name, n->name_len)),
				 errdetail("Its share of the weight gives it %.0f points; the most a node can have is %d.",
						   points, CHASH_MAX_VNODES)));
	return points > 0 ? (int64) points : 0;
}

/* The server name Dalli hashes, into buf: a bare host gets ":11211" */
static void
dalli_server_name(StringInfo buf, const char *name, int len)
{
	initStringInfo(buf);
	appendBinaryStringInfo(buf, name, len);
	if (memchr(name, ':', len) == NULL)
		appendStringInfoString(buf, ":11211");
}

static void
dalli_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	int64		count = dalli_node_points(spec, node);
	ChashHashFn hash = spec->hash->fn;
	StringInfoData server;
	ChashNameTemplate t;

	dalli_server_name(&server, n->name_utf8, n->name_utf8_len);
	chash_template_init(&t, spec->vnode_name_utf8, spec->vnode_name_utf8_len,
						server.data, server.len);
	for (int64 i = 0; i < count; i++)
	{
		if ((i & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		chash_template_name(&t, (int64) spec->vnode_first + i);
		out[i].position = hash((const unsigned char *) t.name.data, t.name.len);
		out[i].node = node;
		out[i].vnode = (uint32) i;
	}
	chash_template_free(&t);
	pfree(server.data);
}

static void
dalli_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
				  StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	StringInfoData server;

	dalli_server_name(&server, n->name, n->name_len);
	chash_template_expand(buf, spec->vnode_name, server.data, server.len,
						  (int64) spec->vnode_first + vnode);
	pfree(server.data);
}

const ChashAlgorithm chash_algorithm_dalli = {
	.name = "dalli",
	.default_hash = "sha1_be32",
	.default_vnode_name = "{node}:{i}",
	.prepare = dalli_prepare,
	.node_points = dalli_node_points,
	.node_build = dalli_node_build,
	.point_label = dalli_point_label,
	.kind = CHASH_PLACEMENT_POINTS,
	.names_hashed = true,
	.weighted = true,
	.description = "Dalli's ring: floor(N * 160 * w / W) points of SHA-1(\"{node}:{i}\"), keys to the point at or before them",
};
