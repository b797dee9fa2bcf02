"""The player filter: the one door every line the players read goes through.

The players' fight report and the player view both ask ``PlayerFilter``. What
the players may see (the manual's "What the players see", docs/manual/table.md):

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
from collections.abc import Collection, Iterable, Sequence

from tacmap.engine.model.commands import Command, RollDice, SetCondition
from tacmap.engine.model.events import (
    ConditionChanged,
    Event,
    Explored,
    GmRolled,
    HpChanged,
    TokenEdited,
    ValueChanged,
    public_changes,
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
        self._state = state
        self._names: _Names | None = None

    def ours(self, token: Token | None) -> bool:
        """Whether ``token`` is on the players' side (its hit points are theirs to see)."""
        return token is not None and token.side == self.party and not token.hidden

    def line(self, text: str, about: Collection[str] = (), of: object = None) -> str | None:
        """``text``, a sentence about the tokens ``about`` (or those the command or event
        ``of`` names), as the players may read it; None when they may not read it at all.

        A hidden token's name is taken out of a list ("order: Ana, Zog, Bo"); a
        line that still names one is refused. Hit-point figures stay only in a line
        about the players' side alone.
        """
        # Most lines hold no hit points: the substring test spares them the patterns.
        figures = "HP" in text or "hp" in text or "hit points" in text
        if not figures and not self.hidden:
            return text
        if of is not None:
            about = named(of)
        if self.hidden:
            names = self._hidden_names()
            if ", " in text:  # only a list can lose a name and stay readable
                text = names.unlisted(text)
            if names.spans(self._unnamed(text, about)):
                return None
        if figures and (not about or not self.own.issuperset(about)):
            text = _FIGURES.sub("", _SET_HP.sub(r"changes \1 hit points", text))
        return text

    def _unnamed(self, text: str, about: Collection[str]) -> str:
        """``text`` without the names of the visible tokens it is about: "Goblin 2" is
        not the hidden "Goblin" (a pasted copy is named so)."""
        for token_id in about:
            token = self._state.tokens.get(token_id)
            if token is not None and token_id not in self.hidden and token.name:
                text = text.replace(token.name, "\0")
        return text

    def _hidden_names(self) -> _Names:
        """The hidden tokens' names and ids (indexed when first asked: most syncs of the
        player view read no sentence)."""
        if self._names is None:
            self._names = _Names(w for pair in self._words for w in pair if w)
        return self._names

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
        if events and isinstance(events[0], GmRolled) \
                and all(isinstance(e, GmRolled) and not e.public for e in events):
            return True
        if not self.secret:
            return False
        if isinstance(command, SetCondition) and command.condition in self.secret \
                and not self.ours(state.tokens.get(command.token)):
            return True
        for e in events:
            if isinstance(e, ConditionChanged) and e.gained and self._secret_event(state, e):
                return True
        return False

    def event(self, state: Encounter, event: Event) -> str | None:
        """``event`` as a sentence for the players (``state`` as it was just before it),
        or None for one they are not told. Its names are not yet checked: the
        caller passes it through ``line`` as of after its entry."""
        kind = type(event)
        apart = _TOLD_APART.get(kind)
        if apart is None:
            apart = _TOLD_APART[kind] = issubclass(kind, _APART)
        if not apart:
            return gm_line(state, event)
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
        if self.secret and isinstance(event, ConditionChanged | ValueChanged):
            what = event.condition if isinstance(event, ConditionChanged) else event.key
            return what in self.secret and not self.ours(state.tokens.get(event.token))
        return False

    def _edited(self, event: TokenEdited) -> str:
        """An edit as the players may read it: no stat block, no secret condition, and
        hit points only for their own side."""
        old, new = event.old, event.new
        out = public_changes(old, new)
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


#: Events the players are told otherwise than the GM, or not at all.
_APART = (Explored, GmRolled, ConditionChanged, ValueChanged, HpChanged, TokenEdited)
#: Whether each event type is one of them (looked up once per type).
_TOLD_APART: dict[type, bool] = {}
_WORD = re.compile(r"\w+")


def _joins(text: str, at: int) -> bool:
    """Whether the character at ``at`` continues a word (a letter, digit, _ or -)."""
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] in "_-")


class _Names:
    """Where some names stand in a sentence as whole words, found word by word.

    A fogged map hides hundreds of tokens, and what it hides changes with every
    move: one pattern of every name would be compiled anew each time.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.by_first: dict[str, list[str]] = {}
        self.odd: list[str] = []
        """Names that begin with no letter or digit, looked for one by one."""
        for name in sorted(set(names), key=len, reverse=True):
            first = _WORD.match(name)
            if first is None:
                self.odd.append(name)
            else:
                self.by_first.setdefault(first.group(), []).append(name)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the names stand in ``text`` (start, end), left to right, none overlapping."""
        out: list[tuple[int, int]] = []
        for word in _WORD.finditer(text):
            start = word.start()
            if (out and start < out[-1][1]) or _joins(text, start - 1):
                continue
            for name in self.by_first.get(word.group(), ()):
                end = start + len(name)
                if text.startswith(name, start) and not _joins(text, end):
                    out.append((start, end))
                    break
        for name in self.odd:
            at = text.find(name)
            while at >= 0:
                if not _joins(text, at - 1) and not _joins(text, at + len(name)):
                    out.append((at, at + len(name)))
                at = text.find(name, at + 1)
        return sorted(out)

    def unlisted(self, text: str) -> str:
        """``text`` without the names that stand in a list ("Ana, Zog, Bo" → "Ana, Bo")."""
        for start, end in reversed(self.spans(text)):
            if text[start - 2:start] == ", " and text[end:end + 1] != "'":
                text = text[:start - 2] + text[end:]
            elif text[end:end + 2] == ", ":
                text = text[:start] + text[end + 2:]
        return text


def _shown(conditions: tuple[str, ...]) -> str:
    return "[" + " ".join(conditions) + "]" if conditions else "—"
