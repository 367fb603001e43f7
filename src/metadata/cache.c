/*-------------------------------------------------------------------------
 *
 * cache.c
 *	  The per-backend cache of built rings.
 *
 * Each backend builds a ring's points once and keeps them in
 * CacheMemoryContext, in a hash table keyed by ring name.  A ring is what a
 * snapshot sees of the catalog tables, so that a statement routes by the
 * ring its snapshot sees, as it would read any table.  What tells which
 * cached ring a snapshot sees is the ring's version (ring_config.version,
 * kept by the catalog's trigger, metadata/triggers.c): a version names one
 * configuration, so a snapshot that sees version v sees the ring built at
 * version v, whoever built it and from whichever snapshot.  Resolving a
 * ring reads its version once per new snapshot, from ring_config's primary
 * key; the ring is built only for a version this backend does not hold.  A
 * change to one ring thus costs every other ring nothing, and a change is
 * seen from the first snapshot that sees it (no window between a commit
 * and its invalidation).
 *
 * Versions do not tell everything apart.  This transaction's own changes keep
 * the version it gave the ring at its first change; a caller whom row-level
 * security shows part of the catalog sees another ring than the version's; and
 * the 1.0 and 1.1 catalogs have no versions.  There the configuration is read
 * (through SPI, with the caller's rights) and its fingerprint
 * (placement/build.c) finds a ring built from the same configuration, or the
 * ring is built.  A ring found by fingerprint with a version that can be
 * trusted learns that version.
 *
 * Callers keep the ring they resolved with chash_cache_generation and use
 * it only while the generation holds: rings are freed only where the
 * generation moves (at the end of a transaction, when a name holds too many
 * rings, when a ring is found gone).  Aborts move it too, since an aborted
 * subtransaction changes what a snapshot sees without changing the
 * snapshot.
 *
 * The read privilege is checked on every resolve, cached or not: a role
 * that may not read the catalog cannot route, whoever built the ring.
 *
 * What a backend keeps is bounded by chash.cache_memory: past it, the
 * rings used longest ago are freed, down to the two used last while a
 * transaction runs (a plan holds two rings at once), down to none between
 * transactions.  Its owner's settings decide what a ring costs, and any
 * role that may read the catalog may make a backend build it, so the bound
 * is the server's (superuser-set), not the reader's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/predicate.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "metadata/cache.h"
#include "metadata/catalog.h"
#include "metadata/shared.h"
#include "metadata/subxact.h"

/* A built ring, and what tells it apart from other rings of its name */
typedef struct CachedRing
{
	ChashPlacement *ring;
	int64		version;		/* the version it was built at, 0 if unknown */
	uint8		fingerprint[16];
	uint64		last_use;		/* use_clock at its last use */
	Size		bytes;			/* memory it holds, shared or its own */
	ChashSharedRef *shared;		/* where it is mapped from shared memory */
	bool		share_later;	/* built in a parallel query, which cannot
								 * share it: shared at the next resolve
								 * outside one */
	struct CachedRing *next;
} CachedRing;

/* At most this many rings of one name, within a transaction; 1 after it */
#define RINGS_PER_NAME	4

typedef struct RingCacheEntry
{
	char		name[NAMEDATALEN];	/* hash key: the ring's name */
	CachedRing *rings;
	int			nrings;
	uint64		last_xact;		/* xact_clock at its last use */

	/* the version last read, and for which snapshot */
	bool		probed;
	ChashSnapshotId probe_snapshot;
	uint64		probe_aborts;
	int64		probe_version;
	bool		probe_own;
} RingCacheEntry;

/* Moved whenever rings that callers may hold are freed */
uint64		chash_cache_generation = 1;

/* Aborts of transactions and subtransactions of this backend */
uint64		chash_abort_count = 0;

/*
 * What routing calls keep between calls of a statement (functions/lookup.c's
 * node texts), outside the cache: bounded by call site, not by
 * chash.cache_memory, and shown beside it
 */
Size		chash_call_memory = 0;

static HTAB *ring_cache = NULL;
static uint64 use_clock = 0;
static uint64 xact_clock = 1;

/* The catalog was invalidated: look whether rings not in use are gone */
static bool sweep_pending = false;

static ChashCacheStats stats;

/* chash.cache_memory, in kB; and the memory the cached rings hold */
static int	cache_memory_kb = 256 * 1024;
static Size cache_bytes = 0;

static void
free_cached_ring(CachedRing *cr)
{
	cache_bytes -= cr->bytes;
	MemoryContextDelete(cr->ring->mcxt);
	if (cr->shared != NULL)
		chash_shared_release(cr->shared);
	pfree(cr);
}

/*
 * Unlink the ring *link points to from entry's list and free it; *link then
 * points to the ring after it.  Pointers handed out for it are stale from
 * here: the generation says so.
 */
static void
entry_drop(RingCacheEntry *entry, CachedRing **link)
{
	CachedRing *cr = *link;

	*link = cr->next;
	free_cached_ring(cr);
	entry->nrings--;
	chash_cache_generation++;
}

/* Free the rings of entry but keep, the most recently used ones */
static void
entry_trim(RingCacheEntry *entry, int keep)
{
	CachedRing **link = &entry->rings;
	int			kept = 0;

	/* rings are in order of use, the latest first */
	while (*link != NULL)
	{
		CachedRing *cr = *link;

		if (kept < keep)
		{
			kept++;
			link = &cr->next;
			continue;
		}
		entry_drop(entry, link);
	}
}

/*
 * Whether a resolve should pass cr by to share its ring now: built in a
 * parallel query (every worker of which built it again), met outside one
 * while sharing is on.
 * A parallel query resolves the rings of its routing calls before it
 * starts (functions/parallel.c), which shares them for its workers.
 */
static inline bool
share_now(const CachedRing *cr)
{
	return cr->share_later && !IsInParallelMode() && chash_shared_rings_usable();
}

static void
entry_remove(RingCacheEntry *entry)
{
	entry_trim(entry, 0);
	hash_search(ring_cache, entry->name, HASH_REMOVE, NULL);
}

/*
 * Free the rings used longest ago until the cached ones fit
 * chash.cache_memory, sparing the 'spare' used last.  Raises no error: it
 * runs at the end of transactions too.
 */
static void
cache_fit_budget(int spare)
{
	Size		budget = (Size) cache_memory_kb * 1024;

	while (ring_cache != NULL && cache_bytes > budget)
	{
		HASH_SEQ_STATUS status;
		RingCacheEntry *entry;
		RingCacheEntry *victim_entry = NULL;
		CachedRing *victim = NULL;
		CachedRing **link;
		int			count = 0;

		hash_seq_init(&status, ring_cache);
		while ((entry = hash_seq_search(&status)) != NULL)
		{
			for (CachedRing *cr = entry->rings; cr != NULL; cr = cr->next)
			{
				count++;
				if (victim == NULL || cr->last_use < victim->last_use)
				{
					victim = cr;
					victim_entry = entry;
				}
			}
		}
		/* uses are numbered one by one: the oldest is not one of the last */
		if (count <= spare)
			return;
		for (link = &victim_entry->rings; *link != victim; link = &(*link)->next)
			;
		entry_drop(victim_entry, link);
		stats.evictions++;
		if (victim_entry->nrings == 0)
			hash_search(ring_cache, victim_entry->name, HASH_REMOVE, NULL);
	}
}

/* Use cr of entry now: to the front */
static void
entry_touch(RingCacheEntry *entry, CachedRing *cr)
{
	CachedRing **link = &entry->rings;

	cr->last_use = ++use_clock;
	entry->last_xact = xact_clock;
	while (*link != cr)
		link = &(*link)->next;
	*link = cr->next;
	cr->next = entry->rings;
	entry->rings = cr;
}

static void
chash_relcache_callback(Datum arg, Oid relid)
{
	if (relid != InvalidOid && !chash_catalog_is_ours(relid))
		return;
	/* the tables may have been dropped: look their OIDs up again */
	chash_catalog_forget_relids();
	sweep_pending = true;
}

static void
chash_xact_callback(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS status;
	RingCacheEntry *entry;

	switch (event)
	{
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			chash_abort_count++;
			chash_cache_generation++;
			pg_fallthrough;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			xact_clock++;
			if (ring_cache == NULL)
				break;
			/* between transactions, one ring a name */
			hash_seq_init(&status, ring_cache);
			while ((entry = hash_seq_search(&status)) != NULL)
			{
				if (entry->nrings > 1)
					entry_trim(entry, 1);
				entry->probed = false;
			}
			cache_fit_budget(0);
			break;
		default:
			break;
	}
}

static void
chash_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		chash_abort_count++;
		chash_cache_generation++;
	}
}

/* Called once per backend from _PG_init */
void
chash_cache_init(void)
{
	DefineCustomIntVariable("chash.cache_memory",
							"Memory of built rings a backend keeps.",
							"Past it, the rings used longest ago are freed: "
							"down to the two used last within a transaction, "
							"to none between transactions.",
							&cache_memory_kb,
							256 * 1024, 0, MAX_KILOBYTES,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	chash_shared_init();
	MarkGUCPrefixReserved("chash");
	CacheRegisterRelcacheCallback(chash_relcache_callback, (Datum) 0);
	RegisterXactCallback(chash_xact_callback, NULL);
	RegisterSubXactCallback(chash_subxact_callback, NULL);
}

static void
ring_cache_create(void)
{
	HASHCTL		ctl;

	if (CacheMemoryContext == NULL)
		CreateCacheMemoryContext();

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(RingCacheEntry);
	ctl.hcxt = CacheMemoryContext;
	ring_cache = hash_create("chash rings", 16, &ctl,
							 HASH_ELEM | HASH_CONTEXT | HASH_STRINGS);
}

/*
 * After an invalidation of the catalog: free the rings of names this
 * transaction has not used whose ring snap no longer sees at the version
 * held (dropped, renamed, or changed), so that a backend does not keep
 * rings nobody will route by.  One read of a version a name.
 */
static void
sweep_gone_rings(Snapshot snap, const char *except)
{
	HASH_SEQ_STATUS status;
	RingCacheEntry *entry;

	sweep_pending = false;
	hash_seq_init(&status, ring_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		int64		version;
		bool		own;
		bool		held = false;

		if (entry->last_xact == xact_clock || strcmp(entry->name, except) == 0)
			continue;
		stats.version_reads++;
		if (chash_catalog_probe(entry->name, strlen(entry->name), snap,
								&version, &own))
		{
			for (CachedRing *cr = entry->rings; cr != NULL; cr = cr->next)
				held |= cr->version == version;
		}
		if (!held)
			entry_remove(entry);
	}
}

/*
 * Under SERIALIZABLE, routing reads the catalog as far as conflicts go:
 * predicate locks on both tables, as a SELECT on them would take, even when
 * the ring comes from the cache.
 */
static void
predicate_lock_catalog(Snapshot snap)
{
	const char *tables[2] = {CHASH_RING_TABLE, CHASH_NODE_TABLE};

	for (int i = 0; i < lengthof(tables); i++)
	{
		Relation	rel = table_open(chash_catalog_relid(tables[i]),
									 AccessShareLock);

		PredicateLockRelation(rel, snap);
		table_close(rel, AccessShareLock);
	}
}

/* The entry of a ring name, new if need be, marked as used now */
static RingCacheEntry *
entry_enter(const char *key)
{
	bool		found;
	RingCacheEntry *entry = hash_search(ring_cache, key, HASH_ENTER, &found);

	if (!found)
	{
		entry->rings = NULL;
		entry->nrings = 0;
		entry->probed = false;
	}
	entry->last_xact = xact_clock;
	return entry;
}

static void
error_no_such_ring(const char *name, int len)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("ring \"%s\" does not exist", chash_message_name(name, len)),
			 len < 1 || len > CHASH_MAX_RING_NAME ?
			 errdetail("Ring names are 1 to %d bytes long.", CHASH_MAX_RING_NAME) : 0,
			 errhint("Create it with chash_ring_create().")));
}

/*
 * The ring name as a key of the cache (NUL-terminated, into key of
 * NAMEDATALEN bytes), after checking that the current user may read the
 * catalog: what every read of a ring, cached or not, starts with
 */
static void
ring_key_for_reader(const char *name, int len, char *key)
{
	if (len < 1 || len > CHASH_MAX_RING_NAME)
		error_no_such_ring(name, len);
	memcpy(key, name, len);
	key[len] = '\0';
	chash_catalog_check_read(key);
}

/*
 * The version of the ring that snap sees, as the entry remembers it or as
 * read now; false if there is none to go by.
 */
static bool
ring_version(RingCacheEntry *entry, const char *name, Snapshot snap,
			 int64 *version, bool *own)
{
	ChashSnapshotId id;

	chash_snapshot_id_set(&id, snap);
	if (entry->probed && entry->probe_aborts == chash_abort_count &&
		chash_snapshot_ids_equal(&entry->probe_snapshot, &id))
	{
		*version = entry->probe_version;
		*own = entry->probe_own;
		return true;
	}
	stats.version_reads++;
	if (!chash_catalog_probe(name, strlen(name), snap, version, own))
		return false;
	entry->probed = true;
	entry->probe_snapshot = id;
	entry->probe_aborts = chash_abort_count;
	entry->probe_version = *version;
	entry->probe_own = *own;
	return true;
}

/*
 * The ring of that name (len bytes, not NUL-terminated) as snap, the active
 * snapshot, sees it; valid while chash_cache_generation equals *generation.
 * An error if there is no such ring, if it cannot be built, or if the
 * current user may not read the catalog.
 */
static const ChashPlacement *
resolve_ring(const char *name, int len, Snapshot snap, uint64 *generation)
{
	char		key[NAMEDATALEN];
	RingCacheEntry *entry;
	bool		rls;
	bool		by_version = false;
	int64		version = 0;
	bool		own = false;
	MemoryContext buildcxt;
	MemoryContext oldcxt;
	ChashRingSpec *spec;
	uint8		fingerprint[16];
	CachedRing *cr;

	ring_key_for_reader(name, len, key);
	/* serializable transactions must see ring changes as conflicts */
	if (IsolationIsSerializable())
		predicate_lock_catalog(snap);
	rls = chash_catalog_rls_applies();

	if (ring_cache == NULL)
		ring_cache_create();
	/* (without versions, rings are checked on every use instead) */
	if (sweep_pending && chash_catalog_version_attnum() != InvalidAttrNumber)
		sweep_gone_rings(snap, key);
	entry = entry_enter(key);

	/*
	 * Whom row-level security shows part of the catalog, the version would
	 * tell nothing (and must tell nothing of rows it hides)
	 */
	if (!rls && chash_catalog_version_attnum() != InvalidAttrNumber)
	{
		if (!ring_version(entry, key, snap, &version, &own))
		{
			entry_remove(entry);
			error_no_such_ring(name, len);
		}
		/* (0, the column's default, is what no trigger set: trust nothing) */
		by_version = !own && version > 0;
		for (cr = entry->rings; by_version && cr != NULL; cr = cr->next)
		{
			if (cr->version == version && !share_now(cr))
			{
				entry_touch(entry, cr);
				*generation = chash_cache_generation;
				return cr->ring;
			}
		}
	}

	/* read the configuration, and find or build its ring */
	buildcxt = AllocSetContextCreate(CurrentMemoryContext, "chash ring build",
									 ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(buildcxt);
	stats.config_reads++;
	spec = chash_catalog_read_ring(key, false);
	if (spec == NULL)
	{
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(buildcxt);
		/* entry may be gone: the catalog read may have swept it */
		entry = hash_search(ring_cache, key, HASH_FIND, NULL);
		if (entry != NULL && entry->nrings == 0)
			entry_remove(entry);
		error_no_such_ring(name, len);
	}
	if (by_version && spec->version != version)
		by_version = false;		/* cannot be, but then trust neither */
	chash_ring_spec_fingerprint(spec, fingerprint);

	/* the catalog read can run routing calls, which may change the cache */
	entry = entry_enter(key);
	for (cr = entry->rings; cr != NULL; cr = cr->next)
	{
		if (memcmp(cr->fingerprint, fingerprint, sizeof(fingerprint)) == 0 &&
			!share_now(cr))
			break;
	}
	if (cr == NULL)
	{
		CachedRing **link;
		ChashSharedRef *shared;
		bool		built;
		ChashPlacement *ring = chash_shared_placement(spec, fingerprint,
													  buildcxt, &shared,
													  &built);

		if (built)
			stats.builds++;
		/*
		 * the build ran no SQL (sharing it, at most a subtransaction, which
		 * changes no entry): entry still stands
		 */
		MemoryContextSetParent(ring->mcxt, CacheMemoryContext);
		cr = MemoryContextAllocZero(CacheMemoryContext, sizeof(CachedRing));
		cr->ring = ring;
		cr->shared = shared;
		cr->bytes = MemoryContextMemAllocated(ring->mcxt, true);
		if (shared != NULL)
			cr->bytes += chash_shared_ref_bytes(shared);
		cache_bytes += cr->bytes;
		memcpy(cr->fingerprint, fingerprint, sizeof(fingerprint));
		cr->share_later = shared == NULL && built && IsInParallelMode() &&
			spec->algorithm->kind == CHASH_PLACEMENT_POINTS &&
			chash_shared_rings_usable();
		cr->next = entry->rings;
		entry->rings = cr;
		entry->nrings++;
		/* the copy built in a parallel query, shared now: free it */
		for (link = &cr->next; *link != NULL;)
		{
			CachedRing *old = *link;

			if (share_now(old) &&
				memcmp(old->fingerprint, fingerprint, sizeof(fingerprint)) == 0)
				entry_drop(entry, link);
			else
				link = &old->next;
		}
	}
	if (by_version)
		cr->version = version;
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(buildcxt);

	entry_touch(entry, cr);
	if (entry->nrings > RINGS_PER_NAME)
		entry_trim(entry, RINGS_PER_NAME);
	cache_fit_budget(2);
	*generation = chash_cache_generation;
	return cr->ring;
}

const ChashPlacement *
chash_cache_get_ring(const char *name, int len, Snapshot snap,
					 uint64 *generation)
{
	return resolve_ring(name, len, snap, generation);
}

/*
 * Whether an error says something of the ring rather than of the server:
 * what a view reports as the ring's problem instead of failing.  The
 * errors a ring's build raises for its configuration, and no others (not
 * a lock timeout, not a policy's own error).
 */
static bool
is_ring_problem(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
		sqlerrcode == ERRCODE_INVALID_PARAMETER_VALUE ||
		sqlerrcode == ERRCODE_CHARACTER_NOT_IN_REPERTOIRE ||
		sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE ||
		sqlerrcode == ERRCODE_UNDEFINED_OBJECT;
}

/*
 * For the views, which must show every ring, a bad one too, and cost their
 * reader nothing of the rings' sizes: the configuration of the ring the
 * active snapshot sees, checked as far as a build would check it (its
 * points counted, into *node_points for a ring of points, NULL otherwise)
 * but not built, whether cached or not.  NULL, and in *problem why, if the
 * ring could not be built.  Errors of another kind (a cancel, no
 * privilege) are errors.  Runs in a subtransaction, which parallel mode
 * allows none of: there (the 1.1 catalog declares the views' functions
 * PARALLEL SAFE) every error is one.
 */
static const ChashRingSpec *
check_ring(const char *name, int len, int64 **node_points)
{
	char		key[NAMEDATALEN];
	ChashRingSpec *spec;

	ring_key_for_reader(name, len, key);
	stats.config_reads++;
	spec = chash_catalog_read_ring(key, false);
	if (spec == NULL)
		error_no_such_ring(name, len);
	*node_points = NULL;
	if (spec->algorithm->kind == CHASH_PLACEMENT_POINTS)
	{
		*node_points = palloc(sizeof(int64) * Max(spec->nnodes, 1));
		chash_ring_count_points(spec, *node_points);
	}
	return spec;
}

typedef struct CheckRingArgs
{
	const char *name;
	int			len;
	int64	  **node_points;
	const ChashRingSpec *spec;	/* out */
} CheckRingArgs;

static void
check_ring_caught(void *arg)
{
	CheckRingArgs *args = arg;

	args->spec = check_ring(args->name, args->len, args->node_points);
}

static bool
error_is_ring_problem(const ErrorData *edata)
{
	return is_ring_problem(edata->sqlerrcode);
}

const ChashRingSpec *
chash_cache_check_ring(const char *name, int len, int64 **node_points,
					   char **problem)
{
	CheckRingArgs args = {name, len, node_points, NULL};
	ErrorData  *edata;

	*problem = NULL;
	edata = chash_run_caught(check_ring_caught, &args, error_is_ring_problem);
	if (edata != NULL)
	{
		*problem = edata->message;
		*node_points = NULL;
		return NULL;
	}
	return args.spec;
}

/* What the cache holds, and how often it has built rings */
void
chash_cache_stats(ChashCacheStats *out)
{
	*out = stats;
	out->memory = cache_bytes;
	out->call_memory = chash_call_memory;
	chash_trigger_stats(&out->full_checks, &out->delta_checks);
	out->rings = 0;
	out->cached = 0;
	if (ring_cache != NULL)
	{
		HASH_SEQ_STATUS status;
		RingCacheEntry *entry;

		hash_seq_init(&status, ring_cache);
		while ((entry = hash_seq_search(&status)) != NULL)
		{
			if (entry->nrings > 0)
				out->rings++;
			out->cached += entry->nrings;
		}
	}
}
