"""Snapshots across a real restart: the latest firebase-admin sends through one `serve`,
which writes its world on SIGTERM (--export-on-exit); a second `serve` with another state directory
starts from it (--import). The SDK's cached access token, the device tokens, the topic and the
messages waiting for an offline device all carry over."""
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request

import firebase_admin
from firebase_admin import credentials, messaging

from conftest import BINARY

PROJECT = "snapshot-app"


class Serve:
    def __init__(self, workdir, *flags):
        self.ready = os.path.join(workdir, "ready.json")
        self.log = open(os.path.join(workdir, "serve.log"), "w")
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "xmppTestPort=off",
             "--set", "clockPaused=true", "--ready-file", self.ready, "--log-level", "warning", *flags],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while not os.path.exists(self.ready):
            assert self.process.poll() is None and time.time() < deadline, open(self.log.name).read()
            time.sleep(0.05)
        self.base = json.load(open(self.ready))["http"]["url"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + "/emulator/v1" + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"{}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=30) == 0, open(self.log.name).read()


def test_a_world_and_an_sdks_token_survive_a_restart_elsewhere():
    work = tempfile.mkdtemp(prefix="fcm-emu-snapshots-")
    snapshot = os.path.join(work, "snap")
    first = Serve(work, "--set", f"stateDir={work}/state-a", "--export-on-exit", snapshot)
    try:
        first.call("POST", "/projects", {"id": PROJECT, "number": "565656565656"})
        phone = first.call("POST", f"/projects/{PROJECT}/devices", {"platform": "android", "name": "phone", "state": "offline"})
        key_file = os.path.join(work, "key.json")
        with open(key_file, "w") as f:
            json.dump(first.call("GET", f"/projects/{PROJECT}/serviceAccount"), f)
        app = firebase_admin.initialize_app(credentials.Certificate(key_file), name="snapshots")
        service = messaging._get_messaging_service(app)
        service._fcm_url = f"{first.base}/v1/projects/{PROJECT}/messages:send"
        service._fcm_topic_url = f"{first.base}/v1/projects/{PROJECT}/registrations"
        messaging._MessagingService.IID_URL = first.base
        assert messaging.subscribe_to_topic([phone["token"]], "news", app=app).success_count == 1
        before = messaging.send(messaging.Message(token=phone["token"], data={"n": "1"}), app=app)
        messaging.send(messaging.Message(topic="news", data={"n": "2"}), app=app)
    finally:
        first.stop()
    manifest = json.load(open(os.path.join(snapshot, "manifest.json")))
    assert manifest["format"] == "fcm-emu-snapshot" and manifest["files"]["devices.jsonl"]["lines"] == 1

    # Another state directory: another access-token key, so only the snapshot's keys can make
    # the SDK's cached token good. The SDK's token_uri still names the first server, now gone:
    # a send that needed a new token would fail.
    second = Serve(work, "--set", f"stateDir={work}/state-b", "--import", snapshot)
    try:
        service._fcm_url = f"{second.base}/v1/projects/{PROJECT}/messages:send"
        after = messaging.send(messaging.Message(token=phone["token"], data={"n": "3"}), app=app)
        assert after != before and after.startswith(f"projects/{PROJECT}/messages/")
        device = second.call("GET", f"/projects/{PROJECT}/devices/phone")
        assert device["token"] == phone["token"] and device["topics"] == ["news"]
        second.call("PATCH", f"/projects/{PROJECT}/devices/phone", {"state": "foreground"})
        inbox = second.call("GET", f"/projects/{PROJECT}/devices/phone/inbox")["deliveries"]
        assert [d["payload"]["data"]["n"] for d in inbox] == ["1", "2", "3"]
        assert inbox[0]["messageId"].endswith(before.rsplit("/", 1)[1])
    finally:
        second.stop()
