--
-- Load reports: exact ownership, imbalance figures, key distribution and
-- the pictures.
--
SET client_encoding = 'UTF8';

-- A ring whose points can be computed by hand: Java's String.hashCode of
-- 'a0' is 97 * 31 + 48 = 3055, of 'b0' 3086, of 'c0' 3117
SELECT chash_ring_create('hand', hash => 'java_hashcode', vnodes => 1, vnode_name => '{node}{i}');
SELECT chash_node_add('hand', n) FROM unnest(ARRAY['a', 'b', 'c']) n;
SELECT point, node, vnode FROM chash_points('hand');
-- b owns (3055, 3086], c (3086, 3117], a all the rest of the 2^32 positions
SELECT node, points, owned * 4294967296 AS positions_owned, expected, round(ratio::numeric, 6) AS ratio
FROM chash_ownership('hand');
SELECT bool_and(owned * 4294967296 = CASE node WHEN 'a' THEN 4294967296 - 62 ELSE 31 END) AS exact,
	   sum(owned) AS total
FROM chash_ownership('hand');
-- with two replicas a key is held by its owner and the next node: a's arc
-- by a and b, b's by b and c, c's by c and a
SELECT node, owned * 4294967296 AS positions_held, expected
FROM chash_ownership('hand', 2);
SELECT node, owned, expected FROM chash_ownership('hand', 3);
-- a heavy node holds each key at most once: its expected share is capped
-- at 1 and the rest goes to the others by weight
SELECT chash_ring_create('heavy', hash => 'murmur3_32');
SELECT chash_node_add('heavy', n, w) FROM (VALUES ('a', 1), ('b', 1), ('c', 1), ('d', 5)) v(n, w);
SELECT node, weight, round(expected::numeric, 6) AS expected FROM chash_ownership('heavy', 2);
SELECT sum(owned) AS owned, sum(expected) AS expected FROM chash_ownership('heavy', 2);
SELECT chash_ring_drop('heavy');
-- the figures
SELECT nodes, points, round(peak_to_mean::numeric, 6) AS peak_to_mean,
	   round(min_ratio::numeric, 9) AS min_ratio, round(max_ratio::numeric, 6) AS max_ratio
FROM chash_ring_stats('hand');

-- a node down holds nothing and is expected to hold nothing; the others
-- take its arcs
SELECT chash_node_set('hand', 'b', state => 'down');
SELECT node, state, points, owned * 4294967296 AS positions_owned, expected, round(ratio::numeric, 6) AS ratio
FROM chash_ownership('hand');
SELECT nodes, points FROM chash_ring_stats('hand');
SELECT chash_node_set('hand', 'b', state => 'active');

-- weights: the expected share is the share of the active weight
SELECT chash_node_set('hand', 'c', weight => 2);
SELECT node, weight, expected FROM chash_ownership('hand');
-- ... also where the weights add up past the largest double (nodes with
-- their own vnodes may have any finite weight)
SELECT chash_ring_create('heavy', vnodes => 10);
SELECT chash_node_add('heavy', n, weight => w, vnodes => 10)
FROM (VALUES ('a', 1e308), ('b', 1e308), ('c', 5e307), ('d', 1), ('e', 5e-324)) v(n, w);
SELECT node, weight, expected FROM chash_ownership('heavy');
SELECT node, round(expected::numeric, 6) AS expected FROM chash_ownership('heavy', 2);
-- (with the big nodes capped, the rest share what is left: no NaN)
SELECT r AS replicas, sum(o.expected) AS expected, count(*) FILTER (WHERE o.expected = 'NaN') AS nan
FROM generate_series(1, 5) r, chash_ownership('heavy', r) o GROUP BY r ORDER BY r;
SELECT chash_ring_drop('heavy');

-- points on one position: the first in ring order owns the arc ('Aa' and
-- 'BB' have the same hashCode, and so have 'Aa0' and 'BB0')
SELECT chash_ring_create('tie', hash => 'java_hashcode', vnodes => 1, vnode_name => '{node}{i}', ties => 'last');
SELECT chash_node_add('tie', n) FROM unnest(ARRAY['Aa', 'BB', 'z']) n;
SELECT point, node FROM chash_points('tie');
SELECT node, owned > 0 AS owns FROM chash_ownership('tie');
SELECT sum(owned) FROM chash_ownership('tie');

-- ownership agrees with where keys go: 200,000 keys on a ring of 8 nodes
SELECT chash_ring_create('big');
SELECT chash_node_add('big', 'n' || i, weight => 1 + i % 3) FROM generate_series(1, 8) i;
CREATE TABLE keys AS SELECT 'key:' || i AS k FROM generate_series(1, 200000) i;
SELECT round(sum(owned)::numeric, 12) AS total, round(sum(expected)::numeric, 12) AS expected
FROM chash_ownership('big');
SELECT d.node, d.keys, abs(d.share - o.owned) < 0.01 AS share_near_owned,
	   round(d.expected::numeric, 6) = round(o.expected::numeric, 6) AS same_expected
FROM chash_key_distribution('big', 'keys', 'k') d JOIN chash_ownership('big') o USING (node);
SELECT sum(keys) FROM chash_key_distribution('big', 'keys', 'k');
-- replicas: each node's keys on chash_lookup_n(..., 2) against its ownership
SELECT o.node, abs(c.n / 200000.0 - o.owned) < 0.01 AS near
FROM chash_ownership('big', 2) o
JOIN (SELECT unnest(chash_lookup_n('big', k, 2)) AS node, count(*) AS n FROM keys GROUP BY 1) c USING (node)
ORDER BY o.node;

-- the view for dashboards: every ring, an empty one included
SELECT chash_ring_create('empty');
SELECT ring, algorithm, nodes, points, round(peak_to_mean::numeric, 4) AS peak_to_mean
FROM chash.ring_balance ORDER BY ring;

-- pictures: standalone SVG 1.1, every node in the legend with its shares
-- (test/scripts/svg.sh renders them)
SELECT left(chash_ring_svg('hand'), 250) AS head;
SELECT (SELECT count(*) FROM regexp_matches(chash_ring_svg('big'), '<path ', 'g')) AS paths,
	   (SELECT count(*) FROM regexp_matches(chash_ring_svg('big'), '<rect x="\d+" y="\d+" width="12"', 'g')) AS legend_entries;
-- a node that owns nearly all of the ring is drawn (no arc whose ends
-- coincide, which SVG would leave out), in slices of the circle
SELECT count(*) AS subpaths,
	   count(*) FILTER (WHERE m[1] = m[3] AND m[2] = m[4]) AS degenerate
FROM regexp_matches(chash_ring_svg('hand'),
					'M ([0-9.]+) ([0-9.]+) A [0-9.]+ [0-9.]+ 0 0 1 ([0-9.]+) ([0-9.]+)', 'g') m;
-- the arcs behind the picture add up to each node's ownership
SELECT o.node, abs(a.len - o.owned) < 1e-9 AS arcs_are_owned
FROM chash_ownership('big') o
JOIN (SELECT node, sum(stop - start) AS len FROM chash.ring_arcs('big') GROUP BY node) a USING (node)
ORDER BY o.node;
-- computed placements are drawn too: a table by its slots, modulo and jump
-- by their members in order, an equal arc each, whose lengths are each
-- node's share (a table's within its slots' rounding: 960 slots of a 32-bit
-- hash differ from the hash space's by less than a millionth); rendezvous
-- has no arcs
SELECT chash_ring_create('pic_' || a, algorithm => a,
						 table_size => CASE a WHEN 'maglev' THEN 1009 WHEN 'slots' THEN 1000 WHEN 'elasticsearch' THEN 960 END)
FROM unnest(ARRAY['maglev', 'slots', 'elasticsearch', 'modulo', 'jump', 'rendezvous']) a;
SELECT chash_node_add(r.ring, 'n' || i) FROM chash.ring_config r, generate_series(1, 6) i WHERE r.ring LIKE 'pic\_%';
SELECT r.ring, (SELECT count(*) FROM chash.ring_arcs(r.ring)) AS arcs, count(a.node) AS nodes_drawn,
	   coalesce(max(abs(a.len - o.owned)) < 1e-6, true) AS arcs_are_owned,
	   (SELECT count(*) FROM regexp_matches(chash_ring_svg(r.ring), '<path ', 'g')) AS paths
FROM chash.ring_config r
LEFT JOIN LATERAL (SELECT x.node, sum(x.stop - x.start) AS len FROM chash.ring_arcs(r.ring) x GROUP BY x.node) a ON true
LEFT JOIN LATERAL chash_ownership(r.ring) o ON o.node = a.node
WHERE r.ring LIKE 'pic\_%'
GROUP BY r.ring ORDER BY r.ring;
-- modulo's and jump's arcs are their members in order
SELECT string_agg(node, ' ' ORDER BY start) AS modulo_arcs FROM chash.ring_arcs('pic_modulo');
SELECT chash_ring_drop(ring) FROM chash.ring_config WHERE ring LIKE 'pic\_%';
SELECT chash_node_add('hand', '<b & "c">');
SELECT chash_node_add('hand', 'ünï 🐘');
SELECT position('&lt;b &amp; &quot;c&quot;&gt;' IN chash_ring_svg('hand')) > 0 AS escaped,
	   position('<b & "c">' IN chash_ring_svg('hand')) = 0 AS nothing_raw,
	   position('&#xFC;n&#xEF; &#x1F418;' IN chash_ring_svg('hand')) > 0 AS referenced,
	   chash_ring_svg('hand') !~ '[^\x01-\x7F]' AS ascii;
SELECT (SELECT count(*) FROM regexp_matches(chash_ownership_svg('big'), '<rect x="\d+" y="\d+" width="[0-9.]+" height="14"', 'g')) AS bars;
SELECT length(chash_ring_svg('empty')) > 0 AS empty_ring_drawn;

-- bad input
SELECT * FROM chash_ownership('hand', 0);
SELECT * FROM chash_ownership('hand', 6);
SELECT * FROM chash_ownership('nope');
-- (PL/pgSQL numbers the line of this error's context differently before 15)
\set VERBOSITY terse
SELECT * FROM chash_key_distribution('big', 'keys', 'nope');
\set VERBOSITY default
SELECT chash_ring_svg('hand', 10);
SELECT chash_ownership_svg('hand', 100000);

DROP TABLE keys;
SELECT count(chash_ring_drop(ring)) FROM chash.ring_config;
