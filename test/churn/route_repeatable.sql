-- pgbench script 4: a repeatable read transaction routes by its snapshot's
-- rings, also after ring changes commit between its statements
\set k1 random(1, 1000000)
\set k2 random(1, 1000000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO answers
SELECT 4, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM (SELECT (:k1)::bigint AS g) s;
\sleep 3 ms
INSERT INTO answers
SELECT 4, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM (SELECT (:k2)::bigint AS g) s;
COMMIT;
