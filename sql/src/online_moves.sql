-- dblink, wherever it is installed, or an error
CREATE OR REPLACE FUNCTION chash.move_dblink() RETURNS text
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	nsp text;
BEGIN
	SELECT quote_ident(n.nspname) INTO nsp
	FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
	WHERE e.extname = 'dblink';
	IF nsp IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = 'extension "dblink" is not installed',
			DETAIL = 'An online move sends its commands to the shards through dblink.',
			HINT = 'Install it with CREATE EXTENSION dblink.';
	END IF;
	RETURN nsp;
END
$$;

/*
 * A node's shard: its postgres_fdw server, the table there, and the
 * libpq parameters of the server and of the user mapping PostgreSQL uses
 * for the caller (the caller's own, else PUBLIC's), which a subscription
 * on another shard uses to reach it.
 */
CREATE OR REPLACE FUNCTION chash.move_shard(ring text, node text, relation regclass,
								 OUT server name, OUT remote_schema name,
								 OUT remote_name name, OUT conninfo text)
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	relname name;
	target text;
	ft regclass;
	srv oid;
	opts text[];
BEGIN
	SELECT c.relname INTO relname FROM pg_class c WHERE c.oid = relation;
	target := chash.migration_target(ring, node, relname, 'postgresql');
	ft := to_regclass(target);
	SELECT s.srvname, s.oid, t.ftoptions INTO server, srv, opts
	FROM pg_foreign_table t
	JOIN pg_foreign_server s ON s.oid = t.ftserver
	JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw
	WHERE t.ftrelid = ft AND w.fdwname = 'postgres_fdw';
	IF server IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('target %s of node "%s" of ring "%s" is not a postgres_fdw foreign table',
							 target, chash.message_name(node), ring),
			DETAIL = 'An online move reaches each shard through the server of the foreign table its node''s target names.';
	END IF;
	-- the move names the shard's columns as the coordinator does
	IF EXISTS (SELECT FROM pg_attribute a, pg_options_to_table(a.attfdwoptions) o
			   WHERE a.attrelid = ft AND a.attnum > 0 AND o.option_name = 'column_name'
			     AND o.option_value <> a.attname) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'feature_not_supported',
			MESSAGE = format('foreign table %s of node "%s" renames columns', target, chash.message_name(node)),
			DETAIL = 'An online move names the columns of each shard''s table as the coordinator''s table does.',
			HINT = 'Drop the column_name options, or use chash_migration_sql for this change.';
	END IF;
	SELECT coalesce((SELECT o.option_value FROM pg_options_to_table(opts) o WHERE o.option_name = 'schema_name'), n.nspname),
		   coalesce((SELECT o.option_value FROM pg_options_to_table(opts) o WHERE o.option_name = 'table_name'), c.relname)
	INTO remote_schema, remote_name
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ft;
	-- libpq's own parameters only: postgres_fdw's (fetch_size, ...) are not
	SELECT coalesce(string_agg(format('%s=%s', o.k, '''' || replace(replace(o.v, '\', '\\'), '''', '\''') || ''''), ' '), '')
	INTO conninfo
	FROM (SELECT x.option_name, x.option_value
		  FROM pg_foreign_server s, pg_options_to_table(s.srvoptions) x WHERE s.oid = srv
		  UNION ALL
		  SELECT x.option_name, x.option_value
		  FROM (SELECT u.umoptions FROM pg_user_mappings u
				WHERE u.srvid = srv
				  AND u.umuser IN ((SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user), 0)
				ORDER BY u.umuser = 0 LIMIT 1) m,
			   pg_options_to_table(m.umoptions) x) AS o(k, v)
	WHERE o.k IN ('host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'passfile',
				  'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'sslcrl', 'sslpassword',
				  'gssencmode', 'krbsrvname', 'channel_binding', 'connect_timeout',
				  'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count',
				  'target_session_attrs', 'sslsni', 'require_auth');
END
$$;

/*
 * The first column of the last row of a command sent to a shard, as text.
 * Sent asynchronously and waited for here, so that a cancel of the move
 * (or its statement_timeout) reaches the shard too: dblink's own calls
 * cannot be interrupted before PostgreSQL 17.  Commands are written to
 * end with one row, or with a command's status.
 */
CREATE OR REPLACE FUNCTION chash.move_remote(conn text, command text) RETURNS text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	dbl text := chash.move_dblink();
	busy integer;
	pause float8;
	got text[];
	v text;
	sent integer;
BEGIN
	-- dblink_send_query does not fail on a lost connection: it says so in
	-- a NOTICE and returns 0, and the empty result that follows would read
	-- as NULL, which a caller waiting for a state takes for "not yet"
	EXECUTE format('SELECT %s.dblink_send_query($1, $2)', dbl) INTO sent USING conn, command;
	IF sent IS DISTINCT FROM 1 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'connection_failure',
			MESSAGE = format('lost the connection %s to a shard', conn),
			DETAIL = 'A command could not be sent: the shard''s server closed the connection, or restarted.',
			HINT = 'Run the same CALL again once the shard is up: it connects again and goes on.';
	END IF;
	LOOP
		BEGIN
			pause := 0.0001;
			LOOP
				EXECUTE format('SELECT %s.dblink_is_busy($1)', dbl) INTO busy USING conn;
				EXIT WHEN busy = 0;
				PERFORM pg_sleep(pause);
				pause := least(pause * 2, 0.01);
			END LOOP;
		EXCEPTION WHEN query_canceled THEN
			-- stop the shard's statement too, and leave the connection
			EXECUTE format('SELECT %s.dblink_cancel_query($1)', dbl) USING conn;
			EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING conn;
			RAISE;
		END;
		BEGIN
			EXECUTE format('SELECT array_agg(t.v) FROM %s.dblink_get_result($1) AS t(v text)', dbl)
			INTO got USING conn;
		EXCEPTION WHEN OTHERS THEN
			-- the shard's error, with its SQLSTATE: what is left of the
			-- command's results is read, so that the connection can go on
			FOR i IN 1..10 LOOP
				EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1, false) AS t(v text)', dbl)
				INTO busy USING conn;
				EXIT WHEN busy = 0;
			END LOOP;
			RAISE;
		END;
		EXIT WHEN got IS NULL;
		v := got[1];
	END LOOP;
	RETURN v;
END
$$;

/*
 * A connection to a node's shard, made anew (one left by a call that
 * failed may be broken), with the settings every command of the move
 * relies on whatever the shard's defaults: names resolved in pg_catalog
 * only, text forms of values that do not depend on the session,
 * row-level security that errs rather than hides rows, and bounds on
 * every statement and on a coordinator that is gone.  Returns the shard's
 * server_version_num.
 */
CREATE OR REPLACE FUNCTION chash.move_connect(conn text, server name, statement_timeout interval) RETURNS integer
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	dbl text := chash.move_dblink();
	open text[];
	version integer;
BEGIN
	EXECUTE format('SELECT %s.dblink_get_connections()', dbl) INTO open;
	IF conn = ANY (open) THEN
		EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING conn;
	END IF;
	EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING conn, server;
	version := chash.move_remote(conn, format(
		'SET search_path = pg_catalog, pg_temp; SET standard_conforming_strings = on; '
		'SET DateStyle = ISO, MDY; SET IntervalStyle = postgres; SET TimeZone = ''UTC''; '
		'SET extra_float_digits = 3; SET bytea_output = hex; SET row_security = off; '
		'SET default_transaction_isolation = ''read committed''; SET default_transaction_read_only = off; '
		'SET lock_timeout = ''1s''; SET statement_timeout = %L; SET idle_in_transaction_session_timeout = ''1min''; '
		'SET client_connection_check_interval = ''1s''; SET application_name = %L; '
		'SELECT pg_catalog.current_setting(''server_version_num'')',
		ceil(extract(epoch FROM statement_timeout) * 1000)::bigint || 'ms', conn))::integer;
	RETURN version;
END
$$;

-- Every connection this session opened for a move, closed
CREATE OR REPLACE FUNCTION chash.move_disconnect() RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	dbl text := chash.move_dblink();
	conn text;
BEGIN
	FOR conn IN EXECUTE format('SELECT c FROM unnest(%s.dblink_get_connections()) c WHERE c LIKE ''chash\_move\_%%''', dbl) LOOP
		EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING conn;
	END LOOP;
END
$$;

/*
 * A DDL command on a shard's table, which needs a lock that waits for the
 * writers there and that every later writer waits for: tried with a short
 * lock_timeout, and again after a pause while others hold the table, so
 * that a long transaction on the shard never makes the writers queue
 * behind the move for longer than one try.
 */
CREATE OR REPLACE FUNCTION chash.move_ddl(conn text, command text, node text, deadline timestamptz) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	pause float8 := 0.05;
	holders text;
BEGIN
	LOOP
		BEGIN
			PERFORM chash.move_remote(conn, 'SET LOCAL lock_timeout = ''50ms''; ' || command);
			RETURN;
		EXCEPTION WHEN lock_not_available THEN
			IF clock_timestamp() >= deadline THEN
				holders := chash.move_remote(conn,
					'SELECT coalesce(pg_catalog.string_agg(DISTINCT l.pid::pg_catalog.text, '', ''), ''none'')'
					' FROM pg_catalog.pg_locks l WHERE l.locktype = ''relation'' AND l.granted'
					' AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())'
					' AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid()');
				RAISE EXCEPTION USING
					ERRCODE = 'lock_not_available',
					MESSAGE = format('online move could not lock a table on node "%s"', chash.message_name(node)),
					DETAIL = format('Sessions %s there held it until the move''s wait_timeout.', holders),
					HINT = 'End the long transactions on that shard, then run the same CALL again.';
			END IF;
		END;
		PERFORM pg_sleep(pause * (0.5 + random()));
		pause := least(pause * 2, 1);
	END LOOP;
END
$$;

-- How a shard's triggers and queries hash a row's key: as chash_lookup
-- does (bytea as its bytes, every other type as its text)
CREATE OR REPLACE FUNCTION chash.move_key(alias text, key_column name, key_type regtype) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format('%s.%I', alias, key_column) ||
	   CASE WHEN key_type = 'bytea'::regtype THEN '' ELSE '::pg_catalog.text' END
$$;

-- A key's position on a shard, as chash_position gives it on the
-- coordinator: the key hash of the key, or of its hash tag's part (the
-- bytes between the first hash_tag[0] and the first hash_tag[1] after it,
-- if there are any: Redis Cluster's {...}).  The delimiters are printable
-- ASCII, so positions and lengths in characters select the same bytes.
CREATE OR REPLACE FUNCTION chash.move_hashed(shard jsonb, key_expr text) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format('%s.chash_hash(%L::pg_catalog.text, %s)', shard->>'ext', shard->>'key_hash',
			  CASE WHEN shard->>'hash_tag' IS NULL THEN key_expr
				   ELSE format($t$CASE WHEN pg_catalog.position(%1$s, %2$s) OPERATOR(pg_catalog.>) 0
							AND pg_catalog.position(pg_catalog.substr(%1$s, pg_catalog.position(%1$s, %2$s) OPERATOR(pg_catalog.+) 1), %3$s) OPERATOR(pg_catalog.>) 1
						   THEN pg_catalog.substr(pg_catalog.substr(%1$s, pg_catalog.position(%1$s, %2$s) OPERATOR(pg_catalog.+) 1), 1,
								pg_catalog.position(pg_catalog.substr(%1$s, pg_catalog.position(%1$s, %2$s) OPERATOR(pg_catalog.+) 1), %3$s) OPERATOR(pg_catalog.-) 1)
						   ELSE %1$s END$t$,
						key_expr,
						CASE WHEN (shard->>'bytea_keys')::boolean
							 THEN format('pg_catalog.decode(%L, ''hex'')', encode(convert_to(substr(shard->>'hash_tag', 1, 1), 'SQL_ASCII'), 'hex'))
							 ELSE format('%L::pg_catalog.text', substr(shard->>'hash_tag', 1, 1)) END,
						CASE WHEN (shard->>'bytea_keys')::boolean
							 THEN format('pg_catalog.decode(%L, ''hex'')', encode(convert_to(substr(shard->>'hash_tag', 2, 1), 'SQL_ASCII'), 'hex'))
							 ELSE format('%L::pg_catalog.text', substr(shard->>'hash_tag', 2, 1)) END) END)
$$;

-- The condition "this key moves" on a shard
CREATE OR REPLACE FUNCTION chash.move_moving(shard jsonb, key_expr text, ranges int8multirange) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format('%s OPERATOR(pg_catalog.<@) %L::pg_catalog.int8multirange', chash.move_hashed(shard, key_expr), ranges)
$$;

/*
 * The positions that move between each pair of nodes, or an error when a
 * shard cannot tell a moving key by its position: rings of points that hash
 * keys alike compare range by range; so do tables of slots of one size
 * whose key hash gives at most 16 bits (Redis Cluster's crc16), since a
 * slot is every position that is its number modulo the size: a few ranges
 * a slot.  Hash tags are hashed on the shards as on the coordinator
 * (move_hashed).
 */
CREATE OR REPLACE FUNCTION chash.move_ranges(from_ring text, to_ring text)
	RETURNS TABLE(from_node text, to_node text, ranges int8multirange)
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	a record;
	b record;
	bits integer;
	size integer;
BEGIN
	IF chash.plan_kind(from_ring, to_ring) = 'ranges' THEN
		RETURN QUERY
		SELECT r.from_node, r.to_node,
			   range_agg(CASE WHEN r.hi = 9223372036854775807 THEN int8range(r.lo, NULL, '[)')
							  ELSE int8range(r.lo, r.hi, '[]') END)
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r
		GROUP BY r.from_node, r.to_node;
		RETURN;
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO a
	FROM chash.ring_config c WHERE c.ring = from_ring;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO b
	FROM chash.ring_config c WHERE c.ring = to_ring;
	SELECT f.bits INTO bits FROM @extschema@.chash_hash_functions() f WHERE f.name = a.key_hash;
	IF a.algorithm IN ('slots', 'maglev') AND b.algorithm IN ('slots', 'maglev')
	   AND a.key_hash = b.key_hash AND bits <= 16 AND a.hash_tag IS NOT DISTINCT FROM b.hash_tag
	   AND chash.table_size(from_ring) = chash.table_size(to_ring) THEN
		size := chash.table_size(from_ring);
		IF EXISTS (SELECT FROM @extschema@.chash_moved_slots(from_ring, to_ring) m
				   WHERE m.from_node IS NULL OR m.to_node IS NULL) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'object_not_in_prerequisite_state',
				MESSAGE = format('rings "%s" and "%s" cannot be moved online', chash.message_name(from_ring), chash.message_name(to_ring)),
				DETAIL = 'Slots move between them to or from no node.',
				HINT = 'Give every slot that changes hands a node in both rings.';
		END IF;
		RETURN QUERY
		SELECT m.from_node, m.to_node,
			   range_agg(int8range(lower(m.slots) + j * size,
								   least(upper(m.slots) - 1 + j * size, (1::bigint << bits) - 1), '[]'))
		FROM @extschema@.chash_moved_slots(from_ring, to_ring) m,
			 generate_series(0::bigint, ((1::bigint << bits) - 1) / size) j
		WHERE lower(m.slots) + j * size < (1::bigint << bits)
		GROUP BY m.from_node, m.to_node;
		RETURN;
	END IF;
	RAISE EXCEPTION USING
		ERRCODE = 'feature_not_supported',
		MESSAGE = format('rings "%s" and "%s" cannot be moved online', chash.message_name(from_ring), chash.message_name(to_ring)),
		DETAIL = 'They compare key by key, so a shard cannot tell a moving key by its hash. Rings of points that hash keys alike compare range by range, and so do tables of slots of one size whose key hash gives at most 16 bits.',
		HINT = 'Use chash_migration_sql for this change.';
END
$$;

-- The positions a node gives (as_source) or gets in a move
CREATE OR REPLACE FUNCTION chash.move_node_ranges(move_id bigint, node text, as_source boolean) RETURNS int8multirange
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT range_agg(r)
FROM chash.online_move_pairs p, unnest(p.ranges) r
WHERE p.move_id = move_node_ranges.move_id
  AND CASE WHEN as_source THEN p.from_node ELSE p.to_node END = move_node_ranges.node
$$;

-- The name of one of a move's objects on the shards
CREATE OR REPLACE FUNCTION chash.move_object(token text, suffix text) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT 'chash_move_' || token || suffix $$;

/*
 * What a move needs of a node's shard, checked before anything is made
 * there; an error names the node and what is missing.  Returns what the
 * move's commands on that shard need: chash's schema there, the key
 * column's type there and the table's owner (all quoted here, not there),
 * and the server's version.
 */
CREATE OR REPLACE FUNCTION chash.move_check_shard(conn text, version integer, node text,
									   remote_schema name, remote_name name,
									   key_column name, columns text[], key_hash text,
									   token text, is_source boolean, is_destination boolean,
									   pairs_out integer, pairs_in integer,
									   fresh boolean, trust_table_owners boolean,
									   strict boolean DEFAULT true)
	RETURNS jsonb
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	tbl text := format('%I.%I', remote_schema, remote_name);
	f jsonb;
	probes text[] := ARRAY['', 'chash', '12345', 'user:4711', repeat('x', 300)];
	problem text;
	detail text;
	hint text;
BEGIN
	f := chash.move_remote(conn, format($q$
		SELECT pg_catalog.json_build_object(
			'chash', (SELECT n.nspname FROM pg_catalog.pg_extension e
					  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'chash'),
			'relkind', c.relkind,
			'identity', c.relreplident IN ('f', 'i')
						OR (c.relreplident = 'd' AND EXISTS (SELECT FROM pg_catalog.pg_index i
															 WHERE i.indrelid = c.oid AND i.indisprimary)),
			'owner', o.rolname,
			'owner_super', o.rolsuper,
			'as_owner', pg_catalog.pg_has_role(c.relowner, 'USAGE') AND pg_catalog.pg_has_role(c.relowner, %2$L),
			'super', me.rolsuper,
			'replication', me.rolsuper OR me.rolreplication,
			'create_schema', pg_catalog.has_schema_privilege(c.relnamespace, 'CREATE'),
			'create_db', pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE'),
			'subscribe', me.rolsuper OR %3$s,
			'wal_level', pg_catalog.current_setting('wal_level'),
			'slots_free', pg_catalog.current_setting('max_replication_slots')::integer
						  - (SELECT pg_catalog.count(*) FROM pg_catalog.pg_replication_slots),
			'senders_free', pg_catalog.current_setting('max_wal_senders')::integer
							- (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_replication),
			'workers_free', pg_catalog.current_setting('max_logical_replication_workers')::integer
							- (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_subscription WHERE pid IS NOT NULL),
			'key_type', (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a
						 WHERE a.attrelid = c.oid AND a.attname = %4$L AND a.attnum > 0 AND NOT a.attisdropped),
			'key_indexed', EXISTS (SELECT FROM pg_catalog.pg_index i
								   JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
								   JOIN pg_catalog.pg_am am ON am.oid = ic.relam
								   JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
								   WHERE i.indrelid = c.oid AND am.amname = 'btree' AND i.indpred IS NULL
									 AND i.indisvalid AND a.attname = %4$L),
			'missing', (SELECT pg_catalog.json_agg(x) FROM pg_catalog.unnest(%5$L::pg_catalog.text[]) x
						WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
										  WHERE a.attrelid = c.oid AND a.attname = x AND a.attnum > 0
											AND NOT a.attisdropped)),
			-- code the apply worker runs on this table, and whose owners
			-- may change it: triggers it fires, defaults, constraints
			-- (the columns' domains' too), indexes
			'untrusted', (SELECT pg_catalog.json_agg(DISTINCT p.oid::pg_catalog.regprocedure::pg_catalog.text)
						  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_roles r ON r.oid = p.proowner
						  WHERE NOT r.rolsuper AND p.oid IN (
							SELECT t.tgfoid FROM pg_catalog.pg_trigger t
							WHERE t.tgrelid = c.oid AND t.tgenabled IN ('A', 'R')
							UNION
							SELECT d.refobjid FROM pg_catalog.pg_depend d
							WHERE d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
							  AND ((d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
									AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid))
								   OR (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
									   AND d.objid IN (SELECT k.oid FROM pg_catalog.pg_constraint k
													   WHERE k.conrelid = c.oid
														  OR k.contypid IN (SELECT a.atttypid FROM pg_catalog.pg_attribute a
																			WHERE a.attrelid = c.oid)))
								   OR (d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
									   AND d.objid IN (SELECT i.indexrelid FROM pg_catalog.pg_index i
													   WHERE i.indrelid = c.oid))))),
			'others', (SELECT pg_catalog.json_agg(t.tgname) FROM pg_catalog.pg_trigger t
					   WHERE t.tgrelid = c.oid AND t.tgname LIKE 'chash\_move\_%%'
						 AND t.tgname NOT LIKE %6$L)
		)::pg_catalog.text
		FROM (SELECT pg_catalog.to_regclass(%1$L) AS oid) x
		LEFT JOIN pg_catalog.pg_class c ON c.oid = x.oid
		LEFT JOIN pg_catalog.pg_roles o ON o.oid = c.relowner,
			 pg_catalog.pg_roles me
		WHERE me.rolname = current_user
		$q$, tbl, CASE WHEN version >= 160000 THEN 'SET' ELSE 'MEMBER' END,
		CASE WHEN version >= 160000 THEN 'pg_catalog.pg_has_role(''pg_create_subscription'', ''USAGE'')' ELSE 'false' END,
		key_column, columns, replace(chash.move_object(token, '_'), '_', '\_') || '%'))::jsonb;

	IF f->>'relkind' IS NULL THEN
		problem := format('relation %s does not exist', tbl);
		hint := 'Create the node''s table on its shard first.';
	ELSIF f->>'relkind' <> 'r' THEN
		problem := format('relation %s is not a table', tbl);
		detail := 'An online move streams the rows of a plain table; partitioned tables, views and foreign tables are not moved.';
	ELSIF f->>'chash' IS NULL THEN
		problem := 'extension "chash" is not installed';
		hint := 'The move''s triggers on the shards hash keys with chash: install it there too.';
	ELSIF f->>'key_type' IS NULL OR jsonb_array_length(coalesce(nullif(f->'missing', 'null'), '[]')) > 0 THEN
		problem := format('relation %s has no column "%s"', tbl,
						  CASE WHEN f->>'key_type' IS NULL THEN key_column ELSE f->'missing'->>0 END);
		detail := 'The shard''s table must have every column of the coordinator''s table, by the same names.';
	ELSIF NOT (f->>'identity')::boolean THEN
		problem := format('relation %s has no primary key or replica identity', tbl);
		hint := 'Logical replication carries UPDATE and DELETE only for a table with a primary key or REPLICA IDENTITY.';
	ELSIF NOT (f->>'key_indexed')::boolean THEN
		problem := format('relation %s has no index on column "%s"', tbl, key_column);
		detail := 'At cutover the move compares the rows of the keys changed last on both sides, found by their key.';
		hint := format('Create one there: CREATE INDEX ON %s (%I).', tbl, key_column);
	ELSIF NOT (f->>'as_owner')::boolean THEN
		problem := format('the mapped role cannot act as the owner of relation %s', tbl);
		detail := 'The move adds triggers to the table, and deletes or copies its rows as its owner, so that the table''s own triggers never run as another role.';
		hint := 'Map a role that owns the table, is a member of its owner (with SET, from PostgreSQL 16 on), or is a superuser.';
	ELSIF NOT (f->>'create_schema')::boolean THEN
		problem := format('the mapped role may not create objects in schema %I', remote_schema);
		detail := 'The move keeps its triggers'' functions, a sequence and two small tables beside the table.';
	ELSIF jsonb_array_length(coalesce(nullif(f->'others', 'null'), '[]')) > 0 THEN
		problem := format('relation %s has triggers of another online move', tbl);
		detail := format('Trigger %s is not this move''s.', f->'others'->>0);
		hint := 'Remove that move with chash_move_abort on the coordinator that made it, or drop its objects.';
	ELSIF is_source AND f->>'wal_level' <> 'logical' THEN
		problem := format('wal_level is %s', f->>'wal_level');
		hint := 'A source of an online move needs wal_level = logical (a restart of that server).';
	ELSIF is_source AND NOT (f->>'replication')::boolean THEN
		problem := 'the mapped role may not replicate';
		hint := 'The user mapping''s role on a source needs the REPLICATION attribute.';
	ELSIF is_source AND NOT (f->>'create_db')::boolean THEN
		problem := 'the mapped role may not create publications';
		hint := 'The user mapping''s role on a source needs the CREATE privilege on its database.';
	ELSIF is_source AND fresh AND ((f->>'slots_free')::integer <= pairs_out
								   OR (f->>'senders_free')::integer <= pairs_out) THEN
		problem := format('too few replication slots or WAL senders are free (%s and %s, for %s destinations)',
						  f->>'slots_free', f->>'senders_free', pairs_out);
		detail := 'Each destination of a source takes a slot and a WAL sender for its stream, and the copies one more while they run.';
		hint := 'Raise max_replication_slots and max_wal_senders there.';
	ELSIF is_destination AND NOT (f->>'subscribe')::boolean THEN
		problem := 'the mapped role may not create subscriptions';
		hint := 'The user mapping''s role on a destination must be a superuser (or, from PostgreSQL 16 on, a member of pg_create_subscription with CREATE on the database).';
	ELSIF is_destination AND NOT (f->>'super')::boolean AND NOT (f->>'create_db')::boolean THEN
		problem := 'the mapped role may not create subscriptions';
		hint := 'A member of pg_create_subscription needs the CREATE privilege on the destination''s database too.';
	ELSIF is_destination AND fresh AND (f->>'workers_free')::integer <= pairs_in THEN
		problem := format('too few logical replication workers are free (%s, for %s sources)', f->>'workers_free', pairs_in);
		detail := 'Each source of a destination takes an apply worker, and the copies one more while they run.';
		hint := 'Raise max_logical_replication_workers (and max_worker_processes) there.';
	ELSIF is_destination AND version < 160000 AND NOT trust_table_owners
		  AND (NOT (f->>'owner_super')::boolean OR jsonb_array_length(coalesce(nullif(f->'untrusted', 'null'), '[]')) > 0) THEN
		-- before 16 the apply worker runs everything as the subscription's
		-- owner, a superuser: code that other roles may change would too
		IF NOT (f->>'owner_super')::boolean THEN
			problem := format('relation %s is owned by role "%s", who is not a superuser', tbl, f->>'owner');
			detail := 'Before PostgreSQL 16, the subscription that copies rows into it applies them as its owner, a superuser, and runs the table''s triggers, defaults and constraints so: the table''s owner could run code as a superuser.';
		ELSE
			problem := format('relation %s runs code of roles who are not superusers', tbl);
			detail := format('Before PostgreSQL 16, the subscription that copies rows into it runs the table''s replica triggers, defaults, constraints and indexes as a superuser, among them function %s, which its owner may change.',
							 f->'untrusted'->>0);
		END IF;
		hint := 'Make a superuser its owner, or upgrade the destination to PostgreSQL 16 or later (which applies rows as the table''s owner), or, if that role is trusted as a superuser, pass trust_table_owners => true.';
	END IF;
	IF problem IS NOT NULL AND NOT strict THEN
		RETURN jsonb_build_object('ext', quote_ident(f->>'chash'), 'key_type', f->>'key_type',
								  'owner', quote_ident(f->>'owner'), 'version', version,
								  'missing', f->>'relkind' IS NULL OR f->>'chash' IS NULL OR f->>'key_type' IS NULL);
	ELSIF problem IS NOT NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" cannot take part in an online move: %s', chash.message_name(node), problem),
			DETAIL = coalesce(detail, ''),
			HINT = coalesce(hint, '');
	END IF;

	-- the shard hashes keys as the coordinator does
	IF strict AND chash.move_remote(conn, format(
			'SELECT pg_catalog.array_agg(%s.chash_hash(%L::pg_catalog.text, p) ORDER BY o)::pg_catalog.text'
			' FROM pg_catalog.unnest(%L::pg_catalog.text[]) WITH ORDINALITY AS x(p, o)',
			quote_ident(f->>'chash'), key_hash, probes))
	   IS DISTINCT FROM (SELECT array_agg(@extschema@.chash_hash(key_hash, p) ORDER BY o)::text
						 FROM unnest(probes) WITH ORDINALITY AS x(p, o)) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" cannot take part in an online move: its chash hashes keys otherwise', chash.message_name(node)),
			DETAIL = format('Key hash %s gives other positions there than on the coordinator.', key_hash),
			HINT = 'Install the coordinator''s version of chash on that shard.';
	END IF;
	RETURN jsonb_build_object('ext', quote_ident(f->>'chash'), 'key_type', f->>'key_type',
							  'owner', quote_ident(f->>'owner'), 'version', version, 'missing', false);
END
$$;

/*
 * The shards of a move, reached and checked: for each node, its
 * connection, where its table is (quoted), and what move_check_shard
 * found.  Every node is checked before anything is made on any.
 */
CREATE OR REPLACE FUNCTION chash.move_reach(mv chash.online_moves, fresh boolean, wait_timeout interval,
								 trust_table_owners boolean, strict boolean DEFAULT true)
	RETURNS jsonb
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	shards jsonb := '{}';
	nd record;
	conn text;
	version integer;
	facts jsonb;
	key_hash text;
	hash_tag text;
	columns text[];
BEGIN
	SELECT coalesce(r.key_hash, r.hash), r.hash_tag INTO key_hash, hash_tag FROM chash.ring_config r WHERE r.ring = mv.from_ring;
	SELECT array_agg(a.attname::text ORDER BY a.attnum) INTO columns
	FROM pg_attribute a WHERE a.attrelid = mv.relation AND a.attnum > 0 AND NOT a.attisdropped;
	FOR nd IN SELECT n.*,
					 (SELECT count(*) FROM chash.online_move_pairs p WHERE p.move_id = n.move_id AND p.from_node = n.node) AS pairs_out,
					 (SELECT count(*) FROM chash.online_move_pairs p WHERE p.move_id = n.move_id AND p.to_node = n.node) AS pairs_in
			  FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id ORDER BY n.ordinal LOOP
		conn := format('chash_move_%s_%s', mv.move_id, nd.ordinal);
		version := chash.move_connect(conn, nd.server, wait_timeout);
		facts := chash.move_check_shard(conn, version, nd.node, nd.remote_schema, nd.remote_name,
										mv.key_column, columns, key_hash, mv.token,
										nd.pairs_out > 0, nd.pairs_in > 0, nd.pairs_out::integer, nd.pairs_in::integer,
										fresh AND mv.step = 'planned', trust_table_owners, strict);
		shards := shards || jsonb_build_object(nd.node, facts || jsonb_build_object(
			'conn', conn, 'ordinal', nd.ordinal,
			'schema', quote_ident(nd.remote_schema),
			'table', format('%I.%I', nd.remote_schema, nd.remote_name),
			'key', mv.key_column,
			'key_hash', key_hash,
			'hash_tag', hash_tag,
			'bytea_keys', chash.key_column_type(mv.relation, mv.key_column) = 'bytea'::regtype,
			'source', nd.pairs_out > 0, 'destination', nd.pairs_in > 0));
	END LOOP;
	RETURN shards;
END
$$;

-- A shard's name of one of a move's objects there, schema-qualified
CREATE OR REPLACE FUNCTION chash.move_obj(shard jsonb, token text, suffix text) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT (shard->>'schema') || '.' || quote_ident(chash.move_object(token, suffix)) $$;

/*
 * The state of a source's fence, in a sequence that its trigger reads
 * without a snapshot: 1, the keys of moving rows that change are recorded;
 * 2, writes to moving keys are refused; a transaction id (up to 10^15),
 * refused but for that transaction (the cleanup's); beyond, refused until
 * that time in microseconds since 1970 by the shard's clock, recorded
 * after.  Only the move's role may set it; anyone may read it.
 */
CREATE OR REPLACE FUNCTION chash.move_state_sql(shard jsonb, token text, value text) RETURNS text
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT format('SELECT pg_catalog.setval(%L::pg_catalog.regclass, %s)::pg_catalog.text',
			  chash.move_obj(shard, token, '_state'), value)
$$;

-- Sets every source's fence state; true if every source was reached
CREATE OR REPLACE FUNCTION chash.move_set_fences(mv chash.online_moves, shards jsonb, value text) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s jsonb;
BEGIN
	FOR s IN SELECT x.value FROM jsonb_each(shards) x WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		IF chash.move_remote(s->>'conn', format('SELECT pg_catalog.to_regclass(%L) IS NOT NULL',
												chash.move_obj(s, mv.token, '_state'))) = 't' THEN
			PERFORM chash.move_remote(s->>'conn', chash.move_state_sql(s, mv.token, value));
		END IF;
	END LOOP;
END
$$;

/*
 * The objects of a move on its shards, made if missing (each source's in
 * one transaction, so that nothing of it is half made), and checked to be
 * the move's own role's: on a source the fence state, the changed keys,
 * the marker that destinations wait for, the fence trigger (enabled
 * always, so that no writer but the cleanup passes it) and the
 * publication; on a destination the markers of its sources and the
 * trigger enabled for replication only that keeps the rows whose keys
 * move to it; on both a trigger that refuses TRUNCATE.
 */
CREATE OR REPLACE FUNCTION chash.move_make_objects(mv chash.online_moves, shards jsonb, deadline timestamptz) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	nd record;
	s jsonb;
	ranges int8multirange;
	moving_old text;
	moving_new text;
	body text;
	bad text;
	tok text := mv.token;
BEGIN
	FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x ORDER BY x.key LOOP
		s := nd.shard;
		IF (s->>'source')::boolean THEN
			ranges := chash.move_node_ranges(mv.move_id, nd.node, true);
			moving_old := chash.move_moving(s, chash.move_key('OLD', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), ranges);
			moving_new := chash.move_moving(s, chash.move_key('NEW', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), ranges);
			body := format($b$
DECLARE
	state bigint;
	old_moves boolean := false;
	new_moves boolean := false;
BEGIN
	IF TG_OP <> 'INSERT' THEN
		old_moves := %1$s;
	END IF;
	IF TG_OP <> 'DELETE' THEN
		new_moves := %2$s;
	END IF;
	IF old_moves OR new_moves THEN
		SELECT s.last_value INTO state FROM %3$s s;
		IF state = 2
		   OR (state > 2 AND state < 1000000000000000
			   AND pg_catalog.pg_current_xact_id_if_assigned() IS DISTINCT FROM state::pg_catalog.text::pg_catalog.xid8)
		   OR (state >= 1000000000000000
			   AND (extract(epoch FROM pg_catalog.clock_timestamp()) * 1000000)::bigint < state) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'serialization_failure',
				MESSAGE = 'chash: this key is moving to another node',
				DETAIL = 'An online move of this table is switching the ring.',
				HINT = 'Retry the transaction: it will be routed to the key''s new node.';
		END IF;
		IF state = 1 OR state >= 1000000000000000 THEN
			IF old_moves THEN
				INSERT INTO %4$s (k) VALUES (OLD.%5$I);
			END IF;
			IF new_moves AND NOT (old_moves AND OLD.%5$I IS NOT DISTINCT FROM NEW.%5$I) THEN
				INSERT INTO %4$s (k) VALUES (NEW.%5$I);
			END IF;
		END IF;
	END IF;
	RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$b$, moving_old, moving_new, chash.move_obj(s, tok, '_state'), chash.move_obj(s, tok, '_changes'), mv.key_column);
			PERFORM chash.move_remote(s->>'conn', format($q$
				CREATE SEQUENCE IF NOT EXISTS %1$s MINVALUE 1 START 1;
				GRANT SELECT ON SEQUENCE %1$s TO PUBLIC;
				CREATE TABLE IF NOT EXISTS %2$s (k %3$s, round integer);
				CREATE INDEX IF NOT EXISTS %4$I ON %2$s (k);
				CREATE INDEX IF NOT EXISTS %5$I ON %2$s (round);
				GRANT INSERT ON %2$s TO PUBLIC;
				CREATE TABLE IF NOT EXISTS %6$s (n bigint PRIMARY KEY);
				CREATE OR REPLACE FUNCTION %7$s() RETURNS trigger LANGUAGE plpgsql
					SET search_path = pg_catalog, pg_temp AS %8$L;
				SELECT 1
				$q$, chash.move_obj(s, tok, '_state'), chash.move_obj(s, tok, '_changes'), s->>'key_type',
				chash.move_object(tok, '_changes_k'), chash.move_object(tok, '_changes_round'),
				chash.move_obj(s, tok, '_mark_' || (s->>'ordinal')), chash.move_obj(s, tok, '_fence'), body));
		END IF;
		IF (s->>'destination')::boolean THEN
			ranges := chash.move_node_ranges(mv.move_id, nd.node, false);
			moving_old := chash.move_moving(s, chash.move_key('OLD', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), ranges);
			moving_new := chash.move_moving(s, chash.move_key('NEW', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), ranges);
			-- an UPDATE that takes a row's key out of the moving ranges is
			-- not applied: the old row stays, and the cutover, which
			-- compares every changed key, puts it right
			body := format($b$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF %1$s THEN
			RETURN NEW;
		END IF;
	ELSIF TG_OP = 'UPDATE' THEN
		IF %2$s AND %1$s THEN
			RETURN NEW;
		END IF;
	ELSIF %2$s THEN
		RETURN OLD;
	END IF;
	RETURN NULL;
END
$b$, moving_new, moving_old);
			PERFORM chash.move_remote(s->>'conn', format(
				'%s CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql'
				' SET search_path = pg_catalog, pg_temp AS %L; SELECT 1',
				(SELECT string_agg(format('CREATE TABLE IF NOT EXISTS %s (n bigint PRIMARY KEY);',
										  chash.move_obj(s, tok, '_mark_' || src.ordinal)), ' ')
				 FROM chash.online_move_pairs p
				 JOIN chash.online_move_nodes src ON src.move_id = p.move_id AND src.node = p.from_node
				 WHERE p.move_id = mv.move_id AND p.to_node = nd.node),
				chash.move_obj(s, tok, '_keep'), body));
		END IF;
		-- on every shard: TRUNCATE, which neither the streams nor the
		-- fence see, is refused while the move runs
		PERFORM chash.move_remote(s->>'conn', format(
			'CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql'
			' SET search_path = pg_catalog, pg_temp AS %L; SELECT 1',
			chash.move_obj(s, tok, '_truncate'), $b$
BEGIN
	RAISE EXCEPTION USING
		ERRCODE = 'object_in_use',
		MESSAGE = 'chash: an online move of this table is running',
		DETAIL = 'TRUNCATE would empty the table behind the move''s back.',
		HINT = 'Wait for the move to end, or remove it with chash_move_abort on the coordinator.';
END
$b$));
		-- nobody else's: made here, or left by this move's earlier calls
		bad := chash.move_remote(s->>'conn', format($q$
			SELECT coalesce(pg_catalog.string_agg(o.name, ', '), '')
			FROM (SELECT c.relname::pg_catalog.text AS name, c.relowner AS owner FROM pg_catalog.pg_class c
				  WHERE c.relnamespace = %1$L::pg_catalog.regnamespace AND c.relname LIKE %2$L
				  UNION ALL
				  SELECT p.proname, p.proowner FROM pg_catalog.pg_proc p
				  WHERE p.pronamespace = %1$L::pg_catalog.regnamespace AND p.proname LIKE %2$L
				  UNION ALL
				  SELECT u.pubname, u.pubowner FROM pg_catalog.pg_publication u
				  WHERE u.pubname LIKE %2$L OR u.pubname = %3$L) o
			WHERE o.owner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user)
			$q$, s->>'schema', replace(chash.move_object(tok, '_'), '_', '\_') || '%', chash.move_object(tok, '')));
		IF bad <> '' THEN
			RAISE EXCEPTION USING
				ERRCODE = 'insufficient_privilege',
				MESSAGE = format('objects of online move %s on node "%s" belong to another role', mv.move_id, chash.message_name(nd.node)),
				DETAIL = format('%s there is not the mapped role''s.', bad),
				HINT = 'Someone made objects of the move''s names: drop them, then run the same CALL again.';
		END IF;
	END LOOP;

	-- the triggers and publications, each behind the locks of the table
	FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x ORDER BY x.key LOOP
		s := nd.shard;
		IF (s->>'source')::boolean AND chash.move_remote(s->>'conn', format(
				'SELECT EXISTS (SELECT FROM pg_catalog.pg_trigger t WHERE t.tgrelid = %L::pg_catalog.regclass'
				' AND t.tgname = %L AND t.tgenabled = ''A'')', s->>'table', chash.move_object(tok, '_fence'))) = 'f' THEN
			PERFORM chash.move_ddl(s->>'conn', format(
				'CREATE OR REPLACE TRIGGER %1$I BEFORE INSERT OR UPDATE OR DELETE ON %2$s'
				' FOR EACH ROW EXECUTE FUNCTION %3$s(); ALTER TABLE %2$s ENABLE ALWAYS TRIGGER %1$I; '
				'CREATE OR REPLACE TRIGGER %4$I BEFORE TRUNCATE ON %2$s FOR EACH STATEMENT EXECUTE FUNCTION %5$s(); '
				'ALTER TABLE %2$s ENABLE ALWAYS TRIGGER %4$I',
				chash.move_object(tok, '_fence'), s->>'table', chash.move_obj(s, tok, '_fence'),
				chash.move_object(tok, '_truncate'), chash.move_obj(s, tok, '_truncate')), nd.node, deadline);
		END IF;
		IF (s->>'source')::boolean AND chash.move_remote(s->>'conn', format(
				'SELECT EXISTS (SELECT FROM pg_catalog.pg_publication WHERE pubname = %L)', chash.move_object(tok, ''))) = 'f' THEN
			PERFORM chash.move_ddl(s->>'conn', format(
				'CREATE PUBLICATION %I FOR TABLE %s WITH (publish = ''insert, update, delete''); '
				'CREATE PUBLICATION %I FOR TABLE %s WITH (publish = ''insert'')',
				chash.move_object(tok, ''), s->>'table',
				chash.move_object(tok, '_mark'), chash.move_obj(s, tok, '_mark_' || (s->>'ordinal'))), nd.node, deadline);
		END IF;
		IF (s->>'destination')::boolean AND chash.move_remote(s->>'conn', format(
				'SELECT EXISTS (SELECT FROM pg_catalog.pg_trigger t WHERE t.tgrelid = %L::pg_catalog.regclass'
				' AND t.tgname = %L AND t.tgenabled = ''R'')', s->>'table', chash.move_object(tok, '_keep'))) = 'f' THEN
			PERFORM chash.move_ddl(s->>'conn', format(
				'CREATE OR REPLACE TRIGGER %1$I BEFORE INSERT OR UPDATE OR DELETE ON %2$s'
				' FOR EACH ROW EXECUTE FUNCTION %3$s(); ALTER TABLE %2$s ENABLE REPLICA TRIGGER %1$I; '
				'CREATE OR REPLACE TRIGGER %4$I BEFORE TRUNCATE ON %2$s FOR EACH STATEMENT EXECUTE FUNCTION %5$s(); '
				'ALTER TABLE %2$s ENABLE ALWAYS TRIGGER %4$I',
				chash.move_object(tok, '_keep'), s->>'table', chash.move_obj(s, tok, '_keep'),
				chash.move_object(tok, '_truncate'), chash.move_obj(s, tok, '_truncate')), nd.node, deadline);
		END IF;
	END LOOP;
END
$$;

/*
 * One subscription per pair of nodes, of the table and of the source's
 * marker, on a slot made beforehand on the source: then the subscriptions
 * of a destination can be made in one transaction, and PostgreSQL starts
 * them together rather than one each wal_retrieve_retry_interval.  From
 * PostgreSQL 16 on they apply rows as the table's owner (run_as_owner =
 * false); from 15 on an error disables them, which the waits report.
 * Unless the move is fresh, a pair's subscription may have been made and
 * dropped (a stalled copy, an operator): it is made again only once the
 * rows it copied are deleted.
 */
CREATE OR REPLACE FUNCTION chash.move_subscribe(mv chash.online_moves, shards jsonb, fresh boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d record;
	p record;
	s jsonb;
	make text;
	enable text;
	sub text;
	deleted bigint;
BEGIN
	FOR d IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'destination')::boolean ORDER BY x.key LOOP
		make := '';
		enable := '';
		FOR p IN SELECT q.pair, q.from_node, q.ranges, n.conninfo, n.ordinal FROM chash.online_move_pairs q
				 JOIN chash.online_move_nodes n ON n.move_id = q.move_id AND n.node = q.from_node
				 WHERE q.move_id = mv.move_id AND q.to_node = d.node ORDER BY q.pair LOOP
			sub := chash.move_object(mv.token, '_' || p.pair);
			s := shards->p.from_node;
			CASE chash.move_remote(d.shard->>'conn', format(
					'SELECT coalesce((SELECT s.subenabled::pg_catalog.text FROM pg_catalog.pg_subscription s WHERE s.subname = %L), ''none'')', sub))
			WHEN 'none' THEN
				-- a pair's subscription made before and dropped since: what
				-- it had copied goes first, or its new copy would collide
				IF NOT fresh THEN
					deleted := chash.move_delete_rows(mv, d.shard, p.ranges, false);
					PERFORM chash.move_remote(d.shard->>'conn', format('DELETE FROM %s; SELECT 1',
						chash.move_obj(d.shard, mv.token, '_mark_' || p.ordinal)));
					IF deleted > 0 THEN
						RAISE NOTICE 'chash move %: % rows an earlier copy from node "%" had left on node "%" deleted',
							mv.move_id, deleted, chash.message_name(p.from_node), chash.message_name(d.node);
					END IF;
				END IF;
				PERFORM chash.move_remote(s->>'conn', format(
					'SELECT count(pg_catalog.pg_create_logical_replication_slot(%1$L, ''pgoutput''))'
					' WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_replication_slots WHERE slot_name = %1$L)', sub));
				make := make || format(
					'CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I, %I WITH (create_slot = false, slot_name = %L, copy_data = true%s); ',
					sub, p.conninfo, chash.move_object(mv.token, ''), chash.move_object(mv.token, '_mark'), sub,
					CASE WHEN (d.shard->>'version')::integer >= 160000 THEN ', run_as_owner = false, disable_on_error = true'
						 WHEN (d.shard->>'version')::integer >= 150000 THEN ', disable_on_error = true' ELSE '' END);
			WHEN 'false' THEN
				enable := enable || format('ALTER SUBSCRIPTION %I ENABLE; ', sub);
			ELSE
			END CASE;
		END LOOP;
		IF make <> '' THEN
			PERFORM chash.move_remote(d.shard->>'conn', make || 'SELECT 1');
		END IF;
		IF enable <> '' THEN
			PERFORM chash.move_remote(d.shard->>'conn', enable || 'SELECT 1');
		END IF;
		-- a subscription an older call made without the markers: adding
		-- them restarts its apply worker, which PostgreSQL does only
		-- wal_retrieve_retry_interval later, so new ones have them at once
		FOR p IN SELECT q.pair FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id AND q.to_node = d.node LOOP
			sub := chash.move_object(mv.token, '_' || p.pair);
			IF chash.move_remote(d.shard->>'conn', format(
					'SELECT NOT (%L = ANY (s.subpublications)) FROM pg_catalog.pg_subscription s WHERE s.subname = %L',
					chash.move_object(mv.token, '_mark'), sub)) = 't' THEN
				PERFORM chash.move_remote(d.shard->>'conn', format('ALTER SUBSCRIPTION %I ADD PUBLICATION %I WITH (copy_data = false)',
																   sub, chash.move_object(mv.token, '_mark')));
			END IF;
		END LOOP;
	END LOOP;
END
$$;

-- Raises an error if a subscription of the move stopped on an error
CREATE OR REPLACE FUNCTION chash.move_check_streams(mv chash.online_moves, shards jsonb) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d record;
	stopped text;
BEGIN
	FOR d IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'destination')::boolean ORDER BY x.key LOOP
		stopped := chash.move_remote(d.shard->>'conn', format(
			'SELECT coalesce(pg_catalog.string_agg(s.subname, '', ''), '''') FROM pg_catalog.pg_subscription s'
			' WHERE s.subname LIKE %L AND NOT s.subenabled', replace(chash.move_object(mv.token, '_'), '_', '\_') || '%'));
		IF stopped <> '' THEN
			RAISE EXCEPTION USING
				ERRCODE = 'object_not_in_prerequisite_state',
				MESSAGE = format('a subscription of online move %s on node "%s" stopped on an error', mv.move_id, chash.message_name(d.node)),
				DETAIL = format('PostgreSQL disabled subscription %s after an error in applying rows: that server''s log says which.', stopped),
				HINT = 'Put the cause right, then run the same CALL again, which enables it; or remove the move with chash_move_abort.';
		END IF;
	END LOOP;
END
$$;

/*
 * Starts again the copies that cannot end.  PostgreSQL's table copy drops
 * its slot on the source before it commits, on the destination, that the
 * copy is done: a destination that stops in between keeps the table in
 * state f (copied, catching up) with no slot to catch up from, and its
 * sync worker fails on the missing slot every wal_retrieve_retry_interval
 * for ever.  A pair seen so for 5 s (a sync worker commits at once after
 * the drop) loses its subscription and slots, and move_subscribe deletes
 * the rows it copied and makes it again.  suspects maps each subscription
 * seen so to when it was first seen; the new map is returned.
 */
CREATE OR REPLACE FUNCTION chash.move_recopy_stalled(mv chash.online_moves, shards jsonb, deadline timestamptz,
										  suspects jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d record;
	p record;
	copied jsonb;
	seen jsonb := '{}';
	redo boolean := false;
BEGIN
	FOR d IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'destination')::boolean ORDER BY x.key LOOP
		copied := chash.move_remote(d.shard->>'conn', format(
			'SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_object(''sub'', s.subname, ''slot'','
			' pg_catalog.format(''pg_%%s_sync_%%s_%%s'', s.oid, r.srrelid,'
			' (SELECT c.system_identifier FROM pg_catalog.pg_control_system() c)))), ''[]'')::pg_catalog.text'
			' FROM pg_catalog.pg_subscription s JOIN pg_catalog.pg_subscription_rel r ON r.srsubid = s.oid'
			' WHERE s.subname LIKE %L AND r.srsubstate = ''f''',
			replace(chash.move_object(mv.token, '_'), '_', '\_') || '%'))::jsonb;
		FOR p IN SELECT q.pair, q.from_node, c.sub, c.slots
				 FROM chash.online_move_pairs q
				 JOIN (SELECT e->>'sub' AS sub, array_agg(e->>'slot' ORDER BY e->>'slot') AS slots
					   FROM jsonb_array_elements(copied) e GROUP BY 1) c
				   ON c.sub = chash.move_object(mv.token, '_' || q.pair)
				 WHERE q.move_id = mv.move_id AND q.to_node = d.node ORDER BY q.pair LOOP
			CONTINUE WHEN chash.move_remote(shards->p.from_node->>'conn', format(
				'SELECT pg_catalog.count(*) FROM pg_catalog.unnest(%L::pg_catalog.text[]) n'
				' WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_replication_slots s WHERE s.slot_name = n)', p.slots)) = '0';
			seen := seen || jsonb_build_object(p.sub, coalesce(suspects->>p.sub, clock_timestamp()::text));
			CONTINUE WHEN clock_timestamp() - (seen->>p.sub)::timestamptz < interval '5 s';
			RAISE NOTICE 'chash move %: the copy from node "%" to node "%" has lost its slot (%) and starts again',
				mv.move_id, chash.message_name(p.from_node), chash.message_name(d.node), array_to_string(p.slots, ', ');
			PERFORM chash.move_drop_streams(mv, shards, deadline, p.pair);
			seen := seen - p.sub;
			redo := true;
		END LOOP;
	END LOOP;
	IF redo THEN
		PERFORM chash.move_subscribe(mv, shards, false);
	END IF;
	RETURN seen;
END
$$;

-- Waits until every subscription of the move has copied its tables
CREATE OR REPLACE FUNCTION chash.move_wait_copies(mv chash.online_moves, shards jsonb, deadline timestamptz) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	started timestamptz := clock_timestamp();
	told timestamptz := clock_timestamp();
	looked timestamptz := clock_timestamp();
	suspects jsonb := '{}';
	d record;
	copying text;
	restarts integer := 0;
	e_message text;
BEGIN
	LOOP
		IF clock_timestamp() - looked >= interval '1 s' THEN
			suspects := chash.move_recopy_stalled(mv, shards, deadline, suspects);
			looked := clock_timestamp();
		END IF;
		copying := '';
		FOR d IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
				 WHERE (x.value->>'destination')::boolean ORDER BY x.key LOOP
			copying := copying || chash.move_remote(d.shard->>'conn', format(
				'SELECT coalesce(pg_catalog.string_agg(s.subname || '' '', ''''), '''') FROM pg_catalog.pg_subscription s'
				' WHERE s.subname LIKE %L AND (SELECT pg_catalog.count(*) FILTER (WHERE r.srsubstate = ''r'')'
				' FROM pg_catalog.pg_subscription_rel r WHERE r.srsubid = s.oid) < 2',
				replace(chash.move_object(mv.token, '_'), '_', '\_') || '%'));
		END LOOP;
		EXIT WHEN copying = '';
		-- A subscription disabled on an error is enabled again, a second
		-- later, up to five times a CALL: the errors of a source that
		-- restarts pass (its old walsender may still hold the table
		-- copy's slot, which the new copy drops first); one that stays
		-- is raised.
		BEGIN
			PERFORM chash.move_check_streams(mv, shards);
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			GET STACKED DIAGNOSTICS e_message = MESSAGE_TEXT;
			IF restarts >= 5 OR e_message NOT LIKE '% stopped on an error' THEN
				RAISE;
			END IF;
			restarts := restarts + 1;
			RAISE NOTICE 'chash move %: %; enabling it again (%/5)', mv.move_id, e_message, restarts;
			PERFORM pg_sleep(1);
			PERFORM chash.move_subscribe(mv, shards, false);
		END;
		IF clock_timestamp() >= deadline THEN
			RAISE EXCEPTION USING
				ERRCODE = 'query_canceled',
				MESSAGE = format('online move %s timed out copying the moving rows', mv.move_id),
				DETAIL = format('Subscriptions %s had not copied their tables after wait_timeout.', trim(copying)),
				HINT = 'Look at the destinations'' server logs; run the same CALL again to go on waiting, or remove the move with chash_move_abort.';
		END IF;
		IF clock_timestamp() - told > interval '5 s' THEN
			RAISE NOTICE 'chash move %: copying (%)', mv.move_id, trim(copying);
			told := clock_timestamp();
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RAISE NOTICE 'chash move %: initial copies done in % s', mv.move_id,
		round(extract(epoch FROM clock_timestamp() - started)::numeric, 3);
END
$$;

/*
 * Waits until each destination has applied everything its sources had
 * committed when this was called: each source's marker is raised, and
 * its destinations have applied every earlier commit once they show the
 * new value (subscriptions apply in commit order).  False at the deadline.
 */
CREATE OR REPLACE FUNCTION chash.move_barrier(mv chash.online_moves, shards jsonb, deadline timestamptz) RETURNS boolean
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	marks jsonb := '{}';
	s jsonb;
	p record;
	pause float8;
BEGIN
	FOR s IN SELECT x.value FROM jsonb_each(shards) x WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		marks := marks || jsonb_build_object(s->>'ordinal', chash.move_remote(s->>'conn', format(
			'SET LOCAL synchronous_commit = local; '
			'INSERT INTO %1$s SELECT coalesce(pg_catalog.max(m.n), 0) + 1 FROM %1$s m RETURNING n::pg_catalog.text',
			chash.move_obj(s, mv.token, '_mark_' || (s->>'ordinal')))));
	END LOOP;
	FOR p IN SELECT q.from_node, q.to_node FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id ORDER BY q.pair LOOP
		s := shards->p.to_node;
		pause := 0.0005;
		WHILE chash.move_remote(s->>'conn', format('SELECT coalesce((SELECT pg_catalog.max(m.n) FROM %s m), 0) >= %s',
				chash.move_obj(s, mv.token, '_mark_' || (shards->p.from_node->>'ordinal')),
				marks->>(shards->p.from_node->>'ordinal'))) = 'f' LOOP
			IF clock_timestamp() >= deadline THEN
				RETURN false;
			END IF;
			PERFORM pg_sleep(pause);
			pause := least(pause * 2, 0.02);
		END LOOP;
	END LOOP;
	RETURN true;
END
$$;

/*
 * A side's rows of a pair's moving keys, summed: by bucket (a part of the
 * position) or, for the keys or buckets given, by key, as an object of
 * "rows checksum".
 */
CREATE OR REPLACE FUNCTION chash.move_sums(mv chash.online_moves, shard jsonb, ranges int8multirange,
								by_key boolean, keys jsonb, buckets integer[]) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cols text;
BEGIN
	SELECT string_agg(format('t.%I', a.attname), ', ' ORDER BY a.attnum) INTO cols
	FROM pg_attribute a WHERE a.attrelid = mv.relation AND a.attnum > 0 AND NOT a.attisdropped;
	RETURN chash.move_remote(shard->>'conn', format($q$
		SELECT coalesce(pg_catalog.json_object_agg(y.g, y.c || ' ' || y.s), '{}')::pg_catalog.text
		FROM (SELECT %1$s AS g, pg_catalog.count(*) AS c, pg_catalog.sum(x.rh) AS s
			  FROM (SELECT %2$s AS h, t.%3$I::pg_catalog.text AS kt,
						   pg_catalog.hashtextextended(ROW(%4$s)::pg_catalog.text, 0) AS rh
					FROM %5$s t %6$s) x
			  WHERE x.h OPERATOR(pg_catalog.<@) %7$L::pg_catalog.int8multirange %8$s
			  GROUP BY 1) y
		$q$, CASE WHEN by_key THEN 'x.kt' ELSE 'x.h OPERATOR(pg_catalog.&) 16383' END,
		chash.move_hashed(shard, chash.move_key('t', mv.key_column, (SELECT chash.key_column_type(mv.relation, mv.key_column)))),
		mv.key_column, cols, shard->>'table',
		CASE WHEN keys IS NOT NULL THEN
			format('WHERE t.%I = ANY (%L::pg_catalog.text[]::%s[])', mv.key_column,
				   (SELECT coalesce(array_agg(k), '{}') FROM jsonb_array_elements_text(keys) k), shard->>'key_type')
		ELSE '' END,
		ranges,
		CASE WHEN buckets IS NOT NULL THEN
			format('AND (x.h OPERATOR(pg_catalog.&) 16383) = ANY (%L::pg_catalog.int4[])', buckets)
		ELSE '' END))::jsonb;
END
$$;

-- The names whose values differ between two objects of move_sums
CREATE OR REPLACE FUNCTION chash.move_differ(a jsonb, b jsonb) RETURNS jsonb
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT coalesce(jsonb_agg(coalesce(x.key, y.key)), '[]')
FROM jsonb_each_text(a) x FULL JOIN jsonb_each_text(b) y ON y.key = x.key
WHERE x.value IS DISTINCT FROM y.value
$$;

/*
 * Claims the keys each source recorded since the last claim, and adds
 * them to the pending keys of the pairs whose ranges they are in: an
 * object of pair number to array of keys.
 */
CREATE OR REPLACE FUNCTION chash.move_claim(mv chash.online_moves, shards jsonb, pending jsonb, round integer,
								 OUT pending_after jsonb, OUT claimed integer)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s record;
	keys jsonb;
	bytea_keys boolean := chash.key_column_type(mv.relation, mv.key_column) = 'bytea'::regtype;
BEGIN
	pending_after := pending;
	claimed := 0;
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		keys := chash.move_remote(s.shard->>'conn', format(
			'WITH c AS (UPDATE %s SET round = %s WHERE round IS NULL RETURNING k)'
			' SELECT coalesce(pg_catalog.json_agg(DISTINCT c.k::pg_catalog.text), ''[]'')::pg_catalog.text FROM c',
			chash.move_obj(s.shard, mv.token, '_changes'), round))::jsonb;
		claimed := claimed + jsonb_array_length(keys);
		SELECT coalesce(pending_after, '{}') || coalesce(jsonb_object_agg(x.pair, x.keys), '{}') INTO pending_after
		FROM (SELECT p.pair::text AS pair,
					 (SELECT jsonb_agg(DISTINCT e) FROM (
						SELECT jsonb_array_elements_text(coalesce(pending->(p.pair::text), '[]')) AS e
						UNION ALL
						SELECT k FROM jsonb_array_elements_text(keys) k
						-- (a hash tag's part hashed as chash_position does)
						WHERE CASE WHEN s.shard->>'hash_tag' IS NOT NULL AND bytea_keys THEN @extschema@.chash_position(mv.from_ring, k::bytea)
								   WHEN s.shard->>'hash_tag' IS NOT NULL THEN @extschema@.chash_position(mv.from_ring, k)
								   WHEN bytea_keys THEN @extschema@.chash_hash(s.shard->>'key_hash', k::bytea)
								   ELSE @extschema@.chash_hash(s.shard->>'key_hash', k) END <@ p.ranges) z) AS keys
			  FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id AND p.from_node = s.node) x
		WHERE x.keys IS NOT NULL;
	END LOOP;
END
$$;

/*
 * Compares the pending keys of every pair on both sides: each source
 * read, then every destination once it has applied what the source had
 * then.  Keys that differ stay pending (they changed since, or the
 * cutover must copy them); the others are done.
 */
CREATE OR REPLACE FUNCTION chash.move_compare(mv chash.online_moves, shards jsonb, pending jsonb, deadline timestamptz,
								   OUT pending_after jsonb, OUT caught_up boolean)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	p record;
	src jsonb := '{}';
BEGIN
	pending_after := '{}';
	FOR p IN SELECT q.* FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id
			   AND jsonb_array_length(coalesce(pending->(q.pair::text), '[]')) > 0 ORDER BY q.pair LOOP
		src := src || jsonb_build_object(p.pair::text,
			chash.move_sums(mv, shards->p.from_node, p.ranges, true, pending->(p.pair::text), NULL));
	END LOOP;
	caught_up := chash.move_barrier(mv, shards, deadline);
	IF NOT caught_up THEN
		pending_after := pending;
		RETURN;
	END IF;
	FOR p IN SELECT q.* FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id
			   AND jsonb_array_length(coalesce(pending->(q.pair::text), '[]')) > 0 ORDER BY q.pair LOOP
		pending_after := pending_after || jsonb_build_object(p.pair::text, chash.move_differ(src->(p.pair::text),
			chash.move_sums(mv, shards->p.to_node, p.ranges, true, pending->(p.pair::text), NULL)));
	END LOOP;
	pending_after := (SELECT coalesce(jsonb_object_agg(x.key, x.value), '{}') FROM jsonb_each(pending_after) x
					  WHERE jsonb_array_length(x.value) > 0);
END
$$;

-- The number of pending keys
CREATE OR REPLACE FUNCTION chash.move_count(pending jsonb) RETURNS integer
	LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT coalesce(sum(jsonb_array_length(x.value)), 0)::integer FROM jsonb_each(pending) x $$;

/*
 * The full comparison, before any fence: every pair's moving rows summed
 * by bucket on both sides (the destination once it has applied what the
 * source had), then the buckets that differ key by key.  A key that
 * differs and was changed while the move ran is pending: it changed
 * again, or it was renamed, and the cutover copies it.  One that differs
 * and was not changed means the table was changed behind the move: the
 * move stops, before any fence.
 */
CREATE OR REPLACE FUNCTION chash.move_verify(mv chash.online_moves, shards jsonb, deadline timestamptz) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	p record;
	s jsonb;
	d jsonb;
	src jsonb;
	buckets integer[];
	differ jsonb;
	explained jsonb;
	pending jsonb := '{}';
BEGIN
	FOR p IN SELECT q.* FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id ORDER BY q.pair LOOP
		s := shards->p.from_node;
		d := shards->p.to_node;
		src := chash.move_sums(mv, s, p.ranges, false, NULL, NULL);
		IF NOT chash.move_barrier(mv, shards, deadline) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'query_canceled',
				MESSAGE = format('online move %s timed out waiting for node "%s" to catch up', mv.move_id, chash.message_name(p.to_node));
		END IF;
		SELECT array_agg(b::integer) INTO buckets
		FROM jsonb_array_elements_text(chash.move_differ(src, chash.move_sums(mv, d, p.ranges, false, NULL, NULL))) b;
		CONTINUE WHEN buckets IS NULL;
		src := chash.move_sums(mv, s, p.ranges, true, NULL, buckets);
		IF NOT chash.move_barrier(mv, shards, deadline) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'query_canceled',
				MESSAGE = format('online move %s timed out waiting for node "%s" to catch up', mv.move_id, chash.message_name(p.to_node));
		END IF;
		differ := chash.move_differ(src, chash.move_sums(mv, d, p.ranges, true, NULL, buckets));
		CONTINUE WHEN jsonb_array_length(differ) = 0;
		explained := chash.move_remote(s->>'conn', format(
			'SELECT coalesce(pg_catalog.json_agg(DISTINCT c.k::pg_catalog.text), ''[]'')::pg_catalog.text FROM %s c'
			' WHERE c.k = ANY (%L::pg_catalog.text[]::%s[])', chash.move_obj(s, mv.token, '_changes'),
			(SELECT array_agg(k) FROM jsonb_array_elements_text(differ) k), s->>'key_type'))::jsonb;
		IF EXISTS (SELECT FROM jsonb_array_elements_text(differ) k WHERE NOT explained ? k) THEN
			RAISE EXCEPTION USING
				ERRCODE = 'data_corrupted',
				MESSAGE = format('the copies on node "%s" of rows of node "%s" differ from them',
								 chash.message_name(p.to_node), chash.message_name(p.from_node)),
				DETAIL = format('The rows of %s keys differ, among them key %s, and no write since the move began changed them.',
								(SELECT count(*) FROM jsonb_array_elements_text(differ) k WHERE NOT explained ? k),
								(SELECT k FROM jsonb_array_elements_text(differ) k WHERE NOT explained ? k LIMIT 1)),
				HINT = 'Something changed the table outside the move (a TRUNCATE on the source, writes on the destination to keys it does not own yet, or writes made with session_replication_role = replica). No fence is up and the ring is unchanged: remove the move with chash_move_abort and start again.';
		END IF;
		pending := pending || jsonb_build_object(p.pair::text, differ);
	END LOOP;
	RETURN pending;
END
$$;

/*
 * At cutover, the keys still pending differ between a source and its
 * destination: copied from the source (frozen by its fence) as the
 * table's owner, after the destination's rows of them are deleted.
 */
CREATE OR REPLACE FUNCTION chash.move_repair(mv chash.online_moves, shards jsonb, pair integer, keys jsonb) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	p chash.online_move_pairs;
	s jsonb;
	d jsonb;
	cols text;
	tcols text;
	rows text;
BEGIN
	SELECT * INTO p FROM chash.online_move_pairs q WHERE q.move_id = mv.move_id AND q.pair = move_repair.pair;
	s := shards->p.from_node;
	d := shards->p.to_node;
	SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
		   string_agg('t.' || quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols, tcols
	FROM pg_attribute a WHERE a.attrelid = mv.relation AND a.attnum > 0 AND NOT a.attisdropped;
	rows := chash.move_remote(s->>'conn', format(
		'SELECT coalesce(pg_catalog.json_agg(x), ''[]'')::pg_catalog.text FROM (SELECT %s FROM %s t'
		' WHERE t.%I = ANY (%L::pg_catalog.text[]::%s[]) AND %s) x',
		tcols, s->>'table', mv.key_column, (SELECT array_agg(k) FROM jsonb_array_elements_text(keys) k), s->>'key_type',
		chash.move_moving(s, chash.move_key('t', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), p.ranges)));
	PERFORM chash.move_remote(d->>'conn', format(
		'SET LOCAL ROLE %1$s; DELETE FROM %2$s t WHERE t.%3$I = ANY (%4$L::pg_catalog.text[]::%5$s[]) AND %6$s; '
		'INSERT INTO %2$s (%7$s) SELECT %7$s FROM pg_catalog.json_populate_recordset(NULL::%2$s, %8$L::pg_catalog.json); SELECT 1',
		d->>'owner', d->>'table', mv.key_column, (SELECT array_agg(k) FROM jsonb_array_elements_text(keys) k), d->>'key_type',
		chash.move_moving(d, chash.move_key('t', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), p.ranges),
		cols, rows));
END
$$;

/*
 * One try at the cutover.  The fences go up until a deadline by the
 * shards' clocks; the writes that were already running on a source end
 * (their changes are then in its stream); the keys changed since the last
 * comparison are claimed and compared once the destinations have applied
 * everything; rows that differ are copied; then, if the deadline is not
 * near, every fence is made to stay.  Returns NULL when the ring may
 * switch, else why not (the fences then come down in the caller).
 */
CREATE OR REPLACE FUNCTION chash.move_cutover(mv chash.online_moves, shards jsonb, INOUT pending jsonb,
								   max_write_block interval, OUT reason text, OUT timing text)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	block_end timestamptz := clock_timestamp() + max_write_block - interval '100 ms';
	budget bigint := (extract(epoch FROM max_write_block) * 1000000)::bigint;
	lockers jsonb := '{}';
	s record;
	got text;
	caught_up boolean;
	claimed integer;
	left_over jsonb;
	pair text;
	t timestamptz := clock_timestamp();
BEGIN
	timing := '';
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		got := chash.move_remote(s.shard->>'conn', format(
			'SELECT pg_catalog.setval(%1$L::pg_catalog.regclass,'
			' (extract(epoch FROM pg_catalog.clock_timestamp()) * 1000000)::bigint + %2$s);'
			' SELECT coalesce(pg_catalog.array_agg(DISTINCT l.virtualtransaction), ''{}'')::pg_catalog.text'
			' FROM pg_catalog.pg_locks l WHERE l.locktype = ''relation'' AND l.relation = %3$L::pg_catalog.regclass'
			' AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())'
			' AND l.mode = ''RowExclusiveLock'' AND l.granted AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid()',
			chash.move_obj(s.shard, mv.token, '_state'), budget, s.shard->>'table'));
		lockers := lockers || jsonb_build_object(s.node, got);
	END LOOP;
	timing := timing || format('%s %s ms, ', 'fences up', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
	t := clock_timestamp();
	-- the writes that passed the fences before they went up
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		CONTINUE WHEN lockers->>s.node = '{}';
		WHILE chash.move_remote(s.shard->>'conn', format(
				'SELECT pg_catalog.count(*) FROM pg_catalog.pg_locks l WHERE l.virtualtransaction = ANY (%L::pg_catalog.text[])',
				lockers->>s.node)) <> '0' LOOP
			IF clock_timestamp() >= block_end THEN
				reason := format('writes on node "%s" that began before the fence went up were still running', s.node);
				RETURN;
			END IF;
			PERFORM pg_sleep(0.001);
		END LOOP;
	END LOOP;
	timing := timing || format('%s %s ms, ', 'running writes ended', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
	t := clock_timestamp();
	SELECT c.pending_after, c.claimed INTO pending, claimed FROM chash.move_claim(mv, shards, pending, -1) c;
	timing := timing || format('%s %s ms, ', 'claimed ' || chash.move_count(pending) || ' keys', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
	t := clock_timestamp();
	SELECT c.pending_after, c.caught_up INTO left_over, caught_up FROM chash.move_compare(mv, shards, pending, block_end) c;
	timing := timing || format('%s %s ms, ', 'caught up and compared', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
	t := clock_timestamp();
	IF NOT caught_up THEN
		reason := 'the destinations had not applied the last changes';
		RETURN;
	END IF;
	-- what still differs is copied, and then must agree
	IF left_over <> '{}' THEN
		FOR pair IN SELECT x.key FROM jsonb_each(left_over) x LOOP
			PERFORM chash.move_repair(mv, shards, pair::integer, left_over->pair);
		END LOOP;
		SELECT c.pending_after, c.caught_up INTO left_over, caught_up FROM chash.move_compare(mv, shards, left_over, block_end) c;
		IF caught_up AND left_over <> '{}' THEN
			RAISE EXCEPTION USING
				ERRCODE = 'data_corrupted',
				MESSAGE = format('online move %s could not make the copies agree with their sources', mv.move_id),
				DETAIL = format('The rows of %s keys still differ after they were copied again.', chash.move_count(left_over));
		ELSIF NOT caught_up THEN
			reason := 'the destinations had not applied the last changes';
			RETURN;
		END IF;
		timing := timing || format('%s %s ms, ', 'copied again', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
		t := clock_timestamp();
	END IF;
	pending := '{}';
	IF clock_timestamp() >= block_end THEN
		reason := 'the comparison took longer than max_write_block';
		RETURN;
	END IF;
	-- the fences stay, unless a shard finds its deadline too near
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		IF chash.move_remote(s.shard->>'conn', format(
				'SELECT CASE WHEN s.last_value - (extract(epoch FROM pg_catalog.clock_timestamp()) * 1000000)::bigint > 100000'
				' THEN pg_catalog.setval(%1$L::pg_catalog.regclass, 2)::pg_catalog.text ELSE ''late'' END FROM %1$s s',
				chash.move_obj(s.shard, mv.token, '_state'))) = 'late' THEN
			reason := format('the fence of node "%s" was about to expire', s.node);
			RETURN;
		END IF;
	END LOOP;
	timing := timing || format('%s %s ms, ', 'fences kept', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1));
	t := clock_timestamp();
END
$$;

/*
 * Waits for the writers of a table on every source that have run for
 * longer than half of max_write_block, before the fences go up: a fence
 * waits for the writers it finds.  False if some remain at the deadline.
 */
CREATE OR REPLACE FUNCTION chash.move_wait_quiet(mv chash.online_moves, shards jsonb, max_write_block interval,
									  deadline timestamptz, OUT quiet boolean, OUT holders text)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s record;
	told timestamptz := clock_timestamp();
BEGIN
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		LOOP
			holders := chash.move_remote(s.shard->>'conn', format(
				'SELECT coalesce(pg_catalog.string_agg(DISTINCT coalesce(a.pid::pg_catalog.text, l.virtualtransaction), '', ''), '''')'
				' FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid'
				' WHERE l.locktype = ''relation'' AND l.relation = %L::pg_catalog.regclass AND l.mode = ''RowExclusiveLock'''
				' AND l.granted AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid()'
				' AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())'
				' AND (l.pid IS NULL OR a.xact_start < pg_catalog.clock_timestamp() - %L::pg_catalog.interval)',
				s.shard->>'table', max_write_block / 2));
			EXIT WHEN holders = '';
			holders := format('node "%s", sessions %s', s.node, holders);
			IF clock_timestamp() >= deadline THEN
				quiet := false;
				RETURN;
			END IF;
			IF clock_timestamp() - told > interval '5 s' THEN
				RAISE NOTICE 'chash move %: waiting for long transactions that write to the table on %', mv.move_id, holders;
				told := clock_timestamp();
			END IF;
			PERFORM pg_sleep(0.05);
		END LOOP;
	END LOOP;
	quiet := true;
	holders := NULL;
END
$$;

/*
 * Deletes a node's rows of moving keys, keys in order, 10,000 keys a
 * transaction, as the table's owner: on a source after the switch,
 * passing its fence (the state names the deleting transaction), or on a
 * destination, the copies of a move that is aborted.
 */
CREATE OR REPLACE FUNCTION chash.move_delete_rows(mv chash.online_moves, shard jsonb, ranges int8multirange,
									   past_fence boolean) RETURNS bigint
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	last_key text;
	got text;
	deleted bigint := 0;
	moving text := chash.move_moving(shard, chash.move_key('t', mv.key_column, chash.key_column_type(mv.relation, mv.key_column)), ranges);
BEGIN
	LOOP
		got := chash.move_remote(shard->>'conn', format(
			'%1$s SET LOCAL ROLE %2$s; '
			'WITH keys AS MATERIALIZED (SELECT t.%3$I AS k FROM %4$s t WHERE %5$s %6$s GROUP BY 1 ORDER BY 1 LIMIT 10000),'
			' gone AS (DELETE FROM %4$s t USING keys WHERE t.%3$I = keys.k RETURNING 1)'
			' SELECT (SELECT pg_catalog.count(*) FROM gone) || '' '' || coalesce((SELECT keys.k::pg_catalog.text FROM keys ORDER BY keys.k DESC LIMIT 1), '''')',
			CASE WHEN past_fence THEN format('SELECT pg_catalog.setval(%L::pg_catalog.regclass, pg_catalog.pg_current_xact_id()::pg_catalog.text::bigint);',
											 chash.move_obj(shard, mv.token, '_state')) ELSE '' END,
			shard->>'owner', mv.key_column, shard->>'table', moving,
			CASE WHEN last_key IS NULL THEN '' ELSE format('AND t.%I > %L::%s', mv.key_column, last_key, shard->>'key_type') END));
		EXIT WHEN split_part(got, ' ', 1) = '0';
		deleted := deleted + split_part(got, ' ', 1)::bigint;
		last_key := substr(got, position(' ' IN got) + 1);
	END LOOP;
	RETURN deleted;
END
$$;

/*
 * Removes a move's streams, or one pair's (only_pair): on each destination
 * its subscriptions (their slots detached first, so that each step can be
 * repeated), then on each source their slots, and those of copies that
 * were cut short, once their senders have gone.  A copy's slot is named
 * by the subscription's oid, the table's and the destination's system
 * identifier, which tells it from another destination's.
 */
CREATE OR REPLACE FUNCTION chash.move_drop_streams(mv chash.online_moves, shards jsonb, deadline timestamptz,
										only_pair integer) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d record;
	s record;
	subs text;
	got jsonb;
	copies text[] := '{}';
	pattern text := replace(chash.move_object(mv.token, '_' || coalesce(only_pair::text, '')), '_', '\_')
		|| CASE WHEN only_pair IS NULL THEN '%' ELSE '' END;
	slots text;
BEGIN
	FOR d IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'destination')::boolean
			   AND (only_pair IS NULL OR x.key = (SELECT p.to_node FROM chash.online_move_pairs p
												  WHERE p.move_id = mv.move_id AND p.pair = only_pair))
			 ORDER BY x.key LOOP
		got := chash.move_remote(d.shard->>'conn', format(
			'SELECT pg_catalog.json_build_object(''system'', (SELECT c.system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system() c),'
			' ''oids'', coalesce(pg_catalog.json_agg(s.oid::pg_catalog.text), ''[]''))::pg_catalog.text'
			' FROM pg_catalog.pg_subscription s WHERE s.subname LIKE %L', pattern))::jsonb;
		copies := copies || ARRAY(SELECT 'pg\_' || o || '\_sync\_%\_' || (got->>'system')
								  FROM jsonb_array_elements_text(got->'oids') o);
		subs := chash.move_remote(d.shard->>'conn', format(
			'SELECT coalesce(pg_catalog.string_agg(pg_catalog.format(''ALTER SUBSCRIPTION %%1$I DISABLE;'
			' ALTER SUBSCRIPTION %%1$I SET (slot_name = NONE); DROP SUBSCRIPTION %%1$I;'', s.subname), '' ''), '''')'
			' FROM pg_catalog.pg_subscription s WHERE s.subname LIKE %L', pattern));
		IF subs <> '' THEN
			PERFORM chash.move_remote(d.shard->>'conn', subs || ' SELECT 1');
		END IF;
	END LOOP;
	FOR s IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
			 WHERE (x.value->>'source')::boolean
			   AND (only_pair IS NULL OR x.key = (SELECT p.from_node FROM chash.online_move_pairs p
												  WHERE p.move_id = mv.move_id AND p.pair = only_pair))
			 ORDER BY x.key LOOP
		slots := format('(slot_name LIKE %L OR slot_name LIKE ANY (%L::pg_catalog.text[]))', pattern, copies);
		WHILE chash.move_remote(s.shard->>'conn', format(
				'SELECT pg_catalog.count(*) FROM pg_catalog.pg_replication_slots WHERE %s AND active', slots)) <> '0' LOOP
			IF clock_timestamp() >= deadline THEN
				RAISE EXCEPTION USING
					ERRCODE = 'object_in_use',
					MESSAGE = format('a replication slot of online move %s on node "%s" is still in use', mv.move_id, chash.message_name(s.node)),
					HINT = 'Its subscription is gone; end the session that holds the slot, then run the same CALL again.';
			END IF;
			PERFORM pg_sleep(0.05);
		END LOOP;
		PERFORM chash.move_remote(s.shard->>'conn', format(
			'SELECT pg_catalog.count(pg_catalog.pg_drop_replication_slot(slot_name)) FROM pg_catalog.pg_replication_slots'
			' WHERE %s AND NOT active', slots));
	END LOOP;
END
$$;

/*
 * Removes a move's objects from a node's shard, each if it is there: the
 * keep trigger, the publication and the markers, and with the fence, the
 * fence trigger and what it uses.
 */
CREATE OR REPLACE FUNCTION chash.move_drop_objects(mv chash.online_moves, node text, shard jsonb, with_fence boolean,
										deadline timestamptz) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	tok text := mv.token;
	marks text;
	suffix text;
BEGIN
	FOREACH suffix IN ARRAY CASE WHEN with_fence THEN ARRAY['_keep', '_fence', '_truncate'] ELSE ARRAY['_keep'] END LOOP
		IF chash.move_remote(shard->>'conn', format(
				'SELECT EXISTS (SELECT FROM pg_catalog.pg_trigger t WHERE t.tgrelid = %L::pg_catalog.regclass AND t.tgname = %L)',
				shard->>'table', chash.move_object(tok, suffix))) = 't' THEN
			PERFORM chash.move_ddl(shard->>'conn', format('DROP TRIGGER %I ON %s',
				chash.move_object(tok, suffix), shard->>'table'), node, deadline);
		END IF;
	END LOOP;
	SELECT string_agg(format('DROP TABLE IF EXISTS %s;', chash.move_obj(shard, tok, '_mark_' || n.ordinal)), ' ') INTO marks
	FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id
	  AND (n.node = move_drop_objects.node OR EXISTS (SELECT FROM chash.online_move_pairs p
													WHERE p.move_id = n.move_id AND p.from_node = n.node
													  AND p.to_node = move_drop_objects.node));
	-- the tables' last writers may still be open: tried as DDL on a table is
	PERFORM chash.move_ddl(shard->>'conn', format(
		'DROP PUBLICATION IF EXISTS %I, %I; DROP FUNCTION IF EXISTS %s(); %s %s SELECT 1',
		chash.move_object(tok, ''), chash.move_object(tok, '_mark'), chash.move_obj(shard, tok, '_keep'), marks,
		CASE WHEN with_fence THEN format('DROP FUNCTION IF EXISTS %s(), %s(); DROP TABLE IF EXISTS %s; DROP SEQUENCE IF EXISTS %s;',
										 chash.move_obj(shard, tok, '_fence'), chash.move_obj(shard, tok, '_truncate'),
										 chash.move_obj(shard, tok, '_changes'), chash.move_obj(shard, tok, '_state')) ELSE '' END),
		node, deadline);
END
$$;

/*
 * Waits until no client session of this database is in a transaction that
 * began before the ring switched: one could still write by the old ring.
 * pg_stat_activity is read afresh each time.
 */
CREATE OR REPLACE FUNCTION chash.move_wait_older(mv chash.online_moves, deadline timestamptz) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	told timestamptz := clock_timestamp();
	older text;
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		SELECT string_agg(a.pid::text, ', ' ORDER BY a.pid) INTO older
		FROM pg_stat_activity a
		WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
		  AND a.backend_type = 'client backend' AND a.xact_start < mv.switched;
		EXIT WHEN older IS NULL;
		IF clock_timestamp() >= deadline THEN
			RAISE EXCEPTION USING
				ERRCODE = 'object_in_use',
				MESSAGE = format('transactions older than the switch of online move %s are still open', mv.move_id),
				DETAIL = format('Sessions %s may still write by the old ring, so the moved rows are not deleted from their old nodes yet.', older),
				HINT = 'End those transactions, then run the same CALL again. Until then the old nodes refuse writes to the moved keys.';
		END IF;
		IF clock_timestamp() - told > interval '5 s' THEN
			RAISE NOTICE 'chash move %: waiting for transactions older than the switch: sessions %', mv.move_id, older;
			told := clock_timestamp();
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
END
$$;

-- Whether the session that ran a move's CALL is still running it
CREATE OR REPLACE FUNCTION chash.move_running(mv chash.online_moves) RETURNS boolean
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM pg_stat_clear_snapshot();
	RETURN mv.runner_pid IS NOT NULL AND EXISTS (
		SELECT FROM pg_stat_activity a
		WHERE a.pid = mv.runner_pid AND a.backend_start = mv.runner_backend_start
		  AND a.query_start = mv.runner_call_start AND a.state = 'active');
END
$$;

/*
 * The unfinished move of a ring, taken for this CALL: locked, and marked
 * as run by this session's current statement, which no other session can
 * be.  An error if another session runs it, or if the relation is being
 * moved by a move of another ring; NULL if the ring has none.
 */
CREATE OR REPLACE FUNCTION chash.move_take(from_ring text, relation regclass) RETURNS chash.online_moves
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	mv chash.online_moves;
BEGIN
	BEGIN
		SELECT * INTO mv FROM chash.online_moves m
		WHERE (m.from_ring = move_take.from_ring OR m.relation = move_take.relation) AND m.step <> 'done'
		ORDER BY m.from_ring = move_take.from_ring DESC LIMIT 1
		FOR UPDATE NOWAIT;
	EXCEPTION WHEN lock_not_available THEN
		RAISE EXCEPTION USING
			ERRCODE = 'lock_not_available',
			MESSAGE = format('an online move of ring "%s" is starting in another session', chash.message_name(from_ring)),
			HINT = 'Wait for it to end.';
	END;
	IF mv.move_id IS NULL THEN
		RETURN NULL;
	END IF;
	IF chash.move_running(mv) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'lock_not_available',
			MESSAGE = format('online move %s of ring "%s" is running in session %s', mv.move_id, chash.message_name(mv.from_ring), mv.runner_pid),
			HINT = format('Wait for it to end, or stop it with pg_cancel_backend(%s).', mv.runner_pid);
	END IF;
	UPDATE chash.online_moves m
	SET runner_pid = pg_backend_pid(),
		runner_backend_start = (SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()),
		runner_call_start = statement_timestamp()
	WHERE m.move_id = mv.move_id
	RETURNING * INTO mv;
	RETURN mv;
END
$$;

/*
 * Takes every source's fence down (back to recording keys) and says when
 * the writes to moving keys stopped being refused: now, if a fence was up
 * for good; else when the latest deadline passed, if it has; NULL if no
 * fence was up.
 */
CREATE OR REPLACE FUNCTION chash.move_lower_fences(mv chash.online_moves, shards jsonb) RETURNS timestamptz
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s jsonb;
	state bigint;
	ended timestamptz;
BEGIN
	FOR s IN SELECT x.value FROM jsonb_each(shards) x WHERE (x.value->>'source')::boolean ORDER BY x.key LOOP
		CONTINUE WHEN chash.move_remote(s->>'conn', format('SELECT pg_catalog.to_regclass(%L) IS NOT NULL',
														   chash.move_obj(s, mv.token, '_state'))) = 'f';
		state := chash.move_remote(s->>'conn', format('SELECT s.last_value::pg_catalog.text FROM %s s',
													  chash.move_obj(s, mv.token, '_state')))::bigint;
		IF state >= 1000000000000000 THEN
			ended := greatest(ended, least(clock_timestamp(), to_timestamp(state / 1000000.0)));
		ELSIF state >= 2 THEN
			ended := clock_timestamp();
		END IF;
		IF state <> 1 THEN
			PERFORM chash.move_remote(s->>'conn', chash.move_state_sql(s, mv.token, '1'));
		END IF;
	END LOOP;
	RETURN ended;
END
$$;

-- What a move or its abort needs of its caller
CREATE OR REPLACE FUNCTION chash.move_check_caller() RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	missing bigint;
	example text;
BEGIN
	-- the cleanup waits for every older transaction, and a move is taken
	-- over only once its session has stopped running it: both must be seen
	-- (PUBLIC may execute this, so that the message below is what a role
	-- granted only the procedures meets)
	IF NOT pg_has_role('pg_read_all_stats', 'USAGE') THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = 'an online move needs the privileges of pg_read_all_stats',
			DETAIL = 'Before it deletes the moved rows, the move waits for every transaction that may still route by the old ring, and only pg_read_all_stats sees them all.',
			HINT = 'Grant pg_read_all_stats to the role that runs the move.';
	END IF;
	-- the procedures call the helpers with the caller's rights
	SELECT pg_catalog.count(*), pg_catalog.min(p.oid::pg_catalog.regprocedure::text)
	INTO missing, example
	FROM pg_catalog.pg_proc p
	WHERE p.pronamespace OPERATOR(pg_catalog.=) 'chash'::pg_catalog.regnamespace
	  AND p.proname OPERATOR(pg_catalog.~~) 'move\_%'
	  AND NOT pg_catalog.has_function_privilege(p.oid, 'EXECUTE');
	IF missing > 0 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = 'an online move needs EXECUTE on the functions chash.move_*',
			DETAIL = pg_catalog.format('The role may not execute %s of them, %s among them.', missing, example),
			HINT = 'Grant EXECUTE on every function chash.move_* to the role that runs the move, as well as on the procedures.';
	END IF;
	-- and they keep the moves' records
	SELECT pg_catalog.count(*), pg_catalog.min(t.t::text)
	INTO missing, example
	FROM unnest(ARRAY['chash.online_moves', 'chash.online_move_pairs',
					  'chash.online_move_nodes']::pg_catalog.regclass[]) t
	-- (one privilege a call: a list is true if any of it is held)
	WHERE EXISTS (SELECT FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p(p)
				  WHERE NOT pg_catalog.has_table_privilege(t.t, p.p));
	IF missing > 0 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = 'an online move needs SELECT, INSERT, UPDATE and DELETE on the tables of online moves',
			DETAIL = pg_catalog.format('The role lacks them on %s of them, %s among them.', missing, example),
			HINT = 'Grant them on chash.online_moves, chash.online_move_pairs and chash.online_move_nodes to the role that runs the move.';
	END IF;
	PERFORM chash.move_dblink();
	-- connections a call that failed in this session may have left
	PERFORM chash.move_disconnect();
END
$$;

CREATE OR REPLACE PROCEDURE chash_move_online(from_ring text, to_ring text,
								   relation regclass, key_column name,
								   max_write_block interval DEFAULT '2 s',
								   wait_timeout interval DEFAULT '15 min',
								   trust_table_owners boolean DEFAULT false)
	LANGUAGE plpgsql
	AS $move$
DECLARE
	-- no SET clause: a procedure with one cannot commit
	pin constant text := 'pg_catalog, pg_temp';
	mv chash.online_moves;
	fresh boolean := false;
	shards jsonb;
	deadline timestamptz;
	pending jsonb := '{}';
	claimed integer;
	caught_up boolean;
	round integer := 0;
	reason text;
	quiet boolean;
	holders text;
	ended timestamptz;
	got text;
	nd record;
	deleted bigint := 0;
	moving jsonb;
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
	PERFORM pg_catalog.set_config('search_path', pin, true);
	IF from_ring IS NULL OR to_ring IS NULL OR max_write_block IS NULL OR wait_timeout IS NULL
	   OR trust_table_owners IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'from_ring, to_ring, max_write_block, wait_timeout and trust_table_owners must not be null';
	END IF;
	IF max_write_block < interval '200 ms' OR max_write_block > interval '1 min' THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('max_write_block must be between 200 ms and 1 min, not %s s',
							 round(extract(epoch FROM max_write_block), 3));
	END IF;
	IF wait_timeout < interval '1 s' THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('wait_timeout must be at least 1 s, not %s s', round(extract(epoch FROM wait_timeout), 3));
	END IF;
	-- the checks' errors without the helpers' CONTEXT (no commit in here)
	BEGIN
		PERFORM chash.key_column_type(relation, key_column);
		PERFORM chash.move_check_caller();
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
								e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
		PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
	END;
	-- the cutover drops from_ring and copies to_ring under its name: a role
	-- that could not would find out after the copies
	IF EXISTS (SELECT FROM unnest(ARRAY['chash.ring_config', 'chash.node_config']::pg_catalog.regclass[]) t(t),
				   unnest(ARRAY['INSERT', 'DELETE']) p(p)
			   WHERE NOT pg_catalog.has_table_privilege(t.t, p.p)) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = pg_catalog.format('permission denied to change ring "%s"', chash.message_name(from_ring)),
			DETAIL = pg_catalog.format('At its cutover the move drops ring "%s" and copies ring "%s" under its name, which needs INSERT and DELETE on chash.ring_config and chash.node_config.',
									   chash.message_name(from_ring), chash.message_name(to_ring));
	END IF;

	mv := chash.move_take(from_ring, relation);
	IF mv.move_id IS NOT NULL
	   AND (mv.from_ring, mv.to_ring, mv.relation, mv.key_column)
		   IS DISTINCT FROM (from_ring, to_ring, relation, key_column) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('online move %s of ring "%s" to ring "%s" for relation %s is not finished',
							 mv.move_id, chash.message_name(mv.from_ring), chash.message_name(mv.to_ring), mv.relation),
			DETAIL = 'A ring, and a relation, has one online move at a time.',
			HINT = format('Finish it with CALL chash_move_online(%L, %L, %L, %L), or remove it with CALL chash_move_abort(%L).',
						  mv.from_ring, mv.to_ring, mv.relation::text, mv.key_column, mv.from_ring);
	END IF;
	IF mv.move_id IS NULL THEN
		-- the positions that move, pair by pair (an error if a shard
		-- cannot tell them)
		SELECT jsonb_agg(jsonb_build_array(r.from_node, r.to_node, r.ranges::text)) INTO moving
		FROM chash.move_ranges(from_ring, to_ring) r;
		IF moving IS NULL THEN
			RAISE NOTICE 'chash move: rings "%" and "%" place every key alike, nothing to move', from_ring, to_ring;
			RETURN;
		END IF;
		-- a move of the same ring or relation starting beside this one
		-- makes this one fail rather than wait
		PERFORM pg_catalog.set_config('lock_timeout', '5s', true);
		BEGIN
			INSERT INTO chash.online_moves (token, from_ring, to_ring, relation, key_column,
											from_fingerprint, to_fingerprint,
											runner_pid, runner_backend_start, runner_call_start)
			VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 10),
					from_ring, to_ring, relation, key_column,
					chash.routing_fingerprint(from_ring), chash.routing_fingerprint(to_ring),
					pg_backend_pid(), (SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()),
					statement_timestamp())
			RETURNING * INTO mv;
		EXCEPTION WHEN unique_violation OR lock_not_available THEN
			RAISE EXCEPTION USING
				ERRCODE = 'lock_not_available',
				MESSAGE = format('an online move of ring "%s" or of relation %s is starting in another session', chash.message_name(from_ring), relation),
				HINT = 'Wait for it to end.';
		END;
		PERFORM pg_catalog.set_config('lock_timeout', '0', true);
		INSERT INTO chash.online_move_pairs (move_id, pair, from_node, to_node, ranges)
		SELECT mv.move_id, row_number() OVER (ORDER BY r->>0, r->>1), r->>0, r->>1, (r->>2)::int8multirange
		FROM jsonb_array_elements(moving) r;
		-- a source as the old ring names it, a destination as the new one does
		INSERT INTO chash.online_move_nodes (move_id, node, ordinal, server, remote_schema, remote_name, conninfo)
		SELECT mv.move_id, u.node, row_number() OVER (ORDER BY u.node), s.server, s.remote_schema, s.remote_name, s.conninfo
		FROM (SELECT DISTINCT ON (node) node, ring
			  FROM (SELECT p.from_node, from_ring, 1 FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id
					UNION ALL
					SELECT p.to_node, to_ring, 2 FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id)
				   AS x(node, ring, o)
			  ORDER BY node, o) u,
			 LATERAL chash.move_shard(u.ring, u.node, relation) s;
		-- one publication, one connection and one fence a shard
		SELECT string_agg(format('"%s"', n.node), ', ' ORDER BY n.node), n.server INTO got, holders
		FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id
		GROUP BY n.server HAVING count(*) > 1 LIMIT 1;
		IF got IS NOT NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'feature_not_supported',
				MESSAGE = format('nodes %s share server "%s"', got, holders),
				DETAIL = 'An online move publishes, fences and subscribes per shard, so each of its nodes needs a postgres_fdw server of its own.',
				HINT = 'Give each node a server, or use chash_migration_sql for this change.';
		END IF;
		-- a subscription applies rows to the table of the source's name
		SELECT p.from_node, p.to_node, format('%I.%I', s.remote_schema, s.remote_name) AS s_table,
			   format('%I.%I', d.remote_schema, d.remote_name) AS d_table INTO nd
		FROM chash.online_move_pairs p
		JOIN chash.online_move_nodes s ON s.move_id = p.move_id AND s.node = p.from_node
		JOIN chash.online_move_nodes d ON d.move_id = p.move_id AND d.node = p.to_node
		WHERE p.move_id = mv.move_id
		  AND (s.remote_schema, s.remote_name) IS DISTINCT FROM (d.remote_schema, d.remote_name)
		ORDER BY p.pair LIMIT 1;
		IF nd.from_node IS NOT NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'feature_not_supported',
				MESSAGE = format('nodes "%s" and "%s" keep the table under different names',
								 chash.message_name(nd.from_node), chash.message_name(nd.to_node)),
				DETAIL = format('Logical replication would apply the rows of %s on node "%s" to table %s on node "%s", not to %s, which its target names.',
								nd.s_table, chash.message_name(nd.from_node), nd.s_table, chash.message_name(nd.to_node), nd.d_table),
				HINT = 'Give both nodes'' tables the same schema and name on their shards, or use chash_migration_sql for this change.';
		END IF;
		fresh := true;
	ELSIF mv.step = 'planned'
		  AND (chash.routing_fingerprint(from_ring) IS DISTINCT FROM mv.from_fingerprint
			   OR chash.routing_fingerprint(to_ring) IS DISTINCT FROM mv.to_fingerprint) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('ring "%s" or ring "%s" has changed since online move %s started',
							 chash.message_name(from_ring), chash.message_name(to_ring), mv.move_id),
			HINT = format('Restore the rings as they were, then run the same CALL again, or remove the move with CALL chash_move_abort(%L).', from_ring);
	ELSIF mv.step = 'switched' AND chash.routing_fingerprint(from_ring) IS DISTINCT FROM mv.to_fingerprint THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('ring "%s" has changed since online move %s switched it', chash.message_name(from_ring), mv.move_id),
			DETAIL = 'The moved rows are still on their old nodes too, and the cleanup deletes them by the move''s plan.',
			HINT = 'Restore the ring as the move left it, then run the same CALL again.';
	END IF;
	deadline := clock_timestamp() + wait_timeout;

	-- every shard of the move: reached, and checked before anything is made there
	shards := chash.move_reach(mv, fresh, wait_timeout, trust_table_owners);
	-- a new move's destinations must not hold rows of keys that move to them
	IF fresh THEN
		FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x
				  WHERE (x.value->>'destination')::boolean ORDER BY x.key LOOP
			IF chash.move_remote(nd.shard->>'conn', format('SELECT EXISTS (SELECT FROM %s t WHERE %s)', nd.shard->>'table',
					chash.move_moving(nd.shard, chash.move_key('t', key_column, chash.key_column_type(relation, key_column)),
									  chash.move_node_ranges(mv.move_id, nd.node, false)))) = 't' THEN
				RAISE EXCEPTION USING
					ERRCODE = 'object_not_in_prerequisite_state',
					MESSAGE = format('node "%s" already holds rows of keys that move to it', chash.message_name(nd.node)),
					DETAIL = format('Table %s there has rows whose keys the new ring gives it.', nd.shard->>'table'),
					HINT = 'Copies of them would collide with the rows the move brings; remove them first.';
			END IF;
		END LOOP;
	END IF;
	-- the move is recorded, as run by this call, once every check has passed
	COMMIT;
	PERFORM pg_catalog.set_config('search_path', pin, true);

	IF mv.step = 'planned' THEN
		-- fences a call cut short left up come down first
		ended := chash.move_lower_fences(mv, shards);
		IF mv.fenced_since IS NOT NULL THEN
			UPDATE chash.online_moves m
			SET write_block_total = coalesce(m.write_block_total, interval '0')
									+ greatest(coalesce(ended, m.fenced_since) - m.fenced_since, interval '0'),
				fenced_since = NULL
			WHERE m.move_id = mv.move_id RETURNING * INTO mv;
			COMMIT;
			PERFORM pg_catalog.set_config('search_path', pin, true);
		END IF;
		RAISE NOTICE 'chash move %: streaming the moving rows of % (% pairs of nodes)', mv.move_id, relation,
			(SELECT count(*) FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id);
		PERFORM chash.move_make_objects(mv, shards, deadline);
		PERFORM chash.move_subscribe(mv, shards, fresh);
		PERFORM chash.move_wait_copies(mv, shards, deadline);
		-- the keys changed so far are in the full comparison
		PERFORM chash.move_claim(mv, shards, '{}', 0);
		pending := chash.move_verify(mv, shards, deadline);
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', pin, true);
		-- then the keys changed since, until few are left for the cutover
		LOOP
			round := round + 1;
			SELECT c.pending_after, c.claimed INTO pending, claimed FROM chash.move_claim(mv, shards, pending, round) c;
			EXIT WHEN chash.move_count(pending) <= 100 OR round > 10;
			SELECT c.pending_after, c.caught_up INTO pending, caught_up FROM chash.move_compare(mv, shards, pending, deadline) c;
		END LOOP;
		RAISE NOTICE 'chash move %: copies agree with their sources but for % keys changed since', mv.move_id,
			chash.move_count(pending);

		-- the cutover, tried again while it does not fit in max_write_block
		LOOP
			SELECT w.quiet, w.holders INTO quiet, holders FROM chash.move_wait_quiet(mv, shards, max_write_block, deadline) w;
			IF NOT quiet THEN
				RAISE EXCEPTION USING
					ERRCODE = 'lock_not_available',
					MESSAGE = format('online move %s could not cut over: long transactions write to the table', mv.move_id),
					DETAIL = format('On %s, transactions that began long before were still open after wait_timeout.', holders),
					HINT = 'End them, then run the same CALL again. No fence is up and the ring is unchanged.';
			END IF;
			UPDATE chash.online_moves m SET fenced_since = clock_timestamp() WHERE m.move_id = mv.move_id RETURNING * INTO mv;
			COMMIT;
			PERFORM pg_catalog.set_config('search_path', pin, true);
			BEGIN
				SELECT c.pending, c.reason, c.timing INTO pending, reason, got
				FROM chash.move_cutover(mv, shards, pending, max_write_block) c;
			EXCEPTION WHEN OTHERS THEN
				-- the fences come down now, not at their deadline
				BEGIN
					PERFORM chash.move_lower_fences(mv, shards);
				EXCEPTION WHEN OTHERS THEN
					NULL;
				END;
				RAISE;
			END;
			IF reason IS NULL THEN
				-- the switch: from_ring becomes what to_ring is, in one commit
				BEGIN
					PERFORM pg_catalog.set_config('lock_timeout',
						greatest(100, ceil(extract(epoch FROM mv.fenced_since + max_write_block - clock_timestamp()) * 1000))::text || 'ms', true);
					PERFORM @extschema@.chash_ring_drop(from_ring);
					PERFORM @extschema@.chash_ring_copy(to_ring, from_ring);
					PERFORM pg_catalog.set_config('lock_timeout', '0', true);
				EXCEPTION WHEN lock_not_available THEN
					reason := 'the ring was locked by another transaction';
				END;
			END IF;
			IF reason IS NULL THEN
				UPDATE chash.online_moves m
				SET step = 'switched', switched = clock_timestamp(), fenced_since = NULL,
					write_block = clock_timestamp() - m.fenced_since,
					write_block_total = coalesce(m.write_block_total, interval '0') + (clock_timestamp() - m.fenced_since)
				WHERE m.move_id = mv.move_id RETURNING * INTO mv;
				COMMIT;
				PERFORM pg_catalog.set_config('search_path', pin, true);
				-- a transaction that began before this may still see the old ring
				UPDATE chash.online_moves m SET switched = clock_timestamp() WHERE m.move_id = mv.move_id RETURNING * INTO mv;
				COMMIT;
				PERFORM pg_catalog.set_config('search_path', pin, true);
				RAISE NOTICE 'chash move %: ring "%" switched; writes to moving keys were refused for % ms (%switched)', mv.move_id,
					from_ring, round(extract(epoch FROM mv.write_block)::numeric * 1000, 1), got;
				EXIT;
			END IF;
			-- this try gave up: fences down, the time they were up counted
			ended := chash.move_lower_fences(mv, shards);
			UPDATE chash.online_moves m
			SET write_block_total = coalesce(m.write_block_total, interval '0') + (clock_timestamp() - m.fenced_since),
				fenced_since = NULL
			WHERE m.move_id = mv.move_id RETURNING * INTO mv;
			COMMIT;
			PERFORM pg_catalog.set_config('search_path', pin, true);
			IF clock_timestamp() >= deadline THEN
				RAISE EXCEPTION USING
					ERRCODE = 'query_canceled',
					MESSAGE = format('online move %s could not cut over within max_write_block before wait_timeout', mv.move_id),
					DETAIL = format('The last try gave up because %s.', reason),
					HINT = 'No fence is up and the ring is unchanged: run the same CALL again, perhaps with a larger max_write_block.';
			END IF;
			RAISE NOTICE 'chash move %: cutover given up (%), trying again', mv.move_id, reason;
			PERFORM pg_sleep(1);
		END LOOP;
	END IF;

	-- cleanup: fences up for good, streams and filters dropped, then (once
	-- no transaction that may have routed by the old ring is left) the
	-- moved rows deleted from their old nodes, then the fences dropped
	FOR nd IN SELECT x.value AS shard FROM jsonb_each(shards) x WHERE (x.value->>'source')::boolean LOOP
		PERFORM chash.move_remote(nd.shard->>'conn', format(
			'SELECT CASE WHEN s.last_value = 1 OR s.last_value >= 1000000000000000'
			' THEN pg_catalog.setval(%1$L::pg_catalog.regclass, 2) END::pg_catalog.text FROM %1$s s',
			chash.move_obj(nd.shard, mv.token, '_state')));
	END LOOP;
	PERFORM chash.move_drop_streams(mv, shards, deadline, NULL);
	FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x ORDER BY x.key LOOP
		PERFORM chash.move_drop_objects(mv, nd.node, nd.shard, false, deadline);
	END LOOP;
	PERFORM chash.move_wait_older(mv, deadline);
	-- how many rows each pair moved, before they are deleted
	FOR nd IN SELECT p.pair, p.from_node, p.ranges FROM chash.online_move_pairs p
			  WHERE p.move_id = mv.move_id AND p.rows_moved IS NULL LOOP
		UPDATE chash.online_move_pairs p SET rows_moved = chash.move_remote(shards->nd.from_node->>'conn', format(
			'SELECT pg_catalog.count(*)::pg_catalog.text FROM %s t WHERE %s', shards->nd.from_node->>'table',
			chash.move_moving(shards->nd.from_node, chash.move_key('t', key_column, chash.key_column_type(relation, key_column)), nd.ranges)))::bigint
		WHERE p.move_id = mv.move_id AND p.pair = nd.pair;
	END LOOP;
	COMMIT;
	PERFORM pg_catalog.set_config('search_path', pin, true);
	FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x ORDER BY x.key LOOP
		IF (nd.shard->>'source')::boolean THEN
			deleted := deleted + chash.move_delete_rows(mv, nd.shard, chash.move_node_ranges(mv.move_id, nd.node, true), true);
		END IF;
		PERFORM chash.move_drop_objects(mv, nd.node, nd.shard, true, deadline);
	END LOOP;
	UPDATE chash.online_moves m
	SET step = 'done', finished = clock_timestamp(), runner_pid = NULL, runner_backend_start = NULL, runner_call_start = NULL
	WHERE m.move_id = mv.move_id;
	RAISE NOTICE 'chash move %: done, % rows moved', mv.move_id,
		(SELECT sum(p.rows_moved) FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id);
	PERFORM chash.move_disconnect();
END
$move$;
COMMENT ON PROCEDURE chash_move_online(text, text, regclass, name, interval, interval, boolean) IS
	'moves a relation''s rows from the nodes of one ring to those of another while writes go on, through logical replication, and switches from_ring to to_ring''s nodes, refusing writes to the moving keys for at most max_write_block; the same CALL resumes a move that stopped';

CREATE OR REPLACE PROCEDURE chash_move_abort(from_ring text, wait_timeout interval DEFAULT '15 min')
	LANGUAGE plpgsql
	AS $abort$
DECLARE
	pin constant text := 'pg_catalog, pg_temp';
	mv chash.online_moves;
	shards jsonb;
	deadline timestamptz;
	ended timestamptz;
	nd record;
	deleted bigint := 0;
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
	PERFORM pg_catalog.set_config('search_path', pin, true);
	IF from_ring IS NULL OR wait_timeout IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'from_ring and wait_timeout must not be null';
	END IF;
	-- the checks' errors without the helpers' CONTEXT (no commit in here)
	BEGIN
		PERFORM chash.move_check_caller();
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
								e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
		PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
	END;
	mv := chash.move_take(from_ring, NULL);
	IF mv.move_id IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" has no unfinished online move', chash.message_name(from_ring));
	END IF;
	IF mv.step = 'switched' THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('online move %s has switched ring "%s" already', mv.move_id, chash.message_name(from_ring)),
			DETAIL = 'The new nodes own the moved keys now, and the old ones still hold their rows.',
			HINT = format('Finish it with CALL chash_move_online(%L, %L, %L, %L).',
						  mv.from_ring, mv.to_ring, mv.relation::text, mv.key_column);
	END IF;
	deadline := clock_timestamp() + wait_timeout;
	shards := chash.move_reach(mv, false, wait_timeout, false, false);
	COMMIT;
	PERFORM pg_catalog.set_config('search_path', pin, true);
	ended := chash.move_lower_fences(mv, shards);
	PERFORM chash.move_drop_streams(mv, shards, deadline, NULL);
	FOR nd IN SELECT x.key AS node, x.value AS shard FROM jsonb_each(shards) x ORDER BY x.key LOOP
		IF NOT (nd.shard->>'missing')::boolean THEN
			PERFORM chash.move_drop_objects(mv, nd.node, nd.shard, true, deadline);
			IF (nd.shard->>'destination')::boolean THEN
				deleted := deleted + chash.move_delete_rows(mv, nd.shard, chash.move_node_ranges(mv.move_id, nd.node, false), false);
			END IF;
		END IF;
	END LOOP;
	DELETE FROM chash.online_moves m WHERE m.move_id = mv.move_id;
	RAISE NOTICE 'chash move %: aborted, % copied rows deleted%', mv.move_id, deleted,
		CASE WHEN mv.fenced_since IS NOT NULL
			 THEN format('; writes to moving keys had been refused for %s ms',
						 round(extract(epoch FROM coalesce(ended, mv.fenced_since) - mv.fenced_since)::numeric * 1000, 1))
			 ELSE '' END;
	PERFORM chash.move_disconnect();
END
$abort$;
COMMENT ON PROCEDURE chash_move_abort(text, interval) IS
	'removes an unfinished online move of a ring that has not switched it: every object it made on every shard, the rows it copied, and its record';

