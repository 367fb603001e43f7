/*-------------------------------------------------------------------------
 *
 * lookup.c
 *	  SQL routing functions: chash_lookup, chash_lookup_n, chash_position,
 *	  chash_lookup_partitioned and chash_hash.
 *
 * The per-call path touches no catalog: the first call of a statement
 * resolves the ring through the cache and keeps it in fn_extra with its
 * generation; later calls only compare the generation, the snapshot and
 * (unless it is a constant) the ring name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/partition.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "functions/call_ring.h"
#include "metadata/cache.h"
#include "placement/profile.h"

/*
 * chash_lookup's results for one ring of one generation: a text per node,
 * made on first use.  They live in a context of their own under fn_mcxt,
 * which a reset callback leaves counted in chash_call_memory.
 */
typedef struct NodeTextsCount
{
	MemoryContextCallback callback;
	Size		bytes;			/* counted in chash_call_memory */
} NodeTextsCount;

typedef struct NodeTexts
{
	const ChashPlacement *ring;
	uint64		generation;		/* 0: holds nothing that may be reused */
	MemoryContext mcxt;			/* NULL until the slot is first used */
	NodeTextsCount *count;		/* in mcxt */
	text	  **texts;			/* in mcxt */
} NodeTexts;

/*
 * A call site keeps the texts of the two rings it used last: a CASE between
 * two rings reuses both, and the texts of the previous call, which its
 * caller may still hold, are never the ones freed.  Within that, a call
 * site holds at most what two rings need, whatever the rings, generations
 * and rows it meets.
 */
#define CALL_NODE_TEXTS 2

/* How a key of any other type becomes text: see call_key_text */
typedef enum KeyTextHow
{
	KEY_TEXT_OUTPUT,			/* its output function */
	KEY_TEXT_CAST,				/* its cast to text */
	KEY_TEXT_AS_IS				/* it is text (binary-coercible) */
} KeyTextHow;

/*
 * What a routing function keeps between calls: the ring it resolved, for
 * which snapshot, and the cache generation that ring belongs to.
 */
typedef struct RingCallCache
{
	uint64		generation;		/* 0 until a ring is resolved */
	const ChashPlacement *ring;
	ChashSnapshotId snapshot;
	Oid			userid;			/* for whom: privileges were checked */
	bool		name_const;		/* the ring argument is a constant */
	bool		utf8_as_is;		/* the server encoding's text is hashed as is */
	int			name_len;
	char		name[NAMEDATALEN];

	/*
	 * chash_lookup's results, never changed once made, so that each call
	 * can return one instead of building a copy: node_texts[last_texts] is
	 * the one used last
	 */
	int			last_texts;
	NodeTexts	node_texts[CALL_NODE_TEXTS];

	/*
	 * Keys of any other type (CHASH_KEY_ANY): the type, checked once, and
	 * how it becomes text (call_key_text)
	 */
	Oid			key_type;		/* InvalidOid until the first such key */
	KeyTextHow	key_text_how;
	FmgrInfo	key_text_fn;
} RingCallCache;

/*
 * Whether the ring argument is a constant of the expression, the same in
 * every call through this FmgrInfo.  Not get_fn_expr_arg_stable(): a
 * PL/pgSQL variable is an external Param, and PL/pgSQL evaluates a simple
 * expression again with new values through the same FmgrInfo.
 */
static bool
ring_arg_is_const(FmgrInfo *flinfo)
{
	Node	   *expr = flinfo->fn_expr;

	return expr != NULL && IsA(expr, FuncExpr) &&
		((FuncExpr *) expr)->args != NIL &&
		IsA(linitial(((FuncExpr *) expr)->args), Const);
}

static pg_noinline const ChashPlacement *
call_ring_resolve(FunctionCallInfo fcinfo, const char *name, int len)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;
	bool		pushed = false;
	Snapshot	snap;
	ChashSnapshotId now;

	if (cc == NULL)
	{
		cc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									sizeof(RingCallCache));
		fcinfo->flinfo->fn_extra = cc;
	}

	/* a routing call always runs in a snapshot; make one if need be */
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	snap = GetActiveSnapshot();

	/* a new snapshot: see what was committed before it was taken */
	chash_snapshot_id_set(&now, snap);
	if (cc->generation == 0 || pushed ||
		!chash_snapshot_ids_equal(&cc->snapshot, &now))
		AcceptInvalidationMessages();

	cc->generation = 0;
	cc->ring = chash_cache_get_ring(name, len, snap, &cc->generation);
	cc->snapshot = now;
	cc->userid = GetUserId();
	cc->name_const = ring_arg_is_const(fcinfo->flinfo);
	cc->utf8_as_is = chash_utf8_as_is();
	cc->name_len = len;
	memcpy(cc->name, name, len);
	if (pushed)
	{
		PopActiveSnapshot();
		/* no snapshot to match next time: resolve again (texts: see below) */
		cc->generation = 0;
	}
	return cc->ring;
}

/*
 * The ring named by argument 0, as the active snapshot sees it.  The fast
 * path checks the cache generation, the user (a SECURITY DEFINER function
 * or SET ROLE may call through the same FmgrInfo as someone else), the
 * name (unless the argument is a constant of the query) and the snapshot.
 */
static pg_attribute_always_inline const ChashPlacement *
call_ring(FunctionCallInfo fcinfo)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;
	text	   *arg;

	if (likely(cc != NULL && cc->generation == chash_cache_generation &&
			   cc->userid == GetUserId() && ActiveSnapshotSet()))
	{
		ChashSnapshotId now;

		if (unlikely(!cc->name_const))
		{
			arg = PG_GETARG_TEXT_PP(0);
			if (cc->name_len != VARSIZE_ANY_EXHDR(arg) ||
				memcmp(cc->name, VARDATA_ANY(arg), cc->name_len) != 0)
				return call_ring_resolve(fcinfo, VARDATA_ANY(arg),
										 VARSIZE_ANY_EXHDR(arg));
		}
		chash_snapshot_id_set(&now, GetActiveSnapshot());
		if (likely(chash_snapshot_ids_equal(&cc->snapshot, &now)))
			return cc->ring;
	}
	arg = PG_GETARG_TEXT_PP(0);
	return call_ring_resolve(fcinfo, VARDATA_ANY(arg), VARSIZE_ANY_EXHDR(arg));
}

/* call_ring for the functions that describe a ring (functions/info.c) */
const ChashPlacement *
chash_call_ring(FunctionCallInfo fcinfo)
{
	return call_ring(fcinfo);
}

static void
node_texts_forget(void *arg)
{
	NodeTextsCount *count = (NodeTextsCount *) arg;

	chash_call_memory -= count->bytes;
}

/* Count what texts' context holds now in chash_call_memory */
static void
node_texts_count(NodeTexts *texts)
{
	NodeTextsCount *count = texts->count;
	Size		now = MemoryContextMemAllocated(texts->mcxt, false);

	chash_call_memory += now - count->bytes;
	count->bytes = now;
}

/*
 * The texts of ring, of the call's generation, made empty in the slot used
 * longest ago if the call site holds none.  A ring of another generation
 * may sit where a freed one was: the generation tells them apart, and
 * without one (a call resolved outside a snapshot) nothing is reused.
 */
static pg_noinline NodeTexts *
call_node_texts_new(FunctionCallInfo fcinfo, const ChashPlacement *ring)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;
	NodeTexts  *texts;
	int			slot;

	for (slot = 0; slot < CALL_NODE_TEXTS; slot++)
	{
		texts = &cc->node_texts[slot];
		if (texts->ring == ring && texts->generation == cc->generation &&
			cc->generation != 0)
		{
			cc->last_texts = slot;
			return texts;
		}
	}

	/* (with two slots, the one not used last) */
	slot = (cc->last_texts + 1) % CALL_NODE_TEXTS;
	texts = &cc->node_texts[slot];
	if (texts->mcxt != NULL)
		MemoryContextDelete(texts->mcxt);
	texts->mcxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										"chash node texts",
										ALLOCSET_SMALL_SIZES);
	texts->count = MemoryContextAllocZero(texts->mcxt, sizeof(NodeTextsCount));
	texts->count->callback.func = node_texts_forget;
	texts->count->callback.arg = texts->count;
	MemoryContextRegisterResetCallback(texts->mcxt, &texts->count->callback);
	texts->texts = MemoryContextAllocZero(texts->mcxt,
										  sizeof(text *) * Max(ring->spec.nnodes, 1));
	texts->ring = ring;
	texts->generation = cc->generation;
	cc->last_texts = slot;
	node_texts_count(texts);
	return texts;
}

/* The text of a node of the call's ring, as chash_lookup returns it */
static inline text *
call_node_text(FunctionCallInfo fcinfo, const ChashPlacement *ring, uint32 node)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;
	NodeTexts  *texts = &cc->node_texts[cc->last_texts];

	if (unlikely(texts->ring != ring || texts->generation != cc->generation ||
				 cc->generation == 0))
		texts = call_node_texts_new(fcinfo, ring);
	if (unlikely(texts->texts[node] == NULL))
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(texts->mcxt);

		texts->texts[node] = chash_node_text(ring, node);
		MemoryContextSwitchTo(oldcxt);
		node_texts_count(texts);
	}
	return texts->texts[node];
}

/* How a key of each SQL type is turned into the bytes that are hashed */
typedef enum ChashKeyType
{
	CHASH_KEY_TEXT,				/* its UTF-8 bytes */
	CHASH_KEY_BYTEA,			/* its bytes */
	CHASH_KEY_INT2,				/* its decimal text */
	CHASH_KEY_INT4,				/* its decimal text */
	CHASH_KEY_INT8,				/* its decimal text */
	CHASH_KEY_UUID,				/* its canonical lower-case text */
	CHASH_KEY_ANY				/* its text, as key::text writes it */
} ChashKeyType;

/*
 * How a key of any other type (argument 1) becomes its text: as the plans'
 * key::text makes it, by the type's cast to text where it has one
 * (boolean's "true", inet's address with its mask), else by its output
 * function.  The type is checked once a call site, by the plans' own
 * check: a type whose text depends on session settings would route
 * differently per session.
 */
static pg_noinline void
call_key_text_resolve(FunctionCallInfo fcinfo)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	Oid			argtypes[1] = {REGTYPEOID};
	Oid			check;
	Oid			fn = InvalidOid;
	FmgrInfo	check_fn;
	LOCAL_FCINFO(check_call, 1);
	Datum		settings;
	bool		varlena;

	if (!OidIsValid(type))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the type of the key")));
	/* the plans' check (sql/src/planning.sql), and the plans' error */
	check = LookupFuncName(list_make2(makeString("chash"),
									  makeString("key_text_settings")),
						   1, argtypes, false);
	fmgr_info(check, &check_fn);
	InitFunctionCallInfoData(*check_call, &check_fn, 1, InvalidOid, NULL, NULL);
	check_call->args[0].value = ObjectIdGetDatum(type);
	check_call->args[0].isnull = false;
	settings = FunctionCallInvoke(check_call);
	if (!check_call->isnull)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("keys of type %s have a text that depends on settings",
						format_type_be(type)),
				 errdetail("Keys are hashed by their text, and the text of type %s depends on %s: sessions with other settings would route them elsewhere.",
						   format_type_be(type),
						   TextDatumGetCString(settings)),
				 errhint("Pass the keys as the text, integers or bytea the application routes by.")));
	switch (find_coercion_pathway(TEXTOID, getBaseType(type), COERCION_EXPLICIT,
								&fn))
	{
		case COERCION_PATH_FUNC:
			cc->key_text_how = KEY_TEXT_CAST;
			break;
		case COERCION_PATH_RELABELTYPE:
			cc->key_text_how = KEY_TEXT_AS_IS;
			break;
		default:
			cc->key_text_how = KEY_TEXT_OUTPUT;
			getTypeOutputInfo(type, &fn, &varlena);
			break;
	}
	if (OidIsValid(fn))
		fmgr_info_cxt(fn, &cc->key_text_fn, fcinfo->flinfo->fn_mcxt);
	cc->key_type = type;
}

/* The text of key argument argno of any other type, as key::text makes it */
static inline char *
call_key_text(FunctionCallInfo fcinfo, int argno)
{
	RingCallCache *cc = (RingCallCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(!OidIsValid(cc->key_type)))
		call_key_text_resolve(fcinfo);
	switch (cc->key_text_how)
	{
		case KEY_TEXT_OUTPUT:
			return OutputFunctionCall(&cc->key_text_fn, PG_GETARG_DATUM(argno));
		case KEY_TEXT_CAST:
			return text_to_cstring(DatumGetTextPP(FunctionCall1(&cc->key_text_fn,
																PG_GETARG_DATUM(argno))));
		case KEY_TEXT_AS_IS:
			return text_to_cstring(PG_GETARG_TEXT_PP(argno));
	}
	pg_unreachable();
}

/*
 * Whether the call's text keys are hashed as they are: the database's
 * encoding, kept in the call's cache (call_ring has made it)
 */
static inline bool
call_utf8_as_is(FunctionCallInfo fcinfo)
{
	return ((RingCallCache *) fcinfo->flinfo->fn_extra)->utf8_as_is;
}

/* Hash text in the server encoding as chash_text_bytes says */
static inline uint64
hash_server_text(const ChashHashFunction *hash, const char *tag,
				 const char *s, int len)
{
	int			blen;
	const char *b = chash_text_bytes(s, len, &blen);
	uint64		h = chash_hash_tagged(hash, tag, (const unsigned char *) b, blen);

	if (b != s)
		pfree((char *) b);
	return h;
}

static inline int
format_uuid(const pg_uuid_t *uuid, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int			len = 0;

	for (int i = 0; i < UUID_LEN; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[len++] = '-';
		buf[len++] = hex[uuid->data[i] >> 4];
		buf[len++] = hex[uuid->data[i] & 0x0F];
	}
	return len;
}

/* The hash of an integer as its 'size' bytes, big-endian (binary_keys) */
static uint64
hash_binary_key(const ChashHashFunction *hash, const char *tag, int64 value,
				int size)
{
	unsigned char b[8];

	for (int i = size - 1; i >= 0; i--, value >>= 8)
		b[i] = (unsigned char) (value & 0xFF);
	return chash_hash_tagged(hash, tag, b, size);
}

/* The hash of key argument argno, of the given type, by its tag if any */
static pg_attribute_always_inline uint64
hash_key_arg(const ChashHashFunction *hash, const char *tag, bool utf8_as_is,
			 FunctionCallInfo fcinfo, int argno, ChashKeyType type)
{
	char		buf[MAXINT8LEN + 1 + 2 * UUID_LEN];
	int			len;

	switch (type)
	{
		case CHASH_KEY_TEXT:
			{
				text	   *t = PG_GETARG_TEXT_PP(argno);

				if (likely(utf8_as_is))
					return chash_hash_tagged(hash, tag,
											 (const unsigned char *) VARDATA_ANY(t),
											 VARSIZE_ANY_EXHDR(t));
				return hash_server_text(hash, tag, VARDATA_ANY(t),
										VARSIZE_ANY_EXHDR(t));
			}
		case CHASH_KEY_BYTEA:
			{
				bytea	   *b = PG_GETARG_BYTEA_PP(argno);

				return chash_hash_tagged(hash, tag,
										 (const unsigned char *) VARDATA_ANY(b),
										 VARSIZE_ANY_EXHDR(b));
			}
		case CHASH_KEY_ANY:
			{
				char	   *s = call_key_text(fcinfo, argno);
				uint64		h;

				if (likely(utf8_as_is))
					h = chash_hash_tagged(hash, tag, (const unsigned char *) s,
										  strlen(s));
				else
					h = hash_server_text(hash, tag, s, strlen(s));
				pfree(s);
				return h;
			}
		case CHASH_KEY_INT2:
			if (unlikely(hash->binary_keys))
				return hash_binary_key(hash, tag, PG_GETARG_INT16(argno), 2);
			len = pg_lltoa(PG_GETARG_INT16(argno), buf);
			break;
		case CHASH_KEY_INT4:
			if (unlikely(hash->binary_keys))
				return hash_binary_key(hash, tag, PG_GETARG_INT32(argno), 4);
			len = pg_lltoa(PG_GETARG_INT32(argno), buf);
			break;
		case CHASH_KEY_INT8:
			if (unlikely(hash->binary_keys))
				return hash_binary_key(hash, tag, PG_GETARG_INT64(argno), 8);
			len = pg_lltoa(PG_GETARG_INT64(argno), buf);
			break;
		case CHASH_KEY_UUID:
			if (unlikely(hash->binary_keys))
				return chash_hash_tagged(hash, tag,
										 PG_GETARG_UUID_P(argno)->data,
										 UUID_LEN);
			len = format_uuid(PG_GETARG_UUID_P(argno), buf);
			break;
		default:
			pg_unreachable();
	}
	/* as its text would be: a tag of "-" or digits applies */
	return chash_hash_tagged(hash, tag, (const unsigned char *) buf, len);
}

/*
 * The bytes of key argument argno, as hash_key_arg hashes them, its tag
 * applied, for keyed placements: into buf where they are made here (buf
 * holds MAXINT8LEN + 1 + 2 * UUID_LEN bytes); *to_free is a palloc'd
 * conversion, or NULL
 */
static const unsigned char *
key_arg_bytes(const ChashPlacement *ring, bool utf8_as_is,
			  FunctionCallInfo fcinfo, int argno, ChashKeyType type,
			  char *buf, size_t *len, char **to_free)
{
	const ChashHashFunction *hash = ring->spec.key_hash;
	const unsigned char *data;
	int64		value = 0;
	int			size = 0;

	*to_free = NULL;
	switch (type)
	{
		case CHASH_KEY_TEXT:
			{
				text	   *t = PG_GETARG_TEXT_PP(argno);
				int			blen = VARSIZE_ANY_EXHDR(t);

				data = (const unsigned char *) VARDATA_ANY(t);
				if (!utf8_as_is)
				{
					data = (const unsigned char *)
						chash_text_bytes(VARDATA_ANY(t), blen, &blen);
					if ((const char *) data != VARDATA_ANY(t))
						*to_free = (char *) data;
				}
				*len = blen;
				break;
			}
		case CHASH_KEY_BYTEA:
			{
				bytea	   *b = PG_GETARG_BYTEA_PP(argno);

				data = (const unsigned char *) VARDATA_ANY(b);
				*len = VARSIZE_ANY_EXHDR(b);
				break;
			}
		case CHASH_KEY_ANY:
			{
				char	   *s = call_key_text(fcinfo, argno);
				int			blen = strlen(s);

				data = (const unsigned char *) s;
				if (!utf8_as_is)
				{
					data = (const unsigned char *)
						chash_text_bytes(s, blen, &blen);
					if ((const char *) data != s)
						pfree(s);
				}
				*to_free = (char *) data;
				*len = blen;
				break;
			}
		case CHASH_KEY_INT2:
			value = PG_GETARG_INT16(argno);
			size = 2;
			break;
		case CHASH_KEY_INT4:
			value = PG_GETARG_INT32(argno);
			size = 4;
			break;
		case CHASH_KEY_INT8:
			value = PG_GETARG_INT64(argno);
			size = 8;
			break;
		case CHASH_KEY_UUID:
			if (hash->binary_keys)
			{
				memcpy(buf, PG_GETARG_UUID_P(argno)->data, UUID_LEN);
				*len = UUID_LEN;
			}
			else
				*len = format_uuid(PG_GETARG_UUID_P(argno), buf);
			data = (const unsigned char *) buf;
			break;
		default:
			pg_unreachable();
	}
	if (size > 0)
	{
		if (hash->binary_keys)
		{
			for (int i = size - 1; i >= 0; i--, value >>= 8)
				buf[i] = (char) (value & 0xFF);
			*len = size;
		}
		else
			*len = pg_lltoa(value, buf);
		data = (const unsigned char *) buf;
	}
	chash_hash_tag_slice(ring->spec.hash_tag, &data, len);
	return data;
}

/*
 * Keys hashed as their SQL type (key hashes of typed_keys: PostgreSQL's
 * hash partitioning).  As get_partition_for_tuple places a row: each
 * non-NULL column hashed by its type's extended hash function (of the
 * default hash operator class, the function PostgreSQL itself calls, so
 * that every type and every major hashes alike) with the column's
 * collation and seed HASH_PARTITION_SEED, the hashes combined by
 * hash_combine64 from 0.  A ring that records its key columns' types
 * (key_types) refuses keys of other types, which would hash differently;
 * a key of several columns is a row of them, ROW(a, b).
 */
StaticAssertDecl(CHASH_PG_PARTITION_SEED == HASH_PARTITION_SEED,
				 "chash's partition seed is PostgreSQL's");

/* Whether a key of type key hashes as a key column of type column does */
static bool
typed_key_matches(Oid key, Oid column)
{
	TypeCacheEntry *k;
	TypeCacheEntry *c;

	if (key == column)
		return true;
	if (!IsBinaryCoercible(key, column))
		return false;
	k = lookup_type_cache(getBaseType(key), TYPECACHE_HASH_EXTENDED_PROC);
	c = lookup_type_cache(getBaseType(column), TYPECACHE_HASH_EXTENDED_PROC);
	return OidIsValid(k->hash_extended_proc) &&
		k->hash_extended_proc == c->hash_extended_proc;
}

/* The partition hash of one column's value, of type type */
static uint64
typed_column_hash(const ChashPlacement *ring, Oid type, Oid collation,
				  Datum value)
{
	TypeCacheEntry *tc = lookup_type_cache(getBaseType(type),
										   TYPECACHE_HASH_EXTENDED_PROC_FINFO);

	if (unlikely(!OidIsValid(tc->hash_extended_proc)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("type %s has no extended hash function",
						format_type_be(type)),
				 errdetail("Ring \"%s\" hashes keys as PostgreSQL's hash partitioning does, by the extended hash function of their type's default hash operator class.",
						   ring->spec.name)));
	if (unlikely(collation == CHASH_COLLATION_MISSING))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("a key collation of ring \"%s\" does not exist",
						ring->spec.name),
				 errdetail("chash.ring_config.key_collations names a collation that is not in this database."),
				 errhint("Import the ring again from its partitioned table.")));
	if (!OidIsValid(collation))
		collation = get_typcollation(type);
	return DatumGetUInt64(FunctionCall2Coll(&tc->hash_extended_proc_finfo,
											collation, value,
											UInt64GetDatum(CHASH_PG_PARTITION_SEED)));
}

static pg_noinline void
typed_key_error(const ChashPlacement *ring, Oid type)
{
	const ChashRingSpec *spec = &ring->spec;
	StringInfoData types;

	initStringInfo(&types);
	for (int i = 0; i < spec->nkey_types; i++)
		appendStringInfo(&types, "%s%s", i > 0 ? ", " : "",
						 format_type_be(spec->key_types[i]));
	if (spec->nkey_types == 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("ring \"%s\" takes keys of type %s, not %s",
						spec->name, types.data, format_type_be(type)),
				 errdetail("Its key column is of type %s: PostgreSQL hashes each type by a function of its own, so a key of another type is refused rather than hashed as that type.",
						   types.data),
				 errhint("Cast the key to %s.", types.data)));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("ring \"%s\" takes keys of %d columns (%s), not of type %s",
					spec->name, spec->nkey_types, types.data,
					format_type_be(type)),
			 errdetail("A key of several columns is a row of the columns' values, in the partition key's order, each of its column's type."),
			 errhint("Pass the key as ROW(value1, value2, ...), each value cast to its column's type.")));
}

/* The partition hash of a key given as a row: each column's, combined */
static uint64
typed_row_hash(const ChashPlacement *ring, Datum key)
{
	const ChashRingSpec *spec = &ring->spec;
	HeapTupleHeader td = DatumGetHeapTupleHeader(key);
	TupleDesc	tupdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
												 HeapTupleHeaderGetTypMod(td));
	HeapTupleData tuple;
	Datum	   *values;
	bool	   *nulls;
	int			column = 0;
	uint64		hash = 0;

	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;
	values = palloc(sizeof(Datum) * Max(tupdesc->natts, 1));
	nulls = palloc(sizeof(bool) * Max(tupdesc->natts, 1));
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		if (column >= spec->nkey_types ||
			!typed_key_matches(att->atttypid, spec->key_types[column]))
		{
			Oid			type = HeapTupleHeaderGetTypeId(td);

			ReleaseTupleDesc(tupdesc);
			typed_key_error(ring, type);
		}
		column++;
	}
	if (column != spec->nkey_types)
	{
		Oid			type = HeapTupleHeaderGetTypeId(td);

		ReleaseTupleDesc(tupdesc);
		typed_key_error(ring, type);
	}
	heap_deform_tuple(&tuple, tupdesc, values, nulls);
	column = 0;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		if (TupleDescAttr(tupdesc, i)->attisdropped)
			continue;
		/* NULL columns are skipped, as PostgreSQL skips them */
		if (!nulls[i])
			hash = hash_combine64(hash,
								  typed_column_hash(ring, spec->key_types[column],
													spec->key_collations[column],
													values[i]));
		column++;
	}
	ReleaseTupleDesc(tupdesc);
	pfree(values);
	pfree(nulls);
	return hash;
}

/* The position of key argument argno of a ring whose key hash is typed */
static pg_noinline uint64
typed_key_position(FunctionCallInfo fcinfo, const ChashPlacement *ring,
				   int argno)
{
	const ChashRingSpec *spec = &ring->spec;
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Datum		key = PG_GETARG_DATUM(argno);

	if (!OidIsValid(type))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the type of the key")));
	if (spec->nkey_types == 0)
		return hash_combine64(0, typed_column_hash(ring, type,
												   PG_GET_COLLATION(), key));
	if (spec->nkey_types == 1 && typed_key_matches(type, spec->key_types[0]))
		return hash_combine64(0, typed_column_hash(ring, spec->key_types[0],
												   spec->key_collations[0],
												   key));
	if (spec->nkey_types > 1 && type_is_rowtype(type))
		return typed_row_hash(ring, key);
	typed_key_error(ring, type);
	pg_unreachable();
}

/* The owner of a key of a keyed placement, or its preference order */
static uint32
keyed_owner(const ChashPlacement *ring, FunctionCallInfo fcinfo,
			ChashKeyType type, uint32 *order)
{
	char		buf[MAXINT8LEN + 1 + 2 * UUID_LEN];
	size_t		len;
	char	   *to_free;
	const unsigned char *key = key_arg_bytes(ring, call_utf8_as_is(fcinfo),
											 fcinfo, 1, type, buf, &len,
											 &to_free);
	uint32		owner = 0;

	if (order != NULL)
		ring->spec.algorithm->key_preference(ring, key, len, order);
	else
		owner = ring->spec.algorithm->key_owner(ring, key, len);
	if (to_free != NULL)
		pfree(to_free);
	return owner;
}

/* chash_lookup(ring, key): the node that owns the key */
static pg_attribute_always_inline Datum
lookup_internal(FunctionCallInfo fcinfo, ChashKeyType type)
{
	const ChashPlacement *ring = call_ring(fcinfo);
	uint64		position;

	if (unlikely(ring->nactive == 0))
		chash_error_no_active_nodes(ring);
	if (unlikely(ring->spec.keyed))
		PG_RETURN_TEXT_P(call_node_text(fcinfo, ring,
										keyed_owner(ring, fcinfo, type, NULL)));
	if (unlikely(ring->spec.key_hash->typed_keys))
		position = typed_key_position(fcinfo, ring, 1);
	else
		position = hash_key_arg(ring->spec.key_hash, ring->spec.hash_tag,
								call_utf8_as_is(fcinfo),
								fcinfo, 1, type);
	PG_RETURN_TEXT_P(call_node_text(fcinfo, ring,
									chash_placement_owner(ring, position)));
}

/*
 * chash_lookup_n(ring, key, n[, distinct_zones]): the first n distinct
 * nodes of the key's preference order, whose first element is
 * chash_lookup's answer; with distinct_zones, picked by zones first
 */
static pg_attribute_always_inline Datum
lookup_n_internal(FunctionCallInfo fcinfo, ChashKeyType type)
{
	const ChashPlacement *ring = call_ring(fcinfo);
	int32		n = PG_GETARG_INT32(2);
	bool		distinct_zones = PG_NARGS() > 3 && PG_GETARG_BOOL(3);
	uint64		position;
	uint32	   *order;
	Datum	   *nodes;
	ArrayType  *result;

	if (unlikely(ring->nactive == 0))
		chash_error_no_active_nodes(ring);
	if (n < 1 || n > ring->nactive)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 ring->kind == CHASH_PLACEMENT_POINTS ?
				 errmsg("n must be between 1 and the number of nodes with points (%d)",
						ring->nactive) :
				 errmsg("n must be between 1 and the number of active nodes (%d)",
						ring->nactive),
				 errdetail("n is %d.", n)));

	if (unlikely(ring->spec.keyed))
	{
		/* every active node by score, then the first n, by zones if asked */
		uint32	   *all = palloc(sizeof(uint32) * ring->nactive);

		keyed_owner(ring, fcinfo, type, all);
		order = palloc(sizeof(uint32) * n);
		if (distinct_zones)
			chash_zones_pick(ring, all, ring->nactive, order, n);
		else
			memcpy(order, all, sizeof(uint32) * n);
		pfree(all);
	}
	else
	{
		if (unlikely(ring->spec.key_hash->typed_keys))
			position = typed_key_position(fcinfo, ring, 1);
		else
			position = hash_key_arg(ring->spec.key_hash, ring->spec.hash_tag,
									call_utf8_as_is(fcinfo),
									fcinfo, 1, type);
		order = palloc(sizeof(uint32) * n);
		if (distinct_zones)
			chash_placement_preference_zones(ring, position, order, n);
		else
			chash_placement_preference(ring, position, order, n);
	}
	nodes = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		nodes[i] = PointerGetDatum(chash_node_text(ring, order[i]));
	result = construct_array(nodes, n, TEXTOID, -1, false, TYPALIGN_INT);
	for (int i = 0; i < n; i++)
		pfree(DatumGetPointer(nodes[i]));
	pfree(nodes);
	pfree(order);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* chash_position(ring, key): where the key falls on the ring */
static pg_attribute_always_inline Datum
position_internal(FunctionCallInfo fcinfo, ChashKeyType type)
{
	const ChashPlacement *ring = call_ring(fcinfo);
	const ChashHashFunction *key_hash = ring->spec.key_hash;

	if (unlikely(key_hash->typed_keys))
		PG_RETURN_INT64(chash_position_to_int64(key_hash,
												typed_key_position(fcinfo, ring, 1)));
	PG_RETURN_INT64(chash_position_to_int64(key_hash,
											hash_key_arg(key_hash,
														 ring->spec.hash_tag,
														 call_utf8_as_is(fcinfo),
														 fcinfo, 1, type)));
}

/* One C function per SQL overload, each a specialisation of the above */
#define CHASH_ROUTING_FUNCTIONS(suffix, keytype) \
PG_FUNCTION_INFO_V1(chash_lookup_##suffix); \
Datum \
chash_lookup_##suffix(PG_FUNCTION_ARGS) \
{ \
	return lookup_internal(fcinfo, keytype); \
} \
PG_FUNCTION_INFO_V1(chash_lookup_n_##suffix); \
Datum \
chash_lookup_n_##suffix(PG_FUNCTION_ARGS) \
{ \
	return lookup_n_internal(fcinfo, keytype); \
} \
PG_FUNCTION_INFO_V1(chash_position_##suffix); \
Datum \
chash_position_##suffix(PG_FUNCTION_ARGS) \
{ \
	return position_internal(fcinfo, keytype); \
}

CHASH_ROUTING_FUNCTIONS(text, CHASH_KEY_TEXT)
CHASH_ROUTING_FUNCTIONS(bytea, CHASH_KEY_BYTEA)
CHASH_ROUTING_FUNCTIONS(int4, CHASH_KEY_INT4)
CHASH_ROUTING_FUNCTIONS(int8, CHASH_KEY_INT8)
CHASH_ROUTING_FUNCTIONS(uuid, CHASH_KEY_UUID)
CHASH_ROUTING_FUNCTIONS(int2, CHASH_KEY_INT2)
CHASH_ROUTING_FUNCTIONS(any, CHASH_KEY_ANY)

/*
 * Whether fn is one of the functions above, which route on the ring their
 * first argument names (functions/parallel.c)
 */
bool
chash_is_routing_function(PGFunction fn)
{
#define ROUTING(suffix) \
	chash_lookup_##suffix, chash_lookup_n_##suffix, chash_position_##suffix
	static const PGFunction routing[] = {
		ROUTING(text), ROUTING(bytea), ROUTING(int4), ROUTING(int8),
		ROUTING(uuid), ROUTING(int2), ROUTING(any)
	};
#undef ROUTING

	for (int i = 0; i < lengthof(routing); i++)
	{
		if (routing[i] == fn)
			return true;
	}
	return false;
}

/*
 * The ring of a call of chash_lookup_partitioned: an elasticsearch ring
 * with a node, and a partition size it can have
 */
static const ChashPlacement *
partitioned_ring(FunctionCallInfo fcinfo, int32 partition_size)
{
	const ChashPlacement *ring = call_ring(fcinfo);

	if (ring->spec.algorithm != &chash_algorithm_elasticsearch)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ring \"%s\" is not an elasticsearch ring", ring->spec.name),
				 errdetail("chash_lookup_partitioned routes as an Elasticsearch index of routing_partition_size does; ring \"%s\" uses algorithm \"%s\".",
						   ring->spec.name, ring->spec.algorithm->name),
				 errhint("Create the ring with chash_ring_create(ring, profile => 'elasticsearch').")));
	if (unlikely(ring->nactive == 0))
		chash_error_no_active_nodes(ring);
	chash_es_check_partition_size(ring, partition_size);
	return ring;
}

/*
 * chash_lookup_partitioned(ring, routing, id, routing_partition_size): the
 * shard of a document of a partitioned Elasticsearch index
 */
PG_FUNCTION_INFO_V1(chash_lookup_partitioned);

Datum
chash_lookup_partitioned(PG_FUNCTION_ARGS)
{
	const ChashPlacement *ring = partitioned_ring(fcinfo, PG_GETARG_INT32(3));
	uint64		routing = hash_key_arg(ring->spec.key_hash, ring->spec.hash_tag,
									   call_utf8_as_is(fcinfo), fcinfo, 1,
									   CHASH_KEY_TEXT);
	uint64		id = hash_key_arg(ring->spec.key_hash, ring->spec.hash_tag,
								  call_utf8_as_is(fcinfo), fcinfo, 2,
								  CHASH_KEY_TEXT);
	uint64		position = chash_es_partition_position(routing, id,
													   PG_GETARG_INT32(3));

	PG_RETURN_TEXT_P(call_node_text(fcinfo, ring,
									chash_placement_owner(ring, position)));
}

/*
 * chash_lookup_partitioned(ring, routing, routing_partition_size): the
 * shards a search with that routing visits, in shard order
 */
PG_FUNCTION_INFO_V1(chash_lookup_partitioned_search);

Datum
chash_lookup_partitioned_search(PG_FUNCTION_ARGS)
{
	int32		partition_size = PG_GETARG_INT32(2);
	const ChashPlacement *ring = partitioned_ring(fcinfo, partition_size);
	uint64		routing = hash_key_arg(ring->spec.key_hash, ring->spec.hash_tag,
									   call_utf8_as_is(fcinfo), fcinfo, 1,
									   CHASH_KEY_TEXT);
	bool	   *visited = palloc0(sizeof(bool) * ring->spec.nnodes);
	Datum	   *nodes = palloc(sizeof(Datum) * ring->nactive);
	int			n = 0;
	ArrayType  *result;

	for (int32 i = 0, seen = 0; i < partition_size && seen < ring->nactive; i++)
	{
		uint32		owner = chash_placement_owner(ring, (uint32) ((uint32) routing + (uint32) i));

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!visited[owner])
			seen++;
		visited[owner] = true;
	}
	for (int m = 0; m < ring->nactive; m++)
	{
		if (visited[ring->members[m]])
			nodes[n++] = PointerGetDatum(chash_node_text(ring, ring->members[m]));
	}
	result = construct_array(nodes, n, TEXTOID, -1, false, TYPALIGN_INT);
	for (int i = 0; i < n; i++)
		pfree(DatumGetPointer(nodes[i]));
	pfree(nodes);
	pfree(visited);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* What chash_hash keeps between calls: the function last named */
typedef struct HashCallCache
{
	const ChashHashFunction *hash;
	int			name_len;
	char		name[NAMEDATALEN];
} HashCallCache;

static const ChashHashFunction *
call_hash(FunctionCallInfo fcinfo)
{
	HashCallCache *hc = (HashCallCache *) fcinfo->flinfo->fn_extra;
	text	   *arg = PG_GETARG_TEXT_PP(0);
	const char *name = VARDATA_ANY(arg);
	int			len = VARSIZE_ANY_EXHDR(arg);

	if (likely(hc != NULL && hc->name_len == len &&
			   memcmp(hc->name, name, len) == 0))
		return hc->hash;

	if (hc == NULL)
	{
		hc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									sizeof(HashCallCache));
		fcinfo->flinfo->fn_extra = hc;
	}
	hc->hash = chash_hash_get(text_to_cstring(arg));
	/* a known name is short; remember it as given */
	hc->name_len = len;
	memcpy(hc->name, name, len);
	return hc->hash;
}

/* chash_hash(hash, key): a hash function applied to a key, as a position */
PG_FUNCTION_INFO_V1(chash_hash_text);

Datum
chash_hash_text(PG_FUNCTION_ARGS)
{
	const ChashHashFunction *hash = call_hash(fcinfo);

	PG_RETURN_INT64(chash_position_to_int64(hash,
											hash_key_arg(hash, NULL,
														 chash_utf8_as_is(),
														 fcinfo, 1,
														 CHASH_KEY_TEXT)));
}

PG_FUNCTION_INFO_V1(chash_hash_bytea);

Datum
chash_hash_bytea(PG_FUNCTION_ARGS)
{
	const ChashHashFunction *hash = call_hash(fcinfo);

	PG_RETURN_INT64(chash_position_to_int64(hash,
											hash_key_arg(hash, NULL,
														 chash_utf8_as_is(),
														 fcinfo, 1,
														 CHASH_KEY_BYTEA)));
}
