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
