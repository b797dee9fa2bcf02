"""What the map draws for each token, read from the state and the ruleset.

The map code knows no ruleset: it draws these plain records, built after
every change from the encounter and ``ruleset.turn_order``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tacmap.engine.model.state import Encounter, Token, sides_of
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.rules.ruleset import Ruleset

#: Side colours in order of first appearance: calm blue for the first side
#: (usually the party), then clearly different hues.
PALETTE = ("#2f6fdb", "#c8312f", "#2e9d4f", "#d68a0c", "#8a4fd1", "#168f8f", "#b8457e")


@dataclass(frozen=True)
class TokenLook:
    """One token as the map draws it."""

    id: str
    """Token id."""
    name: str
    """Label."""
    side: str
    """Side name."""
    colour: str
    """Side colour, #rrggbb."""
    x: int
    """Top-left cell column."""
    y: int
    """Top-left cell row."""
    size: int
    """Footprint edge in cells."""
    hp: int
    """Hit points now."""
    max_hp: int
    """Hit points unhurt."""
    conditions: tuple[str, ...]
    """Conditions, in the order gained."""
    active: bool
    """Whether it is this token's turn."""
    down: bool
    """Out of the fight, as the ruleset's ``out_of_fight`` says: drawn greyed out."""
    tooltip: str
    """The stat line shown on hover."""
    image: str | None = None
    """Portrait path, relative to the encounter's image folder."""
    hidden: bool = False
    """GM-only token: left out of the player view."""


#: A side named for a colour ("Red Company") is drawn in it.
NAMED = {"blue": PALETTE[0], "red": PALETTE[1], "green": PALETTE[2], "orange": PALETTE[3],
         "gold": PALETTE[3], "yellow": PALETTE[3], "purple": PALETTE[4], "violet": PALETTE[4],
         "teal": PALETTE[5], "pink": PALETTE[6]}


def side_colours(state: Encounter) -> dict[str, str]:
    """A colour for each side: its own if its name says one, else the next unused one."""
    sides = sides_of(state)
    colours: dict[str, str] = {}
    for side in sides:
        words = side.lower().replace("-", " ").replace("_", " ").split()
        named = next((NAMED[w] for w in words if w in NAMED), None)
        if named is not None and named not in colours.values():
            colours[side] = named
    spare = [c for c in PALETTE if c not in colours.values()] or list(PALETTE)
    for side in sides:
        if side not in colours:
            colours[side] = spare[len(colours) % len(spare)]
    return colours


def acting(state: Encounter, ruleset: Ruleset) -> set[str]:
    """Ids of the tokens whose turn it is, from the ruleset's turn order."""
    order = ruleset.turn_order(state)
    if order is None:
        return set()
    return {row.id for row in order.rows if row.state == "acting"}


def stat_line(t: Token, status: tuple[str, ...] = ()) -> str:
    """``Brak (orcs) — HP 7/12 — ac 13, str 3 — prone``, then the ruleset's ``status`` lines."""
    stats = ", ".join(f"{k} {v}" for k, v in t.stats.items() if isinstance(v, int | str))
    parts = [f"{t.name} ({t.side})", f"HP {t.hp}/{t.max_hp}"]
    if stats:
        parts.append(stats)
    if t.conditions:
        parts.append(", ".join(t.conditions))
    return "\n".join([" — ".join(parts), *status])


def looks(state: Encounter, ruleset: Ruleset, player: bool = False) -> list[TokenLook]:
    """A look for every token, in token order.

    The player view hides what only the GM should see: other sides' hit
    points, their secret conditions (a prepared action's badge) and
    everyone's stat block.
    """
    colours = side_colours(state)
    now = acting(state, ruleset)
    players = PlayerFilter(state, ruleset.secret_conditions()) if player else None
    out = []
    for t in state.tokens.values():
        secret = players is not None and not players.ours(t)
        conditions = players.conditions(t) if players is not None else t.conditions
        out.append(TokenLook(
            t.id, t.name, t.side, colours[t.side], t.x, t.y, t.size,
            0 if secret else t.hp, 0 if secret else t.max_hp, conditions, t.id in now,
            ruleset.out_of_fight(t),
            t.name if player else stat_line(t, ruleset.status_lines(state, t)), t.image,
            t.hidden))
    return out
