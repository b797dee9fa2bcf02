"""The Ruleset protocol, the manifest in ruleset.toml, and the registry that finds them.

A ruleset folder holds ``ruleset.toml`` (every number the rules use),
``data.py`` (its tables as typed records, subclasses of ``RulesetData``),
``rules.py`` (a ``create(manifest)`` function returning a ``Ruleset``), other
modules it needs and a README. The folder is loaded as one package, so its
modules import each other relatively (``from .data import Data``).
Built-in rulesets ship with the app; a folder the user adds is code, like a
plugin, and the registry says so before loading it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Annotated, Any, TypeVar, cast

import msgspec

from tacmap.engine.model.commands import Command, Move
from tacmap.engine.model.convert import Invalid, convert, shown
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import (
    ConditionChanged,
    DiceRolled,
    Event,
    HpChanged,
    condition_change,
)
from tacmap.engine.model.records import Json
from tacmap.engine.model.state import (
    DIAGONAL_RULES,
    Cell,
    Encounter,
    Fog,
    MapSpec,
    Token,
    marked_dead,
)
from tacmap.engine.model.units import METRES, UNITS, Units, register
from tacmap.engine.model.words import ACT_WORDS
from tacmap.engine.rules.dice import DiceSource, Roll
from tacmap.engine.rules.house_rules import HouseOption, read_options, value_in_force
from tacmap.engine.rules.options import acting_token
from tacmap.engine.rules.statblock import (
    StatBlock,
    StatField,
    check_stats,
    check_value,
    fields_of,
)
from tacmap.engine.rules.views import (
    ActionOption,
    Declared,
    PoolView,
    Preview,
    Timeline,
    TurnOrder,
)
from tacmap.engine.space.geometry import line_of_sight
from tacmap.engine.space.grid import edge_distance
from tacmap.engine.space.movement import MovePlan, Space, bars, plan_move

#: The ruleset API this tacmap offers (``api`` in ruleset.toml; tacmap.api is its door), and
#: the oldest it still loads: API 1 plug-ins import the engine's old module paths.
API_VERSION = 2
OLDEST_API = 1
ENV_VAR = "TACMAP_RULESETS"
TRUST_WARNING = (
    "a ruleset folder is code and runs with your permissions; load only folders you trust"
)


#: Keys of ruleset.toml the engine reads itself; ``Manifest.tables`` leaves them out.
ENGINE_KEYS = ("id", "name", "version", "api", "stat_block", "values", "options")


class Table(msgspec.Struct, forbid_unknown_fields=True):
    """One table of ruleset.toml as a typed record; a ruleset's tables subclass it.

    Subclasses inherit that an unknown key is an error, so a typo is named
    instead of ignored. Declare each key with its type and constraints next to
    it, required keys first (or pass ``kw_only=True``); a table inside a table
    defaults through ``msgspec.field(default_factory=...)``. Rules read these
    records and never change them::

        class Weapon(Entry):
            damage_die: Annotated[int, msgspec.Meta(ge=2)]
            reach: Annotated[float, msgspec.Meta(ge=0)] = 1.0
            kind: Literal["melee", "ranged"] = "melee"

    A check that spans several keys goes in ``__post_init__`` and raises
    ``Invalid(key, message)`` (tacmap.engine.model.convert): the one sentence then
    names that key.
    """


class Entry(Table, kw_only=True):
    """A row of a top-level table keyed by name (``[weapons.halberd]``).

    ``Manifest.tables`` fills in ``key`` from the table name, and ``name``
    with the key when ruleset.toml gives none. Neither is written in the file.
    """

    key: str = ""
    """The row's key in its table (``"halberd"``)."""
    name: str = ""
    """The name the log and the panels show."""


class Grid(Table, kw_only=True):
    """``[grid]``: the engine's keys; a ruleset that needs more subclasses it."""

    diagonal: str = "rectilinear"
    """Default diagonal rule for new encounters (DESIGN §4)."""
    unit: str = "m"
    """What distances are shown in: ``"m"`` or ``"ft"`` (DESIGN §4)."""
    cell_size: Annotated[float, msgspec.Meta(gt=0)] = 1.0
    """One cell in ``unit`` (5 for 5-foot squares)."""
    through_enemies: bool = False
    """Whether a move may pass through the square of an enemy still in the fight (no
    seed lets it: a route goes round enemies, and never stops on a living token's square)."""

    def __post_init__(self) -> None:
        if self.diagonal not in DIAGONAL_RULES:
            raise Invalid("diagonal", f"must be one of {', '.join(DIAGONAL_RULES)}")
        if self.unit not in UNITS:
            raise Invalid("unit", f"must be one of {', '.join(UNITS)}")


class RulesetData(Table, kw_only=True):
    """ruleset.toml past the keys the engine reads itself (``ENGINE_KEYS``).

    A ruleset's ``Data`` (in its data.py) subclasses this and adds its tables,
    so every table of the file is declared, typed and checked in one place.
    """

    grid: Grid = msgspec.field(default_factory=Grid)


D = TypeVar("D", bound=RulesetData)

#: A ``tacmap bench`` figure a ruleset owns (its ``bench()`` lists them): name, the code
#: timed, its p95 budget in milliseconds.
BenchFigure = tuple[str, Callable[[], object], float]


@dataclass(frozen=True)
class Manifest:
    """What ruleset.toml says about a ruleset."""

    id: str
    """Ruleset id, the folder name (``"action_pool"``)."""
    name: str
    """Human name."""
    version: str
    """Ruleset version, saved in encounter files."""
    folder: Path
    """Where the ruleset lives."""
    builtin: bool
    """Shipped with the app (False: a folder the user added)."""
    diagonal: str
    """Default diagonal rule for new encounters."""
    data: dict[str, Any] = field(default_factory=dict)
    """The whole parsed TOML, as read once; rules read it through ``tables``."""
    units: Units = METRES
    """``[grid] unit`` and ``cell_size``: what the map, the CLI and the log show distances in."""
    options: dict[str, HouseOption] = field(default_factory=dict)
    """``[options.*]``: the house rules a GM may set per encounter, in the file's order."""

    def tables(self, kind: type[D]) -> D:
        """ruleset.toml (less ``ENGINE_KEYS``) as the ruleset's typed tables.

        A value that does not fit raises one InputError naming the file, the
        table and the key: ``ruleset.toml: weapons.halberd.reach: expected a
        number >= 0, got -2``.
        """
        rest = {k: v for k, v in self.data.items() if k not in ENGINE_KEYS}
        data = convert(rest, kind, "ruleset.toml")
        for table in msgspec.structs.fields(data):
            rows = getattr(data, table.name)
            if isinstance(rows, dict):
                for key, row in rows.items():
                    if isinstance(row, Entry):
                        _name_entry(row, key, f"{table.encode_name}.{key}")
        return data


def _name_entry(row: Entry, key: str, where: str) -> None:
    if row.key and row.key != key:
        raise InputError(f"ruleset.toml: {where}.key: the table's name is its key; "
                         f"leave key out (it says {row.key!r})")
    row.key = key
    if not row.name:
        row.name = key


class Resolution:
    """A command being resolved: emitted events apply at once and are undone on error."""

    def __init__(self, state: Encounter, dice: DiceSource) -> None:
        self.state = state
        self.dice = dice
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        """Apply ``event`` to the state and record it.

        A condition gained that the token has, or lost that it lacks, changes nothing
        and is not recorded: its undo (a preview's rollback too) would take away or add
        what was there before. A condition lost records where it stood, for undo.
        """
        if isinstance(event, ConditionChanged):
            token = self.state.tokens.get(event.token)
            if token is not None:
                if (event.condition in token.conditions) == event.gained:
                    return
                if not event.gained and event.index < 0:
                    event = condition_change(token, event.condition, False)
        event.apply(self.state)
        self.events.append(event)

    def roll(self, who: str, count: int, sides: int, why: str) -> Roll:
        """Throw dice for ``who`` and log the roll."""
        # Dice typed in by hand are asked for by whose they are: a round's six
        # initiative rolls read alike but for the name.
        token = self.state.tokens.get(who)
        asked = why if token is None or not why or why.startswith(token.name) \
            else f"{token.name}'s {why}"
        roll = self.dice.roll(count, sides, asked)
        self.emit(DiceRolled(who, why, roll))
        return roll

    def save(self, who: str, target: int, why: str, count: int = 1, sides: int = 20,
             under: bool = True) -> bool:
        """Roll ``who``'s save and log it: ``count`` dice of ``sides`` faces, made at
        ``target`` or under (``under``, a roll-under save on a stat) or at ``target`` or
        over. Its odds: ``odds.save_chance`` with the same numbers."""
        if count < 1 or sides < 1:
            raise RuleError(f"a save needs at least one die of at least one face, not "
                            f"{count}d{sides}")
        side = "or under" if under else "or over"
        total = self.roll(who, count, sides, f"{why} ({target} {side})").total
        return total <= target if under else total >= target

    def hp_before(self, token: Token) -> int:
        """``token``'s hit points before this command changed them (``hp_set`` weighs the
        damage: a blow of the whole maximum, a sleeper woken)."""
        return next((e.old for e in self.events
                     if isinstance(e, HpChanged) and e.token == token.id), token.hp)

    def rollback(self) -> None:
        """Revert everything emitted so far, newest first."""
        for event in reversed(self.events):
            event.revert(self.state)
        self.events.clear()


#: Every function the engine looks up in a ruleset's views.py (``Ruleset.own``): one of
#: another name there is the ruleset's own helper, never called by the engine.
VIEWS = frozenset({"actions_for", "declared", "dice_pools", "move_uses", "options",
                   "status_lines", "timeline", "turn_order"})


class Ruleset:
    """Base class of every ruleset; subclasses override what their rules need."""

    #: How the log and the Last result word an action of this ruleset, by its key, where
    #: "Grell uses strike on Kara" would not do: ``{"strike": "{actor} attacks {target}
    #: ({detail})"}``, with the tokens' names and the option's detail in words (a part in
    #: brackets naming ``{detail}`` is left out when the command has none). Keys made
    #: from the tables (its flourishes) are added with ``word_act`` once the ruleset is.
    act_words: Mapping[str, str] = MappingProxyType({})

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._words = ACT_WORDS[manifest.id] = dict(type(self).act_words)
        self.space = Space()
        fields = fields_of(manifest.data)
        if all(f.key != SIGHT for f in fields):
            fields = (*fields, sight_field(manifest.units))
        self.stat_block = StatBlock(fields)
        """``[stat_block.*]``: the one place the stats, their ranges and defaults live
        (and the sight range every ruleset's tokens may have, for fog of war)."""
        self.value_block = StatBlock(
            [replace(f, label=f"values.{f.key}") for f in fields_of(manifest.data, "values")])
        """``[values.*]``: the type and bounds of each value the rules track in
        ``token.values``, checked as a file is read and as the GM sets one; a key not
        declared is the GM's own (a note), any JSON."""
        self._own_found: dict[tuple[str, str], Callable[..., Any] | None] = {}

    def word_act(self, key: str, template: str) -> None:
        """Word the action ``key`` as ``template`` in the log (as ``act_words`` does)."""
        self._words[key] = template

    def own(self, module: str, name: str) -> Callable[..., Any] | None:
        """``name`` of the ruleset folder's ``module`` (``views``, ``bench``), or None.

        The panel methods below call ``views.<method>(rules, state, …)`` and
        ``bench()`` calls ``bench.figures(rules)`` when the ruleset's folder has
        them, so a ruleset writes no method that only hands itself to them
        (rulesets/GUIDE.md, "Views and bench"). Looked up once per name.
        """
        key = (module, name)
        # A name missing from VIEWS would escape the check's "did you mean" for a typo.
        assert module != "views" or name in VIEWS, name
        if key not in self._own_found:
            found = _own_module(self.manifest, module)
            self._own_found[key] = getattr(found, name, None) if found is not None else None
        return self._own_found[key]

    @property
    def id(self) -> str:
        """Ruleset id."""
        return self.manifest.id

    def house_rule(self, state: Encounter, key: str) -> str:
        """The value of house rule ``key`` in force in ``state``: its override or the default."""
        return value_in_force(self.manifest.options, state, key)

    # --- setting up ---------------------------------------------------------

    def new_encounter(self, name: str = "Encounter", seed: int = 0) -> Encounter:
        """An empty encounter under this ruleset."""
        return Encounter(ruleset=self.id, ruleset_version=self.manifest.version, name=name,
                         diagonal=self.manifest.diagonal, seed=seed)

    def new_map(self, name: str, seed: int, width: int, height: int) -> Encounter:
        """The empty map a GM starts from (``tacmap new``, File ▸ New): fog of war on.

        One place decides how a new map starts, so the command line and the
        window agree: dark for the players until the GM reveals it, as the demos
        are. ValueError for a size the map refuses.
        """
        state = self.new_encounter(name, seed)
        state.map = MapSpec(width, height)
        state.fog = Fog(enabled=True)
        return state

    def stat_fields(self) -> tuple[StatField, ...]:
        """The stat block of ``[stat_block.*]`` in ruleset.toml (empty when it has none)."""
        return self.stat_block.fields

    def check_token(self, token: Token) -> None:
        """Raise InputError if the token's stat block does not fit the rules.

        The base checks ``token.stats`` against ``stat_fields()``; a ruleset adds
        the checks that tie stats together (the weapon in hand is one carried).
        """
        fields = self.stat_fields()
        stats = token.stats
        if len(fields) == 1 and fields[0].key == SIGHT:
            # No stat block of its own: any stats go, but the sight range must make sense.
            stats = {k: v for k, v in stats.items() if k == SIGHT}
        problems = check_stats(fields, stats)
        problems += [p for key, value in token.values.items()
                     if (p := self.value_problem(key, value))]
        if problems:
            raise token_error(token, problems)

    def value_problem(self, key: str, value: Json) -> str:
        """Why ``value`` does not fit the tracked value ``key`` of ``[values.*]``, as one
        sentence; "" when it fits, is None (removed) or ``key`` is not declared."""
        if value is None or key not in self.value_block:
            return ""
        return check_value(self.value_block[key], value) or ""

    def out_of_fight(self, token: Token) -> bool:
        """Whether ``token`` no longer takes part in the fight (down, dead …): it threatens
        no one, bars no way, is owed no turn and counts for no side. The default: marked
        ``dead``.

        The engine asks this, never the conditions, wherever it decides who is still
        in the fight (threats and reach, the way barred, the party's eyes under fog, the
        headless driver, the report's fallen, the map's greyed tokens); a ruleset whose
        seed takes a token out another way (unconscious, routed) says so here."""
        return marked_dead(token)

    # --- sides and aim: what most rules ask before an attack or a spell -------

    def allies(self, state: Encounter, token: Token) -> list[Token]:
        """The other tokens of ``token``'s side still in the fight, in map order."""
        return [t for t in state.tokens.values()
                if t.side == token.side and t.id != token.id and not self.out_of_fight(t)]

    def enemies(self, state: Encounter, token: Token) -> list[Token]:
        """Tokens of other sides still in the fight, in map order."""
        return [t for t in state.tokens.values()
                if t.side != token.side and not self.out_of_fight(t)]

    def fallen(self, state: Encounter, side: str) -> list[Token]:
        """The tokens of ``side`` out of the fight (``out_of_fight``), in map order."""
        return [t for t in state.tokens.values() if t.side == side and self.out_of_fight(t)]

    def distance(self, state: Encounter, token: Token, target: Token) -> float:
        """Cells between two tokens' edges by the map's diagonal rule (a range, a spell's
        reach; melee reach may count diagonals its own way: ``reach_rule``)."""
        return edge_distance(state.diagonal, token.cell, token.size, target.cell, target.size)

    def aim_problem(self, state: Encounter, token: Token, target: Token, cells: float,
                    what: str, ranged: bool = True, verb: str = "") -> str:
        """Why ``token`` cannot aim ``what`` (``"the bow"``, ``"Sleep"``) at ``target``, as
        the sentence a greyed option shows; "" when it can. Ranged: within ``cells`` by
        ``distance`` and in sight past the walls; else within ``cells`` by reach's rule.
        ``verb`` says what ``what`` does to its range (``shoots``; ``reaches`` in melee)."""
        units = self.manifest.units
        gap = self.distance(state, token, target) if ranged else edge_distance(
            self.reach_rule(state), token.cell, token.size, target.cell, target.size)
        if gap > cells + 1e-9:
            verb = verb or ("shoots" if ranged else "reaches")
            return f"{target.name} is {units.of(gap)} away; {what} {verb} {units.of(cells)}"
        if ranged and not line_of_sight(self.space.walls(state), token, target):
            return f"{token.name} cannot see {target.name}"
        return ""

    # --- judging ------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        """Judge ``cmd`` and emit its events through ``ctx``, or raise RuleError."""
        raise RuleError(f"{self.manifest.name} has no {type(cmd).__name__} action")

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        """What ``cmd`` would do; the default tries it on a copy with no dice."""
        if isinstance(cmd, Move):
            return self.preview_move(state, cmd, version)
        # Tried on the live state and rolled back, as a refused command is: exact (undo
        # relies on the same events) and far cheaper than a copy of the encounter.
        trial = Resolution(state, _NoDice())
        try:
            self.resolve(trial, cmd)
        except _DiceNeeded:
            return Preview(True)
        except RuleError as err:
            return Preview(False, str(err))
        finally:
            trial.rollback()
        return Preview(True)

    def preview_move(self, state: Encounter, cmd: Move, version: object = None) -> Preview:
        """Route, cost, budget, reach left and threats for a move."""
        token = state.token(cmd.actor)
        plan = self.plan(state, token, cmd.path, version)
        budget = self.move_budget(state, token)
        reason = plan.blocked or self.move_refusal(state, token, plan) or ""
        uses = "" if reason else self.move_uses(state, token, plan)
        return Preview(not reason, reason, plan.cost, budget, plan.cells, plan.leaves,
                       plan.threats, uses=uses)

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        """What this allowed move spends of the turn and what is left, in one sentence
        for the drag label ("" where moving spends no action): ``views.move_uses(rules,
        state, token, plan)``."""
        view = self.own("views", "move_uses")
        return "" if view is None else cast(str, view(self, state, token, plan))

    def plan(self, state: Encounter, token: Token, waypoints: Sequence[Cell],
             version: object = None) -> MovePlan:
        """Work out a move of ``token`` through ``waypoints`` under this ruleset."""
        if not waypoints:
            raise RuleError("a move needs at least one cell to go to")
        def reach_of(t: Token) -> float:
            return self.reach(state, t)

        def blocks(other: Token) -> bool:
            return self.bars_way(state, token, other)

        return plan_move(state, self.space, version, token, waypoints, reach_of,
                         self.space.max_reach(state, version, reach_of),
                         self.space.fields(state, version), self.reach_rule(state), blocks,
                         self.out_of_fight)

    def bars_way(self, state: Encounter, mover: Token, other: Token) -> bool:
        """Whether ``other``'s square bars ``mover``'s way (by default an enemy's still in
        the fight, unless ``[grid] through_enemies`` is true). Depends on the mover's side
        only."""
        if bool(self.manifest.data.get("grid", {}).get("through_enemies", False)):
            return False
        return bars(mover, other, self.out_of_fight)

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        """Why this planned move is not allowed now, or None."""
        budget = self.move_budget(state, token)
        if budget is not None and plan.cost > budget + 1e-9:
            u = self.manifest.units
            return f"{token.name} can move {u.of(budget)}, this path is {u.of(plan.cost)}"
        return None

    # --- what the panels and the map ask -------------------------------------

    def reach(self, state: Encounter, token: Token) -> float:
        """Melee reach of ``token`` in metres (1 m: the cells around it)."""
        return float(token.stats.get("reach", 1))

    def reach_rule(self, state: Encounter) -> str:
        """The diagonal rule reach is measured by: the map's own, unless the ruleset's
        seed counts the diagonal differently for moving than for reaching."""
        return state.diagonal

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        """Metres ``token`` may still move now (None: no limit the rules know of)."""
        return None

    def move_bands(self, state: Encounter, token: Token) -> tuple[float, ...]:
        """Cumulative metres the map colours a path by (one action, the whole turn …)."""
        budget = self.move_budget(state, token)
        return () if budget is None else (budget,)

    def actions_for(self, state: Encounter, actor: str) -> list[ActionOption]:
        """Actions ``actor`` can take now: ``views.actions_for(rules, state, actor)``."""
        view = self.own("views", "actions_for")
        return [] if view is None else cast("list[ActionOption]", view(self, state, actor))

    def turn_order(self, state: Encounter) -> TurnOrder | None:
        """The initiative panel, or None before combat: ``views.turn_order(rules, state)``."""
        view = self.own("views", "turn_order")
        return None if view is None else cast("TurnOrder | None", view(self, state))

    def whose_turn(self, state: Encounter) -> str | None:
        """The token whose actions are offered now, none selected: ``acting_token`` of the
        turn order. A headless fight asks it every step; a ruleset whose turn order is
        costly to build may answer directly, as long as the two agree."""
        return acting_token(state, self.turn_order(state), out=self.out_of_fight)

    def has_timeline(self) -> bool:
        """Whether this ruleset draws a phase timeline in combat (its views have one)."""
        return self.own("views", "timeline") is not None

    def timeline(self, state: Encounter) -> Timeline | None:
        """The phase timeline, for rulesets that have one: ``views.timeline(rules, state)``."""
        view = self.own("views", "timeline")
        return None if view is None else cast("Timeline | None", view(self, state))

    def dice_pools(self, state: Encounter) -> list[PoolView]:
        """Each token's dice pool, for rulesets that have them: ``views.dice_pools(rules,
        state)``."""
        view = self.own("views", "dice_pools")
        return [] if view is None else cast("list[PoolView]", view(self, state))

    def declared(self, state: Encounter) -> list[Declared]:
        """Actions announced and not yet resolved, for the map's ghost arrows:
        ``views.declared(rules, state)`` (none without it: a ruleset that resolves each
        action at once declares nothing)."""
        view = self.own("views", "declared")
        return [] if view is None else cast("list[Declared]", view(self, state))

    def status_lines(self, state: Encounter, token: Token) -> tuple[str, ...]:
        """What the ruleset tracks on ``token`` worth a line on its tooltip (wounds, notches):
        ``views.status_lines(rules, state, token)``."""
        view = self.own("views", "status_lines")
        return () if view is None else cast("tuple[str, ...]", view(self, state, token))

    def bench(self) -> list[BenchFigure]:
        """The ``tacmap bench`` figures this ruleset owns: ``bench.figures(rules)``."""
        figures = self.own("bench", "figures")
        return [] if figures is None else cast("list[BenchFigure]", figures(self))

    def secret_conditions(self) -> frozenset[str]:
        """Conditions the players never see on a token not on their side (a prepared action)."""
        return frozenset()

    def joined(self, ctx: Resolution, token: Token) -> None:
        """``token`` was just added (the GM's Add Combatant): emit where it enters the round.

        Before combat nothing is needed; a ruleset whose turn order lists tokens
        places a newcomer during combat, or it would never get a turn.
        """

    def left(self, ctx: Resolution, token: Token) -> None:
        """``token`` was just removed (the GM's Remove): emit the drop of what it declared.

        A ruleset that declares ahead drops the removed token's standing declarations
        here, with a line for the log, so the round never waits on a token that is gone.
        """

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """The GM just set ``token``'s hit points: emit the conditions that follow from them.

        A ruleset whose conditions follow hit points (unconscious below zero)
        settles them here, so a GM heal shows at once, not at the next turn.
        """


#: The stat fog of war reads a token's sight range from, in the ruleset's unit.
SIGHT = "sight"


def sight_field(units: Units) -> StatField:
    """The sight range every ruleset's stat block ends with, unless it names its own."""
    return StatField(SIGHT, f"Sight ({units.unit})", "float", min=0, max=100_000, default=0.0,
                     help="How far this combatant sees under fog of war; 0: as far as the "
                          "walls let it.", least_means="unlimited")


def token_error(token: Token, problems: Sequence[str]) -> InputError:
    """One InputError naming the token and listing every problem with it."""
    return InputError(f"token {token.id!r} ({token.name}): {'; '.join(problems)}")


class _DiceNeeded(Exception):
    """A preview reached the point where dice would be thrown: legal so far."""


class _NoDice:
    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        raise _DiceNeeded


# --- registry ---------------------------------------------------------------------


def builtin_folders() -> list[Path]:
    """Where the built-in rulesets are: the source tree's rulesets/, or inside the install."""
    here = Path(__file__).resolve().parents[2]  # tacmap/
    found = []
    source = here.parent / "rulesets"
    if source.is_dir() and (here.parent / "pyproject.toml").is_file():
        found.append(source)
    installed = here / "_rulesets"
    if installed.is_dir():
        found.append(installed)
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        found.append(Path(frozen) / "rulesets")
    return found[:1]


def user_folders(extra: Iterable[str | Path] = ()) -> list[Path]:
    """Folders the user named, by option or in TACMAP_RULESETS (os.pathsep-separated)."""
    return [Path(p) for p in extra] + env_folders()


def env_folders() -> list[Path]:
    """The folders in TACMAP_RULESETS (os.pathsep-separated)."""
    env = os.environ.get(ENV_VAR, "")
    return [Path(p) for p in env.split(os.pathsep) if p.strip()]


class Registry:
    """The rulesets this app can use, by id; rules.py is imported on first use."""

    def __init__(self, extra: Iterable[str | Path] = (),
                 warn: Callable[[str], None] | None = None,
                 trust: Callable[[Manifest], bool] | None = None) -> None:
        self.manifests: dict[str, Manifest] = {}
        #: Why each ruleset of TACMAP_RULESETS that does not load was skipped, one sentence
        #: each: the variable is set once for every command and the window, so a broken
        #: folder in it stops none of them (a command that needs its ruleset says why).
        self.skipped: list[str] = []
        #: Asked before a user's ruleset folder runs its rules.py (None: run it, with the
        #: warning). The window asks the GM once per folder and content hash.
        self.trust = trust
        self._loaded: dict[str, Ruleset] = {}
        #: Says a user's folder is about to run (stderr by default; the CLI defers it).
        self.warn = warn or (lambda msg: print(f"warning: {msg}", file=sys.stderr))
        for root in builtin_folders():
            self._scan(root, builtin=True)
        # A folder named for this command is refused when broken: it was asked for.
        for root in [Path(p) for p in extra]:
            if not root.is_dir():
                raise InputError(f"ruleset folder {root} does not exist")
            self._scan(root, builtin=False)
        for root in env_folders():
            if not root.is_dir():
                self.skipped.append(f"ruleset folder {root} does not exist")
                continue
            self._scan(root, builtin=False, lenient=True)
        for why in self.skipped:
            self.warn(f"{why} (in {ENV_VAR}; skipped)")

    def _scan(self, root: Path, builtin: bool, lenient: bool = False) -> None:
        # A folder may be one ruleset or hold several.
        tomls = [root / "ruleset.toml"] if (root / "ruleset.toml").is_file() \
            else sorted(root.glob("*/ruleset.toml"))
        for path in tomls:
            try:
                manifest = read_manifest(path, builtin)
                if manifest.id in self.manifests and not builtin:
                    raise InputError(f"{path}: ruleset id {manifest.id!r} is already taken by "
                                     f"{self.manifests[manifest.id].folder}")
            except InputError as err:
                if not lenient:
                    raise
                self.skipped.append(str(err))
                continue
            self.manifests.setdefault(manifest.id, manifest)
            register(manifest.id, self.manifests[manifest.id].units)

    def ids(self) -> list[str]:
        """Known ruleset ids, sorted."""
        return sorted(self.manifests)

    def get(self, ruleset_id: str) -> Ruleset:
        """The ruleset with this id, loading its rules.py on first use."""
        if ruleset_id in self._loaded:
            return self._loaded[ruleset_id]
        manifest = self.manifests.get(ruleset_id)
        if manifest is None:
            known = ", ".join(self.ids()) or "none"
            skipped = "".join(f"; skipped: {why}" for why in self.skipped)
            raise InputError(f"unknown ruleset {ruleset_id!r} (installed: {known}{skipped})")
        if not manifest.builtin:
            self.warn(f"loading ruleset {manifest.id!r} from {manifest.folder}: {TRUST_WARNING}")
            if self.trust is not None and not self.trust(manifest):
                raise InputError(f"ruleset {manifest.id!r} from {manifest.folder} is not "
                                 "trusted, so its rules.py was not run (Help ▸ Rulesets You "
                                 "Added forgets that answer, and the window asks again)")
        try:
            ruleset = _load_rules(manifest)
        except InputError:
            raise
        except Exception as err:
            if manifest.builtin:
                raise  # a bug in tacmap: exit 1, with the details on request
            # A user's folder that does not load fails what needs it, in one sentence.
            raise InputError(f"ruleset {manifest.id!r} from {manifest.folder} does not load "
                             f"({_failure(err)})") from None
        self._loaded[ruleset_id] = ruleset
        return ruleset


def _failure(err: Exception) -> str:
    """A user ruleset's error as it loads, for a sentence: a syntax error names its line."""
    if isinstance(err, SyntaxError):
        return f"SyntaxError: {err.msg}, {Path(err.filename or '?').name} line {err.lineno}"
    return f"{type(err).__name__}: {err}"


#: What a ruleset id (and its folder's name) may be: it becomes part of a module name.
_ID = re.compile(r"[a-z][a-z0-9_]*")


def content_hash(folder: Path) -> str:
    """SHA-256 over every file in a ruleset folder (names and bytes), symlinks followed.

    A trusted folder whose code or data changes is asked about again. Bytecode
    (``.pyc``, ``.pyo``) is left out because a user's ruleset never runs it:
    ``_SourceOnly`` compiles each module from the ``.py`` file hashed here. A ``.py``
    file inside ``__pycache__`` is hashed like any other: it can be imported.
    """
    digest = hashlib.sha256()
    for path in _files(folder):
        rel = path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape")
        digest.update(len(rel).to_bytes(8, "big") + rel)
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\xff unreadable"
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def _files(folder: Path) -> list[Path]:
    """The files under ``folder`` as Python imports them: through symlinks, each folder once."""
    found: list[Path] = []
    seen: set[str] = set()
    for top, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(dirs)
        found += [Path(top, f) for f in files if not f.endswith((".pyc", ".pyo"))
                  and os.path.isfile(os.path.join(top, f))]
    return sorted(found)


def read_manifest(path: Path, builtin: bool = True) -> Manifest:
    """Parse and check one ruleset.toml."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise InputError(f"{path}: cannot read ruleset manifest ({err})") from None
    for key in ("id", "name", "version", "api"):
        if key not in data:
            raise InputError(f"{path}: missing {key!r}")
    for key, kind, said in (("id", str, "a string"), ("name", str, "a string"),
                            ("version", str | int | float, "a string"),
                            ("api", int, "an integer"), ("grid", dict, "a table ([grid])")):
        value = data.get(key)
        if key in data and (isinstance(value, bool) or not isinstance(value, kind)):
            raise InputError(f"{path}: {key}: expected {said}, got {shown(value)}")
    if not isinstance(data["id"], str) or not _ID.fullmatch(data["id"]):
        raise InputError(f"{path}: ruleset id {data['id']!r} must be lower-case letters, digits "
                         "and _, starting with a letter (rename the folder and the id)")
    if data["id"] != path.parent.name:
        raise InputError(f"{path}: id {data['id']!r} must match its folder name")
    if data["api"] > API_VERSION:
        raise InputError(f"{path}: written for ruleset API {data['api']}, newer than this "
                         f"tacmap's API {API_VERSION}: update tacmap to load it "
                         "(rulesets/GUIDE.md, 'API versions')")
    if data["api"] < OLDEST_API:
        raise InputError(f"{path}: written for ruleset API {data['api']}; this tacmap offers "
                         f"API {API_VERSION} and still loads API {OLDEST_API} "
                         "(rulesets/GUIDE.md, 'API versions')")
    diagonal = data.get("grid", {}).get("diagonal", "rectilinear")
    if diagonal not in DIAGONAL_RULES:
        raise InputError(f"{path}: grid.diagonal must be one of {', '.join(DIAGONAL_RULES)}")
    unit = data.get("grid", {}).get("unit", "m")
    size = data.get("grid", {}).get("cell_size", 1)
    if unit not in UNITS:
        raise InputError(f"{path}: grid.unit must be one of {', '.join(UNITS)}")
    if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
        raise InputError(f"{path}: grid.cell_size must be a number above 0")
    return Manifest(id=data["id"], name=str(data["name"]), version=str(data["version"]),
                    folder=path.parent, builtin=builtin, diagonal=diagonal, data=data,
                    units=Units(unit, float(size)), options=_options(path, data))


def _options(path: Path, data: dict[str, Any]) -> dict[str, HouseOption]:
    try:
        return read_options(data)
    except InputError as err:
        raise InputError(f"{path.parent.name}/{err}") from None


#: Ruleset packages already run in this process, by folder: running one twice would
#: register its records twice (and is wasted work for every new Registry).
_PACKAGES: dict[Path, ModuleType] = {}


def _package(manifest: Manifest) -> str:
    """Import the ruleset folder as a package (once) and return its module name."""
    folder = manifest.folder.resolve()
    known = _PACKAGES.get(folder)
    if known is not None:
        return known.__name__
    base = name = f"tacmap_ruleset_{manifest.id}"
    n = 1
    while name in sys.modules:  # the same id from another folder (a user's copy)
        n += 1
        name = f"{base}_{n}"
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [str(folder)]
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    _PACKAGES[folder] = package
    if not manifest.builtin:
        _SOURCE_ONLY.add(name)
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
    return name


#: Packages of user rulesets: their modules are read from source only (``_SourceFinder``).
_SOURCE_ONLY: set[str] = set()


class _SourceOnly(importlib.machinery.SourceFileLoader):
    """Compiles a module from its ``.py`` file every time: no bytecode read or written.

    The window trusts a user's folder by the hash of its files; a planted
    ``__pycache__/rules.cpython-311.pyc`` would run without changing ``rules.py``.
    """

    def get_code(self, fullname: str) -> Any:
        """The module's code, compiled from the source file."""
        path = self.get_filename(fullname)
        return compile(self.get_data(path), path, "exec", dont_inherit=True)


class _SourceFinder:
    """Finds the modules of a user's ruleset package as ``.py`` files and folders only.

    Nothing else in the folder can be imported (no ``.pyc``, no compiled extension).
    (A finder on ``sys.meta_path`` needs only ``find_spec``: deriving from
    ``importlib.abc.MetaPathFinder`` would import ``importlib.resources`` at every start.)
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for ``fullname`` inside a user's ruleset, or None for any other module."""
        if fullname.partition(".")[0] not in _SOURCE_ONLY or "." not in fullname or not path:
            return None
        leaf = fullname.rpartition(".")[2]
        for where in path:
            base = Path(where, leaf)
            init = base / "__init__.py"
            if init.is_file():
                return importlib.util.spec_from_file_location(
                    fullname, init, loader=_SourceOnly(fullname, str(init)),
                    submodule_search_locations=[str(base)])
            if base.with_suffix(".py").is_file():
                source = str(base.with_suffix(".py"))
                return importlib.util.spec_from_file_location(
                    fullname, source, loader=_SourceOnly(fullname, source))
        for where in path:
            if Path(where, leaf).is_dir():  # a folder without __init__.py: a namespace
                spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
                spec.submodule_search_locations = [str(Path(where, leaf))]
                return spec
        raise ModuleNotFoundError(f"No module named {fullname!r} (a ruleset folder's modules "
                                  "are .py files)", name=fullname)


_FINDER = _SourceFinder()


def _own_module(manifest: Manifest, module: str) -> ModuleType | None:
    """The module ``module`` of the ruleset package loaded for ``manifest``, or None when the
    folder has none (or was never loaded as a package: a ruleset built in a test)."""
    package = _PACKAGES.get(manifest.folder.resolve())
    if package is None:
        return None
    name = f"{package.__name__}.{module}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:  # the module is there; something it imports is not
            raise
        return None


def _load_rules(manifest: Manifest) -> Ruleset:
    path = (manifest.folder / "rules.py").resolve()
    if not path.is_file():
        raise InputError(f"ruleset {manifest.id!r} has no rules.py in {manifest.folder}")
    if manifest.data.get("api") == 1:
        # Only an API 1 plug-in gets the engine's old module paths, and only from then on.
        from tacmap.engine.rules.old_paths import allow_api_1
        allow_api_1()
    module = importlib.import_module(f"{_package(manifest)}.rules")
    create = getattr(module, "create", None)
    if create is None:
        raise InputError(f"{path}: defines no create(manifest) function")
    ruleset = create(manifest)
    if not isinstance(ruleset, Ruleset):
        raise InputError(f"{path}: create() must return a tacmap Ruleset")
    return ruleset
