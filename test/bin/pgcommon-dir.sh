#!/usr/bin/env bash
# The directory holding PostgreSQL's libpgcommon.a and libpgport.a, which
# the programs that run chash's ring code outside the server link (the unit
# test, make fuzz, make bench's figure 9): pg_config's pkglibdir or libdir.
set -euo pipefail
pg_config=${PG_CONFIG:-pg_config}
for d in "$("$pg_config" --pkglibdir)" "$("$pg_config" --libdir)"; do
	if [ -f "$d/libpgcommon.a" ] && [ -f "$d/libpgport.a" ]; then
		echo "$d"
		exit 0
	fi
done
echo "libpgcommon.a and libpgport.a not found in $("$pg_config" --pkglibdir) nor $("$pg_config" --libdir)" >&2
exit 1
