/*
 * 1.3 to 1.4, the part CREATE OR REPLACE cannot do.  The update script
 * runs sql/src/checks.sql, then this, then every other source of the
 * current version (see sql/build.sh): the functions and views replaced,
 * the new ones created, their privileges set.
 *
 * 1.4: routing as real systems do (profiles, hash tags, imports from Redis
 * Cluster and Cassandra) and online moves.
 */

-- The part of a key that is hashed (Redis Cluster's {...}, twemproxy's
-- hash_tag), and the profile a ring was created with
ALTER TABLE chash.ring_config ADD COLUMN hash_tag text;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_hash_tag_check
	CHECK (pg_catalog.octet_length(hash_tag) = 2 AND
		   hash_tag OPERATOR(pg_catalog.~) '^[!-~][!-~]$'::text);
ALTER TABLE chash.ring_config ADD COLUMN profile text;
ALTER TABLE chash.ring_config ADD CONSTRAINT ring_config_profile_check
	CHECK (chash.profile_is_known(profile));

-- Whether a ring's changes send NOTIFY chash_ring_changed: false for the
-- rings already there, added as capacity is below (no missing value left
-- in the catalog, and no ring takes a new version for it)
ALTER TABLE chash.ring_config ADD COLUMN notify boolean;
ALTER TABLE chash.ring_config DISABLE TRIGGER ring_config_lock,
	DISABLE TRIGGER ring_config_version,
	DISABLE TRIGGER ring_config_check_update;
UPDATE chash.ring_config SET notify = false;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_lock,
	ENABLE ALWAYS TRIGGER ring_config_version,
	ENABLE ALWAYS TRIGGER ring_config_check_update;
ALTER TABLE chash.ring_config
	ALTER COLUMN notify SET DEFAULT false,
	ALTER COLUMN notify SET NOT NULL;
COMMENT ON COLUMN chash.ring_config.notify IS
	'whether each committed change of the ring sends NOTIFY chash_ring_changed with its name and new version (default false)';

-- The types and collations of a key's columns, for rings that hash keys as
-- their SQL type (PostgreSQL's hash partitioning): NULL for the rings there
ALTER TABLE chash.ring_config ADD COLUMN key_types regtype[],
	ADD COLUMN key_collations text[],
	ADD CONSTRAINT ring_config_key_types_check
		CHECK (pg_catalog.array_ndims(key_types) = 1 AND
			   pg_catalog.cardinality(key_types) BETWEEN 1 AND 32 AND
			   pg_catalog.array_position(key_types, NULL) IS NULL AND
			   pg_catalog.array_ndims(key_collations) = 1 AND
			   pg_catalog.cardinality(key_collations) = pg_catalog.cardinality(key_types));
COMMENT ON COLUMN chash.ring_config.key_types IS
	'for rings that hash keys as their SQL type (key hash postgres_partition): the types of the key''s columns, in order (a key of other types is refused); NULL: keys of any type';
COMMENT ON COLUMN chash.ring_config.key_collations IS
	'the collations of the key''s columns (qualified names; NULL for a type without one), as many as key_types';

-- A node's capacity, the share of load planning gives it (chash_rebalance).
-- Added without a default and filled, then given its default, so that the
-- column is as a fresh install's (a default given with ADD COLUMN stays in
-- the catalog as the missing value of the rows before it).  The catalog's
-- triggers do not run for the fill: a capacity changes no placement, and no
-- ring takes a new version for it.
ALTER TABLE chash.node_config ADD COLUMN capacity double precision;
ALTER TABLE chash.node_config DISABLE TRIGGER node_config_lock,
	DISABLE TRIGGER node_config_check_update;
UPDATE chash.node_config SET capacity = 1;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_lock,
	ENABLE ALWAYS TRIGGER node_config_check_update;
ALTER TABLE chash.node_config
	ALTER COLUMN capacity SET DEFAULT 1,
	ALTER COLUMN capacity SET NOT NULL,
	ADD CONSTRAINT node_config_capacity_check
		CHECK (capacity > 0::double precision AND capacity < 'Infinity'::double precision);
COMMENT ON COLUMN chash.node_config.capacity IS
	'how much load the node should take relative to the other nodes (default 1), for chash_rebalance; placement does not read it';

-- A node's address, where the system's server is when the system names it
-- apart from where it is: NULL (the node's name) for the nodes already there
ALTER TABLE chash.node_config ADD COLUMN address text;
COMMENT ON COLUMN chash.node_config.address IS
	'where the system''s server is, when the system names it apart from where it is (HAProxy, twemproxy): NULL for the node''s name; for chash_export, placement does not read it';

-- Changed signatures and result columns: settings a profile does not
-- decide are NULL by default, so that a profile can tell them from those
-- given; the cache's figures gain memory and evictions; chash_node_add and
-- chash_node_set take a capacity and an address; chash_key_distribution
-- gains bytes; chash_ring_create takes notify
DROP FUNCTION chash_ring_create(text, text, text, integer, text, integer, text, text, text, integer, text);
DROP FUNCTION chash.cache_stats();
DROP FUNCTION chash_node_add(text, text, double precision, integer, text, text, bigint[], int4range[]);
DROP FUNCTION chash_node_set(text, text, double precision, integer, text, text, text, bigint[], int4range[]);
DROP FUNCTION chash_key_distribution(text, regclass, name);

-- The view of rings shows hash_tag, profile and notify, the view of nodes their
-- capacity and address: dropped, as their columns change, with their functions of
-- PostgreSQL 14
DROP VIEW chash.rings;
DROP FUNCTION IF EXISTS chash.rings_as_caller();
DROP VIEW chash.nodes;
DROP FUNCTION IF EXISTS chash.nodes_as_caller();

-- The tables of online moves (see sql/src/catalog.sql)
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
