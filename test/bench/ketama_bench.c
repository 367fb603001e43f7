/*
 * ketama_bench.c
 *		libmemcached's ketama lookup, timed: the C side of figure 8 of
 *		test/bench/bench.sh.
 *
 *   ketama_bench NSERVERS NKEYS REPEATS ROUTES
 *
 * Builds libmemcached's weighted ketama continuum for NSERVERS servers
 * 10.0.0.1, 10.0.0.2, ... (port 11211, weight 1: the set-up of
 * test/compat/libmemcached_routes.c and of a chash ring with
 * algorithm => 'ketama', nodes '10.0.0.1', ...), then looks up the keys
 * "key:1" .. "key:NKEYS" with memcached_generate_hash() (MD5 of the key and
 * a binary search of the continuum), REPEATS timed passes after one
 * untimed warm-up pass.  The keys are made beforehand, so a pass is the
 * bare loop of calls.  Prints, on standard output,
 *
 *   best_ns_per_key=<the fastest pass, ns per key>
 *   median_ns_per_key=<the median pass>
 *   points=<points in the continuum>
 *   checksum=<the sum of the server indexes of the timed passes>
 *
 * and writes ROUTES: one "key<TAB>server" line per key, the server that
 * libmemcached picks, for bench.sh to compare with chash_lookup().
 * No connection is made.
 *
 * Build: gcc -O2 -o ketama_bench ketama_bench.c -lmemcached (bench_util.h
 * beside it)
 */
#define BENCH_PROGRAM "ketama_bench"
#include "bench_util.h"

#include <libmemcached/memcached.h>

/* Debian's libmemcached asserts servers * 100 <= MEMCACHED_CONTINUUM_SIZE */
#define MAX_SERVERS (MEMCACHED_CONTINUUM_SIZE / MEMCACHED_POINTS_PER_SERVER)

typedef struct Routes
{
	char	  **servers;
	uint32_t   *route;
} Routes;

static const char *
server_of(long i, void *arg)
{
	Routes	   *r = arg;

	return r->servers[r->route[i]];
}

int
main(int argc, char **argv)
{
	memcached_st *memc;
	long		nservers,
				nkeys,
				repeats;
	BenchKeys	keys;
	Routes		routes;
	double	   *pass_ns;
	uint64_t	sink = 0;		/* printed, so that no pass is optimized away */

	if (argc != 5)
	{
		fprintf(stderr, "usage: %s NSERVERS NKEYS REPEATS ROUTES\n", argv[0]);
		return 2;
	}
	nservers = arg_long(argv[1], 1, MAX_SERVERS, "bad NSERVERS (libmemcached takes 1 to 100)");
	nkeys = arg_long(argv[2], 1, 100000000, "bad NKEYS");
	repeats = arg_long(argv[3], 1, 1000, "bad REPEATS");

	memc = memcached_create(NULL);
	if (memc == NULL)
		fail("memcached_create failed", NULL);
	if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) != MEMCACHED_SUCCESS)
		fail("memcached_behavior_set(MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED)",
			 memcached_last_error_message(memc));
	routes.servers = xmalloc(sizeof(char *) * nservers);
	for (long i = 0; i < nservers; i++)
	{
		char		host[32];

		snprintf(host, sizeof(host), "10.0.%ld.%ld", i / 250, i % 250 + 1);
		if ((routes.servers[i] = strdup(host)) == NULL)
			fail("out of memory", NULL);
		if (memcached_server_add_with_weight(memc, host, MEMCACHED_DEFAULT_PORT, 1) != MEMCACHED_SUCCESS)
			fail("memcached_server_add_with_weight", memcached_last_error_message(memc));
	}

	keys = make_keys(nkeys);
	routes.route = xmalloc(sizeof(uint32_t) * nkeys);
	pass_ns = xmalloc(sizeof(double) * repeats);

	/* warm-up pass (builds the continuum), which also records the routes */
	for (long i = 0; i < nkeys; i++)
	{
		routes.route[i] = memcached_generate_hash(memc, keys.buf + keys.off[i], keys.len[i]);
		if (routes.route[i] >= (uint32_t) nservers)
			fail("memcached_generate_hash() returned no server", NULL);
	}

	for (long r = 0; r < repeats; r++)
	{
		double		start = now_ns();
		uint64_t	acc = 0;

		for (long i = 0; i < nkeys; i++)
			acc += memcached_generate_hash(memc, keys.buf + keys.off[i], keys.len[i]);
		pass_ns[r] = now_ns() - start;
		sink += acc;
	}
	report(pass_ns, repeats, &keys, memc->ketama.continuum_points_counter,
		   sink, argv[4], server_of, &routes);
	memcached_free(memc);
	return 0;
}
