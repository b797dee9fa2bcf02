"""The GM's table tools as commands: free rolls, damage and healing, groups of tokens.

Like every override these are applied as asked, checked only for sense, and
logged and undone like any command; where the rules have a say (a token that
drops at 0 HP) the ruleset's ``hp_set`` settles it, as it does for Set HP.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

from tacmap.engine.model.commands import (
    AddTokens,
    AdjustHp,
    Command,
    MoveGroup,
    RemoveTokens,
    RollDice,
)
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import GmRolled, HpChanged, TokenAdded, TokenMoved, TokenRemoved
from tacmap.engine.model.records import LIMIT
from tacmap.engine.model.state import MAX_TOKENS, Cell, Encounter, Token
from tacmap.engine.rules.notation import parse
from tacmap.engine.rules.ruleset import Resolution, Ruleset
from tacmap.engine.space import grid

#: A GM's change of hit points stays within this, either way.
MAX_HP_CHANGE = 100_000


def resolve_gm_tool(ctx: Resolution, cmd: Command, ruleset: Ruleset) -> bool:
    """Resolve ``cmd`` if it is one of the table tools; False for any other command."""
    if isinstance(cmd, RollDice):
        _roll(ctx, cmd)
    elif isinstance(cmd, AdjustHp):
        _adjust_hp(ctx, cmd, ruleset)
    elif isinstance(cmd, MoveGroup):
        _move_group(ctx, cmd, ruleset)
    elif isinstance(cmd, RemoveTokens):
        _remove_tokens(ctx, cmd, ruleset)
    else:
        return False
    return True


def _roll(ctx: Resolution, cmd: RollDice) -> None:
    try:
        notation = parse(cmd.notation)
    except InputError as err:
        raise RuleError(str(err)) from None
    rolled = notation.roll(ctx.dice, f"the GM's roll of {notation}")
    ctx.emit(GmRolled(str(notation), rolled.rolls, rolled.total, str(rolled), cmd.public))


def _adjust_hp(ctx: Resolution, cmd: AdjustHp, ruleset: Ruleset) -> None:
    token = ctx.state.token(cmd.token)
    if cmd.change == 0:
        raise RuleError("a change of 0 hit points changes nothing")
    if abs(cmd.change) > MAX_HP_CHANGE:
        raise RuleError(f"a change of {abs(cmd.change):,} hit points is more than "
                        f"{MAX_HP_CHANGE:,}")
    new = token.hp + cmd.change
    if abs(new) > LIMIT:
        raise RuleError(f"{token.name} would be left at {new:,} HP, past the ±{LIMIT:,} an "
                        "encounter can hold")
    why = "GM damage" if cmd.change < 0 else "GM healing"
    ctx.emit(HpChanged(token.id, token.hp, new, why))
    ruleset.hp_set(ctx, ctx.state.tokens[token.id])


def _move_group(ctx: Resolution, cmd: MoveGroup, ruleset: Ruleset) -> None:
    state = ctx.state
    moving = dict(cmd.moves)
    if not moving:
        raise RuleError("a group move needs at least one token")
    if len(moving) != len(cmd.moves):
        raise RuleError("a token appears twice in the group")
    tokens = [state.token(tid) for tid in moving]
    problem = group_problem(state, {t.id: moving[t.id] for t in tokens},
                            ruleset.space.walls(state).blocked_cells,
                            ruleset.space.walls(state).blocked_steps)
    if problem:
        raise RuleError(problem)
    for token in tokens:
        if moving[token.id] != token.cell:
            ctx.emit(TokenMoved(token.id, (token.cell, moving[token.id]), 0.0))


def taken_cells(state: Encounter, moving: Iterable[str]) -> dict[Cell, str]:
    """Every cell a token outside ``moving`` stands on, with its name.

    Worked out once, it lets ``group_problem`` weigh many places for the same
    group (each step of a drag) without going over every token each time.
    """
    skip = set(moving)
    taken: dict[Cell, str] = {}
    for token in state.tokens.values():
        if token.id not in skip:
            for cell in grid.footprint(token.cell, token.size):
                taken[cell] = token.name
    return taken


def group_problem(state: Encounter, moves: dict[str, Cell], blocked_cells: set[Cell],
                  blocked_steps: set[tuple[Cell, Cell]],
                  taken: Mapping[Cell, str] | None = None) -> str:
    """Why the tokens cannot all stand where ``moves`` puts them; "" when they can.

    Each lands on the map, off every obstacle, across no wall, and on no cell of
    another token (a token of the group counts where it lands, the rest where
    they stand). ``taken`` is ``taken_cells(state, moves)`` when the caller has it.
    """
    if taken is None:
        taken = taken_cells(state, moves)
    landed: dict[Cell, str] = {}
    for tid, to in moves.items():
        token = state.tokens[tid]
        x, y = to
        if not (0 <= x <= state.map.width - token.size and 0 <= y <= state.map.height - token.size):
            return f"{token.name} would land off the map at ({x},{y})"
        cells = grid.footprint(to, token.size)
        for cell in cells:
            if cell in blocked_cells:
                return f"{token.name} would land on an obstacle at {_cell(cell)}"
            other = taken.get(cell)
            if other is None:
                other = landed.get(cell)
            if other is not None:
                return f"{token.name} would land on {other} at {_cell(cell)}"
        inside = set(cells)
        for cell in cells:  # a large token straddling a wall
            for step in ((1, 0), (0, 1)):
                beyond = (cell[0] + step[0], cell[1] + step[1])
                if beyond in inside and (cell, beyond) in blocked_steps:
                    return f"{token.name} would stand across a wall at {_cell(cell)}"
        for cell in cells:
            landed[cell] = token.name
    return ""


def add_tokens(ctx: Resolution, cmd: AddTokens, checked: list[Token]) -> None:
    """Put ``checked`` (the command's tokens, each already checked) on the map."""
    state = ctx.state
    if len(state.tokens) + len(checked) > MAX_TOKENS:
        raise RuleError(f"the map would hold more than {MAX_TOKENS:,} tokens, the most an "
                        "encounter may hold")
    ids = [t.id for t in checked]
    if len(set(ids)) != len(ids):
        raise RuleError("two new tokens share an id")
    for token in checked:
        if token.id in state.tokens:
            raise RuleError(f"there is already a token {token.id!r}")
    problem = group_problem(
        _with(state, checked), {t.id: t.cell for t in checked}, set(), set())
    if problem:
        raise RuleError(problem)
    for token in checked:
        ctx.emit(TokenAdded(token))


def _with(state: Encounter, tokens: list[Token]) -> Encounter:
    """A shallow view of ``state`` with ``tokens`` added, for checking where they land."""
    view = copy.copy(state)
    view.tokens = {**state.tokens, **{t.id: t for t in tokens}}
    return view


def _remove_tokens(ctx: Resolution, cmd: RemoveTokens, ruleset: Ruleset) -> None:
    state = ctx.state
    if not cmd.tokens:
        raise RuleError("nothing to remove")
    if len(set(cmd.tokens)) != len(cmd.tokens):
        raise RuleError("a token appears twice in the list")
    for tid in cmd.tokens:
        token = state.token(tid)
        ctx.emit(TokenRemoved(copy.deepcopy(token), list(state.tokens).index(token.id)))
        ruleset.left(ctx, token)


def next_names(state: Encounter, base: str, count: int) -> list[str]:
    """Names for ``count`` copies of ``base``: "Goblin 2", "Goblin 3" … none in use.

    >>> from tacmap.engine.model.state import Encounter, Token
    >>> s = Encounter(ruleset="x"); s.tokens["g"] = Token("g", "Goblin", "orcs", 0, 0)
    >>> next_names(s, "Goblin", 2)
    ['Goblin 2', 'Goblin 3']
    """
    stem = base.rsplit(" ", 1)[0] if base.rsplit(" ", 1)[-1].isdigit() else base
    used = {t.name for t in state.tokens.values()}
    names: list[str] = []
    n = 2
    while len(names) < count:
        name = f"{stem} {n}"
        if name not in used:
            names.append(name)
            used.add(name)
        n += 1
    return names


def next_ids(state: Encounter, base: str, count: int) -> list[str]:
    """Ids for ``count`` new tokens made from ``base``, none in use (``gob_2``, ``gob_3`` …)."""
    stem = base.rsplit("_", 1)[0] if base.rsplit("_", 1)[-1].isdigit() else base
    stem = stem[:56]
    ids: list[str] = []
    n = 2
    while len(ids) < count:
        tid = f"{stem}_{n}"
        if tid not in state.tokens and tid not in ids:
            ids.append(tid)
        n += 1
    return ids


def _cell(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"
