"""Issue 26: "Other actions can be prepared and then performed as a reaction." Any action of
the turn waits for a trigger; the Actions panel offers each, the odds card asks what and when."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import Act, Attack, EndTurn, Move
from tacmap.engine.model.errors import RuleError
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.ruleset import Ruleset

from .conftest import ANA, BRAK, Build, token


def test_a_prepared_weapon_change_fires_after_the_attack(fight: Build) -> None:
    cole = token("cole", "party", 2, 2, **{**ANA, "weapons": ("longsword", "shortbow")})
    referee = fight(token("brak", "foes", 3, 2, **BRAK), cole)
    referee.execute(EndTurn())
    referee.execute(Act("cole", "prepare:wield:shortbow:attacks", "brak"))
    referee.execute(EndTurn())
    assert referee.state.tokens["cole"].values.get("weapon") is None
    referee.execute(Attack("brak", "cole"), FixedDice([1] * 5))
    cole_now = referee.state.tokens["cole"]
    assert cole_now.values["weapon"] == "shortbow"
    assert "prepared" not in cole_now.conditions
    # No action of Cole's was spent: the reaction is free, the preparing was not.
    assert referee.state.schedule.current == "brak"  # type: ignore[union-attr]


def test_a_move_with_nowhere_to_go_is_said_and_stays_prepared(fight: Build) -> None:
    # Cole in the corner: stepping back from Brak finds no farther cell.
    referee = fight(token("brak", "foes", 2, 0, **BRAK), token("cole", "party", 0, 0, **ANA))
    referee.execute(EndTurn())
    referee.execute(Act("cole", "prepare:move:enters_reach", "brak", "away"))
    referee.execute(EndTurn())
    said = [e.text(referee.state) for e in referee.execute(Move("brak", ((1, 1),)))]
    assert any("cannot follow through on \"if Brak comes within my reach, I will step back "
               "from Brak\": no free cell within 10 m is farther from Brak" in s for s in said)
    assert referee.state.tokens["cole"].cell == (0, 0)
    assert "prepared" in referee.state.tokens["cole"].conditions


@pytest.mark.parametrize(("action", "detail", "why"), [
    ("prepare:long_action:attacks", "", "takes the whole turn"),
    ("prepare:dance:attacks", "", "'dance' cannot be prepared"),
    ("prepare:riposte:attacks", "", "Riposte is a reaction: it fires by itself"),
    ("prepare:move", "sideways/attacks me", "not 'sideways'"),
    ("prepare:skill", "DT 2/whenever", "say what sets it off"),
    ("prepare:wield:shortbow:attacks", "", "carries no shortbow"),
])
def test_what_cannot_be_prepared_says_why(fight: Build, action: str, detail: str,
                                          why: str) -> None:
    ana = token("ana", "party", 2, 2, **{**ANA, "weapons": ("longsword",)})
    referee = fight(ana, token("brak", "foes", 3, 2, **BRAK))
    with pytest.raises(RuleError, match=why):
        referee.execute(Act("ana", action, "brak", detail))


def test_the_panel_offers_preparing_every_action_with_its_choices(
        fight: Build, rules: Ruleset) -> None:
    dora = token("dora", "party", 1, 2, **{**ANA, "abilities": ("mend", "mighty_blow"),
                                           "weapons": ("longsword", "shortbow")})
    referee = fight(dora, token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 2, **BRAK))
    options = {o.key: o for o in rules.actions_for(referee.state, "dora")}
    ability = options["prepare:ability"]
    assert ability.label == "Prepare: an ability" and ability.target == "token"
    assert ability.choices == (
        ("Ability", ("Mend on myself", "Mend on Ana", "Mighty Blow")),
        ("When the target", ("attacks me", "leaves my reach", "comes within my reach")))
    assert options["prepare:move"].choices[0] == ("Move", ("step back", "close in"))
    assert options["prepare:skill"].choices[0] == ("Test", ("no test", "DT 1", "DT 2", "DT 3"))
    assert options["prepare:skill"].prompt and options["prepare:generic"].prompt
    assert options["prepare:wield"].choices[0] == ("Weapon", ("shortbow",))
    # Each, as offered, is a legal command aimed at the foe.
    for key in ("prepare:ability", "prepare:move", "prepare:skill", "prepare:generic",
                "prepare:wield"):
        option = options[key]
        assert option.enabled, option.reason
        assert referee.preview(command_for("dora", option, "brak")).legal, key
    referee.execute(command_for("dora", options["prepare:ability"], "brak"))
    assert referee.state.tokens["dora"].values["prepared"] == (
        ("mend", "attacks", "brak", "any", 1),)
