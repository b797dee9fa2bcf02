"""Issue 22 item 12: the rulesets that declare before they resolve list what stands
declared (``Ruleset.declared``), for the map's ghost arrows; the others list nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tacmap.cli import read_script
from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import Act, Command, EndTurn, RemoveToken, SetHp
from tacmap.engine.play.autoplay import Driver, EveryOption
from tacmap.engine.play.narrate import line, sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import Declared

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DEMOS = {records.parse(p.read_bytes())["ruleset"]["id"]: p
         for p in sorted(RESOURCES.glob("*.tacmap"), reverse=True)}


def demo(registry: Registry, name: str, script: str, seed: int) -> tuple[Referee, list[Command]]:
    loaded = storage.load(RESOURCES / name, registry)
    loaded.state.seed = seed
    ref = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    return ref, [cmd for _, cmd in read_script(str(RESOURCES / script))]


def test_six_phase_lists_each_declaration_until_its_phase_resolves(registry: Registry) -> None:
    ref, steps = demo(registry, "six_phase_demo.tacmap", "six_phase_demo-three-rounds.jsonl", 4)
    rules = ref.ruleset
    ref.execute(steps[0])  # start combat: nothing declared yet
    assert rules.declared(ref.state) == []
    ref.execute(steps[1])  # Mialee declares a Firebolt at Gruk (cast in phase 5)
    ref.execute(steps[2])  # Regdar declares a move
    assert rules.declared(ref.state) == [
        Declared("regdar", "move to (10,6)", to=(10, 6)),
        Declared("mialee", "cast Firebolt at Gruk the orc chief (bolt, torso)",
                 target="gruk"),
    ]
    assert ref.state.tokens["regdar"].cell == (6, 6)  # declared, not moved
    for cmd in steps[3:8]:
        ref.execute(cmd)
    # Movement resolved: the moves are gone, the spell still waits for phase 5.
    assert [d.actor for d in rules.declared(ref.state)] == ["mialee"]
    assert all(d.public for d in rules.declared(ref.state))


def test_reflex_lists_a_locked_declaration_until_its_actor_acts(registry: Registry) -> None:
    ref, steps = demo(registry, "reflex_demo.tacmap", "reflex_demo-two-rounds.jsonl", 27)
    ref.execute(steps[0])
    entry_events = ref.execute(steps[1])  # Gorm declares an axe attack on Bram
    assert Declared("gorm", "attack Bram with the axe", target="bram") in \
        ref.ruleset.declared(ref.state)
    assert sentence(ref.state, steps[1], entry_events).startswith("Gorm the Brute declares: ")
    # The others act; Gorm (lowest RFX) acts last and swings: still standing until his
    # turn ends, then the round is over and nothing stands declared.
    rest = steps[2:]
    attack = next(i for i, c in enumerate(rest)
                  if getattr(c, "actor", "") == "gorm" and type(c).__name__ == "Attack")
    for cmd in rest[:attack + 1]:
        ref.execute(cmd)
    assert [d.actor for d in ref.ruleset.declared(ref.state)] == ["gorm"]
    ref.execute(rest[attack + 1])  # Gorm ends his turn: the round is over
    assert ref.ruleset.declared(ref.state) == []


def test_a_ruleset_that_acts_at_once_declares_nothing(registry: Registry) -> None:
    ref, steps = demo(registry, "speed_rank_demo.tacmap", "speed_rank_demo-three-rounds.jsonl", 3)
    for cmd in steps[:4]:
        ref.execute(cmd)
        assert ref.ruleset.declared(ref.state) == []


def test_six_phase_drops_the_declaration_of_a_removed_token(registry: Registry) -> None:
    """Issue 34 item 4: End turn went on refusing "there is no token 'ana'"."""
    from tests.rulesets.six_phase.test_six_phase import melee_phase

    ref = melee_phase(registry)
    ref.execute(Act("ana", "melee", "brak", "thrust/torso"))
    removal = RemoveToken("ana")
    said = "\n".join(line(ref.state, e) for e in ref.execute(removal))
    assert "Ana's declaration is dropped (attack Brak (thrust, torso))" in said
    assert ref.ruleset.declared(ref.state) == []
    round_before = ref.state.round
    ref.execute(EndTurn("brak"))  # the last one due: the phase goes on, no refusal
    assert ref.state.tokens["brak"].alive
    while ref.state.round == round_before:
        ref.execute(EndTurn())
    ref.undo()
    while ref.log and not isinstance(ref.log[-1].command, RemoveToken):
        ref.undo()
    ref.undo()  # the removal: Ana and her declaration are back
    assert "ana" in ref.state.tokens
    assert [d.actor for d in ref.ruleset.declared(ref.state)] == ["ana"]


def test_six_phase_drops_a_spell_whose_caster_fell_before_phase_5(registry: Registry) -> None:
    """A declaration of a token out of the fight is dropped with a line, never rolled."""
    ref, steps = demo(registry, "six_phase_demo.tacmap", "six_phase_demo-three-rounds.jsonl", 4)
    ref.execute(steps[0])
    ref.execute(steps[1])  # Mialee declares a Firebolt at Gruk (cast in phase 5)
    ref.execute(SetHp("mialee", -30))
    assert not ref.state.tokens["mialee"].alive
    lines: list[str] = []
    while ref.state.round == 1:
        cmd = EndTurn()
        lines += [line(ref.state, e) for e in ref.execute(cmd)]
    said = "\n".join(lines)
    assert "Mialee's declaration is dropped (cast Firebolt at Gruk" in said
    assert "Firebolt" not in said.split("Mialee is out of the fight")[1]


@pytest.mark.parametrize("ruleset_id", sorted(DEMOS))
def test_removing_a_token_mid_round_never_stalls_the_fight(registry: Registry,
                                                           ruleset_id: str) -> None:
    """Whoever is removed (one with a standing declaration first), the fight goes on."""
    for seed in range(3):
        loaded = storage.load(DEMOS[ruleset_id], registry)
        ref = Referee(loaded.state, registry.get(ruleset_id))
        rng = random.Random(seed)
        driver = Driver(ref, EveryOption(random.Random(seed)), rng)
        driver.start()
        for _ in range(rng.randrange(2, 25)):
            driver.step()
        standing = ref.ruleset.declared(ref.state)
        victim = standing[0].actor if standing else \
            ref.ruleset.whose_turn(ref.state) or next(iter(ref.state.tokens))
        ref.execute(RemoveToken(victim))
        after = Driver(ref, EveryOption(random.Random(seed + 1)), rng)
        first = ref.state.round
        while ref.state.round < first + 2 and after.tally.steps < 600:
            assert after.step()
        assert ref.state.round == first + 2
        assert not [p for p in after.tally.problems if "no token" in p], (seed, victim)


def test_reflex_drops_the_declaration_of_a_removed_token(registry: Registry) -> None:
    ref, steps = demo(registry, "reflex_demo.tacmap", "reflex_demo-two-rounds.jsonl", 27)
    ref.execute(steps[0])
    ref.execute(steps[1])  # Gorm declares an axe attack on Bram
    said = "\n".join(line(ref.state, e) for e in ref.execute(RemoveToken("gorm")))
    assert "Gorm the Brute is removed from the map: its declaration is dropped " \
           "(attack Bram with the axe)" in said
    assert "gorm" not in ref.state.schedule.order.declare_order  # type: ignore[union-attr]
