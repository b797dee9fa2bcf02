"""The stat block a ruleset asks for, as data: one ``StatField`` per key of ``token.stats``.

A ruleset declares its stat block in ruleset.toml, one table per stat, in the
order a form shows them::

    [stat_block.dex]
    label = "DEX"
    kind = "int"
    min = 0
    max = 20
    default = 1
    help = "Dexterity: builds the pool of a DEX weapon; half of it is a dodge."

    [stat_block.weapon]
    label = "Weapon in hand"
    kind = "choice"
    choices_from = "weapons"      # the keys of [weapons.*] are the choices
    default = "unarmed"

The window builds its form from ``fields_of(data)`` and ``check_stats``
words every problem, so a new ruleset needs no UI code for its stat block. A
``choices`` field with ``choices`` to pick from is a tick per choice in the form,
or a count per choice when it ``repeats`` (a spell memorised twice).
The rules read stats through a ``StatBlock`` (a token's value or the
default) and say once, as they load, which stats they need and of what kind.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from tacmap.engine.model.convert import quoted_number
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.records import Json

Kind = Literal["int", "float", "text", "choice", "choices", "bool", "table", "list", "rows"]
KINDS: tuple[str, ...] = get_args(Kind)
#: What one item of a ``list`` field, or one column of a ``rows`` field, may be.
ItemKind = Literal["int", "float", "text", "bool"]
ITEM_KINDS: tuple[str, ...] = get_args(ItemKind)
_ITEM_WORDS = {"int": "whole numbers", "float": "numbers", "text": "texts", "bool": "yes/no"}
_COLUMN_WORDS = {"int": "a whole number", "float": "a number", "text": "text", "bool": "yes/no"}

#: Keys a ``[stat_block.<key>]`` table may hold; anything else is a typo worth naming.
FIELD_KEYS = ("label", "kind", "min", "max", "default", "choices", "choices_from", "help",
              "required", "repeats", "items", "columns", "least_means")


@dataclass(frozen=True)
class StatField:
    """One entry of a ruleset's stat block: what ``token.stats[key]`` may hold."""

    key: str
    """Key in ``token.stats`` (``"dex"``)."""
    label: str
    """Name shown in forms and in messages (``"DEX"``)."""
    kind: Kind
    """int, float, text, choice (one of ``choices``), choices (several), bool, table
    (a whole number per name, e.g. proficiency per weapon), list (of ``items``) or rows
    (a list of rows, each of ``columns``: a Wound's name, location and round)."""
    min: float | None = None
    """Lowest value (int, float, each value of a table or list), length (text) or count
    (choices, rows)."""
    max: float | None = None
    """Highest value (int, float, each value of a table or list), length (text) or count
    (choices, rows)."""
    default: Json = None
    """What the rules use when a token leaves the stat out; also the form's start value."""
    choices: tuple[str, ...] = ()
    """Allowed names: of a choice, of a choices list, of a table's keys (empty: any name)."""
    help: str = ""
    """One or two sentences for the form: what the stat does, in the seed's words."""
    required: bool = False
    """The token must set it (no default stands in)."""
    repeats: bool = False
    """A choices list may name the same choice twice (a spell memorised twice)."""
    items: ItemKind = "int"
    """What each item of a list field is."""
    columns: tuple[ItemKind, ...] = ()
    """What each row of a rows field holds, column by column; for a list field, its
    fixed shape (a pair of whole numbers), when given."""
    least_means: str = ""
    """What the lowest value of an int or float means, shown in the form in its place
    (a sight of 0: ``"unlimited"``)."""


# --------------------------------------------------------------------------- checking


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, int | float):
        return _num(value) if math.isfinite(value) else str(value)
    if value is None:
        return "null"
    # A list or table as the file writes it (JSON), not as Python prints it.
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return "a value tacmap cannot show"
    return text if len(text) <= 40 else text[:40] + "…"


def _range(lo: float | None, hi: float | None, what: str, unit: str = "") -> str:
    """``"a whole number from 0 to 20"``, ``"at most 40 characters"`` and the like."""
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return f"{what} from {_num(lo)} to {_num(hi)}{unit}" if what else \
            f"{_num(lo)} to {_num(hi)}{unit}"
    if lo is not None:
        return f"{what} of at least {_num(lo)}{unit}" if what else f"at least {_num(lo)}{unit}"
    if hi is not None:
        return f"{what} of at most {_num(hi)}{unit}" if what else f"at most {_num(hi)}{unit}"
    return what


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value)


def _within(value: float, f: StatField) -> bool:
    return (f.min is None or value >= f.min) and (f.max is None or value <= f.max)


def _one_of(f: StatField) -> str:
    return ", ".join(f.choices)


def check_value(f: StatField, value: Json) -> str | None:
    """The problem with ``value`` for field ``f`` as one sentence, or None if it fits.

    >>> check_value(StatField("dex", "DEX", "int", 0, 20), 25)
    'DEX must be a whole number from 0 to 20, not 25'
    """
    label = f.label
    if f.kind == "int":
        if not _is_int(value) or not _within(value, f):
            return (f"{label} must be {_range(f.min, f.max, 'a whole number')}, not "
                    f"{_show(value)}{quoted_number(value)}")
    elif f.kind == "float":
        if not _is_number(value) or not _within(value, f):
            return (f"{label} must be {_range(f.min, f.max, 'a number')}, not "
                    f"{_show(value)}{quoted_number(value)}")
    elif f.kind == "bool":
        if not isinstance(value, bool):
            return f"{label} must be yes or no (true or false), not {_show(value)}"
    elif f.kind == "text":
        if not isinstance(value, str):
            return f"{label} must be text, not {_show(value)}"
        if not _within(len(value), f):
            return (f"{label} must be {_range(f.min, f.max, '', 'characters')} long, "
                    f"not {len(value)}")
    elif f.kind == "choice":
        if not isinstance(value, str) or value not in f.choices:
            return f"{label} must be one of {_one_of(f)}, not {_show(value)}"
    elif f.kind == "choices":
        return _check_choices(f, value)
    elif f.kind == "table":
        return _check_table(f, value)
    elif f.kind == "list":
        return _check_list(f, value)
    elif f.kind == "rows":
        return _check_rows(f, value)
    return None


def _fits_item(kind: str, value: Any) -> bool:
    if kind == "int":
        return _is_int(value)
    if kind == "float":
        return _is_number(value)
    return isinstance(value, str if kind == "text" else bool)


def _check_list(f: StatField, value: Json) -> str | None:
    numbers = f.items in ("int", "float")
    bounded = numbers and (f.min is not None or f.max is not None)
    wanted = f"a list of {_ITEM_WORDS[f.items]}" + \
        (f" ({_range(f.min, f.max, '')})" if bounded else "")
    if f.columns:  # a fixed shape: one item per column
        return _check_row(f, value, f.label)
    if not isinstance(value, list | tuple):
        return f"{f.label} must be {wanted}, not {_show(value)}"
    for v in value:
        if not _fits_item(f.items, v) or (numbers and not _within(v, f)):
            return f"{f.label} must be {wanted}, not holding {_show(v)}"
    return None


def _check_rows(f: StatField, value: Json) -> str | None:
    shape = ", ".join(_COLUMN_WORDS[c] for c in f.columns)
    n = len(f.columns)
    if not isinstance(value, list | tuple):
        return f"{f.label} must be a list of rows of {n} items ({shape}), not {_show(value)}"
    if not _within(len(value), f):
        return f"{f.label} must hold {_range(f.min, f.max, '', 'rows')}, not {len(value)}"
    for i, row in enumerate(value, start=1):
        problem = _check_row(f, row, f"{f.label} row {i}")
        if problem:
            return problem
    return None


def _check_row(f: StatField, row: Json, label: str) -> str | None:
    shape = ", ".join(_COLUMN_WORDS[c] for c in f.columns)
    n = len(f.columns)
    if not isinstance(row, list | tuple) or len(row) != n or not all(
            _fits_item(c, v) for c, v in zip(f.columns, row, strict=True)):
        return f"{label} must hold {n} items ({shape}), not {_show(row)}"
    return None


def _check_choices(f: StatField, value: Json) -> str | None:
    label = f.label
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        return f"{label} must be a list of names, not {_show(value)}"
    for v in value:
        if f.choices and v not in f.choices:
            return f"{label} names {v!r}, which is not one of {_one_of(f)}"
    if not f.repeats:
        seen: set[str] = set()
        for v in value:
            if v in seen:
                return f"{label} names {v!r} twice"
            seen.add(v)
    if not _within(len(value), f):
        return f"{label} must name {_range(f.min, f.max, '')}, not {len(value)}"
    return None


def _check_table(f: StatField, value: Json) -> str | None:
    label = f.label
    if not isinstance(value, Mapping):
        return f"{label} must give a whole number for each name, not {_show(value)}"
    for k, v in value.items():
        if f.choices and k not in f.choices:
            return f"{label} names {k!r}, which is not one of {_one_of(f)}"
        if not _is_int(v) or not _within(v, f):
            return (f"{label} for {k} must be {_range(f.min, f.max, 'a whole number')}, "
                    f"not {_show(v)}")
    return None


def check_stats(fields: Sequence[StatField], stats: Mapping[str, Json]) -> list[str]:
    """Every problem with a stat block, one readable sentence each, in form order.

    An empty list means the block fits. A stat the block leaves out is fine
    (its default applies) unless the field is required.
    """
    problems = []
    for f in fields:
        if f.key in stats:
            problem = check_value(f, stats[f.key])
            if problem:
                problems.append(problem)
        elif f.required:
            problems.append(f"{f.label} is required")
    known = [f.key for f in fields]
    problems += [f"unknown stat {key!r} (this ruleset knows {', '.join(known) or 'none'})"
                 for key in stats if key not in known]
    return problems


def defaults(fields: Sequence[StatField]) -> dict[str, Json]:
    """A stat block holding every field's default: a fresh form, or a bare token's stats."""
    out: dict[str, Json] = {}
    for f in fields:
        value = f.default
        out[f.key] = dict(value) if isinstance(value, Mapping) else value
    return out


class StatBlock:
    """A ruleset's stat block, as the rules read it: each stat's value or its default."""

    def __init__(self, fields: Sequence[StatField]) -> None:
        self.fields = tuple(fields)
        """Every field, in form order."""
        self._fields = {f.key: f for f in self.fields}
        self._defaults = {f.key: f.default for f in self.fields}

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    def __getitem__(self, key: str) -> StatField:
        return self._fields[key]

    def default(self, key: str) -> Json:
        """What the rules use for ``key`` when a token leaves it out."""
        return self._defaults[key]

    def value(self, stats: Mapping[str, Json], key: str) -> Json:
        """The token's ``key``, or the default when its stat block leaves it out."""
        return stats[key] if key in stats else self._defaults[key]

    def need(self, key: str, kinds: Kind | tuple[Kind, ...], *, where: str = "",
             among: Iterable[str] | None = None, table: str = "") -> StatField:
        """The field the rules read as ``key``; InputError if it is missing or unfit.

        The rules call this as they load, once per stat they read, so a stat
        block that lacks one is refused with a sentence rather than failing in
        play. ``where`` is the ruleset.toml key that names the stat, when it is
        not the rules themselves (``weapons.dagger.stat``). ``among``: the
        names the rules understand for a choice, choices or table field (the
        keys of ``[table]``, when given).
        """
        wanted = (kinds,) if isinstance(kinds, str) else kinds
        kind_words = " or ".join(repr(k) for k in wanted)
        f = self._fields.get(key)
        if f is None:
            if where:
                raise _bad(f"{where}:", f"names {key!r}, which is not a stat of [stat_block]")
            raise _bad(f"stat_block.{key}:", f"missing; the rules read this stat as kind "
                                             f"{kind_words}")
        if f.kind not in wanted:
            if where:
                raise _bad(f"{where}:", f"names {key!r}, which the rules read as kind "
                                        f"{kind_words}, but stat_block.{key} is {f.kind!r}")
            raise _bad(f"stat_block.{key}.kind:", f"the rules read {f.label} as {kind_words}, "
                                                  f"not {f.kind!r}")
        if among is not None:
            allowed = list(among)
            stray = [c for c in f.choices if c not in allowed]
            if stray:
                known = f"a key of [{table}]" if table else f"one of {', '.join(allowed)}"
                raise _bad(f"stat_block.{key}:", f"offers {stray[0]!r}, which is not {known}")
        return f


# --------------------------------------------------------------------------- reading


def fields_of(data: Mapping[str, Any], section: str = "stat_block") -> tuple[StatField, ...]:
    """The ``[stat_block.<key>]`` tables of a parsed ruleset.toml, in order (or those of
    another ``section`` written the same way: ``[values.<key>]``).

    Raises InputError naming the key at fault when a table does not make sense.
    """
    block = data.get(section, {})
    if not isinstance(block, Mapping):
        raise _bad(section, "must be a table of tables, one per key")
    return tuple(_field(data, str(key), spec, section) for key, spec in block.items())


def _bad(where: str, message: str) -> InputError:
    return InputError(f"ruleset.toml: {where} {message}")


def _field(data: Mapping[str, Any], key: str, spec: Any, section: str = "stat_block") \
        -> StatField:
    where = f"{section}.{key}"
    if not isinstance(spec, Mapping):
        raise _bad(where, f"must be a table ([{section}.<key>])")
    unknown = sorted(set(spec) - set(FIELD_KEYS))
    if unknown:
        raise _bad(f"{where}.{unknown[0]}", f"is not a stat block key (known: "
                                            f"{', '.join(FIELD_KEYS)})")
    kind = spec.get("kind")
    if kind not in KINDS:
        raise _bad(f"{where}.kind", f"must be one of {', '.join(KINDS)}, not {_show(kind)}")
    label = _text(spec, "label", key, where)
    help_text = _text(spec, "help", "", where)
    required = _flag(spec, "required", where)
    repeats = _flag(spec, "repeats", where)
    if repeats and kind != "choices":
        raise _bad(f"{where}.repeats", "only applies to a choices field")
    lo, hi = _bound(spec, "min", kind, where), _bound(spec, "max", kind, where)
    if lo is not None and hi is not None and lo > hi:
        raise _bad(where, f"has min {_num(lo)} above max {_num(hi)}")
    choices = _choices(data, spec, kind, where)
    items, columns = _shape(spec, kind, where)
    least = _text(spec, "least_means", "", where)
    if least and kind not in ("int", "float"):
        raise _bad(f"{where}.least_means", "only applies to an int or float field")
    draft = StatField(key, label, kind, lo, hi, None, choices, help_text, required, repeats,
                      items, columns, least)
    return replace(draft, default=_default(spec, draft, where))


def _shape(spec: Mapping[str, Any], kind: str, where: str) -> tuple[Any, tuple[Any, ...]]:
    """The ``items`` of a list field and the ``columns`` of a rows field."""
    if "items" in spec and kind != "list":
        raise _bad(f"{where}.items", "only applies to a list field")
    if "columns" in spec and kind not in ("rows", "list"):
        raise _bad(f"{where}.columns", "only applies to a rows or list field")
    items = spec.get("items", "int")
    if items not in ITEM_KINDS:
        raise _bad(f"{where}.items", f"must be one of {', '.join(ITEM_KINDS)}, not "
                                     f"{_show(items)}")
    columns = spec.get("columns", [])
    if (kind == "rows" or "columns" in spec) and (
            not isinstance(columns, list) or not columns
            or not all(c in ITEM_KINDS for c in columns)):
        raise _bad(f"{where}.columns", f"must list the kind of each column "
                                       f"({', '.join(ITEM_KINDS)})")
    return items, tuple(columns)


def _text(spec: Mapping[str, Any], name: str, fallback: str, where: str) -> str:
    value = spec.get(name, fallback)
    if not isinstance(value, str):
        raise _bad(f"{where}.{name}", f"must be text, not {_show(value)}")
    return value


def _flag(spec: Mapping[str, Any], name: str, where: str) -> bool:
    value = spec.get(name, False)
    if not isinstance(value, bool):
        raise _bad(f"{where}.{name}", f"must be true or false, not {_show(value)}")
    return value


def _bound(spec: Mapping[str, Any], name: str, kind: str, where: str) -> float | None:
    if name not in spec:
        return None
    value = spec[name]
    if kind in ("choice", "bool"):
        raise _bad(f"{where}.{name}", f"has no meaning for a {kind} field")
    whole = kind != "float"
    if not (_is_int(value) if whole else _is_number(value)):
        raise _bad(f"{where}.{name}", f"must be {'a whole number' if whole else 'a number'}, "
                                      f"not {_show(value)}")
    if kind in ("text", "choices", "rows") and value < 0:
        counts = {"text": "characters", "choices": "names", "rows": "rows"}[kind]
        raise _bad(f"{where}.{name}", f"counts {counts} and cannot be negative")
    result: float = value
    return result


def _choices(data: Mapping[str, Any], spec: Mapping[str, Any], kind: str,
             where: str) -> tuple[str, ...]:
    given, source = "choices" in spec, "choices_from" in spec
    if given and source:
        raise _bad(where, "gives both choices and choices_from; keep one")
    if (given or source) and kind not in ("choice", "choices", "table"):
        raise _bad(where, f"has choices, which a {kind} field does not use")
    if given:
        raw = spec["choices"]
        if not isinstance(raw, list) or not all(isinstance(c, str) and c for c in raw):
            raise _bad(f"{where}.choices", "must be a list of names")
        choices = tuple(raw)
    elif source:
        name = spec["choices_from"]
        if not isinstance(name, str) or not name:
            raise _bad(f"{where}.choices_from", "must name a table of ruleset.toml")
        table: Any = data
        for part in name.split("."):
            table = table.get(part) if isinstance(table, Mapping) else None
        if not isinstance(table, Mapping) or not table:
            raise _bad(f"{where}.choices_from", f"names [{name}], which is not a table "
                                                "with entries in ruleset.toml")
        choices = tuple(str(k) for k in table)
    else:
        choices = ()
    if len(set(choices)) != len(choices):
        raise _bad(f"{where}.choices", "names a choice twice")
    if kind == "choice" and not choices:
        raise _bad(where, "is a choice field and needs choices or choices_from")
    return choices


def _implicit_default(f: StatField) -> Json:
    """What a field holds when ruleset.toml gives no default: the value nearest zero."""
    if f.kind in ("int", "float"):
        base = f.min if f.min is not None and f.min > 0 else \
            f.max if f.max is not None and f.max < 0 else 0
        return int(base) if f.kind == "int" else float(base)
    return {"text": "", "choice": f.choices[0] if f.choices else "", "choices": (),
            "bool": False, "table": {}, "list": (), "rows": ()}[f.kind]


def _default(spec: Mapping[str, Any], f: StatField, where: str) -> Json:
    if "default" not in spec:
        return _implicit_default(f)
    value = spec["default"]
    if f.kind in ("choices", "list", "rows") and isinstance(value, list):
        value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
    if f.kind == "float" and _is_int(value):
        value = float(value)
    if f.kind == "table" and isinstance(value, Mapping):
        value = dict(value)
    problem = check_value(f, value)
    if problem:
        raise _bad(f"{where}.default:", problem)
    return value
