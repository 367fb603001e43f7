#!/usr/bin/env bash
# Install what chash needs to build and test, only what is missing.
# Debian packages through apt-get (as root, or through sudo).
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
packages=(
	make gcc
	"postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
	libxxhash-dev zlib1g-dev
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "setup: missing ${missing[*]}, and no sudo to install them as root" >&2
	exit 1
fi

# A throwaway project has no use for Debian's default cluster: when the
# server package is new here, do not let it create and start one.
if [[ " ${missing[*]} " == *" postgresql-$PG_MAJOR "* ]]; then
	"${sudo[@]}" mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" |
		"${sudo[@]}" tee /etc/postgresql-common/createcluster.d/chash.conf >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
