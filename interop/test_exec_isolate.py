"""`fcm-emu exec --isolate` (docs/unmodified-apps.md, "Fail closed: exec --isolate"): the command
runs in private network and mount namespaces where only the emulator is reachable. A host that is
not Google's fails and is named on stderr when the command ends; the latest firebase-admin,
unpatched, with every proxy variable and the Python name route removed, still reaches the emulator
by the DNS route (Google's names on 127.0.0.1, the emulator's TLS on 443)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BINARY
from test_name_route import PRELUDE

UNSET = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
         "FCM_EMU_PROXY", "NODE_USE_ENV_PROXY", "PYTHONPATH", "FCM_EMU_NAME_ROUTES"]

ELSEWHERE = r"""
import json, os, sys, urllib.request
def get(opener):
    try:
        opener.open("https://example.com/", timeout=10).read()
        return "reached"
    except Exception as error:
        return type(error).__name__
# Through HTTPS_PROXY (a CONNECT the proxy refuses), then direct (a lookup nothing answers).
through_proxy = get(urllib.request.build_opener())
direct = get(urllib.request.build_opener(urllib.request.ProxyHandler({})))
root = os.environ["FCM_EMU_CONTROL_API"]
with urllib.request.urlopen(root + "/events?kind=proxyConnect", timeout=10) as r:
    details = [e.get("detail") for e in json.load(r)["events"]]
print(json.dumps({"proxy": through_proxy, "direct": direct, "details": details}))
sys.exit(1 if "reached" not in (through_proxy, direct) else 0)
"""

# test_name_route's prelude: it asserts that no proxy is set, makes a device through the control
# API and defines inbox(); then the send, with nothing but the DNS route to reach Google's names.
SEND_EACH_ASYNC = PRELUDE + r"""
import asyncio, sys
import firebase_admin
from firebase_admin import messaging

assert "sitecustomize" not in sys.modules or "fcm-emu" not in (getattr(sys.modules["sitecustomize"], "__file__", "") or "")
app = firebase_admin.initialize_app()
batch = asyncio.run(messaging.send_each_async([messaging.Message(token=device["token"], data={"via": "isolated"})], app=app))
print(json.dumps({"success": batch.success_count, "vias": inbox()}))
"""


def namespaces_available():
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not namespaces_available(), reason="`unshare -rn true` fails here: no private user and network namespaces")


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCE_", "FIREBASE_", "FCM_EMU_")) and "proxy" not in k.lower()}


def exec_isolated(*command):
    return subprocess.run([BINARY, "exec", "--isolate", "--", *command], env=clean_env(), capture_output=True, text=True, timeout=120)


def test_another_host_fails_and_is_named():
    done = exec_isolated(sys.executable, "-c", ELSEWHERE)
    assert done.returncode == 1, done.stdout + done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["proxy"] != "reached" and answer["direct"] != "reached"
    assert "refused example.com:443" in answer["details"]
    assert "isolated: lookup example.com refused" in answer["details"]
    report = [line for line in done.stderr.splitlines() if line.startswith("fcm-emu exec --isolate:")]
    assert any("the command looked up example.com (" in line and "only the emulator is reachable" in line
               and "run without --isolate" in line for line in report), done.stderr
    assert any("asked the proxy (HTTPS_PROXY) for example.com:443 (" in line for line in report), done.stderr


def test_send_each_async_without_any_route_but_dns_reaches_the_emulator():
    unset = [arg for name in UNSET for arg in ("-u", name)]
    done = exec_isolated("env", *unset, sys.executable, "-c", SEND_EACH_ASYNC)
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer == {"success": 1, "vias": ["isolated"]}
    # Nothing was refused: Google's names resolved through the private /etc/hosts.
    assert "fcm-emu exec --isolate: the command" not in done.stderr, done.stderr


def test_a_command_that_reaches_nothing_exits_zero_and_says_nothing():
    done = exec_isolated("true")
    assert done.returncode == 0, done.stderr
    assert "fcm-emu exec --isolate:" not in done.stderr, done.stderr


def test_the_machines_files_are_untouched():
    with open("/etc/hosts") as f:
        before = f.read()
    done = exec_isolated("sh", "-c", "grep -c fcm.googleapis.com /etc/hosts")
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 1
    with open("/etc/hosts") as f:
        assert f.read() == before
