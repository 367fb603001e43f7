--
-- chash_export_plan for the systems that load a whole configuration:
-- step 1 the new configuration (chash_export of to_ring), step 2 what
-- moves between each pair of servers, step 3 (options relation and
-- key_column) every key that changes server, for warming a cache.  Each
-- is checked against what it comes from: the export and chash_moved_keys.
--
SET client_min_messages = warning;
SELECT chash_ring_create('epc_a', profile => 'nginx');
SELECT chash_node_add('epc_a', '10.0.0.' || i || ':80', weight => i) FROM generate_series(1, 3) i;
SELECT chash_ring_copy('epc_a', 'epc_b');
SELECT chash_node_add('epc_b', '10.0.0.4:80');
SELECT chash_node_remove('epc_b', '10.0.0.1:80');
CREATE TABLE epc_keys (id integer PRIMARY KEY);
INSERT INTO epc_keys SELECT generate_series(1, 10000);

-- step 1 is the export of to_ring with the format's options
SELECT step, target, command = chash_export('epc_b', 'nginx', '{"key": "$http_x_key"}') AS is_export
FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"key": "$http_x_key"}') WHERE step = 1;
-- step 2: the shares of the hash space that change owner, as
-- chash_move_summary gives them
SELECT step, target, command FROM chash_export_plan('epc_a', 'epc_b') WHERE step = 2 ORDER BY target, command;
-- with a relation: per pair the keys, then each key, exactly those of
-- chash_moved_keys, on its new server
SELECT step, target, command FROM chash_export_plan('epc_a', 'epc_b', options => '{"relation": "public.epc_keys", "key_column": "id"}')
WHERE step = 2 ORDER BY target, command;
SELECT (SELECT count(*) FROM chash_export_plan('epc_a', 'epc_b', options => '{"relation": "public.epc_keys", "key_column": "id"}') WHERE step = 3) AS listed,
	   (SELECT count(*) FROM chash_moved_keys('epc_a', 'epc_b', 'epc_keys', 'id') AS (key integer, from_node text, to_node text)) AS moved,
	   (SELECT count(*) FROM (SELECT target, command::integer FROM chash_export_plan('epc_a', 'epc_b', options => '{"relation": "public.epc_keys", "key_column": "id"}') WHERE step = 3
							   EXCEPT SELECT chash_lookup('epc_b', id), id FROM epc_keys WHERE chash_lookup('epc_a', id) <> chash_lookup('epc_b', id)) x) AS not_moving,
	   (SELECT count(*) FROM epc_keys WHERE chash_lookup('epc_a', id) <> chash_lookup('epc_b', id)) AS changing;

-- a client whose rings compare key by key: without a relation, a row says so
SELECT chash_ring_create('epc_p', profile => 'pymemcache');
SELECT chash_node_add('epc_p', '10.0.1.' || i || ':11211') FROM generate_series(1, 4) i;
SELECT chash_ring_copy('epc_p', 'epc_q');
SELECT chash_node_remove('epc_q', '10.0.1.2:11211');
SELECT * FROM chash_export_plan('epc_p', 'epc_q');
SELECT step, count(*), count(DISTINCT target)
FROM chash_export_plan('epc_p', 'epc_q', options => '{"relation": "public.epc_keys", "key_column": "id"}')
GROUP BY step ORDER BY step;
-- ... and the keys listed are those that were on the server that left
SELECT count(*) FILTER (WHERE chash_lookup('epc_p', command::integer) <> '10.0.1.2:11211') AS from_others,
	   count(*) = (SELECT count(*) FROM epc_keys WHERE chash_lookup('epc_p', id) = '10.0.1.2:11211') AS all_of_it
FROM chash_export_plan('epc_p', 'epc_q', options => '{"relation": "public.epc_keys", "key_column": "id"}') WHERE step = 3;

-- refusals: a running configuration the format cannot express, options
\set VERBOSITY default
SELECT * FROM chash_export_plan('epc_p', 'epc_b', 'nginx');
SELECT * FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"relation": "public.epc_keys"}');
SELECT * FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"relation": "epc_keys", "key_column": "id"}');
SELECT * FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"relation": "public.epc_keys", "key_column": "nope"}');
SELECT * FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"relation": "public.epc_keys", "key_column": 7}');
SELECT * FROM chash_export_plan('epc_a', 'epc_b', 'nginx', '{"listen": "127.0.0.1:1"}');
\set VERBOSITY terse

-- Cassandra: nodes join (their initial_token lines), nodes of one token
-- move, nodes leave, one at a time in that order; carried out on the
-- token map of from_ring, the steps give to_ring's
SELECT chash_ring_create('epc_ca', profile => 'cassandra');
SELECT chash_node_add('epc_ca', '10.0.2.' || i, tokens => ARRAY[(i * 3 - 10)::bigint * 1000000000000000000])
FROM generate_series(1, 6) i;
SELECT chash_ring_copy('epc_ca', 'epc_cb');
SELECT chash_node_set('epc_cb', '10.0.2.2', tokens => ARRAY[-2500000000000000000]);
SELECT chash_node_set('epc_cb', '10.0.2.5', tokens => ARRAY[6500000000000000000]);
SELECT chash_node_add('epc_cb', 'new-1', address => '10.0.2.7',
					  tokens => ARRAY[-8000000000000000000, -100, 100, 7500000000000000000]);
SELECT chash_node_remove('epc_cb', '10.0.2.4');
SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra');
WITH plan AS (SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra')),
	 joined AS (SELECT p.target AS address, t::bigint AS token FROM plan p,
					   unnest(string_to_array(substring(p.command FROM 'initial_token: ([-0-9,]+)'), ',')) t
				WHERE p.command LIKE '# join:%'),
	 moved AS (SELECT p.target AS address, substring(p.command FROM 'move -- (-?[0-9]+)$')::bigint AS token
			   FROM plan p WHERE p.command LIKE '# move:%'),
	 left_ AS (SELECT p.target AS address FROM plan p WHERE p.command LIKE '# leave:%'),
	 after AS (SELECT coalesce(c.address, c.node) AS address, coalesce(m.token, t) AS token
			   FROM chash.node_config c CROSS JOIN unnest(c.tokens) t
			   LEFT JOIN moved m ON m.address = coalesce(c.address, c.node)
			   WHERE c.ring = 'epc_ca' AND coalesce(c.address, c.node) NOT IN (SELECT address FROM left_)
			   UNION ALL SELECT address, token FROM joined),
	 wanted AS (SELECT coalesce(c.address, c.node) AS address, t AS token
				FROM chash.node_config c CROSS JOIN unnest(c.tokens) t WHERE c.ring = 'epc_cb')
SELECT (SELECT count(*) FROM wanted) AS tokens,
	   (SELECT count(*) FROM (SELECT * FROM after EXCEPT SELECT * FROM wanted) x)
	   + (SELECT count(*) FROM (SELECT * FROM wanted EXCEPT SELECT * FROM after) x) AS differing,
	   (SELECT array_agg(split_part(command, ':', 1) ORDER BY step) FROM plan) AS kinds;
\set VERBOSITY default
SELECT chash_node_set('epc_cb', '10.0.2.1', tokens => ARRAY[1, 2]);
SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra');
SELECT chash_node_set('epc_cb', '10.0.2.1', tokens => ARRAY[-7000000000000000000]);
SELECT chash_node_set('epc_cb', 'new-1', address => 'h; rm -rf /');
SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra');
SELECT chash_node_set('epc_cb', 'new-1', address => '10.0.2.7', state => 'down');
SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra');
SELECT * FROM chash_export_plan('epc_ca', 'epc_cb', 'cassandra', '{"x": 1}');
\set VERBOSITY terse

DROP TABLE epc_keys;
SELECT count(chash_ring_drop(ring)) AS dropped FROM chash.ring_config WHERE ring LIKE 'epc\_%';
