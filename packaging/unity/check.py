#!/usr/bin/env python3
"""Verifies a Unity package archive written by packaging/unity/pack.sh.

    packaging/unity/check.py ARCHIVE.tgz VERSION PLATFORM [PLATFORM ...]

Checks that every entry is a file (or folder) under package/; package.json is com.robota.native at VERSION
and its samples exist; the README, the licences, the asmdef and the C# sources are there; every
asset and folder Unity imports (not under a folder ending in ~) has a .meta and every .meta an
asset, each with its own GUID; Runtime/Plugins/ holds exactly the given platforms' libraries,
each of its platform's format, and each plugin .meta enables exactly its platform (and the Editor
on the desktop OS it was built for) with the right CPU. Prints "upm check: ok" or every problem.
"""
import json
import re
import sys
import tarfile

from unity_plugins import PLUGINS, TARGETS

ENTRY = re.compile(r"  - first:\n      (\S*): (\S+)\n    second:\n      enabled: (\d)\n"
                   r"      settings:(?: \{\}\n|\n((?:        .*\n)*))")
GUID = re.compile(r"^guid: ([0-9a-f]{32})$", re.M)
REQUIRED = ("package.json", "README.md", "LICENSE-MIT", "LICENSE-APACHE", "Runtime/Robota.asmdef",
            "Runtime/RobotaRuntime.cs", "Runtime/Native.cs")


def read_archive(path, problems):
    files = {}
    with tarfile.open(path, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            if member.isdir() and (name.rstrip("/") + "/").startswith("package/"):
                continue  # folders are implied by their files; tar writes them, npm does not
            if not member.isfile():
                problems.append(f"{name}: not a regular file")
            elif not name.startswith("package/") or ".." in name.split("/"):
                problems.append(f"{name}: outside package/")
            elif name[len("package/"):] in files:
                problems.append(f"{name}: twice in the archive")
            else:
                files[name[len("package/"):]] = tar.extractfile(member).read()
    return files


def check_manifest(files, version, problems):
    try:
        manifest = json.loads(files["package.json"])
    except (KeyError, ValueError) as error:
        problems.append(f"package.json: {error!r}")
        return
    for key, want in (("name", "com.robota.native"), ("version", version)):
        if manifest.get(key) != want:
            problems.append(f"package.json: {key} is {manifest.get(key)!r}, expected {want!r}")
    for sample in manifest.get("samples", []):
        if not any(name.startswith(sample["path"] + "/") for name in files):
            problems.append(f"package.json: sample {sample['path']} is not in the archive")
    for name in REQUIRED:
        if not files.get(name):
            problems.append(f"{name}: missing or empty")


def check_metas(files, problems):
    assets = {name for name in files if not name.endswith(".meta")}
    folders = {"/".join(name.split("/")[:i]) for name in assets for i in range(1, name.count("/") + 1)}
    imported = {path for path in assets | folders if "~" not in path}
    for path in sorted(imported):
        if f"{path}.meta" not in files:
            problems.append(f"{path}: no .meta (Unity ignores assets without one in an immutable package)")
    guids = {}
    for name in sorted(n for n in files if n.endswith(".meta")):
        if name[:-5] not in imported:
            problems.append(f"{name}: no asset of that name")
        text = files[name].decode()
        found = GUID.findall(text)
        if not text.startswith("fileFormatVersion: 2\n") or len(found) != 1:
            problems.append(f"{name}: not a .meta with fileFormatVersion 2 and one 32-hex guid")
        elif found[0] in guids:
            problems.append(f"{name}: guid {found[0]} is also {guids[found[0]]}'s")
        else:
            guids[found[0]] = name


def platform_entries(meta):
    """{(group, name): (enabled, settings)} of a PluginImporter .meta."""
    entries = {}
    for group, name, enabled, settings in ENTRY.findall(meta):
        values = dict(line.strip().split(": ", 1) if ": " in line else (line.strip().rstrip(":"), "")
                      for line in (settings or "").splitlines())
        entries[(group, name)] = (enabled == "1", values)
    return entries


def check_plugin(files, platform, problems):
    plugin = PLUGINS[platform]
    path = f"Runtime/Plugins/{plugin.path}"
    if not files.get(path, b"").startswith(plugin.magic):
        problems.append(f"{path}: missing, or not a library of {platform}'s format")
        return
    entries = platform_entries(files.get(f"{path}.meta", b"").decode())
    enabled = {key for key, (on, _) in entries.items() if on}
    want = {plugin.target} | ({("Editor", "Editor")} if plugin.editor_os else set())
    if enabled != want:
        problems.append(f"{path}.meta: enables {sorted(enabled)}, expected {sorted(want)}")
    settings = entries.get(plugin.target, (False, {}))[1]
    if settings.get("CPU") != plugin.cpu:
        problems.append(f"{path}.meta: CPU {settings.get('CPU')!r} for {plugin.target}, expected {plugin.cpu!r}")
    editor = entries.get(("Editor", "Editor"), (False, {}))[1]
    if plugin.editor_os and (editor.get("OS"), editor.get("CPU")) != (plugin.editor_os, plugin.cpu):
        problems.append(f"{path}.meta: the Editor loads it on {editor.get('OS')!r} {editor.get('CPU')!r}, "
                        f"expected {plugin.editor_os!r} {plugin.cpu!r}")
    excludes = entries.get(("", "Any"), (False, {}))[1]
    for target in TARGETS:
        want_exclude = "0" if target in {name for _, name in want} else "1"
        if excludes.get(f"Exclude {target}") != want_exclude:
            problems.append(f"{path}.meta: Exclude {target} is {excludes.get(f'Exclude {target}')!r}, "
                            f"expected {want_exclude}")


def main(argv):
    if len(argv) < 4 or any(p not in PLUGINS for p in argv[3:]):
        sys.exit(f"usage: check.py ARCHIVE.tgz VERSION PLATFORM... (platforms: {', '.join(PLUGINS)})")
    problems = []
    files = read_archive(argv[1], problems)
    check_manifest(files, argv[2], problems)
    check_metas(files, problems)
    for platform in argv[3:]:
        check_plugin(files, platform, problems)
    expected = {f"Runtime/Plugins/{PLUGINS[p].path}" for p in argv[3:]}
    for name in sorted(files):
        if name.startswith("Runtime/Plugins/") and "/" in name[16:] and not name.endswith(".meta") \
                and name not in expected:
            problems.append(f"{name}: a plugin of no platform given")
    if problems:
        sys.exit("upm check: " + argv[1] + "\n  " + "\n  ".join(problems))
    print(f"upm check: ok ({argv[1]}: {len(files)} files, plugins {', '.join(argv[3:])})")


if __name__ == "__main__":
    main(sys.argv)
