/*-------------------------------------------------------------------------
 *
 * info.c
 *	  SQL functions that describe rings and chash itself: a ring's points,
 *	  problem and members, the hash functions, algorithms and profiles, the
 *	  cache's figures.
 *
 * The helpers behind the views and the reports; none is on the routing
 * path (functions/lookup.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

#include "functions/call_ring.h"
#include "metadata/cache.h"
#include "metadata/shared.h"
#include "placement/profile.h"

/*
 * chash_points(ring): every point in ring order, with its node and the name
 * of its virtual node.  Built by the same code as the cached ring.
 */
PG_FUNCTION_INFO_V1(chash_points);

Datum
chash_points(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const ChashPlacement *ring = chash_call_ring(fcinfo);
	const ChashRingSpec *spec = &ring->spec;
	ChashPoint *points;
	uint32		npoints;
	StringInfoData label;

	InitMaterializedSRF(fcinfo, 0);
	if (ring->kind != CHASH_PLACEMENT_POINTS)
		return (Datum) 0;		/* computed placements have no points */

	points = chash_ring_build_points(spec, &npoints);
	initStringInfo(&label);
	for (uint32 j = 0; j < npoints; j++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		/* up to CHASH_MAX_RING_POINTS rows: let the caller cancel */
		if ((j & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		resetStringInfo(&label);
		spec->algorithm->point_label(spec, points[j].node, points[j].vnode,
									 &label);
		values[0] = Int64GetDatum(chash_position_to_int64(spec->key_hash,
															   points[j].position));
		values[1] = PointerGetDatum(chash_node_text(ring, points[j].node));
		values[2] = PointerGetDatum(cstring_to_text_with_len(label.data,
															 label.len));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(DatumGetPointer(values[1]));
		pfree(DatumGetPointer(values[2]));
	}
	pfree(points);
	return (Datum) 0;
}

/*
 * chash.ring_node_points(ring): each node's number of points, for the
 * views, counted from the configuration without building the ring (NULL
 * for a placement without points); no rows for a ring that cannot be
 * built (chash.ring_problem says why), so that one bad ring does not make
 * the views fail
 */
PG_FUNCTION_INFO_V1(chash_ring_node_points);

Datum
chash_ring_node_points(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = PG_GETARG_TEXT_PP(0);
	char	   *problem;
	int64	   *node_points;
	const ChashRingSpec *spec;

	InitMaterializedSRF(fcinfo, 0);
	spec = chash_cache_check_ring(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
								  &node_points, &problem);
	if (spec == NULL)
		return (Datum) 0;
	for (int k = 0; k < spec->nnodes; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(cstring_to_text_with_len(spec->nodes[k].name,
															 spec->nodes[k].name_len));
		values[1] = Int32GetDatum(node_points ? (int32) node_points[k] : 0);
		nulls[1] = node_points == NULL;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * chash.node_points(ring, node): one node's number of points, for the view
 * chash.nodes: the same figure as chash.ring_node_points, looked up instead
 * of joined.  A join of the nodes to each ring's points is quadratic when
 * the planner rescans the function for every node (a ring of 65,537 nodes
 * read its catalog 65,537 times); here each ring is counted once a query,
 * kept in the call's own memory, and each node found by a binary search.
 */
typedef struct NodePoints
{
	const char *name;
	int			len;
	int32		points;
} NodePoints;

typedef struct RingNodePoints
{
	char		key[NAMEDATALEN];	/* the ring's name: the hash key */
	bool		counted;		/* a ring of points that could be built */
	int			nnodes;
	NodePoints *nodes;			/* sorted by name */
} RingNodePoints;

static int
node_points_cmp(const void *a, const void *b)
{
	const NodePoints *x = a;
	const NodePoints *y = b;
	int			c = memcmp(x->name, y->name, Min(x->len, y->len));

	return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static RingNodePoints *
ring_node_points_counted(FunctionCallInfo fcinfo, text *ring)
{
	HTAB	   *rings = (HTAB *) fcinfo->flinfo->fn_extra;
	char		key[NAMEDATALEN] = {0};
	RingNodePoints *entry;
	bool		found;
	const ChashRingSpec *spec;
	int64	   *node_points;
	char	   *problem;

	memcpy(key, VARDATA_ANY(ring), VARSIZE_ANY_EXHDR(ring));
	if (rings == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(RingNodePoints);
		ctl.hcxt = fcinfo->flinfo->fn_mcxt;
		rings = hash_create("chash node points", 8, &ctl,
							HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
		fcinfo->flinfo->fn_extra = rings;
	}
	entry = hash_search(rings, key, HASH_FIND, NULL);
	if (entry != NULL)
		return entry;

	spec = chash_cache_check_ring(VARDATA_ANY(ring), VARSIZE_ANY_EXHDR(ring),
								  &node_points, &problem);
	/* (entered only now: an error above leaves no half-made entry) */
	entry = hash_search(rings, key, HASH_ENTER, &found);
	entry->counted = spec != NULL && node_points != NULL;
	entry->nnodes = entry->counted ? spec->nnodes : 0;
	entry->nodes = NULL;
	if (entry->counted && spec->nnodes > 0)
	{
		entry->nodes = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
										  sizeof(NodePoints) * spec->nnodes);
		for (int k = 0; k < spec->nnodes; k++)
		{
			int			len = spec->nodes[k].name_len;
			char	   *name = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len + 1);

			memcpy(name, spec->nodes[k].name, len);
			name[len] = '\0';
			entry->nodes[k].name = name;
			entry->nodes[k].len = len;
			entry->nodes[k].points = (int32) node_points[k];
		}
		qsort(entry->nodes, spec->nnodes, sizeof(NodePoints), node_points_cmp);
	}
	return entry;
}

PG_FUNCTION_INFO_V1(chash_node_points);

Datum
chash_node_points(PG_FUNCTION_ARGS)
{
	text	   *ring = PG_GETARG_TEXT_PP(0);
	text	   *node = PG_GETARG_TEXT_PP(1);
	RingNodePoints *entry;
	NodePoints	wanted;
	NodePoints *hit;

	/* a name no ring can have (the catalog checks 1 to 63 bytes) */
	if (VARSIZE_ANY_EXHDR(ring) < 1 || VARSIZE_ANY_EXHDR(ring) >= NAMEDATALEN)
		PG_RETURN_NULL();
	entry = ring_node_points_counted(fcinfo, ring);
	if (!entry->counted)
		PG_RETURN_NULL();
	wanted.name = VARDATA_ANY(node);
	wanted.len = VARSIZE_ANY_EXHDR(node);
	hit = bsearch(&wanted, entry->nodes, entry->nnodes, sizeof(NodePoints),
				  node_points_cmp);
	if (hit == NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT32(hit->points);
}

/*
 * chash.ring_problem(ring): why the ring cannot be built (the error its
 * lookups would raise), NULL if it can; from its configuration, without
 * building it
 */
PG_FUNCTION_INFO_V1(chash_ring_problem);

Datum
chash_ring_problem(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	char	   *problem;
	int64	   *node_points;

	if (chash_cache_check_ring(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
							   &node_points, &problem) != NULL || problem == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}

/*
 * chash.placement_members(ring): the members of a computed placement (the
 * active nodes in the order owners are numbered) and their numbers from 0;
 * no rows for rings of points
 */
PG_FUNCTION_INFO_V1(chash_placement_members);

Datum
chash_placement_members(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = PG_GETARG_TEXT_PP(0);
	uint64		generation;
	const ChashPlacement *placement;

	placement = chash_cache_get_ring(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
									 GetActiveSnapshot(), &generation);
	InitMaterializedSRF(fcinfo, 0);
	if (placement->kind == CHASH_PLACEMENT_POINTS)
		return (Datum) 0;
	for (int m = 0; m < placement->nactive; m++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(chash_node_text(placement, placement->members[m]));
		values[1] = Int32GetDatum(m);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* chash_hash_functions(): the hash functions chash knows */
PG_FUNCTION_INFO_V1(chash_hash_functions);

Datum
chash_hash_functions(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < chash_hash_count(); i++)
	{
		const ChashHashFunction *hash = chash_hash_at(i);
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(hash->name);
		values[1] = Int32GetDatum(hash->bits);
		values[2] = CStringGetTextDatum(hash->description);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * chash_profiles(): each profile's system, its settings as
 * chash_ring_create's arguments, those that may be chosen with it, how to
 * name the nodes, and the software it was checked against
 */
PG_FUNCTION_INFO_V1(chash_profiles);

Datum
chash_profiles(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < chash_profile_count(); i++)
	{
		const ChashProfile *profile = chash_profile_at(i);
		const char *names[16];
		Datum		settable[16];
		int			n = chash_profile_settable(profile, names);
		StringInfoData settings;
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		initStringInfo(&settings);
		chash_profile_settings(profile, &settings);
		for (int k = 0; k < n; k++)
			settable[k] = CStringGetTextDatum(names[k]);
		values[0] = CStringGetTextDatum(profile->name);
		values[1] = CStringGetTextDatum(profile->system);
		values[2] = CStringGetTextDatum(settings.data);
		values[3] = PointerGetDatum(construct_array(settable, n, TEXTOID, -1,
													false, TYPALIGN_INT));
		values[4] = CStringGetTextDatum(profile->nodes);
		values[5] = CStringGetTextDatum(profile->checked_against);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(settings.data);
	}
	return (Datum) 0;
}

/* chash.profile_is_known(name), for constraints */
PG_FUNCTION_INFO_V1(chash_profile_is_known);

Datum
chash_profile_is_known(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	for (int i = 0; i < chash_profile_count(); i++)
	{
		if (strcmp(chash_profile_at(i)->name, name) == 0)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

/* chash.hash_bits(name): 32 or 64, or NULL if no such hash (constraints) */
PG_FUNCTION_INFO_V1(chash_hash_bits);

Datum
chash_hash_bits(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const ChashHashFunction *hash = chash_hash_find(name);

	if (hash == NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT32(hash->bits);
}

/* chash.algorithm_is_known(name), for constraints */
PG_FUNCTION_INFO_V1(chash_algorithm_is_known);

Datum
chash_algorithm_is_known(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	PG_RETURN_BOOL(chash_algorithm_find(name) != NULL);
}

/* chash.cache_stats(): this backend's cached rings and builds */
PG_FUNCTION_INFO_V1(chash_cache_stats_sql);

Datum
chash_cache_stats_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[10];
	bool		nulls[10] = {false, false, false, false, false, false, false,
	false, false, false};
	ChashCacheStats stats;

	InitMaterializedSRF(fcinfo, 0);
	chash_cache_stats(&stats);
	values[0] = Int32GetDatum(stats.rings);
	values[1] = Int32GetDatum(stats.cached);
	values[2] = Int64GetDatum(stats.builds);
	values[3] = Int64GetDatum(stats.version_reads);
	values[4] = Int64GetDatum(stats.config_reads);
	values[5] = Int64GetDatum(stats.full_checks);
	values[6] = Int64GetDatum(stats.delta_checks);
	values[7] = Int64GetDatum(stats.memory);
	values[8] = Int64GetDatum(stats.evictions);
	values[9] = Int64GetDatum(stats.call_memory);
	if (rsinfo->setDesc->natts == 4)
	{
		/* the 1.0 and 1.1 catalogs: rings, bound_rings, latest and bound builds */
		values[1] = Int32GetDatum(stats.cached - stats.rings);
		values[3] = Int64GetDatum(0);
	}
	else if (rsinfo->setDesc->natts != 7 && rsinfo->setDesc->natts != 9 &&
			 rsinfo->setDesc->natts != 10)
		elog(ERROR, "chash.cache_stats() returns 7, 9 or 10 columns");
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}

/* chash.shared_rings(): the rings of this database in shared memory */
PG_FUNCTION_INFO_V1(chash_shared_rings_sql);

Datum
chash_shared_rings_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ChashSharedRingInfo *rings;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	n = chash_shared_rings_list(&rings);
	for (int i = 0; i < n; i++)
	{
		ChashSharedRingInfo *r = &rings[i];
		Datum		values[9];
		bool		nulls[9] = {false, false, false, false, false, false,
		false, false, false};

		values[0] = CStringGetTextDatum(r->name);
		values[1] = Int64GetDatum(r->version);
		nulls[1] = r->version == 0;
		values[2] = CStringGetTextDatum(r->ready ? "shared" : "building");
		values[3] = Int64GetDatum(r->bytes);
		values[4] = Int32GetDatum(r->backends);
		values[5] = Int64GetDatum(r->builds);
		values[6] = Int64GetDatum(r->maps);
		values[7] = TimestampTzGetDatum(r->built_at);
		nulls[7] = !r->ready;
		values[8] = Int32GetDatum(r->builder);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* chash.shared_ring_stats(): rings shared, mapped, and built alone, why */
PG_FUNCTION_INFO_V1(chash_shared_ring_stats_sql);

static void
shared_stats_row(ReturnSetInfo *rsinfo, const char *counter, int64 backend,
				 int64 server, const char *detail)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	values[0] = CStringGetTextDatum(counter);
	values[1] = Int64GetDatum(backend);
	values[2] = Int64GetDatum(server);
	nulls[2] = server < 0;
	values[3] = detail ? CStringGetTextDatum(detail) : (Datum) 0;
	nulls[3] = detail == NULL;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
chash_shared_ring_stats_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ChashSharedCounts c;

	InitMaterializedSRF(fcinfo, 0);
	chash_shared_counts(&c);
	shared_stats_row(rsinfo, "built", c.backend_builds, c.server_builds, NULL);
	shared_stats_row(rsinfo, "mapped", c.backend_maps, c.server_maps, NULL);
	shared_stats_row(rsinfo, "bytes", c.backend_bytes, c.server_bytes, NULL);
	for (int i = 0; i < CHASH_SHARED_NFALLBACKS; i++)
	{
		const char *detail = NULL;

		if (i == CHASH_SHARED_UNAVAILABLE && !c.available)
			detail = c.unavailable;
		else if (i == CHASH_SHARED_ERROR)
			detail = c.last_error;
		shared_stats_row(rsinfo,
						 psprintf("fallback: %s", chash_shared_fallback_names[i]),
						 c.backend_fallbacks[i], c.server_fallbacks[i], detail);
	}
	return (Datum) 0;
}
