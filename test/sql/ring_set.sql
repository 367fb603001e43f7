-- chash_ring_set: a ring's settings changed as chash_node_set changes a
-- node's, checked as chash_ring_create checks them, with the share of the
-- keys the change moves.
SELECT chash_ring_create('rs');
SELECT count(chash_node_add('rs', 'pg' || i)) AS nodes FROM generate_series(1, 5) i;
SELECT chash_ring_copy('rs', 'rs_before');
SELECT version AS version_before FROM chash.ring_config WHERE ring = 'rs' \gset

-- 160 to 1,000 vnodes: the share returned is the hash space whose owner
-- changed, as chash_moved_ranges measures it against a copy, and about the
-- share of 200,000 keys that changed owner
SELECT round(chash_ring_set('rs', vnodes => 1000)::numeric, 6) AS moved;
SELECT round(sum(fraction)::numeric, 6) AS moved_ranges FROM chash_moved_ranges('rs_before', 'rs');
SELECT round(avg((chash_lookup('rs', g) <> chash_lookup('rs_before', g))::int), 2) AS moved_keys
FROM generate_series(1, 200000) g;
SELECT vnodes, version <> :version_before AS new_version FROM chash.ring_config WHERE ring = 'rs';
SELECT count(*) FILTER (WHERE p.point IS NOT NULL) AS points FROM chash_points('rs') p;

-- settings that leave owners as they are move nothing
SELECT chash_ring_set('rs', vnode_first => 0) AS moved;
SELECT chash_ring_set('rs') AS moved;

-- a new key hash moves keys the placements cannot tell: NULL, and how to
-- measure it
SELECT chash_ring_copy('rs', 'rs_before2');
SELECT chash_ring_set('rs', hash => 'fnv1a_64') AS moved;
SELECT hash, key_hash FROM chash.ring_config WHERE ring = 'rs';
SELECT count(*) FILTER (WHERE chash_lookup('rs', g) <> chash_lookup('rs_before2', g)) > 0 AS keys_moved
FROM generate_series(1, 1000) g;

-- tables of one size that hash keys alike: the share of slots that
-- changed owner (the points' hash changes, the keys' does not)
SELECT chash_ring_create('rs_maglev', algorithm => 'maglev', key_hash => 'xxh3_64');
SELECT count(chash_node_add('rs_maglev', 'm' || i)) AS nodes FROM generate_series(1, 5) i;
SELECT chash_ring_copy('rs_maglev', 'rs_maglev_before');
SELECT round(chash_ring_set('rs_maglev', hash => 'fnv1a_64')::numeric, 6) AS moved;
SELECT round(sum(upper(s.slots) - lower(s.slots))::numeric / 65537, 6) AS moved_slots
FROM chash_moved_slots('rs_maglev_before', 'rs_maglev') s;
-- another size, or another key hash: NULL and the NOTICE
SELECT chash_ring_set('rs_maglev', table_size => 1009) AS moved;
SELECT chash_ring_set('rs_maglev', key_hash => 'fnv1a_64') AS moved;

-- a ring with no active node moves nothing; a profile's ring takes only
-- what its system lets choose
SELECT chash_ring_create('rs_tw', profile => 'twemproxy');
SELECT chash_ring_set('rs_tw', hash_tag => '{}') AS moved;
SELECT hash_tag FROM chash.ring_config WHERE ring = 'rs_tw';

-- what it refuses, changing nothing
\set VERBOSITY terse
SELECT fingerprint AS before FROM (SELECT md5(string_agg(c::text, ',' ORDER BY c.ring)) AS fingerprint FROM chash.ring_config c) f \gset
SELECT chash_ring_set('rs', vnodes => 0);
SELECT chash_ring_set('rs', hash => 'nope');
SELECT chash_ring_set('rs', key_hash => 'crc32');
SELECT chash_ring_set('rs', ties => 'sometimes');
SELECT chash_ring_set('rs', vnode_name => '{node}');
SELECT chash_ring_set('rs', lookup => 'sideways');
SELECT chash_ring_set('rs', hash_tag => '{');
SELECT chash_ring_set('rs', ketama_variant => 'libmemcached');
SELECT chash_ring_set('rs', table_size => 100);
SELECT chash_ring_set('rs_maglev', table_size => 0);
SELECT chash_ring_set('rs_maglev', table_size => 7);
SELECT chash_ring_set('rs_tw', vnodes => 100);
SELECT chash_ring_set('rs_missing', vnodes => 100);
SELECT chash_ring_set(NULL, vnodes => 100);
CREATE ROLE regress_chash_rs_nobody;
SET ROLE regress_chash_rs_nobody;
SELECT chash_ring_set('rs', vnodes => 100);
RESET ROLE;
DROP ROLE regress_chash_rs_nobody;
\set VERBOSITY default
SELECT md5(string_agg(c::text, ',' ORDER BY c.ring)) = :'before' AS unchanged FROM chash.ring_config c;

SELECT chash_ring_drop(r) FROM unnest(ARRAY['rs', 'rs_before', 'rs_before2', 'rs_maglev', 'rs_maglev_before', 'rs_tw']) r;
