#!/usr/bin/env bash
# Unit tests of chash's ring code outside the server: sorting points, and
# finding owners on rings of chosen positions (test/unit/ring_test.c), and
# the costly calls of computed placements: preference lists, zone picks and
# ownership, and their checks for interrupts (test/unit/placement_test.c),
# against plain references.  The pure code (test/bin/pure-code.sh) is compiled
# here from src/ with AddressSanitizer and UBSan, so that a read past a
# ring's arrays fails the suite even where it happens to give the right
# owner, and seeing only the pure layers' headers; first, every file's
# includes are checked to go down the layers (src/README.md).  Needs gcc and
# PostgreSQL's server headers and frontend libraries (libpgcommon.a,
# libpgport.a), which postgresql-server-dev provides; no server.
set -euo pipefail
cd "$(dirname "$0")/../.."

pg_config=${PG_CONFIG:-pg_config}
libs=$(PG_CONFIG=$pg_config test/bin/pgcommon-dir.sh)

work=$(mktemp -d "${TMPDIR:-/tmp}/chash-unit.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the includes of every file of src/ go down the layers (src/README.md)
test/bin/pure-code.sh layers

# each source compiled once, two at a time, for both tests.  The pure code
# (test/bin/pure-code.sh) is compiled seeing only the pure layers' headers: a
# file that reaches for the catalog or function layers fails here.
test/bin/pure-code.sh include "$work/include"
cflags=(-O1 -g -Wall -ffp-contract=off -fsanitize=address,undefined -fno-sanitize-recover=all
	-I"$("$pg_config" --includedir-server)" -I"$work/include")
printf '%s\n' "${cflags[@]}" >"$work/cflags"
mapfile -t pure < <(test/bin/pure-code.sh sources)
[ ${#pure[@]} -gt 0 ] || { echo "unit: test/bin/pure-code.sh lists no source" >&2; exit 1; }
# an object a source, named by its path (src/hash/haproxy.c and
# src/placement/algorithms/haproxy.c are two files)
object() {
	local o=${1%.c}
	echo "$work/${o//\//_}.o"
}
printf '%s\n' test/unit/ring_test.c test/unit/placement_test.c test/unit/server_stubs.c "${pure[@]}" |
	while read -r f; do echo "$f" "$(object "$f")"; done |
	xargs -P "$(nproc)" -n 2 sh -c 'exec gcc @"$0" -c -o "$2" "$1"' "$work/cflags" 2>"$work/build.log" ||
	{ cat "$work/build.log" >&2; echo "unit: the build failed" >&2; exit 1; }
cat "$work/build.log" >&2
objects=("$(object test/unit/server_stubs.c)")
for f in "${pure[@]}"; do objects+=("$(object "$f")"); done
for t in ring_test placement_test; do
	gcc -fsanitize=address,undefined -o "$work/$t" "$(object "test/unit/$t.c")" "${objects[@]}" \
		"$libs/libpgcommon.a" "$libs/libpgport.a" -lz -lnettle -lm
done
# rings are never freed in the tests: no leak report
ASAN_OPTIONS=detect_leaks=0 "$work/ring_test"
ASAN_OPTIONS=detect_leaks=0 "$work/placement_test"
