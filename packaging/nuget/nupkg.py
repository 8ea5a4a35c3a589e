#!/usr/bin/env python3
"""Writes a NuGet package (.nupkg) from a manifest and a folder of files.

    packaging/nuget/nupkg.py NUSPEC FOLDER OUT.nupkg

A .nupkg is an OPC zip: `[Content_Types].xml`, `_rels/.rels` (pointing at the manifest and the
core properties), `<id>.nuspec` at the root, `package/services/metadata/core-properties/*.psmdcp`,
and the package's files at their paths (here: every file under FOLDER). This writes the same
layout `nuget pack` writes. It exists because Debian's nuget (2.8) rejects the manifest elements
nuget.org asks for today (`license` expressions, `readme`, `repository`). The output is
reproducible: entries in a fixed order with a fixed timestamp, the core properties' name derived
from the id and version.
"""
import hashlib
import pathlib
import sys
import xml.etree.ElementTree as ET
import zipfile

NUSPEC_NS = "http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"
TIMESTAMP = (2000, 1, 1, 0, 0, 0)  # NuGet refuses zip times before 1980; any fixed time will do
REQUIRED = ("id", "version", "authors", "description", "license", "readme", "repository")


def fail(message):
    sys.exit(f"nupkg.py: {message}")


def read_metadata(nuspec):
    try:
        root = ET.parse(nuspec).getroot()
    except (OSError, ET.ParseError) as error:
        fail(f"{nuspec}: {error}")
    metadata = root.find(f"{{{NUSPEC_NS}}}metadata")
    if root.tag != f"{{{NUSPEC_NS}}}package" or metadata is None:
        fail(f"{nuspec}: not a <package> with <metadata> in the namespace {NUSPEC_NS}")
    fields = {child.tag.split("}")[1]: child for child in metadata}
    missing = [name for name in REQUIRED if name not in fields]
    if missing:
        fail(f"{nuspec}: <metadata> lacks {', '.join(missing)}")
    return {name: (element.text or "").strip() for name, element in fields.items()}


def content_types(names):
    """Every part's type: a default per extension, an override for a name without one."""
    defaults = {"rels": "application/vnd.openxmlformats-package.relationships+xml",
                "psmdcp": "application/vnd.openxmlformats-package.core-properties+xml"}
    overrides = []
    for name in sorted(names):
        base = name.rsplit("/", 1)[-1]
        if "." in base:
            defaults.setdefault(base.rsplit(".", 1)[1], "application/octet")
        else:
            overrides.append(f'<Override PartName="/{name}" ContentType="application/octet" />')
    rows = "".join(f'<Default Extension="{ext}" ContentType="{kind}" />' for ext, kind in defaults.items())
    return ('<?xml version="1.0" encoding="utf-8"?><Types '
            'xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            + rows + "".join(overrides) + "</Types>")


def relationships(nuspec_name, psmdcp_path, key):
    return ('<?xml version="1.0" encoding="utf-8"?><Relationships '
            'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" '
            f'Target="/{nuspec_name}" Id="R{key[:16]}" />'
            '<Relationship Type="http://schemas.openxmlformats.org/package/2006/relationships/'
            f'metadata/core-properties" Target="/{psmdcp_path}" Id="R{key[16:]}" /></Relationships>')


def core_properties(meta):
    def text(value):
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return ('<?xml version="1.0" encoding="utf-8"?><coreProperties '
            'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xmlns="http://schemas.openxmlformats.org/package/2006/metadata/core-properties">'
            f'<dc:creator>{text(meta["authors"])}</dc:creator>'
            f'<dc:description>{text(meta["description"])}</dc:description>'
            f'<dc:identifier>{text(meta["id"])}</dc:identifier>'
            f'<version>{text(meta["version"])}</version>'
            f'<keywords>{text(meta.get("tags", ""))}</keywords>'
            '<lastModifiedBy>packaging/nuget/nupkg.py</lastModifiedBy></coreProperties>')


def write(archive, name, data):
    info = zipfile.ZipInfo(name, TIMESTAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def main(argv):
    if len(argv) != 4:
        fail("usage: nupkg.py NUSPEC FOLDER OUT.nupkg")
    nuspec, folder, out = pathlib.Path(argv[1]), pathlib.Path(argv[2]), pathlib.Path(argv[3])
    meta = read_metadata(nuspec)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    names = [p.relative_to(folder).as_posix() for p in files]
    if meta["readme"] not in names:
        fail(f"the readme {meta['readme']} named by {nuspec} is not in {folder}")
    key = hashlib.md5(f'{meta["id"]}/{meta["version"]}'.encode()).hexdigest()
    nuspec_name = f'{meta["id"]}.nuspec'
    psmdcp = f"package/services/metadata/core-properties/{key}.psmdcp"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as archive:
        write(archive, "_rels/.rels", relationships(nuspec_name, psmdcp, key))
        write(archive, nuspec_name, nuspec.read_bytes())
        for path, name in zip(files, names):
            write(archive, name, path.read_bytes())
        write(archive, psmdcp, core_properties(meta))
        write(archive, "[Content_Types].xml", content_types(names + [nuspec_name]))
    print(f"nupkg.py: wrote {out} ({len(names)} files)")


if __name__ == "__main__":
    main(sys.argv)
