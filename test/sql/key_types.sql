-- Keys of every type the plans take route as the plans hash them: smallint
-- as an integer, other types whose text no setting changes by their text
-- (key::text), and a type whose text depends on settings is refused with
-- the plans' error, never "function does not exist" or "is not unique".
SELECT chash_ring_create('kt');
SELECT chash_node_add('kt', 'pg' || i, zone => 'z' || (i % 2)) FROM generate_series(1, 5) i;

-- each form against the text the plans hash, over many keys
CREATE DOMAIN kt_flag AS boolean;
CREATE TYPE kt_mood AS ENUM ('sad', 'ok', 'happy');
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('kt', g::smallint) = chash_lookup('kt', g::smallint::text)) AS smallint,
	   count(*) FILTER (WHERE chash_lookup('kt', g::numeric / 7) = chash_lookup('kt', (g::numeric / 7)::text)) AS numeric,
	   count(*) FILTER (WHERE chash_lookup('kt', g % 2 = 0) = chash_lookup('kt', (g % 2 = 0)::text)) AS boolean,
	   count(*) FILTER (WHERE chash_lookup('kt', (g % 2 = 0)::kt_flag) = chash_lookup('kt', (g % 2 = 0)::text)) AS domain,
	   count(*) FILTER (WHERE chash_lookup('kt', ('10.0.' || g / 256 || '.' || g % 256)::inet)
						= chash_lookup('kt', ('10.0.' || g / 256 || '.' || g % 256)::inet::text)) AS inet,
	   count(*) FILTER (WHERE chash_lookup('kt', ARRAY[g, g + 1]) = chash_lookup('kt', ARRAY[g, g + 1]::text)) AS int_array,
	   count(*) FILTER (WHERE chash_position('kt', g::smallint) = chash_position('kt', g::text)
						  AND chash_position('kt', g::numeric) = chash_position('kt', g::text)) AS positions,
	   count(*) FILTER (WHERE chash_lookup_n('kt', g::smallint, 3) = chash_lookup_n('kt', g::text, 3)
						  AND chash_lookup_n('kt', g::numeric, 3, true) = chash_lookup_n('kt', g::text, 3, true)) AS lists
FROM generate_series(1, 2000) g;
SELECT chash_lookup('kt', 'ok'::kt_mood) = chash_lookup('kt', 'ok') AS enum,
	   chash_lookup('kt', true) AS t, chash_lookup('kt', 'true') AS t_text,
	   chash_lookup('kt', NULL::numeric) AS null_key;

-- the plans and routing agree on a numeric and a smallint key column
CREATE TABLE kt_rows (n numeric, s smallint);
INSERT INTO kt_rows SELECT g::numeric / 4, g FROM generate_series(1, 3000) g;
SELECT chash_ring_copy('kt', 'kt_next');
SELECT chash_node_add('kt_next', 'pg6');
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = chash_lookup('kt', m.key) AND m.to_node = chash_lookup('kt_next', m.key)) AS agree
FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 'n') AS m(key numeric, from_node text, to_node text);
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = chash_lookup('kt', m.key) AND m.to_node = chash_lookup('kt_next', m.key)) AS agree
FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 's') AS m(key smallint, from_node text, to_node text);
SELECT count(*) FILTER (WHERE chash_lookup('kt', n) <> chash_lookup('kt_next', n)) AS moved_by_lookup FROM kt_rows;
-- typed by as_type, without a column definition list: the same rows
SELECT (SELECT count(*) FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 'n', NULL::numeric)) AS typed,
	   (SELECT count(*) FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 'n') AS m(key numeric, from_node text, to_node text)) AS listed,
	   (SELECT count(*) FROM (SELECT * FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 's', NULL::smallint)
							  EXCEPT ALL
							  SELECT * FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 's') AS m(key smallint, from_node text, to_node text)) d) AS differ,
	   (SELECT pg_typeof(key)::text FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 's', NULL::smallint) LIMIT 1) AS key_type;
\set VERBOSITY terse
SELECT count(*) FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 's', NULL::integer);
SELECT count(*) FROM chash_moved_keys('kt', 'kt_next', 'kt_rows', 'missing', NULL::integer);
\set VERBOSITY default

-- on a cassandra_murmur3 ring integers are hashed in binary, as CQL
-- serialises them: the plans and the reports route them so too
SELECT chash_ring_create('kt_cass', algorithm => 'tokens', key_hash => 'cassandra_murmur3');
SELECT chash_node_add('kt_cass', 'c' || i, tokens => ARRAY[(i * 4000000000000000000::numeric - 9000000000000000000)::bigint])
FROM generate_series(1, 4) i;
SELECT chash_ring_copy('kt_cass', 'kt_cass_next');
SELECT chash_node_add('kt_cass_next', 'c5', tokens => ARRAY[123456789::bigint]);
CREATE TABLE kt_ints (b bigint, s smallint);
INSERT INTO kt_ints SELECT g, g FROM generate_series(1, 3000) g;
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = chash_lookup('kt_cass', m.key) AND m.to_node = chash_lookup('kt_cass_next', m.key)) AS agree,
	   (SELECT count(*) FROM kt_ints WHERE chash_lookup('kt_cass', b) <> chash_lookup('kt_cass_next', b)) AS by_lookup
FROM chash_moved_keys('kt_cass', 'kt_cass_next', 'kt_ints', 'b') AS m(key bigint, from_node text, to_node text);
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = chash_lookup('kt_cass', m.key) AND m.to_node = chash_lookup('kt_cass_next', m.key)) AS agree,
	   (SELECT count(*) FROM kt_ints WHERE chash_lookup('kt_cass', s) <> chash_lookup('kt_cass_next', s)) AS by_lookup
FROM chash_moved_keys('kt_cass', 'kt_cass_next', 'kt_ints', 's') AS m(key smallint, from_node text, to_node text);
SELECT count(*) AS moved,
	   count(*) FILTER (WHERE m.from_node = chash_lookup('kt_cass', m.key) AND m.to_node = chash_lookup('kt_cass_next', m.key)) AS agree
FROM chash_moved_keys('kt_cass', 'kt_cass_next', ARRAY(SELECT b FROM kt_ints)) AS m;
SELECT d.node, d.keys,
	   (SELECT count(*) FROM kt_ints WHERE chash_lookup('kt_cass', b) = d.node) AS by_lookup
FROM chash_key_distribution('kt_cass', 'kt_ints', 'b') d ORDER BY d.node;

-- a keyed placement (pymemcache's) and a tagged ring take them too
SELECT chash_ring_create('kt_keyed', profile => 'pymemcache');
SELECT chash_node_add('kt_keyed', '10.0.0.' || i || ':11211') FROM generate_series(1, 4) i;
SELECT chash_ring_create('kt_tag', hash_tag => '{}');
SELECT chash_node_add('kt_tag', 'r' || i) FROM generate_series(1, 4) i;
SELECT count(*) FILTER (WHERE chash_lookup('kt_keyed', g::numeric) = chash_lookup('kt_keyed', g::text)
						  AND chash_lookup_n('kt_keyed', g::smallint, 2) = chash_lookup_n('kt_keyed', g::text, 2)) AS keyed,
	   count(*) FILTER (WHERE chash_lookup('kt_tag', g::numeric) = chash_lookup('kt_tag', g::text)) AS tagged
FROM generate_series(1, 500) g;

-- types whose text depends on settings: the plans' error, for every form
\set VERBOSITY default
SELECT chash_lookup('kt', current_date);
SELECT chash_lookup('kt', '2026-12-06 10:00+00'::timestamptz);
SELECT chash_lookup_n('kt', 1.5::real, 2);
SELECT chash_position('kt', '{2026-12-06}'::date[]);
SELECT chash_lookup('kt', '1 day'::interval);
-- as the plans refuse them
CREATE TABLE kt_times (t timestamptz);
SELECT * FROM chash_moved_keys('kt', 'kt_next', 'kt_times', 't') AS m(key timestamptz, from_node text, to_node text);

-- a role without grants routes them too
CREATE ROLE regress_chash_kt_nobody;
SET ROLE regress_chash_kt_nobody;
SELECT chash_lookup('kt', 7::smallint) = chash_lookup('kt', 7) AS smallint,
	   chash_lookup('kt', 7.5) = chash_lookup('kt', '7.5') AS numeric;
SELECT chash_lookup('kt', current_date);
RESET ROLE;
DROP ROLE regress_chash_kt_nobody;

DROP TABLE kt_rows, kt_times, kt_ints;
DROP TYPE kt_mood;
DROP DOMAIN kt_flag;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['kt', 'kt_next', 'kt_keyed', 'kt_tag', 'kt_cass', 'kt_cass_next']) r;
