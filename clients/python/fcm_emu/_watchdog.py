"""The watchdog a started emulator runs under, so that it never outlives the process that started it.

    python -I -S _watchdog.py STOP_TIMEOUT REMOVE_DIR -- COMMAND...

Its standard input is the *lifeline*: a pipe whose only writer is the process that started the
emulator (:class:`fcm_emu.Emulator`). The kernel closes that writer when its process ends in any way,
SIGKILL and the OOM killer included, so end of file here means "stop": the watchdog sends SIGTERM to
the emulator (a clean shutdown, which removes the emulator's own temporary files and frees its
ports), SIGKILL after STOP_TIMEOUT seconds, and once it has exited removes REMOVE_DIR (the helper's
private directory, with the ready file and the log; empty: nothing) unless the starter wrote
``stop`` before closing the pipe (``Emulator.stop()``, which then cleans up itself and may keep the
directory). A SIGTERM, SIGINT or SIGHUP to the watchdog is passed on to the emulator as SIGTERM.
The watchdog exits as soon as the emulator does, with its status, so the starter can watch the
watchdog as it would the emulator.

This file is run as a script, never imported by the package: standard library only, and run with
``-I -S`` so that neither the test environment's ``PYTHON*`` variables nor its ``site-packages``
(``.pth`` files run code at start) can slow or break it.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
from typing import Callable, List, Optional

LIFELINE = 0  # standard input


def _die_with_watchdog() -> Optional[Callable[[], None]]:
    """A ``preexec_fn`` that, on Linux, asks for SIGTERM to the emulator when this watchdog dies
    outright (a SIGKILL aimed at it alone), the one end no pipe reports. It is safe here and not in
    the test process: this process has a single thread until the emulator is started, and the thread
    that starts it (the one PR_SET_PDEATHSIG watches) lives as long as the process."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    watchdog = os.getpid()

    def preexec() -> None:
        prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
        if os.getppid() != watchdog:  # died before the request took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def main(argv: List[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: _watchdog.py STOP_TIMEOUT REMOVE_DIR -- COMMAND...\n")
        return 2
    stop_timeout, remove, command = float(argv[0]), argv[1], argv[3:]
    try:
        emulator = subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=_die_with_watchdog())
    except OSError as error:
        sys.stderr.write(f"fcm-emu watchdog: cannot run {command[0]}: {error}\n")
        return 127

    exited = threading.Event()
    lifeline_closed = threading.Event()
    stop_said = threading.Event()

    def stop(*_: object) -> None:
        try:
            emulator.send_signal(signal.SIGTERM)
        except OSError:
            pass

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, stop)

    def watch() -> None:
        heard = b""
        while True:
            try:
                chunk = os.read(LIFELINE, 64)
            except OSError:
                chunk = b""
            if not chunk:
                break
            heard = (heard + chunk)[-64:]
        if b"stop" in heard:
            stop_said.set()
        lifeline_closed.set()
        stop()
        if not exited.wait(stop_timeout):
            try:
                emulator.kill()
            except OSError:
                pass

    threading.Thread(target=watch, name="lifeline", daemon=True).start()
    code = emulator.wait()
    exited.set()
    if remove and lifeline_closed.is_set() and not stop_said.is_set():
        shutil.rmtree(remove, ignore_errors=True)
    if code < 0:  # killed by a signal: end the same way, so the starter sees what the emulator got
        try:
            if -code != signal.SIGKILL:
                signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        except (OSError, ValueError):
            pass
        return 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
