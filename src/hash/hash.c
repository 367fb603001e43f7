/*-------------------------------------------------------------------------
 *
 * hash.c
 *	  The table of hash functions chash can put points and keys with.
 *
 * Libraries where a well-kept one exists (libxxhash, zlib, nettle's MD5,
 * PostgreSQL's own hash_bytes); our own code only for the few-line FNV and
 * MurmurHash3 functions.  Every function is checked against published test
 * vectors in the regression suite (test/sql/hash_functions.sql).
 *
 * Adding a hash function is one line in chash_hash_functions[] below.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <zlib.h>

#include "common/hashfn.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "hash/hash.h"
#include "hash/haproxy.h"
#include "hash/twemproxy.h"

static uint64
hash_xxh3_64(const unsigned char *data, size_t len)
{
	return XXH3_64bits(data, len);
}

static uint64
hash_xxh64(const unsigned char *data, size_t len)
{
	return XXH64(data, len, 0);
}

/* XXH64 with a seed (Envoy's maglev takes seeds 0 and 1) */
uint64
chash_xxh64_seeded(const void *data, size_t len, uint64 seed)
{
	return XXH64(data, len, seed);
}

/* FNV-1 and FNV-1a (Fowler, Noll, Vo), offset bases and primes of the spec */
#define FNV32_OFFSET	UINT64CONST(2166136261)
#define FNV32_PRIME		UINT64CONST(16777619)
#define FNV64_OFFSET	UINT64CONST(14695981039346656037)
#define FNV64_PRIME		UINT64CONST(1099511628211)

static uint64
hash_fnv1_32(const unsigned char *data, size_t len)
{
	uint32		h = (uint32) FNV32_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h *= (uint32) FNV32_PRIME;
		h ^= data[i];
	}
	return h;
}

static uint64
hash_fnv1a_32(const unsigned char *data, size_t len)
{
	uint32		h = (uint32) FNV32_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h ^= data[i];
		h *= (uint32) FNV32_PRIME;
	}
	return h;
}

static uint64
hash_fnv1_64(const unsigned char *data, size_t len)
{
	uint64		h = FNV64_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h *= FNV64_PRIME;
		h ^= data[i];
	}
	return h;
}

static uint64
hash_fnv1a_64(const unsigned char *data, size_t len)
{
	uint64		h = FNV64_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h ^= data[i];
		h *= FNV64_PRIME;
	}
	return h;
}

static inline uint32
rotl32(uint32 x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/* MurmurHash3_x86_32's steps: a block (or the tail) mixed into h */
static inline uint32
murmur3_32_mix_k(uint32 h, uint32 k)
{
	k *= 0xcc9e2d51;
	k = rotl32(k, 15);
	k *= 0x1b873593;
	return h ^ k;
}

static inline uint32
murmur3_32_block(uint32 h, uint32 k)
{
	h = murmur3_32_mix_k(h, k);
	h = rotl32(h, 13);
	return h * 5 + 0xe6546b64;
}

/* ... and the finish, over the length in bytes (a 32-bit int there) */
static inline uint32
murmur3_32_finish(uint32 h, uint32 len)
{
	h ^= len;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/* MurmurHash3_x86_32 (Austin Appleby), seed 0, bytes read little-endian */
static uint64
hash_murmur3_32(const unsigned char *data, size_t len)
{
	size_t		nblocks = len / 4;
	const unsigned char *tail = data + nblocks * 4;
	uint32		h = 0;
	uint32		k;

	for (size_t i = 0; i < nblocks; i++)
	{
		const unsigned char *b = data + i * 4;

		k = (uint32) b[0] | ((uint32) b[1] << 8) |
			((uint32) b[2] << 16) | ((uint32) b[3] << 24);
		h = murmur3_32_block(h, k);
	}

	k = 0;
	switch (len & 3)
	{
		case 3:
			k ^= (uint32) tail[2] << 16;
			pg_fallthrough;
		case 2:
			k ^= (uint32) tail[1] << 8;
			pg_fallthrough;
		case 1:
			k ^= tail[0];
			h = murmur3_32_mix_k(h, k);
	}
	return murmur3_32_finish(h, (uint32) len);
}

/*
 * pymemcache's murmur3_32 of a Python str: MurmurHash3_x86_32 of the low
 * byte of each code point, over as many bytes as code points (its pure
 * Python version masks each code point with 0xff, but the fourth of a
 * block, whose other bits fall outside the 32 bits that count).  The
 * input must be UTF-8.
 */
static uint64
hash_pymemcache_murmur3(const unsigned char *data, size_t len)
{
	unsigned char small[256];
	unsigned char *low = len <= sizeof(small) ? small : palloc(len);
	size_t		n = 0;
	uint64		h;

	for (size_t i = 0; i < len;)
	{
		int			clen = data[i] < 0x80 ? 1 : pg_utf_mblen(data + i);

		if (data[i] >= 0x80 && (clen > (int) (len - i) ||
								!pg_utf8_islegal(data + i, clen)))
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("hash function \"pymemcache_murmur3\" takes text, and the key is not valid UTF-8"),
					 errhint("Route text keys, or bytea keys that hold UTF-8 text.")));
		low[n++] = (unsigned char) (data[i] < 0x80 ? data[i] :
									utf8_to_unicode(data + i) & 0xFF);
		i += clen;
	}
	if (n == 0)
		return hash_murmur3_32(data, 0);
	h = hash_murmur3_32(low, n);
	if (low != small)
		pfree(low);
	return h;
}

/* CRC-32 (IEEE 802.3) by zlib, of any length */
uint32
chash_crc32(const unsigned char *data, size_t len)
{
	uLong		crc = crc32(0L, Z_NULL, 0);

	while (len > 0)
	{
		uInt		chunk = len > (size_t) PG_INT32_MAX ? PG_INT32_MAX : (uInt) len;

		crc = crc32(crc, data, chunk);
		data += chunk;
		len -= chunk;
	}
	return (uint32) crc;
}

/* CRC-32 (IEEE 802.3), as zlib's crc32() and MySQL's CRC32() */
static uint64
hash_crc32(const unsigned char *data, size_t len)
{
	return chash_crc32(data, len);
}

/*
 * CRC-16/XMODEM (polynomial 0x1021, not reflected, initial value 0), by a
 * table, in a 32-bit register that is not masked: the low 16 bits are the
 * CRC, and the whole register is twemproxy's crc16.  No library at hand
 * has this CRC (zlib's are CRC-32); the published check value of
 * "123456789" is 0x31C3.
 */
uint32
chash_crc16_register(const unsigned char *data, size_t len)
{
	static uint16 table[256];
	static bool table_ready = false;
	uint32		crc = 0;

	if (unlikely(!table_ready))
	{
		for (int i = 0; i < 256; i++)
		{
			uint32		c = (uint32) i << 8;

			for (int bit = 0; bit < 8; bit++)
				c = (c & 0x8000) ? ((c << 1) ^ 0x1021) : (c << 1);
			table[i] = (uint16) c;
		}
		table_ready = true;
	}
	for (size_t i = 0; i < len; i++)
		crc = (crc << 8) ^ table[((crc >> 8) ^ data[i]) & 0xff];
	return crc;
}

/* CRC-16/XMODEM: Redis Cluster's key slot is its low 14 bits */
static uint64
hash_crc16(const unsigned char *data, size_t len)
{
	return (uint16) chash_crc16_register(data, len);
}

/*
 * The MD5 digest of data, by nettle.  Not PostgreSQL's pg_md5_binary: with
 * OpenSSL it makes and frees a digest context per call, which made MD5 of
 * a short key cost about 600 ns in chash_lookup, against some 90 for the
 * digest itself (nettle computes it on the stack).
 */
void
chash_md5(const void *data, size_t len, uint8 digest[16])
{
	struct md5_ctx ctx;

	md5_init(&ctx);
	md5_update(&ctx, len, data);
	md5_digest(&ctx, MD5_DIGEST_SIZE, digest);
}

/* The ketama hash: the first four bytes of the MD5 digest, little-endian */
static uint64
hash_md5(const unsigned char *data, size_t len)
{
	uint8		digest[16];

	chash_md5(data, len, digest);
	return chash_le32(digest);
}

/* The first four bytes of the SHA-1 digest, big-endian: Dalli's points */
static uint64
hash_sha1_be32(const unsigned char *data, size_t len)
{
	struct sha1_ctx ctx;
	uint8		digest[SHA1_DIGEST_SIZE];

	sha1_init(&ctx);
	sha1_update(&ctx, len, data);
	sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
	return ((uint32) digest[0] << 24) | ((uint32) digest[1] << 16) |
		((uint32) digest[2] << 8) | (uint32) digest[3];
}

/* PostgreSQL's own, as hashtextextended(key, 0) */
static uint64
hash_pg(const unsigned char *data, size_t len)
{
	return hash_bytes_extended(data, (int) len, 0);
}

/*
 * The partition hash of a one-column key of text (of a deterministic
 * collation) or bytea, whose extended hash function (hashtextextended,
 * hashvarlenaextended) is hash_bytes_extended of its bytes: keys of other
 * types are hashed by their own type's function in functions/lookup.c
 */
static uint64
hash_postgres_partition(const unsigned char *data, size_t len)
{
	return hash_combine64(0, hash_bytes_extended(data, (int) len,
												 CHASH_PG_PARTITION_SEED));
}

/*
 * The hashes of the Java ring code of the consistent-hashing articles work
 * on a String's UTF-16 code units.  This walks UTF-8 text as those units,
 * a character outside the BMP as its two surrogates; an error for bytes
 * that are not UTF-8, which no Java String holds.
 */
typedef struct Utf16Reader
{
	const unsigned char *p;
	const unsigned char *end;
	uint32		low_surrogate;	/* the next unit, 0 if none pending */
} Utf16Reader;

static inline bool
utf16_next(Utf16Reader *r, uint32 *unit)
{
	int			len;
	pg_wchar	c;

	if (r->low_surrogate != 0)
	{
		*unit = r->low_surrogate;
		r->low_surrogate = 0;
		return true;
	}
	if (r->p >= r->end)
		return false;
	if (*r->p < 0x80)
	{
		*unit = *r->p++;
		return true;
	}
	len = pg_utf_mblen(r->p);
	if (len > r->end - r->p || !pg_utf8_islegal(r->p, len))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("the Java hashes take text, and the key is not valid UTF-8"),
				 errhint("Route text keys, or bytea keys that hold UTF-8 text.")));
	c = utf8_to_unicode(r->p);
	r->p += len;
	if (c > 0xFFFF)
	{
		c -= 0x10000;
		*unit = 0xD800 + (c >> 10);
		r->low_surrogate = 0xDC00 + (c & 0x3FF);
	}
	else
		*unit = c;
	return true;
}

/*
 * Elasticsearch's Murmur3HashFunction.hash(String): MurmurHash3_x86_32,
 * seed 0, over the string's UTF-16 code units written little-endian, as
 * Lucene's StringHelper.murmurhash3_x86_32 of them; two units make a block
 */
static uint64
hash_es_murmur3(const unsigned char *data, size_t len)
{
	Utf16Reader r = {data, data + len, 0};
	uint32		h = 0;
	uint32		units = 0;
	uint32		u0;
	uint32		u1;

	while (utf16_next(&r, &u0))
	{
		units++;
		if (!utf16_next(&r, &u1))
		{
			/* a lone last unit: a tail of two bytes */
			h = murmur3_32_mix_k(h, u0);
			break;
		}
		units++;
		h = murmur3_32_block(h, u0 | (u1 << 16));
	}
	return murmur3_32_finish(h, units * 2);
}

/* x >> k on a Java int or long: arithmetic */
static inline uint32
java_sar32(uint32 x, int k)
{
	return (uint32) ((int32) x >> k);
}

static inline uint64
java_sar64(uint64 x, int k)
{
	return (uint64) ((int64) x >> k);
}

/*
 * FNV-1a over UTF-16 units in Java int arithmetic, a final mix, and
 * Math.abs (Integer.MIN_VALUE stays negative: 0x80000000 here)
 */
static uint64
hash_java_fnv32(const unsigned char *data, size_t len)
{
	Utf16Reader r = {data, data + len, 0};
	uint32		h = (uint32) FNV32_OFFSET;
	uint32		c;

	while (utf16_next(&r, &c))
		h = (h ^ c) * (uint32) FNV32_PRIME;
	h += h << 13;
	h ^= java_sar32(h, 7);
	h += h << 3;
	h ^= java_sar32(h, 17);
	h += h << 5;
	if ((int32) h < 0 && h != (uint32) PG_INT32_MIN)
		h = -h;
	return h;
}

/* The same steps in Java long arithmetic, from 2166136261L */
static uint64
hash_java_fnv64(const unsigned char *data, size_t len)
{
	Utf16Reader r = {data, data + len, 0};
	uint64		h = FNV32_OFFSET;
	uint32		c;

	while (utf16_next(&r, &c))
		h = (h ^ c) * FNV32_PRIME;
	h += h << 13;
	h ^= java_sar64(h, 7);
	h += h << 3;
	h ^= java_sar64(h, 17);
	h += h << 5;
	if ((int64) h < 0 && h != (uint64) PG_INT64_MIN)
		h = -h;
	return h;
}

/* Math.abs(String.hashCode()) */
static uint64
hash_java_hashcode(const unsigned char *data, size_t len)
{
	Utf16Reader r = {data, data + len, 0};
	uint32		h = 0;
	uint32		c;

	while (utf16_next(&r, &c))
		h = 31 * h + c;
	if ((int32) h < 0 && h != (uint32) PG_INT32_MIN)
		h = -h;
	return h;
}

/*
 * The key as the integer its decimal digits say, 0 to 2^63 - 1: int4 and
 * int8 keys are hashed as their decimal text, so an integer key's position
 * is the integer, and modulo on it is id % n.  Negative integers are
 * refused: MySQL's MOD() and PostgreSQL's % give them negative remainders,
 * which name no shard.
 */
static uint64
hash_identity(const unsigned char *data, size_t len)
{
	uint64		v = 0;
	bool		ascii = true;

	for (size_t i = 0; i < len; i++)
	{
		if (data[i] < '0' || data[i] > '9' ||
			v > (uint64) (PG_INT64_MAX - (data[i] - '0')) / 10)
		{
			for (size_t k = 0; k < len; k++)
				ascii &= data[k] >= 0x20 && data[k] < 0x7f;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 ascii ? errmsg("key \"%s\" is not an integer from 0 to 9223372036854775807",
									chash_message_name((const char *) data, (int) len)) :
					 errmsg("key is not an integer from 0 to 9223372036854775807"),
					 errdetail("Hash function \"identity\" places a key at the integer its decimal digits name.")));
		}
		v = v * 10 + (data[i] - '0');
	}
	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("key \"\" is not an integer from 0 to 9223372036854775807"),
				 errdetail("Hash function \"identity\" places a key at the integer its decimal digits name.")));
	return v;
}

static inline uint64
rotl64(uint64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64
fmix64(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/*
 * Cassandra's Murmur3Partitioner token: h1 of MurmurHash3_x64_128, seed 0,
 * as Cassandra's own MurmurHash.hash3_x64_128 computes it, where the tail
 * bytes are Java's signed bytes, sign-extended before they are shifted (so
 * keys whose last len % 16 bytes hold one of 0x80 or more differ from the
 * reference murmur3).  Long.MIN_VALUE becomes Long.MAX_VALUE, and the empty
 * key is the partitioner's MINIMUM token.  Returned as a position: the
 * token plus 2^63 (signed_order).
 */
static uint64
hash_cassandra_murmur3(const unsigned char *data, size_t len)
{
	const uint64 c1 = UINT64CONST(0x87c37b91114253d5);
	const uint64 c2 = UINT64CONST(0x4cf5ad432745937f);
	size_t		nblocks = len / 16;
	const unsigned char *tail = data + nblocks * 16;
	uint64		h1 = 0;
	uint64		h2 = 0;
	uint64		k1 = 0;
	uint64		k2 = 0;
	int64		token;

	if (len == 0)
		return 0;				/* MINIMUM, -2^63 */
	for (size_t i = 0; i < nblocks; i++)
	{
		const unsigned char *b = data + i * 16;

		k1 = 0;
		k2 = 0;
		for (int j = 7; j >= 0; j--)
		{
			k1 = (k1 << 8) | b[j];
			k2 = (k2 << 8) | b[8 + j];
		}
		k1 *= c1;
		k1 = rotl64(k1, 31);
		k1 *= c2;
		h1 ^= k1;
		h1 = rotl64(h1, 27);
		h1 += h2;
		h1 = h1 * 5 + 0x52dce729;
		k2 *= c2;
		k2 = rotl64(k2, 33);
		k2 *= c1;
		h2 ^= k2;
		h2 = rotl64(h2, 31);
		h2 += h1;
		h2 = h2 * 5 + 0x38495ab5;
	}

	k1 = 0;
	k2 = 0;
	for (int j = (int) (len & 15) - 1; j >= 0; j--)
	{
		/* Java's (long) of a signed byte, shifted into place */
		uint64		v = (uint64) (int64) (int8) tail[j];

		if (j >= 8)
			k2 ^= v << (8 * (j - 8));
		else
			k1 ^= v << (8 * j);
	}
	if (len & 15)
	{
		if ((len & 15) > 8)
		{
			k2 *= c2;
			k2 = rotl64(k2, 33);
			k2 *= c1;
			h2 ^= k2;
		}
		k1 *= c1;
		k1 = rotl64(k1, 31);
		k1 *= c2;
		h1 ^= k1;
	}

	/* the length as Java's int, sign-extended to long (keys are < 2^31) */
	h1 ^= (uint64) len;
	h2 ^= (uint64) len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	token = (int64) h1;
	if (token == PG_INT64_MIN)
		token = PG_INT64_MAX;
	return (uint64) token ^ CHASH_SIGN_BIT;
}

/*
 * The key as a signed 64-bit integer, its two's complement bits: any
 * bigint, as Java's long keys (Guava's consistentHash takes the long
 * itself).  Keys are decimal integers from -2^63 to 2^63 - 1.
 */
static uint64
hash_int64(const unsigned char *data, size_t len)
{
	bool		negative = len > 0 && data[0] == '-';
	uint64		limit = negative ? (uint64) PG_INT64_MAX + 1 : (uint64) PG_INT64_MAX;
	uint64		v = 0;
	size_t		i = negative ? 1 : 0;
	bool		ok = i < len;
	bool		ascii = true;

	for (; ok && i < len; i++)
	{
		if (data[i] < '0' || data[i] > '9' || v > (limit - (data[i] - '0')) / 10)
			ok = false;
		else
			v = v * 10 + (data[i] - '0');
	}
	if (!ok)
	{
		for (size_t k = 0; k < len; k++)
			ascii &= data[k] >= 0x20 && data[k] < 0x7f;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 ascii ? errmsg("key \"%s\" is not an integer from -9223372036854775808 to 9223372036854775807",
								chash_message_name((const char *) data, (int) len)) :
				 errmsg("key is not an integer from -9223372036854775808 to 9223372036854775807"),
				 errdetail("Hash function \"int64\" places a key at the bits of the 64-bit integer its decimal digits name.")));
	}
	return negative ? (uint64) 0 - v : v;
}

static const ChashHashFunction chash_hash_functions[] = {
	{"xxh3_64", 64, hash_xxh3_64, "XXH3 64-bit (libxxhash), seed 0"},
	{"xxh64", 64, hash_xxh64, "XXH64 (libxxhash), seed 0"},
	{"murmur3_32", 32, hash_murmur3_32, "MurmurHash3 x86 32-bit, seed 0"},
	{"fnv1_32", 32, hash_fnv1_32, "FNV-1 32-bit"},
	{"fnv1a_32", 32, hash_fnv1a_32, "FNV-1a 32-bit"},
	{"fnv1_64", 64, hash_fnv1_64, "FNV-1 64-bit"},
	{"fnv1a_64", 64, hash_fnv1a_64, "FNV-1a 64-bit"},
	{"crc32", 32, hash_crc32, "CRC-32 (IEEE), as zlib and MySQL's CRC32()"},
	{"crc16", 16, hash_crc16, "CRC-16/XMODEM (polynomial 0x1021, initial value 0), as Redis Cluster's key slots"},
	{"md5", 32, hash_md5, "first 4 bytes of MD5, little-endian (ketama)"},
	{"sha1_be32", 32, hash_sha1_be32, "first 4 bytes of SHA-1, big-endian (Dalli's points)"},
	{"pg", 64, hash_pg, "PostgreSQL's hash_bytes_extended, seed 0, as hashtextextended(key, 0)"},
	{"java_fnv32", 32, hash_java_fnv32, "Java ring code: FNV-1a over UTF-16 units in int arithmetic, mixed, Math.abs", true},
	{"java_fnv64", 64, hash_java_fnv64, "Java ring code: java_fnv32's steps in long arithmetic, Math.abs", true},
	{"java_hashcode", 32, hash_java_hashcode, "Java: Math.abs(String.hashCode())", true},
	{"es_murmur3", 32, hash_es_murmur3, "Elasticsearch's routing hash: MurmurHash3 x86 32-bit over the UTF-16 code units, little-endian", true},
	/* nutcracker's key hashes where they differ from the ones above */
	{"twemproxy_one_at_a_time", 32, chash_hash_twemproxy_one_at_a_time, "twemproxy's one_at_a_time: Jenkins's one-at-a-time, bytes as signed char"},
	{"twemproxy_crc16", 32, chash_hash_twemproxy_crc16, "twemproxy's crc16: CRC-16/XMODEM in an unmasked 32-bit register"},
	{"twemproxy_crc32", 32, chash_hash_twemproxy_crc32, "twemproxy's crc32: bits 16..30 of CRC-32 (libmemcached's)"},
	{"twemproxy_fnv1_64", 32, chash_hash_twemproxy_fnv1_64, "twemproxy's fnv1_64: low 32 bits of FNV-1 64-bit, bytes as signed char"},
	{"twemproxy_fnv1a_64", 32, chash_hash_twemproxy_fnv1a_64, "twemproxy's fnv1a_64: low 32 bits of FNV-1a 64-bit, bytes as signed char"},
	{"twemproxy_fnv1_32", 32, chash_hash_twemproxy_fnv1_32, "twemproxy's fnv1_32: FNV-1 32-bit, bytes as signed char"},
	{"twemproxy_fnv1a_32", 32, chash_hash_twemproxy_fnv1a_32, "twemproxy's fnv1a_32: FNV-1a 32-bit, bytes as signed char"},
	{"twemproxy_hsieh", 32, chash_hash_twemproxy_hsieh, "twemproxy's hsieh: SuperFastHash started at 0, a lone last byte unsigned"},
	{"twemproxy_murmur", 32, chash_hash_twemproxy_murmur, "twemproxy's murmur: MurmurHash2, seed 0xdeadbeef * length"},
	{"twemproxy_jenkins", 32, chash_hash_twemproxy_jenkins, "twemproxy's jenkins: lookup3 hashlittle, initial value 13"},
	/* HAProxy's key hashes (hash-type consistent); its crc32 is crc32 */
	{"haproxy_sdbm", 32, chash_hash_haproxy_sdbm, "HAProxy's sdbm"},
	{"haproxy_djb2", 32, chash_hash_haproxy_djb2, "HAProxy's djb2"},
	{"haproxy_wt6", 32, chash_hash_haproxy_wt6, "HAProxy's wt6"},
	{"haproxy_sdbm_avalanche", 32, chash_hash_haproxy_sdbm_avalanche, "HAProxy's sdbm avalanche (its default): sdbm, then full_hash"},
	{"haproxy_djb2_avalanche", 32, chash_hash_haproxy_djb2_avalanche, "HAProxy's djb2 avalanche: djb2, then full_hash"},
	{"haproxy_wt6_avalanche", 32, chash_hash_haproxy_wt6_avalanche, "HAProxy's wt6 avalanche: wt6, then full_hash"},
	{"haproxy_crc32_avalanche", 32, chash_hash_haproxy_crc32_avalanche, "HAProxy's crc32 avalanche: CRC-32, then full_hash"},
	{"identity", 63, hash_identity, "the key as an integer, 0 to 2^63 - 1 (keys are decimal integers)", false, true},
	{"int64", 64, hash_int64, "the key as a signed 64-bit integer, its two's complement bits (keys are decimal integers, as Java's long)", false, true},
	{"pymemcache_murmur3", 32, hash_pymemcache_murmur3, "pymemcache's murmur3_32 of a str: MurmurHash3 x86 32-bit of the low byte of each code point", true},
	{"postgres_partition", 64, hash_postgres_partition, "PostgreSQL's hash partitioning: each non-NULL key column's extended hash (its type's default hash operator class, seed HASH_PARTITION_SEED), combined by hash_combine64; keys are hashed as their SQL type", .typed_keys = true},
	{"cassandra_murmur3", 64, hash_cassandra_murmur3, "Cassandra's Murmur3Partitioner token (its MurmurHash3 x64 128, signed tail bytes) of the key as CQL serialises it; positions in signed order", false, false, true, true},
};

/* An error unless tag is two printable ASCII characters (see hash/hash.h) */
void
chash_hash_tag_check(const char *tag)
{
	if (strlen(tag) != 2 ||
		tag[0] < 0x21 || tag[0] > 0x7e || tag[1] < 0x21 || tag[1] > 0x7e)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hash_tag must be two printable ASCII characters"),
				 errdetail("hash_tag is \"%s\".", chash_message_name(tag, (int) strlen(tag))),
				 errhint("Give the characters that open and close a tag, as \"{}\" for Redis Cluster.")));
}

int
chash_hash_count(void)
{
	return lengthof(chash_hash_functions);
}

const ChashHashFunction *
chash_hash_at(int i)
{
	Assert(i >= 0 && i < lengthof(chash_hash_functions));
	return &chash_hash_functions[i];
}

/* The hash function of that name, or NULL */
const ChashHashFunction *
chash_hash_find(const char *name)
{
	for (int i = 0; i < lengthof(chash_hash_functions); i++)
	{
		if (strcmp(chash_hash_functions[i].name, name) == 0)
			return &chash_hash_functions[i];
	}
	return NULL;
}

static const char *
hash_name_at(int i)
{
	return chash_hash_functions[i].name;
}

/* The hash function of that name; an error listing the valid ones if none */
const ChashHashFunction *
chash_hash_get(const char *name)
{
	const ChashHashFunction *hash = chash_hash_find(name);

	if (hash == NULL)
		chash_error_unknown("hash function", "hash functions", name,
							lengthof(chash_hash_functions), hash_name_at);
	return hash;
}
