"""Where the file dialogs start: the encounter's folder, not where tacmap was started."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.ui import files as files_module
from tacmap.ui import imports as imports_module
from tacmap.ui.window import MainWindow


def test_the_file_dialogs_start_in_the_encounters_folder(
        window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    """Roster Import/Export, the fight report, Import Map and Open opened in the folder
    tacmap was started from (a desktop launch: anywhere)."""
    folder = window.session.path.parent  # type: ignore[union-attr]
    started: list[str] = []

    def picked(parent: object, title: str, start: str, *rest: object) -> tuple[str, str]:
        started.append(start)
        return "", ""

    monkeypatch.setattr(files_module.QFileDialog, "getOpenFileName", picked)
    monkeypatch.setattr(files_module.QFileDialog, "getSaveFileName", picked)
    window.files.open_dialog()
    imports_module.import_map(window, window.files)
    imports_module.export_report(window)
    window.rosters.import_roster()
    window.rosters.export_roster()
    assert len(started) == 5
    assert all(Path(s) == folder or Path(s).parent == folder for s in started), started
