/*
 * memlat.c
 *		This machine's memory latency, for figure 2 of test/bench/bench.sh:
 *		what one read at a random place of an array costs when nothing else
 *		can overlap it.
 *
 *   memlat BYTES...
 *
 * For each size, an array of that many bytes (transparent huge pages
 * requested, as chash requests them for a ring's arrays) is linked into
 * one random cycle, then followed for 10,000,000 steps: each read needs
 * the one before.  Prints "BYTES ns_per_read" per size, the best of three
 * walks.
 */
#include <sys/mman.h>

#define BENCH_PROGRAM "memlat"
#include "bench_util.h"

#define STEPS 10000000

int
main(int argc, char **argv)
{
	uint64_t	rnd = 0x9E3779B97F4A7C15ULL;

	for (int a = 1; a < argc; a++)
	{
		size_t		n = strtoull(argv[a], NULL, 10) / sizeof(size_t);
		size_t	   *next;
		size_t		at = 0;
		double		best = 0;

		if (n < 2)
			fail("bad size", argv[a]);
		/* whole huge pages: the size rounded up to 2 MiB */
		next = aligned_alloc(2 << 20, ((n * sizeof(size_t)) | ((2 << 20) - 1)) + 1);
		if (next == NULL)
			fail("out of memory", NULL);
#ifdef MADV_HUGEPAGE
		(void) madvise(next, n * sizeof(size_t), MADV_HUGEPAGE);
#endif
		/* Sattolo's shuffle: one cycle through every slot */
		for (size_t i = 0; i < n; i++)
			next[i] = i;
		for (size_t i = n - 1; i > 0; i--)
		{
			size_t		j,
						t;

			rnd ^= rnd << 13;
			rnd ^= rnd >> 7;
			rnd ^= rnd << 17;
			j = rnd % i;
			t = next[i];
			next[i] = next[j];
			next[j] = t;
		}
		for (int r = 0; r < 3; r++)
		{
			double		start = now_ns(),
						ns;

			for (long s = 0; s < STEPS; s++)
				at = next[at];
			ns = (now_ns() - start) / STEPS;
			if (r == 0 || ns < best)
				best = ns;
		}
		printf("%s %.1f %zu\n", argv[a], best, at);
		free(next);
	}
	return 0;
}
