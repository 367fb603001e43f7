/*-------------------------------------------------------------------------
 *
 * twemproxy.c
 *	  The key hash functions of twemproxy (nutcracker 0.5.0), as its pool
 *	  setting "hash:" names them, where they differ from chash's core ones.
 *
 * nutcracker's functions all return 32 bits, and most of them read the key
 * through a plain "char", which is signed on x86-64: a byte of 0x80 or more
 * enters the arithmetic sign-extended (0xe9 as 0xffffffe9).  Keys in ASCII
 * never see the difference; UTF-8 keys do.  These functions reproduce what
 * the Debian amd64 build of nutcracker computes, whatever the signedness of
 * char on the machine running chash.
 *
 * nutcracker's md5 (the first four bytes of the digest, little-endian) and
 * crc32a (zlib's CRC-32) are chash's md5 and crc32 and are not repeated
 * here.  Each function below says how it differs from the published one.
 * All were checked key for key against a running nutcracker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hash/hash.h"
#include "hash/twemproxy.h"

/* A key byte as nutcracker sees it: through a signed char, sign-extended */
static inline uint32
twemproxy_signed_byte(unsigned char c)
{
	return (c & 0x80) ? ((uint32) c | 0xffffff00) : (uint32) c;
}

/*
 * Bob Jenkins' one-at-a-time hash, bytes sign-extended (the published one
 * adds them unsigned).
 */
uint64
chash_hash_twemproxy_one_at_a_time(const unsigned char *data, size_t len)
{
	uint32		h = 0;

	for (size_t i = 0; i < len; i++)
	{
		h += twemproxy_signed_byte(data[i]);
		h += h << 10;
		h ^= h >> 6;
	}
	h += h << 3;
	h ^= h >> 11;
	h += h << 15;
	return h;
}

/*
 * nutcracker's crc16 is CRC-16/XMODEM in a 32-bit register that is never
 * masked to 16 bits: each step shifts the whole register left by 8.  The
 * low 16 bits are the published CRC; from the second byte on, the high 16
 * bits keep earlier register bits, and nutcracker returns all 32.
 */
uint64
chash_hash_twemproxy_crc16(const unsigned char *data, size_t len)
{
	return chash_crc16_register(data, len);
}

/*
 * libmemcached's "crc": bits 16 to 30 of the CRC-32 (IEEE, as zlib), a
 * value below 32768.  (nutcracker's crc32a is the whole CRC-32.)
 */
uint64
chash_hash_twemproxy_crc32(const unsigned char *data, size_t len)
{
	return (chash_crc32(data, len) >> 16) & 0x7fff;
}

/* FNV offset bases and primes of the spec */
#define TWEMPROXY_FNV32_OFFSET	UINT64CONST(2166136261)
#define TWEMPROXY_FNV32_PRIME	UINT64CONST(16777619)
#define TWEMPROXY_FNV64_OFFSET	UINT64CONST(14695981039346656037)
#define TWEMPROXY_FNV64_PRIME	UINT64CONST(1099511628211)

/*
 * FNV-1 64-bit with bytes sign-extended, of which nutcracker returns the low
 * 32 bits.  For ASCII keys that is the low half of the published FNV-1
 * 64-bit.
 */
uint64
chash_hash_twemproxy_fnv1_64(const unsigned char *data, size_t len)
{
	uint64		h = TWEMPROXY_FNV64_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h *= TWEMPROXY_FNV64_PRIME;
		h ^= (data[i] & 0x80) ? ((uint64) data[i] | ~UINT64CONST(0xff)) :
			(uint64) data[i];
	}
	return (uint32) h;
}

/*
 * FNV-1a "64-bit" as nutcracker computes it: in 32 bits, with the 64-bit
 * offset basis and prime cut to their low halves (0x84222325, 0x000001b3),
 * bytes sign-extended.  The low 32 bits of sums, products and xors depend
 * only on the low 32 bits of their operands, so this is the low half of
 * FNV-1a 64-bit over sign-extended bytes, and for ASCII keys the low half
 * of the published FNV-1a 64-bit.
 */
uint64
chash_hash_twemproxy_fnv1a_64(const unsigned char *data, size_t len)
{
	uint32		h = (uint32) TWEMPROXY_FNV64_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h ^= twemproxy_signed_byte(data[i]);
		h *= (uint32) TWEMPROXY_FNV64_PRIME;
	}
	return h;
}

/* FNV-1 32-bit, bytes sign-extended */
uint64
chash_hash_twemproxy_fnv1_32(const unsigned char *data, size_t len)
{
	uint32		h = (uint32) TWEMPROXY_FNV32_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h *= (uint32) TWEMPROXY_FNV32_PRIME;
		h ^= twemproxy_signed_byte(data[i]);
	}
	return h;
}

/* FNV-1a 32-bit, bytes sign-extended */
uint64
chash_hash_twemproxy_fnv1a_32(const unsigned char *data, size_t len)
{
	uint32		h = (uint32) TWEMPROXY_FNV32_OFFSET;

	for (size_t i = 0; i < len; i++)
	{
		h ^= twemproxy_signed_byte(data[i]);
		h *= (uint32) TWEMPROXY_FNV32_PRIME;
	}
	return h;
}

/* Two bytes, little-endian */
static inline uint32
twemproxy_get16(const unsigned char *p)
{
	return (uint32) p[0] | ((uint32) p[1] << 8);
}

/*
 * Paul Hsieh's SuperFastHash, but started from 0 instead of the length, and
 * a lone last byte (length 1 modulo 4) added unsigned where the published
 * one adds it as a signed char.  The third of three last bytes is
 * sign-extended, as in the published one.
 */
uint64
chash_hash_twemproxy_hsieh(const unsigned char *data, size_t len)
{
	uint32		h = 0;
	uint32		tmp;

	if (len == 0)
		return 0;

	for (size_t n = len >> 2; n > 0; n--)
	{
		h += twemproxy_get16(data);
		tmp = (twemproxy_get16(data + 2) << 11) ^ h;
		h = (h << 16) ^ tmp;
		data += 4;
		h += h >> 11;
	}

	switch (len & 3)
	{
		case 3:
			h += twemproxy_get16(data);
			h ^= h << 16;
			h ^= twemproxy_signed_byte(data[2]) << 18;
			h += h >> 11;
			break;
		case 2:
			h += twemproxy_get16(data);
			h ^= h << 11;
			h += h >> 17;
			break;
		case 1:
			h += data[0];
			h ^= h << 10;
			h += h >> 1;
			break;
	}

	h ^= h << 3;
	h += h >> 5;
	h ^= h << 4;
	h += h >> 17;
	h ^= h << 25;
	h += h >> 6;
	return h;
}

/*
 * MurmurHash2 (Austin Appleby), 32-bit, words read little-endian, with
 * libmemcached's seed: 0xdeadbeef times the length (the published function
 * takes the seed from its caller).
 */
uint64
chash_hash_twemproxy_murmur(const unsigned char *data, size_t len)
{
	const uint32 m = 0x5bd1e995;
	uint32		h = (0xdeadbeef * (uint32) len) ^ (uint32) len;

	for (; len >= 4; len -= 4, data += 4)
	{
		uint32		k = (uint32) data[0] | ((uint32) data[1] << 8) |
			((uint32) data[2] << 16) | ((uint32) data[3] << 24);

		k *= m;
		k ^= k >> 24;
		k *= m;
		h *= m;
		h ^= k;
	}

	switch (len)
	{
		case 3:
			h ^= (uint32) data[2] << 16;
			pg_fallthrough;
		case 2:
			h ^= (uint32) data[1] << 8;
			pg_fallthrough;
		case 1:
			h ^= data[0];
			h *= m;
	}

	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	return h;
}

static inline uint32
twemproxy_rot(uint32 x, int k)
{
	return (x << k) | (x >> (32 - k));
}

/*
 * Bob Jenkins' lookup3 hashlittle(), bytes unsigned and read little-endian,
 * with libmemcached's initial value of 13 (the published function takes it
 * from its caller).
 */
uint64
chash_hash_twemproxy_jenkins(const unsigned char *data, size_t len)
{
	uint32		a,
				b,
				c;
	uint32		w[3];

	a = b = c = 0xdeadbeef + (uint32) len + 13;
	if (len == 0)
		return c;

	/* all blocks but the last, which holds 1 to 12 bytes */
	while (len > 12)
	{
		for (int j = 0; j < 3; j++)
			w[j] = (uint32) data[4 * j] | ((uint32) data[4 * j + 1] << 8) |
				((uint32) data[4 * j + 2] << 16) |
				((uint32) data[4 * j + 3] << 24);
		a += w[0];
		b += w[1];
		c += w[2];

		/* mix(a, b, c) */
		a -= c;
		a ^= twemproxy_rot(c, 4);
		c += b;
		b -= a;
		b ^= twemproxy_rot(a, 6);
		a += c;
		c -= b;
		c ^= twemproxy_rot(b, 8);
		b += a;
		a -= c;
		a ^= twemproxy_rot(c, 16);
		c += b;
		b -= a;
		b ^= twemproxy_rot(a, 19);
		a += c;
		c -= b;
		c ^= twemproxy_rot(b, 4);
		b += a;

		len -= 12;
		data += 12;
	}

	/* the last block, zero-padded */
	w[0] = w[1] = w[2] = 0;
	for (size_t i = 0; i < len; i++)
		w[i / 4] |= (uint32) data[i] << (8 * (i % 4));
	a += w[0];
	b += w[1];
	c += w[2];

	/* final(a, b, c) */
	c ^= b;
	c -= twemproxy_rot(b, 14);
	a ^= c;
	a -= twemproxy_rot(c, 11);
	b ^= a;
	b -= twemproxy_rot(a, 25);
	c ^= b;
	c -= twemproxy_rot(b, 16);
	a ^= c;
	a -= twemproxy_rot(c, 4);
	b ^= a;
	b -= twemproxy_rot(a, 14);
	c ^= b;
	c -= twemproxy_rot(b, 24);
	return c;
}
