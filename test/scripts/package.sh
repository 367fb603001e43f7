#!/usr/bin/env bash
# The Debian package postgresql-NN-chash, installed and removed, on the
# Debian PostgreSQL that pg_config names (the one make test installs the
# tree's build into).  Needs root, or sudo for dpkg.
#
#   test/scripts/package.sh
#
# test/bin/deb.sh builds build/deb/postgresql-NN-chash_VERSION_ARCH.deb first
# when there is none, or when a file it is built from is newer (any file of
# the tree but those of test/ outside test/sql/ and test/specs/).  Then, on a
# throwaway cluster of its own (test/bin/with-cluster.sh):
#   1. the tree's build, installed by test/bin/install.sh (no package owns its
#      files): the routes and values of the queries below
#   2. dpkg -i: chash.so, chash.control and every script of sql/ owned by
#      the package, the package's extension files exactly those, chash.so
#      byte for byte the .deb's and the one the server maps; the same
#      routes and values as the tree's build, and the published ones; DROP
#      EXTENSION
#   3. dpkg -r: the package's files gone, chash no longer available, CREATE
#      EXTENSION failing for want of chash.control
# dpkg -i overwrites the tree's files and dpkg -r deletes them, while the
# later suites of make test need them: at the end, also when a check fails,
# the package is removed if installed and test/bin/install.sh installs the
# tree's build again, checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
self=$root/test/scripts/package.sh
# dpkg's and psql's messages are matched below
export LC_ALL=C

say() { echo "package: $*"; }
fail() {
	echo "package: FAIL $*" >&2
	exit 1
}
ok() { echo "  ok    $*"; }
# same NAME GOT WANT
same() {
	if [ "$2" = "$3" ]; then ok "$1: $2"; else fail "$1: '$2', expected '$3'"; fi
}

# the package owning a file, "-" if none; fails if dpkg cannot say
owner_of() {
	local out
	if out=$(dpkg-query -S "$1" 2>&1); then
		echo "${out%%: *}"
	elif [[ $out == *"no path found matching pattern $1"* ]]; then
		echo -
	else
		echo "package: dpkg-query -S $1: $out" >&2
		return 1
	fi
}

# dpkg's state of a package: installed, not-installed, config-files, ...
state_of() {
	local out
	if out=$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>&1); then
		echo "$out"
	elif [[ $out == *"no packages found matching $1"* ]]; then
		echo not-installed
	else
		echo "package: dpkg-query -W $1: $out" >&2
		return 1
	fi
}

# the queries, one "name|value" line each, run on the tree's build and on
# the package's: README's examples, published hash values (zlib's CRC-32,
# libxxhash's XXH64, nettle's MD5 as PostgreSQL's md5() gives it), and
# routes: every key on a node of the ring, each as the first point
# clockwise of chash_points says, and digests of 10,000 routes of text,
# int8 and uuid keys on a ring and a ketama ring
routes_sql() {
	cat <<'SQL'
\set ON_ERROR_STOP 1
CREATE EXTENSION chash;
SELECT 'version|' || extversion FROM pg_extension WHERE extname = 'chash';
SELECT chash_ring_create('users') \g /dev/null
SELECT chash_node_add('users', 'pg1') \g /dev/null
SELECT chash_node_add('users', 'pg2') \g /dev/null
SELECT chash_node_add('users', 'pg3', weight => 2, zone => 'eu-west') \g /dev/null
SELECT chash_ring_create('memcached', algorithm => 'ketama') \g /dev/null
SELECT 'readme|' || concat_ws(' ',
    chash_lookup('users', 'alice@example.com'), chash_lookup('users', 42),
    chash_lookup('users', '42'),
    chash_lookup('users', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
    chash_lookup_n('users', 'alice@example.com', 2),
    chash_position('users', 'alice@example.com'),
    chash_position('memcached', 'foo'));
SELECT 'hashes|' || concat_ws(' ', chash_hash('crc32', 'MySQL'),
    to_hex(chash_hash('xxh64', '')), chash_hash('md5', 'foo'));
SELECT 'md5|' || count(*) FILTER (WHERE chash_hash('md5', k) =
        ('x' || substr(m, 7, 2) || substr(m, 5, 2) || substr(m, 3, 2) || substr(m, 1, 2))::bit(32)::bigint)
    || '/' || count(*)
FROM (SELECT 'key-' || g AS k, md5('key-' || g) AS m FROM generate_series(1, 1000) g) s;
SELECT chash_ring_create('r') \g /dev/null
SELECT chash_node_add('r', 'node-' || i) FROM generate_series(1, 5) i \g /dev/null
SELECT chash_ring_create('mc', algorithm => 'ketama') \g /dev/null
SELECT chash_node_add('mc', '10.0.0.' || i || ':11211', weight => i) FROM generate_series(1, 4) i \g /dev/null
CREATE TEMP TABLE routes AS
SELECT g, 'key-' || g AS k, chash_lookup('r', 'key-' || g) AS node
FROM generate_series(1, 10000) g;
SELECT 'routes|' || count(node) || ' keys ' || count(DISTINCT node) || ' nodes '
    || count(*) FILTER (WHERE node NOT IN (SELECT node FROM chash.nodes WHERE ring = 'r'))
    || ' elsewhere'
FROM routes;
WITH p AS MATERIALIZED (SELECT point, node FROM chash_points('r'))
SELECT 'reference|' || count(*) FILTER (WHERE node = coalesce(
        (SELECT p.node FROM p WHERE p.point >= chash_position('r', k) ORDER BY p.point LIMIT 1),
        (SELECT p.node FROM p ORDER BY p.point LIMIT 1)))
    || '/' || count(*)
FROM routes WHERE g <= 2000;
SELECT 'points|' || count(*) || ' ' || md5(string_agg(point || ' ' || vnode, ',' ORDER BY point, vnode))
FROM chash_points('r');
SELECT 'text|' || md5(string_agg(node, ',' ORDER BY g)) FROM routes;
SELECT 'int8|' || md5(string_agg(chash_lookup('r', g::int8), ',' ORDER BY g))
FROM generate_series(1, 10000) g;
SELECT 'uuid|' || md5(string_agg(chash_lookup('r', md5(g::text)::uuid), ',' ORDER BY g))
FROM generate_series(1, 10000) g;
SELECT 'ketama|' || md5(string_agg(chash_lookup('mc', 'key-' || g), ',' ORDER BY g))
FROM generate_series(1, 10000) g;
SELECT 'replicas|' || md5(string_agg(array_to_string(chash_lookup_n('r', 'key-' || g, 3), ' '), ',' ORDER BY g))
FROM generate_series(1, 10000) g;
SQL
}
# the names of the values, in order
routes_names=$(routes_sql | grep -o "^SELECT '[a-z0-9]*|' ||" | cut -d"'" -f2 | tr -d '|' | tr '\n' ' ')
names_of() { cut -d'|' -f1 "$1" | tr '\n' ' '; }
[ -n "$routes_names" ] || fail "no named values in the queries"

# ---- in the cluster (test/bin/with-cluster.sh runs this script again) ----------
if [ "${1:-}" = --in-cluster ]; then
	major=$2 deb=$3 tmp=$4 pkg=postgresql-$2-chash
	pg_config=/usr/lib/postgresql/$major/bin/pg_config
	bindir=$("$pg_config" --bindir)
	pkglibdir=$("$pg_config" --pkglibdir)
	ext=$("$pg_config" --sharedir)/extension
	psql=("$bindir/psql" -X -q -At -v ON_ERROR_STOP=1)
	sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	control=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" chash.control)
	[ -n "$control" ] || fail "chash.control has no default_version"
	# the files chash installs: the library, the control file, the scripts
	mapfile -t scripts < <(cd sql && printf '%s\n' chash--*.sql)
	[ ${#scripts[@]} -gt 0 ] || fail "no sql/chash--*.sql"
	files=("$pkglibdir/chash.so" "$ext/chash.control")
	for s in "${scripts[@]}"; do files+=("$ext/$s"); done

	say "1. the tree's build"
	for f in "${files[@]}"; do
		[ -f "$f" ] || fail "$f is not installed (test/bin/install.sh)"
		same "owner of $f" "$(owner_of "$f")" -
	done
	"$bindir/createdb" chash_pkg_tree
	routes_sql | "${psql[@]}" -d chash_pkg_tree >"$tmp/tree.out"
	same "values of the tree's build" "$(names_of "$tmp/tree.out")" "$routes_names"

	say "2. dpkg -i $deb"
	"${sudo[@]}" dpkg -i "$deb"
	same "$pkg" "$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg")" "installed $version"
	for f in "$pkglibdir/chash.so" "$ext/chash.control" "${scripts[@]/#/$ext/}"; do
		same "owner of $f" "$(owner_of "$f")" "$pkg"
	done
	# the package's extension files are exactly the tree's
	dpkg-deb -x "$deb" "$tmp/deb"
	same "extension files of the package" \
		"$(cd "$tmp/deb/${ext#/}" && printf '%s ' *)" \
		"$(printf '%s\n' chash.control "${scripts[@]}" | sort | tr '\n' ' ')"
	cmp "$tmp/deb/${pkglibdir#/}/chash.so" "$pkglibdir/chash.so"
	ok "$pkglibdir/chash.so is the .deb's"
	"$bindir/createdb" chash_pkg_package
	routes_sql | "${psql[@]}" -d chash_pkg_package >"$tmp/package.out"
	# the library a backend of the server maps, by its inode
	mapped=$("${psql[@]}" -d chash_pkg_package \
		-c "SELECT chash_hash('xxh3_64', 'k') IS NOT NULL" \
		-c "SELECT pg_read_file('/proc/self/maps')" | awk '$6 ~ /\/chash\.so$/ { print $5, $6 }' | sort -u)
	same "chash.so the server maps (inode, path)" "$mapped" \
		"$(stat -c %i "$pkglibdir/chash.so") $pkglibdir/chash.so"
	same "values of the package" "$(names_of "$tmp/package.out")" "$routes_names"
	if diff -u "$tmp/tree.out" "$tmp/package.out"; then
		ok "the package's routes and values are the tree's build's"
	else
		fail "the package routes differently from the tree's build (diff above)"
	fi
	value() { sed -n "s/^$1|//p" "$tmp/package.out"; }
	same "version" "$(value version)" "$control"
	same "README's examples" "$(value readme)" "pg2 pg3 pg3 pg1 {pg2,pg3} 8569093714482247167 3675831724"
	same "crc32('MySQL'), xxh64(''), md5('foo')" "$(value hashes)" "3259397556 ef46db3751d8e999 3675831724"
	same "md5 as PostgreSQL's md5()" "$(value md5)" "1000/1000"
	same "routes of 10,000 keys" "$(value routes)" "10000 keys 5 nodes 0 elsewhere"
	same "routes as the next point of chash_points" "$(value reference)" "2000/2000"
	same "points of a ring of 5 nodes" "$(value points | cut -d' ' -f1)" 800
	"${psql[@]}" -d chash_pkg_package -c "DROP EXTENSION chash"
	same "after DROP EXTENSION: extensions, schema" \
		"$("${psql[@]}" -d chash_pkg_package -c "SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'chash') || ' ' || (SELECT count(*) FROM pg_namespace WHERE nspname = 'chash')")" \
		"0 0"

	say "3. dpkg -r $pkg"
	"${sudo[@]}" dpkg -r "$pkg"
	state=$(state_of "$pkg")
	case $state in
	not-installed | config-files) ok "$pkg: $state" ;;
	*) fail "$pkg: $state after dpkg -r" ;;
	esac
	n=0
	while IFS= read -r f; do
		f=${f#.}
		case $f in '' | */) continue ;; esac
		n=$((n + 1))
		if [ -e "$f" ] || [ -L "$f" ]; then fail "$f is still there"; fi
	done < <(dpkg-deb --fsys-tarfile "$deb" | tar -t)
	[ "$n" -gt 0 ] || fail "no files listed in $deb"
	ok "the package's $n files are gone"
	"$bindir/createdb" chash_pkg_removed
	same "chash available" \
		"$("${psql[@]}" -d chash_pkg_removed -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'chash'")" 0
	if err=$("${psql[@]}" -d chash_pkg_removed -c "CREATE EXTENSION chash" 2>&1); then
		fail "CREATE EXTENSION chash succeeded after dpkg -r"
	fi
	# "ERROR: could not open extension control file ..." in 15.0, and since
	# the minor releases of 2025 "ERROR: extension "chash" is not available",
	# "DETAIL: Could not open extension control file ..."
	want="could not open extension control file \"$ext/chash.control\": no such file or directory"
	if [[ ${err,,} == *"$want"* ]]; then
		ok "CREATE EXTENSION chash fails: $(echo "$err" | head -n 1)"
	else
		fail "CREATE EXTENSION chash failed otherwise: $err"
	fi
	exit 0
fi

# ---- outside the cluster -------------------------------------------------
pg_config=$(command -v "${PG_CONFIG:-pg_config}") || fail "no pg_config (${PG_CONFIG:-pg_config})"
major=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
[ -n "$major" ] || fail "cannot tell the major of $("$pg_config" --version)"
if [ "$("$pg_config" --bindir)" != "/usr/lib/postgresql/$major/bin" ]; then
	fail "$pg_config is not Debian's PostgreSQL $major (bindir $("$pg_config" --bindir)): the package is for Debian's PostgreSQL; run without PG_CONFIG, or skip this suite (CHASH_SKIP_SCRIPTS=package)"
fi
pg_config=/usr/lib/postgresql/$major/bin/pg_config
[ -x "$pg_config" ] || fail "no $pg_config"
pkg=postgresql-$major-chash
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	fail "dpkg needs root, and there is no sudo"
fi

# dpkg's state is the machine's: one run at a time
lock=/tmp/chash-package.lock
[ -e "$lock" ] || (umask 0 && : >>"$lock")
exec 9<"$lock"
flock -w 1800 9 || fail "another test/scripts/package.sh holds $lock"

state=$(state_of "$pkg")
case $state in
not-installed | config-files) ;;
*) fail "$pkg is $state here already: remove it first (dpkg -r $pkg)" ;;
esac

version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$version" ] || fail "no version in debian/changelog"
arch=$(dpkg --print-architecture)
deb=$root/build/deb/${pkg}_${version}_$arch.deb

# build when there is no package, or a file the package is built from is
# newer: the tree's files (as test/bin/deb.sh copies them) but those of test/
# other than the build's suites
build=
if [ ! -s "$deb" ]; then
	build="there is no $deb"
else
	while IFS= read -r -d '' f; do
		case $f in
		test/sql/* | test/specs/*) ;;
		test/* | build/*) continue ;;
		esac
		if [ "$f" -nt "$deb" ]; then
			build="$f is newer than $deb"
			break
		fi
	done < <(git ls-files -z -co --exclude-standard)
fi
if [ -n "$build" ]; then
	say "building the package: $build"
	test/bin/deb.sh 9<&-
	[ -s "$deb" ] || fail "test/bin/deb.sh made no $deb"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-package.XXXXXX")

# Whatever happened: no package left installed, and the tree's build
# installed again and checked.  Every step is tried, each failure counted.
restore() {
	local rc=$? bad=0 f
	trap - EXIT
	set +e
	if [ "$(state_of "$pkg")" != not-installed ] && [ "$(state_of "$pkg")" != config-files ]; then
		say "removing $pkg"
		"${sudo[@]}" dpkg -r "$pkg" || bad=$((bad + 1))
	fi
	say "installing the tree's build again (test/bin/install.sh)"
	if PG_CONFIG=$pg_config test/bin/install.sh; then
		for f in "$("$pg_config" --pkglibdir)/chash.so" "$("$pg_config" --sharedir)/extension/chash.control" \
			$(printf '%s\n' sql/chash--*.sql | sed "s|^sql/|$("$pg_config" --sharedir)/extension/|"); do
			if [ -f "$f" ] && [ "$(owner_of "$f")" = - ]; then
				ok "restored $f"
			else
				echo "package: FAIL $f is not restored" >&2
				bad=$((bad + 1))
			fi
		done
		if cmp "$root/chash.so" "$("$pg_config" --pkglibdir)/chash.so"; then
			ok "the installed chash.so is the tree's"
		else
			bad=$((bad + 1))
		fi
	else
		echo "package: FAIL test/bin/install.sh" >&2
		bad=$((bad + 1))
	fi
	rm -rf "$tmp"
	if [ $bad -gt 0 ]; then
		echo "package: FAIL the tree's build is not installed as before ($bad problems)" >&2
		[ $rc -ne 0 ] || rc=1
	fi
	exit $rc
}
trap restore EXIT
trap 'exit 130' INT TERM

PG_CONFIG=$pg_config test/bin/install.sh
chmod 755 "$tmp"
start=$(date +%s)
# (chash not preloaded: the server must load the library the package installs)
version=$version PG_CONFIG=$pg_config CHASH_PRELOAD=off test/bin/with-cluster.sh "$self" --in-cluster "$major" "$deb" "$tmp" 9<&-
say "installed, checked and removed $pkg $version in $(($(date +%s) - start)) s"
