/*-------------------------------------------------------------------------
 *
 * cache.h
 *	  The per-backend cache of built placements (metadata/cache.c) and the
 *	  catalog's trigger (metadata/triggers.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_CACHE_H
#define CHASH_CACHE_H

#include "placement/placement.h"
#include "utils/snapshot.h"

/*
 * What tells snapshots apart, as far as what they see of the catalog goes.
 * Two snapshots of one backend with equal fields see the same rows: a
 * transaction that was running in one and has ended in the other moved
 * xmax or changed the number of running transactions.  (This backend's own
 * subtransactions that abort change what a snapshot sees without changing
 * it: chash_abort_count counts them.)
 */
typedef struct ChashSnapshotId
{
	TransactionId xmin;
	TransactionId xmax;
	CommandId	curcid;
	uint32		xcnt;
	int32		subxcnt;
	bool		suboverflowed;
	bool		takenDuringRecovery;
} ChashSnapshotId;

static inline void
chash_snapshot_id_set(ChashSnapshotId *id, Snapshot snap)
{
	id->xmin = snap->xmin;
	id->xmax = snap->xmax;
	id->curcid = snap->curcid;
	id->xcnt = snap->xcnt;
	id->subxcnt = snap->subxcnt;
	id->suboverflowed = snap->suboverflowed;
	id->takenDuringRecovery = snap->takenDuringRecovery;
}

static inline bool
chash_snapshot_ids_equal(const ChashSnapshotId *a, const ChashSnapshotId *b)
{
	return a->curcid == b->curcid &&
		a->xmin == b->xmin &&
		a->xmax == b->xmax &&
		a->xcnt == b->xcnt &&
		a->subxcnt == b->subxcnt &&
		a->suboverflowed == b->suboverflowed &&
		a->takenDuringRecovery == b->takenDuringRecovery;
}

/* The per-backend cache (metadata/cache.c) */
extern uint64 chash_cache_generation;
extern uint64 chash_abort_count;
extern Size chash_call_memory;
extern void chash_cache_init(void);
extern const ChashPlacement *chash_cache_get_ring(const char *name, int len,
												  Snapshot snap,
												  uint64 *generation);
extern const ChashRingSpec *chash_cache_check_ring(const char *name, int len,
												  int64 **node_points,
												  char **problem);

typedef struct ChashCacheStats
{
	int			rings;			/* ring names with a ring cached */
	int			cached;			/* rings cached, all versions */
	int64		builds;			/* rings built */
	int64		version_reads;	/* versions read from ring_config */
	int64		config_reads;	/* configurations read from the catalog */
	int64		full_checks;	/* changed rings checked by counting them */
	int64		delta_checks;	/* changed rings checked from the change */
	int64		memory;			/* bytes the cached rings hold */
	int64		evictions;		/* rings freed to fit chash.cache_memory */
	int64		call_memory;	/* bytes routing calls keep between calls */
} ChashCacheStats;

extern void chash_cache_stats(ChashCacheStats *stats);

/* The catalog's trigger (metadata/triggers.c) */
extern void chash_triggers_init(void);
extern void chash_trigger_stats(int64 *full_checks, int64 *delta_checks);

#endif							/* CHASH_CACHE_H */
