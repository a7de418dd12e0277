"""A fault delivers the message and still answers 503.

firebase-admin retries a 503 on its own (its HTTP client retries 500 and 503), so a message that
FCM delivered before failing reaches the user twice: the inbox shows both copies. This is what a
test of a sender's retry logic can now see.
"""
from firebase_admin import messaging


def test_a_retried_503_after_delivery_notifies_twice(emulator, app):
    device = emulator.device(platform="android")
    emulator.call("POST", "/faults", {
        "id": "delivered-then-503", "match": {"api": "v1", "target": device["token"], "count": 1},
        "action": {"deliverThenFail": True, "status": 503}})
    try:
        name = messaging.send(messaging.Message(
            token=device["token"], notification=messaging.Notification(title="Your order shipped")), app=app)
    finally:
        emulator.call("DELETE", "/faults/delivered-then-503")
    assert name.startswith("projects/interop-app/messages/")
    inbox = emulator.inbox(device)
    assert len(inbox) == 2, inbox
    accepted = [e for e in emulator.events(kind="accepted") if e.get("device") == device["id"]]
    assert len(accepted) == 2, accepted
