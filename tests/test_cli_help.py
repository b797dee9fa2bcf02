"""Issue 29 items 1–6: a command line that helps (suggestions, usage, help, formats, pipes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.cli import build_parser, main
from tacmap.ui.demos import demo_folder

DEMO = demo_folder() / "demo.tacmap"
SCRIPT = demo_folder() / "demo-two-rounds.jsonl"
TACMAP = Path(sys.executable).parent / "tacmap"


def test_a_typo_is_an_unknown_command_with_a_suggestion_and_no_window(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import tacmap.ui.app

    def no_window(*_: object) -> int:
        raise AssertionError("a window was opened")

    monkeypatch.setattr(tacmap.ui.app, "run", no_window)
    assert main(["rulset"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'rulset'" in err and "did you mean `rulesets`?" in err
    assert len(err.strip().splitlines()) == 1


def test_a_usage_error_shows_that_commands_usage_on_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--ruleset", "action_pool", "1,1", "2,2", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tacmap measure: unrecognized arguments: --bogus")
    assert "usage: tacmap measure [-h] --ruleset ID" in err
    assert len(err.strip().splitlines()) == 1


def test_measure_takes_negative_cells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--ruleset", "action_pool", "-2,0", "3,4"]) == 0
    assert capsys.readouterr().out.strip() == "9 m"


@pytest.mark.parametrize("command", ["rulesets", "demos", "open", "render", "new", "check",
                                     "measure", "play", "roll", "bench"])
def test_every_command_help_has_a_description_explained_options_and_an_example(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    sub = {a.dest: a for a in build_parser()._actions}["command"].choices[command]
    assert sub.description and sub.description.split()[0] in text
    assert f"examples:\n  tacmap {command}" in text or f"  tacmap {command}" in text
    for action in sub._actions:
        assert action.help, f"{command} {action.option_strings or action.dest} has no help"


def test_ruleset_help_lists_ids_and_render_scale_is_per_cell(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    assert "action_pool, opposed, reflex, six_phase, speed_rank" in \
        " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["render", "--help"])
    assert "pixels per cell" in " ".join(capsys.readouterr().out.split())


def test_play_commands_lists_every_command_type_with_fields(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--commands"]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_type = {line.split()[0]: line.split()[1:] for line in lines}
    assert by_type["attack"][:3] == ["actor", "target", "[weapon]"]
    assert "start_combat" in by_type and "end_turn" in by_type
    assert "opposed_run" in by_type  # a ruleset's own command is listed too


def test_demos_lists_paths_and_new_demo_copies_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demos"]) == 0
    out = capsys.readouterr().out
    assert f"action_pool\tAmbush at the Old Toll Gate\t{DEMO}" in out
    assert str(SCRIPT) in out
    copy = tmp_path / "fight.tacmap"
    assert main(["new", "--demo", "action_pool", str(copy)]) == 0
    assert copy.read_bytes() == DEMO.read_bytes()
    assert main(["new", "--demo", "action_pool", str(copy)]) == 2  # no overwrite
    assert main(["new", "--demo", "nope", str(tmp_path / "x.tacmap")]) == 2
    assert "no demo for 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "magic"), [("map.png", b"\x89PNG"), ("map.jpg", b"\xff\xd8"),
                                             ("map.JPEG", b"\xff\xd8"), ("map.webp", b"RIFF")])
def test_render_writes_the_format_the_name_asks_for(
        tmp_path: Path, name: str, magic: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / name
    assert main(["render", str(DEMO), str(out), "--scale", "10"]) == 0
    assert out.read_bytes().startswith(magic)


def test_render_refuses_another_format_with_a_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(DEMO), str(tmp_path / "map.gif")]) == 2
    assert "render writes .png, .jpg/.jpeg or .webp" in capsys.readouterr().err
    assert not (tmp_path / "map.gif").exists()


def test_a_closed_pipe_still_writes_out_and_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "after.tacmap"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TACMAP_HOME": str(tmp_path)}
    play = subprocess.Popen([str(TACMAP), "play", str(DEMO), "--script", str(SCRIPT),
                             "--seed", "7", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert play.stdout is not None and play.stderr is not None
    play.stdout.readline()
    play.stdout.close()  # the reader leaves, as head does
    err = play.stderr.read().decode()
    assert play.wait(timeout=120) == 0, err
    assert "Broken pipe" not in err and "Exception" not in err
    assert main(["check", str(out)]) == 0
    assert len(json.loads(out.read_text("utf-8"))["log"]) > 30


def test_check_warns_when_the_ruleset_major_version_differs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(DEMO.read_text("utf-8"))
    doc["ruleset"]["version"] = doc["encounter"]["ruleset_version"] = "2.0"
    newer = tmp_path / "newer.tacmap"
    newer.write_text(json.dumps(doc), "utf-8")
    assert main(["check", str(newer)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "action_pool 2.0, installed is 1.0" in err
    assert "may have changed the rules" in err
    doc["ruleset"]["version"] = doc["encounter"]["ruleset_version"] = "1.3"
    newer.write_text(json.dumps(doc), "utf-8")
    assert main(["check", str(newer)]) == 0
    assert capsys.readouterr().err == ""  # a minor difference is no news
