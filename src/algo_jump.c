/*-------------------------------------------------------------------------
 *
 * algo_jump.c
 *	  The "jump" algorithm: Lamping and Veach's jump consistent hash.
 *
 * "A Fast, Minimal Memory, Consistent Hash Algorithm" (arXiv 1406.2294):
 * the key's 64-bit position seeds a linear congruential generator that
 * jumps forward through bucket numbers; the last bucket below n is the
 * owner, as member index (the active nodes in ordinal order).  Growing n
 * to n + 1 moves 1/(n + 1) of the keys, all to the new last member.
 * Buckets are numbers, so removing a member other than the last renumbers
 * those after it: about (n - i) / n of the keys move when member i of n
 * goes, against 1/n for the last.
 *
 * The preference order is the owner and then the members after it,
 * wrapping, as for modulo.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement.h"

/* The paper's function, in its own integer and double arithmetic */
static inline int32
jump_bucket(uint64 key, int32 buckets)
{
	int64		b = -1;
	int64		j = 0;

	while (j < buckets)
	{
		b = j;
		key = key * UINT64CONST(2862933555777941757) + 1;
		j = (int64) ((double) (b + 1) *
					 ((double) (INT64CONST(1) << 31) / (double) ((key >> 33) + 1)));
	}
	return (int32) b;
}

static uint32
jump_owner(const ChashPlacement *placement, uint64 position)
{
	return placement->members[jump_bucket(position, placement->nactive)];
}

static void
jump_preference(const ChashPlacement *placement, uint64 position,
				uint32 *out, int n)
{
	chash_members_from(placement,
					   (uint32) jump_bucket(position, placement->nactive),
					   out, n);
}

/*
 * Each bucket is equally likely for a uniform key (the paper's theorem):
 * 1/n of the keys each, and the preference order above from there.  This
 * is the share over uniformly random positions, not a count over the
 * space, which no closed form gives.
 */
static void
jump_ownership(const ChashPlacement *placement, int replicas,
			   bool distinct_zones, double *owned)
{
	long double *share = palloc(sizeof(long double) * placement->nactive);

	for (int m = 0; m < placement->nactive; m++)
		share[m] = 1.0L / placement->nactive;
	chash_rotation_ownership(placement, replicas, distinct_zones, share, owned);
	pfree(share);
}

const ChashAlgorithm chash_algorithm_jump = {
	.name = "jump",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = chash_computed_prepare,
	.node_points = chash_computed_node_points,
	.description = "jump consistent hash (Lamping and Veach) over the active nodes in ordinal order",
	.node_points_alone = true,
	.owner = jump_owner,
	.preference = jump_preference,
	.ownership = jump_ownership,
};
