/*-------------------------------------------------------------------------
 *
 * shared.h
 *	  Rings shared across backends (metadata/shared.c): a ring of points
 *	  built once per database and configuration, in dynamic shared memory,
 *	  and mapped by every backend that routes by it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_SHARED_H
#define CHASH_SHARED_H

#include "datatype/timestamp.h"

#include "placement/placement.h"

/* Why a ring was built in a backend's own memory rather than shared */
typedef enum ChashSharedFallback
{
	CHASH_SHARED_UNAVAILABLE,	/* no shared memory for chash */
	CHASH_SHARED_PARALLEL,		/* a parallel query, the ring not yet shared */
	CHASH_SHARED_MEMORY,		/* chash.shared_memory would be exceeded */
	CHASH_SHARED_FULL,			/* every entry of the table in use */
	CHASH_SHARED_SEGMENTS,		/* the server's dynamic segments all in use */
	CHASH_SHARED_ERROR,			/* making or mapping the segment failed */
	CHASH_SHARED_WAIT,			/* another backend's build took too long */
	CHASH_SHARED_NFALLBACKS
} ChashSharedFallback;

/* A backend's hold on a shared ring: released when it frees the ring */
typedef struct ChashSharedRef ChashSharedRef;

extern void chash_shared_init(void);
extern bool chash_shared_rings_usable(void);
extern ChashPlacement *chash_shared_placement(const ChashRingSpec *spec,
											  const uint8 fingerprint[16],
											  MemoryContext parent,
											  ChashSharedRef **ref,
											  bool *built);
extern void chash_shared_release(ChashSharedRef *ref);
extern Size chash_shared_ref_bytes(const ChashSharedRef *ref);

/* One shared ring of this database, for chash.shared_rings() */
typedef struct ChashSharedRingInfo
{
	char		name[NAMEDATALEN];
	int64		version;
	bool		ready;			/* false: being built */
	int			builder;		/* the building backend's PID */
	int64		bytes;
	int			backends;		/* backends that hold it */
	int64		maps;			/* times backends mapped it */
	int64		builds;			/* times backends built it: 1 if all
								 * others mapped it */
	TimestampTz built_at;
} ChashSharedRingInfo;

extern int	chash_shared_rings_list(ChashSharedRingInfo **rings);

/* Counts, this backend's and the server's (-1 where it has none) */
typedef struct ChashSharedCounts
{
	bool		available;
	const char *unavailable;	/* why not, if not */
	int64		backend_builds; /* rings this backend built and shared */
	int64		backend_maps;	/* rings it mapped that others built */
	int64		backend_fallbacks[CHASH_SHARED_NFALLBACKS];
	int64		server_builds;
	int64		server_maps;
	int64		server_fallbacks[CHASH_SHARED_NFALLBACKS];
	int64		backend_bytes;	/* what the rings it holds take */
	int64		server_bytes;	/* what the shared rings take now */
	const char *last_error;		/* the last failure's message, or NULL */
} ChashSharedCounts;

extern void chash_shared_counts(ChashSharedCounts *counts);
extern const char *const chash_shared_fallback_names[CHASH_SHARED_NFALLBACKS];

#endif							/* CHASH_SHARED_H */
