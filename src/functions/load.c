/*-------------------------------------------------------------------------
 *
 * load.c
 *	  The units of a ring a rebalance can reassign, and the unit of a
 *	  position: what chash_load counts a table's rows and bytes by.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "functions/call_ring.h"
#include "hash/hash.h"

/* The ring of the call, with units to count by; an error if it has none */
static const ChashPlacement *
ring_with_units(FunctionCallInfo fcinfo)
{
	const ChashPlacement *ring = chash_call_ring(fcinfo);

	if (ring->spec.keyed || (ring->kind != CHASH_PLACEMENT_POINTS &&
							 ring->spec.algorithm->unit == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ring \"%s\" has no units to count load by", ring->spec.name),
				 errdetail("Algorithm \"%s\" computes each key's owner from the members, so only adding or removing nodes moves keys.",
						   ring->spec.algorithm->name),
				 errhint("Count the keys per node with chash_key_distribution().")));
	return ring;
}

/* A position as chash_position shows it, checked against the ring's key hash */
static uint64
position_arg(const ChashPlacement *ring, int64 value)
{
	const ChashHashFunction *key_hash = ring->spec.key_hash;
	uint64		position = chash_position_from_int64(key_hash, value);

	if (key_hash->bits < 64 && position >> key_hash->bits != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("position %lld is outside the hash space of ring \"%s\"",
						(long long) value, ring->spec.name),
				 errdetail("Key hash %s gives positions of %d bits.",
						   key_hash->name, key_hash->bits)));
	return position;
}

/*
 * chash.position_unit(ring, position): the unit a position (as
 * chash_position gives it) falls in
 */
PG_FUNCTION_INFO_V1(chash_position_unit);

Datum
chash_position_unit(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = ring_with_units(fcinfo);
	uint64		position = position_arg(ring, PG_GETARG_INT64(1));

	if (chash_placement_nunits(ring) == 0)
		chash_error_no_active_nodes(ring);
	PG_RETURN_INT32((int32) chash_placement_unit(ring, position));
}

/*
 * chash.position_replicas(ring, position, n, distinct_zones): the first n
 * nodes of a position's preference order, as chash_lookup_n gives a key's
 * (what a rebalance counts a copy's load by)
 */
PG_FUNCTION_INFO_V1(chash_position_replicas);

Datum
chash_position_replicas(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = ring_with_units(fcinfo);
	uint64		position = position_arg(ring, PG_GETARG_INT64(1));
	int32		n = PG_GETARG_INT32(2);
	bool		distinct_zones = PG_GETARG_BOOL(3);
	uint32	   *order;
	Datum	   *nodes;
	ArrayType  *result;

	if (ring->nactive == 0)
		chash_error_no_active_nodes(ring);
	if (n < 1 || n > ring->nactive)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replicas must be between 1 and the number of active nodes (%d)",
						ring->nactive),
				 errdetail("replicas is %d.", n)));
	order = palloc(sizeof(uint32) * n);
	if (distinct_zones)
		chash_placement_preference_zones(ring, position, order, n);
	else
		chash_placement_preference(ring, position, order, n);
	nodes = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		nodes[i] = PointerGetDatum(chash_node_text(ring, order[i]));
	result = construct_array(nodes, n, TEXTOID, -1, false, TYPALIGN_INT);
	PG_RETURN_ARRAYTYPE_P(result);
}

/*
 * chash.ring_units(ring): every unit of a ring with the node owning it
 * (NULL for a slot of none), in unit order
 */
PG_FUNCTION_INFO_V1(chash_ring_units);

Datum
chash_ring_units(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const ChashPlacement *ring = ring_with_units(fcinfo);
	uint32		nunits = chash_placement_nunits(ring);

	if (nunits == 0)
		chash_error_no_active_nodes(ring);
	InitMaterializedSRF(fcinfo, 0);
	for (uint32 u = 0; u < nunits; u++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint32		owner = chash_placement_unit_owner(ring, u);

		if ((u & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		values[0] = Int32GetDatum((int32) u);
		if (owner == CHASH_SLOT_UNOWNED)
			nulls[1] = true;
		else
			values[1] = PointerGetDatum(chash_node_text(ring, owner));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if (!nulls[1])
			pfree(DatumGetPointer(values[1]));
	}
	return (Datum) 0;
}
