/*
 * fuzz_compare.c
 *		libFuzzer harness: chash_rings_compare (placement/compare.c) on two rings
 *		built from the input.
 *
 * Input: a byte choosing how the rings are made, then, three times in
 * four, ring A's spec (fuzz_spec.h), a mode byte, then either ring B's
 * own spec (one mode in four; its key hash made A's, as plans require) or
 * one to three changes of A, as a plan is made: a node added or removed,
 * set down or up, another weight, vnodes or ordinal, another ring vnodes,
 * another ketama variant or ties rule; then two positions.  Both rings are
 * built and checked as fuzz_ring builds them (fuzz_build).  The fourth
 * time, both rings are of points chosen by the input (fuzz_chosen_ring),
 * B's partly at or beside A's, each ring with keys at or strictly after
 * its points: shared positions, rings of different rules, and points at
 * the ends of the space, which hashes seldom give.  The ranges of
 * chash_rings_compare, over the whole space, over its two halves as
 * chash_moved_ranges asks for 64-bit rings, and between the two positions
 * from the input:
 *	- tile the interval asked for, in order: the first starts at its
 *	  start, each one where the last ended plus one, lo <= hi, the last
 *	  ends at its end;
 *	- are as long as the owners stay the same: neighbours differ in their
 *	  pair of owners;
 *	- agree with chash_ring_find on both rings at each range's lo, hi and
 *	  middle, and at every point of either ring and its neighbours.
 */
#include "postgres.h"

#include "fuzz_spec.h"

typedef struct Range
{
	uint64		lo;
	uint64		hi;
	uint32		a;
	uint32		b;
} Range;

typedef struct Ranges
{
	Range	   *r;
	int			n;
	int			cap;
} Ranges;

static void
emit(void *arg, uint64 lo, uint64 hi, uint32 a, uint32 b)
{
	Ranges	   *rs = arg;

	if (rs->n == rs->cap)
	{
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		rs->r = rs->r ? repalloc(rs->r, sizeof(Range) * rs->cap) :
			palloc(sizeof(Range) * rs->cap);
	}
	rs->r[rs->n].lo = lo;
	rs->r[rs->n].hi = hi;
	rs->r[rs->n].a = a;
	rs->r[rs->n].b = b;
	rs->n++;
}

static uint32
owner_at(const ChashPlacement *ring, uint64 pos)
{
	return chash_ring_owner(ring, chash_ring_find(ring, pos));
}

static void
check_at(const ChashPlacement *a, const ChashPlacement *b, const Range *r, uint64 pos,
		 const char *where)
{
	uint32		oa = owner_at(a, pos);
	uint32		ob = owner_at(b, pos);

	fuzz_check(oa == r->a && ob == r->b,
			   "range [0x%llx, 0x%llx] says owners %u and %u; at %s 0x%llx chash_ring_find gives %u and %u",
			   (unsigned long long) r->lo, (unsigned long long) r->hi,
			   r->a, r->b, where, (unsigned long long) pos, oa, ob);
}

/* The range that holds pos, of ranges tiling [first, last] */
static const Range *
range_of(const Ranges *rs, uint64 pos)
{
	int			lo = 0,
				hi = rs->n - 1;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo + 1) / 2;

		if (rs->r[mid].lo <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &rs->r[lo];
}

static void
check_point(const ChashPlacement *a, const ChashPlacement *b, const Ranges *rs,
			uint64 first, uint64 last, uint64 pos)
{
	if (pos < first || pos > last)
		return;
	check_at(a, b, range_of(rs, pos), pos, "a point's neighbourhood,");
}

static void
compare(const ChashPlacement *a, const ChashPlacement *b, uint64 first, uint64 last)
{
	uint64		max = a->max_position;
	Ranges		rs = {NULL, 0, 0};
	const ChashPlacement *rings[2] = {a, b};

	chash_rings_compare(a, b, first, last, max, emit, &rs);

	fuzz_check(rs.n >= 1, "no ranges in [0x%llx, 0x%llx]",
			   (unsigned long long) first, (unsigned long long) last);
	fuzz_check(rs.n <= (int64) a->npoints + b->npoints + 1,
			   "%d ranges from rings of %u and %u points", rs.n, a->npoints,
			   b->npoints);
	fuzz_check(rs.r[0].lo == first, "the first range starts at 0x%llx, not 0x%llx",
			   (unsigned long long) rs.r[0].lo, (unsigned long long) first);
	fuzz_check(rs.r[rs.n - 1].hi == last, "the last range ends at 0x%llx, not 0x%llx",
			   (unsigned long long) rs.r[rs.n - 1].hi, (unsigned long long) last);
	for (int i = 0; i < rs.n; i++)
	{
		const Range *r = &rs.r[i];

		fuzz_check(r->lo <= r->hi, "range %d: lo 0x%llx > hi 0x%llx", i,
				   (unsigned long long) r->lo, (unsigned long long) r->hi);
		fuzz_check(r->a < (uint32) a->spec.nnodes && r->b < (uint32) b->spec.nnodes,
				   "range %d: owners %u and %u of rings of %d and %d nodes", i,
				   r->a, r->b, a->spec.nnodes, b->spec.nnodes);
		if (i > 0)
		{
			fuzz_check(rs.r[i - 1].hi < last && r->lo == rs.r[i - 1].hi + 1,
					   "range %d starts at 0x%llx, range %d ended at 0x%llx", i,
					   (unsigned long long) r->lo, i - 1,
					   (unsigned long long) rs.r[i - 1].hi);
			fuzz_check(r->a != rs.r[i - 1].a || r->b != rs.r[i - 1].b,
					   "ranges %d and %d have the same owners %u and %u", i - 1,
					   i, r->a, r->b);
		}
		check_at(a, b, r, r->lo, "lo");
		check_at(a, b, r, r->hi, "hi");
		check_at(a, b, r, r->lo + (r->hi - r->lo) / 2, "the middle");
	}
	for (int k = 0; k < 2; k++)
	{
		for (uint32 j = 0; j < rings[k]->npoints; j++)
		{
			uint64		p = rings[k]->positions[j];

			check_point(a, b, &rs, first, last, p);
			if (p > 0)
				check_point(a, b, &rs, first, last, p - 1);
			if (p < max)
				check_point(a, b, &rs, first, last, p + 1);
		}
	}
}

/* --- ring B: a ring of its own, or A changed ---------------------------- */

static void
add_node(ChashRingSpec *spec, const ChashNodeSpec *n)
{
	ChashNodeSpec *nodes = palloc(sizeof(ChashNodeSpec) * (spec->nnodes + 1));

	memcpy(nodes, spec->nodes, sizeof(ChashNodeSpec) * spec->nnodes);
	nodes[spec->nnodes++] = *n;
	spec->nodes = nodes;
	fuzz_normalize_nodes(spec);
}

static void
change(ChashRingSpec *spec, FuzzInput *in)
{
	static const char *const variants[] = {
		NULL, "libmemcached", "libketama", "twemproxy", "uhashring", "node"
	};
	static const char *const ties[] = {NULL, "name", "first", "last"};
	uint8		op = fuzz_u8(in);
	int			j = spec->nnodes > 0 ? fuzz_u8(in) % spec->nnodes : 0;
	ChashNodeSpec n;

	if (spec->nnodes == 0 && op % 8 >= 1 && op % 8 <= 5)
		op = 0;
	switch (op % 8)
	{
		case 0:
			if (spec->nnodes < FUZZ_MAX_NODES + 3)
			{
				fuzz_decode_node(in, spec, &n, spec->nnodes);
				add_node(spec, &n);
			}
			break;
		case 1:
			memmove(&spec->nodes[j], &spec->nodes[j + 1],
					sizeof(ChashNodeSpec) * (spec->nnodes - j - 1));
			spec->nnodes--;
			break;
		case 2:
			spec->nodes[j].active = !spec->nodes[j].active;
			break;
		case 3:
			fuzz_decode_node(in, spec, &n, j);
			spec->nodes[j].weight = n.weight;
			break;
		case 4:
			fuzz_decode_node(in, spec, &n, j);
			spec->nodes[j].vnodes = n.vnodes;
			break;
		case 5:
			spec->nodes[j].ordinal = fuzz_u8(in) % 8;
			break;
		case 6:
			spec->vnodes = 4 * (1 + fuzz_u8(in) % 16) + (op & 0x80 ? 1 : 0);
			break;
		case 7:
			if (spec->algorithm == &chash_algorithm_ketama)
				spec->variant = variants[fuzz_u8(in) % lengthof(variants)];
			else
				spec->ties_name = ties[fuzz_u8(in) % lengthof(ties)];
			break;
	}
}

static ChashRingSpec *
ring_b(const ChashRingSpec *a, FuzzInput *in)
{
	uint8		mode = fuzz_u8(in);
	ChashRingSpec *b;

	if (mode % 4 == 0)
	{
		b = fuzz_decode_spec(in);
		/* keys hashed alike: the key hash of A, of the width of B's hash */
		if (b->hash->bits != a->key_hash->bits)
		{
			b->algorithm = &chash_algorithm_ring;
			b->hash = a->key_hash;
			b->variant = NULL;
		}
		b->key_hash = a->key_hash;
		return b;
	}
	b = fuzz_copy_spec(a);
	for (int k = 0; k < 1 + (mode >> 2) % 3; k++)
		change(b, in);
	return b;
}

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	FuzzInput	in = {data, size};
	uint8		how = fuzz_u8(&in);
	uint64		x;
	uint64		y;
	FuzzBuilt	a;
	FuzzBuilt	b;
	bool		built;

	if (how % 4 == 3)
	{
		int			bits = (how & 4) ? 64 : 32;

		fuzz_chosen_ring(&in, bits, (how & 8) != 0, NULL, &a);
		fuzz_chosen_ring(&in, bits, (how & 16) != 0, a.ring, &b);
		built = true;
	}
	else
	{
		ChashRingSpec *spec_a = fuzz_decode_spec(&in);
		ChashRingSpec *spec_b = ring_b(spec_a, &in);

		/* B is a copy of A before A is prepared, as the catalog reads both */
		built = fuzz_build(spec_a, &a) && fuzz_build(spec_b, &b);
	}
	x = fuzz_u64(&in);
	y = fuzz_u64(&in);
	if (built && a.ring->npoints > 0 && b.ring->npoints > 0)
	{
		uint64		max = a.ring->max_position;

		fuzz_check(b.ring->max_position == max,
				   "rings of one key hash with different spaces");
		compare(a.ring, b.ring, 0, max);
		if (max == PG_UINT64_MAX)
		{
			/* as chash_moved_ranges: the upper half first */
			uint64		half = UINT64CONST(1) << 63;

			compare(a.ring, b.ring, half, max);
			compare(a.ring, b.ring, 0, half - 1);
		}
		x &= max;
		y &= max;
		compare(a.ring, b.ring, Min(x, y), Max(x, y));
		/* and the other way round */
		compare(b.ring, a.ring, Min(x, y), Max(x, y));
	}
	fuzz_memory_reset();
	return 0;
}

/* --- seeds ---------------------------------------------------------------- */

static void
seed(const char *name, const SeedSpec *a, uint8 mode, const uint8 *ops,
	 int nops, const SeedNode *added)
{
	FuzzSeed	s;

	seed_begin(&s);
	seed_u8(&s, 0);				/* specs */
	seed_spec(&s, a);
	seed_u8(&s, mode);
	for (int k = 0; k < nops; k++)
	{
		seed_u8(&s, ops[k]);
		if (a->nnodes > 0 || k > 0)
			seed_u8(&s, 1);		/* the node changed */
		if (ops[k] % 8 == 0)
			seed_node(&s, added);
	}
	seed_u64(&s, UINT64CONST(0x1234567890abcdef));
	seed_u64(&s, UINT64CONST(0xfedcba0987654321));
	seed_end(&s, name);
}

void
fuzz_seeds(void)
{
	SeedSpec	ring4 = {"ring", NULL, NULL, 15, 0, NULL, NULL, NULL, 4,
	{{"pg1"}, {"pg2"}, {"pg3"}, {"pg4"}}};
	SeedSpec	ring32 = {"ring", "murmur3_32", NULL, 31, 0, NULL, NULL, "first", 3,
	{{"a", false, false, 0, 0, 1}, {"b", false, false, 0x80, 0, 2}, {"c", false, false, 0, 0, 3}}};
	SeedSpec	ketama = {"ketama", NULL, NULL, 39, 0, NULL, NULL, NULL, 3,
	{{"10.0.0.1", true}, {"10.0.0.2", true}, {"10.0.0.3", true}}};
	SeedSpec	uhash = {"ketama", NULL, NULL, 39, 0, NULL, "uhashring", NULL, 3,
	{{"s1"}, {"s2"}, {"s3"}}};
	SeedNode	pg5 = {"pg5"};
	static const uint8 add[] = {0x08};
	static const uint8 remove[] = {0x09};
	static const uint8 down[] = {0x0a};
	static const uint8 several[] = {0x08, 0x0b, 0x0d};

	seed("ring-add-node", &ring4, 1, add, 1, &pg5);
	seed("ring-remove-node", &ring4, 1, remove, 1, NULL);
	seed("ring-node-down", &ring4, 1, down, 1, NULL);
	seed("ring32-changes", &ring32, 1 + (2 << 2), several, 3, &pg5);
	seed("ketama-add-node", &ketama, 1, add, 1, &pg5);
	seed("ketama-remove-node", &ketama, 1, remove, 1, NULL);
	seed("uhashring-add-node", &uhash, 1, add, 1, &pg5);
	{
		/* two rings of their own: ring and ketama, one 32-bit key hash */
		FuzzSeed	s;
		SeedSpec	r = ring32;

		r.key_hash = "md5";
		r.hash = "md5";
		seed_begin(&s);
		seed_u8(&s, 0);			/* specs */
		seed_spec(&s, &r);
		seed_u8(&s, 0);
		seed_spec(&s, &uhash);
		seed_u64(&s, 0);
		seed_u64(&s, PG_UINT32_MAX);
		seed_end(&s, "ring-vs-uhashring");
	}

	/*
	 * Chosen points, 32 and 64 bits, each ring at or strictly after: A a
	 * run from near the top of the space to its end, B at, before and after
	 * A's points and at both ends
	 */
	for (int m = 0; m < 8; m++)
	{
		FuzzSeed	s;
		char		name[64];
		bool		wide = m & 1;

		seed_begin(&s);
		seed_u8(&s, 3 | (m << 2));
		seed_u8(&s, 3);			/* A: 4 nodes */
		seed_u64(&s, wide ? PG_UINT64_MAX - 30 : PG_UINT32_MAX - 30);
		for (int k = 0; k < 12; k++)
		{
			seed_u8(&s, k == 0 ? 0 : 2);
			seed_u8(&s, k);
		}
		seed_u8(&s, 0xD3);		/* the largest position */
		seed_u8(&s, 1);
		seed_u8(&s, 0xD0);		/* 0 */
		seed_u8(&s, 2);
		seed_u8(&s, 0xFF);
		seed_u8(&s, 2);			/* B: 3 nodes */
		seed_u64(&s, 0);
		for (int k = 0; k < 12; k++)
		{
			seed_u8(&s, 0xE0 + k % 4);	/* beside, at, after A's */
			seed_u8(&s, (uint8) (k / 2));
			seed_u8(&s, k);
		}
		seed_u8(&s, 0xD3);
		seed_u8(&s, 0);
		seed_u8(&s, 0xFF);
		seed_u64(&s, 0);
		seed_u64(&s, PG_UINT64_MAX);
		snprintf(name, sizeof(name), "chosen-%d-bits-%s-%s", wide ? 64 : 32,
				 m & 2 ? "strict" : "at", m & 4 ? "strict" : "at");
		seed_end(&s, name);
	}
}
