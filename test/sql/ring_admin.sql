--
-- Creating, changing and dropping rings and nodes, through the functions
-- and through plain DML on the catalog tables.
--

-- Ordinals come from a sequence that earlier suites draw from too: start it
-- where this suite's output does not depend on those.  (Versions are
-- transaction ids, never shown.)
SELECT setval('chash.node_ordinal_seq', 1000000) > 0 AS ordinals_from;

-- A ring with the defaults, and rings with every setting given
SELECT chash_ring_create('users');
SELECT chash_ring_create('legacy', algorithm => 'ring', hash => 'md5',
						 vnodes => 100, vnode_name => '{node}-{i}',
						 vnode_first => 1);
SELECT chash_ring_create('mixed', hash => 'xxh64', key_hash => 'pg');
SELECT chash_ring_create('Ring with spaces & ünïcode');
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, vnode_first, ketama_variant,
	   ties, version > 0 AS has_version
FROM chash.ring_config ORDER BY ring;
SELECT ring, algorithm, hash, key_hash, vnodes, nodes, active_nodes, points
FROM chash.rings ORDER BY ring;

-- Nodes: default weight 1 gets the ring's vnodes; a weight scales them
-- (rounded half away from zero, at least 1); own vnodes win over weight
SELECT chash_node_add('users', 'a');
SELECT chash_node_add('users', 'b', 2);
SELECT chash_node_add('users', 'c', vnodes => 10, zone => 'eu-west');
SELECT chash_node_add('users', 'd', 0.001);
SELECT chash_node_add('users', 'e', 0.503125);	-- 80.5 points: rounds to 81
SELECT chash_node_add('users', 'f', 0.496875);	-- 79.5 points: rounds to 80
SELECT ring, node, weight, vnodes, zone, state, points,
	   rank() OVER (ORDER BY ordinal) AS place_in_list
FROM chash.nodes WHERE ring = 'users' ORDER BY node;
SELECT ring, node, weight, vnodes, zone, state,
	   rank() OVER (ORDER BY ordinal) AS place_in_list
FROM chash.node_config WHERE ring = 'users' ORDER BY node;

-- The views agree with the points themselves
SELECT node, count(*) AS points FROM chash_points('users') GROUP BY node ORDER BY node;
SELECT nodes, active_nodes, points,
	   points = (SELECT count(*) FROM chash_points('users')) AS agrees
FROM chash.rings WHERE ring = 'users';

-- Point names follow the template and i counts from vnode_first
SELECT chash_node_add('legacy', 'mc1:11211');
SELECT min(vnode), max(vnode), count(*) FROM chash_points('legacy');
SELECT count(*) AS names_as_template
FROM chash_points('legacy') p
WHERE p.vnode IN (SELECT 'mc1:11211-' || i FROM generate_series(1, 100) i);

-- Each point sits at the hash of its vnode name
SELECT count(*) AS points, count(*) FILTER (WHERE point = chash_hash('xxh3_64', vnode)) AS at_hash
FROM chash_points('users');
SELECT count(*) AS points, count(*) FILTER (WHERE point = chash_hash('md5', vnode)) AS at_hash
FROM chash_points('legacy');

-- chash_node_set: NULL leaves a setting as it is
SELECT chash_node_set('users', 'c');
SELECT node, weight, vnodes, zone, state, points FROM chash.nodes
WHERE ring = 'users' AND node = 'c';
SELECT chash_node_set('users', 'c', zone => 'eu-central');
SELECT chash_node_set('users', 'c', weight => 3);
SELECT node, weight, vnodes, zone, state, points FROM chash.nodes
WHERE ring = 'users' AND node = 'c';

-- Changing one node's weight or vnodes only adds or removes its own points
CREATE TEMP TABLE points_before AS SELECT * FROM chash_points('users');
SELECT chash_node_set('users', 'b', weight => 1);	-- 320 points to 160
CREATE TEMP TABLE points_after AS SELECT * FROM chash_points('users');
SELECT
	(SELECT count(*) FROM points_before WHERE node = 'b') AS b_before,
	(SELECT count(*) FROM points_after WHERE node = 'b') AS b_after,
	(SELECT count(*) FROM (SELECT * FROM points_after EXCEPT SELECT * FROM points_before) x) AS new_points,
	(SELECT count(*) FROM (SELECT * FROM points_before EXCEPT SELECT * FROM points_after) x
	 WHERE node <> 'b') AS others_lost,
	(SELECT count(*) FROM points_after
	 WHERE node = 'b' AND vnode IN (SELECT 'b#' || i FROM generate_series(0, 159) i)) AS b0_to_b159;
SELECT chash_node_set('users', 'b', vnodes => 200);	-- own vnodes: 200 points
CREATE TEMP TABLE points_vnodes AS SELECT * FROM chash_points('users');
SELECT
	(SELECT count(*) FROM points_vnodes WHERE node = 'b') AS b_points,
	(SELECT count(*) FROM (SELECT * FROM points_after EXCEPT SELECT * FROM points_vnodes) x) AS lost,
	(SELECT count(*) FROM (SELECT * FROM points_vnodes EXCEPT SELECT * FROM points_after) x
	 WHERE node <> 'b') AS others_gained;

-- A node that is down keeps its configuration and owns no points
SELECT chash_node_set('users', 'c', state => 'down');
SELECT node, weight, vnodes, zone, state, points FROM chash.nodes
WHERE ring = 'users' ORDER BY node;
SELECT count(*) FILTER (WHERE node = 'c') AS points_of_c,
	   count(*) = (SELECT count(*) FROM points_vnodes WHERE node <> 'c') AS others_unchanged
FROM chash_points('users');
SELECT count(*) AS keys_on_c FROM generate_series(1, 10000) k
WHERE chash_lookup('users', k) = 'c';
SELECT chash_node_set('users', 'c', state => 'active');
SELECT count(*) > 0 AS c_owns_keys_again FROM generate_series(1, 10000) k
WHERE chash_lookup('users', k) = 'c';

-- Removing a node
SELECT chash_node_remove('users', 'd');
SELECT node FROM chash.nodes WHERE ring = 'users' ORDER BY node;
SELECT count(*) AS points_of_d FROM chash_points('users') WHERE node = 'd';

-- Plain DML on the catalog tables works too and is seen at once
UPDATE chash.node_config SET weight = 2 WHERE ring = 'users' AND node = 'a';
SELECT points FROM chash.nodes WHERE ring = 'users' AND node = 'a';
INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('users', 'g', 5);
SELECT node, points FROM chash.nodes WHERE ring = 'users' AND node = 'g';
DELETE FROM chash.node_config WHERE ring = 'users' AND node = 'g';
SELECT count(*) FROM chash_points('users') WHERE node = 'g';
-- ... also with session_replication_role = replica (as when a replication
-- tool applies changes): the invalidation triggers fire always
SELECT count(*) FILTER (WHERE chash_lookup('users', k) = 'b') > 0 AS b_owns_keys
FROM generate_series(1, 1000) k;
SET session_replication_role = replica;
UPDATE chash.node_config SET state = 'down' WHERE ring = 'users' AND node = 'b';
SELECT count(*) FILTER (WHERE chash_lookup('users', k) = 'b') AS keys_on_b_while_down
FROM generate_series(1, 1000) k;
UPDATE chash.node_config SET state = 'active' WHERE ring = 'users' AND node = 'b';
RESET session_replication_role;
-- renaming a ring carries its nodes along
UPDATE chash.ring_config SET ring = 'customers' WHERE ring = 'users';
SELECT ring, nodes, points FROM chash.rings WHERE ring IN ('users', 'customers');
SELECT chash_lookup('customers', 'alice') IS NOT NULL AS routes;
UPDATE chash.ring_config SET ring = 'users' WHERE ring = 'customers';

-- A template may hold {i} many times and {node} anywhere; node names are
-- taken as they are, even if they look like placeholders
SELECT chash_ring_create('many_i', vnodes => 3,
						 vnode_name => repeat('{i}.', 60) || '{node}|{node}');
SELECT chash_node_add('many_i', 'x{i}{node}');
SELECT vnode = repeat('1.', 60) || 'x{i}{node}|x{i}{node}' AS names_as_template,
	   point = chash_hash('xxh3_64', vnode) AS at_hash
FROM chash_points('many_i') WHERE vnode LIKE '1.%';
SELECT chash_lookup('many_i', 'k') AS owner;
SELECT chash_ring_drop('many_i');

-- Statements that touch several rings, with long names: the size check
-- reads every ring a statement touches
SELECT chash_ring_create('long_names');
SELECT chash_node_add('long_names', 'db-primary-eu-west-1' || c)
FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f']) c;
INSERT INTO chash.node_config (ring, node)
SELECT r, 'replica-' || r || '-' || g
FROM unnest(ARRAY['users', 'long_names']) r, generate_series(1, 200) g;
SELECT ring, count(*) AS nodes, sum(points) AS points FROM chash.nodes
WHERE ring IN ('users', 'long_names') GROUP BY ring ORDER BY ring;
DELETE FROM chash.node_config WHERE node LIKE 'replica-%';
SELECT chash_ring_drop('long_names');

-- The catalog's constraints reject bad rows from plain DML.  (A failing
-- row of ring_config ends with its version, the transaction's id: shown
-- as <version>.)
CREATE FUNCTION pg_temp.fails(stmt text) RETURNS text
	LANGUAGE plpgsql AS $$
DECLARE
	msg text;
	detail text;
BEGIN
	EXECUTE stmt;
	RETURN 'NO ERROR';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
	RETURN 'ERROR:  ' || msg || E'\nDETAIL:  ' ||
		regexp_replace(detail, '^(Failing row contains \((?:[^,]*, ){9})\d+(.*)$', '\1<version>\2');
END
$$;
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, hash) VALUES ('bad', 'sha1')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, algorithm) VALUES ('bad', 'consistent')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, key_hash) VALUES ('bad', 'md5')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, key_hash) VALUES ('bad', 'nope')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, vnodes) VALUES ('bad', 0)$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, vnodes) VALUES ('bad', 16777217)$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, vnode_name) VALUES ('bad', '{node}')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring, vnode_name) VALUES ('bad', 'x{i}')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring) VALUES ('')$$);
SELECT pg_temp.fails($$INSERT INTO chash.ring_config (ring) VALUES (repeat('x', 64))$$);
INSERT INTO chash.ring_config (ring) VALUES ('users');
INSERT INTO chash.node_config (ring, node) VALUES ('nosuchring', 'a');
INSERT INTO chash.node_config (ring, node) VALUES ('users', 'a');
INSERT INTO chash.node_config (ring, node) VALUES ('users', '');
INSERT INTO chash.node_config (ring, node, weight) VALUES ('users', 'x', 0);
INSERT INTO chash.node_config (ring, node, weight) VALUES ('users', 'x', -1);
INSERT INTO chash.node_config (ring, node, weight) VALUES ('users', 'x', 'NaN');
INSERT INTO chash.node_config (ring, node, weight) VALUES ('users', 'x', 'Infinity');
INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('users', 'x', 0);
INSERT INTO chash.node_config (ring, node, vnodes) VALUES ('users', 'x', 16777217);
INSERT INTO chash.node_config (ring, node, state) VALUES ('users', 'x', 'draining');
-- ... and changes that would make a ring too large to build
UPDATE chash.node_config SET weight = 200000 WHERE ring = 'users' AND node = 'a';
INSERT INTO chash.node_config (ring, node, weight) VALUES ('users', 'x', 1e6);
UPDATE chash.ring_config SET vnodes = 16777216 WHERE ring = 'users';
SELECT count(*) AS rings FROM chash.ring_config;
SELECT node, weight FROM chash.node_config WHERE ring = 'users' ORDER BY node;

-- The largest node: 16777216 vnodes is allowed
SELECT chash_ring_create('big', vnodes => 1);
SELECT chash_node_add('big', 'huge', vnodes => 16777216);
SELECT points FROM chash.nodes WHERE ring = 'big';
SELECT chash_ring_drop('big');

-- Dropping a ring drops its nodes
SELECT chash_ring_drop('legacy');
SELECT count(*) AS legacy_nodes FROM chash.node_config WHERE ring = 'legacy';
SELECT ring FROM chash.rings ORDER BY ring;

-- A node's capacity: how much load planning (chash_rebalance) gives it,
-- relative to the other nodes; 1 unless given
SELECT chash_ring_create('cap');
SELECT chash_node_add('cap', 'a');
SELECT chash_node_add('cap', 'b', 2, capacity => 3.5);
SELECT chash_node_add('cap', 'c', zone => 'z1', capacity => 0.25);
SELECT node, weight, zone, capacity FROM chash.node_config WHERE ring = 'cap' ORDER BY node;
CREATE TEMP TABLE cap_owners AS
SELECT k, chash_lookup('cap', k) AS owner FROM generate_series(1, 5000) k;
CREATE TEMP TABLE cap_points AS SELECT * FROM chash_points('cap');
-- chash_node_set changes it; NULL, or another setting alone, leaves it
SELECT chash_node_set('cap', 'a', capacity => 1e300);
SELECT chash_node_set('cap', 'b', capacity => NULL);
SELECT chash_node_set('cap', 'c', zone => 'z2');
SELECT node, weight, zone, capacity FROM chash.nodes WHERE ring = 'cap' ORDER BY node;
-- ... by plain DML too
UPDATE chash.node_config SET capacity = 5 WHERE ring = 'cap' AND node = 'c';
-- placement never reads it: every point and every key's owner as before
SELECT (SELECT count(*) FROM cap_points) AS points,
	   (SELECT count(*) FROM ((SELECT * FROM cap_points EXCEPT ALL SELECT * FROM chash_points('cap'))
							  UNION ALL
							  (SELECT * FROM chash_points('cap') EXCEPT ALL SELECT * FROM cap_points)) d) AS points_changed,
	   (SELECT count(DISTINCT owner) FROM cap_owners) AS owners,
	   (SELECT count(*) FROM cap_owners o WHERE chash_lookup('cap', o.k) IS DISTINCT FROM o.owner) AS keys_moved;
-- a copy carries it, and a copy that differs only in capacity moves nothing
SELECT chash_ring_copy('cap', 'cap_copy');
SELECT node, capacity FROM chash.node_config WHERE ring = 'cap_copy' ORDER BY node;
SELECT chash_node_set('cap_copy', 'a', capacity => 2);
SELECT count(*) AS moving_ranges FROM chash_moved_ranges('cap', 'cap_copy');
-- so does a switch to the copy
SELECT chash_ring_switch('cap', 'cap_copy');
SELECT node, capacity FROM chash.node_config WHERE ring = 'cap' ORDER BY node;
-- a capacity must be a positive finite number; nothing changes on error
SELECT chash_node_add('cap', 'd', capacity => 0);
SELECT chash_node_add('cap', 'd', capacity => -1);
SELECT chash_node_add('cap', 'd', capacity => 'NaN');
SELECT chash_node_add('cap', 'd', capacity => 'Infinity');
SELECT chash_node_add('cap', 'd', capacity => NULL);
SELECT chash_node_set('cap', 'a', capacity => 0);
SELECT chash_node_set('cap', 'a', capacity => -0.5);
SELECT chash_node_set('cap', 'a', capacity => 'NaN');
SELECT chash_node_set('cap', 'a', capacity => '-Infinity');
SELECT chash_node_set('cap', 'a', weight => 2, capacity => 0);
UPDATE chash.node_config SET capacity = 0 WHERE ring = 'cap' AND node = 'a';
UPDATE chash.node_config SET capacity = 'NaN' WHERE ring = 'cap' AND node = 'a';
UPDATE chash.node_config SET capacity = 'Infinity' WHERE ring = 'cap' AND node = 'a';
UPDATE chash.node_config SET capacity = NULL WHERE ring = 'cap' AND node = 'a';
SELECT node, weight, capacity FROM chash.node_config WHERE ring = 'cap' ORDER BY node;
SELECT chash_ring_drop('cap');

-- A node's address: where the system's server is when the system names it
-- apart from where it is (HAProxy, twemproxy), for chash_export; NULL (the
-- default) means the node's name
SELECT chash_ring_create('addr');
SELECT chash_node_add('addr', 'a');
SELECT chash_node_add('addr', 'b', 2, address => '10.0.0.2:6379');
SELECT chash_node_add('addr', 'c', zone => 'z1', address => 'unix@/run/c.sock');
SELECT node, weight, zone, address FROM chash.node_config WHERE ring = 'addr' ORDER BY node;
CREATE TEMP TABLE addr_owners AS
SELECT k, chash_lookup('addr', k) AS owner FROM generate_series(1, 5000) k;
CREATE TEMP TABLE addr_points AS SELECT * FROM chash_points('addr');
-- chash_node_set changes it; NULL, or another setting alone, leaves it
SELECT chash_node_set('addr', 'a', address => '10.0.0.1:6379');
SELECT chash_node_set('addr', 'b', address => NULL);
SELECT chash_node_set('addr', 'c', zone => 'z2');
SELECT node, zone, address FROM chash.nodes WHERE ring = 'addr' ORDER BY node;
-- ... by plain DML too, back to NULL as well
UPDATE chash.node_config SET address = NULL WHERE ring = 'addr' AND node = 'c';
UPDATE chash.node_config SET address = 'b.example:6379' WHERE ring = 'addr' AND node = 'b';
-- placement never reads it: every point and every key's owner as before
SELECT (SELECT count(*) FROM addr_points) AS points,
	   (SELECT count(*) FROM ((SELECT * FROM addr_points EXCEPT ALL SELECT * FROM chash_points('addr'))
							  UNION ALL
							  (SELECT * FROM chash_points('addr') EXCEPT ALL SELECT * FROM addr_points)) d) AS points_changed,
	   (SELECT count(DISTINCT owner) FROM addr_owners) AS owners,
	   (SELECT count(*) FROM addr_owners o WHERE chash_lookup('addr', o.k) IS DISTINCT FROM o.owner) AS keys_moved;
-- a copy carries it, and a copy that differs only in addresses moves nothing
SELECT chash_ring_copy('addr', 'addr_copy');
SELECT node, address FROM chash.node_config WHERE ring = 'addr_copy' ORDER BY node;
SELECT chash_node_set('addr_copy', 'c', address => '10.0.0.3:6379');
SELECT count(*) AS moving_ranges FROM chash_moved_ranges('addr', 'addr_copy');
-- so does a switch to the copy
SELECT chash_ring_switch('addr', 'addr_copy');
SELECT node, address FROM chash.node_config WHERE ring = 'addr' ORDER BY node;
-- at most 1,024 bytes, as zones and targets; nothing changes on error
SELECT chash_node_add('addr', 'd', address => repeat('x', 1025));
SELECT chash_node_set('addr', 'a', address => repeat('é', 513));
UPDATE chash.node_config SET address = repeat('x', 1025) WHERE ring = 'addr' AND node = 'a';
SELECT chash_node_set('addr', 'a', address => repeat('x', 1024));
SELECT node, octet_length(address) AS address_bytes FROM chash.node_config WHERE ring = 'addr' ORDER BY node;
SELECT chash_ring_drop('addr');

-- An empty ring and a ring whose nodes are all down are fine to keep
SELECT chash_ring_create('all_down');
SELECT chash_node_add('all_down', 'x');
SELECT chash_node_set('all_down', 'x', state => 'down');
SELECT ring, nodes, active_nodes, points FROM chash.rings
WHERE ring IN ('mixed', 'all_down') ORDER BY ring;
SELECT count(*) AS points FROM chash_points('all_down');

SELECT chash_ring_drop(ring) FROM chash.ring_config;
SELECT count(*) FROM chash.ring_config;
SELECT count(*) FROM chash.node_config;
