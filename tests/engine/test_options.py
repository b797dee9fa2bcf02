"""``command_for``: every option a ruleset offers becomes the command it stands for."""

from __future__ import annotations

import copy
import doctest
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import Act, Attack, Command, EndTurn, Move, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules import options
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import ActionOption

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def test_the_docstring_examples_hold() -> None:
    result = doctest.testmod(options)
    assert result.attempted >= 3 and result.failed == 0


def test_attack_names_the_weapon_of_its_detail() -> None:
    offered = ActionOption("attack", "Attack (axe)", "token", detail="axe")
    assert command_for("ana", offered, "brak") == Attack("ana", "brak", "axe")
    assert command_for("ana", ActionOption("attack", "Attack", "token"), "brak") \
        == Attack("ana", "brak")


def test_end_turn_is_the_actor_ending_their_own_turn() -> None:
    assert command_for("ana", ActionOption("end_turn", "End turn")) == EndTurn("ana")


def test_a_move_goes_along_the_dragged_path_and_needs_one() -> None:
    offered = ActionOption("move", "Move", "cell")
    assert command_for("ana", offered, path=[(2, 3), (4, 3)]) == Move("ana", ((2, 3), (4, 3)))
    with pytest.raises(ValueError, match="path"):
        command_for("ana", offered)


@pytest.mark.parametrize(("key", "target", "detail"), [
    ("prepare:dodge", "brak", ""),
    ("prepare:attack:leaves_reach", "brak", ""),
    ("wield:club", "", ""),
    ("mighty_blow", "brak", ""),
    ("cast", "brak", "magic_missile"),
    ("sprint", "", ""),
    ("skill", "", "climb the wall"),
])
def test_every_other_key_is_an_act_with_its_target_and_detail(key: str, target: str,
                                                              detail: str) -> None:
    offered = ActionOption(key, key, "token" if target else "none", detail=detail)
    assert command_for("ana", offered, target) == Act("ana", key, target, detail)


def started(registry: Registry, name: str) -> Referee:
    loaded = storage.load(RESOURCES / name, registry)
    referee = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    referee.execute(StartCombat())
    return referee


def aimed(referee: Referee, actor: str, option: ActionOption) -> Command:
    """The command for ``option``, aimed as the window would: an enemy, or one cell on."""
    state = referee.state
    me = state.tokens[actor]
    enemy = next(t.id for t in state.tokens.values() if t.side != me.side)
    if option.key == "move":
        return command_for(actor, option, path=[(me.x + 1, me.y)])
    return command_for(actor, option, enemy if option.target == "token" else "")


@pytest.mark.parametrize("demo", ["demo.tacmap", "speed_rank_demo.tacmap"])
def test_every_offered_option_is_a_command_its_ruleset_knows(registry: Registry,
                                                             demo: str) -> None:
    referee = started(registry, demo)
    seen = set()
    for actor in referee.state.tokens:
        for option in referee.ruleset.actions_for(referee.state, actor):
            seen.add(option.key)
            cmd = aimed(referee, actor, option)
            # It is a record the log can keep: it goes to JSON and back unchanged.
            assert records.decode(records.encode(cmd), Command) == cmd
            # And the ruleset takes it up: it may say "not now", never "no such action".
            trial = Referee(copy.deepcopy(referee.state), referee.ruleset)
            try:
                trial.execute(cmd)
            except RuleError as err:
                assert "no action" not in str(err), (option, err)
    assert {"attack", "move", "end_turn"} <= seen


def test_an_option_with_choices_and_a_prompt_sends_the_picked_values_then_the_words() -> None:
    """Issue 26: the odds card picks "when", the GM's words say what ("a/b" stays whole)."""
    offered = ActionOption("prepare:skill", "Prepare: a skill", "token", prompt="Which skill?",
                           choices=(("Test", ("no test", "DT 2")),
                                    ("When", ("attacks me", "leaves my reach"))),
                           detail="no test/attacks me/")
    assert options.asked_words(offered) == ""
    worded = options.with_words(offered, "Athletics: climb/jump")
    assert worded.detail == "no test/attacks me/Athletics: climb/jump"
    assert options.asked_words(worded) == "Athletics: climb/jump"
    picked = options.with_words(worded, options.asked_words(worded), "DT 2/leaves my reach")
    assert command_for("ana", picked, "brak") == Act(
        "ana", "prepare:skill", "brak", "DT 2/leaves my reach/Athletics: climb/jump")
