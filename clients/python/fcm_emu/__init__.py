"""fcm-emu for Python: run the local Firebase Cloud Messaging emulator from tests.

* :class:`Emulator` starts one on free ports (or :meth:`Emulator.attach` to a running one);
* :class:`Client` is the control API (projects, devices, inboxes, events, faults, clock,
  snapshots, service accounts, XMPP);
* :class:`FirebaseEnvironment` points an unmodified Admin SDK in this process at it;
* :func:`assert_delivered` and friends check what a device received;
* the pytest plugin (``fcm_emulator``, ``fcm_project``, ``fcm_firebase_env``, ``fcm_firebase_app``)
  is loaded by pytest automatically once the package is installed.
"""

from __future__ import annotations


def _version() -> str:
    try:
        from ._version import __version__ as version  # type: ignore[import-not-found]  # written by build_wheel.py

        return str(version)
    except ImportError:
        pass
    try:
        from importlib.metadata import PackageNotFoundError, version as distribution_version

        try:
            return distribution_version("fcm-emu")
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    return "0+unknown"


__version__ = _version()

from ._binary import bundled_binary, find_binary  # noqa: E402
from ._why import UnusedFaultRuleWarning  # noqa: E402
from .assertions import assert_delivered, assert_delivered_count, assert_nothing_delivered, matches  # noqa: E402
from .client import CONTROL_API_ENV, Client, DevicePage, EventStream, Project, Response, StreamMessage  # noqa: E402
from .emulator import Emulator  # noqa: E402
from .environment import FirebaseEnvironment, GoogleRoute, TrustPlan, ca_bundle, trust_plan  # noqa: E402
from .receiver import Receiver  # noqa: E402
from .errors import BinaryNotFound, EmulatorNotReady, FcmEmuError, UntrustedEmulator  # noqa: E402
from .models import (  # noqa: E402
    AccessToken, Clock, Delivery, Device, Event, EventList, FaultAction, FaultMatch, FaultRule, Group, Inbox,
    Platform, ProjectInfo, State, Topic, XMPPConnection,
)

__all__ = [
    "__version__", "Emulator", "Client", "Project", "Response", "DevicePage", "EventStream", "StreamMessage",
    "FirebaseEnvironment", "GoogleRoute", "TrustPlan", "trust_plan", "ca_bundle", "Receiver", "assert_delivered",
    "assert_delivered_count", "assert_nothing_delivered", "matches", "FcmEmuError", "EmulatorNotReady",
    "BinaryNotFound", "UntrustedEmulator", "UnusedFaultRuleWarning", "find_binary",
    "bundled_binary", "CONTROL_API_ENV", "AccessToken", "Clock", "Delivery", "Device", "Event", "EventList",
    "FaultAction", "FaultMatch", "FaultRule", "Group", "Inbox", "Platform", "ProjectInfo", "State", "Topic",
    "XMPPConnection",
]
