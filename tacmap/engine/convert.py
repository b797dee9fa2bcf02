"""Plain data (parsed TOML or JSON) into typed records, with one-sentence errors.

msgspec checks types and constraints; this module only turns its complaint into
a sentence that names the place the way a person wrote it::

    >>> convert({"weapons": {"halberd": {"reach": -2}}}, Data, "ruleset.toml")
    ... # doctest: +SKIP
    InputError: ruleset.toml: weapons.halberd.reach: expected a number >= 1, got -2

msgspec reports a key of a table as ``[...]``; the offending key is found again
by converting each entry on its own, which costs nothing until something is wrong.

A check that spans several keys of a record goes in its ``__post_init__`` and
raises ``Invalid(key, message)`` to be placed at that key (a plain ValueError
is placed at the record itself).
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, TypeVar, Union, get_args, get_origin

import msgspec

from tacmap.engine.errors import InputError

T = TypeVar("T")


class Invalid(ValueError):
    """A record's own check failed at ``key`` (dotted, relative to the record).

    Raise it from ``__post_init__``; ``convert`` names the place and adds the
    value found there: ``Invalid("success_at", "must be at most the die (6)")``
    → ``ruleset.toml: pool.success_at: must be at most the die (6), got 7``.
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key

_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_WORDS = {
    "int": "a whole number", "float": "a number", "str": "text", "bool": "true or false",
    "array": "a list", "object": "a table", "null": "nothing", "number": "a number",
}


def convert(data: Any, kind: type[T], where: str) -> T:
    """``data`` as a ``kind``, or an ``InputError`` naming ``where`` and the bad value's path."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as err:
        raise InputError(sentence(err, data, kind, where)) from None


def sentence(err: msgspec.ValidationError, data: Any, kind: Any, where: str) -> str:
    """msgspec's complaint about ``data`` (as a ``kind``) as one sentence: place, what, got."""
    found = _AT.match(str(err))
    message = found.group("message") if found else str(err)
    raw_path = (found.group("path") or "") if found else ""
    parts = _resolve(_segments(raw_path), data, kind)
    if isinstance(err.__cause__, Invalid):
        parts += err.__cause__.key.split(".")
    place = ".".join(p if not p.isdigit() else f"[{p}]" for p in parts).replace(".[", "[")
    text = _plain(message)
    vague = re.search(r", got [a-z ]+$", text) is not None
    if vague or ("got" not in text and not text.startswith(("unknown", "missing"))):
        value = _lookup(data, parts)
        if value is not _MISSING and not isinstance(value, dict | list | tuple):
            text = re.sub(r", got [a-z ]+$", "", text) + f", got {_show(value)}"
    head = ": ".join(s for s in (where, place) if s)
    return f"{head}: {text}" if head else text


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


_MISSING = object()


def _lookup(data: Any, parts: list[str]) -> Any:
    for part in parts:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list | tuple) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return _MISSING
    return data


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value[:40] + "…" if len(value) > 40 else value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _resolve(parts: list[str], data: Any, kind: Any) -> list[str]:
    """Replace each ``...`` key with the first entry that fails on its own."""
    out: list[str] = []
    for i, part in enumerate(parts):
        if part == "..." and isinstance(data, dict):
            value_kind = _value_kind(kind)
            bad = next((k for k, v in data.items() if not _fits(v, value_kind)), None)
            if bad is None:
                return out + parts[i:]
            out.append(str(bad))
            data, kind = data[bad], value_kind
            continue
        out.append(part)
        kind = _child_kind(kind, part)
        data = _lookup(data, [part])
        if data is _MISSING:
            return out + parts[i + 1:]
    return out


def _fits(value: Any, kind: Any) -> bool:
    if kind is None:
        return True
    try:
        msgspec.convert(value, kind, strict=True)
    except (msgspec.ValidationError, TypeError):
        return False
    return True


def _unwrap(kind: Any) -> Any:
    while get_origin(kind) is typing.Annotated:
        kind = get_args(kind)[0]
    if get_origin(kind) in (Union, types.UnionType):
        options = [a for a in get_args(kind) if a is not type(None)]
        return _unwrap(options[0]) if len(options) == 1 else None
    return kind


def _value_kind(kind: Any) -> Any:
    kind = _unwrap(kind)
    if get_origin(kind) is dict:
        return get_args(kind)[1]
    return None


def _child_kind(kind: Any, part: str) -> Any:
    kind = _unwrap(kind)
    if kind is None:
        return None
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        hints = typing.get_type_hints(kind, include_extras=True)
        for field in msgspec.structs.fields(kind):
            if field.encode_name == part:
                return hints.get(field.name)
        return None
    origin, args = get_origin(kind), get_args(kind)
    if origin in (list, tuple, set, frozenset) and args:
        if origin is tuple and len(args) > 1 and args[1] is not Ellipsis and part.isdigit():
            return args[int(part)] if int(part) < len(args) else None
        return args[0]
    if origin is dict and args:
        return args[1]
    return None
