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

#endif							/* CHASH_COMPAT_H */
