-- test/demo.sql: a walk-through of chash, run by `make demo` on a brand-new
-- throwaway cluster:
--
--   psql -X -v ON_ERROR_STOP=1 -q -f test/demo.sql
--
-- The statements that matter are echoed before their results; the output is
-- the same on every run (no random keys, no timings).

\pset footer off
\pset null '-'
\set ECHO none

\echo '=== 1. A ring of four shards ================================================='
\echo 'chash places every node on a circle of 2^64 positions many times over (160'
\echo 'virtual nodes, "vnodes", per node of weight 1); a key belongs to the first'
\echo 'vnode clockwise from the hash of the key.'
\echo
\set ECHO queries
CREATE EXTENSION chash;
\o /dev/null
SELECT chash_ring_create('users');
SELECT chash_node_add('users', 'pg-shard-1', zone => 'eu-west-1a');
SELECT chash_node_add('users', 'pg-shard-2', zone => 'eu-west-1b');
SELECT chash_node_add('users', 'pg-shard-3', zone => 'eu-west-1a');
SELECT chash_node_add('users', 'pg-shard-4', zone => 'eu-west-1b');
\o
\echo
SELECT ring, algorithm, hash, vnodes, nodes, active_nodes, points
FROM chash.rings;
SELECT node, zone, weight, vnodes, state, points
FROM chash.nodes WHERE ring = 'users' ORDER BY node;
\set ECHO none
\echo 'vnodes "-": no vnode count of its own, so the node gets 160 x weight points.'

\echo
\echo '=== 2. Routing 100,000 accounts =============================================='
\echo 'chash_lookup(ring, key) names the shard that owns a key.'
\echo
\set ECHO queries
CREATE TEMP TABLE accounts (id bigint PRIMARY KEY, email text, shard text);
INSERT INTO accounts (id, email)
SELECT i, format('user%s@example.com', i) FROM generate_series(1, 100000) AS i;
UPDATE accounts SET shard = chash_lookup('users', id);
SELECT * FROM accounts ORDER BY id LIMIT 5;
\set ECHO none
\echo 'How evenly are the keys spread?  A view that routes every key afresh, so that'
\echo 'it follows the changes to the ring made further down:'
\echo
\set ECHO queries
CREATE TEMP VIEW spread AS
WITH owner AS (
    SELECT chash_lookup('users', id) AS node, count(*) AS keys
    FROM accounts GROUP BY 1
), node AS (
    SELECT node, weight, state, points,
           CASE WHEN state = 'active' THEN weight::numeric END AS w
    FROM chash.nodes WHERE ring = 'users'
)
SELECT node, weight, state, points, coalesce(keys, 0) AS keys,
       round(100.0 * coalesce(keys, 0) / sum(keys) OVER (), 2) AS "share %",
       round(100 * w / sum(w) OVER (), 2) AS "expected %",
       round(coalesce(keys, 0) / sum(keys) OVER () / (w / sum(w) OVER ()), 3)
           AS ratio
FROM node LEFT JOIN owner USING (node)
ORDER BY node;
SELECT * FROM spread;
\set ECHO none
\echo 'Each shard holds close to its 25%, within about 10%.  160 vnodes a node (the'
\echo 'default) is a compromise: more (chash_ring_create(ring, vnodes => ...)) even'
\echo 'the shares out further, at the cost of a larger ring in memory.'

\echo
\echo '=== 3. Where a key lands, and its replica ===================================='
\echo 'chash_position(ring, key) is where a key falls on the circle: its hash, shown'
\echo 'as a signed bigint.  Read as an angle (0 to 360 degrees), it sits just before'
\echo 'the vnode that claims it; chash_points(ring) lists every vnode of the ring.'
\echo
\set ECHO queries
CREATE FUNCTION pg_temp.angle(pos bigint) RETURNS numeric LANGUAGE sql IMMUTABLE
AS $$ SELECT (pos::numeric + CASE WHEN pos < 0 THEN 2::numeric ^ 64 ELSE 0 END)
             * 360 / 2::numeric ^ 64 $$;
WITH vnodes AS MATERIALIZED (
    SELECT pg_temp.angle(point) AS angle, vnode FROM chash_points('users')
)
SELECT a.id, chash_position('users', a.id) AS position,
       round(k.angle, 3) AS "key angle",
       v.vnode AS "next vnode clockwise", round(v.angle, 3) AS "vnode angle"
FROM accounts a
CROSS JOIN LATERAL
    (SELECT pg_temp.angle(chash_position('users', a.id)) AS angle) k
CROSS JOIN LATERAL (SELECT * FROM vnodes
                    ORDER BY vnodes.angle < k.angle, vnodes.angle LIMIT 1) v
WHERE a.id <= 5 ORDER BY a.id;
\set ECHO none
\echo 'chash_lookup_n(ring, key, n) goes on clockwise and lists the first n distinct'
\echo 'shards: the owner (what chash_lookup says), then where to keep a second copy.'
\echo
\set ECHO queries
SELECT id, copies[1] AS owner, o.zone AS "owner zone",
       copies[2] AS replica, r.zone AS "replica zone"
FROM (SELECT id, chash_lookup_n('users', id, 2) AS copies
      FROM accounts WHERE id <= 5) AS k
JOIN chash.nodes o ON o.ring = 'users' AND o.node = copies[1]
JOIN chash.nodes r ON r.ring = 'users' AND r.node = copies[2]
ORDER BY id;
\set ECHO none
\echo 'Walking on, both copies of a key can end up in one zone, as for some keys'
\echo 'above.  With distinct_zones the walk first takes shards of zones that hold no'
\echo 'copy yet; the owner stays the same:'
\echo
\set ECHO queries
SELECT id, copies[1] AS owner, o.zone AS "owner zone",
       copies[2] AS replica, r.zone AS "replica zone"
FROM (SELECT id, chash_lookup_n('users', id, 2, distinct_zones => true) AS copies
      FROM accounts WHERE id <= 5) AS k
JOIN chash.nodes o ON o.ring = 'users' AND o.node = copies[1]
JOIN chash.nodes r ON r.ring = 'users' AND r.node = copies[2]
ORDER BY id;
SELECT count(*) FILTER (WHERE o.zone = r.zone) AS "same zone, walking on",
       count(*) FILTER (WHERE oz.zone = rz.zone) AS "same zone, distinct_zones"
FROM (SELECT chash_lookup_n('users', id, 2) AS walk,
             chash_lookup_n('users', id, 2, true) AS zoned FROM accounts) k
JOIN chash.nodes o ON o.ring = 'users' AND o.node = walk[1]
JOIN chash.nodes r ON r.ring = 'users' AND r.node = walk[2]
JOIN chash.nodes oz ON oz.ring = 'users' AND oz.node = zoned[1]
JOIN chash.nodes rz ON rz.ring = 'users' AND rz.node = zoned[2];
\set ECHO none

\echo
\echo '=== 4. Adding a fifth shard =================================================='
\echo 'A new node adds its own vnodes and takes over the arcs just before them; no'
\echo 'other vnode moves, so a key changes shard only if it goes to the new one.'
\echo
\set ECHO queries
\o /dev/null
SELECT chash_node_add('users', 'pg-shard-5', zone => 'eu-west-1c');
\o
ALTER TABLE accounts ADD COLUMN new_shard text;
UPDATE accounts SET new_shard = chash_lookup('users', id);
SELECT shard AS "from \ to",
       count(*) FILTER (WHERE new_shard = 'pg-shard-1') AS "pg-shard-1",
       count(*) FILTER (WHERE new_shard = 'pg-shard-2') AS "pg-shard-2",
       count(*) FILTER (WHERE new_shard = 'pg-shard-3') AS "pg-shard-3",
       count(*) FILTER (WHERE new_shard = 'pg-shard-4') AS "pg-shard-4",
       count(*) FILTER (WHERE new_shard = 'pg-shard-5') AS "pg-shard-5"
FROM accounts GROUP BY shard ORDER BY shard;
\set ECHO none
\echo 'On the diagonal the keys that stayed; the only other column is the new shard.'
\echo
\echo 'Compare with the split most sharding starts from, shard = id % n: a ring of'
\echo 'algorithm modulo on the key hash identity (the id is its own position), going'
\echo 'from 4 to 5 shards, and jump consistent hash over the same shards:'
\echo
\set ECHO queries
\o /dev/null
SELECT chash_ring_create('users_mod', algorithm => 'modulo', key_hash => 'identity');
SELECT chash_node_add('users_mod', 'pg-shard-' || i) FROM generate_series(1, 4) i;
SELECT chash_ring_copy('users_mod', 'users_mod5');
SELECT chash_node_add('users_mod5', 'pg-shard-5');
SELECT chash_ring_create('users_jump', algorithm => 'jump');
SELECT chash_node_add('users_jump', 'pg-shard-' || i) FROM generate_series(1, 4) i;
SELECT chash_ring_copy('users_jump', 'users_jump5');
SELECT chash_node_add('users_jump5', 'pg-shard-5');
\o
SELECT id, id % 4 AS "id % 4", chash_lookup('users_mod', id) AS "users_mod",
       chash_lookup('users_mod5', id) AS "users_mod5"
FROM accounts WHERE id <= 5 ORDER BY id;
SELECT s.scheme, count(m.*) AS moved,
       round(100.0 * count(m.*) / 100000, 2) AS "moved %", 20.00 AS "ideal % (1/5)",
       count(m.*) FILTER (WHERE m.to_node <> 'pg-shard-5') AS "moved between old shards"
FROM (VALUES ('chash ring', 'users', NULL), ('id % n', 'users_mod', 'users_mod5'),
             ('jump', 'users_jump', 'users_jump5')) AS s(scheme, from_ring, to_ring)
LEFT JOIN LATERAL (
    SELECT a.shard AS from_node, a.new_shard AS to_node FROM accounts a
    WHERE s.to_ring IS NULL AND a.new_shard <> a.shard
    UNION ALL
    SELECT k.from_node, k.to_node
    FROM chash_moved_keys(s.from_ring, s.to_ring, 'accounts', 'id')
        AS k(key bigint, from_node text, to_node text)
    WHERE s.to_ring IS NOT NULL) m ON true
GROUP BY s.scheme ORDER BY min(s.from_ring);
\set ECHO none
\echo 'With the ring, every moved key went to pg-shard-5 (0 moved between old shards),'
\echo 'and close to one key in five moved: the least that gives the new shard its fair'
\echo 'share.  With id % n four keys in five change shard, most of them between'
\echo 'shards that were there all along: nearly the whole data set would be copied.'
\echo 'Jump hash moves as little as the ring, and evenly without vnodes, but its'
\echo 'shards are numbers: it grows and shrinks cheaply at the end only.'
\echo
\echo 'Plans go between any two schemes: leaving id % 4 for the ring of five, key by'
\echo 'key, these are the rows that would move:'
\echo
\set ECHO queries
SELECT from_node, to_node, keys
FROM chash_move_summary('users_mod', 'users', 'accounts', 'id')
WHERE from_node <> to_node ORDER BY from_node, to_node LIMIT 6;
SELECT sum(keys) FILTER (WHERE from_node <> to_node) AS "rows moved", sum(keys) AS rows
FROM chash_move_summary('users_mod', 'users', 'accounts', 'id');
\set ECHO none

\echo
\echo '=== 5. Weights and failures =================================================='
\echo 'pg-shard-5 is a bigger machine: weight 2 gives it 320 vnodes, so it should get'
\echo 'twice the share of a weight-1 shard.  Its first 160 vnodes stay where they'
\echo 'were, so keys only move onto it, as in step 4.'
\echo
\set ECHO queries
\o /dev/null
SELECT chash_node_set('users', 'pg-shard-5', weight => 2);
\o
SELECT * FROM spread;
\set ECHO none
\echo 'Close to twice, not exactly: with a few hundred vnodes a node, shares vary by'
\echo 'some 10% either way.'
\echo
\echo 'pg-shard-2 fails.  Marking it down takes its vnodes off the ring (its row stays'
\echo 'in the catalog): its keys go to the next shard clockwise, which is the replica'
\echo 'that chash_lookup_n had named for them, and no other key moves.'
\echo
\set ECHO queries
CREATE TEMP TABLE before AS
SELECT id, chash_lookup_n('users', id, 2) AS prefs FROM accounts;
\o /dev/null
SELECT chash_node_set('users', 'pg-shard-2', state => 'down');
\o
SELECT * FROM spread;
SELECT count(*) FILTER (WHERE prefs[1] = 'pg-shard-2') AS "keys of pg-shard-2",
       count(*) FILTER (WHERE prefs[1] = 'pg-shard-2'
                        AND chash_lookup('users', id) = prefs[2])
           AS "now on their replica",
       count(*) FILTER (WHERE prefs[1] <> 'pg-shard-2'
                        AND chash_lookup('users', id) <> prefs[1])
           AS "other keys moved"
FROM before;
\set ECHO none
\echo 'Once it is back, every key is where it was: a vnode''s position depends only on'
\echo 'the name of its node and its number.'
\echo
\set ECHO queries
\o /dev/null
SELECT chash_node_set('users', 'pg-shard-2', state => 'active');
\o
SELECT count(*) FILTER (WHERE chash_lookup('users', id) <> prefs[1])
           AS "keys not back home"
FROM before;
\set ECHO none
\echo
\echo 'How much of the hash space does each shard own?  Exactly, from the points (no'
\echo 'sampling), against its share of the weight; and how uneven the ring is.'
\echo
\set ECHO queries
SELECT node, weight, points, round(100 * owned::numeric, 2) AS "owned %",
       round(100 * expected::numeric, 2) AS "expected %", round(ratio::numeric, 3) AS ratio
FROM chash_ownership('users');
SELECT nodes, points, round(peak_to_mean::numeric, 3) AS peak_to_mean,
       round(min_ratio::numeric, 3) AS min_ratio, round(max_ratio::numeric, 3) AS max_ratio
FROM chash_ring_stats('users');
\set ECHO none
\echo 'The same as a picture: each shard''s arcs in its own colour (SVG 1.1).'
\pset format unaligned
\pset tuples_only on
\o demo-ring.svg
SELECT chash_ring_svg('users');
\o
\pset format aligned
\pset tuples_only off
\echo 'Wrote demo-ring.svg (open it in a browser).'
