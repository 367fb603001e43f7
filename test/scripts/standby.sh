#!/usr/bin/env bash
# A hot standby routes as its primary does: ring changes replayed from WAL
# invalidate the standby's cached rings, and a standby session builds a
# ring once per change, also while the primary has a transaction with more
# subtransactions than a standby snapshot can list.
#
#   test/bin/with-cluster.sh test/scripts/standby.sh    (the cluster is the primary)
set -euo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
. "$(dirname "$0")/lib/sharing.sh"
: "${PGHOST:?run under test/bin/with-cluster.sh}"
primary_host=$PGHOST
primary_port=$PGPORT
db=chash_standby_$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-standby.XXXXXX")
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$tmp"
	as_owner() { (cd "$tmp" && runuser -u postgres -- "$@"); }
else
	as_owner() { (cd "$tmp" && "$@"); }
fi

cleanup() {
	local rc=$?
	pkill -f "$tmp/holder.sql" 2>/dev/null || true
	if [ -f "$tmp/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc -ne 0 ] && [ -f "$tmp/standby.log" ]; then tail -n 20 "$tmp/standby.log" >&2; fi
	"$bindir/dropdb" -h "$primary_host" -p "$primary_port" --if-exists "$db" >/dev/null 2>&1 || true
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT

primary() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$primary_host" -p "$primary_port" -d "$db" "$@"; }

"$bindir/createdb" -h "$primary_host" -p "$primary_port" "$db"
primary -c "CREATE EXTENSION chash" \
	-c "SELECT chash_ring_create('r', vnodes => 40)" \
	-c "SELECT chash_node_add('r', n) FROM unnest(ARRAY['a', 'b', 'c']) n" \
	-c "CREATE TABLE filler (i integer)" >/dev/null

# the standby loads what its primary loads: chash, so that its backends
# share rings as the primary's do (on 14 to 16 that needs the preload)
preload=$(primary -c "SHOW shared_preload_libraries")
sharing=$(expected_sharing primary)
as_owner "$bindir/pg_basebackup" -h "$primary_host" -p "$primary_port" -U "$PGUSER" \
	-D "$tmp/data" -R -X stream -c fast >/dev/null
# (a standby needs max_prepared_transactions at least the primary's)
as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/standby.log" -w \
	-o "-c listen_addresses='' -k $tmp -c port=5433 -c hot_standby=on -c max_prepared_transactions=10 -c shared_preload_libraries='$preload'" \
	start >/dev/null

# The shell commands a standby session runs between its statements: make
# the primary's WAL so far replayed on the standby.  A commit with an xid
# flushes all WAL before it, also that of transactions still running.
cat >"$tmp/sync.sh" <<SH
lsn=\$("$bindir/psql" -X -At -h "$primary_host" -p "$primary_port" -d "$db" -c "SELECT txid_current()" -c "SELECT pg_current_wal_insert_lsn()" | tail -n 1)
for i in \$(seq 1 100); do
	done=\$("$bindir/psql" -X -At -h "$tmp" -p 5433 -d "$db" -c "SELECT pg_last_wal_replay_lsn() >= '\$lsn'")
	[ "\$done" = t ] && exit 0
	sleep 0.1
done
echo "standby did not catch up" >&2
exit 1
SH
chmod 755 "$tmp/sync.sh"
as_owner sh "$tmp/sync.sh"

# A transaction on the primary with 70 subtransactions that each wrote,
# held open: the standby's snapshots then overflow
cat >"$tmp/holder.sql" <<'SQL'
BEGIN;
DO $$
BEGIN
	FOR i IN 1..70 LOOP
		BEGIN
			INSERT INTO filler VALUES (i);
		EXCEPTION WHEN OTHERS THEN
			RAISE;
		END;
	END LOOP;
END
$$;
SELECT pg_sleep(60);
SQL

# One standby session through the whole test
cat >"$tmp/standby.sql" <<SQL
\\set ON_ERROR_STOP on
\\pset tuples_only on
\\pset format unaligned
SELECT 'before', array_agg(DISTINCT chash_lookup('r', g) ORDER BY chash_lookup('r', g)) FROM generate_series(1, 1000) g;
\\! "$bindir/psql" -X -q -h "$primary_host" -p "$primary_port" -d "$db" -c "SELECT chash_node_set('r', 'a', state => 'down')" >/dev/null && sh "$tmp/sync.sh"
SELECT 'after a is down', array_agg(DISTINCT chash_lookup('r', g) ORDER BY chash_lookup('r', g)) FROM generate_series(1, 1000) g;
\\! "$bindir/psql" -X -q -h "$primary_host" -p "$primary_port" -d "$db" -c "UPDATE chash.node_config SET state = 'active' WHERE node = 'a'" >/dev/null && sh "$tmp/sync.sh"
SELECT 'after a is back', array_agg(DISTINCT chash_lookup('r', g) ORDER BY chash_lookup('r', g)) FROM generate_series(1, 1000) g;
\\! "$bindir/psql" -X -q -h "$primary_host" -p "$primary_port" -d "$db" -f "$tmp/holder.sql" >/dev/null 2>&1 & sleep 2; sh "$tmp/sync.sh"
SELECT 'primary transaction running on the standby', pg_snapshot_xmin(pg_current_snapshot()) < pg_snapshot_xmax(pg_current_snapshot());
SELECT set_config('test.builds', builds::text, false) IS NOT NULL FROM chash.cache_stats();
SELECT 'overflowed snapshots', bool_and(chash_lookup('r', g) IS NOT NULL) FROM generate_series(1, 1000) g, generate_series(1, 10) s GROUP BY s ORDER BY 2 LIMIT 1;
SELECT 'builds for 10 statements', builds - current_setting('test.builds')::bigint FROM chash.cache_stats();
SQL
# the ten statements of the last step must be separate statements.  The
# statements between the checks print "t" each, left out below; an "f"
# stays and fails the comparison.  (The line of the overflowed snapshots
# is that of the first group of lookups that failed, if any: ORDER BY 2.)
for i in $(seq 1 9); do
	sed -i "s/^SELECT 'builds for 10 statements'/SELECT chash_lookup('r', 'k$i') IS NOT NULL;\n&/" "$tmp/standby.sql"
done

out=$("$bindir/psql" -X -q -h "$tmp" -p 5433 -d "$db" -f "$tmp/standby.sql" | grep -v '^t$' || true)
pkill -f "$tmp/holder.sql" 2>/dev/null || true
# standby backends share rings as the primary's do (chash.shared_rings on,
# the default, or off: standby_unshared)
out="$out
sharing $sharing: a second session|$(sharing_seen r "$bindir/psql" -h "$tmp" -p 5433 -d "$db" | sed 's/^[a-z]* //')"
echo "$out" | sed 's/^/  /'
expected="before|{a,b,c}
after a is down|{b,c}
after a is back|{a,b,c}
primary transaction running on the standby|t
overflowed snapshots|t
builds for 10 statements|0
sharing $sharing: a second session|$([ "$sharing" = on ] && echo mapped || echo built)"
if [ "$out" = "$expected" ]; then
	echo "standby: all checks passed"
else
	echo "standby: FAILED; expected:" >&2
	echo "$expected" | sed 's/^/  /' >&2
	exit 1
fi
