"""Shared by the XMPP interop folders (xmpp/, xmpp-xmpppy/, xmpp-twisted/): the CCS constants, a
bounded wait on a condition, and a second emulator started with extra settings (the session's own
comes from conftest.py's `emulator` fixture)."""
import contextlib
import json
import subprocess
import time

from conftest import BINARY, PROJECT, Emulator

SENDER = "424242424242"  # PROJECT's number in conftest.py
DOMAIN = "gcm.googleapis.com"


def server_key(emulator, project=PROJECT):
    return emulator.call("GET", f"/projects/{project}")["serverKeys"][0]


def drain(emulator, project=PROJECT):
    """CONNECTION_DRAINING on every connection of the project (README, XMPP)."""
    emulator.call("POST", f"/projects/{project}/xmpp:drain")


def upstream(emulator, device, message_id, data=None, project=PROJECT):
    emulator.call("POST", f"/projects/{project}/devices/{device['id']}:upstream",
                  {"data": data or {"hello": "world"}, "messageId": message_id})


def wait_until(condition, timeout, what, step=None):
    """Calls `condition` (and `step`, which lets a client library read its socket) until it holds;
    fails after `timeout` seconds with `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        if step:
            step()
        else:
            time.sleep(0.02)


@contextlib.contextmanager
def emulator_with(tmp_path, *settings):
    """A second fcm-emu with `--set` settings of its own (e.g. xmppDrainAfter=1s), in the style of
    conftest.py's session emulator. Yields an Emulator with .ca, .xmpp_port and .demo (the ready
    file's demoProject: senderId and serverKey)."""
    ready = tmp_path / "ready.json"
    args = [BINARY, "serve", "--port", "0", "--set", "tlsPort=0", "--set", "xmppPort=0", "--set", "xmppTestPort=off",
            "--set", "stateDir=none", "--ready-file", str(ready), "--log-level", "error"]
    for setting in settings:
        args += ["--set", setting]
    log = open(tmp_path / "serve.log", "w")
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: ready.exists() or process.poll() is not None, 30, "fcm-emu to start")
        assert process.poll() is None, f"fcm-emu did not start; see {log.name}"
        info = json.loads(ready.read_text())
        emulator = Emulator(info["http"]["url"])
        emulator.ca = info["caCertificate"]
        emulator.xmpp_port = info["xmpp"]["ports"][0]
        emulator.demo = info["demoProject"]
        yield emulator
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
