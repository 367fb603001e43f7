/*
 * fuzz_spec.c
 *		Ring specs from fuzz input, and their builds checked against a
 *		reference (see fuzz_spec.h): shared by fuzz_ring.c and
 *		fuzz_compare.c.
 *
 * Specs stay within what the catalog's constraints let through (node
 * names non-empty, unique and without NUL, weights positive and finite,
 * vnodes 1 to 16,777,216, a key hash of the hash's width), since the ring
 * code is only ever given those; within that, values are chosen near the
 * limits and the edge cases (non-UTF-8 names, the default port, equal
 * ordinals, templates without {i}) as often as plain ones.
 *
 * The reference build is written again here, from README's definitions:
 * point i of a ring node is hash(template with {node} and {i} filled in);
 * ketama's digest d gives four points, its words read little-endian, of
 * the name with the variant's default port cut off and cut to its length
 * limit; points are in position order, ties by the rule's order of nodes,
 * then vnode.  Only the number of points a ketama node gets is taken from
 * the code (its single-precision formulas are the clients' own).
 */
#include "postgres.h"

#include <math.h>
#include <nettle/md5.h>

#include "fuzz_spec.h"

static const char *const variant_names[] = {
	"libmemcached", "libketama", "twemproxy", "uhashring", "node"
};

/* Node weights: code 0 to 0x7f is 1, and above, this table */
static const double weight_table[16] = {
	2, 3, 0.5, 0.25, 1.5, 10, 100, 1e-3, 1e-9, 1e-300, 1e9,
	4294967295.0, 4294967296.0, 1e300, 1.7976931348623157e308,
	0							/* raw: a double from the input */
};

/* A node's weight: a code byte, and for code 0xff a raw double after it */
double
fuzz_decode_weight(FuzzInput *in)
{
	uint8		v = fuzz_u8(in);
	double		weight;

	if (v < 0x80)
		return 1;
	weight = weight_table[(v - 0x80) % lengthof(weight_table)];
	if (weight == 0)
	{
		uint64		bits = fuzz_u64(in);
		double		w;

		memcpy(&w, &bits, sizeof(w));
		weight = (isfinite(w) && w > 0) ? w : 1;
	}
	return weight;
}

/* A node's own vnodes: code 0 to 0xbf is unset, and above, this table */
static const int32 node_vnodes_table[8] = {
	1, 4, 8, 40, 160, CHASH_MAX_VNODES, 6,
	0							/* raw: 1 + a byte */
};

/* --- decoding ----------------------------------------------------------- */

static char *
decode_string(FuzzInput *in, int max)
{
	char	   *s = palloc(max + 1);
	int			len = fuzz_bytes(in, s, max);

	/* the catalog's text holds no NUL */
	for (int k = 0; k < len; k++)
		if (s[k] == '\0')
			s[k] = '?';
	s[len] = '\0';
	return s;
}

/* The hashes of a width, in the table's order */
static const ChashHashFunction *
hash_of_width(int bits, int r)
{
	int			n = 0;

	for (int i = 0; i < chash_hash_count(); i++)
		n += chash_hash_at(i)->bits == bits;
	r %= n;
	for (int i = 0; i < chash_hash_count(); i++)
	{
		if (chash_hash_at(i)->bits == bits && r-- == 0)
			return chash_hash_at(i);
	}
	pg_unreachable();
}

void
fuzz_decode_node(FuzzInput *in, const ChashRingSpec *spec, ChashNodeSpec *n,
				 int k)
{
	char	   *name = decode_string(in, 48);
	uint8		flags = fuzz_u8(in);
	uint8		v;

	if (name[0] == '\0')
		name = psprintf("n%d", k);
	if (flags & 1)
		name = psprintf("%s:11211", name);
	memset(n, 0, sizeof(*n));
	n->name = n->name_utf8 = name;
	n->name_len = n->name_utf8_len = strlen(name);
	n->active = ((flags >> 1) & 3) != 3;

	n->weight = fuzz_decode_weight(in);

	v = fuzz_u8(in);
	n->vnodes = 0;
	if (v >= 0xC0)
	{
		n->vnodes = node_vnodes_table[(v - 0xC0) % lengthof(node_vnodes_table)];
		if (n->vnodes == 0)
			n->vnodes = 1 + fuzz_u8(in);
	}

	v = fuzz_u8(in);
	n->ordinal = v < 0xF0 ? v % 8 : (int64) fuzz_u64(in);
}

static int
node_cmp(const void *a, const void *b)
{
	return chash_node_spec_cmp(a, b);
}

void
fuzz_normalize_nodes(ChashRingSpec *spec)
{
	for (int k = 1; k < spec->nnodes; k++)
	{
		ChashNodeSpec *n = &spec->nodes[k];

		for (int j = 0; j < k; j++)
		{
			if (chash_node_spec_cmp(&spec->nodes[j], n) == 0)
			{
				char	   *name = psprintf("%s~%d", n->name, k);

				n->name = n->name_utf8 = name;
				n->name_len = n->name_utf8_len = strlen(name);
				j = -1;			/* again, from the first */
			}
		}
	}
	qsort(spec->nodes, spec->nnodes, sizeof(ChashNodeSpec), node_cmp);
}

ChashRingSpec *
fuzz_copy_spec(const ChashRingSpec *spec)
{
	ChashRingSpec *copy = palloc(sizeof(ChashRingSpec));

	*copy = *spec;
	copy->nodes = palloc0(sizeof(ChashNodeSpec) * (spec->nnodes + 1));
	memcpy(copy->nodes, spec->nodes, sizeof(ChashNodeSpec) * spec->nnodes);
	return copy;
}

ChashRingSpec *
fuzz_decode_spec(FuzzInput *in)
{
	ChashRingSpec *spec = palloc0(sizeof(ChashRingSpec));
	bool		ketama;
	uint8		v;
	char	   *tmpl;

	strlcpy(spec->name, "fuzz", sizeof(spec->name));
	ketama = fuzz_u8(in) & 1;
	spec->algorithm = ketama ? &chash_algorithm_ketama : &chash_algorithm_ring;

	v = fuzz_u8(in);
	spec->hash = (ketama && v < 0xF0) ? chash_hash_find("md5") :
		chash_hash_at(v % chash_hash_count());
	v = fuzz_u8(in);
	spec->key_hash = v == 0 ? spec->hash : hash_of_width(spec->hash->bits, v - 1);

	v = fuzz_u8(in);
	if (v < 200)
		spec->vnodes = ketama ? 4 * (1 + v % 16) : 1 + v % 64;
	else if (v == 200)
		spec->vnodes = 160;
	else if (v == 201)
		spec->vnodes = CHASH_MAX_VNODES;
	else if (v == 202)
		spec->vnodes = CHASH_MAX_VNODES - 1;
	else if (v == 203)
		spec->vnodes = 3;
	else if (v == 204)
		spec->vnodes = 4194304;
	else
		spec->vnodes = 1 + fuzz_u32(in) % CHASH_MAX_VNODES;

	v = fuzz_u8(in);
	if (v < 200)
		spec->vnode_first = v;
	else if (v == 200)
		spec->vnode_first = PG_INT32_MAX;
	else if (v == 201)
		spec->vnode_first = PG_INT32_MIN;
	else if (v == 202)
		spec->vnode_first = -1;
	else if (v == 203)
		spec->vnode_first = PG_INT32_MAX - 3;
	else
		spec->vnode_first = (int32) fuzz_u32(in);

	v = fuzz_u8(in);
	switch (v)
	{
		case 0:
			tmpl = pstrdup(spec->algorithm->default_vnode_name);
			break;
		case 1:
			tmpl = pstrdup("{node}#{i}");
			break;
		case 2:
			tmpl = pstrdup("{node}-{i}");
			break;
		case 3:
			tmpl = pstrdup("{i}{node}");
			break;
		case 4:
			tmpl = pstrdup("{node}{i}");
			break;
		default:
			tmpl = decode_string(in, 255);
			break;
	}
	spec->vnode_name = spec->vnode_name_utf8 = tmpl;
	spec->vnode_name_utf8_len = strlen(tmpl);

	v = fuzz_u8(in);
	if (v >= 0xA0)
	{
		int			c = (v - 0xA0) % 8;

		spec->variant = c < 5 ? pstrdup(variant_names[c]) :
			c == 5 ? pstrdup("") : c == 6 ? pstrdup("bogus") :
			decode_string(in, 32);
	}

	v = fuzz_u8(in);
	if (v >= 0xA0)
	{
		static const char *const ties[] = {"name", "first", "last", "", "NAME"};
		int			c = (v - 0xA0) % 6;

		spec->ties_name = c < 5 ? pstrdup(ties[c]) : decode_string(in, 16);
	}

	spec->nnodes = fuzz_u8(in) % (FUZZ_MAX_NODES + 1);
	spec->nodes = palloc0(sizeof(ChashNodeSpec) * (spec->nnodes + 1));
	for (int k = 0; k < spec->nnodes; k++)
		fuzz_decode_node(in, spec, &spec->nodes[k], k);
	fuzz_normalize_nodes(spec);
	return spec;
}

/* --- what the code should do, from README ------------------------------- */

static bool
ref_utf8(const char *s, int len)
{
	return fuzz_ref_utf8((const uint8 *) s, len);
}

static int
ref_variant(const ChashRingSpec *spec)
{
	const char *name = spec->variant ? spec->variant : "libmemcached";

	for (int i = 0; i < lengthof(variant_names); i++)
		if (strcmp(name, variant_names[i]) == 0)
			return i;
	return -1;
}

#define V_LIBMEMCACHED	0
#define V_TWEMPROXY		2
#define V_UHASHRING		3
#define V_NODE			4

static bool
is_ketama(const ChashRingSpec *spec)
{
	return spec->algorithm == &chash_algorithm_ketama;
}

/* Whether chash_ring_prepare_spec should accept spec */
static bool
ref_prepare_ok(const ChashRingSpec *spec, const char **why)
{
	if (strstr(spec->vnode_name, "{i}") == NULL ||
		strstr(spec->vnode_name, "{node}") == NULL)
		return (*why = "template"), false;
	if (spec->hash->needs_utf8)
	{
		if (!ref_utf8(spec->vnode_name_utf8, spec->vnode_name_utf8_len))
			return (*why = "template not UTF-8"), false;
		for (int k = 0; k < spec->nnodes; k++)
			if (!ref_utf8(spec->nodes[k].name_utf8, spec->nodes[k].name_utf8_len))
				return (*why = "node name not UTF-8"), false;
	}
	/* identity takes integer keys, never the names of ring and ketama */
	if (spec->hash->integer_keys)
		return (*why = "identity as the hash of names"), false;
	if (spec->ties_name != NULL && strcmp(spec->ties_name, "name") != 0 &&
		strcmp(spec->ties_name, "first") != 0 && strcmp(spec->ties_name, "last") != 0)
		return (*why = "ties"), false;
	if (!is_ketama(spec))
	{
		if (spec->variant != NULL)
			return (*why = "variant of a ring ring"), false;
		return true;
	}
	if (ref_variant(spec) < 0)
		return (*why = "variant"), false;
	if (strcmp(spec->hash->name, "md5") != 0)
		return (*why = "ketama hash"), false;
	if (spec->vnodes % 4 != 0)
		return (*why = "ketama vnodes"), false;
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].weight > 4294967295.0)
			return (*why = "ketama weight"), false;
		if (spec->nodes[k].vnodes % 4 != 0)
			return (*why = "ketama node vnodes"), false;
	}
	if (spec->ties_name != NULL)
		return (*why = "ketama ties"), false;
	return true;
}

static void
ref_rule(const ChashRingSpec *spec, ChashTies *ties, bool *strict)
{
	*strict = false;
	if (!is_ketama(spec))
	{
		*ties = CHASH_TIES_NAME;
		if (spec->ties_name && strcmp(spec->ties_name, "first") == 0)
			*ties = CHASH_TIES_FIRST;
		if (spec->ties_name && strcmp(spec->ties_name, "last") == 0)
			*ties = CHASH_TIES_LAST;
		return;
	}
	switch (ref_variant(spec))
	{
		case V_TWEMPROXY:
			*ties = CHASH_TIES_SHORTEST_NAME;
			break;
		case V_UHASHRING:
			*ties = CHASH_TIES_LAST;
			*strict = true;
			break;
		default:
			*ties = CHASH_TIES_FIRST;
			break;
	}
}

/*
 * The points of a ring node from README's formula: -1 where it is too many
 * for a node (an ERROR)
 */
static int64
ref_ring_node_points(const ChashRingSpec *spec, const ChashNodeSpec *n)
{
	double		p;

	if (!n->active)
		return 0;
	if (n->vnodes > 0)
		return n->vnodes;
	p = round((double) spec->vnodes * n->weight);
	if (p > CHASH_MAX_VNODES)
		return -1;
	return p < 1 ? 1 : (int64) p;
}

/* The length of the part of a ketama node's name that is hashed */
static int
ref_hashed_len(const ChashRingSpec *spec, const char *name, int len)
{
	if (ref_variant(spec) == V_LIBMEMCACHED && len > 6 &&
		memcmp(name + len - 6, ":11211", 6) == 0)
		return len - 6;
	return len;
}

/* --- the reference build ------------------------------------------------ */

typedef struct RefOrder
{
	const ChashRingSpec *spec;
	ChashTies	ties;
	uint32	   *rank;
} RefOrder;

static RefOrder *ref_order;

static int
ref_node_cmp(const void *a, const void *b)
{
	uint32		i = *(const uint32 *) a;
	uint32		j = *(const uint32 *) b;
	const ChashNodeSpec *ni = &ref_order->spec->nodes[i];
	const ChashNodeSpec *nj = &ref_order->spec->nodes[j];

	switch (ref_order->ties)
	{
		case CHASH_TIES_NAME:
			break;
		case CHASH_TIES_FIRST:
			if (ni->ordinal != nj->ordinal)
				return ni->ordinal < nj->ordinal ? -1 : 1;
			break;
		case CHASH_TIES_LAST:
			if (ni->ordinal != nj->ordinal)
				return ni->ordinal > nj->ordinal ? -1 : 1;
			break;
		case CHASH_TIES_SHORTEST_NAME:
			if (ni->name_utf8_len != nj->name_utf8_len)
				return ni->name_utf8_len < nj->name_utf8_len ? -1 : 1;
			break;
	}
	return i < j ? -1 : i > j;
}

static int
ref_point_cmp(const void *a, const void *b)
{
	const ChashPoint *x = a;
	const ChashPoint *y = b;

	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	if (x->node != y->node)
		return ref_order->rank[x->node] < ref_order->rank[y->node] ? -1 : 1;
	return x->vnode < y->vnode ? -1 : x->vnode > y->vnode;
}

static ChashPoint *
ref_build(const ChashRingSpec *spec, const int64 *counts, int64 total)
{
	ChashPoint *points = palloc(sizeof(ChashPoint) * Max(total, 1));
	int64		at = 0;
	StringInfoData name;
	RefOrder	order;
	uint32	   *nodes = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	bool		strict;

	initStringInfo(&name);
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		if (!is_ketama(spec))
		{
			for (int64 v = 0; v < counts[k]; v++)
			{
				resetStringInfo(&name);
				fuzz_ref_expand(&name, spec->vnode_name_utf8,
								spec->vnode_name_utf8_len, n->name_utf8,
								n->name_utf8_len, (int64) spec->vnode_first + v);
				points[at].position = spec->hash->fn((const unsigned char *) name.data,
													 name.len);
				points[at].node = k;
				points[at].vnode = (uint32) v;
				at++;
			}
			continue;
		}
		for (int64 d = 0; d < counts[k] / 4; d++)
		{
			struct md5_ctx ctx;
			uint8		digest[MD5_DIGEST_SIZE];
			int			len;

			resetStringInfo(&name);
			fuzz_ref_expand(&name, spec->vnode_name_utf8,
							spec->vnode_name_utf8_len, n->name_utf8,
							ref_hashed_len(spec, n->name_utf8, n->name_utf8_len),
							(int64) spec->vnode_first + d);
			len = name.len;
			if (ref_variant(spec) == V_TWEMPROXY && len > 272)
				len = 272;
			md5_init(&ctx);
			md5_update(&ctx, len, (const uint8 *) name.data);
			md5_digest(&ctx, MD5_DIGEST_SIZE, digest);
			for (int x = 0; x < 4; x++)
			{
				const uint8 *w = digest + 4 * x;

				points[at].position = (uint64) w[0] | ((uint64) w[1] << 8) |
					((uint64) w[2] << 16) | ((uint64) w[3] << 24);
				points[at].node = k;
				points[at].vnode = (uint32) (4 * d + x);
				at++;
			}
		}
	}
	fuzz_check(at == total, "reference build: %lld points, counted %lld",
			   (long long) at, (long long) total);

	order.spec = spec;
	ref_rule(spec, &order.ties, &strict);
	order.rank = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	for (int k = 0; k < spec->nnodes; k++)
		nodes[k] = k;
	ref_order = &order;
	qsort(nodes, spec->nnodes, sizeof(uint32), ref_node_cmp);
	for (int r = 0; r < spec->nnodes; r++)
		order.rank[nodes[r]] = r;
	qsort(points, total, sizeof(ChashPoint), ref_point_cmp);
	ref_order = NULL;
	pfree(name.data);
	pfree(nodes);
	pfree(order.rank);
	return points;
}

/* --- building and checking ---------------------------------------------- */

static void
call_prepare(void *arg)
{
	chash_ring_prepare_spec(((FuzzBuilt *) arg)->spec);
}

static void
call_count(void *arg)
{
	FuzzBuilt  *b = arg;

	b->total = chash_ring_count_points(b->spec, b->counts);
}

typedef struct PointsCall
{
	const ChashRingSpec *spec;
	ChashPoint *points;
	uint32		npoints;
	ChashPlacement *ring;
} PointsCall;

static void
call_build_points(void *arg)
{
	PointsCall *c = arg;

	c->points = chash_ring_build_points(c->spec, &c->npoints);
}

static void
call_build(void *arg)
{
	PointsCall *c = arg;

	c->ring = chash_ring_build(c->spec, NULL);
}

uint32
fuzz_ref_find(const ChashPlacement *ring, uint64 key)
{
	uint32		lo = 0,
				hi = ring->npoints;
	bool		strict = ring->spec.strictly_after;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (strict ? ring->positions[mid] <= key : ring->positions[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == ring->npoints ? 0 : lo;
}

void
fuzz_check_find(const ChashPlacement *ring, uint64 key)
{
	uint32		got;
	uint32		want;

	if (key > ring->max_position)
		return;
	got = chash_ring_find(ring, key);
	want = fuzz_ref_find(ring, key);
	fuzz_check(got == want,
			   "chash_ring_find(0x%llx): point %u, a binary search gives %u (of %u points, %s)",
			   (unsigned long long) key, got, want, ring->npoints,
			   ring->spec.strictly_after ? "strictly after" : "at or after");
}

/* The spec's copy in the ring says the same */
static void
check_spec_copy(const ChashRingSpec *spec, const ChashRingSpec *copy)
{
	fuzz_check(copy->nnodes == spec->nnodes && copy->hash == spec->hash &&
			   copy->key_hash == spec->key_hash &&
			   copy->algorithm == spec->algorithm &&
			   copy->vnodes == spec->vnodes &&
			   copy->vnode_first == spec->vnode_first &&
			   copy->ties == spec->ties &&
			   copy->strictly_after == spec->strictly_after &&
			   strcmp(copy->vnode_name, spec->vnode_name) == 0 &&
			   copy->vnode_name_utf8 == copy->vnode_name &&
			   copy->vnode_name != spec->vnode_name &&
			   (copy->variant == NULL) == (spec->variant == NULL) &&
			   (copy->ties_name == NULL) == (spec->ties_name == NULL),
			   "the ring's copy of its spec differs");
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *a = &spec->nodes[k];
		const ChashNodeSpec *c = &copy->nodes[k];

		fuzz_check(c->name_len == a->name_len &&
				   memcmp(c->name, a->name, a->name_len) == 0 &&
				   c->name[c->name_len] == '\0' && c->name_utf8 == c->name &&
				   c->name != a->name && c->weight == a->weight &&
				   c->vnodes == a->vnodes && c->active == a->active &&
				   c->ordinal == a->ordinal,
				   "the ring's copy of node %d differs", k);
	}
}

void
fuzz_check_ring(const FuzzBuilt *b, const ChashPlacement *ring)
{
	const ChashRingSpec *spec = b->spec;
	int			bits = spec->key_hash->bits;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	int			nactive = 0;
	int			nbits;

	fuzz_check(ring->npoints == b->total, "ring of %u points, counted %lld",
			   ring->npoints, (long long) b->total);
	fuzz_check((ring->owners16 != NULL) == (spec->nnodes <= PG_UINT16_MAX + 1) &&
			   (ring->owners32 != NULL) == (ring->owners16 == NULL),
			   "a ring of %d nodes with %d-byte owners", spec->nnodes,
			   ring->owners16 ? 2 : 4);
	for (uint32 j = 0; j < ring->npoints; j++)
	{
		fuzz_check(ring->positions[j] == b->ref[j].position &&
				   chash_ring_owner(ring, j) == b->ref[j].node,
				   "point %u of the ring: 0x%llx of node %u, the reference's 0x%llx of node %u",
				   j, (unsigned long long) ring->positions[j],
				   chash_ring_owner(ring, j),
				   (unsigned long long) b->ref[j].position, b->ref[j].node);
	}
	for (int k = 0; k < CHASH_BUCKET_WINDOW; k++)
		fuzz_check(ring->positions[ring->npoints + k] == PG_UINT64_MAX,
				   "padding %d of the positions is not the largest", k);
	for (int k = 0; k < spec->nnodes; k++)
	{
		fuzz_check(ring->node_points[k] == b->counts[k],
				   "node %d has %u points in the ring, counted %lld", k,
				   ring->node_points[k], (long long) b->counts[k]);
		nactive += b->counts[k] > 0;
	}
	fuzz_check(ring->nactive == nactive, "ring's nactive %d, %d nodes own points",
			   ring->nactive, nactive);
	fuzz_check(ring->max_position == max, "max_position 0x%llx of a %d-bit ring",
			   (unsigned long long) ring->max_position, bits);

	/* the bucket index, by its definition */
	for (nbits = 0; nbits < 32 && ((uint32) 1 << nbits) != ring->nbuckets; nbits++)
		;
	fuzz_check(nbits >= 1 && nbits <= 16 && ring->bucket_shift == bits - nbits,
			   "%u buckets, shift %d, of a %d-bit ring", ring->nbuckets,
			   ring->bucket_shift, bits);
	fuzz_check(ring->bucket[ring->nbuckets] == ring->npoints,
			   "the last bucket ends at %u of %u points",
			   ring->bucket[ring->nbuckets], ring->npoints);
	for (uint32 bk = 0, first = 0; bk < ring->nbuckets; bk++)
	{
		uint64		start = (uint64) bk << ring->bucket_shift;

		while (first < ring->npoints && ring->positions[first] < start)
			first++;
		fuzz_check(ring->bucket[bk] == first,
				   "bucket %u starts at point %u, its first point is %u", bk,
				   ring->bucket[bk], first);
	}
	check_spec_copy(spec, &ring->spec);
}

/* The labels of points, as chash_points shows them */
static void
check_labels(const ChashRingSpec *spec, const ChashPoint *points, uint32 n)
{
	StringInfoData got;
	StringInfoData want;

	initStringInfo(&got);
	initStringInfo(&want);
	for (uint32 j = 0; j < n; j += (n <= 256 ? 1 : 1 + n / 64))
	{
		const ChashNodeSpec *node = &spec->nodes[points[j].node];

		resetStringInfo(&got);
		resetStringInfo(&want);
		spec->algorithm->point_label(spec, points[j].node, points[j].vnode, &got);
		if (is_ketama(spec))
		{
			fuzz_ref_expand(&want, spec->vnode_name, strlen(spec->vnode_name),
							node->name, ref_hashed_len(spec, node->name, node->name_len),
							(int64) spec->vnode_first + points[j].vnode / 4);
			appendStringInfo(&want, "[%u]", points[j].vnode % 4);
		}
		else
			fuzz_ref_expand(&want, spec->vnode_name, strlen(spec->vnode_name),
							node->name, node->name_len,
							(int64) spec->vnode_first + points[j].vnode);
		fuzz_check(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
				   "label of point %u: \"%.200s\", expected \"%.200s\"", j,
				   got.data, want.data);
	}
	pfree(got.data);
	pfree(want.data);
}

/* The spec, in words, on stderr */
static void
print_spec(const ChashRingSpec *spec)
{
	fprintf(stderr, "chash fuzz: ring: algorithm %s, hash %s, key_hash %s, vnodes %d, vnode_first %d, template \"%s\", variant %s%s%s, ties %s%s%s, %d nodes\n",
			spec->algorithm->name, spec->hash->name, spec->key_hash->name,
			spec->vnodes, spec->vnode_first, spec->vnode_name,
			spec->variant ? "\"" : "", spec->variant ? spec->variant : "NULL",
			spec->variant ? "\"" : "",
			spec->ties_name ? "\"" : "", spec->ties_name ? spec->ties_name : "NULL",
			spec->ties_name ? "\"" : "", spec->nnodes);
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *n = &spec->nodes[k];

		fprintf(stderr, "chash fuzz:   node %d \"%s\" (%d bytes): weight %.17g, vnodes %d, %s, ordinal %lld\n",
				k, n->name, n->name_len, n->weight, n->vnodes,
				n->active ? "active" : "down", (long long) n->ordinal);
	}
}

bool
fuzz_build(ChashRingSpec *spec, FuzzBuilt *b)
{
	const char *why = NULL;
	bool		want;
	ChashTies	ties;
	bool		strict;
	int			nactive = 0;
	double		active_weight = 0;
	int64		bytes = 0;
	bool		count_ok = true;
	int64		want_total = 0;
	PointsCall	pc;

	memset(b, 0, sizeof(*b));
	b->spec = spec;
	if (fuzz_verbose)
		print_spec(spec);

	/* prepare: accepted exactly when README's rules say */
	want = ref_prepare_ok(spec, &why);
	b->prepared = fuzz_try(call_prepare, b);
	fuzz_check(b->prepared == want,
			   "chash_ring_prepare_spec %s a spec that %s (%s)",
			   b->prepared ? "accepted" : "refused",
			   want ? "is valid" : "breaks a rule", want ? "-" : why);
	if (!b->prepared)
		return false;
	ref_rule(spec, &ties, &strict);
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].active)
		{
			nactive++;
			active_weight += spec->nodes[k].weight;
		}
	}
	fuzz_check(spec->ties == ties && spec->strictly_after == strict &&
			   spec->nactive == nactive && spec->active_weight == active_weight &&
			   (spec->variant_data != NULL) == is_ketama(spec),
			   "prepared spec: ties %d strictly_after %d nactive %d weight %g, expected %d %d %d %g",
			   spec->ties, spec->strictly_after, spec->nactive,
			   spec->active_weight, ties, strict, nactive, active_weight);

	/* count: for ring rings, README's formula; for ketama, its bounds */
	b->counts = palloc0(sizeof(int64) * Max(spec->nnodes, 1));
	if (!is_ketama(spec))
	{
		for (int k = 0; k < spec->nnodes; k++)
		{
			int64		p = ref_ring_node_points(spec, &spec->nodes[k]);

			if (p < 0)
				count_ok = false;
			want_total += Max(p, 0);
		}
		if (want_total > CHASH_MAX_RING_POINTS)
			count_ok = false;
	}
	b->counted = fuzz_try(call_count, b);
	if (!is_ketama(spec))
		fuzz_check(b->counted == count_ok,
				   "chash_ring_count_points %s a ring of %lld points",
				   b->counted ? "accepted" : "refused", (long long) want_total);
	if (!b->counted)
		return false;
	fuzz_check(b->total >= 0 && b->total <= CHASH_MAX_RING_POINTS,
			   "a ring of %lld points was accepted", (long long) b->total);
	{
		int64		sum = 0;

		for (int k = 0; k < spec->nnodes; k++)
		{
			const ChashNodeSpec *n = &spec->nodes[k];
			int64		c = b->counts[k];

			sum += c;
			fuzz_check(c >= 0 && c <= CHASH_MAX_VNODES && (n->active || c == 0),
					   "node %d (%s) counted %lld points", k,
					   n->active ? "active" : "down", (long long) c);
			if (!is_ketama(spec))
				fuzz_check(c == ref_ring_node_points(spec, n),
						   "node %d: %lld points, README's formula gives %lld", k,
						   (long long) c, (long long) ref_ring_node_points(spec, n));
			else if (n->active)
			{
				/* digests: the node's share of the average node's d times n */
				double		d = (n->vnodes > 0 ? n->vnodes : spec->vnodes) / 4;
				double		bound = d * nactive * (n->weight / active_weight) * 1.0001 + 1;

				if (ref_variant(spec) == V_NODE && n->vnodes > 0 && n->vnodes != spec->vnodes)
					bound = n->vnodes / 4;
				fuzz_check(c % 4 == 0 && c <= 4 * bound,
						   "ketama node %d: %lld points, at most %.0f expected", k,
						   (long long) c, 4 * bound);
			}
			if (n->active && c > 0)
			{
				StringInfoData name;

				initStringInfo(&name);
				fuzz_ref_expand(&name, spec->vnode_name_utf8,
								spec->vnode_name_utf8_len, n->name_utf8,
								n->name_utf8_len, spec->vnode_first);
				bytes += (is_ketama(spec) ? c / 4 : c) * (int64) (name.len + 24);
				pfree(name.data);
			}
		}
		fuzz_check(sum == b->total, "nodes' counts add up to %lld, the ring's to %lld",
				   (long long) sum, (long long) b->total);
	}
	if (b->total > FUZZ_MAX_BUILD_POINTS || bytes > FUZZ_MAX_BUILD_BYTES)
		return false;

	/* the points, then the ring: no ERROR once counted */
	b->ref = ref_build(spec, b->counts, b->total);
	pc.spec = spec;
	fuzz_check(fuzz_try(call_build_points, &pc),
			   "chash_ring_build_points raised an ERROR after the count: %s",
			   chash_stub_error_message);
	fuzz_check(pc.npoints == b->total, "chash_ring_build_points: %u points, counted %lld",
			   pc.npoints, (long long) b->total);
	for (uint32 j = 0; j < pc.npoints; j++)
		fuzz_check(pc.points[j].position == b->ref[j].position &&
				   pc.points[j].node == b->ref[j].node &&
				   pc.points[j].vnode == b->ref[j].vnode,
				   "built point %u: (0x%llx, node %u, vnode %u), the reference's (0x%llx, %u, %u)",
				   j, (unsigned long long) pc.points[j].position,
				   pc.points[j].node, pc.points[j].vnode,
				   (unsigned long long) b->ref[j].position, b->ref[j].node,
				   b->ref[j].vnode);
	check_labels(spec, pc.points, pc.npoints);
	pfree(pc.points);

	fuzz_check(fuzz_try(call_build, &pc),
			   "chash_ring_build raised an ERROR after the count: %s",
			   chash_stub_error_message);
	b->ring = pc.ring;
	fuzz_check_ring(b, b->ring);
	return true;
}

/* --- chosen points ------------------------------------------------------ */

static int
sorted_point_cmp(const void *a, const void *b)
{
	const ChashPoint *x = a;
	const ChashPoint *y = b;

	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->vnode < y->vnode ? -1 : x->vnode > y->vnode;
}

ChashPlacement *
fuzz_chosen_ring(FuzzInput *in, int bits, bool strict, const ChashPlacement *share,
				 FuzzBuilt *b)
{
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	int			nnodes = 1 + fuzz_u8(in) % FUZZ_CHOSEN_NODES;
	ChashPoint *points = palloc(sizeof(ChashPoint) * FUZZ_MAX_BUILD_POINTS);
	uint32		n = 0;
	uint64		prev = fuzz_u64(in) & max;
	ChashRingSpec *spec = palloc0(sizeof(ChashRingSpec));
	ChashPlacement *ring;

	memset(b, 0, sizeof(*b));

	/* the points: each a kind byte and what that kind takes */
	while (n < FUZZ_MAX_BUILD_POINTS && in->left > 1)
	{
		uint8		kind = fuzz_u8(in);
		uint64		pos;

		if (kind == 0xFF)
			break;				/* what follows is not points */
		if (kind < 0x60)
			pos = prev + (kind & 0x1f) <= max && prev + (kind & 0x1f) >= prev ?
				prev + (kind & 0x1f) : max;
		else if (kind < 0xA0)
		{
			/* near a multiple of 2^(bits - 16): a bucket's start, whatever their number */
			uint64		start = (uint64) fuzz_u8(in) << (bits - 8) |
			(uint64) fuzz_u8(in) << (bits - 16);

			pos = (kind & 0x10) ? start + (kind & 0x0f) : start - 1 - (kind & 0x0f);
			pos &= max;
		}
		else if (kind < 0xD0)
			pos = fuzz_u64(in) & max;
		else if (kind < 0xE0 || share == NULL || share->npoints == 0)
		{
			uint64		ends[4] = {0, 1, max - 1, max};

			pos = ends[kind & 3];
		}
		else
		{
			/* a position of the other ring, or beside it */
			uint64		p = share->positions[fuzz_u8(in) % share->npoints];
			int			d = (int) (kind & 3) - 1;

			pos = (d < 0 && p == 0) || (d > 0 && p > max - d) ? p : p + d;
		}
		points[n].position = prev = pos;
		points[n].node = fuzz_u8(in) % nnodes;
		/* repeated (node, vnode) pairs too, as weights never make them */
		points[n].vnode = (kind & 0x20) ? n % 3 : n;
		n++;
	}

	/* chash_sort_points as qsort sorts */
	b->ref = palloc(sizeof(ChashPoint) * Max(n, 1));
	memcpy(b->ref, points, sizeof(ChashPoint) * n);
	qsort(b->ref, n, sizeof(ChashPoint), sorted_point_cmp);
	chash_sort_points(points, n, bits);
	for (uint32 j = 0; j < n; j++)
		fuzz_check(sorted_point_cmp(&points[j], &b->ref[j]) == 0,
				   "chash_sort_points: point %u of %u is (0x%llx, %u, %u), qsort's (0x%llx, %u, %u)",
				   j, n, (unsigned long long) points[j].position,
				   points[j].node, points[j].vnode,
				   (unsigned long long) b->ref[j].position, b->ref[j].node,
				   b->ref[j].vnode);

	/* a ring of these points, as chash_ring_build would pack them */
	strlcpy(spec->name, "chosen", sizeof(spec->name));
	spec->algorithm = &chash_algorithm_ring;
	spec->hash = spec->key_hash = chash_hash_find(bits == 64 ? "xxh3_64" : "murmur3_32");
	spec->vnodes = 1;
	spec->vnode_name = spec->vnode_name_utf8 = "{node}#{i}";
	spec->vnode_name_utf8_len = strlen(spec->vnode_name);
	spec->nnodes = nnodes;
	spec->nodes = palloc0(sizeof(ChashNodeSpec) * nnodes);
	for (int k = 0; k < nnodes; k++)
	{
		ChashNodeSpec *node = &spec->nodes[k];

		node->name = node->name_utf8 = psprintf("n%02d", k);
		node->name_len = node->name_utf8_len = strlen(node->name);
		node->weight = 1;
		node->active = true;
	}
	chash_ring_prepare_spec(spec);
	spec->strictly_after = strict;

	b->spec = spec;
	b->prepared = b->counted = true;
	b->total = n;
	b->counts = palloc0(sizeof(int64) * nnodes);
	for (uint32 j = 0; j < n; j++)
		b->counts[points[j].node]++;
	ring = chash_ring_from_points(spec, points, n, NULL);
	b->ring = ring;
	fuzz_check_ring(b, ring);
	return ring;
}

/* --- seeds -------------------------------------------------------------- */

static int
hash_index(const char *name)
{
	for (int i = 0; i < chash_hash_count(); i++)
		if (strcmp(chash_hash_at(i)->name, name) == 0)
			return i;
	fuzz_fail("seed: no hash %s", name);
}

void
seed_node(FuzzSeed *s, const SeedNode *n)
{
	seed_bytes(s, n->name);
	seed_u8(s, (n->default_port ? 1 : 0) | (n->down ? 6 : 0));
	seed_u8(s, n->weight);
	seed_u8(s, n->vnodes);
	seed_u8(s, n->ordinal);
}

void
seed_spec(FuzzSeed *s, const SeedSpec *spec)
{
	bool		ketama = strcmp(spec->algorithm, "ketama") == 0;
	const char *hash = spec->hash ? spec->hash : ketama ? "md5" : "xxh3_64";
	uint8		v;

	seed_u8(s, ketama ? 1 : 0);
	seed_u8(s, (ketama && strcmp(hash, "md5") == 0) ? 0 : (uint8) hash_index(hash));
	v = 0;
	if (spec->key_hash != NULL)
	{
		int			bits = chash_hash_at(hash_index(hash))->bits;
		int			r = 0;

		for (int i = 0; i < hash_index(spec->key_hash); i++)
			r += chash_hash_at(i)->bits == bits;
		v = 1 + r;
	}
	seed_u8(s, v);
	seed_u8(s, spec->vnodes);
	seed_u8(s, spec->vnode_first);
	if (spec->tmpl == NULL)
		seed_u8(s, 0);
	else
	{
		seed_u8(s, 5);
		seed_bytes(s, spec->tmpl);
	}
	v = 0;
	for (int i = 0; spec->variant && i < lengthof(variant_names); i++)
		if (strcmp(spec->variant, variant_names[i]) == 0)
			v = 0xA0 + i;
	seed_u8(s, v);
	v = 0;
	if (spec->ties != NULL)
		v = strcmp(spec->ties, "name") == 0 ? 0xA0 :
			strcmp(spec->ties, "first") == 0 ? 0xA1 : 0xA2;
	seed_u8(s, v);
	seed_u8(s, (uint8) spec->nnodes);
	for (int k = 0; k < spec->nnodes; k++)
		seed_node(s, &spec->nodes[k]);
}
