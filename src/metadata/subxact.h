/*-------------------------------------------------------------------------
 *
 * subxact.h
 *	  Errors caught in a subtransaction (metadata/subxact.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_SUBXACT_H
#define CHASH_SUBXACT_H

extern ErrorData *chash_run_caught(void (*fn) (void *arg), void *arg,
								   bool (*catchable) (const ErrorData *edata));
extern bool chash_error_not_cancel(const ErrorData *edata);

#endif							/* CHASH_SUBXACT_H */
