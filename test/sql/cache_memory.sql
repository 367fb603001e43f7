--
-- What a backend keeps of built rings: chash.cache_memory bounds it, and
-- the views build no computed placement, so that reading them costs a
-- connection nothing of the tables a ring's owner may make as large as
-- they like.
--
CREATE FUNCTION cm_expect_error(stmt text) RETURNS text
	LANGUAGE plpgsql
	AS $$
DECLARE
	state text;
	msg text;
BEGIN
	EXECUTE stmt;
	RETURN 'NO ERROR';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN state || ' ' || msg;
END
$$;
-- (the setting exists once the library is loaded, as by any of its calls)
SELECT rings FROM chash.cache_stats();
SHOW chash.cache_memory;
SELECT chash_ring_create(r, vnodes => 4000) FROM unnest(ARRAY['cm_a', 'cm_b', 'cm_c']) r;
SELECT chash_node_add(r, 'n' || i) FROM unnest(ARRAY['cm_a', 'cm_b', 'cm_c']) r, generate_series(1, 4) i;
SELECT chash_node_add('cm_b', 'n5');

-- A ring built is counted as long as it is cached
\c
SELECT rings, memory, evictions FROM chash.cache_stats();
SELECT chash_lookup('cm_a', 'k') IS NOT NULL AS routed;
SELECT rings, memory > 100000 AS holds_its_points FROM chash.cache_stats();
SELECT memory AS ring_bytes FROM chash.cache_stats() \gset

-- Room for two rings and a half: the third ring frees the one used
-- longest ago, and that one is built again when it is used again
SELECT set_config('chash.cache_memory', (:ring_bytes * 5 / 2 / 1024)::text, false) AS budget_kb;
SELECT chash_lookup('cm_b', 'k') IS NOT NULL AS routed;
SELECT chash_lookup('cm_c', 'k') IS NOT NULL AS routed;
SELECT rings, memory <= :ring_bytes * 5 / 2 AS within_budget, evictions FROM chash.cache_stats();
SELECT builds FROM chash.cache_stats() \gset
SELECT chash_lookup('cm_b', 'k') IS NOT NULL AS routed;
SELECT builds - :builds AS builds_for_a_cached_ring FROM chash.cache_stats();
SELECT chash_lookup('cm_a', 'k') IS NOT NULL AS routed;
SELECT builds - :builds AS builds_for_the_freed_ring, rings, evictions FROM chash.cache_stats();

-- No room at all: within a transaction the two rings used last stay (a
-- plan holds two), and between transactions nothing does
SET chash.cache_memory = 0;
SELECT rings, memory FROM chash.cache_stats();
BEGIN;
SELECT chash_lookup(r, 'k') IS NOT NULL AS routed FROM unnest(ARRAY['cm_a', 'cm_b', 'cm_c']) r;
SELECT rings FROM chash.cache_stats();
SELECT count(*) AS moved_keys FROM chash_moved_keys('cm_a', 'cm_b', ARRAY(SELECT 'k' || i FROM generate_series(1, 1000) i));
SELECT rings FROM chash.cache_stats();
COMMIT;
SELECT rings, memory FROM chash.cache_stats();
-- the plan is the one of a backend that keeps every ring
RESET chash.cache_memory;
SELECT count(*) AS moved_keys FROM chash_moved_keys('cm_a', 'cm_b', ARRAY(SELECT 'k' || i FROM generate_series(1, 1000) i));
SELECT rings FROM chash.cache_stats();

-- The setting is the server's: a role may not raise it for itself
-- (the SQLSTATE only: PostgreSQL 17 writes the range with its units)
SELECT split_part(cm_expect_error($$SET chash.cache_memory = -1$$), ' ', 1) AS out_of_range;
SELECT cm_expect_error($$SET chash.cache_memory = '1 TB'$$);
CREATE ROLE cm_nobody;
SET ROLE cm_nobody;
SELECT cm_expect_error($$SET chash.cache_memory = '1 GB'$$);
SHOW chash.cache_memory;
RESET ROLE;

-- The views build no ring: they count the points of rings of points
-- from the configuration, and check computed placements without building
-- them (a maglev table of 655,373 slots, a slots table, rendezvous
-- scores); a placement that cannot be built still shows why
SELECT chash_ring_create('cm_maglev', algorithm => 'maglev', table_size => 655373);
SELECT chash_ring_create('cm_slots', algorithm => 'slots', table_size => 1048576);
SELECT chash_ring_create('cm_rendezvous', algorithm => 'rendezvous');
SELECT chash_ring_create('cm_bad', algorithm => 'maglev', table_size => 307);
SELECT chash_node_add(r, r || '_' || i) FROM unnest(ARRAY['cm_maglev', 'cm_slots', 'cm_rendezvous']) r, generate_series(1, 3) i;
SELECT chash_node_add('cm_bad', 'cm_bad_' || i) FROM generate_series(1, 3) i;
ALTER TABLE chash.node_config DISABLE TRIGGER node_config_check_insert;
INSERT INTO chash.node_config (ring, node) VALUES ('cm_bad', 'cm_bad_4');
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_insert;
\c
SELECT builds FROM chash.cache_stats() \gset
SELECT ring, algorithm, nodes, points, problem FROM chash.rings WHERE ring LIKE 'cm\_%' ORDER BY ring;
SELECT ring, count(*) AS nodes, count(points) AS with_points FROM chash.nodes WHERE ring LIKE 'cm\_%' GROUP BY ring ORDER BY ring;
SELECT builds - :builds AS rings_built, rings FROM chash.cache_stats();
-- a role with no grants reads them alike
SET ROLE cm_nobody;
SELECT count(*) AS rings, count(problem) AS with_problems FROM chash.rings WHERE ring LIKE 'cm\_%';
RESET ROLE;
SELECT builds - :builds AS rings_built, rings FROM chash.cache_stats();
-- routing builds them; what the role's backend keeps of them stays within
-- the budget, and the views still build nothing
SET chash.cache_memory = '1MB';
SET ROLE cm_nobody;
SELECT chash_lookup(r, 'k') IS NOT NULL AS routed FROM unnest(ARRAY['cm_maglev', 'cm_slots', 'cm_rendezvous']) r;
SELECT rings, memory <= 1024 * 1024 AS within_budget, evictions FROM chash.cache_stats();
RESET ROLE;
RESET chash.cache_memory;
SELECT chash_lookup(r, 'k') IS NOT NULL AS routed FROM unnest(ARRAY['cm_maglev', 'cm_slots', 'cm_rendezvous']) r;
SELECT cm_expect_error($$SELECT chash_lookup('cm_bad', 'k')$$);
SELECT ring, points, problem FROM chash.rings WHERE ring LIKE 'cm\_%' ORDER BY ring;
SELECT builds - :builds AS rings_built, rings FROM chash.cache_stats();

-- Rings of points are counted, not built, too: a ring inside every limit
-- (67,108,864 points, whose build takes minutes and a gigabyte) costs a
-- reader of the views nothing, whoever reads them (the timeout makes a
-- build fail the test instead of stalling it)
SELECT chash_ring_create('cm_huge', vnodes => 16777216,
						 vnode_name => repeat('x', 200) || '{node}-{i}');
SELECT chash_node_add('cm_huge', 'cm_huge_' || i) FROM generate_series(1, 4) i;
SELECT chash_ring_create('cm_points');
SELECT chash_node_add('cm_points', 'cm_points_' || i, weight => i) FROM generate_series(1, 3) i;
\c
SET statement_timeout = '60s';
SELECT builds FROM chash.cache_stats() \gset
SET ROLE cm_nobody;
SELECT ring, nodes, points, problem FROM chash.rings WHERE ring IN ('cm_huge', 'cm_points') ORDER BY ring;
SELECT count(*) AS rings, count(problem) AS with_problems FROM chash.rings;
SELECT node, points FROM chash.nodes WHERE ring IN ('cm_huge', 'cm_points') ORDER BY ring, node;
RESET ROLE;
-- the counts are the built ring's
(SELECT node, count(*) AS points FROM chash_points('cm_points') GROUP BY node
 EXCEPT SELECT node, points FROM chash.nodes WHERE ring = 'cm_points')
UNION ALL
(SELECT node, points FROM chash.nodes WHERE ring = 'cm_points'
 EXCEPT SELECT node, count(*) FROM chash_points('cm_points') GROUP BY node);
SELECT count(*) AS points_of_the_built_ring FROM chash_points('cm_points');
SELECT builds - :builds AS rings_built, rings FROM chash.cache_stats();
RESET statement_timeout;

-- The views read each ring's configuration once a query, whatever the plan:
-- a ring of 20,000 nodes, read under plans that may only loop (where a join
-- of the nodes to each ring's points read the ring once a node)
SELECT chash_ring_create('cm_wide', vnodes => 1);
INSERT INTO chash.node_config (ring, node) SELECT 'cm_wide', 'w' || i FROM generate_series(1, 20000) i;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT config_reads FROM chash.cache_stats() \gset
SELECT count(*) AS nodes, sum(points) AS points
FROM chash.nodes WHERE ring IN ('cm_wide', 'cm_points');
-- (a few a ring: once per call site, and on 14, where the view is a
-- function, a few more; never once a node, 20,000 reads)
SELECT config_reads - :config_reads < 100 AS read_once_a_ring FROM chash.cache_stats();
SELECT config_reads FROM chash.cache_stats() \gset
SELECT ring, nodes, points FROM chash.rings WHERE ring IN ('cm_wide', 'cm_points') ORDER BY ring;
-- (for the points and for chash.ring_problem)
SELECT config_reads - :config_reads < 100 AS read_once_a_ring FROM chash.cache_stats();
-- a node the ring lacks, a ring that does not exist, a name no ring can have
SELECT chash.node_points('cm_wide', 'w20001') AS no_node,
	   chash.node_points('cm_none', 'w1') AS no_ring,
	   chash.node_points(repeat('r', 64), 'w1') AS too_long,
	   chash.node_points('cm_wide', 'w20000') AS last_node;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

SELECT chash_ring_drop(ring) FROM chash.ring_config WHERE ring LIKE 'cm\_%' ORDER BY ring;
DROP ROLE cm_nobody;
DROP FUNCTION cm_expect_error(text);
