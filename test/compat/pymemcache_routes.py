#!/usr/bin/python3
"""Route keys with pymemcache's HashClient (the Debian package
python3-pymemcache 3.5.2, run by Debian's /usr/bin/python3).

    /usr/bin/python3 pymemcache_routes.py [--bytes] [--ignore-weights] [--jobs N] \\
        SERVERS KEYS > ROUTES

SERVERS is TSV, one "name<TAB>weight" line per server in order; a name is
what HashClient takes as a server string: "host:port", a bare host (port
11211), "[v6]:port", or a unix socket path.  KEYS has one key a line
(UTF-8; an empty line is the empty key).  ROUTES gets, for each key, the
name (as written in SERVERS) of the server HashClient.get would ask.

The servers go to HashClient(names, allow_unicode_keys=True) with its
default hasher, RendezvousHash; HashClient names each node "host:port"
(_make_client_key of normalize_server_spec(name)) and adds the nodes in
list order.  Nothing connects: pymemcache's clients connect on their first
command, and this program only calls HashClient._get_client(key), the
lookup HashClient.get makes before running the command: check_key_helper
(which only validates: its prefixed, encoded key is dropped), then
hasher.get_node(key) with the key as given.  A key HashClient refuses
(over 250 bytes, whitespace, NUL) makes this program fail.
allow_unicode_keys only lets non-ASCII str keys through that check; the
hasher sees the same key either way.

--bytes         pass each key as its UTF-8 bytes instead of str (RendezvousHash
                then hashes "node-b'...'": the bytes' repr).
--ignore-weights
                pymemcache has no weights: by default a weight other than 1
                is an error; with this option weights are read and ignored.
--config FILE   the servers are FILE, a JSON list of server strings given to
                HashClient as it is (chash_export's format pymemcache).
--jobs N        route in N processes (forked after HashClient is built;
                default 1).  RendezvousHash scores every node for every key
                in pure Python: about 5 microseconds per node and key.
"""
import json
import multiprocessing
import sys

from pymemcache.client.base import normalize_server_spec
from pymemcache.client.hash import HashClient
from pymemcache.client.rendezvous import RendezvousHash

PROG = "pymemcache_routes.py"
USAGE = f"usage: {PROG} [--bytes] [--ignore-weights] [--jobs N] [--config FILE] [SERVERS] KEYS > ROUTES"

# set before the workers fork
CLIENT = None
INDEX = None
KEYS = None


def die(msg):
    sys.exit(f"{PROG}: {msg}")


def read_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(e)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        die(f"{path}: not valid UTF-8: {e}")
    lines = text.split("\n")
    if lines and lines[-1] == "":       # the newline that ends the last line
        lines.pop()
    return lines


def route(bounds):
    """Server indexes for KEYS[first:last], or an error message."""
    first, last = bounds
    out = []
    for n in range(first, last):
        key = KEYS[n]
        try:
            client = CLIENT._get_client(key)
        except Exception as e:      # pymemcache's MemcacheIllegalInputError and the like
            return f"key {n + 1} ({key!r}): {type(e).__name__}: {e}"
        if client is None:
            return f"key {n + 1} ({key!r}): no server"
        out.append(INDEX[id(client)])
    return out


def read_servers(path, ignore_weights):
    names = []
    for line in read_lines(path):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not fields[1].isdigit():
            die(f"bad server line {line!r}")
        name, weight = fields
        if int(weight) != 1 and not ignore_weights:
            die(f"server {name!r} has weight {weight}: pymemcache has no weights "
                "(--ignore-weights to route without them)")
        names.append(name)
    return names


def main(argv):
    global CLIENT, INDEX, KEYS
    as_bytes = ignore_weights = False
    jobs = 1
    config = None
    args = argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--bytes":
            as_bytes = True
        elif opt == "--ignore-weights":
            ignore_weights = True
        elif opt == "--jobs" and args and args[0].isdigit() and int(args[0]) > 0:
            jobs = int(args.pop(0))
        elif opt == "--config" and args:
            config = args.pop(0)
        elif opt == "--":
            break
        else:
            die(USAGE)
    if config is not None:
        # the servers are the JSON list in config, given to HashClient as
        # they are (chash_export's format pymemcache)
        if len(args) != 1:
            die(USAGE)
        with open(config, encoding="utf-8") as f:
            names = json.load(f)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            die(f"{config}: not a JSON list of server strings")
        args = [None] + args
    elif len(args) != 2:
        die(USAGE)
    else:
        names = read_servers(args[0], ignore_weights)
    if not names:
        die("no servers")

    try:
        CLIENT = HashClient(names, allow_unicode_keys=True)
        node_names = [CLIENT._make_client_key(normalize_server_spec(name)) for name in names]
    except Exception as e:
        die(f"HashClient: {type(e).__name__}: {e}")
    if not isinstance(CLIENT.hasher, RendezvousHash):
        die(f"HashClient's hasher is {type(CLIENT.hasher).__name__}, not RendezvousHash")
    seen = {}
    for name, node in zip(names, node_names):
        if node in seen:
            die(f"servers {seen[node]!r} and {name!r} are both node {node!r} to pymemcache")
        seen[node] = name
    if CLIENT.hasher.nodes != node_names or len(CLIENT.clients) != len(names):
        die("HashClient's nodes are not the servers in order")
    INDEX = {id(CLIENT.clients[node]): i for i, node in enumerate(node_names)}

    KEYS = read_lines(args[1])
    if as_bytes:
        KEYS = [key.encode("utf-8") for key in KEYS]

    step = max(1, -(-len(KEYS) // (jobs * 8)))
    chunks = [(i, min(i + step, len(KEYS))) for i in range(0, len(KEYS), step)]
    if jobs == 1 or len(chunks) <= 1:
        results = map(route, chunks)
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap(route, chunks)
    out = []
    for result in results:
        if isinstance(result, str):
            die(result)
        out.extend(names[i] + "\n" for i in result)
    sys.stdout.buffer.write("".join(out).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
