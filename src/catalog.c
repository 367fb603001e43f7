/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  Reading and changing the catalog tables chash.ring_config and
 *	  chash.node_config, and the trigger that invalidates cached rings.
 *
 * Everything goes through SPI with the caller's rights, so the tables'
 * privileges decide who may read and who may change rings.  Reads use the
 * active snapshot: a ring is what the calling statement sees of the tables.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "chash.h"

static Oid	ring_table_oid = InvalidOid;
static Oid	node_table_oid = InvalidOid;

/* The OID of one of the catalog tables; an error if chash is not installed */
Oid
chash_catalog_relid(const char *table)
{
	Oid		   *cached = strcmp(table, CHASH_RING_TABLE) == 0 ?
		&ring_table_oid : &node_table_oid;

	if (!OidIsValid(*cached))
	{
		Oid			nsp = get_namespace_oid(CHASH_SCHEMA, true);
		Oid			relid = OidIsValid(nsp) ? get_relname_relid(table, nsp) : InvalidOid;

		if (!OidIsValid(relid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation \"%s.%s\" does not exist",
							CHASH_SCHEMA, table),
					 errhint("The chash extension may have been dropped; run CREATE EXTENSION chash.")));
		*cached = relid;
	}
	return *cached;
}

/* Forget the tables' OIDs; they are looked up again on next use */
void
chash_catalog_forget_relids(void)
{
	ring_table_oid = InvalidOid;
	node_table_oid = InvalidOid;
}

/*
 * Whether relid is one of the catalog tables.  While their OIDs are not
 * known (after an invalidation, until the next use), any relation may be.
 */
bool
chash_catalog_is_ours(Oid relid)
{
	if (!OidIsValid(ring_table_oid) || !OidIsValid(node_table_oid))
		return true;
	return relid == ring_table_oid || relid == node_table_oid;
}

/* A string of the catalog as the bytes chash hashes */
static const char *
to_hash_bytes(const char *s, int *len)
{
	return chash_text_bytes(s, strlen(s), len);
}

static int
node_spec_cmp(const void *a, const void *b)
{
	return chash_node_spec_cmp((const ChashNodeSpec *) a,
							   (const ChashNodeSpec *) b);
}

/* Text of column col of the current SPI row, copied into mcxt; NULL if null */
static char *
spi_text(HeapTuple tuple, int col, MemoryContext mcxt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tuple, SPI_tuptable->tupdesc, col, &isnull);

	if (isnull)
		return NULL;
	return MemoryContextStrdup(mcxt, TextDatumGetCString(d));
}

static Datum
spi_value(HeapTuple tuple, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tuple, SPI_tuptable->tupdesc, col, &isnull);

	Assert(!isnull);
	return d;
}

/*
 * Run a query on the catalog with the ring's name as $1: as the active
 * snapshot sees the catalog, or with latest as the latest committed state
 * plus this transaction's own changes.
 */
static void
spi_select_ring(const char *sql, Datum ring, bool latest)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {ring};
	int			ret;

	if (latest)
	{
		SPIPlanPtr	plan = SPI_prepare(sql, 1, argtypes);

		if (plan == NULL)
			elog(ERROR, "could not prepare a query on the chash catalog: %s",
				 SPI_result_code_string(SPI_result));
		/* not read-only: SPI advances the command id to see our changes */
		ret = SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
								   InvalidSnapshot, false, false, 0);
	}
	else
		ret = SPI_execute_with_args(sql, 1, argtypes, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the chash catalog: %s",
			 SPI_result_code_string(ret));
}

/*
 * Read a ring's configuration into the current memory context, as the
 * active snapshot sees it (or the latest state, see spi_select_ring); NULL
 * if there is no such ring.
 */
ChashRingSpec *
chash_catalog_read_ring(const char *ring, bool latest)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Datum		ringdatum;
	ChashRingSpec *spec;
	bool		pushed = false;
	bool		catalog_1_0;

	(void) chash_catalog_relid(CHASH_RING_TABLE);
	(void) chash_catalog_relid(CHASH_NODE_TABLE);

	ringdatum = CStringGetTextDatum(ring);
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * Version 1.0 of the catalog has no ketama_variant, ties nor ordinal:
	 * read it as their defaults, so that routing goes on between installing
	 * this library and ALTER EXTENSION chash UPDATE.
	 */
	catalog_1_0 = get_attnum(chash_catalog_relid(CHASH_RING_TABLE),
							 "ketama_variant") == InvalidAttrNumber;
	spi_select_ring(catalog_1_0 ?
					"SELECT algorithm, hash, coalesce(key_hash, hash),"
					" vnodes, vnode_name, vnode_first, NULL::text, NULL::text"
					" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
					" WHERE ring" CHASH_EQ "$1" :
					"SELECT algorithm, hash, coalesce(key_hash, hash),"
					" vnodes, vnode_name, vnode_first, ketama_variant, ties"
					" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
					" WHERE ring" CHASH_EQ "$1",
					ringdatum, latest);
	if (SPI_processed == 0)
	{
		SPI_finish();
		if (pushed)
			PopActiveSnapshot();
		return NULL;
	}

	spec = MemoryContextAllocZero(callercxt, sizeof(ChashRingSpec));
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		char	   *algorithm = spi_text(row, 1, callercxt);
		char	   *hash = spi_text(row, 2, callercxt);
		char	   *key_hash = spi_text(row, 3, callercxt);

		strlcpy(spec->name, ring, sizeof(spec->name));
		spec->algorithm = chash_algorithm_get(algorithm);
		spec->hash = chash_hash_get(hash);
		spec->key_hash = chash_hash_get(key_hash);
		spec->vnodes = DatumGetInt32(spi_value(row, 4));
		spec->vnode_name = spi_text(row, 5, callercxt);
		spec->vnode_first = DatumGetInt32(spi_value(row, 6));
		spec->variant = spi_text(row, 7, callercxt);
		spec->ties_name = spi_text(row, 8, callercxt);
	}

	spi_select_ring(catalog_1_0 ?
					"SELECT node, weight, coalesce(vnodes, 0),"
					" state" CHASH_EQ "'active', 0::bigint"
					" FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
					" WHERE ring" CHASH_EQ "$1" :
					"SELECT node, weight, coalesce(vnodes, 0),"
					" state" CHASH_EQ "'active', coalesce(ordinal, 0)"
					" FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
					" WHERE ring" CHASH_EQ "$1",
					ringdatum, latest);

	spec->nnodes = (int) SPI_processed;
	spec->nodes = MemoryContextAllocZero(callercxt,
										 sizeof(ChashNodeSpec) * Max(spec->nnodes, 1));
	for (int k = 0; k < spec->nnodes; k++)
	{
		HeapTuple	row = SPI_tuptable->vals[k];
		ChashNodeSpec *n = &spec->nodes[k];

		n->name = spi_text(row, 1, callercxt);
		n->name_len = strlen(n->name);
		n->weight = DatumGetFloat8(spi_value(row, 2));
		n->vnodes = DatumGetInt32(spi_value(row, 3));
		n->active = DatumGetBool(spi_value(row, 4));
		n->ordinal = DatumGetInt64(spi_value(row, 5));
	}
	SPI_finish();
	if (pushed)
		PopActiveSnapshot();

	/* conversions allocate, so do them once back in the caller's context */
	spec->vnode_name_utf8 = to_hash_bytes(spec->vnode_name, &spec->vnode_name_utf8_len);
	for (int k = 0; k < spec->nnodes; k++)
		spec->nodes[k].name_utf8 = to_hash_bytes(spec->nodes[k].name,
												 &spec->nodes[k].name_utf8_len);
	qsort(spec->nodes, spec->nnodes, sizeof(ChashNodeSpec), node_spec_cmp);

	chash_ring_prepare_spec(spec);

	/*
	 * The 1.0 catalog has neither variants nor server order, so nothing but
	 * ring rings can be kept in it unchanged through the update.
	 */
	if (catalog_1_0 && spec->algorithm != &chash_algorithm_ring)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ring \"%s\" uses algorithm \"%s\", which needs version 1.1 of extension \"chash\"",
						spec->name, spec->algorithm->name),
				 errhint("Run ALTER EXTENSION chash UPDATE.")));
	return spec;
}

/*
 * Ring changes need the named privilege on the catalog table; say so
 * clearly before touching anything.
 */
void
chash_catalog_check_privilege(const char *table, AclMode mode,
							  const char *ring)
{
	Oid			relid = chash_catalog_relid(table);

	if (pg_class_aclcheck(relid, GetUserId(), mode) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to change ring \"%s\"", ring),
				 errdetail("This needs %s privilege on table %s.%s.",
						   mode == ACL_INSERT ? "INSERT" :
						   mode == ACL_UPDATE ? "UPDATE" : "DELETE",
						   CHASH_SCHEMA, table),
				 errhint("Rings are changed by the owner of the chash extension, or by roles it grants these privileges to.")));
}

/*
 * Run one statement that changes the catalog, with text, int4 and float8
 * parameters (a NULL Datum pointer array entry is SQL NULL); returns the
 * number of rows it processed.
 */
uint64
chash_catalog_execute(const char *sql, int nargs, const Oid *argtypes,
					  const Datum *args, const bool *argnulls)
{
	char		nulls[16];
	int			ret;
	uint64		processed;

	Assert(nargs <= lengthof(nulls));
	for (int i = 0; i < nargs; i++)
		nulls[i] = argnulls[i] ? 'n' : ' ';

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ret = SPI_execute_with_args(sql, nargs, (Oid *) argtypes, (Datum *) args,
								nulls, false, 0);
	if (ret < 0)
		elog(ERROR, "could not change the chash catalog: %s",
			 SPI_result_code_string(ret));
	processed = SPI_processed;
	SPI_finish();
	return processed;
}

/* Whether the ring exists, as this command sees the catalog */
bool
chash_catalog_ring_exists(const char *ring)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(ring)};
	bool		nulls[1] = {false};

	return chash_catalog_execute("SELECT 1 FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
								 " WHERE ring" CHASH_EQ "$1",
								 1, argtypes, args, nulls) > 0;
}

/*
 * Trigger on INSERT and UPDATE of the catalog tables.  After the statement,
 * with the new rows as transition table chash_new_rows: every ring they
 * touch must still be buildable, or the statement fails.  Like the CHECK
 * constraints, this holds for the functions and for plain DML alike.
 *
 * Concurrent changes are checked one after the other, each against the
 * latest state, so that two changes each within the limits cannot together
 * exceed them: the trigger before the statement takes a lock that ring
 * changes hold until their transaction ends.  Taken before any row is
 * changed, it cannot deadlock with row locks; an object lock, it conflicts
 * with nothing but itself (not with VACUUM, nor with readers).
 */
static void
lock_ring_changes(void)
{
	LockDatabaseObject(chash_catalog_relid(CHASH_RING_TABLE), 0, 0,
					   ExclusiveLock);
}

PG_FUNCTION_INFO_V1(chash_check_ring_size);

Datum
chash_check_ring_size(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	MemoryContext callercxt = CurrentMemoryContext;
	MemoryContext oldcxt;
	List	   *rings = NIL;
	ListCell   *lc;
	int			ret;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"chash_check_ring_size\" must be called as a trigger")));

	lock_ring_changes();
	if (TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		PG_RETURN_POINTER(NULL);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_register_trigger_data(trigdata) != SPI_OK_TD_REGISTER)
		elog(ERROR, "could not register the transition table of the trigger");
	ret = SPI_execute("SELECT DISTINCT ring FROM chash_new_rows", true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the changed rings: %s",
			 SPI_result_code_string(ret));
	/* the list must outlive SPI_finish, which frees SPI's memory */
	oldcxt = MemoryContextSwitchTo(callercxt);
	for (uint64 i = 0; i < SPI_processed; i++)
		rings = lappend(rings, spi_text(SPI_tuptable->vals[i], 1, callercxt));
	MemoryContextSwitchTo(oldcxt);
	SPI_finish();

	foreach(lc, rings)
	{
		ChashRingSpec *spec = chash_catalog_read_ring(lfirst(lc), true);

		if (spec != NULL)
			(void) chash_ring_count_points(spec, NULL);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * Trigger on the catalog tables: any change, by the functions or by plain
 * DML, invalidates the tables' relcache entries.  Every backend's relcache
 * callback (cache.c) then drops its cached rings: this backend's at the end
 * of the command, the others' when the transaction commits.
 */
PG_FUNCTION_INFO_V1(chash_invalidate_cache);

Datum
chash_invalidate_cache(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"chash_invalidate_cache\" must be called as a trigger")));

	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	PG_RETURN_POINTER(NULL);
}
