"""Ruby's google-api-client (`FcmV1`, Debian's ruby-google-api-client 0.50 with ruby-googleauth 0.13)
under `fcm-emu exec`, unmodified: its HTTP library (httpclient 2.8) reads only `http_proxy` and
sends HTTPS through it with CONNECT; googleauth asks the metadata server at the hard-coded
169.254.169.254 (compute_engine.rb) through Faraday, which takes `http_proxy` for http URLs.
Neither reads `https_proxy` for the send, so without exec's `http_proxy` the send would go to the
real Google (docs/unmodified-apps.md, "Which route each SDK call takes")."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import BINARY
from test_exec import clean_env

SCRIPT = r"""
require "json"
require "net/http"
require "google/apis/fcm_v1"
require "googleauth"

project = ENV.fetch("GOOGLE_CLOUD_PROJECT")
api = ENV.fetch("FCM_EMU_CONTROL_API") + "/projects/" + project
def call(url, body = nil)
  uri = URI(url)
  answer = body ? Net::HTTP.post(uri, JSON.generate(body), "Content-Type" => "application/json") : Net::HTTP.get_response(uri)
  raise "#{url}: #{answer.code} #{answer.body}" unless answer.is_a?(Net::HTTPSuccess)
  JSON.parse(answer.body)
end
device = call(api + "/devices", { "platform" => "android" })

fcm = Google::Apis::FcmV1::FirebaseCloudMessagingService.new
fcm.authorization = Google::Auth.get_application_default(["https://www.googleapis.com/auth/firebase.messaging"])
message = Google::Apis::FcmV1::Message.new(token: device["token"], data: { "via" => "ruby" })
sent = fcm.send_message("projects/#{project}", Google::Apis::FcmV1::SendMessageRequest.new(message: message))
inbox = call(api + "/devices/#{device["id"]}/inbox")["deliveries"]
proxied = call(ENV.fetch("FCM_EMU_CONTROL_API") + "/events?kind=proxyConnect")["events"].map { |e| e["detail"] }
puts JSON.generate({ "name" => sent.name, "credentials" => fcm.authorization.class.name,
                     "vias" => inbox.map { |d| d["payload"]["data"]["via"] }, "proxied" => proxied })
"""

needs_gems = pytest.mark.skipif(
    shutil.which("ruby") is None
    or subprocess.run(["ruby", "-e", 'require "google/apis/fcm_v1"; require "googleauth"'], capture_output=True).returncode != 0,
    reason="needs ruby with google-api-client (FcmV1) and googleauth (Debian: ruby-google-api-client ruby-googleauth)")


def exec_ruby(*options, **preset):
    work = tempfile.mkdtemp(prefix="fcm-emu-ruby-")
    script = os.path.join(work, "send.rb")
    with open(script, "w") as f:
        f.write(SCRIPT)
    # HOME with no gcloud credentials: googleauth would read ~/.config/gcloud before the metadata server.
    done = subprocess.run([BINARY, "exec", *options, "--", "ruby", script], env=clean_env(HOME=work),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_gems
def test_fcm_v1_with_the_key_file_exec_provides():
    answer = exec_ruby("--project", "ruby-app")
    assert answer["name"].startswith("projects/ruby-app/messages/")
    assert answer["credentials"] == "Google::Auth::ServiceAccountCredentials"
    assert answer["vias"] == ["ruby"]
    # googleauth's token (its fixed www.googleapis.com URI) and the send, each through the proxy.
    assert {"intercepted www.googleapis.com:443", "intercepted fcm.googleapis.com:443"} <= set(answer["proxied"])


@needs_gems
def test_fcm_v1_with_application_default_credentials_from_the_hard_coded_metadata_address():
    answer = exec_ruby("--project", "ruby-adc", "--credentials", "metadata")
    assert answer["name"].startswith("projects/ruby-adc/messages/")
    assert answer["credentials"] == "Google::Auth::GCECredentials"
    assert answer["vias"] == ["ruby"]
    # The token came from the metadata server, through the proxy, not from a token endpoint.
    assert "intercepted fcm.googleapis.com:443" in answer["proxied"]
    assert "intercepted www.googleapis.com:443" not in answer["proxied"]
