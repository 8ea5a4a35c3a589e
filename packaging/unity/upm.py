#!/usr/bin/env python3
"""Writes the Unity package archive (UPM tarball) of the C# binding.

    packaging/unity/upm.py SOURCE VERSION OUT.tgz PLATFORM=PATH [PLATFORM=PATH ...]

SOURCE is bindings/csharp. The archive's root folder is package/ (the npm and UPM convention):
package.json with "version" set to VERSION, README.md, Runtime/ (sources, asmdef and their .meta
files), Samples~/, the licences, and each PLATFORM's library under Runtime/Plugins/ with a .meta
that sets Unity's plugin importer for it (unity_plugins.py). Every generated .meta has a GUID
derived from its path, and the archive is reproducible (sorted entries, npm's fixed timestamp).
"""
import gzip
import io
import json
import pathlib
import re
import sys
import tarfile

from unity_plugins import PLUGINS, file_meta, folder_meta, plugin_meta

NPM_MTIME = 499162500  # 1985-10-26T08:15:00Z, the time `npm pack` gives every entry
SHIPPED = ("package.json", "package.json.meta", "README.md", "README.md.meta", "Runtime.meta")
SHIPPED_TREES = ("Runtime", "Samples~")
SKIPPED_DIRS = {"bin", "obj"}  # build output of the .NET sample projects
LICENCES = ("LICENSE-MIT", "LICENSE-APACHE")


def fail(message):
    sys.exit(f"unity/upm.py: {message}")


def source_files(source):
    """The binding's files that ship: {path in the package: bytes}."""
    files = {}
    for name in SHIPPED:
        files[name] = (source / name).read_bytes()
    for tree in SHIPPED_TREES:
        for path in sorted((source / tree).rglob("*")):
            rel = path.relative_to(source)
            if path.is_file() and not SKIPPED_DIRS.intersection(rel.parts):
                files[rel.as_posix()] = path.read_bytes()
    return files


def with_version(manifest, version):
    """package.json as written, with its "version" set."""
    data = json.loads(manifest)
    if data.get("name") != "com.robota.native":
        fail(f"package.json names {data.get('name')!r}, expected \"com.robota.native\"")
    text, count = re.subn(r'("version"\s*:\s*)"[^"]*"', rf'\g<1>"{version}"', manifest.decode(), count=1)
    if count != 1:
        fail('package.json has no "version"')
    return text.encode()


def add_plugins(files, specs):
    seen = set()
    for spec in specs:
        platform, _, path = spec.partition("=")
        if not path:
            fail(f'"{spec}" is not PLATFORM=PATH')
        if platform not in PLUGINS:
            fail(f'unknown platform "{platform}" (one of {", ".join(PLUGINS)})')
        if platform in seen:
            fail(f"platform {platform} is given twice")
        seen.add(platform)
        plugin = PLUGINS[platform]
        try:
            data = pathlib.Path(path).read_bytes()
        except OSError as error:
            fail(f"{platform}: {error}")
        if not data.startswith(plugin.magic):
            fail(f"{platform}: {path} is not a {plugin.path.rsplit('/', 1)[1]} for that platform "
                 f"(its first bytes are {data[:8].hex()})")
        target = f"Runtime/Plugins/{plugin.path}"
        files[target] = data
        files[f"{target}.meta"] = plugin_meta(plugin, target).encode()


def add_missing_metas(files):
    """A .meta for every asset and folder Unity imports that has none (folders ending in ~ are not imported)."""
    assets = [name for name in files if not name.endswith(".meta")]
    folders = {"/".join(name.split("/")[:i]) for name in assets for i in range(1, name.count("/") + 1)}
    for path in sorted(set(assets) | folders):
        if "~" in path or f"{path}.meta" in files:
            continue
        files[f"{path}.meta"] = (folder_meta(path) if path in folders else file_meta(path)).encode()


def write_tgz(files, out):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mtime, info.mode = len(files[name]), NPM_MTIME, 0o644
            tar.addfile(info, io.BytesIO(files[name]))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(buffer.getvalue())


def main(argv):
    if len(argv) < 5:
        fail("usage: upm.py SOURCE VERSION OUT.tgz PLATFORM=PATH [PLATFORM=PATH ...]")
    source, version, out = pathlib.Path(argv[1]), argv[2], pathlib.Path(argv[3])
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        fail(f'version "{version}" is not major.minor.patch')
    files = source_files(source)
    files["package.json"] = with_version(files["package.json"], version)
    root = source.resolve().parents[1]
    for name in LICENCES:
        files[name] = (root / name).read_bytes()
    add_plugins(files, argv[4:])
    add_missing_metas(files)
    write_tgz(files, out)
    print(f"unity/upm.py: wrote {out} ({len(files)} files)")


if __name__ == "__main__":
    main(sys.argv)
