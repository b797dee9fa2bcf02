"""The round as Speed Rank plays it: the two records it keeps in ``state.schedule``.

``Round`` is the schedule: the sides' initiative, the phase timeline, whose turn
it is, what each combatant has spent, and the sprints and spells in progress
(``Plan``). Both are saved in encounter files under their record names, so a
field renamed here is a file format change.
"""

from __future__ import annotations

from dataclasses import dataclass

from tacmap.engine.codec import record
from tacmap.engine.errors import RuleError
from tacmap.engine.schedule import SPEED_PHASES, PhaseTimeline, SideInitiative, phase_index

#: One attack as Weapon Trouble needs to know it: attacker, weapon key, target, melee.
AttackMark = tuple[str, str, str, bool]
#: Positions in SPEED_PHASES of the Starting Phase, the Fast phase (rank 0) and the Final Phase.
PHASE_S, PHASE_FAST, PHASE_F = 0, SPEED_PHASES.index("0"), len(SPEED_PHASES) - 1


@record("speed_rank_plan")
@dataclass(frozen=True)
class Plan:
    """A multi-phase action on the timeline, and what it does when it ends."""

    actor: str
    """Token id of who acts."""
    label: str
    """Its label on the timeline (unique per actor)."""
    kind: str
    """``"sprint"`` or ``"spell"``."""
    spell: str = ""
    """Spell key in ruleset.toml, for a spell."""
    target: str = ""
    """Target token id, for a spell."""


@record("speed_rank_round")
@dataclass(frozen=True)
class Round:
    """The round as Speed Rank plays it: the sides' initiative, the timeline, whose turn."""

    initiative: SideInitiative
    """This round's side rolls, first to act first."""
    timeline: PhaseTimeline
    """Phases, the current phase and every action placed on them."""
    side: int = 0
    """Position in ``initiative.order`` of the side taking its turn in the current phase."""
    spent: tuple[tuple[str, int, int], ...] = ()
    """(token, standard actions used, move actions used) this round."""
    sprinted: tuple[tuple[str, float], ...] = ()
    """Metres each sprinter has run in the current phase."""
    plans: tuple[Plan, ...] = ()
    """Sprints and spells on the timeline, with what they do."""
    pending: tuple[tuple[str, str], ...] = ()
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
