"""Commands read as sentences with names, and reactions are picked out of the events."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from tacmap.engine.files.storage import load
from tacmap.engine.model import commands as commands_module
from tacmap.engine.model.commands import (
    Act,
    AddToken,
    AddTokens,
    AdjustHp,
    Attack,
    Command,
    EditFog,
    EditToken,
    EndTurn,
    FreeMove,
    Move,
    MoveGroup,
    PlaceTemplate,
    Rebalance,
    RemoveTemplate,
    RemoveToken,
    RemoveTokens,
    RenameEncounter,
    Reorder,
    RollDice,
    SetCondition,
    SetDiagonal,
    SetDoor,
    SetFog,
    SetHouseRule,
    SetHp,
    SetMapImage,
    SetParty,
    SetValue,
    SetWalls,
    StartCombat,
)
from tacmap.engine.model.events import Said, ScheduleChanged, TokenRemoved
from tacmap.engine.model.state import Encounter, MapSpec, Template, Token, Wall
from tacmap.engine.play.narrate import reactions, sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.schedule import OrderedTurns
from tests.engine.helpers import skirmish_state


def demo() -> Encounter:
    state = Encounter(ruleset="skirmish", map=MapSpec(20, 20))
    for t in (Token("aldric", "Ser Aldric", "heroes", 4, 9),
              Token("barry", "Barry", "bandits", 14, 9, hp=8, max_hp=8),
              Token("grell", "Grell", "bandits", 16, 11)):
        state.tokens[t.id] = t
    return state


STATE = demo()

#: One example of every command type in tacmap/engine/model/commands.py, and what it reads as.
SENTENCES: list[tuple[Command, str]] = [
    (Move("aldric", ((10, 9),)), "Ser Aldric moves to (10, 9)"),
    (Move("aldric", ((8, 9), (10, 9))), "Ser Aldric moves to (10, 9) by way of (8, 9)"),
    (Attack("aldric", "barry"), "Ser Aldric attacks Barry"),
    (Attack("aldric", "barry", "short_bow"), "Ser Aldric attacks Barry with the short bow"),
    (Act("aldric", "prepare:dodge", "barry"), "Ser Aldric uses prepare dodge on Barry"),
    (Act("grell", "long_action"), "Grell uses long action"),
    (Act("grell", "cast", "barry", "magic_missile"),
     "Grell uses cast on Barry: magic missile"),
    (StartCombat(), "Combat starts"),
    (StartCombat(("barry", "aldric")), "Combat starts: Barry, Ser Aldric"),
    (EndTurn("grell"), "Grell ends the turn"),
    (EndTurn(), "The turn ends"),
    (FreeMove("aldric", (13, 9)), "GM moves Ser Aldric to (13, 9)"),
    (SetHp("barry", 4), "GM sets Barry's hit points to 4"),
    (SetValue("barry", "pool", 3), "GM sets Barry's pool to 3"),
    (SetValue("barry", "actions_left", None), "GM clears Barry's actions left"),
    (SetCondition("barry", "prone"), "GM makes Barry prone"),
    (SetCondition("barry", "prone", on=False), "GM takes prone off Barry"),
    (Reorder(("grell", "aldric", "barry")), "GM reorders the turns: Grell, Ser Aldric, Barry"),
    (SetMapImage("keep.png", (1.0, 2.0), 0.02),
     "GM places the map image (keep.png) at (1 m, 2 m), 0.02 m a pixel"),
    (SetMapImage(None), "GM removes the map image"),
    (SetMapImage("keep.png", locked=True), "GM locks the map image"),
    (SetMapImage("keep.png", locked=False), "GM unlocks the map image"),
    (AddToken(Token("pip", "Pip", "bandits", 18, 5)), "GM adds Pip (bandits) at (18, 5)"),
    (RemoveToken("grell"), "GM removes Grell"),
    (EditToken(Token("barry", "Barry the Guard", "bandits", 14, 9)), "GM edits Barry"),
    (SetWalls((Wall(((0, 0), (4, 0))), Wall(((5, 5), (6, 5), (6, 6)), closed=True))),
     "GM changes the walls: 1 wall and 1 obstacle"),
    (SetWalls(()), "GM changes the walls: none left"),
    (SetDiagonal("chebyshev"), "GM sets the diagonal rule to chebyshev"),
    (RenameEncounter("The Gate"), "GM renames the encounter “The Gate”"),
    (SetParty("heroes"), "GM makes heroes the players' side"),
    (PlaceTemplate(Template("cone", (3, 4), 6, (9, 4)), "Burning hands"),
     "GM places Burning hands (cone, length 6, 90°)"),
    (RemoveTemplate("t1"), "GM takes t1 off the map"),
    (Act("grell", "cast", "", "fireball", Template("circle", (12, 5), 4)),
     "Grell uses cast at (12, 5) (circle, radius 4): fireball"),
    # Issue 36 item 18: the Last result's title read 'Lio uses "strike" (next-tier dice
    # (2d10)) on Grell'.
    (Act("grell", "strike", "barry", "next-tier dice (2d10)"),
     "Grell uses strike on Barry: next-tier dice (2d10)"),
    (SetDoor(0, True), "Door 1 opens"),  # the example map has no walls: named by number
    (SetDoor(0, False), "Door 1 closes"),
    (SetFog(True), "GM turns fog of war on"),
    (EditFog(((2, 3), (6, 3), (6, 5)), reveal=False), "GM hides an area from (2, 3) to (6, 5)"),
    (RollDice("2d6+3"), "GM rolls 2d6+3"),
    (RollDice("d20", public=False), "GM rolls d20 (GM only)"),
    (AdjustHp("grell", -6), "GM deals 6 damage to Grell"),
    (AdjustHp("grell", 4), "GM heals Grell by 4"),
    (MoveGroup((("grell", (3, 3)), ("aldric", (4, 3)))), "GM moves Grell and Ser Aldric together"),
    (AddTokens((Token("g2", "Goblin 2", "foes", 1, 1), Token("g3", "Goblin 3", "foes", 2, 1))),
     "GM adds Goblin 2 and Goblin 3"),
    (RemoveTokens(("grell",)), "GM removes Grell"),
    (Rebalance(add=(Token("g2", "Goblin 2", "foes", 1, 1),), remove=("grell",),
               edit=(Token("kara", "Kara", "party", 1, 1, hp=20, max_hp=20),)),
     "GM balances the encounter: adds Goblin 2; removes Grell; Kara's maximum hit points set "
     "to 20 HP"),
    (SetHouseRule("surprise_criticals", "allowed"),
     "GM sets the house rule surprise criticals to allowed"),
]


@pytest.mark.parametrize(("command", "expected"), SENTENCES,
                         ids=[f"{type(c).__name__}-{i}" for i, (c, _) in enumerate(SENTENCES)])
def test_every_command_reads_as_a_sentence(command: Command, expected: str) -> None:
    assert sentence(STATE, command) == expected


def test_every_command_type_has_an_example() -> None:
    types = {cls for _, cls in inspect.getmembers(commands_module, inspect.isclass)
             if issubclass(cls, Command) and cls is not Command}
    assert types <= {type(c) for c, _ in SENTENCES}


def test_no_sentence_looks_like_command_syntax() -> None:
    for command, _ in SENTENCES:
        text = sentence(STATE, command)
        assert "=" not in text and "[[" not in text and "actor" not in text


def test_an_unknown_id_stands_for_itself() -> None:
    assert sentence(STATE, Attack("aldric", "ghost")) == "Ser Aldric attacks ghost"
    assert sentence(STATE, SetHp("ghost", 1)) == "GM sets ghost's hit points to 1"


def test_a_removed_token_is_named_from_its_events() -> None:
    state = demo()
    gone = state.tokens.pop("grell")
    events = (TokenRemoved(gone, 2),)
    assert sentence(state, RemoveToken("grell")) == "GM removes grell"
    assert sentence(state, RemoveToken("grell"), events) == "GM removes Grell"


def test_who_ended_the_turn_is_read_from_the_schedule_it_left() -> None:
    old = OrderedTurns.start(("grell", "aldric"))
    events = (ScheduleChanged(old, old.end_turn(), "Ser Aldric's turn"),)
    assert sentence(STATE, EndTurn(), events) == "Grell ends the turn"


@dataclass(frozen=True)
class RallyTroops:
    """A ruleset's own command (not registered, not known to narrate)."""

    actor: str
    target: str = ""


def test_a_ruleset_command_reads_as_its_type_in_words() -> None:
    rally = cast(Command, RallyTroops("grell", "barry"))
    assert sentence(STATE, rally) == "Grell: rally troops on Barry"
    assert sentence(STATE, cast(Command, RallyTroops("ghost"))) == "ghost: rally troops"


def test_a_log_of_a_real_fight_reads_as_sentences(registry: Registry) -> None:
    referee = Referee(skirmish_state(), registry.get("skirmish"))
    referee.execute(StartCombat(("ana", "grul", "bo", "zog")))
    referee.execute(Move("ana", ((1, 2),)))
    referee.execute(EndTurn())
    lines = [sentence(referee.state, e.command, e.events) for e in referee.log]
    assert lines == ["Combat starts: Ana, Grul, Bo, Zog", "Ana moves to (1, 2)",
                     "Ana ends the turn"]


def test_reactions_are_the_other_tokens_lines_that_say_they_react() -> None:
    events = (
        Said("the attack hits: 2 successes", "aldric"),
        Said('Barry reacts with Riposte: "when Ser Aldric attacks me"', "barry"),
        Said("Riposte misses: 1 success against DT 3", "barry"),
        Said("Grell's prepared action fires: \"attack when the target leaves my reach\"",
             "grell"),
        Said("Barry drops at 0 HP and is out of the fight", "barry"),
    )
    found = reactions(STATE, Attack("aldric", "barry"), events)
    assert [(r.token, r.short) for r in found] == [("barry", "Riposte!"),
                                                   ("grell", "Prepared action!")]
    assert found[0].text == ('Barry reacts with Riposte: "when Ser Aldric attacks me" — '
                             "Riposte misses: 1 success against DT 3")


def test_the_actor_does_not_react_to_itself() -> None:
    events = (Said("Ser Aldric reacts with Riposte: oddly", "aldric"),)
    assert reactions(STATE, Attack("aldric", "barry"), events) == []


def test_an_opportunity_attack_in_the_action_pool_rules_is_a_reaction() -> None:
    registry = Registry()
    state = load(Path(__file__).resolve().parents[2] / "resources" / "demo.tacmap",
                 registry).state
    referee = Referee(state, registry.get("action_pool"))
    referee.execute(FreeMove("mott", (5, 9)))  # Mott (Opportunist) beside Ser Aldric
    referee.execute(StartCombat())
    move = Move("aldric", ((4, 11),))
    events = referee.execute(move)
    found = reactions(referee.state, move, events)
    assert [(r.token, r.short) for r in found] == [("mott", "Opportunist!")]
    assert found[0].text.startswith("Mott reacts with Opportunist")
