"""The player filter: the one door every line the players read goes through.

The players' fight report and the player view both ask ``PlayerFilter``. What
the players may see (README, "What the players see"):

- their own side's hit points, yes; any other side's, no (its damage and healing
  are told, never the hit points it has, had or was set to);
- a token hidden from the players (or, in the player view, one the fog hides):
  nothing, not even its name or id;
- a GM-only roll: nothing, not even that one was made;
- a condition the ruleset keeps secret (``Ruleset.secret_conditions``) on a token
  not on their side: nothing, nor the entry that gave it (the players learn of a
  prepared action when it fires);
- a stat block (a token's stats and tracked values): never, as the player view
  shows none.

Structured records are told structurally (an ``HpChanged`` of an enemy loses its
figures); every sentence then goes through ``line``, which also catches the hit
points a ruleset writes into its own words ("Skulk drops at -1 HP").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from tacmap.engine.model.commands import Command, RollDice, SetCondition
from tacmap.engine.model.events import (
    ConditionChanged,
    Event,
    Explored,
    GmRolled,
    HpChanged,
    TokenEdited,
    ValueChanged,
)
from tacmap.engine.model.state import Encounter, Token, party_side
from tacmap.engine.play.narrate import line as gm_line

#: Fields of commands and events that name a token (as the log panel reads them).
TOKEN_FIELDS = ("token", "who", "mover", "enemy", "actor", "target")

#: Hit-point figures in a sentence: "34 → 29 HP", "at -1 HP", "to 0 HP", "7/12 HP",
#: "HP 7/12", "hp 10 → 7" (an edit), "hit points to 7", "with 3 HP left".
_FIGURES = re.compile(
    r"(?:[:;]\s*)?\b(?:max_hp|hp)\s+-?\d+\s*→\s*-?\d+"
    r"|(?::\s*)?-?\d+\s*→\s*-?\d+\s*HP\b"
    r"|\s*\b(?:at|to|with|of|on)\s+-?\d+(?:\s*/\s*-?\d+)?\s*HP\b(?:\s+left)?"
    r"|\s*\(?-?\d+\s*/\s*-?\d+\s*HP\)?"
    r"|\s*\bHP\s*:?\s*-?\d+(?:\s*/\s*-?\d+)?"
    r"|\s*\bhit points\s+(?:to|at|of)\s+-?\d+", re.IGNORECASE)
#: "GM sets Grell's hit points to 7": the sentence keeps that they changed.
_SET_HP = re.compile(r"\bsets (.+?) hit points to -?\d+")


#: The token-naming fields of each record type (looked up once per type).
_FIELDS: dict[type, tuple[str, ...]] = {}


def named(record: object) -> set[str]:
    """The ids of the tokens a command or an event names in its fields."""
    kind = type(record)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in TOKEN_FIELDS
                                       if f in getattr(kind, "__struct_fields__", ()))
    out = set()
    for name in fields:
        value = getattr(record, name)
        if isinstance(value, str) and value:
            out.add(value)
        elif isinstance(value, Token):
            out.add(value.id)
    if isinstance(record, TokenEdited):
        out.add(record.new.id)
    return out


class PlayerFilter:
    """What the players may read, as of one state of the encounter.

    Build one per state the lines are about (the report keeps one while no token
    is added, removed or edited).
    """

    def __init__(self, state: Encounter, secret_conditions: Collection[str] = (),
                 unseen: Collection[str] = ()) -> None:
        self.party = party_side(state)
        self.secret = frozenset(secret_conditions)
        #: Tokens the players cannot see: GM-only ones and those ``unseen`` (the fog).
        self.hidden = frozenset(i for i, t in state.tokens.items()
                                if t.hidden or i in unseen)
        #: The players' side's tokens: the only hit points they read.
        self.own = frozenset(i for i, t in state.tokens.items()
                             if t.side == self.party and i not in self.hidden)
        self._words = [(i, state.tokens[i].name) for i in self.hidden]
        self._patterns: tuple[re.Pattern[str], re.Pattern[str]] | None = None

    def ours(self, token: Token | None) -> bool:
        """Whether ``token`` is on the players' side (its hit points are theirs to see)."""
        return token is not None and token.side == self.party and not token.hidden

    def line(self, text: str, about: Collection[str] = ()) -> str | None:
        """``text``, a sentence about the tokens ``about``, as the players may read it;
        None when they may not read it at all.

        A hidden token's name is taken out of a list ("order: Ana, Zog, Bo"); a
        line that still names one is refused. Hit-point figures stay only in a line
        about the players' side alone.
        """
        if self.hidden:
            listed, named = self._hidden_names()
            text = listed.sub("", text)
            if named.search(text):
                return None
        if not about or not self.own.issuperset(about):
            lower = text.lower()
            # Most lines hold no hit points: the substring test spares them the patterns.
            if "hp" in lower or "hit points" in lower:
                text = _FIGURES.sub("", _SET_HP.sub(r"changes \1 hit points", text))
        return text

    def _hidden_names(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        """The hidden tokens' names and ids in a list, and anywhere (built when first asked:
        a fogged map hides hundreds of tokens, and most syncs read no sentence)."""
        if self._patterns is None:
            words = sorted({w for pair in self._words for w in pair if w}, key=len,
                           reverse=True)
            either = "|".join(re.escape(w) for w in words) or "(?!)"
            self._patterns = (re.compile(rf"(?:, (?:{either})\b(?!')|\b(?:{either}), )"),
                              re.compile(rf"(?<![\w-])(?:{either})(?![\w-])"))
        return self._patterns

    def conditions(self, token: Token) -> tuple[str, ...]:
        """The conditions the players see on ``token``."""
        if self.ours(token):
            return token.conditions
        return tuple(c for c in token.conditions if c not in self.secret)

    def hides_entry(self, state: Encounter, command: Command, events: Sequence[Event]) -> bool:
        """Whether a whole log entry is the GM's (``state`` as it was before it): a GM-only
        roll, or what gave a token not on the players' side a secret condition."""
        if isinstance(command, RollDice) and not command.public:
            return True
        if events and all(isinstance(e, GmRolled) and not e.public for e in events):
            return True
        if isinstance(command, SetCondition) and command.condition in self.secret \
                and not self.ours(state.tokens.get(command.token)):
            return True
        return any(self._secret_event(state, e) for e in events
                   if isinstance(e, ConditionChanged) and e.gained)

    def event(self, state: Encounter, event: Event) -> str | None:
        """``event`` as a sentence for the players (``state`` as it was just before it),
        or None for one they are not told. Its names are not yet checked: the
        caller passes it through ``line`` as of after its entry."""
        if isinstance(event, Explored) or (isinstance(event, GmRolled) and not event.public):
            return None
        if self._secret_event(state, event):
            return None
        about = getattr(event, "token", "")
        token = state.tokens.get(about) if isinstance(about, str) else None
        if isinstance(event, HpChanged) and token is not None and not self.ours(token):
            delta = event.new - event.old
            what = f"takes {-delta} damage" if delta < 0 else f"is healed by {delta}"
            return f"{token.name} {what}{f' ({event.why})' if event.why else ''}"
        if isinstance(event, TokenEdited):
            return self._edited(event)
        return gm_line(state, event)

    def _secret_event(self, state: Encounter, event: Event) -> bool:
        """A secret condition, or the value that tracks it, changing on a token not ours."""
        if isinstance(event, ConditionChanged | ValueChanged):
            what = event.condition if isinstance(event, ConditionChanged) else event.key
            return what in self.secret and not self.ours(state.tokens.get(event.token))
        return False

    def _edited(self, event: TokenEdited) -> str:
        """An edit as the players may read it: no stat block, no secret condition, and
        hit points only for their own side."""
        old, new = event.old, event.new
        out = []
        if old.name != new.name:
            out.append(f"name {old.name} → {new.name}")
        if old.side != new.side:
            out.append(f"side {old.side} → {new.side}")
        if old.cell != new.cell:
            out.append(f"at ({old.x},{old.y}) → ({new.x},{new.y})")
        if old.size != new.size:
            out.append(f"size {old.size} → {new.size}")
        if self.ours(old) and self.ours(new):
            out += [f"{what} {getattr(old, what)} → {getattr(new, what)}"
                    for what in ("hp", "max_hp") if getattr(old, what) != getattr(new, what)]
        seen_old, seen_new = self.conditions(old), self.conditions(new)
        if seen_old != seen_new:
            out.append(f"conditions {_shown(seen_old)} → {_shown(seen_new)}")
        if old.image != new.image:
            out.append("new portrait")
        if old.hidden != new.hidden:
            out.append("hidden from the players" if new.hidden else "shown to the players")
        return f"{old.name} is edited{': ' + '; '.join(out) if out else ''}"


def _shown(conditions: tuple[str, ...]) -> str:
    return "[" + " ".join(conditions) + "]" if conditions else "—"
