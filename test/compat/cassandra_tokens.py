#!/usr/bin/python3
"""Cassandra Murmur3Partitioner tokens and owners, as the DataStax Python
driver (the Debian package python3-cassandra) computes them.

    /usr/bin/python3 cassandra_tokens.py [--type T | --composite T,T,...] KEYS > TOKENS
    /usr/bin/python3 cassandra_tokens.py [--type ...] --ring RING KEYS > OWNERS
    /usr/bin/python3 cassandra_tokens.py [--type ...] --ring RING --replicas N KEYS
    /usr/bin/python3 cassandra_tokens.py [--type ...] --ring RING --nts DC:N[,DC:N...] KEYS
    /usr/bin/python3 cassandra_tokens.py [--type ...] --config TOKENS [--replicas N | --nts ...] KEYS

KEYS has one key a line (UTF-8; an empty line is the empty key).  Each line
is serialised the way CQL serialises a partition key value of type T before
hashing: text = the UTF-8 bytes, int = 4 bytes big-endian signed, bigint = 8
bytes big-endian signed, smallint = 2, boolean = one byte (true or false),
uuid = the 16 bytes of the UUID text, blob = the bytes of hex text (an
optional 0x before it).  The serialisers are the
driver's own (cassandra.cqltypes).  With --composite, a line holds one
component per type, separated by ','; the routing key is then built by the
driver's Statement.routing_key (each component: 2-byte big-endian length, the
bytes, a 0x00 byte), as Cassandra's CompositeType does.

Without --ring, TOKENS gets each key's token in decimal: the driver's
Murmur3Token.hash_fn, i.e. h1 of Cassandra's murmur3_x64_128 as a signed
64-bit integer, with -2**63 mapped to 2**63-1.  The driver's C extension
(cassandra.cmurmur3) and its pure-Python murmur3 are both run on every key and
must agree.  Note: the driver gives the empty byte string token 0, while
Cassandra's Murmur3Partitioner.getToken gives it -2**63 (CQL refuses an empty
single-column partition key anyway).

RING is `nodetool ring` text (Cassandra 4.x):

    Datacenter: dc1
    ==========
    Address         Rack        Status State   Load            Owns                Token
                                                                                   8261657684473197625
    10.0.1.11       rack1       Up     Normal  112.36 KiB      75.02%              -8332644676416592815
    ...

A "Datacenter: NAME" line starts a data centre; a token line is one whose
fields (split on white space) number at least 7, whose first field is not
"Address" and whose last field is an integer: its first field is the address,
its second the rack, its last the token (Load may hold a space, "1.02 MiB").
Every other line is ignored.

With --config, the ring is one data centre, "dc1", read from what
chash_export(ring, 'cassandra') writes: per node a "# node: NAME" line, an
optional "# rack: RACK" (else rack1) and "# address: ..." line, then its
cassandra.yaml lines "num_tokens: N" and "initial_token: T1,T2,..." (N of
them); the node is named NAME.  The driver's own Metadata, Host, TokenMap and
replication strategy classes are fed this ring, with no server, and
Metadata.get_replicas(keyspace, routing_key) answers, as the driver's
TokenAwarePolicy asks it.  OWNERS gets the owner of each key (the node of the
first token >= the key's token, wrapping: SimpleStrategy with one replica);
with --replicas N, the replicas of SimpleStrategy with replication factor N;
with --nts, those of NetworkTopologyStrategy with those factors (the driver's
rack-aware walk).  Replicas are printed in the driver's order, TAB-separated.
"""
import argparse
import sys
import uuid

import cassandra
import cassandra.metadata
import cassandra.murmur3
from cassandra import cqltypes
from cassandra.metadata import KeyspaceMetadata, Metadata, Murmur3Token
from cassandra.policies import SimpleConvictionPolicy
from cassandra.pool import Host
from cassandra.query import Statement

PROG = "cassandra_tokens.py"
PARTITIONER = "org.apache.cassandra.dht.Murmur3Partitioner"
KEYSPACE = "ks"
MIN_LONG = -(2 ** 63)
MAX_LONG = 2 ** 63 - 1


def parse_blob(text):
    if text[:2] in ("0x", "0X"):
        text = text[2:]
    return bytes.fromhex(text)


# CQL type name -> (text -> Python value, the driver's serialiser class)
TYPES = {
    "text": (lambda s: s, cqltypes.UTF8Type),
    "int": (int, cqltypes.Int32Type),
    "bigint": (int, cqltypes.LongType),
    "smallint": (int, cqltypes.ShortType),
    "boolean": (lambda s: {"true": True, "false": False}[s], cqltypes.BooleanType),
    "uuid": (uuid.UUID, cqltypes.UUIDType),
    "blob": (parse_blob, cqltypes.BytesType),
}


def read_lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\r\n") for line in f]


def serialise(type_name, text):
    parse, cqltype = TYPES[type_name]
    try:
        return cqltype.serialize(parse(text), 4)
    except Exception as exc:  # ValueError, struct.error, ...
        sys.exit(f"{PROG}: cannot serialise {text!r} as {type_name}: {exc}")


def routing_key(types, line):
    """The partition key bytes the driver hashes for one KEYS line."""
    if len(types) == 1:
        return serialise(types[0], line)
    parts = line.split(",")
    if len(parts) != len(types):
        sys.exit(f"{PROG}: {line!r} has {len(parts)} components, "
                 f"expected {len(types)}")
    statement = Statement()
    statement.routing_key = [serialise(t, p) for t, p in zip(types, parts)]
    return statement.routing_key


def token(key):
    """The driver's token, checked against its pure-Python murmur3."""
    t = Murmur3Token.hash_fn(key)
    pure = cassandra.murmur3._murmur3(key)
    if pure == MIN_LONG:
        pure = MAX_LONG
    if t != pure:
        sys.exit(f"{PROG}: C murmur3 {t} != pure-Python {pure} for {key!r}")
    return t


def parse_ring(path):
    """[(address, datacenter, rack, token)] from `nodetool ring` text."""
    entries, dc = [], None
    for line in read_lines(path):
        stripped = line.strip()
        if stripped.startswith("Datacenter:"):
            dc = stripped[len("Datacenter:"):].strip()
            continue
        fields = stripped.split()
        if len(fields) < 7 or fields[0] == "Address":
            continue
        try:
            tok = int(fields[-1])
        except ValueError:
            continue
        if not MIN_LONG <= tok <= MAX_LONG:
            sys.exit(f"{PROG}: token out of range: {line!r}")
        entries.append((fields[0], dc, fields[1], tok))
    if not entries:
        sys.exit(f"{PROG}: no tokens in {path}")
    return entries


def parse_config(path):
    """[(node, "dc1", rack, token)] from chash_export's cassandra lines."""
    entries, nodes, node = [], set(), None

    def close(node):
        if node is None:
            return
        name, rack, num, tokens = node
        if num is None or tokens is None or num != len(tokens):
            sys.exit(f"{PROG}: {path}: node {name!r}: num_tokens {num} for "
                     f"{None if tokens is None else len(tokens)} initial tokens")
        entries.extend((name, "dc1", rack or "rack1", t) for t in tokens)

    for line in read_lines(path):
        if line.startswith("# node: "):
            close(node)
            name = line[len("# node: "):]
            if name in nodes:
                sys.exit(f"{PROG}: {path}: node {name!r} twice")
            nodes.add(name)
            node = [name, None, None, None]
        elif node is not None and line.startswith("# rack: "):
            node[1] = line[len("# rack: "):]
        elif node is not None and line.startswith("num_tokens: "):
            node[2] = int(line[len("num_tokens: "):])
        elif node is not None and line.startswith("initial_token: "):
            node[3] = [int(t) for t in line[len("initial_token: "):].split(",")]
            if any(not MIN_LONG <= t <= MAX_LONG for t in node[3]):
                sys.exit(f"{PROG}: {path}: token out of range: {line!r}")
        elif line.strip() and not line.startswith("#"):
            sys.exit(f"{PROG}: {path}: unexpected line {line!r}")
    close(node)
    if not entries:
        sys.exit(f"{PROG}: no tokens in {path}")
    return entries


def build_metadata(entries, strategy, options):
    """The driver's Metadata with the ring and one keyspace, no server."""
    hosts, tokens, seen = {}, {}, set()
    for address, dc, rack, tok in entries:
        if tok in seen:
            sys.exit(f"{PROG}: token {tok} listed twice")
        seen.add(tok)
        host = hosts.get(address)
        if host is None:
            host = Host(address, SimpleConvictionPolicy, datacenter=dc, rack=rack)
            hosts[address] = host
            tokens[host] = []
        elif (host.datacenter, host.rack) != (dc, rack):
            sys.exit(f"{PROG}: {address} is in two places")
        tokens[host].append(str(tok))
    metadata = Metadata()
    metadata.rebuild_token_map(PARTITIONER, tokens)
    ks = KeyspaceMetadata(KEYSPACE, True, strategy, options)
    if ks.replication_strategy is None:
        sys.exit(f"{PROG}: the driver refused {strategy} {options}")
    metadata.keyspaces[KEYSPACE] = ks
    return metadata


def parse_nts(values):
    factors = {}
    for value in values:
        for item in value.split(","):
            dc, sep, n = item.rpartition(":")
            if not sep or not dc or not n.isdigit() or int(n) < 1:
                sys.exit(f"{PROG}: bad --nts item {item!r} (want DC:N)")
            factors[dc] = n
    return factors


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--type", choices=sorted(TYPES), default="text")
    g.add_argument("--composite", metavar="TYPE,TYPE,...")
    p.add_argument("--ring", metavar="RING_FILE")
    p.add_argument("--config", metavar="EXPORTED_TOKENS")
    r = p.add_mutually_exclusive_group()
    r.add_argument("--replicas", type=int, metavar="N")
    r.add_argument("--nts", action="append", metavar="DC:N")
    p.add_argument("keys", metavar="KEYS")
    args = p.parse_args(argv)
    if args.composite is not None:
        args.types = args.composite.split(",")
        bad = [t for t in args.types if t not in TYPES]
        if bad or len(args.types) < 2:
            sys.exit(f"{PROG}: --composite wants two or more of "
                     f"{','.join(sorted(TYPES))}")
    else:
        args.types = [args.type]
    if args.ring and args.config:
        sys.exit(f"{PROG}: give --ring or --config, not both")
    if (args.replicas is not None or args.nts) and not (args.ring or args.config):
        sys.exit(f"{PROG}: --replicas and --nts need --ring or --config")
    if args.replicas is not None and args.replicas < 1:
        sys.exit(f"{PROG}: --replicas must be >= 1")
    return args


def main(argv):
    args = parse_args(argv[1:])
    keys = [routing_key(args.types, line) for line in read_lines(args.keys)]
    if cassandra.metadata.murmur3 is None:
        sys.exit(f"{PROG}: the driver has no murmur3")
    out = []
    if not args.ring and not args.config:
        out = [f"{token(k)}\n" for k in keys]
    else:
        entries = parse_config(args.config) if args.config else parse_ring(args.ring)
        if args.nts:
            metadata = build_metadata(entries, "NetworkTopologyStrategy", parse_nts(args.nts))
        else:
            rf = args.replicas or 1
            metadata = build_metadata(entries, "SimpleStrategy",
                                      {"replication_factor": str(rf)})
        for k in keys:
            token(k)  # the C/pure-Python check
            hosts = metadata.get_replicas(KEYSPACE, k)
            if not hosts:
                sys.exit(f"{PROG}: no replica for key {k!r}")
            out.append("\t".join(h.address for h in hosts) + "\n")
    sys.stdout.buffer.write("".join(out).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
