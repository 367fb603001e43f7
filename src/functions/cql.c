/*-------------------------------------------------------------------------
 *
 * cql.c
 *	  chash_cql_key(VARIADIC "any"): a partition key as Cassandra's CQL
 *	  serialises it, the bytes its Murmur3Partitioner hashes.
 *
 * One value is its CQL form alone: text as UTF-8, smallint, int and bigint
 * as 2, 4 and 8 bytes big-endian, boolean as one byte, uuid as its 16
 * bytes, blob (bytea) as itself.  Two or more are a composite partition
 * key, as CompositeType writes it: each value's length in 2 bytes
 * big-endian, the value, then a 0 byte.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/uuid.h"

#include "common/chash.h"

/* The largest component of a composite key: its length is 2 bytes */
#define CQL_MAX_COMPONENT	65535

/* Append an integer's 'size' bytes, big-endian */
static void
append_big_endian(StringInfo buf, int64 value, int size)
{
	char		b[8];

	for (int i = size - 1; i >= 0; i--, value >>= 8)
		b[i] = (char) (value & 0xFF);
	appendBinaryStringInfo(buf, b, size);
}

/* Append the text's UTF-8 bytes */
static void
append_utf8(StringInfo buf, const char *s, int len)
{
	char	   *u = pg_server_to_any(s, len, PG_UTF8);

	appendBinaryStringInfo(buf, u, u == s ? len : (int) strlen(u));
	if (u != s)
		pfree(u);
}

/* Append the CQL form of one value of type typid (a base type) */
static void
append_value(StringInfo buf, Datum value, Oid typid, int argno)
{
	switch (typid)
	{
		case TEXTOID:
		case VARCHAROID:
			{
				text	   *t = DatumGetTextPP(value);

				append_utf8(buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
				break;
			}
		case UNKNOWNOID:
			{
				const char *s = DatumGetCString(value);

				append_utf8(buf, s, (int) strlen(s));
				break;
			}
		case BYTEAOID:
			{
				bytea	   *b = DatumGetByteaPP(value);

				appendBinaryStringInfo(buf, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
				break;
			}
		case INT2OID:
			append_big_endian(buf, DatumGetInt16(value), 2);
			break;
		case INT4OID:
			append_big_endian(buf, DatumGetInt32(value), 4);
			break;
		case INT8OID:
			append_big_endian(buf, DatumGetInt64(value), 8);
			break;
		case BOOLOID:
			appendStringInfoChar(buf, DatumGetBool(value) ? 1 : 0);
			break;
		case UUIDOID:
			appendBinaryStringInfo(buf, (const char *) DatumGetUUIDP(value)->data,
								   UUID_LEN);
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("chash_cql_key does not take values of type %s",
							format_type_be(typid)),
					 errdetail("Argument %d is of type %s.", argno,
							   format_type_be(typid)),
					 errhint("Give text, varchar, bytea, smallint, integer, bigint, boolean or uuid values, as CQL's text, blob, smallint, int, bigint, boolean and uuid.")));
	}
}

/*
 * Append value argno of nvalues, as itself if it is the only one, else as
 * a component of a composite key
 */
static void
append_component(StringInfo buf, Datum value, bool isnull, Oid typid,
				 int argno, int nvalues)
{
	int			start;
	int			len;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a partition key value must not be null"),
				 errdetail("Argument %d is null.", argno)));
	typid = getBaseType(typid);
	if (nvalues == 1)
	{
		append_value(buf, value, typid, argno);
		return;
	}
	start = buf->len;
	appendBinaryStringInfo(buf, "\0\0", 2);
	append_value(buf, value, typid, argno);
	len = buf->len - start - 2;
	if (len > CQL_MAX_COMPONENT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("component %d of the partition key is too long", argno),
				 errdetail("It is %d bytes; a component of a composite key holds at most %d.",
						   len, CQL_MAX_COMPONENT)));
	buf->data[start] = (char) (len >> 8);
	buf->data[start + 1] = (char) (len & 0xFF);
	appendStringInfoChar(buf, 0);
}

PG_FUNCTION_INFO_V1(chash_cql_key);

Datum
chash_cql_key(PG_FUNCTION_ARGS)
{
	StringInfoData buf;
	bytea	   *result;

	initStringInfo(&buf);
	if (get_fn_expr_variadic(fcinfo->flinfo))
	{
		/* chash_cql_key(VARIADIC array): the array's elements */
		ArrayType  *array;
		Oid			elemtype;
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		Datum	   *elems;
		bool	   *nulls;
		int			nelems;

		if (PG_ARGISNULL(0))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the VARIADIC array of chash_cql_key must not be null")));
		array = PG_GETARG_ARRAYTYPE_P(0);
		/* a key's values are a list: deconstruct_array would flatten more */
		if (ARR_NDIM(array) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("the VARIADIC array of chash_cql_key must have one dimension"),
					 errdetail("It has %d dimensions.", ARR_NDIM(array)),
					 errhint("Give the partition key's values as a one-dimensional array, in the order of the key's columns.")));
		elemtype = ARR_ELEMTYPE(array);
		get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
		deconstruct_array(array, elemtype, elmlen, elmbyval, elmalign,
						  &elems, &nulls, &nelems);
		if (nelems == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a partition key has at least one value")));
		for (int i = 0; i < nelems; i++)
			append_component(&buf, elems[i], nulls[i], elemtype, i + 1, nelems);
	}
	else
	{
		for (int i = 0; i < PG_NARGS(); i++)
			append_component(&buf, PG_GETARG_DATUM(i), PG_ARGISNULL(i),
							 get_fn_expr_argtype(fcinfo->flinfo, i), i + 1,
							 PG_NARGS());
	}

	result = (bytea *) palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(result, VARHDRSZ + buf.len);
	memcpy(VARDATA(result), buf.data, buf.len);
	pfree(buf.data);
	PG_RETURN_BYTEA_P(result);
}
