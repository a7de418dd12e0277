#!/usr/bin/env python3
"""Builds the platform wheel of fcm-emu with the standard library alone.

    python3 build_wheel.py --binary .build/release/fcm-emu --out dist/

The wheel holds the ``fcm_emu`` package, the binary as ``fcm_emu/bin/fcm-emu`` (mode 0755), and
``fcm_emu/_version.py``. The version is the binary's own (``fcm-emu --version``), so that it is
defined in one place, the Swift source. The platform tag is ``manylinux_2_{y}_{arch}``, where
``2.y`` is the newest glibc symbol version the binary requires (read with ``objdump -T`` when it is
installed, else from the ELF's ``.gnu.version_r`` section) and ``arch`` its ELF machine.

A binary for distribution should link the Swift runtime statically
(``swift build -c release --static-swift-stdlib``); the script warns when it does not, since such
a wheel only runs where that Swift runtime is installed.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import os
import platform
import re
import shutil
import stat
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
PACKAGE = "fcm_emu"
DISTRIBUTION = "fcm-emu"
WHEEL_NAME = "fcm_emu"

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NEEDED = 1


# -- reading the binary -----------------------------------------------------------------------------


class Elf:
    """The few facts about an ELF executable the wheel's tag needs (64-bit, little-endian)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = path.read_bytes()
        if self.data[:4] != b"\x7fELF":
            raise ValueError(f"{path} is not an ELF executable (only Linux wheels are built)")
        if self.data[4] != 2 or self.data[5] != 1:
            raise ValueError(f"{path}: only 64-bit little-endian ELF is supported")
        (self.machine,) = struct.unpack_from("<H", self.data, 18)
        self.shoff, = struct.unpack_from("<Q", self.data, 0x28)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHH", self.data, 0x3A)

    @property
    def arch(self) -> str:
        try:
            return ELF_MACHINES[self.machine]
        except KeyError:
            raise ValueError(f"{self.path}: ELF machine {self.machine} has no manylinux tag here") from None

    def sections(self) -> List[Tuple[int, int, int, int, int]]:
        """(type, offset, size, link, info) of every section."""
        found = []
        for index in range(self.shnum):
            base = self.shoff + index * self.shentsize
            _name, kind, _flags, _addr, offset, size, link, info = struct.unpack_from("<IIQQQQII", self.data, base)
            found.append((kind, offset, size, link, info))
        return found

    def _string(self, table_offset: int, index: int) -> str:
        start = table_offset + index
        end = self.data.index(b"\0", start)
        return self.data[start:end].decode("ascii", "replace")

    def version_needs(self) -> List[str]:
        """The symbol versions required from shared libraries (GLIBC_2.34, ...)."""
        sections = self.sections()
        names: List[str] = []
        for kind, offset, _size, link, count in sections:
            if kind != SHT_GNU_VERNEED:
                continue
            strtab = sections[link][1]
            entry = offset
            for _ in range(count):
                _version, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", self.data, entry)
                aux_at = entry + aux
                for _ in range(cnt):
                    _hash, _flags, _other, name, aux_next = struct.unpack_from("<IHHII", self.data, aux_at)
                    names.append(self._string(strtab, name))
                    if not aux_next:
                        break
                    aux_at += aux_next
                if not nxt:
                    break
                entry += nxt
        return names

    def needed(self) -> List[str]:
        """The shared libraries it links (DT_NEEDED)."""
        sections = self.sections()
        libraries: List[str] = []
        for kind, offset, size, link, _info in sections:
            if kind != SHT_DYNAMIC:
                continue
            strtab = sections[link][1]
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", self.data, at)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    libraries.append(self._string(strtab, value))
        return libraries


def glibc_versions_objdump(binary: Path) -> Optional[List[Tuple[int, int]]]:
    """The GLIBC_x.y versions ``objdump -T`` lists, or None without objdump."""
    objdump = shutil.which("objdump")
    if objdump is None:
        return None
    done = subprocess.run([objdump, "-T", str(binary)], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return [(int(a), int(b)) for a, b in re.findall(r"GLIBC_(\d+)\.(\d+)", done.stdout)]


def running_glibc() -> Tuple[int, int]:
    """The glibc of this machine (the last resort)."""
    name, version = platform.libc_ver()
    match = re.match(r"(\d+)\.(\d+)", version or "")
    if name == "glibc" and match:
        return int(match.group(1)), int(match.group(2))
    try:
        value = os.confstr("CS_GNU_LIBC_VERSION") or ""
        match = re.search(r"(\d+)\.(\d+)", value)
        if match:
            return int(match.group(1)), int(match.group(2))
    except (ValueError, OSError, AttributeError):
        pass
    raise SystemExit("cannot tell which glibc the binary needs (no objdump, no symbol versions, no glibc here)")


def platform_tag(binary: Path) -> Tuple[str, str]:
    """(``manylinux_2_y_arch``, how ``2.y`` was found)."""
    elf = Elf(binary)
    versions = glibc_versions_objdump(binary)
    how = "objdump -T"
    if not versions:
        versions = [(int(a), int(b)) for a, b in
                    (re.match(r"GLIBC_(\d+)\.(\d+)", v).groups() for v in elf.version_needs()  # type: ignore[union-attr]
                     if re.match(r"GLIBC_(\d+)\.(\d+)", v))]
        how = ".gnu.version_r"
    if versions:
        major, minor = max(versions)
    elif not elf.needed():
        major, minor = 2, 17  # static: the oldest glibc manylinux still names
        how = "static binary"
    else:
        major, minor = running_glibc()
        how = "this machine's glibc (the binary names no symbol versions)"
    return f"manylinux_{major}_{max(minor, 17)}_{elf.arch}", how


def binary_version(binary: Path) -> str:
    """The version ``BINARY --version`` prints, as a PEP 440 version."""
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise SystemExit(f"{binary} --version failed ({done.returncode}): {done.stderr.strip()}")
    words = (done.stdout.strip() or done.stderr.strip()).split()
    if not words:
        raise SystemExit(f"{binary} --version printed nothing")
    version = words[-1].lstrip("v")
    # 0.1.0-dev.3+abc → 0.1.0.dev3+abc (PEP 440)
    version = re.sub(r"-(dev|a|b|rc)\.?(\d*)", lambda m: f".{m.group(1)}{m.group(2) or '0'}", version)
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[a-zA-Z0-9.]+)?", version):
        raise SystemExit(f"{binary} --version printed {done.stdout.strip()!r}, not a version")
    return version


# -- writing the wheel ------------------------------------------------------------------------------


def read_project() -> Dict[str, object]:
    """The [project] table of pyproject.toml (tomllib when there is one, else a tiny reader)."""
    text = (HERE / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+

        return tomllib.loads(text)["project"]
    except ModuleNotFoundError:  # pragma: no cover - older Python
        raise SystemExit("build_wheel.py needs Python 3.11 or newer (tomllib)") from None


def metadata(project: Dict[str, object], version: str) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {DISTRIBUTION}", f"Version: {version}"]
    lines.append(f"Summary: {project.get('description', '')}")
    for url_name, url in dict(project.get("urls", {})).items():  # type: ignore[arg-type]
        lines.append(f"Project-URL: {url_name}, {url}")
    license_value = project.get("license")
    if isinstance(license_value, dict) and "text" in license_value:
        lines.append(f"License: {license_value['text']}")
    elif isinstance(license_value, str):
        lines.append(f"License: {license_value}")
    for keyword in [",".join(project.get("keywords", []))] if project.get("keywords") else []:  # type: ignore[arg-type]
        lines.append(f"Keywords: {keyword}")
    for classifier in project.get("classifiers", []):  # type: ignore[union-attr]
        lines.append(f"Classifier: {classifier}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    for extra, requirements in dict(project.get("optional-dependencies", {})).items():  # type: ignore[arg-type]
        lines.append(f"Provides-Extra: {extra}")
        for requirement in requirements:
            lines.append(f'Requires-Dist: {requirement} ; extra == "{extra}"')
    lines.append("Description-Content-Type: text/markdown")
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def entry_points(project: Dict[str, object]) -> str:
    out = io.StringIO()
    scripts = dict(project.get("scripts", {}))  # type: ignore[arg-type]
    if scripts:
        out.write("[console_scripts]\n")
        for name, target in scripts.items():
            out.write(f"{name} = {target}\n")
        out.write("\n")
    for group, entries in dict(project.get("entry-points", {})).items():  # type: ignore[arg-type]
        out.write(f"[{group}]\n")
        for name, target in entries.items():
            out.write(f"{name} = {target}\n")
        out.write("\n")
    return out.getvalue()


class WheelWriter:
    """A zip with RECORD kept as files are added (sha256, urlsafe base64, no padding)."""

    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.records: List[Tuple[str, str, str]] = []
        self.when = time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())))[:6]

    def add(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(name, date_time=max(self.when, (1980, 1, 1, 0, 0, 0)))
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append((name, f"sha256={digest}", str(len(data))))

    def close(self, record_name: str) -> None:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        for row in self.records:
            writer.writerow(row)
        writer.writerow((record_name, "", ""))
        info = zipfile.ZipInfo(record_name, date_time=max(self.when, (1980, 1, 1, 0, 0, 0)))
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, out.getvalue())
        self.zip.close()


def package_files() -> Iterable[Path]:
    for path in sorted((HERE / PACKAGE).rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
            continue
        relative = path.relative_to(HERE / PACKAGE)
        if relative.parts[0] == "bin" or relative.name == "_version.py":
            continue
        yield path


SWIFT_VERSION_FILE = HERE.parent.parent / "Sources" / "FCMCore" / "FCMEmuVersion.swift"


def source_version() -> str:
    """The version in the Swift source (for wheels built without a binary), or in PKG-INFO when
    building from an unpacked sdist, else ``0+unknown``."""
    pkg_info = HERE / "PKG-INFO"
    if pkg_info.is_file():
        found = re.search(r"^Version: (\S+)$", pkg_info.read_text(encoding="utf-8"), re.M)
        if found:
            return found.group(1)
    try:
        match = re.search(r'static let current = "([^"]+)"', SWIFT_VERSION_FILE.read_text(encoding="utf-8"))
    except OSError:
        match = None
    return match.group(1) if match else "0+unknown"


def build(binary: Optional[Path], out: Path, *, tag: Optional[str] = None, version: Optional[str] = None,
          editable: bool = False) -> Path:
    """Writes the wheel into ``out`` and returns its path.

    With a binary: the platform wheel. Without: a pure ``py3-none-any`` wheel with no binary (what
    ``pip install clients/python`` builds through the PEP 517 hooks below); its ``fcm-emu`` command
    then asks for ``FCM_EMU_BIN``. ``editable`` makes a wheel that points at this source tree.
    """
    if binary is not None:
        binary = binary.resolve()
        if not binary.is_file():
            raise SystemExit(f"no binary at {binary}")
        version = version or binary_version(binary)
        if tag is None:
            tag, how = platform_tag(binary)
            print(f"platform tag {tag} (glibc from {how})", file=sys.stderr)
        swift_runtime = [lib for lib in Elf(binary).needed() if lib.startswith(("libswift", "libFoundation"))]
        if swift_runtime:
            print(f"warning: {binary.name} links the Swift runtime dynamically ({', '.join(swift_runtime)}); the "
                  "wheel will only run where that runtime is installed. Build it with "
                  "`swift build -c release --static-swift-stdlib` for distribution.", file=sys.stderr)
    else:
        version = version or source_version()
        tag = tag or "any"
    project = read_project()
    out.mkdir(parents=True, exist_ok=True)
    wheel_tag = f"py3-none-{tag}"
    path = out / f"{WHEEL_NAME}-{version}-{wheel_tag}.whl"
    dist_info = f"{WHEEL_NAME}-{version}.dist-info"
    writer = WheelWriter(path)
    if editable:
        writer.add(f"__editable__.{WHEEL_NAME}.pth", f"{HERE}\n".encode())
    else:
        for file in package_files():
            writer.add(f"{PACKAGE}/{file.relative_to(HERE / PACKAGE).as_posix()}", file.read_bytes())
        writer.add(f"{PACKAGE}/_version.py",
                   f'"""Written by build_wheel.py."""\n\n__version__ = "{version}"\n'.encode())
    if binary is not None:
        writer.add(f"{PACKAGE}/bin/fcm-emu", binary.read_bytes(), mode=0o755)
    writer.add(f"{dist_info}/METADATA", metadata(project, version).encode("utf-8"))
    writer.add(f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\n"
        "Generator: fcm-emu build_wheel.py\n"
        f"Root-Is-Purelib: {'false' if binary is not None else 'true'}\n"
        f"Tag: {wheel_tag}\n").encode())
    writer.add(f"{dist_info}/entry_points.txt", entry_points(project).encode())
    writer.add(f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())
    for license_file in (HERE / "LICENSE", HERE.parent.parent / "LICENSE"):
        if license_file.is_file():
            writer.add(f"{dist_info}/LICENSE", license_file.read_bytes())
            break
    writer.close(f"{dist_info}/RECORD")
    return path


# -- PEP 517 hooks: `pip install clients/python` builds the pure wheel (no binary) with this file ----


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


get_requires_for_build_editable = get_requires_for_build_wheel
get_requires_for_build_sdist = get_requires_for_build_wheel


def _hook_binary(config_settings: Optional[Dict[str, object]]) -> Optional[Path]:
    value = (config_settings or {}).get("binary")
    return Path(str(value)) if value else None


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None,
                metadata_directory: Optional[str] = None) -> str:
    """PEP 517: the pure wheel, or the platform wheel with ``--config-settings binary=PATH``."""
    return build(_hook_binary(config_settings), Path(wheel_directory)).name


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose .pth file puts this directory on sys.path."""
    return build(None, Path(wheel_directory), editable=True).name


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, object]] = None) -> str:
    """PEP 517: the source distribution (the package, this script, the manifest, README, tests)."""
    import tarfile

    version = source_version()
    name = f"{WHEEL_NAME}-{version}"
    path = Path(sdist_directory) / f"{name}.tar.gz"
    project = read_project()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add_bytes(member: str, data: bytes) -> None:
            info = tarfile.TarInfo(f"{name}/{member}")
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            tar.addfile(info, io.BytesIO(data))

        for file in [*package_files(), *sorted((HERE / "tests").glob("*.py"))]:
            add_bytes(file.relative_to(HERE).as_posix(), file.read_bytes())
        for extra in ("build_wheel.py", "pyproject.toml", "README.md"):
            add_bytes(extra, (HERE / extra).read_bytes())
        add_bytes("PKG-INFO", metadata(project, version).encode("utf-8"))
    return path.name


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Build the fcm-emu platform wheel (standard library only).")
    parser.add_argument("--binary", required=True, type=Path, help="the fcm-emu executable to bundle")
    parser.add_argument("--out", required=True, type=Path, help="directory for the .whl")
    parser.add_argument("--plat-name", default=None, help="override the platform tag (e.g. manylinux_2_28_x86_64)")
    parser.add_argument("--version", default=None, help="override the version (default: BINARY --version)")
    args = parser.parse_args(argv)
    print(build(args.binary, args.out, tag=args.plat_name, version=args.version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
