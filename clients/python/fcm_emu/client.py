"""A typed client for fcm-emu's control API (``/emulator/v1``), on urllib alone.

Every method is one call of the API (its OpenAPI ``operationId`` is named in the docstring), with a
timeout. Errors raise :class:`~fcm_emu.FcmEmuError`, which carries the API's own error JSON.

>>> client = Client("http://127.0.0.1:9092/emulator/v1")            # doctest: +SKIP
>>> project = client.project("demo-fcm-emu")                         # doctest: +SKIP
>>> pixel = project.create_device("android", name="pixel")           # doctest: +SKIP
>>> pixel.inbox(wait_for=1, timeout=5).deliveries                    # doctest: +SKIP
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import json
import os
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

from .errors import FcmEmuError, UntrustedEmulator
from .models import (
    AccessToken, Clock, Delivery, Device, Event, EventList, FaultRule, Group, Inbox, ProjectInfo, State,
    Topic, XMPPConnection,
)

__all__ = ["Client", "Project", "Response", "DevicePage", "StreamMessage", "EventStream", "CONTROL_API_ENV",
           "CA_FILE_ENV", "PLAINTEXT_TOKEN_ENV", "is_loopback_host", "is_loopback_url"]

#: The environment variable naming a running emulator's control API base URL, such as
#: ``http://127.0.0.1:9092/emulator/v1`` (what ``fcm-emu exec`` sets for its command).
CONTROL_API_ENV = "FCM_EMU_CONTROL_API"
#: The control token of an emulator listening beyond loopback (``serve --host 0.0.0.0``, the
#: container image): its banner and ready file print it; sent as ``Authorization: Bearer``.
CONTROL_TOKEN_ENV = "FCM_EMU_CONTROL_TOKEN"

#: The emulator's CA certificate (a PEM file on this machine), for an emulator on another machine:
#: the only way its CA is trusted when its control API is plain HTTP, and what an ``https://``
#: control API is verified with (instead of the system's CAs).
CA_FILE_ENV = "FCM_EMU_CA_FILE"
#: ``1`` lets the control token go over plain HTTP to an emulator that is not on loopback (a
#: private network you trust, such as a Docker Compose network); refused otherwise.
PLAINTEXT_TOKEN_ENV = "FCM_EMU_ALLOW_PLAINTEXT_TOKEN"

#: Default timeout, in seconds, of a call that does not wait.
DEFAULT_TIMEOUT = 10.0

Timeish = Union[str, int, float, _dt.datetime]


def _duration(seconds: Union[float, str]) -> str:
    """``2.5`` → ``"2500ms"``; strings (``"10s"``, ``"15m"``) pass as they are."""
    if isinstance(seconds, str):
        return seconds
    return f"{max(0, int(round(seconds * 1000)))}ms"


def _duration_seconds(value: Union[float, str, None], default: float) -> float:
    if value is None:
        return default
    if isinstance(value, (int, float)):
        return float(value)
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for unit in ("ms", "s", "m", "h"):
        if value.endswith(unit):
            try:
                return float(value[: -len(unit)]) * units[unit]
            except ValueError:
                break
    return default


def _time(value: Timeish) -> str:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.isoformat().replace("+00:00", "Z")
    return str(value)


def is_loopback_host(host: Optional[str]) -> bool:
    """Whether ``host`` is a loopback address: ``localhost``, 127.0.0.0/8 or ``::1`` (also written
    ``[::1]`` or ``::ffff:127.x.y.z``). Any other name counts as another machine, even one that
    happens to resolve to loopback: what it resolves to is up to DNS."""
    if not host:
        return False
    host = host.strip().strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is a loopback address (see :func:`is_loopback_host`)."""
    try:
        return is_loopback_host(urllib.parse.urlsplit(url).hostname)
    except ValueError:  # a malformed port or IPv6 literal
        return False


def _flag(value: Optional[str]) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


@dataclass
class Response:
    """An answer of the control API: status, headers (lower-case names) and body."""

    status: int
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON (``{}`` for an empty body)."""
        return json.loads(self.body) if self.body.strip() else {}

    @property
    def wait_satisfied(self) -> Optional[bool]:
        """The ``Emulator-Wait`` header: True (satisfied), False (timeout), None (no wait)."""
        value = self.headers.get("emulator-wait")
        return None if value is None else value == "satisfied"


@dataclass
class DevicePage:
    """One page of a project's devices, and how many the project has in all."""

    total: int
    devices: List[Device] = field(default_factory=list)


@dataclass
class StreamMessage:
    """One Server-Sent Event: ``event`` is ``"message"`` for log entries (``data`` an Event's JSON),
    or ``ready`` / ``lagged`` / ``shutdown``."""

    event: str
    data: Any
    id: Optional[str] = None

    def as_event(self) -> Optional[Event]:
        """The log entry carried by a ``message`` frame, else ``None``."""
        return Event.from_json(self.data) if self.event == "message" and isinstance(self.data, dict) else None


class EventStream:
    """A live event stream (``events:stream``). Iterate it for :class:`StreamMessage` frames, or
    call :meth:`events` for log entries only; close it (or use ``with``) when done.

    ``read_timeout`` bounds the wait for the next frame; the server sends a heartbeat every 15 s,
    so the default 30 s only trips on a dead connection.
    """

    def __init__(self, response: Any, url: str) -> None:
        self._response = response
        self.url = url

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection."""
        try:
            self._response.close()
        except Exception:  # pragma: no cover - closing a dropped connection
            pass

    def __iter__(self) -> Iterator[StreamMessage]:
        event: str = "message"
        data: List[str] = []
        last_id: Optional[str] = None
        for raw in self._response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    text = "\n".join(data)
                    try:
                        payload: Any = json.loads(text)
                    except ValueError:
                        payload = text
                    yield StreamMessage(event=event, data=payload, id=last_id)
                event, data = "message", []
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
            elif name == "id":
                last_id = value

    def events(self) -> Iterator[Event]:
        """The log entries of the stream, skipping control frames; ends at ``shutdown``."""
        for message in self:
            if message.event == "shutdown":
                return
            event = message.as_event()
            if event is not None:
                yield event


class Client:
    """The control API of one emulator.

    Args:
        base_url: the control API base, e.g. ``http://127.0.0.1:9092/emulator/v1`` (a bare
            ``http://host:port`` gets ``/emulator/v1`` appended).
        timeout: seconds allowed for each call that does not wait; calls that wait (``wait_for``)
            get their wait time on top.
        token: the control token of an emulator listening beyond loopback (default
            ``$FCM_EMU_CONTROL_TOKEN``), sent as ``Authorization: Bearer``.
        local: whether the emulator runs on this machine; by default, whether ``base_url``'s host
            is a loopback address (:func:`is_loopback_host`). :class:`~fcm_emu.Emulator` passes
            True for the emulators it starts.
        ca_file: for an ``https://`` control API, the CA certificate to verify it with (default
            ``$FCM_EMU_CA_FILE``; without one, the CAs this process trusts).
        allow_plaintext_token: send the token over plain HTTP to an emulator that is not local
            (default: ``$FCM_EMU_ALLOW_PLAINTEXT_TOKEN`` is ``1``).

    The token is never sent over plain HTTP to an emulator that is not local, unless
    ``allow_plaintext_token`` says so: such a call raises :class:`~fcm_emu.UntrustedEmulator`
    before anything is sent, since anyone on the way could read the token and take over the
    emulator. It is never sent on to another address by a redirect either.

    Proxies from the environment are never used for the control API (the emulator is usually on
    loopback, and the pytest plugin itself sets ``HTTPS_PROXY``).
    """

    def __init__(self, base_url: str, *, timeout: float = DEFAULT_TIMEOUT, token: Optional[str] = None,
                 local: Optional[bool] = None, ca_file: Optional[str] = None,
                 allow_plaintext_token: Optional[bool] = None) -> None:
        base = base_url.rstrip("/")
        if not base.endswith("/emulator/v1"):
            base += "/emulator/v1"
        self.base_url = base
        self.timeout = timeout
        #: The control token (``$FCM_EMU_CONTROL_TOKEN`` by default); None on loopback, where none is asked.
        self.token = token if token is not None else (os.environ.get(CONTROL_TOKEN_ENV) or None)
        #: Whether the emulator runs on this machine (its answers and files are as trusted as the user's own).
        self.local = is_loopback_url(base) if local is None else bool(local)
        #: Whether the control API is reached over TLS.
        self.encrypted = urllib.parse.urlsplit(base).scheme.lower() == "https"
        #: The emulator's CA certificate named by the user (``$FCM_EMU_CA_FILE`` by default).
        self.ca_file = ca_file if ca_file is not None else (os.environ.get(CA_FILE_ENV) or None)
        self.allow_plaintext_token = (_flag(os.environ.get(PLAINTEXT_TOKEN_ENV)) if allow_plaintext_token is None
                                      else bool(allow_plaintext_token))
        handlers: List[Any] = [urllib.request.ProxyHandler({})]
        if self.encrypted:
            handlers.append(urllib.request.HTTPSHandler(context=self._tls_context()))
        self._opener = urllib.request.build_opener(*handlers)

    def _tls_context(self) -> ssl.SSLContext:
        if not self.ca_file:
            return ssl.create_default_context()
        try:
            return ssl.create_default_context(cafile=self.ca_file)
        except (OSError, ssl.SSLError) as error:
            raise FcmEmuError(f"the CA certificate {self.ca_file} ({CA_FILE_ENV}) cannot be loaded: {error}",
                              url=self.base_url) from error

    @property
    def token_refusal(self) -> Optional[str]:
        """Why the control token may not be sent to this emulator, or None when it may."""
        if not self.token or self.local or self.encrypted or self.allow_plaintext_token:
            return None
        host = urllib.parse.urlsplit(self.base_url).hostname or self.base_url
        return (f"fcm-emu: refusing to send the control token to {host} over plain HTTP: {host} is not a loopback "
                "address, so anyone on the way could read the token and take over the emulator. Reach the emulator "
                "through loopback (an SSH tunnel, or its port published on 127.0.0.1), or over https:// (its TLS "
                f"port, under a name its certificate covers, with {CA_FILE_ENV} naming its CA); on a private network "
                f"you trust, such as a Docker Compose network, set {PLAINTEXT_TOKEN_ENV}=1.")

    @classmethod
    def from_env(cls, *, timeout: float = DEFAULT_TIMEOUT) -> "Client":
        """A client for ``$FCM_EMU_CONTROL_API``."""
        url = os.environ.get(CONTROL_API_ENV)
        if not url:
            raise FcmEmuError(f"{CONTROL_API_ENV} is not set (it names a running emulator's control API, "
                              "e.g. http://127.0.0.1:9092/emulator/v1)")
        return cls(url, timeout=timeout)

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # -- transport ------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: Optional[Mapping[str, Any]] = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
        accept: str = "application/json",
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        stream: bool = False,
    ) -> Any:
        """Makes one call; returns a :class:`Response` (or the open response with ``stream``).

        ``body`` is sent as JSON with ``Content-Type: application/json``; ``data`` is sent as is
        with ``content_type``. Non-2xx answers raise :class:`FcmEmuError`.
        """
        url = self.base_url + path
        if query:
            pairs = []
            for key, value in query.items():
                if value is None:
                    continue
                if isinstance(value, (list, tuple, set)):
                    value = ",".join(str(v) for v in value)
                elif isinstance(value, bool):
                    value = "true" if value else "false"
                pairs.append((key, str(value)))
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        # The emulator never asks for the token on its health check (a container's probe has none).
        send_token = bool(self.token) and path != "/health"
        if send_token and self.token_refusal:
            raise UntrustedEmulator(self.token_refusal, method=method, url=url)
        all_headers = {"Accept": accept}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            content_type = "application/json"
        if data is not None:
            all_headers["Content-Type"] = content_type or "application/octet-stream"
        all_headers.update(headers or {})
        request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
        if send_token:
            # Unredirected: urllib carries ordinary headers to wherever a redirect points.
            request.add_unredirected_header("Authorization", f"Bearer {self.token}")
        try:
            answer = self._opener.open(request, timeout=self.timeout if timeout is None else timeout)
        except urllib.error.HTTPError as error:
            try:
                text = error.read()
            finally:
                error.close()
            raise FcmEmuError.from_response(error.code, text, method=method, url=url) from None
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as error:
            reason = getattr(error, "reason", error)
            raise FcmEmuError(f"cannot reach the emulator: {reason}", method=method, url=url) from error
        if stream:
            return answer
        with answer:
            try:
                payload = answer.read()
            except (socket.timeout, TimeoutError) as error:
                raise FcmEmuError("timed out reading the answer", method=method, url=url) from error
            return Response(answer.status, {k.lower(): v for k, v in answer.headers.items()}, payload)

    def _json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.request(method, path, body=body, **kwargs).json()

    def _wait_query(self, wait_for: Optional[int], timeout: Union[float, str, None]) -> Dict[str, Any]:
        if wait_for is None:
            return {}
        return {"waitFor": wait_for, "timeout": None if timeout is None else _duration(timeout)}

    def _wait_timeout(self, wait_for: Optional[int], timeout: Union[float, str, None]) -> float:
        if wait_for is None:
            return self.timeout
        return self.timeout + _duration_seconds(timeout, 30.0)

    # -- the emulator ---------------------------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``health``: ``{"status": "ok"}`` once the emulator is ready."""
        return self._json("GET", "/health")

    def is_healthy(self) -> bool:
        """Whether ``health`` answers ok (False when the emulator cannot be reached)."""
        try:
            return self.health().get("status") == "ok"
        except FcmEmuError:
            return False

    def info(self) -> Dict[str, Any]:
        """``info``: bound addresses, demo project credentials, CA path (as the ready file)."""
        return self._json("GET", "/info")

    def openapi(self) -> Dict[str, Any]:
        """``openapi``: this API as an OpenAPI 3 document."""
        return self._json("GET", "/openapi.json")

    def ca_certificate(self) -> str:
        """``caCertificate``: the PEM of the local CA that signs the emulator's TLS certificates
        (for clients that cannot read the emulator's files: a container, another machine)."""
        return self.request("GET", "/ca.pem", accept="application/x-pem-file").body.decode("ascii")

    def metrics(self) -> str:
        """``metrics``: counters and gauges in Prometheus's text format 0.0.4 (accepted messages by
        API, refusals by code, deliveries, devices by state), for assertions on totals."""
        return self.request("GET", "/metrics", accept="text/plain").body.decode("utf-8")

    def connections(self) -> List[Dict[str, Any]]:
        """``listConnections``: who holds connections to the HTTP ports (address, user agent, port,
        connections and HTTP/2 streams opened and open, requests), most open first: a leaking pool shows."""
        return self._json("GET", "/connections")["clients"]

    def reset(self) -> None:
        """``resetAll``: deletes every project but the demo project, all devices, events, timers."""
        self.request("POST", "/reset", body={})

    # -- snapshots ------------------------------------------------------------------------------

    def export_snapshot(self, name: str, *, include: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """``exportSnapshot``: writes the world as snapshot ``name`` under the state directory.

        ``include`` may name ``"events"`` and ``"inboxes"``. Returns ``{"name", "manifest"}``.
        Needs an emulator with a state directory.
        """
        body: Dict[str, Any] = {"name": name}
        if include is not None:
            body["include"] = list(include)
        return self._json("POST", ":export", body, timeout=max(self.timeout, 120.0))

    def export_snapshot_tar(self, *, include: Optional[Sequence[str]] = None) -> bytes:
        """``exportSnapshot`` with ``format=tar``: the snapshot as a tar archive (no state dir needed)."""
        body: Dict[str, Any] = {}
        if include is not None:
            body["include"] = list(include)
        return self.request("POST", ":export", body=body, query={"format": "tar"}, accept="application/x-tar",
                            timeout=max(self.timeout, 120.0)).body

    def import_snapshot(self, name: str, *, clock: Optional[str] = None) -> Dict[str, Any]:
        """``importSnapshot``: replaces the world with snapshot ``name``; ``clock`` is
        ``"snapshot"`` or ``"wall"``. Returns ``{"clock", "manifest"}``."""
        body: Dict[str, Any] = {"name": name}
        if clock is not None:
            body["clock"] = clock
        return self._json("POST", ":import", body, timeout=max(self.timeout, 120.0))

    def import_snapshot_tar(self, archive: bytes, *, clock: Optional[str] = None) -> Dict[str, Any]:
        """``importSnapshot`` with a tar body (as made by :meth:`export_snapshot_tar`)."""
        return self.request("POST", ":import", data=archive, content_type="application/x-tar",
                            query={"format": "tar", "clock": clock}, timeout=max(self.timeout, 120.0)).json()

    # -- the clock ------------------------------------------------------------------------------

    def clock(self) -> Clock:
        """``getClock``: the emulator's time, mode, speed and pending timers."""
        return Clock.from_json(self._json("GET", "/clock"))

    def timers(self, *, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        """``listTimers``: the clock's pending timers in the order they fire (``timers``: each with
        ``at``, ``what``, ``project``, ``device``, ``messageId``; ``total``; ``nextOffset`` when more).
        Advance the clock ``to`` the first one's ``at`` to run to it."""
        return self._json("GET", "/clock/timers", query={"offset": offset, "limit": limit})

    def advance_clock(self, by: Union[str, int, float, _dt.timedelta, None] = None, *,
                      to: Optional[Timeish] = None) -> Clock:
        """``advanceClock``: moves the clock forward ``by`` (``"15m"``, milliseconds, a timedelta)
        or ``to`` an instant, firing everything due on the way (TTL expiry, Doze windows, latency)."""
        body: Dict[str, Any] = {}
        if isinstance(by, _dt.timedelta):
            body["by"] = int(by.total_seconds() * 1000)
        elif isinstance(by, float):
            body["by"] = int(by)
        elif by is not None:
            body["by"] = by
        if to is not None:
            body["to"] = _time(to)
        if not body:
            raise ValueError("advance_clock needs by= or to=")
        return Clock.from_json(self._json("POST", "/clock:advance", body))

    def pause_clock(self) -> Clock:
        """``pauseClock``: stops a wall-driven clock (time then moves only with advance)."""
        return Clock.from_json(self._json("POST", "/clock:pause", {}))

    def resume_clock(self) -> Clock:
        """``resumeClock``: lets a paused clock follow the wall again."""
        return Clock.from_json(self._json("POST", "/clock:resume", {}))

    def set_clock_speed(self, speed: float) -> Clock:
        """``setClockSpeed``: e.g. ``60`` runs a minute per second."""
        return Clock.from_json(self._json("POST", "/clock:setSpeed", {"speed": speed}))

    # -- events ---------------------------------------------------------------------------------

    def _events(self, path: str, device: Optional[str], token: Optional[str], topic: Optional[str],
                message: Optional[str], kind: Union[str, Sequence[str], None], since: Optional[Timeish],
                until: Optional[Timeish], limit: Optional[int], wait_for: Optional[int],
                timeout: Union[float, str, None]) -> EventList:
        query = {"device": device, "token": token, "topic": topic, "message": message,
                 "kind": kind if isinstance(kind, (str, type(None))) else list(kind),
                 "since": None if since is None else _time(since), "until": None if until is None else _time(until),
                 "limit": limit, **self._wait_query(wait_for, timeout)}
        answer = self.request("GET", path, query=query, timeout=self._wait_timeout(wait_for, timeout))
        return EventList([Event.from_json(e) for e in answer.json().get("events", [])], answer.wait_satisfied)

    def events(self, *, token: Optional[str] = None, topic: Optional[str] = None, message: Optional[str] = None,
               kind: Union[str, Sequence[str], None] = None, since: Optional[Timeish] = None,
               until: Optional[Timeish] = None, limit: Optional[int] = None, wait_for: Optional[int] = None,
               timeout: Union[float, str, None] = None) -> EventList:
        """``listAllEvents``: the event log across projects, oldest first.

        Filters: ``token``, ``topic``, ``message`` (id), ``kind`` (a name or several), ``since`` and
        ``until`` (RFC 3339, epoch ms or datetime), ``limit`` (newest N). With ``wait_for=N`` the
        emulator answers once N events match, or after ``timeout`` (seconds or ``"10s"``; default
        30 s) with what there is; ``.satisfied`` on the result says which.
        """
        return self._events("/events", None, token, topic, message, kind, since, until, limit, wait_for, timeout)

    def project_events(self, project: str, *, device: Optional[str] = None, token: Optional[str] = None,
                       topic: Optional[str] = None, message: Optional[str] = None,
                       kind: Union[str, Sequence[str], None] = None, since: Optional[Timeish] = None,
                       until: Optional[Timeish] = None, limit: Optional[int] = None,
                       wait_for: Optional[int] = None, timeout: Union[float, str, None] = None) -> EventList:
        """``listProjectEvents``: one project's events; the filters and waits of :meth:`events`,
        plus ``device`` (id, name, token or FID)."""
        return self._events(f"/projects/{_segment(project)}/events", device, token, topic, message, kind, since,
                            until, limit, wait_for, timeout)

    def device_events(self, project: str, device: str, *, token: Optional[str] = None, topic: Optional[str] = None,
                      message: Optional[str] = None, kind: Union[str, Sequence[str], None] = None,
                      since: Optional[Timeish] = None, until: Optional[Timeish] = None, limit: Optional[int] = None,
                      wait_for: Optional[int] = None, timeout: Union[float, str, None] = None) -> EventList:
        """``listDeviceEvents``: one device's events; the filters and waits of :meth:`events`."""
        return self._events(f"/projects/{_segment(project)}/devices/{_segment(device)}/events", None, token, topic,
                            message, kind, since, until, limit, wait_for, timeout)

    def _stream(self, path: str, filters: Mapping[str, Any], last_event_id: Optional[int],
                read_timeout: float) -> EventStream:
        query = dict(filters)
        if last_event_id is not None:
            query["lastEventId"] = last_event_id
        response = self.request("GET", path, query=query, accept="text/event-stream", timeout=read_timeout,
                                stream=True)
        return EventStream(response, self.base_url + path)

    def stream_events(self, *, token: Optional[str] = None, topic: Optional[str] = None,
                      message: Optional[str] = None, kind: Union[str, Sequence[str], None] = None,
                      last_event_id: Optional[int] = None, read_timeout: float = 30.0) -> EventStream:
        """``streamEvents``: the event log, live, as Server-Sent Events.

        ``last_event_id`` resumes after that sequence (``-1`` replays every kept event); without it
        the stream starts now.
        """
        return self._stream("/events:stream", {"token": token, "topic": topic, "message": message,
                                               "kind": kind}, last_event_id, read_timeout)

    def stream_project_events(self, project: str, *, device: Optional[str] = None, token: Optional[str] = None,
                              topic: Optional[str] = None, message: Optional[str] = None,
                              kind: Union[str, Sequence[str], None] = None, last_event_id: Optional[int] = None,
                              read_timeout: float = 30.0) -> EventStream:
        """``streamProjectEvents``: one project's events, live."""
        return self._stream(f"/projects/{_segment(project)}/events:stream",
                            {"device": device, "token": token, "topic": topic, "message": message, "kind": kind},
                            last_event_id, read_timeout)

    def stream_device_events(self, project: str, device: str, *, kind: Union[str, Sequence[str], None] = None,
                             message: Optional[str] = None, last_event_id: Optional[int] = None,
                             read_timeout: float = 30.0) -> EventStream:
        """``streamDeviceEvents``: one device's events, live."""
        return self._stream(f"/projects/{_segment(project)}/devices/{_segment(device)}/events:stream",
                            {"kind": kind, "message": message}, last_event_id, read_timeout)

    # -- fault rules ----------------------------------------------------------------------------

    def faults(self) -> List[FaultRule]:
        """``listFaults``: the fault rules in force."""
        return self._json("GET", "/faults").get("faults", [])

    def add_fault(self, rule: FaultRule) -> FaultRule:
        """``addFault``: adds a rule (replacing one with the same ``id``); returns it with its id.

        >>> client.add_fault({"match": {"api": "v1", "count": 1}, "action": {"error": "UNAVAILABLE"}})  # doctest: +SKIP
        """
        return self._json("POST", "/faults", dict(rule))

    def set_faults(self, rules: Iterable[FaultRule]) -> List[FaultRule]:
        """``setFaults``: replaces every rule."""
        return self._json("PUT", "/faults", {"faults": [dict(r) for r in rules]}).get("faults", [])

    def clear_faults(self) -> None:
        """``clearFaults``: removes every rule."""
        self.request("DELETE", "/faults")

    def fault(self, rule_id: str) -> FaultRule:
        """``getFault``: one rule as posted, with ``id`` and ``fired`` (how often it fired)."""
        return self._json("GET", f"/faults/{_segment(rule_id)}")

    def remove_fault(self, rule_id: str) -> List[FaultRule]:
        """``removeFault``: removes one rule; returns the rules left."""
        return self._json("DELETE", f"/faults/{_segment(rule_id)}").get("faults", [])

    # -- projects -------------------------------------------------------------------------------

    def project(self, project_id: str) -> "Project":
        """A handle on project ``project_id`` (no call is made)."""
        return Project(self, project_id)

    def list_projects(self) -> List[ProjectInfo]:
        """``listProjects``."""
        return [ProjectInfo.from_json(p) for p in self._all_pages("/projects", "projects")]

    def create_project(self, project_id: str, *, number: Optional[str] = None,
                       server_keys: Optional[Sequence[str]] = None,
                       api_enabled: Optional[bool] = None) -> ProjectInfo:
        """``createProject``: ``project_id`` is 4–30 lower-case letters, digits or hyphens starting
        with a letter; ``number`` (the sender id) is generated when absent. Ids starting with
        ``demo-`` accept any bearer token, as the Firebase emulators do. ``api_enabled=False``
        creates it with its v1 API off (see :meth:`update_project`)."""
        body: Dict[str, Any] = {"id": project_id}
        if number is not None:
            body["number"] = number
        if server_keys is not None:
            body["serverKeys"] = list(server_keys)
        if api_enabled is not None:
            body["apiEnabled"] = api_enabled
        return ProjectInfo.from_json(self._json("POST", "/projects", body))

    def get_project(self, project: str) -> ProjectInfo:
        """``getProject`` (by id or number)."""
        return ProjectInfo.from_json(self._json("GET", f"/projects/{_segment(project)}"))

    def update_project(self, project: str, *, api_enabled: Optional[bool] = None) -> ProjectInfo:
        """``updateProject``: ``api_enabled=False`` makes every v1 call of the project answer 403
        SERVICE_DISABLED, as for a project whose Firebase Cloud Messaging API was never enabled."""
        body: Dict[str, Any] = {}
        if api_enabled is not None:
            body["apiEnabled"] = api_enabled
        return ProjectInfo.from_json(self._json("PATCH", f"/projects/{_segment(project)}", body))

    def delete_project(self, project: str) -> None:
        """``deleteProject``: the project and everything in it."""
        self.request("DELETE", f"/projects/{_segment(project)}")

    def reset_project(self, project: str) -> None:
        """``resetProject``: removes a project's devices, topics and groups."""
        self.request("POST", f"/projects/{_segment(project)}:reset", body={})

    def service_account(self, project: str) -> Dict[str, Any]:
        """``getServiceAccount``: a service-account key file (JSON) whose ``token_uri`` points here."""
        return self._json("GET", f"/projects/{_segment(project)}/serviceAccount")

    def create_access_token(self, project: str) -> AccessToken:
        """``createAccessToken``: an OAuth bearer for the project's v1 API, without the JWT exchange."""
        return AccessToken.from_json(self._json("POST", f"/projects/{_segment(project)}/accessTokens", {}))

    def revoke_access_tokens(self, project: str) -> None:
        """``revokeAccessTokens``: every bearer the project was issued until now gets 401 on its
        next v1 call, as after a key rotation; tokens issued later work."""
        self.request("POST", f"/projects/{_segment(project)}/accessTokens:revoke", body={})

    def topics(self, project: str) -> List[Topic]:
        """``listTopics``: topics with subscriber counts."""
        return [Topic.from_json(t) for t in self._all_pages(f"/projects/{_segment(project)}/topics", "topics")]

    def groups(self, project: str) -> List[Group]:
        """``listGroups``: legacy device groups."""
        return [Group.from_json(g) for g in self._all_pages(f"/projects/{_segment(project)}/groups", "groups")]

    def _all_pages(self, path: str, key: str) -> List[Dict[str, Any]]:
        """Every entry of a paged list: the server ends a page at about 8 MiB and says where the
        next starts (``nextOffset``); older servers answer with one page and no ``nextOffset``."""
        entries: List[Dict[str, Any]] = []
        offset: Optional[int] = None
        while True:
            answer = self._json("GET", path, query={"offset": offset})
            page = answer.get(key, [])
            entries.extend(page)
            following = answer.get("nextOffset")
            if following is None or not page:
                return entries
            offset = int(following)

    def xmpp_connections(self, project: str) -> List[XMPPConnection]:
        """``listXMPPConnections``: the project's bound XMPP (CCS) connections."""
        answer = self._json("GET", f"/projects/{_segment(project)}/xmpp")
        return [XMPPConnection.from_json(c) for c in answer.get("connections", [])]

    def drain_xmpp(self, project: str) -> None:
        """``drainXMPP``: sends CONNECTION_DRAINING to every XMPP connection of the project."""
        self.request("POST", f"/projects/{_segment(project)}/xmpp:drain", body={})

    # -- devices --------------------------------------------------------------------------------

    def _device_path(self, project: str, device: str) -> str:
        return f"/projects/{_segment(project)}/devices/{_segment(device)}"

    def _device(self, data: Mapping[str, Any]) -> Device:
        return Device.from_json(data, client=self)

    def list_devices(self, project: str, *, offset: Optional[int] = None, limit: Optional[int] = None) -> DevicePage:
        """``listDevices``: one page, oldest first (``limit`` defaults to 1000 on the server)."""
        answer = self._json("GET", f"/projects/{_segment(project)}/devices", query={"offset": offset, "limit": limit})
        devices = [self._device(d) for d in answer.get("devices", [])]
        return DevicePage(total=int(answer.get("total", len(devices))), devices=devices)

    def iter_devices(self, project: str, *, page_size: int = 1000) -> Iterator[Device]:
        """Every device of the project, page by page."""
        offset = 0
        while True:
            page = self.list_devices(project, offset=offset, limit=page_size)
            yield from page.devices
            offset += len(page.devices)
            if not page.devices or offset >= page.total:
                return

    @staticmethod
    def _new_device(platform: str, fields: Mapping[str, Any]) -> Dict[str, Any]:
        names = {"app_id": "appId", "client_sdk": "clientSdk"}
        body: Dict[str, Any] = {"platform": platform}
        for key, value in fields.items():
            if value is not None:
                body[names.get(key, key)] = list(value) if key in ("senders", "topics") else value
        return body

    def create_device(self, project: str, platform: str = "android", *, name: Optional[str] = None,
                      token: Optional[str] = None, app_id: Optional[str] = None, fid: Optional[str] = None,
                      state: Optional[State] = None, senders: Optional[Sequence[str]] = None,
                      topics: Optional[Sequence[str]] = None, client_sdk: Optional[str] = None) -> Device:
        """``createDevice``: a device on ``platform`` (android, ios, web); its token is generated in
        FCM's format unless given. It starts in ``state`` (foreground by default). ``client_sdk="legacy"``
        stands for an Android app built before the ``android_v2`` callbacks."""
        body = self._new_device(platform, dict(name=name, token=token, app_id=app_id, fid=fid, state=state,
                                               senders=senders, topics=topics, client_sdk=client_sdk))
        return self._device(self._json("POST", f"/projects/{_segment(project)}/devices", body))

    def create_devices(self, project: str, count: int, platform: str = "android", *, app_id: Optional[str] = None,
                       state: Optional[State] = None, senders: Optional[Sequence[str]] = None,
                       topics: Optional[Sequence[str]] = None) -> List[Device]:
        """``createDevice`` with ``count``: that many identical devices (at most 10000 a call)."""
        body = self._new_device(platform, dict(app_id=app_id, state=state, senders=senders, topics=topics,
                                               count=count))
        answer = self._json("POST", f"/projects/{_segment(project)}/devices", body, timeout=max(self.timeout, 60.0))
        if "devices" not in answer:
            return [self._device(answer)]
        # Past 8 MiB of repeated topic names the answer lists the devices' shared topics once.
        shared = answer.get("topics")
        return [self._device(d if shared is None or "topics" in d else {**d, "topics": shared}) for d in answer["devices"]]

    def get_device(self, project: str, device: str) -> Device:
        """``getDevice``: by id, name, or any token it holds or held."""
        return self._device(self._json("GET", self._device_path(project, device)))

    def update_device(self, project: str, device: str, *, state: Optional[State] = None,
                      senders: Optional[Sequence[str]] = None) -> Device:
        """``updateDevice``: changes the state and/or the allowed senders."""
        body: Dict[str, Any] = {}
        if state is not None:
            body["state"] = state
        if senders is not None:
            body["senders"] = list(senders)
        return self._device(self._json("PATCH", self._device_path(project, device), body))

    def set_device_state(self, project: str, device: str, state: State) -> Device:
        """Shorthand for ``update_device(state=...)``."""
        return self.update_device(project, device, state=state)

    def delete_device(self, project: str, device: str) -> None:
        """``deleteDevice``: its token then answers as unregistered."""
        self.request("DELETE", self._device_path(project, device))

    def uninstall_device(self, project: str, device: str) -> Device:
        """``uninstallDevice``: the next delivery attempt invalidates the token."""
        return self._device(self._json("POST", self._device_path(project, device) + ":uninstall", {}))

    def refresh_token(self, project: str, device: str, *, token: Optional[str] = None) -> Device:
        """``refreshToken``: a new token (or ``token``); reinstalls an uninstalled app."""
        body = {} if token is None else {"token": token}
        return self._device(self._json("POST", self._device_path(project, device) + ":refreshToken", body))

    def subscribe(self, project: str, device: str, topic: str) -> Device:
        """``subscribe``: the device joins ``topic``."""
        return self._device(self._json("PUT", f"{self._device_path(project, device)}/topics/{_segment(topic)}"))

    def unsubscribe(self, project: str, device: str, topic: str) -> Device:
        """``unsubscribe``: the device leaves ``topic``."""
        return self._device(self._json("DELETE", f"{self._device_path(project, device)}/topics/{_segment(topic)}"))

    def inbox(self, project: str, device: str, *, wait_for: Optional[int] = None,
              timeout: Union[float, str, None] = None) -> Inbox:
        """``getInbox``: what the app received, rendered for its platform, oldest first.

        With ``wait_for=N`` the emulator answers as soon as the inbox holds N deliveries, or after
        ``timeout`` (seconds or ``"10s"``; default 30 s) with what there is (``Inbox.satisfied``).
        """
        answer = self.request("GET", self._device_path(project, device) + "/inbox",
                              query=self._wait_query(wait_for, timeout), timeout=self._wait_timeout(wait_for, timeout))
        data = answer.json()
        return Inbox(device=self._device(data["device"]) if isinstance(data.get("device"), dict) else None,
                     deliveries=[Delivery.from_json(d) for d in data.get("deliveries", [])],
                     satisfied=answer.wait_satisfied, raw=data)

    def clear_inbox(self, project: str, device: str) -> None:
        """``clearInbox``: empties the inbox."""
        self.request("DELETE", self._device_path(project, device) + "/inbox")

    def stored(self, project: str, device: str) -> Dict[str, Any]:
        """``getStored``: what FCM holds for the device now (``stored``: store and forward), in delivery order,
        with when each message may be delivered and when it expires."""
        return self._json("GET", self._device_path(project, device) + "/stored")

    def tray(self, project: str, device: str) -> Dict[str, Any]:
        """``getTray``: what the user sees: notifications shown while the app was in the
        background (``notifications``, oldest first), one per tag."""
        return self._json("GET", self._device_path(project, device) + "/tray")

    def outcomes(self, project: str, device: str) -> Dict[str, Any]:
        """``getOutcomes``: why a message did or did not arrive: the device's last 16 outcomes
        (``outcomes``, newest first: ``time``, ``kind``, ``messageId``, ``reason``, ``summary``; ``status``
        and ``code`` of a refusal), the messages it holds (``stored``) and the newest in one sentence
        (``story``). Kept per device, so the event log's eviction does not erase them."""
        return self._json("GET", self._device_path(project, device) + "/outcomes")

    def show_notification(self, project: str, device: str, message_id: str, *, tag: Optional[str] = None) -> Dict[str, Any]:
        """``showNotification``: the app shows a notification for a message it received (a shown
        notification resets the count toward deprioritized high priority)."""
        body = {"messageId": message_id, "tag": tag}
        return self._json("POST", self._device_path(project, device) + "/tray",
                          body={k: v for k, v in body.items() if v is not None})

    def clear_tray(self, project: str, device: str) -> None:
        """``clearTray``: the user clears the app's notifications."""
        self.request("DELETE", self._device_path(project, device) + "/tray")

    def send_upstream(self, project: str, device: str, data: Mapping[str, str], *, message_id: Optional[str] = None,
                      ttl: Optional[str] = None) -> Dict[str, Any]:
        """``sendUpstream``: the device sends an upstream message to its app server over XMPP."""
        body: Dict[str, Any] = {"data": dict(data)}
        if message_id is not None:
            body["messageId"] = message_id
        if ttl is not None:
            body["ttl"] = ttl
        return self._json("POST", self._device_path(project, device) + ":upstream", body)


class Project:
    """One project of a :class:`Client`: the project-scoped calls with the project filled in.

    Obtained from :meth:`Client.project` (or the ``fcm_project`` pytest fixture).
    """

    def __init__(self, client: Client, project_id: str) -> None:
        self.client = client
        self.id = project_id

    def __repr__(self) -> str:
        return f"Project({self.id!r})"

    def info(self) -> ProjectInfo:
        """The project's id, number (sender id) and server keys."""
        return self.client.get_project(self.id)

    @property
    def number(self) -> str:
        """The project number, i.e. the sender id (one call)."""
        return self.info().number

    def delete(self) -> None:
        """Deletes the project and everything in it."""
        self.client.delete_project(self.id)

    def reset(self) -> None:
        """Removes the project's devices, topics and groups."""
        self.client.reset_project(self.id)

    def service_account(self) -> Dict[str, Any]:
        """A service-account key file (JSON) whose ``token_uri`` points at the emulator."""
        return self.client.service_account(self.id)

    def create_access_token(self) -> AccessToken:
        """An OAuth bearer for the project's v1 API."""
        return self.client.create_access_token(self.id)

    def revoke_access_tokens(self) -> None:
        """Makes every bearer issued until now get 401 on its next v1 call."""
        self.client.revoke_access_tokens(self.id)

    def update(self, *, api_enabled: Optional[bool] = None) -> ProjectInfo:
        """Turns the project's v1 API on or off (off: every v1 call answers 403 SERVICE_DISABLED)."""
        return self.client.update_project(self.id, api_enabled=api_enabled)

    def topics(self) -> List[Topic]:
        """Topics with subscriber counts."""
        return self.client.topics(self.id)

    def groups(self) -> List[Group]:
        """Legacy device groups."""
        return self.client.groups(self.id)

    def xmpp_connections(self) -> List[XMPPConnection]:
        """Bound XMPP (CCS) connections."""
        return self.client.xmpp_connections(self.id)

    def drain_xmpp(self) -> None:
        """CONNECTION_DRAINING to every XMPP connection of the project."""
        self.client.drain_xmpp(self.id)

    def events(self, **filters: Any) -> EventList:
        """The project's events (see :meth:`Client.project_events`)."""
        return self.client.project_events(self.id, **filters)

    def stream_events(self, **filters: Any) -> EventStream:
        """The project's events, live (see :meth:`Client.stream_project_events`)."""
        return self.client.stream_project_events(self.id, **filters)

    def list_devices(self, *, offset: Optional[int] = None, limit: Optional[int] = None) -> DevicePage:
        """One page of devices, oldest first."""
        return self.client.list_devices(self.id, offset=offset, limit=limit)

    def devices(self) -> List[Device]:
        """Every device of the project."""
        return list(self.client.iter_devices(self.id))

    def create_device(self, platform: str = "android", **fields: Any) -> Device:
        """See :meth:`Client.create_device`."""
        return self.client.create_device(self.id, platform, **fields)

    def create_devices(self, count: int, platform: str = "android", **fields: Any) -> List[Device]:
        """``count`` identical devices (see :meth:`Client.create_devices`)."""
        return self.client.create_devices(self.id, count, platform, **fields)

    def device(self, device: str) -> Device:
        """Reads a device by id, name, token or FID."""
        return self.client.get_device(self.id, device)
