#!/usr/bin/python3
"""Elasticsearch's shard for a routing value, hashed by Debian's Lucene.

    /usr/bin/python3 es_routing.py --shards N [--routing-shards R]
        [--partition-size P] [--hash] KEYS > SHARDS
    /usr/bin/python3 es_routing.py [--routing-shards R] --servers SERVERS KEYS > ROUTES
    /usr/bin/python3 es_routing.py --config INDEX.json KEYS > ROUTES

With --config, the body that creates the index, as chash_export writes it:
N and R are its settings.index.number_of_shards and number_of_routing_shards
(R by default as below), and shard i is the i-th name of its
mappings._meta.chash_shards, by which ROUTES names each key's shard.

With --servers (the compatibility suite's route programs' form), N is the
number of "name<TAB>weight" lines of SERVERS, shard i the i-th, and ROUTES
gets each key's shard by its name.

KEYS has one line a document or value, UTF-8:
  "VALUE"            a _routing (or _id) value: its shard, as IndexRouting
                     .getShard(id, VALUE) / collectSearchShards(VALUE);
                     with P > 1, the shards a search with routing VALUE
                     visits, ascending, TAB-separated;
  "ROUTING<TAB>ID"   a document: ROUTING empty means no routing (as an
                     Elasticsearch request treats routing=""), so the _id
                     routes; with P > 1 a routing is required.
SHARDS gets one line per KEYS line.  With --hash, the hashes instead (h of
VALUE, or h(ROUTING) TAB h(ID)).

The rule (Elasticsearch 7.x/8.x IndexRouting, OperationRouting before it):
  h(s)  = Murmur3HashFunction.hash(s) = Lucene's StringHelper
          .murmurhash3_x86_32 (seed 0) over the UTF-16LE code units of s,
          a signed 32-bit int; computed here by LuceneMurmur.java, run by
          Java's source launcher against Debian's lucene-core jar;
  shard = floorMod(h, R) / (R / N);
  partitioned (P > 1): shard = floorMod(h(ROUTING) + floorMod(h(ID), P), R)
          / (R / N), the addition wrapping as Java int; a search visits
          floorMod(h(VALUE) + i, R) / (R / N) for i = 0 .. P-1.
R defaults to MetadataCreateIndexService.calculateNumRoutingShards for an
index created by 7.0 or later: N << max(1, 10 - ceil(log2 N)) (1 -> 1024,
3 -> 768, 5 -> 640, 8 -> 1024, 1024 -> 2048, 1500 -> 3000); give
--routing-shards N for an index created before 7.0, or the index's own
index.number_of_routing_shards.  Before the routes, ES's own published test
vectors (Murmur3HashFunctionTests) are hashed too and must match.

Needs a JDK (the source launcher needs javac's module): Debian's
openjdk-17-jdk-headless, and liblucene8-java.  $JAVA overrides `java`.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

PROG = "es_routing.py"
HERE = os.path.dirname(os.path.abspath(__file__))
HELPER = os.path.join(HERE, "LuceneMurmur.java")
LUCENE_JARS = "/usr/share/java/lucene-core-*.jar"

# elastic/elasticsearch server/src/test/.../Murmur3HashFunctionTests.java
PUBLISHED = [
    (0x00000000, ""), (0x3fb8ba02, "h"), (0xce30a49f, "he"),
    (0x0c7cee6b, "hel"), (0x5a0cb7c3, "hell"), (0xd7c31989, "hello"),
    (0x22ab2984, "hello w"), (0xdf0ca123, "hello wo"),
    (0xe7744d61, "hello wor"), (0x51837ec6, "hello worl"),
    (0x64b256a4, "hello world"), (0xda1575e5, "hello world!"),
    (0x8ded82be, "Γειά σου Κόσμε"),
    (0x8274606c, "Supplementary planes too \U0001F642"),
    (0xe07db09c, "The quick brown fox jumps over the lazy dog"),
    (0x4e63d2ad, "The quick brown fox jumps over the lazy cog"),
]


def read_lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\r\n") for line in f]


def int32(x):
    """x wrapped to a Java int."""
    return (x + 2 ** 31) % 2 ** 32 - 2 ** 31


def default_routing_shards(n):
    """calculateNumRoutingShards(n) for indices created on or after 7.0."""
    log2_n = (n - 1).bit_length()  # 32 - numberOfLeadingZeros(n - 1)
    return n << max(1, 10 - log2_n)


def lucene_jar():
    jars = sorted(glob.glob(LUCENE_JARS))
    if len(jars) != 1:
        sys.exit(f"{PROG}: want one {LUCENE_JARS} (liblucene8-java), found {jars}")
    return jars[0]


def java_hashes(strings):
    """h(s) for each string, by LuceneMurmur.java on Debian's Lucene."""
    java = os.environ.get("JAVA") or shutil.which("java")
    if not java:
        sys.exit(f"{PROG}: no java (install openjdk-17-jdk-headless)")
    data = "".join(s + "\n" for s in strings).encode("utf-8")
    proc = subprocess.run([java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                           "-cp", lucene_jar(), HELPER],
                          input=data, capture_output=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"{PROG}: {HELPER} failed ({proc.returncode}): "
                 f"{proc.stderr.decode(errors='replace').strip()}")
    out = proc.stdout.decode("ascii").split("\n")
    if out[-1] != "" or len(out) - 1 != len(strings):
        sys.exit(f"{PROG}: {HELPER} gave {len(out) - 1} hashes for {len(strings)} strings")
    return [int(h) for h in out[:-1]]


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument("--shards", type=int, metavar="N")
    p.add_argument("--servers", metavar="SERVERS")
    p.add_argument("--config", metavar="INDEX_JSON")
    p.add_argument("--routing-shards", type=int, metavar="R")
    p.add_argument("--partition-size", type=int, default=1, metavar="P")
    p.add_argument("--hash", action="store_true")
    p.add_argument("keys", metavar="KEYS")
    args = p.parse_args(argv)
    args.names = None
    if args.servers is not None:
        if args.shards is not None:
            sys.exit(f"{PROG}: give --shards or --servers, not both")
        args.names = [line.split("\t")[0] for line in read_lines(args.servers) if line]
        args.shards = len(args.names)
    if args.config is not None:
        if args.shards is not None or args.names is not None or args.routing_shards is not None:
            sys.exit(f"{PROG}: --config gives the shards and routing shards")
        import json
        with open(args.config, encoding="utf-8") as f:
            body = json.load(f)
        index = body["settings"]["index"]
        args.shards = int(index["number_of_shards"])
        if "number_of_routing_shards" in index:
            args.routing_shards = int(index["number_of_routing_shards"])
        args.names = body["mappings"]["_meta"]["chash_shards"]
        if len(args.names) != args.shards or len(set(args.names)) != len(args.names):
            sys.exit(f"{PROG}: {args.config}: {len(args.names)} distinct shard names for "
                     f"{args.shards} shards")
    if args.shards is None:
        sys.exit(f"{PROG}: --shards, --servers or --config is required")
    n = args.shards
    if n < 1:
        sys.exit(f"{PROG}: --shards must be >= 1")
    if args.routing_shards is None:
        args.routing_shards = default_routing_shards(n)
    r = args.routing_shards
    if r < n or r % n or r >= 2 ** 31:
        sys.exit(f"{PROG}: --routing-shards {r} must be a multiple of --shards {n}")
    if args.partition_size < 1 or (args.partition_size != 1 and args.partition_size >= r):
        sys.exit(f"{PROG}: routing partition size [{args.partition_size}] should be a "
                 f"positive number less than the number of routing shards [{r}]")
    return args


def parse_keys(path, partitioned):
    """[(routing or None, id or None)] from KEYS."""
    docs = []
    for line in read_lines(path):
        fields = line.split("\t")
        if len(fields) == 1:
            docs.append((fields[0], None))
            continue
        if len(fields) != 2:
            sys.exit(f"{PROG}: more than one TAB in {line!r}")
        routing, doc_id = fields
        if doc_id == "":
            sys.exit(f"{PROG}: if _id is specified it must not be empty: {line!r}")
        if routing == "":
            if partitioned:
                sys.exit(f"{PROG}: a partitioned index needs a routing: {line!r}")
            routing = None
        docs.append((routing, doc_id))
    return docs


def main(argv):
    args = parse_args(argv[1:])
    n, r, p = args.shards, args.routing_shards, args.partition_size
    factor = r // n
    docs = parse_keys(args.keys, p > 1)

    strings = [s for _, s in PUBLISHED]
    for routing, doc_id in docs:
        strings.extend(s for s in (routing, doc_id) if s is not None)
    hashes = java_hashes(strings)
    for (want, s), got in zip(PUBLISHED, hashes):
        if int32(want) != got:
            sys.exit(f"{PROG}: Lucene gives {got} for {s!r}, ES publishes {int32(want)}")
    it = iter(hashes[len(PUBLISHED):])

    def shard(h):
        return (int32(h) % r) // factor  # Math.floorMod(h, R) / factor

    out = []
    for routing, doc_id in docs:
        hr = next(it) if routing is not None else None
        hi = next(it) if doc_id is not None else None
        if args.hash:
            out.append("\t".join(str(h) for h in (hr, hi) if h is not None))
        elif doc_id is None:            # a bare value
            if p == 1:
                out.append(str(shard(hr)))
            else:
                out.append("\t".join(str(s) for s in sorted({shard(hr + i) for i in range(p)})))
        elif p == 1:                    # unpartitioned document
            out.append(str(shard(hi if hr is None else hr)))
        else:                           # partitioned document
            out.append(str(shard(hr + hi % p)))
    if args.names is not None:
        out = [args.names[int(line)] for line in out]
    sys.stdout.buffer.write("".join(line + "\n" for line in out).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
