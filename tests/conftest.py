"""Shared test set-up: the test ruleset folder and a registry that sees it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIXTURES = Path(__file__).parent / "fixtures"
TEST_RULESETS = FIXTURES / "rulesets"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Built-in rulesets plus the test-only ``skirmish`` ruleset."""
    return Registry([TEST_RULESETS], warn=lambda msg: None)


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A virtual X screen started and stopped here; its DISPLAY name.

    Skipped where Xvfb is missing, except under CI, where .ci/run installs it.
    """
    if shutil.which("Xvfb") is None:
        if os.environ.get("CI"):
            pytest.fail("Xvfb is missing: .ci/run installs it")
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    display = f":{90 + (os.getpid() + time.monotonic_ns()) % 400}"
    proc = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket_file = Path(f"/tmp/.X11-unix/X{display[1:]}")
        for _ in range(100):
            if socket_file.exists():
                break
            time.sleep(0.05)
        yield display
    finally:
        proc.terminate()
        proc.wait(timeout=10)
