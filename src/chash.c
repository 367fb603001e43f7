/*-------------------------------------------------------------------------
 *
 * chash.c
 *	  Module set-up of the chash extension.
 *
 * chash needs no shared_preload_libraries: what it keeps is set up when
 * the library is first loaded.  Only sharing rings across backends on
 * PostgreSQL 14 to 16 needs it (metadata/shared.c), for the shared memory
 * that must be asked for at server start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "functions/call_ring.h"
#include "metadata/cache.h"

CHASH_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	chash_cache_init();
	chash_triggers_init();
	chash_parallel_init();
}
