#!/usr/bin/env bash
# Every test suite, against the server in PGHOST/PGPORT (test/with-cluster.sh
# provides one): the pg_regress and isolation suites of the Makefile, then
# every script in test/scripts/.  Runs them all and fails if any failed.
#
# CHASH_SKIP_SCRIPTS   names of scripts not to run ("compat migrate_mysql")
# CHASH_SUITE_RESULTS  a file to append "SUITE passed|failed" lines to
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
skip=" ${CHASH_SKIP_SCRIPTS:-} "
record() {
	[ -z "${CHASH_SUITE_RESULTS:-}" ] || echo "$1 $2" >>"$CHASH_SUITE_RESULTS"
}

# pg_regress and the isolation tester share ./regression.diffs: run them
# one at a time and show each one's differences as it fails.
for suite in REGRESS ISOLATION; do
	echo "== $suite suite (make installcheck)"
	if [ $suite = REGRESS ]; then only=(ISOLATION=); else only=(REGRESS=); fi
	if make -s installcheck "${only[@]}"; then
		record "$suite" passed
	else
		failed+=("$suite")
		record "$suite" failed
		[ -s regression.diffs ] && head -n 300 regression.diffs
	fi
done

for script in test/scripts/*.sh; do
	[ -e "$script" ] || continue
	name=$(basename "$script" .sh)
	[[ $skip == *" $name "* ]] && continue
	echo "== $script"
	if "$script"; then
		record "$name" passed
	else
		failed+=("$script")
		record "$name" failed
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "all test suites passed"
