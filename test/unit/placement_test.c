/*
 * placement_test.c
 *		Unit tests of the costly calls of computed placements, run outside
 *		the server (make test, through test/scripts/unit.sh):
 *
 *	- preference lists (chash_lookup_n) against a sort of every member by
 *	  its score, written again here, for 1 to 1,000 members of equal and
 *	  of unequal weights, and lists of 1 to all of them;
 *	- preference lists by zones against chash_zones_pick over the whole
 *	  order, on rendezvous, jump and maglev placements, which now compute
 *	  only as much of the order as the pick needs;
 *	- ownership by zones of rotations (modulo, jump: the members from the
 *	  owner on) against the pick from each member's whole order, now that
 *	  they take only as much of it as the zones need;
 *	- ownership of placements that walk cells (rings of points, maglev
 *	  and slots tables), with replicas and by zones, against the pick from
 *	  each cell's whole walk, now that one pass of move-to-front lists of
 *	  nodes and of zones serves every cell;
 *	- ownership with replicas (chash_ownership) against its integral
 *	  written again plainly here, member by member (groups x members a
 *	  step, where the placement halves), with and without zones, and with
 *	  fewer zones than replicas;
 *	- that these check for interrupts by the work they do: ownership every
 *	  step of its integral, preference lists every few thousand members,
 *	  and keyed lookups (variant pymemcache, which hashes the key once a
 *	  node) by the bytes hashed, so before each node's hash of a long key
 *	  (server_stubs.c counts the checks).
 *
 *   placement_test [SEED]
 *
 * Prints a line per part and a total; exits 1 if any check failed.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "common/chash.h"
#include "placement/placement.h"

static uint64 rng = 0x9E3779B97F4A7C15ULL;
static long checks = 0;
static long failures = 0;

/* counted by server_stubs.c's ProcessInterrupts */
extern long chash_test_interrupt_checks;

/* what make_placement gives rings of points and tables */
static int	test_vnodes = 1;
static int	test_table_size = 0;

static uint64
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
check(bool ok, const char *what, double a, double b)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "placement_test: FAILED %s (%.17g, %.17g)\n", what,
				a, b);
}

/*
 * A ring of n active nodes "n00000", ...: weights 1, or from 0.5 to 4;
 * zones "z0" .. of node k % nzones, none if nzones is 0
 */
static ChashPlacement *
make_placement(const char *algorithm, const char *hash, const char *variant,
			   int n, bool weighted, int nzones)
{
	ChashRingSpec *spec = palloc0(sizeof(ChashRingSpec));

	strlcpy(spec->name, "test", sizeof(spec->name));
	spec->algorithm = chash_algorithm_get(algorithm);
	spec->hash = spec->key_hash = chash_hash_get(hash);
	spec->variant = variant;
	spec->vnodes = test_vnodes;
	spec->table_size = test_table_size;
	spec->vnode_name = spec->vnode_name_utf8 = "{node}#{i}";
	spec->vnode_name_utf8_len = strlen(spec->vnode_name);
	spec->nnodes = n;
	spec->nodes = palloc0(sizeof(ChashNodeSpec) * n);
	for (int k = 0; k < n; k++)
	{
		ChashNodeSpec *node = &spec->nodes[k];
		char	   *name = palloc(16);

		snprintf(name, 16, "n%05d", k);
		node->name = node->name_utf8 = name;
		node->name_len = node->name_utf8_len = strlen(name);
		node->weight = weighted ? 0.5 + (double) (rnd() % 3500) / 1000 : 1;
		node->active = true;
		node->ordinal = k;
		if (nzones > 0)
		{
			char	   *zone = palloc(16);

			snprintf(zone, 16, "z%d", k % nzones);
			node->zone = zone;
		}
	}
	chash_ring_prepare_spec(spec);
	return chash_placement_build(spec, NULL);
}

/* The score of a member, as algorithms/rendezvous.c defines it */
static double
ref_score(const ChashPlacement *p, int m, uint64 position)
{
	const ChashNodeSpec *node = &p->spec.nodes[p->members[m]];
	uint64		seed = p->spec.hash->fn((const unsigned char *) node->name_utf8,
										node->name_utf8_len);
	uint64		z = position ^ seed;
	double		u;

	z = (z ^ (z >> 30)) * UINT64CONST(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94d049bb133111eb);
	z ^= z >> 31;
	u = ((double) (z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
	return -node->weight / log(u);
}

typedef struct Ranked
{
	double		score;
	uint32		node;
} Ranked;

/* highest score first; equal scores: the node first by name */
static int
ranked_cmp(const void *a, const void *b)
{
	const Ranked *x = a;
	const Ranked *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static void
test_preference(int n, bool weighted)
{
	ChashPlacement *p = make_placement("rendezvous", "xxh3_64", NULL, n,
									   weighted, 0);
	Ranked	   *ref = palloc(sizeof(Ranked) * n);
	uint32	   *out = palloc(sizeof(uint32) * n);
	const int	lengths[] = {1, 2, 3, n / 2, n - 1, n};

	for (int r = 0; r < 50; r++)
	{
		uint64		position = rnd();

		for (int m = 0; m < n; m++)
		{
			ref[m].score = ref_score(p, m, position);
			ref[m].node = p->members[m];
		}
		qsort(ref, n, sizeof(Ranked), ranked_cmp);
		check(chash_placement_owner(p, position) == ref[0].node,
			  "owner is the best score", chash_placement_owner(p, position),
			  ref[0].node);
		for (int l = 0; l < lengthof(lengths); l++)
		{
			int			len = lengths[l];
			bool		same = true;

			if (len < 1 || len > n)
				continue;
			chash_placement_preference(p, position, out, len);
			for (int i = 0; i < len; i++)
				same &= out[i] == ref[i].node;
			check(same, "preference list by score", n, len);
		}
	}
	pfree(out);
	pfree(ref);
}

/* distinct_zones lists against the pick from the whole order */
static void
test_zones(const char *algorithm, const char *hash, int n, int nzones)
{
	ChashPlacement *p = make_placement(algorithm, hash, NULL, n, false,
									   nzones);
	uint32	   *all = palloc(sizeof(uint32) * n);
	uint32	   *want = palloc(sizeof(uint32) * n);
	uint32	   *out = palloc(sizeof(uint32) * n);

	for (int r = 0; r < 50; r++)
	{
		uint64		position = rnd();

		chash_placement_preference(p, position, all, n);
		for (int len = 1; len <= n; len += 1 + len / 3)
		{
			bool		same = true;

			chash_zones_pick(p, all, n, want, len);
			chash_placement_preference_zones(p, position, out, len);
			for (int i = 0; i < len; i++)
				same &= out[i] == want[i];
			check(same, "preference by zones", n, len);
		}
	}
	pfree(out);
	pfree(want);
	pfree(all);
}

/*
 * Ownership of a rotation by zones against the pick from each member's
 * whole order: member s's keys (its share with one replica) go to the
 * nodes picked from the members from s on
 */
static void
test_rotation_zones(const char *algorithm, int n, int nzones, int replicas)
{
	ChashPlacement *p = make_placement(algorithm, "xxh3_64", NULL, n, false,
									   nzones);
	double	   *one = palloc(sizeof(double) * n);
	double	   *owned = palloc(sizeof(double) * n);
	double	   *ref = palloc0(sizeof(double) * n);
	uint32	   *order = palloc(sizeof(uint32) * n);
	uint32	   *picked = palloc(sizeof(uint32) * replicas);
	bool		same = true;

	chash_placement_ownership(p, 1, false, one);
	chash_placement_ownership(p, replicas, true, owned);
	for (int s = 0; s < n; s++)
	{
		chash_members_from(p, s, order, n);
		chash_zones_pick(p, order, n, picked, replicas);
		for (int r = 0; r < replicas; r++)
			ref[picked[r]] += one[p->members[s]];
	}
	for (int k = 0; k < n; k++)
		same &= fabs(owned[k] - ref[k]) <= 1e-12;
	check(same, "rotation ownership by zones", n, replicas);
	pfree(picked);
	pfree(order);
	pfree(ref);
	pfree(owned);
	pfree(one);
}

/*
 * Ownership of a placement that walks cells (a ring's points, a table's
 * slots) against the pick from each cell's whole walk: the keys of cell c,
 * those whose first cell at or after them is c, go to the first replicas
 * of chash_placement_preference from c's position, picked by zones with
 * distinct_zones
 */
static void
test_walk_ownership(const char *algorithm, const char *hash, int n,
					bool weighted, int nzones, bool distinct_zones,
					int replicas)
{
	ChashPlacement *p = make_placement(algorithm, hash, NULL, n, weighted,
									   nzones);
	int			bits = p->spec.key_hash->bits;
	long double space = ldexpl(1.0L, bits);
	double	   *owned = palloc(sizeof(double) * n);
	long double *ref = palloc0(sizeof(long double) * n);
	uint32	   *all = palloc(sizeof(uint32) * n);
	uint32	   *picked = palloc(sizeof(uint32) * replicas);
	bool		same = true;
	bool		table = p->kind != CHASH_PLACEMENT_POINTS;
	uint32		cells = table ? ((ChashSlotTable *) p->data)->size : p->npoints;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;

	chash_placement_ownership(p, replicas, distinct_zones, owned);
	for (uint32 c = 0; c < cells; c++)
	{
		long double keys;
		uint64		position;

		if (table)
		{
			keys = (long double) (max / cells) + (c <= max % cells ? 1 : 0);
			position = c;
		}
		else
		{
			/* the first point of a position owns the arc up to it */
			if (c > 0 && p->positions[c] == p->positions[c - 1])
				continue;
			position = p->positions[c];
			keys = c > 0 ? (long double) (p->positions[c] - p->positions[c - 1]) :
				space - (long double) p->positions[cells - 1] + (long double) p->positions[0];
		}
		chash_placement_preference(p, position, all, p->nactive);
		if (distinct_zones)
			chash_zones_pick(p, all, p->nactive, picked, replicas);
		else
			memcpy(picked, all, sizeof(uint32) * replicas);
		for (int r = 0; r < replicas; r++)
			ref[picked[r]] += keys;
	}
	for (int k = 0; k < n; k++)
		same &= fabs(owned[k] - (double) (ref[k] / space)) <= 1e-12;
	check(same, "walk ownership against each cell's whole walk", n, replicas);
	pfree(picked);
	pfree(all);
	pfree(ref);
	pfree(owned);
}

/* Add one event of probability q to counts[0..max], dropping the rest */
static void
ref_count_add(double *counts, int max, double q)
{
	for (int c = max; c > 0; c--)
		counts[c] = counts[c] * (1 - q) + counts[c - 1] * q;
	counts[0] *= 1 - q;
}

/*
 * Member i's share at time t, plainly: every group's chance of a first
 * before t from its members one by one (see rendezvous_ownership)
 */
static double
ref_share_at(const ChashPlacement *p, const int *group, int ngroups, int i,
			 int replicas, double t)
{
	int			n = p->nactive;
	const ChashNodeSpec *nodes = p->spec.nodes;
	double		wi = nodes[p->members[i]].weight;
	double		density = wi * exp(-wi * t);
	double		firsts[64] = {1};
	double		alone = 1;
	double		fewer = 0;
	double		result;

	for (int g = 0; g < ngroups; g++)
	{
		double		none = 1;

		for (int j = 0; j < n; j++)
		{
			if (group[j] == g && j != i)
				none *= exp(-nodes[p->members[j]].weight * t);
		}
		if (g == group[i])
			alone = none;
		else
			ref_count_add(firsts, replicas - 1, 1 - none);
	}
	for (int c = 0; c < replicas; c++)
		fewer += firsts[c];
	result = density * alone * fewer;

	if (ngroups < replicas)
	{
		int			room = replicas - ngroups;
		double		total[64] = {1};

		for (int g = 0; g < ngroups; g++)
		{
			double		within[66] = {1};
			double		later[64] = {0};
			double		next[64] = {0};

			for (int j = 0; j < n; j++)
			{
				if (group[j] == g && j != i)
					ref_count_add(within, room + 1,
								  1 - exp(-nodes[p->members[j]].weight * t));
			}
			for (int l = 0; l < room; l++)
				later[l] = within[l + 1];
			if (g != group[i])
				later[0] += within[0];
			for (int c = 0; c < room; c++)
				for (int l = 0; c + l < room; l++)
					next[c + l] += total[c] * later[l];
			memcpy(total, next, sizeof(total));
		}
		fewer = 0;
		for (int c = 0; c < room; c++)
			fewer += total[c];
		result += density * fewer;
	}
	return result;
}

static void
test_ownership(int n, int nzones, bool distinct_zones, int replicas)
{
	ChashPlacement *p = make_placement("rendezvous", "xxh3_64", NULL, n, true,
									   nzones);
	double	   *owned = palloc(sizeof(double) * n);
	int		   *group = palloc(sizeof(int) * n);
	int			ngroups = 0;
	double		total = 0;
	double		sum = 0;

	for (int m = 0; m < n; m++)
	{
		const ChashNodeSpec *node = &p->spec.nodes[p->members[m]];

		total += node->weight;
		group[m] = ngroups;
		for (int e = 0; e < m && distinct_zones && nzones > 0; e++)
		{
			if (strcmp(p->spec.nodes[p->members[e]].zone, node->zone) == 0)
			{
				group[m] = group[e];
				break;
			}
		}
		if (group[m] == ngroups)
			ngroups++;
	}
	chash_placement_ownership(p, replicas, distinct_zones, owned);
	for (int m = 0; m < n; m++)
	{
		double		ref = 0;

		/* the same quadrature: t in units of the mean weight's time */
		for (int k = -128; k <= 128; k++)
		{
			double		x = k / 32.0;
			double		t = exp(M_PI_2 * sinh(x)) * n / total;
			double		dt = t * M_PI_2 * cosh(x) / 32.0;

			ref += ref_share_at(p, group, ngroups, m, replicas, t) * dt;
		}
		check(fabs(owned[p->members[m]] - ref) <= 1e-12 * Max(ref, 1e-3),
			  "ownership against its plain integral", owned[p->members[m]],
			  ref);
		sum += owned[p->members[m]];
	}
	/* every key has its copies: the shares sum to the replicas */
	check(fabs(sum - replicas) < 1e-9, "shares sum to the replicas", sum,
		  replicas);
	pfree(group);
	pfree(owned);
}

/* Checks for interrupts while a call runs, with one pending throughout */
#define COUNT_CHECKS(call) \
	(chash_test_interrupt_checks = 0, InterruptPending = true, (call), \
	 InterruptPending = false, chash_test_interrupt_checks)

static void
test_interrupt_checks(void)
{
	ChashPlacement *p = make_placement("rendezvous", "xxh3_64", NULL, 60, true,
									   0);
	ChashPlacement *big = make_placement("rendezvous", "xxh3_64", NULL, 100000,
										 true, 0);
	ChashPlacement *keyed = make_placement("rendezvous", "pymemcache_murmur3",
										   "pymemcache", 100, false, 0);
	double	   *owned = palloc(sizeof(double) * 60);
	uint32	   *out = palloc(sizeof(uint32) * 100000);
	size_t		len = 4 * 1024 * 1024;
	unsigned char *key = palloc(len);
	long		got;

	/* ownership: each of the integral's 257 steps */
	got = COUNT_CHECKS(chash_placement_ownership(p, 3, false, owned));
	check(got >= 257, "ownership checks every step", got, 257);
	printf("placement_test: ownership of 60 weighted members, 3 replicas: %ld interrupt checks\n",
		   got);

	/* a preference list: every 4,096 members */
	got = COUNT_CHECKS(chash_placement_preference(big, rnd(), out, 3));
	check(got >= 100000 / 4096, "preference checks by members", got,
		  100000 / 4096);
	printf("placement_test: 3 of 100,000 members: %ld interrupt checks\n",
		   got);

	/*
	 * keyed lookups hash "<node>-<key>" once a node: a check by the bytes
	 * hashed, which with a key this long is before each node's hash (the
	 * hash of one key itself is not cut short)
	 */
	memset(key, 'k', len);
	got = COUNT_CHECKS(keyed->spec.algorithm->key_owner(keyed, key, len));
	check(got >= 100 - 1, "keyed owner checks a node", got, 100 - 1);
	got = COUNT_CHECKS(keyed->spec.algorithm->key_preference(keyed, key, len,
															 out));
	check(got >= 100 - 1, "keyed preference checks a node", got, 100 - 1);
	printf("placement_test: keyed lookup of a 4 MB key on 100 nodes: %ld interrupt checks\n",
		   got);
	pfree(key);
	pfree(out);
	pfree(owned);
}

int
main(int argc, char **argv)
{
	long		before;

	if (argc > 1)
		rng = strtoull(argv[1], NULL, 10) | 1;

	before = checks;
	for (int w = 0; w <= 1; w++)
	{
		static const int sizes[] = {1, 2, 3, 7, 100, 1000};

		for (int s = 0; s < lengthof(sizes); s++)
			test_preference(sizes[s], w);
	}
	printf("placement_test: %-12s %ld checks\n", "preference", checks - before);

	before = checks;
	test_zones("rendezvous", "xxh3_64", 30, 3);
	test_zones("rendezvous", "xxh3_64", 200, 7);
	test_zones("rendezvous", "xxh3_64", 9, 9);
	test_zones("jump", "xxh3_64", 40, 4);
	test_zones("maglev", "xxh3_64", 25, 5);
	test_rotation_zones("modulo", 30, 4, 3);
	test_rotation_zones("modulo", 50, 7, 6);
	test_rotation_zones("jump", 40, 3, 2);
	test_rotation_zones("jump", 12, 12, 5);
	test_rotation_zones("jump", 20, 2, 4);	/* fewer zones than replicas */
	printf("placement_test: %-12s %ld checks\n", "zones", checks - before);

	before = checks;
	test_ownership(5, 0, false, 2);
	test_ownership(8, 0, false, 3);
	test_ownership(20, 0, false, 7);
	test_ownership(9, 3, true, 2);
	test_ownership(12, 4, true, 3);
	test_ownership(7, 2, true, 3);	/* fewer zones than replicas */
	test_ownership(10, 3, true, 5);
	test_ownership(23, 6, true, 11);	/* fill-up halving over 6 groups */
	test_ownership(10, 3, false, 4);	/* zones, not distinct */
	printf("placement_test: %-12s %ld checks\n", "ownership", checks - before);

	before = checks;
	test_table_size = 1009;
	test_walk_ownership("maglev", "xxh3_64", 9, true, 0, false, 1);
	test_walk_ownership("maglev", "xxh3_64", 9, true, 0, false, 4);
	test_walk_ownership("maglev", "xxh3_64", 9, true, 3, true, 3);
	test_walk_ownership("maglev", "xxh3_64", 9, false, 2, true, 5);	/* fewer zones */
	test_walk_ownership("slots", "crc32", 7, false, 3, true, 2);
	test_walk_ownership("slots", "crc32", 7, false, 3, false, 7);
	test_table_size = 0;
	test_vnodes = 20;
	test_walk_ownership("ring", "xxh3_64", 12, true, 0, false, 1);
	test_walk_ownership("ring", "xxh3_64", 12, true, 0, false, 5);
	test_walk_ownership("ring", "xxh3_64", 12, true, 4, true, 3);
	test_walk_ownership("ring", "xxh3_64", 12, false, 3, true, 6);	/* fewer zones */
	test_walk_ownership("ring", "xxh3_64", 12, false, 12, true, 12);
	test_walk_ownership("ring", "crc32", 10, false, 5, true, 2);
	test_vnodes = 1;
	printf("placement_test: %-12s %ld checks\n", "walks", checks - before);

	test_interrupt_checks();
	printf("placement_test: %ld checks, %ld failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
