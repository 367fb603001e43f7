-- Helpers of the constraints below: the C tables of hash functions and
-- algorithms are the one list of valid names.
CREATE OR REPLACE FUNCTION chash.hash_bits(hash text) RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_hash_bits'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.hash_bits(text) IS
	'width in bits (32 or 64) of a chash hash function, NULL if there is no such function';

CREATE OR REPLACE FUNCTION chash.algorithm_is_known(algorithm text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'chash_algorithm_is_known'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.algorithm_is_known(text) IS
	'whether chash has a placement algorithm of that name';

-- A node's slot ranges (algorithm slots): NULL if it was given none (the
-- slots are then split evenly, unless another active node was given some),
-- and an empty array for a node that owns no slot.  The library checks
-- them against the ring's number of slots and each other.
CREATE OR REPLACE FUNCTION chash.slot_ranges_valid(slots int4range[]) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT coalesce(array_ndims(slots), 1) = 1 AND cardinality(slots) <= 16777216 AND
	   NOT EXISTS (SELECT FROM unnest(slots) AS r
				   WHERE r IS NULL OR isempty(r) OR lower_inf(r) OR upper_inf(r) OR lower(r) < 0)
$$;
COMMENT ON FUNCTION chash.slot_ranges_valid(int4range[]) IS
	'whether slot ranges can be a node''s: one dimension, each range bounded, not empty and from slot 0 on';

CREATE OR REPLACE FUNCTION chash.profile_is_known(profile text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'chash_profile_is_known'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.profile_is_known(text) IS
	'whether chash has a profile of that name';

