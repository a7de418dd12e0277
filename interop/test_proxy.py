"""The latest firebase-admin with no patching and no endpoint settings: only the environment a
user would set (HTTPS_PROXY and the CA bundle; a key file or the metadata server), and its calls
reach the emulator through the proxy. Each run is a child process with that
environment, so nothing leaks into the other tests."""
import json
import os
import socket
import subprocess
import sys
import tempfile

from conftest import BINARY, PROJECT

SCRIPT = """
import json, sys
import firebase_admin
from firebase_admin import credentials, messaging
tokens = sys.argv[1:]
key_file = __import__("os").environ.get("KEY_FILE")
app = firebase_admin.initialize_app(credentials.Certificate(key_file) if key_file else None)
one = messaging.send(messaging.Message(token=tokens[0], data={"via": "send"}), app=app)
each = messaging.send_each([messaging.Message(token=t, data={"via": "send_each"}) for t in tokens], app=app)
multi = messaging.send_each_for_multicast(messaging.MulticastMessage(tokens=tokens, data={"via": "multicast"}), app=app)
sub = messaging.subscribe_to_topic(tokens, "proxied", app=app)
print(json.dumps({"project": app.project_id, "one": one, "each": each.success_count, "multi": multi.success_count,
                  "subscribed": sub.success_count}))
"""


def run_unpatched(emulator, tokens, **env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCLOUD_", "FIREBASE_", "GCE_"))}
    env.update(HTTPS_PROXY=emulator.proxy, https_proxy=emulator.proxy, NO_PROXY="", REQUESTS_CA_BUNDLE=emulator.ca,
               SSL_CERT_FILE=emulator.ca, HOME=tempfile.mkdtemp(), **env_extra)
    done = subprocess.run([sys.executable, "-c", SCRIPT, *tokens], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def read_to_end(s):
    answer = b""
    while chunk := s.recv(65536):
        answer += chunk
    return answer


def check_delivered(emulator, devices, answer):
    assert answer["project"] == PROJECT
    assert answer["one"].startswith(f"projects/{PROJECT}/messages/")
    assert (answer["each"], answer["multi"], answer["subscribed"]) == (2, 2, 2)
    vias = [d["payload"]["data"]["via"] for d in emulator.inbox(devices[0])]
    assert vias == ["send", "send_each", "multicast"]
    for device in devices:
        assert "proxied" in emulator.call("GET", f"/projects/{PROJECT}/devices/{device['id']}")["topics"]
    details = [e["detail"] for e in emulator.events(project=None, kind="proxyConnect")]
    assert "intercepted fcm.googleapis.com:443" in details


def test_a_key_file_on_a_strict_project_with_nothing_but_the_environment(emulator):
    devices = [emulator.device(), emulator.device()]
    key_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
    with open(key_file, "w") as f:
        json.dump(emulator.call("GET", f"/projects/{PROJECT}/serviceAccount"), f)
    check_delivered(emulator, devices, run_unpatched(emulator, [d["token"] for d in devices], KEY_FILE=key_file))


def test_application_default_credentials_from_the_metadata_server(emulator):
    devices = [emulator.device(), emulator.device()]
    host = emulator.base.split("//", 1)[1]
    answer = run_unpatched(emulator, [d["token"] for d in devices], GCE_METADATA_HOST=host, GCE_METADATA_IP=host)
    check_delivered(emulator, devices, answer)


def test_a_host_the_emulator_does_not_stand_in_for_is_refused_and_logged(emulator):
    host, port = emulator.proxy.split("//", 1)[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        answer = read_to_end(s)
    text = answer.decode()
    assert text.startswith("HTTP/1.1 403 Forbidden")
    assert "does not stand in for example.com:443" in text and "NO_PROXY" in text and "proxyTunnel" in text
    assert "refused example.com:443" in [e["detail"] for e in emulator.events(project=None, kind="proxyConnect")]


def test_http2_inside_the_tunnel_is_served_over_h2(emulator):
    import httpx

    with httpx.Client(http2=True, proxy=emulator.proxy, verify=emulator.ca, timeout=10) as client:
        response = client.post(
            "https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send",
            headers={"Authorization": "Bearer any"}, json={"message": {"topic": "h2"}})
    assert response.http_version == "HTTP/2"
    assert response.status_code == 200 and response.json()["name"].startswith("projects/demo-fcm-emu/messages/")
    with httpx.Client(http2=False, proxy=emulator.proxy, verify=emulator.ca, timeout=10) as client:
        response = client.get("https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send")
    assert response.http_version == "HTTP/1.1"


def test_the_tunnel_setting_reaches_a_local_server_untouched(tmp_path):
    """A server on this machine is reached only when proxyTunnelHosts names it with its port
   ; proxyTunnel=true alone tunnels to hosts off this machine."""
    import http.server
    import threading

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"hello from the far side"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    far = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=far.serve_forever, daemon=True).start()
    ready = tmp_path / "ready.json"
    process = subprocess.Popen(
        [BINARY, "serve", "--port", "0", "--set", "tlsPort=off", "--set", "xmppPort=off",
         "--set", "xmppTestPort=off", "--set", "stateDir=none", "--set", "proxyPort=0", "--set", "proxyTunnel=true",
         "--set", f"proxyTunnelHosts=127.0.0.1:{far.server_address[1]}",
         "--ready-file", str(ready), "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import time
        deadline = time.time() + 30
        while not ready.exists() or not ready.read_text():
            assert process.poll() is None and time.time() < deadline, "the emulator did not start"
            time.sleep(0.05)
        host, port = json.loads(ready.read_text())["proxy"]["url"].split("//", 1)[1].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=10) as s:
            target = f"localhost:{far.server_address[1]}"
            s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            refused = read_to_end(s)
            assert refused.startswith(b"HTTP/1.1 403") and b"is on this machine" in refused
        with socket.create_connection((host, int(port)), timeout=10) as s:
            target = f"127.0.0.1:{port}"
            s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode() * 20)
            refused = read_to_end(s)
            assert refused.startswith(b"HTTP/1.1 403") and b"fcm-emu's own ports" in refused
        with socket.create_connection((host, int(port)), timeout=10) as s:
            target = f"127.0.0.1:{far.server_address[1]}"
            s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.sendall(f"GET / HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n".encode())
            answer = read_to_end(s)
        assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b"hello from the far side")
    finally:
        process.terminate()
        process.wait(timeout=10)
        far.shutdown()
