#!/usr/bin/python3
"""Route keys through a real twemproxy (nutcracker) and report the server of each.

Usage:
    twemproxy_routes.py --hash NAME [--unnamed] SERVERS KEYS > ROUTES

SERVERS is a TSV file of "name<TAB>weight" lines in server-list order
(weights positive integers); KEYS has one key per line (UTF-8, no
whitespace or control characters, at most 200 bytes).  ROUTES gets one
line per key, in order: the name of the server that nutcracker routes the
key to.

How: one memcached per server on a free loopback port, a nutcracker pool
with "distribution: ketama" (or --distribution modula, where a key goes to
server hash % total weight), "hash: NAME", "auto_eject_hosts: false" and
the servers as "127.0.0.1:PORT:WEIGHT NAME", so that nutcracker hashes NAME
(not the address) onto its continuum.

With --unnamed the servers have no names, as "HOST:PORT:WEIGHT", and
nutcracker names each after its address: HOST when PORT is 11211,
HOST:PORT otherwise (nc_conf.c, conf_add_server: "backward compatibility
with libmemcached"), and hashes that.  SERVERS then gives each server as
nutcracker names it, HOST (for port 11211) or HOST:PORT, HOST a loopback
address written plainly (127.x.y.z: Linux routes all of 127/8 to lo), and
each memcached listens on exactly that address and port.  Several can
listen on port 11211 on distinct addresses (127.0.0.2, 127.0.0.3, ...); a
memcached already listening on 0.0.0.0:11211, or on one of the addresses
(another run with the same servers?), fails the run, with a message.
nutcracker's stats must name the servers as SERVERS does.

Every key is set through nutcracker, pipelined, and must be STORED.  Then
each memcached lists its keys ("lru_crawler metadump all"), a meta get on
that memcached confirms each (keys missing from the dumps are looked for
on every server), and the servers must hold as many items as there are
distinct keys: so every key is on exactly one server, or the run fails.
The dumps only say where to look first: memcached 1.6.18's dump is a live
walk that may miss items, and about one in a thousand never sent its END
here (the crawler stopped, its cause in memcached not found), so a dump
that sends nothing for DUMP_STALL seconds counts as ended where it
stopped, with a warning, and its other keys are found by meta get.

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
import pwd
import random
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

HASHES = ("one_at_a_time", "md5", "crc16", "crc32", "crc32a", "fnv1_64",
          "fnv1a_64", "fnv1_32", "fnv1a_32", "hsieh", "murmur", "jenkins")
DISTRIBUTIONS = ("ketama", "modula")
MAX_KEY_BYTES = 200             # memcached allows 250; the contract says 200
PORT_RANGE = (20000, 32000)     # below Linux's ephemeral range (32768-60999)
START_TIMEOUT = 20.0            # seconds for a process to accept connections
IO_TIMEOUT = 300.0              # seconds without progress on a socket
DUMP_STALL = 10.0               # seconds without data that end a metadump
WINDOW = 2000                   # requests in flight on one connection
NUTCRACKER = "nutcracker"
DEFAULT_PORT = 11211            # nutcracker names unnamed servers on it HOST
MEMCACHED = "memcached"


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


def unprivileged_user():
    """The user to run memcached as when we are root (it refuses root)."""
    for name in ("memcache", "nobody"):
        try:
            return pwd.getpwnam(name).pw_uid
        except KeyError:
            pass
    raise RoutesError("running as root, and neither user memcache nor "
                      "nobody exists to run memcached as")


def spawn(argv, cwd, errfile, user=None):
    """Start a process in its own session (a Ctrl-C reaches us, not it: we
    stop it), its output in errfile, as user (a uid) if given.  setpriv
    (util-linux) changes the user, then tells the process to die with us
    even if we are killed with SIGKILL (after the change, so that it
    holds).  Not a preexec_fn: Python code run between fork and exec made
    each start take about 80 ms (100 memcacheds started in 21.5 s on a
    loaded machine, where they now take 2.7 s)."""
    wrap = ["setpriv"]
    if user is not None:
        pw = pwd.getpwuid(user)
        wrap += ["--reuid", str(pw.pw_uid), "--regid", str(pw.pw_gid),
                 "--clear-groups"]
    wrap += ["--pdeathsig", "KILL"]
    with open(errfile, "wb") as err:
        return CLEANUP.add(subprocess.Popen(
            wrap + argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=err,
            stderr=err, start_new_session=True))


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


def recv_until(sock, end):
    """Read until the data ends with 'end'."""
    buf = bytearray()
    while not buf.endswith(end):
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise RoutesError("connection closed after %d bytes" % len(buf))
        buf += chunk
    return bytes(buf)


def memcached_stats(addr):
    with socket.create_connection(addr, timeout=10) as s:
        s.sendall(b"stats\r\n")
        data = recv_until(s, b"END\r\n")
    stats = {}
    for line in data.split(b"\r\n"):
        parts = line.split(b" ")
        if len(parts) == 3 and parts[0] == b"STAT":
            stats[parts[1].decode()] = parts[2].decode()
    return stats


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
# memcached and nutcracker

def check_listenable(addr):
    """Fail unless we can listen on addr now, as memcached will (with
    SO_REUSEADDR, so that connections of a previous run in TIME_WAIT do not
    count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
            s.listen(1)
        except OSError as e:
            raise RoutesError(
                "cannot listen on %s (%s): --unnamed runs each memcached on "
                "the very address and port that nutcracker names the server "
                "after, so that must be free.  Is a memcached listening on "
                "0.0.0.0:%d (a system memcached?), or another run using %s?"
                % (hostport(addr), e.strerror or e, addr[1], hostport(addr)))


def start_memcacheds(n, nkeys, workdir, rng, taken, verbose, fixed=None):
    """One memcached per server; returns (proc, (host, port)) pairs in
    order.  Each listens on a free port of 127.0.0.1, or, with fixed (a
    list of (host, port), one per server), on exactly that address and
    port, or the run fails."""
    user = unprivileged_user() if os.geteuid() == 0 else None
    # Room for every key on one server (memory is only taken as items
    # arrive).  Every item (48-byte header, key of at most 200 bytes, value,
    # CAS) fits one 320-byte slab class, so a memcached touches one 1 MB slab
    # page per 3276 keys and about 1 MB besides.  Without the LRU maintainer
    # items stay in one LRU per class, where the crawler's dump cannot miss
    # them as they move between the hot, warm and cold LRUs.
    mem_mb = max(64, (nkeys * 320) // (1 << 20) + 16)

    def launch(i, addr):
        return spawn([MEMCACHED, "-l", addr[0], "-p", str(addr[1]), "-U", "0",
                      "-t", "1", "-c", "64", "-m", str(mem_mb), "-o",
                      "no_lru_maintainer,hashpower=12,slab_sizes=320"],
                     workdir, os.path.join(workdir, "memcached.%d.log" % i),
                     user)

    def new_addr(i):
        if fixed is not None:
            return fixed[i]
        return ("127.0.0.1", free_port(rng, taken))

    if fixed is not None:
        for addr in fixed:
            check_listenable(addr)
    slots = [None] * n
    pending = {}
    for i in range(n):
        addr = new_addr(i)
        pending[i] = (launch(i, addr), addr, 1)
    deadline = time.monotonic() + START_TIMEOUT + n * 0.05
    while pending:
        if time.monotonic() > deadline:
            raise RoutesError("%d memcached(s) did not start" % len(pending))
        for i, (proc, addr, attempt) in list(pending.items()):
            if proc.poll() is not None:
                err = read_text(os.path.join(workdir, "memcached.%d.log" % i))
                if fixed is not None:
                    raise RoutesError("memcached failed to start on %s "
                                      "(taken since we checked it?): %s"
                                      % (hostport(addr), err))
                if attempt >= 10 or "failed to listen" not in err:
                    raise RoutesError("memcached failed to start: " + err)
                # most likely the port was taken since we tested it
                log(verbose, "memcached on %s exited (%s); retrying"
                    % (hostport(addr), err))
                addr = new_addr(i)
                pending[i] = (launch(i, addr), addr, attempt + 1)
                continue
            s = try_connect(addr)
            if s is None:
                continue
            s.close()
            if memcached_stats(addr).get("pid") != str(proc.pid):
                # someone else's server on that port; ours will fail to bind
                if fixed is not None:
                    raise RoutesError("%s is answered by a process other "
                                      "than our memcached" % hostport(addr))
                if attempt >= 10:
                    raise RoutesError("memcached failed to start: ports "
                                      "keep being taken")
                log(verbose, "%s answered by another process"
                    % hostport(addr))
                CLEANUP.stop([proc])
                addr = new_addr(i)
                pending[i] = (launch(i, addr), addr, attempt + 1)
                continue
            slots[i] = (proc, addr)
            del pending[i]
        if pending:
            time.sleep(0.02)
    return slots


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
                     servers, addrs, unnamed, verbose):
    """Returns the process, a connection to its pool and its log file and
    stats port."""
    for attempt in range(10):
        listen_port = free_port(rng, taken)
        stats_port = free_port(rng, taken)
        write_conf(conf, hash_name, distribution, listen_port, servers,
                   addrs, unnamed)
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
            s = try_connect(("127.0.0.1", listen_port))
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


def nutcracker_server_names(stats_port):
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
    pools = [v for k, v in stats if k == "chash"]
    if len(pools) != 1:
        raise RoutesError("nutcracker's stats hold no pool chash: %r"
                          % bytes(buf[:200]))
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


def holds(addr, keys):
    """Which of the keys one memcached holds, by meta get (mg)."""
    if not keys:
        return []
    with socket.create_connection(addr, timeout=IO_TIMEOUT) as s:
        replies = pipeline(s, [b"mg " + k + b"\r\n" for k in keys], 4,
                           (b"HD\r\n", b"EN\r\n"),
                           "memcached at %s" % hostport(addr))
    return [k for k, r in zip(keys, replies) if r == b"HD\r\n"]


def dump_keys(addr):
    """The keys one memcached lists in lru_crawler metadump, and whether the
    dump ended (False: it sent nothing for DUMP_STALL seconds before its
    END; the keys are those of its complete lines)."""
    for _ in range(1000):
        with socket.create_connection(addr, timeout=IO_TIMEOUT) as s:
            s.sendall(b"lru_crawler metadump all\r\n")
            s.settimeout(DUMP_STALL)
            buf = bytearray()
            ended = True
            while True:
                try:
                    chunk = s.recv(1 << 20)
                except socket.timeout:
                    ended = False
                    break
                if not chunk:
                    raise RoutesError("memcached at %s closed the "
                                      "connection in a metadump"
                                      % hostport(addr))
                buf += chunk
                if buf.endswith(b"END\r\n"):
                    break
                # a one-line refusal instead of a dump
                if buf.endswith(b"\r\n") and buf.count(b"\n") == 1 and \
                        not buf.startswith(b"key="):
                    break
        if buf.startswith(b"BUSY"):
            time.sleep(0.01)
            continue
        keys = []
        lines = bytes(buf).split(b"\n")
        if not ended:
            lines.pop()     # what came after the last newline, if anything
        for line in lines:
            if line.startswith(b"key="):
                enc = line[4:].split(b" ", 1)[0]
                keys.append(urllib.parse.unquote_to_bytes(enc))
            elif line.rstrip(b"\r") not in (b"", b"END"):
                raise RoutesError("memcached at %s: unexpected metadump "
                                  "line %r" % (hostport(addr), line[:200]))
        return keys, ended
    raise RoutesError("memcached at %s: lru crawler stays busy"
                      % hostport(addr))


# ---------------------------------------------------------------------------

def routes(hash_name, distribution, servers, keys, unnamed, verbose):
    t0 = time.monotonic()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = len(servers) + 256
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
    fixed = unnamed_addrs(servers) if unnamed else None
    if fixed is not None:
        taken.update(port for _, port in fixed)

    slots = start_memcacheds(len(servers), len(distinct), workdir, rng, taken,
                             verbose, fixed)
    addrs = [addr for _, addr in slots]
    t1 = time.monotonic()
    log(verbose, "%d memcached started in %.2fs" % (len(slots), t1 - t0))

    conf = os.path.join(workdir, "nutcracker.yml")
    proc, sock, logfile, stats_port = start_nutcracker(
        conf, workdir, rng, taken, hash_name, distribution, servers, addrs,
        unnamed, verbose)
    t2 = time.monotonic()
    log(verbose, "nutcracker started in %.2fs" % (t2 - t1))
    if unnamed:
        # nutcracker's own word on the names it gave the servers (the
        # routes below are the proof that it hashes them)
        got = nutcracker_server_names(stats_port)
        want = [name for name, _ in servers]
        if sorted(got) != sorted(want):
            raise RoutesError("nutcracker names the servers %s, not %s"
                              % (", ".join(sorted(got)),
                                 ", ".join(sorted(want))))
        log(verbose, "nutcracker's stats name the servers as SERVERS does")

    with sock:
        set_all(sock, distinct)
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

    # Where each key is: the LRU crawler's dump says where to look, a meta
    # get on that server confirms it, and keys not confirmed are looked for
    # on every server.  With every key confirmed somewhere and as many items
    # on the servers as keys, no key is on two servers.
    candidates = [[] for _ in slots]
    total_items = 0
    for i, (mc, addr) in enumerate(slots):
        dumped, ended = dump_keys(addr)
        if not ended:
            log(True, "warning: the metadump of memcached at %s sent no END "
                "(nothing for %.0f s after %d keys); its other keys are "
                "looked for on every server"
                % (hostport(addr), DUMP_STALL, len(dumped)))
        for k in dict.fromkeys(dumped):
            candidates[i].append(k)
        stats = memcached_stats(addr)
        if stats.get("evictions") != "0":
            raise RoutesError("memcached of server %r evicted items"
                              % servers[i][0])
        total_items += int(stats["curr_items"])
    owner = {}
    for i, (mc, addr) in enumerate(slots):
        for k in holds(addr, candidates[i]):
            if k in owner:
                raise RoutesError("key %r is on both %r and %r"
                                  % (k, servers[owner[k]][0], servers[i][0]))
            owner[k] = i
    unconfirmed = [k for k in distinct if k not in owner]
    if unconfirmed:
        log(verbose, "%d key(s) missing from the dumps; looking on every "
            "server" % len(unconfirmed))
        for i, (mc, addr) in enumerate(slots):
            for k in holds(addr, unconfirmed):
                if k in owner:
                    raise RoutesError("key %r is on both %r and %r"
                                      % (k, servers[owner[k]][0],
                                         servers[i][0]))
                owner[k] = i
    t4 = time.monotonic()
    log(verbose, "%d servers searched in %.2fs" % (len(slots), t4 - t3))

    missing = [k for k in distinct if k not in owner]
    if missing:
        raise RoutesError("%d key(s) on no server, first %r"
                          % (len(missing), missing[0]))
    if total_items != len(distinct):
        raise RoutesError("%d items on the servers for %d distinct keys"
                          % (total_items, len(distinct)))
    return [servers[owner[k]][0] for k in keys]


def main():
    ap = argparse.ArgumentParser(
        description="The server real nutcracker routes each key to.")
    ap.add_argument("--hash", required=True, choices=HASHES,
                    help="nutcracker's key hash (pool setting hash:)")
    ap.add_argument("--distribution", default="ketama", choices=DISTRIBUTIONS,
                    help="nutcracker's distribution (default ketama)")
    ap.add_argument("--unnamed", action="store_true",
                    help="servers without names: SERVERS names are HOST "
                    "(port 11211) or HOST:PORT, HOST a 127.x.y.z address; "
                    "each memcached listens there")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="report progress and timings on stderr")
    ap.add_argument("servers", help="TSV file: name<TAB>weight per line")
    ap.add_argument("keys", help="one key per line")
    args = ap.parse_args()

    for tool in (NUTCRACKER, MEMCACHED):
        if shutil.which(tool) is None:
            print("twemproxy_routes: %s not found (Debian package %s)"
                  % (tool, "nutcracker" if tool == NUTCRACKER else "memcached"),
                  file=sys.stderr)
            return 2

    atexit.register(CLEANUP.run)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        servers = read_servers(args.servers)
        keys = read_keys(args.keys)
        result = routes(args.hash, args.distribution, servers, keys,
                        args.unnamed, args.verbose)
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
