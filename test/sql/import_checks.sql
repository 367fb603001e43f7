--
-- Imports and a node's arguments refuse what they cannot take, with an
-- error naming the line, key or argument, and change nothing; the import
-- helpers, which PUBLIC may execute (chash_ring_import calls them with the
-- caller's rights), check its privilege before they read their input;
-- chash.dollar_quote quotes any body.
--
-- Rings of this test are named ic_*, roles regress_chash_ic_*; everything
-- is dropped at the end.
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (11.3 CPU-seconds with JIT, 8.6 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;
SET client_min_messages = warning;
SELECT chash_ring_create('ic_redis', profile => 'redis_cluster'),
	   chash_ring_create('ic_cass', profile => 'cassandra'),
	   chash_ring_create('ic_tokens', algorithm => 'tokens'),
	   chash_ring_create('ic_slots', algorithm => 'slots', table_size => 100),
	   chash_ring_create('ic_ring');
CREATE ROLE regress_chash_ic_nobody;
CREATE ROLE regress_chash_ic_writer;
RESET client_min_messages;

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
	RETURN state || ' ' || msg ||
		coalesce(nullif(' | DETAIL: ' || detail, ' | DETAIL: '), '') ||
		coalesce(nullif(' | HINT: ' || hint, ' | HINT: '), '');
END
$$;

-- Everything a change could touch: the rows of the catalog tables of every
-- ic_* ring.  The view runs as its owner, so that a role without grants
-- can compare it too.
CREATE VIEW ic_fingerprint AS
SELECT md5(coalesce((SELECT string_agg(r::text, ',' ORDER BY ring)
					 FROM chash.ring_config r WHERE ring LIKE 'ic\_%'), '') ||
		   coalesce((SELECT string_agg(n::text, ',' ORDER BY ring, node)
					 FROM chash.node_config n WHERE ring LIKE 'ic\_%'), '')) AS f;
GRANT SELECT ON ic_fingerprint TO PUBLIC;

-- A refusal: its error, and whether the catalog is as it was before
CREATE FUNCTION pg_temp.refused(stmt text) RETURNS text
	LANGUAGE plpgsql
	AS $$
DECLARE
	before text := (SELECT f FROM ic_fingerprint);
	outcome text := pg_temp.expect_error(stmt);
BEGIN
	RETURN outcome || CASE WHEN (SELECT f FROM ic_fingerprint) = before THEN ' | unchanged'
						   ELSE ' | CHANGED' END;
END
$$;

-- The rings as imports and chash_node_add fill them
SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes', $$
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-8191
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 8192-16383
$$) AS masters;
SELECT chash_ring_import('ic_cass', 'nodetool_ring', $$
Datacenter: dc1
==========
Address         Rack        Status State   Load            Owns                Token
                                                                               9000000000000000000
10.0.1.1        r1          Up     Normal  112.36 KiB      ?                   -9000000000000000000
10.0.1.2        r2          Up     Normal  1.02 MiB        ?                   0
10.0.1.3        r1          Up     Normal  1.02 MiB        ?                   9000000000000000000
$$) AS nodes;
SELECT chash_node_add('ic_tokens', 't1', tokens => '{1, 100}'),
	   chash_node_add('ic_slots', 's1', slots => '{"[0,50)"}'),
	   chash_node_add('ic_ring', 'n1', zone => 'z1', target => 'shard_1');
SELECT ring, node, state, zone, target, tokens, slots FROM chash.node_config
WHERE ring LIKE 'ic\_%' ORDER BY ring, node;

--
-- The import helpers run for any role, as chash_ring_import does: each
-- checks its privilege before it reads its input
--
SELECT p.oid::regprocedure AS helper,
	   has_function_privilege('regress_chash_ic_nobody', p.oid, 'EXECUTE') AS nobody_may_execute
FROM pg_proc p
WHERE p.pronamespace = 'chash'::regnamespace
  AND p.proname IN ('replace_redis_masters', 'import_redis_cluster_nodes',
					'import_redis_cluster_shards', 'import_nodetool_ring',
					'check_import_privilege', 'check_redis_ring', 'resp_map',
					'replace_config_nodes', 'import_nginx_upstream', 'import_haproxy_backend',
					'import_twemproxy_pool', 'config_words', 'config_word', 'config_unescape', 'check_config_name',
					'yaml_scalar')
ORDER BY 1::text;

-- Inputs of 100,000 lines, shards and masters that a parse would take
-- seconds over, each ending in an error: a helper that read them would
-- answer with that error (or, for replace_redis_masters, with its check of
-- the arrays' lengths), one that checks the privilege first with 42501
CREATE TEMP TABLE ic_big AS
SELECT (SELECT string_agg(format('n%s 10.%s.%s.%s:6379@16379 master - 0 0 1 connected',
								 i, i / 65536, i / 256 % 256, i % 256), E'\n')
		FROM generate_series(1, 100000) i) || E'\nnot a line' AS nodes,
	   (SELECT '[' || string_agg(format('{"slots":[],"nodes":[{"id":"n%s","ip":"10.%s.%s.%s","port":6379,"role":"master","health":"online"}]}',
										i, i / 65536, i / 256 % 256, i % 256), ',')
		FROM generate_series(1, 100000) i) || ',"not a shard"]' AS shards,
	   (SELECT string_agg(format('10.%s.%s.%s r1 Up Normal 1 KiB ? %s',
								 i / 65536, i / 256 % 256, i % 256, i), E'\n')
		FROM generate_series(1, 100000) i) || E'\n10.9.9.9 r1 Up Normal 1 KiB ? 0x10' AS nodetool,
	   (SELECT array_agg('10.0.0.' || i) FROM generate_series(1, 100000) i) AS names;
GRANT SELECT ON ic_big TO regress_chash_ic_nobody, regress_chash_ic_writer;
SELECT octet_length(nodes) > 4000000 AS nodes_large, octet_length(shards) > 10000000 AS shards_large,
	   octet_length(nodetool) > 3000000 AS nodetool_large, cardinality(names) AS masters
FROM ic_big;

SET ROLE regress_chash_ic_nobody;
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_nodes('ic_redis', nodes) FROM ic_big$$);
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_shards('ic_redis', shards) FROM ic_big$$);
SELECT pg_temp.refused($$SELECT chash.import_nodetool_ring('ic_cass', nodetool, NULL) FROM ic_big$$);
SELECT pg_temp.refused($$SELECT chash.replace_redis_masters('ic_redis', names, '{active}', '{}') FROM ic_big$$);
-- small bad inputs, the same
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_nodes('ic_redis', 'not a line')$$);
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_shards('ic_redis', 'not JSON')$$);
SELECT pg_temp.refused($$SELECT chash.import_nodetool_ring('ic_cass', '10.0.1.1 r1 Up Normal 1 KiB ? 0x10', NULL)$$);
SELECT pg_temp.refused($$SELECT chash.import_nodetool_ring('ic_redis', 'x', 'dc1')$$);
SELECT pg_temp.refused($$SELECT chash.replace_redis_masters('ic_redis', '{a, b}', '{active}', '{}')$$);
-- and through chash_ring_import, as before
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes', nodes) FROM ic_big$$);
-- a NULL is still refused first, by each
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_nodes('ic_redis', NULL)$$);
SELECT pg_temp.refused($$SELECT chash.replace_redis_masters(NULL, '{}', '{}', '{}')$$);
SELECT pg_temp.refused($$SELECT chash.check_import_privilege(NULL)$$);
RESET ROLE;

-- Granted the table privileges, and nothing else, a role imports through
-- chash_ring_import and through the helpers alike
GRANT INSERT, UPDATE, DELETE ON chash.node_config TO regress_chash_ic_writer;
SET ROLE regress_chash_ic_writer;
SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes',
	'e7d1 127.0.0.1:30001@31001 master - 0 0 1 connected 0-16383') AS masters;
SELECT chash.import_redis_cluster_nodes('ic_redis',
	E'e7d1 127.0.0.1:30001@31001 master - 0 0 1 connected 0-8191\n67ed 127.0.0.1:30002@31002 master - 0 0 2 connected 8192-16383') AS masters;
-- and the helpers read its input: its errors are the input's
SELECT pg_temp.refused($$SELECT chash.import_redis_cluster_nodes('ic_redis', 'not a line')$$);
SELECT pg_temp.refused($$SELECT chash.replace_redis_masters('ic_redis', '{a, b}', '{active}', '{}')$$);
RESET ROLE;
REVOKE INSERT, UPDATE, DELETE ON chash.node_config FROM regress_chash_ic_writer;
SELECT node, state, slots FROM chash.node_config WHERE ring = 'ic_redis' ORDER BY node;

--
-- nodetool ring: a line of a node whose token is no decimal integer is
-- refused, naming it and its line, not taken for a note
--
SELECT t AS token,
	   pg_temp.refused(format($$SELECT chash_ring_import('ic_cass', 'nodetool_ring', %L)$$,
							  E'10.0.1.1  r1  Up  Normal  1 KiB  ?  1\n10.0.1.2  r1  Up  Normal  1 KiB  ?  ' || t)) AS outcome
FROM unnest(ARRAY['0x10', '300.0', '+5', '1e3', '.5', 'NaN', '1_000', 'abc']) t;
-- the five lines of the issue: the first bad one is named
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_cass', 'nodetool_ring', $i$
Address  Rack  Status  State   Load   Owns  Token
10.0.1.1  r1  Up  Normal  1 KiB  ?  1
10.0.1.2  r1  Up  Normal  1 KiB  ?  0x10
10.0.1.3  r1  Up  Normal  1 KiB  ?  300.0
10.0.1.4  r1  Up  Normal  1 KiB  ?  +5
10.0.1.5  r1  Up  Normal  1 KiB  ?  7
$i$)$$);
-- notes and the lone token above a data centre are still no token lines
SELECT chash_ring_import('ic_cass', 'nodetool_ring', $i$
Datacenter: dc1
==========
Address         Rack        Status State   Load            Owns                Token
                                                                               9000000000000000000
10.0.1.1        r1          Up     Normal  112.36 KiB      ?                   -9000000000000000000
10.0.1.2        r2          Up     Normal  1.02 MiB        ?                   0
10.0.1.3        r1          Up     Normal  1.02 MiB        ?                   9000000000000000000

  Warning: "nodetool ring" is used to output all the tokens of a node.
  To view status related info of a node use "nodetool status" instead.
$i$) AS nodes;

--
-- redis_cluster_shards: a key given twice in a shard or a node (which jsonb
-- would keep the last of) is refused, naming it
--
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,100],"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1","port":6379,"role":"master","health":"online"}]}]')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1","port":6379,"role":"master","health":"online"}],"nodes":[]}]')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1","ip":"10.0.0.2","port":6379,"role":"master","health":"online"}]}]')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"b","ip":"10.0.0.3","port":6380,"role":"replica","health":"online"},{"id":"a","ip":"10.0.0.1","port":6379,"role":"master","role":"replica","health":"online"}]}]')$$);
-- a RESP3 node in a RESP2 shard
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[["slots",[0,16383],"nodes",[{"id":"a","ip":"10.0.0.1","port":6379,"port":6380,"role":"master","health":"online"}]]]')$$);
-- the RESP2 form refused it before
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[["slots",[0,16383],"nodes",[["id","a","ip","10.0.0.1","ip","10.0.0.2","port",6379,"role","master","health","online"]]]]')$$);
-- without a key twice, as before
SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1","port":6379,"role":"master","health":"online"}]}]') AS masters;
SELECT node, state, slots FROM chash.node_config WHERE ring = 'ic_redis' ORDER BY node;

--
-- Addresses an import would make node names of: too long, with a control
-- character, or with a port of leading zeros (another name for the same
-- server)
--
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes', %L)$$,
	'e7d1 ' || repeat('h', 1020) || ':6379@16379 master - 0 0 1 connected 0-16383'));
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes', %L)$$,
	'e7d1 ' || repeat('é', 600) || ':6379@16379 master - 0 0 1 connected 0-16383'));
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes',
	E'e7d1 10.0.0.1\x01:6379@16379 master - 0 0 1 connected 0-16383')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes',
	E'e7d1 10.0.0.1\r:6379@16379 master - 0 0 1 connected 0-16383')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes',
	'e7d1 h:06379@16379 master - 0 0 1 connected 0-16383')$$);
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards', %L)$$,
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"' || repeat('h', 1020) || '","port":6379,"role":"master","health":"online"}]}]'));
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1\n","port":6379,"role":"master","health":"online"}]}]')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_redis', 'redis_cluster_shards',
	'[{"slots":[0,16383],"nodes":[{"id":"a","ip":"10.0.0.1","port":"06379","role":"master","health":"online"}]}]')$$);
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_cass', 'nodetool_ring', %L)$$,
	repeat('é', 600) || '  r1  Up  Normal  1 KiB  ?  1'));
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_cass', 'nodetool_ring',
	E'10.0.1.1\x7f  r1  Up  Normal  1 KiB  ?  1')$$);
-- a rack is a node's zone
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_cass', 'nodetool_ring',
	E'10.0.1.1  r\x1b[0m  Up  Normal  1 KiB  ?  1')$$);
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_cass', 'nodetool_ring', %L)$$,
	'10.0.1.1  ' || repeat('r', 1025) || '  Up  Normal  1 KiB  ?  1'));
-- at the bounds, taken
SELECT chash_ring_import('ic_redis', 'redis_cluster_nodes',
	'e7d1 ' || repeat('h', 1019) || ':6379@16379 master - 0 0 1 connected 0-16383') AS masters;
SELECT chash_ring_import('ic_cass', 'nodetool_ring',
	'10.0.1.1  ' || repeat('r', 1024) || '  Up  Normal  1 KiB  ?  1') AS nodes;
SELECT ring, octet_length(node) AS node_bytes, octet_length(zone) AS zone_bytes
FROM chash.node_config WHERE ring IN ('ic_redis', 'ic_cass') ORDER BY ring, node;

--
-- A node's tokens, slots, zone and target: an error naming the argument
-- and the node, by chash_node_add, chash_node_set and plain DML
--
SELECT a AS tokens, pg_temp.refused(format($$SELECT chash_node_add('ic_tokens', 't2', tokens => %L)$$, a)) AS outcome
FROM unnest(ARRAY['{}', '{NULL}', '{1, NULL}', '{{1}, {2}}']) a;
SELECT a AS tokens, pg_temp.refused(format($$SELECT chash_node_set('ic_tokens', 't1', tokens => %L)$$, a)) AS outcome
FROM unnest(ARRAY['{}', '{NULL}', '{{1}, {2}}']) a;
SELECT pg_temp.refused($$INSERT INTO chash.node_config (ring, node, tokens) VALUES ('ic_tokens', 't2', '{}')$$);
SELECT pg_temp.refused($$UPDATE chash.node_config SET tokens = '{5, NULL}' WHERE ring = 'ic_tokens'$$);
SELECT a AS slots, pg_temp.refused(format($$SELECT chash_node_add('ic_slots', 's2', slots => %L)$$, a)) AS outcome
FROM unnest(ARRAY['{empty}', '{"[-5,3)"}', '{NULL}', '{"[60,70)", "[80,)"}', '{"(,5)"}', '{{"[1,2)"}}']) a;
SELECT a AS slots, pg_temp.refused(format($$SELECT chash_node_set('ic_slots', 's1', slots => %L)$$, a)) AS outcome
FROM unnest(ARRAY['{empty}', '{"[-5,3)"}']) a;
SELECT pg_temp.refused($$SELECT chash_node_add('ic_ring', 'n2', zone => repeat('z', 1025))$$);
SELECT pg_temp.refused($$SELECT chash_node_add('ic_ring', 'n2', target => repeat('t', 1025))$$);
SELECT pg_temp.refused($$SELECT chash_node_set('ic_ring', 'n1', zone => repeat('z', 10000000))$$);
SELECT pg_temp.refused($$SELECT chash_node_set('ic_ring', 'n1', target => repeat('t', 1025))$$);
SELECT pg_temp.refused($$UPDATE chash.node_config SET zone = repeat('é', 513) WHERE ring = 'ic_ring'$$);
-- at the bounds, and an empty slot list (a node without slots), taken
SELECT chash_node_add('ic_ring', 'n2', zone => repeat('z', 1024), target => repeat('t', 1024)),
	   chash_node_set('ic_slots', 's1', slots => '{}'),
	   chash_node_set('ic_tokens', 't1', tokens => '{7}');
SELECT ring, node, octet_length(zone) AS zone_bytes, octet_length(target) AS target_bytes, tokens, slots
FROM chash.node_config WHERE ring IN ('ic_ring', 'ic_slots', 'ic_tokens') ORDER BY ring, node;
-- a value stored before these checks stays, while the node changes
-- otherwise
ALTER TABLE chash.node_config DISABLE TRIGGER node_config_check_values;
UPDATE chash.node_config SET zone = repeat('z', 2000) WHERE ring = 'ic_ring' AND node = 'n1';
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_values;
SELECT chash_node_set('ic_ring', 'n1', weight => 2, target => 'shard_1b');
SELECT node, weight, octet_length(zone) AS zone_bytes, target FROM chash.node_config
WHERE ring = 'ic_ring' AND node = 'n1';
-- the trigger is the extension's, as its others: no role may attach it
SELECT has_function_privilege('regress_chash_ic_nobody', 'chash.check_node_values()', 'EXECUTE')
	   AS nobody_may_attach;

--
-- chash.dollar_quote: SQL reads back the body, whatever it holds
--
CREATE FUNCTION pg_temp.read_back(body text) RETURNS text
	LANGUAGE plpgsql
	AS $$
DECLARE
	r text;
BEGIN
	EXECUTE 'SELECT ' || chash.dollar_quote(body) INTO r;
	RETURN r;
END
$$;
SELECT b AS body, chash.dollar_quote(b) AS quoted, pg_temp.read_back(b) = b AS reads_back
FROM unnest(ARRAY['plain', '', '$', 'x$chash', 'x$chash$', '$chash$', 'a$chash$b$chash',
				  'x$chash1', 'x$chash$y$chash1$z$chash2', '$chash$chash$chash']) b;

--
-- The configurations of nginx, HAProxy and twemproxy: an error naming the
-- line for what the format does not allow or chash cannot place as the
-- server does, and nothing changed (test/scripts/compat_servers.sh proves
-- what they take against the servers themselves)
--
SET client_min_messages = warning;
SELECT chash_ring_create('ic_nginx', profile => 'nginx'),
	   chash_ring_create('ic_haproxy', profile => 'haproxy'),
	   chash_ring_create('ic_twem', profile => 'twemproxy', key_hash => 'twemproxy_fnv1a_64', hash_tag => '{}');
RESET client_min_messages;
SELECT chash_ring_import('ic_nginx', 'nginx_upstream', $c$
# the cache tier
upstream cache {
    hash $request_uri consistent;   # by URI
    server 10.0.0.1:8080 weight=2;
    server "10.0.0.2:8080" max_fails=3 fail_timeout=10s max_conns=100;
    server unix:/run/app.sock down;
    keepalive 32;
}
$c$) AS servers;
SELECT chash_ring_import('ic_haproxy', 'haproxy_backend', $c$
backend app   # the application
    balance hdr(X-Key)
    hash-type consistent
    default-server inter 2s weight 2
    server a 10.0.0.1:80 check
    server b 10.0.0.2:80 id 3 weight 1
    server c "10.0.0.3:80"
    server d 10.0.0.4:80 disabled
    server e 10.0.0.5:80 id 2 cookie weight
    server f 10.0.0.6:80 weight 0
$c$) AS servers;
SELECT chash_ring_import('ic_twem', 'twemproxy_pool', $c$
# nutcracker.yml
alpha:
  listen: 127.0.0.1:22121
  hash: fnv1a_64
  hash_tag: "{}"
  distribution: ketama
  auto_eject_hosts: false
  servers:
   - 10.0.0.1:11211:1
   - '10.0.0.2:11212:2'
   - 10.0.0.3:11211:3 cache-3   # named
$c$) AS servers;
-- (the address is where the server is when the configuration names it
-- apart: HAProxy's servers, twemproxy's named servers and those of port
-- 11211; NULL for the others, whose names say where they are)
SELECT ring, node, weight, state, ordinal, address FROM chash.node_config
WHERE ring IN ('ic_nginx', 'ic_haproxy', 'ic_twem') ORDER BY ring, ordinal;
-- imported again: the servers of the input, nodes that stay keep their
-- zone, target and capacity, the others go; the address is the input's
SELECT chash_node_set('ic_nginx', '10.0.0.1:8080', zone => 'z1', target => 'shard_1', capacity => 2.5,
					  address => 'elsewhere:1');
SELECT chash_ring_import('ic_nginx', 'nginx_upstream',
	'upstream cache { hash $key consistent; server 10.0.0.9:8080; server 10.0.0.1:8080 weight=5; }') AS servers;
SELECT node, weight, state, ordinal, zone, target, capacity, address FROM chash.node_config WHERE ring = 'ic_nginx' ORDER BY ordinal;

-- nginx: every refusal, and nothing changed
SELECT i AS input, pg_temp.refused(format($$SELECT chash_ring_import('ic_nginx', 'nginx_upstream', %L)$$, i)) AS outcome
FROM unnest(ARRAY[
	'server 10.0.0.1:80;',
	'upstream u { hash $key; server 10.0.0.1:80; }',
	'upstream u { hash $key consistent extra; server 10.0.0.1:80; }',
	E'upstream u {\n hash $a consistent;\n hash $b consistent;\n server 10.0.0.1:80;\n}',
	'upstream u { ip_hash; server 10.0.0.1:80; }',
	'upstream u { least_conn; server 10.0.0.1:80; }',
	E'upstream u {\n hash $key consistent;\n server 10.0.0.1:80 backup;\n}',
	'upstream u { hash $key consistent; server 10.0.0.1:80 weight=0; }',
	'upstream u { hash $key consistent; server 10.0.0.1:80 weight=x; }',
	'upstream u { hash $key consistent; server 10.0.0.1:80 weight=1234567890; }',
	'upstream u { hash $key consistent; server 10.0.0.1:80 slow_start=10s; }',
	'upstream u { hash $key consistent; server 10.0.0.1:80 resolve; }',
	'upstream u { hash $key consistent; sticky cookie srv; server 10.0.0.1:80; }',
	'upstream u { hash $key consistent; proxy_pass http://x; server 10.0.0.1:80; }',
	'upstream u { server 10.0.0.1:80; }',
	'upstream u { hash $key consistent; keepalive 8; }',
	E'upstream u {\n hash $key consistent;\n server 10.0.0.1:80;\n server 10.0.0.2:80;\n server 10.0.0.1:80 weight=2;\n}',
	E'upstream u {\n hash $key consistent;\n server "10.0.0.1:80;\n}',
	'upstream u { hash $key consistent; server 10.0.0.1:80; } upstream v { }',
	'upstream u { hash $key consistent; server 10.0.0.1:80;',
	'upstream u { hash $key consistent; server 10.0.0.1:80 { } }',
	'upstream u { hash $key consistent; server; }',
	'upstream u { hash $key consistent; server "10.0.0.1:80\n"; }',
	'upstream u { hash $key consistent; server "";  }',
	'upstream u { hash $key consistent; ; }',
	-- taken, and refused by the ring's checks: the nodes it removed are back
	'upstream u { hash $key consistent; server 10.9.9.9:80 weight=500000; }',
	'']) i;
SELECT pg_temp.refused(format($$SELECT chash_ring_import('ic_nginx', 'nginx_upstream', %L)$$,
	'upstream u { hash $key consistent; server ' || repeat('h', 1025) || '; }')) AS outcome;
-- escapes and quotes as nginx reads them: the server text is the node
SELECT chash_ring_import('ic_nginx', 'nginx_upstream',
	$c$upstream u { hash $key consistent; server 'unix:/run/a b.sock'; server "10.0.0.1:80"  weight=3; server 10.0.0.2\:80;}$c$) AS servers;
SELECT node, weight, ordinal FROM chash.node_config WHERE ring = 'ic_nginx' ORDER BY ordinal;

-- HAProxy: every refusal, and nothing changed
SELECT i AS input, pg_temp.refused(format($$SELECT chash_ring_import('ic_haproxy', 'haproxy_backend', %L)$$, i)) AS outcome
FROM unnest(ARRAY[
	E'frontend f\n balance hdr(x)',
	E'backend\n balance uri',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80\nfrontend f\n bind :80',
	E'backend b\n balance roundrobin\n hash-type consistent\n server a 10.0.0.1:80',
	E'backend b\n balance random\n hash-type consistent\n server a 10.0.0.1:80',
	E'backend b\n balance\n hash-type consistent\n server a 10.0.0.1:80',
	E'backend b\n hash-type consistent\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type map-based\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent none\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent sdbm avalanche more\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent djb2\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 backup',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 weight 257',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 weight',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 id 0',
	E'backend b\n balance uri\n hash-type consistent\n default-server id 4\n server a 10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 id 2\n server b 10.0.0.2:80 id 2',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80\n server a 10.0.0.2:80',
	E'backend b\n balance uri\n hash-type consistent\n server a 10.0.0.1:80 hash-key addr',
	E'backend b\n balance uri\n hash-type consistent\n server a',
	E'backend b\n balance uri\n hash-type consistent\n server a "10.0.0.1:80',
	E'backend b\n balance uri\n hash-type consistent',
	'# nothing but a comment',
	'']) i;
-- the ring's key hash is the backend's: a ring of another is named
SELECT chash_ring_import('ic_haproxy', 'haproxy_backend', E'backend b\n balance uri whole\n hash-type consistent avalanche\n server a 10.0.0.1:80 id 7\n server b 10.0.0.2:80') AS servers;
SELECT node, weight, state, ordinal FROM chash.node_config WHERE ring = 'ic_haproxy' ORDER BY ordinal;

-- twemproxy: every refusal, and nothing changed
SELECT i AS input, pg_temp.refused(format($$SELECT chash_ring_import('ic_twem', 'twemproxy_pool', %L)$$, i)) AS outcome
FROM unnest(ARRAY[
	E'  servers:\n   - 10.0.0.1:11211:1',
	E'alpha: x\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash: fnv1a_64\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1\nbeta:\n  servers:\n   - 10.0.0.2:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  distribution: modula\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  distribution: random\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash: sha1\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash: md5\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{x}"\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  servers: [10.0.0.1:11211:1]',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:0',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1 a b',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - /tmp/mc.sock:1',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1\n   - 10.0.0.1:11211:2',
	E'alpha:\n  hash_tag: "{}"\n  servers:\n   - 10.0.0.1:11211:1 a\n   - 10.0.0.2:11211:1 a',
	E'alpha:\n\thash_tag: "{}"',
	E'alpha:\n  hash_tag: "{}"\n    timeout: 100\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  just words\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: [a]\n  servers:\n   - 10.0.0.1:11211:1',
	E'alpha:\n  hash_tag: "{}"\n  servers:',
	E'alpha:\n  hash_tag: "{}"',
	'']) i;
-- a named unix socket is its name; the pool's name and values quoted
SELECT chash_ring_import('ic_twem', 'twemproxy_pool',
	E'"alpha":\n  hash: ''fnv1a_64''\n  hash_tag: "{}"\n  servers:\n  - /tmp/mc.sock:2 local\n  - "10.0.0.1:22122:1"') AS servers;
SELECT node, weight, state, ordinal FROM chash.node_config WHERE ring = 'ic_twem' ORDER BY ordinal;

-- the ring must exist, with the format's profile
SELECT f AS format, pg_temp.refused(format($$SELECT chash_ring_import(%L, %L, 'x')$$, r, f)) AS outcome
FROM (VALUES ('ic_none', 'nginx_upstream'), ('ic_none', 'haproxy_backend'), ('ic_none', 'twemproxy_pool'),
			 ('ic_ring', 'nginx_upstream'), ('ic_ring', 'haproxy_backend'), ('ic_ring', 'twemproxy_pool')) v(r, f);
-- NULLs, a data centre, an unknown format
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_nginx', 'nginx_upstream', NULL)$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_nginx', NULL, 'upstream u { }')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import(NULL, 'haproxy_backend', 'backend b')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_twem', 'twemproxy_pool', 'alpha:', 'dc1')$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_twem', 'twemproxy', 'alpha:')$$);
SELECT pg_temp.refused($$SELECT chash.import_haproxy_backend('ic_haproxy', NULL)$$);
SELECT pg_temp.refused($$SELECT chash.replace_config_nodes('ic_nginx', '{a}', '{1}', '{active}', NULL, '{NULL}')$$);
SELECT pg_temp.refused($$SELECT chash.replace_config_nodes('ic_nginx', '{a, b}', '{1}', '{active}', '{1}', '{NULL}')$$);

-- Inputs of 100,000 servers ending in an error: refused to a role without
-- the privilege before they are read, and read in linear time by one with
-- it (a second or two, where a parse that searched the servers read so far
-- for each would take minutes)
CREATE TEMP TABLE ic_big_configs AS
SELECT 'upstream u { hash $key consistent; ' ||
	   (SELECT string_agg(format('server 10.%s.%s.%s:80 weight=2;', i / 65536, i / 256 % 256, i % 256), E'\n')
		FROM generate_series(1, 100000) i) || ' server 10.0.0.1:80 backup; }' AS nginx,
	   E'backend b\n balance uri\n hash-type consistent\n' ||
	   (SELECT string_agg(format(' server s%s 10.%s.%s.%s:80 check weight 2', i, i / 65536, i / 256 % 256, i % 256), E'\n')
		FROM generate_series(1, 100000) i) || E'\n server s1 10.0.0.1:80' AS haproxy,
	   E'alpha:\n  hash_tag: "{}"\n  servers:\n' ||
	   (SELECT string_agg(format('   - 10.%s.%s.%s:11211:1', i / 65536, i / 256 % 256, i % 256), E'\n')
		FROM generate_series(1, 100000) i) || E'\n   - 10.0.0.1:11211:0' AS twemproxy;
GRANT SELECT ON ic_big_configs TO regress_chash_ic_nobody, regress_chash_ic_writer;
SET ROLE regress_chash_ic_nobody;
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_nginx', 'nginx_upstream', nginx) FROM ic_big_configs$$);
SELECT pg_temp.refused($$SELECT chash.import_haproxy_backend('ic_haproxy', haproxy) FROM ic_big_configs$$);
SELECT pg_temp.refused($$SELECT chash.import_twemproxy_pool('ic_twem', twemproxy) FROM ic_big_configs$$);
SELECT pg_temp.refused($$SELECT chash.replace_config_nodes('ic_nginx', '{a}', '{1}', '{active}', '{1}', '{NULL}')$$);
RESET ROLE;
GRANT INSERT, UPDATE, DELETE ON chash.node_config TO regress_chash_ic_writer;
SET ROLE regress_chash_ic_writer;
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_nginx', 'nginx_upstream', nginx) FROM ic_big_configs$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_haproxy', 'haproxy_backend', haproxy) FROM ic_big_configs$$);
SELECT pg_temp.refused($$SELECT chash_ring_import('ic_twem', 'twemproxy_pool', twemproxy) FROM ic_big_configs$$);
-- and imports what it may
SELECT chash_ring_import('ic_haproxy', 'haproxy_backend', E'backend b\n balance uri\n hash-type consistent avalanche\n server w 10.0.0.1:80') AS servers;
RESET ROLE;
REVOKE INSERT, UPDATE, DELETE ON chash.node_config FROM regress_chash_ic_writer;
SELECT node, ordinal FROM chash.node_config WHERE ring = 'ic_haproxy' ORDER BY node;
DROP TABLE ic_big_configs;

-- Clean up
SELECT chash_ring_drop(r) FROM unnest(ARRAY['ic_redis', 'ic_cass', 'ic_tokens', 'ic_slots', 'ic_ring',
										   'ic_nginx', 'ic_haproxy', 'ic_twem']) r;
DROP VIEW ic_fingerprint;
DROP TABLE ic_big;
DROP ROLE regress_chash_ic_nobody;
DROP ROLE regress_chash_ic_writer;
