--
-- Placements without points: modulo, jump and rendezvous, and the key
-- hash identity.  Published vectors where they exist, movement as the
-- theory says, exact ownership against counts over many keys.
--
SET client_encoding = 'UTF8';

--
-- identity: the key as the integer its decimal digits name
--
SELECT k, chash_hash('identity', k) AS position
FROM (VALUES ('0'), ('7'), ('0042'), ('9223372036854775807')) v(k);
SELECT chash_hash('identity', '\x313233'::bytea) AS bytea_key;
SELECT f.bits FROM chash_hash_functions() f WHERE f.name = 'identity';
-- anything else is an error naming the key
SELECT chash_hash('identity', '-1');
SELECT chash_hash('identity', '9223372036854775808');
SELECT chash_hash('identity', '12a');
SELECT chash_hash('identity', ' 12');
SELECT chash_hash('identity', '');
SELECT chash_hash('identity', 'ñ');
-- it places keys, never node names or points
SELECT chash_ring_create('bad', hash => 'identity');
SELECT chash_ring_create('bad', algorithm => 'rendezvous', hash => 'identity');
SELECT chash_ring_create('bad', key_hash => 'identity');
SELECT count(*) AS rings FROM chash.ring_config;

--
-- modulo: with identity, chash_lookup(ring, id) is id % n
--
SELECT chash_ring_create('mod4', algorithm => 'modulo', key_hash => 'identity');
SELECT chash_node_add('mod4', 'shard' || i) FROM generate_series(0, 3) i;
SELECT count(*) AS ids,
	   count(*) FILTER (WHERE chash_lookup('mod4', id) = 'shard' || (id % 4)) AS int4_agree,
	   count(*) FILTER (WHERE chash_lookup('mod4', id::bigint * 1000003) = 'shard' || ((id::bigint * 1000003) % 4)) AS int8_agree,
	   count(*) FILTER (WHERE chash_lookup('mod4', id::text) = 'shard' || (id % 4)) AS text_agree
FROM generate_series(0, 9999) id;
SELECT chash_lookup('mod4', 9223372036854775807) AS max_id, 9223372036854775807 % 4 AS expected;
SELECT chash_position('mod4', 12345) AS position;
-- negative ids have a negative remainder in MySQL and PostgreSQL: refused
SELECT chash_lookup('mod4', -5);
SELECT chash_lookup('mod4', 'user-5'::text);
-- the members are the active nodes in the order they were added (ordinal),
-- not by name
SELECT chash_ring_create('mod3', algorithm => 'modulo', key_hash => 'identity');
SELECT chash_node_add('mod3', n) FROM unnest(ARRAY['c', 'a', 'b']) n;
SELECT array_agg(chash_lookup('mod3', id) ORDER BY id) AS owners_of_0_to_5
FROM generate_series(0, 5) id;
-- preference order: the owner, then the members after it, wrapping
SELECT id, chash_lookup_n('mod3', id, 3) FROM generate_series(0, 2) id;
-- a node down leaves the members: id % 2 over c and b
SELECT chash_node_set('mod3', 'a', state => 'down');
SELECT array_agg(chash_lookup('mod3', id) ORDER BY id) AS owners_of_0_to_5
FROM generate_series(0, 5) id;
SELECT chash_lookup_n('mod3', 1, 3);
SELECT chash_node_set('mod3', 'a', state => 'active');
-- exact ownership: counts of positions.  A 32-bit key hash: 2^32 mod 3 = 1,
-- so member 0 (c) holds one position more than a and b.
SELECT chash_ring_create('mod3_32', algorithm => 'modulo', hash => 'murmur3_32');
SELECT chash_node_add('mod3_32', n) FROM unnest(ARRAY['c', 'a', 'b']) n;
SELECT node, points, owned * 4294967296 AS positions, expected
FROM chash_ownership('mod3_32') ORDER BY node;
SELECT node, owned * 4294967296 AS positions FROM chash_ownership('mod3_32', 2) ORDER BY node;
SELECT node, owned FROM chash_ownership('mod4', 2) ORDER BY node;
SELECT * FROM chash_ring_stats('mod4');
-- one member on a 64-bit key hash owns all 2^64 positions (found by the
-- fuzzer: the count of a residue's positions, 2^64, overflowed to 0)
SELECT chash_ring_create('mod1', algorithm => 'modulo');
SELECT chash_node_add('mod1', 'only');
SELECT node, owned, expected FROM chash_ownership('mod1');
SELECT nodes, peak_to_mean FROM chash_ring_stats('mod1');
-- no points: NULL in the views, no rows from chash_points
SELECT ring, algorithm, key_hash, nodes, active_nodes, points, problem FROM chash.rings WHERE ring = 'mod4';
SELECT node, points, ordinal > 0 AS has_ordinal FROM chash.nodes WHERE ring = 'mod4' ORDER BY ordinal;
SELECT count(*) AS points FROM chash_points('mod4');
-- modulo on hashed keys: ownership against 1,000,000 keys
SELECT chash_ring_create('modh', algorithm => 'modulo');
SELECT chash_node_add('modh', 'm' || i) FROM generate_series(1, 5) i;
SELECT o.node, round(o.owned::numeric, 6) AS owned,
	   abs(c.keys / 1e6 - o.owned) < 0.002 AS counted_agrees
FROM chash_ownership('modh') o
JOIN (SELECT chash_lookup('modh', 'key-' || i) AS node, count(*) AS keys
	  FROM generate_series(1, 1000000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
-- adding a fifth shard to id % 4 moves 4/5 of the ids
SELECT chash_ring_copy('mod4', 'mod5');
SELECT chash_node_add('mod5', 'shard4');
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = 'shard' || (m.key % 4) AND m.to_node = 'shard' || (m.key % 5)) AS as_id_mod_says,
	   (SELECT count(*) FROM generate_series(0, 9999) id WHERE id % 4 <> id % 5) AS id_mod_differs
FROM chash_moved_keys('mod4', 'mod5', ARRAY(SELECT generate_series(0, 9999))) m;

-- weights and vnodes do not apply, and say so
SELECT chash_node_add('mod4', 'heavy', weight => 2);
SELECT chash_node_set('mod4', 'shard1', weight => 0.5);
SELECT chash_node_add('mod4', 'many', vnodes => 10);
INSERT INTO chash.node_config (ring, node, weight) VALUES ('mod4', 'by_dml', 3);
UPDATE chash.node_config SET vnodes = 3 WHERE ring = 'mod4' AND node = 'shard0';
SELECT chash_ring_create('bad', algorithm => 'modulo', ketama_variant => 'libmemcached');
SELECT chash_ring_create('bad', algorithm => 'modulo', ties => 'first');
SELECT node, weight, vnodes FROM chash.node_config WHERE ring = 'mod4' ORDER BY node;
-- n beyond the active nodes
SELECT chash_lookup_n('mod4', 1, 5);
SELECT * FROM chash_ownership('mod4', 5);
-- no active node
SELECT chash_ring_create('empty', algorithm => 'modulo');
SELECT chash_lookup('empty', 'k');
SELECT chash_node_add('empty', 'x');
SELECT chash_node_set('empty', 'x', state => 'down');
SELECT chash_lookup_n('empty', 'k', 1);
SELECT node, owned FROM chash_ownership('empty');

--
-- jump: Lamping and Veach, arXiv 1406.2294.  With identity the key is the
-- 64-bit input of the paper's function and the owner is the member at the
-- bucket it returns.  Vectors: dgryski/go-jump's tests, also used by its
-- ports (e.g. the jump-consistent-hash package for Python), and two of
-- Microsoft's TypeScript port.
--
SELECT chash_ring_create('jump', algorithm => 'jump', key_hash => 'identity');
SELECT chash_node_add('jump', 'b' || lpad(i::text, 4, '0')) FROM generate_series(0, 1023) i;
CREATE TEMP TABLE jump_vectors (key bigint, buckets integer, bucket integer, source text);
INSERT INTO jump_vectors VALUES
	(1, 1, 0, 'go-jump'),
	(42, 57, 43, 'go-jump'),
	(3735883980, 1, 0, 'go-jump (0xDEAD10CC)'),
	(3735883980, 666, 361, 'go-jump (0xDEAD10CC)'),
	(256, 1024, 520, 'go-jump, jump-consistent-hash'),
	(10863919174838991, 11, 6, 'Microsoft TypeScript port'),
	(2016238256797177309, 11, 3, 'Microsoft TypeScript port');
-- each vector on a copy of the ring with its number of buckets: the
-- members are the first nodes added
CREATE FUNCTION pg_temp.jump_of(key bigint, buckets integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	owner text;
BEGIN
	PERFORM chash_ring_copy('jump', 'jump_n');
	DELETE FROM chash.node_config WHERE ring = 'jump_n' AND node >= 'b' || lpad(buckets::text, 4, '0');
	owner := chash_lookup('jump_n', key);
	PERFORM chash_ring_drop('jump_n');
	RETURN owner;
END
$$;
SELECT key, buckets, bucket, source,
	   pg_temp.jump_of(key, buckets) = 'b' || lpad(bucket::text, 4, '0') AS ok
FROM jump_vectors ORDER BY buckets, key;
-- adding a member moves 1/(n+1) of the keys, all to the new one
SELECT chash_ring_create('j10', algorithm => 'jump');
SELECT chash_node_add('j10', 'j' || i) FROM generate_series(1, 10) i;
SELECT chash_ring_copy('j10', 'j11');
SELECT chash_node_add('j11', 'j11');
SELECT count(*) AS moved, abs(count(*) / 100000.0 - 1 / 11.0) < 0.005 AS about_one_in_11,
	   count(*) FILTER (WHERE to_node <> 'j11') AS moved_elsewhere
FROM chash_moved_keys('j10', 'j11', ARRAY(SELECT 'key-' || i FROM generate_series(1, 100000) i));
-- removing the last member moves its keys only; removing one in the middle
-- renumbers the members after it
SELECT chash_ring_copy('j10', 'j10_last');
SELECT chash_node_remove('j10_last', 'j10');
SELECT chash_ring_copy('j10', 'j10_middle');
SELECT chash_node_remove('j10_middle', 'j5');
SELECT r.ring, count(*) AS moved, round(count(*) / 100000.0, 2) AS fraction
FROM (VALUES ('j10_last'), ('j10_middle')) r(ring),
	 LATERAL chash_moved_keys('j10', r.ring, ARRAY(SELECT 'key-' || i FROM generate_series(1, 100000) i))
GROUP BY r.ring ORDER BY r.ring;
-- ownership is 1/n each; against 1,000,000 keys
SELECT o.node, o.owned, abs(c.keys / 1e6 - o.owned) < 0.002 AS counted_agrees
FROM chash_ownership('j10') o
JOIN (SELECT chash_lookup('j10', 'key-' || i) AS node, count(*) AS keys
	  FROM generate_series(1, 1000000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
-- preference order as modulo's: the owner, then the members after it
SELECT bool_and(chash_lookup_n('j10', 'key-' || i, 3) =
				ARRAY[chash_lookup('j10', 'key-' || i),
					  'j' || (substr(chash_lookup('j10', 'key-' || i), 2)::int % 10 + 1),
					  'j' || ((substr(chash_lookup('j10', 'key-' || i), 2)::int + 1) % 10 + 1)]) AS walks_on
FROM generate_series(1, 1000) i;
SELECT chash_node_add('j10', 'w', weight => 3);

--
-- rendezvous: weighted highest random weight
--
SELECT chash_ring_create('hrw', algorithm => 'rendezvous');
SELECT chash_node_add('hrw', 'a', weight => 1), chash_node_add('hrw', 'b', weight => 2),
	   chash_node_add('hrw', 'c', weight => 3), chash_node_add('hrw', 'd', weight => 4);
-- shares follow weights: exact ownership is weight / total, and 1,000,000
-- keys agree
SELECT o.node, o.weight, o.owned, o.expected,
	   abs(c.keys / 1e6 - o.owned) < 0.002 AS counted_agrees
FROM chash_ownership('hrw') o
JOIN (SELECT chash_lookup('hrw', 'key-' || i) AS node, count(*) AS keys
	  FROM generate_series(1, 1000000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
-- two replicas: the integral against 200,000 keys' first two
SELECT o.node, round(o.owned::numeric, 4) AS owned,
	   abs(c.keys / 2e5 - o.owned) < 0.005 AS counted_agrees
FROM chash_ownership('hrw', 2) o
JOIN (SELECT unnest(chash_lookup_n('hrw', 'key-' || i, 2)) AS node, count(*) AS keys
	  FROM generate_series(1, 200000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
SELECT round(sum(owned)::numeric, 9) AS replicas FROM chash_ownership('hrw', 3);
-- the first of the preference order is the owner; all are distinct
SELECT bool_and(l[1] = chash_lookup('hrw', 'key-' || i)) AS first_is_owner,
	   bool_and((SELECT count(DISTINCT x) FROM unnest(l) x) = 4) AS distinct_nodes
FROM (SELECT i, chash_lookup_n('hrw', 'key-' || i, 4) AS l FROM generate_series(1, 2000) i) s;
-- a weight change moves keys to or from that node only
SELECT chash_ring_copy('hrw', 'hrw2');
SELECT chash_node_set('hrw2', 'b', weight => 5);
SELECT count(*) > 0 AS some_moved, count(*) FILTER (WHERE to_node <> 'b') AS moved_not_to_b
FROM chash_moved_keys('hrw', 'hrw2', ARRAY(SELECT 'key-' || i FROM generate_series(1, 20000) i));
SELECT chash_node_set('hrw2', 'b', weight => 0.5);
SELECT count(*) > 0 AS some_moved, count(*) FILTER (WHERE from_node <> 'b') AS moved_not_from_b
FROM chash_moved_keys('hrw', 'hrw2', ARRAY(SELECT 'key-' || i FROM generate_series(1, 20000) i));
-- an added node takes keys from every other, and only it gains
SELECT chash_ring_copy('hrw', 'hrw3');
SELECT chash_node_add('hrw3', 'e', weight => 2.5);
SELECT count(*) AS moved, count(DISTINCT from_node) AS from_nodes,
	   count(*) FILTER (WHERE to_node <> 'e') AS moved_elsewhere
FROM chash_moved_keys('hrw', 'hrw3', ARRAY(SELECT 'key-' || i FROM generate_series(1, 20000) i));
-- equal weights compare draws without logarithms: the same owners
SELECT chash_ring_create('hrw_eq', algorithm => 'rendezvous');
SELECT chash_node_add('hrw_eq', n) FROM unnest(ARRAY['a', 'b', 'c', 'd']) n;
SELECT chash_ring_copy('hrw_eq', 'hrw_eq2');
SELECT chash_node_set('hrw_eq2', 'a', weight => 1.0000001);
SELECT count(*) AS moved FROM chash_moved_keys('hrw_eq', 'hrw_eq2',
	ARRAY(SELECT 'key-' || i FROM generate_series(1, 20000) i));
SELECT node, owned FROM chash_ownership('hrw_eq', 2) ORDER BY node;
-- extreme weights (found by the fuzzer): weights summing past DBL_MAX,
-- equal weights at DBL_MAX and subnormal ones.  Shares still add up, and
-- the owner is the first of the preference order.
SELECT chash_ring_create('hrw_big', algorithm => 'rendezvous');
SELECT chash_node_add('hrw_big', 'a', weight => 1e308), chash_node_add('hrw_big', 'b', weight => 1.7e308),
	   chash_node_add('hrw_big', 'c', weight => 1e307);
SELECT node, round(owned::numeric, 6) AS owned, round(expected::numeric, 6) AS expected FROM chash_ownership('hrw_big') ORDER BY node;
SELECT round(sum(owned)::numeric, 9) AS two_copies FROM chash_ownership('hrw_big', 2);
SELECT chash_ring_create('hrw_max', algorithm => 'rendezvous'), chash_ring_create('hrw_tiny', algorithm => 'rendezvous'),
	   chash_ring_create('hrw_one', algorithm => 'rendezvous');
SELECT chash_node_add('hrw_max', n, weight => 1.7976931348623157e308), chash_node_add('hrw_tiny', n, weight => 5e-324),
	   chash_node_add('hrw_one', n, weight => 1)
FROM unnest(ARRAY['a', 'b', 'c']) n;
SELECT r.ring,
	   bool_and((chash_lookup_n(r.ring, 'key-' || i, 3))[1] = chash_lookup(r.ring, 'key-' || i)) AS first_is_owner,
	   bool_and(chash_lookup_n(r.ring, 'key-' || i, 3) = chash_lookup_n('hrw_one', 'key-' || i, 3)) AS as_weights_of_1
FROM unnest(ARRAY['hrw_max', 'hrw_tiny']) r(ring), generate_series(1, 2000) i
GROUP BY r.ring ORDER BY r.ring;
SELECT chash_ring_create('hrw_z', algorithm => 'rendezvous');
SELECT chash_node_add('hrw_z', n, weight => 1e-300, zone => 'one') FROM unnest(ARRAY['a', 'b', 'c']) n;
SELECT node, round(owned::numeric, 9) AS owned FROM chash_ownership('hrw_z', 2, true) ORDER BY node;
-- vnodes do not apply
SELECT chash_node_add('hrw', 'v', vnodes => 100);

--
-- maglev: Eisenbud et al., NSDI 2016.  A table of prime size, filled by
-- each member's permutation (offset = hash(name) mod M, skip =
-- hash(name || '#skip') mod (M - 1) + 1) in turns; owner = table[p mod M].
--
SELECT chash_ring_create('mag', algorithm => 'maglev', table_size => 307);
SELECT chash_node_add('mag', n) FROM unnest(ARRAY['m-a', 'm-b', 'm-c']) n;
SELECT algorithm, table_size FROM chash.ring_config WHERE ring = 'mag';
-- a reference fill in SQL: the same table, slot by slot
CREATE FUNCTION pg_temp.u64(h bigint) RETURNS numeric LANGUAGE sql IMMUTABLE AS
	$$ SELECT CASE WHEN h < 0 THEN h::numeric + 18446744073709551616 ELSE h::numeric END $$;
CREATE FUNCTION pg_temp.maglev_table(ring text, m integer) RETURNS integer[]
LANGUAGE plpgsql AS $$
DECLARE
	names text[] := ARRAY(SELECT node FROM chash.node_config WHERE node_config.ring = maglev_table.ring
						  AND state = 'active' ORDER BY ordinal, convert_to(node, 'UTF8'));
	offs numeric[];
	skips numeric[];
	nexts integer[];
	tbl integer[] := array_fill(0, ARRAY[m]);
	filled integer := 0;
	slot integer;
BEGIN
	FOR i IN 1 .. array_length(names, 1) LOOP
		offs[i] := pg_temp.u64(chash_hash('xxh3_64', names[i])) % m;
		skips[i] := pg_temp.u64(chash_hash('xxh3_64', names[i] || '#skip')) % (m - 1) + 1;
		nexts[i] := 0;
	END LOOP;
	WHILE filled < m LOOP
		FOR i IN 1 .. array_length(names, 1) LOOP
			EXIT WHEN filled = m;
			LOOP
				slot := ((offs[i] + nexts[i] * skips[i]) % m)::integer + 1;
				nexts[i] := nexts[i] + 1;
				EXIT WHEN tbl[slot] = 0;
			END LOOP;
			tbl[slot] := i;
			filled := filled + 1;
		END LOOP;
	END LOOP;
	RETURN tbl;
END
$$;
WITH t AS (SELECT pg_temp.maglev_table('mag', 307) AS tbl),
	 names AS (SELECT array_agg(node ORDER BY ordinal) AS n FROM chash.node_config WHERE ring = 'mag')
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('mag', 'key-' || i) =
						names.n[t.tbl[(pg_temp.u64(chash_position('mag', 'key-' || i)) % 307)::integer + 1]]) AS as_the_reference
FROM t, names, generate_series(1, 10000) i;
-- each node's slots, and exact ownership from them, against 1,000,000 keys
WITH t AS (SELECT pg_temp.maglev_table('mag', 307) AS tbl)
SELECT o.node, (SELECT count(*) FROM t, unnest(t.tbl) WITH ORDINALITY u(m, s)
				WHERE m = (SELECT array_position(ARRAY(SELECT node FROM chash.node_config
													   WHERE ring = 'mag' ORDER BY ordinal), o.node))) AS slots,
	   round((o.owned * 307)::numeric, 6) AS "owned x 307",
	   abs(c.keys / 1e6 - o.owned) < 0.002 AS counted_agrees
FROM chash_ownership('mag') o
JOIN (SELECT chash_lookup('mag', 'key-' || i) AS node, count(*) AS keys
	  FROM generate_series(1, 1000000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
SELECT round(sum(owned)::numeric, 12) AS two_copies FROM chash_ownership('mag', 2);
SELECT bool_and(l[1] = chash_lookup('mag', 'key-' || i)) AS first_is_owner,
	   bool_and((SELECT count(DISTINCT x) FROM unnest(l) x) = 3) AS distinct_nodes
FROM (SELECT i, chash_lookup_n('mag', 'key-' || i, 3) AS l FROM generate_series(1, 2000) i) s;
-- the default table, weights, and a node added
SELECT chash_ring_create('mag10', algorithm => 'maglev');
SELECT chash_node_add('mag10', 'g' || i, weight => CASE WHEN i = 1 THEN 2 ELSE 1 END) FROM generate_series(1, 10) i;
SELECT node, weight, round(owned::numeric, 4) AS owned, round(ratio::numeric, 3) AS ratio
FROM chash_ownership('mag10') LIMIT 3;
SELECT chash_ring_copy('mag10', 'mag11');
SELECT table_size IS NULL AS default_size FROM chash.ring_config WHERE ring = 'mag11';
SELECT chash_node_add('mag11', 'g11');
SELECT round(count(*) / 100000.0, 3) AS moved, round(1 / 12.0, 3) AS new_share,
	   round(count(*) FILTER (WHERE to_node <> 'g11') / 100000.0, 4) AS moved_elsewhere
FROM chash_moved_keys('mag10', 'mag11', ARRAY(SELECT 'key-' || i FROM generate_series(1, 100000) i));
-- table sizes: prime, above 100 x the active nodes, positive
SELECT chash_ring_create('bad', algorithm => 'maglev', table_size => 65536);
SELECT chash_ring_create('bad', algorithm => 'maglev', table_size => 0);
SELECT chash_ring_create('bad', algorithm => 'maglev', table_size => 67108879);
SELECT chash_ring_create('small', algorithm => 'maglev', table_size => 101);
SELECT chash_node_add('small', 'only');
SELECT chash_node_add('small', 'second');
UPDATE chash.ring_config SET table_size = 100 WHERE ring = 'small';
SELECT ring, table_size, (SELECT count(*) FROM chash.node_config n WHERE n.ring = r.ring) AS nodes
FROM chash.ring_config r WHERE ring = 'small';
SELECT chash_node_add('mag', 'm-d', vnodes => 3);
SELECT chash_ring_create('bad', table_size => 65537);
UPDATE chash.ring_config SET table_size = 65537 WHERE ring = 'mod4';

--
-- slots: position mod table_size (16384 by default) picks a slot; nodes
-- own the slot ranges they are given, or an even split in ordinal order
-- as redis-cli --cluster create makes it
--
SELECT chash_ring_create('sl3', algorithm => 'slots');
SELECT chash_node_add('sl3', n) FROM unnest(ARRAY['s-c', 's-a', 's-b']) n;
SELECT algorithm, table_size FROM chash.rings WHERE ring = 'sl3';
-- redis-cli's published split of 3 masters: 0-5460, 5461-10922, 10923-16383
SELECT * FROM chash_slot_ranges('sl3');
-- the split for 1 to 12 members against redis-cli's code written in SQL:
-- single-precision slots a node and cursor, last = lround(cursor + per - 1)
CREATE FUNCTION pg_temp.redis_split(n integer, slots integer) RETURNS TABLE(member integer, first integer, last integer)
LANGUAGE plpgsql AS $$
DECLARE
	per float4 := slots::float4 / n::float4;
	cursor float4 := 0;
	f integer := 0;
	l integer;
BEGIN
	FOR i IN 0 .. n - 1 LOOP
		l := floor((cursor + per - 1::float4)::float8 + 0.5)::integer;
		IF l > slots OR i = n - 1 THEN
			l := slots - 1;
		END IF;
		l := greatest(l, f);
		member := i; first := f; last := l;
		RETURN NEXT;
		f := l + 1;
		cursor := cursor + per;
	END LOOP;
END
$$;
CREATE FUNCTION pg_temp.split_agrees(n integer, slots integer) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	ok boolean;
BEGIN
	PERFORM chash_ring_create('split', algorithm => 'slots', table_size => slots);
	PERFORM chash_node_add('split', 'm' || lpad(i::text, 2, '0')) FROM generate_series(0, n - 1) i;
	SELECT array_agg(int4range(s.first, s.last + 1) ORDER BY s.member) =
		   (SELECT array_agg(r.slots ORDER BY lower(r.slots)) FROM chash_slot_ranges('split') r) AND
		   (SELECT array_agg(r.node ORDER BY lower(r.slots)) FROM chash_slot_ranges('split') r) =
		   (SELECT array_agg('m' || lpad(i::text, 2, '0') ORDER BY i) FROM generate_series(0, n - 1) i)
	INTO ok FROM pg_temp.redis_split(n, slots) s;
	PERFORM chash_ring_drop('split');
	RETURN ok;
END
$$;
SELECT slots, array_agg(n ORDER BY n) FILTER (WHERE NOT pg_temp.split_agrees(n, slots)) AS disagreeing
FROM unnest(ARRAY[16384, 1000, 13]) slots, generate_series(1, 12) n
WHERE n <= slots GROUP BY slots ORDER BY slots;
-- a key's slot is its position mod 16384, its owner the node of that range
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('sl3', 'key-' || i) =
						(SELECT r.node FROM chash_slot_ranges('sl3') r
						 WHERE r.slots @> (pg_temp.u64(chash_position('sl3', 'key-' || i)) % 16384)::integer)) AS in_its_range
FROM generate_series(1, 10000) i;
-- exact ownership, the slots' share, against 1,000,000 keys
SELECT o.node, round((o.owned * 16384)::numeric, 6) AS "owned x 16384",
	   abs(c.keys / 1e6 - o.owned) < 0.002 AS counted_agrees
FROM chash_ownership('sl3') o
JOIN (SELECT chash_lookup('sl3', 'key-' || i) AS node, count(*) AS keys
	  FROM generate_series(1, 1000000) i GROUP BY 1) c ON c.node = o.node
ORDER BY o.node;
-- preference order: the owner, then the nodes of the slots after it
SELECT bool_and(l[1] = chash_lookup('sl3', 'key-' || i)) AS first_is_owner,
	   bool_and(l[2] = (SELECT r.node FROM chash_slot_ranges('sl3') r
						WHERE r.node <> l[1]
						ORDER BY (lower(r.slots) - (pg_temp.u64(chash_position('sl3', 'key-' || i)) % 16384)::integer + 16384) % 16384
						LIMIT 1)) AS second_is_next_range
FROM (SELECT i, chash_lookup_n('sl3', 'key-' || i, 3) AS l FROM generate_series(1, 2000) i) s;
SELECT round(sum(owned)::numeric, 12) AS two_copies FROM chash_ownership('sl3', 2);
-- identity keys: the slot is id mod the slots
SELECT chash_ring_create('slid', algorithm => 'slots', key_hash => 'identity', table_size => 1024);
SELECT chash_node_add('slid', 'lo', slots => ARRAY['[0,256)'::int4range, '[768,1024)']),
	   chash_node_add('slid', 'hi', slots => '{"[256,768)"}');
SELECT * FROM chash_slot_ranges('slid');
SELECT count(*) AS ids,
	   count(*) FILTER (WHERE chash_lookup('slid', id) = CASE WHEN id % 1024 BETWEEN 256 AND 767 THEN 'hi' ELSE 'lo' END) AS agree
FROM generate_series(0, 9999) id;
SELECT chash_lookup_n('slid', 300, 2) AS from_300, chash_lookup_n('slid', 1000, 2) AS from_1000;
-- given ranges: moving a range moves only its keys, to the node given it
SELECT chash_ring_create('slg', algorithm => 'slots', key_hash => 'crc32');
SELECT chash_node_add('slg', 'g1', slots => '{"[0,8192)"}'),
	   chash_node_add('slg', 'g2', slots => '{"[8192,16384)"}');
SELECT chash_ring_copy('slg', 'slg2');
SELECT chash_node_set('slg2', 'g2', slots => '{"[12288,16384)"}');
SELECT chash_node_add('slg2', 'g3', slots => '{"[8192,12288)"}');
SELECT * FROM chash_slot_ranges('slg2');
SELECT from_node, to_node, count(*) AS keys,
	   bool_and((chash_position('slg', key) % 16384) BETWEEN 8192 AND 12287) AS all_of_the_range
FROM chash_moved_keys('slg', 'slg2', ARRAY(SELECT 'key-' || i FROM generate_series(1, 100000) i))
GROUP BY 1, 2;
SELECT node, round(owned::numeric, 6) AS owned FROM chash_ownership('slg2');
-- what MySQL computes for them: MOD(CRC32(key), 16384) in the node's ranges
SELECT chash.mysql_node_rows('slg2', NULL, '`k`') AS slot, chash.mysql_node_rows('slg2', 'g2', '`k`') AS g2_rows;
SELECT chash.mysql_node_rows('slid', 'lo', '`id`') AS lo_rows;
SELECT chash.mysql_node_rows('sl3', 's-a', '`k`') AS xxh3_rows;
-- a slot nobody owns: lookups there are errors; its keys are nobody's
SELECT chash_node_set('slg2', 'g3', slots => '{}');
SELECT * FROM chash_slot_ranges('slg2');
SELECT chash_lookup('slg2', 'key-3') AS key_3, chash_position('slg2', 'key-3') % 16384 AS slot;
SELECT chash_lookup('slg2', 'key-1');
SELECT chash_lookup_n('slg2', 'key-1', 2);
SELECT chash_position('slg2', 'key-1') % 16384 AS slot_of_key_1;
SELECT node, round(owned::numeric, 6) AS owned FROM chash_ownership('slg2');
SELECT count(*) FROM chash_moved_keys('slg', 'slg2', ARRAY['key-1']);
-- a node without slots is a last copy; a node down owns nothing, its
-- slots are nobody's until given to another
SELECT chash_lookup_n('slg2', 'key-3', 3);
SELECT chash_node_set('slg2', 'g3', slots => '{"[8192,12288)"}');
SELECT chash_node_set('slg2', 'g1', state => 'down');
SELECT chash_lookup('slg2', 'key-2');
SELECT chash_node_add('slg2', 'g4', slots => '{"[0,8192)"}');
SELECT chash_lookup('slg2', 'key-2') AS key_2;
SELECT chash_node_set('slg2', 'g1', state => 'active');
-- without ranges, a node down leaves the split: two members share it
SELECT chash_node_set('sl3', 's-a', state => 'down');
SELECT * FROM chash_slot_ranges('sl3');
SELECT chash_node_set('sl3', 's-a', state => 'active');
-- the ring picture: the circle of slots
SELECT * FROM chash.ring_arcs('slid');
SELECT chash_ring_svg('slid') LIKE '%<path d="M %' AS drawn;
-- bad slot ranges change nothing
SELECT chash_node_set('slg2', 'g3', slots => '{"[8000,9000)"}');
SELECT chash_node_set('slg2', 'g3', slots => '{"[8192,9000)","[8500,8600)"}');
SELECT chash_node_set('slg2', 'g3', slots => '{"[16000,16385)"}');
-- (the failing row shows its ordinal, which differs from run to run)
\set VERBOSITY terse
SELECT chash_node_set('slg2', 'g3', slots => '{"[-1,5)"}');
SELECT chash_node_set('slg2', 'g3', slots => '{"[,5)"}');
SELECT chash_node_set('slg2', 'g3', slots => '{"[5,)"}');
SELECT chash_node_set('slg2', 'g3', slots => '{empty}');
SELECT chash_node_set('slg2', 'g3', slots => '{NULL}');
SELECT chash_node_set('slg2', 'g3', slots => '{{"[1,2)"}}');
\set VERBOSITY default
INSERT INTO chash.node_config (ring, node, slots) VALUES ('slg2', 'g5', '{"[1,2)"}');
SELECT node, slots FROM chash.nodes WHERE ring = 'slg2' ORDER BY node;
-- slots are for slots rings; the split needs a slot a member
SELECT chash_node_add('mag', 'm-e', slots => '{"[0,1)"}');
SELECT chash_node_add('mod4', 'shard4', slots => '{}');
SELECT chash_ring_create('sl2', algorithm => 'slots', table_size => 2);
SELECT chash_node_add('sl2', 'a'), chash_node_add('sl2', 'b');
SELECT chash_node_add('sl2', 'c');
SELECT chash_node_add('sl2', 'c', slots => '{}');
-- ranges for every active node or none: one left out would own nothing
SELECT chash_node_add('sl3', 's-d', slots => '{}');
-- so the split becomes ranges in one statement, and then moves range by range
UPDATE chash.node_config n SET slots = ARRAY[r.slots]
FROM chash_slot_ranges('sl3') r WHERE n.ring = 'sl3' AND n.node = r.node;
SELECT node, slots FROM chash.nodes WHERE ring = 'sl3' ORDER BY ordinal;
SELECT chash_node_add('sl3', 's-d', slots => '{}');
SELECT chash_node_set('sl3', 's-c', slots => '{"[0,4000)"}'),
	   chash_node_set('sl3', 's-d', slots => '{"[4000,5461)"}');
SELECT * FROM chash_slot_ranges('sl3');
SELECT chash_node_add('sl2', 'd', weight => 2);
SELECT chash_node_add('sl2', 'd', vnodes => 2);
SELECT chash_node_add('sl2', 'd', tokens => ARRAY[1]);
SELECT chash_ring_create('bad', algorithm => 'slots', table_size => 67108879);
SELECT * FROM chash_slot_ranges('mod4');
SELECT count(*) AS maglev_runs, sum(upper(slots) - lower(slots)) AS maglev_slots FROM chash_slot_ranges('mag');
-- a member too light for a slot of maglev's table is a last copy (its
-- walk stops once every owner of a slot is seen; found by the fuzzer,
-- which timed 5 s for this ownership)
SELECT chash_ring_create('mag_light', algorithm => 'maglev');
SELECT chash_node_add('mag_light', 'a'), chash_node_add('mag_light', 'b'),
	   chash_node_add('mag_light', 'c', weight => 1e-5);
SELECT DISTINCT node FROM chash_slot_ranges('mag_light') ORDER BY node;
SELECT node, owned FROM chash_ownership('mag_light', 2) ORDER BY node;
SELECT node, owned FROM chash_ownership('mag_light', 3) ORDER BY node;
SELECT bool_and((chash_lookup_n('mag_light', 'key-' || i, 3))[3] = 'c') AS light_is_last
FROM generate_series(1, 1000) i;

--
-- Nodes at given tokens: the algorithm tokens (every node), and nodes of a
-- ring ring given their points
--
SELECT chash_ring_create('tok', algorithm => 'tokens', key_hash => 'murmur3_32');
SELECT chash_node_add('tok', 't1', tokens => ARRAY[1000000000, 3000000000]),
	   chash_node_add('tok', 't2', tokens => ARRAY[2000000000]),
	   chash_node_add('tok', 't3', tokens => ARRAY[4000000000]);
SELECT * FROM chash_points('tok');
SELECT node, points FROM chash.nodes WHERE ring = 'tok' ORDER BY node;
-- a key belongs to the first token at or after it, wrapping
SELECT k, chash_position('tok', k) AS position, chash_lookup('tok', k)
FROM unnest(ARRAY['key-1', 'key-2', 'key-3', 'key-4', 'key-5', 'key-6']) k ORDER BY 2;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('tok', k) =
						coalesce((SELECT node FROM chash_points('tok') WHERE point >= chash_hash('murmur3_32', k)
								  ORDER BY point LIMIT 1), 't1')) AS as_the_tokens_say
FROM (SELECT 'key-' || i AS k FROM generate_series(1, 10000) i) s;
-- ownership is the arcs before the tokens, exactly
SELECT node, round((owned * 4294967296)::numeric) AS positions FROM chash_ownership('tok') ORDER BY node;
-- range sharding on identity keys: the tokens are the upper ends
SELECT chash_ring_create('ranges', algorithm => 'tokens', key_hash => 'identity');
SELECT chash_node_add('ranges', 'low', tokens => ARRAY[999]),
	   chash_node_add('ranges', 'mid', tokens => ARRAY[9999]),
	   chash_node_add('ranges', 'high', tokens => ARRAY[9223372036854775807]);
SELECT id, chash_lookup('ranges', id) FROM unnest(ARRAY[0, 999, 1000, 9999, 10000, 123456789]) id;
-- lower ends instead: the predecessor rule
SELECT chash_ring_create('ranges_low', algorithm => 'tokens', key_hash => 'identity', lookup => 'predecessor');
SELECT chash_node_add('ranges_low', 'low', tokens => ARRAY[0]),
	   chash_node_add('ranges_low', 'mid', tokens => ARRAY[1000]),
	   chash_node_add('ranges_low', 'high', tokens => ARRAY[10000]);
SELECT id, chash_lookup('ranges_low', id) FROM unnest(ARRAY[0, 999, 1000, 9999, 10000, 123456789]) id;
-- changing a node's tokens moves the keys between them only
SELECT chash_ring_copy('ranges', 'ranges2');
SELECT chash_node_set('ranges2', 'low', tokens => ARRAY[4999]);
SELECT min(key) AS first_moved, max(key) AS last_moved, count(*) AS moved,
	   bool_and(from_node = 'mid' AND to_node = 'low') AS mid_to_low
FROM chash_moved_keys('ranges', 'ranges2', ARRAY(SELECT generate_series(0, 20000)));
-- a ring ring with a node at given tokens beside nodes of vnodes
SELECT chash_ring_create('mixed', hash => 'murmur3_32', vnodes => 8);
SELECT chash_node_add('mixed', 'v1'), chash_node_add('mixed', 'v2'),
	   chash_node_add('mixed', 'fixed', tokens => ARRAY[0, 2147483648]);
SELECT node, count(*) AS points, min(vnode) AS first_label FROM chash_points('mixed') GROUP BY node ORDER BY node;
SELECT node, points FROM chash.nodes WHERE ring = 'mixed' ORDER BY node;
SELECT lookup IS NULL AS default_rule, (SELECT tokens FROM chash.node_config WHERE ring = 'mixed' AND node = 'fixed')
FROM chash.ring_config WHERE ring = 'mixed';
SELECT chash_ring_copy('mixed', 'mixed_copy');
SELECT tokens FROM chash.node_config WHERE ring = 'mixed_copy' AND node = 'fixed';
-- what tokens do not go with
SELECT chash_node_add('tok', 't4');
SELECT chash_node_add('tok', 't4', tokens => ARRAY[5000000000]);
SELECT chash_node_add('tok', 't4', tokens => ARRAY[-1]);
SELECT chash_node_add('tok', 't4', tokens => ARRAY[5], vnodes => 2);
SELECT chash_node_add('tok', 't4', tokens => ARRAY[5], weight => 2);
SELECT chash_node_add('mixed', 'both', tokens => ARRAY[5], vnodes => 3);
SELECT chash_node_add('mod4', 'tokened', tokens => ARRAY[5]);
SELECT chash_node_add('ranges', 'neg', tokens => ARRAY[-5]);
SELECT chash_node_add('mixed', 'heavy', tokens => ARRAY[5], weight => 2);
-- (the failing rows' DETAIL shows their ordinals: left out)
\set VERBOSITY terse
INSERT INTO chash.node_config (ring, node, tokens) VALUES ('tok', 'nulls', ARRAY[1, NULL]::bigint[]);
INSERT INTO chash.node_config (ring, node, tokens) VALUES ('tok', 'none', '{}');
INSERT INTO chash.node_config (ring, node, tokens) VALUES ('tok', 'square', '{{1},{2}}');
\set VERBOSITY default
UPDATE chash.node_config SET tokens = NULL WHERE ring = 'tok' AND node = 't2';
SELECT node, tokens FROM chash.node_config WHERE ring = 'tok' ORDER BY node;
-- a node down keeps its tokens and owns nothing; the others take its keys
SELECT chash_node_set('tok', 't3', state => 'down');
SELECT node, round((owned * 4294967296)::numeric) AS positions FROM chash_ownership('tok') ORDER BY node;

--
-- Lookup rules of ring rings: the successor (the default), the
-- predecessor (the last point at or before the key) and the nearest point
-- (ties to the earlier), each against a reference over chash_points
--
SELECT chash_ring_create('rule_' || r, hash => 'murmur3_32', vnodes => 40,
						 lookup => CASE WHEN r = 'default' THEN NULL ELSE r END)
FROM unnest(ARRAY['default', 'successor', 'predecessor', 'nearest']) r;
SELECT chash_node_add('rule_' || r, 'r' || i)
FROM unnest(ARRAY['default', 'successor', 'predecessor', 'nearest']) r, generate_series(1, 5) i;
SELECT ring, lookup FROM chash.ring_config WHERE ring LIKE 'rule\_%' ORDER BY ring;
CREATE TEMP TABLE rule_points AS SELECT point, node FROM chash_points('rule_default');
CREATE TEMP TABLE rule_keys AS
SELECT k, chash_hash('murmur3_32', k) AS pos FROM (SELECT 'key-' || i AS k FROM generate_series(1, 20000) i) s;
-- the points before and after each key (32-bit positions: unsigned as shown)
CREATE TEMP TABLE rule_reference AS
SELECT k.k, k.pos,
	   coalesce((SELECT node FROM rule_points WHERE point >= k.pos ORDER BY point LIMIT 1),
				(SELECT node FROM rule_points ORDER BY point LIMIT 1)) AS succ,
	   coalesce((SELECT point FROM rule_points WHERE point >= k.pos ORDER BY point LIMIT 1),
				(SELECT point FROM rule_points ORDER BY point LIMIT 1)) AS succ_at,
	   coalesce((SELECT node FROM rule_points WHERE point <= k.pos ORDER BY point DESC LIMIT 1),
				(SELECT node FROM rule_points ORDER BY point DESC LIMIT 1)) AS pred,
	   coalesce((SELECT point FROM rule_points WHERE point <= k.pos ORDER BY point DESC LIMIT 1),
				(SELECT point FROM rule_points ORDER BY point DESC LIMIT 1)) AS pred_at
FROM rule_keys k;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('rule_default', k) = succ) AS default_is_successor,
	   count(*) FILTER (WHERE chash_lookup('rule_successor', k) = succ) AS successor,
	   count(*) FILTER (WHERE chash_lookup('rule_predecessor', k) = pred) AS predecessor,
	   count(*) FILTER (WHERE chash_lookup('rule_nearest', k) =
						CASE WHEN (pos - pred_at + 4294967296) % 4294967296 <= (succ_at - pos + 4294967296) % 4294967296
							 THEN pred ELSE succ END) AS nearest,
	   count(*) FILTER (WHERE succ <> pred) AS rules_differ
FROM rule_reference;
-- ownership of each rule, exactly, against 1,000,000 keys; the first of
-- chash_lookup_n is the owner
SELECT r.ring, round(sum(o.owned)::numeric, 12) AS space,
	   bool_and(abs(coalesce(c.keys, 0) / 1e6 - o.owned) < 0.003) AS counted_agrees
FROM (VALUES ('rule_successor'), ('rule_predecessor'), ('rule_nearest')) r(ring),
	 LATERAL chash_ownership(r.ring) o
LEFT JOIN LATERAL (SELECT count(*) AS keys FROM generate_series(1, 1000000) i
				   WHERE chash_lookup(r.ring, 'key-' || i) = o.node) c ON true
GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring, bool_and((chash_lookup_n(r.ring, k, 3))[1] = chash_lookup(r.ring, k)) AS first_is_owner
FROM (VALUES ('rule_predecessor'), ('rule_nearest')) r(ring), rule_keys
GROUP BY r.ring ORDER BY r.ring;
-- plans between rules go range by range: the keys in the moved ranges are
-- the keys that move
SELECT chash.plan_kind('rule_successor', 'rule_nearest');
SELECT (SELECT count(*) FROM rule_keys k WHERE EXISTS
			(SELECT FROM chash_moved_ranges('rule_successor', 'rule_nearest') m
			 WHERE k.pos BETWEEN m.lo AND m.hi)) AS keys_in_moved_ranges,
	   (SELECT count(*) FROM chash_moved_keys('rule_successor', 'rule_nearest',
											  ARRAY(SELECT k FROM rule_keys))) AS moved_keys;
SELECT count(*) AS copied FROM chash.ring_config WHERE ring = 'rule_copy';
SELECT chash_ring_copy('rule_nearest', 'rule_copy');
SELECT lookup FROM chash.ring_config WHERE ring = 'rule_copy';
-- the rules are ring rings' only
SELECT chash_ring_create('bad', lookup => 'closest');
SELECT chash_ring_create('bad', algorithm => 'ketama', lookup => 'nearest');
SELECT chash_ring_create('bad', algorithm => 'modulo', lookup => 'predecessor');
UPDATE chash.ring_config SET lookup = 'nearest' WHERE ring = 'mod4';
-- (the failing row's DETAIL shows the ring's version: left out)
\set VERBOSITY terse
UPDATE chash.ring_config SET lookup = 'upward' WHERE ring = 'rule_default';
\set VERBOSITY default

--
-- Zone-aware replicas, for every algorithm: chash_lookup_n(..., true)
-- takes nodes of zones that hold no copy yet first, then the others in
-- preference order; chash_ownership(ring, replicas, true) is exact.
--
CREATE TEMP TABLE zoned (node text, zone text, weight float8);
INSERT INTO zoned VALUES ('n1', 'east', 1), ('n2', 'east', 2), ('n3', 'east', 1),
	('n4', 'west', 1.5), ('n5', 'west', 1), ('n6', 'north', 3);
CREATE FUNCTION pg_temp.zoned_ring(ring text, algorithm text, weighted boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM chash_ring_create(ring, algorithm => algorithm);
	PERFORM chash_node_add(ring, z.node, weight => CASE WHEN weighted THEN z.weight ELSE 1 END,
						   zone => z.zone)
	FROM zoned z ORDER BY z.node;
END
$$;
SELECT pg_temp.zoned_ring('z_ring', 'ring', true), pg_temp.zoned_ring('z_ketama', 'ketama', true),
	   pg_temp.zoned_ring('z_modulo', 'modulo', false), pg_temp.zoned_ring('z_jump', 'jump', false),
	   pg_temp.zoned_ring('z_hrw', 'rendezvous', true), pg_temp.zoned_ring('z_maglev', 'maglev', true),
	   pg_temp.zoned_ring('z_slots', 'slots', false);
CREATE TEMP TABLE zone_rings AS
	SELECT ring FROM chash.ring_config WHERE ring LIKE 'z\_%' ORDER BY ring;
-- the first is the owner; 3 copies are in 3 zones; a 4th is one of the
-- nodes skipped, the first of them in preference order
CREATE FUNCTION pg_temp.zones_of(nodes text[]) RETURNS text[]
LANGUAGE sql AS $$
	SELECT array_agg(z.zone ORDER BY u.i) FROM unnest(nodes) WITH ORDINALITY u(node, i)
	JOIN zoned z ON z.node = u.node
$$;
SELECT r.ring,
	   bool_and(l3[1] = chash_lookup(r.ring, 'key-' || i)) AS first_is_owner,
	   bool_and((SELECT count(DISTINCT z) FROM unnest(pg_temp.zones_of(l3)) z) = 3) AS three_zones,
	   bool_and(l4[1:3] = l3) AS four_begins_with_three,
	   bool_and(l4[4] = (SELECT x FROM unnest(chash_lookup_n(r.ring, 'key-' || i, 6)) WITH ORDINALITY u(x, o)
						 WHERE x <> ALL (l3) ORDER BY o LIMIT 1)) AS fourth_is_first_skipped,
	   bool_and((SELECT array_agg(x ORDER BY x) FROM unnest(chash_lookup_n(r.ring, 'key-' || i, 6, true)) x) =
				ARRAY['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) AS all_six,
	   count(*) FILTER (WHERE (SELECT count(DISTINCT z) FROM unnest(pg_temp.zones_of(chash_lookup_n(r.ring, 'key-' || i, 3))) z) < 3) > 0 AS plain_walk_repeats_zones
FROM zone_rings r,
	 LATERAL (SELECT i, chash_lookup_n(r.ring, 'key-' || i, 3, true) AS l3,
					 chash_lookup_n(r.ring, 'key-' || i, 4, true) AS l4
			  FROM generate_series(1, 2000) i) s
GROUP BY r.ring ORDER BY r.ring;
-- exact ownership by zones against 200,000 keys' copies
SELECT r.ring, o.node, round(o.owned::numeric, 4) AS owned,
	   abs(coalesce(c.keys, 0) / 2e5 - o.owned) < 0.006 AS counted_agrees
FROM zone_rings r
CROSS JOIN LATERAL chash_ownership(r.ring, 3, true) o
LEFT JOIN (SELECT z.ring, unnest(chash_lookup_n(z.ring, 'key-' || i, 3, true)) AS node,
				  count(*) AS keys
		   FROM zone_rings z, generate_series(1, 200000) i GROUP BY 1, 2) c
	ON c.ring = r.ring AND c.node = o.node
ORDER BY r.ring, o.node;
SELECT r.ring, round(sum(o.owned)::numeric, 9) AS copies
FROM zone_rings r, LATERAL chash_ownership(r.ring, 3, true) o GROUP BY r.ring ORDER BY r.ring;
-- north's only node holds a copy of every key once three are asked for
SELECT r.ring, round(o.owned::numeric, 9) AS owned
FROM zone_rings r, LATERAL chash_ownership(r.ring, 3, true) o WHERE o.node = 'n6' ORDER BY r.ring;
-- fewer zones than copies: each zone once, then the rest in order
UPDATE chash.node_config SET zone = 'east' WHERE zone = 'north';
SELECT r.ring,
	   bool_and(l[1] <> l[2]) AS first_two_in_two_zones,
	   bool_and((SELECT count(DISTINCT z) FROM unnest(l) z) = 2) AS both_zones_only
FROM zone_rings r,
	 LATERAL (SELECT (SELECT array_agg(n.zone ORDER BY u.o)
					  FROM unnest(chash_lookup_n(r.ring, 'key-' || i, 4, true)) WITH ORDINALITY u(x, o)
					  JOIN chash.node_config n ON n.ring = r.ring AND n.node = u.x) AS l
			  FROM generate_series(1, 500) i) s
GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring, o.node, round(o.owned::numeric, 4) AS owned,
	   abs(coalesce(c.keys, 0) / 1e5 - o.owned) < 0.008 AS counted_agrees
FROM zone_rings r,
	 LATERAL chash_ownership(r.ring, 4, true) o
LEFT JOIN LATERAL (SELECT count(*) AS keys FROM generate_series(1, 100000) i
				   WHERE o.node = ANY (chash_lookup_n(r.ring, 'key-' || i, 4, true))) c ON true
WHERE r.ring IN ('z_hrw', 'z_ring')
ORDER BY r.ring, o.node;
-- without zones distinct_zones changes nothing: each node is a zone of its own
UPDATE chash.node_config SET zone = NULL WHERE ring LIKE 'z\_%';
SELECT r.ring,
	   bool_and(chash_lookup_n(r.ring, 'key-' || i, 3, true) = chash_lookup_n(r.ring, 'key-' || i, 3)) AS same
FROM zone_rings r, generate_series(1, 1000) i GROUP BY r.ring ORDER BY r.ring;
SELECT r.ring, bool_and(a.owned = b.owned) AS same_ownership
FROM zone_rings r
JOIN LATERAL chash_ownership(r.ring, 2, true) a ON true
JOIN LATERAL chash_ownership(r.ring, 2, false) b ON b.node = a.node
GROUP BY r.ring ORDER BY r.ring;
-- NULL and out-of-range arguments
SELECT chash_lookup_n('z_ring', 'k', 2, NULL) IS NULL AS strict;
SELECT * FROM chash_ownership('z_ring', 2, NULL);
SELECT chash_lookup_n('z_ring', 'k', 7, true);

--
-- Plans between any two schemes: key by key where the rings do not
-- compare by ranges
--
SELECT chash_ring_create('from_mod', algorithm => 'modulo', key_hash => 'identity');
SELECT chash_node_add('from_mod', 'db' || i, target => 'shard' || i || '.items') FROM generate_series(1, 2) i;
SELECT chash_ring_create('to_crc', hash => 'crc32', vnodes => 4);
SELECT chash_node_add('to_crc', 'db' || i, target => 'shard' || i || '.items') FROM generate_series(1, 3) i;
SELECT chash_ring_create('to_xxh');
SELECT chash_node_add('to_xxh', 'db' || i, target => 'shard' || i || '.items') FROM generate_series(1, 3) i;
CREATE TABLE plan_items (id bigint PRIMARY KEY, v text);
INSERT INTO plan_items SELECT g, 'v' || g FROM generate_series(0, 999) g;
SELECT a, b, chash.plan_kind(a, b)
FROM (VALUES ('from_mod', 'to_crc'), ('to_crc', 'to_xxh'), ('to_xxh', 'to_crc'), ('mod4', 'mod5')) v(a, b);
SELECT chash_ring_copy('to_crc', 'to_crc2');
SELECT chash.plan_kind('to_crc', 'to_crc2');
-- ranges need rings of points hashing keys alike, and say so
SELECT * FROM chash_moved_ranges('from_mod', 'to_crc');
SELECT * FROM chash_move_summary('to_crc', 'from_mod');
SELECT * FROM chash_moved_ranges('to_crc', 'to_xxh');
-- keys: each key's owner in both rings
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE from_node = chash_lookup('from_mod', key) AND to_node = chash_lookup('to_crc', key)) AS as_lookups_say,
	   (SELECT count(*) FROM plan_items WHERE chash_lookup('from_mod', id) <> chash_lookup('to_crc', id)) AS lookups_differ
FROM chash_moved_keys('from_mod', 'to_crc', 'plan_items', 'id') AS m(key bigint, from_node text, to_node text);
SELECT from_node, to_node, fraction, keys,
	   keys = (SELECT count(*) FROM plan_items WHERE chash_lookup('from_mod', id) = from_node
			   AND chash_lookup('to_crc', id) = to_node) AS counted
FROM chash_move_summary('from_mod', 'to_crc', 'plan_items', 'id');
SELECT count(*) AS moved FROM chash_moved_keys('to_xxh', 'to_crc', ARRAY['a', 'b', 'c', 'd', 'e', 'f']);
-- the members of a computed placement and a ring's ranges, which plans use
SELECT * FROM chash.placement_members('from_mod');
SELECT count(*) AS ranges, count(DISTINCT node) AS nodes, sum(fraction) AS space,
	   bool_and(node = node_again) AS one_owner
FROM chash.ring_node_ranges('to_crc');
SELECT count(*) AS rows FROM chash.ring_node_ranges('from_mod');
SELECT count(*) AS rows FROM chash.placement_members('to_crc');
-- MySQL computes modulo on identity with MOD() and crc32 rings with CRC32()
CREATE TEMP TABLE plan_mysql AS
SELECT n, s FROM chash_migration_sql('from_mod', 'to_crc', 'plan_items', 'id', 'mysql') WITH ORDINALITY p(s, n);
SELECT s FROM plan_mysql WHERE n = 1;
SELECT count(*) FILTER (WHERE s LIKE 'DELETE%') AS deletes,
	   count(*) FILTER (WHERE s ~ '^DELETE .* WHERE \(MOD\(`id`, 2\) = [01] AND INTERVAL\(CRC32\(`id`\), [0-9, ]+\) % 2 = 1\);$') AS mod_and_crc32,
	   count(*) FILTER (WHERE s LIKE '%IN (%') AS key_lists
FROM plan_mysql;
-- and lists keys where it cannot compute a side
CREATE TEMP TABLE plan_lists AS
SELECT n, s FROM chash_migration_sql('from_mod', 'to_xxh', 'plan_items', 'id', 'mysql') WITH ORDINALITY p(s, n);
SELECT s FROM plan_lists WHERE n = 1;
SELECT count(*) FILTER (WHERE s LIKE 'DELETE%') AS deletes,
	   count(*) FILTER (WHERE s ~ '^DELETE .* WHERE \(`id` IN \([0-9, ]+\)\);$') AS key_lists,
	   (SELECT count(*) FROM chash_moved_keys('from_mod', 'to_xxh', 'plan_items', 'id') AS m(k bigint, f text, t text))
		   = (SELECT sum(array_length(string_to_array(substring(s FROM 'IN \(([0-9, ]+)\)'), ', '), 1))
			  FROM plan_lists WHERE s LIKE 'DELETE%') AS every_moved_key_listed
FROM plan_lists;
-- PostgreSQL: key lists too (what postgres_fdw sends to the shards), once
-- the rings are checked
CREATE TEMP TABLE plan_pg AS
SELECT n, s FROM chash_migration_sql('from_mod', 'to_crc', 'plan_items', 'id') WITH ORDINALITY p(s, n);
SELECT s FROM plan_pg WHERE n = 1;
SELECT s LIKE 'DO %routing_fingerprint%' AS checks_the_rings FROM plan_pg WHERE n = 2;
SELECT count(*) FILTER (WHERE s LIKE 'DELETE%') AS deletes,
	   count(*) FILTER (WHERE s ~ '^DELETE FROM shard[12]\.items t WHERE t\.id OPERATOR\(pg_catalog\.=\) ANY \(''\{[0-9,]+\}''::bigint\[\]\);$') AS key_lists,
	   (SELECT count(*) FROM chash_moved_keys('from_mod', 'to_crc', 'plan_items', 'id') AS m(k bigint, f text, t text))
		   = (SELECT sum(array_length(substring(s FROM '''(\{[0-9,]+\})''')::bigint[], 1))
			  FROM plan_pg WHERE s LIKE 'DELETE%') AS every_moved_key_listed
FROM plan_pg;
-- the check passes on the rings as planned, and fails once one changes
DO $$
BEGIN
	EXECUTE (SELECT s FROM plan_pg WHERE n = 2);
	RAISE NOTICE 'plan accepted';
END
$$;
SELECT chash_node_add('to_crc', 'db4');
DO $$
BEGIN
	EXECUTE (SELECT s FROM plan_pg WHERE n = 2);
EXCEPTION WHEN raise_exception THEN
	RAISE NOTICE 'plan refused: %', SQLERRM;
END
$$;
DROP TABLE plan_items;

SELECT count(chash_ring_drop(ring)) AS dropped FROM chash.ring_config;
