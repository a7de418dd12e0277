"""xmpppy (from PyPI) against fcm-emu's XMPP connection server, written the way CCS app servers on
xmpppy are: xmpp.Client(domain), connect(secure=1) for CCS's direct TLS, auth(sender id, server key),
a 'message' handler and Process() as the loop.

What xmpppy does differently from slixmpp: it sends the XML declaration <?xml version='1.0'?> before
every stream header, the restart after SASL success included; its SASL PLAIN
carries an authzid (`<sender>@<domain>\\0<sender>\\0<key>`); its serializer escapes the JSON's
quotes as &quot; (the slixmpp tests send raw text); the payload is read with
getTag('gcm', namespace=...), as xmpppy CCS servers do, so the nacks' and control messages'
prefixed <data:gcm> must resolve to the same element. The library's own bytes go to stderr
(debug=['socket']), which pytest shows with a failure."""
import json

import pytest
import xmpp

from conftest import PROJECT
from xmpp_support import DOMAIN, SENDER, drain, emulator_with, server_key, upstream, wait_until

NS_GCM = "google:mobile:data"
xmpp.debug.colors_enabled = False  # plain text in pytest's captured stderr
# xmpppy sends <?xml version='1.0'?> before the restarted stream header, which the emulator refused
# (a bare <stream:error><restricted-xml/>): every test that logs in needs the fix.


class AppServer:
    """One CCS connection through xmpppy."""

    def __init__(self, emulator, password, domain=DOMAIN, sender=SENDER):
        self.received = []
        self.closed = False
        self.client = xmpp.Client(domain, debug=["socket", "SASL_auth", "bind"])
        # xmpppy's default disconnect handler raises; an app server notes the close and reconnects.
        self.client.UnregisterDisconnectHandler(self.client.DisconnectHandler)
        self.client.RegisterDisconnectHandler(self._disconnected)
        # secure=1: TLS from the first byte, as CCS needs (there is no STARTTLS).
        assert self.client.connect(server=("127.0.0.1", emulator.xmpp_port), secure=1, use_srv=False) == "ssl"
        self.login = self.client.auth(sender, password, "xmpppy")
        self.client.RegisterHandler("message", self._message)

    def _disconnected(self):
        self.closed = True

    def _message(self, _connection, message):
        payload = message.getTag("gcm", namespace=NS_GCM)
        if payload is not None:
            self.received.append(json.loads(payload.getData()))
        raise xmpp.NodeProcessed

    def step(self):
        if not self.closed:
            self.client.Process(0.1)

    def send(self, payload):
        message = xmpp.Message()
        message.setAttr("id", "")
        message.addChild("gcm", namespace=NS_GCM).setData(json.dumps(payload))
        self.client.send(message)

    def ack(self, body):
        self.send({"to": body["from"], "message_id": body["message_id"], "message_type": "ack"})

    def wait_for(self, count, what, timeout=10):
        wait_until(lambda: len(self.received) >= count, timeout, what, step=self.step)
        return self.received[:count]

    def wait_closed(self, timeout=10):
        wait_until(lambda: self.closed, timeout, "the server to close the stream", step=self.step)

    def close(self):
        if not self.closed:
            if self.login:
                self.client.disconnect()
            else:
                # After a refused login xmpppy's disconnect() trips over its own unplugged TLS handler
                # (a KeyError); the server has closed the stream already.
                self.client.Connection.disconnect()
        # xmpppy's disconnect() closes the plain socket that TLS has detached, so the connection
        # would stay open until garbage collection: close the TLS socket itself.
        tls = getattr(self.client.Connection, "_sslObj", None)
        if tls is not None:
            tls.close()


@pytest.fixture
def key(emulator):
    return server_key(emulator)


@pytest.mark.parametrize("domain", ["gcm.googleapis.com", "fcm.googleapis.com"])
def test_login_then_downstream_acked_and_nacked(emulator, key, domain):
    device = emulator.device("android")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    server = AppServer(emulator, key, domain=domain)
    try:
        assert server.login == "sasl"
        assert server.client.Bind.bound[0].startswith(f"{SENDER}@{DOMAIN}/")
        # The JSON goes out with its quotes escaped (&quot;) by xmpppy's serializer, and a '<' escaped.
        server.send({"to": device["token"], "message_id": "x-1", "data": {"hello": "<world> & \"you\""}, "time_to_live": 600})
        server.send({"to": gone["token"], "message_id": "x-2"})
        server.send({"to": "not-a-token", "message_id": "x-3"})
        replies = {reply["message_id"]: reply for reply in server.wait_for(3, "an ack and two nacks")}
    finally:
        server.close()
    assert replies["x-1"] == {"from": device["token"], "message_id": "x-1", "message_type": "ack"}
    assert replies["x-2"]["message_type"] == "nack" and replies["x-2"]["error"] == "DEVICE_UNREGISTERED"
    assert replies["x-3"]["message_type"] == "nack" and replies["x-3"]["error"] == "BAD_REGISTRATION"
    [delivery] = emulator.inbox(device)
    assert delivery["api"] == "xmpp" and delivery["payload"]["data"] == {"hello": "<world> & \"you\""}


def test_wrong_server_key_is_refused(emulator):
    server = AppServer(emulator, "not-the-key")
    try:
        assert server.login is None
        assert server.received == [] and "Bind" not in server.client.__dict__
    finally:
        server.close()


def test_delivery_receipt_is_received_and_acked(emulator, key):
    device = emulator.device("android")
    server = AppServer(emulator, key)
    try:
        assert server.login == "sasl"
        server.send({"to": device["token"], "message_id": "x-r", "delivery_receipt_requested": True})
        ack, receipt = sorted(server.wait_for(2, "the ack and the receipt"), key=lambda r: r.get("message_type") != "ack")
        assert ack["message_type"] == "ack" and ack["message_id"] == "x-r"
        assert receipt["message_type"] == "receipt" and receipt["message_id"] == "dr2:x-r"
        assert receipt["data"]["original_message_id"] == "x-r"
        assert receipt["data"]["device_registration_id"] == device["token"]
        server.ack(receipt)
        wait_until(lambda: any(e.get("detail") == "dr2:x-r" for e in emulator.events(project=None, kind="ccsAcked")),
                   10, "the emulator to record the receipt's ack", step=server.step)
    finally:
        server.close()
    # Acked: the next connection does not get the receipt again, but does get a new upstream message.
    again = AppServer(emulator, key)
    try:
        assert again.login == "sasl"
        upstream(emulator, device, "x-after-receipt")
        [first] = again.wait_for(1, "the upstream message")
        assert first["message_id"] == "x-after-receipt" and first["from"] == device["token"]
        again.ack(first)
    finally:
        again.close()


def test_drain_nacks_new_messages_then_reconnect(emulator, key):
    device = emulator.device("android")
    server = AppServer(emulator, key)
    try:
        assert server.login == "sasl"
        drain(emulator)
        [control] = server.wait_for(1, "CONNECTION_DRAINING")
        assert control == {"message_type": "control", "control_type": "CONNECTION_DRAINING"}
        # New messages on the draining connection are nacked, and then CCS closes the stream.
        server.send({"to": device["token"], "message_id": "x-during-drain"})
        [_, nack] = server.wait_for(2, "the nack on the draining connection")
        assert nack["message_type"] == "nack" and nack["error"] == "CONNECTION_DRAINING"
        server.wait_closed()
    finally:
        server.close()
    assert emulator.inbox(device) == []
    # The app server reconnects, as xmpppy CCS servers do, with a new client, and sends again.
    again = AppServer(emulator, key)
    try:
        assert again.login == "sasl"
        again.send({"to": device["token"], "message_id": "x-during-drain"})
        [ack] = again.wait_for(1, "the ack on the new connection")
        assert ack["message_type"] == "ack"
    finally:
        again.close()
    assert len(emulator.inbox(device)) == 1


def test_scheduled_drain_closes_and_the_app_server_reconnects(tmp_path):
    with emulator_with(tmp_path, "xmppDrainAfter=1s") as emulator:
        demo = emulator.demo
        for connection in range(2):
            server = AppServer(emulator, demo["serverKey"], sender=demo["senderId"])
            try:
                assert server.login == "sasl", f"connection {connection + 1} could not log in"
                [control] = server.wait_for(1, "the scheduled CONNECTION_DRAINING")
                assert control["control_type"] == "CONNECTION_DRAINING"
                server.wait_closed()
            finally:
                server.close()
