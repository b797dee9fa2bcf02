"""The ``action_pool`` ruleset (seed 004): two actions a turn and a combat dice pool.

README.md gives every rule with the seed's words and each choice made where the
seed is silent; ruleset.toml holds every number. The turn order lives in
``state.schedule`` (an ``OrderedTurns``) and everything else the rules track
lives in ``token.values``, both changed only through events, so undo, redo
and replay are exact. The token values:

* ``pool``: dice in the combat pool.
* ``faces``: the last pool roll, left to right.
* ``weapon``: the weapon in hand once it differs from the stat block's.
* ``prepared``: prepared actions, each ``(do, trigger, by, weapon, uses)``.
* ``reacted``: True after a reaction roll; the pool refills when the turn ends.
* ``used``: reaction abilities used, each ``(ability, round, times)``.
* ``move_mod``: metres added to each move action by a spell or effect (GM-set).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from tacmap.engine import grid, odds
from tacmap.engine.commands import Act, Attack, Command, EndTurn, Move, Reorder, StartCombat
from tacmap.engine.dice import MAX_DICE, Roll
from tacmap.engine.errors import InputError, RuleError
from tacmap.engine.events import (
    ConditionChanged,
    HpChanged,
    LeftReach,
    RoundChanged,
    Said,
    ScheduleChanged,
    TokenMoved,
    ValueChanged,
    condition_change,
)
from tacmap.engine.geometry import line_of_sight
from tacmap.engine.movement import MovePlan
from tacmap.engine.records import Json
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import Manifest, Resolution, Ruleset, token_error
from tacmap.engine.schedule import OrderedTurns
from tacmap.engine.state import Cell, Encounter, MapSpec, Token
from tacmap.engine.views import (
    ActionOption,
    Odds,
    OrderRow,
    PoolView,
    Preview,
    RowState,
    TurnOrder,
)

#: What a stat block may hold besides the stats named in ruleset.toml.
GEAR_KEYS = ("weapon", "weapons", "proficiency", "armour", "abilities")
ABILITY_KINDS = ("action", "passive", "reaction")
#: Effects each kind of ability may have ("" for a passive: it only changes numbers).
EFFECTS = {"action": ("attack", "heal"), "reaction": ("attack", "dodge"), "passive": ("",)}
#: What an action is aimed at, as the app offers it.
Aim = Literal["none", "token", "cell"]
DEAD = "dead"
#: A prepared dodge that answers an attack with any weapon.
ANY = "any"
PREPARED = "prepared"
#: Bench timing budgets from DESIGN §7, in milliseconds (p95).
ATTACK_BUDGET_MS = 5.0
ODDS_BUDGET_MS = 20.0


# --------------------------------------------------------------------------- data


class _Table:
    """One TOML table, read with checks that name the key at fault."""

    def __init__(self, data: Mapping[str, Any], where: str) -> None:
        if not isinstance(data, Mapping):
            raise InputError(f"ruleset.toml: [{where}] must be a table")
        self.data = data
        self.where = where

    def _get(self, key: str, default: Any) -> Any:
        if key in self.data:
            return self.data[key]
        if default is None:
            raise InputError(f"ruleset.toml: [{self.where}] needs {key!r}")
        return default

    def int(self, key: str, default: int | None = None, lo: int = -1000, hi: int = 1000) -> int:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise InputError(f"ruleset.toml: {self.where}.{key} must be a whole number "
                             f"from {lo} to {hi}")
        return value

    def num(self, key: str, default: float | None = None) -> float:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0 <= value <= 10_000:
            raise InputError(f"ruleset.toml: {self.where}.{key} must be a number from 0 to 10000")
        return float(value)

    def text(self, key: str, default: str | None = None,
             choices: Sequence[str] | None = None) -> str:
        value = self._get(key, default)
        if not isinstance(value, str) or (choices is not None and value not in choices):
            allowed = f" (one of {', '.join(repr(c) for c in choices)})" if choices else ""
            raise InputError(f"ruleset.toml: {self.where}.{key} must be text{allowed}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise InputError(f"ruleset.toml: {self.where}.{key} must be true or false")
        return value

    def table(self, key: str) -> _Table:
        return _Table(self._get(key, {}), f"{self.where}.{key}" if self.where else key)

    def names(self) -> list[str]:
        return list(self.data)


@dataclass(frozen=True)
class Stat:
    """One stat of the stat block: its range and the value a token without it gets."""

    name: str
    lo: int
    hi: int
    default: int


@dataclass(frozen=True)
class Weapon:
    """A row of the weapons table."""

    key: str
    name: str
    stat: str
    """Proficiency stat: with the weapon proficiency it sets the pool size."""
    damage_die: int
    damage_stat: str
    """Stat added to damage, or "" when the weapon does not allow it."""
    reach: float
    """Metres edge to edge; the range of a ranged weapon."""
    ranged: bool


@dataclass(frozen=True)
class Armour:
    """A row of the armour table."""

    key: str
    name: str
    move_penalty: float
    """Metres taken off each move action."""


@dataclass(frozen=True)
class Ability:
    """An ability, as data (see ruleset.toml for what each field does)."""

    key: str
    name: str
    kind: str
    effect: str
    trigger: str
    actions: int
    discard: int
    dt: int
    extra_dice: int
    damage: int
    ac: int
    move: float
    refill: int
    per_round: int
    heal_die: int
    reach: float
    text: str


@dataclass(frozen=True)
class Data:
    """Everything ruleset.toml says, checked once when the ruleset loads."""

    actions: int
    metres_per_action: float
    free_moves_before_combat: bool
    die: int
    success_at: int
    success_on_equal: bool
    min_dt: int
    weapon_change: str
    costs: Mapping[str, int]
    dodge_stat: str
    dodge_divisor: int
    prepare_uses: int
    triggers: Mapping[str, str]
    hp_floor: int
    stats: Mapping[str, Stat]
    default_weapon: str
    default_armour: str
    max_proficiency: int
    weapons: Mapping[str, Weapon]
    armour: Mapping[str, Armour]
    abilities: Mapping[str, Ability]

    @classmethod
    def read(cls, raw: Mapping[str, Any]) -> Data:
        top = _Table(raw, "")
        turn, pool, test = top.table("turn"), top.table("pool"), top.table("test")
        stats = {}
        for name in top.table("stats").names():
            t = top.table("stats").table(name)
            lo, hi = t.int("min", 0, 0, 1000), t.int("max", 20, 0, 1000)
            stats[name] = Stat(name, lo, hi, t.int("default", lo, lo, hi))
        for name in ("con", "ac"):
            if name not in stats:
                raise InputError(f"ruleset.toml: the stat block needs [stats.{name}]")
        stat_names = tuple(stats)
        die = pool.int("die", None, 2, 1000)
        weapons = {}
        for key in top.table("weapons").names():
            if key == ANY:
                raise InputError(f"ruleset.toml: {ANY!r} means any weapon; name it otherwise")
            t = top.table("weapons").table(key)
            weapons[key] = Weapon(key, t.text("name", key), t.text("stat", None, stat_names),
                                  t.int("damage_die", None, 2, 1000),
                                  t.text("damage_stat", "", ("", *stat_names)),
                                  t.num("reach", 1), t.flag("ranged", False))
        armour = {}
        for key in top.table("armour").names():
            t = top.table("armour").table(key)
            armour[key] = Armour(key, t.text("name", key), t.num("move_penalty", 0))
        triggers = {k: top.table("prepare").table("triggers").text(k)
                    for k in top.table("prepare").table("triggers").names()}
        for needed in ("attacks", "leaves_reach", "enters_reach"):
            if needed not in triggers:
                raise InputError(f"ruleset.toml: [prepare.triggers] needs {needed!r}")
        abilities = {}
        for key in top.table("abilities").names():
            t = top.table("abilities").table(key)
            kind = t.text("kind", None, ABILITY_KINDS)
            effect = t.text("effect", "", EFFECTS[kind])
            trigger = t.text("trigger", "", tuple(triggers)) if kind == "reaction" else ""
            if kind == "reaction" and not trigger:
                raise InputError(f"ruleset.toml: abilities.{key} is a reaction and needs a trigger")
            if kind == "reaction" and effect == "dodge" and trigger != "attacks":
                raise InputError(f"ruleset.toml: abilities.{key}: a dodge answers 'attacks'")
            abilities[key] = Ability(
                key, t.text("name", key), kind, effect, trigger,
                t.int("actions", 1, 1, 100), t.int("discard", 0, 0, 1000),
                t.int("dt", 0), t.int("extra_dice", 0, 0, 100), t.int("damage", 0),
                t.int("ac", 0), t.num("move", 0), t.int("refill", 0, 0, 100),
                t.int("per_round", 0, 0, 100), t.int("heal_die", die, 2, 1000),
                t.num("reach", 1), t.text("text", ""))
        defaults, costs, prepare = top.table("defaults"), top.table("costs"), top.table("prepare")
        data = cls(
            actions=turn.int("actions", None, 1, 100),
            metres_per_action=turn.num("metres_per_move_action"),
            free_moves_before_combat=turn.flag("free_moves_before_combat", True),
            die=die,
            success_at=pool.int("success_at", None, 1, die),
            success_on_equal=test.flag("success_on_equal", True),
            min_dt=test.int("min_dt", 0),
            weapon_change=top.table("weapon_change").text("pool", "shift", ("shift", "rebuild")),
            costs={k: costs.int(k, 1, 1, 100)
                   for k in ("attack", "prepare", "skill", "generic", "wield")},
            dodge_stat=prepare.text("dodge_stat", None, stat_names),
            dodge_divisor=prepare.int("dodge_divisor", 2, 1, 100),
            prepare_uses=prepare.int("uses", 1, 1, 100),
            triggers=triggers,
            hp_floor=top.table("hp").int("floor", 0, -1000, 0),
            stats=stats,
            default_weapon=defaults.text("weapon", None, tuple(weapons)),
            default_armour=defaults.text("armour", None, tuple(armour)),
            max_proficiency=defaults.int("max_proficiency", 5, 0, 100),
            weapons=weapons, armour=armour, abilities=abilities)
        return data


# --------------------------------------------------------------------------- small helpers


def _plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _faces(faces: Sequence[int]) -> str:
    return " ".join(map(str, faces)) if faces else "none"


def _whole(value: Json, what: str) -> int:
    """A value the GM may have set by hand, as a whole number or a clear refusal."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise RuleError(f"{what} is {value!r}, not a whole number; set it again")
    return int(value)


@dataclass(frozen=True)
class Prepared:
    """One prepared action: "if <by> <trigger> [with <weapon>], I will <do>"."""

    do: str
    """"dodge", "attack" or an action ability's key."""
    trigger: str
    by: str
    """Token id whose action sets it off."""
    weapon: str = ANY
    """For a dodge: only an attack with this weapon (``ANY`` for any)."""
    uses: int = 1

    def value(self) -> tuple[str, str, str, str, int]:
        return (self.do, self.trigger, self.by, self.weapon, self.uses)


@dataclass(frozen=True)
class Dodge:
    """AC a defender gains against one attack, and where it comes from."""

    ac: int
    prepared: int
    """Index in the defender's prepared actions, or -1 for a reaction ability."""
    ability: Ability | None
    label: str


@dataclass(frozen=True)
class Strike:
    """An attack worked out before any die is thrown (shared by execute and preview)."""

    attacker: str
    defender: str
    weapon: Weapon
    ability: Ability | None
    pool: int
    proficiency: int
    ac: int
    dodge: Dodge | None
    dt: int
    dt_text: str
    damage_dice: int
    """Damage dice on top of the margin: weapon proficiency plus any ability's."""
    flat: int
    flat_text: str
    discard: int


# --------------------------------------------------------------------------- the ruleset


class ActionPool(Ruleset):
    """Seed 004: the GM's turn order, two actions a turn, a pool that drains and refills."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        self.data = Data.read(manifest.data)
        self._check_stat_block()

    # --- the stat block ------------------------------------------------------

    def check_token(self, token: Token) -> None:
        # Types, ranges and names come from [stat_block.*] (the base class); what
        # ties one stat to another, or to the token, is checked here.
        super().check_token(token)
        stats = token.stats
        weapon = stats.get("weapon", self.data.default_weapon)
        carried = stats.get("weapons")
        problems = []
        if "weapon" in stats and carried and weapon not in carried:
            problems.append(f"the weapon in hand, {weapon!r}, is not among the weapons "
                            "carried")
        if token.max_hp < 1:
            problems.append(f"max_hp must be at least 1, not {token.max_hp}")
        if problems:
            raise token_error(token, problems)

    def _check_stat_block(self) -> None:
        """Refuse a [stat_block] that says other than the tables the rules read."""
        d = self.data
        fields = {f.key: f for f in self.stat_fields()}

        def differ(where: str, block: object, rules: object, rules_key: str) -> InputError:
            return InputError(f"ruleset.toml: stat_block.{where} is {block!r} but "
                              f"{rules_key} is {rules!r}; make them the same")

        for key in (*d.stats, *GEAR_KEYS):
            if key not in fields:
                raise InputError(f"ruleset.toml: the stat block needs [stat_block.{key}]")
        for key in sorted(set(fields) - {*d.stats, *GEAR_KEYS}):
            raise InputError(f"ruleset.toml: stat_block.{key} is not a stat the rules read")
        kinds = {**dict.fromkeys(d.stats, "int"), "weapon": "choice", "armour": "choice",
                 "weapons": "choices", "abilities": "choices", "proficiency": "table"}
        tables = {"weapon": d.weapons, "weapons": d.weapons, "proficiency": d.weapons,
                  "armour": d.armour, "abilities": d.abilities}
        for key, kind in kinds.items():
            f = fields[key]
            if f.kind != kind:
                raise InputError(f"ruleset.toml: stat_block.{key}.kind must be {kind!r}")
            stray = [c for c in f.choices if c not in tables.get(key, {})]
            if stray:
                raise InputError(f"ruleset.toml: stat_block.{key} offers {stray[0]!r}, "
                                 "which the rules' tables do not have")
        for s in d.stats.values():
            f = fields[s.name]
            for name, block, rules in (("min", f.min, s.lo), ("max", f.max, s.hi),
                                       ("default", f.default, s.default)):
                if block != rules:
                    raise differ(f"{s.name}.{name}", block, rules, f"stats.{s.name}.{name}")
        pairs = (("weapon.default", fields["weapon"].default, d.default_weapon,
                  "defaults.weapon"),
                 ("armour.default", fields["armour"].default, d.default_armour,
                  "defaults.armour"),
                 ("proficiency.max", fields["proficiency"].max, d.max_proficiency,
                  "defaults.max_proficiency"))
        for where, block, rules, rules_key in pairs:
            if block != rules:
                raise differ(where, block, rules, rules_key)

    def _stat(self, token: Token, name: str) -> int:
        value = token.stats.get(name)
        if value is None:
            spec = self.data.stats.get(name)
            return spec.default if spec else 0
        return _whole(value, f"{token.name}'s {name.upper()}")

    def _weapon(self, token: Token) -> Weapon:
        key = token.values.get("weapon") or token.stats.get("weapon") or self.data.default_weapon
        return self.data.weapons.get(str(key)) or self.data.weapons[self.data.default_weapon]

    def _proficiency(self, token: Token, weapon: Weapon) -> int:
        table = token.stats.get("proficiency")
        if not isinstance(table, dict):
            return 0
        return _whole(table.get(weapon.key, 0), f"{token.name}'s {weapon.name} proficiency")

    def _pool_base(self, token: Token, weapon: Weapon) -> tuple[int, str]:
        """Dice pool = proficiency stat + weapon proficiency, with the sum in words."""
        stat, prof = self._stat(token, weapon.stat), self._proficiency(token, weapon)
        return stat + prof, f"{weapon.stat.upper()} {stat} + {weapon.name} proficiency {prof}"

    def _abilities(self, token: Token, kind: str = "") -> list[Ability]:
        keys = token.stats.get("abilities", ())
        found = [self.data.abilities[k] for k in keys if k in self.data.abilities] \
            if isinstance(keys, tuple) else []
        return [a for a in found if not kind or a.kind == kind]

    def _ac(self, token: Token) -> int:
        return self._stat(token, "ac") + sum(a.ac for a in self._abilities(token, "passive"))

    def _refill(self, token: Token) -> tuple[int, str]:
        con = self._stat(token, "con")
        extra = [a for a in self._abilities(token, "passive") if a.refill]
        text = f"CON {con}" + "".join(f" + {a.refill} {a.name}" for a in extra)
        return con + sum(a.refill for a in extra), text

    def _pool(self, token: Token) -> int:
        return max(0, _whole(token.values.get("pool", 0), f"{token.name}'s pool"))

    def metres_per_action(self, token: Token) -> float:
        """Metres one move action takes ``token``: base, less armour, plus effects."""
        d = self.data
        armour = d.armour.get(str(token.stats.get("armour", d.default_armour)),
                              d.armour[d.default_armour])
        bonus = sum(a.move for a in self._abilities(token, "passive"))
        mod = token.values.get("move_mod", 0)
        if isinstance(mod, bool) or not isinstance(mod, int | float):
            raise RuleError(f"{token.name}'s move_mod is {mod!r}, not a number of metres")
        return max(0.0, d.metres_per_action - armour.move_penalty + bonus + float(mod))

    @staticmethod
    def _prepared(token: Token) -> list[Prepared]:
        # Entries the GM mangled by hand are skipped rather than crashing every action.
        out = []
        entries = token.values.get(PREPARED)
        for entry in entries if isinstance(entries, tuple) else ():
            if isinstance(entry, tuple) and len(entry) == 5 and isinstance(entry[4], int):
                out.append(Prepared(str(entry[0]), str(entry[1]), str(entry[2]), str(entry[3]),
                                    entry[4]))
        return out

    @staticmethod
    def _used(token: Token) -> list[tuple[str, int, int]]:
        entries = token.values.get("used")
        return [(str(e[0]), int(e[1]), int(e[2]))
                for e in (entries if isinstance(entries, tuple) else ())
                if isinstance(e, tuple) and len(e) == 3
                and isinstance(e[1], int) and isinstance(e[2], int)]

    def _prepared_text(self, state: Encounter, p: Prepared) -> str:
        by = state.tokens[p.by].name if p.by in state.tokens else p.by
        what = self.data.triggers.get(p.trigger, p.trigger)
        weapon = self.data.weapons.get(p.weapon)
        with_ = f" with {_a(weapon.name)}" if weapon else ""
        if p.do == "dodge":
            response = "dodge"
        elif p.do == "attack":
            response = f"attack {by}"
        else:
            ability = self.data.abilities.get(p.do)
            response = f"use {ability.name if ability else p.do} on {by}"
        return f"if {by} {what}{with_}, I will {response}"

    # --- turns -----------------------------------------------------------------

    @staticmethod
    def _turns(state: Encounter) -> OrderedTurns:
        if not isinstance(state.schedule, OrderedTurns):
            raise RuleError("combat has not started: the GM starts it and sets the order")
        return state.schedule

    @staticmethod
    def _name(state: Encounter, token_id: str | None) -> str:
        if token_id is None:
            return "nobody"
        token = state.tokens.get(token_id)
        return token.name if token else token_id

    def _acting(self, state: Encounter, actor: str) -> Token:
        turns = self._turns(state)
        token = state.token(actor)
        if turns.current != actor:
            raise RuleError(f"it is {self._name(state, turns.current)}'s turn, "
                            f"not {token.name}'s")
        if not token.alive:
            raise RuleError(f"{token.name} is down and cannot act")
        return token

    def _check_actions(self, state: Encounter, token: Token, n: int, what: str) -> None:
        left = self._turns(state).actions_left
        if left == 0:
            raise RuleError(f"{token.name} has no actions left this turn")
        if left < n:
            raise RuleError(f"{token.name} has {_plural(left, 'action')} left this turn; "
                            f"{what} needs {n}")

    def _spend(self, ctx: Resolution, token: Token, n: int, what: str) -> None:
        self._check_actions(ctx.state, token, n, what)
        turns = self._turns(ctx.state)
        new = turns.spend(n, token.id)
        ctx.emit(ScheduleChanged(turns, new, f"{token.name} spends {_plural(n, 'action')} on "
                                             f"{what}: {_plural(new.actions_left, 'action')} left"))

    # --- judging -----------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, Attack):
            self._resolve_attack(ctx, cmd.actor, cmd.target, cmd.weapon, None)
        elif isinstance(cmd, Move):
            self._resolve_move(ctx, cmd)
        elif isinstance(cmd, Act):
            self._resolve_act(ctx, cmd)
        elif isinstance(cmd, EndTurn):
            self._end_turn(ctx, cmd)
        elif isinstance(cmd, StartCombat):
            self._start_combat(ctx, cmd)
        elif isinstance(cmd, Reorder):
            self._reorder(ctx, cmd)
        else:
            super().resolve(ctx, cmd)

    def _start_combat(self, ctx: Resolution, cmd: StartCombat) -> None:
        state = ctx.state
        if state.schedule is not None:
            raise RuleError("combat has already started; the GM can change the order (reorder)")
        order = cmd.order or tuple(t.id for t in state.tokens.values() if t.alive)
        for tid in order:
            if not state.token(tid).alive:
                raise RuleError(f"{state.tokens[tid].name} is down and cannot join the fight")
        turns = OrderedTurns.start(order, self.data.actions)
        ctx.emit(RoundChanged(state.round, 1))
        for tid in order:
            token = state.tokens[tid]
            for key in ("faces", PREPARED, "reacted", "used"):
                if key in token.values:
                    ctx.emit(ValueChanged(tid, key, token.values[key], None, "a new fight"))
            if PREPARED in token.conditions:
                ctx.emit(condition_change(token, PREPARED, False))
            self._build_pool(ctx, token)
        names = ", ".join(self._name(state, t) for t in order)
        ctx.emit(ScheduleChanged(None, turns, f"turn order: {names}; "
                                              f"{self._name(state, turns.current)}'s turn"))

    def _build_pool(self, ctx: Resolution, token: Token) -> None:
        size, how = self._pool_base(token, self._weapon(token))
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), size,
                              f"pool built: {how}"))

    def _reorder(self, ctx: Resolution, cmd: Reorder) -> None:
        """GM override: the order becomes exactly ``cmd.order``; newcomers get a pool."""
        state = ctx.state
        turns = self._turns(state)
        new = tuple(cmd.order)
        for tid in new:
            state.token(tid)
        if not new:
            raise RuleError("the new order is empty")
        changed = turns
        for tid in turns.order:
            if tid in new:
                continue
            token = state.tokens.get(tid)
            if tid == changed.current and token is not None and token.alive:
                raise RuleError(f"{token.name} is taking their turn: end it before "
                                "leaving them out of the order")
            changed = changed.remove(tid)
        joining = [tid for tid in new if tid not in changed.order]
        for tid in joining:
            changed = changed.add(tid)
        changed = changed.reorder(new)
        if changed.round != turns.round:
            ctx.emit(RoundChanged(state.round, changed.round))
        names = ", ".join(self._name(state, t) for t in new)
        ctx.emit(ScheduleChanged(turns, changed, f"the GM sets the order: {names}"))
        for tid in joining:
            if "pool" not in state.tokens[tid].values:
                self._build_pool(ctx, state.tokens[tid])

    def _end_turn(self, ctx: Resolution, cmd: EndTurn) -> None:
        state = ctx.state
        turns = self._turns(state)
        current = turns.current
        if cmd.actor and cmd.actor != current:
            raise RuleError(f"it is {self._name(state, current)}'s turn, "
                            f"not {self._name(state, cmd.actor)}'s")
        token = state.tokens.get(current) if current else None
        if token is not None and token.alive:
            idle = turns.actions_left == turns.actions_per_turn
            self._refill_pool(ctx, token, "end of turn" + (", no action taken" if idle else ""))
        for other in state.tokens.values():
            if other.values.get("reacted") and other.id != current:
                if other.alive:
                    whose = self._name(state, current)
                    self._refill_pool(ctx, other, f"reaction roll, end of {whose}'s turn")
                ctx.emit(ValueChanged(other.id, "reacted", other.values["reacted"], None,
                                      "refilled"))
        if token is not None and token.values.get("reacted"):
            ctx.emit(ValueChanged(token.id, "reacted", token.values["reacted"], None, "refilled"))
        nxt = turns.end_turn()
        # Tokens that are down or gone keep their place but their turns are skipped.
        for _ in range(len(nxt.order)):
            t = state.tokens.get(nxt.current or "")
            if t is not None and t.alive:
                break
            nxt = nxt.end_turn()
        if nxt.round != turns.round:
            ctx.emit(RoundChanged(state.round, nxt.round))
        ctx.emit(ScheduleChanged(turns, nxt, f"{self._name(state, nxt.current)}'s turn "
                                             f"(round {nxt.round})"))
        starting = state.tokens.get(nxt.current or "")
        if starting is not None:
            self._lapse(ctx, starting)

    def _refill_pool(self, ctx: Resolution, token: Token, why: str) -> None:
        old = self._pool(token)
        back, how = self._refill(token)
        new = min(old + back, MAX_DICE)
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), new,
                              f"{why}: {how} {'die comes' if back == 1 else 'dice come'} back"))

    def _lapse(self, ctx: Resolution, token: Token) -> None:
        """Prepared actions last "until your next turn": they lapse as it begins."""
        prepared = self._prepared(token)
        if not prepared:
            return
        texts = "; ".join(f'"{self._prepared_text(ctx.state, p)}"' for p in prepared)
        ctx.emit(ValueChanged(token.id, PREPARED, token.values[PREPARED], None,
                              f"lapses as {token.name}'s turn begins: {texts}"))
        if PREPARED in token.conditions:
            ctx.emit(condition_change(token, PREPARED, False))

    # --- movement ----------------------------------------------------------------

    def reach(self, state: Encounter, token: Token) -> float:
        weapon = self._weapon(token)
        # A bow threatens nobody in melee: leaving an archer's side is not leaving reach.
        return 0.0 if weapon.ranged else weapon.reach

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        if not isinstance(state.schedule, OrderedTurns):
            return None if self.data.free_moves_before_combat else 0.0
        turns = state.schedule
        if turns.current != token.id or not token.alive:
            return 0.0
        return turns.actions_left * self.metres_per_action(token)

    def move_bands(self, state: Encounter, token: Token) -> tuple[float, ...]:
        """Where each move action's metres end: (10, 20) with two actions left."""
        if not isinstance(state.schedule, OrderedTurns):
            return super().move_bands(state, token)
        turns = state.schedule
        if turns.current != token.id or not token.alive:
            return ()
        per = self.metres_per_action(token)
        return tuple(per * n for n in range(1, turns.actions_left + 1)) if per > 0 else ()

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        if isinstance(state.schedule, OrderedTurns):
            turns = state.schedule
            if turns.current != token.id:
                return f"it is {self._name(state, turns.current)}'s turn, not {token.name}'s"
            if not token.alive:
                return f"{token.name} is down and cannot act"
            if turns.actions_left == 0:
                return f"{token.name} has no actions left this turn"
        elif not self.data.free_moves_before_combat:
            return "combat has not started: the GM places tokens with a free move"
        end = plan.cells[-1]
        if len(plan.cells) < 2:
            return f"{token.name} is already at ({end[0]},{end[1]})"
        for other_id in plan.occupants:
            other = state.tokens[other_id]
            if other.alive:
                return f"({end[0]},{end[1]}) is taken by {other.name}"
        return super().move_refusal(state, token, plan)

    def _move_actions(self, token: Token, cost: float) -> int:
        per = self.metres_per_action(token)
        return max(1, math.ceil(cost / per - 1e-9)) if per > 0 else 1

    def _resolve_move(self, ctx: Resolution, cmd: Move) -> None:
        state = ctx.state
        token = state.token(cmd.actor)
        plan = self.plan(state, token, cmd.path)
        reason = plan.blocked or self.move_refusal(state, token, plan)
        if reason:
            raise RuleError(reason)
        combat = isinstance(state.schedule, OrderedTurns)
        if combat:
            n = self._move_actions(token, plan.cost)
            self._spend(ctx, token, n, f"a {plan.cost:g} m move")
        ctx.emit(TokenMoved(token.id, plan.cells, plan.cost))
        for enemy, step in plan.leaves:
            ctx.emit(LeftReach(token.id, enemy, step))
        if combat:
            self._movement_reactions(ctx, token.id, plan.cells)

    def _movement_reactions(self, ctx: Resolution, mover_id: str, cells: Sequence[Cell]) -> None:
        """Prepared attacks and reaction abilities set off by a move, in path order."""
        state = ctx.state
        mover = state.tokens[mover_id]
        rule = state.diagonal
        found: list[tuple[int, int, str, str]] = []
        for order, other in enumerate(state.tokens.values()):
            if other.side == mover.side or not other.alive:
                continue
            waiting = {p.trigger for p in self._prepared(other) if p.by == mover_id}
            waiting |= {a.trigger for a in self._abilities(other, "reaction")}
            if not waiting & {"leaves_reach", "enters_reach"}:
                continue
            reach = self._weapon(other).reach
            inside = [grid.edge_distance(rule, c, mover.size, other.cell, other.size) <= reach
                      for c in cells]
            # A path may come within reach and leave it again: both are triggers.
            entered = 0 if inside[0] else next((i for i, x in enumerate(inside) if x), None)
            if entered is None:
                continue
            if entered > 0 and "enters_reach" in waiting:
                found.append((entered, order, other.id, "enters_reach"))
            left = next((i for i in range(entered + 1, len(cells)) if not inside[i]), None)
            if left is not None and "leaves_reach" in waiting:
                found.append((left, order, other.id, "leaves_reach"))
        for _, _, other_id, trigger in sorted(found):
            # The mover was within reach at that step of the path: no reach check.
            self._react(ctx, other_id, mover_id, trigger, check_reach=False)

    # --- attacks -------------------------------------------------------------------

    def _dodge(self, state: Encounter, defender: Token, attacker: Token,
               weapon: Weapon) -> Dodge | None:
        for i, p in enumerate(self._prepared(defender)):
            if p.do == "dodge" and p.by == attacker.id and p.weapon in (ANY, weapon.key):
                stat = self._stat(defender, self.data.dodge_stat)
                ac = stat // self.data.dodge_divisor
                how = f"{self.data.dodge_stat.upper()} {stat} ÷ {self.data.dodge_divisor}"
                return Dodge(ac, i, None, f"(prepared dodge: {how})")
        for ability in self._abilities(defender, "reaction"):
            if ability.effect == "dodge" and self._ready(state, defender, ability):
                return Dodge(ability.ac, -1, ability, ability.name)
        return None

    def _ready(self, state: Encounter, token: Token, ability: Ability) -> bool:
        if ability.per_round == 0:
            return True
        for key, rnd, times in self._used(token):
            if key == ability.key and rnd == state.round:
                return times < ability.per_round
        return True

    def _strike(self, state: Encounter, attacker: Token, defender: Token, weapon_key: str,
                ability: Ability | None, check_reach: bool = True) -> Strike:
        if defender.id == attacker.id:
            raise RuleError(f"{attacker.name} cannot attack themself")
        if not defender.alive:
            raise RuleError(f"{defender.name} is already down")
        if defender.side == attacker.side:
            raise RuleError(f"{defender.name} is on {attacker.name}'s side")
        weapon = self._weapon(attacker)
        if weapon_key and weapon_key != weapon.key:
            other = self.data.weapons.get(weapon_key)
            if other is None:
                raise RuleError(f"there is no weapon {weapon_key!r} in this ruleset")
            raise RuleError(f"{attacker.name} holds {_a(weapon.name)}, not {_a(other.name)}: "
                            "wield it first (an action)")
        if check_reach:
            gap = grid.edge_distance(state.diagonal, attacker.cell, attacker.size,
                                     defender.cell, defender.size)
            if gap > weapon.reach + 1e-9:
                raise RuleError(f"{defender.name} is {gap:g} m away; {attacker.name}'s "
                                f"{weapon.name} reaches {weapon.reach:g} m")
            if not line_of_sight(self.space.walls(state), attacker, defender):
                raise RuleError(f"a wall stands between {attacker.name} and {defender.name}")
        prof = self._proficiency(attacker, weapon)
        ac = self._ac(defender)
        dodge = self._dodge(state, defender, attacker, weapon)
        shift = ability.dt if ability else 0
        raw = ac + (dodge.ac if dodge else 0) - prof + shift
        dt = max(self.data.min_dt, raw)
        dt_text = f"AC {ac}" + (f" + {dodge.ac} {dodge.label}" if dodge else "") \
            + f" − proficiency {prof}" \
            + (f" {'+' if shift > 0 else '−'} {abs(shift)} {ability.name}"
               if shift and ability else "")
        if dt != raw:
            dt_text += f", no lower than {dt}"
        flat, flat_text = 0, ""
        if weapon.damage_stat:
            value = self._stat(attacker, weapon.damage_stat)
            flat, flat_text = value, f" + {weapon.damage_stat.upper()} {value}"
        if ability and ability.damage:
            flat += ability.damage
            flat_text += f" {ability.damage:+d} {ability.name}"
        extra = ability.extra_dice if ability else 0
        return Strike(attacker.id, defender.id, weapon, ability, self._pool(attacker), prof, ac,
                      dodge, dt, dt_text, prof + extra, flat, flat_text,
                      ability.discard if ability else 0)

    def _succeeds(self, wins: int, dt: int) -> bool:
        return wins >= dt if self.data.success_on_equal else wins > dt

    def _resolve_attack(self, ctx: Resolution, actor: str, target: str, weapon_key: str,
                        ability: Ability | None) -> None:
        state = ctx.state
        attacker = self._acting(state, actor)
        defender = state.token(target)
        cost = ability.actions if ability else self.data.costs["attack"]
        label = ability.name if ability else "an attack"
        self._check_actions(state, attacker, cost, label)
        strike = self._strike(state, attacker, defender, weapon_key, ability)
        self._spend(ctx, attacker, cost, f"{label} on {defender.name}")
        self._do_strike(ctx, strike, reaction=False)
        self._react(ctx, defender.id, attacker.id, "attacks", check_reach=True)

    def _do_strike(self, ctx: Resolution, s: Strike, reaction: bool) -> None:
        state = ctx.state
        attacker, defender = state.tokens[s.attacker], state.tokens[s.defender]
        if s.dodge is not None:
            self._fire_dodge(ctx, defender, attacker, s.dodge)
        word = s.ability.name if s.ability else ("reaction attack" if reaction else "attack")
        roll = ctx.roll(attacker.id, s.pool, self.data.die,
                        f"{word} on {defender.name} with {_a(s.weapon.name)} "
                        f"(DT {s.dt} = {s.dt_text})")
        wins = roll.count(self.data.success_at)
        margin = wins - s.dt
        hit = self._succeeds(wins, s.dt)
        tally = f"{_plural(wins, 'success', 'successes')} against DT {s.dt}"
        the = s.ability.name if s.ability else f"the {word}"
        if hit:
            ctx.emit(Said(f"{the} hits: {tally}, margin {margin}", attacker.id))
            count = margin + s.damage_dice
            rolled = 0
            if count > 0:
                extra = s.damage_dice - s.proficiency
                more = f" + {extra} {s.ability.name}" if s.ability and extra else ""
                dmg = ctx.roll(attacker.id, count, s.weapon.damage_die,
                               f"damage: (margin {margin} + proficiency {s.proficiency}{more})"
                               f"d{s.weapon.damage_die}{s.flat_text}")
                rolled = dmg.total
            total = max(0, rolled + s.flat)
            sums = f"{rolled}{s.flat_text} = {total}" if s.flat_text else f"{total}"
            self._harm(ctx, defender, total, f"{attacker.name}'s {s.weapon.name}: {sums}")
        else:
            ctx.emit(Said(f"{the} misses: {tally}", attacker.id))
        # "Finally, the attacker removes the failure dice from their pool."
        self._drain(ctx, attacker, roll, s.discard, s.ability)
        if reaction:
            self._mark_reacted(ctx, attacker)

    def _harm(self, ctx: Resolution, token: Token, amount: int, why: str) -> None:
        floor = self.data.hp_floor
        new = max(min(floor, token.hp), token.hp - amount)
        ctx.emit(HpChanged(token.id, token.hp, new, why))
        if new <= floor and token.alive:
            ctx.emit(ConditionChanged(token.id, DEAD, True))
            ctx.emit(Said(f"{token.name} drops at {new} HP and is out of the fight", token.id))
            self._maybe_over(ctx)

    def _maybe_over(self, ctx: Resolution) -> None:
        state = ctx.state
        if not isinstance(state.schedule, OrderedTurns):
            return
        sides = {t.side for tid in state.schedule.order
                 if (t := state.tokens.get(tid)) is not None and t.alive}
        if len(sides) == 1:
            ctx.emit(Said(f"everyone still standing is on the {sides.pop()} side"))

    def _drain(self, ctx: Resolution, token: Token, roll: Roll, discard: int,
               ability: Ability | None) -> None:
        at = self.data.success_at
        kept = [f for f in roll.faces if f >= at]
        failed = [f for f in roll.faces if f < at]
        ctx.emit(ValueChanged(token.id, "faces", token.values.get("faces"), roll.faces,
                              f"successes {_faces(kept)}; failures {_faces(failed)}"))
        extra = min(discard, len(kept))
        lost = len(failed) + extra
        if lost == 0:
            return
        parts = []
        if failed:
            parts.append(_plural(len(failed), "failure"))
        if extra:
            parts.append(f"{_plural(extra, 'die', 'dice')} discarded for "
                         f"{ability.name if ability else 'the ability'}")
        verb = "leaves" if lost == 1 else "leave"
        old = self._pool(token)
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), max(0, old - lost),
                              f"{' and '.join(parts)} {verb} the pool"))

    def _mark_reacted(self, ctx: Resolution, token: Token) -> None:
        if not token.values.get("reacted"):
            current = self._name(ctx.state, self._turns(ctx.state).current)
            ctx.emit(ValueChanged(token.id, "reacted", token.values.get("reacted"), True,
                                  f"rolled as a reaction: the pool refills when {current}'s "
                                  "turn ends"))

    def _use(self, ctx: Resolution, token: Token, ability: Ability) -> None:
        rnd = ctx.state.round
        used = [u for u in self._used(token) if u[0] != ability.key]
        times = next((t for k, r, t in self._used(token)
                      if k == ability.key and r == rnd), 0) + 1
        new = (*used, (ability.key, rnd, times))
        limit = f", {times} of {ability.per_round} this round" if ability.per_round else ""
        ctx.emit(ValueChanged(token.id, "used", token.values.get("used"), tuple(new),
                              f"{ability.name} used{limit}"))

    def _fire_dodge(self, ctx: Resolution, defender: Token, attacker: Token, dodge: Dodge) -> None:
        if dodge.ability is None:
            prepared = self._prepared(defender)
            p = prepared[dodge.prepared]
            text = self._prepared_text(ctx.state, p)
            ctx.emit(Said(f'{defender.name}\'s prepared action fires: "{text}": '
                          f"+{dodge.ac} AC against this attack", defender.id))
            self._spend_prepared(ctx, defender, prepared, dodge.prepared, "the dodge")
            return
        ability = dodge.ability
        ctx.emit(Said(f"{defender.name} reacts with {ability.name}: +{dodge.ac} AC against "
                      f"{attacker.name}'s attack", defender.id))
        self._use(ctx, defender, ability)
        if ability.discard:
            old = self._pool(defender)
            new = max(0, old - ability.discard)
            if new != old:
                ctx.emit(ValueChanged(defender.id, "pool", defender.values.get("pool"), new,
                                      f"{_plural(old - new, 'die', 'dice')} discarded for "
                                      f"{ability.name}"))

    def _spend_prepared(self, ctx: Resolution, token: Token, prepared: list[Prepared],
                        index: int, what: str) -> None:
        p = prepared[index]
        rest = [*prepared[:index], *([replace(p, uses=p.uses - 1)] if p.uses > 1 else []),
                *prepared[index + 1:]]
        new = tuple(x.value() for x in rest) or None
        ctx.emit(ValueChanged(token.id, PREPARED, token.values.get(PREPARED), new,
                              f"{what} is used"))
        if new is None and PREPARED in token.conditions:
            ctx.emit(condition_change(token, PREPARED, False))

    def _react(self, ctx: Resolution, reactor_id: str, trigger_id: str, trigger: str,
               check_reach: bool) -> None:
        """One reaction by ``reactor_id`` to ``trigger_id`` doing ``trigger``, if any waits.

        Reactions never set off further reactions, so a chain cannot run away;
        a dodge still applies to a reaction attack.
        """
        state = ctx.state
        reactor, mover = state.tokens.get(reactor_id), state.tokens.get(trigger_id)
        if reactor is None or mover is None or not reactor.alive or not mover.alive:
            return
        prepared = self._prepared(reactor)
        for i, p in enumerate(prepared):
            if p.do == "dodge" or p.trigger != trigger or p.by != trigger_id:
                continue
            ability = self.data.abilities.get(p.do)
            text = self._prepared_text(state, p)
            try:
                strike = self._strike(state, reactor, mover, "", ability, check_reach)
            except RuleError as err:
                ctx.emit(Said(f'{reactor.name} cannot follow through on "{text}": {err}',
                              reactor.id))
                return
            ctx.emit(Said(f'{reactor.name}\'s prepared action fires: "{text}"', reactor.id))
            self._spend_prepared(ctx, reactor, prepared, i, "the prepared action")
            self._do_strike(ctx, strike, reaction=True)
            return
        for ability in self._abilities(reactor, "reaction"):
            if ability.effect != "attack" or ability.trigger != trigger \
                    or not self._ready(state, reactor, ability):
                continue
            try:
                strike = self._strike(state, reactor, mover, "", ability, check_reach)
            except RuleError:
                continue  # a reflex that cannot land (out of reach, no sight) simply does not fire
            ctx.emit(Said(f'{reactor.name} reacts with {ability.name}: "when '
                          f'{mover.name} {self.data.triggers[trigger]}"', reactor.id))
            self._use(ctx, reactor, ability)
            self._do_strike(ctx, strike, reaction=True)
            return

    # --- other actions ---------------------------------------------------------------

    def _resolve_act(self, ctx: Resolution, cmd: Act) -> None:
        head, _, tail = cmd.action.partition(":")
        if head == "wield":
            self._wield(ctx, cmd.actor, tail or cmd.detail)
        elif head == "prepare":
            self._prepare(ctx, cmd, tail)
        elif head in ("skill", "generic", "long_action"):
            self._plain_action(ctx, cmd, head)
        elif head in self.data.abilities:
            self._use_ability(ctx, cmd, self.data.abilities[head])
        else:
            known = ", ".join(("wield", "prepare", "skill", "generic", "long_action",
                               *(a.key for a in self.data.abilities.values()
                                 if a.kind == "action")))
            raise RuleError(f"there is no action {cmd.action!r} (actions: {known})")

    def _wield(self, ctx: Resolution, actor: str, key: str) -> None:
        state = ctx.state
        combat = isinstance(state.schedule, OrderedTurns)
        token = self._acting(state, actor) if combat else state.token(actor)
        weapon = self.data.weapons.get(key.strip())
        if weapon is None:
            raise RuleError(f"say which weapon to wield: {', '.join(self.data.weapons)}")
        carried = token.stats.get("weapons")
        # An empty list reads like a missing one: a form shows every field, and a
        # token that carries "nothing listed" must still be able to wield.
        if isinstance(carried, tuple) and carried and weapon.key not in carried:
            raise RuleError(f"{token.name} carries no {weapon.name} "
                            f"(carried: {', '.join(carried)})")
        old = self._weapon(token)
        if weapon.key == old.key:
            raise RuleError(f"{token.name} already holds {_a(weapon.name)}")
        if combat:
            self._spend(ctx, token, self.data.costs["wield"], f"wielding {_a(weapon.name)}")
        ctx.emit(ValueChanged(token.id, "weapon", token.values.get("weapon"), weapon.key,
                              f"puts away the {old.name} and takes up the {weapon.name}"))
        if "pool" not in token.values:
            return
        before, _ = self._pool_base(token, old)
        after, how = self._pool_base(token, weapon)
        pool = self._pool(token)
        if self.data.weapon_change == "rebuild":
            new, note = after, f"pool rebuilt for the {weapon.name}: {how}"
        else:
            new = max(0, pool - before + after)
            note = f"pool follows the weapon: {pool} − {before} + {after} ({how})"
        if new != pool:
            ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), new, note))

    def _prepare(self, ctx: Resolution, cmd: Act, tail: str) -> None:
        state = ctx.state
        token = self._acting(state, cmd.actor)
        spec = tail or cmd.detail
        parts = [p.strip() for p in spec.split(":")] if spec.strip() else []
        if not parts:
            raise RuleError("say what to prepare: prepare:dodge, prepare:attack:TRIGGER or "
                            f"prepare:ABILITY:TRIGGER (triggers: {', '.join(self.data.triggers)})")
        do = parts[0]
        if not cmd.target:
            raise RuleError("a prepared action waits for someone: name them as the target")
        by = state.token(cmd.target)
        if by.id == token.id:
            raise RuleError(f"{token.name} cannot prepare against their own actions")
        if not by.alive:
            raise RuleError(f"{by.name} is down")
        if by.side == token.side:
            raise RuleError(f"{by.name} is on {token.name}'s side")
        weapon = ANY
        if do == "dodge":
            trigger = "attacks"
            weapon = (parts[1] if len(parts) > 1 else (cmd.detail.strip() if tail else "")) or ANY
            if weapon != ANY and weapon not in self.data.weapons:
                raise RuleError(f"there is no weapon {weapon!r} to dodge")
        else:
            if do != "attack":
                ability = self.data.abilities.get(do)
                if ability is None or ability.kind != "action" or ability.effect != "attack":
                    raise RuleError(f"{do!r} cannot be prepared: prepare a dodge, an attack or "
                                    "an attacking action ability")
                if ability not in self._abilities(token):
                    raise RuleError(f"{token.name} does not have {ability.name}")
            trigger = parts[1] if len(parts) > 1 else (cmd.detail.strip() if tail else "")
            if trigger not in self.data.triggers:
                raise RuleError(f"say what sets it off: {', '.join(self.data.triggers)}")
        entry = Prepared(do, trigger, by.id, weapon, self.data.prepare_uses)
        prepared = self._prepared(token)
        if any(replace(p, uses=entry.uses) == entry for p in prepared):
            raise RuleError(f'{token.name} has already prepared "'
                            f'{self._prepared_text(state, entry)}"')
        self._spend(ctx, token, self.data.costs["prepare"], "preparing")
        text = self._prepared_text(state, entry)
        ctx.emit(ValueChanged(token.id, PREPARED, token.values.get(PREPARED),
                              tuple(p.value() for p in (*prepared, entry)), text))
        if PREPARED not in token.conditions:
            ctx.emit(ConditionChanged(token.id, PREPARED, True))

    def _plain_action(self, ctx: Resolution, cmd: Act, kind: str) -> None:
        token = self._acting(ctx.state, cmd.actor)
        what = cmd.detail.strip()
        if kind == "long_action":
            turns = self._turns(ctx.state)
            if turns.actions_left < turns.actions_per_turn:
                raise RuleError(f"{token.name} has already acted this turn; an action of more "
                                "than 5 s takes the whole turn")
            self._spend(ctx, token, turns.actions_left, f"a long action ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} spends the whole turn: {what or 'a long action'} "
                          "(the GR says if it runs on into later turns)", token.id))
            return
        cost = self.data.costs[kind]
        if kind == "skill":
            self._spend(ctx, token, cost, f"a skill ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} uses a skill: {what or 'unnamed'} "
                          "(the GR sets any test)", token.id))
        else:
            self._spend(ctx, token, cost, f"an action ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} does something quick: {what or 'a generic action'}",
                          token.id))

    def _use_ability(self, ctx: Resolution, cmd: Act, ability: Ability) -> None:
        state = ctx.state
        token = self._acting(state, cmd.actor)
        if ability not in self._abilities(token):
            raise RuleError(f"{token.name} does not have {ability.name}")
        if ability.kind == "passive":
            raise RuleError(f"{ability.name} is passive: it is always on")
        if ability.kind == "reaction":
            raise RuleError(f"{ability.name} is a reaction: it fires by itself when someone "
                            f"{self.data.triggers[ability.trigger]}")
        if not cmd.target and ability.effect == "attack":
            raise RuleError(f"{ability.name} needs a target")
        if ability.effect == "attack":
            self._resolve_attack(ctx, cmd.actor, cmd.target, "", ability)
            return
        self._heal(ctx, token, state.token(cmd.target or token.id), ability)

    def _heal(self, ctx: Resolution, token: Token, target: Token, ability: Ability) -> None:
        state = ctx.state
        if not target.alive:
            raise RuleError(f"{target.name} is down; {ability.name} cannot reach them")
        if target.side != token.side:
            raise RuleError(f"{target.name} is not on {token.name}'s side")
        gap = grid.edge_distance(state.diagonal, token.cell, token.size, target.cell, target.size)
        if target.id != token.id and gap > ability.reach + 1e-9:
            raise RuleError(f"{target.name} is {gap:g} m away; {ability.name} reaches "
                            f"{ability.reach:g} m")
        self._check_actions(state, token, ability.actions, ability.name)
        self._spend(ctx, token, ability.actions, f"{ability.name} on {target.name}")
        dt = max(self.data.min_dt, ability.dt)
        roll = ctx.roll(token.id, self._pool(token), self.data.die,
                        f"{ability.name} on {target.name} (DT {dt})")
        wins = roll.count(self.data.success_at)
        tally = f"{_plural(wins, 'success', 'successes')} against DT {dt}"
        if self._succeeds(wins, dt):
            margin = wins - dt
            ctx.emit(Said(f"{ability.name} works: {tally}, margin {margin}", token.id))
            count = margin + ability.extra_dice
            rolled = 0
            if count > 0:
                rolled = ctx.roll(token.id, count, ability.heal_die,
                                  f"healing: (margin {margin} + {ability.extra_dice})"
                                  f"d{ability.heal_die}").total
            new = min(target.max_hp, target.hp + max(0, rolled + ability.damage))
            if new > target.hp:
                ctx.emit(HpChanged(target.id, target.hp, new, ability.name))
            else:
                ctx.emit(Said(f"{target.name} is unhurt: {ability.name} heals nothing",
                              target.id))
        else:
            ctx.emit(Said(f"{ability.name} fails: {tally}", token.id))
        self._drain(ctx, token, roll, ability.discard, ability)

    # --- what the panels and the map ask ------------------------------------------

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if isinstance(cmd, Attack):
            return self._preview_strike(state, cmd.actor, cmd.target, cmd.weapon, None)
        if isinstance(cmd, Act):
            ability = self.data.abilities.get(cmd.action)
            if ability is not None and ability.kind == "action" and ability.effect == "attack":
                return self._preview_strike(state, cmd.actor, cmd.target, "", ability)
        return super().preview(state, cmd, version)

    def _preview_strike(self, state: Encounter, actor: str, target: str, weapon: str,
                        ability: Ability | None) -> Preview:
        try:
            attacker = self._acting(state, actor)
            if ability is not None and ability not in self._abilities(attacker):
                raise RuleError(f"{attacker.name} does not have {ability.name}")
            cost = ability.actions if ability else self.data.costs["attack"]
            self._check_actions(state, attacker, cost, ability.name if ability else "an attack")
            defender = state.token(target)
            strike = self._strike(state, attacker, defender, weapon, ability)
        except RuleError as err:
            return Preview(False, str(err))
        notes = [f"DT {strike.dt} = {strike.dt_text}",
                 f"{attacker.name} rolls {strike.pool}d{self.data.die}; "
                 f"{self.data.success_at}+ is a success"]
        for p in self._prepared(defender):
            if p.do != "dodge" and p.by == attacker.id and p.trigger == "attacks":
                notes.append(f'{defender.name} waits to answer: "{self._prepared_text(state, p)}"')
        return Preview(True, odds=self.strike_odds(strike, defender.hp), notes=tuple(notes))

    def strike_odds(self, s: Strike, target_hp: int) -> Odds:
        """Exact chances: the test succeeds, damage on success, the target drops."""
        die, at = self.data.die, self.data.success_at
        hits = odds.successes(s.pool, die, at)
        first_hit = s.dt if self.data.success_on_equal else s.dt + 1
        success = hits.at_least(first_hit)
        miss = -1  # below any real damage, which never goes under 0

        def damage(wins: int) -> int | odds.Distribution:
            if wins < first_hit:
                return miss
            count = wins - s.dt + s.damage_dice
            total = odds.dice(count, s.weapon.damage_die) + s.flat
            # Damage never goes below 0; only a negative bonus needs the (slower) clamp.
            return total if s.flat >= 0 else total.map(lambda d: max(0, d))

        spread = hits.map(damage).items()
        drop_at = target_hp - self.data.hp_floor
        drop = sum(p for d, p in spread if d != miss and d >= drop_at)
        table = tuple((d, p / success) for d, p in spread if d != miss) if success else ()
        return Odds(success, table, drop)

    def turn_order(self, state: Encounter) -> TurnOrder | None:
        if not isinstance(state.schedule, OrderedTurns):
            return None
        turns = state.schedule
        rows = []
        for i, tid in enumerate(turns.order):
            t = state.tokens.get(tid)
            if t is None:
                rows.append(OrderRow(tid, tid, "", f"#{i + 1}", "out", "removed"))
                continue
            status: RowState = ("out" if not t.alive else "acting" if i == turns.index
                                else "done" if i < turns.index else "waiting")
            detail = [f"pool {t.values.get('pool', 0)}"]
            if status == "acting":
                detail.append(f"{_plural(turns.actions_left, 'action')} left")
            if self._prepared(t):
                detail.append("prepared")
            rows.append(OrderRow(tid, t.name, t.side, f"#{i + 1}", status, ", ".join(detail)))
        return TurnOrder(f"Round {turns.round}", tuple(rows))

    def dice_pools(self, state: Encounter) -> list[PoolView]:
        out = []
        turns = state.schedule if isinstance(state.schedule, OrderedTurns) else None
        for t in state.tokens.values():
            if "pool" not in t.values:
                continue
            faces = tuple(int(f) for f in t.values.get("faces") or ())
            notes = []
            if turns is not None and turns.current == t.id:
                notes.append(f"{_plural(turns.actions_left, 'action')} left")
            if t.values.get("reacted"):
                notes.append("reacted: refills at the end of this turn")
            notes += [f'prepared: "{self._prepared_text(state, p)}"' for p in self._prepared(t)]
            if not t.alive:
                notes.append("down")
            wins = tuple(f >= self.data.success_at for f in faces)
            # The failures of the last roll are the dice that left the pool.
            out.append(PoolView(t.id, t.name, faces, wins,
                                int(t.values.get("pool") or 0), self.data.die,
                                self._refill(t)[0], "; ".join(notes),
                                removed=tuple(not w for w in wins)))
        return out

    def actions_for(self, state: Encounter, actor: str) -> list[ActionOption]:
        token = state.tokens.get(actor)
        if token is None:
            return []
        if not isinstance(state.schedule, OrderedTurns):
            free = self.data.free_moves_before_combat
            return [ActionOption("move", "Move", "cell", enabled=free,
                                 reason="" if free else "combat has not started")]
        turns = state.schedule
        reason = ""
        if turns.current != actor:
            reason = f"it is {self._name(state, turns.current)}'s turn"
        elif not token.alive:
            reason = f"{token.name} is down"
        left = turns.actions_left if not reason else 0

        def option(key: str, label: str, target: Aim = "none", cost: int = 1) -> ActionOption:
            why = reason or ("" if left >= cost else f"needs {_plural(cost, 'action')}, "
                                                     f"{left} left")
            return ActionOption(key, label, target, enabled=not why, reason=why)

        weapon = self._weapon(token)
        metres = self.metres_per_action(token)
        opts = [option("attack", f"Attack ({weapon.name})", "token", self.data.costs["attack"]),
                option("move", f"Move ({metres:g} m an action)", "cell")]
        for a in self._abilities(token, "action"):
            opts.append(option(a.key, a.name, "token", a.actions))
        opts += [option("prepare:dodge", "Prepare: dodge their attack", "token",
                        self.data.costs["prepare"])]
        for trigger, words in self.data.triggers.items():
            opts.append(option(f"prepare:attack:{trigger}",
                               f"Prepare: attack when the target {words}",
                               "token", self.data.costs["prepare"]))
        carried = token.stats.get("weapons")
        if isinstance(carried, tuple):
            for w in carried:
                if w != weapon.key and w in self.data.weapons:
                    opts.append(option(f"wield:{w}", f"Wield {self.data.weapons[w].name}",
                                       cost=self.data.costs["wield"]))
        opts += [option("skill", "Use a skill", cost=self.data.costs["skill"]),
                 option("generic", "Quick action (under 5 s)", cost=self.data.costs["generic"]),
                 option("long_action", "Long action (whole turn)",
                        cost=turns.actions_per_turn)]
        opts.append(ActionOption("end_turn", "End turn", "none", enabled=not reason,
                                 reason=reason))
        return opts

    # --- performance figures (tacmap bench) ----------------------------------------

    def bench(self) -> list[tuple[str, Callable[[], object], float]]:
        """The DESIGN §7 figures this ruleset owns: one attack executed, one odds preview."""
        state = self.new_encounter("bench", seed=1)
        state.map = MapSpec(12, 8)
        hero = Token("ana", "Ana", "party", 2, 2, hp=30, max_hp=30,
                     stats={"str": 3, "dex": 2, "con": 2, "ac": 3, "weapon": "longsword",
                            "proficiency": {"longsword": 2}})
        foe = Token("brak", "Brak", "foes", 3, 2, hp=18, max_hp=18,
                    stats={"str": 3, "con": 2, "ac": 4, "weapon": "axe",
                           "proficiency": {"axe": 1}, "abilities": ("riposte",)})
        state.tokens = {hero.id: hero, foe.id: foe}
        referee = Referee(state, self)
        referee.execute(StartCombat(("ana", "brak")))
        seeds = itertools.count(2)
        attack = Attack("ana", "brak")

        def execute_attack() -> object:
            # A new seed each time, so hits, misses, kills and ripostes are all timed;
            # the undo keeps the next run starting from the same state.
            state.seed = next(seeds)
            events = referee.execute(attack)
            referee.undo()
            return events

        sizes = itertools.cycle(range(3, 13))
        hps = itertools.cycle((6, 11, 18, 25))

        def attack_odds() -> object:
            # Uncached: clear the odds module's caches and vary the pool and the
            # target's HP each call, as a GM hovering over different targets would.
            odds.dice.cache_clear()
            odds.successes.cache_clear()
            hero.values["pool"] = next(sizes)
            foe.hp = next(hps)
            return self.preview(state, attack)

        return [("execute one attack, command to events", execute_attack, ATTACK_BUDGET_MS),
                ("exact odds for one attack preview", attack_odds, ODDS_BUDGET_MS)]


def create(manifest: Manifest) -> Ruleset:
    """The ruleset for this folder's ruleset.toml."""
    return ActionPool(manifest)
