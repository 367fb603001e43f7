/* sql/chash--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.3'" to load this file. \quit

/*
 * 1.3: placement beyond the name ring.  Computed placements (modulo, jump,
 * rendezvous) beside the rings of points, and the key hash identity, which
 * takes integer keys as their own positions.
 */

-- A key hash need not give positions as wide as the points' hash: the
-- placements without points have none.  The library checks the pairs that
-- must agree (rings of points) on every change.
ALTER TABLE chash.ring_config DROP CONSTRAINT ring_config_key_hash_check;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_key_hash_check
	CHECK (key_hash IS NULL OR chash.hash_bits(key_hash) IS NOT NULL);

COMMENT ON FUNCTION chash.algorithm_is_known(text) IS
	'whether chash has a placement algorithm of that name';
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text) IS
	'create a ring: algorithm (ring, ketama, modulo, jump or rendezvous), hash of the points or node names (default: the algorithm''s), vnodes per node of average weight, vnode name template ({node}, {i}), first i, hash of the keys (default: hash; identity for integer keys), ketama variant, ties rule';

-- Zone-aware replicas: chash_lookup_n(ring, key, n, distinct_zones) picks
-- nodes of zones that hold no copy yet first.  Without the argument it is
-- the 1.2 function, unchanged.
CREATE FUNCTION chash_lookup_n(ring text, key text, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bytea, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key integer, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bigint, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key uuid, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, text, integer, boolean) IS
	'the first n distinct nodes of the key''s preference order; with distinct_zones, nodes of zones holding no copy yet first (a node without a zone is a zone of its own), then the others in order';
COMMENT ON FUNCTION chash_lookup_n(text, bytea, integer, boolean) IS
	'chash_lookup_n of a binary key, by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, integer, integer, boolean) IS
	'chash_lookup_n of an integer key (hashed as its decimal text), by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, bigint, integer, boolean) IS
	'chash_lookup_n of a bigint key (hashed as its decimal text), by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, uuid, integer, boolean) IS
	'chash_lookup_n of a uuid key (hashed as its canonical text), by zones if asked';

-- Ownership by zones: chash_ownership(ring, replicas, distinct_zones)
CREATE FUNCTION chash.ring_ownership(ring text, replicas integer, require_active boolean,
									 distinct_zones boolean)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer, boolean, boolean) IS
	'chash.ring_ownership, the replicas picked by zones with distinct_zones';

CREATE FUNCTION chash.ownership(ring text, replicas integer, require_active boolean,
								distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
-- a left join, as chash.ownership(ring, replicas, require_active) says
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(ownership.ring, ownership.replicas, ownership.require_active,
						  ownership.distinct_zones) o
LEFT JOIN chash.node_config n ON n.ring = ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash.ownership(text, integer, boolean, boolean) IS
	'chash_ownership by zones if asked, and with require_active false also for a ring with no active node';

CREATE FUNCTION chash_ownership(ring text, replicas integer, distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT * FROM chash.ownership(chash_ownership.ring, chash_ownership.replicas, true,
										 chash_ownership.distinct_zones) $$;
COMMENT ON FUNCTION chash_ownership(text, integer, boolean) IS
	'each node''s exact share of the keys held on chash_lookup_n(..., replicas, distinct_zones), its share of the active weight (expected, whatever the zones) and their ratio';
