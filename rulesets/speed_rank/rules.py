"""Speed Rank (seed 001): side initiative on 1d10, Combat Events, and the speed-rank timeline.

Command flow at the table (README.md has the whole story):

* ``start_combat`` begins round 1: every side rolls 1d10, ties re-roll (one
  Combat Event per forced re-roll), and play stands in phase S with the first
  side in initiative order.
* In each phase the sides take turns in initiative order. On its turn a side's
  combatants ``attack``, ``move`` or ``act`` (sprint, cast, sustain, cancel,
  stand, pick_up, free_weapon, break_free), no sooner than their base speed
  (weapon speed for attacks), out of one standard and one move action a round.
* ``end_turn`` passes to the next side that can do something in this phase,
  then to the next phase, and after F starts the next round with a new roll.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from msgspec.structs import replace

from tacmap.engine import grid, odds
from tacmap.engine.commands import Act, Attack, Command, EndTurn, Move, Reorder, StartCombat
from tacmap.engine.dice import FixedDice
from tacmap.engine.errors import InputError, RuleError
from tacmap.engine.events import (
    DiceRolled,
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
from tacmap.engine.records import Float, Int, Record, Text
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import Manifest, Resolution, Ruleset
from tacmap.engine.schedule import (
    SPEED_PHASES,
    PhaseTimeline,
    Schedule,
    SideInitiative,
    TimedAction,
    earliest,
    phase_index,
    speed_rank,
)
from tacmap.engine.state import Cell, Encounter, MapSpec, Token
from tacmap.engine.views import (
    ActionOption,
    Odds,
    OrderRow,
    Preview,
    RowState,
    Timeline,
    TimelineItem,
    TurnOrder,
)

Aim = Literal["none", "token", "cell"]
#: One attack as Weapon Trouble needs to know it: attacker, weapon key, target, melee.
AttackMark = tuple[Text, Text, Text, bool]

_S = 0
_FAST = SPEED_PHASES.index("0")
_F = len(SPEED_PHASES) - 1

#: Compass points of the direction die, 1 = north (up the map), clockwise.
DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("north", 0, -1),
    ("north-east", 1, -1),
    ("east", 1, 0),
    ("south-east", 1, 1),
    ("south", 0, 1),
    ("south-west", -1, 1),
    ("west", -1, 0),
    ("north-west", -1, -1),
)

ACTS = ("sprint", "cast", "sustain", "cancel", "stand", "pick_up", "free_weapon", "break_free")

SAVE_NAMES = {
    "paralyzation": "Reflex Save vs. Paralyzation",
    "spell": "Save vs. Spell",
    "crushing_blow": "Saving Throw vs. Crushing Blow",
}


# --------------------------------------------------------------------------- records



class Plan(Record, frozen=True, tag="speed_rank_plan"):
    """A multi-phase action on the timeline, and what it does when it ends."""

    actor: Text
    """Token id of who acts."""
    label: Text
    """Its label on the timeline (unique per actor)."""
    kind: Text
    """``"sprint"`` or ``"spell"``."""
    spell: Text = ""
    """Spell key in ruleset.toml, for a spell."""
    target: Text = ""
    """Target token id, for a spell."""


class Round(Schedule, frozen=True, tag="speed_rank_round"):
    """The round as Speed Rank plays it: the sides' initiative, the timeline, whose turn."""

    initiative: SideInitiative
    """This round's side rolls, first to act first."""
    timeline: PhaseTimeline
    """Phases, the current phase and every action placed on them."""
    side: Int = 0
    """Position in ``initiative.order`` of the side taking its turn in the current phase."""
    spent: tuple[tuple[Text, Int, Int], ...] = ()
    """(token, standard actions used, move actions used) this round."""
    sprinted: tuple[tuple[Text, Float], ...] = ()
    """Metres each sprinter has run in the current phase."""
    plans: tuple[Plan, ...] = ()
    """Sprints and spells on the timeline, with what they do."""
    pending: tuple[tuple[Text, Text], ...] = ()
    """(actor, label) of actions carried into this round and not yet sustained or cancelled."""
    attacks: tuple[AttackMark, ...] = ()
    """(attacker, weapon key, target, melee) for each attack made this round."""
    last_attacks: tuple[AttackMark, ...] = ()
    """The same for the round before (Weapon Trouble picks from these)."""

    def __post_init__(self) -> None:
        if not 0 <= self.side < max(1, len(self.initiative.sides)):
            raise RuleError(f"Side position {self.side} is outside the initiative order.")

    @property
    def phase(self) -> str:
        """Label of the current phase."""
        return self.timeline.current

    @property
    def phase_i(self) -> int:
        """Index of the current phase in ``SPEED_PHASES``."""
        return phase_index(self.timeline.current)

    @property
    def current_side(self) -> str:
        """The side whose turn it is."""
        return self.initiative.order[self.side]

    def plan(self, actor: str, label: str) -> Plan | None:
        """The plan behind ``actor``'s ``label``, if it is a sprint or a spell."""
        for p in self.plans:
            if p.actor == actor and p.label == label:
                return p
        return None


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Weapon:
    """One row of [weapons]."""

    key: str
    name: str
    speed: int
    count: int
    sides: int
    bonus: int
    reach: float
    range: float
    kind: str

    @property
    def ranged(self) -> bool:
        """A missile weapon: attacks out to ``range`` instead of ``reach``."""
        return self.range > 0


@dataclass(frozen=True)
class Spell:
    """One row of [spells]."""

    key: str
    name: str
    speed: int
    delay: int
    range: float
    radius: float
    count: int
    sides: int
    bonus: int
    save: str
    save_halves: bool
    condition: str
    rounds: int


@dataclass(frozen=True)
class TableRow:
    """One line of the Combat Events table."""

    low: int
    high: int
    key: str
    name: str


@dataclass(frozen=True)
class AttackNumbers:
    """Everything an attack roll needs, worked out before any die is thrown."""

    weapon: Weapon
    to_hit: int
    ac: int
    flat: int
    hp_margin: int


def _toml_error(manifest: Manifest, what: str) -> InputError:
    return InputError(f"{manifest.folder / 'ruleset.toml'}: {what}")


# --------------------------------------------------------------------------- the ruleset


class SpeedRank(Ruleset):
    """Seed 001 on the engine's SideInitiative and PhaseTimeline."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        d = manifest.data
        try:
            self._read(d)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, InputError):
                raise
            raise _toml_error(manifest, f"bad or missing value ({err!r})") from None

    def _read(self, d: dict[str, Any]) -> None:
        m = self.manifest
        if tuple(d["phases"]["order"]) != SPEED_PHASES:
            raise _toml_error(m, f"phases.order must be {list(SPEED_PHASES)} (the engine's)")
        self.phase_names: tuple[str, ...] = tuple(d["phases"]["names"])
        if len(self.phase_names) != len(SPEED_PHASES):
            raise _toml_error(m, "phases.names needs one name per phase")
        self.init_die = int(d["initiative"]["die"])
        self.races = {str(k): int(v) for k, v in d["races"].items()}
        self.dex_table = sorted((int(a), int(b)) for a, b in d["dexterity"]["speed_modifier"])
        self.dex_high = int(d["dexterity"]["highest"])
        self.defaults: dict[str, Any] = dict(d["stats"])
        self.allowed: dict[str, list[str]] = {k: list(v) for k, v in d["stats_allowed"].items()}
        a = d["attack"]
        self.attack_die = int(a["die"])
        self.band = int(a["glancing_band"])
        self.glance = (int(a["glancing_numerator"]), int(a["glancing_denominator"]))
        self.min_damage = int(a["min_damage"])
        self.dead_at = int(a["dead_at"])
        self.save_die = int(d["saves"]["die"])
        self.saves = {k: int(v) for k, v in d["saves"].items() if k != "die"}
        self.item_saves = {k: int(v) for k, v in d["item_saves"].items()}
        self.check_die = int(d["checks"]["die"])
        self.checks = {k: int(v) for k, v in d["checks"].items() if k != "die"}
        act = d["actions"]
        self.standard_actions = int(act["standard"])
        self.move_actions = int(act["move"])
        self.standard_as_move = bool(act["standard_as_move"])
        self.costs: dict[str, tuple[str, ...]] = {k: tuple(v)
                                                  for k, v in d["action_costs"].items()}
        for key in ("attack", "move", *ACTS):
            if key not in ("sustain", "cancel") and key not in self.costs:
                raise _toml_error(m, f"action_costs.{key} is missing")
        if any(c not in ("standard", "move") for v in self.costs.values() for c in v):
            raise _toml_error(m, "action_costs may only name \"standard\" and \"move\"")
        self.walk = float(act["move_metres"])
        self.sprint_phases = int(act["sprint_phases"])
        self.sprint_metres = float(act["sprint_metres_per_phase"])
        self.helpless_conditions = tuple(act["helpless"])
        self.immobile_conditions = tuple(act["immobile"])
        arm = d["armour"]
        self.piece_ac = {k: int(arm[k]) for k in ("helmet", "shield", "armour")}
        self.damaged_weapon = int(arm["damaged_weapon"])
        self.weapons = {
            k: Weapon(k, str(w["name"]), int(w["speed"]), int(w["damage"][0]),
                      int(w["damage"][1]), int(w["damage"][2]), float(w["reach"]),
                      float(w.get("range", 0)), str(w["kind"]))
            for k, w in d["weapons"].items()
        }
        if "unarmed" not in self.weapons:
            raise _toml_error(m, "weapons.unarmed is needed for a disarmed combatant")
        self.spells = {
            k: Spell(k, str(s["name"]), int(s["speed"]), int(s["delay"]), float(s["range"]),
                     float(s["radius"]), int(s["damage"][0]), int(s["damage"][1]),
                     int(s["damage"][2]), str(s["save"]), bool(s["save_halves"]),
                     str(s["condition"]), int(s["rounds"]))
            for k, s in d["spells"].items()
        }
        for s in self.spells.values():
            if s.save and s.save not in self.saves:
                raise _toml_error(m, f"spells.{s.key}.save {s.save!r} is not in [saves]")
        ce = d["combat_events"]
        self.event_die = int(ce["die"])
        self.max_rerolls = int(ce["max_rerolls"])
        self.direction_die = int(ce["direction_die"])
        self.touch = float(ce["touch_range"])
        if self.direction_die != len(DIRECTIONS):
            raise _toml_error(m, f"combat_events.direction_die must be {len(DIRECTIONS)}")
        self.table = tuple(TableRow(int(r["from"]), int(r["to"]), str(r["key"]), str(r["name"]))
                           for r in ce["table"])
        covered = sorted(f for r in self.table for f in range(r.low, r.high + 1))
        if covered != list(range(1, self.event_die + 1)):
            raise _toml_error(m, f"combat_events.table must cover 1 to {self.event_die} once")
        self.ev: dict[str, dict[str, Any]] = d["events"]
        self.handlers: dict[str, Callable[[Resolution, TableRow], str | None]] = {
            "armour_trouble": self._armour_trouble,
            "battlefield_damaged": self._battlefield_damaged,
            "battlefield_shifts": self._battlefield_shifts,
            "close_quarters": self._close_quarters,
            "item_damaged": self._item_damaged,
            "item_dropped": self._item_dropped,
            "knock_down": self._knock_down,
            "lucky_break": self._lucky_break,
            "lucky_opening": self._lucky_opening,
            "mount_trouble": self._mount_trouble,
            "reinforcements": self._reinforcements,
            "retreat": self._retreat,
            "slip": self._slip,
            "weapon_trouble": self._weapon_trouble,
        }
        for r in self.table:
            if r.key not in self.handlers:
                raise _toml_error(m, f"combat event {r.key!r} has no rule behind it")
        self._check_stat_block()

    def _check_stat_block(self) -> None:
        """Refuse a [stat_block] that says other than [stats] and the tables the rules read."""
        m = self.manifest
        fields = {f.key: f for f in self.stat_fields()}
        for key in self.defaults:
            if key not in fields:
                raise _toml_error(m, f"the stat block needs [stat_block.{key}]")
        for key in fields:
            if key not in self.defaults:
                raise _toml_error(m, f"stat_block.{key} has no default in [stats]")
        for key, want in self.defaults.items():
            f = fields[key]
            kinds = (("bool",) if isinstance(want, bool) else ("int",) if isinstance(want, int)
                     else ("text", "choice") if isinstance(want, str) else ("choices",))
            if f.kind not in kinds:
                raise _toml_error(m, f"stat_block.{key}.kind must be {' or '.join(kinds)}")
            default = tuple(want) if isinstance(want, list) else want
            if f.default != default:
                raise _toml_error(m, f"stat_block.{key}.default is {f.default!r} but "
                                     f"stats.{key} is {want!r}; make them the same")
        for key, allowed in self.allowed.items():
            if key not in fields or fields[key].choices != tuple(allowed):
                raise _toml_error(m, f"stat_block.{key}.choices must be {allowed} "
                                     "(stats_allowed)")
        if fields["dex"].max != self.dex_high:
            raise _toml_error(m, f"stat_block.dex.max must be dexterity.highest "
                                 f"({self.dex_high})")
        for key, table in (("race", self.races), ("weapon", self.weapons),
                           ("spells", self.spells)):
            choices = fields[key].choices
            if not choices or any(c not in table for c in choices):
                raise _toml_error(m, f"stat_block.{key} must offer names from [{key}] only")

    # ------------------------------------------------------------------ stat block

    def stat(self, token: Token, key: str) -> Any:
        """A stat from the token's block, or the ruleset's default."""
        return token.stats.get(key, self.defaults[key])

    def speed_modifier(self, dex: int) -> int:
        """The Dexterity speed modifier (18 → +1, 5 → −1 in the text)."""
        mod = self.dex_table[0][1]
        for low, m in self.dex_table:
            if dex >= low:
                mod = m
        return mod

    def base_speed(self, token: Token) -> int:
        """Speed rank from race, with the Dexterity modifier "taken away from the Speed Rank"."""
        return speed_rank(self.races[self.stat(token, "race")],
                          self.speed_modifier(int(self.stat(token, "dex"))))

    def held_weapon(self, token: Token) -> Weapon:
        """The weapon in the stat block (fists when none)."""
        return self.weapons[self.stat(token, "weapon")]

    def _usable(self, token: Token) -> Weapon:
        """The weapon the token can use now: its own, or fists when it is dropped or stuck."""
        w = self.held_weapon(token)
        if w.key in self._dropped(token) or "weapon stuck" in token.conditions:
            return self.weapons["unarmed"]
        return w

    def _dropped(self, token: Token) -> tuple[str, ...]:
        return tuple(token.values.get("dropped", ()) or ())

    def _damaged(self, token: Token) -> tuple[str, ...]:
        return tuple(token.values.get("damaged", ()) or ())

    def _active(self, state: Encounter, token: Token, key: str) -> bool:
        until = token.values.get(key)
        return isinstance(until, int) and until >= state.round

    def ac(self, state: Encounter, token: Token) -> int:
        """AC: the stat block's, less damaged (or dropped) pieces, plus a Lucky Break."""
        ac = int(self.stat(token, "ac"))
        lost = set(self._damaged(token)) | ({"shield"} & set(self._dropped(token)))
        for piece, worth in self.piece_ac.items():
            if piece in lost and self.stat(token, piece):
                ac -= worth
        if self._active(state, token, "lucky_break"):
            ac += int(self.ev["lucky_break"]["ac"])
        return ac

    def to_hit(self, state: Encounter, token: Token) -> int:
        """To-Hit bonus: the stat block's, plus a Lucky Opening."""
        bonus = int(self.stat(token, "to_hit"))
        if self._active(state, token, "lucky_opening"):
            bonus += int(self.ev["lucky_opening"]["to_hit"])
        return bonus

    def save_bonus(self, state: Encounter, token: Token, against: Token | None = None) -> int:
        """Saving throw bonus: the stat block's, a Lucky Break, a Lucky Opening against."""
        bonus = int(self.stat(token, "save"))
        if self._active(state, token, "lucky_break"):
            bonus += int(self.ev["lucky_break"]["saves"])
        if against is not None and self._active(state, against, "lucky_opening"):
            bonus += int(self.ev["lucky_opening"]["saves_against"])
        return bonus

    def known_spells(self, token: Token) -> list[str]:
        """Memorized spells not yet cast (a spell listed twice can be cast twice)."""
        left = list(self.stat(token, "spells"))
        for key in token.values.get("spells_cast", ()) or ():
            if key in left:
                left.remove(key)
        return left

    def helpless(self, token: Token) -> str:
        """The condition that stops ``token`` acting, or ``""``."""
        return next((c for c in token.conditions if c in self.helpless_conditions), "")

    def immobile(self, token: Token) -> str:
        """The condition that stops ``token`` moving, or ``""``."""
        return next((c for c in token.conditions if c in self.immobile_conditions), "")

    # ------------------------------------------------------------------ phases and turns

    def phase_text(self, phase: str | int) -> str:
        """``"phase 0 (Fast)"``."""
        i = phase_index(phase)
        return f"phase {SPEED_PHASES[i]} ({self.phase_names[i]})"

    def _round(self, state: Encounter) -> Round:
        if not isinstance(state.schedule, Round):
            raise RuleError("combat has not started: start_combat rolls the first initiative")
        return state.schedule

    def shift(self, rnd: Round, side: str) -> int:
        """Phase shift of ``side`` this round (+1 after a 1, −1 after a 10)."""
        return rnd.initiative.shift(side) if side in rnd.initiative.order else 0

    def earliest_phase(self, rnd: Round, token: Token, weapon: Weapon | None = None) -> str:
        """First phase ``token`` may act in (attack with ``weapon``) this round."""
        return earliest(self.base_speed(token), weapon.speed if weapon else None,
                        self.shift(rnd, token.side))

    def _speed_reason(self, rnd: Round, token: Token, weapon: Weapon | None) -> str:
        race, dex = self.stat(token, "race"), int(self.stat(token, "dex"))
        base = self.base_speed(token)
        parts = [f"base speed {base} ({race} {self.races[race]}, Dexterity {dex} "
                 f"{self.speed_modifier(dex):+d})"]
        if weapon is not None and weapon.speed > base:
            parts.append(f"{weapon.name} speed {weapon.speed}")
        elif weapon is not None and weapon.speed < base:
            parts.append(f"the {weapon.name} (speed {weapon.speed}) is faster than its wielder, "
                         "so base speed counts")
        shift = self.shift(rnd, token.side)
        if shift:
            roll = rnd.initiative.of(token.side).roll
            parts.append(f"{token.side} rolled a {roll}: "
                         + ("delayed one phase" if shift > 0 else "moved up one phase"))
        return "; ".join(parts)

    def _busy(self, rnd: Round, token: Token) -> tuple[TimedAction, Plan] | None:
        for a in rnd.timeline.spanning(rnd.phase):
            plan = rnd.plan(a.actor, a.label) if a.actor == token.id else None
            if plan is not None:
                return a, plan
        return None

    def _final_piece(self, rnd: Round, a: TimedAction) -> bool:
        return not any(b.actor == a.actor and b.label == a.label and b.round > a.round
                       for b in rnd.timeline.actions)

    def _ready(self, state: Encounter, token: Token, what: str, *, weapon: Weapon | None = None,
               spell: bool = False, cost: Sequence[str] = (), moving: bool = False,
               decision: bool = False) -> Round:
        """The round, if ``token`` may do ``what`` now; else RuleError saying why not."""
        rnd = self._round(state)
        if not token.alive:
            raise RuleError(f"{token.name} is dead")
        helpless = self.helpless(token)
        if helpless:
            raise RuleError(f"{token.name} is {helpless} and cannot act")
        if token.side not in rnd.initiative.order:
            raise RuleError(f"{token.side} joined after this round's initiative roll and acts "
                            "from the next round")
        if token.side != rnd.current_side:
            raise RuleError(f"it is {_poss(rnd.current_side)} turn in "
                            f"{self.phase_text(rnd.phase)}, not {_poss(token.side)}")
        if decision:
            return rnd
        busy = self._busy(rnd, token)
        if busy is not None:
            a, plan = busy
            if not (moving and plan.kind == "sprint"):
                doing = "sprinting" if plan.kind == "sprint" else f"casting {a.label}"
                more = " and can only move" if plan.kind == "sprint" else ""
                raise RuleError(f"{token.name} is {doing} through phase {a.end}{more}")
            return rnd
        self._charge(rnd, token, cost)
        if not spell:
            allowed = self.earliest_phase(rnd, token, weapon)
            if rnd.phase_i < phase_index(allowed):
                raise RuleError(f"{token.name} cannot {what} before {self.phase_text(allowed)}: "
                                f"{self._speed_reason(rnd, token, weapon)}")
        return rnd

    def _sides(self, state: Encounter) -> list[str]:
        return list(dict.fromkeys(t.side for t in state.tokens.values() if t.alive))

    def _members(self, state: Encounter, side: str) -> list[Token]:
        return [t for t in state.tokens.values() if t.side == side]

    def _can_act(self, state: Encounter, rnd: Round, token: Token, at: int) -> bool:
        if not token.alive or self.helpless(token):
            return False
        mine = [a for a in rnd.timeline.spanning(SPEED_PHASES[at])
                if a.actor == token.id and rnd.plan(a.actor, a.label) is not None]
        if mine:
            for a in mine:
                plan = rnd.plan(a.actor, a.label)
                assert plan is not None
                ends = phase_index(a.end) == at and self._final_piece(rnd, a)
                if plan.kind == "sprint" or ends:
                    return True
            return False
        std, mov = self.actions_left(rnd, token.id)
        casts = bool(self.known_spells(token)) and std > 0
        if at == _S:
            return any(p[0] == token.id for p in rnd.pending) or casts
        if casts:
            return True
        return (std > 0 or mov > 0) and at >= phase_index(self.earliest_phase(rnd, token))

    def _side_can_act(self, state: Encounter, rnd: Round, side: str, at: int) -> bool:
        return any(self._can_act(state, rnd, t, at) for t in self._members(state, side))

    def _set(self, ctx: Resolution, new: Round, note: str) -> Round:
        ctx.emit(ScheduleChanged(ctx.state.schedule, new, note))
        return new

    def _settle(self, ctx: Resolution, at: int, side: int, new_round: bool = True) -> None:
        """Move the turn to the first (phase, side) from here on where someone can act."""
        state = ctx.state
        rnd = self._round(state)
        order = rnd.initiative.order
        # Phases nobody could act in are named in the note, so the log shows them pass.
        first_empty = at if side == 0 else at + 1
        while at <= _F:
            while side < len(order):
                if self._side_can_act(state, rnd, order[side], at):
                    self._arrive(ctx, rnd, at, side, list(SPEED_PHASES[first_empty:at]))
                    return
                side += 1
            at, side = at + 1, 0
        if new_round:
            self._begin_round(ctx, rnd)
        else:
            self._arrive(ctx, rnd, _S, 0, [], nobody=True)

    def _arrive(self, ctx: Resolution, rnd: Round, at: int, side: int, passed: list[str],
                nobody: bool = False) -> None:
        label = SPEED_PHASES[at]
        same_phase = at == rnd.phase_i
        new = replace(rnd, timeline=replace(rnd.timeline, current=label), side=side,
                      sprinted=rnd.sprinted if same_phase else ())
        who = rnd.initiative.order[side]
        lead = (f"phases {', '.join(passed)} pass; " if len(passed) > 1 else
                f"phase {passed[0]} passes; " if passed else "")
        if nobody:
            note = f"nobody can act this round; {self.phase_text(label)}: {_poss(who)} turn"
        else:
            note = f"{lead}{self.phase_text(label)}: {_poss(who)} turn"
        self._set(ctx, new, note)
        self._due_spells(ctx)

    # ------------------------------------------------------------------ rounds

    def _begin_round(self, ctx: Resolution, old: Round | None) -> None:
        state = ctx.state
        number = state.round + 1
        ctx.emit(RoundChanged(state.round, number))
        if old is not None:
            self._expire(ctx, number)
        sides = self._sides(state)
        if not sides:
            raise RuleError("nobody is left standing to roll initiative")
        init, rolls = SideInitiative.start(sides, ctx.dice, self.init_die, number)
        for who, why, roll in rolls:
            ctx.emit(DiceRolled(who, why, roll))
        if old is None:
            timeline = PhaseTimeline(number)
            plans: tuple[Plan, ...] = ()
        else:
            timeline = PhaseTimeline(number, "S",
                                     tuple(a for a in old.timeline.actions if a.round >= number))
            plans = tuple(p for p in old.plans
                          if any((a.actor, a.label) == (p.actor, p.label)
                                 for a in timeline.actions))
        pending = tuple(dict.fromkeys((a.actor, a.label) for a in timeline.actions
                                      if a.continued and a.round == number))
        new = Round(init, timeline, 0, (), (), plans, pending, (),
                    old.attacks if old is not None else ())
        self._set(ctx, new, self._initiative_note(init))
        for actor, label in pending:
            t = state.tokens.get(actor)
            if t is None or not t.alive or self.helpless(t):
                why = "gone" if t is None else ("dead" if not t.alive else self.helpless(t))
                self._drop_plan(ctx, actor, label, f"{t.name if t else actor} is {why} and "
                                "cannot sustain it")
        # What began in earlier rounds goes on before this round's Combat Events start anew.
        self._ongoing(ctx)
        due = init.combat_events_due
        for n in range(1, due + 1):
            self._combat_event(ctx, n, due)
        self._settle(ctx, _S, 0, new_round=False)

    def _initiative_note(self, init: SideInitiative) -> str:
        parts = []
        last = len(init.sides) - 1
        for i, s in enumerate(init.sides):
            text = f"{s.side} {s.roll}"
            if s.tiebreak:
                text += f" (re-roll {', '.join(map(str, s.tiebreak))})"
            if s.shift > 0:
                text += ": last, every action delayed one phase"
            elif s.shift < 0:
                text += ": first, every action moved up one phase"
            elif i == 0 and last:
                text += ": first"
            parts.append(text)
        events = init.combat_events_due
        tail = f"; {events} Combat Event{'s' if events > 1 else ''}" if events else ""
        return f"round {init.round} initiative: {'; '.join(parts)}{tail}"

    def _expire(self, ctx: Resolution, number: int) -> None:
        """End what lasted "for this round only" or for a number of rounds."""
        for t in list(ctx.state.tokens.values()):
            for key, what in (("lucky_break", "Lucky Break"), ("lucky_opening", "Lucky Opening")):
                until = t.values.get(key)
                if isinstance(until, int) and until < number:
                    ctx.emit(ValueChanged(t.id, key, until, None, f"{what} is over"))
            for cond in ("stunned", "asleep"):
                key = f"{cond}_until"
                until = t.values.get(key)
                if isinstance(until, int) and until < number:
                    ctx.emit(ValueChanged(t.id, key, until, None, f"no longer {cond}"))
                    if cond in t.conditions:
                        ctx.emit(condition_change(t, cond, False))

    def _ongoing(self, ctx: Resolution) -> None:
        """A bolting mount keeps going until the rider masters it or its rounds run out."""
        state = ctx.state
        p = self.ev["mount_trouble"]
        for t in list(state.tokens.values()):
            off = t.values.get("off_course")
            if not isinstance(off, tuple):
                continue
            until, direction = int(off[0]), int(off[1])
            if state.round > until or not t.alive or "dismounted" in t.conditions:
                ctx.emit(ValueChanged(t.id, "off_course", off, None,
                                      f"{self.stat(t, 'mount')} is back under control"))
                continue
            if self._check(ctx, t, str(p["off_course_check"]), "riding",
                           f"Advanced Riding check to rein in the {self.stat(t, 'mount')}"):
                ctx.emit(ValueChanged(t.id, "off_course", off, None, "the rider regains control"))
                continue
            name, dx, dy = DIRECTIONS[direction - 1]
            path = self._slide(state, t, dx, dy, int(self.stat(t, "mount_speed")))
            ctx.emit(Said(f"{t.name}'s {self.stat(t, 'mount')} is still off course, "
                          f"bolting {name}", t.id))
            if len(path) > 1:
                ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))

    # ------------------------------------------------------------------ judging

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, StartCombat):
            self._start(ctx, cmd)
        elif isinstance(cmd, EndTurn):
            self._end_turn(ctx, cmd)
        elif isinstance(cmd, Attack):
            self._attack(ctx, cmd)
        elif isinstance(cmd, Move):
            self._move(ctx, cmd)
        elif isinstance(cmd, Act):
            self._act(ctx, cmd)
        elif isinstance(cmd, Reorder):
            self._reorder(ctx, cmd)
        else:
            super().resolve(ctx, cmd)

    def _start(self, ctx: Resolution, cmd: StartCombat) -> None:
        if isinstance(ctx.state.schedule, Round):
            raise RuleError("combat has already started")
        if cmd.order:
            raise RuleError("in Speed Rank every side rolls 1d10 for initiative; start without an "
                            "order (the GM may reorder the sides afterwards)")
        self._begin_round(ctx, None)

    def _end_turn(self, ctx: Resolution, cmd: EndTurn) -> None:
        state = ctx.state
        rnd = self._round(state)
        side = rnd.current_side
        if cmd.actor and cmd.actor != side:
            token = state.tokens.get(cmd.actor)
            if token is None or token.side != side:
                name = token.side if token else cmd.actor
                raise RuleError(f"it is {_poss(side)} turn in {self.phase_text(rnd.phase)}, "
                                f"not {_poss(name)}")
        if rnd.phase_i == _S:
            for actor, label in rnd.pending:
                t = state.tokens.get(actor)
                if t is not None and t.side == side:
                    raise RuleError(f"{t.name} must sustain or cancel {label} first: an action "
                                    "carried into a new round is sustained or cancelled")
        self._settle(ctx, rnd.phase_i, rnd.side + 1)

    def _reorder(self, ctx: Resolution, cmd: Reorder) -> None:
        rnd = self._round(ctx.state)
        init = rnd.initiative
        if sorted(cmd.order) != sorted(init.order) or len(set(cmd.order)) != len(cmd.order):
            raise RuleError(f"the new order must list each side once: {', '.join(init.order)}")
        sides = tuple(init.of(s) for s in cmd.order)
        new_init = replace(init, sides=sides)
        new = replace(rnd, initiative=new_init, side=cmd.order.index(rnd.current_side))
        self._set(ctx, new, f"GM reorders the sides: {', '.join(cmd.order)}")

    def _place(self, ctx: Resolution, token: Token, label: str, span: int, note: str,
               cost: Sequence[str], *, weapon: Weapon | None = None, spell: bool = False,
               plan: Plan | None = None, attack: AttackMark | None = None,
               spans: bool = False) -> Round:
        """Put ``token``'s action on the timeline at the current phase and pay ``cost``.

        ``spans`` adds where a multi-phase action runs (into later rounds too) to the note.
        """
        rnd = self._round(ctx.state)
        label = self._unique(rnd, token.id, label)
        timeline = rnd.timeline.place(
            token.id, label, rnd.phase, span, spell=spell, base_speed=self.base_speed(token),
            weapon_speed=weapon.speed if weapon else None, shift=self.shift(rnd, token.side))
        new = replace(rnd, timeline=timeline, spent=self._charge(rnd, token, cost),
                      plans=rnd.plans if plan is None else (*rnd.plans,
                                                            replace(plan, label=label)),
                      attacks=rnd.attacks if attack is None else (*rnd.attacks, attack))
        if spans:
            note += f" ({self._spans(new, token, label)})"
        return self._set(ctx, new, f"{self.phase_text(rnd.phase)}: {note}")

    def actions_left(self, rnd: Round, token_id: str) -> tuple[int, int]:
        """Standard and move actions ``token_id`` has left this round."""
        used = next(((s, m) for t, s, m in rnd.spent if t == token_id), (0, 0))
        return self.standard_actions - used[0], self.move_actions - used[1]

    def _charge(self, rnd: Round, token: Token, cost: Sequence[str]
                ) -> tuple[tuple[str, int, int], ...]:
        """The ``spent`` table after ``token`` pays ``cost``; RuleError if it cannot."""
        std, mov = self.actions_left(rnd, token.id)
        for kind in cost:
            if kind == "standard" and std > 0:
                std -= 1
            elif kind == "move" and mov > 0:
                mov -= 1
            elif kind == "move" and self.standard_as_move and std > 0:
                std -= 1
            else:
                what = "standard action left" if kind == "standard" else "action left to move with"
                raise RuleError(f"{token.name} has no {what} this round "
                                f"({self._budget()} a round)")
        used = (token.id, self.standard_actions - std, self.move_actions - mov)
        rest = tuple(s for s in rnd.spent if s[0] != token.id)
        return (*rest, used)

    def _budget(self) -> str:
        def n(k: int, what: str) -> str:
            return f"{k} {what} action{'s' if k != 1 else ''}"

        return f"{n(self.standard_actions, 'standard')} and {n(self.move_actions, 'move')}"

    def _unique(self, rnd: Round, actor: str, label: str) -> str:
        taken = {a.label for a in rnd.timeline.actions if a.actor == actor}
        if label not in taken:
            return label
        n = 2
        while f"{label} #{n}" in taken:
            n += 1
        return f"{label} #{n}"

    # ------------------------------------------------------------------ attack

    def attack_numbers(self, state: Encounter, cmd: Attack) -> AttackNumbers:
        """Check that ``cmd`` is allowed now and work out its numbers (changes nothing)."""
        token = state.token(cmd.actor)
        target = state.token(cmd.target)
        weapon = self._weapon_for(token, cmd.weapon)
        self._ready(state, token, f"attack with the {weapon.name}", weapon=weapon,
                    cost=self.costs["attack"])
        if target.id == token.id:
            raise RuleError(f"{token.name} cannot attack themself")
        if not target.alive:
            raise RuleError(f"{target.name} is already dead")
        if target.side == token.side:
            raise RuleError(f"{target.name} is on {token.name}'s side")
        gap = grid.edge_distance(state.diagonal, token.cell, token.size, target.cell, target.size)
        if weapon.ranged:
            if gap > weapon.range:
                raise RuleError(f"{target.name} is {gap:g} m away; the {weapon.name} shoots "
                                f"{weapon.range:g} m")
            if not line_of_sight(self.space.walls(state), token, target):
                raise RuleError(f"{token.name} cannot see {target.name}")
        elif gap > weapon.reach:
            raise RuleError(f"{target.name} is {gap:g} m away; the {weapon.name} reaches "
                            f"{weapon.reach:g} m")
        flat = weapon.bonus + int(self.stat(token, "damage"))
        if weapon.key in self._damaged(token):
            flat -= self.damaged_weapon
        return AttackNumbers(weapon, self.to_hit(state, token), self.ac(state, target), flat,
                             target.hp - self.dead_at)

    def _weapon_for(self, token: Token, key: str) -> Weapon:
        own = self.held_weapon(token)
        if key and key not in (own.key, "unarmed"):
            if key not in self.weapons:
                raise RuleError(f"there is no weapon {key!r} in Speed Rank")
            raise RuleError(f"{token.name} carries no {self.weapons[key].name} "
                            f"(their weapon is the {own.name})")
        if key == "unarmed":
            return self.weapons["unarmed"]
        if own.key in self._dropped(token):
            raise RuleError(f"{token.name}'s {own.name} is on the ground: pick it up (pick_up) "
                            "or attack unarmed")
        if "weapon stuck" in token.conditions and own.key != "unarmed":
            stuck = token.values.get("stuck_in", "")
            where = f" in {stuck}" if stuck else ""
            raise RuleError(f"{token.name}'s {own.name} is stuck{where}: free it first "
                            "(free_weapon) or attack unarmed")
        return own

    def degree(self, total: int, target: int) -> str:
        """``"made"``, ``"glancing"`` (reached by less than the band) or ``"failed"``."""
        if total < target:
            return "failed"
        return "glancing" if total < target + self.band else "made"

    def _attack(self, ctx: Resolution, cmd: Attack) -> None:
        state = ctx.state
        nums = self.attack_numbers(state, cmd)
        token, target = state.token(cmd.actor), state.token(cmd.target)
        w = nums.weapon
        self._place(ctx, token, f"attack {target.name}", 1,
                    f"{token.name} attacks {target.name} with the {w.name}",
                    self.costs["attack"], weapon=w,
                    attack=(token.id, w.key, target.id, not w.ranged))
        roll = ctx.roll(token.id, 1, self.attack_die,
                        f"To-Hit vs. {target.name} ({nums.to_hit:+d} against AC {nums.ac})")
        total = roll.total + nums.to_hit
        result = self.degree(total, nums.ac)
        if result == "failed":
            ctx.emit(Said(f"{token.name} misses {target.name} ({total} against AC {nums.ac})",
                          token.id))
            return
        dmg = ctx.roll(token.id, w.count, w.sides, f"{w.name} damage")
        amount = self.damage_of(dmg.total + nums.flat, result == "glancing")
        kind = "a Glancing Hit" if result == "glancing" else "a hit"
        ctx.emit(Said(f"{token.name} scores {kind} on {target.name} ({total} against AC "
                      f"{nums.ac}): {amount} damage", token.id))
        self._hurt(ctx, target, amount, f"{w.name}")

    def damage_of(self, rolled: int, glancing: bool) -> int:
        """Damage done by a hit whose dice and bonuses came to ``rolled``."""
        if glancing:
            num, den = self.glance
            rolled = rolled * num // den
        return max(self.min_damage, rolled)

    def attack_odds(self, nums: AttackNumbers) -> Odds:
        """Exact chances of ``nums``: to hit, the damage on a hit, and of dropping the target."""
        d20 = odds.die(self.attack_die)
        w = nums.weapon
        rolled = odds.dice(w.count, w.sides) + nums.flat
        full = rolled.map(lambda x: self.damage_of(x, False))
        glance = rolled.map(lambda x: self.damage_of(x, True))
        p_made = d20.chance(lambda r: self.degree(r + nums.to_hit, nums.ac) == "made")
        p_glance = d20.chance(lambda r: self.degree(r + nums.to_hit, nums.ac) == "glancing")
        success = p_made + p_glance
        table: dict[int, float] = {}
        if success > 0:
            for dist, weight in ((full, p_made), (glance, p_glance)):
                for value, p in dist.items():
                    table[value] = table.get(value, 0.0) + p * weight / success
        drop = (p_made * full.at_least(nums.hp_margin)
                + p_glance * glance.at_least(nums.hp_margin))
        return Odds(success, tuple(sorted(table.items())), drop)

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if not isinstance(cmd, Attack):
            return super().preview(state, cmd, version)
        try:
            nums = self.attack_numbers(state, cmd)
        except RuleError as err:
            return Preview(False, str(err))
        chances = self.attack_odds(nums)
        note = (f"d20 {nums.to_hit:+d} against AC {nums.ac}; a Glancing Hit (by less than "
                f"{self.band}) does half damage")
        return Preview(True, odds=chances, notes=(note,))

    # ------------------------------------------------------------------ damage and conditions

    def _hurt(self, ctx: Resolution, target: Token, amount: int, why: str) -> None:
        new = target.hp - amount
        ctx.emit(HpChanged(target.id, target.hp, new, why))
        if "asleep" in target.conditions:
            self._condition(ctx, target, "asleep", False)
            if "asleep_until" in target.values:
                ctx.emit(ValueChanged(target.id, "asleep_until", target.values["asleep_until"],
                                      None, "woken by the blow"))
        if new <= self.dead_at and target.alive:
            self._condition(ctx, target, "dead", True)

    def _condition(self, ctx: Resolution, token: Token, cond: str, on: bool = True) -> None:
        if (cond in token.conditions) == on:
            return
        ctx.emit(condition_change(token, cond, on))
        if not on or not isinstance(ctx.state.schedule, Round):
            return
        kinds: tuple[str, ...]
        if cond in self.helpless_conditions:
            kinds = ("sprint", "spell")
        elif cond in self.immobile_conditions:
            kinds = ("sprint",)
        else:
            return
        rnd = self._round(ctx.state)
        for p in rnd.plans:
            if p.actor == token.id and p.kind in kinds and self._running(rnd, p):
                self._drop_plan(ctx, p.actor, p.label, f"{token.name} is {cond}")

    def _running(self, rnd: Round, plan: Plan) -> bool:
        """Whether ``plan`` still has phases to go (this one included)."""
        return any(a.actor == plan.actor and a.label == plan.label
                   and (a.round > rnd.timeline.round or phase_index(a.end) >= rnd.phase_i)
                   for a in rnd.timeline.actions)

    def _drop_plan(self, ctx: Resolution, actor: str, label: str, why: str) -> None:
        rnd = self._round(ctx.state)
        new = replace(rnd, timeline=rnd.timeline.cancel(actor, label),
                      plans=tuple(p for p in rnd.plans if (p.actor, p.label) != (actor, label)),
                      pending=tuple(p for p in rnd.pending if p != (actor, label)))
        token = ctx.state.tokens.get(actor)
        self._set(ctx, new, f"{token.name if token else actor}'s {label} ends: {why}")

    def _add_value(self, ctx: Resolution, token: Token, key: str, item: str, note: str) -> None:
        old = token.values.get(key)
        have = tuple(old or ())
        ctx.emit(ValueChanged(token.id, key, old, (*have, item), note))

    def _remove_value(self, ctx: Resolution, token: Token, key: str, item: str,
                      note: str) -> None:
        old = tuple(token.values.get(key) or ())
        rest = list(old)
        rest.remove(item)
        ctx.emit(ValueChanged(token.id, key, old, tuple(rest) or None, note))

    # ------------------------------------------------------------------ rolls

    def _save(self, ctx: Resolution, token: Token, kind: str, against: Token | None = None) -> str:
        """A character's saving throw: ``"made"``, ``"glancing"`` or ``"failed"``."""
        bonus = self.save_bonus(ctx.state, token, against)
        target = self.saves[kind]
        name = SAVE_NAMES.get(kind, f"Save vs. {kind}")
        roll = ctx.roll(token.id, 1, self.save_die, f"{name} (needs {target}, {bonus:+d})")
        result = self.degree(roll.total + bonus, target)
        said = {"made": "makes the save", "glancing": "makes the save as a Glancing Hit",
                "failed": "fails the save"}[result]
        ctx.emit(Said(f"{token.name} {said} ({roll.total + bonus})", token.id))
        return result

    def _item_save(self, ctx: Resolution, owner: str, kind: str, what: str) -> bool:
        """An item's or object's saving throw: True when it holds."""
        target = self.item_saves[kind]
        name = SAVE_NAMES.get(kind, f"Saving Throw vs. {kind}")
        roll = ctx.roll(owner, 1, self.save_die, f"{name} for {what} (needs {target})")
        return roll.total >= target

    def _check(self, ctx: Resolution, token: Token, level: str, stat: str, what: str) -> bool:
        bonus = int(self.stat(token, stat))
        target = self.checks[level]
        roll = ctx.roll(token.id, 1, self.check_die, f"{what} (needs {target}, {bonus:+d})")
        ok = roll.total + bonus >= target
        ctx.emit(Said(f"{token.name} {'succeeds' if ok else 'fails'} ({roll.total + bonus})",
                      token.id))
        return ok

    def _pick(self, ctx: Resolution, names: Sequence[str], why: str) -> int:
        """A random one of ``names`` (index); one candidate needs no die."""
        if len(names) == 1:
            return 0
        shown = ", ".join(f"{i} {n}" for i, n in enumerate(names, start=1))
        if len(shown) > 120:
            shown = f"1 to {len(names)}"
        roll = ctx.roll("", 1, len(names), f"{why} ({shown})")
        return roll.total - 1

    def _direction(self, ctx: Resolution, why: str) -> tuple[str, int, int]:
        roll = ctx.roll("", 1, self.direction_die, f"random direction for {why} (1 north, 2 "
                        "north-east … 8 north-west)")
        return DIRECTIONS[roll.total - 1]

    # ------------------------------------------------------------------ space

    def _occupied(self, state: Encounter, but: str) -> set[Cell]:
        return {c for t in state.tokens.values() if t.alive and t.id != but
                for c in grid.footprint(t.cell, t.size)}

    def _slide(self, state: Encounter, token: Token, dx: int, dy: int, cells: int,
               occupied: set[Cell] | None = None) -> list[Cell]:
        """Cells a forced move goes through, stopping short of walls, edges and other tokens."""
        walls = self.space.walls(state)
        blocked = walls.step_test(token.size)
        taken = self._occupied(state, token.id) if occupied is None else occupied
        path = [token.cell]
        for _ in range(max(0, cells)):
            here = path[-1]
            nxt = (here[0] + dx, here[1] + dy)
            if not (0 <= nxt[0] <= state.map.width - token.size
                    and 0 <= nxt[1] <= state.map.height - token.size):
                break
            if blocked(here, nxt) or any(c in taken for c in grid.footprint(nxt, token.size)):
                break
            path.append(nxt)
        return path

    def gap(self, state: Encounter, a: Token, b: Token) -> float:
        """Metres between two tokens, edge to edge."""
        return grid.edge_distance(state.diagonal, a.cell, a.size, b.cell, b.size)

    def reach(self, state: Encounter, token: Token) -> float:
        return self._usable(token).reach

    def _threatens(self, state: Encounter, a: Token, b: Token) -> bool:
        return a.alive and self.gap(state, a, b) <= self.reach(state, a)

    def _engaged(self, state: Encounter, token: Token) -> bool:
        return any(e.alive and e.side != token.side
                   and (self._threatens(state, e, token) or self._threatens(state, token, e))
                   for e in state.tokens.values())

    def _alive(self, state: Encounter) -> list[Token]:
        return [t for t in state.tokens.values() if t.alive]

    # ------------------------------------------------------------------ Combat Events

    def _combat_event(self, ctx: Resolution, n: int, of: int) -> None:
        """One d20 on the table; re-roll while the result cannot occur."""
        for attempt in range(self.max_rerolls + 1):
            again = " (re-roll)" if attempt else ""
            roll = ctx.roll("", 1, self.event_die, f"Combat Event {n} of {of}{again}")
            row = next(r for r in self.table if r.low <= roll.total <= r.high)
            ctx.emit(Said(f"Combat Event: {row.name}"))
            why_not = self.handlers[row.key](ctx, row)
            if why_not is None:
                return
            ctx.emit(Said(f"{row.name} cannot occur ({why_not}): re-roll"))
        ctx.emit(Said(f"no Combat Event could occur in {self.max_rerolls} re-rolls"))

    def _armour_trouble(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        p = self.ev["armour_trouble"]
        people = self._alive(state)
        wearing = [t for t in people
                   if any(self.stat(t, k) and k not in self._damaged(t) for k in self.piece_ac)]
        if not wearing:
            return "nobody wears an undamaged helmet, shield or armour"
        who = people[self._pick(ctx, [t.name for t in people], f"{row.name}: random combatant")]
        face = ctx.roll("", 1, int(p["die"]), f"{row.name}: which piece").total
        piece = next(str(r[2]) for r in p["results"] if int(r[0]) <= face <= int(r[1]))
        if not self.stat(who, piece):
            return f"{who.name} has no {piece}"
        if piece in self._damaged(who):
            return f"{who.name}'s {piece} is already damaged"
        if self._item_save(ctx, who.id, str(p["item_save"]), f"{who.name}'s {piece}"):
            ctx.emit(Said(f"{who.name}'s {piece} takes the blow and holds", who.id))
            return None
        self._add_value(ctx, who, "damaged", piece,
                        f"{row.name}: {piece} damaged, AC −{self.piece_ac[piece]}")
        return None

    def _battlefield_damaged(self, ctx: Resolution, row: TableRow) -> str | None:
        walls = ctx.state.map.walls
        if not walls:
            return "the map has no wall, obstacle or terrain feature"

        def show(i: int) -> str:
            w = walls[i]
            pts = " – ".join(f"({x:g},{y:g})" for x, y in w.points[:2])
            return f"obstacle at {pts} …" if w.closed else f"wall {pts}"

        i = self._pick(ctx, [str(i + 1) for i in range(len(walls))],
                       f"{row.name}: which feature")
        if self._item_save(ctx, "", str(self.ev["battlefield_damaged"]["item_save"]), show(i)):
            ctx.emit(Said(f"the {show(i)} is damaged but holds"))
        else:
            ctx.emit(Said(f"the {show(i)} breaks (scaffolding breaks, tree uprooted, rope bridge "
                          "cut): the GM changes the map"))
        return None

    def _battlefield_shifts(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        p = self.ev["battlefield_shifts"]
        people = self._alive(state)
        if not people:
            return "nobody is on the map"
        moves: list[tuple[Token, list[Cell], str, int]] = []
        shared = bool(p["same_for_all"])
        if shared:
            n = ctx.roll("", 1, int(p["distance_die"]), f"{row.name}: distance in cells").total
            name, dx, dy = self._direction(ctx, row.name)
            # The front of the shift moves first, so nobody is blocked by a friend behind.
            people.sort(key=lambda t: -(t.x * dx + t.y * dy))
            taken = {c for t in people for c in grid.footprint(t.cell, t.size)}
            for t in people:
                mine = set(grid.footprint(t.cell, t.size))
                path = self._slide(state, t, dx, dy, n, taken - mine)
                taken -= mine
                taken |= set(grid.footprint(path[-1], t.size))
                moves.append((t, path, name, n))
        else:
            taken = self._occupied(state, "")
            for t in people:
                n = ctx.roll(t.id, 1, int(p["distance_die"]), f"{row.name}: distance").total
                name, dx, dy = self._direction(ctx, f"{row.name} ({t.name})")
                mine = set(grid.footprint(t.cell, t.size))
                path = self._slide(state, t, dx, dy, n, taken - mine)
                taken -= mine
                taken |= set(grid.footprint(path[-1], t.size))
                moves.append((t, path, name, n))
        if not any(len(path) > 1 for _, path, _, _ in moves):
            return "nobody has room to move that way"
        if shared:
            _, _, name, n = moves[0]
            ctx.emit(Said(f"everyone is swept {n} cells ({n * self._feet()} ft) {name}; "
                          "this provokes no Attacks of Opportunity"))
        for t, path, _, _ in sorted(moves, key=lambda m: list(state.tokens).index(m[0].id)):
            if len(path) > 1:
                ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))
        return None

    def _feet(self) -> int:
        return int(self.manifest.data["grid"]["feet_per_cell"])

    def _close_quarters(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        free = [t for t in self._alive(state) if "grappled" not in t.conditions]
        pairs = [(a, b) for i, a in enumerate(free) for b in free[i + 1:]
                 if a.side != b.side and (self._threatens(state, a, b)
                                          or self._threatens(state, b, a))]
        if not pairs:
            return "no two foes stand within each other's threat range"
        a, b = pairs[self._pick(ctx, [f"{x.name} & {y.name}" for x, y in pairs],
                                f"{row.name}: which pair")]
        ctx.emit(Said(f"{a.name} and {b.name} are locked together, no checks involved"))
        for x, y in ((a, b), (b, a)):
            ctx.emit(ValueChanged(x.id, "grappled_with", x.values.get("grappled_with"), y.id,
                                  f"{row.name}"))
            self._condition(ctx, x, "grappled")
        return None

    def _items(self, token: Token) -> list[str]:
        """Everything the token carries that can be damaged and is not yet."""
        have = []
        w = self.held_weapon(token)
        if w.key != "unarmed":
            have.append(w.key)
        have += [k for k in self.piece_ac if self.stat(token, k)]
        have += [str(i) for i in self.stat(token, "items")]
        return [i for i in have if i not in self._damaged(token)]

    def _held(self, token: Token) -> list[str]:
        """What the token holds in hand and could drop."""
        held = []
        w = self.held_weapon(token)
        if w.key != "unarmed" and "weapon stuck" not in token.conditions:
            held.append(w.key)
        if self.stat(token, "shield"):
            held.append("shield")
        return [h for h in held if h not in self._dropped(token)]

    def _item_name(self, key: str) -> str:
        return self.weapons[key].name if key in self.weapons else key

    def _damage_note(self, key: str) -> str:
        if key in self.piece_ac:
            return f", AC −{self.piece_ac[key]}"
        if key in self.weapons:
            return f", damage −{self.damaged_weapon}"
        return ""

    def _item_damaged(self, ctx: Resolution, row: TableRow) -> str | None:
        who_can = [t for t in self._alive(ctx.state) if self._items(t)]
        if not who_can:
            return "nobody carries an undamaged item"
        who = who_can[self._pick(ctx, [t.name for t in who_can], f"{row.name}: random combatant")]
        items = self._items(who)
        item = items[self._pick(ctx, [self._item_name(i) for i in items],
                                f"{row.name}: which item")]
        name = self._item_name(item)
        if self._item_save(ctx, who.id, str(self.ev["item_damaged"]["item_save"]),
                           f"{who.name}'s {name}"):
            ctx.emit(Said(f"{who.name}'s {name} is struck but holds", who.id))
            return None
        self._add_value(ctx, who, "damaged", item,
                        f"{row.name}: {name} damaged{self._damage_note(item)}")
        return None

    def _drop(self, ctx: Resolution, token: Token, item: str, why: str) -> None:
        self._add_value(ctx, token, "dropped", item, f"{why}: {self._item_name(item)} dropped")
        if item == self.held_weapon(token).key:
            self._condition(ctx, token, "disarmed")

    def _item_dropped(self, ctx: Resolution, row: TableRow) -> str | None:
        who_can = [t for t in self._alive(ctx.state) if self._held(t)]
        if not who_can:
            return "nobody holds anything"
        who = who_can[self._pick(ctx, [t.name for t in who_can], f"{row.name}: random combatant")]
        held = self._held(who)
        item = held[self._pick(ctx, [self._item_name(i) for i in held], f"{row.name}: which item")]
        self._drop(ctx, who, item, f"{row.name} (dropped, cut free or spilled)")
        return None

    def _knock_down(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        fighting = [t for t in self._alive(state)
                    if self._engaged(state, t) and "prone" not in t.conditions]
        if not fighting:
            return "nobody standing is engaged in melee"
        who = fighting[self._pick(ctx, [t.name for t in fighting],
                                  f"{row.name}: random combatant in melee")]
        ctx.emit(Said(f"{who.name} is knocked down, no save", who.id))
        self._condition(ctx, who, "prone")
        others = [t for t in self._alive(state) if t.id != who.id]
        if not others:
            return None
        near = min(self.gap(state, who, t) for t in others)
        if near > self.touch:
            ctx.emit(Said(f"nobody else is within touch range of {who.name}"))
            return None
        nearest = [t for t in others if self.gap(state, who, t) == near]
        fig = nearest[self._pick(ctx, [t.name for t in nearest], f"{row.name}: nearest figure")]
        if "prone" in fig.conditions:
            return None
        if self._save(ctx, fig, str(self.ev["knock_down"]["save"])) == "failed":
            ctx.emit(Said(f"{fig.name} falls down next to {who.name}", fig.id))
            self._condition(ctx, fig, "prone")
        return None

    def _lucky(self, ctx: Resolution, row: TableRow, key: str, what: str) -> str | None:
        state = ctx.state
        free = [t for t in self._alive(state) if not self._active(state, t, key)]
        if not free:
            return f"everyone already has a {row.name}"
        who = free[self._pick(ctx, [t.name for t in free], f"{row.name}: random combatant")]
        ctx.emit(ValueChanged(who.id, key, who.values.get(key), state.round,
                              f"{row.name}: {what} until the end of round {state.round}"))
        return None

    def _lucky_break(self, ctx: Resolution, row: TableRow) -> str | None:
        p = self.ev["lucky_break"]
        return self._lucky(ctx, row, "lucky_break", f"{int(p['ac']):+d} AC and "
                           f"{int(p['saves']):+d} to saves")

    def _lucky_opening(self, ctx: Resolution, row: TableRow) -> str | None:
        p = self.ev["lucky_opening"]
        return self._lucky(ctx, row, "lucky_opening", f"{int(p['to_hit']):+d} To-Hit, and saves "
                           f"against them at {int(p['saves_against']):+d}")

    def _mount_trouble(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        p = self.ev["mount_trouble"]
        riders = [t for t in self._alive(state)
                  if self.stat(t, "mount") and "dismounted" not in t.conditions]
        if not riders:
            return "nobody rides a mount or drives a vehicle"
        who = riders[self._pick(ctx, [t.name for t in riders],
                                f"{row.name}: random combatant with a mount or vehicle")]
        mount = str(self.stat(who, "mount"))
        face = ctx.roll("", 1, int(p["die"]), f"{row.name}: what happens").total
        what = next(str(r[2]) for r in p["results"] if int(r[0]) <= face <= int(r[1]))
        if what == "off_course":
            name, dx, dy = self._direction(ctx, f"{who.name}'s {mount}")
            rounds = ctx.roll("", 1, int(p["rounds_die"]), f"{row.name}: rounds off course").total
            until = state.round + rounds - 1
            direction = next(i for i, d in enumerate(DIRECTIONS, start=1) if d[0] == name)
            ctx.emit(ValueChanged(who.id, "off_course", who.values.get("off_course"),
                                  (until, direction),
                                  f"Off Course: the {mount} bolts {name} at full speed through "
                                  f"round {until}, unless the rider makes an Advanced Riding "
                                  "check"))
            path = self._slide(state, who, dx, dy, int(self.stat(who, "mount_speed")))
            if len(path) > 1:
                ctx.emit(TokenMoved(who.id, tuple(path), grid.cells_cost(state.diagonal, path)))
            return None
        if what == "bucks_wildly":
            ctx.emit(Said(f"Bucks Wildly: {who.name}'s {mount} bucks", who.id))
            if self._check(ctx, who, str(p["bucks_check"]), "riding", "Advanced Riding check"):
                return None
            if self._save(ctx, who, str(p["save"])) == "failed":
                self._condition(ctx, who, "prone")
                if self.stat(who, "mount_type") != "closed_vehicle":
                    ctx.emit(Said(f"{who.name} falls off the {mount}", who.id))
                    self._condition(ctx, who, "dismounted")
            return None
        ctx.emit(Said(f"Stumbles and Falls: {who.name}'s {mount} stumbles", who.id))
        if self._check(ctx, who, str(p["stumbles_check"]), "riding", "Riding check"):
            return None
        ctx.emit(Said(f"the {mount} goes down (knocked prone or turned over)", who.id))
        self._condition(ctx, who, "prone")
        if self._save(ctx, who, str(p["save"])) == "failed":
            rounds = ctx.roll("", 1, int(p["stun_die"]), "rounds stunned").total
            until = state.round + rounds - 1
            ctx.emit(ValueChanged(who.id, "stunned_until", who.values.get("stunned_until"), until,
                                  f"stunned for {rounds} round{'s' if rounds > 1 else ''}"))
            self._condition(ctx, who, "stunned")
        return None

    def _reinforcements(self, ctx: Resolution, row: TableRow) -> str | None:
        sides = list(self._round(ctx.state).initiative.order)
        side = sides[self._pick(ctx, sides, f"{row.name}: random side")]
        ctx.emit(Said(f"Reinforcements for {side}: allies show up if any are available (the GM "
                      "places them); characters whose Reaction was modified may switch sides"))
        return None

    def _retreat_paths(self, state: Encounter, side: str) -> list[tuple[Token, list[Cell]]]:
        """Where each threatened member of ``side`` falls back to, straight away from its foe."""
        cells = int(self.ev["retreat"]["cells"])
        taken = self._occupied(state, "")
        out = []
        for t in self._members(state, side):
            foes = [e for e in self._alive(state)
                    if e.side != side and t.alive and self._threatens(state, e, t)]
            if not foes:
                continue
            foe = min(foes, key=lambda e: self.gap(state, e, t))
            # Compare footprint centres (doubled, to stay in whole numbers).
            cx, cy, fx, fy = 2 * t.x + t.size, 2 * t.y + t.size, 2 * foe.x + foe.size, \
                2 * foe.y + foe.size
            dx, dy = (cx > fx) - (cx < fx), (cy > fy) - (cy < fy)
            mine = set(grid.footprint(t.cell, t.size))
            path = self._slide(state, t, dx, dy, cells, taken - mine)
            if len(path) > 1:
                out.append((t, path))
                taken = (taken - mine) | set(grid.footprint(path[-1], t.size))
        return out

    def _retreat(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        moves = {side: self._retreat_paths(state, side)
                 for side in self._round(state).initiative.order}
        sides = [side for side, paths in moves.items() if paths]
        if not sides:
            return "no threatened combatant has room to fall back"
        side = sides[self._pick(ctx, sides, f"{row.name}: random side")]
        cells = int(self.ev["retreat"]["cells"])
        ctx.emit(Said(f"{side} gives ground: every threatened combatant falls back "
                      f"{cells * self._feet()} ft, as if its foe had Pressed The Advantage"))
        for t, path in moves[side]:
            ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))
        return None

    def _slip(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        p = self.ev["slip"]
        people = self._alive(state)
        if not people:
            return "nobody is on the map"
        who = people[self._pick(ctx, [t.name for t in people], f"{row.name}: random combatant")]
        result = self._save(ctx, who, str(p["save"]))
        count = {"made": 1, "glancing": 2, "failed": 3}[result]
        possible = {"move": True, "drop": bool(self._held(who)),
                    "prone": "prone" not in who.conditions}
        # What cannot happen costs the character nothing, so it is the first one "chosen".
        order = sorted(p["choice_order"], key=lambda e: possible[str(e)])
        chosen = [str(e) for e in order[:count]]
        happen = [str(e) for e in p["choice_order"] if e in chosen and possible[str(e)]]
        ctx.emit(Said(f"{who.name} slips: " + ", ".join(
            {"move": f"moved {int(p['feet'])} ft", "drop": "drops a held item",
             "prone": "knocked prone"}[e] for e in happen), who.id))
        for effect in happen:
            if effect == "move":
                name, dx, dy = self._direction(ctx, f"{who.name}'s slip")
                cells = max(1, round(int(p["feet"]) / self._feet()))
                path = self._slide(state, who, dx, dy, cells)
                if len(path) > 1:
                    ctx.emit(TokenMoved(who.id, tuple(path),
                                        grid.cells_cost(state.diagonal, path)))
                else:
                    ctx.emit(Said(f"{who.name} has no room to slide {name}", who.id))
            elif effect == "drop":
                held = self._held(who)
                item = held[self._pick(ctx, [self._item_name(i) for i in held],
                                       f"{row.name}: which item")]
                self._drop(ctx, who, item, row.name)
            else:
                self._condition(ctx, who, "prone")
        return None

    def _weapon_trouble(self, ctx: Resolution, row: TableRow) -> str | None:
        state = ctx.state
        p = self.ev["weapon_trouble"]
        rnd = self._round(state)
        ids = list(dict.fromkeys(a[0] for a in rnd.last_attacks))
        attackers = [state.tokens[i] for i in ids if i in state.tokens and state.tokens[i].alive]
        if not attackers:
            return "nobody attacked last round"
        who = attackers[self._pick(ctx, [t.name for t in attackers],
                                   f"{row.name}: random combatant who attacked last round")]
        face = ctx.roll("", 1, int(p["die"]), f"{row.name}: what happens").total
        what = next(str(r[2]) for r in p["results"] if int(r[0]) <= face <= int(r[1]))
        w = self.held_weapon(who)
        if w.key == "unarmed":
            return f"{who.name} fights with bare hands"
        if w.key in self._dropped(who) or "weapon stuck" in who.conditions:
            return f"{who.name}'s {w.name} is not in hand"
        if what == "disarmed":
            ctx.emit(Said(f"{who.name}'s {w.name} is wrenched away unless they save", who.id))
            if self._save(ctx, who, str(p["save"])) == "failed":
                self._drop(ctx, who, w.key, f"{row.name}: disarmed")
            return None
        if what == "hard_parry":
            if w.key in self._damaged(who):
                return f"{who.name}'s {w.name} is already damaged"
            ctx.emit(Said(f"a hard parry jars {who.name}'s {w.name}", who.id))
            if self._item_save(ctx, who.id, str(p["item_save"]), f"{who.name}'s {w.name}"):
                ctx.emit(Said(f"the {w.name} holds", who.id))
            else:
                self._add_value(ctx, who, "damaged", w.key,
                                f"{row.name}: {w.name} damaged{self._damage_note(w.key)}")
            return None
        hits = [a for a in rnd.last_attacks if a[0] == who.id and a[3] and a[1] == w.key
                and w.kind in p["stuck_kinds"]]
        if not hits:
            return (f"{who.name} did not strike in melee last round with a slashing or piercing "
                    "weapon")
        victim = state.tokens.get(hits[-1][2])
        where = victim.name if victim else hits[-1][2]
        ctx.emit(ValueChanged(who.id, "stuck_in", who.values.get("stuck_in"), where,
                              f"{row.name}: the {w.name} is stuck in the wound; freeing it takes "
                              "a move action and an Advanced Strength Feat"))
        self._condition(ctx, who, "weapon stuck")
        return None

    # ------------------------------------------------------------------ moving

    def _move_check(self, state: Encounter, token: Token) -> tuple[Round, float, bool]:
        """Round, metres allowed now, and whether the move is part of a sprint."""
        rnd = self._ready(state, token, "move", moving=True, cost=self.costs["move"])
        stop = self.immobile(token)
        if stop:
            fix = "stand up first" if stop == "prone" else "break free first"
            raise RuleError(f"{token.name} is {stop}: {fix}")
        busy = self._busy(rnd, token)
        if busy is not None:
            ran = dict(rnd.sprinted).get(token.id, 0.0)
            return rnd, max(0.0, self.sprint_metres - ran), True
        return rnd, self.walk, False

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        try:
            return self._move_check(state, token)[1]
        except RuleError:
            return 0.0

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        try:
            _, budget, _ = self._move_check(state, token)
        except RuleError as err:
            return str(err)
        if plan.cost > budget + 1e-9:
            return f"{token.name} can move {budget:g} m now, this path is {plan.cost:g} m"
        return None

    def _move(self, ctx: Resolution, cmd: Move) -> None:
        state = ctx.state
        token = state.token(cmd.actor)
        rnd, budget, sprinting = self._move_check(state, token)
        plan = self.plan(state, token, cmd.path)
        if plan.blocked:
            raise RuleError(plan.blocked)
        if plan.cost > budget + 1e-9:
            raise RuleError(f"{token.name} can move {budget:g} m now, this path is "
                            f"{plan.cost:g} m")
        if sprinting:
            ran = dict(rnd.sprinted)
            ran[token.id] = ran.get(token.id, 0.0) + plan.cost
            self._set(ctx, replace(rnd, sprinted=tuple(ran.items())),
                      f"{self.phase_text(rnd.phase)}: {token.name} runs {plan.cost:g} m "
                      f"(sprint, {self.sprint_metres - ran[token.id]:g} m left this phase)")
        else:
            self._place(ctx, token, "move", 1, f"{token.name} moves {plan.cost:g} m",
                        self.costs["move"])
        ctx.emit(TokenMoved(token.id, plan.cells, plan.cost))
        for enemy, step in plan.leaves:
            ctx.emit(LeftReach(token.id, enemy, step))

    # ------------------------------------------------------------------ other actions

    def _act(self, ctx: Resolution, cmd: Act) -> None:
        handlers: dict[str, Callable[[Resolution, Token, Act], None]] = {
            "sprint": self._sprint, "cast": self._cast, "sustain": self._sustain,
            "cancel": self._cancel, "stand": self._stand, "pick_up": self._pick_up,
            "free_weapon": self._free_weapon, "break_free": self._break_free,
        }
        if cmd.action not in handlers:
            raise RuleError(f"Speed Rank has no action {cmd.action!r} (actions: "
                            f"{', '.join(ACTS)}, and attack, move, end_turn)")
        handlers[cmd.action](ctx, ctx.state.token(cmd.actor), cmd)

    def _spans(self, rnd: Round, token: Token, label: str) -> str:
        pieces = [a for a in rnd.timeline.actions if a.actor == token.id and a.label == label]
        out = []
        for a in pieces:
            where = f"phases {a.start} to {a.end}" if a.start != a.end else f"phase {a.start}"
            out.append(where if a.round == rnd.timeline.round else f"{where} of round {a.round}")
        return ", then ".join(out)

    def _sprint(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        self._ready(ctx.state, token, "sprint", cost=self.costs["sprint"])
        stop = self.immobile(token)
        if stop:
            raise RuleError(f"{token.name} is {stop} and cannot sprint")
        self._place(ctx, token, "sprint", self.sprint_phases,
                    f"{token.name} sprints, {self.sprint_metres:g} m a phase",
                    self.costs["sprint"], spans=True,
                    plan=Plan(token.id, "sprint", "sprint"))

    def spell_span(self, rnd: Round, token: Token, spell: Spell) -> int:
        """Phases from now until ``spell`` takes effect, both ends included.

        Spell Speed is added to the Fast phase (moved by the side's 1 or 10), or to the
        phase the casting starts in when that is later; a delay adds phases after that.
        """
        floor = _FAST + self.shift(rnd, token.side)
        done = max(rnd.phase_i, floor) + spell.speed + spell.delay
        return done - rnd.phase_i + 1

    def _cast(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        state = ctx.state
        key = cmd.detail.strip()
        if key not in self.spells:
            known = ", ".join(sorted(set(self.known_spells(token)))) or "none"
            raise RuleError(f"{token.name} has no spell {key!r} memorized (left: {known})")
        spell = self.spells[key]
        if key not in self.known_spells(token):
            raise RuleError(f"{token.name} has no {spell.name} memorized")
        self._ready(state, token, f"cast {spell.name}", spell=True, cost=self.costs["cast"])
        if not cmd.target:
            raise RuleError(f"{spell.name} needs a target")
        target = state.token(cmd.target)
        self._in_range(state, token, target, spell)
        rnd = self._round(state)
        span = self.spell_span(rnd, token, spell)
        self._place(ctx, token, spell.name, span,
                    f"{token.name} begins casting {spell.name} at {target.name}, to take effect "
                    "at the end", self.costs["cast"], spell=True, spans=True,
                    plan=Plan(token.id, spell.name, "spell", key, target.id))
        cast = (*tuple(token.values.get("spells_cast") or ()), key)
        ctx.emit(ValueChanged(token.id, "spells_cast", token.values.get("spells_cast"), cast,
                              f"{spell.name} used from memory"))
        if span == 1:
            # Cast and done in this very phase: its turn has already begun, so it lands now.
            self._spell_effect(ctx, token, self._round(ctx.state).plans[-1])

    def _in_range(self, state: Encounter, caster: Token, target: Token, spell: Spell) -> None:
        gap = self.gap(state, caster, target)
        if gap > spell.range:
            raise RuleError(f"{target.name} is {gap:g} m away; {spell.name} reaches "
                            f"{spell.range:g} m")
        if not line_of_sight(self.space.walls(state), caster, target):
            raise RuleError(f"{caster.name} cannot see {target.name}")

    def _own_plan(self, rnd: Round, token: Token, detail: str,
                  among: Iterable[tuple[str, str]]) -> tuple[str, str]:
        mine = [p for p in among if p[0] == token.id]
        if detail:
            mine = [p for p in mine if p[1] == detail]
        if len(mine) == 1:
            return mine[0]
        if not mine:
            what = f" called {detail!r}" if detail else ""
            raise RuleError(f"{token.name} has no such action{what} to sustain or cancel")
        raise RuleError(f"{token.name} has {len(mine)} of those; name one in detail: "
                        f"{', '.join(p[1] for p in mine)}")

    def _sustain(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        rnd = self._ready(ctx.state, token, "sustain", decision=True)
        if not rnd.pending or all(p[0] != token.id for p in rnd.pending):
            raise RuleError(f"{token.name} has no action carried into this round to sustain")
        if rnd.phase_i != _S:
            raise RuleError("a carried action is sustained or cancelled in the Starting Phase")
        actor, label = self._own_plan(rnd, token, cmd.detail, rnd.pending)
        plan = rnd.plan(actor, label)
        kind = plan.kind if plan is not None else "sprint"
        cost = self.costs["cast" if kind == "spell" else kind]
        new = replace(rnd, pending=tuple(p for p in rnd.pending if p != (actor, label)),
                      spent=self._charge(rnd, token, cost))
        extra = "; no further memorized spell is used" if kind == "spell" else ""
        self._set(ctx, new, f"{self.phase_text(rnd.phase)}: {token.name} sustains {label} "
                  f"({self._spans(new, token, label)}), spending "
                  f"{' and '.join(cost) + ' actions' if len(cost) > 1 else f'a {cost[0]} action'}"
                  f"{extra}")

    def _cancel(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        rnd = self._ready(ctx.state, token, "cancel", decision=True)
        mine = [(p.actor, p.label) for p in rnd.plans if self._running(rnd, p)]
        actor, label = self._own_plan(rnd, token, cmd.detail, mine)
        self._drop_plan(ctx, actor, label, f"{token.name} cancels it")

    def _stand(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        if "prone" not in token.conditions:
            raise RuleError(f"{token.name} is not prone")
        self._ready(ctx.state, token, "stand up", cost=self.costs["stand"])
        self._place(ctx, token, "stand up", 1, f"{token.name} stands up", self.costs["stand"])
        self._condition(ctx, token, "prone", False)

    def _pick_up(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        dropped = self._dropped(token)
        if not dropped:
            raise RuleError(f"{token.name} has dropped nothing")
        item = cmd.detail.strip() or dropped[0]
        if item not in dropped:
            names = ", ".join(dropped)
            raise RuleError(f"{token.name} has not dropped {item!r} (dropped: {names})")
        self._ready(ctx.state, token, "pick anything up", cost=self.costs["pick_up"])
        name = self._item_name(item)
        self._place(ctx, token, f"pick up {name}", 1, f"{token.name} picks up the {name}",
                    self.costs["pick_up"])
        self._remove_value(ctx, token, "dropped", item, f"{name} back in hand")
        if item == self.held_weapon(token).key:
            self._condition(ctx, token, "disarmed", False)

    def _free_weapon(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        if "weapon stuck" not in token.conditions:
            raise RuleError(f"{token.name}'s weapon is not stuck")
        self._ready(ctx.state, token, "free the weapon", cost=self.costs["free_weapon"])
        w = self.held_weapon(token)
        self._place(ctx, token, f"free {w.name}", 1,
                    f"{token.name} tries to wrench the {w.name} free", self.costs["free_weapon"])
        level = str(self.ev["weapon_trouble"]["free_check"])
        if self._check(ctx, token, level, "strength_bonus", "Advanced Strength Feat"):
            ctx.emit(ValueChanged(token.id, "stuck_in", token.values.get("stuck_in"), None,
                                  f"the {w.name} comes free"))
            self._condition(ctx, token, "weapon stuck", False)

    def _break_free(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        if "grappled" not in token.conditions:
            raise RuleError(f"{token.name} is not grappled")
        self._ready(ctx.state, token, "break free", cost=self.costs["break_free"])
        self._place(ctx, token, "break free", 1, f"{token.name} struggles to break free",
                    self.costs["break_free"])
        if not self._check(ctx, token, "normal", "strength_bonus", "Strength Feat to break free"):
            return
        other = ctx.state.tokens.get(str(token.values.get("grappled_with", "")))
        for t in (token, other):
            if t is None:
                continue
            ctx.emit(ValueChanged(t.id, "grappled_with", t.values.get("grappled_with"), None,
                                  "the grapple is broken"))
            self._condition(ctx, t, "grappled", False)

    # ------------------------------------------------------------------ spells taking effect

    def _due_spells(self, ctx: Resolution) -> None:
        state = ctx.state
        rnd = self._round(state)
        side = rnd.current_side
        for a in rnd.timeline.ending_at(rnd.phase):
            plan = rnd.plan(a.actor, a.label)
            caster = state.tokens.get(a.actor)
            if plan is None or plan.kind != "spell" or caster is None or caster.side != side:
                continue
            if self._final_piece(rnd, a):
                self._spell_effect(ctx, caster, plan)

    def _spell_effect(self, ctx: Resolution, caster: Token, plan: Plan) -> None:
        state = ctx.state
        spell = self.spells[plan.spell]
        ctx.emit(Said(f"{caster.name}'s {spell.name} takes effect", caster.id))
        target = state.tokens.get(plan.target)
        if target is None or not target.alive:
            ctx.emit(Said(f"{spell.name} finds no target and is lost", caster.id))
            return
        try:
            self._in_range(state, caster, target, spell)
        except RuleError as err:
            ctx.emit(Said(f"{spell.name} is lost: {err}", caster.id))
            return
        victims = [target] if spell.radius <= 0 else [
            t for t in self._alive(state) if self.gap(state, target, t) <= spell.radius]
        for v in victims:
            saved = False
            if spell.save:
                saved = self._save(ctx, v, spell.save, against=caster) != "failed"
            if spell.count > 0 and not (saved and not spell.save_halves):
                roll = ctx.roll(caster.id, spell.count, spell.sides, f"{spell.name} on {v.name}")
                amount = max(0, roll.total + spell.bonus)
                if saved:
                    amount //= 2
                if amount:
                    self._hurt(ctx, v, amount, spell.name)
            if spell.condition and not saved and v.alive:
                until = state.round + spell.rounds - 1
                ctx.emit(ValueChanged(v.id, f"{spell.condition}_until",
                                      v.values.get(f"{spell.condition}_until"), until,
                                      f"{spell.name}: {spell.condition} through round {until}"))
                self._condition(ctx, v, spell.condition)

    # ------------------------------------------------------------------ what the panels ask

    def check_token(self, token: Token) -> None:
        # Every key, type, range, race, weapon, spell and mount type is in [stat_block.*],
        # checked by the base class; _check_stat_block keeps it in step with [stats].
        super().check_token(token)

    def turn_order(self, state: Encounter) -> TurnOrder | None:
        if not isinstance(state.schedule, Round):
            return None
        rnd = state.schedule
        rows: list[OrderRow] = []
        for i, s in enumerate(rnd.initiative.sides):
            side_state: RowState = ("acting" if i == rnd.side else "done" if i < rnd.side
                                    else "waiting")
            key = f"d{rnd.initiative.die}: {s.roll}"
            if s.tiebreak:
                key += f" (re-roll {', '.join(map(str, s.tiebreak))})"
            detail = ("rolled 1: last, actions delayed one phase" if s.shift > 0 else
                      "rolled 10: first, actions moved up one phase" if s.shift < 0 else "")
            rows.append(OrderRow(s.side, s.side, s.side, key, side_state, detail))
            for t in self._members(state, s.side):
                rows.append(self._token_row(state, rnd, t, side_state))
        title = (f"Round {rnd.timeline.round} — {self.phase_text(rnd.phase)}: "
                 f"{_poss(rnd.current_side)} turn")
        return TurnOrder(title, tuple(rows))

    def _token_row(self, state: Encounter, rnd: Round, t: Token,
                   side_state: RowState) -> OrderRow:
        base = self.base_speed(t)
        w = self._usable(t)
        first = self.earliest_phase(rnd, t)
        std, mov = self.actions_left(rnd, t.id)
        detail = (f"base speed {base}, {w.name} {w.speed}; acts from phase {first}; "
                  f"{std} standard, {mov} move action{'s' if mov != 1 else ''} left")
        busy = self._busy(rnd, t)
        if busy is not None:
            detail += f"; {busy[0].label} through phase {busy[0].end}"
        if t.conditions:
            detail += f"; {', '.join(t.conditions)}"
        status: RowState
        if not t.alive:
            status = "out"
        elif busy is not None:
            status = "declared"
        elif self.actions_left(rnd, t.id) == (0, 0) or side_state == "done":
            status = "done"
        elif side_state == "acting" and self._can_act(state, rnd, t, rnd.phase_i):
            status = "acting"
        else:
            status = "waiting"
        return OrderRow(t.id, t.name, t.side, f"rank {base}", status, detail)

    def timeline(self, state: Encounter) -> Timeline | None:
        if not isinstance(state.schedule, Round):
            return None
        rnd = state.schedule
        now = rnd.timeline.round
        items: list[TimelineItem] = []
        for side in rnd.initiative.order:
            shift = self.shift(rnd, side)
            for t in self._members(state, side):
                if not t.alive:
                    continue
                first = phase_index(self.earliest_phase(rnd, t))
                note = ("ready (delayed one phase: rolled 1)" if shift > 0 else
                        "ready (moved up one phase: rolled 10)" if shift < 0 else "ready")
                items.append(TimelineItem(t.id, note, first, first))
                mine = sorted((a for a in rnd.timeline.actions
                               if a.actor == t.id and a.round == now),
                              key=lambda a: phase_index(a.start))
                items += [TimelineItem(t.id, a.label, phase_index(a.start), phase_index(a.end),
                                       a.continued) for a in mine]
        return Timeline(SPEED_PHASES, rnd.phase_i, tuple(items))

    def actions_for(self, state: Encounter, actor: str) -> list[ActionOption]:
        token = state.tokens.get(actor)
        if token is None:
            return []

        def option(key: str, label: str, aim: Aim, test: Callable[[], object]) -> ActionOption:
            try:
                test()
            except RuleError as err:
                return ActionOption(key, label, aim, False, str(err))
            return ActionOption(key, label, aim)

        def ready(what: str, **how: Any) -> Callable[[], object]:
            return lambda: self._ready(state, token, what, **how)

        weapon = self._usable(token)
        out = [
            option("attack", f"Attack ({weapon.name})", "token",
                   ready(f"attack with the {weapon.name}", weapon=weapon,
                         cost=self.costs["attack"])),
            option("move", f"Move ({self.walk:g} m)", "cell",
                   lambda: self._move_check(state, token)),
            option("sprint", f"Sprint ({self.sprint_phases} phases)", "none",
                   lambda: self._no_stop(self._ready(state, token, "sprint",
                                                     cost=self.costs["sprint"]), token)),
        ]
        out += [option("cast", f"Cast {self.spells[key].name}", "token",
                       ready("cast", spell=True, cost=self.costs["cast"]))
                for key in dict.fromkeys(self.known_spells(token))]
        if isinstance(state.schedule, Round):
            rnd = state.schedule
            if any(p[0] == actor for p in rnd.pending):
                out.append(option("sustain", "Sustain carried action", "none",
                                  ready("sustain", decision=True)))
            if any(p.actor == actor and self._running(rnd, p) for p in rnd.plans):
                out.append(option("cancel", "Cancel action", "none",
                                  ready("cancel", decision=True)))
        out += [option(key, label, "none", ready(label.lower(), cost=self.costs[key]))
                for cond, key, label in (("prone", "stand", "Stand up"),
                                         ("weapon stuck", "free_weapon", "Free stuck weapon"),
                                         ("grappled", "break_free", "Break free"))
                if cond in token.conditions]
        if self._dropped(token):
            out.append(option("pick_up", "Pick up", "none",
                              ready("pick anything up", cost=self.costs["pick_up"])))
        out.append(option("end_turn", "End the side's turn", "none",
                          lambda: self._round(state)))
        return out

    def _no_stop(self, rnd: Round, token: Token) -> Round:
        stop = self.immobile(token)
        if stop:
            raise RuleError(f"{token.name} is {stop}")
        return rnd

    # ------------------------------------------------------------------ bench

    def bench(self) -> list[tuple[str, Callable[[], object], float]]:
        """Figures for ``tacmap bench``: one attack executed, one attack's odds."""
        state = Encounter(ruleset=self.id, ruleset_version=self.manifest.version,
                          map=MapSpec(30, 20), diagonal=self.manifest.diagonal, seed=7)
        state.tokens["ana"] = Token("ana", "Ana", "Adventurers", 5, 5, hp=40, max_hp=40,
                                    stats={"weapon": "longsword", "to_hit": 3, "ac": 14})
        state.tokens["brak"] = Token("brak", "Brak", "Red Company", 6, 5, hp=40, max_hp=40,
                                     stats={"weapon": "mace", "ac": 13})
        referee = Referee(state, self)
        # Fixed initiative with no tie, so the set-up never meets a Combat Event.
        referee.execute(StartCombat(), FixedDice([9, 4]))
        while referee.state.schedule.phase != "0" \
                or referee.state.schedule.current_side != "Adventurers":
            referee.execute(EndTurn())
        attack = Attack("ana", "brak")

        def execute() -> None:
            referee.execute(attack)
            referee.undo()

        def preview() -> None:
            found = referee.preview(attack)
            assert found.odds is not None

        return [("execute one attack, command to events", execute, 5.0),
                ("exact odds for one attack preview", preview, 20.0)]


def _poss(name: str) -> str:
    """``"Blue Company's"``, ``"Adventurers'"``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def create(manifest: Manifest) -> Ruleset:
    """The Speed Rank ruleset."""
    return SpeedRank(manifest)

