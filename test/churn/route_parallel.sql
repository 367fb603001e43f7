-- pgbench script 6: two parallel workers route (the leader only gathers),
-- under the leader's snapshot; what they routed is recorded per node, with
-- the version the leader saw
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL parallel_leader_participation = off;
SELECT (SELECT version FROM chash.ring_config WHERE ring = 'churn') AS vc,
	   string_agg(node || ':' || n || ':' || s, ',' ORDER BY node) AS routes
FROM (SELECT chash_lookup('churn', 'key:' || id) AS node, count(*) AS n, sum(hashint4(id)) AS s
	  FROM pkeys GROUP BY 1) g
\gset
INSERT INTO parallel_answers VALUES (:vc, :routes);
COMMIT;
