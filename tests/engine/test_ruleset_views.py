"""Issue 27 item 1: the Ruleset base class calls the folder's views and bench by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry

TOML = 'id = "{id}"\nname = "Panels"\nversion = "1"\napi = 1\n'
RULES = '''
from tacmap.engine.rules.ruleset import Manifest, Ruleset


class Rules(Ruleset):
    """No panel method of its own."""
{body}

def create(manifest: Manifest) -> Ruleset:
    return Rules(manifest)
'''
VIEWS = '''
from tacmap.engine.rules.views import ActionOption, OrderRow, TurnOrder


def turn_order(rules, state):
    rows = tuple(OrderRow(t.id, t.name, t.side, "", "waiting") for t in state.tokens.values())
    return TurnOrder(f"{rules.manifest.name}: round {state.round}", rows)


def actions_for(rules, state, actor):
    return [ActionOption("end_turn", f"End {actor}'s turn")]


def status_lines(rules, state, token):
    return (f"{token.name} is watched",)
'''
BENCH = '''
def figures(rules):
    return [("nothing at all", lambda: None, 1.0)]
'''


def folder(tmp_path: Path, ruleset_id: str, views: str = VIEWS, bench: str | None = BENCH,
           body: str = "") -> Path:
    """A user's ruleset folder whose rules.py writes no panel method."""
    root = tmp_path / ruleset_id
    root.mkdir()
    (root / "ruleset.toml").write_text(TOML.format(id=ruleset_id), encoding="utf-8")
    (root / "rules.py").write_text(RULES.format(body=body or "    pass\n"),
                                   encoding="utf-8")
    (root / "views.py").write_text(views, encoding="utf-8")
    if bench is not None:
        (root / "bench.py").write_text(bench, encoding="utf-8")
    return root


def test_the_panels_come_from_views_without_a_method_in_rules(tmp_path: Path) -> None:
    rules = Registry([folder(tmp_path, "panels_a")], warn=lambda m: None).get("panels_a")
    state = rules.new_encounter()
    state.tokens["ana"] = Token("ana", "Ana", "party", 0, 0)
    order = rules.turn_order(state)
    assert order is not None and order.title == "Panels: round 0"
    assert [row.id for row in order.rows] == ["ana"]
    assert [o.label for o in rules.actions_for(state, "ana")] == ["End ana's turn"]
    assert rules.status_lines(state, state.tokens["ana"]) == ("Ana is watched",)
    assert [(name, budget) for name, _, budget in rules.bench()] == [("nothing at all", 1.0)]
    # What views.py does not define keeps the base's answer.
    assert rules.timeline(state) is None
    assert rules.dice_pools(state) == []
    assert rules.declared(state) == []


def test_a_method_of_the_ruleset_wins_over_its_view(tmp_path: Path) -> None:
    body = ("    def actions_for(self, state, actor):\n"
            "        return []\n")
    rules = Registry([folder(tmp_path, "panels_b", body=body, bench=None)],
                     warn=lambda m: None).get("panels_b")
    state = rules.new_encounter()
    state.tokens["ana"] = Token("ana", "Ana", "party", 0, 0)
    assert rules.actions_for(state, "ana") == []
    assert rules.turn_order(state) is not None
    assert rules.bench() == []  # no bench.py: no figures


def test_a_views_module_that_fails_to_import_says_so(tmp_path: Path) -> None:
    broken = "import tacmap_no_such_module\n" + VIEWS
    rules = Registry([folder(tmp_path, "panels_c", views=broken)],
                     warn=lambda m: None).get("panels_c")
    with pytest.raises(ModuleNotFoundError, match="tacmap_no_such_module"):
        rules.turn_order(rules.new_encounter())
