"""Encounter files (DESIGN §5): versioned JSON, atomic writes with a backup, clear errors.

A file never runs code: it names its ruleset by id, and only records the
engine and that ruleset registered can be read back. Every problem becomes
one ``InputError`` sentence that names the file and the place.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import gc
import glob
import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Generic, TypeVar

import msgspec

from tacmap.engine.model import records
from tacmap.engine.model.commands import Command
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.events import (
    Event,
    Explored,
    FogEdited,
    TemplatePlaced,
    TokenAdded,
    TokenEdited,
    TokenMoved,
    WallsChanged,
)
from tacmap.engine.model.state import (
    MAX_TOKENS,
    Encounter,
    Token,
    check_folder_path,
    check_image_path,
    too_many_items,
)
from tacmap.engine.play.referee import MAX_LOG, Entry
from tacmap.engine.rules.house_rules import check_overrides, kept_from_before
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space.geometry import wall_problem
from tacmap.engine.space.templates import placed_problem
from tacmap.engine.space.vision import area_problem, walls_problem

FORMAT = "tacmap-encounter"
VERSION = 1
MAX_BYTES = 256 * 1024 * 1024
TOP_LEVEL = ("format", "version", "ruleset", "images", "encounter", "log")

C = TypeVar("C", bound=Command)
E = TypeVar("E", bound=Event)


class _Entry(msgspec.Struct, Generic[C, E], frozen=True, forbid_unknown_fields=True):
    """A log entry as the file holds it: ``Entry``, generic so that reading it names
    every command and event type the rulesets defined (see ``records.resolve``)."""

    command: C
    """The command as given."""
    events: tuple[E, ...]
    """Its events, in the order they were applied."""


def _body() -> Any:
    """The encounter as the file holds it: tokens as a list, in their order."""
    return records.reshaped(
        Encounter, tokens=Annotated[tuple[Token, ...], msgspec.Meta(max_length=MAX_TOKENS)])


_HEAD = msgspec.json.Decoder(dict[str, msgspec.Raw])
_LOG_SIZE = msgspec.json.Decoder(Annotated[list[msgspec.Raw], msgspec.Meta(max_length=MAX_LOG)])
_NOT_OURS = "not a tacmap encounter (no \"format\": \"tacmap-encounter\")"


@dataclass
class Loaded:
    """An encounter read from a file, with its log."""

    state: Encounter
    """The state as saved."""
    log: list[Entry]
    """Entries from the first command to the last."""
    images: str
    """Folder (relative to the file) that image paths are relative to."""


#: Events that put a token or a wall somewhere: after them the map is checked again.
_PLACING = {TokenMoved, TokenAdded, TokenEdited, WallsChanged, TemplatePlaced, FogEdited,
            Explored}


def check_state(state: Encounter, where: str = "encounter", walls: bool = True) -> None:
    """Refuse a state no command could have made: the one check for every state read in.

    Tokens stand on the map, walls lie on it and templates start on it (bounded
    in size and number, ids unique), as the referee demands of the commands that
    place them; a token a billion metres away would otherwise
    pass, then stall the first move (paths and wall rasters grow with distance).
    """
    m = state.map
    for i, token in enumerate(state.tokens.values()):
        if not (0 <= token.x <= m.width - token.size and 0 <= token.y <= m.height - token.size):
            raise InputError(f"{where}.tokens[{i}]: {token.name or token.id} at "
                             f"({token.x},{token.y}) stands off the {m.width}×{m.height} map")
    for i, wall in enumerate(m.walls if walls else ()):
        problem = wall_problem(wall, m.width, m.height)
        if problem:
            raise InputError(f"{where}.map.walls[{i}]: {problem}")
    problem = walls_problem(m.walls) if walls else None
    if problem:
        raise InputError(f"{where}.map.walls: {problem}")
    problem = placed_problem(state)
    if problem:
        raise InputError(f"{where}.{problem}")
    fog = state.fog
    for name, area in (("explored", fog.explored), ("revealed", fog.revealed),
                       ("hidden", fog.hidden)):
        problem = area_problem(area, m.width, m.height)
        if problem:
            raise InputError(f"{where}.fog.{name}: {problem}")
    if fog.sight is not None and not 0 < fog.sight <= 100_000:
        raise InputError(f"{where}.fog.sight: a sight range of {fog.sight:g} m must be above "
                         "0 and at most 100,000")


def verify(loaded: Loaded) -> None:
    """Refuse a log that does not fit the saved map: every entry must undo and redo.

    ``tacmap check`` runs this; opening a file does not pay for it (undo then
    refuses such an entry in one sentence instead).
    """
    state = copy.deepcopy(loaded.state)
    entries = loaded.log
    broken = (KeyError, ValueError, IndexError, TypeError, AttributeError)
    for n in range(len(entries), 0, -1):
        try:
            for event in reversed(entries[n - 1].events):
                event.revert(state)
        except broken as err:
            raise InputError(f"log entry {n} does not match the map: it cannot be undone "
                             f"({_why(err)})") from None
    if entries:
        try:
            check_state(state, "the map before the log")
        except InputError as err:
            raise InputError(f"undoing the whole log gives a map no command could make: {err}") \
                from None
    for n, entry in enumerate(entries, start=1):
        stray = None
        try:
            for event in entry.events:
                if not event.matches(state):
                    stray = event
                    break
                event.apply(state)
        except broken as err:
            raise InputError(f"log entry {n} does not match the map: it cannot be replayed "
                             f"({_why(err)})") from None
        if stray is not None:
            raise InputError(f"log entry {n} does not match the map: its "
                             f"{records.name_of(stray)} event does not start from the map the "
                             "entries before it leave (was the log copied or edited?)")
        # Undo and redo reach every state on the way: each must be one a command could make.
        placed = {type(e) for e in entry.events} & _PLACING
        if placed and n < len(entries):
            try:
                check_state(state, "the map", walls=WallsChanged in placed)
            except InputError as err:
                raise InputError(f"log entry {n} gives a map no command could make: {err}") \
                    from None
    if state != loaded.state:
        raise InputError("replaying the log does not give the saved map")


def _why(err: Exception) -> str:
    """Why an event would not apply, for a sentence: a missing key is a token (or value)
    the map does not hold, which Python would show as a bare ``'ghost'``."""
    if isinstance(err, KeyError) and err.args:
        return f"it names {err.args[0]!r}, which is not on the map"
    return str(err)


#: Encodes as ``records.encode`` does, with every dict's keys sorted (struct fields keep
#: their order).
_SORTED_KEYS = msgspec.json.Encoder(order="deterministic")


def encode(state: Encounter, log: list[Entry], images: str = "images") -> bytes:
    """The file's bytes (compact JSON: large logs stay small and fast to read)."""
    body = {"type": records.tag_of(Encounter), **msgspec.structs.asdict(state)}
    # A token's stats and values with their keys sorted: the order a key was set in is
    # history (a preview that took a value off and put it back moved it last), and the
    # same state is saved to the same bytes.
    body["tokens"] = msgspec.Raw(_SORTED_KEYS.encode(list(state.tokens.values())))
    if not state.templates:
        del body["templates"]  # files from before templates keep their bytes
    if not state.map_extras:
        del body["map_extras"]  # likewise files from before map imports
    try:
        return _encode_file(state, log, images, body)
    except UnicodeEncodeError as err:
        raise InputError(f"the encounter cannot be written: {records.unicode_problem(err)}") \
            from None
    except (msgspec.EncodeError, ValueError, TypeError, OverflowError, RecursionError) as err:
        # Nothing a command makes should land here; if it does, the GM keeps the
        # encounter open and the old file, and is told in one sentence.
        raise InputError(f"the encounter cannot be written ({type(err).__name__}: {err})") \
            from None


def _encode_file(state: Encounter, log: list[Entry], images: str, body: dict[str, Any]) -> bytes:
    return records.encode({
        "format": FORMAT,
        "version": VERSION,
        "ruleset": {"id": state.ruleset, "version": state.ruleset_version},
        "images": images,
        "encounter": body,
        "log": log,
    })


def dumps(state: Encounter, log: list[Entry], images: str = "images") -> str:
    """The file's text."""
    return encode(state, log, images).decode()


def save(path: str | Path, state: Encounter, log: list[Entry], images: str = "images",
         backup: bool = True) -> None:
    """Write atomically: temp file in the same folder, fsync, rename; keep ``FILE.bak``."""
    write_atomic(path, encode(state, log, images), backup=backup)


def write_atomic(path: str | Path, text: str | bytes, backup: bool = False) -> None:
    """Write ``text`` (UTF-8) so that ``path`` holds the old file or the new one, never half.

    Temp file in the same folder, fsync, rename. With ``backup`` the previous
    file is kept as ``FILE.bak``. A symbolic link is written through: the file it
    points to gets the new text and the link stays a link. A path that is not a
    regular file (a folder, a named pipe, a device) raises ``NotAFile`` and nothing
    is written: renaming over ``/dev/null`` would replace the device itself.
    """
    path = _through_links(Path(path))
    check_target(path)
    folder = path.parent if str(path.parent) else Path(".")
    _clean_stale(folder, path.name)
    # The writer's pid in the name tells a save in flight from one a killed process left.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=folder)
    bak_tmp = f"{tmp}.bak"
    try:
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        if backup and path.exists():
            # Copy first, then rename, so a crash leaves either the old backup or the new one.
            shutil.copy2(path, bak_tmp)
            os.replace(bak_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        for left in (tmp, bak_tmp):
            with contextlib.suppress(OSError):
                os.unlink(left)
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows it)."""
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class NotAFile(OSError):
    """A path to write that is a folder, a named pipe, a device or a socket."""


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, for a sentence ("a named pipe")."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_target(path: str | Path) -> None:
    """Raise ``NotAFile`` when ``path`` (links followed) is a folder, a pipe or a device.

    Checked by ``stat``, never by opening: opening a named pipe waits for a reader.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing (or unreachable: the write itself says why)
    if not stat.S_ISREG(mode):
        raise NotAFile(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
                       f"it is {file_kind(mode)}, not a file", str(path))


def real_inside(folder: Path, name: str) -> Path | None:
    """The real path of ``folder / name``, links followed, or None when it lies outside
    ``folder``'s real path (a link that leads out). OSError or RuntimeError (a loop of
    links) when it does not exist."""
    root = folder.resolve(strict=True)
    real = (folder / name).resolve(strict=True)
    return real if real.is_relative_to(root) else None


#: How many other names ``place`` tries (``crypt-2.png`` … ``crypt-1000.png``).
MAX_FRESH = 1000


def place(folder: Path, name: str, data: bytes, fresh: bool = True) -> tuple[str | None, bool]:
    """Put ``data`` in ``folder`` as ``name``, never through a link, never over another file.

    A name already holding these very bytes (a regular file) is used as it is.
    One taken by anything else (another file, a link, a pipe, a folder) is left
    alone: with ``fresh`` the next free ``stem-2.ext``, ``stem-3.ext`` … is used,
    without it nothing is written. A folder inside ``folder`` that leads out
    through a link is never written into. Returns the name the bytes are under
    (None: not written) and whether this call made that file, so that a failure
    later removes only what it made. The file appears whole or not at all.
    """
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve(strict=True)
    first = PurePosixPath(name)
    for n in range(1, MAX_FRESH + 1 if fresh else 2):
        candidate = str(first if n == 1 else first.with_name(f"{first.stem}-{n}{first.suffix}"))
        target = folder / candidate
        if not target.parent.resolve().is_relative_to(root):
            return None, False
        if _holds(target, data):
            return candidate, False
        if not os.path.lexists(target) and _create(target, data):
            return candidate, True
    if not fresh:
        return None, False
    raise OSError(errno.EEXIST, f"{name} and {MAX_FRESH - 1} other names for it are taken",
                  str(folder))


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file (not a link) holding exactly ``data``."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        return f.read(len(data) + 1) == data


def _create(target: Path, data: bytes) -> bool:
    """Make ``target`` hold ``data`` if nothing is there; False when something got there first.

    A hard link from a synced temp file makes the file appear whole, and fails
    rather than replace anything (a link included); where the file system has no
    hard links (FAT, some network shares) an exclusive create, removed again if
    writing it fails, does the same less atomically.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp",
                               dir=folder)
    try:
        os.chmod(tmp, _mode_for(target))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        except OSError:
            if not _create_exclusive(target, data):
                return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _sync_folder(folder)
    return True


def _create_exclusive(target: Path, data: bytes) -> bool:
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(target, flags, _mode_for(target))
    except FileExistsError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(target)
        raise
    return True


def copy_image(source: Path, name: str, folder: Path, limit: int = MAX_BYTES) -> bool:
    """Copy the image ``name`` from the image folder ``source`` into the image folder
    ``folder`` (a save under a new name, a second window's copy); True when it is there.

    Only a regular file whose real path is inside ``source`` is read, as drawing
    reads it: a link that leads out of the folder is not copied, nor is a pipe.
    The copy is made by ``place`` without another name: whatever already sits at
    ``name`` in ``folder`` is kept.
    """
    try:
        real = real_inside(source, name)
        if real is None or not stat.S_ISREG(os.stat(real).st_mode):
            return False
        data = read_bytes(real, limit, "an image")
    except (OSError, RuntimeError, InputError):
        return False
    placed, _ = place(folder, name, data, fresh=False)
    return placed is not None


def _through_links(path: Path) -> Path:
    """The file a save of ``path`` must replace: the target of a symbolic link, else itself."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=False))
    except (OSError, RuntimeError):  # a loop of links: saving replaces the link, as before
        return path


def _mode_for(path: Path) -> int:
    """The permission bits the written file gets: the old file's, else the umask's."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


#: A temp file with no live writer's pid in its name is left alone this long.
STALE_SECONDS = 600.0


def _clean_stale(folder: Path, name: str) -> None:
    """Remove temp files that killed saves of ``name`` left behind (``.NAME.PID.*.tmp``).

    Only stale ones: the pid in the name is no running process, or (a name with no
    pid, from an older tacmap) the file is older than ``STALE_SECONDS``. Another
    process's save in flight is never touched.
    """
    prefix = f".{name}."
    with contextlib.suppress(OSError):
        for stale in folder.glob(f".{glob.escape(name)}.*.tmp*"):
            if stale.suffix not in (".tmp", ".bak") or not stale.is_file():
                continue
            if _stale(stale, stale.name[len(prefix):].split(".", 1)[0]):
                with contextlib.suppress(OSError):
                    stale.unlink()


def _stale(temp: Path, pid_text: str) -> bool:
    # On Windows os.kill(pid, 0) would send Ctrl+C, so there only the age tells.
    if pid_text.isdigit() and os.name != "nt":
        return not _running(int(pid_text))
    try:
        return time.time() - temp.stat().st_mtime > STALE_SECONDS
    except OSError:
        return False


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (ours included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or a pid we cannot ask about: keep its file
    return True


def read_bytes(path: Path, limit: int, what: str) -> bytes:
    """A file's bytes, or one InputError sentence (missing, a folder, too big, unreadable)."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file (a pipe or a device), so it "
                             f"cannot be {what} file")
        size = info.st_size
        if size > limit:
            raise InputError(f"{path}: the file is {size:,} bytes, more than {what} can be")
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not {what} file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the file ({err.strerror})") from None


def load(path: str | Path, registry: Registry) -> Loaded:
    """Read an encounter file; any problem raises InputError naming the file."""
    path = Path(path)
    raw = read_bytes(path, MAX_BYTES, "an encounter")
    try:
        with gc_paused():
            return loads(raw, registry)
    except InputError as err:
        raise InputError(f"{path}: {err}") from None
    except RecursionError:
        raise InputError(f"{path}: the data is nested too deeply") from None


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cycle collector while tens of thousands of records are built (reading a
    file, walking a long log for the fight report).

    Reading makes no cycles, yet each burst of allocations would trigger full
    collections over the whole heap: a large log loaded twice as slowly.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def loads(raw: bytes | str, registry: Registry) -> Loaded:
    """Read an encounter from file text."""
    try:
        data = raw.encode() if isinstance(raw, str) else raw
    except UnicodeEncodeError as err:
        raise InputError(records.unicode_problem(err)) from None
    if data.startswith(records.BOM):
        data = data[len(records.BOM):]
    crowded = records.too_many_values(data)
    if crowded:
        raise InputError(f"the file {crowded}")
    head = _head(data)
    if _value(head, "format") != FORMAT:
        raise InputError(_NOT_OURS)
    version = _value(head, "version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError("\"version\" must be a whole number from 1")
    if version > VERSION:
        raise InputError(f"written by a newer tacmap (file version {version}, this tacmap reads "
                         f"up to {VERSION}); update tacmap to open it")
    unknown = sorted(set(head) - set(TOP_LEVEL))
    if unknown:
        raise InputError(f"unknown top-level key {unknown[0]!r}")
    rs = _value(head, "ruleset")
    if not isinstance(rs, dict) or not isinstance(rs.get("id"), str):
        raise InputError("\"ruleset\" must be an object with an \"id\"")
    ruleset = registry.get(rs["id"])  # first, so that its record types can be read
    images = _value(head, "images", "images")
    if not isinstance(images, str):
        raise InputError("\"images\" must be a folder name")
    check_folder_path(images, "images")
    if not _opens(head.get("encounter"), b"{"):
        raise InputError("\"encounter\" must be an object")
    try:
        body = records.decode(head["encounter"], _body(), "encounter")
    except records.BadRecord as err:
        if err.where == "encounter.schedule" and err.problem.startswith(
                ("unknown", "expected", 'missing "type"')):
            raise InputError("encounter.schedule is not a round structure tacmap knows") from None
        raise
    by_id: dict[str, Token] = {}
    for i, token in enumerate(body.tokens):
        if token.id in by_id:
            raise InputError(f"encounter.tokens[{i}]: token id {token.id!r} is used twice")
        ruleset.check_token(token)
        if token.image is not None:
            token.image = token.image.replace("\\", "/")  # written on Windows
            check_image_path(token.image, f"encounter.tokens[{i}].image")
        by_id[token.id] = token
    state = Encounter(**{**msgspec.structs.asdict(body), "tokens": by_id})
    if state.map.image is not None:
        state.map.image = state.map.image.replace("\\", "/")
    if state.ruleset != rs["id"]:
        raise InputError(f"encounter.ruleset {state.ruleset!r} differs from ruleset.id "
                         f"{rs['id']!r}")
    # The header says the same as the body, or nothing (files before it was written).
    if "version" in rs and rs["version"] != state.ruleset_version:
        raise InputError(f"ruleset.version {json.dumps(rs['version'])} differs from "
                         f"encounter.ruleset_version {json.dumps(state.ruleset_version)}")
    if state.map.image is not None:
        check_image_path(state.map.image, "encounter.map.image")
    check_overrides(ruleset.manifest.options, state.house_rules)
    if "house_rules" not in _HEAD.decode(head["encounter"]):
        # Saved before house rules (every file since writes them, if only as {}): the
        # readings it was played with stay in force, so its log replays the same, and
        # the GM sees them as house rules it may change.
        state.house_rules = {**kept_from_before(ruleset.manifest.options), **state.house_rules}
    else:
        # An option added by a later version of the ruleset: the file keeps the reading
        # it was played with, as above.
        state.house_rules = {**kept_from_before(ruleset.manifest.options,
                                                state.ruleset_version), **state.house_rules}
    check_state(state)
    crowded = too_many_items(state)
    if crowded:
        raise InputError(f"encounter: {crowded}")
    log = head.get("log", msgspec.Raw(b"[]"))
    if not _opens(log, b"["):
        raise InputError("\"log\" must be a list")
    try:
        # Counted before read (a million entries would take a gigabyte), when the text
        # is long enough to hold more than the limit: every entry is over 30 bytes.
        if len(log) > MAX_LOG * 30:
            _LOG_SIZE.decode(log)
    except msgspec.ValidationError:
        raise InputError(f"log: more than the {MAX_LOG:,} entries a file may hold") from None
    except msgspec.DecodeError:
        pass  # malformed JSON: the full read below names the place
    entries: list[_Entry[Command, Event]] = records.decode(log, list[_Entry[Command, Event]],
                                                           "log")
    return Loaded(state, [Entry(e.command, e.events) for e in entries], images)


def _head(data: bytes) -> dict[str, msgspec.Raw]:
    """The top-level keys, each value left unread (or one sentence if it is not JSON)."""
    if not data.strip():
        raise InputError("the file is empty")
    try:
        return _HEAD.decode(data)
    except msgspec.ValidationError:
        raise InputError(_NOT_OURS) from None
    except msgspec.DecodeError as err:
        raise InputError(records.json_problem(err, data)) from None
    except RecursionError:
        raise InputError("the JSON is nested too deeply") from None
    except UnicodeError as err:
        raise InputError(records.unicode_problem(err)) from None


def _value(head: dict[str, msgspec.Raw], key: str, default: Any = None) -> Any:
    return records.parse(head[key]) if key in head else default


def _opens(raw: msgspec.Raw | None, bracket: bytes) -> bool:
    return raw is not None and memoryview(raw)[:1].tobytes() == bracket
