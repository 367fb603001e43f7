/*-------------------------------------------------------------------------
 *
 * errors.c
 *	  chash.raise_without_context: the error a PL/pgSQL function of chash
 *	  caught, raised again without its CONTEXT.
 *
 * An error raised inside chash's PL/pgSQL functions carries the call chain
 * down to where it was raised: internal helpers and the text of internal
 * statements.  That is chash's business, not the caller's, so the public
 * functions catch what they raise and raise it again through this, with
 * the same SQLSTATE, message, detail and hint, as a function written in C
 * reports its errors: the CONTEXT shows the caller's own frames only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

/* a text argument, or NULL if it is NULL or empty (no detail, no hint) */
static char *
arg_or_null(FunctionCallInfo fcinfo, int argno)
{
	char	   *s;

	if (PG_ARGISNULL(argno))
		return NULL;
	s = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	return s[0] == '\0' ? NULL : s;
}

PG_FUNCTION_INFO_V1(chash_raise_without_context);

Datum
chash_raise_without_context(PG_FUNCTION_ARGS)
{
	char	   *sqlstate = arg_or_null(fcinfo, 0);
	char	   *message = arg_or_null(fcinfo, 1);
	char	   *detail = arg_or_null(fcinfo, 2);
	char	   *hint = arg_or_null(fcinfo, 3);

	if (sqlstate == NULL || message == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sqlstate and message must not be null or empty")));
	if (strlen(sqlstate) != 5 ||
		strspn(sqlstate, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != 5)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid SQLSTATE code \"%s\"", sqlstate)));
	/* class 00 is success, not an error */
	if (strncmp(sqlstate, "00", 2) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("SQLSTATE \"%s\" is not an error", sqlstate)));

	/*
	 * The CONTEXT is what the error context stack says when the error is
	 * raised.  Its top two frames are this call's: the PERFORM statement
	 * and the chash function that caught the error, which is where the
	 * caller's view begins.  Dropping them leaves the caller's own frames
	 * (its PL/pgSQL functions, say); the error's own frames went with the
	 * catch.  Every way out of ereport(ERROR) restores the stack: the
	 * exception blocks and the main loop set it back themselves.
	 */
	for (int i = 0; i < 2 && error_context_stack != NULL; i++)
		error_context_stack = error_context_stack->previous;
	ereport(ERROR,
			(errcode(MAKE_SQLSTATE(sqlstate[0], sqlstate[1], sqlstate[2],
								   sqlstate[3], sqlstate[4])),
			 errmsg_internal("%s", message),
			 detail ? errdetail_internal("%s", detail) : 0,
			 hint ? errhint("%s", hint) : 0));
	PG_RETURN_VOID();
}
