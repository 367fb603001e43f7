#!/usr/bin/env bash
# Install what chash needs to build and test, only what is missing:
# Debian packages through apt-get (as root, or through sudo), and the npm
# packages of the compatibility suite through npm.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_MAJOR=${PG_MAJOR:-15}
packages=(
	make gcc
	"postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
	libxxhash-dev zlib1g-dev nettle-dev
	# the real clients the compatibility suite (test/scripts/compat.sh)
	# checks chash against
	libmemcached-dev python3-uhashring memcached nutcracker
	# MariaDB's server and client binaries for the MySQL migration suite
	# (the -core packages start no system server)
	mariadb-server-core mariadb-client-core
	# an XML parser and an SVG renderer, to check chash's pictures
	libxml2-utils librsvg2-bin
	# Debian's packaging of PostgreSQL extensions, for make deb and the
	# package suite (test/deb.sh, test/scripts/package.sh)
	debhelper postgresql-server-dev-all postgresql-all
)
# Node.js and npm for npm's hashring, unless a Node.js with npm is there
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
	packages+=(nodejs npm)

install_npm_packages() {
	if [ ! -d test/compat/node_modules/hashring ]; then
		echo "setup: installing npm packages of test/compat"
		npm ci --prefix test/compat --no-audit --no-fund --loglevel=error
	fi
}

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	install_npm_packages
	exit 0
fi

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
install_npm_packages
