/*
 * fuzz_ring.c
 *		libFuzzer harness: a ring built from a spec decoded from the input,
 *		and lookups on it.
 *
 * Input: a mode byte, then, in three modes of four, a spec (fuzz_spec.h:
 * algorithm ring or ketama and its variant, hash and key hash, vnodes,
 * vnode_first, template, ties, up to 8 nodes with names, weights, vnodes,
 * state and ordinals), a candidate node, a byte choosing a change of the
 * spec, and keys (the rest).  Checks:
 *	- chash_ring_prepare_spec and chash_ring_count_points accept exactly
 *	  what README's rules accept, and the build (fuzz_build) gives the
 *	  points of a reference build, in ring order, in a well-formed ring;
 *	- chash_ring_find, on every point's position and its neighbours, every
 *	  bucket's start and its neighbours, 0, the largest position, raw keys
 *	  from the input and key_hash of string keys from the input, against a
 *	  binary search over ring->positions (as test/unit/ring_test.c);
 *	  key_hash raises an ERROR exactly for non-UTF-8 keys of Java hashes;
 *	- chash_ring_node_points_alone (ring algorithm) equals each node's
 *	  count, and for the candidate node README's formula, raising an ERROR
 *	  exactly where a new node would be refused;
 *	- chash_ring_check_total refuses one point more than the limit only;
 *	  chash_error_no_active_nodes always raises an ERROR;
 *	- chash_ring_spec_fingerprint is the same for the spec and the ring's
 *	  copy of it, the copy builds the same ring, and the changed spec has
 *	  another fingerprint;
 *	- chash_ring_ownership sums to the replicas, and for up to 3 replicas
 *	  equals the arcs summed here; chash_ring_expected's shares are in
 *	  [0, 1] and sum to the replicas.
 * In the fourth mode the points are chosen by the input
 * (fuzz_chosen_ring), as test/unit/ring_test.c chooses them but to the
 * fuzzer's liking: runs of near positions, positions at the boundaries of
 * buckets and at the ends of the space, equal ones; 32- or 64-bit, keys at
 * or strictly after a point, up to 16 nodes.  Hashes seldom crowd points
 * into one bucket; these do.  chash_sort_points must sort them as qsort
 * does, chash_ring_from_points pack them into a well-formed ring, and
 * lookups and ownership are checked as above.  (Rings of over 65,536
 * nodes, with 4-byte owners, are left to the unit test: each costs some
 * 100 ms to make, and the fuzzer, drawn to their rare edges, would spend
 * its time on them.)
 *
 * Found here: chash_ring_expected gave 0 or NaN where the active weights add
 * up past DBL_MAX (fixed in src/placement/ownership.c; reporting.sql keeps a case).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "fuzz_spec.h"

/* --- lookups -------------------------------------------------------------- */

typedef struct KeyCall
{
	const ChashHashFunction *h;
	const char *key;
	int			len;
	uint64		value;
} KeyCall;

static void
call_key_hash(void *arg)
{
	KeyCall    *c = arg;

	c->value = c->h->fn((const unsigned char *) c->key, c->len);
}

static void
check_lookups(const ChashPlacement *ring, FuzzInput *in)
{
	uint64		max = ring->max_position;
	int			nraw = fuzz_u8(in) % 32;

	for (uint32 j = 0; j < ring->npoints; j++)
	{
		uint64		p = ring->positions[j];

		fuzz_check_find(ring, p);
		if (p > 0)
			fuzz_check_find(ring, p - 1);
		if (p < max)
			fuzz_check_find(ring, p + 1);
	}
	for (uint32 b = 0; b < ring->nbuckets; b++)
	{
		uint64		start = (uint64) b << ring->bucket_shift;

		fuzz_check_find(ring, start);
		if (start > 0)
			fuzz_check_find(ring, start - 1);
		fuzz_check_find(ring, start + 1);
	}
	fuzz_check_find(ring, 0);
	fuzz_check_find(ring, max);
	for (int k = 0; k < nraw && in->left > 0; k++)
		fuzz_check_find(ring, fuzz_u64(in) & max);

	/* string keys, through the ring's key hash, as chash_lookup routes */
	while (in->left > 0)
	{
		char		key[256];
		KeyCall		c;
		bool		ok;

		c.h = ring->spec.key_hash;
		c.len = fuzz_bytes(in, key, 255);
		c.key = key;
		ok = fuzz_try(call_key_hash, &c);
		/* (which keys a hash of integer keys takes, fuzz_hash checks) */
		fuzz_check(c.h->integer_keys ||
				   ok == (!c.h->needs_utf8 ||
						  fuzz_ref_utf8((const uint8 *) key, c.len)),
				   "key hash %s: %s for a key of %d bytes", c.h->name,
				   ok ? "no ERROR" : "an ERROR", c.len);
		if (ok)
			fuzz_check_find(ring, c.value);
	}
}

/* --- node_points_alone, check_total, no_active_nodes ---------------------- */

typedef struct AloneCall
{
	const ChashRingSpec *spec;
	const ChashNodeSpec *node;
	bool		check;
	int64		points;
} AloneCall;

static void
call_alone(void *arg)
{
	AloneCall  *c = arg;

	c->points = chash_ring_node_points_alone(c->spec, c->node, c->check);
}

static void
check_alone(const FuzzBuilt *b, const ChashNodeSpec *candidate)
{
	const ChashRingSpec *spec = b->spec;
	AloneCall	c = {spec, NULL, false, 0};
	double		p;
	int64		want;
	bool		want_ok = true;

	if (!spec->algorithm->node_points_alone)
		return;
	for (int k = 0; b->counted && k < spec->nnodes; k++)
	{
		for (int check = 0; check <= 1; check++)
		{
			c.node = &spec->nodes[k];
			c.check = check;
			fuzz_check(fuzz_try(call_alone, &c),
					   "chash_ring_node_points_alone raised an ERROR for node %d of a counted ring: %s",
					   k, chash_stub_error_message);
			fuzz_check(c.points == b->counts[k],
					   "chash_ring_node_points_alone: %lld points for node %d, counted %lld",
					   (long long) c.points, k, (long long) b->counts[k]);
		}
	}

	/* a new node, as the catalog trigger checks one */
	if (!candidate->active)
		want = 0;
	else if (candidate->vnodes > 0)
		want = candidate->vnodes;
	else
	{
		p = round((double) spec->vnodes * candidate->weight);
		want = p < 1 ? 1 : (int64) Min(p, (double) PG_INT64_MAX / 2);
		if (p > CHASH_MAX_VNODES)
			want_ok = false;
	}
	if (spec->hash->needs_utf8 &&
		!fuzz_ref_utf8((const uint8 *) candidate->name_utf8, candidate->name_utf8_len))
		want_ok = false;
	c.node = candidate;
	c.check = true;
	c.points = -1;
	fuzz_check(fuzz_try(call_alone, &c) == want_ok,
			   "chash_ring_node_points_alone(\"%s\", weight %g, vnodes %d): %s, expected %s",
			   candidate->name, candidate->weight, candidate->vnodes,
			   want_ok ? "an ERROR" : "no ERROR", want_ok ? "none" : "one");
	fuzz_check(!want_ok || c.points == want,
			   "chash_ring_node_points_alone(\"%s\"): %lld points, README's formula %lld",
			   candidate->name, (long long) c.points, (long long) want);
}

typedef struct TotalCall
{
	const ChashRingSpec *spec;
	int64		total;
} TotalCall;

static void
call_check_total(void *arg)
{
	TotalCall  *c = arg;

	chash_ring_check_total(c->spec, c->total);
}

static void
call_no_active_nodes(void *arg)
{
	chash_error_no_active_nodes((const ChashPlacement *) arg);
}

static void
check_totals(const FuzzBuilt *b)
{
	TotalCall	c = {b->spec, 0};

	if (b->counted)
	{
		c.total = b->total;
		fuzz_check(fuzz_try(call_check_total, &c),
				   "chash_ring_check_total refused the counted %lld points",
				   (long long) b->total);
	}
	c.total = CHASH_MAX_RING_POINTS;
	fuzz_check(fuzz_try(call_check_total, &c),
			   "chash_ring_check_total refused the limit");
	c.total = (int64) CHASH_MAX_RING_POINTS + 1;
	fuzz_check(!fuzz_try(call_check_total, &c),
			   "chash_ring_check_total accepted one point over the limit");
	c.total = PG_INT64_MAX;
	fuzz_check(!fuzz_try(call_check_total, &c),
			   "chash_ring_check_total accepted PG_INT64_MAX points");
}

/* --- fingerprints ----------------------------------------------------------- */

static void
call_rebuild(void *arg)
{
	ChashPlacement **ring = arg;

	*ring = chash_ring_build(&(*ring)->spec, NULL);
}

/* A copy of spec that differs in one thing the points depend on */
static ChashRingSpec *
changed_spec(const ChashRingSpec *spec, uint8 sel, const char **what)
{
	ChashRingSpec *m = fuzz_copy_spec(spec);
	ChashNodeSpec *n = spec->nnodes > 0 ? &m->nodes[sel % spec->nnodes] : NULL;
	int			h = 0;

	for (int i = 0; i < chash_hash_count(); i++)
		if (chash_hash_at(i) == spec->hash)
			h = i;
	switch ((sel >> 3) % 14)
	{
		case 0:
			*what = "algorithm";
			m->algorithm = m->algorithm == &chash_algorithm_ring ?
				&chash_algorithm_ketama : &chash_algorithm_ring;
			break;
		case 1:
			*what = "hash";
			m->hash = chash_hash_at((h + 1) % chash_hash_count());
			break;
		case 2:
			*what = "key_hash";
			m->key_hash = m->key_hash == m->hash ?
				chash_hash_at((h + 1) % chash_hash_count()) : m->hash;
			break;
		case 4:
			*what = "vnode_first";
			m->vnode_first ^= 1;
			break;
		case 5:
			*what = "vnode_name";
			m->vnode_name = m->vnode_name_utf8 = psprintf("%sx", spec->vnode_name);
			m->vnode_name_utf8_len++;
			break;
		case 6:
			*what = "variant";
			m->variant = spec->variant == NULL ? "libmemcached" : NULL;
			break;
		case 7:
			*what = "ties";
			m->ties_name = spec->ties_name == NULL ? "name" : NULL;
			break;
		case 8:
			*what = "the nodes";
			if (m->nnodes > 0)
				m->nnodes--;
			else
			{
				m->nodes[0].name = m->nodes[0].name_utf8 = "new";
				m->nodes[0].name_len = m->nodes[0].name_utf8_len = 3;
				m->nodes[0].weight = 1;
				m->nodes[0].active = true;
				m->nnodes = 1;
			}
			break;
		case 9:
			if (n == NULL)
				goto vnodes;
			*what = "a node's name";
			n->name = n->name_utf8 = psprintf("%sx", n->name);
			n->name_len++;
			n->name_utf8_len++;
			break;
		case 10:
			if (n == NULL)
				goto vnodes;
			*what = "a node's weight";
			n->weight = nextafter(n->weight, 0);
			break;
		case 11:
			if (n == NULL)
				goto vnodes;
			*what = "a node's vnodes";
			n->vnodes = n->vnodes < CHASH_MAX_VNODES ? n->vnodes + 1 : 1;
			break;
		case 12:
			if (n == NULL)
				goto vnodes;
			*what = "a node's state";
			n->active = !n->active;
			break;
		case 13:
			if (n == NULL)
				goto vnodes;
			*what = "a node's ordinal";
			n->ordinal ^= 1;
			break;
		default:
	vnodes:
			*what = "vnodes";
			m->vnodes = m->vnodes < CHASH_MAX_VNODES ? m->vnodes + 1 : 1;
			break;
	}
	return m;
}

static void
check_fingerprints(const FuzzBuilt *b, uint8 sel)
{
	uint8		fp[16];
	uint8		again[16];
	const char *what = NULL;
	ChashRingSpec *m;

	chash_ring_spec_fingerprint(b->spec, fp);
	chash_ring_spec_fingerprint(b->spec, again);
	fuzz_check(memcmp(fp, again, 16) == 0, "the fingerprint of one spec changed");
	if (b->ring != NULL)
	{
		ChashPlacement *rebuilt = b->ring;

		chash_ring_spec_fingerprint(&b->ring->spec, again);
		fuzz_check(memcmp(fp, again, 16) == 0,
				   "the ring's copy of its spec has another fingerprint");
		/* the same fingerprint builds the same ring */
		fuzz_check(fuzz_try(call_rebuild, &rebuilt),
				   "building the ring's copy of its spec raised an ERROR: %s",
				   chash_stub_error_message);
		fuzz_check(rebuilt->npoints == b->ring->npoints &&
				   memcmp(rebuilt->positions, b->ring->positions,
						  sizeof(uint64) * b->ring->npoints) == 0 &&
				   memcmp(rebuilt->owners16, b->ring->owners16,
						  sizeof(uint16) * b->ring->npoints) == 0,
				   "the ring's copy of its spec builds another ring");
	}
	m = changed_spec(b->spec, sel, &what);
	chash_ring_spec_fingerprint(m, again);
	fuzz_check(memcmp(fp, again, 16) != 0,
			   "a spec with another %s has the same fingerprint", what);
}

/* --- ownership -------------------------------------------------------------- */

static void
check_ownership(const FuzzBuilt *b)
{
	const ChashPlacement *ring = b->ring;
	int			nnodes = ring->spec.nnodes;
	int			bits = ring->spec.key_hash->bits;
	uint32		n = ring->npoints;
	double	   *owned = palloc(sizeof(double) * nnodes);
	double	   *expected = palloc(sizeof(double) * Max(nnodes, 1));
	long double *ref = palloc(sizeof(long double) * nnodes);
	uint32	   *seen = palloc(sizeof(uint32) * (nnodes + 1));

	for (int r = 1; r <= ring->nactive + 1; r++)
	{
		double		sum = 0;
		int			want = Min(r, ring->nactive);

		/* 1 to 3 replicas, all nodes, and one more than there are */
		if (r > 3 && (r < ring->nactive || ring->nactive > 64))
			continue;

		chash_ring_ownership(ring, r, owned);
		for (int k = 0; k < nnodes; k++)
		{
			fuzz_check(owned[k] >= 0 && owned[k] <= 1 + 1e-12 &&
					   (ring->node_points[k] > 0 || owned[k] == 0),
					   "chash_ring_ownership(%d): node %d owns %.17g", r, k, owned[k]);
			sum += owned[k];
		}
		fuzz_check(fabs(sum - want) < 1e-9,
				   "chash_ring_ownership(%d): shares add up to %.17g, not %d",
				   r, sum, want);

		/* the first r distinct nodes from each position's first point on */
		if (r <= 3 && n <= 1024)
		{
			for (int k = 0; k < nnodes; k++)
				ref[k] = 0;
			for (uint32 i = 0; i < n; i++)
			{
				long double arc;
				int			nseen = 0;

				if (i > 0 && ring->positions[i] == ring->positions[i - 1])
					continue;
				if (i > 0)
					arc = (long double) (ring->positions[i] - ring->positions[i - 1]);
				else if (ring->positions[0] == ring->positions[n - 1])
					arc = ldexpl(1.0L, bits);
				else
					arc = ldexpl(1.0L, bits) -
						(long double) (ring->positions[n - 1] - ring->positions[0]);
				for (uint32 s = 0; s < n && nseen < r; s++)
				{
					uint32		o = chash_ring_owner(ring, (i + s) % n);
					int			q;

					for (q = 0; q < nseen && seen[q] != o; q++)
						;
					if (q == nseen)
						seen[nseen++] = o;
				}
				for (int q = 0; q < nseen; q++)
					ref[seen[q]] += arc;
			}
			for (int k = 0; k < nnodes; k++)
			{
				double		want_k = (double) (ref[k] / ldexpl(1.0L, bits));

				fuzz_check(fabs(owned[k] - want_k) < 1e-12,
						   "chash_ring_ownership(%d): node %d owns %.17g, its arcs add up to %.17g",
						   r, k, owned[k], want_k);
			}
		}
	}

	/*
	 * Expected shares: by weight, capped at 1, also where the weights add
	 * up past DBL_MAX (weights may be any finite positive value)
	 */
	for (int r = 1; r <= b->spec->nactive + 1; r++)
	{
		double		sum = 0;
		int			want = Min(r, b->spec->nactive);

		if (r > 3 && (r < b->spec->nactive || b->spec->nactive > 64))
			continue;

		chash_ring_expected(b->spec, r, expected);
		for (int k = 0; k < nnodes; k++)
		{
			fuzz_check(expected[k] >= 0 && expected[k] <= 1 &&
					   (b->spec->nodes[k].active || expected[k] == 0),
					   "chash_ring_expected(%d): node %d expects %.17g", r, k,
					   expected[k]);
			sum += expected[k];
		}
		fuzz_check(fabs(sum - want) < 1e-9 * Max(want, 1),
				   "chash_ring_expected(%d): shares add up to %.17g, not %d",
				   r, sum, want);
	}
}

/* --- chosen points ------------------------------------------------------------ */

static void
chosen_points(FuzzInput *in, uint8 mode)
{
	int			bits = (mode & 4) ? 64 : 32;
	bool		strict = (mode & 8) != 0;
	FuzzBuilt	b;
	ChashPlacement *ring = fuzz_chosen_ring(in, bits, strict, NULL, &b);

	if (ring->npoints > 0)
	{
		check_lookups(ring, in);
		check_ownership(&b);
	}
	else
	{
		double	   *owned = palloc(sizeof(double) * ring->spec.nnodes);

		chash_ring_ownership(ring, 1, owned);
		for (int k = 0; k < ring->spec.nnodes; k++)
			fuzz_check(owned[k] == 0, "a ring without points: node %d owns %g",
					   k, owned[k]);
	}
}

/* --- the harness ------------------------------------------------------------ */

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	FuzzInput	in = {data, size};
	uint8		mode = fuzz_u8(&in);
	ChashRingSpec *spec;
	ChashNodeSpec candidate;
	uint8		sel;
	FuzzBuilt	b;

	if (mode % 4 == 3)
	{
		chosen_points(&in, mode);
		fuzz_memory_reset();
		return 0;
	}
	spec = fuzz_decode_spec(&in);
	fuzz_decode_node(&in, spec, &candidate, spec->nnodes);
	sel = fuzz_u8(&in);

	/* builds check for interrupts: count them all the way (server_stubs.c) */
	InterruptPending = true;
	fuzz_build(spec, &b);
	if (b.prepared)
	{
		check_alone(&b, &candidate);
		check_totals(&b);
		check_fingerprints(&b, sel);
	}
	if (b.ring != NULL)
	{
		fuzz_check(!fuzz_try(call_no_active_nodes, b.ring),
				   "chash_error_no_active_nodes returned");
		if (b.ring->npoints > 0)
		{
			check_lookups(b.ring, &in);
			check_ownership(&b);
		}
	}
	InterruptPending = false;
	fuzz_memory_reset();
	return 0;
}

static void
seed(const char *name, const SeedSpec *spec, const char *keys)
{
	FuzzSeed	s;
	SeedNode	candidate = {"new", false, false, 0, 0, 9};

	seed_begin(&s);
	seed_u8(&s, 0);				/* a spec */
	seed_spec(&s, spec);
	seed_node(&s, &candidate);
	seed_u8(&s, 0x48);
	seed_u8(&s, 2);				/* raw keys */
	seed_u64(&s, 0);
	seed_u64(&s, UINT64CONST(0x8000000000000000));
	while (*keys)
	{
		seed_bytes(&s, keys);
		keys += strlen(keys) + 1;
	}
	seed_end(&s, name);
}

#define KEYS "alice@example.com\0" "42\0" "user:1\0"

void
fuzz_seeds(void)
{
	SeedSpec	ring3 = {"ring", NULL, NULL, 15, 0, NULL, NULL, NULL, 3,
	{{"pg1"}, {"pg2"}, {"pg3", false, false, 0x80, 0, 0}}};
	SeedSpec	java = {"ring", "java_fnv32", "java_hashcode", 9, 1, "{node}:{i}", NULL, NULL, 2,
	{{"caf\xc3\xa9"}, {"\xe2\x82\xac"}}};
	/* "{node}{i}": a#10 to a#15 are a1#0 to a1#5, one position each */
	SeedSpec	ties = {"ring", "crc32", NULL, 15, 0, "{node}{i}", NULL, "last", 3,
	{{"a", false, false, 0, 0, 2}, {"a1", false, false, 0, 0, 1}, {"a2", false, true, 0, 0, 1}}};
	SeedSpec	own = {"ring", "fnv1a_64", "pg", 63, 200, NULL, NULL, "first", 2,
	{{"x", false, false, 0x83, 0xC2, 5}, {"y", false, false, 0x88, 0, 5}}};
	SeedSpec	memcached = {"ketama", NULL, NULL, 39, 0, NULL, NULL, NULL, 3,
	{{"10.0.0.1", true}, {"10.0.0.2", true}, {"10.0.0.3", true, false, 0x80, 0, 3}}};
	const char *variants[] = {"libketama", "twemproxy", "uhashring", "node"};

	seed("ring-3-nodes", &ring3, KEYS);
	seed("ring-java", &java, "caf\xc3\xa9\0" "\xff\xfe\0");
	seed("ring-ties-last", &ties, KEYS);
	ties.ties = "first";
	seed("ring-ties-first", &ties, KEYS);
	ties.ties = NULL;
	seed("ring-ties-name", &ties, KEYS);
	seed("ring-own-vnodes", &own, KEYS);
	seed("ketama-libmemcached", &memcached, KEYS);
	for (int i = 0; i < lengthof(variants); i++)
	{
		char		name[64];

		memcached.variant = variants[i];
		snprintf(name, sizeof(name), "ketama-%s", variants[i]);
		seed(name, &memcached, KEYS);
	}
	memcached.variant = NULL;
	memcached.key_hash = "murmur3_32";
	seed("ketama-murmur-keys", &memcached, KEYS);
	{
		/* libmemcached hashes 'h:11211' as 'h': two nodes, the same points */
		SeedSpec	twins = {"ketama", NULL, NULL, 3, 0, NULL, NULL, NULL, 2,
		{{"10.0.0.9", false, false, 0, 0, 2}, {"10.0.0.9", true, false, 0, 0, 1}}};

		seed("ketama-default-port-twins", &twins, KEYS);
		twins.variant = "uhashring";
		seed("ketama-uhashring-twins", &twins, KEYS);
	}

	{
		/* nutcracker hashes at most 272 bytes of a name: 10 {node}s of 40 */
		SeedSpec	longnames = {"ketama", NULL, NULL, 15, 0,
			"{node}{node}{node}{node}{node}{node}{node}{node}{node}{node}-{i}",
			"twemproxy", NULL, 2,
		{{"a-node-name-of-forty-bytes-0123456789ab"}, {"b-node-name-of-forty-bytes-0123456789ab"}}};

		seed("ketama-twemproxy-long-names", &longnames, KEYS);
		longnames.algorithm = "ring";
		longnames.variant = NULL;
		longnames.vnodes = 63;
		seed("ring-long-names", &longnames, KEYS);
	}
	{
		/* 40 points at one position, of 2 nodes: the sort's last resort */
		FuzzSeed	s;

		seed_begin(&s);
		seed_u8(&s, 3);
		seed_u8(&s, 1);
		seed_u64(&s, 12345);
		for (int k = 0; k < 40; k++)
		{
			seed_u8(&s, k % 2 ? 0x20 : 0);
			seed_u8(&s, k);
		}
		seed_u8(&s, 0xFF);
		seed_u8(&s, 2);
		seed_u64(&s, 12345);
		seed_u64(&s, 12346);
		seed_end(&s, "chosen-40-equal");
	}

	/*
	 * chosen points: runs of near positions as ring_test.c makes them (7 to
	 * 33: buckets of just those sizes), at the start of the space, in the
	 * middle and at its end, with bucket starts and the ends of the space
	 */
	{
		static const int runs[] = {7, 8, 9, 16, 17, 33};

		for (int m = 0; m < 4; m++)
		{
			for (int r = 0; r < lengthof(runs); r++)
			{
				FuzzSeed	s;
				char		name[64];
				uint64		base = r % 3 == 0 ? 0 : r % 3 == 1 ? UINT64CONST(0x40000000) :
				(m & 1) ? PG_UINT64_MAX - 40 : PG_UINT32_MAX - 40;

				seed_begin(&s);
				seed_u8(&s, 3 | (m << 2));	/* 32/64 bits, at/strictly after */
				seed_u8(&s, 2);			/* 3 nodes */
				seed_u64(&s, base);
				for (int k = 0; k < runs[r]; k++)
				{
					seed_u8(&s, k == 0 ? 0 : 1 + (k % 3 == 0));
					seed_u8(&s, k);
				}
				for (int k = 0; k < 3; k++)
				{
					seed_u8(&s, 0x90 + k);
					seed_u8(&s, 0x80);
					seed_u8(&s, k);
					seed_u8(&s, k);
				}
				seed_u8(&s, 0xE3);
				seed_u8(&s, 1);
				seed_u8(&s, 0xFF);
				seed_u8(&s, 4);			/* raw keys */
				for (int k = 0; k < 4; k++)
					seed_u64(&s, base + 5 * k + 1);
				snprintf(name, sizeof(name), "chosen-%d-bits-%s-run-%d",
						 m & 1 ? 64 : 32, m & 2 ? "strict" : "at", runs[r]);
				seed_end(&s, name);
			}
		}
	}
}
