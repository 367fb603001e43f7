/*-------------------------------------------------------------------------
 *
 * load.c
 *	  The units of a ring a rebalance can reassign, and the unit of a
 *	  position: what chash_load counts a table's rows and bytes by.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
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

/* An array argument of a fixed-width type without nulls, as a C array */
static const void *
plain_array_arg(FunctionCallInfo fcinfo, int argno, Oid elemtype, int *n)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(argno);

	if (ARR_NDIM(array) > 1 || ARR_ELEMTYPE(array) != elemtype || ARR_HASNULL(array))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument %d must be a one-dimensional array without nulls",
						argno + 1)));
	*n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	return ARR_DATA_PTR(array);
}

/* A one-dimensional array of n elements of a fixed-width type, to fill */
static ArrayType *
new_plain_array(Oid elemtype, int elemlen, int n)
{
	Size		size = ARR_OVERHEAD_NONULLS(1) + (Size) elemlen * n;
	ArrayType  *array;

	if (n == 0)
		return construct_empty_array(elemtype);
	array = palloc0(size);
	SET_VARSIZE(array, size);
	array->ndim = 1;
	array->dataoffset = 0;
	array->elemtype = elemtype;
	ARR_DIMS(array)[0] = n;
	ARR_LBOUND(array)[0] = 1;
	return array;
}

/* The same of values already in an array of their C type */
static Datum
copy_plain_array(Oid elemtype, int elemlen, int n, const void *values)
{
	ArrayType  *array = new_plain_array(elemtype, elemlen, n);

	if (n > 0)
		memcpy(ARR_DATA_PTR(array), values, (Size) elemlen * n);
	return PointerGetDatum(array);
}

/* Units ordered by their owner's place in names, heaviest first, then unit */
typedef struct UnitOrder
{
	const int32 *owner;
	const double *load;
} UnitOrder;

static inline int
unit_order_cmp(const int32 *a, const int32 *b, UnitOrder *order)
{
	int32		x = *a;
	int32		y = *b;

	if (order->owner[x] != order->owner[y])
		return order->owner[x] < order->owner[y] ? -1 : 1;
	if (order->load[x] != order->load[y])
		return order->load[x] > order->load[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

#define ST_SORT sort_units_by_owner
#define ST_ELEMENT_TYPE int32
#define ST_COMPARE(a, b, arg) unit_order_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE UnitOrder
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The index of the node of a name, -1 if none: a search of spec->nodes,
 * which are in the byte order of their UTF-8 names
 */
static int
node_by_name(const ChashRingSpec *spec, const text *name)
{
	int			len;
	const char *s = chash_text_bytes(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &len);
	int			lo = 0;
	int			hi = spec->nnodes - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const ChashNodeSpec *n = &spec->nodes[mid];
		int			c = memcmp(s, n->name_utf8, Min(len, n->name_utf8_len));

		if (c == 0)
			c = (len > n->name_utf8_len) - (len < n->name_utf8_len);
		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

/*
 * chash.rebalance_unit_rows(ring, names, positions, loads): what a plan of
 * tokens works on, all 1-based: each unit's token and owner (an index of
 * names, the ring's active nodes), the rows' distinct positions unit by
 * unit from each unit's low end with the load up to each within its unit,
 * each unit's load, first and last row (1 and 0: none) and the row
 * before its first (where its cuts begin), and the units node by node (the
 * order of names), heaviest first, with where each node's begin and end
 * (1 and 0: none)
 */
PG_FUNCTION_INFO_V1(chash_rebalance_unit_rows);

Datum
chash_rebalance_unit_rows(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = ring_with_units(fcinfo);
	const ChashRingSpec *spec = &ring->spec;
	ArrayType  *names = PG_GETARG_ARRAYTYPE_P(1);
	const int64 *positions_in;
	const double *loads;
	int			npositions;
	int			nloads;
	Datum	   *name_elems;
	bool	   *name_nulls;
	int			nnames;
	int32	   *name_of_node;
	uint64	   *positions;
	ChashUnitRows rows;
	uint32		nunits;
	int64	   *unit_token;
	int32	   *unit_owner;
	ArrayType  *first_row;
	ArrayType  *last_row;
	ArrayType  *cut_row;
	ArrayType  *row_pos;
	int32	   *by_node;
	UnitOrder	order;
	int32	   *node_first;
	int32	   *node_last;
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11] = {false};

	if (ring->kind != CHASH_PLACEMENT_POINTS || spec->strictly_after)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ring \"%s\" is not a ring of points looked up by successor",
						spec->name)));
	nunits = chash_placement_nunits(ring);
	if (nunits == 0)
		chash_error_no_active_nodes(ring);
	positions_in = plain_array_arg(fcinfo, 2, INT8OID, &npositions);
	loads = plain_array_arg(fcinfo, 3, FLOAT8OID, &nloads);
	if (npositions != nloads)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("positions and loads must be arrays of the same length")));
	for (int i = 0; i < nloads; i++)
	{
		/* NaN fails this too: it would leave the units without an order */
		if (!(loads[i] >= 0 && loads[i] < get_float8_infinity()))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("loads must be finite numbers of at least 0"),
					 errdetail("Load %d is %g.", i + 1, loads[i])));
	}
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	/* each node's place in names */
	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT,
					  &name_elems, &name_nulls, &nnames);
	name_of_node = palloc0(sizeof(int32) * Max(spec->nnodes, 1));
	for (int i = 0; i < nnames; i++)
	{
		int			j;

		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (name_nulls[i])
			continue;
		j = node_by_name(spec, DatumGetTextPP(name_elems[i]));
		if (j >= 0)
			name_of_node[j] = i + 1;
	}

	unit_token = palloc(sizeof(int64) * nunits);
	unit_owner = palloc(sizeof(int32) * nunits);
	for (uint32 u = 0; u < nunits; u++)
	{
		uint32		node = chash_ring_owner(ring, u);

		if (name_of_node[node] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("node \"%s\" of ring \"%s\" is not in names",
							spec->nodes[node].name, spec->name)));
		unit_token[u] = chash_position_to_int64(spec->key_hash, ring->positions[u]);
		unit_owner[u] = name_of_node[node];
	}

	positions = palloc(sizeof(uint64) * Max(npositions, 1));
	for (int i = 0; i < npositions; i++)
		positions[i] = position_arg(ring, positions_in[i]);
	chash_placement_unit_rows(ring, positions, loads, npositions, &rows);

	/* each unit's rows as indexes from 1 (none: 1 to 0), and the rows cut */
	first_row = new_plain_array(INT4OID, sizeof(int32), nunits);
	last_row = new_plain_array(INT4OID, sizeof(int32), nunits);
	cut_row = new_plain_array(INT4OID, sizeof(int32), nunits);
	for (uint32 u = 0; u < nunits; u++)
	{
		int32		first = rows.count[u] > 0 ? (int32) rows.first[u] + 1 : 1;

		((int32 *) ARR_DATA_PTR(first_row))[u] = first;
		((int32 *) ARR_DATA_PTR(last_row))[u] = first + (int32) rows.count[u] - 1;
		((int32 *) ARR_DATA_PTR(cut_row))[u] = first - 1;
	}
	row_pos = new_plain_array(INT8OID, sizeof(int64), rows.nrows);
	for (uint32 i = 0; i < rows.nrows; i++)
		((int64 *) ARR_DATA_PTR(row_pos))[i] =
			chash_position_to_int64(spec->key_hash, rows.position[i]);

	/* the units node by node, heaviest first */
	by_node = palloc(sizeof(int32) * nunits);
	for (uint32 u = 0; u < nunits; u++)
		by_node[u] = (int32) u;
	order.owner = unit_owner;
	order.load = rows.load;
	sort_units_by_owner(by_node, nunits, &order);
	node_first = palloc(sizeof(int32) * Max(nnames, 1));
	node_last = palloc0(sizeof(int32) * Max(nnames, 1));
	for (int i = 0; i < nnames; i++)
		node_first[i] = 1;
	for (uint32 k = nunits; k-- > 0;)
	{
		int32		owner = unit_owner[by_node[k]];

		node_first[owner - 1] = (int32) k + 1;
		if (node_last[owner - 1] == 0)
			node_last[owner - 1] = (int32) k + 1;
		by_node[k]++;
	}

	values[0] = copy_plain_array(INT8OID, sizeof(int64), nunits, unit_token);
	values[1] = copy_plain_array(INT4OID, sizeof(int32), nunits, unit_owner);
	values[2] = copy_plain_array(FLOAT8OID, sizeof(float8), nunits, rows.load);
	values[3] = PointerGetDatum(row_pos);
	values[4] = copy_plain_array(FLOAT8OID, sizeof(float8), rows.nrows, rows.upto);
	values[5] = PointerGetDatum(first_row);
	values[6] = PointerGetDatum(last_row);
	values[7] = PointerGetDatum(cut_row);
	values[8] = copy_plain_array(INT4OID, sizeof(int32), nunits, by_node);
	values[9] = copy_plain_array(INT4OID, sizeof(int32), nnames, node_first);
	values[10] = copy_plain_array(INT4OID, sizeof(int32), nnames, node_last);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
