"""The ``fcm-emu`` console command: runs the binary bundled in the wheel with the same arguments."""

from __future__ import annotations

import os
import sys
from typing import NoReturn, Optional, Sequence

from ._binary import ENV_BIN, bundled_binary, is_python_script


def main(argv: Optional[Sequence[str]] = None) -> NoReturn:
    """Replaces this process with the fcm-emu binary (``$FCM_EMU_BIN``, else the bundled one).

    The exit code is the binary's own, since the process becomes the binary. Without a binary,
    prints what to do and exits with 127 (as a shell does for a command it cannot find).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    binary = os.environ.get(ENV_BIN) or (str(bundled_binary()) if bundled_binary() else None)
    if binary is None:
        sys.stderr.write(
            "fcm-emu: this installation has no bundled fcm-emu binary (it was installed from source, "
            "not from a platform wheel).\n"
            "  Set FCM_EMU_BIN to an fcm-emu executable (e.g. .build/release/fcm-emu after "
            "`swift build -c release`),\n"
            "  or install the platform wheel: pip install fcm_emu-<version>-py3-none-manylinux_*.whl\n")
        sys.exit(127)
    if is_python_script(binary):
        sys.stderr.write(f"fcm-emu: {ENV_BIN}={binary} is a Python script (this command?), not the fcm-emu binary\n")
        sys.exit(126)
    if not os.access(binary, os.X_OK):
        sys.stderr.write(f"fcm-emu: {binary} is not an executable file\n")
        sys.exit(126)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(binary, [binary, *args])
    except OSError as error:
        sys.stderr.write(f"fcm-emu: cannot run {binary}: {error}\n")
        sys.exit(126)


if __name__ == "__main__":
    main()
