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

/*
 * Online moves (chash_move_online): the moving rows of a ring change
 * stream from each source shard to its destinations by logical
 * replication while writes go on; at cutover a fence on each source
 * refuses writes to the moving keys (40001, so clients retry), the last
 * changes arrive, both sides are compared, and the ring switches.
 * Commands reach the shards through dblink, over the postgres_fdw servers
 * and user mappings the node targets name.  Every step looks at the
 * shards before it acts, so the same CALL resumes a move that stopped.
 */
CREATE TABLE chash.online_moves (
	move_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	token text NOT NULL UNIQUE,			-- names the move's objects on the shards
	from_ring text NOT NULL,
	to_ring text NOT NULL,
	relation regclass NOT NULL,
	key_column name NOT NULL,
	from_fingerprint text NOT NULL,
	to_fingerprint text NOT NULL,
	step text NOT NULL DEFAULT 'planned'
		CHECK (step IN ('planned', 'switched', 'done')),
	started timestamptz NOT NULL DEFAULT pg_catalog.now(),
	switched timestamptz,
	finished timestamptz,
	write_block interval				-- first fence's commit to the switch's commit
);
COMMENT ON TABLE chash.online_moves IS
	'the online moves of chash_move_online: rings, relation, step reached and the write block measured at cutover';
CREATE TABLE chash.online_move_pairs (
	move_id bigint NOT NULL REFERENCES chash.online_moves ON DELETE CASCADE,
	pair integer NOT NULL,
	from_node text NOT NULL,
	to_node text NOT NULL,
	ranges int8multirange NOT NULL,		-- the positions that move from from_node to to_node
	rows_moved bigint,
	PRIMARY KEY (move_id, pair)
);
CREATE TABLE chash.online_move_nodes (
	move_id bigint NOT NULL REFERENCES chash.online_moves ON DELETE CASCADE,
	node text NOT NULL,
	server name NOT NULL,				-- its postgres_fdw server on the coordinator
	remote_table text NOT NULL,			-- its table on that server
	conninfo text NOT NULL,				-- how its destinations' subscriptions reach it
	PRIMARY KEY (move_id, node)
);
COMMENT ON TABLE chash.online_move_nodes IS
	'for each online move, the shard of each node taking part, as the rings named it when the move began';
COMMENT ON TABLE chash.online_move_pairs IS
	'for each online move, the pairs of nodes that exchange keys and the positions each pair moves';
REVOKE ALL ON chash.online_moves, chash.online_move_pairs, chash.online_move_nodes FROM PUBLIC;

-- dblink, wherever it is installed, or an error
CREATE FUNCTION chash.move_dblink() RETURNS text
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
 * libpq parameters of the server and the caller's user mapping, which a
 * subscription on another shard uses to reach it.
 */
CREATE FUNCTION chash.move_shard(ring text, node text, relation regclass,
								 OUT server name, OUT remote_table text, OUT conninfo text)
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	relname name;
	target text;
	ft regclass;
	opts text[];
	schema_name text;
	table_name text;
BEGIN
	SELECT c.relname INTO relname FROM pg_class c WHERE c.oid = relation;
	target := chash.migration_target(ring, node, relname, 'postgresql');
	ft := to_regclass(target);
	SELECT s.srvname, t.ftoptions INTO server, opts
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
	SELECT o.v INTO schema_name FROM pg_options_to_table(opts) AS o(k, v) WHERE o.k = 'schema_name';
	SELECT o.v INTO table_name FROM pg_options_to_table(opts) AS o(k, v) WHERE o.k = 'table_name';
	SELECT format('%I.%I', coalesce(schema_name, n.nspname), coalesce(table_name, c.relname))
	INTO remote_table
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ft;
	-- libpq's own parameters only: postgres_fdw's (fetch_size, ...) are not
	SELECT string_agg(format('%s=%s', o.k, '''' || replace(replace(o.v, '\', '\\'), '''', '\''') || ''''), ' ')
	INTO conninfo
	FROM (SELECT (pg_options_to_table(s.srvoptions)).* FROM pg_foreign_server s WHERE s.srvname = server
		  UNION ALL
		  SELECT (pg_options_to_table(u.umoptions)).* FROM pg_user_mappings u
		  WHERE u.srvname = server AND u.usename IN (current_user, 'public')) AS o(k, v)
	WHERE o.k IN ('host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'passfile',
				  'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'sslcrl', 'sslpassword',
				  'gssencmode', 'krbsrvname', 'channel_binding', 'connect_timeout',
				  'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count',
				  'target_session_attrs', 'sslsni', 'require_auth');
END
$$;

-- a row of a query run on a shard, as text
CREATE FUNCTION chash.move_remote(conn text, query text) RETURNS text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	v text;
BEGIN
	EXECUTE format('SELECT v FROM %s.dblink($1, $2) AS t(v text)', chash.move_dblink())
	INTO v USING conn, query;
	RETURN v;
END
$$;

-- a command run on a shard, in a transaction of its own unless one is open there
CREATE FUNCTION chash.move_remote_exec(conn text, command text) RETURNS text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	v text;
BEGIN
	EXECUTE format('SELECT %s.dblink_exec($1, $2)', chash.move_dblink()) INTO v USING conn, command;
	RETURN v;
END
$$;
REVOKE ALL ON FUNCTION chash.move_dblink(), chash.move_shard(text, text, regclass),
	chash.move_remote(text, text), chash.move_remote_exec(text, text) FROM PUBLIC;

-- a dblink connection to a node's shard, opened once a move
CREATE FUNCTION chash.move_connect(server name) RETURNS text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	conn text := 'chash_move_' || server;
	dbl text := chash.move_dblink();
	open text[];
BEGIN
	EXECUTE format('SELECT %s.dblink_get_connections()', dbl) INTO open;
	IF open IS NULL OR NOT conn = ANY (open) THEN
		EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING conn, server;
	END IF;
	RETURN conn;
END
$$;
REVOKE ALL ON FUNCTION chash.move_connect(name) FROM PUBLIC;

-- waits until every subscription of a move on a shard has copied its table,
-- and then until it has received the source's WAL up to lsn (if given)
CREATE FUNCTION chash.move_wait(conn text, subscription text, lsn pg_lsn, what text) RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	started timestamptz := clock_timestamp();
	told timestamptz := clock_timestamp();
	state text;
BEGIN
	LOOP
		state := chash.move_remote(conn, format($q$
			SELECT CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_subscription_rel r
									 JOIN pg_catalog.pg_subscription s ON s.oid = r.srsubid
									 WHERE s.subname = %1$L AND r.srsubstate <> 'r')
						 OR NOT EXISTS (SELECT FROM pg_catalog.pg_subscription_rel r
										JOIN pg_catalog.pg_subscription s ON s.oid = r.srsubid
										WHERE s.subname = %1$L)
						THEN 'copying'
						WHEN %2$L::pg_catalog.pg_lsn IS NULL THEN 'ready'
						ELSE coalesce((SELECT CASE WHEN max(st.latest_end_lsn) >= %2$L::pg_catalog.pg_lsn THEN 'ready'
												   ELSE (%2$L::pg_catalog.pg_lsn - max(st.latest_end_lsn))::text END
									   FROM pg_catalog.pg_stat_subscription st
									   WHERE st.subname = %1$L AND st.relid IS NULL), 'starting') END
			$q$, subscription, lsn));
		EXIT WHEN state = 'ready';
		IF clock_timestamp() - told > interval '5 s' THEN
			RAISE NOTICE 'chash move: %, %', what,
				CASE WHEN state ~ '^[0-9.]+$' THEN state || ' bytes behind' ELSE state END;
			told := clock_timestamp();
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RAISE NOTICE 'chash move: %, caught up in % s', what,
		round(extract(epoch FROM clock_timestamp() - started)::numeric, 3);
END
$$;
REVOKE ALL ON FUNCTION chash.move_wait(text, text, pg_lsn, text) FROM PUBLIC;

/*
 * What a move needs of a node's shard, checked before anything is made
 * there: the table with a replica identity, chash (its filter and fence
 * hash keys), and for a source wal_level = logical and a role that may
 * replicate, for a destination one that may create subscriptions.
 * Returns chash's schema there.
 */
CREATE FUNCTION chash.move_check_shard(conn text, node text, remote_table text,
									   is_source boolean, is_destination boolean)
	RETURNS text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	facts text[];
	problem text;
	hint text;
BEGIN
	facts := string_to_array(chash.move_remote(conn, format($q$
		SELECT concat_ws(',',
			coalesce((SELECT quote_ident(n.nspname) FROM pg_catalog.pg_extension e
					  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
					  WHERE e.extname = 'chash'), '-'),
			CASE WHEN pg_catalog.to_regclass(%1$L) IS NULL THEN 'missing'
				 WHEN (SELECT c.relreplident IN ('f', 'i')
							  OR (c.relreplident = 'd' AND EXISTS (SELECT FROM pg_catalog.pg_index i
																   WHERE i.indrelid = c.oid AND i.indisprimary))
					   FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass(%1$L)) THEN 'identity'
				 ELSE 'none' END,
			pg_catalog.current_setting('wal_level'),
			(SELECT r.rolsuper OR r.rolreplication FROM pg_catalog.pg_roles r WHERE r.rolname = current_user),
			(SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user)
			OR (pg_catalog.current_setting('server_version_num')::integer >= 160000
				AND pg_catalog.pg_has_role('pg_create_subscription', 'USAGE')))
		$q$, remote_table)), ',');
	IF facts[2] = 'missing' THEN
		problem := format('relation %s does not exist', remote_table);
	ELSIF facts[2] = 'none' THEN
		problem := format('relation %s has no primary key or replica identity', remote_table);
		hint := 'Logical replication carries UPDATE and DELETE only for a table with a primary key or REPLICA IDENTITY.';
	ELSIF facts[1] = '-' THEN
		problem := 'extension "chash" is not installed';
		hint := 'The move''s filter and fence on the shards hash keys with chash: install it there too.';
	ELSIF is_source AND facts[3] <> 'logical' THEN
		problem := format('wal_level is %s', facts[3]);
		hint := 'A source of an online move needs wal_level = logical (a restart of that server).';
	ELSIF is_source AND facts[4] <> 't' THEN
		problem := 'the mapped role may not replicate';
		hint := 'The user mapping''s role on a source needs the REPLICATION attribute.';
	ELSIF is_destination AND facts[5] <> 't' THEN
		problem := 'the mapped role may not create subscriptions';
		hint := 'The user mapping''s role on a destination must be a superuser (or, from PostgreSQL 16 on, a member of pg_create_subscription).';
	END IF;
	IF problem IS NOT NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('node "%s" cannot take part in an online move: %s', chash.message_name(node), problem),
			HINT = coalesce(hint, 'Create the node''s table on its shard first.');
	END IF;
	RETURN facts[1];
END
$$;
REVOKE ALL ON FUNCTION chash.move_check_shard(text, text, text, boolean, boolean) FROM PUBLIC;

CREATE PROCEDURE chash_move_online(from_ring text, to_ring text,
								   relation regclass, key_column name)
	LANGUAGE plpgsql
	AS $move$
DECLARE
	-- no SET clause: a procedure with one cannot commit
	pin constant text := 'pg_catalog, pg_temp';
	mv chash.online_moves;
	key_type regtype;
	key_hash text;
	nd record;
	pair record;
	conn jsonb := '{}';			-- node: its dblink connection
	ext jsonb := '{}';			-- node: chash's schema on its shard
	sconn text;
	dconn text;
	sub text;
	pub text;
	keep text;
	fence text;
	old_key text;
	new_key text;
	hashed text;
	row_expr text;
	lsn pg_lsn;
	lsns jsonb := '{}';			-- source: its WAL position once fenced
	got text;
	s_sum text;
	d_sum text;
	deleted bigint;
	fence_start timestamptz;
	checked timestamptz;
	blocked interval;
BEGIN
	PERFORM pg_catalog.set_config('search_path', pin, true);
	IF from_ring IS NULL OR to_ring IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'from_ring and to_ring must not be null';
	END IF;
	key_type := chash.key_column_type(relation, key_column);
	-- the cleanup waits for every older transaction, so it must see them all
	IF NOT pg_has_role('pg_read_all_stats', 'USAGE') THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = 'an online move needs the privileges of pg_read_all_stats',
			DETAIL = 'Before it deletes the moved rows, the move waits for every transaction that may still route by the old ring, and only pg_read_all_stats sees them all.',
			HINT = 'Grant pg_read_all_stats to the role that runs the move.';
	END IF;
	PERFORM chash.move_dblink();
	-- one move of a ring at a time: a session lock, which a kill releases
	-- (and which this session may still hold from a call that failed)
	IF NOT EXISTS (SELECT FROM pg_locks l
				   WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted
					 AND l.classid::integer = hashtext('chash_move_online')
					 AND l.objid::integer = hashtext(from_ring) AND l.objsubid = 2)
	   AND NOT pg_try_advisory_lock(hashtext('chash_move_online'), hashtext(from_ring)) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'lock_not_available',
			MESSAGE = format('an online move of ring "%s" is already running', from_ring),
			HINT = 'Wait for it to end. A move that failed keeps the ring until its session ends: run the same CALL again there, or end that session.';
	END IF;

	SELECT * INTO mv FROM chash.online_moves m
	WHERE m.from_ring = chash_move_online.from_ring AND m.to_ring = chash_move_online.to_ring
	  AND m.relation = chash_move_online.relation AND m.key_column = chash_move_online.key_column
	  AND m.step <> 'done';
	IF mv.move_id IS NULL THEN
		IF chash.plan_kind(from_ring, to_ring) <> 'ranges' THEN
			RAISE EXCEPTION USING
				ERRCODE = 'feature_not_supported',
				MESSAGE = format('rings "%s" and "%s" cannot be moved online', from_ring, to_ring),
				DETAIL = 'They compare key by key, not range by range, so a shard cannot tell a moving key by its hash.',
				HINT = 'Use chash_migration_sql for this change.';
		END IF;
		IF NOT EXISTS (SELECT FROM @extschema@.chash_moved_ranges(from_ring, to_ring)) THEN
			RAISE NOTICE 'chash move: rings "%" and "%" place every key alike, nothing to move', from_ring, to_ring;
			PERFORM pg_advisory_unlock(hashtext('chash_move_online'), hashtext(from_ring));
			RETURN;
		END IF;
		INSERT INTO chash.online_moves (token, from_ring, to_ring, relation, key_column,
										from_fingerprint, to_fingerprint)
		VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 10),
				from_ring, to_ring, relation, key_column,
				chash.routing_fingerprint(from_ring), chash.routing_fingerprint(to_ring))
		RETURNING * INTO mv;
		INSERT INTO chash.online_move_pairs (move_id, pair, from_node, to_node, ranges)
		SELECT mv.move_id, row_number() OVER (ORDER BY r.from_node, r.to_node), r.from_node, r.to_node,
			   range_agg(CASE WHEN r.hi = 9223372036854775807 THEN int8range(r.lo, NULL, '[)')
							  ELSE int8range(r.lo, r.hi, '[]') END)
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r
		GROUP BY r.from_node, r.to_node;
		-- a source as the old ring names it, a destination as the new one does
		INSERT INTO chash.online_move_nodes (move_id, node, server, remote_table, conninfo)
		SELECT mv.move_id, u.node, s.server, s.remote_table, coalesce(s.conninfo, '')
		FROM (SELECT DISTINCT ON (node) node, ring
			  FROM (SELECT p.from_node, from_ring, 1 FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id
					UNION ALL
					SELECT p.to_node, to_ring, 2 FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id)
				   AS x(node, ring, o)
			  ORDER BY node, o) u,
			 LATERAL chash.move_shard(u.ring, u.node, relation) s;
		-- one publication, one connection and one fence a shard
		SELECT string_agg(format('"%s"', n.node), ', ' ORDER BY n.node), n.server INTO got, sub
		FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id
		GROUP BY n.server HAVING count(*) > 1 LIMIT 1;
		IF got IS NOT NULL THEN
			RAISE EXCEPTION USING
				ERRCODE = 'feature_not_supported',
				MESSAGE = format('nodes %s share server "%s"', got, sub),
				DETAIL = 'An online move publishes, fences and subscribes per shard, so each of its nodes needs a postgres_fdw server of its own.',
				HINT = 'Give each node a server, or use chash_migration_sql for this change.';
		END IF;
	ELSIF mv.step = 'planned'
		  AND (chash.routing_fingerprint(from_ring) IS DISTINCT FROM mv.from_fingerprint
			   OR chash.routing_fingerprint(to_ring) IS DISTINCT FROM mv.to_fingerprint) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('ring "%s" or ring "%s" has changed since online move %s started',
							 from_ring, to_ring, mv.move_id),
			HINT = 'Restore the rings as they were, then run the same CALL again.';
	ELSIF mv.step = 'switched' AND chash.routing_fingerprint(from_ring) IS DISTINCT FROM mv.to_fingerprint THEN
		RAISE EXCEPTION USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = format('ring "%s" has changed since online move %s switched it', from_ring, mv.move_id),
			DETAIL = 'The moved rows are still on their old nodes too, and the cleanup deletes them by the move''s plan.',
			HINT = 'Restore the ring as the move left it, then run the same CALL again.';
	END IF;
	-- both rings hash keys alike (plan_kind said so); after the switch they are equal
	SELECT coalesce(r.key_hash, r.hash) INTO key_hash FROM chash.ring_config r WHERE r.ring = from_ring;
	pub := 'chash_move_' || mv.token;
	keep := 'chash_move_' || mv.token || '_keep';
	fence := 'chash_move_' || mv.token || '_fence';
	IF key_type = 'bytea'::regtype THEN
		old_key := format('OLD.%I', key_column);
		new_key := format('NEW.%I', key_column);
	ELSE
		old_key := format('OLD.%I::pg_catalog.text', key_column);
		new_key := format('NEW.%I::pg_catalog.text', key_column);
	END IF;
	SELECT string_agg('t.' || quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO row_expr
	FROM pg_attribute a
	WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped;

	-- every shard of the move: reached, and checked before anything is made there
	FOR nd IN SELECT n.*,
					 EXISTS (SELECT FROM chash.online_move_pairs p WHERE p.move_id = n.move_id AND p.from_node = n.node) AS is_source,
					 EXISTS (SELECT FROM chash.online_move_pairs p WHERE p.move_id = n.move_id AND p.to_node = n.node) AS is_destination
			  FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id ORDER BY n.node LOOP
		conn := conn || jsonb_build_object(nd.node, chash.move_connect(nd.server));
		ext := ext || jsonb_build_object(nd.node, chash.move_check_shard(conn->>nd.node, nd.node, nd.remote_table,
																		 nd.is_source AND mv.step = 'planned',
																		 nd.is_destination AND mv.step = 'planned'));
	END LOOP;
	-- a destination must not hold rows of moving keys, but those this
	-- move's subscriptions brought: the copies would collide with them
	IF mv.step = 'planned' THEN
		FOR nd IN SELECT n.node, n.remote_table, range_agg(r) AS ranges
				  FROM chash.online_move_nodes n
				  JOIN chash.online_move_pairs p ON p.move_id = n.move_id AND p.to_node = n.node,
					   unnest(p.ranges) r
				  WHERE n.move_id = mv.move_id GROUP BY n.node, n.remote_table LOOP
			dconn := conn->>nd.node;
			hashed := format('%s.chash_hash(%L, %%s) OPERATOR(pg_catalog.<@) %L::pg_catalog.int8multirange',
							 ext->>nd.node, key_hash, nd.ranges);
			IF chash.move_remote(dconn, format(
					'SELECT count(*) FROM %s t WHERE %s', nd.remote_table,
					format(hashed, replace(new_key, 'NEW.', 't.')))) <> '0' THEN
				-- unless this move's subscriptions brought them
				IF chash.move_remote(dconn, format('SELECT count(*) FROM pg_catalog.pg_subscription WHERE subname LIKE %L',
												   pub || '\_%')) = '0' THEN
					RAISE EXCEPTION USING
						ERRCODE = 'object_not_in_prerequisite_state',
						MESSAGE = format('node "%s" already holds rows of keys that move to it', chash.message_name(nd.node)),
						DETAIL = format('Table %s there has rows whose keys the new ring gives it.', nd.remote_table),
						HINT = 'Copies of them would collide with the rows the move brings; remove them first.';
				END IF;
			END IF;
		END LOOP;
	END IF;
	-- the move is recorded only once every check has passed
	COMMIT;
	PERFORM pg_catalog.set_config('search_path', pin, true);

	IF mv.step = 'planned' THEN
		RAISE NOTICE 'chash move %: streaming the moving rows of % (% pairs of nodes)', mv.move_id, relation,
			(SELECT count(*) FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id);
		-- 1. per source a publication (no truncate: it would empty the
		-- destination) and its fence, made now and put up at cutover
		FOR nd IN SELECT n.node, n.remote_table, range_agg(r) AS ranges
				  FROM chash.online_move_nodes n
				  JOIN chash.online_move_pairs p ON p.move_id = n.move_id AND p.from_node = n.node,
					   unnest(p.ranges) r
				  WHERE n.move_id = mv.move_id GROUP BY n.node, n.remote_table LOOP
			sconn := conn->>nd.node;
			IF chash.move_remote(sconn, format('SELECT count(*) FROM pg_catalog.pg_publication WHERE pubname = %L', pub)) = '0' THEN
				PERFORM chash.move_remote_exec(sconn, format(
					'CREATE PUBLICATION %I FOR TABLE %s WITH (publish = %L)', pub, nd.remote_table, 'insert, update, delete'));
			END IF;
			hashed := format('%s.chash_hash(%L, %%s) OPERATOR(pg_catalog.<@) %L::pg_catalog.int8multirange',
							 ext->>nd.node, key_hash, nd.ranges);
			PERFORM chash.move_remote_exec(sconn, format($f$
CREATE OR REPLACE FUNCTION %1$s.%2$I() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $b$
BEGIN
	-- the move's own cleanup deletes the moved rows
	IF pg_catalog.current_setting('chash_move.cleanup', true) = %3$L THEN
		RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
	END IF;
	IF (TG_OP <> 'INSERT' AND %4$s) OR (TG_OP <> 'DELETE' AND %5$s) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'serialization_failure',
			MESSAGE = 'chash: this key is moving to another node',
			DETAIL = 'An online move of this table is switching the ring.',
			HINT = 'Retry the transaction: it will be routed to the key''s new node.';
	END IF;
	RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$b$$f$, (parse_ident(nd.remote_table))[1]::text, fence, mv.token,
				format(hashed, old_key), format(hashed, new_key)));
		END LOOP;
		-- per destination a filter for the replicated rows: it keeps those
		-- that move to it (UPDATE and DELETE by the old key), so that two
		-- nodes that exchange keys do not send them back and forth
		FOR nd IN SELECT n.node, n.remote_table, range_agg(r) AS ranges
				  FROM chash.online_move_nodes n
				  JOIN chash.online_move_pairs p ON p.move_id = n.move_id AND p.to_node = n.node,
					   unnest(p.ranges) r
				  WHERE n.move_id = mv.move_id GROUP BY n.node, n.remote_table LOOP
			dconn := conn->>nd.node;
			hashed := format('%s.chash_hash(%L, %%s) OPERATOR(pg_catalog.<@) %L::pg_catalog.int8multirange',
							 ext->>nd.node, key_hash, nd.ranges);
			PERFORM chash.move_remote_exec(dconn, format($f$
CREATE OR REPLACE FUNCTION %1$s.%2$I() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $b$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF %3$s THEN RETURN NEW; END IF;
	ELSIF %4$s THEN
		RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
	END IF;
	RETURN NULL;
END
$b$;
CREATE OR REPLACE TRIGGER %2$I BEFORE INSERT OR UPDATE OR DELETE ON %5$s
	FOR EACH ROW EXECUTE FUNCTION %1$s.%2$I();
ALTER TABLE %5$s ENABLE REPLICA TRIGGER %2$I$f$,
				(parse_ident(nd.remote_table))[1]::text, keep,
				format(hashed, new_key), format(hashed, old_key), nd.remote_table));
		END LOOP;
		-- one subscription per pair; a slot left by a subscription that
		-- was never committed is dropped first
		FOR pair IN SELECT p.pair, p.from_node, p.to_node, s.conninfo
					FROM chash.online_move_pairs p
					JOIN chash.online_move_nodes s ON s.move_id = p.move_id AND s.node = p.from_node
					WHERE p.move_id = mv.move_id ORDER BY p.pair LOOP
			sub := pub || '_' || pair.pair;
			sconn := conn->>pair.from_node;
			dconn := conn->>pair.to_node;
			got := chash.move_remote(dconn, format('SELECT s.subenabled FROM pg_catalog.pg_subscription s WHERE s.subname = %L', sub));
			IF got IS NULL THEN
				PERFORM chash.move_remote(sconn, format(
					'SELECT count(pg_catalog.pg_drop_replication_slot(slot_name)) FROM pg_catalog.pg_replication_slots'
					' WHERE slot_name = %L AND NOT active', sub));
				PERFORM chash.move_remote_exec(dconn, format(
					'CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I WITH (copy_data = true)',
					sub, pair.conninfo, pub));
			ELSIF got = 'false' THEN
				PERFORM chash.move_remote_exec(dconn, format('ALTER SUBSCRIPTION %I ENABLE', sub));
			END IF;
		END LOOP;

		-- 2. the initial copies, then the changes made since
		FOR pair IN SELECT p.* FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id ORDER BY p.pair LOOP
			sub := pub || '_' || pair.pair;
			PERFORM chash.move_wait(conn->>pair.to_node, sub, NULL,
									format('%s to %s, initial copy', pair.from_node, pair.to_node));
			lsn := chash.move_remote(conn->>pair.from_node, 'SELECT pg_catalog.pg_current_wal_lsn()');
			PERFORM chash.move_wait(conn->>pair.to_node, sub, lsn,
									format('%s to %s, changes', pair.from_node, pair.to_node));
		END LOOP;

		-- 3. cutover: the fences go up under the table's lock, so that no
		-- write routed by the old ring is still running on a source
		FOR nd IN SELECT n.node, n.remote_table FROM chash.online_move_nodes n
				  WHERE n.move_id = mv.move_id
					AND EXISTS (SELECT FROM chash.online_move_pairs p WHERE p.move_id = n.move_id AND p.from_node = n.node)
				  ORDER BY n.node LOOP
			PERFORM chash.move_remote_exec(conn->>nd.node, format(
				'LOCK TABLE %1$s IN EXCLUSIVE MODE; '
				'CREATE OR REPLACE TRIGGER %2$I BEFORE INSERT OR UPDATE OR DELETE ON %1$s '
				'FOR EACH ROW EXECUTE FUNCTION %3$s.%2$I()',
				nd.remote_table, fence, (parse_ident(nd.remote_table))[1]::text));
			fence_start := coalesce(fence_start, clock_timestamp());
		END LOOP;
		-- every write to a moving key is now in the sources' WAL before this
		FOR nd IN SELECT DISTINCT p.from_node FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id LOOP
			lsns := lsns || jsonb_build_object(nd.from_node,
				chash.move_remote(conn->>nd.from_node, 'SELECT pg_catalog.pg_current_wal_lsn()'));
		END LOOP;
		FOR pair IN SELECT p.*, s.remote_table AS s_table, d.remote_table AS d_table
					FROM chash.online_move_pairs p
					JOIN chash.online_move_nodes s ON s.move_id = p.move_id AND s.node = p.from_node
					JOIN chash.online_move_nodes d ON d.move_id = p.move_id AND d.node = p.to_node
					WHERE p.move_id = mv.move_id ORDER BY p.pair LOOP
			sub := pub || '_' || pair.pair;
			PERFORM chash.move_wait(conn->>pair.to_node, sub, (lsns->>pair.from_node)::pg_lsn,
									format('%s to %s, last changes', pair.from_node, pair.to_node));
			-- the same rows on both sides, by count and checksum
			hashed := format('SELECT count(*) || '' '' || coalesce(sum(pg_catalog.hashtextextended(ROW(%s)::text, 0)), 0)'
							 ' FROM %%s t WHERE %%s.chash_hash(%L, %s) OPERATOR(pg_catalog.<@) %L::pg_catalog.int8multirange',
							 row_expr, key_hash, replace(new_key, 'NEW.', 't.'), pair.ranges);
			/*
			 * The fence froze the moving rows on the source, so the copy
			 * can only converge to them: compare until it has (the WAL
			 * positions a subscriber reports may run ahead of what it has
			 * applied), for a minute at most.
			 */
			s_sum := chash.move_remote(conn->>pair.from_node, format(hashed, pair.s_table, ext->>pair.from_node));
			checked := clock_timestamp();
			LOOP
				d_sum := chash.move_remote(conn->>pair.to_node, format(hashed, pair.d_table, ext->>pair.to_node));
				EXIT WHEN s_sum = d_sum OR clock_timestamp() - checked > interval '60 s';
				PERFORM pg_sleep(0.05);
			END LOOP;
			IF s_sum IS DISTINCT FROM d_sum THEN
				-- the old ring still holds: take the fences down again
				FOR nd IN SELECT n.node, n.remote_table FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id LOOP
					PERFORM chash.move_remote_exec(conn->>nd.node, format('DROP TRIGGER IF EXISTS %I ON %s', fence, nd.remote_table));
				END LOOP;
				RAISE EXCEPTION USING
					ERRCODE = 'data_corrupted',
					MESSAGE = format('the moving rows of node "%s" and their copies on node "%s" differ',
									 chash.message_name(pair.from_node), chash.message_name(pair.to_node)),
					DETAIL = format('Rows and checksum: %s on %s, %s on %s.', s_sum, pair.from_node, d_sum, pair.to_node),
					HINT = 'An UPDATE that changes a moving row''s key is not carried by the move. The ring is unchanged; find the rows that differ, then run the same CALL again.';
			END IF;
			UPDATE chash.online_move_pairs p SET rows_moved = split_part(s_sum, ' ', 1)::bigint
			WHERE p.move_id = mv.move_id AND p.pair = pair.pair;
		END LOOP;
		FOR pair IN SELECT p.* FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id ORDER BY p.pair LOOP
			PERFORM chash.move_remote_exec(conn->>pair.to_node, format('ALTER SUBSCRIPTION %I DISABLE', pub || '_' || pair.pair));
		END LOOP;
		-- the switch: from_ring becomes what to_ring is, in one commit
		PERFORM @extschema@.chash_ring_drop(from_ring);
		PERFORM @extschema@.chash_ring_copy(to_ring, from_ring);
		UPDATE chash.online_moves m SET step = 'switched', switched = clock_timestamp(),
			write_block = clock_timestamp() - fence_start
		WHERE m.move_id = mv.move_id
		RETURNING * INTO mv;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', pin, true);
		blocked := clock_timestamp() - fence_start;
		RAISE NOTICE 'chash move %: ring "%" switched; writes to moving keys were refused for % ms',
			mv.move_id, from_ring, round(extract(epoch FROM blocked)::numeric * 1000, 1);
		UPDATE chash.online_moves m SET write_block = blocked WHERE m.move_id = mv.move_id;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', pin, true);
	END IF;

	-- 4. cleanup: streams dropped, then (once no transaction that may have
	-- routed by the old ring is left) the moved rows, then the fences
	FOR pair IN SELECT p.* FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id ORDER BY p.pair LOOP
		sub := pub || '_' || pair.pair;
		-- the subscription loses its slot first, and the slot is dropped on
		-- its own: each step can then be repeated after a failure
		IF chash.move_remote(conn->>pair.to_node, format('SELECT count(*) FROM pg_catalog.pg_subscription WHERE subname = %L', sub)) <> '0' THEN
			PERFORM chash.move_remote_exec(conn->>pair.to_node, format('ALTER SUBSCRIPTION %I DISABLE', sub));
			PERFORM chash.move_remote_exec(conn->>pair.to_node, format('ALTER SUBSCRIPTION %I SET (slot_name = NONE)', sub));
			PERFORM chash.move_remote_exec(conn->>pair.to_node, format('DROP SUBSCRIPTION %I', sub));
		END IF;
		-- until the walsender of the disabled subscription has gone
		WHILE chash.move_remote(conn->>pair.from_node, format(
				'SELECT count(*) FROM pg_catalog.pg_replication_slots WHERE slot_name = %L AND active', sub)) <> '0' LOOP
			PERFORM pg_sleep(0.05);
		END LOOP;
		PERFORM chash.move_remote(conn->>pair.from_node, format(
			'SELECT count(pg_catalog.pg_drop_replication_slot(slot_name)) FROM pg_catalog.pg_replication_slots'
			' WHERE slot_name = %L AND NOT active', sub));
	END LOOP;
	FOR nd IN SELECT n.* FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id ORDER BY n.node LOOP
		PERFORM chash.move_remote_exec(conn->>nd.node, format(
			'DROP TRIGGER IF EXISTS %1$I ON %2$s; DROP FUNCTION IF EXISTS %3$s.%1$I(); DROP PUBLICATION IF EXISTS %4$I',
			keep, nd.remote_table, (parse_ident(nd.remote_table))[1]::text, pub));
	END LOOP;
	checked := clock_timestamp();
	WHILE EXISTS (SELECT FROM pg_stat_activity a
				  WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
					AND a.xact_start < mv.switched) LOOP
		IF clock_timestamp() - checked > interval '5 s' THEN
			RAISE NOTICE 'chash move %: waiting for transactions older than the switch: %', mv.move_id,
				(SELECT string_agg(a.pid::text, ', ' ORDER BY a.pid) FROM pg_stat_activity a
				 WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
				   AND a.xact_start < mv.switched);
			checked := clock_timestamp();
		END IF;
		PERFORM pg_sleep(0.05);
	END LOOP;
	FOR nd IN SELECT n.node, n.remote_table, range_agg(r) AS ranges
			  FROM chash.online_move_nodes n
			  JOIN chash.online_move_pairs p ON p.move_id = n.move_id AND p.from_node = n.node,
				   unnest(p.ranges) r
			  WHERE n.move_id = mv.move_id GROUP BY n.node, n.remote_table ORDER BY n.node LOOP
		LOOP
			got := chash.move_remote_exec(conn->>nd.node, format(
				'SELECT pg_catalog.set_config(%L, %L, true); '
				'DELETE FROM %3$s WHERE ctid = ANY (ARRAY(SELECT t.ctid FROM %3$s t'
				' WHERE %4$s.chash_hash(%5$L, %6$s) OPERATOR(pg_catalog.<@) %7$L::pg_catalog.int8multirange LIMIT 10000))',
				'chash_move.cleanup', mv.token, nd.remote_table, ext->>nd.node, key_hash,
				replace(new_key, 'NEW.', 't.'), nd.ranges));
			deleted := split_part(got, ' ', 2)::bigint;
			EXIT WHEN deleted = 0;
		END LOOP;
		PERFORM chash.move_remote_exec(conn->>nd.node, format(
			'DROP TRIGGER IF EXISTS %1$I ON %2$s; DROP FUNCTION IF EXISTS %3$s.%1$I()',
			fence, nd.remote_table, (parse_ident(nd.remote_table))[1]::text));
	END LOOP;
	UPDATE chash.online_moves m SET step = 'done', finished = clock_timestamp() WHERE m.move_id = mv.move_id;
	PERFORM pg_advisory_unlock(hashtext('chash_move_online'), hashtext(from_ring));
	RAISE NOTICE 'chash move %: done, % rows moved', mv.move_id,
		(SELECT sum(p.rows_moved) FROM chash.online_move_pairs p WHERE p.move_id = mv.move_id);
	FOR nd IN SELECT DISTINCT n.server FROM chash.online_move_nodes n WHERE n.move_id = mv.move_id LOOP
		EXECUTE format('SELECT %s.dblink_disconnect($1)', chash.move_dblink()) USING 'chash_move_' || nd.server;
	END LOOP;
END
$move$;
REVOKE ALL ON PROCEDURE chash_move_online(text, text, regclass, name) FROM PUBLIC;
COMMENT ON PROCEDURE chash_move_online(text, text, regclass, name) IS
	'moves a relation''s rows from the nodes of one ring to those of another while writes go on, through logical replication, and switches from_ring to to_ring''s nodes; the same CALL resumes a move that stopped';
