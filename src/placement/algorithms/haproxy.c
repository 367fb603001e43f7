/*-------------------------------------------------------------------------
 *
 * haproxy.c
 *	  The "haproxy" algorithm: HAProxy's "hash-type consistent" (2.x).
 *
 * lb_chash.c gives a server of weight w (1 to 256) 16 * w points, point j
 * at full_hash(puid * 4096 + j) in 32-bit arithmetic, puid being the
 * server's id: here the node's ordinal.  HAProxy numbers the servers of a
 * backend that have no "id" 1, 2, ... in the order listed (taking the
 * first id not in use); set the ordinals to the ids its stats socket
 * shows ("show servers state").  A key, hashed by one of HAProxy's key
 * hashes, goes to the nearest point, the one before on an equal distance
 * (the lookup rule nearest).  A node's points depend on its id and weight
 * alone; full_hash is a bijection, so two servers share a point only if
 * their ids are equal modulo 2^20.
 *
 * Variant "id_hashed": HAProxy 3.0.0 (commit faa8c3e02, "hash-key id", its
 * default) placed point j at full_hash(full_hash(puid) + j) instead, until
 * commit 03e9a5a1e (3.3-dev10, October 2025) went back to puid * 4096: the
 * releases before that fix (3.0.0 to 3.0.11, 3.1.0, 3.2.0) place servers
 * so.  Two servers there share points where their full_hash(puid) are
 * less than 16 * weight apart; the one listed first is taken to keep them,
 * as for 2.x.  The default (NULL or "id_scaled") is the 2.x rule.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "hash/haproxy.h"
#include "placement/placement.h"

#define HAPROXY_WEIGHT_SCALE	16	/* BE_WEIGHT_SCALE */
#define HAPROXY_MAX_WEIGHT		256 /* SRV_UWGHT_MAX */
#define HAPROXY_EWGHT_RANGE		4096	/* SRV_EWGHT_RANGE */

/* variant_data: non-NULL for "id_hashed" */
static const char haproxy_id_hashed[] = "id_hashed";

static void
haproxy_prepare(ChashRingSpec *spec)
{
	if (spec->variant != NULL && strcmp(spec->variant, haproxy_id_hashed) == 0)
		spec->variant_data = haproxy_id_hashed;
	else if (spec->variant != NULL && strcmp(spec->variant, "id_scaled") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown haproxy variant \"%s\"",
						chash_message_name(spec->variant, (int) strlen(spec->variant))),
				 errhint("Valid haproxy variants are \"id_scaled\" (servers at full_hash(id * 4096 + j): HAProxy 2.x and fixed 3.x, the default) and \"id_hashed\" (at full_hash(full_hash(id) + j): HAProxy 3.0.0 to 3.0.11).")));
	if (strcmp(spec->hash->name, "crc32") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("haproxy rings place their points by server id, not with \"%s\"",
						spec->hash->name),
				 errdetail("Ring \"%s\" is a haproxy ring; its hash is unused and stays \"crc32\".",
						   spec->name),
				 errhint("Leave hash unset; key_hash chooses the hash of the keys.")));
	if (spec->key_hash->bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("haproxy rings hash keys to 32 bits, not with \"%s\"",
						spec->key_hash->name),
				 errdetail("\"%s\" gives %d-bit values; HAProxy's points are 32-bit.",
						   spec->key_hash->name, spec->key_hash->bits),
				 errhint("Use one of HAProxy's key hashes, as haproxy_sdbm_avalanche (its default) or crc32.")));
	if (spec->ties_name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ties cannot be set for haproxy rings"),
				 errdetail("HAProxy's servers share no point unless their ids are equal modulo 2^20.")));
	spec->ties = CHASH_TIES_FIRST;
	spec->lookup = CHASH_LOOKUP_NEAREST;
}

/* 16 points a unit of weight; checked here, with the node alone */
static int64
haproxy_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	if (n->weight != floor(n->weight) || n->weight > HAPROXY_MAX_WEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weights of the nodes of a haproxy ring are integers from 1 to %d",
						HAPROXY_MAX_WEIGHT),
				 errdetail("Node \"%s\" of ring \"%s\" has weight %.15g.",
						   chash_message_name(n->name, n->name_len),
						   spec->name, n->weight)));
	if (!n->active)
		return 0;
	return (int64) n->weight * HAPROXY_WEIGHT_SCALE;
}

static void
haproxy_node_build(const ChashRingSpec *spec, int node, ChashPoint *out)
{
	const ChashNodeSpec *n = &spec->nodes[node];
	int64		count = haproxy_node_points(spec, node);
	uint32		base = spec->variant_data != NULL ?
		chash_haproxy_full_hash((uint32) n->ordinal) :
		(uint32) ((uint64) n->ordinal * HAPROXY_EWGHT_RANGE);

	for (int64 j = 0; j < count; j++)
	{
		out[j].position = chash_haproxy_full_hash(base + (uint32) j);
		out[j].node = node;
		out[j].vnode = (uint32) j;
	}
}

/* A point is node j of its server: 'server~j' */
static void
haproxy_point_label(const ChashRingSpec *spec, int node, uint32 vnode,
					StringInfo buf)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	appendBinaryStringInfo(buf, n->name, n->name_len);
	appendStringInfo(buf, "~%u", vnode);
}

const ChashAlgorithm chash_algorithm_haproxy = {
	.name = "haproxy",
	.default_hash = "crc32",
	.default_vnode_name = "{node}#{i}",
	.prepare = haproxy_prepare,
	.node_points = haproxy_node_points,
	.node_build = haproxy_node_build,
	.point_label = haproxy_point_label,
	.kind = CHASH_PLACEMENT_POINTS,
	.weighted = true,
	.node_points_alone = true,
	.description = "HAProxy's hash-type consistent: 16 points per unit of weight at full_hash(id * 4096 + j) (variant id_hashed: full_hash(full_hash(id) + j), HAProxy 3.0.0 to 3.0.11), keys to the nearest point",
};
