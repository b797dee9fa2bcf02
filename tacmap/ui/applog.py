"""The app's log: the standard ``logging`` module into platformdirs' log folder (issue 29).

``tacmap.log`` is rotated at ``MAX_BYTES`` with ``BACKUPS`` old copies, so the folder
never holds more than a few megabytes. A crash that Python cannot catch (a segfault
in Qt) is written by ``faulthandler`` to ``crash.log`` beside it: faulthandler needs
a file that stays open, which a rotated log is not. After a crash the restore
question offers to open this folder.
"""

from __future__ import annotations

import faulthandler
import logging
import logging.handlers
import os
import platform
import sys
from pathlib import Path
from types import TracebackType
from typing import IO

import platformdirs

from tacmap import __version__

LOG = "tacmap.log"
CRASH = "crash.log"
MAX_BYTES = 1_000_000
BACKUPS = 3

logger = logging.getLogger("tacmap")
_crash_file: IO[str] | None = None


def folder() -> Path:
    """The log folder (``TACMAP_HOME/logs`` when that is set, as the tests do)."""
    override = os.environ.get("TACMAP_HOME")
    return Path(override) / "logs" if override else platformdirs.user_log_path(
        "tacmap", appauthor=False)


def start() -> Path | None:
    """Log to the folder from now on, and crashes to ``crash.log``; the folder, or None."""
    global _crash_file
    where = folder()
    try:
        where.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            where / LOG, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        crash = (where / CRASH).open("a", encoding="utf-8")
    except OSError:
        return None  # a read-only home costs the log, never the start
    for old in [h for h in logger.handlers if getattr(h, "tacmap_log", False)]:
        logger.removeHandler(old)
        old.close()
    handler.tacmap_log = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    if _crash_file is not None:
        _crash_file.close()
    _crash_file = crash
    faulthandler.enable(file=crash, all_threads=True)
    _chain_excepthook()
    logger.info("tacmap %s started: Python %s, %s, Qt %s", __version__,
                platform.python_version(), system(), _qt_version())
    return where


def system() -> str:
    """The system, its release, the machine and the C library ("Linux 6.8.0 x86_64 glibc
    2.39"): what ``platform.platform()`` says, without the ``uname -p`` process it starts
    on Linux (a hundredth of the window's cold start)."""
    libc = " ".join(platform.libc_ver()) if sys.platform.startswith("linux") else ""
    return " ".join(part for part in (platform.system(), platform.release(),
                                      platform.machine(), libc) if part)


def _qt_version() -> str:
    from tacmap.ui.qt import qVersion

    return str(qVersion())


def _chain_excepthook() -> None:
    previous = sys.excepthook
    if getattr(previous, "tacmap_log", False):
        return

    def hook(kind: type[BaseException], value: BaseException,
             tb: TracebackType | None) -> None:
        logger.critical("uncaught %s", kind.__name__, exc_info=(kind, value, tb))
        previous(kind, value, tb)

    hook.tacmap_log = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def open_folder() -> bool:
    """Show the log folder in the file manager; False when there is none to show."""
    from tacmap.ui.qt import QDesktopServices, QUrl

    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(where))))


def restore_question(question: str) -> bool:
    """Ask ``question`` after a crash: Yes, No, or Open Log Folder (which asks again)."""
    from tacmap.ui.plain import message_box
    from tacmap.ui.qt import QMessageBox

    while True:
        box = message_box(QMessageBox.Icon.Question, "tacmap",
                          f"{question}\n\nWhat happened is logged in {folder()}.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        logs = box.addButton("Open Log Folder", QMessageBox.ButtonRole.ActionRole)
        box.setObjectName("restore-question")
        answer = box.exec()
        if box.clickedButton() is logs:
            open_folder()
            continue
        logger.info("after a crash: %s %s", question, "yes" if
                    answer == QMessageBox.StandardButton.Yes else "no")
        return answer == QMessageBox.StandardButton.Yes
