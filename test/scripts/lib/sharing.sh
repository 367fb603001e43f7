# Whether rings are shared across backends where a suite runs, for the
# suites that run both with chash.shared_rings on and off (the *_unshared
# suites of test/bin/run-suites.sh turn it off through PGOPTIONS).
# Sourced after bindir is set; PSQL... is a psql command with the server
# and database to ask, without -c.
#
#   expected_sharing PSQL...
#       what the server's sessions should see: "off" where PGOPTIONS turns
#       chash.shared_rings off, "on" where shared memory can be had
#       (PostgreSQL 17 and later; 14 to 16 with chash in
#       shared_preload_libraries), else "unavailable"
#   sharing_seen RING PSQL...
#       routes on RING in a session and, while that session holds the ring,
#       in a second one; prints what the second saw ("on", "off" or
#       "unavailable") and whether it mapped the ring instead of building
#       it: "on mapped", "off built", "unavailable built" are right

expected_sharing() {
	case " ${PGOPTIONS:-} " in
	*chash.shared_rings=off*)
		echo off
		return
		;;
	esac
	"$@" -XAt -c "SELECT CASE WHEN current_setting('server_version_num')::int >= 170000
		OR 'chash' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
		THEN 'on' ELSE 'unavailable' END"
}

sharing_seen() {
	local ring=$1 second
	shift
	second=$(mktemp "${TMPDIR:-/tmp}/chash-sharing.XXXXXX")
	cat >"$second" <<'SQL'
SELECT 'no route' WHERE chash_lookup(:'ring', 'sharing_seen') IS NULL;
SELECT CASE WHEN NOT current_setting('chash.shared_rings')::boolean THEN 'off'
	WHEN server IS NULL THEN 'unavailable' ELSE 'on' END || ' ' ||
	CASE WHEN backend > 0 THEN 'mapped' ELSE 'built' END
FROM chash.shared_ring_stats() WHERE counter = 'mapped';
SQL
	chmod 644 "$second"
	{
		echo "SELECT 'no route' WHERE chash_lookup(:'ring', 'sharing_seen') IS NULL;"
		echo "\\! $(printf '%q ' "$@") -XAt -v ON_ERROR_STOP=1 -v ring=$(printf '%q' "$ring") -f $second"
	} | "$@" -XAt -v ON_ERROR_STOP=1 -v ring="$ring"
	rm -f "$second"
}
