"""Issue 22 item 12: the rulesets that declare before they resolve list what stands
declared (``Ruleset.declared``), for the map's ghost arrows; the others list nothing."""

from __future__ import annotations

from pathlib import Path

from tacmap.cli import read_script
from tacmap.engine.files import storage
from tacmap.engine.model.commands import Command
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import Declared

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


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
