/* sql/chash--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION chash UPDATE TO '1.3'" to load this file. \quit

/*
 * 1.3: placement beyond the name ring.  Computed placements (modulo, jump,
 * rendezvous, maglev, slots) beside the rings of points; nodes at given
 * tokens and nodes owning given slots;
 * lookup rules; the key hash identity, which takes integer keys as their
 * own positions; zone-aware replicas; plans between any two schemes.
 */

-- A key hash need not give positions as wide as the points' hash: the
-- placements without points have none.  The library checks the pairs that
-- must agree (rings of points) on every change.
ALTER TABLE chash.ring_config DROP CONSTRAINT ring_config_key_hash_check;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_key_hash_check
	CHECK (key_hash IS NULL OR chash.hash_bits(key_hash) IS NOT NULL);

-- The size of a ring's table, NULL for its algorithm's default: maglev's
-- lookup table (65537; the library checks that it is prime and large
-- enough for the nodes) or the number of slots of slots (16384)
ALTER TABLE chash.ring_config ADD COLUMN table_size integer;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_table_size_check
	CHECK (table_size BETWEEN 2 AND 67108864);

-- A node's explicit points (algorithm tokens, or a node of a ring ring):
-- positions as chash_position shows them; the library checks them
-- against the ring's key hash
ALTER TABLE chash.node_config ADD COLUMN tokens bigint[];
ALTER TABLE chash.node_config ADD CONSTRAINT node_config_tokens_check
	CHECK (CASE WHEN tokens IS NULL THEN true
				WHEN pg_catalog.array_ndims(tokens) = 1
				THEN pg_catalog.cardinality(tokens) BETWEEN 1 AND 16777216 AND
					 pg_catalog.array_position(tokens, NULL) IS NULL
				ELSE false END);

-- A node's slot ranges (algorithm slots): NULL if it was given none (the
-- slots are then split evenly, unless another active node was given some),
-- and an empty array for a node that owns no slot.  The library checks
-- them against the ring's number of slots and each other.
CREATE FUNCTION chash.slot_ranges_valid(slots int4range[]) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT coalesce(array_ndims(slots), 1) = 1 AND cardinality(slots) <= 16777216 AND
	   NOT EXISTS (SELECT FROM unnest(slots) AS r
				   WHERE r IS NULL OR isempty(r) OR lower_inf(r) OR upper_inf(r) OR lower(r) < 0)
$$;
COMMENT ON FUNCTION chash.slot_ranges_valid(int4range[]) IS
	'whether slot ranges can be a node''s: one dimension, each range bounded, not empty and from slot 0 on';
ALTER TABLE chash.node_config ADD COLUMN slots int4range[];
ALTER TABLE chash.node_config ADD CONSTRAINT node_config_slots_check
	CHECK (chash.slot_ranges_valid(slots));

DROP FUNCTION chash_node_add(text, text, double precision, integer, text, text);
CREATE FUNCTION chash_node_add(ring text,
							   node text,
							   weight double precision DEFAULT 1,
							   vnodes integer DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_add'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_add(text, text, double precision, integer, text, text, bigint[], int4range[]) IS
	'add a node to a ring: weight (> 0), own vnodes (default: from the weight), zone, target (where its rows live), tokens (its points, instead of vnodes), slots (the slot ranges it owns, for slots rings)';

DROP FUNCTION chash_node_set(text, text, double precision, integer, text, text, text);
CREATE FUNCTION chash_node_set(ring text,
							   node text,
							   weight double precision DEFAULT NULL,
							   vnodes integer DEFAULT NULL,
							   state text DEFAULT NULL,
							   zone text DEFAULT NULL,
							   target text DEFAULT NULL,
							   tokens bigint[] DEFAULT NULL,
							   slots int4range[] DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_node_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_node_set(text, text, double precision, integer, text, text, text, bigint[], int4range[]) IS
	'change a node''s weight, vnodes, state (active or down), zone, target, tokens or slots (''{}'' for none); NULL leaves a setting as it is';

-- A ring's lookup rule: the point at or after a key (NULL, the default),
-- the last at or before it, or the nearest
ALTER TABLE chash.ring_config ADD COLUMN lookup text;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_lookup_check
	CHECK (lookup IN ('successor'::text, 'predecessor'::text, 'nearest'::text));

COMMENT ON FUNCTION chash.algorithm_is_known(text) IS
	'whether chash has a placement algorithm of that name';
DROP FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text);
CREATE FUNCTION chash_ring_create(ring text,
								  algorithm text DEFAULT 'ring',
								  hash text DEFAULT NULL,
								  vnodes integer DEFAULT 160,
								  vnode_name text DEFAULT NULL,
								  vnode_first integer DEFAULT 0,
								  key_hash text DEFAULT NULL,
								  ketama_variant text DEFAULT NULL,
								  ties text DEFAULT NULL,
								  table_size integer DEFAULT NULL,
								  lookup text DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'chash_ring_create'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text) IS
	'create a ring: algorithm (ring, ketama, tokens, modulo, jump, rendezvous, maglev or slots), hash of the points or node names (default: the algorithm''s), vnodes per node of average weight, vnode name template ({node}, {i}), first i, hash of the keys (default: hash; identity for integer keys), ketama variant, ties rule, table size (maglev''s, a prime, default 65537; the number of slots, default 16384), lookup rule of ring rings (successor, predecessor or nearest)';

-- Zone-aware replicas: chash_lookup_n(ring, key, n, distinct_zones) picks
-- nodes of zones that hold no copy yet first.  Without the argument it is
-- the 1.2 function, unchanged.
CREATE FUNCTION chash_lookup_n(ring text, key text, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_text'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bytea, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_bytea'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key integer, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int4'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key bigint, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_int8'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION chash_lookup_n(ring text, key uuid, n integer, distinct_zones boolean) RETURNS text[]
	AS 'MODULE_PATHNAME', 'chash_lookup_n_uuid'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION chash_lookup_n(text, text, integer, boolean) IS
	'the first n distinct nodes of the key''s preference order; with distinct_zones, nodes of zones holding no copy yet first (a node without a zone is a zone of its own), then the others in order';
COMMENT ON FUNCTION chash_lookup_n(text, bytea, integer, boolean) IS
	'chash_lookup_n of a binary key, by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, integer, integer, boolean) IS
	'chash_lookup_n of an integer key (hashed as its decimal text), by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, bigint, integer, boolean) IS
	'chash_lookup_n of a bigint key (hashed as its decimal text), by zones if asked';
COMMENT ON FUNCTION chash_lookup_n(text, uuid, integer, boolean) IS
	'chash_lookup_n of a uuid key (hashed as its canonical text), by zones if asked';

-- Ownership by zones: chash_ownership(ring, replicas, distinct_zones)
CREATE FUNCTION chash.ring_ownership(ring text, replicas integer, require_active boolean,
									 distinct_zones boolean)
	RETURNS TABLE(node text, points integer, owned double precision, expected double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_ownership_sql'
	LANGUAGE C STABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.ring_ownership(text, integer, boolean, boolean) IS
	'chash.ring_ownership, the replicas picked by zones with distinct_zones';

CREATE FUNCTION chash.ownership(ring text, replicas integer, require_active boolean,
								distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$
-- a left join, as chash.ownership(ring, replicas, require_active) says
SELECT o.node, n.zone, n.state, n.weight, o.points, o.owned, o.expected,
	   o.owned / nullif(o.expected, 0)
FROM chash.ring_ownership(ownership.ring, ownership.replicas, ownership.require_active,
						  ownership.distinct_zones) o
LEFT JOIN chash.node_config n ON n.ring = ownership.ring AND n.node = o.node
ORDER BY n.ordinal, o.node
$$;
COMMENT ON FUNCTION chash.ownership(text, integer, boolean, boolean) IS
	'chash_ownership by zones if asked, and with require_active false also for a ring with no active node';

CREATE FUNCTION chash_ownership(ring text, replicas integer, distinct_zones boolean)
	RETURNS TABLE(node text, zone text, state text, weight double precision, points integer,
				  owned double precision, expected double precision, ratio double precision)
	LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT * FROM chash.ownership(chash_ownership.ring, chash_ownership.replicas, true,
										 chash_ownership.distinct_zones) $$;
COMMENT ON FUNCTION chash_ownership(text, integer, boolean) IS
	'each node''s exact share of the keys held on chash_lookup_n(..., replicas, distinct_zones), its share of the active weight (expected, whatever the zones) and their ratio';

-- Plans between any two rings.  Rings of points that hash keys alike are
-- compared range by range, as before; any other pair key by key: one
-- lookup in each ring (chash.plan_kind says which).  chash_moved_ranges
-- and chash_move_summary without a relation need ranges and say so.
CREATE FUNCTION chash.plan_kind(from_ring text, to_ring text) RETURNS text
	AS 'MODULE_PATHNAME', 'chash_plan_kind'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION chash.plan_kind(text, text) IS
	'the checks of every plan; ranges where the rings compare range by range (rings of points hashing keys alike), else keys';

CREATE FUNCTION chash.ring_node_ranges(ring text)
	RETURNS TABLE(lo bigint, hi bigint, node text, node_again text, fraction double precision)
	AS 'MODULE_PATHNAME', 'chash_ring_node_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION chash.ring_node_ranges(text) IS
	'a ring''s ranges of positions and the node owning each (no rows for placements without points)';

CREATE FUNCTION chash.placement_members(ring text)
	RETURNS TABLE(node text, member integer)
	AS 'MODULE_PATHNAME', 'chash_placement_members'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION chash.placement_members(text) IS
	'the active nodes of a computed placement as its owners are numbered (modulo: position mod n is the member), none for rings of points';

-- A ring's routing configuration, for plans to check that it is unchanged
CREATE FUNCTION chash.routing_fingerprint(ring text) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT md5(concat_ws(' ', r.algorithm, r.hash, coalesce(r.key_hash, r.hash), r.vnodes, r.vnode_name,
					 r.vnode_first, r.ketama_variant, r.ties, r.table_size, r.lookup,
					 (SELECT string_agg(concat_ws(' ', quote_literal(n.node), n.weight, n.vnodes, n.state,
												  n.ordinal, quote_nullable(n.zone), n.tokens::text,
												  n.slots::text), ',' ORDER BY n.node)
					  FROM chash.node_config n WHERE n.ring = r.ring)))
FROM chash.ring_config r WHERE r.ring = routing_fingerprint.ring
$$;
COMMENT ON FUNCTION chash.routing_fingerprint(text) IS
	'an md5 of everything a ring''s routing depends on';

CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text, keys anyarray)
	RETURNS TABLE(key anyelement, from_node text, to_node text)
	LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 100
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM chash.plan_kind(from_ring, to_ring);
	IF keys IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'keys must not be null';
	END IF;
	IF pg_typeof(keys) = 'bytea[]'::regtype THEN
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::bytea) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::bytea) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	ELSE
		RETURN QUERY
			SELECT s.k, s.f, s.t
			FROM (SELECT u.k, @extschema@.chash_lookup(from_ring, u.k::text) AS f,
						 @extschema@.chash_lookup(to_ring, u.k::text) AS t
				  FROM unnest(keys) AS u(k) OFFSET 0) s
			WHERE s.f <> s.t;
	END IF;
END
$$;


CREATE OR REPLACE FUNCTION chash_moved_keys(from_ring text, to_ring text,
								 relation regclass, key_column name)
	RETURNS SETOF record
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED ROWS 1000
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_expr text := chash.key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	PERFORM chash.plan_kind(from_ring, to_ring);
	RETURN QUERY EXECUTE format($q$
		SELECT k, f, t
		FROM (SELECT %1$I AS k,
					 @extschema@.chash_lookup($1, %2$s) AS f,
					 @extschema@.chash_lookup($2, %2$s) AS t
			  FROM %3$s OFFSET 0) s
		WHERE f <> t$q$, key_column, key_expr, relation)
	USING from_ring, to_ring;
END
$$;


CREATE OR REPLACE FUNCTION chash_move_summary(from_ring text, to_ring text,
								   relation regclass, key_column name)
	RETURNS TABLE(from_node text, to_node text, fraction double precision, keys bigint)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED ROWS 20
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_expr text := chash.key_expr(key_column, chash.key_column_type(relation, key_column));
BEGIN
	IF chash.plan_kind(from_ring, to_ring) = 'keys' THEN
		-- no ranges to weigh: the keys only (fraction NULL)
		RETURN QUERY EXECUTE format($q$
			SELECT f, t, NULL::double precision, count(*)
			FROM (SELECT @extschema@.chash_lookup($1, %1$s) AS f,
						 @extschema@.chash_lookup($2, %1$s) AS t
				  FROM %2$s OFFSET 0) s
			WHERE f IS NOT NULL
			GROUP BY f, t
			ORDER BY 1, 2$q$, key_expr, relation)
		USING from_ring, to_ring;
		RETURN;
	END IF;
	RETURN QUERY EXECUTE format($q$
		SELECT coalesce(r.from_node, c.from_node), coalesce(r.to_node, c.to_node),
			   coalesce(r.fraction, 0), coalesce(c.keys, 0)
		FROM (SELECT from_node, to_node, sum(fraction) AS fraction
			  FROM chash.ring_ranges($1, $2) GROUP BY from_node, to_node) r
		FULL JOIN (SELECT f AS from_node, t AS to_node, count(*) AS keys
				   FROM (SELECT @extschema@.chash_lookup($1, %1$s) AS f,
								@extschema@.chash_lookup($2, %1$s) AS t
						 FROM %2$s OFFSET 0) s
				   WHERE f IS NOT NULL
				   GROUP BY f, t) c
		  ON r.from_node = c.from_node AND r.to_node = c.to_node
		ORDER BY 1, 2$q$, key_expr, relation)
	USING from_ring, to_ring;
END
$$;
COMMENT ON FUNCTION chash_move_summary(text, text, regclass, name) IS
	'for every pair of nodes: the fraction of the hash space moving from one to the other (NULL where the rings compare key by key) and the number of the relation''s keys that do';

-- A key hash in MySQL: crc32 and md5 (its first 4 bytes, little-endian)
CREATE FUNCTION chash.mysql_key_hash(key_hash text, key_mysql text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
SELECT CASE key_hash WHEN 'crc32' THEN format('CRC32(%s)', key_mysql)
	   WHEN 'md5' THEN format('CAST(CONV(HEX(REVERSE(UNHEX(LEFT(MD5(%s), 8)))), 16, 10) AS UNSIGNED)', key_mysql)
	   END
$$;
COMMENT ON FUNCTION chash.mysql_key_hash(text, text) IS
	'the MySQL expression of key hash crc32 or md5 of a key, NULL for other hashes';

-- What chooses the rows of one node in MySQL (node NULL: the expression
-- hashed, for the plan's first comment): MOD() for modulo on identity, the
-- node's CRC32() or MD5() ranges for rings of points, its slot ranges of
-- MOD(key, slots) or MOD(CRC32(key), slots) for slots; NULL where MySQL
-- cannot compute the ring's placement
CREATE FUNCTION chash.mysql_node_rows(ring text, node text, key_mysql text) RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
	hashed text;
	slot text;
BEGIN
	SELECT c.algorithm, coalesce(c.key_hash, c.hash) AS key_hash, c.table_size INTO r
	FROM chash.ring_config c WHERE c.ring = mysql_node_rows.ring;
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
	'the MySQL condition choosing the rows of a ring''s node (modulo on identity, crc32 and md5 rings, slots on identity, crc32 or md5), NULL if MySQL cannot compute the ring';

CREATE OR REPLACE FUNCTION chash_migration_sql(from_ring text, to_ring text,
									relation regclass, key_column name,
									dialect text DEFAULT 'postgresql')
	RETURNS SETOF text
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	key_type regtype := chash.key_column_type(relation, key_column);
	kind text := chash.plan_kind(from_ring, to_ring);
	key_hash text;
	ext text := quote_ident('@extschema@');
	relname name;
	hashed text;				-- the key's position, in the dialect
	chooses text;				-- how the statements choose the rows, for people
	by_keys boolean := false;	-- key lists: key by key in PostgreSQL, MySQL without the hash
	key_mysql text := format('`%s`', replace(key_column, '`', '``'));
	columns text;				-- the columns copied, quoted for the dialect
	row_expr text;				-- PostgreSQL: those columns of row t
	overriding text := '';
	key_eq text := 'OPERATOR(pg_catalog.=)';
	checksum text;
	fingerprint text;
	nranges bigint;
	npairs bigint;
	fraction double precision;
	pair record;
	batch record;
	src text;
	dst text;
	pred text;
	pin constant text := 'SET LOCAL search_path = pg_catalog, pg_temp;';
BEGIN
	IF dialect IS NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'dialect must not be null';
	END IF;
	IF dialect NOT IN ('postgresql', 'mysql') THEN
		RAISE EXCEPTION USING
			ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unknown dialect "%s"', chash.message_name(dialect)),
			HINT = 'Valid dialects are "postgresql" and "mysql".';
	END IF;
	SELECT c.relname INTO relname FROM pg_class c WHERE c.oid = relation;
	IF kind = 'ranges' THEN
		key_hash := chash.plan_key_hash(from_ring, to_ring);
		SELECT count(*), count(DISTINCT (r.from_node, r.to_node)), coalesce(sum(r.fraction), 0),
			   md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
		INTO nranges, npairs, fraction, fingerprint
		FROM @extschema@.chash_moved_ranges(from_ring, to_ring) r;
	ELSE
		-- every pair of active nodes may move keys; the rings must be as planned
		SELECT count(*) INTO npairs
		FROM chash.node_config f, chash.node_config t
		WHERE f.ring = from_ring AND t.ring = to_ring AND f.state = 'active' AND t.state = 'active'
		  AND f.node <> t.node;
		fingerprint := md5(chash.routing_fingerprint(from_ring) || chash.routing_fingerprint(to_ring));
	END IF;

	IF dialect = 'postgresql' THEN
		IF kind = 'keys' THEN
			-- the keys the relation holds, each looked up in both rings; lists
			-- are what postgres_fdw can send to the shards
			by_keys := true;
			chooses := 'rows chosen by explicit key lists, each key looked up in both rings (keys written after the plan was made are not in them)';
		ELSE
			hashed := format('%s.chash_hash(%L, t.%s)', ext, key_hash,
							 chash.key_expr(key_column, key_type));
			chooses := format('rows chosen by %s in PostgreSQL', hashed);
		END IF;
		-- generated columns are computed again; identity ones copied as they are
		SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   string_agg('t.' || quote_ident(a.attname), ', ' ORDER BY a.attnum),
			   CASE WHEN bool_or(a.attidentity = 'a') THEN ' OVERRIDING SYSTEM VALUE' ELSE '' END
		INTO columns, row_expr, overriding
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- the key type's own equality, wherever it lives
		SELECT format('OPERATOR(%I.=)', n.nspname) INTO key_eq
		FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
		WHERE o.oprname = '=' AND o.oprleft = key_type AND o.oprright = key_type
		LIMIT 1;
		key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');
	ELSE
		IF kind = 'keys' THEN
			-- each side as MySQL computes it (MOD() for modulo on identity,
			-- CRC32() and MD5() ranges, slots of MOD()), or key lists if
			-- either side cannot
			IF chash.mysql_node_rows(from_ring, NULL, key_mysql) IS NOT NULL AND
			   chash.mysql_node_rows(to_ring, NULL, key_mysql) IS NOT NULL THEN
				chooses := format('rows chosen by MySQL''s %s on ring "%s" and %s on ring "%s"',
								  chash.mysql_node_rows(from_ring, NULL, key_mysql), from_ring,
								  chash.mysql_node_rows(to_ring, NULL, key_mysql), to_ring);
			END IF;
			key_hash := format('of ring "%s" or "%s"', from_ring, to_ring);
		END IF;
		IF chooses IS NOT NULL THEN
			NULL;				-- key by key, as MySQL computes both rings
		ELSIF key_hash = 'crc32' THEN
			hashed := chash.mysql_key_hash(key_hash, key_mysql);
			chooses := format('rows chosen by MySQL''s %s, which is key hash crc32', hashed);
		ELSIF key_hash = 'md5' THEN
			hashed := chash.mysql_key_hash(key_hash, key_mysql);
			chooses := format('rows chosen by MySQL''s MD5(%s), the first four bytes little-endian, which is key hash md5',
							  key_mysql);
		ELSE
			by_keys := true;
			chooses := format('rows chosen by explicit key lists: MySQL cannot compute key hash %s', key_hash);
			IF key_type NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype,
								'text'::regtype, 'character varying'::regtype, 'character'::regtype) THEN
				RAISE EXCEPTION USING
					ERRCODE = 'feature_not_supported',
					MESSAGE = format('the mysql dialect cannot list keys of type %s', key_type),
					DETAIL = format('Key hash %s is not one MySQL computes, so the plan lists the keys.', key_hash),
					HINT = 'Key lists take integer, numeric and text keys; crc32 and md5 rings need no lists.';
			END IF;
		END IF;
		SELECT string_agg(format('`%s`', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum),
			   string_agg(format('QUOTE(`%s`)', replace(a.attname, '`', '``')), ', ' ORDER BY a.attnum)
		INTO columns, checksum
		FROM pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		-- QUOTE() tells NULL from 'NULL' and keeps NULLs in place
		checksum := format('COALESCE(SUM(CRC32(CONCAT_WS(''|'', %s))), 0)', checksum);
	END IF;

	IF kind = 'ranges' THEN
		RETURN NEXT chash.plan_comment(format(
			'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: %s moving ranges in %s moves, %s%% of the hash space; %s',
			relation, quote_ident(key_column), from_ring, to_ring, dialect, nranges, npairs,
			round((fraction * 100)::numeric, 2), chooses));
	ELSE
		RETURN NEXT chash.plan_comment(format(
			'chash migration of %s (key %s) from ring "%s" to ring "%s", %s dialect: key by key (the rings do not compare by ranges), %s pairs of nodes; %s',
			relation, quote_ident(key_column), from_ring, to_ring, dialect, npairs, chooses));
	END IF;
	IF dialect = 'postgresql' AND kind = 'keys' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF md5(chash.routing_fingerprint(%1$L) || chash.routing_fingerprint(%2$L)) IS DISTINCT FROM %3$L THEN
		RAISE EXCEPTION 'chash migration: ring %% or ring %% has changed since this plan was made', %1$L, %2$L;
	END IF;
END
$g$, from_ring, to_ring, fingerprint)));
	ELSIF dialect = 'postgresql' THEN
		-- the rings must be as they were when the plan was made
		RETURN NEXT format('DO %s;', chash.dollar_quote(format($g$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF (SELECT md5(coalesce(string_agg(concat_ws(' ', r.lo, r.hi, r.from_node, r.to_node), ',' ORDER BY r.lo), ''))
		FROM %1$s.chash_moved_ranges(%2$L, %3$L) r) IS DISTINCT FROM %4$L THEN
		RAISE EXCEPTION 'chash migration: ring %% or ring %% has changed since this plan was made', %2$L, %3$L;
	END IF;
END
$g$, ext, from_ring, to_ring, fingerprint)));
	ELSE
		-- keys are hashed as UTF-8: key columns must be utf8mb4 (or ASCII)
		RETURN NEXT 'SET NAMES utf8mb4;';
	END IF;

	FOR pair IN EXECUTE CASE WHEN kind = 'ranges' THEN $q$
		SELECT r.from_node, r.to_node, count(*) AS ranges, sum(r.fraction) AS fraction
		FROM @extschema@.chash_moved_ranges($1, $2) r
		GROUP BY r.from_node, r.to_node
		ORDER BY r.from_node, r.to_node$q$
	ELSE $q$
		SELECT f.node AS from_node, t.node AS to_node, NULL::bigint AS ranges,
			   NULL::double precision AS fraction
		FROM chash.node_config f, chash.node_config t
		WHERE f.ring = $1 AND t.ring = $2 AND f.state = 'active' AND t.state = 'active'
		  AND f.node <> t.node
		ORDER BY f.node, t.node$q$
	END
	USING from_ring, to_ring
	LOOP
		src := chash.migration_target(from_ring, pair.from_node, relname, dialect);
		dst := chash.migration_target(to_ring, pair.to_node, relname, dialect);
		IF src = dst OR (dialect = 'postgresql' AND to_regclass(src) = to_regclass(dst)) THEN
			-- copying a table into itself and deleting would lose the rows
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" to node "%s": both in %s, nothing to move',
				pair.from_node, pair.to_node, src));
			CONTINUE;
		END IF;
		IF kind = 'ranges' THEN
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" (%s) to node "%s" (%s): %s ranges, %s%% of the hash space',
				pair.from_node, src, pair.to_node, dst, pair.ranges,
				round((pair.fraction * 100)::numeric, 2)));
		ELSE
			RETURN NEXT chash.plan_comment(format(
				'from node "%s" (%s) to node "%s" (%s): the keys one ring places on the first and the other on the second',
				pair.from_node, src, pair.to_node, dst));
		END IF;

		FOR batch IN EXECUTE CASE WHEN kind = 'keys' AND NOT by_keys THEN
			'SELECT NULL::bigint[] AS los, NULL::bigint[] AS his'
		WHEN NOT by_keys THEN $q$
			SELECT array_agg(b.lo ORDER BY b.lo) AS los, array_agg(b.hi ORDER BY b.lo) AS his
			FROM (SELECT r.lo, r.hi, (row_number() OVER (ORDER BY r.lo) - 1) / 64 AS n
				  FROM @extschema@.chash_moved_ranges($1, $2) r
				  WHERE r.from_node = $3 AND r.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$
		ELSE format($q$
			SELECT array_agg(b.key ORDER BY b.key) AS keys
			FROM (SELECT m.key::text AS key, (row_number() OVER (ORDER BY m.key) - 1) / 1000 AS n
				  FROM @extschema@.chash_moved_keys($1, $2, %s::regclass, %L)
					   AS m(key %s, from_node text, to_node text)
				  WHERE m.from_node = $3 AND m.to_node = $4) b
			GROUP BY b.n ORDER BY b.n$q$, relation::oid, key_column, key_type)
		END
		USING from_ring, to_ring, pair.from_node, pair.to_node
		LOOP
			IF dialect = 'postgresql' THEN
				IF by_keys THEN
					pred := format('t.%I %s ANY (%L::%s[])', key_column, key_eq, batch.keys, key_type);
				ELSE
					pred := format('%s OPERATOR(pg_catalog.<@) ANY (%L::pg_catalog.int8range[])', hashed,
								   (SELECT array_agg(CASE WHEN hi = 9223372036854775807 THEN format('[%s,)', lo)
														  ELSE format('[%s,%s]', lo, hi) END ORDER BY lo)
									FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				END IF;
				/*
				 * Copy, commit; then check and delete, commit.  Foreign
				 * servers commit one after the other, so each transaction
				 * writes to one of them only: a failure leaves rows on both
				 * sides at worst, never on neither, and the plan run again
				 * copies nothing twice (keys already there are skipped).
				 * The second transaction is REPEATABLE READ, so that it
				 * deletes no row it did not check.
				 */
				RETURN NEXT 'BEGIN;';
				RETURN NEXT pin;
				RETURN NEXT format('INSERT INTO %1$s (%3$s)%4$s SELECT %3$s FROM %2$s t WHERE %5$s'
								   ' AND NOT EXISTS (SELECT 1 FROM %1$s d WHERE d.%6$I %7$s t.%6$I);',
								   dst, src, columns, overriding, pred, key_column, key_eq);
				RETURN NEXT 'COMMIT;';
				RETURN NEXT 'BEGIN ISOLATION LEVEL REPEATABLE READ;';
				RETURN NEXT pin;
				RETURN NEXT format('DO %s;', chash.dollar_quote(format($v$
DECLARE
	moved bigint;
	copied bigint;
	moved_sum numeric;
	copied_sum numeric;
BEGIN
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO moved, moved_sum FROM %1$s t WHERE %3$s;
	SELECT count(*), coalesce(sum(hashtextextended(ROW(%4$s)::text, 0::bigint)), 0)
	INTO copied, copied_sum FROM %2$s t WHERE %3$s;
	-- nothing left to move (a plan run again) is no error
	IF moved > 0 AND (moved <> copied OR moved_sum <> copied_sum) THEN
		RAISE EXCEPTION 'chash migration: %% rows (checksum %%) in %%, but %% rows (checksum %%) in %%',
			moved, moved_sum, %5$L, copied, copied_sum, %6$L;
	END IF;
	RAISE NOTICE 'chash migration: %% rows from %% in %%, checked', moved, %5$L, %6$L;
END
$v$, src, dst, pred, row_expr, src, dst)));
				RETURN NEXT format('DELETE FROM %s t WHERE %s;', src, pred);
				RETURN NEXT 'COMMIT;';
			ELSE
				IF by_keys THEN
					-- numbers as they are; text as the hex of its UTF-8 bytes,
					-- compared as bytes: exact whatever the SQL mode or collation
					IF key_type IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, 'numeric'::regtype) THEN
						-- MySQL has no numeric NaN nor infinity: as bare words they
						-- would be column names
						IF key_type = 'numeric'::regtype AND EXISTS (
								SELECT FROM unnest(batch.keys) AS k
								WHERE k IN ('NaN', 'Infinity', '-Infinity')) THEN
							RAISE EXCEPTION USING
								ERRCODE = 'invalid_parameter_value',
								MESSAGE = format('the mysql dialect cannot write key %s of column %s',
												 (SELECT k FROM unnest(batch.keys) AS k
												  WHERE k IN ('NaN', 'Infinity', '-Infinity') LIMIT 1),
												 quote_ident(key_column)),
								DETAIL = 'MySQL has no numeric NaN nor infinity, so such a key can be neither listed nor stored.',
								HINT = 'Move or delete the rows with such keys first.';
						END IF;
						pred := format('%s IN (%s)', key_mysql, array_to_string(batch.keys, ', '));
					ELSE
						pred := format('CAST(%s AS BINARY) IN (%s)', key_mysql,
									   (SELECT string_agg(format('X''%s''', encode(convert_to(k, 'UTF8'), 'hex')), ', ')
										FROM unnest(batch.keys) AS k));
					END IF;
				ELSIF kind = 'keys' THEN
					pred := chash.mysql_node_rows(from_ring, pair.from_node, key_mysql) || ' AND ' ||
							chash.mysql_node_rows(to_ring, pair.to_node, key_mysql);
				ELSE
					-- one hash a row: INTERVAL() finds it among the ascending
					-- bounds lo, hi + 1 of the ranges; an odd place is inside one
					pred := format('INTERVAL(%s, %s) %% 2 = 1', hashed,
								   (SELECT string_agg(lo || ', ' || (hi + 1), ', ' ORDER BY lo)
									FROM unnest(batch.los, batch.his) AS u(lo, hi)));
				END IF;
				RETURN NEXT 'START TRANSACTION;';
				RETURN NEXT format('INSERT INTO %1$s (%3$s) SELECT %3$s FROM %2$s WHERE (%4$s);',
								   dst, src, columns, pred);
				RETURN NEXT chash.plan_comment('check: fails with "Subquery returns more than 1 row" if the copies differ; do not run plans with --force');
				RETURN NEXT format('SELECT (SELECT 1 UNION ALL SELECT 1 FROM DUAL WHERE NOT ('
								   'NOT EXISTS (SELECT 1 FROM %1$s WHERE (%3$s)) OR '
								   '(SELECT COUNT(*), %4$s FROM %1$s WHERE (%3$s)) = (SELECT COUNT(*), %4$s FROM %2$s WHERE (%3$s))'
								   ')) AS chash_check;',
								   src, dst, pred, checksum);
				RETURN NEXT format('DELETE FROM %s WHERE (%s);', src, pred);
				RETURN NEXT 'COMMIT;';
			END IF;
		END LOOP;
	END LOOP;
END
$$;


-- The slots of slots and maglev rings, as ranges of one owner each
CREATE FUNCTION chash_slot_ranges(ring text)
	RETURNS TABLE(node text, slots int4range)
	AS 'MODULE_PATHNAME', 'chash_slot_ranges'
	LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION chash_slot_ranges(text) IS
	'the slots of a slots or maglev ring as ranges of one owner each, in slot order (unowned slots in none)';

/*
 * The views show what 1.3 added: table_size and lookup of rings, tokens
 * and slots of nodes.  Dropped and made again, as their columns change;
 * then read as the caller as in 1.2 (security_invoker from 15 on, a
 * function of the same query on 14).
 */
DROP VIEW chash.rings;
DROP VIEW chash.nodes;
DROP FUNCTION IF EXISTS chash.rings_as_caller();
DROP FUNCTION IF EXISTS chash.nodes_as_caller();
CREATE VIEW chash.nodes AS
	SELECT n.ring, n.node, n.weight, n.vnodes, n.zone, n.state, p.points,
		   n.ordinal, n.target, n.tokens, n.slots
	FROM chash.node_config n
	LEFT JOIN (SELECT r.ring, q.node, q.points
			   FROM chash.ring_config r
			   CROSS JOIN LATERAL chash.ring_node_points(r.ring) q) p
	  ON p.ring = n.ring AND p.node = n.node;
COMMENT ON VIEW chash.nodes IS
	'one row a node: its ring, weight, own vnodes, zone, state, number of points (NULL if its ring cannot be built or places no points), place in the server list, target, tokens and slot ranges';

CREATE VIEW chash.rings AS
	SELECT r.ring, r.algorithm, r.hash, coalesce(r.key_hash, r.hash) AS key_hash,
		   r.vnodes, r.vnode_name, r.vnode_first,
		   pg_catalog.count(n.node)::integer AS nodes,
		   (pg_catalog.count(n.node) FILTER (WHERE n.state = 'active'::text))::integer AS active_nodes,
		   CASE WHEN pg_catalog.count(n.node) OPERATOR(pg_catalog.=) pg_catalog.count(n.points)
				THEN coalesce(pg_catalog.sum(n.points), 0)::bigint END AS points,
		   r.ketama_variant, r.ties, r.version,
		   chash.ring_problem(r.ring) AS problem,
		   r.table_size, r.lookup
	FROM chash.ring_config r
	LEFT JOIN chash.nodes n ON n.ring = r.ring
	GROUP BY r.ring;
COMMENT ON VIEW chash.rings IS
	'one row a ring: its settings, number of nodes (all and active) and of points, its version, why it cannot be built if it cannot, table size and lookup rule';
GRANT SELECT ON chash.rings, chash.nodes TO PUBLIC;

DO $$
DECLARE
	path text := pg_catalog.current_setting('search_path');
	v text;
	columns text;
	body text;
BEGIN
	IF pg_catalog.current_setting('server_version_num')::integer >= 150000 THEN
		ALTER VIEW chash.nodes SET (security_invoker = true);
		ALTER VIEW chash.rings SET (security_invoker = true);
		RETURN;
	END IF;
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	FOREACH v IN ARRAY ARRAY['nodes', 'rings'] LOOP
		SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
								   pg_catalog.format_type(a.atttypid, a.atttypmod)),
								   ', ' ORDER BY a.attnum)
		INTO columns
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = pg_catalog.to_regclass('chash.' || v) AND a.attnum > 0;
		body := pg_catalog.pg_get_viewdef(pg_catalog.to_regclass('chash.' || v));
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION chash.%I() RETURNS TABLE(%s) LANGUAGE sql STABLE '
			'SET search_path = pg_catalog, pg_temp AS %L',
			v || '_as_caller', columns, body);
		EXECUTE pg_catalog.format(
			'COMMENT ON FUNCTION chash.%I() IS %L', v || '_as_caller',
			'the rows of the view chash.' || v || ' as the caller may read them (PostgreSQL 14)');
		EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW chash.%I AS SELECT * FROM chash.%I()',
								  v, v || '_as_caller');
	END LOOP;
	PERFORM pg_catalog.set_config('search_path', path, true);
END
$$;
