"""`tacmap play` on both shipped demos prints exactly what it printed before the
ruleset-shape refactor (issue 11): the transcripts are kept as fixtures, with and
without ``--json``, and a file saved by that version still opens and plays on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

DEMOS = [
    ("action_pool-demo-seed7", "demo.tacmap", "demo-two-rounds.jsonl", "7"),
    ("speed_rank-demo-seed3", "speed_rank_demo.tacmap", "speed_rank_demo-three-rounds.jsonl",
     "3"),
]


@pytest.mark.parametrize(("name", "demo", "script", "seed"), DEMOS)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_play_transcript_is_byte_identical(
        capsys: pytest.CaptureFixture[str], name: str, demo: str, script: str, seed: str,
        as_json: bool) -> None:
    res = ROOT / "resources"
    args = ["play", str(res / demo), "--script", str(res / script), "--seed", seed]
    code = main([*args, "--json"] if as_json else args)
    out = capsys.readouterr().out
    expected = (FIXTURES / "transcripts" / f"{name}.{'jsonl' if as_json else 'txt'}").read_text(
        encoding="utf-8")
    assert code == 0
    assert out == expected


@pytest.mark.parametrize("name", ["action_pool-v1-played", "speed_rank-v1-played"])
def test_a_file_saved_by_version_1_still_checks(
        capsys: pytest.CaptureFixture[str], name: str) -> None:
    code = main(["check", str(FIXTURES / "files" / f"{name}.tacmap")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err == ""
