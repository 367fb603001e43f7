#!/usr/bin/env bash
# Install what chash needs to build and test, only what is missing:
# Debian packages through apt-get (as root, or through sudo), and the npm
# packages of the compatibility suite through npm.
set -euo pipefail
cd "$(dirname "$0")/../.."

PG_MAJOR=${PG_MAJOR:-15}
packages=(
	make gcc
	"postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
	libxxhash-dev zlib1g-dev nettle-dev
	# the real clients the compatibility suite (test/scripts/compat.sh)
	# checks chash against
	libmemcached-dev python3-uhashring python3-pymemcache nutcracker
	# Redis Cluster (test/scripts/compat_redis.sh), and the Java clients
	# spymemcached and Guava with a JDK to compile their route programs
	redis-server redis-tools
	openjdk-17-jdk-headless libspymemcached-java libguava-java
	# Lucene, whose hash is Elasticsearch's routing hash; groupcache's Go
	# source and the Go to build it
	liblucene8-java golang-go golang-github-golang-groupcache-dev
	# the DataStax Python driver, whose tokens, serialisers and replication
	# strategies test/scripts/compat_cassandra.sh checks chash against
	python3-cassandra
	# nginx and HAProxy (their own instances only: the suite starts no
	# system service),
	# and Dalli, with a Ruby to run it
	nginx haproxy ruby ruby-dalli
	# MariaDB's server and client binaries for the MySQL migration suite
	# (the -core packages start no system server)
	mariadb-server-core mariadb-client-core
	# an XML parser and an SVG renderer, to check chash's pictures
	libxml2-utils librsvg2-bin
	# Debian's packaging of PostgreSQL extensions, for make deb and the
	# package suite (test/bin/deb.sh, test/scripts/package.sh)
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

test/bin/apt-install.sh setup "${packages[@]}"
install_npm_packages
