"""Issue 17: hostile files and scripts are refused in one sentence (exit 2), never run.

Each test is a reproducer from the fuzzing report; the hostile files are made
here from the shipped demo, so nothing large is committed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tacmap.cli import MAX_MESSAGE, main
from tacmap.engine.files import storage
from tacmap.engine.files.roster import Roster
from tacmap.engine.model import records
from tacmap.engine.model.commands import RenameEncounter, SetValue
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_state

DEMO = Path(__file__).parents[2] / "resources" / "demo.tacmap"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def hostile(tmp_path: Path, change: Any, name: str = "f.tacmap") -> Path:
    """The demo with ``change`` applied to its parsed JSON, written as ``name``."""
    doc = json.loads(DEMO.read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run the command line; assert exit 2 with one line on stderr, fast; the line."""
    start = time.perf_counter()
    code, _, err = run(capsys, *args)
    assert time.perf_counter() - start < 5
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("tacmap: "), err
    return err


def script(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- 1: far away


@pytest.mark.parametrize("where", ["check", "play"])
def test_a_token_far_off_the_map_is_refused_not_walked(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str) -> None:
    path = hostile(tmp_path, lambda d: d["encounter"]["tokens"][0].update(x=10**9, y=10**9))
    args = ["check", str(path)] if where == "check" else \
        ["play", str(path), "--script", str(script(tmp_path, '{"type": "start_combat"}'))]
    err = refused(capsys, *args)
    assert "encounter.tokens[0]: Ser Aldric at (1000000000,1000000000) stands off the " \
           "30×20 map" in err


def test_a_wall_across_a_billion_metres_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wall = {"type": "wall", "points": [[-1e9, -1e9], [1e9, 1e9]]}
    path = hostile(tmp_path, lambda d: d["encounter"]["map"]["walls"].append(wall))
    err = refused(capsys, "check", str(path))
    assert "encounter.map.walls[5]: the point (-1e+09, -1e+09) is off the 30×20 m map" in err


def test_a_token_half_off_the_map_is_refused_like_a_command_would_be(
        tmp_path: Path, registry: Registry) -> None:
    # The Big one (2×2) at the last column sticks out, as AddToken would refuse.
    def far(d: dict[str, Any]) -> None:
        d["encounter"]["tokens"][0].update(x=29, size=2)
    with pytest.raises(InputError, match=r"tokens\[0\].*stands off the 30×20 map"):
        storage.load(hostile(tmp_path, far), registry)


def test_check_refuses_a_log_whose_start_is_off_the_map(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, registry: Registry) -> None:
    """Undo reaches the map before the log: it too must be one a command could make."""
    def moved(d: dict[str, Any]) -> None:
        token = d["encounter"]["tokens"][0]
        here = [token["x"], token["y"]]
        d["log"] = [{"command": {"type": "free_move", "token": token["id"], "to": here},
                     "events": [{"type": "token_moved", "token": token["id"],
                                 "path": [[10**9, 10**9], here], "cost": 0.0}]}]
    path = hostile(tmp_path, moved)
    storage.load(path, registry)  # the saved map itself is fine
    err = refused(capsys, "check", str(path))
    assert "undoing the whole log gives a map no command could make" in err
    assert "stands off the 30×20 map" in err


# --------------------------------------------------------------------------- 2: seed


def test_play_checks_seed_like_new_so_what_it_writes_reads_back(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "f.tacmap"
    path.write_bytes(DEMO.read_bytes())
    s = script(tmp_path, '{"type": "rename_encounter", "name": "X"}')
    code, _, err = run(capsys, "play", str(path), "--script", str(s), "--seed", "1000000001",
                       "--out", str(path))
    assert code == 2 and "--seed must be 0 to 1,000,000,000" in err
    assert path.read_bytes() == DEMO.read_bytes()  # the GM's file is untouched
    code, _, err = run(capsys, "play", str(path), "--script", str(s), "--seed", "1000000000",
                       "--out", str(path))
    assert code == 0, err
    assert run(capsys, "check", str(path))[0] == 0


# --------------------------------------------------------------------------- 3: surrogates


def test_a_lone_surrogate_in_a_script_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    s = script(tmp_path, '{"type": "rename_encounter", "name": "\\ud800"}')
    err = refused(capsys, "play", str(DEMO), "--script", str(s), "--out",
                  str(tmp_path / "o.tacmap"))
    assert "line 1: text holds a lone surrogate (\\ud800), which is not a character" in err
    assert not (tmp_path / "o.tacmap").exists()


def test_a_lone_surrogate_in_a_file_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = hostile(tmp_path, lambda d: d["encounter"]["tokens"][1].update(name="\udc80Barry"))
    assert "\\udc80Barry" in path.read_text(encoding="utf-8")
    err = refused(capsys, "check", str(path))
    assert "text holds a lone surrogate (\\udc80)" in err


def test_a_pair_of_surrogates_is_a_character_and_is_kept(registry: Registry) -> None:
    text = storage.dumps(skirmish_state(), []).replace('"name":"Encounter"',
                                                       '"name":"\\ud83d\\ude00 Ford"')
    assert storage.loads(text, registry).state.name == "\U0001f600 Ford"


def test_text_that_is_not_utf8_is_refused(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "f.tacmap"
    path.write_bytes(storage.encode(skirmish_state(), []).replace(b'"Encounter"',
                                                                  b'"\xed\xa0\x80"'))
    with pytest.raises(InputError, match="not UTF-8 text"):
        storage.load(path, registry)


def test_a_lone_surrogate_typed_by_the_gm_is_refused_and_saving_still_works(
        registry: Registry, tmp_path: Path) -> None:
    state = skirmish_state()
    ref = Referee(state, registry.get(state.ruleset))
    with pytest.raises(RuleError, match="lone surrogate"):
        ref.execute(RenameEncounter("\ud800"))
    assert not ref.log
    storage.save(tmp_path / "f.tacmap", ref.state, ref.log)


def test_roster_import_of_a_lone_surrogate_is_one_sentence(tmp_path: Path) -> None:
    export = tmp_path / "r.json"
    export.write_text('{"format": "tacmap-roster", "version": 1, "combatants": '
                      '[{"ruleset": "skirmish", "token": {"type": "token", "id": "a", '
                      '"name": "\\udc80Barry", "side": "x", "x": 0, "y": 0}}]}',
                      encoding="utf-8")
    with Roster(tmp_path / "roster.db") as roster:
        with pytest.raises(InputError, match=r"r\.json: text holds a lone surrogate"):
            roster.import_json(export)
        token = skirmish_state().tokens["ana"]
        token.name = "\udc80Ana"
        with pytest.raises(InputError, match=r"cannot be kept in the roster.*lone surrogate"):
            roster.add("skirmish", token)
        assert roster.search("skirmish") == []


def test_records_refuse_surrogates_in_python_text() -> None:
    with pytest.raises(InputError, match="lone surrogate"):
        records.parse('"\ud800"')
    with pytest.raises(InputError, match="name: text holds a lone surrogate"):
        records.check_text("a\udfff", "name")
    records.check_text("\U0001f600")


# --------------------------------------------------------------------------- 5: image folder


@pytest.mark.parametrize("folder", ["data:/../../secret", "data:x/../..", "../secret", "/etc"])
def test_the_image_folder_is_a_path_even_after_data(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, folder: str) -> None:
    path = hostile(tmp_path, lambda d: d.update(images=folder))
    err = refused(capsys, "check", str(path))
    assert f"images: folder {folder!r} escapes the encounter's folder" in err


def test_a_data_uri_is_still_an_image_value(tmp_path: Path, registry: Registry) -> None:
    uri = "data:image/png;base64,iVBORw0KGgo="
    path = hostile(tmp_path, lambda d: d["encounter"]["map"].update(image=uri))
    assert storage.load(path, registry).state.map.image == uri


# --------------------------------------------------------------------------- 6: crafted


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_list_nested_400_deep_in_encounter_data_is_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = hostile(tmp_path, lambda d: d["encounter"]["data"].update(x=_nested(400)))
    err = refused(capsys, "check", str(path))
    assert "encounter.data.x: the value is nested too deeply (more than 100 levels)" in err


def test_a_list_nested_400_deep_in_a_script_is_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = json.dumps({"type": "set_value", "token": "aldric", "key": "k",
                       "value": _nested(400)})
    err = refused(capsys, "play", str(DEMO), "--script", str(script(tmp_path, line)))
    assert "line 1: value: the value is nested too deeply" in err


def test_a_401_digit_integer_is_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    huge = "9" * 401
    path = tmp_path / "f.tacmap"
    path.write_text(DEMO.read_text(encoding="utf-8").replace('"hp":28', f'"hp":{huge}', 1),
                    encoding="utf-8")
    assert huge in path.read_text(encoding="utf-8")
    err = refused(capsys, "check", str(path))
    assert "encounter.tokens[0].hp: number of 401 digits is out of range" in err
    path.write_text(DEMO.read_text(encoding="utf-8").replace('"data":{}', f'"data":{{"n":{huge}}}',
                                                             1), encoding="utf-8")
    assert "encounter.data.n: number of 401 digits is out of range" in refused(
        capsys, "check", str(path))
    line = f'{{"type": "set_hp", "token": "aldric", "hp": {huge}}}'
    err = refused(capsys, "play", str(DEMO), "--script", str(script(tmp_path, line)))
    assert "line 1: hp: number of 401 digits is out of range" in err


# --------------------------------------------------------------------------- 8: smaller things


def test_check_refuses_a_named_pipe_without_waiting(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    fifo = tmp_path / "pipe.tacmap"
    os.mkfifo(fifo)
    err = refused(capsys, "check", str(fifo))
    assert "not a regular file (a pipe or a device), so it cannot be an encounter file" in err


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_saving_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "f.tacmap"
    for mode in (0o644, 0o640, 0o600):
        path.write_bytes(DEMO.read_bytes())
        path.chmod(mode)
        storage.save(path, skirmish_state(), [])
        assert stat.S_IMODE(path.stat().st_mode) == mode
    fresh = tmp_path / "new.tacmap"
    storage.save(fresh, skirmish_state(), [])
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_the_next_save_removes_temp_files_a_killed_save_left(tmp_path: Path) -> None:
    path = tmp_path / "f.tacmap"
    # Left by an older tacmap (no pid in the name, an hour old), and by a dead process.
    old = [tmp_path / ".f.tacmap.k1l2.tmp", tmp_path / ".f.tacmap.x9.tmp.bak"]
    stale = [*old, tmp_path / f".f.tacmap.{dead_pid()}.a1b2.tmp"]
    other = [tmp_path / ".g.tacmap.k1l2.tmp", tmp_path / "f.tacmap.tmp", tmp_path / "notes.tmp"]
    for p in (*stale, *other):
        p.write_text("half", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    for p in old:
        os.utime(p, (an_hour_ago, an_hour_ago))
    storage.save(path, skirmish_state(), [])
    storage.save(path, skirmish_state(), [])
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in other)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["f.tacmap", "f.tacmap.bak", *(p.name for p in other)])


def dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_save_leaves_another_process_s_save_in_flight_alone(tmp_path: Path) -> None:
    path = tmp_path / "f.tacmap"
    fresh_old_style = tmp_path / ".f.tacmap.q7r8.tmp"  # no pid, but written a moment ago
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        in_flight = tmp_path / f".f.tacmap.{alive.pid}.z0z0.tmp"
        for p in (fresh_old_style, in_flight):
            p.write_text("half", encoding="utf-8")
        storage.save(path, skirmish_state(), [])
        assert in_flight.exists() and fresh_old_style.exists()
    finally:
        alive.kill()
        alive.wait()
    storage.save(path, skirmish_state(), [])
    assert not in_flight.exists()


def test_a_refused_huge_command_is_not_echoed_whole(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    s = script(tmp_path, json.dumps({"type": "x" * 1_000_000}))
    err = refused(capsys, "play", str(DEMO), "--script", str(s))
    assert len(err) <= len("tacmap: ") + MAX_MESSAGE + 1
    assert "unknown command type 'xxxx" in err and "…" in err


_SAVER = """
import sys
from tacmap.engine.files import storage
from tacmap.engine.rules.ruleset import Registry
path = sys.argv[1]
loaded = storage.load(path, Registry())
state = loaded.state
print("ready", flush=True)
n = 0
while True:
    n += 1
    state.name = "Saved %d" % n
    storage.save(path, state, loaded.log)
"""


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_kill_9_during_saves_leaves_the_old_or_new_file_and_no_temp_files(
        tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "f.tacmap"
    path.write_bytes(DEMO.read_bytes())
    path.chmod(0o644)
    rng = random.Random(17)
    for _ in range(8):
        child = subprocess.Popen([sys.executable, "-c", _SAVER, str(path)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.15))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        name = storage.load(path, registry).state.name
        assert name.startswith("Saved ") or name == "Ambush at the Old Toll Gate"
        storage.load(path.with_name("f.tacmap.bak"), registry)
    loaded = storage.load(path, registry)
    storage.save(path, loaded.state, loaded.log)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.tacmap", "f.tacmap.bak"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_value_nested_400_deep_from_the_window_is_refused(registry: Registry) -> None:
    state = skirmish_state()
    ref = Referee(state, registry.get(state.ruleset))
    with pytest.raises(RuleError, match="value: the value is nested too deeply"):
        ref.execute(SetValue("ana", "k", _nested(400)))
    ref.execute(SetValue("ana", "k", [1, [2]]))
    assert ref.state.tokens["ana"].values["k"] == (1, (2,))
    assert ref.initial_state() == skirmish_state()


def test_check_refuses_a_log_that_passes_through_a_far_away_cell(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, registry: Registry) -> None:
    """Undo and redo visit every state of the log, not only its ends."""
    def there_and_back(d: dict[str, Any]) -> None:
        token = d["encounter"]["tokens"][0]
        here, far = [token["x"], token["y"]], [10**9, 10**9]
        d["log"] = [{"command": {"type": "free_move", "token": token["id"], "to": a},
                     "events": [{"type": "token_moved", "token": token["id"], "path": [b, a],
                                 "cost": 0.0}]} for b, a in ((here, far), (far, here))]
    path = hostile(tmp_path, there_and_back)
    storage.verify(storage.load(DEMO, registry))
    err = refused(capsys, "check", str(path))
    assert "log entry 1 gives a map no command could make" in err
    assert "stands off the 30×20 map" in err
