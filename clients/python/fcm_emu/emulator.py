"""Starting an fcm-emu process on free ports, or attaching to one that runs already."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Set, Union

from ._binary import find_binary
from .client import CONTROL_API_ENV, Client, Project
from .errors import EmulatorNotReady, FcmEmuError

if TYPE_CHECKING:
    from .receiver import Receiver

__all__ = ["Emulator"]

#: Settings every started emulator gets unless overridden: every port chosen by the system, no
#: second XMPP port, the HTTPS proxy on, nothing kept on disk.
DEFAULT_SETTINGS: Dict[str, str] = {
    "tlsPort": "0",
    "xmppPort": "0",
    "xmppTestPort": "off",
    "proxyPort": "0",
}


#: The watchdog every started emulator runs under (a script, run by this interpreter).
#:
#: A started emulator must not outlive this process, however it ends: a CI timeout's or the OOM
#: killer's SIGKILL runs no ``finally``, ``atexit`` or fixture teardown, and the emulator would keep
#: its ports and temporary directories. What survives every kind of death is the kernel closing a
#: dead process's file descriptors, so the emulator runs under a small watchdog whose standard input
#: is a pipe (the *lifeline*) that only this process writes to: end of file there, whatever the
#: cause, makes the watchdog stop the emulator (SIGTERM, then SIGKILL) and remove the directory this
#: process made for it. That works on Linux and macOS alike. Linux's parent-death signal
#: (``prctl(PR_SET_PDEATHSIG)``) was not chosen for this process's child: it fires when the *thread*
#: that started the child exits (a fixture may start the emulator from a short-lived thread), it
#: needs a ``preexec_fn``, which is unsafe in a process that has threads (a fork may copy a lock
#: another thread holds), and it could not remove the directory. The watchdog itself, which has one
#: thread when it starts the emulator, does use it as a second guard (see ``_watchdog.py``).
WATCHDOG = Path(__file__).with_name("_watchdog.py")

#: Write ends of the lifelines this process holds. A child made by a bare ``fork()``
#: (``multiprocessing``'s default start method on Linux) inherits every descriptor, and would hold a
#: lifeline open after this process is gone, so the child's copies are pointed at /dev/null at once.
#: (Children started with ``exec`` never get them: pipes are opened close-on-exec.)
_lifelines: Set[int] = set()


def _drop_lifelines_in_child() -> None:
    if not _lifelines:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:  # pragma: no cover - no /dev/null
        return
    try:
        for fd in list(_lifelines):
            try:
                # Replaced rather than closed: the Emulator objects copied into the child still
                # name the descriptor, and a number closed here could be reused for another file.
                os.dup2(devnull, fd, inheritable=False)
            except OSError:
                pass
    finally:
        os.close(devnull)
    _lifelines.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_lifelines_in_child)


def _setting(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Emulator:
    """One fcm-emu emulator: started here (:meth:`start`, or ``with Emulator() as emu:``) or
    attached to (:meth:`attach`).

    Args:
        binary: the fcm-emu executable; default: ``$FCM_EMU_BIN``, the binary bundled in the
            wheel, then ``fcm-emu`` on PATH (see :func:`fcm_emu.find_binary`).
        settings: extra ``--set key=value`` settings (e.g. ``{"clockPaused": True}``); they
            override the defaults (free ports for HTTP, TLS, XMPP and the proxy).
        state_dir: where the emulator keeps keys and snapshots; ``None`` (default) keeps nothing.
        args: further command-line arguments for ``serve``.
        host: the address to listen on.
        log_level: ``serve --log-level``.
        startup_timeout: seconds to wait for the ready file.
        stop_timeout: seconds to wait after SIGTERM before killing it.
        env: extra environment variables for the process.

    The process's ready file and log live in a private temporary directory (:attr:`workdir`),
    removed by :meth:`stop` unless ``keep_workdir`` is set; the log's path appears in every error.

    A started emulator runs under a watchdog (:attr:`process`), which stops it and removes
    :attr:`workdir` when this process ends without :meth:`stop`, even by SIGKILL (see
    :data:`WATCHDOG`).
    """

    def __init__(
        self,
        binary: Union[str, Path, None] = None,
        *,
        settings: Optional[Mapping[str, Union[str, int, float, bool]]] = None,
        state_dir: Union[str, Path, None] = None,
        args: Sequence[str] = (),
        host: str = "127.0.0.1",
        log_level: str = "info",
        startup_timeout: float = 30.0,
        stop_timeout: float = 10.0,
        env: Optional[Mapping[str, str]] = None,
        keep_workdir: bool = False,
    ) -> None:
        self._binary_arg = binary
        self.settings: Dict[str, str] = dict(DEFAULT_SETTINGS)
        self.settings["stateDir"] = str(state_dir) if state_dir is not None else "none"
        for key, value in (settings or {}).items():
            self.settings[key] = _setting(value)
        self.args = list(args)
        self.host = host
        self.log_level = log_level
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.env = dict(env or {})
        self.keep_workdir = keep_workdir
        #: The watchdog the emulator runs under; it exits when the emulator does, with its status.
        self.process: Optional[subprocess.Popen[bytes]] = None
        self._lifeline: Optional[int] = None
        self._owner = os.getpid()
        self.workdir: Optional[Path] = None
        self.log_path: Optional[Path] = None
        self.ready: Dict[str, Any] = {}
        self._client: Optional[Client] = None
        self._attached = False

    # -- lifecycle ------------------------------------------------------------------------------

    @classmethod
    def attach(cls, url: Optional[str] = None, *, timeout: float = 10.0, ca_file: Optional[str] = None) -> "Emulator":
        """An Emulator for one that is already running; :meth:`stop` then leaves it running.

        ``url`` is its control API base (``http://127.0.0.1:9092/emulator/v1``); by default
        ``$FCM_EMU_CONTROL_API``. The addresses (TLS, proxy, CA) are read from its ``info``.
        ``ca_file`` (default ``$FCM_EMU_CA_FILE``) is the emulator's CA certificate, for an
        emulator on another machine (see :class:`~fcm_emu.Client` and
        :class:`~fcm_emu.FirebaseEnvironment` for what is trusted there).
        """
        url = url or os.environ.get(CONTROL_API_ENV)
        if not url:
            raise FcmEmuError(f"no emulator to attach to: pass url= or set {CONTROL_API_ENV} "
                              "(e.g. http://127.0.0.1:9092/emulator/v1)")
        emulator = cls()
        emulator._attached = True
        emulator._client = Client(url, timeout=timeout, ca_file=ca_file)
        emulator.ready = emulator._client.info()
        return emulator

    @property
    def attached(self) -> bool:
        """Whether this object attached to an emulator it did not start."""
        return self._attached

    @property
    def running(self) -> bool:
        """Whether the emulator is up: the process lives (started) or has been attached to."""
        if self._attached:
            return True
        return self.process is not None and self.process.poll() is None and bool(self.ready)

    def command(self, ready_file: Union[str, Path]) -> List[str]:
        """The ``serve`` command line this object runs."""
        argv = [str(self.binary), "serve", "--host", self.host, "--port", self.settings.get("port", "0"),
                "--ready-file", str(ready_file), "--log-level", self.log_level]
        for key, value in self.settings.items():
            if key != "port":
                argv += ["--set", f"{key}={value}"]
        return argv + self.args

    @property
    def binary(self) -> Path:
        """The executable that is (or would be) run."""
        return find_binary(self._binary_arg)

    def start(self) -> "Emulator":
        """Starts the process and waits for its ready file; returns self.

        Raises:
            EmulatorNotReady: the process exited, or wrote no ready file within
                ``startup_timeout`` (the message has the log's last lines).
            BinaryNotFound: no fcm-emu executable was found.
        """
        if self._attached:
            raise RuntimeError("an attached emulator cannot be started")
        if self.process is not None:
            raise RuntimeError("this emulator was started already")
        if not sys.executable:
            raise FcmEmuError("cannot start the emulator's watchdog: this interpreter does not know its "
                              "own executable (sys.executable is empty)")
        self.workdir = Path(tempfile.mkdtemp(prefix="fcm-emu-"))
        ready_file = self.workdir / "ready.json"
        self.log_path = self.workdir / "serve.log"
        try:
            argv = self.command(ready_file)   # finds the binary
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        self._owner = os.getpid()
        remove = "" if self.keep_workdir else str(self.workdir)
        watchdog = [sys.executable, "-I", "-S", str(WATCHDOG), f"{self.stop_timeout:g}", remove, "--", *argv]
        read_end, self._lifeline = os.pipe()
        _lifelines.add(self._lifeline)
        try:
            with open(self.log_path, "wb") as log:
                # A session of its own: a Ctrl-C at the terminal reaches pytest, whose teardown
                # stops the emulator, rather than killing it under a test; and a stop that times out
                # can kill the watchdog and the emulator together (one process group).
                self.process = subprocess.Popen(
                    watchdog, stdin=read_end, stdout=log, stderr=subprocess.STDOUT,
                    env={**os.environ, **self.env}, cwd=str(self.workdir), start_new_session=True)
        except BaseException:
            self._release_lifeline()
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        finally:
            os.close(read_end)
        try:
            self.ready = self._wait_ready(ready_file)
        except BaseException:
            self._terminate()
            raise
        # The emulator runs on this machine (this process started it), whatever address it listens
        # on: its token never leaves the machine.
        self._client = Client(self.ready["http"]["url"], token=self.ready.get("controlToken"), local=True)
        return self

    def _wait_ready(self, ready_file: Path) -> Dict[str, Any]:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        delay = 0.005
        while True:
            try:
                text = ready_file.read_text()
                if text.strip():
                    return json.loads(text)
            except FileNotFoundError:
                pass
            except ValueError:
                pass  # being written; read again
            code = self.process.poll()
            if code is not None:
                raise EmulatorNotReady(f"fcm-emu exited with code {code} before it was ready",
                                       log_path=str(self.log_path), log_tail=self.log_tail())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EmulatorNotReady(f"fcm-emu was not ready after {self.startup_timeout:g}s",
                                       log_path=str(self.log_path), log_tail=self.log_tail())
            # Wait on the process itself, so that an exit ends the wait at once.
            try:
                self.process.wait(timeout=min(delay, remaining))
            except subprocess.TimeoutExpired:
                pass
            delay = min(delay * 2, 0.1)

    def _release_lifeline(self) -> None:
        """Says ``stop`` on the lifeline and closes it: the watchdog then stops the emulator and
        leaves the work directory to :meth:`stop`."""
        fd, self._lifeline = self._lifeline, None
        if fd is None:
            return
        _lifelines.discard(fd)
        try:
            os.write(fd, b"stop\n")
        except OSError:  # the watchdog is gone already
            pass
        finally:
            os.close(fd)

    def _terminate(self) -> None:
        process = self.process
        if process is None:
            return
        self._release_lifeline()
        if process.poll() is not None:
            return
        try:
            process.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)   # the watchdog's group: it and the emulator
            except ProcessLookupError:  # pragma: no cover - exited in between
                pass
            process.wait(timeout=10)

    def stop(self) -> Optional[int]:
        """Stops a started emulator (SIGTERM, then SIGKILL after ``stop_timeout``); returns its exit
        code. Does nothing for an attached one, nor in a child made by ``fork()`` (the emulator is
        its parent's)."""
        if self._attached or self.process is None or os.getpid() != self._owner:
            return None
        self._terminate()
        code = self.process.returncode
        if self.workdir is not None and not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return code

    def __enter__(self) -> "Emulator":
        if not self._attached and self.process is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the emulator's log (started emulators only)."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
        return "\n".join(text.splitlines()[-lines:])

    # -- what it offers -------------------------------------------------------------------------

    @property
    def client(self) -> Client:
        """The control API client."""
        if self._client is None:
            raise RuntimeError("the emulator is not started")
        return self._client

    def project(self, project_id: Optional[str] = None) -> Project:
        """A project handle; the demo project by default."""
        return self.client.project(project_id or self.demo_project_id)

    @property
    def control_url(self) -> str:
        """The control API base, ``http://127.0.0.1:PORT/emulator/v1`` (the value for
        ``FCM_EMU_CONTROL_API``)."""
        return self.client.base_url

    @property
    def http_url(self) -> str:
        """The plain HTTP base URL (FCM's APIs and the control API)."""
        http = self.ready.get("http")
        return http["url"] if isinstance(http, dict) else self.control_url[: -len("/emulator/v1")]

    @property
    def https_url(self) -> Optional[str]:
        """The TLS (HTTP/2) base URL, when TLS is on."""
        https = self.ready.get("https")
        return https.get("url") if isinstance(https, dict) else None

    @property
    def tls_port(self) -> Optional[int]:
        """The TLS port, when TLS is on."""
        url = self.https_url
        return int(url.rsplit(":", 1)[1].split("/")[0]) if url else None

    @property
    def proxy_url(self) -> Optional[str]:
        """The HTTPS proxy's URL, when the proxy is on (``proxyPort``)."""
        proxy = self.ready.get("proxy")
        return proxy.get("url") if isinstance(proxy, dict) else None

    @property
    def ca_certificate(self) -> Optional[str]:
        """Path of the PEM file of the CA that signed the emulator's TLS certificates."""
        return self.ready.get("caCertificate")

    @property
    def xmpp_ports(self) -> List[int]:
        """The XMPP (CCS) ports, if any."""
        xmpp = self.ready.get("xmpp")
        return list(xmpp.get("ports", [])) if isinstance(xmpp, dict) else []

    def receiver(self, *, project: Optional[str] = None, vapid_key: Optional[str] = None) -> "Receiver":
        """A real receiver (firebase-messaging) registered with this emulator; use it with ``with``
        (see :class:`fcm_emu.receiver.Receiver`; needs ``pip install "fcm-emu[receiver]"``)."""
        from .receiver import Receiver

        return Receiver(self, project=project, vapid_key=vapid_key)

    @property
    def demo_project_id(self) -> str:
        """The demo project's id (``demo-fcm-emu``)."""
        demo = self.ready.get("demoProject")
        return str(demo.get("projectId") or demo.get("id") or "demo-fcm-emu") if isinstance(demo, dict) else "demo-fcm-emu"

    @property
    def pid(self) -> Optional[int]:
        """The emulator's process id (from its ready file or ``info``; the watchdog's is
        ``process.pid``)."""
        pid = self.ready.get("pid")
        return pid if isinstance(pid, int) else None

    def __repr__(self) -> str:
        state = "attached" if self._attached else ("running" if self.running else "stopped")
        where = self._client.base_url if self._client else "-"
        return f"Emulator({where}, {state})"
