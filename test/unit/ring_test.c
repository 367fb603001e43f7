/*
 * ring_test.c
 *		Unit tests of chash's ring code, run outside the server (make test,
 *		through test/scripts/unit.sh):
 *
 *	- chash_sort_points against qsort with the ring order (position, node,
 *	  vnode) written again here;
 *	- chash_ring_find, and the owner it gives, against a plain binary search
 *	  over the sorted positions, on rings made of chosen positions with
 *	  chash_ring_from_points: 32- and 64-bit, keys at or strictly after a
 *	  point, 1 to 4,194,304 points, up to 70,000 nodes (4-byte owners).
 *	  Positions are uniform, few and repeated, all equal, crowded into a
 *	  corner of the space (one huge bucket), at the ends of the space, or in
 *	  runs of 7 to 100 consecutive values (buckets of just those sizes).
 *	  Keys: every point (of big rings, some 100,000) and its neighbours,
 *	  every bucket's first position and its neighbours, 0, the largest
 *	  position, and random ones;
 *	- that builds check for interrupts by the bytes they hash, so that a
 *	  ring of long vnode names can be cancelled (server_stubs.c counts the
 *	  checks).
 *
 * SQL cannot aim keys at those places: a key's position is a hash.
 *
 *   ring_test [SEED]
 *
 * Prints a line per ring shape and a total; exits 1 if any check failed.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "placement/placement.h"

static uint64 rng = 0x2545F4914F6CDD1DULL;
static long checks = 0;
static long failures = 0;

/* counted by server_stubs.c's ProcessInterrupts */
extern long chash_test_interrupt_checks;

static uint64
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
check(bool ok, const char *what, uint64 a, uint64 b)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "ring_test: FAILED %s (%llu, %llu)\n", what,
				(unsigned long long) a, (unsigned long long) b);
}

/* The ring order, as the reference */
static int
ref_cmp(const void *a, const void *b)
{
	const ChashPoint *x = a;
	const ChashPoint *y = b;

	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->vnode < y->vnode ? -1 : x->vnode > y->vnode;
}

typedef enum Shape
{
	UNIFORM,
	FEW_VALUES,					/* 5 positions, many points each */
	ALL_EQUAL,
	CORNER,						/* below 2^15: all in the first bucket */
	ENDS,						/* 0, 1, the largest and the one below */
	RUNS						/* runs of 7 to 100 consecutive positions */
} Shape;

static const char *const shape_names[] = {
	"uniform", "few values", "all equal", "corner", "ends", "runs"
};

static uint64
max_position(int bits)
{
	return bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
}

static ChashPoint *
make_points(Shape shape, int bits, uint32 n, uint32 nnodes)
{
	ChashPoint *p = palloc(sizeof(ChashPoint) * Max(n, 1));
	uint64		max = max_position(bits);
	uint64		few[5];
	static const int run_lengths[] = {7, 8, 9, 15, 16, 17, 32, 33, 100};
	uint32		i = 0;

	for (int k = 0; k < 5; k++)
		few[k] = rnd() & max;
	while (i < n)
	{
		uint64		pos;

		switch (shape)
		{
			case UNIFORM:
				pos = rnd() & max;
				break;
			case FEW_VALUES:
				pos = few[rnd() % 5];
				break;
			case ALL_EQUAL:
				pos = few[0];
				break;
			case CORNER:
				pos = rnd() & 0x7fff;
				break;
			case ENDS:
				{
					uint64		e[4] = {0, 1, max - 1, max};

					pos = (rnd() % 3 == 0) ? rnd() & max : e[rnd() % 4];
				}
				break;
			case RUNS:
				{
					int			len = run_lengths[rnd() % lengthof(run_lengths)];
					uint64		base = rnd() & max;

					if (base > max - 200)
						base = max - 200;
					for (int k = 0; k < len && i < n; k++, i++)
					{
						p[i].position = base + k;
						p[i].node = (uint32) (rnd() % nnodes);
						p[i].vnode = i;
					}
					continue;
				}
			default:
				pg_unreachable();
		}
		p[i].position = pos;
		p[i].node = (uint32) (rnd() % nnodes);
		/* repeated (node, vnode) pairs too, as weights never make them */
		p[i].vnode = (shape == FEW_VALUES || shape == ALL_EQUAL) ? i % 7 : i;
		i++;
	}
	return p;
}

/* chash_sort_points against qsort; returns the sorted points */
static ChashPoint *
test_sort(ChashPoint *p, uint32 n, int bits)
{
	ChashPoint *ref = palloc(sizeof(ChashPoint) * Max(n, 1));

	memcpy(ref, p, sizeof(ChashPoint) * n);
	qsort(ref, n, sizeof(ChashPoint), ref_cmp);
	chash_sort_points(p, n, bits);
	check(memcmp(ref, p, sizeof(ChashPoint) * n) == 0, "sort order", n, bits);
	pfree(ref);
	return p;
}

/* The owner's index as the ring defines it, by a plain binary search */
static uint32
ref_find(const uint64 *pos, uint32 n, uint64 key, bool strict)
{
	uint32		lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (strict ? pos[mid] <= key : pos[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == n ? 0 : lo;
}

static void
test_key(const ChashPlacement *ring, const ChashPoint *sorted, const uint64 *pos,
		 uint64 key)
{
	uint32		got,
				want;

	if (key > ring->max_position)
		return;
	got = chash_ring_find(ring, key);
	want = ref_find(pos, ring->npoints, key, ring->spec.strictly_after);
	check(got == want, "owner's index", key, got);
	check(chash_ring_owner(ring, got) == sorted[want].node, "owner", key, got);
}

static void
test_ring(Shape shape, int bits, bool strict, uint32 n, uint32 nnodes)
{
	ChashRingSpec spec;
	ChashPoint *points = make_points(shape, bits, n, nnodes);
	ChashPoint *sorted;
	uint64	   *pos;
	const ChashPlacement *ring;
	uint64		max = max_position(bits);

	points = test_sort(points, n, bits);
	if (n == 0)
		return;

	/* a ring of these points, as chash_ring_build would pack them */
	memset(&spec, 0, sizeof(spec));
	strlcpy(spec.name, "t", sizeof(spec.name));
	spec.algorithm = chash_algorithm_get("ring");
	spec.hash = chash_hash_get(bits == 64 ? "xxh3_64" : "murmur3_32");
	spec.key_hash = spec.hash;
	spec.vnodes = 1;
	spec.vnode_name = spec.vnode_name_utf8 = "{node}#{i}";
	spec.vnode_name_utf8_len = strlen(spec.vnode_name);
	spec.nnodes = nnodes;
	spec.nodes = palloc0(sizeof(ChashNodeSpec) * nnodes);
	for (uint32 k = 0; k < nnodes; k++)
	{
		spec.nodes[k].name = spec.nodes[k].name_utf8 = psprintf("n%u", k);
		spec.nodes[k].name_len = spec.nodes[k].name_utf8_len =
			strlen(spec.nodes[k].name);
		spec.nodes[k].weight = 1;
		spec.nodes[k].active = true;
	}
	spec.strictly_after = strict;

	sorted = palloc(sizeof(ChashPoint) * n);
	memcpy(sorted, points, sizeof(ChashPoint) * n);
	pos = palloc(sizeof(uint64) * n);
	for (uint32 j = 0; j < n; j++)
		pos[j] = sorted[j].position;
	ring = chash_ring_from_points(&spec, points, n, NULL);
	check(ring->npoints == n, "points", ring->npoints, n);
	check((ring->owners16 != NULL) == (nnodes <= 65536), "owner width",
		  nnodes, 0);

	/* every point and its neighbours (some 100,000 points of big rings) */
	for (uint32 j = 0; j < n; j += 1 + n / 100000)
	{
		test_key(ring, sorted, pos, pos[j]);
		if (pos[j] > 0)
			test_key(ring, sorted, pos, pos[j] - 1);
		if (pos[j] < max)
			test_key(ring, sorted, pos, pos[j] + 1);
	}
	/* every bucket's first position and its neighbours */
	for (uint32 b = 0; b < ring->nbuckets; b++)
	{
		uint64		start = (uint64) b << ring->bucket_shift;

		test_key(ring, sorted, pos, start);
		if (start > 0)
			test_key(ring, sorted, pos, start - 1);
		test_key(ring, sorted, pos, start + 1);
	}
	test_key(ring, sorted, pos, 0);
	test_key(ring, sorted, pos, max);
	for (int r = 0; r < 20000; r++)
		test_key(ring, sorted, pos, rnd() & max);

	/* the ring's own memory is not freed here: it is a small test */
	pfree(sorted);
	pfree(pos);
}

/*
 * A ring of one node whose vnode names are long: a 1,024-byte node name 42
 * times in a 255-byte template, 43 kB a name.  Building it must check for
 * interrupts about once per CHASH_WORK_PER_INTERRUPT_CHECK of work, not
 * once per 4,096 names (or 1,024 MD5 digests), which would hash gigabytes
 * between two checks.
 */
static void
test_interrupt_checks(const char *algorithm, const char *hash, int vnodes)
{
	ChashRingSpec spec;
	StringInfoData tmpl;
	char	   *name = palloc(CHASH_MAX_NODE_NAME + 1);
	ChashPoint *points;
	uint32		npoints;
	int64		names;
	int64		work;

	memset(name, 'n', CHASH_MAX_NODE_NAME);
	name[CHASH_MAX_NODE_NAME] = '\0';
	initStringInfo(&tmpl);
	while (tmpl.len + 6 + 3 <= CHASH_MAX_TEMPLATE)
		appendStringInfoString(&tmpl, "{node}");
	appendStringInfoString(&tmpl, "{i}");

	memset(&spec, 0, sizeof(spec));
	strlcpy(spec.name, "long", sizeof(spec.name));
	spec.algorithm = chash_algorithm_get(algorithm);
	spec.hash = spec.key_hash = chash_hash_get(hash);
	spec.vnodes = vnodes;
	spec.vnode_name = spec.vnode_name_utf8 = tmpl.data;
	spec.vnode_name_utf8_len = tmpl.len;
	spec.nnodes = 1;
	spec.nodes = palloc0(sizeof(ChashNodeSpec));
	spec.nodes[0].name = spec.nodes[0].name_utf8 = name;
	spec.nodes[0].name_len = spec.nodes[0].name_utf8_len = CHASH_MAX_NODE_NAME;
	spec.nodes[0].weight = 1;
	spec.nodes[0].active = true;
	chash_ring_prepare_spec(&spec);

	chash_test_interrupt_checks = 0;
	InterruptPending = true;
	points = chash_ring_build_points(&spec, &npoints);
	InterruptPending = false;

	/* ketama hashes one name a digest of four points */
	names = strcmp(algorithm, "ketama") == 0 ? npoints / 4 : npoints;
	work = names * ((int64) (tmpl.len - 3) / 6 * CHASH_MAX_NODE_NAME +
					CHASH_WORK_PER_NAME);
	check(npoints == (uint32) vnodes, "points of a ring of long names",
		  npoints, vnodes);
	check(chash_test_interrupt_checks >= work / CHASH_WORK_PER_INTERRUPT_CHECK,
		  "interrupt checks by work", chash_test_interrupt_checks,
		  work / CHASH_WORK_PER_INTERRUPT_CHECK);
	printf("ring_test: %s ring of %lld names of %lld bytes: %ld interrupt checks\n",
		   algorithm, (long long) names,
		   (long long) ((tmpl.len - 3) / 6 * CHASH_MAX_NODE_NAME + 1),
		   chash_test_interrupt_checks);
	pfree(points);
}

int
main(int argc, char **argv)
{
	static const uint32 sizes[] = {
		1, 2, 3, 7, 8, 9, 16, 17, 33, 100, 1000, 16000, 300000, 600000
	};

	if (argc > 1)
		rng = strtoull(argv[1], NULL, 10) | 1;
	for (int shape = UNIFORM; shape <= RUNS; shape++)
	{
		long		before = checks;

		for (int bits = 32; bits <= 64; bits += 32)
			for (int strict = 0; strict <= 1; strict++)
				for (int s = 0; s < lengthof(sizes); s++)
					test_ring(shape, bits, strict, sizes[s],
							  1 + (uint32) (rnd() % 300));
		printf("ring_test: %-10s %ld checks\n", shape_names[shape],
			   checks - before);
	}
	{
		long		before = checks;

		/* 4-byte owners; 64 points a bucket, entered by interpolation */
		test_ring(UNIFORM, 64, false, 200000, 70000);
		test_ring(UNIFORM, 64, false, 4194304, 4);
		test_ring(UNIFORM, 32, true, 4194304, 4);
		test_sort(make_points(UNIFORM, 64, 0, 1), 0, 64);
		printf("ring_test: %-10s %ld checks\n", "big, wide", checks - before);
	}
	test_interrupt_checks("ring", "xxh3_64", 200);
	test_interrupt_checks("ketama", "md5", 200);
	printf("ring_test: %ld checks, %ld failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
