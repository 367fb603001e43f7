#!/usr/bin/env bash
# Released scripts never change: every install and upgrade script of a
# released version has the SHA-256 that sql/released.sha256 recorded when
# the next version started, and every script of sql/ but those of the
# version in development (chash.control's default_version) is listed
# there.  A database updated through a script that changed after release
# would differ from one that ran it before.  Needs no server.
set -euo pipefail
cd "$(dirname "$0")/../.."

list=sql/released.sha256
[ -s "$list" ] || { echo "released_scripts: $list is missing or empty" >&2; exit 1; }
dev=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" chash.control)
[ -n "$dev" ] || { echo "released_scripts: no default_version in chash.control" >&2; exit 1; }

checked=0
failed=0
listed=" "
while read -r version commit sum file; do
	case "$version" in '' | '#'*) continue ;; esac
	if [ -z "$file" ]; then
		echo "  FAIL  $list: a line of version $version names no script"
		failed=$((failed + 1))
		continue
	fi
	listed+="$file "
	if [ ! -f "$file" ]; then
		echo "  FAIL  $file (released in $version, frozen at $commit) is gone"
		failed=$((failed + 1))
		continue
	fi
	got=$(sha256sum "$file" | cut -d' ' -f1)
	if [ "$got" = "$sum" ]; then
		echo "  ok    $file: as released in $version (frozen at $commit)"
	else
		echo "  FAIL  $file changed after its release in $version (frozen at $commit): sha256 $got, not $sum"
		failed=$((failed + 1))
	fi
	checked=$((checked + 1))
done <"$list"

# a script's version is the one it installs or updates to
for f in sql/chash--*.sql; do
	[ -e "$f" ] || continue
	to=${f##*--}
	to=${to%.sql}
	[ "$to" = "$dev" ] && continue
	if [[ $listed != *" $f "* ]]; then
		echo "  FAIL  $f installs or updates to $to, which is released (the version in development is $dev), but $list does not list it"
		failed=$((failed + 1))
	fi
done

if [ "$checked" -eq 0 ]; then
	echo "released_scripts: no script checked" >&2
	exit 1
fi
if [ "$failed" -gt 0 ]; then
	echo "released_scripts: $failed of the released scripts' checks failed" >&2
	exit 1
fi
echo "released_scripts: $checked released scripts as released; $dev in development"
