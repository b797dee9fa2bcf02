"""The fight report: what the players are told, the numbers per combatant, the dice, the HTML."""

from __future__ import annotations

from html.parser import HTMLParser

import msgspec
import pytest

from tacmap.engine.files.report import fight, hp_chart, page
from tacmap.engine.model.commands import Attack, EditToken, EndTurn, FreeMove, RollDice, StartCombat
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_state

#: Elements HTML writes without a closing tag.
VOID = {"meta", "img", "br", "hr", "link", "input", "circle", "line", "rect", "polyline"}


class Checked(HTMLParser):
    """Well-formedness (every element closed in order) and what the page holds."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: list[str] = []
        self.images: list[str] = []
        self.text: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        if any(name.startswith("on") for name, _ in attrs):
            self.problems.append(f"<{tag}> has an event handler")
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else ''}>")
            return
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def checked(html: str) -> Checked:
    """The page parsed; fails on a badly nested page, a script or a remote image."""
    parser = Checked()
    parser.feed(html)
    parser.close()
    assert html.startswith("<!DOCTYPE html>")
    assert not parser.problems and not parser.open, (parser.problems, parser.open)
    assert "script" not in parser.tags and "<script" not in html.lower()
    assert all(src.startswith("data:image/png;base64,") for src in parser.images)
    return parser


def played(registry: Registry) -> Referee:
    """Ana and Grul trade blows over two rounds; the GM rolls in secret; hidden Zog moves."""
    state = skirmish_state()
    state.tokens["zog"].hidden = True
    referee = Referee(state, registry.get("skirmish"))
    for command in (StartCombat(("ana", "grul", "bo", "zog")), RollDice("2d6", public=False),
                    Attack("ana", "grul"), EndTurn(), Attack("grul", "ana"), EndTurn(),
                    EndTurn(), FreeMove("zog", (7, 3)), EndTurn(), Attack("ana", "grul")):
        referee.execute(command)
    return referee


def test_players_report_leaves_out_secrets(registry: Registry) -> None:
    referee = played(registry)
    f = fight(referee.state, referee.log)
    text = " ".join(checked(page(f, "Skirmish", "1 May 2026")).text)
    assert "Zog" not in text and "zog" not in text  # a hidden token, its row and its moves
    assert "Combat starts: Ana, Grul, Bo " in text and "order: Ana, Grul, Bo " in text
    assert "GM only" not in text and "2d6" not in text  # the secret roll
    assert "Grul takes 4 damage (damage)" in text  # another side's damage, no hit points
    assert "6 → 2" not in text
    assert "Ana takes 5 damage (damage): 10 → 5 HP" in text  # the party's own hit points
    assert [c.name for c in f.combatants] == ["Ana", "Bo", "Grul"]


def test_a_token_shown_to_the_players_is_reported_from_then_on(registry: Registry) -> None:
    referee = played(registry)
    zog = referee.state.tokens["zog"]
    referee.execute(EditToken(msgspec.structs.replace(zog, hidden=False)))
    referee.execute(FreeMove("zog", (9, 6)))
    f = fight(referee.state, referee.log)
    text = " ".join(checked(page(f, "Skirmish", "1 May 2026")).text)
    assert "GM moves Zog to (9, 6)" in text
    assert "GM moves Zog to (7, 3)" not in text  # the move made while hidden stays out
    assert "Zog" in [c.name for c in f.combatants]


def test_gm_report_holds_everything(registry: Registry) -> None:
    referee = played(registry)
    text = " ".join(checked(page(fight(referee.state, referee.log, gm=True), "Skirmish",
                                 "1 May 2026")).text)
    assert "Zog" in text and "(GM only)" in text and "6 → 2 HP" in text


def test_damage_hits_and_drops_per_combatant(registry: Registry) -> None:
    referee = played(registry)
    f = fight(referee.state, referee.log)
    people = {c.name: c for c in f.combatants}
    assert (people["Ana"].dealt, people["Ana"].taken, people["Ana"].hits) == (6, 5, 2)
    assert (people["Grul"].dealt, people["Grul"].taken, people["Grul"].hits) == (5, 6, 1)
    assert people["Grul"].dropped == 2 and not people["Grul"].standing
    assert people["Ana"].standing and people["Ana"].hp == [(0, 10), (0, 10), (1, 5), (2, 5)]
    assert f.rounds == 2


def test_dice_luck_per_side(registry: Registry) -> None:
    referee = played(registry)
    luck = {r.side: r for r in fight(referee.state, referee.log).luck}
    # Ana: d20 16, d6 4, d20 11, d6 6; average 10.5 + 3.5 twice.
    assert (luck["party"].dice, luck["party"].actual, luck["party"].expected) == (4, 37, 28.0)
    assert (luck["orcs"].actual, luck["orcs"].expected) == (16, 14.0)
    assert "GM" not in luck  # the GM's roll was secret
    assert fight(referee.state, referee.log, gm=True).luck[0].side == "GM"


def test_the_report_of_the_start_is_the_state_before_the_log(registry: Registry) -> None:
    referee = played(registry)
    assert fight(referee.state, referee.log).start == referee.initial_state()


@pytest.mark.parametrize("points", [[(0, 10)], [(0, 10), (1, 4), (2, -3)],
                                    [(r, r % 7) for r in range(1000)]])
def test_hp_chart_is_a_small_svg(points: list[tuple[int, int]]) -> None:
    svg = hp_chart(points, 10)
    parser = Checked()
    parser.feed(svg)
    assert not parser.problems and not parser.open
    assert parser.tags.count("polyline") == 1 and len(svg) < 8000


def test_the_outcome_counts_each_sides_losses_and_hides_the_foes_hp(
        registry: Registry) -> None:
    referee = played(registry)
    gm = " ".join(checked(page(fight(referee.state, referee.log, gm=True), "Skirmish",
                               "1 May 2026")).text)
    assert "0 of 2 down; 5 of 20 HP lost" in gm  # the party: Ana lost 5
    assert "1 of 2 down; 6 of 12 HP lost" in gm  # the orcs: Grul fell (6 HP)
    players = " ".join(checked(page(fight(referee.state, referee.log), "Skirmish",
                                    "1 May 2026")).text)
    assert "0 of 2 down; 5 of 20 HP lost" in players
    assert "1 of 1 down" in players and "12 HP lost" not in players and \
        "of 6 HP lost" not in players
