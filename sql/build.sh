#!/bin/sh
# The scripts of the version in development, from its sources (make runs
# this; see "SQL sources" in doc/development.md):
#
#   sql/build.sh install VERSION SOURCE...
#       the install script: the sources in order
#   sql/build.sh update FROM VERSION FIRST PART SOURCE...
#       the update script from FROM: the source FIRST (the functions the
#       catalog's constraints call), then PART (the hand-written part of
#       the update, what CREATE OR REPLACE cannot do), then the sources
#
# Each piece is copied whole, under a line that names its file.  Sources
# hold no psql commands: the one that stops a script sourced in psql is
# written here.
set -eu

usage() {
	echo "usage: $0 install VERSION SOURCE... | update FROM VERSION FIRST PART SOURCE..." >&2
	exit 2
}

piece() {
	[ -f "$1" ] || { echo "$0: $1: no such file" >&2; exit 1; }
	if sed -n '/^\\/{p;q;}' "$1" | grep -q .; then
		echo "$0: $1: a source holds no psql command (a line starting with a backslash)" >&2
		exit 1
	fi
	printf '\n-- %s\n' "$1"
	cat "$1"
}

[ $# -ge 3 ] || usage
mode=$1
shift
case $mode in
install)
	version=$1
	shift
	printf '/* sql/chash--%s.sql, made by sql/build.sh from the files named below: edit those */\n' "$version"
	printf '\n-- complain if script is sourced in psql, rather than via CREATE EXTENSION\n'
	printf '\\echo Use "CREATE EXTENSION chash" to load this file. \\quit\n'
	for f in "$@"; do piece "$f"; done
	;;
update)
	[ $# -ge 4 ] || usage
	from=$1
	version=$2
	first=$3
	part=$4
	shift 4
	printf '/* sql/chash--%s--%s.sql, made by sql/build.sh from the files named below: edit those */\n' "$from" "$version"
	printf '\n-- complain if script is sourced in psql, rather than via ALTER EXTENSION\n'
	printf '\\echo Use "ALTER EXTENSION chash UPDATE TO '"'"'%s'"'"'" to load this file. \\quit\n' "$version"
	piece "$first"
	piece "$part"
	for f in "$@"; do piece "$f"; done
	;;
*)
	usage
	;;
esac
