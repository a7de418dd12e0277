"""firebase-messaging (PyPI), unmodified, under `fcm-emu exec`: it checks in, registers, holds its
MCS connection, and decrypts what firebase-admin and pywebpush send (docs/receivers.md). The
scenario runs as exec's command; this test reads what it saw."""
import json
import os
import subprocess
import sys

import pytest

BINARY = os.environ.get("FCM_EMU_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "fcm-emu"))
HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def seen():
    # No proxy or Google variable of the caller's may steer the command: exec sets its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCE_", "FIREBASE_", "FCM_EMU_")) and "proxy" not in k.lower()}
    done = subprocess.run([BINARY, "exec", "--", sys.executable, os.path.join(HERE, "receiver_scenario.py")],
                          env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_it_registers_and_a_firebase_admin_send_reaches_its_callback_decrypted(seen):
    assert seen["token_is_the_devices"] == "web"
    first = seen["first"]
    assert first["data"] == {"score": "3-0"}
    assert first["notification"] == {"title": "Goal", "body": "3-0"}
    assert first["fcmMessageId"]
    assert first["from"].isdigit()


def test_sends_while_it_is_away_are_stored_and_arrive_once_in_order(seen):
    # Three data messages, two under one collapse key (one stored), one whose TTL passed.
    assert seen["stored"] == 4
    assert seen["same_token"]
    assert seen["after_reconnect"] == [{"n": "1"}, {"n": "2"}, {"n": "3"}, {"score": "2-0"}]
    assert seen["fourth_connection"] == [{"marker": "last"}]


def test_pywebpush_reaches_the_same_receiver(seen):
    assert seen["webpush_status"] == 201
    assert seen["webpush_received"] == {"via": "webpush"}
    assert seen["webpush_unknown"] == 404
    assert seen["webpush_too_big"] == 413
    assert seen["webpush_wrong_key"] == 403
    assert seen["webpush_right_key"] == 201
    assert seen["bound_received"] == {"bound": "yes"}


def test_deleting_its_installation_unregisters_the_token(seen):
    assert seen["delete_status"] == 200
    assert seen["after_delete"] == "UNREGISTERED"
