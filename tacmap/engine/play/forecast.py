"""Forecast: play the encounter out many times from its state now, under its own rules.

Each fight copies the encounter, gives it its own dice seed (derived from the
forecast's seed and the fight's number) and lets ``Aggressive`` play every
combatant through the referee (the headless ``Driver`` of ``autoplay``) until
at most one side has anybody left in the fight, or a round cap (undecided)::

    >>> result = forecast(state, ruleset, fights=200, seed=1)   # doctest: +SKIP
    >>> result.win("heroes")                                    # doctest: +SKIP
    (0.62, 0.55, 0.68)

Fights run in fixed batches of ``BATCH``; a batch is the unit a worker process
plays and the unit the policy's caches live in, so a forecast depends on its
seed alone, whatever the number of worker processes.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import math
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Move
from tacmap.engine.model.state import Cell, Encounter, Token, sides_of
from tacmap.engine.play.autoplay import Choice, Driver, Policy, Table
from tacmap.engine.play.hints import DOWN, Hints
from tacmap.engine.play.referee import Referee
from tacmap.engine.play.retreat import Retreat
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.engine.rules.views import ActionOption, Odds
from tacmap.engine.space.geometry import line_of_sight
from tacmap.engine.space.grid import edge_distance

#: Fights a worker plays in one go, with one set of policy caches (fixed: determinism).
BATCH = 25
#: Odds the policy works out afresh for one decision once it has an attack in hand: the
#: rest wait for a later decision (an attack's odds cost a millisecond or more).
FRESH = 1
#: Rounds after which a fight is called undecided.
MAX_ROUNDS = 30
#: Gestures after which a fight is called undecided, whatever its rounds (a safety net).
MAX_STEPS = 5000
#: z of a two-sided 95% interval.
Z95 = 1.959964


def out_of_fight(token: Token) -> bool:
    """Whether ``token`` is out of the fight: dead, at 0 HP or below, or down (``DOWN``)."""
    return token.hp <= 0 or any(c in DOWN for c in token.conditions)


def in_fight(state: Encounter) -> dict[str, list[Token]]:
    """The tokens still in the fight, by side."""
    sides: dict[str, list[Token]] = {}
    for t in state.tokens.values():
        if not out_of_fight(t):
            sides.setdefault(t.side, []).append(t)
    return sides


def fight_seed(seed: int, index: int) -> int:
    """The dice seed of fight ``index`` of a forecast seeded ``seed`` (0 to 10⁹)."""
    digest = hashlib.sha256(f"tacmap-forecast:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 1_000_000_000


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``hits``/``n`` (0–1 when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# --- the policy --------------------------------------------------------------------




def hints_of(ruleset: Ruleset) -> Hints:
    """The ruleset's hints for the policy (none when it gives none)."""
    give = getattr(ruleset, "forecast_hints", None)
    out = give() if callable(give) else None
    return replace(out if isinstance(out, Hints) else Hints(),
                   ruleset_out=ruleset.out_of_fight)


#: What an attack's odds are looked up by: who with what, on whom from where.
OddsKey = tuple[object, ...]


class Aggressive:
    """The forecast's policy: attack the best target in reach, else close in, else wait.

    An attack is any offered option aimed at a token whose preview gives odds; its
    worth is the damage it is expected to do (no more than the target has left)
    plus half the target's HP times the chance to drop it. Odds are looked up
    once per batch of fights (``cache``) and then trusted: an attack the referee
    refuses is marked for that state and the next best is taken. Failing an
    attack, the combatant moves by a legal path towards the nearest enemy it can
    reach (the target of its declared attack, if any), at most twice a turn.
    """

    #: Odds worked out afresh per decision once an attack is in hand (the autopilot: all).
    fresh = FRESH

    def __init__(self, rng: random.Random, hints: Hints, cache: dict[OddsKey, Odds | None]
                 ) -> None:
        self.rng = rng
        self.hints = hints
        self.cache = cache
        self.pending: tuple[int, OddsKey] | None = None
        self.refused: set[OddsKey] = set()
        self.refused_at = -1
        #: Every attack ``best_attack`` valued in its last call, with its worth.
        self.scored: list[tuple[float, Choice]] = []
        self.turn: tuple[int, str] = (-1, "")
        self.moves = 0
        # (mover, from, to) with no way there at all: walls stay put for the fight, and
        # a search round them floods the map (tens of milliseconds) each time.
        self.walled_off: set[tuple[str, Cell, Cell]] = set()

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        """The best attack, else a move towards an enemy, else a hinted option, else None."""
        referee = table.referee
        state = referee.state
        version = referee.version
        if self.refused_at != version:
            self.refused.clear()
            self.refused_at = version
        if self.pending is not None and self.pending[0] == version:
            self.refused.add(self.pending[1])  # the referee did not take it: state unchanged
        self.pending = None
        if (state.round, actor) != self.turn:
            self.turn, self.moves = (state.round, actor), 0
        me = state.tokens[actor]
        enabled = [o for o in options if o.enabled and o.key not in self.hints.avoid
                   and o.key != "end_turn"]
        attack = self.best_attack(table, me, enabled)
        if attack is not None:
            self.pending = (version, attack[0])
            return attack[1]
        move = next((o for o in enabled if o.key == "move"), None)
        if move is not None and self.moves < 2:
            step = self.approach(table, me, move, enabled)
            if step is not None:
                self.moves += 1
                self.pending = (version, ("move", actor, "", ""))
                return step
        for hinted in self.hints.prefer:
            option = next((o for o in enabled if o.key == hinted), None)
            tried = ("prefer", actor, hinted, "")
            if option is not None and tried not in self.refused:
                aimed = table.aim(actor, option)
                if aimed is not None:
                    self.pending = (version, tried)
                    return aimed
        return None

    def best_attack(self, table: Table, me: Token, enabled: Sequence[ActionOption]
                    ) -> tuple[OddsKey, Choice] | None:
        """The attack worth most now, with its cache key, or None."""
        if not any(o.target == "token" and o.key != "move" for o in enabled):
            return None  # the usual step of a fight: nothing to aim at anybody
        state = table.state
        # The most hurt first: their odds are worked out first when few fresh ones may be.
        enemies = sorted((t for t in state.tokens.values()
                          if t.side != me.side and not self.out(t)), key=lambda t: t.hp)
        best: tuple[float, OddsKey, Choice] | None = None
        self.scored = []
        fresh = 0
        # The numbers the ruleset tracks on the attacker (a dice pool, stamina, actions
        # left) and its conditions change its odds: the key holds them. Lists and words
        # (the faces last rolled, a declaration) and HP do not (the drop is worked out
        # here from the damage), except for a declared attack, thrown with what was
        # rolled for it this round (reflex's kept pool): its key holds every value.
        tracked = [(k, v) for k, v in me.values.items() if isinstance(v, int)]
        mine = f"{me.id}|{tracked!r}|{me.conditions!r}"
        declared = ""  # worked out when a declared attack is met
        for option in enabled:
            if option.target != "token" or option.key == "move":
                continue
            plain = (me.id, option.label, option.detail, "")
            if plain in self.cache:
                continue  # an option with no odds: not an attack
            aims = [t for t in enemies if not option.at or t.id == option.at]
            for target in aims:
                # The offset too: reach and range are judged on it, and a refused attack
                # costs a whole step of the fight.
                if option.at and not declared:
                    declared = f"{me.id}|{sorted(me.values.items())!r}|{me.conditions!r}"
                key = (declared if option.at else mine, option.label, option.detail,
                       target.id, target.conditions, _offset(me, target))
                # Out of reach or sight from these very cells: asked once a batch (most
                # previews a fight makes are of attacks out of reach).
                where = (*key, me.cell, target.cell)
                if key in self.refused or where in self.cache:
                    continue
                if key not in self.cache:
                    if best is not None and fresh >= self.fresh and not option.at:
                        continue  # looked at in a later decision, once cached
                    fresh += 1
                    preview = table.referee.preview(
                        Choice(option, target.id).command(me.id))
                    if not preview.legal:
                        self.refused.add(key)
                        self.cache[where] = None
                        continue
                    if preview.odds is None:
                        self.cache[plain] = None
                        break
                    self.cache[key] = self.priced(table, me, Choice(option, target.id),
                                                  preview.odds)
                odds = self.cache[key]
                if odds is None:
                    continue
                value = self.value(odds, target)
                if value > 0:
                    choice = Choice(option, target.id)
                    self.scored.append((value, choice))
                    if best is None or value > best[0]:
                        best = (value, key, choice)
        return None if best is None else (best[1], best[2])

    def priced(self, table: Table, me: Token, choice: Choice, odds: Odds) -> Odds:
        """The odds an attack is judged by: the preview's, as they are."""
        return odds

    def value(self, odds: Odds, target: Token) -> float:
        """What an attack with ``odds`` on ``target`` is worth (``worth``)."""
        return worth(odds, target.hp)

    def out(self, token: Token) -> bool:
        """Out of the fight, with the ruleset's own down conditions."""
        return self.hints.out(token)

    def approach(self, table: Table, me: Token, move: ActionOption,
                 enabled: Sequence[ActionOption]) -> Choice | None:
        """A legal move towards the nearest enemy (the declared target first), or None."""
        state = table.state
        declared = {o.at for o in enabled if o.at}
        enemies = [t for t in state.tokens.values() if t.side != me.side and not self.out(t)]
        if not enemies:
            return None
        if declared & {t.id for t in enemies}:
            enemies = [t for t in enemies if t.id in declared]
        if any(_at_grips(state, table.referee.ruleset, me, t) for t in enemies):
            return None  # already at grips: walking off would only draw attacks
        enemies.sort(key=lambda t: _gap(me, t))
        referee = table.referee
        for enemy in enemies[:3]:
            ring = _ring(state, me, enemy, referee.ruleset)
            if me.cell in ring:
                return None  # there already: a move would be 0 m, or a step for nothing
            ring.sort(key=lambda c: max(abs(c[0] - me.x), abs(c[1] - me.y)))
            far = None
            for cell in ring[:2]:
                if (me.id, me.cell, cell) in self.walled_off:
                    continue
                preview = referee.preview(Move(me.id, (cell,)))
                if preview.legal:
                    return Choice(move, path=(cell,))
                if far is None and len(preview.path) > 1:
                    far = preview.path
                elif len(preview.path) <= 1:
                    self.walled_off.add((me.id, me.cell, cell))
            if far is not None:
                reached = self.furthest(table, me, far)
                if reached is not None:
                    return Choice(move, path=(reached,))
        return None

    def furthest(self, table: Table, me: Token, route: Sequence[Cell]) -> Cell | None:
        """The furthest cell of ``route`` the token may move to now (bisection)."""
        cells = [c for c in route if c != me.cell]
        lo, hi, found = 0, len(cells) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            if table.referee.preview(Move(me.id, (cells[mid],))).legal:
                found, lo = cells[mid], mid + 1
            else:
                hi = mid - 1
        return found


def worth(odds: Odds, hp: int) -> float:
    """Expected HP taken (capped at what is left) plus half the HP of a likely drop."""
    left = max(hp, 1)
    dealt = odds.success * sum(min(d, left) * p for d, p in odds.damage)
    drop = max(odds.drop, odds.success * sum(p for d, p in odds.damage if d >= left))
    return dealt + drop * left * 0.5 + odds.success * 0.01


def _offset(a: Token, b: Token) -> tuple[int, int]:
    """Cells between two footprints across and down, the larger first: what distance,
    reach and range depend on under every diagonal rule."""
    dx = max(b.x - (a.x + a.size - 1), a.x - (b.x + b.size - 1), 0)
    dy = max(b.y - (a.y + a.size - 1), a.y - (b.y + b.size - 1), 0)
    return (dx, dy) if dx >= dy else (dy, dx)


def _gap(a: Token, b: Token) -> int:
    """Cells between two footprints (1: adjacent)."""
    dx = max(b.x - (a.x + a.size - 1), a.x - (b.x + b.size - 1), 0)
    dy = max(b.y - (a.y + a.size - 1), a.y - (b.y + b.size - 1), 0)
    return max(dx, dy)


def _at_grips(state: Encounter, ruleset: Ruleset, me: Token, enemy: Token) -> bool:
    """Beside ``enemy`` and within reach of it: a corner is not, where reach counts the
    diagonal as 2 m (``reach_rule``), so there the token still steps round to a side."""
    # A wall between the two (a corner of a building) is no grip either: neither can strike
    # across it, and two tokens that took it for one stood there all fight.
    return _gap(me, enemy) <= 1 and edge_distance(
        ruleset.reach_rule(state), me.cell, me.size, enemy.cell, enemy.size) \
        <= ruleset.reach(state, me) + 1e-9 and line_of_sight(ruleset.space.walls(state), me,
                                                             enemy)


def _ring(state: Encounter, me: Token, enemy: Token, ruleset: Ruleset | None = None
          ) -> list[Cell]:
    """Free cells where ``me`` would stand next to ``enemy`` (with ``ruleset``, free of
    others' declared moves too): those within its reach of it where there are any (a
    corner is 2 m off when reach counts diagonals rectilinear, and a token that stops
    there never strikes)."""
    taken = {(t.x + i, t.y + j) for t in state.tokens.values() if t.id != me.id
             and t.alive for i in range(t.size) for j in range(t.size)}
    if ruleset is not None:
        # Where another's declared move ends is taken too: of two moves declared into one
        # cell, one is made and the other lost (six_phase's conflict), and a side whose
        # members all ran for the same cell each round lost most of its moves.
        for plan in ruleset.declared(state):
            mover = state.tokens.get(plan.actor)
            if plan.to is not None and mover is not None and mover.id != me.id:
                taken.update((plan.to[0] + i, plan.to[1] + j)
                             for i in range(mover.size) for j in range(mover.size))
    out = []
    s = me.size
    for x in range(enemy.x - s, enemy.x + enemy.size + 1):
        for y in range(enemy.y - s, enemy.y + enemy.size + 1):
            if not (0 <= x <= state.map.width - s and 0 <= y <= state.map.height - s):
                continue
            if any((x + i, y + j) in taken for i in range(s) for j in range(s)):
                continue
            out.append((x, y))
    if ruleset is None:
        return out
    rule, reach = ruleset.reach_rule(state), ruleset.reach(state, me)
    near = [c for c in out
            if edge_distance(rule, c, s, enemy.cell, enemy.size) <= reach + 1e-9]
    walls = ruleset.space.walls(state)
    open_ = [c for c in near
             if line_of_sight(walls, msgspec.structs.replace(me, x=c[0], y=c[1]), enemy)]
    return open_ or near or out


# --- one fight ---------------------------------------------------------------------


#: ``maker(greedy, rng, hints, cache, ruleset)``: a fight's policy made from its greedy one
#: (the autopilot's ``by_side``). Passed in rather than imported, the autopilot building on
#: this module; a module-level function (or its ``partial``) reaches worker processes.
PolicyMaker = Callable[[Policy, random.Random, Hints, dict[OddsKey, Odds | None], Ruleset],
                       Policy]


@dataclass(frozen=True)
class Fight:
    """How one fight ended."""

    winner: str | None
    """The side left in the fight (None: undecided, or nobody left)."""
    rounds: int
    """Rounds played, the one it ended in included (0: over before it began)."""
    hp: tuple[int, ...]
    """HP left of each combatant, in the encounter's token order."""
    fallen: tuple[bool, ...]
    """Whether each combatant was out of the fight at the end."""
    retreated: str | None = None
    """The side that fled (``Retreat``): the fight ended there, won by nobody."""


def play_fight(start: Encounter, ruleset: Ruleset, seed: int, cache: dict[OddsKey, Odds | None],
               max_rounds: int = MAX_ROUNDS, policy: PolicyMaker | None = None,
               retreat: Retreat | None = None) -> Fight:
    """One fight from ``start`` (untouched) with dice seed ``seed``, played by ``Aggressive``
    or by what ``policy`` makes of it; ``retreat`` may end it early."""
    state = start.copy()
    state.seed = seed
    state.dice_drawn = 0
    referee = Referee(state, ruleset)
    hints = hints_of(ruleset)
    chosen: Policy = Aggressive(random.Random(seed), hints, cache)
    if policy is not None:
        chosen = policy(chosen, random.Random(seed), hints, cache, ruleset)
    driver = Driver(referee, chosen, random.Random(seed + 1), fog=False)

    def over(s: Encounter) -> bool:
        # Asked at every step: stops at the second side still standing.
        first = None
        for t in s.tokens.values():
            if not hints.out(t):
                if first is None:
                    first = t.side
                elif t.side != first:
                    return False
        return True

    rounds, fled = 0, False
    if not over(state):
        driver.start()
        first = referee.state.round
        at_start = 0 if retreat is None else sum(
            1 for t in state.tokens.values() if t.side == retreat.side and not hints.out(t))

        def ends(s: Encounter) -> bool:
            nonlocal fled
            if over(s):
                return True
            fled = retreat is not None and retreat.due(s, hints, at_start, s.round - first + 1)
            return fled

        # The driver stops at the cap; a fight that ends mid-round stops at once.
        driver.play(rounds=max_rounds, max_steps=MAX_STEPS, stop=ends)
        # The round it ended in counts; one stopped at the cap lasted the cap.
        rounds = min(max_rounds, referee.state.round - first + 1)
    left = _standing(referee.state, hints)
    winner = next(iter(left)) if len(left) == 1 else None
    tokens = list(referee.state.tokens.values())
    return Fight(winner, rounds, tuple(t.hp for t in tokens),
                 tuple(hints.out(t) for t in tokens),
                 retreat.side if fled and winner is None and retreat is not None else None)


def _standing(state: Encounter, hints: Hints) -> set[str]:
    return {t.side for t in state.tokens.values() if not hints.out(t)}


# --- the whole forecast ---------------------------------------------------------------


@dataclass
class Forecast:
    """What many fights from one state came to; ``add`` merges more fights in."""

    sides: tuple[str, ...]
    """Sides of the encounter, in the order their first token is listed."""
    ids: tuple[str, ...]
    """Token ids, in the encounter's order."""
    names: tuple[str, ...]
    """Token names, same order."""
    token_sides: tuple[str, ...]
    """Each token's side, same order."""
    start_hp: tuple[int, ...]
    """HP of each token when the forecast started."""
    fights: int = 0
    """Fights played."""
    wins: Counter[str] = field(default_factory=Counter)
    """Fights won, by side."""
    undecided: int = 0
    """Fights with no winner at the round cap (or with nobody left)."""
    rounds: Counter[int] = field(default_factory=Counter)
    """Fights by the rounds they lasted."""
    drops: list[int] = field(default_factory=list)
    """Fights each token ended out of, same order as ``ids``."""
    hp_total: list[int] = field(default_factory=list)
    """Sum over fights of each token's HP left (0 for HP below 0)."""
    fallen: Counter[tuple[str, ...]] = field(default_factory=Counter)
    """Fights by the set of combatants out at the end (ids, in the encounter's order)."""
    retreats: Counter[str] = field(default_factory=Counter)
    """Fights that ended with a side fleeing (``Retreat``), by side."""

    @staticmethod
    def empty(state: Encounter) -> Forecast:
        """No fights yet, for the tokens of ``state``."""
        tokens = list(state.tokens.values())
        sides = tuple(sides_of(state))
        return Forecast(sides, tuple(t.id for t in tokens), tuple(t.name for t in tokens),
                        tuple(t.side for t in tokens), tuple(t.hp for t in tokens),
                        drops=[0] * len(tokens), hp_total=[0] * len(tokens))

    def add(self, fights: Iterable[Fight]) -> None:
        """Count more fights in."""
        for f in fights:
            self.fights += 1
            if f.retreated is not None:
                self.retreats[f.retreated] += 1
            elif f.winner is None:
                self.undecided += 1
            else:
                self.wins[f.winner] += 1
            self.rounds[f.rounds] += 1
            for i, (hp, down) in enumerate(zip(f.hp, f.fallen, strict=True)):
                self.hp_total[i] += max(0, hp)  # below 0 is down, not "HP left"
                self.drops[i] += down
            self.fallen[tuple(i for i, d in zip(self.ids, f.fallen, strict=True) if d)] += 1

    def win(self, side: str) -> tuple[float, float, float]:
        """Chance ``side`` wins, with its 95% interval (Wilson)."""
        n = self.fights
        hits = self.wins[side]
        lo, hi = wilson(hits, n)
        return (hits / n if n else 0.0), lo, hi

    def retreat_chance(self, side: str) -> tuple[float, float, float]:
        """Chance ``side`` flees (a ``Retreat``), with its 95% interval."""
        hits = self.retreats[side]
        lo, hi = wilson(hits, self.fights)
        return (hits / self.fights if self.fights else 0.0), lo, hi

    def losses(self, side: str) -> dict[int, float]:
        """For ``side``: the chance that exactly 0, 1, 2 … of its combatants end the fight
        out of it (every count from 0 to its number)."""
        mine = {i for i, s in zip(self.ids, self.token_sides, strict=True) if s == side}
        counts = Counter({k: 0 for k in range(len(mine) + 1)})
        for ids, n in self.fallen.items():
            counts[sum(1 for i in ids if i in mine)] += n
        return {k: (n / self.fights if self.fights else 0.0) for k, n in sorted(counts.items())}

    def hp_spent(self, side: str) -> tuple[float, int]:
        """For ``side``: the HP its combatants lose on average, and the HP they began with."""
        ks = [k for k, s in enumerate(self.token_sides) if s == side]
        start = sum(max(0, self.start_hp[k]) for k in ks)
        return start - sum(self.mean_hp(k) for k in ks), start

    def undecided_chance(self) -> tuple[float, float, float]:
        """Chance of no winner within the round cap, with its 95% interval."""
        lo, hi = wilson(self.undecided, self.fights)
        return (self.undecided / self.fights if self.fights else 0.0), lo, hi

    def drop(self, index: int) -> float:
        """Chance the token at ``index`` ends out of the fight."""
        return self.drops[index] / self.fights if self.fights else 0.0

    def mean_hp(self, index: int) -> float:
        """HP the token at ``index`` has left on average."""
        return self.hp_total[index] / self.fights if self.fights else 0.0

    def likely_fallen(self) -> tuple[tuple[str, ...], float]:
        """The most likely set of fallen (ids) and its chance."""
        if not self.fallen:
            return (), 0.0
        ids, n = max(self.fallen.items(), key=lambda kv: (kv[1], -len(kv[0]), kv[0]))
        return ids, n / self.fights

    def rounds_quantiles(self) -> tuple[int, int, int]:
        """Rounds at the 10th, 50th and 90th percentile."""
        order = sorted(self.rounds.elements())
        if not order:
            return 0, 0, 0

        def q(p: float) -> int:
            return order[min(len(order) - 1, int(p * len(order)))]

        return q(0.1), q(0.5), q(0.9)

    def to_json(self) -> dict[str, Any]:
        """Everything, as plain JSON values."""
        fallen, chance = self.likely_fallen()
        return {
            "fights": self.fights,
            "sides": {s: dict(zip(("win", "low", "high"), self.win(s), strict=True))
                      for s in self.sides},
            "undecided": dict(zip(("chance", "low", "high"), self.undecided_chance(),
                                  strict=True)),
            "rounds": {str(k): v for k, v in sorted(self.rounds.items())},
            "combatants": [{"id": i, "name": n, "side": s, "hp": hp,
                            "drop": self.drop(k), "mean_hp": self.mean_hp(k)}
                           for k, (i, n, s, hp) in enumerate(zip(
                               self.ids, self.names, self.token_sides, self.start_hp,
                               strict=True))],
            "likely_fallen": {"ids": list(fallen), "chance": chance},
            "losses": {s: {str(k): p for k, p in self.losses(s).items()} for s in self.sides},
            "hp_spent": {s: dict(zip(("mean", "of"), self.hp_spent(s), strict=True))
                         for s in self.sides},
            "retreats": {s: dict(zip(("chance", "low", "high"), self.retreat_chance(s),
                                     strict=True)) for s in self.retreats},
        }


Progress = Callable[[Forecast], None]


def play_batch(start: Encounter, ruleset: Ruleset, seed: int, first: int, count: int,
               max_rounds: int = MAX_ROUNDS, policy: PolicyMaker | None = None,
               retreat: Retreat | None = None) -> list[Fight]:
    """Fights ``first`` to ``first + count - 1`` of a forecast seeded ``seed``."""
    cache: dict[OddsKey, Odds | None] = {}
    return [play_fight(start, ruleset, fight_seed(seed, i), cache, max_rounds, policy, retreat)
            for i in range(first, first + count)]


_WORKER: dict[str, Any] = {}


def _batch_in_worker(raw: bytes, ruleset_id: str, folders: tuple[str, ...], seed: int,
                     first: int, count: int, max_rounds: int,
                     policy: PolicyMaker | None = None,
                     retreat: Retreat | None = None) -> list[Fight]:
    """A batch in a worker process: the encounter arrives as file bytes, decoded once."""
    if _WORKER.get("raw") != raw:
        registry = Registry(folders, warn=lambda message: None)
        _WORKER.update(raw=raw, state=storage.loads(raw, registry).state,
                       ruleset=registry.get(ruleset_id))
    return play_batch(_WORKER["state"], _WORKER["ruleset"], seed, first, count, max_rounds,
                      policy, retreat)


def batches(fights: int) -> list[tuple[int, int]]:
    """(first, count) of each batch of a forecast of ``fights`` fights."""
    return [(i, min(BATCH, fights - i)) for i in range(0, fights, BATCH)]


def forecast(state: Encounter, ruleset: Ruleset, fights: int, seed: int, jobs: int = 1,
             progress: Progress | None = None, max_rounds: int = MAX_ROUNDS,
             folders: Sequence[str] = (), cancelled: Callable[[], bool] | None = None,
             policy: PolicyMaker | None = None, retreat: Retreat | None = None,
             workers: ProcessPoolExecutor | None = None) -> Forecast:
    """Play ``fights`` fights from ``state`` (untouched) and count how they end.

    ``jobs`` above 1 plays batches in that many worker processes (``folders``: the
    user's ruleset folders, for them to load the ruleset), or in ``workers``, a
    ``fight_pool`` kept for many forecasts; ``progress`` is called with the forecast so
    far after each fight (each batch, with workers); ``cancelled`` stops it early;
    ``policy`` and ``retreat`` as ``play_fight``.
    """
    result = Forecast.empty(state)
    start = state.copy()
    plan = batches(fights)
    if (jobs <= 1 and workers is None) or len(plan) <= 1:
        # In one process the forecast is told after every fight: the window shows a
        # first estimate long before a batch of a slow ruleset is over.
        for first, count in plan:
            cache: dict[OddsKey, Odds | None] = {}
            for i in range(first, first + count):
                if cancelled is not None and cancelled():
                    return result
                result.add([play_fight(start, ruleset, fight_seed(seed, i), cache,
                                       max_rounds, policy, retreat)])
                if progress is not None:
                    progress(result)
        return result
    raw = storage.encode(start, [])
    pool = workers if workers is not None else _new_pool(jobs)
    try:
        pending: dict[Future[list[Fight]], int] = {
            pool.submit(_batch_in_worker, raw, ruleset.id, tuple(str(f) for f in folders),
                        seed, first, count, max_rounds, policy, retreat): first
            for first, count in plan}
        while pending:
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            if cancelled is not None and cancelled():
                for fut in pending:
                    fut.cancel()
                break
            for fut in finished:
                pending.pop(fut)
                # Sums and counts: the order batches finish in changes nothing.
                result.add(fut.result())
                if progress is not None:
                    progress(result)
    except BaseException:
        # Ctrl+C (KeyboardInterrupt) or an error: the batches still queued would keep the
        # workers busy, and shutdown() would wait for every one of them.
        _stop(pool)
        raise
    if workers is None:
        pool.shutdown(wait=True)
    return result


@contextlib.contextmanager
def fight_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes for many forecasts in turn (a balance plays dozens):
    started once, since a process started by spawn loads tacmap and its rulesets afresh,
    and ended at once when the work stops."""
    pool = _new_pool(jobs)
    try:
        yield pool
    finally:
        _stop(pool)


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, initializer=_worker_start,
                               initargs=(os.getpid(),))


#: prctl's option that sends a signal to a process when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _worker_start(parent: int) -> None:
    """In a new worker: Ctrl+C is the parent's to handle, and the worker dies with it."""
    # Ctrl+C reaches the whole process group; the parent stops the workers itself, so a
    # worker does not print a KeyboardInterrupt of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            _watch_parent(parent)
    else:
        _watch_parent(parent)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _watch_parent(parent: int) -> None:
    """Where prctl is missing: a thread that ends the worker once its parent is gone."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="forecast-parent-watch", daemon=True).start()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: nothing queued runs, and the workers are ended mid-batch."""
    # The executor has no public way to end a running call; its processes are all there is.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)

