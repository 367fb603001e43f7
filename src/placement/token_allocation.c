/*-------------------------------------------------------------------------
 *
 * token_allocation.c
 *	  Tokens for a new node of a "tokens" ring, chosen so that replicated
 *	  ownership stays even as nodes are added one by one.
 *
 * Pure code: a ring's configuration in, positions out.  The model is the
 * ring of the active nodes' tokens in unsigned order.  A key is held by the
 * first 'replicas' distinct nodes of the walk from its point on: the point
 * at or after it (successor, the default), the point at or before it
 * (predecessor), or the nearer of the two (nearest, which owns half of each
 * neighbouring gap: the mean of the two other rules).  So a walk starting
 * at point j weighs a * gap(j - 1) + b * gap(j), (a, b) being (1, 0),
 * (0, 1) or (1/2, 1/2), and each node owns the weight of the walks whose
 * first 'replicas' distinct nodes hold it: chash_ownership's figure.
 *
 * Tokens are placed one at a time, greedily.  Every gap between two
 * neighbouring points is a candidate: a new token X at distance d into gap
 * (A, B) changes ownership by F + d V, F and V sparse vectors over nodes:
 *
 *	- walks that start at A or before it and meet fewer than 'replicas'
 *	  distinct nodes (none of them the new node) before B now meet X: X
 *	  joins their set and the last of the old set drops out;
 *	- the walk starting at X is new, and the weights of the walks at A and
 *	  B change with d.
 *
 * The objective is the sum of the squared deviations of every node's
 * ownership from its target, replicas / (nodes + 1); the new node's target
 * grows with its tokens (k / tokens of it after its k-th), so that each
 * token takes its share, not one token all of it.  Beside it, with less
 * weight, the same for the owners alone (the first copies), and the sum of
 * the squared gaps (see GAP_WEIGHT).  The change is quadratic in d: each
 * gap's best d is found in closed form (kept an eighth of the gap from its
 * ends), and the gap and d that lower the objective most win.  Where
 * replicas > 1, once all tokens are placed, each is taken out and placed
 * again the same way (the others fixed), twice over, which undoes early
 * choices that later tokens made worse.
 *
 * What it reaches (doc/planning.md, "Tokens for a new node"): with 3
 * copies, peak-to-mean stays within 1.05 at 8 tokens a node and within
 * 1.02 at 64.  With one copy and 8 tokens it settles near 1.06, and no
 * allocator of new nodes' tokens can stay much below that once the ring
 * has a few dozen nodes: a token takes keys from one node only, so a new node
 * lowers at most k nodes' shares while every other share grows against
 * the falling mean (by 1 in its logarithm for each factor e the ring
 * grows by); the nodes reaching the peak must be cut as they reach it, so
 * they fill at least 1/k of log-share below it, and the peak settles at
 * about 1 / (k (1 - e^(-1/k))) times the mean: 1.064 at 8 tokens, 1.008 at
 * 64 (a steady state: single sizes can dip below it for a while).
 *
 * Cost: a pass over the gaps a token (three where replicas > 1), each gap
 * a few walks of about 'replicas' distinct nodes; a walk stops once it has
 * met every node with points, and interrupts are checked.  Memory: the
 * points.
 *
 * Cassandra's allocators (TokenAllocator, ReplicationAwareTokenAllocator)
 * also place a new node's tokens one at a time, each where it improves the
 * spread of replicated ownership most; this one is chash's own, over its
 * walks and lookup rules.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

/*
 * The rounds that place every token again once all are placed, where
 * replicas > 1.  With 64 tokens and 3 copies they took the worst
 * peak-to-mean from 10 to 60 nodes from 1.027 to 1.004; with one copy, a
 * token changes only what it takes from one node and they made it worse
 * (8 tokens: 1.104 against 1.067), so they are left out there.
 */
#define REFINE_ROUNDS 2

/*
 * How much the gaps' balance counts: splitting a large gap lowers no
 * node's copies at once where replicas > 1 (the keys of the gap before a
 * token keep its node among their first copies until 'replicas' other
 * nodes' tokens are inside it), so without it the greedy choice leaves some
 * gaps large for good and their nodes over-owned; with it, a token is
 * owned about evenly, as Cassandra's allocator balances its tokens too.
 * Scaled by replicas^2: a token's copies span about 'replicas' gaps.
 * Measured from 10 to 200 nodes of 8 tokens and 3 copies, the worst
 * peak-to-mean was 1.050 at 0.06, 1.047 at 0.12, 1.054 at 0.16.  With one
 * copy, where splitting a gap lowers its node's share at once, it matters
 * less and less of it is better: at 8 tokens the worst was 1.066 without,
 * 1.067 at 0.03, 1.074 at 0.12; but without it, 64 tokens a node went up
 * to 1.11 past 78 nodes (1.009 at 0.03), their gaps split unevenly.
 */
#define GAP_WEIGHT 0.12
#define GAP_WEIGHT_ONE_COPY 0.03

/*
 * A new token leaves at least this share of its gap on either side: tokens
 * right next to others would make their gaps too small for later tokens,
 * and nodes whose ranges nobody can split any more stay over-owned
 */
#define MIN_SPLIT 0.125L

/*
 * How much the owners' balance counts beside the copies': little, but
 * where every node holds every key (replicas as many as the nodes) it is
 * what spreads the tokens, and what the later nodes start from
 */
#define OWNERS_WEIGHT 0.1

typedef struct Allocation
{
	int			bits;
	long double space;			/* 2^bits */
	double		coef_before;	/* a walk's weight: of the gap before it */
	double		coef_after;		/* ... and of the gap after it */
	int			replicas;
	/* the ring: active tokens in unsigned order, with their nodes */
	uint32		npoints;
	uint64	   *pos;
	uint32	   *node;
	int			nnodes;			/* the ring's nodes and the new one */
	uint32		new_node;		/* its index: the last */
	uint32	   *node_points;	/* each node's points on the ring */
	int			ndistinct;		/* nodes with points */
	double	   *owned;			/* each node's share of the space */
	double	   *target;
	double		new_target;		/* the new node's final target */
	/* the same for the first copies alone (the owners), where replicas > 1 */
	double	   *owned1;
	double	   *target1;
	double		new_target1;
	/* every token of every node, active or not, in unsigned order */
	uint64	   *taken;
	int			ntaken;
	/* scratch */
	uint32	   *mark;			/* per node: == stamp when marked */
	uint32		stamp;
	int		   *slot;			/* per node: index into the deltas, or -1 */
	uint32	   *delta_node;
	double	   *delta_f;
	double	   *delta_v;
	int			ndelta;
	/* the owners' changes: at most three nodes' (a's, b's, X's) */
	uint32		delta1_node[3];
	double		delta1_f[3];
	double		delta1_v[3];
	int			ndelta1;
	uint32	   *list;			/* a walk's distinct nodes */
	uint32	   *window;			/* distinct nodes of the walk back from A */
} Allocation;

static int
uint64_cmp(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

typedef struct AllocPoint
{
	uint64		pos;
	uint32		node;
} AllocPoint;

static int
alloc_point_cmp(const void *a, const void *b)
{
	const AllocPoint *x = a;
	const AllocPoint *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node ? 1 : 0;
}

/* The gap from point i to the next (the whole space for one position) */
static long double
gap_after(const Allocation *al, uint32 i)
{
	uint32		next = i + 1 == al->npoints ? 0 : i + 1;

	if (next != 0)
		return (long double) (al->pos[next] - al->pos[i]);
	if (al->pos[0] == al->pos[i])
		return al->space;
	if (al->bits == 64)
		return (long double) (al->pos[0] - al->pos[i]);
	return al->space - (long double) al->pos[i] + (long double) al->pos[0];
}

static inline uint32
prev_point(const Allocation *al, uint32 i)
{
	return i == 0 ? al->npoints - 1 : i - 1;
}

static inline uint32
next_point(const Allocation *al, uint32 i)
{
	return i + 1 == al->npoints ? 0 : i + 1;
}

static inline void
new_stamp(Allocation *al)
{
	if (++al->stamp == 0)
	{
		memset(al->mark, 0, sizeof(uint32) * al->nnodes);
		al->stamp = 1;
	}
}

/*
 * The first 'replicas' distinct nodes of a walk into out, returning how
 * many (fewer where the ring has fewer): the walk from point s on, once
 * round the ring, led by the new node with x_first, and with the new node
 * met right after point a with insert_x (where a new token would be)
 */
static int
walk_set(Allocation *al, bool x_first, uint32 s, bool insert_x, uint32 a,
		 uint32 *out)
{
	int			found = 0;
	uint32		at = s;
	int			want = al->replicas;

	/* as many as there are: the new node and the nodes with points */
	want = Min(want, al->ndistinct +
			   ((x_first || insert_x) && al->node_points[al->new_node] == 0 ? 1 : 0));
	new_stamp(al);
	if (x_first)
	{
		al->mark[al->new_node] = al->stamp;
		out[found++] = al->new_node;
	}
	for (uint32 step = 0; step < al->npoints && found < want; step++)
	{
		uint32		n = al->node[at];

		/* a node of many points in a row can make a walk long */
		if ((step & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();

		if (al->mark[n] != al->stamp)
		{
			al->mark[n] = al->stamp;
			out[found++] = n;
		}
		if (insert_x && at == a && found < want &&
			al->mark[al->new_node] != al->stamp)
		{
			al->mark[al->new_node] = al->stamp;
			out[found++] = al->new_node;
		}
		at = next_point(al, at);
	}
	return found;
}

/* Each node's ownership, from scratch */
static void
compute_owned(Allocation *al)
{
	uint32	   *set = al->list;

	memset(al->owned, 0, sizeof(double) * al->nnodes);
	memset(al->owned1, 0, sizeof(double) * al->nnodes);
	for (uint32 j = 0; j < al->npoints; j++)
	{
		double		w;
		int			n;

		if ((j & 4095) == 4095)
			CHECK_FOR_INTERRUPTS();
		w = (double) ((al->coef_before * gap_after(al, prev_point(al, j)) +
					   al->coef_after * gap_after(al, j)) / al->space);
		n = walk_set(al, false, j, false, 0, set);
		for (int r = 0; r < n; r++)
			al->owned[set[r]] += w;
		al->owned1[al->node[j]] += w;
	}
}

/* Add f + d v to node n's change */
static inline void
delta_add(Allocation *al, uint32 n, double f, double v)
{
	int			s = al->slot[n];

	if (f == 0 && v == 0)
		return;
	if (s < 0)
	{
		s = al->ndelta++;
		al->slot[n] = s;
		al->delta_node[s] = n;
		al->delta_f[s] = 0;
		al->delta_v[s] = 0;
	}
	al->delta_f[s] += f;
	al->delta_v[s] += v;
}

static void
delta_clear(Allocation *al)
{
	for (int s = 0; s < al->ndelta; s++)
		al->slot[al->delta_node[s]] = -1;
	al->ndelta = 0;
	al->ndelta1 = 0;
}

/* Add f + d v to node n's change as an owner */
static void
delta1_add(Allocation *al, uint32 n, double f, double v)
{
	int			s;

	for (s = 0; s < al->ndelta1; s++)
	{
		if (al->delta1_node[s] == n)
			break;
	}
	if (s == al->ndelta1)
	{
		al->ndelta1++;
		al->delta1_node[s] = n;
		al->delta1_f[s] = 0;
		al->delta1_v[s] = 0;
	}
	al->delta1_f[s] += f;
	al->delta1_v[s] += v;
}

/* Add f + d v to each node of a set */
static void
delta_add_set(Allocation *al, const uint32 *set, int n, double f, double v)
{
	for (int i = 0; i < n; i++)
		delta_add(al, set[i], f, v);
}

/*
 * The walk from point s before and after a new token X enters the gap after
 * point a: its weight before (a share of the space) and after (f + d v, d
 * the token's distance into the gap, as a share), and its sets
 */
static void
walk_change(Allocation *al, uint32 s, uint32 a, double old_w, double new_f,
			double new_v)
{
	int			n;

	n = walk_set(al, false, s, false, a, al->list);
	delta_add_set(al, al->list, n, -old_w, 0);
	n = walk_set(al, false, s, true, a, al->list);
	delta_add_set(al, al->list, n, new_f, new_v);
}

/*
 * The change of ownership that a new token X in the gap after point a
 * brings, as F + d V (d its distance into the gap, as a share of the
 * space), into the deltas.  What changes: the weights of the walks at a
 * and at the next point b, the sets of the walks at a and before it that
 * meet fewer than 'replicas' distinct nodes (none of them the new node)
 * before X, and the walk at X, which is new.
 */
static void
gap_deltas(Allocation *al, uint32 a, long double gap)
{
	uint32		b = next_point(al, a);
	uint32		x = al->new_node;
	double		ca = al->coef_before;
	double		cb = al->coef_after;
	double		len = (double) (gap / al->space);
	uint32	   *win = al->window;
	int			nwin = 0;
	int			n;

	delta_clear(al);
	if (a == b)
	{
		/* one point: its gaps before and after are X's two */
		walk_change(al, a, a, len, ca * len, cb - ca);
		delta1_add(al, al->node[a], -len + ca * len, cb - ca);
	}
	else
	{
		double		before_a = (double) (gap_after(al, prev_point(al, a)) / al->space);
		double		after_b = (double) (gap_after(al, b) / al->space);

		walk_change(al, a, a, ca * before_a + cb * len, ca * before_a, cb);
		walk_change(al, b, a, ca * len + cb * after_b, ca * len + cb * after_b, -ca);
		delta1_add(al, al->node[a], -cb * len, cb);
		delta1_add(al, al->node[b], 0, -ca);
	}

	/* the walks before a that reach X with room in their sets */
	if (al->node[a] != x)
	{
		uint32		s = prev_point(al, a);

		win[nwin++] = al->node[a];
		for (uint32 step = 0; step + 2 < al->npoints && nwin < al->replicas; step++)
		{
			uint32		node = al->node[s];
			bool		seen = false;
			double		w;

			if (s == b || node == x)
				break;
			for (int i = 0; i < nwin && !seen; i++)
				seen = win[i] == node;
			if (!seen)
			{
				win[nwin++] = node;
				if (nwin >= al->replicas)
					break;
			}
			if ((step & 1023) == 1023)
				CHECK_FOR_INTERRUPTS();
			w = (double) ((ca * gap_after(al, prev_point(al, s)) +
						   cb * gap_after(al, s)) / al->space);
			walk_change(al, s, a, w, w, 0);
			s = prev_point(al, s);
		}
	}

	/* the walk at X: X, then b's; weight ca * d + cb * (len - d) */
	n = walk_set(al, true, b, false, a, al->list);
	delta_add_set(al, al->list, n, cb * len, ca - cb);
	delta1_add(al, x, cb * len, ca - cb);
}

/* The objective's change for deltas at d, and the best d in [lo, hi] */
static double
best_distance(const Allocation *al, double len, double lo, double hi,
			  double *best)
{
	double		qa = 0;
	double		qb = 0;
	double		qc = 0;
	double		d;

	for (int s = 0; s < al->ndelta; s++)
	{
		uint32		n = al->delta_node[s];
		double		e = al->owned[n] - al->target[n];
		double		f = al->delta_f[s];
		double		v = al->delta_v[s];

		qa += v * v;
		qb += 2 * v * (e + f);
		qc += f * (2 * e + f);
	}
	if (al->replicas > 1)
	{
		for (int s = 0; s < al->ndelta1; s++)
		{
			uint32		n = al->delta1_node[s];
			double		e = al->owned1[n] - al->target1[n];
			double		f = al->delta1_f[s];
			double		v = al->delta1_v[s];

			qa += OWNERS_WEIGHT * v * v;
			qb += OWNERS_WEIGHT * 2 * v * (e + f);
			qc += OWNERS_WEIGHT * f * (2 * e + f);
		}
	}
	/* the gaps' balance: d^2 + (len - d)^2 replaces len^2 */
	{
		double		g = al->replicas > 1 ?
			GAP_WEIGHT * al->replicas * al->replicas : GAP_WEIGHT_ONE_COPY;

		qa += 2 * g;
		qb -= 2 * g * len;
	}
	if (qa > 0)
		d = -qb / (2 * qa);
	else
		d = qb > 0 ? lo : hi;
	d = Min(Max(d, lo), hi);
	*best = d;
	return (qa * d + qb) * d + qc;
}

/* Whether position p is a token of any node */
static bool
position_taken(const Allocation *al, uint64 p)
{
	return al->ntaken > 0 &&
		bsearch(&p, al->taken, al->ntaken, sizeof(uint64), uint64_cmp) != NULL;
}

/* A free position in the gap after point a near its start plus dist, or 0 */
static bool
free_position(const Allocation *al, uint32 a, long double gap, long double dist,
			  uint64 *out)
{
	long double lo = 1;
	long double hi = gap - 1;
	uint64		off;

	dist = roundl(dist);
	dist = Min(Max(dist, lo), hi);
	off = (uint64) dist;
	for (int tries = 0; tries < 64; tries++)
	{
		/* try off, off + 1, off - 1, off + 2, ... within the gap */
		int64		step = (tries + 1) / 2 * ((tries & 1) ? 1 : -1);
		long double at = (long double) off + (long double) step;
		uint64		p;

		if (at < lo || at > hi)
			continue;
		p = al->pos[a] + (uint64) at;
		if (al->bits < 64)
			p &= (UINT64CONST(1) << al->bits) - 1;
		if (!position_taken(al, p))
		{
			*out = p;
			return true;
		}
	}
	return false;
}

/* Insert point (p, new node), keeping order */
static void
insert_point(Allocation *al, uint64 p)
{
	uint32		at = 0;
	uint32		lo = 0;
	uint32		hi = al->npoints;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (al->pos[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = lo;
	memmove(&al->pos[at + 1], &al->pos[at], sizeof(uint64) * (al->npoints - at));
	memmove(&al->node[at + 1], &al->node[at], sizeof(uint32) * (al->npoints - at));
	al->pos[at] = p;
	al->node[at] = al->new_node;
	al->npoints++;
	if (al->node_points[al->new_node]++ == 0)
		al->ndistinct++;
}

static void
remove_point(Allocation *al, uint64 p)
{
	for (uint32 i = 0; i < al->npoints; i++)
	{
		if (al->pos[i] == p && al->node[i] == al->new_node)
		{
			memmove(&al->pos[i], &al->pos[i + 1], sizeof(uint64) * (al->npoints - i - 1));
			memmove(&al->node[i], &al->node[i + 1], sizeof(uint32) * (al->npoints - i - 1));
			al->npoints--;
			if (--al->node_points[al->new_node] == 0)
				al->ndistinct--;
			return;
		}
	}
	elog(ERROR, "token allocation lost a token");
}

/*
 * Place one token of the new node, its target new_target: the gap and
 * position that lower the objective most.  Returns the position.
 */
static uint64
place_token(Allocation *al, double new_target)
{
	double		best_change = 0;
	bool		found = false;
	uint64		best_pos = 0;

	al->target[al->new_node] = new_target;
	al->target1[al->new_node] = new_target * al->new_target1 / al->new_target;
	for (uint32 a = 0; a < al->npoints; a++)
	{
		long double gap = gap_after(al, a);
		double		d;
		double		change;
		uint64		p;

		if ((a & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		if (gap < 2)
			continue;			/* no free position inside */
		gap_deltas(al, a, gap);
		change = best_distance(al, (double) (gap / al->space),
							   (double) (Max(gap * MIN_SPLIT, 1) / al->space),
							   (double) (Min(gap * (1 - MIN_SPLIT), gap - 1) / al->space),
							   &d);
		if (found && change >= best_change)
			continue;
		if (!free_position(al, a, gap, (long double) d * al->space, &p))
			continue;
		found = true;
		best_change = change;
		best_pos = p;
	}
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("no free position left for a token")));
	insert_point(al, best_pos);
	compute_owned(al);
	return best_pos;
}

/*
 * ntokens positions (as SQL shows them, ascending) for a new node of a
 * "tokens" ring, balancing its nodes' ownership at 'replicas' copies of
 * each key.  The caller checks that replicas is between 1 and the active
 * nodes plus one and that ntokens is positive.
 */
int64 *
chash_allocate_tokens(const ChashRingSpec *spec, int ntokens, int replicas)
{
	Allocation	al;
	int64	   *result = palloc(sizeof(int64) * ntokens);
	uint64	   *placed = palloc(sizeof(uint64) * ntokens);
	AllocPoint *points;
	int64		total = 0;
	int64		active_points = 0;
	int			nactive = 0;
	uint32		n = 0;

	memset(&al, 0, sizeof(al));
	al.bits = spec->key_hash->bits;
	al.space = ldexpl(1.0L, al.bits);
	switch (spec->lookup)
	{
		case CHASH_LOOKUP_SUCCESSOR:
			al.coef_before = 1;
			al.coef_after = 0;
			break;
		case CHASH_LOOKUP_PREDECESSOR:
			al.coef_before = 0;
			al.coef_after = 1;
			break;
		case CHASH_LOOKUP_NEAREST:
			al.coef_before = 0.5;
			al.coef_after = 0.5;
			break;
	}
	al.replicas = replicas;
	al.nnodes = spec->nnodes + 1;
	al.new_node = spec->nnodes;

	for (int k = 0; k < spec->nnodes; k++)
	{
		total += spec->nodes[k].ntokens;
		if (spec->nodes[k].active)
		{
			active_points += spec->nodes[k].ntokens;
			nactive++;
		}
	}
	points = palloc(sizeof(AllocPoint) * Max(active_points, 1));
	al.taken = palloc(sizeof(uint64) * Max(total, 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *node = &spec->nodes[k];

		for (int i = 0; i < node->ntokens; i++)
		{
			uint64		p = chash_position_from_int64(spec->key_hash,
													  node->tokens[i]);

			al.taken[al.ntaken++] = p;
			if (node->active)
			{
				points[n].pos = p;
				points[n].node = k;
				n++;
			}
		}
	}
	qsort(al.taken, al.ntaken, sizeof(uint64), uint64_cmp);
	qsort(points, n, sizeof(AllocPoint), alloc_point_cmp);
	al.pos = palloc(sizeof(uint64) * (n + ntokens));
	al.node = palloc(sizeof(uint32) * (n + ntokens));
	for (uint32 i = 0; i < n; i++)
	{
		al.pos[i] = points[i].pos;
		al.node[i] = points[i].node;
	}
	al.npoints = n;
	pfree(points);
	al.node_points = palloc0(sizeof(uint32) * al.nnodes);
	for (uint32 i = 0; i < n; i++)
	{
		if (al.node_points[al.node[i]]++ == 0)
			al.ndistinct++;
	}

	al.owned = palloc0(sizeof(double) * al.nnodes);
	al.target = palloc0(sizeof(double) * al.nnodes);
	al.owned1 = palloc0(sizeof(double) * al.nnodes);
	al.target1 = palloc0(sizeof(double) * al.nnodes);
	al.new_target = Min(1.0, (double) replicas / (nactive + 1));
	al.new_target1 = 1.0 / (nactive + 1);
	for (int k = 0; k < spec->nnodes; k++)
	{
		al.target[k] = spec->nodes[k].active ? al.new_target : 0;
		al.target1[k] = spec->nodes[k].active ? al.new_target1 : 0;
	}
	al.mark = palloc0(sizeof(uint32) * al.nnodes);
	al.slot = palloc(sizeof(int) * al.nnodes);
	for (int k = 0; k < al.nnodes; k++)
		al.slot[k] = -1;
	al.delta_node = palloc(sizeof(uint32) * al.nnodes);
	al.delta_f = palloc(sizeof(double) * al.nnodes);
	al.delta_v = palloc(sizeof(double) * al.nnodes);
	al.list = palloc(sizeof(uint32) * (2 * replicas + 1));
	al.window = palloc(sizeof(uint32) * (replicas + 1));

	if (al.npoints == 0)
	{
		/* an empty ring: the tokens evenly spaced, any free position near */
		uint64		step = (uint64) (al.space / ntokens);

		for (int i = 0; i < ntokens; i++)
		{
			uint64		p = step * (uint64) i;

			while (position_taken(&al, p))
				p++;
			if (al.bits < 64)
				p &= (UINT64CONST(1) << al.bits) - 1;
			placed[i] = p;
		}
	}
	else
	{
		compute_owned(&al);
		for (int i = 0; i < ntokens; i++)
			placed[i] = place_token(&al, al.new_target * (i + 1) / ntokens);
		for (int round = 0; replicas > 1 && round < REFINE_ROUNDS; round++)
		{
			for (int i = 0; i < ntokens; i++)
			{
				remove_point(&al, placed[i]);
				compute_owned(&al);
				placed[i] = place_token(&al, al.new_target);
			}
		}
	}

	for (int i = 0; i < ntokens; i++)
		result[i] = chash_position_to_int64(spec->key_hash, placed[i]);
	qsort(result, ntokens, sizeof(int64), int64_cmp);
	pfree(placed);
	pfree(al.window);
	pfree(al.list);
	pfree(al.delta_v);
	pfree(al.delta_f);
	pfree(al.delta_node);
	pfree(al.slot);
	pfree(al.mark);
	pfree(al.target1);
	pfree(al.owned1);
	pfree(al.target);
	pfree(al.owned);
	pfree(al.node_points);
	pfree(al.node);
	pfree(al.pos);
	pfree(al.taken);
	return result;
}
