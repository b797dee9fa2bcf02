"""Starting the window: ``tacmap``, ``tacmap open FILE``, ``tacmap FILE``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import ENV_VAR, Registry
from tacmap.ui import applog
from tacmap.ui.demos import demo_path
from tacmap.ui.help import app_icon
from tacmap.ui.plain import message_box
from tacmap.ui.qt import QApplication, QMessageBox, QWidget
from tacmap.ui.session import Session, restore_untitled, untitled_autosaves
from tacmap.ui.window import MainWindow


def open_window(registry: Registry, path: Path | None) -> tuple[QApplication, MainWindow]:
    """Make the application and the main window on ``path`` (the demo when None)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("tacmap")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("tacmap")  # lets Wayland match the installed desktop entry
    session = Session.open(registry, path or demo_path(), as_copy=path is None)
    orphans = untitled_autosaves() if path is None else []
    if session.newer_autosave() is not None or orphans:
        applog.crash_notice()  # the restore question names the log folder: said once there
    if session.newer_autosave() is not None and applog.restore_question(
            "tacmap closed without saving this encounter. Restore the unsaved changes?"):
        session.restore_autosave()
    if orphans and applog.restore_question(
            "tacmap closed without saving an encounter that had no file yet. Restore it?"):
        try:
            session = restore_untitled(registry, orphans[0])
        except InputError as err:
            print(f"tacmap: {err}", file=sys.stderr)
    return app, MainWindow(registry, session)


def check_screen() -> None:
    """Refuse in one sentence, rather than let Qt abort, when there is no screen."""
    if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
            or os.environ.get("QT_QPA_PLATFORM")):
        raise InputError("there is no screen to open a window on (no DISPLAY); "
                         "tacmap render and tacmap play work without one")


def has_screen() -> bool:
    """Whether a window would be seen: not Qt's offscreen or minimal platform, and on
    Linux a display to draw on (DISPLAY or WAYLAND_DISPLAY)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if platform in ("offscreen", "minimal"):
        return False
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def refusal_box(sentence: str) -> QMessageBox:
    """The dialog that says why tacmap could not open (built, not shown)."""
    box = message_box(QMessageBox.Icon.Critical, "tacmap could not open the encounter",
                      sentence, QMessageBox.StandardButton.Close)
    box.setObjectName("open-refused")
    return box


def say_it_on_screen(sentence: str) -> None:
    """Show ``sentence`` in a dialog too when there is a screen: started from a file
    manager, nobody reads stderr."""
    if not has_screen():
        return
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setApplicationName("tacmap")
    refusal_box(sentence).exec()


def run(registry: Registry, path: Path | None) -> int:
    """Show the window and run until it closes.

    A file that cannot be opened raises InputError (one line on stderr, exit 2);
    with a screen, the same sentence is shown in a dialog first.
    """
    check_screen()
    applog.start()
    try:
        app, window = open_window(registry, path)
    except InputError as err:
        applog.logger.warning("could not open %s: %s", path, err)
        say_it_on_screen(str(err))
        raise
    window.place()
    window.show()
    notice = applog.crash_notice()  # a crash last time, with nothing to restore: said once
    if notice:
        applog.logger.warning(notice)
        window.statusBar().showMessage(notice, 30000)
    if registry.skipped and has_screen():
        skipped_box(registry.skipped, window).open()
    return int(app.exec())


def skipped_box(reasons: list[str], parent: QWidget | None = None) -> QMessageBox:
    """The dialog naming the TACMAP_RULESETS folders that were skipped (built, not shown)."""
    folders = "folder" if len(reasons) == 1 else "folders"
    text = "\n".join([f"tacmap skipped {len(reasons)} ruleset {folders} named in {ENV_VAR}:",
                      *(f"• {why}" for why in reasons),
                      "Encounters of the other rulesets open as usual."])
    box = message_box(QMessageBox.Icon.Warning, "Ruleset folders skipped", text,
                      QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("rulesets-skipped")
    return box
