--
-- Routing: chash_lookup, chash_lookup_n and chash_position for every key
-- type, checked against a straightforward reference written in SQL over
-- chash_points.
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (5.1 CPU-seconds with JIT, 3.3 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;

-- Rings of several shapes
SELECT chash_ring_create('main');
SELECT chash_node_add('main', 'shard-1');
SELECT chash_node_add('main', 'shard-2', 2);
SELECT chash_node_add('main', 'shard-3', 0.5);
SELECT chash_node_add('main', 'shard-4', vnodes => 7);
SELECT chash_node_add('main', 'shard-5');
SELECT chash_node_set('main', 'shard-5', state => 'down');
SELECT chash_ring_create('ketamaish', hash => 'md5', vnodes => 40,
						 vnode_name => '{node}-{i}', vnode_first => 1);
SELECT chash_node_add('ketamaish', n)
FROM unnest(ARRAY['10.0.0.1:11211', '10.0.0.2:11211', '10.0.0.3:11211']) n;
SELECT chash_ring_create('keyed', hash => 'fnv1a_64', key_hash => 'xxh64');
SELECT chash_node_add('keyed', n) FROM unnest(ARRAY['x', 'y', 'z']) n;
SELECT chash_ring_create('tiny', hash => 'crc32', vnodes => 1);
SELECT chash_node_add('tiny', n) FROM unnest(ARRAY['a', 'b', 'c']) n;
SELECT chash_ring_create('pgring', hash => 'pg', vnodes => 50);
SELECT chash_node_add('pgring', n) FROM unnest(ARRAY['p', 'q']) n;
-- two nodes whose only points are equal (see the ties below), added in
-- reverse name order
SELECT chash_ring_create('tie', hash => 'md5', vnodes => 1);
SELECT chash_node_add('tie', 'node190148');
SELECT chash_node_add('tie', 'node131160');

-- The reference: positions as unsigned numbers; the owner of a position is
-- the node of the first point at or after it in chash_points' order,
-- wrapping to the first point
CREATE FUNCTION unsigned(p bigint) RETURNS numeric
	LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT CASE WHEN p < 0 THEN p + 18446744073709551616 ELSE p END $$;
CREATE TABLE ref_points AS
	SELECT r.ring, p.ord, unsigned(p.point) AS upos, p.node, p.vnode
	FROM chash.ring_config r,
		 chash_points(r.ring) WITH ORDINALITY AS p(point, node, vnode, ord);
CREATE INDEX ON ref_points (ring, upos, ord);
ANALYZE ref_points;
CREATE FUNCTION ref_start(r text, pos bigint) RETURNS bigint
	LANGUAGE plpgsql STABLE STRICT
	AS $$
BEGIN
	RETURN coalesce((SELECT ord FROM ref_points
					 WHERE ring = r AND upos >= unsigned(pos)
					 ORDER BY upos, ord LIMIT 1), 1);
END
$$;
CREATE FUNCTION ref_owner(r text, pos bigint) RETURNS text
	LANGUAGE plpgsql STABLE STRICT
	AS $$
BEGIN
	RETURN (SELECT node FROM ref_points WHERE ring = r AND ord = ref_start(r, pos));
END
$$;
-- the first n distinct nodes walking clockwise from the position
CREATE FUNCTION ref_owners(r text, pos bigint, n int) RETURNS text[]
	LANGUAGE plpgsql STABLE STRICT
	AS $$
DECLARE
	start bigint := ref_start(r, pos);
	total bigint := (SELECT count(*) FROM ref_points WHERE ring = r);
BEGIN
	RETURN (SELECT array_agg(node ORDER BY first_step) FROM (
				SELECT node, min((ord - start + total) % total) AS first_step
				FROM ref_points WHERE ring = r
				GROUP BY node ORDER BY first_step LIMIT n) f);
END
$$;

-- chash_points is in ring order: unsigned positions never decrease, and
-- equal positions are ordered by node name, then vnode
SELECT ring, count(*) AS points,
	   count(*) FILTER (WHERE prev_upos > upos) AS out_of_order
FROM (SELECT ring, upos, lag(upos) OVER (PARTITION BY ring ORDER BY ord) AS prev_upos
	  FROM ref_points) x
GROUP BY ring ORDER BY ring;

-- Every key type, 2000 keys each, on every ring: the owner is the
-- reference's, the position is the key hash of the key's bytes
CREATE TABLE keys AS
	SELECT g, 'user-' || g AS t, g::integer AS i4, (g * 1000003)::bigint AS i8,
		   md5(g::text)::uuid AS u
	FROM generate_series(-999, 1000) g;
SELECT r.ring,
	   count(*) AS keys,
	   count(*) FILTER (WHERE chash_position(r.ring, k.t) = chash_hash(coalesce(r.key_hash, r.hash), k.t)) AS text_pos_ok,
	   count(*) FILTER (WHERE chash_lookup(r.ring, k.t) = ref_owner(r.ring, chash_position(r.ring, k.t))) AS text_ok,
	   count(*) FILTER (WHERE chash_lookup(r.ring, k.i4) = ref_owner(r.ring, chash_hash(coalesce(r.key_hash, r.hash), k.i4::text))) AS int4_ok,
	   count(*) FILTER (WHERE chash_lookup(r.ring, k.i8) = ref_owner(r.ring, chash_hash(coalesce(r.key_hash, r.hash), k.i8::text))) AS int8_ok,
	   count(*) FILTER (WHERE chash_lookup(r.ring, k.u) = ref_owner(r.ring, chash_hash(coalesce(r.key_hash, r.hash), k.u::text))) AS uuid_ok,
	   count(*) FILTER (WHERE chash_lookup(r.ring, convert_to(k.t, 'UTF8')) = ref_owner(r.ring, chash_position(r.ring, k.t))) AS bytea_ok
FROM chash.ring_config r, keys k
GROUP BY r.ring ORDER BY r.ring;

-- Positions of each key type are the key hash of its text form
SELECT r.ring,
	   count(*) FILTER (WHERE chash_position(r.ring, k.i4) = chash_position(r.ring, k.i4::text)) AS int4,
	   count(*) FILTER (WHERE chash_position(r.ring, k.i8) = chash_position(r.ring, k.i8::text)) AS int8,
	   count(*) FILTER (WHERE chash_position(r.ring, k.u) = chash_position(r.ring, k.u::text)) AS uuid,
	   count(*) FILTER (WHERE chash_position(r.ring, convert_to(k.t, 'UTF8')) = chash_position(r.ring, k.t)) AS bytea
FROM chash.ring_config r, keys k
GROUP BY r.ring ORDER BY r.ring;

-- Key forms: decimal text of integers (with sign, extremes), canonical
-- lower-case uuid text whatever the input's case, UTF-8 bytes of text,
-- raw bytes of bytea
SELECT chash_position('main', 42) = chash_hash('xxh3_64', '42') AS int4_42,
	   chash_position('main', -7) = chash_hash('xxh3_64', '-7') AS int4_neg,
	   chash_position('main', (-2147483648)::integer) = chash_hash('xxh3_64', '-2147483648') AS int4_min,
	   chash_position('main', 9223372036854775807) = chash_hash('xxh3_64', '9223372036854775807') AS int8_max,
	   chash_position('main', (-9223372036854775808)::bigint) = chash_hash('xxh3_64', '-9223372036854775808') AS int8_min;
SELECT chash_position('main', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid)
		 = chash_hash('xxh3_64', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') AS uuid_lower_case,
	   chash_position('main', '{a0eebc999c0b4ef8bb6d6bb9bd380a11}'::uuid)
		 = chash_hash('xxh3_64', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') AS uuid_any_input_form;
SELECT chash_position('main', 'ключ-日本-🔑') = chash_hash('xxh3_64', convert_to('ключ-日本-🔑', 'UTF8')) AS utf8_text,
	   chash_position('main', '\xff00fe'::bytea) = chash_hash('xxh3_64', '\xff00fe'::bytea) AS raw_bytes,
	   chash_position('main', '') = chash_hash('xxh3_64', '') AS empty_key,
	   chash_lookup('main', '') = ref_owner('main', chash_hash('xxh3_64', '')) AS empty_key_routes;

-- Positions: a 64-bit hash as signed bigint (as hashtextextended), a
-- 32-bit hash as its unsigned value
SELECT count(*) FILTER (WHERE chash_position('pgring', t) = hashtextextended(t, 0)) AS pg_equals_hashtextextended,
	   count(*) FILTER (WHERE chash_position('main', t) < 0) > 0 AS some_64bit_negative,
	   count(*) FILTER (WHERE chash_position('tiny', t) BETWEEN 0 AND 4294967295) AS all_32bit_unsigned
FROM keys;

-- NULL keys and rings give NULL
SELECT chash_lookup('main', NULL::text) IS NULL AS text,
	   chash_lookup('main', NULL::bytea) IS NULL AS bytea,
	   chash_lookup('main', NULL::integer) IS NULL AS int4,
	   chash_lookup('main', NULL::bigint) IS NULL AS int8,
	   chash_lookup('main', NULL::uuid) IS NULL AS uuid,
	   chash_lookup(NULL, 'k') IS NULL AS ring,
	   chash_lookup_n('main', NULL::text, 2) IS NULL AS lookup_n,
	   chash_lookup_n('main', 'k', NULL) IS NULL AS lookup_n_n,
	   chash_position('main', NULL::text) IS NULL AS position;

-- At or after: a key that hashes exactly onto a point belongs to that
-- point's node; keys past the last point wrap to the first
SELECT vnode, node, chash_lookup('tiny', vnode) AS owner_of_key_at_point
FROM chash_points('tiny') ORDER BY point;
SELECT count(*) > 0 AS some_keys_past_last_point,
	   bool_and(chash_lookup('tiny', t) = (SELECT node FROM chash_points('tiny') ORDER BY point LIMIT 1)) AS wrap_to_first
FROM keys
WHERE chash_position('tiny', t) > (SELECT max(point) FROM chash_points('tiny'));
SELECT count(*) > 0 AS some_keys_before_first_point,
	   bool_and(chash_lookup('tiny', t) = (SELECT node FROM chash_points('tiny') ORDER BY point LIMIT 1)) AS go_to_first
FROM keys
WHERE chash_position('tiny', t) <= (SELECT min(point) FROM chash_points('tiny'));

-- Ties between equal points go to the smaller node name, whatever the order
-- the nodes were added in: 'node131160#0' and 'node190148#0' have the same
-- md5 (ketama) hash
SELECT chash_hash('md5', 'node131160#0') AS h1, chash_hash('md5', 'node190148#0') AS h2;
SELECT * FROM chash_points('tie');
SELECT chash_lookup('tie', 'node190148#0') AS owner,
	   chash_lookup_n('tie', 'node190148#0', 2) AS preference;
-- the tie holds from any key that falls between the previous point and it
SELECT count(*) AS keys, count(*) FILTER (WHERE chash_lookup('tie', t) = 'node131160') AS to_smaller_name
FROM keys;

-- chash_lookup_n: the first n distinct nodes clockwise; the first is the
-- owner; never a node that is down
SELECT r.ring, n.n,
	   count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup_n(r.ring, k.t, n.n) = ref_owners(r.ring, chash_position(r.ring, k.t), n.n)) AS ref_ok,
	   count(*) FILTER (WHERE (chash_lookup_n(r.ring, k.t, n.n))[1] = chash_lookup(r.ring, k.t)) AS first_is_owner,
	   count(*) FILTER (WHERE cardinality(chash_lookup_n(r.ring, k.t, n.n)) = n.n) AS length_n
FROM chash.ring_config r
JOIN (SELECT ring, count(*) FILTER (WHERE state = 'active') AS active
	  FROM chash.node_config GROUP BY ring) a ON a.ring = r.ring
CROSS JOIN LATERAL generate_series(1, a.active::integer) n(n)
CROSS JOIN (SELECT t FROM keys WHERE g % 10 = 0) k
GROUP BY r.ring, n.n ORDER BY r.ring, n.n;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE 'shard-5' = ANY (chash_lookup_n('main', t, 4))) AS with_down_node,
	   count(*) FILTER (WHERE (SELECT count(DISTINCT x) FROM unnest(chash_lookup_n('main', t, 4)) x) = 4) AS distinct_nodes
FROM keys;
SELECT chash_lookup_n('main', 42, 4) = chash_lookup_n('main', '42', 4) AS int4,
	   chash_lookup_n('main', 42::bigint, 4) = chash_lookup_n('main', '42', 4) AS int8,
	   chash_lookup_n('main', md5('1')::uuid, 3) = chash_lookup_n('main', md5('1')::uuid::text, 3) AS uuid,
	   chash_lookup_n('main', '\x3432'::bytea, 4) = chash_lookup_n('main', '42', 4) AS bytea;

-- The ring may differ from row to row
SELECT r, chash_lookup(r, 'user-1') = ref_owner(r, chash_position(r, 'user-1')) AS ok
FROM unnest(ARRAY['main', 'tiny', 'main', 'keyed', 'tiny', 'ketamaish']) WITH ORDINALITY AS x(r, o)
ORDER BY o;

-- A change is seen by the next statement, even by the same call site of a
-- PL/pgSQL loop (whose expression state lives across the loop)
DO $$
DECLARE
	owners text[] := '{}';
BEGIN
	FOR step IN 1..3 LOOP
		owners := owners || chash_lookup('tiny', 'some key');
		IF step = 1 THEN
			PERFORM chash_node_set('tiny', owners[1], state => 'down');
		ELSIF step = 2 THEN
			PERFORM chash_node_set('tiny', owners[1], state => 'active');
		END IF;
	END LOOP;
	RAISE NOTICE 'owner before, while down, after: %, moved: %, back: %',
		owners, owners[2] <> owners[1], owners[3] = owners[1];
END
$$;

-- Routing functions are parallel safe: workers build their own rings and
-- agree with the leader.  The leader does not take part in the scan, so
-- the workers route every row; the ring has just changed, so the leader
-- too resolves it in parallel mode.
CREATE TABLE many_keys AS SELECT 'key-' || g AS k FROM generate_series(1, 50000) g;
ANALYZE many_keys;
SELECT chash_node_set('main', 'shard-3', weight => 0.75);
CREATE TABLE serial_counts AS
	SELECT chash_lookup('main', k) AS node, count(*) AS keys FROM many_keys GROUP BY 1;
SELECT chash_node_set('main', 'shard-3', weight => 0.5);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE FUNCTION plan_is_parallel(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line LIKE '%Gather%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$$;
SELECT plan_is_parallel($$SELECT chash_lookup('main', k), count(*) FROM many_keys GROUP BY 1$$);
SELECT chash_node_set('main', 'shard-3', weight => 0.75);
SELECT (SELECT count(*) FROM (
			SELECT chash_lookup('main', k) AS node, count(*) AS keys FROM many_keys GROUP BY 1
			EXCEPT SELECT * FROM serial_counts) d) AS differing_counts,
	   (SELECT sum(keys) FROM serial_counts) AS keys;
-- ... and again, once the leader's ring is built
SELECT (SELECT count(*) FROM (
			SELECT chash_lookup('main', k) AS node, count(*) AS keys FROM many_keys GROUP BY 1
			EXCEPT SELECT * FROM serial_counts) d) AS differing_counts;
SELECT chash_node_set('main', 'shard-3', weight => 0.5);
RESET parallel_leader_participation;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE ref_points, keys, many_keys, serial_counts;
DROP FUNCTION ref_owners(text, bigint, int), ref_owner(text, bigint),
	ref_start(text, bigint), unsigned(bigint), plan_is_parallel(text);
SELECT chash_ring_drop(ring) FROM chash.ring_config ORDER BY ring;
