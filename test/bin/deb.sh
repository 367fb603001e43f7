#!/usr/bin/env bash
# make deb: the Debian packages postgresql-NN-chash, one for each PostgreSQL
# major of debian/pgversions that the system supports, into build/deb/.
#
# Installs what the build needs, only what is missing (as root, or through
# sudo), then runs dpkg-buildpackage -us -uc -b in a copy of the working
# tree (git ls-files: tracked and untracked files, not ignored ones), so the
# checkout's own build stays as it is.  The build runs the REGRESS and
# ISOLATION suites against the packaged files (debian/rules).  Prints the
# paths of the packages; the build's log is build/deb/build.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/build/deb

say() { echo "deb: $*" >&2; }

# debian/control's Build-Depends, and build-essential, which
# dpkg-buildpackage requires besides (dpkg-checkbuilddeps checks the
# versions once they are there)
packages=(
	build-essential dpkg-dev debhelper
	postgresql-all postgresql-server-dev-all
	libxxhash-dev zlib1g-dev nettle-dev
)
# (postgresql-all may bring a server new here: test/bin/apt-install.sh keeps
# Debian from creating and starting its default cluster)
test/bin/apt-install.sh deb "${packages[@]}"

# the package's version carries chash.control's
version=$(dpkg-parsechangelog -S Version)
source=$(dpkg-parsechangelog -S Source)
control=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" chash.control)
if [ -z "$control" ] || [ "${version%-*}" != "$control" ]; then
	say "debian/changelog is at $version, chash.control's default_version is '$control':"
	say "add a changelog entry for $control-1 first"
	exit 1
fi
arch=$(dpkg --print-architecture)
majors=$(pg_buildext supported-versions)
if [ -z "$majors" ]; then
	say "no PostgreSQL major of debian/pgversions ($(tr '\n' ' ' <debian/pgversions)) is supported here"
	exit 1
fi

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
	say "$root is not a git work tree: the copy to build is made with git ls-files"
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the build's test cluster runs as postgres when building as root: it must
# read the packaged files in the copy
chmod 755 "$tmp"
tree=$tmp/$source-${version%-*}
mkdir "$tree"
# tracked files deleted in the work tree are listed too, and skipped; not
# npm's packages of the compatibility suite, nor build/ (packages of
# earlier builds).  The packages get the time of the copy, so that a file
# changed since is newer than they are (test/scripts/package.sh).
copied=$(date +%s.%N)
git ls-files -z -co --exclude-standard |
	grep -zv -e '^test/compat/node_modules/' -e '^build/' |
	while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	done |
	tar --null -T - -cf - | tar -xf - -C "$tree"
chmod -R a+rX "$tree"

mkdir -p "$out"
log=$out/build.log
# debian/control lists the majors supported where it was generated: the
# copy's is brought up to date with the majors supported here (pg_buildext
# checkcontrol), the checkout's stays as it is
export PG_UPDATECONTROL=yes
say "building $source $version for PostgreSQL ${majors//$'\n'/ } in $tree (log: $log)"
start=$(date +%s)
if ! (cd "$tree" && dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -n 100 "$log" >&2
	say "dpkg-buildpackage failed after $(($(date +%s) - start)) s; the whole log: $log"
	exit 1
fi

# every major has its package; then the new packages replace the old ones
debs=()
for major in $majors; do
	deb=$tmp/postgresql-$major-chash_${version}_$arch.deb
	if [ ! -s "$deb" ]; then
		say "the build made no $(basename "$deb")"
		ls -l "$tmp" >&2
		exit 1
	fi
done
rm -f "$out"/*.deb
for deb in "$tmp"/*.deb; do
	cp "$deb" "$out/"
	touch -d "@$copied" "$out/$(basename "$deb")"
	debs+=("$out/$(basename "$deb")")
done
say "built in $(($(date +%s) - start)) s"
printf '%s\n' "${debs[@]}"
