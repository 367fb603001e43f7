/*-------------------------------------------------------------------------
 *
 * ownership.c
 *	  How much of the hash space each node of a ring owns, exactly.
 *
 * Pure ring code, like ring.c.  The keys a point owns form the arc from
 * the previous distinct position to its own (where several points share a
 * position, the first of them in ring order owns the arc and the others
 * nothing), so ownership is the sum of those arcs, from the points alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement.h"

/*
 * The positions in the arc owned by point i, the first of its position, of
 * a ring whose positions have 'bits' bits.  Whether a point owns the arc up
 * to and including its position or up to just before it (rings whose keys
 * belong to the point after them), the arc has the same length.
 */
static long double
arc_length(const ChashPlacement *ring, uint32 i, int bits)
{
	const uint64 *p = ring->positions;
	uint32		last = ring->npoints - 1;

	if (i > 0)
		return (long double) (p[i] - p[i - 1]);
	/* the first point's arc wraps around from the last position */
	if (p[0] == p[last])
		return ldexpl(1.0L, bits);	/* one position: all of the space */
	if (bits == 64)
		return (long double) (p[0] - p[last]);	/* modulo 2^64 */
	return ldexpl(1.0L, bits) - (long double) p[last] + (long double) p[0];
}

/*
 * The fraction of the hash space each node of the spec holds, into owned[]
 * (nnodes entries): the keys for which it is among the first 'replicas'
 * distinct nodes clockwise, 1 giving each key's owner.
 *
 * The first 'replicas' distinct nodes from point i on are those from point
 * i + 1 on with point i's node moved to the front: walking the ring
 * backwards twice (the first time to learn what lies beyond the end) keeps
 * them in a short list, in time linear in points x replicas.  Arcs are
 * added up in long double, exact for the integers they are on the common
 * platforms, and divided once.
 */
void
chash_ring_ownership(const ChashPlacement *ring, int replicas, double *owned)
{
	int			nnodes = ring->spec.nnodes;
	int			bits = ring->spec.key_hash->bits;
	uint32		npoints = ring->npoints;
	long double *sums;
	uint32	   *next;			/* the first distinct nodes from here on */
	int			nnext = 0;

	for (int k = 0; k < nnodes; k++)
		owned[k] = 0;
	if (npoints == 0)
		return;

	sums = palloc0(sizeof(long double) * nnodes);
	next = palloc(sizeof(uint32) * (replicas + 1));
	for (int pass = 0; pass < 2; pass++)
	{
		for (uint32 i = npoints; i-- > 0;)
		{
			uint32		owner = chash_ring_owner(ring, i);
			int			at;

			if ((i & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
			/* move (or put) the owner to the front of the list */
			for (at = 0; at < nnext && next[at] != owner; at++)
				;
			if (at == nnext)
			{
				if (nnext < replicas)
					nnext++;
				at = nnext - 1;
			}
			memmove(next + 1, next, sizeof(uint32) * at);
			next[0] = owner;

			/* the second time round, count the arc if this point owns one */
			if (pass == 1 &&
				(i == 0 || ring->positions[i] != ring->positions[i - 1]))
			{
				long double arc = arc_length(ring, i, bits);

				for (int r = 0; r < nnext; r++)
					sums[next[r]] += arc;
			}
		}
	}
	for (int k = 0; k < nnodes; k++)
		owned[k] = (double) (sums[k] / ldexpl(1.0L, bits));
	pfree(next);
	pfree(sums);
}

/*
 * The fraction of the keys each node of a placement holds among the first
 * 'replicas' of their preference order: from a ring's arcs, or as its
 * algorithm computes it
 */
void
chash_placement_ownership(const ChashPlacement *placement, int replicas,
						  bool distinct_zones, double *owned)
{
	if (placement->kind == CHASH_PLACEMENT_POINTS && distinct_zones)
		chash_ring_ownership_zones(placement, replicas, owned);
	else if (placement->kind == CHASH_PLACEMENT_POINTS)
		chash_ring_ownership(placement, replicas, owned);
	else if (placement->nactive == 0)
	{
		for (int k = 0; k < placement->spec.nnodes; k++)
			owned[k] = 0;
	}
	else
		placement->spec.algorithm->ownership(placement, replicas,
											 distinct_zones, owned);
}

/* The members from member 'from' on, wrapping: a rotation's order */
static void
rotation_order(const ChashPlacement *placement, uint64 from, uint32 *out,
			   int n)
{
	chash_members_from(placement, (uint32) from, out, n);
}

/*
 * Ownership of placements whose preference order is the members from the
 * owner on, wrapping (modulo, jump): the keys owned by member s,
 * start_share[s] of them, go to the first 'replicas' of the members from s
 * on, picked by zones if asked.  Time: members x replicas, or x as much of
 * the order as the zones need.
 */
void
chash_rotation_ownership(const ChashPlacement *placement, int replicas,
						 bool distinct_zones, const long double *start_share,
						 double *owned)
{
	int			n = placement->nactive;
	long double *sums = palloc0(sizeof(long double) * Max(placement->spec.nnodes, 1));
	uint32	   *order = palloc(sizeof(uint32) * n);
	uint32	   *picked = palloc(sizeof(uint32) * replicas);

	for (int s = 0; s < n; s++)
	{
		const uint32 *list = order;

		if ((s & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		if (distinct_zones)
		{
			int			norder = chash_order_for_zones(placement, rotation_order,
													   (uint64) s, replicas,
													   order);

			chash_zones_pick(placement, order, norder, picked, replicas);
			list = picked;
		}
		else
			chash_members_from(placement, s, order, replicas);
		for (int r = 0; r < replicas; r++)
			sums[list[r]] += start_share[s];
	}
	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = (double) sums[k];
	pfree(picked);
	pfree(order);
	pfree(sums);
}

/*
 * Ownership with distinct zones on a ring: each arc (the keys of one
 * point, the first of its position) goes to the nodes its zone walk picks.
 * Time: points x the walk, which ends once n zones are met.
 */
void
chash_ring_ownership_zones(const ChashPlacement *ring, int replicas,
						   double *owned)
{
	int			bits = ring->spec.key_hash->bits;
	long double *sums = palloc0(sizeof(long double) * Max(ring->spec.nnodes, 1));
	uint32	   *order = palloc(sizeof(uint32) * Max(ring->nactive, 1));
	uint32	   *picked = palloc(sizeof(uint32) * replicas);
	bool	   *seen = palloc0(sizeof(bool) * Max(ring->spec.nnodes, 1));
	const uint64 *p = ring->positions;

	for (uint32 i = 0; i < ring->npoints; i++)
	{
		int			norder;
		int			npicked;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0 && p[i] == p[i - 1])
			continue;			/* owns nothing: the first at its position does */
		norder = chash_ring_walk_for_zones(ring, i, replicas, order, seen);
		npicked = chash_zones_pick(ring, order, norder, picked, replicas);
		for (int r = 0; r < npicked; r++)
			sums[picked[r]] += arc_length(ring, i, bits);
	}
	for (int k = 0; k < ring->spec.nnodes; k++)
		owned[k] = (double) (sums[k] / ldexpl(1.0L, bits));
	pfree(seen);
	pfree(picked);
	pfree(order);
	pfree(sums);
}

/*
 * chash_ring_find in a bucket of more than CHASH_SMALL_BUCKET points, lo to
 * hi: the owner is at lo to hi (hi: the first point of a later bucket).
 * Positions are uniform, so the key's place in the bucket is about as far
 * into the points as the key is into the bucket's range: count a window of
 * CHASH_BUCKET_WINDOW points around that guess, one cache miss in a big
 * ring.  Where the owner may lie outside the window (a few percent of keys
 * in a 4M-point ring), a binary search over the bucket.  Windows of 8, 16
 * and 32 points took 302, 264 and 289 ms for 1M lookups there.
 */
uint32
chash_ring_find_large(const ChashPlacement *ring, uint64 position,
					  uint32 lo, uint32 hi)
{
	const uint64 *positions = ring->positions;
	uint32		w = lo;
	uint32		cnt = 0;

	if (hi - lo > CHASH_BUCKET_WINDOW)
	{
		uint32		frac = (uint32) ((position << ring->frac_shift) >> 48);
		uint32		g = lo + (uint32) (((uint64) frac * (hi - lo)) >> 16);

		/* a window past hi is right too: points from hi on lie above */
		if (g - lo > CHASH_BUCKET_WINDOW / 2)
			w = g - CHASH_BUCKET_WINDOW / 2;
	}
	/* the owner's cache line, fetched alongside the window's */
	if (ring->owners16)
		__builtin_prefetch(&ring->owners16[w + CHASH_BUCKET_WINDOW / 2]);
	for (int j = 0; j < CHASH_BUCKET_WINDOW; j++)
		cnt += positions[w + j] < position;
	/* the owner is in the window if points fall below and above the key */
	if (likely((cnt > 0 || w == lo) &&
			   (cnt < CHASH_BUCKET_WINDOW || w + CHASH_BUCKET_WINDOW >= hi)))
		lo = w + cnt;
	else
	{
		while (lo < hi)
		{
			uint32		mid = lo + (hi - lo) / 2;

			if (positions[mid] < position)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return lo == ring->npoints ? 0 : lo;
}

/*
 * The share of the keys each node is expected to hold, into expected[]:
 * its share of the active weight times replicas, but a node holds each key
 * at most once, so a share over 1 is capped and what is cut off goes to the
 * others by weight, until no share is over 1.
 */
void
chash_ring_expected(const ChashRingSpec *spec, int replicas, double *expected)
{
	bool	   *capped = palloc0(sizeof(bool) * Max(spec->nnodes, 1));
	bool		again = true;

	while (again)
	{
		double		largest = 0;
		double		weight = 0;
		int			scale = 0;
		int			ncapped = 0;

		/*
		 * Weights are any positive finite doubles, and their sum may not
		 * be: two of 1e308 add up to infinity, which made every share 0 or
		 * NaN (found by test/fuzz/fuzz_ring.c).  Divided, exactly, by the
		 * power of two of the largest weight not capped, each is below 1,
		 * their sum below nnodes and at least a half.
		 */
		for (int k = 0; k < spec->nnodes; k++)
		{
			if (spec->nodes[k].active && !capped[k])
				largest = Max(largest, spec->nodes[k].weight);
		}
		(void) frexp(largest, &scale);
		for (int k = 0; k < spec->nnodes; k++)
		{
			if (!spec->nodes[k].active)
				continue;
			if (capped[k])
				ncapped++;
			else
				weight += ldexp(spec->nodes[k].weight, -scale);
		}
		again = false;
		for (int k = 0; k < spec->nnodes; k++)
		{
			const ChashNodeSpec *n = &spec->nodes[k];

			if (!n->active)
				expected[k] = 0;
			else if (capped[k])
				expected[k] = 1;
			else
			{
				expected[k] = (replicas - ncapped) * ldexp(n->weight, -scale) / weight;
				if (expected[k] > 1)
				{
					capped[k] = true;
					again = true;
				}
			}
		}
	}
	pfree(capped);
}
