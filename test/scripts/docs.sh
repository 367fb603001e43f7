#!/usr/bin/env bash
# The documentation's examples: every ```sql fence of README.md and doc/
# runs, page by page, and what psql prints is compared with what the page
# shows (test/bin/doc-examples.py says how a page is read).  A page whose
# example fails, or shows other output than it prints, fails the suite.
#
#   test/bin/with-cluster.sh test/scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH=$("${PG_CONFIG:-pg_config}" --bindir):$PATH
export PATH
exec python3 test/bin/doc-examples.py
