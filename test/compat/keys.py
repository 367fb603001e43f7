#!/usr/bin/python3
"""Deterministic memcached keys for the compatibility suite.

    keys.py N SEED > KEYS

N distinct keys, one a line, the same for the same N and SEED on any
Python 3.  Every key is valid UTF-8 and a valid memcached key: 1 to 200
bytes, no whitespace, no control characters.  About half are ASCII in the
shapes applications use ('user:123', 'k-42', 'session:ab12...', random
printable runs of 1 to 60 characters); the rest mix in characters from
Latin-1 and Latin Extended-A, Greek, Cyrillic, Hiragana, CJK, Hangul,
and outside the BMP (emoji, mathematical letters, CJK Extension B, Gothic:
4-byte UTF-8).  A few keys are exactly 200 bytes, some are 1 character.

Only explicit ranges of assigned, non-space code points are used, so the
keys do not depend on the Python's Unicode database.
"""
import random
import string
import sys

MAX_BYTES = 200

# printable ASCII without space: letters, digits and punctuation
ASCII = string.ascii_letters + string.digits + string.punctuation
WORDS = ["user", "session", "cart", "item", "page", "feed", "post", "img",
         "cfg", "rate", "lock", "queue", "tmp", "v2", "Ω", "api"]

# (first, last) code points, inclusive; all assigned, none whitespace/control
RANGES = {
    "latin1": [(0x00A1, 0x00AC), (0x00AE, 0x00FF)],     # no NBSP, no soft hyphen
    "latin_ext": [(0x0100, 0x017F)],
    "greek": [(0x0391, 0x03A1), (0x03A3, 0x03A9), (0x03B1, 0x03C9)],
    "cyrillic": [(0x0410, 0x044F)],
    "hiragana": [(0x3041, 0x3096)],
    "cjk": [(0x4E00, 0x9FA5)],
    "hangul": [(0xAC00, 0xD7A3)],
    "emoji": [(0x1F300, 0x1F5FF), (0x1F600, 0x1F64F)],
    "math": [(0x1D400, 0x1D454)],
    "cjk_ext_b": [(0x20000, 0x2A6D6)],
    "gothic": [(0x10330, 0x1034A)],
}
SCRIPTS = sorted(RANGES)
ASTRAL = ["emoji", "math", "cjk_ext_b", "gothic"]


def char_from(rng, script):
    first, last = rng.choice(RANGES[script])
    return chr(rng.randint(first, last))


def fit(key):
    """Cut key to at most MAX_BYTES of UTF-8, on a character boundary."""
    while len(key.encode("utf-8")) > MAX_BYTES:
        key = key[:-1]
    return key


def ascii_key(rng, i):
    shape = rng.randrange(8)
    if shape == 0:
        return f"user:{rng.randrange(10 ** rng.randint(1, 9))}"
    if shape == 1:
        return f"k-{i}"
    if shape == 2:
        return f"session:{rng.getrandbits(128):032x}"
    if shape == 3:
        return ":".join(rng.choice(WORDS[:-2]) for _ in range(rng.randint(1, 4))) \
            + f":{rng.randrange(100000)}"
    if shape == 4:
        return str(rng.randrange(10 ** rng.randint(1, 18)))
    # random printable runs, 1 to 60 characters
    return "".join(rng.choice(ASCII) for _ in range(rng.randint(1, 60)))


def unicode_key(rng, i):
    shape = rng.randrange(6)
    if shape == 0:      # an ASCII prefix and a word in one script
        script = rng.choice(SCRIPTS)
        word = "".join(char_from(rng, script) for _ in range(rng.randint(1, 12)))
        return f"{rng.choice(WORDS)}:{word}"
    if shape == 1:      # one character: 2, 3 or 4 bytes
        return char_from(rng, rng.choice(SCRIPTS))
    if shape == 2:      # outside the BMP only
        return "".join(char_from(rng, rng.choice(ASTRAL)) for _ in range(rng.randint(1, 20)))
    if shape == 3:      # everything mixed, ASCII included
        parts = []
        for _ in range(rng.randint(2, 40)):
            if rng.random() < 0.3:
                parts.append(rng.choice(ASCII))
            else:
                parts.append(char_from(rng, rng.choice(SCRIPTS)))
        return "".join(parts)
    if shape == 4:      # Latin-1 range words, like names
        return "".join(char_from(rng, rng.choice(["latin1", "latin_ext"]))
                       + rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 15)))
    # long: up to exactly 200 bytes
    return "".join(char_from(rng, rng.choice(SCRIPTS)) for _ in range(rng.randint(40, 120)))


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: keys.py N SEED > KEYS")
    n, seed = int(argv[1]), int(argv[2])
    rng = random.Random(seed)
    seen = set()
    out = []
    i = 0
    while len(out) < n:
        i += 1
        if i % 2 == 0 or len(out) < n // 2 and i % 4 == 1:
            key = ascii_key(rng, i)
        else:
            key = unicode_key(rng, i)
        key = fit(key)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(key)
    sys.stdout.buffer.write("".join(k + "\n" for k in out).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
