"""The soak driver behind bench/soak; see bench/soak for usage.

    python3 bench/soak.py READY_FILE PID SECONDS [STATE_DIR]

Against one running fcm-emu (its ready file and process id): sets up a canary device and records
its state and inbox, then for SECONDS runs mixed normal load (v1 over HTTP/1.1 keep-alive, legacy,
XMPP downstream with acks, topic fan-out) beside a loop that replays the hostile inputs of docs/security.md,
while sampling the server's RSS every second. Then it closes every client, lets the server settle
and checks: alive and healthy, RSS back within the bound, canary unchanged, no normal request
failed, every hostile input answered as expected. Prints a summary table; exit status 1 when a
check fails. Targets 127.0.0.1 only; every loop is bounded in count and in time.
"""
import base64
import http.client
import json
import os
import random
import socket
import ssl
import statistics
import sys
import threading
import time
import urllib.parse

import soak_round4
import soak_trust

READY, PID, SECONDS = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
STATE_DIR = sys.argv[4] if len(sys.argv) > 4 else None     # named snapshots (the trust steps) need one
SETTLE = float(os.environ.get("SOAK_SETTLE", "5"))          # seconds between the last client closing and the final RSS
RSS_FACTOR = float(os.environ.get("SOAK_RSS_FACTOR", "3"))   # final RSS must stay under start x FACTOR + SLACK MB
RSS_SLACK_MB = float(os.environ.get("SOAK_RSS_SLACK_MB", "192"))
V1_RATE = float(os.environ.get("SOAK_V1_RATE", "300"))      # normal load, per second
LEGACY_RATE, XMPP_RATE, FANOUT_RATE = 50.0, 100.0, 2.0
FANOUT_DEVICES, LOAD_DEVICES = 500, 50
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)

ready = json.load(open(READY))
HOST = "127.0.0.1"
HTTP_PORT = ready["http"]["port"]
HTTPS_PORT = ready["https"]["port"]
XMPP_PORT = ready["xmpp"]["ports"][0]
CA = ready["caCertificate"]
PROJECT = ready["demoProject"]["projectId"]
SENDER = ready["demoProject"]["senderId"]
SERVER_KEY = ready["demoProject"]["serverKey"]
PROXY_PORT = int(ready["proxy"]["url"].rsplit(":", 1)[1]) if "proxy" in ready else None
SEND_PATH = f"/v1/projects/{PROJECT}/messages:send"
CONTROL = "/emulator/v1"
rng = random.Random(11)
stop = threading.Event()       # end of the soak: every loop checks it
deadline = time.monotonic() + SECONDS

# ---------------------------------------------------------------------------------------------
# Bookkeeping


class Tally:
    """Per kind: how many were sent, how many ended as expected, and a few samples of the rest."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rows = {}

    def add(self, kind, ok, detail="", took=0.0):
        with self.lock:
            row = self.rows.setdefault(kind, {"sent": 0, "ok": 0, "bad": 0, "samples": [], "took": 0.0})
            row["sent"] += 1
            row["took"] = max(row["took"], took)
            row["ok" if ok else "bad"] += 1
            if not ok and len(row["samples"]) < 3:
                row["samples"].append(detail[:300])


normal, hostile = Tally(), Tally()
v1_latencies = []
slow_sends = []                # (latency s, hostile steps running then)
running = {}                   # hostile thread -> the step it is in
notes = {}                     # hostile kind -> bytes or messages the server took before it stopped reading
rss = []                       # (seconds since start, kB)
t0 = time.monotonic()


def rss_kb():
    try:
        with open(f"/proc/{PID}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        if fields["State"].strip().startswith(("Z", "X")):
            return None
        return int(fields["VmRSS"].split()[0])
    except (OSError, KeyError, ValueError):
        return None


def sample_rss():
    for _ in range(int(SECONDS + SETTLE + 600)):      # bounded; stops with the soak
        value = rss_kb()
        if value is not None:
            rss.append((time.monotonic() - t0, value))
        if sampler_stop.wait(1.0):
            return


sampler_stop = threading.Event()

# ---------------------------------------------------------------------------------------------
# Plain helpers


def control(method, path, body=None, timeout=30):
    conn = http.client.HTTPConnection(HOST, HTTP_PORT, timeout=timeout)
    try:
        conn.request(method, CONTROL + path, body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data.strip().startswith((b"{", b"[")) else data)
    finally:
        conn.close()


def request(method, path, body, headers, timeout=30, port=None):
    """One request on a fresh connection; returns (status, body bytes) or (None, error text)."""
    conn = http.client.HTTPConnection(HOST, port or HTTP_PORT, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException) as error:
        return None, f"{type(error).__name__}: {error}"
    finally:
        conn.close()


def v1_body(message):
    return json.dumps({"message": message})


V1_HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer soak"}
LEGACY_HEADERS = {"Content-Type": "application/json", "Authorization": f"key={SERVER_KEY}"}


def tls_context():
    context = ssl.create_default_context(cafile=CA)
    return context


def xmpp_login(timeout=10):
    """A logged-in, bound CCS connection (TLS from the first byte) and what it has read so far."""
    raw = socket.create_connection((HOST, XMPP_PORT), timeout=timeout)
    conn = tls_context().wrap_socket(raw, server_hostname="gcm.googleapis.com")
    header = ("<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' "
              "xmlns:stream='http://etherx.jabber.org/streams'>").encode()
    plain = base64.b64encode(f"\0{SENDER}@gcm.googleapis.com\0{SERVER_KEY}".encode()).decode()
    buffer = bytearray()

    def until(marker):
        end = time.monotonic() + timeout
        while marker not in buffer:
            if time.monotonic() > end:
                raise TimeoutError(f"XMPP login: no {marker!r}")
            chunk = conn.recv(65536)
            if not chunk:
                raise ConnectionError(f"XMPP login: closed before {marker!r}: {bytes(buffer[-200:])!r}")
            buffer.extend(chunk)
        del buffer[: buffer.index(marker) + len(marker)]

    conn.sendall(header); until(b"</stream:features>")
    conn.sendall(f"<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>{plain}</auth>".encode()); until(b"<success")
    conn.sendall(header); until(b"</stream:features>")
    conn.sendall(b"<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>"); until(b"</iq>")
    return conn, buffer


def ccs(payload):
    body = json.dumps(payload).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<message id=''><gcm xmlns='google:mobile:data'>{body}</gcm></message>".encode()


def read_until(conn, predicate, timeout):
    """Reads until predicate(data) or timeout or close; returns (data, closed)."""
    conn.settimeout(0.5)
    data = bytearray()
    end = time.monotonic() + timeout
    while time.monotonic() < end and not predicate(data):
        try:
            chunk = conn.recv(65536)
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except OSError:
            return bytes(data), True
        if not chunk:
            return bytes(data), True
        data.extend(chunk)
    return bytes(data), False


def pace(rate, started, count):
    """Sleeps so that `count` actions since `started` keep to `rate` per second."""
    delay = started + count / rate - time.monotonic()
    if delay > 0:
        stop.wait(min(delay, 1.0))

# ---------------------------------------------------------------------------------------------
# Set-up: the canary, load devices and the fan-out topic


def setup():
    status, canary = control("POST", f"/projects/{PROJECT}/devices",
                             {"platform": "android", "name": "soak-canary", "topics": ["canary-news", "canary-sport"]})
    assert status == 201, (status, canary)
    first = request("POST", SEND_PATH, v1_body({"token": canary["token"], "data": {"canary": "1"}}), V1_HEADERS)
    assert first[0] == 200, first
    assert control("PATCH", f"/projects/{PROJECT}/devices/soak-canary", {"state": "offline"})[0] == 200
    second = request("POST", SEND_PATH, v1_body({"token": canary["token"], "data": {"canary": "2"},
                                                   "android": {"collapse_key": "canary"}}), V1_HEADERS)
    assert second[0] == 200, second
    status, load = control("POST", f"/projects/{PROJECT}/devices", {"platform": "android", "count": LOAD_DEVICES})
    assert status == 201, (status, load)
    status, fan = control("POST", f"/projects/{PROJECT}/devices",
                          {"platform": "android", "count": FANOUT_DEVICES, "topics": ["soak-fanout"]})
    assert status == 201, (status, fan)
    status, victim = control("POST", f"/projects/{PROJECT}/devices", {"platform": "ios", "name": "soak-victim"})
    assert status == 201, (status, victim)
    return canary, [d["token"] for d in load["devices"]], victim


def canary_snapshot():
    status, device = control("GET", f"/projects/{PROJECT}/devices/soak-canary")
    status2, inbox = control("GET", f"/projects/{PROJECT}/devices/soak-canary/inbox")
    return {"device": device, "inbox": inbox.get("deliveries") if isinstance(inbox, dict) else inbox,
            "status": (status, status2)}

# ---------------------------------------------------------------------------------------------
# Normal load


def v1_sender(tokens, rate):
    conn = None
    started, count = time.monotonic(), 0
    for count in range(int(rate * SECONDS) + 1):          # bounded by count and by the clock
        if stop.is_set():
            break
        pace(rate, started, count)
        body = v1_body({"token": tokens[count % len(tokens)], "data": {"n": str(count)},
                        "android": {"priority": "high", "ttl": "3600s"}})
        began = time.perf_counter()
        try:
            if conn is None:
                conn = http.client.HTTPConnection(HOST, HTTP_PORT, timeout=10)
            conn.request("POST", SEND_PATH, body=body, headers=V1_HEADERS)
            response = conn.getresponse()
            data = response.read()
            took = time.perf_counter() - began
            v1_latencies.append(took)
            if took > 0.2 and len(slow_sends) < 10000:
                slow_sends.append((took, time.monotonic() - t0, sorted(set(running.values()))))
            normal.add("v1 send (HTTP/1.1 keep-alive)", response.status == 200, f"{response.status} {data[:200]!r}")
        except (OSError, http.client.HTTPException) as error:
            normal.add("v1 send (HTTP/1.1 keep-alive)", False, f"{type(error).__name__}: {error}")
            if conn:
                conn.close()
            conn = None
    if conn:
        conn.close()


def legacy_sender(tokens):
    conn = None
    started = time.monotonic()
    for count in range(int(LEGACY_RATE * SECONDS) + 1):
        if stop.is_set():
            break
        pace(LEGACY_RATE, started, count)
        body = json.dumps({"registration_ids": tokens[count % 10: count % 10 + 3], "data": {"n": str(count)}})
        try:
            if conn is None:
                conn = http.client.HTTPConnection(HOST, HTTP_PORT, timeout=10)
            conn.request("POST", "/fcm/send", body=body, headers=LEGACY_HEADERS)
            response = conn.getresponse()
            data = response.read()
            ok = response.status == 200 and json.loads(data).get("success") == 3
            normal.add("legacy /fcm/send (3 tokens)", ok, f"{response.status} {data[:200]!r}")
        except (OSError, http.client.HTTPException, ValueError) as error:
            normal.add("legacy /fcm/send (3 tokens)", False, f"{type(error).__name__}: {error}")
            if conn:
                conn.close()
            conn = None
    if conn:
        conn.close()


def fanout_sender():
    conn = http.client.HTTPConnection(HOST, HTTP_PORT, timeout=10)
    started = time.monotonic()
    for count in range(int(FANOUT_RATE * SECONDS) + 1):
        if stop.is_set():
            break
        pace(FANOUT_RATE, started, count)
        try:
            conn.request("POST", SEND_PATH, body=v1_body({"topic": "soak-fanout", "data": {"n": str(count)}}), headers=V1_HEADERS)
            response = conn.getresponse()
            data = response.read()
            normal.add(f"v1 topic fan-out ({FANOUT_DEVICES} subscribers)", response.status == 200, f"{response.status} {data[:200]!r}")
        except (OSError, http.client.HTTPException) as error:
            normal.add(f"v1 topic fan-out ({FANOUT_DEVICES} subscribers)", False, f"{type(error).__name__}: {error}")
            conn.close()
            conn = http.client.HTTPConnection(HOST, HTTP_PORT, timeout=10)
    conn.close()


def xmpp_sender(tokens):
    """Downstream messages with acks, at most 50 unacknowledged; reconnects after an error."""
    kind = "XMPP downstream (acked)"
    sent = acked = 0
    started = time.monotonic()
    limit = int(XMPP_RATE * SECONDS) + 1
    while not stop.is_set() and sent < limit:
        try:
            conn, _ = xmpp_login()
        except (OSError, ConnectionError, TimeoutError) as error:
            normal.add(kind, False, f"login: {error}")
            stop.wait(1)
            continue
        pending = {}
        buffer = bytearray()
        conn.settimeout(0.2)
        try:
            while not stop.is_set() and sent < limit:
                if len(pending) < 50:
                    pace(XMPP_RATE, started, sent)
                    mid = f"soak-{sent}"
                    conn.sendall(ccs({"to": tokens[sent % len(tokens)], "message_id": mid, "data": {"n": str(sent)}}))
                    pending[mid] = time.monotonic()
                    sent += 1
                try:
                    chunk = conn.recv(65536)
                    if not chunk:
                        raise ConnectionError("server closed the stream")
                    buffer.extend(chunk)
                except (socket.timeout, ssl.SSLWantReadError):
                    pass
                while b"</message>" in buffer:
                    end = buffer.index(b"</message>") + len(b"</message>")
                    stanza = bytes(buffer[:end]).decode(errors="replace")
                    del buffer[:end]
                    for mid in list(pending):
                        if f'"message_id":"{mid}"' in stanza:
                            pending.pop(mid)
                            normal.add(kind, '"message_type":"ack"' in stanza, stanza[:200])
                            acked += 1
                for mid, at in list(pending.items()):
                    if time.monotonic() - at > 10:
                        pending.pop(mid)
                        normal.add(kind, False, f"no ack for {mid} in 10 s")
            drain_end = time.monotonic() + 5
            while pending and time.monotonic() < drain_end:
                try:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    buffer.extend(chunk)
                except (socket.timeout, ssl.SSLWantReadError):
                    continue
                for mid in list(pending):
                    if f'"message_id":"{mid}"'.encode() in buffer:
                        pending.pop(mid)
                        normal.add(kind, True)
            for mid in pending:
                normal.add(kind, False, f"no ack for {mid} before the end")
        except (OSError, ConnectionError) as error:
            for mid in pending:
                normal.add(kind, False, f"{type(error).__name__}: {error}")
        finally:
            conn.close()

# ---------------------------------------------------------------------------------------------
# Hostile inputs (docs/security.md), each bounded in size and time


def not_5xx(status):
    return status is not None and status < 500


def hostile_conditions():
    chains = {"200,000 '!'": "!" * 200_000 + "'a' in topics",
              "40,000-term chain": " && ".join(["'a' in topics"] * 40_000)}
    for name, condition in chains.items():
        status, data = request("POST", SEND_PATH, v1_body({"condition": condition, "data": {"x": "y"}}), V1_HEADERS)
        hostile.add(f"v1 condition, {name}", status == 400, f"{status} {data[:200]!r}")
        status, data = request("POST", "/fcm/send", json.dumps({"condition": condition, "data": {"x": "y"}}), LEGACY_HEADERS)
        hostile.add(f"legacy condition, {name}", status == 400 or (status == 200 and b"error" in data), f"{status} {data[:200]!r}")
        try:
            conn, _ = xmpp_login()
            try:
                conn.sendall(ccs({"condition": condition, "message_id": "hostile-cond", "data": {"x": "y"}}))
                data, closed = read_until(conn, lambda d: b"hostile-cond" in d, 20)
                hostile.add(f"XMPP condition, {name}", b'"nack"' in data and b"hostile-cond" in data, f"closed={closed} {data[:300]!r}")
            finally:
                conn.close()
        except (OSError, ConnectionError, TimeoutError) as error:
            hostile.add(f"XMPP condition, {name}", False, f"{type(error).__name__}: {error}")


def hostile_clock_speed_with_latency_fault(victim):
    kind = "clock:setSpeed 1e-16 + latency fault, then a send"
    status, _ = control("POST", "/faults", {"id": "soak-latency", "match": {"api": "v1", "device": "soak-victim"},
                                           "action": {"latency": "2s"}})
    if status != 201:
        hostile.add(kind, False, f"fault rule not added: {status}")
        return
    speed_status, speed = control("POST", "/clock:setSpeed", {"speed": 1e-16})
    send_status, data = request("POST", SEND_PATH, v1_body({"token": victim["token"], "data": {"x": "y"}}), V1_HEADERS, timeout=20)
    control("DELETE", "/faults/soak-latency")
    if speed_status != 400:
        control("POST", "/clock:setSpeed", {"speed": 1})
    hostile.add(kind, speed_status == 400 and send_status == 200, f"setSpeed {speed_status} {speed!r:.200}; send {send_status} {data[:200]!r}")


def hostile_token_assertion():
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    kind = "token assertion iat=Int64.min exp=Int64.max"
    status, account = control("GET", f"/projects/{PROJECT}/serviceAccount")
    if status != 200:
        hostile.add(kind, False, f"serviceAccount {status}")
        return
    key = serialization.load_pem_private_key(account["private_key"].encode(), password=None)

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=")
    header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}).encode())
    claims = b64(json.dumps({"iss": account["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                             "aud": account["token_uri"], "iat": INT64_MIN, "exp": INT64_MAX}).encode())
    signature = b64(key.sign(header + b"." + claims, padding.PKCS1v15(), hashes.SHA256()))
    form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                   "assertion": (header + b"." + claims + b"." + signature).decode()})
    status, data = request("POST", "/token", form, {"Content-Type": "application/x-www-form-urlencoded"})
    hostile.add(kind, status == 400, f"{status} {data[:200]!r}")


def hostile_pipeline_never_read(use_tls):
    """Pipelined GETs of the 26 KB OpenAPI document, never reading: at most 8 MB or 8 s of writes,
    then 3 s holding the connection open."""
    kind = f"HTTP/1.1 pipelining, never reads ({'TLS' if use_tls else 'plain'})"
    one = f"GET {CONTROL}/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    chunk = one * 200
    written = 0
    try:
        raw = socket.create_connection((HOST, HTTPS_PORT if use_tls else HTTP_PORT), timeout=10)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        if use_tls:
            context = tls_context()
            context.set_alpn_protocols(["http/1.1"])
            conn = context.wrap_socket(raw, server_hostname="127.0.0.1")
        else:
            conn = raw
        conn.settimeout(0.5)
        end = time.monotonic() + 8
        while written < 8 << 20 and time.monotonic() < end and not stop.is_set():
            try:
                written += conn.send(chunk)
            except (socket.timeout, ssl.SSLWantWriteError):
                continue                  # the server stopped reading: what backpressure should do
        stop.wait(3)
        conn.close()
        notes.setdefault(kind, []).append(written)
        hostile.add(kind, True, "")
    except OSError as error:
        hostile.add(kind, True, f"{type(error).__name__}: {error}")   # a reset is a fair answer
    return written


def hostile_xmpp_attributes():
    kind = "XMPP stream header with 20,000 attributes (before login)"
    attrs = " ".join(f"a{i}='x'" for i in range(20_000))
    began = time.monotonic()
    try:
        raw = socket.create_connection((HOST, XMPP_PORT), timeout=10)
        conn = tls_context().wrap_socket(raw, server_hostname="gcm.googleapis.com")
        conn.sendall(f"<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' "
                     f"xmlns:stream='http://etherx.jabber.org/streams' {attrs}>".encode())
        data, closed = read_until(conn, lambda d: b"</stream:stream>" in d or b"stream:error" in d, 15)
        conn.close()
        elapsed = time.monotonic() - began
        hostile.add(kind, elapsed < 5 and (b"stream:error" in data or closed), f"{elapsed:.1f} s, closed={closed} {data[:200]!r}")
    except OSError as error:
        hostile.add(kind, time.monotonic() - began < 5, f"{type(error).__name__}: {error}")


def hostile_xmpp_never_read(token):
    """Logs in, then sends downstream messages (each answered by an ack) without reading: at most
    20,000 messages or 8 s, then holds the connection 3 s."""
    kind = "XMPP client that sends and never reads"
    try:
        conn, _ = xmpp_login()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.settimeout(0.5)
        end = time.monotonic() + 8
        sent = 0
        for i in range(20_000):
            if time.monotonic() > end or stop.is_set():
                break
            try:
                conn.sendall(ccs({"to": token, "message_id": f"nr-{i}", "data": {"n": str(i)}, "time_to_live": 0}))
                sent += 1
            except (socket.timeout, ssl.SSLWantWriteError):
                break                     # the server stopped reading
        notes.setdefault(kind, []).append(sent)
        stop.wait(3)
        conn.close()
        hostile.add(kind, True)
    except (OSError, ConnectionError, TimeoutError) as error:
        hostile.add(kind, False, f"{type(error).__name__}: {error}")


def hostile_declared_length():
    """200 requests declaring an 8 MiB body with 2 bytes sent, held open 3 s."""
    kind = "200 x Content-Length 8388608 with 2 bytes sent"
    conns = []
    try:
        for _ in range(200):
            c = socket.create_connection((HOST, HTTP_PORT), timeout=10)
            c.sendall(f"POST {SEND_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer soak\r\n"
                      f"Content-Type: application/json\r\nContent-Length: 8388608\r\n\r\n{{}}".encode())
            conns.append(c)
        stop.wait(3)
        hostile.add(kind, True)
    except OSError as error:
        hostile.add(kind, False, f"after {len(conns)} connections: {type(error).__name__}: {error}")
    finally:
        for c in conns:
            c.close()


def hostile_clock_advance():
    for body in ({"by": INT64_MAX - 1}, {"by": f"{INT64_MAX // 1000 - 1}s"}):
        status, data = control("POST", "/clock:advance", body)
        hostile.add("clock:advance by ~Int64.max", status == 400, f"{body} -> {status} {data!r:.200}")


def hostile_many_topics():
    status, data = control("POST", f"/projects/{PROJECT}/devices",
                           {"platform": "android", "topics": [f"t{i}" for i in range(100_000)]})
    hostile.add("device with 100,000 topics", status == 400, f"{status} {data!r:.200}")
    if status == 201 and isinstance(data, dict):
        control("DELETE", f"/projects/{PROJECT}/devices/{data.get('id')}")


def hostile_slowloris():
    """60 connections (20 per port) dribbling one byte a second for at most 12 s."""
    conns = []
    try:
        for port, prefix in ((HTTP_PORT, b"GET /emulator/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "),
                             (HTTPS_PORT, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
                             (XMPP_PORT, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")):
            for _ in range(20):
                c = socket.create_connection((HOST, port), timeout=5)
                c.sendall(prefix[:1])
                conns.append((c, prefix[1:] + b"a" * 64))
        for step in range(12):
            if stop.wait(1):
                break
            for c, rest in conns:
                try:
                    c.send(rest[step: step + 1])
                except OSError:
                    pass              # the server closed it: fine
        hostile.add("slowloris (20 each on HTTP, TLS, XMPP)", True)
    except OSError as error:
        hostile.add("slowloris (20 each on HTTP, TLS, XMPP)", False, f"{type(error).__name__}: {error}")
    finally:
        for c, _ in conns:
            c.close()


def hostile_garbage():
    for name, port in (("HTTP", HTTP_PORT), ("TLS", HTTPS_PORT), ("XMPP", XMPP_PORT)):
        payload = bytes(rng.getrandbits(8) for _ in range(16_384))
        try:
            c = socket.create_connection((HOST, port), timeout=5)
            try:
                c.sendall(payload)
            except OSError:
                pass                       # closed while we wrote: fine
            data, closed = read_until(c, lambda d: False, 5)
            c.close()
            hostile.add(f"16 KB of garbage bytes ({name})", closed, f"still open after 5 s; read {data[:100]!r}")
        except OSError as error:
            hostile.add(f"16 KB of garbage bytes ({name})", True, f"{type(error).__name__}: {error}")


HOSTILE_KINDS = [
    "v1 condition, 200,000 '!'", "legacy condition, 200,000 '!'", "XMPP condition, 200,000 '!'",
    "v1 condition, 40,000-term chain", "legacy condition, 40,000-term chain", "XMPP condition, 40,000-term chain",
    "clock:setSpeed 1e-16 + latency fault, then a send", "token assertion iat=Int64.min exp=Int64.max",
    "HTTP/1.1 pipelining, never reads (plain)", "HTTP/1.1 pipelining, never reads (TLS)",
    "XMPP stream header with 20,000 attributes (before login)", "XMPP client that sends and never reads",
    "200 x Content-Length 8388608 with 2 bytes sent", "clock:advance by ~Int64.max", "device with 100,000 topics",
    "slowloris (20 each on HTTP, TLS, XMPP)", "16 KB of garbage bytes (HTTP)", "16 KB of garbage bytes (TLS)",
    "16 KB of garbage bytes (XMPP)"]


TRUST = soak_trust.Soak(HOST, HTTP_PORT, CA, PROJECT, PROXY_PORT, STATE_DIR, control, request, hostile, stop,
                        SEND_PATH, V1_HEADERS)
TRUST_QUICK, TRUST_HOLDERS = soak_trust.steps(TRUST)
TRUST_QUICK += soak_round4.steps(TRUST, HTTPS_PORT)
HOSTILE_KINDS += soak_round4.KINDS
HOSTILE_KINDS += [k for k in soak_trust.KINDS
                  if (STATE_DIR or "snapshot" not in k and "export" not in k) and (PROXY_PORT or "proxy" not in k)]


def run_step(owner, name, step):
    running[owner] = name
    began = time.monotonic()
    try:
        step()
    except Exception as error:         # a driver bug must not end the soak silently
        hostile.add(f"driver error in {name}", False, repr(error))
    finally:
        running.pop(owner, None)
        step_times.setdefault(name, []).append(time.monotonic() - began)


step_times = {}


def hostile_loop(victim):
    """Runs the quick inputs of the table again and again until the soak ends (at most 1,000 rounds)."""
    steps = [("conditions", hostile_conditions),
             ("setSpeed+latency fault", lambda: hostile_clock_speed_with_latency_fault(victim)),
             ("token assertion", hostile_token_assertion), ("XMPP 20,000 attributes", hostile_xmpp_attributes),
             ("declared Content-Length", hostile_declared_length), ("clock:advance", hostile_clock_advance),
             ("100,000 topics", hostile_many_topics), ("garbage", hostile_garbage),
             ("pipelining (plain)", lambda: hostile_pipeline_never_read(False))] + TRUST_QUICK
    for _ in range(1000):
        for name, step in steps:
            if stop.is_set():
                return
            run_step("quick", name, step)


def concurrent_bursts(token):
    """A second hostile thread, so that attacks overlap: the clients that hold connections."""
    steps = [("XMPP never reads", lambda: hostile_xmpp_never_read(token)), ("slowloris", hostile_slowloris),
             ("pipelining (TLS)", lambda: hostile_pipeline_never_read(True))] + TRUST_HOLDERS
    for _ in range(1000):
        for name, step in steps:
            if stop.is_set():
                return
            run_step("holders", name, step)


# ---------------------------------------------------------------------------------------------


def main():
    canary, tokens, victim = setup()
    before = canary_snapshot()
    # Let the server settle after set-up, then take the starting RSS.
    time.sleep(1)
    start_rss = rss_kb()
    sampler = threading.Thread(target=sample_rss, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=v1_sender, args=(tokens[:25], V1_RATE / 2)),
               threading.Thread(target=v1_sender, args=(tokens[25:], V1_RATE / 2)),
               threading.Thread(target=legacy_sender, args=(tokens,)),
               threading.Thread(target=xmpp_sender, args=(tokens,)),
               threading.Thread(target=fanout_sender),
               threading.Thread(target=hostile_loop, args=(victim,)),
               threading.Thread(target=concurrent_bursts, args=(tokens[1],))]
    for t in threads:
        t.start()
    while time.monotonic() < deadline and rss_kb() is not None:
        time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    stuck = [t.name for t in threads if t.is_alive()]
    time.sleep(SETTLE)
    final_rss = rss_kb()
    sampler_stop.set()
    sampler.join()

    failures = []
    if stuck:
        failures.append(f"driver threads still running after 60 s: {stuck}")
    alive = final_rss is not None
    status = None
    if alive:
        status, _ = request("GET", f"{CONTROL}/health", None, {}, timeout=10)
    if not alive:
        failures.append("the server process is gone")
    elif status != 200:
        failures.append(f"/emulator/v1/health answered {status}")
    peak = max((v for _, v in rss), default=0)
    bound = (start_rss or 0) * RSS_FACTOR + RSS_SLACK_MB * 1024
    if alive and final_rss > bound:
        failures.append(f"final RSS {final_rss / 1024:.0f} MB is over the bound {bound / 1024:.0f} MB "
                        f"(start x {RSS_FACTOR:g} + {RSS_SLACK_MB:g} MB)")
    if alive:
        after = canary_snapshot()
        if after != before:
            failures.append("the canary changed:\n  before " + json.dumps(before)[:1500] + "\n  after  " + json.dumps(after)[:1500])
    for tally, label in ((normal, "normal"), (hostile, "hostile")):
        for kind, row in tally.rows.items():
            if row["bad"]:
                failures.append(f"{label} '{kind}': {row['bad']} of {row['sent']} not as expected, e.g. {row['samples']}")
    for kind in ("v1 send (HTTP/1.1 keep-alive)", "legacy /fcm/send (3 tokens)", "XMPP downstream (acked)"):
        if normal.rows.get(kind, {}).get("ok", 0) == 0:
            failures.append(f"no successful '{kind}' at all")
    missing = [k for k in HOSTILE_KINDS if k not in hostile.rows]
    if missing:
        failures.append(f"hostile inputs never replayed (run longer): {missing}")

    # Summary
    print(f"\nfcm-emu soak: {SECONDS:g} s, pid {PID}, {os.cpu_count()} cores")
    print(f"\n{'kind':<60} {'sent':>8} {'as expected':>12} {'errors':>8}")
    for title, tally in (("normal load", normal), ("hostile inputs", hostile)):
        print(f"-- {title}")
        for kind, row in tally.rows.items():
            print(f"{kind:<60} {row['sent']:>8} {row['ok']:>12} {row['bad']:>8}")
    lat = sorted(v1_latencies)
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")
    print(f"\nv1 send latency (normal load): p50 {pick(0.50):.2f} ms, p99 {pick(0.99):.2f} ms, max {pick(1.0):.1f} ms "
          f"over {len(lat)} requests")
    if slow_sends:
        print(f"v1 sends over 200 ms: {len(slow_sends)}; the slowest, with the hostile steps running at the time:")
        for took, at, steps in sorted(slow_sends, reverse=True)[:5]:
            print(f"  {took * 1000:8.1f} ms at {at:6.1f} s   {', '.join(steps) or '-'}")
    print("hostile steps, longest run: " + ", ".join(f"{n} {max(v):.1f} s" for n, v in step_times.items()))
    for kind, values in notes.items():
        unit = "messages" if "XMPP" in kind else "bytes"
        print(f"{kind}: the server took at most {max(values):,} {unit} before it stopped reading")
    mb = lambda kb: f"{kb / 1024:.1f} MB" if kb is not None else "gone"
    peak_at = next((t for t, v in rss if v == peak), 0)
    print(f"RSS: start {mb(start_rss)}, peak {mb(peak)} (at {peak_at:.0f} s), final {mb(final_rss)} "
          f"({SETTLE:g} s after the clients closed); bound {mb(bound)}")
    timeline = [f"{t:.0f}s {v / 1024:.0f}" for i, (t, v) in enumerate(rss) if i % 10 == 0]
    print("RSS every 10 s (MB): " + "  ".join(timeline))
    d = before["device"]
    print(f"canary: {d.get('state')}, topics {d.get('topics')}, {d.get('storedCount')} stored, "
          f"{len(before['inbox'] or [])} in its inbox; recorded before the load and compared after")
    print(f"health {'200' if status == 200 else status}; canary {'unchanged' if alive and not any('canary' in f for f in failures) else 'CHANGED'}")
    if failures:
        print("\nFAILED:")
        for f in failures:
            print(" - " + f)
        return 1
    print("\nsoak: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
