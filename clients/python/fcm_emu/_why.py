"""Why an assertion failed: what the emulator did with the device's messages, the nearest miss of a
``where``, and fault rules that a test added but that never fired.

Private to the package: :mod:`fcm_emu.assertions` and the pytest plugin use it.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from .errors import FcmEmuError

__all__ = ["UnusedFaultRuleWarning"]

_MISSING = object()

# Outcomes that say nothing about a message going astray.
_QUIET = {"accepted", "delivered", "stored"}
# Outcomes of a message the server accepted and then dropped: "message 0:17… was discarded: …".
_OF_A_MESSAGE = {"discarded", "collapsed", "evicted", "expired"}


class UnusedFaultRuleWarning(UserWarning):
    """A fault rule that a test added (or that names the test's project) never fired: the calls it
    was meant to break did not match it."""


def device_outcomes(device: Any) -> Optional[Dict[str, Any]]:
    """``GET …/devices/{device}/outcomes``, or None when the emulator has no such route (an older
    one), does not know the device, or cannot be asked: a failing assertion must still fail with
    what it knows."""
    from .client import _segment

    client = device.client
    try:
        answer = client.request("GET", f"/projects/{_segment(device.project_id)}/devices/{_segment(device.id)}/outcomes")
        document = answer.json()
    except (FcmEmuError, ValueError, OSError):
        return None
    return document if isinstance(document, dict) else None


def _held(state: Any, stored: Any) -> Optional[str]:
    if isinstance(stored, int) and not isinstance(stored, bool) and stored > 0:
        return f"held: device {state or 'unknown'}, {stored} stored"
    return None


def _outcome_text(outcome: Mapping[str, Any]) -> str:
    kind = str(outcome.get("kind", "?"))
    summary = str(outcome.get("summary") or kind)
    message_id = outcome.get("messageId")
    if message_id and kind in _OF_A_MESSAGE:
        return f"message {message_id} was {summary}"
    return summary


def outcome_reasons(document: Optional[Mapping[str, Any]], device: Any) -> List[str]:
    """The reasons to lead a failure with: the newest outcome that lost or refused a message (the
    list is newest first, and a send comes before the assertion that waits for it), then what the
    device holds back, if anything. Without an outcomes document, what the device read says."""
    reasons: List[str] = []
    if document is not None:
        outcomes = [o for o in document.get("outcomes") or [] if isinstance(o, Mapping)]
        lost = [o for o in outcomes if o.get("kind") not in _QUIET]
        if lost:
            reasons.append(_outcome_text(lost[0]))
        described = document.get("device") if isinstance(document.get("device"), Mapping) else {}
        held = _held(described.get("state"), document.get("stored"))
        stored = next((o for o in outcomes if o.get("kind") == "stored"), None)
        if held and stored and str(stored.get("summary", "")).startswith("held: "):
            held = str(stored["summary"])  # the server's words: why it holds them (offline, Doze, …)
    else:
        held = _refreshed_held(device)
    if held:
        reasons.append(held)
    return reasons


def _refreshed_held(device: Any) -> Optional[str]:
    try:
        now = device.client.get_device(device.project_id, device.id)
    except (FcmEmuError, OSError):
        return None
    return _held(now.state, now.stored_count)


# -- the nearest miss ---------------------------------------------------------------------------

def _leaves(spec: Mapping[str, Any], keys: Tuple[str, ...] = ()) -> Iterable[Tuple[Tuple[str, ...], Any]]:
    for key, value in spec.items():
        if isinstance(value, Mapping) and value:
            yield from _leaves(value, keys + (str(key),))
        else:
            yield keys + (str(key),), value


def _resolve(data: Any, keys: Tuple[str, ...]) -> Any:
    from .assertions import _lookup

    # As assertions._subset reads a key: literally first, then as a dotted path.
    for key in keys:
        if isinstance(data, Mapping) and key in data:
            data = data[key]
        elif "." in key:
            data = _lookup(data, key)
        else:
            return _MISSING
        if data is _MISSING:
            return _MISSING
    return data


def _shown(value: Any) -> str:
    return "missing" if value is _MISSING else repr(value)


def nearest_miss(where: Any, raws: List[Mapping[str, Any]]) -> Optional[str]:
    """For a dict ``where`` and deliveries none of which matched: the delivery with the fewest
    differing fields, and its first difference."""
    from .assertions import _subset

    if not isinstance(where, Mapping) or not where or not raws:
        return None
    leaves = list(_leaves(where))
    best: Optional[List[Tuple[str, Any, Any]]] = None
    for raw in raws:
        differing = []
        for keys, wanted in leaves:
            got = _resolve(raw, keys)
            if got is _MISSING or not _subset(wanted, got):
                differing.append((".".join(keys), got, wanted))
        if differing and (best is None or len(differing) < len(best)):
            best = differing
    if not best:
        return None
    path, got, wanted = best[0]
    difference = f"{path}: {_shown(got)}, wanted {_shown(wanted)}"
    if len(leaves) == 1:
        return f"the nearest delivery has {difference}"
    if len(best) == 1:
        return f"a delivery matched all but {difference}"
    return f"the nearest delivery differs in {len(best)} of {len(leaves)} fields, first {difference}"


# -- fault rules that never fired ---------------------------------------------------------------

def fault_rule_ids(client: Any) -> Optional[Set[str]]:
    """The ids of the rules in force now, or None when they cannot be read."""
    try:
        return {str(rule.get("id")) for rule in client.faults()}
    except (FcmEmuError, OSError):
        return None


def unused_fault_rules(client: Any, project_id: str, before: Optional[Set[str]]) -> List[Dict[str, Any]]:
    """Rules that never fired and belong to the test: they name its project, or they were added
    since ``before`` (the ids at its start) and name no other project. Rules are the emulator's,
    not a project's, so deleting the project leaves them in force."""
    try:
        rules = client.faults()
    except (FcmEmuError, OSError):
        return []
    unused = []
    for rule in rules:
        if not isinstance(rule, Mapping) or rule.get("fired", 0) != 0:
            continue
        match = rule.get("match") if isinstance(rule.get("match"), Mapping) else {}
        named = match.get("project")
        if named == project_id or (named is None and before is not None and str(rule.get("id")) not in before):
            unused.append(dict(rule))
    return unused


def describe_unused(rule: Mapping[str, Any], test: str) -> str:
    match = json.dumps(rule.get("match", {}), sort_keys=True)
    action = json.dumps(rule.get("action", {}), sort_keys=True)
    return (f"fcm-emu: fault rule {rule.get('id')!r} never fired during {test} (match {match}, action {action}): "
            "no call matched it, so the failure it was meant to cause was not tested; check its api, route, "
            "project, target and device")


def warn_unused(client: Any, project_id: str, before: Optional[Set[str]], test: str) -> List[str]:
    """Warns (:class:`UnusedFaultRuleWarning`) once per unused rule; returns the texts."""
    texts = [describe_unused(rule, test) for rule in unused_fault_rules(client, project_id, before)]
    for text in texts:
        try:
            warnings.warn(UnusedFaultRuleWarning(text), stacklevel=2)
        except UnusedFaultRuleWarning:
            # A suite run with -W error: the report section still says it, and the test passes.
            pass
    return texts
