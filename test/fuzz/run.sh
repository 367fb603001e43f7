#!/usr/bin/env bash
# make fuzz: libFuzzer harnesses over chash's pure ring code (the C that
# takes user input: hash functions, vnode templates, ring builds and
# lookups, ring comparison), compiled with clang under AddressSanitizer and
# UBSan (every runtime error fatal) and with src/'s Assert()s on.  Not part
# of make test.  No server is needed: the ring code is linked, as in the
# unit test (test/scripts/unit.sh), with test/unit/server_stubs.c and
# PostgreSQL's frontend libraries.
#
#   test/fuzz/run.sh [HARNESS...]      (default: all of them)
#
# Time budget: each harness runs CHASH_FUZZ_SECONDS seconds (default 60),
# one after the other, so make fuzz takes about 6 minutes plus some 30 s of
# building.  Raise it for a deeper search: CHASH_FUZZ_SECONDS=3600 make fuzz.
#
# Harnesses (test/fuzz/fuzz_*.c; each file's head says what it checks):
#   fuzz_hash      every hash function of hash/hash.c on arbitrary bytes
#   fuzz_template  chash_template_check/init/name/free/expand
#   fuzz_ring      a ring spec from the input: prepare, count, build, find
#                  (against a binary search), points against a reference
#                  build, node_points_alone, check_total, fingerprint,
#                  ownership
#   fuzz_compare   chash_rings_compare on two rings: the ranges tile the
#                  space and agree with chash_ring_find on both rings
#   fuzz_placement a computed placement (modulo, jump, rendezvous, maglev,
#                  slots) from the input: prepare against README's rules,
#                  members, zones, the table, owner, preference (with and
#                  without zones) and ownership against references
#   fuzz_algorithms every algorithm of the table (nginx, haproxy, dalli,
#                  elasticsearch, envoy_ring_hash, tokens and pymemcache's
#                  keyed rendezvous too) held to what any placement must
#                  do: builds once prepared, owners first of their orders,
#                  orders prefixes of the whole, picks by zones, keyed
#                  orders, ownership sums
#
# Files, under CHASH_FUZZ_DIR (default test/fuzz/work, ignored by git):
#   bin/HARNESS            the fuzz binaries
#   corpus/HARNESS/        the corpus, kept from run to run
#   seeds/HARNESS/         starting inputs, written by each harness itself
#   artifacts/HARNESS/     crash-*, leak-*, timeout-*, oom-*: reproducers
#   logs/HARNESS.log       libFuzzer's output
#
# Prints per harness the seconds, executions, executions/s, coverage
# (libFuzzer's cov:, the edges of src/'s code reached, and ft:, its
# features), corpus size and the finding, if any; exits 1
# if any harness found something (a crash, a sanitizer report, a failed
# check, a leak, a timeout or running out of memory), printing the
# reproducer's path.  Replay one with  CHASH_FUZZ_VERBOSE=1 BIN FILE.
#
# Other settings: CHASH_FUZZ_CC (default clang-14), PG_CONFIG,
# CHASH_FUZZ_FLAGS (extra libFuzzer options, e.g. -seed=1), and
# CHASH_FUZZ_KNOWN: findings already reported and not yet fixed in src/ to
# let through, comma-separated, so that a long run can go on past them
# (by default every finding fails; a harness names its known findings
# with fuzz_known(); there are none at present).
#
# Needs clang-14 and libclang-rt-14-dev (the sanitizer and libFuzzer
# runtimes: Debian's clang-14 only recommends them, and the set-up installs
# without recommends), besides what the unit test needs:
# postgresql-server-dev-15, libxxhash-dev, zlib1g-dev and nettle-dev.  On
# Debian, what is missing is installed as test/bin/setup.sh does (as root or
# through sudo; apt-get update only when something is missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${CHASH_FUZZ_SECONDS:-60}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] ||
	{ echo "fuzz: CHASH_FUZZ_SECONDS must be a positive number of seconds" >&2; exit 2; }
dir=${CHASH_FUZZ_DIR:-test/fuzz/work}
cc=${CHASH_FUZZ_CC:-clang-14}
all_harnesses=(fuzz_hash fuzz_template fuzz_ring fuzz_compare fuzz_placement fuzz_algorithms)
if [ $# -gt 0 ]; then
	harnesses=("$@")
else
	harnesses=("${all_harnesses[@]}")
fi
for h in "${harnesses[@]}"; do
	[ -f "test/fuzz/$h.c" ] || { echo "fuzz: no harness $h (test/fuzz/$h.c)" >&2; exit 2; }
done

# --- what fuzzing needs, installed only when missing ----------------------
PG_MAJOR=${PG_MAJOR:-15}
packages=(clang-14 libclang-rt-14-dev "postgresql-server-dev-$PG_MAJOR"
	libxxhash-dev zlib1g-dev nettle-dev)
if command -v dpkg-query >/dev/null 2>&1; then
	test/bin/apt-install.sh fuzz "${packages[@]}"
fi

# --- build ------------------------------------------------------------------
pg_config=${PG_CONFIG:-pg_config}
if ! command -v "$pg_config" >/dev/null 2>&1 && [ -x "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" ]; then
	pg_config=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
fi
libs=$(PG_CONFIG=$pg_config test/bin/pgcommon-dir.sh)
command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: no $cc (set CHASH_FUZZ_CC)" >&2; exit 1; }

mkdir -p "$dir"/{bin,obj,corpus,seeds,artifacts,logs}
# the pure code, as test/scripts/unit.sh compiles it: seeing only the pure
# layers' headers (test/bin/pure-code.sh)
test/bin/pure-code.sh include "$dir/include"
mapfile -t ring_code < <(test/bin/pure-code.sh sources)
[ ${#ring_code[@]} -gt 0 ] || { echo "fuzz: test/bin/pure-code.sh lists no source" >&2; exit 1; }
# palloc'd memory is recorded by fuzz_support.c (see there), and errcode()
# too, so that a harness can tell which ERROR it took back
wraps=palloc,palloc0,palloc_extended,repalloc,pfree,pstrdup,pnstrdup
wraps+=,MemoryContextAllocHuge,MemoryContextAllocZero,errcode
cflags=(-g -O1 -fno-omit-frame-pointer -Wall -Wno-ignored-attributes
	-fsanitize=address,undefined -fno-sanitize-recover=all
	-ffp-contract=off -DUSE_ASSERT_CHECKING
	-I"$("$pg_config" --includedir-server)" -I"$dir/include" -Itest/fuzz)
# Only src/ is instrumented for coverage (so cov: counts the ring code's
# edges, and the harnesses' own loops do not slow each run down); every
# file has the sanitizers.
objs=()
for f in "${ring_code[@]}"; do
	o=${f%.c}
	o=$dir/obj/${o//\//_}.o
	"$cc" "${cflags[@]}" -fsanitize=fuzzer-no-link -c -o "$o" "$f"
	objs+=("$o")
done
for f in test/fuzz/fuzz_support.c test/fuzz/fuzz_spec.c test/unit/server_stubs.c; do
	o=$dir/obj/$(basename "$f" .c).o
	"$cc" "${cflags[@]}" -c -o "$o" "$f"
	objs+=("$o")
done
for h in "${harnesses[@]}"; do
	echo "fuzz: building $h"
	"$cc" "${cflags[@]}" -c -o "$dir/obj/$h.o" "test/fuzz/$h.c"
	"$cc" "${cflags[@]}" -fsanitize=fuzzer -o "$dir/bin/$h" "$dir/obj/$h.o" "${objs[@]}" \
		-Wl,--wrap="${wraps//,/,--wrap=}" \
		"$libs/libpgcommon.a" "$libs/libpgport.a" -lz -lnettle -lm
done

# --- run --------------------------------------------------------------------
# LeakSanitizer stays on: palloc'd memory is freed after every input (see
# fuzz.h), so a leak report is memory taken with plain malloc and lost.
# Each input must finish in 10 s, and memory stay under 2 GB.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
found=0
summary=()
for h in "${harnesses[@]}"; do
	corpus=$dir/corpus/$h
	seeds=$dir/seeds/$h
	artifacts=$dir/artifacts/$h
	log=$dir/logs/$h.log
	rm -rf "$seeds"
	mkdir -p "$corpus" "$seeds" "$artifacts"
	CHASH_FUZZ_WRITE_SEEDS=$seeds "$dir/bin/$h"
	echo "fuzz: running $h for $seconds s (log: $log)"
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2086
	"$dir/bin/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -use_value_profile=1 -print_final_stats=1 \
		-dict=test/fuzz/chash.dict -artifact_prefix="$artifacts/" \
		${CHASH_FUZZ_FLAGS:-} "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
	elapsed=$(($(date +%s) - start))

	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	status=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
	if [ -z "$execs" ]; then
		execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$status")
		rate=$(sed -n 's/.* exec\/s: \([0-9]*\).*/\1/p' <<<"$status")
	fi
	units=$(find "$corpus" -type f | wc -l)
	bytes=$(find "$corpus" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		finding=none
	else
		found=1
		what=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|FAILED check' "$log" || true)
		finding="exit $rc: ${what:-see the log}"
		[ -n "$reproducer" ] &&
			finding+="; reproducer: $reproducer (replay: CHASH_FUZZ_VERBOSE=1 $dir/bin/$h $reproducer)"
	fi
	line=$(printf '%-14s %5s s  %10s execs  %7s exec/s  cov %5s  ft %6s  corpus %5s files %8s bytes  finding: %s' \
		"$h" "$elapsed" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$units" "$bytes" "$finding")
	echo "fuzz: $line"
	summary+=("$line")
done

echo
echo "fuzz: summary ($seconds s a harness)"
printf '  %s\n' "${summary[@]}"
if [ "$found" -ne 0 ]; then
	echo "fuzz: FOUND something: see the reproducers and logs above" >&2
	exit 1
fi
echo "fuzz: nothing found"
