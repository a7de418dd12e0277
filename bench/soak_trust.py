"""The hostile inputs a web page or a hostile file can send (docs/security.md), replayed by bench/soak.py beside its load.

Each step is a function of one `Soak` (the driver's helpers and addresses) that adds rows to its
hostile tally; none of them may change the canary. What each expects:

  web page          a foreign Origin's reset, a rebinding Host's read of /info, a text/plain tar
                    import: 403, 403, 415 (the world is untouched, which the canary checks)
  fault id "."      DELETE /faults/. is 404 and the rules stay
  snapshot edges    a named snapshot with one field at the edge of its type (Int64.max counters,
                    caps of 2^40, a clock past year 9999): refused with 400, the world unchanged
  exports           40 concurrent exports to one name: all 200, and the snapshot imports whole
  waits             300 waits whose filter matches nothing, held while the load runs: each ends
                    with Emulator-Wait: timeout; `timeout=0x10` is 400
  streams           200 event streams that never read, held 5 s
  fault rules       rules added until the cap answers 4xx (at most 20,000 tries), then removed
  device answer     17 devices of 2,000 topics of 900 bytes (30 MB of names): made, and the answer
                    stays under 8 MiB; 100 of them (180 MB): 400
  proxy             CONNECT to the proxy's own port, and a packet of pipelined self-CONNECTs: 403,
                    nothing chained; CONNECT with a ClientHello in the same packet: the handshake
                    completes
"""
import http.client
import json
import os
import shutil
import socket
import ssl
import threading
import time

INT64_MAX = 2**63 - 1


class Soak:
    """What the steps need of the driver: set by bench/soak.py."""

    def __init__(self, host, http_port, ca, project, proxy_port, state_dir, control, request, hostile, stop, v1_path, v1_headers):
        self.host, self.http_port, self.ca, self.project = host, http_port, ca, project
        self.proxy_port, self.state_dir = proxy_port, state_dir
        self.control, self.request, self.hostile, self.stop = control, request, hostile, stop
        self.v1_path, self.v1_headers = v1_path, v1_headers


KINDS = [
    "web page: foreign Origin POST /reset", "web page: rebinding Host GET /info", "web page: text/plain tar import",
    "DELETE /faults/.", "snapshot import with a field at its type's edge", "40 concurrent exports to one name",
    "300 waits matching nothing", "wait timeout=0x10", "200 event streams that never read", "fault rules past the cap",
    "devices x 2,000 topics of 900 bytes (17 made, 100 refused)", "proxy CONNECT to itself", "proxy pipelined self-CONNECT chain",
    "proxy CONNECT + ClientHello in one packet"]


def web_page(s):
    c = f"/emulator/v1"
    status, data = s.request("POST", f"{c}/reset", b"", {"Origin": "http://evil.example", "Content-Type": "application/json"})
    s.hostile.add(KINDS[0], status == 403, f"{status} {data[:200]!r}")
    status, data = s.request("GET", f"{c}/info", None, {"Host": f"evil.example:{s.http_port}"})
    s.hostile.add(KINDS[1], status == 403, f"{status} {data[:200]!r}")
    status, data = s.request("POST", f"{c}:import?format=tar", b"x" * 1024, {"Content-Type": "text/plain"})
    s.hostile.add(KINDS[2], status == 415, f"{status} {data[:200]!r}")


def fault_dot(s):
    status, _ = s.control("POST", "/faults", {"id": "soak-dot-keeper", "match": {"device": "nobody"}, "action": {"error": "UNAVAILABLE"}})
    gone, data = s.request("DELETE", "/emulator/v1/faults/.", None, {})
    listed, rules = s.control("GET", "/faults")
    kept = isinstance(rules, dict) and any(r.get("id") == "soak-dot-keeper" for r in rules.get("faults", []))
    s.control("DELETE", "/faults/soak-dot-keeper")
    s.hostile.add(KINDS[3], status == 201 and gone == 404 and kept, f"create {status}, delete {gone} {data[:120]!r}, kept {kept}")


# One field each; every value is past what the settings API, --set or the format allows.
EDGE_EDITS = [
    ("world.jsonl", "counters", "nextEventSequence", INT64_MAX),
    ("world.jsonl", "counters", "microCounter", str(2**64 - 1)),
    ("world.jsonl", "counters", "nextStoreSequence", str(2**64 - 1)),
    ("world.jsonl", "settings", "maxStoredMessages", 2**40),
    ("world.jsonl", "settings", "maxEvents", 2**40),
    ("world.jsonl", "settings", "dozeMaintenanceIntervalSeconds", INT64_MAX),
    ("world.jsonl", "settings", "highPriorityLatencyMillis", INT64_MAX),
    ("manifest.json", None, "clockMillis", INT64_MAX),
]


def snapshot_edges(s):
    if not s.state_dir:
        return
    base = os.path.join(s.state_dir, "snapshots", "soak-edge")
    status, data = s.control("POST", ":export", {"name": "soak-edge"})
    if status != 200:
        s.hostile.add(KINDS[4], False, f"export {status} {data!r:.200}")
        return
    for number, (file, line_type, field, value) in enumerate(EDGE_EDITS):
        name = f"soak-edge-{number}"
        target = os.path.join(s.state_dir, "snapshots", name)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(base, target)
        path = os.path.join(target, file)
        if file == "manifest.json":
            manifest = json.load(open(path))
            manifest[field] = value
        else:
            lines = open(path).read().splitlines()
            for i, line in enumerate(lines):
                record = json.loads(line)
                if record.get("type") == line_type:
                    record[field] = value
                    lines[i] = json.dumps(record, separators=(",", ":"))
            open(path, "w").write("".join(line + "\n" for line in lines))
            manifest = json.load(open(os.path.join(target, "manifest.json")))
            manifest["files"][file]["bytes"] = os.path.getsize(path)
        with open(os.path.join(target, "manifest.json"), "w") as out:
            json.dump(manifest, out)
        status, data = s.control("POST", ":import", {"name": name})
        sent, answer = s.request("POST", s.v1_path, json.dumps({"message": {"topic": "soak-edge", "data": {"x": "y"}}}), s.v1_headers)
        s.hostile.add(KINDS[4], status == 400 and sent == 200, f"{field}={value}: import {status} {data!r:.160}; then a send {sent}")
        shutil.rmtree(target, ignore_errors=True)


def concurrent_exports(s):
    if not s.state_dir:
        return
    results = []

    def one():
        results.append(s.control("POST", ":export", {"name": "soak-race"})[0])
    threads = [threading.Thread(target=one) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    manifest = os.path.join(s.state_dir, "snapshots", "soak-race", "manifest.json")
    whole = os.path.exists(manifest)
    s.hostile.add(KINDS[5], results.count(200) == 40 and whole, f"answers {sorted(results)}, manifest there: {whole}")


def raw_request(s, path, port=None, rcvbuf=None):
    conn = socket.create_connection((s.host, port or s.http_port), timeout=10)
    if rcvbuf:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return conn


def idle_waits(s):
    """300 waits for an event kind that never comes to a device that does not exist in any event."""
    path = f"/emulator/v1/projects/{s.project}/events?kind=groupCreated&topic=soak-never&waitFor=1&timeout=5s"
    conns = []
    try:
        for _ in range(300):
            conns.append(raw_request(s, path))
        ended = 0
        deadline = time.monotonic() + 30
        for conn in conns:
            conn.settimeout(max(0.1, deadline - time.monotonic()))
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            ended += data.startswith(b"HTTP/1.1 200") and b"Emulator-Wait: timeout" in data
        s.hostile.add(KINDS[6], ended == 300, f"{ended} of 300 ended with a timeout answer")
    except OSError as error:
        s.hostile.add(KINDS[6], False, f"after {len(conns)} waits: {type(error).__name__}: {error}")
    finally:
        for conn in conns:
            conn.close()
    status, data = s.request("GET", f"/emulator/v1/events?waitFor=1&timeout=0x10", None, {})
    s.hostile.add(KINDS[7], status == 400, f"{status} {data[:200]!r}")


def silent_streams(s):
    conns = []
    try:
        for _ in range(200):
            conns.append(raw_request(s, f"/emulator/v1/events:stream", rcvbuf=4096))
        s.stop.wait(5)
        s.hostile.add(KINDS[8], True)
    except OSError as error:
        s.hostile.add(KINDS[8], False, f"after {len(conns)} streams: {type(error).__name__}: {error}")
    finally:
        for conn in conns:
            conn.close()


def fault_rules_cap(s):
    refused, added = None, 0
    for i in range(20_000):
        status, data = s.control("POST", "/faults", {"id": f"soak-cap-{i}", "match": {"device": "nobody"}, "action": {"error": "UNAVAILABLE"}})
        if status != 201:
            refused = (status, data)
            break
        added += 1
        if s.stop.is_set():
            break
    for i in range(added):
        s.control("DELETE", f"/faults/soak-cap-{i}")
    ok = refused is not None and 400 <= refused[0] < 500
    s.hostile.add(KINDS[9], ok or s.stop.is_set(), f"{added} added, then {refused!r:.200}")


def big_device_answer(s):
    topics = [f"{i:04d}" + "t" * 896 for i in range(2000)]
    path = f"/emulator/v1/projects/{s.project}/devices"
    refused, data = s.request("POST", path, json.dumps({"platform": "android", "count": 100, "topics": topics}),
                              {"Content-Type": "application/json"}, timeout=120)
    conn = http.client.HTTPConnection(s.host, s.http_port, timeout=120)
    ids = []
    try:
        conn.request("POST", path, body=json.dumps({"platform": "android", "count": 17, "topics": topics}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read((8 << 20) + 1)
        if response.status == 201 and len(data) <= 8 << 20:
            try:
                ids = [d["id"] for d in json.loads(data)["devices"]]
            except (ValueError, KeyError, TypeError):
                pass
        s.hostile.add(KINDS[10], refused == 400 and response.status == 201 and len(ids) == 17,
                      f"100: {refused}; 17: {response.status}, {len(data):,} bytes")
    except (OSError, http.client.HTTPException) as error:
        s.hostile.add(KINDS[10], False, f"{type(error).__name__}: {error}")
    finally:
        conn.close()
    for device in ids:
        s.control("DELETE", f"/projects/{s.project}/devices/{device}")


def proxy_self(s):
    if not s.proxy_port:
        return
    conn = socket.create_connection((s.host, s.proxy_port), timeout=10)
    try:
        conn.sendall(f"CONNECT 127.0.0.1:{s.proxy_port} HTTP/1.1\r\nHost: 127.0.0.1:{s.proxy_port}\r\n\r\n".encode())
        data = conn.recv(4096)
        s.hostile.add(KINDS[11], data.startswith(b"HTTP/1.1 403"), f"{data[:200]!r}")
    finally:
        conn.close()
    chain = f"CONNECT 127.0.0.1:{s.proxy_port} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 200
    conn = socket.create_connection((s.host, s.proxy_port), timeout=10)
    try:
        conn.sendall(chain)
        conn.settimeout(3)
        data = b""
        try:
            while len(data) < 1 << 20:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        tunnels = data.count(b"200 Connection established") + data.count(b"HTTP/1.1 200")
        s.hostile.add(KINDS[12], tunnels == 0 and data.startswith(b"HTTP/1.1 403"), f"{tunnels} tunnels; {data[:160]!r}")
    finally:
        conn.close()


def proxy_client_hello(s):
    """The ClientHello goes in the same packet as the CONNECT, as clients with TCP Fast Open or
    an eager TLS stack send it."""
    if not s.proxy_port:
        return
    context = ssl.create_default_context(cafile=s.ca)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="fcm.googleapis.com")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    conn = socket.create_connection((s.host, s.proxy_port), timeout=10)
    try:
        conn.sendall(b"CONNECT fcm.googleapis.com:443 HTTP/1.1\r\nHost: fcm.googleapis.com:443\r\n\r\n" + hello)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                raise ConnectionError(f"closed after {data!r}")
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        incoming.write(rest)
        deadline = time.monotonic() + 10
        done = False
        while time.monotonic() < deadline:
            try:
                tls.do_handshake()
                done = True
                break
            except ssl.SSLWantReadError:
                out = outgoing.read()
                if out:
                    conn.sendall(out)
                chunk = conn.recv(65536)
                if not chunk:
                    break
                incoming.write(chunk)
        s.hostile.add(KINDS[13], head.startswith(b"HTTP/1.1 200") and done, f"{head[:80]!r}, handshake {'done' if done else 'not done'}")
    except (OSError, ConnectionError, ssl.SSLError) as error:
        s.hostile.add(KINDS[13], False, f"{type(error).__name__}: {error}")
    finally:
        conn.close()


def steps(s):
    """(name, step) pairs for the driver's loops: quick ones, and ones that hold connections."""
    quick = [("web page", lambda: web_page(s)), ("fault id '.'", lambda: fault_dot(s)),
             ("snapshot edges", lambda: snapshot_edges(s)), ("concurrent exports", lambda: concurrent_exports(s)),
             ("fault rules cap", lambda: fault_rules_cap(s)), ("device answer", lambda: big_device_answer(s)),
             ("proxy self-CONNECT", lambda: proxy_self(s)), ("proxy ClientHello", lambda: proxy_client_hello(s))]
    holders = [("idle waits", lambda: idle_waits(s)), ("silent streams", lambda: silent_streams(s))]
    return quick, holders
