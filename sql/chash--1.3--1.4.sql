/* sql/chash--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.4'" to load this file. \quit

/*
 * 1.4: routing as real systems do.  Profiles, the settings of one system
 * in one argument of chash_ring_create; hash tags; the key hash crc16 of
 * Redis Cluster; a ring filled from a Redis cluster's CLUSTER NODES; the
 * slots that move between two slot maps.
 */

-- The part of a key that is hashed: the bytes between the first
-- hash_tag[0] and the first hash_tag[1] after it, if there are any, else
-- the whole key (Redis Cluster's {...}, twemproxy's hash_tag)
ALTER TABLE chash.ring_config ADD COLUMN hash_tag text;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_hash_tag_check
	CHECK (pg_catalog.octet_length(hash_tag) = 2 AND
		   hash_tag OPERATOR(pg_catalog.~) '^[!-~][!-~]$'::text);

CREATE FUNCTION chash.profile_is_known(profile text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'chash_profile_is_known'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.profile_is_known(text) IS
	'whether chash has a profile of that name';

-- The profile a ring was created with, for the record: its settings are
-- in the other columns
ALTER TABLE chash.ring_config ADD COLUMN profile text;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_profile_check
	CHECK (chash.profile_is_known(profile));

CREATE FUNCTION chash_profiles()
	RETURNS TABLE(profile text, system text, settings text, may_set text[],
				  nodes text, checked_against text)
	AS 'MODULE_PATHNAME', 'chash_profiles'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION chash_profiles() IS
	'the profiles of chash_ring_create: the system each routes as, its settings as chash_ring_create''s arguments, those that may be given with it, how to name the nodes, and the software it was checked against';

-- Settings a profile does not decide are NULL by default, so that a
-- profile can tell them from those given
DROP FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text);
CREATE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT NULL,
								  hash text DEFAULT NULL,
								  vnodes integer DEFAULT NULL,
								  vnode_name text DEFAULT NULL,
								  vnode_first integer DEFAULT NULL,
								  key_hash text DEFAULT NULL,
								  ketama_variant text DEFAULT NULL,
								  ties text DEFAULT NULL,
								  table_size integer DEFAULT NULL,
								  lookup text DEFAULT NULL,
								  hash_tag text DEFAULT NULL,
								  profile text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text, text, text) IS
	'create a ring: algorithm (ring, ketama, tokens, modulo, jump, rendezvous, maglev, slots, nginx, haproxy, dalli, elasticsearch or envoy_ring_hash; default ring), hash of the points or node names (default: the algorithm''s), vnodes per node of average weight (default 160), vnode name template ({node}, {i}), first i (default 0), hash of the keys (default: hash), ketama variant, ties rule, table size, lookup rule, hash tag (two characters, as ''{}''), or the profile of a real system (chash_profiles())';

-- A ring filled from a system's own description of its cluster
-- The checks of an import of a Redis cluster's slots: a ring of 16384
-- slots that hashes keys as Redis does
CREATE FUNCTION chash.check_redis_ring(ring text, format text)
	RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cfg record;
BEGIN
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
			DETAIL = format('Format "%s" gives the slots of a Redis cluster; ring "%s" uses algorithm "%s" with %s slots.',
							format, chash.message_name(ring), cfg.algorithm, coalesce(cfg.table_size::text, 'no')),
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
CREATE FUNCTION chash.replace_redis_masters(ring text, names text[], states text[],
											slot_lists text[])
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	DELETE FROM chash.node_config n
	WHERE n.ring = replace_redis_masters.ring AND NOT (n.node = ANY (names));
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

CREATE FUNCTION chash.import_redis_cluster_nodes(ring text, input text)
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
		IF 'noaddr' = ANY (flags) OR name !~ '^.+:[0-9]+$' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s on line %s has no address', chash.message_name(f[1]), line.n),
				DETAIL = format('Its address is "%s".', chash.message_name(f[2])),
				HINT = 'A node that does not know its own address shows ":port"; take CLUSTER NODES from another node of the cluster.';
		END IF;
		IF name = ANY (names) THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s appears twice in the input', chash.message_name(name));
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

	RETURN chash.replace_redis_masters(ring, names, states, slot_lists);
END
$$;
COMMENT ON FUNCTION chash.import_redis_cluster_nodes(text, text) IS
	'chash_ring_import of format redis_cluster_nodes';

-- A RESP map as redis-cli --json shows it: an object (RESP3), or an array
-- of keys and values (RESP2, redis-cli -2 --json); NULL if neither
CREATE FUNCTION chash.resp_map(v jsonb) RETURNS jsonb
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE
	WHEN jsonb_typeof(v) = 'object' THEN v
	WHEN jsonb_typeof(v) = 'array' AND jsonb_array_length(v) % 2 = 0 AND
		 NOT EXISTS (SELECT FROM jsonb_array_elements(v) WITH ORDINALITY e(x, i)
					 WHERE i % 2 = 1 AND jsonb_typeof(x) <> 'string') THEN
		coalesce((SELECT jsonb_object_agg(k.x #>> '{}', e.x)
				  FROM jsonb_array_elements(v) WITH ORDINALITY k(x, i)
				  JOIN jsonb_array_elements(v) WITH ORDINALITY e(x, j) ON j = i + 1
				  WHERE i % 2 = 1), '{}'::jsonb)
END
$$;
COMMENT ON FUNCTION chash.resp_map(jsonb) IS
	'a RESP map shown by redis-cli --json (an object, or an array of keys and values), as an object';

CREATE FUNCTION chash.import_redis_cluster_shards(ring text, input text)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	doc jsonb;
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
	PERFORM chash.check_redis_ring(ring, 'redis_cluster_shards');
	BEGIN
		doc := input::jsonb;
	EXCEPTION WHEN invalid_text_representation THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_text_representation',
			MESSAGE = 'the input is not JSON',
			HINT = 'Give the output of redis-cli --json CLUSTER SHARDS.';
	END;
	IF jsonb_typeof(doc) <> 'array' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'the input is not a list of shards',
			HINT = 'Give the output of redis-cli --json CLUSTER SHARDS.';
	END IF;
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
				DETAIL = 'A shard has its "slots" and its "nodes".';
		END IF;
		master := NULL;
		FOR node IN SELECT chash.resp_map(n.x) FROM jsonb_array_elements(shard.m -> 'nodes') n(x) LOOP
			IF node IS NULL OR node ->> 'role' IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
					MESSAGE = format('a node of shard %s of the input is not one of CLUSTER SHARDS', shard.i),
					DETAIL = 'A node has its "id", "ip", "port", "role" and "health".';
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
		IF coalesce(master ->> 'ip', '') IN ('', '?') OR port !~ '^[0-9]+$' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the master of shard %s of the input has no address', shard.i),
				DETAIL = format('Its ip is %s and its port %s.', coalesce('"' || chash.message_name(master ->> 'ip') || '"', 'missing'),
								coalesce(chash.message_name(port), 'missing'));
		END IF;
		IF name = ANY (names) THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('master %s appears twice in the input', chash.message_name(name));
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
	RETURN chash.replace_redis_masters(ring, names, states, slot_lists);
END
$$;
COMMENT ON FUNCTION chash.import_redis_cluster_shards(text, text) IS
	'chash_ring_import of format redis_cluster_shards';

CREATE FUNCTION chash.import_nodetool_ring(ring text, input text, datacenter text)
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
	-- the notes around them are not token lines.
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
	  AND t.f[pg_catalog.cardinality(t.f)] ~ '^-?[0-9]+$';
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
		  AND (x.token::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807
			   OR x.status NOT IN ('Up', 'Down', '?')
			   OR x.state NOT IN ('Normal', 'Leaving', 'Joining', 'Moving')
			   OR pg_catalog.length(x.address) > 1024)
		ORDER BY x.n LIMIT 1
	LOOP
		IF bad.token::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
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
		ELSE
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('the address on line %s is too long for a node name', bad.n);
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
	WHERE n.ring = import_nodetool_ring.ring AND NOT (n.node = ANY (names));
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

CREATE FUNCTION chash_ring_import(ring text, format text, input text,
								  datacenter text DEFAULT NULL)
	RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF ring IS NULL OR format IS NULL OR input IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring, format and input must not be null';
	END IF;
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
END
$$;
COMMENT ON FUNCTION chash_ring_import(text, text, text, text) IS
	'replace the nodes of a ring by those a system describes: format redis_cluster_nodes, the output of CLUSTER NODES, or redis_cluster_shards, of redis-cli --json CLUSTER SHARDS, gives each master (ip:port) with its slot ranges, down if it failed; format nodetool_ring, the output of nodetool ring, gives each node of one data centre (datacenter, needed if it lists several) with its tokens and its rack as zone; returns the number of nodes';

-- Elasticsearch indices of routing_partition_size > 1
CREATE FUNCTION chash_lookup_partitioned(ring text, routing text, id text,
										 routing_partition_size integer)
	RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_partitioned'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_partitioned(text, text, text, integer) IS
	'the shard of a document (its routing and _id) of an Elasticsearch index of that routing_partition_size, on an elasticsearch ring';
CREATE FUNCTION chash_lookup_partitioned(ring text, routing text,
										 routing_partition_size integer)
	RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_partitioned_search'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_partitioned(text, text, integer) IS
	'the shards, in shard order, that a search with that routing visits in an Elasticsearch index of that routing_partition_size, on an elasticsearch ring';

-- A partition key as Cassandra's CQL serialises it
CREATE FUNCTION chash_cql_key(VARIADIC components "any") RETURNS bytea
	AS 'MODULE_PATHNAME', 'chash_cql_key'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash_cql_key("any") IS
	'a partition key as Cassandra''s CQL serialises it, the bytes hash cassandra_murmur3 takes: one value alone (text, varchar, bytea, smallint, integer, bigint, boolean, uuid), or two or more as a composite key';

-- The number of slots of a ring's table as the library builds it
CREATE FUNCTION chash.table_size(ring text) RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_table_size_sql'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.table_size(text) IS
	'the number of slots of a slots, maglev or elasticsearch ring''s table as built, NULL for other rings';

-- The slots whose owner differs between two rings of slots of one size,
-- as ranges of one old and one new owner each (NULL: no owner)
CREATE FUNCTION chash_moved_slots(from_ring text, to_ring text)
	RETURNS TABLE(slots int4range, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	a record;
	b record;
	size_a integer;
	size_b integer;
BEGIN
	IF from_ring IS NULL OR to_ring IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'the rings of a plan must not be null';
	END IF;
	IF from_ring = to_ring THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'a plan compares two different rings',
			DETAIL = format('Both rings are "%s".', chash.message_name(from_ring)),
			HINT = 'Copy the ring with chash_ring_copy(), change the copy, and compare the two.';
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO a
	FROM chash.ring_config c WHERE c.ring = from_ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(from_ring));
	END IF;
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.hash_tag INTO b
	FROM chash.ring_config c WHERE c.ring = to_ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(to_ring));
	END IF;
	-- the tables as built: the library knows their sizes
	size_a := chash.table_size(from_ring);
	size_b := chash.table_size(to_ring);
	-- elasticsearch's slot is floorMod of the signed hash, the others' the
	-- unsigned position mod the size
	IF size_a IS NULL OR size_b IS NULL OR size_a <> size_b OR
	   a.key_hash <> b.key_hash OR a.hash_tag IS DISTINCT FROM b.hash_tag OR
	   (a.algorithm = 'elasticsearch') <> (b.algorithm = 'elasticsearch') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('rings "%s" and "%s" are not tables of slots that hash keys alike',
							 chash.message_name(from_ring), chash.message_name(to_ring)),
			DETAIL = format('Ring "%s" uses algorithm "%s" with %s slots, key hash "%s" and hash tag %s; ring "%s" "%s" with %s, "%s" and %s.',
							chash.message_name(from_ring), a.algorithm, coalesce(size_a::text, 'no'), a.key_hash,
							coalesce('"' || a.hash_tag || '"', 'none'),
							chash.message_name(to_ring), b.algorithm, coalesce(size_b::text, 'no'), b.key_hash,
							coalesce('"' || b.hash_tag || '"', 'none')),
			HINT = 'Compare other rings key by key: chash_moved_keys().';
	END IF;
	-- each ring's owner of each slot, then the slots whose owner differs
	RETURN QUERY
	WITH fa AS (
		SELECT generate_series(lower(x.slots), upper(x.slots) - 1) AS s, x.node
		FROM @extschema@.chash_slot_ranges(from_ring) x
	), fb AS (
		SELECT generate_series(lower(x.slots), upper(x.slots) - 1) AS s, x.node
		FROM @extschema@.chash_slot_ranges(to_ring) x
	), moved AS (
		SELECT t.s, fa.node AS from_node, fb.node AS to_node,
			   t.s - row_number() OVER (PARTITION BY fa.node, fb.node ORDER BY t.s) AS run
		FROM generate_series(0, size_a - 1) AS t(s)
		LEFT JOIN fa ON fa.s = t.s
		LEFT JOIN fb ON fb.s = t.s
		WHERE fa.node IS DISTINCT FROM fb.node
	)
	SELECT int4range(min(m.s), max(m.s), '[]'), m.from_node, m.to_node
	FROM moved m
	GROUP BY m.run, m.from_node, m.to_node
	ORDER BY min(m.s);
END
$$;
COMMENT ON FUNCTION chash_moved_slots(text, text) IS
	'the slots whose owner differs between two tables of slots of one size (slots and maglev rings, or two elasticsearch rings), as ranges with their old and new owner';

-- A ring's routing configuration, for plans to check that it is
-- unchanged: with its hash tag (concat_ws skips a NULL one, so untagged
-- rings keep their fingerprints)
CREATE OR REPLACE FUNCTION chash.routing_fingerprint(ring text) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT md5(concat_ws(' ', r.algorithm, r.hash, coalesce(r.key_hash, r.hash), r.vnodes, r.vnode_name,
					 r.vnode_first, r.ketama_variant, r.ties, r.table_size, r.lookup,
					 (SELECT string_agg(concat_ws(' ', quote_literal(n.node), n.weight, n.vnodes, n.state,
												  n.ordinal, quote_nullable(n.zone), n.tokens::text,
												  n.slots::text), ',' ORDER BY n.node)
					  FROM chash.node_config n WHERE n.ring = r.ring),
					 r.hash_tag))
FROM chash.ring_config r WHERE r.ring = routing_fingerprint.ring
$$;

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
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.table_size, c.hash_tag INTO r
	FROM chash.ring_config c WHERE c.ring = mysql_node_rows.ring;
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

/*
 * The view of rings shows hash_tag and profile.  Dropped and made again,
 * as its columns change; then read as the caller as in 1.3
 * (security_invoker from 15 on, a function of the same query on 14).
 */
DROP VIEW chash.rings;
DROP FUNCTION IF EXISTS chash.rings_as_caller();
CREATE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   CASE WHEN pg_catalog.count(n.node) OPERATOR(pg_catalog.=) pg_catalog.count(n.points)
				THEN coalesce(pg_catalog.sum(n.points), 0)::bigint END AS points,
		   r.ketama_variant, r.ties, r.version,
		   chash.ring_problem(r.ring) AS problem,
		   r.table_size, r.lookup, r.hash_tag, r.profile
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points, its version, why it cannot be built if it cannot, table size, lookup rule, hash tag and the profile it was created with';
GRANT SELECT ON chash.rings TO PUBLIC;

DO $$
DECLARE
	path text := pg_catalog.current_setting('search_path');
	columns text;
	body text;
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.rings SET (security_invoker = true);
		RETURN;
	END IF;
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
							   pg_catalog.format_type(a.atttypid, a.atttypmod)),
							   ', ' ORDER BY a.attnum)
	INTO columns
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = 'chash.rings'::regclass AND a.attnum > 0;
	body := pg_catalog.pg_get_viewdef('chash.rings'::regclass);
	EXECUTE pg_catalog.format(
		'CREATE FUNCTION chash.rings_as_caller() RETURNS TABLE(%s) LANGUAGE sql STABLE '
		'SET search_path = pg_catalog, pg_temp AS %L', columns, body);
	COMMENT ON FUNCTION chash.rings_as_caller() IS
		'the rows of the view chash.rings as the caller may read them (PostgreSQL 14)';
	CREATE OR REPLACE VIEW chash.rings AS SELECT * FROM chash.rings_as_caller();
	PERFORM pg_catalog.set_config('search_path', path, true);
END
$$;
