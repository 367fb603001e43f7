/*-------------------------------------------------------------------------
 *
 * spec.h
 *	  A ring's configuration, as the placement code takes it, and its
 *	  checks (spec.c).
 *
 * Pure code: metadata/catalog.c fills a ChashRingSpec from the catalog.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_SPEC_H
#define CHASH_SPEC_H

#include "common/chash.h"
#include "hash/hash.h"

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

#define CHASH_COLLATION_MISSING ((Oid) 0xFFFFFFFF)

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

	/*
	 * The types and collations of a key's columns, for key hashes of typed
	 * keys (key_hash->typed_keys): 0 columns, keys of any type.  A collation
	 * is InvalidOid for a type without one, CHASH_COLLATION_MISSING where
	 * the catalog names one that does not exist.
	 */
	int			nkey_types;
	const Oid  *key_types;
	const Oid  *key_collations;
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

/* Checks and descriptions of a configuration (spec.c) */
extern void chash_ring_prepare_spec(ChashRingSpec *spec);
extern void chash_refuse_variant(const ChashRingSpec *spec);
extern void chash_check_tokens(const ChashRingSpec *spec,
							   const ChashNodeSpec *node);
extern void chash_ring_check_node(const ChashRingSpec *spec,
								  const ChashNodeSpec *node);
extern int64 chash_ring_node_points_alone(const ChashRingSpec *settings,
										  const ChashNodeSpec *node,
										  bool check);
extern void chash_ring_check_total(const ChashRingSpec *spec, int64 total);
extern void chash_ring_spec_fingerprint(const ChashRingSpec *spec,
										uint8 fingerprint[16]);
extern int64 chash_ring_count_points(const ChashRingSpec *spec,
									 int64 *node_counts);

#endif							/* CHASH_SPEC_H */
