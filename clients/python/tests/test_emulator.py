"""Starting, attaching to and stopping emulators; finding the binary; the fcm-emu console command."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

from conftest import system_ca_file
from fcm_emu import BinaryNotFound, Emulator, EmulatorNotReady, find_binary
from fcm_emu._binary import is_python_script

BINARY = os.environ.get("FCM_EMU_BIN", "")


def test_start_on_free_ports_and_stop() -> None:
    emulator = Emulator(settings={"deviceRateLimit": "3/1s"})
    with emulator:
        assert emulator.running and emulator.client.is_healthy()
        assert emulator.http_url.startswith("http://127.0.0.1:")
        assert emulator.https_url and emulator.https_url.startswith("https://127.0.0.1:")
        assert emulator.proxy_url and emulator.proxy_url.startswith("http://127.0.0.1:")
        assert emulator.tls_port and emulator.xmpp_ports
        assert emulator.ca_certificate and "BEGIN CERTIFICATE" in Path(emulator.ca_certificate).read_text()
        assert emulator.control_url == emulator.http_url + "/emulator/v1"
        assert "--set" in emulator.command("x") and "deviceRateLimit=3/1s" in emulator.command("x")
        assert "stateDir=none" in emulator.command("x")
        workdir, process = emulator.workdir, emulator.process
        assert workdir is not None and (workdir / "serve.log").exists()
    assert process is not None and process.returncode is not None
    assert not emulator.running and not workdir.exists()
    assert not emulator.client.is_healthy()


def test_a_stop_the_moment_it_is_ready_is_a_clean_stop(tmp_path: Path) -> None:
    # A harness may send SIGTERM as soon as it reads the ready file: serve must already listen for
    # it (it once wrote the file first, and a signal in between was lost or killed it). The tight
    # poll is the point: it reads the file as early as any harness can.
    binary = str(Emulator().binary)
    for attempt in range(10):
        ready = tmp_path / f"ready-{attempt}.json"
        process = subprocess.Popen([binary, "serve", "--port", "0", "--set", "tlsPort=0", "--set", "xmppPort=0",
                                    "--set", "xmppTestPort=off", "--set", "stateDir=none", "--ready-file", str(ready)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not ready.exists():
                assert process.poll() is None, "serve exited before it was ready"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=5) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_attach_through_the_environment(monkeypatch: pytest.MonkeyPatch, fcm_emulator: Emulator) -> None:
    monkeypatch.setenv("FCM_EMU_CONTROL_API", fcm_emulator.control_url)
    attached = Emulator.attach()
    assert attached.attached and attached.running
    assert attached.control_url == fcm_emulator.control_url
    assert attached.https_url == fcm_emulator.https_url and attached.proxy_url == fcm_emulator.proxy_url
    assert attached.ca_certificate == fcm_emulator.ca_certificate
    assert attached.stop() is None and fcm_emulator.client.is_healthy()   # leaves it running
    monkeypatch.delenv("FCM_EMU_CONTROL_API")
    with pytest.raises(Exception, match="FCM_EMU_CONTROL_API"):
        Emulator.attach()


def test_a_failed_start_shows_the_log() -> None:
    emulator = Emulator(settings={"noSuchSetting": "1"})
    try:
        with pytest.raises(EmulatorNotReady) as failed:
            emulator.start()
        text = str(failed.value)
        assert "exited with code" in text and "noSuchSetting" in failed.value.log_tail
        assert failed.value.log_path and failed.value.log_path.endswith("serve.log")
        assert Path(failed.value.log_path).exists()   # kept for the reader of the error
    finally:
        emulator.stop()   # removes it


def test_a_start_that_takes_too_long_is_stopped(tmp_path: Path) -> None:
    slow = tmp_path / "fcm-emu"
    slow.write_text("#!/bin/sh\necho starting but never ready\nexec sleep 60\n")
    slow.chmod(0o755)
    emulator = Emulator(slow, startup_timeout=0.5, stop_timeout=5)
    try:
        with pytest.raises(EmulatorNotReady, match="not ready after 0.5s") as failed:
            emulator.start()
        assert "never ready" in failed.value.log_tail
        assert emulator.process is not None and emulator.process.returncode is not None
    finally:
        emulator.stop()


def test_the_binary_lookup_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    explicit = tmp_path / "explicit"
    explicit.write_bytes(b"\x7fELF")
    explicit.chmod(0o755)
    assert find_binary(explicit) == explicit
    monkeypatch.setenv("FCM_EMU_BIN", BINARY)
    assert find_binary() == Path(BINARY)
    # On PATH: a console-script wrapper (a Python script) is passed over for the real binary.
    monkeypatch.delenv("FCM_EMU_BIN")
    monkeypatch.setattr("fcm_emu._binary.bundled_binary", lambda: None)
    wrappers, real = tmp_path / "venv-bin", tmp_path / "real-bin"
    wrappers.mkdir(), real.mkdir()
    wrapper = wrappers / "fcm-emu"
    wrapper.write_text(f"#!{sys.executable}\nimport sys\nfrom fcm_emu._cli import main\nsys.exit(main())\n")
    wrapper.chmod(0o755)
    (real / "fcm-emu").symlink_to(BINARY)
    assert is_python_script(wrapper) and not is_python_script(BINARY)
    monkeypatch.setenv("PATH", f"{wrappers}{os.pathsep}{real}")
    assert find_binary() == real / "fcm-emu"
    monkeypatch.setenv("PATH", str(wrappers))
    with pytest.raises(BinaryNotFound, match="FCM_EMU_BIN"):
        find_binary()


def _cli(*args: str, env_bin: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "FCM_EMU_BIN"}
    if env_bin is not None:
        env["FCM_EMU_BIN"] = env_bin
    return subprocess.run([sys.executable, "-m", "fcm_emu", *args], env=env, capture_output=True, text=True, timeout=60)


def test_the_console_command_runs_the_binary_with_its_arguments_and_exit_code() -> None:
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout
    done = _cli("--version", env_bin=BINARY)
    assert (done.returncode, done.stdout) == (0, version)
    wrong = _cli("no-such-command", env_bin=BINARY)
    direct = subprocess.run([BINARY, "no-such-command"], capture_output=True, text=True)
    assert wrong.returncode == direct.returncode != 0


def test_the_console_command_without_a_binary_says_what_to_do() -> None:
    from fcm_emu import bundled_binary

    if bundled_binary() is not None:
        pytest.skip("this installation bundles the binary")
    done = _cli("--version", env_bin=None)
    assert done.returncode == 127
    assert "FCM_EMU_BIN" in done.stderr and "wheel" in done.stderr


def test_the_bundled_binary_must_be_executable(tmp_path: Path) -> None:
    script = tmp_path / "fcm-emu"
    script.write_text("#!/usr/bin/env python3\nprint('hi')\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    done = _cli("--version", env_bin=str(script))
    assert done.returncode == 126 and "Python script" in done.stderr


# -- a started emulator never outlives the process that started it -----------------------------------

# A test process as CI runs it: starts an emulator through the helper (with an Admin SDK environment,
# whose directory must go too), says what it started, and waits to be killed. Mode "fork" also
# leaves a child made by a bare fork() running, which holds a copy of every descriptor.
KILLED_PROCESS = """
import json, os, signal, sys
from fcm_emu import Emulator, FirebaseEnvironment

mode, binary, stop_timeout = sys.argv[1], sys.argv[2] or None, float(sys.argv[3])
emulator = Emulator(binary, stop_timeout=stop_timeout).start()
info = {"pid": emulator.pid, "watchdog": emulator.process.pid, "workdir": str(emulator.workdir),
        "http": emulator.http_url, "ca": emulator.ca_certificate}
if mode != "ignores-sigterm":
    environment = FirebaseEnvironment(emulator, emulator.demo_project_id).__enter__()
    info["env_dir"] = str(environment.key_file.parent)
if mode == "fork":
    child = os.fork()
    if child == 0:
        while True:
            signal.pause()
    info["forked"] = child
print(json.dumps(info), flush=True)
while True:
    signal.pause()
"""

# An emulator that is wedged: it writes its ready file, then ignores SIGTERM.
STUBBORN = """#!/bin/sh
while [ $# -gt 0 ]; do
    if [ "$1" = --ready-file ]; then ready=$2; fi
    shift
done
trap '' TERM
printf '{"pid": %d, "http": {"url": "http://127.0.0.1:9"}}\n' $$ > "$ready.tmp" && mv "$ready.tmp" "$ready"
exec sleep 600
"""


def _stubborn(directory: Path) -> Path:
    script = directory / "stubborn-fcm-emu"
    script.write_text(STUBBORN)
    script.chmod(0o755)
    return script


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, exited but not yet reaped by its new parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc"):
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _end(pid: int) -> None:
    """Cleanup after a failure: SIGTERM (an emulator then removes its own files), SIGKILL if that
    is not enough."""
    for how in (signal.SIGTERM, signal.SIGKILL):
        if not _alive(pid):
            return
        os.kill(pid, how)
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def _listens(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=1).close()
        return True
    except OSError:
        return False


def _within(seconds: float, what: str, condition: Callable[[], bool]) -> None:
    """Polls ``condition`` until it holds, failing with ``what`` at the deadline."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"{what} after {seconds:g}s")
        time.sleep(0.05)


def _first_line(process: "subprocess.Popen[bytes]", seconds: float, errors: Path) -> Dict[str, Any]:
    assert process.stdout is not None
    readable, _, _ = select.select([process.stdout], [], [], seconds)
    line = process.stdout.readline() if readable else b""
    if not line:
        pytest.fail(f"the test process said nothing within {seconds:g}s:\n{errors.read_text(errors='replace')}")
    return dict(json.loads(line))


@pytest.mark.parametrize("mode", ["alone", "fork", "ignores-sigterm"])
def test_a_started_emulator_does_not_outlive_a_killed_test_process(tmp_path: Path, mode: str) -> None:
    # SIGKILL (a CI timeout, the OOM killer) runs no teardown: the watchdog must see its lifeline
    # close, stop the emulator (its ports close, its own TLS directory goes: a clean SIGTERM
    # shutdown; SIGKILL after stop_timeout when it ignores SIGTERM) and remove the helper's
    # directories. The variables CI images preset must not get in the way.
    ca = system_ca_file()
    env = {**os.environ, "SSL_CERT_FILE": ca, "REQUESTS_CA_BUNDLE": ca}
    binary, stop_timeout = (str(_stubborn(tmp_path)), "1") if mode == "ignores-sigterm" else ("", "10")
    errors = tmp_path / "stderr.txt"
    info: Dict[str, Any] = {}
    with open(errors, "wb") as stderr:
        process = subprocess.Popen([sys.executable, "-c", KILLED_PROCESS, mode, binary, stop_timeout],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=env,
                                   cwd=str(tmp_path))
    try:
        info = _first_line(process, 60, errors)
        emulator, workdir = info["pid"], Path(info["workdir"])
        assert _alive(emulator) and workdir.is_dir()
        if mode != "ignores-sigterm":
            assert _listens(info["http"]) and Path(info["env_dir"]).is_dir()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        _within(30, "the emulator still runs", lambda: not _alive(emulator))
        _within(10, "its watchdog still runs", lambda: not _alive(info["watchdog"]))
        _within(10, "the helper's directory is still there", lambda: not workdir.exists())
        if mode != "ignores-sigterm":
            assert not _listens(info["http"])
            assert not Path(info["env_dir"]).exists()
            assert not Path(info["ca"]).parent.exists()   # removed by the emulator's own clean shutdown
        if mode == "fork":
            assert _alive(info["forked"])   # the fork outlived its parent, with copies of its descriptors
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()
        for key in ("forked", "pid", "watchdog"):
            if isinstance(info.get(key), int):
                _end(info[key])
        if info.get("workdir"):
            shutil.rmtree(info["workdir"], ignore_errors=True)


def test_a_stop_kills_an_emulator_that_ignores_sigterm(tmp_path: Path) -> None:
    emulator = Emulator(_stubborn(tmp_path), stop_timeout=0.5).start()
    pid, workdir = emulator.pid, emulator.workdir
    try:
        assert emulator.process is not None and isinstance(pid, int) and workdir is not None
        assert pid != emulator.process.pid   # the emulator's, from its ready file; process is its watchdog
        assert emulator.stop() == -signal.SIGKILL
        _within(10, "the emulator still runs", lambda: not _alive(pid))
        assert not workdir.exists()
    finally:
        if isinstance(pid, int):
            _end(pid)
        emulator.stop()


def test_a_stop_keeps_the_workdir_when_asked(tmp_path: Path) -> None:
    emulator = Emulator(keep_workdir=True)
    with emulator:
        workdir = emulator.workdir
    assert emulator.process is not None and emulator.process.returncode == 0   # SIGTERM: a clean stop
    try:
        assert workdir is not None and (workdir / "serve.log").exists()
    finally:
        shutil.rmtree(str(workdir), ignore_errors=True)
