--
-- What a user must be able to trust, kept covered as functions are added:
-- every function of the extension is found in the catalog and called with
-- NULL in each argument, with empty and over-long names, with values at and
-- past each limit, and by a role with no grants, which also tries every
-- trigger function, every DML and every lock it can reach.  Each call runs
-- in a subtransaction that is rolled back, so nothing changes.
--
-- Rings of this test are named hostile*, roles regress_chash_*.
--
-- JIT off, unlike the rest of REGRESS: compiling this test's checking
-- queries took CPU time (5.7 CPU-seconds with JIT, 2.1 without, 2026-12-06),
-- and JIT decides nothing of chash's results.
SET jit = off;
SET client_min_messages = warning;
SELECT chash_ring_create('hostile', vnodes => 20);
SELECT chash_node_add('hostile', n, target => 'shard_' || n) FROM unnest(ARRAY['n1', 'n2', 'n3']) n;
SELECT chash_ring_copy('hostile', 'hostile_next');
SELECT chash_node_add('hostile_next', 'n4', target => 'shard_n4');
-- nodes whose rows are in one table (chash_shard_load reads it)
SELECT chash_ring_create('hostile_shards', vnodes => 20);
SELECT chash_node_add('hostile_shards', n, target => 'public.hostile_keys') FROM unnest(ARRAY['n1', 'n2']) n;
SELECT chash_ring_create('hostile_set');
SELECT chash_ring_create('hostile_redis', profile => 'redis_cluster');
SELECT chash_ring_create('hostile_cass', profile => 'cassandra');
SELECT chash_ring_create('hostile_nginx', profile => 'nginx');
SELECT chash_node_add('hostile_nginx', '127.0.0.1:80');
SELECT chash_ring_create('hostile_slots', profile => 'redis_cluster');
SELECT chash_node_add('hostile_slots', 'm' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_create('hostile_rc', profile => 'redis_cluster');
SELECT chash_node_add('hostile_rc', '127.0.0.1:700' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_copy('hostile_rc', 'hostile_rc_next');
SELECT chash_node_add('hostile_rc_next', '127.0.0.1:7004');
SELECT chash_ring_create('hostile_hap', profile => 'haproxy');
SELECT chash_node_add('hostile_hap', '127.0.0.1:808' || i) FROM generate_series(1, 3) i;
SELECT chash_ring_copy('hostile_hap', 'hostile_hap_next');
SELECT chash_node_add('hostile_hap_next', '127.0.0.1:8084');
SELECT chash_ring_create('hostile_tokens', algorithm => 'tokens');
SELECT chash_node_add('hostile_tokens', 't' || i, tokens => ARRAY[i * 1000, i * 1000 + 4611686018427387904])
FROM generate_series(1, 3) i;
CREATE TABLE hostile_keys (k integer PRIMARY KEY);
INSERT INTO hostile_keys SELECT generate_series(1, 100);
CREATE ROLE regress_chash_nobody;
GRANT SELECT ON hostile_keys TO regress_chash_nobody;
RESET client_min_messages;

-- The functions of the extension: its SQL surface
CREATE TEMP VIEW hostile_functions AS
SELECT p.oid, p.oid::regprocedure::text AS signature, p.proisstrict AS strict,
	   p.proretset AS set_returning, p.prorettype = 'trigger'::regtype AS is_trigger,
	   p.prokind = 'p' AS is_procedure,
	   p.pronamespace = 'chash'::regnamespace AS internal,
	   has_function_privilege('regress_chash_nobody', p.oid, 'EXECUTE') AS public_can,
	   p.prorettype = 'record'::regtype AND p.proallargtypes IS NULL AS needs_columns,
	   p.pronargs AS nargs,
	   coalesce(p.proargnames[1:p.pronargs], '{}') AS argnames,
	   ARRAY(SELECT unnest(p.proargtypes::oid[])) AS argtypes
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chash';

-- A valid value for each argument, by name (and type where names are
-- shared, function where a change would otherwise collide with what is
-- there): a new function whose argument is not here fails this test
CREATE TEMP TABLE hostile_samples (argname text, argtype regtype, value text,
								   function text DEFAULT NULL);
INSERT INTO hostile_samples VALUES
	('ring', NULL, '''hostile_new''', 'chash_ring_create'),
	('ring', NULL, '''hostile_set''', 'chash_ring_set'),
	('node', NULL, '''n9''', 'chash_node_add'),
	('ring', NULL, '''hostile_redis''', 'chash_ring_import'),
	('ring', NULL, '''hostile_slots''', 'chash_rebalance'),
	('ring', NULL, '''hostile_slots''', 'chash_rebalance_report'),
	('ring', NULL, '''hostile_shards''', 'chash_shard_load'),
	('ring', NULL, '''hostile_tokens''', 'chash_allocate_tokens'),
	('tokens', NULL, '4', 'chash_allocate_tokens'),
	('ring', NULL, '''hostile_tokens''', 'chash.rebalance_unit_rows'),
	('names', NULL, 'ARRAY[''t1'', ''t2'', ''t3'']', 'chash.rebalance_unit_rows'),
	('positions', NULL, 'ARRAY[1, 2, 2]::bigint[]', 'chash.rebalance_unit_rows'),
	('loads', NULL, 'ARRAY[1, 2, 3]::float8[]', 'chash.rebalance_unit_rows'),
	('ring', NULL, '''hostile_nginx''', 'chash_export'),
	('format', NULL, '''nginx''', 'chash_export'),
	('options', NULL, '''{"key": "$http_x_key"}''::jsonb', 'chash_export'),
	('ring', NULL, '''hostile_rc''', 'chash.export_redis_cluster'),
	('from_ring', NULL, '''hostile_rc''', 'chash_export_plan'),
	('to_ring', NULL, '''hostile_rc_next''', 'chash_export_plan'),
	('format', NULL, '''redis_cli''', 'chash_export_plan'),
	('from_ring', NULL, '''hostile_rc''', 'chash.export_plan_nodes'),
	('to_ring', NULL, '''hostile_rc_next''', 'chash.export_plan_nodes'),
	('profile', NULL, '''nginx''', 'chash.export_check_system'),
	('settings', NULL, 'ARRAY[''algorithm'', ''hash'']', 'chash.export_check_system'),
	('wants', NULL, 'ARRAY[''nginx'', NULL]', 'chash.export_check_system'),
	('from_ring', NULL, '''hostile_rc''', 'chash.export_plan_redis'),
	('to_ring', NULL, '''hostile_rc_next''', 'chash.export_plan_redis'),
	('from_ring', NULL, '''hostile_hap''', 'chash.export_plan_haproxy_runtime'),
	('to_ring', NULL, '''hostile_hap_next''', 'chash.export_plan_haproxy_runtime'),
	('from_ring', NULL, '''hostile_hap''', 'chash.export_plan_haproxy_servers'),
	('to_ring', NULL, '''hostile_hap_next''', 'chash.export_plan_haproxy_servers'),
	('ring', NULL, '''hostile_pgp''', 'chash.import_postgres_partitions'),
	('input', NULL, '''hostile_keys''', 'chash.import_postgres_partitions'),
	('ring', NULL, '''hostile_cass''', 'chash.import_nodetool_ring'),
	('input', NULL, 'E''Datacenter: dc1\nAddress Rack Status State Load Owns Token\n10.0.1.1 r1 Up Normal 1 KiB ? -9000\n''',
	 'chash.import_nodetool_ring');
INSERT INTO hostile_samples (argname, argtype, value) VALUES
	('ring', NULL, '''hostile'''), ('from_ring', NULL, '''hostile'''),
	('to_ring', NULL, '''hostile_next'''), ('src', NULL, '''hostile'''),
	('dst', NULL, '''hostile_new'''), ('node', NULL, '''n1'''),
	('planned', NULL, '''hostile_next'''), ('drop_planned', NULL, 'false'), ('as_type', NULL, 'NULL::integer'),
	('slices', NULL, 'ARRAY[0, 1, 2, 9]'), ('cx', NULL, '100'), ('cy', NULL, '100'), ('radius', NULL, '50'),
	('key', 'text', '''k'''), ('key', 'bytea', '''\x6b''::bytea'),
	('key', 'integer', '42'), ('key', 'bigint', '42::bigint'), ('key', 'smallint', '42::smallint'),
	('key', 'anyelement', '4.2::numeric'),
	('key', 'uuid', '''a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11''::uuid'),
	('keys', NULL, 'ARRAY[1, 2, 3]'), ('n', NULL, '2'), ('replicas', NULL, '1'),
	('hash', NULL, '''xxh3_64'''), ('key_hash', NULL, '''xxh3_64'''),
	('algorithm', NULL, '''ring'''), ('vnodes', NULL, '10'), ('vnode_first', NULL, '0'),
	('vnode_name', NULL, '''{node}#{i}'''), ('ketama_variant', NULL, 'NULL'),
	('ties', NULL, '''name'''), ('weight', NULL, '1'), ('capacity', NULL, '2'), ('address', NULL, '''10.0.0.1:80'''), ('state', NULL, '''active'''),
	('zone', NULL, '''z'''), ('target', NULL, '''t'''),
	('relation', NULL, '''hostile_keys''::regclass'), ('key_column', NULL, '''k'''),
	('dialect', NULL, '''postgresql'''), ('width', NULL, '640'), ('height', NULL, '100'),
	('title', NULL, '''t'''), ('body', NULL, '''b'''), ('s', NULL, '''s'''),
	('k', NULL, '1'), ('message', NULL, '''m'''), ('key_type', NULL, '''integer''::regtype'),
	('relname', NULL, '''hostile_keys'''), ('require_active', NULL, 'true'),
	('distinct_zones', NULL, 'true'), ('table_size', NULL, 'NULL'), ('lookup', NULL, '''nearest'''), ('tokens', NULL, 'NULL'), ('slots', NULL, 'NULL'), ('key_mysql', NULL, '''`id`'''),
	('name', NULL, '''n'''), ('hash_tag', NULL, '''{}'''), ('profile', NULL, 'NULL'), ('notify', NULL, 'true'),
	('format', NULL, '''redis_cluster_nodes'''), ('datacenter', NULL, 'NULL'),
	('components', NULL, '''k''::text'), ('routing', NULL, '''r'''), ('id', NULL, '''i'''),
	('routing_partition_size', NULL, '2'), ('names', NULL, 'ARRAY[''127.0.0.1:30001'']'),
	('states', NULL, 'ARRAY[''active'']'), ('slot_lists', NULL, 'ARRAY[''{"[0,16384)"}'']'),
	('weights', NULL, 'ARRAY[1]::float8[]'), ('ordinals', NULL, 'ARRAY[1]::bigint[]'),
	('addresses', NULL, 'ARRAY[NULL]::text[]'), ('options', NULL, '''{}''::jsonb'),
	('key_hashes', NULL, 'ARRAY[''crc32'']'), ('hash_tag_allowed', NULL, 'false'), ('max_weight', NULL, '256'),
	('free', NULL, '''{}''::text[]'), ('lo', NULL, '1'), ('hi', NULL, '2'),
	('dflt', NULL, '''d'''), ('what', NULL, '''w'''),
	('pattern', NULL, '''\S+'''), ('word', NULL, '''"w"'''), ('haproxy', NULL, 'true'), ('cli', NULL, 'true'),
	('conn', NULL, '''hostile_conn'''), ('query', NULL, '''SELECT 1'''), ('command', NULL, '''SELECT 1'''),
	('server', NULL, '''hostile_server'''), ('remote_table', NULL, '''public.t'''),
	('is_source', NULL, 'true'), ('is_destination', NULL, 'true'), ('subscription', NULL, '''s'''),
	('lsn', NULL, '''0/0''::pg_lsn'), ('what', NULL, '''w'''),
	('max_write_block', NULL, '''2 s''::interval'), ('wait_timeout', NULL, '''15 min''::interval'),
	('trust_table_owners', NULL, 'false'), ('statement_timeout', NULL, '''1 s''::interval'),
	('deadline', NULL, 'clock_timestamp() + interval ''1 s'''), ('version', NULL, '150000'),
	('remote_schema', NULL, '''public'''), ('remote_name', NULL, '''t'''), ('columns', NULL, 'ARRAY[''k'']'),
	('token', NULL, '''0123456789'''), ('pairs_out', NULL, '1'), ('pairs_in', NULL, '1'),
	('fresh', NULL, 'true'), ('strict', NULL, 'true'), ('mv', NULL, 'NULL::chash.online_moves'),
	('shards', NULL, '''{}''::jsonb'), ('shard', NULL, '''{}''::jsonb'), ('pending', NULL, '''{}''::jsonb'),
	('keys', 'jsonb', '''[]''::jsonb'), ('a', NULL, '''{}''::jsonb'), ('b', NULL, '''{}''::jsonb'),
	('value', NULL, '''1'''), ('suffix', NULL, '''_x'''), ('alias', NULL, '''t'''),
	('key_expr', NULL, '''t.k'''), ('ranges', NULL, '''{[1,2)}''::int8multirange'), ('move_id', NULL, '1'),
	('as_source', NULL, 'true'), ('by_key', NULL, 'true'), ('buckets', NULL, 'ARRAY[1]'),
	('round', NULL, '1'), ('pair', NULL, '1'), ('only_pair', NULL, '1'), ('suspects', NULL, '''{}''::jsonb'), ('ext', NULL, '''public'''), ('past_fence', NULL, 'false'), ('with_fence', NULL, 'false'),
	('into_ring', NULL, '''hostile_slots_next'''), ('target_peak', NULL, '1.05'),
	('drain', NULL, '''{}''::text[]'), ('max_moved', NULL, '1000'), ('allow_tokens', NULL, 'false'),
	('peak_before', NULL, '1.5'), ('peak_after', NULL, '1.0'), ('moved', NULL, '1'), ('total', NULL, '2'),
	('bound', NULL, '1'), ('positions', NULL, 'ARRAY[1, 2]::bigint[]'), ('owners', NULL, 'ARRAY[1, 2]'),
	('position_load', NULL, 'ARRAY[1, 2]::float8[]'), ('nodes', NULL, '2'),
	('limits', NULL, 'ARRAY[1, 1, 1]::float8[]'), ('drained', NULL, 'ARRAY[false, false, false]'),
	('before', NULL, 'ARRAY[1, 2]'), ('after', NULL, 'ARRAY[2, 1]'),
	('key_position', NULL, '42::bigint'), ('cost', NULL, '''rows'''), ('sample', NULL, '0.5'),
	('action', NULL, '''An import'''), ('ring_config', NULL, '''{}''::text[]'), ('node_config', NULL, 'ARRAY[''INSERT'']'),
	('sqlstate', NULL, '''P0001'''), ('detail', NULL, '''d'''), ('hint', NULL, '''h'''),
	('input', NULL, '''e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-16383''');

-- Arguments whose NULL means "the default" or "unchanged", as documented
CREATE TEMP TABLE hostile_nullable (signature text, argname text);
INSERT INTO hostile_nullable VALUES
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'hash'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'vnodes'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'vnode_name'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'vnode_first'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'key_hash'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'ketama_variant'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'ties'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'table_size'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'lookup'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'hash_tag'),
	('chash_ring_set(text,text,integer,text,integer,text,text,text,integer,text,text,boolean)', 'notify'),
	('chash_moved_keys(text,text,regclass,name,anyelement)', 'as_type'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'algorithm'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'hash'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'vnodes'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'vnode_first'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'hash_tag'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'profile'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'vnode_name'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'key_hash'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'ketama_variant'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'ties'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'table_size'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'lookup'),
	('chash_ring_create(text,text,text,integer,text,integer,text,text,text,integer,text,text,text,boolean)', 'notify'),
	('chash_ring_import(text,text,text,text)', 'datacenter'),
	('chash_export(text,text,jsonb)', 'format'),
	('chash_export_plan(text,text,text,jsonb)', 'format'),
	('chash_load(text,regclass,name,text,double precision)', 'sample'),
	('chash_rebalance(text,text,regclass,name,double precision,text,text[],double precision,boolean,integer,boolean)', 'max_moved'),
	('chash.rebalance_tokens(text,text,regclass,name,double precision,text,text[],double precision)', 'max_moved'),
	('chash.rebalance_weights(text,text,regclass,name,double precision,text,text[],double precision,integer,boolean)', 'max_moved'),
	('chash.rebalance_token_copies(text,text,regclass,name,double precision,text,text[],double precision,integer,boolean)', 'max_moved'),
	('chash_shard_load(text,name,text,double precision,name)', 'sample'),
	('chash_shard_load(text,name,text,double precision,name)', 'relname'),
	('chash.import_nodetool_ring(text,text,text)', 'datacenter'),
	('chash.mysql_node_rows(text,text,text)', 'node'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'vnodes'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'zone'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'target'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'tokens'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'slots'),
	('chash_node_add(text,text,double precision,integer,text,text,bigint[],int4range[],double precision,text)', 'address'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'weight'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'vnodes'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'state'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'zone'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'target'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'tokens'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'slots'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'capacity'),
	('chash_node_set(text,text,double precision,integer,text,text,text,bigint[],int4range[],double precision,text)', 'address');

-- The call of a function with each argument's sample, or override for
-- argument number which (1-based), as a statement that counts its result
-- (temporary, as its argument's type is: 19 says so in a NOTICE)
SET client_min_messages = warning;
CREATE FUNCTION hostile_call(f hostile_functions, which integer, override text)
	RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	args text[] := '{}';
	v text;
BEGIN
	FOR i IN 1..f.nargs LOOP
		IF i = which THEN
			v := override;
		ELSE
			SELECT s.value INTO v FROM hostile_samples s
			WHERE s.argname = f.argnames[i]
			  AND (s.argtype IS NULL OR s.argtype = f.argtypes[i]::regtype)
			  AND (s.function IS NULL OR s.function = f.oid::regproc::text)
			ORDER BY s.function NULLS LAST, s.argtype NULLS LAST LIMIT 1;
			IF v IS NULL THEN
				RETURN NULL;
			END IF;
		END IF;
		args := args || v;
	END LOOP;
	RETURN CASE
		WHEN f.is_procedure THEN
			format('CALL %s(%s)', f.oid::regproc, array_to_string(args, ', '))
		WHEN f.needs_columns THEN
			format('SELECT count(*) FROM %s(%s) AS t(key integer, from_node text, to_node text)',
				   f.oid::regproc, array_to_string(args, ', '))
		WHEN f.set_returning THEN
			format('SELECT count(*) FROM %s(%s)', f.oid::regproc, array_to_string(args, ', '))
		ELSE
			format('SELECT count(*) FROM (SELECT %s(%s) AS r) x WHERE r IS NOT NULL',
				   f.oid::regproc, array_to_string(args, ', '))
	END;
END
$$;
RESET client_min_messages;

-- Run a statement and roll it back: 'no rows' or 'N rows', or the error's
-- SQLSTATE; the longest message seen goes to hostile_longest
CREATE TEMP TABLE hostile_longest (message_bytes integer);
INSERT INTO hostile_longest VALUES (0);
CREATE FUNCTION hostile_run(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	state text;
	msg text;
	detail text;
	hint text;
BEGIN
	IF stmt IS NULL THEN
		RETURN 'NO SAMPLE';
	END IF;
	BEGIN
		EXECUTE stmt INTO n;
		RAISE EXCEPTION USING ERRCODE = 'P0999', MESSAGE = CASE WHEN coalesce(n, 0) = 0 THEN 'no rows' ELSE n || ' rows' END;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
			detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
		IF state = 'P0999' THEN
			RETURN msg;
		END IF;
		UPDATE hostile_longest SET message_bytes =
			greatest(message_bytes, octet_length(msg) + coalesce(octet_length(detail), 0) +
								   coalesce(octet_length(hint), 0));
		RETURN state;
	END;
END
$$;

--
-- NULL in each argument: routing and hash functions are STRICT and give no
-- value; every other function of the SQL surface names the NULL argument
-- (22004), unless NULL is documented to mean a default or "unchanged"; a
-- helper in schema chash that PUBLIC may call refuses it or gives no value
--
CREATE TEMP TABLE hostile_nulls AS
SELECT f.signature, f.internal, f.public_can, f.strict, a.i, f.argnames[a.i] AS argname,
	   hostile_run(hostile_call(f, a.i,
								'NULL::' || CASE WHEN f.argtypes[a.i] = 'anyarray'::regtype
												 THEN 'integer[]'
												 WHEN f.argtypes[a.i] = 'anyelement'::regtype
												 THEN 'integer'
												 ELSE format_type(f.argtypes[a.i], NULL) END)) AS outcome
FROM hostile_functions f, generate_series(1, f.nargs) a(i)
WHERE NOT f.is_trigger;

CREATE TEMP VIEW hostile_null_verdicts AS
SELECT signature, argname, outcome, internal, i,
	   CASE
		   WHEN outcome = 'NO SAMPLE' THEN 'FAIL: no sample value for this argument'
		   WHEN outcome IN ('XX000', 'P0004') THEN 'FAIL: internal error'
		   WHEN internal AND NOT public_can THEN 'internal, not PUBLIC'
		   -- (it raises what it is given: with no detail or hint, the rest)
		   WHEN signature = 'chash.raise_without_context(text,text,text,text)' AND argname IN ('detail', 'hint') THEN
				CASE WHEN outcome = 'P0001' THEN 'ok: raises the error given' ELSE 'FAIL' END
		   WHEN (signature, argname) IN (SELECT * FROM hostile_nullable) THEN
				CASE WHEN outcome LIKE '%rows' THEN 'ok: NULL is a default' ELSE 'FAIL' END
		   WHEN strict THEN CASE WHEN outcome = 'no rows' THEN 'ok: strict' ELSE 'FAIL' END
		   -- a helper any role can call: refuses the NULL, or gives none
		   WHEN internal THEN CASE WHEN outcome = '22004' THEN 'ok: internal, refused'
								   WHEN outcome = 'no rows' THEN 'ok: internal, no value'
								   ELSE 'FAIL: internal, PUBLIC' END
		   ELSE CASE WHEN outcome = '22004' THEN 'ok' ELSE 'FAIL' END
	   END AS verdict
FROM hostile_nulls;
SELECT signature, argname, outcome, verdict FROM hostile_null_verdicts ORDER BY internal, signature, i;
SELECT count(DISTINCT signature) AS functions, count(*) AS arguments,
	   count(*) FILTER (WHERE verdict LIKE 'FAIL%') AS failures
FROM hostile_null_verdicts;

--
-- Names: empty and a megabyte long, in every argument that names a ring
-- or a node; the error is a clean one, its message short
--
CREATE TEMP TABLE hostile_names AS
SELECT f.signature, f.argnames[a.i] AS argname, v.what,
	   hostile_run(hostile_call(f, a.i, v.value)) AS outcome
FROM hostile_functions f, generate_series(1, f.nargs) a(i),
	 (VALUES ('empty', ''''''), ('1 MB', 'repeat(''x'', 1000000)')) v(what, value)
WHERE NOT f.is_trigger AND NOT f.internal
  AND f.argnames[a.i] IN ('ring', 'from_ring', 'to_ring', 'src', 'dst', 'node');
SELECT signature, argname, what, outcome FROM hostile_names
ORDER BY signature, argname, what;
SELECT count(*) AS calls, count(*) FILTER (WHERE outcome IN ('XX000', 'P0004') OR outcome LIKE '%rows'
											   AND signature NOT LIKE 'chash_lookup%'
											   AND signature NOT LIKE 'chash_position%')
		   AS unexpected,
	   (SELECT message_bytes < 1000 FROM hostile_longest) AS messages_short
FROM hostile_names;

--
-- Limits: each at its bound and one past it
--
CREATE TEMP TABLE hostile_limits (limit_name text, value text, stmt text);
INSERT INTO hostile_limits VALUES
	('ring name bytes', '63', $$SELECT chash_ring_create(repeat('r', 63))$$),
	('ring name bytes', '64', $$SELECT chash_ring_create(repeat('r', 64))$$),
	('node name bytes', '1024', $$SELECT chash_node_add('hostile', repeat('n', 1024))$$),
	('node name bytes', '1025', $$SELECT chash_node_add('hostile', repeat('n', 1025))$$),
	('template bytes', '256', $$SELECT chash_ring_create('hostile_t', vnode_name => repeat('-', 247) || '{node}{i}')$$),
	('template bytes', '257', $$SELECT chash_ring_create('hostile_t', vnode_name => repeat('-', 248) || '{node}{i}')$$),
	('ring vnodes', '1', $$SELECT chash_ring_create('hostile_t', vnodes => 1)$$),
	('ring vnodes', '0', $$SELECT chash_ring_create('hostile_t', vnodes => 0)$$),
	('ring vnodes', '16777216', $$SELECT chash_ring_create('hostile_t', vnodes => 16777216)$$),
	('ring vnodes', '16777217', $$SELECT chash_ring_create('hostile_t', vnodes => 16777217)$$),
	('node vnodes', '16777216', $$SELECT chash_node_add('hostile', 'v', vnodes => 16777216)$$),
	('node vnodes', '16777217', $$SELECT chash_node_add('hostile', 'v', vnodes => 16777217)$$),
	('node points by weight', '838860', $$SELECT chash_node_add('hostile', 'w', weight => 838860)$$),
	('node points by weight', '838861', $$SELECT chash_node_add('hostile', 'w', weight => 838861)$$),
	('weight', '5e-324', $$SELECT chash_node_add('hostile', 'w', weight => 5e-324)$$),
	('weight', '0', $$SELECT chash_node_add('hostile', 'w', weight => 0)$$),
	('capacity', '5e-324', $$SELECT chash_node_add('hostile', 'w', capacity => 5e-324)$$),
	('capacity', '0', $$SELECT chash_node_add('hostile', 'w', capacity => 0)$$),
	('capacity', '1.7976931348623157e308', $$SELECT chash_node_set('hostile', 'n1', capacity => 1.7976931348623157e308)$$),
	('address bytes', '1024', $$SELECT chash_node_add('hostile', 'w', address => repeat('a', 1024))$$),
	('address bytes', '1025', $$SELECT chash_node_add('hostile', 'w', address => repeat('a', 1025))$$),
	('ring points', '67108864', $$SELECT chash_node_add('hostile', 'v' || g, vnodes => 16777216) FROM generate_series(1, 3) g;
								   SELECT chash_node_add('hostile', 'v4', vnodes => 16777216 - 60)$$),
	('ring points', '67108865', $$SELECT chash_node_add('hostile', 'v' || g, vnodes => 16777216) FROM generate_series(1, 3) g;
								   SELECT chash_node_add('hostile', 'v4', vnodes => 16777216 - 59)$$),
	('ketama weight', '4294967295', $$SELECT chash_ring_create('hostile_t', algorithm => 'ketama');
									  SELECT chash_node_add('hostile_t', 'w', weight => 4294967295)$$),
	('ketama weight', '4294967296', $$SELECT chash_ring_create('hostile_t', algorithm => 'ketama');
									  SELECT chash_node_add('hostile_t', 'w', weight => 4294967296)$$),
	('lookup_n n', '3', $$SELECT chash_lookup_n('hostile', 'k', 3)$$),
	('lookup_n n', '4', $$SELECT chash_lookup_n('hostile', 'k', 4)$$),
	('replicas', '3', $$SELECT * FROM chash_ownership('hostile', 3)$$),
	('replicas', '4', $$SELECT * FROM chash_ownership('hostile', 4)$$),
	('picture width', '200', $$SELECT chash_ring_svg('hostile', 200)$$),
	('picture width', '199', $$SELECT chash_ring_svg('hostile', 199)$$),
	('picture width', '10000', $$SELECT chash_ownership_svg('hostile', 10000)$$),
	('picture width', '10001', $$SELECT chash_ownership_svg('hostile', 10001)$$);
-- (ring points: 20 points of the three nodes, 3 x 16777216 and the rest)
SELECT limit_name, value,
	   hostile_run(stmt || '; SELECT 1') AS outcome
FROM hostile_limits ORDER BY limit_name, value::numeric;

--
-- A role with no grants: every trigger function, every change, every lock
--
GRANT SELECT ON hostile_functions, hostile_samples TO regress_chash_nobody;
GRANT SELECT, UPDATE ON hostile_longest TO regress_chash_nobody;
SET ROLE regress_chash_nobody;
CREATE TEMP TABLE hostile_mine (ring text, node text);
SELECT f.signature,
	   hostile_run(format('CREATE TRIGGER hostile_t BEFORE INSERT ON hostile_mine FOR EACH STATEMENT EXECUTE FUNCTION %s(); SELECT 1',
						  f.oid::regproc)) AS create_trigger
FROM hostile_functions f WHERE f.is_trigger ORDER BY 1;
SELECT t AS "table", s.what,
	   hostile_run(format('WITH x AS (%s) SELECT count(*) FROM x', format(s.stmt, t))) AS outcome
FROM unnest(ARRAY['chash.ring_config', 'chash.node_config']) t,
	 (VALUES (1, 'INSERT', 'INSERT INTO %s (ring) VALUES (''x'') RETURNING 1'),
			 (2, 'UPDATE', 'UPDATE %s SET ring = ring RETURNING 1'),
			 (3, 'DELETE', 'DELETE FROM %s RETURNING 1'),
			 (4, 'FOR UPDATE', 'SELECT 1 FROM %s FOR UPDATE'),
			 (5, 'FOR NO KEY UPDATE', 'SELECT 1 FROM %s FOR NO KEY UPDATE'),
			 (6, 'FOR SHARE', 'SELECT 1 FROM %s FOR SHARE'),
			 (7, 'FOR KEY SHARE', 'SELECT 1 FROM %s FOR KEY SHARE'),
			 (8, 'SELECT', 'SELECT 1 FROM %s')) s(ord, what, stmt)
ORDER BY 1, s.ord;
SELECT t AS "table", m AS mode,
	   hostile_run(format('LOCK TABLE %s IN %s MODE; SELECT 1', t, m)) AS outcome
FROM unnest(ARRAY['chash.ring_config', 'chash.node_config']) t,
	 unnest(ARRAY['ACCESS SHARE', 'ROW SHARE', 'ROW EXCLUSIVE', 'SHARE UPDATE EXCLUSIVE',
				  'SHARE', 'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE']) m
ORDER BY 1, 2;
SELECT hostile_run('TRUNCATE chash.node_config; SELECT 1') AS truncate_nodes,
	   hostile_run('TRUNCATE chash.ring_config CASCADE; SELECT 1') AS truncate_rings,
	   hostile_run('CREATE TABLE chash.planted (x integer); SELECT 1') AS create_in_chash,
	   hostile_run('SELECT setval(''chash.node_ordinal_seq'', 1)') AS reset_ordinals;
-- every function of the SQL surface with its samples: routing works,
-- changes are refused
SELECT f.signature, hostile_run(hostile_call(f, 0, NULL)) AS outcome
FROM hostile_functions f
WHERE NOT f.is_trigger AND NOT f.internal
ORDER BY 1;
RESET ROLE;
DROP TABLE hostile_mine;

-- Nothing above changed anything, and the ring routes as before
SELECT ring, nodes, active_nodes, points, problem FROM chash.rings ORDER BY ring;
SELECT count(*) AS keys, count(DISTINCT chash_lookup('hostile', k)) AS nodes FROM hostile_keys;

DROP FUNCTION hostile_run(text);
DROP FUNCTION hostile_call(hostile_functions, integer, text);
DROP TABLE hostile_keys;
DROP OWNED BY regress_chash_nobody;
DROP ROLE regress_chash_nobody;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['hostile', 'hostile_next', 'hostile_redis', 'hostile_set', 'hostile_slots', 'hostile_nginx']) r;
