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
 * The nodes of a table in the order of their next slot at or after a
 * slot, the nearest first: a doubly linked list over node indexes, to
 * which a step back to slot s moves s's owner to the front.  After a pass
 * over the whole table from its end, a second pass's list at slot s is the
 * walk from s, wrapping (owners met only before s follow, by their first
 * slot), in constant time a step rather than a walk's.
 */
typedef struct WalkList
{
	uint32	   *next;
	uint32	   *prev;
	bool	   *listed;
	uint32		head;
} WalkList;

#define WALK_END PG_UINT32_MAX

static void
walk_list_front(WalkList *list, uint32 node)
{
	if (list->head == node)
		return;
	if (list->listed[node])
	{
		list->next[list->prev[node]] = list->next[node];
		if (list->next[node] != WALK_END)
			list->prev[list->next[node]] = list->prev[node];
	}
	list->listed[node] = true;
	list->prev[node] = WALK_END;
	list->next[node] = list->head;
	if (list->head != WALK_END)
		list->prev[list->head] = node;
	list->head = node;
}

/*
 * Exact: slot s holds the positions p of the 2^bits with p mod size = s,
 * floor((2^bits - 1) / size) of them and one more for the slots up to
 * (2^bits - 1) mod size; each owned slot's keys go to the first replicas
 * of its walk (picked by zones if asked).  The keys of unowned slots have
 * no owner.  The slots of a run of one owner walk alike, so each run's
 * walk is read once, from the list above; walking from each run instead
 * would cross the table once a run when a member owns few slots or none.
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
	uint32	   *slotless = palloc(sizeof(uint32) * Max(placement->nactive, 1));
	int			nslotless = 0;
	WalkList	list;
	uint32		end = table->size;

	list.next = palloc(sizeof(uint32) * nnodes);
	list.prev = palloc(sizeof(uint32) * nnodes);
	list.listed = palloc0(sizeof(bool) * nnodes);
	list.head = WALK_END;

	/* the first pass: the list as the walk from slot 0 sees it */
	for (uint32 s = table->size; s-- > 0;)
	{
		if ((s & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (table->slots[s] != CHASH_SLOT_UNOWNED)
			walk_list_front(&list, table->slots[s]);
	}
	for (int i = 0; i < placement->nactive; i++)
	{
		if (!list.listed[placement->members[i]])
			slotless[nslotless++] = placement->members[i];
	}

	/* the second: each run's walk when the list reaches its first slot */
	for (uint32 s = table->size; s-- > 0;)
	{
		uint32		node = table->slots[s];
		long double share;
		const uint32 *chosen = walk;
		int			found = 0;

		if ((s & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (node != CHASH_SLOT_UNOWNED)
			walk_list_front(&list, node);
		if (s > 0 && table->slots[s - 1] == node)
			continue;			/* not the first slot of its run */
		if (node == CHASH_SLOT_UNOWNED)
		{
			end = s;
			continue;
		}
		/* in long double: per + 1 is 2^64 for one slot and a 64-bit hash */
		share = ldexpl((long double) per * (end - s) +
					   (extra > s ? Min(end, extra) - s : 0), -bits);
		end = s;
		if (replicas == 1)
		{
			sums[node] += share;
			continue;
		}
		for (uint32 k = list.head; k != WALK_END && found < nwalk; k = list.next[k])
			walk[found++] = k;
		for (int i = 0; found < nwalk; i++)
			walk[found++] = slotless[i];
		if (distinct_zones)
		{
			chash_zones_pick(placement, walk, nwalk, picked, replicas);
			chosen = picked;
		}
		for (int r = 0; r < replicas; r++)
			sums[chosen[r]] += share;
	}
	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = (double) sums[k];
	pfree(list.listed);
	pfree(list.prev);
	pfree(list.next);
	pfree(slotless);
	pfree(picked);
	pfree(walk);
	pfree(sums);
}
