/*
 * bench_util.h
 *		What the C programs of make bench share: arguments, errors, the
 *		clock, the keys "key:1" .. "key:N", and the report of timed passes.
 *
 * Each program defines BENCH_PROGRAM (its name, for messages) before
 * including this file.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void
fail(const char *what, const char *detail)
{
	fprintf(stderr, BENCH_PROGRAM ": %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
	exit(2);
}

static inline void *
xmalloc(size_t size)
{
	void	   *p = malloc(size);

	if (p == NULL)
		fail("out of memory", NULL);
	return p;
}

static inline long
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

static inline double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* The keys "key:1" .. "key:nkeys", made before any timing */
typedef struct BenchKeys
{
	long		n;
	char	   *buf;
	size_t	   *off;
	size_t	   *len;
} BenchKeys;

static inline BenchKeys
make_keys(long nkeys)
{
	BenchKeys	k;
	size_t		at = 0;

	k.n = nkeys;
	k.buf = xmalloc((size_t) nkeys * 16);
	k.off = xmalloc(sizeof(size_t) * nkeys);
	k.len = xmalloc(sizeof(size_t) * nkeys);
	for (long i = 0; i < nkeys; i++)
	{
		int			n = sprintf(k.buf + at, "key:%ld", i + 1);

		k.off[i] = at;
		k.len[i] = (size_t) n;
		at += (size_t) n;
	}
	return k;
}

/*
 * The report of the timed passes (sorted here), and the routes: one
 * "key<TAB>server" line per key, server_of giving each key's server name
 */
static inline void
report(double *pass_ns, long repeats, const BenchKeys *keys,
	   unsigned points, uint64_t checksum, const char *routes_path,
	   const char *(*server_of) (long i, void *arg), void *arg)
{
	FILE	   *f;

	qsort(pass_ns, repeats, sizeof(double), cmp_double);
	printf("best_ns_per_key=%.2f\n", pass_ns[0] / keys->n);
	printf("median_ns_per_key=%.2f\n", pass_ns[repeats / 2] / keys->n);
	printf("points=%u\n", points);
	printf("checksum=%llu\n", (unsigned long long) checksum);

	if ((f = fopen(routes_path, "w")) == NULL)
		fail(routes_path, strerror(errno));
	for (long i = 0; i < keys->n; i++)
	{
		fwrite(keys->buf + keys->off[i], 1, keys->len[i], f);
		fprintf(f, "\t%s\n", server_of(i, arg));
	}
	if (fclose(f) != 0)
		fail("write error", routes_path);
}

#endif							/* BENCH_UTIL_H */
