/* sql/chash--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.2'" to load this file. \quit

/*
 * 1.2: reliability.  Ring versions, so that a change to one ring costs no
 * other ring and is seen from the first snapshot that sees it; one trigger
 * function for every change, which PUBLIC may not execute and which checks
 * that it fires on these tables; every change, DELETE included, queued by
 * the ring-change lock and checked against the limits; limits on the
 * lengths of node names and templates; views that show a ring that cannot
 * be built instead of failing; one rule for NULL arguments.
 */

-- The old triggers and their functions: replaced by chash.catalog_trigger
DROP TRIGGER ring_config_invalidate_cache ON chash.ring_config;
DROP TRIGGER ring_config_invalidate_cache_truncate ON chash.ring_config;
DROP TRIGGER node_config_invalidate_cache ON chash.node_config;
DROP TRIGGER node_config_invalidate_cache_truncate ON chash.node_config;
DROP TRIGGER ring_config_check_size_before ON chash.ring_config;
DROP TRIGGER node_config_check_size_before ON chash.node_config;
DROP TRIGGER ring_config_check_size_insert ON chash.ring_config;
DROP TRIGGER ring_config_check_size_update ON chash.ring_config;
DROP TRIGGER node_config_check_size_insert ON chash.node_config;
DROP TRIGGER node_config_check_size_update ON chash.node_config;
DROP FUNCTION chash.invalidate_cache();
DROP FUNCTION chash.check_ring_size();

-- A ring's version names one configuration of it: the id of the
-- transaction that last changed it, which never comes back in a cluster
-- (see src/triggers.c).  The trigger sets it; 0 is a row it did not set.
ALTER TABLE chash.ring_config ADD COLUMN version bigint;
UPDATE chash.ring_config SET version = pg_catalog.txid_current();
ALTER TABLE chash.ring_config
	ALTER COLUMN version SET DEFAULT 0,
	ALTER COLUMN version SET NOT NULL;
COMMENT ON COLUMN chash.ring_config.version IS
	'the version of the ring''s configuration: the id of the transaction that last changed the ring or its nodes (kept by the catalog''s trigger; what is written here is replaced)';

-- Names and templates no longer than a btree entry or a build can take.
-- NOT VALID: rows of earlier versions stay as they are.
ALTER TABLE chash.node_config ADD CONSTRAINT node_config_node_length_check
	CHECK (pg_catalog.octet_length(node) OPERATOR(pg_catalog.<=) 1024) NOT VALID;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_vnode_name_length_check
	CHECK (pg_catalog.octet_length(vnode_name) OPERATOR(pg_catalog.<=) 256) NOT VALID;

/*
 * Every change to the catalog, through the functions or by plain DML,
 * passes the trigger: the ring-change lock before each statement, a new
 * version before each ring_config row, the checks and new versions of the
 * changed rings after each statement.  ALWAYS: also with
 * session_replication_role = replica.  A trigger function needs no EXECUTE
 * privilege to fire; PUBLIC may not execute it, so that no role can attach
 * it to a table of its own.
 */
CREATE FUNCTION chash.catalog_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'chash_catalog_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION chash.catalog_trigger() IS
	'trigger of chash''s catalog tables: the ring-change lock, ring versions, and the checks of every change';
REVOKE ALL ON FUNCTION chash.catalog_trigger() FROM PUBLIC;

CREATE TRIGGER ring_config_lock
	BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER ring_config_version
	BEFORE INSERT OR UPDATE ON chash.ring_config
	FOR EACH ROW EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER ring_config_check_insert
	AFTER INSERT ON chash.ring_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER ring_config_check_update
	AFTER UPDATE ON chash.ring_config
	REFERENCING OLD TABLE AS chash_old_rows NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER ring_config_changed
	AFTER DELETE OR TRUNCATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER node_config_lock
	BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER node_config_check_insert
	AFTER INSERT ON chash.node_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER node_config_check_update
	AFTER UPDATE ON chash.node_config
	REFERENCING OLD TABLE AS chash_old_rows NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER node_config_check_delete
	AFTER DELETE ON chash.node_config REFERENCING OLD TABLE AS chash_old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE TRIGGER node_config_changed
	AFTER TRUNCATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_lock;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_version;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_check_insert;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_check_update;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_changed;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_lock;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_insert;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_update;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_delete;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_changed;

-- The cache's figures for this backend
DROP FUNCTION chash.cache_stats();
CREATE FUNCTION chash.cache_stats()
	RETURNS TABLE(rings integer, cached integer, builds bigint,
				  version_reads bigint, config_reads bigint,
				  full_checks bigint, delta_checks bigint)
	AS 'MODULE_PATHNAME', 'chash_cache_stats_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION chash.cache_stats() IS
	'this backend''s ring cache and ring changes: ring names with a ring cached, rings cached (all versions), rings built, versions read, configurations read, changed rings checked by counting them whole and from the changed rows, since the backend started';

-- A name for a message: long ones cut, so that they do not flood the log
CREATE FUNCTION chash.message_name(name text)
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT CASE WHEN octet_length(name) > 64 THEN left(name, 64) || '...' ELSE name END $$;
COMMENT ON FUNCTION chash.message_name(text) IS
	'a name as error messages show it: its first 64 characters and "..." if longer';

/*
 * The views show every ring, one that cannot be built too (its points
 * NULL, the reason in chash.rings.problem).  The helpers catch the ring's
 * own errors in a subtransaction, so they cannot run in parallel mode.
 */
ALTER FUNCTION chash.ring_node_points(text) PARALLEL UNSAFE;
COMMENT ON FUNCTION chash.ring_node_points(text) IS
	'number of points of each node of a ring, from the cached ring; no rows if the ring cannot be built';
CREATE FUNCTION chash.ring_problem(ring text)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_ring_problem'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION chash.ring_problem(text) IS
	'why a ring cannot be built (the error its lookups raise), NULL if it can';

DROP VIEW chash.ring_balance;
DROP VIEW chash.rings;
CREATE OR REPLACE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points,
		   n.ordinal, n.target
	FROM chash.node_config n
	LEFT JOIN (SELECT r.ring, q.node, q.points
			   FROM chash.ring_config r
			   CROSS JOIN LATERAL chash.ring_node_points(r.ring) q) p
	  ON p.ring = n.ring AND p.node = n.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points (NULL if its ring cannot be built), place in the server list and target';

CREATE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   CASE WHEN pg_catalog.count(n.node) OPERATOR(pg_catalog.=) pg_catalog.count(n.points)
				THEN coalesce(pg_catalog.sum(n.points), 0)::bigint END AS points,
		   r.ketama_variant, r.ties, r.version,
		   chash.ring_problem(r.ring) AS problem
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points, its version, and why it cannot be built if it cannot';
GRANT SELECT ON chash.rings TO PUBLIC;

/*
 * NULL arguments: routing and hash functions are STRICT (a NULL key has no
 * owner); every other function raises null_value_not_allowed.  An empty
 * plan for a NULL ring would read as "nothing moves".
 */
ALTER FUNCTION chash_moved_ranges(text, text) CALLED ON NULL INPUT;
ALTER FUNCTION chash.ring_ranges(text, text) CALLED ON NULL INPUT;

CREATE OR REPLACE FUNCTION chash_move_summary(from_ring text, to_ring text)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT r.from_node, r.to_node, sum(r.fraction), NULL::bigint
FROM chash.ring_ranges(from_ring, to_ring) r
GROUP BY r.from_node, r.to_node
ORDER BY r.from_node, r.to_node
$$;

CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text, keys anyarray)
	RETURNS TABLE(key anyelement, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 100
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM chash.plan_key_hash(from_ring, to_ring);
	IF keys IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'keys must not be null';
	END IF;
	IF pg_typeof(keys) = 'bytea[]'::regtype THEN
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::bytea) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::bytea) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	ELSE
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::text) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::text) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	END IF;
END
$$;

-- Ownership: NULLs raise; a ring with no active node is an error, as for a
-- lookup, except for the pictures, which draw it
DROP FUNCTION chash.ring_ownership(text, integer);
CREATE FUNCTION chash.ring_ownership(ring text, replicas integer, require_active boolean)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer, boolean) IS
	'each node''s points, the fraction of the hash space whose keys it holds (each key held by its first replicas distinct nodes), and the fraction expected of it; with require_active, an error for a ring with no active node';

CREATE FUNCTION chash.ownership(ring text, replicas integer, require_active boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
-- A left join, so that chash.ring_ownership() runs, and raises its errors
-- (a NULL or unknown ring), whatever the plan: an inner join may never call
-- it, where node_config has no row of the ring (a hash join with nothing to
-- probe, or 18's planner seeing a NULL ring).  Every node it returns is in
-- node_config.
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(ownership.ring, ownership.replicas, ownership.require_active) o
LEFT JOIN chash.node_config n ON n.ring = ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash.ownership(text, integer, boolean) IS
	'chash_ownership, and with require_active false also for a ring with no active node';

CREATE OR REPLACE FUNCTION chash_ownership(ring text, replicas integer DEFAULT 1)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT * FROM chash.ownership(chash_ownership.ring, chash_ownership.replicas, true) $$;

ALTER FUNCTION chash_ring_stats(text) CALLED ON NULL INPUT;

-- Balance of every ring: NULL figures where a ring cannot be built or has
-- no active node, instead of an error
CREATE FUNCTION chash.balance(ring text)
	RETURNS TABLE(nodes integer, points integer, peak_to_mean double precision,
				  stddev double precision, min_ratio double precision, max_ratio double precision)
	LANGUAGE plpgsql STABLE STRICT PARALLEL UNSAFE ROWS 1
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF chash.ring_problem(ring) IS NOT NULL THEN
		RETURN;
	END IF;
	IF EXISTS (SELECT FROM chash.node_config n WHERE n.ring = balance.ring AND n.state = 'active') THEN
		RETURN QUERY SELECT * FROM @extschema@.chash_ring_stats(ring);
	ELSE
		-- as chash_ring_stats over no active node would say
		RETURN QUERY SELECT 0, 0, NULL::double precision, NULL::double precision,
							NULL::double precision, NULL::double precision;
	END IF;
END
$$;
COMMENT ON FUNCTION chash.balance(text) IS
	'chash_ring_stats of a ring for the view ring_balance: no row for a ring that cannot be built, no figures for one with no active node';

CREATE VIEW chash.ring_balance AS
	SELECT r.ring, r.algorithm, s.nodes, s.points, s.peak_to_mean, s.stddev,
		   s.min_ratio, s.max_ratio
	FROM chash.ring_config r
	LEFT JOIN LATERAL chash.balance(r.ring) s ON true;
COMMENT ON VIEW chash.ring_balance IS
	'one row a ring: its imbalance figures from exact ownership, for dashboards (NULL for a ring that cannot be built)';
GRANT SELECT ON chash.ring_balance TO PUBLIC;

/*
 * The views read the catalog as their caller, as routing does: from 15 on
 * they are security_invoker.  14 has no such views: there each view reads
 * through a function of the same query, since a function runs with its
 * caller's privileges and row-level security, where a view's own tables
 * are read as the view's owner.
 */
DO $$
DECLARE
	path text := pg_catalog.current_setting('search_path');
	v text;
	columns text;
	body text;
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
		ALTER VIEW chash.ring_balance SET (security_invoker = true);
		RETURN;
	END IF;
	-- every name of the queries qualified but pg_catalog's
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	FOREACH v IN ARRAY ARRAY['nodes', 'rings', 'ring_balance'] LOOP
		SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
								   pg_catalog.format_type(a.atttypid, a.atttypmod)),
								   ', ' ORDER BY a.attnum)
		INTO columns
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = pg_catalog.to_regclass('chash.' || v) AND a.attnum > 0;
		body := pg_catalog.pg_get_viewdef(pg_catalog.to_regclass('chash.' || v));
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION chash.%I() RETURNS TABLE(%s) LANGUAGE sql STABLE '
			'SET search_path = pg_catalog, pg_temp AS %L',
			v || '_as_caller', columns, body);
		EXECUTE pg_catalog.format(
			'COMMENT ON FUNCTION chash.%I() IS %L', v || '_as_caller',
			'the rows of the view chash.' || v || ' as the caller may read them (PostgreSQL 14)');
		EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW chash.%I AS SELECT * FROM chash.%I()',
								  v, v || '_as_caller');
	END LOOP;
	PERFORM pg_catalog.set_config('search_path', path, true);
END
$$;

-- Plans: long names cut in messages; no NaN nor infinite keys for MySQL
CREATE OR REPLACE FUNCTION chash.migration_target(ring text, node text, relname name, dialect text)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	target text;
	parts text[];
BEGIN
	SELECT n.target INTO target FROM chash.node_config n
	WHERE n.ring = migration_target.ring AND n.node = migration_target.node;
	IF target IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" of ring "%s" has no target', chash.message_name(node), ring),
			HINT = 'Say where its rows live with chash_node_set(ring, node, target => ...).';
	END IF;
	IF dialect = 'postgresql' THEN
		-- a schema, or a schema-qualified table, as SQL names them
		parts := parse_ident(target);
		IF cardinality(parts) = 1 THEN
			RETURN format('%I.%I', parts[1], relname);
		ELSIF cardinality(parts) = 2 THEN
			RETURN format('%I.%I', parts[1], parts[2]);
		END IF;
	ELSE
		-- MySQL: a database, or database.table
		parts := string_to_array(target, '.');
		IF cardinality(parts) = 1 THEN
			parts := parts || relname::text;
		END IF;
		IF cardinality(parts) = 2 AND parts[1] <> '' AND parts[2] <> '' THEN
			RETURN format('`%s`.`%s`', replace(parts[1], '`', '``'), replace(parts[2], '`', '``'));
		END IF;
	END IF;
	RAISE EXCEPTION USING
		ERRCODE = 'invalid_parameter_value',
		MESSAGE = format('target "%s" of node "%s" of ring "%s" is not a table',
						 chash.message_name(target), chash.message_name(node), ring),
		HINT = CASE dialect WHEN 'postgresql' THEN 'A PostgreSQL target is a schema or a schema-qualified table.'
			   ELSE 'A MySQL target is a database or database.table.' END;
END
$$;
COMMENT ON FUNCTION chash.migration_target(text, text, name, text) IS
	'the table of a node''s rows in a migration, from its target; an error if it has none';

CREATE OR REPLACE FUNCTION chash_migration_sql(from_ring text, to_ring text,
									relation regclass, key_column name,
									dialect text DEFAULT 'postgresql')
	RETURNS SETOF text
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_type regtype := chash.key_column_type(relation, key_column);
	key_hash text := chash.plan_key_hash(from_ring, to_ring);
	ext text := quote_ident('@extschema@');
	relname name;
	hashed text;				-- the key's position, in the dialect
	chooses text;				-- how the statements choose the rows, for people
	by_keys boolean := false;	-- MySQL without the key hash: key lists
	key_mysql text := format('`%s`', replace(key_column, '`', '``'));
	columns text;				-- the columns copied, quoted for the dialect
	row_expr text;				-- PostgreSQL: those columns of row t
	overriding text := '';
	key_eq text := 'OPERATOR(pg_catalog.=)';
	checksum text;
	fingerprint text;
	nranges bigint;
	npairs bigint;
	fraction double precision;
	pair record;
	batch record;
	src text;
	dst text;
	pred text;
	pin constant text := 'SET LOCAL search_path = pg_catalog, pg_temp;';
BEGIN
	IF dialect IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'dialect must not be null';
	END IF;
	IF dialect NOT IN ('postgresql', 'mysql') THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown dialect "%s"', chash.message_name(dialect)),
			HINT = 'Valid dialects are "postgresql" and "mysql".';
	END IF;
	SELECT c.relname INTO relname FROM pg_class c WHERE c.oid = relation;
	SELECT count(*), count(DISTINCT (r.from_node, r.to_node)), coalesce(sum(r.fraction), 0),
		   md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
	INTO nranges, npairs, fraction, fingerprint
	FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r;

	IF dialect = 'postgresql' THEN
		hashed := format('%s.chash_hash(%L, t.%s)', ext, key_hash,
						 chash.key_expr(key_column, key_type));
		chooses := format('rows chosen by %s in PostgreSQL', hashed);
		-- generated columns are computed again; identity ones copied as they are
		SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   string_agg('t.' || quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   CASE WHEN bool_or(a.attidentity = 'a') THEN ' OVERRIDING SYSTEM VALUE' ELSE '' END
		INTO columns, row_expr, overriding
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- the key type's own equality, wherever it lives
		SELECT format('OPERATOR(%I.=)', n.nspname) INTO key_eq
		FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
		WHERE o.oprname = '=' AND o.oprleft = key_type AND o.oprright = key_type
		LIMIT 1;
		key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');
	ELSE
		IF key_hash = 'crc32' THEN
			hashed := format('CRC32(%s)', key_mysql);
			chooses := format('rows chosen by MySQL''s %s, which is key hash crc32', hashed);
		ELSIF key_hash = 'md5' THEN
			-- the first four bytes of the digest, little-endian
			hashed := format('CAST(CONV(HEX(REVERSE(UNHEX(LEFT(MD5(%s), 8)))), 16, 10) AS UNSIGNED)', key_mysql);
			chooses := format('rows chosen by MySQL''s MD5(%s), the first four bytes little-endian, which is key hash md5',
							  key_mysql);
		ELSE
			by_keys := true;
			chooses := format('rows chosen by explicit key lists: MySQL cannot compute key hash %s', key_hash);
			IF key_type NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype,
								'text'::regtype, 'character varying'::regtype, 'character'::regtype) THEN
				RAISE EXCEPTION USING
					ERRCODE = 'feature_not_supported',
					MESSAGE = format('the mysql dialect cannot list keys of type %s', key_type),
					DETAIL = format('Key hash %s is not one MySQL computes, so the plan lists the keys.', key_hash),
					HINT = 'Key lists take integer, numeric and text keys; crc32 and md5 rings need no lists.';
			END IF;
		END IF;
		SELECT string_agg(format('`%s`', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum),
			   string_agg(format('QUOTE(`%s`)', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum)
		INTO columns, checksum
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- QUOTE() tells NULL from 'NULL' and keeps NULLs in place
		checksum := format('COALESCE(SUM(CRC32(CONCAT_WS(''|'', %s))), 0)', checksum);
	END IF;

	RETURN NEXT chash.plan_comment(format(
		'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: %s moving ranges in %s moves, %s%% of the hash space; %s',
		relation, quote_ident(key_column), from_ring, to_ring, dialect, nranges, npairs,
		round((fraction * 100)::numeric, 2), chooses));
	IF dialect = 'postgresql' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF (SELECT md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
		FROM %1$s.chash_moved_ranges(%2$L, %3$L) r) IS DISTINCT FROM %4$L THEN
		RAISE EXCEPTION 'chash migration: ring %% or ring %% has changed since this plan was made', %2$L, %3$L;
	END IF;
END
$g$, ext, from_ring, to_ring, fingerprint)));
	ELSE
		-- keys are hashed as UTF-8: key columns must be utf8mb4 (or ASCII)
		RETURN NEXT 'SET NAMES utf8mb4;';
	END IF;

	FOR pair IN
		SELECT r.from_node, r.to_node, count(*) AS ranges, sum(r.fraction) AS fraction
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r
		GROUP BY r.from_node, r.to_node
		ORDER BY r.from_node, r.to_node
	LOOP
		src := chash.migration_target(from_ring, pair.from_node, relname, dialect);
		dst := chash.migration_target(to_ring, pair.to_node, relname, dialect);
		IF src = dst OR (dialect = 'postgresql' AND to_regclass(src) = to_regclass(dst)) THEN
			-- copying a table into itself and deleting would lose the rows
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" to node "%s": both in %s, nothing to move',
				pair.from_node, pair.to_node, src));
			CONTINUE;
		END IF;
		RETURN NEXT chash.plan_comment(format(
			'from node "%s" (%s) to node "%s" (%s): %s ranges, %s%% of the hash space',
			pair.from_node, src, pair.to_node, dst, pair.ranges,
			round((pair.fraction * 100)::numeric, 2)));

		FOR batch IN EXECUTE CASE WHEN NOT by_keys THEN $q$
			SELECT array_agg(b.lo ORDER BY b.lo) AS los, array_agg(b.hi ORDER BY b.lo) AS his
			FROM (SELECT r.lo, r.hi, (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$
		ELSE format($q$
			SELECT array_agg(b.key ORDER BY b.key) AS keys
			FROM (SELECT m.key::text AS key, (row_number() OVER (ORDER BY m.key) - 1) / 1000 AS n
				  FROM @extschema@.chash_moved_keys($1, $2, %s::regclass, %L)
					   AS m(key %s, from_node text, to_node text)
				  WHERE m.from_node = $3 AND m.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, relation::oid, key_column, key_type)
		END
		USING from_ring, to_ring, pair.from_node, pair.to_node
		LOOP
			IF dialect = 'postgresql' THEN
				pred := format('%s OPERATOR(pg_catalog.<@) ANY (%L::pg_catalog.int8range[])', hashed,
							   (SELECT array_agg(CASE WHEN hi = 9223372036854775807 THEN format('[%s,)', lo)
													  ELSE format('[%s,%s]', lo, hi) END ORDER BY lo)
								FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				/*
				 * Copy, commit; then check and delete, commit.  Foreign
				 * servers commit one after the other, so each transaction
				 * writes to one of them only: a failure leaves rows on both
				 * sides at worst, never on neither, and the plan run again
				 * copies nothing twice (keys already there are skipped).
				 * The second transaction is REPEATABLE READ, so that it
				 * deletes no row it did not check.
				 */
				RETURN NEXT 'BEGIN;';
				RETURN NEXT pin;
				RETURN NEXT format('INSERT INTO %1$s (%3$s)%4$s SELECT %3$s FROM %2$s t WHERE %5$s'
								   ' AND NOT EXISTS (SELECT 1 FROM %1$s d WHERE d.%6$I %7$s t.%6$I);',
								   dst, src, columns, overriding, pred, key_column, key_eq);
				RETURN NEXT 'COMMIT;';
				RETURN NEXT 'BEGIN ISOLATION LEVEL REPEATABLE READ;';
				RETURN NEXT pin;
				RETURN NEXT format('DO %s;', chash.dollar_quote(format($v$
DECLARE
	moved bigint;
	copied bigint;
	moved_sum numeric;
	copied_sum numeric;
BEGIN
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO moved, moved_sum FROM %1$s t WHERE %3$s;
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO copied, copied_sum FROM %2$s t WHERE %3$s;
	-- nothing left to move (a plan run again) is no error
	IF moved > 0 AND (moved <> copied OR moved_sum <> copied_sum) THEN
		RAISE EXCEPTION 'chash migration: %% rows (checksum %%) in %%, but %% rows (checksum %%) in %%',
			moved, moved_sum, %5$L, copied, copied_sum, %6$L;
	END IF;
	RAISE NOTICE 'chash migration: %% rows from %% in %%, checked', moved, %5$L, %6$L;
END
$v$, src, dst, pred, row_expr, src, dst)));
				RETURN NEXT format('DELETE FROM %s t WHERE %s;', src, pred);
				RETURN NEXT 'COMMIT;';
			ELSE
				IF by_keys THEN
					-- numbers as they are; text as the hex of its UTF-8 bytes,
					-- compared as bytes: exact whatever the SQL mode or collation
					IF key_type IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype) THEN
						-- MySQL has no numeric NaN nor infinity: as bare words they
						-- would be column names
						IF key_type = 'numeric'::regtype AND EXISTS (
								SELECT FROM unnest(batch.keys) AS k
								WHERE k IN ('NaN', 'Infinity', '-Infinity')) THEN
							RAISE EXCEPTION USING
								ERRCODE = 'invalid_parameter_value',
								MESSAGE = format('the mysql dialect cannot write key %s of column %s',
												 (SELECT k FROM unnest(batch.keys) AS k
												  WHERE k IN ('NaN', 'Infinity', '-Infinity') LIMIT 1),
												 quote_ident(key_column)),
								DETAIL = 'MySQL has no numeric NaN nor infinity, so such a key can be neither listed nor stored.',
								HINT = 'Move or delete the rows with such keys first.';
						END IF;
						pred := format('%s IN (%s)', key_mysql, array_to_string(batch.keys, ', '));
					ELSE
						pred := format('CAST(%s AS BINARY) IN (%s)', key_mysql,
									   (SELECT string_agg(format('X''%s''', encode(convert_to(k, 'UTF8'), 'hex')), ', ')
										FROM unnest(batch.keys) AS k));
					END IF;
				ELSE
					-- one hash a row: INTERVAL() finds it among the ascending
					-- bounds lo, hi + 1 of the ranges; an odd place is inside one
					pred := format('INTERVAL(%s, %s) %% 2 = 1', hashed,
								   (SELECT string_agg(lo || ', ' || (hi + 1), ', ' ORDER BY lo)
									FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				END IF;
				RETURN NEXT 'START TRANSACTION;';
				RETURN NEXT format('INSERT INTO %1$s (%3$s) SELECT %3$s FROM %2$s WHERE (%4$s);',
								   dst, src, columns, pred);
				RETURN NEXT chash.plan_comment('check: fails with "Subquery returns more than 1 row" if the copies differ; do not run plans with --force');
				RETURN NEXT format('SELECT (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE NOT ('
								   'NOT EXISTS (SELECT 1 FROM %1$s WHERE (%3$s)) OR '
								   '(SELECT COUNT(*), %4$s FROM %1$s WHERE (%3$s)) = (SELECT COUNT(*), %4$s FROM %2$s WHERE (%3$s))'
								   ')) AS chash_check;',
								   src, dst, pred, checksum);
				RETURN NEXT format('DELETE FROM %s WHERE (%s);', src, pred);
				RETURN NEXT 'COMMIT;';
			END IF;
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash_migration_sql(text, text, regclass, name, text) IS
	'the statements that move a relation''s rows from the nodes of one ring to those of another (dialect postgresql or mysql): per batch, copy, then check and delete';

CREATE OR REPLACE FUNCTION chash_ring_svg(ring text, width integer DEFAULT 640)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	size double precision;		-- the square the circle is drawn in
	radius double precision;
	cx double precision;
	cy double precision;
	nnodes integer;
	height integer;
	body text;
BEGIN
	IF ring IS NULL OR width IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = CASE WHEN ring IS NULL THEN 'ring must not be null' ELSE 'width must not be null' END;
	END IF;
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	size := round(width * 0.55);
	radius := size * 0.38;
	cx := size / 2;
	cy := size / 2 + 24;
	SELECT count(*) INTO nnodes FROM chash.ownership(ring, 1, false);
	height := greatest(size + 36, 56 + 20 * nnodes)::integer;

	WITH nodes AS (
		SELECT o.node, o.state, o.owned, o.expected, o.ordinality::integer - 1 AS k
		FROM chash.ownership(ring, 1, false) WITH ORDINALITY o),
	-- the circle in 1440 slices (a quarter of a degree), each drawn in the
	-- colour of the node that owns most of it: the picture's size does not
	-- grow with the ring's points
	cover AS (
		SELECT b.b, a.node,
			   least(a.stop, (b.b + 1) / 1440.0) - greatest(a.start, b.b / 1440.0) AS len
		FROM chash.ring_arcs(ring) a
		CROSS JOIN LATERAL generate_series(floor(a.start * 1440)::integer,
										   least(ceil(a.stop * 1440)::integer - 1, 1439)) b(b)),
	slices AS (
		SELECT DISTINCT ON (c.b) c.b, c.node
		FROM cover c ORDER BY c.b, c.len DESC, c.node),
	runs AS (
		SELECT r.node, min(r.b) / 1440.0 AS start, (max(r.b) + 1) / 1440.0 AS stop
		FROM (SELECT sl.b, sl.node, sl.b - row_number() OVER (PARTITION BY sl.node ORDER BY sl.b) AS grp
			  FROM slices sl) r
		GROUP BY r.node, r.grp),
	arcs AS (
		-- an arc over half the circle is drawn as two halves, so that its
		-- ends are apart
		SELECT r.node, h.start, h.stop
		FROM runs r
		CROSS JOIN LATERAL (
			SELECT r.start, CASE WHEN r.stop - r.start > 0.5 THEN (r.start + r.stop) / 2 ELSE r.stop END
			UNION ALL
			SELECT (r.start + r.stop) / 2, r.stop WHERE r.stop - r.start > 0.5) h(start, stop)),
	paths AS (
		SELECT n.k, string_agg(format('M %s %s A %s %s 0 %s 1 %s %s',
									  round((cx + radius * sin(2 * pi() * a.start))::numeric, 2),
									  round((cy - radius * cos(2 * pi() * a.start))::numeric, 2),
									  radius, radius,
									  0,
									  round((cx + radius * sin(2 * pi() * a.stop))::numeric, 2),
									  round((cy - radius * cos(2 * pi() * a.stop))::numeric, 2)),
							   ' ' ORDER BY a.start) AS d
		FROM arcs a JOIN nodes n USING (node)
		GROUP BY n.k)
	SELECT concat_ws(E'\n',
		format('<text x="%s" y="18" font-size="14" font-weight="bold">ring %s</text>',
			   12, chash.svg_text(ring)),
		format('<circle cx="%s" cy="%s" r="%s" fill="none" stroke="#dddddd" stroke-width="%s"/>',
			   cx, cy, radius, round((size * 0.09)::numeric, 2)),
		(SELECT string_agg(format('<path d="%s" fill="none" stroke="%s" stroke-width="%s"/>',
								  p.d, chash.svg_color(p.k), round((size * 0.09)::numeric, 2)),
						   E'\n' ORDER BY p.k)
		 FROM paths p),
		format('<text x="%s" y="%s" text-anchor="middle" fill="#555555">0</text>',
			   cx, round((cy - radius - size * 0.06)::numeric, 2)),
		format('<text x="%s" y="40" font-weight="bold">node</text>', size + 12),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">owned</text>', width - 84),
		format('<text x="%s" y="40" font-weight="bold" text-anchor="end">expected</text>', width - 12),
		(SELECT string_agg(concat_ws(E'\n',
					format('<rect x="%s" y="%s" width="12" height="12" fill="%s"/>',
						   size + 12, 48 + 20 * n.k, chash.svg_color(n.k)),
					format('<text x="%s" y="%s">%s%s</text>', size + 30, 58 + 20 * n.k,
						   chash.svg_text(n.node), CASE WHEN n.state = 'down' THEN ' (down)' ELSE '' END),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 84, 58 + 20 * n.k,
						   round((100 * n.owned)::numeric, 2)),
					format('<text x="%s" y="%s" text-anchor="end">%s%%</text>', width - 12, 58 + 20 * n.k,
						   round((100 * n.expected)::numeric, 2))),
						   E'\n' ORDER BY n.k)
		 FROM nodes n))
	INTO body;
	RETURN chash.svg_document(width, height, format('chash ring %s', ring), body);
END
$$;
COMMENT ON FUNCTION chash_ring_svg(text, integer) IS
	'an SVG 1.1 picture of a ring: each node''s arcs in its own colour, with a legend of owned and expected shares';

CREATE OR REPLACE FUNCTION chash_ownership_svg(ring text, width integer DEFAULT 640)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	label_width integer;
	bar_width double precision;
	top double precision;
	nnodes integer;
	body text;
BEGIN
	IF ring IS NULL OR width IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = CASE WHEN ring IS NULL THEN 'ring must not be null' ELSE 'width must not be null' END;
	END IF;
	IF width < 200 OR width > 10000 THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'width must be between 200 and 10000',
			DETAIL = format('width is %s.', width);
	END IF;
	label_width := round(width * 0.3);
	bar_width := width - label_width - 70;
	SELECT count(*), greatest(max(o.owned), max(o.expected), 1e-9)
	INTO nnodes, top
	FROM chash.ownership(ring, 1, false) o;

	SELECT concat_ws(E'\n',
		format('<text x="12" y="18" font-size="14" font-weight="bold">ring %s: owned (bar) and expected (line) share of the hash space</text>',
			   chash.svg_text(ring)),
		(SELECT string_agg(concat_ws(E'\n',
					format('<text x="%s" y="%s" text-anchor="end">%s</text>', label_width - 6,
						   46 + 24 * (o.ordinality - 1), chash.svg_text(o.node)),
					format('<rect x="%s" y="%s" width="%s" height="14" fill="%s"/>', label_width,
						   35 + 24 * (o.ordinality - 1),
						   round((bar_width * o.owned / top)::numeric, 2), chash.svg_color((o.ordinality - 1)::integer)),
					format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000000" stroke-width="2"/>',
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 31 + 24 * (o.ordinality - 1),
						   round((label_width + bar_width * o.expected / top)::numeric, 2), 53 + 24 * (o.ordinality - 1)),
					format('<text x="%s" y="%s">%s%%</text>',
						   round((label_width + bar_width * greatest(o.owned, o.expected) / top + 6)::numeric, 2),
						   46 + 24 * (o.ordinality - 1), round((100 * o.owned)::numeric, 2))),
						   E'\n' ORDER BY o.ordinality)
		 FROM chash.ownership(ring, 1, false) WITH ORDINALITY o))
	INTO body;
	RETURN chash.svg_document(width, (40 + 24 * nnodes + 12)::integer,
							  format('chash ownership of ring %s', ring), body);
END
$$;
COMMENT ON FUNCTION chash_ownership_svg(text, integer) IS
	'an SVG 1.1 bar chart of each node''s owned share of the hash space against its expected share';
