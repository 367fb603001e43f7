/*
 * core_bench.c
 *		chash's ketama lookup outside PostgreSQL, timed: the chash side of
 *		figure 9 of test/bench/bench.sh, whose peer is ketama_bench.c
 *		(libmemcached's memcached_generate_hash).
 *
 *   core_bench NSERVERS NKEYS REPEATS ROUTES
 *
 * Builds, with chash's own pure code (test/bin/pure-code.sh: placements,
 * algorithms and hashes, linked in; test/unit/server_stubs.c stands in for
 * the server),
 * the ring that chash_ring_create('k', algorithm => 'ketama') gets with
 * nodes 10.0.0.1, 10.0.0.2, ... of weight 1, added in that order: the
 * servers of ketama_bench.c.  Then routes the keys "key:1" .. "key:NKEYS" as
 * chash_lookup does (the key's MD5 hash, then chash_ring_find and the
 * point's owner), REPEATS timed passes after one untimed pass.  The keys
 * are made beforehand.  Prints what ketama_bench prints,
 *
 *   best_ns_per_key=, median_ns_per_key=, points=, checksum=
 *
 * and writes ROUTES: one "key<TAB>node" line per key.
 */
#include "postgres.h"

#define BENCH_PROGRAM "core_bench"
#include "bench_util.h"

#include "placement/placement.h"

static int
cmp_node(const void *a, const void *b)
{
	return chash_node_spec_cmp((const ChashNodeSpec *) a,
							   (const ChashNodeSpec *) b);
}

/* The node that owns a key, as chash_lookup finds it */
static inline uint32
route_key(const ChashPlacement *ring, const char *key, size_t len)
{
	uint64		position = ring->spec.key_hash->fn((const unsigned char *) key, len);

	return chash_ring_owner(ring, chash_ring_find(ring, position));
}

typedef struct Routes
{
	const ChashPlacement *ring;
	uint32	   *route;
} Routes;

static const char *
node_of(long i, void *arg)
{
	Routes	   *r = arg;

	return r->ring->spec.nodes[r->route[i]].name;
}

int
main(int argc, char **argv)
{
	ChashRingSpec spec;
	Routes		routes;
	long		nservers,
				nkeys,
				repeats;
	BenchKeys	keys;
	double	   *pass_ns;
	uint64		sink = 0;		/* printed, so that no pass is optimized away */

	if (argc != 5)
	{
		fprintf(stderr, "usage: %s NSERVERS NKEYS REPEATS ROUTES\n", argv[0]);
		return 2;
	}
	nservers = arg_long(argv[1], 1, 65536, "bad NSERVERS");
	nkeys = arg_long(argv[2], 1, 100000000, "bad NKEYS");
	repeats = arg_long(argv[3], 1, 1000, "bad REPEATS");

	/* the spec chash_catalog_read_ring would read; nodes in name order */
	memset(&spec, 0, sizeof(spec));
	strlcpy(spec.name, "k", sizeof(spec.name));
	spec.algorithm = chash_algorithm_get("ketama");
	spec.hash = chash_hash_get(spec.algorithm->default_hash);
	spec.key_hash = spec.hash;
	spec.vnodes = 160;
	spec.vnode_name = spec.algorithm->default_vnode_name;
	spec.vnode_name_utf8 = spec.vnode_name;
	spec.vnode_name_utf8_len = strlen(spec.vnode_name);
	spec.vnode_first = 0;
	spec.variant = spec.algorithm->default_variant;
	spec.nnodes = nservers;
	spec.nodes = palloc0(sizeof(ChashNodeSpec) * nservers);
	for (long i = 0; i < nservers; i++)
	{
		ChashNodeSpec *n = &spec.nodes[i];

		n->name = psprintf("10.0.%ld.%ld", i / 250, i % 250 + 1);
		n->name_len = strlen(n->name);
		n->name_utf8 = n->name;
		n->name_utf8_len = n->name_len;
		n->weight = 1;
		n->active = true;
		n->ordinal = i + 1;
	}
	qsort(spec.nodes, nservers, sizeof(ChashNodeSpec), cmp_node);
	chash_ring_prepare_spec(&spec);
	routes.ring = chash_ring_build(&spec, NULL);

	keys = make_keys(nkeys);
	routes.route = xmalloc(sizeof(uint32) * nkeys);
	pass_ns = xmalloc(sizeof(double) * repeats);

	/* untimed pass, which records the routes */
	for (long i = 0; i < nkeys; i++)
		routes.route[i] = route_key(routes.ring, keys.buf + keys.off[i], keys.len[i]);

	for (long r = 0; r < repeats; r++)
	{
		double		start = now_ns();
		uint64		acc = 0;

		for (long i = 0; i < nkeys; i++)
			acc += route_key(routes.ring, keys.buf + keys.off[i], keys.len[i]);
		pass_ns[r] = now_ns() - start;
		sink += acc;
	}
	report(pass_ns, repeats, &keys, routes.ring->npoints, sink, argv[4],
		   node_of, &routes);
	return 0;
}
