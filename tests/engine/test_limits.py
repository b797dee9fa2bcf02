"""Issue 17, item 8: the documented limits (README "Limits") hold for files, scripts
and commands alike, each refused in one sentence that names the limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import (
    AddToken,
    AdjustHp,
    EndTurn,
    RenameEncounter,
    SetHp,
    SetValue,
    SetWalls,
)
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import HpChanged
from tacmap.engine.model.state import MAX_TOKENS, MAX_WALL_POINTS, MAX_WALLS, MapSpec, Token
from tacmap.engine.play.referee import MAX_LOG, Entry
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_referee
from tests.engine.test_hostile_files import hostile, refused, script


def test_a_file_past_the_token_limit_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def crowd(d: dict[str, Any]) -> None:
        first = d["encounter"]["tokens"][0]
        d["encounter"]["map"].update(width=200, height=200)
        d["encounter"]["tokens"] = [dict(first, id=f"t{i}", x=i % 200, y=i // 200)
                                    for i in range(MAX_TOKENS + 1)]
    err = refused(capsys, "check", str(hostile(tmp_path, crowd)))
    assert "encounter.tokens: too many (20,001 items; at most 20,000)" in err


def test_a_file_at_the_token_limit_is_accepted(tmp_path: Path, registry: Registry) -> None:
    def crowd(d: dict[str, Any]) -> None:
        first = d["encounter"]["tokens"][0]
        d["encounter"]["map"].update(width=200, height=200)
        d["encounter"]["tokens"] = [dict(first, id=f"t{i}", x=i % 200, y=i // 200)
                                    for i in range(MAX_TOKENS)]
    loaded = storage.load(hostile(tmp_path, crowd), registry)
    assert len(loaded.state.tokens) == MAX_TOKENS


def test_a_file_past_the_wall_limit_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wall = {"type": "wall", "points": [[1, 1], [2, 2]]}
    path = hostile(tmp_path, lambda d: d["encounter"]["map"].update(walls=[wall] * (MAX_WALLS + 1)))
    err = refused(capsys, "check", str(path))
    assert "encounter.map.walls: too many (10,001 items; at most 10,000)" in err


def test_a_wall_with_too_many_corners_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    points = [[1 + (i % 2), 1 + i * 0.01] for i in range(MAX_WALL_POINTS + 1)]
    path = hostile(tmp_path, lambda d: d["encounter"]["map"]["walls"].append(
        {"type": "wall", "points": points}))
    err = refused(capsys, "check", str(path))
    assert "encounter.map.walls[5].points: too many (1,001 items; at most 1,000)" in err


def test_a_file_past_the_log_limit_is_refused_before_it_is_read(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    entry = {"command": {"type": "rename_encounter", "name": "x"}, "events": []}
    path = hostile(tmp_path, lambda d: d.update(log=[entry] * (MAX_LOG + 1)))
    err = refused(capsys, "check", str(path))
    assert "log: more than the 100,000 entries a file may hold" in err


def test_a_script_setting_too_many_walls_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wall = {"type": "wall", "points": [[1, 1], [2, 2]]}
    line = json.dumps({"type": "set_walls", "walls": [wall] * (MAX_WALLS + 1)})
    demo = hostile(tmp_path, lambda d: None)
    before = demo.read_bytes()
    err = refused(capsys, "play", str(demo), "--script", str(script(tmp_path, line)),
                  "--out", str(demo))
    assert "too many (10,001 items; at most 10,000)" in err
    assert demo.read_bytes() == before


def test_the_referee_refuses_a_token_past_the_limit(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.state.map = MapSpec(200, 200, walls=ref.state.map.walls)
    for i in range(MAX_TOKENS - len(ref.state.tokens)):
        t = Token(f"t{i}", f"T{i}", "orcs", i % 200, 20 + i // 200)
        ref.state.tokens[t.id] = t
    with pytest.raises(RuleError, match="already holds 20,000 tokens, the most an encounter"):
        ref.execute(AddToken(Token("one_more", "One more", "orcs", 0, 199)))
    assert "one_more" not in ref.state.tokens


def test_a_set_walls_command_past_the_limit_is_refused_as_it_is_read() -> None:
    wall = {"type": "wall", "points": [[1, 1], [2, 2]]}
    with pytest.raises(InputError, match=r"walls: too many \(10,001 items; at most 10,000\)"):
        records.convert({"type": "set_walls", "walls": [wall] * (MAX_WALLS + 1)}, SetWalls)
    assert records.convert({"type": "set_walls", "walls": [wall] * MAX_WALLS}, SetWalls).walls


def test_a_full_log_refuses_new_commands_but_still_undoes(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(RenameEncounter("Start"))
    filler = Entry(RenameEncounter("x"), ())
    ref.log.extend([filler] * (MAX_LOG - 1))
    with pytest.raises(RuleError, match="the log is full"):
        ref.execute(RenameEncounter("Too late"))
    assert ref.state.name == "Start"
    assert ref.undo() is filler
    ref.execute(RenameEncounter("Room again"))
    assert ref.state.name == "Room again"


# --------------------------------------------------------------------------- issue 23 item 5


def _values(junk: Any) -> Any:
    return lambda d: d["encounter"]["tokens"][0]["values"].update(junk=junk)


def test_a_value_past_the_item_limit_is_refused_at_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A million numbers in one token value (2 MB of file) are refused, not frozen."""
    err = refused(capsys, "check", str(hostile(tmp_path, _values([1] * 1_000_000))))
    assert err.strip().endswith(
        "encounter.tokens[0].values.junk: the value is too big (more than 10,000 items, "
        "nested lists and tables counted together)")


@pytest.mark.parametrize("junk", [
    [[0] * 100] * 100,                       # 100 lists of 100: 10,100 items in all
    {f"k{i}": [0] for i in range(5_001)},    # 5,001 keys and their 5,001 items
])
def test_nested_items_count_together(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     junk: Any) -> None:
    err = refused(capsys, "check", str(hostile(tmp_path, _values(junk))))
    assert "values.junk: the value is too big (more than 10,000 items" in err


def test_a_value_at_the_limits_is_accepted(tmp_path: Path, registry: Registry) -> None:
    # 9,999 items in the list and 1 in the table inside it: 10,000 in all.
    junk = [0] * (records.MAX_ITEMS - 3) + ["x" * records.MAX_TEXT, {"a": None}]
    loaded = storage.load(hostile(tmp_path, _values(junk)), registry)
    assert next(iter(loaded.state.tokens.values())).values["junk"][-1] == {"a": None}


@pytest.mark.parametrize(("junk", "said"), [
    ("x" * (records.MAX_TEXT + 1),
     "values.junk: text is too long (100,001 characters; at most 100,000)"),
    ({"k" * (records.MAX_TEXT + 1): 1}, "key text is too long (100,001 characters"),
])
def test_long_text_inside_a_value_is_refused(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path, junk: Any, said: str) -> None:
    assert said in refused(capsys, "check", str(hostile(tmp_path, _values(junk))))


def test_too_many_keys_in_values_are_refused(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    def many(d: dict[str, Any]) -> None:
        d["encounter"]["tokens"][0]["values"] = {f"k{i}": 0 for i in range(records.MAX_KEYS + 1)}
    err = refused(capsys, "check", str(hostile(tmp_path, many)))
    assert "encounter.tokens[0].values: too many (1,001 items; at most 1,000)" in err


@pytest.mark.parametrize(("line", "said"), [
    (json.dumps({"type": "set_value", "token": "aldric", "key": "pool",
                 "value": list(range(records.MAX_ITEMS + 1))}),
     "line 1: value: the value is too big (more than 10,000 items"),
    (json.dumps({"type": "move", "actor": "aldric", "path": [[1, 1]] * (records.MAX_LIST + 1)}),
     "line 1: path: too many (100,001 items; at most 100,000)"),
    (json.dumps({"type": "add_token", "token": {
        "id": "x", "name": "X", "side": "s", "x": 1, "y": 1,
        "conditions": ["prone"] * (records.MAX_KEYS + 1)}}),
     "line 1: token.conditions: too many (1,001 items; at most 1,000)"),
])
def test_a_script_line_past_a_list_limit_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, said: str) -> None:
    demo = hostile(tmp_path, lambda d: None)
    err = refused(capsys, "play", str(demo), "--script", str(script(tmp_path, line)))
    assert said in err


def test_the_roster_refuses_an_entry_past_the_limits(tmp_path: Path) -> None:
    from tacmap.engine.files.roster import MAX_TAGS, Roster

    big = {"type": "token", "id": "orc", "name": "Orc", "side": "foes", "x": 0, "y": 0,
           "values": {"junk": [1] * (records.MAX_ITEMS + 1)}}
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"format": "tacmap-roster", "version": 1, "combatants": [
        {"ruleset": "skirmish", "token": big}]}), encoding="utf-8")
    with Roster(tmp_path / "roster.sqlite3") as roster:
        with pytest.raises(InputError, match=r"combatants\[0\]\.token\.values\.junk: the value "
                                             r"is too big \(more than 10,000 items"):
            roster.import_json(export)
        orc = Token("orc", "Orc", "foes", 0, 0)
        with pytest.raises(InputError, match=f"at most {MAX_TAGS} tags"):
            roster.add("skirmish", orc, [f"t{i}" for i in range(MAX_TAGS + 1)])
        assert roster.search("skirmish") == []


# --------------------------------------------------------------------------- issue 33 item 6


def test_gm_damage_past_the_number_limit_is_refused_and_changes_nothing(
        registry: Registry, tmp_path: Path) -> None:
    ref = skirmish_referee(registry)
    ref.execute(SetHp("ana", -records.LIMIT))
    with pytest.raises(RuleError, match=r"Ana would be left at -1,000,000,005 HP, past the "
                                        r"±1,000,000,000 an encounter can hold"):
        ref.execute(AdjustHp("ana", -5))
    assert ref.state.tokens["ana"].hp == -records.LIMIT
    storage.save(tmp_path / "f.tacmap", ref.state, ref.log)
    storage.verify(storage.load(tmp_path / "f.tacmap", registry))


def test_play_never_writes_a_file_that_check_refuses(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    demo = hostile(tmp_path, lambda d: None)
    out = tmp_path / "out.tacmap"
    lines = script(tmp_path, json.dumps({"type": "set_hp", "token": "aldric", "hp": -10**9}),
                   json.dumps({"type": "adjust_hp", "token": "aldric", "change": -5}))
    err = refused(capsys, "play", str(demo), "--script", str(lines), "--out", str(out))
    assert "line 2" in err and "past the ±1,000,000,000 an encounter can hold" in err
    assert not out.exists()


def test_an_out_of_range_number_is_written_in_full(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = hostile(tmp_path, lambda d: d["encounter"]["tokens"][0].update(hp=-10**9 - 5))
    err = refused(capsys, "check", str(path))
    assert "hp: number -1,000,000,005 is out of range (limit ±1,000,000,000)" in err


def test_any_command_whose_result_a_file_cannot_hold_is_refused(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's guard, whatever the ruleset emits: a rule that heals past the limit."""
    ref = skirmish_referee(registry)
    before = ref.state.copy()
    monkeypatch.setattr(ref.ruleset, "resolve", lambda ctx, cmd: ctx.emit(
        HpChanged("ana", ctx.state.tokens["ana"].hp, records.LIMIT + 1, "a rule")))
    with pytest.raises(RuleError, match=r"^the result could not be saved: hp_changed\.new: "
                                        r"number 1,000,000,001 is out of range"):
        ref.execute(EndTurn())
    assert ref.state == before and not ref.log


# --------------------------------------------------------------------------- issue 33 item 13


def _tokens_with_items(d: dict[str, Any], tokens: int, items: int) -> None:
    """``tokens`` copies of the first token, each holding ``items`` numbers in one value."""
    first = d["encounter"]["tokens"][0]
    d["encounter"]["map"].update(width=200, height=200)
    d["encounter"]["tokens"] = [dict(first, id=f"t{i}", x=i % 200, y=i // 200,
                                     values={"junk": [0] * items})
                                for i in range(tokens)]


def test_free_form_values_are_bounded_in_all_not_only_one_by_one(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """101 tokens of 9,999 items each: every value fits, together they do not."""
    path = hostile(tmp_path, lambda d: _tokens_with_items(d, 101, records.MAX_ITEMS - 1))
    err = refused(capsys, "check", str(path))
    assert "encounter: the stats, values and data hold more than 1,000,000 items in all" in err


def test_free_form_values_at_the_total_are_accepted(tmp_path: Path, registry: Registry) -> None:
    path = hostile(tmp_path, lambda d: _tokens_with_items(d, 100, records.MAX_ITEMS - 100))
    assert len(storage.load(path, registry).state.tokens) == 100


def test_a_file_of_too_many_values_is_refused_before_they_are_read(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """20 million numbers in one list (40 MB) are counted in the text, never built."""
    path = hostile(tmp_path, lambda d: d["encounter"]["tokens"][0]["values"].update(junk=[]))
    text = path.read_bytes().replace(b'"junk": []', b'"junk": [' + b"0," * 20_000_000 + b"0]")
    path.write_bytes(text)
    err = refused(capsys, "check", str(path))
    assert err.strip().endswith("holds more than 10,000,000 values (numbers, texts, lists and "
                                "tables), the most an encounter file may hold")


def test_set_value_past_the_total_is_refused(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.state.map = MapSpec(200, 200, walls=ref.state.map.walls)
    for i in range(100):
        t = Token(f"t{i}", f"T{i}", "orcs", i % 200, 20 + i // 200,
                  values={"junk": (0,) * (records.MAX_ITEMS - 1)})
        ref.state.tokens[t.id] = t
    with pytest.raises(RuleError, match=r"more than 1,000,000 items in all"):
        ref.execute(SetValue("ana", "more", (0,) * 200))
    assert "more" not in ref.state.tokens["ana"].values
