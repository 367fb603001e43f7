#!/usr/bin/env bash
# Install the Debian packages named, only those that are missing: apt-get
# update, then apt-get install, as root or through sudo.  When a PostgreSQL
# server package is among them, Debian is told first not to create and
# start its default cluster (a throwaway project has no use for one).
#
#   test/bin/apt-install.sh WHO PACKAGE...      (WHO begins the messages)
set -euo pipefail
who=$1
shift

missing=()
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "$who: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "$who: missing ${missing[*]}, and no sudo to install them as root" >&2
	exit 1
fi

if printf '%s\n' "${missing[@]}" | grep -qE '^postgresql-([0-9]+|all)$' &&
	[ ! -e /etc/postgresql-common/createcluster.d/chash.conf ]; then
	"${sudo[@]}" mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" |
		"${sudo[@]}" tee /etc/postgresql-common/createcluster.d/chash.conf >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
