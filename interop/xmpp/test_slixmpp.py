"""slixmpp (from PyPI) against fcm-emu's XMPP connection server: direct TLS with the emulator's
CA, SASL PLAIN with the sender id and server key, downstream messages acked and nacked, and what
the device received checked through the control API (https://firebase.google.com/docs/cloud-messaging/xmpp-server-ref;
docs/xmpp.md)."""
import asyncio
import json
import logging

import slixmpp
from slixmpp.xmlstream.handler import Callback
from slixmpp.xmlstream.matcher import MatchXPath

from conftest import PROJECT

# slixmpp leaves filter tasks pending when each test's loop closes; asyncio reports them at exit.
logging.getLogger("asyncio").setLevel(logging.CRITICAL)

SENDER = "424242424242"


def converse(emulator, password, messages, expect, timeout=10, ack=False, on_start=None, sender=SENDER):
    """Logs in, sends raw CCS stanzas, and returns the CCS payloads received (or 'failed_auth').
    With ack, acks every upstream message and receipt as an app server must; on_start runs once
    the session is up (to make devices send upstream)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    done = loop.create_future()
    received = []

    class CCSClient(slixmpp.ClientXMPP):
        def __init__(self):
            super().__init__(f"{sender}@gcm.googleapis.com", password)
            self.enable_starttls = False
            self.enable_direct_tls = True
            self.enable_plaintext = False
            self.ca_certs = emulator.ca
            self.add_event_handler("session_start", self.started)
            # slixmpp's "message" event needs a <body>; CCS clients match the gcm payload instead.
            self.register_handler(Callback("CCS", MatchXPath("{jabber:client}message/{google:mobile:data}gcm"), self.on_message))
            self.add_event_handler("failed_auth", lambda _: done.done() or done.set_result("failed_auth"))

        async def started(self, _):
            for stanza in messages:
                self.send_raw(stanza)
            if on_start:
                on_start()

        def on_message(self, message):
            payload = message.xml.find("{google:mobile:data}gcm")
            if payload is not None:
                body = json.loads(payload.text)
                received.append(body)
                if ack and body.get("message_type") in (None, "receipt"):
                    self.send_raw(downstream({"to": body.get("from"), "message_id": body["message_id"], "message_type": "ack"}))
            if len(received) >= expect and not done.done():
                done.set_result(received)

    client = CCSClient()
    client.connect(host="127.0.0.1", port=emulator.xmpp_port)
    try:
        return loop.run_until_complete(asyncio.wait_for(done, timeout))
    finally:
        client.disconnect()
        loop.run_until_complete(asyncio.sleep(0.1))
        loop.close()


def downstream(payload):
    return f'<message id=""><gcm xmlns="google:mobile:data">{json.dumps(payload)}</gcm></message>'


def test_downstream_messages_are_acked_and_delivered(emulator):
    key = emulator.call("GET", f"/projects/{PROJECT}")["serverKeys"][0]
    device = emulator.device("android")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    replies = converse(emulator, key, [
        downstream({"to": device["token"], "message_id": "m-1", "data": {"hello": "world"}, "time_to_live": 600}),
        downstream({"to": gone["token"], "message_id": "m-2"}),
        downstream({"to": "garbage", "message_id": "m-3"}),
    ], expect=3)
    by_id = {reply["message_id"]: reply for reply in replies}
    assert by_id["m-1"] == {"from": device["token"], "message_id": "m-1", "message_type": "ack"}
    assert by_id["m-2"]["message_type"] == "nack" and by_id["m-2"]["error"] == "DEVICE_UNREGISTERED"
    assert by_id["m-3"]["error"] == "BAD_REGISTRATION"
    [delivery] = emulator.inbox(device)
    assert delivery["api"] == "xmpp" and delivery["payload"]["data"] == {"hello": "world"}


def test_wrong_server_key_fails_authentication(emulator):
    logging.getLogger("slixmpp").setLevel(logging.CRITICAL)
    assert converse(emulator, "not-the-key", [], expect=1) == "failed_auth"


def test_upstream_is_acked_and_unacked_ones_come_again(emulator):
    key = emulator.call("GET", f"/projects/{PROJECT}")["serverKeys"][0]
    device = emulator.device("android")
    upstream = lambda mid: emulator.call("POST", f"/projects/{PROJECT}/devices/{device['id']}:upstream",
                                         {"data": {"hello": "world"}, "messageId": mid})
    [first] = converse(emulator, key, [], expect=1, on_start=lambda: upstream("u-1"))
    assert first["message_id"] == "u-1" and first["from"] == device["token"] and first["data"] == {"hello": "world"}
    # Not acked: the next connection gets it again (the XMPP reference's upstream messages); this time it is acked.
    [again] = converse(emulator, key, [], expect=1, ack=True)
    assert again["message_id"] == "u-1"
    acked = [e for e in emulator.events(project=None, kind="ccsAcked") if e.get("detail") == "u-1"]
    assert len(acked) == 1


def test_delivery_receipt_is_sent_and_acked(emulator):
    key = emulator.call("GET", f"/projects/{PROJECT}")["serverKeys"][0]
    device = emulator.device("android")
    replies = converse(emulator, key, [downstream({"to": device["token"], "message_id": "m-r", "delivery_receipt_requested": True})],
                       expect=2, ack=True)
    receipt = next(r for r in replies if r.get("message_type") == "receipt")
    assert receipt["message_id"] == "dr2:m-r"
    assert receipt["data"]["original_message_id"] == "m-r"
    assert receipt["data"]["device_registration_id"] == device["token"]


def test_drain_then_reconnect(emulator):
    key = emulator.call("GET", f"/projects/{PROJECT}")["serverKeys"][0]
    device = emulator.device("android")

    def drain():
        emulator.call("POST", f"/projects/{PROJECT}/xmpp:drain")

    replies = converse(emulator, key, [], expect=1, on_start=drain)
    assert replies[0] == {"message_type": "control", "control_type": "CONNECTION_DRAINING"}
    assert emulator.inbox(device) == []
    # The client survives the drain by reconnecting: the new connection sends as usual.
    [ack] = converse(emulator, key, [downstream({"to": device["token"], "message_id": "after-drain"})], expect=1)
    assert ack["message_type"] == "ack"
    assert len(emulator.inbox(device)) == 1


def test_garbage_truncated_tls_and_vanishing_clients_leave_others_working(emulator):
    import socket
    import ssl
    # Plain bytes at the TLS port: a failed handshake, that connection only.
    with socket.create_connection(("127.0.0.1", emulator.xmpp_port)) as raw:
        raw.sendall(b"<stream:stream>garbage")
        raw.settimeout(5)
        # The server answers (a TLS alert) or closes within the timeout; a hang raises here.
        raw.recv(100)
    # A TLS client that vanishes mid-handshake, and one that vanishes mid-stanza.
    context = ssl.create_default_context(cafile=emulator.ca)
    with socket.create_connection(("127.0.0.1", emulator.xmpp_port)) as raw:
        raw.sendall(b"\x16\x03\x01\x00")
    with context.wrap_socket(socket.create_connection(("127.0.0.1", emulator.xmpp_port)), server_hostname="gcm.googleapis.com") as tls:
        tls.sendall(b"<stream:stream to='gcm.googleapis.com' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'><auth mech")
    # An oversized stanza is refused with a stream error.
    with context.wrap_socket(socket.create_connection(("127.0.0.1", emulator.xmpp_port)), server_hostname="gcm.googleapis.com") as tls:
        tls.sendall(b"<stream:stream to='gcm.googleapis.com' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'><message>" + b"a" * (2 << 20))
        tls.settimeout(5)
        answer = b""
        try:
            while b"</stream:stream>" not in answer:
                chunk = tls.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except (ConnectionError, ssl.SSLError):
            pass
        assert b"policy-violation" in answer
    # Everyone else is still served.
    key = emulator.call("GET", f"/projects/{PROJECT}")["serverKeys"][0]
    device = emulator.device("android")
    [ack] = converse(emulator, key, [downstream({"to": device["token"], "message_id": "after-garbage"})], expect=1)
    assert ack["message_type"] == "ack"


def test_scheduled_drain(tmp_path):
    """`--set xmppDrainAfter=1s`: every connection gets CONNECTION_DRAINING a second after binding."""
    import time

    from xmpp_support import emulator_with

    with emulator_with(tmp_path, "xmppDrainAfter=1s") as emulator:
        started = time.time()
        [control] = converse(emulator, emulator.demo["serverKey"], [], expect=1, timeout=10, sender=emulator.demo["senderId"])
        assert control == {"message_type": "control", "control_type": "CONNECTION_DRAINING"}
        assert 0.8 <= time.time() - started < 8
