"""Records: the typed values commands, events and state are made of, and their JSON.

A record is a msgspec Struct named by its tag under ``"type"``, so
``Move("ana", ((3, 4),))`` is written ``{"type":"move","actor":"ana","path":[[3,4]]}``.
Reading checks every field against its annotation; a bad value fails with one
sentence naming its path::

    >>> decode(b'{"type": "move", "actor": 3, "path": []}', Command)   # doctest: +SKIP
    InputError: actor: expected text, got a number

Reading a base class (``Command``, ``Event``, ``Schedule``) reads any of its
tagged subclasses, those a ruleset defines after startup included: decoders are
built on first use and built again once a new record class exists. msgspec
reads a class's field types only once, so a record that holds "any command,
event or schedule" declares that field with a TypeVar bound to the base
(``ScheduleChanged``); ``resolve`` fills in today's union.

Numbers are finite and within ``LIMIT`` (``Int``, ``Float``), text holds at most
``MAX_TEXT`` characters (``Text``), a list field at most ``MAX_LIST`` items
(``LONG``), and free-form ``Json`` values nest at most ``MAX_DEPTH`` deep, hold at
most ``MAX_ITEMS`` items in all, and hold tuples, never lists (state is compared,
hashed and undone by value).
"""

from __future__ import annotations

import functools
import math
import operator
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin, overload

import msgspec

from tacmap.engine.model.convert import (
    MISSING,
    Located,
    locate,
    place,
    quoted_number,
    shown,
    struct_of,
    unwrap,
)
from tacmap.engine.model.errors import InputError

T = TypeVar("T")

#: Largest magnitude a number may have anywhere in an encounter.
LIMIT = 1_000_000_000
#: Longest text a record field may hold, in characters.
MAX_TEXT = 100_000
#: Deepest nesting of lists and tables inside a ``Json`` value.
MAX_DEPTH = 100
#: Most items one ``Json`` value holds: list items and table entries, nested ones included.
MAX_ITEMS = 10_000
#: Most keys of a table of ``Json`` values (a token's stats or values, the ruleset's data).
MAX_KEYS = 1_000
#: Longest list of a record field (a path, an order, the dice of a roll).
MAX_LIST = 100_000
#: Most items the free-form values of one encounter hold together: every token's stats
#: and values and the ruleset's data (each also within ``MAX_ITEMS``).
MAX_ALL_ITEMS = 1_000_000
#: Most JSON values (numbers, texts, lists, tables) one file holds, counted in its text
#: before any is read: 100,000 log entries of a real fight hold about 5.5 million.
MAX_VALUES = 10_000_000

Int = Annotated[int, msgspec.Meta(ge=-LIMIT, le=LIMIT)]
Float = Annotated[float, msgspec.Meta(ge=-LIMIT, le=LIMIT)]
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT)]
#: The bound of a list field: ``Annotated[tuple[Cell, ...], LONG]``.
LONG = msgspec.Meta(max_length=MAX_LIST)
#: The bound of a short list field (a token's conditions): ``Annotated[..., SHORT]``.
SHORT = msgspec.Meta(max_length=MAX_KEYS)


class _Free:
    """Marks a ``Json`` annotation; msgspec ignores it and reads any JSON value."""


#: JSON-shaped value kept in state (stats, ruleset data): tuples, never lists.
Json = Annotated[Any, _Free()]


class Record(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type",
             tag=False):
    """Base of the records that are values (commands, events, rolls, schedules): frozen.

    A subclass names itself with ``tag="name"``. One without a tag is a base
    (``Command``) and is never written or read on its own.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _changed()


class MutableRecord(msgspec.Struct, forbid_unknown_fields=True, tag_field="type", tag=False):
    """Base of the records the state changes in place (Token, MapSpec, Encounter)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _changed()


_BASES = (Record, MutableRecord)
_ENCODER = msgspec.json.Encoder()

#: Record classes defined so far (a count), and what was built for that many.
_defined = 0
_built_for = -1
_built: dict[Any, Any] = {}


def _changed() -> None:
    global _defined
    _defined += 1


def _cache() -> dict[Any, Any]:
    """Resolved types, decoders and fixers, emptied whenever a record class is defined."""
    global _built_for
    if _built_for != _defined:
        _built.clear()
        _built_for = _defined
    return _built


def _cached(key: Any, build: Callable[[], T]) -> T:
    cache = _cache()
    try:
        return cache[key]  # type: ignore[no-any-return]
    except KeyError:
        pass
    value = cache[key] = build()
    return value


# --------------------------------------------------------------------------- names and types


def tag_of(cls: type[msgspec.Struct]) -> str | None:
    """The name a record class is written under (None for a base)."""
    tag = cls.__struct_config__.tag
    return None if tag is None else str(tag)


def name_of(record: msgspec.Struct) -> str:
    """The name a record is written under."""
    return tag_of(type(record)) or type(record).__name__.lower()


def resolve(kind: Any) -> Any:
    """``kind`` as msgspec should read it now: a record base becomes the union of its
    tagged subclasses, and a generic record gets those unions for its TypeVars."""
    return _cached(("resolve", kind), lambda: _resolve(kind))


def _resolve(kind: Any) -> Any:
    cls = kind if isinstance(kind, type) else None
    if cls is not None and issubclass(cls, _BASES):
        return functools.reduce(operator.or_, (_bind(c) for c in _tagged(cls)))
    if cls is not None and issubclass(cls, msgspec.Struct):
        return _bind(cls)
    origin, args = get_origin(kind), get_args(kind)
    if origin is Annotated:  # a limit on a list of records: resolve inside, keep the limit
        return Annotated[(resolve(args[0]), *kind.__metadata__)]
    if origin in (Union, types.UnionType):
        return functools.reduce(operator.or_, (resolve(a) for a in args))
    if struct_of(kind) is not None and args:  # a generic record given its bases
        return origin[tuple(resolve(a) for a in args)]
    if origin in (tuple, list, dict) and args:
        return origin[tuple(a if a is Ellipsis else resolve(a) for a in args)]
    return kind


def _tagged(base: type[msgspec.Struct]) -> list[type[msgspec.Struct]]:
    """``base`` and its subclasses that have a tag, each tag once."""
    found: dict[str, type[msgspec.Struct]] = {}
    todo = [base]
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        tag = tag_of(cls)
        if tag is None:
            continue
        if tag in found and found[tag] is not cls:
            raise TypeError(f"record name {tag!r} is taken by {found[tag].__qualname__} "
                            f"and {cls.__qualname__}")
        found[tag] = cls
    if not found:
        raise TypeError(f"no record class derives from {base.__qualname__}")
    return list(found.values())


def _bind(cls: type[msgspec.Struct]) -> Any:
    """``cls``, with today's union for each TypeVar it declares; checks its fields."""
    params: tuple[Any, ...] = getattr(cls, "__parameters__", ())
    generic: Any = cls
    kind = generic[tuple(resolve(p.__bound__) if p.__bound__ else Any for p in params)] \
        if params else cls
    for field in _fields(cls):
        for named in _mentioned(field.type):
            if issubclass(named, _BASES) and tag_of(named) is None:
                raise TypeError(
                    f"{cls.__qualname__}.{field.name} holds any {named.__name__}: declare it "
                    f"with a TypeVar bound to {named.__name__}, as ScheduleChanged does")
    return kind


def _fields(kind: Any) -> tuple[msgspec.structs.FieldInfo, ...]:
    """``msgspec.structs.fields(kind)``, read once per record type: it evaluates the
    class's annotations anew at each call, and opening a file asks for them twice."""
    return _cached(("fields", kind), lambda: msgspec.structs.fields(kind))


def _mentioned(kind: Any) -> list[type[msgspec.Struct]]:
    if isinstance(kind, type):
        return [kind] if issubclass(kind, msgspec.Struct) else []
    return [c for a in get_args(kind) for c in _mentioned(a)]


def reshaped(cls: type[msgspec.Struct], **kinds: Any) -> Any:
    """A struct written like ``cls`` (name, tag, fields, defaults, checks) whose fields
    in ``kinds`` have other types: for a file whose layout differs from memory."""
    def build() -> Any:
        config = cls.__struct_config__
        fields: list[tuple[str, Any, Any]] = []
        for f in msgspec.structs.fields(cls):
            default = f.default if f.default_factory is msgspec.NODEFAULT \
                else msgspec.field(default_factory=f.default_factory)
            fields.append((f.name, resolve(kinds.get(f.name, f.type)), default))
        post = getattr(cls, "__post_init__", None)
        return msgspec.defstruct(
            cls.__name__, fields, tag=config.tag, tag_field=config.tag_field, frozen=config.frozen,
            forbid_unknown_fields=config.forbid_unknown_fields,
            namespace={"__post_init__": post} if post else None)
    return _cached(("reshaped", cls, tuple(sorted(kinds.items(), key=str))), build)


# --------------------------------------------------------------------------- reading


def decoder(kind: Any) -> msgspec.json.Decoder[Any]:
    """A JSON reader for ``kind``, built once for the record classes defined so far."""
    return _cached(("decoder", kind), lambda: msgspec.json.Decoder(resolve(kind)))


@overload
def decode(raw: bytes | str | memoryview, kind: type[T], where: str = "") -> T: ...
@overload
def decode(raw: bytes | str | memoryview, kind: Any, where: str = "") -> Any: ...
def decode(raw: bytes | str | memoryview, kind: Any, where: str = "") -> Any:
    """Read JSON text as ``kind``; any problem is an InputError naming its place.

    ``where`` is the place of the whole text (``"encounter"``), or empty.
    """
    try:
        value = decoder(kind).decode(raw)
    except msgspec.ValidationError as err:
        raise invalid(err, _shown(raw), kind, where) from None
    except msgspec.DecodeError as err:
        raise InputError(_at(where, json_problem(err, raw))) from None
    except RecursionError:
        raise InputError(_at(where, "the data is nested too deeply")) from None
    except UnicodeError as err:
        raise InputError(_at(where, unicode_problem(err))) from None
    return _fix(kind, value, where)


@overload
def convert(data: Any, kind: type[T], where: str = "") -> T: ...
@overload
def convert(data: Any, kind: Any, where: str = "") -> Any: ...
def convert(data: Any, kind: Any, where: str = "") -> Any:
    """Read plain data (parsed JSON, Python values) as ``kind``, as ``decode`` does."""
    try:
        value = msgspec.convert(data, resolve(kind), strict=True)
    except msgspec.ValidationError as err:
        raise invalid(err, data, kind, where) from None
    except RecursionError:
        raise InputError(_at(where, "the data is nested too deeply")) from None
    return _fix(kind, value, where)


#: The byte order mark some editors put at the start of a UTF-8 file.
BOM = b"\xef\xbb\xbf"


def parse(raw: bytes | str | memoryview) -> Any:
    """Strict JSON as plain values (lists, dicts): no NaN, no huge numbers; one sentence."""
    if isinstance(raw, bytes) and raw.startswith(BOM):
        raw = raw[len(BOM):]
    try:
        return msgspec.json.decode(raw)
    except msgspec.ValidationError as err:  # a number beyond any float
        raise invalid(err, MISSING, Any) from None
    except msgspec.DecodeError as err:
        raise InputError(json_problem(err, raw)) from None
    except RecursionError:
        raise InputError("the JSON is nested too deeply") from None
    except UnicodeError as err:
        raise InputError(unicode_problem(err)) from None


def unicode_problem(err: UnicodeError) -> str:
    """A sentence for text that is not Unicode: bytes that are not UTF-8, or a lone surrogate."""
    if isinstance(err, UnicodeEncodeError):
        return _LONE.format(f"\\u{ord(err.object[err.start]):04x}")
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text (byte {err.start})"
    return f"not Unicode text ({err})"


def _shown(raw: bytes | str | memoryview) -> Any:
    """The text as plain values, to show a bad value in a sentence (MISSING if unreadable)."""
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return MISSING


_LONE = "text holds a lone surrogate ({}), which is not a character: remove it"
_SURROGATE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})")


def _lone_surrogate(data: bytes) -> str | None:
    """The first ``\\uD800``-style escape in JSON text that is half a pair, or None."""
    for m in _SURROGATE.finditer(data):
        code = int(m.group(2), 16)
        after = data[m.end():m.end() + 6]
        if code < 0xDC00 and re.fullmatch(rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}", after):
            continue  # a high half followed by a low half: a real character
        if code >= 0xDC00:
            before = data[max(0, m.start(2) - 8):m.start(2) - 2]
            if re.fullmatch(rb"\\u[dD][89abAB][0-9a-fA-F]{2}", before):
                continue
        return f"\\u{m.group(2).decode().lower()}"
    return None


def check_text(value: str, where: str = "") -> None:
    """Refuse text that cannot be saved: a lone surrogate is no character (one sentence)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as bad:
        raise InputError(_at(where, _LONE.format(f"\\u{ord(value[bad.start]):04x}"))) from None


def json_problem(err: msgspec.DecodeError, raw: bytes | str | memoryview) -> str:
    """What is wrong with text that is not JSON, as a sentence with line and column."""
    try:
        data = raw.encode() if isinstance(raw, str) else bytes(raw)
    except UnicodeEncodeError as bad:
        return _LONE.format(f"\\u{ord(bad.object[bad.start]):04x}")
    if not data.strip():
        return "the file is empty"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not UTF-8 text (byte {bad.start})"
    message = str(err)
    if "surrogate" in message or "truncated" in message:
        lone = _lone_surrogate(data)
        if lone is not None:
            return _LONE.format(lone)
    if "truncated" in message:
        return "the file ends too early: it looks truncated"
    found = re.search(r"\(byte (\d+)\)", message)
    pos = int(found.group(1)) if found else 0
    for word in ("-Infinity", "Infinity", "NaN"):
        for start in (pos, pos - 1):
            if start >= 0 and data.startswith(word.encode(), start):
                return f"{word} is not a number an encounter may hold"
    before = data[:pos].decode("utf-8", errors="replace")
    line = before.count("\n") + 1
    column = len(before) - before.rfind("\n")
    reason = re.sub(r"^JSON is malformed: | \(byte \d+\)$", "", message)
    return f"not valid JSON at line {line}, column {column} ({reason})"


# --------------------------------------------------------------------------- Json values

_CONTAINERS = (list, tuple, dict)


def items_in(value: Any, budget: int = MAX_ALL_ITEMS) -> int:
    """List items and table entries in ``value``, nested ones included; the count stops
    soon after it passes ``budget``."""
    count, todo = 0, [value]
    while todo and count <= budget:
        v = todo.pop()
        children = v.values() if type(v) is dict else v
        count += len(children)
        todo.extend(c for c in children if type(c) in _CONTAINERS)
    return count


#: A JSON string, escapes included (written unrolled, so a long one costs no backtracking).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def too_many_values(data: bytes) -> str:
    """Why JSON text holds more values than a file may (one sentence), or "".

    Counted in the text: each comma outside a string separates two values, so the
    text holds more values than commas. Millions of numbers are refused without
    building one (20 million took 1.5 GB before the limit on one value refused them).
    """
    commas = data.count(b",")
    if commas < MAX_VALUES:  # the common case: no string needs looking at
        return ""
    for string in _STRING.finditer(data):  # one string at a time: no copy of the text
        commas -= string.group().count(b",")
        if commas < MAX_VALUES:
            return ""
    return (f"holds more than {MAX_VALUES:,} values (numbers, texts, lists and tables), the "
            "most an encounter file may hold")


class _Bad(Exception):
    """A problem inside a Json value, gathering its path on the way up."""

    def __init__(self, message: str, whole: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str] = []
        #: True when the value as a whole is at fault (nested too deeply).
        self.whole = whole


def freeze(data: Any, where: str = "") -> Json:
    """Check a free-form JSON value (numbers, text, nesting, size) and make its lists tuples."""
    try:
        return _frozen(data, 0, [MAX_ITEMS])
    except _Bad as bad:
        raise InputError(_at(_join(where, place(bad.path)), bad.message)) from None


def _frozen(data: Any, depth: int, left: list[int]) -> Any:
    """``data`` frozen; ``left[0]`` counts down the items the whole value may still hold."""
    kind = type(data)
    if kind is str:
        if len(data) > MAX_TEXT:
            raise _Bad(_too_long(data))
        return data
    if data is None or kind is bool:
        return data
    if kind is int or kind is float:
        if (kind is float and not math.isfinite(data)) or not -LIMIT <= data <= LIMIT:
            raise _Bad(_out_of_range(data))
        return data
    if depth >= MAX_DEPTH:
        raise _Bad(f"the value is nested too deeply (more than {MAX_DEPTH} levels)", whole=True)
    if kind is list or kind is tuple or kind is dict:
        # Counted before anything is copied: a list of millions is refused at once.
        left[0] -= len(data)
        if left[0] < 0:
            raise _Bad(f"the value is too big (more than {MAX_ITEMS:,} items, nested lists "
                       "and tables counted together)", whole=True)
    if kind is list or kind is tuple:
        out = []
        for i, v in enumerate(data):
            try:
                out.append(_frozen(v, depth + 1, left))
            except _Bad as bad:
                _inside(bad, str(i))
        return tuple(out)
    if kind is dict:
        table = {}
        for k, v in data.items():
            try:
                if len(str(k)) > MAX_TEXT:
                    raise _Bad(f"key {_too_long(str(k))}")
                table[str(k)] = _frozen(v, depth + 1, left)
            except _Bad as bad:
                _inside(bad, str(k)[:40])
        return table
    raise _Bad(f"unsupported value {kind.__name__}")


def _too_long(text: str) -> str:
    return f"text is too long ({len(text):,} characters; at most {MAX_TEXT:,})"


def _inside(bad: _Bad, part: str) -> typing.NoReturn:
    if not bad.whole:
        bad.path.insert(0, part)
    raise bad


def _out_of_range(value: Any) -> str:
    return f"number {_number(value)} is out of range (limit ±{LIMIT:,})"


def _number(value: Any) -> str:
    if isinstance(value, int) and abs(value) < 10 * LIMIT:
        return f"{value:,}"  # in full near the limit: "-1e+09" hides how far past it is
    try:
        return f"{value:g}"
    except OverflowError:  # an integer beyond any float
        return f"of {len(str(abs(value)))} digits"


Fixer = Callable[[Any], Any]


def _fix(kind: Any, value: Any, where: str) -> Any:
    """``value`` (as msgspec read it) with its Json values checked and frozen."""
    fixer = _cached(("fixer", kind), lambda: _fixer(resolve(kind), {}))
    if fixer is None:
        return value
    try:
        return fixer(value)
    except _Bad as bad:
        raise BadRecord(_join(where, place(bad.path)), bad.message) from None


def _fixer(kind: Any, made: dict[Any, Fixer | None]) -> Fixer | None:
    """A function freezing every Json value inside a ``kind``; None when it holds none.

    ``made`` keeps the fixer of each record type already seen (None while it is
    being made: a record inside itself is fixed once, at the top). A log holds
    tens of thousands of records and few hold Json, so a fixer looks each value's
    type up and calls only what that type needs.
    """
    origin, args = get_origin(kind), get_args(kind)
    if origin is typing.Annotated:
        if any(isinstance(m, _Free) for m in kind.__metadata__):
            return _frozen_value
        return _fixer(args[0], made)
    if struct_of(kind) is not None:
        if kind not in made:
            made[kind] = None
            made[kind] = _struct_fixer(kind, made)
        return made[kind]
    if origin in (Union, types.UnionType):
        table = {struct_of(o) or o: f for o in args if (f := _fixer(o, made)) is not None}
        return _Pick(table) if table else None
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        subs = [_fixer(a, made) for a in args]
        if not any(subs):
            return None
        return lambda v: tuple(_one(f, x, i) for i, (f, x) in enumerate(zip(subs, v, strict=True)))
    if origin in (tuple, list) and args:
        item = _fixer(args[0], made)
        return None if item is None else _Each(item)
    if origin is dict and args:
        value = _fixer(args[1], made)
        if value is None:
            return None
        return lambda v: {k: _one(value, x, k) for k, x in v.items()}
    return None


class _Pick:
    """The fixer of a union: the fixer of the value's own type, if it has one."""

    def __init__(self, table: dict[Any, Fixer]) -> None:
        self.table = table

    def __call__(self, value: Any) -> Any:
        fix = self.table.get(type(value))
        return value if fix is None else fix(value)


def _frozen_value(value: Any) -> Any:
    try:
        return _frozen(value, 0, [MAX_ITEMS])
    except _Bad as bad:
        bad.whole = False  # the place of the value as a whole is still wanted
        raise


def _one(fix: Fixer | None, value: Any, part: Any) -> Any:
    if fix is None:
        return value
    try:
        return fix(value)
    except _Bad as bad:
        _inside(bad, str(part))


class _Each:
    """The fixer of a tuple or list: the same object back if no item changed."""

    def __init__(self, item: Fixer) -> None:
        self.item = item
        #: For items of a union, the types that need fixing.
        self.table = item.table if isinstance(item, _Pick) else None

    def __call__(self, values: Any) -> Any:
        table, item, out = self.table, self.item, None
        for i, value in enumerate(values):
            fix = item if table is None else table.get(type(value))
            if fix is None:
                continue
            try:
                new = fix(value)
            except _Bad as bad:
                _inside(bad, str(i))
            if new is not value:
                if out is None:
                    out = list(values)
                out[i] = new
        return values if out is None else type(values)(out)


def _struct_fixer(kind: Any, made: dict[Any, Fixer | None]) -> Fixer | None:
    fields = []
    for f in _fields(kind):
        sub = _fixer(f.type, made)
        if sub is not None:
            # The types that need fixing, when the field holds one of a union or a
            # sequence of them: most values are none of those and are skipped here.
            table = sub.table if isinstance(sub, _Pick | _Each) else None
            fields.append((f.name, f.encode_name, sub, table, isinstance(sub, _Each)))
    if not fields:
        return None

    def fix(value: Any) -> Any:
        for name, encoded, sub, table, many in fields:
            old = getattr(value, name)
            if old is None:
                continue
            if table is not None:
                if many:
                    for x in old:
                        if type(x) in table:
                            break
                    else:
                        continue
                elif type(old) not in table:
                    continue
            new = _one(sub, old, encoded)
            if new is not old:
                msgspec.structs.force_setattr(value, name, new)
        return value

    return fix


# --------------------------------------------------------------------------- sentences


class BadRecord(InputError):
    """A value that does not fit its record: ``str(err)`` is ``place: problem``."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(_at(where, problem))
        self.where = where
        """Path of the bad value (``encounter.tokens[3].hp``), or empty."""
        self.problem = problem
        """What is wrong with it (``expected a whole number, got text``)."""


_EXPECTED = {"int": "a whole number", "float": "a number", "str": "text",
             "bool": "true or false", "array": "a list", "object": "an object", "null": "null"}
_GOT = {"null": "null", "bool": "true/false", "int": "a number", "float": "a number",
        "str": "text", "array": "a list", "object": "an object"}


def invalid(err: msgspec.ValidationError, data: Any, kind: Any, where: str = "") -> BadRecord:
    """msgspec's complaint about ``data`` read as ``kind``, in the words of a record."""
    found = locate(err, data, resolve(kind))
    parts, problem = _words(found)
    return BadRecord(_join(where, place(parts)), problem)


def _words(found: Located) -> tuple[list[str], str]:
    message, parts, value, kinds = found.message, found.parts, found.value, found.kinds
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if (m := re.fullmatch(r"Object missing required field `([^`]+)`", message)) is not None:
        if m.group(1) == "type":
            return parts, 'missing "type"'
        return parts, f"missing field {m.group(1)!r} for {_record_name(kinds[-1], value)}"
    if (m := re.fullmatch(r"Object contains unknown field `([^`]+)`", message)) is not None:
        return [*parts, m.group(1)], f"unknown field for {_record_name(kinds[-1], value)}"
    if parts and parts[-1] == "type" and len(kinds) > 1 and _structs(kinds[-2]):
        return parts[:-1], f"unknown {_family(kinds[-2])} type {shown(value)}"
    if (m := re.fullmatch(r"Expected `array` of length (\d+)(?:, got (\d+))?", message)):
        got = m.group(2) or (str(len(value)) if isinstance(value, list | tuple) else "")
        return parts, f"expected {m.group(1)} values" + (f", got {got}" if got else "")
    if (m := re.fullmatch(r"Expected `(?:array|object)` of length <= (\d+)", message)):
        count = f"{len(value):,} items; " if isinstance(value, list | tuple | dict) else ""
        return parts, f"too many ({count}at most {int(m.group(1)):,})"
    if (m := re.fullmatch(r"Expected `str` of length <= (\d+)", message)) is not None:
        size = f"{len(value):,} characters; " if isinstance(value, str) else ""
        return parts, f"text is too long ({size}at most {int(m.group(1)):,})"
    limit = re.fullmatch(r"Expected `(int|float)` ([<>]=) (\S+)", message)
    if message in ("Number out of range", "Integer value out of range") or (
            limit is not None and abs(float(limit.group(3))) == LIMIT):
        return parts, _out_of_range(value) if number else \
            f"number is out of range (limit ±{LIMIT:,})"
    if limit is not None:
        return parts, f"expected {_EXPECTED[limit.group(1)]} {limit.group(2)} {limit.group(3)}"
    if message.startswith("Invalid enum value"):
        options = get_args(unwrap(kinds[-1]))
        return parts, f"must be one of {', '.join(shown(o) for o in options)}, got {shown(value)}"
    if (m := re.fullmatch(r"Expected `([^`]+)`, got `([^`]+)`", message)) is not None:
        wanted = [w for w in m.group(1).split(" | ") if w != "null"] or ["null"]
        said = " or ".join(_EXPECTED.get(w, w) for w in wanted)
        got = shown(value) if value is not MISSING and not isinstance(
            value, dict | list | tuple) else _GOT.get(m.group(2), m.group(2))
        return parts, f"expected {said}, got {got}" + \
            (quoted_number(value) if "number" in said else "")
    return parts, message


def _structs(kind: Any) -> list[type[msgspec.Struct]]:
    """The record classes ``kind`` names: itself, or the options of a union."""
    while get_origin(kind) is typing.Annotated:
        kind = get_args(kind)[0]
    options = get_args(kind) if get_origin(kind) in (Union, types.UnionType) else (kind,)
    return [c for c in (struct_of(o) for o in options) if c is not None]


def _record_name(kind: Any, value: Any) -> str:
    cls = struct_of(unwrap(kind, value)) if kind is not None else None
    if cls is None:
        return "this record"
    return tag_of(cls) or cls.__name__.strip("_").lower()


def _family(kind: Any) -> str:
    """``command`` for the union of every command: the nearest base all options share."""
    options = _structs(kind)
    for base in options[0].__mro__:
        if all(issubclass(o, base) for o in options):
            return base.__name__.lower()
    return "record"


def _join(where: str, path: str) -> str:
    if not where or not path:
        return where or path
    return f"{where}{path}" if path.startswith("[") else f"{where}.{path}"


def _at(where: str, problem: str) -> str:
    return f"{where}: {problem}" if where else problem


# --------------------------------------------------------------------------- writing


def encode(value: Any) -> bytes:
    """Compact JSON of records and plain values (UTF-8, tuples as lists)."""
    return _ENCODER.encode(value)


def plain(value: Any) -> Any:
    """A value as the JSON it is written as, read back as dicts (tag first) and lists."""
    return msgspec.json.decode(_ENCODER.encode(value))
