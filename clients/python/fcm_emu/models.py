"""The control API's resources as Python values.

Stable shapes are dataclasses with snake_case fields; every one also keeps the JSON it was read from
in ``raw`` (camelCase keys, as the API writes them), so that fields added to the API later are not
lost. Open-ended shapes (fault rules, snapshot manifests, ``info``) are plain dicts, described by the
TypedDicts below for type checkers.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Literal, Mapping, Optional, Type, TypeVar, Union

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

from typing import TypedDict

__all__ = [
    "State", "Platform", "ProjectInfo", "Device", "Delivery", "Inbox", "Event", "EventList", "Clock",
    "Topic", "Group", "AccessToken", "XMPPConnection", "FaultRule", "FaultMatch", "FaultAction",
]

State = Literal["foreground", "background", "doze", "offline", "uninstalled"]
Platform = Literal["android", "ios", "web"]

T = TypeVar("T")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _build(cls: Type[T], data: Mapping[str, Any], **extra: Any) -> T:
    """Creates dataclass ``cls`` from API JSON: camelCase keys to fields, unknown keys kept in raw."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: Dict[str, Any] = {}
    for key, value in data.items():
        name = _snake(key)
        if name in names and name != "raw":
            values[name] = value
    values.update(extra)
    return cls(raw=dict(data), **values)  # type: ignore[call-arg]


@dataclass
class ProjectInfo:
    """A project as the emulator keeps it: its id, number (the sender id) and legacy server keys.

    ``api_enabled`` is False while every v1 call of the project answers 403 SERVICE_DISABLED.
    """

    id: str
    number: str = ""
    sender_id: str = ""
    server_keys: List[str] = field(default_factory=list)
    created_at: Optional[str] = None
    api_enabled: bool = True
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ProjectInfo":
        return _build(cls, data)


@dataclass
class Device:
    """A simulated device (one app install), as the API last described it.

    A Device read through a :class:`~fcm_emu.Client` is bound to it, so it can be driven directly:
    ``device.set_state("doze")``, ``device.inbox(wait_for=1)``. The bound methods return fresh
    values and leave this one as it was, except :meth:`reload`, which updates it in place.
    """

    id: str
    project_id: str
    platform: str
    token: str
    state: str
    name: Optional[str] = None
    app_id: Optional[str] = None
    fid: Optional[str] = None
    token_valid: Optional[bool] = None
    senders: List[str] = field(default_factory=list)
    topics: List[str] = field(default_factory=list)
    created_at: Optional[str] = None
    last_connected_at: Optional[str] = None
    stored_count: int = 0
    stored_collapsible: int = 0
    stored_non_collapsible: int = 0
    last_delivery_at: Optional[str] = None
    delivered_count: int = 0
    deleted_messages_pending: bool = False
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    client: Optional["Client"] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], client: Optional["Client"] = None) -> "Device":
        return _build(cls, data, client=client)

    def _bound(self) -> "Client":
        if self.client is None:
            raise RuntimeError("this Device is not bound to a Client; read it through Client or Project")
        return self.client

    def reload(self) -> "Device":
        """Reads the device again and updates this object's fields; returns it."""
        fresh = self._bound().get_device(self.project_id, self.id)
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(fresh, f.name))
        return self

    def inbox(self, *, wait_for: Optional[int] = None, timeout: Optional[float] = None) -> "Inbox":
        """What the app received; with ``wait_for``, waits (server side) until that many deliveries."""
        return self._bound().inbox(self.project_id, self.id, wait_for=wait_for, timeout=timeout)

    def clear_inbox(self) -> None:
        """Empties the inbox."""
        self._bound().clear_inbox(self.project_id, self.id)

    def events(self, **filters: Any) -> "EventList":
        """The device's events; takes the filters of :meth:`Client.events`."""
        return self._bound().device_events(self.project_id, self.id, **filters)

    def set_state(self, state: State) -> "Device":
        """Moves the app to ``state`` (foreground, background, doze, offline, uninstalled)."""
        return self._bound().update_device(self.project_id, self.id, state=state)

    def set_senders(self, senders: List[str]) -> "Device":
        """Sets the sender ids (project numbers) allowed to message this install."""
        return self._bound().update_device(self.project_id, self.id, senders=senders)

    def uninstall(self) -> "Device":
        """Uninstalls the app: the next delivery attempt invalidates its token."""
        return self._bound().uninstall_device(self.project_id, self.id)

    def refresh_token(self, token: Optional[str] = None) -> "Device":
        """Issues a new token (or the one given); reinstalls an uninstalled app."""
        return self._bound().refresh_token(self.project_id, self.id, token=token)

    def subscribe(self, topic: str) -> "Device":
        """Subscribes the device to ``topic``."""
        return self._bound().subscribe(self.project_id, self.id, topic)

    def unsubscribe(self, topic: str) -> "Device":
        """Unsubscribes the device from ``topic``."""
        return self._bound().unsubscribe(self.project_id, self.id, topic)

    def send_upstream(self, data: Mapping[str, str], *, message_id: Optional[str] = None,
                      ttl: Optional[str] = None) -> Dict[str, Any]:
        """The device sends an upstream message to its app server over XMPP."""
        return self._bound().send_upstream(self.project_id, self.id, data, message_id=message_id, ttl=ttl)

    def delete(self) -> None:
        """Deletes the device; its token then answers as unregistered."""
        self._bound().delete_device(self.project_id, self.id)


@dataclass
class Delivery:
    """One thing the app received: a message (``payload`` as the platform renders it) or a
    ``deletedMessages`` notice."""

    kind: str = "message"
    message_id: Optional[str] = None
    time: Optional[str] = None
    handling: Optional[str] = None
    callback: Optional[str] = None
    app_state: Optional[str] = None
    priority: Optional[str] = None
    original_priority: Optional[str] = None
    collapse_key: Optional[str] = None
    ttl: Optional[str] = None
    api: Optional[str] = None
    payload: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Delivery":
        return _build(cls, data)

    @property
    def data(self) -> Dict[str, Any]:
        """The message's data fields, wherever the platform puts them (Android ``data``, iOS
        top-level keys, web ``data``)."""
        payload = self.payload or {}
        if isinstance(payload.get("data"), dict):
            return payload["data"]
        return {k: v for k, v in payload.items() if k not in ("aps", "fcm_options", "gcm.message_id")}


@dataclass
class Inbox:
    """A device's inbox. Iterating it yields its deliveries, oldest first.

    ``satisfied`` is ``None`` for a plain read; after a ``wait_for`` read it says whether the count
    was reached (``True``) or the wait timed out (``False``).
    """

    device: Optional[Device]
    deliveries: List[Delivery]
    satisfied: Optional[bool] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __iter__(self) -> Iterator[Delivery]:
        return iter(self.deliveries)

    def __len__(self) -> int:
        return len(self.deliveries)

    def __getitem__(self, index: int) -> Delivery:
        return self.deliveries[index]


@dataclass
class Event:
    """One entry of the event log (``kind`` such as accepted, stored, delivered, expired)."""

    sequence: int = 0
    time: Optional[str] = None
    kind: str = ""
    device: Optional[str] = None
    message_id: Optional[str] = None
    related_message_id: Optional[str] = None
    target: Optional[str] = None
    detail: Optional[str] = None
    project: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Event":
        return _build(cls, data)


class EventList(List[Event]):
    """A list of events, with ``satisfied`` as for :class:`Inbox` (``None`` without a wait)."""

    satisfied: Optional[bool]

    def __init__(self, events: List[Event], satisfied: Optional[bool] = None) -> None:
        super().__init__(events)
        self.satisfied = satisfied

    def kinds(self) -> List[str]:
        """The events' kinds, in order: handy in assertions."""
        return [event.kind for event in self]


@dataclass
class Clock:
    """The emulator's clock: ``mode`` virtual or wall, ``paused``, ``speed``, pending timers."""

    now: str = ""
    now_millis: int = 0
    mode: str = "wall"
    paused: bool = False
    speed: float = 1.0
    next_timer: Optional[str] = None
    pending_timers: int = 0
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Clock":
        return _build(cls, data)


@dataclass
class Topic:
    """A topic and how many devices are subscribed to it."""

    name: str
    subscribers: int = 0
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Topic":
        return _build(cls, data)


@dataclass
class Group:
    """A legacy device group (``notification_key``)."""

    name: str = ""
    notification_key: str = ""
    tokens: List[str] = field(default_factory=list)
    created_at: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Group":
        return _build(cls, data)


@dataclass
class AccessToken:
    """An OAuth bearer for a project's HTTP v1 API."""

    access_token: str
    token_type: str = "Bearer"
    expires_in: int = 0
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "AccessToken":
        return _build(cls, data)


@dataclass
class XMPPConnection:
    """A bound XMPP (CCS) connection of a project."""

    id: str
    sender: str = ""
    state: str = "active"
    in_flight: int = 0
    connected_at: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "XMPPConnection":
        return _build(cls, data)


class FaultMatch(TypedDict, total=False):
    """Which calls a fault rule applies to (all keys optional)."""

    api: Literal["v1", "legacy", "iid", "batch", "oauth", "xmpp", "webpush", "installations", "registrations", "checkin"]
    route: str
    project: str
    target: str
    device: str
    nth: int
    every: int
    probability: float
    count: int


class FaultAction(TypedDict, total=False):
    """What a fault rule does: one of ``error`` (an FCM error code), ``status``, ``latency``,
    ``reset``, ``html502``, ``drain``; ``retryAfter`` with an error or status."""

    error: str
    status: int
    retryAfter: Union[int, str]
    latency: str
    reset: bool
    html502: bool
    drain: bool


class _FaultRuleRequired(TypedDict):
    action: FaultAction


class FaultRule(_FaultRuleRequired, total=False):
    """A fault rule, as sent and as returned (``match`` and ``id`` optional; ``from``/``until``
    RFC 3339 times may also appear in ``match``)."""

    id: str
    match: FaultMatch
