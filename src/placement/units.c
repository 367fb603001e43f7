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
