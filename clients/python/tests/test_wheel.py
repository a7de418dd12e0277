"""build_wheel.py: the platform wheel of the binary, installed with pip into a fresh venv."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
import build_wheel  # noqa: E402

BINARY = Path(os.environ.get("FCM_EMU_BIN", ""))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, str(HERE / "build_wheel.py"), "--binary", str(BINARY), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


def test_the_wheel_s_name_version_and_tag(wheel: Path) -> None:
    version = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True).stdout.split()[-1]
    objdump = shutil.which("objdump")
    needed = build_wheel.Elf(BINARY).version_needs()
    newest = max((tuple(map(int, m.groups())) for m in (re.match(r"GLIBC_(\d+)\.(\d+)", v) for v in needed) if m))
    if objdump:
        listed = subprocess.run([objdump, "-T", str(BINARY)], capture_output=True, text=True).stdout
        assert max(tuple(map(int, v)) for v in re.findall(r"GLIBC_(\d+)\.(\d+)", listed)) == newest
    arch = {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}[os.uname().machine]
    assert wheel.name == f"fcm_emu-{version}-py3-none-manylinux_{newest[0]}_{newest[1]}_{arch}.whl"


def test_the_wheel_s_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = archive.getinfo("fcm_emu/bin/fcm-emu")
        assert (info.external_attr >> 16) & 0o777 == 0o755
        assert archive.read("fcm_emu/bin/fcm-emu") == BINARY.read_bytes()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        record = list(csv.reader(io.StringIO(archive.read(f"{dist_info}/RECORD").decode())))
        assert {row[0] for row in record} == set(names)
        for name, digest, size in record:
            if name.endswith("RECORD"):
                assert digest == size == ""
                continue
            data = archive.read(name)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
        assert "fcm-emu = fcm_emu._cli:main" in entry_points
        assert "[pytest11]" in entry_points and "fcm_emu = fcm_emu.pytest_plugin" in entry_points
        wheel_file = archive.read(f"{dist_info}/WHEEL").decode()
        assert "Root-Is-Purelib: false" in wheel_file and "Tag: py3-none-manylinux_" in wheel_file
        metadata = archive.read(f"{dist_info}/METADATA").decode()
        assert "Name: fcm-emu" in metadata and "not yet published on pypi" in metadata.lower()
        assert b"__version__" in archive.read("fcm_emu/_version.py")
        assert "fcm_emu/pytest_plugin.py" in names and "fcm_emu/py.typed" in names
        assert "fcm_emu/_watchdog.py" in names   # run as a script by every started emulator


def test_the_elf_reader_without_objdump(monkeypatch: pytest.MonkeyPatch) -> None:
    with_objdump = build_wheel.platform_tag(BINARY)[0]
    monkeypatch.setattr(build_wheel.shutil, "which", lambda name: None)
    tag, how = build_wheel.platform_tag(BINARY)
    assert (tag, how) == (with_objdump, ".gnu.version_r")


def test_pip_installs_it_into_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "--quiet",
                          "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("FCM_EMU_BIN", "PYTHONPATH")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin"
    expected = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True).stdout
    done = subprocess.run(["fcm-emu", "--version"], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, expected)
    probe = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import fcm_emu; print(fcm_emu.__version__); print(fcm_emu.find_binary())"],
                           env=env, capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    version, found = probe.stdout.split()
    assert version == expected.split()[-1]
    assert found.startswith(str(venv)) and found.endswith("fcm_emu/bin/fcm-emu")
    assert os.access(found, os.X_OK)
