#!/usr/bin/env python3
"""Extracts the printed code snippets of Markdown files so that CI compiles them exactly as printed.

A snippet is a fenced code block whose opening fence directly follows a line
`<!-- snippet: NAME -->` (NAME is the file name to write, e.g. `quickstart.c`, `main.go`).

    python3 .ci/snippets.py OUT_DIR FILE.md [FILE.md ...]

writes OUT_DIR/NAME for every snippet, prints one line per snippet, and fails when a marker is
not followed by a fenced block, when a name is used twice, or when a file has no snippet at all.
"""
import pathlib
import re
import sys

MARKER = re.compile(r"^<!--\s*snippet:\s*(\S+)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def snippets(path):
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        i += 1
        if not m:
            continue
        name = m.group(1)
        if i >= len(lines) or not FENCE.match(lines[i]):
            sys.exit(f"{path}:{i}: snippet marker {name!r} is not followed by a fenced code block")
        fence = FENCE.match(lines[i]).group(1)
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        if end == len(lines):
            sys.exit(f"{path}:{i + 1}: snippet {name!r} has no closing fence")
        yield name, "\n".join(lines[start:end]) + "\n", i + 1
        i = end + 1


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seen = {}
    for md in sys.argv[2:]:
        found = 0
        for name, text, line in snippets(md):
            if name in seen:
                sys.exit(f"{md}:{line}: snippet name {name!r} already used at {seen[name]}")
            seen[name] = f"{md}:{line}"
            (out / name).write_text(text, encoding="utf-8")
            print(f"snippet {name} ({md}:{line})")
            found += 1
        if found == 0:
            sys.exit(f"{md}: no snippet marker found")


if __name__ == "__main__":
    main()
