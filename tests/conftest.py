"""Shared test set-up: the test ruleset folder and a registry that sees it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacmap.engine.ruleset import Registry

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIXTURES = Path(__file__).parent / "fixtures"
TEST_RULESETS = FIXTURES / "rulesets"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Built-in rulesets plus the test-only ``skirmish`` ruleset."""
    return Registry([TEST_RULESETS], warn=lambda msg: None)
