"""Issue 17: Save and autosave survive failures other than a full disk.

Whatever stops the file from being written, the GM is told in one sentence,
the old file is untouched, and the encounter stays open and unsaved (so
nothing is lost and Save can be tried again).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import FreeMove
from tacmap.ui.window import MainWindow


def _broken(err: BaseException) -> Any:
    def encode(*args: Any) -> bytes:
        raise err
    return encode


@pytest.mark.parametrize("err", [msgspec.EncodeError("Unsupported type: Widget"),
                                 ValueError("Out of range float values are not JSON compliant"),
                                 RecursionError("maximum recursion depth exceeded")])
def test_save_that_cannot_encode_tells_the_gm_and_keeps_the_old_file(
        window: MainWindow, encounter_file: Path, monkeypatch: pytest.MonkeyPatch,
        err: BaseException) -> None:
    window.run(FreeMove("ana", (2, 2)))
    before = encounter_file.read_bytes()
    monkeypatch.setattr(storage, "_encode_file", _broken(err))
    assert window.files.save() is False
    told = window.told  # type: ignore[attr-defined]
    assert told[-1].startswith(f"Could not save {encounter_file}: the encounter cannot be "
                               "written (")
    assert told[-1].count("\n") == 0
    assert encounter_file.read_bytes() == before
    assert window.session.dirty
    assert not list(encounter_file.parent.glob(".*.tmp"))
    monkeypatch.undo()
    assert window.files.save() is True
    assert not window.session.dirty


def test_autosave_that_cannot_encode_says_so_in_the_status_bar(
        window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    window.session.autosave_now()
    earlier = window.session.autosave_path.read_bytes()
    monkeypatch.setattr(storage, "_encode_file", _broken(msgspec.EncodeError("Unsupported type")))
    window.run(FreeMove("ana", (2, 2)))
    window.session.autosave_now()
    assert window.statusBar().currentMessage().startswith(
        "autosave failed: the encounter cannot be written (EncodeError")
    assert window.session.autosave_path.read_bytes() == earlier  # the last good one is kept
    assert window.session.referee.state.tokens["ana"].cell == (2, 2)
