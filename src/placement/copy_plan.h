/*-------------------------------------------------------------------------
 *
 * copy_plan.h
 *	  Tokens that even out the copies of a table's rows on a ring of tokens
 *	  (placement/copy_plan.c): what chash_rebalance plans with replicas.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_COPY_PLAN_H
#define CHASH_COPY_PLAN_H

/*
 * The plan's input and output.  Nodes are numbered as the ring's spec
 * numbers them; a key's copies are the first 'replicas' distinct nodes of
 * the walk from the first token at or after its position (with
 * distinct_zones, chash_zones_pick's pick of that walk).
 */
typedef struct ChashCopyPlan
{
	int			nnodes;
	const bool *drained;		/* nodes whose tokens all go to others */
	const uint32 *zone_of;		/* each node's zone (numbers of any range) */
	const double *limits;		/* the load each node may hold */
	int			replicas;
	bool		distinct_zones;
	double		max_moved;		/* the budget of copies' load; infinity:
								 * none */
	uint64		max_position;	/* the hash space's largest position */
	/* the rows' distinct positions, ascending, with their loads */
	uint32		npositions;
	const uint64 *positions;
	const double *loads;
	/* the tokens in ring order and their nodes; the plan's on return */
	uint32		ntokens;
	uint64	   *tokens;
	uint32	   *owners;
} ChashCopyPlan;

extern void chash_copy_plan(ChashCopyPlan *plan);

#endif							/* CHASH_COPY_PLAN_H */
