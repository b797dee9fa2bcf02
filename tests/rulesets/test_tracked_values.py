"""Issue 33 item 14: each ruleset types the values it tracks (``[values.*]`` in ruleset.toml).

A file whose tracked value does not fit is refused by ``check`` and by opening, in one
sentence naming the token and the key; the GM's Set value is refused the same way. Before,
such files passed ``check`` and crashed the rules (TypeError, RecursionError, IndexError).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import SetValue
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine.test_hostile_files import refused

RESOURCES = Path(__file__).parents[2] / "resources"

#: (demo file, key, a value of the wrong type or size, what the sentence says of it).
UNFIT = [
    ("speed_rank_demo", "spells_cast", True, "values.spells_cast must be a list of names"),
    ("demo", "pool", 1000, "values.pool must be a whole number from 0 to "),
    ("demo", "pool", 500, "values.pool must be a whole number from 0 to "),
    ("demo", "faces", "six", "values.faces must be a list of whole numbers (at least 1)"),
    ("six_phase_demo", "wounds", "an arrow in the knee", "values.wounds must be a list of "),
    ("six_phase_demo", "wounds", [["Arrow"]], "values.wounds row 1 must hold 3 items"),
    ("six_phase_demo", "notches", {"sword": "x"}, "values.notches for sword must be a whole"),
]


def _with_value(tmp_path: Path, demo: str, key: str, value: Any) -> tuple[Path, str]:
    doc = json.loads((RESOURCES / f"{demo}.tacmap").read_text(encoding="utf-8"))
    token = doc["encounter"]["tokens"][0]
    token["values"][key] = value
    path = tmp_path / "f.tacmap"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path, token["id"]


@pytest.mark.parametrize(("demo", "key", "value", "said"), UNFIT)
def test_check_refuses_a_tracked_value_that_does_not_fit(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, demo: str, key: str, value: Any,
        said: str) -> None:
    path, token = _with_value(tmp_path, demo, key, value)
    err = refused(capsys, "check", str(path))
    assert f"token {token!r}" in err and said in err


@pytest.mark.parametrize(("demo", "key", "value", "said"), UNFIT)
def test_opening_refuses_it_too(tmp_path: Path, registry: Registry, demo: str, key: str,
                                value: Any, said: str) -> None:
    path, _ = _with_value(tmp_path, demo, key, value)
    with pytest.raises(InputError, match=re.escape(said)):
        storage.load(path, registry)


@pytest.mark.parametrize(("demo", "key", "value", "said"), UNFIT)
def test_set_value_refuses_it_and_changes_nothing(
        registry: Registry, demo: str, key: str, value: Any, said: str) -> None:
    loaded = storage.load(RESOURCES / f"{demo}.tacmap", registry)
    ref = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    token = next(iter(ref.state.tokens))
    before = ref.state.copy()
    with pytest.raises(RuleError, match=re.escape(said)):
        ref.execute(SetValue(token, key, value))
    assert ref.state == before


def test_a_value_the_ruleset_does_not_declare_is_the_gms_own(registry: Registry) -> None:
    """A note the GM keeps on a token is no value the rules read: any JSON goes."""
    loaded = storage.load(RESOURCES / "demo.tacmap", registry)
    ref = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    ref.execute(SetValue("aldric", "note", ("owes Wren", 3)))
    assert ref.state.tokens["aldric"].values["note"] == ("owes Wren", 3)


def test_a_fitting_value_is_kept(registry: Registry) -> None:
    loaded = storage.load(RESOURCES / "six_phase_demo.tacmap", registry)
    rules: Any = registry.get(loaded.state.ruleset)  # the class is loaded from rules.py
    ref = Referee(loaded.state, rules, loaded.log)
    token = next(iter(ref.state.tokens))
    ref.execute(SetValue(token, "wounds", (("Arrow", "leg", 0),)))
    assert rules.wounds(ref.state.tokens[token]) == [("Arrow", "leg", 0)]
