/*
 * fuzz_template.c
 *		libFuzzer harness: vnode name templates (placement/template.c) with arbitrary
 *		templates, node names and vnode numbers.
 *
 * Input: a flags byte, a vnode number (8 bytes), the template's length
 * (2 bytes, modulo what is left), the template, and the node name (the
 * rest).  With the flags' top bit, the template's bytes are tokens, each
 * one of "{node}", "{i}", pieces of them ("{", "}", "{nod", "{i", "node}"),
 * a NUL or a literal byte, so that templates made only of placeholders, or
 * of broken ones, are as near as plain ones.  Checks:
 *	- chash_template_check raises an ERROR exactly when the template
 *	  (up to its first NUL, as a C string) lacks "{i}" or "{node}";
 *	- chash_template_init (with the template's and name's lengths, NULs
 *	  and all) and chash_template_name give, for the input's vnode number,
 *	  its neighbours and the int64 extremes, the name of a plain
 *	  expansion written here, byte by byte; chash_template_free then frees
 *	  all that init and name allocated;
 *	- chash_template_expand appends that same name (of the C string
 *	  template) to a buffer that already holds something, and keeps it.
 */
#include "postgres.h"

#include "fuzz.h"

typedef struct CheckCall
{
	const char *tmpl;
} CheckCall;

static void
call_check(void *arg)
{
	chash_template_check(((CheckCall *) arg)->tmpl);
}

/* The number of {i}s the expansion replaces, counted as it goes */
static int
ref_count_i(const char *tmpl, int len)
{
	int			n = 0;

	for (int p = 0; p < len;)
	{
		if (len - p >= 6 && memcmp(tmpl + p, "{node}", 6) == 0)
			p += 6;
		else if (len - p >= 3 && memcmp(tmpl + p, "{i}", 3) == 0)
			n++, p += 3;
		else
			p++;
	}
	return n;
}

static void
check_name(ChashNameTemplate *t, const char *tmpl, int tmpl_len,
		   const char *node, int node_len, int64 i)
{
	StringInfoData want;

	initStringInfo(&want);
	fuzz_ref_expand(&want, tmpl, tmpl_len, node, node_len, i);
	chash_template_name(t, i);
	fuzz_check(t->name.len == want.len &&
			   memcmp(t->name.data, want.data, want.len) == 0,
			   "chash_template_name(%lld): %d bytes \"%.*s\", expected %d bytes \"%.*s\"",
			   (long long) i, t->name.len, Min(t->name.len, 200), t->name.data,
			   want.len, Min(want.len, 200), want.data);
	fuzz_check(t->name.data[t->name.len] == '\0',
			   "chash_template_name(%lld): name not NUL-terminated", (long long) i);
	pfree(want.data);
}

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	FuzzInput	in = {data, size};
	uint8		flags = fuzz_u8(&in);
	int64		i = (int64) fuzz_u64(&in);
	int			tmpl_len = (int) (fuzz_u8(&in) | (fuzz_u8(&in) << 8));
	char	   *tmpl;
	char	   *node;
	int			node_len;
	CheckCall	cc;
	bool		ok;
	bool		want_ok;
	ChashNameTemplate t;
	long		live;
	static const int64 extremes[] = {
		0, 1, -1, 9, 10, PG_INT32_MAX, (int64) PG_INT32_MAX + 1, PG_INT32_MIN,
		PG_INT64_MAX, PG_INT64_MIN, PG_INT64_MIN + 1
	};

	tmpl_len = (int) (tmpl_len % (in.left + 1));
	node_len = (int) (in.left - tmpl_len);
	/* copies of their own size, so that a read past either end is seen */
	if (flags & 0x80)
	{
		static const char *const tokens[] = {
			"{node}", "{i}", "{i}", "{", "}", "{nod", "{i", "node}"
		};
		StringInfoData t;

		initStringInfo(&t);
		for (int k = 0; k < tmpl_len; k++)
		{
			uint8		c = in.p[k];

			if (c < 0xC0)
				appendStringInfoString(&t, tokens[c % lengthof(tokens)]);
			else if (c == 0xFF)
				appendStringInfoChar(&t, '\0');
			else
				appendStringInfoChar(&t, (char) ('a' + (c - 0xC0) % 26));
		}
		tmpl = malloc(t.len + 1);
		memcpy(tmpl, t.data, t.len + 1);
		tmpl_len = t.len;
	}
	else
	{
		tmpl = malloc(tmpl_len + 1);
		memcpy(tmpl, in.p, tmpl_len);
		tmpl[tmpl_len] = '\0';
	}
	node = malloc(Max(node_len, 1));
	memcpy(node, in.p + (in.left - node_len), node_len);

	/* the check, of the template as a C string */
	cc.tmpl = tmpl;
	want_ok = strstr(tmpl, "{i}") != NULL && strstr(tmpl, "{node}") != NULL;
	ok = fuzz_try(call_check, &cc);
	fuzz_check(ok == want_ok, "chash_template_check(\"%.200s\"): %s, expected %s",
			   tmpl, ok ? "accepted" : "an ERROR",
			   want_ok ? "accepted" : "an ERROR");

	/* init, names, free: everything they allocate is given back */
	live = fuzz_memory_live();
	chash_template_init(&t, tmpl, tmpl_len, node, node_len);
	fuzz_check(t.ncuts == ref_count_i(tmpl, tmpl_len),
			   "chash_template_init: %d cuts for %d {i}s", t.ncuts,
			   ref_count_i(tmpl, tmpl_len));
	check_name(&t, tmpl, tmpl_len, node, node_len, i);
	if (i != PG_INT64_MAX)
		check_name(&t, tmpl, tmpl_len, node, node_len, i + 1);
	if (i != PG_INT64_MIN)
		check_name(&t, tmpl, tmpl_len, node, node_len, i - 1);
	for (int k = 0; k < lengthof(extremes); k++)
		check_name(&t, tmpl, tmpl_len, node, node_len, extremes[k]);
	chash_template_free(&t);
	fuzz_check(fuzz_memory_live() == live,
			   "chash_template_free left %ld blocks allocated",
			   fuzz_memory_live() - live);

	/* expand, after what the buffer already holds */
	{
		StringInfoData buf;
		StringInfoData want;
		int			keep = flags % 40;
		int			c_len = strlen(tmpl);

		initStringInfo(&buf);
		for (int k = 0; k < keep; k++)
			appendStringInfoChar(&buf, (char) ('a' + k % 26));
		initStringInfo(&want);
		appendBinaryStringInfo(&want, buf.data, buf.len);
		fuzz_ref_expand(&want, tmpl, c_len, node, node_len, i);
		chash_template_expand(&buf, tmpl, node, node_len, i);
		fuzz_check(buf.len == want.len && memcmp(buf.data, want.data, want.len) == 0,
				   "chash_template_expand(\"%.200s\", %lld): %d bytes, expected %d",
				   tmpl, (long long) i, buf.len, want.len);
	}

	free(tmpl);
	free(node);
	fuzz_memory_reset();
	return 0;
}

static void
seed_flags(const char *name, uint8 flags, int64 i, const char *tmpl, const char *node)
{
	FuzzSeed	s;
	int			len = strlen(tmpl);

	seed_begin(&s);
	seed_u8(&s, flags);
	seed_u64(&s, (uint64) i);
	seed_u8(&s, (uint8) len);
	seed_u8(&s, (uint8) (len >> 8));
	seed_raw(&s, tmpl, len);
	seed_raw(&s, node, strlen(node));
	seed_end(&s, name);
}

static void
seed(const char *name, int64 i, const char *tmpl, const char *node)
{
	seed_flags(name, 3, i, tmpl, node);
}

void
fuzz_seeds(void)
{
	/* tokens: {i}{i}{i}, {node}{i}, {{i}node}x, {nod{i}e */
	seed_flags("tokens-i", 0x83, 7, "\x01\x01\x01", "pg1");
	seed_flags("tokens-node-i", 0x83, 7, "\x08\x01", "pg1");
	seed_flags("tokens-broken", 0x85, -3, "\x03\x01\x07\xd7", "n");
	seed_flags("tokens-nul", 0x85, 12, "\x05\x01\xc4\xff", "n");
	seed("only-i", 3, "{i}", "pg1");
	seed("ring-default", 0, "{node}#{i}", "pg1");
	seed("ketama-default", 39, "{node}-{i}", "10.0.0.1:11211");
	seed("i-first", 159, "{i}{node}", "cache");
	seed("repeated", -7, "{node}{i}{i}{node}{i}", "n");
	seed("broken-tokens", 12, "{{node}}{i{i}}{nod{i}e}{", "{i}");
	seed("no-i", 1, "{node}", "x");
	seed("no-node", 1, "vnode-{i}", "x");
	seed("empty", 5, "", "");
	seed("utf8", 2147483647, "\xc3\xa9{node}\xe2\x82\xac{i}", "\xf0\x9f\x98\x80");
	seed("long", PG_INT64_MIN,
		 "{node}{node}{node}{node}{node}{node}{node}{node}{node}{node}{i}", "a-rather-long-node-name-0123456789");
}
