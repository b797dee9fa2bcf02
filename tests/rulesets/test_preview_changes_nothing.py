"""Issue 34 items 5 and 6: a preview never changes the encounter, down to the file's bytes.

Each built-in ruleset's demo is played a few seeded steps, then the GM edits it
through the token menu (conditions ticked, damage dealt), reaching states the
rules alone would not; every option offered to the acting token is previewed
(aimed wherever the window would aim it) with End turn, and the saved bytes
must not move.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import AdjustHp, Command, EndTurn, SetCondition
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import ConditionChanged
from tacmap.engine.play.autoplay import Driver, EveryOption
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DEMOS = {records.parse(p.read_bytes())["ruleset"]["id"]: p
         for p in sorted(RESOURCES.glob("*.tacmap"), reverse=True)}
#: Conditions the GM's menu offers in one ruleset or another (it lists those seen).
CONDITIONS = ("falling", "incapacitated", "unconscious", "prone", "stunned", "fleeing",
              "disarmed", "asleep", "weapon stuck", "grappled", "staggered", "dodging")


def gm_edits(referee: Referee, rng: random.Random) -> None:
    """The GM's token-menu edits on about half the tokens: damage to 0 HP or below, and
    conditions ticked on top of what a token has (those the log has seen first, as the
    menu lists them); one the referee refuses changes nothing and is skipped."""
    seen = sorted({e.condition for entry in referee.log for e in entry.events
                   if isinstance(e, ConditionChanged)})
    for tid in sorted(referee.state.tokens):
        token = referee.state.tokens[tid]
        edits: list[Command] = []
        if rng.random() < 0.3:
            edits.append(AdjustHp(tid, -max(1, token.hp + rng.randint(0, 8))))
        if rng.random() < 0.6:
            for _ in range(rng.randint(1, 2)):
                names = seen if seen and rng.random() < 0.6 else CONDITIONS
                edits.append(SetCondition(tid, rng.choice(names), True))
        for cmd in edits:
            with contextlib.suppress(RuleError):
                referee.execute(cmd)


def preview_everything(referee: Referee, driver: Driver) -> int:
    """Preview every option offered to the acting token, aimed, and End turn."""
    state, ruleset = referee.state, referee.ruleset
    count = 0
    for cmd in (EndTurn(),):
        referee.preview(cmd)
        count += 1
    actor = ruleset.whose_turn(state)
    if actor is None or actor not in state.tokens:
        return count
    referee.preview(EndTurn(actor))
    for option in ruleset.actions_for(state, actor):
        driver.table.aim(actor, option)  # previews each aim it tries
        count += 1
    return count


@pytest.mark.parametrize("ruleset_id", sorted(DEMOS))
def test_previewing_every_option_after_gm_edits_leaves_the_bytes_alone(
        registry: Registry, ruleset_id: str) -> None:
    previewed = 0
    for seed in range(4):
        loaded = storage.load(DEMOS[ruleset_id], registry)
        referee = Referee(loaded.state, registry.get(ruleset_id))
        rng = random.Random(f"{ruleset_id}-{seed}")
        driver = Driver(referee, EveryOption(random.Random(seed)), rng)
        driver.start()
        for _ in range(rng.randrange(0, 30)):
            driver.step()
        gm_edits(referee, rng)
        for _ in range(3):
            before = storage.encode(referee.state, referee.log)
            previewed += preview_everything(referee, driver)
            assert storage.encode(referee.state, referee.log) == before, (seed, ruleset_id)
            driver.step()
    assert previewed > 10
