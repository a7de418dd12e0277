"""FCM's per-project quotas (quotas=fcm) and firebase-admin's own retries.

firebase-admin-python sends with urllib3's Retry (firebase_admin/_http_client.py,
DEFAULT_RETRY_CONFIG: status=4, status_forcelist=[500, 503]); urllib3 also retries a 429 that
carries Retry-After and sleeps what it says (urllib3 Retry.RETRY_AFTER_STATUS_CODES,
respect_retry_after_header). The emulator's clock is paused and moved through the control API,
so the waits the SDK sleeps are the Retry-After values it was given, nothing longer.
"""
import time

import firebase_admin
import pytest
from firebase_admin import messaging

from conftest import PROJECT, start_emulator

QUOTA = 3


@pytest.fixture(scope="module")
def quota_emulator():
    emu, process = start_emulator("quotas=fcm", f"quotaMessagesPerMinute={QUOTA}", "clockPaused=true")
    yield emu
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def quota_app(quota_emulator, tmp_path_factory):
    import json

    from firebase_admin import credentials

    key_file = tmp_path_factory.mktemp("sa") / "service-account.json"
    key_file.write_text(json.dumps(quota_emulator.call("GET", f"/projects/{PROJECT}/serviceAccount")))
    # The endpoint is a class attribute read when an app's messaging service is made: point it at
    # this emulator (plain HTTP) for this app only, then put back what the session's app uses.
    saved = messaging._MessagingService.FCM_URL
    messaging._MessagingService.FCM_URL = quota_emulator.base + "/v1/projects/{0}/messages:send"
    try:
        app = firebase_admin.initialize_app(credentials.Certificate(str(key_file)), name="quotas")
        messaging._get_messaging_service(app)
    finally:
        messaging._MessagingService.FCM_URL = saved
    yield app


def advance(emu, by):
    emu.call("POST", "/clock:advance", {"by": by})


def fill_the_minute(emu, app, device):
    """A fresh minute, then the whole quota spent at its start."""
    advance(emu, "61s")
    for _ in range(QUOTA):
        messaging.send(messaging.Message(token=device["token"]), app=app)


def test_quota_exceeded_after_the_sdks_own_retries_then_recovery(quota_emulator, quota_app):
    device = quota_emulator.device("android")
    fill_the_minute(quota_emulator, quota_app, device)
    advance(quota_emulator, "59s")
    started = time.monotonic()
    with pytest.raises(messaging.QuotaExceededError) as raised:
        messaging.send(messaging.Message(token=device["token"]), app=quota_app)
    # The clock stood still, so each of urllib3's four retries met the same full minute, after
    # sleeping the one second Retry-After named.
    assert raised.value.http_response.status_code == 429
    assert raised.value.http_response.headers["Retry-After"] == "1"
    assert time.monotonic() - started >= 4
    # Back off as told and the next send goes through.
    advance(quota_emulator, "1s")
    name = messaging.send(messaging.Message(token=device["token"], data={"after": "backoff"}), app=quota_app)
    assert quota_emulator.inbox(device)[-1]["messageId"] == name.rsplit("/", 1)[1]


def test_sdk_retries_a_429_after_its_retry_after_and_succeeds(quota_emulator, quota_app):
    device = quota_emulator.device("android")
    fill_the_minute(quota_emulator, quota_app, device)
    advance(quota_emulator, "59s")
    # Real time from here: the second urllib3 sleeps is a second of the emulator's clock too.
    quota_emulator.call("POST", "/clock:resume")
    try:
        started = time.monotonic()
        name = messaging.send(messaging.Message(token=device["token"], data={"n": "retried"}), app=quota_app)
        assert time.monotonic() - started >= 1
    finally:
        quota_emulator.call("POST", "/clock:pause")
    assert quota_emulator.inbox(device)[-1]["messageId"] == name.rsplit("/", 1)[1]


def test_sdk_retries_a_503_and_succeeds_when_the_fault_fires_once(quota_emulator, quota_app):
    device = quota_emulator.device("android")
    advance(quota_emulator, "61s")
    quota_emulator.call("POST", "/faults", {"id": "blip", "match": {"api": "v1", "target": device["token"], "count": 1},
                                            "action": {"status": 503}})
    name = messaging.send(messaging.Message(token=device["token"], data={"n": "after-503"}), app=quota_app)
    assert quota_emulator.inbox(device)[-1]["messageId"] == name.rsplit("/", 1)[1]
    fired = [e for e in quota_emulator.events(project=None, kind="faultInjected") if "blip" in e["detail"]]
    assert len(fired) == 1
    quota_emulator.call("DELETE", "/faults/blip")
