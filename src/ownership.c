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

#include "chash.h"

/*
 * The positions of the arc owned by point i, the first of its position, of
 * a ring whose positions have 'bits' bits.  Whether a point owns the arc up
 * to and including its position or up to just before it (rings whose keys
 * belong to the point after them), the arc has the same length.
 */
static double
arc_length(const ChashRing *ring, uint32 i, uint32 last_distinct, int bits)
{
	const uint64 *p = ring->positions;

	if (i > 0)
		return (double) (p[i] - p[i - 1]);
	/* the first point's arc wraps around from the last position */
	if (p[0] == p[ring->npoints - 1])
		return ldexp(1.0, bits);	/* one position: all of the space */
	if (bits == 64)
		return (double) (p[0] - p[last_distinct]);	/* modulo 2^64 */
	return ldexp(1.0, bits) - (double) p[last_distinct] + (double) p[0];
}

/*
 * The fraction of the hash space each node of the spec owns, into owned[]
 * (nnodes entries): the keys for which it is among the first 'replicas'
 * distinct nodes clockwise, 1 giving each key's owner.  Each entry is then
 * at most 1, and they add up to replicas (or to the nodes with points, if
 * fewer).
 */
void
chash_ring_ownership(const ChashRing *ring, int replicas, double *owned)
{
	int			nnodes = ring->spec.nnodes;
	int			bits = ring->spec.key_hash->bits;
	double		space = ldexp(1.0, bits);
	uint32	   *stamp;
	uint32		npoints = ring->npoints;

	for (int k = 0; k < nnodes; k++)
		owned[k] = 0;
	if (npoints == 0)
		return;

	/* which node was last counted for which arc, to count each once */
	stamp = palloc0(sizeof(uint32) * Max(nnodes, 1));
	for (uint32 i = 0; i < npoints; i++)
	{
		double		arc;
		int			found = 0;

		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		/* later points on a shared position own nothing */
		if (i > 0 && ring->positions[i] == ring->positions[i - 1])
			continue;
		arc = arc_length(ring, i, npoints - 1, bits) / space;
		for (uint32 step = 0, j = i; step < npoints && found < replicas; step++)
		{
			uint32		owner = ring->owners[j];

			if (stamp[owner] != i + 1)
			{
				stamp[owner] = i + 1;
				owned[owner] += arc;
				found++;
			}
			if (++j == npoints)
				j = 0;
		}
	}
	pfree(stamp);
}
