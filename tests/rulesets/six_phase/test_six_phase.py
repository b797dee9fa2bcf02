"""six_phase: the demo's transcript is byte-identical, the odds are exact, the panels show it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.model.commands import Act, EndTurn, Move, StartCombat
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.drag import describe_cost

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_demo_transcript_is_byte_identical(capsys: pytest.CaptureFixture[str],
                                           as_json: bool) -> None:
    res = ROOT / "resources"
    args = ["play", str(res / "six_phase_demo.tacmap"), "--script",
            str(res / "six_phase_demo-three-rounds.jsonl"), "--seed", "4"]
    assert main([*args, "--json"] if as_json else args) == 0
    out = capsys.readouterr().out
    name = f"six_phase-demo-seed4.{'jsonl' if as_json else 'txt'}"
    assert out == (FIXTURES / name).read_text(encoding="utf-8")
    if not as_json:
        assert "d20 order" in out
        assert out.count("round 4 begins") == 1


def melee_phase(registry: Registry) -> Referee:
    rules = registry.get("six_phase")
    state = rules.new_encounter("odds")
    state.map = MapSpec(10, 6)
    ana = Token("ana", "Ana", "party", 2, 2, stats={"dex": 10, "str_bonus": 1})
    brak = Token("brak", "Brak", "foes", 3, 2, hp=5, max_hp=5,
                 stats={"kind": "monster", "weapon": "spear", "dex_mod": 1})
    state.tokens = {"ana": ana, "brak": brak}
    referee = Referee(state, rules)
    referee.execute(StartCombat())
    referee.execute(EndTurn("ana"))
    referee.execute(EndTurn("brak"))
    return referee


def test_melee_odds_are_exact(registry: Registry) -> None:
    referee = melee_phase(registry)
    # Dexterity 10 + Defense (spear 2 + Dex mod 1) = 13: faces 13..20 hit (8 of 20).
    odds = referee.preview(Act("ana", "melee", "brak", "thrust/torso")).odds
    assert odds is not None
    assert odds.success == pytest.approx(8 / 20)
    # Margins 0..7 plus 1, at least 1: 1, 2 … 8, each 1/8 of the hits.
    assert odds.damage == tuple((d, pytest.approx(1 / 8)) for d in range(1, 9))
    # Brak has 5 HP: damage 5..8 drops it, 4 faces of 20.
    assert odds.drop == pytest.approx(4 / 20)


def test_disadvantage_shows_in_the_odds(registry: Registry) -> None:
    referee = melee_phase(registry)
    referee.state.tokens["ana"].values["last_type"] = "thrust"
    preview = referee.preview(Act("ana", "melee", "brak", "thrust/torso"))
    assert preview.odds is not None
    # The lower of two d20s reaches 13 with (8/20)^2.
    assert preview.odds.success == pytest.approx((8 / 20) ** 2)
    assert any("twice in a row" in n for n in preview.notes)
    other = referee.preview(Act("ana", "melee", "brak", "swing/head")).odds
    assert other is not None and other.success == pytest.approx(8 / 20)


def test_status_lines_show_wounds_and_notches(registry: Registry) -> None:
    referee = melee_phase(registry)
    brak = referee.state.tokens["brak"]
    brak.values["wounds"] = (("Concussion", "head", 2),)
    brak.values["notches"] = {"spear": 1}
    lines = referee.ruleset.status_lines(referee.state, brak)
    assert lines == ("Wounds 1: Concussion (head, until the end of round 2)", "Notches: spear 1")
    pools = {p.token: p for p in referee.ruleset.dice_pools(referee.state)}
    assert pools["brak"].status == lines


def test_the_pool_panel_strikes_out_the_d20_not_used(registry: Registry) -> None:
    from tacmap.engine.rules.dice import FixedDice

    referee = melee_phase(registry)
    referee.execute(Act("brak", "dodge"))
    # (Ana hits: 16 against 13; Brak, hurt, makes its morale check next round: 20.)
    referee.execute(Act("ana", "melee", "brak", "thrust/torso"), dice=FixedDice([18, 9, 16, 20]))
    pools = {p.token: p for p in referee.ruleset.dice_pools(referee.state)}
    # Brak's dodge, resolved first, conferred the disadvantage: Ana's second d20 (16) is used.
    assert pools["ana"].faces == (9, 16)
    assert pools["ana"].removed == (True, False)


def test_distances_show_in_feet(registry: Registry, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 26, item 3: 5-foot squares everywhere: `tacmap measure`, the move preview
    # the map shows while dragging, and a shot's range band on the odds card.
    assert main(["measure", "--ruleset", "six_phase", "0,0", "6,0"]) == 0
    assert capsys.readouterr().out == "30 ft\n"
    rules = registry.get("six_phase")
    state = rules.new_encounter("feet")
    state.map = MapSpec(16, 8)
    lia = Token("lia", "Lia", "party", 1, 2, stats={"ranged": "shortbow"})
    gob = Token("gob", "Gob", "foes", 12, 2, stats={"kind": "monster"})
    state.tokens = {"lia": lia, "gob": gob}
    referee = Referee(state, rules)
    referee.execute(StartCombat())
    preview = referee.preview(Move("lia", ((5, 2),)))
    assert describe_cost(preview, rules.manifest.units) == "20 ft of 30 ft"
    referee.execute(EndTurn("lia"))
    referee.execute(EndTurn("gob"))
    notes = referee.preview(Act("lia", "shoot", "gob", "aimed shot/torso")).notes
    assert "Gob's Defense 0 +0 at medium range (55 ft)" in notes[0]


def test_the_shove_odds_card_says_feet_and_the_self_hit(registry: Registry) -> None:
    referee = melee_phase(registry)
    notes = referee.preview(Act("ana", "shove", "brak", "away")).notes
    assert "away: the margin in feet, in whole 5-foot squares (a margin under 5 moves Brak " \
           "nowhere)" in notes
    assert "failing: Ana is hit for 10 minus the d20, if above 0" in notes


def test_a_shove_push_is_logged_without_a_zero_cost(registry: Registry) -> None:
    """Issue 34 item 7: "1 square (5 ft)" was followed by "Brak moves …, 0 ft"."""
    referee = melee_phase(registry)
    referee.execute(Act("ana", "shove", "brak", "away"))
    events = referee.execute(EndTurn("brak"), FixedDice([20]))
    lines = [e.text(referee.state) for e in events]
    said = next(i for i, t in enumerate(lines) if t.startswith("Ana shoves Brak"))
    assert lines[said + 1] == "Brak moves (3,2) → (4,2)"
    assert not any(t.endswith(", 0 ft") for t in lines)


def test_a_fleeing_monster_makes_no_opportunity_attack(registry: Registry) -> None:
    """Issue 34 item 9: "makes no attacks" (README) holds for opportunity attacks too."""
    rules = registry.get("six_phase")
    state = rules.new_encounter("flee")
    state.map = MapSpec(10, 6)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 2, stats={"dex": 20}),
        "brak": Token("brak", "Brak", "foes", 3, 2, conditions=("fleeing",),
                      stats={"kind": "monster", "weapon": "spear"}),
    }
    referee = Referee(state, rules)
    referee.execute(StartCombat())
    referee.execute(Move("ana", ((0, 2),)))
    events = referee.execute(EndTurn("brak"))
    lines = [e.text(referee.state) for e in events]
    assert "Brak is fleeing and makes no opportunity attack" in lines
    assert not any("leaving the melee" in t or "hits Ana" in t for t in lines)
    assert referee.state.tokens["ana"].hp == referee.state.tokens["ana"].max_hp
