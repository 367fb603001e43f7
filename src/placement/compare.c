/*-------------------------------------------------------------------------
 *
 * compare.c
 *	  Comparing two rings: the ranges of positions and their owners.
 *
 * Pure ring code, like placement/build.c: two built rings in, ranges out.  A
 * ring's owner is constant between consecutive points, so the ranges where two
 * rings' owners are constant start at the points of either ring; one sweep
 * over both sorted arrays finds them all, in time linear in the points.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "placement/placement.h"

/* Where one ring stands in the sweep */
typedef struct RingSweep
{
	const ChashPlacement *ring;
	uint32		owner_at;		/* the point that owns the current start */
	uint32		next_start;		/* the point whose range starts next */
} RingSweep;

/*
 * The position where the owner of the range after point j starts: just
 * after it, or at it for rings whose points own only what lies before them.
 * Returns false where that is past the end of the space.
 */
static inline bool
range_start_after(const ChashPlacement *ring, uint32 j, uint64 max, uint64 *start)
{
	uint64		p = ring->positions[j];

	if (ring->spec.strictly_after)
	{
		*start = p;
		return true;
	}
	if (p == max)
		return false;
	*start = p + 1;
	return true;
}

/* The first start of a range of this ring after position 'after', if any */
static inline bool
sweep_next_cut(RingSweep *s, uint64 after, uint64 max, uint64 *cut)
{
	while (s->next_start < s->ring->npoints)
	{
		if (range_start_after(s->ring, s->next_start, max, cut) && *cut > after)
			return true;
		s->next_start++;
	}
	return false;
}

/* The owner (a node index) of position pos; pos never decreases */
static inline uint32
sweep_owner(RingSweep *s, uint64 pos)
{
	const ChashPlacement *ring = s->ring;
	bool		strict = ring->spec.strictly_after;

	while (s->owner_at < ring->npoints &&
		   (strict ? ring->positions[s->owner_at] <= pos :
			ring->positions[s->owner_at] < pos))
		s->owner_at++;
	return chash_ring_owner(ring, s->owner_at < ring->npoints ? s->owner_at : 0);
}

/*
 * Call emit for every range of positions [lo, hi] within [first, last]
 * (unsigned) on which both rings' owners are constant, the ranges as long
 * as the owners stay the same.  Both rings must have points and hash keys
 * into the same space of max + 1 positions.
 */
void
chash_rings_compare(const ChashPlacement *a, const ChashPlacement *b,
					uint64 first, uint64 last, uint64 max,
					ChashRangeEmit emit, void *arg)
{
	RingSweep	sa = {a, 0, 0};
	RingSweep	sb = {b, 0, 0};
	uint64		lo = first;
	uint64		pos = first;
	uint32		owner_a = sweep_owner(&sa, first);
	uint32		owner_b = sweep_owner(&sb, first);
	uint64		steps = 0;

	Assert(a->npoints > 0 && b->npoints > 0);
	for (;;)
	{
		uint64		cut_a = 0,
					cut_b = 0,
					cut;
		bool		has_a = sweep_next_cut(&sa, pos, max, &cut_a);
		bool		has_b = sweep_next_cut(&sb, pos, max, &cut_b);
		uint32		na,
					nb;

		if (!has_a && !has_b)
			break;
		cut = (has_a && has_b) ? Min(cut_a, cut_b) : (has_a ? cut_a : cut_b);
		if (cut > last)
			break;
		na = sweep_owner(&sa, cut);
		nb = sweep_owner(&sb, cut);
		if (na != owner_a || nb != owner_b)
		{
			emit(arg, lo, cut - 1, owner_a, owner_b);
			lo = cut;
			owner_a = na;
			owner_b = nb;
		}
		pos = cut;
		if ((++steps & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	emit(arg, lo, last, owner_a, owner_b);
}
