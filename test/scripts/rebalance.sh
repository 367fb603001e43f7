#!/usr/bin/env bash
# chash_rebalance on a table of over a million rows: a Zipf-like mix of
# 20,000 tenants (tenant t has 25,000 / t^0.75 rows), each tenant's keys in
# one hash tag, rows of 0 to 399 bytes of payload and every 500th of 2,000,
# the largest tenant about 2 % of the rows.  Three rings: a Redis-slot ring
# of 5 masters, a tokens ring of 10 nodes at uneven tokens, and a ring of 8
# nodes of 160 points each (planned with allow_tokens).  For each ring, by
# rows and by bytes:
#   peak    every node within 1.05 of its target, counted on into_ring key
#           by key (chash_key_distribution's keys and bytes)
#   bound   the load moved at most 1.2 times the least that had to move
#   moved   (by rows) the rows chash_moved_keys lists are the plan's
# and for each ring: a drain moves exactly the drained node's rows, a
# budget is kept, and planning the balanced ring again changes nothing.
# Runs against the server in PGHOST/PGPORT (test/bin/with-cluster.sh
# provides one), in a database of its own, dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
db=chash_rebalance_$$
cleanup() {
	local rc=$?
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db")
"$bindir/createdb" "$db"
"${psql[@]}" >/dev/null <<'SQL'
CREATE EXTENSION chash;
CREATE TABLE tenant_rows (id text, payload text);
INSERT INTO tenant_rows
SELECT '{t' || t || '}:' || g, repeat('x', CASE WHEN g % 500 = 0 THEN 2000 ELSE (g * 7 + t) % 400 END)
FROM generate_series(1, 20000) t, generate_series(1, greatest(1, floor(25000 / power(t, 0.75))::integer)) g;
ANALYZE tenant_rows;

SELECT chash_ring_create('slots5', profile => 'redis_cluster');
SELECT chash_node_add('slots5', 'm' || i) FROM generate_series(1, 5) i;
-- ten nodes of three tokens each, at uneven places
SELECT chash_ring_create('tokens10', algorithm => 'tokens', hash_tag => '{}');
SELECT chash_node_add('tokens10', 'n' || i,
					  tokens => ARRAY[((i * i * 7919) % 1000 - 500) * 18446744073709551,
									  ((i * 104729) % 1000 - 500) * 18446744073709551 + 1,
									  ((i * 15485863) % 1000 - 500) * 18446744073709551 + 2])
FROM generate_series(1, 10) i;
SELECT chash_ring_create('points8', hash_tag => '{}');
SELECT chash_node_add('points8', 'p' || i) FROM generate_series(1, 8) i;

CREATE TABLE checks (what text, ok boolean, detail text);
-- the figures of one plan: each node's load on both rings, counted key by
-- key, and its target (the ring's weights times capacities)
CREATE FUNCTION plan_check(ring text, into_ring text, cost text, allow boolean,
						   drain text[] DEFAULT '{}', max_moved float8 DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	moved float8;
	pairs bigint;
	bound float8;
	peak_before float8;
	peak_after float8;
	listed bigint;
	total float8;
	label text := format('%s %s%s%s', ring, cost,
						 CASE WHEN cardinality(drain) > 0 THEN ' drain ' || drain[1] ELSE '' END,
						 CASE WHEN max_moved IS NOT NULL THEN ' budget ' || max_moved ELSE '' END);
BEGIN
	SELECT coalesce(sum(p.moved), 0), count(*) INTO moved, pairs
	FROM chash_rebalance(ring, into_ring, 'tenant_rows', 'id', cost => cost, drain => drain,
						 max_moved => max_moved, allow_tokens => allow) p;
	CREATE TEMP TABLE figures ON COMMIT DROP AS
	WITH b AS (SELECT d.node, CASE WHEN cost = 'rows' THEN d.keys ELSE d.bytes END::float8 AS load
			   FROM chash_key_distribution(ring, 'tenant_rows', 'id') d),
		 a AS (SELECT d.node, CASE WHEN cost = 'rows' THEN d.keys ELSE d.bytes END::float8 AS load
			   FROM chash_key_distribution(into_ring, 'tenant_rows', 'id') d),
		 w AS (SELECT n.node, n.weight * n.capacity AS share FROM chash.node_config n
			   WHERE n.ring = plan_check.ring AND n.state = 'active' AND NOT n.node = ANY (drain))
	SELECT w.node, coalesce(b.load, 0) AS before, coalesce(a.load, 0) AS after,
		   (SELECT sum(load) FROM b) * w.share / (SELECT sum(share) FROM w) AS target
	FROM w LEFT JOIN b USING (node) LEFT JOIN a USING (node);
	SELECT max(before / target), max(after / target), sum(greatest(0, before - 1.05 * target)), sum(before)
	INTO peak_before, peak_after, bound, total FROM figures;
	IF cardinality(drain) > 0 THEN
		SELECT count(*) INTO listed FROM chash_moved_keys(ring, into_ring, 'tenant_rows', 'id', NULL::text);
		INSERT INTO checks VALUES
			(label || ': moves exactly the drained node''s rows',
			 listed = (SELECT count(*) FROM tenant_rows WHERE chash_lookup(ring, id) = drain[1])
			 AND NOT EXISTS (SELECT FROM chash_moved_keys(ring, into_ring, 'tenant_rows', 'id', NULL::text) m
							 WHERE m.from_node <> drain[1])
			 AND (SELECT count(*) FROM tenant_rows WHERE chash_lookup(into_ring, id) = drain[1]) = 0,
			 format('%s rows moved', listed));
	ELSIF max_moved IS NOT NULL THEN
		INSERT INTO checks VALUES
			(label || ': the budget is kept', moved <= max_moved AND moved > 0,
			 format('moved %s of a budget of %s', moved, max_moved));
	ELSE
		INSERT INTO checks VALUES
			(label || ': peak-to-mean within 1.05, counted on the new ring', peak_before > 1.05 AND peak_after <= 1.05,
			 format('%s before, %s after', round(peak_before::numeric, 3), round(peak_after::numeric, 4))),
			(label || ': moved at most 1.2 times what had to move', moved <= 1.2 * bound,
			 format('moved %s, at least %s had to (%s of %s)', moved, bound,
					round((moved / nullif(bound, 0))::numeric, 4), total));
		IF cost = 'rows' THEN
			SELECT count(*) INTO listed FROM chash_moved_keys(ring, into_ring, 'tenant_rows', 'id', NULL::text);
			INSERT INTO checks VALUES
				(label || ': the rows chash_moved_keys lists are the plan''s', listed = moved,
				 format('%s rows listed, the plan moved %s', listed, moved));
		END IF;
	END IF;
	DROP TABLE figures;
END
$$;

SELECT plan_check('slots5', 'slots5_rows', 'rows', false);
SELECT plan_check('slots5', 'slots5_bytes', 'bytes', false);
SELECT plan_check('slots5', 'slots5_drain', 'rows', false, drain => '{m2}');
SELECT plan_check('slots5', 'slots5_budget', 'rows', false, max_moved => 20000);
SELECT plan_check('tokens10', 'tokens10_rows', 'rows', false);
SELECT plan_check('tokens10', 'tokens10_bytes', 'bytes', false);
SELECT plan_check('tokens10', 'tokens10_drain', 'rows', false, drain => '{n4}');
SELECT plan_check('tokens10', 'tokens10_budget', 'rows', false, max_moved => 20000);
SELECT plan_check('points8', 'points8_rows', 'rows', true);
SELECT plan_check('points8', 'points8_bytes', 'bytes', true);
SELECT plan_check('points8', 'points8_drain', 'rows', true, drain => '{p5}');
SELECT plan_check('points8', 'points8_budget', 'rows', true, max_moved => 5000);
-- planning a balanced ring again changes nothing
INSERT INTO checks
SELECT r || '_rows planned again: nothing changes',
	   (SELECT count(*) FROM chash_rebalance(r || '_rows', r || '_again', 'tenant_rows', 'id')) = 0,
	   ''
FROM unnest(ARRAY['slots5', 'tokens10', 'points8']) r;
SQL

failed=0
n=0
while IFS='|' read -r what ok detail; do
	n=$((n + 1))
	if [ "$ok" = t ]; then
		echo "  ok    $what: $detail"
	else
		echo "  FAIL  $what: $detail"
		failed=$((failed + 1))
	fi
done < <("${psql[@]}" -At -c "SELECT count(*) FROM tenant_rows" -c "SELECT what, ok, detail FROM checks ORDER BY ctid" | tail -n +2)
rows=$("${psql[@]}" -At -c "SELECT count(*) FROM tenant_rows")
echo "rebalance: $rows rows of 20000 tenants"
if [ "$n" -eq 0 ]; then
	echo "rebalance: no check ran" >&2
	exit 1
fi
echo "$n checks, $failed failed"
[ "$failed" -eq 0 ]
