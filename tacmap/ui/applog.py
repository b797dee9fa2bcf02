"""The app's log: the standard ``logging`` module into platformdirs' log folder (issue 29).

``tacmap.log`` is rotated at ``MAX_BYTES`` with ``BACKUPS`` old copies, so the folder
never holds more than a few megabytes. A crash that Python cannot catch (a segfault
in Qt) is written by ``faulthandler`` to ``crash.log`` beside it: faulthandler needs
a file that stays open, which a rotated log is not. Each run heads its block of
``crash.log`` with the date, the version and its process id, and takes the block
away again when it ends cleanly: what is left is one block per crash. ``crash.log``
is rotated like the log, at start. After a crash the restore question offers to
open this folder; with nothing to restore, the next start says once that there was
a crash and where it is logged.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
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
#: The head of the last crash told to the GM (each is told once).
TOLD = "crash.told"
MAX_BYTES = 1_000_000
BACKUPS = 3

#: How each run's block of crash.log begins (the rest of the line names the run).
CRASH_HEAD = "--- tacmap"

logger = logging.getLogger("tacmap")
#: This run's crash.log, open for faulthandler, and where its block begins.
_crash_file: tuple[IO[str], int] | None = None
#: A crash logged by a run before this one, not yet told to the GM: (when, which run).
last_crash: str | None = None


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
        _note_last_crash(where / CRASH)
        _rotate(where / CRASH)
        if _crash_file is not None:  # started again in this process: its block goes first
            _ended_cleanly(*_crash_file)
        crash = (where / CRASH).open("a", encoding="utf-8")
        start_at = crash.tell()
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        crash.write(f"{CRASH_HEAD} {__version__}, process {os.getpid()}, started {now} ---\n")
        crash.flush()
    except OSError:
        return None  # a read-only home costs the log, never the start
    for old in [h for h in logger.handlers if getattr(h, "tacmap_log", False)]:
        logger.removeHandler(old)
        old.close()
    handler.tacmap_log = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    _crash_file = (crash, start_at)
    faulthandler.enable(file=crash, all_threads=True)
    atexit.unregister(_at_exit)  # once, however often the log is started
    atexit.register(_at_exit)
    _chain_excepthook()
    logger.info("tacmap %s started: Python %s, %s, Qt %s", __version__,
                platform.python_version(), system(), _qt_version())
    return where


def _rotate(path: Path) -> None:
    """Keep ``crash.log`` under ``MAX_BYTES``: past it, it moves to ``crash.log.1`` (and so
    on, ``BACKUPS`` deep), as the log does."""
    if not path.is_file() or path.stat().st_size < MAX_BYTES:
        return
    for n in range(BACKUPS - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{n + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


def _note_last_crash(path: Path) -> None:
    """Remember whether the last run's block holds a crash (a clean run takes its block
    away, so any block left with more than its head is one)."""
    global last_crash
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return
    head = text.rfind(CRASH_HEAD)
    if head < 0:
        return
    block = text[head:].splitlines()
    if len(block) > 1 and any(line.strip() for line in block[1:]):
        which = block[0].strip("- ").strip()
        try:
            told = path.with_name(TOLD).read_text("utf-8").strip()
        except OSError:
            told = ""
        if which != told:
            last_crash = which


def _ended_cleanly(crash: IO[str], start_at: int) -> None:
    """A run that ends normally takes its block (the head alone) out of crash.log, unless
    another tacmap has written after it since (two windows at once): a head alone is no
    crash, and the other's block is never cut."""
    try:
        faulthandler.disable()
        crash.flush()
        if os.fstat(crash.fileno()).st_size == crash.tell():
            crash.truncate(start_at)
        crash.close()
    except (OSError, ValueError):
        pass  # closed already, or the folder went away: nothing to take back


def _at_exit() -> None:
    global _crash_file
    if _crash_file is not None:
        _ended_cleanly(*_crash_file)
        _crash_file = None


def crash_notice() -> str:
    """Once: the sentence that says the last run crashed and where that is logged ("" when
    it did not, or when it was said already)."""
    global last_crash
    if last_crash is None:
        return ""
    said = (f"tacmap stopped unexpectedly last time ({last_crash}). What happened is in "
            f"{folder() / CRASH}: attach it to a bug report wherever you got tacmap.")
    with contextlib.suppress(OSError):  # remembered: the next start says nothing of it
        (folder() / TOLD).write_text(last_crash, "utf-8")
    last_crash = None
    return said


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
