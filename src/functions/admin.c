/*-------------------------------------------------------------------------
 *
 * admin.c
 *	  SQL functions that change rings: chash_ring_create, chash_ring_copy,
 *	  chash_ring_drop, chash_node_add, chash_node_remove, chash_node_set.
 *
 * Each checks its arguments and the caller's privilege first, so that bad
 * input is a clear error before anything is touched, then changes the
 * catalog tables through SPI.  The tables' constraints and triggers (the
 * ring size check, the cache invalidation) apply exactly as to plain DML.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "metadata/catalog.h"
#include "placement/profile.h"

/* A required text argument; NULL is an error naming the argument */
static char *
arg_text(FunctionCallInfo fcinfo, int argno, const char *argname)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", argname)));
	return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

static char *
arg_ring(FunctionCallInfo fcinfo)
{
	return arg_text(fcinfo, 0, "ring");
}

static void
check_vnodes(int32 vnodes)
{
	if (vnodes < 1 || vnodes > CHASH_MAX_VNODES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("vnodes must be between 1 and %d", CHASH_MAX_VNODES),
				 errdetail("vnodes is %d.", vnodes)));
}

/* A node's weight or capacity: positive and finite */
static void
check_positive(const char *argname, double value)
{
	if (!(value > 0) || isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a positive finite number", argname),
				 errdetail("%s is %g.", argname, value)));
}

/* A name for a message, cut if long */
#define MSG(s) chash_message_name((s), strlen(s))

static void
check_node_name(const char *node)
{
	size_t		len = strlen(node);

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("node name must not be empty")));
	if (len > CHASH_MAX_NODE_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("node name \"%s\" is too long", MSG(node)),
				 errdetail("The name is %zu bytes long; node names are at most %d bytes.",
						   len, CHASH_MAX_NODE_NAME),
				 errhint("Name the node as its clients name the server, such as host:port, or by a short alias; its target says where its rows live.")));
}

static void
check_template_length(const char *tmpl)
{
	size_t		len = strlen(tmpl);

	if (len > CHASH_MAX_TEMPLATE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("vnode_name is too long"),
				 errdetail("The template is %zu bytes long; templates are at most %d bytes.",
						   len, CHASH_MAX_TEMPLATE),
				 errhint("Templates such as '{node}#{i}' or '{node}-{i}' name the virtual nodes.")));
}

static void
check_state(const char *state)
{
	if (strcmp(state, "active") != 0 && strcmp(state, "down") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown node state \"%s\"", MSG(state)),
				 errhint("Valid states are \"active\" and \"down\".")));
}

static void
check_ring_name(const char *ring)
{
	if (strlen(ring) < 1 || strlen(ring) > CHASH_MAX_RING_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("ring name must be 1 to %d bytes long",
						CHASH_MAX_RING_NAME),
				 errdetail("The name given is %zu bytes long.", strlen(ring))));
}

static void
error_ring_missing(const char *ring)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("ring \"%s\" does not exist", MSG(ring)),
			 errhint("Create it with chash_ring_create().")));
}

static void
error_node_missing(const char *ring, const char *node)
{
	if (!chash_catalog_ring_exists(ring))
		error_ring_missing(ring);
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("node \"%s\" does not exist in ring \"%s\"", MSG(node), MSG(ring))));
}

/*
 * Run one statement on the catalog whose parameters $1..$nargs are this
 * function's own first nargs arguments, of the given types; returns the
 * number of rows it processed.
 */
static uint64
execute_with_own_args(FunctionCallInfo fcinfo, const char *sql,
					  int nargs, const Oid *argtypes)
{
	Datum		args[11];		/* chash_node_set's eleven at most */
	bool		nulls[11];

	if (nargs > lengthof(args) || nargs > PG_NARGS())
		elog(ERROR, "statement of %d arguments from a call of %d", nargs,
			 PG_NARGS());
	for (int i = 0; i < nargs; i++)
	{
		nulls[i] = PG_ARGISNULL(i);
		args[i] = nulls[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	return chash_catalog_execute(sql, nargs, argtypes, args, nulls);
}

static Datum
text_or_null(const char *s)
{
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/*
 * A text setting of chash_ring_create: the argument if given (which the
 * profile must allow), else the profile's, else NULL.  Arguments beyond
 * the call's (an earlier version's SQL function) are not given.
 */
static const char *
setting_text(FunctionCallInfo fcinfo, int argno, const ChashProfile *profile,
			 ChashSetting setting, const char *profile_value)
{
	if (argno < PG_NARGS() && !PG_ARGISNULL(argno))
	{
		if (profile)
			chash_profile_check_setting(profile, setting);
		return text_to_cstring(PG_GETARG_TEXT_PP(argno));
	}
	return profile ? profile_value : NULL;
}

/*
 * An integer setting, likewise; dflt if neither is given.  From 1.4 on a
 * NULL argument is "not given"; the earlier SQL functions have defaults
 * and refuse NULL.
 */
static int32
setting_int(FunctionCallInfo fcinfo, int argno, const ChashProfile *profile,
			ChashSetting setting, int32 profile_value, int32 dflt,
			bool null_is_unset)
{
	if (argno < PG_NARGS() && !PG_ARGISNULL(argno))
	{
		if (profile)
			chash_profile_check_setting(profile, setting);
		return PG_GETARG_INT32(argno);
	}
	if (argno < PG_NARGS() && !null_is_unset)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", chash_setting_name(setting))));
	return profile && profile_value != 0 ? profile_value : dflt;
}

/*
 * chash_ring_create(ring, algorithm, hash, vnodes, vnode_name, vnode_first,
 *					 key_hash, ketama_variant, ties, table_size, lookup,
 *					 hash_tag, profile, notify)
 *
 * A profile gives its settings, and the settings its system's
 * configuration chooses may be given with it (placement/profile.c).  hash and
 * vnode_name default to the algorithm's, ketama_variant to its first
 * variant.  The ring's settings are checked as a ring without nodes before
 * anything is written.  The SQL functions of earlier versions pass fewer
 * arguments: 1.0's the first seven, 1.1's and 1.2's nine, 1.3's eleven.
 * notify is not a setting of placement: any profile takes it, and NULL is
 * false.
 */
PG_FUNCTION_INFO_V1(chash_ring_create);

Datum
chash_ring_create(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	bool		catalog_1_4 = PG_NARGS() > 12;
	const ChashProfile *profile = NULL;
	ChashRingSpec spec;
	const char *algorithm;
	const char *hash_name;
	const char *key_hash_name;
	const char *vnode_name;
	Oid			argtypes[14] = {TEXTOID, TEXTOID, TEXTOID, INT4OID, TEXTOID,
		INT4OID, TEXTOID, TEXTOID, TEXTOID, INT4OID, TEXTOID, TEXTOID, TEXTOID,
	BOOLOID};
	Datum		args[14];
	bool		nulls[14];
	int			nargs;
	const char *insert;

	check_ring_name(ring);
	if (catalog_1_4 && !PG_ARGISNULL(12))
		profile = chash_profile_get(text_to_cstring(PG_GETARG_TEXT_PP(12)));

	memset(&spec, 0, sizeof(spec));
	strlcpy(spec.name, ring, sizeof(spec.name));
	algorithm = setting_text(fcinfo, 1, profile, CHASH_SETTING_ALGORITHM,
							 profile ? profile->algorithm : NULL);
	if (algorithm == NULL && !catalog_1_4)
		(void) arg_text(fcinfo, 1, "algorithm");
	spec.algorithm = chash_algorithm_get(algorithm ? algorithm : "ring");
	hash_name = setting_text(fcinfo, 2, profile, CHASH_SETTING_HASH,
							 profile ? profile->hash : NULL);
	spec.hash = chash_hash_get(hash_name ? hash_name :
							   spec.algorithm->default_hash);
	spec.vnodes = setting_int(fcinfo, 3, profile, CHASH_SETTING_VNODES,
							  profile ? profile->vnodes : 0, 160, catalog_1_4);
	check_vnodes(spec.vnodes);
	vnode_name = setting_text(fcinfo, 4, profile, CHASH_SETTING_VNODE_NAME,
							  profile ? profile->vnode_name : NULL);
	spec.vnode_name = vnode_name ? vnode_name : spec.algorithm->default_vnode_name;
	check_template_length(spec.vnode_name);
	spec.vnode_name_utf8 = chash_text_bytes(spec.vnode_name,
											strlen(spec.vnode_name),
											&spec.vnode_name_utf8_len);
	spec.vnode_first = setting_int(fcinfo, 5, profile, CHASH_SETTING_VNODE_FIRST,
								   profile ? profile->vnode_first : 0, 0,
								   catalog_1_4);
	key_hash_name = setting_text(fcinfo, 6, profile, CHASH_SETTING_KEY_HASH,
								 profile ? profile->key_hash : NULL);
	spec.key_hash = key_hash_name ? chash_hash_get(key_hash_name) : spec.hash;
	spec.variant = setting_text(fcinfo, 7, profile, CHASH_SETTING_VARIANT,
								profile ? profile->variant : NULL);
	if (spec.variant == NULL)
		spec.variant = spec.algorithm->default_variant;
	spec.ties_name = setting_text(fcinfo, 8, profile, CHASH_SETTING_TIES,
								  profile ? profile->ties : NULL);
	/* the 1.2 catalog's function has no table_size; 0 is the default */
	spec.table_size = setting_int(fcinfo, 9, profile, CHASH_SETTING_TABLE_SIZE,
								  profile ? profile->table_size : 0, 0, true);
	if (PG_NARGS() > 9 && !PG_ARGISNULL(9) && spec.table_size <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table_size must be positive"),
				 errdetail("table_size is %d.", spec.table_size)));
	spec.lookup_name = setting_text(fcinfo, 10, profile, CHASH_SETTING_LOOKUP,
									profile ? profile->lookup : NULL);
	spec.hash_tag = setting_text(fcinfo, 11, profile, CHASH_SETTING_HASH_TAG,
								 profile ? profile->hash_tag : NULL);
	spec.nodes = NULL;
	spec.nnodes = 0;
	chash_ring_prepare_spec(&spec);

	chash_catalog_check_privilege(CHASH_RING_TABLE, ACL_INSERT, ring);
	args[0] = CStringGetTextDatum(ring);
	args[1] = CStringGetTextDatum(spec.algorithm->name);
	args[2] = CStringGetTextDatum(spec.hash->name);
	args[3] = Int32GetDatum(spec.vnodes);
	args[4] = CStringGetTextDatum(spec.vnode_name);
	args[5] = Int32GetDatum(spec.vnode_first);
	args[6] = text_or_null(key_hash_name);
	args[7] = text_or_null(spec.variant);
	args[8] = text_or_null(spec.ties_name);
	args[9] = Int32GetDatum(spec.table_size);
	args[10] = text_or_null(spec.lookup_name);
	args[11] = text_or_null(spec.hash_tag);
	args[12] = text_or_null(profile ? profile->name : NULL);
	for (int i = 0; i < 13; i++)
		nulls[i] = (i >= 6 && i != 9 && DatumGetPointer(args[i]) == NULL);
	nulls[9] = spec.table_size == 0;
	args[13] = BoolGetDatum(PG_NARGS() > 13 && !PG_ARGISNULL(13) &&
							PG_GETARG_BOOL(13));
	nulls[13] = false;
	if (PG_NARGS() > 13 && chash_catalog_has_notify())
	{
		nargs = 14;
		insert = "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
			" (ring, algorithm, hash, vnodes, vnode_name, vnode_first,"
			" key_hash, ketama_variant, ties, table_size, lookup, hash_tag,"
			" profile, notify)"
			" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
			" ON CONFLICT (ring) DO NOTHING";
	}
	else if (catalog_1_4)
	{
		nargs = 13;
		insert = "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
			" (ring, algorithm, hash, vnodes, vnode_name, vnode_first,"
			" key_hash, ketama_variant, ties, table_size, lookup, hash_tag,"
			" profile)"
			" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
			" ON CONFLICT (ring) DO NOTHING";
	}
	else if (PG_NARGS() > 9)
	{
		/* the 1.3 catalog, until ALTER EXTENSION chash UPDATE */
		nargs = 11;
		insert = "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
			" (ring, algorithm, hash, vnodes, vnode_name,"
			" vnode_first, key_hash, ketama_variant, ties, table_size, lookup)"
			" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
			" ON CONFLICT (ring) DO NOTHING";
	}
	else if (PG_NARGS() > 7)
	{
		/* the 1.1 and 1.2 catalogs */
		nargs = 9;
		insert = "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
			" (ring, algorithm, hash, vnodes, vnode_name,"
			" vnode_first, key_hash, ketama_variant, ties)"
			" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
			" ON CONFLICT (ring) DO NOTHING";
	}
	else
	{
		/* the 1.0 catalog */
		nargs = 7;
		insert = "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
			" (ring, algorithm, hash, vnodes, vnode_name,"
			" vnode_first, key_hash)"
			" VALUES ($1, $2, $3, $4, $5, $6, $7)"
			" ON CONFLICT (ring) DO NOTHING";
	}
	if (chash_catalog_execute(insert, nargs, argtypes, args, nulls) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("ring \"%s\" already exists", MSG(ring))));
	PG_RETURN_VOID();
}

/*
 * chash_ring_copy(src, dst): a new ring with src's settings and nodes,
 * their order and targets included, and whether its changes notify
 */
PG_FUNCTION_INFO_V1(chash_ring_copy);

Datum
chash_ring_copy(PG_FUNCTION_ARGS)
{
	char	   *src = arg_text(fcinfo, 0, "src");
	char	   *dst = arg_text(fcinfo, 1, "dst");
	Oid			argtypes[2] = {TEXTOID, TEXTOID};

	check_ring_name(dst);
	chash_catalog_check_privilege(CHASH_RING_TABLE, ACL_INSERT, dst);
	chash_catalog_check_privilege(CHASH_NODE_TABLE, ACL_INSERT, dst);
	if (!chash_catalog_ring_exists(src))
		error_ring_missing(src);
	if (execute_with_own_args(fcinfo, chash_catalog_has_notify() ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " (ring, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup,"
							  " hash_tag, profile, notify)"
							  " SELECT $2, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup,"
							  " hash_tag, profile, notify"
							  " FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1"
							  " ON CONFLICT (ring) DO NOTHING" :
							  chash_catalog_has_hash_tag() ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " (ring, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup,"
							  " hash_tag, profile)"
							  " SELECT $2, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup,"
							  " hash_tag, profile"
							  " FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1"
							  " ON CONFLICT (ring) DO NOTHING" :
							  chash_catalog_has_table_size() ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " (ring, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup)"
							  " SELECT $2, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties, table_size, lookup"
							  " FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1"
							  " ON CONFLICT (ring) DO NOTHING" :
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " (ring, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties)"
							  " SELECT $2, algorithm, hash, key_hash, vnodes, vnode_name,"
							  " vnode_first, ketama_variant, ties"
							  " FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1"
							  " ON CONFLICT (ring) DO NOTHING",
							  2, argtypes) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("ring \"%s\" already exists", MSG(dst))));
	(void) execute_with_own_args(fcinfo, chash_catalog_has_address() ?
								 "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " (ring, node, weight, vnodes, zone, state, ordinal, target, tokens, slots,"
								 " capacity, address)"
								 " SELECT $2, node, weight, vnodes, zone, state, ordinal, target, tokens, slots,"
								 " capacity, address"
								 " FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " WHERE ring" CHASH_EQ "$1" :
								 chash_catalog_has_capacity() ?
								 "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " (ring, node, weight, vnodes, zone, state, ordinal, target, tokens, slots,"
								 " capacity)"
								 " SELECT $2, node, weight, vnodes, zone, state, ordinal, target, tokens, slots,"
								 " capacity"
								 " FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " WHERE ring" CHASH_EQ "$1" :
								 chash_catalog_has_table_size() ?
								 "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " (ring, node, weight, vnodes, zone, state, ordinal, target, tokens, slots)"
								 " SELECT $2, node, weight, vnodes, zone, state, ordinal, target, tokens, slots"
								 " FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " WHERE ring" CHASH_EQ "$1" :
								 "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " (ring, node, weight, vnodes, zone, state, ordinal, target)"
								 " SELECT $2, node, weight, vnodes, zone, state, ordinal, target"
								 " FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
								 " WHERE ring" CHASH_EQ "$1",
								 2, argtypes);
	PG_RETURN_VOID();
}

/* chash_ring_drop(ring): the ring and all its nodes */
PG_FUNCTION_INFO_V1(chash_ring_drop);

Datum
chash_ring_drop(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	Oid			argtypes[1] = {TEXTOID};

	chash_catalog_check_privilege(CHASH_RING_TABLE, ACL_DELETE, ring);
	if (execute_with_own_args(fcinfo,
							  "DELETE FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1",
							  1, argtypes) == 0)
		error_ring_missing(ring);
	PG_RETURN_VOID();
}

/*
 * chash_node_add(ring, node, weight, vnodes, zone, target, tokens, slots,
 * capacity, address); the SQL functions of earlier versions pass fewer.
 */
PG_FUNCTION_INFO_V1(chash_node_add);

Datum
chash_node_add(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	char	   *node = arg_text(fcinfo, 1, "node");
	Oid			argtypes[10] = {TEXTOID, TEXTOID, FLOAT8OID, INT4OID, TEXTOID, TEXTOID,
	INT8ARRAYOID, INT4RANGEARRAYOID, FLOAT8OID, TEXTOID};

	check_node_name(node);
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("weight must not be null")));
	check_positive("weight", PG_GETARG_FLOAT8(2));
	if (!PG_ARGISNULL(3))
		check_vnodes(PG_GETARG_INT32(3));
	if (PG_NARGS() >= 9)
	{
		if (PG_ARGISNULL(8))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("capacity must not be null"),
					 errhint("Leave capacity out for the default, 1.")));
		check_positive("capacity", PG_GETARG_FLOAT8(8));
	}

	chash_catalog_check_privilege(CHASH_NODE_TABLE, ACL_INSERT, ring);
	if (!chash_catalog_ring_exists(ring))
		error_ring_missing(ring);

	/*
	 * the functions of 1.0 (no target), of 1.1 and 1.2 (no tokens, slots)
	 * and of 1.3 (no capacity, address)
	 */
	if (execute_with_own_args(fcinfo, PG_NARGS() < 6 ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " (ring, node, weight, vnodes, zone)"
							  " VALUES ($1, $2, $3, $4, $5)"
							  " ON CONFLICT (ring, node) DO NOTHING" :
							  PG_NARGS() < 7 ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " (ring, node, weight, vnodes, zone, target)"
							  " VALUES ($1, $2, $3, $4, $5, $6)"
							  " ON CONFLICT (ring, node) DO NOTHING" :
							  PG_NARGS() < 9 ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " (ring, node, weight, vnodes, zone, target, tokens, slots)"
							  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
							  " ON CONFLICT (ring, node) DO NOTHING" :
							  PG_NARGS() < 10 ?
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " (ring, node, weight, vnodes, zone, target, tokens, slots, capacity)"
							  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
							  " ON CONFLICT (ring, node) DO NOTHING" :
							  "INSERT INTO " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " (ring, node, weight, vnodes, zone, target, tokens, slots, capacity, address)"
							  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
							  " ON CONFLICT (ring, node) DO NOTHING",
							  Min(PG_NARGS(), 10), argtypes) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("node \"%s\" already exists in ring \"%s\"", MSG(node), MSG(ring)),
				 errhint("Change it with chash_node_set().")));
	PG_RETURN_VOID();
}

/* chash_node_remove(ring, node) */
PG_FUNCTION_INFO_V1(chash_node_remove);

Datum
chash_node_remove(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	char	   *node = arg_text(fcinfo, 1, "node");
	Oid			argtypes[2] = {TEXTOID, TEXTOID};

	chash_catalog_check_privilege(CHASH_NODE_TABLE, ACL_DELETE, ring);
	if (execute_with_own_args(fcinfo,
							  "DELETE FROM " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2",
							  2, argtypes) == 0)
		error_node_missing(ring, node);
	PG_RETURN_VOID();
}

/*
 * chash_node_set(ring, node, weight, vnodes, state, zone, target, tokens,
 * slots, capacity, address): a NULL argument leaves that setting as it is.  The SQL
 * functions of earlier versions pass fewer.
 */
PG_FUNCTION_INFO_V1(chash_node_set);

Datum
chash_node_set(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	char	   *node = arg_text(fcinfo, 1, "node");
	Oid			argtypes[11] = {TEXTOID, TEXTOID, FLOAT8OID, INT4OID, TEXTOID, TEXTOID, TEXTOID,
	INT8ARRAYOID, INT4RANGEARRAYOID, FLOAT8OID, TEXTOID};

	if (!PG_ARGISNULL(2))
		check_positive("weight", PG_GETARG_FLOAT8(2));
	if (!PG_ARGISNULL(3))
		check_vnodes(PG_GETARG_INT32(3));
	if (!PG_ARGISNULL(4))
		check_state(text_to_cstring(PG_GETARG_TEXT_PP(4)));
	if (PG_NARGS() >= 10 && !PG_ARGISNULL(9))
		check_positive("capacity", PG_GETARG_FLOAT8(9));

	chash_catalog_check_privilege(CHASH_NODE_TABLE, ACL_UPDATE, ring);

	/*
	 * the functions of 1.0 (no target), of 1.1 and 1.2 (no tokens, slots)
	 * and of 1.3 (no capacity, address)
	 */
	if (execute_with_own_args(fcinfo, PG_NARGS() < 7 ?
							  "UPDATE " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " SET weight = coalesce($3, weight),"
							  " vnodes = coalesce($4, vnodes),"
							  " state = coalesce($5, state),"
							  " zone = coalesce($6, zone)"
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2" :
							  PG_NARGS() < 8 ?
							  "UPDATE " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " SET weight = coalesce($3, weight),"
							  " vnodes = coalesce($4, vnodes),"
							  " state = coalesce($5, state),"
							  " zone = coalesce($6, zone),"
							  " target = coalesce($7, target)"
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2" :
							  PG_NARGS() < 10 ?
							  "UPDATE " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " SET weight = coalesce($3, weight),"
							  " vnodes = coalesce($4, vnodes),"
							  " state = coalesce($5, state),"
							  " zone = coalesce($6, zone),"
							  " target = coalesce($7, target),"
							  " tokens = coalesce($8, tokens),"
							  " slots = coalesce($9, slots)"
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2" :
							  PG_NARGS() < 11 ?
							  "UPDATE " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " SET weight = coalesce($3, weight),"
							  " vnodes = coalesce($4, vnodes),"
							  " state = coalesce($5, state),"
							  " zone = coalesce($6, zone),"
							  " target = coalesce($7, target),"
							  " tokens = coalesce($8, tokens),"
							  " slots = coalesce($9, slots),"
							  " capacity = coalesce($10, capacity)"
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2" :
							  "UPDATE " CHASH_SCHEMA "." CHASH_NODE_TABLE
							  " SET weight = coalesce($3, weight),"
							  " vnodes = coalesce($4, vnodes),"
							  " state = coalesce($5, state),"
							  " zone = coalesce($6, zone),"
							  " target = coalesce($7, target),"
							  " tokens = coalesce($8, tokens),"
							  " slots = coalesce($9, slots),"
							  " capacity = coalesce($10, capacity),"
							  " address = coalesce($11, address)"
							  " WHERE ring" CHASH_EQ "$1 AND node" CHASH_EQ "$2",
							  Min(PG_NARGS(), 11), argtypes) == 0)
		error_node_missing(ring, node);
	PG_RETURN_VOID();
}

/*
 * The profile a ring was created with, NULL if none (1.4's catalog), and
 * whether its key hash is unset (it follows hash)
 */
static const ChashProfile *
ring_profile(const char *ring, bool *key_hash_unset)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(ring)};
	const ChashProfile *profile = NULL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	*key_hash_unset = false;
	if (SPI_execute_with_args("SELECT profile, key_hash IS NULL FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1",
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the profile of ring \"%s\"", MSG(ring));
	if (SPI_processed == 1)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[0],
										SPI_tuptable->tupdesc, 1);

		if (name != NULL)
			profile = chash_profile_get(name);
		*key_hash_unset = strcmp(SPI_getvalue(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 2), "t") == 0;
	}
	SPI_finish();
	return profile;
}

/* Adds the positions whose owner differs between the two placements */
static void
add_moved(void *arg, uint64 lo, uint64 hi, uint32 owner_a, uint32 owner_b)
{
	if (owner_a != owner_b)
		*(long double *) arg += (long double) (hi - lo) + 1;
}

/*
 * The share of the keys that move between two placements of the same
 * nodes, where it follows from the placements alone: rings of points that
 * hash keys alike (the hash space their owners differ on), or tables of one
 * size (the slots whose owner differs).  -1 where it does not.
 */
static double
moved_share(const ChashRingSpec *before, const ChashRingSpec *after)
{
	ChashPlacement *a;
	ChashPlacement *b;
	double		share = -1;

	/* a ring that places no key moves none */
	if (before->nactive == 0)
		return 0;
	a = chash_placement_build(before, CurrentMemoryContext);
	b = chash_placement_build(after, CurrentMemoryContext);
	/* keys must land where they did: the same key hash, the same tag */
	if (a->spec.key_hash != b->spec.key_hash ||
		(a->spec.hash_tag == NULL) != (b->spec.hash_tag == NULL) ||
		(a->spec.hash_tag != NULL && strcmp(a->spec.hash_tag, b->spec.hash_tag) != 0))
		;
	else if (a->kind == CHASH_PLACEMENT_POINTS && b->kind == CHASH_PLACEMENT_POINTS &&
			 a->npoints > 0 && b->npoints > 0)
	{
		int			bits = a->spec.key_hash->bits;
		uint64		max = bits == 64 ? PG_UINT64_MAX : ((UINT64CONST(1) << bits) - 1);
		long double moved = 0;

		chash_rings_compare(a, b, 0, max, max, add_moved, &moved);
		share = (double) (moved / ldexpl(1.0L, bits));
	}
	else if (a->spec.algorithm->has_table && b->spec.algorithm->has_table &&
			 a->data != NULL && b->data != NULL &&
			 ((const ChashSlotTable *) a->data)->size ==
			 ((const ChashSlotTable *) b->data)->size)
	{
		const ChashSlotTable *ta = a->data;
		const ChashSlotTable *tb = b->data;
		uint64		differ = 0;

		for (uint32 s = 0; s < ta->size; s++)
			differ += ta->slots[s] != tb->slots[s];
		share = (double) differ / ta->size;
	}
	MemoryContextDelete(a->mcxt);
	MemoryContextDelete(b->mcxt);
	return share;
}

/*
 * chash_ring_set(ring, hash, vnodes, vnode_name, vnode_first, key_hash,
 *				  ketama_variant, ties, table_size, lookup, hash_tag, notify)
 *
 * The ring's counterpart of chash_node_set: NULL leaves a setting as it is;
 * the others are checked as chash_ring_create checks them (a ring made with
 * a profile takes only those its system may choose), then written, which
 * the catalog's trigger checks again with the nodes and versions.  Returns
 * the share of the keys the change moves, where the two placements tell it
 * (rings of points hashing keys alike, tables of one size), else NULL with
 * a NOTICE saying how to measure it.  The algorithm is not a setting here:
 * a ring of another algorithm is a new ring (chash_ring_copy's counterpart
 * is chash_ring_create, then chash_ring_switch).  notify is not a setting
 * of placement: any profile takes it, and it moves no key.
 */
PG_FUNCTION_INFO_V1(chash_ring_set);

Datum
chash_ring_set(PG_FUNCTION_ARGS)
{
	char	   *ring = arg_ring(fcinfo);
	const ChashProfile *profile;
	ChashRingSpec *before;
	ChashRingSpec after;
	Oid			argtypes[12] = {TEXTOID, TEXTOID, INT4OID, TEXTOID, INT4OID,
		TEXTOID, TEXTOID, TEXTOID, INT4OID, TEXTOID, TEXTOID, BOOLOID};
	Datum		args[12];
	bool		nulls[12];
	static const ChashSetting settings[11] = {0, CHASH_SETTING_HASH,
		CHASH_SETTING_VNODES, CHASH_SETTING_VNODE_NAME, CHASH_SETTING_VNODE_FIRST,
		CHASH_SETTING_KEY_HASH, CHASH_SETTING_VARIANT, CHASH_SETTING_TIES,
		CHASH_SETTING_TABLE_SIZE, CHASH_SETTING_LOOKUP, CHASH_SETTING_HASH_TAG};
	double		share;
	bool		key_hash_unset;

	chash_catalog_check_privilege(CHASH_RING_TABLE, ACL_UPDATE, ring);
	/* the ring's row locked first: the share is of this change alone */
	args[0] = CStringGetTextDatum(ring);
	nulls[0] = false;
	if (chash_catalog_execute("SELECT 1 FROM " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " WHERE ring" CHASH_EQ "$1 FOR UPDATE",
							  1, argtypes, args, nulls) == 0)
		error_ring_missing(ring);
	profile = ring_profile(ring, &key_hash_unset);
	before = chash_catalog_read_ring(ring, false);
	if (before == NULL)
		error_ring_missing(ring);

	after = *before;
	for (int i = 1; i < 11; i++)
	{
		nulls[i] = PG_ARGISNULL(i);
		args[i] = nulls[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
		if (!nulls[i] && profile != NULL)
			chash_profile_check_setting(profile, settings[i]);
	}
	nulls[11] = PG_NARGS() <= 11 || PG_ARGISNULL(11);
	args[11] = nulls[11] ? (Datum) 0 : PG_GETARG_DATUM(11);
	if (!nulls[1])
		after.hash = chash_hash_get(TextDatumGetCString(args[1]));
	if (!nulls[2])
	{
		check_vnodes(DatumGetInt32(args[2]));
		after.vnodes = DatumGetInt32(args[2]);
	}
	if (!nulls[3])
	{
		after.vnode_name = TextDatumGetCString(args[3]);
		check_template_length(after.vnode_name);
		after.vnode_name_utf8 = chash_text_bytes(after.vnode_name,
												 strlen(after.vnode_name),
												 &after.vnode_name_utf8_len);
	}
	if (!nulls[4])
		after.vnode_first = DatumGetInt32(args[4]);
	if (!nulls[5])
		after.key_hash = chash_hash_get(TextDatumGetCString(args[5]));
	else if (!nulls[1] && key_hash_unset)
		after.key_hash = after.hash;	/* a key hash unset follows hash */
	if (!nulls[6])
		after.variant = TextDatumGetCString(args[6]);
	if (!nulls[7])
		after.ties_name = TextDatumGetCString(args[7]);
	if (!nulls[8])
	{
		if (DatumGetInt32(args[8]) <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table_size must be positive"),
					 errdetail("table_size is %d.", DatumGetInt32(args[8]))));
		after.table_size = DatumGetInt32(args[8]);
	}
	if (!nulls[9])
		after.lookup_name = TextDatumGetCString(args[9]);
	if (!nulls[10])
		after.hash_tag = TextDatumGetCString(args[10]);
	chash_ring_prepare_spec(&after);

	share = moved_share(before, &after);

	if (chash_catalog_execute("UPDATE " CHASH_SCHEMA "." CHASH_RING_TABLE
							  " SET hash = coalesce($2, hash),"
							  " vnodes = coalesce($3, vnodes),"
							  " vnode_name = coalesce($4, vnode_name),"
							  " vnode_first = coalesce($5, vnode_first),"
							  " key_hash = coalesce($6, key_hash),"
							  " ketama_variant = coalesce($7, ketama_variant),"
							  " ties = coalesce($8, ties),"
							  " table_size = coalesce($9, table_size),"
							  " lookup = coalesce($10, lookup),"
							  " hash_tag = coalesce($11, hash_tag),"
							  " notify = coalesce($12, notify)"
							  " WHERE ring" CHASH_EQ "$1",
							  12, argtypes, args, nulls) == 0)
		error_ring_missing(ring);

	if (share < 0)
	{
		ereport(NOTICE,
				(errmsg("the share of keys this change to ring \"%s\" moves does not follow from the two placements",
						MSG(ring)),
				 errhint("Measure it before the change on a copy: chash_ring_copy(), chash_ring_set() on the copy, then chash_move_summary() with a relation, or chash_moved_keys().")));
		PG_RETURN_NULL();
	}
	PG_RETURN_FLOAT8(share);
}
