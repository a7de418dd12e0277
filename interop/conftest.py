"""Starts one fcm-emu for the session and points the real firebase-admin SDK at it.

The SDK is configured the way a user would: a service-account key file fetched from the emulator
(its token_uri points back at the emulator) and the SDK's endpoint class attributes.
"""
import json
import os
import subprocess
import tempfile
import time
import urllib.request

import pytest

BINARY = os.environ.get("FCM_EMU_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "fcm-emu"))
PROJECT = "interop-app"
# The control API reads only bodies declared as JSON (docs/security.md, "Content types").
JSON = {"Content-Type": "application/json"}


class Emulator:
    def __init__(self, base):
        self.base = base
        self.control = base + "/emulator/v1"

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.control + path, data=data, method=method, headers=JSON)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"{}")

    def device(self, platform="android", project=PROJECT, **fields):
        return self.call("POST", f"/projects/{project}/devices", dict(platform=platform, **fields))

    def inbox(self, device, project=PROJECT):
        return self.call("GET", f"/projects/{project}/devices/{device['id']}/inbox")["deliveries"]

    def events(self, project=PROJECT, **query):
        """A project's events; project=None reads the whole log (fault events belong to no project)."""
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        return self.call("GET", (f"/projects/{project}" if project else "") + f"/events?{qs}")["events"]


def start_emulator(*settings):
    """Starts fcm-emu on free ports with `--set` settings; returns (Emulator, process)."""
    workdir = tempfile.mkdtemp(prefix="fcm-emu-interop-")
    ready = os.path.join(workdir, "ready.json")
    log = open(os.path.join(workdir, "serve.log"), "w")
    extra = [arg for setting in settings for arg in ("--set", setting)]
    process = subprocess.Popen(
        [BINARY, "serve", "--port", "0", "--set", "tlsPort=0", "--set", "xmppPort=0", "--set", "xmppTestPort=off", "--ready-file", ready, "--set", "stateDir=none",
         "--log-level", "warning", "--set", f"metadataProject={PROJECT}", "--set", "proxyPort=0", *extra],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while not os.path.exists(ready):
        if process.poll() is not None or time.time() > deadline:
            raise RuntimeError(f"fcm-emu did not start; see {log.name}")
        time.sleep(0.05)
    info = json.load(open(ready))
    emu = Emulator(info["http"]["url"])
    emu.https = info["https"]["url"]
    emu.ca = info["caCertificate"]
    emu.xmpp_port = info["xmpp"]["ports"][0]
    emu.proxy = info.get("proxy", {}).get("url")
    emu.ready = ready
    emu.call("POST", "/projects", {"id": PROJECT, "number": "424242424242"})
    return emu, process


@pytest.fixture(scope="session")
def emulator():
    # A paused clock makes the rate-limit window (and so Retry-After) deterministic.
    emu, process = start_emulator("deviceRateLimit=3/1s", "clockPaused=true")
    emu.call("POST", "/projects", {"id": "other-app", "number": "777"})
    yield emu
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def app(emulator):
    import firebase_admin
    from firebase_admin import credentials, messaging

    key_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
    with open(key_file, "w") as f:
        json.dump(emulator.call("GET", f"/projects/{PROJECT}/serviceAccount"), f)
    # Trust the emulator's CA (requests reads REQUESTS_CA_BUNDLE, httpx SSL_CERT_FILE).
    os.environ["REQUESTS_CA_BUNDLE"] = emulator.ca
    os.environ["SSL_CERT_FILE"] = emulator.ca
    # The SDK's endpoint settings: class attributes read when the messaging service is created.
    # Over TLS, so send_each_async's httpx client negotiates HTTP/2 as it does with FCM.
    messaging._MessagingService.FCM_URL = emulator.https + "/v1/projects/{0}/messages:send"
    messaging._MessagingService.IID_URL = emulator.https
    app = firebase_admin.initialize_app(credentials.Certificate(key_file), name="interop")
    service = messaging._get_messaging_service(app)
    service._fcm_topic_url = f"{emulator.https}/v1/projects/{PROJECT}/registrations"
    yield app
    # No delete_app: firebase-admin 7.x's cleanup closes its httpx client with asyncio.run(), which
    # fails once send_each_async has run its own loop. The process ends with the session anyway.
