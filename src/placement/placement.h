/*-------------------------------------------------------------------------
 *
 * placement.h
 *	  Ring configurations, algorithms and the placements they build.
 *
 * Pure code: nothing declared here reads the catalog.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_PLACEMENT_H
#define CHASH_PLACEMENT_H

#include "common/chash.h"
#include "hash/hash.h"
#include "utils/builtins.h"

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
	const char *zone;			/* server encoding; NULL: none (a zone of its
								 * own, for distinct_zones) */
	int32		ntokens;		/* its explicit points, 0 if none */
	const int64 *tokens;		/* their positions, as SQL shows them */
	bool		slots_given;	/* it was given slot ranges (maybe none) */
	int32		nslot_ranges;	/* how many */
	const int32 *slot_ranges;	/* [lower, upper) pairs, 2 a range */
	/* its points, where the algorithm's prepare counts them for all nodes */
	int64		prepared_points;
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

/*
 * Which point a key of a ring belongs to: the first at or after it (the
 * default), the last at or before it, or the nearest (ties to the earlier)
 */
typedef enum ChashLookupRule
{
	CHASH_LOOKUP_SUCCESSOR,
	CHASH_LOOKUP_PREDECESSOR,
	CHASH_LOOKUP_NEAREST
} ChashLookupRule;

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
	int32		table_size;		/* table's size (slots), 0: the default */
	const char *lookup_name;	/* lookup rule as configured, NULL: default */
	const char *hash_tag;		/* a key's tag delimiters, NULL: none */
	int64		version;		/* ring_config.version, 0 where unknown */
	int			nnodes;
	ChashNodeSpec *nodes;		/* sorted by UTF-8 name, byte order */

	/* Derived by chash_ring_prepare_spec() */
	int			nactive;		/* active nodes */
	double		active_weight;	/* their total weight */
	ChashTies	ties;
	ChashLookupRule lookup;
	bool		strictly_after; /* a key's owner is the first point after
								 * it, not at or after it */
	const void *variant_data;	/* the algorithm's resolved variant */
	bool		keyed;			/* owners come from the key's bytes, by the
								 * algorithm's key_owner, not a position */
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

struct ChashPlacement;

/*
 * What an algorithm builds.  Points: positions on a ring, each owned by a node,
 * and a key owned by the point the ring's lookup rule finds (placement/build.c
 * builds and searches them for every such algorithm).  Computed: owners
 * computed from the key's position and the members, the active nodes in
 * ordinal order (the client's server list).
 */
typedef enum ChashPlacementKind
{
	CHASH_PLACEMENT_POINTS,
	CHASH_PLACEMENT_COMPUTED
} ChashPlacementKind;

/*
 * Placement algorithms (placement/algorithm.c and placement/algorithms/).  Point
 * algorithms say how many points each node gets and where; the others answer
 * for themselves.
 */
typedef struct ChashAlgorithm
{
	const char *name;
	ChashPlacementKind kind;
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
	bool		names_hashed;	/* node names are hashed (not integer keys) */
	bool		weighted;		/* nodes' weights count (else all must be 1) */
	bool		has_table;		/* a lookup table, of table_size slots */
	int32		default_table_size; /* its size unless one is given */
	bool		has_lookup_rules;	/* a ring setting lookup may be given */
	bool		takes_tokens;	/* nodes may be given their points */
	bool		needs_tokens;	/* every active node must be */
	bool		takes_slots;	/* nodes may be given slot ranges */
	/* members own equal shares, one after another (the picture's arcs) */
	bool		equal_members;

	/*
	 * Computed placements.  build: derive what lookups need from the
	 * members, in the placement's memory context (optional).  owner: the
	 * node index owning a position.  preference: the first n distinct
	 * nodes for a position, the owner first (n at most the members).
	 * ownership: each node's share of the keys among the first 'replicas'
	 * of their preference order (picked by zones with distinct_zones, as
	 * chash_zones_pick does), into owned[nnodes].
	 */
	void		(*build) (struct ChashPlacement *placement);
	uint32		(*owner) (const struct ChashPlacement *placement,
						  uint64 position);
	void		(*preference) (const struct ChashPlacement *placement,
							   uint64 position, uint32 *out, int n);
	void		(*ownership) (const struct ChashPlacement *placement,
							  int replicas, bool distinct_zones,
							  double *owned);

	/*
	 * Keyed placements (spec->keyed, which prepare sets): the owner, and
	 * every active node in preference order, of a key's bytes, where the
	 * owner is no function of one position (pymemcache hashes each node's
	 * name with the key)
	 */
	uint32		(*key_owner) (const struct ChashPlacement *placement,
							  const unsigned char *key, size_t len);
	void		(*key_preference) (const struct ChashPlacement *placement,
								   const unsigned char *key, size_t len,
								   uint32 *out);
} ChashAlgorithm;

extern const ChashAlgorithm *chash_algorithm_find(const char *name);
extern const ChashAlgorithm *chash_algorithm_get(const char *name);

extern const ChashAlgorithm chash_algorithm_ring;
extern const ChashAlgorithm chash_algorithm_ketama;
extern const ChashAlgorithm chash_algorithm_modulo;
extern const ChashAlgorithm chash_algorithm_jump;
extern const ChashAlgorithm chash_algorithm_rendezvous;
extern const ChashAlgorithm chash_algorithm_maglev;
extern const ChashAlgorithm chash_algorithm_tokens;
extern const ChashAlgorithm chash_algorithm_slots;
extern const ChashAlgorithm chash_algorithm_nginx;
extern const ChashAlgorithm chash_algorithm_dalli;
extern const ChashAlgorithm chash_algorithm_haproxy;
extern const ChashAlgorithm chash_algorithm_elasticsearch;
extern const ChashAlgorithm chash_algorithm_envoy_ring_hash;

/* Elasticsearch's partitioned routing (algorithms/elasticsearch.c) */
extern uint64 chash_es_partition_position(uint64 routing_position,
										  uint64 id_position,
										  int32 partition_size);
extern void chash_es_check_partition_size(const struct ChashPlacement *placement,
										  int32 partition_size);

/*
 * Virtual node names from a template with {node} and {i}
 * (placement/template.c): prepared once per node, then each name is a few
 * copies and i's digits.
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
 * A built placement (placement/build.c): immutable once built.  Points are kept
 * as two parallel arrays in ring order: 10 bytes a point for rings of up to
 * 65,536 nodes, 12 beyond.  Computed placements have no points.
 */
typedef struct ChashPlacement
{
	MemoryContext mcxt;			/* holds this struct and everything below */
	ChashRingSpec spec;
	ChashPlacementKind kind;
	int			nactive;		/* nodes that own keys */
	/* the active nodes in ordinal order, then name: computed placements */
	uint32	   *members;
	const void *data;			/* the algorithm's, made by its build */
	/* each node's zone, numbered from 0 over the active nodes' zones */
	uint32	   *zone_of;
	int			nzones;
	uint32		npoints;
	uint64	   *positions;		/* ascending, unsigned */
	/* node index of each point: 2 bytes where nodes are few enough */
	uint16	   *owners16;
	uint32	   *owners32;
	uint32	   *node_points;	/* number of points of each node */

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
} ChashPlacement;

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
chash_node_text(const ChashPlacement *ring, uint32 node)
{
	const ChashNodeSpec *n = &ring->spec.nodes[node];

	return cstring_to_text_with_len(n->name, n->name_len);
}

/* The node index of point i */
static inline uint32
chash_ring_owner(const ChashPlacement *ring, uint32 i)
{
	return ring->owners16 ? ring->owners16[i] : ring->owners32[i];
}

extern void chash_ring_prepare_spec(ChashRingSpec *spec);
extern void chash_refuse_variant(const ChashRingSpec *spec);
extern void chash_check_tokens(const ChashRingSpec *spec,
							   const ChashNodeSpec *node);
extern void chash_check_slot_ranges(const ChashRingSpec *spec,
									const ChashNodeSpec *node);
extern void chash_template_build(const ChashRingSpec *spec, int node,
								 int64 count, ChashPoint *out);
extern void chash_tokens_build(const ChashRingSpec *spec,
							   const ChashNodeSpec *node, int index,
							   ChashPoint *out);
extern void chash_computed_prepare(ChashRingSpec *spec);
extern int64 chash_computed_node_points(const ChashRingSpec *spec, int node);
extern void chash_members_from(const ChashPlacement *placement, uint32 first,
							   uint32 *out, int n);
extern void chash_ring_check_node(const ChashRingSpec *spec,
								  const ChashNodeSpec *node);
extern int64 chash_ring_node_points_alone(const ChashRingSpec *settings,
										  const ChashNodeSpec *node,
										  bool check);
extern void chash_ring_check_total(const ChashRingSpec *spec, int64 total);
pg_noreturn extern void chash_error_no_active_nodes(const ChashPlacement *ring);
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

extern uint32 chash_ring_find_large(const ChashPlacement *ring, uint64 position,
									uint32 lo, uint32 hi);

/*
 * The index of the point that owns position: the first point at or after it
 * (strictly after it, for rings that say so), wrapping to the first point.
 * The ring must have points.  The owner is in position's bucket or is the
 * first point after it (bucket[b + 1]): a bucket of 8 points or fewer is
 * counted whole, past its end if need be (later points lie above position).
 */
static inline uint32
chash_ring_find(const ChashPlacement *ring, uint64 position)
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

/*
 * The node index that owns position: the placement must have an active node.
 * Always inlined: with the five chash_lookup overloads calling it, gcc -O2
 * kept it out of line, a call and a stack frame on every lookup before the
 * search of a ring or the call of a computed placement's owner.
 */
static pg_attribute_always_inline uint32
chash_placement_owner(const ChashPlacement *placement, uint64 position)
{
	if (likely(placement->kind == CHASH_PLACEMENT_POINTS))
		return chash_ring_owner(placement, chash_ring_find(placement, position));
	return placement->spec.algorithm->owner(placement, position);
}

extern void chash_placement_preference(const ChashPlacement *placement,
									   uint64 position, uint32 *out, int n);
extern void chash_placement_preference_zones(const ChashPlacement *placement,
											 uint64 position, uint32 *out,
											 int n);
extern int	chash_ring_walk_for_zones(const ChashPlacement *ring, uint32 at,
									  int n, uint32 *order, bool *seen);
extern int	chash_zones_pick(const ChashPlacement *placement,
							 const uint32 *order, int norder, uint32 *out,
							 int n);

/* The first n of a preference order from a position, or from a member */
typedef void (*ChashOrderFn) (const ChashPlacement *placement, uint64 from,
							  uint32 *out, int n);
extern int	chash_order_for_zones(const ChashPlacement *placement,
								  ChashOrderFn order_fn, uint64 from, int n,
								  uint32 *order);

/* How much of the hash space each node owns (placement/ownership.c) */
extern void chash_placement_ownership(const ChashPlacement *placement,
									  int replicas, bool distinct_zones,
									  double *owned);
extern void chash_rotation_ownership(const ChashPlacement *placement,
									 int replicas, bool distinct_zones,
									 const long double *start_share,
									 double *owned);
extern void chash_ring_ownership(const ChashPlacement *ring, int replicas,
								 double *owned);

/* The cells a preference order walks, in walk order (see placement/ownership.c) */
typedef struct ChashWalkCells
{
	uint32		count;
	/* the node owning cell i, or CHASH_SLOT_UNOWNED */
	uint32		(*owner) (const void *arg, uint32 i);
	/* the number of positions whose walk starts at cell i */
	long double (*keys) (const void *arg, uint32 i);
	const void *arg;
} ChashWalkCells;

extern void chash_walk_ownership(const ChashPlacement *placement,
								 const ChashWalkCells *cells, int replicas,
								 bool distinct_zones, double *owned);
extern void chash_ring_expected(const ChashRingSpec *spec, int replicas,
								double *expected);

/* Comparing two rings (placement/compare.c) */
typedef void (*ChashRangeEmit) (void *arg, uint64 lo, uint64 hi,
								uint32 owner_a, uint32 owner_b);
extern void chash_rings_compare(const ChashPlacement *a, const ChashPlacement *b,
								uint64 first, uint64 last, uint64 max,
								ChashRangeEmit emit, void *arg);

extern int64 chash_ring_count_points(const ChashRingSpec *spec,
									 int64 *node_counts);
extern void chash_sort_points(ChashPoint *points, uint32 n, int bits);
extern ChashPoint *chash_ring_build_points(const ChashRingSpec *spec,
										   uint32 *npoints);
extern ChashPlacement *chash_ring_from_points(const ChashRingSpec *spec,
											  ChashPoint *points, uint32 npoints,
											  MemoryContext parent);
extern ChashPlacement *chash_ring_build(const ChashRingSpec *spec,
										MemoryContext parent);
extern ChashPlacement *chash_placement_build(const ChashRingSpec *spec,
											 MemoryContext parent);

/*
 * Placements by a table (placement/slot_table.c): position mod size picks a
 * slot, which holds the index of the node owning it (CHASH_SLOT_UNOWNED if
 * none). The data of every algorithm with has_table.
 */
#define CHASH_SLOT_UNOWNED PG_UINT32_MAX

typedef struct ChashSlotTable
{
	uint32		size;
	uint32	   *slots;
	uint32		nowners;		/* distinct nodes owning a slot */
} ChashSlotTable;

extern uint32 chash_table_size(const ChashRingSpec *spec);
extern void chash_table_check_size(const ChashRingSpec *spec);
extern ChashSlotTable *chash_table_new(const ChashRingSpec *spec);
extern void chash_table_count_owners(ChashSlotTable *table, int nnodes);
extern void chash_table_walk(const ChashPlacement *placement, uint32 slot,
							 uint32 *out, int n, bool *seen);
extern void chash_table_preference(const ChashPlacement *placement,
								   uint64 position, uint32 *out, int n);
extern void chash_table_ownership(const ChashPlacement *placement,
								  int replicas, bool distinct_zones,
								  double *owned);

/* Shares of keys in a space of 2^bits positions, for computed placements */
extern double chash_space_share(uint64 count, int bits);

#endif							/* CHASH_PLACEMENT_H */
