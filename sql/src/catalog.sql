/*
 * The catalog: rings and their nodes in ordinary tables of schema chash,
 * and the online moves under way.  The SQL functions live in the
 * extension's schema; everything refers to the catalog by qualified names,
 * so no search_path is needed.
 *
 * Only the install script runs this file: tables cannot be replaced, so an
 * upgrade changes them in its hand-written part (sql/updates/), and the
 * columns here are in the order that the upgrades leave them in.
 */
CREATE TABLE chash.ring_config (
	ring		text PRIMARY KEY,
	algorithm	text NOT NULL DEFAULT 'ring',
	hash		text NOT NULL DEFAULT 'xxh3_64',
	key_hash	text,
	vnodes		integer NOT NULL DEFAULT 160,
	vnode_name	text NOT NULL DEFAULT '{node}#{i}',
	vnode_first integer NOT NULL DEFAULT 0,
	-- for ketama rings, the client whose arithmetic is reproduced
	ketama_variant text,
	-- which node owns a position shared by points of several nodes
	ties		text,
	-- the id of the transaction that last changed the ring or its nodes,
	-- which never comes back in a cluster (see src/triggers.c); the trigger
	-- sets it, 0 is a row it did not set
	version		bigint NOT NULL DEFAULT 0,
	-- the size of a ring's table, NULL for its algorithm's default:
	-- maglev's lookup table (65537; the library checks that it is prime
	-- and large enough for the nodes) or the number of slots of slots
	-- (16384)
	table_size	integer,
	-- a ring's lookup rule: the point at or after a key (NULL, the
	-- default), the last at or before it, or the nearest
	lookup		text,
	-- the part of a key that is hashed: the bytes between the first
	-- hash_tag[0] and the first hash_tag[1] after it, if there are any,
	-- else the whole key (Redis Cluster's {...}, twemproxy's hash_tag)
	hash_tag	text,
	-- the profile a ring was created with, for the record: its settings
	-- are in the other columns
	profile		text,
	-- whether a change of the ring sends NOTIFY chash_ring_changed with
	-- the ring's name and new version (see sql/src/catalog_triggers.sql)
	notify		boolean NOT NULL DEFAULT false,
	-- the types of the key's columns, and their collations (qualified
	-- names, NULL where a type has none), for key hashes that hash keys as
	-- their SQL type (postgres_partition): a key of other types is refused;
	-- NULL takes keys of any type, hashed as their own type
	key_types	regtype[],
	key_collations text[],
	CONSTRAINT ring_config_ring_check
		CHECK (pg_catalog.octet_length(ring) BETWEEN 1 AND 63),
	CONSTRAINT ring_config_algorithm_check
		CHECK (chash.algorithm_is_known(algorithm)),
	CONSTRAINT ring_config_hash_check
		CHECK (chash.hash_bits(hash) IS NOT NULL),
	-- A key hash need not give positions as wide as the points' hash: the
	-- placements without points have none.  The library checks the pairs
	-- that must agree (rings of points) on every change.
	CONSTRAINT ring_config_key_hash_check
		CHECK (key_hash IS NULL OR chash.hash_bits(key_hash) IS NOT NULL),
	CONSTRAINT ring_config_vnodes_check
		CHECK (vnodes BETWEEN 1 AND 16777216),
	CONSTRAINT ring_config_vnode_name_check
		CHECK (pg_catalog.strpos(vnode_name, '{i}'::text) > 0 AND
			   pg_catalog.strpos(vnode_name, '{node}'::text) > 0),
	CONSTRAINT ring_config_ties_check
		CHECK (ties IN ('name'::text, 'first'::text, 'last'::text)),
	CONSTRAINT ring_config_table_size_check
		CHECK (table_size BETWEEN 2 AND 67108864),
	CONSTRAINT ring_config_lookup_check
		CHECK (lookup IN ('successor'::text, 'predecessor'::text, 'nearest'::text)),
	CONSTRAINT ring_config_hash_tag_check
		CHECK (pg_catalog.octet_length(hash_tag) = 2 AND
			   hash_tag OPERATOR(pg_catalog.~) '^[!-~][!-~]$'::text),
	CONSTRAINT ring_config_profile_check
		CHECK (chash.profile_is_known(profile)),
	CONSTRAINT ring_config_key_types_check
		CHECK (pg_catalog.array_ndims(key_types) = 1 AND
			   pg_catalog.cardinality(key_types) BETWEEN 1 AND 32 AND
			   pg_catalog.array_position(key_types, NULL) IS NULL AND
			   pg_catalog.array_ndims(key_collations) = 1 AND
			   pg_catalog.cardinality(key_collations) = pg_catalog.cardinality(key_types))
);
COMMENT ON TABLE chash.ring_config IS
	'chash rings: one row a ring, its algorithm, hash functions and virtual node settings';
COMMENT ON COLUMN chash.ring_config.ketama_variant IS
	'for ketama rings, the client whose arithmetic is reproduced: libmemcached, libketama, twemproxy, uhashring or node';
COMMENT ON COLUMN chash.ring_config.ties IS
	'which node owns a position shared by points of several nodes: name (first by name), first or last (by ordinal); NULL: the algorithm''s rule';
COMMENT ON COLUMN chash.ring_config.notify IS
	'whether each committed change of the ring sends NOTIFY chash_ring_changed with its name and new version (default false)';
COMMENT ON COLUMN chash.ring_config.key_types IS
	'for rings that hash keys as their SQL type (key hash postgres_partition): the types of the key''s columns, in order (a key of other types is refused); NULL: keys of any type';
COMMENT ON COLUMN chash.ring_config.key_collations IS
	'the collations of the key''s columns (qualified names; NULL for a type without one), as many as key_types';
COMMENT ON COLUMN chash.ring_config.version IS
	'the version of the ring''s configuration: the id of the transaction that last changed the ring or its nodes (kept by the catalog''s trigger; what is written here is replaced)';

CREATE TABLE chash.node_config (
	ring		text NOT NULL
		REFERENCES chash.ring_config (ring) ON UPDATE CASCADE ON DELETE CASCADE,
	node		text NOT NULL,
	weight		double precision NOT NULL DEFAULT 1,
	vnodes		integer,
	zone		text,
	state		text NOT NULL DEFAULT 'active',
	ordinal		bigint NOT NULL,		-- numbered by the sequence below
	target		text,
	-- a node's explicit points (algorithm tokens, or a node of a ring
	-- ring): positions as chash_position shows them; the library checks
	-- them against the ring's key hash
	tokens		bigint[],
	-- a node's slot ranges (algorithm slots), see chash.slot_ranges_valid
	slots		int4range[],
	-- how much load the node should take, relative to the others: read by
	-- planning only (chash_rebalance), never by placement
	capacity	double precision NOT NULL DEFAULT 1,
	-- where the system's server is, when the system names it apart from
	-- where it is (HAProxy's server address, twemproxy's host:port of a
	-- named server): read by chash_export only, never by placement; NULL
	-- means the node's name
	address		text,
	PRIMARY KEY (ring, node),
	CONSTRAINT node_config_node_check
		CHECK (node <> ''::text),
	CONSTRAINT node_config_weight_check
		CHECK (weight > 0::double precision AND weight < 'Infinity'::double precision),
	CONSTRAINT node_config_vnodes_check
		CHECK (vnodes BETWEEN 1 AND 16777216),
	CONSTRAINT node_config_state_check
		CHECK (state IN ('active'::text, 'down'::text)),
	CONSTRAINT node_config_tokens_check
		CHECK (CASE WHEN tokens IS NULL THEN true
					WHEN pg_catalog.array_ndims(tokens) = 1
					THEN pg_catalog.cardinality(tokens) BETWEEN 1 AND 16777216 AND
						 pg_catalog.array_position(tokens, NULL) IS NULL
					ELSE false END),
	CONSTRAINT node_config_slots_check
		CHECK (chash.slot_ranges_valid(slots)),
	CONSTRAINT node_config_capacity_check
		CHECK (capacity > 0::double precision AND capacity < 'Infinity'::double precision)
);
COMMENT ON TABLE chash.node_config IS
	'nodes of chash rings: weight, own vnodes (NULL: from the weight), zone and state';
COMMENT ON COLUMN chash.node_config.ordinal IS
	'the node''s place in its client''s server list (order of addition unless changed); breaks ties between nodes under ties rules first and last';
COMMENT ON COLUMN chash.node_config.target IS
	'where the node''s rows live, for chash_migration_sql: a schema or schema-qualified (foreign) table in PostgreSQL, database.table in MySQL';
COMMENT ON COLUMN chash.node_config.capacity IS
	'how much load the node should take relative to the other nodes (default 1), for chash_rebalance; placement does not read it';
COMMENT ON COLUMN chash.node_config.address IS
	'where the system''s server is, when the system names it apart from where it is (HAProxy, twemproxy): NULL for the node''s name; for chash_export, placement does not read it';

-- A node's place in its client's server list: the order of addition,
-- unless changed.  Made after the tables, as in the catalogs of earlier
-- versions, whose tables come first by OID.
CREATE SEQUENCE chash.node_ordinal_seq AS bigint;
ALTER TABLE chash.node_config
	ALTER COLUMN ordinal SET DEFAULT pg_catalog.nextval('chash.node_ordinal_seq');

-- Names and templates no longer than a btree entry or a build can take.
-- NOT VALID as in the upgrade that added them (1.2), which kept the rows
-- of earlier versions as they were; a fresh catalog is the same.
ALTER TABLE chash.node_config ADD CONSTRAINT node_config_node_length_check
	CHECK (pg_catalog.octet_length(node) OPERATOR(pg_catalog.<=) 1024) NOT VALID;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_vnode_name_length_check
	CHECK (pg_catalog.octet_length(vnode_name) OPERATOR(pg_catalog.<=) 256) NOT VALID;

-- pg_dump carries every ring
SELECT pg_catalog.pg_extension_config_dump('chash.ring_config', '');
SELECT pg_catalog.pg_extension_config_dump('chash.node_config', '');
SELECT pg_catalog.pg_extension_config_dump('chash.node_ordinal_seq', '');

/*
 * Online moves (chash_move_online): the moving rows of a ring change
 * stream from each source shard to its destinations by logical
 * replication while writes go on.  A trigger on each source records the
 * keys of the moving rows that change; the copies are compared with their
 * sources, then the keys changed since, until little is left.  At cutover
 * the same trigger refuses writes to the moving keys (40001, so clients
 * retry) for at most max_write_block, the last changed keys are compared,
 * and the ring switches.  Commands reach the shards through dblink, over
 * the postgres_fdw servers and user mappings the node targets name, each
 * bounded and cancelled with the move.  Every step looks at the shards
 * before it acts, so the same CALL resumes a move that stopped, and
 * chash_move_abort removes one that is not wanted.
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
	fenced_since timestamptz,			-- fences may be up since then
	write_block interval,				-- fences up until the switch's commit
	write_block_total interval,			-- every time fences were up, the last included
	-- the session running the move's CALL, while it runs
	runner_pid integer,
	runner_backend_start timestamptz,
	runner_call_start timestamptz
);
-- one move of a ring, and of a relation, until it is done or aborted
CREATE UNIQUE INDEX online_moves_ring_key ON chash.online_moves (from_ring) WHERE step <> 'done';
CREATE UNIQUE INDEX online_moves_relation_key ON chash.online_moves (relation) WHERE step <> 'done';
COMMENT ON TABLE chash.online_moves IS
	'the online moves of chash_move_online: rings, relation, step reached, the write blocks measured at cutover and the session running the move';

CREATE TABLE chash.online_move_pairs (
	move_id bigint NOT NULL REFERENCES chash.online_moves ON DELETE CASCADE,
	pair integer NOT NULL,
	from_node text NOT NULL,
	to_node text NOT NULL,
	ranges int8multirange NOT NULL,		-- the positions that move from from_node to to_node
	rows_moved bigint,
	PRIMARY KEY (move_id, pair)
);
COMMENT ON TABLE chash.online_move_pairs IS
	'for each online move, the pairs of nodes that exchange keys and the positions each pair moves';

CREATE TABLE chash.online_move_nodes (
	move_id bigint NOT NULL REFERENCES chash.online_moves ON DELETE CASCADE,
	node text NOT NULL,
	ordinal integer NOT NULL,			-- names the node's objects on the shards
	server name NOT NULL,				-- its postgres_fdw server on the coordinator
	remote_schema name NOT NULL,		-- its table on that server
	remote_name name NOT NULL,
	conninfo text NOT NULL,				-- how its destinations' subscriptions reach it
	PRIMARY KEY (move_id, node)
);
COMMENT ON TABLE chash.online_move_nodes IS
	'for each online move, the shard of each node taking part, as the rings named it when the move began';
