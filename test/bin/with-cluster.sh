#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster, then stop it and
# remove it, whatever the command's outcome.
#
#   test/bin/with-cluster.sh COMMAND [ARG...]
#
# The cluster listens on a Unix socket in a private directory only.  As
# root it runs as the postgres user (PostgreSQL will not run as root).
# JIT is off (CHASH_JIT=on for PostgreSQL's default): the suites' checking
# queries cost enough to be compiled, which took more time than they ran,
# and JIT decides nothing of chash's results; the regression and
# isolation suites turn it back on for their sessions (test/bin/run-suites.sh).
# chash is in shared_preload_libraries, so that rings are shared across
# backends (chash.shared_rings) on every major, 14 to 16 too; the
# REGRESS_unshared and ISOLATION_unshared suites turn sharing off.
# CHASH_PRELOAD=off leaves it out (the package suite installs the library
# while its server runs, and checks that a new backend maps that one).
# CHASH_SERVER_OPTIONS: more settings for the server ("-c name=value ...").
# The command gets PGHOST, PGPORT, PGUSER and PGDATABASE, and CHASH_PGDATA,
# CHASH_PGLOG for tests that look at the server itself.
set -euo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-pg.XXXXXX")
chmod 755 "$tmp"

if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$tmp"
	as_owner() { (cd "$tmp" && runuser -u postgres -- "$@"); }
	pguser=postgres
else
	as_owner() { (cd "$tmp" && "$@"); }
	pguser=$(id -un)
fi

stop_cluster() {
	local rc=$?
	if [ -f "$tmp/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$tmp/data" -m fast -w stop >/dev/null 2>&1 ||
			as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc -ne 0 ] && [ -f "$tmp/server.log" ]; then
		echo "--- last lines of the server log ($tmp/server.log) ---" >&2
		tail -n 20 "$tmp/server.log" >&2 || true
	fi
	rm -rf "$tmp"
	exit $rc
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

as_owner "$bindir/initdb" -D "$tmp/data" -U "$pguser" -A trust -E UTF8 \
	--locale=C --no-sync >"$tmp/initdb.log" 2>&1 || {
	cat "$tmp/initdb.log" >&2
	exit 1
}
preload="-c shared_preload_libraries=chash"
[ "${CHASH_PRELOAD:-on}" = on ] || preload=
as_owner "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w \
	-o "-c listen_addresses='' -k $tmp -c port=5432 -c fsync=off -c max_prepared_transactions=10 -c jit=${CHASH_JIT:-off} $preload ${CHASH_SERVER_OPTIONS:-}" \
	start >/dev/null

export PGHOST=$tmp PGPORT=5432 PGUSER=$pguser PGDATABASE=postgres
export CHASH_PGDATA=$tmp/data CHASH_PGLOG=$tmp/server.log
"$@"
