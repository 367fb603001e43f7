#!/usr/bin/env bash
# Routing under ring churn: pgbench routes keys with 8 clients for 30 s
# while another session makes 200 ring changes of every kind, and every
# answer is checked against the committed state it was routed by.
#
# The rings (test/churn/setup.sql): 'churn', a ring ring of 6 to 12 nodes,
# and 'churn_k', a ketama ring of 3 to 8.  pgbench's scripts
# (test/churn/route_*.sql: one statement, a read committed transaction of
# two, 20 keys in one statement, a repeatable read transaction with a pause,
# a PL/pgSQL cursor read between other statements) route every key with
# chash_lookup over text, integer, bigint and uuid keys, chash_lookup_n and
# chash_position on 'churn' and chash_lookup and chash_lookup_n on 'churn_k',
# and insert the answers with the versions of both rings
# (chash.ring_config.version) that the same statement's snapshot saw.  A
# sixth script, rarer (parallel workers cost dear), routes 500 keys in two
# parallel workers (the leader gathers only) and records each node's count and sum of key hashes, with the
# version the leader saw.
#
# The changing session runs a plan of 200 transactions
# (test/churn/plan.awk): nodes added, removed, reweighted, given and
# relieved of their own vnodes, taken down and up, renamed, reordered, by
# the functions and by plain DML; ring settings changed by DML (vnodes,
# hash, key hash, template, ties, ketama variant); another ring copied,
# changed, renamed and dropped; a changed copy swapped in for 'churn' by
# renames; transactions of three changes, rolled-back ones, and changes
# rolled back to a savepoint.  Each committed transaction records, as its
# last statement, each ring's configuration, version and points as the
# session sees them (test/churn/setup.sql, record_state).  The session
# routes after each change too (building rings of its uncommitted states,
# also of those it then rolls back to a savepoint), and records what it
# routes at the end of the transaction and after its COMMIT.
#
# Then (test/churn/verify.sql) every committed state is recreated as a ring
# of its own, which must have the recorded points, and every recorded answer
# must be exactly what the state of its recorded version routes: by chash
# on the recreated ring and, for the text keys, by a reference lookup over
# the recreated ring's points.  pgbench must report no failed transaction,
# no aborted client, and as many transactions as the answers show
# (pgbench 15 has no --exit-on-abort: a client whose statement fails aborts
# alone, its transactions counted neither as processed nor as failed, and
# the run goes on; pgbench then exits with status 2 and names the client on
# stderr.  Its "failed transactions" are serialization and deadlock
# failures only.)
#
# Takes about 45 s.  Drops its database whatever happens (unless
# CHASH_CHURN_KEEP is set, to look at it).  CHASH_CHURN_SEED chooses
# another plan of changes.
#
#   test/bin/with-cluster.sh test/scripts/churn.sh
set -euo pipefail
shopt -s inherit_errexit

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
: "${PGHOST:?run under test/bin/with-cluster.sh}"
here=$(cd "$(dirname "$0")/../churn" && pwd)
. "$(dirname "$0")/lib/sharing.sh"
db=chash_churn_$$
clients=8
duration=30
steps=200
seed=${CHASH_CHURN_SEED:-20261130}
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-churn.XXXXXX")
failures=0
bg_pids=()

cleanup() {
	local rc=$?
	local pid
	for pid in "${bg_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [ $rc -ne 0 ] && [ $failures -eq 0 ]; then
		echo "churn: FAILED (a step failed, exit status $rc)" >&2
	fi
	if [ -n "${CHASH_CHURN_KEEP:-}" ]; then
		echo "churn: kept database $db" >&2
	else
		"$bindir/dropdb" --if-exists --force "$db" >/dev/null 2>&1 ||
			echo "churn: could not drop database $db" >&2
	fi
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "  ok    $*"; }
fail() {
	echo "  FAIL  $*" >&2
	failures=$((failures + 1))
}

psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db")

# A number from verify.sql's output; an error if it is missing
value() {
	local v
	v=$(sed -n "s/^$1|//p" "$work/verify.out")
	if ! [[ "$v" =~ ^[0-9]+$ ]]; then
		echo "churn: verify.sql printed no number for $1" >&2
		exit 1
	fi
	echo "$v"
}

# check NAME OP VALUE DESCRIPTION: a figure of verify.sql's against a bound
check() {
	local v
	v=$(value "$1")
	if [ "$v" "$2" "$3" ]; then
		ok "$4 ($1 = $v)"
	else
		fail "$4: $1 = $v, expected $2 $3"
	fi
}

echo "== ring churn under pgbench (database $db)"
started=$(date +%s)
"$bindir/createdb" "$db"
"${psql[@]}" -f "$here/setup.sql" >/dev/null

# The changing session's script, from the plan
awk -v seed="$seed" -v steps="$steps" -f "$here/plan.awk" >"$work/plan"
plan_steps=$(wc -l <"$work/plan")
if [ "$plan_steps" -ne "$steps" ]; then
	echo "churn: the plan has $plan_steps steps, expected $steps" >&2
	exit 1
fi
# a change of the step, and routing in its new (uncommitted) state
change() {
	echo "SELECT next_change($step, '$1') \\gexec"
	echo "SELECT warm();"
}
{
	echo "SELECT setseed(0.$seed);"
	echo "SELECT clock_timestamp() AS t0 \\gset"
	while read -r step shape k1 k2 k3; do
		# the keys the session routes itself, inside and after the transaction
		key_in=$((step * 4099 % 900000 + 1))
		key_after=$((step * 7919 % 900000 + 1))
		echo "-- step $step: $shape $k1 ${k2:-} ${k3:-}"
		echo "BEGIN;"
		case $shape in
		one)
			change "$k1"
			;;
		multi)
			for k in "$k1" "$k2" "$k3"; do
				change "$k"
			done
			;;
		rollback)
			change "$k1"
			;;
		savepoint_undo_first)
			echo "SAVEPOINT s;"
			change "$k1"
			echo "ROLLBACK TO SAVEPOINT s;"
			change "$k2"
			;;
		savepoint_undo_second)
			change "$k1"
			echo "SAVEPOINT s;"
			change "$k2"
			echo "ROLLBACK TO SAVEPOINT s;"
			;;
		*)
			echo "churn: unknown shape $shape in the plan" >&2
			exit 1
			;;
		esac
		echo "SELECT record_state($step);"
		echo "SELECT changer_route(7, $key_in, 20);"
		if [ "$shape" = rollback ]; then
			echo "SELECT version AS rb_c FROM chash.ring_config WHERE ring = 'churn' \\gset"
			echo "SELECT version AS rb_k FROM chash.ring_config WHERE ring = 'churn_k' \\gset"
			echo "ROLLBACK;"
			echo "INSERT INTO rolled_back VALUES ($step, 'churn', :rb_c), ($step, 'churn_k', :rb_k);"
		else
			echo "COMMIT;"
		fi
		echo "SELECT changer_route(8, $key_after, 20);"
		# the steps spread evenly over 26 s
		echo "SELECT pg_sleep(greatest(0, extract(epoch FROM :'t0'::timestamptz + $step * interval '130 ms' - clock_timestamp())));"
	done <"$work/plan"
} >"$work/changer.sql"

# the server's count of rings mapped from shared memory (-1: none)
server_maps() {
	"${psql[@]}" -At -c "SELECT coalesce(server, -1) FROM chash.shared_ring_stats() WHERE counter = 'mapped'"
}
sharing=$(expected_sharing "${psql[@]}")
maps_before=$(server_maps)

# pgbench, and once its clients are connected, the changing session
(cd "$work" && exec "$bindir/pgbench" -n -M prepared -c $clients -j 2 -T $duration \
	-f "$here/route_single.sql@48" -f "$here/route_transaction.sql@16" \
	-f "$here/route_batch.sql@8" -f "$here/route_repeatable.sql@8" \
	-f "$here/route_cursor.sql@8" -f "$here/route_parallel.sql@1" "$db" >"$work/pgbench.out" 2>"$work/pgbench.err") &
pgbench_pid=$!
bg_pids+=("$pgbench_pid")
connected=0
for _ in $(seq 1 100); do
	connected=$("${psql[@]}" -At -c "SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'pgbench'")
	[ "$connected" -ge $clients ] && break
	sleep 0.1
done
if [ "$connected" -lt $clients ]; then
	echo "churn: pgbench's $clients clients did not connect (saw $connected)" >&2
	cat "$work/pgbench.err" >&2
	exit 1
fi
changer_rc=0
"${psql[@]}" -f "$work/changer.sql" >"$work/changer.out" 2>&1 || changer_rc=$?
changer_done=$(date +%s)
pgbench_rc=0
wait "$pgbench_pid" || pgbench_rc=$?
bg_pids=()

if [ $changer_rc -eq 0 ]; then
	ok "the changing session ran its $steps steps"
else
	fail "the changing session failed (exit status $changer_rc):"
	# (psql's errors come unbuffered, before the output of the statements
	# before them)
	grep -A 3 -E '^psql:.*(ERROR|FATAL)' "$work/changer.out" >&2 || tail -n 20 "$work/changer.out" >&2
fi

# pgbench's own report: exit status 0, no client aborted, no failed
# transaction (pgbench 15 counts aborted clients' transactions nowhere and
# goes on with the others, so each is looked at)
sed 's/^/        /' "$work/pgbench.out" | grep -E 'number of|tps =|SQL script' || true
if [ $pgbench_rc -eq 0 ]; then
	ok "pgbench exited with status 0"
else
	fail "pgbench exited with status $pgbench_rc"
fi
if [ -s "$work/pgbench.err" ]; then
	fail "pgbench reported errors:"
	head -n 20 "$work/pgbench.err" >&2
else
	ok "pgbench reported no error and no aborted client"
fi
if grep -q '^number of failed transactions' "$work/pgbench.out"; then
	pgbench_failed=$(sed -n 's/^number of failed transactions: \([0-9]*\) .*/\1/p' "$work/pgbench.out")
	mapfile -t script_failed < <(sed -n 's/^ - number of failed transactions: \([0-9]*\) .*/\1/p' "$work/pgbench.out")
else
	# pgbench before 15 has no failed transactions: an error aborts its
	# client, which its exit status and stderr tell (checked above)
	echo "        (pgbench $("$bindir/pgbench" --version | awk '{ print $NF }') counts no failed transactions)"
	if [ $pgbench_rc -eq 0 ] && [ ! -s "$work/pgbench.err" ]; then
		pgbench_failed=0
		script_failed=(0 0 0 0 0 0)
	else
		pgbench_failed="clients aborted"
		script_failed=()
	fi
fi
pgbench_txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\)$/\1/p' "$work/pgbench.out")
if [ "$pgbench_failed" = 0 ]; then
	ok "pgbench: 0 failed transactions"
else
	fail "pgbench: failed transactions: '${pgbench_failed}'"
fi
if ! [[ "$pgbench_txns" =~ ^[0-9]+$ ]] || [ "$pgbench_txns" -eq 0 ]; then
	fail "pgbench: no transactions processed ('${pgbench_txns}')"
	pgbench_txns=0
fi
# the transactions of each script, in the order of the -f options
mapfile -t script_txns < <(sed -n 's/^ - \([0-9]*\) transactions (.*/\1/p' "$work/pgbench.out")
if [ ${#script_txns[@]} -ne 6 ] || [ ${#script_failed[@]} -ne 6 ]; then
	fail "pgbench: expected a report of 6 scripts, found ${#script_txns[@]}"
	script_txns=(0 0 0 0 0 0)
fi
for f in "${script_failed[@]}"; do
	[ "$f" = 0 ] || fail "pgbench: a script has $f failed transactions"
done

"${psql[@]}" -f "$here/verify.sql" >"$work/verify.out" 2>&1 || {
	cat "$work/verify.out" >&2
	echo "churn: verify.sql failed" >&2
	exit 1
}
verified=$(date +%s)

# The history: every step recorded both rings, or was rolled back
rollbacks=$(awk '$2 == "rollback"' "$work/plan" | wc -l)
check steps_recorded -eq $((steps - rollbacks + 1)) "every committed step recorded its state, the initial one too"
check history_rows -eq $((2 * (steps - rollbacks + 1))) "two rings a step in the history"
check versions_with_two_states -eq 0 "a version names one configuration"
check versions_going_back -eq 0 "versions only grow"
check recreated_points_differ -eq 0 "every recreated state has the points its session routed by"
check rolled_back_versions -gt 0 "rolled-back steps made versions no committed state has"
# the kinds of the plan's changes that commit (see plan.awk's shapes)
kinds=$(awk '$2 == "one" { print $3 } $2 == "multi" { print $3; print $4; print $5 }
	$2 == "savepoint_undo_first" { print $4 } $2 == "savepoint_undo_second" { print $3 }' "$work/plan" | sort -u | wc -l)
check change_kinds -eq "$kinds" "committed changes of all the plan's $kinds kinds"

# Every answer: one per row of each script's transactions. pgbench's
# counts per script are added to by both threads without a lock (pgbench.c:
# "could use a mutex here, but we choose not to"), so they can only lose
# transactions: each is a lower bound. Its total is counted per thread and
# is exact; a client's transaction under way when time is up ends
# unreported, so the answers' transactions are at most one a client more.
rows_per_txn=(1 2 20 2 10)
answered_txns=0
for i in 0 1 2 3 4; do
	src=$((i + 1))
	rows=$(value "answers_src_$src")
	per=${rows_per_txn[$i]}
	txns=${script_txns[$i]}
	if [ $((rows % per)) -eq 0 ] && [ $((rows / per)) -ge "$txns" ] && [ "$txns" -gt 0 ]; then
		ok "script $src: $rows answers of $((rows / per)) transactions, pgbench reported $txns"
	else
		fail "script $src: $rows answers ($per a transaction), pgbench reported $txns transactions"
	fi
	answered_txns=$((answered_txns + rows / per))
done
parallel=$(value parallel_answers)
if [ "$parallel" -ge "${script_txns[5]}" ] && [ "${script_txns[5]}" -gt 0 ]; then
	ok "script 6: $parallel answers of parallel workers, pgbench reported ${script_txns[5]} transactions"
else
	fail "script 6: $parallel answers of parallel workers, pgbench reported ${script_txns[5]} transactions"
fi
answered_txns=$((answered_txns + parallel))
if [ "$answered_txns" -ge "$pgbench_txns" ] && [ "$answered_txns" -le $((pgbench_txns + clients)) ] &&
	[ "$pgbench_txns" -gt 0 ]; then
	ok "all scripts: answers of $answered_txns transactions, pgbench reported $pgbench_txns in all"
else
	fail "all scripts: answers of $answered_txns transactions, pgbench reported $pgbench_txns in all"
fi
check parallel_answers_checked -eq "$parallel" "every parallel answer recomputed on its state"
check parallel_answers_of_no_committed_state -eq 0 "every parallel answer was routed by a version of a committed state"
check parallel_wrong_answers -eq 0 "every parallel answer is what the state of its version routes"
check parallel_workers_launched -gt 0 "script 6's query runs its lookups in parallel workers"
answers=$(value answers)
check checked_rows -eq "$answers" "every answer has one state of each ring"
check verdict_rows -eq "$answers" "every answer recomputed on its states"
check reference_rows -eq "$answers" "every answer has a reference owner on both rings"
check null_answers -eq 0 "no answer is NULL"
check answers_of_no_committed_state -eq 0 "every answer was routed by a version of a committed state"
check answers_of_rolled_back_versions -eq 0 "no answer saw a rolled-back change"
check wrong_answers_chash -eq 0 "every answer is what chash routes on the recreated states of its versions"
check wrong_answers_reference -eq 0 "every text key's answer is the reference owner in those states"
check wrong_answers -eq 0 "no wrong answer"
if [ "$(value wrong_answers)" -gt 0 ]; then
	sed -n 's/^wrong_answer|/        /p' "$work/verify.out" >&2
fi
check changer_answers_in_transaction -eq $((20 * (steps - rollbacks))) "the changing session's answers inside its committed transactions"
check changer_answers_after_commit -eq $((20 * steps)) "the changing session's answers after each step"
# how much the check could see: routes changed under the answers
check states_seen_churn -gt 1 "pgbench saw several states of 'churn'"
check states_seen_churn_k -gt 1 "pgbench saw several states of 'churn_k'"
check parallel_states_seen -gt 1 "parallel workers saw several states of 'churn'"
check answers_differing_from_previous_state -gt 0 "answers a stale ring would have routed elsewhere"

# the rings were shared, or not, as this run wants (chash.shared_rings
# on, the default, or off: run-suites.sh's churn_unshared)
maps=$(($(server_maps) - maps_before))
if { [ "$sharing" = on ] && [ $maps -gt 0 ]; } || { [ "$sharing" != on ] && [ $maps -eq 0 ]; }; then
	ok "sharing $sharing: pgbench's backends mapped $maps rings other backends built"
else
	fail "sharing $sharing, yet pgbench's backends mapped $maps rings other backends built"
fi
seen=$(sharing_seen churn "${psql[@]}")
if [ "$seen" = "$sharing $([ "$sharing" = on ] && echo mapped || echo built)" ]; then
	ok "sharing $sharing: a second session ${seen#* } the ring a first one held"
else
	fail "sharing $sharing, yet a second session saw: '$seen'"
fi

lookups=$((answers * 8))
statements=$(value change_statements)
kinds_logged=$(value change_kinds)
kinds_done=$(value change_kinds_done)
states_c=$(value states_churn)
states_k=$(value states_churn_k)
seen_c=$(value states_seen_churn)
seen_k=$(value states_seen_churn_k)
differ_prev=$(value answers_differing_from_previous_state)
differ_last=$(value answers_differing_from_last_state)
echo "  figures: pgbench $pgbench_txns transactions (${script_txns[*]} by script)," \
	"$answers answers, $lookups routing calls checked," \
	"$parallel answers of parallel workers ($((parallel * 500)) lookups);" \
	"$((steps - rollbacks)) committed steps and $rollbacks rolled back," \
	"$statements change statements of $kinds_logged kinds ($kinds_done done);" \
	"$states_c + $states_k distinct committed states, $seen_c + $seen_k seen by pgbench;" \
	"$differ_prev answers differ under the previous state, $differ_last under the last;" \
	"changes done $((changer_done - started)) s, checked $((verified - started)) s after the start"

if [ $failures -gt 0 ]; then
	echo "churn: $failures check(s) FAILED" >&2
	exit 1
fi
echo "churn: all checks passed"
