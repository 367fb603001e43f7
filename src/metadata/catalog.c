/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  Reading and changing the catalog tables chash.ring_config and
 *	  chash.node_config.
 *
 * Rings are read through SPI with the caller's rights, so that the tables'
 * privileges and row-level security decide what a caller sees, as for a
 * SELECT; reads use the active snapshot, so that a ring is what the calling
 * statement sees of the tables.  One read is direct: a ring's version, from
 * ring_config's primary key, made once per new snapshot to tell whether a
 * cached ring still holds.  It is made only for callers who may read every
 * row (chash_catalog_check_read, chash_catalog_rls_applies).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rangetypes.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "metadata/catalog.h"

/*
 * The catalog's OIDs and what its version has, looked up on first use and
 * forgotten when the tables are invalidated (they may have been dropped).
 */
typedef struct CatalogIds
{
	bool		valid;
	Oid			ring_table;
	Oid			node_table;
	Oid			ring_pkey;		/* ring_config's primary key index */
	Oid			ring_pkey_collation;
	AttrNumber	ring_version;	/* ring_config.version, invalid before 1.2 */
	bool		catalog_1_0;	/* no ketama_variant, ties nor ordinal */
	bool		has_table_size; /* ring_config.table_size, from 1.3 */
	bool		has_hash_tag;	/* ring_config.hash_tag, from 1.4 */
	bool		has_capacity;	/* node_config.capacity, from 1.4 */
	bool		has_address;	/* node_config.address, from 1.4 */
	bool		has_notify;		/* ring_config.notify, from 1.4 */
	bool		has_key_types;	/* ring_config.key_types, from 1.4 */
} CatalogIds;

static CatalogIds ids;

static void
lookup_ids(void)
{
	Oid			nsp;
	Oid			typid;
	int32		typmod;

	if (likely(ids.valid))
		return;

	/*
	 * Valid from the start, so that an invalidation processed by one of the
	 * lookups below (the extension dropped meanwhile) makes them be done
	 * again next time
	 */
	ids.valid = true;
	nsp = get_namespace_oid(CHASH_SCHEMA, true);
	ids.ring_table = OidIsValid(nsp) ? get_relname_relid(CHASH_RING_TABLE, nsp) : InvalidOid;
	ids.node_table = OidIsValid(nsp) ? get_relname_relid(CHASH_NODE_TABLE, nsp) : InvalidOid;
	ids.ring_pkey = OidIsValid(nsp) ? get_relname_relid("ring_config_pkey", nsp) : InvalidOid;
	if (!OidIsValid(ids.ring_table) || !OidIsValid(ids.node_table) ||
		!OidIsValid(ids.ring_pkey))
	{
		ids.valid = false;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s\" does not exist",
						CHASH_SCHEMA, CHASH_RING_TABLE),
				 errhint("The chash extension may have been dropped; run CREATE EXTENSION chash.")));
	}
	/* the key of the primary key compares in the column's collation */
	get_atttypetypmodcoll(ids.ring_table, 1, &typid, &typmod,
						  &ids.ring_pkey_collation);
	ids.ring_version = get_attnum(ids.ring_table, "version");
	ids.catalog_1_0 = get_attnum(ids.ring_table, "ketama_variant") == InvalidAttrNumber;
	ids.has_table_size = get_attnum(ids.ring_table, "table_size") != InvalidAttrNumber;
	ids.has_hash_tag = get_attnum(ids.ring_table, "hash_tag") != InvalidAttrNumber;
	ids.has_capacity = get_attnum(ids.node_table, "capacity") != InvalidAttrNumber;
	ids.has_address = get_attnum(ids.node_table, "address") != InvalidAttrNumber;
	ids.has_notify = get_attnum(ids.ring_table, "notify") != InvalidAttrNumber;
	ids.has_key_types = get_attnum(ids.ring_table, "key_types") != InvalidAttrNumber;
}

/* Whether the catalog has ring_config.table_size (1.3 on) */
bool
chash_catalog_has_table_size(void)
{
	lookup_ids();
	return ids.has_table_size;
}

/* Whether the catalog has ring_config.hash_tag and profile (1.4 on) */
bool
chash_catalog_has_hash_tag(void)
{
	lookup_ids();
	return ids.has_hash_tag;
}

/*
 * Whether the catalog has node_config.capacity (1.4 on).  Only planning
 * reads it; routing never does.
 */
bool
chash_catalog_has_capacity(void)
{
	lookup_ids();
	return ids.has_capacity;
}

/*
 * Whether the catalog has node_config.address (1.4 on).  Only chash_export
 * reads it; routing never does.
 */
bool
chash_catalog_has_address(void)
{
	lookup_ids();
	return ids.has_address;
}

/*
 * Whether the catalog has ring_config.notify (1.4 on).  Only the catalog's
 * notification trigger reads it.
 */
bool
chash_catalog_has_notify(void)
{
	lookup_ids();
	return ids.has_notify;
}

/* The OID of one of the catalog tables; an error if chash is not installed */
Oid
chash_catalog_relid(const char *table)
{
	lookup_ids();
	return strcmp(table, CHASH_RING_TABLE) == 0 ? ids.ring_table : ids.node_table;
}

/* The attribute number of ring_config.version; invalid before 1.2 */
AttrNumber
chash_catalog_version_attnum(void)
{
	lookup_ids();
	return ids.ring_version;
}

/* Forget the catalog's OIDs; they are looked up again on next use */
void
chash_catalog_forget_relids(void)
{
	ids.valid = false;
}

/*
 * Whether relid is one of the catalog tables.  While their OIDs are not
 * known (after an invalidation, until the next use), any relation may be.
 */
bool
chash_catalog_is_ours(Oid relid)
{
	if (!ids.valid)
		return true;
	return relid == ids.ring_table || relid == ids.node_table;
}

/* Whether relid is one of the catalog tables, for certain */
bool
chash_catalog_is_table(Oid relid)
{
	lookup_ids();
	return relid == ids.ring_table || relid == ids.node_table;
}

/*
 * The columns routing reads.  A caller needs SELECT on each (or on the
 * table), as a SELECT of them would.
 */
static const char *const ring_columns[] = {
	"ring", "algorithm", "hash", "key_hash", "vnodes", "vnode_name",
	"vnode_first", "ketama_variant", "ties", "version", "table_size", "lookup",
	"hash_tag", "key_types", "key_collations"
};
static const char *const node_columns[] = {
	"ring", "node", "weight", "vnodes", "state", "ordinal", "zone", "tokens",
	"slots"
};

static bool
may_read(Oid relid, const char *const *columns, int ncolumns, Oid user)
{
	if (pg_class_aclcheck(relid, user, ACL_SELECT) == ACLCHECK_OK)
		return true;
	for (int i = 0; i < ncolumns; i++)
	{
		AttrNumber	attnum = get_attnum(relid, columns[i]);

		/* columns of later versions of the catalog */
		if (attnum == InvalidAttrNumber)
			continue;
		if (pg_attribute_aclcheck(relid, attnum, user, ACL_SELECT) != ACLCHECK_OK)
			return false;
	}
	return true;
}

/*
 * Routing reads the catalog tables with the caller's rights: an error
 * naming the table if the current user may not read them.  Made on every
 * resolve of a ring, cached or not.
 */
void
chash_catalog_check_read(const char *ring)
{
	Oid			user = GetUserId();
	const char *table = NULL;

	lookup_ids();
	if (!may_read(ids.ring_table, ring_columns, lengthof(ring_columns), user))
		table = CHASH_RING_TABLE;
	else if (!may_read(ids.node_table, node_columns, lengthof(node_columns), user))
		table = CHASH_NODE_TABLE;
	if (table != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read ring \"%s\"",
						chash_message_name(ring, strlen(ring))),
				 errdetail("Routing reads table %s.%s, which role \"%s\" may not read.",
						   CHASH_SCHEMA, table, GetUserNameFromId(user, false))));
}

/*
 * Whether row-level security filters what the current user sees of the
 * catalog tables.  (With row_security off, where it would, this is the
 * error a SELECT gets.)
 */
bool
chash_catalog_rls_applies(void)
{
	lookup_ids();
	return check_enable_rls(ids.ring_table, InvalidOid, false) == RLS_ENABLED ||
		check_enable_rls(ids.node_table, InvalidOid, false) == RLS_ENABLED;
}

/*
 * The version of the ring as snap sees ring_config, read directly from its
 * primary key; false if snap sees no such ring (or the catalog has no
 * versions).  *own says whether this transaction wrote the row: its
 * version then stands for every change the transaction makes to the ring.
 * No privilege is checked here: the caller has.
 */
bool
chash_catalog_probe(const char *name, int len, Snapshot snap,
					int64 *version, bool *own)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	text	   *t;
	bool		found = false;

	lookup_ids();
	if (ids.ring_version == InvalidAttrNumber)
		return false;
	t = cstring_to_text_with_len(name, len);
	/* a scan's snapshot must be registered (GetLatestSnapshot()'s is not) */
	snap = RegisterSnapshot(snap);
	rel = table_open(ids.ring_table, AccessShareLock);
	ScanKeyEntryInitialize(&key, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   ids.ring_pkey_collation, F_TEXTEQ,
						   PointerGetDatum(t));
	scan = systable_beginscan(rel, ids.ring_pkey, true, snap, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, ids.ring_version,
									 RelationGetDescr(rel), &isnull);

		*version = isnull ? 0 : DatumGetInt64(d);
		*own = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
		found = true;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	UnregisterSnapshot(snap);
	pfree(t);
	return found;
}

/*
 * SPI plans of the statements on the catalog, prepared once per backend
 * and kept: the sql strings are constants, known by their address.  The
 * plan cache replans them when the tables change.  Plans for the trigger,
 * which runs them as the catalog's owner with row-level security not
 * forced, are kept apart from those of the caller's own statements (the
 * plan cache does not tell those two apart).
 */
typedef struct SavedPlan
{
	const char *sql;
	bool		as_owner;
	int			nargs;
	Oid			argtypes[16];
	SPIPlanPtr	plan;
} SavedPlan;

static SavedPlan saved_plans[32];
static int	nsaved_plans = 0;

static SPIPlanPtr
saved_plan(const char *sql, bool as_owner, int nargs, const Oid *argtypes)
{
	SPIPlanPtr	plan;

	if (nargs > lengthof(saved_plans[0].argtypes))
		elog(ERROR, "a statement on the chash catalog has %d parameters, more than %d",
			 nargs, (int) lengthof(saved_plans[0].argtypes));
	for (int i = 0; i < nsaved_plans; i++)
	{
		SavedPlan  *p = &saved_plans[i];

		if (p->sql == sql && p->as_owner == as_owner && p->nargs == nargs &&
			memcmp(p->argtypes, argtypes, sizeof(Oid) * nargs) == 0)
			return p->plan;
	}
	plan = SPI_prepare(sql, nargs, (Oid *) argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare a statement on the chash catalog: %s",
			 SPI_result_code_string(SPI_result));
	if (nsaved_plans < lengthof(saved_plans) && SPI_keepplan(plan) == 0)
	{
		SavedPlan  *p = &saved_plans[nsaved_plans++];

		p->sql = sql;
		p->as_owner = as_owner;
		p->nargs = nargs;
		memcpy(p->argtypes, argtypes, sizeof(Oid) * nargs);
		p->plan = plan;
	}
	return plan;
}

/* A plan of a statement of the trigger on the catalog, kept for the next call */
SPIPlanPtr
chash_catalog_plan(const char *sql, int nargs, const Oid *argtypes)
{
	return saved_plan(sql, true, nargs, argtypes);
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

/*
 * A node's tokens, a bigint[] of the catalog (which keeps NULLs out), into
 * n, allocated in mcxt
 */
void
chash_catalog_tokens(Datum tokens, MemoryContext mcxt, ChashNodeSpec *n)
{
	ArrayType  *array = DatumGetArrayTypeP(tokens);
	Datum	   *elems;
	bool	   *elem_nulls;
	int			nelems;
	int64	   *values;

	deconstruct_array(array, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &elems, &elem_nulls, &nelems);
	values = MemoryContextAlloc(mcxt, sizeof(int64) * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
	{
		if (elem_nulls[i])
			elog(ERROR, "token of node \"%s\" is null", n->name);
		values[i] = DatumGetInt64(elems[i]);
	}
	n->ntokens = nelems;
	n->tokens = values;
}

/*
 * A node's slot ranges, an int4range[] of the catalog (which keeps NULL,
 * empty and unbounded ranges out), into n as [lower, upper) pairs,
 * allocated in mcxt
 */
void
chash_catalog_slots(Datum slots, MemoryContext mcxt, ChashNodeSpec *n)
{
	ArrayType  *array = DatumGetArrayTypeP(slots);
	TypeCacheEntry *typcache = lookup_type_cache(INT4RANGEOID,
												 TYPECACHE_RANGE_INFO);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			nelems;
	int32	   *values;

	get_typlenbyvalalign(INT4RANGEOID, &typlen, &typbyval, &typalign);
	deconstruct_array(array, INT4RANGEOID, typlen, typbyval, typalign,
					  &elems, &elem_nulls, &nelems);
	values = MemoryContextAlloc(mcxt, sizeof(int32) * 2 * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
	{
		RangeBound	lower;
		RangeBound	upper;
		bool		empty;

		if (elem_nulls[i])
			elog(ERROR, "slot range of node \"%s\" is null", n->name);
		range_deserialize(typcache, DatumGetRangeTypeP(elems[i]),
						  &lower, &upper, &empty);
		if (empty || lower.infinite || upper.infinite)
			elog(ERROR, "slot range of node \"%s\" is empty or unbounded",
				 n->name);
		/* int4range is canonical: [lower, upper) */
		values[2 * i] = DatumGetInt32(lower.val);
		values[2 * i + 1] = DatumGetInt32(upper.val);
	}
	n->slots_given = true;
	n->nslot_ranges = nelems;
	n->slot_ranges = values;
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
	/* latest reads are the trigger's */
	SPIPlanPtr	plan = saved_plan(sql, latest, 1, argtypes);
	int			ret;

	if (latest)
	{
		/* not read-only: SPI advances the command id to see our changes */
		ret = SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
								   InvalidSnapshot, false, false, 0);
	}
	else
		ret = SPI_execute_plan(plan, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the chash catalog: %s",
			 SPI_result_code_string(ret));
}

/*
 * The ring's settings as the queries below read them: version 1.0 of the
 * catalog has no ketama_variant, ties nor ordinal, and only 1.2 has
 * versions; older ones are read with their defaults, so that routing goes
 * on between installing this library and ALTER EXTENSION chash UPDATE.
 */
static const char *const ring_queries[] = {
	/* 1.0 */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, NULL::pg_catalog.text, NULL::pg_catalog.text,"
	" 0::pg_catalog.int8"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
	/* 1.1 */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, ketama_variant, ties, 0::pg_catalog.int8"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
	/* 1.2 */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, ketama_variant, ties, version,"
	" 0::pg_catalog.int4, NULL::pg_catalog.text"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
	/* 1.3 */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, ketama_variant, ties, version,"
	" coalesce(table_size, 0), lookup, NULL::pg_catalog.text"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
	/* 1.4 */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, ketama_variant, ties, version,"
	" coalesce(table_size, 0), lookup, hash_tag"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
	/* 1.4 with key types: collations by name, 0 for none, ~0 if missing */
	"SELECT algorithm, hash, coalesce(key_hash, hash),"
	" vnodes, vnode_name, vnode_first, ketama_variant, ties, version,"
	" coalesce(table_size, 0), lookup, hash_tag, key_types::pg_catalog.oid[],"
	" ARRAY(SELECT CASE WHEN u.c IS NULL THEN 0::pg_catalog.oid"
	"  ELSE coalesce(pg_catalog.to_regcollation(u.c)::pg_catalog.oid,"
	"  4294967295::pg_catalog.oid) END"
	"  FROM pg_catalog.unnest(key_collations) WITH ORDINALITY AS u(c, i)"
	"  ORDER BY u.i)"
	" FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
	" WHERE ring" CHASH_EQ "$1",
};
static const char *const node_queries[] = {
	"SELECT node, weight, coalesce(vnodes, 0),"
	" state" CHASH_EQ "'active', 0::pg_catalog.int8, zone"
	" FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
	" WHERE ring" CHASH_EQ "$1",
	"SELECT node, weight, coalesce(vnodes, 0),"
	" state" CHASH_EQ "'active', coalesce(ordinal, 0), zone"
	" FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
	" WHERE ring" CHASH_EQ "$1",
	"SELECT node, weight, coalesce(vnodes, 0),"
	" state" CHASH_EQ "'active', coalesce(ordinal, 0), zone, tokens, slots"
	" FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
	" WHERE ring" CHASH_EQ "$1",
};

/*
 * The types and collations of a ring's key columns (columns 13 and 14 of
 * its row), into cxt; none if key_types is NULL
 */
static void
read_key_types(HeapTuple row, MemoryContext cxt, ChashRingSpec *spec)
{
	bool		isnull;
	Datum		types = SPI_getbinval(row, SPI_tuptable->tupdesc, 13, &isnull);
	Datum		colls;
	Datum	   *t;
	Datum	   *c;
	int			nt;
	int			nc;
	Oid		   *key_types;
	Oid		   *key_collations;

	if (isnull)
		return;
	colls = SPI_getbinval(row, SPI_tuptable->tupdesc, 14, &isnull);
	deconstruct_array(DatumGetArrayTypeP(types), OIDOID, sizeof(Oid), true,
					  TYPALIGN_INT, &t, NULL, &nt);
	deconstruct_array(DatumGetArrayTypeP(colls), OIDOID, sizeof(Oid), true,
					  TYPALIGN_INT, &c, NULL, &nc);
	/* (the catalog's constraint: as many, none NULL) */
	if (nt != nc || nt < 1)
		elog(ERROR, "ring \"%s\" has %d key types and %d key collations",
			 spec->name, nt, nc);
	key_types = MemoryContextAlloc(cxt, sizeof(Oid) * nt);
	key_collations = MemoryContextAlloc(cxt, sizeof(Oid) * nt);
	for (int i = 0; i < nt; i++)
	{
		key_types[i] = DatumGetObjectId(t[i]);
		key_collations[i] = DatumGetObjectId(c[i]);
	}
	spec->nkey_types = nt;
	spec->key_types = key_types;
	spec->key_collations = key_collations;
}

/*
 * Read a ring's configuration into the current memory context, as the
 * active snapshot sees it (or the latest state, see spi_select_ring); NULL
 * if there is no such ring.  With with_nodes false, the settings only, as
 * a ring without nodes.
 */
static ChashRingSpec *
read_ring(const char *ring, bool latest, bool with_nodes)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Datum		ringdatum;
	ChashRingSpec *spec;
	bool		pushed = false;
	int			version;

	lookup_ids();
	version = ids.catalog_1_0 ? 0 : ids.ring_version == InvalidAttrNumber ? 1 :
		ids.has_key_types ? 5 : ids.has_hash_tag ? 4 : ids.has_table_size ? 3 : 2;

	ringdatum = CStringGetTextDatum(ring);
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	spi_select_ring(ring_queries[version], ringdatum, latest);
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
		spec->version = DatumGetInt64(spi_value(row, 9));
		spec->table_size = version >= 2 ? DatumGetInt32(spi_value(row, 10)) : 0;
		spec->lookup_name = version >= 2 ? spi_text(row, 11, callercxt) : NULL;
		spec->hash_tag = version >= 3 ? spi_text(row, 12, callercxt) : NULL;
		if (version >= 5)
			read_key_types(row, callercxt, spec);
	}

	if (with_nodes)
	{
		spi_select_ring(node_queries[version == 0 ? 0 : version < 3 ? 1 : 2],
						ringdatum, latest);
		spec->nnodes = (int) SPI_processed;
	}
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
		n->zone = spi_text(row, 6, callercxt);
		n->ntokens = 0;
		n->tokens = NULL;
		if (version >= 3)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(row, SPI_tuptable->tupdesc, 7, &isnull);

			if (!isnull)
				chash_catalog_tokens(d, callercxt, n);
			d = SPI_getbinval(row, SPI_tuptable->tupdesc, 8, &isnull);
			if (!isnull)
				chash_catalog_slots(d, callercxt, n);
		}
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
	if (ids.catalog_1_0 && spec->algorithm != &chash_algorithm_ring)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ring \"%s\" uses algorithm \"%s\", which needs version 1.1 of extension \"chash\"",
						spec->name, spec->algorithm->name),
				 errhint("Run ALTER EXTENSION chash UPDATE.")));
	return spec;
}

/* A ring's configuration with its nodes; NULL if there is no such ring */
ChashRingSpec *
chash_catalog_read_ring(const char *ring, bool latest)
{
	return read_ring(ring, latest, true);
}

/* A ring's settings, as a ring without nodes; NULL if there is no such ring */
ChashRingSpec *
chash_catalog_read_settings(const char *ring, bool latest)
{
	return read_ring(ring, latest, false);
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
				 errmsg("permission denied to change ring \"%s\"",
						chash_message_name(ring, strlen(ring))),
				 errdetail("This needs %s privilege on table %s.%s.",
						   mode == ACL_INSERT ? "INSERT" :
						   mode == ACL_UPDATE ? "UPDATE" : "DELETE",
						   CHASH_SCHEMA, table),
				 errhint("Rings are changed by the owner of the chash extension, or by roles it grants these privileges to.")));
}

/*
 * Run one statement on the catalog, a constant string, with parameters of
 * the given types (argnulls[i] true for SQL NULL); returns the number of
 * rows it processed.  The statement's plan is kept for the next call.
 */
uint64
chash_catalog_execute(const char *sql, int nargs, const Oid *argtypes,
					  const Datum *args, const bool *argnulls)
{
	char		nulls[16];
	int			ret;
	uint64		processed;
	SPIPlanPtr	plan;

	Assert(nargs <= lengthof(nulls));
	for (int i = 0; i < nargs; i++)
		nulls[i] = argnulls[i] ? 'n' : ' ';

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = saved_plan(sql, false, nargs, argtypes);
	ret = SPI_execute_plan(plan, (Datum *) args, nulls, false, 0);
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
