/*-------------------------------------------------------------------------
 *
 * elasticsearch.c
 *	  The "elasticsearch" algorithm: Elasticsearch's document routing.
 *
 * IndexRouting (7.x, 8.x) puts a document in shard floorMod(h, R) / (R /
 * n): h is the routing value's (or the _id's) hash as a signed 32-bit int
 * (key hash es_murmur3), n the number of shards and R the routing shards,
 * index.number_of_routing_shards (table_size), which splits and shrinks
 * keep.  An index created by 7.0 or later has R = n << max(1, 10 -
 * ceil(log2 n)) unless it was given one.  The shards are the active nodes
 * in ordinal order, shard 0 first.  Each of the R routing slots belongs to
 * one shard, which chash_slot_ranges() shows: a split or shrink of an
 * index is a change of n that keeps R, and chash_moved_slots() lists the
 * slots that change shard.
 *
 * The preference order is the owner and then the shards after it,
 * wrapping, as for modulo.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "placement/placement.h"

#define ES_MAX_ROUTING_SHARDS	CHASH_MAX_RING_POINTS

/* R: the ring's table_size, or what Elasticsearch 7.0 on gives n shards */
static int64
routing_shards(const ChashRingSpec *spec, int nactive)
{
	int			log2n = 0;

	if (spec->table_size > 0)
		return spec->table_size;
	while (((int64) 1 << log2n) < nactive)
		log2n++;
	return (int64) nactive << Max(1, 10 - log2n);
}

static void
es_prepare(ChashRingSpec *spec)
{
	int64		r;

	chash_computed_prepare(spec);
	if (spec->nactive == 0)
		return;
	r = routing_shards(spec, spec->nactive);
	if (r > ES_MAX_ROUTING_SHARDS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ring \"%s\" has too many routing shards", spec->name),
				 errdetail("It has %lld; the most is %d.", (long long) r,
						   ES_MAX_ROUTING_SHARDS)));
	if (r % spec->nactive != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table_size of ring \"%s\" is not a multiple of its %d active nodes",
						spec->name, spec->nactive),
				 errdetail("table_size is the index's number_of_routing_shards, %lld, and the nodes are its shards; Elasticsearch takes a multiple of number_of_shards.",
						   (long long) r)));
}

/* The table of routing slots: slot s is shard s / (R / n)'s */
static void
es_build(ChashPlacement *placement)
{
	ChashSlotTable *table = palloc(sizeof(ChashSlotTable));
	uint32		n = (uint32) placement->nactive;
	uint32		r;
	uint32		factor;

	table->size = 0;
	table->slots = NULL;
	table->nowners = n;
	placement->data = table;
	if (n == 0)
		return;
	r = (uint32) routing_shards(&placement->spec, (int) n);
	factor = r / n;
	table->size = r;
	table->slots = MemoryContextAllocHuge(CurrentMemoryContext,
										  sizeof(uint32) * r);
	for (uint32 s = 0; s < r; s++)
		table->slots[s] = placement->members[s / factor];
}

/* Java's Math.floorMod(h, R) of the position as a signed int */
static inline uint32
routing_slot(const ChashSlotTable *table, uint64 position)
{
	int64		h = (int32) (uint32) position;
	int64		m = h % (int64) table->size;

	return (uint32) (m < 0 ? m + table->size : m);
}

static uint32
es_unit(const ChashPlacement *placement, uint64 position)
{
	return routing_slot(placement->data, position);
}

static uint32
es_owner(const ChashPlacement *placement, uint64 position)
{
	const ChashSlotTable *table = placement->data;

	return table->slots[routing_slot(table, position)];
}

static void
es_preference(const ChashPlacement *placement, uint64 position,
			  uint32 *out, int n)
{
	const ChashSlotTable *table = placement->data;
	uint32		factor = table->size / (uint32) placement->nactive;

	chash_members_from(placement, routing_slot(table, position) / factor,
					   out, n);
}

/*
 * Exact: of the 2^32 values of h, from -2^31, residue c of R comes
 * floor(2^32 / R) times, and once more for the 2^32 mod R residues from
 * floorMod(-2^31, R) on
 */
static void
es_ownership(const ChashPlacement *placement, int replicas,
			 bool distinct_zones, double *owned)
{
	const ChashSlotTable *table = placement->data;
	uint32		n = (uint32) placement->nactive;
	uint64		r = table->size;
	uint64		per = (UINT64CONST(1) << 32) / r;
	uint64		extra = (UINT64CONST(1) << 32) % r;
	uint64		first = (uint64) ((-(INT64CONST(1) << 31)) % (int64) r + (int64) r) % r;
	uint64		factor = r / n;
	long double *share = palloc0(sizeof(long double) * Max(n, 1));

	for (uint64 c = 0; c < r; c++)
		share[c / factor] += (long double) per + ((c + r - first) % r < extra ? 1 : 0);
	for (uint32 m = 0; m < n; m++)
		share[m] = ldexpl(share[m], -32);
	chash_rotation_ownership(placement, replicas, distinct_zones, share, owned);
	pfree(share);
}

/*
 * A partitioned index's routing (index.routing_partition_size P > 1): a
 * document goes to floorMod(h(routing) + floorMod(h(_id), P), R) / (R / n),
 * the addition wrapping as Java's int, and a search with a routing value
 * visits the shards of h(routing) + i for i < P.  As a position (the 32
 * bits es_owner reads as a signed int): h(routing) plus offset.
 */
uint64
chash_es_partition_position(uint64 routing_position, uint64 id_position,
							int32 partition_size)
{
	int64		h = (int32) (uint32) id_position;
	int64		offset = h % partition_size;

	if (offset < 0)
		offset += partition_size;
	return (uint32) ((uint32) routing_position + (uint32) offset);
}

/* An error unless P is a routing_partition_size the ring's index can have */
void
chash_es_check_partition_size(const ChashPlacement *placement,
							  int32 partition_size)
{
	const ChashSlotTable *table = placement->data;

	if (partition_size < 1 ||
		(partition_size > 1 && (uint32) partition_size >= table->size))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("routing_partition_size must be 1, or a positive number less than the routing shards of ring \"%s\"",
						placement->spec.name),
				 errdetail("routing_partition_size is %d; the ring has %u routing shards.",
						   partition_size, table->size)));
}

const ChashAlgorithm chash_algorithm_elasticsearch = {
	.name = "elasticsearch",
	.kind = CHASH_PLACEMENT_COMPUTED,
	.default_hash = "xxh3_64",
	.default_vnode_name = "{node}#{i}",
	.prepare = es_prepare,
	.node_points = chash_computed_node_points,
	.description = "Elasticsearch's routing: shard floorMod(h, R) / (R / n) of the active nodes in ordinal order, R the routing shards (table_size)",
	.node_points_alone = false, /* R and the factor depend on n */
	.has_table = true,
	.build = es_build,
	.owner = es_owner,
	.preference = es_preference,
	.ownership = es_ownership,
	.unit = es_unit,
};
