"""GET /emulator/v1/metrics scraped and parsed by prometheus-client's own text parser
(docs/control-api.md, "Metrics"): the families a load test of a push pipeline reads."""
import urllib.request

from firebase_admin import messaging
from prometheus_client.parser import text_string_to_metric_families


def scrape(emulator):
    with urllib.request.urlopen(emulator.control + "/metrics", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return {family.name: family for family in text_string_to_metric_families(response.read().decode())}


def value(family, **labels):
    return sum(s.value for s in family.samples if all(s.labels.get(k) == v for k, v in labels.items()))


def test_prometheus_reads_sends_deliveries_and_refusals(emulator, app):
    before = scrape(emulator)
    device = emulator.device("android")
    messaging.send(messaging.Message(token=device["token"], data={"m": "1"}), app=app)
    try:
        messaging.send(messaging.Message(token="not-a-token"), app=app)
    except Exception:
        pass
    after = scrape(emulator)
    # prometheus-client names a counter family without its _total suffix.
    assert after["fcm_emu_messages_accepted"].type == "counter"
    assert value(after["fcm_emu_messages_accepted"], api="v1") == value(before["fcm_emu_messages_accepted"], api="v1") + 1
    assert value(after["fcm_emu_deliveries"]) >= value(before["fcm_emu_deliveries"]) + 1
    refused = after["fcm_emu_requests_refused"]
    assert value(refused, api="v1", code="INVALID_ARGUMENT") >= 1
    assert after["fcm_emu_devices"].type == "gauge"
    assert value(after["fcm_emu_devices"]) >= 1


def test_connections_by_port(emulator, app):
    """A send over the TLS port is a request there; the scrape itself holds an HTTP connection."""
    before = scrape(emulator)
    device = emulator.device("android")
    messaging.send(messaging.Message(token=device["token"], data={"m": "2"}), app=app)
    after = scrape(emulator)
    assert after["fcm_emu_connections_open"].type == "gauge"
    assert value(after["fcm_emu_connections_open"], listener="http") >= 1
    assert value(after["fcm_emu_http_requests"], listener="https") >= value(before["fcm_emu_http_requests"], listener="https") + 1
    assert value(after["fcm_emu_connections_opened"], listener="https") >= 1
