"""Shared helpers for the package's own tests. They run against a real emulator (FCM_EMU_BIN), through
the package's pytest plugin (installed with the package, see ../run-tests)."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any, Dict, Optional

import pytest

from fcm_emu import Emulator, Project

pytest_plugins = ["pytester"]


def send(emulator: Emulator, project: Project, message: Dict[str, Any], *, bearer: Optional[str] = None) -> Dict[str, Any]:
    """An HTTP v1 messages:send on the emulator's plain HTTP port, with a bearer minted through the
    control API (what an SDK would get from the token endpoint)."""
    bearer = bearer or project.create_access_token().access_token
    request = urllib.request.Request(
        f"{emulator.http_url}/v1/projects/{project.id}/messages:send", data=json.dumps({"message": message}).encode(),
        headers={"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"}, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture
def bearer(fcm_project: Project) -> str:
    return fcm_project.create_access_token().access_token


@pytest.fixture(scope="module")
def paused_emulator() -> Any:
    """An emulator of its own whose clock only moves when a test advances it (the session's one is
    shared, so its clock is left alone)."""
    with Emulator(settings={"clockPaused": True}) as emulator:
        yield emulator


def system_ca_file() -> str:
    import ssl

    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile, "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and os.path.isfile(candidate):
            return candidate
    pytest.skip("no system CA bundle on this machine")
    raise AssertionError  # unreachable
