#!/usr/bin/env bash
# The balance figures of README: peak-to-mean load of a ring of 10 equal
# nodes by points per node, exactly (chash_ring_stats, from the points),
# beside the theory (about 1 + sqrt(2 ln n / v) for v points a node) and
# beside 1,000,000 real keys (chash_key_distribution), for the ring and
# ketama algorithms.
#
#   make figures        (or: test/bin/with-cluster.sh test/figures/balance_figures.sh)
set -euo pipefail
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
db=chash_figures_$$
trap '"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true' EXIT
"$bindir/createdb" "$db"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
CREATE EXTENSION chash;
CREATE TABLE keys AS SELECT 'key:' || i AS k FROM generate_series(1, 1000000) i;
CREATE TABLE configs (algorithm text, vnodes integer);
INSERT INTO configs VALUES ('ring', 1), ('ring', 10), ('ring', 40), ('ring', 160), ('ring', 1000),
	('ketama', 4), ('ketama', 12), ('ketama', 40), ('ketama', 160), ('ketama', 1000);
SELECT count(chash_ring_create(algorithm || vnodes, algorithm => algorithm, vnodes => vnodes)) FROM configs \g /dev/null
SELECT count(chash_node_add(algorithm || vnodes, 'node-' || i)) FROM configs, generate_series(1, 10) i \g /dev/null
\echo 'Ring of 10 equal nodes; keys key:1 .. key:1000000; default hashes (ring: xxh3_64, ketama: md5)'
SELECT c.algorithm, c.vnodes AS "points a node",
	   round((1 + sqrt(2 * ln(10) / c.vnodes))::numeric, 3) AS "theory 1 + sqrt(2 ln n / v)",
	   round(s.peak_to_mean::numeric, 3) AS "peak/mean, exact",
	   round(s.min_ratio::numeric, 3) AS "min/mean, exact",
	   round((SELECT max(d.ratio) FROM chash_key_distribution(c.algorithm || c.vnodes, 'keys', 'k') d)::numeric, 3)
		   AS "peak/mean, 1M keys"
FROM configs c, chash_ring_stats(c.algorithm || c.vnodes) s
ORDER BY c.algorithm DESC, c.vnodes;
SQL
