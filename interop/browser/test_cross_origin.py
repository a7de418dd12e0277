"""A page from another origin, in the real Chromium, can neither change nor read the emulator
(docs/security.md).

The page is served by a tiny http.server of this test on another free port (and once more as a
file:// page, whose origin is "null"); its script tries what a hostile page would: "simple"
text/plain and no-cors POSTs that skip the CORS preflight (reset, create a device, a tar import),
preflighted DELETEs (a device, every fault rule), and reads of /emulator/v1/info and a service
account. A DNS-rebinding-shaped request (Host: evil.example) is sent from Python. The test then
checks the world is as it was and nothing secret came back. The dashboard itself, same-origin,
still works, with and without a control token.
"""
import http.client
import http.server
import json
import os
import threading

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

from xmpp_support import emulator_with

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
PROJECT = "demo-fcm-emu"
WAIT = 15

# Each attack records what came back: a status it could read, "opaque" (no-cors: sent, unreadable)
# or the error the browser raised. window.__done says all have settled.
ATTACKS = """
const EMU = %(emu)s;
const P = EMU + '/emulator/v1/projects/demo-fcm-emu';
const attacks = {
  resetTextPlain: () => fetch(EMU + '/emulator/v1/reset', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{}'}),
  resetEmpty: () => fetch(EMU + '/emulator/v1/reset', {method: 'POST', mode: 'no-cors'}),
  projectResetBlob: () => fetch(P + ':reset', {method: 'POST', mode: 'no-cors', body: new Blob(['{}'])}),
  createDevice: () => fetch(P + '/devices', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"platform":"web","name":"planted"}'}),
  importTar: () => fetch(EMU + '/emulator/v1:import?format=tar', {method: 'POST', mode: 'no-cors', body: 'ustar garbage'}),
  importNamed: () => fetch(EMU + '/emulator/v1:import', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"name":"x"}'}),
  deleteDevice: () => fetch(P + '/devices/pixel', {method: 'DELETE'}),
  deleteFaults: () => fetch(EMU + '/emulator/v1/faults', {method: 'DELETE'}),
  deleteFaultDot: () => fetch(EMU + '/emulator/v1/faults/.', {method: 'DELETE'}),
  clockAdvance: () => fetch(EMU + '/emulator/v1/clock:advance', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"by":"30d"}'}),
  readInfo: () => fetch(EMU + '/emulator/v1/info').then((r) => r.text()),
  readServiceAccount: () => fetch(P + '/serviceAccount').then((r) => r.text()),
  noCorsServiceAccount: () => fetch(P + '/serviceAccount', {mode: 'no-cors'}),
};
window.__results = {};
Promise.all(Object.entries(attacks).map(([name, attack]) =>
  attack().then(
    (r) => { window.__results[name] = typeof r === 'string' ? 'read: ' + r : (r.type === 'opaque' ? 'opaque' : 'status ' + r.status); },
    (e) => { window.__results[name] = 'error: ' + e.message; })))
  .then(() => { window.__done = true; });
"""


def page_html(emu_base):
    script = ATTACKS % {"emu": json.dumps(emu_base)}
    return f"<!DOCTYPE html><title>another site</title><p>nothing to see<script>{script}</script>"


@pytest.fixture
def driver():
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            pytest.skip(f"{path} is missing: apt-get install chromium chromium-driver (.ci/run does)")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-extensions", "--allow-file-access-from-files"):
        options.add_argument(argument)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield d
    finally:
        d.quit()


@pytest.fixture
def other_site():
    """An http.server on another free port: a different origin from the emulator's."""
    pages = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.pages = pages
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def world(emu):
    """What a page must not be able to change."""
    devices = emu.call("GET", f"/projects/{PROJECT}/devices")["devices"]
    return {
        "devices": sorted((d["id"], d.get("name"), d["token"]) for d in devices),
        "faults": emu.call("GET", "/faults")["faults"],
        "clock": emu.call("GET", "/clock")["nowMillis"],
        "projects": sorted(p["id"] for p in emu.call("GET", "/projects")["projects"]),
    }


def run_attacks(driver, url):
    driver.get(url)
    WebDriverWait(driver, WAIT, poll_frequency=0.05).until(lambda d: d.execute_script("return window.__done === true"))
    return driver.execute_script("return window.__results")


def test_a_page_from_another_origin_can_neither_change_nor_read_the_emulator(driver, other_site, tmp_path):
    with emulator_with(tmp_path, "clockPaused=true") as emu:
        emu.call("POST", f"/projects/{PROJECT}/devices", {"platform": "android", "name": "pixel"})
        emu.call("POST", "/faults", {"id": "outage", "action": {"status": 503}})
        before = world(emu)
        server_key = emu.demo["serverKey"]
        assert len(before["devices"]) == 1 and len(before["faults"]) == 1

        other_site.pages["/attack.html"] = page_html(emu.base)
        file_page = tmp_path / "attack.html"
        file_page.write_text(page_html(emu.base))
        # Another port of the same host (same-site, cross-origin), another name for it, and a file:// page.
        for url in (f"http://127.0.0.1:{other_site.server_port}/attack.html",
                    f"http://localhost:{other_site.server_port}/attack.html", file_page.as_uri()):
            results = run_attacks(driver, url)
            assert set(results) >= {"resetTextPlain", "createDevice", "importTar", "readInfo", "deleteFaults"}, results
            for name, outcome in results.items():
                # Nothing readable came back: reads fail (no CORS grant), no-cors answers are opaque.
                assert not outcome.startswith("read:"), f"{url} {name}: {outcome}"
                assert server_key not in outcome and "PRIVATE KEY" not in outcome
            # The simple requests were sent (a no-cors answer is opaque): the emulator is what refused them.
            assert all(results[n] == "opaque" for n in ("resetTextPlain", "resetEmpty", "createDevice", "importTar")), results
            assert world(emu) == before, f"{url} changed the world: {results}"

        # DNS rebinding: the attacker's name resolves to 127.0.0.1, so the browser sends its Host.
        port = int(emu.base.rsplit(":", 1)[1])
        for path in ("/emulator/v1/info", f"/emulator/v1/projects/{PROJECT}/serviceAccount", "/ui/"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", path, headers={"Host": f"evil.example:{port}"})
            answer = connection.getresponse()
            body = answer.read().decode("utf-8", "replace")
            connection.close()
            assert answer.status == 403, (path, answer.status, body)
            assert server_key not in body and "PRIVATE KEY" not in body
            if path.startswith("/emulator"):
                error = json.loads(body)["error"]
                assert error["status"] == "PERMISSION_DENIED" and "evil.example" in error["message"]
                assert "allowedHosts" in error["message"]
        assert world(emu) == before

        # The emulator's own page (same origin) still drives it.
        driver.get(emu.base + "/ui/")
        WebDriverWait(driver, WAIT, poll_frequency=0.05).until(
            lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
        assert driver.execute_script(
            "return fetch('/emulator/v1/clock:advance', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({by: '1m'})}).then((r) => r.status)") == 200
        assert world(emu)["clock"] == before["clock"] + 60_000


def test_the_dashboard_carries_the_control_token_from_its_address(driver, tmp_path):
    token = "browser-test-token-0123456789abcdef"
    with emulator_with(tmp_path, f"controlToken={token}") as emu:
        # Without the token the control API refuses; health stays open.
        connection = http.client.HTTPConnection(emu.base.split("//")[1], timeout=10)
        connection.request("GET", "/emulator/v1/devices")
        assert connection.getresponse().status == 401
        connection.close()
        driver.get(emu.base + f"/ui/#token={token}")
        WebDriverWait(driver, WAIT, poll_frequency=0.05).until(
            lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
        # The event stream opened (EventSource with ?access_token=), and the token left the address bar.
        WebDriverWait(driver, WAIT, poll_frequency=0.05).until(
            lambda d: d.execute_script("return document.querySelector('#stream-status').dataset.state") == "open")
        assert "token" not in driver.current_url
        assert driver.execute_script("return sessionStorage.getItem('fcm-emu-control-token')") == token
