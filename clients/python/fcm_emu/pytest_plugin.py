"""pytest plugin of fcm-emu (registered through the ``pytest11`` entry point ``fcm_emu``).

Fixtures:

``fcm_emulator`` (session)
    An :class:`~fcm_emu.Emulator`: one started for the session on free ports (with its HTTPS
    proxy), or the running one named by ``FCM_EMU_CONTROL_API`` when that is set.
``fcm_client`` (session)
    Its control API :class:`~fcm_emu.Client`.
``fcm_project`` (function)
    A fresh :class:`~fcm_emu.Project` with a unique id, deleted after the test. A fault rule that
    the test added (or that names the project) and that never fired is reported then, as an
    :class:`~fcm_emu.UnusedFaultRuleWarning` (in the warnings summary) and in the test's report
    (section "fcm-emu"); the test does not fail for it.
``fcm_firebase_env`` (function)
    A :class:`~fcm_emu.FirebaseEnvironment` for ``fcm_project``, entered for the test: an
    unmodified firebase-admin in the test process (``initialize_app()`` with no arguments, ADC)
    then reaches the emulator. Every variable is restored after the test.
``fcm_firebase_app`` (function)
    A ``firebase_admin.App`` for ``fcm_project`` inside that environment, deleted after.

Options: ``--fcm-emu-bin PATH`` (else ``FCM_EMU_BIN``, the bundled binary, PATH), and the ini
setting ``fcm_emu_settings`` (lines of ``key=value``, passed as ``serve --set``). For an emulator on
another machine (``FCM_EMU_CONTROL_API`` not on loopback): ``--fcm-emu-ca-file PATH`` (else
``FCM_EMU_CA_FILE``), its CA certificate, the only way its CA is trusted over plain HTTP; and
``--fcm-emu-proxy URL`` (else ``FCM_EMU_PROXY``), the HTTPS proxy to set, since the one such an
emulator reports is never used (see :func:`fcm_emu.environment.trust_plan`).
"""

from __future__ import annotations

import re
import secrets
from typing import Any, Dict, Iterator, List

import pytest

from . import _why
from .client import CONTROL_API_ENV, Client, Project, is_loopback_url
from .emulator import Emulator
from .environment import FirebaseEnvironment
from .errors import FcmEmuError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fcm-emu", "fcm-emu (local Firebase Cloud Messaging emulator)")
    group.addoption("--fcm-emu-bin", dest="fcm_emu_bin", default=None,
                    help="the fcm-emu binary to start (default: $FCM_EMU_BIN, the bundled one, PATH)")
    group.addoption("--fcm-emu-ca-file", dest="fcm_emu_ca_file", default=None,
                    help="the CA certificate (PEM) of an emulator on another machine named by $FCM_EMU_CONTROL_API: "
                         "the only way its CA is trusted when its control API is plain HTTP (default: $FCM_EMU_CA_FILE)")
    group.addoption("--fcm-emu-proxy", dest="fcm_emu_proxy", default=None,
                    help="the HTTPS proxy to set for an emulator on another machine; the one it reports is never "
                         "used (default: $FCM_EMU_PROXY)")
    parser.addini("fcm_emu_settings", type="linelist", default=[],
                  help="emulator settings for the session's emulator, one key=value per line (serve --set)")


def _settings(config: pytest.Config) -> Dict[str, str]:
    settings: Dict[str, str] = {}
    for line in config.getini("fcm_emu_settings"):
        key, sep, value = line.partition("=")
        if not sep:
            raise pytest.UsageError(f"fcm_emu_settings: {line!r} is not key=value")
        settings[key.strip()] = value.strip()
    return settings


@pytest.fixture(scope="session")
def fcm_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """The session's emulator: started on free ports, or attached to ``$FCM_EMU_CONTROL_API``."""
    import os

    if os.environ.get(CONTROL_API_ENV):
        yield Emulator.attach(ca_file=request.config.getoption("fcm_emu_ca_file"))
        return
    emulator = Emulator(request.config.getoption("fcm_emu_bin"), settings=_settings(request.config))
    emulator.start()
    try:
        yield emulator
    finally:
        emulator.stop()


@pytest.fixture(scope="session")
def fcm_client(fcm_emulator: Emulator) -> Client:
    """The control API client of the session's emulator."""
    return fcm_emulator.client


def _project_id(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower().removeprefix("test_").removeprefix("test")).strip("-")
    slug = slug[:18].strip("-") or "t"
    if not slug[0].isalpha():
        slug = "t-" + slug[:16]
    return f"{slug}-{secrets.token_hex(4)}"[:30]


@pytest.fixture
def fcm_project(request: pytest.FixtureRequest, fcm_client: Client) -> Iterator[Project]:
    """A fresh project for this test, with a unique id made from the test's name; deleted after."""
    project_id = _project_id(request.node.name)
    fcm_client.create_project(project_id)
    project = fcm_client.project(project_id)
    rules_before = _why.fault_rule_ids(fcm_client)
    try:
        yield project
    finally:
        unused = _why.warn_unused(fcm_client, project_id, rules_before, request.node.nodeid)
        if unused:
            request.node.add_report_section("teardown", "fcm-emu", "\n".join(unused))
        try:
            fcm_client.delete_project(project_id)
        except FcmEmuError:
            pass


@pytest.fixture
def fcm_firebase_env(fcm_emulator: Emulator, fcm_project: Project,
                     request: pytest.FixtureRequest) -> Iterator[FirebaseEnvironment]:
    """The environment that points an unmodified Admin SDK at ``fcm_project`` (see
    :class:`~fcm_emu.FirebaseEnvironment`); restored after the test.

    A default firebase-admin app that the test initialised inside it is deleted after the test,
    since its project goes away with ``fcm_project``.
    """
    had_default = _default_app_exists()
    proxy = request.config.getoption("fcm_emu_proxy") or True
    with FirebaseEnvironment(fcm_emulator, fcm_project.id, proxy=proxy) as environment:
        try:
            yield environment
        finally:
            if not had_default and _default_app_exists():
                _delete_app(None)


def _default_app_exists() -> bool:
    import sys

    firebase_admin = sys.modules.get("firebase_admin")
    if firebase_admin is None:
        return False
    try:
        firebase_admin.get_app()
        return True
    except ValueError:
        return False


def _delete_app(app: Any) -> None:
    import firebase_admin  # type: ignore[import-untyped]

    try:
        firebase_admin.delete_app(app if app is not None else firebase_admin.get_app())
    except Exception:
        # firebase-admin 7 closes its httpx client with asyncio.run(), which fails once
        # send_each_async ran in a loop of its own; the app is unregistered before that happens.
        pass


@pytest.fixture
def fcm_firebase_app(fcm_firebase_env: FirebaseEnvironment, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A ``firebase_admin.App`` for ``fcm_project``, made as an application would make it
    (``initialize_app`` with the key file's credentials, nothing patched); deleted after."""
    firebase_admin = pytest.importorskip("firebase_admin")
    from firebase_admin import credentials  # type: ignore[import-untyped]

    app = firebase_admin.initialize_app(
        credentials.Certificate(str(fcm_firebase_env.key_file)),
        name=f"fcm-emu-{fcm_firebase_env.project_id}",
    )
    try:
        yield app
    finally:
        _delete_app(app)


def pytest_report_header(config: pytest.Config) -> List[str]:
    import os

    if os.environ.get(CONTROL_API_ENV):
        url = os.environ[CONTROL_API_ENV]
        where = "" if is_loopback_url(url) else (
            " (not on loopback: its CA only from --fcm-emu-ca-file/FCM_EMU_CA_FILE or over https://, "
            "no proxy it reports, no control token over plain HTTP)")
        return [f"fcm-emu: attaching to {url}{where}"]
    try:
        from ._binary import find_binary

        return [f"fcm-emu: {find_binary(config.getoption('fcm_emu_bin'))}"]
    except Exception as error:  # a missing binary is reported when a fixture needs it
        return [f"fcm-emu: {error}"]
