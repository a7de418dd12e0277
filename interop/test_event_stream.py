"""The event stream and the waits with real SSE clients over real sockets.

httpx-sse reads `events:stream` over HTTP/1.1 and over HTTP/2 on the TLS port; sseclient-py (on
requests) reads it and sees the server's farewell when the emulator is stopped. A wait is answered
as soon as its condition holds although the session's clock is paused.
"""
import json
import os
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.request

import httpx
import pytest
import sseclient
from httpx_sse import connect_sse

from conftest import BINARY, PROJECT


def _send(emulator, token, data):
    """A v1 send with a bearer minted by the control API."""
    bearer = emulator.call("POST", f"/projects/{PROJECT}/accessTokens")["accessToken"]
    request = urllib.request.Request(
        f"{emulator.base}/v1/projects/{PROJECT}/messages:send", method="POST",
        data=json.dumps({"message": {"token": token, "data": data}}).encode(),
        headers={"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["name"].split("/")[-1]


def _collect(events, want, kinds):
    """Reads SSE events until `want` of the given kinds arrived; returns them."""
    seen = []
    for sse in events:
        if sse.event != "message":
            continue
        item = json.loads(sse.data)
        assert int(sse.id) == item["sequence"]
        if item["kind"] in kinds:
            seen.append(item)
        if len(seen) >= want:
            return seen
    raise AssertionError(f"the stream ended after {seen}")


@pytest.mark.parametrize("http2", [False, True], ids=["http1.1", "h2"])
def test_httpx_sse_reads_filtered_events_and_resumes_from_last_event_id(emulator, http2):
    base = emulator.https if http2 else emulator.base
    device = emulator.device(name=f"sse-{int(http2)}")
    url = f"{base}/emulator/v1/projects/{PROJECT}/events:stream"
    with httpx.Client(http2=http2, verify=ssl.create_default_context(cafile=emulator.ca), timeout=httpx.Timeout(10)) as client:
        with connect_sse(client, "GET", url, params={"token": device["token"], "kind": "accepted,delivered"}) as source:
            assert source.response.http_version == ("HTTP/2" if http2 else "HTTP/1.1")
            assert source.response.headers["content-type"].startswith("text/event-stream")
            first = _send(emulator, device["token"], {"n": "1"})
            got = _collect(source.iter_sse(), 2, {"accepted", "delivered"})
            assert [e["kind"] for e in got] == ["accepted", "delivered"]
            assert {e["messageId"] for e in got} == {first}
            assert all(e["project"] == PROJECT for e in got)
            last = got[-1]["sequence"]
        # Gone while a second message was sent: resuming from Last-Event-ID replays it.
        second = _send(emulator, device["token"], {"n": "2"})
        with connect_sse(client, "GET", url, params={"token": device["token"], "kind": "delivered"},
                         headers={"Last-Event-ID": str(last)}) as source:
            again = _collect(source.iter_sse(), 1, {"delivered"})
            assert again[0]["messageId"] == second


def test_an_inbox_wait_ends_when_the_delivery_arrives_on_a_paused_clock(emulator):
    device = emulator.device(name="waiter", state="offline")
    _send(emulator, device["token"], {"k": "v"})
    answer = {}

    def wait():
        started = time.monotonic()
        url = f"{emulator.control}/projects/{PROJECT}/devices/{device['id']}/inbox?waitFor=1&timeout=20s"
        with urllib.request.urlopen(url, timeout=30) as response:
            answer.update(header=response.headers["Emulator-Wait"], body=json.loads(response.read()),
                          took=time.monotonic() - started)

    waiter = threading.Thread(target=wait)
    waiter.start()
    emulator.call("PATCH", f"/projects/{PROJECT}/devices/{device['id']}", {"state": "foreground"})
    waiter.join(30)
    assert answer["header"] == "satisfied"
    assert answer["body"]["deliveries"][0]["payload"]["data"] == {"k": "v"}
    assert answer["took"] < 20


def test_sseclient_sees_the_farewell_when_the_emulator_stops():
    workdir = tempfile.mkdtemp(prefix="fcm-emu-sse-")
    ready = os.path.join(workdir, "ready.json")
    process = subprocess.Popen(
        [BINARY, "serve", "--port", "0", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "xmppTestPort=off",
         "--set", "stateDir=none", "--ready-file", ready, "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while not os.path.exists(ready) or os.path.getsize(ready) == 0:
            assert process.poll() is None and time.time() < deadline, "fcm-emu did not start"
            time.sleep(0.05)
        base = json.load(open(ready))["http"]["url"]
        import requests
        response = requests.get(f"{base}/emulator/v1/events:stream?lastEventId=-1", stream=True, timeout=10)
        events = sseclient.SSEClient(response).events()
        ready = next(events)
        assert (ready.event, ready.id, json.loads(ready.data)) == ("ready", "-1", {"next": 0})
        first = next(events)
        assert json.loads(first.data)["kind"] == "projectCreated"
        process.terminate()
        kinds = [event.event for event in events]
        assert kinds[-1] == "shutdown"
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
