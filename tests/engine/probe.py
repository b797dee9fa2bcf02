"""Random GM sessions on every shipped demo (issue 33): play, GM overrides with wild values,
and after every command the encounter is written and read back as a file.

A session ends with one of: ``ok``; ``unreadable`` (tacmap wrote a file it then refuses);
``differs`` (the file reads back as another encounter); ``crash`` (an error that is not a
refusal in one sentence). The test suite runs a small seeded sample
(``tests/engine/test_stateful.py``); the full run is::

    python -m tests.engine.probe --full          # 4,000 sessions, minutes
    python -m tests.engine.probe --sessions 50   # any number
"""

from __future__ import annotations

import argparse
import random
import sys
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tacmap.engine.files import storage
from tacmap.engine.model.commands import AdjustHp, Command, SetHp, SetValue, StartCombat
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.records import LIMIT, MAX_ITEMS
from tacmap.engine.play.autoplay import Driver, EveryOption
from tacmap.engine.play.gm import MAX_HP_CHANGE
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

RESOURCES = Path(__file__).parents[2] / "resources"
DEMOS = sorted(RESOURCES.glob("*.tacmap"))
FULL = 4_000
#: Tracked values the rulesets read (their ``[values.*]`` are added), and a GM's note.
KEYS = ("pool", "faces", "spells_cast", "dropped", "wounds", "notches", "off_course", "acted",
        "moved", "bonus", "abstain", "no_return", "withdrawing", "initiator", "stopped",
        "stamina", "grappled_with", "stuck_in", "stunned_until", "note")


@dataclass
class Outcome:
    """How one session ended, and where."""

    kind: str
    """ok, unreadable, differs or crash."""
    detail: str = ""
    """The sentence or the error, with the demo, the seed and the step."""


def wild_value(rng: random.Random) -> Any:
    """A value a GM might type into Set value: fitting, mistyped, at and past the limits."""
    return rng.choice([
        None, True, False, 0, 3, -1, 500, 1000, LIMIT, LIMIT + 1, -LIMIT, 1e300, 2.5, "x", "",
        "an arrow in the knee", (), (1, 2), ("a", "b"), (("Arrow", "leg", 0),), (("x",),),
        {"sword": 1}, {"sword": "x"}, tuple(range(MAX_ITEMS + 1)), (0,) * 50,
    ])


def gm_command(rng: random.Random, referee: Referee) -> Command:
    """One of the GM's overrides on a random token, with a random or extreme number."""
    state, rules = referee.state, referee.ruleset
    token = rng.choice(list(state.tokens))
    keys = sorted({f.key for f in rules.value_block.fields} | set(KEYS))
    pick = rng.randrange(4)
    if pick == 0:
        return SetHp(token, rng.choice([-LIMIT, LIMIT, -LIMIT + 2, 0, rng.randint(-20, 40)]))
    if pick == 1:
        return AdjustHp(token, rng.choice([-MAX_HP_CHANGE, MAX_HP_CHANGE, -5, 5, -1]))
    if pick == 2:
        return SetValue(token, rng.choice(keys), wild_value(rng))
    return StartCombat()


def reopen(referee: Referee, registry: Registry) -> Outcome | None:
    """Write the encounter as a file and read it back: None when it comes back the same."""
    try:
        text = storage.encode(referee.state, referee.log)
    except InputError as err:  # refused in a sentence: the GM keeps the old file
        return Outcome("unwritable", str(err))
    try:
        loaded = storage.loads(text, registry)
    except InputError as err:
        return Outcome("unreadable", str(err))
    if loaded.state != referee.state:
        return Outcome("differs", "the state read back differs from the state saved")
    return None


def session(seed: int, registry: Registry, steps: int = 40) -> Outcome:
    """One GM session on a demo chosen by ``seed``: play and overrides, each reopened."""
    rng = random.Random(f"probe-{seed}")
    demo = rng.choice(DEMOS)
    loaded = storage.load(demo, registry)
    referee = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    driver = Driver(referee, EveryOption(random.Random(rng.random())), rng, fog=False)
    where = f"{demo.name}, seed {seed}"
    for n in range(1, steps + 1):
        try:
            if rng.random() < 0.4:
                referee.execute(gm_command(rng, referee))
            elif referee.ruleset.turn_order(referee.state) is not None:
                driver.step()
            else:
                driver.start()
        except RuleError:
            pass  # refused in one sentence, nothing changed
        except Exception as err:  # what the probe is looking for
            frame = traceback.extract_tb(err.__traceback__)[-1]
            return Outcome("crash", f"{where}, step {n}: {type(err).__name__}: {err} "
                                    f"({Path(frame.filename).name}:{frame.lineno})")
        bad = reopen(referee, registry)
        if bad is not None:
            return Outcome(bad.kind, f"{where}, step {n}: {bad.detail}")
    return Outcome("ok")


def run(sessions: int, first: int = 0, say: Callable[[str], object] = print) -> Counter[str]:
    """Run ``sessions`` sessions from seed ``first``; print each that is not ok."""
    registry = Registry()
    kinds: Counter[str] = Counter()
    for seed in range(first, first + sessions):
        outcome = session(seed, registry)
        kinds[outcome.kind] += 1
        if outcome.kind != "ok":
            say(f"{outcome.kind}: {outcome.detail}")
    return kinds


def main(argv: list[str] | None = None) -> int:
    """The command line: ``--full`` or ``--sessions N``; exit 1 if any session was not ok."""
    parser = argparse.ArgumentParser(prog="python -m tests.engine.probe", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help=f"{FULL:,} sessions")
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    args = parser.parse_args(argv)
    kinds = run(FULL if args.full else args.sessions, args.first)
    print(", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())))
    return 0 if set(kinds) <= {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
