"""firebase-admin (latest from PyPI) against fcm-emu over real sockets.

What each device received is checked through the control API, and errors must come out as the
exception classes the SDK raises against FCM (firebase_admin/_utils.py and messaging.py map the
error's status and FcmError detail to them).
"""
import asyncio

import pytest
from firebase_admin import exceptions, messaging

from conftest import PROJECT



def test_send_to_token_reaches_the_device(emulator, app):
    device = emulator.device("android", name="pixel-send")
    name = messaging.send(messaging.Message(
        token=device["token"], data={"score": "3-0"},
        android=messaging.AndroidConfig(priority="high", ttl=3600, collapse_key="score")), app=app)
    assert name.startswith(f"projects/{PROJECT}/messages/0:")
    [delivery] = emulator.inbox(device)
    assert delivery["messageId"] == name.rsplit("/", 1)[1]
    assert delivery["payload"]["data"] == {"score": "3-0"}
    assert delivery["priority"] == "high"
    assert delivery["collapseKey"] == "score"


def test_send_to_fid(emulator, app):
    device = emulator.device("android")
    name = messaging.send(messaging.Message(fid=device["fid"], data={"via": "fid"}), app=app)
    assert emulator.inbox(device)[0]["messageId"] == name.rsplit("/", 1)[1]
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{device['id']}")
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(fid=device["fid"]), app=app)


def test_multicast_to_fids_dry_run_and_unknown_fids(emulator, app):
    """firebase-admin 7.7's MulticastMessage.fids: one send each, as Google's own integration test
    of the Node SDK runs it (any unknown FID, even 'not-a-fid', is UNREGISTERED, also in a dry run)."""
    device = emulator.device("android")
    multicast = messaging.MulticastMessage(fids=[device["fid"], "not-a-fid"], data={"via": "fids"})
    dry = messaging.send_each_for_multicast(multicast, dry_run=True, app=app)
    assert [r.success for r in dry.responses] == [True, False]
    assert isinstance(dry.responses[1].exception, messaging.UnregisteredError)
    assert emulator.inbox(device) == []
    sent = messaging.send_each_for_multicast(multicast, app=app)
    assert (sent.success_count, sent.failure_count) == (1, 1)
    assert emulator.inbox(device)[0]["messageId"] == sent.responses[0].message_id.rsplit("/", 1)[1]


def test_notification_to_ios_renders_aps(emulator, app):
    device = emulator.device("ios", state="background")
    messaging.send(messaging.Message(
        token=device["token"], notification=messaging.Notification(title="Goal", body="3-0"),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(badge=1, sound="default")))), app=app)
    [delivery] = emulator.inbox(device)
    assert delivery["handling"] == "tray"
    assert delivery["payload"]["aps"]["alert"] == {"title": "Goal", "body": "3-0"}
    assert delivery["payload"]["aps"]["badge"] == 1


def test_topic_and_condition(emulator, app):
    a = emulator.device("android", topics=["news", "sport"])
    b = emulator.device("web", topics=["news"])
    topic_id = messaging.send(messaging.Message(topic="news", data={"k": "1"}), app=app)
    assert topic_id.rsplit("/", 1)[1].isdigit()
    messaging.send(messaging.Message(condition="'news' in topics && 'sport' in topics", data={"k": "2"}), app=app)
    assert [d["payload"]["data"]["k"] for d in emulator.inbox(a)] == ["1", "2"]
    assert [d["payload"]["data"]["k"] for d in emulator.inbox(b)] == ["1"]


def test_dry_run_validates_without_delivering(emulator, app):
    device = emulator.device("android")
    name = messaging.send(messaging.Message(token=device["token"], data={"a": "b"}), dry_run=True, app=app)
    assert name == f"projects/{PROJECT}/messages/fake_message_id"
    assert emulator.inbox(device) == []


def test_send_each_reports_per_message_results(emulator, app):
    ok = emulator.device("android")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    batch = messaging.send_each([
        messaging.Message(token=ok["token"], data={"n": "1"}),
        messaging.Message(token=gone["token"], data={"n": "2"}),
        messaging.Message(token="garbage", data={"n": "3"}),
    ], app=app)
    assert batch.success_count == 1 and batch.failure_count == 2
    assert isinstance(batch.responses[1].exception, messaging.UnregisteredError)
    assert isinstance(batch.responses[2].exception, exceptions.InvalidArgumentError)
    assert len(emulator.inbox(ok)) == 1


def test_tls_port_negotiates_http2(emulator):
    import ssl

    import httpx
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=emulator.ca)) as client:
        response = client.get(emulator.https + "/emulator/v1/health")
    assert response.status_code == 200 and response.http_version == "HTTP/2"


def test_send_each_async_over_http2(emulator, app):
    devices = [emulator.device("android") for _ in range(5)]
    batch = asyncio.run(messaging.send_each_async(
        [messaging.Message(token=d["token"], data={"i": str(i)}) for i, d in enumerate(devices)], app=app))
    assert batch.success_count == 5
    assert all(len(emulator.inbox(d)) == 1 for d in devices)


def test_unregistered_after_uninstall(emulator, app):
    device = emulator.device("android")
    emulator.call("POST", f"/projects/{PROJECT}/devices/{device['id']}:uninstall")
    messaging.send(messaging.Message(token=device["token"]), app=app)  # accepted; the attempt finds the app gone
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(token=device["token"]), app=app)


def test_sender_id_mismatch(emulator, app):
    theirs = emulator.device("android", project="other-app")
    with pytest.raises(messaging.SenderIdMismatchError):
        messaging.send(messaging.Message(token=theirs["token"]), app=app)


def test_invalid_argument(emulator, app):
    with pytest.raises(exceptions.InvalidArgumentError) as raised:
        messaging.send(messaging.Message(token="not-a-token"), app=app)
    assert "not a valid FCM registration token" in str(raised.value)


def test_invalid_aps_is_invalid_argument(emulator, app):
    # The SDK checks the keys it knows; custom aps keys reach FCM unchecked, which refuses them
    # with the field named (APSRules).
    aps = messaging.Aps(custom_data={"mutable-content": True})
    with pytest.raises(exceptions.InvalidArgumentError) as raised:
        messaging.send(messaging.Message(topic="news", apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=aps))), app=app)
    assert str(raised.value) == "Value for APS key [mutable-content] is either 0 or 1."


def test_quota_exceeded_after_honouring_retry_after(emulator, app):
    device = emulator.device("android")
    for _ in range(3):
        messaging.send(messaging.Message(token=device["token"]), app=app)
    with pytest.raises(messaging.QuotaExceededError) as raised:
        messaging.send(messaging.Message(token=device["token"]), app=app)
    assert raised.value.http_response.headers["Retry-After"] == "1"
    # The SDK retried as FCM's guidance says (urllib3 honours Retry-After on 429): 1 + 4 attempts.
    refused = [e for e in emulator.events(kind="accepted") if e.get("device") == device["id"]]
    assert len(refused) == 3


def test_subscribe_and_unsubscribe(emulator, app):
    a = emulator.device("android")
    b = emulator.device("ios")
    theirs = emulator.device("android", project="other-app")
    result = messaging.subscribe_to_topic([a["token"], b["token"], theirs["token"], "garbage"], "/topics/movies", app=app)
    assert result.success_count == 2 and result.failure_count == 2
    assert [e.index for e in result.errors] == [2, 3]
    assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == ["movies"]
    messaging.send(messaging.Message(topic="movies", data={"m": "1"}), app=app)
    assert len(emulator.inbox(a)) == 1
    result = messaging.unsubscribe_from_topic([a["token"]], "movies", app=app)
    assert result.success_count == 1
    assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == []


def test_subscribe_reasons_are_plain_statuses(emulator, app):
    # topicSubscriptions errors carry no FcmError, so the reasons are the statuses, as IID's are.
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    result = messaging.subscribe_to_topic([gone["token"], "garbage"], "movies", app=app)
    assert [e.reason for e in result.errors] == ["NOT_FOUND", "INVALID_ARGUMENT"]


def test_legacy_iid_topic_management(emulator, app):
    device = emulator.device("android")
    with pytest.warns(DeprecationWarning):
        result = messaging.subscribe_to_topic_legacy([device["token"]], "legacy", app=app)
    assert result.success_count == 1
    assert emulator.call("GET", f"/projects/{PROJECT}/devices/{device['id']}")["topics"] == ["legacy"]


def test_recovers_from_injected_503_with_retry_after(emulator, app):
    device = emulator.device("android")
    emulator.call("POST", "/faults", {"id": "outage", "match": {"api": "v1", "target": device["token"], "count": 2},
                                      "action": {"status": 503, "retryAfter": 1}})
    name = messaging.send(messaging.Message(token=device["token"], data={"after": "outage"}), app=app)
    assert emulator.inbox(device)[0]["messageId"] == name.rsplit("/", 1)[1]
    # Two refusals, then the SDK's third attempt went through: its retries are in the log.
    faults = [e for e in emulator.events(project=None, kind="faultInjected") if e["detail"].startswith("rule outage:")]
    assert len(faults) == 2
    emulator.call("DELETE", "/faults/outage")
