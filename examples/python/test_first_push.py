"""Your first push tests: firebase-admin, unmodified, sends to simulated devices (README, "Your first test")."""
import asyncio

from firebase_admin import messaging

from fcm_emu import assert_delivered, assert_nothing_delivered


def test_a_goal_reaches_the_phone(fcm_project, fcm_firebase_app):
    phone = fcm_project.create_device("android", name="pixel")
    messaging.send(messaging.Message(token=phone.token, notification=messaging.Notification(title="Goal!"),
                                     data={"score": "3-0"}), app=fcm_firebase_app)
    delivery = assert_delivered(phone, where={"payload.data.score": "3-0"})
    assert delivery.payload["notification"]["title"] == "Goal!"


def test_an_offline_phone_gets_nothing_yet(fcm_project, fcm_firebase_app):
    phone = fcm_project.create_device("ios", state="offline")
    messaging.send(messaging.Message(token=phone.token, data={"score": "3-1"}), app=fcm_firebase_app)
    assert_nothing_delivered(phone)
    phone.set_state("foreground")
    assert_delivered(phone, where={"payload.score": "3-1"})


def test_send_each_async(fcm_project, fcm_firebase_app):
    # send_each_async has its own HTTP/2 client, which ignores HTTPS_PROXY: the fixture routes Google's names.
    phones = [fcm_project.create_device("android"), fcm_project.create_device("web")]
    batch = asyncio.run(messaging.send_each_async(
        [messaging.Message(token=p.token, data={"kickoff": "20:00"}) for p in phones], app=fcm_firebase_app))
    assert batch.success_count == 2
    for phone in phones:
        assert_delivered(phone, where=lambda d: d.data.get("kickoff") == "20:00")
