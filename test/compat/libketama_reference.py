#!/usr/bin/python3
"""
libketama_reference.py -- an independent reference of the ORIGINAL libketama
(RJ/ketama, libketama/ketama.c, Last.fm 2007): its continuum and its lookup.

    libketama_reference.py [--beyond-limits] SERVERS KEYS > ROUTES
    libketama_reference.py --selftest

SERVERS is TSV, one "name<TAB>weight" line per server in server-list order
(weight a positive integer: libketama's "memory"); empty lines are skipped.
KEYS has one key a line (UTF-8; an empty line is the empty key).  A trailing
"\\n" and any "\\r" before it are stripped from every line, as in the sibling
route programs.  ROUTES gets one line per key: the name of the server whose
continuum point ketama_get_server() returns.

Standard library only.  Written from a reading of ketama.c, not translated.

The continuum (ketama_create_continuum)
---------------------------------------
  * total = sum of the weights (C: unsigned long).
  * per server, in single precision (C "float"):
        pct = (float)memory / (float)total
    then
        ks  = floorf( pct * 40.0 * (float)numservers )
    40.0 is a DOUBLE literal, so "pct * 40.0 * (float)numservers" is computed
    in double (both products are exact there: 24 + 3 bits, then + 24 bits,
    < 53), and the double is rounded to float when it is passed to floorf().
    That rounding is why 61, 122 and 237 equal-weight servers get 39 and not
    40 digests each: the double lands just under 40.0 and stays under it.
  * for k = 0 .. ks-1: digest = md5("<addr>-<k>") (sprintf "%s-%d"), and the
    four little-endian uint32 words of the digest are four points, each
    owned by the server.
  * the points are sorted by value with glibc qsort() and a comparator that
    returns 0 on ties.  On Debian 12 (glibc 2.36) qsort() is a merge sort --
    stable -- whenever it can get the scratch memory (always, for any ring
    libketama can hold: at most 512 KiB of points), so tied points keep their
    insertion order: server-list order, then k, then word h.  Python's
    sort is stable too, and we feed it the points in insertion order.
    (glibc 2.36 falls back to an unstable quicksort only if that scratch
    memory cannot be had; other C libraries' qsort need not be stable.  The
    tie order of those is not what this reference reproduces.  Ties between
    different names need an md5 word collision, so in practice they come
    from a server listed twice, where the order cannot show.)

The lookup (ketama_get_server)
------------------------------
  key hash = ketama_hashi(key) = little-endian uint32 of the first 4 bytes of
  md5(key).  Its binary search is reproduced loop for loop in
  ketama_search() below; see that function for why it always equals "the
  first point >= h, wrapping to point 0" (a lower_bound), including h == 0,
  h equal to a point, and runs of equal points.  --selftest checks that
  claim exhaustively on small continua.

Limits of the real library (what the reference refuses by default)
-------------------------------------------------------------------
  * serverinfo.addr is char[22]: a name needs at most 21 bytes plus its NUL.
    read_server_line() accepts tokens up to 23 bytes (its test is
    strlen(tok) - 1 < 23), so 22- and 23-byte names overflow addr by one or
    two bytes into struct padding (undefined behaviour; and mcs.ip, also
    char[22], then holds the name without its NUL).  Names of 24+ bytes make
    read_server_line() return memory 0, and ketama_roll() fails outright.
  * sprintf(ss, "%s-%d") into char ss[30]: "<addr>-<k>" must fit in 29 bytes.
  * the server file is split with strtok(line, "\\t ") and lines starting
    with '#' are comments: a name cannot contain a space or a tab, cannot
    start with '#', and no NUL can pass through C strings.
  * fgets(sline, 127, ...) reads at most 126 bytes of a server line.
  * memory goes through strtol(): at most LONG_MAX; total is an unsigned long.
  * the whole continuum must fit in MC_SHMSIZE = 512 KiB of shared memory:
    36 + 28 * points <= 524288, i.e. at most 18,723 points (117 servers of
    160 points).  Beyond that ketama_create_continuum() memcpy()s past the
    segment (a crash).  The semantics do not change, so this is only a
    warning on stderr.
  --beyond-limits turns the name checks off: the routes are then those of
  the same algorithm with big enough buffers (full names hashed).
Keys are passed to ketama_get_server() as C strings, so a key is hashed only
up to its first NUL byte; the reference does the same.

Exit status: 0 ok, 2 bad input or a limit of the real library.
"""

import bisect
import hashlib
import math
import random
import struct
import sys

POINTS_PER_DIGEST = 4
ADDR_SIZE = 22          # serverinfo.addr / mcs.ip
SS_SIZE = 30            # char ss[30] in ketama_create_continuum
SERVER_LINE_MAX = 126   # fgets(sline, 127, fi)
LONG_MAX = 2 ** 63 - 1
ULONG_MAX = 2 ** 64 - 1
MC_SHMSIZE = 524288
MCS_SIZE = 28           # sizeof(mcs): unsigned int + char[22] + 2 padding
SHM_ARRAY_OFFSET = 4 * (1 + 8)   # (int *) data + 1 + sizeof(void *)


class LimitError(Exception):
    pass


# ---------------------------------------------------------------- float32

def f32(x):
    """Round a Python float (a double) to the nearest IEEE single, ties to
    even, as a C (double -> float) conversion does."""
    return struct.unpack('<f', struct.pack('<f', x))[0]


def int_to_f32(n):
    """(float) n for a non-negative integer n, correctly rounded (ties to
    even) -- done by hand because float(n) first rounds to double, and
    rounding twice could differ for n >= 2**53."""
    if n < 0:
        raise ValueError(n)
    if n < 2 ** 24:
        return float(n)
    shift = n.bit_length() - 24
    q, r = divmod(n, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return float(q << shift)    # q has <= 25 bits: exact in double


def float_div_f32(a, b):
    """a / b in single precision, a and b floats already.  Python divides in
    double; rounding that to single is the correctly rounded single quotient
    (53 >= 2*24 + 2, so double rounding is innocuous for division)."""
    return f32(a / b)


def digests_per_server(memory, total, numservers):
    """ks = floorf( pct * 40.0 * (float)numservers ), with C's types."""
    pct = float_div_f32(int_to_f32(memory), int_to_f32(total))
    prod = pct * 40.0 * int_to_f32(numservers)    # double, exact
    return int(math.floor(f32(prod)))              # the float floorf sees


# ---------------------------------------------------------------- hashing

def md5_words(data):
    """The four little-endian uint32 words of md5(data), h = 0..3."""
    return struct.unpack('<4I', hashlib.md5(data).digest())


def ketama_hashi(key_bytes):
    """ketama_hashi: first 4 bytes of md5, little-endian; C string -> stops
    at the first NUL."""
    nul = key_bytes.find(b'\0')
    if nul >= 0:
        key_bytes = key_bytes[:nul]
    return md5_words(key_bytes)[0]


# ---------------------------------------------------------------- continuum

def check_name(name_bytes, ks):
    """Raise LimitError if libketama could not take this server name."""
    shown = name_bytes.decode('utf-8', 'replace')
    if len(name_bytes) > ADDR_SIZE - 1:
        if len(name_bytes) >= 24:
            why = 'read_server_line() rejects it, ketama_roll() fails'
        else:
            why = 'it overflows addr[22] (undefined behaviour)'
        raise LimitError('server name "%s" is %d bytes; libketama holds at '
                         'most %d (%s)' % (shown, len(name_bytes),
                                           ADDR_SIZE - 1, why))
    if ks > 0:
        longest = len(name_bytes) + 1 + len(str(ks - 1))
        if longest > SS_SIZE - 1:
            raise LimitError('"%s-%d" is %d bytes, over libketama\'s char '
                             'ss[30]' % (shown, ks - 1, longest))
    if b' ' in name_bytes or b'\t' in name_bytes or b'\0' in name_bytes:
        raise LimitError('server name "%s": libketama splits server lines '
                         'on spaces and tabs (and a C string ends at NUL)'
                         % shown)
    if name_bytes.startswith(b'#'):
        raise LimitError('server name "%s": a libketama server line '
                         'starting with # is a comment' % shown)


def build_continuum(servers, beyond_limits=False, warn=None):
    """servers: list of (name_bytes, weight).  Returns the sorted continuum,
    a list of (point, server_index)."""
    numservers = len(servers)
    if numservers == 0:
        raise LimitError('no servers')
    total = 0
    for name, weight in servers:
        if not 0 < weight <= LONG_MAX:
            raise LimitError('weight %d of "%s" is not in 1..LONG_MAX'
                             % (weight, name.decode('utf-8', 'replace')))
        total += weight
    if total > ULONG_MAX:
        raise LimitError('total weight %d overflows unsigned long' % total)

    points = []                     # insertion order: server, k, h
    for idx, (name, weight) in enumerate(servers):
        ks = digests_per_server(weight, total, numservers)
        if not beyond_limits:
            check_name(name, ks)
            line = len(name) + 1 + len(str(weight)) + 1
            if line > SERVER_LINE_MAX:
                raise LimitError('server line for "%s" is %d bytes; '
                                 'libketama reads at most %d'
                                 % (name.decode('utf-8', 'replace'), line,
                                    SERVER_LINE_MAX))
        for k in range(ks):
            for word in md5_words(name + b'-' + str(k).encode('ascii')):
                points.append((word, idx))

    # C: "mcs continuum[numservers * 160]" on the stack.
    if len(points) > numservers * 160:
        raise LimitError('%d points overflow libketama\'s continuum array '
                         'of %d' % (len(points), numservers * 160))
    if SHM_ARRAY_OFFSET + MCS_SIZE * len(points) > MC_SHMSIZE and warn:
        warn('warning: %d points (%d bytes) do not fit libketama\'s '
             'MC_SHMSIZE of %d bytes; the real library would write past '
             'its shared memory segment' % (
                 len(points), SHM_ARRAY_OFFSET + MCS_SIZE * len(points),
                 MC_SHMSIZE))

    # glibc 2.36 qsort == merge sort == stable: ties keep insertion order.
    points.sort(key=lambda p: p[0])
    return points


# ---------------------------------------------------------------- lookup

def ketama_search(values, h):
    """Index of the point ketama_get_server() returns for hash h, given the
    sorted point values.  This is its loop, rewritten:

        low = 0, high = n          (high starts at n, not n - 1)
        loop:
          mid = (low + high) / 2
          mid == n                    -> index 0   (wrap)
          v = values[mid], before = mid == 0 ? 0 : values[mid - 1]
          before < h <= v             -> index mid
          v < h ? low = mid + 1 : high = mid - 1
          low > high                  -> index 0

    Why this is exactly lower_bound(h) with a wrap (the answer a, the first
    index with values[a] >= h, or n if none; n wraps to 0):
      * a return at "before < h <= v" means a == mid (values sorted), also
        for mid == 0 (a fake "before" of 0 only adds the demand h > 0).
      * "v < h" means a > mid; otherwise v >= h and, since the return test
        failed, before >= h, so a <= mid - 1 (for mid == 0: h == 0, a == 0).
        Hence low <= a <= high holds throughout (high = n at the start).
      * mid == n only when low == high == n, i.e. a == n: wrap to 0, right.
      * low > high happens only when a left [low, high], which by the
        invariant only the mid == 0, h == 0 step can do: a == 0, right.
      * the range shrinks each turn, so it ends.
    So: h == 0 -> point 0 (it is <= every point); h equal to a point -> that
    point, or the FIRST of a run of equal points (the "before < h" test
    rejects later ones); h above the last point -> point 0.  No quirk
    survives; --selftest compares this loop with bisect_left exhaustively
    on small continua with many ties and zeros.
    """
    n = len(values)
    low, high = 0, n
    while True:
        mid = (low + high) // 2
        if mid == n:
            return 0
        v = values[mid]
        before = values[mid - 1] if mid > 0 else 0
        if before < h <= v:
            return mid
        if v < h:
            low = mid + 1
        else:
            high = mid - 1
        if low > high:
            return 0


def lower_bound_wrap(values, h):
    i = bisect.bisect_left(values, h)
    return 0 if i == len(values) else i


class Ring:
    def __init__(self, servers, beyond_limits=False, warn=None):
        cont = build_continuum(servers, beyond_limits, warn)
        self.values = [p for p, _ in cont]
        self.owner = [s for _, s in cont]

    def lookup(self, key_bytes):
        """(key hash, point, server index) as ketama_get_server() finds."""
        h = ketama_hashi(key_bytes)
        i = ketama_search(self.values, h)
        return h, self.values[i], self.owner[i]


# ---------------------------------------------------------------- files

def read_lines(path):
    """Lines split on b'\\n' only (not on \\r, \\x85, U+2028...), trailing
    \\r and \\n stripped.  A final line without \\n still counts."""
    with open(path, 'rb') as f:
        data = f.read()
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    return [l.rstrip(b'\r\n') for l in lines]


def read_servers(path):
    servers = []
    for lineno, line in enumerate(read_lines(path), 1):
        if line == b'':
            continue
        name, tab, weight = line.partition(b'\t')
        if not tab or not name:
            raise LimitError('%s:%d: expected "name<TAB>weight"'
                             % (path, lineno))
        try:
            name.decode('utf-8')
        except UnicodeDecodeError:
            raise LimitError('%s:%d: server name is not UTF-8'
                             % (path, lineno))
        if not weight.isdigit():
            raise LimitError('%s:%d: weight %r is not a positive integer'
                             % (path, lineno, weight))
        servers.append((name, int(weight)))
    return servers


def route(servers_path, keys_path, beyond_limits):
    servers = read_servers(servers_path)
    warn = lambda msg: print('libketama_reference: ' + msg, file=sys.stderr)
    ring = Ring(servers, beyond_limits, warn)
    out = sys.stdout.buffer
    for key in read_lines(keys_path):
        try:
            key.decode('utf-8')
        except UnicodeDecodeError:
            raise LimitError('key %r is not UTF-8' % key)
        _, _, idx = ring.lookup(key)
        out.write(servers[idx][0] + b'\n')
    out.flush()


# ---------------------------------------------------------------- self-test

# RJ/ketama's own ketama.servers and test.sh: "./ketama_test ketama.servers
# | md5sum" must be 5672b131391f5aa2b280936aec1eea74, where ketama_test
# prints ketama_error() (empty) and then, for keys "0" .. "999999",
# "%u %u %s\n" % (ketama_hashi(key), point, ip).
KETAMA_SERVERS = [
    (b'10.0.1.1:11211', 600), (b'10.0.1.2:11211', 300),
    (b'10.0.1.3:11211', 200), (b'10.0.1.4:11211', 350),
    (b'10.0.1.5:11211', 1000), (b'10.0.1.6:11211', 800),
    (b'10.0.1.7:11211', 950), (b'10.0.1.8:11211', 100),
]
KETAMA_TEST_MD5 = '5672b131391f5aa2b280936aec1eea74'


def selftest():
    ok = True

    def check(cond, what):
        nonlocal ok
        print(('ok   ' if cond else 'FAIL ') + what)
        ok = ok and cond

    # float32 helpers
    check(f32(0.1) == 0.10000000149011612, 'f32(0.1) is the single 0.1')
    check(int_to_f32(2 ** 24 + 1) == 2 ** 24 and
          int_to_f32(2 ** 24 + 3) == 2 ** 24 + 4 and
          int_to_f32(2 ** 53 + 2 ** 29 + 1) == 2 ** 53 + 2 ** 30,
          'int -> float rounds to nearest, ties to even, once')

    # ks for equal weights: 39 instead of 40 at 61, 122, 237 servers; the
    # full list for n <= 1000 was cross-checked with the same C expression
    # compiled by gcc 12 (x86-64, -O0 and -O3) on Debian 12.
    thirty_nine = [n for n in range(1, 1001)
                   if digests_per_server(1, n, n) != 40]
    check(all(digests_per_server(1, n, n) in (39, 40)
              for n in range(1, 1001)), 'equal weights: 39 or 40 digests')
    check(thirty_nine[:3] == [61, 122, 237],
          'equal weights: 39 digests first at 61, 122, 237 servers')
    check(thirty_nine == [61, 122, 237, 244, 474, 488, 933, 948, 951, 953,
                          976],
          'equal weights, n <= 1000: 39 digests at %s' % thirty_nine)
    check(digests_per_server(600, 4300, 8) == 44 and
          digests_per_server(100, 4300, 8) == 7,
          'ketama.servers: 44 digests for 600, 7 for 100')
    # a weight too small for one digest gets no points at all
    check(digests_per_server(1, 1000, 3) == 0, 'ks can be 0')

    # md5 words: RFC 1321, md5("") = d41d8cd98f00b204e9800998ecf8427e
    check(md5_words(b'') == (0xd98c1dd4, 0x04b2008f, 0x980980e9,
                             0x7e42f8ec), 'md5 words are little-endian')
    check(ketama_hashi(b'abc\0def') == ketama_hashi(b'abc'),
          'key hash stops at NUL')

    # the search loop == lower_bound with wrap, exhaustively on small
    # continua (values 0..5, with duplicates) and randomly on bigger ones
    def all_sorted(n, top):
        if n == 0:
            yield []
            return
        for rest in all_sorted(n - 1, top):
            lo = rest[-1] if rest else 0
            for v in range(lo, top + 1):
                yield rest + [v]

    bad = 0
    cases = 0
    for n in range(1, 8):
        for values in all_sorted(n, 5):
            for h in range(0, 7):
                cases += 1
                if ketama_search(values, h) != lower_bound_wrap(values, h):
                    bad += 1
    rnd = random.Random(1)
    for _ in range(20000):
        n = rnd.randint(1, 60)
        top = rnd.choice([3, 50, 2 ** 32 - 1])
        values = sorted(rnd.randint(0, top) for _ in range(n))
        for h in (0, 1, top, values[0], values[-1], rnd.choice(values),
                  rnd.randint(0, top), 2 ** 32 - 1):
            cases += 1
            if ketama_search(values, h) != lower_bound_wrap(values, h):
                bad += 1
    check(bad == 0, 'ketama_get_server loop == lower_bound+wrap '
          '(%d cases, %d differ)' % (cases, bad))

    # ties keep server-list order (stable sort)
    ring = Ring([(b'a', 1), (b'a', 1)], beyond_limits=True)
    pairs = list(zip(ring.values, ring.owner))
    check(all(pairs[i][1] == 0 for i in range(0, len(pairs), 2)) and
          all(pairs[i][1] == 1 for i in range(1, len(pairs), 2)) and
          all(pairs[i][0] == pairs[i + 1][0]
              for i in range(0, len(pairs), 2)),
          'equal points: the earlier server comes first and wins lookups')
    check(all(ring.lookup(str(i).encode())[2] == 0 for i in range(1000)),
          'a duplicated server: the first copy owns every key')

    # limits
    def raises(servers):
        try:
            build_continuum(servers)
        except LimitError:
            return True
        return False
    check(not raises([(b'x' * 21, 1)]) and raises([(b'x' * 22, 1)]) and
          raises([(b'a b', 1)]) and raises([(b'#a', 1)]),
          'names: 21 bytes fine; 22+ bytes, blanks, leading # refused')
    check(not raises([(b'n%d' % i, 1) for i in range(237)]),
          'more than 117 servers: only a warning')

    # RJ/ketama's own regression test, 1,000,000 keys
    ring = Ring(KETAMA_SERVERS)
    check(len(ring.values) == 1264, 'ketama.servers: 1264 points')
    md5 = hashlib.md5(b'\n')
    lines = []
    for i in range(1000000):
        h, point, idx = ring.lookup(str(i).encode())
        lines.append('%u %u %s\n' % (h, point,
                                     KETAMA_SERVERS[idx][0].decode()))
        if len(lines) == 10000:
            md5.update(''.join(lines).encode())
            lines = []
    md5.update(''.join(lines).encode())
    check(md5.hexdigest() == KETAMA_TEST_MD5,
          'RJ/ketama test.sh: ketama_test output md5 %s' % md5.hexdigest())

    print('selftest ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


def main(argv):
    args = argv[1:]
    if args == ['--selftest']:
        return selftest()
    beyond = False
    if args and args[0] == '--beyond-limits':
        beyond = True
        args = args[1:]
    if len(args) != 2:
        print('usage: libketama_reference.py [--beyond-limits] SERVERS KEYS '
              '> ROUTES\n       libketama_reference.py --selftest',
              file=sys.stderr)
        return 2
    try:
        route(args[0], args[1], beyond)
    except (LimitError, OSError) as e:
        print('libketama_reference: %s' % e, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
