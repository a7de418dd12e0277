"""Assertions on what a simulated device received, for pytest or any test runner.

They wait with the inbox's own server-side wait (``waitFor``/``timeout``), never by sleeping, and
fail with an ``AssertionError`` that says why, as far as the emulator knows: what became of the
device's messages (the device's outcomes: discarded, refused, expired, …, or held while the device
is offline), the delivery that came nearest to a ``where`` dict and its first differing field,
then what the inbox did hold.

``where`` selects deliveries: a dict is a subset to find in the delivery's JSON (nested dicts
match recursively; a key with dots, ``"payload.data.score"``, is a path), or a callable taking the
:class:`~fcm_emu.Delivery` and returning a bool.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, List, Mapping, Optional, Union

from . import _why
from .models import Delivery, Device

__all__ = ["assert_delivered", "assert_nothing_delivered", "assert_delivered_count", "matches"]

Where = Union[Mapping[str, Any], Callable[[Delivery], bool], None]

_MISSING = object()


def _lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, Mapping) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return _MISSING
    return data


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return False
        for key, value in expected.items():
            got = actual.get(key, _MISSING) if key in actual else _lookup(actual, key) if "." in key else _MISSING
            if got is _MISSING or not _subset(value, got):
                return False
        return True
    return expected == actual


def matches(delivery: Delivery, where: Where) -> bool:
    """Whether ``delivery`` is selected by ``where`` (everything matches ``None``)."""
    if where is None:
        return True
    if callable(where):
        return bool(where(delivery))
    return _subset(where, delivery.raw or {})


def _describe_where(where: Where) -> str:
    if where is None:
        return "any delivery"
    if callable(where):
        return f"a delivery matching {getattr(where, '__name__', repr(where))}"
    return f"a delivery matching {json.dumps(where, default=str)}"


def _describe_device(device: Device) -> str:
    name = f" {device.name!r}" if device.name else ""
    return f"device {device.id}{name} ({device.platform}, project {device.project_id}, token {device.token[:24]}…)"


def _describe_inbox(deliveries: List[Delivery]) -> str:
    if not deliveries:
        return "the inbox was empty"
    lines = [f"the inbox held {len(deliveries)} deliveries:"]
    for index, delivery in enumerate(deliveries, 1):
        raw = dict(delivery.raw)
        text = json.dumps(raw, sort_keys=True, default=str)
        if len(text) > 600:
            text = text[:600] + "…"
        lines.append(f"  {index}. {text}")
    return "\n".join(lines)


def _why_none_came(device: Device, where: Where, deliveries: List[Delivery]) -> str:
    """``": <reasons>"`` for a failure message: the device's outcomes first, then the nearest miss."""
    reasons = _why.outcome_reasons(_why.device_outcomes(device), device)
    miss = _why.nearest_miss(where, [d.raw or {} for d in deliveries if not matches(d, where)])
    if miss:
        reasons.append(miss)
    return ": " + "; ".join(reasons) if reasons else ""


def _require_bound(device: Device) -> None:
    if not isinstance(device, Device) or device.client is None:
        raise TypeError("pass a Device read through fcm_emu's Client (e.g. fcm_project.create_device())")


def _collect(device: Device, where: Where, want: int, within: float) -> List[Delivery]:
    """Reads the inbox until ``want`` deliveries match or ``within`` seconds pass; returns every
    delivery seen in the last read. Each round waits, server side, for one more delivery."""
    client = device.client
    assert client is not None
    deadline = time.monotonic() + within
    inbox = client.inbox(device.project_id, device.id)
    while True:
        if sum(1 for d in inbox.deliveries if matches(d, where)) >= want:
            return inbox.deliveries
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return inbox.deliveries
        inbox = client.inbox(device.project_id, device.id, wait_for=len(inbox.deliveries) + 1, timeout=remaining)
        if inbox.satisfied is False:
            return inbox.deliveries


def assert_delivered(device: Device, where: Where = None, *, within: float = 10.0,
                     count: Optional[int] = None) -> Any:
    """Asserts that ``device`` receives a delivery matching ``where`` within ``within`` seconds
    (wall time) and returns it (the first match).

    With ``count=N`` it asserts that exactly N deliveries match, once N have arrived, and returns
    the list of them. The inbox is read at once, and then awaited with the emulator's ``waitFor``
    until enough match; on a paused or virtual clock, advance the clock before asserting.
    """
    _require_bound(device)
    want = 1 if count is None else count
    deliveries = _collect(device, where, want, within)
    found = [d for d in deliveries if matches(d, where)]
    if count is None:
        if found:
            return found[0]
        raise AssertionError(f"expected {_describe_where(where)} on {_describe_device(device)} within "
                             f"{within:g}s, but none came{_why_none_came(device, where, deliveries)}; "
                             f"{_describe_inbox(deliveries)}")
    if len(found) != count:
        why = _why_none_came(device, where, deliveries) if len(found) < count else ""
        raise AssertionError(f"expected {count} deliveries ({_describe_where(where)}) on "
                             f"{_describe_device(device)} within {within:g}s, got {len(found)}{why}; "
                             f"{_describe_inbox(deliveries)}")
    return found


def assert_delivered_count(device: Device, count: int, where: Where = None, *,
                           within: Optional[float] = None) -> List[Delivery]:
    """Exactly ``count`` deliveries match ``where``: ``assert_delivered(device, where, count=count)``
    (``within`` defaults to 10 s), or for ``count=0`` :func:`assert_nothing_delivered` (which by
    default looks once, now)."""
    if count == 0:
        assert_nothing_delivered(device, where, within=within or 0.0)
        return []
    found: List[Delivery] = assert_delivered(device, where, within=10.0 if within is None else within, count=count)
    return found


def assert_nothing_delivered(device: Device, where: Where = None, *, within: float = 0.0) -> None:
    """Asserts that ``device``'s inbox holds no delivery matching ``where``.

    By default it looks once, now. With ``within`` it also waits up to that many seconds (wall
    time, through the inbox's ``waitFor``) for one to arrive, and fails if one does. To prove that
    something is *never* delivered (a stored message expiring, Doze holding it), move the
    emulator's clock past the moment instead of waiting.
    """
    _require_bound(device)
    deliveries = _collect(device, where, 1, within)
    found = [d for d in deliveries if matches(d, where)]
    if found:
        what = "delivery" if where is None else _describe_where(where)[len("a "):]
        raise AssertionError(f"expected no {what} on "
                             f"{_describe_device(device)}, but {len(found)} arrived; {_describe_inbox(deliveries)}")
