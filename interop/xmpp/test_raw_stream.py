"""The CCS stream at the byte level, with the standard library only (ssl and a strict, incremental
expat parser): what RFC 6120 lets a client send and what it must get back, independent of any XMPP
library's leniency.

Every stream header may be preceded by the XML declaration, the restart after SASL
success included (RFC 6120 §4.3.3 and §6.4.6: the restarted stream is a new XML document).
An error found before the server has sent its stream header is still sent inside
a stream of the server's own: header, <stream:error>, </stream:stream> (RFC 6120 §4.9.1.1), so that a
namespace-aware parser sees a well-formed document and reports the real error."""
import base64
import contextlib
import json
import socket
import ssl
import xml.etree.ElementTree as ET
from collections import deque
from xml.parsers import expat

import pytest

from xmpp_support import DOMAIN, SENDER, server_key

NS_STREAMS = "http://etherx.jabber.org/streams"
NS_STREAM_ERRORS = "urn:ietf:params:xml:ns:xmpp-streams"
NS_SASL = "urn:ietf:params:xml:ns:xmpp-sasl"
NS_BIND = "urn:ietf:params:xml:ns:xmpp-bind"
NS_CLIENT = "jabber:client"
NS_GCM = "google:mobile:data"
STREAM = f"{{{NS_STREAMS}}}stream"
HEADER = (f"<stream:stream to='{DOMAIN}' version='1.0' xmlns='{NS_CLIENT}' "
          f"xmlns:stream='{NS_STREAMS}'>")
# RFC 6120 §4.9.3: the defined stream error conditions.
STREAM_CONDITIONS = {
    "bad-format", "bad-namespace-prefix", "conflict", "connection-timeout", "host-gone", "host-unknown",
    "improper-addressing", "internal-server-error", "invalid-from", "invalid-namespace", "invalid-xml",
    "not-authorized", "not-well-formed", "policy-violation", "remote-connection-failed", "reset",
    "resource-constraint", "restricted-xml", "see-other-host", "system-shutdown", "undefined-condition",
    "unsupported-encoding", "unsupported-feature", "unsupported-stanza-type", "unsupported-version"}


class ServerStream:
    """The server's side of the stream, read through expat with namespace processing, strictly: bytes
    that are not a well-formed XML document (an unbound prefix, an element after the root has closed,
    a truncated document at the close) fail the test with everything received so far.
    next() returns ("header", attributes), ("element", Element) for each child of the stream
    element, ("end", None) at </stream:stream> and ("closed", None) when the connection closes."""

    def __init__(self, sock, timeout=10):
        self.sock = sock
        self.sock.settimeout(timeout)
        self.received = bytearray()
        self.events = deque()
        self.ended = False
        self.restart()

    def restart(self):
        """A new XML document: the stream restart after SASL success (RFC 6120 §4.3.3)."""
        self.parser = expat.ParserCreate(namespace_separator=" ")
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text
        self.stack = []
        self.ended = False

    @staticmethod
    def _name(name):
        uri, _, local = name.rpartition(" ")
        return f"{{{uri}}}{local}" if uri else local

    def _start(self, name, attributes):
        tag = self._name(name)
        attributes = {self._name(k): v for k, v in attributes.items()}
        if not self.stack:
            assert tag == STREAM, self.fail(f"the root element is {tag}, not <stream:stream>")
            self.events.append(("header", attributes))
            self.stack.append(None)
            return
        element = ET.Element(tag, attributes) if self.stack[-1] is None else ET.SubElement(self.stack[-1], tag, attributes)
        self.stack.append(element)

    def _end(self, name):
        element = self.stack.pop()
        if element is None:
            self.ended = True
            self.events.append(("end", None))
        elif self.stack[-1] is None:
            self.events.append(("element", element))

    def _text(self, text):
        element = self.stack[-1] if self.stack else None
        if element is not None:
            if len(element):
                element[-1].tail = (element[-1].tail or "") + text
            else:
                element.text = (element.text or "") + text

    def fail(self, why):
        return f"{why}; the server sent: {bytes(self.received)!r}"

    def next(self):
        while not self.events:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise AssertionError(self.fail("no answer within the timeout")) from None
            except (ConnectionError, ssl.SSLError):
                data = b""
            if not data:
                if not self.ended:
                    try:
                        self.parser.Parse(b"", True)
                    except expat.ExpatError as error:
                        raise AssertionError(self.fail(f"the stream is not well-formed XML at the close ({error})")) from None
                self.events.append(("closed", None))
                break
            self.received += data
            try:
                self.parser.Parse(data, False)
            except expat.ExpatError as error:
                raise AssertionError(self.fail(f"the stream is not well-formed XML ({error})")) from None
        return self.events.popleft()

    def header(self):
        kind, attributes = self.next()
        assert kind == "header", self.fail(f"expected the server's stream header, got {kind}")
        return attributes

    def element(self, tag):
        kind, element = self.next()
        assert kind == "element", self.fail(f"expected {tag}, got {kind}")
        assert element.tag == tag, self.fail(f"expected {tag}, got {ET.tostring(element)!r}")
        return element


@contextlib.contextmanager
def tls_stream(emulator):
    context = ssl.create_default_context(cafile=emulator.ca)
    with context.wrap_socket(socket.create_connection(("127.0.0.1", emulator.xmpp_port), timeout=10), server_hostname=DOMAIN) as tls:
        yield tls, ServerStream(tls)


def conditions_of(error):
    """The defined conditions in a <stream:error> (its <text/> aside)."""
    return [child.tag.split("}")[1] for child in error
            if child.tag.startswith(f"{{{NS_STREAM_ERRORS}}}") and child.tag != f"{{{NS_STREAM_ERRORS}}}text"]


def plain(authcid, password):
    return base64.b64encode(f"\0{authcid}\0{password}".encode()).decode()


def downstream(payload):
    return f"<message id=''><gcm xmlns='{NS_GCM}'>{json.dumps(payload)}</gcm></message>"


DECLARATIONS = [
    pytest.param("", id="no-declaration"),
    pytest.param("<?xml version='1.0'?>", id="declaration"),
    pytest.param('<?xml version="1.0" encoding="UTF-8"?>\n', id="declaration-with-encoding"),
]


def authenticate(emulator, tls, server, declaration=""):
    """The first stream up to SASL success; returns the server's first stream header."""
    tls.sendall((declaration + HEADER).encode())
    first = server.header()
    assert first.get("from") == DOMAIN and first.get("version") == "1.0" and first.get("id")
    mechanisms = server.element(f"{{{NS_STREAMS}}}features").find(f"{{{NS_SASL}}}mechanisms")
    assert "PLAIN" in [m.text for m in mechanisms]
    tls.sendall(f"<auth xmlns='{NS_SASL}' mechanism='PLAIN'>{plain(SENDER + '@fcm.googleapis.com', server_key(emulator))}</auth>".encode())
    server.element(f"{{{NS_SASL}}}success")
    # Both sides now consider the stream replaced (RFC 6120 §6.4.6): a new document begins.
    server.restart()
    return first


@pytest.mark.parametrize("declaration", DECLARATIONS)
def test_stream_restart_after_sasl_may_carry_the_xml_declaration(emulator, declaration):
    device = emulator.device("android")
    with tls_stream(emulator) as (tls, server):
        first = authenticate(emulator, tls, server, declaration)
        # The restart: a new document, which RFC 6120 lets begin with the XML declaration.
        tls.sendall((declaration + HEADER).encode())
        second = server.header()
        assert second.get("id") and second["id"] != first["id"]
        features = server.element(f"{{{NS_STREAMS}}}features")
        assert features.find(f"{{{NS_BIND}}}bind") is not None, server.fail("no <bind/> feature after the restart")
        tls.sendall(f"<iq type='set' id='bind-1'><bind xmlns='{NS_BIND}'><resource>raw</resource></bind></iq>".encode())
        result = server.element(f"{{{NS_CLIENT}}}iq")
        assert result.get("type") == "result" and result.get("id") == "bind-1"
        assert result.findtext(f"{{{NS_BIND}}}bind/{{{NS_BIND}}}jid") == f"{SENDER}@{DOMAIN}/raw"

        # The session works: a downstream message is acked.
        tls.sendall(downstream({"to": device["token"], "message_id": "raw-1"}).encode())
        message = server.element(f"{{{NS_CLIENT}}}message")
        assert json.loads(message.findtext(f"{{{NS_GCM}}}gcm")) == {"from": device["token"], "message_id": "raw-1", "message_type": "ack"}
        tls.sendall(b"</stream:stream>")
        assert server.next()[0] == "end"
    assert len(emulator.inbox(device)) == 1


def test_a_second_header_before_the_restart_is_a_stream_error(emulator):
    """Only SASL success restarts the stream: a header in the middle of the first stream is an
    error, and it arrives well-formed inside the open stream."""
    with tls_stream(emulator) as (tls, server):
        tls.sendall(HEADER.encode())
        server.header()
        server.element(f"{{{NS_STREAMS}}}features")
        tls.sendall(HEADER.encode())
        [condition] = conditions_of(server.element(f"{{{NS_STREAMS}}}error"))
        assert condition in STREAM_CONDITIONS
        assert server.next()[0] == "end"


# Errors at the restart after SASL success came as a bare <stream:error> (no new header).
# The emulator takes any element whose name ends in "stream" as the header, whatever its namespace.


@pytest.mark.parametrize("opening, conditions", [
    pytest.param(b"<message to='gcm.googleapis.com'><body>hi</body></message>", STREAM_CONDITIONS, id="stanza-instead-of-header"),
    pytest.param(b"hello", {"not-well-formed", "bad-format"}, id="text-instead-of-header"),
    pytest.param(f"<stream:stream to='{DOMAIN}' version='1.0' xmlns='{NS_CLIENT}' xmlns:stream='http://example.com/not-streams'>".encode(),
                 {"invalid-namespace"}, id="wrong-stream-namespace"),
    pytest.param(f"<stream to='{DOMAIN}' version='1.0' xmlns='{NS_CLIENT}'>".encode(),
                 {"invalid-namespace"}, id="stream-element-without-namespace"),
    pytest.param(("<!-- hello -->" + HEADER).encode(), {"restricted-xml"}, id="comment-before-header"),
])
def test_an_error_before_the_server_header_comes_in_a_well_formed_stream(emulator, opening, conditions):
    with tls_stream(emulator) as (tls, server):
        tls.sendall(opening)
        expect_stream_error(server, conditions)


def expect_stream_error(server, conditions):
    """A stream of the server's own around the error: header, <stream:error>, </stream:stream>."""
    header = server.header()
    assert header.get("from") == DOMAIN or "from" not in header
    defined = conditions_of(server.element(f"{{{NS_STREAMS}}}error"))
    assert len(defined) == 1 and defined[0] in conditions, server.fail(f"stream error condition {defined}, expected one of {sorted(conditions)}")
    assert server.next()[0] == "end", server.fail("no </stream:stream> after the stream error")
    assert server.next()[0] == "closed"


@pytest.mark.parametrize("restart, conditions", [
    pytest.param(("<!-- hello -->" + HEADER).encode(), {"restricted-xml"}, id="comment-before-restart"),
    pytest.param(("<?xml-stylesheet href='x'?>" + HEADER).encode(), {"restricted-xml"}, id="processing-instruction-before-restart"),
    pytest.param(f"<iq type='set' id='bind-1'><bind xmlns='{NS_BIND}'/></iq>".encode(), STREAM_CONDITIONS, id="bind-without-restart"),
])
def test_an_error_at_the_restart_comes_in_a_new_well_formed_stream(emulator, restart, conditions):
    """After SASL success the client has reset its parser and waits for a new stream header
    (RFC 6120 §6.4.6), so an error at the restart is also an error before the server's header:
    it must come after a new header, not as a bare <stream:error> with an unbound prefix."""
    with tls_stream(emulator) as (tls, server):
        authenticate(emulator, tls, server)
        tls.sendall(restart)
        expect_stream_error(server, conditions)
