"""The native plugins of the Unity package: where each platform's library goes and how Unity's
plugin importer is set up for it (its .meta file). Used by upm.py (writes them) and check.py
(verifies them)."""
import hashlib
from dataclasses import dataclass

# The magic numbers of the library formats, to refuse a file built for another platform.
ELF, PE, AR = (b"\x7fELF",), (b"MZ",), (b"!<arch>\n",)
MACH_O = (b"\xca\xfe\xba\xbe", b"\xcf\xfa\xed\xfe")  # universal, 64-bit


@dataclass(frozen=True)
class Plugin:
    path: str  # under the package's Runtime/Plugins/
    target: tuple  # the importer's platform entry that loads it: (group, name)
    cpu: str
    editor_os: str  # the Editor loads it on this OS; "" = never in the Editor
    magic: tuple


PLUGINS = {
    "linux-x64": Plugin("Linux/x86_64/librobota.so", ("Standalone", "Linux64"), "x86_64", "Linux", ELF),
    "osx": Plugin("macOS/librobota.dylib", ("Standalone", "OSXUniversal"), "AnyCPU", "OSX", MACH_O),
    "win-x64": Plugin("Windows/x86_64/robota.dll", ("Standalone", "Win64"), "x86_64", "Windows", PE),
    "android-arm64-v8a": Plugin("Android/arm64-v8a/librobota.so", ("Android", "Android"), "ARM64", "", ELF),
    "android-armeabi-v7a": Plugin("Android/armeabi-v7a/librobota.so", ("Android", "Android"), "ARMv7", "", ELF),
    "ios": Plugin("iOS/librobota.a", ("iPhone", "iOS"), "ARM64", "", AR),
}

# The "Exclude <name>" switches of the importer's Any entry, one per build target.
TARGETS = ("Android", "Editor", "Linux64", "OSXUniversal", "Win", "Win64", "iOS")


def guid(path):
    """A stable GUID for a generated .meta: derived from the asset's path in the package."""
    return hashlib.md5(f"com.robota.native/{path}".encode()).hexdigest()


def plugin_meta(plugin, path):
    """The .meta of a native plugin at `path`: enabled for its target (and the Editor on its OS)."""
    enabled = {plugin.target[1]} | ({"Editor"} if plugin.editor_os else set())
    excludes = "".join(f"        Exclude {t}: {0 if t in enabled else 1}\n" for t in TARGETS)
    extra = "        AddToEmbeddedBinaries: false\n" if plugin.target == ("iPhone", "iOS") else ""
    editor = (f"      enabled: {1 if plugin.editor_os else 0}\n      settings:\n"
              f"        CPU: {plugin.cpu if plugin.editor_os else 'AnyCPU'}\n"
              f"        DefaultValueInitialized: true\n        OS: {plugin.editor_os or 'AnyOS'}\n")
    return (f"fileFormatVersion: 2\nguid: {guid(path)}\nPluginImporter:\n  externalObjects: {{}}\n"
            "  serializedVersion: 2\n  iconMap: {}\n  executionOrder: {}\n  defineConstraints: []\n"
            "  isPreloaded: 0\n  isOverridable: 0\n  isExplicitlyReferenced: 0\n  validateReferences: 1\n"
            "  platformData:\n"
            f"  - first:\n      : Any\n    second:\n      enabled: 0\n      settings:\n{excludes}"
            "  - first:\n      Any: \n    second:\n      enabled: 0\n      settings: {}\n"
            f"  - first:\n      Editor: Editor\n    second:\n{editor}"
            f"  - first:\n      {plugin.target[0]}: {plugin.target[1]}\n    second:\n      enabled: 1\n"
            f"      settings:\n{extra}        CPU: {plugin.cpu}\n"
            "  userData: \n  assetBundleName: \n  assetBundleVariant: \n")


def folder_meta(path):
    return (f"fileFormatVersion: 2\nguid: {guid(path)}\nfolderAsset: yes\nDefaultImporter:\n"
            "  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n")


def file_meta(path):
    importer = "TextScriptImporter" if path.endswith((".md", ".txt")) else "DefaultImporter"
    return (f"fileFormatVersion: 2\nguid: {guid(path)}\n{importer}:\n"
            "  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n")
