"""Files and sessions: new, open, recent, save, autosave, and leaving an encounter safely.

``Session`` (session.py) is the encounter and its file without widgets; this
is the File menu around it: the dialogs, the Save / Discard / Cancel question
before anything is closed, and the autosave a moment after each command.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.dice import fresh_seed
from tacmap.ui import applog
from tacmap.ui.demos import demos
from tacmap.ui.host import Host
from tacmap.ui.new_encounter import NewEncounterDialog
from tacmap.ui.qt import QDialog, QFileDialog, QMenu, QTimer
from tacmap.ui.session import Session, recent, work_folder

FILTER = "tacmap encounters (*.tacmap);;All files (*)"
#: The autosave waits for this pause in the commands (ms) …
AUTOSAVE_PAUSE_MS = 250
#: … but never longer than this after the first command it holds (s).
AUTOSAVE_LONGEST_S = 1.0


def file_name(encounter: str) -> str:
    """The file name Save proposes: ``Ambush: Night 2`` → ``Ambush Night 2.tacmap``.

    Characters that some system refuses in a file name are dropped; nothing
    left gives ``encounter.tacmap``.
    """
    kept = "".join(c for c in encounter if c.isalnum() or c in " -_.,()'&+")
    stem = " ".join(kept.split()).strip(" .")[:80]
    return f"{stem or 'encounter'}.tacmap"


class Files:
    """The File menu and the life of the open session."""

    def __init__(self, host: Host) -> None:
        self.host = host
        # Autosave a moment after the last command, not inside the click that made it.
        self.autosave_timer = QTimer(host.window())
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_PAUSE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        #: Seconds, for the autosave's deadline (a test sets the time of a burst).
        self.clock: Callable[[], float] = time.monotonic
        #: When the first command not yet autosaved came (None: nothing is waiting).
        self._waiting_since: float | None = None
        self.session: Session | None = None

    def attach(self, session: Session) -> None:
        """Route a newly bound session's autosaves through the timer and its errors here."""
        if self.session is not None and self.session is not session:
            self.session.release()  # the file left behind may be opened by another window
        self.session = session
        session.on_autosave_error = \
            lambda msg: self.host.statusBar().showMessage(msg, 8000)
        session.defer = lambda write: self.autosave_soon()
        self._waiting_since = None
        if session.notice:
            self.host.statusBar().showMessage(session.notice, 15000)
            self.host.tell(session.notice[0].upper() + session.notice[1:] + ".")
            session.notice = ""

    def autosave_soon(self) -> None:
        """A command came: autosave once the commands pause, and at least once a second.

        Waiting for a pause alone starved: 20 End Turns a second restarted the
        wait each time, and the autosave kept only the first command.
        """
        now = self.clock()
        if self._waiting_since is None:
            self._waiting_since = now
        left = self._waiting_since + AUTOSAVE_LONGEST_S - now
        if left <= 0:
            self.autosave()
        else:
            self.autosave_timer.start(min(AUTOSAVE_PAUSE_MS, int(left * 1000)))

    def autosave(self) -> None:
        """Write the autosave now (what the timer calls)."""
        self.autosave_timer.stop()
        self._waiting_since = None
        self.host.session.autosave_now()

    def may_leave(self) -> bool:
        """True when the current encounter may be closed (saved, or the GM said so)."""
        if not self.host.session.dirty:
            return True
        answer = self.host.ask_save("This encounter has unsaved changes. Save them first?")
        if answer is None:
            return False
        return self.save() if answer else True

    def close(self) -> None:
        """The window is closing: no autosave is pending or left behind."""
        self.autosave_timer.stop()
        self._waiting_since = None
        self.host.session.discard_autosave()
        self.host.session.release()

    # --- opening ------------------------------------------------------------------------------

    def open_path(self, path: Path) -> bool:
        """Open an encounter file; a bad file leaves the current one as it was."""
        if not self.may_leave():
            return False
        try:
            session = Session.open(self.host.registry, path)
        except InputError as err:
            applog.logger.warning("could not open %s: %s", path, err)
            self.host.error(str(err))
            return False
        applog.logger.info("opened %s", path)
        self.host.session.discard_autosave()
        if session.newer_autosave() is not None and self.host.ask(
                f"tacmap closed without saving {path.name}. Restore the unsaved changes? "
                f"(What happened is logged in {applog.folder()}.)"):
            session.restore_autosave()
        self.host.bind(session)
        self.host.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def open_dialog(self) -> None:
        """File ▸ Open."""
        name, _ = QFileDialog.getOpenFileName(self.host.window(), "Open encounter",
                                              str(work_folder(self.host.session)), FILTER)
        if name:
            self.open_path(Path(name))

    def open_demo(self, path: Path) -> bool:
        """File ▸ Open Demo: the shipped encounter, untitled so it is never overwritten."""
        if not self.may_leave():
            return False
        try:
            session = Session.open(self.host.registry, path, as_copy=True)
        except InputError as err:
            self.host.error(str(err))
            return False
        self.host.session.discard_autosave()
        self.host.bind(session)
        self.host.statusBar().showMessage(f"Opened the demo {session.referee.state.name!r}", 5000)
        return True

    def fill_demos(self, menu: QMenu) -> None:
        """File ▸ Open Demo: one entry per ruleset's demo."""
        menu.clear()
        registry = self.host.registry
        for ruleset_id, name, path in demos():
            if ruleset_id not in registry.ids():
                continue
            title = registry.manifests[ruleset_id].name
            menu.addAction(f"{title}: {name}").triggered.connect(
                lambda _=False, p=path: self.open_demo(p))
        if menu.isEmpty():
            menu.addAction("(none)").setEnabled(False)

    def fill_recent(self, menu: QMenu) -> None:
        """File ▸ Open Recent, read afresh each time it opens."""
        menu.clear()
        files = recent()
        if not files:
            menu.addAction("(none)").setEnabled(False)
        for path in files:
            menu.addAction(str(path)).triggered.connect(
                lambda _=False, p=path: self.open_path(p))

    def new_encounter(self) -> None:
        """File ▸ New: pick a ruleset and a map size."""
        dialog = NewEncounterDialog(self.host.registry, self.host.window())
        if dialog.exec() != QDialog.DialogCode.Accepted or not self.may_leave():
            return
        self.start_new(*dialog.chosen())

    def start_new(self, ruleset_id: str, width: int, height: int, name: str = "New encounter",
                  diagonal: str = "") -> None:
        """An empty, unsaved encounter (``diagonal`` empty: the ruleset's own rule)."""
        registry = self.host.registry
        state = registry.get(ruleset_id).new_map(name, fresh_seed(), width, height)
        if diagonal:
            state.diagonal = diagonal
        self.host.session.discard_autosave()
        self.host.bind(Session(registry, state))

    # --- saving -------------------------------------------------------------------------------

    def save(self) -> bool:
        """File ▸ Save (asks where when the encounter has no file yet)."""
        path = self.host.session.path
        if path is None:
            return self.save_as()
        return self.save_to(path)

    def save_as(self) -> bool:
        """File ▸ Save As."""
        name, _ = QFileDialog.getSaveFileName(self.host.window(), "Save encounter",
                                              str(self.proposed_path()), FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix != ".tacmap":
            path = path.with_suffix(".tacmap")
        return self.save_to(path)

    def proposed_path(self) -> Path:
        """Where Save As starts: the file itself, else the encounter's name in the last folder."""
        session = self.host.session
        if session.path is not None:
            return session.path
        files = recent()
        name = file_name(session.referee.state.name)
        return files[0].parent / name if files else Path(name)

    def save_to(self, path: Path) -> bool:
        """Write the encounter to ``path``; False (with the reason shown) if that fails."""
        try:
            self.host.session.save(path)
        except OSError as err:
            self.host.error(f"Could not save {path}: {err.strerror or err}")
            return False
        except InputError as err:
            self.host.error(f"Could not save {path}: {err}")
            return False
        self.host.refresh()
        self.host.statusBar().showMessage(f"Saved {path}", 5000)
        return True
