"""The round as Speed Rank plays it: the two records it keeps in ``state.schedule``.

``Round`` is the schedule: the sides' initiative, the phase timeline, whose turn
it is, what each combatant has spent, and the sprints and spells in progress
(``Plan``). Both are saved in encounter files under their record names, so a
field renamed here is a file format change.
"""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from tacmap.api import (
    SPEED_PHASES,
    Float,
    Int,
    PhaseTimeline,
    Record,
    RuleError,
    Schedule,
    SideInitiative,
    Text,
    phase_index,
)

#: One attack as Weapon Trouble needs to know it: attacker, weapon key, target, melee.
AttackMark = tuple[Text, Text, Text, bool]
#: Positions in SPEED_PHASES of the Starting Phase, the Fast phase (rank 0) and the Final Phase.
PHASE_S, PHASE_FAST, PHASE_F = 0, SPEED_PHASES.index("0"), len(SPEED_PHASES) - 1


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
    """Target token id, for a spell aimed at a token."""
    area: Text | UnsetType = UNSET
    """Id of the template on the map, for a spell aimed at an area (unset otherwise, and
    not written, so older files keep their bytes)."""


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
        return self.initiative.sides[self.side].side

    def plan(self, actor: str, label: str) -> Plan | None:
        """The plan behind ``actor``'s ``label``, if it is a sprint or a spell."""
        for p in self.plans:
            if p.actor == actor and p.label == label:
                return p
        return None


def passing(rnd: Round, skipped: list[tuple[int, str, bool]]) -> str:
    """The sides and phases End turn passed over, as words: "phase 2: nothing to do for
    Red Company; phases 3, 4 pass".

    ``skipped`` holds (phase index, side, whether its spell had just landed), in order.
    """
    if not skipped:
        return ""
    order = rnd.initiative.order
    parts: list[str] = []
    phases = list(dict.fromkeys(at for at, _, _ in skipped))
    run: list[str] = []
    for at in phases:
        here = [(who, landed) for p, who, landed in skipped if p == at]
        if len(here) == len(order) and not any(landed for _, landed in here):
            run.append(SPEED_PHASES[at])
            continue
        if run:
            parts.append(_pass_run(run))
            run = []
        for landed in (True, False):
            names = [who for who, done in here if done == landed]
            if names:
                more = "nothing more" if landed else "nothing"
                who = (f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1
                       else names[0])
                parts.append(f"phase {SPEED_PHASES[at]}: {more} to do for {who}")
    if run:
        parts.append(_pass_run(run))
    return "; ".join(parts)


def _pass_run(run: list[str]) -> str:
    return f"phases {', '.join(run)} pass" if len(run) > 1 else f"phase {run[0]} passes"
