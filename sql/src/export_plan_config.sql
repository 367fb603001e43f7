/*
 * chash_export_plan for the systems that load a whole configuration (nginx,
 * HAProxy's full backend, twemproxy, Envoy, the memcached clients): the step is
 * the new configuration, loaded as the system loads any (a reload, a
 * restart, a new client), which is safe to do again; then which part of
 * the keys changes server, and, given a relation of keys, which keys, so
 * that a cache can be warmed on their new servers first.
 */

-- Step 1: the configuration of to_ring (target: the format); step 2: per
-- pair of servers, the share of the hash space or the number of keys that
-- goes from one to the other (target: the new server); step 3, when
-- options name a relation and key_column: each key that changes server
-- (target: the new server, command: the key as text), from
-- chash_moved_keys.  The running configuration must be one of the format
-- too: from_ring is exported first, and refused as to_ring would be.
CREATE OR REPLACE FUNCTION chash.export_plan_config(from_ring text, to_ring text, format text, options jsonb)
	RETURNS TABLE(step integer, target text, command text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	export_options jsonb := options - 'relation' - 'key_column';
	relation regclass;
	key_column name;
	key_type text;
	config text;
	m record;
BEGIN
	IF options ? 'relation' OR options ? 'key_column' THEN
		IF NOT (options ? 'relation' AND options ? 'key_column')
		   OR pg_catalog.jsonb_typeof(options -> 'relation') <> 'string'
		   OR pg_catalog.jsonb_typeof(options -> 'key_column') <> 'string' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = 'options "relation" and "key_column" go together, as strings',
				HINT = 'Give both, as ''{"relation": "public.sessions", "key_column": "id"}'', or neither.';
		END IF;
		-- (the plan runs with search_path pg_catalog: a table is named with
		-- its schema)
		relation := pg_catalog.to_regclass(options ->> 'relation');
		IF relation IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_table',
				MESSAGE = format('relation "%s" does not exist', chash.message_name(options ->> 'relation')),
				HINT = 'Give the relation with its schema, as "public.sessions".';
		END IF;
		key_column := options ->> 'key_column';
		SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) INTO key_type
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation "%s" does not exist',
								 chash.message_name(key_column), chash.message_name(relation::text));
		END IF;
	END IF;
	PERFORM @extschema@.chash_export(from_ring, format, export_options);
	config := @extschema@.chash_export(to_ring, format, export_options);
	step := 1;
	target := format;
	command := config;
	RETURN NEXT;
	step := 2;
	IF relation IS NULL AND chash.plan_kind(from_ring, to_ring) <> 'ranges' THEN
		target := NULL;
		command := '# the rings place keys without ranges of the hash space: options relation and key_column list the keys that move';
		RETURN NEXT;
		RETURN;
	ELSIF relation IS NULL THEN
		FOR m IN
			SELECT s.from_node, s.to_node, s.fraction FROM @extschema@.chash_move_summary(from_ring, to_ring) s
			WHERE s.from_node IS DISTINCT FROM s.to_node AND s.fraction > 0
			ORDER BY s.to_node, s.from_node
		LOOP
			target := m.to_node;
			command := format('# %s%% of the hash space moves from %s to %s',
							  round((m.fraction * 100)::numeric, 4), coalesce(m.from_node, '(none)'), m.to_node);
			RETURN NEXT;
		END LOOP;
		RETURN;
	END IF;
	FOR m IN
		SELECT s.from_node, s.to_node, s.keys
		FROM @extschema@.chash_move_summary(from_ring, to_ring, relation, key_column) s
		WHERE s.from_node IS DISTINCT FROM s.to_node AND s.keys > 0
		ORDER BY s.to_node, s.from_node
	LOOP
		target := m.to_node;
		command := format('# %s keys move from %s to %s', m.keys, coalesce(m.from_node, '(none)'), m.to_node);
		RETURN NEXT;
	END LOOP;
	step := 3;
	FOR m IN EXECUTE format('SELECT k.key::text AS key, k.to_node FROM @extschema@.chash_moved_keys($1, $2, $3, $4)'
							' AS k(key %s, from_node text, to_node text) ORDER BY k.to_node, k.key', key_type)
		USING from_ring, to_ring, relation, key_column
	LOOP
		target := m.to_node;
		command := m.key;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash.export_plan_config(text, text, text, jsonb) IS
	'chash_export_plan of a format whose system loads a whole configuration: the new configuration, the share (or keys) moving per pair of servers, and with options relation and key_column each key that changes server';
