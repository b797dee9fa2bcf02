"""Whatever happens in a fight, undo, redo, replay and save/load give back the same state."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from tacmap.engine.files import storage
from tacmap.engine.model.commands import (
    Act,
    Attack,
    Command,
    EndTurn,
    Move,
    Reorder,
    SetHp,
    SetValue,
    StartCombat,
)
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Encounter, MapSpec, Wall
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.ruleset import Registry, Ruleset

from .conftest import ANA, BRAK, token

IDS = ("ana", "brak", "cid", "dora")


def encounter(rules: Ruleset, seed: int) -> Encounter:
    state = rules.new_encounter("random", seed=seed)
    state.map = MapSpec(10, 8, walls=(Wall(((5, 0), (5, 4))),))
    for t in (token("ana", "party", 2, 2, weapons=("longsword", "shortbow"),
                    abilities=("mighty_blow", "stalwart"),
                    **{**ANA, "proficiency": {"longsword": 2, "shortbow": 1}}),
              token("brak", "foes", 3, 2, abilities=("riposte", "parry", "opportunist"),
                    **BRAK),
              token("cid", "foes", 2, 3, hp=8, weapon="halberd", dex=5,
                    proficiency={"halberd": 1}),
              token("dora", "party", 1, 2, hp=12, abilities=("mend",), dex=3,
                    weapon="dagger", proficiency={"dagger": 1})):
        rules.check_token(t)
        state.tokens[t.id] = t
    return state


def command(kind: int, actor: str, b: int, x: int, y: int) -> Command:
    other = IDS[b]
    a = IDS.index(actor)
    options: list[Command] = [
        Attack(actor, other),
        Move(actor, ((x, y),)),
        Move(actor, ((x, y), (y, x))),
        Act(actor, "prepare:dodge", other),
        Act(actor, "prepare:attack:leaves_reach", other),
        Act(actor, "prepare:attack:enters_reach", other),
        Act(actor, "prepare:attack:attacks", other),
        Act(actor, "mighty_blow", other),
        Act(actor, "mend", other),
        Act(actor, "wield:shortbow"),
        Act(actor, "wield:longsword"),
        Act(actor, "long_action", detail="rest"),
        EndTurn(),
        EndTurn(),
        Reorder(tuple(IDS[(i + a) % 4] for i in range(4))),
        SetHp(other, x - 2),
        SetValue(actor, "move_mod", y - 4),
    ]
    return options[kind % len(options)]


steps = st.lists(st.tuples(st.integers(0, 16), st.integers(0, 3), st.integers(0, 3),
                           st.integers(0, 9), st.integers(0, 7)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), moves=steps)
def test_random_fights_keep_the_log_exact(registry: Registry, seed: int,
                                          moves: list[tuple[int, int, int, int, int]]) -> None:
    rules = registry.get("action_pool")
    start = encounter(rules, seed)
    referee = Referee(copy.deepcopy(start), rules)
    referee.execute(StartCombat(IDS))
    gm_set_hp = False  # after a GM override of HP, HP and "dead" may disagree on purpose
    for kind, a, b, x, y in moves:
        # Mostly whoever is acting, sometimes someone out of turn.
        current = referee.state.schedule.current
        cmd = command(kind, current if a or current is None else IDS[b], b, x, y)
        before = copy.deepcopy(referee.state)
        try:
            referee.execute(cmd)
        except RuleError:
            # Refused: one readable sentence, and nothing changed.
            assert referee.state == before
            continue
        gm_set_hp = gm_set_hp or isinstance(cmd, SetHp)
        for t in referee.state.tokens.values():
            pool = t.values.get("pool")
            assert isinstance(pool, int) and pool >= 0, (t.id, pool)
            assert t.hp >= 0 or gm_set_hp, (t.id, t.hp)
            assert gm_set_hp or ("dead" in t.conditions) == (t.hp <= 0), (t.id, t.hp)
        rules.dice_pools(referee.state)
        rules.turn_order(referee.state)
        for tid in IDS:
            rules.actions_for(referee.state, tid)
    end = copy.deepcopy(referee.state)
    assert replay(start, referee.log) == end
    text = storage.dumps(referee.state, referee.log)
    loaded = storage.loads(text, registry)
    assert loaded.state == end
    assert [e.events for e in loaded.log] == [e.events for e in referee.log]
    while referee.undo():
        pass
    assert referee.state == start
    while referee.redo():
        pass
    assert referee.state == end

