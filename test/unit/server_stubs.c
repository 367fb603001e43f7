/*
 * server_stubs.c
 *		The few server functions that chash's ring code calls, for the
 *		programs that run that code outside PostgreSQL: the unit test
 *		(test/unit/ring_test.c) and make bench's core_bench.c.
 *
 * The pure code (test/bin/pure-code.sh: src/common, src/hash, src/placement)
 * is pure: it allocates with palloc and reports errors with ereport, and
 * nothing else of the server.  palloc, StringInfo, UTF-8 and sorting come
 * from PostgreSQL's own frontend libraries (libpgcommon, libpgport); this
 * file gives the rest: memory contexts as plain malloc (nothing is freed
 * but what the code frees itself), errors that print and exit (lower
 * levels are dropped), and interrupts that are only counted.
 *
 * A program that takes errors back (the fuzz harnesses of test/fuzz/)
 * points chash_stub_error_jump at a sigsetjmp buffer: an ERROR then prints
 * nothing and jumps there instead of exiting, its primary message kept in
 * chash_stub_error_message.  Left NULL, as the unit test and the benchmark
 * leave it, errors print and exit as before.
 */
#include "postgres.h"

#include <setjmp.h>
#include <signal.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "placement/placement.h"

MemoryContext CurrentMemoryContext = NULL;
volatile sig_atomic_t InterruptPending = false;

/* any context will do: every allocation is malloc's */
static MemoryContextData the_context;

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name,
							  Size minContextSize, Size initBlockSize,
							  Size maxBlockSize)
{
	return &the_context;
}

void
MemoryContextSetIdentifier(MemoryContext context, const char *id)
{
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	void	   *p = malloc(size);

	if (p == NULL)
	{
		fprintf(stderr, "chash outside the server: out of memory\n");
		exit(2);
	}
	return p;
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	void	   *p = MemoryContextAllocHuge(context, size);

	memset(p, 0, size);
	return p;
}

/* CHECK_FOR_INTERRUPTS calls this where InterruptPending is set: count */
long		chash_test_interrupt_checks = 0;

void
ProcessInterrupts(void)
{
	chash_test_interrupt_checks++;
}

int
pg_lltoa(int64 value, char *a)
{
	return sprintf(a, "%lld", (long long) value);
}

/*
 * Assert() of src/ where USE_ASSERT_CHECKING is on: a server built with
 * --enable-cassert, and make fuzz's harnesses (abort() is what libFuzzer
 * catches)
 */
#ifdef USE_ASSERT_CHECKING
#if PG_VERSION_NUM >= 160000
void
ExceptionalCondition(const char *conditionName, const char *fileName,
					 int lineNumber)
#else
void
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
#endif
{
	fprintf(stderr, "chash outside the server: failed Assert(\"%s\"), %s:%d\n",
			conditionName, fileName, lineNumber);
	abort();
}
#endif

/*
 * Reports: ERROR and above print their message on stderr and exit (or jump,
 * see above); lower levels (DEBUG, NOTICE, WARNING) are skipped, as
 * errstart tells ereport
 */
static int	report_level;
sigjmp_buf *chash_stub_error_jump = NULL;
char		chash_stub_error_message[256];

bool
errstart_cold(int elevel, const char *domain)
{
	report_level = elevel;
	return elevel >= ERROR;
}

bool
errstart(int elevel, const char *domain)
{
	report_level = elevel;
	return elevel >= ERROR;
}

static void
print_error(const char *what, const char *fmt, va_list ap)
{
	if (chash_stub_error_jump != NULL)
	{
		/* taken back: keep the primary message, print nothing */
		if (strcmp(what, "error") == 0)
			vsnprintf(chash_stub_error_message,
					  sizeof(chash_stub_error_message), fmt, ap);
		return;
	}
	fprintf(stderr, "chash outside the server: %s: ", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* errmsg(fmt, ...) and its kind: print under label */
#define PRINTING_STUB(name, label) \
int \
name(const char *fmt,...) \
{ \
	va_list		ap; \
\
	va_start(ap, fmt); \
	print_error(label, fmt, ap); \
	va_end(ap); \
	return 0; \
}

PRINTING_STUB(errmsg, "error")
PRINTING_STUB(errmsg_internal, "error")
PRINTING_STUB(errdetail, "detail")
PRINTING_STUB(errdetail_internal, "detail")
PRINTING_STUB(errhint, "hint")

int
errdetail_plural(const char *fmt_singular, const char *fmt_plural,
				 unsigned long n,...)
{
	va_list		ap;

	va_start(ap, n);
	print_error("detail", n == 1 ? fmt_singular : fmt_plural, ap);
	va_end(ap);
	return 0;
}

int
errcode(int sqlerrcode)
{
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (report_level >= ERROR)
	{
		if (chash_stub_error_jump != NULL)
			siglongjmp(*chash_stub_error_jump, 1);
		exit(2);
	}
}

/*
 * Names in messages are cut at a character (src/common/messages.c): the
 * server's pg_mbcliplen, for UTF-8, which is all these programs use
 */
int
pg_mbcliplen(const char *mbstr, int len, int limit)
{
	int			clen = 0;

	while (clen < len && mbstr[clen] != '\0')
	{
		int			l = pg_utf_mblen((const unsigned char *) mbstr + clen);

		if (clen + l > limit)
			break;
		clen += l;
	}
	return clen;
}
