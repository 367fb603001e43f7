/*
 * chash_export of the systems that are not load balancers' server lists:
 * Envoy's ring_hash and maglev clusters, Elasticsearch's index settings
 * and Cassandra's initial tokens.  As in export.sql, a ring the format
 * cannot express is an error naming what it lacks, never a configuration
 * that routes differently.
 */

-- The settings a ring must have to be exported as format: pairs of
-- ring_config columns (key_hash: the key hash the ring uses, its hash
-- where NULL) and the values profile gives them.  An error naming the
-- first that differs.
CREATE OR REPLACE FUNCTION chash.export_check_system(ring text, format text, profile text,
													 settings text[], wants text[])
	RETURNS void
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	c jsonb;
	bad record;
BEGIN
	SELECT pg_catalog.to_jsonb(r) || pg_catalog.jsonb_build_object('key_hash', coalesce(r.key_hash, r.hash))
	INTO c FROM chash.ring_config r WHERE r.ring = export_check_system.ring;
	SELECT s.setting, c ->> s.setting AS have, s.want INTO bad
	FROM unnest(settings, wants) WITH ORDINALITY AS s(setting, want, k)
	WHERE (c ->> s.setting) IS DISTINCT FROM s.want
	ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has %s %s, which format "%s" cannot express',
							 chash.message_name(ring), bad.setting, coalesce('"' || chash.message_name(bad.have) || '"', 'NULL'), format),
			DETAIL = format('The configuration places keys as profile "%s" does, with %s %s.',
							profile, bad.setting, coalesce('"' || bad.want || '"', 'NULL')),
			HINT = format('Export a ring created with chash_ring_create(ring, profile => ''%s'').', profile);
	END IF;
END
$$;
COMMENT ON FUNCTION chash.export_check_system(text, text, text, text[], text[]) IS
	'an error unless the ring_config settings of ring are the wanted ones (those of profile)';

-- An error if two nodes of the ring share an ordinal: the order of the
-- servers, which the system's placement depends on, would be the names'
-- order, and that is the collation's in SQL
CREATE OR REPLACE FUNCTION chash.export_check_ordinals(ring text, format text)
	RETURNS void
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bad record;
BEGIN
	SELECT c.ordinal, min(c.node) AS first, max(c.node) AS second INTO bad
	FROM chash.node_config c WHERE c.ring = export_check_ordinals.ring
	GROUP BY c.ordinal HAVING count(*) > 1 ORDER BY c.ordinal LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('nodes "%s" and "%s" of ring "%s" have the same ordinal %s',
							 chash.message_name(bad.first), chash.message_name(bad.second), chash.message_name(ring), bad.ordinal),
			DETAIL = format('The nodes'' order, by ordinal, is the order of the configuration of format "%s", which decides its placement.', format),
			HINT = 'Give the nodes distinct ordinals with UPDATE chash.node_config SET ordinal = ....';
	END IF;
END
$$;
COMMENT ON FUNCTION chash.export_check_ordinals(text, text) IS
	'an error if two nodes of ring share an ordinal';

-- A text as a YAML double-quoted scalar: ", \, the C0 and C1 controls,
-- DEL and the non-characters YAML does not print escaped
CREATE OR REPLACE FUNCTION chash.export_yaml_string(s text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT '"' || coalesce(string_agg(CASE WHEN c IN ('"', '\') THEN '\' || c
										WHEN ascii(c) < 32 OR ascii(c) BETWEEN 127 AND 159
											 OR ascii(c) IN (65279, 65534, 65535)
										THEN '\u' || lpad(to_hex(ascii(c)), 4, '0')
										ELSE c END, '' ORDER BY k), '') || '"'
FROM regexp_split_to_table(s, '') WITH ORDINALITY AS x(c, k)
$$;
COMMENT ON FUNCTION chash.export_yaml_string(text) IS
	'a text as a double-quoted YAML scalar';

-- An IPv6 address as Envoy reads one
CREATE OR REPLACE FUNCTION chash.export_is_ipv6(s text)
	RETURNS boolean
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN s ~ '^[0-9A-Fa-f:.]+$' AND pg_catalog.family(s::inet) = 6;
EXCEPTION WHEN invalid_text_representation THEN
	RETURN false;
END
$$;
COMMENT ON FUNCTION chash.export_is_ipv6(text) IS
	'whether a text is an IPv6 address (without brackets or prefix length)';

-- The hosts of an Envoy cluster of ring: the nodes in order, their
-- addresses split into IP (IPv6 without brackets) and port, NULL where the
-- address is not of that form
CREATE OR REPLACE FUNCTION chash.export_envoy_hosts(ring text, OUT k bigint, OUT node text,
												   OUT weight double precision, OUT down boolean,
												   OUT address text, OUT ip text, OUT port integer, OUT v6 boolean)
	RETURNS SETOF record
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT n.k, n.node, n.weight, n.down, n.address,
	   coalesce(substring(n.address FROM '^([0-9.]+):[0-9]{1,5}$'), substring(n.address FROM '^\[([0-9A-Fa-f:.]+)\]:[0-9]{1,5}$')),
	   substring(n.address FROM ':([0-9]{1,5})$')::integer,
	   n.address ~ '^\['
FROM chash.export_nodes(ring, 'envoy', 4294967295) WITH ORDINALITY AS n(node, weight, down, ordinal, address, k)
$$;
COMMENT ON FUNCTION chash.export_envoy_hosts(text) IS
	'the hosts of chash_export of format envoy';

-- Envoy: a Cluster (API v3) with lb_policy RING_HASH or MAGLEV, its hosts
-- in node order at their addresses (IPv4 or [IPv6] with a port), each
-- with its load_balancing_weight and, when Envoy would hash another
-- text than the node's name (its address as Envoy prints it), the name as
-- its "envoy.lb" hash_key.  Down nodes are UNHEALTHY hosts, which Envoy
-- leaves out of its ring or table as chash does, given
-- healthy_panic_threshold 0 (no panic mode, in which Envoy would use them).
CREATE OR REPLACE FUNCTION chash.export_envoy(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	name text;
	c record;
	bad record;
	lb text;
	out text;
BEGIN
	SELECT r.algorithm, r.vnodes, coalesce(r.table_size, 65537) AS table_size INTO c
	FROM chash.ring_config r WHERE r.ring = export_envoy.ring;
	IF c.algorithm = 'maglev' THEN
		PERFORM chash.export_check_system(ring, 'envoy', 'envoy_maglev',
			ARRAY['algorithm', 'hash', 'key_hash', 'ketama_variant', 'ties', 'lookup', 'hash_tag'],
			ARRAY['maglev', 'xxh64', 'xxh64', 'envoy', NULL, NULL, NULL]);
		IF c.table_size > 5000011 THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('ring "%s" has table_size %s, which format "envoy" cannot express', chash.message_name(ring), c.table_size),
				DETAIL = 'Envoy''s maglev table_size is a prime of at most 5000011.';
		END IF;
		lb := format(E'lb_policy: MAGLEV\nmaglev_lb_config:\n  table_size: %s\n', c.table_size);
	ELSE
		PERFORM chash.export_check_system(ring, 'envoy', 'envoy_ring_hash',
			ARRAY['algorithm', 'hash', 'key_hash', 'vnode_name', 'vnode_first', 'ketama_variant', 'ties',
				  'table_size', 'lookup', 'hash_tag'],
			ARRAY['envoy_ring_hash', 'xxh64', 'xxh64', '{node}_{i}', '0', NULL, NULL, NULL, NULL, NULL]);
		PERFORM chash.export_check_ordinals(ring, 'envoy');
		-- (the ring's vnodes is at most Envoy's maximum_ring_size: checked
		-- as the ring is built)
		lb := format(E'lb_policy: RING_HASH\nring_hash_lb_config:\n  minimum_ring_size: %s\n  maximum_ring_size: 8388608\n  hash_function: XX_HASH\n',
					 c.vnodes);
	END IF;
	name := chash.export_option(options, 'name', ring, '^[A-Za-z0-9_.:-]+$',
								'a cluster name of letters, digits, "_", ".", ":" and "-"');
	SELECT h.node, n.address, h.address AS used INTO bad
	FROM chash.export_envoy_hosts(ring) h JOIN chash.node_config n ON n.ring = export_envoy.ring AND n.node = h.node
	WHERE h.ip IS NULL OR h.port NOT BETWEEN 1 AND 65535
	   OR (NOT h.v6 AND h.ip !~ '^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.|$)){4}$')
	   OR (h.v6 AND NOT chash.export_is_ipv6(h.ip))
	ORDER BY h.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has no address that format "envoy" takes', chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = format('An Envoy host of a static cluster is at an IP address and port, as 10.0.0.1:8080 or [2001:db8::1]:8080; the node''s address is "%s"%s.',
							chash.message_name(bad.used), CASE WHEN bad.address IS NULL THEN ', its name' ELSE '' END),
			HINT = 'Give the node its address with chash_node_set(ring, node, address => ''ip:port''); the node''s name stays what Envoy hashes (its hash_key).';
	END IF;
	SELECT min(h.node) AS first, max(h.node) AS second, h.ip, h.port INTO bad
	FROM chash.export_envoy_hosts(ring) h GROUP BY h.ip, h.port HAVING count(*) > 1 ORDER BY min(h.k) LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('nodes "%s" and "%s" of ring "%s" have the same address', chash.message_name(bad.first),
							 chash.message_name(bad.second), chash.message_name(ring)),
			DETAIL = 'Envoy''s hosts of a cluster are distinct addresses.';
	END IF;
	IF (SELECT sum(h.weight) FROM chash.export_envoy_hosts(ring) h) > 4294967295 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('the weights of ring "%s" sum to %s, which format "envoy" cannot express', chash.message_name(ring),
							 (SELECT sum(h.weight) FROM chash.export_envoy_hosts(ring) h)),
			DETAIL = 'Envoy''s load_balancing_weight of the hosts of a cluster sum to at most 4294967295.';
	END IF;
	IF NOT EXISTS (SELECT FROM chash.export_envoy_hosts(ring) h WHERE NOT h.down) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('every node of ring "%s" is down', chash.message_name(ring)),
			DETAIL = 'The ring routes no key, and an Envoy cluster without a healthy host routes none either.',
			HINT = 'Bring a node back with chash_node_set(ring, node, state => ''active'').';
	END IF;
	SELECT format(E'# Envoy cluster (API v3) of ring %s: hosts in the ring''s order, each hashed\n'
				  || E'# by its hash_key metadata or else its address; down nodes are unhealthy\n'
				  || E'# hosts, and no panic mode puts them back.\n'
				  || E'name: %s\ntype: STATIC\n%scommon_lb_config:\n  healthy_panic_threshold:\n    value: 0\n'
				  || E'load_assignment:\n  cluster_name: %s\n  endpoints:\n  - lb_endpoints:\n',
				  chash.export_yaml_string(ring), name, lb, name)
		   || string_agg(format(E'    - endpoint:\n        address:\n          socket_address:\n            address: %s\n            port_value: %s\n'
								|| E'      load_balancing_weight: %s\n%s%s',
								CASE WHEN h.v6 THEN '"' || h.ip || '"' ELSE h.ip END, h.port, h.weight::bigint,
								CASE WHEN h.down THEN E'      health_status: UNHEALTHY\n' ELSE '' END,
								CASE WHEN h.v6 OR h.node <> h.ip || ':' || h.port
									 THEN format(E'      metadata:\n        filter_metadata:\n          envoy.lb:\n            hash_key: %s\n',
												 chash.export_yaml_string(h.node))
									 ELSE '' END), '' ORDER BY h.k)
	INTO out
	FROM chash.export_envoy_hosts(ring) h;
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_envoy(text, jsonb) IS
	'chash_export of format envoy';

-- Elasticsearch: the body that creates an index whose shards are the
-- ring's nodes: settings number_of_shards (the nodes) and
-- number_of_routing_shards (the ring's table_size, else what Elasticsearch
-- 7.0 and later give that many shards), and in the mapping's _meta the
-- node of each shard, shard 0 first (the nodes in ordinal order)
CREATE OR REPLACE FUNCTION chash.export_elasticsearch(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n bigint;
	r bigint;
	bad record;
	shards jsonb;
BEGIN
	PERFORM chash.export_check_system(ring, 'elasticsearch', 'elasticsearch',
		ARRAY['algorithm', 'key_hash', 'lookup', 'hash_tag'],
		ARRAY['elasticsearch', 'es_murmur3', NULL, NULL]);
	PERFORM chash.export_check_ordinals(ring, 'elasticsearch');
	SELECT s.node, s.weight, s.down INTO bad
	FROM chash.export_nodes(ring, 'elasticsearch', 1) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	WHERE s.down ORDER BY s.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" is down, which format "elasticsearch" cannot express',
							 chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'The ring''s active nodes are the index''s shards; an index has no shard that is down, and its number of shards counts them all.',
			HINT = 'Remove the node from the ring, or bring it back with chash_node_set(ring, node, state => ''active'').';
	END IF;
	SELECT count(*), pg_catalog.jsonb_agg(s.node ORDER BY s.k) INTO n, shards
	FROM chash.export_nodes(ring, 'elasticsearch', 1) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k);
	SELECT coalesce(c.table_size, n << greatest(1, 10 - (SELECT min(b) FROM generate_series(0, 31) AS b WHERE 1::bigint << b >= n))) INTO r
	FROM chash.ring_config c WHERE c.ring = export_elasticsearch.ring;
	-- a table_size that is not a multiple of the nodes, or too large: the
	-- ring's own error, as it is built
	PERFORM @extschema@.chash_lookup(ring, '');
	RETURN pg_catalog.jsonb_pretty(pg_catalog.jsonb_build_object(
		'settings', pg_catalog.jsonb_build_object('index', pg_catalog.jsonb_build_object(
			'number_of_shards', n, 'number_of_routing_shards', r)),
		'mappings', pg_catalog.jsonb_build_object('_meta', pg_catalog.jsonb_build_object(
			'chash_ring', ring, 'chash_shards', shards)))) || E'\n';
END
$$;
COMMENT ON FUNCTION chash.export_elasticsearch(text, jsonb) IS
	'chash_export of format elasticsearch';

-- Cassandra: for each node, the cassandra.yaml lines that give a new node
-- its tokens (num_tokens and initial_token), under comments naming the
-- node, its address where it is not the name, and its rack (the node's
-- zone, for cassandra-rackdc.properties) where the ring has zones
CREATE OR REPLACE FUNCTION chash.export_cassandra(ring text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bad record;
	zones boolean;
	out text;
BEGIN
	PERFORM chash.export_check_system(ring, 'cassandra', 'cassandra',
		ARRAY['algorithm', 'key_hash', 'ties', 'lookup', 'hash_tag'],
		ARRAY['tokens', 'cassandra_murmur3', NULL, NULL, NULL]);
	SELECT c.node, c.state, c.tokens, c.vnodes, c.slots INTO bad
	FROM chash.node_config c WHERE c.ring = export_cassandra.ring
	  AND (c.state = 'down' OR c.tokens IS NULL OR c.vnodes IS NOT NULL OR c.slots IS NOT NULL
		   OR pg_catalog.cardinality(c.tokens) > 1536 OR c.node ~ '[[:cntrl:]]' OR c.address ~ '[[:cntrl:]]'
		   OR c.zone ~ '[[:cntrl:]]')
	ORDER BY c.ordinal, c.node LIMIT 1;
	IF FOUND AND bad.state = 'down' THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" is down, which format "cassandra" cannot express',
							 chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'A Cassandra node that is down still owns its tokens'' ranges; the ring gives them to the next nodes.',
			HINT = 'Bring the node back with chash_node_set(ring, node, state => ''active''), or remove it from the ring.';
	ELSIF FOUND AND (bad.tokens IS NULL OR bad.vnodes IS NOT NULL OR bad.slots IS NOT NULL) THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has %s, which format "cassandra" cannot express',
							 chash.message_name(bad.node), chash.message_name(ring),
							 CASE WHEN bad.tokens IS NULL THEN 'no tokens'
								  WHEN bad.vnodes IS NOT NULL THEN 'vnodes of its own' ELSE 'slots' END),
			DETAIL = 'A Cassandra node is placed by its tokens alone.';
	ELSIF FOUND AND pg_catalog.cardinality(bad.tokens) > 1536 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has %s tokens, which format "cassandra" cannot express',
							 chash.message_name(bad.node), chash.message_name(ring), pg_catalog.cardinality(bad.tokens)),
			DETAIL = 'Cassandra takes at most 1536 tokens a node (num_tokens).';
	ELSIF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('node "%s" of ring "%s" has a name, address or zone that format "cassandra" cannot write',
							 chash.message_name(bad.node), chash.message_name(ring)),
			DETAIL = 'It holds a control character.';
	END IF;
	SELECT t.token, min(c.node) AS first, max(c.node) AS second, count(*) AS n INTO bad
	FROM chash.node_config c, unnest(c.tokens) AS t(token)
	WHERE c.ring = export_cassandra.ring
	GROUP BY t.token HAVING count(*) > 1 ORDER BY t.token LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('token %s of ring "%s" is given %s times', bad.token, chash.message_name(ring), bad.n),
			DETAIL = format('Cassandra gives a token to one node, once; nodes "%s" and "%s" hold this one.',
							chash.message_name(bad.first), chash.message_name(bad.second)),
			HINT = 'Give each node tokens of its own with chash_node_set(ring, node, tokens => ...).';
	END IF;
	SELECT bool_or(c.zone IS NOT NULL) INTO zones FROM chash.node_config c WHERE c.ring = export_cassandra.ring;
	SELECT E'# Cassandra (Murmur3Partitioner): in cassandra.yaml of each node, before it\n'
		   || E'# first joins, the num_tokens and initial_token lines under its name; its\n'
		   || E'# rack, where given, goes in cassandra-rackdc.properties (rack=...).\n'
		   || string_agg(format(E'# node: %s\n%s%snum_tokens: %s\ninitial_token: %s\n',
								c.node,
								CASE WHEN c.address IS NOT NULL AND c.address <> c.node THEN format(E'# address: %s\n', c.address) ELSE '' END,
								CASE WHEN zones AND c.zone IS NOT NULL THEN format(E'# rack: %s\n', c.zone) ELSE '' END,
								pg_catalog.cardinality(c.tokens),
								(SELECT string_agg(t::text, ',' ORDER BY t) FROM unnest(c.tokens) AS t)),
						 '' ORDER BY c.ordinal, c.node)
	INTO out
	FROM chash.node_config c WHERE c.ring = export_cassandra.ring;
	IF out IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has no node', chash.message_name(ring)),
			DETAIL = 'A configuration of format "cassandra" holds at least one node.';
	END IF;
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_cassandra(text, jsonb) IS
	'chash_export of format cassandra';
