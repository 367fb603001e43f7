/*-------------------------------------------------------------------------
 *
 * units.c
 *	  The units a rebalance can give to another node: a ring's points (each
 *	  owns the arc up to it) and a table's slots.
 *
 * A key's unit is the one its lookup goes through, so the unit's owner is
 * the key's owner.  Placements whose owners are computed from the members
 * alone (modulo, jump, rendezvous) and keyed ones have none: only their
 * node count changes where keys go.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "placement/placement.h"

/* The number of units, 0 for a placement that has none */
uint32
chash_placement_nunits(const ChashPlacement *placement)
{
	if (placement->spec.keyed)
		return 0;
	if (placement->kind == CHASH_PLACEMENT_POINTS)
		return placement->npoints;
	if (placement->spec.algorithm->unit != NULL)
		return ((const ChashSlotTable *) placement->data)->size;
	return 0;
}

/*
 * The unit a position falls in: the point its lookup finds, or the table's
 * slot.  The placement has units and, for a ring, points.
 */
uint32
chash_placement_unit(const ChashPlacement *placement, uint64 position)
{
	Assert(chash_placement_nunits(placement) > 0);
	if (placement->kind == CHASH_PLACEMENT_POINTS)
		return chash_ring_find(placement, position);
	return placement->spec.algorithm->unit(placement, position);
}

/* The node index owning a unit, CHASH_SLOT_UNOWNED for a slot of none */
uint32
chash_placement_unit_owner(const ChashPlacement *placement, uint32 unit)
{
	if (placement->kind == CHASH_PLACEMENT_POINTS)
		return chash_ring_owner(placement, unit);
	return ((const ChashSlotTable *) placement->data)->slots[unit];
}

/* A row's position and load, to be sorted by position */
typedef struct PositionLoad
{
	uint64		position;
	double		load;
} PositionLoad;

#define ST_SORT sort_position_loads
#define ST_ELEMENT_TYPE PositionLoad
#define ST_COMPARE(a, b) \
	((a)->position < (b)->position ? -1 : (a)->position > (b)->position)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The rows' positions of a ring of points (the successor rule), unit by
 * unit and each unit's from its low end, equal positions made one with
 * their loads added: what a plan of tokens cuts units at.  In ring order
 * the positions after the last point come first, since they wrap round to
 * the first unit.  out->upto is the load up to and including each position
 * within its unit; a unit's rows are first[u] .. first[u] + count[u] - 1.
 */
void
chash_placement_unit_rows(const ChashPlacement *ring, const uint64 *positions,
						  const double *loads, uint32 n, ChashUnitRows *out)
{
	PositionLoad *rows = palloc(sizeof(PositionLoad) * Max(n, 1));
	uint32		nunits = ring->npoints;
	uint64		last = ring->positions[nunits - 1];
	uint32		wrapped = 0;	/* the rows after the last point */
	uint32		unit = 0;
	uint32		m = 0;

	Assert(ring->kind == CHASH_PLACEMENT_POINTS && !ring->spec.strictly_after &&
		   nunits > 0);
	for (uint32 i = 0; i < n; i++)
	{
		rows[i].position = positions[i];
		rows[i].load = loads[i];
		if (positions[i] > last)
			wrapped++;
	}
	sort_position_loads(rows, n);

	out->position = palloc(sizeof(uint64) * Max(n, 1));
	out->upto = palloc(sizeof(double) * Max(n, 1));
	out->first = palloc0(sizeof(uint32) * nunits);
	out->count = palloc0(sizeof(uint32) * nunits);
	out->load = palloc0(sizeof(double) * nunits);
	for (uint32 k = 0; k < n; k++)
	{
		/* the wrapped rows first, then the others from the lowest */
		const PositionLoad *row = &rows[k < wrapped ? n - wrapped + k : k - wrapped];

		if ((k & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		if (k >= wrapped)
		{
			while (ring->positions[unit] < row->position)
				unit++;			/* stops at the last point at the latest */
		}
		if (m > 0 && out->position[m - 1] == row->position)
		{
			/* the same position again: one with its load */
			out->upto[m - 1] += row->load;
			out->load[unit] += row->load;
			continue;
		}
		if (out->count[unit] == 0)
			out->first[unit] = m;
		out->load[unit] += row->load;
		out->position[m] = row->position;
		out->upto[m] = out->load[unit];
		out->count[unit]++;
		m++;
	}
	out->nrows = m;
	pfree(rows);
}
