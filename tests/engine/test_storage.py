"""Encounter files: round trips, atomic writes, and one clear sentence per bad file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Attack, StartCombat
from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_referee


def saved(tmp_path: Path, registry: Registry) -> Path:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat())
    ref.execute(Attack("ana", "grul"))
    path = tmp_path / "fight.tacmap"
    storage.save(path, ref.state, ref.log)
    return path


def test_save_then_load_gives_the_same_state_and_log(tmp_path: Path, registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat())
    ref.execute(Attack("ana", "grul"))
    path = tmp_path / "fight.tacmap"
    storage.save(path, ref.state, ref.log)
    loaded = storage.load(path, registry)
    assert loaded.state == ref.state
    assert [(e.command, e.events) for e in loaded.log] == [(e.command, e.events) for e in ref.log]


def test_saving_again_keeps_the_previous_file_as_backup(tmp_path: Path,
                                                        registry: Registry) -> None:
    path = saved(tmp_path, registry)
    first = path.read_text()
    loaded = storage.load(path, registry)
    loaded.state.name = "Renamed"
    storage.save(path, loaded.state, loaded.log)
    assert (tmp_path / "fight.tacmap.bak").read_text() == first
    assert storage.load(path, registry).state.name == "Renamed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.tacmap", "fight.tacmap.bak"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path, registry: Registry,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = saved(tmp_path, registry)
    first = path.read_bytes()
    loaded = storage.load(path, registry)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage.os, "fsync", boom)
    with pytest.raises(OSError):
        storage.save(path, loaded.state, loaded.log)
    assert path.read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == ["fight.tacmap"]


def _doc(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _bad(path: Path, doc: Any) -> None:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))


def _set(doc: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    node = doc
    keys = where.split("/")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


BAD: list[tuple[str, Any, str]] = [
    ("empty file", "", "the file is empty"),
    ("whitespace only", "  \n ", "the file is empty"),
    ("truncated", "TRUNCATE", "ends too early"),
    ("not JSON", "{tokens: 3}", "not valid JSON at line 1, column 2"),
    ("not an encounter", {"hello": 1}, "not a tacmap encounter"),
    ("wrong type", ("encounter/tokens/0/hp", "ten"),
     "encounter.tokens[0].hp: expected a whole number"),
    ("wrong type list", ("encounter/map/walls", {"a": 1}), "encounter.map.walls: expected a list"),
    ("unknown ruleset", ("ruleset/id", "warhammer"), "unknown ruleset 'warhammer'"),
    ("newer version", ("version", 99), "newer tacmap (file version 99"),
    ("NaN", "NAN", "NaN is not a number"),
    ("Infinity", "INF", "Infinity is not a number"),
    ("huge int", ("encounter/tokens/0/hp", 10**15), "out of range"),
    ("huge float", "HUGEFLOAT", "out of range"),
    ("thousands of digits", "DIGITS", "out of range"),
    ("duplicate token ids", "DUP", "token id 'ana' is used twice"),
    ("image escapes", ("encounter/map/image", "../../etc/passwd"),
     "escapes the encounter's image folder"),
    ("absolute image", ("encounter/tokens/1/image", "/etc/passwd"), "escapes"),
    ("windows image", ("encounter/map/image", "C:\\\\x.png"), "escapes"),
    ("images folder escapes", ("images", "../elsewhere"), "escapes"),
    ("map too big", ("encounter/map/width", 10**8), "map size"),
    ("bad diagonal", ("encounter/diagonal", "hex"), "diagonal rule must be one of"),
    ("unknown event", ("log/1/events/0/type", "explode"), "log[1].events[0]: unknown event type"),
    ("command as event", ("log/0/events/0", {"type": "attack", "actor": "a", "target": "b"}),
     "unknown event type 'attack'"),
    ("bad token size", ("encounter/tokens/0/size", 0), "size must be 1 to 20"),
]


@pytest.mark.parametrize(("name", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_files_get_one_clear_line(tmp_path: Path, registry: Registry, name: str,
                                      change: Any, message: str) -> None:
    path = saved(tmp_path, registry)
    text = path.read_text()
    if change == "TRUNCATE":
        path.write_text(text[: len(text) // 2])
    elif change in ("NAN", "INF", "HUGEFLOAT", "DIGITS"):
        value = {"NAN": "NaN", "INF": "Infinity", "HUGEFLOAT": "1e400",
                 "DIGITS": "9" * 5000}[change]
        path.write_text(text.replace('"hp":10', f'"hp":{value}', 1))
    elif change == "DUP":
        doc = _doc(path)
        doc["encounter"]["tokens"][1]["id"] = "ana"
        _bad(path, doc)
    elif isinstance(change, tuple):
        _bad(path, _set(_doc(path), *change))
    else:
        _bad(path, change)
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        storage.load(path, registry)
    line = str(err.value)
    assert message in line
    assert line.startswith(str(path)) and "\n" not in line
    assert path.read_bytes() == before


@pytest.mark.parametrize(("where", "value", "sentence"), [
    ("encounter/tokens/1/hp", "x", "encounter.tokens[1].hp: expected a whole number, got 'x'"),
    ("encounter/tokens/0/stats", {"dex": [1, 10**12]},
     "encounter.tokens[0].stats.dex[1]: number 1e+12 is out of range (limit ±1,000,000,000)"),
    ("encounter/map/walls/0", {"type": "wall", "points": [[0, 0]]},
     "encounter.map.walls[0]: a wall needs at least two points"),
    ("encounter/schedule/index", 9, "encounter.schedule: Turn position 9 is outside the turn "
                                    "order."),
    ("log/1/command/actor", 5, "log[1].command.actor: expected text, got 5"),
    ("log/1/events/1/roll/faces", [1, "six"], "log[1].events[1].roll.faces[1]: expected a whole "
                                              "number, got 'six'"),
    ("log/1/events/0/new/order", ["ana", 3], "log[1].events[0].new.order[1]: expected text, got "
                                             "3"),
    ("log/0/command/order", "ana", "log[0].command.order: expected a list, got 'ana'"),
])
def test_a_bad_value_in_a_file_is_one_sentence_naming_file_and_path(
        tmp_path: Path, registry: Registry, where: str, value: Any, sentence: str) -> None:
    path = saved(tmp_path, registry)
    _bad(path, _set(_doc(path), where, value))
    with pytest.raises(InputError) as err:
        storage.load(path, registry)
    assert str(err.value) == f"{path}: {sentence}"


@pytest.mark.parametrize("name", ["action_pool-v1-played", "speed_rank-v1-played"])
def test_a_version_1_file_reads_and_writes_back_byte_for_byte(registry: Registry,
                                                              name: str) -> None:
    raw = (Path(__file__).parents[1] / "fixtures" / "files" / f"{name}.tacmap").read_bytes()
    loaded = storage.loads(raw, registry)
    written = storage.encode(loaded.state, loaded.log, loaded.images)
    # Written back with the fields added since (door kinds, fog: off, the house rules it
    # was played with) and each token's stats and values in key order (issue 34: the same
    # state, the same bytes), nothing else.
    added = (b',"kind":"wall","open":false', b',"fog":{"type":"fog","enabled":false,'
             b'"explored":[],"revealed":[],"hidden":[],"sight":null}',
             b',"house_rules":{}',
             b',"house_rules":{"move_only_phase":"skip","idle_phase":"hold"}')
    for field in added:
        written = written.replace(field, b"")
    doc = msgspec.json.decode(raw)
    for token in doc["encounter"]["tokens"]:
        for key in ("stats", "values"):
            if key in token:
                token[key] = _keys_sorted(token[key])
    assert written == msgspec.json.encode(doc)
    assert msgspec.json.decode(written) == msgspec.json.decode(raw)


def _keys_sorted(value: Any) -> Any:
    """``value`` with every dict's keys in order, as the file writes a token's tables."""
    if isinstance(value, dict):
        return {k: _keys_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_keys_sorted(v) for v in value]
    return value


def test_a_file_saved_with_a_byte_order_mark_opens(tmp_path: Path, registry: Registry) -> None:
    path = saved(tmp_path, registry)
    before = storage.load(path, registry)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert storage.load(path, registry).state == before.state


def test_missing_file_and_folder(tmp_path: Path, registry: Registry) -> None:
    with pytest.raises(InputError, match="no such file"):
        storage.load(tmp_path / "nope.tacmap", registry)
    with pytest.raises(InputError, match="is a folder"):
        storage.load(tmp_path, registry)


def test_an_encounter_file_never_runs_code(tmp_path: Path, registry: Registry) -> None:
    path = saved(tmp_path, registry)
    doc = _doc(path)
    doc["encounter"]["tokens"][0]["stats"] = {"x": {"type": "__import__('os').system('x')"}}
    _bad(path, doc)
    loaded = storage.load(path, registry)  # an unknown "type" inside free data stays data
    assert loaded.state.tokens["ana"].stats["x"] == {"type": "__import__('os').system('x')"}


def test_deeply_nested_data_is_one_sentence(tmp_path: Path, registry: Registry) -> None:
    path = saved(tmp_path, registry)
    doc = _doc(path)
    deep: Any = 1
    for _ in range(900):
        deep = [deep]
    doc["encounter"]["data"] = {"x": deep}
    _bad(path, doc)
    with pytest.raises(InputError, match="nested too deeply"):
        storage.load(path, registry)


def test_a_schedule_must_be_a_round_structure(tmp_path: Path, registry: Registry) -> None:
    path = saved(tmp_path, registry)
    _bad(path, _set(_doc(path), "encounter/schedule", 5))
    with pytest.raises(InputError, match="not a round structure"):
        storage.load(path, registry)


def test_windows_image_paths_are_read_with_forward_slashes(tmp_path: Path,
                                                           registry: Registry) -> None:
    path = saved(tmp_path, registry)
    _bad(path, _set(_doc(path), "encounter/map/image", "maps\\gate.png"))
    assert storage.load(path, registry).state.map.image == "maps/gate.png"


def test_check_refuses_a_log_that_does_not_fit_the_map(tmp_path: Path,
                                                       registry: Registry) -> None:
    path = saved(tmp_path, registry)
    doc = _doc(path)
    doc["log"][1]["events"][-1]["token"] = "ghost"
    _bad(path, doc)
    loaded = storage.load(path, registry)  # opening is cheap and does not replay
    with pytest.raises(InputError, match="log entry 2 does not match the map"):
        storage.verify(loaded)
    good = tmp_path / "ok"
    good.mkdir()
    storage.verify(storage.load(saved(good, registry), registry))


def test_equal_states_save_to_the_same_bytes_whatever_order_values_were_set_in(
        registry: Registry) -> None:
    """Issue 34 item 6: a preview that took a value away and put it back moved it last."""
    one, other = skirmish_referee(registry).state, skirmish_referee(registry).state
    tid = next(iter(one.tokens))
    one.tokens[tid].values = {"pool": 7, "weapon": "club", "notches": {"b": 1, "a": 2}}
    other.tokens[tid].values = {"notches": {"a": 2, "b": 1}, "weapon": "club", "pool": 7}
    assert one == other
    assert storage.encode(one, []) == storage.encode(other, [])

