/*-------------------------------------------------------------------------
 *
 * preference.c
 *	  A key's owners in order of preference, and picks across zones.
 *
 * Pure code, on a built placement: the first n distinct owners from a
 * key's position on, whatever the algorithm, and with zones, owners in as
 * many zones as there are.  The single owner's search is chash_ring_find
 * (placement.h and search.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "placement/placement.h"

/* n members in order from member 'first' on, wrapping, as node indexes */
void
chash_members_from(const ChashPlacement *placement, uint32 first,
				   uint32 *out, int n)
{
	uint32		at = first;

	for (int i = 0; i < n; i++)
	{
		out[i] = placement->members[at];
		if (++at == (uint32) placement->nactive)
			at = 0;
	}
}

/* The error of routing by a ring with no active nodes */
void
chash_error_no_active_nodes(const ChashPlacement *ring)
{
	if (ring->spec.nnodes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ring \"%s\" has no active nodes", ring->spec.name),
				 errdetail("The ring has no nodes."),
				 errhint("Add one with chash_node_add().")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("ring \"%s\" has no active nodes", ring->spec.name),
			 errdetail("All %d of its nodes are down.", ring->spec.nnodes),
			 errhint("Bring one back with chash_node_set(ring, node, state => 'active').")));
}

/*
 * The first n distinct nodes of a position's preference order into out,
 * the owner first (n at most the placement's active nodes).  A ring walks
 * on clockwise from the owning point; other placements define their own.
 */
void
chash_placement_preference(const ChashPlacement *placement, uint64 position,
						   uint32 *out, int n)
{
	uint32		at;
	bool	   *seen;
	int			found = 0;

	Assert(n >= 1 && n <= placement->nactive);
	if (placement->kind != CHASH_PLACEMENT_POINTS)
	{
		placement->spec.algorithm->preference(placement, position, out, n);
		return;
	}
	at = chash_ring_find(placement, position);
	seen = palloc0(sizeof(bool) * placement->spec.nnodes);
	for (uint32 step = 0; step < placement->npoints && found < n; step++)
	{
		uint32		owner = chash_ring_owner(placement, at);

		/* a node of few points can be a whole ring away */
		if ((step & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();

		if (!seen[owner])
		{
			seen[owner] = true;
			out[found++] = owner;
		}
		if (++at == placement->npoints)
			at = 0;
	}
	Assert(found == n);
	pfree(seen);
}

/*
 * n nodes of a preference order (order[0..norder-1], distinct nodes in
 * walk order) into out, zones first: the walk takes each node whose zone
 * holds no copy yet, until n are taken or every zone holds one, then fills
 * up with the nodes it skipped, in walk order.  Returns how many it took
 * (fewer than n only if the order is short).
 */
int
chash_zones_pick(const ChashPlacement *placement, const uint32 *order,
				 int norder, uint32 *out, int n)
{
	bool	   *held = palloc0(sizeof(bool) * Max(placement->nzones, 1));
	bool	   *taken = palloc0(sizeof(bool) * Max(norder, 1));
	int			found = 0;

	for (int i = 0; i < norder && found < n; i++)
	{
		uint32		zone = placement->zone_of[order[i]];

		if (!held[zone])
		{
			held[zone] = true;
			taken[i] = true;
			out[found++] = order[i];
		}
	}
	for (int i = 0; i < norder && found < n; i++)
	{
		if (!taken[i])
			out[found++] = order[i];
	}
	pfree(taken);
	pfree(held);
	return found;
}

/*
 * A ring's distinct nodes in walk order from point 'at', as far as a pick
 * of n by zones needs: until n zones are met, or every zone is and n nodes
 * are.  Returns their number; order has room for the active nodes, seen
 * for every node, all false, and is left so.
 */
int
chash_ring_walk_for_zones(const ChashPlacement *ring, uint32 at, int n,
						  uint32 *order, bool *seen)
{
	int			norder = 0;
	int			nzones = 0;
	bool	   *zone_met = palloc0(sizeof(bool) * Max(ring->nzones, 1));

	for (uint32 step = 0; step < ring->npoints; step++)
	{
		uint32		owner = chash_ring_owner(ring, at);

		if ((step & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();

		if (!seen[owner])
		{
			seen[owner] = true;
			order[norder++] = owner;
			if (!zone_met[ring->zone_of[owner]])
			{
				zone_met[ring->zone_of[owner]] = true;
				nzones++;
			}
			if (nzones >= n || (nzones == ring->nzones && norder >= n))
				break;
		}
		if (++at == ring->npoints)
			at = 0;
	}
	for (int i = 0; i < norder; i++)
		seen[order[i]] = false;
	pfree(zone_met);
	return norder;
}

/*
 * Whether a pick of n by zones from the first norder of a preference order
 * is the pick from the whole order: n zones are met in it, or every zone is
 * and it holds n nodes (the rule of chash_ring_walk_for_zones)
 */
static bool
zones_pick_covered(const ChashPlacement *placement, const uint32 *order,
				   int norder, int n)
{
	bool	   *zone_met = palloc0(sizeof(bool) * Max(placement->nzones, 1));
	int			nzones = 0;

	for (int i = 0; i < norder; i++)
	{
		if (!zone_met[placement->zone_of[order[i]]])
		{
			zone_met[placement->zone_of[order[i]]] = true;
			nzones++;
		}
	}
	pfree(zone_met);
	return nzones >= n || (nzones == placement->nzones && norder >= n);
}

/*
 * As much of a computed placement's preference order from 'from' (what
 * order_fn takes: a position, or a member) as a pick of n by zones needs,
 * into order (room for the active nodes); returns its length.  Found by
 * doubling: the whole order of a big placement costs what a few copies
 * need not.
 */
int
chash_order_for_zones(const ChashPlacement *placement, ChashOrderFn order_fn,
					  uint64 from, int n, uint32 *order)
{
	int			norder = n;

	for (;;)
	{
		order_fn(placement, from, order, norder);
		if (norder == placement->nactive ||
			zones_pick_covered(placement, order, norder, n))
			return norder;
		norder = norder > placement->nactive / 2 ?
			placement->nactive : 2 * norder;
	}
}

/*
 * The first n nodes of a position's preference order with distinct zones:
 * chash_zones_pick over the placement's preference order
 */
void
chash_placement_preference_zones(const ChashPlacement *placement,
								 uint64 position, uint32 *out, int n)
{
	uint32	   *order = palloc(sizeof(uint32) * placement->nactive);
	int			norder;

	Assert(n >= 1 && n <= placement->nactive);
	if (placement->kind == CHASH_PLACEMENT_POINTS)
	{
		bool	   *seen = palloc0(sizeof(bool) * placement->spec.nnodes);

		norder = chash_ring_walk_for_zones(placement,
										   chash_ring_find(placement, position),
										   n, order, seen);
		pfree(seen);
	}
	else
		norder = chash_order_for_zones(placement, chash_placement_preference,
									   position, n, order);
	norder = chash_zones_pick(placement, order, norder, out, n);
	Assert(norder == n);
	pfree(order);
}
