#!/usr/bin/python3
"""Drive a real Redis Cluster on loopback (Debian redis-server, redis-tools).

    redis_cluster.py start DIR MASTERS [SLOT_COUNTS]
    redis_cluster.py nodes DIR
    redis_cluster.py shards|shards_resp2 DIR
    redis_cluster.py keyslots DIR KEYS > SLOTS
    redis_cluster.py owners DIR KEYS > OWNERS
    redis_cluster.py slot_owners DIR > SLOT_OWNERS
    redis_cluster.py reshard DIR FROM_INDEX TO_INDEX NSLOTS
    redis_cluster.py add_master DIR
    redis_cluster.py rebalance DIR [--threshold PCT] [INDEX=WEIGHT ...]
    redis_cluster.py stop DIR

start: MASTERS (1 to 10) redis-server processes, cluster-enabled, no
persistence, bound to 127.0.0.1 only, each in its own DIR/node-PORT with its
redis.conf, nodes.conf, log and pid.  Ports are picked at run time from
20000-22767, so that the port and its cluster bus port (port + 10000,
30000-32767) are both outside Linux's ephemeral range; both must be free,
and a server that fails to start is retried on other ports.  The cluster
is made by "redis-cli --cluster create 127.0.0.1:P1 ... --cluster-replicas
0 --cluster-yes" (all on one IP, so the masters are in command-line order).
redis-cli refuses fewer than 3 masters; for 1 or 2 the cluster is made by
hand as redis-cli would split it (CLUSTER ADDSLOTSRANGE by the same float
cursor, distinct config epochs, CLUSTER MEET).  With SLOT_COUNTS (one
count a master, comma-separated, adding up to 16384) the cluster is made
so by hand for any number of masters: master i gets the next SLOT_COUNTS[i]
slots, in order, as if redis-cli had created it and then resharded.  Every server has
cluster-announce-ip 127.0.0.1: else a lone master, never met by another,
names itself ":PORT@CPORT" and has an empty IP in CLUSTER SLOTS.
DIR/ports gets the ports, one a line, in command-line order; the servers
are numbered 1.. in that order (INDEX below).

nodes: what CLUSTER NODES of the first server returns, byte for byte.

shards, shards_resp2: what "redis-cli --json CLUSTER SHARDS" (with -2: its
RESP2 form, maps as lists of keys and values) prints for the first server.

keyslots: KEYS has one key a line (UTF-8; an empty line is the empty key;
no CR or LF in keys); prints CLUSTER KEYSLOT of each, one a line, in order.

owners: "ip:port" of the master serving each key of KEYS, as the cluster
says: GET of every key sent to the first server; a value or nil means it
serves the key, "-MOVED slot ip:port" names the owner.  -ASK,
-CLUSTERDOWN, -TRYAGAIN or any other error fails the run.

slot_owners: "slot<TAB>ip:port" for slots 0 to 16383, from CLUSTER SLOTS of
the first server; fails if a slot has no master or two.

reshard: "redis-cli --cluster reshard" of NSLOTS slots from master
FROM_INDEX to master TO_INDEX (1-based, DIR/ports order).  Prints the
number of slots whose master changed.

add_master: one more server, added empty with "redis-cli --cluster
add-node"; its port is appended to DIR/ports and printed.

rebalance: "redis-cli --cluster rebalance --cluster-use-empty-masters",
with "--cluster-weight ID=W" for each INDEX=WEIGHT.  redis-cli skips the
rebalance unless some master is off its expected share by more than the
threshold (default 2%); this passes --cluster-threshold PCT, by default
0.001, i.e. any difference at all (the smallest possible one is 1/16384 =
0.006%).  Prints the number of slots whose master changed, which must be
the sum of redis-cli's "Moving N slots" lines.  With that default, every
run moves the masters that are one slot over their truncated share
(int(16384 / total weight * w)), so a second run moves slots again (4 of
them for 10 equal masters, 1 for 3); --threshold 2 is redis-cli's default.

After start, reshard, add_master and rebalance the run waits (60 s at
most) until every server reports cluster_state:ok with all 16384 slots
assigned, knows every server, and every server's CLUSTER NODES gives the
same nodes and the same slot map with no migration in progress.

stop: SHUTDOWN NOSAVE to every server of DIR (every DIR/node-*, so it also
works after a partial start), then SIGTERM and SIGKILL by pid for any still
alive.  Succeeds when they are already stopped.

Every subcommand exits non-zero with a message on stderr on failure.
redis-cli's output goes to DIR/redis-cli.log.  Standard library only (RESP
spoken directly, pipelined); run with /usr/bin/python3.
"""
import math
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

PROG = "redis_cluster.py"
SLOTS = 16384
HOST = "127.0.0.1"
PORT_MIN, PORT_MAX = 20000, 22767   # bus ports 30000-32767
BUS_OFFSET = 10000
MAX_MASTERS = 10
AGREE_TIMEOUT = 60.0
START_TIMEOUT = 15.0
BATCH = 10000


def die(msg):
    sys.exit(f"{PROG}: {msg}")


# A signal (SIGTERM from a test's trap, Ctrl-C) ends the run by SystemExit,
# so that "start" stops what it started; but not between starting a server
# and writing down its pid, where it waits (blocking the signal instead
# would leave it blocked in the server, which inherits the mask).
_critical = []
_pending = []


def on_signal(sig, frame):
    if _critical:
        _pending.append(sig)
        return
    sys.exit(f"{PROG}: killed by signal {sig}")


class critical:
    def __enter__(self):
        _critical.append(1)

    def __exit__(self, *exc):
        _critical.pop()
        if not _critical and _pending:
            sys.exit(f"{PROG}: killed by signal {_pending[0]}")


# ---------------------------------------------------------------- RESP


class Error:
    """An error reply (-ERR ...), returned, not raised, so that pipelined
    replies stay in step."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"Error({self.text!r})"


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode("utf-8")
        elif isinstance(a, int):
            a = b"%d" % a
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self, port, timeout=60.0):
        self.port = port
        try:
            self.sock = socket.create_connection((HOST, port), timeout=timeout)
        except OSError as e:
            raise ConnectionError(f"cannot connect to {HOST}:{port}: {e}")
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.sock.makefile("rb", buffering=1 << 16)

    def close(self):
        try:
            self.f.close()
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise ConnectionError(f"{HOST}:{self.port}: send: {e}")

    def _line(self):
        try:
            line = self.f.readline()
        except OSError as e:
            raise ConnectionError(f"{HOST}:{self.port}: read: {e}")
        if not line.endswith(b"\r\n"):
            raise ConnectionError(f"{HOST}:{self.port}: connection closed "
                                  f"or bad reply {line[:80]!r}")
        return line[:-2]

    def read(self):
        line = self._line()
        t, body = line[:1], line[1:]
        if t == b"+":
            return body.decode("utf-8", "replace")
        if t == b"-":
            return Error(body.decode("utf-8", "replace"))
        if t == b":":
            return int(body)
        if t == b"$":
            n = int(body)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            if len(data) != n + 2 or data[-2:] != b"\r\n":
                raise ConnectionError(f"{HOST}:{self.port}: short bulk reply")
            return data[:-2]
        if t == b"*":
            n = int(body)
            if n < 0:
                return None
            return [self.read() for _ in range(n)]
        raise ConnectionError(f"{HOST}:{self.port}: bad reply {line[:80]!r}")

    def call(self, *args):
        self.send(encode(args))
        return self.read()

    def ok(self, *args):
        """call, failing on an error reply"""
        r = self.call(*args)
        if isinstance(r, Error):
            raise ConnectionError(f"{HOST}:{self.port}: "
                                  f"{' '.join(map(str, args))}: {r.text}")
        return r

    def pipeline(self, commands):
        """Send every command, pipelined in batches (the next batch is sent
        before the replies of the previous one are read), then a PING, which
        must answer PONG: so there was exactly one reply per command."""
        commands = list(commands)
        replies = []
        batches = [commands[i:i + BATCH]
                   for i in range(0, len(commands), BATCH)]
        pending = 0
        for batch in batches:
            self.send(b"".join(encode(c) for c in batch))
            for _ in range(pending):
                replies.append(self.read())
            pending = len(batch)
        self.send(encode(["PING"]))
        for _ in range(pending):
            replies.append(self.read())
        pong = self.read()
        if pong != "PONG" or len(replies) != len(commands):
            raise ConnectionError(f"{HOST}:{self.port}: replies out of step "
                                  f"({len(replies)} for {len(commands)} "
                                  f"commands, then {pong!r})")
        return replies


def call_once(port, *args):
    c = Conn(port)
    try:
        return c.ok(*args)
    finally:
        c.close()


# ---------------------------------------------------------------- files


def read_ports(d):
    path = os.path.join(d, "ports")
    try:
        with open(path, encoding="ascii") as f:
            ports = [int(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        die(f"cannot read {path}: {e}")
    if not ports:
        die(f"{path}: no ports")
    return ports


def write_ports(d, ports):
    tmp = os.path.join(d, "ports.tmp")
    with open(tmp, "w", encoding="ascii") as f:
        f.write("".join(f"{p}\n" for p in ports))
    os.replace(tmp, os.path.join(d, "ports"))


def read_keys(path):
    """Keys as bytes, one a line; the newline after the last is optional."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(f"cannot read {path}: {e}")
    if not data:
        return []
    if b"\r" in data:
        die(f"{path}: keys contain CR (CRLF line ends?)")
    keys = data.split(b"\n")
    if data.endswith(b"\n"):
        keys.pop()
    return keys


def out_lines(lines):
    sys.stdout.buffer.write("".join(f"{x}\n" for x in lines).encode("utf-8"))
    sys.stdout.buffer.flush()


# ---------------------------------------------------------------- servers


def port_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((HOST, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def pick_port(taken):
    for _ in range(1000):
        p = random.randint(PORT_MIN, PORT_MAX)
        if p in taken or p + BUS_OFFSET in taken:
            continue
        if port_free(p) and port_free(p + BUS_OFFSET):
            return p
    die(f"no free port pair in {PORT_MIN}-{PORT_MAX} (+{BUS_OFFSET})")


def conf_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def spawn(d, port):
    """Start one redis-server on port; returns (process, node dir)."""
    exe = shutil.which("redis-server")
    if exe is None:
        die("redis-server not found (apt-get install redis-server)")
    nd = os.path.join(d, f"node-{port}")
    os.makedirs(nd, exist_ok=True)
    conf = os.path.join(nd, "redis.conf")
    with open(conf, "w", encoding="utf-8") as f:
        f.write("\n".join([
            f"port {port}",
            f"bind {HOST}",
            "protected-mode no",
            "daemonize no",
            f"dir {conf_quote(nd)}",
            f"pidfile {conf_quote(os.path.join(nd, 'redis.pid'))}",
            'logfile ""',
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            # else a lone master, never met by another, names itself
            # ":PORT@CPORT" and CLUSTER SLOTS gives it an empty IP
            f"cluster-announce-ip {HOST}",
            "cluster-node-timeout 5000",
            "appendonly no",
            'save ""',
            "",
        ]))
    with critical():
        with open(os.path.join(nd, "redis.log"), "ab") as log:
            proc = subprocess.Popen([exe, conf], cwd=nd,
                                    stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT,
                                    start_new_session=True, close_fds=True)
        with open(os.path.join(nd, "pid"), "w", encoding="ascii") as f:
            f.write(f"{proc.pid}\n")
    return proc, nd


def log_tail(nd, n=5):
    try:
        with open(os.path.join(nd, "redis.log"), "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def wait_up(proc, port, deadline):
    """True once the server answers PING, False if it exited.  The server
    that answers must be proc: another suite's server may have taken the
    port after pick_port found it free, and answer before proc, which
    could not bind it, exits."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            c = Conn(port, timeout=2)
            try:
                if c.call("PING") == "PONG":
                    info = c.call("INFO", "server")
                    if isinstance(info, bytes):
                        info = info.decode("utf-8", "replace")
                    m = re.search(r"^process_id:(\d+)", str(info), re.M)
                    if m and int(m.group(1)) == proc.pid:
                        return True
                    if m:
                        # not ours: ours cannot have bound the port
                        proc.wait()
                        return False
            finally:
                c.close()
        except (ConnectionError, OSError):
            pass
        time.sleep(0.05)
    return None


def start_servers(d, count, taken):
    """count servers, retried on other ports if one fails; their ports."""
    slots = [None] * count
    tries = 0
    while True:
        started = []
        for i in range(count):
            if slots[i] is None:
                port = pick_port(taken)
                taken.update((port, port + BUS_OFFSET))
                proc, nd = spawn(d, port)
                started.append((i, port, proc, nd))
        if not started:
            return slots
        deadline = time.monotonic() + START_TIMEOUT
        for i, port, proc, nd in started:
            up = wait_up(proc, port, deadline)
            if up:
                slots[i] = port
                continue
            if up is None:
                die(f"redis-server on port {port} did not answer in "
                    f"{START_TIMEOUT:.0f} s: {log_tail(nd)}")
            tries += 1
            if tries > 20:
                die(f"redis-server keeps failing to start; last, on port "
                    f"{port}: {log_tail(nd)}")
            shutil.rmtree(nd, ignore_errors=True)


def pid_alive(pid, port):
    """True if pid is a live (not zombie) redis-server of port: its command
    line is "redis-server 127.0.0.1:PORT [cluster]" once it runs, and names
    DIR/node-PORT/redis.conf before."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        return False
    state = stat[stat.rfind(b")") + 2:][:1]
    return (state not in (b"Z", b"X") and b"redis-server" in cmd
            and str(port).encode() in cmd)


def stop_dir(d):
    nodes = []
    try:
        names = sorted(os.listdir(d))
    except FileNotFoundError:
        return
    for name in names:
        if not name.startswith("node-"):
            continue
        nd = os.path.join(d, name)
        try:
            port = int(name[5:])
        except ValueError:
            continue
        # our own record, else the server's pidfile
        for pidfile in ("pid", "redis.pid"):
            try:
                with open(os.path.join(nd, pidfile), encoding="ascii") as f:
                    pid = int(f.read().strip())
            except (ValueError, OSError):
                continue
            if pid_alive(pid, port):
                nodes.append((port, pid))
                break
    for port, pid in nodes:
        try:
            c = Conn(port, timeout=5)
            try:
                c.send(encode(["SHUTDOWN", "NOSAVE"]))
                c.read()   # nothing comes back: the server closes
            finally:
                c.close()
        except (ConnectionError, OSError):
            pass
    for sig, wait in ((None, 5.0), (signal.SIGTERM, 5.0),
                      (signal.SIGKILL, 5.0)):
        alive = [(p, pid) for p, pid in nodes if pid_alive(pid, p)]
        if not alive:
            return
        if sig is not None:
            for _, pid in alive:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(
                pid_alive(pid, p) for p, pid in alive):
            time.sleep(0.05)
        nodes = alive
    left = [f"{p} (pid {pid})" for p, pid in nodes if pid_alive(pid, p)]
    if left:
        die(f"could not stop redis-server on ports {', '.join(left)}")


# ---------------------------------------------------------------- cluster


def node_name(addr):
    """ip:port of a CLUSTER NODES address ip:port@cport[,hostname...]"""
    return addr.split("@", 1)[0].split(",", 1)[0]


def parse_nodes(text):
    """CLUSTER NODES -> (nodes {id: (ip:port, flags, link state)}, myself
    id, slot map [id or None] * 16384, migration markers present?)"""
    nodes, myself, migrating = {}, None, False
    owner = [None] * SLOTS
    for line in text.splitlines():
        if not line.strip():
            continue
        f = line.split(" ")
        if len(f) < 8:
            raise ConnectionError(f"bad CLUSTER NODES line {line!r}")
        nid, addr, flags = f[0], f[1], set(f[2].split(","))
        nodes[nid] = (node_name(addr), flags, f[7])
        if "myself" in flags:
            myself = nid
        for s in f[8:]:
            if s.startswith("["):
                migrating = True
                continue
            a, _, b = s.partition("-")
            a, b = int(a), int(b or a)
            if "master" not in flags:
                raise ConnectionError(f"slots on a non-master: {line!r}")
            for slot in range(a, b + 1):
                if owner[slot] is not None:
                    raise ConnectionError(f"slot {slot} listed twice")
                owner[slot] = nid
    return nodes, myself, owner, migrating


def cluster_view(port):
    """(info dict, parsed CLUSTER NODES) of one server"""
    c = Conn(port, timeout=10)
    try:
        info = c.ok("CLUSTER", "INFO").decode("utf-8", "replace")
        text = c.ok("CLUSTER", "NODES").decode("utf-8", "replace")
    finally:
        c.close()
    kv = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return kv, parse_nodes(text)


def disagreement(ports):
    """(None, slot map {slot: ip:port}) if all servers agree and the
    cluster is ok, else (why not, None)."""
    ref = None
    for port in ports:
        try:
            info, (nodes, myself, owner, migrating) = cluster_view(port)
        except (ConnectionError, OSError, ValueError) as e:
            return str(e), None
        me = f"{HOST}:{port}"
        if info.get("cluster_state") != "ok":
            return f"{me}: cluster_state:{info.get('cluster_state')}", None
        if info.get("cluster_slots_assigned") != str(SLOTS):
            return f"{me}: cluster_slots_assigned:" \
                   f"{info.get('cluster_slots_assigned')}", None
        if info.get("cluster_known_nodes") != str(len(ports)):
            return f"{me}: cluster_known_nodes:" \
                   f"{info.get('cluster_known_nodes')}, want {len(ports)}", \
                   None
        if migrating:
            return f"{me}: a slot migration is in progress", None
        for nid, (name, flags, link) in nodes.items():
            bad = flags & {"fail", "fail?", "handshake", "noaddr"}
            if bad or (nid != myself and link != "connected"):
                state = ",".join(sorted(flags))
                return f"{me}: node {nid} {name} is {state} {link}", None
        if myself is None or nodes[myself][0] != me:
            return f"{me}: does not name itself {me}", None
        names = {nid: nodes[nid][0] for nid in nodes}
        view = (sorted(names.items()), owner)
        if ref is None:
            ref = view
        elif view != ref:
            return f"{me}: its nodes or slot map differ from " \
                   f"{HOST}:{ports[0]}'s", None
    names = dict(ref[0])
    if sorted(names.values()) != sorted(f"{HOST}:{p}" for p in ports):
        return f"the cluster's nodes {sorted(names.values())} are not the " \
               f"servers of DIR/ports", None
    return None, {s: names[n] for s, n in enumerate(ref[1])}


def wait_agreement(ports, timeout=AGREE_TIMEOUT):
    """The slot map ({slot: ip:port}) once every server agrees."""
    deadline = time.monotonic() + timeout
    while True:
        why, owners = disagreement(ports)
        if why is None:
            # twice in a row, 50 ms apart, to be sure it has settled
            time.sleep(0.05)
            why, again = disagreement(ports)
            if why is None and again == owners:
                return owners
        if time.monotonic() > deadline:
            die(f"the cluster did not settle in {timeout:.0f} s: {why}")
        time.sleep(0.1)


def check_up(ports):
    """Every server answers PING and the first says cluster_state:ok."""
    for port in ports:
        try:
            pong = call_once(port, "PING")
        except (ConnectionError, OSError) as e:
            die(f"server {HOST}:{port} is down: {e}")
        if pong != "PONG":
            die(f"server {HOST}:{port} answers PING with {pong!r}")
    info = call_once(ports[0], "CLUSTER", "INFO").decode("utf-8", "replace")
    if "cluster_state:ok" not in info.splitlines():
        state = [x for x in info.splitlines() if x.startswith("cluster_state")]
        die(f"{HOST}:{ports[0]}: {' '.join(state) or 'no cluster_state'}")


def my_id(port):
    text = call_once(port, "CLUSTER", "MYID")
    return text.decode("ascii")


def redis_cli(d, args):
    exe = shutil.which("redis-cli")
    if exe is None:
        die("redis-cli not found (apt-get install redis-tools)")
    cmd = [exe] + args
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=600)
    except subprocess.TimeoutExpired:
        die(f"{' '.join(cmd)}: timed out")
    out = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout.decode("utf-8", "replace"))
    with open(os.path.join(d, "redis-cli.log"), "a", encoding="utf-8") as f:
        f.write(f"$ {' '.join(cmd)}\n{out}(exit {r.returncode})\n")
    if r.returncode != 0:
        tail = " | ".join(out.strip().splitlines()[-5:])
        die(f"{' '.join(cmd[1:4])} failed (exit {r.returncode}): {tail}")
    return out


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def create_split(m):
    """redis-cli's clusterManagerCommandCreate split (float arithmetic):
    [(first, last)] per master."""
    spn = f32(SLOTS / f32(m))
    first, cursor, out = 0, f32(0.0), []
    for i in range(m):
        x = f32(f32(cursor + spn) - 1)
        last = int(math.floor(x + 0.5))  # lround, x >= 0
        if last > SLOTS or i == m - 1:
            last = SLOTS - 1
        last = max(last, first)
        out.append((first, last))
        first = last + 1
        cursor = f32(cursor + spn)
    return out


def counts_split(counts):
    """[(first, last)] per master of contiguous ranges of those sizes"""
    first, out = 0, []
    for n in counts:
        out.append((first, first + n - 1))
        first += n
    return out


def create_by_hand(ports, split=None):
    """What redis-cli --cluster create does, for 1 or 2 masters; or with
    split, [(first, last)] per master, those ranges (none if last <
    first)."""
    split = split or create_split(len(ports))
    for i, (port, (a, b)) in enumerate(zip(ports, split)):
        c = Conn(port)
        try:
            if b >= a:
                c.ok("CLUSTER", "ADDSLOTSRANGE", a, b)
            c.ok("CLUSTER", "SET-CONFIG-EPOCH", i + 1)
        finally:
            c.close()
    for port in ports[1:]:
        call_once(ports[0], "CLUSTER", "MEET", HOST, port)


def slot_map_changes(before, after):
    return sum(1 for s in range(SLOTS) if before[s] != after[s])


# ---------------------------------------------------------------- commands


def cmd_start(d, masters, counts=None):
    try:
        m = int(masters)
    except ValueError:
        die(f"MASTERS must be an integer, not {masters!r}")
    if not 1 <= m <= MAX_MASTERS:
        die(f"MASTERS must be 1 to {MAX_MASTERS}, not {m}")
    split = None
    if counts is not None:
        try:
            n = [int(x) for x in counts.split(",")]
        except ValueError:
            die(f"bad SLOT_COUNTS {counts!r}")
        if len(n) != m or min(n) < 0 or sum(n) != SLOTS:
            die(f"SLOT_COUNTS must be {m} counts of at least 0 that add "
                f"up to {SLOTS}, not {counts!r}")
        split = counts_split(n)
    os.makedirs(d, exist_ok=True)
    if os.path.exists(os.path.join(d, "ports")):
        die(f"{d}/ports exists: a cluster was already started there")
    ok = False
    try:
        ports = start_servers(d, m, set())
        write_ports(d, ports)
        if split is not None:
            create_by_hand(ports, split)
        elif m >= 3:
            redis_cli(d, ["--cluster", "create"]
                      + [f"{HOST}:{p}" for p in ports]
                      + ["--cluster-replicas", "0", "--cluster-yes"])
        else:
            create_by_hand(ports)
        wait_agreement(ports)
        ok = True
    finally:
        if not ok:
            stop_dir(d)


def cmd_nodes(d):
    ports = read_ports(d)
    text = call_once(ports[0], "CLUSTER", "NODES")
    sys.stdout.buffer.write(text)
    sys.stdout.buffer.flush()


def cmd_shards(d, resp2):
    ports = read_ports(d)
    args = ["-p", str(ports[0])] + (["-2"] if resp2 else []) + ["--json", "CLUSTER", "SHARDS"]
    sys.stdout.write(redis_cli(d, args))
    sys.stdout.flush()


def cmd_keyslots(d, keys_path):
    ports = read_ports(d)
    keys = read_keys(keys_path)
    c = Conn(ports[0])
    try:
        replies = c.pipeline([b"CLUSTER", b"KEYSLOT", k] for k in keys)
    finally:
        c.close()
    for k, r in zip(keys, replies):
        if not isinstance(r, int) or not 0 <= r < SLOTS:
            die(f"CLUSTER KEYSLOT {k!r}: {r!r}")
    out_lines(replies)


def cmd_owners(d, keys_path):
    ports = read_ports(d)
    keys = read_keys(keys_path)
    check_up(ports)
    c = Conn(ports[0])
    try:
        nodes, myself, _, _ = parse_nodes(
            c.ok("CLUSTER", "NODES").decode("utf-8", "replace"))
        me = f"{HOST}:{ports[0]}"
        if nodes[myself][0] != me:
            die(f"{me} names itself {nodes[myself][0]!r}")
        masters = {name for name, flags, _ in nodes.values()
                   if "master" in flags}
        replies = c.pipeline([b"GET", k] for k in keys)
    finally:
        c.close()
    out = []
    for k, r in zip(keys, replies):
        if r is None or isinstance(r, bytes):
            out.append(me)
            continue
        if isinstance(r, Error):
            f = r.text.split(" ")
            if f[0] == "MOVED" and len(f) == 3 and f[2] in masters:
                out.append(f[2])
                continue
            if f[0] == "WRONGTYPE":   # a key of another type: served here
                out.append(me)
                continue
        die(f"GET {k!r} on {me}: {r!r}")
    out_lines(out)


def cmd_slot_owners(d):
    ports = read_ports(d)
    check_up(ports)
    reply = call_once(ports[0], "CLUSTER", "SLOTS")
    owner = [None] * SLOTS
    for entry in reply:
        a, b, master = entry[0], entry[1], entry[2]
        ip = master[0].decode("utf-8", "replace")
        if not ip:
            die(f"CLUSTER SLOTS: no address for slots {a}-{b}")
        name = f"{ip}:{master[1]}"
        for s in range(a, b + 1):
            if owner[s] is not None:
                die(f"CLUSTER SLOTS: slot {s} has two masters")
            owner[s] = name
    missing = [s for s in range(SLOTS) if owner[s] is None]
    if missing:
        die(f"CLUSTER SLOTS: {len(missing)} slots have no master, "
            f"the first {missing[0]}")
    out_lines(f"{s}\t{o}" for s, o in enumerate(owner))


def index_port(ports, index):
    try:
        i = int(index)
    except ValueError:
        die(f"bad index {index!r}")
    if not 1 <= i <= len(ports):
        die(f"index {i} not in 1..{len(ports)}")
    return ports[i - 1]


def cmd_reshard(d, frm, to, nslots):
    ports = read_ports(d)
    src, dst = index_port(ports, frm), index_port(ports, to)
    try:
        n = int(nslots)
    except ValueError:
        die(f"bad NSLOTS {nslots!r}")
    check_up(ports)
    before = wait_agreement(ports)
    redis_cli(d, ["--cluster", "reshard", f"{HOST}:{ports[0]}",
                  "--cluster-from", my_id(src), "--cluster-to", my_id(dst),
                  "--cluster-slots", str(n), "--cluster-yes"])
    after = wait_agreement(ports)
    out_lines([slot_map_changes(before, after)])


def cmd_add_master(d):
    ports = read_ports(d)
    check_up(ports)
    wait_agreement(ports)
    taken = set(ports) | {p + BUS_OFFSET for p in ports}
    port = start_servers(d, 1, taken)[0]
    redis_cli(d, ["--cluster", "add-node", f"{HOST}:{port}",
                  f"{HOST}:{ports[0]}"])
    ports.append(port)
    write_ports(d, ports)
    wait_agreement(ports)
    out_lines([port])


def cmd_rebalance(d, args):
    ports = read_ports(d)
    threshold = "0.001"
    weights = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--threshold" and i + 1 < len(args):
            threshold = args[i + 1]
            i += 2
            continue
        idx, eq, w = a.partition("=")
        try:
            float(w)
        except ValueError:
            eq = ""
        if not eq:
            die(f"bad weight {a!r} (want INDEX=WEIGHT)")
        weights.append(f"{my_id(index_port(ports, idx))}={w}")
        i += 1
    check_up(ports)
    before = wait_agreement(ports)
    args = ["--cluster", "rebalance", f"{HOST}:{ports[0]}",
            "--cluster-use-empty-masters", "--cluster-threshold", threshold]
    if weights:
        args += ["--cluster-weight"] + weights
    out = redis_cli(d, args)
    after = wait_agreement(ports)
    said = sum(int(line.split()[1]) for line in out.splitlines()
               if line.startswith("Moving ") and " slots from " in line)
    moved = slot_map_changes(before, after)
    if said != moved:
        die(f"redis-cli said it moved {said} slots, "
            f"but {moved} changed master")
    out_lines([moved])


def cmd_stop(d):
    stop_dir(d)


COMMANDS = {
    "start": (cmd_start, 2), "nodes": (cmd_nodes, 1),
    "shards": (lambda d: cmd_shards(d, False), 1),
    "shards_resp2": (lambda d: cmd_shards(d, True), 1),
    "keyslots": (cmd_keyslots, 2), "owners": (cmd_owners, 2),
    "slot_owners": (cmd_slot_owners, 1), "reshard": (cmd_reshard, 4),
    "add_master": (cmd_add_master, 1), "stop": (cmd_stop, 1),
}


def main(argv):
    if len(argv) < 3:
        sys.exit("usage:\n" + __doc__.split("\n\n")[1])
    name, d, rest = argv[1], os.path.abspath(argv[2]), argv[3:]
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    try:
        if name == "rebalance":
            cmd_rebalance(d, rest)
            return
        if name == "start" and len(rest) == 2:
            cmd_start(d, *rest)
            return
        if name not in COMMANDS or len(rest) + 1 != COMMANDS[name][1]:
            sys.exit("usage:\n" + __doc__.split("\n\n")[1])
        COMMANDS[name][0](d, *rest)
    except (ConnectionError, OSError, ValueError, IndexError, TypeError) as e:
        die(f"{name}: {e}")


if __name__ == "__main__":
    main(sys.argv)
