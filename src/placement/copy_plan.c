/*-------------------------------------------------------------------------
 *
 * copy_plan.c
 *	  Tokens that even out the copies of a table's rows on a ring of tokens:
 *	  the plan chash_rebalance makes with replicas above 1.
 *
 * Pure code: tokens, the rows' positions and loads, and each node's limit
 * in; the changed tokens out.  The model is the ring of tokens in unsigned
 * order, each token ending an arc (the positions after the token before it,
 * up to and including it); the copies of an arc's rows are the first
 * 'replicas' distinct nodes of the walk from its token (with zones,
 * chash_zones_pick's pick of it), as chash_lookup_n gives them.  The rows
 * are read in cumulative-load coordinates: an arc holds the load of the
 * rows inside it, and a cut falls between two rows' positions.
 *
 * The objective is the excess, the sum of every node's load over its limit
 * (target_peak times its target), which is 0 where the peak is within the
 * target, plus each node's excess squared over its limit, which evens out
 * nodes that must all stay over their limits (zones can make a target out
 * of reach).  Each step applies the one change that lowers it most for what
 * it moves (what it takes off times the square of that over the copies'
 * load it moves), among:
 *
 *	- shifting a token between its neighbours: the rows between its old and
 *	  new position change from one arc's copies to the other's, which moves
 *	  load from the node that drops out to the node that comes in, and
 *	  nothing else (no walk changes order);
 *	- a new token for a node with room, cut into an arc: the rows below the
 *	  cut get the new token's walk (the node comes first, the last copy
 *	  drops out), and the walks of the arcs before it that reach it change
 *	  as they must.
 *
 * Each candidate's amount is chosen among the points where a node it
 * touches reaches its limit or two even out, the budget or the ends of the
 * range, then
 * snapped to the rows' positions (the load below and above), and its change
 * of every node's load is computed exactly on the walks it alters.  It stops
 * when the excess is gone, no change lowers the objective, or the budget is
 * spent.
 *
 * A drain instead gives each of the drained nodes' tokens, one at a time,
 * to the node that leaves the loads most even, or takes it out (its rows
 * go to the next token's copies), among the changes that take no copy from
 * a node that is not drained: taking a drained node's token out never
 * does, so only the drained nodes' copies move.
 *
 * Cost: each step walks every token's arc (a few tokens each) and tries
 * the arcs times a few receivers; steps are bounded.  Memory: the tokens,
 * their copies and the rows' running load.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/copy_plan.h"

/* receivers tried for new tokens each step, the most room first */
#define COPY_PLAN_RECEIVERS 8
/* steps at most: enough for every node to take several tokens */
#define COPY_PLAN_MAX_STEPS 4096

/* A change of the tokens a walk sees, without making it */
typedef enum CopyPlanOp
{
	OP_NONE,
	OP_INSERT,					/* a new token of 'node' before token 'at' */
	OP_RELABEL,					/* token 'at' given to 'node' */
	OP_REMOVE					/* token 'at' taken out */
} CopyPlanOp;

typedef struct CopyPlanView
{
	const uint32 *own;
	uint32		m;				/* tokens in the view */
	CopyPlanOp	op;
	uint32		at;
	uint32		node;
} CopyPlanView;

typedef struct CopyPlanner
{
	ChashCopyPlan *in;
	int			nnodes;
	int			stride;			/* replicas: room for each arc's copies */
	int			n;				/* copies a key gets */
	int			nzones;			/* zones of the nodes holding tokens */
	uint32		npos;
	const uint64 *pos;
	double	   *cum;			/* load of the first i positions */
	double		total;
	double		eps;
	uint32		m;
	uint32		cap;
	uint64	   *tok;
	uint32	   *own;
	uint32	   *idx;			/* positions at or before each token */
	double	   *arc;			/* each arc's load */
	uint32	   *set;			/* each arc's copies, stride apart */
	int		   *setn;
	uint32	   *wlen;			/* tokens each arc's walk visits */
	double	   *load;			/* each node's load */
	double		excess;
	bool		square;			/* the objective has the squares too */
	double		moved;			/* copies' load moved (at most) */
	/* scratch */
	uint32	   *stamp;
	uint32		gen;
	uint32	   *zstamp;
	uint32		zgen;
	uint32		nzone_ids;
	uint32	   *order;
	bool	   *taken;
	uint32	   *walk_out;
	double	   *side;			/* a candidate's change of each node's load */
	double	   *unit;			/* ... and per unit of its amount */
	bool	   *touched_mark;
	uint32	   *touched;
	int			ntouched;
} CopyPlanner;

/* A change chosen */
typedef struct CopyPlanMove
{
	CopyPlanOp	op;				/* OP_NONE: a token shifted */
	uint32		at;
	uint32		node;
	uint64		token;
	double		score;
	double		moved;
	bool		found;
} CopyPlanMove;

static inline uint32
view_owner(const CopyPlanView *v, uint32 i)
{
	switch (v->op)
	{
		case OP_INSERT:
			return i < v->at ? v->own[i] : (i == v->at ? v->node : v->own[i - 1]);
		case OP_RELABEL:
			return i == v->at ? v->node : v->own[i];
		case OP_REMOVE:
			return i < v->at ? v->own[i] : v->own[i + 1];
		default:
			return v->own[i];
	}
}

static void
next_gen(uint32 *gen, uint32 *stamp, uint32 n)
{
	if (++(*gen) == 0)
	{
		memset(stamp, 0, sizeof(uint32) * n);
		*gen = 1;
	}
}

/*
 * The copies of the arc ending at token 'start' of a view into out (room
 * for p->n); *len: the tokens the walk visited.  The rule of
 * chash_placement_preference, or with zones of chash_ring_walk_for_zones
 * and chash_zones_pick.
 */
static int
walk(CopyPlanner *p, const CopyPlanView *v, uint32 start, uint32 *out, uint32 *len)
{
	uint32		i = start;
	uint32		step = 0;
	int			found = 0;

	next_gen(&p->gen, p->stamp, p->nnodes);
	if (!p->in->distinct_zones)
	{
		while (step < v->m && found < p->n)
		{
			uint32		o = view_owner(v, i);

			if (p->stamp[o] != p->gen)
			{
				p->stamp[o] = p->gen;
				out[found++] = o;
			}
			step++;
			if (++i == v->m)
				i = 0;
		}
		*len = step;
		return found;
	}
	else
	{
		int			norder = 0;
		int			nz = 0;

		next_gen(&p->zgen, p->zstamp, p->nzone_ids);
		while (step < v->m)
		{
			uint32		o = view_owner(v, i);

			step++;
			if (p->stamp[o] != p->gen)
			{
				uint32		z = p->in->zone_of[o];

				p->stamp[o] = p->gen;
				p->order[norder++] = o;
				if (p->zstamp[z] != p->zgen)
				{
					p->zstamp[z] = p->zgen;
					nz++;
				}
				if (nz >= p->n || (nz == p->nzones && norder >= p->n))
					break;
			}
			if (++i == v->m)
				i = 0;
		}
		*len = step;
		next_gen(&p->zgen, p->zstamp, p->nzone_ids);
		for (int k = 0; k < norder; k++)
			p->taken[k] = false;
		for (int k = 0; k < norder && found < p->n; k++)
		{
			uint32		z = p->in->zone_of[p->order[k]];

			if (p->zstamp[z] != p->zgen)
			{
				p->zstamp[z] = p->zgen;
				p->taken[k] = true;
				out[found++] = p->order[k];
			}
		}
		for (int k = 0; k < norder && found < p->n; k++)
		{
			if (!p->taken[k])
				out[found++] = p->order[k];
		}
		return found;
	}
}

/* The load of the k rows from row index s on, wrapping */
static inline double
prefix(const CopyPlanner *p, uint32 s, uint32 k)
{
	if ((uint64) s + k <= p->npos)
		return p->cum[s + k] - p->cum[s];
	return p->cum[p->npos] - p->cum[s] + p->cum[s + k - p->npos];
}

static inline uint32
arc_start(const CopyPlanner *p, uint32 j)
{
	uint32		s = j > 0 ? p->idx[j - 1] : p->idx[p->m - 1];

	return s >= p->npos ? 0 : s;
}

static inline uint32
arc_rows(const CopyPlanner *p, uint32 j)
{
	return j > 0 ? p->idx[j] - p->idx[j - 1] : p->idx[0] + p->npos - p->idx[p->m - 1];
}

/*
 * Whether x lies strictly between tokens a and b going up from a, wrapping
 * (a ring of one token: anywhere but at it)
 */
static inline bool
in_open(const CopyPlanner *p, uint64 a, uint64 x, uint64 b)
{
	uint64		dx = x - a;
	uint64		db = b - a;

	if (db == 0)
		return p->m == 1 && dx != 0;
	return dx > 0 && dx < db;
}

/*
 * Of the cnt rows from s on (which end at or before thi), how many lie
 * before thi: a cut cannot take a row at the next token's own position
 */
static inline uint32
rows_below(const CopyPlanner *p, uint32 s, uint32 cnt, uint64 thi)
{
	if (cnt > 0 && p->pos[(s + cnt - 1) % p->npos] == thi)
		return cnt - 1;
	return cnt;
}

/*
 * The token that ends an arc after its first k rows (of the cnt from s on,
 * between tokens tlo and thi): the k-th row's position, or for no rows the
 * position before the first; false if there is none strictly between tlo
 * and thi
 */
static bool
cut_token(const CopyPlanner *p, uint32 s, uint32 cnt, uint32 k,
		  uint64 tlo, uint64 thi, uint64 *token)
{
	uint64		x;

	if (k >= 1)
		x = p->pos[(s + k - 1) % p->npos];
	else
		x = (cnt > 0 ? p->pos[s % p->npos] : thi) - 1;
	if (x > p->in->max_position || !in_open(p, tlo, x, thi))
		return false;
	*token = x;
	return true;
}

/* The most rows (of K from s on) whose load is at most a */
static uint32
rows_within(const CopyPlanner *p, uint32 s, uint32 K, double a)
{
	uint32		lo = 0;
	uint32		hi = K;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo + 1) / 2;

		if (prefix(p, s, mid) <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Every arc's load and copies, every node's load and the excess */
static void
recompute(CopyPlanner *p)
{
	CopyPlanView v = {p->own, p->m, OP_NONE, 0, 0};
	bool	   *holds = palloc0(sizeof(bool) * p->nnodes);
	int			holders = 0;

	for (uint32 j = 0; j < p->m; j++)
	{
		uint32		lo = 0;
		uint32		hi = p->npos;

		/* positions at or before the token */
		while (lo < hi)
		{
			uint32		mid = lo + (hi - lo) / 2;

			if (p->pos[mid] <= p->tok[j])
				lo = mid + 1;
			else
				hi = mid;
		}
		p->idx[j] = lo;
		if (!holds[p->own[j]])
		{
			holds[p->own[j]] = true;
			holders++;
		}
	}
	p->n = Min(p->stride, holders);
	next_gen(&p->zgen, p->zstamp, p->nzone_ids);
	p->nzones = 0;
	for (int k = 0; k < p->nnodes; k++)
	{
		if (holds[k] && p->zstamp[p->in->zone_of[k]] != p->zgen)
		{
			p->zstamp[p->in->zone_of[k]] = p->zgen;
			p->nzones++;
		}
	}
	pfree(holds);
	memset(p->load, 0, sizeof(double) * p->nnodes);
	for (uint32 j = 0; j < p->m; j++)
	{
		if ((j & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		p->arc[j] = p->npos == 0 ? 0 : prefix(p, arc_start(p, j), arc_rows(p, j));
		p->setn[j] = walk(p, &v, j, p->set + (size_t) j * p->stride, &p->wlen[j]);
		for (int k = 0; k < p->setn[j]; k++)
			p->load[p->set[(size_t) j * p->stride + k]] += p->arc[j];
	}
	p->excess = 0;
	for (int k = 0; k < p->nnodes; k++)
		p->excess += Max(0, p->load[k] - p->in->limits[k]);
}

static inline void
touch(CopyPlanner *p, uint32 node)
{
	if (!p->touched_mark[node])
	{
		p->touched_mark[node] = true;
		p->side[node] = 0;
		p->unit[node] = 0;
		p->touched[p->ntouched++] = node;
	}
}

static void
untouch(CopyPlanner *p)
{
	for (int i = 0; i < p->ntouched; i++)
		p->touched_mark[p->touched[i]] = false;
	p->ntouched = 0;
}

static inline bool
in_set(const uint32 *s, int n, uint32 x)
{
	for (int i = 0; i < n; i++)
		if (s[i] == x)
			return true;
	return false;
}

/*
 * Adds w times (new set minus old set) to the side or unit change; returns
 * how many copies of the new set are new
 */
static int
add_diff(CopyPlanner *p, const uint32 *ns, int nn, const uint32 *os, int no,
		 double w, bool per_unit)
{
	int			gained = 0;

	for (int i = 0; i < nn; i++)
	{
		if (!in_set(os, no, ns[i]))
		{
			touch(p, ns[i]);
			if (per_unit)
				p->unit[ns[i]] += w;
			else
				p->side[ns[i]] += w;
			gained++;
		}
	}
	for (int i = 0; i < no; i++)
	{
		if (!in_set(ns, nn, os[i]))
		{
			touch(p, os[i]);
			if (per_unit)
				p->unit[os[i]] -= w;
			else
				p->side[os[i]] -= w;
		}
	}
	return gained;
}

/*
 * The change of the objective if the touched nodes' loads change by side +
 * a * unit: the excess, with p->square plus the sum of each node's excess
 * squared over its limit (which a change between two nodes over their
 * limits lowers when it evens them out); for drains, in *dsq, the change of
 * the sum of squared loads over limits
 */
static double
delta_excess(const CopyPlanner *p, double a, double *dsq)
{
	double		de = 0;

	if (dsq)
		*dsq = 0;
	for (int i = 0; i < p->ntouched; i++)
	{
		uint32		x = p->touched[i];
		double		l = p->load[x];
		double		lim = p->in->limits[x];
		double		d = p->side[x] + a * p->unit[x];
		double		e0 = Max(0, l - lim);
		double		e1 = Max(0, l + d - lim);

		de += e1 - e0;
		if (p->square && lim > 0)
			de += (e1 * e1 - e0 * e0) / lim;
		if (dsq && lim > 0)
			*dsq += ((l + d) * (l + d) - l * l) / lim;
	}
	return de;
}

/* A candidate's score: the excess it takes off, weighed by its yield */
static inline double
score_of(const CopyPlanner *p, double de, double mv)
{
	double		red = -de;
	double		eff;

	if (red <= p->eps)
		return 0;
	eff = mv > p->eps ? Min(1.0, red / mv) : 1.0;
	return red * eff * eff;
}

/*
 * Amounts worth trying: where a touched node reaches its limit, and where
 * two that the change moves load between reach the same load over limit
 */
static int
amounts(const CopyPlanner *p, double *out, int room)
{
	int			n = 0;

	for (int i = 0; i < p->ntouched && n < room; i++)
	{
		uint32		x = p->touched[i];
		double		u = p->unit[x];

		if (u != 0)
			out[n++] = (p->in->limits[x] - p->load[x] - p->side[x]) / u;
	}
	for (int i = 0; i < p->ntouched; i++)
	{
		uint32		x = p->touched[i];
		double		lx = p->in->limits[x];

		if (p->unit[x] <= 0 || !(lx > 0))
			continue;
		for (int k = 0; k < p->ntouched && n < room; k++)
		{
			uint32		y = p->touched[k];
			double		ly = p->in->limits[y];
			double		den;

			if (p->unit[y] >= 0 || !(ly > 0))
				continue;
			den = p->unit[x] / lx - p->unit[y] / ly;
			out[n++] = ((p->load[y] + p->side[y]) / ly - (p->load[x] + p->side[x]) / lx) / den;
		}
	}
	return n;
}

/* Shifting token j between its neighbours */
static void
consider_shift(CopyPlanner *p, uint32 j, double rem, CopyPlanMove *best)
{
	uint32		jn = (j + 1) % p->m;
	uint32		s = arc_start(p, j);
	uint32		cnt = arc_rows(p, j) + arc_rows(p, jn);
	uint64		tlo = p->tok[(j + p->m - 1) % p->m];
	uint64		thi = p->tok[jn];
	uint32		K;
	uint32		k0 = arc_rows(p, j);
	double		a0;
	double		aK;
	int			nplus;
	int			nminus;
	double		targets[128];
	int			nt;

	if (p->m == 2)
		cnt = p->npos;
	K = rows_below(p, s, cnt, thi);
	a0 = prefix(p, s, k0);
	aK = prefix(p, s, K);
	/* rows given to arc j: its copies instead of arc jn's */
	nplus = add_diff(p, p->set + (size_t) j * p->stride, p->setn[j],
					 p->set + (size_t) jn * p->stride, p->setn[jn], 1.0, true);
	nminus = add_diff(p, p->set + (size_t) jn * p->stride, p->setn[jn],
					  p->set + (size_t) j * p->stride, p->setn[j], 0.0, true);
	if (p->ntouched == 0)
		return;
	nt = amounts(p, targets, lengthof(targets) - 4);
	targets[nt++] = -a0;
	targets[nt++] = aK - a0;
	if (nplus > 0)
		targets[nt++] = rem / nplus;
	if (nminus > 0)
		targets[nt++] = -rem / nminus;
	for (int t = 0; t < nt; t++)
	{
		double		want = a0 + targets[t];
		uint32		k;

		if (!(want >= 0))
			want = 0;
		if (want > aK)
			want = aK;
		k = rows_within(p, s, K, want + p->eps);
		for (int c = 0; c < 2; c++, k++)
		{
			uint64		token;
			double		da;
			double		mv;
			double		sc;

			if (k > K || k == k0)
				continue;
			if (!cut_token(p, s, cnt, k, tlo, thi, &token))
				continue;
			da = prefix(p, s, k) - a0;
			mv = da > 0 ? da * nplus : -da * nminus;
			if (mv > rem + p->eps)
				continue;
			sc = score_of(p, delta_excess(p, da, NULL), mv);
			if (sc > best->score)
			{
				best->found = true;
				best->score = sc;
				best->op = OP_NONE;
				best->at = j;
				best->token = token;
				best->moved = mv;
			}
		}
	}
}

/* A new token of node x cut into arc 'at' */
static void
consider_insert(CopyPlanner *p, uint32 at, uint32 x, double rem, CopyPlanMove *best)
{
	CopyPlanView v = {p->own, p->m + 1, OP_INSERT, at, x};
	uint32	   *ns = p->walk_out;
	uint32		len;
	int			nn;
	double		side_moved = 0;
	int			nplus;
	uint32		s;
	uint32		cnt;
	uint32		K;
	uint64		tlo = p->tok[(at + p->m - 1) % p->m];
	uint64		thi = p->tok[at];
	double		aK;
	double		targets[128];
	int			nt;

	/* the walks of the arcs before it that reach the new token */
	for (uint32 r = 1; r < p->m; r++)
	{
		uint32		ko = (at + p->m - r) % p->m;
		uint32		kn = ko < at ? ko : ko + 1;
		bool		reached = r < p->wlen[ko];

		/* a walk can go round the whole ring: a cancel is heard each one */
		CHECK_FOR_INTERRUPTS();
		nn = walk(p, &v, kn, ns, &len);
		if (!reached && r >= len)
			break;
		side_moved += p->arc[ko] *
			add_diff(p, ns, nn, p->set + (size_t) ko * p->stride, p->setn[ko],
					 p->arc[ko], false);
	}
	if (side_moved > rem + p->eps)
		return;
	/* the rows below the cut: the new token's walk */
	nn = walk(p, &v, at, ns, &len);
	nplus = add_diff(p, ns, nn, p->set + (size_t) at * p->stride, p->setn[at], 1.0, true);
	if (p->ntouched == 0)
		return;
	s = arc_start(p, at);
	cnt = arc_rows(p, at);
	K = rows_below(p, s, cnt, thi);
	aK = prefix(p, s, K);
	nt = amounts(p, targets, lengthof(targets) - 3);
	targets[nt++] = 0;
	targets[nt++] = aK;
	if (nplus > 0)
		targets[nt++] = (rem - side_moved) / nplus;
	for (int t = 0; t < nt; t++)
	{
		double		want = targets[t];
		uint32		k;

		if (!(want >= 0))
			want = 0;
		if (want > aK)
			want = aK;
		k = rows_within(p, s, K, want + p->eps);
		for (int c = 0; c < 2; c++, k++)
		{
			uint64		token;
			double		a;
			double		mv;
			double		sc;

			if (k > K)
				continue;
			if (!cut_token(p, s, cnt, k, tlo, thi, &token))
				continue;
			a = prefix(p, s, k);
			mv = side_moved + a * nplus;
			if (mv > rem + p->eps)
				continue;
			sc = score_of(p, delta_excess(p, a, NULL), mv);
			if (sc > best->score)
			{
				best->found = true;
				best->score = sc;
				best->op = OP_INSERT;
				best->at = at;
				best->node = x;
				best->token = token;
				best->moved = mv;
			}
		}
	}
}

/* How many of an arc's old copies on nodes that are not drained it loses */
static int
kept_lost(const CopyPlanner *p, const uint32 *ns, int nn, const uint32 *os, int no)
{
	int			lost = 0;

	for (int i = 0; i < no; i++)
	{
		if (!p->in->drained[os[i]] && !in_set(ns, nn, os[i]))
			lost++;
	}
	return lost;
}

/*
 * Giving token j (of a drained node) to node x, or with x < 0 taking it
 * out: the change of the objective, the copies' load it moves, and the
 * load of the copies it takes from nodes that are not drained (a drain
 * should move none: taking a token out never does)
 */
static double
drain_change(CopyPlanner *p, uint32 j, int x, double *moved, double *lost)
{
	CopyPlanView v = {p->own, p->m, OP_RELABEL, j, (uint32) Max(x, 0)};
	uint32	   *ns = p->walk_out;
	uint32		len;
	int			nn;
	double		mv = 0;
	double		ls = 0;
	double		de;
	double		dsq;

	if (x < 0)
	{
		uint32		jn = (j + 1) % p->m;
		const uint32 *next = p->set + (size_t) jn * p->stride;
		const uint32 *mine = p->set + (size_t) j * p->stride;

		v.op = OP_REMOVE;
		v.m = p->m - 1;
		mv += p->arc[j] * add_diff(p, next, p->setn[jn], mine, p->setn[j], p->arc[j], false);
		ls += p->arc[j] * kept_lost(p, next, p->setn[jn], mine, p->setn[j]);
	}
	else
	{
		const uint32 *mine = p->set + (size_t) j * p->stride;

		nn = walk(p, &v, j, ns, &len);
		mv += p->arc[j] * add_diff(p, ns, nn, mine, p->setn[j], p->arc[j], false);
		ls += p->arc[j] * kept_lost(p, ns, nn, mine, p->setn[j]);
	}
	for (uint32 r = 1; r < p->m; r++)
	{
		uint32		ko = (j + p->m - r) % p->m;
		uint32		kn = (x >= 0 || ko < j) ? ko : ko - 1;
		bool		reached = r < p->wlen[ko];
		const uint32 *os = p->set + (size_t) ko * p->stride;

		CHECK_FOR_INTERRUPTS();
		nn = walk(p, &v, kn, ns, &len);
		if (!reached && r >= len)
			break;
		mv += p->arc[ko] * add_diff(p, ns, nn, os, p->setn[ko], p->arc[ko], false);
		ls += p->arc[ko] * kept_lost(p, ns, nn, os, p->setn[ko]);
	}
	de = delta_excess(p, 0, &dsq);
	untouch(p);
	*moved = mv;
	*lost = ls;
	return de + 0.01 * dsq;
}

/* Tokens back in ascending order after a change (a rotation at most) */
static void
reorder(CopyPlanner *p)
{
	uint32		r = 0;

	for (uint32 j = 1; j < p->m; j++)
	{
		if (p->tok[j] < p->tok[j - 1])
		{
			r = j;
			break;
		}
	}
	if (r > 0)
	{
		uint64	   *t = palloc(sizeof(uint64) * p->m);
		uint32	   *o = palloc(sizeof(uint32) * p->m);

		for (uint32 j = 0; j < p->m; j++)
		{
			t[j] = p->tok[(r + j) % p->m];
			o[j] = p->own[(r + j) % p->m];
		}
		memcpy(p->tok, t, sizeof(uint64) * p->m);
		memcpy(p->own, o, sizeof(uint32) * p->m);
		pfree(t);
		pfree(o);
	}
}

static void
grow(CopyPlanner *p, uint32 m)
{
	if (m <= p->cap)
		return;
	p->cap = Max(m, 2 * p->cap);
	p->tok = repalloc(p->tok, sizeof(uint64) * p->cap);
	p->own = repalloc(p->own, sizeof(uint32) * p->cap);
	p->idx = repalloc(p->idx, sizeof(uint32) * p->cap);
	p->arc = repalloc(p->arc, sizeof(double) * p->cap);
	p->set = repalloc(p->set, sizeof(uint32) * p->stride * (size_t) p->cap);
	p->setn = repalloc(p->setn, sizeof(int) * p->cap);
	p->wlen = repalloc(p->wlen, sizeof(uint32) * p->cap);
}

/* The drained nodes' tokens, one at a time, where they even out most */
static void
plan_drain(CopyPlanner *p)
{
	for (;;)
	{
		uint32		bj = 0;
		int			bx = 0;
		double		bcost = 0;
		double		bmoved = 0;
		double		blost = 0;
		bool		found = false;
		double		rem = p->in->max_moved - p->moved;

		CHECK_FOR_INTERRUPTS();
		recompute(p);
		for (uint32 j = 0; j < p->m; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (!p->in->drained[p->own[j]])
				continue;
			for (int x = -1; x < p->nnodes; x++)
			{
				double		mv;
				double		ls;
				double		cost;

				if (x >= 0 && p->in->drained[x])
					continue;
				if (x < 0 && p->m < 2)
					continue;
				/* only nodes of the ring take tokens (a limit of 0: none) */
				if (x >= 0 && !(p->in->limits[x] > 0))
					continue;
				cost = drain_change(p, j, x, &mv, &ls);
				if (mv > rem + p->eps)
					continue;
				/* the fewest other copies lost, then the most even */
				if (!found || ls < blost - p->eps ||
					(ls <= blost + p->eps &&
					 (cost < bcost - p->eps ||
					  (cost <= bcost + p->eps && mv < bmoved - p->eps))))
				{
					found = true;
					bj = j;
					bx = x;
					bcost = cost;
					bmoved = mv;
					blost = ls;
				}
			}
		}
		if (!found)
			break;
		if (bx >= 0)
			p->own[bj] = (uint32) bx;
		else
		{
			memmove(p->tok + bj, p->tok + bj + 1, sizeof(uint64) * (p->m - bj - 1));
			memmove(p->own + bj, p->own + bj + 1, sizeof(uint32) * (p->m - bj - 1));
			p->m--;
		}
		p->moved += bmoved;
	}
}

/* Shifts and new tokens, the best for what it moves each step */
static void
plan_balance(CopyPlanner *p)
{
	uint32	   *receivers = palloc(sizeof(uint32) * p->nnodes);

	for (int step = 0; step < COPY_PLAN_MAX_STEPS; step++)
	{
		CopyPlanMove best = {0};
		double		rem = p->in->max_moved - p->moved;
		int			nrecv = 0;

		CHECK_FOR_INTERRUPTS();
		recompute(p);
		if (p->excess <= p->eps || rem <= p->eps)
			break;
		/*
		 * receivers of new tokens: the nodes least loaded for their limit
		 * first, those under it while the excess can fall
		 */
		for (int x = 0; x < p->nnodes; x++)
		{
			uint32		y = (uint32) x;
			int			b = nrecv;

			if (p->in->drained[x] || !(p->in->limits[x] > 0))
				continue;
			while (b > 0 && p->load[receivers[b - 1]] / p->in->limits[receivers[b - 1]] >
				   p->load[y] / p->in->limits[y])
			{
				receivers[b] = receivers[b - 1];
				b--;
			}
			receivers[b] = y;
			nrecv++;
		}
		/* the excess first; where no change lowers it, the squares too */
		for (int pass = 0; pass < 2 && !best.found; pass++)
		{
			int			nr = 0;

			p->square = pass == 1;
			while (nr < nrecv && nr < COPY_PLAN_RECEIVERS &&
				   (p->square || p->load[receivers[nr]] < p->in->limits[receivers[nr]] - p->eps))
				nr++;
			if (p->m >= 2)
			{
				for (uint32 j = 0; j < p->m; j++)
				{
					CHECK_FOR_INTERRUPTS();
					consider_shift(p, j, rem, &best);
					untouch(p);
				}
			}
			for (uint32 at = 0; at < p->m; at++)
			{
				CHECK_FOR_INTERRUPTS();
				for (int i = 0; i < nr; i++)
				{
					uint32		x = receivers[i];

					if (x == p->own[at] || (p->m >= 2 && x == p->own[(at + p->m - 1) % p->m]))
						continue;
					consider_insert(p, at, x, rem, &best);
					untouch(p);
				}
			}
		}
		if (!best.found)
			break;
		if (best.op == OP_INSERT)
		{
			grow(p, p->m + 1);
			memmove(p->tok + best.at + 1, p->tok + best.at, sizeof(uint64) * (p->m - best.at));
			memmove(p->own + best.at + 1, p->own + best.at, sizeof(uint32) * (p->m - best.at));
			p->tok[best.at] = best.token;
			p->own[best.at] = best.node;
			p->m++;
		}
		else
			p->tok[best.at] = best.token;
		reorder(p);
		p->moved += best.moved;
	}
	pfree(receivers);
}

/*
 * The plan: plan->tokens and plan->owners (palloc'd, in ring order) are
 * replaced by the changed ring's
 */
void
chash_copy_plan(ChashCopyPlan *plan)
{
	CopyPlanner p = {0};
	bool		draining = false;
	uint32		maxzone = 0;

	p.in = plan;
	p.nnodes = plan->nnodes;
	p.stride = plan->replicas;
	p.npos = plan->npositions;
	p.pos = plan->positions;
	p.cum = palloc(sizeof(double) * (plan->npositions + 1));
	p.cum[0] = 0;
	for (uint32 i = 0; i < plan->npositions; i++)
		p.cum[i + 1] = p.cum[i] + plan->loads[i];
	p.total = p.cum[plan->npositions];
	p.eps = 1e-9 * Max(p.total, 1);
	p.m = plan->ntokens;
	p.cap = Max(plan->ntokens, 16);
	p.tok = palloc(sizeof(uint64) * p.cap);
	p.own = palloc(sizeof(uint32) * p.cap);
	memcpy(p.tok, plan->tokens, sizeof(uint64) * plan->ntokens);
	memcpy(p.own, plan->owners, sizeof(uint32) * plan->ntokens);
	p.idx = palloc(sizeof(uint32) * p.cap);
	p.arc = palloc(sizeof(double) * p.cap);
	p.set = palloc(sizeof(uint32) * p.stride * (size_t) p.cap);
	p.setn = palloc(sizeof(int) * p.cap);
	p.wlen = palloc(sizeof(uint32) * p.cap);
	p.load = palloc0(sizeof(double) * p.nnodes);
	p.stamp = palloc0(sizeof(uint32) * p.nnodes);
	for (int k = 0; k < p.nnodes; k++)
	{
		maxzone = Max(maxzone, plan->zone_of[k]);
		draining |= plan->drained[k];
	}
	p.nzone_ids = maxzone + 1;
	p.zstamp = palloc0(sizeof(uint32) * p.nzone_ids);
	p.order = palloc(sizeof(uint32) * p.nnodes);
	p.taken = palloc(sizeof(bool) * p.nnodes);
	p.walk_out = palloc(sizeof(uint32) * Max(p.stride, 1));
	p.side = palloc0(sizeof(double) * p.nnodes);
	p.unit = palloc0(sizeof(double) * p.nnodes);
	p.touched_mark = palloc0(sizeof(bool) * p.nnodes);
	p.touched = palloc(sizeof(uint32) * p.nnodes);

	if (p.m > 0 && p.npos > 0)
	{
		if (draining)
			plan_drain(&p);
		else
			plan_balance(&p);
	}
	else if (p.m > 0 && draining)
		plan_drain(&p);

	plan->ntokens = p.m;
	plan->tokens = p.tok;
	plan->owners = p.own;
}
