"""The control API client against a real emulator: every path of openapi.json has a method, and the
methods do what the API says."""

from __future__ import annotations

import http.server
import json
import re
import threading
import urllib.error
from typing import Any, Dict, List

import pytest

from conftest import send
from fcm_emu import Client, Emulator, FcmEmuError, Project

# operationId (openapi.json) → the Client method that makes the call.
OPERATIONS = {
    "health": "health", "info": "info", "listConnections": "connections", "caCertificate": "ca_certificate", "openapi": "openapi", "resetAll": "reset",
    "exportSnapshot": "export_snapshot", "importSnapshot": "import_snapshot",
    "getClock": "clock", "advanceClock": "advance_clock", "pauseClock": "pause_clock",
    "resumeClock": "resume_clock", "setClockSpeed": "set_clock_speed",
    "listAllEvents": "events", "streamEvents": "stream_events",
    "listFaults": "faults", "addFault": "add_fault", "setFaults": "set_faults", "clearFaults": "clear_faults",
    "removeFault": "remove_fault",
    "listProjects": "list_projects", "createProject": "create_project", "getProject": "get_project",
    "updateProject": "update_project", "deleteProject": "delete_project", "resetProject": "reset_project",
    "getServiceAccount": "service_account", "createAccessToken": "create_access_token",
    "revokeAccessTokens": "revoke_access_tokens", "metrics": "metrics",
    "listXMPPConnections": "xmpp_connections", "sendUpstream": "send_upstream", "drainXMPP": "drain_xmpp",
    "listTopics": "topics", "listGroups": "groups",
    "listProjectEvents": "project_events", "streamProjectEvents": "stream_project_events",
    "listDevices": "list_devices", "createDevice": "create_device", "getDevice": "get_device",
    "updateDevice": "update_device", "deleteDevice": "delete_device", "uninstallDevice": "uninstall_device",
    "refreshToken": "refresh_token", "subscribe": "subscribe", "unsubscribe": "unsubscribe",
    "getInbox": "inbox", "clearInbox": "clear_inbox",
    "listDeviceEvents": "device_events", "streamDeviceEvents": "stream_device_events",
    "listTimers": "timers", "getFault": "fault", "getStored": "stored", "getTray": "tray",
    "getOutcomes": "outcomes",
    "showNotification": "show_notification", "clearTray": "clear_tray",
}


def test_every_operation_of_the_served_openapi_document_has_a_method(fcm_client: Client) -> None:
    document = fcm_client.openapi()
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()
                  if isinstance(op, dict) and "operationId" in op}
    assert operations - set(OPERATIONS) == set(), "operations the client does not cover"
    for operation in operations:
        assert callable(getattr(fcm_client, OPERATIONS[operation])), operation


def test_health_and_info(fcm_client: Client, fcm_emulator: Emulator) -> None:
    assert fcm_client.health() == {"status": "ok"}
    assert fcm_client.is_healthy()
    info = fcm_client.info()
    assert info["http"]["url"] == fcm_emulator.http_url
    assert info["demoProject"]["projectId"] == fcm_emulator.demo_project_id == "demo-fcm-emu"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", info["version"])
    with open(fcm_emulator.ca_certificate or "") as f:
        assert fcm_client.ca_certificate() == f.read()


def test_projects_and_the_api_s_own_errors(fcm_client: Client) -> None:
    created = fcm_client.create_project("clientproj-a", number="987650001")
    assert (created.id, created.number) == ("clientproj-a", "987650001")
    assert created.server_keys
    assert fcm_client.get_project("987650001").id == "clientproj-a"
    assert "clientproj-a" in [p.id for p in fcm_client.list_projects()]
    with pytest.raises(FcmEmuError) as conflict:
        fcm_client.create_project("clientproj-a")
    assert conflict.value.status == 409 and conflict.value.field == "id"
    fcm_client.delete_project("clientproj-a")
    with pytest.raises(FcmEmuError) as missing:
        fcm_client.get_project("clientproj-a")
    error = missing.value
    assert (error.status, error.code, error.reason) == (404, 404, "NOT_FOUND")
    assert error.message and json.loads(error.text)["error"]["message"] == error.message
    assert "GET " in str(error) and "/projects/clientproj-a" in error.url
    with pytest.raises(FcmEmuError) as invalid:
        fcm_client.create_project("Not Valid")
    assert (invalid.value.status, invalid.value.reason, invalid.value.field) == (400, "INVALID_ARGUMENT", "id")


def test_devices_states_tokens_and_topics(fcm_project: Project) -> None:
    pixel = fcm_project.create_device("android", name="pixel", topics=["news"])
    assert (pixel.platform, pixel.state, pixel.name, pixel.project_id) == ("android", "foreground", "pixel", fcm_project.id)
    assert pixel.topics == ["news"] and pixel.token
    # Named by id, name or token.
    assert fcm_project.device("pixel").id == pixel.id == fcm_project.device(pixel.token).id
    assert pixel.set_state("doze").state == "doze"
    assert pixel.reload().state == "doze"
    assert "123" in pixel.set_senders(["123"]).senders
    assert pixel.subscribe("sport").topics == ["news", "sport"]
    assert pixel.unsubscribe("news").topics == ["sport"]
    assert {t.name: t.subscribers for t in fcm_project.topics()} == {"sport": 1}
    old = pixel.token
    refreshed = pixel.refresh_token()
    assert refreshed.token != old and fcm_project.device(old).id == pixel.id   # a token it held
    assert pixel.refresh_token(token="my-own-token:APA91b" + "x" * 40).token.startswith("my-own-token")
    uninstalled = pixel.uninstall()
    assert uninstalled.state == "uninstalled"
    iphone = fcm_project.create_device("ios", name="iphone", state="background")
    assert (iphone.platform, iphone.state) == ("ios", "background")
    page = fcm_project.list_devices(limit=1)
    assert page.total == 2 and [d.id for d in page.devices] == [pixel.id]
    assert [d.name for d in fcm_project.devices()] == ["pixel", "iphone"]
    iphone.delete()
    with pytest.raises(FcmEmuError) as gone:
        iphone.reload()
    assert gone.value.status == 404
    many = fcm_project.create_devices(5, "web")
    assert len(many) == 5 and {d.platform for d in many} == {"web"} and len({d.token for d in many}) == 5


def test_create_devices_with_many_topics_gets_them_from_the_shared_list(fcm_project: Project) -> None:
    # 10 devices with 2000 topics of 900 bytes pass the answer's 8 MiB: it lists them once.
    topics = [f"t{i}-" + "x" * 890 for i in range(2000)]
    many = fcm_project.create_devices(10, "android", topics=topics)
    assert len(many) == 10 and all(sorted(d.topics) == sorted(topics) for d in many)


def test_topics_follow_next_offset_past_one_page(fcm_project: Project, fcm_client: Client) -> None:
    # 20,000 topics of 900 bytes are 18 MB of names: the server answers in pages of about 8 MiB.
    for d in range(10):
        fcm_project.create_device("android", topics=[f"d{d}-t{i}-" + "x" * 880 for i in range(2000)])
    first = fcm_client.request("GET", f"/projects/{fcm_project.id}/topics").json()
    assert first["total"] == 20000 and first["nextOffset"] == len(first["topics"]) < 20000
    topics = fcm_project.topics()
    assert len(topics) == 20000 and len({t.name for t in topics}) == 20000
    assert [t.name for t in topics] == sorted(t.name for t in topics)


def test_inbox_waits_and_clears(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("android")
    quick = device.inbox(wait_for=1, timeout=0.2)
    assert quick.satisfied is False and len(quick) == 0
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"n": "1"}})
    inbox = device.inbox(wait_for=1, timeout=10)
    assert inbox.satisfied is True
    assert [d.data for d in inbox] == [{"n": "1"}]
    assert inbox[0].kind == "message" and inbox[0].message_id and inbox[0].api == "v1"
    assert inbox.device is not None and inbox.device.delivered_count == 1
    assert device.inbox().satisfied is None
    device.clear_inbox()
    assert len(device.inbox()) == 0


def test_events_with_filters_and_waits(fcm_emulator: Emulator, fcm_project: Project, fcm_client: Client) -> None:
    device = fcm_project.create_device("android", name="ev")
    answer = send(fcm_emulator, fcm_project, {"token": device.token, "data": {"k": "v"}})
    delivered = fcm_project.events(kind="delivered", device="ev", wait_for=1, timeout=10)
    assert delivered.satisfied is True and delivered.kinds() == ["delivered"]
    message_id = delivered[0].message_id
    assert message_id
    assert answer["name"].startswith(f"projects/{fcm_project.id}/messages/")
    assert "deviceCreated" in device.events().kinds()
    everything = fcm_client.events(message=message_id)
    assert {"accepted", "delivered"} <= set(everything.kinds())
    assert all(e.message_id == message_id for e in everything)
    assert fcm_client.events(kind=["accepted", "delivered"], message=message_id, limit=1).kinds() == ["delivered"]
    assert fcm_project.events(kind="expired", wait_for=1, timeout=0.1).satisfied is False
    last = everything[-1]
    assert fcm_client.events(message=message_id, since=last.time).kinds()[-1] == last.kind


def test_the_event_stream_replays_and_follows(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("android", name="streamed")
    with fcm_project.stream_events(last_event_id=-1, read_timeout=10) as stream:
        frames = iter(stream)
        first = next(frames)
        assert first.event == "ready" and "next" in first.data
        seen: List[str] = []
        send(fcm_emulator, fcm_project, {"token": device.token, "data": {"s": "1"}})
        for event in stream.events():
            seen.append(event.kind)
            if event.kind == "delivered":
                break
    assert seen[:2] == ["projectCreated", "deviceCreated"] and seen[-1] == "delivered"
    with fcm_emulator.client.stream_device_events(fcm_project.id, device.id, kind="delivered", last_event_id=-1,
                                                 read_timeout=10) as stream:
        event = next(stream.events())
    assert (event.kind, event.device) == ("delivered", device.id)


def test_fault_rules(fcm_emulator: Emulator, fcm_project: Project, fcm_client: Client) -> None:
    device = fcm_project.create_device("android")
    try:
        rule = fcm_client.add_fault({"id": "one-outage", "match": {"api": "v1", "project": fcm_project.id, "count": 1},
                                     "action": {"error": "UNAVAILABLE"}})
        assert rule["id"] == "one-outage"
        assert [r["id"] for r in fcm_client.faults()] == ["one-outage"]
        with pytest.raises(Exception) as failed:
            send(fcm_emulator, fcm_project, {"token": device.token})
        assert getattr(failed.value, "code", None) == 503
        send(fcm_emulator, fcm_project, {"token": device.token})   # count: 1 — the next one passes
        rules = fcm_client.set_faults([{"id": "a", "match": {"project": fcm_project.id}, "action": {"status": 500}},
                                       {"id": "b", "match": {"project": fcm_project.id}, "action": {"latency": "1ms"}}])
        assert [r["id"] for r in rules] == ["a", "b"]
        assert [r["id"] for r in fcm_client.remove_fault("a")] == ["b"]
        assert fcm_client.fault("b") == {"id": "b", "match": {"project": fcm_project.id}, "action": {"latency": "1ms"},
                                         "fired": 0}
        with pytest.raises(FcmEmuError) as missing:
            fcm_client.fault("a")
        assert missing.value.status == 404
    finally:
        fcm_client.clear_faults()
    assert fcm_client.faults() == []


def test_service_accounts_and_access_tokens(fcm_emulator: Emulator, fcm_project: Project) -> None:
    key = fcm_project.service_account()
    assert key["type"] == "service_account" and key["project_id"] == fcm_project.id
    assert key["token_uri"].startswith(fcm_emulator.http_url) and "BEGIN PRIVATE KEY" in key["private_key"]
    token = fcm_project.create_access_token()
    assert token.token_type == "Bearer" and token.expires_in > 0
    device = fcm_project.create_device("web")
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"w": "1"}}, bearer=token.access_token)
    assert device.inbox(wait_for=1, timeout=10).satisfied


def test_api_off_revoked_bearers_and_metrics(fcm_emulator: Emulator, fcm_project: Project,
                                             fcm_client: Client) -> None:
    device = fcm_project.create_device("android")
    message = {"token": device.token, "data": {"a": "1"}}
    bearer = fcm_project.create_access_token().access_token
    assert fcm_project.update(api_enabled=False).api_enabled is False
    with pytest.raises(urllib.error.HTTPError) as disabled:
        send(fcm_emulator, fcm_project, message, bearer=bearer)
    assert disabled.value.code == 403 and "SERVICE_DISABLED" in disabled.value.read().decode()
    assert fcm_client.update_project(fcm_project.id, api_enabled=True).api_enabled is True
    send(fcm_emulator, fcm_project, message, bearer=bearer)
    fcm_project.revoke_access_tokens()
    with pytest.raises(urllib.error.HTTPError) as revoked:
        send(fcm_emulator, fcm_project, message, bearer=bearer)
    assert revoked.value.code == 401
    send(fcm_emulator, fcm_project, message)
    assert re.search(r"^fcm_emu_messages_accepted_total\b", fcm_client.metrics(), re.M)


def test_project_reset_groups_and_xmpp(fcm_project: Project, fcm_client: Client) -> None:
    device = fcm_project.create_device("android", topics=["t"])
    assert fcm_project.groups() == []
    assert fcm_project.xmpp_connections() == []
    fcm_project.drain_xmpp()
    queued = device.send_upstream({"hello": "world"}, message_id="up-1", ttl="60s")
    assert isinstance(queued, dict)
    assert "upstream" in fcm_project.events(kind="upstream").kinds()
    fcm_project.reset()
    assert fcm_project.devices() == [] and fcm_project.topics() == []


def test_the_clock(paused_emulator: Emulator) -> None:
    client = paused_emulator.client
    clock = client.clock()
    assert clock.paused is True
    moved = client.advance_clock("15m")
    assert moved.now_millis - clock.now_millis == 15 * 60 * 1000
    import datetime as dt

    assert client.advance_clock(dt.timedelta(seconds=30)).now_millis == moved.now_millis + 30_000
    target = dt.datetime.fromtimestamp((moved.now_millis + 3_600_000) / 1000, dt.timezone.utc)
    assert client.advance_clock(to=target).now_millis == moved.now_millis + 3_600_000
    assert client.set_clock_speed(60).speed == 60
    assert client.resume_clock().paused is False
    assert client.pause_clock().paused is True
    client.set_clock_speed(1)


def test_ttl_expiry_on_the_emulator_s_clock(paused_emulator: Emulator) -> None:
    project = paused_emulator.project()
    device = project.create_device("android", state="offline")
    send(paused_emulator, project, {"token": device.token, "data": {"late": "1"}, "android": {"ttl": "60s"}})
    assert device.reload().stored_count == 1
    paused_emulator.client.advance_clock("2m")
    expired = project.events(kind="expired", device=device.id, wait_for=1, timeout=10)
    assert expired.satisfied
    device.set_state("foreground")
    assert len(device.inbox()) == 0


def test_what_a_device_holds_the_timers_and_the_tray(paused_emulator: Emulator) -> None:
    project = paused_emulator.project()
    client = paused_emulator.client
    device = project.create_device("android", state="offline")
    answer = send(paused_emulator, project, {"token": device.token, "data": {"late": "1"}, "android": {"ttl": "60s"}})
    message_id = answer["name"].rsplit("/", 1)[1]
    stored = client.stored(project.id, device.id)["stored"]
    assert [m["messageId"] for m in stored] == [message_id]
    timers = client.timers(limit=10)
    expiry = [t for t in timers["timers"] if t.get("messageId") == message_id]
    assert [t["what"] for t in expiry] == ["expiry"]
    assert expiry[0]["at"] == stored[0]["expiresAt"]

    # A data message reaches a background app; the app shows a notification for it, then the user clears it.
    device.set_state("background")
    assert len(device.inbox(wait_for=1, timeout=10)) == 1
    assert client.tray(project.id, device.id)["notifications"] == []
    client.show_notification(project.id, device.id, message_id, tag="score")
    shown = client.tray(project.id, device.id)["notifications"]
    assert [(n["messageId"], n["tag"]) for n in shown] == [(message_id, "score")]
    client.clear_tray(project.id, device.id)
    assert client.tray(project.id, device.id)["notifications"] == []


def test_outcomes_tell_why_a_message_did_not_arrive(paused_emulator: Emulator) -> None:
    project = paused_emulator.project()
    client = paused_emulator.client
    device = project.create_device("android", state="offline", name="why-py")
    assert client.outcomes(project.id, "why-py")["story"] == "Nothing was sent to it yet."
    send(paused_emulator, project, {"token": device.token, "data": {"a": "b"}, "android": {"ttl": "0s"}})
    answer = client.outcomes(project.id, device.token)
    assert answer["device"]["name"] == "why-py" and answer["stored"] == 0
    assert answer["story"] == "discarded: TTL 0 while the device was offline"
    assert [o["kind"] for o in answer["outcomes"]] == ["discarded", "accepted"]
    assert answer["outcomes"][0]["reason"] == "ttl-zero"


def test_snapshots_by_name_and_as_tar(tmp_path: Any) -> None:
    with Emulator(state_dir=tmp_path / "state") as emulator:
        client = emulator.client
        project = client.project(client.create_project("snapped").id)
        project.create_device("android", name="kept")
        exported = client.export_snapshot("before", include=["events", "inboxes"])
        assert exported["name"] == "before" and isinstance(exported["manifest"], dict)
        archive = client.export_snapshot_tar()
        assert len(archive) > 512
        client.reset()
        with pytest.raises(FcmEmuError):
            client.get_project("snapped")
        imported = client.import_snapshot("before", clock="snapshot")
        assert "manifest" in imported
        assert project.device("kept").name == "kept"
        client.reset()
        client.import_snapshot_tar(archive, clock="wall")
        assert project.device("kept").name == "kept"


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: List[Dict[str, Any]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})
        if self.path.startswith("/emulator/v1/broken"):
            payload = b"<html>502 Bad Gateway</html>"
            self.send_response(502)
        else:
            payload = b'{"id": "d", "projectId": "p", "platform": "android", "token": "t", "state": "doze"}'
            self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


def test_headers_and_non_json_errors_on_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # A proxy in the environment is not used for the control API.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    try:
        client = Client(f"http://127.0.0.1:{server.server_address[1]}")
        assert client.base_url.endswith("/emulator/v1")
        _Recorder.seen.clear()
        client.update_device("p", "d", state="doze")
        client.get_device("p", "tok:en/with slash")
        client.pause_clock()
        patch, get, pause = _Recorder.seen
        assert patch["method"] == "PATCH" and patch["headers"]["Content-Type"] == "application/json"
        assert json.loads(patch["body"]) == {"state": "doze"}
        assert all(r["headers"]["Accept"] == "application/json" for r in _Recorder.seen)
        assert get["path"] == "/emulator/v1/projects/p/devices/tok%3Aen%2Fwith%20slash"
        assert pause["headers"]["Content-Type"] == "application/json" and pause["body"] == b"{}"
        with pytest.raises(FcmEmuError) as error:
            client.request("GET", "/broken")
        assert error.value.status == 502 and error.value.reason is None and "502 Bad Gateway" in error.value.text
    finally:
        server.shutdown()
    with pytest.raises(FcmEmuError) as refused:
        Client(f"http://127.0.0.1:{server.server_address[1]}", timeout=2).health()
    assert refused.value.status is None and "cannot reach" in refused.value.message


def test_the_control_token_is_sent_when_the_emulator_asks_for_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # An emulator beyond loopback asks for its controlToken; set one explicitly to test that here.
    token = "a-control-token-of-sixteen-or-more"
    with Emulator(settings={"controlToken": token}) as emulator:
        monkeypatch.delenv("FCM_EMU_CONTROL_TOKEN", raising=False)
        with pytest.raises(FcmEmuError) as refused:
            Client(emulator.control_url).list_projects()
        assert refused.value.status in (401, 403)
        assert Client(emulator.control_url).health()  # health stays open, for container checks
        assert any(p.id == "demo-fcm-emu" for p in Client(emulator.control_url, token=token).list_projects())
        monkeypatch.setenv("FCM_EMU_CONTROL_TOKEN", token)
        assert Client(emulator.control_url).token == token
        assert Client(emulator.control_url).list_projects()
        # An Emulator this package started reads the token from its ready file.
        assert emulator.client.token == token and emulator.client.list_projects()


def test_connections_name_this_client(fcm_client: Client) -> None:
    fcm_client.health()
    clients = fcm_client.connections()
    assert any(c["listener"] == "http" and c["requests"] >= 1 and c["address"] == "127.0.0.1" for c in clients), clients
