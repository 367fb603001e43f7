/*-------------------------------------------------------------------------
 *
 * algorithm.c
 *	  The table of placement algorithms.
 *
 * A point algorithm says how many points each node gets and where they are;
 * the generic code in placement/build.c sorts them and finds owners.  A
 * computed one finds owners itself, from the active nodes in ordinal
 * order.  Adding one is a file algo_<name>.c and a line in chash_algorithms[]
 * below.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "placement/placement.h"

static const ChashAlgorithm *const chash_algorithms[] = {
	&chash_algorithm_ring,
	&chash_algorithm_ketama,
	&chash_algorithm_modulo,
	&chash_algorithm_jump,
	&chash_algorithm_rendezvous,
	&chash_algorithm_maglev,
	&chash_algorithm_tokens,
	&chash_algorithm_slots,
	&chash_algorithm_nginx,
	&chash_algorithm_dalli,
	&chash_algorithm_haproxy,
	&chash_algorithm_elasticsearch,
	&chash_algorithm_envoy_ring_hash,
};

/* The algorithm of that name, or NULL */
const ChashAlgorithm *
chash_algorithm_find(const char *name)
{
	for (int i = 0; i < lengthof(chash_algorithms); i++)
	{
		if (strcmp(chash_algorithms[i]->name, name) == 0)
			return chash_algorithms[i];
	}
	return NULL;
}

static const char *
algorithm_name_at(int i)
{
	return chash_algorithms[i]->name;
}

/* The algorithm of that name; an error listing the valid ones if none */
const ChashAlgorithm *
chash_algorithm_get(const char *name)
{
	const ChashAlgorithm *algorithm = chash_algorithm_find(name);

	if (algorithm == NULL)
		chash_error_unknown("algorithm", "algorithms", name,
							lengthof(chash_algorithms), algorithm_name_at);
	return algorithm;
}
