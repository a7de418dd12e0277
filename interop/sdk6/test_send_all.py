"""firebase-admin 6.x, the last line with send_all, which posts to the removed /batch endpoint
through googleapiclient (quoted boundary, bare LF, bracketed Content-IDs: googleapiclient/http.py;
docs/http-v1.md)."""
import pytest
from firebase_admin import exceptions, messaging

from conftest import PROJECT


@pytest.fixture(autouse=True)
def batch_url(emulator):
    messaging._MessagingService.FCM_BATCH_URL = emulator.base + "/batch"


def test_send_all_answers_in_order_with_per_message_errors(emulator, app):
    ok = emulator.device("android")
    gone = emulator.device("ios")
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{gone['id']}")
    batch = messaging.send_all([
        messaging.Message(token=ok["token"], data={"n": "1"}),
        messaging.Message(token=gone["token"], data={"n": "2"}),
        messaging.Message(token="garbage"),
        messaging.Message(topic="news", notification=messaging.Notification(title="t")),
    ], app=app)
    assert [r.success for r in batch.responses] == [True, False, False, True]
    assert batch.responses[0].message_id.startswith(f"projects/{PROJECT}/messages/0:")
    assert isinstance(batch.responses[1].exception, messaging.UnregisteredError)
    assert isinstance(batch.responses[2].exception, exceptions.InvalidArgumentError)
    [delivery] = emulator.inbox(ok)
    assert delivery["payload"]["data"] == {"n": "1"}


def test_send_multicast_dry_run(emulator, app):
    devices = [emulator.device("web") for _ in range(3)]
    batch = messaging.send_multicast(messaging.MulticastMessage(tokens=[d["token"] for d in devices], data={"a": "b"}),
                                     dry_run=True, app=app)
    assert batch.success_count == 3
    assert all(r.message_id.endswith("/fake_message_id") for r in batch.responses)
    assert all(emulator.inbox(d) == [] for d in devices)
