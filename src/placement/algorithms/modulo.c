/*-------------------------------------------------------------------------
 *
 * modulo.c
 *	  The "modulo" algorithm: position mod n, over the nodes in order.
 *
 * The owner of position p is member p mod n, the members being the active
 * nodes in ordinal order (their place in the client's server list).  With
 * key hash identity, chash_lookup(ring, id) is exactly id % n sharding.
 * Nearly every key moves when n changes: this is the scheme a split starts
 * from, kept so that plans can lead away from it.
 *
 * The preference order is the owner and then the members after it,
 * wrapping: member p mod n, (p + 1) mod n, ...
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "placement/placement.h"

static uint32
modulo_owner(const ChashPlacement *placement, uint64 position)
{
	return placement->members[position % (uint32) placement->nactive];
}

static void
modulo_preference(const ChashPlacement *placement, uint64 position,
				  uint32 *out, int n)
{
	chash_members_from(placement, (uint32) (position % (uint32) placement->nactive),
					   out, n);
}

/*
 * Exact: the positions p of the 2^bits with p mod n = m are
 * floor((2^bits - 1) / n), and one more for the residues up to
 * (2^bits - 1) mod n
 */
static void
modulo_ownership(const ChashPlacement *placement, int replicas,
				 bool distinct_zones, double *owned)
{
	uint32		n = (uint32) placement->nactive;
	int			bits = placement->spec.key_hash->bits;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	uint64		per = max / n;
	uint64		extra = max % n + 1;	/* residues with one more position */
	long double *share = palloc(sizeof(long double) * n);

	/* per + 1 may be 2^64 (one member, a 64-bit hash): add in long double */
	for (uint32 m = 0; m < n; m++)
		share[m] = ldexpl((long double) per + (m < extra ? 1 : 0), -bits);
	chash_rotation_ownership(placement, replicas, distinct_zones, share, owned);
	pfree(share);
}

const ChashAlgorithm chash_algorithm_modulo = {
	.name = "modulo",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = chash_computed_prepare,
	.node_points = chash_computed_node_points,
	.description = "position mod n over the active nodes in ordinal order (id % n with key hash identity)",
	.node_points_alone = true,
	.equal_members = true,
	.owner = modulo_owner,
	.preference = modulo_preference,
	.ownership = modulo_ownership,
};
