#!/usr/bin/python3
"""What the route programs of real proxies (haproxy_routes.py,
nginx_routes.py) share: the processes they start, stopped and removed
however a run ends, and HTTP/1.1 requests pipelined on several keep-alive
connections.  Imported from the programs' own directory.
"""
import ctypes
import os
import selectors
import shutil
import signal
import subprocess
import time


class RoutesError(Exception):
    pass


# ---------------------------------------------------------------------------
# Processes and clean-up

class Cleanup:
    """Everything this run started or made, undone however the run ends."""

    def __init__(self):
        self.procs = []
        self.tmpdir = None
        self.paths = []
        self.done = False

    def add(self, proc):
        self.procs.append(proc)
        return proc

    def stop(self, procs):
        """SIGTERM (the last started first), wait, SIGKILL after 5 s."""
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
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        self.stop(list(self.procs))
        for path in self.paths:
            try:
                os.unlink(path)
            except OSError:
                pass
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


CLEANUP = Cleanup()


def on_signal(signum, frame):
    raise SystemExit(128 + signum)


_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1
PARENT_PID = os.getpid()


def child_setup():
    """In the child, before exec: die with us, even on SIGKILL."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != PARENT_PID:
        os._exit(1)


def spawn(argv, cwd, errfile):
    with open(errfile, "wb") as err:
        return CLEANUP.add(subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            start_new_session=True, preexec_fn=child_setup))


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace").strip()
    except OSError:
        return ""


# ---------------------------------------------------------------------------
# HTTP/1.1, pipelined on several keep-alive connections

def parse_response(buf, start):
    """One response at buf[start:], or None if not all there yet: (end,
    status, headers, body); headers maps lower-case names to lists of raw
    values."""
    head_end = buf.find(b"\r\n\r\n", start)
    if head_end < 0:
        if len(buf) - start > 1 << 20:
            raise RoutesError("response header over 1 MB")
        return None
    lines = bytes(buf[start:head_end]).split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") \
            or not parts[1].isdigit():
        raise RoutesError("bad status line %r" % lines[0][:200])
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise RoutesError("bad header line %r" % line[:200])
        # the value exactly as sent after ": " (our own headers carry raw
        # key bytes: do not strip them beyond the one separating space)
        if value.startswith(b" "):
            value = value[1:]
        headers.setdefault(name.strip().lower(), []).append(value)
    if b"transfer-encoding" in headers:
        raise RoutesError("unexpected Transfer-Encoding in a response")
    try:
        length = int(headers[b"content-length"][0])
    except (KeyError, ValueError):
        raise RoutesError("response without Content-Length: %r"
                          % lines[0][:200])
    end = head_end + 4 + length
    if len(buf) < end:
        return None
    return end, int(parts[1]), headers, bytes(buf[head_end + 4:end])


def pipeline(connect, requests, nconn, window, what, io_timeout):
    """Send requests (bytes) over nconn connections made by connect(), each
    with at most window unanswered; returns the responses in order.  An
    error after io_timeout seconds without progress."""
    results = [None] * len(requests)
    nconn = max(1, min(nconn, len(requests)))
    sel = selectors.DefaultSelector()
    conns = []
    try:
        for c in range(nconn):
            idx = list(range(c, len(requests), nconn))
            s = connect()
            s.setblocking(False)
            st = {"sock": s, "idx": idx, "sent": 0, "done": 0,
                  "out": bytearray(), "in": bytearray(), "pos": 0,
                  "reconnects": 0}
            conns.append(st)
            sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, st)
        remaining = len(requests)
        while remaining:
            events = sel.select(timeout=io_timeout)
            if not events:
                raise RoutesError("%s stopped answering (%d requests left)"
                                  % (what, remaining))
            for key, mask in events:
                st = key.data
                s = st["sock"]
                if mask & selectors.EVENT_READ:
                    try:
                        chunk = s.recv(1 << 18)
                    except BlockingIOError:
                        chunk = None
                    if chunk is not None:
                        if not chunk:
                            # a proxy may close a keep-alive connection
                            # (HTTP lets it): the unanswered requests go
                            # again on a new one, a few times at most
                            if st["reconnects"] >= 10:
                                raise RoutesError(
                                    "%s closed a connection after %d of its "
                                    "%d requests, %d times" % (
                                        what, st["done"], len(st["idx"]),
                                        st["reconnects"] + 1))
                            sel.unregister(s)
                            s.close()
                            s = connect()
                            s.setblocking(False)
                            st.update(sock=s, sent=st["done"], out=bytearray(),
                                      reconnects=st["reconnects"] + 1)
                            del st["in"][:]
                            st["pos"] = 0
                            sel.register(s, selectors.EVENT_READ
                                         | selectors.EVENT_WRITE, st)
                            continue
                        st["in"] += chunk
                        while True:
                            r = parse_response(st["in"], st["pos"])
                            if r is None:
                                break
                            if st["done"] >= st["sent"]:
                                raise RoutesError("%s sent a response to no "
                                                  "request" % what)
                            st["pos"] = r[0]
                            results[st["idx"][st["done"]]] = r[1:]
                            st["done"] += 1
                            remaining -= 1
                        if st["pos"] > 1 << 20:
                            del st["in"][:st["pos"]]
                            st["pos"] = 0
                # fill the window, then write what is pending
                while st["sent"] < len(st["idx"]) and \
                        st["sent"] - st["done"] < window:
                    st["out"] += requests[st["idx"][st["sent"]]]
                    st["sent"] += 1
                if st["out"]:
                    try:
                        n = s.send(st["out"])
                        del st["out"][:n]
                    except BlockingIOError:
                        pass
                ev = selectors.EVENT_READ
                if st["out"]:
                    ev |= selectors.EVENT_WRITE
                if st["done"] == len(st["idx"]):
                    if st["pos"] != len(st["in"]):
                        raise RoutesError("%s sent more than the responses"
                                          % what)
                    ev = selectors.EVENT_READ  # EOF would be an error: fine
                if ev != key.events:
                    sel.modify(s, ev, st)
            # connections that are finished leave the selector
            for st in conns:
                if st["done"] == len(st["idx"]) and st["sock"] is not None:
                    sel.unregister(st["sock"])
                    st["sock"].close()
                    st["sock"] = None
    finally:
        sel.close()
        for st in conns:
            if st["sock"] is not None:
                st["sock"].close()
    return results
