#!/usr/bin/env python3
"""Run the SQL examples of the documentation and compare what they print.

Every ```sql fence of README.md, doc/*.md and doc/compat/*.md runs, page by
page and in page order, in a database of the page's own (chash created
first unless the page's first example creates it).  A fence whose previous
line is "<!-- not run: REASON -->" is skipped, and named in the output.

Inside a fence, each statement (up to the ";" that ends a line outside
quotes and comments, or one psql meta-command line) is one check: the lines
after it, up to a blank line or the next statement, are what psql prints for
it (aligned, as `psql -X` prints; the "(N rows)" footer may be left out).
A line "..." stands for any lines.  A statement shown without output must
not fail.  NOTICE, WARNING and CONTEXT lines are compared only where the
page shows one of them for that statement.

    test/bin/doc-examples.py [--update] [PAGE...]     default: every page

--update writes into the pages what each statement printed (where a page
shows output, or the statement printed more than an empty row): a tool for
writing pages, whose changes are read before they are committed.

Connects as psql does (PGHOST, PGPORT, PGUSER); needs a role that may create
databases and the extension.  Prints a line for each page, the differences
of each failed check, and last "N checks, M failed"; exits 1 if any check
failed or none ran.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

STATEMENT_START = re.compile(
    r"^(--(?![-+]*$)|\\|\(|(SELECT|WITH|INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|CALL|"
    r"BEGIN|START|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|RESET|GRANT|REVOKE|DO|"
    r"TABLE|VALUES|EXPLAIN|ANALYZE|VACUUM|COPY|TRUNCATE|PREPARE|EXECUTE|"
    r"DEALLOCATE|SHOW|LOCK|COMMENT|REFRESH|NOTIFY|LISTEN|IMPORT)\b)",
    re.IGNORECASE)
MESSAGE = re.compile(r"^(ERROR|WARNING|NOTICE|INFO|DETAIL|HINT|CONTEXT|LINE \d+|QUERY):")
FOOTER = re.compile(r"^\(\d+ rows?\)$")


def statement_ends(line, state):
    """Scan one line of SQL; state is the quote we are in (None, "'", or a
    dollar tag).  Returns (ends, state): ends when the line's last code
    outside quotes and comments is ";"."""
    i = 0
    last = None
    while i < len(line):
        if state == "'":
            j = line.find("'", i)
            if j < 0:
                return False, state
            i = j + 1
            state = None
            last = "'"
            continue
        if state is not None:
            j = line.find(state, i)
            if j < 0:
                return False, state
            i = j + len(state)
            state = None
            last = "$"
            continue
        c = line[i]
        if line.startswith("--", i):
            break
        if c == "'":
            state = "'"
            i += 1
            continue
        m = re.match(r"\$[A-Za-z_]*\$", line[i:])
        if m:
            state = m.group(0)
            i += len(state)
            continue
        if not c.isspace():
            last = c
        i += 1
    return state is None and last == ";", state


def parse_block(lines, first_line):
    """The checks of one fence: [(line number, statement, shown output)]."""
    checks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("--"):
            i += 1
            continue
        start = i
        if line.startswith("\\"):
            statement = [line]
            i += 1
        else:
            statement = []
            state = None
            while i < len(lines):
                statement.append(lines[i])
                ends, state = statement_ends(lines[i], state)
                i += 1
                if ends or (state is None and re.search(r"\\g\w*(\s.*)?$", lines[i - 1])):
                    break
        shown = []
        shown_at = i
        while i < len(lines) and lines[i].strip() and (
                FOOTER.match(lines[i].strip()) or not STATEMENT_START.match(lines[i])):
            shown.append(lines[i])
            i += 1
        checks.append((first_line + start, "\n".join(statement), shown, first_line + shown_at))
    return checks


def page_blocks(path):
    """The fences of a page: [(first line number, lines, skip reason)]."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(text):
        if text[i].strip() == "```sql":
            before = next((t.strip() for t in reversed(text[:i]) if t.strip()), "")
            m = re.match(r"<!--\s*not run:\s*(.*?)\s*-->$", before)
            indent = len(text[i]) - len(text[i].lstrip())
            j = i + 1
            while j < len(text) and text[j].strip() != "```":
                j += 1
            # (a fence inside a list item is indented with it)
            lines = [l[indent:] if not indent or l[:indent].isspace() else l.lstrip() for l in text[i + 1:j]]
            reason = m.group(1) if m else None
            first = next((l for l in lines if l.strip() and not l.startswith("--")), "")
            if reason is None and not STATEMENT_START.match(first):
                reason = "signatures, not statements"
            blocks.append((i + 2, lines, reason, indent))
            i = j
        i += 1
    return blocks


def filtered(actual, shown):
    """actual without the kinds of message the page does not show"""
    kinds = {m.group(1) for m in (MESSAGE.match(s) for s in shown) if m}
    out = []
    dropping = False
    for line in actual:
        m = MESSAGE.match(line)
        if m:
            kind = m.group(1)
            if kind in ("NOTICE", "WARNING", "INFO", "CONTEXT") and kind not in kinds:
                dropping = True
                continue
            if dropping and kind in ("DETAIL", "HINT", "CONTEXT") and kind not in kinds:
                continue
            if dropping and kind in ("DETAIL", "HINT") and not out:
                continue
            dropping = False
        elif dropping and line and not line.startswith((" ", "-", "(")):
            # a message's further lines
            continue
        else:
            dropping = False
        out.append(line)
    return out


def matches(shown, actual):
    def clean(lines):
        lines = [l.rstrip() for l in lines if not FOOTER.match(l.strip())]
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        return lines

    shown = clean(shown)
    actual = clean(filtered(actual, shown))
    pattern = "".join("(?:.*\n)*?" if l.strip() == "..." else re.escape(l) + "\n" for l in shown)
    return re.fullmatch(pattern, "".join(l + "\n" for l in actual)) is not None, actual


def quote_literal(s):
    return "'" + s.replace("'", "''") + "'"


def query(sql):
    """one column's values, from the database postgres"""
    out = subprocess.run(["psql", "-X", "-At", "-d", "postgres", "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return out.split("\n")[:-1]


def run_page(path, update=False, marker="@@doc-example@@"):
    rel = os.path.relpath(path, ROOT)
    blocks = page_blocks(path)
    runnable = [b for b in blocks if b[2] is None]
    for first, _, reason, _ in blocks:
        if reason is not None:
            print(f"  {rel}:{first}: not run: {reason}")
    if not runnable:
        return 0, 0
    checks = []
    for first, lines, _, indent in runnable:
        checks.extend(c + (indent,) for c in parse_block(lines, first))
    db = "doc_" + re.sub(r"[^a-z0-9]+", "_", rel.lower())
    roles = set(query("SELECT rolname FROM pg_roles"))
    subprocess.run(["dropdb", "--if-exists", db], check=True)
    subprocess.run(["createdb", db], check=True)
    try:
        script = ["\\set VERBOSITY default", "SET client_min_messages = notice;"]
        if "create extension chash" not in "\n".join(runnable[0][1]).lower():
            script.append("CREATE EXTENSION chash;")
        for n, (_, statement, _, _, _) in enumerate(checks):
            script.append(f"\\echo {marker}{n}")
            script.append(statement)
        script.append(f"\\echo {marker}end")
        env = dict(os.environ, PGCLIENTENCODING="UTF8", PGOPTIONS="")
        # (psql's errors go to stderr: one stream keeps them in place)
        proc = subprocess.run(["sh", "-c", 'exec psql -X -q -d "$0" -v ON_ERROR_STOP=0 2>&1', db],
                              input="\n".join(script) + "\n", capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=1200)
        lines = proc.stdout.split("\n")
    finally:
        subprocess.run(["dropdb", "--if-exists", db], check=False)
        # the roles a page made (CREATE ROLE in an example) go with it
        for role in set(query("SELECT rolname FROM pg_roles")) - roles:
            query("DROP ROLE " + query("SELECT quote_ident(%s)" % quote_literal(role))[0])
    outputs = {}
    current = None
    for line in lines:
        if line.startswith(marker):
            current = line[len(marker):]
            outputs[current] = []
        elif current is not None:
            outputs[current].append(line)
    failed = 0
    edits = []
    for n, (line_no, statement, shown, shown_at, indent) in enumerate(checks):
        if update and outputs.get(str(n)) is not None:
            new = [l.rstrip() for l in filtered(outputs[str(n)], shown)
                   if not FOOTER.match(l.strip())]
            while new and not new[-1]:
                new.pop()
            # (a function of no result prints an empty row: not worth showing)
            void = (len(new) == 2 and set(new[1]) <= {"-"}
                    and not MESSAGE.match(new[0]))
            if shown or (new and not void):
                new = [" " * indent + l if l else l for l in new]
                if not shown:
                    new.append("")
                edits.append((shown_at, len(shown), new))
        actual = outputs.get(str(n))
        if actual is None:
            ok, actual = False, ["(the example did not run)"]
        elif shown:
            ok, actual = matches(shown, actual)
        else:
            actual = filtered(actual, [])
            ok = not any(l.startswith("ERROR:") for l in actual)
        if not ok:
            failed += 1
            print(f"  FAILED {rel}:{line_no}")
            print("    " + statement.replace("\n", "\n    "))
            print("    -- the page shows:")
            for l in shown or ["(no output, no error)"]:
                print("    | " + l)
            print("    -- psql printed:")
            for l in actual:
                print("    | " + l)
    if update and edits:
        with open(path, encoding="utf-8") as f:
            text = f.read().split("\n")
        for at, count, new in sorted(edits, reverse=True):
            if not count and at - 1 < len(text) and text[at - 1].strip() in ("", "```"):
                new = new[:-1]
            text[at - 1:at - 1 + count] = new
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(text))
    print(f"{rel}: {len(checks)} examples, {failed} failed")
    return len(checks), failed


def main():
    update = sys.argv[1:2] == ["--update"]
    args = sys.argv[2:] if update else sys.argv[1:]
    pages = args or (
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "doc", "*.md")))
        + sorted(glob.glob(os.path.join(ROOT, "doc", "compat", "*.md"))))
    total = failed = 0
    for page in pages:
        n, f = run_page(os.path.abspath(page), update)
        total += n
        failed += f
    print(f"{total} checks, {failed} failed")
    return 1 if failed or not total else 0


if __name__ == "__main__":
    sys.exit(main())
