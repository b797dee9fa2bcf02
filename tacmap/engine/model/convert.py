"""Plain data (parsed TOML or JSON) into typed records, with one-sentence errors.

msgspec checks types and constraints; this module only turns its complaint into
a sentence that names the place the way a person wrote it::

    >>> convert({"weapons": {"halberd": {"reach": -2}}}, Data, "ruleset.toml")
    ... # doctest: +SKIP
    InputError: ruleset.toml: weapons.halberd.reach: expected a number >= 1, got -2

msgspec reports a key of a table as ``[...]``; the offending key is found again
by converting each entry on its own, which costs nothing until something is wrong.
``locate`` does that work for any wording: ``sentence`` words it for tables
(TOML), ``tacmap.engine.model.records`` for records (encounter files, scripts).

A check that spans several keys of a record goes in its ``__post_init__`` and
raises ``Invalid(key, message)`` to be placed at that key (a plain ValueError
is placed at the record itself).
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from typing import Any, TypeVar, Union, get_args, get_origin

import msgspec

from tacmap.engine.model.errors import InputError

T = TypeVar("T")

#: Stands for a value the path does not reach (the data is shorter, or unknown).
MISSING: Any = object()


class Invalid(ValueError):
    """A record's own check failed at ``key`` (dotted, relative to the record).

    Raise it from ``__post_init__``; ``convert`` names the place and adds the
    value found there: ``Invalid("success_at", "must be at most the die (6)")``
    → ``ruleset.toml: pool.success_at: must be at most the die (6), got 7``.
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


# msgspec appends " - at `$.path`" to a message; a complaint that passed through a
# hook of its own carries one for each level, innermost first.
_TAIL = re.compile(r" - at `\$([^`]*)`$", re.DOTALL)
# A bad key of a table: " - at `key` in `$.path`" (the key is found again by ``_walk``).
_KEY_TAIL = re.compile(r" - at `key` in `\$([^`]*)`$", re.DOTALL)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_WORDS = {
    "int": "a whole number", "float": "a number", "str": "text", "bool": "true or false",
    "array": "a list", "object": "a table", "null": "nothing", "number": "a number",
}


@dataclass(frozen=True)
class Located:
    """Where a ValidationError points in the data, and what msgspec said about it."""

    message: str
    """msgspec's words without the place (``Expected `int`, got `str```)."""
    parts: list[str]
    """The place as keys and indexes, a table key msgspec left as ``...`` found again."""
    value: Any
    """The value at the place, or ``MISSING``."""
    kinds: list[Any]
    """``kinds[i]`` is the expected type at ``parts[:i]`` (None where it is not known)."""


def convert(data: Any, kind: type[T], where: str) -> T:
    """``data`` as a ``kind``, or an ``InputError`` naming ``where`` and the bad value's path."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as err:
        raise InputError(sentence(err, data, kind, where)) from None


def sentence(err: msgspec.ValidationError, data: Any, kind: Any, where: str) -> str:
    """msgspec's complaint about ``data`` (as a ``kind``) as one sentence: place, what, got."""
    found = locate(err, data, kind)
    parts, value = found.parts, found.value
    if isinstance(err.__cause__, Invalid):
        for key in err.__cause__.key.split("."):
            parts = [*parts, key]
            value = MISSING if value is MISSING else _lookup(value, key)
    text = _plain(found.message)
    vague = re.search(r", got [a-z ]+$", text) is not None
    wants_value = vague or ("got" not in text and not text.startswith(("unknown", "missing")))
    if wants_value and value is not MISSING and not isinstance(value, dict | list | tuple):
        text = re.sub(r", got [a-z ]+$", "", text) + f", got {_show(value)}"
        if "number" in text:
            text += quoted_number(value)
    head = ": ".join(s for s in (where, place(parts)) if s)
    return f"{head}: {text}" if head else text


def locate(err: msgspec.ValidationError, data: Any, kind: Any) -> Located:
    """The place, value and expected types behind ``err`` (from converting ``data``)."""
    message = str(err)
    parts: list[str] = []
    key = _KEY_TAIL.search(message)
    if key is not None:
        parts.extend([*_segments(key.group(1)), "..."])
        message = message[:key.start()]
    while (tail := _TAIL.search(message)) is not None:
        parts.extend(_segments(tail.group(1)))
        message = message[:tail.start()]
    return _walk(message, parts, data, kind)


def place(parts: list[str]) -> str:
    """``["log", "3", "events"]`` → ``log[3].events``."""
    return ".".join(p if not p.isdigit() else f"[{p}]" for p in parts).replace(".[", "[")


def _segments(path: str) -> list[str]:
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _SEGMENT.finditer(path)]


def _plain(message: str) -> str:
    """``Expected `int` >= 1`` → ``expected a whole number >= 1``."""
    text = re.sub(r"Object contains unknown field `([^`]+)`", r"unknown key '\1'", message)
    text = re.sub(r"Object missing required field `([^`]+)`", r"missing key '\1'", text)
    text = re.sub(r"Invalid enum value '([^']*)'", r"unknown word '\1'", text)
    text = re.sub(r"Invalid enum value (\S+)", r"unknown value \1", text)
    text = re.sub(r"`([a-z]+)`", lambda m: _WORDS.get(m.group(1), m.group(1)), text)
    text = text.replace("`", "'")
    # A bound on a float reads as msgspec writes it, "0.0"; people write "0".
    text = re.sub(r"([<>]=?) (-?\d+)\.0\b", r"\1 \2", text)
    return text[:1].lower() + text[1:]


def _lookup(data: Any, part: str) -> Any:
    if isinstance(data, dict) and part in data:
        return data[part]
    if isinstance(data, list | tuple) and part.isdigit() and int(part) < len(data):
        return data[int(part)]
    return MISSING


def quoted_number(value: Any) -> str:
    """What to add after ``got '4'`` where a number belongs: the quotes make it text, which
    a GM cannot see in ``'4'`` (empty for any other value)."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)\s*", value):
        return " (text in quotes: write numbers without them)"
    return ""


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value[:40] + "…" if len(value) > 40 else value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return shown(value)


def shown(value: Any) -> str:
    """A value as JSON (``true``, ``{"a":1}``, ``2.5``; text quoted as names are, ``'x'``),
    cut to 40 characters: for a sentence."""
    if isinstance(value, str):
        return repr(value[:40] + "…" if len(value) > 40 else value)
    try:
        text = msgspec.json.encode(value).decode()
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError, RecursionError):
        text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _walk(message: str, parts: list[str], data: Any, kind: Any) -> Located:
    """Follow ``parts`` through the data and the types, replacing each ``...`` key with
    the first entry that fails on its own."""
    out: list[str] = []
    kinds: list[Any] = [kind]
    for i, part in enumerate(parts):
        if part == "..." and isinstance(data, dict):
            value_kind = _child_kind(kind, part, data)
            key_kind = _key_kind(kind, data)
            key = next((k for k in data if not _fits(k, key_kind)), None)
            if key is not None:  # the key itself is at fault: name it, shortened
                name = str(key)
                return Located(message, [*out, name[:40] + "…" if len(name) > 40 else name],
                               key, [*kinds, key_kind])
            bad = next((k for k, v in data.items() if not _fits(v, value_kind)), None)
            if bad is None:  # no entry fails alone: name the table, not "table...."
                return Located(message, out, data, kinds)
            part = str(bad)
        kind = _child_kind(kind, part, data)
        data = _lookup(data, part)
        out.append(part)
        kinds.append(kind)
        if data is MISSING:
            rest = parts[i + 1:]
            return Located(message, out + rest, MISSING, kinds + [None] * len(rest))
    return Located(message, out, data, kinds)


def _fits(value: Any, kind: Any) -> bool:
    if kind is None:
        return True
    try:
        msgspec.convert(value, kind, strict=True)
    except (msgspec.ValidationError, TypeError):
        return False
    return True


def struct_of(kind: Any) -> type[msgspec.Struct] | None:
    """The Struct class behind ``kind`` (a Struct, or a generic one with its parameters)."""
    cls = get_origin(kind) or kind
    return cls if isinstance(cls, type) and issubclass(cls, msgspec.Struct) else None


def unwrap(kind: Any, data: Any = MISSING) -> Any:
    """``kind`` without Annotated and None; for a union of tagged records, the one
    ``data`` names by its tag (None when that cannot be told)."""
    while get_origin(kind) is typing.Annotated:
        kind = get_args(kind)[0]
    if get_origin(kind) in (Union, types.UnionType):
        options = [a for a in get_args(kind) if a is not type(None)]
        if len(options) == 1:
            return unwrap(options[0], data)
        for option in options:
            cls = struct_of(option)
            if cls is None or not isinstance(data, dict):
                continue
            config = cls.__struct_config__
            if config.tag is not None and data.get(config.tag_field) == config.tag:
                return option
        return None
    return kind


def _key_kind(kind: Any, data: Any) -> Any:
    """The type of the keys of the table ``kind`` (None when it is no table or not known)."""
    kind = unwrap(kind, data)
    return get_args(kind)[0] if get_origin(kind) is dict and get_args(kind) else None


def _child_kind(kind: Any, part: str, data: Any) -> Any:
    kind = unwrap(kind, data)
    if kind is None:
        return None
    if struct_of(kind) is not None:
        for field in msgspec.structs.fields(kind):
            if field.encode_name == part:
                return field.type
        return None
    origin, args = get_origin(kind), get_args(kind)
    if origin in (list, tuple, set, frozenset) and args:
        if origin is tuple and len(args) > 1 and args[1] is not Ellipsis and part.isdigit():
            return args[int(part)] if int(part) < len(args) else None
        return args[0]
    if origin is dict and args:
        return args[1]
    return None
