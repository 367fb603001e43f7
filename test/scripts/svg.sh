#!/usr/bin/env bash
# The pictures chash draws are valid standalone SVG 1.1 that a real renderer
# draws: for rings of every kind, xmllint (libxml2) parses each one and
# rsvg-convert (librsvg) renders it to PNG.  Runs against the server in
# PGHOST/PGPORT (test/bin/with-cluster.sh provides one), in a database of its
# own, dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
db=chash_svg_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-svg.XXXXXX")
cleanup() {
	local rc=$?
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in xmllint rsvg-convert; do
	command -v "$tool" >/dev/null || { echo "svg: $tool is not installed (test/bin/setup.sh installs it)" >&2; exit 1; }
done

psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db")
"$bindir/createdb" "$db"
"${psql[@]}" >/dev/null <<'SQL'
CREATE EXTENSION chash;
SELECT chash_ring_create('small');
SELECT chash_node_add('small', n) FROM unnest(ARRAY['a', 'b', 'c']) n;
SELECT chash_ring_create('one');
SELECT chash_node_add('one', 'alone');
SELECT chash_ring_create('empty');
SELECT chash_ring_create('ketama', algorithm => 'ketama');
SELECT chash_node_add('ketama', '10.0.' || i / 250 || '.' || i % 250 || ':11211', weight => 1 + i % 4)
FROM generate_series(1, 100) i;
SELECT chash_node_set('ketama', '10.0.0.7:11211', state => 'down');
SELECT chash_ring_create('names <&> "quoted" ''ring''', hash => 'murmur3_32');
SELECT chash_node_add('names <&> "quoted" ''ring''', n)
FROM unnest(ARRAY['<script>', 'a & b', '"q"', '''s''', 'ünïcødé 日本 🐘', ']]>',
				  E'bell\x07 and tab\t', U&'not a character \FFFE']) n;
-- computed placements: a table by its slots, jump by its members
SELECT chash_ring_create('maglev', algorithm => 'maglev');
SELECT chash_node_add('maglev', 'm' || i, weight => i) FROM generate_series(1, 5) i;
SELECT chash_ring_create('jump', algorithm => 'jump');
SELECT chash_node_add('jump', 'j' || i) FROM generate_series(1, 7) i;
-- a node that owns nearly all of the ring
SELECT chash_ring_create('dominant', hash => 'java_hashcode', vnodes => 1, vnode_name => '{node}{i}');
SELECT chash_node_add('dominant', n) FROM unnest(ARRAY['a', 'b', 'c']) n;
SQL

# the documents are ASCII whatever the client's encoding
latin1=$(echo "SELECT chash_ring_svg('names <&> \"quoted\" ''ring''')" | PGCLIENTENCODING=LATIN1 "${psql[@]}" -At)
# (no picture at all holds no non-ASCII byte either)
if [[ $latin1 != *'<svg '* ]]; then
	echo "  FAIL  no picture fetched in LATIN1"
	exit 1
fi
if LC_ALL=C grep -q -P '[^\x00-\x7F]' <<<"$latin1"; then
	echo "  FAIL  a picture fetched in LATIN1 holds non-ASCII bytes"
	exit 1
fi
echo "  ok    pictures are ASCII, whatever the client's encoding"

rings=$("${psql[@]}" -At -c "SELECT ring FROM chash.ring_config ORDER BY ring")
failed=0
n=0
while IFS= read -r ring; do
	# each ring's pictures, and its moves to maglev and to the ring of
	# awkward names (which draws one of them on both sides)
	for fn in chash_ring_svg chash_ownership_svg "chash_move_svg(:'ring', 'maglev')" \
		"chash_move_svg(:'ring', 'names <&> \"quoted\" ''ring''')"; do
		# (a move compares two different rings)
		case $ring:$fn in
		"maglev:"*"'maglev')" | 'names <&> "quoted" '"'ring':"*"''ring''')") continue ;;
		esac
		n=$((n + 1))
		svg=$work/$n.svg
		# psql interpolates :'ring' (quoted) only in what it reads, not in -c
		case $fn in
		*'('*) echo "SELECT $fn" ;;
		*) echo "SELECT $fn(:'ring')" ;;
		esac | "${psql[@]}" -At -v ring="$ring" >"$svg"
		if ! xmllint --noout --nonet "$svg" 2>"$work/err"; then
			echo "  FAIL  $fn('$ring'): not well-formed XML"; sed 's/^/        /' "$work/err"; failed=$((failed + 1)); continue
		fi
		if ! grep -q '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"' "$svg" ||
			! grep -q '<svg xmlns="http://www.w3.org/2000/svg" version="1.1"' "$svg"; then
			echo "  FAIL  $fn('$ring'): not an SVG 1.1 document"; failed=$((failed + 1)); continue
		fi
		if ! rsvg-convert -o "$work/$n.png" "$svg" 2>"$work/err" || [ ! -s "$work/$n.png" ]; then
			echo "  FAIL  $fn('$ring'): rsvg-convert cannot render it"; sed 's/^/        /' "$work/err"; failed=$((failed + 1)); continue
		fi
		echo "  ok    $fn('$ring'): $(wc -c <"$svg") bytes of SVG, rendered to $(wc -c <"$work/$n.png") bytes of PNG"
	done
done <<<"$rings"

if [ $failed -gt 0 ]; then
	echo "svg: $failed of $n pictures failed" >&2
	exit 1
fi
echo "svg: all $n pictures valid and rendered"
