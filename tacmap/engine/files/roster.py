"""The roster: combatants kept between encounters, per ruleset, in one SQLite file.

A GM saves an orc once and drops copies of it into any encounter of the same
ruleset. The roster lives in the user data folder (``default_path()``) and
travels between machines as JSON (``export_json`` / ``import_json``)::

    >>> with Roster(default_path()) as roster:                 # doctest: +SKIP
    ...     orc = roster.add("action_pool", token, ["orc", "melee"])
    ...     [e.name for e in roster.search("action_pool", "melee")]
    ['Orc']

Every write is one transaction in WAL mode, so a crash or a kill mid-write
leaves the database as it was before that write or after it. Every problem a
user can meet (a damaged file, one from a newer tacmap, a bad import) is one
InputError sentence that names the file.
"""

from __future__ import annotations

import contextlib
import copy
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from tacmap.engine.files.storage import read_bytes, write_atomic
from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Token

#: Schema version kept in the database (``PRAGMA user_version``).
VERSION = 1
#: Marks the SQLite file as a tacmap roster (``PRAGMA application_id``): "tmro".
APPLICATION_ID = 0x746D726F
#: ``format`` and ``version`` of the JSON export.
FORMAT = "tacmap-roster"
FILE_VERSION = 1
#: Largest JSON file ``import_json`` reads.
MAX_IMPORT_BYTES = 64 * 1024 * 1024
#: Longest tag, in characters.
MAX_TAG = 100
#: Most tags of one entry.
MAX_TAGS = 100
#: Longest stored token, in bytes of JSON: a longer row is skipped unread.
MAX_TOKEN_BYTES = 1024 * 1024

_SCHEMA = """
CREATE TABLE combatant (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ruleset TEXT NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL
);
CREATE TABLE tag (
    combatant INTEGER NOT NULL REFERENCES combatant(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (combatant, position)
);
CREATE INDEX combatant_by_ruleset ON combatant(ruleset, name);
"""


@dataclass(frozen=True)
class RosterEntry:
    """One combatant kept in the roster."""

    id: int
    """Row id in the roster, stable while the entry exists (never reused after removal)."""
    ruleset: str
    """Id of the ruleset whose stat block the token follows."""
    name: str
    """The token's name, as searched and listed."""
    tags: tuple[str, ...]
    """Labels the GM searches by (``"undead"``, ``"boss"``), in the order given."""
    token: Token
    """The combatant as saved; a fresh copy each time the entry is read."""


def default_path() -> Path:
    """Where the app keeps its roster: ``roster.sqlite3`` in the user data folder."""
    import platformdirs

    return platformdirs.user_data_path("tacmap", appauthor=False) / "roster.sqlite3"


def combatants(path: Path, ruleset_id: str, words: str) -> list[Token]:
    """The combatants of ``ruleset_id`` in the roster at ``path`` whose name or tags hold
    ``words``; InputError, in one sentence, when there are none."""
    if not path.exists():
        raise InputError(f"there is no roster yet ({path}); save combatants to it from the "
                         "window (Build ▸ Save Combatant to Roster)")
    with Roster(path) as roster:
        found = roster.search(ruleset_id, words)
    if not found:
        raise InputError(f"the roster has no {ruleset_id} combatant whose name or tags hold "
                         f"{words!r}")
    return [entry.token for entry in found]


def _fold(value: str | None) -> str | None:
    return value.casefold() if isinstance(value, str) else value


def clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Tags trimmed, blanks dropped, repeats (ignoring case) dropped, order kept."""
    out: dict[str, str] = {}
    for tag in tags:
        if not isinstance(tag, str):
            raise InputError(f"a tag must be text, not {tag!r}")
        text = " ".join(tag.split())
        if len(text) > MAX_TAG:
            raise InputError(f"the tag {text[:20]!r}… is longer than {MAX_TAG} characters")
        if text:
            out.setdefault(text.casefold(), text)
        if len(out) > MAX_TAGS:
            raise InputError(f"an entry may have at most {MAX_TAGS} tags")
    return tuple(out.values())


class Roster:
    """An open roster database; use as a context manager or call ``close()``.

    A damaged row (bad JSON, a wrong type, a field of a newer tacmap, a tag that
    is not text) never stops a listing: it is left out, kept in the database as
    it is, and named once by ``skipped()``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        #: Sentences about damaged rows not yet handed out, and the rows already named.
        self._skipped: list[str] = []
        self._named: set[int] = set()
        if self.path.is_dir():
            raise InputError(f"{self.path}: is a folder, not a roster file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: every write opens its own BEGIN IMMEDIATE … COMMIT.
            self._db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        except (OSError, sqlite3.Error) as err:
            raise InputError(f"{self.path}: cannot open the roster ({_reason(err)})") from None
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        with self._guard("read"):
            self._db.create_function("fold", 1, _fold, deterministic=True)
            app = self._pragma("application_id")
            version = self._pragma("user_version")
        if app not in (0, APPLICATION_ID):
            raise InputError(f"{self.path}: is an SQLite database of another program, "
                             "not a tacmap roster")
        if version > VERSION:
            raise InputError(f"{self.path} was written by a newer tacmap (roster version "
                             f"{version}, this one reads up to {VERSION})")
        # Checked before anything is written, so a damaged file is left as it was.
        with self._guard("read"):
            check = [row[0] for row in self._db.execute("PRAGMA quick_check")]
            tables = {row[0] for row in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if check != ["ok"]:
            first = " ".join(str(check[0]).split())[:160]
            raise InputError(f"{self.path}: the roster is damaged (SQLite reports: {first})")
        if version and not {"combatant", "tag"} <= tables:
            raise InputError(f"{self.path}: the roster is damaged (its tables are missing)")
        if not version and tables:
            raise InputError(f"{self.path}: is an SQLite database of another program, "
                             "not a tacmap roster")
        with self._guard("open"):
            # WAL: a reader never sees half a write, and a killed writer leaves the
            # last committed state; FULL makes each commit durable as it returns.
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            if version == 0:
                self._create()

    def _create(self) -> None:
        with self._write():
            # Checked again inside the transaction: another tacmap may have just made it.
            if self._pragma("user_version"):
                return
            if self._db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                ).fetchone()[0]:
                raise InputError(f"{self.path}: is an SQLite database of another program, "
                                 "not a tacmap roster")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._db.execute(f"PRAGMA user_version = {VERSION}")

    def _pragma(self, name: str) -> int:
        value = self._db.execute(f"PRAGMA {name}").fetchone()[0]
        return int(value)

    # --- plumbing ---------------------------------------------------------------

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """SQLite errors as one sentence naming the file."""
        try:
            yield
        except sqlite3.Error as err:
            raise InputError(f"{self.path}: cannot {doing} the roster ({_reason(err)})") from None

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: everything inside is written, or nothing is."""
        with self._guard("write"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        """Close the database (the roster cannot be used afterwards)."""
        self._db.close()

    def __enter__(self) -> Roster:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # --- entries ---------------------------------------------------------------

    def add(self, ruleset_id: str, token: Token, tags: Sequence[str] = ()) -> int:
        """Keep a copy of ``token`` under ``ruleset_id``; returns the new entry's id."""
        if not isinstance(ruleset_id, str) or not ruleset_id.strip():
            raise InputError("a roster entry needs a ruleset id")
        text, clean = _token_text(token), clean_tags(tags)
        with self._write() as db:
            return self._insert(db, ruleset_id, token.name, text, clean)

    @staticmethod
    def _insert(db: sqlite3.Connection, ruleset_id: str, name: str, text: str,
                tags: tuple[str, ...]) -> int:
        cur = db.execute("INSERT INTO combatant (ruleset, name, token) VALUES (?, ?, ?)",
                         (ruleset_id, name, text))
        entry_id = cur.lastrowid
        assert entry_id is not None
        db.executemany("INSERT INTO tag (combatant, position, tag) VALUES (?, ?, ?)",
                       [(entry_id, i, t) for i, t in enumerate(tags)])
        return entry_id

    def update(self, entry_id: int, token: Token, tags: Sequence[str] = ()) -> None:
        """Replace an entry's token and tags (its ruleset stays)."""
        text, clean = _token_text(token), clean_tags(tags)
        with self._write() as db:
            cur = db.execute("UPDATE combatant SET name = ?, token = ? WHERE id = ?",
                             (token.name, text, entry_id))
            if cur.rowcount == 0:
                raise self._missing(entry_id)
            db.execute("DELETE FROM tag WHERE combatant = ?", (entry_id,))
            db.executemany("INSERT INTO tag (combatant, position, tag) VALUES (?, ?, ?)",
                           [(entry_id, i, t) for i, t in enumerate(clean)])

    def remove(self, entry_id: int) -> None:
        """Delete an entry and its tags."""
        with self._write() as db:
            db.execute("DELETE FROM tag WHERE combatant = ?", (entry_id,))
            if db.execute("DELETE FROM combatant WHERE id = ?", (entry_id,)).rowcount == 0:
                raise self._missing(entry_id)

    def _missing(self, entry_id: int) -> InputError:
        return InputError(f"{self.path}: the roster has no entry {entry_id} "
                          "(it may have been removed)")

    def get(self, entry_id: int) -> RosterEntry:
        """The entry with this id (an InputError if it is damaged)."""
        with self._guard("read"):
            row = self._db.execute(_ROW + " WHERE id = ?", (MAX_TOKEN_BYTES, entry_id)).fetchone()
            if row is None:
                raise self._missing(entry_id)
            tags = tuple(r[0] for r in self._db.execute(
                "SELECT tag FROM tag WHERE combatant = ? ORDER BY position", (entry_id,)))
        entry = self._read(row, tags)
        if isinstance(entry, str):
            raise InputError(entry)
        return entry

    def skipped(self) -> list[str]:
        """Sentences naming the damaged rows listings left out since the last call (each once)."""
        out, self._skipped = self._skipped, []
        return out

    def _entries(self, rows: list[tuple[Any, ...]],
                 tags: dict[int, tuple[str, ...]]) -> list[RosterEntry]:
        """The rows read as entries; a damaged one is left out and named once."""
        out = []
        for row in rows:
            entry = self._read(row, tags.get(row[0], ()))
            if isinstance(entry, RosterEntry):
                out.append(entry)
            elif row[0] not in self._named:
                self._named.add(row[0])
                self._skipped.append(entry)
        return out

    def search(self, ruleset_id: str, text: str = "") -> list[RosterEntry]:
        """Entries of a ruleset whose name or a tag contains each word of ``text``.

        Case does not matter; an empty text lists them all. Sorted by name.
        """
        words = text.casefold().split()
        sql = _ROW + " c WHERE ruleset = ?"
        params: list[Any] = [MAX_TOKEN_BYTES, ruleset_id]
        for word in words:
            # instr, not LIKE: a % or _ the GM types is a character, not a wildcard.
            sql += (" AND (instr(fold(c.name), ?) > 0 OR EXISTS (SELECT 1 FROM tag t"
                    " WHERE t.combatant = c.id AND instr(fold(t.tag), ?) > 0))")
            params += [word, word]
        sql += " ORDER BY fold(name), id"
        with self._guard("read"):
            rows = self._db.execute(sql, params).fetchall()
            tags = self._tags_of(ruleset_id)
        return self._entries(rows, tags)

    def _tags_of(self, ruleset_id: str | None) -> dict[int, tuple[str, ...]]:
        sql = "SELECT t.combatant, t.tag FROM tag t JOIN combatant c ON c.id = t.combatant"
        params: tuple[Any, ...] = ()
        if ruleset_id is not None:
            sql += " WHERE c.ruleset = ?"
            params = (ruleset_id,)
        found: dict[int, list[str]] = {}
        for entry_id, tag in self._db.execute(sql + " ORDER BY t.combatant, t.position",
                                              params):
            found.setdefault(entry_id, []).append(tag)
        return {k: tuple(v) for k, v in found.items()}

    def _read(self, row: tuple[Any, ...], tags: tuple[Any, ...]) -> RosterEntry | str:
        """The entry of a row, or the sentence saying why it cannot be read."""
        entry_id, ruleset_id, name, text, size = row
        shown = f" ({name})" if isinstance(name, str) and name else ""
        where = f"{self.path}: roster entry {entry_id}{shown} is damaged and was skipped"
        kept = "; it is kept in the roster as it is"
        for value, what in ((ruleset_id, "its ruleset"), (name, "its name"),
                            *((t, f"the tag {t!r}") for t in tags)):
            if not isinstance(value, str):
                return f"{where} ({what} is {type(value).__name__}, not text){kept}"
        # The limits an entry is added under hold for a row written by other means too.
        if len(tags) > MAX_TAGS:
            return f"{where} (it has {len(tags):,} tags, more than the {MAX_TAGS} an entry " \
                f"may have){kept}"
        for tag in tags:
            if len(tag) > MAX_TAG:
                return f"{where} (the tag {tag[:20]!r}… is longer than {MAX_TAG} " \
                    f"characters){kept}"
        if text is None:
            return f"{where} (the token is {size or 0:,} bytes, more than the " \
                f"{MAX_TOKEN_BYTES:,} a roster entry may hold){kept}"
        if not isinstance(text, str | bytes):
            return f"{where} (the token is {type(text).__name__}, not JSON text){kept}"
        try:
            token = records.decode(text, Token, "token")
        except InputError as err:
            return f"{where} ({err}){kept}"
        return RosterEntry(entry_id, ruleset_id, name, tags, token)

    def rulesets(self) -> list[str]:
        """Ids of the rulesets that have entries, sorted."""
        with self._guard("read"):
            return [r[0] for r in self._db.execute(
                "SELECT DISTINCT ruleset FROM combatant ORDER BY ruleset")]

    # --- copies ----------------------------------------------------------------

    def copy_for(self, entry_id: int, existing_ids: Iterable[str]) -> Token:
        """A fresh copy of an entry's token for an encounter that has ``existing_ids``.

        The copy keeps its id and name when free (``"orc"``, "Orc"), else takes the
        first free number (``"orc-2"``, "Orc 2"). It starts unhurt, with no
        conditions and nothing the rules tracked in play; its cell is the saved one
        (the caller puts it where it was dropped).
        """
        token = self.get(entry_id).token
        taken = set(existing_ids)
        if token.id not in taken:
            return _fresh(token)
        return _numbered(token, token.id, token.name, taken, set())

    # --- JSON --------------------------------------------------------------------

    def export_json(self, path: str | Path, ruleset_id: str | None = None) -> int:
        """Write the entries (of one ruleset, or all) as JSON, atomically; returns how many."""
        sql = _ROW
        params: tuple[Any, ...] = (MAX_TOKEN_BYTES,)
        if ruleset_id is not None:
            sql += " WHERE ruleset = ?"
            params = (MAX_TOKEN_BYTES, ruleset_id)
        with self._guard("read"):
            rows = self._db.execute(sql + " ORDER BY id", params).fetchall()
            tags = self._tags_of(ruleset_id)
        combatants = []
        for entry in self._entries(rows, tags):
            combatants.append({"ruleset": entry.ruleset, "tags": list(entry.tags),
                               "token": entry.token})
        doc = {"format": FORMAT, "version": FILE_VERSION, "combatants": combatants}
        text = msgspec.json.format(records.encode(doc), indent=1)
        try:
            write_atomic(path, text + b"\n")
        except OSError as err:
            raise InputError(f"{path}: cannot write the roster export ({_reason(err)})") from None
        return len(combatants)

    def import_json(self, path: str | Path) -> int:
        """Add the entries of a roster export; returns how many were added.

        The whole file is checked before anything is written, and then written
        in one transaction: a bad file adds nothing. An entry exactly like one
        already kept (same ruleset, token and tags) is skipped, so importing a
        file twice does not double the roster.
        """
        return sum(self.import_file(path).added.values())

    def import_file(self, path: str | Path) -> Imported:
        """``import_json``, saying how many were added for each ruleset and skipped."""
        path = Path(path)
        raw = read_bytes(path, MAX_IMPORT_BYTES, "a roster export")
        try:
            entries = _read_export(records.parse(raw))
        except InputError as err:
            raise InputError(f"{path}: {err}") from None
        with self._guard("read"):
            tags = self._tags_of(None)
            kept = {(r[1], r[2], tags.get(r[0], ())) for r in self._db.execute(
                "SELECT id, ruleset, token FROM combatant")}
        added: dict[str, int] = {}
        with self._write() as db:
            for ruleset_id, token, entry_tags in entries:
                text = _token_text(token)
                if (ruleset_id, text, entry_tags) in kept:
                    continue
                self._insert(db, ruleset_id, token.name, text, entry_tags)
                kept.add((ruleset_id, text, entry_tags))
                added[ruleset_id] = added.get(ruleset_id, 0) + 1
        return Imported(added, len(entries) - sum(added.values()))


@dataclass(frozen=True)
class Imported:
    """What a roster import did."""

    added: dict[str, int]
    """Entries added, by ruleset id."""
    skipped: int
    """Entries left out as already kept (same ruleset, token and tags)."""


#: A row as listings read it: the token only when it is short enough to read, and its size.
_ROW = ("SELECT id, ruleset, name, CASE WHEN length(CAST(token AS BLOB)) <= ? THEN token END, "
        "length(CAST(token AS BLOB)) FROM combatant")


def _read_export(doc: Any) -> list[tuple[str, Token, tuple[str, ...]]]:
    """The entries of a parsed export, or InputError saying what is wrong and where."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f"not a tacmap roster export (no \"format\": \"{FORMAT}\")")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError("\"version\" must be a whole number from 1")
    if version > FILE_VERSION:
        raise InputError(f"was written by a newer tacmap (roster file version {version}, "
                         f"this one reads up to {FILE_VERSION})")
    unknown = sorted(set(doc) - {"format", "version", "combatants"})
    if unknown:
        raise InputError(f"unknown top-level key {unknown[0]!r}")
    combatants = doc.get("combatants")
    if not isinstance(combatants, list):
        raise InputError("\"combatants\" must be a list")
    out = []
    for i, raw in enumerate(combatants):
        where = f"combatants[{i}]"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: expected an object")
        extra = sorted(set(raw) - {"ruleset", "tags", "token"})
        if extra:
            raise InputError(f"{where}: unknown key {extra[0]!r}")
        for key in ("ruleset", "token"):
            if key not in raw:
                raise InputError(f"{where}: missing {key!r}")
        ruleset_id = records.convert(raw["ruleset"], records.Text, f"{where}.ruleset")
        if not ruleset_id.strip():
            raise InputError(f"{where}.ruleset: must name a ruleset")
        tags = records.convert(raw.get("tags", []), tuple[records.Text, ...], f"{where}.tags")
        token = records.convert(raw["token"], Token, f"{where}.token")
        try:
            out.append((ruleset_id, token, clean_tags(tags)))
        except InputError as err:
            raise InputError(f"{where}.tags: {err}") from None
    return out


def _token_text(token: Token) -> str:
    """The token as stored: compact JSON, read back by ``records.decode``."""
    try:
        records.freeze(token.stats, "stats")
        records.freeze(token.values, "values")
        text = records.encode(token).decode()
        if len(text.encode()) > MAX_TOKEN_BYTES:
            raise InputError(f"it is {len(text.encode()):,} bytes of JSON, more than the "
                             f"{MAX_TOKEN_BYTES:,} a roster entry may hold")
        return text
    except (TypeError, InputError) as err:
        raise InputError(f"token {token.id!r} cannot be kept in the roster ({err})") from None
    except UnicodeEncodeError as err:
        raise InputError(f"token {token.id.encode('utf-8', 'replace').decode()!r} cannot be "
                         f"kept in the roster ({records.unicode_problem(err)})") from None


def _reason(err: BaseException) -> str:
    text = str(getattr(err, "strerror", None) or err) or type(err).__name__
    if "locked" in text or "busy" in text:
        return "another program is using it; try again"
    if "not a database" in text or "malformed" in text:
        return "the file is damaged or is not a roster"
    return text.rstrip(".")


# --------------------------------------------------------------------------- numbering

_NAME_NUMBER = re.compile(r"^(.*\S)\s+(\d+)$")
_ID_NUMBER = re.compile(r"^(.+)-(\d+)$")


def _fresh(token: Token) -> Token:
    copy_ = copy.deepcopy(token)
    copy_.hp = copy_.max_hp
    copy_.values = {}
    copy_.conditions = ()
    return copy_


def _numbered(token: Token, base_id: str, base_name: str, taken_ids: set[str],
              taken_names: set[str]) -> Token:
    n = 2
    while True:
        suffix = f"-{n}"
        new_id = base_id[:64 - len(suffix)] + suffix
        new_name = f"{base_name} {n}"
        if new_id not in taken_ids and new_name not in taken_names:
            out = _fresh(token)
            out.id, out.name = new_id, new_name
            return out
        n += 1


def next_copy(token: Token, existing_tokens: Iterable[Token] | Mapping[str, Token]) -> Token:
    """The next duplicate of ``token`` in an encounter: Orc → Orc 2 → Orc 3.

    A number already ending the name (and id) is replaced, so duplicating "Orc 2"
    gives "Orc 3", not "Orc 2 2"; the first number whose id and name are both
    free is taken. The copy starts unhurt, with no conditions and nothing the
    rules tracked in play, on the same cell (the caller moves it).
    """
    tokens = list(existing_tokens.values() if isinstance(existing_tokens, Mapping)
                  else existing_tokens)
    taken_ids = {t.id for t in tokens} | {token.id}
    taken_names = {t.name for t in tokens} | {token.name}
    name_match, id_match = _NAME_NUMBER.match(token.name), _ID_NUMBER.match(token.id)
    base_name = name_match.group(1) if name_match else token.name
    base_id = id_match.group(1) if id_match else token.id
    return _numbered(token, base_id, base_name, taken_ids, taken_names)
