#!/usr/bin/env python3
"""Serves the Go binding from a local module proxy, so a module can require it by version.

    tests/install/go/proxy.py OUT_DIR

writes OUT_DIR in the GOPROXY protocol's layout (https://go.dev/ref/mod#goproxy-protocol) for
the module of bindings/go at the version v<version of the robota package in Cargo.toml>:

    OUT_DIR/<module>/@v/list                     the version
    OUT_DIR/<module>/@v/v1.2.0.info              {"Version": ..., "Time": ...}
    OUT_DIR/<module>/@v/v1.2.0.mod               bindings/go/go.mod
    OUT_DIR/<module>/@v/v1.2.0.zip               the module's files under <module>@v1.2.0/

The zip holds what `go mod download` of the tag bindings/go/v<version> would: every file under
bindings/go except version-control directories, vendor/ and nested modules. A module then uses
it with GOPROXY=file://OUT_DIR GOSUMDB=off, no `replace` directive.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
BINDING = ROOT / "bindings" / "go"
SKIPPED_DIRS = {".git", ".hg", ".svn", ".bzr", "vendor"}
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the zip's entries carry no build time: equal files, equal zip


def package_version():
    """The robota package's version: the first `version = "..."` of the root Cargo.toml."""
    m = re.search(r'(?m)^version = "([^"]+)"$', (ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    if not m:
        sys.exit(f"proxy.py: no version in {ROOT / 'Cargo.toml'}")
    return "v" + m.group(1)


def module_path(go_mod):
    m = re.search(r"(?m)^module\s+(\S+)\s*$", go_mod)
    if not m:
        sys.exit(f"proxy.py: no module line in {BINDING / 'go.mod'}")
    return m.group(1)


def escape(path):
    """The proxy protocol's case encoding: an upper-case letter is '!' and its lower case."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), path)


def module_files():
    """The files of the module, relative to bindings/go, sorted."""
    files = []
    for dirpath, dirnames, filenames in os.walk(BINDING):
        here = pathlib.Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIPPED_DIRS and not (here / d / "go.mod").exists())
        for name in filenames:
            path = here / name
            if path.is_symlink():
                sys.exit(f"proxy.py: {path} is a symbolic link, which a module zip cannot hold")
            files.append(path.relative_to(BINDING).as_posix())
    return sorted(files)


def commit_time():
    """The time of HEAD's commit (the tag's time), or the epoch outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%cI"],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out or "1970-01-01T00:00:00Z"
    except (OSError, subprocess.CalledProcessError):
        return "1970-01-01T00:00:00Z"


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    go_mod = (BINDING / "go.mod").read_text(encoding="utf-8")
    module, version = module_path(go_mod), package_version()
    out = pathlib.Path(argv[1]) / escape(module) / "@v"
    out.mkdir(parents=True, exist_ok=True)
    (out / "list").write_text(version + "\n", encoding="utf-8")
    (out / f"{version}.info").write_text(
        json.dumps({"Version": version, "Time": commit_time()}) + "\n", encoding="utf-8")
    (out / f"{version}.mod").write_text(go_mod, encoding="utf-8")
    files = module_files()
    with zipfile.ZipFile(out / f"{version}.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name in files:
            entry = zipfile.ZipInfo(f"{module}@{version}/{name}", FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            z.writestr(entry, (BINDING / name).read_bytes())
    print(f"proxy: {module} {version} ({len(files)} files) in {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
