"""The dashboard (/ui/) in a real headless Chromium: Debian's chromium driven through its
chromedriver by Selenium, with no driver downloads.

Each test starts its own fcm-emu on free ports, opens the dashboard and works it as a person would:
clicks, selects, typed text and the keyboard, then checks what the page shows against what the
control API says. Waits are on DOM conditions, never sleeps. Every test ends by checking that the
browser logged no JavaScript error and that the page's Content-Security-Policy refused nothing.
Screenshots of each step go to .build/dashboard-screenshots/ (CI keeps the build folder);
docs/dashboard.png is test_dashboard_scale.py's 1400 px light shot (UPDATE_DOCS_SCREENSHOT=1 copies it).
"""
import base64
import json
import os
import re
import socket
import ssl

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from xmpp_support import emulator_with

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHOTS = os.path.join(ROOT, ".build", "dashboard-screenshots")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
PROJECT = "demo-fcm-emu"
WAIT = 10  # seconds for any one condition; they hold within milliseconds when all is well


# ---------------------------------------------------------------- the emulator and the browser

@pytest.fixture
def emu(tmp_path):
    """An fcm-emu of this test's own on free ports (HTTP, TLS, XMPP), nothing kept on disk; the
    dashboard's address as /emulator/v1/info links it."""
    with emulator_with(tmp_path) as emulator:
        emulator.dashboard = emulator.call("GET", "/info")["dashboard"]
        assert emulator.dashboard == emulator.base + "/ui/"
        yield emulator


class Page:
    """The browser on the dashboard, with waits and numbered screenshots."""

    def __init__(self, driver, emulator, name):
        self.d = driver
        self.emu = emulator
        self.name = name
        self.step = 0
        self.allowed_errors = []  # console errors a test provokes on purpose (regexes)

    def open(self, width=1280, height=800, dark=False):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"},
                         {"name": "prefers-reduced-motion", "value": "reduce"}]})
        self.d.get(self.emu.dashboard)
        self.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the dashboard to start")
        self.until(lambda d: self.css("#stream-status").get_attribute("data-state") == "open", "the event streams to open")

    # ---- finding and waiting
    def css(self, selector):
        return self.d.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.d.find_elements(By.CSS_SELECTOR, selector)

    def until(self, condition, what, timeout=WAIT):
        def safe(driver):
            try:
                return condition(driver)
            except StaleElementReferenceException:  # redrawn between finding and reading: look again
                return False
        try:
            return WebDriverWait(self.d, timeout, poll_frequency=0.05).until(safe)
        except TimeoutException:
            self.shot("TIMEOUT")
            raise AssertionError(f"timed out after {timeout}s waiting for {what}") from None

    def present(self, selector, what=None):
        return self.until(lambda d: (d.find_elements(By.CSS_SELECTOR, selector) or [None])[0], what or selector)

    def click(self, selector, what=None):
        """Clicks what the selector finds, finding it again if a redraw replaced it meanwhile."""
        def attempt(driver):
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return True
        self.until(attempt, what or f"a click on {selector}")

    def shot(self, label):
        self.step += 1
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, re.sub(r"[^\w.-]+", "-", f"{self.name}-{self.step:02d}-{label}") + ".png")
        self.d.save_screenshot(path)
        return path

    # ---- doing what a person does
    def create_device(self, platform, name, state="foreground"):
        details = self.css("#new-device")
        if not details.get_attribute("open"):
            self.css("#new-device summary").click()
        Select(self.css("#new-device-platform")).select_by_value(platform)
        field = self.css("#new-device-name")
        field.clear()
        field.send_keys(name)
        Select(self.css("#new-device-state")).select_by_value(state)
        self.css("#new-device-create").click()
        card = self.present(f'li[data-testid="device"][data-device-name="{name}"]', f"device {name} in the list")
        device = next(d for d in self.emu.call("GET", f"/projects/{PROJECT}/devices")["devices"] if d.get("name") == name)
        return card, device

    def card(self, device):
        return self.css(f'li[data-testid="device"][data-device-id="{device["id"]}"]')

    def detail(self, device, testid):
        """Picks the device in the list and returns a control of its detail pane."""
        self.card(device).find_element(By.CSS_SELECTOR, '[data-testid="device-select"]').click()
        self.until(lambda d: self.css("#device-detail").get_attribute("data-device-id") == device["id"], f"device {device['id']} in the detail pane")
        return self.css(f'#device-detail [data-testid="{testid}"]')

    def set_state(self, device, state):
        Select(self.card(device).find_element(By.CSS_SELECTOR, '[data-testid="device-state"]')).select_by_value(state)
        self.until(lambda d: self.card(device).get_attribute("data-state") == state, f"device {device['id']} to be {state}")
        assert self.emu.call("GET", f"/projects/{PROJECT}/devices/{device['id']}")["state"] == state

    def send(self, expect_status=200):
        """Sends the send form as it is; returns (status, wire text, message id or None)."""
        before = self.css("#send-status").text
        out = self.css("#send-response")
        self.d.execute_script("arguments[0].dataset.status = ''", out)
        self.css("#send-submit").click()
        self.until(lambda d: out.get_attribute("data-status"), "the send's response")
        status = int(out.get_attribute("data-status"))
        assert status == expect_status, out.text
        message_id = out.get_attribute("data-message-id") if status == 200 else None
        assert self.css("#send-status").text != before or status != 200
        return status, out.text, message_id

    def pending(self, device):
        span = self.card(device).find_element(By.CSS_SELECTOR, '[data-testid="device-pending"]')
        return int(span.get_attribute("data-count")), int(span.get_attribute("data-collapsible")), int(span.get_attribute("data-non-collapsible"))

    def life(self, message_id):
        found = self.all(f'li[data-testid="life"][data-message-id="{message_id}"]')
        return found[0].get_attribute("data-kinds").split(",") if found else []

    def log_kinds(self, message_id):
        return [li.get_attribute("data-kind") for li in self.all(f'#log li[data-message-id="{message_id}"]')]

    def inbox_ids(self):
        return [a.get_attribute("data-message-id") for a in self.all('#inbox article[data-testid="delivery"]')]

    # ---- what the browser saw
    def problems(self):
        """Console errors not allowed by the test, and CSP violations."""
        errors = [entry for entry in self.d.get_log("browser") if entry["level"] == "SEVERE"
                  and not any(re.search(allowed, entry["message"]) for allowed in self.allowed_errors)]
        violations = self.d.execute_script("return window.__cspViolations || []")
        return errors, violations


# Recorded from the first script on: anything the page's Content-Security-Policy refused.
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
});
"""


@pytest.fixture
def page(emu, request):
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            pytest.skip(f"{path} is missing: apt-get install chromium chromium-driver (.ci/run does)")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,800", "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_LISTENER})
        origin = emu.base
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        p = Page(driver, emu, request.node.name.replace("test_", "", 1))
        yield p
        errors, violations = p.problems()
        assert not violations, f"the Content-Security-Policy refused: {violations}"
        assert not errors, "the browser console has errors:\n" + "\n".join(e["message"] for e in errors)
    finally:
        driver.quit()


# ---------------------------------------------------------------- the tests

def test_send_receive_store_and_deliver_then_a_fault_rule(page):
    """A first session in the dashboard: a device made in the UI gets a message sent from the form, in its
    inbox and the live log; offline, the next one is stored; back online, it is delivered. A fault
    rule added from a template changes the wire answer, and once removed the sends go through."""
    page.open()
    page.shot("empty")
    card, device = page.create_device("android", "pixel")
    # The new device is shown as the API has it, selected, and the send example addresses it.
    assert card.find_element(By.CSS_SELECTOR, '[data-testid="device-platform"]').text.lower() == "android"
    assert card.find_element(By.CSS_SELECTOR, '[data-testid="device-token"]').get_attribute("title") == device["token"]
    assert card.get_attribute("aria-current") == "true"
    assert page.css("#inbox").get_attribute("data-device-id") == device["id"]
    page.until(lambda d: json.loads(page.css("#send-body").get_attribute("value"))["message"]["token"] == device["token"],
               "the send example to carry the new device's token")
    page.shot("device-created")

    # 1. Online: delivered, shown as an Android notification with its raw payload beside it.
    status, wire, first = page.send()
    assert wire.startswith("HTTP/1.1 200"), wire
    assert f'"name": "projects/{PROJECT}/messages/{first}"' in wire
    assert re.search(r"(?im)^content-type: application/json", wire), wire
    article = page.present(f'#inbox article[data-message-id="{first}"]', "the message in the inbox")
    notification = article.find_element(By.CSS_SELECTOR, '[data-testid="android-notification"]')
    assert "Hello from fcm-emu" in notification.text and "Sent from the dashboard" in notification.text
    raw = json.loads(article.find_element(By.CSS_SELECTOR, ".raw pre").text)
    assert raw["notification"] == {"title": "Hello from fcm-emu", "body": "Sent from the dashboard"}
    assert raw["data"]["screen"] == "inbox"
    assert [d["messageId"] for d in page.emu.call("GET", f"/projects/{PROJECT}/devices/{device['id']}/inbox")["deliveries"]] == [first]
    page.until(lambda d: "delivered" in page.log_kinds(first), "the delivery in the live log")
    assert "accepted" in page.log_kinds(first)
    page.until(lambda d: page.life(first) == ["accepted", "delivered"], "the message's life line")
    page.until(lambda d: page.card(device).find_element(By.CSS_SELECTOR, '[data-testid="device-delivered"]').get_attribute("data-count") == "1",
               "the delivered count")
    assert "never" not in page.css('#device-detail [data-testid="device-last-delivery"]').text
    page.shot("delivered")

    # 2. Offline: both stored and counted by kind: the notification collapsible (under the app's
    # key), the data message not; the inbox is unchanged.
    page.set_state(device, "offline")
    _, _, second = page.send()
    Select(page.css("#send-example")).select_by_value("data")
    _, _, third = page.send()
    page.until(lambda d: page.pending(device) == (2, 1, 1), "two messages pending: one collapsible, one not")
    for message in (second, third):
        page.until(lambda d: page.life(message) == ["accepted", "stored"], f"{message}'s life: stored")
        page.until(lambda d: "stored" in page.log_kinds(message), "the storing in the live log")
    assert page.inbox_ids() == [first]
    stored = page.emu.call("GET", f"/projects/{PROJECT}/devices/{device['id']}")
    assert (stored["storedCount"], stored["storedCollapsible"], stored["storedNonCollapsible"]) == (2, 1, 1)
    page.shot("stored-offline")

    # 3. Back in the foreground: the stored messages are delivered, the data message as data.
    page.set_state(device, "foreground")
    page.until(lambda d: sorted(page.inbox_ids()) == sorted([first, second, third]), "the stored messages in the inbox")
    for message in (second, third):
        page.until(lambda d: page.life(message) == ["accepted", "stored", "delivered"], f"{message}'s life: delivered")
        page.until(lambda d: "delivered" in page.log_kinds(message), "the delivery in the live log")
    page.until(lambda d: page.pending(device) == (0, 0, 0), "nothing pending")
    data = page.css(f'#inbox article[data-message-id="{third}"]')
    assert data.get_attribute("data-handling") == "app"
    assert "Data message" in data.text and "orderId" in data.find_element(By.CSS_SELECTOR, "table.kv").text
    page.shot("delivered-after-reconnect")

    # 4. A fault rule from a template: the next send gets 503 with Retry-After; removed, sends work.
    Select(page.css("#fault-template")).select_by_value("unavailable")
    page.css("#fault-load").click()
    rule_text = json.loads(page.css("#fault-body").get_attribute("value"))
    assert rule_text["action"] == {"status": 503, "retryAfter": "10s"}
    page.css("#fault-add").click()
    rule = page.present('#faults li[data-testid="fault"]', "the rule in the list")
    rules = page.emu.call("GET", "/faults")["faults"]
    assert len(rules) == 1 and rules[0]["action"]["status"] == 503
    assert rule.get_attribute("data-fault-id") == rules[0]["id"]
    page.d.execute_script("arguments[0].scrollIntoView()", page.css("#send-form"))
    page.allowed_errors.append(r"messages:send - Failed to load resource: the server responded with a status of 503")
    _, wire, _ = page.send(expect_status=503)
    assert wire.startswith("HTTP/1.1 503"), wire
    assert re.search(r"(?im)^retry-after: 10$", wire), wire
    page.shot("fault-503")
    page.click(f'#faults li[data-fault-id="{rules[0]["id"]}"] [data-testid="fault-remove"]')
    page.present('#faults [data-testid="faults-empty"]', "the rule to be gone")
    assert page.emu.call("GET", "/faults")["faults"] == []
    _, _, fourth = page.send()
    page.until(lambda d: fourth in page.inbox_ids(), "a send after the rule was removed to be delivered")
    page.shot("fault-removed")


def test_device_actions_topics_log_filters_and_the_clock(page):
    """One click per device action (state, token refresh, uninstall, topic, delete), the copy
    button, the log's filters, and the clock's buttons, each checked against the control API."""
    page.open()
    _, pixel = page.create_device("android", "pixel")
    _, iphone = page.create_device("ios", "iphone", state="background")
    assert page.card(iphone).find_element(By.CSS_SELECTOR, '[data-testid="device-state"]').get_attribute("value") == "background"

    # Copy puts the whole token on the clipboard.
    page.detail(pixel, "device-copy-token").click()
    page.until(lambda d: "copied" in page.css("#toast").text, "the copy to be confirmed")
    copied = page.d.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('ERR ' + e))")
    assert copied == pixel["token"]

    # Refresh token: a new token, shown, and the unedited send example follows it.
    page.card(pixel).find_element(By.CSS_SELECTOR, '[data-testid="device-select"]').click()
    page.until(lambda d: page.css("#inbox").get_attribute("data-device-id") == pixel["id"], "pixel's inbox")
    page.detail(pixel, "device-refresh-token").click()
    new_token = page.until(lambda d: (t := page.emu.call("GET", f"/projects/{PROJECT}/devices/{pixel['id']}")["token"]) != pixel["token"] and t,
                           "a new token")
    page.until(lambda d: page.card(pixel).find_element(By.CSS_SELECTOR, '[data-testid="device-token"]').get_attribute("title") == new_token,
               "the new token on the card")
    page.until(lambda d: new_token in page.css("#send-body").get_attribute("value"), "the send example to follow the new token")
    page.until(lambda d: "tokenRefreshed" in [li.get_attribute("data-kind") for li in page.all("#log li")], "tokenRefreshed in the log")

    # Subscribe (the prompt takes the topic name).
    page.detail(pixel, "device-subscribe").click()
    prompt = page.until(lambda d: d.switch_to.alert, "the topic prompt")
    prompt.send_keys("scores")
    prompt.accept()
    page.until(lambda d: "scores" in page.css('#device-detail [data-testid="device-topics"]').text, "the topic in the detail pane")
    assert page.emu.call("GET", f"/projects/{PROJECT}/devices/{pixel['id']}")["topics"] == ["scores"]

    # A topic send reaches it; then the log filtered to deliveries shows only deliveries.
    Select(page.css("#send-example")).select_by_value("topic")
    body = json.loads(page.css("#send-body").get_attribute("value"))
    assert body["message"]["topic"] == "scores"
    _, _, topic_message = page.send()
    page.until(lambda d: topic_message in page.inbox_ids(), "the topic message in pixel's inbox")
    topic_life = page.until(lambda d: page.all(f'li[data-testid="life"][data-message-id="{topic_message}"] small'), "the topic's life")[0]
    assert "scores" in topic_life.get_attribute("title"), topic_life.get_attribute("title")
    # The inbox's Clear empties it in the emulator too.
    page.css("#inbox-clear").click()
    page.until(lambda d: page.inbox_ids() == [], "the inbox cleared")
    assert page.emu.call("GET", f"/projects/{PROJECT}/devices/{pixel['id']}/inbox")["deliveries"] == []
    page.css("#log-filters-summary").click()
    kind = page.css("#log-kind")
    kind.send_keys("delivered")
    kind.send_keys(Keys.ENTER)  # the keyboard submits the filter form
    page.until(lambda d: page.css("#log-filters-summary").text == "Filters: kind=delivered", "the filter summary")
    page.until(lambda d: page.log_kinds(topic_message) == ["delivered"], "the filtered log to show the delivery")
    assert {li.get_attribute("data-kind") for li in page.all('#log li[data-testid="log-entry"]')} == {"delivered"}
    page.shot("log-filtered")
    page.css("#log-reset").click()
    page.until(lambda d: page.css("#log-filters-summary").text == "Filters: none", "the filters reset")
    page.until(lambda d: "deviceCreated" in [li.get_attribute("data-kind") for li in page.all("#log li")], "the whole log again")

    # Uninstall: the next delivery attempt discards the message and invalidates the token, and
    # later sends are refused as UNREGISTERED.
    page.detail(iphone, "device-uninstall").click()
    page.until(lambda d: page.card(iphone).get_attribute("data-state") == "uninstalled", "iphone uninstalled")
    page.card(iphone).find_element(By.CSS_SELECTOR, '[data-testid="device-select"]').click()
    Select(page.css("#send-example")).select_by_value("notification")
    assert iphone["token"] in page.css("#send-body").get_attribute("value")
    _, _, lost = page.send()
    page.until(lambda d: page.life(lost) == ["accepted", "discarded"], "the message discarded")
    page.until(lambda d: page.card(iphone).find_element(By.CSS_SELECTOR, '[data-testid="device-token-invalid"]').text == "token invalid",
               "the token marked invalid")
    assert page.emu.call("GET", f"/projects/{PROJECT}/devices/{iphone['id']}")["tokenValid"] is False
    page.allowed_errors.append(r"messages:send - Failed to load resource: the server responded with a status of 404")
    _, wire, _ = page.send(expect_status=404)
    assert '"errorCode": "UNREGISTERED"' in wire, wire
    page.shot("uninstalled")

    # Delete (after a confirmation).
    page.detail(iphone, "device-delete").click()
    page.until(lambda d: d.switch_to.alert, "the confirmation").accept()
    page.until(lambda d: not page.all(f'li[data-testid="device"][data-device-id="{iphone["id"]}"]'), "iphone gone from the list")
    assert [d["id"] for d in page.emu.call("GET", f"/projects/{PROJECT}/devices")["devices"]] == [pixel["id"]]

    # The clock: pause, advance by a minute, resume.
    page.d.execute_script("arguments[0].scrollIntoView()", page.css("#clock-h"))
    page.css("#clock-pause").click()
    page.until(lambda d: page.css("#clock-summary").get_attribute("data-paused") == "true", "the clock paused")
    before = page.emu.call("GET", "/clock")
    assert before["paused"] is True
    advance = page.css("#clock-advance-by")
    advance.clear()
    advance.send_keys("1m", Keys.ENTER)
    page.until(lambda d: page.emu.call("GET", "/clock")["nowMillis"] == before["nowMillis"] + 60_000, "the clock a minute on")
    page.until(lambda d: page.css("#clock-now").get_attribute("data-millis") == str(before["nowMillis"] + 60_000), "the new time shown")
    page.shot("clock-paused")
    page.css("#clock-resume").click()
    page.until(lambda d: page.css("#clock-summary").get_attribute("data-paused") == "false", "the clock running")
    assert page.emu.call("GET", "/clock")["paused"] is False


class CCSClient:
    """Just enough of an XMPP client to bind to the connection server: TLS, SASL PLAIN, bind."""

    def __init__(self, emulator):
        sender, key = emulator.demo["senderId"], emulator.demo["serverKey"]
        context = ssl.create_default_context(cafile=emulator.ca)
        self.tls = context.wrap_socket(socket.create_connection(("127.0.0.1", emulator.xmpp_port), timeout=10),
                                       server_hostname="gcm.googleapis.com")
        self.received = b""
        header = (b"<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' "
                  b"xmlns:stream='http://etherx.jabber.org/streams'>")
        self.tls.sendall(header)
        self.read_until(b"</stream:features>")
        plain = base64.b64encode(f"\0{sender}@fcm.googleapis.com\0{key}".encode())
        self.tls.sendall(b"<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + plain + b"</auth>")
        self.read_until(b"<success")
        self.tls.sendall(header)
        self.read_until(b"</stream:features>")
        self.tls.sendall(b"<iq type='set' id='b1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")
        self.read_until(b"</iq>")

    def read_until(self, marker):
        while marker not in self.received:
            data = self.tls.recv(65536)
            assert data, f"the connection closed before {marker!r}; received {self.received!r}"
            self.received += data
        return self.received

    def close(self):
        self.tls.close()


def test_xmpp_connections_show_what_they_hold_and_drain(page):
    """An XMPP client bound to the demo project is listed with its sender, state and in-flight
    count; the drain button sends it CONNECTION_DRAINING."""
    page.open()
    assert page.css("#xmpp-drain").get_attribute("disabled") is not None  # nothing to drain yet
    client = CCSClient(page.emu)
    try:
        _, device = page.create_device("android", "pixel")
        # An upstream message the client does not ack: one in flight.
        page.emu.call("POST", f"/projects/{PROJECT}/devices/{device['id']}:upstream", {"data": {"hello": "world"}})
        client.read_until(b"hello")
        page.css("#xmpp-refresh").click()
        listed = page.emu.call("GET", f"/projects/{PROJECT}/xmpp")["connections"]
        assert [(c["sender"], c["state"], c["inFlight"]) for c in listed] == [(page.emu.demo["senderId"], "active", 1)]
        expected = [listed[0]["id"], page.emu.demo["senderId"], "active", "1"]
        page.until(lambda d: [td.text for td in page.all('#xmpp tr[data-testid="xmpp-connection"] td')][:4] == expected,
                   f"the connection in the table as {expected}")
        page.d.execute_script("arguments[0].scrollIntoView()", page.css("#xmpp-h"))
        page.shot("xmpp-active")
        page.css("#xmpp-drain").click()
        page.until(lambda d: page.css('#xmpp tr[data-testid="xmpp-connection"]').get_attribute("data-state") == "draining",
                   "the connection draining")
        assert b"CONNECTION_DRAINING" in client.read_until(b"CONNECTION_DRAINING")
        assert page.css("#xmpp-drain").get_attribute("disabled") is not None
        page.shot("xmpp-draining")
    finally:
        client.close()


def test_a_narrow_window_stacks_the_panels_and_works_by_keyboard(page):
    """At 420 px wide the panels stack in one column, nothing overflows sideways, and a device can
    be made and sent to with the keyboard alone."""
    page.open(width=420, height=860)
    page.shot("narrow-empty")
    # Keyboard: open "New device", fill it, submit with Enter.
    page.css("#new-device summary").send_keys(Keys.ENTER)
    page.until(lambda d: page.css("#new-device").get_attribute("open") is not None, "the form to open")
    name = page.css("#new-device-name")
    name.send_keys("narrow", Keys.ENTER)
    page.present('li[data-testid="device"][data-device-name="narrow"]', "the device made by keyboard")
    page.css("#send-submit").send_keys(Keys.ENTER)
    page.until(lambda d: page.css("#send-response").get_attribute("data-status") == "200", "the keyboard send")
    page.present('#inbox article[data-testid="delivery"]', "the delivery")

    geometry = page.d.execute_script("""
      const panels = [...document.querySelectorAll('main > .panel')].map((p) => {
        const r = p.getBoundingClientRect(); return {id: p.getAttribute('aria-labelledby'), left: r.left, right: r.right};
      });
      const controls = [...document.querySelectorAll('main button, main input, main select, main textarea')]
        .filter((el) => el.offsetParent !== null)
        .map((el) => { const r = el.getBoundingClientRect(); return {what: el.id || el.dataset.testid || el.textContent, right: r.right}; });
      // In the log, each line's time fits its column instead of running into the kind beside it.
      const overlaps = [...document.querySelectorAll('#log li[data-testid="log-entry"] time')]
        .filter((time) => time.scrollWidth > time.clientWidth).map((time) => time.parentElement.textContent);
      return {width: innerWidth, scrollWidth: document.documentElement.scrollWidth, panels, controls, overlaps};
    """)
    assert geometry["scrollWidth"] <= geometry["width"], geometry["scrollWidth"]
    lefts = {round(p["left"]) for p in geometry["panels"]}
    assert len(lefts) == 1, f"panels side by side at 420 px: {geometry['panels']}"
    outside = [c for c in geometry["controls"] if c["right"] > geometry["width"] + 0.5]
    assert not outside, f"controls past the right edge: {outside}"
    assert not geometry["overlaps"], geometry["overlaps"]
    page.shot("narrow-device")
    page.d.execute_script("arguments[0].scrollIntoView()", page.css("#send-h"))
    page.shot("narrow-send")

    # Every control has a label a screen reader can read.
    unlabelled = page.d.execute_script("""
      return [...document.querySelectorAll('input, select, textarea, button')].filter((el) => {
        if (el.closest('[hidden]') || el.classList.contains('offscreen')) return false;
        const name = el.getAttribute('aria-label') || (el.labels && [...el.labels].map((l) => l.textContent).join('').trim())
          || (el.tagName === 'BUTTON' && el.textContent.trim());
        return !name;
      }).map((el) => el.outerHTML.slice(0, 120));
    """)
    assert not unlabelled, unlabelled


def luminance(css_color):
    r, g, b = [int(x) for x in re.findall(r"\d+", css_color)[:3]]

    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


COLORS = """
  const panel = getComputedStyle(document.querySelector('.panel')).backgroundColor;
  const pick = (selector, prop = 'color') => getComputedStyle(document.querySelector(selector))[prop];
  return {
    page: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color, panel,
    muted: pick('.sub'), accent: pick('#devices-refresh'), button: pick('#send-submit'), buttonBg: pick('#send-submit', 'backgroundColor'),
    kind: pick('#log .kind-delivered'), scheme: matchMedia('(prefers-color-scheme: dark)').matches,
  };
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_light_and_dark_color_schemes_are_readable(page, scheme):
    """The page follows prefers-color-scheme, and its text stays readable on its panels (WCAG AA
    contrast, 4.5:1) in both schemes."""
    page.open(dark=scheme == "dark")
    _, device = page.create_device("web", "browser")
    page.send()
    page.present('#inbox [data-testid="web-notification"]', "a web notification")
    page.present("#log .kind-delivered", "a delivery in the log")
    colors = page.d.execute_script(COLORS)
    assert colors["scheme"] is (scheme == "dark")
    if scheme == "dark":
        assert luminance(colors["page"]) < 0.05 and luminance(colors["text"]) > 0.6, colors
    else:
        assert luminance(colors["page"]) > 0.8 and luminance(colors["text"]) < 0.05, colors
    for fg, bg in [("text", "panel"), ("muted", "panel"), ("accent", "panel"), ("kind", "panel"), ("button", "buttonBg")]:
        assert contrast(colors[fg], colors[bg]) >= 4.5, f"{fg} on {bg}: {colors[fg]} on {colors[bg]}"
    page.d.execute_script("document.activeElement.blur(); scrollTo(0, 0)")
    page.shot(scheme)


def test_readme_screenshot(page):
    """A still picture (readme-1280x800.png in .build/dashboard-screenshots/): a few
    devices in different states, an Android notification in the inbox, an iOS alert rendered from
    its aps fields, a stored message, and the live log, at 1280×800."""
    page.open()
    _, iphone = page.create_device("ios", "iphone", state="background")
    page.send()
    alert = page.present('#inbox [data-testid="ios-alert"]', "the iOS alert")
    assert "Hello from fcm-emu" in alert.text
    aps = page.css("#inbox dl.aps").text
    assert "badge" in aps and "sound" in aps, aps
    _, tablet = page.create_device("android", "tablet", state="offline")
    Select(page.css("#send-example")).select_by_value("collapse")
    page.send()
    page.until(lambda d: page.pending(tablet) == (1, 1, 0), "a collapsible message pending on the tablet")
    _, pixel = page.create_device("android", "pixel", state="background")
    Select(page.css("#send-example")).select_by_value("data")
    page.send()
    Select(page.css("#send-example")).select_by_value("notification")
    page.send()
    tray = page.present('#inbox [data-testid="android-notification"]', "the Android notification")
    assert "not-shown" not in tray.get_attribute("class")  # in the background, the system shows it
    page.until(lambda d: len(page.all('#log li[data-kind="delivered"]')) == 3, "three deliveries in the log")
    page.css("#new-device summary").click()  # closed, to show more of the list
    # A still picture: without the passing toast, the focus ring and the scroll.
    page.d.execute_script("document.getElementById('toast').textContent = ''; document.activeElement.blur(); scrollTo(0, 0)")
    path = page.shot("readme")
    os.replace(path, os.path.join(SHOTS, "readme-1280x800.png"))


def test_projects_are_listed_switched_and_kept_in_the_address(page):
    """A project made after the page loaded shows up in the project list; choosing it shows its
    own devices and log, and the address keeps the choice across a reload."""
    page.open()
    page.create_device("android", "pixel")
    page.emu.call("POST", "/projects", {"id": "other-app", "number": "777"})
    page.emu.call("POST", "/projects/other-app/devices", {"platform": "web", "name": "watch"})
    page.css("#project").click()  # the list is read again when it gets focus
    page.until(lambda d: "other-app" in [o.get_attribute("value") for o in Select(page.css("#project")).options], "the new project listed")
    page.css("#project").send_keys(Keys.ESCAPE)
    Select(page.css("#project")).select_by_value("other-app")
    page.until(lambda d: [li.get_attribute("data-device-name") for li in page.all('li[data-testid="device"]')] == ["watch"],
               "only other-app's device")
    page.until(lambda d: {li.get_attribute("data-kind") for li in page.all('#log li[data-testid="log-entry"]')} == {"projectCreated", "deviceCreated"},
               "other-app's own log")
    assert "/messages:send" in page.css("#send-endpoint").text and "other-app" in page.css("#send-endpoint").text
    assert "project=other-app" in page.d.current_url
    page.d.refresh()
    page.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the dashboard to start again")
    assert Select(page.css("#project")).first_selected_option.get_attribute("value") == "other-app"
    page.present('li[data-testid="device"][data-device-name="watch"]', "watch after the reload")
    page.shot("other-project")


def test_the_content_security_policy_is_sent_and_violations_would_be_seen(page):
    """Every other test ends by checking that the page's policy refused nothing. This one shows
    that the check can fail: the page is served with the policy, and an image from elsewhere is
    refused and recorded (the browser never fetches it)."""
    page.open()
    policy = page.d.execute_async_script(
        "fetch(location.href).then((r) => arguments[0](r.headers.get('content-security-policy')))")
    assert "default-src 'self'" in policy and "object-src 'none'" in policy
    page.d.execute_script("const i = new Image(); i.src = 'https://example.invalid/x.png'; document.body.append(i);")
    page.until(lambda d: d.execute_script("return window.__cspViolations.length") == 1, "the refusal to be recorded")
    assert "img-src https://example.invalid/x.png" in page.d.execute_script("return window.__cspViolations[0]")
    # The console says so too. Both are read (the console's log empties as it is read) and cleared,
    # so the fixture's own check passes.
    console = [e["message"] for e in page.d.get_log("browser") if e["level"] == "SEVERE"]
    assert any("example.invalid" in m and "Content Security Policy" in m for m in console), console
    page.d.execute_script("window.__cspViolations.length = 0")
