#!/usr/bin/env bash
# make test-quick: the edit loop, a few minutes.  Builds chash afresh with
# warnings as errors, installs it, and runs the unit tests, the
# regression and isolation suites and the documentation's examples in
# lanes on throwaway clusters
# (test/bin/run-suites.sh, whose table and last line it prints).  The script
# suites of make test are not run: doc/development.md says which one
# covers what, and how to run one alone.
set -euo pipefail
cd "$(dirname "$0")/../.."

make -s clean
make -s -j"$(nproc)" COPT=-Werror all
test/bin/install.sh
CHASH_LANES=${CHASH_LANES:-2} exec test/bin/run-suites.sh REGRESS ISOLATION unit docs
