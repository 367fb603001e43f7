/*-------------------------------------------------------------------------
 *
 * rebalance.c
 *	  chash.rebalance_copy_tokens: the tokens chash_rebalance plans for the
 *	  copies of a ring of tokens (placement/copy_plan.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "functions/call_ring.h"
#include "hash/hash.h"
#include "placement/copy_plan.h"

typedef struct CopyPlanRow
{
	uint64		position;
	double		load;
} CopyPlanRow;

static int
copy_plan_row_cmp(const void *a, const void *b)
{
	uint64		pa = ((const CopyPlanRow *) a)->position;
	uint64		pb = ((const CopyPlanRow *) b)->position;

	return pa < pb ? -1 : (pa > pb ? 1 : 0);
}

/* The elements of a one-dimensional array argument without NULLs */
static int
array_arg(FunctionCallInfo fcinfo, int argno, const char *name, Oid type,
		  Datum **elems)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(argno);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", name)));
	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
	deconstruct_array(array, type, typlen, typbyval, typalign, elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain nulls", name)));
	}
	return n;
}

static void
check_same_length(int n, int m, const char *name, const char *other)
{
	if (n != m)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s and %s must have the same length", name, other),
				 errdetail("They have %d and %d elements.", n, m)));
}

static double
amount_arg(double value, const char *name)
{
	if (!(value >= 0 && value < INFINITY))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be finite and at least 0", name),
				 errdetail("One is %g.", value)));
	return value;
}

/*
 * chash.rebalance_copy_tokens(ring, positions, position_load, names, limits,
 * drained, replicas, distinct_zones, max_moved): the tokens of each node
 * that holds some in the plan, in ring order.  names are the ring's active
 * nodes, each once, with the load each may hold and whether it is drained;
 * max_moved is a budget of copies' load (infinity: none).
 */
PG_FUNCTION_INFO_V1(chash_rebalance_copy_tokens);

Datum
chash_rebalance_copy_tokens(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const ChashPlacement *ring = chash_call_ring(fcinfo);
	const ChashHashFunction *key_hash = ring->spec.key_hash;
	MemoryContext work;
	MemoryContext old;
	Datum	   *positions;
	Datum	   *loads;
	Datum	   *names;
	Datum	   *limits;
	Datum	   *drained;
	int			npos;
	int			nnames;
	int32		replicas = PG_GETARG_INT32(6);
	bool		distinct_zones = PG_GETARG_BOOL(7);
	double		max_moved = PG_GETARG_FLOAT8(8);
	int			nnodes = ring->spec.nnodes;
	int			keep;
	CopyPlanRow *rows;
	uint32		nrows = 0;
	ChashCopyPlan plan = {0};
	bool	   *node_drained;
	double	   *node_limit;
	bool	   *named;
	uint64	   *row_pos;
	double	   *row_load;

	if (ring->kind != CHASH_PLACEMENT_POINTS || ring->spec.keyed ||
		ring->spec.strictly_after || ring->spec.lookup != CHASH_LOOKUP_SUCCESSOR)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ring \"%s\" has no tokens that end ranges", ring->spec.name),
				 errdetail("Copies are planned on rings whose keys go to the first point at or after them.")));
	if (!(max_moved >= 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_moved must be at least 0"),
				 errdetail("max_moved is %g.", max_moved)));

	work = AllocSetContextCreate(CurrentMemoryContext, "chash copy plan",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	npos = array_arg(fcinfo, 1, "positions", INT8OID, &positions);
	check_same_length(npos, array_arg(fcinfo, 2, "position_load", FLOAT8OID, &loads),
					  "positions", "position_load");
	nnames = array_arg(fcinfo, 3, "names", TEXTOID, &names);
	check_same_length(nnames, array_arg(fcinfo, 4, "limits", FLOAT8OID, &limits),
					  "names", "limits");
	check_same_length(nnames, array_arg(fcinfo, 5, "drained", BOOLOID, &drained),
					  "names", "drained");

	/* the names: the active nodes, each once */
	node_drained = palloc0(sizeof(bool) * Max(nnodes, 1));
	node_limit = palloc0(sizeof(double) * Max(nnodes, 1));
	named = palloc0(sizeof(bool) * Max(nnodes, 1));
	if (nnames != ring->nactive)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names must name the %d active nodes of ring \"%s\"",
						ring->nactive, ring->spec.name),
				 errdetail("names has %d elements.", nnames)));
	keep = 0;
	for (int i = 0; i < nnames; i++)
	{
		text	   *t = DatumGetTextPP(names[i]);
		int			k;

		for (k = 0; k < nnodes; k++)
		{
			const ChashNodeSpec *n = &ring->spec.nodes[k];

			if (n->active && n->name_len == (int) VARSIZE_ANY_EXHDR(t) &&
				memcmp(n->name, VARDATA_ANY(t), n->name_len) == 0)
				break;
		}
		if (k == nnodes || named[k])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("names must name each active node of ring \"%s\" once",
							ring->spec.name)));
		named[k] = true;
		node_drained[k] = DatumGetBool(drained[i]);
		node_limit[k] = node_drained[k] ? 0 : amount_arg(DatumGetFloat8(limits[i]), "limits");
		if (!node_drained[k])
			keep++;
	}
	if (replicas < 1 || replicas > keep)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replicas must be between 1 and the number of nodes that keep load (%d)",
						keep),
				 errdetail("replicas is %d.", replicas)));

	/* the rows' positions, ascending, one each */
	rows = palloc(sizeof(CopyPlanRow) * Max(npos, 1));
	for (int i = 0; i < npos; i++)
	{
		uint64		position = chash_position_from_int64(key_hash, DatumGetInt64(positions[i]));

		if (key_hash->bits < 64 && position >> key_hash->bits != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("position %lld is outside the hash space of ring \"%s\"",
							(long long) DatumGetInt64(positions[i]), ring->spec.name)));
		rows[i].position = position;
		rows[i].load = amount_arg(DatumGetFloat8(loads[i]), "position_load");
	}
	qsort(rows, npos, sizeof(CopyPlanRow), copy_plan_row_cmp);
	row_pos = palloc(sizeof(uint64) * Max(npos, 1));
	row_load = palloc(sizeof(double) * Max(npos, 1));
	for (int i = 0; i < npos; i++)
	{
		if (nrows > 0 && row_pos[nrows - 1] == rows[i].position)
			row_load[nrows - 1] += rows[i].load;
		else
		{
			row_pos[nrows] = rows[i].position;
			row_load[nrows++] = rows[i].load;
		}
	}
	pfree(rows);

	plan.nnodes = nnodes;
	plan.drained = node_drained;
	plan.zone_of = ring->zone_of;
	plan.limits = node_limit;
	plan.replicas = replicas;
	plan.distinct_zones = distinct_zones;
	plan.max_moved = max_moved;
	plan.max_position = key_hash->bits < 64 ?
		(UINT64CONST(1) << key_hash->bits) - 1 : PG_UINT64_MAX;
	plan.npositions = nrows;
	plan.positions = row_pos;
	plan.loads = row_load;
	plan.ntokens = ring->npoints;
	plan.tokens = palloc(sizeof(uint64) * Max(ring->npoints, 1));
	plan.owners = palloc(sizeof(uint32) * Max(ring->npoints, 1));
	for (uint32 i = 0; i < ring->npoints; i++)
	{
		plan.tokens[i] = ring->positions[i];
		plan.owners[i] = chash_ring_owner(ring, i);
	}
	chash_copy_plan(&plan);

	/* each node's tokens, in ring order */
	MemoryContextSwitchTo(old);
	InitMaterializedSRF(fcinfo, 0);
	for (int k = 0; k < nnodes; k++)
	{
		Datum	   *elems;
		int			n = 0;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(work);
		elems = palloc(sizeof(Datum) * Max(plan.ntokens, 1));
		for (uint32 i = 0; i < plan.ntokens; i++)
		{
			if (plan.owners[i] == (uint32) k)
				elems[n++] = Int64GetDatum(chash_position_to_int64(key_hash, plan.tokens[i]));
		}
		MemoryContextSwitchTo(old);
		if (n == 0)
			continue;
		values[0] = PointerGetDatum(chash_node_text(ring, k));
		values[1] = PointerGetDatum(construct_array(elems, n, INT8OID, sizeof(int64),
													FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(DatumGetPointer(values[0]));
		pfree(DatumGetPointer(values[1]));
	}
	MemoryContextDelete(work);
	return (Datum) 0;
}
