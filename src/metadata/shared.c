/*-------------------------------------------------------------------------
 *
 * shared.c
 *	  Rings shared across backends.
 *
 * A ring of points is built once per database and configuration, copied
 * into a dynamic shared memory segment of its own as one block without
 * pointers (placement/build.c's flat form), and mapped read-only by every
 * backend and parallel worker that routes by it, instead of each building
 * its own copy (a 4,194,304-point ring is 42 MB and a third of a second).
 *
 * What finds a shared ring is what finds a cached one when its version
 * cannot: the fingerprint of the configuration the backend read from the
 * catalog, with the caller's snapshot and rights (metadata/cache.c).  Two
 * configurations of one fingerprint build the same ring, so a backend maps
 * exactly the ring it would have built: the snapshot rules, the read
 * privilege and row-level security, a transaction's own changes and the
 * 1.0 and 1.1 catalogs are the cache's, unchanged.  A ring that another
 * backend's policies show differently has another fingerprint.
 *
 * A table of entries, in a small control segment, names the shared rings
 * (database, ring name, fingerprint).  The first backend that misses a ring
 * claims its entry and builds it, holding no lock; others wait for it (up
 * to CHASH_SHARED_WAIT_MS) on a condition variable, or build on their own
 * if it takes longer.  A build that fails, is cancelled, or whose backend
 * exits gives its entry up.  Each backend that maps a ring counts itself
 * in the entry and leaves it when its cache frees the ring or it exits; the
 * last one to leave frees the segment.
 *
 * Shared memory is the server's: its total is bounded by chash.shared_memory,
 * and anything that keeps a ring from being shared (no control segment on
 * 14 to 16 without shared_preload_libraries, the bound, a full /dev/shm, a
 * parallel query that meets a ring no one shared yet) leaves the backend to
 * build its own, as without sharing, with the reason counted.  Making and
 * mapping segments can fail with an error; that runs in a subtransaction,
 * whose abort releases what the failure held.  Parallel mode allows no
 * subtransaction: there rings are only mapped (a mapping fails only where
 * the kernel refuses an mmap), never made.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "common/compat.h"
#include "metadata/shared.h"
#include "metadata/subxact.h"

/* Entries of the table: rings shared at once, all databases together */
#define CHASH_SHARED_RINGS 256

/* How long a backend waits for another's build before building its own */
#define CHASH_SHARED_WAIT_MS 10000

#define CHASH_SHARED_NAME "chash_shared_rings"

typedef enum SharedRingState
{
	SHARED_FREE = 0,
	SHARED_BUILDING,
	SHARED_READY
} SharedRingState;

typedef struct SharedRing
{
	SharedRingState state;
	uint64		serial;			/* tells an entry's uses apart */
	Oid			dbid;
	char		name[NAMEDATALEN];
	uint8		fingerprint[16];
	int64		version;
	int			builder;		/* PID of the backend building it */
	dsm_handle	handle;
	Size		bytes;			/* reserved from chash.shared_memory */
	int			backends;		/* backends that hold it (READY) */
	int64		maps;
	int64		builds;			/* of it in all backends, shared or not */
	TimestampTz built_at;
} SharedRing;

typedef struct SharedRingsControl
{
	LWLock		lock;			/* everything below */
	int			tranche;
	ConditionVariable built;	/* an entry became ready or free */
	uint64		next_serial;
	Size		bytes;
	int64		builds;
	int64		maps;
	int64		fallbacks[CHASH_SHARED_NFALLBACKS];
	char		last_error[256];
	SharedRing	rings[CHASH_SHARED_RINGS];
} SharedRingsControl;

struct ChashSharedRef
{
	dlist_node	node;			/* in held */
	int			slot;
	uint64		serial;
	dsm_segment *seg;
	Size		bytes;
};

const char *const chash_shared_fallback_names[CHASH_SHARED_NFALLBACKS] = {
	"unavailable", "parallel query", "memory limit", "table full",
	"no segment", "error", "wait"
};

/* chash.shared_rings, and chash.shared_memory in kB */
static bool shared_rings_on = true;
static int	shared_memory_kb = 1024 * 1024;

static SharedRingsControl *control = NULL;
static bool control_tried = false;
static const char *unavailable_reason = NULL;
static dlist_head held = DLIST_STATIC_INIT(held);

static int64 backend_builds = 0;
static int64 backend_maps = 0;
static int64 backend_fallbacks[CHASH_SHARED_NFALLBACKS];
static char backend_last_error[256];

static void shared_at_exit(int code, Datum arg);

static void
control_init(SharedRingsControl *ctl)
{
	memset(ctl, 0, sizeof(SharedRingsControl));
	ctl->tranche = chash_lwlock_tranche_new(CHASH_SHARED_NAME);
	LWLockInitialize(&ctl->lock, ctl->tranche);
	ConditionVariableInit(&ctl->built);
	ctl->next_serial = 1;
}

#ifdef CHASH_HAVE_DSM_REGISTRY

static void
registry_init(CHASH_DSM_INIT_PARAMS)
{
	control_init((SharedRingsControl *) ptr);
}

#else

/* 14 to 16: the control block, asked for at server start */
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static SharedRingsControl *preloaded_control = NULL;

#ifdef CHASH_HAVE_SHMEM_REQUEST_HOOK
static shmem_request_hook_type prev_shmem_request_hook = NULL;

static void
shared_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(SharedRingsControl)));
}
#endif

static void
shared_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	preloaded_control = ShmemInitStruct(CHASH_SHARED_NAME,
										sizeof(SharedRingsControl), &found);
	if (!found)
		control_init(preloaded_control);
	LWLockRelease(AddinShmemInitLock);
}
#endif

/* Called once per backend from _PG_init: settings, and at start memory */
void
chash_shared_init(void)
{
	DefineCustomBoolVariable("chash.shared_rings",
							 "Shares built rings of points across backends.",
							 "A ring is built once and mapped from shared memory "
							 "by every backend that routes by it.",
							 &shared_rings_on, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("chash.shared_memory",
							"Shared memory that shared rings may take in all.",
							"A ring that would exceed it is built by each "
							"backend in its own memory.",
							&shared_memory_kb, 1024 * 1024, 0, MAX_KILOBYTES,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
#ifndef CHASH_HAVE_DSM_REGISTRY
	if (process_shared_preload_libraries_in_progress)
	{
#ifdef CHASH_HAVE_SHMEM_REQUEST_HOOK
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = shared_shmem_request;
#else
		RequestAddinShmemSpace(MAXALIGN(sizeof(SharedRingsControl)));
#endif
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = shared_shmem_startup;
	}
#endif
}

/* Remember an error's message, in the backend and the server */
static void
remember_error(const char *message)
{
	strlcpy(backend_last_error, message, sizeof(backend_last_error));
	if (control != NULL)
	{
		LWLockAcquire(&control->lock, LW_EXCLUSIVE);
		strlcpy(control->last_error, message, sizeof(control->last_error));
		LWLockRelease(&control->lock);
	}
}

/*
 * Run fn(arg) so that an ordinary error in it is caught: false, with its
 * message remembered (metadata/subxact.c)
 */
static bool
run_caught(void (*fn) (void *arg), void *arg)
{
	ErrorData  *edata = chash_run_caught(fn, arg, chash_error_not_cancel);

	if (edata == NULL)
		return true;
	remember_error(edata->message);
	FreeErrorData(edata);
	return false;
}

#ifdef CHASH_HAVE_DSM_REGISTRY
static void
attach_registry(void *arg)
{
	bool		found;

	*(SharedRingsControl **) arg =
		chash_named_dsm_segment(CHASH_SHARED_NAME, sizeof(SharedRingsControl),
								registry_init, &found);
}
#endif

/* The control block, attached on first use; NULL if there is none */
static SharedRingsControl *
shared_control(void)
{
	SharedRingsControl *ctl = NULL;

	if (control != NULL || control_tried)
		return control;
	control_tried = true;
#ifdef CHASH_HAVE_DSM_REGISTRY
	if (!run_caught(attach_registry, &ctl) || ctl == NULL)
	{
		unavailable_reason = "the DSM registry could not be attached";
		return NULL;
	}
#else
	ctl = preloaded_control;
	if (ctl == NULL)
	{
		unavailable_reason = "chash is not in shared_preload_libraries, which PostgreSQL 16 and older need for sharing";
		return NULL;
	}
#endif
	chash_lwlock_tranche_register(ctl->tranche, CHASH_SHARED_NAME);
	before_shmem_exit(shared_at_exit, (Datum) 0);
	control = ctl;
	return control;
}

static void
count_fallback(ChashSharedFallback why)
{
	backend_fallbacks[why]++;
	if (control != NULL)
	{
		LWLockAcquire(&control->lock, LW_EXCLUSIVE);
		control->fallbacks[why]++;
		LWLockRelease(&control->lock);
	}
}

/* A backend built the ring of an entry on its own: count it there too */
static void
count_entry_build(int slot, uint64 serial)
{
	SharedRing *e = &control->rings[slot];

	LWLockAcquire(&control->lock, LW_EXCLUSIVE);
	if (e->serial == serial && e->state != SHARED_FREE)
		e->builds++;
	LWLockRelease(&control->lock);
}

/* The entry of that ring of this database; -1 if none.  Lock held. */
static int
find_entry(const char *name, const uint8 fingerprint[16])
{
	for (int i = 0; i < CHASH_SHARED_RINGS; i++)
	{
		SharedRing *e = &control->rings[i];

		if (e->state != SHARED_FREE && e->dbid == MyDatabaseId &&
			memcmp(e->fingerprint, fingerprint, 16) == 0 &&
			strcmp(e->name, name) == 0)
			return i;
	}
	return -1;
}

/* Give up an entry this backend was building, if it still is */
static void
abandon_entry(int slot, uint64 serial)
{
	SharedRing *e = &control->rings[slot];

	LWLockAcquire(&control->lock, LW_EXCLUSIVE);
	if (e->serial == serial && e->state == SHARED_BUILDING)
	{
		control->bytes -= e->bytes;
		e->bytes = 0;
		e->state = SHARED_FREE;
	}
	LWLockRelease(&control->lock);
	ConditionVariableBroadcast(&control->built);
}

/*
 * Leave a ready entry; the last backend to leave frees its segment (whose
 * memory goes once every mapping of it is gone)
 */
static void
leave_entry(int slot, uint64 serial)
{
	SharedRing *e = &control->rings[slot];
	dsm_handle	unpin = DSM_HANDLE_INVALID;

	LWLockAcquire(&control->lock, LW_EXCLUSIVE);
	if (e->serial == serial && e->state == SHARED_READY && --e->backends == 0)
	{
		unpin = e->handle;
		control->bytes -= e->bytes;
		e->bytes = 0;
		e->state = SHARED_FREE;
	}
	LWLockRelease(&control->lock);
	if (unpin != DSM_HANDLE_INVALID)
		dsm_unpin_segment(unpin);
}

/* At exit: the builds this backend left, and the rings it held */
static void
shared_at_exit(int code, Datum arg)
{
	dlist_mutable_iter iter;

	if (control == NULL)
		return;
	if (LWLockHeldByMe(&control->lock))
		LWLockRelease(&control->lock);
	for (int i = 0; i < CHASH_SHARED_RINGS; i++)
	{
		SharedRing *e = &control->rings[i];

		if (e->state == SHARED_BUILDING && e->builder == MyProcPid)
			abandon_entry(i, e->serial);
	}
	/* (the segments themselves are detached by the server's own exit) */
	dlist_foreach_modify(iter, &held)
	{
		ChashSharedRef *ref = dlist_container(ChashSharedRef, node, iter.cur);

		leave_entry(ref->slot, ref->serial);
		dlist_delete(&ref->node);
	}
}

typedef struct SegmentArgs
{
	const ChashPlacement *ring; /* to copy into a new segment, or NULL */
	Size		size;
	dsm_handle	handle;			/* to map, if ring is NULL */
	dsm_segment *seg;			/* out: NULL where there was none */
} SegmentArgs;

/* Make a segment for a ring and copy it there, or map one: run caught */
static void
open_segment(void *arg)
{
	SegmentArgs *args = arg;

	if (args->ring != NULL)
	{
		dsm_segment *seg = dsm_create(args->size,
									  DSM_CREATE_NULL_IF_MAXSEGMENTS);

		if (seg == NULL)
			return;
		/* (where the kernel gives shared memory huge pages on request) */
		chash_advise_huge_pages(dsm_segment_address(seg), args->size);
		chash_ring_flatten(args->ring, dsm_segment_address(seg));
		dsm_pin_segment(seg);
		/* last: until here, an error's abort detaches and frees it */
		dsm_pin_mapping(seg);
		args->seg = seg;
	}
	else
	{
		dsm_segment *seg = dsm_attach(args->handle);

		if (seg != NULL)
			dsm_pin_mapping(seg);
		args->seg = seg;
	}
}

/*
 * The placement of spec that reads the ring in seg, held by ref (allocated
 * by the caller); NULL, with seg detached, if seg holds no ring of spec
 */
static ChashPlacement *
placement_in_segment(const ChashRingSpec *spec, dsm_segment *seg, Size size,
					 MemoryContext parent, ChashSharedRef *ref, int slot,
					 uint64 serial)
{
	ChashPlacement *placement;

	placement = chash_ring_from_flat(spec, dsm_segment_address(seg), size,
									 parent);
	if (placement == NULL)
	{
		dsm_detach(seg);
		return NULL;
	}
	ref->slot = slot;
	ref->serial = serial;
	ref->seg = seg;
	ref->bytes = size;
	dlist_push_head(&held, &ref->node);
	return placement;
}

/* Map the ready entry slot, which this backend has joined */
static ChashPlacement *
map_entry(const ChashRingSpec *spec, int slot, uint64 serial,
		  dsm_handle handle, Size size, MemoryContext parent,
		  ChashSharedRef **ref)
{
	volatile SegmentArgs args = {NULL, size, handle, NULL};
	ChashSharedRef *r = MemoryContextAllocZero(TopMemoryContext,
											   sizeof(ChashSharedRef));
	ChashPlacement *placement = NULL;
	volatile bool mapped = false;

	PG_TRY();
	{
		if (run_caught(open_segment, (void *) &args) && args.seg != NULL)
		{
			mapped = true;
			placement = placement_in_segment(spec, args.seg, size, parent, r,
											 slot, serial);
			mapped = false;
		}
	}
	PG_CATCH();
	{
		/* (no memory for the placement: its segment is still mapped) */
		if (mapped)
			dsm_detach(args.seg);
		leave_entry(slot, serial);
		pfree(r);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (placement == NULL)
	{
		leave_entry(slot, serial);
		pfree(r);
		return NULL;
	}
	*ref = r;
	return placement;
}

/*
 * Share ring, which this backend built for the entry slot it claimed: the
 * placement that reads the shared copy, or NULL (the entry given up, the
 * reason counted) if it cannot be shared
 */
static ChashPlacement *
publish(const ChashRingSpec *spec, const ChashPlacement *ring, int slot,
		uint64 serial, MemoryContext parent, ChashSharedRef **ref)
{
	SharedRing *e = &control->rings[slot];
	volatile SegmentArgs args = {ring, chash_ring_flat_size(ring), 0, NULL};
	ChashSharedRef *r = MemoryContextAllocZero(TopMemoryContext,
											   sizeof(ChashSharedRef));
	ChashPlacement *volatile placement = NULL;
	volatile bool made = false;
	bool		fits;

	LWLockAcquire(&control->lock, LW_EXCLUSIVE);
	fits = control->bytes + args.size <= (Size) shared_memory_kb * 1024;
	if (fits)
	{
		control->bytes += args.size;
		e->bytes = args.size;
	}
	LWLockRelease(&control->lock);
	if (!fits)
	{
		pfree(r);
		abandon_entry(slot, serial);
		count_fallback(CHASH_SHARED_MEMORY);
		return NULL;
	}

	PG_TRY();
	{
		if (!run_caught(open_segment, (void *) &args))
			count_fallback(CHASH_SHARED_ERROR);
		else if (args.seg == NULL)
			count_fallback(CHASH_SHARED_SEGMENTS);
		else
		{
			args.handle = dsm_segment_handle(args.seg);
			made = true;
			placement = placement_in_segment(spec, args.seg, args.size,
											 parent, r, slot, serial);
			made = false;
			/* (placement_in_segment detached it) */
			if (placement == NULL)
			{
				dsm_unpin_segment(args.handle);
				count_fallback(CHASH_SHARED_ERROR);
			}
		}
	}
	PG_CATCH();
	{
		/* a cancel, or no memory for the placement of a made segment */
		if (made)
		{
			dsm_detach(args.seg);
			dsm_unpin_segment(args.handle);
		}
		abandon_entry(slot, serial);
		pfree(r);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (placement == NULL)
	{
		pfree(r);
		abandon_entry(slot, serial);
		return NULL;
	}

	LWLockAcquire(&control->lock, LW_EXCLUSIVE);
	e->state = SHARED_READY;
	e->handle = args.handle;
	e->backends = 1;
	e->maps = 0;
	e->builds++;
	e->built_at = GetCurrentTimestamp();
	control->builds++;
	LWLockRelease(&control->lock);
	ConditionVariableBroadcast(&control->built);
	backend_builds++;
	*ref = r;
	return placement;
}

/* Build spec's placement in this backend's memory, counting the build */
static ChashPlacement *
build_here(const ChashRingSpec *spec, MemoryContext parent, bool *built)
{
	*built = true;
	return chash_placement_build(spec, parent);
}

/*
 * The placement of spec (whose configuration has that fingerprint), in a
 * memory context of its own under parent: a ring mapped from shared memory
 * (*ref set, to release when the placement is freed), or built here (*ref
 * NULL) where it cannot be shared.  *built tells whether this backend built
 * it, whether it then shared it or not.
 */
ChashPlacement *
chash_shared_placement(const ChashRingSpec *spec, const uint8 fingerprint[16],
					   MemoryContext parent, ChashSharedRef **ref, bool *built)
{
	TimestampTz wait_until = 0;
	int			slot;
	uint64		serial;
	ChashPlacement *ring;
	ChashPlacement *shared;

	*ref = NULL;
	*built = false;
	if (!shared_rings_on || spec->algorithm->kind != CHASH_PLACEMENT_POINTS)
		return build_here(spec, parent, built);
	if (shared_control() == NULL)
	{
		count_fallback(CHASH_SHARED_UNAVAILABLE);
		return build_here(spec, parent, built);
	}

	for (;;)
	{
		SharedRing *e;

		LWLockAcquire(&control->lock, LW_EXCLUSIVE);
		slot = find_entry(spec->name, fingerprint);
		e = slot >= 0 ? &control->rings[slot] : NULL;
		if (e != NULL && e->state == SHARED_READY)
		{
			dsm_handle	handle = e->handle;
			Size		size = e->bytes;

			serial = e->serial;
			e->backends++;
			e->maps++;
			control->maps++;
			LWLockRelease(&control->lock);
			ConditionVariableCancelSleep();
			shared = map_entry(spec, slot, serial, handle, size, parent, ref);
			if (shared != NULL)
			{
				backend_maps++;
				return shared;
			}
			count_entry_build(slot, serial);
			count_fallback(CHASH_SHARED_ERROR);
			return build_here(spec, parent, built);
		}
		if (e != NULL)
		{
			/* another backend builds it: wait, but not for ever */
			TimestampTz now = GetCurrentTimestamp();
			long		secs;
			int			usecs;

			if (wait_until == 0)
				wait_until = TimestampTzPlusMilliseconds(now, CHASH_SHARED_WAIT_MS);
			if (now >= wait_until)
			{
				e->builds++;
				LWLockRelease(&control->lock);
				ConditionVariableCancelSleep();
				count_fallback(CHASH_SHARED_WAIT);
				return build_here(spec, parent, built);
			}
			LWLockRelease(&control->lock);
			TimestampDifference(now, wait_until, &secs, &usecs);
			(void) ConditionVariableTimedSleep(&control->built,
											   Min(secs * 1000 + usecs / 1000 + 1, 100),
											   PG_WAIT_EXTENSION);
			continue;
		}
		ConditionVariableCancelSleep();
		if (IsInParallelMode())
		{
			LWLockRelease(&control->lock);
			count_fallback(CHASH_SHARED_PARALLEL);
			return build_here(spec, parent, built);
		}
		for (slot = 0; slot < CHASH_SHARED_RINGS; slot++)
		{
			if (control->rings[slot].state == SHARED_FREE)
				break;
		}
		if (slot == CHASH_SHARED_RINGS)
		{
			LWLockRelease(&control->lock);
			count_fallback(CHASH_SHARED_FULL);
			return build_here(spec, parent, built);
		}
		e = &control->rings[slot];
		memset(e, 0, sizeof(SharedRing));
		e->state = SHARED_BUILDING;
		e->serial = serial = control->next_serial++;
		e->dbid = MyDatabaseId;
		strlcpy(e->name, spec->name, NAMEDATALEN);
		memcpy(e->fingerprint, fingerprint, 16);
		e->version = spec->version;
		e->builder = MyProcPid;
		LWLockRelease(&control->lock);
		break;
	}

	/* this backend builds it, for every backend */
	PG_TRY();
	{
		ring = build_here(spec, parent, built);
	}
	PG_CATCH();
	{
		abandon_entry(slot, serial);
		PG_RE_THROW();
	}
	PG_END_TRY();
	shared = publish(spec, ring, slot, serial, parent, ref);
	if (shared == NULL)
		return ring;
	MemoryContextDelete(ring->mcxt);
	return shared;
}

/* Whether this backend shares rings: chash.shared_rings on, and memory */
bool
chash_shared_rings_usable(void)
{
	return shared_rings_on && shared_control() != NULL;
}

/* The backend frees a shared ring's placement: it holds the ring no more */
void
chash_shared_release(ChashSharedRef *ref)
{
	leave_entry(ref->slot, ref->serial);
	dsm_detach(ref->seg);
	dlist_delete(&ref->node);
	pfree(ref);
}

/* The shared memory a shared ring takes */
Size
chash_shared_ref_bytes(const ChashSharedRef *ref)
{
	return ref->bytes;
}

/* The rings of this database that are shared or being built, as a list */
int
chash_shared_rings_list(ChashSharedRingInfo **rings)
{
	int			n = 0;

	*rings = palloc0(sizeof(ChashSharedRingInfo) * CHASH_SHARED_RINGS);
	if (shared_control() == NULL)
		return 0;
	LWLockAcquire(&control->lock, LW_SHARED);
	for (int i = 0; i < CHASH_SHARED_RINGS; i++)
	{
		SharedRing *e = &control->rings[i];
		ChashSharedRingInfo *info = &(*rings)[n];

		if (e->state == SHARED_FREE || e->dbid != MyDatabaseId)
			continue;
		strlcpy(info->name, e->name, NAMEDATALEN);
		info->version = e->version;
		info->ready = e->state == SHARED_READY;
		info->builder = e->builder;
		info->bytes = e->bytes;
		info->backends = e->backends;
		info->maps = e->maps;
		info->builds = e->builds;
		info->built_at = e->built_at;
		n++;
	}
	LWLockRelease(&control->lock);
	return n;
}

/* This backend's and the server's counts */
void
chash_shared_counts(ChashSharedCounts *counts)
{
	memset(counts, 0, sizeof(ChashSharedCounts));
	counts->available = shared_control() != NULL;
	counts->unavailable = unavailable_reason;
	counts->backend_builds = backend_builds;
	counts->backend_maps = backend_maps;
	memcpy(counts->backend_fallbacks, backend_fallbacks,
		   sizeof(backend_fallbacks));
	counts->last_error = backend_last_error[0] ? pstrdup(backend_last_error) : NULL;
	{
		dlist_iter	iter;

		dlist_foreach(iter, &held)
			counts->backend_bytes +=
			dlist_container(ChashSharedRef, node, iter.cur)->bytes;
	}
	if (control == NULL)
	{
		counts->server_builds = counts->server_maps = counts->server_bytes = -1;
		for (int i = 0; i < CHASH_SHARED_NFALLBACKS; i++)
			counts->server_fallbacks[i] = -1;
		return;
	}
	LWLockAcquire(&control->lock, LW_SHARED);
	counts->server_builds = control->builds;
	counts->server_maps = control->maps;
	counts->server_bytes = control->bytes;
	memcpy(counts->server_fallbacks, control->fallbacks,
		   sizeof(control->fallbacks));
	if (control->last_error[0])
		counts->last_error = pstrdup(control->last_error);
	LWLockRelease(&control->lock);
}
