/*-------------------------------------------------------------------------
 *
 * cache.c
 *	  The per-backend cache of built rings.
 *
 * Each backend builds a ring's points once and keeps them in
 * CacheMemoryContext, in a hash table keyed by ring name.  The pattern is
 * Citus's metadata cache: triggers on the catalog tables invalidate their
 * relcache entries (catalog.c); our relcache callback bumps
 * chash_cache_generation, which makes every entry stale; the next use of a
 * ring rebuilds it.  Callers keep the ring they resolved with the
 * generation it belongs to, and use it only while the generation holds.
 *
 * A ring is built from the catalog as the active snapshot sees it, so a
 * statement sees one state of a ring throughout, like any table it reads.
 * For an entry to be reused by later statements it must also be the latest
 * state: that holds when the snapshot it was built from was taken after the
 * last invalidation this backend processed.  An invalidation processed
 * after the transaction took its first snapshot (a concurrent commit seen
 * mid-transaction, or our own change) may leave an entry built from an
 * older snapshot; such entries serve the rest of the transaction and are
 * dropped at its end.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/catcache.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "chash.h"

typedef struct RingCacheEntry
{
	char		name[NAMEDATALEN];	/* hash key: the ring's name */
	uint64		generation;		/* chash_cache_generation it was built at */
	ChashRing  *ring;
} RingCacheEntry;

/* Bumped by every invalidation; 0 is never a valid generation */
uint64		chash_cache_generation = 1;

static HTAB *ring_cache = NULL;

/* The generation whose stale entries have been freed */
static uint64 swept_generation = 0;

/* This transaction processed an invalidation after its first snapshot */
static bool inval_after_snapshot = false;

/* ... and then built an entry, which may be older than the latest state */
static bool built_after_inval = false;

static void
chash_relcache_callback(Datum arg, Oid relid)
{
	if (relid != InvalidOid && !chash_catalog_is_ours(relid))
		return;

	chash_cache_generation++;
	/* the tables may have been dropped: look their OIDs up again */
	chash_catalog_forget_relids();
	if (FirstSnapshotSet)
		inval_after_snapshot = true;
}

static void
chash_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			if (built_after_inval)
				chash_cache_generation++;
			built_after_inval = false;
			inval_after_snapshot = false;
			break;
		default:
			break;
	}
}

/* Called once per backend from _PG_init */
void
chash_cache_init(void)
{
	CacheRegisterRelcacheCallback(chash_relcache_callback, (Datum) 0);
	RegisterXactCallback(chash_xact_callback, NULL);
}

static void
ring_cache_create(void)
{
	HASHCTL		ctl;
	int			flags = HASH_ELEM | HASH_CONTEXT;

	if (CacheMemoryContext == NULL)
		CreateCacheMemoryContext();

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(RingCacheEntry);
	ctl.hcxt = CacheMemoryContext;
#if PG_VERSION_NUM >= 140000
	flags |= HASH_STRINGS;
#endif
	ring_cache = hash_create("chash rings", 16, &ctl, flags);
}

/*
 * Free the rings of stale entries.  Safe because nobody uses a ring past
 * its generation: holders compare generations before every use.
 */
static void
ring_cache_sweep(void)
{
	HASH_SEQ_STATUS status;
	RingCacheEntry *entry;

	hash_seq_init(&status, ring_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (entry->generation == chash_cache_generation)
			continue;
		if (entry->ring != NULL)
			MemoryContextDelete(entry->ring->mcxt);
		hash_search(ring_cache, entry->name, HASH_REMOVE, NULL);
	}
	swept_generation = chash_cache_generation;
}

static ChashRing *
ring_cache_build(const char *name, uint64 *generation)
{
	uint64		gen = chash_cache_generation;
	MemoryContext buildcxt;
	MemoryContext oldcxt;
	ChashRingSpec *spec;
	ChashRing  *ring;
	RingCacheEntry *entry;
	bool		found;

	buildcxt = AllocSetContextCreate(CurrentMemoryContext, "chash ring build",
									 ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(buildcxt);
	spec = chash_catalog_read_ring(name, false);
	if (spec == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ring \"%s\" does not exist", name),
				 errhint("Create it with chash_ring_create().")));
	ring = chash_ring_build(spec, buildcxt);
	MemoryContextSwitchTo(oldcxt);

	/* complete: only now does it become part of the cache */
	MemoryContextSetParent(ring->mcxt, CacheMemoryContext);
	MemoryContextDelete(buildcxt);

	entry = hash_search(ring_cache, name, HASH_ENTER, &found);
	if (found && entry->ring != NULL)
		MemoryContextDelete(entry->ring->mcxt);
	entry->ring = ring;
	entry->generation = gen;
	if (inval_after_snapshot)
		built_after_inval = true;

	*generation = gen;
	return ring;
}

/*
 * The built ring of that name (len bytes, not NUL-terminated), valid while
 * chash_cache_generation equals *generation; an error if there is no such
 * ring.
 */
const ChashRing *
chash_cache_get_ring(const char *name, int len, uint64 *generation)
{
	char		key[NAMEDATALEN];
	RingCacheEntry *entry;

	if (len < 1 || len > CHASH_MAX_RING_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ring \"%.*s\" does not exist", len, name),
				 errdetail("Ring names are 1 to %d bytes long.",
						   CHASH_MAX_RING_NAME)));
	memcpy(key, name, len);
	key[len] = '\0';

	if (ring_cache == NULL)
		ring_cache_create();
	if (swept_generation != chash_cache_generation)
		ring_cache_sweep();

	entry = hash_search(ring_cache, key, HASH_FIND, NULL);
	if (entry != NULL && entry->generation == chash_cache_generation)
	{
		*generation = entry->generation;
		return entry->ring;
	}
	return ring_cache_build(key, generation);
}
