--
-- chash_export: a ring as the configuration of nginx, HAProxy and
-- twemproxy.  Each export is read back by chash_ring_import (which reads
-- what the compatibility suites prove the real servers do) into a new
-- ring, which must route 100,000 keys exactly as the first, and export to
-- the same text (a fixed point); every refusal names the setting.
--
-- Rings of this test are named ex_*; everything is dropped at the end.
--
SET client_min_messages = warning;
-- (the checks over 100,000 keys cost enough for JIT, whose compiling took
-- most of this test's time and decides nothing of what is compared)
SET jit = off;

-- export, import into a new ring of the same profile and hashes, compare
-- the owners of 100,000 keys (a third of them with a hash tag), export
-- again
CREATE FUNCTION pg_temp.round_trip(src text, fmt text, opts jsonb,
								   OUT servers integer, OUT keys bigint, OUT owners bigint,
								   OUT unrouted bigint, OUT differing bigint, OUT fixed_point boolean)
	LANGUAGE plpgsql
	AS $$
DECLARE
	c record;
	first text;
	dst text := src || '_back';
BEGIN
	SELECT coalesce(r.key_hash, r.hash) AS key_hash, r.hash_tag INTO c FROM chash.ring_config r WHERE r.ring = src;
	-- (the upstream, backend or pool named alike in both)
	opts := opts || '{"name": "rt"}';
	first := chash_export(src, fmt, opts);
	IF fmt = 'nginx' THEN
		PERFORM chash_ring_create(dst, profile => 'nginx');
		servers := chash_ring_import(dst, 'nginx_upstream', first);
	ELSIF fmt = 'haproxy' THEN
		PERFORM chash_ring_create(dst, profile => 'haproxy', key_hash => c.key_hash);
		servers := chash_ring_import(dst, 'haproxy_backend', first);
	ELSE
		PERFORM chash_ring_create(dst, profile => 'twemproxy', key_hash => c.key_hash, hash_tag => c.hash_tag);
		servers := chash_ring_import(dst, 'twemproxy_pool', first);
	END IF;
	SELECT count(*), count(DISTINCT chash_lookup(src, k.k)),
		   count(*) FILTER (WHERE chash_lookup(src, k.k) IS NULL),
		   count(*) FILTER (WHERE chash_lookup(src, k.k) IS DISTINCT FROM chash_lookup(dst, k.k))
	INTO keys, owners, unrouted, differing
	FROM (SELECT 'key:' || g || CASE WHEN g % 3 = 0 THEN '{' || g % 97 || '}' ELSE '' END AS k
		  FROM generate_series(1, 100000) g) k;
	fixed_point := chash_export(dst, fmt, opts) = first;
	PERFORM chash_ring_drop(dst);
END
$$;
RESET client_min_messages;

--
-- nginx: an upstream block, "hash KEY consistent", the servers in order
-- with their weights (weight=1 left out) and down
--
SELECT chash_ring_create('ex_ng' || n, profile => 'nginx') FROM unnest(ARRAY[1, 2, 10, 100, 1000]) n;
SELECT count(chash_node_add('ex_ng' || n, format('127.1.%s.%s:20001', i / 250, i % 250 + 1),
							CASE WHEN n = 2 THEN i ELSE 1 + i * 7 % 5 END))
FROM unnest(ARRAY[1, 2, 10, 100, 1000]) n, generate_series(1, n) i;
-- some servers down: every fourth
SELECT count(chash_node_set(ring, node, state => 'down'))
FROM (SELECT ring, node, row_number() OVER (PARTITION BY ring ORDER BY ordinal) AS k
	  FROM chash.node_config WHERE ring IN ('ex_ng10', 'ex_ng100', 'ex_ng1000')) n
WHERE k % 4 = 2;
-- names with the characters nginx reads in quotes
SELECT chash_ring_create('ex_ngodd', profile => 'nginx');
SELECT count(chash_node_add('ex_ngodd', name, w))
FROM unnest(ARRAY['unix:/tmp/a b.sock', 'host;{x}', 'q"uote', 'back\slash', 'ünï:80', '#hash', 'it''s', '$var', 'plain:80'])
	 WITH ORDINALITY AS x(name, w);
SELECT chash_export('ex_ng10', options => '{"key": "$http_x_key", "name": "cache"}');
SELECT chash_export('ex_ngodd');
SELECT r AS ring, t.*
FROM unnest(ARRAY['ex_ng1', 'ex_ng2', 'ex_ng10', 'ex_ng100', 'ex_ng1000', 'ex_ngodd']) r,
	 pg_temp.round_trip(r, 'nginx', '{"key": "$http_x_key"}') t;

--
-- HAProxy: a backend section, the ring's key hash, each server with its
-- address (the node's name if it has none), its id (the node's ordinal),
-- its weight and disabled if down
--
SELECT chash_ring_create('ex_hp1', profile => 'haproxy'),
	   chash_ring_create('ex_hp2', profile => 'haproxy', key_hash => 'haproxy_sdbm'),
	   chash_ring_create('ex_hp10', profile => 'haproxy', key_hash => 'haproxy_djb2'),
	   chash_ring_create('ex_hp100', profile => 'haproxy', key_hash => 'crc32'),
	   chash_ring_create('ex_hp1000', profile => 'haproxy', key_hash => 'haproxy_wt6_avalanche');
SELECT count(chash_node_add('ex_hp' || n, 's' || i, 1 + i * 37 % 256,
							address => CASE WHEN i % 3 > 0 THEN format('127.0.0.1:%s', 20000 + i) END))
FROM unnest(ARRAY[1, 2, 10, 100, 1000]) n, generate_series(1, n) i;
SELECT count(chash_node_set(ring, node, state => 'down'))
FROM (SELECT ring, node, row_number() OVER (PARTITION BY ring ORDER BY ordinal) AS k
	  FROM chash.node_config WHERE ring IN ('ex_hp10', 'ex_hp100', 'ex_hp1000')) n
WHERE k % 4 = 2;
-- names of every character HAProxy takes, addresses in quotes
SELECT chash_ring_create('ex_hpodd', profile => 'haproxy', key_hash => 'haproxy_crc32_avalanche');
SELECT count(chash_node_add('ex_hpodd', name, w, address => a))
FROM unnest(ARRAY['a.b:c-d_e', 'S_1', 'ok', '9', 'z'],
			ARRAY['unix@/tmp/a b.sock', '#x:80', '$HOME:80', 'ü:1', 'q"uote:1']) WITH ORDINALITY AS x(name, a, w);
-- ids as HAProxy takes them (a node's ordinal is its server id): 1, 2, 3,
-- ... and in ex_hp10 1, 1001, 2001, ...
UPDATE chash.node_config c SET ordinal = n.k * CASE WHEN c.ring = 'ex_hp10' THEN 1000 ELSE 1 END
										 - CASE WHEN c.ring = 'ex_hp10' THEN 999 ELSE 0 END
FROM (SELECT ring, node, row_number() OVER (PARTITION BY ring ORDER BY ordinal) AS k
	  FROM chash.node_config WHERE ring LIKE 'ex\_hp%') n
WHERE c.ring = n.ring AND c.node = n.node;
SELECT chash_export('ex_hp10', options => '{"balance": "hdr(X-Key)", "name": "cache"}');
SELECT chash_export('ex_hpodd');
SELECT r AS ring, t.*
FROM unnest(ARRAY['ex_hp1', 'ex_hp2', 'ex_hp10', 'ex_hp100', 'ex_hp1000', 'ex_hpodd']) r,
	 pg_temp.round_trip(r, 'haproxy', '{"balance": "hdr(X-Key)"}') t;

--
-- twemproxy: a nutcracker pool, its hash and hash tag, each server as
-- 'address:weight name', without its name where nutcracker names it so
--
SELECT chash_ring_create('ex_tw1', profile => 'twemproxy'),
	   chash_ring_create('ex_tw2', profile => 'twemproxy', key_hash => 'crc32'),
	   chash_ring_create('ex_tw10', profile => 'twemproxy', key_hash => 'twemproxy_fnv1a_64', hash_tag => '{}'),
	   chash_ring_create('ex_tw100', profile => 'twemproxy', key_hash => 'twemproxy_murmur'),
	   chash_ring_create('ex_tw1000', profile => 'twemproxy', key_hash => 'twemproxy_one_at_a_time', hash_tag => '::');
-- named servers, and (every third) servers named after their address
SELECT count(chash_node_add('ex_tw' || n,
							CASE WHEN i % 3 = 0 THEN format('127.2.%s.%s:%s', i / 250, i % 250 + 1, 20000 + i)
								 ELSE 'cache-' || i END,
							1 + i * 7 % 5,
							address => CASE WHEN i % 3 = 1 THEN format('127.2.%s.%s:11211', i / 250, i % 250 + 1)
											WHEN i % 3 = 2 THEN format('127.2.%s.%s:%s', i / 250, i % 250 + 1, 20000 + i) END))
FROM unnest(ARRAY[1, 2, 10, 100, 1000]) n, generate_series(1, n) i;
-- names with odd characters (no white space: nutcracker reads the name
-- after the line's last space), servers named after their host on 11211
SELECT chash_ring_create('ex_twodd', profile => 'twemproxy', key_hash => 'md5', hash_tag => '''"');
SELECT count(chash_node_add('ex_twodd', name, w, address => a))
FROM unnest(ARRAY['it''s', 'ü', '#hash', 'a:b', '{x}', '"dq"', '127.0.0.7', 'sock', '-'],
			ARRAY['127.0.0.1:22001', '127.0.0.2:22002', '127.0.0.3:22003', '127.0.0.4:22004', '127.0.0.5:22005',
				  '127.0.0.6:22006', '127.0.0.7:11211', '/tmp/tw.sock', '127.0.0.8:22008'])
	 WITH ORDINALITY AS x(name, a, w);
SELECT chash_export('ex_tw10', options => '{"listen": "127.0.0.1:22122", "name": "cache"}');
SELECT chash_export('ex_twodd');
SELECT r AS ring, t.*
FROM unnest(ARRAY['ex_tw1', 'ex_tw2', 'ex_tw10', 'ex_tw100', 'ex_tw1000', 'ex_twodd']) r,
	 pg_temp.round_trip(r, 'twemproxy', '{}') t;

--
-- The format is the ring's profile unless given; options are checked
--
SELECT chash_export('ex_ng1') = chash_export('ex_ng1', 'nginx') AS nginx_by_profile,
	   chash_export('ex_hp1') = chash_export('ex_hp1', 'haproxy', '{}') AS haproxy_by_profile,
	   chash_export('ex_tw1') = chash_export('ex_tw1', NULL, '{"name": "ex_tw1", "listen": "127.0.0.1:22121"}') AS twemproxy_by_profile;
SELECT chash_export('ex_tw1', options => '{"listen": "/run/nutcracker.sock"}');
\set VERBOSITY default
SELECT chash_export(NULL);
SELECT chash_export('ex_ng1', 'nginx', NULL);
SELECT chash_export('ex_missing');
SELECT chash_ring_create('ex_plain', algorithm => 'nginx');
SELECT chash_node_add('ex_plain', '127.0.0.1:80');
SELECT chash_export('ex_plain');
SELECT chash_export('ex_ng1', 'envoy');
SELECT chash_ring_create('ex_redis', profile => 'redis_cluster');
SELECT chash_export('ex_redis');
SELECT chash_export('ex_ng1', options => '[]');
SELECT chash_export('ex_ng1', options => '{"listen": "127.0.0.1:1"}');
SELECT chash_export('ex_hp1', options => '{"key": "$uri"}');
SELECT chash_export('ex_ng1', options => '{"name": 7}');
SELECT chash_export('ex_ng1', options => '{"name": "a b"}');
SELECT chash_export('ex_ng1', options => '{"key": "$a;b"}');
SELECT chash_export('ex_ng1', options => jsonb_build_object('key', repeat('k', 1025)));
SELECT chash_export('ex_hp1', options => '{"balance": "roundrobin"}');
SELECT chash_export('ex_hp1', options => '{"balance": "uri\n    server x 1.2.3.4:80"}');
SELECT chash_export('ex_tw1', options => '{"listen": "nowhere"}');
-- a ring whose name is no upstream name needs the option
SELECT chash_ring_copy('ex_ng1', 'ex ng');
SELECT chash_export('ex ng');
SELECT chash_export('ex ng', options => '{"name": "ex_ng"}');
SELECT chash_ring_drop('ex ng');

--
-- What a format cannot express is refused, naming the setting
--
-- settings of another profile
SELECT chash_export('ex_hp1', 'nginx');
SELECT chash_export('ex_ng1', 'twemproxy');
SELECT chash_export('ex_tw1', 'haproxy');
SELECT chash_ring_create('ex_vn', algorithm => 'nginx', vnodes => 100);
SELECT chash_node_add('ex_vn', '127.0.0.1:80');
SELECT chash_export('ex_vn', 'nginx');
SELECT chash_ring_create('ex_first', algorithm => 'nginx', vnode_first => 1);
SELECT chash_node_add('ex_first', '127.0.0.1:80');
SELECT chash_export('ex_first', 'nginx');
SELECT chash_ring_create('ex_names', algorithm => 'haproxy', vnode_name => '{i}-{node}');
SELECT chash_node_add('ex_names', 's1');
SELECT chash_export('ex_names', 'haproxy');
SELECT chash_ring_create('ex_ketama', algorithm => 'ketama', ketama_variant => 'libmemcached');
SELECT chash_node_add('ex_ketama', '127.0.0.1:11211');
SELECT chash_export('ex_ketama', 'twemproxy');
SELECT chash_ring_create('ex_kxx', algorithm => 'ketama', ketama_variant => 'twemproxy', key_hash => 'murmur3_32');
SELECT chash_node_add('ex_kxx', '127.0.0.1:11211');
SELECT chash_export('ex_kxx', 'twemproxy');
SELECT chash_ring_create('ex_htag', algorithm => 'haproxy', key_hash => 'crc32', hash_tag => '{}');
SELECT chash_node_add('ex_htag', 's1');
SELECT chash_export('ex_htag', 'haproxy');
-- a node's own vnodes
SELECT chash_node_set('ex_ng2', '127.1.0.2:20001', vnodes => 5);
SELECT chash_export('ex_ng2');
UPDATE chash.node_config SET vnodes = NULL WHERE ring = 'ex_ng2';
-- weights the system lacks: nginx and HAProxy rings refuse them already,
-- a twemproxy ring takes any
\set VERBOSITY terse
SELECT chash_node_set('ex_ng2', '127.1.0.2:20001', weight => 1.5);
SELECT chash_node_set('ex_hp2', 's2', weight => 257);
\set VERBOSITY default
SELECT chash_node_set('ex_tw2', 'cache-2', weight => 0.5);
SELECT chash_export('ex_tw2');
SELECT chash_node_set('ex_tw2', 'cache-2', weight => 1);
-- names and addresses the format cannot write
SELECT chash_node_add('ex_ng2', E'tab\there');
SELECT chash_export('ex_ng2');
SELECT chash_node_remove('ex_ng2', E'tab\there');
SELECT chash_node_add('ex_hp1', 'a b', address => '127.0.0.1:1');
SELECT chash_export('ex_hp1');
SELECT chash_node_remove('ex_hp1', 'a b');
SELECT chash_node_add('ex_hp1', 'q', address => 'it''s here');
SELECT chash_export('ex_hp1');
SELECT chash_node_set('ex_hp1', 'q', address => E'new\nline');
SELECT chash_export('ex_hp1');
SELECT chash_node_remove('ex_hp1', 'q');
SELECT chash_node_add('ex_tw1', 'a b', address => '127.0.0.1:1');
SELECT chash_export('ex_tw1');
SELECT chash_node_remove('ex_tw1', 'a b');
SELECT chash_node_add('ex_tw1', 'no-address');
SELECT chash_export('ex_tw1');
SELECT chash_node_set('ex_tw1', 'no-address', address => 'host');
SELECT chash_export('ex_tw1');
SELECT chash_node_remove('ex_tw1', 'no-address');
-- HAProxy's server ids
UPDATE chash.node_config SET ordinal = 2147483648 WHERE ring = 'ex_hp2' AND node = 's1';
SELECT chash_export('ex_hp2');
UPDATE chash.node_config SET ordinal = 0 WHERE ring = 'ex_hp2' AND node = 's1';
SELECT chash_export('ex_hp2');
UPDATE chash.node_config SET ordinal = 5 WHERE ring = 'ex_hp2';
SELECT chash_export('ex_hp2');
-- a twemproxy server cannot be down
SELECT chash_node_set('ex_tw2', 'cache-1', state => 'down');
SELECT chash_export('ex_tw2');
-- a ring without nodes
SELECT chash_ring_create('ex_empty', profile => 'nginx');
SELECT chash_export('ex_empty');

--
-- The memcached clients: each server list in the client's own syntax (the
-- compat suite builds each client from it and routes 100,000 keys a
-- configuration); the format is the profile's
--
SELECT chash_ring_create('ex_c_' || p, profile => p)
FROM unnest(ARRAY['libmemcached', 'dalli', 'uhashring', 'hashring', 'spymemcached', 'pymemcache', 'groupcache']) p;
SELECT chash_node_add('ex_c_' || p, n, weight => w)
FROM unnest(ARRAY['libmemcached', 'dalli', 'uhashring', 'hashring']) p,
	 (VALUES ('10.0.0.1:11211', 2), ('cache-02.example.net:11300', 1), ('10.0.0.3', 5)) v(n, w);
SELECT chash_node_add('ex_c_' || p, n)
FROM unnest(ARRAY['spymemcached', 'pymemcache', 'groupcache']) p,
	 (VALUES ('10.0.0.1:11211'), ('10.0.0.2:11300')) v(n);
SELECT chash_node_add('ex_c_' || p, 'кэш "1"') FROM unnest(ARRAY['uhashring', 'hashring', 'groupcache']) p;
SELECT p AS format, chash_export('ex_c_' || p)
FROM unnest(ARRAY['libmemcached', 'dalli', 'uhashring', 'hashring', 'spymemcached', 'pymemcache', 'groupcache']) p;
SELECT chash_export('ex_c_dalli') = chash_export('ex_c_dalli', 'dalli', '{}') AS dalli_by_profile;
\set VERBOSITY default
-- settings of another profile, options, profiles without a format
SELECT chash_export('ex_c_dalli', 'libmemcached');
SELECT chash_export('ex_c_libmemcached', 'uhashring');
SELECT chash_export('ex_c_groupcache', 'hashring');
SELECT chash_ring_create('ex_c_gmd5', profile => 'groupcache', hash => 'md5');
SELECT chash_node_add('ex_c_gmd5', 'peer-1');
SELECT chash_export('ex_c_gmd5');
SELECT chash_ring_create('ex_c_spyw', profile => 'spymemcached_weighted');
SELECT chash_node_add('ex_c_spyw', '10.0.0.1:11211');
SELECT chash_export('ex_c_spyw');
SELECT chash_export('ex_c_spyw', 'spymemcached');
SELECT chash_export('ex_c_dalli', options => '{"name": "x"}');
-- a server that is down, or at an address apart from its name
SELECT chash_node_set('ex_c_dalli', '10.0.0.3', state => 'down');
SELECT chash_export('ex_c_dalli');
SELECT chash_node_set('ex_c_dalli', '10.0.0.3', state => 'active');
SELECT chash_node_set('ex_c_uhashring', '10.0.0.3', address => '10.9.9.9:11211');
SELECT chash_export('ex_c_uhashring');
-- weights the client lacks
SELECT chash_node_set('ex_c_libmemcached', '10.0.0.3', weight => 100000);
SELECT chash_export('ex_c_libmemcached');
SELECT chash_node_set('ex_c_libmemcached', '10.0.0.3', weight => 5);
SELECT chash_node_set('ex_c_hashring', '10.0.0.3', weight => 1.5);
SELECT chash_export('ex_c_hashring');
SELECT chash_node_set('ex_c_hashring', '10.0.0.3', weight => 1);
-- (spymemcached's and pymemcache's rings take none)
SELECT chash_node_set('ex_c_groupcache', '10.0.0.1:11211', weight => 2);
SELECT chash_export('ex_c_groupcache');
SELECT chash_node_set('ex_c_groupcache', '10.0.0.1:11211', weight => 1);
-- names the client's syntax cannot hold
SELECT chash_node_add('ex_c_' || p, n)
FROM (VALUES ('libmemcached', 'кэш-1'), ('dalli', 'a,b:11211'), ('spymemcached', 'cache-01:11211'),
			 ('pymemcache', 'a b:11211'), ('hashring', '42')) v(p, n);
SELECT chash_export('ex_c_libmemcached');
SELECT chash_export('ex_c_dalli');
SELECT chash_export('ex_c_spymemcached');
SELECT chash_export('ex_c_pymemcache');
SELECT chash_export('ex_c_hashring');
-- Envoy: a ring_hash cluster, hosts in order, a down node UNHEALTHY, names
-- that are not the address as Envoy prints it as hash_key
SELECT chash_ring_create('ex_env1', profile => 'envoy_ring_hash', vnodes => 4096);
SELECT chash_node_add('ex_env1', '10.0.0.1:8080');
SELECT chash_node_add('ex_env1', 'web "b"', weight => 3, address => '10.0.0.2:8080');
SELECT chash_node_add('ex_env1', 'ipv6', address => '[2001:db8::7]:8080');
SELECT chash_node_add('ex_env1', '[2001:db8::8]:8080', weight => 2);
SELECT chash_node_set('ex_env1', '10.0.0.1:8080', state => 'down');
SELECT chash_export('ex_env1');
-- maglev, the name option; the format is the ring's profile's system
SELECT chash_ring_create('ex_env2', profile => 'envoy_maglev', table_size => 655373);
SELECT chash_node_add('ex_env2', 'cache-' || i, weight => i, address => '10.1.0.' || i || ':11211')
FROM generate_series(1, 3) AS i;
SELECT chash_export('ex_env2', 'envoy', '{"name": "cache"}');
SELECT chash_export('ex_env2', 'envoy_maglev');
-- what Envoy cannot express: a setting of another profile, weights that
-- are not integers or sum past 2^32-1, addresses that are no ip:port, two
-- hosts at one address, no healthy host, two nodes at one place in the
-- ring_hash order, a table_size past Envoy's, a bad cluster name
SELECT chash_ring_create('ex_env3', algorithm => 'envoy_ring_hash', hash => 'xxh64', key_hash => 'xxh3_64', vnode_name => '{node}_{i}');
SELECT chash_node_add('ex_env3', '10.0.0.1:80');
SELECT chash_export('ex_env3', 'envoy');
SELECT chash_ring_create('ex_env4', algorithm => 'envoy_ring_hash', hash => 'xxh64', vnode_name => '{node}-{i}');
SELECT chash_node_add('ex_env4', '10.0.0.1:80');
SELECT chash_export('ex_env4');
SELECT chash_export('ex_env4', 'envoy');
SELECT chash_export('ex_hp1', 'envoy');
SELECT chash_node_set('ex_env2', 'cache-1', weight => 1.5);
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-1', weight => 4294967295);
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-1', weight => 1);
SELECT chash_node_set('ex_env2', 'cache-2', address => 'cache-2.example.net:11211');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.256:11211');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.02:11211');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.2:0');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.2');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '[2001:db8::g]:11211');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.3:11211');
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-2', address => '10.1.0.2:11211');
SELECT chash_node_add('ex_env2', 'no-address');
SELECT chash_export('ex_env2');
SELECT chash_node_remove('ex_env2', 'no-address');
SELECT chash_node_set('ex_env2', 'cache-' || i, state => 'down') FROM generate_series(1, 3) AS i;
SELECT chash_export('ex_env2');
SELECT chash_node_set('ex_env2', 'cache-' || i, state => 'active') FROM generate_series(1, 3) AS i;
UPDATE chash.node_config SET ordinal = 7 WHERE ring = 'ex_env1' AND node IN ('ipv6', 'web "b"');
SELECT chash_export('ex_env1');
SELECT chash_ring_create('ex_env5', profile => 'envoy_maglev', table_size => 5000077);
SELECT chash_node_add('ex_env5', '10.0.0.1:80');
SELECT chash_export('ex_env5');
SELECT chash_export('ex_env2', NULL, '{"name": "a b"}');
SELECT chash_export('ex_env2', NULL, '{"key": "x"}');
SELECT chash_ring_create('ex_env ring', profile => 'envoy_maglev');
SELECT chash_node_add('ex_env ring', '10.0.0.1:80');
SELECT chash_export('ex_env ring');

-- Elasticsearch: the index's settings and its shards' nodes; the routing
-- shards of the ring's table_size, else Elasticsearch's default for that
-- many shards (3: 768)
SELECT chash_ring_create('ex_es1', profile => 'elasticsearch');
SELECT chash_node_add('ex_es1', 'shard-' || i) FROM generate_series(0, 2) AS i;
SELECT chash_export('ex_es1');
SELECT chash_ring_create('ex_es2', profile => 'elasticsearch', table_size => 10);
-- (an index's shards at once: the routing shards are a multiple of their number)
INSERT INTO chash.node_config (ring, node) SELECT 'ex_es2', 'node ' || i FROM generate_series(1, 10) AS i ORDER BY i;
SELECT chash_export('ex_es2')::jsonb #> '{settings,index}' AS settings,
	   chash_export('ex_es2')::jsonb #> '{mappings,_meta,chash_shards}' AS shards;
-- the shards are the nodes in ordinal order: each key's shard by the
-- exported settings (floorMod(h, R) / (R / N), h the key's es_murmur3 as a
-- signed int) is the node chash_lookup gives
WITH e AS MATERIALIZED (SELECT chash_export('ex_es2')::jsonb AS body)
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('ex_es2', k) IS DISTINCT FROM
		   (e.body #>> ARRAY['mappings', '_meta', 'chash_shards',
			   ((((chash_hash('es_murmur3', k)::bigint + 2147483648) % 4294967296 - 2147483648)
				 % (e.body #>> '{settings,index,number_of_routing_shards}')::bigint
				 + (e.body #>> '{settings,index,number_of_routing_shards}')::bigint)
				% (e.body #>> '{settings,index,number_of_routing_shards}')::bigint
				/ ((e.body #>> '{settings,index,number_of_routing_shards}')::bigint
				   / (e.body #>> '{settings,index,number_of_shards}')::bigint))::text])) AS differing
FROM e, generate_series(1, 20000) AS g(i), LATERAL (SELECT 'doc-' || g.i AS k) x;
-- what an index cannot express (weights the ring itself refuses): a shard
-- down, two nodes at one place in the order, a setting of another profile
SELECT chash_node_set('ex_es1', 'shard-1', state => 'down');
SELECT chash_export('ex_es1');
SELECT chash_node_set('ex_es1', 'shard-1', state => 'active');
UPDATE chash.node_config SET ordinal = 1 WHERE ring = 'ex_es1';
SELECT chash_export('ex_es1');
SELECT chash_export('ex_env2', 'elasticsearch');
SELECT chash_export('ex_es1', 'cassandra');
SELECT chash_export('ex_es1', 'elasticsearch', '{"name": "x"}');

-- Cassandra: each node's num_tokens and initial_token, its rack where the
-- ring has zones; read back as nodetool ring shows the cluster, the ring
-- is the same: its nodes, tokens, racks and the owner of 100,000 keys
SELECT chash_ring_create('ex_ca1', profile => 'cassandra');
SELECT chash_node_add('ex_ca1', '10.0.0.1', tokens => ARRAY[-9000000000000000000, 3], zone => 'rack1');
SELECT chash_node_add('ex_ca1', '10.0.0.2', tokens => ARRAY[-5], zone => 'rack2');
SELECT chash_node_add('ex_ca1', 'named', address => '10.0.0.3', tokens => ARRAY[42, 9223372036854775807]);
SELECT chash_export('ex_ca1');
SELECT chash_ring_create('ex_ca2', profile => 'cassandra');
SELECT chash_node_add('ex_ca2', '10.0.1.' || i, zone => 'r' || i % 3,
	   tokens => (SELECT array_agg(chash_hash('cassandra_murmur3', 'tok ' || i || ' ' || j)) FROM generate_series(1, 16) AS j))
FROM generate_series(1, 12) AS i;
CREATE FUNCTION pg_temp.nodetool_ring(conf text) RETURNS text LANGUAGE sql AS $$
SELECT E'Datacenter: dc1\n==========\nAddress  Rack  Status State   Load  Owns  Token\n'
	   || string_agg(format(E'%s  %s  Up  Normal  1 KiB  ?  %s\n', n.node, coalesce(n.rack, 'rack1'), t), '' ORDER BY t)
FROM (SELECT substring(b FROM '# node: ([^\n]*)') AS node, substring(b FROM '# rack: ([^\n]*)') AS rack,
			 string_to_array(substring(b FROM 'initial_token: ([^\n]*)'), ',')::bigint[] AS tokens,
			 substring(b FROM 'num_tokens: ([0-9]+)')::integer AS num_tokens
	  FROM regexp_split_to_table(conf, E'\n(?=# node: )') AS b WHERE b ~ '^# node: ') n,
	 unnest(n.tokens) AS t
WHERE n.num_tokens = cardinality(n.tokens)
$$;
SELECT chash_ring_create('ex_ca2_back', profile => 'cassandra');
SELECT chash_ring_import('ex_ca2_back', 'nodetool_ring', pg_temp.nodetool_ring(chash_export('ex_ca2'))) AS imported;
SELECT count(*) AS nodes, count(*) FILTER (WHERE b.node IS NULL OR b.zone IS DISTINCT FROM a.zone
									  OR (SELECT array_agg(t ORDER BY t) FROM unnest(a.tokens) t)
										 IS DISTINCT FROM (SELECT array_agg(t ORDER BY t) FROM unnest(b.tokens) t)) AS differing
FROM chash.node_config a LEFT JOIN chash.node_config b ON b.ring = 'ex_ca2_back' AND b.node = a.node
WHERE a.ring = 'ex_ca2';
SELECT count(*) AS keys, count(DISTINCT chash_lookup('ex_ca2', 'key ' || i)) AS owners,
	   count(*) FILTER (WHERE chash_lookup('ex_ca2', 'key ' || i) IS DISTINCT FROM chash_lookup('ex_ca2_back', 'key ' || i)) AS differing
FROM generate_series(1, 100000) AS i;
-- what cassandra.yaml cannot express: a node down (it would own its
-- ranges still), a token twice, more than 1536 tokens, a setting of
-- another profile, a control character, an option
SELECT chash_node_set('ex_ca1', '10.0.0.2', state => 'down');
SELECT chash_export('ex_ca1');
SELECT chash_node_set('ex_ca1', '10.0.0.2', state => 'active', tokens => ARRAY[3]);
SELECT chash_export('ex_ca1');
SELECT chash_node_set('ex_ca1', '10.0.0.2', tokens => (SELECT array_agg(i) FROM generate_series(1000, 2536) AS i));
SELECT chash_export('ex_ca1');
SELECT chash_node_set('ex_ca1', '10.0.0.2', tokens => ARRAY[-5], zone => E'rack\n2');
SELECT chash_export('ex_ca1');
SELECT chash_ring_create('ex_ca3', algorithm => 'tokens', key_hash => 'cassandra_murmur3', lookup => 'predecessor');
SELECT chash_node_add('ex_ca3', '10.0.0.1', tokens => ARRAY[1]);
SELECT chash_export('ex_ca3', 'cassandra');
SELECT chash_export('ex_ca2', 'cassandra', '{"name": "x"}');
SELECT chash_ring_create('ex_ca4', profile => 'cassandra');
SELECT chash_export('ex_ca4');
\set VERBOSITY terse

SELECT count(chash_ring_drop(ring)) AS dropped FROM chash.ring_config WHERE ring LIKE 'ex\_%';
