"""fcm_emu.Receiver: a real firebase-messaging client registered with the emulator, receiving what a
test sends over MCS (docs/receivers.md)."""

from __future__ import annotations

import pytest

from conftest import send
from fcm_emu import Emulator

pytest.importorskip("firebase_messaging")


def test_a_real_receiver_gets_what_is_sent_and_what_was_stored_while_it_was_away(fcm_emulator: Emulator) -> None:
    project = fcm_emulator.project()
    with fcm_emulator.receiver() as phone:
        device = project.device(phone.token)
        assert device.platform == "web" and device.raw["receiver"]["connected"] is True
        send(fcm_emulator, project, {"token": phone.token, "notification": {"title": "Goal"}, "data": {"score": "3-0"}})
        [first] = phone.wait_for(1)
        assert first["data"] == {"score": "3-0"} and first["notification"] == {"title": "Goal"}

        phone.disconnect()
        assert project.device(phone.token).raw["receiver"]["connected"] is False
        send(fcm_emulator, project, {"token": phone.token, "data": {"n": "stored"}})
        assert project.device(phone.token).stored_count == 1
        phone.connect()
        assert [m["data"] for m in phone.wait_for(2)] == [{"score": "3-0"}, {"n": "stored"}]
        assert phone.subscription and phone.subscription["endpoint"].startswith("https://fcm.googleapis.com/fcm/send/")
