"""The command line of DESIGN §6: output, exit codes, one-line errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap import __version__
from tacmap.cli import main
from tacmap.engine.files import storage
from tests.conftest import TEST_RULESETS

R = ["--rulesets-dir", str(TEST_RULESETS)]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*R, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"tacmap {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "measure" in capsys.readouterr().out


def test_rulesets_lists_id_name_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rulesets")
    assert code == 0
    assert f"skirmish\tSkirmish (test ruleset)\t1.0  (from {TEST_RULESETS / 'skirmish'})" in out
    assert err == ""  # listing reads ruleset.toml only; no ruleset code runs
    code, _, err = run(capsys, "measure", "--ruleset", "skirmish", "0,0", "1,1")
    assert "a ruleset folder is code" in err  # said before a user folder's code is loaded


@pytest.mark.parametrize(("points", "metres"), [(["0,0", "3,4"], "7 m"),
                                                (["0,0", "3,0", "3,3"], "6 m")])
def test_measure_uses_the_rulesets_diagonal_rule(capsys: pytest.CaptureFixture[str],
                                                 points: list[str], metres: str) -> None:
    code, out, _ = run(capsys, "measure", "--ruleset", "skirmish", *points)
    assert (code, out.strip()) == (0, metres)
    code, out, _ = run(capsys, "measure", "--ruleset", "skirmish", "--diagonal", "chebyshev",
                       "0,0", "3,4")
    assert out.strip() == "4 m"


def test_the_environment_variable_adds_ruleset_folders(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TACMAP_RULESETS", str(TEST_RULESETS))
    assert main(["measure", "--ruleset", "skirmish", "0,0", "3,4"]) == 0
    assert capsys.readouterr().out.strip() == "7 m"


@pytest.mark.parametrize(("args", "message"), [
    (["measure", "--ruleset", "nope", "0,0", "1,1"], "unknown ruleset 'nope'"),
    (["measure", "--ruleset", "skirmish", "0,0", "x"], "'x' is not a cell"),
    (["measure", "--ruleset", "skirmish", "0,0"], "at least two points"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["frobnicate.tacmap"], "frobnicate.tacmap: no such file"),
    (["check"], "required: FILE"),
    (["--rulesets-dir", "/no/such/dir", "rulesets"], "does not exist"),
])
def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str],
                                            message: str) -> None:
    code = main([*R, *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tacmap")


def test_a_seed_out_of_range_is_one_sentence_naming_play(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: no wrapped usage lines, and the sub-command's own help is named."""
    demo = Path(__file__).parents[1] / "resources" / "demo.tacmap"
    assert main(["play", str(demo), "--script", os.devnull, "--seed", "1000000001"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("tacmap play: --seed must be 0 to 1,000,000,000, not 1,000,000,001 "
                           "— usage: tacmap play [-h]")
    assert line.endswith("(see tacmap play --help)")


def test_a_script_gets_the_checks_an_encounter_file_gets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23 item 6: /dev/zero, a folder or an oversized script is one sentence, exit 2."""
    demo = Path(__file__).parents[1] / "resources" / "demo.tacmap"
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(storage.MAX_BYTES + 1)  # sparse: nothing is written to the disk
    for script, said in (("/dev/zero", "/dev/zero: not a regular file (a pipe or a device)"),
                         (str(tmp_path), "is a folder, not a script file"),
                         (str(big), f"the file is {storage.MAX_BYTES + 1:,} bytes, more than "
                                    "a script can be")):
        assert main(["play", str(demo), "--script", script]) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.splitlines()) == 1


def test_new_check_and_no_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cave.tacmap"
    code, out, _ = run(capsys, "new", "--ruleset", "skirmish", "--size", "40x25", "--seed", "3",
                       str(path))
    assert code == 0 and "40×25" in out
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and "ruleset skirmish 1.0, 40×25 m, 0 tokens" in out
    before = path.read_bytes()
    code, _, err = run(capsys, "new", "--ruleset", "skirmish", str(path))
    assert code == 2 and "already exists" in err
    assert path.read_bytes() == before


def test_check_a_bad_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.tacmap"
    path.write_text('{"format": "tacmap-encounter", "version": 1, "ruleset": {"id": "skir')
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    assert err.strip() == f"tacmap: {path}: the file ends too early: it looks truncated"


def _encounter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    from tacmap.engine.files import storage
    from tacmap.engine.rules.ruleset import Registry
    from tests.engine.helpers import skirmish_state

    path = tmp_path / "fight.tacmap"
    state = skirmish_state()
    storage.save(path, state, [])
    Registry([TEST_RULESETS], warn=lambda m: None)
    capsys.readouterr()
    return path


SCRIPT = """\
# two attacks and a move
{"type": "start_combat", "order": ["ana", "grul", "bo", "zog"]}
{"type": "attack", "actor": "ana", "target": "grul"}
{"type": "move", "actor": "ana", "path": [[1, 4]]}
{"type": "end_turn"}
"""


def test_play_prints_events_and_is_repeatable(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _encounter(tmp_path, capsys)
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    out_file = tmp_path / "after.tacmap"
    code, first, _ = run(capsys, "play", str(path), "--script", str(script), "--seed", "9",
                         "--out", str(out_file))
    assert code == 0
    assert "Ana rolls 1d20" in first and "Ana moves (1,1) → (1,4), 3 m" in first
    assert "Ana leaves the reach of Grul" in first
    code, second, _ = run(capsys, "play", str(path), "--script", str(script), "--seed", "9")
    assert second == first
    code, out, _ = run(capsys, "check", str(out_file))
    assert "4 log entries" in out


def test_play_with_fixed_dice_and_json(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = _encounter(tmp_path, capsys)
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    code, out, _ = run(capsys, "play", str(path), "--script", str(script), "--dice", "19,5",
                       "--json")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    rolls = [e["roll"]["faces"] for e in events if e["type"] == "dice_rolled"]
    assert rolls == [[19], [5]]
    assert {"type": "hp_changed", "token": "grul", "old": 6, "new": 1, "why": "damage"} in events


def test_an_illegal_command_stops_the_script_and_saves_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _encounter(tmp_path, capsys)
    before = path.read_bytes()
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT + '{"type": "attack", "actor": "ana", "target": "grul"}\n')
    out_file = tmp_path / "after.tacmap"
    code, out, err = run(capsys, "play", str(path), "--script", str(script), "--out",
                         str(out_file))
    assert code == 2
    assert "» end_turn" in out  # the events before it were reported
    assert f"{script} line 6: it is not Ana's turn" in err
    assert err.rstrip().endswith("(stopped here; nothing was saved) — attack actor=ana "
                                 "target=grul")
    # A refusal is one line: the trust warning is for commands that ran (issue 23).
    assert [line.split(":")[0] for line in err.strip().splitlines()] == ["tacmap"]
    assert not out_file.exists() and path.read_bytes() == before


def test_a_refused_command_pages_long_still_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33: a set_walls line of thousands of walls was echoed until the line was
    cut, and the reason was cut with it."""
    path = _encounter(tmp_path, capsys)
    walls = [{"type": "wall", "points": [[1.0, 1.0 + i * 1e-3], [9.0, 8.0 - i * 1e-3]]}
             for i in range(2_100)]  # 2,203,950 pairs, all through (5, 4.5)
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"type": "set_walls", "walls": walls}) + "\n")
    code, _, err = run(capsys, "play", str(path), "--script", str(script))
    assert code == 2 and err.count("\n") == 1
    assert ("to work out sight (more than 2,000,000 pairs of wall pieces within 2 m of each "
            "other) (stopped here; nothing was saved)") in err


@pytest.mark.parametrize(("line", "message"), [
    ('{"type": "attack", "actor": "ana"}', "line 1: missing field 'target' for attack"),
    ('{"type": "move", "actor": "ana", "path": [[NaN, 1]]}', "line 1: NaN is not a number"),
    ("not json", "line 1: not valid JSON"),
])
def test_a_bad_script_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    line: str, message: str) -> None:
    path = _encounter(tmp_path, capsys)
    script = tmp_path / "s.jsonl"
    script.write_text(line + "\n")
    code, _, err = run(capsys, "play", str(path), "--script", str(script))
    assert code == 2 and message in err


@pytest.mark.parametrize(("line", "sentence"), [
    ('{"type": "move", "actor": "ana", "path": [[1, "x"]]}',
     "path[0][1]: expected a whole number, got 'x'"),
    ('{"type": "set_value", "token": "ana", "key": "k", "value": {"a": [1, 1e12]}}',
     "value.a[1]: number 1e+12 is out of range (limit ±1,000,000,000)"),
    ('{"type": "attack", "actor": "ana", "target": "grul", "reach": 2}',
     "reach: unknown field for attack"),
    ('{"type": "fly", "actor": "ana"}', "unknown command type 'fly'"),
])
def test_a_bad_value_in_a_script_line_is_one_sentence_with_its_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, sentence: str) -> None:
    path = _encounter(tmp_path, capsys)
    script = tmp_path / "s.jsonl"
    script.write_text("# a comment\n\n" + line + "\n")
    code, out, err = run(capsys, "play", str(path), "--script", str(script))
    assert (code, out) == (2, "")
    assert err.strip().splitlines()[-1] == f"tacmap: {script} line 3: {sentence}"


def test_the_installed_command_runs(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tacmap", *R, "measure", "--ruleset",
                           "skirmish", "0,0", "3,4"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "7 m"


def test_bench_quick_reports_every_engine_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--json", "--quick")
    figures = json.loads(out)
    # Exit 1 exactly when a figure is over its budget (a loaded machine may be).
    assert code == (0 if all(f["ok"] for f in figures) else 1)
    names = [f["name"] for f in figures]
    for expected in ["preview per mouse move", "undo + redo", "save 2,000", "load 2,000"]:
        assert any(n.startswith(expected) for n in names)
    assert any(n.startswith("map: ") for n in names)  # the CLI adds the map's figures
    assert "map: ruler, one mouse move with 500 walls" in names


def test_render_draws_the_map_to_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tacmap.ui.qt import QImage

    path = _encounter(tmp_path, capsys)
    out = tmp_path / "map.png"
    code, text, _ = run(capsys, "render", str(path), str(out), "--scale", "20")
    assert code == 0 and text.strip() == f"{out}: 240×200 px"
    image = QImage(str(out))
    assert (image.width(), image.height()) == (240, 200)
    # Ana's disc (party blue) sits on cell (1,1): its centre is blue, not parchment.
    centre = image.pixelColor(30, 30)
    assert centre.blue() > centre.red()
    code, text, _ = run(capsys, "render", str(path), str(tmp_path / "p.png"), "--player")
    assert code == 0 and "(player view)" in text
    code, _, err = run(capsys, "render", str(path), str(tmp_path / "no" / "x.png"))
    assert code == 2 and "cannot write" in err


def test_no_screen_is_one_sentence_not_a_crash(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(capsys, "open", "whatever.tacmap")
    assert code == 2 and "there is no screen to open a window on" in err


def test_new_encounters_always_reopen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A random seed must stay within what a file may hold, every time.
    for i in range(12):
        path = tmp_path / f"n{i}.tacmap"
        assert run(capsys, "new", "--ruleset", "skirmish", str(path))[0] == 0
        assert run(capsys, "check", str(path))[0] == 0


def test_check_refuses_a_log_with_every_entry_twice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: each replayed event must start from the value it says it changes."""
    demo = Path(__file__).parents[1] / "resources" / "demo.tacmap"
    script = Path(__file__).parents[1] / "resources" / "demo-two-rounds.jsonl"
    played = tmp_path / "played.tacmap"
    assert main(["play", str(demo), "--script", str(script), "--seed", "7",
                 "--out", str(played)]) == 0
    assert main(["check", str(played)]) == 0
    doc = json.loads(played.read_text(encoding="utf-8"))
    doc["log"] = [entry for entry in doc["log"] for _ in range(2)]
    doubled = tmp_path / "doubled.tacmap"
    doubled.write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(doubled)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tacmap: {doubled}: log entry ")
    assert "does not match the map: its " in err
    n = int(err.split("log entry ")[1].split()[0])
    assert n % 2 == 0  # the first copy that replays onto a map its original already changed


def test_a_script_on_standard_input_is_read_up_to_the_same_limit(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    demo = Path(__file__).parents[1] / "resources" / "demo.tacmap"
    monkeypatch.setattr(storage, "MAX_BYTES", 10_000)  # the demo is smaller; the script not
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"#" * 10_001)))
    assert main(["play", str(demo), "--script", "-"]) == 2
    assert capsys.readouterr().err == ("tacmap: standard input: the script is more than 10,000 "
                                       "bytes, more than a script can be\n")


# --- issue 33 item 19: messages ---------------------------------------------------------

DEMO_FILE = Path(__file__).resolve().parents[1] / "resources" / "demo.tacmap"


def test_a_long_refused_command_gives_its_reason_before_the_cut(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Nobody is on the map, and the path is long: the reason must still be read.
    path = [[x, 1] for x in range(1, 30)] * 8
    script = tmp_path / "long.jsonl"
    script.write_text(json.dumps({"type": "move", "actor": "nobody", "path": path}) + "\n")
    assert main(["play", str(DEMO_FILE), "--script", str(script)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and len(err) <= 520
    assert err.startswith(f"tacmap: {script} line 1: ")
    reason = err.removeprefix(f"tacmap: {script} line 1: ")
    assert "stopped here; nothing was saved" in reason
    assert "nobody" in reason[:reason.index("stopped here")]  # the refusal's own words
    assert reason.index("stopped here") < reason.index("move actor=nobody")


def test_a_negative_roll_is_a_roll_not_a_missing_argument(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "-1d6", "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith("-d6: average -3.50, from -6 to -1")
    assert main(["roll", "--target", "-3", "-1d6", "--seed", "3"]) == 0  # still a target
    assert capsys.readouterr().out.splitlines()[-1] == "- d6 [4] = -4 — short of -3"


def test_text_where_a_number_belongs_is_told_apart_from_a_number(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "hp.jsonl"
    script.write_text('{"type": "set_hp", "token": "aldric", "hp": "4"}\n')
    assert main(["play", str(DEMO_FILE), "--script", str(script)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"tacmap: {script} line 1: hp: expected a whole number, got '4' (text in quotes: write "
        "numbers without them)")


def test_check_counts_in_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.tacmap"
    assert main(["new", "--ruleset", "action_pool", str(path), "--seed", "1"]) == 0
    data = json.loads(path.read_text())
    data["encounter"]["tokens"] = [{"type": "token", "id": "solo", "name": "Solo",
                                    "side": "heroes", "x": 1, "y": 1}]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["check", str(path)]) == 0
    assert "1 token, 0 walls, 0 log entries" in capsys.readouterr().out


def test_check_refuses_a_header_whose_ruleset_version_disagrees_with_the_body(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40 item 7: a header that disagreed with the body passed silently, and an empty
    version printed "ruleset action_pool ,"."""
    path = tmp_path / "one.tacmap"
    assert main(["new", "--ruleset", "action_pool", str(path), "--seed", "1"]) == 0
    data = json.loads(path.read_text())
    body = data["encounter"]["ruleset_version"]
    data["ruleset"]["version"] = "9.9"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f'ruleset.version "9.9" differs from encounter.ruleset_version "{body}"' in err
    assert err.count("\n") == 1
    data["ruleset"]["version"] = data["encounter"]["ruleset_version"] = ""
    path.write_text(json.dumps(data))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ruleset action_pool (no version)," in out and " ," not in out
