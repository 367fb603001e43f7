#!/usr/bin/env bash
# An updated extension is the fresh one: for every released version v,
# CREATE EXTENSION chash VERSION 'v' then ALTER EXTENSION chash UPDATE gives
# exactly what CREATE EXTENSION chash gives, compared three ways:
#
#   - test/scripts/lib/describe_extension.sql: the members, every
#     function's and view's definition, columns in order, constraints,
#     indexes, triggers with their enabled state, privileges, comments,
#     sequences, extconfig;
#   - pg_dump --schema-only;
#   - pg_dump --schema-only --binary-upgrade, which writes out every member
#     (OIDs taken out).
#
# The install script is made from sql/src/ and each update ends with the
# update made from the same sources, so this is what proves the hand-written
# parts of the updates (sql/updates/) right.  Any difference fails.
#
# Against the server in PGHOST/PGPORT/PGUSER (test/bin/with-cluster.sh provides
# one; chash installed but not created anywhere).  Drops the databases it
# created, whatever happens.
#
#   test/bin/with-cluster.sh test/scripts/upgrade_equals_fresh.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)
describe=test/scripts/lib/describe_extension.sql

dev=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" chash.control)
[ -n "$dev" ] || { echo "upgrade_equals_fresh: no default_version in chash.control" >&2; exit 1; }
versions=$(awk '$1 !~ /^#/ && NF { print $1 }' sql/released.sha256 | sort -u -V)
[ -n "$versions" ] || { echo "upgrade_equals_fresh: no released version in sql/released.sha256" >&2; exit 1; }

tag=$$
created=()
failures=0
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-upgrade.XXXXXX")
cleanup() {
	local rc=$?
	if [ $rc -ne 0 ] && [ $failures -eq 0 ]; then
		echo "upgrade_equals_fresh: FAILED (a step failed, exit status $rc)" >&2
	fi
	for db in "${created[@]}"; do
		"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 ||
			echo "upgrade_equals_fresh: could not drop database $db" >&2
	done
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

# the three descriptions of database $1, into $work/$2.*
snapshot() {
	"${psql[@]}" -At -d "$1" -f "$describe" >"$work/$2.describe"
	"$bindir/pg_dump" --schema-only -d "$1" |
		grep -v -e '^\\restrict ' -e '^\\unrestrict ' >"$work/$2.dump"
	# OIDs and transaction ids differ between any two databases: the lines
	# of binary_upgrade_set_next_* only name OIDs, the extension's config
	# tables are listed by OID (the catalog's description compares them by
	# name), and so are toast tables
	"$bindir/pg_dump" --schema-only --binary-upgrade -d "$1" |
		grep -v -e '^\\restrict ' -e '^\\unrestrict ' -e 'binary_upgrade_set_next_' |
		sed -e "/binary_upgrade_create_empty_extension/s/'{[0-9,]*}'/'{OIDS}'/" \
			-e "s/relfrozenxid = '[0-9]*'/relfrozenxid = 'XID'/" \
			-e "s/^WHERE oid = '[0-9]*';\$/WHERE oid = 'OID';/" >"$work/$2.binary"
	local f
	for f in describe dump binary; do
		if [ ! -s "$work/$2.$f" ]; then
			echo "upgrade_equals_fresh: the $f of database $1 is empty" >&2
			exit 1
		fi
	done
}

fresh=chash_fresh_$tag
"$bindir/createdb" "$fresh"
created+=("$fresh")
"${psql[@]}" -d "$fresh" -c 'CREATE EXTENSION chash'
snapshot "$fresh" fresh
got=$("${psql[@]}" -At -d "$fresh" -c "SELECT extversion FROM pg_extension WHERE extname = 'chash'")
[ "$got" = "$dev" ] || { echo "upgrade_equals_fresh: CREATE EXTENSION made version $got, not $dev" >&2; exit 1; }
items=$(wc -l <"$work/fresh.describe")
members=$(grep -c '^member ' "$work/fresh.describe")

checked=0
for v in $versions; do
	db=chash_from_${v//./_}_$tag
	"$bindir/createdb" "$db"
	created+=("$db")
	"${psql[@]}" -d "$db" -c "CREATE EXTENSION chash VERSION '$v'" -c 'ALTER EXTENSION chash UPDATE'
	got=$("${psql[@]}" -At -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'chash'")
	if [ "$got" != "$dev" ]; then
		echo "  FAIL  $v updated to version $got, not $dev"
		failures=$((failures + 1))
		continue
	fi
	snapshot "$db" "from-$v"
	for f in describe dump binary; do
		case $f in
		describe) what="the catalog ($items lines, $members members)" ;;
		dump) what="pg_dump --schema-only" ;;
		binary) what="pg_dump --schema-only --binary-upgrade" ;;
		esac
		if diff -u "$work/fresh.$f" "$work/from-$v.$f" >"$work/diff"; then
			echo "  ok    $v updated to $dev equals a fresh $dev: $what"
		else
			echo "  FAIL  $v updated to $dev differs from a fresh $dev in $what (- fresh, + updated):"
			head -n 60 "$work/diff" | sed 's/^/        /'
			failures=$((failures + 1))
		fi
		checked=$((checked + 1))
	done
done

if [ "$failures" -gt 0 ]; then
	echo "upgrade_equals_fresh: $failures of $checked comparisons differ" >&2
	exit 1
fi
echo "upgrade_equals_fresh: every released version ($(echo $versions)) updated to $dev equals a fresh $dev ($checked comparisons)"
