/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  SQL functions that plan a change of ring: the ranges of positions
 *	  whose owner changes, and the checks every plan makes.
 *
 * The functions that read tables (chash_moved_keys, chash_move_summary
 * over a relation, chash_migration_sql) are PL/pgSQL in the install
 * script, on top of these and of chash_lookup.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "metadata/cache.h"

/* Two rings of one plan, valid until the next invalidation */
typedef struct PlanRings
{
	const ChashPlacement *from;
	const ChashPlacement *to;
} PlanRings;

/* Whether two rings find the same part of each key to hash */
static bool
same_hash_tag(const ChashRingSpec *a, const ChashRingSpec *b)
{
	if (a->hash_tag == NULL || b->hash_tag == NULL)
		return a->hash_tag == b->hash_tag;
	return strcmp(a->hash_tag, b->hash_tag) == 0;
}

/* Whether two placements can be compared range by range, and why not */
static bool
plan_by_ranges(const PlanRings *rings, const ChashPlacement **no_points)
{
	*no_points = rings->from->kind != CHASH_PLACEMENT_POINTS ? rings->from :
		rings->to->kind != CHASH_PLACEMENT_POINTS ? rings->to : NULL;
	return *no_points == NULL &&
		rings->from->spec.key_hash == rings->to->spec.key_hash &&
		same_hash_tag(&rings->from->spec, &rings->to->spec);
}

/*
 * The rings of arguments 0 and 1, as the active snapshot sees them: both
 * exist and are not the same ring.  With ranges, they must be rings of
 * points that hash keys alike: plans key by key compare any two.
 */
static PlanRings
plan_rings(FunctionCallInfo fcinfo, bool ranges)
{
	const ChashPlacement *no_points;
	text	   *from_name;
	text	   *to_name;
	PlanRings	rings;
	uint64		generation_from;
	uint64		generation_to;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the rings of a plan must not be null")));
	from_name = PG_GETARG_TEXT_PP(0);
	to_name = PG_GETARG_TEXT_PP(1);
	if (VARSIZE_ANY_EXHDR(from_name) == VARSIZE_ANY_EXHDR(to_name) &&
		memcmp(VARDATA_ANY(from_name), VARDATA_ANY(to_name),
			   VARSIZE_ANY_EXHDR(from_name)) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a plan compares two different rings"),
				 errdetail("Both rings are \"%s\".",
						   chash_message_name(VARDATA_ANY(from_name),
											  VARSIZE_ANY_EXHDR(from_name))),
				 errhint("Copy the ring with chash_ring_copy(), change the copy, and compare the two.")));

	/* fetching the second ring may invalidate the first: until both hold */
	do
	{
		rings.from = chash_cache_get_ring(VARDATA_ANY(from_name),
										  VARSIZE_ANY_EXHDR(from_name),
										  GetActiveSnapshot(), &generation_from);
		rings.to = chash_cache_get_ring(VARDATA_ANY(to_name),
										VARSIZE_ANY_EXHDR(to_name),
										GetActiveSnapshot(), &generation_to);
	} while (generation_from != chash_cache_generation ||
			 generation_to != chash_cache_generation);

	if (!ranges || plan_by_ranges(&rings, &no_points))
		return rings;
	if (no_points != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("rings \"%s\" and \"%s\" cannot be compared range by range",
						rings.from->spec.name, rings.to->spec.name),
				 errdetail("Ring \"%s\" uses algorithm \"%s\", which places keys without points.",
						   no_points->spec.name, no_points->spec.algorithm->name),
				 rings.from->spec.algorithm->has_table &&
				 rings.to->spec.algorithm->has_table ?
				 errhint("Compare their slots with chash_moved_slots(), or their keys with chash_moved_keys() or chash_move_summary() with a relation.") :
				 errhint("Compare them key by key: chash_moved_keys(), or chash_move_summary() with a relation.")));
	if (rings.from->spec.key_hash != rings.to->spec.key_hash)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rings \"%s\" and \"%s\" hash keys differently",
						rings.from->spec.name, rings.to->spec.name),
				 errdetail("Ring \"%s\" hashes keys with \"%s\", ring \"%s\" with \"%s\": their positions cannot be compared.",
						   rings.from->spec.name, rings.from->spec.key_hash->name,
						   rings.to->spec.name, rings.to->spec.key_hash->name)));
	if (!same_hash_tag(&rings.from->spec, &rings.to->spec))
	{
		const ChashRingSpec *tagged = rings.from->spec.hash_tag ?
		&rings.from->spec : &rings.to->spec;
		const ChashRingSpec *other = tagged == &rings.from->spec ?
		&rings.to->spec : &rings.from->spec;

		if (other->hash_tag == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rings \"%s\" and \"%s\" hash keys differently",
							rings.from->spec.name, rings.to->spec.name),
					 errdetail("Ring \"%s\" hashes the tags of keys (\"%s\"), ring \"%s\" whole keys: their positions cannot be compared.",
							   tagged->name, tagged->hash_tag, other->name)));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rings \"%s\" and \"%s\" hash keys differently",
						rings.from->spec.name, rings.to->spec.name),
				 errdetail("Ring \"%s\" hashes the tags \"%s\" of keys, ring \"%s\" the tags \"%s\": their positions cannot be compared.",
						   rings.from->spec.name, rings.from->spec.hash_tag,
						   rings.to->spec.name, rings.to->spec.hash_tag)));
	}
	return rings;
}

static void
check_has_points(const ChashPlacement *ring)
{
	if (ring->npoints == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ring \"%s\" has no active nodes", ring->spec.name),
				 errhint("A plan needs nodes that own keys in both rings.")));
}

/*
 * chash.plan_key_hash(from_ring, to_ring): the checks of every plan; the
 * name of the rings' key hash
 */
PG_FUNCTION_INFO_V1(chash_plan_key_hash);

Datum
chash_plan_key_hash(PG_FUNCTION_ARGS)
{
	PlanRings	rings = plan_rings(fcinfo, true);

	PG_RETURN_TEXT_P(cstring_to_text(rings.from->spec.key_hash->name));
}

/*
 * chash.plan_kind(from_ring, to_ring): how a plan between the rings
 * chooses its keys, after the checks of every plan: 'ranges' of positions
 * (rings of points hashing keys alike), or 'keys', one lookup in each ring
 */
PG_FUNCTION_INFO_V1(chash_plan_kind);

Datum
chash_plan_kind(PG_FUNCTION_ARGS)
{
	PlanRings	rings = plan_rings(fcinfo, false);
	const ChashPlacement *no_points;

	/*
	 * Plans by ranges choose rows by the hash of the whole key's text
	 * (chash_hash(), MySQL's CRC32()): tagged rings, and rings hashing the
	 * binary form of integer keys, are planned key by key
	 */
	PG_RETURN_TEXT_P(cstring_to_text(plan_by_ranges(&rings, &no_points) &&
									 rings.from->spec.hash_tag == NULL &&
									 rings.to->spec.hash_tag == NULL &&
									 !rings.from->spec.key_hash->binary_keys ?
									 "ranges" : "keys"));
}

/* What the sweep writes ranges into */
typedef struct RangeOutput
{
	ReturnSetInfo *rsinfo;
	PlanRings	rings;
	int32	   *to_of_from;		/* the to ring's index of each from node, or -1 */
	bool		moved_only;
	double		space;			/* positions in the hash space */
	/* the range not yet written: the next may continue it */
	bool		pending;
	int64		pending_lo;
	int64		pending_hi;
	uint32		pending_from;
	uint32		pending_to;
} RangeOutput;

/* The index in spec of the node named as n, or -1 (nodes are sorted by name) */
static int32
find_node(const ChashRingSpec *spec, const ChashNodeSpec *n)
{
	int32		lo = 0;
	int32		hi = spec->nnodes - 1;

	while (lo <= hi)
	{
		int32		mid = lo + (hi - lo) / 2;
		int			cmp = chash_node_spec_cmp(&spec->nodes[mid], n);

		if (cmp == 0)
			return mid;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void
flush_range(RangeOutput *out)
{
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (!out->pending)
		return;
	values[0] = Int64GetDatum(out->pending_lo);
	values[1] = Int64GetDatum(out->pending_hi);
	values[2] = PointerGetDatum(chash_node_text(out->rings.from, out->pending_from));
	values[3] = PointerGetDatum(chash_node_text(out->rings.to, out->pending_to));
	values[4] = Float8GetDatum(((double) (uint64) (out->pending_hi - out->pending_lo) + 1.0) /
							   out->space);
	tuplestore_putvalues(out->rsinfo->setResult, out->rsinfo->setDesc,
						 values, nulls);
	pfree(DatumGetPointer(values[2]));
	pfree(DatumGetPointer(values[3]));
	out->pending = false;
}

/*
 * Write a range, in chash_position values.  The sweeps never give two
 * neighbouring ranges of one pair of owners, but 64-bit positions are
 * swept in two halves, and in signed order -1 and 0 are neighbours.
 */
static void
emit_range(void *arg, uint64 lo, uint64 hi, uint32 owner_from, uint32 owner_to)
{
	RangeOutput *out = (RangeOutput *) arg;
	const ChashHashFunction *key_hash = out->rings.from->spec.key_hash;
	int64		slo = chash_position_to_int64(key_hash, lo);
	int64		shi = chash_position_to_int64(key_hash, hi);

	if (out->moved_only && out->to_of_from[owner_from] == (int32) owner_to)
		return;
	if (out->pending && out->pending_from == owner_from &&
		out->pending_to == owner_to && out->pending_hi != PG_INT64_MAX &&
		out->pending_hi + 1 == slo)
	{
		out->pending_hi = shi;
		return;
	}
	flush_range(out);
	out->pending = true;
	out->pending_lo = slo;
	out->pending_hi = shi;
	out->pending_from = owner_from;
	out->pending_to = owner_to;
}

/*
 * The ranges of positions on which both rings' owners are constant, or only
 * those where they differ, in chash_position order: 64-bit positions are
 * signed, so the upper half of the unsigned space comes first, as negative
 * values (except where the key hash's order is signed: SQL's order is then
 * the ring's).
 */
static void
ranges_of(FunctionCallInfo fcinfo, PlanRings rings, bool moved_only)
{
	RangeOutput out;
	int			bits;
	uint64		max;

	out.rings = rings;
	out.moved_only = moved_only;
	out.pending = false;
	out.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	check_has_points(out.rings.from);
	check_has_points(out.rings.to);
	InitMaterializedSRF(fcinfo, 0);

	out.to_of_from = palloc(sizeof(int32) * out.rings.from->spec.nnodes);
	for (int k = 0; k < out.rings.from->spec.nnodes; k++)
		out.to_of_from[k] = find_node(&out.rings.to->spec,
									  &out.rings.from->spec.nodes[k]);

	bits = out.rings.from->spec.key_hash->bits;
	max = bits == 64 ? PG_UINT64_MAX : ((UINT64CONST(1) << bits) - 1);
	out.space = ldexp(1.0, bits);
	if (bits == 64 && !out.rings.from->spec.key_hash->signed_order)
	{
		uint64		half = CHASH_SIGN_BIT;

		chash_rings_compare(out.rings.from, out.rings.to, half, max, max,
							emit_range, &out);
		chash_rings_compare(out.rings.from, out.rings.to, 0, half - 1, max,
							emit_range, &out);
	}
	else
		chash_rings_compare(out.rings.from, out.rings.to, 0, max, max,
							emit_range, &out);
	flush_range(&out);
	pfree(out.to_of_from);
}

static void
ring_ranges(FunctionCallInfo fcinfo, bool moved_only)
{
	ranges_of(fcinfo, plan_rings(fcinfo, true), moved_only);
}

/*
 * chash.ring_node_ranges(ring): a ring's ranges of positions and their
 * owners (as chash.ring_ranges of the ring against itself), for plans that
 * choose the keys of one node in a client; no rows for placements without
 * points
 */
PG_FUNCTION_INFO_V1(chash_ring_node_ranges);

Datum
chash_ring_node_ranges(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	uint64		generation;
	PlanRings	rings;

	rings.from = chash_cache_get_ring(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
									  GetActiveSnapshot(), &generation);
	rings.to = rings.from;
	if (rings.from->kind != CHASH_PLACEMENT_POINTS)
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	ranges_of(fcinfo, rings, false);
	return (Datum) 0;
}

/* chash_moved_ranges(from_ring, to_ring): the ranges whose owner changes */
PG_FUNCTION_INFO_V1(chash_moved_ranges);

Datum
chash_moved_ranges(PG_FUNCTION_ARGS)
{
	ring_ranges(fcinfo, true);
	return (Datum) 0;
}

/* chash.ring_ranges(from_ring, to_ring): every range, moving or not */
PG_FUNCTION_INFO_V1(chash_ring_ranges);

Datum
chash_ring_ranges(PG_FUNCTION_ARGS)
{
	ring_ranges(fcinfo, false);
	return (Datum) 0;
}
