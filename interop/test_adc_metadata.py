"""Application Default Credentials with no key file: google-auth finds "an instance" through
GCE_METADATA_HOST and takes its token and project from the emulator's metadata server.
Run in a child process, so the environment and google-auth's caches stay its own."""
import json
import os
import subprocess
import sys

from conftest import PROJECT

SCRIPT = """
import json, sys
import firebase_admin
from firebase_admin import messaging
base, token = sys.argv[1], sys.argv[2]
messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app()  # no credentials: Application Default Credentials
name = messaging.send(messaging.Message(token=token, data={"via": "adc"}), app=app)
print(json.dumps({"name": name, "project": app.project_id}))
"""


def test_adc_from_the_metadata_server_sends_to_a_strict_project(emulator):
    device = emulator.device()
    host = emulator.base.split("//", 1)[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCLOUD_", "FIREBASE_"))}
    env.update(GCE_METADATA_HOST=host, GCE_METADATA_IP=host, HOME=os.path.join(os.path.dirname(emulator.ca), "adc-home"))
    done = subprocess.run([sys.executable, "-c", SCRIPT, emulator.base, device["token"]], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["project"] == PROJECT  # from /computeMetadata/v1/project/project-id
    assert answer["name"].startswith(f"projects/{PROJECT}/messages/")
    assert [d["payload"]["data"] for d in emulator.inbox(device)] == [{"via": "adc"}]


def test_a_token_request_without_the_flavor_header_is_refused(emulator):
    import urllib.error
    import urllib.request

    try:
        urllib.request.urlopen(emulator.base + "/computeMetadata/v1/instance/service-accounts/default/token", timeout=10)
        raise AssertionError("the metadata server answered without Metadata-Flavor: Google")
    except urllib.error.HTTPError as error:
        assert error.code == 403
