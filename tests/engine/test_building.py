"""GM commands that build an encounter: edit tokens, walls, diagonal, map image, name."""

from __future__ import annotations

import copy
import json
from itertools import pairwise
from typing import Any

import pytest
from msgspec.structs import replace

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import (
    AddToken,
    Attack,
    Command,
    EditToken,
    FreeMove,
    Move,
    RenameEncounter,
    SetDiagonal,
    SetMapImage,
    SetWalls,
    StartCombat,
)
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import (
    DiagonalChanged,
    EncounterRenamed,
    MapImageChanged,
    TokenEdited,
    TokenMoved,
    WallsChanged,
)
from tacmap.engine.model.state import MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space.geometry import Walls
from tests.engine.helpers import skirmish_referee

WALL = Wall(((6, 0), (6, 4)))


def pool_referee(registry: Registry) -> Referee:
    """An action_pool encounter, 12×8, with Ana and Brak placed and combat not started."""
    rules = registry.get("action_pool")
    state = rules.new_encounter("build")
    state.map = MapSpec(12, 8)
    ref = Referee(state, rules)
    ref.execute(AddToken(Token("ana", "Ana", "party", 1, 1, stats={"dex": 3})))
    ref.execute(AddToken(Token("brak", "Brak", "foes", 5, 1)))
    return ref


def round_trip(ref: Referee, registry: Registry) -> storage.Loaded:
    """Save and load the referee's encounter; the state and log must come back equal."""
    loaded = storage.loads(storage.dumps(ref.state, ref.log), registry)
    assert loaded.state == ref.state
    assert [e.events for e in loaded.log] == [e.events for e in ref.log]
    assert replay(ref.initial_state(), ref.log) == ref.state
    return loaded


def undo_redo_exact(ref: Referee) -> None:
    """Undo every entry back to the start, redo them all, and find the same state."""
    end = copy.deepcopy(ref.state)
    start = ref.initial_state()
    while ref.undo():
        pass
    assert ref.state == start
    while ref.redo():
        pass
    assert ref.state == end


# --------------------------------------------------------------------------- tokens


def test_edit_token_replaces_it_in_place_and_undoes(registry: Registry) -> None:
    ref = pool_referee(registry)
    before = copy.deepcopy(ref.state)
    ana = copy.deepcopy(ref.state.tokens["ana"])
    edited = replace(ana, name="Ana the Bold", hp=7, max_hp=12, size=2,
                     stats={"dex": 5, "weapon": "dagger", "proficiency": {"dagger": 2}},
                     hidden=True)
    (event,) = ref.execute(EditToken(edited))
    assert isinstance(event, TokenEdited) and event.old == ana and event.new == edited
    assert ref.state.tokens["ana"] == edited
    assert list(ref.state.tokens) == ["ana", "brak"]               # keeps its place
    assert event.text(ref.state) == (
        "Ana is edited: name Ana → Ana the Bold; size 1 → 2; hp 10 → 7; max_hp 10 → 12; "
        "dex 3 → 5; weapon — → dagger; proficiency — → {dagger: 2}; hidden from the players")
    # The event keeps its own copy: moving the token afterwards leaves the log intact.
    ref.execute(FreeMove("ana", (3, 3)))
    assert event.new.cell == (1, 1)
    round_trip(ref, registry)
    ref.undo()
    ref.undo()
    assert ref.state == before


def test_edit_token_refuses_a_bad_stat_block_with_the_schema_sentence(
        registry: Registry) -> None:
    ref = pool_referee(registry)
    before = copy.deepcopy(ref.state)
    bad = replace(ref.state.tokens["ana"], stats={"dex": 25})
    preview = ref.preview(EditToken(bad))
    assert not preview.legal
    assert preview.reason == "token 'ana' (Ana): DEX must be a whole number from 0 to 20, not 25"
    with pytest.raises(RuleError, match="DEX must be a whole number from 0 to 20, not 25"):
        ref.execute(EditToken(bad))
    assert ref.state == before and len(ref.log) == 2


def test_add_token_refuses_a_bad_stat_block_and_changes_nothing(registry: Registry) -> None:
    ref = pool_referee(registry)
    before = copy.deepcopy(ref.state)
    orc = Token("orc", "Orc", "foes", 3, 3, stats={"str": 3, "armour": "plate", "con": 0})
    with pytest.raises(RuleError) as err:
        ref.execute(AddToken(orc))
    assert str(err.value) == ("token 'orc' (Orc): CON must be a whole number from 1 to 20, "
                              "not 0; Armour must be one of none, light, medium, heavy, "
                              "not 'plate'")
    assert not ref.preview(AddToken(orc)).legal
    assert ref.state == before


@pytest.mark.parametrize(("cmd", "reason"), [
    (EditToken(Token("nobody", "Nobody", "foes", 0, 0)), "no token 'nobody'"),
    (EditToken(Token("ana", "Ana", "party", 1, 1, stats={"dex": 3})),
     "Ana is already like that: nothing to change"),
    (EditToken(Token("ana", "Ana", "party", 11, 1, size=2)), "would stick out of the 12×8 m map"),
    (AddToken(Token("imp", "Imp", "foes", 12, 0)), "Imp at (12,0) would stick out"),
    (AddToken(Token("imp", "  ", "foes", 0, 0)), "token 'imp' needs a name"),
    (AddToken(Token("imp", "Imp", "foes", 0, 0, image="../../etc/passwd")),
     "escapes the encounter's image folder"),
    (AddToken(Token("imp", "Imp", "foes", 0, 0, stats={"dex": float("nan")})),
     "out of range"),
])
def test_nonsense_token_edits_are_refused(registry: Registry, cmd: Command,
                                          reason: str) -> None:
    ref = pool_referee(registry)
    before = copy.deepcopy(ref.state)
    with pytest.raises(RuleError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        ref.execute(cmd)
    assert ref.state == before


def test_lists_in_a_stat_block_become_tuples_so_save_and_load_agree(registry: Registry) -> None:
    ref = pool_referee(registry)
    stats: dict[str, Any] = {"weapon": "dagger", "weapons": ["dagger", "shortbow"],
                             "abilities": ["parry"]}
    ref.execute(AddToken(Token("cat", "Cat", "party", 4, 4, stats=stats)))
    ref.execute(EditToken(replace(ref.state.tokens["cat"], stats={**stats, "dex": 4})))
    assert ref.state.tokens["cat"].stats["weapons"] == ("dagger", "shortbow")
    round_trip(ref, registry)


def test_edit_token_mid_combat_undoes_exactly(registry: Registry) -> None:
    ref = pool_referee(registry)
    ref.execute(StartCombat(("ana", "brak")))
    ana = ref.state.tokens["ana"]
    assert "pool" in ana.values
    ref.execute(EditToken(replace(copy.deepcopy(ana), stats={"dex": 4, "str": 2}, hp=3)))
    ref.execute(Move("ana", ((2, 1),)))
    round_trip(ref, registry)
    undo_redo_exact(ref)


# --------------------------------------------------------------------------- walls


def test_a_move_after_set_walls_follows_the_new_walls(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.state.tokens["ana"].x, ref.state.tokens["ana"].y = 5, 1
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    across = Move("ana", ((7, 1),))
    assert ref.preview(across).cost == 8.0              # round the wall at x=6
    ref.execute(SetWalls(()))
    p = ref.preview(across)
    assert p.legal and p.cost == 2.0 and p.path == ((5, 1), (6, 1), (7, 1))
    # A shorter wall: the way round is one row shorter each way.
    ref.execute(SetWalls((Wall(((6, 0), (6, 3))), Wall(((0, 5), (12, 5))))))
    p = ref.preview(across)
    assert p.legal and p.cost == 6.0 and p.path[3] == (6, 3)
    walls = Walls(ref.state.map.walls)
    assert all(not walls.step_test()(a, b) for a, b in pairwise(p.path))
    ref.undo()
    assert ref.preview(across).cost == 2.0
    ref.undo()
    assert ref.preview(across).cost == 8.0
    ref.redo()
    (moved,) = [e for e in ref.execute(across) if isinstance(e, TokenMoved)]
    assert moved.path == ((5, 1), (6, 1), (7, 1))
    round_trip(ref, registry)


def test_set_walls_is_one_undoable_event_with_a_log_line(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    old = ref.state.map.walls
    box = Wall(((2, 6), (4, 6), (4, 8), (2, 8)), closed=True)
    fence = Wall(((0, 9), (3, 9)), blocks_sight=False)
    (event,) = ref.execute(SetWalls((box, fence)))
    assert event == WallsChanged(old, (box, fence))
    assert event.text(ref.state) == "walls: 2 drawn, 1 erased (2 now)"
    (moved,) = ref.execute(SetWalls((replace(box, points=((3, 6), (5, 6), (5, 8))), fence)))
    assert moved.text(ref.state) == "walls: 1 drawn, 1 erased (2 now)"
    ref.undo()
    ref.undo()
    assert ref.state.map.walls is old


@pytest.mark.parametrize(("walls", "reason"), [
    ((Wall(((0, 0), (13, 0))),), "wall 1: the point (13, 0) is off the 12×10 m map"),
    ((WALL, Wall(((1, -1), (1, 2))),), "wall 2: the point (1, -1) is off"),
    ((Wall(((1, 1), (1, 1))),), "wall 1: a wall must have some length"),
    ((Wall(((0, 0), (2, 2), (2, 0), (0, 2)), closed=True),),
     "an obstacle must not cross itself"),
    ((Wall(((0, 0), (1, 1), (2, 2)), closed=True),), "must cover some ground"),
    ((WALL,), "the walls are already like that"),
])
def test_nonsense_walls_are_refused(registry: Registry, walls: tuple[Wall, ...],
                                    reason: str) -> None:
    ref = skirmish_referee(registry)
    before = copy.deepcopy(ref.state)
    with pytest.raises(RuleError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        ref.execute(SetWalls(walls))
    assert ref.state == before


def test_line_of_sight_follows_set_walls(registry: Registry) -> None:
    rules = registry.get("action_pool")
    ref = pool_referee(registry)
    ref.execute(EditToken(replace(ref.state.tokens["ana"], stats={"weapon": "shortbow"})))
    ref.execute(StartCombat(("ana", "brak")))
    assert "attack" in [o.key for o in rules.actions_for(ref.state, "ana") if o.enabled]
    assert ref.preview(Attack("ana", "brak")).legal
    ref.execute(SetWalls((Wall(((3, 0), (3, 8))),)))
    p = ref.preview(Attack("ana", "brak"))
    assert not p.legal and p.reason == "a wall stands between Ana and Brak"
    ref.undo()
    assert ref.preview(Attack("ana", "brak")).legal


# --------------------------------------------------------------------------- diagonal, name


def test_set_diagonal_changes_what_a_move_costs(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    diagonal = Move("ana", ((2, 2),))
    assert ref.preview(diagonal).cost == 2.0                  # rectilinear
    (event,) = ref.execute(SetDiagonal("chebyshev"))
    assert event == DiagonalChanged("rectilinear", "chebyshev")
    assert event.text(ref.state) == "diagonal rule: rectilinear → chebyshev"
    assert ref.preview(diagonal).cost == 1.0
    with pytest.raises(RuleError, match="no diagonal rule 'hex'"):
        ref.execute(SetDiagonal("hex"))
    with pytest.raises(RuleError, match="already chebyshev"):
        ref.execute(SetDiagonal("chebyshev"))
    round_trip(ref, registry)
    ref.undo()
    assert ref.state.diagonal == "rectilinear" and ref.preview(diagonal).cost == 2.0


def test_rename_encounter(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    (event,) = ref.execute(RenameEncounter("  Ambush at the ford "))
    assert event == EncounterRenamed("Encounter", "Ambush at the ford")
    assert ref.state.name == "Ambush at the ford"
    assert event.text(ref.state) == "the encounter is renamed 'Ambush at the ford' " \
                                    "(was 'Encounter')"
    for name, reason in (("   ", "needs a name"), ("x" * 201, "too long"),
                         ("Ambush at the ford", "already called")):
        with pytest.raises(RuleError, match=reason):
            ref.execute(RenameEncounter(name))
    round_trip(ref, registry)
    ref.undo()
    assert ref.state.name == "Encounter"


# --------------------------------------------------------------------------- map image


def test_a_locked_map_image_keeps_its_alignment(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(SetMapImage("cave.png", (1.0, 2.0), 0.05))
    assert not ref.state.map.image_locked
    (lock,) = ref.execute(SetMapImage("cave.png", (1.0, 2.0), 0.05, locked=True))
    assert isinstance(lock, MapImageChanged) and lock.locked == (False, True)
    assert lock.text(ref.state) == "the map image is locked"
    for cmd in (SetMapImage("cave.png", (3.0, 2.0), 0.05),
                SetMapImage("cave.png", (1.0, 2.0), 0.1, locked=True)):
        assert "locked" in ref.preview(cmd).reason
        with pytest.raises(RuleError, match="the map image is locked: unlock it to move"):
            ref.execute(cmd)
    # Another picture on the same alignment is fine; so is unlocking and moving at once.
    ref.execute(SetMapImage("cave-night.png", (1.0, 2.0), 0.05))
    assert ref.state.map.image_locked
    (move,) = ref.execute(SetMapImage("cave-night.png", (0.0, 0.0), 0.05, locked=False))
    assert move.locked == (True, False) and not ref.state.map.image_locked
    ref.execute(SetMapImage("cave.png", (0.0, 0.0), 0.05, locked=True))
    with pytest.raises(RuleError, match="there is no map image to lock"):
        ref.execute(SetMapImage(None, locked=True))
    (gone,) = ref.execute(SetMapImage(None))
    assert gone.locked == (True, False) and gone.text(ref.state) == "the map image is removed"
    round_trip(ref, registry)
    undo_redo_exact(ref)
    while ref.undo():
        pass
    assert ref.state.map == MapSpec(12, 10, walls=(WALL,))


def test_files_from_before_the_lock_still_load(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(SetMapImage("cave.png", (1.0, 2.0), 0.05))
    doc = json.loads(storage.dumps(ref.state, ref.log))
    del doc["encounter"]["map"]["image_locked"]
    del doc["log"][0]["events"][0]["locked"]
    loaded = storage.loads(json.dumps(doc), registry)
    assert loaded.state == ref.state and not loaded.state.map.image_locked
    assert loaded.log[0].events == ref.log[0].events
    assert records.convert({"type": "set_map_image", "image": "a.png"}, Command) == \
        SetMapImage("a.png")


def test_every_new_command_reads_back_from_a_script_line() -> None:
    ana = Token("ana", "Ana", "party", 1, 1)
    for cmd in (EditToken(ana), SetWalls((WALL,)), SetDiagonal("euclidean"),
                RenameEncounter("Night"), SetMapImage("a.png", locked=True)):
        assert cmd.override
        line = records.encode(cmd)
        assert records.decode(line, Command) == cmd
