#!/usr/bin/python3
"""Route keys through a real nginx "hash $http_x_key consistent" upstream.

Usage:
    nginx_routes.py [--netns auto|yes|no] [--empty TEXT] [--seen FILE]
                    [--conf FILE] [--connections N] [-v] SERVERS KEYS > ROUTES
    nginx_routes.py --config UPSTREAM [options as above] KEYS > ROUTES

--config UPSTREAM runs the upstream block in file UPSTREAM as it is (for
instance the output of chash_export(ring, 'nginx', '{"key":
"$http_x_key"}')) instead of writing one from SERVERS: its servers are read
from its "server" lines (each must be a name as below), it must hash
"$http_x_key consistent", and the front server proxies to it by its name.
Only "keepalive K;" is added before its closing "}" when it has none (the
connections to the backends, not their places).  ROUTES names each key's
server by its server text, as the block writes it without quotes.

SERVERS is a TSV file of "name<TAB>weight" lines in server-list order
(weights positive integers).  Each name is written into the upstream
exactly as given, "server NAME weight=W max_fails=0;", and nginx hashes
that text (ngx_http_upstream_hash_module.c, init_chash), so a name must be
an address nginx can really proxy to; this program makes every server a
real listener of the same nginx that answers with its own index.  A name is
one of:

    A.B.C.D:PORT    A.B.C.D a loopback IPv4 address (127.x.y.z: Linux
                    routes all of 127/8 to lo), written plainly, PORT 1 to
                    65535 without leading zeros; never port 80 outside a
                    private network namespace (see --netns)
    A.B.C.D         the same on nginx's default port 80, which nginx hashes
                    as the host with an empty port: only in a private
                    network namespace
    unix:/PATH      a unix socket at the absolute PATH (characters
                    A-Z a-z 0-9 . _ - / only, at most 100 bytes), which
                    nginx hashes as PATH with an empty port; PATH must not
                    exist and its directory must; the socket is removed
                    at the end

Lists of 1 to 1000 (or more) servers: e.g. 127.1.0.1:20001,
127.1.0.2:20001, ...  (127.1.I/250.I%250+1:PORT), equal or unequal weights.

KEYS has one key per line, UTF-8, no TAB, CR or LF; an empty line is the
empty key.  Each key is sent as the raw bytes of one request header
"X-Key: KEY" on HTTP/1.1 keep-alive connections (pipelined).  ROUTES gets
one line per key, in order: the name of the server that nginx proxied the
request to.

What nginx 1.22 does to the header (ngx_http_parse.c): it drops leading
and trailing spaces (0x20 only; TAB is kept), rejects a NUL byte (400), and
passes every other byte (controls, UTF-8, any byte >= 0x80) as is.  Keys
with a NUL are refused here before anything starts.  A key that nginx sees
as empty (the empty key, or spaces only) is not hashed at all: nginx falls
back to round robin (get_chash_peer: "hp->key.len == 0"), so such a key has
no hash route: without --empty the run fails naming it; with --empty TEXT,
ROUTES gets TEXT for it.  A key with leading or trailing spaces is routed
by the trimmed key: ROUTES gives nginx's real choice, stderr says how many
keys were hashed other than as sent, and --seen FILE gets, one a line,
the bytes nginx hashed for each key ($http_x_key, as nginx itself reports
it in a response header).  --conf FILE gets a copy of the configuration
nginx ran with (test/scripts/compat.sh gives its upstream block to
chash_ring_import).

How: one nginx (its own prefix, configuration, pid file and error log in a
temporary directory; master_process off, so it is one process, our child)
with a front server on a unix socket in that directory:

    upstream u { hash $http_x_key consistent;
                 server NAME weight=W max_fails=0; ...  keepalive K; }
    location / { proxy_pass http://u; proxy_next_upstream off; ...
                 add_header X-Upstream $upstream_addr always;
                 add_header X-Seen $http_x_key always; }

and one backend "server { listen ADDRESS; return 200 'TOKEN INDEX'; }" per
server.  Each answer must be 200 from the backend of the right index (the
run's random token proves it is ours), and X-Upstream must be exactly that
server's address, one address (no retry): with proxy_next_upstream off and
max_fails=0 nothing but the hash picks the server.

--netns (default auto): run in a private network namespace of our own
(unshare(CLONE_NEWNET), loopback brought up): no other process's listener,
a system nginx or a parallel run with the same server list, can collide
with ours, and port 80 is free there.  yes = fail if that is not possible
(it needs root or CAP_SYS_ADMIN); no = use the host's loopback (each
address must be free, with a clear error otherwise); auto = try, else the
host's loopback.  The namespace ends with the run.

Every process started is stopped, and the temporary directory (and any
unix socket made for a server) removed, on success, on error, on Ctrl-C and
on SIGTERM/SIGHUP; nginx is also told to die with this one
(PR_SET_PDEATHSIG) should it be killed outright.

Standard library only; run with /usr/bin/python3 (3.9 or later).
"""

import argparse
import atexit
import ctypes
import fcntl
import ipaddress
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from proxy_driver import (CLEANUP, RoutesError, on_signal, pipeline,
                          read_text, spawn)

NGINX = "nginx"
MAX_KEY_BYTES = 60000           # large_client_header_buffers 4 64k
START_TIMEOUT = 30.0            # seconds for nginx to accept connections
IO_TIMEOUT = 120.0              # seconds without progress on the sockets
WINDOW = 64                     # requests in flight on one connection
CONNECTIONS = 8                 # client connections to the front server
UNIX_PATH_RE = re.compile(r"^/[A-Za-z0-9._/-]{1,99}$")
PROG = "nginx_routes"


def log(verbose, msg):
    if verbose:
        print(PROG + ": " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Network namespace

_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


def enter_netns():
    """Move this process into a new network namespace with lo up.  Returns
    None, or why not."""
    if _libc.unshare(CLONE_NEWNET) != 0:
        return os.strerror(ctypes.get_errno())
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = fcntl.ioctl(s.fileno(), SIOCGIFFLAGS,
                          struct.pack("16sh22x", b"lo", 0))
        flags = struct.unpack("16sh22x", ifr)[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS,
                    struct.pack("16sh22x", b"lo", flags | IFF_UP))
    # the kernel gives lo 127.0.0.1/8 as it comes up; check we can use 127/8
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.254.254.254", 0))
    return None


# ---------------------------------------------------------------------------
# Inputs

def parse_name(name, netns):
    """(kind, address) for a server name: ("inet", (host, port)) or
    ("unix", path); the address text nginx's $upstream_addr gives."""
    if name[:5].lower() == "unix:":
        if name[:5] != "unix:":
            raise RoutesError("server %r: write the prefix as 'unix:'" % name)
        path = name[5:]
        if not UNIX_PATH_RE.match(path) or "/../" in path + "/" \
                or "//" in path:
            raise RoutesError("server %r: expected unix:/PATH, PATH absolute "
                              "of A-Z a-z 0-9 . _ - / (at most 100 bytes)"
                              % name)
        return ("unix", path), name
    host, sep, port = name.rpartition(":")
    if not sep:
        host, port = name, None
    try:
        ip = ipaddress.IPv4Address(host)
    except ValueError:
        ip = None
    if ip is None or str(ip) != host or not ip.is_loopback:
        raise RoutesError("server %r: expected A.B.C.D:PORT or A.B.C.D, "
                          "A.B.C.D a loopback IPv4 address (127.x.y.z) "
                          "written plainly, or unix:/PATH" % name)
    if port is None:
        if not netns:
            raise RoutesError("server %r: without a port nginx uses port "
                              "80, which this program uses only in a "
                              "private network namespace (--netns)" % name)
        return ("inet", (host, 80)), name + ":80"
    if not (port.isascii() and port.isdigit()) or str(int(port)) != port \
            or not 1 <= int(port) <= 65535:
        raise RoutesError("server %r: bad port" % name)
    if int(port) == 80 and not netns:
        raise RoutesError("server %r: port 80 is used only in a private "
                          "network namespace (--netns)" % name)
    return ("inet", (host, int(port))), name


def read_servers(path):
    servers = []
    with open(path, "rb") as f:
        data = f.read()
    for lineno, line in enumerate(data.split(b"\n"), 1):
        line = line.rstrip(b"\r")
        if not line:
            continue
        fields = line.split(b"\t")
        if len(fields) != 2:
            raise RoutesError("%s:%d: expected name<TAB>weight"
                              % (path, lineno))
        try:
            name = fields[0].decode("utf-8")
        except UnicodeDecodeError:
            raise RoutesError("%s:%d: server name is not UTF-8"
                              % (path, lineno))
        w = fields[1]
        if not (w.isdigit() and int(w) > 0) or len(w) > 9:
            raise RoutesError("%s:%d: weight must be a positive integer "
                              "(at most 9 digits)" % (path, lineno))
        servers.append((name, int(w)))
    if not servers:
        raise RoutesError("%s: no servers" % path)
    names = [n for n, _ in servers]
    if len(set(names)) != len(names):
        raise RoutesError("%s: duplicate server names" % path)
    if sum(w for _, w in servers) * 160 > 20000000:
        raise RoutesError("%s: total weight %d makes more than 20,000,000 "
                          "nginx points (160 per unit of weight)"
                          % (path, sum(w for _, w in servers)))
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
        if b"\0" in key:
            raise RoutesError("%s:%d: key holds a NUL byte, which nginx "
                              "refuses in a header (400)" % (path, lineno))
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
# HTTP/1.1, pipelined on several keep-alive connections

def conf_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_conf(path, workdir, front, servers, addrs, token, keepalive,
               nfiles, block=None):
    t = lambda sub: conf_quote(os.path.join(workdir, sub))
    lines = [
        "daemon off;",
        "master_process off;",
        "worker_rlimit_nofile %d;" % nfiles,
        "pid %s;" % t("nginx.pid"),
        "error_log %s warn;" % t("error.log"),
        "events { worker_connections %d; }" % (nfiles - 64),
        "http {",
        "  access_log off;",
        "  default_type text/plain;",
        "  client_body_temp_path %s;" % t("client_body"),
        "  proxy_temp_path %s;" % t("proxy"),
        "  fastcgi_temp_path %s;" % t("fastcgi"),
        "  uwsgi_temp_path %s;" % t("uwsgi"),
        "  scgi_temp_path %s;" % t("scgi"),
        "  keepalive_requests 100000000;",
        "  keepalive_timeout 600s;",
        "  client_header_buffer_size 1k;",
        "  large_client_header_buffers 4 64k;",
    ]
    if block is None:
        upstream = "u"
        lines += ["  upstream u {", "    hash $http_x_key consistent;"]
        for name, weight in servers:
            lines.append("    server %s weight=%d max_fails=0;"
                         % (conf_quote(name), weight))
        lines += ["    keepalive %d;" % keepalive, "  }"]
    else:
        # the given block as it is, keepalive added if it has none
        upstream, text, has_keepalive = block
        if not has_keepalive:
            end = text.rindex("}")
            text = text[:end] + "    keepalive %d;\n" % keepalive + text[end:]
        lines += [text.rstrip("\n")]
    lines += [
        "  server {",
        "    listen %s;" % conf_quote("unix:" + front),
        "    location / {",
        "      proxy_pass http://%s;" % upstream,
        "      proxy_http_version 1.1;",
        '      proxy_set_header Connection "";',
        "      proxy_next_upstream off;",
        "      proxy_connect_timeout 30s;",
        "      proxy_read_timeout 120s;",
        "      proxy_buffering off;",
        "      add_header X-Upstream $upstream_addr always;",
        "      add_header X-Seen $http_x_key always;",
        "    }",
        "  }",
    ]
    for i, (kind, addr) in enumerate(addrs):
        listen = "unix:" + addr if kind == "unix" else "%s:%d" % addr
        lines.append("  server { listen %s; keepalive_requests 100000000; "
                     "location / { return 200 \"%s %d\"; } }"
                     % (conf_quote(listen), token, i))
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def check_free(kind, addr):
    """Fail unless we can listen on addr now, as nginx will."""
    if kind == "unix":
        d = os.path.dirname(addr)
        if not os.path.isdir(d):
            raise RoutesError("unix:%s: directory %s does not exist"
                              % (addr, d))
        if os.path.lexists(addr):
            raise RoutesError("unix:%s already exists (another run?)" % addr)
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
            s.listen(1)
        except OSError as e:
            raise RoutesError(
                "cannot listen on %s:%d (%s): each server's backend listens "
                "on the very address its name gives, so that must be free.  "
                "Another run with these servers, or something on "
                "0.0.0.0:%d?  (--netns avoids all of that)"
                % (addr[0], addr[1], e.strerror or e, addr[1]))


NGINX_WORD_RE = re.compile(
    r'#[^\n]*|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[;{}]|(?:[^\s;{}"\'#\\]|\\.)'
    r'(?:[^\s;{}\\]|\\.)*|\S')
NGINX_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", '"': '"', "'": "'",
                 "\\": "\\"}


def nginx_word(w):
    """A word of an nginx configuration as nginx reads it: quotes removed,
    escapes replaced."""
    if len(w) >= 2 and w[0] in "\"'" and w[-1] == w[0]:
        w = w[1:-1]
    return re.sub(r"\\(.)", lambda m: NGINX_ESCAPES.get(m.group(1),
                                                       "\\" + m.group(1)), w)


def read_upstream(path):
    """(name, text, has keepalive) of the upstream block in file path, and
    its servers [(server text, weight)] in order.  The block must hash
    $http_x_key consistently, as the front server sends each key in X-Key."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    words = [w for w in NGINX_WORD_RE.findall(text) if not w.startswith("#")]
    if len(words) < 4 or words[0] != "upstream" or words[2] != "{" \
            or words[-1] != "}":
        raise RoutesError("%s: not one upstream block (upstream NAME { ... })"
                          % path)
    name = nginx_word(words[1])
    servers, directive, hashed, keepalive = [], [], False, False
    for w in words[3:-1]:
        if w in ("{", "}"):
            raise RoutesError("%s: a block inside the upstream block" % path)
        if w != ";":
            directive.append(nginx_word(w))
            continue
        if not directive:
            continue
        if directive[0] == "hash":
            if directive[1:] != ["$http_x_key", "consistent"]:
                raise RoutesError("%s: the block must hash \"$http_x_key "
                                  "consistent\" (the front server sends the "
                                  "key in X-Key), not %r"
                                  % (path, " ".join(directive[1:])))
            hashed = True
        elif directive[0] == "keepalive":
            keepalive = True
        elif directive[0] == "server":
            weight = 1
            for p in directive[2:]:
                if p.startswith("weight="):
                    weight = int(p[7:])
            servers.append((directive[1], weight))
        directive = []
    if not hashed:
        raise RoutesError("%s: the block has no \"hash $http_x_key "
                          "consistent;\"" % path)
    if not servers:
        raise RoutesError("%s: the block has no server" % path)
    if len(set(n for n, _ in servers)) != len(servers):
        raise RoutesError("%s: duplicate server names" % path)
    return (name, text, keepalive), servers


def routes(servers, keys, empty_mark, nconn, netns, verbose, conf_out=None,
           block=None):
    t0 = time.monotonic()
    parsed = [parse_name(n, netns) for n, _ in servers]
    addrs = [p[0] for p in parsed]
    upstream_text = [p[1] for p in parsed]
    if len(set(addrs)) != len(addrs):
        raise RoutesError("two servers on one address")
    for kind, addr in addrs:
        check_free(kind, addr)
    # the unix sockets nginx makes for servers: ours to remove
    CLEANUP.paths += [a for k, a in addrs if k == "unix"]

    keepalive = min(4096, max(64, 2 * len(servers)))
    nfiles = keepalive * 2 + 2 * len(servers) + nconn * 4 + 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < nfiles:
        if hard != resource.RLIM_INFINITY and hard < nfiles:
            raise RoutesError("open file limit %d too low for %d servers"
                              % (hard, len(servers)))
        resource.setrlimit(resource.RLIMIT_NOFILE, (nfiles, hard))

    CLEANUP.tmpdir = tempfile.mkdtemp(prefix="nginx_routes.")
    workdir = CLEANUP.tmpdir
    front = os.path.join(workdir, "front.sock")
    token = secrets.token_hex(8)
    conf = os.path.join(workdir, "nginx.conf")
    write_conf(conf, workdir, front, servers, addrs, token, keepalive, nfiles,
               block)
    base = [NGINX, "-p", workdir + "/", "-c", conf,
            "-e", os.path.join(workdir, "error.log")]
    test = subprocess.run(base + ["-t", "-q"], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120)
    if test.returncode != 0:
        raise RoutesError("nginx -t rejects the configuration:\n"
                          + test.stderr.decode(errors="replace"))
    proc = spawn(base, workdir, os.path.join(workdir, "nginx.out"))
    deadline = time.monotonic() + START_TIMEOUT + len(servers) * 0.01
    while True:
        if proc.poll() is not None:
            raise RoutesError("nginx exited at start:\n%s\n%s"
                              % (read_text(os.path.join(workdir, "nginx.out")),
                                 read_text(os.path.join(workdir,
                                                        "error.log"))))
        if os.path.exists(front):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(front)
                break
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise RoutesError("nginx did not start listening")
        time.sleep(0.02)
    if conf_out:
        shutil.copyfile(conf, conf_out)
    t1 = time.monotonic()
    log(verbose, "nginx with %d backends started in %.2fs"
        % (len(servers), t1 - t0))

    distinct = list(dict.fromkeys(keys))
    requests = [b"GET / HTTP/1.1\r\nHost: routes\r\nX-Key: " + k +
                b"\r\n\r\n" for k in distinct]

    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(front)
        return s

    responses = pipeline(connect, requests, nconn, WINDOW, "nginx", IO_TIMEOUT)
    t2 = time.monotonic()
    log(verbose, "%d keys routed in %.2fs" % (len(distinct), t2 - t1))
    if proc.poll() is not None:
        raise RoutesError("nginx exited")

    prefix = token.encode() + b" "
    route = {}
    seen = {}
    empty = []
    for k, (status, headers, body) in zip(distinct, responses):
        if status != 200 or not body.startswith(prefix):
            raise RoutesError("key %r: nginx answered %d %r"
                              % (k, status, body[:200]))
        try:
            i = int(body[len(prefix):])
            name = servers[i][0]
        except (ValueError, IndexError):
            raise RoutesError("key %r: unexpected answer %r" % (k, body))
        up = headers.get(b"x-upstream", [])
        if len(up) != 1 or up[0].decode(errors="replace") != upstream_text[i]:
            raise RoutesError("key %r: answered by server %r but nginx's "
                              "$upstream_addr is %r (a retry?)"
                              % (k, name, up))
        s = headers.get(b"x-seen", [b""])
        if len(s) != 1:
            raise RoutesError("key %r: %d X-Seen headers" % (k, len(s)))
        seen[k] = s[0]
        if not s[0]:
            empty.append(k)
        route[k] = name
    if empty and empty_mark is None:
        raise RoutesError(
            "%d key(s) that nginx sees as empty (the first on line %d: %r): "
            "nginx routes them round robin, not by the hash; pass --empty "
            "TEXT to get TEXT for them instead"
            % (len(empty), keys.index(empty[0]) + 1, empty[0]))
    for k in empty:
        route[k] = empty_mark
    altered = [k for k in distinct if seen[k] != k and seen[k]]
    if altered:
        log(True, "note: nginx hashed %d key(s) other than as sent (leading "
            "or trailing spaces dropped), e.g. %r as %r"
            % (len(altered), altered[0], seen[altered[0]]))
    return [route[k] for k in keys], [seen[k] for k in keys]


def main():
    ap = argparse.ArgumentParser(
        description="The server real nginx (hash $http_x_key consistent) "
        "proxies each key to.")
    ap.add_argument("--netns", choices=("auto", "yes", "no"), default="auto",
                    help="run in a private network namespace (default auto)")
    ap.add_argument("--empty", metavar="TEXT",
                    help="print TEXT for keys nginx sees as empty (round "
                    "robin); without it such keys fail the run")
    ap.add_argument("--conf", metavar="FILE",
                    help="write a copy of the configuration nginx ran with")
    ap.add_argument("--seen", metavar="FILE",
                    help="write the bytes nginx hashed for each key, one a "
                    "line")
    ap.add_argument("--connections", type=int, default=CONNECTIONS,
                    help="client connections (default %d)" % CONNECTIONS)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--config", metavar="UPSTREAM",
                    help="run the upstream block in this file as it is, "
                    "instead of one written from SERVERS (then give KEYS "
                    "alone)")
    ap.add_argument("servers", help="TSV file: name<TAB>weight per line")
    ap.add_argument("keys", nargs="?", help="one key per line")
    args = ap.parse_args()
    if args.config is not None:
        if args.keys is not None:
            ap.error("with --config, give KEYS alone")
        args.keys, args.servers = args.servers, None
    elif args.keys is None:
        ap.error("give SERVERS and KEYS")

    if shutil.which(NGINX) is None and not os.path.exists("/usr/sbin/nginx"):
        print(PROG + ": nginx not found (Debian package nginx)",
              file=sys.stderr)
        return 2
    atexit.register(CLEANUP.run)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        block = None
        if args.config is not None:
            block, servers = read_upstream(args.config)
        else:
            servers = read_servers(args.servers)
        keys = read_keys(args.keys)
        netns = False
        if args.netns != "no":
            why = enter_netns()
            if why is None:
                netns = True
                log(args.verbose, "in a private network namespace")
            elif args.netns == "yes":
                raise RoutesError("cannot make a network namespace: " + why)
            else:
                log(args.verbose, "no network namespace (%s): host loopback"
                    % why)
        result, seen = routes(servers, keys, args.empty, args.connections,
                              netns, args.verbose, args.conf, block)
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
    if shutil.which(NGINX) is None and os.path.exists("/usr/sbin/nginx"):
        NGINX = "/usr/sbin/nginx"
    sys.exit(main())
