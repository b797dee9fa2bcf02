"""Issue 29 items 7–8: settings in one place, a rotated log, the log folder after a crash."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import applog, settings
from tacmap.ui.qt import QApplication, QMessageBox, QTimer
from tacmap.ui.session import Session, place_of, recent, remember, remember_place
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state
from tests.ui.conftest import shown


def test_recent_files_and_window_places_share_one_settings_file(
        tacmap_home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.tacmap", tmp_path / "b.tacmap"
    first.write_text("{}")
    second.write_text("{}")
    remember(first)
    remember(second)
    remember_place("main", b"geometry")
    assert recent() == [second.resolve(), first.resolve()]
    assert place_of("main") == b"geometry"
    data = json.loads((tacmap_home / "settings.json").read_text("utf-8"))
    assert set(data) == {"recent", "windows"}
    assert not (tacmap_home / "recent.json").exists()
    assert not (tacmap_home / "windows.json").exists()


def test_the_old_files_are_read_once_for_existing_users(tacmap_home: Path,
                                                        tmp_path: Path) -> None:
    kept = tmp_path / "kept.tacmap"
    kept.write_text("{}")
    tacmap_home.mkdir(parents=True)
    (tacmap_home / "recent.json").write_text(json.dumps([str(kept)]))
    (tacmap_home / "windows.json").write_text(json.dumps({"main": "Z2VvbQ=="}))
    (tacmap_home / "trusted_rulesets.json").write_text(json.dumps({"/x\nabc": True}))
    assert recent() == [kept]
    assert place_of("main") == b"geom"
    assert settings.get("trusted_rulesets", settings.flag_map) == {"/x\nabc": True}
    # From now on the settings file is the one place: the old one is not read again.
    (tacmap_home / "recent.json").write_text(json.dumps([]))
    assert recent() == [kept]


def test_a_damaged_settings_file_costs_the_settings_not_the_start(tacmap_home: Path) -> None:
    tacmap_home.mkdir(parents=True)
    (tacmap_home / "settings.json").write_text("{not json")
    assert recent() == [] and place_of("main") is None
    (tacmap_home / "settings.json").write_text(json.dumps({"recent": 3, "windows": [1]}))
    assert recent() == [] and place_of("main") is None


def test_a_damaged_settings_file_is_kept_aside_and_said_once(
        qtbot: object, tacmap_home: Path, registry: Registry, encounter_file: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 33 item 18: the trust answers in it are not silently thrown away."""
    tacmap_home.mkdir(parents=True)
    garbage = '{"trusted_rulesets": {"/mine/abc": true}, "recent": ['
    (tacmap_home / "settings.json").write_text(garbage)
    with caplog.at_level(logging.WARNING, logger="tacmap"):
        assert settings.get("trusted_rulesets", settings.flag_map) == {}
    [aside] = tacmap_home.glob("settings.json.bad-*")
    assert aside.read_text() == garbage
    assert [r.getMessage() for r in caplog.records if aside.name in r.getMessage()]
    remember(encounter_file)  # the next write starts a fresh file beside the one kept
    assert aside.read_text() == garbage and recent() == [encounter_file.resolve()]
    # The window says it once: the first window after it happened, and no other.
    told: list[list[str]] = [[], []]
    for heard in told:
        win = MainWindow(registry, Session(registry, skirmish_state()), ask=lambda q: False,
                         tell=heard.append)
        shown(qtbot, win, (900, 600))
        QApplication.processEvents()
    assert len(told[0]) == 1 and aside.name in told[0][0] and told[1] == []


def test_the_log_is_rotated_in_the_log_folder(tacmap_home: Path) -> None:
    where = applog.start()
    assert where == tacmap_home / "logs"
    applog.logger.info("a line the GM can find")
    for handler in applog.logger.handlers:
        handler.flush()
    text = (where / applog.LOG).read_text("utf-8")
    assert "tacmap 0.1.0 started" in text and "a line the GM can find" in text
    [handler] = [h for h in applog.logger.handlers if getattr(h, "tacmap_log", False)]
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert handler.maxBytes * (handler.backupCount + 1) <= 5_000_000


def test_a_hard_crash_is_written_to_the_log_folder(tmp_path: Path) -> None:
    code = (f"import os, faulthandler; os.environ['TACMAP_HOME'] = {str(tmp_path)!r}\n"
            "from tacmap.ui import applog; applog.start(); faulthandler._sigsegv()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode != 0
    assert "Fatal Python error" in (tmp_path / "logs" / applog.CRASH).read_text("utf-8")


def test_the_restore_question_offers_the_log_folder(
        qtbot: object, tacmap_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[bool] = []
    monkeypatch.setattr(applog, "open_folder", lambda: opened.append(True) or True)
    clicks = iter(["Open Log Folder", "yes"])

    def answer() -> None:
        from tacmap.ui.qt import QApplication

        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        assert str(tacmap_home / "logs") in box.text()
        what = next(clicks)
        button = box.button(QMessageBox.StandardButton.Yes) if what == "yes" else \
            next(b for b in box.buttons() if b.text() == what)
        button.click()
        if what != "yes":
            QTimer.singleShot(20, answer)

    QTimer.singleShot(20, answer)
    assert applog.restore_question("tacmap closed without saving. Restore?")
    assert opened == [True]
    assert next(clicks, None) is None  # asked again after the folder, then answered


def _run(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh Python whose tacmap home is ``home``."""
    full = (f"import os; os.environ['TACMAP_HOME'] = {str(home)!r}\n"
            "from tacmap.ui import applog\n" + code)
    return subprocess.run([sys.executable, "-c", full], capture_output=True, text=True,
                          timeout=60)


def test_crash_log_blocks_are_headed_kept_for_crashes_only_and_told_once(
        tmp_path: Path) -> None:
    """Issue 40 item 8: crash.log was never rotated and its blocks carried no date, version
    or process id; after a crash with nothing to restore nobody was told."""
    crash = tmp_path / "logs" / applog.CRASH
    assert _run("applog.start()", tmp_path).returncode == 0
    assert crash.read_text("utf-8") == "", "a clean run leaves no block"
    for _ in range(2):
        assert _run("import faulthandler; applog.start(); faulthandler._sigsegv()",
                    tmp_path).returncode != 0
    text = crash.read_text("utf-8")
    heads = [line for line in text.splitlines() if line.startswith(applog.CRASH_HEAD)]
    assert len(heads) == 2 and heads[0] != heads[1]  # two crashes told apart
    assert all("process" in h and "started" in h and "UTC" in h for h in heads)
    assert text.count("Fatal Python error") == 2
    told = _run("applog.start(); print(applog.crash_notice()); print(applog.crash_notice())",
                tmp_path)
    first, second = told.stdout.splitlines()
    assert first.startswith("tacmap stopped unexpectedly last time") and str(crash) in first
    assert "wherever you got tacmap" in first and second == ""
    assert _run("applog.start(); print(repr(applog.crash_notice()))",
                tmp_path).stdout.strip() == "''", "said once: the next start is quiet"


def test_crash_log_is_rotated_at_start(tmp_path: Path) -> None:
    crash = tmp_path / "logs" / applog.CRASH
    crash.parent.mkdir(parents=True)
    crash.write_text("x" * (applog.MAX_BYTES + 10), "utf-8")
    assert _run("applog.start()", tmp_path).returncode == 0
    assert (tmp_path / "logs" / f"{applog.CRASH}.1").stat().st_size == applog.MAX_BYTES + 10
    assert crash.read_text("utf-8") == ""
