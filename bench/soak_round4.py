"""The hostile inputs of "trust, round four", replayed by bench/soak.py beside its load.

Each step is a function of one `soak_trust.Soak` plus the HTTPS port; none may change the canary.
What each expects:

  h2 rapid reset      HEADERS + RST_STREAM pairs on one TLS connection (CVE-2023-44487's shape),
                      then PINGs: GOAWAY, and the connection closed (RFC 9113 §5.4.1)
  h2 WINDOW_UPDATE 0  a zero increment on stream 0: GOAWAY PROTOCOL_ERROR, then closed
  h2 zero window      SETTINGS_INITIAL_WINDOW_SIZE 0 and 100 streams each asking for a page of
                      events: the server stops reading (a PING after them is not answered while
                      they are held); the server's memory is checked by the soak's RSS bound
  events list         `limit=100000` over the soak's log: 200 and under 9 MiB
  events query        20 queries whose filter matches nothing, over the whole log, each answered
                      within 5 s (a slice of the log per hold of the world lock)
  device search       `q` of 4 KB of combining accents: 200 with no device, within 5 s
  inbox bytes, rate   a second emulator of the same binary (the soak's canary keeps its inbox, so
  windows             not the soak's own) with maxInboxBytes=1MiB and topicRateLimit on: 2,000
                      devices on a topic and 40 sends to it keep the inboxes within the budget
                      (inboxTrimmed events, the newest send kept, resident memory under 200 MB),
                      and 500 topics sent to leave no rate window in a snapshot a minute later
"""
import json
import os
import socket
import subprocess
import tempfile
import ssl
import struct
import time
import urllib.parse
import urllib.request

KINDS = [
    "h2 rapid reset (HEADERS + RST_STREAM x 2000, then PINGs)", "h2 WINDOW_UPDATE 0 on stream 0",
    "h2 zero window, 100 streams of big answers", "events list limit=100000 (under 9 MiB)",
    "events queries matching nothing (20, each under 5 s)", "device search, 4 KB of combining accents (under 5 s)",
    "inboxes of 2,000 devices x 40 sends within maxInboxBytes=1MiB", "500 topics' rate windows gone a minute later"]

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def settings(pairs=()):
    return frame(0x4, 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def literal(name, value):
    """An HPACK literal header field without indexing, new name (RFC 7541 §6.2.2)."""
    def string(text):
        data = text.encode()
        assert len(data) < 127
        return bytes([len(data)]) + data
    return b"\x00" + string(name) + string(value)


def get_headers(stream, path, host):
    block = literal(":method", "GET") + literal(":scheme", "https") + literal(":path", path) + literal(":authority", host)
    return frame(0x1, 0x5, stream, block)  # END_STREAM | END_HEADERS


def connect_h2(s, https_port):
    context = ssl.create_default_context(cafile=s.ca)
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection((s.host, https_port), timeout=10)
    conn = context.wrap_socket(raw, server_hostname="localhost")
    if conn.selected_alpn_protocol() != "h2":
        conn.close()
        raise OSError("the server did not choose h2")
    return conn


def frames_until(conn, wanted, seconds):
    """Reads frames until `wanted(type, payload)` holds, the peer closes (None) or time runs out
    (False). Returns (outcome, frames seen)."""
    deadline = time.monotonic() + seconds
    buffer = b""
    seen = []
    while time.monotonic() < deadline:
        conn.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = conn.recv(65536)
        except socket.timeout:
            break
        except OSError:
            return None, seen
        if not chunk:
            return None, seen
        buffer += chunk
        while len(buffer) >= 9:
            length = int.from_bytes(buffer[:3], "big")
            if len(buffer) < 9 + length:
                break
            kind, payload = buffer[3], buffer[9:9 + length]
            buffer = buffer[9 + length:]
            seen.append((kind, payload))
            if wanted(kind, payload):
                return True, seen
    return False, seen


def closed_after(conn, seconds, pings=True):
    """Whether the peer closes within `seconds`, while we send a PING now and then."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pings:
            try:
                conn.sendall(frame(0x6, 0, 0, b"keepopen"))
            except OSError:
                return True
        outcome, _ = frames_until(conn, lambda kind, payload: False, 0.5)
        if outcome is None:
            return True
    return False


def goaway_code(seen):
    for kind, payload in seen:
        if kind == 0x7 and len(payload) >= 8:
            return int.from_bytes(payload[4:8], "big")
    return None


def rapid_reset(s, https_port):
    try:
        conn = connect_h2(s, https_port)
    except OSError as error:
        s.hostile.add(KINDS[0], False, f"{type(error).__name__}: {error}")
        return
    try:
        burst = PREFACE + settings()
        for n in range(2000):
            stream = 2 * n + 1
            burst += get_headers(stream, "/emulator/v1/health", "localhost") + frame(0x3, 0, stream, struct.pack(">I", 8))
        try:
            conn.sendall(burst)
        except OSError:
            pass
        _, seen = frames_until(conn, lambda kind, payload: kind == 0x7, 5)
        code = goaway_code(seen)
        closed = closed_after(conn, 10)
        s.hostile.add(KINDS[0], code is not None and closed, f"GOAWAY code {code}, closed: {closed}")
    finally:
        conn.close()


def window_update_zero(s, https_port):
    try:
        conn = connect_h2(s, https_port)
    except OSError as error:
        s.hostile.add(KINDS[1], False, f"{type(error).__name__}: {error}")
        return
    try:
        conn.sendall(PREFACE + settings() + frame(0x8, 0, 0, struct.pack(">I", 0)))
        _, seen = frames_until(conn, lambda kind, payload: kind == 0x7, 5)
        code = goaway_code(seen)
        closed = closed_after(conn, 10)
        s.hostile.add(KINDS[1], code == 0x1 and closed, f"GOAWAY code {code}, closed: {closed}")
    finally:
        conn.close()


def zero_window(s, https_port):
    try:
        conn = connect_h2(s, https_port)
    except OSError as error:
        s.hostile.add(KINDS[2], False, f"{type(error).__name__}: {error}")
        return
    try:
        burst = PREFACE + settings([(0x4, 0)])  # SETTINGS_INITIAL_WINDOW_SIZE 0
        for n in range(100):
            burst += get_headers(2 * n + 1, "/emulator/v1/events?limit=100000", "localhost")
        conn.sendall(burst)
        # The answers wait for a window that never opens; the connection is then idle both ways
        # and the server may close it. Either way it must not keep reading and buffering.
        outcome, seen = frames_until(conn, lambda kind, payload: kind == 0x7, 3)
        data = sum(len(payload) for kind, payload in seen if kind == 0x0)
        s.hostile.add(KINDS[2], data == 0, f"{data} bytes of DATA sent into a zero window; outcome {outcome}")
    except OSError as error:
        s.hostile.add(KINDS[2], True, f"closed: {error}")
    finally:
        conn.close()


def events_list(s):
    status, data = s.request("GET", "/emulator/v1/events?limit=100000", None, {}, timeout=60)
    s.hostile.add(KINDS[3], status == 200 and len(data) < 9 << 20, f"{status}, {len(data) if isinstance(data, bytes) else data} bytes")


def empty_queries(s):
    slowest = 0.0
    statuses = set()
    for _ in range(20):
        began = time.monotonic()
        status, _ = s.request("GET", f"/emulator/v1/projects/{s.project}/events?kind=groupDeleted&limit=10", None, {}, timeout=30)
        slowest = max(slowest, time.monotonic() - began)
        statuses.add(status)
        if s.stop.is_set():
            break
    s.hostile.add(KINDS[4], statuses == {200} and slowest < 5, f"statuses {sorted(map(str, statuses))}, slowest {slowest:.2f} s")


def accent_search(s):
    q = urllib.parse.quote("\u0301" * 2048)
    began = time.monotonic()
    status, data = s.request("GET", f"/emulator/v1/projects/{s.project}/devices?q={q}", None, {}, timeout=60)
    took = time.monotonic() - began
    try:
        total = json.loads(data).get("total") if status == 200 else None
    except ValueError:
        total = None
    ok = status == 200 and total == 0 and took < 5
    s.hostile.add(KINDS[5], ok, f"{status} in {took:.2f} s: {data[:120]!r}")


def second_emulator(s):
    """Inbox bytes and rate windows, in an emulator of their own (the soak's binary)."""
    binary = os.environ.get("FCM_EMU_SOAK_BIN")
    if not binary:
        s.hostile.add(KINDS[6], False, "FCM_EMU_SOAK_BIN is not set")
        s.hostile.add(KINDS[7], False, "FCM_EMU_SOAK_BIN is not set")
        return
    work = tempfile.mkdtemp(prefix="fcm-emu-soak4-")
    ready = os.path.join(work, "ready.json")
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "xmppTestPort=off",
         "--set", "stateDir=none", "--set", "maxInboxBytes=1MiB", "--set", "topicRateLimit=100000/1m",
         "--ready-file", ready, "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (os.path.exists(ready) and os.path.getsize(ready)) and time.monotonic() < deadline:
            time.sleep(0.05)
        base = json.load(open(ready))["http"]["url"]

        def call(method, path, body=None, raw=False):
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(base + path, data=data, method=method,
                                             headers={"Content-Type": "application/json", "Authorization": "Bearer soak"})
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = response.read()
                return answer if raw else json.loads(answer or b"{}")
        project = "/emulator/v1/projects/demo-fcm-emu"
        send = "/v1/projects/demo-fcm-emu/messages:send"
        first = call("POST", project + "/devices", {"platform": "android", "count": 2000, "topics": ["all"]})
        device = (first.get("devices") or [{}])[0].get("id")
        for n in range(40):
            call("POST", send, {"message": {"topic": "all", "data": {"n": str(n), "pad": "x" * 200}}})
        kept = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            deliveries = call("GET", f"{project}/devices/{device}/inbox").get("deliveries", [])
            kept = [((d.get("payload") or {}).get("data") or {}).get("n") for d in deliveries]
            if "39" in kept:
                break
            time.sleep(0.2)
        trimmed = call("GET", "/emulator/v1/events?kind=inboxTrimmed&limit=1000")["events"]
        with open(f"/proc/{process.pid}/status") as f:
            rss = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:")), 0)
        s.hostile.add(KINDS[6], bool(trimmed) and "39" in kept and len(kept) < 40 and rss < 200 << 20,
                      f"{len(trimmed)} inboxTrimmed events; device {device} keeps {len(kept)} (last {kept[-1:]}); RSS {rss >> 20} MB")
        for n in range(500):
            call("POST", send, {"message": {"topic": f"soak-t{n}", "data": {"k": "v"}}})
        call("POST", "/emulator/v1/clock:advance", {"by": "61s"})
        tar = call("POST", "/emulator/v1:export?format=tar", raw=True)
        windows = tar.count(b"soak-t")
        s.hostile.add(KINDS[7], windows == 0, f"{windows} of 500 topics' windows in the snapshot a minute later")
    except (OSError, ValueError, KeyError) as error:
        s.hostile.add(KINDS[6], False, f"{type(error).__name__}: {error}")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)


def steps(s, https_port):
    """(name, step) pairs for the driver's quick loop."""
    return [("h2 rapid reset", lambda: rapid_reset(s, https_port)), ("h2 WINDOW_UPDATE 0", lambda: window_update_zero(s, https_port)),
            ("h2 zero window", lambda: zero_window(s, https_port)), ("events list", lambda: events_list(s)),
            ("events queries", lambda: empty_queries(s)), ("accent search", lambda: accent_search(s)),
            ("second emulator", lambda: second_emulator(s))]
