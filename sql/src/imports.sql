-- A ring filled from a system's own description of its cluster
-- The privileges a change of rings needs, checked before anything is read:
-- an error naming what the action (a sentence's subject: "An import")
-- needs, unless the current role has each privilege on the catalog tables
CREATE OR REPLACE FUNCTION chash.check_ring_privileges(ring text, action text,
														ring_config text[], node_config text[])
	RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	needs text[];
BEGIN
	IF ring IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring must not be null';
	END IF;
	IF action IS NULL OR ring_config IS NULL OR node_config IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'action, ring_config and node_config must not be null';
	END IF;
	IF EXISTS (SELECT FROM unnest(ring_config) p WHERE NOT has_table_privilege('chash.ring_config', p))
	   OR EXISTS (SELECT FROM unnest(node_config) p WHERE NOT has_table_privilege('chash.node_config', p)) THEN
		-- "INSERT, UPDATE and DELETE privileges on table chash.node_config"
		SELECT array_agg(format('%s privileges on table chash.%s',
								regexp_replace(array_to_string(t.privs, ', '), ', ([^,]*)$', ' and \1'), t.name)
						 ORDER BY t.ord)
		INTO needs
		FROM (VALUES (1, 'ring_config', ring_config), (2, 'node_config', node_config)) t(ord, name, privs)
		WHERE cardinality(t.privs) > 0;
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('permission denied to change ring "%s"', chash.message_name(ring)),
			DETAIL = format('%s needs %s.', action, array_to_string(needs, ', and ')),
			HINT = 'Rings are changed by the owner of the chash extension, or by roles it grants these privileges to.';
	END IF;
END
$$;
COMMENT ON FUNCTION chash.check_ring_privileges(text, text, text[], text[]) IS
	'an error, naming what the action needs, unless the current role has the given privileges on chash.ring_config and chash.node_config';

-- The privilege an import needs, checked before its input is read: a role
-- that may not change the ring learns nothing of the input, and costs no
-- parse of it.  chash_ring_import and each helper it calls (which PUBLIC
-- may execute, as the helpers run with the caller's rights) check it.
CREATE OR REPLACE FUNCTION chash.check_import_privilege(ring text)
	RETURNS void
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT chash.check_ring_privileges(ring, 'An import', '{}', '{INSERT,UPDATE,DELETE}')
$$;
COMMENT ON FUNCTION chash.check_import_privilege(text) IS
	'an error unless the current role may import into a ring (INSERT, UPDATE and DELETE on chash.node_config)';

-- The checks of an import of a Redis cluster's slots: a ring of 16384
-- slots that hashes keys as Redis does
CREATE OR REPLACE FUNCTION chash.check_redis_ring(ring text, format text)
	RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
BEGIN
	IF ring IS NULL OR format IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and format must not be null';
	END IF;
	SELECT c.algorithm, c.table_size, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO cfg
	FROM chash.ring_config c WHERE c.ring = check_redis_ring.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create(ring, profile => ''redis_cluster'').';
	END IF;
	IF cfg.algorithm <> 'slots' OR coalesce(cfg.table_size, 16384) <> 16384 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" is not a ring of 16384 slots', chash.message_name(ring)),
			DETAIL = format('Format "%s" gives the slots of a Redis cluster; ring "%s" uses algorithm "%s"%s.',
							format, chash.message_name(ring), cfg.algorithm,
							CASE WHEN cfg.algorithm = 'slots' THEN format(' with %s slots', cfg.table_size) ELSE '' END),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''redis_cluster'').';
	END IF;

	IF cfg.key_hash <> 'crc16' OR cfg.hash_tag IS DISTINCT FROM '{}' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not hash keys as Redis Cluster does', chash.message_name(ring)),
			DETAIL = format('Redis Cluster hashes keys with crc16 and the hash tag "{}"; ring "%s" with "%s" and %s.',
							chash.message_name(ring), cfg.key_hash, coalesce('"' || cfg.hash_tag || '"', 'no hash tag')),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''redis_cluster'').';
	END IF;
END
$$;
COMMENT ON FUNCTION chash.check_redis_ring(text, text) IS
	'an error unless a ring can take the slots of a Redis cluster';

-- The masters of a Redis cluster, with their states and slot ranges, as a
-- ring's nodes: nodes that stay keep their weight, zone, target and
-- capacity.  One statement each: the ring is checked after each, whole.
CREATE OR REPLACE FUNCTION chash.replace_redis_masters(ring text, names text[], states text[],
											slot_lists text[])
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF ring IS NULL OR names IS NULL OR states IS NULL OR slot_lists IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, names, states and slot_lists must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	IF cardinality(states) <> cardinality(names) OR cardinality(slot_lists) <> cardinality(names) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'names, states and slot_lists must have as many elements',
			DETAIL = format('names has %s, states %s and slot_lists %s.',
							cardinality(names), cardinality(states), cardinality(slot_lists));
	END IF;
	DELETE FROM chash.node_config n
	WHERE n.ring = replace_redis_masters.ring
	  AND NOT EXISTS (SELECT FROM unnest(names) AS m(node) WHERE m.node = n.node);
	INSERT INTO chash.node_config AS n (ring, node, state, slots)
	SELECT replace_redis_masters.ring, m.node, m.state, m.slots::int4range[]
	FROM unnest(names, states, slot_lists) WITH ORDINALITY AS m(node, state, slots, k)
	ORDER BY m.k
	ON CONFLICT ON CONSTRAINT node_config_pkey
	DO UPDATE SET state = excluded.state, slots = excluded.slots;
	RETURN pg_catalog.cardinality(names);
END
$$;
COMMENT ON FUNCTION chash.replace_redis_masters(text, text[], text[], text[]) IS
	'make the masters of a Redis cluster, with their states and slots, a ring''s nodes';

CREATE OR REPLACE FUNCTION chash.import_redis_cluster_nodes(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	line record;
	f text[];
	flags text[];
	name text;
	entry text;
	lo integer;
	hi integer;
	ranges text[];
	names text[] := '{}';
	states text[] := '{}';
	slot_lists text[] := '{}';
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	PERFORM chash.check_redis_ring(ring, 'redis_cluster_nodes');

	-- one line a node: id address flags master ping-sent pong-recv
	-- config-epoch link-state slot...; masters only
	FOR line IN
		SELECT l.text, l.n
		FROM pg_catalog.regexp_split_to_table(input, E'\n') WITH ORDINALITY AS l(text, n)
		WHERE pg_catalog.btrim(l.text, E' \t\r') <> ''
	LOOP
		f := pg_catalog.regexp_split_to_array(pg_catalog.btrim(line.text, E' \t\r'), E'[ \t]+');
		IF pg_catalog.cardinality(f) < 8 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('line %s is not a line of CLUSTER NODES', line.n),
				DETAIL = format('A line has the fields id, address, flags, master, ping-sent, pong-recv, config-epoch, link-state and its slots; line %s has %s fields.',
								line.n, pg_catalog.cardinality(f));
		END IF;
		flags := pg_catalog.string_to_array(f[3], ',');
		CONTINUE WHEN NOT 'master' = ANY (flags) OR 'handshake' = ANY (flags);
		-- ip:port@cport, and ,hostname after it in later versions
		name := pg_catalog.split_part(pg_catalog.split_part(f[2], '@', 1), ',', 1);
		IF 'noaddr' = ANY (flags)
		   OR (CASE WHEN name ~ '^.+:[0-9]{1,5}$' THEN substring(name FROM ':([0-9]+)$')::integer NOT BETWEEN 1 AND 65535
					ELSE true END) THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s on line %s has no valid address', chash.message_name(f[1]), line.n),
				DETAIL = format('Its address is "%s"; an address is host:port, the port from 1 to 65535.', chash.message_name(f[2])),
				HINT = 'A node that does not know its own address shows ":port"; take CLUSTER NODES from another node of the cluster.';
		END IF;
		-- the address is the node's name: one a client could connect to,
		-- spelt one way only
		IF name ~ ':0[0-9]*$' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s on line %s has no valid address', chash.message_name(f[1]), line.n),
				DETAIL = format('Its address is "%s"; a port is written without leading zeros.', chash.message_name(f[2]));
		ELSIF name ~ '[[:cntrl:]]' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s on line %s has no valid address', chash.message_name(f[1]), line.n),
				DETAIL = 'Its address holds a control character.';
		ELSIF pg_catalog.octet_length(name) > 1024 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the address on line %s is too long for a node name', line.n),
				DETAIL = format('It is %s bytes long; node names are at most 1024 bytes.', pg_catalog.octet_length(name));
		END IF;
		ranges := '{}';
		FOR i IN 9 .. pg_catalog.cardinality(f) LOOP
			entry := f[i];
			-- [slot->-id] and [slot-<-id]: a slot on the move, still its owner's
			CONTINUE WHEN entry LIKE '[%';
			IF entry ~ '^[0-9]{1,5}$' THEN
				lo := entry::integer;
				hi := lo;
			ELSIF entry ~ '^[0-9]{1,5}-[0-9]{1,5}$' THEN
				lo := pg_catalog.split_part(entry, '-', 1)::integer;
				hi := pg_catalog.split_part(entry, '-', 2)::integer;
			ELSE
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('"%s" on line %s is not a slot or a range of slots', chash.message_name(entry), line.n);
			END IF;
			IF lo > hi OR hi > 16383 THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('slot range %s on line %s is not within 0-16383', entry, line.n);
			END IF;
			ranges := ranges || pg_catalog.int4range(lo, hi, '[]')::text;
		END LOOP;
		names := names || name;
		-- a failed master's slots are nobody's: Redis refuses their keys
		states := states || CASE WHEN 'fail' = ANY (flags) THEN 'down' ELSE 'active' END;
		slot_lists := slot_lists || ranges::text;
	END LOOP;
	IF pg_catalog.cardinality(names) = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input names no master',
			HINT = 'Give the whole output of CLUSTER NODES.';
	END IF;

	-- duplicates found in one pass, not one search of the names per line
	SELECT d.n INTO name FROM unnest(names) AS d(n) GROUP BY d.n HAVING count(*) > 1 ORDER BY d.n LIMIT 1;
	IF name IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('master %s appears twice in the input', chash.message_name(name));
	END IF;
	RETURN chash.replace_redis_masters(ring, names, states, slot_lists);
END
$$;
COMMENT ON FUNCTION chash.import_redis_cluster_nodes(text, text) IS
	'chash_ring_import of format redis_cluster_nodes';

-- A RESP map as redis-cli --json shows it: an object (RESP3), or an array
-- of keys and values (RESP2, redis-cli -2 --json); NULL if neither
CREATE OR REPLACE FUNCTION chash.resp_map(v jsonb) RETURNS jsonb
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE
	WHEN jsonb_typeof(v) = 'object' THEN v
	WHEN jsonb_typeof(v) = 'array' AND jsonb_array_length(v) % 2 = 0 AND
		 NOT EXISTS (SELECT FROM jsonb_array_elements(v) WITH ORDINALITY e(x, i)
					 WHERE i % 2 = 1 AND jsonb_typeof(x) <> 'string') AND
		 -- a key given twice is no map: which value would count?
		 (SELECT count(*) = count(DISTINCT x) FROM jsonb_array_elements(v) WITH ORDINALITY e(x, i)
		  WHERE i % 2 = 1) THEN
		coalesce((SELECT jsonb_object_agg(k.x #>> '{}', e.x)
				  FROM jsonb_array_elements(v) WITH ORDINALITY k(x, i)
				  JOIN jsonb_array_elements(v) WITH ORDINALITY e(x, j) ON j = i + 1
				  WHERE i % 2 = 1), '{}'::jsonb)
END
$$;
COMMENT ON FUNCTION chash.resp_map(jsonb) IS
	'a RESP map shown by redis-cli --json (an object, or an array of keys and values), as an object';

CREATE OR REPLACE FUNCTION chash.import_redis_cluster_shards(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	doc jsonb;
	dup record;
	shard record;
	node jsonb;
	slots jsonb;
	master jsonb;
	port text;
	name text;
	ranges text[];
	names text[] := '{}';
	states text[] := '{}';
	slot_lists text[] := '{}';
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	PERFORM chash.check_redis_ring(ring, 'redis_cluster_shards');
	BEGIN
		doc := input::jsonb;
	EXCEPTION WHEN invalid_text_representation OR untranslatable_character OR character_not_in_repertoire THEN
		-- jsonb refuses \u0000 and escapes the database encoding lacks
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the input is not JSON',
			DETAIL = format('PostgreSQL says: %s', SQLERRM),
			HINT = 'Give the output of redis-cli --json CLUSTER SHARDS.';
	END;
	IF jsonb_typeof(doc) <> 'array' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input is not a list of shards',
			HINT = 'Give the output of redis-cli --json CLUSTER SHARDS.';
	END IF;
	-- jsonb keeps the last of a key given twice in an object: the text of
	-- the input (json) still has both, in the shards and in their nodes
	-- (the RESP2 form's arrays of keys and values: chash.resp_map)
	FOR dup IN
		WITH s AS (
			SELECT e.x, e.i FROM json_array_elements(input::json) WITH ORDINALITY e(x, i)
		), o AS (
			SELECT s.i, 0::bigint AS j, s.x FROM s WHERE json_typeof(s.x) = 'object'
			UNION ALL
			SELECT s.i, n.j, n.x
			FROM s, json_array_elements(
					CASE WHEN json_typeof(s.x) = 'object' AND json_typeof(s.x -> 'nodes') = 'array' THEN s.x -> 'nodes'
						 WHEN json_typeof(s.x) = 'array' THEN
							 coalesce((SELECT v.x FROM json_array_elements(s.x) WITH ORDINALITY k(x, i)
									   JOIN json_array_elements(s.x) WITH ORDINALITY v(x, j) ON v.j = k.i + 1
									   WHERE k.i % 2 = 1 AND json_typeof(k.x) = 'string' AND k.x #>> '{}' = 'nodes'
										 AND json_typeof(v.x) = 'array'
									   ORDER BY k.i LIMIT 1), '[]')
						 ELSE '[]' END) WITH ORDINALITY n(x, j)
			WHERE json_typeof(n.x) = 'object'
		)
		SELECT o.i, o.j, k.key
		FROM o, json_object_keys(o.x) k(key)
		GROUP BY o.i, o.j, k.key HAVING count(*) > 1
		ORDER BY o.i, o.j, k.key LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = CASE WHEN dup.j = 0 THEN format('shard %s of the input gives key "%s" twice', dup.i, chash.message_name(dup.key))
						   ELSE format('node %s of shard %s of the input gives key "%s" twice', dup.j, dup.i, chash.message_name(dup.key)) END,
			DETAIL = 'A key of CLUSTER SHARDS has one value.';
	END LOOP;
	-- one shard each: its slots (pairs of first and last) and its nodes;
	-- its master owns them
	FOR shard IN
		SELECT chash.resp_map(e.x) AS m, e.i
		FROM jsonb_array_elements(doc) WITH ORDINALITY e(x, i)
	LOOP
		slots := shard.m -> 'slots';
		IF shard.m IS NULL OR jsonb_typeof(slots) IS DISTINCT FROM 'array' OR
		   jsonb_typeof(shard.m -> 'nodes') IS DISTINCT FROM 'array' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('shard %s of the input is not one of CLUSTER SHARDS', shard.i),
				DETAIL = 'A shard has its "slots" and its "nodes", each key once.';
		END IF;
		master := NULL;
		FOR node IN SELECT chash.resp_map(n.x) FROM jsonb_array_elements(shard.m -> 'nodes') n(x) LOOP
			IF node IS NULL OR node ->> 'role' IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('a node of shard %s of the input is not one of CLUSTER SHARDS', shard.i),
					DETAIL = 'A node has its "id", "ip", "port", "role" and "health", each key once.';
			END IF;
			CONTINUE WHEN node ->> 'role' <> 'master';
			IF master IS NOT NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('shard %s of the input has two masters', shard.i);
			END IF;
			master := node;
		END LOOP;
		-- a shard of replicas alone, as while a failover goes on, owns nothing here
		CONTINUE WHEN master IS NULL;
		port := coalesce(master ->> 'port', master ->> 'tls-port');
		name := (master ->> 'ip') || ':' || port;
		IF jsonb_typeof(master -> 'ip') IS DISTINCT FROM 'string' OR coalesce(master ->> 'ip', '') IN ('', '?')
		   OR (CASE WHEN coalesce(port, '') ~ '^[0-9]{1,5}$' THEN port::integer NOT BETWEEN 1 AND 65535 ELSE true END)
		   OR pg_catalog.length(master ->> 'ip') > 1024 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the master of shard %s of the input has no valid address', shard.i),
				DETAIL = format('Its ip is %s and its port %s; an ip is a string, a port from 1 to 65535.', coalesce('"' || chash.message_name(master ->> 'ip') || '"', 'missing'),
								coalesce(chash.message_name(port), 'missing'));
		END IF;
		-- the address is the node's name: one a client could connect to,
		-- spelt one way only
		IF port ~ '^0' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the master of shard %s of the input has no valid address', shard.i),
				DETAIL = format('Its port is %s; a port is written without leading zeros.', port);
		ELSIF name ~ '[[:cntrl:]]' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the master of shard %s of the input has no valid address', shard.i),
				DETAIL = 'Its ip holds a control character.';
		ELSIF pg_catalog.octet_length(name) > 1024 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the address of the master of shard %s of the input is too long for a node name', shard.i),
				DETAIL = format('It is %s bytes long; node names are at most 1024 bytes.', pg_catalog.octet_length(name));
		END IF;
		IF jsonb_array_length(slots) % 2 <> 0 OR EXISTS (
			SELECT FROM jsonb_array_elements(slots) x
			WHERE jsonb_typeof(x) <> 'number' OR x::text !~ '^[0-9]{1,5}$') THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the slots of shard %s of the input are not pairs of slot numbers', shard.i),
				DETAIL = format('They are %s.', chash.message_name(slots::text));
		END IF;
		SELECT coalesce(array_agg(int4range(lo.x::text::integer, hi.x::text::integer, '[]')::text ORDER BY lo.i), '{}')
		INTO ranges
		FROM jsonb_array_elements(slots) WITH ORDINALITY lo(x, i)
		JOIN jsonb_array_elements(slots) WITH ORDINALITY hi(x, j) ON j = lo.i + 1
		WHERE lo.i % 2 = 1 AND lo.x::text::integer <= hi.x::text::integer AND hi.x::text::integer <= 16383;
		IF pg_catalog.cardinality(ranges) * 2 <> jsonb_array_length(slots) THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the slots of shard %s of the input are not within 0-16383', shard.i),
				DETAIL = format('They are %s.', chash.message_name(slots::text));
		END IF;
		names := names || name;
		-- a failed master's slots are nobody's: Redis refuses their keys
		states := states || CASE WHEN master ->> 'health' = 'fail' OR master ->> 'health' = 'failed'
								 THEN 'down' ELSE 'active' END;
		slot_lists := slot_lists || ranges::text;
	END LOOP;
	IF pg_catalog.cardinality(names) = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input names no master',
			HINT = 'Give the whole output of redis-cli --json CLUSTER SHARDS.';
	END IF;
	-- duplicates found in one pass, not one search of the names per line
	SELECT d.n INTO name FROM unnest(names) AS d(n) GROUP BY d.n HAVING count(*) > 1 ORDER BY d.n LIMIT 1;
	IF name IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('master %s appears twice in the input', chash.message_name(name));
	END IF;
	RETURN chash.replace_redis_masters(ring, names, states, slot_lists);
END
$$;
COMMENT ON FUNCTION chash.import_redis_cluster_shards(text, text) IS
	'chash_ring_import of format redis_cluster_shards';

CREATE OR REPLACE FUNCTION chash.import_nodetool_ring(ring text, input text, datacenter text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
	bad record;
	l_lines bigint[];
	l_dcs text[];
	l_addresses text[];
	l_racks text[];
	l_statuses text[];
	l_states text[];
	l_tokens text[];
	all_dcs text[];
	wanted_dc text;
	names text[];
	zones text[];
	token_lists text[];
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash INTO cfg
	FROM chash.ring_config c WHERE c.ring = import_nodetool_ring.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create(ring, profile => ''cassandra'').';
	END IF;
	IF cfg.algorithm <> 'tokens' OR cfg.key_hash <> 'cassandra_murmur3' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not place keys as Cassandra does', chash.message_name(ring)),
			DETAIL = format('Format "nodetool_ring" gives the tokens of a Cassandra cluster, for algorithm "tokens" and key hash "cassandra_murmur3"; ring "%s" uses "%s" and "%s".',
							chash.message_name(ring), cfg.algorithm, cfg.key_hash),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''cassandra'').';
	END IF;

	-- Each line with its data centre, the name on the last "Datacenter:"
	-- line before it.  A token line has the fields address, rack, status,
	-- state, load (one field, or a number and its unit), owns and token;
	-- the header, the lone token above each data centre's first line and
	-- the notes around them are not token lines.  A line of that shape
	-- whose last field looks like a number, or with a status or a state,
	-- is a token line: its token is checked below, not taken for a note.
	WITH l AS (
		SELECT m.n, pg_catalog.btrim(m.s, E' \t\r') AS s
		FROM pg_catalog.regexp_split_to_table(input, E'\n') WITH ORDINALITY AS m(s, n)
	), d AS (
		SELECT l.n, l.s,
			   max(CASE WHEN l.s LIKE 'Datacenter:%' THEN l.n END) OVER (ORDER BY l.n) AS dc_line
		FROM l
	), t AS (
		SELECT d.n, pg_catalog.btrim(pg_catalog.substr(h.s, 12), E' \t') AS dc,
			   pg_catalog.regexp_split_to_array(d.s, E'[ \t]+') AS f
		FROM d LEFT JOIN l h ON h.n = d.dc_line
		WHERE d.s NOT LIKE 'Datacenter:%'
	)
	SELECT array_agg(t.n ORDER BY t.n), array_agg(t.dc ORDER BY t.n),
		   array_agg(t.f[1] ORDER BY t.n), array_agg(t.f[2] ORDER BY t.n),
		   array_agg(t.f[3] ORDER BY t.n), array_agg(t.f[4] ORDER BY t.n),
		   array_agg(t.f[pg_catalog.cardinality(t.f)] ORDER BY t.n)
	INTO l_lines, l_dcs, l_addresses, l_racks, l_statuses, l_states, l_tokens
	FROM t
	WHERE pg_catalog.cardinality(t.f) IN (7, 8) AND t.f[1] <> 'Address'
	  AND (t.f[pg_catalog.cardinality(t.f)] ~ '^[-+]?[0-9.]'
		   OR t.f[3] IN ('Up', 'Down', '?')
		   OR t.f[4] IN ('Normal', 'Leaving', 'Joining', 'Moving'));
	IF l_lines IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input lists no token',
			HINT = 'Give the whole output of nodetool ring.';
	END IF;

	SELECT array_agg(DISTINCT coalesce(x.dc, '') ORDER BY coalesce(x.dc, '')) INTO all_dcs
	FROM unnest(l_dcs) AS x(dc);
	IF datacenter IS NULL AND pg_catalog.cardinality(all_dcs) > 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input lists several data centres',
			DETAIL = format('It lists %s.', (SELECT string_agg(format('"%s"', chash.message_name(x)), ', ') FROM unnest(all_dcs) x)),
			HINT = 'Give the data centre whose nodes the ring holds: chash_ring_import(ring, ''nodetool_ring'', input, datacenter => ...).';
	END IF;
	wanted_dc := coalesce(datacenter, all_dcs[1]);
	IF NOT wanted_dc = ANY (all_dcs) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('the input lists no data centre "%s"', chash.message_name(wanted_dc)),
			DETAIL = format('It lists %s.', (SELECT string_agg(format('"%s"', chash.message_name(x)), ', ') FROM unnest(all_dcs) x));
	END IF;

	-- the data centre's lines, each checked
	FOR bad IN
		SELECT x.*
		FROM unnest(l_lines, l_dcs, l_addresses, l_racks, l_statuses, l_states, l_tokens) AS x(n, dc, address, rack, status, state, token)
		WHERE coalesce(x.dc, '') = wanted_dc
		  AND (CASE WHEN x.token !~ '^-?[0-9]+$' OR pg_catalog.length(x.token) > 20 THEN true
					ELSE x.token::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807 END
			   OR x.status NOT IN ('Up', 'Down', '?')
			   OR x.state NOT IN ('Normal', 'Leaving', 'Joining', 'Moving')
			   OR pg_catalog.octet_length(x.address) > 1024
			   OR x.address ~ '[[:cntrl:]]'
			   OR pg_catalog.octet_length(x.rack) > 1024
			   OR x.rack ~ '[[:cntrl:]]')
		ORDER BY x.n LIMIT 1
	LOOP
		-- (a token of more digits than numeric takes is no token either)
		IF bad.token !~ '^-?[0-9]+$' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('token "%s" on line %s is not a Murmur3Partitioner token', chash.message_name(bad.token), bad.n),
				DETAIL = 'A token is written in decimal digits, with a minus sign if negative, as nodetool ring shows it.';
		ELSIF (CASE WHEN pg_catalog.length(bad.token) > 20 THEN true
					ELSE bad.token::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807 END) THEN
			RAISE EXCEPTION USING ERRCODE = 'numeric_value_out_of_range',
				MESSAGE = format('token %s on line %s is not a Murmur3Partitioner token', chash.message_name(bad.token), bad.n),
				DETAIL = 'Tokens run from -9223372036854775808 to 9223372036854775807.';
		ELSIF bad.status NOT IN ('Up', 'Down', '?') THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('status "%s" on line %s is not one of nodetool ring', chash.message_name(bad.status), bad.n),
				DETAIL = 'A node''s status is Up, Down or ?.';
		ELSIF bad.state NOT IN ('Normal', 'Leaving', 'Joining', 'Moving') THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('state "%s" on line %s is not one of nodetool ring', chash.message_name(bad.state), bad.n),
				DETAIL = 'A node''s state is Normal, Leaving, Joining or Moving.';
		ELSIF pg_catalog.octet_length(bad.address) > 1024 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the address on line %s is too long for a node name', bad.n);
		ELSIF bad.address ~ '[[:cntrl:]]' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the address on line %s is not a valid node name', bad.n),
				DETAIL = 'It holds a control character.';
		ELSIF pg_catalog.octet_length(bad.rack) > 1024 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the rack on line %s is too long for a zone', bad.n),
				DETAIL = format('It is %s bytes long; zones are at most 1024 bytes.', pg_catalog.octet_length(bad.rack));
		ELSE
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the rack on line %s is not a valid zone', bad.n),
				DETAIL = 'It holds a control character.';
		END IF;
	END LOOP;
	FOR bad IN
		SELECT x.token::bigint AS token, min(x.n) AS first, (array_agg(x.n ORDER BY x.n))[2] AS second
		FROM unnest(l_lines, l_dcs, l_tokens) AS x(n, dc, token)
		WHERE coalesce(x.dc, '') = wanted_dc
		GROUP BY x.token::bigint HAVING count(*) > 1
		ORDER BY 2 LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('token %s is listed twice', bad.token),
			DETAIL = format('Lines %s and %s list it.', bad.first, bad.second);
	END LOOP;
	FOR bad IN
		SELECT x.address, min(x.rack) AS rack1, max(x.rack) AS rack2
		FROM unnest(l_lines, l_dcs, l_addresses, l_racks) AS x(n, dc, address, rack)
		WHERE coalesce(x.dc, '') = wanted_dc
		GROUP BY x.address HAVING count(DISTINCT x.rack) > 1
		ORDER BY min(x.n) LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node %s is listed in two racks', chash.message_name(bad.address)),
			DETAIL = format('It is listed in racks "%s" and "%s".', chash.message_name(bad.rack1), chash.message_name(bad.rack2));
	END LOOP;

	-- Its nodes, in the order of their first token; a joining node owns
	-- no range yet, and a node down owns its ranges still
	SELECT array_agg(g.address ORDER BY g.first), array_agg(g.rack ORDER BY g.first),
		   array_agg(g.tokens ORDER BY g.first)
	INTO names, zones, token_lists
	FROM (SELECT x.address, min(x.rack) AS rack, min(x.n) AS first,
				 array_agg(x.token::bigint ORDER BY x.n)::text AS tokens
		  FROM unnest(l_lines, l_dcs, l_addresses, l_racks, l_states, l_tokens) AS x(n, dc, address, rack, state, token)
		  WHERE coalesce(x.dc, '') = wanted_dc AND x.state <> 'Joining'
		  GROUP BY x.address) g;
	IF names IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = CASE WHEN wanted_dc = '' THEN 'the input lists no node that owns a range'
						   ELSE format('data centre "%s" has no node that owns a range', chash.message_name(wanted_dc)) END,
			DETAIL = 'Every node listed is joining.';
	END IF;

	-- the cluster's nodes replace the ring's; nodes that stay keep their
	-- weight, target and capacity.  One statement each: the ring is
	-- checked after each, whole.
	DELETE FROM chash.node_config n
	WHERE n.ring = import_nodetool_ring.ring
	  AND NOT EXISTS (SELECT FROM unnest(names) AS m(node) WHERE m.node = n.node);
	INSERT INTO chash.node_config AS n (ring, node, state, zone, tokens)
	SELECT import_nodetool_ring.ring, m.node, 'active', m.zone, m.tokens::bigint[]
	FROM unnest(names, zones, token_lists) WITH ORDINALITY AS m(node, zone, tokens, k)
	ORDER BY m.k
	ON CONFLICT ON CONSTRAINT node_config_pkey
	DO UPDATE SET state = excluded.state, zone = excluded.zone, tokens = excluded.tokens;
	RETURN pg_catalog.cardinality(names);
END
$$;
COMMENT ON FUNCTION chash.import_nodetool_ring(text, text, text) IS
	'chash_ring_import of format nodetool_ring';

-- The servers of a load balancer's configuration as a ring's nodes, in the
-- configuration's order: each node's weight, state, ordinal (its position,
-- or the server id HAProxy gives it) and address (NULL where the
-- configuration names the server by where it is) are the configuration's;
-- nodes that stay keep their zone, target and capacity.  One statement
-- each: the ring is checked after each, whole.
CREATE OR REPLACE FUNCTION chash.replace_config_nodes(ring text, names text[], weights float8[],
													 states text[], ordinals bigint[], addresses text[])
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF ring IS NULL OR names IS NULL OR weights IS NULL OR states IS NULL OR ordinals IS NULL
	   OR addresses IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, names, weights, states, ordinals and addresses must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	IF cardinality(weights) <> cardinality(names) OR cardinality(states) <> cardinality(names)
	   OR cardinality(ordinals) <> cardinality(names) OR cardinality(addresses) <> cardinality(names) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'names, weights, states, ordinals and addresses must have as many elements',
			DETAIL = format('names has %s, weights %s, states %s, ordinals %s and addresses %s.',
							cardinality(names), cardinality(weights), cardinality(states), cardinality(ordinals),
							cardinality(addresses));
	END IF;
	DELETE FROM chash.node_config n
	WHERE n.ring = replace_config_nodes.ring
	  AND NOT EXISTS (SELECT FROM unnest(names) AS m(node) WHERE m.node = n.node);
	INSERT INTO chash.node_config AS n (ring, node, weight, state, ordinal, address)
	SELECT replace_config_nodes.ring, m.node, m.weight, m.state, m.ordinal,
		   nullif(m.address, m.node)
	FROM unnest(names, weights, states, ordinals, addresses) WITH ORDINALITY
		 AS m(node, weight, state, ordinal, address, k)
	ORDER BY m.k
	ON CONFLICT ON CONSTRAINT node_config_pkey
	DO UPDATE SET weight = excluded.weight, state = excluded.state, ordinal = excluded.ordinal,
				  address = excluded.address, vnodes = NULL, tokens = NULL, slots = NULL;
	RETURN pg_catalog.cardinality(names);
END
$$;
COMMENT ON FUNCTION chash.replace_config_nodes(text, text[], float8[], text[], bigint[], text[]) IS
	'make the servers of a configuration, with their weights, states, ordinals and addresses (NULL or the name: none of its own), a ring''s nodes';

-- The words of a configuration, each with its line: comments dropped;
-- each word as written (a word that opens a quote it does not close is a
-- lone quote character) and as the server reads it (chash.config_word).
-- Linear in the input: one regular expression over each line.
CREATE OR REPLACE FUNCTION chash.config_words(input text, pattern text, haproxy boolean,
											  OUT lines bigint[], OUT raws text[], OUT words text[])
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT coalesce(array_agg(l.n ORDER BY l.n, m.i), '{}'), coalesce(array_agg(m.w[1] ORDER BY l.n, m.i), '{}'),
	   coalesce(array_agg(CASE WHEN m.w[1] ~ '["''\\]' THEN chash.config_word(m.w[1], haproxy) ELSE m.w[1] END
						  ORDER BY l.n, m.i), '{}')
FROM regexp_split_to_table(input, E'\n') WITH ORDINALITY AS l(s, n),
	 regexp_matches(l.s, pattern, 'g') WITH ORDINALITY AS m(w, i)
WHERE left(m.w[1], 1) <> '#'
$$;
COMMENT ON FUNCTION chash.config_words(text, text, boolean) IS
	'the words of an nginx (haproxy false) or HAProxy configuration matched by pattern, with their lines, as written and as read, comments (words starting with #) left out';

-- A text with its backslash escapes replaced as nginx and HAProxy read
-- them: \" \' \\ \t \r \n, and in HAProxy also "\ " and \#; any other
-- stays as it is.  One regular expression over the text: linear.
CREATE OR REPLACE FUNCTION chash.config_unescape(s text, haproxy boolean)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT coalesce(string_agg(
	CASE WHEN left(x.m[1], 1) <> '\' OR length(x.m[1]) = 1 THEN x.m[1]
		 ELSE CASE substr(x.m[1], 2, 1)
				  WHEN 't' THEN E'\t' WHEN 'r' THEN E'\r' WHEN 'n' THEN E'\n'
				  WHEN '"' THEN '"' WHEN '''' THEN '''' WHEN '\' THEN '\'
				  ELSE CASE WHEN haproxy AND substr(x.m[1], 2, 1) IN (' ', '#') THEN substr(x.m[1], 2, 1)
							ELSE x.m[1] END END END,
	'' ORDER BY x.i), '')
FROM regexp_matches(s, '\\.|[^\\]+|\\$', 'g') WITH ORDINALITY AS x(m, i)
$$;
COMMENT ON FUNCTION chash.config_unescape(text, boolean) IS
	'a text of an nginx (haproxy false) or HAProxy configuration with its backslash escapes replaced';

-- A word of an nginx or HAProxy configuration as the server reads it: its
-- quotes removed and its escapes replaced.  nginx quotes a word whole;
-- HAProxy's words are runs of "double" (escapes read), 'single' (read as
-- they are) and unquoted parts.  Linear in the word.
CREATE OR REPLACE FUNCTION chash.config_word(word text, haproxy boolean)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE
	WHEN word !~ '["''\\]' THEN word
	WHEN NOT haproxy THEN
		chash.config_unescape(CASE WHEN length(word) >= 2 AND left(word, 1) IN ('"', '''')
										AND right(word, 1) = left(word, 1)
								   THEN substr(word, 2, length(word) - 2) ELSE word END, false)
	ELSE (SELECT coalesce(string_agg(
				 CASE left(x.m[1], 1)
					  WHEN '"' THEN CASE WHEN length(x.m[1]) >= 2
										 THEN chash.config_unescape(substr(x.m[1], 2, length(x.m[1]) - 2), true)
										 ELSE x.m[1] END
					  WHEN '''' THEN CASE WHEN length(x.m[1]) >= 2 THEN substr(x.m[1], 2, length(x.m[1]) - 2)
										  ELSE x.m[1] END
					  ELSE chash.config_unescape(x.m[1], true) END,
				 '' ORDER BY x.i), '')
		  FROM regexp_matches(word, '"(?:[^"\\]|\\.)*"|''[^'']*''|(?:[^"''\\]|\\.)+|.', 'g') WITH ORDINALITY AS x(m, i))
END
$$;
COMMENT ON FUNCTION chash.config_word(text, boolean) IS
	'a word of an nginx (haproxy false) or HAProxy configuration without its quotes and escapes';

-- An error unless name can be a node's name: its checks, in the words of
-- a configuration's server on line n
CREATE OR REPLACE FUNCTION chash.check_config_name(name text, what text, n bigint)
	RETURNS void
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF name = '' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('the %s on line %s is empty', what, n);
	ELSIF name ~ '[[:cntrl:]]' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('the %s on line %s is not a valid node name', what, n),
			DETAIL = 'It holds a control character.';
	ELSIF pg_catalog.octet_length(name) > 1024 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('the %s on line %s is too long for a node name', what, n),
			DETAIL = format('It is %s bytes long; node names are at most 1024 bytes.', pg_catalog.octet_length(name));
	END IF;
END
$$;
COMMENT ON FUNCTION chash.check_config_name(text, text, bigint) IS
	'an error unless the server name or address on line n can be a node name';

-- nginx: an upstream block with "hash KEY consistent"
CREATE OR REPLACE FUNCTION chash.import_nginx_upstream(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
	wl bigint[];
	ww text[];
	wv text[];
	i integer := 1;
	nw integer;
	d text[];
	dline bigint;
	word text;
	value text;
	weight bigint;
	state text;
	hashed boolean := false;
	hash_line bigint;
	closed boolean := false;
	names text[] := '{}';
	weights float8[] := '{}';
	states text[] := '{}';
	ordinals bigint[] := '{}';
	dup text;
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash INTO cfg
	FROM chash.ring_config c WHERE c.ring = import_nginx_upstream.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create(ring, profile => ''nginx'').';
	END IF;
	IF cfg.algorithm <> 'nginx' OR cfg.key_hash <> 'crc32' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not place keys as nginx does', chash.message_name(ring)),
			DETAIL = format('Format "nginx_upstream" gives the servers of an nginx upstream, for algorithm "nginx" and key hash "crc32"; ring "%s" uses "%s" and "%s".',
							chash.message_name(ring), cfg.algorithm, cfg.key_hash),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''nginx'').';
	END IF;

	-- nginx's words: a quoted string, ; { or }, a word up to a space or
	-- one of ; { }, a comment from # at a word's start to the line's end
	SELECT c.lines, c.raws, c.words INTO wl, ww, wv FROM chash.config_words(input,
		'#.*$|"(?:[^"\\]|\\.)*"|''(?:[^''\\]|\\.)*''|[;{}]|(?:[^\s;{}"''#\\]|\\.)(?:[^\s;{}\\]|\\.)*|\S', false) AS c;
	nw := pg_catalog.cardinality(ww);
	IF nw < 3 OR ww[1] <> 'upstream' OR ww[3] <> '{' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the input is not an nginx upstream block',
			DETAIL = 'It starts with "upstream NAME {", comments and blank lines aside.',
			HINT = 'Give the upstream block of your configuration, from "upstream" to its closing "}".';
	END IF;
	i := 4;
	-- one directive a turn: its words up to ";", or the closing "}"
	WHILE i <= nw LOOP
		IF ww[i] = '}' THEN
			closed := true;
			i := i + 1;
			EXIT;
		END IF;
		d := '{}';
		dline := wl[i];
		WHILE i <= nw AND ww[i] NOT IN (';', '{', '}') LOOP
			IF ww[i] IN ('"', '''', '\') THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('line %s has an unterminated quoted string', wl[i]),
					DETAIL = 'A quoted string ends on the line it starts.';
			END IF;
			d := d || wv[i];
			i := i + 1;
		END LOOP;
		IF i > nw THEN
			EXIT;
		ELSIF ww[i] <> ';' OR pg_catalog.cardinality(d) = 0 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('unexpected "%s" on line %s', ww[i], wl[i]),
				DETAIL = 'An upstream block holds directives, each ended by ";", and no block.';
		END IF;
		i := i + 1;
		IF d[1] = 'hash' THEN
			IF hashed THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('the upstream chooses its balancing method twice, on lines %s and %s', hash_line, dline);
			ELSIF pg_catalog.cardinality(d) <> 3 OR d[3] <> 'consistent' THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('the hash on line %s is not consistent', dline),
					DETAIL = 'chash places keys as nginx''s "hash KEY consistent" does (ketama); "hash KEY" alone takes the hash modulo the total weight.',
					HINT = 'Write the directive as "hash KEY consistent;".';
			END IF;
			hashed := true;
			hash_line := dline;
		ELSIF d[1] IN ('ip_hash', 'least_conn', 'least_time', 'random', 'sticky') THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('balancing method "%s" on line %s is not consistent hashing', d[1], dline),
				HINT = 'chash reproduces "hash KEY consistent;" only.';
		ELSIF d[1] = 'server' THEN
			IF pg_catalog.cardinality(d) < 2 THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('the server on line %s has no address', dline);
			END IF;
			PERFORM chash.check_config_name(d[2], 'server address', dline);
			weight := 1;
			state := 'active';
			FOR k IN 3 .. pg_catalog.cardinality(d) LOOP
				word := pg_catalog.split_part(d[k], '=', 1);
				value := pg_catalog.substr(d[k], pg_catalog.length(word) + 2);
				IF d[k] = 'down' THEN
					state := 'down';
				ELSIF d[k] = 'backup' THEN
					RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
						MESSAGE = format('server %s on line %s is a backup server', chash.message_name(d[2]), dline),
						DETAIL = 'nginx refuses "backup" in an upstream with "hash" ("balancing method does not support parameter"), and drops backup servers listed before "hash".',
						HINT = 'Remove the backup server, or the word "backup".';
				ELSIF word = 'weight' AND d[k] LIKE 'weight=%' THEN
					IF value !~ '^[0-9]{1,9}$' OR value::bigint = 0 THEN
						RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
							MESSAGE = format('invalid parameter "%s" of the server on line %s', chash.message_name(d[k]), dline),
							DETAIL = 'A weight is a positive integer.';
					END IF;
					weight := value::bigint;
				ELSIF word IN ('max_fails', 'fail_timeout', 'max_conns') AND d[k] LIKE word || '=%' THEN
					NULL;	-- a server's health, not its place
				ELSE
					RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
						MESSAGE = format('invalid parameter "%s" of the server on line %s', chash.message_name(d[k]), dline),
						DETAIL = 'A server of an upstream with "hash" takes weight=, max_fails=, fail_timeout=, max_conns= and down.';
				END IF;
			END LOOP;
			names := names || d[2];
			weights := weights || weight::float8;
			states := states || state;
			ordinals := ordinals || pg_catalog.cardinality(names)::bigint;
		ELSIF d[1] IN ('keepalive', 'keepalive_requests', 'keepalive_time', 'keepalive_timeout',
					   'zone', 'resolver', 'resolver_timeout', 'ntlm', 'queue') THEN
			NULL;	-- connections to the servers, not their places
		ELSE
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('unknown directive "%s" on line %s', chash.message_name(d[1]), dline),
				DETAIL = 'An upstream block with "hash KEY consistent" holds server lines and the directives of its connections (keepalive, zone, ...).';
		END IF;
	END LOOP;
	IF NOT closed THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the upstream block does not end',
			HINT = 'Give the upstream block of your configuration, from "upstream" to its closing "}".';
	ELSIF i <= nw THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = format('line %s follows the upstream block', wl[i]),
			HINT = 'Give one upstream block, alone.';
	ELSIF NOT hashed THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the upstream does not hash its keys',
			DETAIL = 'Without "hash KEY consistent;" nginx balances round robin.',
			HINT = 'chash reproduces "hash KEY consistent;" only.';
	ELSIF pg_catalog.cardinality(names) = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the upstream has no server';
	END IF;
	SELECT x.n INTO dup FROM unnest(names) AS x(n) GROUP BY x.n HAVING count(*) > 1 ORDER BY x.n LIMIT 1;
	IF dup IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('server %s appears twice in the upstream', chash.message_name(dup)),
			DETAIL = 'nginx hashes the server text: two servers of one text have the same points, which one node of a ring cannot.';
	END IF;
	-- nginx names a server by where it is: no address of its own
	RETURN chash.replace_config_nodes(ring, names, weights, states, ordinals,
									  array_fill(NULL::text, ARRAY[pg_catalog.cardinality(names)]));
END
$$;
COMMENT ON FUNCTION chash.import_nginx_upstream(text, text) IS
	'chash_ring_import of format nginx_upstream';

-- HAProxy: a backend (or listen) section with "hash-type consistent"
CREATE OR REPLACE FUNCTION chash.import_haproxy_backend(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
	wl bigint[];
	ww text[];
	wv text[];
	i integer := 1;
	j integer;
	nw integer;
	d text[];
	dline bigint;
	section text;
	balance_line bigint;
	hash_type text[];
	key_hash text;
	def_weight integer := 1;
	def_disabled boolean := false;
	weight integer;
	disabled boolean;
	sid bigint;
	names text[] := '{}';
	addresses text[] := '{}';
	lines bigint[] := '{}';
	weights float8[] := '{}';
	states text[] := '{}';
	given bigint[] := '{}';
	ids bigint[] := '{}';
	used bigint[];
	counter bigint := 1;
	p integer := 1;
	dup record;
	-- the server keywords that take one argument (HAProxy 2.6 to 3.x);
	-- the others are flags, but "source", which takes "usesrc" and
	-- "interface" after its own
	one_arg CONSTANT text[] := ARRAY['addr', 'agent-addr', 'agent-inter', 'agent-port', 'agent-send',
		'alpn', 'ca-file', 'ciphers', 'ciphersuites', 'client-sigalgs', 'cookie', 'crl-file', 'crt',
		'curves', 'downinter', 'error-limit', 'fall', 'fastinter', 'guid', 'hash-key', 'id',
		'init-addr', 'init-state', 'inter', 'log-bufsize', 'log-proto', 'max-reuse', 'maxconn',
		'maxqueue', 'minconn', 'namespace', 'npn', 'observe', 'on-error', 'on-marked-down',
		'on-marked-up', 'pool-conn-name', 'pool-low-conn', 'pool-max-conn', 'pool-purge-delay',
		'port', 'proto', 'proxy-v2-options', 'redir', 'resolve-net', 'resolve-opts',
		'resolve-prefer', 'resolvers', 'rise', 'set-proxy-v2-tlv-fmt', 'shard', 'sigalgs',
		'slowstart', 'sni', 'socks4', 'ssl-max-ver', 'ssl-min-ver', 'tcp-ut', 'track', 'verify',
		'verifyhost', 'weight', 'ws', 'check-alpn', 'check-proto', 'check-sni', 'usesrc',
		'interface', 'source'];
	sections CONSTANT text[] := ARRAY['global', 'defaults', 'frontend', 'backend', 'listen', 'peers',
		'resolvers', 'userlist', 'mailers', 'program', 'http-errors', 'ring', 'cache', 'fcgi-app',
		'crt-store', 'log-forward', 'traces'];
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash INTO cfg
	FROM chash.ring_config c WHERE c.ring = import_haproxy_backend.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create(ring, profile => ''haproxy'', key_hash => ...), key_hash the backend''s hash (haproxy_sdbm_avalanche for "hash-type consistent" alone).';
	END IF;
	IF cfg.algorithm <> 'haproxy' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not place keys as HAProxy does', chash.message_name(ring)),
			DETAIL = format('Format "haproxy_backend" gives the servers of an HAProxy backend, for algorithm "haproxy"; ring "%s" uses "%s".',
							chash.message_name(ring), cfg.algorithm),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''haproxy'', key_hash => ...).';
	END IF;

	-- HAProxy's words: runs of quoted strings, escapes and other
	-- characters but spaces; a comment from an unquoted # to the line's end
	SELECT c.lines, c.raws, c.words INTO wl, ww, wv FROM chash.config_words(input,
		'#.*$|(?:"(?:[^"\\]|\\.)*"|''[^'']*''|\\.|[^\s"''#\\])+|\S', true) AS c;
	nw := pg_catalog.cardinality(ww);
	-- one line a turn
	WHILE i <= nw LOOP
		d := '{}';
		dline := wl[i];
		WHILE i <= nw AND wl[i] = dline LOOP
			IF ww[i] IN ('"', '''', '\') THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('line %s has an unterminated quoted string', dline);
			END IF;
			d := d || wv[i];
			i := i + 1;
		END LOOP;
		IF section IS NULL THEN
			IF d[1] NOT IN ('backend', 'listen') OR pg_catalog.cardinality(d) <> 2 THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = 'the input is not an HAProxy backend section',
					DETAIL = 'It starts with a line "backend NAME" (or "listen NAME"), comments and blank lines aside.',
					HINT = 'Give the backend section of your configuration, from its "backend" line to the line before the next section.';
			END IF;
			section := d[2];
		ELSIF d[1] = ANY (sections) THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('line %s starts another section', dline),
				DETAIL = format('The input is section "%s"; line %s starts section %s.', chash.message_name(section), dline, d[1]),
				HINT = 'Give the backend section alone, from its "backend" line to the line before the next section.';
		ELSIF d[1] = 'balance' THEN
			IF pg_catalog.cardinality(d) < 2
			   OR NOT (d[2] IN ('source', 'uri', 'url_param', 'hash', 'rdp-cookie')
					   OR d[2] ~ '^(hdr|rdp-cookie)\(.*\)$') THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('balance "%s" on line %s does not hash a key', chash.message_name(coalesce(d[2], '')), dline),
					DETAIL = 'chash places keys as the hashing algorithms of HAProxy do: hdr(NAME), uri, url_param, source, rdp-cookie and hash.';
			END IF;
			balance_line := dline;
		ELSIF d[1] = 'hash-type' THEN
			hash_type := d[2:];
			IF hash_type[1] IS DISTINCT FROM 'consistent' THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('hash-type "%s" on line %s is not consistent', chash.message_name(coalesce(hash_type[1], '')), dline),
					DETAIL = 'chash places keys as "hash-type consistent" does; "map-based" takes the hash modulo the total weight.',
					HINT = 'Write the line as "hash-type consistent [FUNCTION] [avalanche]".';
			END IF;
			key_hash := CASE
				WHEN pg_catalog.cardinality(hash_type) = 1 THEN 'haproxy_sdbm_avalanche'
				-- the modifier alone: sdbm with it
				WHEN pg_catalog.cardinality(hash_type) = 2 AND hash_type[2] = 'avalanche' THEN 'haproxy_sdbm_avalanche'
				WHEN pg_catalog.cardinality(hash_type) > 3 OR hash_type[2] NOT IN ('sdbm', 'djb2', 'wt6', 'crc32')
					 OR hash_type[3] IS DISTINCT FROM 'avalanche' AND pg_catalog.cardinality(hash_type) = 3 THEN NULL
				WHEN hash_type[3] = 'avalanche' THEN 'haproxy_' || hash_type[2] || '_avalanche'
				WHEN hash_type[2] = 'crc32' THEN 'crc32'
				ELSE 'haproxy_' || hash_type[2] END;
			IF key_hash IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('"%s" on line %s is not a hash function chash has', chash.message_name(array_to_string(d, ' ')), dline),
					DETAIL = 'chash has HAProxy''s sdbm, djb2, wt6 and crc32, each with or without avalanche.';
			END IF;
		ELSIF d[1] IN ('server', 'default-server') THEN
			IF d[1] = 'server' AND pg_catalog.cardinality(d) < 3 THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('the server on line %s has no address', dline),
					DETAIL = 'A server line is "server NAME ADDRESS [PARAMETERS]".';
			END IF;
			weight := def_weight;
			disabled := def_disabled;
			sid := NULL;
			j := CASE WHEN d[1] = 'server' THEN 4 ELSE 2 END;
			WHILE j <= pg_catalog.cardinality(d) LOOP
				IF d[j] IN ('disabled', 'enabled') THEN
					disabled := d[j] = 'disabled';
				ELSIF d[j] = 'backup' THEN
					RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
						MESSAGE = format('the server on line %s is a backup server', dline),
						DETAIL = 'HAProxy sends keys to its backup servers only when no other server is up; a ring has no such nodes.',
						HINT = 'Remove the backup server, or the word "backup".';
				ELSIF d[j] = ANY (one_arg) THEN
					IF j = pg_catalog.cardinality(d) THEN
						RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
							MESSAGE = format('"%s" on line %s has no value', d[j], dline);
					END IF;
					IF d[j] = 'weight' THEN
						IF d[j + 1] !~ '^[0-9]{1,3}$' OR d[j + 1]::integer > 256 THEN
							RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
								MESSAGE = format('weight "%s" on line %s is not a weight of HAProxy', chash.message_name(d[j + 1]), dline),
								DETAIL = 'A weight is an integer from 0 to 256.';
						END IF;
						weight := d[j + 1]::integer;
					ELSIF d[j] = 'id' THEN
						IF d[1] = 'default-server' OR d[j + 1] !~ '^[0-9]{1,10}$' OR d[j + 1]::bigint NOT BETWEEN 1 AND 2147483647 THEN
							RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
								MESSAGE = format('id "%s" on line %s is not a server id', chash.message_name(d[j + 1]), dline),
								DETAIL = 'A server''s id is an integer from 1 to 2147483647, given on its own server line.';
						END IF;
						sid := d[j + 1]::bigint;
					ELSIF d[j] = 'hash-key' AND d[j + 1] <> 'id' THEN
						RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
							MESSAGE = format('hash-key "%s" on line %s has no profile', chash.message_name(d[j + 1]), dline),
							DETAIL = 'chash places servers by their ids (hash-key id, the default); servers placed by their addresses have no profile.';
					END IF;
					j := j + 1;
				END IF;
				j := j + 1;
			END LOOP;
			IF d[1] = 'default-server' THEN
				def_weight := weight;
				def_disabled := disabled;
			ELSE
				PERFORM chash.check_config_name(d[2], 'server name', dline);
				names := names || d[2];
				addresses := addresses || d[3];
				lines := lines || dline;
				-- a server of weight 0, as a disabled one, has no points
				weights := weights || greatest(weight, 1)::float8;
				states := states || CASE WHEN disabled OR weight = 0 THEN 'down' ELSE 'active' END;
				given := given || sid;
			END IF;
		END IF;
		-- any other line is HAProxy's, and places no key
	END LOOP;
	IF section IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the input is not an HAProxy backend section',
			HINT = 'Give the backend section of your configuration, from its "backend" line to the line before the next section.';
	ELSIF balance_line IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('backend "%s" has no balance line', chash.message_name(section)),
			DETAIL = 'Without one HAProxy balances round robin, unless the defaults section says otherwise.',
			HINT = 'Copy the balance and hash-type lines of your defaults section into the backend.';
	ELSIF hash_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('backend "%s" has no hash-type line', chash.message_name(section)),
			DETAIL = 'Without one HAProxy hashes "map-based", unless the defaults section says otherwise.',
			HINT = 'Copy the hash-type line of your defaults section into the backend, or add "hash-type consistent".';
	ELSIF pg_catalog.cardinality(names) = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('backend "%s" has no server', chash.message_name(section));
	END IF;
	IF cfg.key_hash <> key_hash THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not hash keys as backend "%s" does', chash.message_name(ring), chash.message_name(section)),
			DETAIL = format('The backend''s "hash-type %s" is key hash "%s"; ring "%s" uses "%s".',
							array_to_string(hash_type, ' '), key_hash, chash.message_name(ring), cfg.key_hash),
			HINT = format('Create the ring with chash_ring_create(ring, profile => ''haproxy'', key_hash => ''%s''), or change it with chash_ring_set.', key_hash);
	END IF;
	FOR dup IN
		SELECT x.n, min(x.l) AS first, (array_agg(x.l ORDER BY x.l))[2] AS second
		FROM unnest(names, lines) AS x(n, l) GROUP BY x.n HAVING count(*) > 1 ORDER BY 2 LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('server %s appears twice in the backend', chash.message_name(dup.n)),
			DETAIL = format('Lines %s and %s name it.', dup.first, dup.second);
	END LOOP;
	FOR dup IN
		SELECT x.id, min(x.l) AS first, (array_agg(x.l ORDER BY x.l))[2] AS second
		FROM unnest(given, lines) AS x(id, l) WHERE x.id IS NOT NULL
		GROUP BY x.id HAVING count(*) > 1 ORDER BY 2 LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('server id %s is given twice', dup.id),
			DETAIL = format('Lines %s and %s give it.', dup.first, dup.second);
	END LOOP;

	-- The ids HAProxy gives: a counter from 1 that moves on at every
	-- server; a server without an id takes the first not given at or
	-- after it, and the counter goes on from there (cfgparse.c).  The
	-- given ids, sorted, are passed once.
	SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}') INTO used FROM unnest(given) AS x(id) WHERE x.id IS NOT NULL;
	FOR k IN 1 .. pg_catalog.cardinality(names) LOOP
		IF given[k] IS NOT NULL THEN
			ids := ids || given[k];
		ELSE
			WHILE p <= pg_catalog.cardinality(used) AND used[p] < counter LOOP
				p := p + 1;
			END LOOP;
			WHILE p <= pg_catalog.cardinality(used) AND used[p] = counter LOOP
				counter := counter + 1;
				p := p + 1;
			END LOOP;
			ids := ids || counter;
		END IF;
		counter := counter + 1;
	END LOOP;
	RETURN chash.replace_config_nodes(ring, names, weights, states, ids, addresses);
END
$$;
COMMENT ON FUNCTION chash.import_haproxy_backend(text, text) IS
	'chash_ring_import of format haproxy_backend';

-- A YAML scalar of a twemproxy configuration: plain, 'single' ('' is ')
-- or "double" quoted (\" \\ and the like); NULL if it is none
CREATE OR REPLACE FUNCTION chash.yaml_scalar(s text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE
	WHEN s ~ '^''(?:[^'']|'''')*''$' THEN replace(substr(s, 2, length(s) - 2), '''''', '''')
	WHEN s ~ '^"(?:[^"\\]|\\.)*"$' THEN chash.config_word(s, false)
	WHEN s ~ '^[^''"\[\]{}&*!|>%@`#,]' AND s !~ ':\s|:$| #' THEN s
END
$$;
COMMENT ON FUNCTION chash.yaml_scalar(text) IS
	'a scalar of a twemproxy (YAML) configuration without its quotes, or NULL if it is none';

-- twemproxy: a nutcracker pool with "distribution: ketama"
CREATE OR REPLACE FUNCTION chash.import_twemproxy_pool(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
	line record;
	pool text;
	key_indent integer;
	indent integer;
	in_servers boolean := false;
	key text;
	raw text;
	value text;
	settings jsonb := '{}';
	setting_lines jsonb := '{}';
	f text[];
	addr text;
	host text;
	port text;
	weight text;
	name text;
	key_hash text;
	names text[] := '{}';
	addresses text[] := '{}';
	lines bigint[] := '{}';
	weights float8[] := '{}';
	dup record;
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_import_privilege(ring);
	SELECT c.algorithm, c.ketama_variant, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO cfg
	FROM chash.ring_config c WHERE c.ring = import_twemproxy_pool.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring)),
			HINT = 'Create it with chash_ring_create(ring, profile => ''twemproxy'', key_hash => ...), key_hash the pool''s hash.';
	END IF;
	IF cfg.algorithm <> 'ketama' OR cfg.ketama_variant IS DISTINCT FROM 'twemproxy' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not place keys as twemproxy does', chash.message_name(ring)),
			DETAIL = format('Format "twemproxy_pool" gives the servers of a twemproxy pool, for algorithm "ketama" and ketama variant "twemproxy"; ring "%s" uses "%s" and %s.',
							chash.message_name(ring), cfg.algorithm, coalesce('"' || cfg.ketama_variant || '"', 'no variant')),
			HINT = 'Create the ring with chash_ring_create(ring, profile => ''twemproxy'', key_hash => ...).';
	END IF;

	-- One line a turn: "NAME:", then its keys one indent deeper, and the
	-- list of servers under "servers:"
	FOR line IN
		SELECT l.n, pg_catalog.rtrim(l.s, E' \t\r') AS s,
			   pg_catalog.length(substring(l.s FROM '^ *')) AS indent
		FROM pg_catalog.regexp_split_to_table(input, E'\n') WITH ORDINALITY AS l(s, n)
		WHERE l.s !~ '^\s*(#|$)' AND l.s !~ '^\s*---\s*$'
	LOOP
		IF line.s ~ '^ *\t' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('line %s is indented with a tab', line.n),
				DETAIL = 'YAML indents with spaces.';
		END IF;
		indent := line.indent;
		raw := pg_catalog.btrim(line.s, ' ');
		IF indent = 0 THEN
			IF pool IS NOT NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('line %s starts another pool', line.n),
					DETAIL = format('The input is pool "%s"; a ring holds one pool.', chash.message_name(pool)),
					HINT = 'Give one pool of your configuration.';
			END IF;
			pool := chash.yaml_scalar(substring(raw FROM '^(.*):$'));
			IF pool IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = 'the input is not a twemproxy pool',
					DETAIL = 'A pool starts with a line "NAME:", comments and blank lines aside, and its settings follow, indented.',
					HINT = 'Give one pool of your nutcracker configuration (YAML).';
			END IF;
			CONTINUE;
		ELSIF pool IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = 'the input is not a twemproxy pool',
				DETAIL = 'A pool starts with a line "NAME:", comments and blank lines aside, and its settings follow, indented.',
				HINT = 'Give one pool of your nutcracker configuration (YAML).';
		END IF;
		key_indent := coalesce(key_indent, indent);
		IF in_servers AND raw ~ '^-( |$)' AND indent >= key_indent THEN
			-- "- host:port:weight [name]", in quotes or not; a trailing
			-- comment after a space
			raw := pg_catalog.btrim(pg_catalog.substr(raw, 2), ' ');
			value := chash.yaml_scalar(pg_catalog.regexp_replace(raw, '\s+#.*$', ''));
			IF value IS NULL THEN
				value := chash.yaml_scalar(raw);
			END IF;
			f := pg_catalog.regexp_split_to_array(coalesce(value, ''), ' +');
			IF value IS NULL OR pg_catalog.cardinality(f) > 2
			   OR f[1] !~ '^(.+:[0-9]+|/.+):[0-9]+$' THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
					MESSAGE = format('line %s is not a server of twemproxy', line.n),
					DETAIL = 'A server is "host:port:weight", or "host:port:weight name".';
			END IF;
			addr := substring(f[1] FROM '^(.*):[0-9]+$');
			weight := substring(f[1] FROM ':([0-9]+)$');
			name := f[2];
			IF weight !~ '^[0-9]{1,9}$' OR weight::integer = 0 THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('the weight of the server on line %s is not a positive integer', line.n);
			END IF;
			IF name IS NULL THEN
				-- nutcracker names a server without a name after its
				-- address: the host on port 11211, else host:port
				host := substring(addr FROM '^(.*):[0-9]+$');
				port := substring(addr FROM ':([0-9]+)$');
				IF host IS NULL OR host = '' THEN
					RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
						MESSAGE = format('the server on line %s has no name', line.n),
						DETAIL = 'nutcracker names a server without a name after its host and port; a unix socket has none.',
						HINT = 'Give the server a name after its weight: "/path:weight name".';
				END IF;
				name := CASE WHEN port = '11211' THEN host ELSE addr END;
			END IF;
			PERFORM chash.check_config_name(name, 'server name', line.n);
			names := names || name;
			-- where the server is (host:port or the socket's path): an
			-- address of its own unless it is the name
			addresses := addresses || addr;
			lines := lines || line.n;
			weights := weights || weight::float8;
			CONTINUE;
		END IF;
		IF indent <> key_indent THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('line %s is indented as no setting of the pool is', line.n),
				DETAIL = format('The pool''s settings are indented by %s spaces, its servers listed under "servers:"; line %s by %s.', key_indent, line.n, indent);
		END IF;
		key := substring(raw FROM '^([A-Za-z_0-9]+):( |$)');
		IF key IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('line %s is not a setting of a twemproxy pool', line.n),
				DETAIL = 'A setting is "key: value".';
		END IF;
		IF settings ? key THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('setting "%s" is given twice, on lines %s and %s', key, setting_lines ->> key, line.n);
		END IF;
		raw := pg_catalog.btrim(pg_catalog.substr(raw, pg_catalog.length(key) + 2), ' ');
		in_servers := key = 'servers';
		IF in_servers AND raw <> '' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('the servers on line %s are not a list of lines', line.n),
				DETAIL = 'twemproxy''s servers are listed one a line, each after "- ".';
		END IF;
		value := coalesce(chash.yaml_scalar(pg_catalog.regexp_replace(raw, '\s+#.*$', '')), chash.yaml_scalar(raw));
		IF value IS NULL AND NOT in_servers THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
				MESSAGE = format('the value of setting "%s" on line %s is not a plain or quoted string', key, line.n);
		END IF;
		settings := settings || jsonb_build_object(key, coalesce(value, ''));
		setting_lines := setting_lines || jsonb_build_object(key, line.n);
	END LOOP;
	IF pool IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the input is not a twemproxy pool',
			HINT = 'Give one pool of your nutcracker configuration (YAML).';
	END IF;

	IF coalesce(settings ->> 'distribution', 'ketama') <> 'ketama' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('distribution "%s" on line %s is not one chash has', chash.message_name(settings ->> 'distribution'), setting_lines ->> 'distribution'),
			DETAIL = 'chash places keys as twemproxy''s "distribution: ketama" does; "modula" takes the hash modulo the total weight, "random" no hash.';
	END IF;
	key_hash := CASE coalesce(settings ->> 'hash', 'fnv1a_64')
		WHEN 'md5' THEN 'md5'
		WHEN 'crc32a' THEN 'crc32'
		ELSE CASE WHEN settings ->> 'hash' IS NULL
					   OR settings ->> 'hash' IN ('one_at_a_time', 'crc16', 'crc32', 'fnv1_64', 'fnv1a_64',
												  'fnv1_32', 'fnv1a_32', 'hsieh', 'murmur', 'jenkins')
				  THEN 'twemproxy_' || coalesce(settings ->> 'hash', 'fnv1a_64') END END;
	IF key_hash IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('hash "%s" on line %s is not one of twemproxy', chash.message_name(settings ->> 'hash'), setting_lines ->> 'hash'),
			DETAIL = 'twemproxy''s hashes are one_at_a_time, md5, crc16, crc32, crc32a, fnv1_64, fnv1a_64, fnv1_32, fnv1a_32, hsieh, murmur and jenkins.';
	END IF;
	IF settings ? 'hash_tag' AND pg_catalog.length(settings ->> 'hash_tag') <> 2 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('hash_tag "%s" on line %s is not two characters', chash.message_name(settings ->> 'hash_tag'), setting_lines ->> 'hash_tag');
	END IF;
	IF NOT settings ? 'servers' OR pg_catalog.cardinality(names) = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('pool "%s" has no server', chash.message_name(pool));
	END IF;
	IF cfg.key_hash <> key_hash OR cfg.hash_tag IS DISTINCT FROM settings ->> 'hash_tag' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not hash keys as pool "%s" does', chash.message_name(ring), chash.message_name(pool)),
			DETAIL = format('The pool''s hash "%s" is key hash "%s", with %s; ring "%s" uses "%s", with %s.',
							coalesce(settings ->> 'hash', 'fnv1a_64'), key_hash,
							coalesce('hash tag "' || (settings ->> 'hash_tag') || '"', 'no hash tag'),
							chash.message_name(ring), cfg.key_hash, coalesce('hash tag "' || cfg.hash_tag || '"', 'no hash tag')),
			HINT = format('Create the ring with chash_ring_create(ring, profile => ''twemproxy'', key_hash => ''%s''%s).',
						  key_hash, CASE WHEN settings ? 'hash_tag' THEN format(', hash_tag => %L', settings ->> 'hash_tag') ELSE '' END);
	END IF;
	FOR dup IN
		SELECT x.n, min(x.l) AS first, (array_agg(x.l ORDER BY x.l))[2] AS second
		FROM unnest(names, lines) AS x(n, l) GROUP BY x.n HAVING count(*) > 1 ORDER BY 2 LIMIT 1
	LOOP
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('server %s appears twice in the pool', chash.message_name(dup.n)),
			DETAIL = format('Lines %s and %s name it.', dup.first, dup.second);
	END LOOP;
	RETURN chash.replace_config_nodes(ring, names, weights,
									  array_fill('active'::text, ARRAY[pg_catalog.cardinality(names)]),
									  (SELECT array_agg(k ORDER BY k) FROM generate_series(1::bigint, pg_catalog.cardinality(names)) k),
									  addresses);
END
$$;
COMMENT ON FUNCTION chash.import_twemproxy_pool(text, text) IS
	'chash_ring_import of format twemproxy_pool';

-- The layout of a table partitioned by hash, as a ring of slots that
-- routes as PostgreSQL does: as many slots as the largest modulus (2 for
-- a table of one partition, of modulus 1), the
-- partition of modulus m and remainder r owning every slot s with
-- s % m = r (get_partition_for_tuple's table of the greatest modulus),
-- named by its qualified name, a foreign table's server as its target;
-- the key columns' types and collations recorded in the ring.  The ring is
-- created with profile postgres_partitions if there is none.
CREATE OR REPLACE FUNCTION chash.import_postgres_partitions(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	rel regclass;
	pt record;
	bad record;
	cfg record;
	k integer;
	max_modulus integer;
	table_slots integer;
	names text[];
	relkinds text[];
	bounds text[];
	moduli integer[];
	remainders integer[];
	servers text[];
	col_types regtype[];
	col_collations text[];
	n integer;
BEGIN
	IF ring IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and input must not be null';
	END IF;
	PERFORM chash.check_ring_privileges(ring, 'An import of a partitioned table', '{INSERT,UPDATE}',
										'{INSERT,UPDATE,DELETE}');
	rel := to_regclass(input);
	IF rel IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_table',
			MESSAGE = format('relation "%s" does not exist', chash.message_name(input)),
			HINT = 'Format "postgres_partitions" takes the name of a table partitioned by hash, schema-qualified if need be.';
	END IF;
	IF NOT has_table_privilege(rel, 'SELECT') THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('permission denied for table %s', rel),
			DETAIL = 'An import of a partitioned table reads its layout, which needs SELECT privilege on the table.';
	END IF;
	SELECT p.partstrat, p.partattrs::int2[] AS attrs, p.partclass::oid[] AS classes,
		   p.partcollation::oid[] AS colls, p.partexprs IS NOT NULL AS has_exprs
	INTO pt
	FROM pg_partitioned_table p WHERE p.partrelid = rel;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
			MESSAGE = format('relation %s is not partitioned', rel),
			HINT = 'Format "postgres_partitions" reads the layout of a table partitioned by hash (PARTITION BY HASH).';
	END IF;
	IF pt.partstrat <> 'h' THEN
		RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
			MESSAGE = format('table %s is not partitioned by hash', rel),
			DETAIL = format('It is partitioned by %s.', CASE pt.partstrat WHEN 'l' THEN 'list' WHEN 'r' THEN 'range' ELSE pt.partstrat::text END),
			HINT = 'Format "postgres_partitions" reads the layout of a table partitioned by hash (PARTITION BY HASH).';
	END IF;
	IF pt.has_exprs OR 0 = ANY (pt.attrs) THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('the partition key of table %s has expressions', rel),
			DETAIL = 'chash routes keys by the values of the partition key''s columns.',
			HINT = 'Partition by a stored generated column computed from the expression.';
	END IF;
	SELECT a.attname, c.opcname INTO bad
	FROM unnest(pt.attrs, pt.classes) WITH ORDINALITY AS u(att, class, k)
	JOIN pg_attribute a ON a.attrelid = rel AND a.attnum = u.att
	JOIN pg_opclass c ON c.oid = u.class
	WHERE NOT c.opcdefault
	ORDER BY u.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('partition key column %s of table %s uses operator class %s', quote_ident(bad.attname), rel, quote_ident(bad.opcname)),
			DETAIL = 'chash hashes keys by their type''s default hash operator class, as a partition key uses unless it names another.';
	END IF;
	SELECT array_agg(a.atttypid::regtype ORDER BY u.k),
		   array_agg(CASE WHEN u.coll = 0 THEN NULL ELSE format('%I.%I', cn.nspname, co.collname) END ORDER BY u.k)
	INTO col_types, col_collations
	FROM unnest(pt.attrs, pt.colls) WITH ORDINALITY AS u(att, coll, k)
	JOIN pg_attribute a ON a.attrelid = rel AND a.attnum = u.att
	LEFT JOIN pg_collation co ON co.oid = u.coll
	LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace;

	SELECT array_agg(format('%I.%I', ns.nspname, c.relname) ORDER BY m[1]::integer, m[2]::integer, c.relname),
		   array_agg(c.relkind::text ORDER BY m[1]::integer, m[2]::integer, c.relname),
		   array_agg(b.bound ORDER BY m[1]::integer, m[2]::integer, c.relname),
		   array_agg(m[1]::integer ORDER BY m[1]::integer, m[2]::integer, c.relname),
		   array_agg(m[2]::integer ORDER BY m[1]::integer, m[2]::integer, c.relname),
		   array_agg(fs.srvname::text ORDER BY m[1]::integer, m[2]::integer, c.relname)
	INTO names, relkinds, bounds, moduli, remainders, servers
	FROM pg_inherits i
	JOIN pg_class c ON c.oid = i.inhrelid
	JOIN pg_namespace ns ON ns.oid = c.relnamespace
	CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
	LEFT JOIN LATERAL regexp_match(b.bound, '^FOR VALUES WITH \(modulus (\d+), remainder (\d+)\)$') m ON true
	LEFT JOIN pg_foreign_table ft ON ft.ftrelid = c.oid
	LEFT JOIN pg_foreign_server fs ON fs.oid = ft.ftserver
	WHERE i.inhparent = rel;
	n := coalesce(cardinality(names), 0);
	IF n = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('table %s has no partitions', rel),
			DETAIL = 'A ring of its layout would route no key.';
	END IF;
	FOR k IN 1 .. n LOOP
		IF relkinds[k] = 'p' THEN
			RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
				MESSAGE = format('partition %s of table %s is partitioned itself', names[k], rel),
				DETAIL = 'chash names one partition a key; the rows of a sub-partitioned table are routed in two steps.',
				HINT = 'Import the layout of each level as a ring of its own.';
		END IF;
		IF moduli[k] IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
				MESSAGE = format('partition %s of table %s has bound %s', names[k], rel, coalesce(bounds[k], 'NULL')),
				DETAIL = 'A partition of a table partitioned by hash has a modulus and a remainder.';
		END IF;
	END LOOP;
	max_modulus := (SELECT max(x) FROM unnest(moduli) x);
	-- (a table of one slot is one of two: a modulus divides the table's size)
	table_slots := greatest(max_modulus, 2);
	IF max_modulus > 65536 THEN
		RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded',
			MESSAGE = format('table %s has a partition of modulus %s', rel, max_modulus),
			DETAIL = 'The ring has as many slots as the largest modulus, at most 65536.';
	END IF;

	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash INTO cfg
	FROM chash.ring_config c WHERE c.ring = import_postgres_partitions.ring;
	IF NOT FOUND THEN
		PERFORM @extschema@.chash_ring_create(ring, profile => 'postgres_partitions', table_size => table_slots);
	ELSIF cfg.algorithm <> 'slots' OR cfg.key_hash <> 'postgres_partition' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" does not route as PostgreSQL''s hash partitioning', chash.message_name(ring)),
			DETAIL = format('Format "postgres_partitions" gives slots hashed by key hash "postgres_partition"; ring "%s" uses algorithm "%s" and key hash "%s".',
							chash.message_name(ring), cfg.algorithm, cfg.key_hash),
			HINT = 'Drop the ring, or import into a new one: the import creates it with profile "postgres_partitions".';
	END IF;
	-- one statement a step, each leaving a valid ring: no nodes, the new
	-- table, the partitions
	DELETE FROM chash.node_config c WHERE c.ring = import_postgres_partitions.ring;
	UPDATE chash.ring_config c
	SET table_size = table_slots, key_types = col_types,
		key_collations = col_collations
	WHERE c.ring = import_postgres_partitions.ring;
	INSERT INTO chash.node_config (ring, node, target, slots)
	SELECT import_postgres_partitions.ring, p.name, p.server,
		   ARRAY(SELECT unnest(range_agg(int4range(s, s + 1)))
				 FROM generate_series(p.remainder, table_slots - 1, p.modulus) s)
	FROM unnest(names, servers, moduli, remainders) WITH ORDINALITY AS p(name, server, modulus, remainder, k)
	ORDER BY p.k;
	RETURN n;
END
$$;
COMMENT ON FUNCTION chash.import_postgres_partitions(text, text) IS
	'chash_ring_import of format postgres_partitions';

CREATE OR REPLACE FUNCTION chash_ring_import(ring text, format text, input text,
								  datacenter text DEFAULT NULL)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e_state text;
	e_message text;
	e_detail text;
	e_hint text;
BEGIN
BEGIN
	IF ring IS NULL OR format IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, format and input must not be null';
	END IF;
	-- the privilege first: a role that may not change the ring learns
	-- nothing of the input, and costs no parse of it
	PERFORM chash.check_import_privilege(ring);
	IF format IN ('redis_cluster_nodes', 'redis_cluster_shards', 'nginx_upstream', 'haproxy_backend',
				  'twemproxy_pool') THEN
		IF datacenter IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('format "%s" takes no datacenter', format),
				DETAIL = 'Only format "nodetool_ring" lists data centres.';
		END IF;
		IF format = 'redis_cluster_shards' THEN
			RETURN chash.import_redis_cluster_shards(ring, input);
		ELSIF format = 'nginx_upstream' THEN
			RETURN chash.import_nginx_upstream(ring, input);
		ELSIF format = 'haproxy_backend' THEN
			RETURN chash.import_haproxy_backend(ring, input);
		ELSIF format = 'twemproxy_pool' THEN
			RETURN chash.import_twemproxy_pool(ring, input);
		END IF;
		RETURN chash.import_redis_cluster_nodes(ring, input);
	ELSIF format = 'nodetool_ring' THEN
		RETURN chash.import_nodetool_ring(ring, input, datacenter);
	ELSIF format = 'postgres_partitions' THEN
		IF datacenter IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('format "%s" takes no datacenter', format),
				DETAIL = 'Only format "nodetool_ring" lists data centres.';
		END IF;
		RETURN chash.import_postgres_partitions(ring, input);
	END IF;
	RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
		MESSAGE = format('unknown import format "%s"', chash.message_name(format)),
		HINT = 'The formats are "redis_cluster_nodes" (the output of CLUSTER NODES), "redis_cluster_shards" (of redis-cli --json CLUSTER SHARDS), "nodetool_ring" (of nodetool ring), "nginx_upstream" (an nginx upstream block), "haproxy_backend" (an HAProxy backend section), "twemproxy_pool" (a twemproxy pool) and "postgres_partitions" (the name of a table partitioned by hash).';
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_ring_import(text, text, text, text) IS
	'replace the nodes of a ring by those a system describes: format redis_cluster_nodes, the output of CLUSTER NODES, or redis_cluster_shards, of redis-cli --json CLUSTER SHARDS, gives each master (ip:port) with its slot ranges, down if it failed; format nodetool_ring, the output of nodetool ring, gives each node of one data centre (datacenter, needed if it lists several) with its tokens and its rack as zone; formats nginx_upstream (an upstream block with hash KEY consistent), haproxy_backend (a backend section with hash-type consistent) and twemproxy_pool (a nutcracker pool with distribution ketama) give each server with its weight, down if marked down or disabled, in the configuration''s order (HAProxy: its server id as ordinal); format postgres_partitions, the name of a table partitioned by hash, gives each partition (by its qualified name, a foreign table''s server as target) the slots of its modulus and remainder, in a ring of as many slots as the largest modulus (at least 2), created if need be; returns the number of nodes';
