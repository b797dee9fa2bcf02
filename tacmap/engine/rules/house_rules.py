"""House rules: the readings a rules text leaves open, declared by a ruleset, set per encounter.

A ruleset lists its options in ruleset.toml under ``[options.<key>]``: the values
it may take (each with a line saying what it does), the default (the text's own
reading), the sentence of the text it concerns and, where a default changed, the
reading encounters saved before kept (``before``). An encounter holds only the
values it overrides (``Encounter.house_rules``); rules read the value in force
through ``Ruleset.house_rule(state, key)``, which is ``value_in_force`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from tacmap.engine.model.convert import Invalid, convert
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter

#: An option's key and each value: what a GM types on the command line.
Word = Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z0-9_]{0,39}$")]


class HouseOption(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One ``[options.<key>]`` table of ruleset.toml: a reading the GM may set per encounter."""

    text: Annotated[str, msgspec.Meta(min_length=1)]
    """The sentence of the rules text the option concerns, quoted."""
    values: Annotated[dict[Word, str], msgspec.Meta(min_length=2)]
    """Each value the option may take, with the line that says what it does."""
    default: Word
    """The value in force when the encounter sets none: the text's own reading."""
    before: Word = ""
    """The value encounters saved before house rules existed were played with, where it is
    not the default (they keep it: their log replays the same). Empty: the default."""
    since: str = ""
    """The ruleset version that added the option: an encounter saved under an older
    version keeps ``before`` too (its log replays the same). Empty: since house rules."""
    key: str = ""
    """The option's key (filled in from the table's name)."""

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise Invalid("default", f"must be one of its values ({', '.join(self.values)})")
        if self.before and self.before not in self.values:
            raise Invalid("before", f"must be one of its values ({', '.join(self.values)})")


def read_options(data: Mapping[str, Any]) -> dict[str, HouseOption]:
    """``[options.*]`` of a parsed ruleset.toml, typed and checked (InputError naming the key)."""
    wrapped = {"options": data.get("options", {})}
    options = convert(wrapped, dict[str, dict[Word, HouseOption]], "ruleset.toml")["options"]
    for key, option in options.items():
        option.key = key
    return options


def check_value(options: Mapping[str, HouseOption], key: str, value: str) -> None:
    """Raise InputError (one sentence naming ``key``) unless ``value`` is one of its values."""
    option = options.get(key)
    if option is None:
        known = ", ".join(options) or "none"
        raise InputError(f"there is no house rule {key!r} (this ruleset's: {known})")
    if value not in option.values:
        raise InputError(f"house rule {key}: {value!r} is not one of its values "
                         f"({', '.join(option.values)})")


def check_overrides(options: Mapping[str, HouseOption], overrides: Mapping[str, str],
                    where: str = "encounter.house_rules") -> None:
    """Refuse overrides a ruleset does not offer, in one sentence naming the place."""
    for key, value in overrides.items():
        try:
            check_value(options, key, value)
        except InputError as err:
            raise InputError(f"{where}: {err}") from None


def value_in_force(options: Mapping[str, HouseOption], state: Encounter, key: str) -> str:
    """The encounter's override of ``key``, or the option's default (KeyError: no such option)."""
    option = options[key]
    return state.house_rules.get(key, option.default)


def differing(options: Mapping[str, HouseOption], state: Encounter) -> list[HouseOption]:
    """The options whose value in force is not the default, in the ruleset's order."""
    return [o for k, o in options.items() if value_in_force(options, state, k) != o.default]


def kept_from_before(options: Mapping[str, HouseOption], version: str | None = None
                     ) -> dict[str, str]:
    """The overrides that keep an encounter on its old readings: saved before house rules
    (``version`` None), or under a ruleset ``version`` older than an option's ``since``."""
    return {k: o.before for k, o in options.items()
            if o.before and o.before != o.default
            and (version is None or (o.since and _older(version, o.since)))}


def _older(version: str, than: str) -> bool:
    """Whether dotted ``version`` comes before ``than`` ("1.0" < "1.1" < "1.10")."""
    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) if p.isdigit() else 0 for p in v.split("."))
    return parts(version) < parts(than)


def parse_setting(text: str) -> tuple[str, str]:
    """``"KEY=VALUE"`` → ``(key, value)``; InputError in one sentence otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise InputError(f"a house rule is written KEY=VALUE (got {text!r})")
    return key.strip(), value.strip()
