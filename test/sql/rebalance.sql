--
-- chash_rebalance: a new slot ring that evens out a table's load
--
\set VERBOSITY terse
-- tenants of Zipf-like sizes (24,000 rows for the first, 24,000 / t for
-- tenant t), each in one slot by its hash tag, rows of 0 to 399 bytes of
-- payload; the largest tenant is under a fifth of the rows
CREATE TABLE skew (id text, payload text);
INSERT INTO skew
SELECT '{t' || t || '}:' || g, repeat('x', (g * 7 + t) % 400)
FROM generate_series(1, 2000) t, generate_series(1, greatest(1, 24000 / t)) g;
ANALYZE skew;
SELECT count(*) AS rows, count(DISTINCT split_part(id, ':', 1)) AS tenants FROM skew;
SELECT chash_ring_create('rb', profile => 'redis_cluster');
SELECT chash_node_add('rb', 'm' || i) FROM generate_series(1, 5) i;

-- The plan by rows: every master within 1.05 of its share, the rows moved
-- at most 1.2 times what had to move, and exactly the keys that
-- chash_moved_keys finds
CREATE TABLE plan_rows AS SELECT * FROM chash_rebalance('rb', 'rb_rows', 'skew', 'id');
CREATE TABLE report_rows AS SELECT * FROM chash_rebalance_report('rb', 'rb_rows', 'skew', 'id');
SELECT round(max(before / target)::numeric, 2) AS peak_before, max(after / target) <= 1.05 AS peak_after_within,
	   sum(greatest(0, before - 1.05 * target)) AS must_move
FROM report_rows;
SELECT (SELECT sum(moved) FROM plan_rows) <= 1.2 * (SELECT sum(greatest(0, before - 1.05 * target)) FROM report_rows) AS near_the_bound,
	   (SELECT sum(moved) FROM plan_rows) =
	   (SELECT count(*) FROM chash_moved_keys('rb', 'rb_rows', 'skew', 'id', NULL::text)) AS moved_keys_agree,
	   (SELECT sum(units) FROM plan_rows) = (SELECT sum(upper(s) - lower(s)) FROM chash_moved_slots('rb', 'rb_rows') s(s)) AS slots_agree;
-- each master's rows on the new ring, counted key by key
SELECT r.node, r.after = d.keys AS counted, round((r.after / r.target)::numeric, 3) <= 1.05 AS within
FROM report_rows r JOIN chash_key_distribution('rb_rows', 'skew', 'id') d USING (node) ORDER BY r.node;
-- slots that carry no row stay where they were
SELECT count(*) AS moved_empty_slots
FROM chash_moved_slots('rb', 'rb_rows') m, generate_series(lower(m.slots), upper(m.slots) - 1) s
WHERE NOT EXISTS (SELECT FROM chash_load('rb', 'skew', 'id') l WHERE l.unit = s AND l.rows > 0);

-- by bytes
CREATE TABLE plan_bytes AS SELECT * FROM chash_rebalance('rb', 'rb_bytes', 'skew', 'id', cost => 'bytes');
SELECT max(after / target) <= 1.05 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_bytes) <= 1.2 * sum(greatest(0, before - 1.05 * target)) AS near_the_bound
FROM chash_rebalance_report('rb', 'rb_bytes', 'skew', 'id', 'bytes');

-- A drain: m5's slots go to the others, nothing else moves
CREATE TABLE plan_drain AS SELECT * FROM chash_rebalance('rb', 'rb_drain', 'skew', 'id', drain => '{m5}');
SELECT count(*) AS moved_keys, count(*) FILTER (WHERE from_node = 'm5') AS from_m5,
	   (SELECT count(*) FROM skew WHERE chash_lookup('rb', id) = 'm5') AS m5_had
FROM chash_moved_keys('rb', 'rb_drain', 'skew', 'id', NULL::text);
SELECT node, slots FROM chash.nodes WHERE ring = 'rb_drain' AND node = 'm5';
SELECT (SELECT sum(units) FROM plan_drain) AS slots_moved;

-- A budget: the plan stops within it, and says so
CREATE TABLE plan_budget AS SELECT * FROM chash_rebalance('rb', 'rb_budget', 'skew', 'id', max_moved => 5000);
SELECT sum(moved) <= 5000 AS within_budget, sum(moved) > 0 AS moved_some FROM plan_budget;

-- Planning a balanced ring again changes nothing
SELECT count(*) AS changes FROM chash_rebalance('rb_rows', 'rb_again', 'skew', 'id');
SELECT count(*) AS moved_slots FROM chash_moved_slots('rb_rows', 'rb_again');

-- Refusals, with nothing made
SELECT chash_ring_create('rb_ring');
SELECT chash_node_add('rb_ring', 'a');
SELECT chash_ring_create('rb_jump', algorithm => 'jump');
SELECT chash_node_add('rb_jump', 'a');
SELECT * FROM chash_rebalance('rb', 'rb_rows', 'skew', 'id');
SELECT * FROM chash_rebalance('rb_ring', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('rb_jump', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('nope', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', target_peak => 0.9);
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', cost => 'disk');
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', drain => '{m9}');
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', drain => '{m1,m2,m3,m4,m5}');
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', max_moved => -1);
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'nope');
SELECT * FROM chash_rebalance('rb', NULL, 'skew', 'id');
SELECT count(*) AS made FROM chash.ring_config WHERE ring = 'rb_x';
CREATE ROLE regress_rb_nobody;
SET ROLE regress_rb_nobody;
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id');
RESET ROLE;
DROP ROLE regress_rb_nobody;

DROP TABLE skew, plan_rows, report_rows, plan_bytes, plan_drain, plan_budget;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config WHERE ring LIKE 'rb%';
