/*-------------------------------------------------------------------------
 *
 * hash.h
 *	  The table of hash functions, and the bytes of text that are hashed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef CHASH_HASH_H
#define CHASH_HASH_H

#include "common/chash.h"
#include "mb/pg_wchar.h"

/*
 * Hash functions (hash/hash.c).  Every function maps bytes to an unsigned
 * value of 'bits' bits (16, 32 or 64; 63 for identity, whose keys are integers
 * from 0 to 2^63 - 1), returned in the low bits of a uint64.
 */
typedef uint64 (*ChashHashFn) (const unsigned char *data, size_t len);

typedef struct ChashHashFunction
{
	const char *name;
	int			bits;
	ChashHashFn fn;
	const char *description;
	bool		needs_utf8;		/* input must be UTF-8 (the hashes of a
								 * client's strings: Java's, Python's) */
	bool		integer_keys;	/* takes decimal integers only (identity) */

	/*
	 * Positions are signed values, shown as themselves: SQL's value is the
	 * position minus 2^63, so that unsigned order on the ring is SQL's
	 * order (Cassandra's tokens, which run from -2^63 to 2^63 - 1)
	 */
	bool		signed_order;

	/*
	 * Integer and uuid keys are hashed as their binary form, big-endian,
	 * not as their text (CQL serialises a partition key so)
	 */
	bool		binary_keys;

	/*
	 * Keys are hashed as typed values, not bytes: by their type's extended
	 * hash function, as PostgreSQL's hash partitioning hashes a row's
	 * partition key (functions/lookup.c, which has the catalog at hand).
	 * fn is then that hash of a one-column key of text or bytea, whose
	 * extended hash is hash_bytes_extended of its bytes.
	 */
	bool		typed_keys;
} ChashHashFunction;

/*
 * PostgreSQL's seed of the hash of a partition key: HASH_PARTITION_SEED of
 * catalog/partition.h (functions/lookup.c checks that they are equal); the
 * columns' hashes are combined by PostgreSQL's own hash_combine64
 */
#define CHASH_PG_PARTITION_SEED UINT64CONST(0x7A5B22367996DCFD)

extern const ChashHashFunction *chash_hash_find(const char *name);
extern uint32 chash_crc32(const unsigned char *data, size_t len);
extern uint32 chash_crc16_register(const unsigned char *data, size_t len);
extern void chash_md5(const void *data, size_t len, uint8 digest[16]);
extern uint64 chash_xxh64_seeded(const void *data, size_t len, uint64 seed);

/* The little-endian 32-bit word at p (as ketama reads MD5 digests) */
static inline uint32
chash_le32(const uint8 *p)
{
	return (uint32) p[0] | ((uint32) p[1] << 8) |
		((uint32) p[2] << 16) | ((uint32) p[3] << 24);
}
extern const ChashHashFunction *chash_hash_get(const char *name);
extern int	chash_hash_count(void);
extern const ChashHashFunction *chash_hash_at(int i);

/*
 * Hash tags: of a key with the tag delimiters tag[0] and tag[1], only the
 * bytes between the first tag[0] and the first tag[1] after it are hashed,
 * if there are any; otherwise the whole key, as Redis Cluster and
 * twemproxy's hash_tag do.  tag is two printable ASCII characters, so that
 * a tag found in UTF-8 is never part of a multibyte character.
 */
extern void chash_hash_tag_check(const char *tag);

static inline void
chash_hash_tag_slice(const char *tag, const unsigned char **data, size_t *len)
{
	if (unlikely(tag != NULL))
	{
		const unsigned char *open = memchr(*data, tag[0], *len);

		if (open != NULL)
		{
			const unsigned char *close = memchr(open + 1, tag[1],
												*len - (open + 1 - *data));

			if (close != NULL && close > open + 1)
			{
				*data = open + 1;
				*len = close - *data;
			}
		}
	}
}

static inline uint64
chash_hash_tagged(const ChashHashFunction *hash, const char *tag,
				  const unsigned char *data, size_t len)
{
	chash_hash_tag_slice(tag, &data, &len);
	return hash->fn(data, len);
}

/*
 * A position of a key hash on the ring as SQL shows it: a 32-bit value as
 * itself, a 64-bit one reinterpreted as signed (the convention of
 * hashtextextended), or offset by 2^63 where the hash's order is signed.
 */
#define CHASH_SIGN_BIT (UINT64CONST(1) << 63)

static inline int64
chash_position_to_int64(const ChashHashFunction *key_hash, uint64 position)
{
	return (int64) (key_hash->signed_order ? position ^ CHASH_SIGN_BIT : position);
}

/* ... and back: the position that SQL's value names */
static inline uint64
chash_position_from_int64(const ChashHashFunction *key_hash, int64 value)
{
	return key_hash->signed_order ? (uint64) value ^ CHASH_SIGN_BIT : (uint64) value;
}

/* Whether the server encoding's text is hashed as it is (see below) */
static inline bool
chash_utf8_as_is(void)
{
	int			encoding = GetDatabaseEncoding();

	return encoding == PG_UTF8 || encoding == PG_SQL_ASCII;
}

/*
 * Text in the server encoding as the bytes chash hashes: its UTF-8, or the
 * text itself where no conversion applies (UTF-8 and SQL_ASCII databases;
 * SQL_ASCII text is taken byte for byte).  Returns s or a palloc'd copy.
 */
static inline const char *
chash_text_bytes(const char *s, int len, int *outlen)
{
	char	   *u;

	if (likely(chash_utf8_as_is()))
	{
		*outlen = len;
		return s;
	}
	u = pg_server_to_any(s, len, PG_UTF8);
	/* unconverted, s need not be NUL-terminated */
	*outlen = (u == s) ? len : (int) strlen(u);
	return u;
}

#endif							/* CHASH_HASH_H */
