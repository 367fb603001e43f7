/*
 * fuzz_hash.c
 *		libFuzzer harness: every hash function of hash/hash.c's table
 *		(chash_hash_count, chash_hash_at) on arbitrary bytes.
 *
 * The input is the key.  For each function:
 *	- the hashes of Java strings (needs_utf8) raise an ERROR exactly when the bytes
 *	  are not UTF-8 (a plain RFC 3629 check written here, NUL allowed);
 *	  no other function raises one;
 *	- the value fits in the function's bits, and the java_ hashes' Math.abs
 *	  results are non-negative but for Integer.MIN_VALUE / Long.MIN_VALUE;
 *	- the same bytes at another address, unaligned, hash alike;
 *	- java_hashcode equals String.hashCode() computed here from the UTF-16
 *	  units of the text, which checks hash/hash.c's UTF-8 to UTF-16 walk, and
 *	  es_murmur3 murmur3_32 of those units written little-endian;
 *	- cassandra_murmur3 equals Cassandra's token computed here in the shape
 *	  of its Java code (and only the empty key has the MINIMUM token);
 *	- crc16 is the low 16 bits of twemproxy_crc16, and a key hashed by its
 *	  hash tag (chash_hash_tagged, the tag of the input's first two bytes)
 *	  hashes as the part a plain search here finds.
 * The input, cut at its first NUL, is also looked up as a hash and as an
 * algorithm name (chash_hash_find/get, chash_algorithm_find/get): _get
 * raises an ERROR exactly when _find gives NULL.
 */
#include "postgres.h"

#include "fuzz.h"

typedef struct HashCall
{
	const ChashHashFunction *h;
	const unsigned char *data;
	size_t		len;
	uint64		value;
} HashCall;

static void
call_hash(void *arg)
{
	HashCall   *c = arg;

	c->value = c->h->fn(c->data, c->len);
}

/*
 * The hash tag rule, written plainly: between the first open and the first
 * close after it, if not empty; else the whole key
 */
static void
ref_tagged(const char *tag, const unsigned char *data, size_t len,
		   const unsigned char **part, size_t *partlen)
{
	*part = data;
	*partlen = len;
	for (size_t i = 0; i < len; i++)
	{
		if (data[i] != (unsigned char) tag[0])
			continue;
		for (size_t k = i + 1; k < len; k++)
		{
			if (data[k] == (unsigned char) tag[1])
			{
				if (k > i + 1)
				{
					*part = data + i + 1;
					*partlen = k - i - 1;
				}
				return;
			}
		}
		return;
	}
}

static void
check_tags(const unsigned char *data, size_t size)
{
	const ChashHashFunction *crc16 = chash_hash_find("crc16");
	const ChashHashFunction *twem = chash_hash_find("twemproxy_crc16");
	char		tag[3] = {'{', '}', 0};
	const unsigned char *part;
	size_t		partlen;

	fuzz_check(crc16 && twem, "crc16 and twemproxy_crc16 not found");
	fuzz_check(crc16->fn(data, size) == (twem->fn(data, size) & 0xffff),
			   "crc16 is not the low 16 bits of twemproxy_crc16");
	/* the input's own first bytes as the tag, when printable ASCII */
	if (size >= 2 && data[0] > 0x20 && data[0] < 0x7f &&
		data[1] > 0x20 && data[1] < 0x7f)
	{
		tag[0] = (char) data[0];
		tag[1] = (char) data[1];
	}
	ref_tagged(tag, data, size, &part, &partlen);
	fuzz_check(chash_hash_tagged(crc16, tag, data, size) ==
			   crc16->fn(part, partlen),
			   "tag \"%s\": the tagged hash is not the hash of the tag", tag);
	fuzz_check(chash_hash_tagged(crc16, NULL, data, size) ==
			   crc16->fn(data, size), "no tag: not the hash of the key");
}

typedef struct NameCall
{
	const char *name;
	const void *found;
} NameCall;

static void
call_hash_get(void *arg)
{
	NameCall   *c = arg;

	c->found = chash_hash_get(c->name);
}

static void
call_algorithm_get(void *arg)
{
	NameCall   *c = arg;

	c->found = chash_algorithm_get(c->name);
}

/*
 * Whether data is the decimal digits of an integer from 0 to 2^63 - 1
 * (leading zeros allowed), as key hash identity takes; its value in *value
 */
static bool
ref_decimal(const uint8 *data, size_t len, uint64 *value)
{
	uint64		v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
	{
		if (data[i] < '0' || data[i] > '9')
			return false;
		if (v > (PG_INT64_MAX - (data[i] - '0')) / 10)
			return false;
		v = v * 10 + (data[i] - '0');
	}
	*value = v;
	return true;
}

/*
 * The same for a signed 64-bit integer, an optional '-' before its digits
 * (int64): its two's complement bits
 */
static bool
ref_decimal_int64(const uint8 *data, size_t len, uint64 *value)
{
	bool		negative = len > 0 && data[0] == '-';
	uint64		v;

	if (!negative)
		return ref_decimal(data, len, value);
	/* -2^63 is one past what ref_decimal takes */
	if (len == 20 && memcmp(data, "-9223372036854775808", 20) == 0)
	{
		*value = UINT64CONST(1) << 63;
		return true;
	}
	if (!ref_decimal(data + 1, len - 1, &v))
		return false;
	*value = (uint64) 0 - v;
	return true;
}

/* Java's ByteBuffer.get(): a signed byte, as a long */
static int64
java_get(const uint8 *data, size_t i)
{
	return (int8) data[i];
}

static uint64
ref_rotl64(uint64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64
ref_fmix(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/*
 * Cassandra's token as its MurmurHash.hash3_x64_128 and Murmur3Partitioner
 * write it, in their shape: blocks of getBlock() (masked bytes), a tail
 * switch that falls through with unmasked bytes, normalize(); as a
 * position, the token plus 2^63
 */
static uint64
ref_cassandra_murmur3(const uint8 *key, size_t length)
{
	const uint64 c1 = UINT64CONST(0x87c37b91114253d5);
	const uint64 c2 = UINT64CONST(0x4cf5ad432745937f);
	size_t		nblocks = length >> 4;
	size_t		offset = 0;
	uint64		h1 = 0,
				h2 = 0,
				k1,
				k2;
	int64		token;

	if (length == 0)
		return 0;
	for (size_t i = 0; i < nblocks; i++)
	{
		k1 = 0;
		k2 = 0;
		for (int b = 0; b < 8; b++)
		{
			k1 += ((uint64) java_get(key, i * 16 + b) & 0xff) << (8 * b);
			k2 += ((uint64) java_get(key, i * 16 + 8 + b) & 0xff) << (8 * b);
		}
		k1 *= c1; k1 = ref_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
		h1 = ref_rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
		k2 *= c2; k2 = ref_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
		h2 = ref_rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
	}
	offset = nblocks * 16;
	k1 = 0;
	k2 = 0;
	switch (length & 15)
	{
		case 15: k2 ^= (uint64) java_get(key, offset + 14) << 48;	/* FALLTHROUGH */
		case 14: k2 ^= (uint64) java_get(key, offset + 13) << 40;	/* FALLTHROUGH */
		case 13: k2 ^= (uint64) java_get(key, offset + 12) << 32;	/* FALLTHROUGH */
		case 12: k2 ^= (uint64) java_get(key, offset + 11) << 24;	/* FALLTHROUGH */
		case 11: k2 ^= (uint64) java_get(key, offset + 10) << 16;	/* FALLTHROUGH */
		case 10: k2 ^= (uint64) java_get(key, offset + 9) << 8;	/* FALLTHROUGH */
		case 9:
			k2 ^= (uint64) java_get(key, offset + 8);
			k2 *= c2; k2 = ref_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
			/* FALLTHROUGH */
		case 8: k1 ^= (uint64) java_get(key, offset + 7) << 56;	/* FALLTHROUGH */
		case 7: k1 ^= (uint64) java_get(key, offset + 6) << 48;	/* FALLTHROUGH */
		case 6: k1 ^= (uint64) java_get(key, offset + 5) << 40;	/* FALLTHROUGH */
		case 5: k1 ^= (uint64) java_get(key, offset + 4) << 32;	/* FALLTHROUGH */
		case 4: k1 ^= (uint64) java_get(key, offset + 3) << 24;	/* FALLTHROUGH */
		case 3: k1 ^= (uint64) java_get(key, offset + 2) << 16;	/* FALLTHROUGH */
		case 2: k1 ^= (uint64) java_get(key, offset + 1) << 8;	/* FALLTHROUGH */
		case 1:
			k1 ^= (uint64) java_get(key, offset);
			k1 *= c1; k1 = ref_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
	}
	h1 ^= length;
	h2 ^= length;
	h1 += h2;
	h2 += h1;
	h1 = ref_fmix(h1);
	h2 = ref_fmix(h2);
	h1 += h2;
	token = (int64) h1 == PG_INT64_MIN ? PG_INT64_MAX : (int64) h1;
	return (uint64) token + (UINT64CONST(1) << 63);
}

/*
 * Elasticsearch's routing hash of the text whose UTF-8 is data: its UTF-16
 * units written little-endian, then chash's murmur3_32 of those bytes
 */
static uint64
ref_es_murmur3(const uint8 *data, size_t len)
{
	uint8	   *buf = malloc(2 * len + 2);
	size_t		out = 0;
	size_t		i = 0;
	uint64		h;

	while (i < len)
	{
		uint32		cp;
		int			n;
		uint32		units[2];
		int			nunits = 1;

		if (data[i] < 0x80)
			cp = data[i], n = 1;
		else if (data[i] < 0xE0)
			cp = data[i] & 0x1F, n = 2;
		else if (data[i] < 0xF0)
			cp = data[i] & 0x0F, n = 3;
		else
			cp = data[i] & 0x07, n = 4;
		for (int k = 1; k < n; k++)
			cp = (cp << 6) | (data[i + k] & 0x3F);
		i += n;
		units[0] = cp;
		if (cp >= 0x10000)
		{
			units[0] = 0xD800 + ((cp - 0x10000) >> 10);
			units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
			nunits = 2;
		}
		for (int u = 0; u < nunits; u++)
		{
			buf[out++] = units[u] & 0xff;
			buf[out++] = units[u] >> 8;
		}
	}
	h = chash_hash_find("murmur3_32")->fn(buf, out);
	free(buf);
	return h;
}

/* Math.abs(s.hashCode()) of the text whose UTF-8 is data */
static uint32
ref_java_hashcode(const uint8 *data, size_t len)
{
	uint32		h = 0;
	size_t		i = 0;

	while (i < len)
	{
		uint32		cp;
		int			n;

		if (data[i] < 0x80)
			cp = data[i], n = 1;
		else if (data[i] < 0xE0)
			cp = data[i] & 0x1F, n = 2;
		else if (data[i] < 0xF0)
			cp = data[i] & 0x0F, n = 3;
		else
			cp = data[i] & 0x07, n = 4;
		for (int k = 1; k < n; k++)
			cp = (cp << 6) | (data[i + k] & 0x3F);
		i += n;
		if (cp >= 0x10000)
		{
			h = 31 * h + (0xD800 + ((cp - 0x10000) >> 10));
			h = 31 * h + (0xDC00 + ((cp - 0x10000) & 0x3FF));
		}
		else
			h = 31 * h + cp;
	}
	if ((int32) h < 0 && h != 0x80000000)
		h = -h;
	return h;
}

static void
check_name(const char *name)
{
	NameCall	c = {name, NULL};
	const ChashHashFunction *h = chash_hash_find(name);
	const ChashAlgorithm *a = chash_algorithm_find(name);
	bool		ok;

	ok = fuzz_try(call_hash_get, &c);
	fuzz_check(ok == (h != NULL) && (!ok || c.found == h),
			   "chash_hash_get(\"%s\") and chash_hash_find disagree", name);
	c.found = NULL;
	ok = fuzz_try(call_algorithm_get, &c);
	fuzz_check(ok == (a != NULL) && (!ok || c.found == a),
			   "chash_algorithm_get(\"%s\") and chash_algorithm_find disagree", name);
}

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	bool		utf8 = fuzz_ref_utf8(data, size);
	/* the same bytes, unaligned, at the end of a block of their size + 1..7 */
	size_t		shift = 1 + (size % 7);
	uint8	   *copy = malloc(size + shift);
	char		name[65];
	int			namelen = 0;

	memcpy(copy + shift, data, size);
	for (int i = 0; i < chash_hash_count(); i++)
	{
		const ChashHashFunction *h = chash_hash_at(i);
		HashCall	c = {h, data, size, 0};
		HashCall	c2 = {h, copy + shift, size, 0};
		bool		ok = fuzz_try(call_hash, &c);
		bool		ok2 = fuzz_try(call_hash, &c2);

		fuzz_check(h->bits == 16 || h->bits == 32 || h->bits == 64 ||
				   (h->integer_keys && h->bits == 63), "%s has %d bits", h->name,
				   h->bits);
		fuzz_check(chash_hash_find(h->name) == h, "%s not found by name",
				   h->name);
		fuzz_check(ok == ok2, "%s: an ERROR at one address and not at another",
				   h->name);
		if (h->needs_utf8)
			fuzz_check(ok == utf8, "%s: %s for %s input", h->name,
					   ok ? "no ERROR" : "an ERROR",
					   utf8 ? "UTF-8" : "non-UTF-8");
		else if (h->integer_keys)
		{
			uint64		want;
			bool		decimal = strcmp(h->name, "int64") == 0 ?
				ref_decimal_int64(data, size, &want) :
				ref_decimal(data, size, &want);

			fuzz_check(ok == decimal, "%s: %s for %s", h->name,
					   ok ? "no ERROR" : "an ERROR",
					   decimal ? "an integer in the hash's range" : "another key");
			fuzz_check(!ok || c.value == want, "%s: 0x%llx, the key is 0x%llx",
					   h->name, (unsigned long long) c.value,
					   (unsigned long long) want);
		}
		else
			fuzz_check(ok, "%s raised an ERROR: %s", h->name,
					   chash_stub_error_message);
		if (!ok)
			continue;
		fuzz_check(c.value == c2.value, "%s: 0x%llx here, 0x%llx unaligned",
				   h->name, (unsigned long long) c.value,
				   (unsigned long long) c2.value);
		fuzz_check(h->bits == 64 || c.value >> h->bits == 0,
				   "%s: 0x%llx is wider than %d bits", h->name,
				   (unsigned long long) c.value, h->bits);
		if (h->needs_utf8 && strncmp(h->name, "java_", 5) == 0)
		{
			uint64		sign = UINT64CONST(1) << (h->bits - 1);

			fuzz_check((c.value & sign) == 0 || c.value == sign,
					   "%s: 0x%llx is negative after Math.abs", h->name,
					   (unsigned long long) c.value);
		}
		if (strcmp(h->name, "es_murmur3") == 0)
			fuzz_check(c.value == ref_es_murmur3(data, size),
					   "es_murmur3: 0x%llx, murmur3 of the UTF-16 units gives 0x%llx",
					   (unsigned long long) c.value,
					   (unsigned long long) ref_es_murmur3(data, size));
		if (strcmp(h->name, "cassandra_murmur3") == 0)
			fuzz_check(c.value == ref_cassandra_murmur3(data, size) &&
					   (c.value == 0) == (size == 0),
					   "cassandra_murmur3: 0x%llx, Cassandra's steps give 0x%llx",
					   (unsigned long long) c.value,
					   (unsigned long long) ref_cassandra_murmur3(data, size));
		if (strcmp(h->name, "java_hashcode") == 0)
			fuzz_check(c.value == ref_java_hashcode(data, size),
					   "java_hashcode: 0x%llx, String.hashCode() gives 0x%x",
					   (unsigned long long) c.value,
					   ref_java_hashcode(data, size));
	}
	free(copy);
	check_tags(data, size);

	while ((size_t) namelen < size && namelen < 64 && data[namelen] != 0)
	{
		name[namelen] = (char) data[namelen];
		namelen++;
	}
	name[namelen] = '\0';
	check_name(name);

	fuzz_memory_reset();
	return 0;
}

void
fuzz_seeds(void)
{
	static const char *const keys[] = {
		"", "alice@example.com", "MySQL", "42", "xxh3_64", "ring", "md5",
		"java_fnv32", "ketama",
		"z\xc3\xb3\xc5\x82w",	/* two-byte characters */
		"\xe2\x82\xac 5",		/* a three-byte one */
		"\xf0\x9f\x98\x80!",	/* outside the BMP: two UTF-16 units */
		"\xff\xfe",				/* not UTF-8 */
		"\xed\xa0\x80",			/* an encoded surrogate */
		"\xc0\xaf",				/* an overlong form */
		"\xe2\x82",				/* cut short */
		"\xf4\x90\x80\x80",		/* above U+10FFFF */
		"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
	};

	for (int i = 0; i < lengthof(keys); i++)
	{
		FuzzSeed	s;
		char		name[32];

		seed_begin(&s);
		seed_raw(&s, keys[i], strlen(keys[i]));
		snprintf(name, sizeof(name), "key-%02d", i);
		seed_end(&s, name);
	}
	{
		FuzzSeed	s;

		seed_begin(&s);
		seed_raw(&s, "a\0b", 3);
		seed_end(&s, "key-nul");
	}
}
