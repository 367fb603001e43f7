#!/usr/bin/env bash
# What a release carries agrees with itself: chash.control's version is
# META.json's, the Debian changelog's, the library's (on 18, which shows
# it) and the newest install script's; every earlier version has a script
# path to it and updates to it with routes unchanged; META.json is what PGXN
# needs; LICENSE is the licence META.json names; and `make dist` gives a
# tarball of the committed tree that builds and installs with PGXS alone.
#
#   test/bin/with-cluster.sh test/scripts/release.sh
#
# CHASH_RELEASE_NO_DIST=1 leaves make dist out (a tree without git).
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -At -v ON_ERROR_STOP=1)
tag=$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-release.XXXXXX")
dbs=()

cleanup() {
	local rc=$?
	for db in "${dbs[@]}"; do
		"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

failures=0
checks=0
pass() {
	checks=$((checks + 1))
	echo "  ok    $1"
}
fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "  FAIL  $1" >&2
}
same() {
	if [ "$2" = "$3" ]; then pass "$1: $2"; else fail "$1: '$2', expected '$3'"; fi
}
# lists, one item a line: the count when they agree, the difference if not
same_list() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		pass "$1: $(echo "$2" | wc -l)"
	else
		fail "$1 differ:"
		diff <(echo "$2") <(echo "$3") >&2 || true
	fi
}

control=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" chash.control)
[ -n "$control" ] || {
	echo "release: chash.control has no default_version" >&2
	exit 1
}
# PGXN versions are semantic versions: 1.2 is 1.2.0
semver=$control
[[ $semver =~ ^[0-9]+\.[0-9]+$ ]] && semver=$semver.0

# META.json, read by Python's json (a syntax error fails here)
python3 - "$semver" >"$work/meta.txt" <<'PY'
import json, sys
meta = json.load(open("META.json"))
print("version", meta["version"])
print("provides", meta["provides"]["chash"]["version"])
print("file", meta["provides"]["chash"]["file"])
print("docfile", meta["provides"]["chash"].get("docfile", ""))
print("license", meta["license"])
print("spec", meta["meta-spec"]["version"])
print("pg", meta["prereqs"]["runtime"]["requires"]["PostgreSQL"])
for key in ("name", "abstract", "maintainer", "provides", "prereqs", "meta-spec"):
    print("has", key, bool(meta.get(key)))
PY
meta() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$work/meta.txt"; }
same "META.json version" "$(meta version)" "$semver"
same "META.json provides chash" "$(meta provides)" "$semver"
for key in name abstract maintainer provides prereqs meta-spec; do
	same "META.json has $key" "$(awk -v k="$key" '$1 == "has" && $2 == k { print $3 }' "$work/meta.txt")" True
done
same "META.json meta-spec" "$(meta spec)" 1.0.0
for f in "$(meta file)" "$(meta docfile)"; do
	if [ -n "$f" ] && [ -f "$f" ]; then
		pass "META.json names $f, which is in the tree"
	else
		fail "META.json names '$f', which is not in the tree"
	fi
done
same "META.json licence" "$(meta license)" postgresql
same "LICENSE" "$(head -n 1 LICENSE)" "PostgreSQL License"

# the oldest major META.json and Debian's pgversions name agree
same "META.json's oldest PostgreSQL" "$(meta pg)" "$(sed -n 's/^\([0-9]*\)+$/\1.0.0/p' debian/pgversions)"

# Debian: the changelog's upstream version, before the Debian revision
deb_version=$(sed -n '1s/^chash (\([^)]*\)).*/\1/p' debian/changelog)
same "debian/changelog" "${deb_version%-*}" "$control"

# the scripts: versions they name, the newest of them the default
mapfile -t versions < <(ls sql/ | sed -n 's/^chash--\([0-9.]*\)\.sql$/\1/p; s/^chash--[0-9.]*--\([0-9.]*\)\.sql$/\1/p' | sort -uV)
same "newest version of sql/" "${versions[-1]}" "$control"

db=chash_release_$tag
dbs+=("$db")
"$bindir/createdb" "$db"
# the server sees the same versions, and a path from each to the default
available=$("${psql[@]}" -d "$db" -c "SELECT string_agg(version, ' ' ORDER BY string_to_array(version, '.')::int[]) FROM pg_available_extension_versions WHERE name = 'chash'")
same "versions installed" "$available" "${versions[*]}"
paths=$("${psql[@]}" -d "$db" -c "SELECT count(*) FROM pg_extension_update_paths('chash') WHERE target = '$control' AND source <> target AND path IS NOT NULL")
same "versions with an update path to $control" "$paths" "$((${#versions[@]} - 1))"

# the library: on 18 a module says its version
"${psql[@]}" -d "$db" -c "CREATE EXTENSION chash" -c "SELECT chash_hash('xxh3_64', 'k')" >/dev/null
server=$("${psql[@]}" -d "$db" -c "SHOW server_version_num")
if [ "$server" -ge 180000 ]; then
	same "library version (pg_get_loaded_modules)" \
		"$("${psql[@]}" -d "$db" -c "SELECT chash_hash('xxh3_64', 'k') IS NOT NULL; SELECT version FROM pg_get_loaded_modules() WHERE module_name = 'chash'" | tail -n 1)" \
		"$control"
else
	echo "  --    library version: a server before 18 does not show it (compiled from chash.control by the Makefile)"
fi

# each earlier version updates to the default, with the same routes
for v in "${versions[@]}"; do
	[ "$v" = "$control" ] && continue
	db=chash_release_${tag}_${v//./_}
	dbs+=("$db")
	"$bindir/createdb" "$db"
	out=$("${psql[@]}" -d "$db" <<SQL
CREATE EXTENSION chash VERSION '$v';
SELECT chash_ring_create('r') \\g /dev/null
SELECT chash_node_add('r', 'node-' || i) FROM generate_series(1, 5) i \\g /dev/null
CREATE TABLE routes AS SELECT k, chash_lookup('r', k) AS node FROM (SELECT 'key-' || g AS k FROM generate_series(1, 10000) g) s;
ALTER EXTENSION chash UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'chash';
SELECT count(*) || ' ' || count(*) FILTER (WHERE chash_lookup('r', k) = node) FROM routes;
SQL
	)
	same "update from $v" "$(echo "$out" | tr '\n' ' ')" "$control 10000 10000 "
done

# make dist: the committed tree, built and installed with PGXS only (not
# in make test-versions' copies of the tree, which have no git: it says so)
if [ -n "${CHASH_RELEASE_NO_DIST:-}" ]; then
	echo "  --    make dist: not in this run (CHASH_RELEASE_NO_DIST)"
	echo "release: $((checks - failures)) of $checks checks passed"
	[ "$failures" -eq 0 ] && [ "$checks" -gt 0 ]
	exit
fi
make -s dist
tarball=build/chash-$semver.tar.gz
if [ -s "$tarball" ]; then pass "make dist wrote $tarball"; else fail "make dist wrote no $tarball"; fi
tar -xzf "$tarball" -C "$work"
dist=$work/chash-$semver
listed=$(cd "$dist" && find . -type f | sed 's|^\./||' | sort)
same_list "files in the tarball" "$listed" "$(git ls-tree -r --name-only HEAD | sort)"
make -s -j"$(nproc)" -C "$dist" PG_CONFIG="${PG_CONFIG:-pg_config}" >"$work/dist-build.log" 2>&1 || {
	cat "$work/dist-build.log" >&2
	fail "the tarball does not build with PGXS"
}
make -s -C "$dist" PG_CONFIG="${PG_CONFIG:-pg_config}" DESTDIR="$work/dest" install >>"$work/dist-build.log" 2>&1 ||
	fail "the tarball does not install with PGXS"
pkglibdir=$("${PG_CONFIG:-pg_config}" --pkglibdir)
sharedir=$("${PG_CONFIG:-pg_config}" --sharedir)
installed=$(cd "$work/dest" && find . -type f \( -name 'chash.so' -o -path '*/extension/chash*' \) | sed 's|^\./||' | sort)
expected=$( (
	echo "${pkglibdir#/}/chash.so"
	echo "${sharedir#/}/extension/chash.control"
	# the released scripts, as committed (sql/ holds their checksums too,
	# which are not installed), and the two that make writes from the
	# sources: the install script of the version in development and the
	# update to it
	for f in $(git ls-tree --name-only HEAD sql/ | grep '^sql/chash--.*\.sql$'); do echo "${sharedir#/}/extension/${f#sql/}"; done
	echo "${sharedir#/}/extension/chash--$control.sql"
	for f in sql/updates/*--"$control".sql; do echo "${sharedir#/}/extension/chash--${f#sql/updates/}"; done
) | sort)
same_list "files the tarball installs" "$installed" "$expected"

echo "release: $((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ] && [ "$checks" -gt 0 ]
