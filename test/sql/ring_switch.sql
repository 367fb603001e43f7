-- chash_ring_switch: the cutover of a batch migration.  The ring takes its
-- planned copy's settings and nodes in one step, and routes exactly as the
-- copy did; versions and caches behave as for any change.
SELECT chash_ring_create('sw');
SELECT chash_node_add('sw', 'pg' || i, target => 'shard' || i, zone => 'z' || (i % 2)) FROM generate_series(1, 3) i;
SELECT chash_ring_copy('sw', 'sw_next');
SELECT chash_node_add('sw_next', 'pg4', weight => 2, target => 'shard4');
SELECT chash_node_set('sw_next', 'pg2', state => 'down');
UPDATE chash.ring_config SET vnodes = 200 WHERE ring = 'sw_next';

-- the routes the plan was made for, and the ring's version before
CREATE TABLE sw_planned AS
SELECT g, chash_lookup('sw_next', g) AS owner, chash_lookup_n('sw_next', g, 2, true) AS replicas
FROM generate_series(1, 5000) g;
SELECT count(*) FILTER (WHERE chash_lookup('sw', p.g) <> p.owner) AS differ_before FROM sw_planned p;
SELECT version AS version_before FROM chash.ring_config WHERE ring = 'sw' \gset

-- in one transaction with routing before and after: the statement after
-- the switch sees the new ring
BEGIN;
SELECT count(*) FILTER (WHERE chash_lookup('sw', p.g) = p.owner) AS same_before FROM sw_planned p;
SELECT chash_ring_switch('sw', 'sw_next') AS nodes;
SELECT count(*) FILTER (WHERE chash_lookup('sw', p.g) = p.owner
						  AND chash_lookup_n('sw', p.g, 2, true) = p.replicas) AS same_after
FROM sw_planned p;
COMMIT;
SELECT ring, vnodes, version <> :version_before AS new_version FROM chash.ring_config WHERE ring LIKE 'sw%';
SELECT node, weight, state, zone, target FROM chash.node_config WHERE ring = 'sw' ORDER BY ordinal;

-- keeping the copy, and switching to a ring of another algorithm
SELECT chash_ring_create('sw_jump', algorithm => 'jump');
SELECT chash_node_add('sw_jump', 'j' || i) FROM generate_series(1, 4) i;
SELECT chash_ring_switch('sw', 'sw_jump', drop_planned => false) AS nodes;
SELECT count(*) FILTER (WHERE chash_lookup('sw', g) = chash_lookup('sw_jump', g)) AS same_as_copy
FROM generate_series(1, 2000) g;
SELECT ring, algorithm FROM chash.ring_config WHERE ring LIKE 'sw%' ORDER BY ring;

-- what it refuses, changing nothing
\set VERBOSITY terse
SELECT chash_ring_switch('sw', 'sw');
SELECT chash_ring_switch('sw', 'sw_missing');
SELECT chash_ring_switch('sw_missing', 'sw_jump');
SELECT chash_ring_switch(NULL, 'sw_jump');
SELECT chash_ring_switch('sw', 'sw_jump', NULL);
-- a ring in an online move under way
CREATE TABLE sw_rows (k integer);
INSERT INTO chash.online_moves (token, from_ring, to_ring, relation, key_column, from_fingerprint, to_fingerprint)
VALUES ('swtoken', 'sw_jump', 'sw', 'sw_rows', 'k', 'x', 'y');
SELECT chash_ring_switch('sw', 'sw_jump');
DELETE FROM chash.online_moves WHERE token = 'swtoken';
-- a role without the catalog's write privileges
CREATE ROLE regress_chash_sw_nobody;
SET ROLE regress_chash_sw_nobody;
SELECT chash_ring_switch('sw', 'sw_jump');
RESET ROLE;
DROP ROLE regress_chash_sw_nobody;
\set VERBOSITY default
SELECT ring, algorithm FROM chash.ring_config WHERE ring LIKE 'sw%' ORDER BY ring;
SELECT count(*) AS nodes FROM chash.node_config WHERE ring = 'sw';

DROP TABLE sw_planned, sw_rows;
SELECT chash_ring_drop('sw'), chash_ring_drop('sw_jump');
