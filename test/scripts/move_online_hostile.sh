#!/usr/bin/env bash
# An online move that the shards' ordinary roles cannot subvert.
#
# lib/shards.sh starts three shard clusters and a coordinator database.
# Each shard has a role mallory: LOGIN, no superuser, no replication, with
# SELECT, INSERT, UPDATE and DELETE on the table users and CREATE on its
# schema, as an application's role would have.  On the coordinator, a role
# nobody has no grants at all.
#
#   1. Ring users (shard1, shard2) holds 20,000 rows; users + shard3 is
#      moved online while:
#      - nobody holds the advisory lock the move once took (its keys were
#        hashtext of names anyone may compute): the move is not blocked;
#      - the coordinator has a PUBLIC user mapping for every shard (as a
#        role spy that may replicate) beside the caller's own: the
#        subscriptions connect as the caller's mapped role, as postgres_fdw
#        and dblink would;
#      - after the switch, with the cleanup kept waiting by an older
#        coordinator transaction, mallory reads everything she may about
#        the move on the old owner of a moving key (the fence function's
#        source, its state sequence, the move's tables), sets the GUC the
#        move's cleanup once passed its fence with, tries to set the
#        state, to insert into the changed keys, and to set
#        session_replication_role, and writes to that moving key: every
#        write is refused, and nothing mallory had acknowledged is lost.
#   2. The owner of a table runs nothing as the move's superuser.  mallory
#      owns shard1's table, with a DELETE trigger that tries to make her a
#      superuser and records current_user: removing shard1 deletes its moved
#      rows as their owner, so the trigger runs as mallory and fails.  On a
#      destination, before PostgreSQL 16 the subscription would apply rows
#      as a superuser: a table that mallory owns, or whose replica trigger
#      runs her function, is refused (and trust_table_owners lets an owner
#      the caller trusts take part); from 16 on mallory owns a destination's
#      table, with an ALWAYS trigger that tries the same, and the move
#      applies rows as her: she stays what she was; there the mapped role
#      is no superuser but a member of pg_create_subscription (its
#      subscription logs in to the source with a password).
#   3. Names that need quoting or try to inject SQL: a schema named
#      App"; CREATE ROLE pwned SUPERUSER; -- on every shard, holding a
#      table whose key column is "xNEW.id" and a column "Note".  A move of
#      ring items completes, every row where the new ring says, and no
#      role pwned exists anywhere.
#   4. A destination whose target names another table than the sources'
#      (logical replication would apply the rows to the table of the
#      source's name there): refused before anything is made, and that
#      same-named table on the destination is untouched.
#
# After each move: every row exactly once on the node its ring names, as
# it was, and nothing of a move left on any shard.
#
#   test/bin/with-cluster.sh test/scripts/move_online_hostile.sh
set -euo pipefail
suite=move_online_hostile
shards=3
# the sources' logs name the role of each WAL sender's connection
shard_settings="-c log_connections=on"
. "$(dirname "$0")/lib/shards.sh"
rows=20000

start_shards
make_coordinator
version=$(shard 1 -c "SHOW server_version_num")
weird='App"; CREATE ROLE pwned SUPERUSER; --'
for i in 1 2 3; do
	shard "$i" >/dev/null <<SQL
CREATE ROLE mallory LOGIN;
CREATE ROLE spy LOGIN REPLICATION;
GRANT SELECT, INSERT, UPDATE, DELETE ON users TO mallory;
GRANT CREATE ON SCHEMA public TO mallory;
CREATE SCHEMA "$(sed 's/"/""/g' <<<"$weird")";
CREATE TABLE "$(sed 's/"/""/g' <<<"$weird")".items ("xNEW.id" bigint PRIMARY KEY, v integer NOT NULL, "Note" text);
CREATE SCHEMA other;
CREATE TABLE other.users (k bigint PRIMARY KEY, v integer NOT NULL, note text);
SQL
done
qweird=$(sed 's/"/""/g' <<<"$weird")
qweird_lit=$(sed "s/'/''/g" <<<"$weird")
{
	cat <<SQL
CREATE ROLE nobody LOGIN;
CREATE TABLE users (k bigint PRIMARY KEY, v integer NOT NULL, note text);
CREATE TABLE items ("xNEW.id" bigint PRIMARY KEY, v integer NOT NULL, "Note" text);
SELECT chash_ring_create('users');
SELECT chash_node_add('users', 'shard' || i, target => 'shard' || i) FROM generate_series(1, 2) i;
SELECT chash_ring_copy('users', 'users_add');
SELECT chash_node_add('users_add', 'shard3', target => 'shard3');
SELECT chash_ring_create('items');
SELECT chash_node_add('items', 'shard' || i, target => 'evil' || i) FROM generate_series(1, 2) i;
SELECT chash_ring_copy('items', 'items_add');
SELECT chash_node_add('items_add', 'shard3', target => 'evil3');
SQL
	for i in 1 2 3; do
		cat <<SQL
CREATE USER MAPPING FOR PUBLIC SERVER shard$i OPTIONS (user 'spy');
CREATE SCHEMA evil$i;
CREATE FOREIGN TABLE evil$i.items ("xNEW.id" bigint, v integer, "Note" text)
	SERVER shard$i OPTIONS (schema_name '$qweird_lit', table_name 'items');
CREATE SCHEMA wrong$i;
CREATE FOREIGN TABLE wrong$i.users (k bigint, v integer, note text)
	SERVER shard$i OPTIONS (schema_name 'other', table_name 'users');
SQL
	done
	for i in 1 2; do
		echo "INSERT INTO shard$i.users SELECT g, 0, 'row ' || g FROM generate_series(1, $rows) g WHERE chash_lookup('users', g::text) = 'shard$i';"
		echo "INSERT INTO evil$i.items SELECT g, 0, 'item ' || g FROM generate_series(1, 5000) g WHERE chash_lookup('items', g::text) = 'shard$i';"
	done
} | coord >/dev/null
echo "  $shards shard clusters (PostgreSQL $version) and the coordinator set up, $rows rows on ring users"

as_mallory() { # as_mallory SHARD SQL...: psql as mallory, errors reported
	local i=$1
	shift
	"$bindir/psql" -X -q -At -h "$tmp/s$i" -p 5432 -U mallory -d postgres "$@" 2>&1 || true
}
# rows of users as the shards hold them, against a ring
placed() { # placed RING TABLE: check every row once, on RING's node, as in TABLE
	run_checks 2 <<SQL
SELECT count(*) = count(DISTINCT k) AND count(*) = (SELECT count(*) FROM $2), 'every key once, as many as before', count(*) || ' rows'
FROM now_rows;
SELECT count(*) = 0, 'every row on the node $1 names, as it was', count(*) || ' differ'
FROM now_rows n FULL JOIN $2 b ON b.k = n.k
WHERE n.k IS NULL OR b.k IS NULL OR n.shard <> chash_lookup('$1', n.k::text) OR (n.v, n.note) IS DISTINCT FROM (b.v, b.note);
SQL
}

# --- 1: locks others may take, credentials, and the fence after the switch
observe before1
moving=$(coord -c "SELECT g FROM generate_series(1, $rows) g WHERE chash_lookup('users', g::text) = 'shard1' AND chash_lookup('users_add', g::text) = 'shard3' LIMIT 1")
# the advisory lock 1.4 took, held by a role without grants
PGUSER=nobody PGAPPNAME=chash_hold "$bindir/psql" -X -q -d "$db" \
	-c "SELECT pg_advisory_lock(hashtext('chash_move_online'), hashtext('users')); SELECT pg_sleep(3600)" >/dev/null 2>&1 &
background+=($!)
wait_for "nobody's advisory lock" coord -c "SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
# an older transaction keeps the cleanup waiting, with the fences up
hold older coordinator "BEGIN; SELECT txid_current()"
coord -c "CALL chash_move_online('users', 'users_add', 'users', 'k', wait_timeout => '1 min')" >"$tmp/move1.out" 2>&1 &
move_pid=$!
background+=($move_pid)
wait_for "a subscription of the move" shard 3 -c "SELECT count(*) > 0 FROM pg_subscription"
conninfo=$(shard 3 -c "SELECT string_agg(subconninfo, ' ') FROM pg_subscription")
if grep -q "user='postgres'\|user=postgres" <<<"$conninfo" && ! grep -q "spy" <<<"$conninfo"; then
	ok "the subscriptions connect as the caller's mapped role, not as PUBLIC's"
else
	fail "the subscriptions' connection: $conninfo"
fi
# the roles of the sources' WAL senders, from shard1's log: its streams
# may be gone by the time this looks (a fast move drops them before it
# waits for older transactions), but each connected, and was logged,
# before any row was copied
wal_senders() {
	sed -n 's/.*replication connection authorized: user=\([^ ]*\).*/\1/p' "$tmp/s1/server.log" | sort -u | paste -sd, -
}
has_wal_sender() { [ -z "$(wal_senders)" ] || echo t; }
wait_for "a WAL sender's connection on shard1" has_wal_sender
check "the roles of the sources' WAL senders" "$(wal_senders)" postgres
wait_for "the switch, with the cleanup waiting" coord -c "SELECT count(*) = 1 FROM chash.online_moves WHERE step = 'switched'"
ok "the move was not blocked by the advisory lock nobody holds"
fence=$(shard 1 -c "SELECT p.proname FROM pg_proc p WHERE p.proname ~ '^chash_move_[0-9a-f]{10}_fence$'")
token=$(sed 's/^chash_move_\(.*\)_fence$/\1/' <<<"$fence")
[ -n "$token" ] || fail "no fence function on shard1"
# everything mallory may read of the move
source=$(as_mallory 1 -c "SELECT prosrc FROM pg_proc WHERE proname = '$fence'")
grep -q 'serialization_failure' <<<"$source" && ok "mallory may read the fence's source" || fail "mallory could not read the fence: $source"
state=$(as_mallory 1 -c "SELECT last_value FROM chash_move_${token}_state")
check "the fence's state as mallory reads it (up for good)" "$state" 2
attempt() { # attempt WHAT SQL: mallory's try at opening the fence, then her write
	local what=$1 sql=$2 out
	out=$(as_mallory 1 -v ON_ERROR_STOP=0 -c "$sql" -c "UPDATE users SET v = v + 1000 WHERE k = $moving")
	if grep -q 'this key is moving to another node' <<<"$out"; then
		ok "mallory's write to a moving key after $what is refused"
	else
		fail "mallory's write to a moving key after $what: $out"
	fi
}
attempt "setting the old cleanup GUC to the move's token" "SET chash_move.cleanup = '$token'"
attempt "setting the fence's state" "SELECT setval('chash_move_${token}_state', 1)"
attempt "setting session_replication_role" "SET session_replication_role = replica"
attempt "recording her key as changed" "INSERT INTO chash_move_${token}_changes (k) VALUES ($moving)"
out=$(as_mallory 1 -c "SELECT setval('chash_move_${token}_state', 1)")
grep -q 'permission denied' <<<"$out" && ok "mallory may not set the fence's state: $out" || fail "mallory set the fence's state: $out"
release older coordinator
# nobody's lock was taken in a transaction as old
release chash_hold coordinator
wait "$move_pid" && ok "the move finished once the older transaction ended" || fail "the move failed: $(cat "$tmp/move1.out")"
coord -c "UPDATE before1 SET shard = chash_lookup('users_add', k::text)" >/dev/null
observe now_rows
placed users before1
check_leftovers
coord -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'nobody'" >/dev/null

# --- 2: the owner of a table runs nothing as the move's superuser
# mallory's trap on shard N: a trigger function of hers that records who
# runs it, as what, and tries to make her a superuser
mallory_trap() {
	shard "$1" >/dev/null <<'SQL'
CREATE TABLE mallory_log (who text, super boolean);
GRANT ALL ON mallory_log TO mallory;
SET ROLE mallory;
CREATE FUNCTION public.become_super() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.mallory_log VALUES (current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user));
	BEGIN
		EXECUTE 'ALTER ROLE mallory SUPERUSER';
	EXCEPTION WHEN insufficient_privilege THEN
		NULL;
	END;
	RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
SQL
}
mallory_trap 1
shard 1 -c "ALTER TABLE users OWNER TO mallory" \
	-c "CREATE TRIGGER become_super BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION public.become_super()" >/dev/null
coord -c "SELECT chash_ring_copy('users', 'users_less')" -c "SELECT chash_node_remove('users_less', 'shard1')" >/dev/null
observe before2
if [ "$version" -lt 160000 ]; then
	shard 2 -c "ALTER TABLE users OWNER TO mallory" >/dev/null
	refused "a destination table owned by a role that is not a superuser, before PostgreSQL 16" \
		'node "shard2" cannot take part in an online move: relation public.users is owned by role "mallory", who is not a superuser' \
		-c "CALL chash_move_online('users', 'users_less', 'users', 'k')"
	mallory_trap 2
	shard 2 -c "ALTER TABLE users OWNER TO postgres" \
		-c "CREATE TRIGGER become_super BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION public.become_super()" \
		-c "ALTER TABLE users ENABLE ALWAYS TRIGGER become_super" >/dev/null
	refused "a destination whose replica trigger runs a function of a role that is not a superuser, before PostgreSQL 16" \
		'node "shard2" cannot take part in an online move: relation public.users runs code of roles who are not superusers' \
		-c "CALL chash_move_online('users', 'users_less', 'users', 'k')"
	shard 2 -c "DROP TRIGGER become_super ON users" -c "ALTER TABLE users OWNER TO mallory" >/dev/null
	run_checks 1 <<'SQL'
SELECT count(*) = 0, 'the refused moves recorded nothing', count(*) || ' unfinished moves' FROM chash.online_moves WHERE step <> 'done';
SQL
	check_leftovers
	# a caller who trusts the owner as a superuser says so
	out=$(coord -c "CALL chash_move_online('users', 'users_less', 'users', 'k', trust_table_owners => true)" 2>&1) &&
		ok "trust_table_owners lets a table of a trusted owner take part" || fail "the trusted move failed: $out"
	shard 2 -c "ALTER TABLE users OWNER TO postgres" >/dev/null
else
	mallory_trap 2
	shard 2 -c "ALTER TABLE users OWNER TO mallory" \
		-c "SET ROLE mallory" \
		-c "CREATE TRIGGER become_super BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION public.become_super()" \
		-c "ALTER TABLE users ENABLE ALWAYS TRIGGER become_super" >/dev/null
	# and shard2's mapped role is no superuser: a member of
	# pg_create_subscription and of the table's owner, whose subscription
	# PostgreSQL lets log in to the source with a password only
	shard 2 >/dev/null <<SQL
CREATE ROLE sub16 LOGIN;
GRANT pg_create_subscription TO sub16;
GRANT CREATE ON DATABASE postgres TO sub16;
GRANT CREATE ON SCHEMA public TO sub16;
GRANT mallory TO sub16;
SQL
	shard 1 -c "ALTER ROLE $shard_user PASSWORD 'chash-move'" >/dev/null
	as_owner sed -i "1i local all $shard_user scram-sha-256" "$tmp/s1/data/pg_hba.conf"
	shard 1 -c "SELECT pg_reload_conf()" >/dev/null
	export PGPASSWORD=chash-move
	coord -c "ALTER USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (ADD password 'chash-move')" \
		-c "ALTER USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (SET user 'sub16')" >/dev/null
	coord -c "CALL chash_move_online('users', 'users_less', 'users', 'k')" >"$tmp/move2.out" 2>&1 &
	move_pid=$!
	background+=($move_pid)
	wait_for "the move's subscription on shard2" shard 2 -c "SELECT count(*) > 0 FROM pg_subscription"
	check "the owner of the subscription on shard2" \
		"$(shard 2 -c "SELECT string_agg(DISTINCT r.rolname || ' superuser ' || r.rolsuper, ',') FROM pg_subscription s JOIN pg_roles r ON r.oid = s.subowner")" \
		"sub16 superuser false"
	wait "$move_pid" && ok "a destination owned by mallory, with her ALWAYS trigger, whose mapped role is no superuser, takes part from PostgreSQL 16 on" ||
		fail "the move failed: $(cat "$tmp/move2.out")"
	coord -c "ALTER USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (DROP password)" \
		-c "ALTER USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (SET user '$shard_user')" >/dev/null
	as_owner sed -i 1d "$tmp/s1/data/pg_hba.conf"
	shard 1 -c "SELECT pg_reload_conf()" >/dev/null
	unset PGPASSWORD
	check "the roles mallory's trigger ran as on the destination (apply as the table's owner)" \
		"$(shard 2 -c "SELECT string_agg(DISTINCT who || ' ' || super, ',') FROM mallory_log")" "mallory false"
	shard 2 -c "DROP TRIGGER become_super ON users" -c "ALTER TABLE users OWNER TO postgres" >/dev/null
fi
check "the roles mallory's DELETE trigger ran as on the source (the cleanup deletes as the table's owner)" \
	"$(shard 1 -c "SELECT string_agg(DISTINCT who || ' ' || super, ',') FROM mallory_log")" "mallory false"
for i in 1 2 3; do
	check "mallory on shard$i is still no superuser" "$(shard "$i" -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'")" f
done
coord -c "UPDATE before2 SET shard = chash_lookup('users_less', k::text)" >/dev/null
observe now_rows
placed users before2
check_leftovers

# --- 3: names that need quoting, and that try to inject SQL
coord -c "CALL chash_move_online('items', 'items_add', 'items', 'xNEW.id')" >"$tmp/move3.out" 2>&1 &&
	ok "a move of a table in schema $weird, keyed by column \"xNEW.id\", completes" ||
	fail "the move of items failed: $(cat "$tmp/move3.out")"
run_checks 2 <<SQL
SELECT count(*) = 5000 AND count(*) = count(DISTINCT x."xNEW.id"), 'every item once', count(*) || ' items'
FROM (SELECT 'shard1' AS shard, * FROM evil1.items UNION ALL SELECT 'shard2', * FROM evil2.items
	  UNION ALL SELECT 'shard3', * FROM evil3.items) x;
SELECT count(*) = 0, 'every item on the node items names, as it was', count(*) || ' differ'
FROM (SELECT 'shard1' AS shard, * FROM evil1.items UNION ALL SELECT 'shard2', * FROM evil2.items
	  UNION ALL SELECT 'shard3', * FROM evil3.items) x
WHERE x.shard <> chash_lookup('items', x."xNEW.id"::text) OR x."Note" <> 'item ' || x."xNEW.id" OR x.v <> 0;
SQL
for i in 1 2 3; do
	check "shard$i has no role pwned" "$(shard "$i" -c "SELECT count(*) FROM pg_roles WHERE rolname = 'pwned'")" 0
done
check_leftovers

# --- 4: a destination that names another table than its sources
coord -c "SELECT chash_ring_copy('users', 'users_wrong')" -c "SELECT chash_node_add('users_wrong', 'shard1', target => 'wrong1')" >/dev/null
refused "a destination whose table has another name than its sources'" \
	'nodes "shard2" and "shard1" keep the table under different names' \
	-c "CALL chash_move_online('users', 'users_wrong', 'users', 'k')"
check "rows in shard1's public.users, which the sources' name would have filled" "$(shard 1 -c "SELECT count(*) FROM users")" 0
check "rows in shard1's other.users, which its target names" "$(shard 1 -c "SELECT count(*) FROM other.users")" 0
run_checks 1 <<'SQL'
SELECT count(*) = 0, 'the refused move recorded nothing', count(*) || ' unfinished moves' FROM chash.online_moves WHERE step <> 'done';
SQL
check_leftovers
finish
