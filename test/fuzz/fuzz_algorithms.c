/*
 * fuzz_algorithms.c
 *		libFuzzer harness: every algorithm of chash's table (placement/algorithm.c),
 *		held to what any placement must do.
 *
 * fuzz_ring and fuzz_placement check ring, ketama, modulo, jump,
 * rendezvous, maglev and slots against references written in them.  The
 * other placements (nginx, haproxy and its variants, dalli, envoy_ring_hash,
 * elasticsearch, tokens, rendezvous's keyed variant pymemcache) are checked
 * key for key against the real systems by the compatibility suites; here
 * all thirteen algorithms, with any variant, take specs decoded from the
 * input and must keep the rules that hold of every placement:
 *	- chash_ring_prepare_spec refuses or accepts without crashing, and once
 *	  it and (for point algorithms) chash_ring_count_points accept, the
 *	  build raises no ERROR;
 *	- a ring of points is sorted, its owners active nodes;
 *	- at each position: the owner is an active node (a slots ring may
 *	  raise ERROR 55000 for a slot no node owns instead, and then its
 *	  preference orders raise it too), the first of every preference
 *	  order; chash_placement_preference for n nodes is the first n of the
 *	  order of all of them, which holds each active node once; and
 *	  chash_placement_preference_zones for each n is the pick of
 *	  chash_zones_pick's rule (README's, written again here) from the whole
 *	  order;
 *	- keyed placements (pymemcache): for keys from the input, the owner is
 *	  the first of the key's order, which holds each active node once;
 *	- chash_placement_ownership for 1 to 4 replicas, with and without
 *	  distinct zones: every share in [0, 1], none for nodes that are down,
 *	  and the shares sum to the replicas times the share of one replica
 *	  (which is 1 but where slots have no owner).  Rendezvous's sums are
 *	  checked up to a weight ratio of 1e4, as fuzz_placement says why.
 *
 * Input, byte by byte: algorithm, variant (none, one of those the
 * algorithms know, or one none knows), hash, key hash, vnodes, table size,
 * the number of nodes (up to 8), then each node: a name byte, flags (down,
 * zone, tokens given, slot ranges given), weight, ordinal, and the tokens
 * (up to 4) or ranges (up to 3) given; then positions (up to 8) and keys
 * (up to 4).
 */
#include "postgres.h"

#include <math.h>

#include "fuzz_spec.h"

#define FUZZ_ALGO_POSITIONS	8
#define FUZZ_ALGO_KEYS		4
#define FUZZ_ALGO_REPLICAS	4
/* rings of more points are not built: each input runs in milliseconds */
#define FUZZ_ALGO_MAX_POINTS FUZZ_MAX_BUILD_POINTS

static const char *const algorithm_names[] = {
	"ring", "ketama", "modulo", "jump", "rendezvous", "maglev", "tokens",
	"slots", "nginx", "dalli", "haproxy", "elasticsearch", "envoy_ring_hash"
};

static const char *const variant_names[] = {
	NULL, "libmemcached", "twemproxy", "libketama", "uhashring",
	"spymemcached", "spymemcached_weighted", "guava", "pymemcache",
	"chash", "envoy", "eisenbud", "id_hashed", "id_scaled", "none of them"
};

/* --- decoding ----------------------------------------------------------- */

static int32
decode_table_size(FuzzInput *in)
{
	uint8		v = fuzz_u8(in);

	if (v < 0x10)
		return 0;				/* the algorithm's default */
	if (v < 0x80)
		return 1 + v % 64;		/* 1 to 64 */
	if (v < 0xC0)
		return 101 + 2 * (v - 0x80);	/* odd, now and then prime */
	return 1 + (fuzz_u8(in) | (fuzz_u8(in) << 8)) % 8192;
}

static void
decode_tokens(FuzzInput *in, ChashNodeSpec *n)
{
	int			ntokens = 1 + fuzz_u8(in) % 4;
	int64	   *tokens = palloc(sizeof(int64) * ntokens);

	for (int i = 0; i < ntokens; i++)
		tokens[i] = (int64) fuzz_u64(in);
	n->ntokens = ntokens;
	n->tokens = tokens;
}

static void
decode_ranges(FuzzInput *in, ChashNodeSpec *n)
{
	int			nranges = fuzz_u8(in) % 4;
	int32	   *ranges = palloc(sizeof(int32) * 2 * Max(nranges, 1));

	for (int i = 0; i < nranges; i++)
	{
		int32		lower = (int32) ((fuzz_u8(in) | (fuzz_u8(in) << 8)) % 16400);
		int32		len = 1 + fuzz_u8(in) * 64;

		ranges[2 * i] = lower;
		ranges[2 * i + 1] = lower + len;
	}
	n->slots_given = true;
	n->nslot_ranges = nranges;
	n->slot_ranges = ranges;
}

static ChashRingSpec *
decode_spec(FuzzInput *in)
{
	ChashRingSpec *spec = palloc0(sizeof(ChashRingSpec));
	uint8		v;

	strlcpy(spec->name, "fuzz", sizeof(spec->name));
	spec->algorithm = chash_algorithm_find(algorithm_names[fuzz_u8(in) % lengthof(algorithm_names)]);
	spec->variant = variant_names[fuzz_u8(in) % lengthof(variant_names)];
	spec->hash = chash_hash_at(fuzz_u8(in) % chash_hash_count());
	v = fuzz_u8(in);
	spec->key_hash = v < 0x80 ? spec->hash : chash_hash_at(v % chash_hash_count());
	spec->vnodes = 1 + fuzz_u8(in) % 200;
	spec->vnode_name = spec->vnode_name_utf8 = spec->algorithm->default_vnode_name;
	spec->vnode_name_utf8_len = strlen(spec->vnode_name);
	spec->table_size = decode_table_size(in);

	spec->nnodes = fuzz_u8(in) % (FUZZ_MAX_NODES + 1);
	spec->nodes = palloc0(sizeof(ChashNodeSpec) * (spec->nnodes + 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		ChashNodeSpec *n = &spec->nodes[k];
		uint8		flags;
		int			zone;

		n->name = n->name_utf8 = psprintf("10.0.0.%u:11211", fuzz_u8(in));
		n->name_len = n->name_utf8_len = strlen(n->name);
		flags = fuzz_u8(in);
		zone = (flags >> 2) & 7;
		n->active = (flags & 3) != 3;
		n->zone = zone < 2 ? NULL : psprintf("z%d", zone - 2);
		n->weight = fuzz_decode_weight(in);
		v = fuzz_u8(in);
		n->ordinal = v < 0xF0 ? v % 8 : (int64) fuzz_u64(in);
		if (flags & 0x20)
			decode_tokens(in, n);
		if (flags & 0x40)
			decode_ranges(in, n);
	}
	fuzz_normalize_nodes(spec);
	return spec;
}

static void
print_spec(const ChashRingSpec *spec)
{
	fprintf(stderr, "chash fuzz: algorithms: algorithm %s, variant %s, hash %s, key_hash %s, vnodes %d, table_size %d, %d nodes\n",
			spec->algorithm->name, spec->variant ? spec->variant : "NULL",
			spec->hash->name, spec->key_hash->name, spec->vnodes,
			spec->table_size, spec->nnodes);
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		fprintf(stderr, "chash fuzz:   node %d \"%s\": weight %.17g, %s, ordinal %lld, zone %s, %d tokens, %d slot ranges\n",
				k, n->name, n->weight, n->active ? "active" : "down",
				(long long) n->ordinal, n->zone ? n->zone : "NULL",
				n->ntokens, n->slots_given ? n->nslot_ranges : -1);
	}
}

/* --- calls that may raise an ERROR ----------------------------------------- */

typedef struct Call
{
	ChashRingSpec *spec;
	const ChashPlacement *placement;
	int64		total;
	uint64		position;
	uint32	   *out;
	int			n;
	uint32		owner;
	const unsigned char *key;
	size_t		len;
	int			replicas;
	bool		zones;
	double	   *owned;
} Call;

static void
call_prepare(void *arg)
{
	Call	   *c = arg;

	chash_ring_prepare_spec(c->spec);
}

static void
call_count(void *arg)
{
	Call	   *c = arg;

	c->total = chash_ring_count_points(c->spec, NULL);
}

static void
call_build(void *arg)
{
	Call	   *c = arg;

	c->placement = chash_placement_build(c->spec, NULL);
}

static void
call_owner(void *arg)
{
	Call	   *c = arg;

	c->owner = chash_placement_owner(c->placement, c->position);
}

static void
call_preference(void *arg)
{
	Call	   *c = arg;

	chash_placement_preference(c->placement, c->position, c->out, c->n);
}

static void
call_preference_zones(void *arg)
{
	Call	   *c = arg;

	chash_placement_preference_zones(c->placement, c->position, c->out, c->n);
}

static void
call_ownership(void *arg)
{
	Call	   *c = arg;

	chash_placement_ownership(c->placement, c->replicas, c->zones, c->owned);
}

/* --- the rules ------------------------------------------------------------ */

/* The zone numbers of the placement, as README defines them, by name */
static bool
same_zone(const ChashRingSpec *spec, uint32 a, uint32 b)
{
	const char *za = spec->nodes[a].zone;
	const char *zb = spec->nodes[b].zone;

	if (za == NULL || zb == NULL)
		return a == b;
	return strcmp(za, zb) == 0;
}

/*
 * README's pick by zones, written again: walk the order taking each node
 * whose zone holds no copy yet, until n are taken or every zone holds one,
 * then fill up with the skipped ones in order
 */
static void
ref_zones_pick(const ChashRingSpec *spec, const uint32 *order, int norder,
			   uint32 *out, int n)
{
	bool	   *taken = palloc0(sizeof(bool) * Max(norder, 1));
	int			found = 0;

	for (int i = 0; i < norder && found < n; i++)
	{
		bool		held = false;

		for (int j = 0; j < found && !held; j++)
			held = same_zone(spec, out[j], order[i]);
		if (!held)
		{
			taken[i] = true;
			out[found++] = order[i];
		}
	}
	for (int i = 0; i < norder && found < n; i++)
	{
		if (!taken[i])
			out[found++] = order[i];
	}
	pfree(taken);
}

/* order[0..n) holds active nodes, each once */
static void
check_order(const ChashPlacement *p, const uint32 *order, int n,
			const char *what)
{
	bool	   *seen = palloc0(sizeof(bool) * Max(p->spec.nnodes, 1));

	for (int i = 0; i < n; i++)
	{
		fuzz_check(order[i] < (uint32) p->spec.nnodes,
				   "%s: node %u of %d at %d", what, order[i], p->spec.nnodes, i);
		fuzz_check(p->spec.nodes[order[i]].active,
				   "%s: node %u at %d is down", what, order[i], i);
		fuzz_check(!seen[order[i]], "%s: node %u twice", what, order[i]);
		seen[order[i]] = true;
	}
	pfree(seen);
}

static int
count_active(const ChashRingSpec *spec)
{
	int			n = 0;

	for (int k = 0; k < spec->nnodes; k++)
		n += spec->nodes[k].active;
	return n;
}

static void
check_position(Call *c, uint64 position)
{
	const ChashPlacement *p = c->placement;
	int			n = p->nactive;
	uint32	   *all = palloc(sizeof(uint32) * n);
	uint32	   *some = palloc(sizeof(uint32) * n);
	uint32	   *want = palloc(sizeof(uint32) * n);
	bool		owned;

	c->position = position;
	owned = fuzz_try(call_owner, c);
	c->out = all;
	c->n = n;
	if (!owned)
	{
		/* only a slot that no node owns, and the orders say so too */
		fuzz_check(p->spec.algorithm->takes_slots &&
				   fuzz_errcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
				   "the owner of %llu raised an ERROR: %s",
				   (unsigned long long) position, chash_stub_error_message);
		fuzz_check(!fuzz_try(call_preference, c),
				   "the order of %llu has no such ERROR", (unsigned long long) position);
		return;
	}
	fuzz_check(c->owner < (uint32) p->spec.nnodes && p->spec.nodes[c->owner].active,
			   "the owner of %llu, node %u, is no active node",
			   (unsigned long long) position, c->owner);
	fuzz_check(fuzz_try(call_preference, c), "the order of %llu raised an ERROR: %s",
			   (unsigned long long) position, chash_stub_error_message);
	check_order(p, all, n, "the whole order");
	fuzz_check(all[0] == c->owner, "the order of %llu starts at node %u, not its owner %u",
			   (unsigned long long) position, all[0], c->owner);
	for (int len = 1; len <= n; len++)
	{
		c->out = some;
		c->n = len;
		fuzz_check(fuzz_try(call_preference, c), "an order of %d raised an ERROR: %s",
				   len, chash_stub_error_message);
		fuzz_check(memcmp(some, all, sizeof(uint32) * len) == 0,
				   "the order of %d nodes is not the first %d of all %d", len, len, n);
		fuzz_check(fuzz_try(call_preference_zones, c), "an order by zones of %d raised an ERROR: %s",
				   len, chash_stub_error_message);
		ref_zones_pick(&p->spec, all, n, want, len);
		fuzz_check(memcmp(some, want, sizeof(uint32) * len) == 0,
				   "the order by zones of %d nodes is not the pick from the whole order", len);
	}
	pfree(want);
	pfree(some);
	pfree(all);
}

static void
call_key_owner(void *arg)
{
	Call	   *c = arg;

	c->owner = c->placement->spec.algorithm->key_owner(c->placement, c->key, c->len);
}

static void
call_key_preference(void *arg)
{
	Call	   *c = arg;

	c->placement->spec.algorithm->key_preference(c->placement, c->key, c->len,
												 c->out);
}

/* Keys of the input: an ERROR only for a key a UTF-8 hash cannot take */
static void
check_keys(Call *c, FuzzInput *in)
{
	const ChashPlacement *p = c->placement;
	int			nkeys = 1 + fuzz_u8(in) % FUZZ_ALGO_KEYS;
	uint32	   *order = palloc(sizeof(uint32) * p->nactive);
	char		key[256];

	for (int i = 0; i < nkeys; i++)
	{
		bool		utf8;
		bool		owned;

		c->len = fuzz_bytes(in, key, sizeof(key) - 1);
		c->key = (const unsigned char *) key;
		c->out = order;
		utf8 = !p->spec.hash->needs_utf8 || fuzz_ref_utf8(c->key, c->len);
		owned = fuzz_try(call_key_owner, c);
		fuzz_check(owned == utf8, "a key's owner %s: %s", owned ? "found" : "raised an ERROR",
				   owned ? "the key is no UTF-8" : chash_stub_error_message);
		fuzz_check(fuzz_try(call_key_preference, c) == utf8,
				   "a key's order and its owner disagree on the ERROR");
		if (!utf8)
			continue;
		check_order(p, order, p->nactive, "a key's order");
		fuzz_check(order[0] == c->owner, "a key's order starts at node %u, not its owner %u",
				   order[0], c->owner);
	}
	pfree(order);
}

static void
check_ownership(Call *c)
{
	const ChashPlacement *p = c->placement;
	const ChashRingSpec *spec = &p->spec;
	double	   *owned = palloc(sizeof(double) * Max(spec->nnodes, 1));
	double		one = 0;
	double		lo = INFINITY;
	double		hi = 0;
	bool		sums = true;

	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].active)
		{
			lo = Min(lo, spec->nodes[k].weight);
			hi = Max(hi, spec->nodes[k].weight);
		}
	}
	if (spec->algorithm == chash_algorithm_find("rendezvous") && hi > 1e4 * lo)
		sums = false;
	c->owned = owned;
	for (int r = 1; r <= Min(FUZZ_ALGO_REPLICAS, p->nactive); r++)
	{
		for (int z = 0; z <= 1; z++)
		{
			double		sum = 0;

			c->replicas = r;
			c->zones = z;
			fuzz_check(fuzz_try(call_ownership, c), "ownership(%d, %s) raised an ERROR: %s",
					   r, z ? "zones" : "no zones", chash_stub_error_message);
			for (int k = 0; k < spec->nnodes; k++)
			{
				fuzz_check(owned[k] >= -1e-12 && owned[k] <= 1 + 1e-12,
						   "ownership(%d): node %d owns %.17g", r, k, owned[k]);
				fuzz_check(spec->nodes[k].active || owned[k] == 0,
						   "ownership(%d): node %d is down and owns %.17g", r, k, owned[k]);
				sum += owned[k];
			}
			if (r == 1 && !z)
			{
				one = sum;
				fuzz_check(!sums || spec->algorithm->takes_slots || fabs(one - 1) < 1e-9,
						   "ownership(1): the shares sum to %.17g", one);
			}
			fuzz_check(!sums || fabs(sum - r * one) < 1e-9 * r,
					   "ownership(%d, %s): the shares sum to %.17g, not %d x %.17g",
					   r, z ? "zones" : "no zones", sum, r, one);
		}
	}
	pfree(owned);
}

static void
check_points(const ChashPlacement *p)
{
	for (uint32 i = 0; i < p->npoints; i++)
	{
		uint32		owner = chash_ring_owner(p, i);

		fuzz_check(i == 0 || p->positions[i - 1] <= p->positions[i],
				   "points %u and %u out of order", i - 1, i);
		fuzz_check(owner < (uint32) p->spec.nnodes && p->spec.nodes[owner].active,
				   "point %u belongs to node %u, no active node", i, owner);
	}
}

/* --- the harness ------------------------------------------------------------ */

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	FuzzInput	in = {data, size};
	ChashRingSpec *spec = decode_spec(&in);
	Call		c = {spec};
	const ChashPlacement *p;
	uint64		max;
	int			npos;

	if (fuzz_verbose)
		print_spec(spec);
	if (!fuzz_try(call_prepare, &c))
		goto done;
	if (spec->algorithm->kind == CHASH_PLACEMENT_POINTS)
	{
		if (!fuzz_try(call_count, &c) || c.total > FUZZ_ALGO_MAX_POINTS)
			goto done;
	}
	fuzz_check(fuzz_try(call_build, &c),
			   "the build of a %s ring raised an ERROR after prepare: %s",
			   spec->algorithm->name, chash_stub_error_message);
	p = c.placement;
	if (fuzz_verbose)
		fprintf(stderr, "chash fuzz: algorithms: built, %d members\n", p->nactive);
	fuzz_check(p->nactive == count_active(spec) ||
			   (p->kind == CHASH_PLACEMENT_POINTS && p->nactive <= count_active(spec)),
			   "%d members of %d active nodes", p->nactive, count_active(spec));
	if (p->kind == CHASH_PLACEMENT_POINTS)
		check_points(p);
	if (p->nactive == 0)
		goto done;

	if (spec->keyed)
		check_keys(&c, &in);
	else
	{
		max = spec->key_hash->bits == 64 ? PG_UINT64_MAX :
			(UINT64CONST(1) << spec->key_hash->bits) - 1;
		check_position(&c, 0);
		check_position(&c, max);
		npos = 1 + fuzz_u8(&in) % FUZZ_ALGO_POSITIONS;
		for (int i = 0; i < npos; i++)
			check_position(&c, fuzz_u64(&in) & max);
	}
	check_ownership(&c);
done:
	fuzz_memory_reset();
	return 0;
}

/* --- seeds ------------------------------------------------------------------ */

static int
seed_index(const char *const *names, int count, const char *name)
{
	for (int i = 0; i < count; i++)
	{
		if ((names[i] == NULL && name == NULL) ||
			(names[i] != NULL && name != NULL && strcmp(names[i], name) == 0))
			return i;
	}
	fuzz_fail("seed: no %s", name ? name : "NULL");
}

static int
seed_hash_index(const char *name)
{
	for (int i = 0; i < chash_hash_count(); i++)
		if (strcmp(chash_hash_at(i)->name, name) == 0)
			return i;
	fuzz_fail("seed: no hash %s", name);
}

/*
 * A valid spec of each algorithm: its default hash (or the one given), 3
 * nodes in two zones or 5 with one down, tokens for the tokens algorithm
 */
static void
seed_algorithm(const char *name, const char *algorithm, const char *variant,
			   const char *hash, uint8 table, int nnodes)
{
	const ChashAlgorithm *a = chash_algorithm_find(algorithm);
	FuzzSeed	s;

	seed_begin(&s);
	seed_u8(&s, (uint8) seed_index(algorithm_names, lengthof(algorithm_names), algorithm));
	seed_u8(&s, (uint8) seed_index(variant_names, lengthof(variant_names), variant));
	seed_u8(&s, (uint8) seed_hash_index(hash ? hash : a->default_hash));
	seed_u8(&s, 0);				/* key hash: the hash */
	seed_u8(&s, 39);			/* 40 vnodes */
	seed_u8(&s, table);
	seed_u8(&s, (uint8) nnodes);
	for (int k = 0; k < nnodes; k++)
	{
		uint8		flags = (uint8) ((2 + k % 2) << 2);

		if (k == 4)
			flags |= 3;			/* down */
		if (a->needs_tokens)
			flags |= 0x20;
		seed_u8(&s, (uint8) (k + 1));
		seed_u8(&s, flags);
		seed_u8(&s, 0);			/* weight 1 */
		seed_u8(&s, (uint8) k);
		if (a->needs_tokens)
		{
			seed_u8(&s, 1);		/* 2 tokens */
			seed_u64(&s, UINT64CONST(0x1111111111111111) * (k + 1));
			seed_u64(&s, UINT64CONST(0x9999999999999999) + k);
		}
	}
	/* positions, then keys */
	seed_u8(&s, 3);
	for (int i = 0; i < 4; i++)
		seed_u64(&s, UINT64CONST(0x9E3779B97F4A7C15) * (i + 1));
	seed_u8(&s, 2);
	seed_bytes(&s, "user:1");
	seed_bytes(&s, "");
	seed_bytes(&s, "a somewhat longer key");
	seed_end(&s, name);
}

void
fuzz_seeds(void)
{
	for (int i = 0; i < lengthof(algorithm_names); i++)
	{
		const char *a = algorithm_names[i];

		seed_algorithm(psprintf("%s-3", a), a, NULL, NULL, 0, 3);
		seed_algorithm(psprintf("%s-5", a), a, NULL, NULL, 0, 5);
	}
	seed_algorithm("ketama-twemproxy", "ketama", "twemproxy", NULL, 0, 5);
	seed_algorithm("ketama-spymemcached", "ketama", "spymemcached", NULL, 0, 3);
	seed_algorithm("jump-guava", "jump", "guava", NULL, 0, 5);
	seed_algorithm("rendezvous-pymemcache", "rendezvous", "pymemcache", "pymemcache_murmur3", 0, 5);
	seed_algorithm("maglev-envoy", "maglev", "envoy", "xxh64", 0, 5);
	seed_algorithm("haproxy-id-hashed", "haproxy", "id_hashed", NULL, 0, 5);
	seed_algorithm("elasticsearch-6", "elasticsearch", NULL, NULL, 0x45, 3);	/* table_size 6 */
}
