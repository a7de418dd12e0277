"""assert_delivered and friends: they wait with the inbox's waitFor, select with where=, and say what
the inbox held when they fail."""

from __future__ import annotations

import threading
import urllib.error

import pytest

from conftest import send
from fcm_emu import Emulator, FcmEmuError, Project, assert_delivered, assert_delivered_count, assert_nothing_delivered
from fcm_emu.assertions import matches
from fcm_emu.models import Delivery, Device


def test_where_as_a_subset_a_path_or_a_predicate(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("android")
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "1-0"}})
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "2-0"},
                                     "notification": {"title": "Goal"}})
    second = assert_delivered(device, where={"payload": {"data": {"score": "2-0"}}})
    assert second.payload["notification"]["title"] == "Goal"
    assert assert_delivered(device, where={"payload.data.score": "1-0"}).data == {"score": "1-0"}
    assert assert_delivered(device, where=lambda d: d.data.get("score", "").startswith("2")) == second
    assert len(assert_delivered(device, count=2)) == 2
    assert assert_delivered_count(device, 1, where={"payload.notification.title": "Goal"}) == [second]


def test_a_failure_lists_what_the_inbox_held(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("ios", name="iphone")
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "1-0"}})
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload.score": "9-9"}, within=0.3)
    text = str(failed.value)
    assert "'iphone'" in text and "within 0.3s" in text and '"payload.score": "9-9"' in text
    assert "the inbox held 1 deliveries" in text and '"score": "1-0"' in text
    with pytest.raises(AssertionError, match="expected 2 deliveries .* got 1"):
        assert_delivered(device, count=2, within=0.2)


def test_nothing_delivered(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("web")
    assert_nothing_delivered(device)
    assert_delivered_count(device, 0)
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"a": "1"}})
    assert_nothing_delivered(device, where={"payload.data.a": "2"})
    with pytest.raises(AssertionError, match="but 1 arrived.*the inbox held 1"):
        assert_nothing_delivered(device)


def test_it_waits_for_a_delivery_that_comes_later(fcm_emulator: Emulator, fcm_project: Project) -> None:
    """The device is offline when the message is sent; it comes online while (or just before) the
    assertion waits on the inbox, which then answers at once."""
    device = fcm_project.create_device("android", state="offline")
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"late": "yes"}})
    assert_nothing_delivered(device)
    waking = threading.Thread(target=device.set_state, args=("foreground",))
    waking.start()
    try:
        delivery = assert_delivered(device, where={"payload.data.late": "yes"}, within=10)
    finally:
        waking.join()
    assert delivery.app_state == "foreground"


def test_held_messages_on_the_emulator_s_clock(paused_emulator: Emulator) -> None:
    """Doze holds a normal-priority message until the maintenance window: nothing is delivered until
    the clock is moved, and no test waits for it in wall time."""
    project = paused_emulator.project()
    device = project.create_device("android", state="doze")
    send(paused_emulator, project, {"token": device.token, "data": {"p": "normal"}, "android": {"priority": "normal"}})
    assert_nothing_delivered(device)
    paused_emulator.client.advance_clock("1h")
    assert_delivered(device, where={"payload.data.p": "normal"}, within=10)


def test_matches_without_an_emulator() -> None:
    delivery = Delivery.from_json({"kind": "message", "payload": {"data": {"a": "1", "b": "2"}, "list": [{"x": 1}]}})
    assert matches(delivery, None)
    assert matches(delivery, {"payload": {"data": {"a": "1"}}})
    assert matches(delivery, {"payload.list.0.x": 1})
    assert not matches(delivery, {"payload.data.c": "3"})
    assert not matches(delivery, {"payload": {"data": "not a dict"}})
    with pytest.raises(TypeError):
        assert_delivered(object())  # type: ignore[arg-type]


# -- why none came ------------------------------------------------------------------------------

def _needs_outcomes(project: Project, device: Device) -> None:
    """Skips a test that reads the device's outcomes when this emulator has no such route (one
    built before it): the assertions then fall back to saying less."""
    try:
        project.client.request("GET", f"/projects/{project.id}/devices/{device.id}/outcomes")
    except FcmEmuError as error:
        if error.status == 404:
            pytest.skip(f"this emulator has no GET …/devices/{{device}}/outcomes route (404): {error}")
        raise


def test_a_failure_says_a_message_was_discarded(fcm_emulator: Emulator, fcm_project: Project) -> None:
    """TTL 0 to an offline device: FCM drops the message rather than store it."""
    device = fcm_project.create_device("android", name="pixel", state="offline")
    _needs_outcomes(fcm_project, device)
    name = send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "3-0"}, "android": {"ttl": "0s"}})
    message_id = name["name"].rsplit("/", 1)[-1]
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload.data.score": "3-0"}, within=0.2)
    text = str(failed.value)
    assert f"but none came: message {message_id} was discarded: " in text, text
    assert "TTL 0" in text and "the inbox was empty" in text


def test_a_failure_says_the_send_was_refused(fcm_emulator: Emulator, fcm_project: Project) -> None:
    """A reserved data key ("from") makes the send itself fail with 400."""
    device = fcm_project.create_device("android", name="pixel")
    _needs_outcomes(fcm_project, device)
    with pytest.raises(urllib.error.HTTPError) as refused:
        send(fcm_emulator, fcm_project, {"token": device.token, "data": {"from": "me", "score": "3-0"}})
    assert refused.value.code == 400
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload.data.score": "3-0"}, within=0.2)
    assert "but none came: refused: 400 INVALID_ARGUMENT" in str(failed.value), str(failed.value)


def test_a_failure_says_the_offline_device_holds_the_messages(fcm_emulator: Emulator, fcm_project: Project) -> None:
    """Works with an emulator without the outcomes route too: the device read says it."""
    device = fcm_project.create_device("android", name="pixel", state="offline")
    for score in ("1-0", "2-0", "3-0"):
        send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": score}})
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload.data.score": "3-0"}, within=0.2)
    assert "but none came: held: device offline, 3 stored; the inbox was empty" in str(failed.value)


def test_a_failure_names_the_nearest_miss(fcm_emulator: Emulator, fcm_project: Project) -> None:
    device = fcm_project.create_device("android", name="pixel")
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "1-1", "team": "away"}})
    send(fcm_emulator, fcm_project, {"token": device.token, "data": {"score": "3-1", "team": "home"}})
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload": {"data": {"team": "home", "score": "3-0"}}}, within=0.2)
    assert "a delivery matched all but payload.data.score: '3-1', wanted '3-0'; the inbox held 2" in str(failed.value)
    with pytest.raises(AssertionError) as failed:
        assert_delivered(device, where={"payload.data.score": "3-0", "payload.data.minute": "90"}, within=0.1)
    assert ("the nearest delivery differs in 2 of 2 fields, first payload.data.score: '1-1', wanted '3-0'"
            in str(failed.value))


UNUSED_RULE_TEST = '''
from fcm_emu import assert_delivered


def test_with_a_rule_that_never_fires(fcm_project, fcm_client):
    fcm_client.add_fault({"id": "never-" + fcm_project.id, "match": {"project": fcm_project.id, "api": "legacy"},
                          "action": {"error": "UNAVAILABLE"}})
    assert fcm_project.create_device("web").platform == "web"
'''


def test_a_fault_rule_that_never_fired_is_reported_at_teardown(pytester: pytest.Pytester, fcm_emulator: Emulator,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_unused=UNUSED_RULE_TEST)
    monkeypatch.setenv("FCM_EMU_CONTROL_API", fcm_emulator.control_url)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", timeout=120)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*UnusedFaultRuleWarning: fcm-emu: fault rule 'never-*' never fired during "
                                 "test_unused.py::test_with_a_rule_that_never_fires*",
                                 "*- Captured fcm-emu teardown -*"])
    # A suite that turns warnings into errors still passes; the report section says it.
    strict = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", "-W", "error::UserWarning", timeout=120)
    strict.assert_outcomes(passed=1)
    strict.stdout.fnmatch_lines(["*- Captured fcm-emu teardown -*", "fcm-emu: fault rule 'never-*' never fired*"])
    for rule in fcm_emulator.client.faults():
        if str(rule.get("id", "")).startswith("never-"):
            fcm_emulator.client.remove_fault(rule["id"])


SAMPLE_OUTCOMES = {
    "device": {"id": "0", "name": "pixel", "state": "offline", "token": "t"},
    "stored": 3,
    "story": "held: device offline, 3 stored",
    "outcomes": [
        {"time": "2026-11-28T15:00:03Z", "kind": "stored", "messageId": "0:3", "reason": "offline",
         "summary": "held: device offline, 3 stored"},
        {"time": "2026-11-28T15:00:02Z", "kind": "accepted", "messageId": "0:3", "summary": "accepted: sent to its token"},
        {"time": "2026-11-28T15:00:01Z", "kind": "refused", "status": 400, "code": "INVALID_ARGUMENT",
         "summary": "refused: 400 INVALID_ARGUMENT Invalid data payload key: from"},
        {"time": "2026-11-28T15:00:00Z", "kind": "discarded", "messageId": "0:1", "reason": "ttl-zero",
         "summary": "discarded: TTL 0 while the device was offline"},
    ],
}


def test_reasons_from_an_outcomes_document_without_an_emulator() -> None:
    """The document's shape as the control API documents it: newest first; the newest outcome that
    lost or refused a message leads, then what the device holds, in the server's words."""
    from fcm_emu import _why

    assert _why.outcome_reasons(SAMPLE_OUTCOMES, None) == [
        "refused: 400 INVALID_ARGUMENT Invalid data payload key: from", "held: device offline, 3 stored"]
    discarded = dict(SAMPLE_OUTCOMES, stored=0, outcomes=SAMPLE_OUTCOMES["outcomes"][3:])
    assert _why.outcome_reasons(discarded, None) == ["message 0:1 was discarded: TTL 0 while the device was offline"]
    assert _why.outcome_reasons({"device": {}, "stored": 0, "outcomes": []}, None) == []
