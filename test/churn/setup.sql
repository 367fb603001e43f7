-- churn.sh: the rings, the tables that record what happens, and the
-- functions that choose ring changes.  Run once in the suite's database.
\set ON_ERROR_STOP on
CREATE EXTENSION chash;

-- Routed by pgbench: a ring of the algorithm 'ring' with weights, zones and
-- targets, and a ketama ring (libmemcached's weighting, 32-bit positions)
SELECT chash_ring_create('churn', vnodes => 80);
SELECT chash_node_add('churn', 'n' || i, weight => 1 + (i % 3) * 0.5,
					  zone => 'z' || (i % 2), target => 'shard' || i)
FROM generate_series(1, 8) i;
SELECT chash_ring_create('churn_k', algorithm => 'ketama');
SELECT chash_node_add('churn_k', '10.0.0.' || i || ':11211', weight => 1 + i % 3)
FROM generate_series(1, 5) i;

-- Every answer routed, with the ring versions that the same statement saw.
-- src: 1 to 5 the pgbench scripts (6 records in parallel_answers), 7 the
-- changing session inside its transaction (its own uncommitted state),
-- 8 the changing session after its COMMIT.
CREATE UNLOGGED TABLE answers (
	src smallint NOT NULL,
	k bigint NOT NULL,
	vc bigint,			-- chash.ring_config.version of 'churn'
	vk bigint,			-- and of 'churn_k'
	c_text text,		-- chash_lookup('churn', 'key:' || k)
	c_int text,			-- chash_lookup('churn', k::int)
	c_big text,			-- chash_lookup('churn', k * 1000003)
	c_uuid text,		-- chash_lookup('churn', md5(k::text)::uuid)
	c_n text[],			-- chash_lookup_n('churn', 'key:' || k, 3)
	c_pos bigint,		-- chash_position('churn', 'key:' || k)
	k_text text,		-- chash_lookup('churn_k', 'key:' || k)
	k_n text[]			-- chash_lookup_n('churn_k', k::int, 2)
);

-- The committed states: written by each change transaction after its
-- changes, so that it commits or rolls back with them.  The points are
-- those the changing session itself routes by at that moment.
CREATE TABLE history (
	seq bigserial PRIMARY KEY,
	step int NOT NULL,
	ring text NOT NULL,
	version bigint NOT NULL,
	ring_row jsonb NOT NULL,	-- the ring_config row, without ring and version
	nodes jsonb NOT NULL,		-- its node_config rows, without ring, by node
	points int NOT NULL,
	points_md5 text NOT NULL
);
-- versions a rolled-back transaction saw of its own change
CREATE TABLE rolled_back (step int, ring text, version bigint);
-- every statement the changer ran, by step
CREATE TABLE changes (seq bigserial, step int, kind text, done text, sql text);

CREATE FUNCTION record_state(step int) RETURNS bigint
	LANGUAGE sql VOLATILE
	AS $$
INSERT INTO history (step, ring, version, ring_row, nodes, points, points_md5)
SELECT step, r.ring, r.version, to_jsonb(r) - 'ring' - 'version',
	   (SELECT jsonb_agg(to_jsonb(n) - 'ring' ORDER BY n.node)
		FROM chash.node_config n WHERE n.ring = r.ring),
	   p.points, p.md5
FROM chash.ring_config r
CROSS JOIN LATERAL (SELECT count(*)::int AS points,
						   md5(string_agg(concat_ws(' ', q.point, q.node, q.vnode), ',' ORDER BY q.ord)) AS md5
					FROM chash_points(r.ring) WITH ORDINALITY q(point, node, vnode, ord)) p
WHERE r.ring IN ('churn', 'churn_k');
SELECT count(*) FROM history WHERE history.step = record_state.step;
$$;

-- The routing of the pgbench scripts, for the changing session's own
-- answers (pgbench's scripts spell the same expressions out)
CREATE FUNCTION changer_route(src int, k0 bigint, n int) RETURNS void
	LANGUAGE sql VOLATILE
	AS $$
INSERT INTO answers
SELECT src, g, (SELECT version FROM chash.ring_config WHERE ring = 'churn'),
	   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k'),
	   chash_lookup('churn', 'key:' || g), chash_lookup('churn', g::int),
	   chash_lookup('churn', g * 1000003), chash_lookup('churn', md5(g::text)::uuid),
	   chash_lookup_n('churn', 'key:' || g, 3), chash_position('churn', 'key:' || g),
	   chash_lookup('churn_k', 'key:' || g), chash_lookup_n('churn_k', g::int, 2)
FROM generate_series(k0, k0 + n - 1) g;
$$;

-- The changing session routes between the changes of a transaction too,
-- so that its backend builds rings of its own uncommitted states (and of
-- states rolled back to a savepoint): what it routes after them is checked
CREATE FUNCTION warm() RETURNS bigint
	LANGUAGE sql VOLATILE
	AS $$
SELECT count(chash_lookup('churn', 'key:' || g)) + count(chash_lookup_n('churn', g, 3))
	   + count(chash_lookup('churn_k', 'key:' || g)) + count(chash_lookup_n('churn_k', g, 2))
FROM generate_series(1, 50) g
$$;

-- pgbench script 6 records here, for each transaction, the version of
-- 'churn' and how its parallel workers routed the keys of pkeys: each
-- node's number of keys and the sum of their hashes
CREATE TABLE pkeys (id int);
INSERT INTO pkeys SELECT generate_series(1, 500);
ANALYZE pkeys;
CREATE UNLOGGED TABLE parallel_answers (vc bigint, routes text);
-- (the query of script 6, for the verification)
CREATE FUNCTION pkeys_routes(ring text) RETURNS text
	LANGUAGE sql STABLE
	AS $$
SELECT string_agg(node || ':' || n || ':' || s, ',' ORDER BY node)
FROM (SELECT chash_lookup(ring, 'key:' || id) AS node, count(*) AS n, sum(hashint4(id)) AS s
	  FROM pkeys GROUP BY 1) g
$$;
-- how many workers the query of script 6 gets on an idle server
CREATE FUNCTION parallel_workers_launched() RETURNS int
	LANGUAGE plpgsql VOLATILE
	SET max_parallel_workers_per_gather = 2
	SET parallel_setup_cost = 0
	SET parallel_tuple_cost = 0
	SET min_parallel_table_scan_size = 0
	SET parallel_leader_participation = off
	AS $f$
DECLARE
	plan text;
BEGIN
	EXECUTE $q$EXPLAIN (ANALYZE, FORMAT JSON)
		SELECT string_agg(node || ':' || n || ':' || s, ',' ORDER BY node)
		FROM (SELECT chash_lookup('churn', 'key:' || id) AS node, count(*) AS n, sum(hashint4(id)) AS s
			  FROM pkeys GROUP BY 1) g$q$ INTO plan;
	RETURN (regexp_match(plan, '"Workers Launched": (\d+)'))[1]::int;
END
$f$;

-- pgbench script 5: a cursor over 10 keys opened in PL/pgSQL, read row by
-- row while other statements (the inserts, with snapshots of their own) run
-- and ring changes commit; every row must route by the cursor's snapshot
CREATE FUNCTION cursor_route(k0 bigint) RETURNS void
	LANGUAGE plpgsql VOLATILE
	AS $$
DECLARE
	c CURSOR FOR
		SELECT 5::smallint AS src, g AS k,
			   (SELECT version FROM chash.ring_config WHERE ring = 'churn') AS vc,
			   (SELECT version FROM chash.ring_config WHERE ring = 'churn_k') AS vk,
			   chash_lookup('churn', 'key:' || g) AS c_text, chash_lookup('churn', g::int) AS c_int,
			   chash_lookup('churn', g * 1000003) AS c_big,
			   chash_lookup('churn', md5(g::text)::uuid) AS c_uuid,
			   chash_lookup_n('churn', 'key:' || g, 3) AS c_n,
			   chash_position('churn', 'key:' || g) AS c_pos,
			   chash_lookup('churn_k', 'key:' || g) AS k_text,
			   chash_lookup_n('churn_k', g::int, 2) AS k_n
		FROM generate_series(k0, k0 + 9) g;
	i int := 0;
BEGIN
	FOR r IN c LOOP
		INSERT INTO answers VALUES (r.src, r.k, r.vc, r.vk, r.c_text, r.c_int, r.c_big,
									r.c_uuid, r.c_n, r.c_pos, r.k_text, r.k_n);
		i := i + 1;
		IF i % 3 = 0 THEN
			PERFORM pg_sleep(0.002);
		END IF;
	END LOOP;
END
$$;

/*
 * The changes.  change_sql(kind) returns the statements of one change of
 * that kind (and the kind done, where that one cannot be done now), chosen
 * from the current catalog (psql runs them with \gexec, as top-level
 * statements), keeping 'churn' at 6 to 12 nodes with at least
 * 4 active and 'churn_k' at 3 to 8 nodes with at least 2 active, so that
 * every committed state routes chash_lookup_n(..., 3) and (..., 2).  Only
 * this session changes rings, so with setseed() the run's changes are the
 * same every time.
 */
CREATE SEQUENCE names START 100;

CREATE FUNCTION pick(r text, only_state text DEFAULT NULL, keep_active int DEFAULT 0)
	RETURNS text
	LANGUAGE sql VOLATILE
	AS $$
-- a node of ring r (in state only_state, if given) whose removal or going
-- down leaves at least keep_active active nodes
SELECT n.node FROM chash.node_config n
WHERE n.ring = r AND (only_state IS NULL OR n.state = only_state)
  AND (n.state <> 'active' OR
	   (SELECT count(*) FROM chash.node_config m WHERE m.ring = r AND m.state = 'active') > keep_active)
ORDER BY random() LIMIT 1
$$;

CREATE FUNCTION nodes_of(r text, only_state text DEFAULT NULL) RETURNS int
	LANGUAGE sql STABLE
	AS $$ SELECT count(*)::int FROM chash.node_config WHERE ring = r AND (only_state IS NULL OR state = only_state) $$;

CREATE FUNCTION one_of(VARIADIC choices text[]) RETURNS text
	LANGUAGE sql VOLATILE
	AS $$ SELECT choices[1 + floor(random() * cardinality(choices))::int] $$;

CREATE FUNCTION change_sql(INOUT kind text, OUT stmt text) RETURNS SETOF record
	LANGUAGE plpgsql VOLATILE
	AS $$
DECLARE
	n text;
	v text;
	cfg chash.ring_config;
BEGIN
	-- what cannot be done now becomes what can
	IF kind IN ('add', 'insert_dml') AND nodes_of('churn') >= 12 THEN
		kind := 'remove';
	ELSIF kind IN ('remove', 'delete_dml') AND (nodes_of('churn') <= 6 OR pick('churn', NULL, 4) IS NULL) THEN
		kind := 'add';
	ELSIF kind IN ('down', 'down_dml') AND pick('churn', 'active', 4) IS NULL THEN
		kind := 'up';
	END IF;
	IF kind IN ('up', 'up_dml') AND pick('churn', 'down') IS NULL THEN
		kind := 'down';
	END IF;
	IF kind = 'k_add' AND nodes_of('churn_k') >= 8 THEN
		kind := 'k_remove';
	ELSIF kind = 'k_remove' AND (nodes_of('churn_k') <= 3 OR pick('churn_k', NULL, 2) IS NULL) THEN
		kind := 'k_add';
	ELSIF kind = 'k_down' AND pick('churn_k', 'active', 2) IS NULL THEN
		kind := 'k_up';
	END IF;
	IF kind = 'k_up' AND pick('churn_k', 'down') IS NULL THEN
		kind := 'k_down';
	END IF;
	SELECT * INTO cfg FROM chash.ring_config WHERE ring = 'churn';

	CASE kind
	WHEN 'add' THEN
		stmt := format('SELECT chash_node_add(%L, %L, weight => %s, vnodes => %s, zone => %L, target => %L)',
						   'churn', 'n' || nextval('names'), one_of('0.5', '1', '1.5', '2', '3'),
						   one_of('NULL', 'NULL', '30', '150'), one_of('z0', 'z1'), 'shard' || currval('names'));
	WHEN 'insert_dml' THEN
		stmt := format('INSERT INTO chash.node_config (ring, node, weight) VALUES (%L, %L, %s)',
						   'churn', 'd' || nextval('names'), one_of('0.75', '1.25'));
	WHEN 'remove' THEN
		stmt := format('SELECT chash_node_remove(%L, %L)', 'churn', pick('churn', NULL, 4));
	WHEN 'delete_dml' THEN
		stmt := format('DELETE FROM chash.node_config WHERE ring = %L AND node = %L', 'churn', pick('churn', NULL, 4));
	WHEN 'weight' THEN
		stmt := format('SELECT chash_node_set(%L, %L, weight => %s)', 'churn', pick('churn'),
						   one_of('0.5', '0.8', '1', '1.7', '2.5'));
	WHEN 'weight_dml' THEN
		stmt := format('UPDATE chash.node_config SET weight = weight * %s WHERE ring = %L AND node = %L',
						   one_of('0.8', '1.25'), 'churn', pick('churn'));
	WHEN 'vnodes' THEN
		stmt := format('SELECT chash_node_set(%L, %L, vnodes => %s)', 'churn', pick('churn'),
						   one_of('10', '64', '100', '200'));
	WHEN 'vnodes_null' THEN
		n := (SELECT node FROM chash.node_config WHERE ring = 'churn' AND vnodes IS NOT NULL ORDER BY random() LIMIT 1);
		IF n IS NULL THEN
			stmt := format('UPDATE chash.node_config SET vnodes = 33 WHERE ring = %L AND node = %L', 'churn', pick('churn'));
		ELSE
			stmt := format('UPDATE chash.node_config SET vnodes = NULL WHERE ring = %L AND node = %L', 'churn', n);
		END IF;
	WHEN 'down' THEN
		stmt := format('SELECT chash_node_set(%L, %L, state => %L)', 'churn', pick('churn', 'active', 4), 'down');
	WHEN 'down_dml' THEN
		stmt := format('UPDATE chash.node_config SET state = %L WHERE ring = %L AND node = %L', 'down', 'churn', pick('churn', 'active', 4));
	WHEN 'up' THEN
		stmt := format('SELECT chash_node_set(%L, %L, state => %L)', 'churn', pick('churn', 'down'), 'active');
	WHEN 'up_dml' THEN
		stmt := format('UPDATE chash.node_config SET state = %L WHERE ring = %L AND node = %L', 'active', 'churn', pick('churn', 'down'));
	WHEN 'rename' THEN
		stmt := format('UPDATE chash.node_config SET node = %L WHERE ring = %L AND node = %L',
						   'm' || nextval('names'), 'churn', pick('churn'));
	WHEN 'zone' THEN
		-- changes no point: a new version of the same routes
		stmt := format('SELECT chash_node_set(%L, %L, zone => %L, target => %L)', 'churn', pick('churn'),
						   one_of('z0', 'z1', 'z2'), 'shard_' || nextval('names'));
	WHEN 'ordinal' THEN
		-- the node goes last in the server list: matters under ties first/last
		stmt := format('UPDATE chash.node_config SET ordinal = nextval(%L) WHERE ring = %L AND node = %L',
						   'chash.node_ordinal_seq', 'churn', pick('churn'));
	WHEN 'ring_vnodes' THEN
		stmt := format('UPDATE chash.ring_config SET vnodes = %s WHERE ring = %L',
						   (SELECT x FROM unnest(ARRAY[40, 60, 80, 120]) x WHERE x <> cfg.vnodes ORDER BY random() LIMIT 1), 'churn');
	WHEN 'ring_hash' THEN
		stmt := format('UPDATE chash.ring_config SET hash = %L WHERE ring = %L',
						   (SELECT x FROM unnest(ARRAY['xxh3_64', 'xxh64', 'pg', 'murmur3_32', 'crc32', 'fnv1a_32']) x
							WHERE x <> cfg.hash AND (cfg.key_hash IS NULL OR chash.hash_bits(x) = chash.hash_bits(cfg.key_hash))
							ORDER BY random() LIMIT 1), 'churn');
	WHEN 'ring_key_hash' THEN
		stmt := format('UPDATE chash.ring_config SET key_hash = %L WHERE ring = %L',
						   (SELECT x FROM unnest(ARRAY[NULL, 'xxh3_64', 'xxh64', 'pg', 'fnv1a_64', 'murmur3_32', 'crc32']) x
							WHERE x IS DISTINCT FROM cfg.key_hash AND (x IS NULL OR chash.hash_bits(x) = chash.hash_bits(cfg.hash))
							ORDER BY random() LIMIT 1), 'churn');
	WHEN 'ring_template' THEN
		stmt := format('UPDATE chash.ring_config SET vnode_name = %L, vnode_first = %s WHERE ring = %L',
						   (SELECT x FROM unnest(ARRAY['{node}#{i}', '{node}-{i}', 'v{i}/{node}']) x
							WHERE x <> cfg.vnode_name ORDER BY random() LIMIT 1),
						   one_of('0', '1', '7'), 'churn');
	WHEN 'ring_ties' THEN
		stmt := format('UPDATE chash.ring_config SET ties = %L WHERE ring = %L',
						   (SELECT x FROM unnest(ARRAY[NULL, 'name', 'first', 'last']) x
							WHERE x IS DISTINCT FROM cfg.ties ORDER BY random() LIMIT 1), 'churn');
	WHEN 'side' THEN
		-- another ring: copied from churn and changed, renamed, dropped
		IF EXISTS (SELECT FROM chash.ring_config WHERE ring = 'side') THEN
			stmt := 'UPDATE chash.ring_config SET ring = ''side_renamed'' WHERE ring = ''side'''; RETURN NEXT;
			stmt := 'SELECT chash_node_add(''side_renamed'', ''extra'')'; RETURN NEXT;
			stmt := 'SELECT chash_ring_drop(''side_renamed'')';
		ELSE
			stmt := 'SELECT chash_ring_copy(''churn'', ''side'')'; RETURN NEXT;
			stmt := format('SELECT chash_node_set(%L, %L, weight => 4)', 'side', pick('churn'));
		END IF;
	WHEN 'swap' THEN
		-- blue/green: prepare a changed copy, then (in a later transaction)
		-- rename it to churn and drop the old ring, in one transaction
		IF EXISTS (SELECT FROM chash.ring_config WHERE ring = 'churn_next') THEN
			stmt := 'UPDATE chash.ring_config SET ring = ''churn_old'' WHERE ring = ''churn'''; RETURN NEXT;
			stmt := 'UPDATE chash.ring_config SET ring = ''churn'' WHERE ring = ''churn_next'''; RETURN NEXT;
			stmt := 'SELECT chash_ring_drop(''churn_old'')';
		ELSE
			stmt := 'SELECT chash_ring_copy(''churn'', ''churn_next'')'; RETURN NEXT;
			IF nodes_of('churn') < 12 THEN
				stmt := format('SELECT chash_node_add(%L, %L)', 'churn_next', 'b' || nextval('names'));
				RETURN NEXT;
			END IF;
			stmt := format('SELECT chash_node_set(%L, %L, weight => 0.6)', 'churn_next', pick('churn'));
		END IF;
	-- the ketama ring
	WHEN 'k_add' THEN
		stmt := format('SELECT chash_node_add(%L, %L, weight => %s)', 'churn_k',
						   '10.0.1.' || nextval('names') || one_of(':11211', ':11212'), one_of('1', '2', '3'));
	WHEN 'k_remove' THEN
		stmt := format('SELECT chash_node_remove(%L, %L)', 'churn_k', pick('churn_k', NULL, 2));
	WHEN 'k_weight' THEN
		stmt := format('SELECT chash_node_set(%L, %L, weight => %s)', 'churn_k', pick('churn_k'), one_of('1', '2', '3', '4'));
	WHEN 'k_down' THEN
		stmt := format('SELECT chash_node_set(%L, %L, state => %L)', 'churn_k', pick('churn_k', 'active', 2), 'down');
	WHEN 'k_up' THEN
		stmt := format('UPDATE chash.node_config SET state = %L WHERE ring = %L AND node = %L', 'active', 'churn_k', pick('churn_k', 'down'));
	WHEN 'k_order' THEN
		stmt := format('UPDATE chash.node_config SET ordinal = nextval(%L) WHERE ring = %L AND node = %L',
						   'chash.node_ordinal_seq', 'churn_k', pick('churn_k'));
	WHEN 'k_ring' THEN
		v := (SELECT x FROM unnest(ARRAY['libmemcached', 'libketama', 'twemproxy', 'node']) x
			  WHERE x IS DISTINCT FROM (SELECT ketama_variant FROM chash.ring_config WHERE ring = 'churn_k')
			  ORDER BY random() LIMIT 1);
		stmt := format('UPDATE chash.ring_config SET ketama_variant = %L, vnodes = %s WHERE ring = %L',
						   v, one_of('160', '120', '200'), 'churn_k');
	ELSE
		RAISE EXCEPTION 'unknown kind of change %', kind;
	END CASE;
	-- the last (or only) statement of the change
	RETURN NEXT;
END
$$;

-- change_sql's statements for step, logged in changes (with the step's
-- transaction: a rolled-back step leaves no log)
CREATE FUNCTION next_change(step int, kind text) RETURNS SETOF text
	LANGUAGE sql VOLATILE
	AS $$
INSERT INTO changes (step, kind, done, sql) SELECT step, kind, c.kind, c.stmt FROM change_sql(kind) c RETURNING sql
$$;

SELECT record_state(0);
