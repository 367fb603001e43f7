--
-- A hostile search_path can neither change what chash computes nor run
-- code through it: not while a superuser installs the extension, not while
-- anyone calls its functions.  Every trap below announces itself with a
-- NOTICE; none may appear.
--

-- Install time: the extension's schema already holds an operator and an
-- aggregate that match chash's expressions better than pg_catalog's do
DROP EXTENSION chash;
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.float8_gt_int4(double precision, integer) RETURNS boolean
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'trap: hostile.> ran';
	RETURN $1 OPERATOR(pg_catalog.>) $2;
END
$$;
CREATE OPERATOR hostile.> (LEFTARG = double precision, RIGHTARG = integer,
						   FUNCTION = hostile.float8_gt_int4);
CREATE FUNCTION hostile.count_text(bigint, text) RETURNS bigint
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'trap: hostile.count(text) ran';
	RETURN $1 OPERATOR(pg_catalog.+) 1;
END
$$;
CREATE AGGREGATE hostile.count(text) (SFUNC = hostile.count_text, STYPE = bigint,
									  INITCOND = '0');
CREATE EXTENSION chash SCHEMA hostile;
SELECT hostile.chash_ring_create('r');
SELECT hostile.chash_node_add('r', 'a', 2);
SELECT ring, nodes, points FROM chash.rings;
SELECT node, weight, points FROM chash.nodes;
DROP EXTENSION chash;
DROP SCHEMA hostile CASCADE;
CREATE EXTENSION chash;

-- Run time: a search_path that puts a text equality of its own before
-- pg_catalog's, while routing and changing rings
CREATE SCHEMA trap;
CREATE FUNCTION trap.text_eq(text, text) RETURNS boolean
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'trap: trap.= ran';
	RETURN $1 OPERATOR(pg_catalog.=) $2;
END
$$;
CREATE OPERATOR trap.= (LEFTARG = text, RIGHTARG = text, FUNCTION = trap.text_eq);
SET search_path = trap, pg_catalog, public;
SELECT public.chash_ring_create('sp');
SELECT public.chash_node_add('sp', 'a');
SELECT public.chash_node_add('sp', 'b');
SELECT public.chash_node_set('sp', 'a', weight => 2);
SELECT public.chash_lookup('sp', 'k') IS NOT NULL AS routed;
SELECT pg_catalog.count(*) AS points FROM public.chash_points('sp');
SELECT public.chash_node_remove('sp', 'b');
SELECT public.chash_lookup_n('sp', 'k', 1) IS NOT NULL AS routed;
SELECT public.chash_node_remove('sp', 'nope');
SELECT public.chash_ring_drop('sp');
RESET search_path;
DROP SCHEMA trap CASCADE;
