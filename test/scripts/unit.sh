#!/usr/bin/env bash
# Unit tests of chash's ring code outside the server: sorting points, and
# finding owners on rings of chosen positions (test/unit/ring_test.c), and
# the costly calls of computed placements: preference lists, zone picks and
# ownership, and their checks for interrupts (test/unit/placement_test.c),
# against plain references.  The ring code is compiled here from src/ with
# AddressSanitizer and UBSan, so that a read past a ring's arrays fails the
# suite even where it happens to give the right owner.  Needs gcc and
# PostgreSQL's server headers and frontend libraries (libpgcommon.a,
# libpgport.a), which postgresql-server-dev provides; no server.
set -euo pipefail
cd "$(dirname "$0")/../.."

pg_config=${PG_CONFIG:-pg_config}
libs=$(PG_CONFIG=$pg_config test/pgcommon-dir.sh)

work=$(mktemp -d "${TMPDIR:-/tmp}/chash-unit.XXXXXX")
trap 'rm -rf "$work"' EXIT

# each source compiled once, side by side, for both tests
cflags=(-O1 -g -Wall -ffp-contract=off -fsanitize=address,undefined -fno-sanitize-recover=all
	-I"$("$pg_config" --includedir-server)" -Isrc)
sources=(test/unit/ring_test.c test/unit/placement_test.c test/unit/server_stubs.c
	src/{ring,algorithm,hash,hash_twemproxy,hash_haproxy,template,rebalance,ownership,table}.c src/algo_*.c)
printf '%s\n' "${sources[@]}" |
	xargs -P "$(nproc)" -I{} sh -c 'gcc "$@" -c -o "'"$work"'/$(basename {} .c).o" {}' gcc "${cflags[@]}"
objects=()
for f in "${sources[@]:2}"; do objects+=("$work/$(basename "$f" .c).o"); done
for t in ring_test placement_test; do
	gcc -fsanitize=address,undefined -o "$work/$t" "$work/$t.o" "${objects[@]}" \
		"$libs/libpgcommon.a" "$libs/libpgport.a" -lz -lnettle -lm
done
# rings are never freed in the tests: no leak report
ASAN_OPTIONS=detect_leaks=0 "$work/ring_test"
ASAN_OPTIONS=detect_leaks=0 "$work/placement_test"
