"""The Python name route of `fcm-emu exec` (docs/unmodified-apps.md, "The Python name route"):
with every proxy variable removed from the command's environment, Python clients that connect to
Google's names directly (urllib, firebase-admin's send_each_async over httpx HTTP/2, aiohttp with
c-ares) reach the emulator, because exec's sitecustomize answers their lookups with its ports. Real
sockets, the real SDK, no patching in the app; and a sitecustomize of the user's still runs."""
import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import BINARY

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")

# What every script starts with: no proxy in sight, a device made through the control API (on
# loopback, not routed), a token from the key file exec wrote, and the emulator's TLS port.
PRELUDE = r"""
import json, os, socket, urllib.request
import google.auth.transport.requests
from google.oauth2 import service_account

assert not set(urllib.request.getproxies()) & {"https", "http", "all", "no"}, urllib.request.getproxies()
root = os.environ["FCM_EMU_CONTROL_API"]
project = os.environ["GOOGLE_CLOUD_PROJECT"]
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(root + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read() or b"{}")
device = call("POST", "/projects/%s/devices" % project, {"platform": "android"})
def inbox():
    deliveries = call("GET", "/projects/%s/devices/%s/inbox" % (project, device["id"]))["deliveries"]
    return [d["payload"]["data"]["via"] for d in deliveries]
credentials = service_account.Credentials.from_service_account_file(
    os.environ["GOOGLE_APPLICATION_CREDENTIALS"], scopes=["https://www.googleapis.com/auth/firebase.messaging"])
credentials.refresh(google.auth.transport.requests.Request())
send_url = "https://fcm.googleapis.com/v1/projects/%s/messages:send" % project
def message(via):
    return {"message": {"token": device["token"], "data": {"via": via}}}
headers = {"Authorization": "Bearer " + credentials.token, "Content-Type": "application/json"}
tls_port = int(os.environ["FCM_EMU_HTTPS_URL"].rsplit(":", 1)[1])
def proxied():
    return call("GET", "/events?kind=proxyConnect")["events"]
"""

URLLIB_AND_SEND_EACH_ASYNC = PRELUDE + r"""
import asyncio
import firebase_admin
from firebase_admin import messaging

resolved = socket.getaddrinfo("fcm.googleapis.com", 443, socket.AF_INET, socket.SOCK_STREAM)[0][4]
request = urllib.request.Request(send_url, data=json.dumps(message("urllib")).encode(), headers=headers)
with urllib.request.urlopen(request, timeout=10) as r:
    sent = json.load(r)
app = firebase_admin.initialize_app()
batch = asyncio.run(messaging.send_each_async([messaging.Message(token=device["token"], data={"via": "send_each_async"})], app=app))
print(json.dumps({"resolved": list(resolved), "tls": tls_port, "sent": sent, "batch": batch.success_count, "vias": inbox(),
                  "proxied": proxied(), "project": project}))
"""

AIOHTTP_WITH_AIODNS = PRELUDE + r"""
import asyncio
import aiohttp
from aiohttp import resolver

async def main():
    found = await resolver.AsyncResolver().resolve("fcm.googleapis.com", 443, socket.AF_INET)
    async with aiohttp.ClientSession() as session:            # trust_env=False, DefaultResolver
        kind = type(session.connector._resolver).__name__
        async with session.post(send_url, json=message("aiohttp"), headers=headers) as r:
            status = r.status
    return found, kind, status

found, kind, status = asyncio.run(main())
print(json.dumps({"found": [(f["host"], f["port"]) for f in found], "tls": tls_port, "resolver": kind, "status": status,
                  "vias": inbox(), "proxied": proxied()}))
"""

USERS_SITECUSTOMIZE = PRELUDE + r"""
import builtins, sitecustomize
request = urllib.request.Request(send_url, data=json.dumps(message("user")).encode(), headers=headers)
with urllib.request.urlopen(request, timeout=10) as r:
    r.read()
print(json.dumps({"ran": getattr(builtins, "USER_SITECUSTOMIZE", None), "module": sitecustomize.__file__,
                  "path": os.environ["PYTHONPATH"], "vias": inbox(), "proxied": proxied()}))
"""


def clean_env(**preset):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCLOUD_", "FIREBASE_", "GCE_", "FCM_EMU_"))}
    for name in PROXY_VARIABLES + ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PYTHONPATH"):
        env.pop(name, None)
    env.update(preset)
    return env


def exec_without_proxies(script, *options, **preset):
    """`fcm-emu exec <options> -- env -u HTTPS_PROXY … python -c script`: the command sees no proxy."""
    unset = [arg for name in PROXY_VARIABLES for arg in ("-u", name)]
    done = subprocess.run([BINARY, "exec", *options, "--", "env", *unset, sys.executable, "-c", script],
                          env=clean_env(**preset), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "fcm-emu name route" not in done.stderr, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_urllib_and_send_each_async_reach_the_emulator_by_name():
    answer, _ = exec_without_proxies(URLLIB_AND_SEND_EACH_ASYNC, "--project", "name-route-app")
    assert answer["resolved"] == ["127.0.0.1", answer["tls"]]
    assert answer["sent"]["name"].startswith("projects/name-route-app/messages/")
    assert answer["batch"] == 1
    assert answer["vias"] == ["urllib", "send_each_async"]
    assert answer["proxied"] == [], "nothing went through the proxy"


def test_aiohttp_with_aiodns_is_routed_too():
    """aiohttp's AsyncResolver asks c-ares, not getaddrinfo; Home Assistant installs aiodns."""
    pytest.importorskip("aiodns")
    pytest.importorskip("aiohttp")
    answer, _ = exec_without_proxies(AIOHTTP_WITH_AIODNS)
    assert answer["resolver"] == "AsyncResolver"
    assert answer["found"] == [["127.0.0.1", answer["tls"]]]
    assert (answer["status"], answer["vias"], answer["proxied"]) == (200, ["aiohttp"], [])


def test_the_users_own_sitecustomize_still_runs():
    mine = tempfile.mkdtemp(prefix="fcm-emu-sitecustomize-")
    with open(os.path.join(mine, "sitecustomize.py"), "w") as f:
        f.write("import builtins\nbuiltins.USER_SITECUSTOMIZE = __file__\n")
    answer, _ = exec_without_proxies(USERS_SITECUSTOMIZE, PYTHONPATH=mine)
    assert answer["ran"] == answer["module"] == os.path.join(mine, "sitecustomize.py")
    assert answer["path"].endswith("/python:" + mine) and "/fcm-emu-exec-" in answer["path"]
    assert (answer["vias"], answer["proxied"]) == (["user"], [])


def test_no_name_route_leaves_python_alone():
    probe = "import json, os, socket; print(json.dumps([os.environ.get('PYTHONPATH'), os.environ.get('FCM_EMU_NAME_ROUTES'), " \
            "getattr(socket.getaddrinfo, 'fcm_emu_routes', None)]))"
    done = subprocess.run([BINARY, "exec", "--no-name-route", "--", sys.executable, "-c", probe], env=clean_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [None, None, None]
