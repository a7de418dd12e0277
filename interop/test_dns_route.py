"""The DNS route: clients that ignore proxies (Python's send_each_async over httpx h2,
Node's sendEach) reach the emulator when Google's names resolve to it. Run for real inside
private mount and network namespaces: /etc/hosts there maps fcm.googleapis.com and
oauth2.googleapis.com to 127.0.0.1, the emulator serves TLS on 443, and the latest
firebase-admin, unpatched, sends with send_each_async over HTTP/2."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import BINARY

INSIDE = r"""
set -euo pipefail
ip link set lo up
mount --bind "$WORK/hosts" /etc/hosts
"$BIN" serve --port 0 --set tlsPort=443 --set xmppPort=off --set xmppTestPort=off --set stateDir="$WORK/state" \
    --ready-file "$WORK/ready.json" --log-level info --log-format json > "$WORK/serve.log" 2>&1 &
# The emulator stops with this shell: nothing else could reach it inside the namespace.
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do [ -s "$WORK/ready.json" ] && break; sleep 0.05; done
"$PY" "$WORK/client.py" "$WORK/ready.json"
"""

CLIENT = r"""
import asyncio, json, sys, urllib.request
import firebase_admin
from firebase_admin import credentials, messaging

info = json.load(open(sys.argv[1]))
base = info["http"]["url"] + "/emulator/v1/projects/demo-fcm-emu"
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"}), timeout=10) as r:
        return json.loads(r.read() or b"{}")
device = call("POST", "/devices", {"platform": "android"})
key = call("GET", "/serviceAccount")
with open(sys.argv[1] + ".sa.json", "w") as f:
    json.dump(key, f)
app = firebase_admin.initialize_app(credentials.Certificate(sys.argv[1] + ".sa.json"))
batch = asyncio.run(messaging.send_each_async([messaging.Message(token=device["token"], data={"via": "dns"})], app=app))
inbox = call("GET", "/devices/%s/inbox" % device["id"])["deliveries"]
print(json.dumps({"success": batch.success_count, "vias": [d["payload"]["data"]["via"] for d in inbox]}))
"""


def namespaces_available():
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "--mount", "--net", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not namespaces_available(), reason="needs root and unshare (mount and network namespaces)")
def test_a_client_that_ignores_proxies_reaches_the_emulator_by_name():
    work = tempfile.mkdtemp(prefix="fcm-emu-dns-")
    with open(os.path.join(work, "hosts"), "w") as f:
        f.write("127.0.0.1 localhost fcm.googleapis.com oauth2.googleapis.com iid.googleapis.com\n")
    with open(os.path.join(work, "client.py"), "w") as f:
        f.write(CLIENT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCE_", "FIREBASE_")) and "proxy" not in k.lower()}
    env.update(WORK=work, BIN=BINARY, PY=sys.executable)
    # The emulator's CA after the system roots, as `fcm-emu exec` writes it: trusted through SSL_CERT_FILE.
    state = os.path.join(work, "state")
    os.makedirs(state)
    subprocess.run([BINARY, "ca", "--state-dir", state], capture_output=True)
    done = subprocess.run(["unshare", "--mount", "--net", "bash", "-c", INSIDE], env=env | {"SSL_CERT_FILE": os.path.join(state, "ca.pem")},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + open(os.path.join(work, "serve.log")).read()
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["success"] == 1
    assert answer["vias"] == ["dns"]
    # The send went to fcm.googleapis.com:443, which was the emulator, over HTTP/2.
    lines = [json.loads(line) for line in open(os.path.join(work, "serve.log")) if line.startswith("{")]
    sends = [line for line in lines if line.get("api") == "v1" and line.get("path", "").endswith("/messages:send")]
    assert [(line["status"], line["http"]) for line in sends] == [(200, "2")]
