/*-------------------------------------------------------------------------
 *
 * ownership.c
 *	  How much of the hash space each node of a ring owns, exactly.
 *
 * Pure ring code, like placement/build.c.  The keys a point owns form the arc
 * from the previous distinct position to its own (where several points share a
 * position, the first of them in ring order owns the arc and the others
 * nothing), so ownership is the sum of those arcs, from the points alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

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
 * The nodes of a walk in the order of their next cell at or after a cell,
 * the nearest first: a doubly linked list over node indexes, to which a
 * step back to cell c moves c's owner to the front.  After a pass over all
 * cells from the last, a second pass's list at cell c is the walk from c,
 * wrapping (owners met only before c follow), in constant time a step
 * rather than a walk's.  The same list over zones, each led by its node
 * nearest on, gives a pick by zones without walking past what it needs.
 */
typedef struct WalkList
{
	uint32	   *next;
	uint32	   *prev;
	bool	   *listed;
	uint32		head;
	int			nlisted;
} WalkList;

#define WALK_END PG_UINT32_MAX

static void
walk_list_init(WalkList *list, int size)
{
	list->next = palloc(sizeof(uint32) * size);
	list->prev = palloc(sizeof(uint32) * size);
	list->listed = palloc0(sizeof(bool) * size);
	list->head = WALK_END;
	list->nlisted = 0;
}

static void
walk_list_free(WalkList *list)
{
	pfree(list->listed);
	pfree(list->prev);
	pfree(list->next);
}

static void
walk_list_front(WalkList *list, uint32 id)
{
	if (list->head == id)
		return;
	if (list->listed[id])
	{
		list->next[list->prev[id]] = list->next[id];
		if (list->next[id] != WALK_END)
			list->prev[list->next[id]] = list->prev[id];
	}
	else
		list->nlisted++;
	list->listed[id] = true;
	list->prev[id] = WALK_END;
	list->next[id] = list->head;
	if (list->head != WALK_END)
		list->prev[list->head] = id;
	list->head = id;
}

/* What a walk's pick works with */
typedef struct WalkPick
{
	const ChashPlacement *placement;
	WalkList	nodes;
	WalkList	zones;
	uint32	   *zone_head;		/* of a listed zone: its node nearest on */
	uint32	   *cellless;		/* members owning no cell, in member order */
	int			ncellless;
	uint32	   *cellless_new;	/* of those, the first of each zone unlisted */
	int			ncellless_new;
	bool	   *taken;
} WalkPick;

static inline void
walk_pick_step(WalkPick *wp, uint32 node)
{
	uint32		zone = wp->placement->zone_of[node];

	walk_list_front(&wp->nodes, node);
	walk_list_front(&wp->zones, zone);
	wp->zone_head[zone] = node;
}

/*
 * The first n of the walk from the current cell, as chash_zones_pick picks
 * them with distinct_zones: the walk is the listed nodes, then the members
 * owning no cell.  Time: n, and the zones listed before the n-th.
 */
static void
walk_pick(WalkPick *wp, int n, bool distinct_zones, uint32 *out)
{
	int			found = 0;

	if (!distinct_zones)
	{
		for (uint32 k = wp->nodes.head; k != WALK_END && found < n; k = wp->nodes.next[k])
			out[found++] = k;
		for (int i = 0; found < n; i++)
			out[found++] = wp->cellless[i];
		return;
	}
	/* the first of each zone, in walk order: the listed zones' leaders */
	for (uint32 z = wp->zones.head; z != WALK_END && found < n; z = wp->zones.next[z])
		out[found++] = wp->zone_head[z];
	for (int i = 0; i < wp->ncellless_new && found < n; i++)
		out[found++] = wp->cellless_new[i];
	if (found == n)
		return;
	/* fewer zones than n: the skipped ones fill up, in walk order */
	for (int i = 0; i < found; i++)
		wp->taken[out[i]] = true;
	{
		int			ntaken = found;

		for (uint32 k = wp->nodes.head; k != WALK_END && found < n; k = wp->nodes.next[k])
		{
			if (!wp->taken[k])
				out[found++] = k;
		}
		for (int i = 0; found < n; i++)
		{
			if (!wp->taken[wp->cellless[i]])
				out[found++] = wp->cellless[i];
		}
		for (int i = 0; i < ntaken; i++)
			wp->taken[out[i]] = false;
	}
}

/*
 * Ownership of a placement whose preference order walks cells (a ring's
 * points, a table's slots) on from the key's cell, wrapping, each node
 * met once, then the members owning no cell in member order: cell i holds
 * cells->keys(i) of the 2^bits positions, and those go to the first
 * 'replicas' of the walk from i, picked by zones with distinct_zones.
 * Cells of a run of one owner walk alike, so a run's keys are added up
 * and given out once.  Time: cells, and replicas a run; sums are exact
 * integers in long double and scaled once.
 */
void
chash_walk_ownership(const ChashPlacement *placement,
					 const ChashWalkCells *cells, int replicas,
					 bool distinct_zones, double *owned)
{
	int			bits = placement->spec.key_hash->bits;
	int			nnodes = Max(placement->spec.nnodes, 1);
	long double *sums = palloc0(sizeof(long double) * nnodes);
	uint32	   *picked = palloc(sizeof(uint32) * Max(replicas, 1));
	bool	   *zone_new;
	WalkPick	wp;
	long double run = 0;
	int64		work = 0;

	wp.placement = placement;
	walk_list_init(&wp.nodes, nnodes);
	/* zone numbers of active nodes are below nzones, all below nnodes + 1 */
	walk_list_init(&wp.zones, nnodes + 1);
	wp.zone_head = palloc(sizeof(uint32) * (nnodes + 1));
	wp.cellless = palloc(sizeof(uint32) * Max(placement->nactive, 1));
	wp.cellless_new = palloc(sizeof(uint32) * Max(placement->nactive, 1));
	wp.taken = palloc0(sizeof(bool) * nnodes);
	wp.ncellless = 0;
	wp.ncellless_new = 0;

	/* the first pass: the lists as the walk from cell 0 sees them */
	for (uint32 i = cells->count; i-- > 0;)
	{
		uint32		node = cells->owner(cells->arg, i);

		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (node != CHASH_SLOT_UNOWNED)
			walk_pick_step(&wp, node);
	}
	zone_new = palloc0(sizeof(bool) * (nnodes + 1));
	/* (a ring's members are the nodes of its points: none is cellless) */
	for (int i = 0; placement->members != NULL && i < placement->nactive; i++)
	{
		uint32		m = placement->members[i];
		uint32		zone = placement->zone_of[m];

		if (wp.nodes.listed[m])
			continue;
		wp.cellless[wp.ncellless++] = m;
		if (!wp.zones.listed[zone] && !zone_new[zone])
		{
			zone_new[zone] = true;
			wp.cellless_new[wp.ncellless_new++] = m;
		}
	}
	pfree(zone_new);
	/* a key is held by as many distinct nodes as there are, at most */
	replicas = Min(replicas, wp.nodes.nlisted + wp.ncellless);

	/* the second: each run's walk when the lists reach its first cell */
	for (uint32 i = cells->count; i-- > 0;)
	{
		uint32		node = cells->owner(cells->arg, i);

		if (++work >= 65536)
		{
			CHECK_FOR_INTERRUPTS();
			work = 0;
		}
		if (node == CHASH_SLOT_UNOWNED)
			continue;			/* its keys have no owner */
		walk_pick_step(&wp, node);
		run += cells->keys(cells->arg, i);
		if (i > 0 && cells->owner(cells->arg, i - 1) == node)
			continue;			/* not the first cell of its run */
		if (run == 0)
			continue;
		walk_pick(&wp, replicas, distinct_zones, picked);
		for (int r = 0; r < replicas; r++)
			sums[picked[r]] += run;
		run = 0;
		work += replicas;
	}
	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = (double) ldexpl(sums[k], -bits);
	pfree(wp.taken);
	pfree(wp.cellless_new);
	pfree(wp.cellless);
	pfree(wp.zone_head);
	walk_list_free(&wp.zones);
	walk_list_free(&wp.nodes);
	pfree(picked);
	pfree(sums);
}

static uint32
ring_cell_owner(const void *arg, uint32 i)
{
	return chash_ring_owner((const ChashPlacement *) arg, i);
}

/* A point's arc, if it is the first of its position; else nothing */
static long double
ring_cell_keys(const void *arg, uint32 i)
{
	const ChashPlacement *ring = arg;

	if (i > 0 && ring->positions[i] == ring->positions[i - 1])
		return 0;
	return arc_length(ring, i, ring->spec.key_hash->bits);
}

/*
 * The fraction of the hash space each node of a ring holds, into owned[]
 * (nnodes entries): the keys for which it is among the first 'replicas'
 * distinct nodes clockwise (1 giving each key's owner), picked by zones
 * with distinct_zones, as chash_lookup_n picks them.
 */
static void
ring_ownership(const ChashPlacement *ring, int replicas, bool distinct_zones,
			   double *owned)
{
	ChashWalkCells cells = {ring->npoints, ring_cell_owner, ring_cell_keys, ring};

	if (ring->npoints == 0)
	{
		for (int k = 0; k < ring->spec.nnodes; k++)
			owned[k] = 0;
		return;
	}
	chash_walk_ownership(ring, &cells, replicas, distinct_zones, owned);
}

void
chash_ring_ownership(const ChashPlacement *ring, int replicas, double *owned)
{
	ring_ownership(ring, replicas, false, owned);
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
	if (placement->kind == CHASH_PLACEMENT_POINTS)
		ring_ownership(placement, replicas, distinct_zones, owned);
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
