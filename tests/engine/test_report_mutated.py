"""Issue 33 item 15: ``tacmap report`` on a file whose log does not fit its map (edited or
damaged) says so in one sentence, exits 2 and writes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tacmap.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: A self-crossing polygon (a bow tie): GEOS cannot union or draw it.
BOW_TIE = [[[[0, 0], [10, 10], [10, 0], [0, 10]]]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo after its two-round script: a log with moves, damage, fog explored."""
    out = tmp_path_factory.mktemp("played") / "demo.tacmap"
    assert main(["play", str(ROOT / "resources" / "demo.tacmap"), "--script",
                 str(ROOT / "resources" / "demo-two-rounds.jsonl"), "--out", str(out)]) == 0
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _first(data: dict[str, Any], kind: str) -> dict[str, Any]:
    """The first event of type ``kind`` in the log."""
    return next(ev for entry in data["log"] for ev in entry["events"] if ev["type"] == kind)


def _ghost_hit(data: dict[str, Any]) -> None:
    _first(data, "hp_changed")["token"] = "ghost"


def _ghost_move(data: dict[str, Any]) -> None:
    _first(data, "token_moved")["token"] = "ghost"


def _token_gone(data: dict[str, Any]) -> None:
    hurt = _first(data, "hp_changed")["token"]
    data["encounter"]["tokens"] = [t for t in data["encounter"]["tokens"] if t["id"] != hurt]


def _fog_bow_tie(data: dict[str, Any]) -> None:
    _first(data, "explored")["old"] = BOW_TIE


@pytest.mark.parametrize("mutate", [_ghost_hit, _ghost_move, _token_gone, _fog_bow_tie],
                         ids=["damage to a token not on the map", "a move of a token not on "
                              "the map", "a token the log names removed",
                              "a self-crossing fog polygon in the log"])
def test_a_report_of_a_log_that_does_not_fit_is_one_sentence_and_nothing_written(
        played: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        mutate: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(json.dumps(played))
    mutate(data)
    path = tmp_path / "edited.tacmap"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "report.html"
    for gm in ([], ["--gm"]):
        assert main(["report", str(path), str(out), *gm]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "Traceback" not in err and "internal error" not in err
        assert err.startswith(f"tacmap: {path}: ")
        assert "does not match the map" in err or "no command could make" in err
        assert "KeyError" not in err and "('" not in err  # no Python in the sentence
        assert err.endswith("no report was written")
        assert not out.exists() and list(tmp_path.iterdir()) == [path]
