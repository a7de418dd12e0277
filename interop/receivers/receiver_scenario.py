"""Runs under `fcm-emu exec`: an unmodified firebase-messaging client registers with the emulator
and receives what firebase-admin and pywebpush send it, over MCS. Prints one JSON object (the
observations) as its last line; the pytest beside it asserts on them.

Nothing here points the client at the emulator: exec's environment does (the Python name route
for firebase-messaging, which ignores proxies; the HTTPS proxy for firebase-admin and pywebpush).
"""
import asyncio
import base64
import json
import os
import sys
import urllib.request

import firebase_admin
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from firebase_admin import messaging
from firebase_messaging import FcmPushClient, FcmRegisterConfig
from pywebpush import WebPushException, webpush

CONTROL = os.environ["FCM_EMU_CONTROL_API"]
PROJECT = os.environ["FCM_EMU_PROJECT"]
SENDER = os.environ["FCM_EMU_SENDER_ID"]
# Any key of an API key's shape: the emulator keeps no list of them (docs/receivers.md).
API_KEY = "AIzaSyFcmEmuInteropKey-0123456789abcdef"
FCM = "https://fcm.googleapis.com"


def control(method, path, body=None, query="", project=True):
    data = None if body is None else json.dumps(body).encode()
    scope = f"/projects/{PROJECT}" if project else ""
    request = urllib.request.Request(f"{CONTROL}{scope}{path}{query}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def vapid_pair():
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(der), b64url(public)


class Receiver:
    """One firebase-messaging client and what its callback got."""

    def __init__(self, vapid_key=None, credentials=None):
        config = FcmRegisterConfig(project_id=PROJECT, app_id=f"1:{SENDER}:web:fcmemu", api_key=API_KEY, messaging_sender_id=SENDER)
        if vapid_key:
            config.vapid_key = vapid_key
        self.got = []
        self.arrived = asyncio.Condition()
        self.credentials = credentials
        self.client = FcmPushClient(self.on_message, config, credentials, self.on_credentials)

    def on_credentials(self, credentials):
        self.credentials = credentials

    def on_message(self, notification, persistent_id, _context=None):
        self.got.append({"message": notification if isinstance(notification, dict) else str(notification), "id": persistent_id})
        asyncio.get_running_loop().create_task(self.notify())

    async def notify(self):
        async with self.arrived:
            self.arrived.notify_all()

    async def until(self, count, timeout=20):
        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: len(self.got) >= count), timeout)
        return self.got[:count]

    async def start(self):
        token = await self.client.checkin_or_register()
        self.credentials = self.client.credentials
        await self.client.start()
        return token

    async def stop(self):
        await self.client.stop()


def device_of(token):
    return control("GET", f"/devices/{token}")


async def state(device, want, seen):
    """Waits (the control API's wait, woken by the event) until the device is `want`, reading
    its state after each change past the `seen` first; returns how many changes there were."""
    while True:
        events = await asyncio.to_thread(control, "GET", "/events", None,
                                         f"?device={device['id']}&kind=stateChanged&waitFor={seen + 1}&timeout=20s")
        seen = len(events["events"])
        if device_of(device["token"])["state"] == want:
            return seen


def data(token, **fields):
    return messaging.Message(token=token, data=fields)


async def main():
    out = {}
    firebase_admin.initialize_app()
    first = Receiver()
    token = await first.start()
    out["token_is_the_devices"] = device_of(token)["platform"]
    device = device_of(token)
    seen = await state(device, "foreground", 0)

    # A notification and data, sent by firebase-admin, decrypted by the client.
    messaging.send(messaging.Message(token=token, notification=messaging.Notification(title="Goal", body="3-0"), data={"score": "3-0"}))
    [got] = await first.until(1)
    out["first"] = got["message"]

    # Away: three sends stored, a collapse key keeping the last, a TTL that passes.
    await first.stop()
    seen = await state(device, "offline", seen)
    for n in ("1", "2", "3"):
        messaging.send(data(token, n=n))
    for score in ("1-0", "2-0"):
        messaging.send(messaging.Message(token=token, data={"score": score}, webpush=messaging.WebpushConfig(headers={"Topic": "score"})))
    messaging.send(messaging.Message(token=token, data={"brief": "yes"}, webpush=messaging.WebpushConfig(headers={"TTL": "5"})))
    control("POST", "/clock:advance", {"by": "10s"}, project=False)
    out["stored"] = device_of(token)["storedCount"]

    second = Receiver(credentials=first.credentials)
    out["same_token"] = await second.start() == token
    got = await second.until(4)
    out["after_reconnect"] = [g["message"].get("data") for g in got]
    # A marker: whatever arrives before it on a fresh connection was sent twice.
    await second.stop()
    seen = await state(device, "offline", seen)
    third = Receiver(credentials=first.credentials)
    await third.start()
    messaging.send(data(token, marker="last"))
    out["fourth_connection"] = [g["message"].get("data") for g in await third.until(1)]

    # pywebpush to the receiver's own endpoint (aesgcm: what firebase-messaging decrypts).
    private, public = vapid_pair()
    keys = first.credentials["keys"]
    subscription = {"endpoint": FCM + "/fcm/send/" + first.credentials["gcm"]["token"], "keys": {"p256dh": keys["public"], "auth": keys["secret"]}}
    response = webpush(subscription_info=subscription, data=json.dumps({"via": "webpush"}), vapid_private_key=private,
                       vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding="aesgcm", ttl=60)
    out["webpush_status"] = response.status_code
    out["webpush_received"] = (await third.until(2))[1]["message"]

    def refused(**kwargs):
        try:
            webpush(**kwargs)
        except WebPushException as error:
            return error.response.status_code
        return 201

    out["webpush_unknown"] = refused(subscription_info=dict(subscription, endpoint=FCM + "/fcm/send/nobody"), data="x",
                                     vapid_private_key=private, vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding="aesgcm", ttl=60)
    out["webpush_too_big"] = refused(subscription_info=subscription, data="x" * 5000, vapid_private_key=private,
                                     vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding="aesgcm", ttl=60)
    await third.stop()

    # A receiver bound to a VAPID key: another key gets 403.
    bound_private, bound_public = vapid_pair()
    bound = Receiver(vapid_key=bound_public)
    await bound.start()
    bound_subscription = {"endpoint": FCM + "/fcm/send/" + bound.credentials["gcm"]["token"],
                          "keys": {"p256dh": bound.credentials["keys"]["public"], "auth": bound.credentials["keys"]["secret"]}}
    out["webpush_wrong_key"] = refused(subscription_info=bound_subscription, data="x", vapid_private_key=private,
                                       vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding="aesgcm", ttl=60)
    out["webpush_right_key"] = refused(subscription_info=bound_subscription, data=json.dumps({"bound": "yes"}), vapid_private_key=bound_private,
                                       vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding="aesgcm", ttl=60)
    out["bound_received"] = (await bound.until(1))[0]["message"]
    await bound.stop()

    # Deleting the installation (as the JS SDK's deleteToken does) unregisters the token.
    installation = first.credentials["fcm"]["installation"]
    request = urllib.request.Request(
        f"https://firebaseinstallations.googleapis.com/v1/projects/{PROJECT}/installations/{installation['fid']}", method="DELETE",
        headers={"x-goog-api-key": API_KEY, "Authorization": "FIS_v2 " + installation["refresh_token"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        out["delete_status"] = response.status
    try:
        messaging.send(data(token, after="delete"))
        out["after_delete"] = "sent"
    except messaging.UnregisteredError:
        out["after_delete"] = "UNREGISTERED"
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
