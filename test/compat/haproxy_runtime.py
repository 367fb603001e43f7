#!/usr/bin/python3
"""Drive a running HAProxy through its Runtime API (test/scripts/export_haproxy.sh).

Usage:
    haproxy_runtime.py ports N
    haproxy_runtime.py config DIR BACKEND ADDRESSES
    haproxy_runtime.py apply DIR COMMANDS first|again
    haproxy_runtime.py pid DIR
    haproxy_runtime.py state DIR BACKEND_NAME
    haproxy_runtime.py route DIR KEYS > ROUTES

ports: N free TCP ports of 127.0.0.1, one a line (asked of the kernel:
bound to port 0, then closed).

config: DIR/haproxy.cfg, for "haproxy -db -f DIR/haproxy.cfg": its stats
socket DIR/stats.sock (level admin), the balancing frontend on the unix
socket DIR/front.sock, the backend section in file BACKEND as it is (the
output of chash_export(ring, 'haproxy', '{"balance": "hdr(X-Key)"}')),
and one echo frontend per line of ADDRESSES (127.0.0.1:PORT or
unix@/PATH: every address a server of the test may have) that answers
"TOKEN ADDRESS", so that each answer says which address the request
reached; the frontend also adds the name of the server HAProxy chose
(X-Srv: %[srv_name]).  No health checks, "retries 0", no redispatch:
only the hash picks a server.  HAProxy keeps its connections to the
servers alive and reuses them (its defaults: a connection a request would
leave 100,000 sockets in TIME_WAIT a run, which slowed a run sixfold on a
busy machine), but each echo frontend closes a connection idle for 200 ms,
so that a server is left without idle connections soon after the keys
are routed, and "del server" is not refused for long.

apply: each line of COMMANDS (the commands of chash_export_plan(from, to,
'haproxy_runtime'), steps 1 and up) sent on a connection of its own to
the stats socket, as "socat stdio SOCKET" does; prints "ANSWER<TAB>COMMAND"
a line.  "first": every answer must be a success (empty, "New server
registered." or "Server deleted."); "again" (the same commands sent a
second time): each must be a success or one of the answers the plan's
step 0 documents as harmless on a re-run ("No such server.", "custom id
N already used ... ('server NAME')" for the server the command adds).
Any other answer fails the run.  "del server" answered "Server still has
connections attached to it" is sent again (every 0.1 s, 30 s at most), as
step 0 says; the count of such retries is printed on stderr.

pid: the Pid line of "show info".

state: "NAME<TAB>ID<TAB>WEIGHT<TAB>MAINT" a server of backend BACKEND_NAME,
sorted by name, from "show servers state" (MAINT 1 when an admin
maintenance flag is set, else 0).

route: each line of KEYS sent as header "X-Key: KEY" (pipelined HTTP/1.1,
as test/compat/haproxy_routes.py does); prints "KEY<TAB>SERVER<TAB>ADDRESS"
a key: the server HAProxy chose and the address that answered.  Every
answer must be 200 from one of our echo frontends (the token of DIR).

Standard library only; run with /usr/bin/python3.
"""

import os
import re
import secrets
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proxy_driver import RoutesError, pipeline  # noqa: E402

IO_TIMEOUT = 120.0
WINDOW = 64
CONNECTIONS = 8
PROG = "haproxy_runtime"
ADDRESS_RE = re.compile(r"^(127\.0\.0\.1:[0-9]{1,5}|unix@/[A-Za-z0-9_./-]+)$")
ECHO_KEEPALIVE = "200ms"  # an echo frontend closes a connection idle so long
OK_FIRST = re.compile(r"^(|New server registered\.|Server deleted\.)$")
BUSY = "Server still has connections attached to it, cannot remove it."


def ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def config(workdir, backend_file, addresses_file):
    with open(backend_file, encoding="utf-8") as f:
        backend = [line.rstrip("\n") for line in f if line.strip()]
    words = backend[0].split() if backend else []
    if len(words) != 2 or words[0] != "backend":
        raise RoutesError("%s: not a backend section" % backend_file)
    with open(addresses_file, encoding="utf-8") as f:
        addresses = [line.strip() for line in f if line.strip()]
    for a in addresses:
        if not ADDRESS_RE.match(a):
            raise RoutesError("address %r is neither 127.0.0.1:PORT nor "
                              "unix@/PATH" % a)
    if len(set(addresses)) != len(addresses):
        raise RoutesError("duplicate addresses")
    token = secrets.token_hex(8)
    p = lambda sub: '"%s"' % os.path.join(workdir, sub)
    lines = [
        "global",
        "  stats socket %s level admin" % p("stats.sock"),
        "  maxconn 1000",
        "  nbthread 1",
        "defaults",
        "  mode http",
        "  timeout connect 30s",
        "  timeout client 120s",
        "  timeout server 120s",
        "  timeout http-keep-alive 600s",
        "  timeout http-request 120s",
        # a server connection that the echo frontend closed for idleness
        # just as HAProxy reused it: the GET again, on the same server
        "  retries 3",
        "  retry-on conn-failure empty-response",
        "frontend fe",
        '  bind "unix@%s"' % os.path.join(workdir, "front.sock"),
        "  http-response set-header X-Srv %[srv_name]",
        "  default_backend %s" % words[1],
    ] + backend
    for i, a in enumerate(addresses, 1):
        lines += ["frontend e%d" % i,
                  '  bind "%s"' % a,
                  "  timeout http-keep-alive %s" % ECHO_KEEPALIVE,
                  '  http-request return status 200 content-type text/plain '
                  'string "%s %s"' % (token, a)]
    with open(os.path.join(workdir, "haproxy.cfg"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(workdir, "token"), "w") as f:
        f.write(token)


def cli(workdir, cmd):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(IO_TIMEOUT)
        s.connect(os.path.join(workdir, "stats.sock"))
        s.sendall(cmd.encode() + b"\n")
        buf = bytearray()
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    return bytes(buf).decode(errors="replace").strip()


def harmless_again(cmd, answer):
    """An answer that step 0 of the plan documents as harmless on a re-run."""
    if answer == "No such server.":
        return cmd.startswith(("set server ", "del server "))
    m = re.match(r"^add server [^/ ]+/(\S+) ", cmd)
    if m:
        return re.match(r"^'id' : custom id [0-9]+ already used at .*"
                        r"\('server %s'\)\.?$" % re.escape(m.group(1)),
                        answer) is not None
    return False


def apply(workdir, commands_file, mode):
    with open(commands_file, encoding="utf-8") as f:
        commands = [line.rstrip("\n") for line in f if line.strip()]
    if not commands:
        raise RoutesError("%s: no command" % commands_file)
    retries = 0
    bad = []
    for cmd in commands:
        if cmd.startswith("#"):
            raise RoutesError("a comment line among the commands: %r" % cmd)
        deadline = time.monotonic() + 30
        while True:
            answer = cli(workdir, cmd)
            if answer == BUSY and cmd.startswith("del server ") \
                    and time.monotonic() < deadline:
                retries += 1
                time.sleep(0.1)
                continue
            break
        print("%s\t%s" % (answer.replace("\n", " ") or "(empty)", cmd))
        if not (OK_FIRST.match(answer)
                or (mode == "again" and harmless_again(cmd, answer))):
            bad.append((cmd, answer))
    print("%s: %d commands sent (%s), %d del server retried for connections"
          % (PROG, len(commands), mode, retries), file=sys.stderr)
    if bad:
        raise RoutesError("%d unexpected answers, the first: %r to %r"
                          % (len(bad), bad[0][1], bad[0][0]))


def pid(workdir):
    for line in cli(workdir, "show info").splitlines():
        if line.startswith("Pid:"):
            return int(line.split(":", 1)[1])
    raise RoutesError("'show info' has no Pid line")


def state(workdir, backend):
    text = cli(workdir, "show servers state %s" % backend)
    lines = text.splitlines()
    if not lines or lines[0].strip() != "1":
        raise RoutesError("unexpected 'show servers state' answer: %r"
                          % text[:300])
    fields, out = None, []
    for line in lines[1:]:
        if line.startswith("# "):
            fields = line[2:].split()
            continue
        if not line.strip():
            continue
        row = dict(zip(fields, line.split()))
        admin = int(row["srv_admin_state"])
        out.append((row["srv_name"], int(row["srv_id"]),
                    int(row["srv_uweight"]), 1 if admin & 0x23 else 0))
    return sorted(out)


def route(workdir, keys_file):
    with open(keys_file, "rb") as f:
        keys = f.read().split(b"\n")
    if keys and keys[-1] == b"":
        keys.pop()
    if not keys:
        raise RoutesError("%s: no key" % keys_file)
    with open(os.path.join(workdir, "token")) as f:
        prefix = f.read().strip().encode() + b" "
    front = os.path.join(workdir, "front.sock")
    requests = [b"GET / HTTP/1.1\r\nHost: routes\r\nX-Key: " + k +
                b"\r\n\r\n" for k in keys]

    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(front)
        return s

    responses = pipeline(connect, requests, CONNECTIONS, WINDOW, "haproxy",
                         IO_TIMEOUT)
    out = sys.stdout.buffer
    for k, (status, headers, body) in zip(keys, responses):
        srv = headers.get(b"x-srv", [])
        if status != 200 or not body.startswith(prefix) or len(srv) != 1:
            raise RoutesError("key %r: haproxy answered %d %r (X-Srv %r)"
                              % (k, status, body[:200], srv))
        out.write(k + b"\t" + srv[0] + b"\t" + body[len(prefix):] + b"\n")
    out.flush()


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "ports":
            print("\n".join(str(p) for p in ports(int(argv[2]))))
        elif len(argv) == 5 and argv[1] == "config":
            config(argv[2], argv[3], argv[4])
        elif len(argv) == 5 and argv[1] == "apply" and argv[4] in ("first", "again"):
            apply(argv[2], argv[3], argv[4])
        elif len(argv) == 3 and argv[1] == "pid":
            print(pid(argv[2]))
        elif len(argv) == 4 and argv[1] == "state":
            for row in state(argv[2], argv[3]):
                print("%s\t%d\t%d\t%d" % row)
        elif len(argv) == 4 and argv[1] == "route":
            route(argv[2], argv[3])
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (RoutesError, OSError) as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
