/*
 * Every change to the catalog, through the functions or by plain DML,
 * passes the trigger: the ring-change lock before each statement, a new
 * version before each ring_config row, the checks and new versions of the
 * changed rings after each statement.  ALWAYS: also with
 * session_replication_role = replica.  A trigger function needs no EXECUTE
 * privilege to fire; PUBLIC may not execute it, so that no role can attach
 * it to a table of its own.
 */
CREATE OR REPLACE FUNCTION chash.catalog_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'chash_catalog_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION chash.catalog_trigger() IS
	'trigger of chash''s catalog tables: the ring-change lock, ring versions, and the checks of every change';

CREATE OR REPLACE TRIGGER ring_config_lock
	BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER ring_config_version
	BEFORE INSERT OR UPDATE ON chash.ring_config
	FOR EACH ROW EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER ring_config_check_insert
	AFTER INSERT ON chash.ring_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER ring_config_check_update
	AFTER UPDATE ON chash.ring_config
	REFERENCING OLD TABLE AS chash_old_rows NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER ring_config_changed
	AFTER DELETE OR TRUNCATE ON chash.ring_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER node_config_lock
	BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER node_config_check_insert
	AFTER INSERT ON chash.node_config REFERENCING NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER node_config_check_update
	AFTER UPDATE ON chash.node_config
	REFERENCING OLD TABLE AS chash_old_rows NEW TABLE AS chash_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER node_config_check_delete
	AFTER DELETE ON chash.node_config REFERENCING OLD TABLE AS chash_old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
CREATE OR REPLACE TRIGGER node_config_changed
	AFTER TRUNCATE ON chash.node_config
	FOR EACH STATEMENT EXECUTE FUNCTION chash.catalog_trigger();
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_lock;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_version;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_check_insert;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_check_update;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_changed;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_lock;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_insert;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_update;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_delete;
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_changed;

-- A node's tokens, slots, zone and target, checked as they are given (by
-- chash_node_add, chash_node_set, an import or plain DML): an error with
-- its SQLSTATE naming the argument and the node, where the table's
-- constraints would only name themselves.  Values stored before 1.4 and
-- left as they are stay.
CREATE OR REPLACE FUNCTION chash.check_node_values() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	what text;
	bad record;
BEGIN
	IF NEW.tokens IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.tokens IS DISTINCT FROM OLD.tokens) THEN
		what := CASE WHEN array_ndims(NEW.tokens) IS NULL THEN 'are an empty array'
					 WHEN array_ndims(NEW.tokens) > 1 THEN format('are an array of %s dimensions', array_ndims(NEW.tokens))
					 WHEN cardinality(NEW.tokens) > 16777216 THEN format('are %s tokens', cardinality(NEW.tokens))
					 WHEN array_position(NEW.tokens, NULL) IS NOT NULL
					 THEN format('hold NULL at position %s', array_position(NEW.tokens, NULL)) END;
		IF what IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = 'tokens must be a one-dimensional array of 1 to 16777216 tokens, none of them NULL',
				DETAIL = format('The tokens given to node "%s" of ring "%s" %s.',
								chash.message_name(NEW.node), chash.message_name(NEW.ring), what);
		END IF;
	END IF;
	IF NEW.slots IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.slots IS DISTINCT FROM OLD.slots) THEN
		what := CASE WHEN array_ndims(NEW.slots) > 1 THEN format('are an array of %s dimensions', array_ndims(NEW.slots))
					 WHEN cardinality(NEW.slots) > 16777216 THEN format('are %s ranges', cardinality(NEW.slots)) END;
		IF what IS NULL THEN
			SELECT u.r, u.i INTO bad
			FROM unnest(NEW.slots) WITH ORDINALITY AS u(r, i)
			WHERE u.r IS NULL OR isempty(u.r) OR lower_inf(u.r) OR upper_inf(u.r) OR lower(u.r) < 0
			ORDER BY u.i LIMIT 1;
			IF FOUND THEN
				what := CASE WHEN bad.r IS NULL THEN format('hold NULL at position %s', bad.i)
							 WHEN isempty(bad.r) THEN format('hold an empty range at position %s', bad.i)
							 ELSE format('hold range %s at position %s', bad.r, bad.i) END;
			END IF;
		END IF;
		IF what IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
				MESSAGE = 'slots must be a one-dimensional array of bounded, non-empty slot ranges from slot 0 on',
				DETAIL = format('The slots given to node "%s" of ring "%s" %s.',
								chash.message_name(NEW.node), chash.message_name(NEW.ring), what);
		END IF;
	END IF;
	IF octet_length(NEW.zone) > 1024 AND (TG_OP = 'INSERT' OR NEW.zone IS DISTINCT FROM OLD.zone) THEN
		RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded',
			MESSAGE = format('zone of node "%s" is too long', chash.message_name(NEW.node)),
			DETAIL = format('The zone is %s bytes long; zones are at most 1024 bytes.', octet_length(NEW.zone));
	END IF;
	IF octet_length(NEW.target) > 1024 AND (TG_OP = 'INSERT' OR NEW.target IS DISTINCT FROM OLD.target) THEN
		RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded',
			MESSAGE = format('target of node "%s" is too long', chash.message_name(NEW.node)),
			DETAIL = format('The target is %s bytes long; targets are at most 1024 bytes.', octet_length(NEW.target));
	END IF;
	IF octet_length(NEW.address) > 1024 AND (TG_OP = 'INSERT' OR NEW.address IS DISTINCT FROM OLD.address) THEN
		RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded',
			MESSAGE = format('address of node "%s" is too long', chash.message_name(NEW.node)),
			DETAIL = format('The address is %s bytes long; addresses are at most 1024 bytes.', octet_length(NEW.address));
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION chash.check_node_values() IS
	'trigger: a clear error for a node''s tokens, slots, zone, target or address that the catalog cannot take';
CREATE OR REPLACE TRIGGER node_config_check_values
	BEFORE INSERT OR UPDATE OF tokens, slots, zone, target, address ON chash.node_config
	FOR EACH ROW EXECUTE FUNCTION chash.check_node_values();
ALTER TABLE chash.node_config ENABLE ALWAYS TRIGGER node_config_check_values;

/*
 * A ring created with notify => true announces each of its changes:
 * NOTIFY chash_ring_changed with {"ring": name, "version": version}, its
 * name and new version as JSON.  Every write of a ring's row passes here,
 * and every change of a ring writes its row (the catalog's trigger gives it
 * its new version so), so each change is announced, through the functions
 * or by plain DML.  PostgreSQL delivers a notification when the
 * transaction commits, never when it rolls back, and folds the identical
 * payloads of one transaction into one: a transaction's changes of a ring
 * share its version, so a watcher hears one notification a committed
 * transaction and ring, with the version the commit left.  A ring dropped,
 * or renamed away, announces {"ring": name, "version": null, "dropped":
 * true}.  Turning notify off is announced, the last change a watcher
 * hears.  Any role that can connect can LISTEN, so the payload holds
 * nothing but the ring's name and its version.
 */
CREATE OR REPLACE FUNCTION chash.notify_ring_changed() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.notify AND
	   (TG_OP = 'DELETE' OR OLD.ring IS DISTINCT FROM NEW.ring) THEN
		PERFORM pg_notify('chash_ring_changed',
						  jsonb_build_object('ring', OLD.ring, 'version', NULL,
											 'dropped', true)::text);
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') AND
	   (NEW.notify OR (TG_OP = 'UPDATE' AND OLD.notify AND OLD.ring = NEW.ring)) THEN
		PERFORM pg_notify('chash_ring_changed',
						  jsonb_build_object('ring', NEW.ring, 'version', NEW.version)::text);
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION chash.notify_ring_changed() IS
	'trigger: NOTIFY chash_ring_changed with the name and new version of a changed ring whose changes notify';
CREATE OR REPLACE TRIGGER ring_config_notify_insert
	AFTER INSERT ON chash.ring_config
	FOR EACH ROW WHEN (NEW.notify)
	EXECUTE FUNCTION chash.notify_ring_changed();
CREATE OR REPLACE TRIGGER ring_config_notify_update
	AFTER UPDATE ON chash.ring_config
	FOR EACH ROW WHEN (NEW.notify OR OLD.notify)
	EXECUTE FUNCTION chash.notify_ring_changed();
CREATE OR REPLACE TRIGGER ring_config_notify_delete
	AFTER DELETE ON chash.ring_config
	FOR EACH ROW WHEN (OLD.notify)
	EXECUTE FUNCTION chash.notify_ring_changed();
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_notify_insert;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_notify_update;
ALTER TABLE chash.ring_config ENABLE ALWAYS TRIGGER ring_config_notify_delete;
