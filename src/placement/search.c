/*-------------------------------------------------------------------------
 *
 * search.c
 *	  The hot path's search in a big bucket of a ring's points.
 *
 * chash_ring_find (placement.h, inline) counts a small bucket whole; a
 * bucket of more points comes here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement/placement.h"

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
