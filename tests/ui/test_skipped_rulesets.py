"""Issue 33 item 17: the window opens past a broken ruleset folder in TACMAP_RULESETS and
says so in a dialog, not only on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import ENV_VAR, Registry
from tacmap.ui.app import open_window, skipped_box
from tacmap.ui.qt import QMessageBox, Qt

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo.tacmap"


def test_the_window_opens_a_built_in_encounter_and_names_the_skipped_folder(
        qtbot: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "mine" / "bad"
    broken.mkdir(parents=True)
    (broken / "ruleset.toml").write_text("id = [\n", encoding="utf-8")  # not TOML
    monkeypatch.setenv(ENV_VAR, f"{tmp_path / 'gone'}{os.pathsep}{broken.parent}")
    registry = Registry(warn=lambda message: None)
    _, window = open_window(registry, DEMO)
    try:
        assert window.session.referee.state.ruleset in registry.ids()
        box = skipped_box(registry.skipped, window)
        assert isinstance(box, QMessageBox)
        assert box.textFormat() == Qt.TextFormat.PlainText
        text = box.text()
        assert text.startswith(f"tacmap skipped 2 ruleset folders named in {ENV_VAR}:")
        assert f"ruleset folder {tmp_path / 'gone'} does not exist" in text
        assert f"{broken / 'ruleset.toml'}: cannot read ruleset manifest" in text
    finally:
        window.close()
