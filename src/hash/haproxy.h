/*-------------------------------------------------------------------------
 *
 * haproxy.h
 *	  HAProxy's key hashes (hash-type consistent) and its full_hash.
 *
 *-------------------------------------------------------------------------
 */
#ifndef HASH_HAPROXY_H
#define HASH_HAPROXY_H

extern uint32 chash_haproxy_full_hash(uint32 a);
extern uint64 chash_hash_haproxy_sdbm(const unsigned char *data, size_t len);
extern uint64 chash_hash_haproxy_djb2(const unsigned char *data, size_t len);
extern uint64 chash_hash_haproxy_wt6(const unsigned char *data, size_t len);
extern uint64 chash_hash_haproxy_sdbm_avalanche(const unsigned char *data,
												size_t len);
extern uint64 chash_hash_haproxy_djb2_avalanche(const unsigned char *data,
												size_t len);
extern uint64 chash_hash_haproxy_wt6_avalanche(const unsigned char *data,
											   size_t len);
extern uint64 chash_hash_haproxy_crc32_avalanche(const unsigned char *data,
												 size_t len);

#endif							/* HASH_HAPROXY_H */
