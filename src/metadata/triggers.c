/*-------------------------------------------------------------------------
 *
 * triggers.c
 *	  The trigger of the catalog tables chash.ring_config and
 *	  chash.node_config: every change to a ring, through the functions or by
 *	  plain DML, passes here.
 *
 * Before each statement it takes the ring-change lock, so that concurrent
 * changes queue up in one order and cannot deadlock: taken before any row
 * is touched, by every INSERT, UPDATE, DELETE and TRUNCATE of either table.
 * It is an object lock on ring_config, which conflicts with nothing but
 * itself (not with VACUUM, nor with readers); routing never waits for it.
 *
 * Each ring_config row carries a version: the 64-bit id of the transaction
 * that last changed the ring, set before each row of ring_config that is
 * written, and by an update of the ring's row after each statement that
 * changes its nodes.  Transaction ids never come back in a cluster (unlike a
 * sequence, which a restore or a new CREATE EXTENSION sets back), and a
 * transaction ends in one configuration of each ring it changed: a version
 * thus names one configuration of one ring.  Cached rings are kept by version
 * (metadata/cache.c), and a change to one ring costs other rings nothing. A
 * transaction's later changes to a ring keep its version and are seen only by
 * it; metadata/cache.c does not trust versions of rows its own transaction
 * wrote.
 *
 * After each statement every ring it touched must still be buildable: no
 * node over CHASH_MAX_VNODES points, no ring over CHASH_MAX_RING_POINTS,
 * and the algorithm's own rules.  For algorithms whose nodes' points depend
 * on the node alone, a change is checked from the changed rows and the
 * ring's point count before it, which this backend remembers by version:
 * adding a node to a ring of 100,000 costs what adding it to a ring of 10
 * does.  Other algorithms (ketama: every node's share depends on all)
 * count the whole ring, and so does a query that fires more than one of
 * these after-statement triggers (a writable CTE, INSERT ... ON CONFLICT
 * DO UPDATE, MERGE, a rename that cascades to the nodes): all of its rows
 * are written before the first of them fires, so one trigger's count
 * already holds another's rows.
 *
 * The trigger's own queries run as the owner of the catalog, with a pinned
 * search_path, so that a role allowed to add nodes need not be allowed to
 * read every row, and so that nothing on the caller's search_path runs with
 * the owner's rights.  The trigger checks that it fires on the catalog
 * tables, from the events it is created for: attached to another table, it
 * refuses to run (and PUBLIC may not execute it at all).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "metadata/cache.h"
#include "metadata/catalog.h"

/* What this backend knows of a ring's size: its points at a version */
typedef struct RingCount
{
	char		name[NAMEDATALEN];	/* hash key */
	int64		version;
	uint64		abort_count;	/* chash_abort_count when counted */
	int64		points;
} RingCount;

static HTAB *ring_counts = NULL;

/* The version update of node changes, whose own trigger checks nothing */
static bool bumping_versions = false;

/* Rings checked by counting them whole, and from the change alone */
static int64 full_checks = 0;
static int64 delta_checks = 0;

/*
 * Statements on the catalog whose before-statement trigger has fired and
 * whose after-statement trigger has not; and whether the query under way
 * fires several after-statement triggers.  Left too high by an error (a
 * subtransaction that rolls back), the count only makes checks count whole
 * until the transaction ends.
 */
static int	pending_statements = 0;
static bool several_statements = false;

static void
triggers_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
	{
		pending_statements = 0;
		several_statements = false;
	}
}

/* Called once per backend from _PG_init */
void
chash_triggers_init(void)
{
	RegisterXactCallback(triggers_xact_callback, NULL);
}

void
chash_trigger_stats(int64 *full, int64 *delta)
{
	*full = full_checks;
	*delta = delta_checks;
}

/* Which of the catalog tables a trigger fires on */
typedef enum CatalogTable
{
	TABLE_RING,
	TABLE_NODE
} CatalogTable;

static void
error_not_ours(FunctionCallInfo fcinfo, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
			 errmsg("function %s is a trigger of chash's catalog tables only",
					format_procedure_qualified(fcinfo->flinfo->fn_oid)),
			 errdetail("%s", why)));
}

/*
 * The trigger data of a call on one of the catalog tables; an error for any
 * other call.  A trigger runs as whoever changes the table, who may have
 * attached the function to a table of their own: nothing of that table may
 * be trusted.
 */
static TriggerData *
catalog_trigger_data(FunctionCallInfo fcinfo, CatalogTable *table)
{
	TriggerData *trigdata;
	Oid			relid;

	if (!CALLED_AS_TRIGGER(fcinfo))
		error_not_ours(fcinfo, "It was called as a function, not as a trigger.");
	trigdata = (TriggerData *) fcinfo->context;
	relid = RelationGetRelid(trigdata->tg_relation);
	if (!chash_catalog_is_table(relid))
		error_not_ours(fcinfo,
					   psprintf("It was fired on table \"%s\", which is not %s.%s nor %s.%s.",
								RelationGetRelationName(trigdata->tg_relation),
								CHASH_SCHEMA, CHASH_RING_TABLE,
								CHASH_SCHEMA, CHASH_NODE_TABLE));
	*table = relid == chash_catalog_relid(CHASH_RING_TABLE) ? TABLE_RING : TABLE_NODE;
	return trigdata;
}

/* The ring-change lock, held until the end of the transaction */
static void
lock_ring_changes(void)
{
	LockDatabaseObject(chash_catalog_relid(CHASH_RING_TABLE), 0, 0,
					   ExclusiveLock);
}

/*
 * Run the trigger's queries as the owner of the catalog tables, with
 * search_path pinned, row-level security not forced; undone by
 * end_as_owner, or by the transaction's abort.
 */
typedef struct AsOwner
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} AsOwner;

static void
begin_as_owner(AsOwner *as)
{
	Oid			owner;
	HeapTuple	tuple;

	tuple = SearchSysCache1(RELOID,
							ObjectIdGetDatum(chash_catalog_relid(CHASH_RING_TABLE)));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for the chash catalog");
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);

	GetUserIdAndSecContext(&as->save_userid, &as->save_sec_context);
	SetUserIdAndSecContext(owner, as->save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	as->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

static void
end_as_owner(AsOwner *as)
{
	AtEOXact_GUC(false, as->save_nestlevel);
	SetUserIdAndSecContext(as->save_userid, as->save_sec_context);
}

/* A text column of a transition row, as a C string; NULL if null */
static char *
slot_text(TupleTableSlot *slot, AttrNumber attnum)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, attnum, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

/* A changed ring, and how its change is checked */
typedef struct ChangedRing
{
	char		name[NAMEDATALEN];	/* hash key */
	ChashRingSpec *settings;	/* NULL: the ring no longer exists */
	bool		count_all;		/* count the whole ring */
	int64		points;			/* before the statement, then after it */
} ChangedRing;

/* What is done with each row of a transition table */
typedef void (*RowAction) (HTAB *rings, TupleTableSlot *slot, Oid relid,
						   const char *ring, int arg);

/*
 * Call action for every row of a transition table whose ring is a valid
 * name (a NOT NULL column of 1 to 63 bytes: checked nonetheless).  The
 * table is read through a read pointer of our own, as other triggers of
 * the statement read the same table.
 */
static void
for_each_row(HTAB *rings, Relation rel, Tuplestorestate *ts, RowAction action,
			 int arg)
{
	TupleTableSlot *slot;
	Oid			relid = RelationGetRelid(rel);
	AttrNumber	a_ring = get_attnum(relid, "ring");

	if (ts == NULL)
		return;
	slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsMinimalTuple);
	tuplestore_select_read_pointer(ts, tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND));
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		char	   *ring = slot_text(slot, a_ring);

		CHECK_FOR_INTERRUPTS();
		if (ring != NULL && strlen(ring) < NAMEDATALEN)
			action(rings, slot, relid, ring, arg);
		if (ring != NULL)
			pfree(ring);
	}
	ExecDropSingleTupleTableSlot(slot);
}

/* Note a changed ring; with settings_changed (arg), to be counted whole */
static void
add_ring_name(HTAB *rings, TupleTableSlot *slot, Oid relid, const char *ring,
			  int settings_changed)
{
	bool		found;
	ChangedRing *r = hash_search(rings, ring, HASH_ENTER, &found);

	if (!found)
	{
		r->settings = NULL;
		r->count_all = false;
		r->points = 0;
	}
	r->count_all |= settings_changed != 0;
}

/*
 * Add a node's points to its ring (sign 1, a new row, checked as a new
 * node is) or take them off (sign -1, a row before the change, checked
 * when it was made), for the rings counted from their changes
 */
static void
add_node_points(HTAB *rings, TupleTableSlot *slot, Oid relid, const char *ring,
				int sign)
{
	ChangedRing *r = hash_search(rings, ring, HASH_FIND, NULL);
	ChashNodeSpec node;
	char	   *state;
	bool		isnull;
	Datum		d;

	if (r == NULL || r->settings == NULL || r->count_all)
		return;
	memset(&node, 0, sizeof(node));
	node.name = slot_text(slot, get_attnum(relid, "node"));
	if (node.name == NULL)
		return;
	node.name_len = strlen(node.name);
	node.name_utf8 = chash_text_bytes(node.name, node.name_len,
									  &node.name_utf8_len);
	d = slot_getattr(slot, get_attnum(relid, "weight"), &isnull);
	node.weight = isnull ? 1 : DatumGetFloat8(d);
	d = slot_getattr(slot, get_attnum(relid, "vnodes"), &isnull);
	node.vnodes = isnull ? 0 : DatumGetInt32(d);
	/* tokens and slots (1.3), as the catalog's read gives them */
	if (get_attnum(relid, "tokens") != InvalidAttrNumber)
	{
		d = slot_getattr(slot, get_attnum(relid, "tokens"), &isnull);
		if (!isnull)
			chash_catalog_tokens(d, CurrentMemoryContext, &node);
		d = slot_getattr(slot, get_attnum(relid, "slots"), &isnull);
		if (!isnull)
			chash_catalog_slots(d, CurrentMemoryContext, &node);
	}
	state = slot_text(slot, get_attnum(relid, "state"));
	node.active = state != NULL && strcmp(state, "active") == 0;
	r->points += sign * chash_ring_node_points_alone(r->settings, &node,
													 sign > 0);
}

/*
 * Give a ring a new version, unless this transaction has given it one:
 * the row's own trigger then draws it from the sequence.  Returns the
 * ring's version, 0 if it no longer exists.
 */
static int64
bump_version(const char *ring)
{
	int64		version;
	bool		own;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	char		nulls[1] = {' '};
	SPIPlanPtr	plan;
	int			ret;

	/* the latest state, this command's changes included */
	CommandCounterIncrement();
	if (!chash_catalog_probe(ring, strlen(ring), GetLatestSnapshot(),
							 &version, &own))
		return 0;
	if (own)
		return version;

	args[0] = CStringGetTextDatum(ring);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = chash_catalog_plan("UPDATE " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " SET version = 0 WHERE ring" CHASH_EQ "$1"
							  " RETURNING version", 1, argtypes);
	bumping_versions = true;
	PG_TRY();
	{
		ret = SPI_execute_plan(plan, args, nulls, false, 0);
	}
	PG_FINALLY();
	{
		bumping_versions = false;
	}
	PG_END_TRY();
	if (ret != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "could not update the version of ring \"%s\": %s",
			 ring, SPI_result_code_string(ret));
	if (SPI_processed == 1)
	{
		bool		isnull;

		version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1, &isnull));
	}
	else
		version = 0;
	SPI_finish();
	return version;
}

/* Every ring gets a new version: after TRUNCATE, which names no rows */
static void
bump_all_versions(void)
{
	int			ret;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	bumping_versions = true;
	PG_TRY();
	{
		ret = SPI_execute("UPDATE " CHASH_SCHEMA "." CHASH_RING_TABLE
						  " SET version = 0", false, 0);
	}
	PG_FINALLY();
	{
		bumping_versions = false;
	}
	PG_END_TRY();
	if (ret != SPI_OK_UPDATE)
		elog(ERROR, "could not update the versions of the chash catalog: %s",
			 SPI_result_code_string(ret));
	SPI_finish();
}

static RingCount *
ring_count(const char *name, bool create)
{
	if (ring_counts == NULL)
	{
		HASHCTL		ctl;

		if (!create)
			return NULL;
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(RingCount);
		ctl.hcxt = TopMemoryContext;
		ring_counts = hash_create("chash ring counts", 16, &ctl,
								  HASH_ELEM | HASH_CONTEXT | HASH_STRINGS);
	}
	return hash_search(ring_counts, name, create ? HASH_ENTER : HASH_FIND, NULL);
}

/*
 * Check the rings a statement changed, then give each a new version.
 * versions: the catalog has versions (1.2); without them every ring is
 * counted whole and nothing is remembered.  count_all: count every ring
 * whole (the query fires other after-statement triggers).
 */
static void
check_changed_rings(TriggerData *trigdata, CatalogTable table, bool versions,
					bool count_all)
{
	Relation	rel = trigdata->tg_relation;
	MemoryContext cxt;
	MemoryContext oldcxt;
	HASHCTL		ctl;
	HTAB	   *rings;
	HASH_SEQ_STATUS status;
	ChangedRing *r;
	bool		node_change = table == TABLE_NODE;

	cxt = AllocSetContextCreate(CurrentMemoryContext, "chash ring check",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(ChangedRing);
	ctl.hcxt = cxt;
	rings = hash_create("chash changed rings", 16, &ctl,
						HASH_ELEM | HASH_CONTEXT | HASH_STRINGS);
	/* a ring's own row changed: its settings may have, so count it all */
	for_each_row(rings, rel, trigdata->tg_newtable, add_ring_name, !node_change);
	if (node_change)
		for_each_row(rings, rel, trigdata->tg_oldtable, add_ring_name, false);

	/* the rings as they are now, and which can be counted from the change */
	hash_seq_init(&status, rings);
	while ((r = hash_seq_search(&status)) != NULL)
	{
		RingCount  *known;

		r->settings = chash_catalog_read_settings(r->name, true);
		if (r->settings == NULL)
			continue;			/* dropped, or renamed */
		known = versions && !count_all ? ring_count(r->name, false) : NULL;
		if (known == NULL || r->settings->version <= 0 ||
			known->version != r->settings->version ||
			known->abort_count != chash_abort_count ||
			!r->settings->algorithm->node_points_alone)
			r->count_all = true;
		else
			r->points = known->points;
	}

	if (node_change)
	{
		for_each_row(rings, rel, trigdata->tg_oldtable, add_node_points, -1);
		for_each_row(rings, rel, trigdata->tg_newtable, add_node_points, 1);
	}

	hash_seq_init(&status, rings);
	while ((r = hash_seq_search(&status)) != NULL)
	{
		int64		version;
		RingCount  *known;

		if (r->settings == NULL)
			continue;
		if (r->count_all)
		{
			ChashRingSpec *spec = chash_catalog_read_ring(r->name, true);

			if (spec == NULL)
				continue;
			r->points = chash_ring_count_points(spec, NULL);
			full_checks++;
		}
		else
		{
			chash_ring_check_total(r->settings, r->points);
			delta_checks++;
		}

		if (!versions)
			continue;
		version = node_change ? bump_version(r->name) : r->settings->version;
		if (version == 0)
			continue;
		known = ring_count(r->name, true);
		known->version = version;
		known->abort_count = chash_abort_count;
		known->points = r->points;
	}

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);
}

/*
 * Before each row of ring_config that is inserted or updated: its version,
 * this transaction's id, whatever the row says
 */
static HeapTuple
new_version(TriggerData *trigdata)
{
	Relation	rel = trigdata->tg_relation;
	HeapTuple	tuple = TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ?
		trigdata->tg_trigtuple : trigdata->tg_newtuple;
	int			attnum = chash_catalog_version_attnum();
	Datum		value;
	bool		isnull = false;

	value = Int64GetDatum((int64) U64FromFullTransactionId(GetTopFullTransactionId()));
	return heap_modify_tuple_by_cols(tuple, RelationGetDescr(rel), 1,
									 &attnum, &value, &isnull);
}

/*
 * The one trigger function of the 1.2 catalog, for every trigger of both
 * tables (see the install script):
 *	  before each statement:				the ring-change lock
 *	  before each row of ring_config:		a new version
 *	  after each statement:					the checks, the versions of
 *											changed nodes' rings
 */
PG_FUNCTION_INFO_V1(chash_catalog_trigger);

Datum
chash_catalog_trigger(PG_FUNCTION_ARGS)
{
	CatalogTable table;
	TriggerData *trigdata = catalog_trigger_data(fcinfo, &table);
	TriggerEvent event = trigdata->tg_event;
	AsOwner		as;
	bool		several;

	if (chash_catalog_version_attnum() == InvalidAttrNumber)
		error_not_ours(fcinfo, "The catalog has no versions: run ALTER EXTENSION chash UPDATE.");

	if (TRIGGER_FIRED_BEFORE(event) && TRIGGER_FIRED_FOR_STATEMENT(event))
	{
		lock_ring_changes();
		pending_statements++;
		PG_RETURN_POINTER(NULL);
	}
	if (TRIGGER_FIRED_BEFORE(event) && TRIGGER_FIRED_FOR_ROW(event) &&
		table == TABLE_RING &&
		(TRIGGER_FIRED_BY_INSERT(event) || TRIGGER_FIRED_BY_UPDATE(event)))
		PG_RETURN_POINTER(new_version(trigdata));
	if (!TRIGGER_FIRED_AFTER(event) || !TRIGGER_FIRED_FOR_STATEMENT(event))
		error_not_ours(fcinfo, "It was fired at a time it is not made for.");

	/* the first of several after-statement triggers of a query, or a later one */
	several = several_statements || pending_statements > 1;
	if (pending_statements > 0)
		pending_statements--;
	several_statements = pending_statements > 0 && several;

	/* backends still running an older library forget their rings by this */
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	if (bumping_versions)
		PG_RETURN_POINTER(NULL);

	if (TRIGGER_FIRED_BY_TRUNCATE(event))
	{
		if (table == TABLE_NODE)
		{
			begin_as_owner(&as);
			bump_all_versions();
			end_as_owner(&as);
		}
		PG_RETURN_POINTER(NULL);
	}
	if (TRIGGER_FIRED_BY_DELETE(event) && table == TABLE_RING)
		PG_RETURN_POINTER(NULL);	/* the ring is gone: nothing to check */

	if ((TRIGGER_FIRED_BY_INSERT(event) && trigdata->tg_newtable == NULL) ||
		(TRIGGER_FIRED_BY_UPDATE(event) &&
		 (trigdata->tg_newtable == NULL || trigdata->tg_oldtable == NULL)) ||
		(TRIGGER_FIRED_BY_DELETE(event) && trigdata->tg_oldtable == NULL))
		error_not_ours(fcinfo, "It was fired without the transition tables it reads.");

	lock_ring_changes();
	begin_as_owner(&as);
	check_changed_rings(trigdata, table, true, several);
	end_as_owner(&as);
	PG_RETURN_POINTER(NULL);
}

/*
 * The trigger of the 1.0 and 1.1 catalogs, until ALTER EXTENSION chash
 * UPDATE: before each INSERT or UPDATE statement the ring-change lock,
 * after it the checks of the rings in its new rows (chash_new_rows).
 */
PG_FUNCTION_INFO_V1(chash_check_ring_size);

Datum
chash_check_ring_size(PG_FUNCTION_ARGS)
{
	CatalogTable table;
	TriggerData *trigdata = catalog_trigger_data(fcinfo, &table);
	TriggerEvent event = trigdata->tg_event;
	AsOwner		as;

	if (!TRIGGER_FIRED_FOR_STATEMENT(event) ||
		!(TRIGGER_FIRED_BY_INSERT(event) || TRIGGER_FIRED_BY_UPDATE(event)))
		error_not_ours(fcinfo, "It was fired at a time it is not made for.");
	lock_ring_changes();
	if (TRIGGER_FIRED_BEFORE(event))
		PG_RETURN_POINTER(NULL);
	if (trigdata->tg_newtable == NULL)
		error_not_ours(fcinfo, "It was fired without the transition table it reads.");

	begin_as_owner(&as);
	/* new rows only: as these catalogs always did */
	{
		TriggerData only_new = *trigdata;

		only_new.tg_oldtable = NULL;
		check_changed_rings(&only_new, table, false, true);
	}
	end_as_owner(&as);
	PG_RETURN_POINTER(NULL);
}

/*
 * The invalidation trigger of the 1.0 and 1.1 catalogs: any change
 * invalidates the tables' relcache entries, which backends running the
 * library of those versions take as the end of every cached ring.
 */
PG_FUNCTION_INFO_V1(chash_invalidate_cache);

Datum
chash_invalidate_cache(PG_FUNCTION_ARGS)
{
	CatalogTable table;
	TriggerData *trigdata = catalog_trigger_data(fcinfo, &table);

	if (!TRIGGER_FIRED_AFTER(trigdata->tg_event))
		error_not_ours(fcinfo, "It was fired at a time it is not made for.");
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	PG_RETURN_POINTER(NULL);
}
