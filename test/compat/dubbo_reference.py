#!/usr/bin/python3
"""
dubbo_reference.py -- an independent reference of Apache Dubbo's
ConsistentHashLoadBalance (loadbalance=consistenthash), as read in
dubbo-cluster/src/main/java/org/apache/dubbo/rpc/cluster/loadbalance/
ConsistentHashLoadBalance.java at every 2.7.x and 3.x tag (the last read:
2.7.23 and 3.3.1), with dubbo-common's io/Bytes.java; written from that
reading, not translated.  The ring is the same in all of them; the plain
lookup is that of 2.7.0-2.7.14, 3.0.0-3.0.3, 3.0.10+, 3.1, 3.2.0-3.2.3 and
3.2.12+ (3.3.0-beta.2+); for the others see --overload and below.

    dubbo_reference.py [--nodes N] [--charset C] [--overload] ADDRESSES KEYS
    dubbo_reference.py --self-test

ADDRESSES: one invoker a line, in invoker-list order, as
invoker.getUrl().getAddress() gives it ("host:port", the host alone for
port 0); a "<TAB>weight" is ignored (no weights in Dubbo's consistent hash);
empty lines are skipped.  KEYS: one key a line (UTF-8; an empty line is the
empty key): with hash.arguments "0" (default) String.valueOf(argument 0);
with "0,1" String.valueOf(a0) + String.valueOf(a1), nothing between ("null"
for null).  A trailing "\\r" is dropped.  Prints each key's address.

The rule
  * --nodes N is hash.nodes (default 160): per invoker, in list order,
    i = 0 .. N/4 - 1 (Java int division: 160 -> 40, 7 -> 1, 3 -> 0),
    d = MD5(bytes of address + decimal(i)), no separator ("10.0.0.1:20880"
    and 0 -> "10.0.0.1:208800"); points d[0..3], d[4..7], d[8..11],
    d[12..15], each read little-endian as an unsigned 32-bit value, are put
    in a TreeMap<Long, Invoker>: an equal point is REPLACED, so the later
    put (the later invoker) wins.  Real ties: "h:808" with i = 10..19 hashes
    the very strings of "h:8081" with i = 0..9.
  * key: MD5(bytes of key), its first 4 bytes little-endian; owner = the
    first point >= it (ceilingEntry), else the first point (wrap).
  * one invoker: returned without hashing; two or more and N < 4: Dubbo
    fails (NullPointerException on an empty TreeMap); here exit 2.
  * bytes: String.getBytes() with no charset, i.e. the JVM's default
    charset, since 2.7.9 (explicit UTF-8 in 2.7.0-2.7.8).  UTF-8 on JDK 18+;
    on older JDKs the locale's: --charset us-ascii or iso-8859-1 model those
    (an unmappable character, a surrogate pair included, becomes one "?").
  * --overload: Dubbo 2.7.15-2.7.23 and 3.0.4-3.0.9 add a load check: the
    KEYS are successive calls on one fresh selector; a call starts at the
    owner and moves on point by point (higherEntry, wrapping) while the
    address has a count >= total / invokers * 1.5; then count it.
  * 3.2.4-3.2.11 and 3.3.0-beta.1 hash the METHOD NAME, not the arguments
    (all calls of a method go to one invoker): give that name as the key.
    3.1.3-3.2.3 key generic ($invoke) calls by their parameter type names.

Published values: none.  Dubbo's tests (ConsistentHashLoadBalanceTest)
assert only that one call always reaches the same invoker, never which; so
--self-test checks RFC 1321's MD5 vectors and values derived outside this
file (openssl md5 -binary | od -tu4 --endian=little; awk for the first
point at or after a key, wrapping): see SELF_TEST.

Exit status: 0 ok, 1 self-test failed, 2 bad input.
"""

import argparse
import bisect
import hashlib
import sys

CHARSETS = {'utf-8': 'utf-8', 'us-ascii': 'ascii', 'iso-8859-1': 'latin-1'}


class InputError(Exception):
    """Bad input, or a configuration on which Dubbo itself fails."""


def java_bytes(s, charset):
    return s.encode(CHARSETS[charset], 'strict' if charset == 'utf-8'
                    else 'replace')


def le32_words(digest):
    """The four points of a digest: bytes 4h..4h+3, least significant first."""
    return [int.from_bytes(digest[4 * h:4 * h + 4], 'little')
            for h in range(4)]


def key_hash(key, charset='utf-8'):
    return le32_words(hashlib.md5(java_bytes(key, charset)).digest())[0]


class Selector:
    def __init__(self, addresses, nodes=160, charset='utf-8'):
        if not addresses:
            raise InputError('no addresses')
        self.addresses, self.charset = addresses, charset
        tree = {}
        for addr in addresses:
            for i in range(nodes // 4 if nodes > 0 else 0):
                d = hashlib.md5(java_bytes(addr + str(i), charset)).digest()
                for p in le32_words(d):
                    tree[p] = addr          # TreeMap.put: the last put wins
        if len(addresses) > 1 and not tree:
            raise InputError('hash.nodes %d gives no points: Dubbo throws '
                             'a NullPointerException' % nodes)
        self.points = sorted(tree)
        self.owners = [tree[p] for p in self.points]
        self.counts, self.total = {}, 0

    def index(self, h):
        i = bisect.bisect_left(self.points, h)      # ceilingEntry
        return 0 if i == len(self.points) else i    # else firstEntry

    def select(self, key, overload=False):
        if len(self.addresses) == 1:
            return self.addresses[0]
        i = self.index(key_hash(key, self.charset))
        if not overload:
            return self.owners[i]
        limit = self.total / len(self.addresses) * 1.5
        for _ in range(len(self.points)):
            if self.counts.get(self.owners[i], -1) < limit:
                break
            i = (i + 1) % len(self.points)          # higherEntry, wrapping
        else:
            raise InputError('every address is over the limit: Dubbo loops '
                             'for ever')
        self.counts[self.owners[i]] = self.counts.get(self.owners[i], 0) + 1
        self.total += 1
        return self.owners[i]


def read_lines(path):
    with open(path, 'rb') as f:
        lines = f.read().split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    try:
        return [ln.rstrip(b'\r').decode('utf-8') for ln in lines]
    except UnicodeDecodeError as e:
        raise InputError('%s: not UTF-8 (%s)' % (path, e))


SELF_TEST = [   # (what, got, expected)
    ('RFC 1321 MD5 vectors', lambda: [hashlib.md5(s).hexdigest() for s in (
        b'', b'a', b'abc', b'message digest')],
     ['d41d8cd98f00b204e9800998ecf8427e', '0cc175b9c0f1b6a831c399e269772661',
      '900150983cd24fb0d6963f7d28e17f72', 'f96b697d7cb7938d525a2f31aaf161d0']),
    ('points of "127.0.0.1:1" + "0" (openssl + od)',
     lambda: le32_words(hashlib.md5(b'127.0.0.1:10').digest()),
     [3884228264, 297586619, 593580832, 3632429526]),
    ('key hashes of "", "arg1", "abc"; "" by hand: d4 1d 8c d9 -> 0xd98c1dd4',
     lambda: [key_hash(k) for k in ('', 'arg1', 'abc')] + [
         0xd4 | 0x1d << 8 | 0x8c << 16 | 0xd9 << 24],
     [3649838548, 354641640, 2555380112, 3649838548]),
    ('Dubbo test invokers 127.0.0.1:1..5 (LoadBalanceBaseTest), 160 nodes: '
     '800 points; "arg1", "", "abc" (openssl + awk)', lambda: (lambda s: [
         len(s.points)] + [s.select(k) for k in ('arg1', '', 'abc')])(
         Selector(['127.0.0.1:%d' % p for p in range(1, 6)])),
     [800, '127.0.0.1:2', '127.0.0.1:4', '127.0.0.1:3']),
    ('points per address at 160, 7, 4 nodes', lambda: [
        len(Selector(['a:1', 'b:2'], n).points) for n in (160, 7, 4)],
     [320, 8, 8]),
    ('one invoker with 0 nodes: no hashing',
     lambda: Selector(['only:1'], 0).select('k'), 'only:1'),
    ('"h:808"+"10" is "h:8081"+"0": the later address owns it; 10 of 20 '
     'digests shared: 160 - 40 = 120 points', lambda: [
        (dict(zip(s.points, s.owners))[3678697656], len(s.points)) for s in (
            Selector(['h:808', 'h:8081'], 80),
            Selector(['h:8081', 'h:808'], 80))],
     [('h:8081', 120), ('h:808', 120)]),
    ('ceiling is inclusive, above the last point wraps', lambda: (lambda s: [
        s.owners[s.index(s.points[7])] == s.owners[7],
        s.index(s.points[-1] + 1) == 0])(Selector(['x:1', 'y:2'])),
     [True, True]),
    ('--overload: one key 9 times on 2 invokers (by hand)', lambda: (
        lambda s, a: ''.join('A' if s.select('hot', True) == a else 'B'
                             for _ in range(9)))(
        Selector(['x:1', 'y:2']), Selector(['x:1', 'y:2']).select('hot')),
     'ABAABAAAB'),
    ('--charset: "caf\u00e9" as us-ascii is "caf?"; iso-8859-1 byte e9',
     lambda: [key_hash('caf\u00e9', 'us-ascii') == key_hash('caf?'),
              java_bytes('caf\u00e9\U0001F600', 'iso-8859-1')],
     [True, b'caf\xe9?']),
]


def self_test():
    ok = True
    for what, got, expected in SELF_TEST:
        value = got()
        print(('ok   ' if value == expected else 'FAIL ') + what +
              ('' if value == expected else ': %r' % (value,)))
        ok = ok and value == expected
    print('self-test ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    p = argparse.ArgumentParser(prog='dubbo_reference.py', description=(
        "Route keys as Dubbo's ConsistentHashLoadBalance does."))
    p.add_argument('--nodes', type=int, default=160, help='hash.nodes')
    p.add_argument('--charset', choices=sorted(CHARSETS), default='utf-8')
    p.add_argument('--overload', action='store_true')
    p.add_argument('addresses')
    p.add_argument('keys')
    a = p.parse_args(argv[1:])
    try:
        addrs = [ln.partition('\t')[0] for ln in read_lines(a.addresses) if ln]
        sel = Selector(addrs, a.nodes, a.charset)
        out = [sel.select(k, a.overload) for k in read_lines(a.keys)]
    except (InputError, OSError, UnicodeEncodeError) as e:
        print('dubbo_reference: %s' % e, file=sys.stderr)
        return 2
    sys.stdout.buffer.write(''.join(o + '\n' for o in out).encode('utf-8'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
