/* sql/chash--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.1'" to load this file. \quit

/*
 * 1.1: compatibility profiles.  The ketama algorithm with the variants of
 * its clients, the order of nodes in a client's server list (which breaks
 * ties between nodes on one position), and a ties rule for ring rings.
 */

-- A node's place in its client's server list: the order of addition,
-- unless changed.  Existing nodes are numbered in the order in which 1.0
-- broke ties, their names' UTF-8 bytes; ties rules that look at ordinals
-- are new, so no route depends on them yet.
CREATE SEQUENCE chash.node_ordinal_seq AS bigint;
SELECT pg_catalog.pg_extension_config_dump('chash.node_ordinal_seq', '');
GRANT USAGE, SELECT ON SEQUENCE chash.node_ordinal_seq TO PUBLIC;

ALTER TABLE chash.node_config ADD COLUMN ordinal bigint;
ALTER TABLE chash.ring_config
	ADD COLUMN ketama_variant text,
	ADD COLUMN ties text,
	ADD CONSTRAINT ring_config_ties_check
		CHECK (ties IN ('name'::text, 'first'::text, 'last'::text));

UPDATE chash.node_config n SET ordinal = o.ordinal
	FROM (SELECT ring, node,
				 pg_catalog.row_number() OVER (ORDER BY ring, pg_catalog.convert_to(node, 'UTF8')) AS ordinal
		  FROM chash.node_config) o
	WHERE n.ring OPERATOR(pg_catalog.=) o.ring
	  AND n.node OPERATOR(pg_catalog.=) o.node;
SELECT pg_catalog.setval('chash.node_ordinal_seq',
						 coalesce(pg_catalog.max(ordinal), 0) OPERATOR(pg_catalog.+) 1,
						 false)
	FROM chash.node_config;
ALTER TABLE chash.node_config
	ALTER COLUMN ordinal SET DEFAULT pg_catalog.nextval('chash.node_ordinal_seq'),
	ALTER COLUMN ordinal SET NOT NULL;

COMMENT ON COLUMN chash.node_config.ordinal IS
	'the node''s place in its client''s server list (order of addition unless changed); breaks ties between nodes under ties rules first and last';
COMMENT ON COLUMN chash.ring_config.ketama_variant IS
	'for ketama rings, the client whose arithmetic is reproduced: libmemcached, libketama, twemproxy, uhashring or node';
COMMENT ON COLUMN chash.ring_config.ties IS
	'which node owns a position shared by points of several nodes: name (first by name), first or last (by ordinal); NULL: the algorithm''s rule';

DROP FUNCTION chash_ring_create(text, text, text, integer, text, integer, text);
CREATE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT 'ring',
								  hash text DEFAULT NULL,
								  vnodes integer DEFAULT 160,
								  vnode_name text DEFAULT NULL,
								  vnode_first integer DEFAULT 0,
								  key_hash text DEFAULT NULL,
								  ketama_variant text DEFAULT NULL,
								  ties text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text) IS
	'create a ring: algorithm (ring or ketama), hash of the points (default: the algorithm''s), vnodes per node of average weight, vnode name template ({node}, {i}), first i, hash of the keys (default: hash), ketama variant, ties rule';

-- The views gain the new settings as last columns
CREATE OR REPLACE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points,
		   n.ordinal
	FROM chash.ring_config r
	CROSS JOIN LATERAL chash.ring_node_points(r.ring) p
	JOIN chash.node_config n ON n.ring = r.ring AND n.node = p.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points and place in the server list';

CREATE OR REPLACE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   coalesce(pg_catalog.sum(n.points), 0)::bigint AS points,
		   r.ketama_variant, r.ties
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points';

DO $$
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
	END IF;
END
$$;
