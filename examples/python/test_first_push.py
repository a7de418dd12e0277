"""Your first push test: firebase-admin, unmodified, sends to a simulated device."""
import asyncio

from firebase_admin import messaging

from fcm_emu import assert_delivered


def test_first_push(fcm_project, fcm_firebase_app):
    phone = fcm_project.create_device("android", name="pixel")
    message = messaging.Message(token=phone.token, notification=messaging.Notification(title="Goal!"),
                                data={"score": "3-0"})
    messaging.send(message, app=fcm_firebase_app)
    delivery = assert_delivered(phone, where={"payload.data.score": "3-0"})
    assert delivery.payload["notification"]["title"] == "Goal!"


def test_send_each_async(fcm_project, fcm_firebase_app):
    # send_each_async uses its own HTTP/2 client, which ignores HTTPS_PROXY: the fixture's name route carries it.
    phones = [fcm_project.create_device("android"), fcm_project.create_device("ios")]
    batch = asyncio.run(messaging.send_each_async(
        [messaging.Message(token=p.token, data={"kickoff": "20:00"}) for p in phones], app=fcm_firebase_app))
    assert batch.success_count == 2
    for phone in phones:
        assert_delivered(phone, where=lambda d: d.data.get("kickoff") == "20:00")
