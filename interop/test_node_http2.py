"""Node's http2 client against the emulator: the 100-stream limit, FCM's GOAWAY past it, the
goaway fault, and the faults on one stream (rstStream, hold). The cases are in
node/http2_goaway.test.mjs (node:test, standard library only); this starts an emulator for them
and fails with their report."""
import os
import shutil
import subprocess

import pytest

from conftest import start_emulator

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node 20 (installed on CI machines)")
def test_node_http2_goaway():
    emu, process = start_emulator()
    try:
        env = dict(os.environ, FCM_EMU_HTTPS=emu.https, FCM_EMU_CONTROL=emu.base, FCM_EMU_CA=emu.ca)
        run = subprocess.run(
            ["node", "--test", "--test-reporter=spec", os.path.join(HERE, "node", "http2_goaway.test.mjs")],
            env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
    finally:
        process.terminate()
        process.wait(timeout=10)
