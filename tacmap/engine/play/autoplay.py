"""Play an encounter headless through the referee, using only what the ruleset offers.

The same contract the window is held to (DESIGN §3), without Qt: the acting
token (``acting_token`` of ``ruleset.turn_order``), its ``actions_for``, and
``command_for`` to turn a picked option and its target, cell or area into the
command the window would send. A ``Policy`` picks, seeded with its own RNG;
the ``Driver`` counts what the contract needs::

    >>> from tacmap.engine.rules.ruleset import Registry             # doctest: +SKIP
    >>> driver = Driver(referee, EveryOption(random.Random(1)))  # doctest: +SKIP
    >>> tally = driver.play(rounds=20)                          # doctest: +SKIP
    >>> tally.problems, tally.refusals                          # doctest: +SKIP
    ([], 0)

``EveryOption`` tries every offered option in turn (the contract, ``tacmap
ruleset check``); a forecast plugs in a policy of its own that plays to win.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tacmap.engine.model.commands import AddToken, Command, EndTurn, Move, SetFog, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Cell, Encounter, OutOfFight, Template, Token, marked_dead
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.statblock import defaults
from tacmap.engine.rules.views import ActionOption

#: Farthest a headless drag reaches, in cells each way from the mover (as a GM's drag).
REACH = 4
#: Cells tried for one move: enough to find a legal one, few enough to stay fast.
TRIES = 24


@dataclass(frozen=True)
class Choice:
    """An option picked, with what it is aimed at: a token, a path, or an area."""

    option: ActionOption
    """The option as offered (its ``detail`` holds the variant, words or choices)."""
    target: str = ""
    """The token aimed at, for ``target == "token"``."""
    path: tuple[Cell, ...] = ()
    """Waypoints of a move, for ``target == "cell"``."""
    area: Template | None = None
    """Where the template goes, for ``target == "area"``."""
    by: str = ""
    """Another token of the acting side that makes the choice, in a turn the side takes
    together (speed_rank's phases); empty: the acting token."""

    def command(self, actor: str) -> Command:
        """The command the window sends for this choice: an option aimed at a cell is the
        drag on the map, a ``Move`` along ``path``, whatever its key."""
        actor = self.by or actor
        if self.option.target == "cell":
            if not self.path:
                raise ValueError("a move needs the path the token is dragged along")
            return Move(actor, self.path)
        return command_for(actor, self.option, self.target, path=self.path, area=self.area)


class Policy(Protocol):
    """Picks what the acting token does: one option and its aim, or None to end the turn."""

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        """A choice among the enabled ``options`` of ``actor`` (None: end the turn)."""
        ...


class Table:
    """What a policy may ask about the encounter: the state and the legal aims of an option.

    Legal means the referee's preview allows it, as the window's odds card and
    drag label would show. Candidate cells are computed once per fight.
    """

    def __init__(self, referee: Referee, rng: random.Random) -> None:
        self.referee = referee
        self.rng = rng
        self._offsets = [(dx, dy) for dx in range(-REACH, REACH + 1)
                         for dy in range(-REACH, REACH + 1) if (dx, dy) != (0, 0)]
        self._version = -1
        self._legal: dict[Command, bool] = {}
        #: The gesture under way, for the name of one that raises (``Crashed``).
        self.doing = ""

    @property
    def state(self) -> Encounter:
        """The live encounter (never change it: send commands)."""
        return self.referee.state

    def legal(self, actor: str, choice: Choice) -> bool:
        """Whether the referee's preview allows ``choice`` for ``actor`` now (asked once
        per command between two changes of the encounter)."""
        try:
            command = choice.command(actor)
        except ValueError:
            return False
        if self._version != self.referee.version:
            self._version, self._legal = self.referee.version, {}
        known = self._legal.get(command)
        if known is None:
            aimed = f" → {choice.target}" if choice.target else ""
            self.doing = f"{actor}: {choice.option.label}{aimed}"
            known = self._legal[command] = self.referee.preview(command).legal
        return known

    def targets(self, actor: str, option: ActionOption) -> list[str]:
        """Tokens ``option`` may be aimed at now, in a shuffled order (its own ``at`` alone
        when it names one)."""
        if option.at:
            return [option.at] if self.legal(actor, Choice(option, option.at)) else []
        ids = [t for t in self.state.tokens if t != actor]
        self.rng.shuffle(ids)
        return [t for t in ids if self.legal(actor, Choice(option, t))]

    def target(self, actor: str, option: ActionOption) -> str | None:
        """One token ``option`` may be aimed at now (shuffled), or None."""
        if option.at:
            return option.at if self.legal(actor, Choice(option, option.at)) else None
        ids = [t for t in self.state.tokens if t != actor]
        self.rng.shuffle(ids)
        return next((t for t in ids if self.legal(actor, Choice(option, t))), None)

    def cell(self, actor: str, option: ActionOption) -> Cell | None:
        """A cell within ``REACH`` the token may move to now (tried at random), or None."""
        token = self.state.tokens[actor]
        offsets = self.rng.sample(self._offsets, min(TRIES, len(self._offsets)))
        for dx, dy in offsets:
            cell = (token.x + dx, token.y + dy)
            if self.legal(actor, Choice(option, path=(cell,))):
                return cell
        return None

    def area(self, actor: str, option: ActionOption) -> Template | None:
        """The option's template centred on another token where the referee allows it."""
        spec = option.area
        if spec is None:
            return None
        others = [t for t in self.state.tokens.values() if t.id != actor]
        self.rng.shuffle(others)
        for other in others:
            template = spec.at(other.cell)
            if self.legal(actor, Choice(option, area=template)):
                return template
        return None

    def aim(self, actor: str, option: ActionOption) -> Choice | None:
        """``option`` aimed where the referee allows it (None: nowhere now)."""
        if option.target == "token":
            target = self.target(actor, option)
            return None if target is None else Choice(option, target)
        if option.target == "cell":
            cell = self.cell(actor, option)
            return None if cell is None else Choice(option, path=(cell,))
        if option.target == "area":
            template = self.area(actor, option)
            return None if template is None else Choice(option, area=template)
        return Choice(option)


class EveryOption:
    """The contract's policy: every offered option in turn, ending the turn now and then.

    The option tried least so far (by label) goes first, ties broken by the RNG,
    so every option a ruleset offers is taken across a fight; an option with no
    legal aim now is passed over for this step.
    """

    def __init__(self, rng: random.Random, end_chance: float = 0.3) -> None:
        self.rng = rng
        self.end_chance = end_chance
        self.tried: Counter[str] = Counter()

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        """The least-tried enabled option with a legal aim, or None (now and then, or
        when there is none)."""
        enabled = [o for o in options if o.enabled and o.key != "end_turn"]
        ending = any(o.key == "end_turn" and o.enabled for o in options) \
            or not any(o.key == "end_turn" for o in options)
        if not enabled or (ending and self.rng.random() < self.end_chance):
            return None
        order = sorted(enabled, key=lambda o: (self.tried[o.label], self.rng.random()))
        for option in order:
            choice = table.aim(actor, option)
            if choice is not None:
                self.tried[option.label] += 1
                return choice
        return None


@dataclass
class Tally:
    """What a headless fight counted; ``problems`` empty means the contract held."""

    steps: int = 0
    """Gestures made (an option taken, a turn ended)."""
    rounds: int = 0
    """Rounds played from the first."""
    tried: int = 0
    """Options picked and sent."""
    executed: int = 0
    """Commands the referee took."""
    refusals: int = 0
    """Enabled options, aimed where the preview allowed, that the referee refused."""
    ended: int = 0
    """Turns ended."""
    turns: Counter[str] = field(default_factory=Counter)
    """Steps each token acted in, by id."""
    labels: Counter[str] = field(default_factory=Counter)
    """Options taken, by label."""
    offered: dict[str, bool] = field(default_factory=dict)
    """Every option label the acting tokens were shown (End turn aside), and whether it
    was ever enabled: one never enabled was never offered."""
    keys: set[str] = field(default_factory=set)
    """The keys of every option the acting tokens were shown (``"move"``, ``"attack"`` …)."""
    aimless: dict[str, str] = field(default_factory=dict)
    """Options enabled when no token was a legal target, by label, said the first time
    (the built-ins leave Attack enabled and let the target's preview say why: a note for
    ``tacmap ruleset check``, not a broken promise)."""
    problems: list[str] = field(default_factory=list)
    """Each broken promise in one sentence (a refusal with its reason, a disabled option
    without one, a token that never acted)."""
    joined: str = ""
    """The id of the combatant added mid-combat ("" when none was)."""

    def problem(self, text: str) -> None:
        """Note a broken promise once (the same one at every step is one problem)."""
        if text not in self.problems:
            self.problems.append(text)

    def never_acted(self, state: Encounter, out: OutOfFight = marked_dead) -> list[str]:
        """Tokens still in the fight (not ``out``, the ruleset's ``out_of_fight``) that never
        got a turn."""
        return sorted(t.id for t in state.tokens.values()
                      if not out(t) and not self.turns[t.id])

    def summary(self) -> str:
        """The counts in one line."""
        return (f"{self.steps} steps, {self.rounds} rounds, {self.tried} options tried, "
                f"{self.executed} executed, {self.refusals} refusals, {self.ended} turns "
                f"ended, {len(self.labels)} different options")


def free_cell(state: Encounter, near: Cell, size: int = 1) -> Cell:
    """The nearest cell to ``near`` where a token of ``size`` fits on the map, alone."""
    taken = {(t.x + i, t.y + j) for t in state.tokens.values()
             for i in range(t.size) for j in range(t.size)}
    w, h = state.map.width, state.map.height
    for r in range(max(w, h)):
        for x in range(near[0] - r, near[0] + r + 1):
            for y in range(near[1] - r, near[1] + r + 1):
                if max(abs(x - near[0]), abs(y - near[1])) == r \
                        and 0 <= x <= w - size and 0 <= y <= h - size \
                        and not any((x + i, y + j) in taken
                                    for i in range(size) for j in range(size)):
                    return (x, y)
    return (0, 0)


def newcomer(referee: Referee) -> Token:
    """A combatant as Build ▸ Add Combatant makes one (default stats, the first side), in
    the map's corner farthest from its enemies: struck down before its first turn, it
    would prove nothing about getting turns."""
    state = referee.state
    n = len(state.tokens) + 1
    while f"c{n}" in state.tokens:
        n += 1
    sides = [t.side for t in state.tokens.values()]
    side = sides[0] if sides else "party"
    out = referee.ruleset.out_of_fight
    enemies = [t.cell for t in state.tokens.values() if t.side != side and not out(t)]
    w, h = state.map.width - 1, state.map.height - 1

    def safety(corner: Cell) -> int:
        return min((max(abs(corner[0] - x), abs(corner[1] - y)) for x, y in enemies),
                   default=0)

    corner = max(((0, 0), (w, 0), (0, h), (w, h)), key=safety)
    x, y = free_cell(state, corner)
    return Token(f"c{n}", f"Combatant {n}", side, x, y,
                 stats=defaults(referee.ruleset.stat_fields()))


class Crashed(Exception):
    """A command raised something other than a refusal while a driver played it."""

    def __init__(self, step: int, what: str, error: BaseException) -> None:
        super().__init__(f"step {step}, {what}: {type(error).__name__}: {error}")
        self.step = step
        self.what = what
        self.error = error


class Driver:
    """Plays one encounter through its referee under a policy, counting everything."""

    def __init__(self, referee: Referee, policy: Policy, rng: random.Random | None = None,
                 fog: bool = True, audit: bool = False) -> None:
        self.referee = referee
        self.audit = audit
        """Whether each enabled option aimed at a token is checked for a legal target (the
        contract does; a forecast skips the cost)."""
        self.policy = policy
        self.table = Table(referee, rng or random.Random(0))
        self.tally = Tally()
        # Commands ``offered`` sent at one version: one the referee refused is not sent again.
        self._tried: tuple[int, set[Command]] = (-1, set())
        if not fog and referee.state.fog.enabled:
            # Fog is drawing, not rules: a forecast skips the vision work of every command.
            referee.execute(SetFog(False))

    def aimable(self, actor: str, option: ActionOption) -> bool:
        """Whether some token is a legal target of ``option`` now (the RNG untouched, so the
        fight plays the same with the audit on or off)."""
        ids = [option.at] if option.at else [t for t in self.referee.state.tokens if t != actor]
        return any(self.table.legal(actor, Choice(option, t)) for t in ids)

    def send(self, command: Command, what: str) -> bool:
        """Execute ``command``; a refusal is counted and named as a problem; any other
        error comes out as ``Crashed``, naming the step and the gesture."""
        try:
            self.referee.execute(command)
        except RuleError as err:
            self.tally.refusals += 1
            self.tally.problem(f"{what} was refused: {err}")
            return False
        except Exception as err:  # the ruleset's code under test raised: say where
            raise Crashed(self.tally.steps, what, err) from err
        self.tally.executed += 1
        return True

    def start(self) -> bool:
        """Start combat the way Game ▸ Start Combat does, unless it has started."""
        ruleset = self.referee.ruleset
        if ruleset.turn_order(self.referee.state) is not None:
            return True
        return self.send(StartCombat(), "Start combat")

    def step(self) -> bool:
        """One gesture of the acting token; False when the fight cannot go on (``Crashed``
        when the ruleset's code raises, naming the step and the gesture)."""
        try:
            return self._step()
        except Crashed:
            raise
        except Exception as err:  # the ruleset's code under test raised: say where
            raise Crashed(self.tally.steps, self.table.doing or "a turn", err) from err

    def _step(self) -> bool:
        referee, tally = self.referee, self.tally
        state, ruleset = referee.state, referee.ruleset
        tally.steps += 1
        actor = ruleset.whose_turn(state)
        if actor is None or actor not in state.tokens:
            tally.ended += 1
            return self.send(EndTurn(), "End turn with nobody acting")
        tally.turns[actor] += 1
        options = ruleset.actions_for(state, actor)
        for o in options:
            if not o.enabled and not o.reason.strip():
                tally.problem(f"{o.label!r} of {actor} is disabled with no reason")
            tally.keys.add(o.key)
            if o.key != "end_turn":
                tally.offered[o.label] = tally.offered.get(o.label, False) or o.enabled
            if self.audit and o.enabled and o.target == "token" and o.label not in tally.aimless \
                    and not self.aimable(actor, o):
                tally.aimless[o.label] = (f"step {tally.steps}: {o.label!r} of {actor} is "
                                          "enabled, but no token is a legal target (the "
                                          "referee refuses every one)")
        choice = self.policy.choose(self.table, actor, options)
        if choice is None:
            ends = [o for o in options if o.key == "end_turn"]
            if not ends or any(o.enabled for o in ends):
                tally.ended += 1
                return self.send(EndTurn(), f"End turn of {actor}")
            # End turn is greyed (a declared action must be made first, reflex): the
            # turn goes on with what the ruleset offers, as a GM would have to.
            choice = self.offered(actor, options)
            if choice is None:
                tally.problem(f"{actor} can neither act nor end the turn ({ends[0].reason})")
                return False
        option = choice.option
        tally.tried += 1
        tally.labels[option.label] += 1
        aimed = f" → {choice.target}" if choice.target else \
            f" to {choice.path[-1]}" if choice.path else ""
        # A refusal is counted; the fight goes on, as at the table.
        self.send(choice.command(actor), f"{actor}: {option.label}{aimed}")
        return True

    def offered(self, actor: str, options: Sequence[ActionOption]) -> Choice | None:
        """An enabled option with a legal aim, for a turn that cannot end yet: one aimed
        at its own target (``at``, a declaration) first, equals in the table's random
        order; an option the referee refused in this state is not tried again."""
        if self._tried[0] != self.referee.version:
            self._tried = (self.referee.version, set())
        enabled = [o for o in options if o.enabled and o.key != "end_turn"]
        self.table.rng.shuffle(enabled)
        enabled.sort(key=lambda o: not o.at)
        for option in enabled:
            choice = self.table.aim(actor, option)
            if choice is not None and choice.command(actor) not in self._tried[1]:
                self._tried[1].add(choice.command(actor))
                return choice
        return None

    def play(self, rounds: int = 20, max_steps: int = 3000, join: bool = False,
             stop: Callable[[Encounter], bool] | None = None) -> Tally:
        """Play from the start of combat for ``rounds`` rounds (at most ``max_steps``
        gestures), adding a combatant when the second round starts if ``join``, until
        ``stop(state)`` holds."""
        tally = self.tally
        if not self.start():
            return tally
        first = self.referee.state.round
        while self.referee.state.round < first + rounds and tally.steps < max_steps:
            if stop is not None and stop(self.referee.state):
                break
            if join and not tally.joined and self.referee.state.round == first + 1:
                token = newcomer(self.referee)
                if self.send(AddToken(token), f"Adding {token.name} mid-combat"):
                    tally.joined = token.id
            if not self.step():
                break
        state = self.referee.state
        tally.rounds = state.round - first
        return tally


def standing(state: Encounter, out: OutOfFight = marked_dead) -> set[str]:
    """The sides with a token still in the fight (not ``out``, the ruleset's
    ``out_of_fight``)."""
    return {t.side for t in state.tokens.values() if not out(t)}


def contract(referee: Referee, seed: int | str, rounds: int = 20, max_steps: int = 3000
             ) -> Tally:
    """The every-action contract on one encounter: every offered option, ``rounds`` rounds,
    a combatant added mid-combat; the tally's problems hold every failure."""
    rng = random.Random(f"contract-{seed}")
    driver = Driver(referee, EveryOption(random.Random(rng.random())), rng, audit=True)
    tally = driver.play(rounds, max_steps, join=True)
    if tally.rounds < rounds and not tally.problems:
        tally.problems.append(f"only {tally.rounds} of {rounds} rounds in {tally.steps} steps")
    out = referee.ruleset.out_of_fight
    never = [t for t in tally.never_acted(referee.state, out) if t != tally.joined]
    if never:
        tally.problems.append(f"never had a turn: {', '.join(never)}")
    joined = referee.state.tokens.get(tally.joined)
    # Struck down before its first turn is bad luck, not a broken promise.
    if joined is not None and not out(joined) and not tally.turns[joined.id]:
        tally.problems.append(f"{joined.id}, added mid-combat, never acted")
    return tally
