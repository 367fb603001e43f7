#!/usr/bin/python3
"""Server lists for the compatibility suite.

    servers.py COUNT NAMES WEIGHTS > SERVERS

SERVERS is the route programs' input: "name<TAB>weight" lines, in order.

NAMES:
  ip          10.0.0.1, 10.0.0.2, ...       (libmemcached: port 11211)
  ip11211     10.0.0.1:11211, ...           (the default port, spelled out)
  port        10.1.0.1:11212, 10.1.0.2:11213, ...   (never 11211)
  mixedport   by turns 10.2.0.1, 10.2.0.2:11212, 10.2.0.3:22122
  hostname    cache-001.example.net, ...
  utf8        by turns кэш-1, 缓存-2, 🐘-3, nodo-ñ-4, Ωμέγα-5
  loopback    127.1.0.1:20001, 127.1.0.2:20002, ...: addresses a server
              can listen on (nginx proxies to them), ports 20001-20007
WEIGHTS:
  equal       all 1
  equal100    all 100
  mixed       1 to 10, in a fixed pattern
  skewed      1000, 500, 20, 3, 1, 1, then 1s: the small ones get no
              points under ketama's rounding down
  W           all W (a positive integer)
"""
import sys


def ip(prefix, i):
    return f"10.{prefix}.{i // 250}.{i % 250 + 1}"


def name(style, i):
    if style == "ip":
        return ip(0, i)
    if style == "ip11211":
        return ip(0, i) + ":11211"
    if style == "port":
        return ip(1, i) + f":{11212 + i % 50}"
    if style == "mixedport":
        return ip(2, i) + ["", ":11212", ":22122"][i % 3]
    if style == "hostname":
        return f"cache-{i + 1:03d}.example.net"
    if style == "long":
        # past twemproxy's 272-byte cut of '<name>-<i>'
        return f"cache-{i + 1}-" + "x" * (250 + 9 * i)
    if style == "loopback":
        return f"127.1.{i // 250}.{i % 250 + 1}:{20001 + i % 7}"
    if style == "utf8":
        return ["кэш", "缓存", "🐘", "nodo-ñ", "Ωμέγα"][i % 5] + f"-{i + 1}"
    sys.exit(f"servers.py: unknown names {style!r}")


def weight(style, i):
    if style == "equal":
        return 1
    if style == "equal100":
        return 100
    if style == "mixed":
        return [3, 1, 10, 2, 7, 1, 5, 4, 9, 6, 1, 8][i % 12]
    if style == "skewed":
        return [1000, 500, 20, 3, 1, 1][i] if i < 6 else 1
    if style.isdigit() and int(style) > 0:
        return int(style)
    sys.exit(f"servers.py: unknown weights {style!r}")


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: servers.py COUNT NAMES WEIGHTS > SERVERS")
    count = int(argv[1])
    sys.stdout.buffer.write("".join(
        f"{name(argv[2], i)}\t{weight(argv[3], i)}\n" for i in range(count)).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
