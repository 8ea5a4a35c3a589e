#!/usr/bin/env python3
"""Dead-link check for the book (docs/, built by mdBook) and for the Markdown users read outside it.

    python3 .ci/linkcheck.py target/book          # check the built book and the repository's READMEs
    python3 .ci/linkcheck.py --preprocessor ...   # mdBook preprocessor (docs/book.toml), see below

The built book: every HTML page is parsed; every relative `<a href>` and `<img src>` must resolve
to a file inside the book, and every `#fragment` must be an `id` of the page it points to.
http(s), mailto and other scheme links are not followed; `<link>`/`<script>` (the theme's own
assets) are not checked.

The Markdown outside the book (README.md, bindings/*/README.md, CONTRIBUTING.md, CHANGELOG.md):
every relative link must name a file or directory of the repository (never outside it), and a
`#fragment` into a Markdown file must match one of its headings (GitHub's anchor rule).

Exits 1 listing every dead link.

As an mdBook preprocessor (runs before mdBook's own `links` preprocessor) it expands
`{{#include PATH}}` of whole files itself (headings one level down), rebasing the included
file's relative links: a link to
a page of the book points to that page from the including chapter, a link to any other file of
the repository becomes plain text (the book only holds docs/). The same applies to every
chapter's own links, so pages (the developer journals) may name repository files without dead
links in the book.
"""
import html.parser
import json
import os
import pathlib
import re
import sys
import urllib.parse

REPO = pathlib.Path(__file__).resolve().parent.parent
OUTSIDE_MD = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "bindings/go/README.md",
              "bindings/csharp/README.md", "bindings/swift/README.md"]
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^\s*(```+|~~~+)")
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(\s+.*)?$")
INCLUDE = re.compile(r"\{\{#include\s+([^}\s:]+)\s*\}\}")


# ---------------------------------------------------------------------------------------------
# Markdown helpers

def split_code_spans(line):
    """Yields (is_code, text) parts of one line: inline code spans are left alone."""
    out, i = [], 0
    while i < len(line):
        j = line.find("`", i)
        if j < 0:
            out.append((False, line[i:]))
            break
        out.append((False, line[i:j]))
        n = len(line) - len(line[j:].lstrip("`"))
        ticks = line[j:n]
        k = line.find(ticks, n)
        if k < 0:
            out.append((False, line[j:]))
            break
        out.append((True, line[j:k + len(ticks)]))
        i = k + len(ticks)
    return out


def with_fences(lines):
    """(inside_a_fence, line) for each line; the fence lines themselves count as inside."""
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence:
            if m and m.group(1).startswith(fence):
                fence = None
            yield True, line
        elif m:
            fence = m.group(1)
            yield True, line
        else:
            yield False, line


def map_links(text, fn):
    """Rewrites every inline link outside fenced blocks and code spans with fn(m) -> str."""
    out = []
    for fenced, line in with_fences(text.split("\n")):
        if fenced:
            out.append(line)
            continue
        out.append("".join(part if code else LINK.sub(fn, part)
                           for code, part in split_code_spans(line)))
    return "\n".join(out)


def md_links(text):
    """(line number, target) of every link of a Markdown text, outside code."""
    found = []
    for n, (fenced, line) in enumerate(with_fences(text.split("\n")), 1):
        if fenced:
            continue
        d = REFDEF.match(line)
        if d:
            found.append((n, d.group(2)))
            continue
        for code, part in split_code_spans(line):
            if not code:
                found += [(n, m.group(3)) for m in LINK.finditer(part)]
                found += [(n, m.group(1)) for m in re.finditer(r"<(?:a|img)\s[^>]*?(?:href|src)=\"([^\"]+)\"", part)]
    return found


def github_slug(heading):
    s = re.sub(r"<[^>]+>", "", heading).strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def md_anchors(path):
    anchors, seen = set(), {}
    for fenced, line in with_fences(path.read_text(encoding="utf-8").split("\n")):
        if fenced:
            continue
        h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if h:
            slug = github_slug(h.group(1))
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            anchors.add(slug if k == 0 else f"{slug}-{k}")
        for a in re.findall(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"", line):
            anchors.add(a)
    return anchors


def check_outside_markdown():
    dead = []
    for rel in OUTSIDE_MD:
        path = REPO / rel
        if not path.exists():
            continue
        for n, target in md_links(path.read_text(encoding="utf-8")):
            if SCHEME.match(target) and not target.lower().startswith("file:"):
                continue
            where = f"{rel}:{n}: {target}"
            if target.lower().startswith("file:"):
                dead.append(f"{where}: a file: URL")
                continue
            raw, _, frag = target.partition("#")
            raw = urllib.parse.unquote(raw)
            if raw.startswith("/"):
                dead.append(f"{where}: an absolute path (use a path relative to {rel})")
                continue
            dest = (path.parent / raw).resolve() if raw else path
            if REPO not in dest.parents and dest != REPO:
                dead.append(f"{where}: points outside the repository")
                continue
            if not dest.exists():
                dead.append(f"{where}: no such file {dest.relative_to(REPO)}")
                continue
            if frag and dest.suffix == ".md" and frag not in md_anchors(dest):
                dead.append(f"{where}: no heading #{frag} in {dest.relative_to(REPO)}")
    return dead


# ---------------------------------------------------------------------------------------------
# The built book

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.base = set(), [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        if tag == "base" and a.get("href"):
            self.base = a["href"]
        elif tag == "a" and a.get("href") is not None:
            self.links.append((self.getpos()[0], a["href"]))
        elif tag == "img" and a.get("src"):
            self.links.append((self.getpos()[0], a["src"]))


def check_book(book):
    pages = {}
    for f in sorted(book.rglob("*.html")):
        p = Page()
        p.feed(f.read_text(encoding="utf-8", errors="replace"))
        pages[f.resolve()] = p
    if not pages:
        return [f"{book}: no HTML pages (was the book built?)"]
    dead = []
    for f, p in pages.items():
        rel = f.relative_to(book)
        base_dir = book if p.base and p.base.startswith("/") else f.parent
        for line, href in p.links:
            if not href or SCHEME.match(href) or href.startswith("//"):
                continue
            raw, _, frag = href.partition("#")
            raw = urllib.parse.unquote(raw.split("?")[0])
            if raw:
                dest = (book / raw.lstrip("/")) if raw.startswith("/") else (base_dir / raw)
                dest = dest.resolve()
                if dest.is_dir():
                    dest = dest / "index.html"
            else:
                dest = f
            where = f"{rel}:{line}: {href}"
            if book not in dest.parents:
                dead.append(f"{where}: points outside the book")
            elif not dest.exists():
                dead.append(f"{where}: no such file {dest.relative_to(book)}")
            elif frag and dest in pages and urllib.parse.unquote(frag) not in pages[dest].ids:
                dead.append(f"{where}: no id #{frag} in {dest.relative_to(book)}")
    return dead


# ---------------------------------------------------------------------------------------------
# mdBook preprocessor

def rebase(text, from_dir, chapter_dir, book_src):
    """Links of `text` (written relative to from_dir) as seen from chapter_dir: pages of the book
    keep working, other repository files become plain text."""
    def fix(m):
        bang, label, target = m.group(1), m.group(2), m.group(3)
        if not target or target.startswith("#") or SCHEME.match(target) or target.startswith("//"):
            return m.group(0)
        raw, hashmark, frag = target.partition("#")
        dest = pathlib.Path(os.path.normpath(from_dir / urllib.parse.unquote(raw)))
        if book_src in dest.parents and dest.exists():
            return f"{bang}[{label}]({os.path.relpath(dest, chapter_dir)}{hashmark}{frag})"
        return label
    return map_links(text, fix)


def demote(text):
    """Headings one level down (an included README's title goes under the chapter's)."""
    out = []
    for fenced, line in with_fences(text.split("\n")):
        if not fenced and re.match(r"^#{1,5}\s", line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def preprocess():
    context, book = json.load(sys.stdin)
    root = pathlib.Path(context["root"]).resolve()
    src = (root / context["config"]["book"].get("src", "src")).resolve()

    def expand(content, chapter_dir, depth=0):
        def inc(m):
            path = pathlib.Path(os.path.normpath(chapter_dir / m.group(1)))
            if not path.exists() or depth > 3:
                return m.group(0)  # mdBook reports it
            text = path.read_text(encoding="utf-8")
            text = demote(expand(text, path.parent, depth + 1))
            return rebase(text, path.parent, chapter_dir, src)
        return INCLUDE.sub(inc, content)

    def walk(node):
        if isinstance(node, dict):
            ch = node.get("Chapter") if "Chapter" in node else None
            if isinstance(ch, dict) and isinstance(ch.get("content"), str) and ch.get("source_path"):
                chapter_dir = (src / ch["source_path"]).parent
                body = expand(ch["content"], chapter_dir)
                ch["content"] = rebase(body, chapter_dir, chapter_dir, src)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(book)
    json.dump(book, sys.stdout)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--preprocessor":
        if len(sys.argv) >= 3 and sys.argv[2] == "supports":
            sys.exit(0)
        preprocess()
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    book = pathlib.Path(sys.argv[1]).resolve()
    dead = check_book(book) + check_outside_markdown()
    pages = len(list(book.rglob("*.html")))
    if dead:
        print(f"linkcheck: {len(dead)} dead link(s):")
        for d in dead:
            print("  " + d)
        sys.exit(1)
    print(f"linkcheck: {pages} HTML pages of {book.name} and {sum((REPO / m).exists() for m in OUTSIDE_MD)}"
          " Markdown files outside the book: no dead link")


if __name__ == "__main__":
    main()
