#!/usr/bin/python3
"""Route keys with uhashring's ketama ring (the Debian package python3-uhashring).

    /usr/bin/python3 uhashring_routes.py SERVERS KEYS > ROUTES
    /usr/bin/python3 uhashring_routes.py --config FILE KEYS > ROUTES

SERVERS is TSV, one "name<TAB>weight" line per server in order; KEYS has one
key a line.  ROUTES gets, for each key, the node uhashring.HashRing(...,
hash_fn='ketama') returns from get_node(key), with the library's defaults
otherwise (40 vnodes, 4 replicas).  With --config, FILE is the JSON of
HashRing's keyword arguments (chash_export's format uhashring), given to it
as they are.
"""
import json
import sys

import uhashring


def read_lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\r\n") for line in f]


def main(argv):
    if len(argv) == 4 and argv[1] == "--config":
        with open(argv[2], encoding="utf-8") as f:
            kwargs = json.load(f)
        if not isinstance(kwargs, dict) or not kwargs.get("nodes"):
            sys.exit(f"uhashring_routes.py: {argv[2]}: no nodes")
        route(uhashring.HashRing(**kwargs), argv[3])
        return
    if len(argv) != 3:
        sys.exit("usage: uhashring_routes.py SERVERS KEYS > ROUTES")
    nodes = {}
    for line in read_lines(argv[1]):
        if not line:
            continue
        name, weight = line.split("\t")
        if name in nodes:
            sys.exit(f"uhashring_routes.py: duplicate server {name!r}")
        nodes[name] = {"weight": int(weight)}
    if not nodes:
        sys.exit("uhashring_routes.py: no servers")
    route(uhashring.HashRing(nodes=nodes, hash_fn="ketama"), argv[2])


def route(ring, keys):
    routes = []
    for key in read_lines(keys):
        node = ring.get_node(key)
        if node is None:
            sys.exit(f"uhashring_routes.py: no node for key {key!r}")
        routes.append(node)
        routes.append("\n")
    sys.stdout.buffer.write("".join(routes).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
