"""Encounter files (DESIGN §5): versioned JSON, atomic writes with a backup, clear errors.

A file never runs code: it names its ruleset by id, and only records the
engine and that ruleset registered can be read back. Every problem becomes
one ``InputError`` sentence that names the file and the place.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tacmap.engine import codec
from tacmap.engine.commands import Command
from tacmap.engine.errors import InputError
from tacmap.engine.events import Event
from tacmap.engine.referee import Entry
from tacmap.engine.ruleset import Registry
from tacmap.engine.state import Encounter, Token, check_image_path

FORMAT = "tacmap-encounter"
VERSION = 1
MAX_BYTES = 256 * 1024 * 1024


@dataclass
class Loaded:
    """An encounter read from a file, with its log."""

    state: Encounter
    """The state as saved."""
    log: list[Entry]
    """Entries from the first command to the last."""
    images: str
    """Folder (relative to the file) that image paths are relative to."""


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
                             f"({err})") from None
    for n, entry in enumerate(entries, start=1):
        try:
            for event in entry.events:
                event.apply(state)
        except broken as err:
            raise InputError(f"log entry {n} does not match the map: it cannot be replayed "
                             f"({err})") from None
    if state != loaded.state:
        raise InputError("replaying the log does not give the saved map")


def to_json(state: Encounter, log: list[Entry], images: str = "images") -> dict[str, Any]:
    """The JSON document for an encounter and its log (records stay records for dumps)."""
    body = codec.shallow(state)
    body["tokens"] = list(state.tokens.values())
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": {"id": state.ruleset, "version": state.ruleset_version},
        "images": images,
        "encounter": body,
        "log": [{"command": e.command, "events": e.events} for e in log],
    }


def dumps(state: Encounter, log: list[Entry], images: str = "images") -> str:
    """The file text (compact: large logs stay small and fast to read)."""
    return json.dumps(to_json(state, log, images), separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False, default=codec.shallow)


def save(path: str | Path, state: Encounter, log: list[Entry], images: str = "images") -> None:
    """Write atomically: temp file in the same folder, fsync, rename; keep ``FILE.bak``."""
    write_atomic(path, dumps(state, log, images), backup=True)


def write_atomic(path: str | Path, text: str, backup: bool = False) -> None:
    """Write ``text`` so that ``path`` holds either the old file or the new one, never half.

    Temp file in the same folder, fsync, rename. With ``backup`` the previous
    file is kept as ``FILE.bak``.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if backup and path.exists():
            # Copy first, then rename, so a crash leaves either the old backup or the new one.
            bak_tmp = f"{tmp}.bak"
            shutil.copy2(path, bak_tmp)
            os.replace(bak_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def read_bytes(path: Path, limit: int, what: str) -> bytes:
    """A file's bytes, or one InputError sentence (missing, a folder, too big, unreadable)."""
    try:
        size = path.stat().st_size
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
        with _gc_paused():
            return loads(raw, registry)
    except InputError as err:
        raise InputError(f"{path}: {err}") from None
    except RecursionError:
        raise InputError(f"{path}: the data is nested too deeply") from None


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cycle collector while tens of thousands of records are built.

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


def _reject_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number an encounter may hold")


def parse_json(raw: bytes | str) -> Any:
    """Strict JSON: no NaN, no huge numbers, no repeated keys; errors as one sentence."""
    if isinstance(raw, bytes):
        if not raw.strip():
            raise InputError("the file is empty")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise InputError(f"not UTF-8 text (byte {err.start})") from None
    else:
        text = raw
    if not text.strip():
        raise InputError("the file is empty")
    try:
        # NaN and Infinity are refused here; an overflowing literal like 1e400 reads
        # as inf and is refused by the codec, which checks every number it reads.
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        runs_to_end = err.msg.startswith("Unterminated string") and "\n" not in text[err.pos:]
        if err.pos >= len(text.rstrip()) or runs_to_end:
            raise InputError("the file ends too early: it looks truncated") from None
        raise InputError(f"not valid JSON at line {err.lineno}, column {err.colno} "
                         f"({err.msg})") from None
    except RecursionError:
        raise InputError("the JSON is nested too deeply") from None
    except InputError:
        raise
    except ValueError as err:  # e.g. an integer with thousands of digits
        raise InputError(f"a number is out of range ({err})") from None


def loads(raw: bytes | str, registry: Registry) -> Loaded:
    """Read an encounter from file text."""
    doc = parse_json(raw)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError("not a tacmap encounter (no \"format\": \"tacmap-encounter\")")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError("\"version\" must be a whole number from 1")
    if version > VERSION:
        raise InputError(f"written by a newer tacmap (file version {version}, this tacmap reads "
                         f"up to {VERSION}); update tacmap to open it")
    unknown = sorted(set(doc) - {"format", "version", "ruleset", "images", "encounter", "log"})
    if unknown:
        raise InputError(f"unknown top-level key {unknown[0]!r}")
    rs = doc.get("ruleset")
    if not isinstance(rs, dict) or not isinstance(rs.get("id"), str):
        raise InputError("\"ruleset\" must be an object with an \"id\"")
    ruleset = registry.get(rs["id"])
    images = doc.get("images", "images")
    if not isinstance(images, str):
        raise InputError("\"images\" must be a folder name")
    check_image_path(images, "images")
    body = doc.get("encounter")
    if not isinstance(body, dict):
        raise InputError("\"encounter\" must be an object")
    body = dict(body)
    tokens = body.pop("tokens", [])
    if not isinstance(tokens, list):
        raise InputError("encounter.tokens must be a list")
    by_id: dict[str, Token] = {}
    for i, raw_token in enumerate(tokens):
        token = codec.decode(raw_token, Token, f"encounter.tokens[{i}]")
        if token.id in by_id:
            raise InputError(f"encounter.tokens[{i}]: token id {token.id!r} is used twice")
        ruleset.check_token(token)
        if token.image is not None:
            token.image = token.image.replace("\\", "/")  # written on Windows
            check_image_path(token.image, f"encounter.tokens[{i}].image")
        by_id[token.id] = token
    body["tokens"] = {}
    state: Encounter = codec.decode(body, Encounter, "encounter")
    state.tokens = by_id
    if state.schedule is not None and not dataclasses.is_dataclass(state.schedule):
        raise InputError("encounter.schedule is not a round structure tacmap knows")
    if state.map.image is not None:
        state.map.image = state.map.image.replace("\\", "/")
    if state.ruleset != rs["id"]:
        raise InputError(f"encounter.ruleset {state.ruleset!r} differs from ruleset.id "
                         f"{rs['id']!r}")
    if state.map.image is not None:
        check_image_path(state.map.image, "encounter.map.image")
    log = doc.get("log", [])
    if not isinstance(log, list):
        raise InputError("\"log\" must be a list")
    return Loaded(state, _entries(log), images)


def _entries(log: list[Any]) -> list[Entry]:
    """The log's entries; the tight loop handles good files, the codec words the errors."""
    command, event = codec.decoder(Command), codec.decoder(Event)
    out = []
    try:
        for raw in log:
            if type(raw) is not dict or len(raw) != 2:
                raise KeyError
            out.append(Entry(command(raw["command"]), tuple(event(e) for e in raw["events"])))
    except (KeyError, TypeError, codec.Bad):
        return list(codec.decode(log, tuple[Entry, ...], "log"))
    return out
