/*-------------------------------------------------------------------------
 *
 * table.c
 *	  Placements by a table of slots: maglev's lookup table, and slots.
 *
 * Position mod size picks a slot, and the slot names its node.  What
 * differs is how the table is filled (algo_maglev.c, algo_slots.c); the
 * preference order and exact ownership are the same for both and are here.
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

#include "placement.h"

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
	return table;
}

/*
 * The first n distinct nodes walking the table on from slot 'slot', then
 * the members owning no slot.  seen[nnodes] must be all false, and is left
 * so.
 */
void
chash_table_walk(const ChashPlacement *placement, uint32 slot, uint32 *out,
				 int n, bool *seen)
{
	const ChashSlotTable *table = placement->data;
	int			found = 0;

	for (uint32 step = 0; step < table->size && found < n; step++)
	{
		uint32		node = table->slots[slot];

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

/*
 * Exact: slot s holds the positions p of the 2^bits with p mod size = s,
 * floor(2^bits / size) of them and one more for the first 2^bits mod size
 * slots; each owned slot's keys go to the first replicas of its walk
 * (picked by zones if asked).  The keys of unowned slots have no owner.
 * The slots of a run of one owner walk alike, so each run is walked once:
 * slots rings have a few long runs, which walking slot by slot would
 * cross once a slot.
 */
void
chash_table_ownership(const ChashPlacement *placement, int replicas,
					  bool distinct_zones, double *owned)
{
	const ChashSlotTable *table = placement->data;
	int			bits = placement->spec.key_hash->bits;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	uint64		per = max / table->size;
	uint64		extra = max % table->size + 1;
	int			nnodes = Max(placement->spec.nnodes, 1);
	long double *sums = palloc0(sizeof(long double) * nnodes);
	int			nwalk = distinct_zones ? placement->nactive : replicas;
	uint32	   *walk = palloc(sizeof(uint32) * Max(nwalk, 1));
	uint32	   *picked = palloc(sizeof(uint32) * Max(replicas, 1));
	bool	   *seen = palloc0(sizeof(bool) * nnodes);
	uint32		end;

	/* 2^bits mod size is 0: every slot has one more than max / size */
	if (extra == table->size)
	{
		per++;
		extra = 0;
	}
	for (uint32 first = 0; first < table->size; first = end)
	{
		uint32		node = table->slots[first];
		long double share;
		const uint32 *list = walk;

		CHECK_FOR_INTERRUPTS();
		for (end = first + 1; end < table->size && table->slots[end] == node; end++)
			;
		if (node == CHASH_SLOT_UNOWNED)
			continue;
		share = ldexpl((long double) per * (end - first) +
					   (extra > first ? Min(end, extra) - first : 0), -bits);
		if (replicas == 1)
		{
			sums[node] += share;
			continue;
		}
		chash_table_walk(placement, first, walk, nwalk, seen);
		if (distinct_zones)
		{
			chash_zones_pick(placement, walk, nwalk, picked, replicas);
			list = picked;
		}
		for (int r = 0; r < replicas; r++)
			sums[list[r]] += share;
	}
	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = (double) sums[k];
	pfree(seen);
	pfree(picked);
	pfree(walk);
	pfree(sums);
}
