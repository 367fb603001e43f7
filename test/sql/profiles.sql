--
-- Profiles: the settings of real systems in one argument; hash tags; the
-- key hash crc16 and Redis Cluster's slots; rings imported from CLUSTER
-- NODES; the slots that move between two slot maps.  The routes of each
-- profile against the real software are test/scripts/compat.sh's.
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (3.1 CPU-seconds with JIT, 1.8 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;
SET client_encoding = 'UTF8';
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.expect_error(stmt text) RETURNS text
	LANGUAGE plpgsql
	AS $$
DECLARE
	state text;
	msg text;
	detail text;
	hint text;
BEGIN
	EXECUTE stmt;
	RETURN 'NO ERROR';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	-- a failing row of ring_config holds its version, a transaction id
	detail := regexp_replace(detail, '^Failing row contains .*$', 'Failing row contains (...).');
	RETURN state || ' ' || msg ||
		coalesce(nullif(' | DETAIL: ' || detail, ' | DETAIL: '), '') ||
		coalesce(nullif(' | HINT: ' || hint, ' | HINT: '), '');
END
$$;

-- The profiles, what they set and what may be given with them
SELECT profile, settings, may_set FROM chash_profiles() ORDER BY profile;
-- each says what it routes as, how to name nodes, what it was checked against
SELECT count(*) AS profiles,
	   count(*) FILTER (WHERE system <> '' AND nodes <> '' AND checked_against <> '') AS documented
FROM chash_profiles();

-- A ring made by a profile has exactly the profile's settings: each
-- profile's ring against one made with its settings spelled out
DO $$
DECLARE
	p record;
BEGIN
	FOR p IN SELECT * FROM chash_profiles() LOOP
		EXECUTE format('SELECT chash_ring_create(%L, profile => %L)', 'by_' || p.profile, p.profile);
		EXECUTE format('SELECT chash_ring_create(%L, %s)', 'as_' || p.profile, p.settings);
	END LOOP;
END
$$;
SELECT a.profile, a.algorithm, a.hash, a.key_hash, a.vnodes, a.vnode_name, a.vnode_first,
	   a.ketama_variant, a.ties, a.table_size, a.lookup, a.hash_tag,
	   (a.algorithm, a.hash, a.key_hash, a.vnodes, a.vnode_name, a.vnode_first,
		a.ketama_variant, a.ties, a.table_size, a.lookup, a.hash_tag) IS NOT DISTINCT FROM
	   (b.algorithm, b.hash, b.key_hash, b.vnodes, b.vnode_name, b.vnode_first,
		b.ketama_variant, b.ties, b.table_size, b.lookup, b.hash_tag) AS same_settings,
	   b.profile IS NULL AS spelled_out_has_none
FROM chash.rings a JOIN chash.rings b ON b.ring = 'as_' || a.profile
WHERE a.ring LIKE 'by\_%'
ORDER BY a.profile;
-- and routes alike: 2,000 keys over 7 nodes of unequal weights (but for
-- the systems without weights; slots split evenly, as redis-cli does)
DO $$
DECLARE
	r text;
BEGIN
	FOR r IN SELECT ring FROM chash.ring_config WHERE ring LIKE 'by\_%' OR ring LIKE 'as\_%' LOOP
		PERFORM chash_node_add(r, '10.0.0.' || i || ':6379',
							   CASE WHEN r ~ '(redis_cluster|postgres_partitions|spymemcached|spymemcached_libmemcached|guava|jump|elasticsearch|cassandra|dubbo|pymemcache)$'
									THEN 1 ELSE i % 3 + 1 END,
							   tokens => CASE WHEN r ~ 'cassandra$'
											  THEN ARRAY[i * 1000000000000000000 - 4000000000000000000,
														 i * 100 - 350] END)
		FROM generate_series(1, 7) i;
	END LOOP;
	-- the same ordinals in both rings: HAProxy's ids are the ordinals
	UPDATE chash.node_config
	SET ordinal = split_part(split_part(node, ':', 1), '.', 4)::integer
	WHERE ring LIKE 'by\_%' OR ring LIKE 'as\_%';
END
$$;
-- (the jump profiles take integer keys)
SELECT p.profile, count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('by_' || p.profile, x.key) IS DISTINCT FROM
							  chash_lookup('as_' || p.profile, x.key)) AS differing
FROM chash_profiles() p CROSS JOIN generate_series(1, 2000) k
CROSS JOIN LATERAL (SELECT CASE WHEN p.settings LIKE '%int64%' THEN (k * 7919 - 5000)::text
								ELSE 'key:' || k END) x(key)
GROUP BY p.profile ORDER BY p.profile;
SELECT chash_ring_drop(ring) FROM chash.ring_config WHERE ring LIKE 'by\_%' OR ring LIKE 'as\_%';

-- What a profile decides cannot be given with it; what its system's
-- configuration chooses can (twemproxy's hash and hash_tag)
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'redis_cluster', algorithm => 'ring')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'redis_cluster', table_size => 1000)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'redis_cluster', hash_tag => '<>')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'libmemcached', vnodes => 100)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'libmemcached', vnode_first => 0)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'twemproxy', ketama_variant => 'libmemcached')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'Redis_Cluster')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => '')$$);
-- a chosen setting is still checked
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'twemproxy', key_hash => 'sha1')$$);
SELECT count(*) AS rings_made_by_errors FROM chash.ring_config;
SELECT chash_ring_create('pool', profile => 'twemproxy', key_hash => 'twemproxy_fnv1a_64', hash_tag => '{}');
SELECT chash_ring_create('articles', profile => 'java_ring', hash => 'java_hashcode', vnodes => 100);
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, ketama_variant, ties, hash_tag, profile
FROM chash.rings ORDER BY ring;
-- a copy keeps the profile and the tag
SELECT chash_ring_copy('pool', 'pool_copy');
SELECT ring, key_hash, hash_tag, profile FROM chash.rings WHERE ring = 'pool_copy';
-- plain DML: a profile chash does not know, a tag of other than two
-- printable ASCII characters
SELECT pg_temp.expect_error($$UPDATE chash.ring_config SET profile = 'memcached' WHERE ring = 'pool'$$);
SELECT pg_temp.expect_error($$UPDATE chash.ring_config SET hash_tag = '{' WHERE ring = 'pool'$$);
SELECT pg_temp.expect_error($$UPDATE chash.ring_config SET hash_tag = 'é}' WHERE ring = 'pool'$$);
SELECT pg_temp.expect_error($$UPDATE chash.ring_config SET hash_tag = ' }' WHERE ring = 'pool'$$);
SELECT chash_ring_drop('pool_copy');

-- spymemcached without weights gives every server 160 points, at any
-- number of servers: weights are refused; given weights, libmemcached's
-- float formula (156 points at 25 equal servers), and the later server
-- of two on one point wins it
SELECT chash_ring_create('spy', profile => 'spymemcached');
SELECT chash_ring_create('spyw', profile => 'spymemcached_weighted');
SELECT count(*) AS added FROM (SELECT chash_node_add(r, '10.0.0.' || i || ':11211')
							   FROM unnest(ARRAY['spy', 'spyw']) r, generate_series(1, 25) i) x;
SELECT ring, min(points), max(points) FROM chash.nodes WHERE ring IN ('spy', 'spyw') GROUP BY ring ORDER BY ring;
SELECT pg_temp.expect_error($$SELECT chash_node_add('spy', '10.0.1.1:11211', 2)$$);
SELECT chash_ring_create('spytie', profile => 'spymemcached');
SELECT chash_node_add('spytie', n) FROM unnest(ARRAY['10.50.0.29:11211', '10.50.0.202:11211']) n;
SELECT chash_ring_copy('spytie', 'spytie_rev');
UPDATE chash.node_config SET ordinal = -ordinal WHERE ring = 'spytie_rev';
SELECT chash_lookup('spytie', '10.50.0.29:11211-17') AS listed_last_wins,
	   chash_lookup('spytie_rev', '10.50.0.29:11211-17') AS reversed;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['spy', 'spyw', 'spytie', 'spytie_rev']) r;

-- Guava's consistentHash: its published values, consistentHash(i, 100)
-- for i = 0..19 (HashingTest), and the keys where it and the paper's jump
-- hash part ways (Guava 31.1 and the paper's code, run by hand)
SELECT chash_ring_create('guava', profile => 'guava');
SELECT chash_ring_create('paper', profile => 'jump');
SELECT count(*) AS added FROM (SELECT chash_node_add(r, 'b' || i)
							   FROM unnest(ARRAY['guava', 'paper']) r, generate_series(0, 99) i) x;
SELECT string_agg(substr(chash_lookup('guava', i), 2), ',' ORDER BY i) AS guava_0_to_19
FROM generate_series(0, 19) i;
SELECT string_agg(substr(chash_lookup('paper', i), 2), ',' ORDER BY i) AS paper_0_to_19
FROM generate_series(0, 19) i;
CREATE TEMP TABLE parting (key bigint, buckets integer, guava integer, paper integer);
INSERT INTO parting VALUES (975451704, 2, 0, 1), (-1378162610, 3, 1, 2), (306526976, 6, 4, 5),
	(232648731, 24, 22, 23), (-1331982085, 256, 97, 255), (-4887040210034938806, 64, 48, 63);
DO $$
DECLARE
	p record;
BEGIN
	FOR p IN SELECT * FROM parting LOOP
		PERFORM chash_ring_create('g' || p.buckets, profile => 'guava');
		PERFORM chash_ring_create('p' || p.buckets, profile => 'jump');
		PERFORM chash_node_add(r, 'b' || i)
		FROM unnest(ARRAY['g' || p.buckets, 'p' || p.buckets]) r, generate_series(0, p.buckets - 1) i;
	END LOOP;
END
$$;
SELECT key, buckets, chash_lookup('g' || buckets, key) = 'b' || guava AS guava_ok,
	   chash_lookup('p' || buckets, key) = 'b' || paper AS paper_ok
FROM parting ORDER BY buckets;
SELECT count(*) AS dropped FROM (SELECT chash_ring_drop(ring) FROM chash.ring_config
								 WHERE ring ~ '^[gp][0-9]+$' OR ring IN ('guava', 'paper')) x;
-- int64: any bigint, as its two's complement bits; other keys are refused
SELECT k, chash_hash('int64', k) FROM unnest(ARRAY['0', '-1', '9223372036854775807',
	'-9223372036854775808', '00042', '-0']) k;
SELECT pg_temp.expect_error(format($$SELECT chash_hash('int64', %L)$$, k))
FROM unnest(ARRAY['9223372036854775808', '-9223372036854775809', '', '-', '1.5', ' 1', '+1', '١']) k;
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'jump', ketama_variant => 'guava2')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'modulo', ketama_variant => 'guava')$$);

-- nginx: 160 points a unit of weight, a chain of CRC-32s of host 0x00
-- port and the previous point, little-endian; the server text split at its
-- last ':' when digits follow it, "unix:" servers by their path.  Each
-- server's first three points against the chain computed here.
SELECT chash_ring_create('ngx', profile => 'nginx');
SELECT chash_node_add('ngx', n, w)
FROM (VALUES ('10.0.0.1:8080', 1), ('backend.example', 2), ('unix:/run/app.sock', 1),
			 ('UNIX:/run/b.sock', 1), ('[::1]:80', 3), ('host:', 1), ('a:b:12', 1)) v(n, w);
SELECT node, weight, points FROM chash.nodes WHERE ring = 'ngx' ORDER BY node;
CREATE FUNCTION pg_temp.le32(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT set_byte(set_byte(set_byte(set_byte('\x00000000'::bytea,
		0, (v & 255)::int), 1, ((v >> 8) & 255)::int), 2, ((v >> 16) & 255)::int), 3, ((v >> 24) & 255)::int)
$$;
WITH RECURSIVE split AS (
	SELECT node,
		   CASE WHEN lower(left(node, 5)) = 'unix:' THEN convert_to(substr(node, 6), 'UTF8') || '\x00'::bytea
				WHEN node ~ ':[0-9]*$' THEN convert_to(regexp_replace(node, ':[0-9]*$', ''), 'UTF8') || '\x00'::bytea
											|| convert_to(substring(node FROM ':([0-9]*)$'), 'UTF8')
				ELSE convert_to(node, 'UTF8') || '\x00'::bytea END AS base
	FROM chash.node_config WHERE ring = 'ngx'
), chain AS (
	SELECT node, base, 0 AS j, chash_hash('crc32', base || pg_temp.le32(0)) AS p FROM split
	UNION ALL
	SELECT node, base, j + 1, chash_hash('crc32', base || pg_temp.le32(p)) FROM chain WHERE j < 2
)
SELECT c.node, count(*) AS checked,
	   count(*) FILTER (WHERE EXISTS (SELECT FROM chash_points('ngx') pt
									  WHERE pt.node = c.node AND pt.point = c.p)) AS found
FROM chain c GROUP BY c.node ORDER BY c.node;
SELECT pg_temp.expect_error($$SELECT chash_node_add('ngx', 'half', 1.5)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'nginx', hash => 'md5')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'nginx', ties => 'last')$$);
SELECT chash_ring_drop('ngx');

-- Dalli: floor(N * 160 * w / W) points of SHA-1("host:port:i")'s first
-- four bytes, big-endian; a bare host is host:11211; keys go to the last
-- point at or before their CRC-32, and the later server of two on a point
-- owns it
SELECT chash_ring_create('dalli', profile => 'dalli');
SELECT chash_node_add('dalli', n, w)
FROM (VALUES ('10.0.0.1:11211', 1), ('10.0.0.2', 1), ('10.0.0.3:11212', 3), ('cache.example:11211', 1000)) v(n, w);
SELECT node, weight, points FROM chash.nodes WHERE ring = 'dalli' ORDER BY node;
SELECT n.node, count(*) AS checked,
	   count(*) FILTER (WHERE EXISTS (SELECT FROM chash_points('dalli') pt
									  WHERE pt.node = n.node
										AND pt.point = chash_hash('sha1_be32',
											n.node || CASE WHEN n.node LIKE '%:%' THEN '' ELSE ':11211' END || ':' || i))) AS found
FROM chash.node_config n, generate_series(0, 2) i WHERE n.ring = 'dalli' GROUP BY n.node ORDER BY n.node;
SELECT chash_ring_create('dalli_tie', profile => 'dalli');
SELECT chash_node_add('dalli_tie', n) FROM unnest(ARRAY['10.50.0.20:11211', '10.50.1.86:11211']) n;
-- (their shared point: the keys after it are the later server's, which
-- test/scripts/compat.sh checks against Dalli in both orders)
SELECT point, count(*) AS servers FROM chash_points('dalli_tie') GROUP BY point HAVING count(*) > 1;
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'dalli', hash => 'md5')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'dalli', ties => 'first')$$);
SELECT chash_ring_drop(r) FROM unnest(ARRAY['dalli', 'dalli_tie']) r;

-- HAProxy: 16 points a unit of weight, point j at full_hash(id * 4096 +
-- j), the id being the node's ordinal; keys to the nearest point
SELECT chash_ring_create('hap', profile => 'haproxy');
SELECT chash_node_add('hap', n, w) FROM (VALUES ('s1', 1), ('s2', 3), ('s3', 256)) v(n, w);
UPDATE chash.node_config SET ordinal = substr(node, 2)::int * 7 WHERE ring = 'hap';
SELECT node, ordinal, weight, points FROM chash.nodes WHERE ring = 'hap' ORDER BY node;
CREATE FUNCTION pg_temp.u32(v bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS
	$$ SELECT v & 4294967295 $$;
CREATE FUNCTION pg_temp.full_hash(a bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT ((a6::numeric * 3221225473) % 4294967296)::bigint
	FROM (SELECT a) s0,
	LATERAL (SELECT pg_temp.u32((a + 2127912214) + (a << 12)) AS a1) s1,
	LATERAL (SELECT pg_temp.u32((a1 # 3345072700) # (a1 >> 19)) AS a2) s2,
	LATERAL (SELECT pg_temp.u32((a2 + 374761393) + (a2 << 5)) AS a3) s3,
	LATERAL (SELECT pg_temp.u32((a3 + 3550635116) # pg_temp.u32(a3 << 9)) AS a4) s4,
	LATERAL (SELECT pg_temp.u32((a4 + 4251993797) + (a4 << 3)) AS a5) s5,
	LATERAL (SELECT pg_temp.u32((a5 # 3042594569) # (a5 >> 16)) AS a6) s6
$$;
SELECT n.node, count(*) AS points,
	   count(*) FILTER (WHERE EXISTS (SELECT FROM chash_points('hap') p
									  WHERE p.node = n.node
										AND p.point = pg_temp.full_hash(pg_temp.u32(n.ordinal * 4096 + j)))) AS found
FROM chash.node_config n, generate_series(0, 15) j WHERE n.ring = 'hap'
GROUP BY n.node ORDER BY n.node;
-- the nearest point, the one before at an equal distance
CREATE TEMP TABLE hap_points AS
SELECT DISTINCT ON (point) point, node FROM chash_points('hap') ORDER BY point;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('hap', k) = (
		   SELECT h.node FROM hap_points h
		   ORDER BY least(pg_temp.u32(chash_position('hap', k) - h.point),
						  pg_temp.u32(h.point - chash_position('hap', k))),
					pg_temp.u32(chash_position('hap', k) - h.point)
		   LIMIT 1)) AS nearest
FROM generate_series(1, 300) i, LATERAL (SELECT 'key' || i) x(k);
-- the nearest rule at the wrap, where HAProxy found a bug of 1.3: the
-- last point's keys ended halfway to the first point's END, not to the
-- first point (tokens on identity keys: a key is its position)
SELECT chash_ring_create('near', algorithm => 'tokens', key_hash => 'identity', lookup => 'nearest');
SELECT chash_node_add('near', 'a', tokens => '{100}');
SELECT chash_node_add('near', 'b', tokens => '{1000}');
SELECT k, chash_lookup('near', k) AS owner
FROM unnest(ARRAY[0, 99, 100, 101, 550, 551, 999, 1000,
				  4611686018427388453, 4611686018427388454, 4611686018427388455,
				  9223372036854775807]::bigint[]) k;
SELECT chash_ring_drop('near');
SELECT pg_temp.expect_error($$SELECT chash_node_add('hap', 's4', 257)$$);
SELECT pg_temp.expect_error($$SELECT chash_node_add('hap', 's4', 2.5)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'haproxy', key_hash => 'xxh3_64')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'haproxy', hash => 'crc16')$$);
-- points are sorted on the keys' width: a tokens ring whose (unused)
-- hash is narrower than its key hash routes as a reference over its tokens
SELECT chash_ring_create('widetok', algorithm => 'tokens', hash => 'crc32', key_hash => 'xxh3_64');
SELECT chash_node_add('widetok', n, tokens => t)
FROM (VALUES ('a', '{-9000000000000000000, 12, 4000000000000000000}'::bigint[]),
			 ('b', '{-3, 7000000000000000000, 300}'::bigint[]),
			 ('c', '{-5000000000000000000, 9000000000000000000, 5000000000}'::bigint[])) v(n, t);
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('widetok', k) = coalesce(
		   (SELECT p.node FROM chash_points('widetok') p
			WHERE p.point::numeric + CASE WHEN p.point < 0 THEN 18446744073709551616 ELSE 0 END
				  >= chash_position('widetok', k)::numeric
					 + CASE WHEN chash_position('widetok', k) < 0 THEN 18446744073709551616 ELSE 0 END
			ORDER BY p.point::numeric + CASE WHEN p.point < 0 THEN 18446744073709551616 ELSE 0 END LIMIT 1),
		   (SELECT p.node FROM chash_points('widetok') p
			ORDER BY p.point::numeric + CASE WHEN p.point < 0 THEN 18446744073709551616 ELSE 0 END LIMIT 1)))
	   AS agree
FROM generate_series(1, 2000) i, LATERAL (SELECT 'key' || i) x(k);
SELECT chash_ring_drop('widetok');
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', algorithm => 'haproxy', ties => 'first')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'haproxy', algorithm => 'ring')$$);
SELECT chash_ring_create('hap_djb2', profile => 'haproxy', key_hash => 'haproxy_djb2');
SELECT chash_ring_drop(r) FROM unnest(ARRAY['hap', 'hap_djb2']) r;

-- Elasticsearch: shard floorMod(h, R) / (R / n) of the signed hash, R
-- the routing shards (table_size), by default n << max(1, 10 - ceil(log2
-- n)) for indices of 7.0 and later
DO $$
BEGIN
	FOR n IN 1 .. 9 LOOP
		PERFORM chash_ring_create('es' || n, profile => 'elasticsearch');
		PERFORM chash_node_add('es' || n, 'shard' || i) FROM generate_series(0, n - 1) i;
	END LOOP;
END
$$;
SELECT substr(r.ring, 3)::int AS shards, sum(upper(x.slots) - lower(x.slots)) AS routing_shards,
	   count(DISTINCT x.node) AS owners
FROM chash.ring_config r, chash_slot_ranges(r.ring) x WHERE r.ring ~ '^es[0-9]$'
GROUP BY r.ring ORDER BY 1;
-- each key against the rule computed here from its hash
SELECT substr(r.ring, 3)::int AS shards, count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup(r.ring, 'doc-' || k) =
		   'shard' || (((h % rs) + rs) % rs) / (rs / substr(r.ring, 3)::int)) AS agree
FROM chash.ring_config r, generate_series(1, 1000) k,
	 LATERAL (SELECT (chash_position(r.ring, 'doc-' || k) # 2147483648) - 2147483648 AS h) s,
	 LATERAL (SELECT sum(upper(x.slots) - lower(x.slots)) AS rs FROM chash_slot_ranges(r.ring) x) t
WHERE r.ring ~ '^es[0-9]$'
GROUP BY r.ring ORDER BY 1;
-- exact shares: 2^32 hashes over R residues
SELECT ring, round(sum(owned)::numeric, 12) AS total, count(*) AS shards,
	   round(min(owned)::numeric, 9) AS least, round(max(owned)::numeric, 9) AS most
FROM (SELECT r.ring, o.owned FROM chash.ring_config r, chash_ownership(r.ring, 1) o
	  WHERE r.ring IN ('es3', 'es5', 'es7')) x
GROUP BY ring ORDER BY ring;
-- a split of 3 shards into 6 keeps R = 768: shard i's slots go half to
-- new shard 2i and half to 2i + 1.  R must stay a multiple of the shards,
-- so they come in one statement, as an index's do
SELECT chash_ring_create('es3to6', profile => 'elasticsearch', table_size => 768);
INSERT INTO chash.node_config (ring, node, ordinal)
SELECT 'es3to6', 'shard' || i, i FROM generate_series(0, 5) i;
SELECT * FROM chash_moved_slots('es3', 'es3to6');
SELECT pg_temp.expect_error($$SELECT chash_node_add('es3to6', 'shard6')$$);
-- an index's routing slots are not a slots ring's: floorMod of the
-- signed hash against the position mod the size
SELECT chash_ring_create('sl768', algorithm => 'slots', table_size => 768, key_hash => 'es_murmur3');
SELECT chash_node_add('sl768', 'shard0');
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('es3', 'sl768')$$);
SELECT chash_ring_drop('sl768');
SELECT pg_temp.expect_error($$SELECT chash_node_set('es3to6', 'shard5', state => 'down')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', profile => 'elasticsearch', table_size => 0)$$);
SELECT pg_temp.expect_error($$SELECT chash_node_add('es3', 'heavy', 2)$$);
SELECT count(*) AS dropped FROM (SELECT chash_ring_drop(ring) FROM chash.ring_config
								 WHERE ring ~ '^es') x;

--
-- Hash tags
--
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => '{')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => '{}}')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => 'ü}')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => E'{\t')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => ' }')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('x', hash_tag => '')$$);
-- The bytes between the first open and the first close after it, if any;
-- else the whole key.  Each key's position against the hash of the part
-- Redis Cluster's specification says is hashed.
SELECT chash_ring_create('tagged', key_hash => 'crc16', hash => 'crc16', hash_tag => '{}');
SELECT chash_ring_create('untagged', key_hash => 'crc16', hash => 'crc16');
SELECT chash_node_add(r, n) FROM unnest(ARRAY['tagged', 'untagged']) r, unnest(ARRAY['a', 'b']) n;
SELECT k, hashed, chash_position('tagged', k) = chash_position('untagged', hashed) AS ok
FROM (VALUES ('{user1000}.following', 'user1000'), ('{user1000}.followers', 'user1000'),
			 ('foo{}{bar}', 'foo{}{bar}'), ('foo{{bar}}zap', '{bar'), ('foo{bar}{zap}', 'bar'),
			 ('{}', '{}'), ('{', '{'), ('}', '}'), ('}{', '}{'), ('a}b{c}', 'c'), ('{x', '{x'),
			 ('', ''), ('ключ{ñ}', 'ñ'), ('{{}}', '{')) v(k, hashed)
ORDER BY k COLLATE "C";
-- (a character outside the BMP, shown by its check alone: psql before 15
-- gives it another width)
SELECT chash_position('tagged', '{🐘}') = chash_position('untagged', '🐘') AS astral_tag_ok;
-- bytea keys alike; integer keys as their decimal text (a tag of digits
-- applies: between the first 1 and the first 2 after it of 91827 is 8)
SELECT chash_position('tagged', '\x7b6b7d'::bytea) = chash_position('untagged', 'k') AS bytea_ok;
SELECT chash_ring_create('digits', key_hash => 'crc16', hash => 'crc16', hash_tag => '12');
SELECT chash_node_add('digits', 'a');
SELECT chash_position('digits', 91827) = chash_position('untagged', '8') AS int4_ok,
	   chash_position('digits', 91827::bigint) = chash_position('untagged', '8') AS int8_ok,
	   chash_position('digits', 31245) = chash_position('untagged', '31245') AS empty_tag_ok;
-- chash_hash() hashes whole keys, tag or no tag
SELECT chash_hash('crc16', '{a}b') = chash_position('untagged', '{a}b') AS chash_hash_whole;
-- plans by ranges need rings that hash the same part of each key
SELECT chash_ring_copy('untagged', 'untagged2');
SELECT count(*) AS ranges FROM chash_moved_ranges('untagged', 'untagged2');
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_ranges('tagged', 'untagged')$$);
-- two rings with the same tag compare range by range, but plans choose
-- their rows key by key: chash_hash() and MySQL hash whole keys
SELECT chash_ring_copy('tagged', 'tagged2');
SELECT count(*) AS ranges FROM chash_moved_ranges('tagged', 'tagged2');
SELECT chash.plan_kind('tagged', 'tagged2') AS tagged_plan, chash.plan_kind('untagged', 'untagged2') AS untagged_plan;
SELECT chash_ring_drop('tagged2');
-- key by key, any two
SELECT count(*) > 0 AS some_move, count(*) < 100 AS not_all
FROM chash_moved_keys('tagged', 'untagged', ARRAY(SELECT '{t}' || i FROM generate_series(1, 100) i));
SELECT chash_ring_drop(r) FROM unnest(ARRAY['tagged', 'untagged', 'untagged2', 'digits']) r;

--
-- Redis Cluster: the slot of a key is crc16(its tag or itself) mod 16384
--
SELECT chash_ring_create('cache', profile => 'redis_cluster');
SELECT chash_node_add('cache', '127.0.0.1:' || p) FROM generate_series(7000, 7002) p;
-- split as redis-cli --cluster create splits 3 masters
SELECT * FROM chash_slot_ranges('cache');
SELECT k, chash_position('cache', k) % 16384 AS slot, chash_lookup('cache', k)
FROM unnest(ARRAY['somekey', 'foo', 'bar', 'hello', '{user1000}.following',
				  '{user1000}.followers', 'foo{}{bar}', 'foo{{bar}}zap', 'foo{bar}{zap}']) k;

-- CLUSTER NODES of a cluster of 3 masters and their replicas, as
-- redis-server 7.0 prints it: hostnames after the address, a slot on the
-- move (which stays its owner's), single slots and ranges
SELECT chash_ring_create('imported', profile => 'redis_cluster');
SELECT chash_ring_import('imported', 'redis_cluster_nodes', $$
07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002,host2 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003,host3 master - 0 1426238318243 3 connected 10923-16383 [10923->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005,host5 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected
824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30006@31006,host6 slave 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238317741 6 connected
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001,host1 myself,master - 0 0 1 connected 0-5459 5460
$$) AS masters;
SELECT node, state, slots, ordinal IS NOT NULL AS has_ordinal FROM chash.nodes
WHERE ring = 'imported' ORDER BY node;
SELECT * FROM chash_slot_ranges('imported');
SELECT chash_lookup('imported', 'foo') AS foo, chash_lookup('imported', '{user1000}.followers') AS user1000;
-- after a reshard of slots 0-99 to the second master and a new master
-- with slot 5460: import again; a node that stays keeps its weight and zone
SELECT chash_node_set('imported', '127.0.0.1:30002', zone => 'b');
SELECT chash_ring_copy('imported', 'before');
SELECT chash_ring_import('imported', 'redis_cluster_nodes', $$
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 0-99 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 100-5459
a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1 127.0.0.1:30007@31007 master - 0 1426238318243 7 connected 5460
$$) AS masters;
SELECT node, zone, slots FROM chash.nodes WHERE ring = 'imported' ORDER BY node;
-- the slots that move, as ranges with their old and new owner
SELECT * FROM chash_moved_slots('before', 'imported');
SELECT count(*) AS moving_keys
FROM chash_moved_keys('before', 'imported', ARRAY(SELECT 'k' || i FROM generate_series(1, 10000) i));
-- a master marked failed is down: its slots have no node, and its keys
-- are an error, as Redis refuses them
SELECT chash_ring_import('imported', 'redis_cluster_nodes', $$
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 0-99 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master,fail - 1426238316000 1426238318243 3 disconnected 10923-16383
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 100-5460
$$) AS masters;
SELECT node, state FROM chash.nodes WHERE ring = 'imported' ORDER BY node;
SELECT pg_temp.expect_error($$SELECT chash_lookup('imported', 'foo')$$);
SELECT chash_lookup('imported', 'bar') AS bar;

-- Bad input is an error and changes nothing
CREATE TEMP TABLE before_errors AS SELECT node, state, slots FROM chash.node_config WHERE ring = 'imported';
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes', 'not a line')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-16384')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:99999999@31002 master - 0 0 2 connected 0-100')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 100-99')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-x')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-99999999999')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	E'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-100\n68ed 127.0.0.1:30002@31002 master - 0 0 3 connected 200')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	E'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-100\n68ed 127.0.0.1:30003@31003 master - 0 0 3 connected 100')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed :30002@31002 myself,master - 0 0 2 connected 0-100')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed :0@0 master,noaddr - 0 0 2 connected 0-100')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 slave 68ed 0 0 2 connected')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes', '')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'cluster_shards', '')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', NULL, '')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes', NULL)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import(NULL, 'redis_cluster_nodes', '')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('nosuch', 'redis_cluster_nodes', '')$$);
SELECT chash_ring_create('ringring');
SELECT pg_temp.expect_error($$SELECT chash_ring_import('ringring', 'redis_cluster_nodes', '')$$);
SELECT chash_ring_create('small', algorithm => 'slots', table_size => 1024);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('small', 'redis_cluster_nodes', '')$$);
-- a ring of 16384 slots that does not hash as Redis does
SELECT chash_ring_create('xxslots', algorithm => 'slots');
SELECT pg_temp.expect_error($$SELECT chash_ring_import('xxslots', 'redis_cluster_nodes', '')$$);
SELECT chash_ring_create('untagged16384', algorithm => 'slots', key_hash => 'crc16');
SELECT pg_temp.expect_error($$SELECT chash_ring_import('untagged16384', 'redis_cluster_nodes', '')$$);
SELECT chash_ring_drop(r) FROM unnest(ARRAY['xxslots', 'untagged16384']) r;
SELECT (SELECT array_agg((node, state, slots) ORDER BY node) FROM before_errors) =
	   (SELECT array_agg((node, state, slots) ORDER BY node) FROM chash.node_config WHERE ring = 'imported')
	   AS unchanged;
-- a role that may not change the ring's nodes may not import them
CREATE ROLE regress_chash_importer;
GRANT SELECT ON chash.ring_config, chash.node_config TO regress_chash_importer;
SET ROLE regress_chash_importer;
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'redis_cluster_nodes',
	'67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 0-16383')$$);
RESET ROLE;
REVOKE ALL ON chash.ring_config, chash.node_config FROM regress_chash_importer;
DROP ROLE regress_chash_importer;
SELECT (SELECT array_agg((node, state, slots) ORDER BY node) FROM before_errors) =
	   (SELECT array_agg((node, state, slots) ORDER BY node) FROM chash.node_config WHERE ring = 'imported')
	   AS unchanged;

-- chash_moved_slots compares tables of slots of one size that hash alike
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', 'imported')$$);
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', 'nosuch')$$);
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('nosuch', 'imported')$$);
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', 'ringring')$$);
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', 'small')$$);
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', NULL)$$);
SELECT chash_ring_create('untagged_slots', algorithm => 'slots', key_hash => 'crc16');
SELECT pg_temp.expect_error($$SELECT * FROM chash_moved_slots('imported', 'untagged_slots')$$);
-- a slots ring to a maglev ring of the same size: every slot that changes hands
SELECT chash_ring_create('mag', algorithm => 'maglev', table_size => 16381, key_hash => 'crc16', hash_tag => '{}');
SELECT chash_ring_create('sl', algorithm => 'slots', table_size => 16381, key_hash => 'crc16', hash_tag => '{}');
SELECT chash_node_add(r, n) FROM unnest(ARRAY['mag', 'sl']) r, unnest(ARRAY['a', 'b', 'c']) n;
CREATE TEMP TABLE owner_of AS
SELECT r.ring, s, x.node
FROM unnest(ARRAY['mag', 'sl']) r(ring), chash_slot_ranges(r.ring) x,
	 generate_series(lower(x.slots), upper(x.slots) - 1) s;
WITH ms AS (
	SELECT s, m.from_node, m.to_node
	FROM chash_moved_slots('sl', 'mag') m, generate_series(lower(m.slots), upper(m.slots) - 1) s
), diff AS (
	SELECT s, a.node AS from_node, b.node AS to_node
	FROM owner_of a JOIN owner_of b USING (s)
	WHERE a.ring = 'sl' AND b.ring = 'mag' AND a.node <> b.node
)
SELECT (SELECT count(*) FROM ms) AS moved_slots,
	   (SELECT count(*) FROM diff) AS differing_slots,
	   NOT EXISTS (SELECT FROM ms FULL JOIN diff USING (s)
				   WHERE ms.from_node IS DISTINCT FROM diff.from_node
					  OR ms.to_node IS DISTINCT FROM diff.to_node) AS same_owners;

-- MySQL cannot compute a tagged key's slot as chash does: the plan lists keys
SELECT chash_ring_copy('before', 'after');
SELECT chash_node_set('after', '127.0.0.1:30001', slots => '{"[100,5461)"}');
SELECT chash_node_set('after', '127.0.0.1:30002', slots => '{"[0,100)","[5461,10923)"}');
UPDATE chash.node_config SET target = 'shard_' || split_part(node, ':', 2)
WHERE ring IN ('before', 'after');
CREATE TABLE profile_keys (k text PRIMARY KEY);
INSERT INTO profile_keys SELECT 'k' || i FROM generate_series(1, 50) i;
SELECT bool_or(position('explicit key lists' IN q) > 0) AS lists_keys,
	   bool_or(q LIKE '%INTERVAL(%') AS computes_slots
FROM chash_migration_sql('before', 'after', 'profile_keys', 'k', 'mysql') q;
DROP TABLE profile_keys;


-- Cassandra: the Murmur3Partitioner's tokens of keys as CQL serialises
-- them.  'hello' and 'café' are the published tokens; integer 1's token is
-- the one Cassandra's documentation shows for partition key 1.
SELECT chash_hash('cassandra_murmur3', 'hello') AS hello,
	   chash_hash('cassandra_murmur3', 'café') AS cafe,
	   chash_hash('cassandra_murmur3', int4send(1)) AS int_1;
-- tails with bytes of 0x80 and more, which Cassandra reads as signed bytes
-- (tokens by python3-cassandra), and the empty key's MINIMUM token
SELECT chash_hash('cassandra_murmur3', '\xff'::bytea) AS ff,
	   chash_hash('cassandra_murmur3', decode(repeat('80', 15), 'hex')) AS "15x80",
	   chash_hash('cassandra_murmur3', '\xc8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8'::bytea) AS "17 bytes",
	   chash_hash('cassandra_murmur3', ''::bytea) AS empty;

-- chash_cql_key: one value as CQL serialises it, several as a composite key
CREATE DOMAIN pg_temp.user_id AS integer;
SELECT chash_cql_key('abc') AS unknown, chash_cql_key('é'::text) AS text,
	   chash_cql_key('é'::varchar) AS varchar, chash_cql_key('\x0102'::bytea) AS blob,
	   chash_cql_key(-2::smallint) AS smallint, chash_cql_key(-2) AS int,
	   chash_cql_key(-2::bigint) AS bigint, chash_cql_key(true) AS true,
	   chash_cql_key(7::pg_temp.user_id) AS domain;
SELECT chash_cql_key('00000000-0000-0000-0000-0000000000ff'::uuid) AS uuid,
	   chash_cql_key('ab'::text, 1) AS "text, int",
	   chash_cql_key(VARIADIC ARRAY['a', 'bc']) AS "VARIADIC",
	   chash_cql_key(''::text, ''::bytea) AS "two empty";
-- a component's length is 2 bytes: 65535 bytes fit, 65536 do not
SELECT length(chash_cql_key(repeat('x', 65535), 1)) AS longest;
SELECT pg_temp.expect_error($$SELECT chash_cql_key(repeat('x', 65536), 1)$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(NULL::integer)$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key('a'::text, NULL::integer)$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(1.5)$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(VARIADIC NULL::integer[])$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(VARIADIC '{}'::integer[])$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(VARIADIC ARRAY[1, NULL])$$);
SELECT pg_temp.expect_error($$SELECT chash_cql_key(VARIADIC ARRAY[[1, 2], [3, 4]])$$);

-- A ring of two data centres' nodes, one ring a data centre
SELECT chash_ring_create('cass_dc1', profile => 'cassandra'),
	   chash_ring_create('cass_dc2', profile => 'cassandra');
CREATE TEMP TABLE nodetool (t text);
INSERT INTO nodetool VALUES ($$
Datacenter: dc1
==========
Address         Rack        Status State   Load            Owns                Token
                                                                               9000000000000000000
10.0.1.1        r1          Up     Normal  112.36 KiB      ?                   -9000000000000000000
10.0.1.2        r2          Up     Normal  1.02 MiB        ?                   -3758069500696749310
10.0.1.3        r1          Down   Normal  ?               ?                   -1000
10.0.1.4        r2          Up     Joining 10 KiB          ?                   0
10.0.1.2        r2          Up     Leaving 1.02 MiB        ?                   5000000000000000000
10.0.1.3        r1          Down   Normal  ?               ?                   9000000000000000000

Datacenter: dc2
==========
Address         Rack        Status State   Load            Owns                Token
                                                                               7000000000000000000
10.0.2.1        r1          Up     Moving  112.36 KiB      ?                   -1
10.0.2.2        r1          ?      Normal  112.36 KiB      ?                   7000000000000000000

  Warning: "nodetool ring" is used to output all the tokens of a node.
  To view status related info of a node use "nodetool status" instead.
$$);
SELECT chash_ring_import('cass_dc1', 'nodetool_ring', t, datacenter => 'dc1') AS dc1,
	   chash_ring_import('cass_dc2', 'nodetool_ring', t, 'dc2') AS dc2
FROM nodetool;
SELECT ring, node, zone, state, tokens,
	   row_number() OVER (PARTITION BY ring ORDER BY ordinal) AS "order"
FROM chash.nodes WHERE ring LIKE 'cass_%' ORDER BY ring, ordinal;
-- points and ranges in signed order, as Cassandra's tokens
SELECT * FROM chash_points('cass_dc1');
SELECT chash_ring_copy('cass_dc1', 'cass_dc1b');
SELECT chash_node_remove('cass_dc1b', '10.0.1.3');
SELECT * FROM chash_moved_ranges('cass_dc1', 'cass_dc1b');
-- a key on a token belongs to that token's node; past the last token, to
-- the first; the empty key's MINIMUM token, to the first
SELECT chash_position('cass_dc1', 'hello') AS hello, chash_lookup('cass_dc1', 'hello') AS owner,
	   chash_position('cass_dc1', 'k145') AS k145, chash_lookup('cass_dc1', 'k145') AS past_last,
	   chash_lookup('cass_dc1', ''::bytea) AS empty;
-- replicas: SimpleStrategy's walk, and NetworkTopologyStrategy's, with
-- racks as zones: from int -1000's token, the walk meets 10.0.1.3 and
-- 10.0.1.1 of rack r1 before 10.0.1.2 of r2, which NTS takes second
SELECT chash_lookup_n('cass_dc1', 'hello', 3) AS simple_3,
	   chash_position('cass_dc1', -1000) AS token,
	   chash_lookup_n('cass_dc1', -1000, 2) AS simple_2,
	   chash_lookup_n('cass_dc1', -1000, 2, true) AS nts_2,
	   chash_lookup_n('cass_dc1', -1000, 3, true) AS nts_3;
-- the typed overloads hash integers and uuids as CQL does, text as UTF-8
SELECT chash_position('cass_dc1', 1) = chash_hash('cassandra_murmur3', int4send(1)) AS int,
	   chash_position('cass_dc1', 1::bigint) = chash_hash('cassandra_murmur3', int8send(1)) AS bigint,
	   chash_position('cass_dc1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) =
	   chash_hash('cassandra_murmur3', uuid_send('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')) AS uuid,
	   chash_position('cass_dc1', 'é') = chash_hash('cassandra_murmur3', '\xc3a9'::bytea) AS text;
-- plans go key by key: chash_hash() of a key's text is not its token
SELECT chash.plan_kind('cass_dc1', 'cass_dc1b');

-- Bad input: a clear error, and the ring unchanged
CREATE TEMP TABLE cass_before AS SELECT * FROM chash.nodes WHERE ring = 'cass_dc1';
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring', t) FROM nodetool$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring', t, 'dc3') FROM nodetool$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring', 'Datacenter: dc1')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'10.0.1.1  r1  Up  Normal  1 KiB  ?  9223372036854775808')$$);
SELECT pg_temp.expect_error(format($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'10.0.1.1  r1  Up  Normal  1 KiB  ?  %s')$$, repeat('9', 200000)));
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'10.0.1.1  r1  Sleepy  Normal  1 KiB  ?  1')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'10.0.1.1  r1  Up  Gone  1 KiB  ?  1')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	E'10.0.1.1  r1  Up  Normal  1 KiB  ?  1\n10.0.1.2  r1  Up  Normal  1 KiB  ?  01')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	E'10.0.1.1  r1  Up  Normal  1 KiB  ?  1\n10.0.1.1  r2  Up  Normal  1 KiB  ?  2')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'10.0.1.1  r1  Up  Joining  1 KiB  ?  1')$$);
SELECT pg_temp.expect_error(format($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring',
	'%s  r1  Up  Normal  1 KiB  ?  1')$$, repeat('a', 1025)));
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'redis_cluster_nodes', '', 'dc1')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool', '')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('cass_dc1', 'nodetool_ring', NULL)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('no_such_ring', 'nodetool_ring', t, 'dc1') FROM nodetool$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('imported', 'nodetool_ring', t, 'dc1') FROM nodetool$$);
SELECT count(*) AS unchanged FROM (
	SELECT * FROM cass_before
	INTERSECT
	SELECT * FROM chash.nodes WHERE ring = 'cass_dc1') same;


-- HAProxy 3.0.0 to 3.0.11: servers at full_hash(full_hash(id) + j), the
-- 2.x rule beside it (values computed from lb_chash.c of both versions)
SELECT chash_ring_create('hap2', profile => 'haproxy'),
	   chash_ring_create('hap3', profile => 'haproxy_3_0');
INSERT INTO chash.node_config (ring, node, ordinal)
SELECT r, n, o FROM unnest(ARRAY['hap2', 'hap3']) r, (VALUES ('srv0', 1), ('srv1', 2)) v(n, o);
SELECT p.vnode, a.point AS "2.x", p.point AS "3.0.0-3.0.11"
FROM chash_points('hap3') p JOIN chash_points('hap2') a USING (vnode)
WHERE p.vnode IN ('srv0~0', 'srv0~1', 'srv0~2', 'srv1~0', 'srv1~1', 'srv1~2') ORDER BY p.vnode;
-- HAProxy's reg-test balance-hash-maxconn.vtc: balance uri, srv0 and srv1;
-- it expected /test-url on srv1 before the fix, on srv0 after it
SELECT chash_lookup('hap2', '/test-url') AS "2.x", chash_lookup('hap3', '/test-url') AS "3.0.0-3.0.11";
SELECT pg_temp.expect_error($$SELECT chash_ring_create('hapx', algorithm => 'haproxy', ketama_variant => 'id_random')$$);

-- Dubbo: 40 digests of "address" || i, 4 points each, the later invoker
-- winning a shared point; key MD5 (routes of dubbo_reference.py, checked
-- by hand with openssl on Dubbo's test invokers 127.0.0.1:1 to :5)
SELECT chash_ring_create('dubbo', profile => 'dubbo');
SELECT chash_node_add('dubbo', '127.0.0.1:' || i) FROM generate_series(1, 5) i;
SELECT chash_lookup('dubbo', 'arg1') AS arg1, chash_lookup('dubbo', '') AS empty,
	   chash_lookup('dubbo', 'abc') AS abc, count(*) AS points
FROM chash_points('dubbo');
-- "h:808" with i = 10..19 is the text of "h:8081" with i = 0..9: 40
-- shared points, which the invoker listed later keeps; key
-- "10.60.0.1:80810" is the first point of both digests
SELECT chash_ring_create('dubbo_tie', profile => 'dubbo'),
	   chash_ring_create('dubbo_tie_reversed', profile => 'dubbo');
SELECT chash_node_add('dubbo_tie', n) FROM unnest(ARRAY['10.60.0.1:808', '10.60.0.1:8081']) n;
SELECT chash_node_add('dubbo_tie_reversed', n) FROM unnest(ARRAY['10.60.0.1:8081', '10.60.0.1:808']) n;
SELECT (SELECT count(*) FROM (SELECT point FROM chash_points('dubbo_tie')
							  GROUP BY point HAVING count(*) > 1) t) AS shared,
	   chash_lookup('dubbo_tie', '10.60.0.1:80810') AS later_8081,
	   chash_lookup('dubbo_tie_reversed', '10.60.0.1:80810') AS later_808;
SELECT pg_temp.expect_error($$SELECT chash_node_add('dubbo_tie', '10.60.0.3:20880', 2)$$);

-- Envoy's ring_hash: the rings its ring_hash_lb_test.cc publishes (Basic:
-- :90 to :95, minimum_ring_size 12; UnevenHosts: :80 and :81, then :81 and
-- :82, minimum_ring_size 3), shown as unsigned hashes
CREATE FUNCTION pg_temp.unsigned(v bigint) RETURNS numeric LANGUAGE sql
	AS $$SELECT v::numeric + CASE WHEN v < 0 THEN 18446744073709551616 ELSE 0 END$$;
SELECT chash_ring_create('envoy_basic', profile => 'envoy_ring_hash', vnodes => 12),
	   chash_ring_create('envoy_uneven', profile => 'envoy_ring_hash', vnodes => 3);
SELECT chash_node_add('envoy_basic', '127.0.0.1:' || p) FROM generate_series(90, 95) p;
SELECT chash_node_add('envoy_uneven', '127.0.0.1:' || p) FROM generate_series(80, 81) p;
SELECT pg_temp.unsigned(point) AS hash, node FROM chash_points('envoy_basic') ORDER BY 1;
SELECT pg_temp.unsigned(point) AS hash, node FROM chash_points('envoy_uneven') ORDER BY 1;
SELECT chash_node_remove('envoy_uneven', '127.0.0.1:80'), chash_node_add('envoy_uneven', '127.0.0.1:82');
SELECT pg_temp.unsigned(point) AS hash, node FROM chash_points('envoy_uneven') ORDER BY 1;
-- weights carry their fractions to the next host: 1, 2, 3 on 6 points
SELECT chash_ring_create('envoy_weighted', profile => 'envoy_ring_hash', vnodes => 6);
SELECT chash_node_add('envoy_weighted', '127.0.0.1:' || (89 + w), w) FROM generate_series(1, 3) w;
SELECT node, points FROM chash.nodes WHERE ring = 'envoy_weighted' ORDER BY node;
SELECT pg_temp.expect_error($$SELECT chash_ring_create('envoy_big', profile => 'envoy_ring_hash', vnodes => 8388609)$$);
SELECT pg_temp.expect_error($$SELECT chash_node_add('envoy_basic', '127.0.0.1:96', vnodes => 5)$$);

-- Envoy's maglev: its published tables (Basic: :90 to :95 in 7 slots;
-- Weighted: :90 of weight 1 and :91 of 2 in 17), hosts in name order
SELECT chash_ring_create('envoy_mag', profile => 'envoy_maglev', table_size => 7),
	   chash_ring_create('envoy_magw', profile => 'envoy_maglev', table_size => 17);
SELECT chash_node_add('envoy_mag', '127.0.0.1:' || p) FROM generate_series(95, 90, -1) p;
SELECT chash_node_add('envoy_magw', '127.0.0.1:' || p, p - 89) FROM generate_series(90, 91) p;
SELECT r.ring, string_agg(split_part(x.node, ':', 2), ' ' ORDER BY s) AS slots
FROM unnest(ARRAY['envoy_mag', 'envoy_magw']) r(ring), chash_slot_ranges(r.ring) x,
	 generate_series(lower(x.slots), upper(x.slots) - 1) s
GROUP BY r.ring ORDER BY r.ring;
SELECT pg_temp.expect_error($$SELECT chash_node_add('envoy_mag', n) FROM unnest(ARRAY['a', 'b']) n$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('magx', algorithm => 'maglev', ketama_variant => 'google')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('magx', algorithm => 'maglev', ketama_variant => 'envoy', hash => 'xxh3_64')$$);


-- pymemcache: RendezvousHash's highest murmur3_32("<node>-<key>"), of the
-- low byte of each code point ('ũ' is U+0169: hashed as 'i'); routes of
-- pymemcache 3.5.2 itself
SELECT chash_hash('pymemcache_murmur3', 'key-ũ1') = chash_hash('pymemcache_murmur3', 'key-i1') AS low_bytes,
	   chash_hash('pymemcache_murmur3', 'user:1') = chash_hash('murmur3_32', 'user:1') AS ascii_is_murmur3,
	   chash_hash('pymemcache_murmur3', '') AS empty;
SELECT pg_temp.expect_error($$SELECT chash_hash('pymemcache_murmur3', '\xff'::bytea)$$);
SELECT chash_ring_create('pm', profile => 'pymemcache');
SELECT chash_node_add('pm', '127.0.0.1:' || (11210 + i)) FROM generate_series(1, 5) i;
SELECT k, chash_lookup('pm', k) AS owner, chash_lookup_n('pm', k, 3) AS by_score,
	   (SELECT array_agg(n.node ORDER BY chash_hash('pymemcache_murmur3', n.node || '-' || k) DESC, n.node DESC)
		FROM chash.node_config n WHERE n.ring = 'pm') AS scored_in_sql
FROM unnest(ARRAY['a', 'key-ũ1', 'key-i1', '', 'user:1']) k;
-- integer keys are their decimal text, as str() makes them
SELECT chash_lookup('pm', 42) = chash_lookup('pm', '42') AS int_as_text;
-- bytes keys are hashed as their repr: HashClient routed b'user:1',
-- b'abc', b'k-42' and 'café'.encode() to :11215, :11215, :11212, :11215
SELECT k, chash_lookup('pm', k) AS owner
FROM unnest(ARRAY[$$b'user:1'$$, $$b'abc'$$, $$b'k-42'$$, $$b'caf\xc3\xa9'$$]) k;
-- every node an equal share, no positions to plan by
SELECT node, owned FROM chash_ownership('pm') ORDER BY node;
SELECT chash_ring_copy('pm', 'pm2');
SELECT chash_node_remove('pm2', '127.0.0.1:11213');
SELECT chash.plan_kind('pm', 'pm2');
SELECT count(*) FILTER (WHERE chash_lookup('pm', 'k' || i) <> chash_lookup('pm2', 'k' || i)) AS moved,
	   count(*) FILTER (WHERE chash_lookup('pm', 'k' || i) = '127.0.0.1:11213') AS on_removed
FROM generate_series(1, 2000) i;
SELECT pg_temp.expect_error($$SELECT chash_node_add('pm', '127.0.0.1:11300', 2)$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('pmx', algorithm => 'rendezvous', ketama_variant => 'clandestined')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_create('pmx', algorithm => 'rendezvous', ketama_variant => 'pymemcache', hash => 'xxh64')$$);
SELECT pg_temp.expect_error($$SELECT chash_lookup('pm', '\xff'::bytea)$$);
-- weights are refused when the variant changes too, and a ring made so
-- behind the checks fails its lookups rather than route by weights
-- pymemcache has not (its ownership would exceed 1)
SELECT chash_ring_create('pmw', algorithm => 'rendezvous', hash => 'pymemcache_murmur3');
SELECT chash_node_add('pmw', n, 2) FROM unnest(ARRAY['a', 'b']) n;
SELECT pg_temp.expect_error($$UPDATE chash.ring_config SET ketama_variant = 'pymemcache' WHERE ring = 'pmw'$$);
ALTER TABLE chash.ring_config DISABLE TRIGGER ring_config_check_update;
UPDATE chash.ring_config SET ketama_variant = 'pymemcache' WHERE ring = 'pmw';
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_check_update;
SELECT pg_temp.expect_error($$SELECT chash_lookup('pmw', 'k')$$);
SELECT problem FROM chash.rings WHERE ring = 'pmw';
SELECT chash_ring_drop('pmw');


-- Elasticsearch indices of routing_partition_size P: a document goes to
-- floorMod(h(routing) + floorMod(h(_id), P), R) / (R / n); a search with
-- a routing visits the shards of h(routing) + 0 .. P - 1
SELECT chash_ring_create('esp', profile => 'elasticsearch');
INSERT INTO chash.node_config (ring, node, ordinal)
SELECT 'esp', 'shard-' || i, i FROM generate_series(0, 4) i;
-- (in SQL: h as Java's int, the sum wrapped as an int, floorMod by R = 640
-- routing shards, shard = slot / 128)
CREATE FUNCTION pg_temp.java_int(v bigint) RETURNS bigint LANGUAGE sql
	AS $$SELECT (v + 2147483648) % 4294967296 - 2147483648 + CASE WHEN v < -2147483648 THEN 4294967296 ELSE 0 END$$;
CREATE FUNCTION pg_temp.floor_mod(v bigint, m bigint) RETURNS bigint LANGUAGE sql
	AS $$SELECT ((v % m) + m) % m$$;
WITH d AS (
	SELECT 'user' || i AS routing, 'doc' || i AS id,
		   pg_temp.java_int(chash_hash('es_murmur3', 'user' || i)) AS hr,
		   pg_temp.java_int(chash_hash('es_murmur3', 'doc' || i)) AS hi
	FROM generate_series(1, 2000) i
)
SELECT count(*) AS documents,
	   count(*) FILTER (WHERE chash_lookup_partitioned('esp', routing, id, 3) IS DISTINCT FROM
							  'shard-' || pg_temp.floor_mod(pg_temp.java_int(hr + pg_temp.floor_mod(hi, 3)), 640) / 128) AS differing_from_sql,
	   count(*) FILTER (WHERE chash_lookup_partitioned('esp', routing, id, 1) IS DISTINCT FROM
							  chash_lookup('esp', routing)) AS p1_differing_from_plain,
	   count(*) FILTER (WHERE NOT chash_lookup_partitioned('esp', routing, id, 3) =
							  ANY (chash_lookup_partitioned('esp', routing, 3))) AS outside_search,
	   max(cardinality(chash_lookup_partitioned('esp', routing, 3))) AS widest_search
FROM d;
SELECT chash_lookup_partitioned('esp', 'user1', 639) AS every_shard;
SELECT pg_temp.expect_error($$SELECT chash_lookup_partitioned('esp', 'r', 'i', 0)$$);
SELECT pg_temp.expect_error($$SELECT chash_lookup_partitioned('esp', 'r', 640)$$);
SELECT pg_temp.expect_error($$SELECT chash_lookup_partitioned('pm', 'r', 'i', 2)$$);


-- CLUSTER SHARDS, as redis-cli --json prints it (RESP3: maps as objects;
-- RESP2 with -2: maps as lists of keys and values): each shard's master
-- with its slots; replicas left out, a failed master down
SELECT chash_ring_create('shards', profile => 'redis_cluster'),
	   chash_ring_create('shards2', profile => 'redis_cluster');
SELECT chash_ring_import('shards', 'redis_cluster_shards', $$[
 {"slots":[0,5460,10923,10999],"nodes":[
   {"id":"a1","port":30001,"ip":"10.0.0.1","endpoint":"10.0.0.1","role":"master","replication-offset":7,"health":"online"},
   {"id":"a2","port":30004,"ip":"10.0.0.4","endpoint":"10.0.0.4","role":"replica","replication-offset":7,"health":"online"}]},
 {"slots":[5461,10922],"nodes":[
   {"id":"b1","port":30002,"ip":"10.0.0.2","endpoint":"10.0.0.2","role":"master","replication-offset":0,"health":"failed"}]},
 {"slots":[11000,16383],"nodes":[
   {"id":"c1","tls-port":30003,"ip":"10.0.0.3","endpoint":"cache-3","role":"master","replication-offset":0,"health":"loading"}]},
 {"slots":[],"nodes":[
   {"id":"d1","port":30005,"ip":"10.0.0.5","endpoint":"10.0.0.5","role":"master","replication-offset":0,"health":"online"}]},
 {"slots":[],"nodes":[
   {"id":"e1","port":30006,"ip":"10.0.0.6","endpoint":"10.0.0.6","role":"replica","replication-offset":0,"health":"online"}]}
]$$) AS resp3,
	   chash_ring_import('shards2', 'redis_cluster_shards', $$[
 ["slots",[0,5460,10923,10999],"nodes",[["id","a1","port",30001,"ip","10.0.0.1","role","master","health","online"],
                                      ["id","a2","port",30004,"ip","10.0.0.4","role","replica","health","online"]]],
 ["slots",[5461,10922],"nodes",[["id","b1","port",30002,"ip","10.0.0.2","role","master","health","failed"]]],
 ["slots",[11000,16383],"nodes",[["id","c1","tls-port",30003,"ip","10.0.0.3","role","master","health","loading"]]],
 ["slots",[],"nodes",[["id","d1","port",30005,"ip","10.0.0.5","role","master","health","online"]]]
]$$) AS resp2;
SELECT ring, node, state, slots FROM chash.nodes WHERE ring IN ('shards', 'shards2') ORDER BY ring, node;
CREATE TEMP TABLE shards_before AS SELECT * FROM chash.nodes WHERE ring = 'shards';
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards', 'not json')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards', '{"slots":[]}')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards', '[42]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards', '[{"slots":[0,1],"nodes":[7]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1","port":1},{"role":"master","ip":"10.0.0.2","port":2}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1,2],"nodes":[{"role":"master","ip":"10.0.0.1","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,"1"],"nodes":[{"role":"master","ip":"10.0.0.1","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[5,16384],"nodes":[{"role":"master","ip":"10.0.0.1","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1","port":1}]},{"slots":[2,3],"nodes":[{"role":"master","ip":"10.0.0.1","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"replica","ip":"10.0.0.1","port":1}]}]')$$);
-- every field checked: ports, ip, keys given twice, what jsonb refuses
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1","port":"99999999"}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1","port":1e400}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":{"a":1},"port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1"}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[["slots",[0,1],"nodes",[["role","master","ip","10.0.0.1","port",1,"role","replica"]]]]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards',
	'[{"slots":[0,1],"nodes":[{"role":"master","ip":"10.0.0.1\u0000","port":1}]}]')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('shards', 'redis_cluster_shards', '[]', 'dc1')$$);
SELECT pg_temp.expect_error($$SELECT chash_ring_import('pm', 'redis_cluster_shards', '[]')$$);
SELECT count(*) AS unchanged FROM (
	SELECT * FROM shards_before INTERSECT SELECT * FROM chash.nodes WHERE ring = 'shards') same;

SELECT chash_ring_drop(ring) FROM chash.ring_config ORDER BY ring;
