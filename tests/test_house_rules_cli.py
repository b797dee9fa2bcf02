"""``tacmap rules`` and the ``--rule`` of ``tacmap new`` and ``tacmap forecast``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.rules.ruleset import Registry


def test_rules_lists_sets_and_check_shows_them(tmp_path: Path, registry: Registry,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    fight, house = tmp_path / "fight.tacmap", tmp_path / "house.tacmap"
    assert main(["new", "--demo", "opposed", str(fight)]) == 0
    assert main(["rules", str(fight)]) == 0
    out = capsys.readouterr().out
    assert "surprise_criticals = none  (default)" in out
    assert "  * none: a surprise ranged attack never scores a critical (the text)" in out
    assert main(["rules", str(fight), "--set", "surprise_criticals=allowed",
                 "--out", str(house)]) == 0
    assert capsys.readouterr().out == f"{house}: surprise_criticals = allowed\n"
    loaded = storage.load(house, registry)
    assert loaded.state.house_rules == {"surprise_criticals": "allowed"}
    assert type(loaded.log[-1].command).__name__ == "SetHouseRule"  # logged, undoable
    assert storage.load(fight, registry).state.house_rules == {}  # FILE untouched
    assert main(["check", str(house)]) == 0
    assert "house rules: surprise_criticals = allowed" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "sentence"), [
    (["--set", "surprise_criticals=maybe"],
     "house rule surprise_criticals: 'maybe' is not one of its values (none, allowed)"),
    (["--set", "nothing"], "a house rule is written KEY=VALUE (got 'nothing')"),
])
def test_a_bad_setting_is_one_sentence_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        sentence: str) -> None:
    fight = tmp_path / "fight.tacmap"
    main(["new", "--demo", "opposed", str(fight)])
    before = fight.read_bytes()
    capsys.readouterr()
    assert main(["rules", str(fight), *args]) == 2
    assert capsys.readouterr().err.strip() == f"tacmap: {sentence}"
    assert fight.read_bytes() == before


def test_new_takes_rules(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "x.tacmap"
    assert main(["new", "--ruleset", "speed_rank", str(path), "--seed", "1",
                 "--rule", "move_only_phase=skip"]) == 0
    assert storage.load(path, registry).state.house_rules == {"move_only_phase": "skip"}


def test_forecast_under_a_house_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fight = tmp_path / "fight.tacmap"
    main(["new", "--demo", "opposed", str(fight)])
    capsys.readouterr()
    base = ["forecast", str(fight), "--fights", "40", "--jobs", "1", "--json"]
    assert main(base) == 0
    default = capsys.readouterr().out
    assert main([*base, "--rule", "surprise_armour=ignored"]) == 0
    assert capsys.readouterr().out != default
    assert main([*base, "--rule", "death_past_line=never"]) == 2


def test_the_fight_report_names_the_house_rules_in_force(tmp_path: Path) -> None:
    fight, house, page = (tmp_path / n for n in ("f.tacmap", "h.tacmap", "h.html"))
    main(["new", "--demo", "opposed", str(fight)])
    main(["rules", str(fight), "--set", "death_past_line=dead", "--out", str(house)])
    assert main(["report", str(house), str(page)]) == 0
    assert "house rule death_past_line = dead" in page.read_text(encoding="utf-8")
