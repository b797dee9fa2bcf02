"""The six_phase round as a record: the engine's FixedPhases plus what was declared and done.

``FixedPhases`` keeps the phase, the step (declare / resolve) and each
declaration's d20s. This record adds the command behind each declaration
(``Plan``), who passed, the spells declared in phase 1 that wait for phase 5,
and the round's resolved actions (``Done``) for the timeline.
"""

from __future__ import annotations

from msgspec.structs import replace

from tacmap.api import Cell, FixedPhases, Int, Record, Schedule, Text


class Plan(Record, frozen=True, tag="six_phase_plan"):
    """A declared action: who, what, at whom, which variant, and a move's waypoints."""

    who: Text
    key: Text
    """``move``, ``melee``, ``shoot``, ``cast``, ``shove`` … (or ``morale``)."""
    label: Text
    """The declaration in words (``"shove Regdar away"``)."""
    target: Text = ""
    detail: Text = ""
    """``"type/location"`` for an attack, ``"spell/type/location"`` for a spell …"""
    path: tuple[Cell, ...] = ()


class Done(Record, frozen=True, tag="six_phase_done"):
    """An action of this round once resolved (or struck out), for the timeline."""

    phase: Int
    who: Text
    label: Text
    faces: tuple[Int, ...]
    struck: Text = ""
    used: Int = 0
    """The face the action used when it rolled two d20s (0: its only one)."""


class Round(Schedule, frozen=True, tag="six_phase_round"):
    """Seed 002's round: the fixed phases and what the combatants declared in them."""

    phases: FixedPhases
    plans: tuple[Plan, ...] = ()
    """This phase's declarations, in declaration order."""
    passed: tuple[Text, ...] = ()
    """Combatants who declared nothing in this phase."""
    spells: tuple[Plan, ...] = ()
    """Spells declared in phase 1, resolving in phase 5."""
    done: tuple[Done, ...] = ()
    """This round's resolved actions, phase by phase, in resolution order."""
    last: tuple[Done, ...] = ()
    """The previous round's, shown in the phases this round has not reached yet."""

    @property
    def index(self) -> int:
        """The current phase's position (0 … 5)."""
        return self.phases.index

    def plan(self, who: str) -> Plan | None:
        """What ``who`` declared in this phase."""
        return next((p for p in self.plans if p.who == who), None)

    def declared(self, plan: Plan) -> Round:
        """``plan`` joins this phase's declarations."""
        return replace(self, phases=self.phases.declare(plan.who, plan.label),
                       plans=(*self.plans, plan))
