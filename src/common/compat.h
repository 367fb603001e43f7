/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Differences between the PostgreSQL majors chash builds on (14 to 19),
 *	  in one place: each gives older servers the newest API.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_COMPAT_H
#define CHASH_COMPAT_H

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/rangetypes.h"
#include "utils/tuplestore.h"

/*
 * 16 moved the varlena macros into varatt.h, which postgres.h included
 * until 19
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 19 says a case falls through with pg_fallthrough, which GCC's
 * -Wimplicit-fallthrough=5 (19's flags with a newer GCC) requires
 */
#ifndef pg_fallthrough
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define pg_fallthrough __attribute__((fallthrough))
#endif
#endif
#ifndef pg_fallthrough
#define pg_fallthrough ((void) 0)
#endif
#endif

/*
 * 18 replaced pg_attribute_noreturn(), written after a declaration, by
 * pg_noreturn, written before it; GCC and clang take the attribute there too
 */
#if PG_VERSION_NUM < 180000 && !defined(pg_noreturn)
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18 lets a library say its name and version (pg_get_loaded_modules());
 * CHASH_VERSION is chash.control's, from the Makefile
 */
#if PG_VERSION_NUM >= 180000
#define CHASH_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "chash", .version = CHASH_VERSION)
#else
#define CHASH_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/* InitMaterializedSRF() came with 15 */
#if PG_VERSION_NUM < 150000
static inline void
InitMaterializedSRF(FunctionCallInfo fcinfo, bits32 flags)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext oldcxt;
	TupleDesc	tupdesc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));

	oldcxt = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap(true, false, work_mem);
	rsinfo->setDesc = tupdesc;
	MemoryContextSwitchTo(oldcxt);
}
#endif

/* 15 renamed EmitWarningsOnPlaceholders() */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(className) EmitWarningsOnPlaceholders(className)
#endif

/* 16 gave make_range() a context for soft errors */
#if PG_VERSION_NUM < 160000
#define make_range(typcache, lower, upper, empty, escontext) \
	make_range(typcache, lower, upper, empty)
#endif

/*
 * Shared memory for the rings shared across backends (metadata/shared.c).
 * 17 brought the DSM registry, a named segment that any backend makes on
 * first use, without shared_preload_libraries; before, the segment must be
 * asked for at server start (shmem_request_hook from 15, _PG_init on 14).
 * 19 gave the registry's init callback an argument, and names an LWLock
 * tranche once, in shared memory, where each backend registered the name.
 */
#if PG_VERSION_NUM >= 170000
#include "storage/dsm_registry.h"
#define CHASH_HAVE_DSM_REGISTRY 1
#endif
#if PG_VERSION_NUM >= 190000
#define CHASH_DSM_INIT_PARAMS void *ptr, void *arg
#define chash_named_dsm_segment(name, size, init, found) \
	GetNamedDSMSegment(name, size, init, found, NULL)
#elif PG_VERSION_NUM >= 170000
#define CHASH_DSM_INIT_PARAMS void *ptr
#define chash_named_dsm_segment(name, size, init, found) \
	GetNamedDSMSegment(name, size, init, found)
#endif
#if PG_VERSION_NUM >= 150000
#define CHASH_HAVE_SHMEM_REQUEST_HOOK 1
#endif

#include "storage/lwlock.h"

static inline int
chash_lwlock_tranche_new(const char *name)
{
#if PG_VERSION_NUM >= 190000
	return LWLockNewTrancheId(name);
#else
	return LWLockNewTrancheId();
#endif
}

static inline void
chash_lwlock_tranche_register(int tranche, const char *name)
{
#if PG_VERSION_NUM < 190000
	LWLockRegisterTranche(tranche, name);
#endif
}

#endif							/* CHASH_COMPAT_H */
