"""Small builders shared by the engine tests."""

from __future__ import annotations

from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry


def skirmish_state(seed: int = 5) -> Encounter:
    """Two heroes and two orcs on a 12×10 map with one wall, combat not started."""
    state = Encounter(ruleset="skirmish", ruleset_version="1.0", map=MapSpec(12, 10), seed=seed)
    state.map.walls = (Wall(((6, 0), (6, 4))),)
    for t in [
        Token("ana", "Ana", "party", 1, 1, stats={"atk": 4}),
        Token("bo", "Bo", "party", 1, 3, stats={"atk": 2}),
        Token("grul", "Grul", "orcs", 2, 1, hp=6, max_hp=6, stats={"ac": 12}),
        Token("zog", "Zog", "orcs", 8, 3, hp=6, max_hp=6, size=2, stats={"ac": 11, "reach": 2}),
    ]:
        state.tokens[t.id] = t
    return state


def skirmish_referee(registry: Registry, seed: int = 5) -> Referee:
    """A referee on ``skirmish_state``."""
    return Referee(skirmish_state(seed), registry.get("skirmish"))


def examples(sample: int) -> int:
    """Hypothesis examples for a probe test: ``sample`` with the suite; as many as
    ``TACMAP_PROBE_EXAMPLES`` says for a full probe run (issue 33), e.g.
    ``TACMAP_PROBE_EXAMPLES=11432 pytest tests/engine/test_hostile_fuzz.py``."""
    import os

    return int(os.environ.get("TACMAP_PROBE_EXAMPLES", sample))
