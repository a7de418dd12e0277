"""assert_delivered and friends: they wait with the inbox's waitFor, select with where=, and say what
the inbox held when they fail."""

from __future__ import annotations

import threading

import pytest

from conftest import send
from fcm_emu import Emulator, Project, assert_delivered, assert_delivered_count, assert_nothing_delivered
from fcm_emu.assertions import matches
from fcm_emu.models import Delivery


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
