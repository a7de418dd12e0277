"""The pytest plugin: an unmodified firebase-admin in the test process reaches the emulator, through
the proxy and through the in-process name route, and everything is put back afterwards."""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
from pathlib import Path

import pytest

from conftest import system_ca_file
from fcm_emu import Emulator, FirebaseEnvironment, GoogleRoute, Project, assert_delivered
from fcm_emu.environment import GOOGLE_API_HOSTS, ROUTE_ADDRESS, ca_bundle, no_proxy_value

VARIABLES = ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "FIREBASE_CONFIG",
             "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "HTTPS_PROXY", "https_proxy", "NO_PROXY",
             "no_proxy")


def test_send_with_an_unmodified_sdk(fcm_project: Project, fcm_firebase_app: object) -> None:
    from firebase_admin import messaging

    device = fcm_project.create_device("android", name="pixel")
    name = messaging.send(messaging.Message(token=device.token, data={"score": "3-0"},
                                            notification=messaging.Notification(title="Goal!")), app=fcm_firebase_app)
    assert name.startswith(f"projects/{fcm_project.id}/messages/")
    delivery = assert_delivered(device, where={"payload.data.score": "3-0"})
    assert delivery.payload["notification"]["title"] == "Goal!"
    # It came through the proxy, as fcm.googleapis.com.
    connects = fcm_project.client.events(kind="proxyConnect")
    assert "intercepted fcm.googleapis.com:443" in [e.detail for e in connects]


def test_send_each_async_ignores_the_proxy_and_takes_the_name_route(fcm_project: Project,
                                                                    fcm_firebase_app: object) -> None:
    from firebase_admin import messaging

    devices = [fcm_project.create_device("android") for _ in range(2)]
    before = len(fcm_project.client.events(kind="proxyConnect"))
    batch = asyncio.run(messaging.send_each_async(
        [messaging.Message(token=d.token, data={"via": "async"}) for d in devices], app=fcm_firebase_app))
    assert batch.success_count == 2
    for device in devices:
        assert_delivered(device, where={"payload": {"data": {"via": "async"}}})
    # No CONNECT for the sends: httpx went straight to "fcm.googleapis.com:443", i.e. the emulator.
    after = [e.detail for e in fcm_project.client.events(kind="proxyConnect")][before:]
    assert "intercepted fcm.googleapis.com:443" not in after


def test_application_default_credentials_and_topic_management(fcm_project: Project, fcm_firebase_env: FirebaseEnvironment) -> None:
    import firebase_admin
    from firebase_admin import messaging

    app = firebase_admin.initialize_app()   # what an application does: ADC and the environment's project
    assert app.project_id == fcm_project.id
    devices = [fcm_project.create_device("ios"), fcm_project.create_device("web")]
    answer = messaging.subscribe_to_topic([d.token for d in devices], "goals")
    assert answer.success_count == 2
    multicast = messaging.send_each_for_multicast(messaging.MulticastMessage(tokens=[d.token for d in devices],
                                                                             data={"m": "1"}))
    assert multicast.success_count == 2
    assert_delivered(devices[0], where=lambda d: d.data.get("m") == "1")
    assert {t.name: t.subscribers for t in fcm_project.topics()} == {"goals": 2}


def test_the_environment_is_restored_and_the_route_removed(fcm_emulator: Emulator, fcm_project: Project,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://corporate-proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "*.googleapis.com,internal.example,accounts.google.com")
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/real-key.json")
    before = {name: os.environ.get(name) for name in VARIABLES}
    resolver, connect = socket.getaddrinfo, socket.socket.connect
    with FirebaseEnvironment(fcm_emulator, fcm_project.id) as environment:
        assert os.environ["HTTPS_PROXY"] == fcm_emulator.proxy_url
        assert os.environ["NO_PROXY"] == "internal.example,127.0.0.1,localhost,::1"
        assert os.environ["GOOGLE_CLOUD_PROJECT"] == fcm_project.id
        key_file = environment.key_file
        assert key_file is not None and os.environ["GOOGLE_APPLICATION_CREDENTIALS"] == str(key_file)
        assert socket.getaddrinfo is not resolver and socket.socket.connect is not connect
        address = socket.getaddrinfo("fcm.googleapis.com", 443, type=socket.SOCK_STREAM)[0][4]
        assert address == (ROUTE_ADDRESS, 443)
        with socket.create_connection(("fcm.googleapis.com", 443), timeout=10) as sock:
            assert sock.getpeername() == ("127.0.0.1", fcm_emulator.tls_port)
        assert socket.getaddrinfo("localhost", 80, socket.AF_INET)[0][4] == ("127.0.0.1", 80)
    assert {name: os.environ.get(name) for name in VARIABLES} == before
    assert socket.getaddrinfo is resolver and socket.socket.connect is connect
    assert not key_file.exists()


def test_the_emulator_certificate_covers_the_routed_names(fcm_emulator: Emulator) -> None:
    context = ssl.create_default_context(cafile=fcm_emulator.ca_certificate)
    assert fcm_emulator.tls_port
    for host in GOOGLE_API_HOSTS:
        with socket.create_connection(("127.0.0.1", fcm_emulator.tls_port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                assert tls.version()


def test_routes_nest() -> None:
    original = socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex
    outer = GoogleRoute(1111).install()
    inner = GoogleRoute(2222, xmpp_port=3333).install()
    assert inner.redirect((ROUTE_ADDRESS, 443)) == ("127.0.0.1", 2222)
    assert inner.redirect((ROUTE_ADDRESS, 5235)) == ("127.0.0.1", 3333)
    assert inner.redirect(("10.0.0.1", 443)) == ("10.0.0.1", 443)
    assert socket.getaddrinfo("FCM.googleapis.com.", "https")[0][4] == (ROUTE_ADDRESS, 443)
    assert socket.getaddrinfo("fcm-xmpp.googleapis.com", 5236)[0][4] == (ROUTE_ADDRESS, 5236)
    with pytest.raises(socket.gaierror):   # never Google's real address
        socket.getaddrinfo("fcm.googleapis.com", 443, socket.AF_INET6)
    inner.uninstall()
    assert outer.redirect((ROUTE_ADDRESS, 443)) == ("127.0.0.1", 1111)
    assert outer.redirect((ROUTE_ADDRESS, 5235)) == (ROUTE_ADDRESS, 5235)   # the outer route has no XMPP port
    outer.uninstall()
    assert (socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex) == original


def test_no_proxy_never_excludes_google() -> None:
    assert no_proxy_value("*") == "127.0.0.1,localhost,::1"
    assert no_proxy_value(".googleapis.com, .google.com,10.0.0.0/8,fcm.googleapis.com:443") == \
        "10.0.0.0/8,127.0.0.1,localhost,::1"
    assert no_proxy_value(None) == "127.0.0.1,localhost,::1"


def test_a_preset_ca_bundle_is_kept(tmp_path: Path, fcm_emulator: Emulator) -> None:
    system = Path(system_ca_file()).read_text()
    preset = tmp_path / "corporate.pem"
    preset.write_text(system)
    assert fcm_emulator.ca_certificate
    bundle, sources = ca_bundle(fcm_emulator.ca_certificate, tmp_path / "bundle.pem",
                                {"SSL_CERT_FILE": str(preset), "REQUESTS_CA_BUNDLE": str(preset)})
    text = bundle.read_text()
    assert sources == [str(preset)]
    assert system.strip() in text and Path(fcm_emulator.ca_certificate).read_text().strip() in text
    # Every certificate of both, and each one still loads.
    assert text.count("BEGIN CERTIFICATE") == system.count("BEGIN CERTIFICATE") + 1
    ssl.create_default_context(cafile=str(bundle))


INNER_TEST = '''
import os, ssl
from pathlib import Path
from firebase_admin import messaging
from fcm_emu import assert_delivered

PRESET = os.environ["PRESET_BUNDLE"]

def test_inside(fcm_project, fcm_firebase_app, fcm_firebase_env):
    bundle = os.environ["SSL_CERT_FILE"]
    assert bundle == os.environ["REQUESTS_CA_BUNDLE"] == str(fcm_firebase_env.ca_bundle) != PRESET
    assert fcm_firebase_env.ca_sources == [PRESET]   # CURL_CA_BUNDLE unset here
    assert Path(PRESET).read_text().strip() in Path(bundle).read_text()
    device = fcm_project.create_device("android")
    messaging.send(messaging.Message(token=device.token, data={"kept": "yes"}), app=fcm_firebase_app)
    assert_delivered(device, where={"payload.data.kept": "yes"})

def test_after():
    assert os.environ["SSL_CERT_FILE"] == os.environ["REQUESTS_CA_BUNDLE"] == PRESET
    assert "HTTPS_PROXY" not in os.environ and "GOOGLE_APPLICATION_CREDENTIALS" not in os.environ
'''


def test_with_ssl_cert_file_and_requests_ca_bundle_preset(pytester: pytest.Pytester, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI image that sets SSL_CERT_FILE and REQUESTS_CA_BUNDLE to its own bundle (here a copy of
    the system CAs): the plugin adds the emulator's CA to it rather than replacing it, reaches the
    emulator, and leaves the variables as they were. Run in a fresh pytest process that starts its
    own emulator, as a user's suite would."""
    preset = tmp_path / "ci-bundle.pem"
    preset.write_text(Path(system_ca_file()).read_text())
    pytester.makepyfile(test_inner=INNER_TEST)
    for name in ("HTTPS_PROXY", "https_proxy", "GOOGLE_APPLICATION_CREDENTIALS", "FCM_EMU_CONTROL_API", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(preset))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(preset))
    monkeypatch.setenv("PRESET_BUNDLE", str(preset))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", timeout=180)
    result.assert_outcomes(passed=2)


def test_attaching_to_a_running_emulator_from_another_session(pytester: pytest.Pytester, fcm_emulator: Emulator,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_attached=f'''
def test_attached(fcm_emulator, fcm_project):
    assert fcm_emulator.attached
    assert fcm_emulator.control_url == "{fcm_emulator.control_url}"
    assert fcm_project.create_device("web").platform == "web"
''')
    monkeypatch.setenv("FCM_EMU_CONTROL_API", fcm_emulator.control_url)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", timeout=120)
    result.assert_outcomes(passed=1)
    assert fcm_emulator.client.is_healthy()
