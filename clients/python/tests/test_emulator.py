"""Starting, attaching to and stopping emulators; finding the binary; the fcm-emu console command."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

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
    with pytest.raises(EmulatorNotReady) as failed:
        Emulator(settings={"noSuchSetting": "1"}).start()
    text = str(failed.value)
    assert "exited with code" in text and "noSuchSetting" in failed.value.log_tail
    assert failed.value.log_path and failed.value.log_path.endswith("serve.log")


def test_a_start_that_takes_too_long_is_stopped(tmp_path: Path) -> None:
    slow = tmp_path / "fcm-emu"
    slow.write_text("#!/bin/sh\necho starting but never ready\nexec sleep 60\n")
    slow.chmod(0o755)
    emulator = Emulator(slow, startup_timeout=0.5, stop_timeout=5)
    with pytest.raises(EmulatorNotReady, match="not ready after 0.5s") as failed:
        emulator.start()
    assert "never ready" in failed.value.log_tail
    assert emulator.process is not None and emulator.process.returncode is not None


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
