#!/usr/bin/python3
"""Envoy's ring_hash and maglev load balancers: an independent reference.

    envoy_reference.py --lb ring_hash [--min-ring-size N] [--max-ring-size N]
        [--hash-function xx_hash|murmur_hash_2] [--with-hash] HOSTS KEYS > ROUTES
    envoy_reference.py --lb maglev [--table-size M] [--with-hash] HOSTS KEYS > ROUTES
    envoy_reference.py --config CLUSTER.yaml [--with-hash] KEYS > ROUTES
    envoy_reference.py --self-test

--config: an Envoy Cluster (API v3) in YAML, as chash_export writes it:
lb_policy RING_HASH (ring_hash_lb_config: minimum_ring_size,
maximum_ring_size, hash_function) or MAGLEV (maglev_lb_config:
table_size); load_assignment's endpoints, one locality, each lb_endpoint's
hash key its "envoy.lb" hash_key metadata, else its socket address
"ip:port" ("[v6]:port"), with its load_balancing_weight (default 1).
Hosts whose health_status is UNHEALTHY, DRAINING or TIMEOUT are left out,
as Envoy leaves them out of the ring or table while the cluster is not in
panic: the file must set common_lb_config.healthy_panic_threshold to 0, or
have every host healthy.  Read by a reader of the block subset chash
writes (maps, "- " lists, plain, single- and double-quoted scalars,
comments), and by PyYAML too where it is installed: the two must agree.

HOSTS: one host a line, "name<TAB>weight" (or "name weight"); empty lines
are skipped.  The name is the host's hash key as Envoy hashes it: its
address "ip:port" ("[v6]:port"), its hostname with use_hostname_for_hashing,
or its "envoy.lb" "hash_key" metadata, which wins over both.  Weights are
load_balancing_weight (1 to 2^32-1, summing to at most 2^32-1); names are
distinct (Envoy's pick between hosts of one hash key is unspecified).  One
priority, no localities, every host healthy, no hash_balance_factor.
KEYS: one key a line, UTF-8, an empty line the empty key; a key is a header
value of a "header" hash_policy, so its hash is xxHash64(key, seed 0).
ROUTES: one line a key, the host's name (--with-hash: "hash<TAB>name").

Reproduces Envoy main as of 2025-26 (source/extensions/load_balancing_policies/
{ring_hash/ring_hash_lb.cc, maglev/maglev_lb.cc, common/thread_aware_lb_impl.cc},
source/common/common/hash.{h,cc}), written from a reading of them, not
translated.  In short: normalized weights
w / sum(w) in double.  ring: scale = min(ceil(min_w * min_ring) / min_w,
max_ring); host by host in HOSTS order, target += scale * w and points
"<name>_<i>" (i = 0, 1, ...) at xxHash64(point, 0) (or libstdc++'s murmur2)
are added while a running double count is below target; a key goes to the
first point >= its hash, wrapping.  maglev: hosts sorted by name, offset =
xxHash64(name, 0) % M, skip = xxHash64(name, 1) % (M-1) + 1; in rounds
r = 1, 2, ..., each host with r * w >= target takes its next free slot and
adds max_w to target; a key goes to table[hash % M].
--self-test checks every value published in Envoy's ring_hash_lb_test.cc,
maglev_lb_test.cc and hash_test.cc.  xxHash64: Debian's python3-xxhash, or
libxxhash.so.0 through ctypes.  Exit status 0, 1 self-test failed, 2 bad input.
"""
import argparse
import bisect
import heapq
import math
import sys

PROG = "envoy_reference.py"
U64 = (1 << 64) - 1
RING_MIN_DEFAULT, RING_MAX_DEFAULT, RING_LIMIT = 1024, 8 << 20, 8388608
MAGLEV_DEFAULT, MAGLEV_LIMIT = 65537, 5000011


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


try:
    from xxhash import xxh64_intdigest as xxh64
except ImportError:
    import ctypes
    try:
        _XXH64 = ctypes.CDLL("libxxhash.so.0").XXH64
    except OSError:
        die("needs python3-xxhash or libxxhash0")
    _XXH64.restype = ctypes.c_uint64
    _XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]

    def xxh64(data, seed=0):
        return _XXH64(data, len(data), seed)


def murmur2(data, seed=0xC70F6907):
    """libstdc++'s 64-bit _Hash_bytes (Envoy's MurmurHash::murmurHash2)."""
    mul, n = 0xC6A4A7935BD1E995, len(data)
    h, whole = (seed ^ (n * mul)) & U64, n & ~7
    for p in range(0, whole, 8):
        d = (int.from_bytes(data[p:p + 8], "little") * mul) & U64
        h = ((h ^ ((d ^ (d >> 47)) * mul & U64)) * mul) & U64
    if n & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * mul) & U64
    h = ((h ^ (h >> 47)) * mul) & U64
    return h ^ (h >> 47)


def normalize(groups):
    """[(locality weight, [(name, weight)])] -> [(name, normalized weight)],
    as Envoy's thread-aware base; a locality weight None: no localities."""
    lsum, out = sum(lw or 0 for lw, _ in groups), []
    for lw, hosts in groups:
        if lw == 0:
            continue
        nlw, hsum = 1.0 if lw is None else lw / lsum, sum(w for _, w in hosts)
        out += [(name, w * nlw / hsum) for name, w in hosts]
    return out


def ring_build(nw, min_size, max_size, hash_fn=xxh64):
    """-> (sorted point hashes, their owners, points a host, ring size)."""
    if not nw:
        return [], [], {}, 0
    min_w = min([1.0] + [w for _, w in nw])
    scale = min(math.ceil(min_w * min_size) / min_w, float(max_size))
    points, counts, have, target = [], {}, 0.0, 0.0
    for name, w in nw:
        target += scale * w
        i = 0
        while have < target:
            points.append((hash_fn(name + b"_%d" % i), name))
            i, have = i + 1, have + 1
        counts[name] = i
    points.sort(key=lambda p: p[0])
    return [h for h, _ in points], [o for _, o in points], counts, math.ceil(scale)


def ring_pick(ring, h, attempt=0):
    hashes, owners = ring[0], ring[1]
    if not hashes:
        return None
    i = bisect.bisect_left(hashes, h)
    return owners[((0 if i == len(hashes) else i) + attempt) % len(hashes)]


def next_round(start, w, target):
    """The first round r >= start with r * w >= target (a double product)."""
    r = max(start, int(target / w) - 1)
    while r > start and (r - 1) * w >= target:
        r -= 1
    while r * w < target:
        r += 1
    return r


def maglev_build(nw, m):
    """-> (table of names, entries a host).  A heap of (round, index) gives
    the hosts their turns in the order of Envoy's round-by-round loop."""
    hosts = sorted(nw)
    if not hosts:
        return [], {}
    n, top = len(hosts), max([0.0] + [w for _, w in hosts])
    offset = [xxh64(name) % m for name, _ in hosts]
    skip = [xxh64(name, 1) % (m - 1) + 1 for name, _ in hosts]
    target, nxt, count = [0.0] * n, [0] * n, [0] * n
    table, filled, turns = [-1] * m, 0, [(1, i) for i in range(n)]
    while filled < m:
        rnd, i = heapq.heappop(turns)
        target[i] += top
        c = (offset[i] + skip[i] * nxt[i]) % m
        while table[c] >= 0:
            nxt[i] += 1
            c = (offset[i] + skip[i] * nxt[i]) % m
        table[c], nxt[i], count[i], filled = i, nxt[i] + 1, count[i] + 1, filled + 1
        heapq.heappush(turns, (next_round(rnd + 1, hosts[i][1], target[i]), i))
    return [hosts[i][0] for i in table], {hosts[i][0]: count[i] for i in range(n)}


def maglev_pick(table, h, attempt=0):
    if not table:
        return None
    if attempt:
        h ^= (U64 - attempt + 1) & U64
    return table[h % len(table)]


def is_prime(n):
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))


def read_lines(path):
    """Lines split on \\n only, trailing \\r and \\n stripped."""
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        die(str(e))
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.rstrip(b"\r\n") for line in lines]


def read_hosts(path):
    hosts, seen = [], set()
    for no, line in enumerate(read_lines(path), 1):
        if not line:
            continue
        name, sep, weight = line.rpartition(b"\t" if b"\t" in line else b" ")
        try:
            text = name.decode("utf-8")
        except UnicodeDecodeError:
            die(f"{path}:{no}: the host name is not UTF-8")
        if not sep or not name or not weight.isdigit() or not 1 <= int(weight) <= U64 >> 32:
            die(f'{path}:{no}: expected "name<TAB>weight", weight 1 to 4294967295')
        if name in seen:
            die(f"{path}:{no}: {text!r} twice (Envoy's pick among equal keys is unspecified)")
        seen.add(name)
        hosts.append((name, int(weight)))
    if not hosts:
        die(f"{path}: no hosts (Envoy would route nothing)")
    if sum(w for _, w in hosts) > U64 >> 32:
        die(f"{path}: the weights sum to more than 4294967295")
    return hosts


def yaml_scalar(text, where):
    """A plain, single- or double-quoted YAML scalar (a string or an int)."""
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            die(f"{where}: unterminated string")
        out, i, body = [], 0, text[1:-1]
        simple = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r",
                  "0": "\0", "b": "\b", "f": "\f", "e": "\x1b", " ": " "}
        while i < len(body):
            ch = body[i]
            if ch != "\\":
                out.append(ch)
                i += 1
                continue
            e = body[i + 1:i + 2]
            if e in simple:
                out.append(simple[e])
                i += 2
            elif e in ("x", "u", "U"):
                n = {"x": 2, "u": 4, "U": 8}[e]
                out.append(chr(int(body[i + 2:i + 2 + n], 16)))
                i += 2 + n
            else:
                die(f"{where}: unknown escape \\{e}")
        return "".join(out)
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return int(text) if text.lstrip("-").isdigit() else text


def yaml_subset(data):
    """The block YAML chash writes: nested maps and lists by indentation."""
    lines = []
    for no, raw in enumerate(data.decode("utf-8").split("\n"), 1):
        body = raw.rstrip()
        if not body.strip() or body.lstrip().startswith("#"):
            continue
        lines.append((no, len(body) - len(body.lstrip(" ")), body.lstrip(" ")))

    def node(i, indent):
        """Parse the block at lines[i:] of this indent: (value, next i)."""
        if lines[i][2].startswith("- "):
            items = []
            while i < len(lines) and lines[i][1] == indent and lines[i][2].startswith("- "):
                no, _, text = lines[i]
                # the item's first line, as a map line two columns right
                lines[i] = (no, indent + 2, text[2:])
                value, i = node(i, indent + 2)
                items.append(value)
            return items, i
        out = {}
        while i < len(lines) and lines[i][1] == indent:
            no, _, text = lines[i]
            if text.startswith("- "):
                break
            if text.startswith('"'):
                end = text.index('"', 1)
                key, rest = yaml_scalar(text[:end + 1], f"line {no}"), text[end + 1:]
            else:
                key, _, rest = text.partition(":")
                rest = ":" + rest
            if not rest.startswith(":"):
                die(f"config line {no}: expected \"key: value\"")
            rest = rest[1:].strip()
            i += 1
            if rest:
                out[key] = yaml_scalar(rest, f"config line {no}")
            elif i < len(lines) and (lines[i][1] > indent or
                                     (lines[i][1] == indent and lines[i][2].startswith("- "))):
                out[key], i = node(i, lines[i][1])
            else:
                out[key] = None
        return out, i

    if not lines:
        die("config: empty")
    value, i = node(0, lines[0][1])
    if i != len(lines):
        die(f"config line {lines[i][0]}: unexpected indentation")
    return value


def read_config(path):
    """-> (lb, options, [(hash key, weight)] of the healthy hosts in order)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(str(e))
    cluster = yaml_subset(data)
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None and yaml.safe_load(data) != cluster:
        die(f"{path}: PyYAML reads it otherwise than the subset reader")
    if not isinstance(cluster, dict):
        die(f"{path}: not a cluster")
    policy = cluster.get("lb_policy")
    if policy == "RING_HASH":
        c = cluster.get("ring_hash_lb_config") or {}
        hf = c.get("hash_function", "XX_HASH")
        opts = {"min": int(c.get("minimum_ring_size", RING_MIN_DEFAULT)),
                "max": int(c.get("maximum_ring_size", RING_MAX_DEFAULT)),
                "hash": {"XX_HASH": xxh64, "MURMUR_HASH_2": murmur2}.get(hf)}
        if opts["hash"] is None:
            die(f"{path}: unknown hash_function {hf}")
        lb = "ring_hash"
    elif policy == "MAGLEV":
        c = cluster.get("maglev_lb_config") or {}
        opts = {"table_size": int(c.get("table_size", MAGLEV_DEFAULT))}
        lb = "maglev"
    else:
        die(f"{path}: lb_policy {policy!r} is neither RING_HASH nor MAGLEV")
    panic = ((cluster.get("common_lb_config") or {}).get("healthy_panic_threshold") or {}).get("value", 50)
    endpoints = (cluster.get("load_assignment") or {}).get("endpoints") or []
    if len(endpoints) != 1:
        die(f"{path}: {len(endpoints)} localities; this reference takes one")
    hosts, unhealthy, seen = [], 0, set()
    for e in endpoints[0].get("lb_endpoints") or []:
        sa = e["endpoint"]["address"]["socket_address"]
        ip, port = str(sa["address"]), int(sa["port_value"])
        key = ((e.get("metadata") or {}).get("filter_metadata") or {}).get("envoy.lb", {}).get("hash_key")
        if key is None:
            key = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
        key = str(key).encode("utf-8")
        if key in seen:
            die(f"{path}: hash key {key!r} twice")
        seen.add(key)
        weight = int(e.get("load_balancing_weight", 1))
        if not 1 <= weight <= U64 >> 32:
            die(f"{path}: load_balancing_weight {weight}")
        if e.get("health_status", "UNKNOWN") in ("UNHEALTHY", "DRAINING", "TIMEOUT"):
            unhealthy += 1
            continue
        hosts.append((key, weight))
    if unhealthy and float(panic) != 0:
        die(f"{path}: unhealthy hosts with healthy_panic_threshold {panic}: "
            "Envoy's panic mode is not reproduced here")
    if not hosts:
        die(f"{path}: no healthy host")
    return lb, opts, hosts


# Published values: test/extensions/load_balancing_policies/{ring_hash/
# ring_hash_lb_test.cc, maglev/maglev_lb_test.cc}, test/common/common/hash_test.cc.
def self_test():
    fails, U = [], RING_MAX_DEFAULT

    def check(what, got, want):
        if got != want:
            fails.append(f"{what}: got {got!r}, want {want!r}")

    def addr(*ports):
        return [b"127.0.0.1:%d" % p for p in ports]

    def flat(names, weights=None):
        return normalize([(None, list(zip(names, weights or [1] * len(names))))])

    def spread(ring, n):                # keys i * (2^64-1 / n), i < n: hits a host
        hits = {}
        for i in range(n):
            o = ring_pick(ring, i * (U64 // n))
            hits[o] = hits.get(o, 0) + 1
        return hits

    def ring(what, nw, lo, hi, stats, points=(), owners=(), picks=(), fn=xxh64):
        r = ring_build(nw, lo, hi, fn)  # stats: ring size, min and max points a host
        check(what + " size/min/max", (r[3], min(r[2].values()), max(r[2].values())), stats)
        if points:
            check(what + " ring", list(zip(r[0], r[1])), list(zip(points, owners)))
        for h, want in picks:
            check(f"{what} key {h}", ring_pick(r, h), want)
        return r

    for s, x, m in [(b"foo", 3728699739546630719, 9631199822919835226),
                    (b"bar", 5234164152756840025, 11474628671133349555),
                    (b"foo\nbar", 8917841378505826757, 16306510975912980159),
                    (b"lyft", 4400747396090729504, 12847078931730529320),
                    (b"", 17241709254077376921, 6142509188972423790)]:
        check(f"xxHash64({s!r})", xxh64(s), x)
        check(f"murmurHash2({s!r})", murmur2(s), m)
    check("xxHash64 of values foo, bar", xxh64(b"bar", xxh64(b"foo")), 17745830980996999794)
    p90, names = addr(90, 91, 92, 93, 94, 95), [b"%d" % p for p in range(90, 96)]
    basic = ring("Basic", flat(p90), 12, U, (12, 2, 2), [
        833437586790550860, 928266305478181108, 1033482794131418490, 3551244743356806947,
        3851675632748031481, 5583722120771150861, 6311230543546372928, 7700377290971790572,
        13144177310400110813, 13444792449719432967, 15516499411664133160,
        16117243373044804889], addr(94, 92, 90, 95, 93, 91, 91, 93, 95, 92, 94, 90),
        zip([0, U64, 3551244743356806947, 3551244743356806948, 16117243373044804880],
            addr(94, 94, 95, 93, 90)))
    for attempt, want in zip([0, 1, 2, 13], addr(94, 92, 90, 92)):
        check(f"BasicWithRetryHostPredicate attempt {attempt}", ring_pick(basic, 0, attempt), want)
    ring("BasicWithHostname/MetadataHashKey", flat(names), 12, U, (12, 2, 2), [
        1975508444536362413, 2376063919839173711, 2386806903309390596, 6749904478991551885,
        6803900775736438537, 7225015537174310577, 8787465352164086522, 11282020843382717940,
        13723418369486627818, 13776502110861797421, 14338313586354474791,
        15364271037087512980], [names[int(c)] for c in "553432021014"],
        zip([0, U64, 7225015537174310577, 6803900775736438537], [b"95", b"95", b"92", b"93"]))
    ring("BasicWithMurmur2", flat(addr(80, 81, 82, 83, 84, 85)), 12, U, (12, 2, 2), [
        1358027074129602068, 4361834613929391114, 7224494972555149682, 7701421856454313576,
        8649315368077433379, 8739448859063030639, 9887544217113020895, 10150910876324007731,
        15168472011420622455, 15427156902705414897, 16375050414328759093,
        17613279263364193813], addr(85, 83, 84, 81, 82, 84, 81, 82, 83, 80, 85, 80),
        zip([0, U64, 1358027074129602068, 1358027074129602069, 10150910876324007730],
            addr(85, 85, 85, 83, 82)), murmur2)
    ring("BasicFailover", flat(addr(80)), 12, U, (12, 12, 12))
    for ports, points, owners in [
            ((80, 81), [5454692015285649509, 7859399908942313493, 13838424394637650569,
                        16064866803292627174], (80, 81, 80, 81)),
            ((81, 82), [7859399908942313493, 8241336090459785962, 12882406409176325258,
                        16064866803292627174], (81, 82, 82, 81))]:
        ring(f"UnevenHosts {ports}", flat(addr(*ports)), 3, U, (4, 2, 2), points,
             addr(*owners), [(0, addr(ports[0])[0])])
    tiny = list(zip([928266305478181108, 4443673547860492590, 5583722120771150861,
                     6311230543546372928, 13444792449719432967, 16117243373044804889],
                    addr(92, 92, 91, 91, 92, 90)))
    loc4 = lambda lws: [(lw, [(n, 1)]) for lw, n in zip(lws, addr(90, 91, 92, 93))]
    for what, nw in [("HostWeighted", flat(addr(90, 91, 92), [1, 2, 3])),
                     ("LocalityWeighted", normalize(loc4([1, 2, 3, 0])))]:
        ring(what + "TinyRing", nw, 6, 6, (6, 1, 3), picks=tiny)
        r = ring(what + "LargeRing", nw, 6144, U, (6144, 1024, 3072))
        check(what + "LargeRing hits", spread(r, 6000),
              dict(zip(addr(90, 91, 92), [987, 1932, 3081])))
    hl = normalize([(1, list(zip(addr(90, 91), [1, 2]))), (2, list(zip(addr(92, 93), [1, 2])))])
    ring("HostAndLocalityWeightedTinyRing", hl, 9, 9, (9, 1, 4), picks=zip(
        [928266305478181108, 3851675632748031481, 5583722120771150861, 6311230543546372928,
         7700377290971790572, 12559126875973811811, 13444792449719432967,
         13784988426630141778, 16117243373044804889], addr(92, 93, 91, 91, 93, 93, 92, 93, 90)))
    r = ring("HostAndLocalityWeightedLargeRing", hl, 9216, U, (9216, 1024, 4096))
    check("HostAndLocalityWeightedLargeRing hits", spread(r, 9000),
          dict(zip(addr(90, 91, 92, 93), [924, 2009, 2053, 4014])))
    hits = spread(ring("SmallFractionalScale", flat(addr(90, 91, 92, 93)), 2, 2, (2, 0, 1)), 1024)
    check("SmallFractionalScale hosts hit, hits", (len(hits), sum(hits.values())), (2, 1024))
    r = ring("LargeFractionalScale", flat(addr(90, 91)), 1023, 1023, (1023, 511, 512))
    check("LargeFractionalScale hits", spread(r, 1023), dict(zip(addr(90, 91), [526, 497])))
    lop_hosts = [b"127.0.0.1:%d" % i for i in range(1024)]
    lop = normalize([(127, [(lop_hosts[0], 1)]), (1, [(n, 1) for n in lop_hosts[1:]])])
    ring("LopsidedWeightSmallScale", lop, 1024, 1024, (1024, 0, 1016), picks=zip(
        [11664790346325243808, 15894554872961148518, 13958138884277627155,
         15803774069438192949, 3829253010855396576, 17918147347826565154,
         6442769608292299103, 5881074926069334434], lop_hosts[1:2] + lop_hosts[128::128]))
    check("ZeroLocalityWeights", normalize(loc4([0, 0])), [])

    def maglev(what, nw, m, want, spans=None):
        table, counts = maglev_build(nw, m)
        check("maglev " + what, table, want)
        if spans:
            check(f"maglev {what} min/max", (min(counts.values()), max(counts.values())), spans)
        return table

    two = addr(90, 91)
    basic = maglev("Basic", flat(p90), 7, addr(92, 94, 90, 91, 95, 90, 93), (1, 2))
    check("maglev Basic keys 0..20", [maglev_pick(basic, i) for i in range(21)], basic * 3)
    maglev("BasicStability", flat(p90[3:][::-1] + p90[:3]), 7, basic)
    for attempt, want in zip([0, 1, 2], addr(91, 90, 95)):
        check(f"maglev BasicWithRetryHostPredicate attempt {attempt}",
              maglev_pick(basic, 10, attempt), want)
    maglev("BasicWithHostName/MetadataHashKey", flat(names), 7,
           [names[int(c)] for c in "2503410"], (1, 2))
    maglev("Weighted", flat(two, [1, 2]), 17, [two[int(c)] for c in "10010110111110101"], (6, 11))
    maglev("SingleHost", flat(addr(90)), 7, two[:1] * 7)
    maglev("WeightedSingleHost", flat(addr(90), [7]), 17, two[:1] * 17)
    maglev("LocalityWeightedSameLocalityWeights/GlobalPanic",
           normalize([(1, [(two[0], 1)]), (1, [(two[1], 2)])]), 17,
           [two[int(c)] for c in "10010110010100101"], (8, 9))
    maglev("LocalityWeightedDifferentLocalityWeights",
           normalize([(8, [(two[0], 1)]), (0, [(b"127.0.0.1:92", 3)]), (2, [(two[1], 2)])]),
           17, [two[int(c)] for c in "10000010010100000"], (4, 13))
    maglev("LocalityWeightedAllZeroLocalityWeights", normalize([(0, [(two[0], 1)])]), 17, [])
    counts = maglev_build(lop, MAGLEV_DEFAULT)[1]
    check("maglev LocalityWeightedLopsided", (counts[lop_hosts[0]],
          {counts[n] for n in lop_hosts[1:]}), (MAGLEV_DEFAULT - 1023, {1}))
    check("maglev NoPrimeNumber, default", (is_prime(8), is_prime(MAGLEV_DEFAULT)), (False, True))
    for f in fails:
        print(f"{PROG}: self-test: {f}", file=sys.stderr)
    print(f"{PROG}: self-test {'FAILED' if fails else 'passed'}")
    return 1 if fails else 0


def main():
    p = argparse.ArgumentParser(prog=PROG, description="Envoy ring_hash / maglev routes.")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--lb", choices=["ring_hash", "maglev"])
    p.add_argument("--min-ring-size", type=int, default=RING_MIN_DEFAULT)
    p.add_argument("--max-ring-size", type=int, default=RING_MAX_DEFAULT)
    p.add_argument("--hash-function", choices=["xx_hash", "murmur_hash_2"], default="xx_hash")
    p.add_argument("--table-size", type=int, default=MAGLEV_DEFAULT)
    p.add_argument("--with-hash", action="store_true", help='print "hash<TAB>host"')
    p.add_argument("--config", metavar="CLUSTER_YAML")
    p.add_argument("hosts", nargs="?")
    p.add_argument("keys", nargs="?")
    a = p.parse_args()
    if a.self_test:
        return self_test()
    if a.config:
        if a.hosts is None or a.keys is not None or a.lb:
            p.error("give --config CLUSTER KEYS")
        a.keys = a.hosts
        a.lb, opts, hosts = read_config(a.config)
        if a.lb == "ring_hash":
            a.min_ring_size, a.max_ring_size = opts["min"], opts["max"]
            a.hash_function = "murmur_hash_2" if opts["hash"] is murmur2 else "xx_hash"
        else:
            a.table_size = opts["table_size"]
    if not a.lb or not a.keys:
        p.error("give --lb and HOSTS KEYS, or --self-test")
    if a.lb == "ring_hash":
        for what, v in [("minimum", a.min_ring_size), ("maximum", a.max_ring_size)]:
            if not 1 <= v <= RING_LIMIT:
                die(f"{what}_ring_size {v} is not 1 to {RING_LIMIT}")
        if a.min_ring_size > a.max_ring_size:
            die(f"ring hash: minimum_ring_size ({a.min_ring_size}) > "
                f"maximum_ring_size ({a.max_ring_size})")
    elif not is_prime(a.table_size) or a.table_size > MAGLEV_LIMIT:
        die(f"The table size of maglev must be prime number (at most {MAGLEV_LIMIT})")
    nw = normalize([(None, hosts if a.config else read_hosts(a.hosts))])
    if a.lb == "ring_hash":
        ring = ring_build(nw, a.min_ring_size, a.max_ring_size,
                          murmur2 if a.hash_function == "murmur_hash_2" else xxh64)
        pick = lambda h: ring_pick(ring, h)
    else:
        table = maglev_build(nw, a.table_size)[0]
        pick = lambda h: maglev_pick(table, h)
    routes = []
    for no, key in enumerate(read_lines(a.keys), 1):
        try:
            key.decode("utf-8")
        except UnicodeDecodeError:
            die(f"{a.keys}:{no}: the key is not UTF-8")
        h = xxh64(key)
        routes.append((b"%d\t" % h if a.with_hash else b"") + pick(h) + b"\n")
    sys.stdout.buffer.write(b"".join(routes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
