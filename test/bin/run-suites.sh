#!/usr/bin/env bash
# Every test suite: the pg_regress and isolation suites of the Makefile and
# every script in test/scripts/, in lanes side by side.  Each lane is a
# throwaway cluster of its own (test/bin/with-cluster.sh) that takes the next
# suite from one queue, the slowest first, until none is left: suites that
# start their own servers take free ports and private socket directories,
# so lanes share nothing but the machine.  The suites that change the
# machine's installed files (package: dpkg -i and -r) run alone after the
# lanes.  At the end: a table (suite, seconds, checks, result, slowest
# first), the log of each failed suite, and as the last line
# "N passed, N failed".  Fails if any suite failed or none ran.
#
#   test/bin/run-suites.sh [SUITE...]     default: every suite (REGRESS,
#                                     ISOLATION, each again with rings
#                                     not shared across backends:
#                                     REGRESS_unshared, ISOLATION_unshared;
#                                     the scripts' names; and churn, crash
#                                     and standby again so: churn_unshared,
#                                     crash_unshared, standby_unshared)
#
# CHASH_LANES          lanes side by side (default 3)
# CHASH_SKIP_SCRIPTS   names of scripts not to run ("compat migrate_mysql")
# CHASH_SUITE_RESULTS  a file to append "SUITE passed|failed" lines to
# CHASH_SUITE_TIMEOUT  seconds after which a suite is stopped and fails
#                      (default 1800)
# CHASH_TEST_LOGS      where each suite's log is kept (default: a new
#                      directory under ${TMPDIR:-/tmp}, kept when a suite
#                      fails, removed when all passed)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

# The checks a script's log counts, as the scripts print them: their own
# totals where they give one ("N checks, M failed"; "checks: all N
# passed"; the compatibility suites' keys compared, or configurations
# where they give no total of keys), else their lines that start "ok", or
# standby's "what|value" lines
script_checks() {
	awk '
		function first(s, n) { split(substr($0, RSTART), w, " "); return w[n] }
		match($0, /[0-9]+ checks, [0-9]+ failed/) { total += first($0, 1); totals = 1; next }
		match($0, /checks: all [0-9]+ passed/) { total += first($0, 3); totals = 1; next }
		match($0, /[0-9]+ keys, [0-9]+ differing/) { total += first($0, 1); totals = 1; next }
		match($0, /[0-9]+ keys and [0-9]+ slots in each state/) { total += first($0, 1); totals = 1; next }
		match($0, /[0-9]+ configurations[ ,]/) { total += first($0, 1); totals = 1; next }
		/^[[:space:]]*ok([[:space:]]|$)/ { oks++ }
		/^  [^ |][^|]*\|[^|]*$/ { pairs++ }
		END { print (totals ? total : (oks ? oks : pairs + 0)) }' "$1"
}

# "bounded LOG COMMAND...": COMMAND with its output in LOG, in a process
# group of its own, stopped after CHASH_SUITE_TIMEOUT seconds (default
# 1800: the slowest suite took 705 on a machine also building
# PostgreSQL).  A suite stopped so leaves in its log what the lane's server
# was running, and the stack of each backend that was busy, so that a hang
# says where it hung.
bounded() {
	local log=$1 limit=${CHASH_SUITE_TIMEOUT:-1800} waited=0 pid b
	shift
	setsid "$@" >"$log" 2>&1 9<&- &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ $waited -ge "$limit" ]; then
			{
				echo "run-suites: still running after $limit s: stopped"
				psql -X -d postgres -c "SELECT pid, datname, state, now() - query_start AS running, wait_event_type, wait_event, left(query, 400) AS query FROM pg_stat_activity WHERE state <> 'idle' AND pid <> pg_backend_pid()"
				for b in $(psql -XAt -d postgres -c "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()"); do
					echo "--- stack of backend $b"
					if command -v gdb >/dev/null; then
						timeout 120 gdb -batch -p "$b" -ex bt 2>&1 | grep '^#'
					else
						cat "/proc/$b/stack" 2>&1
					fi
				done
			} >>"$log" 2>&1
			kill -TERM -- -"$pid" 2>/dev/null
			sleep 10
			kill -KILL -- -"$pid" 2>/dev/null
			wait "$pid"
			return 124
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait "$pid"
}

# "lane QUEUE LOGS": inside a lane's cluster, run suites from the queue
if [ "${1:-}" = lane ]; then
	queue=$2
	logs=$3
	while :; do
		# (a lock of this subshell's own: it ends with it)
		suite=$(
			exec 9>>"$queue.lock"
			flock 9
			head -n 1 "$queue"
			sed -i 1d "$queue"
		)
		[ -n "$suite" ] || break
		log=$logs/$suite.log
		start=$(date +%s)
		if [ "$suite" = package-deb ]; then
			# the package that package installs, built here beside the
			# other suites (it touches nothing installed); package builds
			# it again if this failed, and fails then
			test/bin/deb.sh >"$log" 2>&1 9<&- || echo "== package-deb: test/bin/deb.sh failed ($log)"
			continue
		fi
		case $suite in
		REGRESS | ISOLATION | REGRESS_unshared | ISOLATION_unshared)
			out=$logs/$suite
			mkdir -p "$out"
			ln -sfn "$root/expected" "$out/expected"
			if [ "${suite%_unshared}" = REGRESS ]; then only=(ISOLATION=); else only=(REGRESS=); fi
			# (the _unshared runs: every backend builds its own rings)
			unshared=
			[ "$suite" = "${suite%_unshared}" ] || unshared="-c chash.shared_rings=off"
			# with PostgreSQL's default JIT, which test/bin/with-cluster.sh turns off
			bounded "$log" env PGOPTIONS="${PGOPTIONS:-} -c jit=on $unshared" \
				make -s installcheck "${only[@]}" CHASH_OUTPUTDIR="$out"
			rc=$?
			[ -s "$out/regression.diffs" ] && cat "$out/regression.diffs" >>"$log"
			# pg_regress's own count: "All N tests passed" or "M of N tests failed"
			checks=$(sed -n 's/.*All \([0-9]*\) tests passed.*/\1/p; s/.* of \([0-9]*\) tests failed.*/\1/p' "$log" | head -n 1)
			;;
		*_unshared)
			# a script again with rings not shared across backends
			bounded "$log" env PGOPTIONS="${PGOPTIONS:-} -c chash.shared_rings=off" \
				"test/scripts/${suite%_unshared}.sh"
			rc=$?
			checks=$(script_checks "$log")
			;;
		*)
			bounded "$log" "test/scripts/$suite.sh"
			rc=$?
			checks=$(script_checks "$log")
			;;
		esac
		# a suite whose checks did not run has not passed
		if [ $rc -eq 0 ] && [ "${checks:-0}" -eq 0 ]; then
			echo "run-suites: $suite exited 0 but counted no check" >>"$log"
			rc=1
		fi
		if [ $rc -eq 0 ]; then result=passed; else result=failed; fi
		echo "$suite $(($(date +%s) - start)) ${checks:-0} $result" >>"$logs/results"
		echo "== $suite $result ($(($(date +%s) - start)) s)"
	done
	exit 0
fi

lanes=${CHASH_LANES:-3}
skip=" ${CHASH_SKIP_SCRIPTS:-} "
if [ -n "${CHASH_TEST_LOGS:-}" ]; then
	logs=$CHASH_TEST_LOGS
	mkdir -p "$logs"
	keep_logs=1
else
	logs=$(mktemp -d "${TMPDIR:-/tmp}/chash-test-logs.XXXXXX")
	keep_logs=0
fi
chmod 755 "$logs"
# the lanes' clusters run as postgres when we are root, and some suites
# write their files as that user
[ "$(id -u)" -ne 0 ] || chown postgres: "$logs"
: >"$logs/results"

# Every suite, the slowest first (as measured on a 2-core machine: see
# doc/development.md), so that the lanes end together; a suite not listed
# here runs after these.  Alone: after the lanes, one at a time.
order=(compat compat_servers compat_cassandra move_online_faults move_online migrate_postgres
	migrate_mysql REGRESS REGRESS_unshared unit compat_redis rebalance_redis export_haproxy export_redis move_online_hostile churn churn_unshared rebalance rebalance_online
	compat_elasticsearch crash crash_unshared release standby standby_unshared shared_rings dump_restore svg docs ISOLATION ISOLATION_unshared encodings upgrade_equals_fresh
	released_scripts)
alone=(package)

all=(REGRESS ISOLATION REGRESS_unshared ISOLATION_unshared churn_unshared crash_unshared standby_unshared)
for script in test/scripts/*.sh; do
	all+=("$(basename "$script" .sh)")
done
if [ $# -gt 0 ]; then wanted=("$@"); else wanted=("${all[@]}"); fi
for s in "${wanted[@]}"; do
	[[ " ${all[*]} " == *" $s "* ]] || {
		echo "run-suites: no suite $s (suites: ${all[*]})" >&2
		exit 2
	}
done
want() { [[ " ${wanted[*]} " == *" $1 "* ]] && [[ $skip != *" $1 "* ]]; }

queue=$logs/queue
: >"$queue"
for s in "${order[@]}" "${all[@]}"; do
	want "$s" || continue
	[[ " ${alone[*]} " == *" $s "* ]] && continue
	! grep -qx -- "$s" "$queue" || continue
	echo "$s" >>"$queue"
	# the package's build, as soon as a lane is free (once: compat is in
	# both lists)
	[ "$s" != compat ] || ! want package || echo package-deb >>"$queue"
done
[ "$(id -u)" -ne 0 ] || chown postgres: "$queue" "$logs/results"

start=$(date +%s)
echo "run-suites: $(grep -cvx package-deb "$queue") suites in $lanes lanes, then ${alone[*]} alone; logs in $logs"
pids=()
for ((i = 1; i <= lanes; i++)); do
	test/bin/with-cluster.sh "$0" lane "$queue" "$logs" &
	pids+=($!)
done
lane_failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || lane_failed=1
done
for s in "${alone[@]}"; do
	want "$s" || continue
	echo "$s" >"$queue"
	test/bin/with-cluster.sh "$0" lane "$queue" "$logs" || lane_failed=1
done

# every suite wanted has a result: one a lane lost (its cluster failed to
# start) counts as failed
for s in "${all[@]}"; do
	want "$s" || continue
	grep -q "^$s " "$logs/results" || echo "$s 0 0 failed" >>"$logs/results"
done

echo
printf '%-22s %8s %7s  %s\n' suite seconds checks result
sort -k2,2nr "$logs/results" | while read -r s secs checks result; do
	if [ "$result" = failed ]; then
		printf '%-22s %8s %7s  %s (log: %s)\n' "$s" "$secs" "$checks" "$result" "$logs/$s.log"
	else
		printf '%-22s %8s %7s  %s\n' "$s" "$secs" "$checks" "$result"
	fi
done
echo "wall clock: $(($(date +%s) - start)) s in $lanes lanes"

passed=$(grep -c ' passed$' "$logs/results")
failed=$(grep -c ' failed$' "$logs/results")
if [ -n "${CHASH_SUITE_RESULTS:-}" ]; then
	awk '{ print $1, $4 }' "$logs/results" >>"$CHASH_SUITE_RESULTS"
fi
for s in $(awk '$4 == "failed" { print $1 }' "$logs/results"); do
	echo
	echo "--- last lines of $s ($logs/$s.log) ---"
	tail -n 40 "$logs/$s.log" 2>/dev/null
done
[ "$failed" -gt 0 ] || [ $lane_failed -ne 0 ] || [ $keep_logs -eq 1 ] || rm -rf "$logs"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ $lane_failed -eq 0 ]
