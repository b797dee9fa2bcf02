"""What the Six Phases panels show: turn order, the six-phase timeline, status, action options.

Plain view-models (tacmap.engine.rules.views) built from the state; nothing here
changes it. rules.py's ``SixPhase`` delegates to these functions and hands
itself over as ``Rules``.
"""

from __future__ import annotations

from typing import Any, Protocol

from tacmap.api import (
    ActionOption,
    Declared,
    Encounter,
    OrderRow,
    PoolView,
    RowState,
    RuleError,
    Timeline,
    TimelineItem,
    Token,
    TurnOrder,
)

from . import actions
from .data import DECLARE_SPELLS, MELEE, MOVEMENT, RANGED, SPELLS, Data, Weapon
from .round import Round


class Rules(Protocol):
    """What the panels ask of the ruleset."""

    data: Data

    def stat(self, token: Token, key: str) -> Any: ...
    def round_of(self, state: Encounter) -> Round: ...
    def phase_text(self, index: int) -> str: ...
    def due_reason(self, state: Encounter, rnd: Round, token: Token) -> str: ...
    def waiting(self, state: Encounter, rnd: Round) -> list[Token]: ...
    def ranged_weapon(self, token: Token) -> Weapon | None: ...
    def melee_weapon(self, token: Token) -> Weapon: ...
    def immobile(self, token: Token) -> str: ...
    def wounds(self, token: Token) -> list[tuple[str, str, int]]: ...
    def notches(self, token: Token) -> dict[str, int]: ...


def status_lines(rules: Rules, state: Encounter, token: Token) -> tuple[str, ...]:
    """``Wounds: Concussion (head, until the end of round 2)`` and ``Notches: chain 1``."""
    out = []
    wounds = rules.wounds(token)
    if wounds:
        parts = [f"{name} ({loc}{f', until the end of round {until}' if until else ''})"
                 for name, loc, until in wounds]
        out.append(f"Wounds {len(wounds)}: " + "; ".join(parts))
    notches = rules.notches(token)
    if notches:
        out.append("Notches: " + ", ".join(f"{item} {n}" for item, n in notches.items()))
    return tuple(out)


def turn_order(rules: Rules, state: Encounter) -> TurnOrder | None:
    """This phase's declarations: who declared what, who is next, who has nothing to do."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    waiting = rules.waiting(state, rnd)
    first = waiting[0].id if waiting else None
    last_roll = {d.who: d.faces[0] for d in rnd.done if d.faces}
    rows = []
    for t in state.tokens.values():
        plan = rnd.plan(t.id)
        key = f"d20 {last_roll[t.id]}" if t.id in last_roll else "d20 —"
        row_state: RowState
        if not t.alive:
            row_state, detail = "out", "dead"
        elif plan is not None:
            row_state, detail = "declared", plan.label
        elif t.id in rnd.passed:
            row_state, detail = "done", "declares nothing"
        elif t in waiting:
            row_state = "acting" if t.id == first else "waiting"
            detail = "declaring" if t.id == first else "to declare"
        else:
            row_state, detail = "done", rules.due_reason(state, rnd, t)
        rows.append(OrderRow(t.id, t.name, t.side, key, row_state, detail))
    title = f"Round {rnd.phases.round} — {rules.phase_text(rnd.index)}: declare"
    return TurnOrder(title, tuple(rows))


def timeline(rules: Rules, state: Encounter) -> Timeline | None:
    """The six phases as columns; each action at its phase with its d20, struck ones marked."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    items = []
    for i, d in enumerate(rnd.done):
        rank = 1 + sum(1 for e in rnd.done[:i] if e.phase == d.phase)
        faces = "/".join(map(str, d.faces))
        label = f"#{rank} · {faces} {short(d.label)}" if d.faces else short(d.label)
        items.append(TimelineItem(d.who, label, d.phase, d.phase, struck=d.struck))
    for d in rnd.last:
        if d.phase > rnd.index:
            items.append(TimelineItem(d.who, f"R{rnd.phases.round - 1} · "
                                      f"{'/'.join(map(str, d.faces))} {short(d.label)}",
                                      d.phase, d.phase, carried=True, struck=d.struck))
    for p in rnd.plans:
        items.append(TimelineItem(p.who, f"declared: {short(p.label)}", rnd.index,
                                  rnd.index))
    for p in rnd.spells:
        items.append(TimelineItem(p.who, f"to {short(p.label)}", SPELLS, SPELLS,
                                  carried=True))
    return Timeline(tuple(rules.data.round.phases), rnd.index, tuple(items))


def dice_pools(rules: Rules, state: Encounter) -> list[PoolView]:
    """Each combatant's d20s this round (the last action's), with its Wounds and Notches."""
    if not isinstance(state.schedule, Round):
        return []
    rnd = state.schedule
    out = []
    for t in state.tokens.values():
        faces: tuple[int, ...] = ()
        used = 0
        # The last action's d20s: this round's, or last round's until this one rolls.
        seen = (*rnd.last, *rnd.done)
        for d in seen:
            if d.who == t.id and d.faces:
                faces, used = tuple(d.faces), d.used
        struck = tuple(True for _ in faces) if any(d.who == t.id and d.struck and
                                                     tuple(d.faces) == faces
                                                     for d in seen) else ()
        if used and not struck:
            # Two d20s: the one not used is drawn struck out.
            keep = len(faces) - 1 if faces[-1] == used else faces.index(used)
            struck = tuple(i != keep for i in range(len(faces)))
        hit = tuple(not d.struck for d in seen if d.who == t.id and tuple(d.faces) == faces)
        out.append(PoolView(t.id, t.name, faces, tuple(hit[-1:] * len(faces)), 1,
                            rules.data.round.die, removed=struck,
                            status=status_lines(rules, state, t)))
    return out


def short(label: str) -> str:
    """A declaration without its variant: ``"attack Orc"`` for ``"attack Orc (swing, head)"``."""
    if label.startswith("move") or not label.endswith(")"):
        return label
    return label.rsplit(" (", 1)[0]


def _choices(rules: Rules, kind: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    types = tuple(getattr(rules.data.attack_types, kind))
    return (("Attack type", types), ("Location", tuple(rules.data.locations.names)))


def _detail(choices: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    return "/".join(values[0] for _, values in choices)


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """The declarations ``actor`` can make in this phase, and passing."""
    token = state.tokens.get(actor)
    if token is None:
        return []
    try:
        rnd = rules.round_of(state)
    except RuleError:
        return []
    why = rules.due_reason(state, rnd, token)
    if why:
        return []
    fleeing = rules.data.morale.condition
    flee = f"{token.name} is {fleeing} and makes no attacks" \
        if fleeing in token.conditions else ""
    out: list[ActionOption] = []
    i = rnd.index
    if i == DECLARE_SPELLS:
        spells = tuple(dict.fromkeys(str(s) for s in rules.stat(token, "spells")))
        choices = (("Spell", spells), *_choices(rules, "spell"))
        out.append(ActionOption("cast", "Cast a spell", "token", not flee, flee,
                                _detail(choices), choices))
    elif i == MOVEMENT:
        stuck = rules.immobile(token)
        out.append(ActionOption("move", "Move", "cell", not stuck, stuck))
    elif i == RANGED:
        w = rules.ranged_weapon(token)
        name = w.name if w else "bow"
        choices = _choices(rules, "ranged")
        out.append(ActionOption("shoot", f"Shoot ({name})", "token", not flee, flee,
                                _detail(choices), choices))
    elif i == MELEE:
        w = rules.melee_weapon(token)
        choices = _choices(rules, "melee")
        out.append(ActionOption("melee", f"Attack ({w.name})", "token", not flee, flee,
                                _detail(choices), choices))
        # What applies only now (standing up, picking up, breaking free) comes after the
        # actions every token has, so those keep their places from token to token.
        situational = ("stand_up", "pick_up", "break_free")
        for key, (label, aim, extra, check, _do) in sorted(
                actions.ACTIONS.items(), key=lambda kv: kv[0] in situational):
            reason = flee if key in actions.AIMED else ""
            if aim == "none" and not reason:
                try:
                    check(rules, state, _probe(token, key))  # type: ignore[arg-type]
                except RuleError as err:
                    reason = str(err)
            if aim == "none" and reason and key in ("stand_up", "pick_up", "break_free"):
                continue  # offered only when it applies
            detail = _detail(extra) if extra else ""
            out.append(ActionOption(key, label, aim, not reason, reason,  # type: ignore[arg-type]
                                    detail, extra))
    out.append(ActionOption("end_turn", "Pass (declare nothing)"))
    return out


def _probe(token: Token, key: str) -> Any:
    from .round import Plan

    return Plan(token.id, key, key)


def declared(rules: Rules, state: Encounter) -> list[Declared]:
    """The declarations standing: this phase's until it resolves, and the spells declared
    in phase 1 until they are cast in phase 5.

    Everyone declares openly at the table ("inside a phase everyone declares"), so
    every declaration is public: the player view draws them too.
    """
    rnd = state.schedule
    if not isinstance(rnd, Round):
        return []
    out: list[Declared] = []
    seen: set[tuple[str, str]] = set()
    for plan in (*rnd.plans, *rnd.spells):
        if (plan.who, plan.label) in seen or plan.who not in state.tokens:
            continue
        seen.add((plan.who, plan.label))
        if plan.key == "move" and plan.path:
            out.append(Declared(plan.who, plan.label, to=plan.path[-1]))
        elif plan.target in state.tokens:
            out.append(Declared(plan.who, plan.label, target=plan.target))
    return out
