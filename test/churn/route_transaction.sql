-- pgbench script 2: two statements of a read committed transaction, each
-- with a snapshot of its own
\set k1 random(1, 1000000)
\set k2 random(1, 1000000)
BEGIN;
INSERT INTO answers
SELECT 2, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM (SELECT (:k1)::bigint AS g) s;
INSERT INTO answers
SELECT 2, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM (SELECT (:k2)::bigint AS g) s;
COMMIT;
