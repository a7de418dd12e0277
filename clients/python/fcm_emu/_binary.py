"""Finding the fcm-emu executable.

The lookup order is: an explicit path, then ``$FCM_EMU_BIN``, then the binary bundled in the wheel
(``fcm_emu/bin/fcm-emu``), then an ``fcm-emu`` on ``PATH`` that is a real executable and not the
Python console script this package installs (which would only call back into this lookup).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from .errors import BinaryNotFound

__all__ = ["find_binary", "bundled_binary", "is_python_script"]

ENV_BIN = "FCM_EMU_BIN"
_NAME = "fcm-emu.exe" if os.name == "nt" else "fcm-emu"


def bundled_binary() -> Optional[Path]:
    """The binary shipped inside the wheel, or ``None`` when the package was installed from source."""
    candidate = Path(__file__).resolve().parent / "bin" / _NAME
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def is_python_script(path: Union[str, Path]) -> bool:
    """Whether ``path`` is a script run by Python (such as pip's console-script wrapper).

    Looks at the first line: a ``#!`` line naming python, or the ``'''exec'`` trampoline pip writes
    when the interpreter's path is too long for a shebang.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    if not head.startswith(b"#!"):
        return False
    first_line = head.split(b"\n", 1)[0].lower()
    return b"python" in first_line or b"exec'" in head or b"fcm_emu" in head


def _on_path() -> Optional[Path]:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory:
            continue
        candidate = Path(directory) / _NAME
        if candidate.is_file() and os.access(candidate, os.X_OK) and not is_python_script(candidate):
            return candidate
    return None


def find_binary(explicit: Union[str, Path, None] = None) -> Path:
    """Returns the fcm-emu executable to run.

    Raises:
        BinaryNotFound: nothing usable was found; the message lists what was tried.
    """
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise BinaryNotFound(f"fcm-emu binary {path} does not exist")
        return path
    from_env = os.environ.get(ENV_BIN)
    if from_env:
        path = Path(from_env)
        if not path.is_file():
            raise BinaryNotFound(f"{ENV_BIN}={from_env} does not name a file")
        return path
    bundled = bundled_binary()
    if bundled is not None:
        return bundled
    found = _on_path()
    if found is not None:
        return found
    raise BinaryNotFound(
        "no fcm-emu binary: set FCM_EMU_BIN to the path of one (e.g. .build/debug/fcm-emu after "
        "`swift build`), or install the platform wheel of fcm-emu, which bundles it "
        "(this package was installed without the binary, e.g. from source)")
