"""Speed Rank's Combat Events: the d20 table rolled on tied initiative, one rule per entry.

``roll_event`` throws the die, finds the row in [[combat_events.table]] and
runs the rule named by its key; a rule that "cannot occur" says why, and the
die is thrown again. The rules' numbers are in [events.*]. An event asks the
ruleset (``Rules``: rules.py's ``SpeedRank``) for stats, saves, checks and
conditions, so this module never imports rules.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Protocol

from tacmap.api import (
    Cell,
    Encounter,
    Resolution,
    RuleError,
    Said,
    Space,
    Token,
    TokenMoved,
    ValueChanged,
    grid,
    plural,
)

from . import choices
from .data import SAVE_NAMES, CheckLevel, Data, EventKey, SaveKind, TableRow, Weapon
from .round import Round

#: Compass points of the direction die, 1 = north (up the map), clockwise.
DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("north", 0, -1),
    ("north-east", 1, -1),
    ("east", 1, 0),
    ("south-east", 1, 1),
    ("south", 0, 1),
    ("south-west", -1, 1),
    ("west", -1, 0),
    ("north-west", -1, -1),
)


class Rules(Protocol):
    """What the Combat Events ask of the ruleset."""

    data: Data
    space: Space
    piece_ac: dict[str, int]

    def stat(self, token: Token, key: str) -> Any: ...
    def held_weapon(self, token: Token) -> Weapon: ...
    def item_name(self, key: str) -> str: ...
    def dropped(self, token: Token) -> tuple[str, ...]: ...
    def damaged(self, token: Token) -> tuple[str, ...]: ...
    def active(self, state: Encounter, token: Token, key: str) -> bool: ...
    def alive(self, state: Encounter) -> list[Token]: ...
    def members(self, state: Encounter, side: str) -> list[Token]: ...
    def round_of(self, state: Encounter) -> Round: ...
    def gap(self, state: Encounter, a: Token, b: Token) -> float: ...
    def reach(self, state: Encounter, token: Token) -> float: ...
    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool = True) -> None: ...
    def save(self, ctx: Resolution, token: Token, kind: SaveKind,
             against: Token | None = None) -> str: ...
    def check(self, ctx: Resolution, token: Token, level: CheckLevel, stat: str,
              what: str) -> bool: ...


Handler = Callable[[Rules, Resolution, TableRow], str | None]
"""A Combat Event's rule: None when it happened, else why it cannot occur."""


def roll_event(rules: Rules, ctx: Resolution, n: int, of: int) -> None:
    """One d20 on the table; re-roll while the result cannot occur."""
    table = rules.data.combat_events
    for attempt in range(table.max_rerolls + 1):
        again = " (re-roll)" if attempt else ""
        roll = ctx.roll("", 1, table.die, f"Combat Event {n} of {of}{again}")
        row = next(r for r in table.table if r.low <= roll.total <= r.high)
        ctx.emit(Said(f"Combat Event: {row.name}"))
        why_not = HANDLERS[row.key](rules, ctx, row)
        if why_not is None:
            return
        ctx.emit(Said(f"{row.name} cannot occur ({why_not}): re-roll"))
    ctx.emit(Said(f"no Combat Event could occur in {table.max_rerolls} re-rolls"))


def ongoing(rules: Rules, ctx: Resolution) -> None:
    """A bolting mount keeps going until the rider masters it or its rounds run out."""
    state = ctx.state
    p = rules.data.events.mount_trouble
    for t in list(state.tokens.values()):
        off = t.values.get("off_course")
        if not isinstance(off, tuple):
            continue
        until, direction = int(off[0]), int(off[1])
        if state.round > until or not t.alive or "dismounted" in t.conditions:
            ctx.emit(ValueChanged(t.id, "off_course", off, None,
                                  f"{rules.stat(t, 'mount')} is back under control"))
            continue
        if rules.check(ctx, t, p.off_course_check, "riding",
                       f"Advanced Riding check to rein in the {rules.stat(t, 'mount')}"):
            ctx.emit(ValueChanged(t.id, "off_course", off, None, "the rider regains control"))
            continue
        name, dx, dy = DIRECTIONS[direction - 1]
        path = slide(rules, state, t, dx, dy, int(rules.stat(t, "mount_speed")))
        ctx.emit(Said(f"{t.name}'s {rules.stat(t, 'mount')} is still off course, "
                      f"bolting {name}", t.id))
        if len(path) > 1:
            ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))


def armour_trouble(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    p = rules.data.events.armour_trouble
    people = rules.alive(state)
    wearing = [t for t in people
               if any(rules.stat(t, k) and k not in rules.damaged(t) for k in rules.piece_ac)]
    if not wearing:
        return "nobody wears an undamaged helmet, shield or armour"
    who = people[pick(ctx, [t.name for t in people], f"{row.name}: random combatant")]
    face = ctx.roll("", 1, p.die, f"{row.name}: which piece").total
    piece = next(r[2] for r in p.results if r[0] <= face <= r[1])
    if not rules.stat(who, piece):
        return f"{who.name} has no {piece}"
    if piece in rules.damaged(who):
        return f"{who.name}'s {piece} is already damaged"
    if item_save(rules, ctx, who.id, p.item_save, f"{who.name}'s {piece}"):
        ctx.emit(Said(f"{who.name}'s {piece} takes the blow and holds", who.id))
        return None
    add_value(ctx, who, "damaged", piece,
              f"{row.name}: {piece} damaged, AC −{rules.piece_ac[piece]}")
    return None


def battlefield_damaged(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    walls = ctx.state.map.walls
    if not walls:
        return "the map has no wall, obstacle or terrain feature"

    options = [(str(i + 1), feature(ctx.state, i)) for i in range(len(walls))]
    answer = choices.ask(ctx, "battlefield_damaged", row.name, "", options, "1",
                         "Select Battlefield Feature or Terrain Feature")
    if answer is not None:
        damage_feature(rules, ctx, {"name": row.name, "who": ""}, answer)
    return None


def feature(state: Encounter, i: int) -> str:
    """The map's wall or obstacle ``i``, as the log names it."""
    w = state.map.walls[i]
    pts = " – ".join(f"({x:g},{y:g})" for x, y in w.points[:2])
    return f"obstacle at {pts} …" if w.closed else f"wall {pts}"


def damage_feature(rules: Rules, ctx: Resolution, choice: dict[str, Any], answer: str) -> None:
    """The chosen feature saves vs. Crushing Blow or breaks."""
    name = feature(ctx.state, int(answer) - 1)
    if item_save(rules, ctx, "", rules.data.events.battlefield_damaged.item_save, name):
        ctx.emit(Said(f"the {name} is damaged but holds"))
    else:
        ctx.emit(Said(f"the {name} breaks (scaffolding breaks, tree uprooted, rope bridge "
                      "cut): the GM changes the map"))


def battlefield_shifts(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    p = rules.data.events.battlefield_shifts
    people = rules.alive(state)
    if not people:
        return "nobody is on the map"
    moves: list[tuple[Token, list[Cell], str, int]] = []
    shared = p.same_for_all
    if shared:
        n = ctx.roll("", 1, p.distance_die, f"{row.name}: distance in cells").total
        name, dx, dy = random_direction(rules, ctx, row.name)
        # The front of the shift moves first, so nobody is blocked by a friend behind.
        people.sort(key=lambda t: -(t.x * dx + t.y * dy))
        taken = {c for t in people for c in grid.footprint(t.cell, t.size)}
        for t in people:
            mine = set(grid.footprint(t.cell, t.size))
            path = slide(rules, state, t, dx, dy, n, taken - mine)
            taken -= mine
            taken |= set(grid.footprint(path[-1], t.size))
            moves.append((t, path, name, n))
    else:
        taken = occupied_cells(state, "")
        for t in people:
            n = ctx.roll(t.id, 1, p.distance_die, f"{row.name}: distance").total
            name, dx, dy = random_direction(rules, ctx, f"{row.name} ({t.name})")
            mine = set(grid.footprint(t.cell, t.size))
            path = slide(rules, state, t, dx, dy, n, taken - mine)
            taken -= mine
            taken |= set(grid.footprint(path[-1], t.size))
            moves.append((t, path, name, n))
    if not any(len(path) > 1 for _, path, _, _ in moves):
        return "nobody has room to move that way"
    if shared:
        _, _, name, n = moves[0]
        ctx.emit(Said(f"everyone is swept {n} cells ({n * feet(rules):g} ft) {name}; "
                      "this provokes no Attacks of Opportunity"))
    for t, path, _, _ in sorted(moves, key=lambda m: list(state.tokens).index(m[0].id)):
        if len(path) > 1:
            ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))
    return None


def close_quarters(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    free = [t for t in rules.alive(state) if "grappled" not in t.conditions]
    pairs = [(a, b) for i, a in enumerate(free) for b in free[i + 1:]
             if a.side != b.side and (threatens(rules, state, a, b)
                                      or threatens(rules, state, b, a))]
    if not pairs:
        return "no two foes stand within each other's threat range"
    options = [(f"{a.id}+{b.id}", f"{a.name} & {b.name}") for a, b in pairs]
    answer = choices.ask(ctx, "close_quarters", row.name, "", options, options[0][0],
                         "Select Two Combatants in Threat Range")
    if answer is not None:
        lock(rules, ctx, {"name": row.name, "who": ""}, answer)
    return None


def lock(rules: Rules, ctx: Resolution, choice: dict[str, Any], answer: str) -> None:
    """The chosen two are grappled by each other, with no checks."""
    ids = answer.split("+")
    gone = [i for i in ids if i not in ctx.state.tokens]
    if gone:  # the GM removed one of the pair while the choice was open
        ctx.emit(Said(f"{choice['name']}: {choice_label(choice, gone[0])} has left the map, "
                      "so nobody is locked together"))
        return
    a, b = (ctx.state.tokens[i] for i in ids)
    ctx.emit(Said(f"{a.name} and {b.name} are locked together, no checks involved"))
    for x, y in ((a, b), (b, a)):
        ctx.emit(ValueChanged(x.id, "grappled_with", x.values.get("grappled_with"), y.id,
                              str(choice["name"])))
        rules.condition(ctx, x, "grappled")


def choice_label(choice: dict[str, Any], token_id: str) -> str:
    """The name a Close Quarters option gave ``token_id`` (its id if none did)."""
    for code, label in choices.options_of(choice) if "options" in choice else ():
        for part, name in zip(code.split("+"), label.split(" & "), strict=False):
            if part == token_id:
                return name
    return token_id


def item_damaged(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    who_can = [t for t in rules.alive(ctx.state) if damageable(rules, t)]
    if not who_can:
        return "nobody carries an undamaged item"
    who = who_can[pick(ctx, [t.name for t in who_can], f"{row.name}: random combatant")]
    items = damageable(rules, who)
    item = items[pick(ctx, [rules.item_name(i) for i in items],
                      f"{row.name}: which item")]
    name = rules.item_name(item)
    if item_save(rules, ctx, who.id, rules.data.events.item_damaged.item_save,
                 f"{who.name}'s {name}"):
        ctx.emit(Said(f"{who.name}'s {name} is struck but holds", who.id))
        return None
    add_value(ctx, who, "damaged", item,
              f"{row.name}: {name} damaged{damage_note(rules, item)}")
    return None


def item_dropped(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    who_can = [t for t in rules.alive(ctx.state) if held_items(rules, t)]
    if not who_can:
        return "nobody holds anything"
    who = who_can[pick(ctx, [t.name for t in who_can], f"{row.name}: random combatant")]
    held = held_items(rules, who)
    item = held[pick(ctx, [rules.item_name(i) for i in held], f"{row.name}: which item")]
    drop(rules, ctx, who, item, f"{row.name} (dropped, cut free or spilled)")
    return None


def knock_down(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    fighting = [t for t in rules.alive(state)
                if engaged(rules, state, t) and "prone" not in t.conditions]
    if not fighting:
        return "nobody standing is engaged in melee"
    who = fighting[pick(ctx, [t.name for t in fighting],
                        f"{row.name}: random combatant in melee")]
    ctx.emit(Said(f"{who.name} is knocked down, no save", who.id))
    rules.condition(ctx, who, "prone")
    others = [t for t in rules.alive(state) if t.id != who.id]
    if not others:
        return None
    near = min(rules.gap(state, who, t) for t in others)
    if near > rules.data.combat_events.touch_range:
        ctx.emit(Said(f"nobody else is within touch range of {who.name}"))
        return None
    nearest = [t for t in others if rules.gap(state, who, t) == near]
    fig = nearest[pick(ctx, [t.name for t in nearest], f"{row.name}: nearest figure")]
    if "prone" in fig.conditions:
        return None
    if rules.save(ctx, fig, rules.data.events.knock_down.save) == "failed":
        spot = beside(rules, state, fig, who)
        ctx.emit(Said(f"{fig.name} falls down next to {who.name} at ({spot[0]},{spot[1]})",
                      fig.id))
        if spot != fig.cell:
            ctx.emit(TokenMoved(fig.id, (fig.cell, spot), 0.0))
        rules.condition(ctx, fig, "prone")
    return None


def beside(rules: Rules, state: Encounter, fig: Token, who: Token) -> Cell:
    """The free cell next to ``who`` nearest ``fig`` (where it stands, if it is next to them).

    "Next to" is touching, even at a corner; of cells as far under the encounter's rule the
    straighter one wins, then the first in reading order.
    """
    if max(grid.gap(fig.cell, fig.size, who.cell, who.size)) <= 1:
        return fig.cell
    taken = occupied_cells(state, fig.id)
    free = [(x, y) for y in range(who.y - fig.size, who.y + who.size + 1)
            for x in range(who.x - fig.size, who.x + who.size + 1)
            if 0 <= x <= state.map.width - fig.size and 0 <= y <= state.map.height - fig.size
            and max(grid.gap((x, y), fig.size, who.cell, who.size)) == 1
            and not any(c in taken for c in grid.footprint((x, y), fig.size))]
    if not free:
        return fig.cell
    return min(free, key=lambda c: (grid.edge_distance(state.diagonal, c, fig.size, fig.cell,
                                                       fig.size),
                                    grid.segment_cost("euclidean", c, fig.cell), c[1], c[0]))


def lucky_break(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    p = rules.data.events.lucky_break
    return lucky(rules, ctx, row, "lucky_break", f"{p.ac:+d} AC and "
                 f"{p.saves:+d} to saves")


def lucky_opening(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    p = rules.data.events.lucky_opening
    return lucky(rules, ctx, row, "lucky_opening", f"{p.to_hit:+d} To-Hit, and saves "
                 f"against them at {p.saves_against:+d}")


def mount_trouble(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    p = rules.data.events.mount_trouble
    riders = [t for t in rules.alive(state)
              if rules.stat(t, "mount") and "dismounted" not in t.conditions]
    if not riders:
        return "nobody rides a mount or drives a vehicle"
    who = riders[pick(ctx, [t.name for t in riders],
                      f"{row.name}: random combatant with a mount or vehicle")]
    mount = str(rules.stat(who, "mount"))
    face = ctx.roll("", 1, p.die, f"{row.name}: what happens").total
    what = next(r[2] for r in p.results if r[0] <= face <= r[1])
    if what == "off_course":
        name, dx, dy = random_direction(rules, ctx, f"{who.name}'s {mount}")
        rounds = ctx.roll("", 1, p.rounds_die, f"{row.name}: rounds off course").total
        until = state.round + rounds - 1
        direction = next(i for i, d in enumerate(DIRECTIONS, start=1) if d[0] == name)
        ctx.emit(ValueChanged(who.id, "off_course", who.values.get("off_course"),
                              (until, direction),
                              f"Off Course: the {mount} bolts {name} at full speed through "
                              f"round {until}, unless the rider makes an Advanced Riding "
                              "check"))
        path = slide(rules, state, who, dx, dy, int(rules.stat(who, "mount_speed")))
        if len(path) > 1:
            ctx.emit(TokenMoved(who.id, tuple(path), grid.cells_cost(state.diagonal, path)))
        return None
    if what == "bucks_wildly":
        ctx.emit(Said(f"Bucks Wildly: {who.name}'s {mount} bucks", who.id))
        if rules.check(ctx, who, p.bucks_check, "riding", "Advanced Riding check"):
            return None
        if rules.save(ctx, who, p.save) == "failed":
            rules.condition(ctx, who, "prone")
            if rules.stat(who, "mount_type") != "closed_vehicle":
                ctx.emit(Said(f"{who.name} falls off the {mount}", who.id))
                rules.condition(ctx, who, "dismounted")
        return None
    ctx.emit(Said(f"Stumbles and Falls: {who.name}'s {mount} stumbles", who.id))
    if rules.check(ctx, who, p.stumbles_check, "riding", "Riding check"):
        return None
    ctx.emit(Said(f"the {mount} goes down (knocked prone or turned over)", who.id))
    rules.condition(ctx, who, "prone")
    if rules.save(ctx, who, p.save) == "failed":
        rounds = ctx.roll("", 1, p.stun_die, "rounds stunned").total
        until = state.round + rounds - 1
        ctx.emit(ValueChanged(who.id, "stunned_until", who.values.get("stunned_until"), until,
                              f"stunned for {plural(rounds, 'round')}"))
        rules.condition(ctx, who, "stunned")
    return None


def reinforcements(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    sides = list(rules.round_of(ctx.state).initiative.order)
    side = sides[pick(ctx, sides, f"{row.name}: random side")]
    ctx.emit(Said(f"Reinforcements for {side}: allies show up if any are available (the GM "
                  "places them); characters whose Reaction was modified may switch sides"))
    return None


def retreat_paths(rules: Rules, state: Encounter, side: str) -> list[tuple[Token, list[Cell]]]:
    """Where each threatened member of ``side`` falls back to, straight away from its foe."""
    cells = rules.data.events.retreat.cells
    taken = occupied_cells(state, "")
    out = []
    for t in rules.members(state, side):
        foes = [e for e in rules.alive(state)
                if e.side != side and t.alive and threatens(rules, state, e, t)]
        if not foes:
            continue
        foe = min(foes, key=lambda e: rules.gap(state, e, t))
        # Compare footprint centres (doubled, to stay in whole numbers).
        cx, cy, fx, fy = 2 * t.x + t.size, 2 * t.y + t.size, 2 * foe.x + foe.size, \
            2 * foe.y + foe.size
        dx, dy = (cx > fx) - (cx < fx), (cy > fy) - (cy < fy)
        mine = set(grid.footprint(t.cell, t.size))
        path = slide(rules, state, t, dx, dy, cells, taken - mine)
        if len(path) > 1:
            out.append((t, path))
            taken = (taken - mine) | set(grid.footprint(path[-1], t.size))
    return out


def retreat(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    moves = {side: retreat_paths(rules, state, side)
             for side in rules.round_of(state).initiative.order}
    sides = [side for side, paths in moves.items() if paths]
    if not sides:
        return "no threatened combatant has room to fall back"
    side = sides[pick(ctx, sides, f"{row.name}: random side")]
    cells = rules.data.events.retreat.cells
    ctx.emit(Said(f"{side} gives ground: every threatened combatant falls back "
                  f"{cells * feet(rules):g} ft, as if its foe had Pressed The Advantage"))
    for t, path in moves[side]:
        ctx.emit(TokenMoved(t.id, tuple(path), grid.cells_cost(state.diagonal, path)))
    return None


SLIP_EFFECTS = {"move": "moved {feet:g} ft", "drop": "drops a held item",
                "prone": "knocked prone"}
"""The three things a Slip does, as the log says them."""


def slip(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    p = rules.data.events.slip
    people = rules.alive(state)
    if not people:
        return "nobody is on the map"
    who = people[pick(ctx, [t.name for t in people], f"{row.name}: random combatant")]
    result = rules.save(ctx, who, p.save)
    count = {"made": 1, "glancing": 2, "failed": 3}[result]
    possible = slip_possible(rules, who)
    order = [str(e) for e in p.choice_order]
    # The default: what cannot happen costs the character nothing, so it comes first.
    first = sorted(order, key=lambda e: possible[e])[:count]
    default = "+".join(e for e in order if e in first)
    options = []
    for combo in combinations(order, count):
        words = [slip_words(rules, e) + ("" if possible[e] else " (nothing happens)")
                 for e in combo]
        options.append(("+".join(combo), ", ".join(words)))
    how = {1: "made the save and may choose one of these",
           2: "made the save as a Glancing Hit and must choose two"}.get(count, "")
    answer = choices.ask(ctx, "slip", row.name, who.id, options, default,
                         f"{who.name} {how}")
    if answer is not None:
        slip_effects(rules, ctx, {"name": row.name, "who": who.id}, answer)
    return None


def slip_possible(rules: Rules, who: Token) -> dict[str, bool]:
    """Which of the three can happen to ``who`` now."""
    return {"move": True, "drop": bool(held_items(rules, who)),
            "prone": "prone" not in who.conditions}


def slip_words(rules: Rules, effect: str) -> str:
    return SLIP_EFFECTS[effect].format(feet=rules.data.events.slip.feet)


def slip_effects(rules: Rules, ctx: Resolution, choice: dict[str, Any], answer: str) -> None:
    """The chosen effects of a Slip, in the table's order."""
    state = ctx.state
    p = rules.data.events.slip
    who = state.tokens[str(choice["who"])]
    chosen = answer.split("+")
    possible = slip_possible(rules, who)
    happen = [str(e) for e in p.choice_order if e in chosen and possible[str(e)]]
    ctx.emit(Said(f"{who.name} slips: " + (", ".join(slip_words(rules, e) for e in happen)
                                           or "nothing happens"), who.id))
    for effect in happen:
        if effect == "move":
            name, dx, dy = random_direction(rules, ctx, f"{who.name}'s slip")
            cells = max(1, round(p.feet / feet(rules)))
            path = slide(rules, state, who, dx, dy, cells)
            if len(path) > 1:
                ctx.emit(TokenMoved(who.id, tuple(path),
                                    grid.cells_cost(state.diagonal, path)))
            else:
                ctx.emit(Said(f"{who.name} has no room to slide {name}", who.id))
        elif effect == "drop":
            held = held_items(rules, who)
            item = held[pick(ctx, [rules.item_name(i) for i in held],
                             f"{choice['name']}: which item")]
            drop(rules, ctx, who, item, str(choice["name"]))
        else:
            rules.condition(ctx, who, "prone")


Resolver = Callable[[Rules, Resolution, dict[str, Any], str], None]

#: What each kind of open choice does once it is answered.
RESOLVERS: dict[str, Resolver] = {
    "battlefield_damaged": damage_feature,
    "close_quarters": lock,
    "slip": slip_effects,
}


def answer(rules: Rules, ctx: Resolution, code: str | None) -> bool:
    """Answer the oldest open choice (None: by its default). False when none is open."""
    try:
        taken = choices.take(ctx, code)
    except ValueError as err:
        raise RuleError(str(err)) from None
    if taken is None:
        return False
    choice, code = taken
    RESOLVERS[str(choice["event"])](rules, ctx, choice, code)
    return True


def settle(rules: Rules, ctx: Resolution) -> None:
    """Every open choice takes its default (before any other command)."""
    while answer(rules, ctx, None):
        pass


def weapon_trouble(rules: Rules, ctx: Resolution, row: TableRow) -> str | None:
    state = ctx.state
    p = rules.data.events.weapon_trouble
    rnd = rules.round_of(state)
    ids = list(dict.fromkeys(a[0] for a in rnd.last_attacks))
    attackers = [state.tokens[i] for i in ids if i in state.tokens and state.tokens[i].alive]
    if not attackers:
        return "nobody attacked last round"
    who = attackers[pick(ctx, [t.name for t in attackers],
                         f"{row.name}: random combatant who attacked last round")]
    face = ctx.roll("", 1, p.die, f"{row.name}: what happens").total
    what = next(r[2] for r in p.results if r[0] <= face <= r[1])
    w = rules.held_weapon(who)
    if w.key == "unarmed":
        return f"{who.name} fights with bare hands"
    if w.key in rules.dropped(who) or "weapon stuck" in who.conditions:
        return f"{who.name}'s {w.name} is not in hand"
    if what == "disarmed":
        ctx.emit(Said(f"{who.name}'s {w.name} is wrenched away unless they save", who.id))
        if rules.save(ctx, who, p.save) == "failed":
            drop(rules, ctx, who, w.key, f"{row.name}: disarmed")
        return None
    if what == "hard_parry":
        if w.key in rules.damaged(who):
            return f"{who.name}'s {w.name} is already damaged"
        ctx.emit(Said(f"a hard parry jars {who.name}'s {w.name}", who.id))
        if item_save(rules, ctx, who.id, p.item_save, f"{who.name}'s {w.name}"):
            ctx.emit(Said(f"the {w.name} holds", who.id))
        else:
            add_value(ctx, who, "damaged", w.key,
                      f"{row.name}: {w.name} damaged{damage_note(rules, w.key)}")
        return None
    hits = [a for a in rnd.last_attacks if a[0] == who.id and a[3] and a[1] == w.key
            and w.kind in p.stuck_kinds]
    if not hits:
        return (f"{who.name} did not attack in melee last round with a slashing or piercing "
                "weapon")
    victim = state.tokens.get(hits[-1][2])
    where = victim.name if victim else hits[-1][2]
    # "If character attacked opponent in melee": an attack counts, hit or miss, so the
    # log names the foe, not a wound there may not be.
    ctx.emit(ValueChanged(who.id, "stuck_in", who.values.get("stuck_in"), where,
                          f"{row.name}: {who.name}'s {w.name} is stuck fast in {where}, whom "
                          f"{who.name} attacked in melee last round; freeing it takes a move "
                          "action and an Advanced Strength Feat"))
    rules.condition(ctx, who, "weapon stuck")
    return None


def damageable(rules: Rules, token: Token) -> list[str]:
    """Everything the token carries that can be damaged and is not yet."""
    have = []
    w = rules.held_weapon(token)
    if w.key != "unarmed":
        have.append(w.key)
    have += [k for k in rules.piece_ac if rules.stat(token, k)]
    have += [str(i) for i in rules.stat(token, "items")]
    return [i for i in have if i not in rules.damaged(token)]


def held_items(rules: Rules, token: Token) -> list[str]:
    """What the token holds in hand and could drop."""
    held = []
    w = rules.held_weapon(token)
    if w.key != "unarmed" and "weapon stuck" not in token.conditions:
        held.append(w.key)
    if rules.stat(token, "shield"):
        held.append("shield")
    return [h for h in held if h not in rules.dropped(token)]


def damage_note(rules: Rules, key: str) -> str:
    if key in rules.piece_ac:
        return f", AC −{rules.piece_ac[key]}"
    if key in rules.data.weapons:
        return f", damage −{rules.data.armour.damaged_weapon}"
    return ""


def drop(rules: Rules, ctx: Resolution, token: Token, item: str, why: str) -> None:
    add_value(ctx, token, "dropped", item, f"{why}: {rules.item_name(item)} dropped")
    if item == rules.held_weapon(token).key:
        rules.condition(ctx, token, "disarmed")


def add_value(ctx: Resolution, token: Token, key: str, item: str, note: str) -> None:
    old = token.values.get(key)
    have = tuple(old or ())
    ctx.emit(ValueChanged(token.id, key, old, (*have, item), note))


def lucky(rules: Rules, ctx: Resolution, row: TableRow, key: str, what: str) -> str | None:
    state = ctx.state
    free = [t for t in rules.alive(state) if not rules.active(state, t, key)]
    if not free:
        return f"everyone already has a {row.name}"
    who = free[pick(ctx, [t.name for t in free], f"{row.name}: random combatant")]
    ctx.emit(ValueChanged(who.id, key, who.values.get(key), state.round,
                          f"{row.name}: {what} until the end of round {state.round}"))
    return None


def item_save(rules: Rules, ctx: Resolution, owner: str, kind: str, what: str) -> bool:
    """An item's or object's saving throw: True when it holds."""
    target = rules.data.item_saves[kind]
    name = SAVE_NAMES.get(kind, f"Saving Throw vs. {kind}")
    roll = ctx.roll(owner, 1, rules.data.saves.die, f"{name} for {what} (needs {target})")
    return roll.total >= target


def pick(ctx: Resolution, names: Sequence[str], why: str) -> int:
    """A random one of ``names`` (index); one candidate needs no die."""
    if len(names) == 1:
        return 0
    shown = ", ".join(f"{i} {n}" for i, n in enumerate(names, start=1))
    if len(shown) > 120:
        shown = f"1 to {len(names)}"
    roll = ctx.roll("", 1, len(names), f"{why} ({shown})")
    return roll.total - 1


def random_direction(rules: Rules, ctx: Resolution, why: str) -> tuple[str, int, int]:
    """A compass point from the direction die."""
    roll = ctx.roll("", 1, rules.data.combat_events.direction_die,
                    f"random direction for {why} (1 north, 2 north-east … 8 north-west)")
    return DIRECTIONS[roll.total - 1]


def feet(rules: Rules) -> float:
    """Feet in one cell: [grid] cell_size, the 5-foot square."""
    return rules.data.grid.cell_size


def occupied_cells(state: Encounter, but: str) -> set[Cell]:
    return {c for t in state.tokens.values() if t.alive and t.id != but
            for c in grid.footprint(t.cell, t.size)}


def slide(rules: Rules, state: Encounter, token: Token, dx: int, dy: int, cells: int,
          occupied: set[Cell] | None = None) -> list[Cell]:
    """Cells a forced move goes through, stopping short of walls, edges and other tokens."""
    walls = rules.space.walls(state)
    blocked = walls.step_test(token.size)
    taken = occupied_cells(state, token.id) if occupied is None else occupied
    path = [token.cell]
    for _ in range(max(0, cells)):
        here = path[-1]
        nxt = (here[0] + dx, here[1] + dy)
        if not (0 <= nxt[0] <= state.map.width - token.size
                and 0 <= nxt[1] <= state.map.height - token.size):
            break
        if blocked(here, nxt) or any(c in taken for c in grid.footprint(nxt, token.size)):
            break
        path.append(nxt)
    return path


def threatens(rules: Rules, state: Encounter, a: Token, b: Token) -> bool:
    return a.alive and rules.gap(state, a, b) <= rules.reach(state, a)


def engaged(rules: Rules, state: Encounter, token: Token) -> bool:
    return any(e.alive and e.side != token.side
               and (threatens(rules, state, e, token) or threatens(rules, state, token, e))
               for e in state.tokens.values())


#: The rule behind each key of [[combat_events.table]].
HANDLERS: dict[EventKey, Handler] = {
    "armour_trouble": armour_trouble,
    "battlefield_damaged": battlefield_damaged,
    "battlefield_shifts": battlefield_shifts,
    "close_quarters": close_quarters,
    "item_damaged": item_damaged,
    "item_dropped": item_dropped,
    "knock_down": knock_down,
    "lucky_break": lucky_break,
    "lucky_opening": lucky_opening,
    "mount_trouble": mount_trouble,
    "reinforcements": reinforcements,
    "retreat": retreat,
    "slip": slip,
    "weapon_trouble": weapon_trouble,
}
