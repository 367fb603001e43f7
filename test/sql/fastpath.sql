--
-- The lookup's fast path (an index over the top bits of positions, then a
-- short scan or a binary search) against a straightforward reference: the
-- first point at or after the key's position in chash_points' order, read
-- as unsigned, wrapping to the first point.  Rings of many sizes (one
-- bucket to thousands), 32- and 64-bit hashes, rings whose keys belong to
-- the point after them, and keys exactly on points.
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
	('strict', 9, 160, 'md5', 'ketama', 'uhashring');
SELECT count(chash_ring_create(ring, algorithm => algorithm, hash => hash, vnodes => vnodes,
							   ketama_variant => variant)) FROM rings;
SELECT count(chash_node_add(r.ring, 'n' || i || '-' || floor(random() * 1000)::integer,
							weight => 1 + floor(random() * 3)))
FROM rings r, generate_series(1, r.nodes) i;
-- more nodes than two bytes number: the ring keeps 4-byte owners
INSERT INTO rings VALUES ('wide', 65537, 1, 'xxh3_64', 'ring', NULL);
SELECT chash_ring_create('wide', vnodes => 1);
INSERT INTO chash.node_config (ring, node) SELECT 'wide', 'w' || i FROM generate_series(1, 65537) i;

-- random keys, and keys whose position is exactly a point (a vnode's name
-- hashed by the same function)
CREATE TABLE keys AS
	SELECT r.ring, md5(random()::text) AS k FROM rings r, generate_series(1, 1000)
	UNION ALL
	SELECT r.ring, CASE WHEN r.algorithm = 'ketama' THEN regexp_replace(p.vnode, '\[0\]$', '') ELSE p.vnode END
	FROM rings r, chash_points(r.ring) p
	WHERE (r.algorithm = 'ring' OR p.vnode LIKE '%[0]') AND r.ring <> 'wide';

-- the reference: the points in a table, in ring order
CREATE TABLE pts AS
	SELECT r.ring, p.ordinality AS ord, unsigned(p.point, chash.hash_bits(r.hash)) AS u, p.node
	FROM rings r, chash_points(r.ring) WITH ORDINALITY p;
CREATE INDEX ON pts (ring, u, ord);
ANALYZE pts;
CREATE TABLE expected AS
	SELECT k.ring, k.k,
		   coalesce((SELECT p.node FROM pts p
					 WHERE p.ring = k.ring
					   AND p.u >= k.u + CASE WHEN r.variant = 'uhashring' THEN 1 ELSE 0 END
					 ORDER BY p.u, p.ord LIMIT 1),
					(SELECT p.node FROM pts p WHERE p.ring = k.ring ORDER BY p.u, p.ord LIMIT 1)) AS node
	FROM (SELECT ring, k, unsigned(chash_position(ring, k), chash.hash_bits(rr.hash)) AS u
		  FROM keys JOIN rings rr USING (ring)) k
	JOIN rings r USING (ring);
SELECT r.ring, c.points,
	   count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup(e.ring, e.k) = e.node) AS agree
FROM expected e JOIN rings r USING (ring) JOIN chash.rings c USING (ring)
GROUP BY r.ring, c.points ORDER BY c.points, r.ring;

DROP TABLE pts, expected;
DROP TABLE keys, rings;
DROP FUNCTION unsigned(bigint, integer);
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config;
