--
-- The lookup's fast path (an index over the top bits of positions, then a
-- branch-free count of a window of points, entered by interpolation in big
-- buckets, or a binary search) against a straightforward reference: the
-- first point at or after the key's position in chash_points' order, read
-- as unsigned, wrapping to the first point.  Rings of many sizes (one
-- bucket to 32 points a bucket), 32- and 64-bit hashes, rings whose keys
-- belong to the point after them, and keys exactly on points.
--
SELECT setseed(0.42);

-- positions read as unsigned
CREATE FUNCTION unsigned(p bigint, bits integer) RETURNS numeric
	LANGUAGE sql IMMUTABLE
	AS $$ SELECT CASE WHEN bits = 64 AND p < 0 THEN p::numeric + 18446744073709551616 ELSE p::numeric END $$;

CREATE TABLE rings (ring text, nodes integer, vnodes integer, hash text, algorithm text, variant text);
INSERT INTO rings VALUES
	('one', 1, 1, 'xxh3_64', 'ring', NULL),
	('two', 2, 1, 'murmur3_32', 'ring', NULL),
	('five', 5, 1, 'xxh3_64', 'ring', NULL),
	('small32', 3, 20, 'murmur3_32', 'ring', NULL),
	('small64', 3, 20, 'xxh3_64', 'ring', NULL),
	('mid32', 10, 160, 'crc32', 'ring', NULL),
	('mid64', 10, 160, 'xxh64', 'ring', NULL),
	('big64', 7, 3000, 'xxh3_64', 'ring', NULL),
	('big32', 5, 4000, 'murmur3_32', 'ring', NULL),
	('fnv', 4, 500, 'fnv1a_32', 'ring', NULL),
	('ketama', 9, 160, 'md5', 'ketama', 'libmemcached'),
	('strict', 9, 160, 'md5', 'ketama', 'uhashring'),
	-- twemproxy's crc32 hashes below 2^15: every point in the first bucket,
	-- many at one position, and the window's guess mostly off
	('corner', 3, 2000, 'twemproxy_crc32', 'ring', NULL);
SELECT count(chash_ring_create(ring, algorithm => algorithm, hash => hash, vnodes => vnodes,
							   ketama_variant => variant)) FROM rings;
-- names and weights from a hash, not random(), whose generator changed in 15
SELECT count(chash_node_add(r.ring, 'n' || i || '-' || (chash_hash('xxh3_64', r.ring || i) & 1023),
							weight => 1 + (chash_hash('xxh64', r.ring || i) & 3) % 3))
FROM rings r, generate_series(1, r.nodes) i;
-- more nodes than two bytes number: the ring keeps 4-byte owners
INSERT INTO rings VALUES ('wide', 65537, 1, 'xxh3_64', 'ring', NULL);
SELECT chash_ring_create('wide', vnodes => 1);
INSERT INTO chash.node_config (ring, node) SELECT 'wide', 'w' || i FROM generate_series(1, 65537) i;

-- random keys, and keys whose position is exactly a point (a vnode's name
-- hashed by the same function)
CREATE TEMP TABLE keys AS
	SELECT r.ring, md5(random()::text) AS k FROM rings r, generate_series(1, 5000)
	UNION ALL
	SELECT r.ring, CASE WHEN r.algorithm = 'ketama' THEN regexp_replace(p.vnode, '\[0\]$', '') ELSE p.vnode END
	FROM rings r, chash_points(r.ring) p
	WHERE (r.algorithm = 'ring' OR p.vnode LIKE '%[0]') AND r.ring <> 'wide'
	UNION ALL
	SELECT 'wide', 'w' || i || '#0' FROM generate_series(1, 65537, 50) i;

-- the reference: the points in a table, in ring order (temporary tables
-- here and below: nothing to write to the WAL)
CREATE TEMP TABLE pts AS
	SELECT r.ring, p.ordinality AS ord, unsigned(p.point, chash.hash_bits(r.hash)) AS u, p.node
	FROM rings r, chash_points(r.ring) WITH ORDINALITY p;
CREATE INDEX ON pts (ring, u, ord);
ANALYZE pts;
CREATE TEMP TABLE expected AS
	SELECT k.ring, k.k,
		   coalesce((SELECT p.node FROM pts p
					 WHERE p.ring = k.ring
					   AND p.u >= k.u + CASE WHEN r.variant = 'uhashring' THEN 1 ELSE 0 END
					 ORDER BY p.u, p.ord LIMIT 1),
					(SELECT p.node FROM pts p WHERE p.ring = k.ring ORDER BY p.u, p.ord LIMIT 1)) AS node
	FROM (SELECT ring, k, unsigned(chash_position(ring, k), chash.hash_bits(rr.hash)) AS u
		  FROM keys JOIN rings rr USING (ring)) k
	JOIN rings r USING (ring);
-- (the view read once, so that no plan reads it again for each key)
CREATE TABLE ring_points AS SELECT ring, points FROM chash.rings;
SELECT r.ring, c.points,
	   count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup(e.ring, e.k) = e.node) AS agree
FROM expected e JOIN rings r USING (ring) JOIN ring_points c USING (ring)
GROUP BY r.ring, c.points ORDER BY c.points, r.ring;

DROP TABLE pts, expected, ring_points;
DROP TABLE keys, rings;
DROP FUNCTION unsigned(bigint, integer);
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config;

--
-- Rings of 2,097,152 points: 32 points a bucket, which a lookup enters by
-- interpolation and a window, with a binary search where the window misses
-- (a few keys in a hundred).  The 32-bit ring has points at equal
-- positions.  The ring is named by a constant here, by a column above.
-- The reference flips the sign bit of 64-bit positions, which maps their
-- unsigned order onto bigint's.
--
SELECT chash_ring_create('huge64', vnodes => 1048576);
SELECT chash_ring_create('huge32', vnodes => 1048576, hash => 'murmur3_32');
SELECT count(chash_node_add(r, n)) FROM unnest(ARRAY['huge64', 'huge32']) r, unnest(ARRAY['a', 'b']) n;
CREATE TEMP TABLE pts AS
	SELECT 'huge64' AS ring, p.ordinality AS ord, p.point # (-9223372036854775808)::bigint AS u, p.node
	FROM chash_points('huge64') WITH ORDINALITY p
	UNION ALL
	SELECT 'huge32', p.ordinality, p.point, p.node
	FROM chash_points('huge32') WITH ORDINALITY p;
CREATE INDEX ON pts (ring, u, ord);
ANALYZE pts;
SELECT ring, count(*) AS points, count(*) - count(DISTINCT u) AS on_shared_positions
FROM pts GROUP BY ring ORDER BY ring;
-- random keys, and the names of every 100th virtual node (on a point)
CREATE TEMP TABLE keys AS
	SELECT r AS ring, md5(random()::text) AS k
	FROM unnest(ARRAY['huge64', 'huge32']) r, generate_series(1, 20000)
	UNION ALL
	SELECT r, n || '#' || i
	FROM unnest(ARRAY['huge64', 'huge32']) r, unnest(ARRAY['a', 'b']) n,
		 generate_series(0, 1048575, 100) i;
CREATE TEMP TABLE expected AS
	SELECT k.ring, k.k,
		   coalesce((SELECT p.node FROM pts p WHERE p.ring = k.ring AND p.u >= k.u
					 ORDER BY p.u, p.ord LIMIT 1),
					(SELECT p.node FROM pts p WHERE p.ring = k.ring ORDER BY p.u, p.ord LIMIT 1)) AS node
	FROM (SELECT ring, k,
				 CASE ring WHEN 'huge64' THEN chash_position(ring, k) # (-9223372036854775808)::bigint
				 ELSE chash_position(ring, k) END AS u
		  FROM keys) k;
SELECT 'huge64' AS ring, count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('huge64', k) = node) AS agree
FROM expected WHERE ring = 'huge64'
UNION ALL
SELECT 'huge32', count(*),
	   count(*) FILTER (WHERE chash_lookup('huge32', k) = node)
FROM expected WHERE ring = 'huge32'
ORDER BY ring DESC;
DROP TABLE pts, keys, expected;
SELECT chash_ring_drop('huge64'), chash_ring_drop('huge32');

--
-- The ring a call resolved is kept for the next calls through the same
-- function call site.  A ring named by a constant is not compared again;
-- one named by anything else is, even where the expression is evaluated
-- again with new values (PL/pgSQL variables, SQL function arguments,
-- prepared statement parameters, columns).
--
SELECT chash_ring_create('pa'), chash_node_add('pa', 'A');
SELECT chash_ring_create('pb'), chash_node_add('pb', 'B');
DO $$
DECLARE
	r text;
	res text := '';
BEGIN
	FOREACH r IN ARRAY ARRAY['pa', 'pb', 'pb', 'pa', 'pb'] LOOP
		res := res || chash_lookup(r, 'k') || chash_lookup('pa', 'k');
	END LOOP;
	RAISE NOTICE 'PL/pgSQL variable, then constant: %', res;
END
$$;
CREATE FUNCTION route(r text, k text) RETURNS text
	LANGUAGE sql AS $$ SELECT chash_lookup(r, k) $$;
SELECT string_agg(route(r, 'k'), '' ORDER BY o) AS sql_function
FROM unnest(ARRAY['pa', 'pb', 'pa']) WITH ORDINALITY u(r, o);
PREPARE routed(text) AS SELECT chash_lookup($1, 'k');
EXECUTE routed('pa');
EXECUTE routed('pb');
DEALLOCATE routed;
SELECT string_agg(chash_lookup(r, 'k'), '' ORDER BY o) AS column
FROM unnest(ARRAY['pa', 'pb', 'pa']) WITH ORDINALITY u(r, o);
-- an operator (OpExpr, not FuncExpr), with a column and with a constant
CREATE OPERATOR ==> (LEFTARG = text, RIGHTARG = text, FUNCTION = chash_lookup);
SELECT string_agg(r ==> 'k', '' ORDER BY o) AS operator,
	   string_agg('pb' ==> r, '' ORDER BY o) AS operator_constant
FROM unnest(ARRAY['pa', 'pb', 'pa']) WITH ORDINALITY u(r, o);
-- an aggregate whose state is the ring: ring ping's node is pong and the
-- other way round, so four steps from ping end at ping
SELECT chash_ring_create('ping'), chash_node_add('ping', 'pong');
SELECT chash_ring_create('pong'), chash_node_add('pong', 'ping');
CREATE AGGREGATE hop(text) (SFUNC = chash_lookup, STYPE = text, INITCOND = 'ping');
SELECT hop(k::text) AS four_hops FROM generate_series(1, 4) k;
-- a set-returning function over rings of a column
SELECT o, min(p.node) AS node, count(*) AS points
FROM unnest(ARRAY['pa', 'pb', 'pa']) WITH ORDINALITY u(r, o), LATERAL chash_points(u.r) p
GROUP BY o ORDER BY o;
DROP AGGREGATE hop(text);
DROP OPERATOR ==> (text, text);
DROP FUNCTION route(text, text);
SELECT chash_ring_drop(r) FROM unnest(ARRAY['pa', 'pb', 'ping', 'pong']) r;
