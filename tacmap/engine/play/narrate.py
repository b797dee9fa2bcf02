"""Commands as sentences the GM reads: log headings and status messages.

``describe`` (commands.py) writes a command as script syntax, for ``tacmap
play`` and error lines; this module writes it as a sentence with the tokens'
names, the way the table would say it::

    >>> sentence(state, Move("aldric", ((10, 9),)))          # doctest: +SKIP
    'Ser Aldric moves to (10, 9)'
    >>> sentence(state, SetHp("barry", 4))                   # doctest: +SKIP
    "GM sets Barry the Guard's hit points to 4"

Names come from the state (and from the command's own events, for a token that
was just removed); an id no token has any more stands for itself. A command
this module does not know (a ruleset's own) is written from its type name in
words, with the token it is about.

``reactions`` picks out of a command's events the ones where another token
reacted (an opportunity attack, a riposte, a prepared action firing), so the
map can show them where they happen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import msgspec

from tacmap.engine.model.commands import (
    Act,
    AddToken,
    AddTokens,
    AdjustHp,
    Attack,
    Command,
    EditFog,
    EditToken,
    EndTurn,
    FreeMove,
    Move,
    MoveGroup,
    PlaceTemplate,
    Rebalance,
    RemoveTemplate,
    RemoveToken,
    RemoveTokens,
    RenameEncounter,
    Reorder,
    RollDice,
    SetCondition,
    SetDiagonal,
    SetDoor,
    SetFog,
    SetHouseRule,
    SetHp,
    SetMapImage,
    SetParty,
    SetValue,
    SetWalls,
    StartCombat,
)
from tacmap.engine.model.events import (
    DataChanged,
    Event,
    GmRolled,
    HpChanged,
    Said,
    ScheduleChanged,
    TemplateRemoved,
    TokenEdited,
    TokenRemoved,
    ValueChanged,
    door_name,
)
from tacmap.engine.model.state import Cell, Encounter, Template
from tacmap.engine.model.words import ACT_WORDS
from tacmap.engine.space.templates import describe as describe_template

#: Fields that name the token a command is about, in the order they are looked for.
ACTOR_FIELDS = ("actor", "token", "who", "mover")


def sentence(state: Encounter, command: Command, events: Iterable[Event] = ()) -> str:
    """``command`` as one sentence with token names (no full stop).

    ``events`` are the command's events, when known: they name a token the
    command removed and who ended a turn when the command did not say.
    """
    events = tuple(events)
    names = _Names(state, events)
    n = names.of
    c = command
    declared = declaration(state, c, events)
    if declared:
        return declared
    if isinstance(c, Move):
        text = f"{n(c.actor)} moves to {_cell(c.path[-1])}" if c.path else f"{n(c.actor)} moves"
        if len(c.path) > 1:
            text += " by way of " + ", ".join(_cell(p) for p in c.path[:-1])
        return text
    if isinstance(c, Attack):
        weapon = f" with the {_words(c.weapon)}" if c.weapon else ""
        return f"{n(c.actor)} attacks {n(c.target)}{weapon}"
    if isinstance(c, Act):
        said = ACT_WORDS.get(state.ruleset, {}).get(c.action)
        if said:  # the ruleset's own words for its action
            if not c.detail:
                said = re.sub(r" \([^()]*\{detail\}[^()]*\)", "", said)
            return said.format(actor=n(c.actor), target=n(c.target) if c.target else "",
                               detail=c.detail)
        # A sentence: the how (a spell, a critical's dice) last, after the who and where.
        text = f"{n(c.actor)} uses {_words(c.action)}"
        if c.target:
            text += f" on {n(c.target)}"
        if isinstance(c.area, Template):
            text += f" at {_cell(c.area.origin)} ({describe_template(c.area)})"
        if c.detail:
            text += f": {_words(c.detail)}"
        return text
    if isinstance(c, StartCombat):
        if c.order:
            return "Combat starts: " + ", ".join(n(x) for x in c.order)
        return "Combat starts"
    if isinstance(c, EndTurn):
        who = c.actor or _whose_turn(events)
        return f"{n(who)} ends the turn" if who else "The turn ends"
    if isinstance(c, FreeMove):
        return f"GM moves {n(c.token)} to {_cell(c.to)}"
    if isinstance(c, SetHp):
        return f"GM sets {_possessive(n(c.token))} hit points to {c.hp}"
    if isinstance(c, SetValue):
        what = f"{_possessive(n(c.token))} {_words(c.key)}"
        return f"GM clears {what}" if c.value is None \
            else f"GM sets {what} to {_value(c.value)}"
    if isinstance(c, SetCondition):
        return f"GM makes {n(c.token)} {c.condition}" if c.on \
            else f"GM takes {c.condition} off {n(c.token)}"
    if isinstance(c, Reorder):
        return "GM reorders the turns: " + ", ".join(n(x) for x in c.order)
    if isinstance(c, SetMapImage):
        return _map_image(c)
    if isinstance(c, AddToken):
        t = c.token
        return f"GM adds {t.name} ({t.side}) at {_cell((t.x, t.y))}"
    if isinstance(c, RemoveToken):
        return f"GM removes {n(c.token)}"
    if isinstance(c, EditToken):
        return _edit(state, c, events, n)
    if isinstance(c, SetWalls):
        return f"GM changes the walls: {_walls(c)}"
    if isinstance(c, SetDiagonal):
        return f"GM sets the diagonal rule to {c.rule}"
    if isinstance(c, RenameEncounter):
        return f"GM renames the encounter “{c.name}”"
    if isinstance(c, SetHouseRule):
        return f"GM sets the house rule {c.key.replace('_', ' ')} to {c.value.replace('_', ' ')}"
    if isinstance(c, SetParty):
        return f"GM makes {c.side} the players' side"
    if isinstance(c, PlaceTemplate):
        return f"GM places {c.label} ({describe_template(c.template)})"
    if isinstance(c, RemoveTemplate):
        gone = next((e.placed.label for e in events if isinstance(e, TemplateRemoved)), None) \
            or next((p.label for p in state.templates if p.id == c.id), c.id)
        return f"GM takes {gone} off the map"
    if isinstance(c, SetDoor):
        door = door_name(state, c.wall)
        return f"{door[0].upper()}{door[1:]} {'opens' if c.open else 'closes'}"
    if isinstance(c, SetFog):
        return f"GM turns fog of war {'on' if c.enabled else 'off'}"
    if isinstance(c, EditFog):
        xs, ys = [p[0] for p in c.points], [p[1] for p in c.points]
        what = "reveals" if c.reveal else "hides"
        return (f"GM {what} an area from ({min(xs):g}, {min(ys):g}) to "
                f"({max(xs):g}, {max(ys):g})" if xs else f"GM {what} an area")
    return _table_tool(c, n, events) or _fallback(c, n)


def _edit(state: Encounter, c: EditToken, events: Sequence[Event],
          n: Callable[[str], str]) -> str:
    """Editing a token; hiding or revealing it, and nothing else, says so."""
    old = next((e.old for e in events if isinstance(e, TokenEdited)),
               state.tokens.get(c.token.id))
    if old is not None and old.hidden != c.token.hidden \
            and msgspec.structs.replace(old, hidden=c.token.hidden) == c.token:
        return f"GM hides {n(c.token.id)} from the players" if c.token.hidden \
            else f"GM reveals {n(c.token.id)} to the players"
    return f"GM edits {n(c.token.id)}"


def _table_tool(c: Command, n: Callable[[str], str], events: Sequence[Event]) -> str:
    """The GM's table tools (gm.py) as sentences; "" for any other command."""
    if isinstance(c, RollDice):
        rolled = next((e for e in events if isinstance(e, GmRolled)), None)
        secret = "" if c.public else " (GM only)"
        return f"GM rolls {rolled.shown if rolled else c.notation}{secret}"
    if isinstance(c, AdjustHp):
        hp = next((e for e in events if isinstance(e, HpChanged)), None)
        after = f": {hp.old} → {hp.new} HP" if hp else ""
        if c.change < 0:
            return f"GM deals {-c.change} damage to {n(c.token)}{after}"
        return f"GM heals {n(c.token)} by {c.change}{after}"
    if isinstance(c, MoveGroup):
        return f"GM moves {_listed([n(tid) for tid, _ in c.moves])} together"
    if isinstance(c, AddTokens):
        return f"GM adds {_listed([t.name for t in c.tokens])}"
    if isinstance(c, RemoveTokens):
        return f"GM removes {_listed([n(tid) for tid in c.tokens])}"
    if isinstance(c, Rebalance):
        return "GM balances the encounter: " + "; ".join(rebalance_words(c, n, events))
    return ""


def rebalance_words(c: Rebalance, n: Callable[[str], str], events: Sequence[Event] = ()
                    ) -> list[str]:
    """What a balance proposal changes, one phrase each: adds, removals, HP (from what,
    when its events are known)."""
    parts = []
    if c.add:
        parts.append(f"adds {_listed([t.name for t in c.add])}")
    if c.remove:
        parts.append(f"removes {_listed([n(tid) for tid in c.remove])}")
    was = {e.old.id: e.old.max_hp for e in events if isinstance(e, TokenEdited)}
    for t in c.edit:
        # Worded as the player filter knows HP figures ("34 → 62 HP", "to 62 HP"): the
        # players read who changed, not the foes' numbers.
        before = was.get(t.id)
        # Maximum: the figures are max_hp's (a wounded foe's hit points move with it, and
        # its edit event below says so: "hp 13 → 10; max_hp 16 → 13").
        parts.append(f"{_possessive(t.name)} maximum hit points changed: {before} → "
                     f"{t.max_hp} HP" if before is not None and before != t.max_hp else
                     f"{_possessive(t.name)} maximum hit points set to {t.max_hp} HP")
    return parts


def _listed(names: list[str]) -> str:
    """"A", "A and B", "A, B and C"; past five, the first three and how many more."""
    if len(names) > 5:
        return f"{', '.join(names[:3])} and {len(names) - 3} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def declaration(state: Encounter, command: Command, events: Iterable[Event]) -> str:
    """``command`` worded as a declaration when its events say it was only declared
    (a ruleset's "X declares: …" note), else ``""``.

    Six Phases and Reflex announce an action first and resolve it later, so
    "Regdar moves to (10, 6)" would tell the GM of a move that has not happened:
    this says "Regdar declares a move to (10, 6)".
    """
    events = tuple(events)
    if not isinstance(command, Move | Attack | Act):
        return ""
    names = _Names(state, events)
    name = names.of(command.actor)
    lead = f"{name} declares"
    label = ""
    for ev in events:
        note = ev.note if isinstance(ev, ScheduleChanged) else \
            ev.message if isinstance(ev, Said) else ""
        if note.startswith(f"{lead}:"):
            label = note[len(lead) + 1:].split(";")[0].strip()
            break
    else:
        return ""
    if isinstance(command, Move) and command.path:
        return f"{lead} a move to {_cell(command.path[-1])}"
    if isinstance(command, Attack):
        return f"{lead} an attack on {names.of(command.target)}"
    return f"{lead}: {label}" if label else lead


def line(state: Encounter, event: Event) -> str:
    """One event as a sentence for the log.

    A ruleset's tracked value (``ValueChanged``) is told by its note ("Mira: Fireball
    used from memory"), never as a raw ``key: old → new`` dump; every other event
    already tells itself.
    """
    if isinstance(event, ValueChanged):
        return _value_line(_Names(state, ()).of(event.token), event.key, event.new,
                           event.note)
    if isinstance(event, DataChanged):
        return _value_line("The encounter", event.key, event.new, "")
    return event.text(state)


def _value_line(name: str, key: str, new: object, note: str) -> str:
    if note:
        # "declares: …" already reads after a name; anything else is the reason.
        return f"{name} {note}" if note.startswith("declares") else f"{name}: {note}"
    what = _words(key)
    if new is None or new is False:
        return f"{name} is no longer {what}" if new is False else \
            f"{_possessive(name)} {what} is cleared"
    if new is True:
        return f"{name} is now {what}"
    return f"{_possessive(name)} {what} is now {_spoken(new)}"


def _spoken(value: object) -> str:
    """A value in words: lists joined with commas, keys with spaces, no brackets."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return ", ".join(_spoken(v) for v in value) or "nothing"
    if isinstance(value, dict):
        return ", ".join(f"{_words(str(k))} {_spoken(v)}" for k, v in value.items()) or "nothing"
    return _words(str(value)) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Reaction:
    """One token reacting to what another did (an opportunity attack, a riposte …)."""

    token: str
    """The token that reacted."""
    short: str
    """A word or two to float over it (``"Riposte!"``)."""
    text: str
    """The sentence for the status bar: the reaction and how it turned out."""


#: A ruleset's log line that says a token reacts: "X reacts with Riposte: …",
#: "X's prepared action fires: …".
_REACTS = re.compile(r"\breacts with (?P<name>[^:\"“]+?)\s*(?::|$)|\bprepared action fires\b")


def reactions(state: Encounter, command: Command, events: Sequence[Event]) -> list[Reaction]:
    """The reactions among ``command``'s events, in the order they happened.

    A reaction is a ruleset's log line (``Said``) about a token other than the
    one acting that says it reacts (``"… reacts with Riposte …"``) or that its
    prepared action fires. Its text is that line and, when the same token's
    next line tells the outcome (``"Riposte misses …"``), that one too.
    """
    actor = _about(command)
    out = []
    for i, ev in enumerate(events):
        if not isinstance(ev, Said) or not ev.who or ev.who == actor:
            continue
        found = _REACTS.search(ev.message)
        if found is None:
            continue
        name = found.group("name")
        short = f"{name.strip()}!" if name else "Prepared action!"
        text = ev.message
        outcome = next((e for e in events[i + 1:] if isinstance(e, Said) and e.who == ev.who),
                       None)
        if outcome is not None and _REACTS.search(outcome.message) is None:
            text += f" — {outcome.message}"
        out.append(Reaction(ev.who, short, text))
    return out


# --- helpers --------------------------------------------------------------------------


class _Names:
    """Token names from the state, then from tokens the events took away."""

    def __init__(self, state: Encounter, events: Sequence[Event]) -> None:
        self.state = state
        self.gone: dict[str, str] = {}
        for ev in events:
            if isinstance(ev, TokenRemoved):
                self.gone[ev.token.id] = ev.token.name
            elif isinstance(ev, TokenEdited):
                self.gone[ev.new.id] = ev.new.name

    def of(self, token_id: str) -> str:
        token = self.state.tokens.get(token_id)
        if token is not None:
            return token.name
        return self.gone.get(token_id, token_id)


def _about(command: Command) -> str:
    for field in ACTOR_FIELDS:
        value = getattr(command, field, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _whose_turn(events: Sequence[Event]) -> str:
    """Who was acting before the first schedule change among ``events`` (a token or side)."""
    for ev in events:
        if isinstance(ev, ScheduleChanged) and ev.old is not None:
            for attr in ("current", "current_side"):
                value = getattr(ev.old, attr, None)
                if isinstance(value, str) and value:
                    return value
            return ""
    return ""


def _cell(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _words(key: str) -> str:
    """``"prepare:dodge"`` → ``"prepare dodge"``; ``"long_action"`` → ``"long action"``."""
    return " ".join(key.replace("_", " ").replace(":", " ").split())


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _walls(c: SetWalls) -> str:
    lines = sum(1 for w in c.walls if not w.closed)
    shapes = len(c.walls) - lines
    if not c.walls:
        return "none left"
    parts = [_plural(lines, "wall")] if lines else []
    if shapes:
        parts.append(_plural(shapes, "obstacle"))
    return " and ".join(parts)


def _map_image(c: SetMapImage) -> str:
    if c.image is None:
        return "GM removes the map image"
    if c.locked is True:
        return "GM locks the map image"
    if c.locked is False:
        return "GM unlocks the map image"
    name = "an embedded image" if c.image.startswith("data:") else c.image
    x, y = c.offset
    return f"GM places the map image ({name}) at ({x:g} m, {y:g} m), {c.scale:g} m a pixel"


def _type_words(command: object) -> str:
    """``PrepareAction`` → ``"prepare action"``."""
    name = type(command).__name__
    return " ".join(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)) \
        or name


def _fallback(command: Command, name: Callable[[str], str]) -> str:
    """A ruleset's own command: who, what (its type in words), at whom."""
    words = _type_words(command)
    who = _about(command)
    text = f"{name(who)}: {words}" if who else words[:1].upper() + words[1:]
    target = getattr(command, "target", None)
    if isinstance(target, str) and target:
        text += f" on {name(target)}"
    return text
