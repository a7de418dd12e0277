"""async-firebase 6.4.0 (PyPI), an HTTP v1 client that is not firebase-admin, against fcm-emu over
real sockets: its own OAuth flow from a service-account key file, on a strict (non-`demo-`) project,
httpx over HTTP/1.1 and HTTP/2, and its own error mapping (async_firebase/responses.py), which reads
FCM's error body as firebase-admin does: an `FcmError` detail of UNREGISTERED, SENDER_ID_MISMATCH,
QUOTA_EXCEEDED or THIRD_PARTY_AUTH_ERROR picks a class of its own; anything else falls back on
`error.status` (INVALID_ARGUMENT -> InvalidArgumentError), and `error.message` is the exception's text.

`send()` does not raise: it returns an FCMResponse whose `exception` is the mapped error. How the
library is pointed at the emulator without patching it: see async_firebase_support.py.
"""
import asyncio
import functools
import json
from datetime import datetime

import pytest
from async_firebase import APNSConfig, AndroidConfig, AsyncFirebaseClient, Message, MulticastMessage
from async_firebase.errors import (
    InvalidArgumentError,
    PermissionDeniedError,
    SenderIdMismatchError,
    UnauthenticatedError,
    UnregisteredError,
)
from async_firebase.messages import (
    AndroidNotificationPriority,
    APNSPayload,
    Aps,
    CriticalSound,
    LightSettings,
    NotificationProxy,
    Visibility,
)
from google.oauth2 import service_account

from async_firebase_support import (
    GoogleapisTunnel,
    eventually,
    service_account as key_file_info,
    token_endpoint_answer,
    tunnel_target,
    write_key_file,
)
from conftest import PROJECT

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
TRANSPORTS = pytest.mark.parametrize("http2", [False, True], ids=["http1.1", "h2"])


@pytest.fixture(scope="session")
def tunnel(emulator):
    proxy = GoogleapisTunnel(tunnel_target(emulator))
    with pytest.MonkeyPatch.context() as env:
        for name in ("https_proxy", "HTTPS_PROXY"):
            env.setenv(name, proxy.url)
        for name in ("all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
            env.delenv(name, raising=False)
        env.setenv("SSL_CERT_FILE", emulator.ca)  # httpx's trust root when trust_env (the default)
        yield proxy
    proxy.close()


@pytest.fixture(scope="session")
def key_file(emulator, tmp_path_factory):
    info = key_file_info(emulator, PROJECT)
    assert not info["project_id"].startswith("demo-")  # a strict project: only its own tokens pass
    return write_key_file(tmp_path_factory.mktemp("keys"), "service-account.json", info)


def run(test):
    """An async test, run on an event loop of its own (each client's httpx pool lives on one loop)."""
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))
    return wrapper


def firebase(key_file, *, http2=False):
    """A client set up as the library's README says: a key file, and optionally HTTP/2."""
    client = AsyncFirebaseClient(use_http2=http2)
    client.creds_from_service_account_file(key_file)
    return client


def error_body(exc):
    return json.loads(exc.http_response.content)["error"]


@TRANSPORTS
@run
async def test_send_reaches_the_device(emulator, tunnel, key_file, http2):
    device = emulator.device("android", name=f"pixel-async-firebase-{http2}")
    async with firebase(key_file, http2=http2) as client:
        response = await client.send(Message(
            token=device["token"], data={"score": "3-0"},
            android=AndroidConfig.build(priority="high", ttl=3600, collapse_key="score")))
    assert response.success, response.exception
    assert response.message_id.startswith(f"projects/{PROJECT}/messages/0:")
    [delivery] = eventually(lambda: emulator.inbox(device))
    assert delivery["messageId"] == response.message_id.rsplit("/", 1)[1]
    assert delivery["payload"]["data"] == {"score": "3-0"}
    assert delivery["priority"] == "high"
    assert delivery["collapseKey"] == "score"
    assert delivery["api"] == "v1"


@run
async def test_android_notification_builder_is_accepted(emulator, tunnel, key_file):
    # What this library's own encoders write (encode_android_notification): upper-cased enums,
    # PRIORITY_ prefixed, Durations such as "0.2005s" and "1.0s", RGBA floats from "#rrggbbaa",
    # event_time with 6 fractional digits; all proto3 JSON that FCM takes.
    device = emulator.device("android", state="background")
    android = AndroidConfig.build(
        priority="normal", ttl=600, title="Goal", body="3-0", channel_id="scores", color="#ff8800",
        event_timestamp=datetime(2026, 1, 1, 10, 0, 0, 123456),
        notification_priority=AndroidNotificationPriority.HIGH, vibrate_timings_millis=[100, 200.5],
        visibility=Visibility.PUBLIC, proxy=NotificationProxy.IF_PRIORITY_LOWERED,
        light_settings=LightSettings(color="#00ff0080", light_on_duration_millis=500, light_off_duration_millis=1000),
        notification_count=3, direct_boot_ok=True)
    async with firebase(key_file) as client:
        response = await client.send(Message(token=device["token"], android=android))
    assert response.success, response.exception
    [delivery] = eventually(lambda: emulator.inbox(device))
    assert delivery["handling"] == "tray" and delivery["ttl"] == "600s"
    notification = delivery["payload"]["notification"]
    assert (notification["title"], notification["channelId"], notification["color"]) == ("Goal", "scores", "#ff8800")
    assert notification["notificationPriority"] == "PRIORITY_HIGH"
    assert (notification["visibility"], notification["proxy"]) == ("PUBLIC", "IF_PRIORITY_LOWERED")
    assert notification["eventTime"] == "2026-01-01T10:00:00.123456Z"
    assert notification["vibrateTimings"] == ["0.1s", "0.2005s"]
    assert notification["lightSettings"]["color"]["green"] == 1


@TRANSPORTS
@run
async def test_valid_apns_payload_reaches_the_iphone(emulator, tunnel, key_file, http2):
    # The counterpart of the refusals below: the builder's own payload, with a numeric badge.
    device = emulator.device("ios", state="background")
    async with firebase(key_file, http2=http2) as client:
        response = await client.send(Message(
            token=device["token"], apns=APNSConfig.build(priority="high", title="Goal", alert="3-0", badge=7)))
    assert response.success, response.exception
    [delivery] = eventually(lambda: emulator.inbox(device))
    assert delivery["messageId"] == response.message_id.rsplit("/", 1)[1]
    assert delivery["handling"] == "tray"
    aps = delivery["payload"]["aps"]
    assert aps["alert"] == {"title": "Goal", "body": "3-0"}
    assert aps["badge"] == 7 and aps["sound"] == "default" and aps["mutable-content"] == 1


# Invalid `aps` dictionaries, as the library lets them through: its dataclasses do not check types,
# and `mutable_content` is a bool it writes as 1 or 0, so a 2 goes as raw JSON through the public
# `send_fcm_request`, which uses the same token, transport and error mapping as `send`.
INVALID_APS = {
    "badge-string": (
        lambda token: Message(token=token, apns=APNSConfig.build(priority="high", alert="3-0", badge="seven")),
        "message.apns.payload.aps.badge", "Value type for APS key [badge] is a number."),
    "alert-number": (
        lambda token: Message(token=token, apns=APNSConfig(payload=APNSPayload(aps=Aps(alert=7)))),
        "message.apns.payload.aps.alert", "Value type for APS key [alert] is a string or a dictionary."),
    "alert-body-number": (
        lambda token: Message(token=token, apns=APNSConfig.build(priority="high", alert=7)),
        "message.apns.payload.aps.alert.body", "Value type for APS alert key [body] is a string."),
    "critical-volume-2": (
        lambda token: Message(token=token, apns=APNSConfig.build(
            priority="high", alert="siren", sound=CriticalSound(name="siren.caf", critical=True, volume=2.0))),
        "message.apns.payload.aps.sound.volume", "Value for APS sound key [volume] is between 0 and 1."),
    "mutable-content-2": (
        lambda token: {"message": {"token": token, "apns": {"payload": {"aps": {"alert": "x", "mutable-content": 2}}}}},
        "message.apns.payload.aps.mutable-content", "Value for APS key [mutable-content] is either 0 or 1."),
}


@TRANSPORTS
@pytest.mark.parametrize("case", INVALID_APS)
@run
async def test_invalid_aps_is_invalid_argument(emulator, tunnel, key_file, case, http2):
    build, field, description = INVALID_APS[case]
    device = emulator.device("ios", state="background")
    message = build(device["token"])
    async with firebase(key_file, http2=http2) as client:
        if isinstance(message, Message):
            response = await client.send(message)
        else:
            response = await client.send_fcm_request(
                uri=client.FCM_ENDPOINT.format(project_id=PROJECT), json_payload=message)
    assert not response.success and response.message_id is None
    exc = response.exception
    # The exact class: the FcmError detail says INVALID_ARGUMENT, which has no class of its own, so
    # the library falls back on error.status.
    assert type(exc) is InvalidArgumentError
    assert exc.code == "INVALID_ARGUMENT"
    assert str(exc) == description
    assert exc.http_response.status_code == 400
    assert exc.http_response.http_version == ("HTTP/2" if http2 else "HTTP/1.1")
    # What the library parses, in the order its own docstring shows FCM's answer (client.send).
    assert error_body(exc) == {
        "code": 400, "message": description, "status": "INVALID_ARGUMENT",
        "details": [
            {"@type": BAD_REQUEST, "fieldViolations": [{"field": field, "description": description}]},
            {"@type": FCM_ERROR, "errorCode": "INVALID_ARGUMENT"},
        ]}
    assert emulator.inbox(device) == []


@run
async def test_send_to_fid_and_dry_run(emulator, tunnel, key_file):
    # fid is 6.4.0's preferred target (Message.token is deprecated in its favour).
    device = emulator.device("android")
    async with firebase(key_file) as client:
        dry = await client.send(Message(fid=device["fid"], data={"dry": "run"}), dry_run=True)
        assert dry.success and dry.message_id == f"projects/{PROJECT}/messages/fake_message_id"
        assert emulator.inbox(device) == []
        sent = await client.send(Message(fid=device["fid"], data={"via": "fid"}))
        assert sent.success, sent.exception
        assert eventually(lambda: emulator.inbox(device))[0]["messageId"] == sent.message_id.rsplit("/", 1)[1]
        emulator.call("DELETE", f"/projects/{PROJECT}/devices/{device['id']}")
        gone = await client.send(Message(fid=device["fid"], data={"via": "fid"}))
    assert type(gone.exception) is UnregisteredError


@run
async def test_multicast_reports_each_result(emulator, tunnel, key_file):
    ok = emulator.device("web")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    with pytest.warns(DeprecationWarning, match="MulticastMessage.tokens"):
        multicast = MulticastMessage(tokens=["not-a-token"], fids=[ok["fid"], gone["fid"]], data={"k": "v"})
    async with firebase(key_file, http2=True) as client:  # one request per target, concurrently, over h2
        batch = await client.send_each_for_multicast(multicast)
    assert batch.success_count == 1 and batch.failure_count == 2
    assert batch.responses[1].success  # tokens first, then fids
    assert [type(batch.responses[i].exception) for i in (0, 2)] == [InvalidArgumentError, UnregisteredError]
    assert len(eventually(lambda: emulator.inbox(ok))) == 1


@run
async def test_unregistered_after_uninstall(emulator, tunnel, key_file):
    device = emulator.device("android")
    emulator.call("POST", f"/projects/{PROJECT}/devices/{device['id']}:uninstall")
    async with firebase(key_file) as client:
        # Accepted: FCM learns the app is gone from the delivery attempt, which invalidates the token.
        first = await client.send(Message(token=device["token"], data={"n": "1"}))
        assert first.success, first.exception
        assert eventually(lambda: emulator.events(device=device["id"], kind="tokenInvalidated"))
        second = await client.send(Message(token=device["token"], data={"n": "2"}))
    exc = second.exception
    assert type(exc) is UnregisteredError
    assert exc.code == "NOT_FOUND"  # UnregisteredError is a NotFoundError
    assert str(exc) == "Requested entity was not found."
    assert exc.http_response.status_code == 404
    body = error_body(exc)
    assert body["status"] == "NOT_FOUND"
    assert body["details"] == [{"@type": FCM_ERROR, "errorCode": "UNREGISTERED"}]
    assert emulator.inbox(device) == []


@run
async def test_sender_id_mismatch(emulator, tunnel, key_file):
    theirs = emulator.device("android", project="other-app")
    async with firebase(key_file) as client:
        response = await client.send(Message(token=theirs["token"], data={"a": "b"}))
    assert type(response.exception) is SenderIdMismatchError
    assert response.exception.code == "PERMISSION_DENIED"
    assert response.exception.http_response.status_code == 403


@run
async def test_token_comes_from_the_emulator_token_endpoint(emulator, tunnel, key_file):
    # The credentials object goes in through the documented constructor argument, so the test can
    # see the token the library fetched.
    credentials = service_account.Credentials.from_service_account_file(key_file, scopes=SCOPES)
    device = emulator.device("web")
    tunnel.hosts.clear()
    async with AsyncFirebaseClient(credentials=credentials) as client:
        response = await client.send(Message(token=device["token"], data={"via": "oauth"}))
    assert response.success, response.exception
    # Its JWT-bearer grant went to Google's token URL, that is the emulator (the only place the
    # tunnel leads), then the send; the strict project accepted the token it had issued.
    assert tunnel.hosts == ["oauth2.googleapis.com", "fcm.googleapis.com"]
    assert credentials.token and credentials.valid
    assert len(eventually(lambda: emulator.inbox(device))) == 1


@run
async def test_strict_project_refuses_a_token_it_did_not_issue(emulator, tunnel, key_file):
    credentials = service_account.Credentials.from_service_account_file(key_file, scopes=SCOPES)
    credentials.token = "ya29.not-issued-by-fcm-emu"  # no expiry: google-auth counts it valid
    device = emulator.device("android")
    tunnel.hosts.clear()
    async with AsyncFirebaseClient(credentials=credentials) as client:
        response = await client.send(Message(token=device["token"], data={"a": "b"}))
    assert tunnel.hosts == ["fcm.googleapis.com"]  # the library trusted its cached token
    exc = response.exception
    assert type(exc) is UnauthenticatedError
    assert exc.code == "UNAUTHENTICATED"
    assert exc.http_response.status_code == 401
    assert error_body(exc)["status"] == "UNAUTHENTICATED"
    assert emulator.inbox(device) == []


def _swap_private_key(mine, theirs):
    return {**mine, "private_key": theirs["private_key"]}


def _unknown_account(mine, theirs):
    return {**mine, "client_email": "nobody@" + mine["client_email"].split("@", 1)[1]}


@pytest.mark.parametrize("tamper, description", [
    (_swap_private_key, "Invalid JWT Signature."),
    (_unknown_account, "Invalid grant: account not found"),
], ids=["other-private-key", "unknown-client-email"])
@run
async def test_wrong_key_file_is_refused(emulator, tunnel, tmp_path, tamper, description):
    info = tamper(key_file_info(emulator, PROJECT), key_file_info(emulator, "other-app"))
    wrong = write_key_file(tmp_path, "wrong.json", info)
    # The emulator's answer to the grant, as google-auth would sign it (RFC 6749 error JSON).
    answer = token_endpoint_answer(emulator, info)
    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid_grant", "error_description": description}
    device = emulator.device("android")
    async with firebase(wrong) as client:
        # async-firebase reads `expires_in` from the token answer without looking at its status, so
        # a refused grant surfaces as a KeyError out of send() rather than an AsyncFirebaseError.
        with pytest.raises(KeyError, match="expires_in"):
            await client.send(Message(token=device["token"], data={"a": "b"}))
    assert emulator.inbox(device) == []


@run
async def test_token_of_another_project_is_permission_denied(emulator, tunnel, tmp_path):
    # The other project's service account, with this project's id in the key file: the library
    # gets a valid token for other-app and sends to this project's URL.
    info = {**key_file_info(emulator, "other-app"), "project_id": PROJECT}
    device = emulator.device("android")
    async with firebase(write_key_file(tmp_path, "other.json", info)) as client:
        response = await client.send(Message(token=device["token"], data={"a": "b"}))
    exc = response.exception
    assert type(exc) is PermissionDeniedError
    assert exc.code == "PERMISSION_DENIED"
    assert exc.http_response.status_code == 403
    assert "cloudmessaging.messages.create" in str(exc)
    assert emulator.inbox(device) == []


@run
async def test_v1_topic_subscriptions(emulator, tunnel, key_file):
    # subscribe_to_topic is 6.4.0's v1 topicSubscriptions client: one request per token; its reasons
    # come from an FcmError detail when there is one, otherwise from error.status.
    a = emulator.device("android")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    async with firebase(key_file) as client:
        result = await client.subscribe_to_topic([a["token"], gone["token"], "garbage"], "/topics/async-news")
        assert result.success_count == 1 and result.failure_count == 2
        assert [(e.index, e.reason) for e in result.errors] == [(1, "NOT_FOUND"), (2, "INVALID_ARGUMENT")]
        assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == ["async-news"]
        again = await client.subscribe_to_topic([a["token"]], "async-news")  # already subscribed: a success
        assert again.success_count == 1 and again.errors == []
        sent = await client.send(Message(topic="async-news", data={"t": "1"}))
        assert sent.success, sent.exception
        assert [d["payload"]["data"] for d in eventually(lambda: emulator.inbox(a))] == [{"t": "1"}]
        for _ in range(2):  # the second time it is not subscribed; allow_missing=true makes that a success
            result = await client.unsubscribe_from_topic([a["token"]], "async-news")
            assert result.success_count == 1 and result.errors == []
    assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == []


@run
async def test_legacy_iid_topic_management_with_a_bearer(emulator, tunnel, key_file):
    # The deprecated IID calls: iid.googleapis.com/iid/v1:batchAdd with the OAuth token and
    # access_token_auth: true, on a strict project; per-token reasons from IID's "results".
    a = emulator.device("ios")
    gone = emulator.device("android")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    tunnel.hosts.clear()
    async with firebase(key_file) as client:
        with pytest.warns(DeprecationWarning):
            added = await client.subscribe_devices_to_topic([a["token"], gone["token"], "garbage"], "iid-news")
        assert added.exception is None
        assert added.success_count == 1
        assert [(e.index, e.reason) for e in added.errors] == [(1, "NOT_FOUND"), (2, "INVALID_ARGUMENT")]
        assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == ["iid-news"]
        with pytest.warns(DeprecationWarning):
            removed = await client.unsubscribe_devices_from_topic([a["token"]], "iid-news")
        assert removed.exception is None and removed.success_count == 1
    assert "iid.googleapis.com" in tunnel.hosts
    assert emulator.call("GET", f"/projects/{PROJECT}/devices/{a['id']}")["topics"] == []
