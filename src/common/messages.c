/*-------------------------------------------------------------------------
 *
 * messages.c
 *	  What chash's errors share: names cut for messages, and the error for
 *	  a name that is not in one of chash's tables.
 *
 * Every layer reports with these, so they sit at the bottom, beside the
 * limits: pure code may call them (the unit build links this file too).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"

#include "common/chash.h"

/*
 * The error for a name that is not in one of chash's tables (hash
 * functions, algorithms), with a hint listing the valid names.
 */
void
chash_error_unknown(const char *what, const char *plural, const char *name,
					int count, const char *(*name_at) (int))
{
	StringInfoData valid;

	initStringInfo(&valid);
	for (int i = 0; i < count; i++)
		appendStringInfo(&valid, "%s\"%s\"", i > 0 ? ", " : "", name_at(i));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown %s \"%s\"", what, chash_message_name(name, strlen(name))),
			 errhint("Valid %s are %s.", plural, valid.data)));
}

/*
 * A name for a message: as it is (NUL-terminated), or its first
 * CHASH_MESSAGE_NAME_BYTES bytes, cut at a character, and "...": a name of
 * megabytes must not write megabytes to the log.
 */
const char *
chash_message_name(const char *name, int len)
{
	int			cut;

	if (len <= CHASH_MESSAGE_NAME_BYTES)
		return pnstrdup(name, len);
	cut = pg_mbcliplen(name, len, CHASH_MESSAGE_NAME_BYTES);
	return psprintf("%.*s...", cut, name);
}

