/*
 * fuzz_support.c
 *		The support every harness of test/fuzz/ links: errors taken back,
 *		palloc'd memory recorded and freed after each input, failed checks,
 *		the input reader, seeds, and plain references (see fuzz.h).
 *
 * Memory: run.sh links the harnesses with -Wl,--wrap for palloc, palloc0,
 * palloc_extended, repalloc, pfree, pstrdup, pnstrdup and the stubs'
 * MemoryContextAllocHuge and MemoryContextAllocZero, so that every call to
 * them, from src/, from libpgcommon's StringInfo and psprintf, and from
 * server_stubs.c, lands here first (__wrap_X), is recorded and goes on to
 * the real one (__real_X).  The record is a table of pointers outside the
 * blocks, so that AddressSanitizer's red zones stay right at each block's
 * two ends.  Requests the server would refuse (over MaxAllocSize without
 * the huge flag) fail the check here, as they would be an internal error
 * in the server.  errcode is wrapped too, to keep the SQLSTATE of the last
 * ERROR (fuzz_errcode).
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils/memutils.h"

#include "fuzz.h"

/* --- errors taken back ------------------------------------------------ */

bool		fuzz_verbose = false;
int			fuzz_errcode = 0;

/* run.sh links with -Wl,--wrap=errcode: each call from src/ lands here */
extern int	__real_errcode(int sqlerrcode);
int			__wrap_errcode(int sqlerrcode);

int
__wrap_errcode(int sqlerrcode)
{
	fuzz_errcode = sqlerrcode;
	return __real_errcode(sqlerrcode);
}

bool
fuzz_try(void (*fn) (void *), void *arg)
{
	sigjmp_buf	jump;
	sigjmp_buf *volatile saved = chash_stub_error_jump;

	if (sigsetjmp(jump, 0) == 0)
	{
		chash_stub_error_jump = &jump;
		fuzz_errcode = 0;
		fn(arg);
		chash_stub_error_jump = saved;
		return true;
	}
	chash_stub_error_jump = saved;
	if (fuzz_verbose)
		fprintf(stderr, "chash fuzz: ERROR %s\n", chash_stub_error_message);
	return false;
}

bool
fuzz_known(const char *name)
{
	const char *list = getenv("CHASH_FUZZ_KNOWN");
	size_t		n = strlen(name);

	while (list != NULL && *list != '\0')
	{
		const char *end = strchr(list, ',');
		size_t		len = end ? (size_t) (end - list) : strlen(list);

		if (len == n && strncmp(list, name, n) == 0)
			return true;
		list = end ? end + 1 : NULL;
	}
	return false;
}

void
fuzz_fail(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "chash fuzz: FAILED check: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* --- memory ----------------------------------------------------------- */

/*
 * An open-addressing set of the live blocks: linear probing, deletion by
 * moving later entries back (so no tombstones), doubled at half full
 */
static void **blocks = NULL;
static size_t nslots = 0;
static size_t nblocks = 0;

static inline size_t
slot_of(const void *p, size_t mask)
{
	return (size_t) ((((uintptr_t) p >> 4) * UINT64CONST(0x9E3779B97F4A7C15)) >> 20) & mask;
}

static void
blocks_insert(void *p)
{
	size_t		mask;
	size_t		i;

	if (p == NULL)
		return;
	if (2 * (nblocks + 1) > nslots)
	{
		void	  **old = blocks;
		size_t		oldn = nslots;

		nslots = nslots ? 2 * nslots : 4096;
		blocks = calloc(nslots, sizeof(void *));
		if (blocks == NULL)
			fuzz_fail("out of memory for the table of blocks");
		nblocks = 0;
		for (size_t j = 0; j < oldn; j++)
			if (old[j] != NULL)
				blocks_insert(old[j]);
		free(old);
	}
	mask = nslots - 1;
	for (i = slot_of(p, mask); blocks[i] != NULL; i = (i + 1) & mask)
	{
		if (blocks[i] == p)
			fuzz_fail("block %p allocated twice", p);
	}
	blocks[i] = p;
	nblocks++;
}

/* Forget p; false if it was not recorded */
static bool
blocks_remove(void *p)
{
	size_t		mask;
	size_t		i;
	size_t		j;

	if (nslots == 0 || p == NULL)
		return false;
	mask = nslots - 1;
	for (i = slot_of(p, mask); blocks[i] != p; i = (i + 1) & mask)
	{
		if (blocks[i] == NULL)
			return false;
	}
	blocks[i] = NULL;
	nblocks--;
	/* move back the entries of the run after i that may sit beyond it */
	for (j = (i + 1) & mask; blocks[j] != NULL; j = (j + 1) & mask)
	{
		size_t		home = slot_of(blocks[j], mask);

		/* j's entry may move to i unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
			(j < i && (home <= i && home > j)))
		{
			blocks[i] = blocks[j];
			blocks[j] = NULL;
			i = j;
		}
	}
	return true;
}

void
fuzz_memory_reset(void)
{
	if (nblocks == 0)
		return;
	for (size_t i = 0; i < nslots; i++)
	{
		if (blocks[i] != NULL)
		{
			free(blocks[i]);
			blocks[i] = NULL;
		}
	}
	nblocks = 0;
}

long
fuzz_memory_live(void)
{
	return (long) nblocks;
}

static void
check_request(Size size, bool huge)
{
	if (huge ? !AllocHugeSizeIsValid(size) : !AllocSizeIsValid(size))
		fuzz_fail("invalid memory alloc request size %zu (the server raises an internal error)",
				  size);
}

extern void *__real_palloc(Size size);
extern void *__real_palloc0(Size size);
extern void *__real_palloc_extended(Size size, int flags);
extern void *__real_repalloc(void *pointer, Size size);
extern void __real_pfree(void *pointer);
extern char *__real_pstrdup(const char *in);
extern char *__real_pnstrdup(const char *in, Size len);
extern void *__real_MemoryContextAllocHuge(MemoryContext context, Size size);
extern void *__real_MemoryContextAllocZero(MemoryContext context, Size size);

void	   *__wrap_palloc(Size size);
void	   *__wrap_palloc0(Size size);
void	   *__wrap_palloc_extended(Size size, int flags);
void	   *__wrap_repalloc(void *pointer, Size size);
void		__wrap_pfree(void *pointer);
char	   *__wrap_pstrdup(const char *in);
char	   *__wrap_pnstrdup(const char *in, Size len);
void	   *__wrap_MemoryContextAllocHuge(MemoryContext context, Size size);
void	   *__wrap_MemoryContextAllocZero(MemoryContext context, Size size);

void *
__wrap_palloc(Size size)
{
	void	   *p;

	check_request(size, false);
	p = __real_palloc(size);
	blocks_insert(p);
	return p;
}

void *
__wrap_palloc0(Size size)
{
	void	   *p;

	check_request(size, false);
	p = __real_palloc0(size);
	blocks_insert(p);
	return p;
}

void *
__wrap_palloc_extended(Size size, int flags)
{
	void	   *p;

	check_request(size, (flags & MCXT_ALLOC_HUGE) != 0);
	p = __real_palloc_extended(size, flags);
	blocks_insert(p);
	return p;
}

void *
__wrap_repalloc(void *pointer, Size size)
{
	void	   *p;

	check_request(size, false);
	if (!blocks_remove(pointer))
		fuzz_fail("repalloc of %p, which palloc did not give", pointer);
	p = __real_repalloc(pointer, size);
	blocks_insert(p);
	return p;
}

void
__wrap_pfree(void *pointer)
{
	if (!blocks_remove(pointer))
		fuzz_fail("pfree of %p, which palloc did not give", pointer);
	__real_pfree(pointer);
}

char *
__wrap_pstrdup(const char *in)
{
	char	   *p = __real_pstrdup(in);

	blocks_insert(p);
	return p;
}

char *
__wrap_pnstrdup(const char *in, Size len)
{
	char	   *p = __real_pnstrdup(in, len);

	blocks_insert(p);
	return p;
}

void *
__wrap_MemoryContextAllocHuge(MemoryContext context, Size size)
{
	void	   *p;

	check_request(size, true);
	p = __real_MemoryContextAllocHuge(context, size);
	blocks_insert(p);
	return p;
}

void *
__wrap_MemoryContextAllocZero(MemoryContext context, Size size)
{
	void	   *p;

	check_request(size, false);
	p = __real_MemoryContextAllocZero(context, size);
	blocks_insert(p);
	return p;
}

/* --- input ------------------------------------------------------------ */

uint8
fuzz_u8(FuzzInput *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

uint32
fuzz_u32(FuzzInput *in)
{
	uint32		v = 0;

	for (int k = 0; k < 4; k++)
		v |= (uint32) fuzz_u8(in) << (8 * k);
	return v;
}

uint64
fuzz_u64(FuzzInput *in)
{
	uint64		lo = fuzz_u32(in);

	return lo | ((uint64) fuzz_u32(in) << 32);
}

int
fuzz_bytes(FuzzInput *in, char *buf, int max)
{
	int			len = fuzz_u8(in) % (max + 1);

	if ((size_t) len > in->left)
		len = (int) in->left;
	memcpy(buf, in->p, len);
	in->p += len;
	in->left -= len;
	return len;
}

/* --- seeds ------------------------------------------------------------ */

static const char *seed_dir = NULL;

void
seed_begin(FuzzSeed *s)
{
	initStringInfo(&s->buf);
}

void
seed_u8(FuzzSeed *s, uint8 v)
{
	appendBinaryStringInfo(&s->buf, (const char *) &v, 1);
}

void
seed_u32(FuzzSeed *s, uint32 v)
{
	for (int k = 0; k < 4; k++)
		seed_u8(s, (uint8) (v >> (8 * k)));
}

void
seed_u64(FuzzSeed *s, uint64 v)
{
	seed_u32(s, (uint32) v);
	seed_u32(s, (uint32) (v >> 32));
}

void
seed_raw(FuzzSeed *s, const void *data, int len)
{
	appendBinaryStringInfo(&s->buf, data, len);
}

void
seed_bytes(FuzzSeed *s, const char *str)
{
	int			len = strlen(str);

	if (len > 255)
		fuzz_fail("seed string of %d bytes", len);
	seed_u8(s, (uint8) len);
	seed_raw(s, str, len);
}

void
seed_end(FuzzSeed *s, const char *name)
{
	char		path[1024];
	int			fd;

	snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, s->buf.data, s->buf.len) != s->buf.len ||
		close(fd) != 0)
	{
		fprintf(stderr, "chash fuzz: cannot write seed %s\n", path);
		exit(1);
	}
	pfree(s->buf.data);
}

int			LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *v = getenv("CHASH_FUZZ_VERBOSE");

	fuzz_verbose = v != NULL && strcmp(v, "") != 0 && strcmp(v, "0") != 0;
	seed_dir = getenv("CHASH_FUZZ_WRITE_SEEDS");
	if (seed_dir != NULL)
	{
		mkdir(seed_dir, 0755);
		fuzz_seeds();
		fuzz_memory_reset();
		exit(0);
	}
	return 0;
}

/* --- references ------------------------------------------------------- */

void
fuzz_ref_expand(StringInfo out, const char *tmpl, int tmpl_len,
				const char *node, int node_len, int64 i)
{
	char		digits[32];
	int			ndigits = snprintf(digits, sizeof(digits), "%lld", (long long) i);
	int			p = 0;

	while (p < tmpl_len)
	{
		if (tmpl_len - p >= 6 && memcmp(tmpl + p, "{node}", 6) == 0)
		{
			appendBinaryStringInfo(out, node, node_len);
			p += 6;
		}
		else if (tmpl_len - p >= 3 && memcmp(tmpl + p, "{i}", 3) == 0)
		{
			appendBinaryStringInfo(out, digits, ndigits);
			p += 3;
		}
		else
			appendBinaryStringInfo(out, tmpl + p++, 1);
	}
}

bool
fuzz_ref_utf8(const uint8 *s, size_t len)
{
	size_t		i = 0;

	while (i < len)
	{
		uint8		c = s[i];
		int			n;
		uint32		cp;
		uint32		min;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC0 && c < 0xE0)
			n = 2, cp = c & 0x1F, min = 0x80;
		else if (c >= 0xE0 && c < 0xF0)
			n = 3, cp = c & 0x0F, min = 0x800;
		else if (c >= 0xF0 && c < 0xF8)
			n = 4, cp = c & 0x07, min = 0x10000;
		else
			return false;
		if (len - i < (size_t) n)
			return false;
		for (int k = 1; k < n; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += n;
	}
	return true;
}
