"""Moving under the opposed rules: never through an enemy, and the drag says what a move
spends of the turn ("Move Action > Move Action > End OR Move Action > Standard Action >
Move Action > End OR Full Round Action > End")."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import Act, Attack, Move, SetHouseRule, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry, Ruleset


def corridor(registry: Registry) -> Referee:
    """Ana (speed 6) at (2,3) in a corridor one cell high along y=3; Brak at (4,3)."""
    rules = registry.get("opposed")
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(14, 8, walls=(Wall(((0, 3), (14, 3))), Wall(((0, 4), (14, 4)))))
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 3, hp=20, max_hp=20),
        "brak": Token("brak", "Brak", "foes", 4, 3, hp=20, max_hp=20),
        "cid": Token("cid", "Cid", "party", 1, 3, hp=20, max_hp=20),
    }
    ref = Referee(state, rules)
    ref.execute(StartCombat(("ana", "brak", "cid")))
    return ref


def test_a_move_through_an_enemys_square_is_refused_with_a_sentence(
        registry: Registry) -> None:
    ref = corridor(registry)
    why = ("Ana cannot pass through Brak's square at (4,3) and there is no way round "
           "to (6,3)")
    preview = ref.preview(Move("ana", ((6, 3),)))
    assert not preview.legal and preview.reason == why
    with pytest.raises(RuleError, match="cannot pass through Brak's square"):
        ref.execute(Move("ana", ((6, 3),)))
    assert ref.state.tokens["ana"].cell == (2, 3)


def test_a_move_may_pass_through_an_ally(registry: Registry) -> None:
    ref = corridor(registry)
    ref.state.tokens["cid"].x, ref.state.tokens["ana"].x = 2, 1
    ref.version += 1  # tokens placed by hand: the planner's caches must not be reused
    assert ref.preview(Move("ana", ((3, 3),))).legal


def test_the_drag_preview_says_what_a_move_then_a_nudge_spend(registry: Registry) -> None:
    rules = registry.get("opposed")
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(20, 8)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 2, hp=20, max_hp=20),
        "brak": Token("brak", "Brak", "foes", 8, 2, hp=20, max_hp=20),
    }
    ref = Referee(state, rules)
    ref.execute(StartCombat(("ana", "brak")))
    first = ref.preview(Move("ana", ((6, 2),)))
    assert first.uses == ("first move: no full-round action after this; left: move or "
                          "standard + move")
    ref.execute(Move("ana", ((6, 2),)))
    nudge = ref.preview(Move("ana", ((7, 2),)))
    assert nudge.legal
    assert nudge.uses == "second move: no standard action after this; nothing left this turn"
    ref.execute(Move("ana", ((7, 2),)))
    # Beside Brak now, and no attack left, as the preview said.
    refused = ref.preview(Attack("ana", "brak"))
    assert not refused.legal and "cannot add standard" in refused.reason


def side_by_side(rules: Ruleset) -> Referee:
    """Ana at (2,2) beside Brak at (3,2); Ana's turn."""
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(20, 8)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 2, hp=20, max_hp=20),
        "brak": Token("brak", "Brak", "foes", 3, 2, hp=20, max_hp=20),
    }
    ref = Referee(state, rules)
    ref.execute(StartCombat(("ana", "brak")))
    return ref


def test_the_move_preview_says_whether_leaving_a_reach_draws_an_attack_of_opportunity(
        registry: Registry) -> None:
    # "If they are adjacent to or within reach of a potential enemy combatant and declare
    # that they intend to run, that play may be subject to attacks of opportunity."
    rules = registry.get("opposed")
    ref = side_by_side(rules)
    step = ref.preview(Move("ana", ((1, 2),)))
    assert step.uses.endswith("; draws an attack of opportunity from Brak "
                              "(d100: taken on 60 or less)")
    ref.execute(Act("ana", "opportunity:pass"))
    assert ref.preview(Move("ana", ((1, 2),))).uses.endswith(
        "; the GM lets runners go: no attack of opportunity")
    # The other reading: only an abstaining character's move is a run.
    ref = side_by_side(rules)
    ref.execute(SetHouseRule("opportunity_run", "abstaining"))
    assert ref.preview(Move("ana", ((1, 2),))).uses.endswith(
        "; not a run (Ana does not abstain): no attack of opportunity")
    ref.execute(Act("ana", "abstain", detail="I run for the boats."))
    assert ref.preview(Move("ana", ((1, 2),))).uses.endswith(
        "; draws an attack of opportunity from Brak (d100: taken on 60 or less)")
