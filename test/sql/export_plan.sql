-- chash_export(ring, 'redis_cluster') and chash_export_plan: the steps of
-- Redis Cluster reshardings, and every refusal (export_redis.sh carries
-- the redis_cli script out on a real cluster)
\set VERBOSITY default
SELECT chash_ring_create('rc_a', profile => 'redis_cluster');
SELECT chash_ring_import('rc_a', 'redis_cluster_nodes', $$
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-5460
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 10.0.0.2:6379@16379 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 10.0.0.3:6379@16379 master - 0 1426238318243 3 connected 10923-16383
$$);
-- a new cluster: one ADDSLOTSRANGE line per master, its ranges
SELECT chash_export('rc_a');
SELECT chash_export('rc_a', 'redis_cluster');
-- add: a 4th master takes slots 0-99 and 5461-5560
SELECT chash_ring_copy('rc_a', 'rc_add');
SELECT chash_node_set('rc_add', '10.0.0.1:6379', slots => '{"[100,5461)"}');
SELECT chash_node_set('rc_add', '10.0.0.2:6379', slots => '{"[5561,10923)"}');
SELECT chash_node_add('rc_add', '10.0.0.4:6379', slots => '{"[0,100)","[5461,5561)"}');
SELECT chash_export('rc_add');
SELECT * FROM chash_export_plan('rc_a', 'rc_add');
-- the same steps and targets in both formats; redis_cli has its functions as step 0
SELECT count(*) AS steps,
	   bool_and(c.target IS NOT DISTINCT FROM r.target) AS same_targets,
	   bool_and(r.step = 0 OR r.command LIKE 'step ' || r.step || ' %') AS numbered
FROM chash_export_plan('rc_a', 'rc_add', 'redis_cli') r
LEFT JOIN chash_export_plan('rc_a', 'rc_add') c USING (step);
SELECT step, target, command FROM chash_export_plan('rc_a', 'rc_add', 'redis_cli') WHERE step > 0;
SELECT command LIKE '#!/usr/bin/env bash%set -euo pipefail%' AS script,
	   right(command, 60) AS last_line
FROM chash_export_plan('rc_a', 'rc_add', 'redis_cli') WHERE step = 0;
-- move: slots 100-199 from the 1st master to the 3rd, no master met or forgotten
SELECT chash_ring_copy('rc_a', 'rc_move');
SELECT chash_node_set('rc_move', '10.0.0.1:6379', slots => '{"[0,100)","[200,5461)"}');
SELECT chash_node_set('rc_move', '10.0.0.3:6379', slots => '{"[100,200)","[10923,16384)"}');
SELECT * FROM chash_export_plan('rc_a', 'rc_move');
-- remove: the 2nd master drained into the 1st and the 3rd, then forgotten
SELECT chash_ring_copy('rc_a', 'rc_remove');
SELECT chash_node_remove('rc_remove', '10.0.0.2:6379');
SELECT chash_node_set('rc_remove', '10.0.0.1:6379', slots => '{"[0,8192)"}');
SELECT chash_node_set('rc_remove', '10.0.0.3:6379', slots => '{"[8192,16384)"}');
SELECT * FROM chash_export_plan('rc_a', 'rc_remove');
-- nothing to change: no step (redis_cli: its functions only)
SELECT chash_ring_copy('rc_a', 'rc_same');
SELECT count(*) FROM chash_export_plan('rc_a', 'rc_same');
SELECT array_agg(step) FROM chash_export_plan('rc_a', 'rc_same', 'redis_cli');

-- refusals: nothing is written, a clear error
SELECT chash_export_plan(NULL, 'rc_add');
SELECT chash_export_plan('rc_a', 'rc_add', NULL, NULL);
SELECT chash_export_plan('rc_nope', 'rc_add');
SELECT chash_export_plan('rc_a', 'rc_nope');
SELECT chash_export_plan('rc_a', 'rc_a');
SELECT chash_export_plan('rc_a', 'rc_add', 'nginx');
SELECT chash_export_plan('rc_a', 'rc_add', 'redis_cli', '[]');
SELECT chash_export_plan('rc_a', 'rc_add', 'redis_cli', '{"batch": "10"}');
-- a ring of another algorithm, with and without a profile
SELECT chash_ring_create('rc_ketama', profile => 'twemproxy');
SELECT chash_node_add('rc_ketama', '10.0.0.1:6379');
SELECT chash_export_plan('rc_a', 'rc_ketama');
SELECT chash_export_plan('rc_a', 'rc_ketama', 'redis_cluster');
SELECT chash_export('rc_ketama', 'redis_cluster');
SELECT chash_ring_create('rc_plain', 'ring');
SELECT chash_node_add('rc_plain', '10.0.0.1:6379');
SELECT chash_export_plan('rc_a', 'rc_plain');
-- slots, but not 16384 of them, or not hashed as Redis does
SELECT chash_ring_create('rc_small', 'slots', table_size => 1024);
SELECT chash_node_add('rc_small', '10.0.0.1:6379');
SELECT chash_export_plan('rc_a', 'rc_small', 'redis_cluster');
SELECT chash_export('rc_small', 'redis_cluster');
SELECT chash_ring_create('rc_hash', 'slots', hash => 'xxh3_64', table_size => 16384);
SELECT chash_node_add('rc_hash', '10.0.0.1:6379');
SELECT chash_export_plan('rc_a', 'rc_hash', 'redis_cluster');
-- a slot without a master, in either ring
SELECT chash_ring_copy('rc_a', 'rc_hole');
SELECT chash_node_set('rc_hole', '10.0.0.1:6379', slots => '{"[0,5000)"}');
SELECT chash_export('rc_hole');
SELECT chash_export_plan('rc_a', 'rc_hole');
SELECT chash_export_plan('rc_hole', 'rc_a');
-- a master that is down
SELECT chash_ring_copy('rc_add', 'rc_down');
SELECT chash_node_set('rc_down', '10.0.0.4:6379', state => 'down');
SELECT chash_export_plan('rc_a', 'rc_down');
-- a node not at host:port, or two at one address
SELECT chash_ring_copy('rc_a', 'rc_name');
SELECT chash_node_set('rc_name', '10.0.0.3:6379', address => 'redis three');
SELECT chash_export_plan('rc_a', 'rc_name');
SELECT chash_node_set('rc_name', '10.0.0.3:6379', address => '10.0.0.3:70000');
SELECT chash_export_plan('rc_a', 'rc_name');
SELECT chash_node_set('rc_name', '10.0.0.3:6379', address => '10.0.0.1:6379');
SELECT chash_export_plan('rc_a', 'rc_name');
-- a name with a control character cannot be exported
SELECT chash_ring_copy('rc_a', 'rc_ctl');
SELECT chash_node_set('rc_ctl', '10.0.0.3:6379', address => E'10.0.0.3:6379\n');
SELECT chash_export('rc_ctl');
SELECT chash_export('rc_a', 'redis_cluster', '{"name": "x"}');
-- no export or plan changed a ring
SELECT ring, count(*) FROM chash.node_config WHERE ring LIKE 'rc\_%' GROUP BY ring ORDER BY ring;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config WHERE ring LIKE 'rc\_%';

-- haproxy_runtime: the HAProxy Runtime API commands that take a backend
-- loaded from chash_export(from_ring, 'haproxy') to to_ring without a
-- reload (export_haproxy.sh sends them to a real HAProxy)
SELECT chash_ring_create('hp_a', profile => 'haproxy');
SELECT chash_node_add('hp_a', 'web' || i, i, address => '10.0.1.' || i || ':80') FROM generate_series(1, 4) i;
UPDATE chash.node_config SET ordinal = substr(node, 4)::bigint WHERE ring = 'hp_a';
\pset format unaligned
\pset tuples_only on
SELECT chash_export('hp_a');
\pset format aligned
\pset tuples_only off
-- weights, a server disabled, one enabled: set server only
SELECT chash_ring_copy('hp_a', 'hp_w');
SELECT chash_node_set('hp_w', 'web1', weight => 256);
SELECT chash_node_set('hp_w', 'web4', weight => 1);
SELECT chash_node_set('hp_w', 'web2', state => 'down');
SELECT * FROM chash_export_plan('hp_a', 'hp_w') WHERE step > 0;
SELECT * FROM chash_export_plan('hp_w', 'hp_a') WHERE step > 0;
-- step 0 (the format by default for a ring of profile haproxy): not a
-- command, it says how to send the others and what a re-run does
SELECT step, target, command FROM chash_export_plan('hp_a', 'hp_w') WHERE step = 0;
-- a server added (HAProxy adds it in maintenance: then made ready), one
-- added down (left in maintenance), one removed
SELECT chash_ring_copy('hp_a', 'hp_grow');
SELECT chash_node_add('hp_grow', 'web5', 3, address => '10.0.1.5:80');
SELECT chash_node_add('hp_grow', 'web6', 2, address => 'unix@/run/web6.sock');
SELECT chash_node_set('hp_grow', 'web6', state => 'down');
SELECT chash_node_remove('hp_grow', 'web3');
UPDATE chash.node_config SET ordinal = substr(node, 4)::bigint WHERE ring = 'hp_grow';
SELECT * FROM chash_export_plan('hp_a', 'hp_grow', 'haproxy_runtime', '{"backend": "app"}') WHERE step > 0;
-- a new id or a new address: the server deleted and added again
SELECT chash_ring_copy('hp_a', 'hp_moved');
UPDATE chash.node_config SET ordinal = 40 WHERE ring = 'hp_moved' AND node = 'web4';
SELECT chash_node_set('hp_moved', 'web1', address => '[2001:db8::1]:8080');
SELECT * FROM chash_export_plan('hp_a', 'hp_moved') WHERE step > 0;
-- nothing to change: step 0 only
SELECT chash_ring_copy('hp_a', 'hp_same');
SELECT array_agg(step) FROM chash_export_plan('hp_a', 'hp_same');

-- haproxy_runtime's refusals
SELECT chash_export_plan('hp_a', 'hp_a', 'haproxy_runtime');
SELECT chash_export_plan('hp_a', 'hp_w', 'haproxy_runtime', '{"name": "app"}');
SELECT chash_export_plan('hp_a', 'hp_w', 'haproxy_runtime', '{"backend": 7}');
SELECT chash_export_plan('hp_a', 'hp_w', 'haproxy_runtime', '{"backend": "my app"}');
SELECT chash_export_plan('hp_a', 'hp_w', 'redis_cli', '{"backend": "app"}');
-- a from_ring whose name is no backend name: give the backend
SELECT chash_ring_copy('hp_a', 'hp a');
SELECT chash_export_plan('hp a', 'hp_w');
SELECT count(*) FROM chash_export_plan('hp a', 'hp_w', options => '{"backend": "hp_a"}');
-- the key hash: HAProxy reads hash-type from its configuration only
SELECT chash_ring_create('hp_djb2', profile => 'haproxy', key_hash => 'haproxy_djb2');
SELECT chash_node_add('hp_djb2', 'web1', address => '10.0.1.1:80');
UPDATE chash.node_config SET ordinal = 1 WHERE ring = 'hp_djb2';
SELECT chash_export_plan('hp_a', 'hp_djb2');
-- a ring HAProxy does not place keys as, in either place
SELECT chash_ring_create('hp_nginx', profile => 'nginx');
SELECT chash_node_add('hp_nginx', 'web1');
SELECT chash_export_plan('hp_a', 'hp_nginx', 'haproxy_runtime');
SELECT chash_export_plan('hp_nginx', 'hp_a');
-- a name HAProxy does not take, an id two servers share (a weight it
-- lacks, 0 or past 256, a ring of profile haproxy refuses itself)
SELECT chash_ring_copy('hp_a', 'hp_bad');
SELECT chash_node_add('hp_bad', 'web 7', address => '10.0.1.7:80');
SELECT chash_export_plan('hp_a', 'hp_bad');
SELECT chash_node_remove('hp_bad', 'web 7');
UPDATE chash.node_config SET ordinal = 2 WHERE ring = 'hp_bad' AND node = 'web1';
SELECT chash_export_plan('hp_a', 'hp_bad');
-- no server left
SELECT chash_ring_create('hp_empty', profile => 'haproxy');
SELECT chash_export_plan('hp_a', 'hp_empty');
-- a server added at a host name (HAProxy 2.6 would leave it unresolved),
-- by default at its name; a host name that stays is no change
SELECT chash_ring_copy('hp_a', 'hp_host');
SELECT chash_node_add('hp_host', 'web5');
UPDATE chash.node_config SET ordinal = 5 WHERE ring = 'hp_host' AND node = 'web5';
SELECT chash_export_plan('hp_a', 'hp_host');
SELECT chash_node_set('hp_host', 'web5', address => 'web5.example.com:80');
SELECT chash_export_plan('hp_a', 'hp_host');
SELECT chash_node_set('hp_host', 'web2', address => 'web2.example.com:80');
SELECT chash_node_remove('hp_host', 'web5');
SELECT chash_export_plan('hp_a', 'hp_host');
SELECT chash_ring_copy('hp_host', 'hp_host2');
SELECT chash_node_set('hp_host2', 'web1', weight => 2);
SELECT * FROM chash_export_plan('hp_host', 'hp_host2') WHERE step > 0;
-- no plan changed a ring
SELECT ring, count(*), sum(weight) FROM chash.node_config WHERE ring LIKE 'hp%' GROUP BY ring ORDER BY ring;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config WHERE ring LIKE 'hp%';
