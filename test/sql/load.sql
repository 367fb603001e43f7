--
-- chash_load: a table's rows and bytes in each unit a rebalance can
-- reassign (a ring's points, a table's slots)
--
\set VERBOSITY terse
CREATE TABLE load_keys (id bigint, tenant text, payload text);
INSERT INTO load_keys
SELECT i, 'tenant' || (i % 17), repeat('x', i % 50) FROM generate_series(1, 50000) i;
INSERT INTO load_keys VALUES (NULL, NULL, 'no key');
ANALYZE load_keys;
-- each row's size as a query shows it, to add up
CREATE TEMP TABLE load_sizes AS SELECT k.id, pg_column_size(k.*) AS size FROM load_keys k;

SELECT chash_ring_create('ld_ring', vnodes => 20);
SELECT chash_node_add('ld_ring', 'n' || i, weight => i) FROM generate_series(1, 3) i;
SELECT chash_ring_create('ld_ketama', algorithm => 'ketama');
SELECT chash_node_add('ld_ketama', 'k' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_create('ld_slots', profile => 'redis_cluster');
SELECT chash_node_add('ld_slots', 'm' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_create('ld_maglev', algorithm => 'maglev');
SELECT chash_node_add('ld_maglev', 'g' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_create('ld_es', profile => 'elasticsearch');
SELECT chash_node_add('ld_es', 'shard' || i) FROM generate_series(0, 2) i;
SELECT chash_ring_create('ld_tokens', algorithm => 'tokens', hash => 'cassandra_murmur3');
SELECT chash_node_add('ld_tokens', 'c1', tokens => '{-6000000000000000000,1000000000000000000}');
SELECT chash_node_add('ld_tokens', 'c2', tokens => '{-2000000000000000000}');

-- the units: a ring's points, a table's slots
SELECT r.ring, (SELECT count(*) FROM chash.ring_units(r.ring)) AS units,
	   (SELECT count(*) FROM chash_points(r.ring)) AS points
FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring);

-- every key's unit belongs to the key's owner, for every kind of unit
CREATE TEMP TABLE load_units AS
SELECT r.ring, u.unit, u.node
FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring),
	 LATERAL chash.ring_units(r.ring) u;
CREATE UNIQUE INDEX ON load_units (ring, unit);
ANALYZE load_units;
SELECT r.ring, count(*) AS keys,
	   count(*) FILTER (WHERE u.node IS DISTINCT FROM chash_lookup(r.ring, k.id)) AS elsewhere
FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring)
CROSS JOIN load_keys k
LEFT JOIN load_units u
  ON u.ring = r.ring AND u.unit = chash.position_unit(r.ring, chash_position(r.ring, k.id))
WHERE k.id IS NOT NULL
GROUP BY r.ring ORDER BY r.ring;

-- the load adds up, per node, to the key distribution (NULL keys nowhere),
-- and its bytes to the rows' sizes, counted per node; load is the cost
-- asked for
SELECT r.ring,
	   (SELECT sum(l.rows) FROM chash_load(r.ring, 'load_keys', 'id') l) AS rows,
	   NOT EXISTS (
		   SELECT l.node, sum(l.bytes) FROM chash_load(r.ring, 'load_keys', 'id') l GROUP BY l.node
		   EXCEPT
		   SELECT chash_lookup(r.ring, k.id), sum(k.size)
		   FROM load_sizes k WHERE k.id IS NOT NULL GROUP BY 1) AS bytes_add_up,
	   (SELECT bool_and(l.load = l.bytes) FROM chash_load(r.ring, 'load_keys', 'id', 'bytes') l) AS load_is_bytes,
	   (SELECT bool_and(l.rows_error = 0 AND l.bytes_error = 0) FROM chash_load(r.ring, 'load_keys', 'id') l) AS exact,
	   NOT EXISTS (
		   SELECT l.node, sum(l.rows) FROM chash_load(r.ring, 'load_keys', 'id') l GROUP BY l.node
		   EXCEPT
		   SELECT d.node, d.keys FROM chash_key_distribution(r.ring, 'load_keys', 'id') d) AS per_node
FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring)
ORDER BY r.ring;

-- chash_key_distribution's bytes: each node's rows' sizes, as chash_load
-- and a count of its own see them, and their share of all the bytes (rows
-- of NULL keys nowhere)
WITH counted AS (
	SELECT r.ring, chash_lookup(r.ring, k.id) AS node, sum(k.size) AS bytes
	FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring),
		 load_sizes k
	WHERE k.id IS NOT NULL GROUP BY 1, 2),
loaded AS (
	SELECT r.ring, l.node, sum(l.bytes) AS bytes
	FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring),
		 chash_load(r.ring, 'load_keys', 'id') l
	GROUP BY 1, 2),
distributed AS (
	SELECT r.ring, d.*
	FROM unnest(ARRAY['ld_ring', 'ld_ketama', 'ld_slots', 'ld_maglev', 'ld_es', 'ld_tokens']) r(ring),
		 chash_key_distribution(r.ring, 'load_keys', 'id') d),
total AS (SELECT sum(k.size) AS bytes FROM load_sizes k WHERE k.id IS NOT NULL)
SELECT ring, count(*) AS nodes,
	   count(*) FILTER (WHERE d.bytes = coalesce(c.bytes, 0)) AS bytes_as_counted,
	   count(*) FILTER (WHERE d.bytes = coalesce(l.bytes, 0)) AS bytes_as_loaded,
	   count(*) FILTER (WHERE abs(d.bytes_share - coalesce(c.bytes, 0)::float8 / t.bytes) < 1e-12) AS share_as_counted,
	   sum(d.bytes) = min(t.bytes) AS all_bytes,
	   round(sum(d.bytes_share)::numeric, 12) AS shares,
	   count(*) FILTER (WHERE d.bytes_share = d.share) AS share_equal_to_rows
FROM distributed d
FULL JOIN counted c USING (ring, node)
LEFT JOIN loaded l USING (ring, node)
CROSS JOIN total t
GROUP BY ring ORDER BY ring;

-- text keys with a hash tag: each tenant's rows in one slot
SELECT count(*) FILTER (WHERE rows > 0) AS slots_with_rows, sum(rows) AS rows
FROM chash_load('ld_slots', 'load_keys', 'tenant');

-- a sample: each node's estimate within four standard errors of the
-- truth, and the same rows on every call
WITH est AS (
	SELECT l.node, sum(l.rows) AS rows, sqrt(sum(l.rows_error ^ 2)) AS err,
		   sum(l.bytes) AS bytes, sqrt(sum(l.bytes_error ^ 2)) AS bytes_err
	FROM chash_load('ld_slots', 'load_keys', 'id', sample => 0.2) l GROUP BY l.node),
truth AS (
	SELECT l.node, sum(l.rows) AS rows, sum(l.bytes) AS bytes
	FROM chash_load('ld_slots', 'load_keys', 'id') l GROUP BY l.node)
SELECT e.node, e.err > 0 AS has_error,
	   abs(e.rows - t.rows) <= 4 * e.err AS rows_within,
	   abs(e.bytes - t.bytes) <= 4 * e.bytes_err AS bytes_within
FROM est e JOIN truth t USING (node) ORDER BY e.node;
SELECT (SELECT array_agg(rows ORDER BY unit) FROM chash_load('ld_maglev', 'load_keys', 'id', sample => 0.1)) =
	   (SELECT array_agg(rows ORDER BY unit) FROM chash_load('ld_maglev', 'load_keys', 'id', sample => 0.1)) AS repeatable;

-- refusals, with nothing changed
SELECT chash_ring_create('ld_jump', algorithm => 'jump');
SELECT chash_node_add('ld_jump', 'j1');
SELECT chash_ring_create('ld_pymemcache', profile => 'pymemcache');
SELECT chash_node_add('ld_pymemcache', '10.0.0.1:11211');
SELECT chash_ring_create('ld_empty');
SELECT * FROM chash_load('ld_jump', 'load_keys', 'id');
SELECT * FROM chash_load('ld_pymemcache', 'load_keys', 'id');
SELECT * FROM chash_load('ld_empty', 'load_keys', 'id');
SELECT * FROM chash.ring_units('ld_empty');
SELECT * FROM chash_load('ld_ring', 'load_keys', 'id', 'disk');
SELECT * FROM chash_load('ld_ring', 'load_keys', 'id', sample => 0);
SELECT * FROM chash_load('ld_ring', 'load_keys', 'id', sample => 1.5);
SELECT * FROM chash_load('ld_ring', 'load_keys', 'id', sample => 'NaN');
SELECT * FROM chash_load('ld_ring', 'load_keys', 'nope');
SELECT * FROM chash_load(NULL, 'load_keys', 'id');
SELECT * FROM chash_load('ld_ring', 'load_keys', 'id', NULL);
SELECT * FROM chash_load('no_ring', 'load_keys', 'id');
CREATE TABLE load_times (at timestamptz);
SELECT * FROM chash_load('ld_ring', 'load_times', 'at');
-- positions outside a 32-bit key hash's space
SELECT chash.position_unit('ld_ketama', -1);
SELECT chash.position_unit('ld_ketama', 4294967296);
SELECT chash.position_unit('ld_ketama', 4294967295) BETWEEN 0 AND 479 AS a_point;
SELECT chash.position_unit('ld_maglev', -1) BETWEEN 0 AND 65536 AS a_slot;
SELECT chash.position_unit('ld_jump', 1);
SELECT count(*) FROM chash.ring_units('ld_jump');
SELECT chash.position_unit('ld_empty', 1);
SELECT chash.position_unit('ld_ring', NULL), chash.position_unit(NULL, 1);

-- What a plan of tokens cuts ranges at (chash.rebalance_unit_rows): the
-- rows' distinct positions unit by unit, each unit's from its low end (the
-- first unit's begin with those after the last point), checked against
-- chash.position_unit and chash_points; the input holds repeated positions,
-- the points themselves, the positions just after them and the largest
CREATE TEMP TABLE unit_rows_in AS
SELECT chash_position('ld_ring', 'k' || (g % 700)) AS p, (g % 7)::float8 AS c FROM generate_series(1, 3000) g
UNION ALL SELECT point, 2 FROM chash_points('ld_ring')
UNION ALL SELECT point + 1, 3 FROM chash_points('ld_ring') WHERE point < 9223372036854775807
UNION ALL SELECT -1, 5;
CREATE TEMP TABLE unit_rows AS
SELECT x.* FROM chash.rebalance_unit_rows('ld_ring',
		(SELECT array_agg(node ORDER BY node) FROM chash.nodes WHERE ring = 'ld_ring'),
		(SELECT array_agg(p) FROM unit_rows_in), (SELECT array_agg(c) FROM unit_rows_in)) x;
CREATE TEMP TABLE unit_rows_expected AS
WITH pts AS (SELECT p.point, p.node, p.o FROM chash_points('ld_ring') WITH ORDINALITY AS p(point, node, vnode, o)),
	 d AS (SELECT i.p, sum(i.c) AS c, chash.position_unit('ld_ring', i.p) + 1 AS u FROM unit_rows_in i GROUP BY i.p)
SELECT d.*, (((d.p::numeric - prev.point::numeric - 1) % 18446744073709551616) + 18446744073709551616)
			% 18446744073709551616 AS offset_in_unit
FROM d JOIN pts prev ON prev.o = CASE WHEN d.u = 1 THEN (SELECT count(*) FROM pts) ELSE d.u - 1 END;
SELECT (SELECT array_agg(point ORDER BY o) FROM chash_points('ld_ring') WITH ORDINALITY AS p(point, node, vnode, o))
		   = r.unit_token AS tokens_in_ring_order,
	   (SELECT array_agg(node ORDER BY o) FROM chash_points('ld_ring') WITH ORDINALITY AS p(point, node, vnode, o))
		   = (SELECT array_agg(n.names[o] ORDER BY i)
			  FROM unnest(r.unit_owner) WITH ORDINALITY AS y(o, i),
				   (SELECT array_agg(node ORDER BY node) AS names FROM chash.nodes WHERE ring = 'ld_ring') n) AS owners,
	   (SELECT array_agg(e.p ORDER BY e.u, e.offset_in_unit) FROM unit_rows_expected e) = r.row_pos AS positions_in_order,
	   (SELECT array_agg(e.upto ORDER BY e.u, e.offset_in_unit)
		FROM (SELECT *, sum(c) OVER (PARTITION BY u ORDER BY offset_in_unit) AS upto FROM unit_rows_expected) e)
		   = r.row_upto AS running_loads,
	   (SELECT count(*) FROM unnest(r.first_row, r.last_row, r.cut_row) WITH ORDINALITY AS y(f, l, c, u)
		WHERE c <> f - 1 OR l - f + 1 <> (SELECT count(*) FROM unit_rows_expected e WHERE e.u = y.u)
		   OR (l >= f AND r.row_upto[l] <> (SELECT sum(e.c) FROM unit_rows_expected e WHERE e.u = y.u))
		   OR r.unit_load[y.u] <> coalesce((SELECT sum(e.c) FROM unit_rows_expected e WHERE e.u = y.u), 0)) AS bad_units,
	   (SELECT count(*) FROM unnest(r.by_node) WITH ORDINALITY AS y(u, i)
		WHERE i > 1 AND (r.unit_owner[r.by_node[i - 1]], -r.unit_load[r.by_node[i - 1]], r.by_node[i - 1])
						 >= (r.unit_owner[u], -r.unit_load[u], u)) AS by_node_out_of_order,
	   (SELECT count(*) FROM generate_series(1, cardinality(r.node_first)) k
		WHERE r.node_last[k] - r.node_first[k] + 1 <> (SELECT count(*) FROM unnest(r.unit_owner) o WHERE o = k)
		   OR EXISTS (SELECT FROM generate_series(r.node_first[k], r.node_last[k]) i
					  WHERE r.unit_owner[r.by_node[i]] <> k)) AS bad_nodes,
	   cardinality(r.row_pos) = (SELECT count(DISTINCT p) FROM unit_rows_in) AS one_row_a_position
FROM unit_rows r;
-- its refusals
SELECT * FROM chash.rebalance_unit_rows('ld_maglev', '{}', '{}', '{}');
SELECT * FROM chash.rebalance_unit_rows('ld_jump', '{j1}', '{}', '{}');
SELECT * FROM chash.rebalance_unit_rows('ld_empty', '{}', '{}', '{}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', '{}', '{}', '{}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1, 2}', '{1}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1, NULL}', '{1, 1}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1}'::bigint[], '{{1}}'::float8[]);
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1, 2, 3}', '{1, NaN, 1}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1, 2}', '{-1, 1}');
SELECT * FROM chash.rebalance_unit_rows('ld_ring', (SELECT array_agg(node) FROM chash.nodes WHERE ring = 'ld_ring'),
										 '{1}', '{Infinity}');
DROP TABLE unit_rows_in, unit_rows, unit_rows_expected;

DROP TABLE load_keys, load_times, load_units;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config WHERE ring LIKE 'ld\_%';
