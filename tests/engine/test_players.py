"""The player filter: no secret reaches the players' report, in any ruleset, from any kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.files.report import fight, page
from tacmap.engine.model.commands import AdjustHp, Command, SetHp
from tacmap.engine.model.events import Event
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.play.referee import Entry, Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine import planted
from tests.engine.test_report import checked

RESOURCES = Path(__file__).parents[2] / "resources"
DEMOS = {"action_pool": "demo", "opposed": "opposed_demo", "reflex": "reflex_demo",
         "six_phase": "six_phase_demo", "speed_rank": "speed_rank_demo"}
#: The rulesets' own commands and events are subclasses only once they are loaded.
_LOADED = Registry([], warn=lambda msg: None)
for _id in DEMOS:
    _LOADED.get(_id)
KINDS = planted.every_kind(Command) + planted.every_kind(Event)


def demo(registry: Registry, ruleset: str) -> Encounter:
    """The ruleset's shipped demo encounter."""
    return storage.load(RESOURCES / f"{DEMOS[ruleset]}.tacmap", registry).state


def players_text(state: Encounter, log: list[Entry], registry: Registry, ruleset: str) -> str:
    """The players' report of ``log`` ending at ``state``, as the text a browser shows."""
    rules = registry.get(ruleset)
    f = fight(state, log, False, rules.out_of_fight, rules.secret_conditions())
    return " ".join(checked(page(f, rules.manifest.name, "1 May 2026")).text)


def test_every_kind_is_found() -> None:
    names = {k.__name__ for k in KINDS}
    assert {"SetHp", "AdjustHp", "RollDice", "Run", "HpChanged", "Said", "GmRolled"} <= names


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("ruleset", sorted(DEMOS))
def test_no_secret_reaches_the_players_report(registry: Registry, ruleset: str,
                                              kind: type) -> None:
    rules = registry.get(ruleset)
    secret = rules.secret_conditions() or frozenset({planted.SCHEMING})
    for what in planted.SECRETS:
        start, plant = planted.stage(demo(registry, ruleset), what, secret)
        log = list(planted.entries(kind, plant))
        end = planted.played(start, log)
        f = fight(end, log, False, rules.out_of_fight, secret)
        text = " ".join(checked(page(f, rules.manifest.name, "1 May 2026")).text)
        assert planted.leaks(text, plant) == [], (what, text[-600:])


def test_gm_hit_point_commands_tell_the_players_the_damage_only(registry: Registry) -> None:
    state = demo(registry, "action_pool")
    referee = Referee(state, registry.get("action_pool"))
    for command in (AdjustHp("barry", -5), SetHp("grell", 7), AdjustHp("aldric", -3)):
        referee.execute(command)
    text = players_text(referee.state, list(referee.log), registry, "action_pool")
    assert "GM deals 5 damage to Barry the Guard" in text
    assert "34 → 29" not in text and "29 HP" not in text
    assert "GM changes Grell the Chief's hit points" in text and "to 7" not in text
    assert "GM deals 3 damage to Ser Aldric: 28 → 25 HP" in text  # the party's own


@pytest.mark.parametrize(("said", "shown"), [
    ("Skulk drops at -1 HP and is out of the fight", "Skulk drops and is out of the fight"),
    ("Orc: Wound: broken arm (arm, reduced to 0 HP)", "Orc: Wound: broken arm (arm, reduced)"),
    ("Barry the Guard takes 5 damage (damage): 34 → 29 HP",
     "Barry the Guard takes 5 damage (damage)"),
    ("Barry the Guard is edited: hp 34 → 29; side bandits → heroes",
     "Barry the Guard is edited; side bandits → heroes"),
])
def test_a_rulesets_own_words_lose_an_enemys_hit_points(registry: Registry, said: str,
                                                        shown: str) -> None:
    players = PlayerFilter(demo(registry, "action_pool"))
    assert players.line(said, {"barry"}) == shown
    assert players.line(said, ()) == shown  # about nobody in particular: figures go too


def test_the_partys_own_hit_points_stay(registry: Registry) -> None:
    players = PlayerFilter(demo(registry, "action_pool"))
    said = "Wren drops at 0 HP and is out of the fight"
    assert players.line(said, {"wren"}) == said
    assert players.line(said, {"wren", "barry"}) == "Wren drops and is out of the fight"


@pytest.mark.parametrize(("ruleset", "changes", "told", "secret"), [
    ("reflex", (-27,), "Gorm the Brute drops and is out of the fight", "drops at -1 HP"),
    ("six_phase", (-5, -13), "Gruk the orc chief: Wound: ", "reduced to 0 HP"),
])
def test_an_enemy_dropped_by_the_gm_is_told_without_its_hit_points(
        registry: Registry, ruleset: str, changes: tuple[int, ...], told: str,
        secret: str) -> None:
    state = demo(registry, ruleset)
    enemy = next(t for t in state.tokens.values() if told.startswith(t.name))
    referee = Referee(state, registry.get(ruleset))
    for change in changes:
        referee.execute(AdjustHp(enemy.id, change))
    assert secret in " ".join(e.text(referee.state) for e in referee.log[-1].events)  # the GM's
    text = players_text(referee.state, list(referee.log), registry, ruleset)
    assert told in text and secret not in text
    assert f"→ {referee.state.tokens[enemy.id].hp} HP" not in text


def test_a_visible_token_named_like_a_hidden_one_is_still_told(registry: Registry) -> None:
    state = demo(registry, "action_pool")
    state.tokens["pip"].hidden = True
    state.tokens["mott"].name = "Pip 2"
    players = PlayerFilter(state)
    assert players.line("Pip 2 attacks Wren", {"mott", "wren"}) == "Pip 2 attacks Wren"
    assert players.line("Pip attacks Wren", {"pip", "wren"}) is None
