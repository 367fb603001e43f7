#!/usr/bin/python3
"""Route keys through a real twemproxy (nutcracker) and report the server of each.

Usage:
    twemproxy_routes.py --hash NAME [--unnamed] [--conf FILE] SERVERS KEYS > ROUTES
    twemproxy_routes.py --config POOL [--conf FILE] KEYS > ROUTES

--config POOL runs the nutcracker pool in file POOL as it is (for instance
the output of chash_export(ring, 'twemproxy')): nutcracker reads that very
file, and this program listens on the pool's "listen" address (host:port,
free) and on each server's address, which must be a loopback IPv4
host:port, as with --unnamed (no unix sockets).  Servers are named as
nutcracker names them (the name after the weight, else HOST on port 11211,
else HOST:PORT), and nutcracker's stats must name them so.  ROUTES names
each key's server so.

SERVERS is a TSV file of "name<TAB>weight" lines in server-list order
(weights positive integers); KEYS has one key per line (UTF-8, no
whitespace or control characters, at most 200 bytes).  ROUTES gets one
line per key, in order: the name of the server that nutcracker routes the
key to.

How: a server address per server, each on a free loopback port, and a
nutcracker pool with "distribution: ketama" (or --distribution modula,
where a key goes to server hash % total weight), "hash: NAME",
"auto_eject_hosts: false" and the servers as "127.0.0.1:PORT:WEIGHT NAME",
so that nutcracker hashes NAME (not the address) onto its continuum.

With --unnamed the servers have no names, as "HOST:PORT:WEIGHT", and
nutcracker names each after its address: HOST when PORT is 11211,
HOST:PORT otherwise (nc_conf.c, conf_add_server: "backward compatibility
with libmemcached"), and hashes that.  SERVERS then gives each server as
nutcracker names it, HOST (for port 11211) or HOST:PORT, HOST a loopback
address written plainly (127.x.y.z: Linux routes all of 127/8 to lo), and
each server listens on exactly that address and port.  Several can listen
on port 11211 on distinct addresses (127.0.0.2, 127.0.0.3, ...); a
memcached already listening on 0.0.0.0:11211, or on one of the addresses
(another run with the same servers?), fails the run, with a message.
nutcracker's stats must name the servers as SERVERS does.  --conf FILE
gets a copy of the configuration nutcracker ran with (test/scripts/compat.sh
gives it to chash_ring_import).

The servers: this program itself listens on every server's address and
speaks memcached's text protocol as far as a set goes: each "set" that
nutcracker forwards is answered STORED and recorded with the address it
came to; anything else is answered ERROR and fails the run.  (Until
2026-12 each server was a real memcached, whose keys were then read back
by lru_crawler metadump and meta gets: the 1,000-server run took 38
CPU-seconds, 2.4 now, and about one dump in 3,500 never ended.  What is
checked is nutcracker's choice, which nothing behind it takes part in.)
Every key is set through nutcracker, pipelined, and must be STORED; every
distinct key must have reached exactly one server, once, and nothing else
may have reached the servers: so each key's server is the one nutcracker
sent it to, or the run fails.

Every process started is stopped, and the temporary directory removed, on
success, on error, on Ctrl-C and on SIGTERM/SIGHUP; the processes are also
told to die with this one (PR_SET_PDEATHSIG) should it be killed outright.

Standard library only; run with /usr/bin/python3 (3.9 or later).
"""

import argparse
import atexit
import ipaddress
import itertools
import json
import os
import random
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HASHES = ("one_at_a_time", "md5", "crc16", "crc32", "crc32a", "fnv1_64",
          "fnv1a_64", "fnv1_32", "fnv1a_32", "hsieh", "murmur", "jenkins")
DISTRIBUTIONS = ("ketama", "modula")
MAX_KEY_BYTES = 200             # memcached allows 250; the contract says 200
PORT_RANGE = (20000, 32000)     # below Linux's ephemeral range (32768-60999)
START_TIMEOUT = 20.0            # seconds for a process to accept connections
IO_TIMEOUT = 300.0              # seconds without progress on a socket
WINDOW = 2000                   # requests in flight on one connection
NUTCRACKER = "nutcracker"
DEFAULT_PORT = 11211            # nutcracker names unnamed servers on it HOST
MAX_LINE = 1024                 # longest command line a server takes


class RoutesError(Exception):
    pass


def log(verbose, msg):
    if verbose:
        print("twemproxy_routes: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Processes and clean-up

class Cleanup:
    """Everything this run started, stopped however the run ends."""

    def __init__(self):
        self.procs = []
        self.tmpdir = None
        self.done = False

    def add(self, proc):
        self.procs.append(proc)
        return proc

    def stop(self, procs):
        """Stop processes we started: SIGTERM to all (the last started
        first), then wait, then SIGKILL to any left after 5 seconds."""
        for proc in reversed(procs):
            if proc.poll() is None:
                try:
                    proc.terminate()
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for proc in procs:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc in self.procs:
                self.procs.remove(proc)

    def run(self):
        if self.done:
            return
        self.done = True
        # a second Ctrl-C must not cut the clean-up short
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        self.stop(list(self.procs))
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


CLEANUP = Cleanup()


def on_signal(signum, frame):
    raise SystemExit(128 + signum)


def spawn(argv, cwd, errfile):
    """Start a process in its own session (a Ctrl-C reaches us, not it: we
    stop it), its output in errfile.  setpriv (util-linux) tells it to die
    with us even if we are killed with SIGKILL.  Not a preexec_fn: Python
    code run between fork and exec made each start take about 80 ms on a
    loaded machine."""
    with open(errfile, "wb") as err:
        return CLEANUP.add(subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL"] + argv, cwd=cwd,
            stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            start_new_session=True))


def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode(errors="replace").strip()


def free_port(rng, taken):
    """A loopback port nothing listens on now (it may be taken later: the
    callers detect that and retry)."""
    for _ in range(1000):
        port = rng.randint(*PORT_RANGE)
        if port in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RoutesError("found no free loopback port")


def hostport(addr):
    return "%s:%d" % addr


def try_connect(addr):
    try:
        return socket.create_connection(addr, timeout=2)
    except OSError:
        return None


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
        if len(fields) != 2:
            raise RoutesError("%s:%d: expected name<TAB>weight" % (path, lineno))
        try:
            name = fields[0].decode("utf-8")
        except UnicodeDecodeError:
            raise RoutesError("%s:%d: server name is not UTF-8" % (path, lineno))
        if not name:
            raise RoutesError("%s:%d: empty server name" % (path, lineno))
        # nutcracker takes the name after the last space of the server line,
        # so a name cannot hold whitespace
        if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7f for c in name):
            raise RoutesError("%s:%d: server name %r holds whitespace or a "
                              "control character, which nutcracker cannot "
                              "take" % (path, lineno, name))
        if not fields[1].isdigit() or int(fields[1]) <= 0:
            raise RoutesError("%s:%d: weight must be a positive integer"
                              % (path, lineno))
        servers.append((name, int(fields[1])))
    if not servers:
        raise RoutesError("%s: no servers" % path)
    names = [n for n, _ in servers]
    if len(set(names)) != len(names):
        raise RoutesError("%s: duplicate server names" % path)
    return servers


def read_keys(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    keys = []
    for lineno, key in enumerate(lines, 1):
        if key.endswith(b"\r"):
            key = key[:-1]
        if not key:
            raise RoutesError("%s:%d: empty key" % (path, lineno))
        if len(key) > MAX_KEY_BYTES:
            raise RoutesError("%s:%d: key of %d bytes (at most %d)"
                              % (path, lineno, len(key), MAX_KEY_BYTES))
        if any(b <= 0x20 or b == 0x7f for b in key):
            raise RoutesError("%s:%d: key holds whitespace or a control "
                              "character" % (path, lineno))
        try:
            key.decode("utf-8")
        except UnicodeDecodeError:
            raise RoutesError("%s:%d: key is not UTF-8" % (path, lineno))
        keys.append(key)
    return keys


def yaml_scalar(s):
    """A plain or quoted YAML scalar of a nutcracker configuration."""
    if len(s) >= 2 and s[0] == s[-1] == "'":
        return s[1:-1].replace("''", "'")
    if len(s) >= 2 and s[0] == s[-1] == '"':
        return json.loads(s)
    return s


def read_pool(path):
    """The pool in file path: its name, its listen address (host, port) and
    its servers [(name, weight)] with their addresses [(host, port)]."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    pool, listen, servers, addrs, in_servers = None, None, [], [], False
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            if pool is not None:
                raise RoutesError("%s: more than one pool" % path)
            pool = yaml_scalar(line[:-1]) if line.endswith(":") else None
            if not pool:
                raise RoutesError("%s: not a pool (NAME: first)" % path)
            continue
        item = line.strip()
        if in_servers and item.startswith("- "):
            value = yaml_scalar(item[2:].strip())
            addr, _, name = value.partition(" ")
            hostp, _, weight = addr.rpartition(":")
            host, _, port = hostp.rpartition(":")
            try:
                ip = ipaddress.IPv4Address(host)
            except ValueError:
                ip = None
            if ip is None or str(ip) != host or not ip.is_loopback \
                    or not port.isdigit() or not weight.isdigit():
                raise RoutesError("%s: server %r: expected HOST:PORT:WEIGHT "
                                  "[NAME], HOST a loopback IPv4 address"
                                  % (path, value))
            if not name:
                name = host if int(port) == DEFAULT_PORT else hostp
            servers.append((name, int(weight)))
            addrs.append((host, int(port)))
            continue
        key, _, value = item.partition(":")
        in_servers = key == "servers"
        if key == "listen":
            host, _, port = yaml_scalar(value.strip()).rpartition(":")
            if not host or not port.isdigit():
                raise RoutesError("%s: listen %r: expected HOST:PORT"
                                  % (path, value.strip()))
            listen = (host, int(port))
    if pool is None or listen is None or not servers:
        raise RoutesError("%s: a pool with a listen address and servers, "
                          "please" % path)
    if len(set(n for n, _ in servers)) != len(servers):
        raise RoutesError("%s: duplicate server names" % path)
    if len(set(addrs)) != len(addrs):
        raise RoutesError("%s: two servers on one address and port" % path)
    return pool, listen, servers, addrs


def unnamed_addrs(servers):
    """With --unnamed: the address each server's memcached listens on, from
    its name, which must be the one nutcracker gives a server without a
    name: HOST when the port is 11211, HOST:PORT otherwise (nc_conf.c,
    conf_add_server)."""
    addrs = []
    for name, _ in servers:
        host, sep, port = name.partition(":")
        try:
            ip = ipaddress.IPv4Address(host)
        except ValueError:
            ip = None
        if ip is None or str(ip) != host or not ip.is_loopback:
            raise RoutesError("--unnamed: server %r: expected HOST or "
                              "HOST:PORT, HOST a loopback IPv4 address "
                              "(127.x.y.z) written plainly" % name)
        if not sep:
            addrs.append((host, DEFAULT_PORT))
            continue
        if not (port.isascii() and port.isdigit()) or str(int(port)) != port \
                or not 1 <= int(port) <= 65535:
            raise RoutesError("--unnamed: server %r: bad port" % name)
        if int(port) == DEFAULT_PORT:
            raise RoutesError("--unnamed: server %r: nutcracker names a "
                              "server on port %d %r, without the port"
                              % (name, DEFAULT_PORT, host))
        addrs.append((host, int(port)))
    if len(set(addrs)) != len(addrs):
        raise RoutesError("--unnamed: two servers on one address and port")
    return addrs


# ---------------------------------------------------------------------------
# The servers and nutcracker

class Servers:
    """Every server's address, listened on by this program in a thread of
    its own: each set that arrives is answered STORED and recorded (the
    key, and the server it came to); anything else is answered ERROR and
    recorded as an error."""

    def __init__(self, n, fixed=None):
        """n servers, each on a free port of 127.0.0.1, or, with fixed (a
        list of (host, port), one per server), on exactly that address and
        port, or the run fails."""
        self.listeners = []
        self.received = {}      # key -> the indexes of the servers it reached
        self.sets = 0
        self.errors = []
        for i in range(n):
            addr = fixed[i] if fixed is not None else ("127.0.0.1", 0)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.listeners.append(s)
            # SO_REUSEADDR: connections of a previous run in TIME_WAIT do
            # not count
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(addr)
                s.listen(64)
            except OSError as e:
                self.close()
                if fixed is None:
                    raise RoutesError("cannot listen on a loopback port (%s)"
                                      % (e.strerror or e))
                raise RoutesError(
                    "cannot listen on %s (%s): --unnamed listens for each "
                    "server on the very address and port that nutcracker "
                    "names the server after, so that must be free.  Is a "
                    "memcached listening on 0.0.0.0:%d (a system "
                    "memcached?), or another run using %s?"
                    % (hostport(addr), e.strerror or e, addr[1],
                       hostport(addr)))
            s.setblocking(False)
        self.addrs = [s.getsockname() for s in self.listeners]
        self.wake_r, self.wake_w = socket.socketpair()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def close(self):
        for s in self.listeners:
            s.close()

    def stop(self):
        """Stop serving; what was recorded is complete once it returns."""
        self.wake_w.send(b"x")
        self.thread.join()
        self.close()

    def serve(self):
        sel = selectors.DefaultSelector()
        for i, s in enumerate(self.listeners):
            sel.register(s, selectors.EVENT_READ, i)
        sel.register(self.wake_r, selectors.EVENT_READ, None)
        conns = []
        try:
            while True:
                for key, mask in sel.select():
                    if key.data is None:
                        return
                    if isinstance(key.data, int):
                        try:
                            c, _ = key.fileobj.accept()
                        except (BlockingIOError, InterruptedError):
                            continue
                        c.setblocking(False)
                        conn = [key.data, c, bytearray(), bytearray()]
                        conns.append(conn)
                        sel.register(c, selectors.EVENT_READ, conn)
                        continue
                    server, c, inbuf, outbuf = conn = key.data
                    if mask & selectors.EVENT_READ:
                        try:
                            chunk = c.recv(1 << 20)
                        except (BlockingIOError, InterruptedError):
                            chunk = None
                        except OSError:
                            chunk = b""
                        if chunk == b"":
                            sel.unregister(c)
                            c.close()
                            conns.remove(conn)
                            continue
                        if chunk:
                            inbuf += chunk
                            self.answer(server, inbuf, outbuf)
                    if outbuf:
                        try:
                            del outbuf[:c.send(outbuf)]
                        except (BlockingIOError, InterruptedError):
                            pass
                        except OSError as e:
                            # nutcracker went away before reading its
                            # replies: the run fails on its side
                            self.errors.append("server %d could not answer "
                                               "(%s)" % (server, e))
                            sel.unregister(c)
                            c.close()
                            conns.remove(conn)
                            continue
                    sel.modify(c, selectors.EVENT_READ |
                               (selectors.EVENT_WRITE if outbuf else 0), conn)
        except Exception as e:      # recorded: the run then fails
            self.errors.append("the servers' thread failed: %r" % e)
        finally:
            for conn in conns:
                conn[1].close()
            sel.close()

    def answer(self, server, inbuf, outbuf):
        """Answer the complete commands at the start of inbuf."""
        while True:
            end = inbuf.find(b"\r\n")
            if end < 0:
                if len(inbuf) > MAX_LINE:
                    self.errors.append("server %d got a line of over %d "
                                       "bytes" % (server, MAX_LINE))
                    del inbuf[:]
                return
            parts = bytes(inbuf[:end]).split(b" ")
            # set KEY FLAGS EXPTIME BYTES, its data block after the line
            if parts[0] == b"set" and len(parts) == 5 and \
                    parts[4].isdigit():
                total = end + 2 + int(parts[4]) + 2
                if len(inbuf) < total:
                    return
                if inbuf[total - 2:total] != b"\r\n":
                    self.errors.append("server %d got a set of %r whose "
                                       "data block does not end its "
                                       "length" % (server, parts[1]))
                    del inbuf[:]
                    return
                self.received.setdefault(parts[1], []).append(server)
                self.sets += 1
                del inbuf[:total]
                outbuf += b"STORED\r\n"
            else:
                self.errors.append("server %d got %r" % (server,
                                                         bytes(inbuf[:end])[:200]))
                del inbuf[:end + 2]
                outbuf += b"ERROR\r\n"


def yaml_quote(s):
    return "'" + s.replace("'", "''") + "'"


def write_conf(path, hash_name, distribution, listen_port, servers, addrs,
               unnamed):
    lines = [
        "chash:",
        "  listen: 127.0.0.1:%d" % listen_port,
        "  hash: %s" % hash_name,
        "  distribution: %s" % distribution,
        "  auto_eject_hosts: false",
        "  preconnect: false",
        "  timeout: 60000",
        "  servers:",
    ]
    for (name, weight), addr in zip(servers, addrs):
        if unnamed:
            # no name: nutcracker names the server after its address
            line = "%s:%d" % (hostport(addr), weight)
        else:
            line = "%s:%d %s" % (hostport(addr), weight, name)
        lines.append("    - " + yaml_quote(line))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def start_nutcracker(conf, workdir, rng, taken, hash_name, distribution,
                     servers, addrs, unnamed, verbose, pool=None):
    """Returns the process, a connection to its pool and its log file and
    stats port.  With pool (the file, its listen address), the file as it
    is."""
    for attempt in range(10):
        stats_port = free_port(rng, taken)
        if pool is None:
            listen_port = free_port(rng, taken)
            listen = ("127.0.0.1", listen_port)
            write_conf(conf, hash_name, distribution, listen_port, servers,
                       addrs, unnamed)
        else:
            shutil.copyfile(pool[0], conf)
            listen = pool[1]
        if attempt == 0:
            test = subprocess.run([NUTCRACKER, "-t", "-c", conf],
                                  stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=60)
            if test.returncode != 0:
                raise RoutesError("nutcracker -t rejects the configuration:\n"
                                  + test.stderr.decode(errors="replace"))
        logfile = os.path.join(workdir, "nutcracker.log")
        proc = spawn([NUTCRACKER, "-c", conf, "-o", logfile,
                      "-s", str(stats_port), "-a", "127.0.0.1"], workdir,
                     os.path.join(workdir, "nutcracker.out"))
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            s = try_connect(listen)
            if s is not None:
                if proc.poll() is None:
                    return proc, s, logfile, stats_port
                s.close()
                break
            time.sleep(0.02)
        if proc.poll() is None:
            raise RoutesError("nutcracker did not start listening")
        # most likely its listen or stats port was taken since we tested it
        log(verbose, "nutcracker exited at start; retrying:\n"
            + read_text(logfile))
        CLEANUP.stop([proc])
    raise RoutesError("nutcracker failed to start:\n" + read_text(logfile))


def nutcracker_server_names(stats_port, pool_name="chash"):
    """The names of the pool's servers, from nutcracker's stats (JSON with
    an object per server, named as nutcracker names it)."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        s = try_connect(("127.0.0.1", stats_port))
        if s is not None:
            break
        if time.monotonic() > deadline:
            raise RoutesError("nutcracker's stats port does not answer")
        time.sleep(0.02)
    with s:
        s.settimeout(IO_TIMEOUT)
        buf = bytearray()
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    try:
        stats = json.loads(bytes(buf), object_pairs_hook=list)
    except ValueError as e:
        raise RoutesError("nutcracker's stats are not JSON (%s): %r"
                          % (e, bytes(buf[:200])))
    pools = [v for k, v in stats if k == pool_name]
    if len(pools) != 1:
        raise RoutesError("nutcracker's stats hold no pool %s: %r"
                          % (pool_name, bytes(buf[:200])))
    return [k for k, v in pools[0] if isinstance(v, list)]


def pipeline(sock, requests, reply_len, replies_ok, what):
    """Send the requests pipelined and read one fixed-length reply each.

    Writes and reads interleave, with at most WINDOW requests unanswered
    (nutcracker keeps every request in flight in memory, about 6 kB each).
    Every reply must be one of replies_ok (all of reply_len bytes); returns
    them.
    """
    out = memoryview(b"".join(requests))
    ends = list(itertools.accumulate(len(r) for r in requests))
    want = reply_len * len(requests)
    sent = 0
    buf = bytearray()
    checked = 0
    sock.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ |
                 (selectors.EVENT_WRITE if out else 0))
    try:
        while checked < want:
            events = sel.select(timeout=IO_TIMEOUT)
            if not events:
                raise RoutesError("%s stopped answering after %d replies"
                                  % (what, checked // reply_len))
            for _, mask in events:
                if mask & selectors.EVENT_WRITE:
                    limit = ends[min(len(ends), checked // reply_len + WINDOW)
                                 - 1]
                    try:
                        sent += sock.send(out[sent:limit])
                    except BlockingIOError:
                        pass
                    if sent == limit:
                        sel.modify(sock, selectors.EVENT_READ)
                if mask & selectors.EVENT_READ:
                    try:
                        chunk = sock.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        raise RoutesError("%s closed the connection after %d "
                                          "replies"
                                          % (what, checked // reply_len))
                    buf += chunk
            while checked + reply_len <= len(buf):
                if bytes(buf[checked:checked + reply_len]) not in replies_ok:
                    i = checked // reply_len
                    line = bytes(buf[checked:]).split(b"\r\n", 1)[0]
                    raise RoutesError("%s answered %r to %r"
                                      % (what, line[:200],
                                         requests[i].split(b"\r\n")[0]))
                checked += reply_len
            if sent < len(out) and sent < ends[min(
                    len(ends), checked // reply_len + WINDOW) - 1]:
                sel.modify(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
        if len(buf) != want:
            raise RoutesError("%s sent more replies than requests" % what)
    finally:
        sel.close()
        sock.setblocking(True)
    return [bytes(buf[i:i + reply_len]) for i in range(0, want, reply_len)]


def set_all(sock, keys):
    """Set every key through nutcracker; every reply must be STORED."""
    pipeline(sock, [b"set " + k + b" 0 0 1\r\n1\r\n" for k in keys],
             8, (b"STORED\r\n",), "nutcracker")


# ---------------------------------------------------------------------------

def routes(hash_name, distribution, servers, keys, unnamed, verbose,
           conf_out=None, pool=None):
    t0 = time.monotonic()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # a listening socket and nutcracker's connection a server, here; a
    # connection a server in nutcracker, which inherits the limit
    need = 2 * len(servers) + 256
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            raise RoutesError("open file limit %d too low for %d servers"
                              % (hard, len(servers)))
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))

    CLEANUP.tmpdir = tempfile.mkdtemp(prefix="twemproxy_routes.")
    workdir = CLEANUP.tmpdir
    os.chmod(workdir, 0o755)
    rng = random.SystemRandom()
    taken = set()
    distinct = list(dict.fromkeys(keys))
    if pool is not None:
        # (the file, its name, its listen address, the servers' addresses)
        fixed = pool[3]
        taken.add(pool[2][1])
    else:
        fixed = unnamed_addrs(servers) if unnamed else None
    if fixed is not None:
        taken.update(port for _, port in fixed)

    listening = Servers(len(servers), fixed)
    addrs = listening.addrs
    taken.update(port for _, port in addrs)
    t1 = time.monotonic()
    log(verbose, "listening for %d servers (%.2fs)" % (len(addrs), t1 - t0))

    conf = os.path.join(workdir, "nutcracker.yml")
    try:
        proc, sock, logfile, stats_port = start_nutcracker(
            conf, workdir, rng, taken, hash_name, distribution, servers,
            addrs, unnamed, verbose,
            None if pool is None else (pool[0], pool[2]))
        t2 = time.monotonic()
        log(verbose, "nutcracker started in %.2fs" % (t2 - t1))
        if conf_out:
            shutil.copyfile(conf, conf_out)
        if unnamed or pool is not None:
            # nutcracker's own word on the names it gave the servers (the
            # routes below are the proof that it hashes them)
            got = nutcracker_server_names(stats_port, "chash" if pool is None
                                          else pool[1])
            want = [name for name, _ in servers]
            if sorted(got) != sorted(want):
                raise RoutesError("nutcracker names the servers %s, not %s"
                                  % (", ".join(sorted(got)),
                                     ", ".join(sorted(want))))
            log(verbose, "nutcracker's stats name the servers as SERVERS "
                "does")

        with sock:
            set_all(sock, distinct)
    finally:
        listening.stop()
    t3 = time.monotonic()
    log(verbose, "%d keys set in %.2fs" % (len(distinct), t3 - t2))
    if proc.poll() is not None:
        raise RoutesError("nutcracker exited")
    # nutcracker cuts "NAME-i" to 272 bytes, and says so
    with open(logfile, "rb") as f:
        cut = [line for line in f if b"forced to truncate" in line]
    if cut:
        log(True, "warning: nutcracker truncated %d point name(s), as in: %s"
            % (len(cut), cut[0].decode(errors="replace").rstrip()))

    # Every set was recorded before its STORED went back, and every key's
    # STORED has come back: each key reached exactly one server, once, and
    # nothing else reached them
    if listening.errors:
        raise RoutesError("%d command(s) other than a set reached the "
                          "servers, as: %s" % (len(listening.errors),
                                               listening.errors[0]))
    owner = {}
    for k in distinct:
        got = listening.received.get(k, [])
        if len(got) != 1:
            raise RoutesError("key %r reached %s" % (
                k, "no server" if not got else "servers " + ", ".join(
                    repr(servers[i][0]) for i in got)))
        owner[k] = got[0]
    if listening.sets != len(distinct):
        raise RoutesError("%d sets reached the servers for %d distinct keys"
                          % (listening.sets, len(distinct)))
    return [servers[owner[k]][0] for k in keys]


def main():
    ap = argparse.ArgumentParser(
        description="The server real nutcracker routes each key to.")
    ap.add_argument("--hash", choices=HASHES,
                    help="nutcracker's key hash (pool setting hash:)")
    ap.add_argument("--distribution", default="ketama", choices=DISTRIBUTIONS,
                    help="nutcracker's distribution (default ketama)")
    ap.add_argument("--unnamed", action="store_true",
                    help="servers without names: SERVERS names are HOST "
                    "(port 11211) or HOST:PORT, HOST a 127.x.y.z address; "
                    "each memcached listens there")
    ap.add_argument("--conf", metavar="FILE",
                    help="write a copy of the configuration nutcracker ran "
                    "with")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="report progress and timings on stderr")
    ap.add_argument("--config", metavar="POOL",
                    help="run the nutcracker pool in this file as it is, "
                    "instead of one written from SERVERS (then give KEYS "
                    "alone)")
    ap.add_argument("servers", help="TSV file: name<TAB>weight per line")
    ap.add_argument("keys", nargs="?", help="one key per line")
    args = ap.parse_args()
    if args.config is not None:
        if args.keys is not None or args.hash or args.unnamed:
            ap.error("with --config, give KEYS alone (the pool gives the "
                     "hash and the servers)")
        args.keys, args.servers = args.servers, None
    elif args.keys is None or args.hash is None:
        ap.error("give --hash, SERVERS and KEYS")

    if shutil.which(NUTCRACKER) is None:
        print("twemproxy_routes: %s not found (Debian package nutcracker)"
              % NUTCRACKER, file=sys.stderr)
        return 2

    atexit.register(CLEANUP.run)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        pool = None
        if args.config is not None:
            name, listen, servers, addrs = read_pool(args.config)
            pool = (args.config, name, listen, addrs)
        else:
            servers = read_servers(args.servers)
        keys = read_keys(args.keys)
        result = routes(args.hash, args.distribution, servers, keys,
                        args.unnamed, args.verbose, args.conf, pool)
    except (RoutesError, OSError) as e:
        print("twemproxy_routes: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("twemproxy_routes: interrupted", file=sys.stderr)
        return 130
    finally:
        CLEANUP.run()
    out = sys.stdout.buffer
    out.write("".join(name + "\n" for name in result).encode("utf-8"))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
