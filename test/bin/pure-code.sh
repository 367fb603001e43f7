#!/usr/bin/env bash
# chash's pure code: the C files of the layers below the catalog (src/common,
# src/hash, src/placement and its algorithms; see src/README.md), which the
# unit test, the fuzzers and make bench build outside the server.
#
#   test/bin/pure-code.sh sources      the files, one a line, from the folders
#   test/bin/pure-code.sh include DIR  makes DIR an include directory that holds
#                                  the pure layers' folders only
#   test/bin/pure-code.sh layers       checks that every file of src/ includes
#                                  chash's headers of its own layer and of
#                                  those below only
#
# Built with -I DIR instead of -Isrc, a pure file that includes a header of
# the catalog or function layers (metadata/, functions/) does not compile:
# the build enforces the layering, and one list serves every build.
set -euo pipefail
cd "$(dirname "$0")/../.."

pure_layers=(common hash placement)
# every layer, from the bottom up; chash.c, the module entry, is above all
layers=(common hash placement metadata functions)

case ${1:-} in
sources)
	for layer in "${pure_layers[@]}"; do
		find "src/$layer" -name '*.c'
	done | LC_ALL=C sort
	;;
include)
	[ $# -eq 2 ] || { echo "usage: $0 include DIR" >&2; exit 2; }
	mkdir -p "$2"
	for layer in "${pure_layers[@]}"; do
		ln -sfn "$PWD/src/$layer" "$2/$layer"
	done
	;;
layers)
	bad=0
	checked=0
	for f in $(find src -name '*.[ch]' | LC_ALL=C sort); do
		rel=${f#src/}
		if [ "$rel" = chash.c ]; then
			mine=${#layers[@]}
		else
			mine=-1
			for i in "${!layers[@]}"; do
				[ "${rel%%/*}" = "${layers[$i]}" ] && mine=$i
			done
			if [ "$mine" -lt 0 ]; then
				echo "pure-code: $f is in no layer (${layers[*]})" >&2
				bad=$((bad + 1))
				continue
			fi
		fi
		while read -r inc; do
			for i in "${!layers[@]}"; do
				if [ "${inc%%/*}" = "${layers[$i]}" ] && [ -e "src/$inc" ] && [ "$i" -gt "$mine" ]; then
					echo "pure-code: $f includes $inc, of the layer above it" >&2
					bad=$((bad + 1))
				fi
			done
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
		checked=$((checked + 1))
	done
	[ "$checked" -gt 0 ] || { echo "pure-code: no file of src/ checked" >&2; exit 1; }
	[ "$bad" -eq 0 ] || exit 1
	echo "pure-code: the includes of $checked files of src/ go down the layers (${layers[*]}) only"
	;;
*)
	echo "usage: $0 sources | include DIR | layers" >&2
	exit 2
	;;
esac
