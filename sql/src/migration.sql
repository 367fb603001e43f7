-- A line of comment in a generated plan: names cannot end it early
CREATE OR REPLACE FUNCTION chash.plan_comment(message text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT '-- ' || regexp_replace(message, '[\r\n]+', ' ', 'g') $$;
COMMENT ON FUNCTION chash.plan_comment(text) IS
	'a comment line of a generated plan, with line breaks in names replaced';

-- A key hash in MySQL: crc32 and md5 (its first 4 bytes, little-endian)
CREATE OR REPLACE FUNCTION chash.mysql_key_hash(key_hash text, key_mysql text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE key_hash WHEN 'crc32' THEN format('CRC32(%s)', key_mysql)
	   WHEN 'md5' THEN format('CAST(CONV(HEX(REVERSE(UNHEX(LEFT(MD5(%s), 8)))), 16, 10) AS UNSIGNED)', key_mysql)
	   END
$$;
COMMENT ON FUNCTION chash.mysql_key_hash(text, text) IS
	'the MySQL expression of key hash crc32 or md5 of a key, NULL for other hashes';

CREATE OR REPLACE FUNCTION chash_migration_sql(from_ring text, to_ring text,
									relation regclass, key_column name,
									dialect text DEFAULT 'postgresql')
	RETURNS SETOF text
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
DECLARE
	key_type regtype := chash.key_column_type(relation, key_column);
	kind text := chash.plan_kind(from_ring, to_ring);
	key_hash text;
	ext text := quote_ident('@extschema@');
	relname name;
	hashed text;				-- the key's position, in the dialect
	chooses text;				-- how the statements choose the rows, for people
	by_keys boolean := false;	-- key lists: key by key in PostgreSQL, MySQL without the hash
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
	pair_no integer := 0;
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
	IF kind = 'ranges' THEN
		key_hash := chash.plan_key_hash(from_ring, to_ring);
		SELECT count(*), count(DISTINCT (r.from_node, r.to_node)), coalesce(sum(r.fraction), 0),
			   md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
		INTO nranges, npairs, fraction, fingerprint
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r;
	ELSE
		-- every pair of active nodes may move keys; the rings must be as planned
		SELECT count(*) INTO npairs
		FROM chash.node_config f, chash.node_config t
		WHERE f.ring = from_ring AND t.ring = to_ring AND f.state = 'active' AND t.state = 'active'
		  AND f.node <> t.node;
		fingerprint := md5(chash.routing_fingerprint(from_ring) || chash.routing_fingerprint(to_ring));
	END IF;

	IF dialect = 'postgresql' THEN
		IF kind = 'keys' THEN
			-- the keys the relation holds, each looked up in both rings; lists
			-- are what postgres_fdw can send to the shards
			by_keys := true;
			chooses := 'rows chosen by explicit key lists, each key looked up in both rings (keys written after the plan was made are not in them)';
		ELSE
			hashed := format('%s.chash_hash(%L, t.%s)', ext, key_hash,
							 chash.key_expr(key_column, key_type));
			chooses := format('rows chosen by %s in PostgreSQL', hashed);
		END IF;
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
		IF kind = 'keys' THEN
			-- each side as MySQL computes it (MOD() for modulo on identity,
			-- CRC32() and MD5() ranges, slots of MOD()), or key lists if
			-- either side cannot
			IF chash.mysql_node_rows(from_ring, NULL, key_mysql) IS NOT NULL AND
			   chash.mysql_node_rows(to_ring, NULL, key_mysql) IS NOT NULL THEN
				chooses := format('rows chosen by MySQL''s %s on ring "%s" and %s on ring "%s"',
								  chash.mysql_node_rows(from_ring, NULL, key_mysql), from_ring,
								  chash.mysql_node_rows(to_ring, NULL, key_mysql), to_ring);
			END IF;
			key_hash := format('of ring "%s" or "%s"', from_ring, to_ring);
		END IF;
		IF chooses IS NOT NULL THEN
			NULL;				-- key by key, as MySQL computes both rings
		ELSIF key_hash = 'crc32' THEN
			hashed := chash.mysql_key_hash(key_hash, key_mysql);
			chooses := format('rows chosen by MySQL''s %s, which is key hash crc32', hashed);
		ELSIF key_hash = 'md5' THEN
			hashed := chash.mysql_key_hash(key_hash, key_mysql);
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

	IF kind = 'ranges' THEN
		RETURN NEXT chash.plan_comment(format(
			'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: %s moving ranges in %s moves, %s%% of the hash space; %s',
			relation, quote_ident(key_column), from_ring, to_ring, dialect, nranges, npairs,
			round((fraction * 100)::numeric, 2), chooses));
	ELSE
		RETURN NEXT chash.plan_comment(format(
			'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: key by key (the rings do not compare by ranges), %s pairs of nodes; %s',
			relation, quote_ident(key_column), from_ring, to_ring, dialect, npairs, chooses));
	END IF;
	IF dialect = 'postgresql' AND kind = 'keys' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	-- the progress the batches' NOTICEs report, from here
	PERFORM set_config('chash_migration.started', extract(epoch FROM clock_timestamp())::text, false),
			set_config('chash_migration.rows', '0', false);
	IF md5(chash.routing_fingerprint(%1$L) || chash.routing_fingerprint(%2$L)) IS DISTINCT FROM %3$L THEN
		RAISE EXCEPTION 'chash migration: ring %% or ring %% has changed since this plan was made', %1$L, %2$L;
	END IF;
END
$g$, from_ring, to_ring, fingerprint)));
	ELSIF dialect = 'postgresql' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	-- the progress the batches' NOTICEs report, from here
	PERFORM set_config('chash_migration.started', extract(epoch FROM clock_timestamp())::text, false),
			set_config('chash_migration.rows', '0', false);
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

	FOR pair IN EXECUTE CASE WHEN kind = 'ranges' THEN $q$
		SELECT r.from_node, r.to_node, count(*) AS ranges, sum(r.fraction) AS fraction
		FROM @extschema@.chash_moved_ranges($1, $2) r
		GROUP BY r.from_node, r.to_node
		ORDER BY r.from_node, r.to_node$q$
	ELSE $q$
		SELECT f.node AS from_node, t.node AS to_node, NULL::bigint AS ranges,
			   NULL::double precision AS fraction
		FROM chash.node_config f, chash.node_config t
		WHERE f.ring = $1 AND t.ring = $2 AND f.state = 'active' AND t.state = 'active'
		  AND f.node <> t.node
		ORDER BY f.node, t.node$q$
	END
	USING from_ring, to_ring
	LOOP
		pair_no := pair_no + 1;
		src := chash.migration_target(from_ring, pair.from_node, relname, dialect);
		dst := chash.migration_target(to_ring, pair.to_node, relname, dialect);
		IF src = dst OR (dialect = 'postgresql' AND to_regclass(src) = to_regclass(dst)) THEN
			-- copying a table into itself and deleting would lose the rows
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" to node "%s": both in %s, nothing to move',
				pair.from_node, pair.to_node, src));
			CONTINUE;
		END IF;
		IF kind = 'ranges' THEN
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" (%s) to node "%s" (%s): %s ranges, %s%% of the hash space',
				pair.from_node, src, pair.to_node, dst, pair.ranges,
				round((pair.fraction * 100)::numeric, 2)));
		ELSE
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" (%s) to node "%s" (%s): the keys one ring places on the first and the other on the second',
				pair.from_node, src, pair.to_node, dst));
		END IF;

		FOR batch IN EXECUTE CASE WHEN kind = 'keys' AND NOT by_keys THEN
			'SELECT NULL::bigint[] AS los, NULL::bigint[] AS his, 1 AS batch, 1 AS batches'
		WHEN NOT by_keys THEN $q$
			SELECT array_agg(b.lo ORDER BY b.lo) AS los, array_agg(b.hi ORDER BY b.lo) AS his,
				   row_number() OVER (ORDER BY b.n) AS batch, count(*) OVER () AS batches
			FROM (SELECT r.lo, r.hi, (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$
		ELSE format($q$
			SELECT array_agg(b.key ORDER BY b.key) AS keys,
				   row_number() OVER (ORDER BY b.n) AS batch, count(*) OVER () AS batches
			FROM (SELECT m.key::text AS key, (row_number() OVER (ORDER BY m.key) - 1) / 1000 AS n
				  FROM @extschema@.chash_moved_keys($1, $2, %s::regclass, %L)
					   AS m(key %s, from_node text, to_node text)
				  WHERE m.from_node = $3 AND m.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, relation::oid, key_column, key_type)
		END
		USING from_ring, to_ring, pair.from_node, pair.to_node
		LOOP
			IF dialect = 'postgresql' THEN
				IF by_keys THEN
					pred := format('t.%I %s ANY (%L::%s[])', key_column, key_eq, batch.keys, key_type);
				ELSE
					pred := format('%s OPERATOR(pg_catalog.<@) ANY (%L::pg_catalog.int8range[])', hashed,
								   (SELECT array_agg(CASE WHEN hi = 9223372036854775807 THEN format('[%s,)', lo)
														  ELSE format('[%s,%s]', lo, hi) END ORDER BY lo)
									FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				END IF;
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
	started numeric := nullif(current_setting('chash_migration.started', true), '')::numeric;
	rows_so_far bigint := coalesce(nullif(current_setting('chash_migration.rows', true), '')::bigint, 0);
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
	rows_so_far := rows_so_far + moved;
	PERFORM set_config('chash_migration.rows', rows_so_far::text, false);
	RAISE NOTICE USING
		MESSAGE = format('chash migration: move %7$s of %8$s, batch %9$s of %10$s: %%s rows from %%s in %%s, checked; %%s rows so far',
						 moved, %5$L, %6$L, rows_so_far),
		DETAIL = format('%%s s since the plan began.',
						round(extract(epoch FROM clock_timestamp()) - coalesce(started, extract(epoch FROM clock_timestamp())), 1));
END
$v$, src, dst, pred, row_expr, src, dst, pair_no, npairs, batch.batch, batch.batches)));
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
				ELSIF kind = 'keys' THEN
					pred := chash.mysql_node_rows(from_ring, pair.from_node, key_mysql) || ' AND ' ||
							chash.mysql_node_rows(to_ring, pair.to_node, key_mysql);
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
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_migration_sql(text, text, regclass, name, text) IS
	'the statements that move a relation''s rows from the nodes of one ring to those of another (dialect postgresql or mysql): per batch, copy, then check and delete';

-- Helpers any role may call refuse NULLs, or give none, rather than
-- guess: a NULL dialect was MySQL's, a NULL key type a text key's
CREATE OR REPLACE FUNCTION chash.migration_target(ring text, node text, relname name, dialect text)
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	target text;
	parts text[];
BEGIN
	IF ring IS NULL OR node IS NULL OR relname IS NULL OR dialect IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, node, relname and dialect must not be null';
	END IF;
	IF dialect NOT IN ('postgresql', 'mysql') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown dialect "%s"', chash.message_name(dialect)),
			HINT = 'Valid dialects are "postgresql" and "mysql".';
	END IF;
	SELECT n.target INTO target FROM chash.node_config n
	WHERE n.ring = migration_target.ring AND n.node = migration_target.node;
	IF target IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" of ring "%s" has no target', chash.message_name(node), chash.message_name(ring)),
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
						 chash.message_name(target), chash.message_name(node), chash.message_name(ring)),
		HINT = CASE dialect WHEN 'postgresql' THEN 'A PostgreSQL target is a schema or a schema-qualified table.'
			   ELSE 'A MySQL target is a database or database.table.' END;
END
$$;
COMMENT ON FUNCTION chash.migration_target(text, text, name, text) IS
	'the table of a node''s rows in a migration, from its target; an error if it has none';

-- MySQL cannot compute a tagged key's hash the way chash does it:
-- the plans of tagged rings list their keys
CREATE OR REPLACE FUNCTION chash.mysql_node_rows(ring text, node text, key_mysql text) RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
	hashed text;
	slot text;
BEGIN
	IF ring IS NULL OR key_mysql IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and key_mysql must not be null';
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.table_size, c.hash_tag INTO r
	FROM chash.ring_config c WHERE c.ring = mysql_node_rows.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring));
	END IF;
	IF r.hash_tag IS NOT NULL THEN
		RETURN NULL;
	END IF;
	IF r.algorithm = 'modulo' AND r.key_hash = 'identity' THEN
		IF node IS NULL THEN
			RETURN format('MOD(%s, %s)', key_mysql, (SELECT count(*) FROM chash.placement_members(ring)));
		END IF;
		RETURN format('MOD(%s, %s) = %s', key_mysql,
					  (SELECT count(*) FROM chash.placement_members(ring)),
					  (SELECT m.member FROM chash.placement_members(ring) m WHERE m.node = mysql_node_rows.node));
	END IF;
	IF r.algorithm = 'slots' AND r.key_hash IN ('identity', 'crc32', 'md5') THEN
		slot := format('MOD(%s, %s)', CASE r.key_hash WHEN 'identity' THEN key_mysql
									  ELSE chash.mysql_key_hash(r.key_hash, key_mysql) END,
					   coalesce(r.table_size, 16384));
		IF node IS NULL THEN
			RETURN slot;
		END IF;
		-- INTERVAL() finds the slot among the ascending bounds of the
		-- node's slot ranges: an odd place is inside one
		RETURN coalesce(format('INTERVAL(%s, %s) %% 2 = 1', slot,
							   (SELECT string_agg(lower(x.slots) || ', ' || upper(x.slots), ', '
												  ORDER BY lower(x.slots))
								FROM @extschema@.chash_slot_ranges(ring) x
								WHERE x.node = mysql_node_rows.node)), 'FALSE');
	END IF;
	IF r.algorithm NOT IN ('ring', 'ketama') OR r.key_hash NOT IN ('crc32', 'md5') THEN
		RETURN NULL;
	END IF;
	hashed := chash.mysql_key_hash(r.key_hash, key_mysql);
	IF node IS NULL THEN
		RETURN hashed;
	END IF;
	-- INTERVAL() finds the hash among the ascending bounds lo, hi + 1 of the
	-- node's ranges: an odd place is inside one
	RETURN format('INTERVAL(%s, %s) %% 2 = 1', hashed,
				  (SELECT string_agg(x.lo || ', ' || (x.hi + 1), ', ' ORDER BY x.lo)
				   FROM chash.ring_node_ranges(ring) x WHERE x.node = mysql_node_rows.node));
END
$$;
COMMENT ON FUNCTION chash.mysql_node_rows(text, text, text) IS
	'the MySQL condition choosing the rows of a ring''s node (modulo on identity, crc32 and md5 rings, slots on identity, crc32 or md5; no tagged ring), NULL if MySQL cannot compute the ring';

