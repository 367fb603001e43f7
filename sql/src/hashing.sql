CREATE OR REPLACE FUNCTION chash_position(ring text, key text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, text) IS
	'where a text key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key bytea) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, bytea) IS
	'where a bytea key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key integer) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, integer) IS
	'where an integer key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, bigint) IS
	'where a bigint key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key uuid) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, uuid) IS
	'where a uuid key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key smallint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_int2'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, smallint) IS
	'where a smallint key falls on the ring: its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_position(ring text, key anyelement) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_any'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, anyelement) IS
	'where a key of another type falls on the ring, hashed as its text (types whose text depends on settings are refused): its key hash, as bigint';

CREATE OR REPLACE FUNCTION chash_hash(hash text, key text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_hash_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_hash(text, text) IS
	'a chash hash function applied to a text key (its UTF-8 bytes); 64-bit values as signed bigint';

CREATE OR REPLACE FUNCTION chash_hash(hash text, key bytea) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_hash_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_hash(text, bytea) IS
	'a chash hash function applied to a bytea key; 64-bit values as signed bigint';

CREATE OR REPLACE FUNCTION chash_hash_functions()
	RETURNS TABLE(name text, bits integer, description text)
	AS 'MODULE_PATHNAME', 'chash_hash_functions'
	LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash_hash_functions() IS
	'the hash functions chash can place points and keys with';

-- A partition key as Cassandra's CQL serialises it
CREATE OR REPLACE FUNCTION chash_cql_key(VARIADIC components "any") RETURNS bytea
	AS 'MODULE_PATHNAME', 'chash_cql_key'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash_cql_key("any") IS
	'a partition key as Cassandra''s CQL serialises it, the bytes hash cassandra_murmur3 takes: one value alone (text, varchar, bytea, smallint, integer, bigint, boolean, uuid), or two or more as a composite key';

