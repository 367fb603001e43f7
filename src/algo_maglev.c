/*-------------------------------------------------------------------------
 *
 * algo_maglev.c
 *	  The "maglev" algorithm: a lookup table filled by permutations.
 *
 * Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load
 * Balancer" (NSDI 2016), section 3.4: a table of prime size M; each member
 * (the active nodes in ordinal order) prefers the slots offset,
 * offset + skip, offset + 2 skip, ... (mod M), with offset = hash(name) mod M
 * and skip = hash(name || '#skip') mod (M - 1) + 1, hash being the ring's
 * hash of points; in turns, each member takes its next preferred empty
 * slot, until the table is full.  Weights: a member takes turns in
 * proportion to its weight (each round adds weight / largest weight to its
 * credit, and it takes a slot for each whole unit), so that slots follow
 * weights.  The owner of position p is table[p mod M].  A change of
 * members moves about the changed share, and a little more: the paper's
 * table trades perfect stability for even load.
 *
 * The preference order walks the table on from the owner's slot, as a
 * ring walks its points, taking each node not yet taken.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement.h"

#define MAGLEV_DEFAULT_TABLE_SIZE 65537
/* slots a member at least, as the paper advises (M > 100 N) */
#define MAGLEV_SLOTS_PER_MEMBER 100

typedef struct MaglevData
{
	uint32		size;			/* M */
	uint32	   *table;			/* node index of each slot */
} MaglevData;

static bool
is_prime(uint32 m)
{
	if (m < 2)
		return false;
	for (uint32 d = 2; (uint64) d * d <= m; d++)
	{
		if (m % d == 0)
			return false;
	}
	return true;
}

static uint32
table_size(const ChashRingSpec *spec)
{
	return spec->table_size > 0 ? (uint32) spec->table_size : MAGLEV_DEFAULT_TABLE_SIZE;
}

static void
maglev_prepare(ChashRingSpec *spec)
{
	uint32		m = table_size(spec);

	chash_computed_prepare(spec);
	if (m > CHASH_MAX_RING_POINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table_size of ring \"%s\" is too large", spec->name),
				 errdetail("It is %u; the most is %d.", m, CHASH_MAX_RING_POINTS)));
	if (!is_prime(m))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table_size of ring \"%s\" must be a prime number", spec->name),
				 errdetail("It is %u.", m),
				 errhint("Maglev's permutations cover every slot only for a prime table size, such as 65537 or 655373.")));
	if ((uint64) m <= (uint64) MAGLEV_SLOTS_PER_MEMBER * spec->nactive)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ring \"%s\" has too many active nodes for its table_size", spec->name),
				 errdetail("Its %d active nodes need a table of more than %d slots; table_size is %u.",
						   spec->nactive, MAGLEV_SLOTS_PER_MEMBER * spec->nactive, m),
				 errhint("Create the ring with a larger prime table_size.")));
}

/* Hash a node's name, with a suffix, as bytes */
static uint64
name_hash(const ChashRingSpec *spec, const ChashNodeSpec *node,
		  const char *suffix)
{
	StringInfoData buf;
	uint64		h;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, node->name_utf8, node->name_utf8_len);
	appendStringInfoString(&buf, suffix);
	h = spec->hash->fn((const unsigned char *) buf.data, buf.len);
	pfree(buf.data);
	return h;
}

static void
maglev_build(ChashPlacement *placement)
{
	const ChashRingSpec *spec = &placement->spec;
	MaglevData *data = palloc0(sizeof(MaglevData));
	int			n = placement->nactive;
	uint32		m = table_size(spec);
	uint32	   *offset = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *skip = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *next = palloc0(sizeof(uint32) * Max(n, 1));	/* tries made */
	double	   *credit = palloc0(sizeof(double) * Max(n, 1));
	double		largest = 0;
	uint32		filled = 0;

	data->size = m;
	data->table = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * m);
	placement->data = data;
	if (n == 0)
		return;
	for (uint32 s = 0; s < m; s++)
		data->table[s] = PG_UINT32_MAX;
	for (int i = 0; i < n; i++)
	{
		const ChashNodeSpec *node = &spec->nodes[placement->members[i]];

		offset[i] = (uint32) (name_hash(spec, node, "") % m);
		skip[i] = (uint32) (name_hash(spec, node, "#skip") % (m - 1)) + 1;
		largest = Max(largest, node->weight);
	}
	while (filled < m)
	{
		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < n && filled < m; i++)
		{
			credit[i] += spec->nodes[placement->members[i]].weight / largest;
			while (credit[i] >= 1 && filled < m)
			{
				uint32		slot;

				/* the member's next preferred slot that is empty */
				do
				{
					slot = (uint32) ((offset[i] + (uint64) next[i] * skip[i]) % m);
					next[i]++;
				} while (data->table[slot] != PG_UINT32_MAX);
				data->table[slot] = placement->members[i];
				filled++;
				credit[i] -= 1;
			}
		}
	}
	pfree(offset);
	pfree(skip);
	pfree(next);
	pfree(credit);
}

static uint32
maglev_owner(const ChashPlacement *placement, uint64 position)
{
	const MaglevData *data = placement->data;

	return data->table[position % data->size];
}

/* The first n distinct nodes walking the table on from slot 'slot' */
static void
walk_table(const ChashPlacement *placement, uint32 slot, uint32 *out, int n,
		   bool *seen)
{
	const MaglevData *data = placement->data;
	int			found = 0;

	for (uint32 step = 0; step < data->size && found < n; step++)
	{
		uint32		node = data->table[slot];

		if (!seen[node])
		{
			seen[node] = true;
			out[found++] = node;
		}
		if (++slot == data->size)
			slot = 0;
	}
	Assert(found == n);
	for (int i = 0; i < found; i++)
		seen[out[i]] = false;
}

static void
maglev_preference(const ChashPlacement *placement, uint64 position,
				  uint32 *out, int n)
{
	const MaglevData *data = placement->data;
	bool	   *seen = palloc0(sizeof(bool) * placement->spec.nnodes);

	walk_table(placement, (uint32) (position % data->size), out, n, seen);
	pfree(seen);
}

/*
 * Exact: slot s holds the positions p of the 2^bits with p mod M = s,
 * floor(2^bits / M) of them and one more for the first 2^bits mod M slots;
 * each slot's keys go to the first replicas of its walk (picked by zones
 * if asked)
 */
static void
maglev_ownership(const ChashPlacement *placement, int replicas,
				 bool distinct_zones, double *owned)
{
	const MaglevData *data = placement->data;
	int			bits = placement->spec.key_hash->bits;
	uint64		max = bits == 64 ? PG_UINT64_MAX : (UINT64CONST(1) << bits) - 1;
	uint64		per = max / data->size;
	uint64		extra = max % data->size + 1;
	long double *sums = palloc0(sizeof(long double) * Max(placement->spec.nnodes, 1));
	int			nwalk = distinct_zones ? placement->nactive : replicas;
	uint32	   *walk = palloc(sizeof(uint32) * nwalk);
	uint32	   *picked = palloc(sizeof(uint32) * replicas);
	bool	   *seen = palloc0(sizeof(bool) * Max(placement->spec.nnodes, 1));

	if (extra == data->size)
	{
		per++;
		extra = 0;
	}
	for (uint32 s = 0; s < data->size; s++)
	{
		long double share = ldexpl((long double) per + (s < extra ? 1 : 0), -bits);
		const uint32 *list = walk;

		if ((s & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (replicas == 1)
		{
			sums[data->table[s]] += share;
			continue;
		}
		walk_table(placement, s, walk, nwalk, seen);
		if (distinct_zones)
		{
			chash_zones_pick(placement, walk, nwalk, picked, replicas);
			list = picked;
		}
		for (int r = 0; r < replicas; r++)
			sums[list[r]] += share;
	}
	for (int k = 0; k < placement->spec.nnodes; k++)
		owned[k] = (double) sums[k];
	pfree(seen);
	pfree(picked);
	pfree(walk);
	pfree(sums);
}

const ChashAlgorithm chash_algorithm_maglev = {
	.name = "maglev",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = maglev_prepare,
	.node_points = chash_computed_node_points,
	.description = "Maglev's lookup table of a prime size, filled by each active node's permutation of the slots",
	.node_points_alone = false, /* the table's size bounds the nodes */
	.names_hashed = true,
	.weighted = true,
	.has_table = true,
	.build = maglev_build,
	.owner = maglev_owner,
	.preference = maglev_preference,
	.ownership = maglev_ownership,
};
