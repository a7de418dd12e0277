"""Downstream throughput of the XMPP connection server: messages sent and acked per second, on one
connection and on ten, over TLS with pipelined stanzas (the 100-pending flow-control window)."""
import base64
import json
import socket
import ssl
import sys
import threading
import time
import urllib.request

ready = json.load(open(sys.argv[1]))
messages = int(sys.argv[2])
port = ready["xmpp"]["ports"][0]
context = ssl.create_default_context(cafile=ready["xmpp"]["caCertificate"])
control = ready["controlApi"]
request = urllib.request.Request(control + "/projects/demo-fcm-emu/devices", data=b'{"platform":"android"}', method="POST",
                                 headers={"Content-Type": "application/json"})
token = json.load(urllib.request.urlopen(request))["token"]
auth = base64.b64encode(b"\0" + ready["demoProject"]["senderId"].encode() + b"@gcm.googleapis.com\0" + ready["demoProject"]["serverKey"].encode()).decode()
STREAM = "<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"


def session():
    raw = socket.create_connection(("127.0.0.1", port))
    conn = context.wrap_socket(raw, server_hostname="gcm.googleapis.com")

    def until(marker):
        data = b""
        while marker not in data:
            data += conn.recv(65536)
    conn.sendall(STREAM.encode()); until(b"</stream:features>")
    conn.sendall(f"<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>{auth}</auth>".encode()); until(b"success")
    conn.sendall(STREAM.encode()); until(b"</stream:features>")
    conn.sendall(b"<iq type='set' id='b'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>"); until(b"</iq>")
    return conn


def run(conn, count, window=100):
    """Keeps up to `window` messages pending, as FCM's flow control allows."""
    acked = sent = 0
    buffer = b""
    while acked < count:
        while sent < count and sent - acked < window:
            body = json.dumps({"to": token, "message_id": f"m-{sent}", "data": {"n": str(sent)}})
            conn.sendall(f'<message id=""><gcm xmlns="google:mobile:data">{body}</gcm></message>'.encode())
            sent += 1
        buffer += conn.recv(1 << 20)
        acked += buffer.count(b"\"message_type\":\"ack\"")
        buffer = buffer[buffer.rfind(b"</message>") + 10:] if b"</message>" in buffer else buffer


for connections in (1, 10):
    sessions = [session() for _ in range(connections)]
    per = messages // connections
    threads = [threading.Thread(target=run, args=(c, per)) for c in sessions]
    start = time.perf_counter()
    for t in threads: t.start()
    for t in threads: t.join()
    elapsed = time.perf_counter() - start
    print(f"xmpp:    {per * connections} downstream messages acked over {connections} connection(s) in {elapsed:.2f} s "
          f"= {per * connections / elapsed:,.0f} messages/s")
    for c in sessions: c.close()
