"""HTTP/2 per-stream faults and 503 retries through firebase-admin's own async path
(docs/faults.md, "Actions"): send_each_async sends every message as a stream of one HTTP/2
connection (httpx with h2) behind HttpxRetryTransport, which retries 500 and 503 with backoff
and raises any transport error at once. A reset or held stream fails only its own message; the
rest of the batch goes through on the same connection; a 503 is retried and the emulator names
the retry on its accepted event."""
import asyncio
import json
import os
import tempfile

import pytest

firebase_admin = pytest.importorskip("firebase_admin")
from firebase_admin import credentials, exceptions, messaging  # noqa: E402

from conftest import PROJECT  # noqa: E402


@pytest.fixture
def rule(emulator):
    """Adds fault rules; removes them after the test, so the session's emulator stays clean."""
    added = []

    def add(body):
        added.append(emulator.call("POST", "/faults", body)["id"])
        return added[-1]
    yield add
    for rule_id in added:
        emulator.call("DELETE", f"/faults/{rule_id}")


def app_with(emulator, name, **options):
    """An app of its own: the SDK's httpx client belongs to the event loop of its first
    send_each_async, and each test runs one loop (the session's app set the endpoint, a class
    attribute, to the emulator's TLS port)."""
    key_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
    with open(key_file, "w") as f:
        json.dump(emulator.call("GET", f"/projects/{PROJECT}/serviceAccount"), f)
    return firebase_admin.initialize_app(credentials.Certificate(key_file), options=options, name=name)


def send_batch(app, devices):
    messages = [messaging.Message(token=d["token"], data={"i": str(i)}) for i, d in enumerate(devices)]
    return asyncio.run(messaging.send_each_async(messages, app=app))


def httpx_connections(emulator):
    """(connections opened, streams opened) on the TLS port by httpx, which send_each_async uses."""
    clients = [c for c in emulator.call("GET", "/connections")["clients"]
               if c["listener"] == "https" and "httpx" in (c.get("userAgent") or "")]
    return sum(c["opened"] for c in clients), sum(c.get("streamsOpened", 0) for c in clients)


def fired(emulator, rule_id):
    return emulator.call("GET", f"/faults/{rule_id}")["fired"]


def test_a_reset_stream_fails_only_its_message(emulator, app, rule):
    app = app_with(emulator, "stream-faults-reset")
    devices = [emulator.device("android") for _ in range(5)]
    reset = rule({"match": {"api": "v1", "target": devices[2]["token"]}, "action": {"rstStream": "REFUSED_STREAM"}})
    opened, streams = httpx_connections(emulator)
    batch = send_batch(app, devices)
    # One connection carried the five streams: the reset did not cost the others theirs.
    after_opened, after_streams = httpx_connections(emulator)
    assert (after_opened - opened, after_streams - streams) == (1, 5)
    outcomes = [r.success for r in batch.responses]
    assert outcomes == [True, True, False, True, True]
    # httpx raises the reset as a transport error; HttpxRetryTransport does not retry those.
    failure = batch.responses[2].exception
    assert isinstance(failure, exceptions.FirebaseError), failure
    assert fired(emulator, reset) == 1
    assert [len(emulator.inbox(d)) for d in devices] == [1, 1, 0, 1, 1]


def test_a_held_stream_times_out_alone(emulator, app, rule):
    app = app_with(emulator, "stream-faults-hold", httpTimeout=2)
    devices = [emulator.device("android") for _ in range(4)]
    held = rule({"match": {"api": "v1", "target": devices[1]["token"]}, "action": {"hold": True}})
    batch = send_batch(app, devices)
    assert [r.success for r in batch.responses] == [True, False, True, True]
    # The client gave up on its own timeout: httpx's ReadTimeout, which the SDK calls DEADLINE_EXCEEDED.
    assert isinstance(batch.responses[1].exception, exceptions.DeadlineExceededError), batch.responses[1].exception
    assert fired(emulator, held) == 1
    assert len(emulator.inbox(devices[1])) == 0


def test_a_503_is_retried_and_the_retry_is_named(emulator, app, rule):
    app = app_with(emulator, "stream-faults-503")
    device = emulator.device("android")
    flaky = rule({"match": {"api": "v1", "target": device["token"], "count": 1}, "action": {"status": 503}})
    batch = send_batch(app, [device])
    assert batch.success_count == 1
    assert fired(emulator, flaky) == 1
    assert len(emulator.inbox(device)) == 1
    accepted = [e for e in emulator.events(kind="accepted", token=device["token"])]
    # The refused attempt and the accepted one are the same send: the accepted event says so.
    assert len(accepted) == 1 and accepted[0].get("attempt") == 2, accepted
