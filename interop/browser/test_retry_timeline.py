"""A retried send on a message's timeline, in headless Chromium like test_dashboard.py (whose
fixtures these tests share): the accepted step says which attempt it is, what it repeats and the
gaps on the emulator's clock (docs/simulation.md, "Retries made visible"). No sleeps."""
import json
import urllib.request

from test_dashboard import PROJECT, Page, emu, page  # noqa: F401 (fixtures)


def send(emulator, body):
    request = urllib.request.Request(
        emulator.base + f"/v1/projects/{PROJECT}/messages:send", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer any"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["name"].rsplit("/", 1)[1]


def test_a_blind_retry_shows_on_the_timeline(page):
    page.open(width=1400, height=900)
    page.emu.call("POST", "/clock:pause")
    device = page.emu.call("POST", f"/projects/{PROJECT}/devices", {"platform": "android", "name": "retried"})
    body = {"message": {"token": device["token"], "data": {"score": "3-0"}}}
    first = send(page.emu, body)
    page.emu.call("POST", "/clock:advance", {"by": "1500ms"})
    second = send(page.emu, body)
    page.until(lambda d: page.life(second) == ["accepted", "delivered"], "the retry's life")
    page.click(f'#lives li[data-message-id="{second}"] .life-id', "the retry's timeline")
    note = page.present('[data-testid="timeline-retry"]', "the retry note")
    assert "attempt 2" in note.text and "1.5s" in note.text and "repeats" in note.text
    assert note.get_attribute("title") == first
