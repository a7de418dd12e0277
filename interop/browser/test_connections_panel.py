"""The dashboard's Connections panel in headless Chromium, like test_dashboard.py (whose fixtures
these tests share): a client holding connections open shows by its user agent, with how many it
holds (docs/control-api.md, "Connections"). No sleeps: every wait is on the DOM."""
import socket
from urllib.parse import urlparse

from test_dashboard import Page, emu, page  # noqa: F401 (fixtures)


def held_connection(base, user_agent):
    url = urlparse(base)
    connection = socket.create_connection((url.hostname, url.port), timeout=10)
    connection.sendall(f"GET /emulator/v1/health HTTP/1.1\r\nHost: {url.netloc}\r\nUser-Agent: {user_agent}\r\n\r\n".encode())
    assert connection.recv(4096).startswith(b"HTTP/1.1 200")
    return connection


def test_a_leaking_pool_shows_by_its_user_agent(page):
    page.open(width=1400, height=900)
    held = [held_connection(page.emu.base, "leaky-pool/1.0") for _ in range(3)]
    try:
        selector = '[data-testid="connection-client"][data-user-agent="leaky-pool/1.0"]'

        def shown(driver):
            page.css("#connections-refresh").click()
            found = driver.find_elements("css selector", selector)
            return found and found[0].get_attribute("data-open") == "3"

        page.until(shown, "the pool's three open connections")
        row = page.css(selector)
        assert "127.0.0.1" in row.text and "3 / 3" in row.text
        # The page's own requests are a client too.
        assert any("Chrome" in (r.get_attribute("data-user-agent") or "")
                   for r in page.all('[data-testid="connection-client"]'))
    finally:
        for connection in held:
            connection.close()
