"""How the suite points async-firebase at fcm-emu without touching the library.

async-firebase 6.4.0 has two fixed addresses: `AsyncClientBase.BASE_URL`
(https://fcm.googleapis.com) and `TOKEN_URL` (https://oauth2.googleapis.com/token) in its private
`_credentials` module. It does not read the key file's `token_uri`, and no constructor argument
names either address. What it does honour is the environment, through httpx: `HTTPS_PROXY` and
`SSL_CERT_FILE`. So the suite stands where a user behind a corporate proxy stands: an HTTP CONNECT
proxy tunnels *.googleapis.com:443 to the emulator's TLS port, whose certificate (from the
emulator's CA) covers fcm.googleapis.com and oauth2.googleapis.com. The library runs unmodified, over
HTTP/1.1 or, with its documented `use_http2=True`, HTTP/2.
"""
import json
import os
import socket
import threading
import time
from urllib.parse import urlsplit

import httpx
from google.auth import crypt, jwt


class GoogleapisTunnel:
    """A CONNECT proxy that sends every *.googleapis.com:443 tunnel to one address and refuses the
    rest. `hosts` records the tunnels opened, in order, so a test can see where a client went."""

    def __init__(self, target):
        self.target = target
        self.hosts = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self._listener.close()

    def _accept(self):
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._tunnel, args=(conn,), daemon=True).start()

    def _tunnel(self, client):
        with client:
            client.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk or len(head) > 16384:
                    return
                head += chunk
            method, authority, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            host, _, port = authority.rpartition(":")
            if method != "CONNECT" or port != "443" or not host.endswith(".googleapis.com"):
                client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            self.hosts.append(host)
            with socket.create_connection(self.target, timeout=10) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                client.settimeout(None)
                upstream.settimeout(None)
                back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
                back.start()
                _pipe(client, upstream)
                back.join(timeout=10)


def _pipe(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def tunnel_target(emulator):
    parts = urlsplit(emulator.https)
    return parts.hostname, parts.port


def service_account(emulator, project):
    """The key file the emulator hands out for a project (README, "Credentials")."""
    return emulator.call("GET", f"/projects/{project}/serviceAccount")


def write_key_file(directory, name, info):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        json.dump(info, f)
    return path


def token_endpoint_answer(emulator, info):
    """What the emulator's token endpoint says to a JWT-bearer grant signed with this key file, as
    google-auth builds it (aud is Google's token URL: google/oauth2/service_account.py; docs/http-v1.md)."""
    now = int(time.time())
    assertion = jwt.encode(crypt.RSASigner.from_service_account_info(info), {
        "iss": info["client_email"], "aud": "https://oauth2.googleapis.com/token",
        "scope": "https://www.googleapis.com/auth/cloud-platform", "iat": now, "exp": now + 3600})
    return httpx.post(emulator.base + "/token", timeout=10, data={
        "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion.decode()})


def eventually(probe, timeout=5.0, interval=0.02):
    """probe() until it returns something truthy, for at most `timeout` seconds; the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
