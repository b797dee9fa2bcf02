"""Balance an encounter to a target before the table sees it (issue 39).

The GM states a target ("party wins 75%, at most 1 down in half the fights"); this
module proposes changes to one side (copies of its combatants added or taken away,
placed on free cells beside their side, or their HP scaled), searches them with the
forecast (few fights a first guess, more to confirm the best) and returns the best
three, each with its forecast. Nothing changes: a proposal is one ``Rebalance``
command, which the GM sends when they pick it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from tacmap.engine.model.commands import Rebalance
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter, Token, party_side, sides_of
from tacmap.engine.model.words import possessive
from tacmap.engine.play.autoplay import free_cell
from tacmap.engine.play.forecast import Forecast, PolicyMaker, fight_pool, forecast
from tacmap.engine.play.gm import next_names
from tacmap.engine.rules.ruleset import Ruleset

#: Fights a first guess is played with, and a proposal among the best is confirmed with.
GUESS, CONFIRM = 60, 300
#: Combatants added or taken off at most in one proposal (a step adds one change to each of
#: the ``BEAM`` best so far); then the ``TUNED`` best have their side's HP tuned, in
#: ``BISECTIONS`` halvings of the scale between ×0.5 and ×2.
STEPS, BEAM, TUNED, BISECTIONS = 2, 3, 4, 4
#: Proposals shown, and played again to confirm: a first guess of few fights is noisy,
#: and the best of many guesses flatters itself.
SHOWN, CONFIRMED = 3, 6

_TARGET = re.compile(
    r"^\s*(?P<side>.+?)\s+wins?\s+(?P<win>\d{1,3}(?:\.\d+)?)\s*%"
    r"(?:\s*(?:±|\+-|\+/-)\s*(?P<tol>\d{1,2}(?:\.\d+)?)\s*%?)?"
    r"(?:\s*,\s*at most\s+(?P<down>\d{1,3})\s+down\s+in\s+"
    r"(?P<share>half|a quarter|three quarters|\d{1,3}\s*%)\s+(?:of\s+)?the fights)?\s*$",
    re.IGNORECASE)
_SHARES = {"half": 0.5, "a quarter": 0.25, "three quarters": 0.75}


@dataclass(frozen=True)
class Target:
    """What the GM wants of a fight."""

    side: str
    """The side whose chance to win is asked for."""
    win: float
    """Its chance to win, 0 to 1."""
    tolerance: float = 0.05
    """How far from ``win`` still meets the target."""
    most_down: int | None = None
    """At most this many of ``side`` down at the end …"""
    share: float = 0.5
    """… in at least this share of the fights."""

    def miss(self, result: Forecast) -> float:
        """How far ``result`` is from the target (0: met): the win chance outside the
        tolerance, plus the share of fights short of the losses asked for."""
        p = result.win(self.side)[0]
        off = max(0.0, abs(p - self.win) - self.tolerance)
        if self.most_down is not None:
            kept = sum(q for k, q in result.losses(self.side).items() if k <= self.most_down)
            off += max(0.0, self.share - kept)
        return off

    def describe(self) -> str:
        """The target in the GM's words."""
        text = f"{self.side} {100 * self.win:g}% to win (± {100 * self.tolerance:g})"
        if self.most_down is not None:
            text += f", at most {self.most_down} down in {100 * self.share:g}% of the fights"
        return text


def parse_target(text: str, sides: Sequence[str]) -> Target:
    """``"party wins 75%, at most 1 down in half the fights"`` as a ``Target``; InputError
    in one sentence for anything else."""
    m = _TARGET.match(text)
    if m is None:
        raise InputError(f"a target reads like \"party wins 75%\" or \"party wins 75% ± 5%, "
                         f"at most 1 down in half the fights\", not {text!r}")
    side = m["side"].strip()
    if side not in sides:
        raise InputError(f"the target names no side of this encounter: {side!r} (its sides: "
                         f"{', '.join(sides)})")
    win = float(m["win"]) / 100
    tol = float(m["tol"]) / 100 if m["tol"] else 0.05
    if not 0 <= win <= 1:
        raise InputError(f"a chance to win is 0% to 100%, not {m['win']}%")
    share_text = (m["share"] or "half").lower()
    share = _SHARES.get(share_text)
    if share is None:
        share = float(share_text.rstrip("% ")) / 100
        if not 0 < share <= 1:
            raise InputError(f"a share of the fights is 1% to 100%, not {share_text}")
    down = int(m["down"]) if m["down"] is not None else None
    return Target(side, win, tol, down, share)


@dataclass(frozen=True)
class Proposal:
    """One way to change the encounter, and how its fights go."""

    words: str
    """What it changes, in the GM's words ("add Pip 2; Mott's HP 16 → 20")."""
    command: Rebalance
    """The one command that makes the change (undone as one)."""
    result: Forecast
    """Its forecast (``CONFIRM`` fights for the proposals shown)."""
    miss: float
    """How far it is from the target (``Target.miss``; 0: met)."""
    target: Target
    """The target it was found for."""


def changed_side(state: Encounter, target: Target, side: str | None = None) -> str:
    """The side the proposals change: ``side`` if given, else the side other than the
    party (the GM's foes), else any side other than the target's."""
    sides = sides_of(state)
    if side is not None:
        if side not in sides:
            raise InputError(f"--side names no side of this encounter: {side!r} (its sides: "
                             f"{', '.join(sides)})")
        return side
    party = party_side(state)
    others = [s for s in sides if s != party] or [s for s in sides if s != target.side]
    if not others:
        raise InputError("balancing takes two sides on the map")
    return others[0]


def moves(state: Encounter, ruleset: Ruleset, side: str, pool: Sequence[Token]
          ) -> list[tuple[str, Rebalance]]:
    """Every change of numbers tried from ``state``: one more of each kind of combatant of
    ``side`` (or of ``pool``), one fewer where the side keeps one."""
    out = ruleset.out_of_fight
    members = [t for t in state.tokens.values() if t.side == side and not out(t)]
    kinds: dict[str, Token] = {}
    for t in [*members, *pool]:
        kinds.setdefault(_stem(t.name), t)
    tried: list[tuple[str, Rebalance]] = []
    for stem, model in kinds.items():
        copy_ = _copy_beside(state, model, side)
        tried.append((f"add {copy_.name}", Rebalance(add=(copy_,))))
        mine = [t for t in members if _stem(t.name) == stem]
        if mine and len(members) > 1:
            gone = mine[-1]
            tried.append((f"remove {gone.name}", Rebalance(remove=(gone.id,))))
    return tried


def scaled(state: Encounter, ruleset: Ruleset, side: str, scale: float) -> Rebalance:
    """Every combatant of ``side`` with its HP scaled by ``scale`` (at least 1 HP)."""
    out = ruleset.out_of_fight
    members = [t for t in state.tokens.values() if t.side == side and not out(t)]
    edits = tuple(e for t in members if (e := _scaled(t, scale)) != t)
    return Rebalance(edit=edits)


def balance(state: Encounter, ruleset: Ruleset, target: Target, side: str,
            pool: Sequence[Token] = (), jobs: int = 1, folders: Sequence[str] = (),
            told: Callable[[str], None] | None = None,
            cancelled: Callable[[], bool] | None = None,
            sizes: tuple[int, int, int] | None = None,
            policy: PolicyMaker | None = None) -> list[Proposal]:
    """The best ``SHOWN`` proposals for ``target``, changing ``side``, best first.

    First the numbers: each of ``STEPS`` steps tries every one-combatant change on top
    of the ``BEAM`` best so far, with ``GUESS`` fights. Then the HP: for each of the best,
    the side's HP is scaled by bisection towards the target's chance (more HP for the side
    helps it win). The best are played ``CONFIRM`` times. ``told`` hears progress;
    ``sizes`` replaces (``GUESS``, ``CONFIRM``, ``STEPS``) for a quick search; ``policy``
    plays the fights (the forecast's greedy policy when None, ``by_side`` the autopilot).
    """
    if jobs <= 1:
        return _search(state, ruleset, target, side, pool, None, folders, told, cancelled,
                       sizes, policy)
    with fight_pool(jobs) as workers:
        return _search(state, ruleset, target, side, pool, workers, folders, told, cancelled,
                       sizes, policy)


def _search(state: Encounter, ruleset: Ruleset, target: Target, side: str,
            pool: Sequence[Token], workers: ProcessPoolExecutor | None,
            folders: Sequence[str], told: Callable[[str], None] | None,
            cancelled: Callable[[], bool] | None, sizes: tuple[int, int, int] | None,
            policy: PolicyMaker | None) -> list[Proposal]:
    """``balance``'s search, its fights played in ``workers`` (or here, when None)."""
    guess, confirm, steps = sizes if sizes is not None else (GUESS, CONFIRM, STEPS)

    def play(s: Encounter, fights: int) -> Forecast:
        return forecast(s, ruleset, fights, seed=1, folders=folders, cancelled=cancelled,
                        policy=policy, workers=workers)

    def say(text: str) -> None:
        if told is not None:
            told(text)

    def stopped() -> bool:
        return cancelled is not None and cancelled()

    start = play(state, guess)
    say(f"as it is: {target.side} {100 * start.win(target.side)[0]:.0f}% to win")
    tried: dict[str, tuple[float, Rebalance, Encounter, Forecast]] = {
        "": (target.miss(start), Rebalance(), state, start)}
    beam = [""]
    for step in range(steps):
        grown: list[str] = []
        for words in beam:
            _miss, done, base, _result = tried[words]
            for more, change in moves(base, ruleset, side, pool):
                key = "; ".join(sorted(filter(None, [*words.split("; "), more])))
                joined = _joined(done, change)
                after = apply(state, joined)
                if key in tried or after is None:
                    continue
                if stopped():
                    return []
                result = play(after, guess)
                tried[key] = (target.miss(result), joined, after, result)
                grown.append(key)
        if not grown:
            break
        beam = sorted(grown, key=lambda k: (tried[k][0], len(k)))[:BEAM]
        say(f"step {step + 1}: {len(tried) - 1} changes tried")
    shapes = sorted(tried, key=lambda k: (tried[k][0], len(k)))[:TUNED]
    tuned: list[tuple[str, Rebalance, Encounter, Forecast]] = []
    helps = side == target.side  # more HP for the side changed: more wins for it
    for words in shapes:
        _miss, done, after, result = tried[words]
        tuned.append((words, done, after, result))
        low, high, scale = 0.5, 2.0, 1.0
        chance = result.win(target.side)[0]
        for _ in range(BISECTIONS):
            if abs(chance - target.win) <= target.tolerance / 2 or stopped():
                break
            if (chance < target.win) == helps:  # the side wants more HP
                low = scale
            else:
                high = scale
            scale = _mid(low, high)
            change = _joined(done, scaled(after, ruleset, side, scale))
            shaped = apply(state, change)
            if shaped is None or not change.edit:
                break
            result = play(shaped, guess)
            chance = result.win(target.side)[0]
            phrase = "; ".join(filter(None, [words, f"{possessive(side)} HP × {scale:.2f}"]))
            tuned.append((phrase, change, shaped, result))
    # The encounter as it is is no proposal; the best first guesses are played again.
    guesses = sorted((t for t in tuned if t[1].add or t[1].remove or t[1].edit),
                     key=lambda t: (target.miss(t[3]), abs(t[3].win(target.side)[0] - target.win)))
    say(f"{len(tried) + len(tuned) - len(shapes) - 1} changes tried: confirming the best")
    best = []
    for words, command, after, _guess in guesses[:CONFIRMED]:
        if stopped():
            return []
        result = play(after, confirm)
        best.append(Proposal(words, command, result, target.miss(result), target))
    best.sort(key=lambda b: (b.miss, abs(b.result.win(target.side)[0] - target.win),
                             len(b.words)))
    return best[:SHOWN]


def _mid(low: float, high: float) -> float:
    """The middle of two scales, geometrically (×0.5 and ×2 meet at ×1)."""
    return float((low * high) ** 0.5)


def apply(state: Encounter, command: Rebalance) -> Encounter | None:
    """A copy of ``state`` with ``command`` done (None: it does not fit)."""
    after = copy.deepcopy(state)
    for tid in command.remove:
        if tid not in after.tokens:
            return None
        del after.tokens[tid]
    for token in command.edit:
        if token.id not in after.tokens:
            return None
        after.tokens[token.id] = token
    for token in command.add:
        if token.id in after.tokens:
            return None
        after.tokens[token.id] = token
    return after


def _joined(first: Rebalance, then: Rebalance) -> Rebalance:
    """Both changes as one command (an edit of a token added is folded into the add)."""
    adds = {t.id: t for t in first.add}
    edits = {t.id: t for t in first.edit}
    removed = list(first.remove)
    for t in then.add:
        adds[t.id] = t
    for t in then.edit:
        if t.id in adds:
            adds[t.id] = t
        else:
            edits[t.id] = t
    for tid in then.remove:
        if tid in adds:
            del adds[tid]
        else:
            edits.pop(tid, None)
            removed.append(tid)
    return Rebalance(tuple(adds.values()), tuple(removed), tuple(edits.values()))


def _stem(name: str) -> str:
    """``"Goblin 3"`` → ``"Goblin"``: copies count as one kind."""
    head, _, tail = name.rpartition(" ")
    return head if head and tail.isdigit() else name


def _copy_beside(state: Encounter, model: Token, side: str) -> Token:
    """A fresh copy of ``model`` for ``side`` on the free cell nearest its side."""
    n = len(state.tokens) + 1
    stem = _stem(model.id).replace(" ", "_")
    while f"{stem}_{n}" in state.tokens:
        n += 1
    mates = [t.cell for t in state.tokens.values() if t.side == side] or [model.cell]
    near = (sum(c[0] for c in mates) // len(mates), sum(c[1] for c in mates) // len(mates))
    named = any(_stem(t.name) == _stem(model.name) for t in state.tokens.values())
    name = next_names(state, model.name, 1)[0] if named else model.name  # a roster's first
    return Token(f"{stem}_{n}", name, side,
                 *free_cell(state, near, model.size), size=model.size, hp=model.max_hp,
                 max_hp=model.max_hp, stats=copy.deepcopy(model.stats))


def _scaled(token: Token, scale: float) -> Token:
    """``token`` with its HP and most HP scaled (at least 1)."""
    top = max(1, round(token.max_hp * scale))
    hp = max(1, round(token.hp * scale))
    new = copy.deepcopy(token)
    new.max_hp, new.hp = top, min(hp, top)
    return new
