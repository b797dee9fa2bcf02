"""Issue 22 item 5: the odds of an attack name the reactions that may change its outcome."""

from __future__ import annotations

from tacmap.engine.model.commands import Act, Attack, EndTurn, StartCombat
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.ruleset import Registry
from tests.rulesets.opposed.test_opposed import referee


def test_an_opposed_attack_names_the_held_turn_that_may_cut_in(registry: Registry) -> None:
    ref = referee(registry)
    ana, brak = ref.state.tokens["ana"], ref.state.tokens["brak"]
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Act("ana", "hold", detail="I strike when Brak raises his axe."))
    before = ref.preview(Attack("brak", "ana"))
    assert before.legal and before.odds is not None, before.reason
    held = before.odds.reactions
    assert len(held) == 1
    assert held[0].text.startswith(f'{ana.name} holds a turn: "I strike when Brak raises')
    assert held[0].success is None  # the GM decides: no odds without it to give
    assert brak.side != ana.side
    fresh = referee(registry)  # nobody holds a turn: nothing to name
    fresh.execute(StartCombat(("ana", "brak")))
    plain = fresh.preview(Attack("ana", "brak"))
    assert plain.odds is not None and plain.odds.reactions == ()


def test_a_reflex_attack_names_the_declared_dodge_and_the_odds_without_it(
        registry: Registry) -> None:
    from tacmap.engine.rules.dice import FixedDice
    from tests.rulesets.reflex.test_reflex import duel

    ref = duel(registry)  # Brak declared an attack on Ana
    ref.execute(Act("ana", "declare:dodge"), FixedDice([6] * 6))  # Ana's dodge, rolled high
    ref.execute(EndTurn())  # Ana (faster) has dodged: Brak's turn to strike
    options = [o for o in ref.ruleset.actions_for(ref.state, "brak") if o.key == "attack"]
    assert options and options[0].at == "ana"  # the declared target: aimed at without a click
    preview = ref.preview(command_for("brak", options[0], "ana"))
    assert preview.legal and preview.odds is not None, preview.reason
    (dodge,) = preview.odds.reactions
    assert dodge.text.startswith("Ana's declared dodge takes")
    # Brak's kept pool hits either way; without the dodge's 2 VL the hit would drop Ana.
    assert dodge.success == preview.odds.success == 1.0
    assert dodge.drop is not None and dodge.drop > preview.odds.drop
