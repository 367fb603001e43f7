#!/usr/bin/env bash
# Rings shared across backends (chash.shared_rings): a ring is built once and
# mapped by the other backends and parallel workers, which route exactly as
# a backend that builds its own; a parallel query shares the rings it names
# by a constant before its workers start; a build that is cancelled, or whose backend
# is terminated or killed, leaves nothing stuck; a ring no backend holds is
# freed; past chash.shared_memory, or where /dev/shm is too small, every
# lookup still works, from a backend's own build, with the reason counted.
#
# Starts its own clusters (chash in shared_preload_libraries, which 14 to
# 16 need for sharing), on Unix sockets in a private directory:
#   1. the main cluster: sessions kept open through fifos;
#   2. the same cluster without shared_preload_libraries: on 14 to 16
#      sharing is unavailable (counted, with its reason) and lookups work;
#      from 17 the DSM registry shares without it;
#   3. as root, a cluster in a mount namespace of its own whose /dev/shm is
#      a 4 MB tmpfs: a ring of 5.5 MB cannot be shared, a small one can;
#      with min_dynamic_shared_memory the big one is shared too, from
#      PostgreSQL's main shared memory.
#
#   test/bin/with-cluster.sh test/scripts/shared_rings.sh
set -euo pipefail
shopt -s inherit_errexit

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
major=$("$bindir/postgres" --version | sed -E 's/.* ([0-9]+)[^0-9].*/\1/')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chash-shared.XXXXXX")
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$tmp"
	as_owner() { (cd "$tmp" && runuser -u postgres -- "$@"); }
	pguser=postgres
else
	as_owner() { (cd "$tmp" && "$@"); }
	pguser=$(id -un)
fi
checks=0
failed=0
session_pids=()

stop_server() {
	local dir=$1
	if [ -f "$dir/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 ||
			as_owner "$bindir/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

cleanup() {
	local rc=$? pid
	for pid in "${session_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	stop_server "$tmp/data"
	stop_server "$tmp/small"
	if [ $rc -ne 0 ]; then
		echo "shared_rings: FAILED (exit status $rc)" >&2
		tail -n 20 "$tmp/server.log" >&2 2>/dev/null || true
	fi
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT

ok() { checks=$((checks + 1)); echo "ok      $1"; }
fail() { checks=$((checks + 1)); failed=$((failed + 1)); echo "FAILED  $1"; }
# check WHAT GOT WANT
check() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (got '$2', want '$3')"; fi; }

# start DIR LOGNAME SETTINGS...: a cluster on a socket in $tmp/DIR.sock
start() {
	local dir=$1 log=$2
	shift 2
	as_owner "$bindir/pg_ctl" -D "$tmp/$dir" -l "$tmp/$log" -w \
		-o "-c listen_addresses='' -k $tmp/$dir.sock -c port=5432 -c fsync=off -c jit=off $*" \
		start >/dev/null
}
init() {
	mkdir -p "$tmp/$1.sock"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$tmp/$1.sock"
	as_owner "$bindir/initdb" -D "$tmp/$1" -U "$pguser" -A trust -E UTF8 --locale=C \
		--no-sync >/dev/null
}

export PGHOST=$tmp/data.sock PGPORT=5432 PGUSER=$pguser PGDATABASE=postgres
psql_q() { "$bindir/psql" -X -q -At -F ' ' -v ON_ERROR_STOP=1 "$@"; }
q() { psql_q -c "$1"; }

# Sessions kept open: "open NAME [PGOPTIONS]", then "ask NAME SQL" prints
# what SQL printed (errors included) once the session has run it
open() {
	local name=$1
	rm -f "$tmp/$name.in"
	mkfifo "$tmp/$name.in"
	PGOPTIONS=${2:-} "$bindir/psql" -X -q -At -F ' ' <"$tmp/$name.in" >"$tmp/$name.out" 2>&1 &
	session_pids+=($!)
	eval "exec {fd_$name}>\"$tmp/$name.in\""
	: >"$tmp/$name.marks"
}
echo 0 >"$tmp/marks"
ask() {
	local name=$1 sql=$2 fd from to i marks
	eval "fd=\$fd_$name"
	# (a file: ask runs in command substitutions, subshells)
	marks=$(($(cat "$tmp/marks") + 1))
	echo "$marks" >"$tmp/marks"
	from=$(($(wc -l <"$tmp/$name.out") + 1))
	printf '%s\n\\echo mark-%s\n' "$sql" "$marks" >&"$fd"
	for i in $(seq 1 1200); do
		grep -qx "mark-$marks" "$tmp/$name.out" && break
		sleep 0.1
	done
	to=$(grep -nx "mark-$marks" "$tmp/$name.out" | cut -d: -f1)
	[ -n "$to" ] || { echo "session $name did not answer: $sql" >&2; return 1; }
	sed -n "${from},$((to - 1))p" "$tmp/$name.out"
}
close() {
	local name=$1 fd
	eval "fd=\$fd_$name"
	eval "exec $fd>&-"
}
# a server count of chash.shared_ring_stats()
server_count() { q "SELECT server FROM chash.shared_ring_stats() WHERE counter = '$1'"; }
# wait (at most 20 s) until SQL returns t
await() {
	local i
	for i in $(seq 1 200); do
		[ "$(q "$1")" = t ] && return 0
		sleep 0.1
	done
	return 1
}
# every key's owner, as one md5: SESSION-or-"-" RING
owners_sql() { echo "SELECT md5(string_agg(chash_lookup('$1', g), ',' ORDER BY g)) FROM generate_series(1, 100000) g;"; }

# --- 1. the main cluster -------------------------------------------------
init data
start data server.log "-c shared_preload_libraries=chash"
q "CREATE EXTENSION chash" >/dev/null
q "SELECT chash_ring_create('r', vnodes => 16384)" >/dev/null
q "SELECT count(chash_node_add('r', 'node-' || g)) FROM generate_series(1, 4) g" >/dev/null
q "SELECT chash_ring_create('big', vnodes => 1048576)" >/dev/null
q "SELECT count(chash_node_add('big', 'node-' || g)) FROM generate_series(1, 4) g" >/dev/null
want=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$(owners_sql r)")

open h
ask h "SELECT chash_lookup('r', 'k') IS NOT NULL;" >/dev/null
check "the first backend builds the ring" \
	"$(ask h "SELECT builds FROM chash.cache_stats();")" 1
check "and shares it: one entry, one backend, one build" \
	"$(q "SELECT state, backends, builds, bytes > 65536 * 10 FROM chash.shared_rings() WHERE ring = 'r'")" "shared 1 1 t"

open b
got=$(ask b "$(owners_sql r)")
check "another backend routes 100,000 keys as one that builds its own" "$got" "$want"
check "without building: it mapped the ring" \
	"$(ask b "SELECT c.builds, s.backend FROM chash.cache_stats() c, chash.shared_ring_stats() s WHERE s.counter = 'mapped';")" "0 1"
check "two backends hold it" "$(q "SELECT backends FROM chash.shared_rings() WHERE ring = 'r'")" 2
check "its cache counts the ring's bytes against chash.cache_memory" \
	"$(ask b "SELECT memory >= (SELECT bytes FROM chash.shared_rings() WHERE ring = 'r') FROM chash.cache_stats();")" t

# parallel workers map the ring too
built=$(server_count built)
mapped=$(server_count mapped)
par="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
q "CREATE TABLE keys AS SELECT g FROM generate_series(1, 100000) g; ANALYZE keys" >/dev/null
# (a sum of each key's hash with its owner's: aggregated in the workers)
sum_sql="SELECT sum(hashtext(g || ':' || chash_lookup('r', g))) FROM keys"
want_sum=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$sum_sql")
plan=$(psql_q -c "$par" -c "EXPLAIN (COSTS OFF) $sum_sql")
case $plan in *"Partial Aggregate"*) ok "the lookups run in parallel workers" ;; *) fail "no parallel plan: $plan" ;; esac
# (the workers alone scan: the leader could end before they start)
got=$(psql_q -c "$par SET parallel_leader_participation = off;" -c "$sum_sql")
check "parallel workers route as a backend that builds its own" "$got" "$want_sum"
check "and build nothing: the leader and the workers mapped the shared ring" \
	"$(server_count built) $(($(server_count mapped) >= mapped + 2))" "$built 1"

# a ring no one shared, named by a constant: shared before the workers
# start, which map it (functions/parallel.c)
q "SELECT chash_ring_create('fresh', vnodes => 1000); SELECT chash_node_add('fresh', n) FROM unnest(ARRAY['x', 'y']) n" >/dev/null
fallbacks=$(server_count "fallback: parallel query")
built=$(server_count built)
mapped=$(server_count mapped)
# (the workers alone scan: the leader could end before they start)
got=$(psql_q -c "$par SET parallel_leader_participation = off;" -c "SELECT count(*) FILTER (WHERE chash_lookup('fresh', g) IS NULL), min(chash_lookup('fresh', g)), max(chash_lookup('fresh', g)) FROM keys")
check "a parallel query on a ring not yet shared routes every key" "$got" "0 x y"
check "having shared it before its workers started: one build, the workers mapped it, no fallback" \
	"$(($(server_count built) - built)) $(($(server_count mapped) > mapped)) $(($(server_count "fallback: parallel query") - fallbacks))" "1 1 0"
nope="SELECT count(*) FROM keys WHERE chash_lookup('no such ring', g) IS NULL"
got=$(psql_q -c "$par" -c "$nope" 2>&1 | head -n 1 || true)
check "a parallel query on a ring that does not exist fails as a serial one does" \
	"$got" "$(psql_q -c "$nope" 2>&1 | head -n 1 || true)"
# a plan that names a missing ring before one no one shared, in a branch
# that never runs: the missing one does not keep the other from being
# shared before the workers start
q "SELECT chash_ring_create('after_missing', vnodes => 1000); SELECT chash_node_add('after_missing', n) FROM unnest(ARRAY['x', 'y']) n" >/dev/null
fallbacks=$(server_count "fallback: parallel query")
built=$(server_count built)
got=$(psql_q -c "$par SET parallel_leader_participation = off;" \
	-c "SELECT count(*) FILTER (WHERE CASE WHEN g < 0 THEN chash_lookup('no such ring', g) ELSE chash_lookup('after_missing', g) END IS NULL) FROM keys")
check "a parallel query naming a missing ring and then a new one routes every key by the new one" "$got" 0
check "and shares the new one before its workers start: one build, no fallback" \
	"$(($(server_count built) - built)) $(($(server_count "fallback: parallel query") - fallbacks))" "1 0"

# a role that may not read the nodes: its parallel query fails as its
# serial one does, and what resolves the plan's rings ahead, as that role,
# neither builds nor shares the ring for it
q "SELECT chash_ring_create('guarded', vnodes => 1000); SELECT chash_node_add('guarded', n) FROM unnest(ARRAY['x', 'y']) n;
   CREATE ROLE reader_$$ LOGIN; GRANT SELECT ON keys TO reader_$$; REVOKE SELECT ON chash.node_config FROM PUBLIC" >/dev/null
built=$(server_count built)
guarded="SELECT count(*) FROM keys WHERE chash_lookup('guarded', g) IS NULL"
got=$(psql_q -U "reader_$$" -c "$par SET parallel_leader_participation = off;" -c "$guarded" 2>&1 | head -n 1 || true)
case $got in
*"permission denied to read ring \"guarded\""*) ok "a parallel query of a role that may not read the nodes fails: $got" ;;
*) fail "a parallel query of a role that may not read the nodes: $got" ;;
esac
check "as its serial query does" "$got" "$(psql_q -U "reader_$$" -c "$guarded" 2>&1 | head -n 1 || true)"
check "and builds and shares nothing" \
	"$(($(server_count built) - built)) $(q "SELECT count(*) FROM chash.shared_rings() WHERE ring = 'guarded'")" "0 0"
# with the right again, and row-level security hiding node x from it: the
# superuser's parallel query routes to both nodes, and the role's own
# parallel query still routes as its serial one, to y alone
q "GRANT SELECT ON chash.node_config TO PUBLIC; ALTER TABLE chash.node_config ENABLE ROW LEVEL SECURITY;
   CREATE POLICY hide_x ON chash.node_config FOR SELECT TO PUBLIC USING (node <> 'x' OR current_user <> 'reader_$$')" >/dev/null
routed="SELECT count(*) FILTER (WHERE chash_lookup('guarded', g) = 'x') > 0, count(*) FILTER (WHERE chash_lookup('guarded', g) = 'y') FROM keys"
plan=$(psql_q -U "reader_$$" -c "$par" -c "EXPLAIN (COSTS OFF) $routed")
case $plan in *"Partial Aggregate"*) ok "the role's lookups run in parallel workers" ;; *) fail "no parallel plan for the role: $plan" ;; esac
superuser=$(psql_q -c "$par SET parallel_leader_participation = off;" -c "$routed")
check "the superuser's parallel query routes as its serial one, to x and y" "$superuser" "$(q "$routed")"
case $superuser in t\ *) ;; *) fail "the superuser's parallel query routed nothing to x: $superuser" ;; esac
# (a superuser's session holds the ring with both nodes, shared)
open g
check "a superuser's session holds the shared ring" \
	"$(ask g "SELECT chash_lookup('guarded', 'k') IS NOT NULL;") $(q "SELECT state FROM chash.shared_rings() WHERE ring = 'guarded'")" "t shared"
got=$(psql_q -U "reader_$$" -c "$par SET parallel_leader_participation = off;" -c "$routed")
check "then, under row-level security, the role's parallel query routes as its serial one, to y alone" \
	"$got" "$(psql_q -U "reader_$$" -c "$routed")"
check "every key" "$got" "f 100000"
close g
q "DROP POLICY hide_x ON chash.node_config; ALTER TABLE chash.node_config DISABLE ROW LEVEL SECURITY;
   REVOKE SELECT ON keys FROM reader_$$; DROP ROLE reader_$$; SELECT chash_ring_drop('guarded')" >/dev/null

# a ring named by a column, not a constant: the parallel query builds its
# own in each process; the same backend's next one shares it
q "SELECT chash_ring_create('by_column', vnodes => 1000); SELECT chash_node_add('by_column', n) FROM unnest(ARRAY['x', 'y']) n; CREATE TABLE names AS SELECT 'by_column'::text AS ring" >/dev/null
open p
ask p "$par SET parallel_leader_participation = off;" >/dev/null
fallbacks=$(server_count "fallback: parallel query")
got=$(ask p "SELECT count(*) FILTER (WHERE chash_lookup(n.ring, g) IS NULL), min(chash_lookup(n.ring, g)), max(chash_lookup(n.ring, g)) FROM keys, names n;")
check "a parallel query on a ring a column names routes every key" "$got" "0 x y"
check "counting why each process built its own (parallel query)" \
	"$(($(server_count "fallback: parallel query") > fallbacks)) $(q "SELECT count(*) FROM chash.shared_rings() WHERE ring = 'by_column'")" "1 0"
fallbacks=$(server_count "fallback: parallel query")
got=$(ask p "SELECT count(*) FILTER (WHERE chash_lookup('by_column', g) IS NULL) FROM keys;")
check "its next parallel query, which names it, shares the ring the first built on its own" \
	"$got $(q "SELECT state FROM chash.shared_rings() WHERE ring = 'by_column'") $(($(server_count "fallback: parallel query") - fallbacks))" "0 shared 0"
close p

# a ring change: the holder maps the new version, the old one is freed
ask h "SELECT chash_node_add('r', 'node-5');" >/dev/null
ask h "SELECT chash_lookup('r', 'k') IS NOT NULL;" >/dev/null
ask b "SELECT chash_lookup('r', 'k') IS NOT NULL;" >/dev/null
check "after a change both backends hold the new version, the old one is freed" \
	"$(q "SELECT count(*), min(backends), min(version) = (SELECT version FROM chash.ring_config WHERE ring = 'r') FROM chash.shared_rings() WHERE ring = 'r'")" "1 2 t"
want5=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$(owners_sql r)")
check "and route as the new version" "$(ask b "$(owners_sql r)")" "$want5"

# rings are freed once no backend holds them
close h
close b
if await "SELECT count(*) = 0 FROM chash.shared_rings() WHERE ring = 'r'"; then
	ok "the ring is freed once the backends that held it ended"
else
	fail "the ring is still shared: $(q "SELECT * FROM chash.shared_rings()")"
fi
check "and the shared rings take 0 bytes" "$(server_count bytes)" 0

# one builder: two backends that want the ring at once build it once
built=$(server_count built)
mapped=$(server_count mapped)
for s in w1 w2; do open "$s"; done
fd1=$fd_w1
fd2=$fd_w2
printf "SELECT chash_lookup('big', 'k');\n" >&"$fd1"
printf "SELECT chash_lookup('big', 'k');\n" >&"$fd2"
ask w1 "SELECT 1;" >/dev/null
ask w2 "SELECT 1;" >/dev/null
check "two backends that route on a new ring at once: one build, one mapping" \
	"$(($(server_count built) - built)) $(($(server_count mapped) - mapped)) $(q "SELECT builds, maps FROM chash.shared_rings() WHERE ring = 'big'")" "1 1 1 1"
close w1
close w2
await "SELECT count(*) = 0 FROM chash.shared_rings()" || fail "big still shared"

# a build that is cancelled leaves no entry behind
await "SELECT count(*) = 0 FROM chash.shared_rings()" || fail "big still shared"
out=$(PGOPTIONS="-c statement_timeout=20" psql_q -c "SELECT chash_lookup('big', 'k')" 2>&1 || true)
case $out in *"statement timeout"*) ok "a build cancelled by statement_timeout ends in its error" ;; *) fail "cancelled build: $out" ;; esac
check "and leaves no entry being built" "$(q "SELECT count(*) FROM chash.shared_rings() WHERE state = 'building'")" 0
check "the next backend builds and shares the ring" \
	"$(psql_q -c "SELECT chash_lookup('big', 'k') IS NOT NULL" -c "SELECT backend FROM chash.shared_ring_stats() WHERE counter = 'built'")" "t
1"

# a builder terminated, then one killed, in the middle of its build
for how in terminate kill; do
	await "SELECT count(*) = 0 FROM chash.shared_rings()" || fail "big still shared before the $how"
	open v
	vpid=$(ask v "SELECT pg_backend_pid();")
	printf "SELECT chash_lookup('big', 'k');\n" >&"$fd_v"
	if await "SELECT count(*) > 0 FROM chash.shared_rings() WHERE state = 'building' AND builder = $vpid"; then
		if [ $how = terminate ]; then
			q "SELECT pg_terminate_backend($vpid)" >/dev/null
		else
			kill -9 "$vpid"
		fi
		ok "a builder caught building ($how)"
	else
		fail "the builder ($how) was never seen building"
	fi
	close v
	if [ $how = kill ]; then
		# the postmaster restarts every backend and reinitializes shared memory
		for i in $(seq 1 300); do
			"$bindir/pg_isready" -q && [ "$(q "SELECT 1" 2>/dev/null)" = 1 ] && break
			sleep 0.1
		done
	fi
	if await "SELECT count(*) = 0 FROM chash.shared_rings() WHERE state = 'building'"; then
		ok "no entry stays being built after the builder's $how"
	else
		fail "an entry stays being built after $how: $(q "SELECT * FROM chash.shared_rings()")"
	fi
	check "a new backend then builds and shares it ($how)" \
		"$(psql_q -c "SELECT chash_lookup('big', 'k') IS NOT NULL" -c "SELECT backend FROM chash.shared_ring_stats() WHERE counter = 'built'")" "t
1"
done

# chash.shared_memory: a ring that does not fit is built by each backend
q "ALTER SYSTEM SET chash.shared_memory = '256kB'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
await "SELECT current_setting('chash.shared_memory') = '256kB'" || fail "the setting was not reloaded"
fallbacks=$(server_count "fallback: memory limit")
got=$(psql_q -c "$(owners_sql r)")
check "past chash.shared_memory a backend routes as one that builds its own" "$got" "$want5"
check "counting why (memory limit), and sharing nothing" \
	"$(($(server_count "fallback: memory limit") - fallbacks)) $(q "SELECT count(*) FROM chash.shared_rings() WHERE ring = 'r'")" "1 0"
q "ALTER SYSTEM RESET chash.shared_memory" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null

# chash.shared_rings = off: today's behaviour, nothing shared
check "with chash.shared_rings off a backend builds its own and shares nothing" \
	"$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "SELECT chash_lookup('r', 'k') IS NOT NULL" -c "SELECT (SELECT builds FROM chash.cache_stats()), (SELECT count(*) FROM chash.shared_rings())")" "t
1 0"

# DROP EXTENSION and CREATE again while another backend holds a shared ring
open h
ask h "SELECT chash_lookup('r', 'k') IS NOT NULL;" >/dev/null
psql_q -c "DROP EXTENSION chash CASCADE" -c "CREATE EXTENSION chash" \
	-c "SELECT chash_ring_create('r', vnodes => 16384)" \
	-c "SELECT count(chash_node_add('r', 'node-' || g)) FROM generate_series(1, 3) g" >/dev/null
want3=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$(owners_sql r)")
check "after DROP EXTENSION and CREATE a new backend routes by the new ring" "$(psql_q -c "$(owners_sql r)")" "$want3"
check "and so does the backend that held the old one" "$(ask h "$(owners_sql r)")" "$want3"
close h
await "SELECT count(*) = 0 FROM chash.shared_rings()" || fail "rings still shared after the sessions ended: $(q "SELECT * FROM chash.shared_rings()")"
ok "every shared ring freed once no backend holds one"

# a role without the right to see the counts
q "CREATE ROLE nobody_$$ LOGIN" >/dev/null
out=$(psql_q -U "nobody_$$" -c "SELECT * FROM chash.shared_rings()" 2>&1 || true)
case $out in *"permission denied"*) ok "a role without pg_read_all_stats may not list the shared rings" ;; *) fail "shared_rings for a role without grants: $out" ;; esac
q "DROP ROLE nobody_$$" >/dev/null
stop_server "$tmp/data"

# --- 2. without shared_preload_libraries -----------------------------------
start data server.log
got=$(psql_q -c "SELECT chash_lookup('r', 'k') IS NOT NULL" -c "SELECT backend, coalesce(detail, '-'), (SELECT count(*) FROM chash.shared_rings()) FROM chash.shared_ring_stats() WHERE counter = 'fallback: unavailable'")
if [ "$major" -lt 17 ]; then
	check "without shared_preload_libraries (PostgreSQL $major) a lookup works, built alone, the reason counted" \
		"$got" "t
1 chash is not in shared_preload_libraries, which PostgreSQL 16 and older need for sharing 0"
else
	check "without shared_preload_libraries (PostgreSQL $major) the DSM registry shares the ring" \
		"$got" "t
0 - 1"
	# a connection whose first statement is a parallel query: chash loads
	# as its plan starts, too late to share the ring before the workers
	# do; its next parallel query shares it
	q "SELECT chash_ring_create('late', vnodes => 1000); SELECT chash_node_add('late', n) FROM unnest(ARRAY['x', 'y']) n" >/dev/null
	fresh_sql="SELECT count(*) FILTER (WHERE chash_lookup('late', g) IS NULL), min(chash_lookup('late', g)), max(chash_lookup('late', g)) FROM keys"
	got=$(psql_q -c "$par SET parallel_leader_participation = off;" -c "$fresh_sql" -c "$fresh_sql" \
		-c "SELECT server > 0 FROM chash.shared_ring_stats() WHERE counter = 'fallback: parallel query'" \
		-c "SELECT state, builds FROM chash.shared_rings() WHERE ring = 'late'")
	check "without shared_preload_libraries (PostgreSQL $major) a first statement that is a parallel query routes every key, and the next shares the ring" \
		"$got" "0 x y
0 x y
t
shared 1"
fi
stop_server "$tmp/data"

# --- 3. a /dev/shm too small for the ring -------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	fail "the small /dev/shm case needs root (a mount namespace)"
else
	init small
	# (in a chroot, whose root is no mount point, the namespace cannot
	# make every mount private: then /dev/shm alone is made private before
	# the small tmpfs covers it, so that it never reaches the machine's)
	if unshare -m --propagation private true 2>/dev/null; then
		propagation=private private_shm=true
	else
		propagation=unchanged private_shm="mount --make-private /dev/shm"
	fi
	start_small() {	# SETTINGS...: the cluster, in a namespace of its own
		unshare -m --propagation $propagation sh -c "
			$private_shm &&
			mount -t tmpfs -o size=4m tmpfs /dev/shm && chmod 1777 /dev/shm &&
			runuser -u postgres -- '$bindir/pg_ctl' -D '$tmp/small' -l '$tmp/small.log' -w \
				-o \"-c listen_addresses='' -k $tmp/small.sock -c port=5432 -c fsync=off -c shared_preload_libraries=chash -c max_parallel_workers_per_gather=0 $*\" start" >/dev/null
	}
	start_small
	export PGHOST=$tmp/small.sock
	q "CREATE EXTENSION chash" >/dev/null
	# 524,288 points: 5.5 MB as one block; 4,096 points: 50 kB (from 17,
	# the DSM registry takes about 1 MB of /dev/shm first)
	q "SELECT chash_ring_create('r', vnodes => 131072); SELECT chash_ring_create('s', vnodes => 1024)" >/dev/null
	q "SELECT chash_node_add(r, 'node-' || g) FROM generate_series(1, 4) g, unnest(ARRAY['r', 's']) r" >/dev/null
	want=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$(owners_sql r)")
	open h
	got=$(ask h "$(owners_sql r)")
	check "with /dev/shm too small for the ring, 100,000 lookups route as a backend's own build" "$got" "$want"
	got=$(ask h "SELECT backend, detail ~ 'No space left on device' FROM chash.shared_ring_stats() WHERE counter = 'fallback: error';")
	check "counting why (error), with the server's message" "$got" "1 t"
	[ "$got" = "1 t" ] || ask h "SELECT * FROM chash.shared_ring_stats();"
	wants=$(PGOPTIONS="-c chash.shared_rings=off" psql_q -c "$(owners_sql s)")
	ask h "$(owners_sql s)" >/dev/null
	check "a ring that fits is shared there, and routes as its own build" \
		"$(psql_q -c "$(owners_sql s)" -c "SELECT backend FROM chash.shared_ring_stats() WHERE counter = 'mapped'")" "$wants
1"
	close h
	stop_server "$tmp/small"

	# with min_dynamic_shared_memory PostgreSQL takes segments from its
	# main shared memory (where huge pages are, if any), not /dev/shm: the
	# ring too big for this /dev/shm is shared there
	start_small -c min_dynamic_shared_memory=16MB
	open h
	check "with min_dynamic_shared_memory the ring too big for /dev/shm is shared, from the main shared memory" \
		"$(ask h "$(owners_sql r)") $(q "SELECT state FROM chash.shared_rings() WHERE ring = 'r'")" "$want shared"
	check "another backend maps it, and routes as its own build" \
		"$(psql_q -c "$(owners_sql r)" -c "SELECT backend FROM chash.shared_ring_stats() WHERE counter IN ('mapped', 'fallback: error') ORDER BY counter")" "$want
0
1"
	close h
	if await "SELECT count(*) = 0 FROM chash.shared_rings()"; then
		ok "and it is freed once no backend holds it"
	else
		fail "the ring in the main shared memory still shared after its sessions ended"
	fi
	stop_server "$tmp/small"
fi

echo "shared_rings: $checks checks, $failed failed (PostgreSQL $major)"
[ "$failed" -eq 0 ]
