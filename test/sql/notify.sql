--
-- Rings that notify: a ring with notify on sends NOTIFY chash_ring_changed
-- with {"ring": name, "version": version} when a change commits.
--
-- This session LISTENs and makes the changes; psql prints what it hears
-- after each command.  Between "\o | awk ..." and "\o" the output passes
-- through awk, which names each version number v1, v2, ... in the order it
-- first shows up, in payloads and in the versions chash.rings shows alike
-- (so a payload's version equals the ring's version exactly when both show
-- the same name), and hides the sender's PID.  Output there is unaligned,
-- so that no column is as wide as a version number.
--
-- a ring's version as chash.rings shows it, in a payload's words (the
-- name JSON-encoded as the payload's is)
CREATE FUNCTION notify_version(r text) RETURNS text LANGUAGE sql AS
	$$SELECT format('chash.rings: {"ring": %s, "version": %s}', to_jsonb(ring), version)
	  FROM chash.rings WHERE ring = r$$;
-- a statement's error, in a subtransaction rolled back, as a row
CREATE FUNCTION notify_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'done';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
LISTEN chash_ring_changed;
\pset format unaligned
\pset tuples_only on
\set ECHO none
\o | awk '{ while (match($0, /"version": [0-9]+/)) { v = substr($0, RSTART + 11, RLENGTH - 11); if (!(v in n)) n[v] = "v" (++k); $0 = substr($0, 1, RSTART - 1) "\"version\": " n[v] substr($0, RSTART + RLENGTH) } sub(/PID [0-9]+/, "PID (pid)"); print }'
\qecho -- a ring created with notify: heard at commit, with the version chash.rings shows
SELECT chash_ring_create('watched', notify => true);
SELECT notify_version('watched');
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';
\qecho -- a ring without notify: nothing heard, for its creation or its changes
SELECT chash_ring_create('quiet');
SELECT chash_node_add('quiet', 'q1');
SELECT chash_ring_set('quiet', vnodes => 10);
SELECT ring, notify FROM chash.rings WHERE ring = 'quiet';
\qecho -- each committed change: a node added, set, removed; a setting of the ring
SELECT chash_node_add('watched', 'a');
SELECT notify_version('watched');
SELECT chash_node_add('watched', 'b', weight => 2);
SELECT notify_version('watched');
SELECT chash_node_set('watched', 'b', state => 'down');
SELECT notify_version('watched');
SELECT chash_ring_set('watched', vnodes => 40);
SELECT notify_version('watched');
SELECT chash_node_remove('watched', 'b');
SELECT notify_version('watched');
\qecho -- plain DML notifies as the functions do
UPDATE chash.node_config SET weight = 3 WHERE ring = 'watched' AND node = 'a';
SELECT notify_version('watched');
\qecho -- rolled back: nothing heard, and the version is the one heard last
BEGIN;
SELECT chash_node_add('watched', 'rolled_back');
SELECT chash_ring_set('watched', vnodes => 80);
ROLLBACK;
SELECT notify_version('watched');
\qecho -- a change that fails is rolled back: nothing heard
SELECT notify_try($$SELECT chash_node_add('watched', 'c', weight => 0)$$);
SELECT notify_try($$UPDATE chash.ring_config SET vnodes = 0 WHERE ring = 'watched'$$);
\qecho -- a savepoint rolled back inside a committed transaction: only what is kept is heard
BEGIN;
SAVEPOINT s;
SELECT chash_node_add('watched', 'undone');
ROLLBACK TO SAVEPOINT s;
SELECT chash_node_add('quiet', 'q2');
COMMIT;
SELECT count(*) AS undone FROM chash.nodes WHERE node = 'undone';
\qecho -- one transaction changing the ring several times: heard once, at commit, with the version it leaves
BEGIN;
SELECT chash_node_add('watched', 'c');
SELECT chash_node_add('watched', 'd');
SELECT chash_ring_set('watched', vnodes => 20);
SELECT chash_node_set('watched', 'c', weight => 2);
SELECT notify_version('watched');
COMMIT;
\qecho -- one statement changing several nodes: heard once
UPDATE chash.node_config SET weight = weight + 1 WHERE ring = 'watched';
SELECT notify_version('watched');
\qecho -- one transaction, two rings that notify: both heard, in the order changed
SELECT chash_ring_create('second', notify => true);
BEGIN;
SELECT chash_node_add('second', 's1');
SELECT chash_node_add('watched', 'e');
COMMIT;
SELECT notify_version('second');
SELECT notify_version('watched');
\qecho -- two transactions: two versions, heard in order
SELECT chash_node_add('watched', 'f');
SELECT chash_node_remove('watched', 'f');
SELECT notify_version('watched');
\qecho -- the payload is JSON: ring names of any text are encoded
SELECT chash_ring_create(E'odd "name"\\ with\nnewline', notify => true);
SELECT notify_version(E'odd "name"\\ with\nnewline');
SELECT chash_ring_drop(E'odd "name"\\ with\nnewline');
\qecho -- notify off: the change that turns it off is heard, then nothing
SELECT chash_ring_set('watched', notify => false);
SELECT notify_version('watched');
SELECT chash_node_add('watched', 'g');
SELECT chash_ring_set('watched', vnodes => 30);
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';
\qecho -- notify on again: heard from that change on
SELECT chash_ring_set('watched', notify => true);
SELECT notify_version('watched');
\qecho -- NULL leaves notify as it is
SELECT chash_ring_set('watched', notify => NULL);
SELECT notify_version('watched');
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';
\qecho -- NULL at creation is false
SELECT chash_ring_create('null_notify', notify => NULL);
SELECT ring, notify FROM chash.rings WHERE ring = 'null_notify';
\qecho -- any profile takes notify
SELECT chash_ring_create('redis_watched', profile => 'redis_cluster', notify => true);
SELECT notify_version('redis_watched');
SELECT chash_ring_set('redis_watched', notify => false);
SELECT notify_version('redis_watched');
\qecho -- a copy carries notify: its creation is heard under its own name
SELECT chash_ring_copy('watched', 'watched_next');
SELECT notify_version('watched_next');
SELECT chash_ring_copy('quiet', 'quiet_next');
SELECT ring, notify FROM chash.rings WHERE ring IN ('watched_next', 'quiet_next') ORDER BY ring;
\qecho -- a switch: the ring takes notify from its planned copy, which is heard dropped
SELECT chash_node_add('watched_next', 'h');
SELECT chash_ring_switch('watched', 'watched_next');
SELECT notify_version('watched');
\qecho -- a switch to a copy without notify turns it off, which is heard
SELECT chash_ring_switch('watched', 'quiet_next', drop_planned => false);
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';
SELECT notify_version('watched');
\qecho -- and a switch from a quiet ring to a copy with notify turns it on
SELECT chash_ring_set('watched', notify => true);
SELECT chash_ring_copy('watched', 'watched_loud');
SELECT chash_ring_switch('quiet', 'watched_loud');
SELECT notify_version('quiet');
SELECT chash_ring_set('quiet', notify => false);
\qecho -- a ring renamed by DML: the old name is heard dropped, the new one with its version
UPDATE chash.ring_config SET ring = 'renamed' WHERE ring = 'second';
SELECT notify_version('renamed');
\qecho -- dropped: version null and "dropped": true
SELECT chash_ring_drop('renamed');
\qecho -- dropped by DML, several rings in one transaction: each heard once, in
\qecho -- the order dropped (one DELETE of several would drop them in the
\qecho -- physical order of the table, which varies)
SELECT chash_ring_create('drop_a', notify => true);
SELECT chash_ring_create('drop_b', notify => true);
BEGIN;
DELETE FROM chash.ring_config WHERE ring = 'drop_a';
DELETE FROM chash.ring_config WHERE ring IN ('drop_b', 'quiet');
COMMIT;
\qecho -- end
\o
\set ECHO all
\pset tuples_only off
\pset format aligned

-- Only who may change a ring may change its notify; a role with SELECT
-- alone is refused by chash_ring_set and by DML alike, and nothing changes
CREATE ROLE regress_notify_reader;
GRANT SELECT ON chash.ring_config, chash.node_config TO regress_notify_reader;
SET ROLE regress_notify_reader;
SELECT chash_ring_set('watched', notify => false);
UPDATE chash.ring_config SET notify = false WHERE ring = 'watched';
SELECT chash_ring_create('reader_ring', notify => true);
SELECT chash_ring_copy('watched', 'reader_copy');
SELECT chash_ring_drop('watched');
-- but it may LISTEN: channels are not privileged (see README)
LISTEN chash_ring_changed;
UNLISTEN chash_ring_changed;
RESET ROLE;
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';
-- nor may it run the trigger's function, nor attach it to a table of its own
SELECT has_function_privilege('regress_notify_reader', 'chash.notify_ring_changed()', 'EXECUTE') AS may_execute;

-- A role granted UPDATE on the catalog may turn it off and on
CREATE ROLE regress_notify_writer;
GRANT SELECT, UPDATE ON chash.ring_config TO regress_notify_writer;
SET ROLE regress_notify_writer;
SELECT chash_ring_set('watched', notify => false);
SELECT chash_ring_set('watched', notify => true);
RESET ROLE;
SELECT ring, notify FROM chash.rings WHERE ring = 'watched';

-- The column: NOT NULL with default false
INSERT INTO chash.ring_config (ring) VALUES ('by_dml');
SELECT ring, notify FROM chash.ring_config WHERE ring = 'by_dml';
\set VERBOSITY terse
UPDATE chash.ring_config SET notify = NULL WHERE ring = 'by_dml';
\set VERBOSITY default

UNLISTEN *;
SELECT chash_ring_drop(r) FROM unnest(ARRAY['watched', 'by_dml', 'null_notify', 'redis_watched', 'quiet_next']) r;
SELECT count(*) AS rings_left FROM chash.ring_config
WHERE ring IN ('watched', 'quiet', 'second', 'renamed', 'watched_next', 'watched_loud', 'drop_a', 'drop_b');
REVOKE ALL ON chash.ring_config, chash.node_config FROM regress_notify_reader, regress_notify_writer;
DROP ROLE regress_notify_reader;
DROP ROLE regress_notify_writer;
DROP FUNCTION notify_version(text);
DROP FUNCTION notify_try(text);
