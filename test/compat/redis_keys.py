#!/usr/bin/python3
"""Keys with values in a real Redis Cluster, for the export suite
(test/scripts/export_redis.sh); the cluster is one that redis_cluster.py
started in DIR, and this uses its RESP client.

    redis_keys.py fill DIR N          keys k1..kN, each the value v<i>:<i*7919 mod 1000003>
    redis_keys.py check DIR N         every key on the master of its slot with its value,
                                      the masters' DBSIZEs adding up to N; prints "N keys ok"
    redis_keys.py settle DIR          waits until every server of DIR/ports agrees
    redis_keys.py spawn DIR           one more server, not met; prints its port
    redis_keys.py servers DIR N       N servers of no cluster yet in a new DIR (no
                                      slots, not met); prints their ports
    redis_keys.py drop DIR PORT       stops the server of PORT, drops it from DIR/ports
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis_cluster as rc  # noqa: E402

PROG = "redis_keys.py"


def die(msg):
    sys.exit(f"{PROG}: {msg}")


def keys_values(n):
    return [(b"k%d" % i, b"v%d:%d" % (i, i * 7919 % 1000003)) for i in range(1, n + 1)]


def by_master(ports, kv):
    owners = rc.wait_agreement(ports)
    c = rc.Conn(ports[0])
    try:
        slots = c.pipeline([b"CLUSTER", b"KEYSLOT", k] for k, _ in kv)
    finally:
        c.close()
    groups = {}
    for (k, v), s in zip(kv, slots):
        groups.setdefault(owners[s], []).append((k, v))
    return owners, groups


def port_of(name):
    return int(name.rsplit(":", 1)[1])


def cmd_fill(d, n):
    _, groups = by_master(rc.read_ports(d), keys_values(n))
    for name, kv in groups.items():
        c = rc.Conn(port_of(name))
        try:
            for r in c.pipeline([b"SET", k, v] for k, v in kv):
                if r != "OK":
                    die(f"SET on {name}: {r!r}")
        finally:
            c.close()


def cmd_check(d, n):
    ports = rc.read_ports(d)
    owners, groups = by_master(ports, keys_values(n))
    total = 0
    bad = 0
    for name in sorted(set(owners.values())):
        kv = groups.get(name, [])
        c = rc.Conn(port_of(name))
        try:
            got = c.pipeline([b"GET", k] for k, _ in kv)
            size = c.ok("DBSIZE")
        finally:
            c.close()
        bad += sum(1 for (_, v), g in zip(kv, got) if g != v)
        if size != len(kv):
            die(f"{name} holds {size} keys (DBSIZE), {len(kv)} of them its own")
        total += size
    if bad or total != n:
        die(f"{bad} keys missing or with another value; {total} keys in all, not {n}")
    print(f"{n} keys ok")


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    cmd, d = argv[0], argv[1]
    if cmd == "fill":
        cmd_fill(d, int(argv[2]))
    elif cmd == "check":
        cmd_check(d, int(argv[2]))
    elif cmd == "settle":
        rc.wait_agreement(rc.read_ports(d))
    elif cmd == "spawn":
        ports = rc.read_ports(d)
        taken = set(ports) | {p + rc.BUS_OFFSET for p in ports}
        print(rc.start_servers(d, 1, taken)[0])
    elif cmd == "servers":
        os.makedirs(d)
        ports = rc.start_servers(d, int(argv[2]), set())
        rc.write_ports(d, ports)
        print("\n".join(str(p) for p in ports))
    elif cmd == "drop":
        port = int(argv[2])
        try:
            c = rc.Conn(port)
            c.send(rc.encode(["SHUTDOWN", "NOSAVE"]))
            c.close()
        except (ConnectionError, OSError):
            pass
        rc.write_ports(d, [p for p in rc.read_ports(d) if p != port])
    else:
        die(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv[1:])
