"""firebase-admin against the failures it is built around: revoked access tokens and an FCM API
that is not enabled (docs/http-v1.md, "Revoking access tokens" and "An API that is not enabled").

Each test has a project and an app of its own, configured as a user would (a key file whose
token_uri points at the emulator), so the session's other tests keep their tokens.
"""
import json
import os
import tempfile

import firebase_admin
import pytest
from firebase_admin import credentials, exceptions, messaging


def make_app(emulator, project, number, **settings):
    emulator.call("POST", "/projects", {"id": project, "number": number, **settings})
    key_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
    with open(key_file, "w") as f:
        json.dump(emulator.call("GET", f"/projects/{project}/serviceAccount"), f)
    app = firebase_admin.initialize_app(credentials.Certificate(key_file), name=project)
    return app


def test_a_revoked_token_is_refreshed_once_and_the_send_goes_through(emulator, app):
    revoking = make_app(emulator, "revoke-app", "515151")
    device = emulator.device("android", project="revoke-app")
    messaging.send(messaging.Message(token=device["token"], data={"n": "1"}), app=revoking)
    assert [e["detail"] for e in emulator.events(project="revoke-app", kind="accessTokenGranted")] == ["jwt-bearer"]

    emulator.call("POST", "/projects/revoke-app/accessTokens:revoke")
    # google-auth's AuthorizedSession meets the 401, refreshes, and sends again.
    messaging.send(messaging.Message(token=device["token"], data={"n": "2"}), app=revoking)
    assert [d["payload"]["data"]["n"] for d in emulator.inbox(device, project="revoke-app")] == ["1", "2"]
    assert len(emulator.events(project="revoke-app", kind="accessTokenGranted")) == 2
    assert len(emulator.events(project="revoke-app", kind="accessTokensRevoked")) == 1
    refused = emulator.events(project="revoke-app", kind="refused")
    assert [(e["status"], e["api"]) for e in refused] == [(401, "v1")]


def test_a_disabled_api_is_a_permission_denied_error_naming_the_service(emulator, app):
    disabled = make_app(emulator, "disabled-app", "616161", apiEnabled=False)
    device = emulator.device("android", project="disabled-app")
    with pytest.raises(exceptions.PermissionDeniedError) as raised:
        messaging.send(messaging.Message(token=device["token"]), app=disabled)
    assert str(raised.value).startswith("Firebase Cloud Messaging API has not been used in project 616161 before or it is disabled.")
    body = raised.value.http_response.json()["error"]
    [info] = [d for d in body["details"] if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"]
    assert (info["reason"], info["metadata"]["service"], info["metadata"]["consumer"]) == (
        "SERVICE_DISABLED", "fcm.googleapis.com", "projects/616161")
    assert emulator.inbox(device, project="disabled-app") == []

    emulator.call("PATCH", "/projects/disabled-app", {"apiEnabled": True})
    messaging.send(messaging.Message(token=device["token"], data={"k": "v"}), app=disabled)
    assert len(emulator.inbox(device, project="disabled-app")) == 1
