/*-------------------------------------------------------------------------
 *
 * call_ring.h
 *	  The ring a SQL function's first argument names, resolved once a
 *	  statement and kept in its FmgrInfo (functions/lookup.c); and the
 *	  rings of a parallel query's routing calls, resolved before its
 *	  workers start (functions/parallel.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_CALL_RING_H
#define CHASH_CALL_RING_H

#include "fmgr.h"

#include "placement/placement.h"

extern const ChashPlacement *chash_call_ring(FunctionCallInfo fcinfo);
extern bool chash_is_routing_function(PGFunction fn);
extern void chash_parallel_init(void);

#endif							/* CHASH_CALL_RING_H */
