/*-------------------------------------------------------------------------
 *
 * build.c
 *	  Building a placement from its checked configuration: points sorted,
 *	  buckets, lookup rules and zones; the members of computed placements.
 *
 * Pure code: a ChashRingSpec in, a placement out.  Nothing here reads the
 * catalog; metadata/catalog.c fills the spec (checked in spec.c) and
 * metadata/cache.c keeps the result.  Point placements are built here for
 * every point algorithm; computed ones get their members here and the rest
 * from their algorithm.  Finding owners: placement.h, search.c and
 * preference.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "placement/placement.h"

static void assign_zones(ChashPlacement *placement);

/* A node's given points: token i at its position, as vnode i */
void
chash_tokens_build(const ChashRingSpec *spec, const ChashNodeSpec *node,
				   int index, ChashPoint *out)
{
	for (int i = 0; i < node->ntokens; i++)
	{
		out[i].position = chash_position_from_int64(spec->key_hash,
													node->tokens[i]);
		out[i].node = index;
		out[i].vnode = i;
	}
}

/* Computed placements have no points */
int64
chash_computed_node_points(const ChashRingSpec *spec, int node)
{
	return 0;
}

static int
point_cmp(const void *a, const void *b)
{
	const ChashPoint *pa = (const ChashPoint *) a;
	const ChashPoint *pb = (const ChashPoint *) b;

	if (pa->position != pb->position)
		return pa->position < pb->position ? -1 : 1;
	if (pa->node != pb->node)
		return pa->node < pb->node ? -1 : 1;
	if (pa->vnode != pb->vnode)
		return pa->vnode < pb->vnode ? -1 : 1;
	return 0;
}

static inline bool
point_before(const ChashPoint *a, const ChashPoint *b)
{
	if (a->position != b->position)
		return a->position < b->position;
	if (a->node != b->node)
		return a->node < b->node;
	return a->vnode < b->vnode;
}

/*
 * Sort points as point_cmp orders them, in place: a most-significant-digit
 * radix sort on the position, 8 bits a pass.  bits is how many low bits of the
 * positions may differ: the hash's width, then fewer in each pass.  Each pass
 * deals the points into 256 buckets by moving each straight to its bucket's
 * next free slot (an in-place distribution, "American flag sort"; 256 slots
 * being filled stay in the CPU's cache), then sorts each bucket on the next 8
 * bits. Small buckets are finished by an insertion sort, points at one
 * position by node and vnode.  Building a ring of 4,194,304 points took 835 ms
 * with qsort, three quarters of it sorting, and takes 320 to 400 ms so (make
 * bench, figure 4a).  Dealing all points at once into 2^19 buckets was as fast
 * but needs a second array of points; moving points in place among that many
 * buckets misses the cache at every move (1.3 s).
 */
void
chash_sort_points(ChashPoint *points, uint32 n, int bits)
{
	uint32		next[257];		/* the next slot of each bucket to fill */
	uint32		end[256];		/* where each bucket ends */
	int			digit_bits;
	int			shift;
	uint32		mask;

	if (n <= 32)
	{
		for (uint32 i = 1; i < n; i++)
		{
			ChashPoint	p = points[i];
			uint32		k = i;

			while (k > 0 && point_before(&p, &points[k - 1]))
			{
				points[k] = points[k - 1];
				k--;
			}
			points[k] = p;
		}
		return;
	}
	if (bits == 0)
	{
		/* all at one position */
		qsort(points, n, sizeof(ChashPoint), point_cmp);
		return;
	}
	/* recursion: one level a digit, at most 8 */
	CHECK_FOR_INTERRUPTS();

	digit_bits = Min(bits, 8);
	shift = bits - digit_bits;
	mask = ((uint32) 1 << digit_bits) - 1;

	/* count each bucket's points; next[d] is then where bucket d begins */
	memset(next, 0, sizeof(next));
	for (uint32 j = 0; j < n; j++)
		next[((points[j].position >> shift) & mask) + 1]++;
	for (uint32 d = 0; d <= mask; d++)
	{
		next[d + 1] += next[d];
		end[d] = next[d + 1];
	}

	/* take each misplaced point to its bucket, and the one found there on */
	for (uint32 d = 0; d <= mask; d++)
	{
		while (next[d] < end[d])
		{
			ChashPoint	p = points[next[d]];
			uint32		pd = (uint32) ((p.position >> shift) & mask);

			while (pd != d)
			{
				ChashPoint	displaced = points[next[pd]];

				points[next[pd]++] = p;
				p = displaced;
				pd = (uint32) ((p.position >> shift) & mask);
			}
			points[next[d]++] = p;
		}
	}

	for (uint32 d = 0; d <= mask; d++)
	{
		uint32		lo = d == 0 ? 0 : end[d - 1];

		chash_sort_points(points + lo, end[d] - lo, shift);
	}
}

/*
 * Order of nodes for the ties rules other than name: by ordinal, or by the
 * length of the name and then the name
 */
static int
node_order_cmp(const void *a, const void *b, void *arg)
{
	const ChashRingSpec *spec = (const ChashRingSpec *) arg;
	const ChashNodeSpec *na = &spec->nodes[*(const uint32 *) a];
	const ChashNodeSpec *nb = &spec->nodes[*(const uint32 *) b];

	if (spec->ties == CHASH_TIES_SHORTEST_NAME)
	{
		if (na->name_utf8_len != nb->name_utf8_len)
			return na->name_utf8_len < nb->name_utf8_len ? -1 : 1;
	}
	else if (na->ordinal != nb->ordinal)
	{
		bool		before = na->ordinal < nb->ordinal;

		if (spec->ties == CHASH_TIES_LAST)
			before = !before;
		return before ? -1 : 1;
	}
	/* then by name (index); also for equal ordinals, as plain DML may leave */
	if (*(const uint32 *) a == *(const uint32 *) b)
		return 0;
	return *(const uint32 *) a < *(const uint32 *) b ? -1 : 1;
}

/*
 * All points of the ring in ring order: by position (unsigned), ties by the
 * ring's ties rule and then vnode.  Allocated in the current memory context.
 */
ChashPoint *
chash_ring_build_points(const ChashRingSpec *spec, uint32 *npoints)
{
	int64	   *node_counts = palloc(sizeof(int64) * Max(spec->nnodes, 1));
	int64		total = chash_ring_count_points(spec, node_counts);
	ChashPoint *points;
	int64		at = 0;

	points = MemoryContextAllocHuge(CurrentMemoryContext,
									sizeof(ChashPoint) * Max(total, 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		CHECK_FOR_INTERRUPTS();
		if (node_counts[k] == 0)
			continue;
		spec->algorithm->node_build(spec, k, points + at);
		at += node_counts[k];
	}
	Assert(at == total);
	CHECK_FOR_INTERRUPTS();

	if (spec->ties == CHASH_TIES_NAME)
	{
		/* nodes are sorted by name: their indexes are the order */
		chash_sort_points(points, (uint32) total, spec->key_hash->bits);
	}
	else
	{
		/* sort by each node's rank in the rule's order, then map back */
		uint32	   *order = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
		uint32	   *rank = palloc(sizeof(uint32) * Max(spec->nnodes, 1));

		for (int k = 0; k < spec->nnodes; k++)
			order[k] = k;
		qsort_arg(order, spec->nnodes, sizeof(uint32), node_order_cmp,
				  (void *) spec);
		for (int r = 0; r < spec->nnodes; r++)
			rank[order[r]] = r;
		for (int64 j = 0; j < total; j++)
			points[j].node = rank[points[j].node];
		chash_sort_points(points, (uint32) total, spec->key_hash->bits);
		for (int64 j = 0; j < total; j++)
			points[j].node = order[points[j].node];
		pfree(order);
		pfree(rank);
	}
	pfree(node_counts);
	*npoints = (uint32) total;
	return points;
}

static const char *
copy_string(const char *s, const char *orig, const char *orig_copy)
{
	/* keep the sharing of server-encoding and UTF-8 strings */
	return s == orig ? orig_copy : pstrdup(s);
}

/* A deep copy of spec into the current memory context */
static void
spec_copy(ChashRingSpec *dst, const ChashRingSpec *src)
{
	*dst = *src;
	dst->vnode_name = pstrdup(src->vnode_name);
	dst->vnode_name_utf8 = copy_string(src->vnode_name_utf8,
									   src->vnode_name, dst->vnode_name);
	dst->variant = src->variant ? pstrdup(src->variant) : NULL;
	dst->ties_name = src->ties_name ? pstrdup(src->ties_name) : NULL;
	dst->lookup_name = src->lookup_name ? pstrdup(src->lookup_name) : NULL;
	dst->hash_tag = src->hash_tag ? pstrdup(src->hash_tag) : NULL;
	if (src->nkey_types > 0)
	{
		Oid		   *types = palloc(sizeof(Oid) * src->nkey_types);
		Oid		   *collations = palloc(sizeof(Oid) * src->nkey_types);

		memcpy(types, src->key_types, sizeof(Oid) * src->nkey_types);
		memcpy(collations, src->key_collations, sizeof(Oid) * src->nkey_types);
		dst->key_types = types;
		dst->key_collations = collations;
	}
	dst->nodes = palloc(sizeof(ChashNodeSpec) * Max(src->nnodes, 1));
	for (int k = 0; k < src->nnodes; k++)
	{
		ChashNodeSpec *d = &dst->nodes[k];
		const ChashNodeSpec *s = &src->nodes[k];

		*d = *s;
		d->name = pstrdup(s->name);
		d->name_utf8 = copy_string(s->name_utf8, s->name, d->name);
		d->zone = s->zone ? pstrdup(s->zone) : NULL;
		if (s->ntokens > 0)
		{
			int64	   *tokens = palloc(sizeof(int64) * s->ntokens);

			memcpy(tokens, s->tokens, sizeof(int64) * s->ntokens);
			d->tokens = tokens;
		}
		if (s->nslot_ranges > 0)
		{
			int32	   *ranges = palloc(sizeof(int32) * 2 * s->nslot_ranges);

			memcpy(ranges, s->slot_ranges, sizeof(int32) * 2 * s->nslot_ranges);
			d->slot_ranges = ranges;
		}
	}
}

/*
 * A new placement of that kind with a copy of spec, in a memory context of
 * its own under parent, named by the ring
 */
static ChashPlacement *
placement_new(const ChashRingSpec *spec, ChashPlacementKind kind,
			  MemoryContext parent)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	ChashPlacement *placement;

	/* (context names must be constant strings) */
	if (kind == CHASH_PLACEMENT_POINTS)
		cxt = AllocSetContextCreate(parent, "chash ring", ALLOCSET_SMALL_SIZES);
	else
		cxt = AllocSetContextCreate(parent, "chash placement",
									ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	placement = palloc0(sizeof(ChashPlacement));

	placement->mcxt = cxt;
	placement->kind = kind;
	spec_copy(&placement->spec, spec);
	MemoryContextSetIdentifier(cxt, placement->spec.name);
	MemoryContextSwitchTo(oldcxt);
	return placement;
}

/*
 * An array of a built ring.  Big ones ask for transparent huge pages
 * (where the kernel gives them on request): a lookup on a ring of millions
 * of points touches a random place of it, and with 4 kB pages that is a
 * TLB miss on top of the cache miss.  Measured on a 4,194,304-point ring
 * (bench figure 2): 488 ms for 1M lookups without, 372 ms with.
 */
#define RING_HUGE_PAGE_SIZE (2 * 1024 * 1024)

void
chash_advise_huge_pages(void *p, Size size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	start = TYPEALIGN(RING_HUGE_PAGE_SIZE, (uintptr_t) p);
	uintptr_t	end = TYPEALIGN_DOWN(RING_HUGE_PAGE_SIZE, (uintptr_t) p + size);

	/* only whole huge pages inside the memory; advice only */
	if (end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

static void *
alloc_ring_array(MemoryContext cxt, Size size)
{
	char	   *p = MemoryContextAllocHuge(cxt, size);

	chash_advise_huge_pages(p, size);
	return p;
}

/*
 * The bucket index of a built ring: 2 to 4 points a bucket on average,
 * but at most 2^16 buckets (256 kB, which stay in the CPU's cache).  Rings
 * of more than 256k points have bigger buckets, which chash_ring_find
 * enters by interpolation.  Measured on the 4,194,304-point ring (1M
 * lookups): 2^16 buckets 264 ms, 2^18 330 ms, 2^20 (four points a bucket,
 * a 4 MB index that misses the cache) 404 ms.
 */
static void
build_buckets(ChashPlacement *ring, MemoryContext ringcxt)
{
	int			bits = ring->spec.key_hash->bits;
	int			nbits = 1;
	uint32		j = 0;

	/* fewer bucket bits than positions: frac_shift stays below 64 */
	while (nbits + 1 < bits && nbits < 16 && (UINT64CONST(4) << nbits) < ring->npoints)
		nbits++;
	ring->nbuckets = (uint32) 1 << nbits;
	ring->bucket_shift = bits - nbits;
	ring->frac_shift = 64 - bits + nbits;
	ring->max_position = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	ring->bucket = alloc_ring_array(ringcxt,
									sizeof(uint32) * (ring->nbuckets + 1));
	for (uint32 b = 0; b < ring->nbuckets; b++)
	{
		/* the first point at or after the bucket's first position */
		uint64		start = (uint64) b << ring->bucket_shift;

		while (j < ring->npoints && ring->positions[j] < start)
			j++;
		ring->bucket[b] = j;
	}
	ring->bucket[ring->nbuckets] = ring->npoints;
}

/*
 * A ring of the given points, which are in ring order (as
 * chash_ring_build_points makes them) and are freed, in a memory context of
 * its own under parent.  The caller makes it long-lived by re-parenting
 * that context once it is complete, so an error half-way leaves nothing
 * behind.
 */
ChashPlacement *
chash_ring_from_points(const ChashRingSpec *spec, ChashPoint *points,
					   uint32 npoints, MemoryContext parent)
{
	MemoryContext ringcxt;
	MemoryContext oldcxt;
	ChashPlacement *ring = placement_new(spec, CHASH_PLACEMENT_POINTS, parent);

	ringcxt = ring->mcxt;

	ring->npoints = npoints;
	/* padded, so that a lookup may read a whole window past the end */
	ring->positions = alloc_ring_array(ringcxt,
									   sizeof(uint64) * (npoints + CHASH_BUCKET_WINDOW));
	for (int k = 0; k < CHASH_BUCKET_WINDOW; k++)
		ring->positions[npoints + k] = PG_UINT64_MAX;
	if (spec->nnodes <= PG_UINT16_MAX + 1)
		ring->owners16 = alloc_ring_array(ringcxt,
										  sizeof(uint16) * Max(npoints, 1));
	else
		ring->owners32 = alloc_ring_array(ringcxt,
										  sizeof(uint32) * Max(npoints, 1));
	ring->node_points = MemoryContextAllocZero(ringcxt,
											   sizeof(uint32) * Max(spec->nnodes, 1));
	for (uint32 j = 0; j < npoints; j++)
	{
		ring->positions[j] = points[j].position;
		if (ring->owners16)
			ring->owners16[j] = (uint16) points[j].node;
		else
			ring->owners32[j] = points[j].node;
		ring->node_points[points[j].node]++;
	}
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (ring->node_points[k] > 0)
			ring->nactive++;
	}
	pfree(points);
	build_buckets(ring, ringcxt);
	oldcxt = MemoryContextSwitchTo(ringcxt);
	assign_zones(ring);
	MemoryContextSwitchTo(oldcxt);

	return ring;
}

/*
 * The lookup rules other than the successor, as rings whose keys go to the
 * point at or after them (or strictly after), so that lookups, walks,
 * ownership and comparisons of rings are the same code for every rule.
 *
 * Predecessor: the keys from point j up to the next point belong to j.
 * That is the strictly-after rule with each point's owner moved to the
 * point after it (prepare sets strictly_after): the key's first point
 * strictly after it is j + 1, which now names j's node.  Of points at one
 * position the last in ring order owns the keys.
 *
 * Nearest: point j owns the keys nearer to it than to its neighbours,
 * those at equal distance going to the earlier point.  Its keys end at
 * p_j + floor(gap / 2), gap the distance to the next distinct position:
 * a point there, with j's node, makes the successor rule give exactly
 * that.  Points at one position are equally near: the first of them in
 * ring order stands for them, and the others own nothing.
 */
static void
apply_lookup_rule(const ChashRingSpec *spec, ChashPoint *points,
				  uint32 *npoints)
{
	uint32		n = *npoints;
	/* positions are in the keys' space: a tokens ring's hash is unused */
	int			bits = spec->key_hash->bits;
	uint64		space_mask = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;

	if (n == 0 || spec->lookup == CHASH_LOOKUP_SUCCESSOR)
		return;
	if (spec->lookup == CHASH_LOOKUP_PREDECESSOR)
	{
		ChashPoint	last = points[n - 1];

		for (uint32 j = n - 1; j > 0; j--)
		{
			points[j].node = points[j - 1].node;
			points[j].vnode = points[j - 1].vnode;
		}
		points[0].node = last.node;
		points[0].vnode = last.vnode;
		return;
	}

	/* nearest: one point a distinct position, the first there */
	{
		uint32		m = 0;
		uint32		wrapped = 0;
		uint64		first;

		for (uint32 j = 0; j < n; j++)
		{
			if (m > 0 && points[j].position == points[m - 1].position)
				continue;
			points[m++] = points[j];
		}
		first = points[0].position;

		for (uint32 j = 0; j < m; j++)
		{
			/* the last point's neighbour is the first as it was */
			uint64		next = j + 1 < m ? points[j + 1].position : first;
			uint64		gap = (next - points[j].position) & space_mask;
			uint64		end;

			if (m == 1)
				gap = space_mask;	/* all the space, but the point itself */
			end = (points[j].position + gap / 2) & space_mask;
			if (end < points[j].position)
				wrapped++;
			points[j].position = end;
		}
		/* ends past the top of the space wrap: to the front, in order */
		if (wrapped > 0)
		{
			ChashPoint *copy = palloc(sizeof(ChashPoint) * m);

			memcpy(copy, points + (m - wrapped), sizeof(ChashPoint) * wrapped);
			memcpy(copy + wrapped, points, sizeof(ChashPoint) * (m - wrapped));
			memcpy(points, copy, sizeof(ChashPoint) * m);
			pfree(copy);
		}
		*npoints = m;
	}
}

/* Build a ring: its points (16 bytes each while built), then the ring */
ChashPlacement *
chash_ring_build(const ChashRingSpec *spec, MemoryContext parent)
{
	uint32		npoints;
	ChashPoint *points = chash_ring_build_points(spec, &npoints);

	apply_lookup_rule(spec, points, &npoints);
	return chash_ring_from_points(spec, points, npoints, parent);
}

/* Active nodes by zone; nodes without one after, by index */
static int
zone_cmp(const void *a, const void *b, void *arg)
{
	const ChashRingSpec *spec = (const ChashRingSpec *) arg;
	uint32		ia = *(const uint32 *) a;
	uint32		ib = *(const uint32 *) b;
	const char *za = spec->nodes[ia].zone;
	const char *zb = spec->nodes[ib].zone;

	if (za != NULL && zb != NULL)
	{
		int			cmp = strcmp(za, zb);

		if (cmp != 0)
			return cmp;
	}
	else if (za != NULL || zb != NULL)
		return za != NULL ? -1 : 1;
	return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

/*
 * Number the zones of the active nodes from 0: nodes of one zone share a
 * number, and a node without a zone has one of its own (so distinct_zones
 * changes nothing on a ring without zones).  Inactive nodes are never in a
 * preference order; they get numbers after those.
 */
static void
assign_zones(ChashPlacement *placement)
{
	const ChashRingSpec *spec = &placement->spec;
	uint32	   *order = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	int			nactive = 0;
	int			zone = -1;

	placement->zone_of = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].active)
			order[nactive++] = k;
	}
	qsort_arg(order, nactive, sizeof(uint32), zone_cmp, (void *) spec);
	for (int i = 0; i < nactive; i++)
	{
		const char *z = spec->nodes[order[i]].zone;

		if (i == 0 || z == NULL || spec->nodes[order[i - 1]].zone == NULL ||
			strcmp(z, spec->nodes[order[i - 1]].zone) != 0)
			zone++;
		placement->zone_of[order[i]] = zone;
	}
	placement->nzones = zone + 1;
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (!spec->nodes[k].active)
			placement->zone_of[k] = ++zone;
	}
	pfree(order);
}

/* Members in ordinal order; equal ordinals (plain DML) by name */
static int
member_cmp(const void *a, const void *b, void *arg)
{
	const ChashRingSpec *spec = (const ChashRingSpec *) arg;
	uint32		ia = *(const uint32 *) a;
	uint32		ib = *(const uint32 *) b;

	if (spec->nodes[ia].ordinal != spec->nodes[ib].ordinal)
		return spec->nodes[ia].ordinal < spec->nodes[ib].ordinal ? -1 : 1;
	return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

/*
 * A computed placement: its members, the active nodes in ordinal order,
 * and what its algorithm derives from them, in a memory context of its own
 * under parent (as chash_ring_from_points says)
 */
static ChashPlacement *
computed_build(const ChashRingSpec *spec, MemoryContext parent)
{
	MemoryContext oldcxt;
	ChashPlacement *placement = placement_new(spec, CHASH_PLACEMENT_COMPUTED,
											  parent);
	uint32		nmembers = 0;

	oldcxt = MemoryContextSwitchTo(placement->mcxt);
	placement->node_points = palloc0(sizeof(uint32) * Max(spec->nnodes, 1));
	placement->members = palloc(sizeof(uint32) * Max(spec->nnodes, 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		if (spec->nodes[k].active)
			placement->members[nmembers++] = k;
	}
	qsort_arg(placement->members, nmembers, sizeof(uint32), member_cmp,
			  &placement->spec);
	placement->nactive = nmembers;
	assign_zones(placement);
	if (spec->algorithm->build)
		spec->algorithm->build(placement);
	MemoryContextSwitchTo(oldcxt);
	return placement;
}

/* Build the placement of a ring's configuration, of whatever kind */
ChashPlacement *
chash_placement_build(const ChashRingSpec *spec, MemoryContext parent)
{
	if (spec->algorithm->kind == CHASH_PLACEMENT_POINTS)
		return chash_ring_build(spec, parent);
	return computed_build(spec, parent);
}

/*
 * A ring of points as one block of memory that holds no pointers, so that
 * it can be copied into shared memory and read there by any backend at any
 * address: a header, then the arrays a lookup reads, each on a cache line
 * of its own.  What the spec gives (nodes, zones) is not in it: the reader
 * has the spec, and the block is only ever read with the spec it was
 * built from (metadata/shared.c finds it by the spec's fingerprint).
 */
#define FLAT_RING_MAGIC 0x63687231	/* "chr1" */

typedef struct ChashFlatRing
{
	uint32		magic;
	uint32		npoints;
	int32		nnodes;
	int32		nactive;
	uint32		nbuckets;
	int32		bucket_shift;
	int32		frac_shift;
	bool		wide;			/* 4-byte owners */
	uint64		max_position;
	Size		positions;		/* offsets from the header */
	Size		owners;
	Size		node_points;
	Size		bucket;
	Size		size;
} ChashFlatRing;

static inline Size
flat_align(Size offset)
{
	return TYPEALIGN(PG_CACHE_LINE_SIZE, offset);
}

/* The layout of ring's block, into header (its size in header->size) */
static void
flat_layout(const ChashPlacement *ring, ChashFlatRing *header)
{
	Size		offset = flat_align(sizeof(ChashFlatRing));
	int			nnodes = Max(ring->spec.nnodes, 1);

	memset(header, 0, sizeof(ChashFlatRing));
	header->magic = FLAT_RING_MAGIC;
	header->npoints = ring->npoints;
	header->nnodes = ring->spec.nnodes;
	header->nactive = ring->nactive;
	header->nbuckets = ring->nbuckets;
	header->bucket_shift = ring->bucket_shift;
	header->frac_shift = ring->frac_shift;
	header->wide = ring->owners32 != NULL;
	header->max_position = ring->max_position;
	header->positions = offset;
	offset = flat_align(offset + sizeof(uint64) *
						((Size) ring->npoints + CHASH_BUCKET_WINDOW));
	header->owners = offset;
	offset = flat_align(offset + (header->wide ? sizeof(uint32) : sizeof(uint16)) *
						Max((Size) ring->npoints, 1));
	header->node_points = offset;
	offset = flat_align(offset + sizeof(uint32) * nnodes);
	header->bucket = offset;
	offset = flat_align(offset + sizeof(uint32) * ((Size) ring->nbuckets + 1));
	header->size = offset;
}

/* The size of a ring of points as one block */
Size
chash_ring_flat_size(const ChashPlacement *ring)
{
	ChashFlatRing header;

	Assert(ring->kind == CHASH_PLACEMENT_POINTS);
	flat_layout(ring, &header);
	return header.size;
}

/* Copy a ring of points into dst, chash_ring_flat_size(ring) bytes */
void
chash_ring_flatten(const ChashPlacement *ring, void *dst)
{
	ChashFlatRing header;
	char	   *base = dst;

	Assert(ring->kind == CHASH_PLACEMENT_POINTS);
	flat_layout(ring, &header);
	memcpy(base, &header, sizeof(header));
	memcpy(base + header.positions, ring->positions,
		   sizeof(uint64) * ((Size) ring->npoints + CHASH_BUCKET_WINDOW));
	if (header.wide)
		memcpy(base + header.owners, ring->owners32,
			   sizeof(uint32) * Max((Size) ring->npoints, 1));
	else
		memcpy(base + header.owners, ring->owners16,
			   sizeof(uint16) * Max((Size) ring->npoints, 1));
	memcpy(base + header.node_points, ring->node_points,
		   sizeof(uint32) * Max(ring->spec.nnodes, 1));
	memcpy(base + header.bucket, ring->bucket,
		   sizeof(uint32) * ((Size) ring->nbuckets + 1));
}

/*
 * The ring of spec whose points are in the block flat (of size bytes), made
 * by chash_ring_flatten from a ring of that spec: a placement in a memory
 * context of its own under parent that reads the block where it is, which
 * must outlive it.  NULL if the block is not such a ring's.
 */
ChashPlacement *
chash_ring_from_flat(const ChashRingSpec *spec, const void *flat, Size size,
					 MemoryContext parent)
{
	const ChashFlatRing *header = flat;
	const char *base = flat;
	ChashPlacement *ring;
	MemoryContext oldcxt;

	if (size < sizeof(ChashFlatRing) || header->magic != FLAT_RING_MAGIC ||
		header->size != size || header->nnodes != spec->nnodes ||
		spec->algorithm->kind != CHASH_PLACEMENT_POINTS)
		return NULL;
	ring = placement_new(spec, CHASH_PLACEMENT_POINTS, parent);
	ring->npoints = header->npoints;
	ring->nactive = header->nactive;
	ring->nbuckets = header->nbuckets;
	ring->bucket_shift = header->bucket_shift;
	ring->frac_shift = header->frac_shift;
	ring->max_position = header->max_position;
	/* (read only: the placement is immutable once built) */
	ring->positions = (uint64 *) (base + header->positions);
	if (header->wide)
		ring->owners32 = (uint32 *) (base + header->owners);
	else
		ring->owners16 = (uint16 *) (base + header->owners);
	ring->node_points = (uint32 *) (base + header->node_points);
	ring->bucket = (uint32 *) (base + header->bucket);
	oldcxt = MemoryContextSwitchTo(ring->mcxt);
	assign_zones(ring);
	MemoryContextSwitchTo(oldcxt);
	return ring;
}
