"""Hostile MCS peers over real TLS sockets (docs/receivers.md, "Delivery over MCS"; docs/limits.md):
a receiver that logs in and then never reads, while 10,000 messages are sent to it, is closed at
the unacknowledged cap and costs the emulator no more than its documented bounds; data before the
login, a wrong token and a message over the frame cap each get a clean close. The messages are
built with firebase-messaging's own protobuf classes, so the bytes are a real client's."""
import json
import os
import socket
import ssl
import struct
import subprocess
import tempfile
import time
import urllib.request

import pytest
from firebase_messaging.proto import android_checkin_pb2, checkin_pb2, mcs_pb2

BINARY = os.environ.get("FCM_EMU_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "fcm-emu"))
API_KEY = "AIzaSyFcmEmuHostileMcsTest-0123456789ab"


def varint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def frame(tag, message, version=False):
    payload = message.SerializeToString() if message is not None else b""
    return (b"\x29" if version else b"") + bytes([tag]) + varint(len(payload)) + payload


@pytest.fixture(scope="module")
def emu():
    work = tempfile.mkdtemp(prefix="fcm-emu-mcs-")
    ready = os.path.join(work, "ready.json")
    log = open(os.path.join(work, "serve.log"), "w")
    process = subprocess.Popen([BINARY, "serve", "--port", "0", "--set", "stateDir=none", "--set", "xmppPort=off", "--set", "xmppTestPort=off",
                                "--ready-file", ready, "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while not os.path.exists(ready):
        assert process.poll() is None and time.time() < deadline, open(log.name).read()
        time.sleep(0.05)
    info = json.load(open(ready))
    info["pid_"] = process.pid
    info["tls"] = ssl.create_default_context(cafile=info["caCertificate"])
    yield info
    process.terminate()
    process.wait(timeout=10)


def https(emu, method, path, body=b"", headers=None):
    request = urllib.request.Request(emu["https"]["url"] + path, data=body if method != "GET" else None, method=method, headers=headers or {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=emu["tls"]))
    with opener.open(request, timeout=10) as answer:
        return answer.read()


def register(emu):
    """Check-in, register3, an installation and an FCM registration: (android id, token, FCM token)."""
    request = checkin_pb2.AndroidCheckinRequest(checkin=android_checkin_pb2.AndroidCheckinProto(type=3), version=3)
    answer = checkin_pb2.AndroidCheckinResponse()
    answer.ParseFromString(https(emu, "POST", "/checkin", request.SerializeToString(), {"Content-Type": "application/x-protobuf"}))
    android_id, token = answer.android_id, answer.security_token
    gcm = https(emu, "POST", "/c2dm/register3", f"app=org.chromium.linux&X-subtype=wp:x%23y&device={android_id}&sender=BDOU".encode(),
                {"Authorization": f"AidLogin {android_id}:{token}"}).decode().split("=", 1)[1]
    fis = json.loads(https(emu, "POST", "/v1/projects/demo-fcm-emu/installations",
                           json.dumps({"fid": "fYUw2cKvjQoY/PSNOsACiYQ=", "appId": "1:1:web:1"}).encode(), {"x-goog-api-key": API_KEY}))
    # A P-256 point for the subscription's keys: any valid one (nothing is decrypted here).
    p256dh = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    web = {"endpoint": "https://fcm.googleapis.com/fcm/send/" + gcm, "p256dh": p256dh, "auth": "PfV9MGbfL_nCRfufU-s_IA=="}
    reg = json.loads(https(emu, "POST", "/v1/projects/demo-fcm-emu/registrations", json.dumps({"web": web}).encode(),
                           {"x-goog-api-key": API_KEY, "x-goog-firebase-installations-auth": fis["authToken"]["token"]}))
    return android_id, token, reg["token"]


def login_request(android_id, token):
    return mcs_pb2.LoginRequest(id="94.0.4606.51", domain="mcs.android.com", user=str(android_id), resource=str(android_id),
                                auth_token=str(token), device_id="android-%x" % android_id, use_rmq2=True, auth_service=2)


def connect(emu):
    raw = socket.create_connection(("127.0.0.1", emu["mcs"]["port"]), timeout=20)
    return emu["tls"].wrap_socket(raw, server_hostname="mtalk.google.com")


def read_all(sock, limit=8 << 20):
    """Everything the server writes until it closes, at most `limit` bytes."""
    data = b""
    while len(data) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    raise AssertionError("the server wrote more than %d bytes" % limit)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def control(emu, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(emu["http"]["url"] + "/emulator/v1" + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=30) as answer:
        return json.loads(answer.read() or b"{}")


def test_a_receiver_that_never_reads_is_closed_and_costs_only_its_caps(emu):
    android_id, token, fcm_token = register(emu)
    sock = connect(emu)
    sock.sendall(frame(2, login_request(android_id, token), version=True))
    before = rss_kib(emu["pid_"])
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", emu["http"]["port"], timeout=30)
    body = json.dumps({"message": {"token": fcm_token, "data": {"pad": "x" * 2000}}})
    for _ in range(10_000):
        conn.request("POST", "/v1/projects/demo-fcm-emu/messages:send", body, {"Content-Type": "application/json", "Authorization": "Bearer t"})
        answer = conn.getresponse()
        answer.read()
        assert answer.status == 200
    grown = rss_kib(emu["pid_"]) - before
    device = control(emu, "GET", f"/projects/demo-fcm-emu/devices/{fcm_token}")
    # Closed at the cap of 256 unacknowledged; the rest stored by FCM's rules (at most 100 + 4).
    assert device["state"] == "offline" and device["receiver"]["connected"] is False
    assert device["storedCount"] <= 104
    written = read_all(sock)
    # The login response, at most 256 data messages of ~3 KiB, and the Close.
    assert len(written) < 256 * 4096
    assert written.endswith(b"\x04\x00")
    # The inbox keeps its own cap (1000 deliveries); 10,000 sends of 2 KB must not all be held.
    assert grown < 64 * 1024, f"the emulator grew by {grown} KiB"


def test_data_before_login_a_wrong_token_and_an_oversized_message_are_closed(emu):
    android_id, token, _ = register(emu)
    sock = connect(emu)
    sock.sendall(frame(0, mcs_pb2.HeartbeatPing(), version=True))
    assert read_all(sock) == b""  # closed with nothing said: no login, no stream
    sock = connect(emu)
    sock.sendall(frame(2, login_request(android_id, token + 1), version=True))
    written = read_all(sock)
    response = mcs_pb2.LoginResponse()
    assert written[:2] == b"\x29\x03"
    size = written[2]
    response.ParseFromString(written[3:3 + size])
    assert response.error.code == 401 and written.endswith(b"\x04\x00")
    sock = connect(emu)
    sock.sendall(b"\x29\x02" + varint(100_000))  # a 100 KB login announced, never sent
    assert read_all(sock) == b"\x29\x04\x00"
