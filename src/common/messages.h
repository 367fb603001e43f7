/*-------------------------------------------------------------------------
 *
 * messages.h
 *	  What chash's errors share (messages.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_MESSAGES_H
#define CHASH_MESSAGES_H

#include "common/compat.h"

/* Names in messages: longer ones are cut to this many bytes and "..." */
#define CHASH_MESSAGE_NAME_BYTES	64

extern const char *chash_message_name(const char *name, int len);
pg_noreturn extern void chash_error_unknown(const char *what, const char *plural,
											const char *name, int count,
											const char *(*name_at) (int));

#endif							/* CHASH_MESSAGES_H */
