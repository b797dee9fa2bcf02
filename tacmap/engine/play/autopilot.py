"""The autopilot: a policy good enough to hand a side to, in every ruleset (issue 35).

It plays through the same door as the forecast's greedy policy (``Aggressive``,
whose machinery it extends) and the headless ``Driver``: the acting token's
offered options, aimed where the referee's preview allows, scored from the
previews' exact odds. What it does better (docs/manual/forecast-and-autopilot.md, "The autopilot"):

* every attack in reach is priced (the greedy policy prices one new attack a
  decision), and priced as focus fire: the chance to take the target out plus
  the share of what it has left that the attack is expected to take;
* a move goes where the best attack waits (the most hurt enemy it can reach
  this turn), never along a path that leaves an enemy's reach (a reaction) when
  another cell will do, and to the cell the fewest other enemies threaten;
* it plays fair: under fog it knows only the enemies its side sees now or has
  seen before (``Known``), and it reads nothing but the odds card and the HP the
  GM's map shows; it never looks at dice not yet rolled.

``decide`` gives the next command for the acting token; ``suggest`` its best
plans with their effect on the side's chance to win, as the forecast dock
reports it. Both are deterministic for a state and a seed.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import msgspec
import shapely

from tacmap.engine.model.commands import Command, EndTurn, Move
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Cell, Encounter, Token, party_side
from tacmap.engine.play.autoplay import Choice, Driver, Policy, Table
from tacmap.engine.play.forecast import (
    MAX_ROUNDS,
    MAX_STEPS,
    Aggressive,
    OddsKey,
    _at_grips,
    _gap,
    _ring,
    fight_seed,
    hints_of,
    play_fight,
    wilson,
)
from tacmap.engine.play.hints import Hints
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.engine.rules.views import ActionOption, Odds
from tacmap.engine.space.vision import party_sight, unseen_tokens

#: Enemies a move is planned towards, the most promising first (each costs a few previews).
AIMS = 3
#: Cells next to one enemy tried as a move's end, the nearest first.
CELLS = 4
#: Worth of taking an enemy out, against 1 for taking all it has left short of that.
DROP = 2.0
#: Variants of one option's odds-card choices priced at most (a hit location times an
#: attack type is 18).
VARIANTS = 24
#: Throws of an attack whose card gives no damage (a Sleep, a knock-down), each on a copy
#: of the encounter with dice of its own, to learn how often it takes the target out.
TRIALS = 8
#: Batch caches of odds and the autopilot's own beside each, the latest few: the autopilot
#: learns drop chances the greedy policy must not share when the two play one fight.
_OWN: list[tuple[dict[OddsKey, Odds | None], dict[OddsKey, Odds | None]]] = []
#: Picks checked against the preview for one decision before the turn is ended instead.
TRIES = 8
#: Plans weighed against each other by playing on from each (the heuristic's pick, the
#: next attacks by worth, a move, ending the turn), and throws of each: a fixed count,
#: not a time budget, so that a choice is the same on every machine.
PLANS = 4
ROLLOUTS = 8
#: Each throw plays on until the acting token's next turn starts, within this many rounds
#: (the rest of this one included) and this many gestures.
HORIZON = 2
HORIZON_STEPS = 400
#: Fights each plan of ``suggest`` is played out in to price it.
SUGGEST_FIGHTS = 24

#: Milliseconds of CPU each decision took, appended by every ``Autopilot``; ``tacmap bench
#: --autopilot`` drains it (``thinking``). A list here rather than a field: the fights of
#: a forecast build their policies out of the bench's reach.
_THINKING: list[float] = []


def thinking() -> list[float]:
    """The decision times (ms of CPU) noted since the last call, and forget them."""
    out = list(_THINKING)
    _THINKING.clear()
    return out


@dataclass
class Known:
    """What each side has seen of its enemies: the autopilot's memory under fog."""

    seen: dict[str, set[str]] = field(default_factory=dict)
    """Token ids each side has seen, by side (kept from one decision to the next)."""

    def unseen(self, state: Encounter, ruleset: Ruleset, side: str, hints: Hints
               ) -> frozenset[str]:
        """Enemies of ``side`` it neither sees now nor saw before (none when fog is off)."""
        if not state.fog.enabled:
            return frozenset()
        seen = self.seen.setdefault(side, set())
        enemies = {t.id for t in state.tokens.values() if t.side != side}
        if enemies <= seen:
            return frozenset()
        # The side's own eyes, as the fog draws the party's: the same sight and test.
        mine = msgspec.structs.replace(state, party=side)
        walls = ruleset.space.walls(state)
        sight = party_sight(mine, walls, hints.out)
        shapely.prepare(sight)
        hidden = unseen_tokens(mine, sight)
        seen |= enemies - hidden
        return frozenset(enemies - seen)


def variants(options: Sequence[ActionOption]) -> list[ActionOption]:
    """``options`` with each attack's odds-card choices spelt out (every attack type and
    hit location), the values first picked first; an option that asks for words too, or
    with more than ``VARIANTS`` variants, stays as offered."""
    out: list[ActionOption] = []
    for option in options:
        out.append(option)
        if not option.choices or option.prompt or option.target != "token" \
                or not option.enabled:
            continue
        groups = [values for _label, values in option.choices]
        if math.prod(len(g) for g in groups) > VARIANTS:
            continue
        out.extend(replace(option, detail="/".join(combo))
                   for combo in itertools.product(*groups)
                   if "/".join(combo) != option.detail)
    return out


class Autopilot(Aggressive):
    """The autopilot's policy (module docstring); ``Aggressive`` where it adds nothing."""

    fresh = 1_000_000  # every attack in reach is priced, not one a decision

    def __init__(self, rng: random.Random, hints: Hints, cache: dict[OddsKey, Odds | None],
                 ruleset: Ruleset, known: Known | None = None) -> None:
        super().__init__(rng, hints, cache)
        self.ruleset = ruleset
        self.known = known if known is not None else Known()
        self.unseen: frozenset[str] = frozenset()
        #: The greedy policy's odds in the throws (its own: the autopilot's are priced).
        self.thrown: dict[OddsKey, Odds | None] = {}

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        """The best plan's next step for ``actor``, or None to end the turn."""
        start = time.thread_time()
        state = table.state
        me = state.tokens[actor]
        self.unseen = self.known.unseen(state, self.ruleset, me.side, self.hints)
        offered = variants(options)
        choice = None
        for _ in range(TRIES):
            # The greedy policy trusts odds cached in another state and learns from the
            # referee's refusal; the autopilot hands over only what the preview allows:
            # asked again at the same state, the policy marks its last pick refused.
            choice = super().choose(table, actor, offered)
            if choice is None or table.legal(actor, choice):
                break
            choice = None
        if choice is not None and choice.target in self.unseen:
            choice = None  # a hinted option the table aimed at a token its side cannot see
        if choice is None:
            choice = self.teammate(table, me)
        elif self.hints.rollouts and not choice.by and not self.unseen:
            choice = self.rolled(table, me, choice, offered)
        if choice is not None and self.waits(table, me, choice, options):
            choice = None
        _THINKING.append((time.thread_time() - start) * 1000)
        return choice

    def waits(self, table: Table, me: Token, choice: Choice,
              options: Sequence[ActionOption]) -> bool:
        """Whether to let the enemy come rather than make ``choice``: in the fight's first
        rounds (the ruleset's ``wait_rounds`` hint), a move after which ``me`` can strike
        nobody this turn."""
        if choice.option.key != "move" or choice.by \
                or table.state.round > self.hints.wait_rounds or not any(
                o.key == "end_turn" and o.enabled for o in options):
            return False
        return not self.strikes_after(table, me, choice)

    def strikes_after(self, table: Table, me: Token, move: Choice) -> bool:
        """Whether ``me`` may still attack a known enemy this turn once ``move`` is made
        (tried on a copy of the encounter: the options and previews after it)."""
        referee = Referee(table.state.copy(), self.ruleset)
        try:
            referee.execute(move.command(me.id))
        except RuleError:
            return True
        state = referee.state
        if self.ruleset.whose_turn(state) != me.id:
            return False
        enemies = [t for t in state.tokens.values() if t.side != me.side and not self.out(t)]
        for option in self.ruleset.actions_for(state, me.id):
            if not option.enabled or option.target != "token" or option.key == "move":
                continue
            for enemy in enemies:
                preview = referee.preview(Choice(option, enemy.id).command(me.id))
                if preview.legal and preview.odds is not None:
                    return True
        return False

    def teammate(self, table: Table, me: Token) -> Choice | None:
        """In a turn the side takes together (several of its rows acting at once), what
        another member does before End turn ends it for them all; None when none acts."""
        state = table.state
        order = self.ruleset.turn_order(state)
        if order is None:
            return None
        for row in order.rows:
            other = state.tokens.get(row.id)
            if row.state != "acting" or other is None or other.id == me.id \
                    or other.side != me.side:
                continue
            offered = variants(self.ruleset.actions_for(state, other.id))
            for _ in range(TRIES):
                choice = super().choose(table, other.id, offered)
                if choice is None or table.legal(other.id, choice):
                    break
                choice = None
            if choice is not None and choice.target not in self.unseen:
                return replace(choice, by=other.id)
        return None

    def rolled(self, table: Table, me: Token, first: Choice,
               offered: Sequence[ActionOption]) -> Choice | None:
        """Of ``first`` and a few other plans (the next attacks, a move, the ruleset's
        ``weigh`` defences, ending the turn), the one whose throws played on leave the side
        best off (``standing``); ``first`` among equals."""
        plans: list[Choice | None] = [first]
        # The next attacks by worth, whatever their target: what an ability spends (pool
        # dice, stamina) shows only in the turns that follow.
        for _worth, other in sorted(self.scored, key=lambda s: -s[0]):
            if len(plans) >= PLANS - 1:
                break
            if other not in plans and table.legal(me.id, other):
                plans.append(other)
        enabled = [o for o in offered if o.enabled and o.key not in self.hints.avoid
                   and o.key != "end_turn"]
        move = next((o for o in enabled if o.key == "move"), None)
        if move is not None and first.option.key != "move" and self.moves < 2:
            step = self.approach(table, me, move, enabled)
            if step is not None and step not in plans and table.legal(me.id, step):
                plans.append(step)
        defences = [Choice(o) for o in enabled if o.key in self.hints.weigh
                    and o.target == "none"]
        plans += defences
        # Ending the turn is weighed against an attack (a dice pool kept for later), not
        # against closing in: against the greedy policy, which always walks in, holding
        # back wins, but two sides that both hold stand apart all fight (the manual).
        # (The ruleset's ``hold_rounds`` hint weighs it against closing in too, in the first
        # rounds only: two sides that both hold then stand apart that long at most.)
        # A defence offered stands for holding back (reflex: a dodge rather than declaring
        # nothing): both weighed cost a set of throws for no measured gain.
        holding = not defences and (first.option.key != "move"
                                    or table.state.round <= self.hints.hold_rounds)
        if holding and any(o.key == "end_turn" and o.enabled for o in offered):
            plans.append(None)
        if len(plans) == 1:
            return first
        state = table.state
        scores = [sum(self.throw(state, plan, me, i) for i in range(ROLLOUTS))
                  for plan in plans]
        best = plans[scores.index(max(scores))]
        if best is not first:
            self.pending = None
            if best is not None and best.option.key == "move":
                self.moves += 1
        return best

    def throw(self, state: Encounter, plan: Choice | None, me: Token, i: int) -> float:
        """How well ``me``'s side stands after ``plan`` (None: End turn) and the greedy
        policy playing on until its next turn starts, with dice of throw ``i``'s own."""
        copy = state.copy()
        copy.seed, copy.dice_drawn = fight_seed(state.seed + 15485863 * (state.dice_drawn + 1),
                                                i), 0
        referee = Referee(copy, self.ruleset)
        driver = Driver(referee, Aggressive(random.Random(i), self.hints, self.thrown),
                        random.Random(i + 1), fog=False)
        try:
            referee.execute(plan.command(me.id) if plan is not None else EndTurn())
        except RuleError:
            return -math.inf
        hints, ruleset, start = self.hints, self.ruleset, state.round

        def over(s: Encounter) -> bool:
            if s.round > start and ruleset.whose_turn(s) == me.id:
                return True
            return len({t.side for t in s.tokens.values() if not hints.out(t)}) <= 1

        driver.play(rounds=HORIZON, max_steps=HORIZON_STEPS, stop=over)
        return standing(referee.state, me.side, hints)

    def priced(self, table: Table, me: Token, choice: Choice, odds: Odds) -> Odds:
        """The card's odds; for an attack that deals no damage, with the chance it takes
        the target out learnt by throwing it on copies with dice of their own (never
        the encounter's: no look at dice not yet rolled)."""
        if odds.damage or odds.drop or odds.success <= 0:
            return odds
        return replace(odds, drop=self.learn(table, me, choice))

    def learn(self, table: Table, me: Token, choice: Choice) -> float:
        """The share of ``TRIALS`` throws of ``choice`` that leave its target out."""
        state = table.state
        command = choice.command(me.id)
        out = 0
        for i in range(TRIALS):
            copy = state.copy()
            copy.seed, copy.dice_drawn = fight_seed(state.seed + 7919, i), 0
            referee = Referee(copy, self.ruleset)
            try:
                referee.execute(command)
            except RuleError:
                return 0.0
            target = referee.state.tokens.get(choice.target)
            out += target is None or self.hints.out(target)
        return out / TRIALS

    def out(self, token: Token) -> bool:
        """Out of the fight, or an enemy its side does not know of: neither is aimed at."""
        return token.id in self.unseen or self.hints.out(token)

    def value(self, odds: Odds, target: Token) -> float:
        """Focus fire: the chance to take ``target`` out, plus the share of what it has
        left the attack is expected to take."""
        left = max(target.hp, 1)
        dealt = odds.success * sum(min(d, left) * p for d, p in odds.damage)
        drop = max(odds.drop, odds.success * sum(p for d, p in odds.damage if d >= left))
        return DROP * drop + dealt / left + odds.success * 0.01

    def approach(self, table: Table, me: Token, move: ActionOption,
                 enabled: Sequence[ActionOption]) -> Choice | None:
        """A move next to an enemy it can reach this turn (the nearest, then the most
        hurt), provoking no reaction when it can, where the fewest others threaten; else
        the greedy policy's step towards the nearest."""
        state = table.state
        enemies = [t for t in state.tokens.values() if t.side != me.side and not self.out(t)]
        declared = {o.at for o in enabled if o.at} & {t.id for t in enemies}
        if declared:
            enemies = [t for t in enemies if t.id in declared]
        if not enemies or any(_at_grips(state, table.referee.ruleset, me, t) for t in enemies):
            return super().approach(table, me, move, enabled)
        # The nearest first, the most hurt among equals: a walk past the nearest enemy to a
        # weaker one split the side up and lost fights in the mirror bench.
        enemies.sort(key=lambda t: (_gap(me, t), t.hp, t.id))
        referee = table.referee
        best: tuple[tuple[int, int, int, int], Cell] | None = None
        for rank, enemy in enumerate(enemies[:AIMS]):
            ring = _ring(state, me, enemy, referee.ruleset)
            if me.cell in ring:
                return None  # there already: a move would be 0 m, or a step for nothing
            ring.sort(key=lambda c: (max(abs(c[0] - me.x), abs(c[1] - me.y)), c))
            for cell in ring[:CELLS]:
                if (me.id, me.cell, cell) in self.walled_off:
                    continue
                preview = referee.preview(Move(me.id, (cell,)))
                if not preview.legal:
                    if len(preview.path) <= 1:
                        self.walled_off.add((me.id, me.cell, cell))
                    continue
                score = (len(preview.leaves), len(preview.threats), rank,
                         round(preview.cost or 0.0))
                if best is None or score < best[0]:
                    best = (score, cell)
            if best is not None and best[0][0] == 0:
                break  # the best enemy is reachable without a reaction: look no further
        if best is not None:
            return Choice(move, path=(best[1],))
        return super().approach(table, me, move, enabled)


def standing(state: Encounter, side: str, hints: Hints) -> float:
    """``side``'s tokens still in the fight less the others', each counted 1 plus the share
    of its HP it has left."""
    total = 0.0
    for t in state.tokens.values():
        if not hints.out(t):
            worth = 1 + t.hp / max(t.max_hp, 1) if t.hp > 0 else 0.5
            total += worth if t.side == side else -worth
    return total


class BySide:
    """Two policies at one table: the autopilot for the sides it plays, another for the rest."""

    def __init__(self, pilot: Autopilot, other: Policy, sides: Iterable[str]) -> None:
        self.pilot = pilot
        self.other = other
        self.sides = frozenset(sides)

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        """The autopilot's choice for its sides' tokens, the other policy's for the rest."""
        side = table.state.tokens[actor].side
        mine = "*" in self.sides or side in self.sides
        return (self.pilot if mine else self.other).choose(table, actor, options)


#: ``auto`` of ``by_side`` for the autopilot on every side.
ALL = ("*",)


def by_side(other: Policy, rng: random.Random, hints: Hints,
            cache: dict[OddsKey, Odds | None], ruleset: Ruleset, *,
            auto: tuple[str, ...] = ALL) -> Policy:
    """The autopilot for the sides in ``auto`` (``ALL``: every side), ``other`` for the
    rest: a forecast's ``policy`` as ``partial(by_side, auto=…)``."""
    pilot = Autopilot(rng, hints, own_cache(cache), ruleset)
    return pilot if tuple(auto) == ALL else BySide(pilot, other, auto)


def own_cache(cache: dict[OddsKey, Odds | None]) -> dict[OddsKey, Odds | None]:
    """The autopilot's odds cache for the batch whose shared cache is ``cache``."""
    for shared, own in _OWN:
        if shared is cache:
            return own
    mine: dict[OddsKey, Odds | None] = {}
    _OWN.append((cache, mine))
    del _OWN[:-4]
    return mine


# --- for the window and the command line -------------------------------------------------


def _table(state: Encounter, ruleset: Ruleset, seed: int, known: Known | None
           ) -> tuple[Referee, Driver, Autopilot]:
    """A referee on a copy of ``state``, with the autopilot and a driver at its table."""
    referee = Referee(state.copy(), ruleset)
    pilot, driver = pilot_for(referee, seed, known)
    return referee, driver, pilot


def decide(state: Encounter, ruleset: Ruleset, actor: str, seed: int,
           known: Known | None = None) -> Command:
    """The autopilot's next command for ``actor`` in ``state`` (untouched): an action, a
    move, or ``EndTurn``; ``known`` carries what its side has seen from one call to the
    next (fog)."""
    _referee, driver, pilot = _table(state, ruleset, seed, known)
    return next_command(pilot, driver, actor)


def next_command(pilot: Autopilot, driver: Driver, actor: str) -> Command:
    """What ``pilot`` plays next for ``actor`` at ``driver``'s table (``EndTurn`` when it
    is done); the command line plays a live encounter through this."""
    state = driver.referee.state
    options = driver.referee.ruleset.actions_for(state, actor)
    choice = pilot.choose(driver.table, actor, options)
    if choice is None:
        ends = [o for o in options if o.key == "end_turn"]
        if not ends or any(o.enabled for o in ends):
            return EndTurn()
        # End turn greyed (a declaration to make first): what the driver would take.
        choice = driver.offered(actor, options)
        if choice is None or choice.target in pilot.unseen:
            return EndTurn()
    return choice.command(actor)


def pilot_for(referee: Referee, seed: int, known: Known | None = None
              ) -> tuple[Autopilot, Driver]:
    """The autopilot and a driver at the table of a live ``referee`` (fog left as it is)."""
    ruleset = referee.ruleset
    pilot = Autopilot(random.Random(seed), hints_of(ruleset), {}, ruleset, known)
    return pilot, Driver(referee, pilot, random.Random(seed + 1))


@dataclass(frozen=True)
class Suggestion:
    """One plan the autopilot would play for the acting token, priced."""

    commands: tuple[Command, ...]
    """The plan's commands, in order (a move, then what it was made for)."""
    sentence: str
    """The plan in words, for the GM."""
    effect: float
    """Change in the side's chance to win if the plan is played, as the forecast dock
    would report it (−1 to 1)."""
    win: float
    """The side's chance to win after the plan (0 to 1)."""


def suggest(state: Encounter, ruleset: Ruleset, actor: str, seed: int, k: int = 3,
            known: Known | None = None, fights: int = SUGGEST_FIGHTS) -> list[Suggestion]:
    """The autopilot's ``k`` best plans for ``actor``, best first, each priced by ``fights``
    fights played on from it (the same dice seeds for every plan, and for doing nothing)."""
    referee, driver, pilot = _table(state, ruleset, seed, known)
    side = referee.state.tokens[actor].side
    plans: list[tuple[Command, ...]] = []
    first = decide(state, ruleset, actor, seed, known)
    for command in _candidates(referee, driver, pilot, actor, first):
        plan: tuple[Command, ...] = (command,)
        if isinstance(command, Move):
            follow = _after(referee.state, ruleset, plan, seed)
            if follow is not None:
                nxt = decide(follow, ruleset, actor, seed, known)
                if not isinstance(nxt, EndTurn | Move):
                    plan = (command, nxt)
        if plan not in plans:
            plans.append(plan)
        if len(plans) >= k:
            break
    cache: dict[OddsKey, Odds | None] = {}
    now = _win(referee.state, ruleset, (), side, seed, fights, cache)
    out = []
    for plan in plans:
        win = _win(referee.state, ruleset, plan, side, seed, fights, cache)
        words = ", then ".join(sentence(referee.state, c) for c in plan)
        out.append(Suggestion(plan, f"{words}: the side's chance to win {100 * now:.0f}% "
                                    f"→ {100 * win:.0f}%", win - now, win))
    out.sort(key=lambda s: -s.effect)  # stable: the autopilot's order among equals
    return out


def _candidates(referee: Referee, driver: Driver, pilot: Autopilot, actor: str,
                first: Command) -> list[Command]:
    """The autopilot's choice, then the other attacks in reach by worth, then its move."""
    state = referee.state
    options = referee.ruleset.actions_for(state, actor)
    me = state.tokens[actor]
    out = [first]
    scored: list[tuple[float, str, Command]] = []
    for option in options:
        if not option.enabled or option.target != "token" or option.key == "move":
            continue
        for enemy in state.tokens.values():
            if enemy.side == me.side or pilot.out(enemy):
                continue
            if option.at and enemy.id != option.at:
                continue
            try:
                command = Choice(option, enemy.id).command(actor)
            except ValueError:
                continue
            preview = referee.preview(command)
            if preview.legal and preview.odds is not None:
                scored.append((pilot.value(preview.odds, enemy), command.__class__.__name__
                               + enemy.id, command))
    scored.sort(key=lambda s: (-s[0], s[1]))
    out.extend(c for _v, _k, c in scored)
    move = next((o for o in options if o.enabled and o.key == "move"), None)
    if move is not None:
        step = pilot.approach(driver.table, me, move, [o for o in options if o.enabled])
        if step is not None:
            out.append(step.command(actor))
    out.append(EndTurn())
    return out


def _after(state: Encounter, ruleset: Ruleset, plan: tuple[Command, ...], seed: int
           ) -> Encounter | None:
    """``state`` after ``plan``, thrown with dice of its own seed (never the encounter's
    stream: no look at dice not yet rolled), or None when the referee refuses it."""
    copy = state.copy()
    copy.seed, copy.dice_drawn = seed, 0
    referee = Referee(copy, ruleset)
    try:
        for command in plan:
            referee.execute(command)
    except RuleError:
        return None
    return referee.state


def _win(state: Encounter, ruleset: Ruleset, plan: tuple[Command, ...], side: str,
         seed: int, fights: int, cache: dict[OddsKey, Odds | None]) -> float:
    """The share of ``fights`` fights ``side`` wins when ``plan`` is played first."""
    wins = 0
    for i in range(fights):
        after = _after(state, ruleset, plan, fight_seed(seed, i))
        if after is None:
            return 0.0
        fight = play_fight(after, ruleset, fight_seed(seed + 1, i), cache, MAX_ROUNDS)
        wins += fight.winner == side
    return wins / max(1, fights)


# --- tacmap bench --autopilot ------------------------------------------------------------


def main_sides(state: Encounter) -> tuple[str, ...]:
    """The demo's two main sides: the players' side and the biggest other one."""
    counts: dict[str, int] = {}
    for t in state.tokens.values():
        counts[t.side] = counts.get(t.side, 0) + 1
    party = party_side(state)
    others = sorted((s for s in counts if s != party), key=lambda s: -counts[s])
    return tuple(s for s in (party, *others[:1]) if s is not None)


def mirrored(state: Encounter, side: str) -> Encounter:
    """``side`` against its mirror image: the same stat lines, placed as reflected across
    the middle of the map, on a side of their own; the other tokens leave."""
    out = state.copy()
    mine = [t for t in out.tokens.values() if t.side == side]
    out.tokens = {t.id: t for t in mine}
    for t in mine:
        twin = msgspec.structs.replace(t, id=f"{t.id}_mirror", name=f"{t.name} (mirror)",
                                       side=f"{side} (mirror)",
                                       x=out.map.width - t.size - t.x)
        out.tokens[twin.id] = twin
    return out


@dataclass
class Mirror:
    """How the autopilot did against the greedy policy in mirror matches."""

    pairs: int = 0
    """Fights played twice, the policies swapped between the sides."""
    wins: int = 0
    """Fights the autopilot's side won."""
    losses: int = 0
    """Fights the greedy policy's side won."""
    undecided: int = 0
    """Fights nobody won within the round cap."""

    def __add__(self, other: Mirror) -> Mirror:
        """Two runs' matches together (the bench plays a ruleset's pairs in parts)."""
        return Mirror(self.pairs + other.pairs, self.wins + other.wins,
                      self.losses + other.losses, self.undecided + other.undecided)

    def share(self) -> tuple[float, float, float]:
        """The autopilot's share of the decided fights, with its 95% Wilson interval."""
        decided = self.wins + self.losses
        lo, hi = wilson(self.wins, decided)
        return (self.wins / decided if decided else 0.0), lo, hi


def warm_greedy(other: Policy, rng: random.Random, hints: Hints,
                cache: dict[OddsKey, Odds | None], ruleset: Ruleset, *,
                auto: tuple[str, ...]) -> Policy:
    """``by_side`` for a mirror match, the greedy side pricing every attack in reach at
    each decision, as it comes to once a forecast's odds cache is warm: it prices one new
    attack a decision to save time (``FRESH``), so early in a batch it passed attacks by,
    and the autopilot's share rose as the bench cut its pairs into smaller parts (opposed,
    500 pairs: 62.8% as one part, 67.9% in parts of 25; so priced, 60.7% and 61.2%). Its
    choices no longer wait on the cache: a stronger opponent than a cold batch's."""
    if isinstance(other, Aggressive):
        other.fresh = Autopilot.fresh
    return by_side(other, rng, hints, cache, ruleset, auto=auto)


def mirror_matches(state: Encounter, ruleset: Ruleset, pairs: int, seed: int = 1,
                   first: int = 0) -> Mirror:
    """``pairs`` mirror matches from pair ``first`` on, split between the demo's two main
    sides (``mirrored``): each fight played with the autopilot on one side, then on the
    other, same dice seed, against the greedy policy at its best (``warm_greedy``), so
    that the figures barely depend on how the bench cuts the pairs into parts (the odds a
    batch caches still differ a little: opposed, 500 pairs, 61.2% in parts of 25, 60.7%
    as one)."""
    result = Mirror()
    sides = main_sides(state)
    cache: dict[OddsKey, Odds | None] = {}
    for k in range(first, first + pairs):
        side = sides[k % len(sides)]
        start = mirrored(state, side)
        fight = fight_seed(seed, k)
        for auto in (side, f"{side} (mirror)"):
            winner = play_fight(start, ruleset, fight, cache, MAX_ROUNDS,
                                partial(warm_greedy, auto=(auto,))).winner
            result.wins += winner == auto
            result.undecided += winner is None
            result.losses += winner is not None and winner != auto
        result.pairs += 1
    return result


def thinking_times(state: Encounter, ruleset: Ruleset, fights: int, seed: int = 1
                   ) -> list[float]:
    """Milliseconds of CPU of each decision in ``fights`` fights of ``state`` as it stands,
    fog and all, with the autopilot on every side."""
    thinking()
    hints = hints_of(ruleset)

    def over(s: Encounter) -> bool:
        return len({t.side for t in s.tokens.values() if not hints.out(t)}) <= 1

    for i in range(fights):
        copy = state.copy()
        copy.seed, copy.dice_drawn = fight_seed(seed, i), 0
        _pilot, driver = pilot_for(Referee(copy, ruleset), copy.seed)
        driver.play(rounds=MAX_ROUNDS, max_steps=MAX_STEPS, stop=over)
    return thinking()
