#!/usr/bin/env bash
# Build and install chash into PostgreSQL's directories: directly when they
# are writable (root, or a PostgreSQL of one's own), else through sudo.
set -euo pipefail
cd "$(dirname "$0")/../.."

make -s -j"$(nproc)" all
pg_config=${PG_CONFIG:-pg_config}
if [ -w "$("$pg_config" --pkglibdir)" ] && [ -w "$("$pg_config" --sharedir)/extension" ]; then
	make -s install
elif command -v sudo >/dev/null 2>&1; then
	sudo make -s install
else
	echo "install: $("$pg_config" --pkglibdir) is not writable and there is no sudo;" \
		"run as root, or set PG_CONFIG to a PostgreSQL you own" >&2
	exit 1
fi
