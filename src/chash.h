/*-------------------------------------------------------------------------
 *
 * chash.h
 *	  Shared types and declarations of the chash extension.
 *
 * The layers, from the bottom up:
 *	  hash.c		the table of hash functions
 *	  algorithm.c	the table of ring algorithms; algo_*.c one file each
 *	  ring.c		building a ring's points and finding owners (pure:
 *					configuration in, points out; no catalog access)
 *	  catalog.c		reading and changing chash.ring_config/node_config
 *	  triggers.c	the catalog tables' trigger: the ring-change lock,
 *					versions, and the checks every change passes
 *	  cache.c		the per-backend cache of built rings
 *	  lookup.c, admin.c
 *					thin fmgr wrappers for routing and for ring changes
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_H
#define CHASH_H

#include "compat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/snapshot.h"

/* Schema and tables of the catalog, as created by the install script */
#define CHASH_SCHEMA			"chash"
#define CHASH_RING_TABLE		"ring_config"
#define CHASH_NODE_TABLE		"node_config"

/*
 * Equality in queries on the catalog, bound to pg_catalog whatever the
 * caller's search_path
 */
#define CHASH_EQ				" OPERATOR(pg_catalog.=) "

/* Limits, mirrored by the CHECK constraints of the catalog tables */
#define CHASH_MAX_RING_NAME		(NAMEDATALEN - 1)
/* well under what a btree index entry of (ring, node) can hold */
#define CHASH_MAX_NODE_NAME		1024
/* a vnode name is at most this many times a node name long */
#define CHASH_MAX_TEMPLATE		256
#define CHASH_MAX_VNODES		16777216
/* 12 bytes a point keeps a ring of this size under 1 GB of memory */
#define CHASH_MAX_RING_POINTS	(64 * 1024 * 1024)

/*
 * Builds check for interrupts by the work done, not by the points made: a
 * vnode name costs its bytes plus this, and a check is due every so much
 * work (some hundred microseconds of MD5, less of the other hashes)
 */
#define CHASH_WORK_PER_NAME		32
#define CHASH_WORK_PER_INTERRUPT_CHECK	(256 * 1024)

/* Names in messages: longer ones are cut to this many bytes and "..." */
#define CHASH_MESSAGE_NAME_BYTES	64

/*
 * Hash functions (hash.c).  Every function maps bytes to an unsigned value
 * of 'bits' bits (32 or 64), returned in the low bits of a uint64.
 */
typedef uint64 (*ChashHashFn) (const unsigned char *data, size_t len);

typedef struct ChashHashFunction
{
	const char *name;
	int			bits;
	ChashHashFn fn;
	const char *description;
	bool		needs_utf8;		/* input must be UTF-8 (the Java hashes) */
} ChashHashFunction;

extern const ChashHashFunction *chash_hash_find(const char *name);
extern uint32 chash_crc32(const unsigned char *data, size_t len);
extern void chash_md5(const void *data, size_t len, uint8 digest[16]);

/* The little-endian 32-bit word at p (as ketama reads MD5 digests) */
static inline uint32
chash_le32(const uint8 *p)
{
	return (uint32) p[0] | ((uint32) p[1] << 8) |
		((uint32) p[2] << 16) | ((uint32) p[3] << 24);
}
extern const ChashHashFunction *chash_hash_get(const char *name);
extern int	chash_hash_count(void);
extern const ChashHashFunction *chash_hash_at(int i);

/*
 * A position on the ring as SQL shows it: a 32-bit value as itself, a
 * 64-bit one reinterpreted as signed (the convention of hashtextextended).
 */
static inline int64
chash_position_to_int64(uint64 position)
{
	return (int64) position;
}

/* Whether the server encoding's text is hashed as it is (see below) */
static inline bool
chash_utf8_as_is(void)
{
	int			encoding = GetDatabaseEncoding();

	return encoding == PG_UTF8 || encoding == PG_SQL_ASCII;
}

/*
 * Text in the server encoding as the bytes chash hashes: its UTF-8, or the
 * text itself where no conversion applies (UTF-8 and SQL_ASCII databases;
 * SQL_ASCII text is taken byte for byte).  Returns s or a palloc'd copy.
 */
static inline const char *
chash_text_bytes(const char *s, int len, int *outlen)
{
	char	   *u;

	if (likely(chash_utf8_as_is()))
	{
		*outlen = len;
		return s;
	}
	u = pg_server_to_any(s, len, PG_UTF8);
	/* unconverted, s need not be NUL-terminated */
	*outlen = (u == s) ? len : (int) strlen(u);
	return u;
}

/*
 * A ring's configuration, as read from the catalog.  Strings are kept both
 * in the server encoding (for display) and in UTF-8 (the bytes that are
 * hashed); in a UTF-8 database both point to the same memory.
 */
typedef struct ChashNodeSpec
{
	const char *name;			/* server encoding, NUL-terminated */
	int			name_len;
	const char *name_utf8;
	int			name_utf8_len;
	double		weight;
	int32		vnodes;			/* the node's own vnodes, 0 if unset */
	bool		active;
	int64		ordinal;		/* place in the client's server list */
} ChashNodeSpec;

/*
 * Which node's point comes first where points of several nodes fall on one
 * position (and so which node owns the keys there): the node whose name
 * sorts first, or the one added first or last (by ordinal).  Clients differ:
 * libmemcached keeps server order, a Java TreeMap keeps the last put.
 */
typedef enum ChashTies
{
	CHASH_TIES_NAME,
	CHASH_TIES_FIRST,
	CHASH_TIES_LAST,
	CHASH_TIES_SHORTEST_NAME	/* by name length, then name: twemproxy's */
} ChashTies;

struct ChashAlgorithm;

typedef struct ChashRingSpec
{
	char		name[NAMEDATALEN];
	const struct ChashAlgorithm *algorithm;
	const ChashHashFunction *hash;	/* hashes the points */
	const ChashHashFunction *key_hash;	/* hashes the keys */
	int32		vnodes;
	const char *vnode_name;		/* template, server encoding */
	const char *vnode_name_utf8;
	int			vnode_name_utf8_len;
	int32		vnode_first;
	const char *variant;		/* the algorithm's variant, NULL if none */
	const char *ties_name;		/* ties as configured, NULL: the default */
	int64		version;		/* ring_config.version, 0 where unknown */
	int			nnodes;
	ChashNodeSpec *nodes;		/* sorted by UTF-8 name, byte order */

	/* Derived by chash_ring_prepare_spec() */
	int			nactive;		/* active nodes */
	double		active_weight;	/* their total weight */
	ChashTies	ties;
	bool		strictly_after; /* a key's owner is the first point after
								 * it, not at or after it */
	const void *variant_data;	/* the algorithm's resolved variant */
} ChashRingSpec;

/*
 * One point while a ring is built: its position, the index of its node in
 * the spec and the node's vnode number counted from 0.  Sorting by all three
 * gives ring order with ties broken by node name, then vnode.
 */
typedef struct ChashPoint
{
	uint64		position;
	uint32		node;
	uint32		vnode;
} ChashPoint;

/* Ring algorithms (algorithm.c, algo_*.c) */
typedef struct ChashAlgorithm
{
	const char *name;
	const char *default_hash;	/* hash of the points unless one is given */
	const char *default_vnode_name;
	const char *default_variant;	/* NULL: the algorithm has no variants */
	/* check the ring's settings, set ties, strictly_after, variant_data */
	void		(*prepare) (ChashRingSpec *spec);
	/* how many points node 'node' of the spec gets; errors beyond limits */
	int64		(*node_points) (const ChashRingSpec *spec, int node);
	/* fill out[0..n-1] with that node's points, n as node_points says */
	void		(*node_build) (const ChashRingSpec *spec, int node,
							   ChashPoint *out);
	/* append the name of one point, in the server encoding, to buf */
	void		(*point_label) (const ChashRingSpec *spec, int node,
								uint32 vnode, StringInfo buf);
	const char *description;

	/*
	 * A node's points depend on its own settings and the ring's only, not
	 * on the other nodes: a change can then be checked from the changed
	 * nodes alone
	 */
	bool		node_points_alone;
} ChashAlgorithm;

extern const ChashAlgorithm *chash_algorithm_find(const char *name);
extern const ChashAlgorithm *chash_algorithm_get(const char *name);

extern const ChashAlgorithm chash_algorithm_ring;
extern const ChashAlgorithm chash_algorithm_ketama;

/*
 * Virtual node names from a template with {node} and {i} (template.c):
 * prepared once per node, then each name is a few copies and i's digits.
 */
typedef struct ChashNameTemplate
{
	StringInfoData pieces;		/* the parts between {i}s, {node} filled in */
	int		   *cuts;			/* end of each part in pieces */
	int			ncuts;			/* number of {i}s */
	StringInfoData name;		/* the last name made */
} ChashNameTemplate;

extern void chash_template_check(const char *tmpl);
extern void chash_template_init(ChashNameTemplate *t, const char *tmpl,
								int tmpl_len, const char *node, int node_len);
extern void chash_template_name(ChashNameTemplate *t, int64 i);
extern void chash_template_free(ChashNameTemplate *t);
extern void chash_template_expand(StringInfo buf, const char *tmpl,
								  const char *node, int node_len, int64 i);

/*
 * A built ring (ring.c): immutable once built.  Points are kept as two
 * parallel arrays in ring order: 10 bytes a point for rings of up to 65,536
 * nodes, 12 beyond.
 */
typedef struct ChashRing
{
	MemoryContext mcxt;			/* holds this struct and everything below */
	ChashRingSpec spec;
	uint32		npoints;
	uint64	   *positions;		/* ascending, unsigned */
	/* node index of each point: 2 bytes where nodes are few enough */
	uint16	   *owners16;
	uint32	   *owners32;
	uint32	   *node_points;	/* number of points of each node */
	int			nactive;		/* nodes that own at least one point */

	/*
	 * An index over the top bits of positions: bucket[b] is the first point
	 * at or after position b << bucket_shift, so a lookup searches only the
	 * few points of one bucket (bucket[nbuckets] is npoints)
	 */
	uint32	   *bucket;
	uint32		nbuckets;
	int			bucket_shift;
	int			frac_shift;		/* (position << frac_shift) >> 48: the 16
								 * bits below the bucket's, how far into it */
	uint64		max_position;	/* the hash space's largest position */
} ChashRing;

/* Nodes in their order in a spec: by UTF-8 name, byte order */
static inline int
chash_node_spec_cmp(const ChashNodeSpec *a, const ChashNodeSpec *b)
{
	int			cmp = memcmp(a->name_utf8, b->name_utf8,
							 Min(a->name_utf8_len, b->name_utf8_len));

	if (cmp != 0)
		return cmp;
	return a->name_utf8_len - b->name_utf8_len;
}

/* A node's name as a new text */
static inline text *
chash_node_text(const ChashRing *ring, uint32 node)
{
	const ChashNodeSpec *n = &ring->spec.nodes[node];

	return cstring_to_text_with_len(n->name, n->name_len);
}

/* The node index of point i */
static inline uint32
chash_ring_owner(const ChashRing *ring, uint32 i)
{
	return ring->owners16 ? ring->owners16[i] : ring->owners32[i];
}

extern void chash_ring_prepare_spec(ChashRingSpec *spec);
extern void chash_ring_check_node(const ChashRingSpec *spec,
								  const ChashNodeSpec *node);
extern int64 chash_ring_node_points_alone(const ChashRingSpec *settings,
										  const ChashNodeSpec *node,
										  bool check);
extern void chash_ring_check_total(const ChashRingSpec *spec, int64 total);
pg_noreturn extern void chash_error_no_active_nodes(const ChashRing *ring);
extern void chash_ring_spec_fingerprint(const ChashRingSpec *spec,
										uint8 fingerprint[16]);

/*
 * A lookup counts the points below the key in a window of fixed size,
 * without branches: a branch per point mispredicts about once a lookup.
 * Positions are padded with CHASH_BUCKET_WINDOW maximal values, so that a
 * window may run past the last point.  On the 16,000-point ring of the
 * benchmark, 1M lookups took 88 ms with a scan that stopped at the owner
 * and 66 ms with the window of 8; summing the compares as a tree and
 * fetching the owners' cache line alongside the positions' took off a few
 * ns more.
 */
#define CHASH_SMALL_BUCKET 8
#define CHASH_BUCKET_WINDOW 16

extern uint32 chash_ring_find_large(const ChashRing *ring, uint64 position,
									uint32 lo, uint32 hi);

/*
 * The index of the point that owns position: the first point at or after it
 * (strictly after it, for rings that say so), wrapping to the first point.
 * The ring must have points.  The owner is in position's bucket or is the
 * first point after it (bucket[b + 1]): a bucket of 8 points or fewer is
 * counted whole, past its end if need be (later points lie above position).
 */
static inline uint32
chash_ring_find(const ChashRing *ring, uint64 position)
{
	const uint64 *positions = ring->positions;
	uint32		b;
	uint32		lo;
	uint32		hi;
	uint32		at;

	if (unlikely(ring->spec.strictly_after))
	{
		if (position >= ring->max_position)
			return 0;
		position++;
	}
	b = (uint32) (position >> ring->bucket_shift);
	lo = ring->bucket[b];
	hi = ring->bucket[b + 1];
	if (unlikely(hi - lo > CHASH_SMALL_BUCKET))
		return chash_ring_find_large(ring, position, lo, hi);
	if (ring->owners16)
		__builtin_prefetch(&ring->owners16[lo]);
	positions += lo;
	at = lo + (((positions[0] < position) + (positions[1] < position)) +
			   ((positions[2] < position) + (positions[3] < position))) +
		(((positions[4] < position) + (positions[5] < position)) +
		 ((positions[6] < position) + (positions[7] < position)));
	return at == ring->npoints ? 0 : at;
}

/* How much of the hash space each node owns (ownership.c) */
extern void chash_ring_ownership(const ChashRing *ring, int replicas,
								 double *owned);
extern void chash_ring_expected(const ChashRingSpec *spec, int replicas,
								double *expected);

/* Comparing two rings (rebalance.c) */
typedef void (*ChashRangeEmit) (void *arg, uint64 lo, uint64 hi,
								uint32 owner_a, uint32 owner_b);
extern void chash_rings_compare(const ChashRing *a, const ChashRing *b,
								uint64 first, uint64 last, uint64 max,
								ChashRangeEmit emit, void *arg);

extern int64 chash_ring_count_points(const ChashRingSpec *spec,
									 int64 *node_counts);
extern void chash_sort_points(ChashPoint *points, uint32 n, int bits);
extern ChashPoint *chash_ring_build_points(const ChashRingSpec *spec,
										   uint32 *npoints);
extern ChashRing *chash_ring_from_points(const ChashRingSpec *spec,
										 ChashPoint *points, uint32 npoints,
										 MemoryContext parent);
extern ChashRing *chash_ring_build(const ChashRingSpec *spec,
								   MemoryContext parent);

/* Catalog access (catalog.c) */
extern ChashRingSpec *chash_catalog_read_ring(const char *ring, bool latest);
extern ChashRingSpec *chash_catalog_read_settings(const char *ring, bool latest);
extern Oid	chash_catalog_relid(const char *table);
extern AttrNumber chash_catalog_version_attnum(void);
extern void chash_catalog_forget_relids(void);
extern bool chash_catalog_is_ours(Oid relid);
extern bool chash_catalog_is_table(Oid relid);
extern void chash_catalog_check_privilege(const char *table, AclMode mode,
										  const char *ring);
extern void chash_catalog_check_read(const char *ring);
extern bool chash_catalog_rls_applies(void);
extern bool chash_catalog_probe(const char *name, int len, Snapshot snap,
								int64 *version, bool *own);
extern struct _SPI_plan *chash_catalog_plan(const char *sql, int nargs,
											const Oid *argtypes);
extern uint64 chash_catalog_execute(const char *sql, int nargs,
									const Oid *argtypes, const Datum *args,
									const bool *argnulls);
extern bool chash_catalog_ring_exists(const char *ring);

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

/* The per-backend cache (cache.c) */
extern uint64 chash_cache_generation;
extern uint64 chash_abort_count;
extern void chash_cache_init(void);
extern const ChashRing *chash_cache_get_ring(const char *name, int len,
											 Snapshot snap,
											 uint64 *generation);
extern const ChashRing *chash_cache_try_get_ring(const char *name, int len,
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
} ChashCacheStats;

extern void chash_cache_stats(ChashCacheStats *stats);

/* The catalog's trigger (triggers.c) */
extern void chash_triggers_init(void);
extern void chash_trigger_stats(int64 *full_checks, int64 *delta_checks);

/* Module set-up and shared errors (chash.c) */
extern const char *chash_message_name(const char *name, int len);
pg_noreturn extern void chash_error_unknown(const char *what, const char *plural,
											const char *name, int count,
											const char *(*name_at) (int));

#endif							/* CHASH_H */
