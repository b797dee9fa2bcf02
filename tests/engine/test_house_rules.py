"""House rules in the engine: declared in ruleset.toml, checked in one sentence naming
the key; carried by the encounter; an old file keeps the readings it was played with."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import SetHouseRule
from tacmap.engine.model.errors import InputError
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.ruleset import Registry, read_manifest

RULESETS = Path(__file__).parents[2] / "rulesets"
OLD_SPEED_RANK = Path(__file__).parents[1] / "fixtures" / "files" / "speed_rank-v1-played.tacmap"


@pytest.mark.parametrize(("option", "sentence"), [
    ('default = "sometimes"', "opposed/ruleset.toml: options.surprise_criticals.default: must "
                              "be one of its values (none, allowed), got 'sometimes'"),
    ('before = "x"', "options.surprise_criticals.before: must be one of its values"),
    ('bogus = 1', "options.surprise_criticals: unknown key 'bogus'"),
])
def test_a_bad_option_is_one_sentence_naming_its_key(tmp_path: Path, option: str,
                                                     sentence: str) -> None:
    folder = tmp_path / "opposed"
    shutil.copytree(RULESETS / "opposed", folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "ruleset.toml"
    text = toml.read_text(encoding="utf-8").replace(
        '[options.surprise_criticals]\n', f'[options.surprise_criticals]\n{option}\n', 1)
    if option.startswith("default"):
        text = text.replace('default = "none"\n', "", 1)
    toml.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_manifest(toml)
    assert sentence in str(err.value)


def test_every_builtin_ruleset_declares_its_options(registry: Registry) -> None:
    keys = {rid: set(registry.get(rid).manifest.options) for rid in
            ("opposed", "speed_rank", "action_pool", "reflex", "six_phase")}
    assert keys == {
        "opposed": {"surprise_criticals", "surprise_armour", "opportunity_run",
                    "death_past_line"},
        "speed_rank": {"move_only_phase", "idle_phase"}, "action_pool": {"movement"},
        "reflex": {"rolloff_die"}, "six_phase": {"self_hit_floor"},
    }


def test_an_encounter_saved_before_house_rules_keeps_its_readings(registry: Registry) -> None:
    # speed_rank's default became the text's ("holds"); the old fight was played with
    # "skip", and keeps it: its log replays to the state it saved. idle_phase, added in
    # version 1.1, keeps the 1.0 reading ("hold") likewise.
    loaded = storage.load(OLD_SPEED_RANK, registry)
    assert loaded.state.house_rules == {"move_only_phase": "skip", "idle_phase": "hold"}
    storage.verify(loaded)
    rules = registry.get("speed_rank")
    assert rules.house_rule(loaded.state, "move_only_phase") == "skip"


def test_house_rules_are_saved_and_an_unknown_one_in_a_file_is_refused(
        tmp_path: Path, registry: Registry) -> None:
    rules = registry.get("opposed")
    referee = Referee(rules.new_encounter("t"), rules)
    referee.execute(SetHouseRule("death_past_line", "dead"))
    path = tmp_path / "t.tacmap"
    storage.save(path, referee.state, referee.log)
    back = storage.load(path, registry)
    assert back.state.house_rules == {"death_past_line": "dead"}
    assert replay(referee.initial_state(), back.log) == back.state
    path.write_text(path.read_text().replace('"death_past_line":"dead"', '"death":"dead"', 1))
    with pytest.raises(InputError) as err:
        storage.load(path, registry)
    assert "encounter.house_rules: there is no house rule 'death'" in str(err.value)


def test_an_option_added_later_keeps_the_old_reading_for_files_saved_before_it(
        tmp_path: Path, registry: Registry) -> None:
    # speed_rank 1.1 added idle_phase: a fight saved under 1.0, house rules and all,
    # keeps playing as it was ("hold"); one saved under 1.1 plays the default ("pass").
    rules = registry.get("speed_rank")
    state = rules.new_encounter("t")
    path = tmp_path / "t.tacmap"
    storage.save(path, state, [])
    assert storage.load(path, registry).state.house_rules == {}
    text = path.read_text().replace('"version":"1.1"', '"version":"1.0"')
    path.write_text(text.replace('"ruleset_version":"1.1"', '"ruleset_version":"1.0"'))
    old = storage.load(path, registry).state
    assert old.house_rules == {"idle_phase": "hold"}
    assert rules.house_rule(old, "idle_phase") == "hold"
