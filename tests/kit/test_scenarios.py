"""The scenario runner says where a scenario went wrong, with a diff an author can read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry
from tacmap.kit.scenarios import Mismatch, event_diff, run

ENCOUNTER = ('{"encounter": {"ruleset": "skirmish", "map": {"width": 8, "height": 6}, '
             '"tokens": [{"id": "ana", "name": "Ana", "side": "a", "x": 1, "y": 1}, '
             '{"id": "bo", "name": "Bo", "side": "b", "x": 2, "y": 1}]}}\n'
             '{"command": {"type": "start_combat"}}\n')


def scenario(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(ENCOUNTER + "".join(line + "\n" for line in lines))
    return path


def test_events_pair_by_kind_and_name_the_fields_that_differ() -> None:
    want = [{"type": "a"}, {"type": "b", "n": 1}, {"type": "c"}]
    got = [{"type": "a"}, {"type": "x", "m": 2}, {"type": "b", "n": 2}]
    assert event_diff(want, got) == [
        "  = a",
        '  + x {"m": 2}   (produced, not expected)',
        "  ≠ b: n: expected 1, got 2",
        "  - c {}   (expected, not produced)",
    ]


def test_a_refusal_that_does_not_come_is_named(tmp_path: Path, registry: Registry) -> None:
    path = scenario(tmp_path, '{"command": {"type": "end_turn"}, "error": "not allowed"}')
    with pytest.raises(Mismatch, match=r"s.jsonl:3: end_turn: expected a refusal saying "
                                       r"'not allowed', but it was carried out"):
        run(path, registry)


def test_unused_dice_and_wrong_state_are_named(tmp_path: Path, registry: Registry) -> None:
    with pytest.raises(Mismatch, match="1 of the given dice were not used"):
        run(scenario(tmp_path, '{"command": {"type": "end_turn"}, "dice": [3]}'), registry)
    with pytest.raises(Mismatch, match=r"s.jsonl:3: ana.hp: expected 4, got 10"):
        run(scenario(tmp_path, '{"state": {"ana": {"hp": 4}}}'), registry)
    with pytest.raises(Mismatch, match=r"s.jsonl:3: not JSON"):
        run(scenario(tmp_path, '{"state": '), registry)


def test_a_scenario_encounter_takes_the_rulesets_diagonal_unless_it_names_one(
        tmp_path: Path, registry: Registry) -> None:
    # speed_rank's [grid] says "alternating" (5, 10, 5 ft): a scenario measures as play does.
    path = tmp_path / "d.jsonl"
    body = ('{"ruleset": "speed_rank", "map": {"width": 8, "height": 6}, "tokens": []%s}')
    path.write_text('{"encounter": ' + body % "" + '}\n')
    assert run(path, registry).state.diagonal == "alternating"
    path.write_text('{"encounter": ' + body % ', "diagonal": "chebyshev"' + '}\n')
    assert run(path, registry).state.diagonal == "chebyshev"
