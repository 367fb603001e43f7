#!/usr/bin/python3
"""Route keys through a real HAProxy "balance hdr(X-Key)" consistent backend.

Usage:
    haproxy_routes.py [--hash sdbm|djb2|wt6|crc32] [--avalanche]
                      [--ids FILE] [--empty TEXT] [--seen FILE]
                      [--conf FILE] [--connections N] [-v] SERVERS KEYS > ROUTES
    haproxy_routes.py --config BACKEND [--ids FILE] [--empty TEXT] [--seen FILE]
                      [--conf FILE] [--connections N] [-v] KEYS > ROUTES

--config BACKEND runs the backend section in file BACKEND (for instance
the output of chash_export(ring, 'haproxy', '{"balance": "hdr(X-Key)"}'))
instead of one written from SERVERS and --hash/--avalanche: its lines are
kept as they are (balance, which must be hdr(X-Key), hash-type, each
server's name, id, weight and disabled), but that each server's address is
replaced by the unix socket of its echo frontend (HAProxy places a server
by its id and weight, never by its address: hash-key id, the default) and
that the lines this program checks answers with (http-reuse and the
X-Srv-Id and X-Seen headers) follow the "backend" line.  ROUTES names each
key's server by its name in the section.

SERVERS is a TSV file of "name<TAB>weight" or "name<TAB>weight<TAB>id"
lines in server-list order: weight 1 to 256 (HAProxy's range; 0 would be a
server that never gets a key), id a positive integer (HAProxy's "id"
keyword: the server's puid) or empty for none.  Names are any UTF-8 text
without TAB: HAProxy's consistent hash does not hash names (a server's
nodes come from its puid and weight only), so the servers carry their
SERVERS names in the configuration when all of them are names HAProxy
takes (letters, digits, "-", "_", ".", ":"), else they are called s1, s2,
... there; either way they are reported by their SERVERS names.  --conf
FILE gets a copy of the configuration HAProxy ran with
(test/scripts/compat.sh gives its backend section to chash_ring_import).

KEYS has one key per line, UTF-8, no TAB, CR or LF; an empty line is the
empty key.  Each key is sent as the raw bytes of one request header
"X-Key: KEY" on HTTP/1.1 keep-alive connections (pipelined).  ROUTES gets
one line per key, in order: the name of the server HAProxy sent it to.

The backend:

    backend b
      balance hdr(X-Key)
      hash-type consistent [FUNCTION [avalanche]]
      server NAME unix@.../eI.sock weight W [id ID]   (one per server)

With neither --hash nor --avalanche, "hash-type consistent" alone: HAProxy's
default for consistent hashing, sdbm with avalanche (cfgparse-listen.c).
--hash F gives "hash-type consistent F", and --avalanche adds the modifier
(--avalanche alone means sdbm avalanche, the same as the default).

What HAProxy 2.6 hashes (backend.c, get_server_hh, and http_find_header
with full=0): the FIRST comma-separated element of the first X-Key header
(a comma inside double quotes does not split), without the spaces and TABs
around it.  A key whose element is empty (the empty key, spaces only, a
leading comma) is not hashed: HAProxy falls back to round robin ("if the
header is not found or empty, let's fallback to round robin"), so it has no
hash route: without --empty the run fails naming it; with --empty TEXT,
ROUTES gets TEXT for it.  A key that HAProxy hashes otherwise than as sent
(cut at a comma, spaces dropped) is routed by what HAProxy hashes: ROUTES
gives HAProxy's real choice, stderr says how many keys were hashed other
than as sent, and --seen FILE gets, one a line, the bytes HAProxy hashed for
each key (req.hdr(x-key,1), the same header lookup as the balancing, in the
balancing frontend itself, hex-encoded by HAProxy).  Every other byte is
passed and hashed as is (unsigned): UTF-8, controls, and even NUL, which
HAProxy 2.6 accepts in a header value (nginx refuses it).

Where HAProxy 2.6 puts a server (lb_chash.c): 16*weight nodes, node j at
full_hash(puid*4096 + j) (Bob Jenkins' 32-bit integer mix, then times
3221225473); a key's hash (sdbm, djb2, wt6 or crc32 of the bytes, then
full_hash with avalanche) goes to the NEAREST node, the one before it on a
tie (dp <= dn), wrapping around.

The server ids (puid): HAProxy keeps a counter that starts at 1 and moves on
by one at every server, with or without "id"; a server without "id" gets
the first id not taken at or after the counter, and the counter goes on
from there (cfgparse.c): a=1, b "id 3", c=4, d=5, e "id 2", f=7, not f=6 as
"the first id not taken at or after its position" would say.  The ids it
really gave are read
from its stats socket ("show servers state b"), checked against the
X-Srv-Id response header (%[srv_id]) of every answer, printed on stderr
with -v and written, one "name<TAB>id" line per server in SERVERS order, to
--ids FILE.

How: one HAProxy process (ours, in the foreground, with its own
configuration, pid file and stats socket in a temporary directory; nothing
on TCP: every socket is a unix socket there, so nothing on the host can
collide with it) holding the balancing frontend and one echo frontend per
server, "http-request return status 200 ... string 'TOKEN I'", that the
server sI points to.  "retries 0", no "option redispatch", no health
checks: nothing but the hash picks the server, and every answer must be
200 from the echo of the server whose id HAProxy reports (the run's random
token proves it is ours).

Every process started is stopped, and the temporary directory removed, on
success, on error, on Ctrl-C and on SIGTERM/SIGHUP; HAProxy is also told
to die with this one (PR_SET_PDEATHSIG) should it be killed outright.

Standard library only; run with /usr/bin/python3 (3.9 or later).
"""

import argparse
import atexit
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from proxy_driver import (CLEANUP, RoutesError, on_signal, pipeline,
                          read_text, spawn)

HAPROXY = "haproxy"
HASHES = ("sdbm", "djb2", "wt6", "crc32")
MAX_KEY_BYTES = 60000           # tune.bufsize 131072 below
MAX_WEIGHT = 256                # SRV_UWGHT_MAX
START_TIMEOUT = 30.0            # seconds for HAProxy to accept connections
IO_TIMEOUT = 120.0              # seconds without progress on the sockets
WINDOW = 64                     # requests in flight on one connection
CONNECTIONS = 8                 # client connections to the front
PROG = "haproxy_routes"
NAME_RE = re.compile(r"^[A-Za-z0-9_.:-]+$")    # invalid_char() of HAProxy


def log(verbose, msg):
    if verbose:
        print(PROG + ": " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Inputs

def read_servers(path):
    servers = []
    with open(path, "rb") as f:
        data = f.read()
    for lineno, line in enumerate(data.split(b"\n"), 1):
        line = line.rstrip(b"\r")
        if not line:
            continue
        fields = line.split(b"\t")
        if len(fields) not in (2, 3):
            raise RoutesError("%s:%d: expected name<TAB>weight[<TAB>id]"
                              % (path, lineno))
        try:
            name = fields[0].decode("utf-8")
        except UnicodeDecodeError:
            raise RoutesError("%s:%d: server name is not UTF-8"
                              % (path, lineno))
        if not name:
            raise RoutesError("%s:%d: empty server name" % (path, lineno))
        w = fields[1]
        if not (w.isdigit() and len(w) <= 3 and 1 <= int(w) <= MAX_WEIGHT):
            raise RoutesError("%s:%d: weight must be an integer from 1 to "
                              "%d (HAProxy's range)"
                              % (path, lineno, MAX_WEIGHT))
        sid = None
        if len(fields) == 3 and fields[2]:
            i = fields[2]
            if not (i.isdigit() and len(i) <= 9 and int(i) > 0) \
                    or str(int(i)).encode() != i:
                raise RoutesError("%s:%d: id must be a positive integer "
                                  "(or empty)" % (path, lineno))
            sid = int(i)
        servers.append((name, int(w), sid))
    if not servers:
        raise RoutesError("%s: no servers" % path)
    names = [s[0] for s in servers]
    if len(set(names)) != len(names):
        raise RoutesError("%s: duplicate server names" % path)
    ids = [s[2] for s in servers if s[2] is not None]
    if len(set(ids)) != len(ids):
        raise RoutesError("%s: duplicate server ids" % path)
    return servers


def read_keys(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    keys = []
    for lineno, key in enumerate(lines, 1):
        if b"\r" in key or b"\t" in key:
            raise RoutesError("%s:%d: key holds a TAB or CR" % (path, lineno))
        if len(key) > MAX_KEY_BYTES:
            raise RoutesError("%s:%d: key of %d bytes (at most %d)"
                              % (path, lineno, len(key), MAX_KEY_BYTES))
        try:
            key.decode("utf-8")
        except UnicodeDecodeError:
            raise RoutesError("%s:%d: key is not UTF-8" % (path, lineno))
        keys.append(key)
    return keys


# ---------------------------------------------------------------------------
# HAProxy

def write_conf(path, workdir, front, stats, servers, socks, token, hash_line,
               maxconn, names, section=None):
    p = lambda sub: '"%s"' % os.path.join(workdir, sub)
    lines = [
        "global",
        "  pidfile %s" % p("haproxy.pid"),
        "  stats socket %s level admin" % p("stats.sock"),
        "  maxconn %d" % maxconn,
        "  nbthread 1",
        "  tune.bufsize 131072",
        "  tune.maxrewrite 1024",
        "defaults",
        "  mode http",
        "  timeout connect 30s",
        "  timeout client 120s",
        "  timeout server 120s",
        "  timeout http-keep-alive 600s",
        "  timeout http-request 120s",
        "  retries 0",
        "frontend fe",
        '  bind "unix@%s"' % front,
        "  http-request set-var(txn.seen) req.hdr(x-key,1),hex",
        "  default_backend b",
    ]
    checks = [
        "  http-reuse always",
        "  http-response set-header X-Srv-Id %[srv_id]",
        "  http-response set-header X-Seen %[var(txn.seen)]",
    ]
    if section is None:
        lines += ["backend b", "  balance hdr(X-Key)", "  " + hash_line] + checks
        for (name, weight, sid), sock, cname in zip(servers, socks, names):
            lines.append('  server %s "unix@%s" weight %d%s'
                         % (cname, sock, weight,
                            "" if sid is None else " id %d" % sid))
    else:
        # the given section as it is (named b), each server at its echo
        # frontend's socket
        for line in section:
            if isinstance(line, tuple):
                _, i, name, rest = line
                lines.append('  server %s "unix@%s"%s' % (name, socks[i], rest))
            elif line.split()[:1] == ["backend"]:
                lines += ["backend b"] + checks
            else:
                lines.append(line)
    for i, sock in enumerate(socks, 1):
        lines += [
            "frontend e%d" % i,
            '  bind "unix@%s"' % sock,
            '  http-request return status 200 content-type text/plain '
            'string "%s %d"' % (token, i),
        ]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def stats_command(path, cmd):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(IO_TIMEOUT)
        s.connect(path)
        s.sendall(cmd.encode() + b"\n")
        buf = bytearray()
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    return bytes(buf).decode(errors="replace")


def server_state(path, n):
    """{internal name: (id, user weight)} from "show servers state b"."""
    text = stats_command(path, "show servers state b")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "1":
        raise RoutesError("unexpected 'show servers state' answer: %r"
                          % text[:300])
    fields = None
    out = {}
    for line in lines[1:]:
        if line.startswith("# "):
            fields = line[2:].split()
            continue
        if not line.strip():
            continue
        if fields is None:
            raise RoutesError("'show servers state' without a field line")
        values = line.split()
        row = dict(zip(fields, values))
        try:
            out[row["srv_name"]] = (int(row["srv_id"]), int(row["srv_uweight"]))
        except (KeyError, ValueError):
            raise RoutesError("bad 'show servers state' line %r" % line)
    if len(out) != n:
        raise RoutesError("'show servers state b' lists %d servers, not %d"
                          % (len(out), n))
    return out


def config_names(servers):
    """The servers' names in the configuration: their own if HAProxy takes
    them all, else s1, s2, ..."""
    own = [s[0] for s in servers]
    if all(NAME_RE.match(n) for n in own):
        return own
    return ["s%d" % i for i in range(1, len(servers) + 1)]


HAPROXY_WORD_RE = re.compile(
    r'#.*$|(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|\\.|[^\s"\'#\\])+|\S')


def read_backend(path):
    """The backend section in file path: its lines, each server line as
    ("server", index, name, the text after its address), and its servers
    [(name, weight, id)].  It must balance hdr(X-Key), the header this
    program sends each key in."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section, servers, balance, backend = [], [], False, False
    for raw in text.splitlines():
        words = [m.group(0) for m in HAPROXY_WORD_RE.finditer(raw)
                 if not m.group(0).startswith("#")]
        if not words:
            continue
        if not backend:
            if words[0] not in ("backend", "listen") or len(words) != 2:
                raise RoutesError("%s: not a backend section (backend NAME "
                                  "first)" % path)
            backend = True
            section.append("backend b")
            continue
        if words[0] == "balance":
            if len(words) != 2 or words[1].lower() != "hdr(x-key)":
                raise RoutesError("%s: the backend must balance hdr(X-Key) "
                                  "(the header this program sends each key "
                                  "in), not %r" % (path, " ".join(words[1:])))
            balance = True
        if words[0] == "server":
            if len(words) < 3 or not NAME_RE.match(words[1]):
                raise RoutesError("%s: bad server line %r" % (path, raw))
            weight, sid, rest = 1, None, words[3:]
            for k, w in enumerate(rest[:-1]):
                if w == "weight":
                    weight = int(rest[k + 1])
                elif w == "id":
                    sid = int(rest[k + 1])
            section.append(("server", len(servers), words[1],
                            "".join(" " + w for w in rest)))
            servers.append((words[1], weight, sid))
            continue
        section.append("  " + " ".join(words))
    if not balance:
        raise RoutesError("%s: the backend has no balance line" % path)
    if not servers:
        raise RoutesError("%s: the backend has no server" % path)
    if len(set(s[0] for s in servers)) != len(servers):
        raise RoutesError("%s: duplicate server names" % path)
    return section, servers


def routes(servers, keys, hash_line, empty_mark, nconn, verbose,
           conf_out=None, section=None):
    t0 = time.monotonic()
    n = len(servers)
    maxconn = 2 * n + 4 * nconn + 256
    nfiles = 4 * maxconn + 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < nfiles:
        if hard != resource.RLIM_INFINITY and hard < nfiles:
            raise RoutesError("open file limit %d too low for %d servers"
                              % (hard, n))
        resource.setrlimit(resource.RLIMIT_NOFILE, (nfiles, hard))

    CLEANUP.tmpdir = tempfile.mkdtemp(prefix="haproxy_routes.")
    workdir = CLEANUP.tmpdir
    front = os.path.join(workdir, "front.sock")
    stats = os.path.join(workdir, "stats.sock")
    socks = [os.path.join(workdir, "e%d.sock" % i) for i in range(1, n + 1)]
    token = secrets.token_hex(8)
    conf = os.path.join(workdir, "haproxy.cfg")
    names = config_names(servers)
    write_conf(conf, workdir, front, stats, servers, socks, token, hash_line,
               maxconn, names, section)
    test = subprocess.run([HAPROXY, "-c", "-q", "-f", conf],
                          stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=120)
    if test.returncode != 0:
        raise RoutesError("haproxy -c rejects the configuration:\n"
                          + (test.stdout + test.stderr).decode(
                              errors="replace"))
    errfile = os.path.join(workdir, "haproxy.out")
    proc = spawn([HAPROXY, "-db", "-f", conf], workdir, errfile)
    deadline = time.monotonic() + START_TIMEOUT + n * 0.01
    while True:
        if proc.poll() is not None:
            raise RoutesError("haproxy exited at start:\n" + read_text(errfile))
        if os.path.exists(front) and os.path.exists(stats):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(front)
                break
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise RoutesError("haproxy did not start listening")
        time.sleep(0.02)
    state = server_state(stats, n)
    ids = []
    for i, (name, weight, sid) in enumerate(servers, 1):
        got = state.get(names[i - 1])
        if got is None:
            raise RoutesError("haproxy's stats lack server %s (%r)"
                              % (names[i - 1], name))
        if sid is not None and got[0] != sid:
            raise RoutesError("server %r: id %d given, haproxy reports %d"
                              % (name, sid, got[0]))
        if got[1] != weight:
            raise RoutesError("server %r: weight %d given, haproxy reports %d"
                              % (name, weight, got[1]))
        ids.append(got[0])
    if conf_out:
        shutil.copyfile(conf, conf_out)
    t1 = time.monotonic()
    log(verbose, "haproxy with %d servers started in %.2fs; ids %s"
        % (n, t1 - t0, " ".join("%s=%d" % (s[0], i)
                                for s, i in zip(servers, ids))))

    distinct = list(dict.fromkeys(keys))
    requests = [b"GET / HTTP/1.1\r\nHost: routes\r\nX-Key: " + k +
                b"\r\n\r\n" for k in distinct]

    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(front)
        return s

    responses = pipeline(connect, requests, nconn, WINDOW, "haproxy", IO_TIMEOUT) \
        if requests else []
    t2 = time.monotonic()
    log(verbose, "%d keys routed in %.2fs" % (len(distinct), t2 - t1))
    if proc.poll() is not None:
        raise RoutesError("haproxy exited:\n" + read_text(errfile))

    prefix = token.encode() + b" "
    route = {}
    seen = {}
    empty = []
    for k, (status, headers, body) in zip(distinct, responses):
        if status != 200 or not body.startswith(prefix):
            raise RoutesError("key %r: haproxy answered %d %r"
                              % (k, status, body[:200]))
        try:
            i = int(body[len(prefix):]) - 1
            if i < 0:
                raise IndexError
            name = servers[i][0]
        except (ValueError, IndexError):
            raise RoutesError("key %r: unexpected answer %r" % (k, body))
        sid = headers.get(b"x-srv-id", [])
        if sid != [str(ids[i]).encode()]:
            raise RoutesError("key %r: answered by server %r (id %d) but "
                              "haproxy's srv_id is %r" % (k, name, ids[i], sid))
        hx = headers.get(b"x-seen", [b""])
        if len(hx) != 1:
            raise RoutesError("key %r: %d X-Seen headers" % (k, len(hx)))
        try:
            seen[k] = bytes.fromhex(hx[0].decode("ascii"))
        except ValueError:
            raise RoutesError("key %r: X-Seen %r is not hex" % (k, hx[0]))
        if not seen[k]:
            empty.append(k)
        route[k] = name
    if empty and empty_mark is None:
        raise RoutesError(
            "%d key(s) whose hashed value is empty (the first on line %d: "
            "%r): haproxy routes them round robin, not by the hash; pass "
            "--empty TEXT to get TEXT for them instead"
            % (len(empty), keys.index(empty[0]) + 1, empty[0]))
    for k in empty:
        route[k] = empty_mark
    altered = [k for k in distinct if seen[k] != k and seen[k]]
    if altered:
        log(True, "note: haproxy hashed %d key(s) other than as sent (the "
            "first comma-separated element, spaces and TABs around it "
            "dropped), e.g. %r as %r"
            % (len(altered), altered[0], seen[altered[0]]))
    return [route[k] for k in keys], [seen[k] for k in keys], ids


def main():
    ap = argparse.ArgumentParser(
        description="The server real HAProxy (balance hdr(X-Key), hash-type "
        "consistent) sends each key to.")
    ap.add_argument("--hash", choices=HASHES,
                    help="hash function (default: HAProxy's default for "
                    "consistent hashing, sdbm with avalanche)")
    ap.add_argument("--avalanche", action="store_true",
                    help="apply the avalanche modifier (full_hash) to the "
                    "key hash")
    ap.add_argument("--ids", metavar="FILE",
                    help="write name<TAB>id for each server, the ids haproxy "
                    "gave")
    ap.add_argument("--empty", metavar="TEXT",
                    help="print TEXT for keys whose hashed value is empty "
                    "(round robin); without it such keys fail the run")
    ap.add_argument("--conf", metavar="FILE",
                    help="write a copy of the configuration haproxy ran with")
    ap.add_argument("--seen", metavar="FILE",
                    help="write the bytes haproxy hashed for each key, one a "
                    "line")
    ap.add_argument("--connections", type=int, default=CONNECTIONS,
                    help="client connections (default %d)" % CONNECTIONS)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--config", metavar="BACKEND",
                    help="run the backend section in this file, each server "
                    "at its echo frontend, instead of one written from "
                    "SERVERS (then give KEYS alone)")
    ap.add_argument("servers", help="TSV file: name<TAB>weight[<TAB>id]")
    ap.add_argument("keys", nargs="?", help="one key per line")
    args = ap.parse_args()
    if args.config is not None:
        if args.keys is not None or args.hash or args.avalanche:
            ap.error("with --config, give KEYS alone (the section gives the "
                     "hash)")
        args.keys, args.servers = args.servers, None
    elif args.keys is None:
        ap.error("give SERVERS and KEYS")

    if args.hash is None and not args.avalanche:
        hash_line = "hash-type consistent"
    else:
        hash_line = "hash-type consistent %s%s" % (
            args.hash or "sdbm", " avalanche" if args.avalanche else "")

    atexit.register(CLEANUP.run)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        section = None
        if args.config is not None:
            section, servers = read_backend(args.config)
        else:
            servers = read_servers(args.servers)
        keys = read_keys(args.keys)
        result, seen, ids = routes(servers, keys, hash_line, args.empty,
                                   args.connections, args.verbose, args.conf,
                                   section)
        if args.ids:
            with open(args.ids, "wb") as f:
                f.write("".join("%s\t%d\n" % (s[0], i) for s, i
                                in zip(servers, ids)).encode("utf-8"))
        if args.seen:
            with open(args.seen, "wb") as f:
                f.write(b"".join(s + b"\n" for s in seen))
    except (RoutesError, OSError, subprocess.SubprocessError) as e:
        print(PROG + ": error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(PROG + ": interrupted", file=sys.stderr)
        return 130
    finally:
        CLEANUP.run()
    out = sys.stdout.buffer
    out.write("".join(name + "\n" for name in result).encode("utf-8"))
    out.flush()
    return 0


if __name__ == "__main__":
    if shutil.which(HAPROXY) is None and os.path.exists("/usr/sbin/haproxy"):
        HAPROXY = "/usr/sbin/haproxy"
    if shutil.which(HAPROXY) is None:
        print(PROG + ": haproxy not found (Debian package haproxy)",
              file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
