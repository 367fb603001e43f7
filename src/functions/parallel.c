/*-------------------------------------------------------------------------
 *
 * parallel.c
 *	  The rings of a parallel query, shared before its workers start.
 *
 * A parallel query runs in parallel mode from its start to its end, in the
 * leader as in the workers, and parallel mode allows no subtransaction, in
 * which a ring is made shared (metadata/shared.c): a ring that no backend
 * shared yet would be built by the leader and again by every worker, every
 * time, which makes a parallel scan on a big ring slower than a serial one.
 * So before a parallel plan starts (ExecutorStart, not yet in parallel
 * mode), the rings its routing calls name by a constant are resolved as
 * those calls will resolve them, with the same snapshot and rights: built
 * and shared, or found in the cache.  The calls then find them cached,
 * and the workers map them.
 *
 * Resolving ahead must not change what the query does: an error (no such
 * ring, no right to read it) is dropped here, and the call raises it when
 * it runs, if it runs.  Each ring is resolved in a subtransaction of its
 * own, so that one that fails keeps no other from being shared.  Only the
 * target lists and quals of the plan's nodes are looked at, which is
 * where routing calls are.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "functions/call_ring.h"
#include "metadata/cache.h"
#include "metadata/shared.h"
#include "metadata/subxact.h"

/* Rings resolved ahead of one query, at most */
#define PARALLEL_RINGS 8

typedef struct PlanRing
{
	text	   *name;
	Oid			call;			/* a function that names it */
} PlanRing;

typedef struct PlanRings
{
	int			nrings;
	PlanRing	rings[PARALLEL_RINGS];
} PlanRings;

static ExecutorStart_hook_type prev_executor_start = NULL;

/*
 * Whether funcid may be a routing function of chash's: a C function whose
 * symbol says so.  Only looked up in pg_proc; whether it is one is told
 * in the subtransaction, where loading its library can fail.
 */
static bool
may_route(Oid funcid)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		may = false;

	if (!HeapTupleIsValid(tuple))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tuple))->prolang == ClanguageId)
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc,
										  &isnull);

		if (!isnull)
		{
			char	   *symbol = TextDatumGetCString(src);

			may = strncmp(symbol, "chash_lookup_", 13) == 0 ||
				strncmp(symbol, "chash_position_", 15) == 0;
			pfree(symbol);
		}
	}
	ReleaseSysCache(tuple);
	return may;
}

/* Collect the constant ring names of routing calls in an expression */
static bool
find_ring_names(Node *node, PlanRings *found)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *call = (FuncExpr *) node;
		Const	   *ring = call->args != NIL ? linitial(call->args) : NULL;

		if (ring != NULL && IsA(ring, Const) && !ring->constisnull &&
			ring->consttype == TEXTOID && found->nrings < PARALLEL_RINGS &&
			may_route(call->funcid))
		{
			text	   *name = DatumGetTextPP(ring->constvalue);

			for (int i = 0; i < found->nrings; i++)
			{
				text	   *seen = found->rings[i].name;

				if (VARSIZE_ANY_EXHDR(seen) == VARSIZE_ANY_EXHDR(name) &&
					memcmp(VARDATA_ANY(seen), VARDATA_ANY(name),
						   VARSIZE_ANY_EXHDR(name)) == 0)
				{
					name = NULL;
					break;
				}
			}
			if (name != NULL)
			{
				found->rings[found->nrings].name = name;
				found->rings[found->nrings++].call = call->funcid;
			}
		}
	}
	return expression_tree_walker(node, find_ring_names, found);
}

/* Collect them in a plan and its subplans: each node's targets and quals */
static void
find_plan_ring_names(Plan *plan, PlanRings *found)
{
	ListCell   *lc;
	List	   *children = NIL;

	if (plan == NULL)
		return;
	find_ring_names((Node *) plan->targetlist, found);
	find_ring_names((Node *) plan->qual, found);
	find_plan_ring_names(plan->lefttree, found);
	find_plan_ring_names(plan->righttree, found);
	switch (nodeTag(plan))
	{
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_CustomScan:
			children = ((CustomScan *) plan)->custom_plans;
			break;
		case T_SubqueryScan:
			find_plan_ring_names(((SubqueryScan *) plan)->subplan, found);
			break;
		default:
			break;
	}
	foreach(lc, children)
		find_plan_ring_names((Plan *) lfirst(lc), found);
}

/* Resolve a ring found, as its call will: run caught */
static void
resolve_ring(void *arg)
{
	PlanRing   *ring = arg;
	FmgrInfo	call;
	uint64		generation;

	AcceptInvalidationMessages();
	fmgr_info(ring->call, &call);
	if (chash_is_routing_function(call.fn_addr))
		(void) chash_cache_get_ring(VARDATA_ANY(ring->name),
									VARSIZE_ANY_EXHDR(ring->name),
									GetActiveSnapshot(), &generation);
}

static void
parallel_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (queryDesc->plannedstmt->parallelModeNeeded &&
		!(eflags & EXEC_FLAG_EXPLAIN_ONLY) && !IsInParallelMode() &&
		ActiveSnapshotSet())
	{
		PlanRings	found = {0};
		ListCell   *lc;

		find_plan_ring_names(queryDesc->plannedstmt->planTree, &found);
		foreach(lc, queryDesc->plannedstmt->subplans)
			find_plan_ring_names((Plan *) lfirst(lc), &found);
		/* (shared memory is looked at only for a plan that routes) */
		for (int i = 0; i < found.nrings && chash_shared_rings_usable(); i++)
		{
			ErrorData  *dropped = chash_run_caught(resolve_ring, &found.rings[i],
												   chash_error_not_cancel);

			/* (the call raises it when it runs, if it runs) */
			if (dropped != NULL)
				FreeErrorData(dropped);
		}
	}
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* From _PG_init */
void
chash_parallel_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = parallel_executor_start;
}
