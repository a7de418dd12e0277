"""An emulator on another machine (``FCM_EMU_CONTROL_API`` not on loopback): what is trusted from it.

Nothing here reaches another machine: the remote emulator is an address (10.0.0.5, TEST-NET-less
private space) whose answers are stubbed, and ``no_remote_traffic`` fails any test that tries to
connect anywhere but loopback. The https:// case runs against the session's emulator on loopback,
told to count as remote.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Iterator, List

import pytest

from conftest import system_ca_file
from fcm_emu import Client, Emulator, FcmEmuError, FirebaseEnvironment, Project, UntrustedEmulator, ca_bundle, trust_plan
from fcm_emu.client import is_loopback_host, is_loopback_url

REMOTE = "http://10.0.0.5:9092/emulator/v1"
REMOTE_INFO: Dict[str, Any] = {
    "pid": 1, "http": {"url": "http://10.0.0.5:9092"}, "https": {"url": "https://10.0.0.5:9443"},
    "proxy": {"url": "http://10.0.0.5:8080"}, "xmpp": {"ports": [5235]},
}
PEM = "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n"
VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "HTTPS_PROXY", "https_proxy",
             "GOOGLE_APPLICATION_CREDENTIALS")


@pytest.fixture
def no_remote_traffic(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """Fails a connection to anything but loopback (before it is made); returns what was tried."""
    tried: List[Any] = []
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def check(address: Any) -> None:
        if isinstance(address, tuple) and not is_loopback_host(str(address[0])):
            tried.append(address)
            raise AssertionError(f"the test tried to connect to {address}")

    def guarded_connect(sock: socket.socket, address: Any) -> None:
        check(address)
        return connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
        check(address)
        return int(connect_ex(sock, address))

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    return tried


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Dict[str, str]:
    """The variables the environment sets, preset to known values (a CI image's bundle for the CA ones)."""
    bundle = tmp_path / "ci-bundle.pem"
    bundle.write_text(Path(system_ca_file()).read_text() + "\n# ci-bundle-marker\n")
    for name in ("FCM_EMU_CONTROL_API", "FCM_EMU_CONTROL_TOKEN", "FCM_EMU_CA_FILE", "FCM_EMU_PROXY",
                 "FCM_EMU_ALLOW_PLAINTEXT_TOKEN", "HTTPS_PROXY", "https_proxy", "CURL_CA_BUNDLE",
                 "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    return {name: os.environ[name] for name in VARIABLES if name in os.environ}


class Remote:
    """Stubs the control API calls of a remote emulator, recording them."""

    def __init__(self, reported_ca: Path) -> None:
        self.calls: List[str] = []
        self.reported_ca = reported_ca

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        remote = self

        def info(client: Client) -> Dict[str, Any]:
            remote.calls.append("info")
            return {**REMOTE_INFO, "caCertificate": str(remote.reported_ca)}

        def ca_certificate(client: Client) -> str:
            remote.calls.append("ca.pem")
            return PEM.format("ZXZpbA==")

        def service_account(client: Client, project: str) -> Dict[str, Any]:
            remote.calls.append("serviceAccount")
            return {"type": "service_account", "project_id": project}

        monkeypatch.setattr(Client, "info", info)
        monkeypatch.setattr(Client, "ca_certificate", ca_certificate)
        monkeypatch.setattr(Client, "service_account", service_account)


@pytest.fixture
def remote(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_remote_traffic: List[Any]) -> Iterator[Remote]:
    # The path the remote reports names a file that exists here: it must not be read as its CA.
    reported = tmp_path / "reported-ca.pem"
    reported.write_text(PEM.format("cmVwb3J0ZWQ="))
    stub = Remote(reported)
    stub.install(monkeypatch)
    yield stub
    assert no_remote_traffic == []


def test_loopback_is_told_from_other_machines() -> None:
    for url in ("http://127.0.0.1:9092", "http://127.8.9.10:1/emulator/v1", "http://localhost:9092",
                "http://LOCALHOST.:9092", "http://[::1]:9092", "http://[::ffff:127.0.0.1]:9092"):
        assert is_loopback_url(url), url
    for url in (REMOTE, "http://10.0.0.5", "http://fcm-emu:9092", "http://0.0.0.0:9092", "http://[::]:9092",
                "http://localhost.example.com:9092", "http://127.0.0.1.nip.io:9092", "http://[fe80::1]:9092",
                "http://192.168.1.2:9092", "not a url", ""):
        assert not is_loopback_url(url), url


def test_the_control_token_is_never_sent_in_clear_to_another_machine(no_remote_traffic: List[Any],
                                                                     clean_environment: Dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    client = Client(REMOTE, token="s3cret-token-of-the-emulator")
    assert not client.local and not client.encrypted
    with pytest.raises(UntrustedEmulator) as refused:
        client.info()
    message = str(refused.value)
    assert "refusing to send the control token to 10.0.0.5 over plain HTTP" in message
    assert "FCM_EMU_ALLOW_PLAINTEXT_TOKEN=1" in message and "https://" in message and "loopback" in message
    assert "s3cret" not in message
    # Attaching through the environment, as the plugin does, is refused the same way.
    monkeypatch.setenv("FCM_EMU_CONTROL_API", REMOTE)
    monkeypatch.setenv("FCM_EMU_CONTROL_TOKEN", "s3cret-token-of-the-emulator")
    with pytest.raises(UntrustedEmulator, match="FCM_EMU_ALLOW_PLAINTEXT_TOKEN"):
        Emulator.attach()
    assert no_remote_traffic == []
    # Where it may go: loopback, TLS, an emulator this process started, or the user's explicit leave.
    assert Client("http://127.0.0.1:9092", token="t").token_refusal is None
    assert Client("https://10.0.0.5:9443", token="t").token_refusal is None
    assert Client("http://0.0.0.0:9092", token="t", local=True).token_refusal is None
    assert Client(REMOTE, token="t", allow_plaintext_token=True).token_refusal is None
    monkeypatch.setenv("FCM_EMU_ALLOW_PLAINTEXT_TOKEN", "1")
    assert Client(REMOTE, token="t").token_refusal is None
    assert Client(REMOTE).token_refusal is None   # no token, nothing to refuse


def test_the_remote_s_ca_and_proxy_are_not_taken_over_plain_http(remote: Remote, clean_environment: Dict[str, str],
                                                                 recwarn: pytest.WarningsRecorder) -> None:
    emulator = Emulator.attach(REMOTE)
    assert emulator.attached and remote.calls == ["info"]
    with pytest.raises(UntrustedEmulator) as refused:
        FirebaseEnvironment(emulator, "proj").__enter__()
    message = str(refused.value)
    assert "not on this machine" in message and "FCM_EMU_CA_FILE=" in message and "--fcm-emu-ca-file" in message
    assert remote.calls == ["info"]   # no CA download, nothing else asked either
    assert {name: os.environ[name] for name in VARIABLES if name in os.environ} == clean_environment


def test_a_remote_s_ca_is_the_file_the_user_names_and_its_proxy_is_left_out(
        remote: Remote, clean_environment: Dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    named = tmp_path / "copied-ca.pem"
    named.write_text(PEM.format("bmFtZWQ="))
    monkeypatch.setenv("FCM_EMU_CA_FILE", str(named))
    emulator = Emulator.attach(REMOTE)
    with pytest.warns(UserWarning, match="FCM_EMU_PROXY=") as warned:
        with FirebaseEnvironment(emulator, "proj", route=False) as environment:
            bundle = Path(os.environ["SSL_CERT_FILE"]).read_text()
            assert os.environ["REQUESTS_CA_BUNDLE"] == os.environ["SSL_CERT_FILE"] == str(environment.ca_bundle)
            assert "bmFtZWQ=" in bundle and "ci-bundle-marker" in bundle   # the user's CA, after the CAs trusted already
            assert "cmVwb3J0ZWQ=" not in bundle and "ZXZpbA==" not in bundle   # neither reported nor downloaded
            assert "HTTPS_PROXY" not in os.environ and "https_proxy" not in os.environ
            assert environment.proxy_url is None
    assert "http://10.0.0.5:8080" in str(warned[0].message)
    assert remote.calls == ["info", "serviceAccount"]
    assert {name: os.environ[name] for name in VARIABLES if name in os.environ} == clean_environment


def test_a_remote_s_proxy_is_set_only_when_the_user_names_it(remote: Remote, clean_environment: Dict[str, str],
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    named = tmp_path / "copied-ca.pem"
    named.write_text(PEM.format("bmFtZWQ="))
    monkeypatch.setenv("FCM_EMU_PROXY", "http://127.0.0.1:3128")
    emulator = Emulator.attach(REMOTE, ca_file=str(named))
    with FirebaseEnvironment(emulator, "proj", route=False) as environment:
        assert os.environ["HTTPS_PROXY"] == os.environ["https_proxy"] == "http://127.0.0.1:3128"
        assert environment.trust is not None and environment.trust.warnings == ()
    with FirebaseEnvironment(emulator, "proj", route=False, proxy="http://127.0.0.1:3129"):
        assert os.environ["HTTPS_PROXY"] == "http://127.0.0.1:3129"
    with FirebaseEnvironment(emulator, "proj", route=False, proxy=False):
        assert "HTTPS_PROXY" not in os.environ
    assert "ca.pem" not in remote.calls


def test_the_trust_plan() -> None:
    existing = __file__   # any file that exists: what a local emulator's ready file names
    # Loopback: as before, the reported CA file and proxy.
    plan = trust_plan("http://127.0.0.1:9092/emulator/v1", reported_ca=existing, reported_proxy="http://127.0.0.1:1",
                      environ={})
    assert (plan.local, plan.ca_file, plan.download_ca, plan.proxy_url, plan.refusal, plan.warnings) == \
        (True, existing, False, "http://127.0.0.1:1", None, ())
    # A local emulator whose CA file is not readable here (a container): its CA over its control API.
    plan = trust_plan("http://localhost:9092", reported_ca="/state/ca.pem", environ={})
    assert plan.download_ca and plan.ca_file is None and plan.refusal is None
    # An emulator this process started, listening on every address.
    plan = trust_plan("http://0.0.0.0:9092", local=True, reported_ca=existing, reported_proxy="http://0.0.0.0:1",
                      environ={})
    assert (plan.ca_file, plan.proxy_url) == (existing, "http://0.0.0.0:1")
    # Remote over plain HTTP: nothing from its answers.
    plan = trust_plan(REMOTE, reported_ca=existing, reported_proxy="http://10.0.0.5:8080", environ={})
    assert (plan.local, plan.ca_file, plan.download_ca, plan.proxy_url) == (False, None, False, None)
    assert plan.refusal and "FCM_EMU_CA_FILE" in plan.refusal
    assert len(plan.warnings) == 1 and "FCM_EMU_PROXY" in plan.warnings[0]
    # ... but the CA file and proxy the user names.
    plan = trust_plan(REMOTE, reported_ca=existing, reported_proxy="http://10.0.0.5:8080",
                      environ={"FCM_EMU_CA_FILE": "/mine/ca.pem", "FCM_EMU_PROXY": "http://10.0.0.5:8080"})
    assert (plan.ca_file, plan.download_ca, plan.proxy_url, plan.refusal, plan.warnings) == \
        ("/mine/ca.pem", False, "http://10.0.0.5:8080", None, ())
    # Remote over https (verified with the CAs the user trusts): its CA over that connection.
    plan = trust_plan("https://10.0.0.5:9443/emulator/v1", reported_ca=existing, reported_proxy="http://x:1",
                      environ={})
    assert (plan.ca_file, plan.download_ca, plan.proxy_url, plan.refusal) == (None, True, None, None)


def test_an_https_control_api_is_verified_and_may_carry_the_token(fcm_emulator: Emulator, fcm_project: Project,
                                                                  tmp_path: Path, clean_environment: Dict[str, str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The session's emulator, reached over TLS and told to count as another machine.
    assert fcm_emulator.https_url and fcm_emulator.ca_certificate
    url = fcm_emulator.https_url + "/emulator/v1"
    client = Client(url, local=False, ca_file=fcm_emulator.ca_certificate, token="any")
    assert client.token_refusal is None and client.info()["pid"] == fcm_emulator.pid
    with pytest.raises(FcmEmuError, match="CERTIFICATE_VERIFY_FAILED"):
        Client(url, local=False, ca_file=clean_environment["SSL_CERT_FILE"]).info()
    # Verified by the CAs this process trusts (here a bundle that has the emulator's): its CA may then
    # come over that connection, and the environment works as for a local one.
    trusted, _ = ca_bundle(fcm_emulator.ca_certificate, tmp_path / "trusted.pem")
    monkeypatch.setenv("SSL_CERT_FILE", str(trusted))
    remote = SimpleNamespace(client=Client(url, local=False), ca_certificate="/nowhere/ca.pem",
                             proxy_url="http://127.0.0.1:1", tls_port=None, xmpp_ports=[])
    with pytest.warns(UserWarning, match="FCM_EMU_PROXY"):
        with FirebaseEnvironment(remote, fcm_project.id) as environment:
            assert environment.trust is not None and environment.trust.download_ca
            assert environment.key_file is not None and environment.key_file.exists()
            emulator_ca = Path(fcm_emulator.ca_certificate).read_text().strip()
            assert emulator_ca in Path(os.environ["SSL_CERT_FILE"]).read_text()
            assert "HTTPS_PROXY" not in os.environ


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: List[Any] = []
    target = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).seen.append((self.server.server_address[1], self.headers.get("Authorization")))
        if self.path.startswith("/emulator/v1/info") and type(self).target:
            self.send_response(302)
            self.send_header("Location", type(self).target)
            self.end_headers()
            return
        body = json.dumps({"pid": 7}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_the_token_does_not_follow_a_redirect(no_remote_traffic: List[Any]) -> None:
    servers = [http.server.HTTPServer(("127.0.0.1", 0), _Recorder) for _ in range(2)]
    threads = [threading.Thread(target=server.serve_forever, daemon=True) for server in servers]
    for thread in threads:
        thread.start()
    try:
        first, second = (server.server_address[1] for server in servers)
        _Recorder.seen, _Recorder.target = [], f"http://127.0.0.1:{second}/elsewhere"
        assert Client(f"http://127.0.0.1:{first}", token="s3cret").info() == {"pid": 7}
        assert _Recorder.seen == [(first, "Bearer s3cret"), (second, None)]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


INNER_REMOTE = '''
def test_attached(fcm_client):
    pass
'''


def test_the_plugin_refuses_a_remote_emulator_s_token_over_plain_http(pytester: pytest.Pytester,
                                                                      no_remote_traffic: List[Any],
                                                                      clean_environment: Dict[str, str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_inner=INNER_REMOTE)
    monkeypatch.setenv("FCM_EMU_CONTROL_API", REMOTE)
    monkeypatch.setenv("FCM_EMU_CONTROL_TOKEN", "s3cret-token-of-the-emulator")
    # In this process, so that no_remote_traffic guards the inner session too.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "not on loopback" in output   # the report header
    assert "UntrustedEmulator" in output and "FCM_EMU_ALLOW_PLAINTEXT_TOKEN=1" in output
    assert no_remote_traffic == []
