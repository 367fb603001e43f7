/*
 * fuzz.h
 *		What chash's libFuzzer harnesses (test/fuzz/fuzz_*.c) share:
 *		errors taken back, memory freed after every input, checks that
 *		fail loudly, reading the fuzz input, and plain references.
 *
 * Every harness links test/unit/server_stubs.c (the server functions the
 * ring code calls) and fuzz_support.c; test/fuzz/run.sh builds and runs
 * them.
 */
#ifndef CHASH_FUZZ_H
#define CHASH_FUZZ_H

#include "postgres.h"

#include <setjmp.h>

#include "lib/stringinfo.h"

#include "placement/placement.h"

/* server_stubs.c: where an ERROR jumps, and its message */
extern sigjmp_buf *chash_stub_error_jump;
extern char chash_stub_error_message[256];

/*
 * Run fn(arg); false if it raised an ERROR (its message is then in
 * chash_stub_error_message, and printed with CHASH_FUZZ_VERBOSE=1).
 * Nests.  Memory allocated by fn is freed with the rest of the input's.
 */
extern bool fuzz_try(void (*fn) (void *), void *arg);

/*
 * The SQLSTATE of the last errcode() (run.sh wraps it), 0 when fuzz_try
 * starts: what the ERROR it took back was
 */
extern int	fuzz_errcode;

/* CHASH_FUZZ_VERBOSE is set: say what is tried (for replaying reproducers) */
extern bool fuzz_verbose;

/*
 * Whether a finding already reported and not yet fixed in src/ is to be
 * let through: its name is in CHASH_FUZZ_KNOWN (comma-separated), so that
 * a long hunt can go on past it.  By default every finding fails.
 */
extern bool fuzz_known(const char *name);

/* A failed check: print what and abort, which libFuzzer reports */
extern void fuzz_fail(const char *fmt,...) pg_attribute_printf(1, 2) pg_attribute_noreturn();

#define fuzz_check(cond, ...) \
	do { if (!(cond)) fuzz_fail(__VA_ARGS__); } while (0)

/*
 * Memory: every palloc'd block (palloc, palloc0, repalloc, pstrdup, the
 * stubs' memory contexts) is recorded, and fuzz_memory_reset frees those
 * still allocated, as deleting a memory context does in the server.  Each
 * harness calls it at the end of every input, so that what an ERROR leaves
 * behind does not pile up; LeakSanitizer then sees only memory taken with
 * plain malloc and never freed, which would leak in the server too.
 */
extern void fuzz_memory_reset(void);
extern long fuzz_memory_live(void);

/* The fuzz input, read from the front; zeros once it runs out */
typedef struct FuzzInput
{
	const uint8 *p;
	size_t		left;
} FuzzInput;

extern uint8 fuzz_u8(FuzzInput *in);
extern uint32 fuzz_u32(FuzzInput *in);
extern uint64 fuzz_u64(FuzzInput *in);
/* a length byte (modulo max + 1), then that many bytes (fewer at the end) */
extern int	fuzz_bytes(FuzzInput *in, char *buf, int max);

/*
 * Seeds: a harness's fuzz_seeds() writes its starting inputs with these;
 * run with CHASH_FUZZ_WRITE_SEEDS=DIR, a harness writes them to DIR and
 * exits instead of fuzzing.
 */
typedef struct FuzzSeed
{
	StringInfoData buf;
} FuzzSeed;

extern void fuzz_seeds(void);
extern void seed_begin(FuzzSeed *s);
extern void seed_u8(FuzzSeed *s, uint8 v);
extern void seed_u32(FuzzSeed *s, uint32 v);
extern void seed_u64(FuzzSeed *s, uint64 v);
extern void seed_raw(FuzzSeed *s, const void *data, int len);
/* as fuzz_bytes reads it back */
extern void seed_bytes(FuzzSeed *s, const char *str);
extern void seed_end(FuzzSeed *s, const char *name);

/*
 * References, written again here and independent of the code under test:
 * a template expanded one byte at a time, and strict UTF-8 (RFC 3629:
 * shortest forms, no surrogates, nothing above U+10FFFF; NUL allowed)
 */
extern void fuzz_ref_expand(StringInfo out, const char *tmpl, int tmpl_len,
							const char *node, int node_len, int64 i);
extern bool fuzz_ref_utf8(const uint8 *s, size_t len);

#endif							/* CHASH_FUZZ_H */
