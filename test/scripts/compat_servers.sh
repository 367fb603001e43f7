#!/usr/bin/env bash
# The compatibility proof against the clients that are real servers:
# twemproxy (nutcracker), nginx and HAProxy, each
# routing every key of every configuration as chash does, and the
# configuration each server loaded, given to chash_ring_import, making a
# ring that routes every key as the server did.  The same script
# as test/scripts/compat.sh, which checks the client libraries: make test
# runs the two side by side.
#
#   test/bin/with-cluster.sh test/scripts/compat_servers.sh
#
# CHASH_COMPAT_CLIENTS narrows it to some of the three (and the other
# settings of compat.sh apply).
set -euo pipefail
export CHASH_COMPAT_CLIENTS=${CHASH_COMPAT_CLIENTS:-twemproxy nginx haproxy}
exec "$(dirname "$0")/compat.sh"
