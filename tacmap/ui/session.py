"""An open encounter: its file, referee, autosave and recent-files list (no widgets here)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.referee import Change, Entry, Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import settings
from tacmap.ui.qt import QLockFile

RECENT_MAX = 10
#: How long opening waits for another window's lock before calling the file taken (ms).
LOCK_WAIT_MS = 100


#: Where tacmap keeps autosaves (TACMAP_HOME overrides, for tests): the settings' data folder.
home = settings.data_folder


class Session:
    """One encounter being played: saves, autosaves after every change, remembers its file."""

    def __init__(self, registry: Registry, state: Encounter, log: list[Entry] | None = None,
                 path: Path | None = None, images: str = "images") -> None:
        self.registry = registry
        self.path = path
        self.images = images
        self.referee = Referee(state, registry.get(state.ruleset), log or [])
        self.saved_version = 0
        #: Names the autosave of an encounter that has no file yet.
        self.untitled_key = os.urandom(6).hex()
        #: Where to autosave instead of the usual place (a restored untitled encounter).
        self.autosave_file: Path | None = None
        self.referee.subscribe(self._changed)
        self.on_autosave_error: Callable[[str], None] = lambda msg: None
        #: ``defer(write)`` schedules the autosave (the window coalesces bursts of
        #: commands into one write); None writes at once.
        self.defer: Callable[[Callable[[], None]], None] | None = None
        #: This window's claim on ``path`` (None: no file, or the lock could not be made).
        self.lock: QLockFile | None = None
        #: This window's claim on its untitled autosave, held while it exists, so no other
        #: window offers it back as a crash's (a file's autosave goes with ``lock``).
        self.autosave_lock: QLockFile | None = None
        #: The file another window has open, when this session is a copy of it.
        self.copy_of: Path | None = None
        #: A sentence for the GM about how the file was opened (shown once, then cleared).
        self.notice = ""

    @classmethod
    def open(cls, registry: Registry, path: Path, as_copy: bool = False) -> Session:
        """Read ``path``; InputError with one sentence if it cannot be used.

        ``as_copy`` opens it untitled (the bundled demo: saving asks where, so
        the shipped file is never overwritten).
        """
        loaded = storage.load(path, registry)
        if as_copy:
            return cls.copied(registry, loaded, path)
        lock, holder = claim(path)
        if holder:
            # Another window has it: sharing its autosave and its file would lose work.
            copy = cls.copied(registry, loaded, path)
            copy.copy_of = path
            copy.notice = (f"{path.name} is open in another tacmap window ({holder}), so it "
                           "opened here as an unsaved copy; saving it asks for a new name")
            return copy
        session = cls(registry, loaded.state, loaded.log, path, loaded.images)
        session.lock = lock
        remember(path)
        return session

    @classmethod
    def copied(cls, registry: Registry, loaded: storage.Loaded, path: Path) -> Session:
        """An untitled session on what ``path`` holds, its images copied to its own folder."""
        copy = cls(registry, loaded.state, loaded.log, None, loaded.images)
        source = path.parent / loaded.images
        for name in copy.named_images():
            storage.copy_image(source, name, copy.image_folder)  # never a link out of source
        return copy

    @property
    def dirty(self) -> bool:
        """Changed since the last save."""
        return self.referee.version != self.saved_version

    @property
    def title(self) -> str:
        """Window title: encounter name, file, a star when unsaved."""
        name = self.referee.state.name
        where = (self.path.name if self.path else
                 f"unsaved copy of {self.copy_of.name}" if self.copy_of else "unsaved")
        return f"{'*' if self.dirty else ''}{name} — {where} — tacmap"

    @property
    def image_folder(self) -> Path:
        """Folder image paths are relative to: beside the file, or beside the autosave.

        An encounter without a file keeps its images with its autosave, so a
        crash keeps them too; the first save copies them beside the file.
        """
        if self.path is not None:
            return self.path.parent / self.images
        auto = self.autosave_path
        return auto.with_name(auto.name.removesuffix(".tacmap") + "-images")

    def named_images(self) -> list[str]:
        """The image files the encounter names (map image, portraits), each once."""
        state = self.referee.state
        names = [state.map.image, *(t.image for t in state.tokens.values())]
        return list(dict.fromkeys(n for n in names if n and not n.startswith("data:")))

    def _bring_images(self, folder: Path) -> None:
        """Copy the encounter's images from its image folder into ``folder``.

        An untitled encounter's folder is its own: all of it goes (undo may name
        an image the state no longer does). A file's folder may be shared: only
        the images the encounter names go.
        """
        old = self.image_folder
        if not old.is_dir() or (folder.exists() and old.resolve() == folder.resolve()):
            return
        names = [p.name for p in old.iterdir() if p.is_file()] if self.path is None \
            else self.named_images()
        for name in names:
            storage.copy_image(old, name, folder)  # never a link out of ``old``, nor into one

    def save(self, path: Path | None = None) -> Path:
        """Write the encounter (to ``path``, or where it came from)."""
        target = path or self.path
        if target is None:
            raise InputError("choose where to save this encounter first")
        lock = self.lock
        if self.path is None or target.resolve() != self.path.resolve():
            lock, holder = claim(target)
            if holder:
                raise InputError(f"{target.name} is open in another tacmap window ({holder}); "
                                 "save under another name, or close it there first")
        try:
            self._bring_images(target.parent / self.images)
            storage.save(target, self.referee.state, self.referee.log, self.images)
        except BaseException:
            if lock is not None and lock is not self.lock:
                lock.unlock()
            raise
        self.discard_autosave()
        if self.path is None:  # the images now live beside the file
            shutil.rmtree(self.image_folder, ignore_errors=True)
        if lock is not self.lock:
            self.release()
            self.lock = lock
        self.copy_of = None
        self.path = target
        self.saved_version = self.referee.version
        remember(target)
        return target

    # --- autosave ---------------------------------------------------------------------

    @property
    def autosave_path(self) -> Path:
        """The autosave file for this encounter."""
        if self.autosave_file is not None and self.path is None:
            return self.autosave_file
        key = str(self.path.resolve()) if self.path else f"untitled-{self.untitled_key}"
        digest = hashlib.sha1(key.encode()).hexdigest()[:12]
        # An untitled autosave says so in its name: a crash between writing it and its
        # .src file must not hide it from the restore offer.
        return home() / "autosave" / (f"{digest}.tacmap" if self.path else
                                      f"untitled-{digest}.tacmap")

    def _changed(self, change: Change, entry: Entry | None) -> None:
        if self.defer is not None:
            self.defer(self.autosave_now)
        else:
            self.autosave_now()

    def autosave_now(self) -> None:
        """Write the autosave (or drop it when nothing is unsaved any more)."""
        if not self.dirty:
            self.discard_autosave()
            return
        try:
            folder = self.autosave_path.parent
            folder.mkdir(parents=True, exist_ok=True)
            if self.path is None and self.autosave_lock is None:
                self.autosave_lock, _ = claim(self.autosave_path)  # before there is a file
            # No backup of an autosave: the encounter's own file is the one to fall back
            # on, and a backup would need three times the file's size free.
            storage.save(self.autosave_path, self.referee.state, self.referee.log, self.images,
                         backup=False)
            (folder / (self.autosave_path.name + ".src")).write_text(
                str(self.path.resolve()) if self.path else "", encoding="utf-8")
        except OSError as err:
            self.on_autosave_error(f"autosave failed: {err.strerror or err}")
        except InputError as err:
            self.on_autosave_error(f"autosave failed: {err}")

    def discard_autosave(self) -> None:
        """Forget the autosave (after a save or a clean quit)."""
        auto = self.autosave_path
        for p in (auto, auto.with_name(auto.name + ".bak"), auto.with_name(auto.name + ".src")):
            p.unlink(missing_ok=True)
        self._release_autosave()  # after the files: nobody sees it unowned

    def _release_autosave(self) -> None:
        if self.autosave_lock is not None:
            self.autosave_lock.unlock()
            self.autosave_lock = None

    def release(self) -> None:
        """Let go of the file and the autosave: another window may open them now."""
        if self.lock is not None:
            self.lock.unlock()
            self.lock = None
        self._release_autosave()

    def newer_autosave(self) -> Path | None:
        """An autosave left by a crash that is newer than this encounter's file."""
        auto = self.autosave_path
        if not auto.is_file() or self.path is None or not self.path.is_file():
            return None
        if auto.stat().st_mtime <= self.path.stat().st_mtime:
            return None
        return auto

    def restore_autosave(self) -> None:
        """Replace the state with the autosave's (it is then the unsaved state)."""
        loaded = storage.load(self.autosave_path, self.registry)
        # Only the session's own autosave listener moves over: a window binds itself anew.
        self.referee = Referee(loaded.state, self.registry.get(loaded.state.ruleset), loaded.log)
        self.referee.subscribe(self._changed)
        self.saved_version = -1


def untitled_autosaves() -> list[Path]:
    """Autosaves of encounters that never had a file, newest first, left by a crash.

    One a running window still writes is not among them (its lock says so).
    """
    folder = home() / "autosave"
    found = {p for p in folder.glob("untitled-*.tacmap") if p.is_file()}
    for src in folder.glob("*.tacmap.src"):  # named by an older tacmap: told apart by .src
        try:
            if src.read_text(encoding="utf-8").strip():
                continue
        except OSError:
            continue
        auto = src.with_name(src.name[: -len(".src")])
        if auto.is_file():
            found.add(auto)
    orphans = [p for p in found if not _in_use(p)]
    return sorted(orphans, key=lambda p: p.stat().st_mtime, reverse=True)


def _in_use(auto: Path) -> bool:
    """Whether a running window owns the autosave ``auto``."""
    lock, holder = claim(auto, wait_ms=0)
    if lock is not None:
        lock.unlock()
    return bool(holder)


def claim(path: Path, wait_ms: int = LOCK_WAIT_MS) -> tuple[QLockFile | None, str]:
    """Lock ``path`` for this window: (the lock, "") or (None, who holds it).

    The lock file sits beside the encounter (``.NAME.lock``), so two windows on one
    file meet whatever their user folders. Links are followed first: a window on a
    link and one on the file it names lock the same thing. A lock left by a process
    that died is Qt's to take over: the lock records its owner's pid, host and
    program, and Qt calls it stale when that pid no longer runs on this host, or
    runs another program now (a reused pid). Where no lock can be made (a
    read-only folder) the file opens unlocked, as before locks existed.
    """
    with contextlib.suppress(OSError, RuntimeError):  # a loop of links: reading it says so
        path = path.resolve()
    lock = QLockFile(str(path.parent / f".{path.name}.lock"))
    lock.setStaleLockTime(0)  # held for as long as the window is open, never aged out
    if lock.tryLock(wait_ms):
        return lock, ""
    if lock.error() != QLockFile.LockError.LockFailedError:
        return None, ""
    pid, host, _app = lock.getLockInfo()
    return None, (f"process {pid} on {host}" if pid else "another process")


def restore_untitled(registry: Registry, auto: Path) -> Session:
    """An untitled session from a crash's autosave; it goes on autosaving to that file.

    InputError when another window has taken it meanwhile: two windows writing one
    autosave would each overwrite the other's work.
    """
    lock, holder = claim(auto)
    if holder:
        raise InputError(f"the unsaved encounter {auto.name} is open in another tacmap "
                         f"window ({holder})")
    try:
        loaded = storage.load(auto, registry)
    except BaseException:
        if lock is not None:
            lock.unlock()
        raise
    session = Session(registry, loaded.state, loaded.log, None, loaded.images)
    session.autosave_lock = lock
    session.saved_version = -1
    session.autosave_file = auto  # keep writing where the crash left it
    return session


def work_folder(session: Session) -> Path:
    """Where a file dialog starts: the encounter's folder, else the last file's, else home
    (not the folder tacmap was started in, which a desktop launch leaves anywhere)."""
    if session.path is not None:
        return session.path.parent
    files = recent()
    return files[0].parent if files else Path.home()


def recent() -> list[Path]:
    """Recently opened or saved files that still exist, newest first."""
    names = settings.get("recent", settings.strings)
    return [Path(n) for n in names if Path(n).is_file()][:RECENT_MAX]


def remember(path: Path) -> None:
    """Put ``path`` at the top of the recent list (best effort)."""
    entries = [str(path.resolve())] + [str(p) for p in recent() if p.resolve() != path.resolve()]
    settings.put("recent", entries[:RECENT_MAX])


# --- where the windows were ----------------------------------------------------------------

def window_places() -> dict[str, str]:
    """Each window's last geometry (Qt's ``saveGeometry``, base64) by window name."""
    return settings.get("windows", settings.string_map)


def place_of(name: str) -> bytes | None:
    """Where the window ``name`` was when it last closed (None: never, or unreadable)."""
    text = window_places().get(name)
    if text is None:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        return None


def remember_place(name: str, geometry: bytes) -> None:
    """Keep the window ``name``'s geometry for the next run (best effort)."""
    places = window_places()
    places[name] = base64.b64encode(geometry).decode("ascii")
    settings.put("windows", places)
