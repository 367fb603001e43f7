/*-------------------------------------------------------------------------
 *
 * algo_rendezvous.c
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

#include "placement.h"

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

static void
rendezvous_preference(const ChashPlacement *placement, uint64 position,
					  uint32 *out, int n)
{
	const RendezvousData *data = placement->data;
	int			nmembers = placement->nactive;
	double	   *scores = palloc(sizeof(double) * nmembers);
	uint32	   *top = palloc(sizeof(uint32) * n);
	int			ntop = 0;

	/* equal weights: by the draws, as the owner is found, not their scores */
	for (int m = 0; m < nmembers; m++)
		scores[m] = data->equal_weights ?
			(double) (rendezvous_draw(position, data->seeds[m]) >> 11) :
			rendezvous_score(rendezvous_draw(position, data->seeds[m]),
							 data->weights[m]);
	/* keep the n best in order, by insertion */
	for (int m = 0; m < nmembers; m++)
	{
		int			at = ntop;

		while (at > 0 && rendezvous_before(placement, scores[m], m,
										   scores[top[at - 1]], top[at - 1]))
			at--;
		if (at >= n)
			continue;
		if (ntop < n)
			ntop++;
		memmove(top + at + 1, top + at, sizeof(uint32) * (ntop - 1 - at));
		top[at] = m;
	}
	for (int i = 0; i < n; i++)
		out[i] = placement->members[top[i]];
	pfree(top);
	pfree(scores);
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
 * quadrature on (0, infinity)), about 1e-12 relative with these steps, in
 * time n^2 x replicas x steps.
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

/* The integrand of member i's share at time t (see above) */
static double
share_at(const ChashPlacement *placement, const uint32 *group, int ngroups,
		 int i, int replicas, double t, double *scratch)
{
	const RendezvousData *data = placement->data;
	int			n = placement->nactive;
	double		density = data->weights[i] * exp(-data->weights[i] * t);
	double	   *firsts = scratch;	/* other groups with a first before t */
	double		alone = 1;		/* no other of i's group before t */
	double		result;
	double		fewer = 0;

	/* picked as the first of its group */
	memset(firsts, 0, sizeof(double) * replicas);
	firsts[0] = 1;
	for (int g = 0; g < ngroups; g++)
	{
		double		none = 1;

		for (int j = 0; j < n; j++)
		{
			if ((int) group[j] == g && j != i)
				none *= exp(-data->weights[j] * t);
		}
		if (g == (int) group[i])
			alone = none;
		else
			count_add(firsts, replicas - 1, 1 - none);
	}
	for (int c = 0; c < replicas; c++)
		fewer += firsts[c];
	result = density * alone * fewer;

	/* picked to fill up: fewer groups than replicas, i not its group's first */
	if (ngroups < replicas)
	{
		int			room = replicas - ngroups;	/* the later ones picked */
		double	   *total = scratch + replicas; /* later ones before t, < room */
		double	   *within = total + room;	/* members of a group before t */
		double	   *later = within + room + 2;	/* the group's later ones */
		double	   *next = later + room;

		memset(total, 0, sizeof(double) * room);
		total[0] = 1;
		for (int g = 0; g < ngroups; g++)
		{
			/* members of g but i before t, 0 .. room + 1 (more: dropped) */
			memset(within, 0, sizeof(double) * (room + 2));
			within[0] = 1;
			for (int j = 0; j < n; j++)
			{
				if ((int) group[j] == g && j != i)
					count_add(within, room + 1, -expm1(-data->weights[j] * t));
			}
			/*
			 * Of those, all but the first are later ones.  In i's group one
			 * must have come before i, or i would be the first.
			 */
			for (int l = 0; l < room; l++)
				later[l] = within[l + 1];
			if (g != (int) group[i])
				later[0] += within[0];
			memset(next, 0, sizeof(double) * room);
			for (int c = 0; c < room; c++)
			{
				for (int l = 0; c + l < room; l++)
					next[c + l] += total[c] * later[l];
			}
			memcpy(total, next, sizeof(double) * room);
		}
		fewer = 0;
		for (int c = 0; c < room; c++)
			fewer += total[c];
		result += density * fewer;
	}
	return result;
}

static void
rendezvous_ownership(const ChashPlacement *placement, int replicas,
					 bool distinct_zones, double *owned)
{
	const RendezvousData *data = placement->data;
	int			n = placement->nactive;
	double		total = 0;
	double		h = 1.0 / RENDEZVOUS_STEPS_PER_UNIT;
	int			steps = RENDEZVOUS_HALF_WIDTH * RENDEZVOUS_STEPS_PER_UNIT;
	uint32	   *group = palloc(sizeof(uint32) * Max(n, 1));
	int			ngroups = 0;
	double	   *scratch;

	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = 0;
	for (int m = 0; m < n; m++)
		total += data->weights[m];
	if (replicas >= n || replicas == 1 ||
		(data->equal_weights && (!distinct_zones || placement->nzones == n)))
	{
		for (int m = 0; m < n; m++)
			owned[placement->members[m]] = replicas >= n ? 1.0 :
				replicas == 1 ? data->weights[m] / total :
				(double) replicas / n;
		pfree(group);
		return;
	}

	/* groups numbered from 0 over the members */
	for (int m = 0; m < n; m++)
	{
		group[m] = ngroups;
		if (distinct_zones)
		{
			for (int e = 0; e < m; e++)
			{
				if (placement->zone_of[placement->members[e]] ==
					placement->zone_of[placement->members[m]])
				{
					group[m] = group[e];
					break;
				}
			}
		}
		if (group[m] == (uint32) ngroups)
			ngroups++;
	}

	scratch = palloc(sizeof(double) * (5 * (replicas + 2)));
	for (int i = 0; i < n; i++)
	{
		double		sum = 0;

		CHECK_FOR_INTERRUPTS();
		for (int k = -steps; k <= steps; k++)
		{
			double		x = k * h;

			/* t = exp(pi/2 sinh x), in units of the mean weight's time */
			double		t = exp(M_PI_2 * sinh(x)) * n / total;
			double		dt = t * M_PI_2 * cosh(x) * h;

			sum += share_at(placement, group, ngroups, i, replicas, t,
							scratch) * dt;
		}
		owned[placement->members[i]] = sum;
	}
	pfree(scratch);
	pfree(group);
}

/*
 * Variant "pymemcache": pymemcache's RendezvousHash scores each node by
 * hash("<node>-<key>") over the key itself, the node with the highest
 * score owning it and the greater name winning equal scores; no weights.
 * No position of the key decides that, so the ring is keyed (see
 * placement.h); its preference order is by score.  Ownership is the
 * equal-weight case above: every member's scores are uniform alike.
 */
static const char rendezvous_pymemcache[] = "pymemcache";

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

/* What the scoring of one key needs: "<node>-" and the key, in buf */
typedef struct KeyScoring
{
	const ChashPlacement *placement;
	const unsigned char *key;
	size_t		len;
	StringInfoData buf;
} KeyScoring;

static uint32
key_score(KeyScoring *ks, uint32 node)
{
	const ChashRingSpec *spec = &ks->placement->spec;
	const ChashNodeSpec *n = &spec->nodes[node];

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
