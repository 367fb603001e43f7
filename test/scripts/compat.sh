#!/usr/bin/env bash
# Compatibility proof: chash's profiles (chash_profiles()) of the memcached
# clients and the Java ring route every key exactly as the real client
# libraries do, and test/scripts/compat_servers.sh, this script for the
# clients that are real servers (twemproxy, nginx, HAProxy), that they do.
# (Redis Cluster: test/scripts/compat_redis.sh.)
#
#   test/bin/with-cluster.sh test/scripts/compat.sh
#
# For each configuration below, a server list and at least 50,000 keys
# (test/compat/keys.py: ASCII, Latin-1, CJK, emoji and other 4-byte UTF-8,
# up to 200 bytes) go to the client's own code, a route program in
# test/compat/ that prints the server the client picks for each key.  The
# same servers, in the same order, make a chash ring; one query counts the
# keys chash_lookup() routes elsewhere.  Any difference, or any client that
# fails, fails the suite.
#
# Clients (installed by test/bin/setup.sh):
#   libmemcached  libmemcached 1.1.4 (Debian), weighted ketama, through
#                 memcached_generate_hash() (libmemcached_routes.c, built here)
#   uhashring     python3-uhashring (Debian), HashRing(hash_fn='ketama')
#   node          npm hashring 3.2.0 (npm ci in test/compat), HashRing({...})
#   twemproxy     nutcracker, its servers listened on by twemproxy_routes.py
#   libketama     independent reference of the original libketama
#                 (libketama_reference.py)
#   java          reference of Java client rings (java_ring_reference.py)
#   nginx         nginx 1.22.1 (Debian), hash $http_x_key consistent, proxying
#                 to backends of its own in a network namespace of its own
#                 (nginx_routes.py): the backend that answered each key
#   groupcache    groupcache's consistenthash (Debian's Go package, built
#                 here with Debian's Go: groupcache_routes.go)
#   elasticsearch Elasticsearch's routing: the hash by Debian's Lucene 8
#                 (StringHelper.murmurhash3_x86_32 over the UTF-16 units, the
#                 published values checked first), the shard rule of
#                 IndexRouting written in es_routing.py: no server runs
#   haproxy       HAProxy 2.6.12 (Debian), balance hdr(X-Key) with hash-type
#                 consistent and every hash function, with and without
#                 avalanche, proxying to backends of its own on unix sockets
#                 (haproxy_routes.py): the server that answered each key; the
#                 ids HAProxy gave its servers are the nodes' ordinals, and
#                 keys with ',' or '"' are left out (HAProxy hashes a
#                 header's first comma-separated element)
#   dalli         Dalli 3.0.6 (Debian's ruby-dalli): Dalli::Client routing
#                 each key without a memcached (dalli_routes.rb)
#   guava         Guava 31.1 (Debian's libguava-java): consistentHash(long,
#                 int) on random longs, the extremes, and the keys where it
#                 parts from the paper (GuavaRoutes.java)
#   spymemcached  spymemcached 2.12.3 (Debian's libspymemcached-java) on
#                 OpenJDK 17: its KetamaNodeLocator (SpymemcachedRoutes.java,
#                 compiled here), both key formats, with and without weights
#   dubbo         independent reference of Dubbo's ConsistentHashLoadBalance
#                 (dubbo_reference.py; Debian has no Dubbo)
#   pymemcache    pymemcache 3.5.2 (Debian's python3-pymemcache): HashClient's
#                 own choice of client (pymemcache_routes.py), no memcached;
#                 it scores every server for every key in Python (86 s of
#                 CPU for 100 servers and 50,000 keys), so its 100- and
#                 1,000-server configurations route the keys their labels
#                 say: 2,000,000 scores each
#   envoy         independent reference of Envoy's ring_hash and maglev
#                 (envoy_reference.py, its --self-test the values Envoy's
#                 tests publish; Debian has no Envoy)
#
# For twemproxy, nginx and HAProxy, the configuration file the server ran
# with (the route program's --conf) is also given to chash_ring_import:
# nutcracker's pool whole, nginx's upstream block and HAProxy's backend
# section as cut from it, with the matching format, into a ring made as
# the other.  The imported ring must route every key to the server the
# real one picked and have a node a server: a second row a configuration,
# "..., imported", counted as a configuration of its own.
#
# The other way round, for some of those configurations (export_wanted):
# chash_export of the ring, with every seventh server down where the
# format has down servers, is run by the real server as it is (the route
# program's --config), and 100,000 keys of their own must go where
# chash_lookup sends them: a third row, "..., exported".  Envoy's cluster
# (hosts at 127.N.x.y:21211 with a hash_key where the names are no ip:port
# of their own, down ones UNHEALTHY) is read by envoy_reference.py, and
# Elasticsearch's index settings with their shards' nodes by es_routing.py.
#
# Besides the generated keys, every configuration gets keys that land
# exactly on points (the names its client hashes for its points, such as
# "10.0.0.1-0"), and the "tie" configurations use servers, found by a
# birthday search, whose points collide, in both orders: which server wins a
# tie then decides about 1 key in 300.  Ketama: 10.20.1.181 point 35 and
# 10.20.3.206 point 12 share 1609158438; 10.20.2.184 point 13 and
# 10.20.4.246 point 9 share 3367860709; 10.30.1.234:11311 point 35 and
# 10.30.1.248:11311 point 10 share 3410507963; 10.30.1.209:11311 point 0 and
# 10.30.2.19:11311 point 16 share 2995004231.  Java: 10.40.0.210:6379 and
# 10.40.1.74:6379 share 4 of their 160 java_fnv32 points; String.hashCode
# gives shard-Aa, shard-BB and shard-C# the same points.  The libmemcached
# fixture configuration also checks the 99 keys, key hashes and servers that
# libmemcached's own test suite expects (its test/fixtures/ketama.hpp, kept
# as data in test/compat/libmemcached_ketama_fixture.tsv).
#
# What the clients do at the edges, which these configurations pin down:
#   libmemcached  points sorted by (value, server index), so the earlier
#                 server in the list wins a tie; a key equal to a point goes
#                 to that point; a server on port 11211 is hashed as
#                 "host-i" even when given as "host:11211"; points per server
#                 floor(w/W*40*n + 1e-10 in float)*4: 156 at 25, 47, 100
#                 equal servers.  Debian's build keeps an assertion
#                 (servers * 100 <= MEMCACHED_CONTINUUM_SIZE) that aborts
#                 the process at the 101st server: no configuration has more.
#   uhashring     floor(40*n*w / W) vnodes of 4 points, in integers; a tie
#                 goes to the later server (a dict is overwritten); a key
#                 equal to a point goes to the NEXT point (bisect_right).
#   node          floor(w/W*40*n) vnodes in doubles: 39 at 7, 14, 28 equal
#                 servers; a stable sort, so the earlier server wins a tie.
#                 Integer-like names ("7") would be reordered by the
#                 JavaScript object that lists the servers: refused.
#   twemproxy     nutcracker sorts the servers by name (shorter first, then
#                 bytes) as it reads its configuration: a tie goes to the
#                 server first in that order, whatever the list order.  A
#                 server without a name is named (and hashed) "host" on
#                 port 11211, "host:port" otherwise: the "unnamed"
#                 configurations listen on 127.0.0.2:11211 and other
#                 addresses of 127/8, where port 11211 must be free.
#   libketama     39 digests at 61, 122, 237 equal servers; first wins a tie.
#   java          TreeMap.put(): the last put wins a tie.
#   spymemcached  a TreeMap too: the later server wins a tie; a key on a
#                 point is that point's.  Without weights every server has
#                 160 points; given weights, libmemcached's float formula
#                 (156 at 25 equal servers).  Its SPYMEMCACHED format hashes
#                 "ip:port-i", port 11211 included; LIBMEMCACHED format,
#                 libmemcached's names.
#
# Environment:
#   CHASH_COMPAT_CLIENTS  only these clients (space-separated names above;
#                         default: all but twemproxy, nginx and haproxy,
#                         which test/scripts/compat_servers.sh checks)
#   CHASH_COMPAT_KEYS     generated keys per configuration (default 50000)
#   CHASH_COMPAT_JOBS     configurations checked at once (default: CPUs)
#   CHASH_COMPAT_KEEP     if set, keep the working directory (inputs, routes)
# shellcheck disable=SC2059	# printf "$fmt": the table's one format
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
compat=$root/test/compat

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
export PGCLIENTENCODING=UTF8
py=/usr/bin/python3		# the Debian Python, which has uhashring
nkeys=${CHASH_COMPAT_KEYS:-50000}
jobs=${CHASH_COMPAT_JOBS:-$(nproc 2>/dev/null || echo 2)}
clients=(libmemcached uhashring node twemproxy libketama java spymemcached guava nginx dalli haproxy elasticsearch groupcache dubbo envoy pymemcache)
# the clients that are real servers, checked by test/scripts/compat_servers.sh
# (this same script), so that make test runs the two halves side by side
servers=" twemproxy nginx haproxy "
# the servers whose configuration, as the server loaded it, is also given to
# chash_ring_import: the imported ring must route every key as the server
# did (a second row for each of their configurations, "..., imported")
servers_imported=" twemproxy nginx haproxy "
# the configurations whose ring chash_export writes for the real server, or
# the real client, to run as it is (a third row, "..., exported"): keys of
# their own (CHASH_COMPAT_EXPORT_KEYS, default 100,000), every seventh
# server down where the format writes down servers (nginx, HAProxy),
# twemproxy's servers at loopback addresses of their own (the address
# column), each client built by its program's --config from the server
# list chash_export wrote, and each key's server from the real server or
# client compared with chash_lookup's
export_keys=${CHASH_COMPAT_EXPORT_KEYS:-100000}
export_wanted() {
	case "$1|$2" in
	"nginx|1 server" | "nginx|10 mixed weights" | "nginx|100 mixed weights" | "nginx|1000 equal" | \
		"haproxy|1 server" | "haproxy|100 mixed weights" | "haproxy|1000 equal" | \
		"haproxy|djb2 avalanche, 10 mixed weights" | \
		"twemproxy|md5, 1 server" | "twemproxy|md5, 10 mixed weights" | "twemproxy|md5, 1000 equal" | \
		"twemproxy|md5, 10 UTF-8 names" | "twemproxy|fnv1a_64, 100 mixed weights" | \
		"libmemcached|1 server" | "libmemcached|10 servers, mixed ports and weights" | \
		"libmemcached|20 hostnames" | \
		"uhashring|1 server" | "uhashring|1000 mixed weights" | "uhashring|10 UTF-8 names" | \
		"node|1 server" | "node|100 mixed weights" | "node|10 UTF-8 names" | \
		"dalli|1 server" | "dalli|100 mixed weights" | "dalli|tie (the later server wins)" | \
		"pymemcache|1 server" | "pymemcache|10 servers" | "pymemcache|10 UTF-8 names" | \
		"spymemcached|1 server" | "spymemcached|10 servers, other ports" | "spymemcached|1000 equal" | \
		"groupcache|1 peer" | "groupcache|10 UTF-8 names" | "groupcache|10 peers, 160 replicas" | \
		"envoy|ring_hash, 1 host" | "envoy|ring_hash, 10 mixed weights" | "envoy|ring_hash, 1000 equal" | \
		"envoy|ring_hash, 10 UTF-8 names" | "envoy|ring_hash, minimum_ring_size 100000" | \
		"envoy|maglev, 10 mixed weights" | "envoy|maglev, 1000 equal" | "envoy|maglev, 10 UTF-8 names" | \
		"envoy|maglev, table_size 655373" | \
		"elasticsearch|1 shard (1024 routing shards)" | "elasticsearch|3 shards (768)" | \
		"elasticsearch|6 shards split from 3 (768)" | "elasticsearch|10 shards of an index before 7.0 (10)")
		return 0 ;;
	esac
	return 1
}
# how many of each server's configurations that is: a label changed in the
# table below without the list above would drop its export unseen
declare -A export_count=([nginx]=4 [haproxy]=4 [twemproxy]=5 [libmemcached]=3 [uhashring]=3
	[node]=3 [dalli]=3 [pymemcache]=3 [spymemcached]=3 [groupcache]=3 [envoy]=9 [elasticsearch]=4)
libraries=()
for c in "${clients[@]}"; do
	[[ $servers == *" $c "* ]] || libraries+=("$c")
done
only=" ${CHASH_COMPAT_CLIENTS:-${libraries[*]}} "
db=chash_compat_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/chash-compat.XXXXXX")

cleanup() {
	local rc=$?
	"$bindir/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	if [ -n "${CHASH_COMPAT_KEEP:-}" ]; then
		echo "compat: inputs and outputs kept in $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_us() { local t=$EPOCHREALTIME; echo "${t//[.,]/}"; }
seconds() { printf '%d.%02d' $(($1 / 1000000)) $(($1 % 1000000 / 10000)); }

# --- configurations --------------------------------------------------------
# client | configuration | servers | client options
#   servers: "COUNT NAMES WEIGHTS" for test/compat/servers.py, or @LIST for
#   a list written below (fixture, the tie lists, twemproxy's unnamed servers)
#   client options: twemproxy --hash NAME [--unnamed]; spymemcached
#                   [--format LIBMEMCACHED] [--weighted]; java --hash NAME --vnodes N
#                   [--template T --first N] (no spaces; default {node}&&VN{i} from 0)
configs=$(grep -v '^#' <<'EOF'
libmemcached | fixture: test/fixtures/ketama.hpp            | @fixture              |
libmemcached | 1 server                                    | 1 ip equal            |
libmemcached | 2 servers, equal                            | 2 ip equal            |
libmemcached | 5 servers, other ports                      | 5 port equal          |
libmemcached | 10 servers, mixed ports and weights         | 10 mixedport mixed    |
libmemcached | 25 equal (156 points each)                  | 25 ip equal           |
libmemcached | 47 equal, other ports (156 points each)     | 47 port equal         |
libmemcached | 100 equal (156 points each)                 | 100 ip equal          |
libmemcached | 100 equal, weight 100 (156 points each)     | 100 mixedport equal100 |
libmemcached | 100 mixed weights                           | 100 mixedport mixed   |
libmemcached | 6 skewed weights (servers without points)   | 6 ip skewed           |
libmemcached | 8 servers named host:11211                  | 8 ip11211 mixed       |
libmemcached | 20 hostnames                                | 20 hostname mixed     |
libmemcached | tie, default port                           | @tie                  |
libmemcached | tie, default port, reversed                 | @tie-reversed         |
libmemcached | tie, other port                             | @tie-port             |
libmemcached | tie, other port, reversed                   | @tie-port-reversed    |
uhashring    | 1 server                                    | 1 ip11211 equal       |
uhashring    | 2 servers, equal                            | 2 ip11211 equal       |
uhashring    | 10 mixed ports and weights                  | 10 mixedport mixed    |
uhashring    | 28 equal                                    | 28 ip11211 equal      |
uhashring    | 100 equal                                   | 100 ip11211 equal     |
uhashring    | 100 mixed weights                           | 100 port mixed        |
uhashring    | 1000 equal                                  | 1000 ip11211 equal    |
uhashring    | 1000 mixed weights                          | 1000 port mixed       |
uhashring    | 6 skewed weights (servers without points)   | 6 ip skewed           |
uhashring    | 10 UTF-8 names                              | 10 utf8 mixed         |
uhashring    | tie                                         | @tie                  |
uhashring    | tie, reversed                               | @tie-reversed         |
node         | 1 server                                    | 1 ip11211 equal       |
node         | 2 servers, equal                            | 2 ip11211 equal       |
node         | 7 equal (39 vnodes each)                    | 7 ip11211 equal       |
node         | 14 equal (39 vnodes each)                   | 14 port equal         |
node         | 28 equal (39 vnodes each)                   | 28 ip11211 equal      |
node         | 10 mixed weights                            | 10 mixedport mixed    |
node         | 100 mixed weights                           | 100 port mixed        |
node         | 1000 equal                                  | 1000 ip11211 equal    |
node         | 6 skewed weights (servers without points)   | 6 ip skewed           |
node         | 10 UTF-8 names                              | 10 utf8 mixed         |
node         | 20 hostnames                                | 20 hostname mixed     |
node         | tie                                         | @tie                  |
node         | tie, reversed                               | @tie-reversed         |
libketama    | 1 server                                    | 1 ip11211 equal       |
libketama    | 10 mixed weights                            | 10 ip11211 mixed      |
libketama    | 61 equal (39 digests each)                  | 61 ip11211 equal      |
libketama    | 122 equal (39 digests each)                 | 122 ip11211 equal     |
libketama    | 237 equal (39 digests each)                 | 237 ip11211 equal     |
libketama    | 1000 mixed weights                          | 1000 ip11211 mixed    |
libketama    | 6 skewed weights (servers without points)   | 6 ip11211 skewed      |
libketama    | tie                                         | @tie                  |
libketama    | tie, reversed                               | @tie-reversed         |
twemproxy    | md5, 1 server                               | 1 port equal          | --hash md5
twemproxy    | md5, 10 mixed weights                       | 10 port mixed         | --hash md5
twemproxy    | md5, 25 equal (156 points each)             | 25 port equal         | --hash md5
twemproxy    | md5, 47 equal (156 points each)             | 47 port equal         | --hash md5
twemproxy    | md5, 100 equal (156 points each)            | 100 port equal        | --hash md5
twemproxy    | md5, 1000 equal                             | 1000 port equal       | --hash md5
twemproxy    | md5, 8 names cut at 272 bytes               | 8 long mixed          | --hash md5
twemproxy    | md5, 10 UTF-8 names                         | 10 utf8 mixed         | --hash md5
twemproxy    | md5, tie                                    | @tie-port             | --hash md5
twemproxy    | md5, tie, reversed                          | @tie-port-reversed    | --hash md5
twemproxy    | fnv1a_64, 100 mixed weights                 | 100 port mixed        | --hash fnv1a_64
twemproxy    | one_at_a_time, 10 mixed weights             | 10 port mixed         | --hash one_at_a_time
twemproxy    | crc16, 10 mixed weights                     | 10 port mixed         | --hash crc16
twemproxy    | crc32, 10 mixed weights                     | 10 port mixed         | --hash crc32
twemproxy    | crc32a, 10 mixed weights                    | 10 port mixed         | --hash crc32a
twemproxy    | fnv1_64, 10 mixed weights                   | 10 port mixed         | --hash fnv1_64
twemproxy    | fnv1a_64, 10 mixed weights                  | 10 port mixed         | --hash fnv1a_64
twemproxy    | fnv1_32, 10 mixed weights                   | 10 port mixed         | --hash fnv1_32
twemproxy    | fnv1a_32, 10 mixed weights                  | 10 port mixed         | --hash fnv1a_32
twemproxy    | hsieh, 10 mixed weights                     | 10 port mixed         | --hash hsieh
twemproxy    | murmur, 10 mixed weights                    | 10 port mixed         | --hash murmur
twemproxy    | jenkins, 10 mixed weights                   | 10 port mixed         | --hash jenkins
twemproxy    | md5, 6 unnamed on 11211, mixed weights      | @unnamed              | --hash md5 --unnamed
twemproxy    | md5, 100 unnamed on 11211, mixed weights    | @unnamed-100          | --hash md5 --unnamed
twemproxy    | fnv1a_64, unnamed, mixed ports              | @unnamed-ports        | --hash fnv1a_64 --unnamed
twemproxy    | md5, unnamed, ties (length, then bytes)     | @unnamed-tie          | --hash md5 --unnamed
java         | java_fnv32, 10 servers, 160 vnodes          | 10 ip11211 1          | --hash java_fnv32 --vnodes 160
java         | java_fnv32, 100 servers, 160 vnodes         | 100 hostname 1        | --hash java_fnv32 --vnodes 160
java         | java_fnv32, 3 servers, 1 vnode              | 3 ip11211 1           | --hash java_fnv32 --vnodes 1
java         | java_fnv32, '{node}#{i}' from 0             | 10 hostname 1         | --hash java_fnv32 --vnodes 160 --template {node}#{i} --first 0
java         | java_fnv32, '{node}&VN{i}' from 1           | 10 ip11211 1          | --hash java_fnv32 --vnodes 100 --template {node}&VN{i} --first 1
java         | java_fnv64, 10 servers, 160 vnodes          | 10 ip11211 1          | --hash java_fnv64 --vnodes 160
java         | java_fnv64, 100 servers, 100 vnodes         | 100 hostname 1        | --hash java_fnv64 --vnodes 100
java         | java_hashcode, 10 servers, 160 vnodes       | 10 ip11211 1          | --hash java_hashcode --vnodes 160
java         | java_hashcode, 100 servers, 160 vnodes      | 100 hostname 1        | --hash java_hashcode --vnodes 160
java         | java_hashcode, 10 UTF-8 names, 50 vnodes    | 10 utf8 1             | --hash java_hashcode --vnodes 50
java         | java_fnv32, tie                             | @fnv32-tie            | --hash java_fnv32 --vnodes 160
java         | java_fnv32, tie, reversed                   | @fnv32-tie-reversed   | --hash java_fnv32 --vnodes 160
java         | java_hashcode, tie                          | @hashcode-tie         | --hash java_hashcode --vnodes 160
java         | java_hashcode, tie, reversed                | @hashcode-tie-reversed | --hash java_hashcode --vnodes 160
spymemcached | 1 server                                    | 1 ip11211 equal       |
spymemcached | 10 servers, other ports                     | 10 port equal         |
spymemcached | 25 equal (160 points each)                  | 25 ip11211 equal      |
spymemcached | 100 equal                                   | 100 port equal        |
spymemcached | 1000 equal                                  | 1000 ip11211 equal    |
spymemcached | tie (the later server wins)                 | @spy-tie              |
spymemcached | tie, reversed                               | @spy-tie-reversed     |
spymemcached | weighted, 10 mixed weights                  | 10 port mixed         | --weighted
spymemcached | weighted, 25 equal (156 points each)        | 25 ip11211 equal      | --weighted
spymemcached | weighted, 100 mixed weights                 | 100 port mixed        | --weighted
spymemcached | weighted, 1000 mixed weights                | 1000 ip11211 mixed    | --weighted
spymemcached | weighted, 6 skewed (servers without points) | 6 port skewed         | --weighted
spymemcached | libmemcached format, 10 mixed ports         | 10 mixedport equal    | --format LIBMEMCACHED
spymemcached | libmemcached format, tie                    | @tie                  | --format LIBMEMCACHED
spymemcached | libmemcached format, tie, reversed          | @tie-reversed         | --format LIBMEMCACHED
spymemcached | libmemcached format, weighted, 47 mixed     | 47 mixedport mixed    | --format LIBMEMCACHED --weighted
spymemcached | libmemcached format, weighted, 100 equal    | 100 ip equal          | --format LIBMEMCACHED --weighted
dubbo        | 1 provider                                  | 1 port equal          |
dubbo        | 2 providers                                 | 2 port equal          |
dubbo        | 10 providers                                | 10 port equal         |
dubbo        | 100 providers                               | 100 ip11211 equal     |
dubbo        | 1000 providers                              | 1000 port equal       |
dubbo        | 10 UTF-8 names                              | 10 utf8 equal         |
dubbo        | 10 providers, hash.nodes 40                 | 10 port equal         | --vnodes 40
dubbo        | tie (the later provider wins)               | @dubbo-tie            |
dubbo        | tie, reversed                               | @dubbo-tie-reversed   |
pymemcache   | 1 server                                    | 1 port equal          |
pymemcache   | 2 servers                                   | 2 port equal          |
pymemcache   | 10 servers                                  | 10 port equal         |
pymemcache   | 100 servers (20,000 keys)                   | 100 ip11211 equal     |
pymemcache   | 1000 servers (2,000 keys)                   | 1000 port equal       |
pymemcache   | 10 hostnames                                | @pymemcache-hostnames |
pymemcache   | 10 UTF-8 names                              | @pymemcache-utf8      |
envoy        | ring_hash, 1 host                           | 1 port equal          | --lb ring_hash
envoy        | ring_hash, 2 hosts                          | 2 port equal          | --lb ring_hash
envoy        | ring_hash, 10 mixed weights                 | 10 port mixed         | --lb ring_hash
envoy        | ring_hash, 100 mixed weights                | 100 port mixed        | --lb ring_hash
envoy        | ring_hash, 1000 equal                       | 1000 port equal       | --lb ring_hash
envoy        | ring_hash, 6 skewed weights                 | 6 port skewed         | --lb ring_hash
envoy        | ring_hash, 10 UTF-8 names                   | 10 utf8 mixed         | --lb ring_hash
envoy        | ring_hash, minimum_ring_size 12             | 6 port equal          | --lb ring_hash --min-ring-size 12
envoy        | ring_hash, minimum_ring_size 100000         | 10 hostname mixed     | --lb ring_hash --min-ring-size 100000
envoy        | maglev, 1 host                              | 1 port equal          | --lb maglev
envoy        | maglev, 2 hosts                             | 2 port equal          | --lb maglev
envoy        | maglev, 10 mixed weights                    | 10 port mixed         | --lb maglev
envoy        | maglev, 100 mixed weights                   | 100 port mixed        | --lb maglev
envoy        | maglev, 1000 equal                          | 1000 port equal       | --lb maglev
envoy        | maglev, 6 skewed weights                    | 6 port skewed         | --lb maglev
envoy        | maglev, 10 UTF-8 names                      | 10 utf8 mixed         | --lb maglev
envoy        | maglev, table_size 7                        | 6 port equal          | --lb maglev --table-size 7
envoy        | maglev, table_size 655373                   | 100 hostname mixed    | --lb maglev --table-size 655373
groupcache   | 1 peer                                      | 1 hostname equal      |
groupcache   | 2 peers                                     | 2 hostname equal      |
groupcache   | 10 peers                                    | 10 port equal         |
groupcache   | 100 peers                                   | 100 hostname equal    |
groupcache   | 1000 peers                                  | 1000 ip equal         |
groupcache   | 10 UTF-8 names                              | 10 utf8 equal         |
groupcache   | 10 peers, 160 replicas                      | 10 hostname equal     | --vnodes 160
groupcache   | tie (the later peer wins)                   | @groupcache-tie       | --vnodes 1
groupcache   | tie, reversed                               | @groupcache-tie-reversed | --vnodes 1
elasticsearch | 1 shard (1024 routing shards)              | 1 hostname equal      |
elasticsearch | 2 shards (1024)                            | 2 hostname equal      |
elasticsearch | 3 shards (768)                             | 3 hostname equal      |
elasticsearch | 5 shards (640)                             | 5 hostname equal      |
elasticsearch | 8 shards (1024)                            | 8 hostname equal      |
elasticsearch | 6 shards split from 3 (768)                | 6 hostname equal      | --routing-shards 768
elasticsearch | 10 shards of an index before 7.0 (10)      | 10 hostname equal     | --routing-shards 10
elasticsearch | 100 shards (200)                           | 100 hostname equal    |
elasticsearch | 1000 shards (2000)                         | 1000 hostname equal   |
haproxy      | 1 server                                    | 1 hostname equal      |
haproxy      | 2 servers, equal                            | 2 hostname equal      |
haproxy      | 10 mixed weights (sdbm avalanche, default)  | 10 hostname mixed     |
haproxy      | 100 mixed weights                           | 100 hostname mixed    |
haproxy      | 1000 equal                                  | 1000 hostname equal   |
haproxy      | 10 of weight 256                            | 10 hostname 256       |
haproxy      | ids given to some servers                   | @haproxy-ids          |
haproxy      | sdbm, 10 mixed weights                      | 10 hostname mixed     | --hash sdbm
haproxy      | djb2, 10 mixed weights                      | 10 hostname mixed     | --hash djb2
haproxy      | djb2 avalanche, 10 mixed weights            | 10 hostname mixed     | --hash djb2 --avalanche
haproxy      | wt6, 10 mixed weights                       | 10 hostname mixed     | --hash wt6
haproxy      | wt6 avalanche, 10 mixed weights             | 10 hostname mixed     | --hash wt6 --avalanche
haproxy      | crc32, 10 mixed weights                     | 10 hostname mixed     | --hash crc32
haproxy      | crc32 avalanche, 100 mixed weights          | 100 hostname mixed    | --hash crc32 --avalanche
nginx        | 1 server                                    | 1 loopback equal      |
nginx        | 2 servers, equal                            | 2 loopback equal      |
nginx        | 10 mixed weights                            | 10 loopback mixed     |
nginx        | 100 mixed weights                           | 100 loopback mixed    |
nginx        | 1000 equal                                  | 1000 loopback equal   |
nginx        | 6 skewed weights                            | 6 loopback skewed     |
nginx        | tie (the first server wins)                 | @nginx-tie            |
nginx        | tie, reversed                               | @nginx-tie-reversed   |
dalli        | 1 server                                    | 1 ip11211 equal       |
dalli        | 2 servers, equal                            | 2 ip equal            |
dalli        | 10 mixed ports and weights                  | 10 mixedport mixed    |
dalli        | 100 mixed weights                           | 100 port mixed        |
dalli        | 1000 mixed weights                          | 1000 ip mixed         |
dalli        | 6 skewed weights (servers without points)   | 6 port skewed         |
dalli        | 20 hostnames                                | 20 hostname mixed     |
dalli        | 10 UTF-8 names                              | 10 utf8 mixed         |
dalli        | tie (the later server wins)                 | @dalli-tie            |
dalli        | tie, reversed                               | @dalli-tie-reversed   |
guava        | 1 bucket                                    | 1 hostname equal      |
guava        | 2 buckets                                   | 2 hostname equal      |
guava        | 10 buckets                                  | 10 hostname equal     |
guava        | 64 buckets                                  | 64 hostname equal     |
guava        | 256 buckets                                 | 256 hostname equal    |
guava        | 1000 buckets                                | 1000 hostname equal   |
EOF
)

# Server lists that servers.py does not make
write_list() {
	case $1 in
	fixture)
		# test/fixtures/ketama.hpp of libmemcached: its servers and weights
		printf '%s\t%s\n' 10.0.1.1 600 10.0.1.2 300 10.0.1.3 200 10.0.1.4 350 \
			10.0.1.5 1000 10.0.1.6 800 10.0.1.7 950 10.0.1.8 100 ;;
	tie) printf '%s\t1\n' 10.20.1.181 10.20.3.206 10.20.2.184 10.20.4.246 ;;
	tie-reversed) printf '%s\t1\n' 10.20.4.246 10.20.2.184 10.20.3.206 10.20.1.181 ;;
	tie-port) printf '%s\t1\n' 10.30.1.234:11311 10.30.1.248:11311 10.30.1.209:11311 10.30.2.19:11311 ;;
	tie-port-reversed) printf '%s\t1\n' 10.30.2.19:11311 10.30.1.209:11311 10.30.1.248:11311 10.30.1.234:11311 ;;
	# java_fnv32: 4 of the 160 points of these two collide (98 and 134, ...)
	fnv32-tie) printf '%s\t1\n' 10.40.0.1:6379 10.40.0.210:6379 10.40.0.2:6379 10.40.1.74:6379 ;;
	fnv32-tie-reversed) printf '%s\t1\n' 10.40.1.74:6379 10.40.0.2:6379 10.40.0.210:6379 10.40.0.1:6379 ;;
	# String.hashCode: "Aa", "BB" and "C#" collide, so every point of these three does
	hashcode-tie) printf '%s\t1\n' shard-01 shard-Aa shard-BB shard-02 shard-C# ;;
	hashcode-tie-reversed) printf '%s\t1\n' shard-C# shard-02 shard-BB shard-Aa shard-01 ;;
	# spymemcached names: "10.50.0.29:11211-17" and "10.50.0.202:11211-6"
	# share point 1111001908, and a point of 10.50.0.58 one of 10.50.2.6
	spy-tie) printf '%s\t1\n' 10.50.0.29:11211 10.50.0.202:11211 10.50.0.58:11211 10.50.2.6:11211 ;;
	# groupcache: point 0 of h6ezxwvm8 and of wtclwf2jc are both
	# crc32("0h6ezxwvm8") = crc32("0wtclwf2jc") = 3408942160
	groupcache-tie) printf '%s\t1\n' h6ezxwvm8 peer-b wtclwf2jc ;;
	# Dubbo: "10.60.0.1:808" with i = 10..19 hashes the very strings of
	# "10.60.0.1:8081" with i = 0..9 (no separator): 40 shared points
	# pymemcache names a server "host:port" (a bare host is host:11211):
	# the nodes are those names
	pymemcache-hostnames) for i in $(seq 1 10); do printf 'cache-%03d.example.net:11211\t1\n' "$i"; done ;;
	pymemcache-utf8) printf '%s\t1\n' кэш-1:11211 缓存-2:11211 🐘-3:11300 nodo-ñ-4:11211 Ωμέγα-5:11211 \
		кэш-6:11211 缓存-7:11211 🐘-8:11211 nodo-ñ-9:11400 Ωμέγα-10:11211 ;;
	dubbo-tie) printf '%s\t1\n' 10.60.0.1:808 10.60.0.2:20880 10.60.0.1:8081 ;;
	dubbo-tie-reversed) printf '%s\t1\n' 10.60.0.1:8081 10.60.0.2:20880 10.60.0.1:808 ;;
	groupcache-tie-reversed) printf '%s\t1\n' wtclwf2jc peer-b h6ezxwvm8 ;;
	# HAProxy: b, e, g and j have ids (3, 2, 10, 1000); the others get
	# theirs from HAProxy's counter (a 1, c 4, d 5, f 7, h 9, i 11, k 13)
	haproxy-ids) printf '%s\t%s\t%s\n' a 1 '' b 2 3 c 1 '' d 3 '' e 1 2 f 1 '' g 5 10 h 1 '' \
		i 2 '' j 1 1000 k 1 '' ;;
	# nginx: point 120 of 127.3.0.241:20001 and point 158 of
	# 127.3.3.209:20001 are both 2873687940
	nginx-tie) printf '%s\t1\n' 127.3.0.241:20001 127.3.1.7:20001 127.3.3.209:20001 ;;
	nginx-tie-reversed) printf '%s\t1\n' 127.3.3.209:20001 127.3.1.7:20001 127.3.0.241:20001 ;;
	# Dalli: point 34 of 10.50.0.20:11211 and point 140 of 10.50.1.86:11211
	# are both 628726149
	dalli-tie) printf '%s\t1\n' 10.50.0.20:11211 10.50.0.77:11211 10.50.1.86:11211 ;;
	dalli-tie-reversed) printf '%s\t1\n' 10.50.1.86:11211 10.50.0.77:11211 10.50.0.20:11211 ;;
	spy-tie-reversed) printf '%s\t1\n' 10.50.2.6:11211 10.50.0.58:11211 10.50.0.202:11211 10.50.0.29:11211 ;;
	# twemproxy --unnamed: each server is listened on at the address its
	# name gives (port 11211 when none), so lists that may run at once use
	# distinct addresses
	unnamed) printf '%s\t%s\n' 127.0.0.2 3 127.0.0.3 1 127.0.0.4 10 127.0.0.5 2 127.0.0.6 7 127.0.0.7 1 ;;
	unnamed-100)
		local i
		for ((i = 1; i <= 100; i++)); do
			printf '127.4.0.%d\t%d\n' $i $((i % 7 + 1))
		done ;;
	unnamed-ports)
		printf '%s\t%s\n' 127.0.1.2 3 127.0.1.3:22122 1 127.0.1.4:11212 10 127.0.1.5 2 \
			127.0.1.6:22122 7 127.0.1.7 1 127.0.1.8:11311 5 127.0.1.9:22122 4 ;;
	# md5 points that collide: 127.3.6.8 point 29 and 127.3.18.8 point 32
	# (nutcracker's sort puts the shorter name first, though its bytes sort
	# after), 127.3.1.131 point 28 and 127.3.1.170 point 9 (same length: the
	# bytes decide), each listed against nutcracker's order; 127.3.0.19
	# point 1 and 127.3.2.182 point 13, listed in it
	unnamed-tie) printf '%s\t1\n' 127.3.18.8 127.3.1.170 127.3.0.19 127.3.6.8 127.3.1.131 127.3.2.182 ;;
	*) echo "compat: unknown server list @$1" >&2; return 1 ;;
	esac
}

# Keys that land exactly on points: the names the client hashes for the
# first three points of (up to) the first 300 servers.
point_keys() {
	local client=$1 servers=$2
	head -n 300 "$servers" | cut -f1 | while IFS= read -r name; do
		case $client in
		# libmemcached hashes "host-i" for port 11211, "host:port-i" otherwise
		libmemcached) name=${name%:11211}; printf '%s-0\n%s-1\n%s-2\n' "$name" "$name" "$name" ;;
		java) printf '%s&&VN0\n%s&&VN1\n%s&&VN2\n' "$name" "$name" "$name" ;;
		# spymemcached: "ip:port-i", or libmemcached's names
		spymemcached-lib) name=${name%:11211}; printf '%s-0\n%s-1\n%s-2\n' "$name" "$name" "$name" ;;
		# Dubbo's digests hash "address" || i: their first point
		dubbo) printf '%s0\n%s1\n%s39\n' "$name" "$name" "$name" ;;
		# Envoy's ring_hash points hash "<key>_<i>"
		envoy) printf '%s_0\n%s_1\n%s_2\n' "$name" "$name" "$name" ;;
		*) printf '%s-0\n%s-1\n%s-2\n' "$name" "$name" "$name" ;;
		esac
	done | LC_ALL=C awk 'length($0) <= 200'	# in bytes: the longest key the route programs take
}

# The chash ring for a configuration: SQL that creates ring $1
ring_sql() {
	local ring=$1 client=$2 hash='' vnodes='' template='{node}&&VN{i}' first=0 o spy_profile='' avalanche=''
	local table_size=NULL lb=''
	read -ra o <<<"$3"
	set -- "${o[@]}"
	while [ $# -gt 0 ]; do
		case $1 in
		--hash) hash=$2; shift 2 ;;
		--unnamed) shift ;;	# the nodes are named as nutcracker names the servers
		--vnodes) vnodes=$2; shift 2 ;;
		--template) template=$2; shift 2 ;;
		--first) first=$2; shift 2 ;;
		--format) [ "$2" = LIBMEMCACHED ] && spy_profile=_libmemcached${spy_profile}; shift 2 ;;
		--weighted) spy_profile=${spy_profile}_weighted; shift ;;
		--avalanche) avalanche=_avalanche; shift ;;
		--routing-shards | --table-size) table_size=$2; shift 2 ;;
		--lb) lb=$2; shift 2 ;;
		--min-ring-size) vnodes=$2; shift 2 ;;
		*) echo "compat: unknown client option $1" >&2; return 1 ;;
		esac
	done
	# the ring of each client is its profile's (chash_profiles())
	case $client in
	libmemcached | uhashring | libketama)
		echo "SELECT chash_ring_create('$ring', profile => '$client')" ;;
	node)
		echo "SELECT chash_ring_create('$ring', profile => 'hashring')" ;;
	twemproxy)
		# nutcracker's hash names: md5 and crc32a are chash's md5 and crc32
		case $hash in
		md5) hash=md5 ;;
		crc32a) hash=crc32 ;;
		*) hash=twemproxy_$hash ;;
		esac
		echo "SELECT chash_ring_create('$ring', profile => 'twemproxy', key_hash => '$hash')" ;;
	java)
		echo "SELECT chash_ring_create('$ring', profile => 'java_ring', hash => '$hash', vnodes => $vnodes, vnode_name => '$template', vnode_first => $first)" ;;
	spymemcached)
		echo "SELECT chash_ring_create('$ring', profile => 'spymemcached$spy_profile')" ;;
	guava | nginx | dalli)
		echo "SELECT chash_ring_create('$ring', profile => '$client')" ;;
	groupcache | dubbo)
		echo "SELECT chash_ring_create('$ring', profile => '$client'${vnodes:+, vnodes => $vnodes})" ;;
	pymemcache)
		echo "SELECT chash_ring_create('$ring', profile => 'pymemcache')" ;;
	envoy)
		if [ "$lb" = maglev ]; then
			echo "SELECT chash_ring_create('$ring', profile => 'envoy_maglev', table_size => $table_size)"
		else
			echo "SELECT chash_ring_create('$ring', profile => 'envoy_ring_hash'${vnodes:+, vnodes => $vnodes})"
		fi ;;
	elasticsearch)
		echo "SELECT chash_ring_create('$ring', profile => 'elasticsearch', table_size => $table_size)" ;;
	haproxy)
		# hash-type consistent alone: sdbm avalanche; crc32 is chash's crc32
		case $hash$avalanche in
		'' | _avalanche) hash=haproxy_sdbm_avalanche ;;
		crc32) hash=crc32 ;;
		*) hash=haproxy_$hash$avalanche ;;
		esac
		echo "SELECT chash_ring_create('$ring', profile => 'haproxy', key_hash => '$hash')" ;;
	esac
}

# The client's program and its options, into the array cmd
client_cmd() {
	local client=$1 o
	read -ra o <<<"$2"
	case $client in
	libmemcached) cmd=("$work/libmemcached_routes") ;;
	uhashring) cmd=("$py" "$compat/uhashring_routes.py") ;;
	node) cmd=(node "$compat/hashring_routes.js") ;;
	twemproxy) cmd=("$py" "$compat/twemproxy_routes.py" "${o[@]}" --conf "$dir/server.conf") ;;
	libketama) cmd=("$py" "$compat/libketama_reference.py") ;;
	java) cmd=("$py" "$compat/java_ring_reference.py" --template '{node}&&VN{i}' --first 0 "${o[@]}") ;;
	spymemcached)
		cmd=(java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
			-cp "$work/java:/usr/share/java/spymemcached.jar" SpymemcachedRoutes "${o[@]}") ;;
	guava)
		cmd=(java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
			-cp "$work/java:/usr/share/java/guava.jar" GuavaRoutes) ;;
	nginx) cmd=("$py" "$compat/nginx_routes.py" --conf "$dir/server.conf") ;;
	dalli) cmd=(/usr/bin/ruby "$compat/dalli_routes.rb") ;;
	# the server ids HAProxy gave, which are the nodes' ordinals
	haproxy) cmd=("$py" "$compat/haproxy_routes.py" "${o[@]}" --ids "$dir/ids.tsv" --conf "$dir/server.conf") ;;
	elasticsearch) cmd=("$py" "$compat/es_routing.py" "${o[@]}" --servers) ;;
	groupcache) cmd=("$work/groupcache_routes" ${o[@]/--vnodes/--replicas}) ;;
	dubbo) cmd=("$py" "$compat/dubbo_reference.py" ${o[@]/--vnodes/--nodes}) ;;
	envoy) cmd=("$py" "$compat/envoy_reference.py" "${o[@]}") ;;
	pymemcache) cmd=("$py" "$compat/pymemcache_routes.py" --jobs "$jobs") ;;
	esac
}

client_file() {
	case $1 in
	libmemcached) echo "$compat/libmemcached_routes.c" ;;
	uhashring) echo "$compat/uhashring_routes.py" ;;
	node) echo "$compat/hashring_routes.js" ;;
	twemproxy) echo "$compat/twemproxy_routes.py" ;;
	libketama) echo "$compat/libketama_reference.py" ;;
	java) echo "$compat/java_ring_reference.py" ;;
	spymemcached) echo "$compat/SpymemcachedRoutes.java" ;;
	guava) echo "$compat/GuavaRoutes.java" ;;
	nginx) echo "$compat/nginx_routes.py" ;;
	dalli) echo "$compat/dalli_routes.rb" ;;
	haproxy) echo "$compat/haproxy_routes.py" ;;
	elasticsearch) echo "$compat/es_routing.py" ;;
	groupcache) echo "$compat/groupcache_routes.go" ;;
	dubbo) echo "$compat/dubbo_reference.py" ;;
	envoy) echo "$compat/envoy_reference.py" ;;
	pymemcache) echo "$compat/pymemcache_routes.py" ;;
	esac
}

# --- what the clients need -----------------------------------------------
missing=()
want() { [[ $only == *" $1 "* ]]; }
for client in "${clients[@]}"; do
	want $client || continue
	[ -f "$(client_file $client)" ] || missing+=("$client: $(client_file $client) is missing")
done
if want libmemcached; then
	if [ -f /usr/include/libmemcached/memcached.h ] && command -v gcc >/dev/null; then
		gcc -O2 -Wall -o "$work/libmemcached_routes" "$compat/libmemcached_routes.c" -lmemcached ||
			missing+=("libmemcached: libmemcached_routes.c does not build")
	else
		missing+=("libmemcached: gcc and libmemcached-dev are needed")
	fi
fi
if want uhashring; then
	$py -c 'import uhashring' 2>/dev/null || missing+=("uhashring: $py has no uhashring (python3-uhashring)")
fi
if want node; then
	command -v node >/dev/null || missing+=("node: node is not installed")
	[ -f "$compat/node_modules/hashring/package.json" ] ||
		missing+=("node: $compat/node_modules/hashring is missing (npm ci in test/compat)")
fi
if want twemproxy; then
	command -v nutcracker >/dev/null || missing+=("twemproxy: nutcracker is not installed")
fi
if want spymemcached; then
	if command -v javac >/dev/null && [ -f /usr/share/java/spymemcached.jar ]; then
		javac -d "$work/java" -cp /usr/share/java/spymemcached.jar "$compat/SpymemcachedRoutes.java" ||
			missing+=("spymemcached: SpymemcachedRoutes.java does not build")
	else
		missing+=("spymemcached: javac and /usr/share/java/spymemcached.jar are needed (openjdk-17-jdk-headless, libspymemcached-java)")
	fi
fi
if want guava; then
	if command -v javac >/dev/null && [ -f /usr/share/java/guava.jar ]; then
		javac -d "$work/java" -cp /usr/share/java/guava.jar "$compat/GuavaRoutes.java" ||
			missing+=("guava: GuavaRoutes.java does not build")
	else
		missing+=("guava: javac and /usr/share/java/guava.jar are needed (openjdk-17-jdk-headless, libguava-java)")
	fi
fi
if want nginx; then
	[ -x /usr/sbin/nginx ] || missing+=("nginx: /usr/sbin/nginx is not installed (nginx)")
fi
if want groupcache; then
	if command -v go >/dev/null && [ -d /usr/share/gocode/src/github.com/golang/groupcache ]; then
		GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE="$work/gocache" \
			go build -o "$work/groupcache_routes" "$compat/groupcache_routes.go" ||
			missing+=("groupcache: groupcache_routes.go does not build")
	else
		missing+=("groupcache: go and groupcache's source are needed (golang-go, golang-github-golang-groupcache-dev)")
	fi
fi
if want elasticsearch; then
	command -v java >/dev/null && command -v javac >/dev/null &&
		compgen -G '/usr/share/java/lucene-core-*.jar' >/dev/null ||
		missing+=("elasticsearch: a JDK and Lucene's jar are needed (openjdk-17-jdk-headless, liblucene8-java)")
fi
if want haproxy; then
	[ -x /usr/sbin/haproxy ] || missing+=("haproxy: /usr/sbin/haproxy is not installed (haproxy)")
fi
if want dubbo; then
	$py "$compat/dubbo_reference.py" --self-test >/dev/null ||
		missing+=("dubbo: dubbo_reference.py --self-test failed")
fi
if want pymemcache; then
	$py -c 'import pymemcache.client.hash' 2>/dev/null ||
		missing+=("pymemcache: $py has no pymemcache (python3-pymemcache)")
fi
if want envoy; then
	$py "$compat/envoy_reference.py" --self-test >/dev/null ||
		missing+=("envoy: envoy_reference.py --self-test failed")
fi
if want dalli; then
	[ -x /usr/bin/ruby ] && /usr/bin/ruby -e 'require "dalli"' 2>/dev/null ||
		missing+=("dalli: /usr/bin/ruby with dalli is needed (ruby, ruby-dalli)")
fi
if [ ${#missing[@]} -gt 0 ]; then
	printf '  MISSING  %s\n' "${missing[@]}" >&2
	echo "compat: test/bin/setup.sh installs what the clients need" >&2
	exit 1
fi

# --- inputs -------------------------------------------------------------------
t0=$(now_us)
$py "$compat/keys.py" "$nkeys" 20240601 >"$work/keys.txt"
# HAProxy hashes a header's first comma-separated element: its keys are
# those without ',' or '"', of a sixth more
if want haproxy; then
	$py "$compat/keys.py" $((nkeys * 6 / 5)) 20240601 | grep -v '[,"]' >"$work/keys_haproxy.txt"
fi
# the exported configurations' keys, of another seed (HAProxy's without
# ',' or '"' again)
exporting=
for c in "${!export_count[@]}"; do
	! want "$c" || exporting=1
done
if [ -n "$exporting" ]; then
	$py "$compat/keys.py" $((export_keys * 6 / 5)) 20261206 | grep -v '[,"]' |
		awk -v n="$export_keys" 'NR <= n' >"$work/keys_export.txt"
	sed 's/\\/\\\\/g' "$work/keys_export.txt" >"$work/keys_export.copy"
fi
# Guava's keys are longs: random ones, the extremes, and keys where Guava
# and the paper's jump hash part ways (its generator's int overflow at
# 975451704, 1950903408, -1378162610, 306526976, 232648731, -1981240395,
# 1729793554; its one division at -1331982085 for 256 buckets, and at
# -4887040210034938806 for 64)
$py - "$nkeys" >"$work/longs.txt" <<'PY'
import random, sys
rng = random.Random(20261202)
edges = [0, 1, -1, 2**63 - 1, -2**63, 975451704, 1950903408, -1378162610,
         306526976, 232648731, -1981240395, 1729793554, -1331982085,
         -4887040210034938806]
keys = edges + [rng.randrange(-2**63, 2**63) for _ in range(int(sys.argv[1]) // 2)] \
    + [rng.randrange(-2**31, 2**31) for _ in range(int(sys.argv[1]) // 2)]
print("\n".join(str(k) for k in keys))
PY

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
n=0
declare -a c_client c_label c_opts
while IFS='|' read -r client label servers opts; do
	client=$(trim "$client") label=$(trim "$label") servers=$(trim "$servers") opts=$(trim "$opts")
	[ -n "$client" ] || continue
	want "$client" || continue
	n=$((n + 1))
	dir=$work/$n
	mkdir "$dir"
	c_client[n]=$client c_label[n]=$label c_opts[n]=$opts
	if [[ $servers == @* ]]; then
		write_list "${servers#@}" >"$dir/servers.tsv"
	else
		read -ra spec <<<"$servers"
		$py "$compat/servers.py" "${spec[@]}" >"$dir/servers.tsv"
	fi
	{
		if [ "$client" = guava ]; then
			cat "$work/longs.txt"
		elif [ "$client" = haproxy ]; then
			cat "$work/keys_haproxy.txt"
		elif [ "$client" = pymemcache ] && [[ $label =~ \(([0-9,]+)\ keys\) ]]; then
			head -n "${BASH_REMATCH[1]//,/}" "$work/keys.txt"
		else
			cat "$work/keys.txt"
		fi
		if [ "$client" = guava ] || [ "$client" = nginx ] || [ "$client" = dalli ] ||
			[ "$client" = haproxy ] || [ "$client" = pymemcache ]; then
			:	# keys are not named as points: crc32 of a name is no point
		elif [ "$client" = spymemcached ] && [[ $opts == *LIBMEMCACHED* ]]; then
			point_keys spymemcached-lib "$dir/servers.tsv"
		else
			point_keys "$client" "$dir/servers.tsv"
		fi
		if [ "$servers" = @fixture ]; then
			cut -f1 "$compat/libmemcached_ketama_fixture.tsv"
			echo VDEAAAAA	# after the last point: wraps to the first
		fi
	} >"$dir/keys.txt"
	if [ "$servers" = @fixture ]; then
		cut -f1,2 "$compat/libmemcached_ketama_fixture.tsv" >"$dir/positions.tsv"
	fi
	ring_sql "compat_$n" "$client" "$opts" >"$dir/ring.sql"
	# the servers' own configurations go to chash_ring_import too, into a
	# ring made as the other
	if [[ $servers_imported == *" $client "* ]]; then
		ring_sql "compat_${n}_import" "$client" "$opts" >"$dir/ring_import.sql"
	fi
	if export_wanted "$client" "$label"; then
		: >"$dir/export.wanted"
	fi
done <<<"$configs"
# a client list that names none of the clients checks nothing
[ $n -gt 0 ] || { echo "compat: no configuration for the clients:$only" >&2; exit 1; }
for c in "${!export_count[@]}"; do
	want "$c" || continue
	marked=0
	for ((i = 1; i <= n; i++)); do
		[ "${c_client[i]}" != "$c" ] || [ ! -f "$work/$i/export.wanted" ] || marked=$((marked + 1))
	done
	if [ "$marked" != "${export_count[$c]}" ]; then
		echo "compat: $marked of $c's configurations are exported, not ${export_count[$c]}: a label of export_wanted is missing from the table" >&2
		exit 1
	fi
done

# --- the checks ---------------------------------------------------------------
# chash's side of every configuration: servers and keys with the client's
# routes loaded with \copy, the ring made in server-list order, one query.
cat >"$work/check.sql" <<'SQL'
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
\pset fieldsep '\t'
SET client_min_messages = warning;
-- the comparisons' plans cost enough for JIT, whose compiling took 0.3 s
-- of a configuration's 0.5 s and decides nothing of what is compared
SET jit = off;
CREATE TEMP TABLE s (ord integer GENERATED ALWAYS AS IDENTITY, name text, weight integer);
\copy s (name, weight) FROM 'servers.copy'
CREATE TEMP TABLE t (id integer GENERATED ALWAYS AS IDENTITY, key text, expected text);
\copy t (key, expected) FROM 'data.copy'
\i ring.sql
\o /dev/null
-- in the client's server-list order, which decides ties; in one
-- statement where asked (an index's shards at once, as its routing shards
-- are a multiple of their number; long lists)
\if :{?one_statement}
INSERT INTO chash.node_config (ring, node, weight, ordinal)
SELECT :'ring', name, weight, ord FROM s ORDER BY ord;
\else
SELECT format('SELECT chash_node_add(%L, %L, weight => %s)', :'ring', name, weight)
FROM s ORDER BY ord \gexec
\endif
\o
\if :{?ids}
-- HAProxy's server ids, the nodes' ordinals
CREATE TEMP TABLE ids (name text, id bigint);
\copy ids FROM 'ids.copy'
UPDATE chash.node_config n SET ordinal = ids.id FROM ids
WHERE n.ring = :'ring' AND n.node = ids.name;
\endif
CREATE TEMP TABLE r AS
SELECT id, key, expected, chash_lookup(:'ring', key) AS got, chash_position(:'ring', key) AS pos
FROM t;
CREATE TEMP TABLE p AS
SELECT point, count(*) AS n, count(DISTINCT node) AS owners
FROM chash_points(:'ring') GROUP BY point;
-- positions where points of several servers tie, and the keys whose arc
-- ends there (for information: positions are compared as bigint)
CREATE TEMP TABLE tie AS
SELECT point, coalesce(prev, (SELECT max(point) FROM p)) AS prev
FROM (SELECT point, owners, lag(point) OVER (ORDER BY point) AS prev FROM p) a
WHERE owners > 1;
SELECT 'RESULT',
	(SELECT count(*) FROM r WHERE got IS DISTINCT FROM expected),
	(SELECT count(*) FROM r),
	(SELECT coalesce(sum(n), 0) FROM p),
	(SELECT count(*) FROM tie),
	(SELECT count(*) FROM r JOIN tie ON CASE WHEN tie.prev < tie.point
		THEN r.pos > tie.prev AND r.pos <= tie.point
		ELSE r.pos > tie.prev OR r.pos <= tie.point END);
SELECT 'DIFF', id, key, expected, coalesce(got, '(null)'), pos
FROM r WHERE got IS DISTINCT FROM expected ORDER BY id LIMIT 5;
\if :{?positions}
-- published key hashes (libmemcached's fixture)
CREATE TEMP TABLE h (key text, position bigint);
\copy h FROM 'positions.copy'
SELECT 'POSITIONS', count(*) FILTER (WHERE chash_position(:'ring', key) IS DISTINCT FROM position), count(*)
FROM h;
SELECT 'PDIFF', key, position, chash_position(:'ring', key) FROM h
WHERE chash_position(:'ring', key) IS DISTINCT FROM position LIMIT 5;
\endif
\if :{?export_options}
-- chash_export of the ring for the real server to run: every seventh
-- server down where the format writes down servers, twemproxy's servers at
-- loopback addresses of their own (127.N.x.y, N the configuration's); the
-- export's keys' servers by chash_lookup
UPDATE chash.node_config n SET state = 'down'
FROM s WHERE n.ring = :'ring' AND n.node = s.name AND :'export_down'::boolean AND s.ord % 7 = 3;
\if :{?export_net}
UPDATE chash.node_config n
SET address = format('127.%s.%s.%s:21211', :export_net, s.ord / 250, s.ord % 250 + 1)
FROM s WHERE n.ring = :'ring' AND n.node = s.name;
\endif
CREATE TEMP TABLE ek (id integer GENERATED ALWAYS AS IDENTITY, key text);
\copy ek (key) FROM 'keys_export.copy'
\o export.conf
SELECT chash_export(:'ring', NULL, :'export_options'::jsonb);
\o
\o export_expected.txt
SELECT coalesce(chash_lookup(:'ring', key), '(null)') FROM ek ORDER BY id;
\o
\endif
SELECT chash_ring_drop(:'ring') \g /dev/null
\if :{?import_format}
-- the server's own configuration (import.txt, the part of the file it
-- loaded that the format takes) through chash_ring_import, into a ring
-- made as the other: every key routed again
\set import_ring :ring _import
\set import_text `cat import.txt`
\i ring_import.sql
SELECT chash_ring_import(:'import_ring', :'import_format', :'import_text') AS imported \gset
SELECT 'IMPORT', :imported,
	(SELECT count(*) FROM t WHERE chash_lookup(:'import_ring', key) IS DISTINCT FROM expected),
	(SELECT count(*) FROM t),
	(SELECT count(*) FROM chash_points(:'import_ring'));
SELECT 'IDIFF', id, key, expected, coalesce(chash_lookup(:'import_ring', key), '(null)')
FROM t WHERE chash_lookup(:'import_ring', key) IS DISTINCT FROM expected ORDER BY id LIMIT 5;
SELECT chash_ring_drop(:'import_ring') \g /dev/null
\endif
SQL

fmt='%-12s  %-44s %7s %7s %9s %8s %5s %8s %8s %7s\n'
header=$(printf "$fmt" client configuration servers keys differing points ties tie-keys client-s chash-s)

# A configuration's summary, written whole: report_done, which runs while
# other configurations are still running, reads a summary as soon as its
# file exists; written in place, it could be read empty, and that would stop
# the suite with a false failure
summary() {
	echo "$2" >"$work/$1/summary.tmp"
	mv "$work/$1/summary.tmp" "$work/$1/summary"
}

# One configuration, start to end: its client's routes, then chash's.
# Writes $dir/report (lines to print) and $dir/summary ("client keys
# differing failed").
run_config() {
	local i=$1 dir=$work/$1 client=${c_client[$1]} label=${c_label[$1]}
	local cmd start rc=0 client_us chash_us nservers nk nr diff checked points ties tiekeys
	local pdiff pchecked failed=0 extra=()
	nservers=$(wc -l <"$dir/servers.tsv")
	nk=$(wc -l <"$dir/keys.txt")

	client_cmd "$client" "${c_opts[i]}"
	start=$(now_us)
	"${cmd[@]}" "$dir/servers.tsv" "$dir/keys.txt" >"$dir/routes.txt" 2>"$dir/client.err" || rc=$?
	client_us=$(($(now_us) - start))
	nr=$(wc -l <"$dir/routes.txt")
	if [ $rc -ne 0 ] || [ "$nr" != "$nk" ]; then
		{
			printf "$fmt" "$client" "$label" "$nservers" "$nk" FAILED - - - "$(seconds $client_us)" -
			echo "    the client's program failed (exit $rc, $nr routes for $nk keys):"
			tail -n 10 "$dir/client.err" | sed 's/^/    /'
		} >"$dir/report"
		summary "$i" "$client 0 0 1"
		return
	fi

	# libmemcached_routes itself must agree with libmemcached's own fixture:
	# its 99 keys come last but one (VDEAAAAA is last).  The keys that agree
	# are counted, not those that differ, so that a fixture or routes cut
	# short cannot pass.
	if [ -f "$dir/positions.tsv" ]; then
		local good
		good=$(tail -n 100 "$dir/routes.txt" | head -n 99 |
			paste "$compat/libmemcached_ketama_fixture.tsv" - | awk -F'\t' '$3 != "" && $3 == $4' | wc -l)
		extra+=("    + the client agrees with libmemcached's fixture on $good of its 99 keys")
		[ "$good" = 99 ] || failed=1
		sed 's/\\/\\\\/g' "$dir/positions.tsv" >"$dir/positions.copy"
	fi

	# keys have no tabs; backslashes are COPY's escapes
	paste "$dir/keys.txt" "$dir/routes.txt" | sed 's/\\/\\\\/g' >"$dir/data.copy"
	cut -f1,2 "$dir/servers.tsv" | sed 's/\\/\\\\/g' >"$dir/servers.copy"
	[ ! -f "$dir/ids.tsv" ] || sed 's/\\/\\\\/g' "$dir/ids.tsv" >"$dir/ids.copy"
	# what chash_ring_import reads, cut from the file the server loaded:
	# nginx's upstream block, HAProxy's backend section, the whole pool
	local import_format=''
	if [ -f "$dir/ring_import.sql" ]; then
		case $client in
		nginx)
			import_format=nginx_upstream
			awk '/^  upstream u \{$/ { f = 1 } f { print } f && /^  \}$/ { exit }' \
				"$dir/server.conf" >"$dir/import.txt" ;;
		haproxy)
			import_format=haproxy_backend
			awk '/^backend / { f = 1; print; next }
				f && /^(global|defaults|frontend|backend|listen)([ \t]|$)/ { exit } f { print }' \
				"$dir/server.conf" >"$dir/import.txt" ;;
		twemproxy)
			import_format=twemproxy_pool
			cp "$dir/server.conf" "$dir/import.txt" ;;
		esac
	fi
	start=$(now_us)
	rc=0
	(
		cd "$dir"
		opts=(-X -q -d "$db" -v ring="compat_$i" -f "$work/check.sql")
		[ -f positions.copy ] && opts+=(-v positions=1)
		[ -f ids.copy ] && opts+=(-v ids=1)
		[ -z "$import_format" ] || opts+=(-v import_format="$import_format")
		if [ -f export.wanted ]; then
			cp "$work/keys_export.copy" keys_export.copy
			case $client in
			nginx) opts+=(-v export_options='{"key": "$http_x_key"}' -v export_down=true) ;;
			haproxy) opts+=(-v export_options='{"balance": "hdr(X-Key)"}' -v export_down=true) ;;
			twemproxy)
				opts+=(-v export_options="{\"listen\": \"127.$((10 + i % 240)).255.254:22121\"}"
					-v export_down=false -v export_net=$((10 + i % 240))) ;;
			# Envoy's hosts are at ip:port: names of that form are their
			# own addresses (no hash_key), the others get one (hash_key)
			envoy)
				opts+=(-v export_options='{"name": "compat"}' -v export_down=true)
				grep -Eq '^[0-9.]+:[0-9]+'$'\t' servers.tsv || opts+=(-v export_net=$((10 + i % 240))) ;;
			# an index has no shard that is down
			elasticsearch) opts+=(-v export_options='{}' -v export_down=false) ;;
			# the memcached clients' server lists: no option, nothing down
			*) opts+=(-v export_options='{}' -v export_down=false) ;;
			esac
		fi
		# an index's shards at once; and big lists in one statement, not
		# a ring check per server (1,000 chash_node_add took 9 s of
		# uhashring's 1,000-server check); not HAProxy's, whose ids are
		# set after and must not meet ordinals given here
		if [ "$client" = elasticsearch ] || { [ "$nservers" -ge 100 ] && [ "$client" != haproxy ]; }; then
			opts+=(-v one_statement=1)
		fi
		"$bindir/psql" "${opts[@]}"
	) >"$dir/check.out" 2>"$dir/check.err" || rc=$?
	chash_us=$(($(now_us) - start))
	if [ $rc -ne 0 ]; then
		{
			printf "$fmt" "$client" "$label" "$nservers" "$nk" FAILED - - - \
				"$(seconds $client_us)" "$(seconds $chash_us)"
			echo "    chash failed:"
			tail -n 10 "$dir/check.err" | sed 's/^/    /'
		} >"$dir/report"
		summary "$i" "$client 0 0 1"
		return
	fi
	IFS=$'\t' read -r _ diff checked points ties tiekeys < <(grep '^RESULT' "$dir/check.out")
	[ "$diff" = 0 ] || failed=1
	# the import: every key, the same server as the server's own, and a
	# node for every server
	local imported=- ichecked=- idiff=- ipoints=- ifailed=-
	if [ -n "$import_format" ]; then
		IFS=$'\t' read -r _ imported idiff ichecked ipoints < <(grep '^IMPORT' "$dir/check.out")
		ifailed=0
		if [ "$idiff" != 0 ] || [ "$ichecked" != "$nk" ] || [ "$imported" != "$nservers" ]; then
			ifailed=1
			failed=1
		fi
	fi
	# the export: the real server runs chash_export's configuration as it
	# is; every key of the export's own must go where chash_lookup sends it
	local echecked=- ediff=- efailed=- export_us=0 erc=0 ecmd=()
	if [ -f "$dir/export.wanted" ]; then
		case $client in
		nginx) ecmd=("$py" "$compat/nginx_routes.py" --config "$dir/export.conf") ;;
		haproxy) ecmd=("$py" "$compat/haproxy_routes.py" --config "$dir/export.conf") ;;
		twemproxy) ecmd=("$py" "$compat/twemproxy_routes.py" --config "$dir/export.conf") ;;
		envoy) ecmd=("$py" "$compat/envoy_reference.py" --config "$dir/export.conf") ;;
		elasticsearch) ecmd=("$py" "$compat/es_routing.py" --config "$dir/export.conf") ;;
		pymemcache) ecmd=("$py" "$compat/pymemcache_routes.py" --jobs "$jobs" --config "$dir/export.conf") ;;
		*)
			# the client's own program, its servers read from the export
			client_cmd "$client" ""
			ecmd=("${cmd[@]}" --config "$dir/export.conf") ;;
		esac
		start=$(now_us)
		"${ecmd[@]}" "$work/keys_export.txt" >"$dir/export_routes.txt" 2>"$dir/export.err" || erc=$?
		export_us=$(($(now_us) - start))
		echecked=$(paste "$dir/export_expected.txt" "$dir/export_routes.txt" | awk -F'\t' '$2 != ""' | wc -l)
		ediff=$(paste "$dir/export_expected.txt" "$dir/export_routes.txt" | awk -F'\t' '$1 != $2' | wc -l)
		efailed=0
		if [ $erc -ne 0 ] || [ "$echecked" != "$export_keys" ] || [ "$ediff" != 0 ] ||
			[ "$(wc -l <"$dir/export_expected.txt")" != "$export_keys" ]; then
			efailed=1
			failed=1
		fi
	fi
	# every key the client routed was compared, not only those that loaded
	if [ "$checked" != "$nk" ]; then
		failed=1
		extra+=("    chash compared $checked keys of the $nk the client routed")
	fi
	{
		printf "$fmt" "$client" "$label" "$nservers" "$checked" "$diff" "$points" "$ties" "$tiekeys" \
			"$(seconds $client_us)" "$(seconds $chash_us)"
		if [ "$diff" != 0 ]; then
			echo "    first differing keys (line, key, client's server, chash's, chash_position):"
			grep '^DIFF' "$dir/check.out" | cut -f2- | sed 's/^/    /' || true
		fi
		[ ${#extra[@]} -eq 0 ] || printf '%s\n' "${extra[@]}"
		if [ -n "$import_format" ]; then
			printf "$fmt" "$client" "$label, imported" "$imported" "$ichecked" "$idiff" "$ipoints" - - - -
			if [ "$ifailed" != 0 ]; then
				echo "    chash_ring_import($import_format) made $imported nodes of $nservers servers; first differing keys (line, key, server's, chash's):"
				grep '^IDIFF' "$dir/check.out" | cut -f2- | sed 's/^/    /' || true
			fi
		fi
		if [ "$efailed" != - ]; then
			printf "$fmt" "$client" "$label, exported" "$nservers" "$echecked" "$ediff" - - - \
				"$(seconds $export_us)" -
			if [ "$efailed" != 0 ]; then
				echo "    the server ran chash_export's configuration (exit $erc, $echecked of $export_keys keys routed); first differing keys (line, chash's, server's):"
				paste "$dir/export_expected.txt" "$dir/export_routes.txt" |
					awk -F'\t' '$1 != $2 { print "    " NR "\t" $0; if (++k == 5) exit }'
				tail -n 5 "$dir/export.err" | sed 's/^/    /'
			fi
		fi
		if [ -f "$dir/positions.copy" ]; then
			IFS=$'\t' read -r _ pdiff pchecked < <(grep '^POSITIONS' "$dir/check.out")
			echo "    + chash_position() agrees with libmemcached's fixture on $((pchecked - pdiff)) of its 99 key hashes"
			[ "$pchecked" = 99 ] || failed=1
			if [ "$pdiff" != 0 ]; then
				failed=1
				grep '^PDIFF' "$dir/check.out" | cut -f2- | sed 's/^/    /' || true
			fi
		fi
	} >"$dir/report"
	summary "$i" "$client $checked $diff $failed $ichecked $idiff $ifailed $echecked $ediff $efailed"
}

"$bindir/createdb" -T template0 -E UTF8 "$db"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -c 'CREATE EXTENSION chash'

# Run the configurations $jobs at a time, report them in order as they end
echo "$header"
declare -A s_configs s_keys s_diff s_failed
failed=0
imports=0
exports=0
next=1
report_done() {
	local c k d f ik idf ifl ek edf efl
	while [ $next -le $n ] && [ -f "$work/$next/summary" ]; do
		cat "$work/$next/report"
		read -r c k d f ik idf ifl ek edf efl <"$work/$next/summary"
		if [ -n "$ek" ] && [ "$ek" != - ]; then
			s_configs[$c export]=$((${s_configs[$c export]:-0} + 1))
			s_keys[$c export]=$((${s_keys[$c export]:-0} + ek))
			s_diff[$c export]=$((${s_diff[$c export]:-0} + edf))
			s_failed[$c export]=$((${s_failed[$c export]:-0} + efl))
			exports=$((exports + 1))
		fi
		if [ -n "$ik" ] && [ "$ik" != - ]; then
			s_configs[$c import]=$((${s_configs[$c import]:-0} + 1))
			s_keys[$c import]=$((${s_keys[$c import]:-0} + ik))
			s_diff[$c import]=$((${s_diff[$c import]:-0} + idf))
			s_failed[$c import]=$((${s_failed[$c import]:-0} + ifl))
			imports=$((imports + 1))
		fi
		s_configs[$c]=$((${s_configs[$c]:-0} + 1))
		s_keys[$c]=$((${s_keys[$c]:-0} + k))
		s_diff[$c]=$((${s_diff[$c]:-0} + d))
		s_failed[$c]=$((${s_failed[$c]:-0} + f))
		failed=$((failed + f))
		next=$((next + 1))
	done
}
# The configurations whose client alone takes most of a minute start first,
# so that none of them is left running alone at the end: pymemcache scores
# every server for every key in Python (the reports still come in
# configuration order)
starts=()
for ((i = 1; i <= n; i++)); do
	nservers=$(wc -l <"$work/$i/servers.tsv")
	if [ "$nservers" -ge 100 ] && [ "${c_client[i]}" = pymemcache ]; then
		starts+=("$i")
	fi
done
for ((i = 1; i <= n; i++)); do
	[[ " ${starts[*]} " == *" $i "* ]] || starts+=("$i")
done
running=0
for i in "${starts[@]}"; do
	run_config $i &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
		report_done
	fi
done
wait
# a configuration that stopped before writing its summary is a failure
for ((i = next; i <= n; i++)); do
	if [ ! -f "$work/$i/summary" ]; then
		printf "$fmt" "${c_client[i]}" "${c_label[i]}" - - FAILED - - - - - >"$work/$i/report"
		echo "    the check stopped early: $(tail -n 1 "$work/$i/check.err" 2>/dev/null)" >>"$work/$i/report"
		summary "$i" "${c_client[i]} 0 0 1"
	fi
done
report_done
t1=$(now_us)

echo
printf '%-16s  %14s %12s %9s %7s\n' client configurations "keys checked" differing failed
for client in "${clients[@]}"; do
	for c in "$client" "$client import" "$client export"; do
		[ -n "${s_configs[$c]:-}" ] || continue
		printf '%-16s  %14s %12s %9s %7s\n' "$c" "${s_configs[$c]}" "${s_keys[$c]}" \
			"${s_diff[$c]}" "${s_failed[$c]}"
	done
done
# each import is a configuration checked: a ring made by chash_ring_import
if [ $imports -gt 0 ]; then
	echo "$((n + imports + exports)) configurations in $(seconds $((t1 - t0))) s, $jobs at a time ($imports of them the servers' own, through chash_ring_import; $exports chash_export's, run by the servers)"
else
	echo "$n configurations in $(seconds $((t1 - t0))) s, $jobs at a time"
fi

if [ $failed -gt 0 ]; then
	echo "compat: $failed configuration(s) differ or failed" >&2
	exit 1
fi
