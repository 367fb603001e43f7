#!/usr/bin/python3
"""
java_ring_reference.py -- an independent reference of the Java consistent
hashing ring of the classic blog articles ("ConsistentHashingWithVirtualNode":
TreeMap<Integer, String>, virtual nodes "<node>&&VN<i>", FNV1_32_HASH).

    java_ring_reference.py --hash java_fnv32|java_fnv64|java_hashcode
                           --vnodes N [--template '{node}&&VN{i}']
                           [--first 0] SERVERS KEYS > ROUTES
    java_ring_reference.py --selftest

SERVERS is TSV, one "name<TAB>weight" line per server in list order; the
weight must be a positive integer but is otherwise ignored (the Java ring
has no weights: every node gets N virtual nodes).  Empty lines are skipped.
KEYS has one key a line (UTF-8, an empty line is the empty key).  Lines are
split on "\\n" only and a trailing "\\r" is stripped, as in the sibling route
programs.  ROUTES gets one line per key: the owning node's name.

Standard library only; Java is not needed (--selftest values were checked
against OpenJDK, see below).

The Java being reproduced
-------------------------
    TreeMap<Integer, String> ring;          // TreeMap<Long, String> for fnv64
    for (String node : nodes)               // list order
        for (int i = first; i < first + N; i++)
            ring.put(hash(template with {node} -> node, {i} -> i), node);
    String lookup(String key) {
        SortedMap<Integer, String> tail = ring.tailMap(hash(key));  // >=
        return ring.get(tail.isEmpty() ? ring.firstKey() : tail.firstKey());
    }
  * put() on an existing key replaces the value: on equal hashes the LAST
    put wins (later node in the list, or later i of the same node).
  * keys are ordered as Java int/long: SIGNED.
  * the template is filled in one pass, like the Java concatenation
    node + "&&VN" + i: a node name that itself contains "{i}" or "{node}"
    is inserted verbatim, not substituted again.  {i} is String.valueOf(i).
  * hashes read the String's UTF-16 code units (charAt): a character outside
    the BMP is two surrogate units.

Hash functions (Java int = 32-bit two's complement, long = 64-bit)
------------------------------------------------------------------
  java_fnv32:   int h = (int) 2166136261L;
                for each char c: h = (h ^ c) * 16777619;
                h += h << 13; h ^= h >> 7; h += h << 3; h ^= h >> 17;
                h += h << 5;  if (h < 0) h = Math.abs(h);
  java_fnv64:   the same in long: long h = 2166136261L, * 16777619L,
                shifts on the long; Math.abs(long).
  java_hashcode: Math.abs(s.hashCode()), hashCode = sum s[k] * 31^(n-1-k).
  ">>" is Java's arithmetic shift of the signed value; Python's >> on a
  negative int is the same (floor division by a power of two).
  Math.abs(MIN_VALUE) is MIN_VALUE (the negation overflows).

About MIN_VALUE (found while writing this; checked in --selftest)
------------------------------------------------------------------
  * java_fnv32 and java_fnv64 can never return MIN_VALUE: after
    "h ^= h >> 17" the sign bit is h's sign bit XOR itself, i.e. 0, and
    "h += h << 5" is h * 33; h * 33 == MIN_VALUE (mod 2^w) needs
    h == MIN_VALUE (33 is odd, so invertible, and MIN_VALUE * odd ==
    MIN_VALUE mod 2^w), which a non-negative h is not.  So their results
    are always in [0, MAX_VALUE].
  * java_hashcode can: "polygenelubricants" and "0TaRmAI" hash to
    Integer.MIN_VALUE, and so does the virtual node "jrpexur&&VN0" (node
    "jrpexur" with the default template).  Every other result is in [0, 2^31 - 1], so MIN_VALUE
    is the smallest key in Java's signed order and would be the largest
    (2^31) in unsigned order.  On the ring both positions are the same
    place -- just before the smallest non-negative point, reached by
    wrapping -- so signed and unsigned order give the same routes; what
    matters is only that abs(MIN_VALUE) is not clamped or otherwise
    "fixed".  --selftest shows both orders agree on a ring containing it.

Exit status: 0 ok, 2 bad input.
"""

import argparse
import bisect
import random
import re
import struct
import sys

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
LONG_MIN, LONG_MAX = -2 ** 63, 2 ** 63 - 1


class InputError(Exception):
    pass


# ------------------------------------------------------- two's complement

def to_int32(x):
    """Java int wrap-around: the low 32 bits of x, read as signed."""
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


def to_int64(x):
    """Java long wrap-around: the low 64 bits of x, read as signed."""
    x &= 0xFFFFFFFFFFFFFFFF
    return x - 0x10000000000000000 if x & 0x8000000000000000 else x


def java_abs(x, wrap):
    """Math.abs: -x wraps, so abs(MIN_VALUE) == MIN_VALUE."""
    return wrap(-x) if x < 0 else x


def utf16_units(s):
    """String.charAt(0 .. length()-1): UTF-16 code units."""
    b = s.encode('utf-16-be')
    return struct.unpack('>%dH' % (len(b) // 2), b)


# ------------------------------------------------------------- hashes

FNV_OFFSET = 2166136261     # 0x811C9DC5 (as a long: positive)
FNV_PRIME = 16777619


def _fnv_java(s, wrap):
    h = wrap(FNV_OFFSET)    # int: (int) 2166136261L == -2128831035
    for c in utf16_units(s):
        h = wrap((h ^ c) * FNV_PRIME)
    h = wrap(h + wrap(h << 13))
    h = h ^ (h >> 7)        # xor/shift of in-range values stay in range
    h = wrap(h + wrap(h << 3))
    h = h ^ (h >> 17)
    h = wrap(h + wrap(h << 5))
    return java_abs(h, wrap)


def java_fnv32(s):
    return _fnv_java(s, to_int32)


def java_fnv64(s):
    return _fnv_java(s, to_int64)


def java_string_hashcode(s):
    h = 0
    for c in utf16_units(s):
        h = to_int32(31 * h + c)
    return h


def java_hashcode(s):
    return java_abs(java_string_hashcode(s), to_int32)


HASHES = {
    'java_fnv32': java_fnv32,
    'java_fnv64': java_fnv64,
    'java_hashcode': java_hashcode,
}


# --------------------------------------------------------------- ring

def fill_template(template, node, i):
    """One pass over the template, like node + "&&VN" + i in Java."""
    return re.sub(r'\{node\}|\{i\}',
                  lambda m: node if m.group(0) == '{node}' else str(i),
                  template)


class Ring:
    def __init__(self, nodes, hash_name, vnodes, template='{node}&&VN{i}',
                 first=0):
        if vnodes < 1:
            raise InputError('--vnodes must be at least 1')
        if not (INT_MIN <= first and first + vnodes - 1 <= INT_MAX):
            raise InputError('virtual node numbers must fit a Java int')
        if not nodes:
            raise InputError('no servers')
        self.hash = HASHES[hash_name]
        tree = {}                       # TreeMap: hash -> node
        for node in nodes:
            for i in range(first, first + vnodes):
                tree[self.hash(fill_template(template, node, i))] = node
                # put() replaces the value: the last put wins
        self.keys = sorted(tree)        # signed order (Python ints)
        self.values = [tree[k] for k in self.keys]

    def lookup(self, key):
        h = self.hash(key)
        i = bisect.bisect_left(self.keys, h)    # tailMap(h): first key >= h
        if i == len(self.keys):
            i = 0                               # empty tail: firstKey()
        return self.values[i]


# -------------------------------------------------------------- files

def read_lines(path):
    with open(path, 'rb') as f:
        data = f.read()
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    out = []
    for n, line in enumerate(lines, 1):
        line = line.rstrip(b'\r\n')
        try:
            out.append(line.decode('utf-8'))
        except UnicodeDecodeError:
            raise InputError('%s:%d: not UTF-8' % (path, n))
    return out


def read_servers(path):
    nodes = []
    for n, line in enumerate(read_lines(path), 1):
        if line == '':
            continue
        name, tab, weight = line.partition('\t')
        if not tab or not weight.isascii() or not weight.isdigit() \
                or int(weight) == 0:
            raise InputError('%s:%d: expected "name<TAB>positive weight"'
                             % (path, n))
        nodes.append(name)
    return nodes


# ----------------------------------------------------------- self-test

# Values computed by this file and confirmed with OpenJDK 17 (javac + java
# on a small program doing the same arithmetic on String.charAt()).
KNOWN = [
    # (string, java_hashcode, java_fnv32, java_fnv64)
    ('', 0, 1494218850, 5230414047343518),
    ('a', 97, 649470159, 4237859864282064591),
    ('ab', 3105, 386686131, 4082310362511780941),
    ('node&&VN0', 410833654, 698615743, 1784574920636019777),
    ('\u00e9', 233, 1007124943, 4241257780684112847),
    ('\U0001F600', 1772899, 1804067645, 2034286123533990083),
    ('polygenelubricants', INT_MIN, 1555373468, 3410948623191909988),
    ('0TaRmAI', INT_MIN, 85526906, 2101273233006089350),
]


def selftest():
    ok = True

    def check(cond, what):
        nonlocal ok
        print(('ok   ' if cond else 'FAIL ') + what)
        ok = ok and cond

    check(to_int32(2 ** 31) == INT_MIN and to_int32(2 ** 32 - 1) == -1 and
          to_int32(2 ** 32 + 5) == 5 and to_int32(-2 ** 31 - 1) == INT_MAX,
          'to_int32 wraps like a Java int')
    check(to_int64(2 ** 63) == LONG_MIN and to_int64(-1) == -1 and
          to_int64(2 ** 64 + 7) == 7, 'to_int64 wraps like a Java long')
    check(java_abs(INT_MIN, to_int32) == INT_MIN and
          java_abs(LONG_MIN, to_int64) == LONG_MIN and
          java_abs(-5, to_int32) == 5, 'Math.abs(MIN_VALUE) == MIN_VALUE')
    check(to_int32(2166136261) == -2128831035, '(int) 2166136261L')
    check(utf16_units('a\u00e9\U0001F600') == (0x61, 0xE9, 0xD83D, 0xDE00),
          'UTF-16 units: U+1F600 is D83D DE00')

    # by hand: "ab".hashCode() = 97 * 31 + 98 = 3105;
    # "\U0001F600".hashCode() = 0xD83D * 31 + 0xDE00 = 1772899
    for s, hc, f32, f64 in KNOWN:
        got = (java_hashcode(s), java_fnv32(s), java_fnv64(s))
        check(got == (hc, f32, f64), 'hashes of %a: %s' % (s, got))

    print('     java_hashcode MIN_VALUE inputs: "polygenelubricants", '
          '"0TaRmAI" -> %d, %d' % (java_string_hashcode('polygenelubricants'),
                                   java_string_hashcode('0TaRmAI')))

    # fnv32/fnv64 results are never negative (see the docstring)
    rnd = random.Random(7)
    neg = 0
    for _ in range(20000):
        s = ''.join(chr(rnd.randint(0, 0xD7FF)) for _ in range(
            rnd.randint(0, 12)))
        if java_fnv32(s) < 0 or java_fnv64(s) < 0:
            neg += 1
    check(neg == 0, 'java_fnv32/java_fnv64 never MIN_VALUE (20000 strings)')

    # template: one pass
    check(fill_template('{node}&&VN{i}', 'a{i}', 3) == 'a{i}&&VN3' and
          fill_template('{i}-{node}-{i}', '{node}', -2) == '-2-{node}--2',
          'template filled in one pass')

    # the last put wins: "Aa" and "BB" have the same hashCode (2112)
    ring = Ring(['Aa', 'BB'], 'java_hashcode', 1, '{node}')
    check(ring.keys == [2112] and ring.values == ['BB'],
          'equal hashes: the last put wins')
    ring = Ring(['BB', 'Aa'], 'java_hashcode', 1, '{node}')
    check(ring.values == ['Aa'], 'equal hashes: order reversed, other wins')

    # tailMap is inclusive, wraps to firstKey
    ring = Ring(['b', 'd'], 'java_hashcode', 1, '{node}')   # 98, 100
    check([ring.lookup(k) for k in ('a', 'b', 'c', 'd', 'e', '')] ==
          ['b', 'b', 'd', 'd', 'b', 'b'], 'lookup: first key >= h, wrapping')

    # MIN_VALUE: signed order (Java) and unsigned order route alike
    nodes = ['polygenelubricants', 'b', 'zz', 'node-1', 'node-2']
    ring = Ring(nodes, 'java_hashcode', 3, '{node}')
    check(ring.keys[0] == INT_MIN and ring.values[0] == 'polygenelubricants',
          'MIN_VALUE is the first key in signed order')
    ukeys = sorted(k & 0xFFFFFFFF for k in ring.keys)
    owner = {k & 0xFFFFFFFF: v for k, v in zip(ring.keys, ring.values)}

    def unsigned_lookup(key):
        h = java_hashcode(key) & 0xFFFFFFFF
        i = bisect.bisect_left(ukeys, h)
        return owner[ukeys[i % len(ukeys)]]
    # 'k10000' hashes to 1184917978, above every point of this ring
    probes = ['polygenelubricants', '0TaRmAI', '', 'a', 'zzzz', '\uffff' * 3,
              'k10000']
    probes += [str(i) for i in range(5000)]
    check(all(ring.lookup(k) == unsigned_lookup(k) for k in probes),
          'a ring with a MIN_VALUE point: signed and unsigned order agree')
    check(ring.lookup('0TaRmAI') == 'polygenelubricants' and
          ring.lookup('k10000') == 'polygenelubricants',
          'a MIN_VALUE key, and a key above every point, reach MIN_VALUE')

    # with the default template: "jrpexur&&VN0" hashes to MIN_VALUE, and
    # "jrpexvS" has the same hashCode as "jrpexur", so all its virtual nodes
    # replace jrpexur's (cross-checked with OpenJDK on 100,013 keys)
    check(java_string_hashcode('jrpexur&&VN0') == INT_MIN,
          'virtual node "jrpexur&&VN0" hashes to MIN_VALUE')
    ring = Ring(['node-1', 'jrpexur', 'node-2'], 'java_hashcode', 160)
    check(ring.keys[0] == INT_MIN and ring.values[0] == 'jrpexur',
          'default template: node "jrpexur" owns the MIN_VALUE point')
    ring = Ring(['node-1', 'jrpexur', 'node-2', 'jrpexvS'],
                'java_hashcode', 160)
    check(len(ring.keys) == 480 and 'jrpexur' not in ring.values,
          'a node whose name has the same hashCode loses all its vnodes')

    print('selftest ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ['--selftest']:
        return selftest()
    p = argparse.ArgumentParser(
        prog='java_ring_reference.py',
        description='Route keys as the classic Java TreeMap ring does.')
    p.add_argument('--hash', required=True, choices=sorted(HASHES))
    p.add_argument('--vnodes', required=True, type=int)
    p.add_argument('--template', default='{node}&&VN{i}')
    p.add_argument('--first', default=0, type=int)
    p.add_argument('servers')
    p.add_argument('keys')
    a = p.parse_args(argv[1:])
    try:
        ring = Ring(read_servers(a.servers), a.hash, a.vnodes, a.template,
                    a.first)
        keys = read_lines(a.keys)
    except (InputError, OSError) as e:
        print('java_ring_reference: %s' % e, file=sys.stderr)
        return 2
    out = sys.stdout.buffer
    for key in keys:
        out.write(ring.lookup(key).encode('utf-8') + b'\n')
    out.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
