/*-------------------------------------------------------------------------
 *
 * tokens.c
 *	  chash_allocate_tokens: tokens for a new node of a "tokens" ring.
 *
 * A thin wrapper: the ring comes through the cache (call_ring.h), which
 * checks that the caller may read it; placement/token_allocation.c
 * chooses the positions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "utils/array.h"

#include "functions/call_ring.h"

/*
 * The most tokens one call allocates.  Each token is a pass over the ring's
 * gaps (interrupts are checked): 4,096 tokens on an empty ring are about
 * 4,096 passes over up to 4,096 gaps.  Cassandra allows a node 1,536.
 */
#define ALLOCATE_MAX_TOKENS 4096

/*
 * chash_allocate_tokens(ring, tokens, replicas): tokens positions for a
 * new node of a "tokens" ring, ascending, as chash_node_add takes them
 */
PG_FUNCTION_INFO_V1(chash_allocate_tokens_sql);

Datum
chash_allocate_tokens_sql(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring;
	int32		ntokens;
	int32		replicas;
	int64	   *tokens;
	Datum	   *elems;
	ArrayType  *result;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ring must not be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tokens must not be null")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("replicas must not be null")));
	ntokens = PG_GETARG_INT32(1);
	replicas = PG_GETARG_INT32(2);
	if (ntokens < 1 || ntokens > ALLOCATE_MAX_TOKENS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tokens must be between 1 and %d", ALLOCATE_MAX_TOKENS),
				 errdetail("tokens is %d.", ntokens)));
	ring = chash_call_ring(fcinfo);
	if (ring->spec.algorithm != &chash_algorithm_tokens)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ring \"%s\" does not place nodes at given tokens",
						ring->spec.name),
				 errdetail("Ring \"%s\" uses algorithm \"%s\"; tokens are allocated for rings of algorithm \"tokens\" only.",
						   ring->spec.name, ring->spec.algorithm->name),
				 errhint("Create a ring with chash_ring_create(ring, algorithm => 'tokens').")));
	if (replicas < 1 || replicas > ring->spec.nactive + 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replicas must be between 1 and the number of active nodes plus the new one (%d)",
						ring->spec.nactive + 1),
				 errdetail("replicas is %d.", replicas)));

	tokens = chash_allocate_tokens(&ring->spec, ntokens, replicas);
	elems = palloc(sizeof(Datum) * ntokens);
	for (int i = 0; i < ntokens; i++)
		elems[i] = Int64GetDatum(tokens[i]);
	result = construct_array(elems, ntokens, INT8OID, sizeof(int64),
							 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	pfree(elems);
	pfree(tokens);
	PG_RETURN_ARRAYTYPE_P(result);
}
