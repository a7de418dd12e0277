"""`fcm-emu exec -- <command>` is the whole set-up: the latest firebase-admin, with no
patching and no endpoint settings, reaches simulated devices through the environment exec sets,
once with a key file on a strict project and once with ADC from the metadata server."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BINARY, start_emulator

SCRIPT = """
import json, os, urllib.request
import firebase_admin
from firebase_admin import messaging

api = os.environ["FCM_EMU_CONTROL_API"] + "/projects/" + os.environ["GOOGLE_CLOUD_PROJECT"]
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(api + path, data=data, method=method, headers={"Content-Type": "application/json"}), timeout=10) as r:
        return json.loads(r.read() or b"{}")
devices = [call("POST", "/devices", {"platform": "android"}) for _ in range(2)]
tokens = [d["token"] for d in devices]
app = firebase_admin.initialize_app()
messaging.send(messaging.Message(token=tokens[0], data={"via": "send"}), app=app)
each = messaging.send_each([messaging.Message(token=t, data={"via": "send_each"}) for t in tokens], app=app)
multi = messaging.send_each_for_multicast(messaging.MulticastMessage(tokens=tokens, data={"via": "multicast"}), app=app)
sub = messaging.subscribe_to_topic(tokens, "exec", app=app)
inbox = call("GET", "/devices/%s/inbox" % devices[0]["id"])["deliveries"]
topics = call("GET", "/devices/%s" % devices[1]["id"])["topics"]
print(json.dumps({"project": app.project_id, "each": each.success_count, "multi": multi.success_count,
                  "subscribed": sub.success_count, "vias": [d["payload"]["data"]["via"] for d in inbox], "topics": topics}))
"""


CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
SYSTEM_BUNDLE = next((p for p in ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem")
                      if os.path.exists(p)), None)


def clean_env(**preset):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCLOUD_", "FIREBASE_", "GCE_", "FCM_EMU_"))}
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy") + CA_VARIABLES:
        env.pop(name, None)
    env.update(preset)
    return env


def exec_python(*options, script=SCRIPT, **preset):
    done = subprocess.run([BINARY, "exec", *options, "--", sys.executable, "-c", script], env=clean_env(**preset),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def check(answer, project):
    assert answer["project"] == project
    assert (answer["each"], answer["multi"], answer["subscribed"]) == (2, 2, 2)
    assert answer["vias"] == ["send", "send_each", "multicast"]
    assert answer["topics"] == ["exec"]


def test_a_key_file_on_a_strict_project():
    check(exec_python("--project", "exec-app"), "exec-app")


def test_application_default_credentials_from_the_metadata_server():
    check(exec_python("--project", "exec-adc", "--credentials", "metadata"), "exec-adc")


def test_the_commands_exit_code_comes_through():
    done = subprocess.run([BINARY, "exec", "--", sys.executable, "-c", "import sys; sys.exit(3)"], timeout=60)
    assert done.returncode == 3


@pytest.mark.skipif(shutil.which("java") is None or shutil.which("keytool") is None, reason="needs a JDK (java and keytool)")
def test_a_plain_java_client_under_exec():
    source = os.path.join(os.path.dirname(__file__), "java", "Send.java")
    done = subprocess.run([BINARY, "exec", "--", "java", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("200 ") and '"name": "projects/demo-fcm-emu/messages/' in done.stdout


@pytest.mark.skipif(SYSTEM_BUNDLE is None, reason="needs a system CA bundle")
def test_ca_bundles_the_environment_names_get_the_emulators_ca():
    """CI images preset these; the SDK must still trust the emulator."""
    preset = {name: SYSTEM_BUNDLE for name in CA_VARIABLES}
    check(exec_python("--project", "exec-ci-app", **preset), "exec-ci-app")
    probe = """
import json, os, requests
r = requests.get(os.environ["FCM_EMU_HTTPS_URL"] + "/emulator/v1/health", timeout=10)
ca = open(os.environ["FCM_EMU_CA"]).read()
print(json.dumps({"status": r.status_code, "bundles": {n: (open(os.environ[n]).read().startswith(open(%r).read()),
                  ca in open(os.environ[n]).read(), os.environ[n]) for n in %r}}))
""" % (SYSTEM_BUNDLE, CA_VARIABLES)
    answer = exec_python(script=probe, **preset)
    assert answer["status"] == 200
    for name, (theirs, ours, path) in answer["bundles"].items():
        assert theirs and ours and path != SYSTEM_BUNDLE, name


def test_the_projects_own_server_key_and_sender_id():
    """Not the demo project's."""
    probe = """
import json, os, urllib.request
p = json.load(urllib.request.urlopen(os.environ["FCM_EMU_CONTROL_API"] + "/projects/exec-keys-app"))
print(json.dumps({"key": os.environ["FCM_EMU_SERVER_KEY"], "sender": os.environ["FCM_EMU_SENDER_ID"], "project": p,
                  "mode": oct(os.stat(os.environ["GOOGLE_APPLICATION_CREDENTIALS"]).st_mode & 0o777),
                  "dir": oct(os.stat(os.path.dirname(os.environ["GOOGLE_APPLICATION_CREDENTIALS"])).st_mode & 0o777)}))
"""
    answer = exec_python("--project", "exec-keys-app", script=probe)
    assert answer["key"] == answer["project"]["serverKeys"][0] and answer["sender"] == answer["project"]["senderId"]
    assert answer["mode"] == "0o600" and answer["dir"] == "0o700"


def test_exec_attach_sends_into_the_world_of_a_running_serve():
    """`exec --attach READY_FILE` gives the command the same environment for a serve that runs on its
    own: the unmodified SDK sends there, and that serve's control API (and dashboard) shows it."""
    emu, process = start_emulator()
    try:
        check(exec_python("--attach", emu.ready, "--project", "attach-app"), "attach-app")
        devices = emu.call("GET", "/projects/attach-app/devices")["devices"]
        vias = [d["payload"]["data"]["via"] for device in devices for d in emu.inbox(device, project="attach-app")]
        assert len(devices) == 2 and sorted(vias) == ["multicast", "multicast", "send", "send_each", "send_each"]
        assert len(emu.events(project="attach-app", kind="accepted")) == 5
        # Through that serve's proxy, as HTTPS_PROXY said.
        assert emu.events(project=None, kind="proxyConnect")
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_exec_attach_and_env_refuse_a_serve_without_its_proxy():
    emu, process = start_emulator("proxyPort=off")
    try:
        done = subprocess.run([BINARY, "exec", "--attach", emu.base, "--", sys.executable, "-c", "print('ran')"],
                              env=clean_env(), capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "ran" not in done.stdout and "--set proxyPort=9094" in done.stderr
        done = subprocess.run([BINARY, "env", "--emulator", emu.ready], env=clean_env(), capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and done.stdout == "" and "--no-proxy" in done.stderr
    finally:
        process.terminate()
        process.wait(timeout=10)
