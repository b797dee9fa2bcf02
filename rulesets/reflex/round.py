"""The round as Reflex plays it: the records it keeps in ``state.schedule``.

``Round`` wraps the engine's ``DeclareThenAct`` (who declares and who acts, the
roll-offs kept for the encounter) and adds what the rules need past words: each
declaration as a ``Plan``, the pools rolled at the start of the action phase and
kept for the round (``Pool``), advantage and disadvantage gained (``Edge``),
metres moved, targets engaged and extra combat rolls the GM allowed. Everything
is saved in encounter files under these record names, so a field renamed here
is a file format change.
"""

from __future__ import annotations

from typing import Literal

from msgspec.structs import replace

from tacmap.api import DeclareThenAct, Float, Int, Record, Schedule, Text

#: What a character may declare; the first four roll a pool at the start of the action phase.
Kind = Literal["attack", "knock_down", "dodge", "assist", "stand", "other", "nothing"]
ROLLING: tuple[str, ...] = ("attack", "knock_down", "dodge", "assist")


class Plan(Record, frozen=True, tag="reflex_plan"):
    """One declared action, locked for the round."""

    actor: Text
    """Token id of who declared it."""
    action: Kind
    """What kind of action it is."""
    target: Text = ""
    """The token it is aimed at (an enemy, or the ally an assist helps)."""
    weapon: Text = ""
    """Weapon key of an attack."""
    words: Text = ""
    """The declaration in words, as later declarers read it."""


class Pool(Record, frozen=True, tag="reflex_pool"):
    """A combat roll, kept for the round: faces left to right, dice lost from the left."""

    owner: Text
    """Token id of who rolled it."""
    stat: Text
    """The stat whose dice were rolled (``"melee"``, ``"dodge"`` …)."""
    faces: tuple[Int, ...]
    """Faces in the order rolled."""
    lost: Int = 0
    """Dice removed from the left by injury."""
    label: Text = ""
    """What it was rolled for (``"attack Brak with the sword"``)."""
    extra: bool = False
    """An extra combat roll the GM allowed (not the declared action's)."""

    @property
    def kept(self) -> tuple[int, ...]:
        """The faces still in the pool."""
        return self.faces[self.lost:]


class Edge(Record, frozen=True, tag="reflex_edge"):
    """Advantage or disadvantage gained this round: it applies to every pool of the round."""

    token: Text
    """Who gained it."""
    kind: Literal["advantage", "disadvantage"]
    """Which."""
    why: Text
    """The trigger, in words (``"staggered by Ana"``)."""


class Round(Schedule, frozen=True, tag="reflex_round"):
    """The round: declare-then-act order, declarations, kept pools, edges."""

    order: DeclareThenAct
    """RFX order, phase, declarations in words, who has acted, roll-offs."""
    plans: tuple[Plan, ...] = ()
    """This round's declarations, in the order made."""
    pools: tuple[Pool, ...] = ()
    """Pools rolled this round, in the order rolled."""
    edges: tuple[Edge, ...] = ()
    """Advantage and disadvantage gained this round, in order."""
    moved: tuple[tuple[Text, Float], ...] = ()
    """Metres each character has moved this round."""
    engaged: tuple[tuple[Text, Text], ...] = ()
    """(actor, target) of each target engaged by a declared action, in order."""
    allowed: tuple[tuple[Text, Int], ...] = ()
    """Extra combat rolls the GM allowed this round, by token."""
    rolled: bool = False
    """True once the pools of the action phase are rolled."""

    def plan(self, who: str) -> Plan | None:
        """What ``who`` declared this round."""
        return next((p for p in self.plans if p.actor == who), None)

    def pools_of(self, who: str) -> tuple[Pool, ...]:
        """``who``'s kept pools, the declared one first."""
        return tuple(p for p in self.pools if p.owner == who)

    def main_pool(self, who: str) -> Pool | None:
        """The pool rolled for ``who``'s declared action."""
        return next((p for p in self.pools if p.owner == who and not p.extra), None)

    def edges_of(self, who: str) -> tuple[Edge, ...]:
        """Advantage and disadvantage ``who`` has this round."""
        return tuple(e for e in self.edges if e.token == who)

    def targets_of(self, who: str) -> tuple[str, ...]:
        """Targets ``who``'s declared action has engaged, in order."""
        return tuple(t for a, t in self.engaged if a == who)

    def metres(self, who: str) -> float:
        """Metres ``who`` has moved this round."""
        return dict(self.moved).get(who, 0.0)

    def extra_allowed(self, who: str) -> int:
        """Extra combat rolls the GM allowed ``who`` this round."""
        return dict(self.allowed).get(who, 0)

    def extra_used(self, who: str) -> int:
        """Extra combat rolls ``who`` has made this round."""
        return sum(1 for p in self.pools if p.owner == who and p.extra)

    def extra_left(self, who: str, free: int) -> int:
        """Extra combat rolls ``who`` may still make: ``free`` past the declared one
        (``round.combat_rolls`` − 1) and the GM's, less those made."""
        return free + self.extra_allowed(who) - self.extra_used(who)

    def with_pool(self, old: Pool, new: Pool) -> Round:
        """The round with ``old`` replaced by ``new``."""
        at = self.pools.index(old)
        return replace(self, pools=(*self.pools[:at], new, *self.pools[at + 1:]))
