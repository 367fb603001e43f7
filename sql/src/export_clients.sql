/*
 * chash_export for the memcached clients: a ring as the server list each
 * client takes, in its own syntax (a configuration string, a servers
 * string, or the JSON of its constructor's arguments), so that the client
 * built from it places every key as the ring does.  Clients have no server
 * that is down and most no name apart from the address they connect to: a
 * ring with either is refused, as is any setting of another profile.
 */

-- The settings of a ring created with chash_ring_create(ring, profile =>
-- format's profile), as chash.ring_config holds them; free lists those
-- the format writes itself.  An error naming the first that differs.
CREATE OR REPLACE FUNCTION chash.export_check_client(ring text, format text, free text[])
	RETURNS void
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	-- a ketama ring's settings, which most clients' profiles keep
	ketama CONSTANT jsonb := '{"algorithm": "ketama", "hash": "md5", "key_hash": null, "vnodes": 160,
							   "vnode_name": "{node}-{i}", "vnode_first": 0, "ketama_variant": null,
							   "ties": null, "table_size": null, "lookup": null, "hash_tag": null}';
	want jsonb;
	have jsonb;
	profile text;
	bad record;
BEGIN
	SELECT p.profile, ketama || p.settings INTO profile, want
	FROM (VALUES ('libmemcached', 'libmemcached', '{"ketama_variant": "libmemcached"}'::jsonb),
				 ('uhashring', 'uhashring', '{"ketama_variant": "uhashring"}'),
				 ('hashring', 'hashring', '{"ketama_variant": "node"}'),
				 ('spymemcached', 'spymemcached', '{"ketama_variant": "spymemcached"}'),
				 ('dalli', 'dalli', '{"algorithm": "dalli", "hash": "sha1_be32", "key_hash": "crc32",
									  "vnode_name": "{node}:{i}"}'),
				 ('pymemcache', 'pymemcache', '{"algorithm": "rendezvous", "hash": "pymemcache_murmur3",
												"vnode_name": "{node}#{i}", "ketama_variant": "pymemcache"}'),
				 ('groupcache', 'groupcache', '{"algorithm": "ring", "hash": "crc32", "vnodes": 50,
												"vnode_name": "{i}{node}", "ties": "last"}'))
		 AS p(format, profile, settings)
	WHERE p.format = export_check_client.format;
	SELECT pg_catalog.to_jsonb(c) INTO have
	FROM (SELECT r.algorithm, r.hash, r.key_hash, r.vnodes, r.vnode_name, r.vnode_first, r.ketama_variant,
				 r.ties, r.table_size, r.lookup, r.hash_tag
		  FROM chash.ring_config r WHERE r.ring = export_check_client.ring) c;
	SELECT w.key, have -> w.key AS have, w.value AS should INTO bad
	FROM pg_catalog.jsonb_each(want) WITH ORDINALITY AS w(key, value, k)
	WHERE NOT w.key = ANY (free) AND have -> w.key IS DISTINCT FROM w.value
	ORDER BY array_position(ARRAY['algorithm', 'hash', 'key_hash', 'vnodes', 'vnode_name', 'vnode_first',
								  'ketama_variant', 'ties', 'table_size', 'lookup', 'hash_tag'], w.key)
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('ring "%s" has %s %s, which format "%s" cannot express',
							 chash.message_name(ring), bad.key,
							 CASE WHEN bad.have = 'null' THEN 'NULL' ELSE bad.have::text END, format),
			DETAIL = format('The configuration places keys as profile "%s" does, with %s %s.', profile, bad.key,
							CASE WHEN bad.should = 'null' THEN 'NULL' ELSE bad.should::text END),
			HINT = format('Export a ring created with chash_ring_create(ring, profile => ''%s'').', profile);
	END IF;
END
$$;
COMMENT ON FUNCTION chash.export_check_client(text, text, text[]) IS
	'an error unless ring has the settings of the profile of a client format, but those the format writes';

-- The nodes of a ring for a client format: those of chash.export_nodes,
-- an error for a node that is down, whose address is not its name (the
-- client hashes what it connects to), or whose name does not match
-- pattern (what the client's syntax takes, said by what)
CREATE OR REPLACE FUNCTION chash.export_client_nodes(ring text, format text, max_weight double precision,
													 pattern text, what text,
													 OUT node text, OUT weight bigint, OUT k bigint)
	RETURNS SETOF record
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
BEGIN
	FOR n IN
		SELECT * FROM chash.export_nodes(ring, format, max_weight) WITH ORDINALITY AS s(node, weight, down, ordinal, address, k)
	LOOP
		IF n.down THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" is down, which format "%s" cannot express',
								 chash.message_name(n.node), chash.message_name(ring), format),
				DETAIL = 'The client''s server list has no server that is down: a server keeps its keys until it leaves the list.',
				HINT = 'Remove the node from the ring, or bring it back with chash_node_set(ring, node, state => ''active'').';
		END IF;
		IF n.address <> n.node THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" has address "%s", which format "%s" cannot express',
								 chash.message_name(n.node), chash.message_name(ring), chash.message_name(n.address), format),
				DETAIL = 'The client places a server by the address it connects to, which is the node''s name.',
				HINT = 'Name the node by its address, or give it its name as address with chash_node_set(ring, node, address => node).';
		END IF;
		IF n.node !~ pattern THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = format('node "%s" of ring "%s" has a name that format "%s" cannot write',
								 chash.message_name(n.node), chash.message_name(ring), format),
				DETAIL = format('The servers of format "%s" are %s.', format, what);
		END IF;
		node := n.node;
		weight := n.weight::bigint;
		k := n.k;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION chash.export_client_nodes(text, text, double precision, text, text) IS
	'the nodes of a ring in server-list order for a client format, or an error for what the client''s server list cannot hold';

-- Each client's server list, from the nodes in the ring's order:
--   libmemcached  its configuration language (the string of memcached()
--                 and libmemcached_check_configuration()), one --SERVER=
--                 host[:port]/?weight each; the language has no option for
--                 weighted ketama, which the client sets as a behavior
--   dalli         its servers string, "host:port:weight" by commas, as
--                 Dalli::Client.new and MEMCACHE_SERVERS take it (a bare
--                 host written on port 11211, the name Dalli hashes)
--   spymemcached  AddrUtil.getAddresses' list, "ip:port" by spaces, for a
--                 KetamaNodeLocator of key format SPYMEMCACHED without
--                 weights, which names a server by its ip:port
--   pymemcache    the JSON array of "host:port" given to HashClient (a
--                 bare host written on port 11211, the name it hashes)
--   uhashring     the JSON of HashRing's keyword arguments: hash_fn
--                 "ketama" and the nodes with their weights
--   hashring      the JSON object of servers and weights of npm's new
--                 HashRing(servers) (a name that is an integer would be
--                 moved first by JavaScript, and is refused)
--   groupcache    the JSON of an HTTPPool's Replicas (the ring's vnodes) and
--                 the Peers given to Set
CREATE OR REPLACE FUNCTION chash.export_client(ring text, format text, options jsonb)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	f record;
	replicas integer;
	out text;
BEGIN
	SELECT x.max_weight, x.pattern, x.what INTO f
	FROM (VALUES ('libmemcached', 99999,
				  '^([0-9]{1,3}(\.[0-9]{1,3}){3}|[A-Za-z0-9][A-Za-z0-9._-]+[A-Za-z0-9])(:[0-9]{1,5})?$',
				  'host or host:port, the host an IPv4 address or a name of at least three letters, digits, ".", "_" and "-" that begins and ends with a letter or digit'),
				 ('dalli', 999999999, '^([^,:\s/]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$',
				  'host or host:port (an IPv6 host in brackets), without commas, spaces or "/"'),
				 ('spymemcached', 1, '^[0-9]{1,3}(\.[0-9]{1,3}){3}:[0-9]{1,5}$',
				  'an IPv4 address and port, ip:port, as spymemcached names a server'),
				 ('pymemcache', 1, '^[^:\s]+(:[0-9]{1,5})?$', 'host or host:port, without spaces'),
				 ('uhashring', 999999999, '^', 'any text'),
				 ('hashring', 999999999, '^(?!(0|[1-9][0-9]{0,9})$)',
				  'names that are not integers, whose order a JavaScript object keeps'),
				 ('groupcache', 1, '^', 'any text'))
		 AS x(format, max_weight, pattern, what)
	WHERE x.format = export_client.format;
	PERFORM chash.export_check_client(ring, format, CASE WHEN format = 'groupcache' THEN '{vnodes}'::text[] ELSE '{}' END);
	SELECT r.vnodes INTO replicas FROM chash.ring_config r WHERE r.ring = export_client.ring;
	SELECT CASE format
		WHEN 'libmemcached' THEN string_agg(format('--SERVER=%s/?%s', n.node, n.weight), ' ' ORDER BY n.k)
		WHEN 'dalli' THEN string_agg(n.node || CASE WHEN n.node ~ ':[0-9]+$' THEN '' ELSE ':11211' END || ':' || n.weight,
									 ',' ORDER BY n.k)
		WHEN 'spymemcached' THEN string_agg(n.node, ' ' ORDER BY n.k)
		WHEN 'pymemcache' THEN '[' || string_agg(pg_catalog.to_json(n.node || CASE WHEN n.node ~ ':[0-9]+$' THEN '' ELSE ':11211' END)::text,
												 ', ' ORDER BY n.k) || ']'
		WHEN 'uhashring' THEN E'{"hash_fn": "ketama", "nodes": {\n'
							  || string_agg(format('  %s: {"weight": %s}', pg_catalog.to_json(n.node), n.weight), E',\n' ORDER BY n.k)
							  || E'\n}}'
		WHEN 'hashring' THEN E'{\n' || string_agg(format('  %s: %s', pg_catalog.to_json(n.node), n.weight), E',\n' ORDER BY n.k)
							 || E'\n}'
		WHEN 'groupcache' THEN format(E'{"Replicas": %s, "Peers": [\n', replicas)
							   || string_agg('  ' || pg_catalog.to_json(n.node)::text, E',\n' ORDER BY n.k) || E'\n]}'
		END || E'\n'
	INTO out
	FROM chash.export_client_nodes(ring, format, f.max_weight, f.pattern, f.what) n;
	RETURN out;
END
$$;
COMMENT ON FUNCTION chash.export_client(text, text, jsonb) IS
	'chash_export of a memcached client''s format: its server list in its own syntax';
