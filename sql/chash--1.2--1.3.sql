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
