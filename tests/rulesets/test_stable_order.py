"""Issue 22 polish: the Actions panel lists a token's actions in the same places as the
last token's, so a repeated click hits the same action."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import StartCombat
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.options import stable_order
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import ActionOption

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def test_attack_and_move_come_first_and_ending_the_turn_last() -> None:
    given = [ActionOption("end_turn", "End turn"), ActionOption("dodge", "Dodge"),
             ActionOption("move", "Move", "cell"), ActionOption("cast", "Cast", "token"),
             ActionOption("melee", "Attack (axe)", "token")]
    assert [o.key for o in stable_order(given)] == ["melee", "move", "dodge", "cast",
                                                     "end_turn"]


@pytest.mark.parametrize("demo", ["demo.tacmap", "speed_rank_demo.tacmap"])
def test_what_every_token_is_offered_sits_in_the_same_places(registry: Registry,
                                                             demo: str) -> None:
    loaded = storage.load(RESOURCES / demo, registry)
    ref = Referee(loaded.state, registry.get(loaded.state.ruleset))
    ref.execute(StartCombat())
    state = ref.state
    offered = {t: [o.key for o in stable_order(ref.ruleset.actions_for(state, t))
                   if o.key != "end_turn"]
               for t, token in state.tokens.items() if token.alive}
    common = set.intersection(*(set(keys) for keys in offered.values()))
    assert len(common) >= 3
    heads = {tuple(keys[:len(common)]) for keys in offered.values()}
    # One order for all: the shared actions are each token's first buttons, in one order.
    assert len(heads) == 1 and set(next(iter(heads))) == common, offered
