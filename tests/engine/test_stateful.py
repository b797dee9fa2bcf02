"""Hypothesis drives random command sequences through the referee (DESIGN §8).

After every step: the state is valid, replaying the log from the start gives
the live state, undo then redo is the identity, and save then load gives the
same state. ``Table`` plays the skirmish test ruleset; ``Builder`` builds an
action_pool encounter the way the GM does (tokens from the stat block, walls,
diagonal rule, map image) and plays it a little.
"""

from __future__ import annotations

import copy
import tempfile
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from msgspec.structs import replace

from tacmap.engine.files import storage
from tacmap.engine.model.commands import (
    AddToken,
    AdjustHp,
    Attack,
    Command,
    EditToken,
    EndTurn,
    FreeMove,
    Move,
    RemoveToken,
    RenameEncounter,
    SetDiagonal,
    SetHp,
    SetMapImage,
    SetValue,
    SetWalls,
    StartCombat,
)
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import DiceRolled
from tacmap.engine.model.records import LIMIT
from tacmap.engine.model.state import DIAGONAL_RULES, Encounter, MapSpec, Token, Wall
from tacmap.engine.play.gm import MAX_HP_CHANGE
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.dice import SeededDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space.geometry import Walls, wall_problem
from tests.conftest import TEST_RULESETS
from tests.engine.helpers import skirmish_state

REGISTRY = Registry([TEST_RULESETS], warn=lambda msg: None)
IDS = ["ana", "bo", "grul", "zog", "imp"]
POOL_IDS = ["ana", "brak", "orc"]
#: Tracked values of the rulesets played here, and one no ruleset reads.
VALUE_KEYS = ["pool", "faces", "weapon", "reacted", "used", "prepared", "move_mod", "note"]
cells = st.tuples(st.integers(0, 11), st.integers(0, 9))
corners = st.tuples(st.integers(0, 12), st.integers(0, 10))
walls = st.lists(
    st.one_of(
        st.builds(lambda pts: Wall(tuple(pts)), st.lists(corners, min_size=2, max_size=3)),
        st.builds(lambda a, w, h: Wall((a, (a[0] + w, a[1]), (a[0] + w, a[1] + h),
                                        (a[0], a[1] + h)), closed=True),
                  corners, st.integers(1, 3), st.integers(1, 3)),
    ),
    max_size=4,
).map(tuple)


#: Values a GM may type into Set value: fitting, of the wrong type, at and past the limits.
wild_values = st.one_of(
    st.none(), st.booleans(), st.integers(-LIMIT - 1, LIMIT + 1),
    st.sampled_from([0, 3, 1000, LIMIT, -LIMIT, 1e300, "x", "", (), ("a", 1)]),
    st.lists(st.integers(-10, 10), max_size=4), st.dictionaries(st.text(max_size=3),
                                                                st.integers(0, 5), max_size=3),
)


class Checks(RuleBasedStateMachine):
    """Undo, redo and the invariants every machine shares; subclasses add commands."""

    start: Encounter
    ref: Referee
    refused: int

    def run(self, cmd: Command, seed: int = 0) -> None:
        dice = SeededDice(seed) if seed else None
        try:
            self.ref.execute(cmd, dice)
        except RuleError:
            self.refused += 1

    def edit(self, who: str, change: dict[str, Any]) -> None:
        """EditToken on a copy of ``who`` with ``change`` applied, if ``who`` is here."""
        token = self.ref.state.tokens.get(who)
        if token is not None:
            self.run(EditToken(replace(copy.deepcopy(token), **change)))

    @rule(chosen=walls)
    def set_walls(self, chosen: tuple[Wall, ...]) -> None:
        self.run(SetWalls(chosen))

    @rule(diagonal=st.sampled_from([*DIAGONAL_RULES, "hex"]))
    def set_diagonal(self, diagonal: str) -> None:
        self.run(SetDiagonal(diagonal))

    @rule(name=st.sampled_from(["Ford", "Night", "  ", "Encounter"]))
    def rename(self, name: str) -> None:
        self.run(RenameEncounter(name))

    @rule(image=st.sampled_from(["cave.png", None]), dx=st.integers(0, 2),
          locked=st.sampled_from([None, True, False]))
    def set_map_image(self, image: str | None, dx: int, locked: bool | None) -> None:
        self.run(SetMapImage(image, (float(dx), 0.0), 0.02, locked))

    @rule(who=st.sampled_from(IDS), to=cells)
    def a_preview_sees_the_walls_of_now(self, who: str, to: tuple[int, int]) -> None:
        """The referee's cached walls give what a ruleset that never cached anything gives."""
        state = self.ref.state
        if who not in state.tokens:
            return
        cmd = Move(who, (to,))
        cached = self.ref.preview(cmd)
        fresh = type(self.ref.ruleset)(self.ref.ruleset.manifest).preview(state, cmd)
        assert (cached.legal, cached.reason, cached.cost, cached.path) == \
            (fresh.legal, fresh.reason, fresh.cost, fresh.path)
        blocked = Walls(state.map.walls).step_test(state.tokens[who].size)
        assert not any(blocked(a, b) for a, b in pairwise(cached.path))

    @precondition(lambda self: bool(self.ref.log))
    @rule()
    def undo_then_redo_is_identity(self) -> None:
        before = copy.deepcopy(self.ref.state)
        self.ref.undo()
        self.ref.redo()
        assert self.ref.state == before

    @rule(who=st.sampled_from([*IDS, *POOL_IDS]), key=st.sampled_from(VALUE_KEYS),
          value=wild_values)
    def set_value(self, who: str, key: str, value: Any) -> None:
        """The GM's Set value: refused in a sentence or kept, and the file still opens."""
        if who in self.ref.state.tokens:
            self.run(SetValue(who, key, value))

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
            assert t.name.strip()
            self.ref.ruleset.check_token(t)
        drawn = sum(len(e.roll.faces) for entry in self.ref.log for e in entry.events
                    if isinstance(e, DiceRolled))
        assert s.dice_drawn == self.start.dice_drawn + drawn
        assert s.round >= 0
        assert s.diagonal in DIAGONAL_RULES and s.name.strip()
        assert not any(wall_problem(w, s.map.width, s.map.height) for w in s.map.walls)
        assert s.map.image is not None or not s.map.image_locked

    @invariant()
    def replaying_the_log_gives_the_live_state(self) -> None:
        assert replay(self.start, self.ref.log) == self.ref.state
        assert self.ref.initial_state() == self.start

    @invariant()
    def save_then_load_gives_the_same_state(self) -> None:
        """Whatever tacmap writes it reads back, and ``tacmap check`` accepts (issue 17)."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "t.tacmap"
            storage.save(path, self.ref.state, self.ref.log)
            loaded = storage.load(path, REGISTRY)
            storage.verify(loaded)
        assert loaded.state == self.ref.state
        assert [e.events for e in loaded.log] == [e.events for e in self.ref.log]


class Table(Checks):
    """A GM (and players) clicking at random."""

    def __init__(self) -> None:
        super().__init__()
        self.start = skirmish_state(seed=11)
        self.ref = Referee(copy.deepcopy(self.start), REGISTRY.get("skirmish"))
        self.refused = 0

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

    @rule(who=st.sampled_from(IDS), hp=st.sampled_from([-LIMIT, -LIMIT + 3, LIMIT, LIMIT - 3]))
    def set_hp_at_the_limit(self, who: str, hp: int) -> None:
        self.run(SetHp(who, hp))

    @rule(who=st.sampled_from(IDS), change=st.integers(-MAX_HP_CHANGE, MAX_HP_CHANGE))
    def adjust_hp(self, who: str, change: int) -> None:
        self.run(AdjustHp(who, change))

    @rule(to=cells)
    def add_imp(self, to: tuple[int, int]) -> None:
        self.run(AddToken(Token("imp", "Imp", "orcs", to[0], to[1])))

    @rule(who=st.sampled_from(IDS))
    def remove(self, who: str) -> None:
        self.run(RemoveToken(who))

    @rule(who=st.sampled_from(IDS), name=st.sampled_from(["Ana", "Big Orc", ""]),
          hp=st.integers(-3, 12), size=st.integers(1, 2), at=cells, atk=st.integers(0, 5))
    def edit_token(self, who: str, name: str, hp: int, size: int, at: tuple[int, int],
                   atk: int) -> None:
        self.edit(who, {"name": name, "hp": hp, "size": size, "x": at[0], "y": at[1],
                        "stats": {"atk": atk}})


Table.TestCase.settings = settings(max_examples=60, stateful_step_count=25, deadline=None,
                                   suppress_health_check=[HealthCheck.too_slow])
TestTable = Table.TestCase

# --------------------------------------------------------------------------- building

WEAPONS = ["dagger", "spear", "shortbow"]


def _in_hand(stats: dict[str, Any]) -> dict[str, Any]:
    """The weapon in hand among those carried, as a form that checks it would make it."""
    if stats.get("weapons") and stats.get("weapon") not in stats["weapons"]:
        stats["weapon"] = stats["weapons"][0]
    return stats


good_stats = st.fixed_dictionaries({}, optional={
    "str": st.integers(0, 20), "dex": st.integers(0, 20), "con": st.integers(1, 3),
    "weapon": st.sampled_from(WEAPONS),
    "weapons": st.lists(st.sampled_from(WEAPONS), max_size=2, unique=True),
    "proficiency": st.dictionaries(st.sampled_from(WEAPONS), st.integers(0, 5)),
    "abilities": st.lists(st.sampled_from(["parry", "fleet_footed", "riposte"]), max_size=2,
                          unique=True),
    "armour": st.sampled_from(["none", "heavy"]),
}).map(_in_hand)
#: One bad value among good ones: refused with its sentence, and nothing changes.
bad_stats = st.tuples(good_stats, st.sampled_from([
    ("str", 21), ("con", 0), ("weapon", "trident"), ("proficiency", {"spear": 6}),
    ("abilities", ("fireball",)), ("abilities", ("parry", "parry")), ("armour", "plate"),
    ("dex", "3"), ("weapons", ("dagger", "dagger")),
])).map(lambda pair: {**pair[0], pair[1][0]: pair[1][1]})
pool_stats = st.one_of(good_stats, good_stats, good_stats, bad_stats)


class Builder(Checks):
    """A GM building an action_pool encounter from the stat block, then playing it."""

    def __init__(self) -> None:
        super().__init__()
        rules = REGISTRY.get("action_pool")
        self.start = rules.new_encounter("build", seed=4)
        self.start.map = MapSpec(12, 10)
        for t in (Token("ana", "Ana", "party", 1, 1, stats={"dex": 3, "weapon": "dagger"}),
                  Token("brak", "Brak", "foes", 2, 1, stats={"str": 2})):
            self.start.tokens[t.id] = t
        self.ref = Referee(copy.deepcopy(self.start), rules)
        self.refused = 0

    @rule(who=st.sampled_from(POOL_IDS), side=st.sampled_from(["party", "foes"]), at=cells,
          stats=pool_stats)
    def add(self, who: str, side: str, at: tuple[int, int], stats: dict[str, Any]) -> None:
        self.run(AddToken(Token(who, who.title(), side, at[0], at[1], hp=8, max_hp=8,
                                stats=stats)))

    @rule(who=st.sampled_from(POOL_IDS), stats=pool_stats, hp=st.integers(-2, 9))
    def edit_stats(self, who: str, stats: dict[str, Any], hp: int) -> None:
        self.edit(who, {"stats": stats, "hp": hp})

    @rule(who=st.sampled_from(POOL_IDS))
    def remove(self, who: str) -> None:
        self.run(RemoveToken(who))

    @rule()
    def start_combat(self) -> None:
        self.run(StartCombat(tuple(self.ref.state.tokens)))

    @rule(who=st.sampled_from(POOL_IDS), to=st.lists(cells, min_size=1, max_size=2))
    def move(self, who: str, to: list[tuple[int, int]]) -> None:
        self.run(Move(who, tuple(to)))

    @rule(who=st.sampled_from(POOL_IDS), defender=st.sampled_from(POOL_IDS),
          seed=st.integers(1, 50))
    def attack(self, who: str, defender: str, seed: int) -> None:
        self.run(Attack(who, defender), seed)

    @rule()
    def end_turn(self) -> None:
        self.run(EndTurn())


Builder.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None,
                                     suppress_health_check=[HealthCheck.too_slow])
TestBuilder = Builder.TestCase


def test_random_gm_sessions_on_every_demo_save_and_reopen_as_they_were() -> None:
    """Issue 33: a seeded sample of ``tests.engine.probe`` (``--full`` runs 4,000): play and
    GM overrides with extreme and mistyped values on each demo, every command reopened."""
    from tests.engine import probe

    problems: list[str] = []
    kinds = probe.run(30, say=problems.append)
    assert set(kinds) == {"ok"}, problems
