"""The fight report: one self-contained HTML page a GM can send to the players.

``fight`` walks the log once from the state before its first entry and
gathers what the page says: the log in sentences by round, per combatant the
damage dealt and taken, hits and misses and hit points at the end of each
round, and per side the dice thrown against what they average. ``page`` writes
the HTML: styles inline, images as ``data:`` URIs, charts as inline SVG, no
script, so it opens offline in any browser. The maps are drawn by the caller
(the UI layer), since drawing is Qt's.

The players' report (``gm=False``) holds what the table saw: every line goes
through the player filter (``tacmap.engine.play.players``), and a token hidden
from the players has no row and no dice in it either.
"""

from __future__ import annotations

import base64
import copy
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tacmap.engine.files.storage import gc_paused
from tacmap.engine.model.commands import Attack, Command
from tacmap.engine.model.events import (
    ConditionChanged,
    DiceRolled,
    Event,
    GmRolled,
    HpChanged,
    PartyChanged,
    TokenAdded,
    TokenEdited,
    TokenRemoved,
    ValueChanged,
)
from tacmap.engine.model.state import Encounter, OutOfFight, marked_dead
from tacmap.engine.play.narrate import line, sentence
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.play.players import named as _named
from tacmap.engine.play.referee import Entry

#: Most points drawn in one hit-point chart (a long fight is sampled evenly).
CHART_POINTS = 200


@dataclass
class Combatant:
    """One token's part in the fight."""

    id: str
    name: str
    side: str
    max_hp: int
    hp_shown: bool
    """Its hit points may be shown (the players' side, or the GM's report)."""
    dealt: int = 0
    taken: int = 0
    hits: int = 0
    misses: int = 0
    hp: list[tuple[int, int]] = field(default_factory=list)
    """(round, hit points at its end), from the start of the log."""
    dropped: int | None = None
    """The round it dropped in (0: before combat), None while it stands."""
    standing: bool = True


@dataclass
class Luck:
    """One side's dice: how many, their sum and what that many dice average."""

    side: str
    rolls: int = 0
    dice: int = 0
    actual: int = 0
    expected: float = 0.0


@dataclass
class Told:
    """One log entry as the report tells it."""

    heading: str
    lines: list[str]


@dataclass
class Fight:
    """Everything the report says, gathered from the log."""

    name: str
    rounds: int
    """Rounds fought: the last round any entry was made in (a round only begun is not)."""
    combatants: list[Combatant]
    luck: list[Luck]
    by_round: dict[int, list[Told]]
    gm: bool
    start: Encounter
    """The state before the first entry (for the map at the start)."""


#: Events after which the tokens' names, sides or hidden flags may differ.
_ROSTER = (TokenAdded, TokenRemoved, TokenEdited, PartyChanged)


def _hidden(state: Encounter) -> frozenset[str]:
    return frozenset(i for i, t in state.tokens.items() if t.hidden)


def _down(state: Encounter, token_id: str, out: OutOfFight) -> bool:
    t = state.tokens.get(token_id)
    return t is not None and out(t)


def start_of(state: Encounter, log: Sequence[Entry]) -> Encounter:
    """The state before the first entry of ``log`` (``state`` is left as it is)."""
    out = copy.deepcopy(state)
    for entry in reversed(log):
        for event in reversed(entry.events):
            event.revert(out)
    return out


def fight(state: Encounter, log: Sequence[Entry], gm: bool = False,
          out: OutOfFight = marked_dead, secret: frozenset[str] = frozenset()) -> Fight:
    """Walk ``log`` from its start to ``state`` and gather the report (``state`` untouched).

    A combatant has dropped while ``out`` (the ruleset's ``out_of_fight``) says it is out;
    ``secret`` are the ruleset's GM-only conditions (``Ruleset.secret_conditions``).
    """
    with gc_paused():  # a long log builds hundreds of thousands of lines, and no cycle
        return _fight(state, log, gm, out, secret)


def _fight(state: Encounter, log: Sequence[Entry], gm: bool, out: OutOfFight,
           secret: frozenset[str]) -> Fight:
    now = start_of(state, log)
    start = copy.deepcopy(now)
    players = PlayerFilter(now, secret)
    people: dict[str, Combatant] = {}
    luck: dict[str, Luck] = {}
    by_round: dict[int, list[Told]] = {}

    def person(token_id: str) -> Combatant | None:
        t = now.tokens.get(token_id)
        if t is None:
            return people.get(token_id)
        c = people.get(token_id)
        if c is None:
            c = people[token_id] = Combatant(t.id, t.name, t.side, t.max_hp,
                                             gm or players.ours(t))
            c.hp.append((now.round, t.hp))
        c.name, c.side, c.max_hp = t.name, t.side, t.max_hp
        return c

    for t in now.tokens.values():
        person(t.id)
    last_round = now.round
    fought = 0
    finder = _Aims()
    finder.update(now)
    hidden_ids = _hidden(now)
    for entry in log:
        command, events = entry.command, entry.events
        roster = any(isinstance(e, _ROSTER) for e in events)
        named: set[str] = set()
        if not gm and (hidden_ids or roster):
            named = _named(command).union(*(_named(e) for e in events))
        hidden_before = named & hidden_ids
        heading = sentence(now, command, events)
        gm_only = not gm and players.hides_entry(now, command, events)
        round_of = now.round
        fought = max(fought, round_of)
        texts: list[tuple[Event, str | None]] = []
        actor = getattr(command, "actor", "") or ""
        target = getattr(command, "target", "") or ""
        rolls: list[tuple[str, int, int, float]] = []  # (side, dice, sum, expected)
        aims: dict[tuple[str, str], None] = {}  # (roller, the token its roll names), in order
        rollers: list[str] = []
        struck: set[str] = set()
        for ev in events:
            texts.append((ev, line(now, ev) if gm else players.event(now, ev)))
            if isinstance(ev, DiceRolled):
                rolls.append((_roller_side(now, ev), len(ev.roll.faces), ev.roll.total,
                              len(ev.roll.faces) * (ev.roll.sides + 1) / 2))
                if ev.who:
                    rollers.append(ev.who)
                    aimed = finder.aimed_at(now, ev.why, ev.who)
                    if aimed:
                        aims[(ev.who, aimed)] = None
            elif isinstance(ev, GmRolled) and (gm or ev.public):
                for r in ev.rolls:
                    rolls.append(("GM", len(r.faces), r.total, len(r.faces) * (r.sides + 1) / 2))
            if isinstance(ev, ConditionChanged) and ev.gained:
                struck.add(ev.token)
            if isinstance(ev, HpChanged) and ev.new < ev.old:
                struck.add(ev.token)
                hurt = person(ev.token)
                if hurt is not None:
                    hurt.taken += ev.old - ev.new
                dealer = person(_dealer(ev.token, aims, rollers, actor))
                if dealer is not None:
                    dealer.dealt += ev.old - ev.new
            ev.apply(now)
            if isinstance(ev, HpChanged | ConditionChanged | ValueChanged):
                # The ruleset says who is out; what it reads may be any of these.
                token_id = ev.token
                c = person(token_id)
                if c is not None and c.dropped is None and _down(now, token_id, out):
                    c.dropped, c.standing = now.round, False
                elif c is not None and c.dropped is not None and not _down(now, token_id, out) \
                        and token_id in now.tokens:
                    c.dropped, c.standing = None, True  # healed back up
        if not aims and actor and target and (isinstance(command, Attack) or rollers):
            aims[(actor, target)] = None
        for who, aimed in aims:
            attacker = person(who)
            if attacker is not None:
                if aimed in struck:
                    attacker.hits += 1
                else:
                    attacker.misses += 1
        if roster:
            finder.update(now)
            hidden_ids = _hidden(now)
            if not gm:
                players = PlayerFilter(now, secret)
        hidden_after = {i for i in named if i in hidden_ids
                        or (i not in now.tokens and i in hidden_before)}
        if gm or not (hidden_after or gm_only):
            for side, dice, total, expected in rolls:
                row = luck.setdefault(side, Luck(side))
                row.rolls, row.dice = row.rolls + 1, row.dice + dice
                row.actual += total
                row.expected += expected
            told = _for_players(players, heading, command, texts) if not gm \
                else Told(heading, [text for _, text in texts if text is not None])
            if told is not None:
                by_round.setdefault(round_of, []).append(told)
        if now.round != last_round:
            for c in people.values():
                live = now.tokens.get(c.id)
                if live is not None:
                    c.hp.append((last_round, live.hp))
            last_round = now.round
    for c in people.values():
        live = now.tokens.get(c.id)
        if live is not None:
            c.hp.append((now.round, live.hp))
        else:
            c.standing = False
            if c.dropped is None:
                c.dropped = now.round
    shown = [c for c in people.values()
             if gm or (c.id in now.tokens and not now.tokens[c.id].hidden)]
    return Fight(state.name, fought, shown, sorted(luck.values(), key=lambda r: r.side),
                 by_round, gm, start)


def _for_players(players: PlayerFilter, heading: str, command: Command,
                 texts: Sequence[tuple[Event, str | None]]) -> Told | None:
    """An entry as the players may read it (through the player filter), or None
    when its heading may not be read."""
    told = players.line(heading, of=command)
    if told is None:
        return None
    lines = (players.line(text, of=ev) for ev, text in texts if text is not None)
    return Told(told, [x for x in lines if x is not None])


def _dealer(hurt: str, aims: dict[tuple[str, str], None], rollers: Sequence[str],
            actor: str) -> str:
    """Who dealt damage to ``hurt``: the last roller whose roll named it (rolls resolved
    together, a reaction), else the last other roller, else the command's actor."""
    named = [who for who, aimed in aims if aimed == hurt and who != hurt]
    if named:
        return named[-1]
    others = [who for who in rollers if who != hurt]
    if others:
        return others[-1]
    return actor if actor != hurt else ""


class _Aims:
    """Finds the token a roll is aimed at from its words ("attack on Grul", "shoot Lidda")."""

    def __init__(self) -> None:
        self._names: tuple[tuple[str, str], ...] = ()
        self._pattern: re.Pattern[str] | None = None

    def update(self, state: Encounter) -> None:
        """Follow the tokens' names (rebuilt only when they change)."""
        names = tuple((t.name, t.id) for t in state.tokens.values() if t.name)
        if names != self._names:
            self._names = names
            words = sorted({n for n, _ in names}, key=len, reverse=True)
            self._pattern = re.compile(
                "|".join(rf"(?<!\w){re.escape(w)}(?!\w)" for w in words)) if words else None

    def aimed_at(self, state: Encounter, why: str, who: str) -> str:
        """The id of the first other token ``why`` names, or ""."""
        if self._pattern is None:
            return ""
        by_name = {n: i for n, i in self._names}
        for match in self._pattern.finditer(why):
            token = by_name.get(match.group(0), "")
            if token and token != who:
                return token
        return ""


def _roller_side(state: Encounter, roll: DiceRolled) -> str:
    """Whose dice: the roller's side; a side's own roll ("initiative for Red Company") is
    that side's; anything else is the GM's."""
    if roll.who in state.tokens:
        return state.tokens[roll.who].side
    if not roll.who:
        sides = {t.side for t in state.tokens.values()}
        named = next((side for side in sides if roll.why.endswith(f" for {side}")), None)
        if named is not None:
            return named
    return "GM"


# --------------------------------------------------------------------------- the page

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;
padding:0 1em;color:#222;background:#faf7f0}
h1{margin-bottom:.1em}.meta{color:#555;margin-top:0}
h2{border-bottom:2px solid #c9b68f;padding-bottom:.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.25em .7em;text-align:left;
border-bottom:1px solid #ddd;vertical-align:middle}td.n{text-align:right;font-variant-numeric:
tabular-nums}.maps{display:flex;flex-wrap:wrap;gap:1.5em}.maps figure{margin:0;flex:1 1 28em}
.maps img{max-width:100%;border:1px solid #aaa;background:#ece6d6}
ol.log{padding-left:2.2em}ol.log li{margin:.15em 0}ol.log ul{margin:0;padding-left:1.2em;
color:#444;list-style:circle}.down{color:#8a1c1c}.up{color:#1f5d1f}.luck-good{color:#1f5d1f}
.luck-bad{color:#8a1c1c}.note{color:#666;font-size:90%}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def png_uri(data: bytes) -> str:
    """A PNG's bytes as a ``data:`` URI."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def hp_chart(points: Sequence[tuple[int, int]], max_hp: int, width: int = 220,
             height: int = 54) -> str:
    """Hit points over the rounds as a small inline SVG line (0 HP is the dashed line)."""
    if len(points) > CHART_POINTS:
        step = len(points) / CHART_POINTS
        points = [points[int(i * step)] for i in range(CHART_POINTS)] + [points[-1]]
    first, last = points[0][0], points[-1][0]
    top = max([max_hp, 1, *(hp for _, hp in points)])
    bottom = min([0, *(hp for _, hp in points)])
    span = max(1, last - first)
    n = len(points)
    pad = 4

    def x(i: int, r: int) -> float:
        # Several points in one round are spread evenly, so each change shows.
        where = (r - first) / span if last > first else i / max(1, n - 1)
        return pad + where * (width - 2 * pad)

    def y(hp: int) -> float:
        return pad + (top - hp) / (top - bottom) * (height - 2 * pad)

    path = " ".join(f"{x(i, r):.1f},{y(hp):.1f}" for i, (r, hp) in enumerate(points))
    label = f"hit points from {points[0][1]} to {points[-1][1]} over rounds {first} to {last}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(label)}">'
            f'<title>{_e(label)}</title>'
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff" stroke="#ccc"/>'
            f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" '
            f'stroke="#b33" stroke-dasharray="3 3"/>'
            f'<polyline fill="none" stroke="#2a5d9f" stroke-width="2" points="{path}"/>'
            f'<circle cx="{x(n - 1, points[-1][0]):.1f}" cy="{y(points[-1][1]):.1f}" r="3" '
            f'fill="#2a5d9f"/></svg>')


def _round_name(n: int) -> str:
    return "Before combat" if n == 0 else f"Round {n}"


def page(f: Fight, ruleset: str, date: str, start_png: bytes | None = None,
         end_png: bytes | None = None) -> str:
    """The report as one HTML page (no script, every image inline)."""
    with gc_paused():
        return _page(f, ruleset, date, start_png, end_png)


def _page(f: Fight, ruleset: str, date: str, start_png: bytes | None,
          end_png: bytes | None) -> str:
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(f.name)} — fight report</title>",
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<style>{_STYLE}</style></head><body>",
           f"<h1>{_e(f.name)}</h1>",
           f'<p class="meta">{_e(ruleset)} · {_e(date)} · '
           f'{f.rounds} round{"" if f.rounds == 1 else "s"} fought'
           f'{" · GM report: everything, hidden tokens and GM-only rolls included" if f.gm else ""}'
           "</p>"]
    out.extend(_outcome(f))
    if start_png is not None or end_png is not None:
        out.append('<h2>The map</h2><div class="maps">')
        for title, data in (("At the start", start_png), ("At the end", end_png)):
            if data is not None:
                out.append(f'<figure><img src="{png_uri(data)}" alt="{_e(title)}: the map as '
                           f'the players saw it"><figcaption>{_e(title)}</figcaption></figure>')
        out.append("</div>")
    out.extend(_combatants(f))
    out.extend(_luck(f.luck))
    out.append("<h2>The fight, round by round</h2>")
    for n in sorted(f.by_round):
        out.append(f"<h3>{_e(_round_name(n))}</h3><ol class=\"log\">")
        out.extend(_entry(t) for t in f.by_round[n])
        out.append("</ol>")
    if not f.by_round:
        out.append("<p>Nothing happened yet.</p>")
    out.append('<p class="note">Written by tacmap.</p></body></html>\n')
    return "".join(out)


def _entry(t: Told) -> str:
    if not t.lines:
        return f"<li>{_e(t.heading)}</li>"
    return (f"<li>{_e(t.heading)}<ul>" + "".join(f"<li>{_e(x)}</li>" for x in t.lines)
            + "</ul></li>")


def _outcome(f: Fight) -> Iterable[str]:
    yield "<h2>Outcome</h2>"
    sides: dict[str, list[Combatant]] = {}
    for c in f.combatants:
        sides.setdefault(c.side, []).append(c)
    if not sides:
        yield "<p>No combatants.</p>"
        return
    yield ("<table><tr><th>Side</th><th>Standing</th><th>Dropped</th><th>Losses</th>"
           "</tr>")
    for side, people in sides.items():
        up = ", ".join(_e(c.name) for c in people if c.standing) or "—"
        down = ", ".join(f"{_e(c.name)} ({_e(_round_name(c.dropped or 0).lower())})"
                         for c in people if not c.standing) or "—"
        yield (f'<tr><td>{_e(side)}</td><td class="up">{up}</td>'
               f'<td class="down">{down}</td><td>{_e(losses(people))}</td></tr>')
    yield "</table>"


def losses(people: Sequence[Combatant]) -> str:
    """A side's losses, as the forecast counts them: how many of it are down, and the HP
    it lost where its hit points may be shown (never the foes' in the players' report)."""
    down = sum(1 for c in people if not c.standing)
    text = f"{down} of {len(people)} down"
    if people and all(c.hp_shown and c.hp for c in people):
        start = sum(max(0, c.hp[0][1]) for c in people)
        lost = sum(max(0, c.hp[0][1]) - max(0, c.hp[-1][1]) for c in people)
        text += f"; {lost} of {start} HP lost"
    return text


def _combatants(f: Fight) -> Iterable[str]:
    yield ("<h2>Combatants</h2><table><tr><th>Name</th><th>Side</th><th>Damage dealt</th>"
           "<th>Damage taken</th><th>Hits</th><th>Misses</th><th>Hit points by round</th></tr>")
    for c in f.combatants:
        chart = hp_chart(c.hp, c.max_hp) if c.hp_shown and c.hp else \
            '<span class="note">not shown to the players</span>'
        yield (f"<tr><td>{_e(c.name)}</td><td>{_e(c.side)}</td><td class=\"n\">{c.dealt}</td>"
               f'<td class="n">{c.taken}</td><td class="n">{c.hits}</td>'
               f'<td class="n">{c.misses}</td><td>{chart}</td></tr>')
    yield "</table>"
    yield ('<p class="note">A hit is an attack whose target lost hit points or gained a '
           "condition; damage from a reaction counts for the one who rolled it.</p>")


def _luck(rows: Sequence[Luck]) -> Iterable[str]:
    yield "<h2>The dice</h2>"
    if not rows:
        yield "<p>No dice were rolled.</p>"
        return
    yield ("<table><tr><th>Side</th><th>Rolls</th><th>Dice</th><th>Total</th>"
           "<th>Average total</th><th>Luck</th></tr>")
    for r in rows:
        diff = r.actual - r.expected
        pct = 100 * diff / r.expected if r.expected else 0.0
        word = "luckier than average" if diff > 0 else "unluckier than average" if diff < 0 \
            else "exactly average"
        cls = "luck-good" if diff > 0 else "luck-bad" if diff < 0 else ""
        yield (f"<tr><td>{_e(r.side)}</td><td class=\"n\">{r.rolls}</td>"
               f'<td class="n">{r.dice}</td><td class="n">{r.actual}</td>'
               f'<td class="n">{r.expected:g}</td><td class="{cls}">{diff:+g} ({pct:+.1f} %), '
               f"{word}</td></tr>")
    yield "</table>"
    yield ('<p class="note">Every die the log holds: its face against the average face of its '
           "kind ((sides + 1) ÷ 2), summed per side. A side's own roll (its initiative) is "
           "that side's; the GM's rolls and the rules' random events are the GM's.</p>")
