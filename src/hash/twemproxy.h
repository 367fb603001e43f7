/*-------------------------------------------------------------------------
 *
 * twemproxy.h
 *	  The key hash functions of twemproxy (nutcracker 0.5.0) that differ
 *	  from chash's core ones.
 *
 * Each returns nutcracker's 32-bit value in the low bits of a uint64.
 *
 *-------------------------------------------------------------------------
 */
#ifndef HASH_TWEMPROXY_H
#define HASH_TWEMPROXY_H

extern uint64 chash_hash_twemproxy_one_at_a_time(const unsigned char *data,
												 size_t len);
extern uint64 chash_hash_twemproxy_crc16(const unsigned char *data,
										 size_t len);
extern uint64 chash_hash_twemproxy_crc32(const unsigned char *data,
										 size_t len);
extern uint64 chash_hash_twemproxy_fnv1_64(const unsigned char *data,
										   size_t len);
extern uint64 chash_hash_twemproxy_fnv1a_64(const unsigned char *data,
											size_t len);
extern uint64 chash_hash_twemproxy_fnv1_32(const unsigned char *data,
										   size_t len);
extern uint64 chash_hash_twemproxy_fnv1a_32(const unsigned char *data,
											size_t len);
extern uint64 chash_hash_twemproxy_hsieh(const unsigned char *data,
										 size_t len);
extern uint64 chash_hash_twemproxy_murmur(const unsigned char *data,
										  size_t len);
extern uint64 chash_hash_twemproxy_jenkins(const unsigned char *data,
										   size_t len);

#endif							/* HASH_TWEMPROXY_H */
