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
 * Build: gcc -O2 -o ketama_bench ketama_bench.c -lmemcached
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmemcached/memcached.h>

/* Debian's libmemcached asserts servers * 100 <= MEMCACHED_CONTINUUM_SIZE */
#define MAX_SERVERS (MEMCACHED_CONTINUUM_SIZE / MEMCACHED_POINTS_PER_SERVER)

static void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "ketama_bench: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
	exit(2);
}

static long
arg_long(const char *s, long lo, long hi, const char *what)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v < lo || v > hi)
		fail(what, s);
	return v;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	memcached_st *memc;
	long		nservers,
				nkeys,
				repeats;
	char	  **servers;
	char	   *keybuf;
	size_t	   *keyoff;
	size_t	   *keylen;
	uint32_t   *route;
	double	   *pass_ns;
	size_t		at = 0;
	uint64_t	sink = 0;		/* printed, so that no pass is optimized away */
	FILE	   *f;

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
	servers = malloc(sizeof(char *) * nservers);
	if (servers == NULL)
		fail("out of memory", NULL);
	for (long i = 0; i < nservers; i++)
	{
		char		host[32];

		snprintf(host, sizeof(host), "10.0.%ld.%ld", i / 250, i % 250 + 1);
		if ((servers[i] = strdup(host)) == NULL)
			fail("out of memory", NULL);
		if (memcached_server_add_with_weight(memc, host, MEMCACHED_DEFAULT_PORT, 1) != MEMCACHED_SUCCESS)
			fail("memcached_server_add_with_weight", memcached_last_error_message(memc));
	}

	/* the keys, made before any timing */
	keybuf = malloc((size_t) nkeys * 16);
	keyoff = malloc(sizeof(size_t) * nkeys);
	keylen = malloc(sizeof(size_t) * nkeys);
	route = malloc(sizeof(uint32_t) * nkeys);
	pass_ns = malloc(sizeof(double) * repeats);
	if (!keybuf || !keyoff || !keylen || !route || !pass_ns)
		fail("out of memory", NULL);
	for (long i = 0; i < nkeys; i++)
	{
		int			n = sprintf(keybuf + at, "key:%ld", i + 1);

		keyoff[i] = at;
		keylen[i] = (size_t) n;
		at += (size_t) n;
	}

	/* warm-up pass (builds the continuum), which also records the routes */
	for (long i = 0; i < nkeys; i++)
	{
		route[i] = memcached_generate_hash(memc, keybuf + keyoff[i], keylen[i]);
		if (route[i] >= (uint32_t) nservers)
			fail("memcached_generate_hash() returned no server", NULL);
	}

	for (long r = 0; r < repeats; r++)
	{
		double		start = now_ns();
		uint64_t	acc = 0;

		for (long i = 0; i < nkeys; i++)
			acc += memcached_generate_hash(memc, keybuf + keyoff[i], keylen[i]);
		pass_ns[r] = now_ns() - start;
		sink += acc;
	}
	qsort(pass_ns, repeats, sizeof(double), cmp_double);
	printf("best_ns_per_key=%.2f\n", pass_ns[0] / nkeys);
	printf("median_ns_per_key=%.2f\n", pass_ns[repeats / 2] / nkeys);
	printf("points=%u\n", memc->ketama.continuum_points_counter);
	printf("checksum=%llu\n", (unsigned long long) sink);

	if ((f = fopen(argv[4], "w")) == NULL)
		fail(argv[4], strerror(errno));
	for (long i = 0; i < nkeys; i++)
	{
		fwrite(keybuf + keyoff[i], 1, keylen[i], f);
		fprintf(f, "\t%s\n", servers[route[i]]);
	}
	if (fclose(f) != 0)
		fail("write error", argv[4]);
	memcached_free(memc);
	return 0;
}
