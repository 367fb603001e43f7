/*
 * Routing.  STABLE because they read the catalog (through the per-backend
 * cache): a statement sees one state of each ring.
 */
CREATE OR REPLACE FUNCTION chash_lookup(ring text, key text) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, text) IS
	'the node that owns a text key (hashed as its UTF-8 bytes)';

CREATE OR REPLACE FUNCTION chash_lookup(ring text, key bytea) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, bytea) IS
	'the node that owns a bytea key (hashed as its bytes)';

CREATE OR REPLACE FUNCTION chash_lookup(ring text, key integer) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, integer) IS
	'the node that owns an integer key (hashed as its decimal text)';

CREATE OR REPLACE FUNCTION chash_lookup(ring text, key bigint) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, bigint) IS
	'the node that owns a bigint key (hashed as its decimal text)';

CREATE OR REPLACE FUNCTION chash_lookup(ring text, key uuid) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, uuid) IS
	'the node that owns a uuid key (hashed as its canonical lower-case text)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key text, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, text, integer) IS
	'the first n distinct nodes clockwise from a text key (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key bytea, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, bytea, integer) IS
	'the first n distinct nodes clockwise from a bytea key (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key integer, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, integer, integer) IS
	'the first n distinct nodes clockwise from an integer key (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key bigint, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, bigint, integer) IS
	'the first n distinct nodes clockwise from a bigint key (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key uuid, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, uuid, integer) IS
	'the first n distinct nodes clockwise from a uuid key (a preference list; the first is chash_lookup''s)';

-- Zone-aware replicas: chash_lookup_n(ring, key, n, distinct_zones) picks
-- nodes of zones that hold no copy yet first.  Without the argument it is
-- the 1.2 function, unchanged.
CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key text, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, text, integer, boolean) IS
	'the first n distinct nodes of the key''s preference order; with distinct_zones, nodes of zones holding no copy yet first (a node without a zone is a zone of its own), then the others in order';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key bytea, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, bytea, integer, boolean) IS
	'chash_lookup_n of a binary key, by zones if asked';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key integer, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, integer, integer, boolean) IS
	'chash_lookup_n of an integer key (hashed as its decimal text), by zones if asked';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key bigint, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, bigint, integer, boolean) IS
	'chash_lookup_n of a bigint key (hashed as its decimal text), by zones if asked';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key uuid, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, uuid, integer, boolean) IS
	'chash_lookup_n of a uuid key (hashed as its canonical text), by zones if asked';

-- Keys of other types: smallint as an integer, and any type whose text
-- no setting changes (numeric, boolean, an enum, ...) as that text, as the
-- plans hash them; a type whose text depends on settings (timestamptz,
-- date, real, ...) is refused with the plans' error
CREATE OR REPLACE FUNCTION chash_lookup(ring text, key smallint) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_int2'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, smallint) IS
	'the node that owns a smallint key (hashed as its decimal text)';

CREATE OR REPLACE FUNCTION chash_lookup(ring text, key anyelement) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_any'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, anyelement) IS
	'the node that owns a key of another type (hashed as its text, as the plans hash it; types whose text depends on settings are refused)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key smallint, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int2'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, smallint, integer) IS
	'the first n distinct nodes clockwise from a smallint key (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key anyelement, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_any'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, anyelement, integer) IS
	'the first n distinct nodes clockwise from a key of another type, hashed as its text (a preference list; the first is chash_lookup''s)';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key smallint, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int2'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, smallint, integer, boolean) IS
	'chash_lookup_n of a smallint key (hashed as its decimal text), by zones if asked';

CREATE OR REPLACE FUNCTION chash_lookup_n(ring text, key anyelement, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_any'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, anyelement, integer, boolean) IS
	'chash_lookup_n of a key of another type (hashed as its text), by zones if asked';

-- Elasticsearch indices of routing_partition_size > 1
CREATE OR REPLACE FUNCTION chash_lookup_partitioned(ring text, routing text, id text,
										 routing_partition_size integer)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_partitioned'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_partitioned(text, text, text, integer) IS
	'the shard of a document (its routing and _id) of an Elasticsearch index of that routing_partition_size, on an elasticsearch ring';

CREATE OR REPLACE FUNCTION chash_lookup_partitioned(ring text, routing text,
										 routing_partition_size integer)
	RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_partitioned_search'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_partitioned(text, text, integer) IS
	'the shards, in shard order, that a search with that routing visits in an Elasticsearch index of that routing_partition_size, on an elasticsearch ring';

