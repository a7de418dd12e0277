"""Twisted's XMPP client (twisted.words.protocols.jabber, from PyPI) against fcm-emu's XMPP
connection server: XMPPAuthenticator's SASL, bind and session initializers over reactor.connectSSL
(CCS's TLS from the first byte, so the STARTTLS initializer is left out), the emulator's CA as the
trust root, and XmlStreamFactory's own reconnection (it is a ReconnectingClientFactory) after
CONNECTION_DRAINING.

What Twisted does differently from slixmpp: a SASL PLAIN authcid that is the bare sender id, with
no authzid; an expat-based, namespace-aware parser (`data:gcm` is just `gcm` in
google:mobile:data); domish's serializer; the session iq after bind (the emulator offers the
feature); reconnecting by itself with a fresh stream. The reactor runs in a thread of its own
(Twisted's reactor cannot be restarted), and the test talks to it with blockingCallFromThread.
Every byte both ways is logged, and pytest shows the log with a failure."""
import json
import logging
import threading

import pytest
from twisted.internet import reactor, ssl
from twisted.internet.threads import blockingCallFromThread
from twisted.words.protocols.jabber import client, jid, xmlstream
from twisted.words.xish import domish

from conftest import PROJECT
from xmpp_support import DOMAIN, SENDER, drain, emulator_with, server_key, upstream

NS_GCM = "google:mobile:data"
TIMEOUT = 15
# The bytes both ways, in pytest's captured log of a failing test.
wire = logging.getLogger("interop.twisted.wire")
wire.setLevel(logging.DEBUG)


@pytest.fixture(scope="module", autouse=True)
def running_reactor():
    thread = threading.Thread(target=reactor.run, kwargs={"installSignalHandlers": False}, daemon=True)
    thread.start()
    yield
    reactor.callFromThread(reactor.stop)
    thread.join(10)


class CCSAuthenticator(client.XMPPAuthenticator):
    def associateWithStream(self, xs):
        super().associateWithStream(xs)
        # CCS offers no STARTTLS: the connection is TLS from the first byte (connectSSL below).
        xs.initializers = [i for i in xs.initializers if not isinstance(i, xmlstream.TLSInitiatingInitializer)]


class AppServer:
    """A CCS app server on Twisted: one XmlStreamFactory, which reconnects when the stream ends.
    What the reactor thread sees is recorded under a condition the test thread waits on."""

    def __init__(self, emulator, password, sender=SENDER):
        self.condition = threading.Condition()
        self.sessions = []   # each authenticated XmlStream, in order
        self.failures = []   # INIT_FAILED_EVENT failures (e.g. SASL not-authorized)
        self.ended = 0       # streams the server ended or dropped
        self.received = []   # the CCS JSON payloads, in order
        with open(emulator.ca) as f:
            self.tls = ssl.optionsForClientTLS(DOMAIN, trustRoot=ssl.Certificate.loadPEM(f.read()))
        self.factory = xmlstream.XmlStreamFactory(CCSAuthenticator(jid.JID(f"{sender}@{DOMAIN}/twisted"), password))
        # Reconnect quickly after a drain (the default first delay is a few seconds).
        self.factory.initialDelay = self.factory.delay = 0.1
        self.factory.addBootstrap(xmlstream.STREAM_CONNECTED_EVENT, self._connected)
        self.factory.addBootstrap(xmlstream.STREAM_AUTHD_EVENT, self._authenticated)
        self.factory.addBootstrap(xmlstream.INIT_FAILED_EVENT, self._init_failed)
        self.factory.addBootstrap(xmlstream.STREAM_END_EVENT, self._ended)
        blockingCallFromThread(reactor, reactor.connectSSL, "127.0.0.1", emulator.xmpp_port, self.factory, self.tls)

    # In the reactor thread.
    def _connected(self, xs):
        xs.rawDataInFn = lambda data: wire.debug("RECV %r", data)
        xs.rawDataOutFn = lambda data: wire.debug("SEND %r", data)

    def _authenticated(self, xs):
        xs.addObserver("/message", self._message)
        self._record(lambda: self.sessions.append(xs))

    def _init_failed(self, failure):
        self.factory.stopTrying()
        self._record(lambda: self.failures.append(failure))
        return None  # handled: the failure is the test's to inspect

    def _ended(self, _reason):
        self._record(lambda: setattr(self, "ended", self.ended + 1))

    def _message(self, message):
        for child in message.elements():
            if child.uri == NS_GCM and child.name == "gcm":
                body = json.loads(str(child))
                self._record(lambda: self.received.append(body))

    def _record(self, change):
        with self.condition:
            change()
            self.condition.notify_all()

    # In the test thread.
    def wait(self, predicate, what, timeout=TIMEOUT):
        with self.condition:
            if not self.condition.wait_for(predicate, timeout):
                raise AssertionError(f"timed out after {timeout}s waiting for {what}; failures: {self.failures}")

    def wait_session(self, count=1):
        self.wait(lambda: len(self.sessions) >= count or self.failures, f"session {count} to be established")
        assert not self.failures, self.failures[0].getTraceback()
        return self.sessions[count - 1]

    def wait_for(self, count, what):
        self.wait(lambda: len(self.received) >= count, what)
        return self.received[:count]

    def send(self, payload, session=-1):
        message = domish.Element(("jabber:client", "message"))
        message["id"] = ""
        message.addElement((NS_GCM, "gcm"), content=json.dumps(payload))
        blockingCallFromThread(reactor, self.sessions[session].send, message)

    def ack(self, body):
        self.send({"to": body["from"], "message_id": body["message_id"], "message_type": "ack"})

    def close(self):
        def stop():
            self.factory.stopTrying()
            for xs in self.sessions[-1:]:
                if xs.transport and xs.transport.connected:
                    xs.sendFooter()
                    xs.transport.loseConnection()
        blockingCallFromThread(reactor, stop)


@pytest.fixture
def key(emulator):
    return server_key(emulator)


@pytest.fixture
def app_servers():
    started = []
    yield started
    for server in started:
        server.close()


def test_login_then_downstream_acked_and_nacked(emulator, key, app_servers):
    device = emulator.device("android")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    server = AppServer(emulator, key)
    app_servers.append(server)
    xs = server.wait_session()
    # The bound JID (the BindInitializer stores what the server returned).
    assert xs.authenticator.jid.full() == f"{SENDER}@{DOMAIN}/twisted"
    server.send({"to": device["token"], "message_id": "t-1", "data": {"hello": "<world> & \"you\""}, "time_to_live": 600})
    server.send({"to": gone["token"], "message_id": "t-2"})
    server.send({"to": "not-a-token", "message_id": "t-3"})
    replies = {reply["message_id"]: reply for reply in server.wait_for(3, "an ack and two nacks")}
    assert replies["t-1"] == {"from": device["token"], "message_id": "t-1", "message_type": "ack"}
    assert replies["t-2"]["message_type"] == "nack" and replies["t-2"]["error"] == "DEVICE_UNREGISTERED"
    assert replies["t-3"]["message_type"] == "nack" and replies["t-3"]["error"] == "BAD_REGISTRATION"
    [delivery] = emulator.inbox(device)
    assert delivery["api"] == "xmpp" and delivery["payload"]["data"] == {"hello": "<world> & \"you\""}


def test_wrong_server_key_is_refused(emulator, app_servers):
    from twisted.words.protocols.jabber.sasl import SASLAuthError

    server = AppServer(emulator, "not-the-key")
    app_servers.append(server)
    server.wait(lambda: server.failures or server.sessions, "the login to fail")
    assert not server.sessions
    [failure] = server.failures
    assert failure.check(SASLAuthError) and failure.value.condition == "not-authorized"


def test_delivery_receipt_and_upstream_are_received_and_acked(emulator, key, app_servers):
    device = emulator.device("android")
    server = AppServer(emulator, key)
    app_servers.append(server)
    server.wait_session()
    server.send({"to": device["token"], "message_id": "t-r", "delivery_receipt_requested": True})
    ack, receipt = sorted(server.wait_for(2, "the ack and the receipt"), key=lambda r: r.get("message_type") != "ack")
    assert ack["message_type"] == "ack" and ack["message_id"] == "t-r"
    assert receipt["message_type"] == "receipt" and receipt["message_id"] == "dr2:t-r"
    assert receipt["data"]["original_message_id"] == "t-r"
    assert receipt["data"]["device_registration_id"] == device["token"]
    server.ack(receipt)
    upstream(emulator, device, "t-up")
    [*_, message] = server.wait_for(3, "the upstream message")
    assert message["message_id"] == "t-up" and message["from"] == device["token"] and message["data"] == {"hello": "world"}
    server.ack(message)
    # Both acks reached the emulator (un-acked ones would come again: the XMPP reference; docs/xmpp.md).
    acked = lambda: {e.get("detail") for e in emulator.events(project=None, kind="ccsAcked")} >= {"dr2:t-r", "t-up"}
    server.wait(acked, "the emulator to record both acks", timeout=10)


def test_drain_nacks_new_messages_and_the_factory_reconnects(emulator, key, app_servers):
    device = emulator.device("android")
    server = AppServer(emulator, key)
    app_servers.append(server)
    server.wait_session()
    drain(emulator)
    [control] = server.wait_for(1, "CONNECTION_DRAINING")
    assert control == {"message_type": "control", "control_type": "CONNECTION_DRAINING"}
    server.send({"to": device["token"], "message_id": "t-drained"})
    [_, nack] = server.wait_for(2, "the nack on the draining connection")
    assert nack["message_type"] == "nack" and nack["error"] == "CONNECTION_DRAINING" and nack["message_id"] == "t-drained"
    # CCS closes the stream; Twisted's factory reconnects and logs in again by itself.
    server.wait_session(2)
    assert server.ended >= 1
    assert emulator.inbox(device) == []
    server.send({"to": device["token"], "message_id": "t-drained"})
    [*_, ack] = server.wait_for(3, "the ack on the new connection")
    assert ack == {"from": device["token"], "message_id": "t-drained", "message_type": "ack"}
    assert len(emulator.inbox(device)) == 1


def test_scheduled_drain_again_and_again(tmp_path, app_servers):
    """`--set xmppDrainAfter=1s`: each connection is drained a second after binding; the factory
    reconnects after each close."""
    with emulator_with(tmp_path, "xmppDrainAfter=1s") as emulator:
        server = AppServer(emulator, emulator.demo["serverKey"], sender=emulator.demo["senderId"])
        app_servers.append(server)
        server.wait_session(2)
        controls = server.wait_for(2, "two scheduled drains")
        assert all(c == {"message_type": "control", "control_type": "CONNECTION_DRAINING"} for c in controls)
        assert server.ended >= 1
        server.close()
