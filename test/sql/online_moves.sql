--
-- chash_move_online: what it refuses before it reaches any shard, with
-- nothing changed.  The moves themselves, between real shards while
-- clients write, are test/scripts/move_online.sh.
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (2.0 CPU-seconds with JIT, 0.9 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;
\set SHOW_CONTEXT never
CREATE TABLE om_users (k bigint PRIMARY KEY, v integer);
SELECT chash_ring_create('om_a');
SELECT chash_node_add('om_a', 'n1');
SELECT chash_node_add('om_a', 'n2');
SELECT chash_ring_copy('om_a', 'om_b');
SELECT chash_node_add('om_b', 'n3');
SELECT chash_ring_copy('om_a', 'om_same');
SELECT chash_ring_create('om_mod', algorithm => 'modulo');
SELECT chash_node_add('om_mod', 'n1');
SELECT chash_node_add('om_mod', 'n2');

-- commands reach the shards through dblink
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
CREATE EXTENSION dblink;

\set VERBOSITY default
CALL chash_move_online(NULL, 'om_b', 'om_users', 'k');
CALL chash_move_online('om_a', NULL, 'om_users', 'k');
CALL chash_move_online('om_a', 'om_b', NULL, 'k');
CALL chash_move_online('om_a', 'om_b', 'om_users', NULL);
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', max_write_block => NULL);
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', wait_timeout => NULL);
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', trust_table_owners => NULL);
-- the fences stand at most max_write_block; every wait at most wait_timeout
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', max_write_block => '100 ms');
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', max_write_block => '2 min');
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k', wait_timeout => '0.5 s');
-- an abort needs an unfinished move
CALL chash_move_abort(NULL);
CALL chash_move_abort('om_a', NULL);
CALL chash_move_abort('om_a');
CALL chash_move_online('om_a', 'om_b', 'om_users', 'nope');
-- a key whose text depends on the session's settings
ALTER TABLE om_users ADD COLUMN at timestamptz;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'at');
ALTER TABLE om_users DROP COLUMN at;
CALL chash_move_online('om_a', 'om_nope', 'om_users', 'k');
CALL chash_move_online('om_a', 'om_a', 'om_users', 'k');
-- a ring that is not one of points compares key by key: not online
CALL chash_move_online('om_a', 'om_mod', 'om_users', 'k');
-- rings that agree: nothing to do, and nothing recorded
CALL chash_move_online('om_a', 'om_same', 'om_users', 'k');
-- nodes without targets, then targets that are no foreign tables
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
CREATE SCHEMA om_local;
CREATE TABLE om_local.om_users (k bigint PRIMARY KEY, v integer);
SELECT chash_node_set('om_a', n, target => 'om_local') FROM unnest(ARRAY['n1', 'n2']) n;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
-- a foreign table of another wrapper is no postgres_fdw shard either
CREATE FOREIGN DATA WRAPPER om_fdw;
CREATE SERVER om_server FOREIGN DATA WRAPPER om_fdw;
CREATE SCHEMA om_foreign;
CREATE FOREIGN TABLE om_foreign.om_users (k bigint, v integer) SERVER om_server;
SELECT chash_node_set('om_a', 'n1', target => 'om_foreign');
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
-- nodes on one server: a move publishes, fences and subscribes per shard
CREATE EXTENSION postgres_fdw;
CREATE SERVER om_shared FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'nowhere');
CREATE SCHEMA om_s1;
CREATE SCHEMA om_s2;
CREATE FOREIGN TABLE om_s1.om_users (k bigint, v integer) SERVER om_shared;
CREATE FOREIGN TABLE om_s2.om_users (k bigint, v integer) SERVER om_shared;
SELECT chash_node_set('om_a', 'n1', target => 'om_s1');
SELECT chash_node_set('om_a', 'n2', target => 'om_s2');
SELECT chash_node_set('om_b', 'n3', target => 'om_s1');
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
\set VERBOSITY terse
SELECT count(*) AS moves FROM chash.online_moves;
SELECT count(*) AS pairs FROM chash.online_move_pairs;

-- only those the owner lets may move rows, or read the moves' records
CREATE ROLE regress_chash_mover;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
SELECT * FROM chash.online_moves;
SELECT * FROM chash.online_move_nodes;
SELECT chash.move_remote('x', 'SELECT 1');
SELECT chash.move_connect('x', 'x', '1 s');
SELECT chash.move_ddl('x', 'SELECT 1', 'n', now());
CALL chash_move_abort('om_a');
RESET ROLE;
-- one that may call it must also see every session (the cleanup waits for them)
GRANT EXECUTE ON PROCEDURE chash_move_online(text, text, regclass, name, interval, interval, boolean),
	chash_move_abort(text, interval) TO regress_chash_mover;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
CALL chash_move_abort('om_a');
RESET ROLE;
-- and execute the helpers the procedures call with its rights: told so
-- before anything runs
GRANT pg_read_all_stats TO regress_chash_mover;
SET ROLE regress_chash_mover;
\set VERBOSITY default
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
CALL chash_move_abort('om_a');
RESET ROLE;
-- granted them, it needs the moves' records
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN SELECT p.oid FROM pg_proc p
			 WHERE p.pronamespace = 'chash'::regnamespace AND p.proname LIKE 'move\_%' LOOP
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO regress_chash_mover', f);
	END LOOP;
END
$$;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
RESET ROLE;
-- (all four: one of them is not enough)
GRANT SELECT ON chash.online_moves, chash.online_move_pairs, chash.online_move_nodes
	TO regress_chash_mover;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
RESET ROLE;
GRANT SELECT, INSERT, UPDATE, DELETE ON chash.online_moves, chash.online_move_pairs, chash.online_move_nodes
	TO regress_chash_mover;
-- nor is INSERT alone on the ring catalog
GRANT INSERT ON chash.ring_config, chash.node_config TO regress_chash_mover;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
RESET ROLE;
-- and change the ring at the cutover; then it goes on to the shards'
-- targets, which its own privileges must reach
GRANT INSERT, DELETE ON chash.ring_config, chash.node_config TO regress_chash_mover;
SET ROLE regress_chash_mover;
CALL chash_move_online('om_a', 'om_b', 'om_users', 'k');
\set VERBOSITY terse
RESET ROLE;
REVOKE INSERT, DELETE ON chash.ring_config, chash.node_config FROM regress_chash_mover;
REVOKE SELECT, INSERT, UPDATE, DELETE ON chash.online_moves, chash.online_move_pairs, chash.online_move_nodes
	FROM regress_chash_mover;
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN SELECT p.oid FROM pg_proc p
			 WHERE p.pronamespace = 'chash'::regnamespace AND p.proname LIKE 'move\_%' LOOP
		EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM regress_chash_mover', f);
	END LOOP;
END
$$;
REVOKE pg_read_all_stats FROM regress_chash_mover;
REVOKE EXECUTE ON PROCEDURE chash_move_online(text, text, regclass, name, interval, interval, boolean),
	chash_move_abort(text, interval) FROM regress_chash_mover;
DROP ROLE regress_chash_mover;

DROP EXTENSION postgres_fdw CASCADE;
DROP SCHEMA om_s1, om_s2;
DROP FOREIGN TABLE om_foreign.om_users;
DROP SCHEMA om_foreign;
DROP SERVER om_server;
DROP FOREIGN DATA WRAPPER om_fdw;
DROP TABLE om_local.om_users;
DROP SCHEMA om_local;
-- A connection to a shard that was lost (its server restarted) is an
-- error at the next command, not a NULL result that a wait for a state
-- would take for "not yet" until wait_timeout
SELECT dblink_connect('om_lost', format('host=%s port=%s dbname=%s application_name=om_lost',
										 split_part(current_setting('unix_socket_directories'), ',', 1),
										 current_setting('port'), current_database())) AS connected;
SELECT chash.move_remote('om_lost', 'SELECT 41 + 1') AS answer;
SELECT pg_terminate_backend(pid, 10000) AS terminated
FROM pg_stat_activity WHERE application_name = 'om_lost';
-- the first command finds the connection closed, in the middle or at
-- once as the timing goes (either is an error, not shown here); the next
-- one cannot even be sent
SET client_min_messages = error;
DO $$
BEGIN
	PERFORM chash.move_remote('om_lost', 'SELECT 41 + 1');
	RAISE EXCEPTION 'move_remote answered on a lost connection';
EXCEPTION WHEN OTHERS THEN
	IF SQLERRM = 'move_remote answered on a lost connection' THEN
		RAISE;
	END IF;
END
$$;
RESET client_min_messages;
\set VERBOSITY default
SET client_min_messages = warning;
SELECT chash.move_remote('om_lost', 'SELECT 41 + 1') AS answer;
RESET client_min_messages;
\set VERBOSITY terse
SELECT dblink_disconnect('om_lost');

-- Tables of slots of a 16-bit key hash (Redis Cluster's crc16) move
-- online: each pair's positions are its slots' numbers modulo 16,384, and
-- a shard hashes a key's hash tag as chash_position does.  The keys whose
-- position falls in a pair's ranges are exactly chash_moved_keys' of that
-- pair.
SELECT chash_ring_create('om_r', profile => 'redis_cluster');
SELECT chash_node_add('om_r', n) FROM unnest(ARRAY['n1', 'n2', 'n3']) n;
SELECT chash_ring_copy('om_r', 'om_r4');
SELECT chash_node_add('om_r4', 'n4');
CREATE TABLE om_keys AS
SELECT '{u' || g % 700 || '}:' || g AS k FROM generate_series(1, 20000) g
UNION ALL SELECT 'untagged' || g FROM generate_series(1, 2000) g;
SELECT count(*) AS pairs, sum((SELECT count(*) FROM unnest(ranges))) AS ranges,
	   bool_and(ranges <@ int8multirange(int8range(0, 65536))) AS within_16_bits
FROM chash.move_ranges('om_r', 'om_r4');
SELECT count(*) AS keys_placed_otherwise
FROM (SELECT k.k, m.from_node, m.to_node FROM om_keys k
	  JOIN chash.move_ranges('om_r', 'om_r4') m ON chash_position('om_r', k.k) <@ m.ranges) r
FULL JOIN chash_moved_keys('om_r', 'om_r4', 'om_keys', 'k', NULL::text) x ON x.key = r.k
WHERE (r.from_node, r.to_node) IS DISTINCT FROM (x.from_node, x.to_node);
SELECT count(*) AS moved FROM chash_moved_keys('om_r', 'om_r4', 'om_keys', 'k', NULL::text);
-- the tag's part on a shard, against chash_position: keys with no tag, an
-- empty one, an unclosed one, nested and repeated braces, multibyte text,
-- and bytea keys
CREATE TABLE om_tagged (k text);
INSERT INTO om_tagged VALUES ('{}x'), ('a{b'), ('{{a}}'), ('x}{y}'), ('{'), ('é{ü}z'), (''), ('{a}{b}'),
	('ab{}{c}'), ('}{'), ('{}}'), ('a{{}'), ('{t1}:5');
INSERT INTO om_tagged SELECT substr(md5(g::text), 1, g % 9) || (ARRAY['{', '}', '{}', 'x'])[1 + g % 4] || substr(md5(g::text), 10, g % 5)
FROM generate_series(1, 3000) g;
DO $$
DECLARE
	shard jsonb := jsonb_build_object('ext', (SELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'chash'),
									  'key_hash', 'crc16', 'hash_tag', '{}', 'bytea_keys', false);
	differ bigint;
	differ_bytea bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM om_tagged t WHERE %s <> chash_position(''om_r'', t.k)',
				   chash.move_hashed(shard, 't.k::pg_catalog.text')) INTO differ;
	EXECUTE format('SELECT count(*) FROM om_tagged t WHERE %s <> chash_position(''om_r'', convert_to(t.k, ''UTF8''))',
				   chash.move_hashed(shard || '{"bytea_keys": true}', 'convert_to(t.k, ''UTF8'')')) INTO differ_bytea;
	RAISE NOTICE 'of % keys, % text and % bytea keys hash otherwise on a shard', (SELECT count(*) FROM om_tagged), differ, differ_bytea;
END
$$;
-- a table of slots of a 64-bit key hash, or slots of no node: not online
SELECT chash_ring_create('om_s', algorithm => 'slots');
SELECT chash_node_add('om_s', n) FROM unnest(ARRAY['n1', 'n2']) n;
SELECT chash_ring_copy('om_s', 'om_s3');
SELECT chash_node_add('om_s3', 'n3');
\set VERBOSITY default
CALL chash_move_online('om_s', 'om_s3', 'om_users', 'k');
SELECT chash_ring_copy('om_r', 'om_gap');
SELECT node, slots FROM chash_slot_ranges('om_r') ORDER BY slots;
-- slots 16,000 to 16,383 of no node
UPDATE chash.node_config
SET slots = CASE node WHEN 'n1' THEN '{"[0,5461)"}' WHEN 'n2' THEN '{"[5461,10923)"}' ELSE '{"[10923,16000)"}' END::int4range[]
WHERE ring = 'om_gap';
CALL chash_move_online('om_r', 'om_gap', 'om_users', 'k');
\set VERBOSITY terse
SELECT count(*) AS recorded FROM chash.online_moves;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['om_r', 'om_r4', 'om_s', 'om_s3', 'om_gap']) r;
DROP TABLE om_keys, om_tagged;
DROP EXTENSION dblink;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['om_a', 'om_b', 'om_same', 'om_mod']) r;
DROP TABLE om_users;
