/*-------------------------------------------------------------------------
 *
 * chash.c
 *	  Module set-up of the chash extension.
 *
 * chash needs no shared_preload_libraries: everything it keeps is per
 * backend, set up when the library is first loaded.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "metadata/cache.h"

CHASH_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	chash_cache_init();
	chash_triggers_init();
}
