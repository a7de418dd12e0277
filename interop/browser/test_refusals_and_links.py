"""The Refusals panel and the dashboard's links under load, in a real headless Chromium like
test_dashboard.py (whose page fixture and helpers these tests share): 5,000 devices in three
projects, 300 refused requests and enough topic fan-out that the event log (capped here with
--set maxEvents) drops the oldest events. The panel reads refusals from the server a page at a
time, so it lists every refusal the log kept, and it says how many events were dropped; a link
copied from a message's timeline opens that timeline in a fresh tab; back and forward move
between views. Screenshots at 1400 and 420 px wide go to $FCM_EMU_SCREENSHOTS (a temporary
directory by default). No sleeps: every wait is on the DOM or on the control API's waitFor.
"""
import json
import os
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_dashboard import PROJECT, page  # noqa: F401 (fixture)
from xmpp_support import emulator_with

MAX_EVENTS = 10_000
PROJECTS = {PROJECT: 2000, "shop-app": 1500, "news-app": 1500}
FAN_OUTS = 8
SHOTS = os.environ.get("FCM_EMU_SCREENSHOTS") or tempfile.mkdtemp(prefix="fcm-emu-refusals-")


@pytest.fixture
def emu(tmp_path):
    """An fcm-emu whose event log keeps MAX_EVENTS events, so a few fan-outs push the oldest out."""
    with emulator_with(tmp_path, f"maxEvents={MAX_EVENTS}") as emulator:
        emulator.dashboard = emulator.call("GET", "/info")["dashboard"]
        yield emulator


def _post(url, body, headers):
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, None


def _refuse(emu, bearer, first, count):
    """`count` refused requests, a third each on v1 (a malformed token), legacy (a wrong server key)
    and IID (a token no device ever held, the request's target)."""
    for i in range(first, first + count):
        if i % 3 == 0:
            status, _ = _post(emu.base + f"/v1/projects/{PROJECT}/messages:send",
                              json.dumps({"message": {"token": f"not-a-token-{i}"}}).encode(), {"Authorization": f"Bearer {bearer}"})
            assert status == 400
        elif i % 3 == 1:
            status, _ = _post(emu.base + "/fcm/send", json.dumps({"to": "x"}).encode(), {"Authorization": "key=wrong"})
            assert status == 401
        else:
            body = {"to": "/topics/news", "registration_tokens": [f"gone-token-{i % 2}"]}
            status, _ = _post(emu.base + "/iid/v1:batchAdd", json.dumps(body).encode(), {"Authorization": f"key={emu.demo['serverKey']}"})
            assert status == 200


def _all_refusals(emu, query=""):
    """Every refused event the log keeps, walking the API's pages as the panel does; and the last answer."""
    sequences, before, answer = [], None, None
    while True:
        path = "/events?kind=refused&limit=100" + query + (f"&before={before}" if before is not None else "")
        answer = emu.call("GET", path)
        sequences = [e["sequence"] for e in answer["events"]] + sequences
        before = answer.get("nextBefore")
        if before is None:
            return sequences, answer


def _load(emu):
    """5,000 devices in three projects, 300 refusals around FAN_OUTS topic messages to 2,000 devices."""
    started = time.monotonic()
    for project, count in PROJECTS.items():
        if project != PROJECT:
            emu.call("POST", "/projects", {"id": project})
        made = emu.call("POST", f"/projects/{project}/devices", {"platform": "android", "count": count, "topics": ["news"]})
        assert len(made["devices"]) == count
    bearer = emu.call("POST", f"/projects/{PROJECT}/accessTokens")["accessToken"]
    _refuse(emu, bearer, 0, 150)
    for n in range(FAN_OUTS):
        status, answer = _post(emu.base + f"/v1/projects/{PROJECT}/messages:send",
                               json.dumps({"message": {"topic": "news", "data": {"n": str(n)}}}).encode(), {"Authorization": f"Bearer {bearer}"})
        assert status == 200
        message = answer["name"].split("/messages/")[1]
        # Awaited on the log: the fan-out reached every subscriber.
        got = emu.call("GET", f"/projects/{PROJECT}/events?message={message}&kind=delivered&limit=2000&waitFor=2000&timeout=8s")
        assert len(got["events"]) == PROJECTS[PROJECT]
    _refuse(emu, bearer, 150, 150)
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"the load took {elapsed:.0f} s"
    print(f"load: 5,000 devices, 300 refusals, {FAN_OUTS} fan-outs in {elapsed:.1f} s")
    return message


def _shot(page, selector, name):
    path = os.path.join(SHOTS, name)
    os.makedirs(SHOTS, exist_ok=True)
    element = page.css(selector)
    page.d.execute_script("arguments[0].scrollIntoView({block: 'start'}); document.getElementById('toast').textContent = ''", element)
    element.screenshot(path)
    print(f"screenshot: {path}")
    return path


def _load_every_refusal(page):
    while page.css("#refusals").get_attribute("data-complete") != "true":
        loaded = page.css("#refusals").get_attribute("data-loaded")
        page.click("#refusals-older")
        page.until(lambda d: page.css("#refusals").get_attribute("data-loaded") != loaded
                   or page.css("#refusals").get_attribute("data-complete") == "true", "an older page of refusals")
    return [int(li.get_attribute("data-sequence")) for li in page.all('#refusals li[data-kind="refused"]')]


def _fresh_tab(page, href):
    """Opens `href` in a new tab, waits for the dashboard there; returns the tab to go back to."""
    first = page.d.current_window_handle
    page.d.switch_to.new_window("tab")
    page.d.get(href)
    page.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the dashboard in the fresh tab")
    return first


def test_every_kept_refusal_is_listed_eviction_is_said_and_every_view_has_a_link(page):
    page.d.set_script_timeout(10)
    page.allowed_errors.append(r"Failed to load resource")
    # Before the load: a TTL 0 message to an offline device, dropped at once; the load then pushes
    # its events out of the log, and the device's own outcomes still tell it.
    away = page.emu.call("POST", f"/projects/{PROJECT}/devices", {"platform": "android", "name": "away", "state": "offline"})
    status, _ = _post(page.emu.base + f"/v1/projects/{PROJECT}/messages:send",
                      json.dumps({"message": {"token": away["token"], "android": {"ttl": "0s"}}}).encode(), {"Authorization": "Bearer x"})
    assert status == 200
    last_message = _load(page.emu)
    assert page.emu.call("GET", f"/projects/{PROJECT}/events?token={away['token']}&kind=discarded")["events"] == []
    kept, answer = _all_refusals(page.emu)
    evicted = answer["evicted"]
    assert evicted["setting"] == "maxEvents" and evicted["settingValue"] == MAX_EVENTS and evicted["count"] > 0, evicted
    assert 150 <= len(kept) < 300, f"{len(kept)} refusals kept: the fan-outs should have pushed some out"

    # The Refusals panel: every refusal the log kept, newest first, and what was dropped.
    page.open(width=1400, height=900)
    page.until(lambda d: page.css("#refusals").get_attribute("data-loaded") not in (None, "0"), "the first page of refusals")
    shown = _load_every_refusal(page)
    assert shown == sorted(kept, reverse=True), (len(shown), len(kept))
    note = page.css("#refusals-evicted")
    assert note.is_displayed()
    count = f"{evicted['count']:,}"
    assert note.text.startswith(f"{count} older events were dropped to stay within maxEvents={MAX_EVENTS}; "
                                f"raise it with --set maxEvents={2 * MAX_EVENTS}."), note.text
    assert note.get_attribute("data-count") == str(evicted["count"])
    log_note = page.present("#log-evicted:not([hidden])", "the log's eviction note")
    assert log_note.text.startswith(f"{count} older events were dropped"), log_note.text
    assert f"({len(kept):,})" in page.css("#refusals-count").text or f"{len(kept):,}" in page.css("#refusals-count").text

    _shot(page, '[data-testid="refusals-panel"]', "refusals-1400.png")

    # The token filter asks the server: the refusals that named a token no device held.
    by_token, _ = _all_refusals(page.emu, "&token=gone-token-1")
    page.css("#refusals-token").send_keys("gone-token-1")
    page.click("#refusals-apply")
    page.until(lambda d: page.css("#refusals").get_attribute("data-complete") == "true"
               and {li.get_attribute("data-target") for li in page.all('#refusals li[data-testid="refusal"]')} <= {"gone-token-1"},
               "only the token's refusals")
    shown = _load_every_refusal(page)
    assert shown == sorted(by_token, reverse=True), (len(shown), len(by_token))
    assert "refusals-token=gone-token-1" in page.d.current_url and "view=refusals" in page.d.current_url
    _shot(page, '[data-testid="refusals-panel"]', "refusals-by-token-1400.png")
    refusals_url = page.d.current_url

    # A device of another project, picked: a view of its own.
    page.d.get(page.emu.dashboard + "#project=shop-app")
    page.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the dashboard on shop-app")
    page.until(lambda d: page.css("#devices").get_attribute("data-total") == "1500", "shop-app's 1,500 devices")
    second = page.all('li[data-testid="device"]')[1]
    second_id = second.get_attribute("data-device-id")
    second.find_element(By.CSS_SELECTOR, '[data-testid="device-select"]').click()
    page.until(lambda d: page.css("#device-detail").get_attribute("data-device-id") == second_id, "the second device's pane")
    assert f"device={second_id}" in page.d.current_url and "project=shop-app" in page.d.current_url
    device_url = page.d.current_url
    _shot(page, '#device-detail', "device-1400.png")

    # A fan-out's timeline, from the demo project's messages; its link opens it in a fresh tab.
    page.d.get(page.emu.dashboard + f"#project={PROJECT}")
    page.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the dashboard on the demo project")
    page.click(f'#lives li[data-message-id="{last_message}"] .life-id', "the last fan-out's line")
    page.until(lambda d: page.css("#timeline").get_attribute("data-message-id") == last_message
               and "delivered" in (page.css("#timeline").get_attribute("data-kinds") or ""), "its timeline")
    link = page.css('[data-testid="timeline-link"]')
    href = link.get_attribute("href")
    assert f"message={last_message}" in href and "view=timeline" in href, href
    link.click()
    page.until(lambda d: "Link to this timeline copied" in page.css("#toast").text, "the link copied")
    copied = page.d.execute_async_script("navigator.clipboard.readText().then(arguments[0], () => arguments[0](null))")
    assert copied in (href, None), copied
    first = _fresh_tab(page, href)
    page.until(lambda d: page.css('[data-testid="timeline-id"]').text == last_message, "the timeline in the fresh tab")
    page.until(lambda d: "delivered" in (page.css("#timeline").get_attribute("data-kinds") or ""), "its steps in the fresh tab")
    # The refusals view, opened from its link: the token filter and the list as they were.
    page.d.get(refusals_url)
    page.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the refusals link")
    assert page.css("#refusals-token").get_attribute("value") == "gone-token-1"
    page.until(lambda d: page.css("#refusals").get_attribute("data-loaded") not in (None, "0"), "the token's refusals")
    assert {li.get_attribute("data-target") for li in page.all('#refusals li[data-testid="refusal"]')} == {"gone-token-1"}
    page.d.close()
    page.d.switch_to.window(first)

    # Back and forward: timeline → demo project → shop-app's device → refusals, and back again.
    page.d.back()
    page.until(lambda d: not page.all('[data-testid="timeline-id"]'), "back: no timeline open")
    page.d.back()
    page.until(lambda d: Select(page.css("#project")).first_selected_option.get_attribute("value") == "shop-app"
               and page.css("#device-detail").get_attribute("data-device-id") == second_id, "back: shop-app's device")
    page.d.forward()
    page.until(lambda d: Select(page.css("#project")).first_selected_option.get_attribute("value") == PROJECT, "forward: the demo project")
    page.d.forward()
    page.until(lambda d: page.css('[data-testid="timeline-id"]').text == last_message, "forward: the timeline again")
    assert page.d.current_url == href

    # The device search has a link too.
    token = page.emu.call("GET", f"/projects/shop-app/devices/{second_id}")["token"]
    _fresh_tab(page, page.emu.dashboard + "#project=shop-app&q=" + urllib.parse.quote(token[20:40]))
    page.until(lambda d: page.css("#devices").get_attribute("data-total") == "1", "the search from the link")
    assert page.css("#device-search").get_attribute("value") == token[20:40]
    page.d.close()
    page.d.switch_to.window(first)

    # The discarded message's device, by its link: the pane explains what the log no longer holds.
    away_url = page.emu.dashboard + f"#project={PROJECT}&device={away['id']}"
    page.d.get(away_url)
    story = '#device-detail [data-testid="device-story"]'
    discarded = "The last message was discarded: TTL 0 while the device was offline"
    page.until(lambda d: page.css(story).text == discarded, "the evicted discard told by the device's outcomes")
    _shot(page, '#device-detail', "device-discarded-1400.png")

    # At 420 px: the same views, stacked.
    page.open(width=420, height=900)
    page.d.get(page.emu.dashboard + "#view=refusals")
    page.until(lambda d: page.css("#refusals").get_attribute("data-loaded") not in (None, "0"), "the refusals at 420 px")
    _shot(page, '[data-testid="refusals-panel"]', "refusals-420.png")
    page.d.get(device_url)
    page.until(lambda d: page.css("#device-detail").get_attribute("data-device-id") == second_id, "the device at 420 px")
    _shot(page, '#device-detail', "device-420.png")
    page.d.get(away_url)
    page.until(lambda d: page.css(story).text == discarded, "the evicted discard at 420 px")
    _shot(page, '#device-detail', "device-discarded-420.png")
    overflow = page.d.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a 420 px window"
