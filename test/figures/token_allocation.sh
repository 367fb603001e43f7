#!/usr/bin/env bash
# The figures of chash_allocate_tokens (doc/planning.md, "Tokens for a new
# node"; doc/benchmarks.md): a tokens ring grown from empty to 200 nodes,
# one node at a time, each with the tokens chash_allocate_tokens gives it
# (replicas 1 or 3, 8 or 64 tokens a node; the first nodes of a ring of
# replicas 3 are allocated for as many replicas as there are nodes), beside
# a ring grown with random tokens.  After each node, peak-to-mean of
# chash_ownership(ring, replicas): the largest owned share over the mean of
# the active nodes', exactly, from the points.
#
#   test/bin/with-cluster.sh test/figures/token_allocation.sh [max_nodes]
set -euo pipefail
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
max_nodes=${1:-200}
db=chash_tokens_$$
trap '"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true' EXIT
"$bindir/createdb" "$db"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -v max_nodes="$max_nodes" -d "$db" <<'SQL'
CREATE EXTENSION chash;
CREATE TABLE curve (method text, tokens integer, replicas integer, nodes integer, peak_to_mean float8);

-- Grow ring r to max_nodes nodes of ntokens tokens, allocated for
-- 'replicas' copies (or random, replicas NULL), and record peak-to-mean of
-- each replica count in rfs after each node
CREATE FUNCTION grow(r text, ntokens integer, replicas integer, rfs integer[], max_nodes integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	tokens bigint[];
BEGIN
	PERFORM chash_ring_create(r, algorithm => 'tokens');
	FOR i IN 1..max_nodes LOOP
		IF replicas IS NULL THEN
			SELECT array_agg(DISTINCT (random() * 2::numeric ^ 64 - 2::numeric ^ 63)::numeric(20, 0)::bigint)
			INTO tokens FROM generate_series(1, ntokens);
		ELSE
			tokens := chash_allocate_tokens(r, ntokens, least(replicas, i));
		END IF;
		PERFORM chash_node_add(r, 'n' || i, tokens => tokens);
		INSERT INTO curve
		SELECT CASE WHEN replicas IS NULL THEN 'random' ELSE 'chash_allocate_tokens' END,
			   ntokens, rf, i, max(o.owned) / avg(o.owned)
		FROM unnest(rfs) rf, chash_ownership(r, rf) o
		WHERE rf <= i AND o.state = 'active'
		GROUP BY rf;
	END LOOP;
END $$;

SELECT setseed(0.27) \g /dev/null
SELECT grow('random_8', 8, NULL, '{1,3}', :max_nodes), grow('random_64', 64, NULL, '{1,3}', :max_nodes) \g /dev/null
SELECT grow('alloc_8_rf1', 8, 1, '{1}', :max_nodes) \g /dev/null
SELECT grow('alloc_8_rf3', 8, 3, '{3}', :max_nodes) \g /dev/null
SELECT grow('alloc_64_rf1', 64, 1, '{1}', :max_nodes) \g /dev/null
SELECT grow('alloc_64_rf3', 64, 3, '{3}', :max_nodes) \g /dev/null

\echo 'Peak-to-mean of chash_ownership(ring, replicas) as a tokens ring grows one node at a time (xxh3_64 keys)'
SELECT method, tokens, replicas,
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 10), 'FM0.000') AS "10",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 20), 'FM0.000') AS "20",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 50), 'FM0.000') AS "50",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 100), 'FM0.000') AS "100",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 150), 'FM0.000') AS "150",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes = 200), 'FM0.000') AS "200",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes >= 10), 'FM0.000') AS "worst 10..",
	   (array_agg(nodes ORDER BY peak_to_mean DESC) FILTER (WHERE nodes >= 10))[1] AS "at",
	   to_char(max(peak_to_mean) FILTER (WHERE nodes >= 30), 'FM0.000') AS "worst 30..",
	   count(*) FILTER (WHERE nodes >= 10 AND peak_to_mean > CASE tokens WHEN 8 THEN 1.05 ELSE 1.02 END)
		   AS "sizes over aim"
FROM curve
GROUP BY method, tokens, replicas
ORDER BY tokens, replicas, method;
SQL
