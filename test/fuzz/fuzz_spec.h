/*
 * fuzz_spec.h
 *		Ring specs decoded from fuzz input, built and checked against a
 *		reference build: what fuzz_ring.c and fuzz_compare.c share.
 */
#ifndef CHASH_FUZZ_SPEC_H
#define CHASH_FUZZ_SPEC_H

#include "fuzz.h"

/* Small bounds, so that each input runs in well under a second */
#define FUZZ_MAX_NODES			8
/* rings with more points, or more bytes of names to hash, are not built */
#define FUZZ_MAX_BUILD_POINTS	4096
#define FUZZ_MAX_BUILD_BYTES	(1024 * 1024)

/*
 * Decoding.  A spec is, byte by byte (see fuzz_spec.c for the choices):
 * algorithm, hash, key_hash, vnodes, vnode_first, template, variant, ties,
 * the number of nodes, then each node: name, flags (default port, down),
 * weight, vnodes, ordinal.  Strings are a length byte and the bytes.  The
 * spec's nodes are unique and sorted as the catalog reads them; nothing is
 * prepared yet.
 */
extern ChashRingSpec *fuzz_decode_spec(FuzzInput *in);
extern void fuzz_decode_node(FuzzInput *in, const ChashRingSpec *spec,
							 ChashNodeSpec *node, int k);
/* a node's weight: 1, one of a table of edge values, or a raw double */
extern double fuzz_decode_weight(FuzzInput *in);
/* make names unique (appending "~k") and sort the nodes by name */
extern void fuzz_normalize_nodes(ChashRingSpec *spec);

/* A spec taken through prepare, count and (if small enough) build */
typedef struct FuzzBuilt
{
	ChashRingSpec *spec;
	bool		prepared;		/* chash_ring_prepare_spec accepted it */
	bool		counted;		/* and chash_ring_count_points */
	int64	   *counts;			/* each node's points */
	int64		total;
	ChashPlacement *ring;			/* the built ring, NULL if too big */
	ChashPoint *ref;			/* the reference build's points */
} FuzzBuilt;

/*
 * Prepare, count and build spec, checking each step: the derived settings,
 * each node's count (for the ring algorithm, against its formula), the
 * points of chash_ring_build_points and the built ring (positions, owners,
 * buckets, the spec's copy) against a reference build written here, and
 * the points' labels.  An ERROR from prepare or count is an expected
 * outcome (false, with b->prepared / b->counted saying where); once the
 * count is accepted, the build must not raise one.  Returns whether a ring
 * was built.
 */
extern bool fuzz_build(ChashRingSpec *spec, FuzzBuilt *b);

/*
 * Check a built ring against b's reference points and counts: positions,
 * owners, the padding, each node's points, the bucket index by its
 * definition, and the ring's copy of the spec
 */
extern void fuzz_check_ring(const FuzzBuilt *b, const ChashPlacement *ring);

/*
 * A ring of points chosen by the input, as test/unit/ring_test.c chooses
 * them but to the fuzzer's liking; bits 32 or 64, keys at or strictly
 * after a point.  Input: the number of nodes (1 to FUZZ_CHOSEN_NODES), a
 * first position, then points until a 0xFF byte: a kind byte, what the
 * kind takes, and the node.  Kinds: 0x00-0x5F the last position plus
 * (kind & 0x1f), 0x60-0x9F near a multiple of 2^(bits - 16), a bucket's
 * start whatever the number of buckets (two bytes), 0xA0-0xCF any (eight
 * bytes), 0xD0-0xFE an end of the space (0, 1, the largest and the one
 * below it); from 0xE0, where share has points, one of share's positions
 * instead (a byte), or one beside it.  chash_sort_points must sort the
 * points as qsort does and chash_ring_from_points pack them as
 * fuzz_check_ring checks; b describes the ring then.
 */
#define FUZZ_CHOSEN_NODES	16
extern ChashPlacement *fuzz_chosen_ring(FuzzInput *in, int bits, bool strict,
										const ChashPlacement *share, FuzzBuilt *b);

/* The owner's index by a plain binary search over ring->positions */
extern uint32 fuzz_ref_find(const ChashPlacement *ring, uint64 key);

/* chash_ring_find at key against fuzz_ref_find */
extern void fuzz_check_find(const ChashPlacement *ring, uint64 key);

/* A shallow copy of spec with its own array of nodes (room for one more) */
extern ChashRingSpec *fuzz_copy_spec(const ChashRingSpec *spec);

/* Seeds: a spec as fuzz_decode_spec reads it */
typedef struct SeedNode
{
	const char *name;
	bool		default_port;
	bool		down;
	uint8		weight;			/* a weight code: 0 is 1, see fuzz_spec.c */
	uint8		vnodes;			/* a vnodes code: 0 is unset */
	uint8		ordinal;		/* below 0xF0 */
} SeedNode;

typedef struct SeedSpec
{
	const char *algorithm;
	const char *hash;			/* NULL: ketama's md5, or the first */
	const char *key_hash;		/* NULL: the hash */
	uint8		vnodes;			/* a vnodes code: below 200, 1 + v % 64 */
	uint8		vnode_first;	/* below 200: itself */
	const char *tmpl;			/* NULL: the algorithm's default */
	const char *variant;		/* NULL, or one of the five */
	const char *ties;			/* NULL, or name, first, last */
	int			nnodes;
	SeedNode	nodes[FUZZ_MAX_NODES];
} SeedSpec;

extern void seed_spec(FuzzSeed *s, const SeedSpec *spec);
extern void seed_node(FuzzSeed *s, const SeedNode *node);

#endif							/* CHASH_FUZZ_SPEC_H */
