/*-------------------------------------------------------------------------
 *
 * algorithm.h
 *	  The interface of placement algorithms, and the framework they share:
 *	  points, virtual node names, tokens, members, slot tables, ownership
 *	  by walks.
 *
 * Each file of placement/algorithms/ implements one ChashAlgorithm with
 * this framework only, never with another algorithm's code.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_ALGORITHM_H
#define CHASH_ALGORITHM_H

#include "placement/spec.h"

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

typedef struct ChashPlacement ChashPlacement;

/*
 * What an algorithm builds.  Points: positions on a ring, each owned by a
 * node, and a key owned by the point the ring's lookup rule finds
 * (placement/build.c builds and searches them for every such
 * algorithm).  Computed: owners computed from the key's position and the
 * members, the active nodes in ordinal order (the client's server list).
 */
typedef enum ChashPlacementKind
{
	CHASH_PLACEMENT_POINTS,
	CHASH_PLACEMENT_COMPUTED
} ChashPlacementKind;

/*
 * Placement algorithms (placement/algorithm.c and
 * placement/algorithms/).  Point algorithms say how many points each node gets
 * and where; the others answer for themselves.
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
	 * Table placements: the slot of the table a position falls in, the
	 * unit a rebalance reassigns (placement/units.c); NULL where the
	 * owners are computed from the members alone
	 */
	uint32		(*unit) (const struct ChashPlacement *placement,
						 uint64 position);

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

/* What algorithms share (build.c, template.c, slot_table.c) */
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

#endif							/* CHASH_ALGORITHM_H */
