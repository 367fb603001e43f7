/*-------------------------------------------------------------------------
 *
 * slot_table.c
 *	  Placements by a table of slots: maglev's lookup table, and slots.
 *
 * Position mod size picks a slot, and the slot names its node.  What
 * differs is how the table is filled (algorithms/maglev.c,
 * algorithms/slots.c); the preference order, exact ownership and the check
 * of a node's slot ranges are the same for both and are here.
 *
 * The preference order walks the table on from the key's slot, wrapping,
 * as a ring walks its points: each node met that is not taken yet.
 * Members that own no slot (slots given to other nodes only) come last,
 * in ordinal order, so that any n up to the members can be answered.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

/* The ring's number of slots: its table_size, or its algorithm's default */
uint32
chash_table_size(const ChashRingSpec *spec)
{
	return spec->table_size > 0 ? (uint32) spec->table_size :
		(uint32) spec->algorithm->default_table_size;
}

/* An error if the table would be too large to build */
void
chash_table_check_size(const ChashRingSpec *spec)
{
	uint32		m = chash_table_size(spec);

	if (m > CHASH_MAX_RING_POINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table_size of ring \"%s\" is too large", spec->name),
				 errdetail("It is %u; the most is %d.", m, CHASH_MAX_RING_POINTS)));
}

/* A table of the ring's size, every slot unowned, in the current context */
ChashSlotTable *
chash_table_new(const ChashRingSpec *spec)
{
	ChashSlotTable *table = palloc(sizeof(ChashSlotTable));

	table->size = chash_table_size(spec);
	table->slots = MemoryContextAllocHuge(CurrentMemoryContext,
										  sizeof(uint32) * table->size);
	for (uint32 s = 0; s < table->size; s++)
		table->slots[s] = CHASH_SLOT_UNOWNED;
	table->nowners = 0;
	return table;
}

/* Once a table is filled: how many nodes own slots, for walks to stop */
void
chash_table_count_owners(ChashSlotTable *table, int nnodes)
{
	bool	   *seen = palloc0(sizeof(bool) * Max(nnodes, 1));

	table->nowners = 0;
	for (uint32 s = 0; s < table->size; s++)
	{
		uint32		node = table->slots[s];

		if (node != CHASH_SLOT_UNOWNED && !seen[node])
		{
			seen[node] = true;
			table->nowners++;
		}
	}
	pfree(seen);
}

/*
 * The first n distinct nodes walking the table on from slot 'slot', then
 * the members owning no slot.  seen[nnodes] must be all false, and is left
 * so.  The walk stops once every owner is seen: a member with no slot is
 * not looked for across the whole table.
 */
void
chash_table_walk(const ChashPlacement *placement, uint32 slot, uint32 *out,
				 int n, bool *seen)
{
	const ChashSlotTable *table = placement->data;
	int			found = 0;

	int			want = Min((uint32) n, table->nowners);

	for (uint32 step = 0; step < table->size && found < want; step++)
	{
		uint32		node = table->slots[slot];

		/* a node of few slots can be a whole table away */
		if ((step & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();

		if (node != CHASH_SLOT_UNOWNED && !seen[node])
		{
			seen[node] = true;
			out[found++] = node;
		}
		if (++slot == table->size)
			slot = 0;
	}
	for (int i = 0; i < placement->nactive && found < n; i++)
	{
		uint32		node = placement->members[i];

		if (!seen[node])
		{
			seen[node] = true;
			out[found++] = node;
		}
	}
	Assert(found == n);
	for (int i = 0; i < found; i++)
		seen[out[i]] = false;
}

/* The preference order of a position: the walk from its slot */
void
chash_table_preference(const ChashPlacement *placement, uint64 position,
					   uint32 *out, int n)
{
	const ChashSlotTable *table = placement->data;
	bool	   *seen = palloc0(sizeof(bool) * Max(placement->spec.nnodes, 1));

	chash_table_walk(placement, (uint32) (position % table->size), out, n, seen);
	pfree(seen);
}

/* What every table's slot count comes with: see chash_table_ownership */
typedef struct TableCells
{
	const ChashSlotTable *table;
	uint64		per;
	uint64		extra;
} TableCells;

static uint32
table_cells_owner(const void *arg, uint32 s)
{
	return ((const TableCells *) arg)->table->slots[s];
}

static long double
table_cells_keys(const void *arg, uint32 s)
{
	const TableCells *tc = arg;

	/* in long double: per + 1 is 2^64 for one slot and a 64-bit hash */
	return (long double) tc->per + (s < tc->extra ? 1 : 0);
}

/*
 * Exact: slot s holds the positions p of the 2^bits with p mod size = s,
 * floor((2^bits - 1) / size) of them and one more for the slots up to
 * (2^bits - 1) mod size; each owned slot's keys go to the first replicas
 * of its walk (picked by zones if asked), as chash_walk_ownership counts
 * them.  The keys of unowned slots have no owner.
 */
void
chash_table_ownership(const ChashPlacement *placement, int replicas,
					  bool distinct_zones, double *owned)
{
	const ChashSlotTable *table = placement->data;
	int			bits = placement->spec.key_hash->bits;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	TableCells	tc = {table, max / table->size, max % table->size + 1};
	ChashWalkCells cells = {table->size, table_cells_owner, table_cells_keys, &tc};

	chash_walk_ownership(placement, &cells, replicas, distinct_zones, owned);
}

/* A node's slot ranges lie within the ring's slots */
void
chash_check_slot_ranges(const ChashRingSpec *spec, const ChashNodeSpec *node)
{
	uint32		m = chash_table_size(spec);

	if (!spec->algorithm->takes_slots)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node \"%s\" of ring \"%s\" cannot have slots",
						chash_message_name(node->name, node->name_len),
						spec->name),
				 errdetail("Algorithm \"%s\" has no slots.",
						   spec->algorithm->name),
				 errhint("Use algorithm \"slots\" for nodes that own ranges of slots.")));
	for (int i = 0; i < node->nslot_ranges; i++)
	{
		int32		lower = node->slot_ranges[2 * i];
		int32		upper = node->slot_ranges[2 * i + 1];

		if (lower < 0 || (uint32) upper > m)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("slot range [%d,%d) of node \"%s\" is outside ring \"%s\"",
							lower, upper,
							chash_message_name(node->name, node->name_len),
							spec->name),
					 errdetail("The ring has %u slots, from 0 to %u.", m, m - 1)));
	}
}
