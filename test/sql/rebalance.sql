--
-- chash_rebalance: a new slot ring that evens out a table's load
--
\set VERBOSITY terse
-- tenants of Zipf-like sizes (5,000 rows for the first, 5,000 / t for
-- tenant t), each in one slot by its hash tag, rows of 0 to 399 bytes of
-- payload; the largest tenant is under a fifth of the rows
CREATE TABLE skew (id text, payload text);
INSERT INTO skew
SELECT '{t' || t || '}:' || g, repeat('x', (g * 7 + t) % 400)
FROM generate_series(1, 2000) t, generate_series(1, greatest(1, 5000 / t)) g;
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
CREATE TABLE plan_budget AS SELECT * FROM chash_rebalance('rb', 'rb_budget', 'skew', 'id', max_moved => 1000);
SELECT sum(moved) <= 1000 AS within_budget, sum(moved) > 0 AS moved_some FROM plan_budget;

-- Planning a balanced ring again changes nothing
SELECT count(*) AS changes FROM chash_rebalance('rb_rows', 'rb_again', 'skew', 'id');
SELECT count(*) AS moved_slots FROM chash_moved_slots('rb_rows', 'rb_again');

-- A node of twice the capacity is given twice the share
SELECT chash_ring_copy('rb', 'rb_cap');
SELECT chash_node_set('rb_cap', 'm1', capacity => 2);
CREATE TABLE plan_cap AS SELECT * FROM chash_rebalance('rb_cap', 'rb_cap_even', 'skew', 'id');
SELECT node, round((target / sum(target) OVER ())::numeric, 3) AS share, after / target <= 1.05 AS within
FROM chash_rebalance_report('rb_cap', 'rb_cap_even', 'skew', 'id') ORDER BY node;
DROP TABLE plan_cap;

--
-- Tokens rings: ranges given whole or split at the rows' own positions
--
-- 10 nodes of 2 tokens each at uneven places; every row its own key
SELECT chash_ring_create('rt', algorithm => 'tokens');
SELECT chash_node_add('rt', 'n' || i,
					  tokens => ARRAY[((i * i * 7919) % 1000 - 500) * 18446744073709551,
									  ((i * 104729) % 1000 - 500) * 18446744073709551 + 1])
FROM generate_series(1, 10) i;
CREATE TABLE plan_tokens AS SELECT * FROM chash_rebalance('rt', 'rt_rows', 'skew', 'id');
CREATE TABLE report_tokens AS SELECT * FROM chash_rebalance_report('rt', 'rt_rows', 'skew', 'id');
SELECT round(max(before / target)::numeric, 2) AS peak_before, max(after / target) <= 1.05 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_tokens) <= 1.2 * sum(greatest(0, before - 1.05 * target)) AS near_the_bound,
	   (SELECT sum(moved) FROM plan_tokens) =
	   (SELECT count(*) FROM chash_moved_keys('rt', 'rt_rows', 'skew', 'id', NULL::text)) AS moved_keys_agree
FROM report_tokens;
-- each node's rows on the new ring, counted key by key; the ranges split
-- are those of the nodes that gave, at new tokens of the nodes that took
SELECT bool_and(r.after = d.keys) AS counted FROM report_tokens r JOIN chash_key_distribution('rt_rows', 'skew', 'id') d USING (node);
SELECT bool_and(t.token = ANY (n.tokens)) AS tokens_taken, bool_and(NOT t.token = ANY (o.tokens)) AS not_left_behind
FROM plan_tokens p, unnest(p.tokens) t(token), chash.node_config n, chash.node_config o
WHERE n.ring = 'rt_rows' AND n.node = p.to_node AND o.ring = 'rt_rows' AND o.node = p.from_node;
-- by bytes
CREATE TABLE plan_tokens_bytes AS SELECT * FROM chash_rebalance('rt', 'rt_bytes', 'skew', 'id', cost => 'bytes');
SELECT max(after / target) <= 1.05 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_tokens_bytes) <= 1.2 * sum(greatest(0, before - 1.05 * target)) AS near_the_bound
FROM chash_rebalance_report('rt', 'rt_bytes', 'skew', 'id', 'bytes');
-- a drain: n3's rows go, spread over the others, and nothing else moves;
-- n3 is down
CREATE TABLE plan_tokens_drain AS SELECT * FROM chash_rebalance('rt', 'rt_drain', 'skew', 'id', drain => '{n3}');
SELECT count(*) = (SELECT count(*) FROM skew WHERE chash_lookup('rt', id) = 'n3') AS moved_n3s_rows,
	   count(*) FILTER (WHERE from_node <> 'n3') AS moved_others,
	   (SELECT state FROM chash.node_config WHERE ring = 'rt_drain' AND node = 'n3') AS n3
FROM chash_moved_keys('rt', 'rt_drain', 'skew', 'id', NULL::text);
-- a budget
SELECT sum(moved) <= 3000 AS within_budget, sum(moved) > 0 AS moved_some
FROM chash_rebalance('rt', 'rt_budget', 'skew', 'id', max_moved => 3000);
-- planning a balanced ring again changes nothing
SELECT count(*) AS changes FROM chash_rebalance('rt_rows', 'rt_again', 'skew', 'id');

--
-- Rings of points: with allow_tokens, the points of the nodes that change
-- become tokens, planned to the row; without, the nodes' vnodes
--
SELECT chash_ring_create('rv');
SELECT chash_node_add('rv', 'v' || i) FROM generate_series(1, 8) i;
CREATE TABLE plan_points AS SELECT * FROM chash_rebalance('rv', 'rv_tokens', 'skew', 'id', target_peak => 1.01,
														  allow_tokens => true);
SELECT max(after / target) <= 1.01 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_points) <= 1.2 * sum(greatest(0, before - 1.01 * target)) AS near_the_bound,
	   (SELECT sum(moved) FROM plan_points) =
	   (SELECT count(*) FROM chash_moved_keys('rv', 'rv_tokens', 'skew', 'id', NULL::text)) AS moved_keys_agree
FROM chash_rebalance_report('rv', 'rv_tokens', 'skew', 'id');
-- only the nodes that gave or took have tokens now
SELECT count(*) FILTER (WHERE tokens IS NOT NULL) =
	   (SELECT count(DISTINCT x) FROM plan_points, unnest(ARRAY[from_node, to_node]) x) AS tokens_where_changed
FROM chash.node_config WHERE ring = 'rv_tokens';
CREATE TABLE plan_vnodes AS SELECT * FROM chash_rebalance('rv', 'rv_vnodes', 'skew', 'id', target_peak => 1.01);
SELECT max(after / target) < max(before / target) AS more_even,
	   (SELECT sum(moved) FROM plan_vnodes) =
	   (SELECT count(*) FROM chash_moved_keys('rv', 'rv_vnodes', 'skew', 'id', NULL::text)) AS moved_keys_agree,
	   (SELECT count(*) FROM chash.node_config WHERE ring = 'rv_vnodes' AND vnodes <> 160) > 0 AS vnodes_changed
FROM chash_rebalance_report('rv', 'rv_vnodes', 'skew', 'id');

--
-- Clients whose points or tables come from names: whole weights, scaled
--
CREATE TABLE tenants AS SELECT split_part(id, ':', 1) AS tenant FROM skew;
SELECT chash_ring_create('rk', profile => 'libmemcached');
SELECT chash_node_add('rk', '10.0.0.' || i || ':11211') FROM generate_series(1, 6) i;
SELECT chash_ring_create('rm', profile => 'envoy_maglev');
SELECT chash_node_add('rm', 'm' || i) FROM generate_series(1, 6) i;
CREATE TABLE plan_weights AS
SELECT 'rk' AS ring, * FROM chash_rebalance('rk', 'rk_w', 'tenants', 'tenant')
UNION ALL
SELECT 'rm', * FROM chash_rebalance('rm', 'rm_w', 'tenants', 'tenant');
SELECT r.ring, max(p.after / p.target) < max(p.before / p.target) AS more_even,
	   (SELECT sum(moved) FROM plan_weights w WHERE w.ring = r.ring) =
	   (SELECT count(*) FROM chash_moved_keys(r.ring, r.ring || '_w', 'tenants', 'tenant', NULL::text)) AS moved_keys_agree,
	   (SELECT bool_and(weight = round(weight)) FROM chash.node_config
		WHERE ring = r.ring || '_w') AS whole_weights
FROM (VALUES ('rk'), ('rm')) r(ring), chash_rebalance_report(r.ring, r.ring || '_w', 'tenants', 'tenant') p
GROUP BY r.ring ORDER BY 1;
-- the weights as the plan scaled them place every key as before
SELECT chash_ring_copy('rk', 'rk_scaled');
UPDATE chash.node_config SET weight = 100 WHERE ring = 'rk_scaled';
SELECT count(*) AS moved FROM chash_moved_keys('rk', 'rk_scaled', 'tenants', 'tenant', NULL::text);
-- a client without weights
SELECT chash_ring_create('rs', profile => 'spymemcached');
SELECT chash_node_add('rs', '10.0.0.' || i || ':11211') FROM generate_series(1, 3) i;
SELECT * FROM chash_rebalance('rs', 'rs_w', 'tenants', 'tenant');

--
-- Copies: with replicas, a ring of points is planned by the load of the
-- copies each node holds (chash_lookup_n's), here spread over zones
--
SELECT chash_ring_create('rz');
SELECT chash_node_add('rz', 'z' || i, zone => 'zone' || i % 3) FROM generate_series(1, 6) i;
CREATE TABLE plan_copies AS
SELECT * FROM chash_rebalance('rz', 'rz_copies', 'tenants', 'tenant', replicas => 3,
							  distinct_zones => true);
CREATE TABLE report_copies AS
SELECT * FROM chash_rebalance_report('rz', 'rz_copies', 'tenants', 'tenant', replicas => 3, distinct_zones => true);
-- the report's figures are the copies chash_lookup_n gives, counted row by
-- row on both rings; the plan's moved copies are those that changed node
CREATE TABLE copies AS
SELECT chash_lookup_n('rz', tenant, 3, true) AS before, chash_lookup_n('rz_copies', tenant, 3, true) AS after
FROM tenants;
SELECT max(after / target) < max(before / target) AS more_even,
	   bool_and(before = (SELECT count(*) FROM copies, unnest(copies.before) c WHERE c = r.node)) AS before_counted,
	   bool_and(after = (SELECT count(*) FROM copies, unnest(copies.after) c WHERE c = r.node)) AS after_counted,
	   (SELECT sum(moved) FROM plan_copies) =
	   (SELECT count(*) FROM copies, unnest(copies.after) c WHERE NOT c = ANY (copies.before)) AS moved_copies_agree
FROM report_copies r;
-- the copies of a tokens ring: tokens shifted or cut into ranges at the
-- rows, where they take most load over the target off for what they move
CREATE TABLE few_keys AS SELECT 'k' || g AS id FROM generate_series(1, 2000) g;
SELECT chash_ring_create('rzt', algorithm => 'tokens');
SELECT chash_node_add('rzt', 'n' || i,
					  tokens => ARRAY[((i * i * 7919) % 1000 - 500) * 18446744073709551,
									  ((i * 104729) % 1000 - 500) * 18446744073709551 + 1])
FROM generate_series(1, 8) i;
CREATE TABLE plan_token_copies AS SELECT * FROM chash_rebalance('rzt', 'rzt_copies', 'few_keys', 'id', replicas => 3);
DELETE FROM copies;
INSERT INTO copies
SELECT chash_lookup_n('rzt', id, 3), chash_lookup_n('rzt_copies', id, 3) FROM few_keys;
SELECT max(after / target) < max(before / target) AS more_even,
	   bool_and(after = (SELECT count(*) FROM copies, unnest(copies.after) c WHERE c = r.node)) AS after_counted,
	   (SELECT sum(moved) FROM plan_token_copies) =
	   (SELECT count(*) FROM copies, unnest(copies.after) c WHERE NOT c = ANY (copies.before)) AS moved_copies_agree
FROM chash_rebalance_report('rzt', 'rzt_copies', 'few_keys', 'id', replicas => 3) r;
-- every node within the target, moving at most 1 % more copies than the
-- nodes held over it; the pairs of nodes are rebalance_copy_moves's
SELECT round(max(before / target)::numeric, 3) AS peak_before, max(after / target) <= 1.05 AS peak_after_within,
	   sum(greatest(0, before - 1.05 * target)) AS must_move,
	   (SELECT sum(moved) FROM plan_token_copies) BETWEEN sum(greatest(0, before - 1.05 * target))
													 AND 1.01 * sum(greatest(0, before - 1.05 * target)) AS near_the_bound
FROM chash_rebalance_report('rzt', 'rzt_copies', 'few_keys', 'id', replicas => 3);
WITH names AS (SELECT array_agg(node ORDER BY node) AS n FROM chash.node_config WHERE ring = 'rzt'),
	 pos AS (SELECT * FROM chash.rebalance_positions('rzt', 'few_keys', 'id', 'rows')),
	 placed AS (SELECT chash.rebalance_copies('rzt', names.n, pos.positions, 3, false) AS b,
					   chash.rebalance_copies('rzt_copies', names.n, pos.positions, 3, false) AS a,
					   pos.position_load AS l FROM names, pos)
SELECT (SELECT array_agg(m ORDER BY m) FROM placed, chash.rebalance_copy_moves(placed.b, placed.a, placed.l, 3) m) =
	   (SELECT array_agg(m ORDER BY m) FROM placed, chash.rebalance_copy_pairs(placed.b, placed.a, placed.l, 3) m)
	   AS pairs_agree,
	   (SELECT count(*) FROM plan_token_copies) > 0 AS some_pairs;
-- planning the balanced ring again changes nothing
SELECT count(*) AS changes FROM chash_rebalance('rzt_copies', 'rzt_again', 'few_keys', 'id', replicas => 3);
SELECT count(*) FILTER (WHERE a.tokens IS DISTINCT FROM b.tokens OR a.state IS DISTINCT FROM b.state)
		   AS tokens_changed,
	   count(*) = (SELECT count(*) FROM chash.node_config c WHERE c.ring = 'rzt_copies') AS every_node_compared
FROM chash.node_config a JOIN chash.node_config b ON b.node = a.node
WHERE a.ring = 'rzt_copies' AND b.ring = 'rzt_again';
-- a drain of copies: only the drained node's copies go
CREATE TABLE plan_token_drain AS
SELECT * FROM chash_rebalance('rzt', 'rzt_drain', 'few_keys', 'id', replicas => 3, drain => '{n2}');
SELECT bool_and(from_node = 'n2') AS only_n2s_copies, sum(moved) =
	   (SELECT count(*) FROM few_keys WHERE 'n2' = ANY (chash_lookup_n('rzt', id, 3))) AS all_of_them
FROM plan_token_drain;
SELECT state, tokens FROM chash.node_config WHERE ring = 'rzt_drain' AND node = 'n2';
-- a budget: at most max_moved copies move, and the peak still falls
CREATE TABLE plan_token_budget AS
SELECT * FROM chash_rebalance('rzt', 'rzt_budget', 'few_keys', 'id', replicas => 3, max_moved => 300);
SELECT (SELECT sum(moved) FROM plan_token_budget) <= 300 AS within_budget,
	   max(after / target) < max(before / target) AS more_even
FROM chash_rebalance_report('rzt', 'rzt_budget', 'few_keys', 'id', replicas => 3);
-- rows at one position (a tie): cuts fall between positions
CREATE TABLE tied_keys AS SELECT id FROM few_keys UNION ALL SELECT 'k7' FROM generate_series(1, 300);
CREATE TABLE plan_token_ties AS SELECT * FROM chash_rebalance('rzt', 'rzt_ties', 'tied_keys', 'id', replicas => 3);
DELETE FROM copies;
INSERT INTO copies
SELECT chash_lookup_n('rzt', id, 3), chash_lookup_n('rzt_ties', id, 3) FROM tied_keys;
SELECT max(after / target) <= 1.05 AS peak_after_within,
	   bool_and(after = (SELECT count(*) FROM copies, unnest(copies.after) c WHERE c = r.node)) AS after_counted,
	   (SELECT sum(moved) FROM plan_token_ties) =
	   (SELECT count(*) FROM copies, unnest(copies.after) c WHERE NOT c = ANY (copies.before)) AS moved_copies_agree
FROM chash_rebalance_report('rzt', 'rzt_ties', 'tied_keys', 'id', replicas => 3) r;
DROP TABLE few_keys, tied_keys, plan_token_copies, plan_token_drain, plan_token_budget, plan_token_ties;
-- 20,000 keys on 10 nodes of 4 tokens in 3 zones: by copies, within the
-- target near the bound; with distinct zones every zone holds one copy of
-- each key, so a node can hold no less than its zone's copies shared by
-- its nodes: the plan reaches that floor (the 3 nodes of zone 0 and 2)
CREATE TABLE many_keys AS SELECT 'key' || g AS id FROM generate_series(1, 20000) g;
SELECT chash_ring_create('rzb', algorithm => 'tokens');
SELECT count(chash_node_add('rzb', 'n' || lpad(i::text, 2, '0'), zone => 'z' || i % 3,
							tokens => (SELECT array_agg(((hashint8(i * 100 + t)::bigint * 2654435761) % 9223372036854775807))
									   FROM generate_series(1, 4) t))) AS nodes
FROM generate_series(1, 10) i;
CREATE TABLE plan_big AS
SELECT false AS zones, * FROM chash_rebalance('rzb', 'rzb_copies', 'many_keys', 'id', replicas => 3)
UNION ALL
SELECT true, * FROM chash_rebalance('rzb', 'rzb_zones', 'many_keys', 'id', replicas => 3, distinct_zones => true);
CREATE TABLE big_copies AS
SELECT id, chash_lookup_n('rzb', id, 3) AS before, chash_lookup_n('rzb_copies', id, 3) AS after,
	   chash_lookup_n('rzb', id, 3, true) AS zbefore, chash_lookup_n('rzb_zones', id, 3, true) AS zafter
FROM many_keys;
SELECT round(max(before / target)::numeric, 3) AS peak_before, max(after / target) <= 1.05 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_big WHERE NOT zones) BETWEEN sum(greatest(0, before - 1.05 * target))
															AND 1.01 * sum(greatest(0, before - 1.05 * target)) AS near_the_bound,
	   bool_and(after = (SELECT count(*) FROM big_copies b, unnest(b.after) c WHERE c = r.node)) AS after_counted,
	   (SELECT sum(moved) FROM plan_big WHERE NOT zones) =
	   (SELECT count(*) FROM big_copies b, unnest(b.after) c WHERE NOT c = ANY (b.before)) AS moved_copies_agree
FROM chash_rebalance_report('rzb', 'rzb_copies', 'many_keys', 'id', replicas => 3) r;
SELECT round(max(r.before / r.target)::numeric, 3) AS peak_before,
	   round(max(z.floor / r.target)::numeric, 3) AS zone_floor,
	   max(r.after / r.target) <= 1.005 * max(z.floor / r.target) AS at_the_floor,
	   bool_and(r.after = (SELECT count(*) FROM big_copies b, unnest(b.zafter) c WHERE c = r.node)) AS after_counted,
	   (SELECT sum(moved) FROM plan_big WHERE zones) =
	   (SELECT count(*) FROM big_copies b, unnest(b.zafter) c WHERE NOT c = ANY (b.zbefore)) AS moved_copies_agree
FROM chash_rebalance_report('rzb', 'rzb_zones', 'many_keys', 'id', replicas => 3, distinct_zones => true) r
JOIN (SELECT n.node, 20000.0 / count(*) OVER (PARTITION BY n.zone) AS floor
	  FROM chash.node_config n WHERE n.ring = 'rzb') z ON z.node = r.node;
-- a drain with zones: only the drained node's copies go
CREATE TABLE plan_big_drain AS
SELECT * FROM chash_rebalance('rzb', 'rzb_drain', 'many_keys', 'id', replicas => 3, distinct_zones => true,
							  drain => '{n03}');
SELECT bool_and(from_node = 'n03') AS only_n03s_copies,
	   sum(moved) = (SELECT count(*) FROM big_copies WHERE 'n03' = ANY (zbefore)) AS all_of_them,
	   (SELECT bool_and(array_remove(b.zbefore, 'n03') <@ chash_lookup_n('rzb_drain', b.id, 3, true))
		FROM big_copies b) AS others_stay
FROM plan_big_drain;
-- a ring whose positions have 32 bits, and one whose order is signed
SELECT chash_ring_create('rzc', algorithm => 'tokens', key_hash => 'crc32');
SELECT count(chash_node_add('rzc', 'c' || i, tokens => ARRAY[i * 600000000::bigint, i * 600000000::bigint + 277777777])) AS nodes
FROM generate_series(1, 6) i;
SELECT chash_ring_create('rzm', algorithm => 'tokens', key_hash => 'cassandra_murmur3');
SELECT count(chash_node_add('rzm', 'c' || i, tokens => ARRAY[i * 1000000000000000000 - 4000000000000000000])) AS nodes
FROM generate_series(1, 6) i;
CREATE TABLE plan_spaces AS
SELECT 'rzc' AS ring, * FROM chash_rebalance('rzc', 'rzc_copies', 'many_keys', 'id', replicas => 2)
UNION ALL
SELECT 'rzm', * FROM chash_rebalance('rzm', 'rzm_copies', 'many_keys', 'id', replicas => 2);
SELECT x.ring, max(r.after / r.target) <= 1.05 AS peak_after_within,
	   (SELECT sum(moved) FROM plan_spaces p WHERE p.ring = x.ring)
	   <= 1.01 * sum(greatest(0, r.before - 1.05 * r.target)) AS near_the_bound,
	   (SELECT sum(moved) FROM plan_spaces p WHERE p.ring = x.ring) =
	   (SELECT count(*) FROM many_keys k, unnest(chash_lookup_n(x.ring || '_copies', k.id, 2)) c
		WHERE NOT c = ANY (chash_lookup_n(x.ring, k.id, 2))) AS moved_copies_agree,
	   bool_and(r.after = (SELECT count(*) FROM many_keys k, unnest(chash_lookup_n(x.ring || '_copies', k.id, 2)) c
						   WHERE c = r.node)) AS after_counted
FROM (VALUES ('rzc'), ('rzm')) x(ring), chash_rebalance_report(x.ring, x.ring || '_copies', 'many_keys', 'id', replicas => 2) r
GROUP BY x.ring ORDER BY 1;
-- the planner refuses what chash_rebalance never gives it
CREATE TEMP VIEW rzb_nodes AS
SELECT array_agg(node ORDER BY node) AS names, array_agg(1000.0::float8 ORDER BY node) AS limits,
	   array_agg(false ORDER BY node) AS drained
FROM chash.node_config WHERE ring = 'rzb';
SELECT * FROM chash.rebalance_copy_tokens('rb', '{}', '{}', '{m1,m2,m3,m4,m5}', '{1,1,1,1,1}', '{f,f,f,f,f}', 2, false, 'Infinity');
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1}', names, limits, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,NULL}', '{1,1}', names, limits, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{{1},{2}}', '{1,1}', names, limits, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,-1}', names, limits, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits[2:], drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits, drained[2:], 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names[2:], limits[2:], drained[2:], 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names[2:] || 'n02'::text, limits, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits[2:] || 'NaN'::float8, drained, 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits, drained, 0, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits, '{t,t,t,t,t,t,t,t,f,f}', 3, false, 'Infinity') p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits, drained, 3, false, -1) p;
SELECT p.* FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{1,2}', '{1,1}', names, limits, drained, 3, false, 'NaN') p;
SELECT * FROM chash.rebalance_copy_tokens('rzc', '{-1}', '{1}', '{c1,c2,c3,c4,c5,c6}', '{1,1,1,1,1,1}', '{f,f,f,f,f,f}', 2, false, 'Infinity');
-- (a plan without rows changes no token)
SELECT count(*) FILTER (WHERE (SELECT array_agg(t ORDER BY t) FROM unnest(p.tokens) t) =
							(SELECT array_agg(t ORDER BY t) FROM unnest(n.tokens) t)) AS unchanged,
	   count(*) AS nodes
FROM rzb_nodes, chash.rebalance_copy_tokens('rzb', '{}', '{}', names, limits, drained, 3, false, 'Infinity') p
JOIN chash.node_config n ON n.ring = 'rzb' AND n.node = p.node;
DROP VIEW rzb_nodes;
DROP TABLE many_keys, plan_big, big_copies, plan_big_drain, plan_spaces;
-- a Redis master's replicas hold its slots: the plan is of masters
SELECT * FROM chash_rebalance('rb', 'rb_x', 'tenants', 'tenant', replicas => 2);
SELECT * FROM chash_rebalance('rz', 'rb_x', 'tenants', 'tenant', replicas => 0);
SELECT * FROM chash_rebalance('rz', 'rb_x', 'tenants', 'tenant', replicas => 7);
DROP TABLE plan_copies, report_copies, copies;

-- Refusals, with nothing made
SELECT chash_ring_create('rb_ring');
SELECT chash_node_add('rb_ring', 'a');
SELECT chash_ring_create('rb_jump', algorithm => 'jump');
SELECT chash_node_add('rb_jump', 'a');
SELECT * FROM chash_rebalance('rb', 'rb_rows', 'skew', 'id');
SELECT * FROM chash_rebalance('rb_ring', 'rb_x', 'skew', 'id', allow_tokens => NULL);
SELECT * FROM chash_rebalance('rk', 'rb_x', 'skew', 'id', allow_tokens => true);
SELECT chash_ring_create('rb_before', algorithm => 'tokens', lookup => 'predecessor');
SELECT chash_node_add('rb_before', 'a', tokens => '{1}');
SELECT * FROM chash_rebalance('rb_before', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('rb_jump', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('nope', 'rb_x', 'skew', 'id');
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', target_peak => 0.9);
SELECT * FROM chash_rebalance('rb', 'rb_x', 'skew', 'id', cost => 'disk');
SELECT * FROM chash_rebalance('rt', 'rb_x', 'skew', 'id', cost => 'disk');
SELECT * FROM chash_rebalance('rk', 'rb_x', 'skew', 'id', cost => 'disk');
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
DROP TABLE plan_tokens, report_tokens, plan_tokens_bytes, plan_tokens_drain, plan_points, plan_vnodes,
	plan_weights, tenants;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config
WHERE ring LIKE 'rt%' OR ring LIKE 'rv%' OR ring LIKE 'rk%' OR ring LIKE 'rm%' OR ring LIKE 'rs%' OR ring LIKE 'rz%';
