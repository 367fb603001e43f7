--
-- What routing keeps between the calls of a statement: at most what two
-- rings need a call site, whatever the rings, the cache generations and
-- the number of rows or iterations, and counted by chash.cache_stats().
-- Measured as the peak resident memory (VmHWM of /proc/self/status) of
-- a new backend before and after each statement, as a role without
-- grants (by SET ROLE: the packaging's test connects with a password),
-- with every ring built first so that only what the calls keep can grow.
--
CREATE FUNCTION rm_peak_kb() RETURNS bigint
	LANGUAGE sql SECURITY DEFINER
	AS $$SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint$$;
CREATE ROLE regress_rm_nobody;
GRANT EXECUTE ON FUNCTION rm_peak_kb() TO regress_rm_nobody;

SELECT chash_ring_create('rm_a');
SELECT chash_ring_create('rm_b');
SELECT chash_ring_create('rm_r1000');
SELECT chash_ring_create('rm_jump', algorithm => 'jump');
SELECT count(chash_node_add(r, 'n' || i)) FROM unnest(ARRAY['rm_a', 'rm_b']) r, generate_series(1, 3) i;
-- (straight into the catalog: the trigger checks them once a statement)
INSERT INTO chash.node_config (ring, node) SELECT 'rm_r1000', 'n' || i FROM generate_series(1, 1000) i;
INSERT INTO chash.node_config (ring, node) SELECT 'rm_jump', 'member' || i FROM generate_series(1, 20000) i;

-- every ring built and cached, then the peak so far
CREATE FUNCTION rm_warm_peak_kb() RETURNS bigint
	LANGUAGE sql
	AS $$SELECT count(chash_lookup(r, 'k')) FROM unnest(ARRAY['rm_a', 'rm_b', 'rm_r1000', 'rm_jump']) r;
		  SELECT rm_peak_kb()$$;

\c
SET ROLE regress_rm_nobody;
SELECT rings, call_memory FROM chash.cache_stats();

-- A CASE between two small rings, two million rows (before: about 150 MB)
\c
SET ROLE regress_rm_nobody;
SELECT rm_warm_peak_kb() AS before_kb \gset
SELECT count(chash_lookup(CASE WHEN i % 2 = 0 THEN 'rm_a' ELSE 'rm_b' END, i)) AS routed
FROM generate_series(1, 2000000) i;
SELECT rm_peak_kb() - :before_kb < 32768 AS grew_under_32_mb;

-- Between a small ring and one of 1,000 nodes (before: 840 MB)
\c
SET ROLE regress_rm_nobody;
SELECT rm_warm_peak_kb() AS before_kb \gset
SELECT count(chash_lookup(CASE WHEN i % 2 = 0 THEN 'rm_a' ELSE 'rm_r1000' END, i::text)) AS routed
FROM generate_series(1, 200000) i;
SELECT rm_peak_kb() - :before_kb < 32768 AS grew_under_32_mb;

-- Three rings in turn: every call meets a ring the call site does not
-- hold, and frees one
\c
SET ROLE regress_rm_nobody;
SELECT rm_warm_peak_kb() AS before_kb \gset
SELECT count(chash_lookup((ARRAY['rm_a', 'rm_b', 'rm_jump'])[i % 3 + 1], i::bigint)) AS routed
FROM generate_series(1, 6000) i;
SELECT rm_peak_kb() - :before_kb < 32768 AS grew_under_32_mb;

-- A jump ring of 20,000 members beside a small ring (before: 160 kB a row)
\c
SET ROLE regress_rm_nobody;
SELECT rm_warm_peak_kb() AS before_kb \gset
SELECT count(chash_lookup(CASE WHEN i % 2 = 0 THEN 'rm_a' ELSE 'rm_jump' END, i::bigint)) AS routed
FROM generate_series(1, 4000) i;
SELECT rm_peak_kb() - :before_kb < 32768 AS grew_under_32_mb;

-- One constant ring in a loop whose subtransactions abort: each abort
-- moves the cache generation (before: 332 MB)
\c
SET ROLE regress_rm_nobody;
SELECT rm_warm_peak_kb() AS before_kb \gset
DO $$
DECLARE
	x text;
BEGIN
	FOR i IN 1..40000 LOOP
		BEGIN
			x := chash_lookup('rm_r1000', i::text);
			PERFORM 1 / 0;
		EXCEPTION WHEN division_by_zero THEN
			NULL;
		END;
	END LOOP;
END
$$;
SELECT rm_peak_kb() - :before_kb < 32768 AS grew_under_32_mb;

-- What the calls keep is counted while they run, and is gone with them
DO $$
DECLARE
	x text;
	kept bigint;
BEGIN
	FOR i IN 1..2000 LOOP
		x := chash_lookup(CASE WHEN i % 2 = 0 THEN 'rm_a' ELSE 'rm_r1000' END, i::text);
	END LOOP;
	SELECT call_memory INTO kept FROM chash.cache_stats();
	RAISE NOTICE 'call memory counted: %, under 256 kB: %', kept > 16000, kept < 262144;
END
$$;
SELECT call_memory FROM chash.cache_stats();

-- The results stay right through all of it
SELECT chash_lookup(CASE WHEN i % 2 = 0 THEN 'rm_a' ELSE 'rm_r1000' END, i::text) =
	   CASE WHEN i % 2 = 0 THEN chash_lookup('rm_a', i::text) ELSE chash_lookup('rm_r1000', i::text) END AS same,
	   count(*)
FROM generate_series(1, 20000) i GROUP BY 1;

\c
DROP FUNCTION rm_warm_peak_kb();
DROP FUNCTION rm_peak_kb();
SELECT chash_ring_drop(r) FROM unnest(ARRAY['rm_a', 'rm_b', 'rm_r1000', 'rm_jump']) r;
DROP ROLE regress_rm_nobody;
