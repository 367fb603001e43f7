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
-- ring's nodes: nodes that stay keep their weight, zone and target.  One
-- statement each: the ring is checked after each, whole.
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
	-- weight and target.  One statement each: the ring is checked after
	-- each, whole.
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
	IF format IN ('redis_cluster_nodes', 'redis_cluster_shards') THEN
		IF datacenter IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('format "%s" takes no datacenter', format),
				DETAIL = 'Only format "nodetool_ring" lists data centres.';
		END IF;
		IF format = 'redis_cluster_shards' THEN
			RETURN chash.import_redis_cluster_shards(ring, input);
		END IF;
		RETURN chash.import_redis_cluster_nodes(ring, input);
	ELSIF format = 'nodetool_ring' THEN
		RETURN chash.import_nodetool_ring(ring, input, datacenter);
	END IF;
	RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
		MESSAGE = format('unknown import format "%s"', chash.message_name(format)),
		HINT = 'The formats are "redis_cluster_nodes" (the output of CLUSTER NODES), "redis_cluster_shards" (of redis-cli --json CLUSTER SHARDS) and "nodetool_ring" (of nodetool ring).';
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_ring_import(text, text, text, text) IS
	'replace the nodes of a ring by those a system describes: format redis_cluster_nodes, the output of CLUSTER NODES, or redis_cluster_shards, of redis-cli --json CLUSTER SHARDS, gives each master (ip:port) with its slot ranges, down if it failed; format nodetool_ring, the output of nodetool ring, gives each node of one data centre (datacenter, needed if it lists several) with its tokens and its rack as zone; returns the number of nodes';
