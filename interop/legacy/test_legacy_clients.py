"""Legacy HTTP clients from PyPI against fcm-emu: pyfcm 1.5 (JSON /fcm/send) and python-gcm
(JSON and the plain-text form at /gcm/send), with the demo project's server key."""
import gcm
from gcm.gcm import GCMInvalidRegistrationException
import pytest
from pyfcm import FCMNotification
from pyfcm.errors import AuthenticationError

from conftest import PROJECT

DEMO = "demo-fcm-emu"
DEMO_KEY = "AAAAdemo000:APA91bDEMO-fcm-emu-server-key-for-local-testing-only"


@pytest.fixture
def pyfcm(emulator):
    service = FCMNotification(api_key=DEMO_KEY)
    service.FCM_END_POINT = emulator.base + "/fcm/send"
    return service


@pytest.fixture
def python_gcm(emulator):
    client = gcm.GCM(DEMO_KEY)
    client.url = emulator.base + "/gcm/send"
    return client


def test_pyfcm_single_device_notification(emulator, pyfcm):
    device = emulator.device("android", project=DEMO, state="background")
    result = pyfcm.notify_single_device(registration_id=device["token"], message_title="Goal", message_body="3-0",
                                         data_message={"score": "3-0"})
    assert result["success"] == 1 and result["failure"] == 0
    [delivery] = emulator.inbox(device, project=DEMO)
    assert delivery["messageId"] == result["results"][0]["message_id"]
    assert delivery["handling"] == "tray"
    assert delivery["payload"]["notification"]["title"] == "Goal"
    assert delivery["api"] == "legacy"


def test_pyfcm_multiple_devices_with_mixed_results(emulator, pyfcm):
    ok = emulator.device("ios", project=DEMO)
    gone = emulator.device("android", project=DEMO)
    emulator.call("DELETE", f"/projects/{DEMO}/devices/{gone['id']}")
    result = pyfcm.notify_multiple_devices(registration_ids=[ok["token"], gone["token"], "garbage"], data_message={"a": "b"})
    assert result["success"] == 1 and result["failure"] == 2
    errors = [r.get("error") for response in result["results"] for r in [response]]
    assert errors == [None, "NotRegistered", "InvalidRegistration"]


def test_pyfcm_topic_and_condition(emulator, pyfcm):
    device = emulator.device("web", project=DEMO, topics=["legacy-news", "legacy-sport"])
    result = pyfcm.notify_topic_subscribers(topic_name="legacy-news", message_body="hi")
    assert isinstance(result["topic_message_id"], int)
    pyfcm.notify_topic_subscribers(condition="'legacy-news' in topics && 'legacy-sport' in topics", data_message={"k": "v"})
    assert len(emulator.inbox(device, project=DEMO)) == 2


def test_pyfcm_wrong_key_is_an_authentication_error(emulator):
    service = FCMNotification(api_key="AIzaNotAKeyOfThisEmulator")
    service.FCM_END_POINT = emulator.base + "/fcm/send"
    with pytest.raises(AuthenticationError):
        service.notify_single_device(registration_id="x", message_body="y")


def test_python_gcm_plaintext(emulator, python_gcm):
    device = emulator.device("android", project=DEMO)
    # python-gcm returns only a canonical id from plain text (None when there is none).
    assert python_gcm.plaintext_request(registration_id=device["token"], data={"score": "4x8"}) is None
    assert emulator.inbox(device, project=DEMO)[0]["payload"]["data"] == {"score": "4x8"}
    with pytest.raises(GCMInvalidRegistrationException):
        python_gcm.plaintext_request(registration_id="garbage", data={"a": "b"})


def test_python_gcm_json_with_canonical_ids(emulator, python_gcm):
    a = emulator.device("android", project=DEMO)
    b = emulator.device("android", project=DEMO)
    gone = emulator.device("android", project=DEMO)
    emulator.call("POST", f"/projects/{DEMO}/devices/{gone['id']}:uninstall")
    python_gcm.json_request(registration_ids=[gone["token"]], data={"x": "y"})  # the attempt finds the app gone
    info = python_gcm.json_request(registration_ids=[a["token"], b["token"], gone["token"]], data={"x": "y"})
    assert set(info["success"]) == {a["token"], b["token"]}
    assert info["errors"] == {"NotRegistered": [gone["token"]]}


def test_python_gcm_topic(emulator, python_gcm):
    device = emulator.device("android", project=DEMO, topics=["gcm-topic"])
    message_id = python_gcm.send_topic_message(topic="gcm-topic", data={"k": "v"})
    assert int(message_id) > 0
    assert len(emulator.inbox(device, project=DEMO)) == 1
