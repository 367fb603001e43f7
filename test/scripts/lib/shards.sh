# Shard clusters for the suites of online moves (move_online*.sh), sourced.
#
# Before sourcing, set: suite (the suite's name, for messages) and shards
# (how many clusters).  The server in PGHOST/PGPORT is the coordinator
# (test/bin/with-cluster.sh provides one; chash installed there but created
# nowhere).  Gives:
#
#   start_shards           the clusters, each on a Unix socket of its own in
#                          $tmp/sN, wal_level = logical, chash created in
#                          its postgres database with a table users; extra
#                          server settings in shard_settings
#   make_coordinator       the database $db on the coordinator: chash,
#                          postgres_fdw, dblink, and per shard a server
#                          shardN, a user mapping and a schema shardN with
#                          the foreign table shardN.users
#   coord, shard N, shard_db N DB
#                          psql there (-At, ON_ERROR_STOP)
#   acked_writes_sql       SQL for the coordinator: a table users, ack_insert,
#                          ack_update, ack_delete and write(upd, del), one
#                          client transaction of an UPDATE v = v + 1, a
#                          DELETE and an INSERT of a new key, each routed by
#                          chash_lookup('users', k) at the time and
#                          acknowledged in the same transaction
#   ok WHAT, fail WHAT, check WHAT GOT WANT, refused WHAT PATTERN PSQL-ARGS,
#   run_checks N < SQL     checks, counted; the suite ends with finish
#   observe TABLE          every row of every shard, read from the shards
#   check_leftovers        nothing of any move left on any shard
#   fence_up N             t once a move has raised its fence on shard N
#   pgbench                a pgbench that retries serialization failures
#   start_writers NAME SCRIPT CLIENTS, stop_writers NAME
#                          pgbench clients running SCRIPT (a file in $tmp)
#                          against $db, in runs of 5 s until stopped (a
#                          pgbench that is killed loses its log), at
#                          most writer_tps transactions a second in all
#                          (default 50: writes throughout every step,
#                          without taking the CPU that make test's other
#                          lanes need); stop
#                          fails the suite if a client failed, or a
#                          transaction but one that met a 40001 (a
#                          fence, or postgres_fdw's repeatable read) as
#                          its run ended: pgbench retries nothing once
#                          its time is up
#   hold NAME WHERE SQL, release NAME WHERE
#                          a session (application_name NAME) on shard WHERE
#                          or on the coordinator that holds SQL's locks
#                          until released
#   longest_txn NAME       the longest of their transactions, retries
#                          included, in ms
#
# The clusters are stopped and removed, and $db dropped, whatever happens.

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
: "${PGHOST:?run under test/bin/with-cluster.sh}"
: "${suite:?set suite before sourcing lib/shards.sh}"
: "${shards:?set shards before sourcing lib/shards.sh}"
shard_settings=${shard_settings:-}
db=chash_${suite}_$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-$suite.XXXXXX")
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$tmp"
	as_owner() { (cd "$tmp" && runuser -u postgres -- "$@"); }
	shard_user=postgres
else
	as_owner() { (cd "$tmp" && "$@"); }
	shard_user=$(id -un)
fi
failures=0
checks=0
background=()

# pgbench retries serialization failures from 15 on: under 14's server,
# the client of a newer installed major (make test's setup installs 15)
pgbench=
for b in "$bindir" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
	# (grep reads it all: grep -q would end first, and pipefail would
	# count pgbench's SIGPIPE as no --max-tries)
	if "$b/pgbench" --help 2>/dev/null | grep -- --max-tries >/dev/null; then
		pgbench=$b/pgbench
		break
	fi
done

shards_cleanup() {
	local rc=$? i p
	set +e
	for p in "${background[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for i in $(seq 1 "$shards"); do
		if [ -f "$tmp/s$i/data/postmaster.pid" ]; then
			as_owner "$bindir/pg_ctl" -D "$tmp/s$i/data" -m immediate -w stop >/dev/null 2>&1
		fi
	done
	if [ $rc -ne 0 ]; then
		[ $failures -eq 0 ] && echo "$suite: FAILED (a step failed, exit status $rc)" >&2
		for i in $(seq 1 "$shards"); do
			[ -f "$tmp/s$i/server.log" ] || continue
			grep -E 'ERROR|FATAL|PANIC' "$tmp/s$i/server.log" | grep -v 'could not serialize' |
				tail -n 5 | sed "s/^/  shard$i: /" >&2
		done
	fi
	"$bindir/psql" -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()" >/dev/null 2>&1
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 ||
		echo "$suite: could not drop database $db" >&2
	rm -rf "$tmp"
	exit $rc
}
trap shards_cleanup EXIT
trap 'exit 130' INT TERM

coord() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
shard_db() {
	local i=$1 d=$2
	shift 2
	"$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$tmp/s$i" -p 5432 -U "$shard_user" -d "$d" "$@"
}
shard() {
	local i=$1
	shift
	shard_db "$i" postgres "$@"
}

start_shard() {
	local dir=$tmp/s$1
	as_owner mkdir "$dir"
	as_owner "$bindir/initdb" -D "$dir/data" -U "$shard_user" -A trust -E UTF8 \
		--locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		return 1
	}
	# enough logical replication workers for every copy to start at once
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-c listen_addresses='' -k $dir -c port=5432 -c fsync=off -c synchronous_commit=off -c shared_buffers=16MB -c max_connections=60 -c autovacuum=off -c wal_level=logical -c max_replication_slots=16 -c max_wal_senders=16 -c max_logical_replication_workers=12 -c max_worker_processes=20 -c jit=off $shard_settings" \
		start >/dev/null
	shard "$1" -c "CREATE EXTENSION chash" \
		-c "CREATE TABLE users (k bigint PRIMARY KEY, v integer NOT NULL, note text)"
}
start_shards() {
	local i pids=() p
	for i in $(seq 1 "$shards"); do
		start_shard "$i" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
}
restart_shard() {
	as_owner "$bindir/pg_ctl" -D "$tmp/s$1/data" -l "$tmp/s$1/server.log" -m immediate -w restart >/dev/null
}

make_coordinator() {
	local i
	"$bindir/createdb" "$db"
	{
		echo "CREATE EXTENSION chash; CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;"
		for i in $(seq 1 "$shards"); do
			cat <<SQL
CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$tmp/s$i', port '5432', dbname 'postgres', fetch_size '10000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i OPTIONS (user '$shard_user');
CREATE SCHEMA shard$i;
IMPORT FOREIGN SCHEMA public LIMIT TO (users) FROM SERVER shard$i INTO shard$i;
SQL
		done
	} | coord >/dev/null
}

acked_writes_sql() {
	cat <<'SQL'
CREATE TABLE users (k bigint PRIMARY KEY, v integer NOT NULL, note text);
CREATE SEQUENCE new_keys START 1000001;
CREATE TABLE ack_insert (k bigint PRIMARY KEY);
CREATE TABLE ack_update (k bigint PRIMARY KEY, n integer NOT NULL);
CREATE TABLE ack_delete (k bigint PRIMARY KEY);
CREATE FUNCTION write(upd bigint, del bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	nk bigint := nextval('new_keys');
BEGIN
	EXECUTE format('UPDATE %I.users SET v = v + 1 WHERE k = $1', chash_lookup('users', upd::text)) USING upd;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 1 THEN
		INSERT INTO ack_update VALUES (upd, 1) ON CONFLICT (k) DO UPDATE SET n = ack_update.n + 1;
	END IF;
	EXECUTE format('DELETE FROM %I.users WHERE k = $1', chash_lookup('users', del::text)) USING del;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 1 THEN
		INSERT INTO ack_delete VALUES (del);
	END IF;
	EXECUTE format('INSERT INTO %I.users VALUES ($1, 0, $2)', chash_lookup('users', nk::text)) USING nk, 'new ' || nk;
	INSERT INTO ack_insert VALUES (nk);
END
$$;
SQL
}

ok() {
	checks=$((checks + 1))
	echo "  ok    $*"
}
fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "  FAIL  $*" >&2
}
# check WHAT GOT WANT: GOT must be WANT (and not empty)
check() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		ok "$1: $2"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

# refused WHAT PATTERN PSQL-ARGS...: the command fails with PATTERN
refused() {
	local what=$1 pattern=$2 out
	shift 2
	if out=$(coord "$@" 2>&1); then
		fail "$what: not refused"
	elif grep -q -- "$pattern" <<<"$out"; then
		ok "refused, $what: $(grep -m1 ERROR <<<"$out" | sed 's/^.*ERROR: *//')"
	else
		fail "$what: refused with another error: $out"
	fi
}

# a file of checks, each statement one row (passed, what, detail); a check
# that is not true fails, and so does a file that gives other than N rows
run_checks() {
	local want=$1 out ok what detail got=0
	shift
	out=$(coord "$@")
	while IFS='|' read -r ok what detail; do
		[ -n "$ok$what$detail" ] || continue
		got=$((got + 1))
		if [ "$ok" = t ]; then
			ok "$what: $detail"
		else
			fail "$what: $detail"
		fi
	done <<<"$out"
	[ $got -eq "$want" ] || fail "$want checks expected, $got ran"
}

# every row of every shard with its xmin, read from the shards themselves
observe() {
	local table=$1 i
	coord -c "DROP TABLE IF EXISTS $table" -c "CREATE TABLE $table (shard text, k bigint, v integer, note text, x text)" 2>/dev/null
	for i in $(seq 1 "$shards"); do
		shard "$i" -c "COPY (SELECT 'shard$i', k, v, note, xmin::text FROM users) TO STDOUT" |
			coord -c "COPY $table FROM STDIN"
	done
	coord -c "CREATE INDEX ON $table (k)" -c "ANALYZE $table"
}

# nothing of a move left on any shard: publications, subscriptions, slots,
# and relations, functions and triggers of chash_move names
check_leftovers() {
	local i left
	for i in $(seq 1 "$shards"); do
		left=$(shard "$i" -c "SELECT (SELECT count(*) FROM pg_publication) + (SELECT count(*) FROM pg_subscription)
			+ (SELECT count(*) FROM pg_replication_slots)
			+ (SELECT count(*) FROM pg_class WHERE relname ~ '^chash_move_[0-9a-f]{10}')
			+ (SELECT count(*) FROM pg_proc WHERE proname ~ '^chash_move_[0-9a-f]{10}')
			+ (SELECT count(*) FROM pg_trigger WHERE tgname ~ '^chash_move_[0-9a-f]{10}')")
		if [ "$left" = 0 ]; then
			ok "shard$i: nothing of a move is left (publications, subscriptions, slots, triggers, functions, tables)"
		else
			fail "shard$i: $left objects of a move are left: $(shard "$i" -c "SELECT string_agg(n, ', ') FROM (
				SELECT 'publication ' || pubname AS n FROM pg_publication UNION ALL SELECT 'subscription ' || subname FROM pg_subscription
				UNION ALL SELECT 'slot ' || slot_name FROM pg_replication_slots
				UNION ALL SELECT 'relation ' || oid::regclass FROM pg_class WHERE relname ~ '^chash_move_[0-9a-f]{10}'
				UNION ALL SELECT 'function ' || oid::regproc FROM pg_proc WHERE proname ~ '^chash_move_[0-9a-f]{10}'
				UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE tgname ~ '^chash_move_[0-9a-f]{10}') x")"
		fi
	done
}

hold() {
	local name=$1 where=$2 sql=$3
	if [ "$where" = coordinator ]; then
		PGAPPNAME=$name coord -c "$sql; SELECT pg_sleep(3600)" >/dev/null 2>&1 &
	else
		PGAPPNAME=$name shard "$where" -c "$sql; SELECT pg_sleep(3600)" >/dev/null 2>&1 &
	fi
	background+=($!)
	# held once the session sleeps
	local i q="SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = '$name' AND wait_event = 'PgSleep'"
	for i in $(seq 1 100); do
		if [ "$where" = coordinator ]; then
			[ "$(coord -c "$q")" = t ] && return 0
		else
			[ "$(shard "$where" -c "$q")" = t ] && return 0
		fi
		sleep 0.1
	done
	fail "session $name never held its locks"
	exit 1
}
release() {
	local q="SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '$1'"
	if [ "$2" = coordinator ]; then
		coord -c "$q" >/dev/null
	else
		shard "$2" -c "$q" >/dev/null
	fi
}

start_writers() {
	local name=$1 script=$2 clients=$3
	rm -f "$tmp/$name.stop"
	(
		n=0
		until [ -e "$tmp/$name.stop" ]; do
			n=$((n + 1))
			(cd "$tmp" && "$pgbench" -n -f "$script" -c "$clients" -j "$clients" -T 5 -R "${writer_tps:-50}" \
				--max-tries=0 --failures-detailed -l \
				--log-prefix="$tmp/$name.log.$n" "$db" >>"$tmp/$name.out" 2>&1) || exit 1
		done
	) &
	eval "writers_$name=$!"
	background+=($!)
}
stop_writers() {
	local name=$1 pid rc=0
	eval "pid=\$writers_$name"
	touch "$tmp/$name.stop"
	wait "$pid" || rc=$?
	if [ $rc -ne 0 ] || ! awk '/^number of failed transactions:/ { f += $5 } /^number of serialization failures:/ { s += $5 } END { exit f != s }' "$tmp/$name.out"; then
		fail "writers $name (exit status $rc): $(grep -E 'aborted|error|failed|failures' "$tmp/$name.out" | sort | uniq -c | tail -n 5)"
		return 1
	fi
	ok "writers $name: $(awk '/^number of transactions actually processed/ { n += $6 } /^number of transactions retried/ { r += $5 } /^number of failed transactions:/ { f += $5 }
		END { print n " transactions, " r + 0 " retried, " f + 0 " given up retrying a 40001 as a 5-s run ended, none failed otherwise" }' "$tmp/$name.out")"
}
longest_txn() {
	cat "$tmp/$1".log.* 2>/dev/null | awk 'NF >= 6 && $3 ~ /^[0-9]+$/ { if ($3 > m) m = $3 } END { printf "%.1f", m / 1000 }'
}

fence_up() {
	shard "$1" -c "SELECT coalesce(bool_or(last_value >= 1000000000000000 OR last_value = 2), false) FROM pg_sequences
		WHERE sequencename ~ '^chash_move_[0-9a-f]{10}_state$'"
}

# wait_for WHAT COMMAND...: until COMMAND prints t (a minute at most)
wait_for() {
	local what=$1 i
	shift
	for i in $(seq 1 600); do
		[ "$("$@" 2>/dev/null)" = t ] && return 0
		sleep 0.1
	done
	fail "never reached: $what"
	exit 1
}

finish() {
	echo "  $checks checks, $failures failed"
	[ $failures -eq 0 ]
}
