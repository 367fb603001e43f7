/*-------------------------------------------------------------------------
 *
 * haproxy.c
 *	  The key hashes of HAProxy's "hash-type consistent" (2.6): sdbm, djb2
 *	  and wt6 over the key's bytes (unsigned), and each of them and crc32
 *	  "avalanche", that is followed by full_hash.
 *
 * full_hash is Bob Jenkins's 32-bit integer mix times 3221225473; HAProxy also
 * places its servers' points with it (algorithms/haproxy.c).  Its crc32 is the
 * standard CRC-32, chash's crc32.  No library has these; they are checked
 * against HAProxy itself by test/scripts/compat.sh.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hash/hash.h"
#include "hash/haproxy.h"

uint32
chash_haproxy_full_hash(uint32 a)
{
	a = (a + 0x7ed55d16) + (a << 12);
	a = (a ^ 0xc761c23c) ^ (a >> 19);
	a = (a + 0x165667b1) + (a << 5);
	a = (a + 0xd3a2646c) ^ (a << 9);
	a = (a + 0xfd7046c5) + (a << 3);
	a = (a ^ 0xb55a4f09) ^ (a >> 16);
	return a * 3221225473U;
}

uint64
chash_hash_haproxy_sdbm(const unsigned char *data, size_t len)
{
	uint32		h = 0;

	for (size_t i = 0; i < len; i++)
		h = data[i] + (h << 6) + (h << 16) - h;
	return h;
}

uint64
chash_hash_haproxy_djb2(const unsigned char *data, size_t len)
{
	uint32		h = 5381;

	for (size_t i = 0; i < len; i++)
		h = ((h << 5) + h) + data[i];
	return h;
}

/* HAProxy's own: two words mixed with rotations that the bytes steer */
uint64
chash_hash_haproxy_wt6(const unsigned char *data, size_t len)
{
	uint32		h0 = 0xa53c965a;
	uint32		h1 = 0x5ca6953a;
	uint32		step0 = 6;
	uint32		step1 = 18;

	for (size_t i = 0; i < len; i++)
	{
		uint32		t = data[i];

		h0 = ~(h0 ^ t);
		h1 = ~(h1 + t);
		/* steps of 0 shift by 32 in HAProxy's C: on x86 that is no shift */
		t = (h1 << step0) | (h1 >> ((32 - step0) & 31));
		h1 = (h0 << step1) | (h0 >> ((32 - step1) & 31));
		h0 = t;
		t = ((h0 >> 16) ^ h1) & 0xffff;
		step0 = t & 0x1f;
		step1 = t >> 11;
	}
	return h0 ^ h1;
}

uint64
chash_hash_haproxy_sdbm_avalanche(const unsigned char *data, size_t len)
{
	return chash_haproxy_full_hash((uint32) chash_hash_haproxy_sdbm(data, len));
}

uint64
chash_hash_haproxy_djb2_avalanche(const unsigned char *data, size_t len)
{
	return chash_haproxy_full_hash((uint32) chash_hash_haproxy_djb2(data, len));
}

uint64
chash_hash_haproxy_wt6_avalanche(const unsigned char *data, size_t len)
{
	return chash_haproxy_full_hash((uint32) chash_hash_haproxy_wt6(data, len));
}

uint64
chash_hash_haproxy_crc32_avalanche(const unsigned char *data, size_t len)
{
	return chash_haproxy_full_hash(chash_crc32(data, len));
}
