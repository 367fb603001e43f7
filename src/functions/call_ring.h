/*-------------------------------------------------------------------------
 *
 * call_ring.h
 *	  The ring a SQL function's first argument names, resolved once a
 *	  statement and kept in its FmgrInfo (functions/lookup.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_CALL_RING_H
#define CHASH_CALL_RING_H

#include "fmgr.h"

#include "placement/placement.h"

extern const ChashPlacement *chash_call_ring(FunctionCallInfo fcinfo);

#endif							/* CHASH_CALL_RING_H */
