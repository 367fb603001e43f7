#!/usr/bin/env bash
# chash's performance figures, each against a peer, in one table:
#
#   figure | chash | peer | ratio | target | met
#
#   make bench          (or: test/bin/with-cluster.sh test/bench/bench.sh)
#
# Runs against the installed chash, in a database of its own that it creates
# and drops; about two minutes on 2 cores, and about 1 GB of disk in the
# cluster (figure 5's table of 10,000,000 rows is 422 MB).  Not part of make test: these are timings, which depend on the
# machine and on what else runs on it, and no suite may assert them.
#
# Method.  Every time is the server's own "Execution Time" of
# EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON): execution only, without
# planning, parsing or the client round trip, and without per-node clock
# reads (TIMING OFF; rows are still counted, alike on both sides).  Each
# query runs once untimed (to warm the buffers and build the rings of the
# backend), then N times interleaved with its peer (A B, B A, A B, ...),
# and the best run of each is kept.  Queries run serially
# (max_parallel_workers_per_gather = 0) except in figure 7, and with
# jit = off, so that LLVM's compile time does not blur the functions'
# own cost.  Key tables are prewarmed into shared buffers (pg_prewarm).
# Figures 4 and 15 use fresh backends (new connections), figure 8 a C program,
# test/bench/ketama_bench.c, built here against libmemcached, and figure 9
# chash's own ring code in a program (test/bench/core_bench.c) against it;
# figure 2b measures the machine's memory latency (test/bench/memlat.c).
#
# Environment:
#   CHASH_BENCH_RUNS      timed runs of each query (default 5)
#   CHASH_BENCH_BIG_ROWS  rows of figure 5's table (default 10000000)
#   CHASH_BENCH_BUILDS    fresh backends for figure 4 (default 3)
#   CHASH_BENCH_CHURN_SECONDS  seconds of each pgbench run of figure 10 (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
# Figures 1 to 14 measure rings each backend builds for itself; figure 15
# turns chash.shared_rings on where it measures rings shared across backends
export PGOPTIONS="${PGOPTIONS:-} -c chash.shared_rings=off"
shared_on="$PGOPTIONS -c chash.shared_rings=on"
runs=${CHASH_BENCH_RUNS:-5}
big_rows=${CHASH_BENCH_BIG_ROWS:-10000000}
builds=${CHASH_BENCH_BUILDS:-3}
for v in "$runs" "$big_rows" "$builds"; do
	case $v in '' | *[!0-9]* | 0*) echo "bench: CHASH_BENCH_* must be positive integers" >&2; exit 2 ;; esac
done

db=chash_bench_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-bench.XXXXXX")
cleanup() {
	[ -z "${holder:-}" ] || kill "$holder" 2>/dev/null || true
	"$bindir/dropdb" --force --if-exists "$db" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s)
progress() { echo "bench: [$(($(date +%s) - t0)) s] $*" >&2; }
pq() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

# --- the machine -----------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
[ -n "$cpu" ] || cpu=$(uname -m)
pkglib=$("${PG_CONFIG:-pg_config}" --pkglibdir)
so=$pkglib/chash.so
so_info=$(date -u -r "$so" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null || echo '?')
so_sum=$(md5sum "$so" 2>/dev/null | cut -c1-12 || echo '?')

"$bindir/createdb" "$db"
pq <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION chash;
CREATE EXTENSION pg_prewarm;
SQL

echo "chash benchmarks (test/bench/bench.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine:    $(nproc) CPUs (nproc), $cpu; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server:     $(pq -At -c 'SELECT version()')"
echo "chash:      $(pq -At -c "SELECT extversion FROM pg_extension WHERE extname = 'chash'"), $so ($so_info, md5 $so_sum...)"
echo "settings:   shared_buffers $(pq -At -c 'SHOW shared_buffers'), work_mem $(pq -At -c 'SHOW work_mem'), jit off, serial unless said"
# (hugetlb pages in the postmaster's mappings: its main shared memory)
postmaster=$(head -n 1 "${CHASH_PGDATA:-/nonexistent}/postmaster.pid" 2>/dev/null || true)
huge=unknown
if [ -n "$postmaster" ] && [ -r "/proc/$postmaster/smaps" ]; then
	if grep -Eq '^KernelPageSize: +[0-9]{4,} kB' "/proc/$postmaster/smaps"; then huge=on; else huge=off; fi
fi
echo "memory:     huge pages $huge (huge_pages $(pq -At -c 'SHOW huge_pages'); the machine's HugePages_Total $(awk '/^HugePages_Total/ { print $2 }' /proc/meminfo)), min_dynamic_shared_memory $(pq -At -c 'SHOW min_dynamic_shared_memory')"
echo "timing:     EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) Execution Time; best of $runs interleaved runs (A B, B A, ...) after one warm-up run of each"
echo

# --- data, rings and helpers -----------------------------------------------
progress "loading 1,000,000 keys, $big_rows big rows, rings"
pq -o /dev/null -v big_rows="$big_rows" <<'SQL'
SET client_min_messages = warning;
CREATE SCHEMA bench;

-- one run of q, serial or with up to `workers` workers per Gather: its plan
CREATE FUNCTION bench.explain(q text, workers int) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', workers::text, false);
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) ' || q INTO j;
	RETURN j::jsonb;
END
$$;
CREATE FUNCTION bench.ms(plan jsonb) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT (plan -> 0 ->> 'Execution Time')::float8 $$;
-- workers launched by every Gather of a plan, added up
CREATE FUNCTION bench.launched(plan jsonb) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
SELECT coalesce(sum(w::text::int), 0)::int
FROM jsonb_path_query(plan, 'strict $.**."Workers Launched"') w
$$;
CREATE FUNCTION bench.gathers(plan jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
SELECT coalesce(string_agg(format('Gather, %s workers planned, %s launched',
								  g ->> 'Workers Planned', g ->> 'Workers Launched'), '; '), 'no Gather')
FROM jsonb_path_query(plan, 'strict $.**?(@."Node Type" == "Gather" || @."Node Type" == "Gather Merge")') g
$$;
-- rows that the first node of that type returned
CREATE FUNCTION bench.node_rows(plan jsonb, node_type text) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
SELECT (jsonb_path_query_first(plan, 'strict $.**?(@."Node Type" == $t)."Actual Rows"',
							   jsonb_build_object('t', node_type)))::text::bigint
$$;

-- a and b: one warm-up run each, then n runs of each, interleaved
-- (a b, b a, a b, ...); the best time of each, the fewest workers launched
-- in a timed run, and a's last plan
CREATE FUNCTION bench.pair(a text, b text, n int, a_workers int DEFAULT 0, b_workers int DEFAULT 0,
						   OUT a_ms float8, OUT b_ms float8,
						   OUT a_launched int, OUT b_launched int, OUT a_plan jsonb)
LANGUAGE plpgsql AS $$
DECLARE
	pb jsonb;
BEGIN
	PERFORM bench.explain(a, a_workers);
	PERFORM bench.explain(b, b_workers);
	FOR i IN 1 .. n LOOP
		IF i % 2 = 1 THEN
			a_plan := bench.explain(a, a_workers);
			pb := bench.explain(b, b_workers);
		ELSE
			pb := bench.explain(b, b_workers);
			a_plan := bench.explain(a, a_workers);
		END IF;
		a_ms := least(a_ms, bench.ms(a_plan));
		b_ms := least(b_ms, bench.ms(pb));
		a_launched := least(a_launched, bench.launched(a_plan));
		b_launched := least(b_launched, bench.launched(pb));
	END LOOP;
	PERFORM set_config('max_parallel_workers_per_gather', '0', false);
END
$$;
-- one query alone: a warm-up run, then the best of n
CREATE FUNCTION bench.best(q text, n int, OUT ms float8, OUT plan jsonb)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM bench.explain(q, 0);
	FOR i IN 1 .. n LOOP
		plan := bench.explain(q, 0);
		ms := least(ms, bench.ms(plan));
	END LOOP;
END
$$;

-- the chash contexts of this backend
CREATE FUNCTION bench.ring_bytes() RETURNS bigint
LANGUAGE sql AS $$
SELECT coalesce(sum(total_bytes), 0)::bigint FROM pg_backend_memory_contexts WHERE name = 'chash ring'
$$;
-- this backend's peak resident memory so far (VmHWM), in bytes
CREATE FUNCTION bench.peak_rss() RETURNS bigint
LANGUAGE sql AS $$
SELECT 1024 * substring(pg_read_file('/proc/' || pg_backend_pid() || '/status')
						FROM 'VmHWM:\s+(\d+) kB')::bigint
$$;
-- figure 4: the first lookup on a ring in this backend, which builds it,
-- after a lookup on the small ring r100 has loaded the library and
-- warmed the catalog caches
CREATE FUNCTION bench.build_probe(ring text,
								  OUT first_ms float8, OUT second_ms float8, OUT builds bigint,
								  OUT ring_bytes bigint, OUT peak_rss_growth bigint)
LANGUAGE plpgsql AS $$
DECLARE
	q text := format('SELECT chash_lookup(%L, %L)', ring, 'key:1');
	builds0 bigint;
	bytes0 bigint;
	rss0 bigint;
BEGIN
	PERFORM bench.explain($q$SELECT chash_lookup('r100', 'key:1')$q$, 0);
	builds0 := (SELECT s.builds FROM chash.cache_stats() s);
	bytes0 := bench.ring_bytes();
	rss0 := bench.peak_rss();
	first_ms := bench.ms(bench.explain(q, 0));
	peak_rss_growth := bench.peak_rss() - rss0;
	builds := (SELECT s.builds FROM chash.cache_stats() s) - builds0;
	ring_bytes := bench.ring_bytes() - bytes0;
	second_ms := bench.ms(bench.explain(q, 0));
END
$$;

CREATE FUNCTION bench.num(x float8, digits int DEFAULT 1) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN x IS NULL THEN 'n/a'
	   ELSE to_char(round(x::numeric, digits),
					'FM999,999,999,999,990' || CASE WHEN digits > 0 THEN '.' || repeat('0', digits) ELSE '' END)
	   END
$$;
-- '104.7 ms, 104.7 ns/key'
CREATE FUNCTION bench.per_key(ms float8, nkeys bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
SELECT bench.num(ms) || ' ms, ' || bench.num(ms * 1e6 / nkeys) || ' ns/key'
$$;
CREATE FUNCTION bench.yn(ok boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN ok THEN 'yes' WHEN NOT ok THEN 'no' ELSE '?' END $$;

CREATE TABLE bench.results (
	ord numeric PRIMARY KEY,
	figure text NOT NULL,
	chash text,
	peer text,
	ratio text,
	target text,
	met text,
	note text			-- printed under the table
);

-- keys
CREATE TABLE keys AS SELECT 'key:' || i AS k FROM generate_series(1, 1000000) i;
CREATE TABLE keys100k AS SELECT 'key:' || i AS k FROM generate_series(1, 100000) i;
CREATE TABLE big AS SELECT 'key:' || i AS k FROM generate_series(1, :big_rows) i;
VACUUM (ANALYZE) keys, keys100k, big;
SELECT pg_prewarm('keys'), pg_prewarm('keys100k') \g /dev/null

-- r100: 100 nodes x 160 vnodes, the default ring algorithm (xxh3_64);
-- r101: r100 and one more node
SELECT chash_ring_create('r100');
SELECT count(chash_node_add('r100', 'node-' || i)) FROM generate_series(1, 100) i \g /dev/null
SELECT chash_ring_copy('r100', 'r101');
SELECT chash_node_add('r101', 'node-101');
-- r4m: 4 nodes x 1,048,576 vnodes = 4,194,304 points; r4m_b: the same
-- with node-4 replaced by node-5 (also 4,194,304 points)
SELECT chash_ring_create('r4m', vnodes => 1048576);
SELECT count(chash_node_add('r4m', 'node-' || i)) FROM generate_series(1, 4) i \g /dev/null
SELECT chash_ring_copy('r4m', 'r4m_b');
SELECT chash_node_remove('r4m_b', 'node-4');
SELECT chash_node_add('r4m_b', 'node-5');
-- k100: ketama, 100 servers named as libmemcached hashes servers on port
-- 11211 (10.0.0.1 ...), weight 1, as ketama_bench.c sets them up
SELECT chash_ring_create('k100', algorithm => 'ketama');
SELECT count(chash_node_add('k100', format('10.0.%s.%s', i / 250, i % 250 + 1)))
FROM generate_series(0, 99) i \g /dev/null

-- figure 3's peer: r100's points in a table with a btree.  64-bit
-- positions are signed bigints in SQL while the ring is ordered unsigned:
-- flipping the sign bit (x # -2^63) maps unsigned order onto signed
-- order, for the points and the keys alike.
CREATE TABLE pts AS
SELECT point # (-9223372036854775808)::bigint AS position, node FROM chash_points('r100');
CREATE INDEX pts_position ON pts (position);
VACUUM (ANALYZE) pts;
SELECT pg_prewarm('pts'), pg_prewarm('pts_position') \g /dev/null
SQL

ring_points() { pq -At -c "SELECT points FROM chash.rings WHERE ring = '$1'"; }
if [ "$(ring_points r100)" != 16000 ] || [ "$(ring_points r4m)" != 4194304 ] ||
	[ "$(ring_points r4m_b)" != 4194304 ]; then
	echo "bench: the rings do not have the expected points" >&2
	exit 1
fi

# --- figure 4: building a ring of 4,194,304 points, in fresh backends --------
progress "figure 4: building r4m in $builds fresh backends"
best_first='' best_line=''
for _ in $(seq "$builds"); do
	line=$(pq -At -F' ' -c "SET jit = off" -c "SELECT * FROM bench.build_probe('r4m')")
	first=${line%% *}
	if [ -z "$best_first" ] || awk -v a="$first" -v b="$best_first" 'BEGIN { exit !(a < b) }'; then
		best_first=$first
		best_line=$line
	fi
done
read -r b_first b_second b_builds b_bytes b_rss <<<"$best_line"

# figure 6, cold: chash_moved_ranges in a fresh backend, which builds both rings
progress "figure 6b: chash_moved_ranges in a fresh backend"
cold6=$(pq -At -c "SET jit = off" -c "SELECT bench.ms(bench.explain(\$\$SELECT count(*) FROM chash_moved_ranges('r4m', 'r4m_b')\$\$, 0))")

pq -v first="$b_first" -v second="$b_second" -v nbuilds="$b_builds" -v bytes="$b_bytes" \
	-v rss="$b_rss" -v builds="$builds" -v cold6="$cold6" <<'SQL'
INSERT INTO bench.results VALUES
(4, '4a build 4,194,304 points: first lookup, fresh backend',
	bench.num(:first) || ' ms', '-', '-', '< 1,000 ms', bench.yn(:first < 1000),
	format('SELECT chash_lookup(''r4m'', ''key:1''), 4 nodes x 1,048,576 vnodes, in a new connection whose library and catalog caches a lookup on r100 warmed; best of %s backends.  The call built %s ring (chash.cache_stats() builds); the second lookup took %s ms.',
		   :builds, :nbuilds, bench.num(:second, 3))),
(4.1, '4b ring memory per point',
	bench.num(:bytes, 0) || ' bytes', '4,194,304 points', bench.num(:bytes::float8 / 4194304, 4),
	'<= 12 bytes/point (2 decimals)', bench.yn(round(:bytes::numeric / 4194304, 2) <= 12),
	'total_bytes of the ''chash ring'' contexts (pg_backend_memory_contexts) that the build added; ratio = bytes / point.'),
(4.2, '4c (info) peak memory of the build per point',
	bench.num(:rss / 1048576.0) || ' MiB', '-', bench.num(:rss::float8 / 4194304, 1), '-', '-',
	'How much the backend''s peak resident memory (VmHWM, /proc) grew during the build: the ring and what the build needs on the way (sorting, the catalog).'),
(6.1, '6b (info) the same, cold: the call builds both rings',
	bench.num(:cold6) || ' ms', '-', '-', '< 2,000 ms', bench.yn(:cold6 < 2000),
	'The first call of figure 6 in a new connection: one run, both rings built by it.');
SQL

# --- figure 10: a change to one ring costs another ring nothing --------------
# 8 pgbench clients route on r4m (4,194,304 points), once with the rings
# left alone and once while another session changes another ring,
# 'changing' (100 nodes), once a second.
# Each pgbench run opens new connections, each of which builds r4m at its
# first lookup, in both runs alike.
cat >"$work/route_r4m.sql" <<'EOF'
\set k random(1, 1000000)
SELECT chash_lookup('r4m', 'key:' || :k);
EOF
pgbench_tps() {	# SECONDS CLIENTS SCRIPT: tps without connection time
	local out
	out=$("$bindir/pgbench" -n -M prepared -T "$1" -c "$2" -j 2 -f "$3" "$db" 2>&1) || {
		echo "bench: pgbench failed: $out" >&2
		return 1
	}
	if grep -q '^number of failed transactions' <<<"$out" &&
		! grep -q '^number of failed transactions: 0 ' <<<"$out"; then
		echo "bench: pgbench had failed transactions: $out" >&2
		return 1
	fi
	sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$out"
}
pq -o /dev/null -c "SELECT chash_ring_create('changing')" \
	-c "SELECT count(chash_node_add('changing', 'node-' || i)) FROM generate_series(1, 100) i"
changes_per_second() {	# SECONDS: change ring 'changing' once a second
	local i
	for i in $(seq "$1"); do
		pq -c "SELECT chash_node_set('changing', 'node-1', weight => $((i % 2 + 1)))" >/dev/null
		sleep 1
	done
}
fig10_secs=${CHASH_BENCH_CHURN_SECONDS:-20}
progress "figure 10: 8 clients on r4m for $fig10_secs s, quiet, then while another ring changes once a second"
quiet_tps=$(pgbench_tps "$fig10_secs" 8 "$work/route_r4m.sql")
changes_per_second "$fig10_secs" &
changer=$!
churn_tps=$(pgbench_tps "$fig10_secs" 8 "$work/route_r4m.sql")
wait "$changer"
[ -n "$quiet_tps" ] && [ -n "$churn_tps" ] || { echo "bench: figure 10 has no tps" >&2; exit 1; }

# --- figure 11: what resolving a ring costs a statement ---------------------
# 20,000 dynamic statements of one chash_position each (each a new plan,
# call site and snapshot: the ring is resolved every time, the read
# privilege checked, its version read; then the key is hashed) against as
# many of one chash_hash of the same key hash, which resolves no ring:
# random()::text keys, so that the planner folds neither
progress "figure 11: 20,000 statements of one chash_position vs of one chash_hash"
fig11=$(pq -At -F' ' <<'SQL'
CREATE FUNCTION bench.statements(q text, n int) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	r text;
BEGIN
	EXECUTE q INTO r;
	t0 := clock_timestamp();
	FOR i IN 1 .. n LOOP
		EXECUTE q INTO r;
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
WITH runs AS (
	SELECT g, bench.statements($$SELECT chash_position('r100', random()::text)::text$$, 20000) AS lookup,
		   bench.statements($$SELECT chash_hash('xxh3_64', random()::text)::text$$, 20000) AS hash
	FROM generate_series(1, 3) g)
SELECT min(lookup), min(hash) FROM runs;
SQL
)
read -r fig11_lookup fig11_hash <<<"$fig11"
[ -n "$fig11_hash" ] || { echo "bench: figure 11 has no times" >&2; exit 1; }

# --- figure 12: a change costs what it changes ------------------------------
progress "figure 12: adding nodes one by one, 2,000 and 2,000 more; 100,000 in one statement vs one INSERT"
fig12=$(pq -At -F' ' <<'SQL'
SELECT chash_ring_create('grow', vnodes => 10);
CREATE FUNCTION bench.add_nodes(ring text, first int, last int) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	FOR i IN first .. last LOOP
		PERFORM chash_node_add(ring, 'node-' || i);
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
CREATE FUNCTION bench.timed(q text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
SELECT chash_ring_create('grow_fn', vnodes => 10), chash_ring_create('grow_dml', vnodes => 10);
SELECT bench.add_nodes('grow', 1, 2000), bench.add_nodes('grow', 2001, 4000),
	   bench.timed($$SELECT count(chash_node_add('grow_fn', 'node-' || g)) FROM generate_series(1, 100000) g$$),
	   bench.timed($$INSERT INTO chash.node_config (ring, node) SELECT 'grow_dml', 'node-' || g FROM generate_series(1, 100000) g$$);
SQL
)
fig12=$(tail -n 1 <<<"$fig12")
read -r add_first add_second add_fn add_dml <<<"$fig12"
add_rows=$(pq -At -c "SELECT count(*) FROM chash.node_config WHERE ring IN ('grow_fn', 'grow_dml')")
[ "$add_rows" = 200000 ] || { echo "bench: figure 12 did not add 200,000 nodes: $fig12, $add_rows" >&2; exit 1; }

pq -v quiet="$quiet_tps" -v churn="$churn_tps" -v secs="$fig10_secs" \
	-v lookup="$fig11_lookup" -v hash="$fig11_hash" \
	-v first="$add_first" -v second="$add_second" -v fn="$add_fn" -v dml="$add_dml" <<'SQL'
INSERT INTO bench.results VALUES
(10, '10 lookups/s on the 4M ring, 8 clients, while another ring changes each second',
	bench.num(:churn, 0) || ' lookups/s', bench.num(:quiet, 0) || ' lookups/s (no changes)',
	bench.num(:churn / :quiet, 2), 'chash/peer >= 0.9', bench.yn(:churn / :quiet >= 0.9),
	format('pgbench -M prepared -c 8 -j 2 -T %s, a transaction SELECT chash_lookup(''r4m'', ''key:'' || random key); chash: the same while another session runs chash_node_set(''changing'', ''node-1'', weight => 1 or 2) once a second (%s changes; ring changing: 100 nodes); tps without connection time, each client''s first lookup building r4m in both runs.  Before version 1.2 every change made every backend rebuild every ring.',
		   :secs, :secs)),
(11, '11 resolving a ring: one chash_position a statement vs one chash_hash',
	bench.num(:lookup) || ' ms, ' || bench.num(:lookup * 1000 / 20000, 2) || ' us/statement',
	bench.num(:hash) || ' ms, ' || bench.num(:hash * 1000 / 20000, 2) || ' us/statement',
	bench.num(:lookup / :hash, 2), '- (information)', '-',
	format('PL/pgSQL EXECUTE of SELECT chash_position(''r100'', random()::text)::text against SELECT chash_hash(''xxh3_64'', random()::text)::text (r100''s key hash: the same value), 20,000 times each, best of 3.  Every chash_position statement is planned anew and resolves its ring: the read privilege and row-level security of the catalog checked, the ring''s version read from ring_config''s primary key, the cached ring found.  The difference, %s us a statement, is what resolving costs.',
		   bench.num((:lookup - :hash) * 1000 / 20000, 2))),
(12, '12 adding nodes one by one: 2,000 more vs the first 2,000',
	bench.num(:second) || ' ms', bench.num(:first) || ' ms', bench.num(:second / :first, 2),
	'chash/peer <= 1.2', bench.yn(:second / :first <= 1.2),
	'PERFORM chash_node_add(''grow'', ...) in a PL/pgSQL loop, nodes 2,001 to 4,000 against 1 to 2,000 (vnodes 10).  Before version 1.2 each addition counted the whole ring: 2.7 s, then 8.0 s.'),
(12.1, '12b 100,000 nodes added in one statement vs INSERT of the same rows',
	bench.num(:fn) || ' ms', bench.num(:dml) || ' ms', bench.num(:fn / :dml, 1), '- (information)', '-',
	'SELECT count(chash_node_add(''grow_fn'', ''node-'' || g)) FROM generate_series(1, 100000) g against INSERT INTO chash.node_config ... SELECT of the same 100,000 rows on a ring of its own (vnodes 10): each call is a statement of its own, checked from its one row.  Before version 1.2 the calls took more than 10 minutes.');
SQL

# --- figure 13: the costly calls of big rings ---------------------------------
progress "figure 13: chash_ownership, 3 replicas, of 16,000 weighted rendezvous nodes vs 1,000; chash_lookup_n by zones vs chash_lookup, 80,000 nodes"
fig13=$(pq -At -F' ' <<'SQL'
SELECT chash_ring_create('own1k', algorithm => 'rendezvous'),
	   chash_ring_create('own16k', algorithm => 'rendezvous'),
	   chash_ring_create('zones80k', algorithm => 'rendezvous');
SELECT count(chash_node_add('own1k', 'node-' || i, weight => 1 + i % 7)) FROM generate_series(1, 1000) i;
SELECT count(chash_node_add('own16k', 'node-' || i, weight => 1 + i % 7)) FROM generate_series(1, 16000) i;
SELECT count(chash_node_add('zones80k', 'node-' || i, weight => 1 + i % 3, zone => 'zone-' || i % 4))
FROM generate_series(1, 80000) i;
-- the rings built in this backend first; then the best of 3 of each
SELECT chash_lookup('own1k', 'warm'), chash_lookup('own16k', 'warm'), chash_lookup('zones80k', 'warm');
CREATE FUNCTION bench.best_timed(q text) RETURNS float8
LANGUAGE sql AS $$ SELECT min(bench.timed(q)) FROM generate_series(1, 3) $$;
SELECT bench.best_timed($$SELECT sum(owned) FROM chash_ownership('own16k', 3)$$),
	   bench.best_timed($$SELECT sum(owned) FROM chash_ownership('own1k', 3)$$),
	   bench.best_timed($$SELECT count(chash_lookup_n('zones80k', 'key:' || i, 2, true)) FROM generate_series(1, 500) i$$),
	   bench.best_timed($$SELECT count(chash_lookup('zones80k', 'key:' || i)) FROM generate_series(1, 500) i$$),
	   (SELECT round(sum(owned)::numeric, 6) FROM chash_ownership('own16k', 3));
SQL
)
fig13=$(tail -n 1 <<<"$fig13")
read -r own16k own1k zones_n zones_one own16k_sum <<<"$fig13"
[ "$own16k_sum" = 3.000000 ] || { echo "bench: figure 13's shares do not sum to 3 replicas: $fig13" >&2; exit 1; }

pq -v own16k="$own16k" -v own1k="$own1k" -v zones_n="$zones_n" -v zones_one="$zones_one" <<'SQL'
INSERT INTO bench.results VALUES
(13, '13 chash_ownership with 3 replicas: 16,000 weighted rendezvous nodes vs 1,000',
	bench.num(:own16k) || ' ms', bench.num(:own1k) || ' ms', bench.num(:own16k / :own1k, 1),
	'chash/peer <= 32', bench.yn(:own16k / :own1k <= 32),
	'SELECT sum(owned) FROM chash_ownership(ring, 3), rendezvous rings of weights 1 to 7, best of 3.  16 times the nodes: the integral''s steps cost groups x replicas x log(groups) each, so a little more than 16 times.  Before version 1.4''s fix a step cost each member nodes x groups, so the ring of 16,000 nodes took hours, checking for cancel once a member (15,000 nodes: 19 s between two checks).'),
(13.1, '13b chash_lookup_n(ring, key, 2, distinct_zones) vs chash_lookup, 80,000 nodes in 4 zones',
	bench.num(:zones_n) || ' ms', bench.num(:zones_one) || ' ms', bench.num(:zones_n / :zones_one, 2),
	'chash/peer <= 3', bench.yn(:zones_n / :zones_one <= 3),
	'500 keys each on a weighted rendezvous ring, best of 3.  The owner is one pass over the members; a list of 2 by zones keeps the best 2 (or, until two zones are met, 4, 8, ...) in a heap in the same pass.  Before version 1.4''s fix the list ranked every member, by insertion: 2 s a key at 80,000 nodes.');
SQL

# --- figure 13c-e: walks by zones, and keyed lookups of long keys ------------
progress "figure 13c-e: chash_ownership by zones of a maglev table and a ring, one node alone in its zone; pymemcache lookups of a 1 MB key"
fig13c=$(pq -At -F' ' <<'SQL'
SELECT chash_ring_create('zonemaglev', algorithm => 'maglev', table_size => 1000003),
	   chash_ring_create('zonering', vnodes => 100),
	   chash_ring_create('keyed100', algorithm => 'rendezvous', ketama_variant => 'pymemcache', hash => 'pymemcache_murmur3');
SELECT count(chash_node_add('zonemaglev', 'node-' || i, zone => CASE WHEN i = 1 THEN 'a' ELSE 'b' END)) FROM generate_series(1, 5000) i;
SELECT count(chash_node_add('zonering', 'node-' || i, zone => CASE WHEN i = 1 THEN 'a' ELSE 'b' END)) FROM generate_series(1, 2000) i;
SELECT count(chash_node_add('keyed100', 'node-' || i)) FROM generate_series(1, 100) i;
SELECT chash_lookup('zonemaglev', 'warm'), chash_lookup('zonering', 'warm'), chash_lookup('keyed100', 'warm');
CREATE TABLE bench.long_key AS SELECT repeat('k', 1024 * 1024) AS k;
SELECT bench.best_timed($$SELECT sum(owned) FROM chash_ownership('zonemaglev', 2, true)$$),
	   bench.best_timed($$SELECT sum(owned) FROM chash_ownership('zonemaglev', 1, false)$$),
	   bench.best_timed($$SELECT sum(owned) FROM chash_ownership('zonering', 2, true)$$),
	   bench.best_timed($$SELECT sum(owned) FROM chash_ownership('zonering', 1, false)$$),
	   bench.best_timed($$SELECT chash_lookup('keyed100', k) FROM bench.long_key$$),
	   bench.best_timed($$SELECT sum(chash_hash('pymemcache_murmur3', 'node-' || i || '-' || k)) FROM bench.long_key, generate_series(1, 100) i$$),
	   (SELECT round(sum(owned)::numeric, 6) FROM chash_ownership('zonemaglev', 2, true)),
	   (SELECT round(sum(owned)::numeric, 6) FROM chash_ownership('zonering', 2, true));
SQL
)
fig13c=$(tail -n 1 <<<"$fig13c")
read -r zm2 zm1 zr2 zr1 keyed keyed_peer zm_sum zr_sum <<<"$fig13c"
[ "$zm_sum" = 2.000000 ] && [ "$zr_sum" = 2.000000 ] ||
	{ echo "bench: figure 13c's shares do not sum to 2 replicas: $fig13c" >&2; exit 1; }

pq -v zm2="$zm2" -v zm1="$zm1" -v zr2="$zr2" -v zr1="$zr1" -v keyed="$keyed" -v keyed_peer="$keyed_peer" <<'SQL'
INSERT INTO bench.results VALUES
(13.2, '13c chash_ownership(ring, 2, distinct_zones) vs one replica: maglev, 1,000,003 slots, 5,000 nodes, one alone in its zone',
	bench.num(:zm2) || ' ms', bench.num(:zm1) || ' ms', bench.num(:zm2 / :zm1, 2),
	'chash/peer <= 3', bench.yn(:zm2 / :zm1 <= 3),
	'Best of 3.  One pass over the table keeps move-to-front lists of nodes and of zones, each zone led by its node nearest on, so a run of slots picks its 2 copies from the zones'' leaders: replicas a run.  Before version 1.4''s fix every run copied and scanned all 5,000 members'' walk: 8.6 s on the machine of the last run.'),
(13.3, '13d chash_ownership(ring, 2, distinct_zones) vs one replica: 2,000 nodes x 100 vnodes, one alone in its zone',
	bench.num(:zr2) || ' ms', bench.num(:zr1) || ' ms', bench.num(:zr2 / :zr1, 2),
	'chash/peer <= 3', bench.yn(:zr2 / :zr1 <= 3),
	'Best of 3; the lists of 13c over the ring''s 200,000 points.  Before version 1.4''s fix each point walked the ring on until the lone zone''s node: 600 ms on the machine of the last run.'),
(13.4, '13e chash_lookup of a 1 MB key on 100 pymemcache nodes vs 100 chash_hash of "<node>-<key>"',
	bench.num(:keyed) || ' ms', bench.num(:keyed_peer) || ' ms', bench.num(:keyed / :keyed_peer, 2),
	'chash/peer <= 1.5', bench.yn(:keyed / :keyed_peer <= 1.5),
	'Best of 3.  pymemcache''s RendezvousHash hashes the node''s name and the whole key once a node, so a lookup costs nodes x key bytes, as the same hashes from SQL do; it checks for cancel by the bytes hashed (a 200 MB key on 100 nodes stops within about 0.1 s of statement_timeout), where 1.4 before its fix ran 41 s past a 2-s timeout.');
SQL

# --- figure 14: planning a rebalance of 16,384 slots --------------------------
progress "figure 14: chash_rebalance of a 16,384-slot ring, 200,000 rows, against chash_load alone"
fig14=$(pq -At -F' ' <<'SQL'
SET client_min_messages = warning;
-- 5 masters holding the slots, a 6th added empty
SELECT chash_ring_create('slots6', profile => 'redis_cluster');
SELECT count(chash_node_add('slots6', 'm' || i)) FROM generate_series(1, 6) i;
UPDATE chash.node_config
SET slots = CASE WHEN node = 'm6' THEN '{}'
				 ELSE ARRAY[int4range((substr(node, 2)::int - 1) * 16384 / 5, substr(node, 2)::int * 16384 / 5)] END
WHERE ring = 'slots6';
-- skewed: 3 in 4 rows in 1,000 tenants' hash tags, log-uniform (Zipf-like),
-- values of 16 B to 2 KiB; flat: one key a row
CREATE TABLE bench.tenants AS
SELECT CASE WHEN g % 4 = 0 THEN 'obj:' || g
			ELSE '{tenant' || floor(exp(random() * ln(1000)))::int || '}:' || g END AS key,
	   repeat('x', (16 * 2 ^ (random() * 7))::int) AS value
FROM generate_series(1, 200000) g;
CREATE TABLE bench.flat AS SELECT 'key:' || g AS key FROM generate_series(1, 200000) g;
VACUUM ANALYZE bench.tenants, bench.flat;
-- best of 3 of chash_load and of chash_rebalance (which reads the same
-- load, then plans and creates its ring), interleaved; the slots moved
CREATE FUNCTION bench.rebalance(rel regclass, OUT load_ms float8, OUT rebalance_ms float8, OUT units bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM count(*) FROM chash_load('slots6', rel, 'key');
	FOR i IN 1 .. 3 LOOP
		load_ms := least(load_ms, bench.timed(format($q$SELECT count(*) FROM chash_load('slots6', %L, 'key')$q$, rel)));
		rebalance_ms := least(rebalance_ms, bench.timed(format(
			$q$SELECT count(*) FROM chash_rebalance('slots6', 'slots6_into', %L, 'key')$q$, rel)));
		SELECT sum(upper(m.slots) - lower(m.slots)) INTO units FROM chash_moved_slots('slots6', 'slots6_into') m;
		PERFORM chash_ring_drop('slots6_into');
	END LOOP;
END
$$;
SELECT * FROM bench.rebalance('bench.tenants');
SELECT * FROM bench.rebalance('bench.flat');
-- 100,000 token ranges: 100 nodes of 1,000 tokens each, the first ten
-- nodes' tokens twice as dense as the others' (so they own more)
SELECT chash_ring_create('tokens100', algorithm => 'tokens');
SELECT count(chash_node_add('tokens100', 'n' || i,
							tokens => (SELECT array_agg(DISTINCT hashint8(i * 1000003 + g)::bigint * 4294967296 + (hashint8(g)::bigint & 4294967295))
									   FROM generate_series(1, CASE WHEN i <= 10 THEN 1900 ELSE 900 END) g)))
FROM generate_series(1, 100) i;
CREATE FUNCTION bench.rebalance_tokens(OUT load_ms float8, OUT rebalance_ms float8, OUT units bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM count(*) FROM chash_load('tokens100', 'bench.flat', 'key');
	FOR i IN 1 .. 3 LOOP
		load_ms := least(load_ms, bench.timed($q$SELECT count(*) FROM chash_load('tokens100', 'bench.flat', 'key')$q$));
		rebalance_ms := least(rebalance_ms, bench.timed(
			$q$SELECT count(*) FROM chash_rebalance('tokens100', 'tokens100_into', 'bench.flat', 'key')$q$));
		SELECT sum(r.units) INTO units FROM chash_rebalance('tokens100', 'tokens100_units', 'bench.flat', 'key') r;
		PERFORM chash_ring_drop('tokens100_into');
		PERFORM chash_ring_drop('tokens100_units');
	END LOOP;
END
$$;
SELECT * FROM bench.rebalance_tokens();
SQL
)
read -r t_load t_rebalance t_units flat_load flat_rebalance flat_units tok_load tok_rebalance tok_units \
	<<<"$(grep -E '^[0-9.]+ [0-9.]+ [0-9]+$' <<<"$fig14" | tail -n 3 | tr '\n' ' ')"
[ -n "$tok_units" ] || { echo "bench: figure 14 has no times: $fig14" >&2; exit 1; }

pq -v tl="$t_load" -v tr="$t_rebalance" -v tu="$t_units" -v fl="$flat_load" -v fr="$flat_rebalance" -v fu="$flat_units" \
	-v kl="$tok_load" -v kr="$tok_rebalance" -v ku="$tok_units" <<'SQL'
INSERT INTO bench.results VALUES
(14, '14 rebalance planning, 16,384 slots, 200,000 skewed rows: plan (rebalance - load) vs chash_load',
	bench.num(:tr - :tl) || ' ms', bench.num(:tl) || ' ms', bench.num((:tr - :tl) / :tl, 2),
	'chash <= 1000 ms', bench.yn(:tr - :tl <= 1000),
	format('A redis_cluster ring of 5 masters holding the slots and a 6th added empty; 200,000 rows, 3 in 4 in 1,000 tenants'' hash tags ({tenantN}:i, log-uniform), values of 16 B to 2 KiB.  chash_rebalance(ring, into, table, key) reads chash_load, plans, creates its ring: its time less chash_load''s alone is the planning.  Best of 3 each, interleaved; %s slots moved.',
		   :tu)),
(14.1, '14b the same, 200,000 keys spread evenly over the slots',
	bench.num(:fr - :fl) || ' ms', bench.num(:fl) || ' ms', bench.num((:fr - :fl) / :fl, 2),
	'chash <= 1000 ms', bench.yn(:fr - :fl <= 1000),
	format('As 14, on keys key:1 ... key:200000: every slot holds about 12 rows, so the plan moves many small slots to the new master (%s slots moved).', :fu)),
(14.2, '14c rebalance planning, 100,000 token ranges of 100 nodes, 200,000 rows: plan (rebalance - load) vs chash_load',
	bench.num(:kr - :kl) || ' ms', bench.num(:kl) || ' ms', bench.num((:kr - :kl) / :kl, 2),
	'chash <= 1000 ms', bench.yn(:kr - :kl <= 1000),
	format('A tokens ring of 100 nodes, the first ten with 1,900 tokens and the others 900 (about 100,000 in all), the keys of 14b.  chash_rebalance of a tokens ring reads the rows'' positions itself (with their sort, which chash_load does not do), so its time less chash_load''s is the planning and that sort.  Best of 3 each, interleaved; %s ranges given or split.', :ku));
SQL

# --- figures 8 and 9, C side: libmemcached, and chash's core outside the server
# Figure 9 links chash's pure code (test/bin/pure-code.sh: the objects
# test/bin/install.sh built)
# with test/unit/server_stubs.c and PostgreSQL's frontend libraries.
# the smaller of a best so far ($1, empty at first) and a new time ($2)
best_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "") ? a : (a == "" || b + 0 < a + 0) ? b : a }'; }
ketama_ok= core_ok=
pgcommon=$("$root/test/bin/pgcommon-dir.sh" 2>/dev/null) || pgcommon=
if [ -f /usr/include/libmemcached/memcached.h ] && command -v gcc >/dev/null &&
	gcc -O2 -Wall -o "$work/ketama_bench" "$root/test/bench/ketama_bench.c" -lmemcached; then
	ketama_ok=1
	if [ -n "$pgcommon" ] &&
		mapfile -t pure < <("$root/test/bin/pure-code.sh" sources) &&
		gcc -O2 -Wall -I"$("${PG_CONFIG:-pg_config}" --includedir-server)" -I"$root/src" \
			-o "$work/core_bench" "$root/test/bench/core_bench.c" "$root/test/unit/server_stubs.c" \
			"${pure[@]/%.c/.o}" \
			"$pgcommon/libpgcommon.a" "$pgcommon/libpgport.a" -lz -lnettle -lm; then
		core_ok=1
	else
		progress "figure 9: chash's core does not build outside the server (libpgcommon.a?): skipped"
	fi
	# three rounds, libmemcached then chash, each of $runs passes; the best
	progress "figures 8, 9: libmemcached's memcached_generate_hash and chash's core over 1,000,000 keys, 3 rounds"
	c_ns= core_ns=
	for _ in 1 2 3; do
		"$work/ketama_bench" 100 1000000 "$runs" "$work/routes.tsv" >"$work/ketama.out"
		c_ns=$(best_of "$c_ns" "$(sed -n 's/^best_ns_per_key=//p' "$work/ketama.out")")
		if [ -n "$core_ok" ]; then
			"$work/core_bench" 100 1000000 "$runs" "$work/core_routes.tsv" >"$work/core.out"
			core_ns=$(best_of "$core_ns" "$(sed -n 's/^best_ns_per_key=//p' "$work/core.out")")
		fi
	done
	c_points=$(sed -n 's/^points=//p' "$work/ketama.out")
	pq -c "CREATE TABLE bench.lm (key text, server text)" -c "\\copy bench.lm FROM pstdin" <"$work/routes.tsv"
	if [ -n "$core_ok" ]; then
		core_points=$(sed -n 's/^points=//p' "$work/core.out")
		core_differ=$(paste "$work/routes.tsv" "$work/core_routes.tsv" |
			awk -F'\t' '$1 != $3 || $2 != $4 { n++ } END { print n + 0 }')
		core_keys=$(wc -l <"$work/core_routes.tsv")
	fi
else
	progress "figures 8, 9: libmemcached-dev or gcc missing, or ketama_bench.c does not build: skipped"
fi

# --- figure 2b: this machine's memory latency ----------------------------------
memlat_ok=
if command -v gcc >/dev/null && gcc -O2 -Wall -o "$work/memlat" "$root/test/bench/memlat.c"; then
	progress "figure 2b: memory latency, 32 MiB and 125 KiB"
	if "$work/memlat" 33554432 128000 >"$work/memlat.out"; then
		lat_big=$(awk '$1 == 33554432 { print $2 }' "$work/memlat.out")
		lat_small=$(awk '$1 == 128000 { print $2 }' "$work/memlat.out")
		[ -n "$lat_big" ] && [ -n "$lat_small" ] && memlat_ok=1
	fi
fi

# --- figures 1, 2, 3, 5, 6, 7, 8, 9 in one session ----------------------------
pq -v runs="$runs" -v big_rows="$big_rows" -v ketama="${ketama_ok:-0}" \
	-v c_ns="${c_ns:-0}" -v c_points="${c_points:-0}" -v core="${core_ok:-0}" \
	-v core_ns="${core_ns:-0}" -v core_points="${core_points:-0}" \
	-v core_differ="${core_differ:-0}" -v core_keys="${core_keys:-0}" \
	-v memlat="${memlat_ok:-0}" -v lat_big="${lat_big:-0}" -v lat_small="${lat_small:-0}" <<'SQL'
SET jit = off;
SET max_parallel_workers_per_gather = 0;

\warn 'bench: figure 1: count(chash_lookup) on r100 vs count(hashtextextended), 1,000,000 keys'
INSERT INTO bench.results
SELECT 1, '1 lookup, 16,000-point ring vs hashtextextended',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(a_ms / b_ms, 2),
	   'chash/peer <= 1.5 (aim 1.15)', bench.yn(a_ms / b_ms <= 1.5),
	   'chash: SELECT count(chash_lookup(''r100'', k)) FROM keys; peer: SELECT count(hashtextextended(k, 0)) FROM keys.  keys: 1,000,000 rows ''key:'' || i, analyzed, prewarmed; r100: 100 nodes x 160 vnodes, algorithm ring, xxh3_64.'
FROM bench.pair($$SELECT count(chash_lookup('r100', k)) FROM keys$$,
				$$SELECT count(hashtextextended(k, 0)) FROM keys$$, :runs);

INSERT INTO bench.results
SELECT 1.1, '1b (info) the same scan without a function: count(k)',
	   bench.per_key(ms, 1000000), '-', '-', '-', '-',
	   'SELECT count(k) FROM keys: what scanning and counting cost a key in figures 1, 3, 7 and 8 before any function runs (best of the same number of runs, not interleaved).'
FROM bench.best($$SELECT count(k) FROM keys$$, :runs);

\warn 'bench: figure 2: flatness, 4,194,304 points vs 16,000'
CREATE TEMP TABLE f2 AS
SELECT * FROM bench.pair($$SELECT count(chash_lookup('r4m', k)) FROM keys$$,
						 $$SELECT count(chash_lookup('r100', k)) FROM keys$$, :runs);
INSERT INTO bench.results
SELECT 2, '2 flatness: 4,194,304-point ring vs 16,000-point ring',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(a_ms / b_ms, 2),
	   'chash/peer <= 1.3', bench.yn(a_ms / b_ms <= 1.3),
	   'chash: SELECT count(chash_lookup(''r4m'', k)) FROM keys, r4m: 4 nodes x 1,048,576 vnodes; peer: the same on r100.  Both rings built beforehand.'
FROM f2;
\if :memlat
INSERT INTO bench.results
SELECT 2.1, '2b (info) the big ring''s extra cost in memory reads',
	   bench.num((a_ms - b_ms) * 1e6 / 1000000) || ' ns/key more',
	   bench.num(:lat_big) || ' ns/read', bench.num((a_ms - b_ms) * 1e6 / 1000000 / :lat_big, 2),
	   '-', '-',
	   format('chash: figure 2''s two rings, the difference per key; peer: one read at a random place of a 32 MiB array (the 4M ring''s positions) that waits for the read before it, huge pages requested (test/bench/memlat.c; %s ns in 125 KiB, the 16,000-point ring''s positions).  ratio = reads the big ring costs a lookup: its arrays are far larger than the CPU''s caches, so a lookup waits for memory at least once.',
			  bench.num(:lat_small))
FROM f2;
\endif

\warn 'bench: figure 3: plain-SQL ring over a btree vs chash_lookup, 100,000 keys'
CREATE TEMP TABLE f3 AS
SELECT p.*, (SELECT ms FROM bench.best($$SELECT count(k) FROM keys100k$$, :runs)) AS scan_ms
FROM bench.pair($$SELECT count(chash_lookup('r100', k)) FROM keys100k$$,
				$$SELECT count(coalesce((SELECT node FROM pts WHERE position >= x.h ORDER BY position LIMIT 1),
									   (SELECT node FROM pts ORDER BY position LIMIT 1)))
				  FROM (SELECT chash_hash('xxh3_64', k) # (-9223372036854775808)::bigint AS h FROM keys100k) x$$,
				:runs) p;
INSERT INTO bench.results
SELECT 3, '3 chash_lookup vs plain-SQL ring (btree), 100,000 keys',
	   bench.per_key(a_ms, 100000), bench.per_key(b_ms, 100000), bench.num(b_ms / a_ms, 1),
	   'peer/chash >= 100', bench.yn(b_ms / a_ms >= 100),
	   'chash: SELECT count(chash_lookup(''r100'', k)) FROM keys100k; peer: SELECT count(coalesce((SELECT node FROM pts WHERE position >= x.h ORDER BY position LIMIT 1), (SELECT node FROM pts ORDER BY position LIMIT 1))) FROM (SELECT chash_hash(''xxh3_64'', k) # -2^63 AS h FROM keys100k) x, one index probe a key.  pts: r100''s points (chash_points) with a btree on position.  64-bit positions are signed in SQL and the ring is ordered unsigned: flipping the sign bit (# -2^63) of points and keys maps unsigned order onto signed order.  ratio = peer/chash.'
FROM f3;
INSERT INTO bench.results
SELECT 3.2, '3c the same, routing only: the scan of the keys subtracted',
	   bench.per_key(a_ms - scan_ms, 100000), bench.per_key(b_ms - scan_ms, 100000),
	   -- n/a and ? where the scan alone took as long as chash's query
	   bench.num((b_ms - scan_ms) / nullif(greatest(a_ms - scan_ms, 0), 0), 1),
	   'peer/chash >= 100', bench.yn((b_ms - scan_ms) / nullif(greatest(a_ms - scan_ms, 0), 0) >= 100),
	   format('Both of figure 3 less SELECT count(k) FROM keys100k (%s ms, best of the same number of runs): what routing a key costs each, without the scan and count they share, which alone bound figure 3''s ratio at %s.',
			  bench.num(scan_ms), bench.num(b_ms / scan_ms, 0))
FROM f3;
INSERT INTO bench.results
SELECT 3.1, '3b plain-SQL ring routes as chash_lookup',
	   bench.num(count(*) FILTER (WHERE p IS DISTINCT FROM c), 0) || ' differ', 'of ' || bench.num(count(*), 0), '-',
	   '0 differ', bench.yn(count(*) FILTER (WHERE p IS DISTINCT FROM c) = 0),
	   'The peer of figure 3 is correct: its owner of each of the 100,000 keys against chash_lookup(''r100'', k).'
FROM (SELECT chash_lookup('r100', x.k) AS c,
			 coalesce((SELECT node FROM pts WHERE position >= x.h ORDER BY position LIMIT 1),
					  (SELECT node FROM pts ORDER BY position LIMIT 1)) AS p
	  FROM (SELECT k, chash_hash('xxh3_64', k) # (-9223372036854775808)::bigint AS h FROM keys100k) x) y;

\warn 'bench: figure 5: chash_moved_keys vs count(chash_lookup) over the big table'
INSERT INTO bench.results
SELECT 5, format('5 chash_moved_keys vs one lookup, %s rows', bench.num(:big_rows, 0)),
	   bench.per_key(a_ms, :big_rows), bench.per_key(b_ms, :big_rows), bench.num(a_ms / b_ms, 2),
	   'chash/peer <= 2.5', bench.yn(a_ms / b_ms <= 2.5),
	   format('chash: SELECT count(*) FROM chash_moved_keys(''r100'', ''r101'', ''big'', ''k'') AS m(key text, f text, t text) (%s keys move); peer: SELECT count(chash_lookup(''r100'', k)) FROM big.  r101: r100 and node-101.  big: %s rows, %s%s.',
			  bench.num(bench.node_rows(a_plan, 'Function Scan'), 0), bench.num(:big_rows, 0),
			  pg_size_pretty(pg_table_size('big')),
			  CASE WHEN pg_table_size('big') > (SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers')
				   THEN ', more than shared_buffers: both sides read it through the OS cache' ELSE '' END)
FROM bench.pair($$SELECT count(*) FROM chash_moved_keys('r100', 'r101', 'big', 'k') AS m(key text, f text, t text)$$,
				$$SELECT count(chash_lookup('r100', k)) FROM big$$, :runs);

\warn 'bench: figure 6: chash_moved_ranges between two rings of 4,194,304 points'
INSERT INTO bench.results
SELECT 6, '6 chash_moved_ranges, 2 rings of 4,194,304 points',
	   bench.num(ms) || ' ms', '-', '-', '< 2,000 ms', bench.yn(ms < 2000),
	   format('SELECT count(*) FROM chash_moved_ranges(''r4m'', ''r4m_b''): r4m_b is r4m with node-4 replaced by node-5, %s ranges.  Both rings built beforehand in the backend (see 4a and 6b for building them).',
			  bench.num(bench.node_rows(plan, 'Function Scan'), 0))
FROM bench.best($$SELECT count(*) FROM chash_moved_ranges('r4m', 'r4m_b')$$, :runs);

\warn 'bench: figure 7: parallel count(chash_lookup), 2 workers vs 0'
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
INSERT INTO bench.results
SELECT 7, '7 parallel, 2 workers vs serial, 1,000,000 keys',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(b_ms / a_ms, 2),
	   'Gather of 2 workers; peer/chash > 1',
	   bench.yn(a_launched = 2 AND b_launched = 0 AND b_ms / a_ms > 1),
	   format('SELECT count(chash_lookup(''r100'', k)) FROM keys with max_parallel_workers_per_gather = 2 (chash; plan: %s, in every timed run: %s) and 0 (peer); parallel_setup_cost = parallel_tuple_cost = min_parallel_table_scan_size = 0.  Each worker is a new backend and builds r100 itself.  ratio = speed-up.',
			  bench.gathers(a_plan), bench.yn(a_launched = 2))
FROM bench.pair($$SELECT count(chash_lookup('r100', k)) FROM keys$$,
				$$SELECT count(chash_lookup('r100', k)) FROM keys$$, :runs, 2, 0);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

\if :ketama
\warn 'bench: figure 8: ketama, chash_lookup in SQL vs libmemcached in C'
CREATE TEMP TABLE f8 AS
SELECT * FROM bench.pair($$SELECT count(chash_lookup('k100', k)) FROM keys$$,
						 $$SELECT count(chash_hash('md5', k)) FROM keys$$, :runs);
INSERT INTO bench.results
SELECT 8, '8 ketama: SQL call incl. executor overhead vs bare C loop',
	   bench.per_key(a_ms, 1000000), bench.num(:c_ns) || ' ns/key', bench.num(a_ms * 1e6 / 1000000 / :c_ns, 2),
	   '- (information)', '-',
	   format('chash: SELECT count(chash_lookup(''k100'', k)) FROM keys, k100: ketama (libmemcached variant, md5), 100 nodes 10.0.0.1 ... 10.0.0.100 of weight 1, %s points; peer: libmemcached''s memcached_generate_hash() on the same servers (weighted ketama, port 11211, %s points) over the same 1,000,000 keys, prepared in memory, in a loop (test/bench/ketama_bench.c, the best pass of 3 rounds of %s, as in figure 9: more tries than chash''s side gets).  ratio = chash/libmemcached.',
			  (SELECT bench.num(points, 0) FROM chash.rings WHERE ring = 'k100'), bench.num(:c_points, 0), :runs)
FROM f8;
INSERT INTO bench.results
SELECT 8.1, '8b (info) the md5 key hash alone, in SQL',
	   bench.per_key(b_ms, 1000000), '-', '-', '-', '-',
	   'SELECT count(chash_hash(''md5'', k)) FROM keys, interleaved with 8''s chash query: how much of it is hashing the key.'
FROM f8;
INSERT INTO bench.results
SELECT 8.2, '8c ketama routes as libmemcached',
	   bench.num(count(*) FILTER (WHERE chash_lookup('k100', key) IS DISTINCT FROM server), 0) || ' differ',
	   'of ' || bench.num(count(*), 0), '-', '0 differ, of 1,000,000',
	   bench.yn(count(*) FILTER (WHERE chash_lookup('k100', key) IS DISTINCT FROM server) = 0 AND count(*) = 1000000),
	   'The server that libmemcached picked for each of the 1,000,000 keys against chash_lookup(''k100'', k).'
FROM bench.lm;
\else
INSERT INTO bench.results VALUES
(8, '8 ketama vs libmemcached', 'skipped', '-', '-', '-', '-', 'Needs gcc and libmemcached-dev.');
\endif

\if :core
INSERT INTO bench.results VALUES
(9, '9 C core outside PostgreSQL: ketama lookup vs libmemcached',
	bench.num(:core_ns) || ' ns/key', bench.num(:c_ns) || ' ns/key', bench.num(:core_ns / :c_ns, 2),
	'chash/peer <= 1', bench.yn(:core_ns <= :c_ns),
	format('chash: test/bench/core_bench.c, chash''s pure code (src/placement, src/hash, src/common) linked into a program of its own, routing the 1,000,000 keys of figure 8 through chash_ring_find on the ring chash builds for k100 (%s points): MD5 of the key (nettle), the bucket index, the owner.  peer: libmemcached''s memcached_generate_hash(), as in figure 8.  Keys prepared in memory; best pass of 3 rounds (libmemcached, then chash) of %s passes each.',
		   bench.num(:core_points, 0), :runs)),
(9.1, '9b C core routes as libmemcached',
	bench.num(:core_differ, 0) || ' differ', 'of ' || bench.num(:core_keys, 0), '-', '0 differ, of 1,000,000',
	bench.yn(:core_differ = 0 AND :core_keys = 1000000),
	'Each key''s node from core_bench.c against the server libmemcached picked, line by line.');
\else
INSERT INTO bench.results VALUES
(9, '9 C core outside PostgreSQL', 'skipped', '-', '-', '-', '-', 'Needs gcc, libmemcached-dev and PostgreSQL''s libpgcommon.a and libpgport.a.');
\endif
SQL

# --- figure 15: rings shared across backends ---------------------------------
# A holder session keeps r4m (and r100) mapped from shared memory, as the
# backend that built them, idle until the bench ends; the figures' sessions
# turn chash.shared_rings on.
progress "figure 15: rings shared across backends"
mkfifo "$work/holder.in"
PGOPTIONS=$shared_on "$bindir/psql" -X -q -d "$db" <"$work/holder.in" >/dev/null 2>&1 &
holder=$!
exec 8>"$work/holder.in"
echo "SELECT chash_lookup('r4m', 'key:1'), chash_lookup('r100', 'key:1');" >&8
for _ in $(seq 600); do
	[ "$(pq -At -c "SELECT count(*) FROM chash.shared_rings() WHERE ring IN ('r4m', 'r100') AND state = 'shared'")" = 2 ] && break
	sleep 0.1
done
[ "$(pq -At -c "SELECT count(*) FROM chash.shared_rings() WHERE state = 'shared'")" -ge 2 ] ||
	{ echo "bench: figure 15: the holder did not share r4m and r100 (chash.shared_rings() is empty: no shared memory?)" >&2; exit 1; }
ring_bytes=$(pq -At -c "SELECT bytes FROM chash.shared_rings() WHERE ring = 'r4m'")

# 15a: the first lookup of fresh backends on the ring another one built
best_shared='' shared_builds=''
for _ in $(seq "$builds"); do
	line=$(PGOPTIONS=$shared_on pq -At -F' ' -c "SET jit = off" -c "SELECT first_ms, builds FROM bench.build_probe('r4m')")
	first=${line%% *}
	if [ -z "$best_shared" ] || awk -v a="$first" -v b="$best_shared" 'BEGIN { exit !(a < b) }'; then
		best_shared=$first
		shared_builds=${line##* }
	fi
done

# 15b: the proportional set size of 50 backends that each routed 100,000
# keys on r4m (which touches nearly every page of its arrays), less that of
# 50 that routed them on a 4-point ring, with sharing on and off
pq -o /dev/null -c "SELECT chash_ring_create('tiny', vnodes => 1)" \
	-c "SELECT count(chash_node_add('tiny', 'node-' || i)) FROM generate_series(1, 4) i"
pss_of_50() {	# OPTIONS RING: total Pss of 50 backends that routed on RING, in bytes
	local i pids total=0 pid kb
	for i in $(seq 50); do
		PGOPTIONS=$1 PGAPPNAME=bench15 "$bindir/psql" -X -q -d "$db" \
			-c "SELECT count(chash_lookup('$2', k)) FROM keys100k" -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
	done
	for _ in $(seq 1200); do
		[ "$(pq -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'bench15' AND query LIKE '%pg_sleep%'")" = 50 ] && break
		sleep 0.1
	done
	pids=$(pq -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'bench15' AND query LIKE '%pg_sleep%'")
	for pid in $pids; do
		kb=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup")
		total=$((total + kb * 1024))
	done
	pq -o /dev/null -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'bench15'"
	wait_bench15
	echo "$(echo "$pids" | wc -w) $total"
}
wait_bench15() {
	for _ in $(seq 600); do
		[ "$(pq -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'bench15'")" = 0 ] && return
		sleep 0.1
	done
}
read -r n_on pss_on <<<"$(pss_of_50 "$shared_on" r4m)"
read -r n_tiny pss_tiny <<<"$(pss_of_50 "$shared_on" tiny)"
read -r n_off pss_off <<<"$(pss_of_50 "$PGOPTIONS" r4m)"
[ "$n_on $n_tiny $n_off" = "50 50 50" ] || { echo "bench: figure 15b did not see 50 backends each time: $n_on $n_tiny $n_off" >&2; exit 1; }

# 15g: the first query of a new connection on a ring no backend holds,
# parallel (2 workers) against serial: a parallel plan shares the ring
# before its workers start (src/functions/parallel.c), so each builds it
# once, where the leader and every worker would build it
pq -o /dev/null -c "SELECT chash_ring_copy('r4m', 'r4m_cold')"
first_query() {	# WORKERS: "ms rings_built" of a new connection's first count(chash_lookup('r4m_cold', k))
	PGOPTIONS=$shared_on pq -At -c "SET jit = off" -c "SET max_parallel_workers_per_gather = $1" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
		-c "SELECT sum(server) FROM chash.shared_ring_stats() WHERE counter IN ('built', 'fallback: parallel query')" \
		-c "SELECT extract(epoch FROM clock_timestamp()) * 1000" \
		-c "SELECT count(chash_lookup('r4m_cold', k)) FROM keys" \
		-c "SELECT extract(epoch FROM clock_timestamp()) * 1000" \
		-c "SELECT sum(server) FROM chash.shared_ring_stats() WHERE counter IN ('built', 'fallback: parallel query')" |
		awk 'NR == 1 { b0 = $1 } NR == 2 { t0 = $1 } NR == 4 { t1 = $1 } NR == 5 { printf "%.1f %d\n", t1 - t0, $1 - b0 }'
	# (the ring is freed once no backend holds it)
	for _ in $(seq 100); do
		[ "$(pq -At -c "SELECT count(*) FROM chash.shared_rings() WHERE ring = 'r4m_cold'")" = 0 ] && return
		sleep 0.1
	done
}
cold_par='' cold_ser='' cold_par_builds='' cold_ser_builds=''
for _ in $(seq "$builds"); do
	read -r ms b <<<"$(first_query 2)"
	if [ -z "$cold_par" ] || awk -v a="$ms" -v b="$cold_par" 'BEGIN { exit !(a < b) }'; then cold_par=$ms cold_par_builds=$b; fi
	read -r ms b <<<"$(first_query 0)"
	if [ -z "$cold_ser" ] || awk -v a="$ms" -v b="$cold_ser" 'BEGIN { exit !(a < b) }'; then cold_ser=$ms cold_ser_builds=$b; fi
done

# 15h: a new process's first pass over the mapped r4m against its next:
# what each parallel worker, a new process in every query, pays on top of
# its lookups.  The connection reads the table twice before, so that the
# first pass does not also pay for first touching its buffers (that cost
# is in the note).
first_pass() {	# "scan1 scan2 pass1 pass2", in ms, of a new connection
	local routed="SELECT count(chash_lookup('r4m', k)) FROM keys"
	PGOPTIONS=$shared_on pq -At -c "SET jit = off" \
		-c "SELECT bench.ms(bench.explain('SELECT count(*) FROM keys', 0))" \
		-c "SELECT bench.ms(bench.explain('SELECT count(*) FROM keys', 0))" \
		-c "SELECT chash_lookup('r4m', 'key:1') IS NOT NULL" \
		-c "SELECT bench.ms(bench.explain(\$q\$$routed\$q\$, 0))" \
		-c "SELECT bench.ms(bench.explain(\$q\$$routed\$q\$, 0))" |
		awk 'NR == 3 && $1 != "t" { exit 1 } { printf "%s%s", (NR > 1 ? " " : ""), $1 } END { print "" }'
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }	# (b may be empty)
scan1='' scan2='' pass1='' pass2=''
for _ in $(seq "$builds"); do
	read -r s1 s2 p1 p2 <<<"$(first_pass | awk '{ print $1, $2, $4, $5 }')"
	[ -n "$p2" ] || { echo "bench: figure 15h: no timings" >&2; exit 1; }
	scan1=$(min "$s1" "$scan1") scan2=$(min "$s2" "$scan2")
	pass1=$(min "$p1" "$pass1") pass2=$(min "$p2" "$pass2")
done

# 15f: figure 10 with sharing on: each pgbench connection maps r4m
quiet_on=$(PGOPTIONS=$shared_on pgbench_tps "$fig10_secs" 8 "$work/route_r4m.sql")
changes_per_second "$fig10_secs" &
changer=$!
churn_on=$(PGOPTIONS=$shared_on pgbench_tps "$fig10_secs" 8 "$work/route_r4m.sql")
wait "$changer"

PGOPTIONS=$shared_on pq -v runs="$runs" -v builds="$builds" -v first="$best_shared" -v sbuilds="$shared_builds" \
	-v build="$b_first" -v ring_bytes="$ring_bytes" -v pss_on="$pss_on" -v pss_tiny="$pss_tiny" \
	-v pss_off="$pss_off" -v quiet_on="$quiet_on" -v churn_on="$churn_on" \
	-v quiet_off="$quiet_tps" -v churn_off="$churn_tps" -v cold_par="$cold_par" -v cold_ser="$cold_ser" \
	-v cold_par_builds="$cold_par_builds" -v cold_ser_builds="$cold_ser_builds" \
	-v scan1="$scan1" -v scan2="$scan2" -v pass1="$pass1" -v pass2="$pass2" -v huge="$huge" <<'SQL'
SET jit = off;
SET max_parallel_workers_per_gather = 0;
INSERT INTO bench.results VALUES
(15, '15a shared ring: first lookup of a fresh backend vs building it',
	bench.num(:first, 2) || ' ms', bench.num(:build) || ' ms', bench.num(:first / :build, 4),
	'chash <= 2 ms', bench.yn(:first <= 2 AND :sbuilds = 0),
	format('chash: bench.build_probe(''r4m'') as in 4a (a lookup on r100 first, then the first on r4m, timed) in a new connection with chash.shared_rings on, while a session that built r4m holds it: the call mapped it (%s rings built); best of %s backends.  peer: 4a, the same call building the ring.',
		   :sbuilds, :builds)),
(15.1, '15b ring memory of 50 backends on r4m: shared vs each its own',
	bench.num((:pss_on - :pss_tiny) / 1048576.0) || ' MiB', bench.num((:pss_off - :pss_tiny) / 1048576.0) || ' MiB',
	bench.num((:pss_on - :pss_tiny)::float8 / :ring_bytes, 2) || ' rings',
	'chash <= 1.2 rings',
	CASE WHEN :'huge' = 'off' THEN bench.yn((:pss_on - :pss_tiny)::float8 / :ring_bytes <= 1.2)
		 ELSE 'not measured: huge pages ' || :'huge' || ', which Pss does not count' END,
	format('The proportional set size (Pss, /proc/PID/smaps_rollup) of 50 backends that each routed the 100,000 keys of keys100k on r4m (touching nearly every page of its arrays), summed, less that of 50 backends that routed them on a 4-point ring: chash with chash.shared_rings on, peer with it off.  ratio = chash in rings of %s (the shared block; the peer is %s rings).  The holder session, which built the shared ring, maps it too and carries its share (1/51 of the pages all touched) outside the sum.',
		   pg_size_pretty(:ring_bytes::bigint), bench.num((:pss_off - :pss_tiny)::float8 / :ring_bytes, 1)));

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\warn 'bench: figure 15c: parallel count(chash_lookup) on r4m, shared, 2 workers vs 0'
INSERT INTO bench.results
SELECT 15.2, '15c shared ring, parallel, 2 workers vs serial, 1,000,000 keys on r4m',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(b_ms / a_ms, 2),
	   'peer/chash >= 1.6', bench.yn(a_launched = 2 AND b_ms / a_ms >= 1.6),
	   format('SELECT count(chash_lookup(''r4m'', k)) FROM keys with max_parallel_workers_per_gather = 2 (chash; plan: %s) and 0 (peer), chash.shared_rings on: the workers map r4m.  Huge pages: %s (see 15h).  ratio = speed-up.',
			  bench.gathers(a_plan), :'huge')
FROM bench.pair($$SELECT count(chash_lookup('r4m', k)) FROM keys$$,
				$$SELECT count(chash_lookup('r4m', k)) FROM keys$$, :runs, 2, 0);
\warn 'bench: figure 15c: PostgreSQL''s own parallel speed-up here, count(md5(k)), 2 workers vs 0'
INSERT INTO bench.results
SELECT 15.25, '15c'' for comparison: PostgreSQL''s own parallel speed-up on this machine, count(md5(k))',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(b_ms / a_ms, 2),
	   '-', '-',
	   format('SELECT count(md5(k)) FROM keys with max_parallel_workers_per_gather = 2 (plan: %s) and 0: what a parallel scan of these keys gains here when each row costs CPU alone.  ratio = speed-up.',
			  bench.gathers(a_plan))
FROM bench.pair($$SELECT count(md5(k)) FROM keys$$,
				$$SELECT count(md5(k)) FROM keys$$, :runs, 2, 0);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- 15d, 15e: one session, each ring once mapped (r4m, r100) and once its
-- own (copies of the same configuration, built with sharing off)
SELECT chash_ring_copy('r4m', 'r4m_own'), chash_ring_copy('r100', 'r100_own') \g /dev/null
SET chash.shared_rings = off;
SELECT chash_lookup('r4m_own', 'key:1'), chash_lookup('r100_own', 'key:1') \g /dev/null
SET chash.shared_rings = on;
SELECT chash_lookup('r4m', 'key:1'), chash_lookup('r100', 'key:1') \g /dev/null
\warn 'bench: figure 15d-e: lookups from a shared ring vs from its own'
INSERT INTO bench.results
SELECT 15.3, '15d lookups on r4m: shared vs its own (figure 2)',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(a_ms / b_ms, 3),
	   '0.95 <= chash/peer <= 1.05', bench.yn(a_ms / b_ms BETWEEN 0.95 AND 1.05),
	   'chash: SELECT count(chash_lookup(''r4m'', k)) FROM keys, r4m mapped from shared memory; peer: the same on r4m_own, a copy built in the backend''s own memory.  Same session, interleaved.'
FROM bench.pair($$SELECT count(chash_lookup('r4m', k)) FROM keys$$,
				$$SELECT count(chash_lookup('r4m_own', k)) FROM keys$$, :runs);
INSERT INTO bench.results
SELECT 15.4, '15e lookups on r100: shared vs its own (figure 1)',
	   bench.per_key(a_ms, 1000000), bench.per_key(b_ms, 1000000), bench.num(a_ms / b_ms, 3),
	   '0.95 <= chash/peer <= 1.05', bench.yn(a_ms / b_ms BETWEEN 0.95 AND 1.05),
	   'As 15d on r100 (16,000 points) and its copy r100_own.'
FROM bench.pair($$SELECT count(chash_lookup('r100', k)) FROM keys$$,
				$$SELECT count(chash_lookup('r100_own', k)) FROM keys$$, :runs);
SELECT (SELECT count(*) FROM chash.shared_rings() WHERE ring IN ('r4m_own', 'r100_own')) = 0 AS own_not_shared \gset
\if :own_not_shared
\else
\warn 'bench: figure 15d-e: the copies were shared'
SELECT 1/0;
\endif

INSERT INTO bench.results VALUES
(15.45, '15g first query of a new connection on a ring no backend holds: parallel vs serial',
	bench.num(:cold_par) || ' ms', bench.num(:cold_ser) || ' ms', bench.num(:cold_ser / :cold_par, 2),
	'one build each', bench.yn(:cold_par_builds = 1 AND :cold_ser_builds = 1),
	format('A new connection''s first SELECT count(chash_lookup(''r4m_cold'', k)) FROM keys (r4m_cold: a copy of r4m, which no backend holds), with max_parallel_workers_per_gather = 2 (chash) and 0 (peer), chash.shared_rings on; best of %s connections each.  Rings built in the statement, by all its processes (the server''s built and fallback: parallel query): %s parallel, %s serial (the parallel plan builds and shares the ring before its workers start; they map it).  ratio = speed-up.',
		   :builds, :cold_par_builds, :cold_ser_builds));
INSERT INTO bench.results VALUES
(15.47, '15h a new process''s first pass over the mapped r4m vs its next',
	bench.num(:pass1) || ' ms', bench.num(:pass2) || ' ms', bench.num(:pass1 / :pass2, 2),
	'-', '-',
	format('A new connection with chash.shared_rings on maps r4m (held by another session), then runs SELECT count(chash_lookup(''r4m'', k)) FROM keys twice: chash the first run, peer the second; best of %s connections.  First pass less the next: %s ms, the process''s first touch of the %s ring''s pages.  Its two count(*) of keys before: %s and %s ms (a connection''s first scan of the table).  A parallel worker is a new process in every query and pays both (15c).  Huge pages: %s.',
		   :builds, bench.num(:pass1 - :pass2), pg_size_pretty(:ring_bytes::bigint), bench.num(:scan1), bench.num(:scan2), :'huge')),
(15.5, '15f ring changes under load, shared rings (figure 10)',
	bench.num(:churn_on, 0) || ' tps', bench.num(:quiet_on, 0) || ' tps', bench.num(:churn_on / :quiet_on, 2),
	'chash/peer >= 0.9', bench.yn(:churn_on / :quiet_on >= 0.9),
	format('Figure 10 with chash.shared_rings on: 8 pgbench clients on r4m, each connection mapping it, while another ring changes once a second (chash) and quiet (peer).  Without sharing (figure 10): %s and %s tps.',
		   bench.num(:churn_off, 0), bench.num(:quiet_off, 0)));
SQL

progress "done"
pq -P footer=off -c "SELECT figure, chash, peer, ratio, target, met FROM bench.results ORDER BY ord"
echo "notes:"
pq -At -c "SELECT split_part(figure, ' ', 1) || '. ' || note FROM bench.results WHERE note IS NOT NULL ORDER BY ord" |
	while IFS= read -r note; do
		printf '%s\n' "$note" | fold -s -w 96 | sed -e '1s/^/  /' -e '1!s/^/      /'
	done
echo "total: $(($(date +%s) - t0)) s (CHASH_BENCH_RUNS=$runs, CHASH_BENCH_BIG_ROWS=$big_rows, CHASH_BENCH_BUILDS=$builds)"
