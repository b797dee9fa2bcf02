"""Typed JSON for frozen dataclasses: commands, events and state share one codec.

Every record type is registered under a short name and written as
``{"type": name, field: value, ...}``. Reading checks each field against its
annotation, so a bad file or script line fails with the path of the bad value::

    >>> decode({"type": "move", "actor": 3}, Command)   # doctest: +SKIP
    InputError: actor: expected text, got a number

Sequences are tuples in memory and lists in JSON; numbers must be finite and
within ``LIMIT`` so that NaN or 1e400 never reach the rules.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin

from tacmap.engine.errors import InputError

#: JSON-shaped value kept in state (stats, ruleset data): no lists, only tuples.
Json = Any

#: Largest magnitude a number may have anywhere in an encounter.
LIMIT = 1_000_000_000

T = TypeVar("T")
_REGISTRY: dict[str, type[Any]] = {}
_NAMES: dict[type[Any], str] = {}


def record(name: str) -> Callable[[type[T]], type[T]]:
    """Register a frozen dataclass under ``name`` so it can be written and read back."""

    def wrap(cls: type[T]) -> type[T]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ValueError(f"record name {name!r} is taken by {_REGISTRY[name].__qualname__}")
        _REGISTRY[name] = cls
        _NAMES[cls] = name
        return cls

    return wrap


def name_of(obj: object) -> str:
    """The registered name of a record instance."""
    return _NAMES[type(obj)]


def registered(name: str) -> type[Any] | None:
    """The record class registered under ``name``, if any."""
    return _REGISTRY.get(name)


def encode(value: Any) -> Any:
    """Turn records, tuples and mappings into plain JSON values."""
    cls = type(value)
    if cls in _ENCODERS:
        return _ENCODERS[cls](value)
    if value is None or cls in (str, int, float, bool):
        return value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(encode(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encoder(cls)(value)
    return value


_ENCODERS: dict[type[Any], Callable[[Any], Any]] = {}


def _encoder(cls: type[Any]) -> Callable[[Any], Any]:
    name = _NAMES[cls]
    names = tuple(f.name for f in dataclasses.fields(cls))
    plain = (str, int, float, bool, type(None))

    def enc(value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"type": name}
        for n in names:
            v = getattr(value, n)
            out[n] = v if type(v) in plain else encode(v)
        return out

    _ENCODERS[cls] = enc
    return enc


def shallow(value: Any) -> Any:
    """``json.dumps`` default hook: one level of a record (or set); json does the rest."""
    if isinstance(value, frozenset | set):
        return sorted(value)
    cls = type(value)
    try:
        names = _SHALLOW[cls]
    except KeyError:
        if not (dataclasses.is_dataclass(value) and cls in _NAMES):
            raise TypeError(f"cannot write {cls.__name__} to JSON") from None
        names = _SHALLOW[cls] = (_NAMES[cls], tuple(f.name for f in dataclasses.fields(cls)))
    out = {"type": names[0]}
    for n in names[1]:
        out[n] = getattr(value, n)
    return out


_SHALLOW: dict[type[Any], tuple[str, tuple[str, ...]]] = {}


def decode(data: Any, kind: Any, where: str = "") -> Any:
    """Read ``data`` as ``kind`` (a type annotation), raising InputError with the bad path."""
    try:
        return _decoder(kind)(data)
    except Bad as bad:
        raise InputError(f"{_at(_path(where, bad.path))}{bad.message}") from None


class Bad(Exception):
    """A decoding failure on its way up, gathering the path as it unwinds."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.path: list[str] = []


def _path(where: str, parts: list[str]) -> str:
    out = where
    for part in reversed(parts):
        out = f"{out}{part}" if part.startswith("[") else _join(out, part)
    return out


def freeze(data: Any, where: str = "") -> Json:
    """Check a free-form JSON value and make its lists tuples."""
    if data is None or isinstance(data, bool | str):
        return data
    if isinstance(data, int | float):
        return _number(data, where)
    if isinstance(data, list | tuple):
        return tuple(freeze(v, f"{where}[{i}]") for i, v in enumerate(data))
    if isinstance(data, dict):
        cls = _REGISTRY.get(str(data.get("type")))
        if cls is not None:
            try:
                return _record(data, cls)
            except Bad as bad:
                raise InputError(f"{_at(_path(where, bad.path))}{bad.message}") from None
        return {str(k): freeze(v, _join(where, str(k))) for k, v in data.items()}
    raise InputError(f"{_at(where)}unsupported value {type(data).__name__}")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _at(where: str) -> str:
    return f"{where}: " if where else ""


def _describe(data: Any) -> str:
    if data is None:
        return "null"
    if isinstance(data, bool):
        return "true/false"
    if isinstance(data, int | float):
        return "a number"
    if isinstance(data, str):
        return "text"
    if isinstance(data, list):
        return "a list"
    if isinstance(data, dict):
        return "an object"
    return type(data).__name__


def _number(data: int | float, where: str) -> int | float:
    if isinstance(data, float) and not math.isfinite(data):
        raise InputError(f"{_at(where)}number {data} is out of range")
    if abs(data) > LIMIT:
        raise InputError(f"{_at(where)}number {data:g} is out of range (limit ±{LIMIT:,})")
    return data


Decoder = Callable[[Any], Any]
_DECODERS: dict[Any, Decoder] = {}


def decoder(kind: Any) -> Decoder:
    """A reader for ``kind`` that raises ``Bad`` (no path) on bad input: for tight loops."""
    return _decoder(kind)


def _decoder(kind: Any) -> Decoder:
    """A reader for ``kind``, built once per annotation and reused."""
    try:
        return _DECODERS[kind]
    except KeyError:
        pass
    except TypeError:  # unhashable annotation
        return _build(kind)
    _DECODERS[kind] = _build(kind)
    return _DECODERS[kind]


def _build(kind: Any) -> Decoder:
    if kind is Any:
        def any_(data: Any) -> Any:
            try:
                return freeze(data)
            except InputError as err:
                raise Bad(str(err)) from None
        return any_
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        return _union(get_args(kind))
    if origin is typing.Literal:
        allowed = get_args(kind)

        def literal(data: Any) -> Any:
            if data not in allowed:
                raise Bad(f"must be one of {', '.join(repr(a) for a in allowed)}, got {data!r}")
            return data
        return literal
    if origin is tuple:
        return _tuple(get_args(kind))
    if origin in (dict, typing.Mapping) or kind is dict:
        item = _decoder((get_args(kind) or (str, Any))[1])

        def mapping(data: Any) -> Any:
            if not isinstance(data, dict):
                raise Bad(f"expected an object, got {_describe(data)}")
            out = {}
            for k, v in data.items():
                try:
                    out[str(k)] = item(v)
                except Bad as bad:
                    bad.path.append(str(k))
                    raise
            return out
        return mapping
    if kind is bool:
        def boolean(data: Any) -> Any:
            if not isinstance(data, bool):
                raise Bad(f"expected true or false, got {_describe(data)}")
            return data
        return boolean
    if kind is int:
        return _int
    if kind is float:
        return _float
    if kind is str:
        return _str
    if isinstance(kind, type):
        return lambda data: _record(data, kind)
    raise TypeError(f"codec cannot read {kind!r}")  # a bug in a record type, not bad input


def _checked(value: int | float) -> int | float:
    try:
        return _number(value, "")
    except InputError as err:
        raise Bad(str(err)) from None


def _int(data: Any) -> int:
    if type(data) is int:
        if -LIMIT <= data <= LIMIT:
            return data
        return int(_checked(data))
    if isinstance(data, float) and (not math.isfinite(data) or data.is_integer()):
        return int(_checked(data))
    raise Bad(f"expected a whole number, got {_describe(data)}")


def _float(data: Any) -> float:
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise Bad(f"expected a number, got {_describe(data)}")
    return float(_checked(data))


def _str(data: Any) -> str:
    if type(data) is not str:
        raise Bad(f"expected text, got {_describe(data)}")
    if len(data) > 100_000:
        raise Bad(f"text is too long ({len(data):,} characters)")
    return data


def _tuple(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def many(data: Any) -> Any:
            if not isinstance(data, list | tuple):
                raise Bad(f"expected a list, got {_describe(data)}")
            out = []
            for i, v in enumerate(data):
                try:
                    out.append(item(v))
                except Bad as bad:
                    bad.path.append(f"[{i}]")
                    raise
            return tuple(out)
        return many
    items = [_decoder(a) for a in args]

    def fixed(data: Any) -> Any:
        if not isinstance(data, list | tuple):
            raise Bad(f"expected a list, got {_describe(data)}")
        if len(data) != len(items):
            raise Bad(f"expected {len(items)} values, got {len(data)}")
        out = []
        for i, (v, d) in enumerate(zip(data, items, strict=True)):
            try:
                out.append(d(v))
            except Bad as bad:
                bad.path.append(f"[{i}]")
                raise
        return tuple(out)

    if not all(d is _int for d in items):
        return fixed
    n = len(items)

    def ints(data: Any) -> Any:
        # The common case (cells): a list of small ints, checked in one pass.
        if type(data) is list and len(data) == n:
            for v in data:
                if type(v) is not int or not -LIMIT <= v <= LIMIT:
                    break
            else:
                return tuple(data)
        return fixed(data)

    return ints


def _union(options: tuple[Any, ...]) -> Decoder:
    nullable = type(None) in options
    rest = [o for o in options if o is not type(None)]
    decoders = [_decoder(o) for o in rest]

    def union(data: Any) -> Any:
        if data is None and nullable:
            return None
        if isinstance(data, dict) and "type" in data:
            cls = _REGISTRY.get(str(data["type"]))
            if cls is not None and any(_accepts(o, cls) for o in rest):
                return _record(data, cls)
        first: Bad | None = None
        for d in decoders:
            try:
                return d(data)
            except Bad as bad:
                first = first or bad
        raise first or Bad(f"unexpected {_describe(data)}")
    return union


def _accepts(option: Any, cls: type[Any]) -> bool:
    return isinstance(option, type) and issubclass(cls, option)


_FIELDS: dict[type[Any], tuple[tuple[str, Decoder, bool], ...]] = {}


_FACTORIES: dict[type[Any], tuple[tuple[str, Callable[[], Any]], ...]] = {}
#: Per record: (keys in a complete object, (field, decoder) pairs, __post_init__ or None).
_FAST: dict[type[Any], tuple[int, tuple[tuple[str, Decoder], ...], Any]] = {}


def _fast(cls: type[Any]) -> tuple[int, tuple[tuple[str, Decoder], ...], Any]:
    fields = _fields(cls)
    _FAST[cls] = (len(fields), tuple((n, d) for n, d, _ in fields),
                  getattr(cls, "__post_init__", None))
    return _FAST[cls]


def _fields(cls: type[Any]) -> tuple[tuple[str, Decoder, bool], ...]:
    if cls not in _FIELDS:
        _FACTORIES[cls] = tuple(
            (f.name, f.default_factory) for f in dataclasses.fields(cls)
            if f.default_factory is not dataclasses.MISSING
        )
        hints = typing.get_type_hints(cls)
        _FIELDS[cls] = tuple(
            (f.name, _decoder(hints[f.name]),
             f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls)
        )
    return _FIELDS[cls]


def _record(data: Any, cls: type[Any]) -> Any:
    if type(data) is not dict:
        raise Bad(f"expected an object, got {_describe(data)}")
    name = data.get("type")
    target = cls
    if name is not None:
        found = _REGISTRY.get(name) if type(name) is str else None
        if found is None or not issubclass(found, cls):
            raise Bad(f"unknown {cls.__name__.lower()} type {name!r}")
        target = found
    elif cls not in _NAMES:
        raise Bad("missing \"type\"")
    fast = _FAST.get(target) or _fast(target)
    if len(data) - ("type" in data) == fast[0]:
        # Every field given, as tacmap writes them: read without the checks below,
        # falling back to them (for the exact message) on the first surprise.
        try:
            values = {n: d(data[n]) for n, d in fast[1]}
        except (KeyError, Bad):
            pass
        else:
            obj = object.__new__(target)
            obj.__dict__.update(values)
            if fast[2] is not None:
                try:
                    fast[2](obj)
                except (ValueError, TypeError) as err:
                    raise Bad(str(err)) from None
            return obj
    values = {}
    for fname, dec, required in _fields(target):
        if fname in data:
            try:
                values[fname] = dec(data[fname])
            except Bad as bad:
                bad.path.append(fname)
                raise
        elif required:
            raise Bad(f"missing field {fname!r} for {_NAMES[target]}")
    if len(values) + ("type" in data) != len(data):
        known = {f[0] for f in _fields(target)}
        extra = sorted(set(data) - known - {"type"})
        unknown = Bad(f"unknown field for {_NAMES[target]}")
        unknown.path.append(extra[0])
        raise unknown
    # Build without the generated __init__ (frozen records pay for object.__setattr__
    # per field); defaults and __post_init__ checks still apply.
    obj = object.__new__(target)
    for fname, factory in _FACTORIES[target]:
        if fname not in values:
            values[fname] = factory()
    obj.__dict__.update(values)
    post = getattr(target, "__post_init__", None)
    if post is not None:
        try:
            post(obj)
        except (ValueError, TypeError) as err:
            raise Bad(str(err)) from None
    return obj
