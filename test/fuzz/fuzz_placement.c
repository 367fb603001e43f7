/*
 * fuzz_placement.c
 *		libFuzzer harness: computed placements (modulo, jump, rendezvous,
 *		maglev and Envoy's maglev, slots) built from a spec decoded from the
 *		input, their
 *		owners, preference orders and ownership.
 *
 * Input, byte by byte: algorithm, hash, key hash, table size (maglev: a
 * prime from 101 to 1009, now and then a composite one or a tiny one;
 * slots: 1 to 4096 or the default 16384; others: now and then one, to be
 * refused), the number of nodes (up to 8), then each node: a name byte,
 * flags (state, zone, slot ranges given), weight, ordinal and, with slot
 * ranges given, up to 4 ranges (a gap after the last range or anywhere in
 * the table, a length; now and then one outside the table); then the
 * positions to look up (up to 16: any, near 0, near the end of the key
 * hash's space, near a multiple of the table's size).  Checks:
 *	- chash_ring_prepare_spec accepts exactly what README's rules accept
 *	  (weights only where the algorithm is weighted, no identity as the
 *	  hash of names, table_size only with a table, maglev's prime size above
 *	  100 x the active nodes, slot ranges only for slots, within the table,
 *	  given to every active node if to one, disjoint among active nodes),
 *	  and chash_placement_build raises no ERROR once it did;
 *	- the members are the active nodes in ordinal order (then name), and
 *	  the zones are numbered as README says;
 *	- maglev's table is a fill written here from README (Envoy's variant:
 *	  its own rule, also written here from README), slots' table the
 *	  given ranges or redis-cli's even split;
 *	- at each position: the owner (member p mod n, JumpConsistentHash,
 *	  the highest score -w / ln(u) computed here, table[p mod size]; a slot
 *	  no node owns raises the ERROR 55000 instead, for the owner and the
 *	  preference orders alike), chash_placement_preference for every n up
 *	  to the members (the owner first, then as the algorithm's README line
 *	  says) and chash_placement_preference_zones for every n (the pick of
 *	  chash_zones_pick's rule, written here, over the full order);
 *	- chash_placement_ownership for every number of replicas and with and
 *	  without distinct zones: shares in [0, 1], none for nodes that are
 *	  down, summing to the replicas (slots: times the share of the
 *	  positions whose slot is owned); exact, the count of positions of each
 *	  residue or slot in the key hash's space given to the picked nodes,
 *	  for modulo, maglev and slots; 1/n a start for jump; for rendezvous,
 *	  weight / total weight for one replica and replicas / n where that is
 *	  exact; with distinct zones, no zone holding more than one copy of a
 *	  key while zones are at least the replicas, and every zone one while
 *	  they are at most.
 * A placement without active nodes owns nothing.
 *
 * Found here and fixed in src/ (each has a case in the regression suite
 * placement): modulo of one member on a 64-bit key hash owned 0 (its 2^64
 * positions were counted in a uint64); rendezvous's shares were 0 or NaN
 * where the weights added up past DBL_MAX or averaged below some 1e-290,
 * and with equal weights near DBL_MAX or subnormal its owner was not the
 * first of its preference order; maglev's ownership walked the whole table
 * once a run when a member owned no slot (5 s for 3 nodes).
 *
 * A limit of the method rather than a bug, found here and in README: the
 * integral of rendezvous for 1 < replicas < n is off by 8e-9 of a replica
 * at a weight ratio of 1e6, by 4e-6 at 1e9, and by a whole replica from
 * about 1e25; the sums are checked (to 1e-9) up to a ratio of 1e4 only.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "fuzz_spec.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define FUZZ_MAX_POSITIONS	16
#define FUZZ_MAX_RANGES		4

typedef enum Algo
{
	ALGO_MODULO,
	ALGO_JUMP,
	ALGO_RENDEZVOUS,
	ALGO_MAGLEV,
	ALGO_SLOTS,
	ALGO_MAGLEV_ENVOY			/* maglev, variant envoy */
} Algo;

static const char *const algo_names[] = {
	"modulo", "jump", "rendezvous", "maglev", "slots", "maglev"
};

#define IS_MAGLEV(algo) ((algo) == ALGO_MAGLEV || (algo) == ALGO_MAGLEV_ENVOY)

/* Everything the checks compare against, worked out here from the spec */
typedef struct Ref
{
	ChashRingSpec *spec;
	Algo		algo;
	int			bits;			/* the key hash's */
	uint64		max;			/* its largest position */
	int			nactive;
	uint32	   *members;		/* active nodes by ordinal, then index */
	uint32	   *zone;			/* each active node's zone number */
	int			nzones;
	uint32		size;			/* the table's (modulo: the members) */
	uint32	   *table;			/* maglev's and slots': node or UNOWNED */
	int			table_owners;	/* distinct nodes in the table */
	long double owned_count;	/* positions whose slot has an owner */
	ChashPlacement *placement;
} Ref;

/* --- decoding ----------------------------------------------------------- */

static bool
is_prime(uint32 m)
{
	if (m < 2)
		return false;
	for (uint32 d = 2; d * d <= m; d++)
		if (m % d == 0)
			return false;
	return true;
}

/* The primes from 101 to 1009, and as many composites there */
static uint32 primes[200];
static int	nprimes = 0;

static uint32
decode_table_size(FuzzInput *in, Algo algo)
{
	uint8		v = fuzz_u8(in);

	if (nprimes == 0)
	{
		for (uint32 m = 101; m <= 1009; m++)
			if (is_prime(m))
				primes[nprimes++] = m;
	}
	switch (algo)
	{
		case ALGO_MAGLEV:
		case ALGO_MAGLEV_ENVOY:
			if (v < 0xF0)
				return primes[v % nprimes];
			if (v < 0xFC)
				return 101 + 2 * (v - 0xF0) * 9 + 4;	/* odd multiples of 3 ... */
			/*
			 * Not the default 65537: a build and its checks take seconds
			 * there.  Small primes are accepted for rings without active
			 * nodes only.
			 */
			if (v == 0xFC)
				return 1;
			if (v == 0xFD)
				return 100;
			return v == 0xFE ? 2 : 3;
		case ALGO_SLOTS:
			if (v == 0)
				return 0;		/* the default, 16384 */
			if (v < 0x40)
				return v;
			if (v == 0xFF)
				return 16384;
			{
				uint32		lo = fuzz_u8(in);
				uint32		hi = fuzz_u8(in);

				return 1 + (lo | (hi << 8)) % 4096;
			}
		default:
			/* refused: table_size applies to maglev and slots only */
			return v == 0xFF ? 101 : 0;
	}
}

/* A node's slot ranges: after the last one, or anywhere, or outside */
static void
decode_ranges(FuzzInput *in, ChashNodeSpec *n, uint32 m, int32 *cursor)
{
	int			nranges = fuzz_u8(in) % (FUZZ_MAX_RANGES + 1);
	int32	   *ranges = palloc(sizeof(int32) * 2 * Max(nranges, 1));

	for (int i = 0; i < nranges; i++)
	{
		uint8		g = fuzz_u8(in);
		uint8		l = fuzz_u8(in);
		int64		lower;
		int64		upper;
		int64		len;

		if (g >= 0xF0)
		{
			/* outside the table: refused */
			switch (g & 3)
			{
				case 0:
					lower = -1, upper = 1;
					break;
				case 1:
					lower = (int64) m - 1, upper = (int64) m + 1;
					break;
				case 2:
					lower = 0, upper = PG_INT32_MAX;
					break;
				default:
					lower = PG_INT32_MIN, upper = 0;
					break;
			}
		}
		else
		{
			if (g < 0xC0)
				lower = *cursor + (g & 15);
			else
				lower = (fuzz_u8(in) | (fuzz_u8(in) << 8)) % m;
			lower %= m;
			len = l < 0xC0 ? 1 + l % 32 : 1 + ((int64) m * (l - 0xBF)) / 64;
			upper = Min(lower + len, (int64) m);
		}
		ranges[2 * i] = (int32) lower;
		ranges[2 * i + 1] = (int32) upper;
		if (upper >= 0 && upper <= (int64) m)
			*cursor = (int32) upper;
	}
	n->slots_given = true;
	n->nslot_ranges = nranges;
	n->slot_ranges = ranges;
}

static ChashRingSpec *
decode_spec(FuzzInput *in, Algo *algo)
{
	ChashRingSpec *spec = palloc0(sizeof(ChashRingSpec));
	uint32		m;
	int32		cursor = 0;

	*algo = (Algo) (fuzz_u8(in) % lengthof(algo_names));
	strlcpy(spec->name, "fuzz", sizeof(spec->name));
	spec->algorithm = chash_algorithm_find(algo_names[*algo]);
	if (*algo == ALGO_MAGLEV_ENVOY)
		spec->variant = "envoy";
	spec->hash = chash_hash_at(fuzz_u8(in) % chash_hash_count());
	spec->key_hash = chash_hash_at(fuzz_u8(in) % chash_hash_count());
	spec->vnode_name = spec->vnode_name_utf8 = spec->algorithm->default_vnode_name;
	spec->vnode_name_utf8_len = strlen(spec->vnode_name);
	spec->table_size = (int32) decode_table_size(in, *algo);
	m = spec->table_size > 0 ? (uint32) spec->table_size :
		spec->algorithm->has_table ? (uint32) spec->algorithm->default_table_size : 16;

	spec->nnodes = fuzz_u8(in) % (FUZZ_MAX_NODES + 1);
	spec->nodes = palloc0(sizeof(ChashNodeSpec) * (spec->nnodes + 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		ChashNodeSpec *n = &spec->nodes[k];
		uint8		name = fuzz_u8(in);
		uint8		flags = fuzz_u8(in);
		uint8		v;
		int			zone = (flags >> 2) & 7;

		n->name = n->name_utf8 = psprintf("n%u", name);
		n->name_len = n->name_utf8_len = strlen(n->name);
		n->active = (flags & 3) != 3;
		n->zone = zone < 2 ? NULL : psprintf("z%d", zone - 2);
		n->weight = fuzz_decode_weight(in);
		v = fuzz_u8(in);
		n->ordinal = v < 0xF0 ? v % 8 : (int64) fuzz_u64(in);
		if (flags & 0x20)
			decode_ranges(in, n, m, &cursor);
	}
	fuzz_normalize_nodes(spec);
	return spec;
}

static uint64
decode_position(FuzzInput *in, const Ref *r)
{
	uint8		kind = fuzz_u8(in);
	uint64		p;

	if (kind < 0x40)
		p = fuzz_u64(in);
	else if (kind < 0x80)
		p = fuzz_u8(in);
	else if (kind < 0xC0)
		p = r->max - fuzz_u8(in);
	else
	{
		/* near a multiple of the table's size, or of the members */
		uint64		mult = fuzz_u64(in);
		uint32		size = r->size > 0 ? r->size : 1;

		p = (mult & r->max) / size * size + (kind & 7) - 4;
	}
	return p & r->max;
}

/* The spec, in words, on stderr */
static void
print_spec(const ChashRingSpec *spec)
{
	fprintf(stderr, "chash fuzz: placement: algorithm %s, hash %s, key_hash %s, table_size %d, %d nodes\n",
			spec->algorithm->name, spec->hash->name, spec->key_hash->name,
			spec->table_size, spec->nnodes);
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		fprintf(stderr, "chash fuzz:   node %d \"%s\": weight %.17g, %s, ordinal %lld, zone %s",
				k, n->name, n->weight, n->active ? "active" : "down",
				(long long) n->ordinal, n->zone ? n->zone : "NULL");
		if (n->slots_given)
		{
			fprintf(stderr, ", slots {");
			for (int i = 0; i < n->nslot_ranges; i++)
				fprintf(stderr, "%s[%d,%d)", i ? "," : "",
						n->slot_ranges[2 * i], n->slot_ranges[2 * i + 1]);
			fprintf(stderr, "}");
		}
		fputc('\n', stderr);
	}
}

/* --- what the code should do, from README ------------------------------- */

static uint32
ref_table_size(const ChashRingSpec *spec)
{
	return spec->table_size > 0 ? (uint32) spec->table_size :
		(uint32) spec->algorithm->default_table_size;
}

/* Whether any active node was given slot ranges */
static bool
ref_slots_given(const ChashRingSpec *spec)
{
	for (int k = 0; k < spec->nnodes; k++)
		if (spec->nodes[k].active && spec->nodes[k].slots_given)
			return true;
	return false;
}

/* Whether chash_ring_prepare_spec should accept spec */
static bool
ref_prepare_ok(const ChashRingSpec *spec, Algo algo, const char **why)
{
	const ChashAlgorithm *a = spec->algorithm;
	int			nactive = 0;
	uint32		m = ref_table_size(spec);

	if ((algo == ALGO_RENDEZVOUS || IS_MAGLEV(algo)) &&
		spec->hash->integer_keys)
		return (*why = "identity hashes no names"), false;
	if (algo == ALGO_MAGLEV_ENVOY && strcmp(spec->hash->name, "xxh64") != 0)
		return (*why = "Envoy's maglev hashes names with xxh64"), false;
	if (spec->table_size != 0 && !IS_MAGLEV(algo) && algo != ALGO_SLOTS)
		return (*why = "table_size without a table"), false;
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		if (n->weight != 1 && algo != ALGO_RENDEZVOUS && !IS_MAGLEV(algo))
			return (*why = "weight of an unweighted algorithm"), false;
		if (n->slots_given)
		{
			if (algo != ALGO_SLOTS)
				return (*why = "slot ranges without slots"), false;
			for (int i = 0; i < n->nslot_ranges; i++)
				if (n->slot_ranges[2 * i] < 0 ||
					n->slot_ranges[2 * i + 1] < 0 ||
					(uint32) n->slot_ranges[2 * i + 1] > m)
					return (*why = "slot range outside the table"), false;
		}
		nactive += n->active;
	}
	if (IS_MAGLEV(algo))
	{
		if (!is_prime(m))
			return (*why = "maglev's table_size not prime"), false;
		if (algo == ALGO_MAGLEV && (uint64) m <= 100 * (uint64) nactive)
			return (*why = "maglev's table_size not above 100 x the active nodes"), false;
		if (algo == ALGO_MAGLEV_ENVOY && (uint64) m < (uint64) nactive)
			return (*why = "Envoy's maglev table smaller than the active nodes"), false;
	}
	if (algo == ALGO_SLOTS)
	{
		if (!ref_slots_given(spec))
		{
			if ((uint32) nactive > m)
				return (*why = "more active nodes than slots"), false;
			return true;
		}
		for (int k = 0; k < spec->nnodes; k++)
		{
			const ChashNodeSpec *a1 = &spec->nodes[k];

			if (!a1->active)
				continue;
			if (!a1->slots_given)
				return (*why = "an active node without slot ranges"), false;
			for (int i = 0; i < a1->nslot_ranges; i++)
			{
				for (int j = k; j < spec->nnodes; j++)
				{
					const ChashNodeSpec *b1 = &spec->nodes[j];

					if (!b1->active)
						continue;
					for (int q = (j == k ? i + 1 : 0); q < b1->nslot_ranges; q++)
					{
						if (Max(a1->slot_ranges[2 * i], b1->slot_ranges[2 * q]) <
							Min(a1->slot_ranges[2 * i + 1], b1->slot_ranges[2 * q + 1]))
							return (*why = "overlapping slot ranges"), false;
					}
				}
			}
		}
	}
	(void) a;
	return true;
}

/* The paper's JumpConsistentHash (Lamping and Veach, arXiv 1406.2294) */
static int32
ref_jump(uint64 key, int32 buckets)
{
	int64		b = -1;
	int64		j = 0;

	while (j < buckets)
	{
		b = j;
		key = key * UINT64CONST(2862933555777941757) + 1;
		j = (int64) ((double) (b + 1) *
					 ((double) (INT64CONST(1) << 31) / (double) ((key >> 33) + 1)));
	}
	return (int32) b;
}

/*
 * README's score of rendezvous: -weight / ln(u), u from splitmix64, with
 * the weights divided by the power of two 2^scale that brings the largest
 * below 1 (the same order, without overflow); with equal weights, the
 * draw itself (the same order, without ties of rounded scores)
 */
static double
ref_score(const ChashNodeSpec *n, const ChashHashFunction *h, uint64 position,
		  int scale, bool equal)
{
	uint64		z = position ^ h->fn((const unsigned char *) n->name_utf8,
									 n->name_utf8_len);
	double		u;

	z = (z ^ (z >> 30)) * UINT64CONST(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94d049bb133111eb);
	z ^= z >> 31;
	if (equal)
		return (double) (z >> 11);
	u = ((double) (z >> 11) + 0.5) / 9007199254740992.0;
	return -ldexp(n->weight, -scale) / log(u);
}

static uint64
ref_name_hash(const ChashRingSpec *spec, const ChashNodeSpec *n, bool skip)
{
	char	   *s = palloc(n->name_utf8_len + 6);

	memcpy(s, n->name_utf8, n->name_utf8_len);
	memcpy(s + n->name_utf8_len, "#skip", 5);
	return spec->hash->fn((const unsigned char *) s,
						  n->name_utf8_len + (skip ? 5 : 0));
}

/* Maglev's table, filled in turns as README says */
static void
ref_maglev_fill(Ref *r)
{
	const ChashRingSpec *spec = r->spec;
	int			n = r->nactive;
	uint32		m = r->size;
	uint64	   *offset = palloc(sizeof(uint64) * Max(n, 1));
	uint64	   *skip = palloc(sizeof(uint64) * Max(n, 1));
	uint64	   *tries = palloc0(sizeof(uint64) * Max(n, 1));
	double	   *credit = palloc0(sizeof(double) * Max(n, 1));
	double		largest = 0;
	uint32		filled = 0;

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		const ChashNodeSpec *node = &spec->nodes[r->members[i]];

		offset[i] = ref_name_hash(spec, node, false) % m;
		skip[i] = ref_name_hash(spec, node, true) % (m - 1) + 1;
		if (node->weight > largest)
			largest = node->weight;
	}
	while (filled < m)
	{
		for (int i = 0; i < n && filled < m; i++)
		{
			credit[i] += spec->nodes[r->members[i]].weight / largest;
			for (; credit[i] >= 1 && filled < m; credit[i] -= 1)
			{
				uint32		slot;

				for (;;)
				{
					slot = (uint32) ((offset[i] + tries[i]++ * skip[i]) % m);
					if (r->table[slot] == CHASH_SLOT_UNOWNED)
						break;
				}
				r->table[slot] = r->members[i];
				filled++;
			}
		}
	}
}

/*
 * Envoy's maglev table (maglev_lb.cc), as README says: the active nodes by
 * name, offset XXH64(name, 0) mod M, skip XXH64(name, 1) mod (M - 1) + 1;
 * in round r, a node whose r * w reaches its target takes its next empty
 * slot and its target grows by the largest w, w = weight / sum
 */
static void
ref_maglev_envoy_fill(Ref *r)
{
	const ChashRingSpec *spec = r->spec;
	int			n = 0;
	uint32		m = r->size;
	int		   *host = palloc(sizeof(int) * Max(spec->nnodes, 1));
	double	   *w = palloc(sizeof(double) * Max(spec->nnodes, 1));
	double	   *target = palloc0(sizeof(double) * Max(spec->nnodes, 1));
	uint64	   *next = palloc0(sizeof(uint64) * Max(spec->nnodes, 1));
	double		sum = 0;
	double		max_w = 0;
	uint32		filled = 0;

	for (int k = 0; k < spec->nnodes; k++)
	{
		if (!spec->nodes[k].active)
			continue;
		host[n++] = k;
		sum += spec->nodes[k].weight;
	}
	for (int i = 0; i < n; i++)
	{
		w[i] = spec->nodes[host[i]].weight / sum;
		if (w[i] > max_w)
			max_w = w[i];
	}
	for (uint64 round = 1; n > 0 && filled < m; round++)
	{
		for (int i = 0; i < n && filled < m; i++)
		{
			const ChashNodeSpec *node = &spec->nodes[host[i]];
			uint64		offset = XXH64(node->name_utf8, node->name_utf8_len, 0) % m;
			uint64		skip = XXH64(node->name_utf8, node->name_utf8_len, 1) % (m - 1) + 1;
			uint32		slot;

			if ((double) round * w[i] < target[i])
				continue;
			target[i] += max_w;
			do
				slot = (uint32) ((offset + skip * next[i]++) % m);
			while (r->table[slot] != CHASH_SLOT_UNOWNED);
			r->table[slot] = host[i];
			filled++;
		}
	}
}

/* redis-cli --cluster create's split, its single precision included */
static void
ref_split_evenly(Ref *r)
{
	int			n = r->nactive;
	float		slots_per_node = r->size / (float) n;
	float		cursor = 0.0f;
	long		first = 0;

	for (int i = 0; i < n; i++)
	{
		long		last = lround(cursor + slots_per_node - 1);

		if (last > (long) r->size || i == n - 1)
			last = r->size - 1;
		if (last < first)
			last = first;
		for (long s = first; s <= last; s++)
			r->table[s] = r->members[i];
		first = last + 1;
		cursor += slots_per_node;
	}
}

static int
ref_member_cmp(const void *a, const void *b, void *arg)
{
	const ChashRingSpec *spec = arg;
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	if (spec->nodes[x].ordinal != spec->nodes[y].ordinal)
		return spec->nodes[x].ordinal < spec->nodes[y].ordinal ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The positions p of the key hash's space with p mod size = s */
static long double
ref_count(const Ref *r, uint32 size, uint32 s)
{
	return (long double) ((r->max - s) / size) + 1;
}

static void
ref_init(Ref *r, ChashRingSpec *spec, Algo algo)
{
	memset(r, 0, sizeof(*r));
	r->spec = spec;
	r->algo = algo;
	r->bits = spec->key_hash->bits;
	r->max = r->bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << r->bits) - 1;
	r->members = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	r->zone = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	for (int k = 0; k < spec->nnodes; k++)
		if (spec->nodes[k].active)
			r->members[r->nactive++] = k;
	qsort_arg(r->members, r->nactive, sizeof(uint32), ref_member_cmp, spec);

	/* zones: a name's own number; a node without one, a number its own */
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		if (!n->active)
			continue;
		r->zone[k] = r->nzones;
		for (int j = 0; j < k; j++)
		{
			if (spec->nodes[j].active && n->zone && spec->nodes[j].zone &&
				strcmp(n->zone, spec->nodes[j].zone) == 0)
			{
				r->zone[k] = r->zone[j];
				break;
			}
		}
		if (r->zone[k] == (uint32) r->nzones)
			r->nzones++;
	}

	r->size = algo == ALGO_MODULO ? (uint32) r->nactive :
		(IS_MAGLEV(algo) || algo == ALGO_SLOTS) ? ref_table_size(spec) : 0;
	r->owned_count = ldexpl(1.0L, r->bits);
	if (!IS_MAGLEV(algo) && algo != ALGO_SLOTS)
		return;
	r->table = palloc(sizeof(uint32) * r->size);
	for (uint32 s = 0; s < r->size; s++)
		r->table[s] = CHASH_SLOT_UNOWNED;
	if (algo == ALGO_MAGLEV)
		ref_maglev_fill(r);
	else if (algo == ALGO_MAGLEV_ENVOY)
		ref_maglev_envoy_fill(r);
	else if (r->nactive > 0 && !ref_slots_given(spec))
		ref_split_evenly(r);
	else
	{
		for (int k = 0; k < spec->nnodes; k++)
		{
			const ChashNodeSpec *n = &spec->nodes[k];

			if (!n->active)
				continue;
			for (int i = 0; i < n->nslot_ranges; i++)
				for (int32 s = n->slot_ranges[2 * i]; s < n->slot_ranges[2 * i + 1]; s++)
					r->table[s] = k;
		}
	}
	r->owned_count = 0;
	{
		uint32	   *slots_of = palloc0(sizeof(uint32) * Max(spec->nnodes, 1));

		for (uint32 s = 0; s < r->size; s++)
		{
			if (r->table[s] == CHASH_SLOT_UNOWNED)
				continue;
			r->owned_count += ref_count(r, r->size, s);
			if (slots_of[r->table[s]]++ == 0)
				r->table_owners++;
		}
	}
}

/*
 * A position's full preference order (all the members) into out; false
 * where its slot has no owner (an ERROR is expected)
 */
static bool
ref_order(const Ref *r, uint64 position, uint32 *out)
{
	int			n = r->nactive;

	switch (r->algo)
	{
		case ALGO_MODULO:
		case ALGO_JUMP:
			{
				uint32		start = r->algo == ALGO_MODULO ? (uint32) (position % n) :
					(uint32) ref_jump(position, n);

				for (int i = 0; i < n; i++)
					out[i] = r->members[(start + i) % n];
				return true;
			}
		case ALGO_RENDEZVOUS:
			{
				double	   *score = palloc(sizeof(double) * Max(r->spec->nnodes, 1));
				double		largest = 0;
				bool		equal = true;
				int			scale = 0;

				for (int i = 0; i < n; i++)
				{
					double		w = r->spec->nodes[r->members[i]].weight;

					largest = Max(largest, w);
					equal &= w == r->spec->nodes[r->members[0]].weight;
				}
				if (largest > 0)
					(void) frexp(largest, &scale);
				for (int i = 0; i < n; i++)
				{
					uint32		k = r->members[i];
					int			at = i;

					score[k] = ref_score(&r->spec->nodes[k], r->spec->hash, position,
										 scale, equal);
					/* by score, highest first; equal scores: by name */
					while (at > 0 && (score[out[at - 1]] < score[k] ||
									  (score[out[at - 1]] == score[k] && out[at - 1] > k)))
					{
						out[at] = out[at - 1];
						at--;
					}
					out[at] = k;
				}
				return true;
			}
		default:
			{
				uint32		slot = (uint32) (position % r->size);
				bool	   *seen = palloc0(sizeof(bool) * Max(r->spec->nnodes, 1));
				int			found = 0;

				if (r->table[slot] == CHASH_SLOT_UNOWNED)
					return false;
				/* the table walked on from the slot, then members without */
				for (uint32 step = 0; step < r->size && found < r->table_owners; step++)
				{
					uint32		k = r->table[(slot + step) % r->size];

					if (k != CHASH_SLOT_UNOWNED && !seen[k])
					{
						seen[k] = true;
						out[found++] = k;
					}
				}
				for (int i = 0; i < n; i++)
					if (!seen[r->members[i]])
						out[found++] = r->members[i];
				fuzz_check(found == n, "reference walk: %d of %d members", found, n);
				return true;
			}
	}
}

/*
 * README's pick by zones of n of a preference order: each node whose zone
 * holds no copy yet, until n are taken or every zone holds one, then the
 * nodes skipped, in order
 */
static void
ref_zones_pick(const Ref *r, const uint32 *order, int norder, uint32 *out, int n)
{
	bool	   *held = palloc0(sizeof(bool) * Max(r->nzones, 1));
	bool	   *taken = palloc0(sizeof(bool) * Max(norder, 1));
	int			found = 0;

	for (int i = 0; i < norder && found < n; i++)
	{
		if (!held[r->zone[order[i]]])
		{
			held[r->zone[order[i]]] = true;
			taken[i] = true;
			out[found++] = order[i];
		}
	}
	for (int i = 0; i < norder && found < n; i++)
		if (!taken[i])
			out[found++] = order[i];
}

/* --- calls that may raise an ERROR ---------------------------------------- */

typedef struct Call
{
	ChashRingSpec *spec;
	ChashPlacement *placement;
	uint64		position;
	uint32	   *out;
	int			n;
	bool		zones;
	double	   *owned;
	uint32		owner;
} Call;

static void
call_prepare(void *arg)
{
	chash_ring_prepare_spec(((Call *) arg)->spec);
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

	if (c->zones)
		chash_placement_preference_zones(c->placement, c->position, c->out, c->n);
	else
		chash_placement_preference(c->placement, c->position, c->out, c->n);
}

static void
call_ownership(void *arg)
{
	Call	   *c = arg;

	chash_placement_ownership(c->placement, c->n, c->zones, c->owned);
}

/* An errcode as its five characters */
static const char *
sqlstate_text(int code)
{
	char	   *s = palloc(6);

	for (int i = 0; i < 5; i++)
	{
		s[i] = PGUNSIXBIT(code);
		code >>= 6;
	}
	s[5] = '\0';
	return s;
}

/* An ERROR was the one of a slot without an owner: 55000 */
static void
check_unowned_error(const char *what, uint64 position)
{
	fuzz_check(fuzz_errcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE &&
			   strstr(chash_stub_error_message, "has no node") != NULL,
			   "%s(0x%llx) of an unowned slot raised another ERROR (SQLSTATE %s): %s",
			   what, (unsigned long long) position,
			   sqlstate_text(fuzz_errcode), chash_stub_error_message);
}

static const char *
list_text(const uint32 *v, int n)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < n; i++)
		appendStringInfo(&s, "%s%u", i ? "," : "", v[i]);
	return s.data;
}

/* --- the checks ----------------------------------------------------------- */

static void
check_structure(const Ref *r, const ChashPlacement *pl)
{
	const ChashRingSpec *spec = r->spec;

	fuzz_check(pl->kind == CHASH_PLACEMENT_COMPUTED && pl->npoints == 0,
			   "a %s placement of kind %d with %u points", spec->algorithm->name,
			   pl->kind, pl->npoints);
	fuzz_check(pl->nactive == r->nactive, "nactive %d, %d nodes are active",
			   pl->nactive, r->nactive);
	for (int i = 0; i < r->nactive; i++)
		fuzz_check(pl->members[i] == r->members[i],
				   "member %d is node %u, by ordinal node %u", i, pl->members[i],
				   r->members[i]);
	fuzz_check(pl->nzones == r->nzones, "%d zones, the active nodes have %d",
			   pl->nzones, r->nzones);
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (!spec->nodes[k].active)
			continue;
		fuzz_check(pl->zone_of[k] < (uint32) pl->nzones,
				   "node %d in zone %u of %d", k, pl->zone_of[k], pl->nzones);
		for (int j = 0; j < k; j++)
		{
			if (!spec->nodes[j].active)
				continue;
			fuzz_check((pl->zone_of[j] == pl->zone_of[k]) == (r->zone[j] == r->zone[k]),
					   "nodes %d and %d (zones %s and %s) are in zones %u and %u",
					   j, k, spec->nodes[j].zone ? spec->nodes[j].zone : "NULL",
					   spec->nodes[k].zone ? spec->nodes[k].zone : "NULL",
					   pl->zone_of[j], pl->zone_of[k]);
		}
	}
	if (r->table != NULL)
	{
		const ChashSlotTable *t = pl->data;

		fuzz_check(t != NULL && t->size == r->size, "a table of %u slots, not %u",
				   t ? t->size : 0, r->size);
		for (uint32 s = 0; s < r->size; s++)
			fuzz_check(t->slots[s] == r->table[s],
					   "slot %u of the table is node %d, the reference's %d (%s)",
					   s, (int) t->slots[s], (int) r->table[s],
					   r->algo == ALGO_MAGLEV ? "maglev's fill" :
					   r->algo == ALGO_MAGLEV_ENVOY ? "Envoy's maglev fill" :
					   ref_slots_given(spec) ? "the ranges" : "redis-cli's split");
	}
}

static void
check_position(const Ref *r, const ChashPlacement *pl, uint64 position)
{
	int			n = r->nactive;
	uint32	   *order = palloc(sizeof(uint32) * n);
	uint32	   *want = palloc(sizeof(uint32) * n);
	bool		owned = ref_order(r, position, order);
	Call		c = {0};
	bool		ok;

	c.placement = (ChashPlacement *) pl;
	c.position = position;
	ok = fuzz_try(call_owner, &c);
	if (!owned)
	{
		fuzz_check(!ok, "chash_placement_owner(0x%llx): node %u, but slot %llu has no owner",
				   (unsigned long long) position, c.owner,
				   (unsigned long long) (position % r->size));
		check_unowned_error("chash_placement_owner", position);
	}
	else
	{
		fuzz_check(ok, "chash_placement_owner(0x%llx) raised an ERROR: %s",
				   (unsigned long long) position, chash_stub_error_message);
		fuzz_check(c.owner < (uint32) r->spec->nnodes && r->spec->nodes[c.owner].active,
				   "chash_placement_owner(0x%llx): node %u, not an active node",
				   (unsigned long long) position, c.owner);
		fuzz_check(c.owner == order[0],
				   "chash_placement_owner(0x%llx): node %u, by README node %u",
				   (unsigned long long) position, c.owner, order[0]);
	}

	for (int z = 0; z < 2; z++)
	{
		for (int k = 1; k <= n; k++)
		{
			c.zones = z;
			c.n = k;
			c.out = palloc(sizeof(uint32) * k);
			ok = fuzz_try(call_preference, &c);
			if (!owned)
			{
				fuzz_check(!ok, "preference%s(0x%llx, %d) of an unowned slot returned %s",
						   z ? "_zones" : "", (unsigned long long) position, k,
						   list_text(c.out, k));
				check_unowned_error(z ? "chash_placement_preference_zones" :
									"chash_placement_preference", position);
				continue;
			}
			fuzz_check(ok, "preference%s(0x%llx, %d) raised an ERROR: %s",
					   z ? "_zones" : "", (unsigned long long) position, k,
					   chash_stub_error_message);
			if (z)
				ref_zones_pick(r, order, n, want, k);
			else
				memcpy(want, order, sizeof(uint32) * k);
			fuzz_check(c.out[0] == c.owner,
					   "preference%s(0x%llx, %d) starts with node %u, the owner is %u",
					   z ? "_zones" : "", (unsigned long long) position, k,
					   c.out[0], c.owner);
			for (int i = 0; i < k; i++)
			{
				fuzz_check(c.out[i] < (uint32) r->spec->nnodes &&
						   r->spec->nodes[c.out[i]].active,
						   "preference%s(0x%llx, %d): element %d is node %u, not active",
						   z ? "_zones" : "", (unsigned long long) position, k, i,
						   c.out[i]);
				for (int j = 0; j < i; j++)
					fuzz_check(c.out[j] != c.out[i],
							   "preference%s(0x%llx, %d) has node %u twice: %s",
							   z ? "_zones" : "", (unsigned long long) position, k,
							   c.out[i], list_text(c.out, k));
			}
			if (z)
			{
				/* the first min(k, zones) in distinct zones */
				for (int i = 0; i < Min(k, r->nzones); i++)
					for (int j = 0; j < i; j++)
						fuzz_check(r->zone[c.out[i]] != r->zone[c.out[j]],
								   "preference_zones(0x%llx, %d) = %s: nodes %u and %u share a zone among the first %d",
								   (unsigned long long) position, k,
								   list_text(c.out, k), c.out[j], c.out[i],
								   Min(k, r->nzones));
			}
			fuzz_check(memcmp(c.out, want, sizeof(uint32) * k) == 0,
					   "preference%s(0x%llx, %d) = %s, by README %s (full order %s)",
					   z ? "_zones" : "", (unsigned long long) position, k,
					   list_text(c.out, k), list_text(want, k), list_text(order, n));
		}
	}
}

/*
 * The exact ownership of modulo, maglev and slots: the positions of each
 * residue (slot) to the first replicas of its order; jump: 1/n a start.
 * Into ref (long double, in positions for the exact ones).
 */
static void
ref_ownership(const Ref *r, int replicas, bool zones, long double *ref)
{
	int			n = r->nactive;
	uint32	   *order = palloc(sizeof(uint32) * n);
	uint32	   *pick = palloc(sizeof(uint32) * n);
	uint32		end;

	for (int k = 0; k < r->spec->nnodes; k++)
		ref[k] = 0;
	if (r->algo == ALGO_JUMP || r->algo == ALGO_MODULO)
	{
		for (int s = 0; s < n; s++)
		{
			long double share = r->algo == ALGO_JUMP ? 1.0L / n :
				ref_count(r, n, s);

			for (int i = 0; i < n; i++)
				order[i] = r->members[(s + i) % n];
			if (zones)
				ref_zones_pick(r, order, n, pick, replicas);
			else
				memcpy(pick, order, sizeof(uint32) * replicas);
			for (int i = 0; i < replicas; i++)
				ref[pick[i]] += share;
		}
		return;
	}
	/* a run of slots of one owner walks alike */
	for (uint32 first = 0; first < r->size; first = end)
	{
		long double count = 0;

		for (end = first; end < r->size && r->table[end] == r->table[first]; end++)
			count += ref_count(r, r->size, end);
		if (!ref_order(r, first, order))
			continue;
		if (zones)
			ref_zones_pick(r, order, n, pick, replicas);
		else
			memcpy(pick, order, sizeof(uint32) * replicas);
		for (int i = 0; i < replicas; i++)
			ref[pick[i]] += count;
	}
}

/* The largest active weight over the smallest */
static double
weight_spread(const Ref *r)
{
	double		lo = DBL_MAX;
	double		hi = 0;

	for (int i = 0; i < r->nactive; i++)
	{
		double		w = r->spec->nodes[r->members[i]].weight;

		lo = Min(lo, w);
		hi = Max(hi, w);
	}
	return hi / lo;
}

static void
check_ownership(const Ref *r, const ChashPlacement *pl)
{
	const ChashRingSpec *spec = r->spec;
	int			nnodes = spec->nnodes;
	double	   *owned = palloc(sizeof(double) * Max(nnodes, 1));
	long double *ref = palloc(sizeof(long double) * Max(nnodes, 1));
	double	   *zone_sum = palloc(sizeof(double) * Max(r->nzones, 1));
	long double space = ldexpl(1.0L, r->bits);
	double		fraction = (double) (r->owned_count / space);
	Call		c = {0};

	c.placement = (ChashPlacement *) pl;
	c.owned = owned;

	if (r->nactive == 0)
	{
		for (int rep = 1; rep <= 2; rep++)
		{
			c.n = rep;
			c.zones = rep == 2;
			fuzz_check(fuzz_try(call_ownership, &c),
					   "ownership without active nodes raised an ERROR: %s",
					   chash_stub_error_message);
			for (int k = 0; k < nnodes; k++)
				fuzz_check(owned[k] == 0, "no active nodes: node %d owns %.17g", k,
						   owned[k]);
		}
		return;
	}

	for (int zones = 0; zones < 2; zones++)
	{
		for (int rep = 1; rep <= r->nactive; rep++)
		{
			double		sum = 0;
			double		want_sum = rep * fraction;
			bool		inexact = false;

			/*
			 * rendezvous's integral (1 < replicas < n, unequal weights or
			 * zones) is a quadrature: 1e-9, as for the sum (seen: 1 +
			 * 1.9e-12 for a node alone in its zone, at a weight spread of
			 * 3000); the others are counts, exact but for rounding
			 */
			double		bound_slack = r->algo == ALGO_RENDEZVOUS ? 1e-9 : 1e-12;

			c.n = rep;
			c.zones = zones;
			for (int k = 0; k < nnodes; k++)
				owned[k] = -1;
			fuzz_check(fuzz_try(call_ownership, &c),
					   "ownership(%d, %s) raised an ERROR: %s", rep,
					   zones ? "zones" : "no zones", chash_stub_error_message);

			/*
			 * rendezvous's integral for 1 < replicas < n loses accuracy as
			 * the weights spread (8e-9 of a replica at a ratio of 1e6, a
			 * whole replica from about 1e25): README promises 1e-9 up to a
			 * ratio of 1e4 only
			 */
			if (r->algo == ALGO_RENDEZVOUS && rep > 1 && rep < r->nactive &&
				weight_spread(r) > 1e4)
				inexact = true;

			for (int k = 0; k < nnodes && !inexact; k++)
			{
				fuzz_check(owned[k] >= 0 && owned[k] <= 1 + bound_slack &&
						   (spec->nodes[k].active || owned[k] == 0),
						   "ownership(%d, %s): node %d (%s) owns %.17g", rep,
						   zones ? "zones" : "no zones", k,
						   spec->nodes[k].active ? "active" : "down", owned[k]);
				sum += owned[k];
			}
			if (inexact)
				continue;
			fuzz_check(fabs(sum - want_sum) <= 1e-9,
					   "ownership(%d, %s): shares add up to %.17g, not %.17g",
					   rep, zones ? "zones" : "no zones", sum, want_sum);

			/* copies by zone */
			if (zones)
			{
				for (int z = 0; z < r->nzones; z++)
					zone_sum[z] = 0;
				for (int k = 0; k < nnodes; k++)
					if (spec->nodes[k].active)
						zone_sum[r->zone[k]] += owned[k];
				for (int z = 0; z < r->nzones; z++)
				{
					fuzz_check(r->nzones < rep || zone_sum[z] <= fraction + 1e-9,
							   "ownership(%d, zones): zone %d of %d holds %.17g copies a key",
							   rep, z, r->nzones, zone_sum[z]);
					fuzz_check(r->nzones > rep || zone_sum[z] >= fraction - 1e-9,
							   "ownership(%d, zones): zone %d of %d holds only %.17g copies a key",
							   rep, z, r->nzones, zone_sum[z]);
				}
			}

			/* the exact shares */
			if (r->algo == ALGO_RENDEZVOUS)
			{
				bool		equal = true;
				int			scale = 0;
				double		largest = 0;
				double		total = 0;

				for (int i = 0; i < r->nactive; i++)
				{
					double		w = spec->nodes[r->members[i]].weight;

					equal &= w == spec->nodes[r->members[0]].weight;
					largest = Max(largest, w);
				}
				(void) frexp(largest, &scale);
				for (int i = 0; i < r->nactive; i++)
					total += ldexp(spec->nodes[r->members[i]].weight, -scale);
				for (int i = 0; i < r->nactive; i++)
				{
					uint32		k = r->members[i];
					double		want;

					if (rep == r->nactive)
						want = 1;
					else if (rep == 1)
						want = ldexp(spec->nodes[k].weight, -scale) / total;
					else if (equal && (!zones || r->nzones == r->nactive))
						want = (double) rep / r->nactive;
					else
						continue;
					fuzz_check(fabs(owned[k] - want) <= 1e-12,
							   "rendezvous ownership(%d, %s): node %u (weight %.17g) owns %.17g, not %.17g",
							   rep, zones ? "zones" : "no zones", k,
							   spec->nodes[k].weight, owned[k], want);
				}
				continue;
			}
			ref_ownership(r, rep, zones, ref);
			for (int k = 0; k < nnodes; k++)
			{
				double		want = r->algo == ALGO_JUMP ? (double) ref[k] :
					(double) (ref[k] / space);

				/* exact in the 64-bit mantissa of long double, as counts are */
				fuzz_check(LDBL_MANT_DIG >= 64 && r->algo != ALGO_JUMP ?
						   owned[k] == want : fabs(owned[k] - want) <= 1e-15,
						   "%s ownership(%d, %s): node %d owns %.17g, counted %.17g",
						   spec->algorithm->name, rep, zones ? "zones" : "no zones",
						   k, owned[k], want);
			}
		}
	}
}

/* --- the harness ------------------------------------------------------------ */

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	FuzzInput	in = {data, size};
	Algo		algo;
	ChashRingSpec *spec = decode_spec(&in, &algo);
	const char *why = "-";
	bool		want;
	bool		prepared;
	Ref			r;
	Call		c = {0};
	int			npos;

	if (fuzz_verbose)
		print_spec(spec);
	want = ref_prepare_ok(spec, algo, &why);
	c.spec = spec;
	prepared = fuzz_try(call_prepare, &c);
	fuzz_check(prepared == want,
			   "chash_ring_prepare_spec %s a %s spec that %s (%s)%s%s",
			   prepared ? "accepted" : "refused", algo_names[algo],
			   want ? "is valid" : "breaks a rule", why,
			   prepared ? "" : ": ", prepared ? "" : chash_stub_error_message);
	if (!prepared)
	{
		fuzz_memory_reset();
		return 0;
	}

	fuzz_check(fuzz_try(call_build, &c),
			   "chash_placement_build raised an ERROR after prepare: %s",
			   chash_stub_error_message);
	ref_init(&r, spec, algo);
	r.placement = c.placement;
	check_structure(&r, c.placement);

	npos = 1 + fuzz_u8(&in) % FUZZ_MAX_POSITIONS;
	if (r.nactive > 0)
	{
		/* a few fixed positions, then the input's */
		check_position(&r, c.placement, 0);
		check_position(&r, c.placement, r.max);
		for (int i = 0; i < npos; i++)
			check_position(&r, c.placement, decode_position(&in, &r));
	}
	check_ownership(&r, c.placement);
	fuzz_memory_reset();
	return 0;
}

/* --- seeds ------------------------------------------------------------------ */

typedef struct SeedPlacementNode
{
	uint8		name;
	uint8		flags;			/* 3: down; zone << 2; 0x20: ranges follow */
	uint8		weight;
	uint8		ordinal;
	int			nranges;
	uint8		ranges[FUZZ_MAX_RANGES][2];	/* (gap, length) codes */
} SeedPlacementNode;

static int
seed_hash_index(const char *name)
{
	for (int i = 0; i < chash_hash_count(); i++)
		if (strcmp(chash_hash_at(i)->name, name) == 0)
			return i;
	fuzz_fail("seed: no hash %s", name);
}

static void
seed_placement(const char *name, Algo algo, const char *hash, const char *key_hash,
			   const uint8 *table, int ntable, int nnodes,
			   const SeedPlacementNode *nodes)
{
	FuzzSeed	s;

	seed_begin(&s);
	seed_u8(&s, (uint8) algo);
	seed_u8(&s, (uint8) seed_hash_index(hash));
	seed_u8(&s, (uint8) seed_hash_index(key_hash));
	seed_raw(&s, table, ntable);
	seed_u8(&s, (uint8) nnodes);
	for (int k = 0; k < nnodes; k++)
	{
		const SeedPlacementNode *n = &nodes[k];

		seed_u8(&s, n->name);
		seed_u8(&s, n->flags);
		seed_u8(&s, n->weight);
		seed_u8(&s, n->ordinal);
		if (n->flags & 0x20)
		{
			seed_u8(&s, (uint8) n->nranges);
			for (int i = 0; i < n->nranges; i++)
			{
				seed_u8(&s, n->ranges[i][0]);
				seed_u8(&s, n->ranges[i][1]);
			}
		}
	}
	/* positions: one of each kind */
	seed_u8(&s, 3);
	seed_u8(&s, 0x00);
	seed_u64(&s, UINT64CONST(0xDEAD10CC));
	seed_u8(&s, 0x41);
	seed_u8(&s, 7);
	seed_u8(&s, 0x80);
	seed_u8(&s, 3);
	seed_u8(&s, 0xC5);
	seed_u64(&s, UINT64CONST(0x123456789ABCDEF));
	seed_end(&s, name);
}

void
fuzz_seeds(void)
{
	static const uint8 none[] = {0};
	static const uint8 prime307[] = {37};	/* primes[37] */
	static const uint8 prime1009[] = {143};
	static const uint8 slots13[] = {13};
	static const uint8 slots_default[] = {0};
	static const uint8 slots1000[] = {0x80, 1000 % 256 - 1, 1000 / 256};
	SeedPlacementNode three[] = {
		{1, 0, 0, 0}, {2, 0, 0, 1}, {3, 0, 0, 2}
	};
	SeedPlacementNode zoned[] = {
		{1, 2 << 2, 0, 0}, {2, 2 << 2, 0, 1},
		{3, 3 << 2, 0, 2}, {4, 4 << 2, 0, 3}, {5, 3, 0, 4}
	};
	/* weights 2, 3, 0.5 and 1 */
	SeedPlacementNode weighted[] = {
		{1, 2 << 2, 0x80, 0}, {2, 2 << 2, 0x81, 1},
		{3, 3 << 2, 0x82, 2}, {4, 4 << 2, 0, 3}, {5, 3, 0, 4}
	};
	/* given ranges with a gap, a node with none, one down */
	SeedPlacementNode ranged[] = {
		{1, 0x20 | (2 << 2), 0, 0, 2, {{0, 3}, {2, 1}}},
		{2, 0x20 | (3 << 2), 0, 1, 1, {{0, 4}}},
		{3, 0x20, 0, 2, 0},
		{4, 0x20 | 3, 0, 3, 1, {{0xC0, 0xFF}}}
	};

	seed_placement("modulo-3", ALGO_MODULO, "xxh3_64", "identity", none, 1, 3, three);
	seed_placement("modulo-zones", ALGO_MODULO, "xxh3_64", "murmur3_32", none, 1, 5, zoned);
	seed_placement("jump-3", ALGO_JUMP, "xxh3_64", "xxh3_64", none, 1, 3, three);
	seed_placement("jump-zones", ALGO_JUMP, "xxh3_64", "identity", none, 1, 5, zoned);
	seed_placement("rendezvous-3", ALGO_RENDEZVOUS, "xxh3_64", "xxh3_64", none, 1, 3, three);
	seed_placement("rendezvous-weighted-zones", ALGO_RENDEZVOUS, "fnv1a_64", "crc32",
				   none, 1, 5, weighted);
	seed_placement("maglev-307", ALGO_MAGLEV, "xxh3_64", "xxh3_64", prime307, 1, 3, three);
	seed_placement("maglev-weighted-zones", ALGO_MAGLEV, "murmur3_32", "identity",
				   prime1009, 1, 5, weighted);
	seed_placement("maglev-envoy-307", ALGO_MAGLEV_ENVOY, "xxh64", "xxh64", prime307, 1, 3, three);
	seed_placement("maglev-envoy-weighted-zones", ALGO_MAGLEV_ENVOY, "xxh64", "crc32",
				   prime1009, 1, 5, weighted);
	seed_placement("slots-split-default", ALGO_SLOTS, "xxh3_64", "crc32",
				   slots_default, 1, 3, three);
	seed_placement("slots-split-13", ALGO_SLOTS, "xxh3_64", "xxh3_64", slots13, 1, 5, zoned);
	seed_placement("slots-split-1000", ALGO_SLOTS, "xxh3_64", "identity", slots1000, 3, 3, three);
	seed_placement("slots-ranges-13", ALGO_SLOTS, "xxh3_64", "murmur3_32", slots13, 1, 4, ranged);
	seed_placement("slots-ranges-1000", ALGO_SLOTS, "xxh3_64", "xxh3_64", slots1000, 3, 4, ranged);
}
