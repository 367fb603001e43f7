/*-------------------------------------------------------------------------
 *
 * jump.c
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
 * Variant "guava" is Guava's Hashing.consistentHash(long, int), which
 * differs from the paper at two edges of its arithmetic: the generator's
 * (int) (state >>> 33) + 1 overflows to -2^31 at 2^31 - 1, which ends the
 * walk where the paper jumps on, and its single division (candidate + 1) /
 * r gives an integer exactly where the paper's two roundings can give one
 * less.  About 1 key in 10^8 routes differently.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement/placement.h"

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

/* Java's (int) of a double: truncation, saturating at the int range */
static inline int32
java_double_to_int(double d)
{
	if (d >= (double) PG_INT32_MAX)
		return PG_INT32_MAX;
	if (d <= (double) PG_INT32_MIN)
		return PG_INT32_MIN;
	return (int32) d;
}

/*
 * Guava 31.1's consistentHash(input, buckets) and its
 * LinearCongruentialGenerator, in Java's int, long and double arithmetic
 */
static inline int32
guava_bucket(uint64 state, int32 buckets)
{
	int32		candidate = 0;

	for (;;)
	{
		int64		r;
		int32		next;

		state = state * UINT64CONST(2862933555777941757) + 1;
		/* (int) (state >>> 33) + 1 in int: 2^31 wraps to -2^31 */
		r = (int64) (state >> 33) + 1;
		if (r > PG_INT32_MAX)
			r = PG_INT32_MIN;
		next = java_double_to_int((double) (candidate + 1) /
								  ((double) r / 2147483648.0));
		if (next < 0 || next >= buckets)
			return candidate;
		candidate = next;
	}
}

static inline int32
bucket_of(const ChashPlacement *placement, uint64 position)
{
	if (placement->spec.variant_data != NULL)
		return guava_bucket(position, placement->nactive);
	return jump_bucket(position, placement->nactive);
}

static uint32
jump_owner(const ChashPlacement *placement, uint64 position)
{
	return placement->members[bucket_of(placement, position)];
}

static void
jump_preference(const ChashPlacement *placement, uint64 position,
				uint32 *out, int n)
{
	chash_members_from(placement, (uint32) bucket_of(placement, position),
					   out, n);
}

/*
 * Variants: the paper's (NULL, or "lamping_veach") and Guava's;
 * variant_data is non-NULL for Guava's
 */
static void
jump_prepare(ChashRingSpec *spec)
{
	static const char *const variants[] = {"lamping_veach", "guava"};
	const char *variant = spec->variant;

	spec->variant = NULL;
	chash_computed_prepare(spec);
	spec->variant = variant;
	if (variant == NULL || strcmp(variant, variants[0]) == 0)
		return;
	if (strcmp(variant, variants[1]) == 0)
	{
		spec->variant_data = variants[1];
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown jump variant \"%s\"",
					chash_message_name(variant, (int) strlen(variant))),
			 errhint("Valid jump variants are \"lamping_veach\" (the paper's, the default) and \"guava\" (Guava's Hashing.consistentHash).")));
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
	.prepare = jump_prepare,
	.node_points = chash_computed_node_points,
	.description = "jump consistent hash (Lamping and Veach; variant guava: Guava's consistentHash) over the active nodes in ordinal order",
	.node_points_alone = true,
	.equal_members = true,
	.owner = jump_owner,
	.preference = jump_preference,
	.ownership = jump_ownership,
};
