/* sql/chash--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION chash" to load this file. \quit

/*
 * The catalog: rings and their nodes in ordinary tables of schema chash.
 * The SQL functions live in the extension's schema; everything here refers
 * to the catalog by qualified names, so no search_path is needed.
 */
CREATE SCHEMA chash;
GRANT USAGE ON SCHEMA chash TO PUBLIC;

-- Helpers of the constraints below: the C tables of hash functions and
-- algorithms are the one list of valid names.
CREATE FUNCTION chash.hash_bits(hash text) RETURNS integer
	AS 'MODULE_PATHNAME', 'chash_hash_bits'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.hash_bits(text) IS
	'width in bits (32 or 64) of a chash hash function, NULL if there is no such function';

CREATE FUNCTION chash.algorithm_is_known(algorithm text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'chash_algorithm_is_known'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash.algorithm_is_known(text) IS
	'whether chash has a ring algorithm of that name';

CREATE TABLE chash.ring_config (
	ring		text PRIMARY KEY,
	algorithm	text NOT NULL DEFAULT 'ring',
	hash		text NOT NULL DEFAULT 'xxh3_64',
	key_hash	text,
	vnodes		integer NOT NULL DEFAULT 160,
	vnode_name	text NOT NULL DEFAULT '{node}#{i}',
	vnode_first integer NOT NULL DEFAULT 0,
	CONSTRAINT ring_config_ring_check
		CHECK (pg_catalog.octet_length(ring) BETWEEN 1 AND 63),
	CONSTRAINT ring_config_algorithm_check
		CHECK (chash.algorithm_is_known(algorithm)),
	CONSTRAINT ring_config_hash_check
		CHECK (chash.hash_bits(hash) IS NOT NULL),
	CONSTRAINT ring_config_key_hash_check
		CHECK (key_hash IS NULL OR
			   coalesce(chash.hash_bits(key_hash) = chash.hash_bits(hash), false)),
	CONSTRAINT ring_config_vnodes_check
		CHECK (vnodes BETWEEN 1 AND 16777216),
	CONSTRAINT ring_config_vnode_name_check
		CHECK (pg_catalog.strpos(vnode_name, '{i}'::text) > 0 AND
			   pg_catalog.strpos(vnode_name, '{node}'::text) > 0)
);
COMMENT ON TABLE chash.ring_config IS
	'chash rings: one row a ring, its algorithm, hash functions and virtual node settings';

CREATE TABLE chash.node_config (
	ring		text NOT NULL
		REFERENCES chash.ring_config (ring) ON UPDATE CASCADE ON DELETE CASCADE,
	node		text NOT NULL,
	weight		double precision NOT NULL DEFAULT 1,
	vnodes		integer,
	zone		text,
	state		text NOT NULL DEFAULT 'active',
	PRIMARY KEY (ring, node),
	CONSTRAINT node_config_node_check
		CHECK (node <> ''::text),
	CONSTRAINT node_config_weight_check
		CHECK (weight > 0::double precision AND weight < 'Infinity'::double precision),
	CONSTRAINT node_config_vnodes_check
		CHECK (vnodes BETWEEN 1 AND 16777216),
	CONSTRAINT node_config_state_check
		CHECK (state IN ('active'::text, 'down'::text))
);
COMMENT ON TABLE chash.node_config IS
	'nodes of chash rings: weight, own vnodes (NULL: from the weight), zone and state';

-- pg_dump carries every ring
SELECT pg_catalog.pg_extension_config_dump('chash.ring_config', '');
SELECT pg_catalog.pg_extension_config_dump('chash.node_config', '');

-- Routing reads the catalog with the caller's rights; changing it needs
-- write privileges, which only the owner has until granted.
GRANT SELECT ON chash.ring_config, chash.node_config TO PUBLIC;

/*
 * Any change to the catalog, through the functions or by plain DML,
 * invalidates every backend's cached rings.  Row triggers, because the
 * logical replication apply worker fires no statement triggers (TRUNCATE
 * has statement triggers only), and ALWAYS, so that they also fire with
 * session_replication_role = replica.
 */
CREATE FUNCTION chash.invalidate_cache() RETURNS trigger
	AS 'MODULE_PATHNAME', 'chash_invalidate_cache'
	LANGUAGE C;
COMMENT ON FUNCTION chash.invalidate_cache() IS
	'trigger: invalidates the cached rings of every backend';

CREATE TRIGGER ring_config_invalidate_cache
	AFTER INSERT OR UPDATE OR DELETE ON chash.ring_config
	FOR EACH ROW EXECUTE FUNCTION chash.invalidate_cache();
CREATE TRIGGER ring_config_invalidate_cache_truncate
	AFTER TRUNCATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.invalidate_cache();
CREATE TRIGGER node_config_invalidate_cache
	AFTER INSERT OR UPDATE OR DELETE ON chash.node_config
	FOR EACH ROW EXECUTE FUNCTION chash.invalidate_cache();
CREATE TRIGGER node_config_invalidate_cache_truncate
	AFTER TRUNCATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.invalidate_cache();
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_invalidate_cache;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_invalidate_cache_truncate;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_invalidate_cache;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_invalidate_cache_truncate;

/*
 * Every ring that an INSERT or UPDATE touches must still be buildable: no
 * node over 16777216 points, no ring over 67108864.  The trigger before the
 * statement queues concurrent changes; the one after checks each ring.
 */
CREATE FUNCTION chash.check_ring_size() RETURNS trigger
	AS 'MODULE_PATHNAME', 'chash_check_ring_size'
	LANGUAGE C;
COMMENT ON FUNCTION chash.check_ring_size() IS
	'trigger: rejects changes that would give a node or a ring too many points';

CREATE TRIGGER ring_config_check_size_before
	BEFORE INSERT OR UPDATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER node_config_check_size_before
	BEFORE INSERT OR UPDATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER ring_config_check_size_insert
	AFTER INSERT ON chash.ring_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER ring_config_check_size_update
	AFTER UPDATE ON chash.ring_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER node_config_check_size_insert
	AFTER INSERT ON chash.node_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();
CREATE TRIGGER node_config_check_size_update
	AFTER UPDATE ON chash.node_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.check_ring_size();

/*
 * Changing rings.  VOLATILE; they run with the caller's rights, so they
 * need the privileges on the catalog tables that plain DML would.
 */
CREATE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT 'ring',
								  hash text DEFAULT 'xxh3_64',
								  vnodes integer DEFAULT 160,
								  vnode_name text DEFAULT '{node}#{i}',
								  vnode_first integer DEFAULT 0,
								  key_hash text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text) IS
	'create a ring: algorithm, hash of the points, vnodes per node of weight 1, vnode name template ({node}, {i}), first i, hash of the keys (default: hash)';

CREATE FUNCTION chash_ring_drop(ring text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_drop'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_drop(text) IS
	'drop a ring and all its nodes';

CREATE FUNCTION chash_node_add(ring text,
							   node text,
							   weight double precision DEFAULT 1,
							   vnodes integer DEFAULT NULL,
							   zone text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_add'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_add(text, text, double precision, integer, text) IS
	'add a node to a ring: weight (> 0), own vnodes (default: round(ring vnodes x weight)), zone';

CREATE FUNCTION chash_node_remove(ring text, node text)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_remove'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_remove(text, text) IS
	'remove a node from a ring';

CREATE FUNCTION chash_node_set(ring text,
							   node text,
							   weight double precision DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   state text DEFAULT NULL,
							   zone text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_set(text, text, double precision, integer, text, text) IS
	'change a node''s weight, vnodes, state (active or down) or zone; NULL leaves a setting as it is';

/*
 * Routing.  STABLE because they read the catalog (through the per-backend
 * cache): a statement sees one state of each ring.
 */
CREATE FUNCTION chash_lookup(ring text, key text) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup(ring text, key bytea) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup(ring text, key integer) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup(ring text, key bigint) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup(ring text, key uuid) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_lookup_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup(text, text) IS
	'the node that owns a text key (hashed as its UTF-8 bytes)';
COMMENT ON FUNCTION chash_lookup(text, bytea) IS
	'the node that owns a bytea key (hashed as its bytes)';
COMMENT ON FUNCTION chash_lookup(text, integer) IS
	'the node that owns an integer key (hashed as its decimal text)';
COMMENT ON FUNCTION chash_lookup(text, bigint) IS
	'the node that owns a bigint key (hashed as its decimal text)';
COMMENT ON FUNCTION chash_lookup(text, uuid) IS
	'the node that owns a uuid key (hashed as its canonical lower-case text)';

CREATE FUNCTION chash_lookup_n(ring text, key text, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bytea, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key integer, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bigint, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key uuid, n integer) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, text, integer) IS
	'the first n distinct nodes clockwise from a text key (a preference list; the first is chash_lookup''s)';
COMMENT ON FUNCTION chash_lookup_n(text, bytea, integer) IS
	'the first n distinct nodes clockwise from a bytea key (a preference list; the first is chash_lookup''s)';
COMMENT ON FUNCTION chash_lookup_n(text, integer, integer) IS
	'the first n distinct nodes clockwise from an integer key (a preference list; the first is chash_lookup''s)';
COMMENT ON FUNCTION chash_lookup_n(text, bigint, integer) IS
	'the first n distinct nodes clockwise from a bigint key (a preference list; the first is chash_lookup''s)';
COMMENT ON FUNCTION chash_lookup_n(text, uuid, integer) IS
	'the first n distinct nodes clockwise from a uuid key (a preference list; the first is chash_lookup''s)';

CREATE FUNCTION chash_position(ring text, key text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_position(ring text, key bytea) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_position(ring text, key integer) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_position(ring text, key bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_position(ring text, key uuid) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_position_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_position(text, text) IS
	'where a text key falls on the ring: its key hash, as bigint';
COMMENT ON FUNCTION chash_position(text, bytea) IS
	'where a bytea key falls on the ring: its key hash, as bigint';
COMMENT ON FUNCTION chash_position(text, integer) IS
	'where an integer key falls on the ring: its key hash, as bigint';
COMMENT ON FUNCTION chash_position(text, bigint) IS
	'where a bigint key falls on the ring: its key hash, as bigint';
COMMENT ON FUNCTION chash_position(text, uuid) IS
	'where a uuid key falls on the ring: its key hash, as bigint';

CREATE FUNCTION chash_hash(hash text, key text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_hash_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_hash(hash text, key bytea) RETURNS bigint
	AS 'MODULE_PATHNAME', 'chash_hash_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_hash(text, text) IS
	'a chash hash function applied to a text key (its UTF-8 bytes); 64-bit values as signed bigint';
COMMENT ON FUNCTION chash_hash(text, bytea) IS
	'a chash hash function applied to a bytea key; 64-bit values as signed bigint';

CREATE FUNCTION chash_points(ring text)
	RETURNS TABLE(point bigint, node text, vnode text)
	AS 'MODULE_PATHNAME', 'chash_points'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash_points(text) IS
	'every point of a ring in ring order (unsigned): its position, node and virtual node name';

CREATE FUNCTION chash_hash_functions()
	RETURNS TABLE(name text, bits integer, description text)
	AS 'MODULE_PATHNAME', 'chash_hash_functions'
	LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash_hash_functions() IS
	'the hash functions chash can place points and keys with';

CREATE FUNCTION chash.cache_stats()
	RETURNS TABLE(rings integer, bound_rings integer,
				  latest_builds bigint, bound_builds bigint)
	AS 'MODULE_PATHNAME', 'chash_cache_stats_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION chash.cache_stats() IS
	'this backend''s ring cache: rings cached for current snapshots and for older ones, and rings built since the backend started';

/*
 * Views for people: the rings and nodes with their point counts.
 */
CREATE FUNCTION chash.ring_node_points(ring text)
	RETURNS TABLE(node text, points integer)
	AS 'MODULE_PATHNAME', 'chash_ring_node_points'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_node_points(text) IS
	'number of points of each node of a ring, from the cached ring';

CREATE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points
	FROM chash.ring_config r
	CROSS JOIN LATERAL chash.ring_node_points(r.ring) p
	JOIN chash.node_config n ON n.ring = r.ring AND n.node = p.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state and number of points';

CREATE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   coalesce(pg_catalog.sum(n.points), 0)::bigint AS points
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points';

GRANT SELECT ON chash.rings, chash.nodes TO PUBLIC;

-- From PostgreSQL 15 on, the views read the tables with the caller's rights
-- too, so that privileges revoked on the tables also hold for the views.
DO $$
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
	END IF;
END
$$;
