"""What the panels show: the turn order and the acting token's actions."""

from __future__ import annotations

from typing import Protocol

from tacmap.api import ActionOption, Encounter, OrderedTurns, OrderRow, RowState, TurnOrder


class Rules(Protocol):
    """What the views read of the rules (rules.py hands itself over)."""

    def attack_range(self, state: Encounter, actor: str) -> list[str]:
        """Enemies the actor can reach now."""
        ...


def turn_order(state: Encounter) -> TurnOrder | None:
    """The order of play, or None before combat."""
    turns = state.schedule
    if not isinstance(turns, OrderedTurns):
        return None
    rows = []
    for i, tid in enumerate(turns.order):
        t = state.tokens.get(tid)
        if t is None:
            continue
        status: RowState = ("out" if not t.alive else "acting" if i == turns.index
                            else "done" if i < turns.index else "waiting")
        detail = f"{turns.actions_left} actions left" if status == "acting" else ""
        rows.append(OrderRow(tid, t.name, t.side, f"#{i + 1}", status, detail))
    return TurnOrder(f"Round {turns.round}", tuple(rows))


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """Attack, Move and End turn for the token whose turn it is; nothing for the others."""
    turns = state.schedule
    token = state.tokens.get(actor)
    if not isinstance(turns, OrderedTurns) or token is None or turns.current != actor \
            or not token.alive:
        return []
    spent = "no actions left this turn" if turns.actions_left == 0 else ""
    near = "" if spent or rules.attack_range(state, actor) else "no enemy within reach"
    return [
        ActionOption("attack", "Attack", "token", enabled=not (spent or near),
                     reason=spent or near),
        ActionOption("move", "Move", "cell", enabled=not spent, reason=spent),
        ActionOption("end_turn", "End turn"),
    ]
