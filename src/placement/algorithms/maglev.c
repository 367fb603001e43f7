/*-------------------------------------------------------------------------
 *
 * maglev.c
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
 * The default M is 65537.  The preference order and ownership are a
 * table's (placement/slot_table.c).
 *
 * Variant "envoy": Envoy's maglev load balancer (maglev_lb.cc), which
 * differs in three ways.  Its hosts are sorted by their hash key (here the
 * active nodes by name, in byte order); offset = XXH64(name, seed 0) mod M
 * and skip = XXH64(name, seed 1) mod (M - 1) + 1; and weights are
 * normalised (w = weight / sum, in double) and fill in rounds r = 1, 2, ...:
 * a host takes its next slot in round r if r * w is at least its target,
 * which then grows by the largest w, so that every host takes a slot in
 * the first round.  The table needs no more slots than hosts.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "placement/placement.h"

/* slots a member at least, as the paper advises (M > 100 N) */
#define MAGLEV_SLOTS_PER_MEMBER 100

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

/* variant_data: non-NULL for "envoy" */
static const char maglev_envoy[] = "envoy";

static void
maglev_prepare(ChashRingSpec *spec)
{
	uint32		m = chash_table_size(spec);
	const char *variant = spec->variant;
	bool		envoy = variant != NULL && strcmp(variant, maglev_envoy) == 0;

	if (variant != NULL && !envoy && strcmp(variant, "eisenbud") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown maglev variant \"%s\"",
						chash_message_name(variant, (int) strlen(variant))),
				 errhint("Valid maglev variants are \"eisenbud\" (the paper's, the default) and \"envoy\" (Envoy's maglev load balancer).")));
	spec->variant = NULL;
	chash_computed_prepare(spec);
	spec->variant = variant;
	spec->variant_data = envoy ? maglev_envoy : NULL;
	chash_table_check_size(spec);
	if (envoy && strcmp(spec->hash->name, "xxh64") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("maglev rings of variant \"envoy\" place their nodes with \"xxh64\", not \"%s\"",
						spec->hash->name),
				 errdetail("Envoy hashes a host's key with XXH64, seeds 0 and 1."),
				 errhint("Set hash to 'xxh64'.")));
	if (!is_prime(m))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table_size of ring \"%s\" must be a prime number", spec->name),
				 errdetail("It is %u.", m),
				 errhint("Maglev's permutations cover every slot only for a prime table size, such as 65537 or 655373.")));
	if (envoy && (uint64) m < (uint64) spec->nactive)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ring \"%s\" has more active nodes than its table has slots", spec->name),
				 errdetail("Its %d active nodes need a table of at least as many slots; table_size is %u.",
						   spec->nactive, m),
				 errhint("Create the ring with a larger prime table_size.")));
	if (!envoy && (uint64) m <= (uint64) MAGLEV_SLOTS_PER_MEMBER * spec->nactive)
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

/*
 * Envoy's table: the active nodes by name (their order in the spec), each
 * taking a slot in a round where round * w reaches its target
 */
static void
envoy_fill(const ChashRingSpec *spec, ChashSlotTable *table)
{
	uint32		m = table->size;
	int		   *host = palloc(sizeof(int) * Max(spec->nactive, 1));
	uint64	   *offset = palloc(sizeof(uint64) * Max(spec->nactive, 1));
	uint64	   *skip = palloc(sizeof(uint64) * Max(spec->nactive, 1));
	uint64	   *next = palloc0(sizeof(uint64) * Max(spec->nactive, 1));
	double	   *w = palloc(sizeof(double) * Max(spec->nactive, 1));
	double	   *target = palloc0(sizeof(double) * Max(spec->nactive, 1));
	double		sum = 0;
	double		max_w = 0;
	int			n = 0;
	uint32		filled = 0;

	for (int k = 0; k < spec->nnodes; k++)
	{
		const ChashNodeSpec *node = &spec->nodes[k];

		if (!node->active)
			continue;
		host[n] = k;
		offset[n] = chash_xxh64_seeded(node->name_utf8, node->name_utf8_len, 0) % m;
		skip[n] = chash_xxh64_seeded(node->name_utf8, node->name_utf8_len, 1) % (m - 1) + 1;
		sum += node->weight;
		n++;
	}
	for (int i = 0; i < n; i++)
	{
		w[i] = spec->nodes[host[i]].weight / sum;
		max_w = Max(max_w, w[i]);
	}
	for (uint32 round = 1; filled < m; round++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < n && filled < m; i++)
		{
			uint32		slot;

			if ((double) round * w[i] < target[i])
				continue;
			target[i] += max_w;
			do
			{
				slot = (uint32) ((offset[i] + skip[i] * next[i]) % m);
				next[i]++;
			} while (table->slots[slot] != CHASH_SLOT_UNOWNED);
			table->slots[slot] = host[i];
			filled++;
		}
	}
	pfree(host);
	pfree(offset);
	pfree(skip);
	pfree(next);
	pfree(w);
	pfree(target);
}

static void
maglev_build(ChashPlacement *placement)
{
	const ChashRingSpec *spec = &placement->spec;
	ChashSlotTable *table = chash_table_new(spec);
	int			n = placement->nactive;
	uint32		m = table->size;
	uint32	   *offset = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *skip = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *next = palloc0(sizeof(uint32) * Max(n, 1));	/* tries made */
	double	   *credit = palloc0(sizeof(double) * Max(n, 1));
	double		largest = 0;
	uint32		filled = 0;

	placement->data = table;
	if (n == 0)
		return;
	if (spec->variant_data != NULL)
	{
		envoy_fill(spec, table);
		chash_table_count_owners(table, spec->nnodes);
		pfree(offset);
		pfree(skip);
		pfree(next);
		pfree(credit);
		return;
	}
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
				} while (table->slots[slot] != CHASH_SLOT_UNOWNED);
				table->slots[slot] = placement->members[i];
				filled++;
				credit[i] -= 1;
			}
		}
	}
	chash_table_count_owners(table, spec->nnodes);
	pfree(offset);
	pfree(skip);
	pfree(next);
	pfree(credit);
}

static uint32
maglev_unit(const ChashPlacement *placement, uint64 position)
{
	const ChashSlotTable *table = placement->data;

	return (uint32) (position % table->size);
}

static uint32
maglev_owner(const ChashPlacement *placement, uint64 position)
{
	const ChashSlotTable *table = placement->data;

	return table->slots[position % table->size];
}

const ChashAlgorithm chash_algorithm_maglev = {
	.name = "maglev",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = maglev_prepare,
	.node_points = chash_computed_node_points,
	.description = "Maglev's lookup table of a prime size, filled by each active node's permutation of the slots (variant envoy: Envoy's maglev)",
	.node_points_alone = false, /* the table's size bounds the nodes */
	.names_hashed = true,
	.weighted = true,
	.has_table = true,
	.default_table_size = 65537,
	.build = maglev_build,
	.owner = maglev_owner,
	.preference = chash_table_preference,
	.ownership = chash_table_ownership,
	.unit = maglev_unit,
};
