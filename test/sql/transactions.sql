--
-- One session's own ring changes, seen through cursors, savepoints and
-- later statements of the same transaction: every statement routes by the
-- ring its own snapshot sees.
--
SELECT chash_ring_create('r', vnodes => 40);
SELECT chash_node_add('r', 'a');

-- The cache builds a ring once per backend and change, not per statement
-- or call, and a change to one ring rebuilds no other.  VACUUM and ANALYZE
-- of the catalog tables rebuild nothing.
CREATE FUNCTION pg_temp.route_in_20_statements(ring text) RETURNS void
	LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..20 LOOP
		PERFORM chash_lookup(ring, 'k' || j) FROM generate_series(1, 100) j;
	END LOOP;
END
$$;
SELECT chash_ring_create('other', vnodes => 40);
SELECT chash_node_add('other', 'o');
SELECT builds FROM chash.cache_stats() \gset
SELECT pg_temp.route_in_20_statements('r'), pg_temp.route_in_20_statements('other');
SELECT rings, cached, builds - :builds AS builds_for_40_statements
FROM chash.cache_stats();
SELECT chash_node_add('r', 'x');
VACUUM ANALYZE chash.ring_config, chash.node_config;
SELECT pg_temp.route_in_20_statements('r'), pg_temp.route_in_20_statements('other');
SELECT rings, cached, builds - :builds AS builds_after_a_change_to_r
FROM chash.cache_stats();
SELECT chash_node_remove('r', 'x');
-- undone, the change gives the ring a new version; its configuration is
-- that of before, but between transactions the cache keeps one ring a
-- name, so it is built again
SELECT pg_temp.route_in_20_statements('r');
SELECT rings, cached, builds - :builds AS builds_after_undoing_it
FROM chash.cache_stats();
SELECT chash_ring_drop('other');
-- a dropped ring is gone from the cache at the next routing
SELECT pg_temp.route_in_20_statements('r');
SELECT rings, cached FROM chash.cache_stats();

-- A cursor opened before a change routes by the ring of its snapshot,
-- even when it first runs after the change; the statements after the
-- change see it, and so does the view
BEGIN;
DECLARE c CURSOR FOR
	SELECT s, array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS routed
	FROM generate_series(1, 3) s, generate_series(1, 1000) i GROUP BY s ORDER BY s;
SELECT chash_node_add('r', 'b');
FETCH 1 FROM c;
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS routed,
	   (SELECT array_agg(node ORDER BY node) FROM chash.node_config WHERE ring = 'r') AS catalog
FROM generate_series(1, 1000) i;
SELECT node, points FROM chash.nodes WHERE ring = 'r' ORDER BY node;
FETCH 2 FROM c;
-- the cursor's ring and the latest one are both cached, until the end of
-- the transaction
SELECT rings, cached FROM chash.cache_stats();
COMMIT;
SELECT rings, cached FROM chash.cache_stats();
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS after_commit
FROM generate_series(1, 1000) i;

-- A cursor keeps one ring from its first row to its last, whatever the
-- transaction changes and routes in between
SELECT chash_node_remove('r', 'b');
DO $$
DECLARE
	c CURSOR FOR SELECT i, chash_lookup('r', 'k' || i) AS node FROM generate_series(1, 2000) i;
	rec record;
	first_half integer := 0;
	second_half integer := 0;
	meanwhile text[];
BEGIN
	OPEN c;
	FOR n IN 1..2000 LOOP
		FETCH c INTO rec;
		IF n = 1000 THEN
			PERFORM chash_node_add('r', 'b');
			meanwhile := ARRAY(SELECT DISTINCT chash_lookup('r', 'k' || i)
							   FROM generate_series(1, 1000) i ORDER BY 1);
		END IF;
		IF rec.node = 'b' THEN
			IF n <= 1000 THEN
				first_half := first_half + 1;
			ELSE
				second_half := second_half + 1;
			END IF;
		END IF;
	END LOOP;
	CLOSE c;
	RAISE NOTICE 'cursor rows on b: % of the first 1000, % of the last 1000; a statement in between routed to %',
		first_half, second_half, meanwhile;
END
$$;
SELECT chash_node_remove('r', 'b');

-- Savepoints: a change rolled back to a savepoint is gone for the next
-- statement
BEGIN;
SAVEPOINT sp;
SELECT chash_node_add('r', 'b');
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS inside_savepoint
FROM generate_series(1, 1000) i;
ROLLBACK TO SAVEPOINT sp;
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS after_rollback_to
FROM generate_series(1, 1000) i;
SELECT chash_node_add('r', 'c');
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS after_another_change
FROM generate_series(1, 1000) i;
ROLLBACK;
SELECT array_agg(DISTINCT chash_lookup('r', 'k' || i)) AS after_rollback
FROM generate_series(1, 1000) i;

-- Many statements after one change in a transaction all see it
BEGIN;
SELECT chash_node_add('r', 'b');
SELECT count(*) AS statements_seeing_b FROM generate_series(1, 5) s
WHERE EXISTS (SELECT 1 FROM generate_series(1, 1000) i WHERE chash_lookup('r', 'k' || i || s) = 'b');
COMMIT;

-- A transaction's own changes keep the version it gave the ring first:
-- there each configuration is told by its contents, and built once (the
-- third is the first again)
BEGIN;
SELECT builds FROM chash.cache_stats() \gset
SELECT chash_node_add('r', 'y');
SELECT pg_temp.route_in_20_statements('r');
SELECT chash_node_add('r', 'z');
SELECT pg_temp.route_in_20_statements('r');
SELECT chash_node_remove('r', 'z');
SELECT pg_temp.route_in_20_statements('r');
SELECT builds - :builds AS builds_for_2_configurations FROM chash.cache_stats();
ROLLBACK;

SELECT chash_ring_drop('r');
