/*-------------------------------------------------------------------------
 *
 * placement.h
 *	  The placements algorithms build from a ring's configuration: how they
 *	  are built, how keys find their owners, what each node owns, and how
 *	  two compare.  What the layers above use.
 *
 * Pure code: nothing declared here reads the catalog.  The configuration
 * is spec.h's; the algorithms' interface, algorithm.h's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_PLACEMENT_H
#define CHASH_PLACEMENT_H

#include "utils/builtins.h"

#include "placement/algorithm.h"
#include "placement/spec.h"

/*
 * A built placement (placement/build.c): immutable once built.  Points are
 * kept as two parallel arrays in ring order: 10 bytes a point for rings of up
 * to 65,536 nodes, 12 beyond.  Computed placements have no points.
 */
struct ChashPlacement
{
	MemoryContext mcxt;			/* holds this struct and everything below */
	ChashRingSpec spec;
	ChashPlacementKind kind;
	int			nactive;		/* nodes that own keys */
	/* the active nodes in ordinal order, then name: computed placements */
	uint32	   *members;
	const void *data;			/* the algorithm's, made by its build */
	/* each node's zone, numbered from 0 over the active nodes' zones */
	uint32	   *zone_of;
	int			nzones;
	uint32		npoints;
	uint64	   *positions;		/* ascending, unsigned */
	/* node index of each point: 2 bytes where nodes are few enough */
	uint16	   *owners16;
	uint32	   *owners32;
	uint32	   *node_points;	/* number of points of each node */

	/*
	 * An index over the top bits of positions: bucket[b] is the first point
	 * at or after position b << bucket_shift, so a lookup searches only the
	 * few points of one bucket (bucket[nbuckets] is npoints)
	 */
	uint32	   *bucket;
	uint32		nbuckets;
	int			bucket_shift;
	int			frac_shift;		/* (position << frac_shift) >> 48: the 16
								 * bits below the bucket's, how far into it */
	uint64		max_position;	/* the hash space's largest position */
};

/* A node's name as a new text */
static inline text *
chash_node_text(const ChashPlacement *ring, uint32 node)
{
	const ChashNodeSpec *n = &ring->spec.nodes[node];

	return cstring_to_text_with_len(n->name, n->name_len);
}

/* The node index of point i */
static inline uint32
chash_ring_owner(const ChashPlacement *ring, uint32 i)
{
	return ring->owners16 ? ring->owners16[i] : ring->owners32[i];
}

pg_noreturn extern void chash_error_no_active_nodes(const ChashPlacement *ring);

/*
 * A lookup counts the points below the key in a window of fixed size,
 * without branches: a branch per point mispredicts about once a lookup.
 * Positions are padded with CHASH_BUCKET_WINDOW maximal values, so that a
 * window may run past the last point.  On the 16,000-point ring of the
 * benchmark, 1M lookups took 88 ms with a scan that stopped at the owner
 * and 66 ms with the window of 8; summing the compares as a tree and
 * fetching the owners' cache line alongside the positions' took off a few
 * ns more.
 */
#define CHASH_SMALL_BUCKET 8
#define CHASH_BUCKET_WINDOW 16

extern uint32 chash_ring_find_large(const ChashPlacement *ring, uint64 position,
									uint32 lo, uint32 hi);

/*
 * The index of the point that owns position: the first point at or after it
 * (strictly after it, for rings that say so), wrapping to the first point.
 * The ring must have points.  The owner is in position's bucket or is the
 * first point after it (bucket[b + 1]): a bucket of 8 points or fewer is
 * counted whole, past its end if need be (later points lie above position).
 */
static inline uint32
chash_ring_find(const ChashPlacement *ring, uint64 position)
{
	const uint64 *positions = ring->positions;
	uint32		b;
	uint32		lo;
	uint32		hi;
	uint32		at;

	if (unlikely(ring->spec.strictly_after))
	{
		if (position >= ring->max_position)
			return 0;
		position++;
	}
	b = (uint32) (position >> ring->bucket_shift);
	lo = ring->bucket[b];
	hi = ring->bucket[b + 1];
	if (unlikely(hi - lo > CHASH_SMALL_BUCKET))
		return chash_ring_find_large(ring, position, lo, hi);
	if (ring->owners16)
		__builtin_prefetch(&ring->owners16[lo]);
	positions += lo;
	at = lo + (((positions[0] < position) + (positions[1] < position)) +
			   ((positions[2] < position) + (positions[3] < position))) +
		(((positions[4] < position) + (positions[5] < position)) +
		 ((positions[6] < position) + (positions[7] < position)));
	return at == ring->npoints ? 0 : at;
}

/*
 * The node index that owns position: the placement must have an active node.
 * Always inlined: with the five chash_lookup overloads calling it, gcc -O2
 * kept it out of line, a call and a stack frame on every lookup before the
 * search of a ring or the call of a computed placement's owner.
 */
static pg_attribute_always_inline uint32
chash_placement_owner(const ChashPlacement *placement, uint64 position)
{
	if (likely(placement->kind == CHASH_PLACEMENT_POINTS))
		return chash_ring_owner(placement, chash_ring_find(placement, position));
	return placement->spec.algorithm->owner(placement, position);
}

/* The units a rebalance reassigns: points or slots (placement/units.c) */
extern uint32 chash_placement_nunits(const ChashPlacement *placement);
extern uint32 chash_placement_unit(const ChashPlacement *placement,
								   uint64 position);
extern uint32 chash_placement_unit_owner(const ChashPlacement *placement,
										 uint32 unit);

/* A table's positions unit by unit, as a plan of tokens cuts them */
typedef struct ChashUnitRows
{
	uint32		nrows;			/* distinct positions */
	uint64	   *position;		/* unit by unit, each from its low end */
	double	   *upto;			/* the load up to each, within its unit */
	uint32	   *first;			/* each unit's first row (none: count 0) */
	uint32	   *count;
	double	   *load;			/* each unit's load */
} ChashUnitRows;

extern void chash_placement_unit_rows(const ChashPlacement *ring,
									  const uint64 *positions,
									  const double *loads, uint32 n,
									  ChashUnitRows *out);

extern void chash_placement_preference(const ChashPlacement *placement,
									   uint64 position, uint32 *out, int n);
extern void chash_placement_preference_zones(const ChashPlacement *placement,
											 uint64 position, uint32 *out,
											 int n);
extern int	chash_ring_walk_for_zones(const ChashPlacement *ring, uint32 at,
									  int n, uint32 *order, bool *seen);
extern int	chash_zones_pick(const ChashPlacement *placement,
							 const uint32 *order, int norder, uint32 *out,
							 int n);

/* The first n of a preference order from a position, or from a member */
typedef void (*ChashOrderFn) (const ChashPlacement *placement, uint64 from,
							  uint32 *out, int n);
extern int	chash_order_for_zones(const ChashPlacement *placement,
								  ChashOrderFn order_fn, uint64 from, int n,
								  uint32 *order);

/* How much of the hash space each node owns (placement/ownership.c) */
extern void chash_placement_ownership(const ChashPlacement *placement,
									  int replicas, bool distinct_zones,
									  double *owned);
extern void chash_rotation_ownership(const ChashPlacement *placement,
									 int replicas, bool distinct_zones,
									 const long double *start_share,
									 double *owned);
extern void chash_ring_ownership(const ChashPlacement *ring, int replicas,
								 double *owned);

extern void chash_ring_expected(const ChashRingSpec *spec, int replicas,
								double *expected);

/* Tokens for a new node of a "tokens" ring (placement/token_allocation.c) */
extern int64 *chash_allocate_tokens(const ChashRingSpec *spec, int ntokens,
									int replicas);

/* Comparing two rings (placement/compare.c) */
typedef void (*ChashRangeEmit) (void *arg, uint64 lo, uint64 hi,
								uint32 owner_a, uint32 owner_b);
extern void chash_rings_compare(const ChashPlacement *a, const ChashPlacement *b,
								uint64 first, uint64 last, uint64 max,
								ChashRangeEmit emit, void *arg);

extern void chash_sort_points(ChashPoint *points, uint32 n, int bits);
extern ChashPoint *chash_ring_build_points(const ChashRingSpec *spec,
										   uint32 *npoints);
extern ChashPlacement *chash_ring_from_points(const ChashRingSpec *spec,
											  ChashPoint *points, uint32 npoints,
											  MemoryContext parent);
extern ChashPlacement *chash_ring_build(const ChashRingSpec *spec,
										MemoryContext parent);
extern ChashPlacement *chash_placement_build(const ChashRingSpec *spec,
											 MemoryContext parent);

/* Transparent huge pages asked for a ring's memory (placement/build.c) */
extern void chash_advise_huge_pages(void *p, Size size);

/* A ring of points as one block without pointers (placement/build.c) */
extern Size chash_ring_flat_size(const ChashPlacement *ring);
extern void chash_ring_flatten(const ChashPlacement *ring, void *dst);
extern ChashPlacement *chash_ring_from_flat(const ChashRingSpec *spec,
											const void *flat, Size size,
											MemoryContext parent);

#endif							/* CHASH_PLACEMENT_H */
