#!/usr/bin/env bash
# The mysql dialect of chash_migration_sql() moves exactly the rows that
# chash says move, on a real MariaDB server.
#
#   test/bin/with-cluster.sh test/scripts/migrate_mysql.sh
#
# PostgreSQL (the cluster of test/bin/with-cluster.sh, in a database of its own)
# holds the rings and the table items(id bigint, sku text, qty int), the
# source of truth of the keys: ids from 1 up, large and negative ones, the
# edges of 32- and 64-bit integers, and skus with non-ASCII text (4-byte
# UTF-8 too), tabs, newlines, backslashes and quotes.  A private MariaDB
# server (its own datadir, socket and 127.0.0.1 port; as root, run as the
# mysql user, or as postgres where Debian made no mysql user; stopped and
# removed whatever happens) holds the shards: databases shard1, shard2 and
# shard3, each with a table items.
#
# For each ring below, nodes db1 and db2 (targets shard1.items and
# shard2.items) make the "from" ring; a copy of it with db3 (shard3.items)
# added makes the "to" ring.  The rows are loaded into the shards the from
# ring names (LOAD DATA LOCAL INFILE, per node), and the plan of
# chash_migration_sql(from, to, 'items', 'id', 'mysql') runs through the
# mariadb client, which stops at the first error.  Then, from dumps of all
# the shards before and after:
#   - the plan's first line is a comment naming how it chooses the rows:
#     MySQL's CRC32() for key hash crc32, MD5() for md5 (ketama), explicit
#     key lists otherwise (xxh3_64); its DELETEs' predicates are of that kind;
#   - chash_moved_keys() agrees with chash_lookup() on both rings, and
#     every moved key goes to db3;
#   - the shards held before exactly the rows of items, each in the shard
#     of its node on the from ring;
#   - after, shard3 holds exactly the moved ids; no id is in two shards,
#     none is missing; every id is in the shard of its node on the to ring;
#     no row changed (id, sku, qty); shard1 and shard2 lost exactly the
#     ids moved from db1 and db2, and gained none.
# Three changes of scheme besides: ids split by id % 2 (ring of algorithm
# modulo on key hash identity, db1 and db2) moved to a ring of three, one
# with key hash crc32 (the plan chooses rows by MySQL's MOD(`id`, 2) and
# CRC32(`id`) ranges), one with xxh3_64 (key lists), and to 16384 slots of
# crc32 split over three (MOD(`id`, 2) and MOD(CRC32(`id`), 16384) in the
# node's slot ranges).  Keys move between
# all the shards there, so the check that moved keys go to db3 is left out;
# the items are those with ids from 0 up (nonneg.items: MOD() of a negative
# id names no shard).
# Besides:
#   - crc32 has vnodes 170, so that the range across 0 moves (in two
#     halves, from 0 and up to 4294967295), with keys in it;
#   - the plan's own check stops it, having changed nothing, when a copy
#     differs from its source: crc32 with a stray row put beforehand in the
#     target (the counts differ), xxh3_64 with a trigger on the target that
#     changes qty (the checksums differ);
#   - crc32 and xxh3_64: the plan, run a second time, changes nothing;
#   - crc32: the checks above can fail: rows moved, copied and changed by
#     hand fail exactly the checks that should fail.
#
# Environment:
#   CHASH_MYSQL_ROWS  rows in items (default 100000)
#   CHASH_MYSQL_KEEP  if set, keep the working directory (server, plans, dumps)
#
# Needs the Debian packages mariadb-server-core and mariadb-client-core
# (installed by test/bin/setup.sh).
# shellcheck disable=SC2016,SC2001	# `id` is MySQL quoting; sed indents
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
: "${PGHOST:?run under test/bin/with-cluster.sh}"
export PGCLIENTENCODING=UTF8
nrows=${CHASH_MYSQL_ROWS:-100000}
db=chash_migrate_mysql_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-mysql.XXXXXX")
chmod 755 "$work"

find_bin() {
	local b
	for b in "$@"; do
		if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return 0; fi
		if [ -x "/usr/sbin/$b" ]; then echo "/usr/sbin/$b"; return 0; fi
	done
	echo "migrate_mysql: none of $* found (Debian: mariadb-server-core, mariadb-client-core)" >&2
	return 1
}
mariadbd=$(find_bin mariadbd mysqld)
install_db=$(find_bin mariadb-install-db mysql_install_db)
client=$(find_bin mariadb mysql)

# The server's own directory: data, socket, pid file, log, temporary files
srv=$work/mariadb
mkdir "$srv"
server_user=()
if [ "$(id -u)" -eq 0 ]; then
	if id mysql >/dev/null 2>&1; then user=mysql; else user=postgres; fi
	chown "$user": "$srv"
	server_user=(--user="$user")
fi

mpid=
port=

stop_mariadb() {
	[ -n "$mpid" ] || return 0
	if kill -TERM "$mpid" 2>/dev/null; then
		for _ in $(seq 1 200); do
			kill -0 "$mpid" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$mpid" 2>/dev/null || true
	fi
	wait "$mpid" 2>/dev/null || true
	mpid=
}

cleanup() {
	local rc=$?
	stop_mariadb
	if [ $rc -ne 0 ] && [ -f "$srv/error.log" ]; then
		echo "--- last lines of the MariaDB log ($srv/error.log) ---" >&2
		tail -n 20 "$srv/error.log" >&2 || true
	fi
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	if [ -n "${CHASH_MYSQL_KEEP:-}" ]; then
		echo "migrate_mysql: working directory kept in $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_us() { local t=$EPOCHREALTIME; echo "${t//[.,]/}"; }
seconds() { printf '%d.%02d' $(($1 / 1000000)) $(($1 % 1000000 / 10000)); }

pg() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
my() {
	"$client" --no-defaults --protocol=TCP -h 127.0.0.1 -P "$port" -u root \
		--default-character-set=utf8mb4 --batch --skip-column-names "$@"
}

# --- MariaDB ---------------------------------------------------------------
t0=$(now_us)
"$install_db" --no-defaults "${server_user[@]}" --datadir="$srv/data" \
	--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
	>"$work/install-db.log" 2>&1 || {
	cat "$work/install-db.log" >&2
	exit 1
}

# A free port on 127.0.0.1: a random one nothing answers on, and another if
# the server still finds it taken
start_mariadb() {
	local _
	for _ in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 40000))
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
		"$mariadbd" --no-defaults "${server_user[@]}" --datadir="$srv/data" \
			--socket="$srv/mysqld.sock" --port="$port" --bind-address=127.0.0.1 \
			--pid-file="$srv/mysqld.pid" --log-error="$srv/error.log" \
			--tmpdir="$srv" --skip-name-resolve --local-infile=1 \
			--character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
			--innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=0 \
			--max-allowed-packet=256M </dev/null >/dev/null 2>&1 &
		mpid=$!
		for _ in $(seq 1 600); do
			if my -e 'SELECT 1' >/dev/null 2>&1; then return 0; fi
			kill -0 "$mpid" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$mpid" 2>/dev/null; then
			echo "migrate_mysql: MariaDB did not answer in 30 s" >&2
			return 1
		fi
		wait "$mpid" 2>/dev/null || true
		mpid=
		if ! grep -q -e 'Address already in use' -e 'Can.t start server' "$srv/error.log" 2>/dev/null; then
			echo "migrate_mysql: MariaDB did not start" >&2
			return 1
		fi
	done
	echo "migrate_mysql: found no free port for MariaDB" >&2
	return 1
}
start_mariadb
mysql_version=$(my -e 'SELECT VERSION()')
t_mariadb=$(($(now_us) - t0))

# --- PostgreSQL: the keys and the checks ------------------------------------
t0=$(now_us)
"$bindir/createdb" "$db"
pg -c "CREATE EXTENSION chash"
pg -v nrows="$nrows" <<'SQL'
CREATE TABLE items (id bigint PRIMARY KEY, sku text NOT NULL, qty integer NOT NULL);
-- ids: the edges of 32- and 64-bit integers, 10% negative, 30% spread
-- beyond 32 bits, the rest from 1 up
CREATE TEMP TABLE ids AS
	SELECT unnest(ARRAY[0, 2147483647, -2147483648, 2147483648, 4294967295,
						4294967296, -4294967296, 9223372036854775807,
						-9223372036854775807, -9223372036854775808]::bigint[]) AS id
	UNION SELECT -7 * g::bigint FROM generate_series(1, :nrows / 10) g
	UNION SELECT 1000003 * g::bigint + 500000 FROM generate_series(1, :nrows * 3 / 10) g;
ANALYZE ids;
-- anti-joins, not NOT IN: NOT IN over a big set cannot be hashed when the
-- planner misjudges its size, and then compares every pair of rows
INSERT INTO ids
	SELECT g FROM generate_series(1, :nrows) g
	WHERE NOT EXISTS (SELECT FROM ids i WHERE i.id = g)
	LIMIT :nrows - (SELECT count(*) FROM ids);
INSERT INTO items
	SELECT id,
		   'SKU-' || id || ' ' ||
		   (ARRAY['café', 'Straße', '中文货号', '😀 emoji', 'ÅÄÖ', 'plain',
				  E'tab\there', E'back\\slash', 'quote''s', E'new\nline'])[(id % 10 + 10) % 10 + 1],
		   ((id % 997 + 997) % 997)::integer
	FROM ids;
ANALYZE items;
-- a table split by id % n has ids from 0 up (MOD() of a negative id is
-- negative, and names no shard): the same items without the negative ones,
-- for the modulo scenarios, which read it through their search_path
CREATE SCHEMA nonneg;
CREATE TABLE nonneg.items AS SELECT * FROM items WHERE id >= 0;
ALTER TABLE nonneg.items ADD PRIMARY KEY (id);
ANALYZE nonneg.items;

-- the databases and tables the nodes' targets name
CREATE TABLE shards (node text PRIMARY KEY, shard text NOT NULL);
INSERT INTO shards VALUES ('db1', 'shard1'), ('db2', 'shard2'), ('db3', 'shard3');

-- the shards' rows, as dumped from MariaDB
CREATE TABLE dump (phase text, shard text, id bigint, sku text, qty integer);

-- Every check with the number of its violations: all must be 0.  new_node
-- NULL: a change of scheme, where keys move between every pair of nodes
-- (the first check is then left out).  items is the search_path's.
CREATE FUNCTION checks(r_from text, r_to text, new_node text, before text, after text)
RETURNS TABLE (name text, bad bigint) LANGUAGE sql AS $$
WITH moved AS (
	SELECT * FROM chash_moved_keys(r_from, r_to, 'items', 'id')
		AS m(key bigint, from_node text, to_node text)
), routes AS (
	SELECT i.*, f.shard AS from_shard, t.shard AS to_shard,
		   chash_lookup(r_from, id) AS from_node, chash_lookup(r_to, id) AS to_node
	FROM items i
	LEFT JOIN shards f ON f.node = chash_lookup(r_from, i.id)
	LEFT JOIN shards t ON t.node = chash_lookup(r_to, i.id)
), b AS (
	SELECT * FROM dump WHERE phase = before
), a AS (
	SELECT * FROM dump WHERE phase = after
)
SELECT 'moved keys go to ' || new_node,
	   (SELECT count(*) FROM moved WHERE to_node IS DISTINCT FROM new_node)
WHERE new_node IS NOT NULL
UNION ALL
SELECT 'moved keys are the keys chash_lookup moves',
	   (SELECT count(*) FROM moved m
		FULL JOIN (SELECT * FROM routes WHERE from_node IS DISTINCT FROM to_node) r ON r.id = m.key
		WHERE m.key IS NULL OR r.id IS NULL
		   OR (m.from_node, m.to_node) IS DISTINCT FROM (r.from_node, r.to_node))
UNION ALL
SELECT 'before: shards hold items as the from ring routes them',
	   (SELECT count(*) FROM b FULL JOIN routes r ON r.id = b.id
		WHERE b.id IS NULL OR r.id IS NULL
		   OR (b.shard, b.sku, b.qty) IS DISTINCT FROM (r.from_shard, r.sku, r.qty))
UNION ALL
SELECT 'after: each shard gained exactly the ids moved to it',
	   (SELECT count(*) FROM
		(SELECT shard, id FROM a EXCEPT SELECT shard, id FROM b) gained
		FULL JOIN (SELECT s.shard, m.key AS id FROM moved m JOIN shards s ON s.node = m.to_node) mv
		USING (shard, id)
		WHERE gained.id IS NULL OR mv.id IS NULL)
UNION ALL
SELECT 'after: ids in two shards', (SELECT count(*) - count(DISTINCT id) FROM a)
UNION ALL
SELECT 'after: ids missing',
	   (SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT FROM a WHERE a.id = i.id))
UNION ALL
SELECT 'after: ids not in the shard the to ring names',
	   (SELECT count(*) FROM a LEFT JOIN routes r USING (id) WHERE a.shard IS DISTINCT FROM r.to_shard)
UNION ALL
SELECT 'after: rows changed',
	   (SELECT count(*) FROM ((SELECT id, sku, qty FROM a EXCEPT ALL SELECT id, sku, qty FROM items)
							  UNION ALL
							  (SELECT id, sku, qty FROM items EXCEPT ALL SELECT id, sku, qty FROM a)) d)
UNION ALL
SELECT 'after: each shard lost exactly the ids moved from it',
	   (SELECT count(*) FROM
		((SELECT shard, id FROM b EXCEPT SELECT shard, id FROM a) lost
		 FULL JOIN (SELECT s.shard, m.key AS id FROM moved m JOIN shards s ON s.node = m.from_node) mv
		 USING (shard, id))
		WHERE lost.id IS NULL OR mv.id IS NULL)
$$;
SQL
[ "$(pg -c "SELECT count(*) FROM items")" = "$nrows" ] || {
	echo "migrate_mysql: items does not have $nrows rows" >&2
	exit 1
}
t_setup=$(($(now_us) - t0))

# --- one ring --------------------------------------------------------------
dump_shards() {	# PHASE: all the shards' rows into the table dump
	my -e "SELECT '$1', 'shard1', id, sku, qty FROM shard1.items
		   UNION ALL SELECT '$1', 'shard2', id, sku, qty FROM shard2.items
		   UNION ALL SELECT '$1', 'shard3', id, sku, qty FROM shard3.items" >"$work/dump-$1.tsv"
	pg -c "DELETE FROM dump WHERE phase = '$1'" -c "\\copy dump FROM '$work/dump-$1.tsv'" -c "ANALYZE dump"
}

# run_checks LABEL FROM TO PHASE_BEFORE PHASE_AFTER: one line if all the
# checks pass, else every check; non-zero if any failed, or if the checks
# could not run (it is called as `run_checks ... || failed=1`, where set -e
# does not hold: a failing query must not read as no failure)
run_checks() {
	local out new_node=${6:-db3} nchecks=9
	[ "$new_node" != NULL ] || nchecks=8
	[ "$new_node" = NULL ] || new_node="'$new_node'"
	if ! out=$(pg -c "SELECT format('%-70s %s', name || ':', CASE WHEN bad = 0 THEN 'ok' ELSE bad || ' FAILED' END)
					  FROM checks('$2', '$3', $new_node, '$4', '$5')"); then
		echo "  $1: checks: the check query failed FAILED"
		return 1
	fi
	if [ "$(grep -c ': *ok$' <<<"$out")" -ne "$nchecks" ]; then
		sed "s/^/  $1: /" <<<"$out"
		echo "  $1: checks: $(grep -c ': *ok$' <<<"$out") of $nchecks passed FAILED"
		return 1
	fi
	echo "  $1: checks: all $nchecks passed"
}

# Rows that differ between two dumps (shard, id, sku, qty), both ways; its
# callers compare the count with 0, which an error leaves empty (not 0)
differences() {
	pg -c "SELECT count(*) FROM ((SELECT shard, id, sku, qty FROM dump WHERE phase = '$1'
								  EXCEPT ALL SELECT shard, id, sku, qty FROM dump WHERE phase = '$2')
								 UNION ALL
								 (SELECT shard, id, sku, qty FROM dump WHERE phase = '$2'
								  EXCEPT ALL SELECT shard, id, sku, qty FROM dump WHERE phase = '$1')) d"
}

# The plan's own check, before the real run: make the first batch's copy
# differ from its source, run the plan, which must stop there with error
# 1242 ("Subquery returns more than 1 row") having changed nothing.
#   stray:   a row that is in no source but matches the first batch's
#            predicate, put in its target beforehand: the counts differ
#   trigger: a trigger on the target that changes qty as rows arrive: the
#            counts agree, the checksums do not
guard_test() {
	local label=$1 plan=$2 how=$3 pred stray='' out='' what
	case $how in
	stray)
		pred=$(grep -m 1 '^DELETE' "$plan" | sed 's/^DELETE FROM [^ ]* WHERE //; s/;$//')
		stray=$(my shard3 -e "SELECT id FROM (SELECT 5000000000000 + seq AS id FROM seq_1_to_100000) s
							   WHERE $pred ORDER BY id LIMIT 1")
		[ -n "$stray" ] || {
			echo "  $label: guard: no stray id matches the first batch FAILED"
			failed=1
			return
		}
		my -e "INSERT INTO shard3.items VALUES ($stray, 'stray', 0)"
		what="a stray row in the target"
		;;
	trigger)
		my -e "CREATE TRIGGER shard3.chash_guard BEFORE INSERT ON shard3.items
			   FOR EACH ROW SET NEW.qty = NEW.qty + 1"
		what="a trigger changing the copies"
		;;
	esac
	if my <"$plan" >"$work/guard-$label.out" 2>"$work/guard-$label.err"; then
		out="the plan ran through"
	elif ! grep -q '^ERROR 1242' "$work/guard-$label.err"; then
		out="the plan failed otherwise: $(head -c 300 "$work/guard-$label.err")"
	fi
	case $how in
	stray) my -e "DELETE FROM shard3.items WHERE id = $stray" ;;
	trigger) my -e "DROP TRIGGER shard3.chash_guard" ;;
	esac
	dump_shards "$label-guard"
	local changed
	changed=$(differences "$label-before" "$label-guard")
	[ "$changed" -eq 0 ] || out="${out:+$out; }$changed rows changed"
	if [ -z "$out" ]; then
		echo "  $label: guard: $what stopped the plan at its first check (error 1242), nothing changed"
	else
		echo "  $label: guard: with $what: $out FAILED"
		failed=1
	fi
}

failed=0
summary=()

# scenario LABEL FROM TO KIND GUARD EXTRAS CREATE [CREATE_TO]: KIND is the
# predicate the plan must use: crc32, md5, keys, or mod (MOD() on the from
# ring, CRC32() on the to ring); GUARD a guard test (stray, trigger) or
# none; EXTRAS, comma-separated: wrap (the range across 0 moves), rerun
# (run the plan a second time), selftest (the checks can fail), or none.
# The to ring is a copy of the from ring with db3 added, or, with
# CREATE_TO, a ring of another scheme with db1, db2 and db3.
scenario() {
	local label=$1 from=$2 to=$3 kind=$4 guard=$5 extras=,$6, create=$7 create_to=${8:-} t0 t_plan t_run n
	local new_node=db3
	echo "== $label: $create${create_to:+ to $create_to}"
	t0=$(now_us)
	pg -c "SELECT $create" \
		-c "SELECT chash_node_add('$from', 'db1', target => 'shard1.items')" \
		-c "SELECT chash_node_add('$from', 'db2', target => 'shard2.items')" >/dev/null
	if [ -n "$create_to" ]; then
		new_node=NULL
		pg -c "SELECT $create_to" \
			-c "SELECT chash_node_add('$to', 'db' || i, target => 'shard' || i || '.items') FROM generate_series(1, 3) i" >/dev/null
	else
		pg -c "SELECT chash_ring_copy('$from', '$to')" \
			-c "SELECT chash_node_add('$to', 'db3', target => 'shard3.items')" >/dev/null
	fi

	# the shards, loaded with the rows of their node on the from ring
	for n in 1 2 3; do
		my -e "DROP DATABASE IF EXISTS shard$n; CREATE DATABASE shard$n;
			   CREATE TABLE shard$n.items (id BIGINT NOT NULL PRIMARY KEY,
				   sku VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
				   qty INT NOT NULL) ENGINE=InnoDB"
		pg -c "\\copy (SELECT id, sku, qty FROM items WHERE chash_lookup('$from', id) = 'db$n' ORDER BY id) TO '$work/load-$n.tsv'"
		my --local-infile=1 -e "LOAD DATA LOCAL INFILE '$work/load-$n.tsv' INTO TABLE shard$n.items
			CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\'
			LINES TERMINATED BY '\\n' (id, sku, qty); SHOW WARNINGS" >"$work/load-$n.warnings"
		if [ -s "$work/load-$n.warnings" ]; then
			echo "  $label: LOAD DATA into shard$n warned:" >&2
			head -n 5 "$work/load-$n.warnings" >&2
			failed=1
		fi
	done
	dump_shards "$label-before"
	local t_load=$(($(now_us) - t0))

	# the plan
	t0=$(now_us)
	local plan=$work/plan-$label.sql
	pg -c "SELECT chash_migration_sql('$from', '$to', 'items', 'id', 'mysql')" >"$plan"
	t_plan=$(($(now_us) - t0))
	local first txns bytes
	first=$(head -n 1 "$plan")
	txns=$(grep -c '^START TRANSACTION' "$plan" || true)
	bytes=$(wc -c <"$plan")
	echo "  $label: plan: $first"
	echo "  $label: plan: $txns transactions, $(grep -c '^DELETE' "$plan" || true) DELETEs, $((bytes / 1024)) KiB"
	local bad_plan=()
	[[ $first == --* ]] || bad_plan+=("first line is no comment")
	# the predicates of the DELETEs
	local preds=$work/preds-$label
	grep '^DELETE' "$plan" | sed 's/^DELETE FROM [^ ]* WHERE (\?//' >"$preds" || true
	[ -s "$preds" ] || bad_plan+=("no DELETE")
	case $kind in
	crc32)
		grep -qi 'crc32' <<<"$first" || bad_plan+=("first line does not say CRC32")
		grep -qv 'CRC32(`id`)' "$preds" && bad_plan+=("a DELETE without CRC32(\`id\`)")
		grep -q '`id` IN (' "$preds" && bad_plan+=("a DELETE with a key list")
		;;
	md5)
		grep -qi 'md5' <<<"$first" || bad_plan+=("first line does not say MD5")
		grep -qv 'MD5(`id`)' "$preds" && bad_plan+=("a DELETE without MD5(\`id\`)")
		grep -q '`id` IN (' "$preds" && bad_plan+=("a DELETE with a key list")
		;;
	mod)
		grep -q 'MOD(`id`, 2)' <<<"$first" || bad_plan+=("first line does not say MOD(\`id\`, 2)")
		grep -qv 'MOD(`id`, 2) = [01] AND INTERVAL(CRC32(`id`), ' "$preds" &&
			bad_plan+=("a DELETE without MOD(\`id\`, 2) and CRC32(\`id\`)")
		grep -q '`id` IN (' "$preds" && bad_plan+=("a DELETE with a key list")
		;;
	slots)
		grep -q 'MOD(CRC32(`id`), 16384)' <<<"$first" || bad_plan+=("first line does not say MOD(CRC32(\`id\`), 16384)")
		grep -qv 'MOD(`id`, 2) = [01] AND INTERVAL(MOD(CRC32(`id`), 16384), ' "$preds" &&
			bad_plan+=("a DELETE without MOD(\`id\`, 2) and the slots of MOD(CRC32(\`id\`), 16384)")
		grep -q '`id` IN (' "$preds" && bad_plan+=("a DELETE with a key list")
		;;
	keys)
		grep -qi 'key list' <<<"$first" || bad_plan+=("first line does not say key lists")
		grep -qv '^`id` IN (' "$preds" && bad_plan+=("a DELETE without a key list")
		grep -qi -e 'CRC32(' -e 'MD5(' "$preds" && bad_plan+=("a DELETE with CRC32() or MD5()")
		;;
	esac
	if [[ $extras == *,wrap,* ]]; then
		# the two halves of the range across 0, and the keys in them
		local across
		across=$(pg -c "SELECT count(DISTINCT r.lo) || ' ' || count(m.key)
						FROM chash_moved_ranges('$from', '$to') r
						LEFT JOIN chash_moved_keys('$from', '$to', 'items', 'id') AS m(key bigint, f text, t text)
						  ON chash_position('$from', m.key) BETWEEN r.lo AND r.hi
						WHERE r.lo = 0 OR r.hi = 4294967295")
		if [ "${across%% *}" = 2 ] && [ "${across#* }" -gt 0 ]; then
			echo "  $label: plan: the range across 0 moves, in two halves, with ${across#* } keys"
		else
			bad_plan+=("the range across 0 does not move with keys (halves, keys: $across)")
		fi
	fi
	if [ ${#bad_plan[@]} -gt 0 ]; then
		printf '  %s: plan: %s FAILED\n' "$label" "${bad_plan[@]}"
		failed=1
	fi

	[ "$guard" = none ] || guard_test "$label" "$plan" "$guard"

	# run it
	t0=$(now_us)
	if ! my <"$plan" >"$work/run-$label.out" 2>"$work/run-$label.err"; then
		echo "  $label: the plan failed in MariaDB: FAILED" >&2
		head -c 2000 "$work/run-$label.err" >&2
		failed=1
	fi
	t_run=$(($(now_us) - t0))
	dump_shards "$label-after"
	run_checks "$label" "$from" "$to" "$label-before" "$label-after" "$new_node" || failed=1

	if [[ $extras == *,rerun,* ]]; then
		local changed
		if ! my <"$plan" >"$work/rerun-$label.out" 2>"$work/rerun-$label.err"; then
			echo "  $label: rerun: the plan failed the second time: FAILED" >&2
			head -c 2000 "$work/rerun-$label.err" >&2
			failed=1
		fi
		dump_shards "$label-rerun"
		changed=$(differences "$label-after" "$label-rerun")
		if [ "$changed" -eq 0 ]; then
			echo "  $label: rerun: the plan, run a second time, changed nothing"
		else
			echo "  $label: rerun: the plan, run a second time, changed $changed rows FAILED"
			failed=1
		fi
	fi
	[[ $extras != *,selftest,* ]] || self_test "$label" "$from" "$to"

	local figures row
	# not read < <(...): a process substitution's failure would go unseen
	row=$(pg -F ' ' -c "
		SELECT (SELECT count(*) FROM items),
			   count(*),
			   count(*) FILTER (WHERE from_node = 'db1'),
			   count(*) FILTER (WHERE from_node = 'db2')
		FROM chash_moved_keys('$from', '$to', 'items', 'id') AS m(key bigint, from_node text, to_node text)")
	read -r -a figures <<<"$row"
	summary+=("$(printf '%-8s %-6s %s %5s %7s %6s %6s %6s  %s' "$label" "$kind" \
		"$(printf '%7s %6s %7s %7s' "${figures[@]}")" "$txns" "$((bytes / 1024))" \
		"$(seconds "$t_load")" "$(seconds "$t_plan")" "$(seconds "$t_run")" "$guard")")
}

# The checks can fail: by hand, move a row that stays, copy another, change
# a third; the checks that must see it fail, the others pass
self_test() {
	local label=$1 from=$2 to=$3 stay1 stay2 moved out
	stay1=$(my -e "SELECT id FROM shard1.items ORDER BY id LIMIT 1")
	stay2=$(my -e "SELECT id FROM shard2.items ORDER BY id LIMIT 1")
	moved=$(my -e "SELECT id FROM shard3.items ORDER BY id LIMIT 1")
	my -e "START TRANSACTION;
		   INSERT INTO shard3.items SELECT * FROM shard1.items WHERE id = $stay1;
		   DELETE FROM shard1.items WHERE id = $stay1;
		   INSERT INTO shard3.items SELECT * FROM shard2.items WHERE id = $stay2;
		   UPDATE shard3.items SET qty = qty + 1 WHERE id = $moved;
		   COMMIT"
	dump_shards "$label-tampered"
	out=$(pg -c "SELECT name || '|' || bad FROM checks('$from', '$to', 'db3', '$label-before', '$label-tampered')")
	local expected="moved keys go to db3|0
moved keys are the keys chash_lookup moves|0
before: shards hold items as the from ring routes them|0
after: each shard gained exactly the ids moved to it|2
after: ids in two shards|1
after: ids missing|0
after: ids not in the shard the to ring names|2
after: rows changed|3
after: each shard lost exactly the ids moved from it|1"
	if [ "$out" = "$expected" ]; then
		echo "  $label: self-test: rows moved, copied and changed by hand fail the checks they should"
	else
		echo "  $label: self-test FAILED: rows moved, copied and changed by hand gave" >&2
		sed 's/^/    /' <<<"$out" >&2
		failed=1
	fi
}

t_all=$(now_us)
scenario crc32 m2 m3 crc32 stray wrap,rerun,selftest "chash_ring_create('m2', hash => 'crc32', vnodes => 170)"
scenario xxh3_64 x2 x3 keys trigger rerun "chash_ring_create('x2')"
scenario ketama k2 k3 md5 none none "chash_ring_create('k2', algorithm => 'ketama')"
# the split most users start from: id % 2, to a ring of three
export PGOPTIONS="-c search_path=nonneg,public"
scenario mod2 p2 p3 mod none rerun "chash_ring_create('p2', algorithm => 'modulo', key_hash => 'identity')" \
	"chash_ring_create('p3', hash => 'crc32')"
scenario mod2_x q2 q3 keys none none "chash_ring_create('q2', algorithm => 'modulo', key_hash => 'identity')" \
	"chash_ring_create('q3')"
# and to Redis-style slots of CRC32, split over three
scenario mod2_s s2 s3 slots none none "chash_ring_create('s2', algorithm => 'modulo', key_hash => 'identity')" \
	"chash_ring_create('s3', algorithm => 'slots', key_hash => 'crc32')"
unset PGOPTIONS
t_all=$(($(now_us) - t_all))

echo "== summary ($mysql_version; MariaDB up in $(seconds "$t_mariadb") s, keys in $(seconds "$t_setup") s, rings in $(seconds "$t_all") s)"
printf '  %-8s %-6s %7s %6s %7s %7s %5s %7s %6s %6s %6s  %s\n' ring pred rows moved from_db1 from_db2 txns plan_KiB load_s plan_s run_s guard
printf '  %s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
	echo "migrate_mysql: FAILED" >&2
	exit 1
fi
echo "migrate_mysql: all checks passed"
