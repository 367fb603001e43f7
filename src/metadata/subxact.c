/*-------------------------------------------------------------------------
 *
 * subxact.c
 *	  Errors caught in a subtransaction.
 *
 * Where a failure must not fail the statement (a ring the views show as
 * bad, a ring that cannot be shared and is built in the backend instead),
 * the work runs in an internal subtransaction, whose rollback releases the
 * locks, segments and memory the failure held, as PL/pgSQL's exception
 * blocks do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/resowner.h"

#include "metadata/subxact.h"

/*
 * Run fn(arg) so that an error in it is caught: NULL when fn returned, else
 * the error (in the caller's memory context), after the subtransaction fn
 * ran in was rolled back.  An error catchable() refuses is thrown again,
 * also after the rollback, so that an exception block of the caller's
 * finds its own subtransaction on top.  In parallel mode, which allows no
 * subtransaction, fn just runs.
 */
ErrorData *
chash_run_caught(void (*fn) (void *arg), void *arg,
				 bool (*catchable) (const ErrorData *edata))
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile caught = NULL;

	if (IsInParallelMode())
	{
		fn(arg);
		return NULL;
	}
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		caught = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (!catchable(caught))
			ReThrowError(caught);
	}
	PG_END_TRY();
	return caught;
}

/* An ordinary error: not a cancel, a shutdown, or worse than ERROR */
bool
chash_error_not_cancel(const ErrorData *edata)
{
	return edata->elevel == ERROR &&
		edata->sqlerrcode != ERRCODE_QUERY_CANCELED &&
		edata->sqlerrcode != ERRCODE_ADMIN_SHUTDOWN;
}
