"""The device pane's story in headless Chromium, like test_dashboard.py (whose fixtures these tests
share): the pane leads with why the last message did or did not arrive, from the device's own
outcomes (docs/control-api.md, "Outcomes"), and lists the newest of them. No sleeps: every wait is
on the DOM."""
import json

from test_dashboard import Page, emu, page  # noqa: F401 (fixtures)

STORY = '#device-detail [data-testid="device-story"]'


def test_the_device_pane_leads_with_why_the_last_message_did_not_arrive(page):
    page.open(width=1280, height=900)
    _, device = page.create_device("android", "away", state="offline")
    page.until(lambda d: page.css(STORY).text == "Nothing was sent to it yet.", "the story of a device nothing was sent to")

    # A TTL 0 message to an offline device is dropped at once: the pane says so, newest first.
    body = json.loads(page.css("#send-body").get_attribute("value"))
    assert body["message"]["token"] == device["token"]
    body["message"].setdefault("android", {})["ttl"] = "0s"
    page.d.execute_script("arguments[0].value = arguments[1]", page.css("#send-body"), json.dumps(body))
    _, _, message = page.send()
    page.until(lambda d: page.css(STORY).text == "The last message was discarded: TTL 0 while the device was offline",
               "the discard as the device's story")
    rows = page.all('#device-detail [data-testid="outcome"]')
    assert [r.get_attribute("data-kind") for r in rows] == ["discarded", "accepted"]
    assert all(message[-6:] in r.text or message in (r.find_element("css selector", "button").get_attribute("title") or "") for r in rows)
    page.d.execute_script("arguments[0].scrollIntoView()", page.css("#device-detail"))
    page.shot("story-discarded")

    # A message that is held says how many the device holds.
    del body["message"]["android"]["ttl"]
    page.d.execute_script("arguments[0].value = arguments[1]", page.css("#send-body"), json.dumps(body))
    page.send()
    page.until(lambda d: page.css(STORY).text.startswith("The last message was held: device offline, 1 stored"), "the held message")
    assert page.emu.call("GET", f"/projects/demo-fcm-emu/devices/{device['id']}/outcomes")["stored"] == 1
    page.d.execute_script("arguments[0].scrollIntoView()", page.css("#device-detail"))
    page.shot("story-held")
