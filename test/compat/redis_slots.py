#!/usr/bin/python3
"""Keys in a real Redis Cluster, for the rebalance
suite (test/scripts/rebalance_redis.sh).  The cluster is one that
test/compat/redis_cluster.py started in DIR; this uses its RESP client.

    redis_slots.py fill DIR DATA
    redis_slots.py measure DIR KEYS > PLACES

fill: DATA has "key<TAB>size" lines (keys without tab, CR or LF); each key
is SET, on the master that serves its slot (CLUSTER KEYSLOT, CLUSTER
SLOTS), to a string of size "x" bytes.  Every reply must be OK.

measure: KEYS has one key a line.  For each key, "key<TAB>ip:port<TAB>
bytes": the master that holds it and its MEMORY USAGE (SAMPLES 0), asked
of the master that CLUSTER SLOTS says serves its slot; a key missing there
fails the run, and so does a master whose DBSIZE is not the number of
KEYS it holds (keys where they should not be).  The cluster must be
settled (every server agreeing, no migration under way).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis_cluster as rc  # noqa: E402

PROG = "redis_slots.py"


def die(msg):
    sys.exit(f"{PROG}: {msg}")


def read_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(f"cannot read {path}: {e}")
    if b"\r" in data:
        die(f"{path}: has CR")
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def masters(ports):
    """{ip:port: node id} of the masters, and the slot map"""
    owners = rc.wait_agreement(ports)
    c = rc.Conn(ports[0])
    try:
        nodes, _, _, _ = rc.parse_nodes(
            c.ok("CLUSTER", "NODES").decode("utf-8", "replace"))
    finally:
        c.close()
    ids = {name: nid for nid, (name, flags, _) in nodes.items()
           if "master" in flags}
    return ids, owners


def port_of(name):
    return int(name.rsplit(":", 1)[1])


def keyslots(port, keys):
    c = rc.Conn(port)
    try:
        slots = c.pipeline([b"CLUSTER", b"KEYSLOT", k] for k in keys)
    finally:
        c.close()
    for k, s in zip(keys, slots):
        if not isinstance(s, int) or not 0 <= s < rc.SLOTS:
            die(f"CLUSTER KEYSLOT {k!r}: {s!r}")
    return slots


def by_owner(ports, keys):
    """{ip:port: [index of key]} by the settled slot map"""
    _, owners = masters(ports)
    groups = {}
    for i, s in enumerate(keyslots(ports[0], keys)):
        groups.setdefault(owners[s], []).append(i)
    return groups


def cmd_fill(d, data_path):
    ports = rc.read_ports(d)
    keys, sizes = [], []
    for line in read_lines(data_path):
        k, tab, n = line.partition(b"\t")
        if not tab or not n.isdigit():
            die(f"{data_path}: bad line {line[:80]!r}")
        keys.append(k)
        sizes.append(int(n))
    for name, idx in by_owner(ports, keys).items():
        c = rc.Conn(port_of(name))
        try:
            replies = c.pipeline([b"SET", keys[i], b"x" * sizes[i]]
                                 for i in idx)
        finally:
            c.close()
        for i, r in zip(idx, replies):
            if r != "OK":
                die(f"SET {keys[i]!r} on {name}: {r!r}")


def cmd_measure(d, keys_path):
    ports = rc.read_ports(d)
    keys = read_lines(keys_path)
    out = [None] * len(keys)
    groups = by_owner(ports, keys)
    ids, _ = masters(ports)
    for name in ids:
        idx = groups.get(name, [])
        c = rc.Conn(port_of(name))
        try:
            replies = c.pipeline([b"MEMORY", b"USAGE", keys[i], b"SAMPLES",
                                  b"0"] for i in idx)
            size = c.ok("DBSIZE")
        finally:
            c.close()
        for i, r in zip(idx, replies):
            if not isinstance(r, int):
                die(f"MEMORY USAGE {keys[i]!r} on {name}, the master of "
                    f"its slot: {r!r}")
            out[i] = f"{keys[i].decode('utf-8')}\t{name}\t{r}"
        if size != len(idx):
            die(f"{name} holds {size} keys (DBSIZE), {len(idx)} of them "
                f"listed")
    rc.out_lines(out)


COMMANDS = {"fill": cmd_fill, "measure": cmd_measure}


def main(argv):
    if len(argv) != 4 or argv[1] not in COMMANDS:
        sys.exit("usage:\n" + __doc__.split("\n\n")[1])
    rc.PROG = PROG
    try:
        COMMANDS[argv[1]](os.path.abspath(argv[2]), argv[3])
    except (ConnectionError, OSError, ValueError, IndexError, TypeError) as e:
        die(f"{argv[1]}: {e}")


if __name__ == "__main__":
    main(sys.argv)
