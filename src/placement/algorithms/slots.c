/*-------------------------------------------------------------------------
 *
 * slots.c
 *	  The "slots" algorithm: a fixed number of slots, owned by ranges.
 *
 * Position mod table_size (16384 unless given, as Redis Cluster has) picks
 * a slot.  The active nodes own the slot ranges they are given (every one
 * of them, then: '{}' for none, so that no node is left out by mistake);
 * if no active node is given any, the slots are split evenly over them in
 * ordinal order, as redis-cli --cluster create splits them (its float
 * arithmetic included, so that 3 nodes own 0-5460, 5461-10922 and
 * 10923-16383).  The split moves nearly every key when the members
 * change; ranges move only the slots given to another node.
 *
 * A key whose slot no active node owns has no owner: looking it up is an
 * error, as Redis refuses such a key (CLUSTERDOWN), rather than a NULL
 * that routing could take for "nowhere".  Ownership counts such slots for
 * no node.  The slots of a node that is down are unowned: a down node's
 * slots do not pass to another by themselves.  The preference order and
 * ownership are a table's (placement/slot_table.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "placement/placement.h"

/* One node's slot range, while checking that ranges do not overlap */
typedef struct SlotRange
{
	int32		lower;
	int32		upper;
	int			node;
} SlotRange;

static int
slot_range_cmp(const void *a, const void *b)
{
	const SlotRange *x = a;
	const SlotRange *y = b;

	if (x->lower != y->lower)
		return x->lower < y->lower ? -1 : 1;
	return x->upper < y->upper ? -1 : x->upper > y->upper ? 1 : 0;
}

/* Whether any active node was given slot ranges (none, maybe) */
static bool
slots_given(const ChashRingSpec *spec)
{
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].active && spec->nodes[k].slots_given)
			return true;
	}
	return false;
}

/*
 * The table's size; with ranges given, no slot twice; else no more active
 * nodes than slots
 */
static void
slots_prepare(ChashRingSpec *spec)
{
	uint32		m = chash_table_size(spec);
	SlotRange  *ranges;
	int			nranges = 0;

	chash_computed_prepare(spec);
	chash_table_check_size(spec);
	if (!slots_given(spec))
	{
		if ((uint32) spec->nactive > m)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("ring \"%s\" has more active nodes than slots", spec->name),
					 errdetail("Its %d active nodes cannot share %u slots.",
							   spec->nactive, m),
					 errhint("Give the nodes slot ranges, or create the ring with a larger table_size.")));
		return;
	}

	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *node = &spec->nodes[k];

		if (!node->active)
			continue;
		/* a node left out of the ranges would silently own nothing */
		if (!node->slots_given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("node \"%s\" of ring \"%s\" has no slot ranges",
							chash_message_name(node->name, node->name_len),
							spec->name),
					 errdetail("Other active nodes of the ring are given theirs, so the slots are not split evenly."),
					 errhint("Give it its ranges, or slots => '{}' to own none; to give every node its ranges at once, update chash.node_config in one statement.")));
		nranges += node->nslot_ranges;
	}
	ranges = palloc(sizeof(SlotRange) * Max(nranges, 1));
	nranges = 0;
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *node = &spec->nodes[k];

		if (!node->active)
			continue;
		for (int i = 0; i < node->nslot_ranges; i++)
		{
			ranges[nranges].lower = node->slot_ranges[2 * i];
			ranges[nranges].upper = node->slot_ranges[2 * i + 1];
			ranges[nranges].node = k;
			nranges++;
		}
	}
	qsort(ranges, nranges, sizeof(SlotRange), slot_range_cmp);
	for (int i = 1; i < nranges; i++)
	{
		const ChashNodeSpec *a = &spec->nodes[ranges[i - 1].node];
		const ChashNodeSpec *b = &spec->nodes[ranges[i].node];

		/* sorted and disjoint so far: only the previous range can overlap */
		if (ranges[i].lower >= ranges[i - 1].upper)
			continue;
		if (a == b)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("slot %d of ring \"%s\" is given to node \"%s\" twice",
							ranges[i].lower, spec->name,
							chash_message_name(a->name, a->name_len)),
					 errdetail("Its slot ranges overlap.")));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("slot %d of ring \"%s\" is given to both node \"%s\" and node \"%s\"",
						ranges[i].lower, spec->name,
						chash_message_name(a->name, a->name_len),
						chash_message_name(b->name, b->name_len)),
				 errdetail("A slot belongs to one active node."),
				 errhint("Take the slots from one node before giving them to the other.")));
	}
	pfree(ranges);
}

/*
 * Members in order split the slots: member i owns up to slot
 * lround(cursor + per_node - 1), cursor growing by per_node, in single
 * precision as redis-cli computes it; the last member owns up to the end
 */
static void
split_evenly(const ChashPlacement *placement, ChashSlotTable *table)
{
	int			n = placement->nactive;
	float		per_node = table->size / (float) n;
	float		cursor = 0.0f;
	long		first = 0;

	for (int i = 0; i < n; i++)
	{
		long		last = lround(cursor + per_node - 1);

		if (last >= (long) table->size || i == n - 1)
			last = table->size - 1;
		if (last < first)
			last = first;
		for (long s = first; s <= last; s++)
			table->slots[s] = placement->members[i];
		first = last + 1;
		cursor += per_node;
	}
}

static void
slots_build(ChashPlacement *placement)
{
	const ChashRingSpec *spec = &placement->spec;
	ChashSlotTable *table = chash_table_new(spec);

	placement->data = table;
	if (placement->nactive == 0)
		return;
	if (!slots_given(spec))
		split_evenly(placement, table);
	else
	{
		for (int k = 0; k < spec->nnodes; k++)
		{
			const ChashNodeSpec *node = &spec->nodes[k];

			if (!node->active)
				continue;
			for (int i = 0; i < node->nslot_ranges; i++)
			{
				for (int32 s = node->slot_ranges[2 * i]; s < node->slot_ranges[2 * i + 1]; s++)
					table->slots[s] = k;
			}
		}
	}
	chash_table_count_owners(table, spec->nnodes);
}

/* The node owning a position's slot: an error if none does */
static uint32
slot_unit(const ChashPlacement *placement, uint64 position)
{
	const ChashSlotTable *table = placement->data;

	return (uint32) (position % table->size);
}

static uint32
slot_owner(const ChashPlacement *placement, uint64 position)
{
	const ChashSlotTable *table = placement->data;
	uint32		slot = (uint32) (position % table->size);
	uint32		node = table->slots[slot];

	if (unlikely(node == CHASH_SLOT_UNOWNED))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("slot %u of ring \"%s\" has no node", slot,
						placement->spec.name),
				 errdetail("No active node of the ring owns the slot."),
				 errhint("Give it to a node: chash_node_set(ring, node, slots => ...).")));
	return node;
}

/* The walk from the position's slot, which must be owned */
static void
slots_preference(const ChashPlacement *placement, uint64 position,
				 uint32 *out, int n)
{
	(void) slot_owner(placement, position);
	chash_table_preference(placement, position, out, n);
}

const ChashAlgorithm chash_algorithm_slots = {
	.name = "slots",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = slots_prepare,
	.node_points = chash_computed_node_points,
	.description = "a fixed number of slots (table_size, default 16384), position mod slots, each owned by the node given its range or split evenly over the active nodes in ordinal order",
	.node_points_alone = false, /* an even split depends on every member */
	.has_table = true,
	.default_table_size = 16384,
	.takes_slots = true,
	.build = slots_build,
	.owner = slot_owner,
	.preference = slots_preference,
	.ownership = chash_table_ownership,
	.unit = slot_unit,
};
