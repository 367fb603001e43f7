/*-------------------------------------------------------------------------
 *
 * report.c
 *	  SQL functions behind the load reports: each node's exact share of the
 *	  hash space, and the arcs of a ring for its picture.
 *
 * chash_ownership, chash_ring_stats, chash_key_distribution and the SVG
 * pictures are SQL in the install script, on top of these.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "metadata/cache.h"

/* The ring of argument 0, as the active snapshot sees it */
static const ChashPlacement *
report_ring(FunctionCallInfo fcinfo)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	uint64		generation;

	return chash_cache_get_ring(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
								GetActiveSnapshot(), &generation);
}

/*
 * chash.ring_ownership(ring, replicas, require_active, distinct_zones): for
 * every node, its points, the fraction of the hash space whose keys it holds
 * when each key is stored on its first 'replicas' distinct nodes (picked by
 * zones with distinct_zones, as chash_lookup_n does), and the fraction
 * expected of it (by weight, whatever the zones).  With require_active, a ring
 * with no active node is an error, as for a lookup; the pictures draw
 * one.  (The 1.1 catalog declares the first two arguments only, STRICT.)
 */
PG_FUNCTION_INFO_V1(chash_ring_ownership_sql);

Datum
chash_ring_ownership_sql(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		replicas;
	bool		require_active;
	bool		distinct_zones;
	double	   *owned;
	double	   *expected;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ring must not be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("replicas must not be null")));
	if (PG_NARGS() > 2 && PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("require_active must not be null")));
	if (PG_NARGS() > 3 && PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("distinct_zones must not be null")));
	require_active = PG_NARGS() > 2 && PG_GETARG_BOOL(2);
	distinct_zones = PG_NARGS() > 3 && PG_GETARG_BOOL(3);
	ring = report_ring(fcinfo);
	replicas = PG_GETARG_INT32(1);
	if (require_active && ring->nactive == 0)
		chash_error_no_active_nodes(ring);
	if (replicas < 1 || (ring->nactive > 0 && replicas > ring->nactive))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 ring->kind == CHASH_PLACEMENT_POINTS ?
				 errmsg("replicas must be between 1 and the number of nodes with points (%d)",
						ring->nactive) :
				 errmsg("replicas must be between 1 and the number of active nodes (%d)",
						ring->nactive),
				 errdetail("replicas is %d.", replicas)));
	InitMaterializedSRF(fcinfo, 0);
	owned = palloc(sizeof(double) * Max(ring->spec.nnodes, 1));
	expected = palloc(sizeof(double) * Max(ring->spec.nnodes, 1));
	chash_placement_ownership(ring, replicas, distinct_zones, owned);
	chash_ring_expected(&ring->spec, replicas, expected);
	for (int k = 0; k < ring->spec.nnodes; k++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = PointerGetDatum(chash_node_text(ring, k));
		values[1] = Int32GetDatum((int32) ring->node_points[k]);
		nulls[1] = ring->kind != CHASH_PLACEMENT_POINTS;
		values[2] = Float8GetDatum(owned[k]);
		values[3] = Float8GetDatum(expected[k]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(owned);
	pfree(expected);
	return (Datum) 0;
}

/*
 * The next run of slots of one owner at or after slot 'first' of a
 * table: its end (exclusive) and owner, CHASH_SLOT_UNOWNED if none
 */
static uint32
slot_run(const ChashSlotTable *table, uint32 first, uint32 *owner)
{
	uint32		end = first + 1;

	*owner = table->slots[first];
	while (end < table->size && table->slots[end] == *owner)
		end++;
	return end;
}

/*
 * chash.table_size(ring): the number of slots of a ring's table, as built
 * (the ring's table_size or its algorithm's default), NULL for rings
 * without one
 */
PG_FUNCTION_INFO_V1(chash_table_size_sql);

Datum
chash_table_size_sql(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = report_ring(fcinfo);

	if (!ring->spec.algorithm->has_table)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) ((const ChashSlotTable *) ring->data)->size);
}

/*
 * chash_slot_ranges(ring): the slots of a table placement (slots, maglev)
 * as ranges of one owner each, in slot order; unowned slots in none
 */
PG_FUNCTION_INFO_V1(chash_slot_ranges);

Datum
chash_slot_ranges(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = report_ring(fcinfo);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const ChashSlotTable *table;
	TypeCacheEntry *typcache;
	uint32		end;

	if (!ring->spec.algorithm->has_table)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("ring \"%s\" has no slots", ring->spec.name),
				 errdetail("It uses algorithm \"%s\"; rings of algorithms \"slots\", \"maglev\" and \"elasticsearch\" have slots.",
						   ring->spec.algorithm->name)));
	table = ring->data;
	typcache = lookup_type_cache(INT4RANGEOID, TYPECACHE_RANGE_INFO);
	InitMaterializedSRF(fcinfo, 0);
	for (uint32 first = 0; first < table->size; first = end)
	{
		uint32		owner;
		RangeBound	lower = {.inclusive = true, .lower = true};
		RangeBound	upper = {.inclusive = false, .lower = false};
		Datum		values[2];
		bool		nulls[2] = {false, false};

		/* a run a slot: up to 67,108,864 rows */
		CHECK_FOR_INTERRUPTS();

		end = slot_run(table, first, &owner);
		if (owner == CHASH_SLOT_UNOWNED)
			continue;
		lower.val = Int32GetDatum((int32) first);
		upper.val = Int32GetDatum((int32) end);
		values[0] = PointerGetDatum(chash_node_text(ring, owner));
		values[1] = RangeTypePGetDatum(make_range(typcache, &lower, &upper,
												  false, NULL));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * chash.ring_arcs(ring): the circle as arcs [start, stop) of one owner each,
 * in fractions of the hash space from position 0 clockwise (unsigned
 * order), neighbouring arcs of one node merged.  A table's circle (slots,
 * maglev, elasticsearch) is its slots, in fractions of their number,
 * unowned ones in no arc; that of modulo and jump its members in order, an
 * equal arc each; rendezvous, whose owners follow no order, has no arcs.
 */
PG_FUNCTION_INFO_V1(chash_ring_arcs);

static void
put_arc(ReturnSetInfo *rsinfo, const ChashPlacement *ring, double start,
		double stop, uint32 owner)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = Float8GetDatum(start);
	values[1] = Float8GetDatum(stop);
	values[2] = PointerGetDatum(chash_node_text(ring, owner));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
chash_ring_arcs(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = report_ring(fcinfo);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		space = ldexp(1.0, ring->spec.key_hash->bits);
	const uint64 *p = ring->positions;
	double		start = 0;
	uint32		owner;

	InitMaterializedSRF(fcinfo, 0);
	if (ring->spec.algorithm->equal_members)
	{
		for (int m = 0; m < ring->nactive; m++)
			put_arc(rsinfo, ring, (double) m / ring->nactive,
					(double) (m + 1) / ring->nactive, ring->members[m]);
		return (Datum) 0;
	}
	if (ring->spec.algorithm->has_table)
	{
		const ChashSlotTable *table = ring->data;
		uint32		end;

		for (uint32 first = 0; first < table->size; first = end)
		{
			CHECK_FOR_INTERRUPTS();
			end = slot_run(table, first, &owner);
			if (owner != CHASH_SLOT_UNOWNED)
				put_arc(rsinfo, ring, (double) first / table->size,
						(double) end / table->size, owner);
		}
		return (Datum) 0;
	}
	if (ring->npoints == 0)
		return (Datum) 0;

	/* up to the first point, keys belong to it */
	owner = chash_ring_owner(ring, 0);
	for (uint32 i = 1; i < ring->npoints; i++)
	{
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		/* later points on a shared position own nothing */
		if (p[i] == p[i - 1] || chash_ring_owner(ring, i) == owner)
			continue;
		put_arc(rsinfo, ring, start, (double) p[i - 1] / space, owner);
		start = (double) p[i - 1] / space;
		owner = chash_ring_owner(ring, i);
	}
	/* past the last point, keys belong to the first again */
	if (chash_ring_owner(ring, 0) != owner)
	{
		put_arc(rsinfo, ring, start, (double) p[ring->npoints - 1] / space, owner);
		start = (double) p[ring->npoints - 1] / space;
		owner = chash_ring_owner(ring, 0);
	}
	put_arc(rsinfo, ring, start, 1.0, owner);
	return (Datum) 0;
}
