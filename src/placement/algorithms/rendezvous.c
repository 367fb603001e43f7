/*-------------------------------------------------------------------------
 *
 * rendezvous.c
 *	  The "rendezvous" algorithm: highest random weight, weighted.
 *
 * Every active node scores every key, and the highest score owns it
 * (Thaler and Ravishankar).  A node's draw for a key is
 * u = (top 53 bits of splitmix64's finalizer of (position XOR h) + 1/2)
 * / 2^53, in (0, 1), h being the ring's hash of the node's name; its score
 * is -weight / ln(u), the logarithmic method (Schindelhauer and Schomaker),
 * which makes shares follow weights exactly.  A key's scores change only
 * with the node's own weight, so a weight change or a new node moves keys
 * to or from that node only.  The cost is one draw a node a lookup (on
 * rings of equal weights, no logarithm: the largest draw wins).
 *
 * The preference order is by score, highest first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

/* What a rendezvous placement keeps, in member order */
typedef struct RendezvousData
{
	uint64	   *seeds;			/* the hash of each member's name */
	double	   *weights;		/* scaled: see rendezvous_build */
	bool		equal_weights;
} RendezvousData;

static void
rendezvous_build(ChashPlacement *placement)
{
	const ChashRingSpec *spec = &placement->spec;
	RendezvousData *data = palloc(sizeof(RendezvousData));
	int			n = placement->nactive;
	double		largest = 0;
	int			scale = 0;

	/*
	 * Weights are kept divided by the power of two that brings the largest
	 * into [0.5, 1): exact, so scores keep their order, and neither a score
	 * of weights near DBL_MAX nor the ownership integral's total weight
	 * overflows, nor do subnormal weights lose their ratios
	 */
	for (int m = 0; m < n; m++)
		largest = Max(largest, spec->nodes[placement->members[m]].weight);
	if (largest > 0)
		(void) frexp(largest, &scale);
	data->seeds = palloc(sizeof(uint64) * Max(n, 1));
	data->weights = palloc(sizeof(double) * Max(n, 1));
	data->equal_weights = true;
	for (int m = 0; m < n; m++)
	{
		const ChashNodeSpec *node = &spec->nodes[placement->members[m]];

		if ((m & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		data->seeds[m] = spec->hash->fn((const unsigned char *) node->name_utf8,
										node->name_utf8_len);
		data->weights[m] = ldexp(node->weight, -scale);
		if (node->weight != spec->nodes[placement->members[0]].weight)
			data->equal_weights = false;
	}
	placement->data = data;
}

/* A member's draw for a position: 64 well-mixed bits */
static inline uint64
rendezvous_draw(uint64 position, uint64 seed)
{
	uint64		z = position ^ seed;

	z = (z ^ (z >> 30)) * UINT64CONST(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline double
rendezvous_score(uint64 draw, double weight)
{
	double		u = ((double) (draw >> 11) + 0.5) * (1.0 / 9007199254740992.0);

	return -weight / log(u);
}

/* Whether member a outscores member b (ties: the node first by name) */
static inline bool
rendezvous_before(const ChashPlacement *placement, double score_a, uint32 a,
				  double score_b, uint32 b)
{
	if (score_a != score_b)
		return score_a > score_b;
	return placement->members[a] < placement->members[b];
}

static uint32
rendezvous_owner(const ChashPlacement *placement, uint64 position)
{
	const RendezvousData *data = placement->data;
	uint32		best = 0;

	if (data->equal_weights)
	{
		/* -w / ln(u) grows with u: compare the draws themselves */
		uint64		best_draw = rendezvous_draw(position, data->seeds[0]);

		for (uint32 m = 1; m < (uint32) placement->nactive; m++)
		{
			uint64		d = rendezvous_draw(position, data->seeds[m]);

			/* the draw's top 53 bits make u; equal u: the first by name */
			if ((d >> 11) > (best_draw >> 11) ||
				((d >> 11) == (best_draw >> 11) &&
				 placement->members[m] < placement->members[best]))
			{
				best = m;
				best_draw = d;
			}
		}
	}
	else
	{
		double		best_score = rendezvous_score(rendezvous_draw(position, data->seeds[0]),
												  data->weights[0]);

		for (uint32 m = 1; m < (uint32) placement->nactive; m++)
		{
			double		s = rendezvous_score(rendezvous_draw(position, data->seeds[m]),
											 data->weights[m]);

			if (rendezvous_before(placement, s, m, best_score, best))
			{
				best = m;
				best_score = s;
			}
		}
	}
	return placement->members[best];
}

/* A member and its score, as a preference list keeps them */
typedef struct RendezvousRanked
{
	double		score;
	uint32		member;
} RendezvousRanked;

/* Whether a ranks after b: the heap below keeps its worst at the root */
static inline bool
ranks_after(const ChashPlacement *placement, const RendezvousRanked *a,
			const RendezvousRanked *b)
{
	return rendezvous_before(placement, b->score, b->member, a->score,
							 a->member);
}

static void
heap_sift_down(const ChashPlacement *placement, RendezvousRanked *heap,
			   int size, int at)
{
	for (;;)
	{
		int			worst = at;
		int			left = 2 * at + 1;

		if (left < size && ranks_after(placement, &heap[left], &heap[worst]))
			worst = left;
		if (left + 1 < size &&
			ranks_after(placement, &heap[left + 1], &heap[worst]))
			worst = left + 1;
		if (worst == at)
			return;
		{
			RendezvousRanked swap = heap[at];

			heap[at] = heap[worst];
			heap[worst] = swap;
		}
		at = worst;
	}
}

/*
 * The n best members by score, in order: a heap of the n best so far whose
 * root is the worst of them, so that a member costs one comparison, or
 * log n steps when it enters; n log n to order them at the end.  (Not
 * lib/binaryheap.h: that is in libpgcommon only from PostgreSQL 17, and
 * the unit tests run this code outside the server.)
 */
static void
rendezvous_preference(const ChashPlacement *placement, uint64 position,
					  uint32 *out, int n)
{
	const RendezvousData *data = placement->data;
	int			nmembers = placement->nactive;
	RendezvousRanked *heap = palloc(sizeof(RendezvousRanked) * n);
	int			size = 0;

	for (int m = 0; m < nmembers; m++)
	{
		RendezvousRanked r;

		if ((m & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		/* equal weights: by the draws, as the owner is found, not scores */
		r.score = data->equal_weights ?
			(double) (rendezvous_draw(position, data->seeds[m]) >> 11) :
			rendezvous_score(rendezvous_draw(position, data->seeds[m]),
							 data->weights[m]);
		r.member = m;
		if (size < n)
		{
			int			at = size++;

			heap[at] = r;
			while (at > 0 &&
				   ranks_after(placement, &heap[at], &heap[(at - 1) / 2]))
			{
				RendezvousRanked swap = heap[at];

				heap[at] = heap[(at - 1) / 2];
				heap[(at - 1) / 2] = swap;
				at = (at - 1) / 2;
			}
		}
		else if (ranks_after(placement, &heap[0], &r))
		{
			heap[0] = r;
			heap_sift_down(placement, heap, size, 0);
		}
	}
	/* the root is the worst left: the list fills from its end */
	while (size > 0)
	{
		out[size - 1] = placement->members[heap[0].member];
		heap[0] = heap[--size];
		heap_sift_down(placement, heap, size, 0);
	}
	pfree(heap);
}

/*
 * A node's share of the keys among the first 'replicas' of their
 * preference order.  A member's -ln(u) / weight is exponential of rate
 * weight (its "time"; the earliest scores highest), so with one replica the
 * share is weight / total weight, and with equal weights and no zones
 * replicas / n.  Otherwise it is an integral over member i's time t, of
 * groups: the zones with distinct_zones, else each member alone.  The first
 * of a group by time is picked if fewer than 'replicas' other groups have
 * their first before t; when the groups are fewer than the replicas, the
 * others of a group are picked too, the first replicas - groups of them by
 * time.  Counts of members before t are Poisson-binomial, and the integral
 * is summed by the exp-sinh rule (Takahasi and Mori's double exponential
 * quadrature on (0, infinity)), about 1e-12 relative with these steps.
 * Every member's integral takes the same steps, so a step serves them all:
 * its counts of "every group but g" come for all g at once by halving
 * (counts_but_each), in time groups x replicas x log(groups) a step; the
 * fill-up's counts of the other groups' later ones halve alike
 * (later_but_each), room^2 x groups x log(groups).
 */
#define RENDEZVOUS_STEPS_PER_UNIT 32
#define RENDEZVOUS_HALF_WIDTH 4

/* Add one member, before t with probability p, to counts[0..max] */
static inline void
count_add(double *counts, int max, double p)
{
	for (int c = max; c > 0; c--)
		counts[c] = counts[c] * (1 - p) + counts[c - 1] * p;
	counts[0] *= 1 - p;
}

/* A leaf of counts_but_each: item k's counts of the others, 0..max */
typedef void (*CountsLeaf) (void *arg, int k, const double *counts);

/*
 * For each item k of lo..hi-1: the counts, 0..max, of the items but k
 * before t (item j with probability p[j]), combined with acc, the counts
 * of the items outside lo..hi; given to leaf.  Each half is given the
 * other half's items, so that "all but k" costs max x log(items) an item
 * rather than max x items.  stack has room for (max + 1) counts a level
 * of halving.
 */
static void
counts_but_each(const double *p, int lo, int hi, const double *acc, int max,
				double *stack, CountsLeaf leaf, void *arg)
{
	double	   *next = stack;
	int			mid = lo + (hi - lo) / 2;

	if (hi - lo == 1)
	{
		leaf(arg, lo, acc);
		return;
	}
	memcpy(next, acc, sizeof(double) * (max + 1));
	for (int j = mid; j < hi; j++)
		count_add(next, max, p[j]);
	counts_but_each(p, lo, mid, next, max, stack + max + 1, leaf, arg);
	memcpy(next, acc, sizeof(double) * (max + 1));
	for (int j = lo; j < mid; j++)
		count_add(next, max, p[j]);
	counts_but_each(p, mid, hi, next, max, stack + max + 1, leaf, arg);
}

/* What one step of the ownership integrals works with */
typedef struct ShareStep
{
	int			replicas;
	int			room;			/* replicas - groups, when positive */
	int			ngroups;
	const uint32 *members_of;	/* members, group by group */
	const uint32 *start;		/* group g's: members_of[start[g] .. start[g + 1]) */
	double	   *fewer;			/* per group: fewer than replicas others first */
	double	   *fill;			/* per member: picked to fill up */
	const double *cumulative;	/* of the group being filled: see fill_leaf */
} ShareStep;

static void
fewer_leaf(void *arg, int g, const double *counts)
{
	ShareStep  *step = arg;
	double		sum = 0;

	for (int c = 0; c < step->replicas; c++)
		sum += counts[c];
	step->fewer[g] = sum;
}

/*
 * Member k of a group, not its first: counts[0..room + 1] of the group's
 * others before t, of which all but the first are later ones, and one must
 * be, or k would be the first.  It is picked if the later ones of every
 * group number fewer than room: the other groups' are in cumulative[c],
 * the chance that they number c or fewer.
 */
static void
fill_leaf(void *arg, int k, const double *counts)
{
	ShareStep  *step = arg;
	double		sum = 0;

	for (int l = 0; l < step->room; l++)
		sum += counts[l + 1] * step->cumulative[step->room - 1 - l];
	step->fill[step->members_of[k]] = sum;
}

/*
 * Of each group, the counts of its later ones before t, 0..room - 1, into
 * later[g x room]: those of its members before t but the first
 */
static void
later_counts(const ShareStep *step, const double *p, double *within,
			 double *later)
{
	for (int g = 0; g < step->ngroups; g++)
	{
		double	   *out = later + (size_t) g * step->room;

		memset(within, 0, sizeof(double) * (step->room + 2));
		within[0] = 1;
		for (uint32 k = step->start[g]; k < step->start[g + 1]; k++)
			count_add(within, step->room + 1, p[k]);
		for (int l = 0; l < step->room; l++)
			out[l] = within[l + 1];
		out[0] += within[0];
	}
}

/* What the fill-up of every group works with, at one step */
typedef struct FillGroups
{
	ShareStep  *step;
	const double *p;			/* per member: before t */
	const double *later;		/* per group: counts of its later ones */
	double	   *cumulative;
	const double *unit;
	double	   *stack;			/* for counts_but_each over a group */
	const double *w;
	double	   *sum;
	double		t;
	double		dt;
} FillGroups;

/* Group g's members picked to fill up, given the other groups' counts */
static void
fill_group(FillGroups *fg, int g, const double *others)
{
	ShareStep  *step = fg->step;

	if (step->start[g + 1] - step->start[g] < 2)
		return;					/* alone in its group, a member is its first */
	fg->cumulative[0] = others[0];
	for (int c = 1; c < step->room; c++)
		fg->cumulative[c] = fg->cumulative[c - 1] + others[c];
	step->cumulative = fg->cumulative;
	counts_but_each(fg->p, step->start[g], step->start[g + 1], fg->unit,
					step->room + 1, fg->stack, fill_leaf, step);
	for (uint32 j = step->start[g]; j < step->start[g + 1]; j++)
	{
		uint32		m = step->members_of[j];

		fg->sum[m] += fg->w[m] * exp(-fg->w[m] * fg->t) * step->fill[m] * fg->dt;
	}
}

/* acc times group g's counts of later ones, the first room terms */
static void
later_times(const ShareStep *step, const double *later, int g, double *acc,
			double *scratch)
{
	const double *lo = later + (size_t) g * step->room;

	memset(scratch, 0, sizeof(double) * step->room);
	for (int c = 0; c < step->room; c++)
		for (int l = 0; c + l < step->room; l++)
			scratch[c + l] += acc[c] * lo[l];
	memcpy(acc, scratch, sizeof(double) * step->room);
}

/*
 * For each group of lo..hi-1, the counts of the later ones of every other
 * group (acc: those outside lo..hi), by halving as counts_but_each does:
 * room^2 x groups x log(groups), not x groups^2.  stack has room for
 * 2 x room counts a level.
 */
static void
later_but_each(FillGroups *fg, int lo, int hi, const double *acc,
			   double *stack)
{
	const ShareStep *step = fg->step;
	double	   *next = stack;
	double	   *scratch = stack + step->room;
	int			mid = lo + (hi - lo) / 2;

	if (hi - lo == 1)
	{
		fill_group(fg, lo, acc);
		return;
	}
	CHECK_FOR_INTERRUPTS();
	memcpy(next, acc, sizeof(double) * step->room);
	for (int g = mid; g < hi; g++)
		later_times(step, fg->later, g, next, scratch);
	later_but_each(fg, lo, mid, next, stack + 2 * step->room);
	memcpy(next, acc, sizeof(double) * step->room);
	for (int g = lo; g < mid; g++)
		later_times(step, fg->later, g, next, scratch);
	later_but_each(fg, mid, hi, next, stack + 2 * step->room);
}

static void
rendezvous_ownership(const ChashPlacement *placement, int replicas,
					 bool distinct_zones, double *owned)
{
	const RendezvousData *data = placement->data;
	const double *w = data->weights;
	int			n = placement->nactive;
	double		total = 0;
	double		h = 1.0 / RENDEZVOUS_STEPS_PER_UNIT;
	int			steps = RENDEZVOUS_HALF_WIDTH * RENDEZVOUS_STEPS_PER_UNIT;
	ShareStep	step;
	uint32	   *group;
	uint32	   *start;
	uint32	   *members_of;
	double	   *group_weight;
	double	   *others;			/* weight of a member's group but it */
	double	   *sum;
	double	   *q;
	double	   *p;
	double	   *stack;
	double	   *unit;
	double	   *later = NULL;
	double	   *cumulative = NULL;
	double	   *within = NULL;
	double	   *group_stack = NULL;
	int			max;

	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = 0;
	for (int m = 0; m < n; m++)
		total += w[m];
	if (replicas >= n || replicas == 1 ||
		(data->equal_weights && (!distinct_zones || placement->nzones == n)))
	{
		for (int m = 0; m < n; m++)
			owned[placement->members[m]] = replicas >= n ? 1.0 :
				replicas == 1 ? w[m] / total :
				(double) replicas / n;
		return;
	}

	/* groups: the zones (numbered from 0 over the active nodes), or each */
	memset(&step, 0, sizeof(step));
	step.replicas = replicas;
	step.ngroups = distinct_zones ? placement->nzones : n;
	step.room = replicas - step.ngroups;
	group = palloc(sizeof(uint32) * n);
	start = palloc0(sizeof(uint32) * (step.ngroups + 1));
	members_of = palloc(sizeof(uint32) * n);
	group_weight = palloc0(sizeof(double) * step.ngroups);
	for (int m = 0; m < n; m++)
	{
		group[m] = distinct_zones ? placement->zone_of[placement->members[m]] : m;
		start[group[m] + 1]++;
		group_weight[group[m]] += w[m];
	}
	for (int g = 0; g < step.ngroups; g++)
		start[g + 1] += start[g];
	{
		uint32	   *at = palloc(sizeof(uint32) * step.ngroups);

		memcpy(at, start, sizeof(uint32) * step.ngroups);
		for (int m = 0; m < n; m++)
			members_of[at[group[m]]++] = m;
		pfree(at);
	}
	others = palloc(sizeof(double) * n);
	for (int m = 0; m < n; m++)
		others[m] = Max(group_weight[group[m]] - w[m], 0);
	step.members_of = members_of;
	step.start = start;

	/* halving needs a level of counts per halving of the groups or members */
	max = Max(replicas - 1, step.room + 1);
	stack = palloc(sizeof(double) * (max + 1) * 34);
	unit = palloc0(sizeof(double) * (max + 1));
	unit[0] = 1;
	sum = palloc0(sizeof(double) * n);
	q = palloc(sizeof(double) * step.ngroups);
	p = palloc(sizeof(double) * n);
	step.fewer = palloc(sizeof(double) * step.ngroups);
	if (step.room > 0)
	{
		step.fill = palloc(sizeof(double) * n);
		later = palloc(sizeof(double) * step.ngroups * step.room);
		cumulative = palloc(sizeof(double) * step.room);
		within = palloc(sizeof(double) * (step.room + 2));
		group_stack = palloc(sizeof(double) * 2 * step.room * 34);
	}

	for (int k = -steps; k <= steps; k++)
	{
		double		x = k * h;

		/* t = exp(pi/2 sinh x), in units of the mean weight's time */
		double		t = exp(M_PI_2 * sinh(x)) * n / total;
		double		dt = t * M_PI_2 * cosh(x) * h;

		CHECK_FOR_INTERRUPTS();

		/* picked as the first of its group */
		for (int g = 0; g < step.ngroups; g++)
			q[g] = -expm1(-group_weight[g] * t);
		counts_but_each(q, 0, step.ngroups, unit, replicas - 1, stack,
						fewer_leaf, &step);
		for (int m = 0; m < n; m++)
			sum[m] += w[m] * exp(-(w[m] + others[m]) * t) *
				step.fewer[group[m]] * dt;

		/* picked to fill up: fewer groups than replicas, not the first */
		if (step.room <= 0)
			continue;
		for (int j = 0; j < n; j++)
			p[j] = -expm1(-w[members_of[j]] * t);
		later_counts(&step, p, within, later);
		{
			FillGroups	fg = {&step, p, later, cumulative, unit, stack,
			w, sum, t, dt};

			later_but_each(&fg, 0, step.ngroups, unit, group_stack);
		}
	}
	for (int m = 0; m < n; m++)
		owned[placement->members[m]] = sum[m];
	if (step.room > 0)
	{
		pfree(group_stack);
		pfree(within);
		pfree(cumulative);
		pfree(later);
		pfree(step.fill);
	}
	pfree(step.fewer);
	pfree(p);
	pfree(q);
	pfree(sum);
	pfree(unit);
	pfree(stack);
	pfree(others);
	pfree(group_weight);
	pfree(members_of);
	pfree(start);
	pfree(group);
}

/*
 * Variant "pymemcache": pymemcache's RendezvousHash scores each node by
 * hash("<node>-<key>") over the key itself, the node with the highest
 * score owning it and the greater name winning equal scores; no weights.
 * No position of the key decides that, so the ring is keyed (see
 * placement/placement.h); its preference order is by score.  Ownership is the
 * equal-weight case above: every member's scores are uniform alike.
 */
static const char rendezvous_pymemcache[] = "pymemcache";

static int64 rendezvous_node_points(const ChashRingSpec *spec, int node);

static void
rendezvous_prepare(ChashRingSpec *spec)
{
	const char *variant = spec->variant;

	spec->variant = NULL;
	chash_computed_prepare(spec);
	spec->variant = variant;
	if (variant == NULL || strcmp(variant, "chash") == 0)
		return;
	if (strcmp(variant, rendezvous_pymemcache) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown rendezvous variant \"%s\"",
						chash_message_name(variant, (int) strlen(variant))),
				 errhint("Valid rendezvous variants are \"chash\" (weighted scores of the key's position, the default) and \"pymemcache\" (pymemcache's RendezvousHash).")));
	if (spec->hash->bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rendezvous rings of variant \"pymemcache\" score with a 32-bit hash, not \"%s\"",
						spec->hash->name),
				 errhint("Use the hash \"pymemcache_murmur3\", pymemcache's own.")));
	spec->variant_data = rendezvous_pymemcache;
	spec->keyed = true;
	/* on every read too: the ownership of unit weights is no one else's */
	for (int k = 0; k < spec->nnodes; k++)
		(void) rendezvous_node_points(spec, k);
}

/*
 * No points; the check of a node alone (node_points_alone), which is all
 * that a change of one node runs: pymemcache's nodes have weight 1
 */
static int64
rendezvous_node_points(const ChashRingSpec *spec, int node)
{
	const ChashNodeSpec *n = &spec->nodes[node];

	if (spec->variant != NULL && strcmp(spec->variant, rendezvous_pymemcache) == 0 &&
		n->weight != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nodes of rendezvous variant \"pymemcache\" have weight 1"),
				 errdetail("Node \"%s\" of ring \"%s\" has weight %g; pymemcache's RendezvousHash has no weights.",
						   chash_message_name(n->name, n->name_len),
						   spec->name, n->weight)));
	return 0;
}

/*
 * What the scoring of one key needs: "<node>-" and the key, in buf, and the
 * bytes hashed since the last check for interrupts (a long key is hashed
 * once a node)
 */
typedef struct KeyScoring
{
	const ChashPlacement *placement;
	const unsigned char *key;
	size_t		len;
	StringInfoData buf;
	size_t		work;
} KeyScoring;

static uint32
key_score(KeyScoring *ks, uint32 node)
{
	const ChashRingSpec *spec = &ks->placement->spec;
	const ChashNodeSpec *n = &spec->nodes[node];

	ks->work += n->name_utf8_len + 1 + ks->len + CHASH_WORK_PER_NAME;
	if (ks->work >= CHASH_WORK_PER_INTERRUPT_CHECK)
	{
		CHECK_FOR_INTERRUPTS();
		ks->work = 0;
	}
	resetStringInfo(&ks->buf);
	appendBinaryStringInfo(&ks->buf, n->name_utf8, n->name_utf8_len);
	appendStringInfoChar(&ks->buf, '-');
	appendBinaryStringInfo(&ks->buf, (const char *) ks->key, ks->len);
	return (uint32) spec->hash->fn((const unsigned char *) ks->buf.data,
								   ks->buf.len);
}

/*
 * Whether node a, of score sa, outscores node b: equal scores go to the
 * greater name, as Python's max() of the two; UTF-8 byte order is code
 * point order, and nodes are indexed in it
 */
static inline bool
key_before(uint32 sa, uint32 a, uint32 sb, uint32 b)
{
	return sa != sb ? sa > sb : a > b;
}

static uint32
rendezvous_key_owner(const ChashPlacement *placement,
					 const unsigned char *key, size_t len)
{
	KeyScoring	ks = {placement, key, len};
	uint32		best = placement->members[0];
	uint32		best_score;

	initStringInfo(&ks.buf);
	best_score = key_score(&ks, best);
	for (int m = 1; m < placement->nactive; m++)
	{
		uint32		node = placement->members[m];
		uint32		score = key_score(&ks, node);

		if (key_before(score, node, best_score, best))
		{
			best = node;
			best_score = score;
		}
	}
	pfree(ks.buf.data);
	return best;
}

static int
key_rank_cmp(const void *a, const void *b)
{
	const uint64 *ra = a;
	const uint64 *rb = b;

	/* score in the high bits, node in the low: descending */
	return *ra < *rb ? 1 : *ra > *rb ? -1 : 0;
}

static void
rendezvous_key_preference(const ChashPlacement *placement,
						  const unsigned char *key, size_t len, uint32 *out)
{
	KeyScoring	ks = {placement, key, len};
	int			n = placement->nactive;
	uint64	   *rank = palloc(sizeof(uint64) * n);

	initStringInfo(&ks.buf);
	for (int m = 0; m < n; m++)
	{
		uint32		node = placement->members[m];

		rank[m] = ((uint64) key_score(&ks, node) << 32) | node;
	}
	qsort(rank, n, sizeof(uint64), key_rank_cmp);
	for (int m = 0; m < n; m++)
		out[m] = (uint32) rank[m];
	pfree(rank);
	pfree(ks.buf.data);
}

const ChashAlgorithm chash_algorithm_rendezvous = {
	.name = "rendezvous",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = rendezvous_prepare,
	.node_points = rendezvous_node_points,
	.description = "highest random weight: each active node scores each key, -weight / ln(draw); the highest owns it (variant pymemcache: pymemcache's RendezvousHash of \"<node>-<key>\")",
	.node_points_alone = true,
	.names_hashed = true,
	.weighted = true,
	.build = rendezvous_build,
	.owner = rendezvous_owner,
	.preference = rendezvous_preference,
	.ownership = rendezvous_ownership,
	.key_owner = rendezvous_key_owner,
	.key_preference = rendezvous_key_preference,
};
