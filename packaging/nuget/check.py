#!/usr/bin/env python3
"""Verifies a NuGet package written by packaging/nuget/pack.sh.

    packaging/nuget/check.py Robota.Native.VERSION.nupkg VERSION RID=NATIVE_FILE [RID=NATIVE_FILE ...]

Checks that the archive holds exactly the OPC parts ([Content_Types].xml with a type for every
part, _rels/.rels naming the manifest and the core properties), the manifest, README.md, the
licences, lib/net461/Robota.dll and .xml, and runtimes/RID/native/NAME for each RID given, byte
for byte the NATIVE_FILE given; and that the manifest names id Robota.Native, VERSION, the
licence expression MIT OR Apache-2.0, the readme and a repository with its commit. Prints
"nupkg check: ok" or every problem.
"""
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

NS = {"n": "http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd",
      "ct": "http://schemas.openxmlformats.org/package/2006/content-types",
      "r": "http://schemas.openxmlformats.org/package/2006/relationships"}
FIXED = ("[Content_Types].xml", "_rels/.rels", "Robota.Native.nuspec", "README.md", "LICENSE-MIT",
         "LICENSE-APACHE", "lib/net461/Robota.dll", "lib/net461/Robota.xml")


def native_name(rid):
    return "robota.dll" if rid.startswith("win-") else "librobota.dylib" if rid.startswith("osx") else "librobota.so"


def check_parts(archive, natives, problems):
    names = set(archive.namelist())
    psmdcp = {n for n in names if re.fullmatch(r"package/services/metadata/core-properties/[0-9a-f]{32}\.psmdcp", n)}
    expected = set(FIXED) | set(natives) | psmdcp
    if len(psmdcp) != 1:
        problems.append(f"{len(psmdcp)} core-properties parts, expected 1")
    for name in sorted(names - expected):
        problems.append(f"{name}: not expected in the package")
    for name in sorted(expected - names):
        problems.append(f"{name}: missing")
    for name, path in natives.items():
        if name in names and archive.read(name) != open(path, "rb").read():
            problems.append(f"{name}: differs from {path}")
    if "[Content_Types].xml" in names:
        types = ET.fromstring(archive.read("[Content_Types].xml"))
        defaults = {d.get("Extension") for d in types.findall("ct:Default", NS)}
        overrides = {o.get("PartName") for o in types.findall("ct:Override", NS)}
        for name in sorted(names - {"[Content_Types].xml"}):
            base = name.rsplit("/", 1)[-1]
            if f"/{name}" not in overrides and ("." not in base or base.rsplit(".", 1)[1] not in defaults):
                problems.append(f"{name}: no content type in [Content_Types].xml")
    if "_rels/.rels" in names:
        targets = {r.get("Target") for r in ET.fromstring(archive.read("_rels/.rels")).findall("r:Relationship", NS)}
        if targets != {"/Robota.Native.nuspec"} | {f"/{p}" for p in psmdcp}:
            problems.append(f"_rels/.rels points at {sorted(targets)}")


def check_manifest(archive, version, problems):
    try:
        metadata = ET.fromstring(archive.read("Robota.Native.nuspec")).find("n:metadata", NS)
    except (KeyError, ET.ParseError) as error:
        problems.append(f"Robota.Native.nuspec: {error}")
        return
    if metadata is None:
        problems.append("Robota.Native.nuspec: no <metadata>")
        return
    def text(tag):
        element = metadata.find(f"n:{tag}", NS)
        return None if element is None else (element.text or "").strip()
    for tag, want in (("id", "Robota.Native"), ("version", version), ("license", "MIT OR Apache-2.0"),
                      ("readme", "README.md")):
        if text(tag) != want:
            problems.append(f"Robota.Native.nuspec: <{tag}> is {text(tag)!r}, expected {want!r}")
    licence = metadata.find("n:license", NS)
    if licence is not None and licence.get("type") != "expression":
        problems.append("Robota.Native.nuspec: <license> is not of type expression")
    repository = metadata.find("n:repository", NS)
    if repository is None or not re.fullmatch(r"https://\S+", repository.get("url", "")) \
            or not re.fullmatch(r"[0-9a-f]{40}", repository.get("commit", "")):
        problems.append("Robota.Native.nuspec: no <repository> with an https url and a commit")
    for tag in ("authors", "description"):
        if not text(tag):
            problems.append(f"Robota.Native.nuspec: <{tag}> is missing or empty")


def main(argv):
    specs = [a.partition("=") for a in argv[3:]]
    if len(argv) < 4 or any(not rid or not path for rid, _, path in specs):
        sys.exit("usage: check.py NUPKG VERSION RID=NATIVE_FILE [RID=NATIVE_FILE ...]")
    natives = {f"runtimes/{rid}/native/{native_name(rid)}": path for rid, _, path in specs}
    problems = []
    with zipfile.ZipFile(argv[1]) as archive:
        check_parts(archive, natives, problems)
        check_manifest(archive, argv[2], problems)
    if problems:
        sys.exit(f"nupkg check: {argv[1]}\n  " + "\n  ".join(problems))
    print(f"nupkg check: ok ({argv[1]}: runtimes {', '.join(rid for rid, _, _ in specs)})")


if __name__ == "__main__":
    main(sys.argv)
