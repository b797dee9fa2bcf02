"""Hypothesis drives random command sequences through the referee (DESIGN §8).

After every step: the state is valid, replaying the log from the start gives
the live state, undo then redo is the identity, and save then load gives the
same state.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tacmap.engine import storage
from tacmap.engine.commands import (
    AddToken,
    Attack,
    Command,
    EndTurn,
    FreeMove,
    Move,
    RemoveToken,
    SetHp,
    StartCombat,
)
from tacmap.engine.dice import SeededDice
from tacmap.engine.errors import RuleError
from tacmap.engine.events import DiceRolled
from tacmap.engine.referee import Referee, replay
from tacmap.engine.ruleset import Registry
from tacmap.engine.state import Token
from tests.conftest import TEST_RULESETS
from tests.engine.helpers import skirmish_state

REGISTRY = Registry([TEST_RULESETS], warn=lambda msg: None)
IDS = ["ana", "bo", "grul", "zog", "imp"]
cells = st.tuples(st.integers(0, 11), st.integers(0, 9))


class Table(RuleBasedStateMachine):
    """A GM (and players) clicking at random."""

    def __init__(self) -> None:
        super().__init__()
        self.start = skirmish_state(seed=11)
        self.ref = Referee(copy.deepcopy(self.start), REGISTRY.get("skirmish"))
        self.refused = 0

    def run(self, cmd: Command, seed: int = 0) -> None:
        dice = SeededDice(seed) if seed else None
        try:
            self.ref.execute(cmd, dice)
        except RuleError:
            self.refused += 1

    @rule(order=st.permutations(IDS[:4]))
    def start_combat(self, order: list[str]) -> None:
        self.run(StartCombat(tuple(order)))

    @rule(who=st.sampled_from(IDS), to=st.lists(cells, min_size=1, max_size=3))
    def move(self, who: str, to: list[tuple[int, int]]) -> None:
        self.run(Move(who, tuple(to)))

    @rule(who=st.sampled_from(IDS), defender=st.sampled_from(IDS), seed=st.integers(0, 50))
    def attack(self, who: str, defender: str, seed: int) -> None:
        self.run(Attack(who, defender), seed)

    @rule()
    def end_turn(self) -> None:
        self.run(EndTurn())

    @rule(who=st.sampled_from(IDS), to=cells)
    def free_move(self, who: str, to: tuple[int, int]) -> None:
        self.run(FreeMove(who, to))

    @rule(who=st.sampled_from(IDS), hp=st.integers(-5, 20))
    def set_hp(self, who: str, hp: int) -> None:
        self.run(SetHp(who, hp))

    @rule(to=cells)
    def add_imp(self, to: tuple[int, int]) -> None:
        self.run(AddToken(Token("imp", "Imp", "orcs", to[0], to[1])))

    @rule(who=st.sampled_from(IDS))
    def remove(self, who: str) -> None:
        self.run(RemoveToken(who))

    @precondition(lambda self: bool(self.ref.log))
    @rule()
    def undo_then_redo_is_identity(self) -> None:
        before = copy.deepcopy(self.ref.state)
        self.ref.undo()
        self.ref.redo()
        assert self.ref.state == before

    @rule()
    def undo(self) -> None:
        self.ref.undo()

    @rule()
    def redo(self) -> None:
        self.ref.redo()

    @invariant()
    def state_is_valid(self) -> None:
        s = self.ref.state
        assert all(key == t.id for key, t in s.tokens.items())
        for t in s.tokens.values():
            assert 0 <= t.x <= s.map.width - t.size and 0 <= t.y <= s.map.height - t.size
        drawn = sum(len(e.roll.faces) for entry in self.ref.log for e in entry.events
                    if isinstance(e, DiceRolled))
        assert s.dice_drawn == self.start.dice_drawn + drawn
        assert s.round >= 0

    @invariant()
    def replaying_the_log_gives_the_live_state(self) -> None:
        assert replay(self.start, self.ref.log) == self.ref.state
        assert self.ref.initial_state() == self.start

    @invariant()
    def save_then_load_gives_the_same_state(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "t.tacmap"
            storage.save(path, self.ref.state, self.ref.log)
            loaded = storage.load(path, REGISTRY)
        assert loaded.state == self.ref.state
        assert [e.events for e in loaded.log] == [e.events for e in self.ref.log]


Table.TestCase.settings = settings(max_examples=60, stateful_step_count=25, deadline=None,
                                   suppress_health_check=[HealthCheck.too_slow])
TestTable = Table.TestCase
