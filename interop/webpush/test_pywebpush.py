"""pywebpush (PyPI) publishes to a web device's subscription as it would to Chrome's FCM endpoint
(docs/receivers.md): aes128gcm and VAPID, and the emulator decrypts it into the device's inbox."""
import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pywebpush import WebPushException, webpush

from conftest import PROJECT

FCM = "https://fcm.googleapis.com"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def vapid_key():
    """A VAPID key pair: the private key as py-vapid reads a string (base64url DER), the public key
    for subscribe()."""
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(der), b64url(public)


def subscription_at(emulator, device):
    """The device's subscription with its endpoint's origin turned to the emulator's HTTPS port:
    the path (/fcm/send/<id>) is FCM's, the TLS certificate is the emulator's CA's."""
    info = dict(device["webPush"])
    assert info["endpoint"].startswith(FCM + "/fcm/send/")
    info["endpoint"] = emulator.https + info["endpoint"][len(FCM):]
    return info


@pytest.fixture
def trusted(emulator, monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", emulator.ca)


def test_pywebpush_reaches_the_inbox(emulator, trusted):
    private_pem, public = vapid_key()
    device = emulator.device("web", applicationServerKey=public)
    response = webpush(
        subscription_info=subscription_at(emulator, device),
        data="Goal! 3-0",
        vapid_private_key=private_pem,
        # The push service's origin, which FCM checks: the endpoint here is the emulator's.
        vapid_claims={"sub": "mailto:interop@example.com", "aud": FCM},
        ttl=120,
        headers={"Urgency": "high", "Topic": "score"},
    )
    assert response.status_code == 201, response.text
    assert response.headers["Location"].startswith(FCM + "/fcm/message/")
    [delivery] = emulator.inbox(device)
    assert delivery["api"] == "webpush"
    assert delivery["payload"]["rawData"] == "Goal! 3-0"
    assert delivery["priority"] == "high"
    assert delivery["collapseKey"] == "score"


def test_pywebpush_aesgcm(emulator, trusted):
    private_pem, public = vapid_key()
    device = emulator.device("web", applicationServerKey=public)
    response = webpush(
        subscription_info=subscription_at(emulator, device), data="older encoding", content_encoding="aesgcm",
        vapid_private_key=private_pem, vapid_claims={"sub": "mailto:interop@example.com", "aud": FCM}, ttl=60)
    assert response.status_code == 201, response.text
    assert emulator.inbox(device)[0]["payload"]["rawData"] == "older encoding"


def test_a_wrong_vapid_key_gets_403(emulator, trusted):
    _, public = vapid_key()
    other_pem, _ = vapid_key()
    device = emulator.device("web", applicationServerKey=public)
    with pytest.raises(WebPushException) as refused:
        webpush(subscription_info=subscription_at(emulator, device), data="nope", vapid_private_key=other_pem,
                vapid_claims={"sub": "mailto:interop@example.com", "aud": FCM}, ttl=60)
    assert refused.value.response.status_code == 403
    assert "does not correspond" in refused.value.response.text
    assert emulator.inbox(device) == []


def test_a_deleted_device_gets_410(emulator, trusted):
    private_pem, public = vapid_key()
    device = emulator.device("web", applicationServerKey=public)
    emulator.call("DELETE", f"/projects/{PROJECT}/devices/{device['id']}")
    with pytest.raises(WebPushException) as refused:
        webpush(subscription_info=subscription_at(emulator, device), data="late", vapid_private_key=private_pem,
                vapid_claims={"sub": "mailto:interop@example.com", "aud": FCM}, ttl=60)
    assert refused.value.response.status_code == 410
