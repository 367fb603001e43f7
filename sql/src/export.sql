/*
 * chash_export: a ring as the configuration that makes a real system place
 * keys exactly as the ring does.  Each format writes what its import
 * (chash_ring_import) reads back into a ring that routes every key
 * identically, in the form the compatibility suites run the real servers
 * with; a ring the format cannot express is an error naming the setting,
 * never a configuration that routes differently.
 */

-- The settings a ring must have to be exported as format: those of the
-- format's profile, but the key hash (from the given set) and the hash tag
-- (where the system has one).  An error naming the first that differs.
CREATE OR REPLACE FUNCTION chash.export_check_settings(ring text, format text, key_hashes text[],
													   hash_tag_allowed boolean)
	RETURNS void
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	c record;
	want record;
	setting text;
	have text;
	should text;
BEGIN
	SELECT r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash, r.vnodes, r.vnode_name,
		   r.vnode_first, r.ketama_variant, r.ties, r.table_size, r.lookup, r.hash_tag
	INTO c FROM chash.ring_config r WHERE r.ring = export_check_settings.ring;
	-- what chash_ring_create(ring, profile => format) gives
	SELECT w.algorithm, w.hash, w.vnode_name, w.ketama_variant INTO want
	FROM (VALUES ('nginx', 'nginx', 'crc32', '{node}#{i}', NULL),
				 ('haproxy', 'haproxy', 'crc32', '{node}#{i}', NULL),
				 ('twemproxy', 'ketama', 'md5', '{node}-{i}', 'twemproxy'))
		 AS w(format, algorithm, hash, vnode_name, ketama_variant)
	WHERE w.format = export_check_settings.format;
	SELECT s.setting, s.have, s.should INTO setting, have, should
	FROM (VALUES (1, 'algorithm', c.algorithm, want.algorithm),
				 (2, 'hash', c.hash, want.hash),
				 (3, 'vnodes', c.vnodes::text, '160'),
				 (4, 'vnode_name', c.vnode_name, want.vnode_name),
				 (5, 'vnode_first', c.vnode_first::text, '0'),
				 (6, 'ketama_variant', c.ketama_variant, want.ketama_variant),
				 (7, 'ties', c.ties, NULL),
				 (8, 'table_size', c.table_size::text, NULL),
				 (9, 'lookup', c.lookup, NULL))
		 AS s(k, setting, have, should)
	WHERE s.have IS DISTINCT FROM s.should
	ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has %s %s, which format "%s" cannot express',
							 chash.message_name(ring), setting, coalesce('"' || have || '"', 'NULL'), format),
			DETAIL = format('The configuration places keys as profile "%s" does, with %s %s.',
							format, setting, coalesce('"' || should || '"', 'NULL')),
			HINT = format('Export a ring created with chash_ring_create(ring, profile => ''%s''), or give the format of the ring''s own system.', format);
	END IF;
	IF NOT c.key_hash = ANY (key_hashes) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has key hash "%s", which format "%s" cannot express',
							 chash.message_name(ring), c.key_hash, format),
			DETAIL = format('The key hashes of format "%s" are %s.', format,
							(SELECT string_agg('"' || h || '"', ', ') FROM unnest(key_hashes) h)) ;
	END IF;
	IF c.hash_tag IS NOT NULL AND NOT hash_tag_allowed THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has hash tag "%s", which format "%s" cannot express',
							 chash.message_name(ring), c.hash_tag, format),
			DETAIL = format('Format "%s" hashes the whole key.', format);
	END IF;
END
$$;
COMMENT ON FUNCTION chash.export_check_settings(text, text, text[], boolean) IS
	'an error unless the settings of ring are those of the profile of format, but the key hash (one of key_hashes) and the hash tag (if allowed)';

-- The nodes of a ring in its server-list order (ordinal, then name), with
-- their addresses (the name where NULL); an error for what no format of a
-- configuration writes: a node's own vnodes, tokens or slots, a weight
-- that is not an integer from 1 to max_weight, a control character, no
-- node.  (STABLE, as the export functions: they read the catalog.)
CREATE OR REPLACE FUNCTION chash.export_nodes(ring text, format text, max_weight double precision,
											  OUT node text, OUT weight double precision, OUT down boolean,
											  OUT ordinal bigint, OUT address text)
	RETURNS SETOF record
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
	count bigint := 0;
BEGIN
	FOR n IN
		SELECT c.node, c.weight, c.state, c.ordinal, coalesce(c.address, c.node) AS address,
			   c.vnodes, c.tokens, c.slots
		FROM chash.node_config c WHERE c.ring = export_nodes.ring
		ORDER BY c.ordinal, c.node
	LOOP
		IF n.vnodes IS NOT NULL OR n.tokens IS NOT NULL OR n.slots IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" has its own %s, which format "%s" cannot express',
								 chash.message_name(n.node), chash.message_name(ring),
								 CASE WHEN n.vnodes IS NOT NULL THEN 'vnodes'
									  WHEN n.tokens IS NOT NULL THEN 'tokens' ELSE 'slots' END, format),
				DETAIL = format('A configuration of format "%s" gives each server a weight, from which the system computes its points.', format),
				HINT = 'Clear them with UPDATE chash.node_config SET vnodes = NULL, tokens = NULL, slots = NULL, if the ring is to route as the system does.';
		END IF;
		IF n.weight <> pg_catalog.trunc(n.weight) OR n.weight > max_weight THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" has weight %s, which format "%s" cannot express',
								 chash.message_name(n.node), chash.message_name(ring), n.weight, format),
				DETAIL = CASE WHEN max_weight = 1 THEN format('Format "%s" has no weights: every server weighs 1.', format)
							  ELSE format('The weights of format "%s" are integers from 1 to %s.', format, max_weight) END,
				HINT = 'Give the node such a weight with chash_node_set(ring, node, weight => ...).';
		END IF;
		IF n.node ~ '[[:cntrl:]]' OR n.address ~ '[[:cntrl:]]' THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" has %s that format "%s" cannot write',
								 chash.message_name(n.node), chash.message_name(ring),
								 CASE WHEN n.node ~ '[[:cntrl:]]' THEN 'a name' ELSE 'an address' END, format),
				DETAIL = 'It holds a control character.';
		END IF;
		node := n.node;
		weight := n.weight;
		down := n.state = 'down';
		ordinal := n.ordinal;
		address := n.address;
		count := count + 1;
		RETURN NEXT;
	END LOOP;
	IF count = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has no node', chash.message_name(ring)),
			DETAIL = format('A configuration of format "%s" holds at least one server.', format);
	END IF;
END
$$;
COMMENT ON FUNCTION chash.export_nodes(text, text, double precision) IS
	'the nodes of a ring in server-list order with their integer weights, states, ordinals and addresses, or an error for what format cannot express';

-- An option of chash_export: a string, or dflt when not given; an error
-- unless it matches pattern
CREATE OR REPLACE FUNCTION chash.export_option(options jsonb, name text, dflt text, pattern text, what text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	value text;
BEGIN
	IF NOT options ? name THEN
		value := dflt;
	ELSIF pg_catalog.jsonb_typeof(options -> name) <> 'string' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('option "%s" must be a string', name),
			DETAIL = format('It is %s.', pg_catalog.left((options -> name)::text, 100));
	ELSE
		value := options ->> name;
	END IF;
	IF (pg_catalog.octet_length(value) > 1024 OR value !~ pattern) AND options ? name THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('option "%s" is not %s', name, what),
			DETAIL = format('It is "%s".', chash.message_name(value));
	ELSIF pg_catalog.octet_length(value) > 1024 OR value !~ pattern THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('option "%s" is not %s', name, what),
			DETAIL = format('It is "%s", the default.', chash.message_name(value)),
			HINT = format('Give it in options, as ''{"%s": "..."}''.', name);
	END IF;
	RETURN value;
END
$$;
COMMENT ON FUNCTION chash.export_option(jsonb, text, text, text, text) IS
	'an option of chash_export, or its default, checked against a pattern';

-- A word of an nginx configuration: as it is when nginx reads it so, else
-- in double quotes with \ and " escaped (nginx reads the server text
-- without them, and hashes that)
CREATE OR REPLACE FUNCTION chash.export_nginx_word(s text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE WHEN s ~ '^[A-Za-z0-9_.:/@%+,=~\[\]-]+$' THEN s
			ELSE '"' || replace(replace(s, '\', '\\'), '"', '\"') || '"' END
$$;
COMMENT ON FUNCTION chash.export_nginx_word(text) IS
	'a text as one word of an nginx configuration';

-- nginx: an upstream block with "hash KEY consistent"
CREATE OR REPLACE FUNCTION chash.export_nginx(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	name text;
	key text;
	out text;
BEGIN
	PERFORM chash.export_check_settings(ring, 'nginx', ARRAY['crc32'], false);
	name := chash.export_option(options, 'name', ring, '^[A-Za-z0-9_.-]+$',
								'an upstream name of letters, digits, "_", "." and "-"');
	key := chash.export_option(options, 'key', '$request_uri', '^[^\s;{}"''#\\]+$',
							   'an nginx word without spaces, quotes, ";", "{", "}", "#" or "\"');
	SELECT format(E'upstream %s {\n    hash %s consistent;\n', name, key)
		   || string_agg(format(E'    server %s%s%s;\n', chash.export_nginx_word(n.node),
								CASE WHEN n.weight <> 1 THEN ' weight=' || n.weight::bigint END,
								CASE WHEN n.down THEN ' down' END), '' ORDER BY k)
		   || E'}\n'
	INTO out
	FROM chash.export_nodes(ring, 'nginx', 999999999) WITH ORDINALITY AS n(node, weight, down, ordinal, address, k);
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_nginx(text, jsonb) IS
	'chash_export of format nginx';

-- HAProxy: a backend section with "hash-type consistent", each server with
-- its id (the node's ordinal), weight and address
CREATE OR REPLACE FUNCTION chash.export_haproxy(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	name text;
	balance text;
	key_hash text;
	bad record;
	out text;
BEGIN
	PERFORM chash.export_check_settings(ring, 'haproxy',
		ARRAY['haproxy_sdbm', 'haproxy_djb2', 'haproxy_wt6', 'crc32', 'haproxy_sdbm_avalanche',
			  'haproxy_djb2_avalanche', 'haproxy_wt6_avalanche', 'haproxy_crc32_avalanche'], false);
	name := chash.export_option(options, 'name', ring, '^[A-Za-z0-9_.:-]+$',
								'a backend name of letters, digits, "_", ".", ":" and "-"');
	balance := chash.export_option(options, 'balance', 'uri',
		'^(source|uri|url_param|hash|rdp-cookie|(hdr|rdp-cookie)\([A-Za-z0-9_.-]*\))( [^\s#"''\\]+)*$',
		'a hashing balance algorithm of HAProxy (hdr(NAME), uri, url_param, source, rdp-cookie or hash, with its arguments)');
	SELECT coalesce(r.key_hash, r.hash) INTO key_hash FROM chash.ring_config r WHERE r.ring = export_haproxy.ring;
	SELECT s.node, s.address, s.ordinal INTO bad FROM chash.export_nodes(ring, 'haproxy', 256) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	WHERE s.node !~ '^[A-Za-z0-9_.:-]+$' ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has a name that HAProxy does not take', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'HAProxy''s server names are letters, digits, "_", ".", ":" and "-".',
			HINT = 'HAProxy places a server by its id and weight, not its name: a copy of the ring with such names routes as the ring does.';
	END IF;
	SELECT s.node, s.address INTO bad FROM chash.export_nodes(ring, 'haproxy', 256) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	WHERE s.address !~ '^[A-Za-z0-9_.:/@%+,=~\[\]-]+$' AND s.address ~ '''' ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has an address that format "haproxy" cannot write', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = format('The address is "%s"; it holds a single quote among characters that need quoting.', chash.message_name(bad.address));
	END IF;
	SELECT s.node, s.ordinal INTO bad FROM chash.export_nodes(ring, 'haproxy', 256) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	WHERE s.ordinal NOT BETWEEN 1 AND 2147483647 ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has ordinal %s, which is not a server id of HAProxy', chash.message_name(bad.node), chash.message_name(ring), bad.ordinal),
			DETAIL = 'HAProxy places a server by its id, the node''s ordinal, an integer from 1 to 2147483647.',
			HINT = 'Give the nodes ordinals in that range with UPDATE chash.node_config SET ordinal = ...; the ring routes as HAProxy does only then.';
	END IF;
	SELECT s.ordinal, min(s.node) AS first, max(s.node) AS second INTO bad FROM chash.export_nodes(ring, 'haproxy', 256) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	GROUP BY s.ordinal HAVING count(*) > 1 ORDER BY s.ordinal LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('nodes "%s" and "%s" of ring "%s" have the same ordinal %s', chash.message_name(bad.first), chash.message_name(bad.second), chash.message_name(ring), bad.ordinal),
			DETAIL = 'HAProxy places a server by its id, the node''s ordinal, and two servers of a backend cannot share one.';
	END IF;
	SELECT format(E'backend %s\n    balance %s\n    hash-type consistent %s\n', name, balance,
				  CASE WHEN key_hash = 'crc32' THEN 'crc32'
					   ELSE replace(replace(key_hash, 'haproxy_', ''), '_avalanche', ' avalanche') END)
		   || string_agg(format(E'    server %s %s id %s weight %s%s\n', s.node,
								CASE WHEN s.address ~ '^[A-Za-z0-9_.:/@%+,=~\[\]-]+$' THEN s.address
									 ELSE '''' || s.address || '''' END,
								s.ordinal, s.weight::integer, CASE WHEN s.down THEN ' disabled' END), '' ORDER BY s.k)
	INTO out
	FROM chash.export_nodes(ring, 'haproxy', 256) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k);
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_haproxy(text, jsonb) IS
	'chash_export of format haproxy';

-- twemproxy: a nutcracker pool with "distribution: ketama", each server
-- "host:port:weight name" in single quotes ('' for '), or without its name
-- when nutcracker gives it that name (its host on port 11211, else
-- host:port)
CREATE OR REPLACE FUNCTION chash.export_twemproxy(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	name text;
	listen text;
	c record;
	bad record;
	out text;
BEGIN
	PERFORM chash.export_check_settings(ring, 'twemproxy',
		ARRAY['md5', 'crc32', 'twemproxy_one_at_a_time', 'twemproxy_crc16', 'twemproxy_crc32',
			  'twemproxy_fnv1_64', 'twemproxy_fnv1a_64', 'twemproxy_fnv1_32', 'twemproxy_fnv1a_32',
			  'twemproxy_hsieh', 'twemproxy_murmur', 'twemproxy_jenkins'], true);
	name := chash.export_option(options, 'name', ring, '^[A-Za-z0-9_.-]+$',
								'a pool name of letters, digits, "_", "." and "-"');
	listen := chash.export_option(options, 'listen', '127.0.0.1:22121', '^([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$|^/[A-Za-z0-9_./-]+$',
								  'a listen address of twemproxy (host:port or the path of a unix socket)');
	SELECT coalesce(r.key_hash, r.hash) AS key_hash, r.hash_tag INTO c
	FROM chash.ring_config r WHERE r.ring = export_twemproxy.ring;
	SELECT s.node INTO bad FROM chash.export_nodes(ring, 'twemproxy', 999999999) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k) WHERE s.down ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" is down, which format "twemproxy" cannot express', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'A twemproxy pool has no server that is down: a server keeps its keys until it leaves the pool (or is ejected on failures, with auto_eject_hosts).',
			HINT = 'Remove the node from the ring, or bring it back with chash_node_set(ring, node, state => ''active'').';
	END IF;
	SELECT s.node INTO bad FROM chash.export_nodes(ring, 'twemproxy', 999999999) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k) WHERE s.node ~ '\s' ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has a name that twemproxy does not take', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'nutcracker reads a server''s name after the last space of its line: a name holds no white space.';
	END IF;
	SELECT s.node, s.address INTO bad FROM chash.export_nodes(ring, 'twemproxy', 999999999) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	WHERE s.address !~ '^([^\s:]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$' AND s.address !~ '^/\S+$' ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has no address that twemproxy takes', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = format('A server of twemproxy is at host:port or at the path of a unix socket; the node''s address is "%s"%s.',
							chash.message_name(bad.address), CASE WHEN bad.address = bad.node THEN ', its name' ELSE '' END),
			HINT = 'Give the node its address with chash_node_set(ring, node, address => ''host:port'').';
	END IF;
	SELECT format(E'%s:\n  listen: %s\n  hash: %s\n%s  distribution: ketama\n  auto_eject_hosts: false\n  servers:\n',
				  name, listen,
				  CASE WHEN c.key_hash = 'crc32' THEN 'crc32a' ELSE replace(c.key_hash, 'twemproxy_', '') END,
				  CASE WHEN c.hash_tag IS NOT NULL THEN format(E'  hash_tag: ''%s''\n', replace(c.hash_tag, '''', '''''')) ELSE '' END)
		   || string_agg(format(E'   - ''%s''\n', replace(
				  s.address || ':' || s.weight::bigint
				  || CASE WHEN s.address !~ '^/' AND s.node = CASE WHEN s.address ~ ':11211$' THEN substring(s.address FROM '^(.*):11211$')
																	ELSE s.address END
						  THEN '' ELSE ' ' || s.node END, '''', '''''')), '' ORDER BY s.k)
	INTO out
	FROM chash.export_nodes(ring, 'twemproxy', 999999999) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k);
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_twemproxy(text, jsonb) IS
	'chash_export of format twemproxy';

-- Redis Cluster: a new cluster's slots, per master one CLUSTER
-- ADDSLOTSRANGE line (Redis 7.0) with its contiguous ranges, under a
-- comment line naming the master it is sent to (its address, host:port in
-- an imported ring)
CREATE OR REPLACE FUNCTION chash.export_redis_cluster(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bad record;
	out text;
BEGIN
	PERFORM chash.check_redis_ring(ring, 'redis_cluster');
	SELECT g.slot INTO bad
	FROM generate_series(0, 16383) g(slot)
	WHERE NOT EXISTS (SELECT FROM @extschema@.chash_slot_ranges(ring) x WHERE x.slots @> g.slot)
	ORDER BY g.slot LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('slot %s of ring "%s" has no node', bad.slot, chash.message_name(ring)),
			DETAIL = format('A Redis cluster serves keys only when every slot has a master; ring "%s" leaves %s slots without one.',
							chash.message_name(ring),
							16384 - (SELECT coalesce(sum(upper(x.slots) - lower(x.slots)), 0) FROM @extschema@.chash_slot_ranges(ring) x)),
			HINT = 'Give the slots to nodes with chash_node_set(ring, node, slots => ...), or bring a down node back.';
	END IF;
	SELECT c.node, coalesce(c.address, c.node) AS address INTO bad
	FROM chash.node_config c WHERE c.ring = export_redis_cluster.ring
	  AND (c.node ~ '[[:cntrl:]]' OR coalesce(c.address, c.node) ~ '[[:cntrl:]]')
	ORDER BY c.ordinal, c.node LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has %s that format "redis_cluster" cannot write',
							 chash.message_name(bad.node), chash.message_name(ring),
							 CASE WHEN bad.node ~ '[[:cntrl:]]' THEN 'a name' ELSE 'an address' END),
			DETAIL = 'It holds a control character.';
	END IF;
	SELECT E'# Redis Cluster: the slots of each master of a new cluster (Redis 7.0 or later).\n'
		   || E'# Send each CLUSTER line to the master named above it, as in\n'
		   || E'# redis-cli -h HOST -p PORT CLUSTER ADDSLOTSRANGE ...; then CLUSTER MEET the masters.\n'
		   || string_agg(format(E'# %s\n%s\n', n.address,
								coalesce('CLUSTER ADDSLOTSRANGE ' || (SELECT string_agg(lower(x.slots) || ' ' || (upper(x.slots) - 1), ' ' ORDER BY lower(x.slots))
																	   FROM @extschema@.chash_slot_ranges(ring) x WHERE x.node = n.node),
										 '# (no slot)')), '' ORDER BY n.ordinal, n.node)
	INTO out
	FROM (SELECT c.node, coalesce(c.address, c.node) AS address, c.ordinal
		  FROM chash.node_config c WHERE c.ring = export_redis_cluster.ring) n;
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_redis_cluster(text, jsonb) IS
	'chash_export of format redis_cluster';

CREATE OR REPLACE FUNCTION chash_export(ring text, format text DEFAULT NULL, options jsonb DEFAULT '{}')
	RETURNS text
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
	profile text;
	known CONSTANT jsonb := '{"nginx": ["name", "key"], "haproxy": ["name", "balance"],
							 "twemproxy": ["name", "listen"], "redis_cluster": [],
							 "libmemcached": [], "dalli": [], "spymemcached": [], "pymemcache": [],
							 "uhashring": [], "hashring": [], "groupcache": [],
							 "envoy": ["name"], "elasticsearch": [], "cassandra": []}';
	bad text;
BEGIN
	IF ring IS NULL OR options IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'ring and options must not be null',
			HINT = 'Leave format out (or NULL) for the ring''s profile, and options for none.';
	END IF;
	SELECT r.profile INTO profile FROM chash.ring_config r WHERE r.ring = chash_export.ring;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_object',
			MESSAGE = format('ring "%s" does not exist', chash.message_name(ring));
	END IF;
	IF format IS NULL AND profile IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has no profile to take the format from', chash.message_name(ring)),
			HINT = 'Give the format: "nginx", "haproxy", "twemproxy", "redis_cluster", "envoy", "elasticsearch", "cassandra" or a memcached client''s, "libmemcached", "dalli", "spymemcached", "pymemcache", "uhashring", "hashring" or "groupcache".';
	END IF;
	format := coalesce(format, CASE WHEN profile IN ('envoy_ring_hash', 'envoy_maglev') THEN 'envoy' ELSE profile END);
	IF NOT known ? format THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown export format "%s"', chash.message_name(format)),
			DETAIL = CASE WHEN format = profile THEN format('It is the profile of ring "%s".', chash.message_name(ring))
						  ELSE 'It is not one chash_export has.' END,
			HINT = 'The formats are "nginx" (an upstream block), "haproxy" (a backend section), "twemproxy" (a nutcracker pool), "redis_cluster" (CLUSTER ADDSLOTSRANGE per master), "envoy" (a cluster), "elasticsearch" (an index''s settings), "cassandra" (each node''s initial_token), and the server lists of the memcached clients "libmemcached", "dalli", "spymemcached", "pymemcache", "uhashring", "hashring" and "groupcache".';
	END IF;
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'options must be a JSON object',
			DETAIL = format('They are %s.', pg_catalog.left(options::text, 100));
	END IF;
	SELECT o.k INTO bad FROM pg_catalog.jsonb_object_keys(options) AS o(k)
	WHERE NOT (known -> format) ? o.k ORDER BY o.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown option "%s" of format "%s"', chash.message_name(bad), format),
			HINT = CASE WHEN pg_catalog.jsonb_array_length(known -> format) = 0 THEN format('Format "%s" has no options.', format)
						ELSE format('The options of format "%s" are %s.', format,
									(SELECT string_agg('"' || x || '"', ' and ') FROM pg_catalog.jsonb_array_elements_text(known -> format) x)) END;
	END IF;
	IF format = 'nginx' THEN
		RETURN chash.export_nginx(ring, options);
	ELSIF format = 'haproxy' THEN
		RETURN chash.export_haproxy(ring, options);
	ELSIF format = 'redis_cluster' THEN
		RETURN chash.export_redis_cluster(ring, options);
	ELSIF format = 'envoy' THEN
		RETURN chash.export_envoy(ring, options);
	ELSIF format = 'elasticsearch' THEN
		RETURN chash.export_elasticsearch(ring, options);
	ELSIF format = 'cassandra' THEN
		RETURN chash.export_cassandra(ring, options);
	ELSIF format <> 'twemproxy' THEN
		-- the memcached clients' (export_clients.sql): chash.export_<format>
		RETURN chash.export_client(ring, format, options);
	END IF;
	RETURN chash.export_twemproxy(ring, options);
END;
EXCEPTION WHEN OTHERS THEN
	-- (the caller sees the error, not the helpers and statements it came from)
	GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT,
							e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
	PERFORM chash.raise_without_context(e_state, e_message, e_detail, e_hint);
END
$$;
COMMENT ON FUNCTION chash_export(text, text, jsonb) IS
	'a ring as the configuration of a real system that places keys exactly as the ring does: format nginx (an upstream block with hash KEY consistent), haproxy (a backend section with hash-type consistent) twemproxy (a nutcracker pool with distribution ketama) redis_cluster (for a new cluster, per master its CLUSTER ADDSLOTSRANGE), envoy (a cluster with lb_policy RING_HASH or MAGLEV), elasticsearch (an index''s settings, its shards the nodes), cassandra (each node''s initial_token), or the server list of a memcached client in its own syntax (libmemcached, dalli, spymemcached, pymemcache, uhashring, hashring, groupcache), by default the ring''s profile; options name (the upstream, backend, pool or cluster), key (nginx''s hash key, default $request_uri), balance (HAProxy''s, default uri), listen (twemproxy''s, default 127.0.0.1:22121); a ring the format cannot express is an error naming the setting';
