"""What the rules ask of one ``Round`` again and again, worked out once per round record.

Passing the turn asks every combatant of every side whether it can act in each
phase, and offering the actions asks the same round the same questions for each
option: whose turn, the side's shift, what each combatant has spent, which sprint
or spell is under way. ``Round`` is a frozen record that the rules replace on
every change, so what follows from it alone is kept beside it (``of``) until a
newer round takes its place::

    >>> facts = of(state.schedule)         # doctest: +SKIP
    >>> facts.shift["Red Company"]         # doctest: +SKIP
    1
"""

from __future__ import annotations

from tacmap.api import SPEED_PHASES, TimedAction, phase_index

from .round import Plan, Round

#: Rounds kept (a forecast plays one fight at a time; previews and undo revisit a few).
KEPT = 32

#: A sprint or spell under way: its piece on the timeline and its plan.
Underway = tuple[TimedAction, Plan]


class RoundFacts:
    """Answers that depend on one round record only (never on the tokens)."""

    __slots__ = ("_planned", "current", "order", "pending", "phase_i", "rnd", "shift",
                 "sides", "used")

    def __init__(self, rnd: Round) -> None:
        self.rnd = rnd
        self.order = rnd.initiative.order
        self.sides = frozenset(self.order)
        # The first entry of a side or token counts, as the searches it replaces found it.
        self.shift: dict[str, int] = {}
        for s in rnd.initiative.sides:
            self.shift.setdefault(s.side, s.shift)
        self.used: dict[str, tuple[int, int]] = {}
        for token, std, mov in rnd.spent:
            self.used.setdefault(token, (std, mov))
        self.phase_i = phase_index(rnd.timeline.current)
        self.current = self.order[rnd.side] if 0 <= rnd.side < len(self.order) else None
        self.pending = frozenset(actor for actor, _ in rnd.pending)
        self._planned: dict[int, dict[str, list[Underway]]] = {}

    def planned(self, at: int) -> dict[str, list[Underway]]:
        """By actor, the sprints and spells under way in phase ``at``, in timeline order."""
        known = self._planned.get(at)
        if known is None:
            known = {}
            if self.rnd.plans and self.rnd.timeline.actions:  # no plan: nothing under way
                for a in self.rnd.timeline.spanning(SPEED_PHASES[at]):
                    plan = self.rnd.plan(a.actor, a.label)
                    if plan is not None:
                        known.setdefault(a.actor, []).append((a, plan))
            self._planned[at] = known
        return known


_KEPT: dict[int, tuple[Round, RoundFacts]] = {}
#: The round asked about last, with its facts (one pair, swapped whole: threads may share it).
_last: tuple[Round | None, RoundFacts | None] = (None, None)


def of(rnd: Round) -> RoundFacts:
    """The facts of ``rnd``, worked out the first time it is asked about."""
    global _last
    last = _last
    if last[0] is rnd and last[1] is not None:
        return last[1]
    # By identity, holding the record: its id cannot be reused while it is kept.
    hit = _KEPT.get(id(rnd))
    if hit is not None and hit[0] is rnd:
        facts = hit[1]
    else:
        if len(_KEPT) >= KEPT:
            _KEPT.clear()
        facts = RoundFacts(rnd)
        _KEPT[id(rnd)] = (rnd, facts)
    _last = (rnd, facts)
    return facts
