# The database and the SQL checks of a suite that runs against one database
# of the cluster test/bin/with-cluster.sh started: sourced after bindir
# (pg_config --bindir) and db (the database's name) are set.  Makes the
# database with chash in it, and gives
#   psql_db ARGS...        psql on it, stopping on an error
#   sql ARGS...            the same, unaligned, tab-separated, tuples only
#   check WHAT CONDITION   one check (CONDITION is SQL): "ok      WHAT" or
#                          "FAILED  WHAT (not: CONDITION)"; counted in
#                          checks and failed
"$bindir/createdb" "$db"
psql_db() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
sql() { psql_db -At -F $'\t' "$@"; }
psql_db -c 'CREATE EXTENSION chash'

checks=0
failed=0
check() {
	local v
	v=$(sql -c "SELECT ($2)::boolean")
	checks=$((checks + 1))
	if [ "$v" = t ]; then
		echo "ok      $1"
	else
		echo "FAILED  $1 (not: $2)"
		failed=$((failed + 1))
	fi
}
