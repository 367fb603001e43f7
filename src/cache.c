/*-------------------------------------------------------------------------
 *
 * cache.c
 *	  The per-backend cache of built rings.
 *
 * Each backend builds a ring's points once and keeps them in
 * CacheMemoryContext, in a hash table keyed by ring name.  The pattern is
 * Citus's metadata cache: triggers on the catalog tables invalidate their
 * relcache entries (catalog.c); our relcache callback bumps
 * chash_cache_generation, which makes every cached ring stale; the next use
 * of a ring rebuilds it.  Callers keep the ring they resolved with its
 * generation, and use it only while the generation holds.
 *
 * A ring is what a snapshot sees of the catalog tables, so that a statement
 * routes by the ring its snapshot sees, as it would read any table.  Most
 * statements run with a current snapshot: one that sees every change whose
 * invalidation this backend has processed.  All of them see the same ring,
 * which is built once and shared ("latest").  Older snapshots (a cursor's,
 * a repeatable read transaction's, a statement's that an invalidation
 * overtook) may see less: they get rings built from and bound to their
 * own snapshot ("bound"), kept until the end of the transaction.
 *
 * Whether a snapshot is current is decided against a reference snapshot,
 * taken (lazily) after the last invalidation was processed, which sees
 * every change whose invalidation has been processed: a commit is visible
 * before its invalidation is sent, and our own changes are processed at
 * command boundaries.  A snapshot is current if it sees all the reference
 * sees: its xmax is not behind the reference's, none of the transactions
 * it has as running had ended for the reference, and within the
 * transaction of the reference its command id is not behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "chash.h"

/* A bound ring: built from one snapshot, for that snapshot only */
typedef struct BoundRing
{
	ChashSnapshotId snapshot;
	ChashRing  *ring;
	struct BoundRing *next;
} BoundRing;

typedef struct RingCacheEntry
{
	char		name[NAMEDATALEN];	/* hash key: the ring's name */
	uint64		generation;		/* chash_cache_generation of the rings */
	ChashRing  *latest;			/* as current snapshots see it, or NULL */
	BoundRing  *bound;			/* as older snapshots see it */
} RingCacheEntry;

/* Bumped by every invalidation; 0 is never a valid generation */
uint64		chash_cache_generation = 1;

static HTAB *ring_cache = NULL;

/* The generation whose stale rings have been freed */
static uint64 swept_generation = 0;

/* Builds since the backend started, for chash.cache_stats() */
static int64 latest_builds = 0;
static int64 bound_builds = 0;

/* Some entry has bound rings, to be freed at the end of the transaction */
static bool have_bound_rings = false;

/*
 * The reference snapshot: what a current snapshot must see at least.  Its
 * running transactions are kept sorted (with a recovery snapshot's
 * subtransactions, which is where recovery keeps them).
 */
static bool ref_valid = false;
static TransactionId ref_xmax;
static TransactionId *ref_running = NULL;
static int	ref_nrunning;
static CommandId ref_curcid;
static LocalTransactionId ref_lxid;

#if PG_VERSION_NUM >= 170000
#define MyLocalTransactionId()	(MyProc->vxid.lxid)
#else
#define MyLocalTransactionId()	(MyProc->lxid)
#endif

static void
take_reference_snapshot(void)
{
	Snapshot	latest = GetLatestSnapshot();
	int			n = latest->xcnt;
	TransactionId *running;

	if (latest->takenDuringRecovery)
		n += latest->subxcnt;
	running = MemoryContextAlloc(TopMemoryContext,
								 sizeof(TransactionId) * Max(n, 1));
	if (ref_running != NULL)
		pfree(ref_running);
	ref_running = running;
	memcpy(ref_running, latest->xip, sizeof(TransactionId) * latest->xcnt);
	if (latest->takenDuringRecovery)
		memcpy(ref_running + latest->xcnt, latest->subxip,
			   sizeof(TransactionId) * latest->subxcnt);
	qsort(ref_running, n, sizeof(TransactionId), xidComparator);
	ref_nrunning = n;
	ref_xmax = latest->xmax;
	ref_curcid = latest->curcid;
	ref_lxid = MyLocalTransactionId();
	ref_valid = true;
}

static bool
xid_running_in_reference(TransactionId xid)
{
	return bsearch(&xid, ref_running, ref_nrunning, sizeof(TransactionId),
				   xidComparator) != NULL;
}

/*
 * Whether snap sees every change whose invalidation has been processed.
 * Without a reference, in parallel mode (where none can be taken), no
 * snapshot counts as current.
 */
static bool
snapshot_is_current(Snapshot snap)
{
	if (ref_valid && (int32) (snap->xmax - ref_xmax) > (1 << 30))
	{
		/* so old that xid comparisons would soon wrap: take a new one */
		ref_valid = false;
	}
	if (!ref_valid)
	{
		if (IsInParallelMode())
			return false;
		take_reference_snapshot();
	}

	if (TransactionIdPrecedes(snap->xmax, ref_xmax))
		return false;
	if (ref_lxid == MyLocalTransactionId() && snap->curcid < ref_curcid)
		return false;

	/*
	 * A transaction that had ended for the reference must have ended for
	 * snap.  In recovery a snapshot lists its running transactions among
	 * subxip, where an overflow may leave out subtransactions but never a
	 * top-level transaction, which is what decides visibility.
	 */
	for (uint32 i = 0; i < snap->xcnt; i++)
	{
		if (TransactionIdPrecedes(snap->xip[i], ref_xmax) &&
			!xid_running_in_reference(snap->xip[i]))
			return false;
	}
	if (snap->takenDuringRecovery)
	{
		for (int32 i = 0; i < snap->subxcnt; i++)
		{
			if (TransactionIdPrecedes(snap->subxip[i], ref_xmax) &&
				!xid_running_in_reference(snap->subxip[i]))
				return false;
		}
	}
	return true;
}

/*
 * The key of a ring bound to snap.  Snapshots that differ only in command
 * ids beyond the last of this transaction's own ring changes see the same
 * rings: such a change is followed by an invalidation, after which the
 * reference is taken, so every one of them has a command id below the
 * reference's.  Without one in this transaction, the command id does not
 * matter at all.
 */
static void
bound_key(ChashSnapshotId *key, Snapshot snap)
{
	chash_snapshot_id_set(key, snap);
	if (!ref_valid)
		return;
	if (ref_lxid != MyLocalTransactionId())
		key->curcid = FirstCommandId;
	else if (key->curcid > ref_curcid)
		key->curcid = ref_curcid;
}

static void
chash_relcache_callback(Datum arg, Oid relid)
{
	if (relid != InvalidOid && !chash_catalog_is_ours(relid))
		return;

	chash_cache_generation++;
	/* the tables may have been dropped: look their OIDs up again */
	chash_catalog_forget_relids();
	/* a current snapshot must now see this change too */
	ref_valid = false;
}

static void
free_bound_rings(RingCacheEntry *entry)
{
	while (entry->bound != NULL)
	{
		BoundRing  *b = entry->bound;

		entry->bound = b->next;
		MemoryContextDelete(b->ring->mcxt);
		pfree(b);
	}
}

/*
 * Free the rings of stale entries, and with all_bound every bound ring.
 * Safe only where no caller holds a ring it has not checked against the
 * current generation: callers check before every use.
 */
static void
ring_cache_sweep(bool all_bound)
{
	HASH_SEQ_STATUS status;
	RingCacheEntry *entry;

	hash_seq_init(&status, ring_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (entry->generation == chash_cache_generation && !all_bound)
			continue;
		free_bound_rings(entry);
		if (entry->generation != chash_cache_generation)
		{
			if (entry->latest != NULL)
				MemoryContextDelete(entry->latest->mcxt);
			hash_search(ring_cache, entry->name, HASH_REMOVE, NULL);
		}
	}
	swept_generation = chash_cache_generation;
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
			if (ring_cache == NULL)
				break;
			/* bound rings die with their snapshots; holders must look again */
			if (have_bound_rings)
			{
				chash_cache_generation++;
				have_bound_rings = false;
			}
			if (swept_generation != chash_cache_generation)
				ring_cache_sweep(true);
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

/* The ring of entry that a snapshot (current, or with that key) may use */
static ChashRing *
entry_ring_for(RingCacheEntry *entry, bool current, const ChashSnapshotId *key)
{
	if (entry->generation != chash_cache_generation)
		return NULL;
	if (current)
		return entry->latest;
	for (BoundRing *b = entry->bound; b != NULL; b = b->next)
	{
		if (chash_snapshot_ids_equal(&b->snapshot, key))
			return b->ring;
	}
	return NULL;
}

/*
 * Build the ring as snap (the active snapshot) sees it, and keep it: as
 * the latest ring if snap is current, else bound to snap.
 */
static ChashRing *
ring_cache_build(const char *name, bool current, const ChashSnapshotId *key)
{
	uint64		gen = chash_cache_generation;
	MemoryContext buildcxt;
	MemoryContext oldcxt;
	ChashRingSpec *spec;
	ChashRing  *ring;
	ChashRing  *kept;
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
	if (current)
		latest_builds++;
	else
		bound_builds++;

	/*
	 * Reading the catalog may have processed invalidations: then the ring
	 * is already stale, and only this call uses it.
	 */
	entry = hash_search(ring_cache, name, HASH_ENTER, &found);
	if (!found)
	{
		entry->generation = gen;
		entry->latest = NULL;
		entry->bound = NULL;
	}
	if (gen != chash_cache_generation)
	{
		/* leave it in the build context, freed with the caller's memory */
		return ring;
	}
	if (entry->generation != gen)
	{
		/* left from an older generation: nobody may use its rings */
		free_bound_rings(entry);
		if (entry->latest != NULL)
			MemoryContextDelete(entry->latest->mcxt);
		entry->latest = NULL;
		entry->generation = gen;
	}

	/* a routing call inside the catalog read may have built it already */
	kept = entry_ring_for(entry, current, key);
	if (kept != NULL)
	{
		MemoryContextDelete(buildcxt);
		return kept;
	}

	if (current)
	{
		MemoryContextSetParent(ring->mcxt, CacheMemoryContext);
		entry->latest = ring;
	}
	else
	{
		BoundRing  *b = MemoryContextAlloc(CacheMemoryContext, sizeof(BoundRing));

		MemoryContextSetParent(ring->mcxt, CacheMemoryContext);
		b->snapshot = *key;
		b->ring = ring;
		b->next = entry->bound;
		entry->bound = b;
		have_bound_rings = true;
	}
	MemoryContextDelete(buildcxt);
	return ring;
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

/*
 * The ring of that name (len bytes, not NUL-terminated) as snap, the active
 * snapshot, sees it; valid while chash_cache_generation equals *generation.
 * An error if there is no such ring.
 */
const ChashRing *
chash_cache_get_ring(const char *name, int len, Snapshot snap,
					 uint64 *generation)
{
	char		key[NAMEDATALEN];
	RingCacheEntry *entry;
	ChashRing  *ring = NULL;
	bool		current;
	ChashSnapshotId snapkey;

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
		ring_cache_sweep(false);

	/* serializable transactions must see ring changes as conflicts */
	if (IsolationIsSerializable())
		predicate_lock_catalog(snap);

	current = snapshot_is_current(snap);
	bound_key(&snapkey, snap);
	*generation = chash_cache_generation;
	entry = hash_search(ring_cache, key, HASH_FIND, NULL);
	if (entry != NULL)
		ring = entry_ring_for(entry, current, &snapkey);
	if (ring == NULL)
		ring = ring_cache_build(key, current, &snapkey);
	return ring;
}

/* What the cache holds, and how often it has built rings */
void
chash_cache_stats(int *rings, int *bound_rings, int64 *latest, int64 *bound)
{
	*rings = 0;
	*bound_rings = 0;
	if (ring_cache != NULL)
	{
		HASH_SEQ_STATUS status;
		RingCacheEntry *entry;

		hash_seq_init(&status, ring_cache);
		while ((entry = hash_seq_search(&status)) != NULL)
		{
			if (entry->generation != chash_cache_generation)
				continue;
			if (entry->latest != NULL)
				(*rings)++;
			for (BoundRing *b = entry->bound; b != NULL; b = b->next)
				(*bound_rings)++;
		}
	}
	*latest = latest_builds;
	*bound = bound_builds;
}
