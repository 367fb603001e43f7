-- pgbench script 3: 20 keys in one statement, which routes by one state
-- of each ring throughout, whatever commits while it runs
\set k random(1, 1000000)
INSERT INTO answers
SELECT 3, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM generate_series((:k)::bigint, (:k)::bigint + 19) g;
