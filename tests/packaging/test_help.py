"""The Help menu: its three actions, and what Getting Started, Shortcuts and About say."""

from __future__ import annotations

import platform
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import PySide6
import pytest
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from tacmap import __version__
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import help as tm_help
from tacmap.ui.app import demo_path, open_window
from tacmap.ui.qt import QAction, QDialog, QKeySequence, QMainWindow, QMenu, submenu
from tacmap.ui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = sorted(p.parent.name for p in (ROOT / "rulesets").glob("*/ruleset.toml"))
NATIVE = QKeySequence.SequenceFormat.NativeText


@pytest.fixture(autouse=True)
def tacmap_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Autosaves and the recent list go to a temporary folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("TACMAP_HOME", str(home))
    monkeypatch.delenv("TACMAP_RULESETS", raising=False)
    return home


@pytest.fixture
def bare(qtbot: QtBot) -> QMainWindow:
    """An empty main window with nothing but the Help menu."""
    window = QMainWindow()
    qtbot.addWidget(window)
    tm_help.add_help_menu(window)
    return window


@pytest.fixture
def real(qtbot: QtBot, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """tacmap's own window on a copy of the demo encounter (its Help menu is built in).

    A copy: another window of this test run may hold the shipped file's lock, and the
    real window would then say so in a dialog that no test answers.
    """
    demo = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), demo)
    _app, window = open_window(registry, demo)
    qtbot.addWidget(window)
    yield window
    window.session.discard_autosave()


def _actions(menu: QMenu) -> dict[str, QAction]:
    return {a.text().replace("&", ""): a for a in menu.actions() if not a.isSeparator()}


def _help_menu(window: QMainWindow) -> QMenu:
    menus = [submenu(a, window.menuBar()) for a in window.menuBar().actions()
             if a.text() == "&Help"]
    assert len(menus) == 1
    menu = menus[0]
    assert isinstance(menu, QMenu)
    return menu


def _text(dialog: QDialog) -> str:
    browser = dialog.findChild(QTextBrowser)
    assert isinstance(browser, QTextBrowser)
    return browser.toPlainText()


# --- the menu ---------------------------------------------------------------------------


def test_the_help_menu_has_getting_started_shortcuts_and_about(bare: QMainWindow) -> None:
    menu = _help_menu(bare)
    actions = _actions(menu)
    assert list(actions) == ["Getting Started", "Keyboard Shortcuts", "Rulesets You Added…",
                             "About tacmap"]
    assert actions["Getting Started"].shortcut() == QKeySequence(
        QKeySequence.StandardKey.HelpContents)
    assert actions["About tacmap"].menuRole() == QAction.MenuRole.AboutRole
    assert sum(a.isSeparator() for a in menu.actions()) == 1


def test_add_help_menu_returns_the_menu_it_added(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.menuBar().addMenu("&File")
    menu = tm_help.add_help_menu(window)
    bar = window.menuBar().actions()
    assert submenu(bar[-1], window.menuBar()) is menu and menu.title() == "&Help"


@pytest.mark.parametrize(("label", "name", "needle"), [
    ("Getting Started", tm_help.GETTING_STARTED, "Where tacmap keeps things"),
    ("Keyboard Shortcuts", tm_help.SHORTCUTS, "Keyboard shortcuts"),
    ("About tacmap", tm_help.ABOUT, f"tacmap {__version__}"),
])
def test_each_action_opens_one_modeless_dialog(bare: QMainWindow, qtbot: QtBot, label: str,
                                               name: str, needle: str) -> None:
    action = _actions(_help_menu(bare))[label]
    action.trigger()
    action.trigger()  # a second time raises the open one instead of stacking another
    dialogs = [d for d in bare.findChildren(QDialog, name) if d.isVisible()]
    assert len(dialogs) == 1
    dialog = dialogs[0]
    assert not dialog.isModal()
    assert needle in _text(dialog)
    dialog.reject()
    assert not dialog.isVisible()
    action.trigger()  # and it opens again after being closed
    assert [d for d in bare.findChildren(QDialog, name) if d.isVisible()]


# --- Getting Started -------------------------------------------------------------------


def test_getting_started_explains_the_gestures() -> None:
    page = " ".join(tm_help.getting_started_html().split())
    for words in ("Drag a token", "cost in metres", "budget left", "warning", "reach",
                  "Right-click or press W", "waypoint", "Shift-drag", "free move",
                  "logged as an override", "odds card", "Player View", "F11",
                  "never re-rolls"):
        assert words in page, words
    undo = QKeySequence(QKeySequence.StandardKey.Undo).toString(NATIVE)
    redo = QKeySequence(QKeySequence.StandardKey.Redo).toString(NATIVE)
    assert f"<b>{undo}</b> undoes" in page and f"<b>{redo}</b> redoes" in page


def test_getting_started_names_the_real_folders(tacmap_home: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "my rulesets"
    monkeypatch.setenv("TACMAP_RULESETS", str(mine))
    text = _text(tm_help.getting_started_dialog())
    assert str(tacmap_home / "autosave") in text
    assert str(tacmap_home / "settings.json") in text
    assert str(tacmap_home / "logs") in text  # the log folder, named for bug reports
    assert "--rulesets-dir DIR" in text and "TACMAP_RULESETS" in text and str(mine) in text
    assert "TACMAP_HOME" in text


def test_getting_started_follows_platformdirs_without_override(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("TACMAP_HOME")
    expected = platformdirs.user_data_path("tacmap", appauthor=False)
    assert str(expected / "autosave") in tm_help.getting_started_html()


# --- Keyboard Shortcuts ----------------------------------------------------------------


def test_shortcuts_are_read_from_the_real_window(real: MainWindow) -> None:
    rows = dict(tm_help.shortcut_rows(real))
    undo = QKeySequence(QKeySequence.StandardKey.Undo).toString(NATIVE)
    assert rows["Edit ▸ Undo"] == undo
    assert rows["View ▸ Player View"] == "F11"
    assert rows["View ▸ Fit Encounter"] == "Ctrl+0"
    assert rows["Help ▸ Getting Started"] == "F1"
    assert rows["Combat ▸ End Turn"] == "E or Ctrl+E"
    # Redo's keys, without the dedicated "Redo" key that read as a third chord.
    assert "Ctrl+Y" in rows["Edit ▸ Redo"].split(" or ")
    assert "Redo" not in rows["Edit ▸ Redo"].split(" or ")
    # Every shortcut any menu of the window answers to is in the table.
    listed = {keys for row in rows.values() for keys in row.split(" or ")}
    for action in real.findChildren(QAction):
        in_menu = any(isinstance(o, QMenu) for o in action.associatedObjects())
        if in_menu and not action.shortcut().isEmpty():
            assert action.shortcut().toString(NATIVE) in listed, action.text()


def test_the_shortcut_table_has_a_row_per_entry(bare: QMainWindow) -> None:
    rows = tm_help.shortcut_rows(bare)
    # A bare window: only its Help menu and the map gestures.
    assert rows[0] == ("Help ▸ Getting Started", "F1")
    assert rows[1:] == [(f"Map ▸ {what}", keys) for what, keys in tm_help.MAP_GESTURES]
    html = tm_help.shortcuts_html(rows)
    assert html.count("<tr>") == len(rows) + 1  # and the header
    assert "<td>Map ▸ Drop a waypoint while dragging</td><td><b>Right-click, or W</b>" in html
    text = _text(tm_help.shortcuts_dialog(bare))
    assert "Hold Shift when you release" in text


def test_shortcut_names_drop_mnemonics_and_ellipses(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    file = window.menuBar().addMenu("&File")
    save_as = file.addAction("Save &As…")
    save_as.setShortcut(QKeySequence("Ctrl+Shift+S"))
    sub = file.addMenu("&Recent")
    sub.addAction("Fish && Chips").setShortcut(QKeySequence("Ctrl+1"))
    file.addAction("No keys")
    rows = dict(tm_help.shortcut_rows(window))
    assert rows["File ▸ Save As"] == "Ctrl+Shift+S"
    assert rows["File ▸ Recent ▸ Fish & Chips"] == "Ctrl+1"
    assert not any("No keys" in what for what in rows)


# --- About -----------------------------------------------------------------------------


def test_about_names_every_version(registry: Registry) -> None:
    page = tm_help.about_html(registry)
    assert f"tacmap {__version__}" in page
    assert f"<td>Qt</td><td>{qVersion()}</td>" in page
    assert f"<td>PySide6</td><td>{PySide6.__version__}</td>" in page
    assert f"<td>Python</td><td>{platform.python_version()} (" in page
    assert "MIT" in page and "no network" in page


def test_about_lists_each_builtin_ruleset_with_its_version(registry: Registry) -> None:
    page = tm_help.about_html(registry)
    builtin = page.split("<h3>Built-in rulesets</h3>")[1].split("</table>")[0]
    found = re.findall(r"<tr><td><code>(\w+)</code></td><td>[^<]*</td><td>([^<]*)</td></tr>",
                       builtin)
    assert [rid for rid, _ in found] == BUILTIN
    for rid, version in found:
        assert version == registry.manifests[rid].version
    # The test-only ruleset is one the user added, listed apart with its folder.
    added = page.split("<h3>Rulesets you added</h3>")[1]
    assert "<code>skirmish</code>" in added
    assert str(registry.manifests["skirmish"].folder) in added
    assert "skirmish" not in builtin


def test_about_dialog_shows_the_page_and_the_icon(registry: Registry, qapp: object) -> None:
    dialog = tm_help.about_dialog(None, registry)
    text = _text(dialog)
    assert f"tacmap {__version__}" in text and PySide6.__version__ in text
    for rid in BUILTIN:
        assert rid in text
    assert not dialog.windowIcon().isNull()


def test_about_in_a_window_uses_the_window_registry(real: MainWindow) -> None:
    _actions(_help_menu(real))["About tacmap"].trigger()
    dialog = real.findChild(QDialog, tm_help.ABOUT)
    assert isinstance(dialog, QDialog)
    assert "skirmish" in _text(dialog)  # only the test registry knows it
