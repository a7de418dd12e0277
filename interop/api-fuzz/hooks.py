"""schemathesis hooks for interop/api-fuzz/run: keep the fixture world alive during the run.

The generated requests delete projects and devices and reset the emulator (all legitimate control
API calls, and worth fuzzing). After any such call the next request (outside the stateful phase)
first recreates the fixture: the demo project, project fuzz-app with devices pixel (android),
iphone (ios) and chrome (web) subscribed to news, and fault rule f1. Those are the names schemathesis.toml feeds the generator.
"""
import json
import re
import os
import urllib.error
import urllib.request

import schemathesis

CONTROL = os.environ["FCM_EMU_CONTROL"]  # e.g. http://127.0.0.1:9092/emulator/v1
_dirty = True


def _call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(CONTROL + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:  # 409 ALREADY_EXISTS is expected
        return error.code


def ensure_fixture():
    _call("POST", "/projects", {"id": "demo-fcm-emu", "number": "123456789012"})
    _call("POST", "/projects", {"id": "fuzz-app", "number": "555000555000"})
    for name, platform in (("pixel", "android"), ("iphone", "ios"), ("chrome", "web")):
        _call("POST", "/projects/fuzz-app/devices", {"platform": platform, "name": name, "topics": ["news"]})
    _call("POST", "/faults", {"id": "f1", "match": {"project": "fuzz-app"}, "action": {"error": "UNAVAILABLE"}})


def _stateful(case):
    meta = getattr(case, "meta", None)
    return str(getattr(getattr(meta, "phase", None), "name", "")) == "stateful"


@schemathesis.hook
def before_call(context, case, kwargs):
    # Not in the stateful phase (the last one): there a scenario deletes something and then checks
    # that it is gone (use_after_free), and a fixture brought back in between would fail it falsely.
    # That phase creates what it needs through the document's links.
    global _dirty
    if _dirty and not _stateful(case):
        ensure_fixture()
        _dirty = False
    # A wait that is not satisfied holds the request open until its timeout (30 s by default):
    # fuzz its parameters, but have a well-formed timeout end it at once (tests cover the waiting).
    query = case.query if isinstance(case.query, dict) else None
    if query is not None and "waitFor" in query:
        timeout = str(query.get("timeout", ""))
        if timeout == "" or re.fullmatch(r"[0-9.smhdw ]*", timeout):
            query["timeout"] = "0s"


@schemathesis.hook
def after_call(context, case, response):
    global _dirty
    path = case.operation.path
    if case.method.upper() == "DELETE" or path.endswith("reset") or response.status_code >= 500:
        _dirty = True
