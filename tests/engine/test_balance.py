"""Issue 39 item 2: balance a fight to the GM's target, proposals found with the forecast,
each one command the log can undo; nothing changes until the GM picks one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.commands import Rebalance
from tacmap.engine.model.errors import InputError
from tacmap.engine.play import balance as balancing
from tacmap.engine.play.balance import Target, balance, changed_side, parse_target
from tacmap.engine.play.forecast import forecast
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo.tacmap"


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A balance of few fights: the search's steps as written, its numbers small."""
    monkeypatch.setattr(balancing, "GUESS", 16)
    monkeypatch.setattr(balancing, "CONFIRM", 32)
    monkeypatch.setattr(balancing, "STEPS", 1)
    monkeypatch.setattr(balancing, "TUNED", 2)
    monkeypatch.setattr(balancing, "BISECTIONS", 2)


@pytest.mark.parametrize(("text", "want"), [
    ("party wins 75%", Target("party", 0.75)),
    ("party win 60% ± 10%", Target("party", 0.6, 0.1)),
    ("party wins 75%, at most 1 down in half the fights", Target("party", 0.75, 0.05, 1, 0.5)),
    ("Party Wins 80 % +/- 2, at most 0 down in 90% of the fights",
     Target("Party", 0.8, 0.02, 0, 0.9)),
])
def test_a_target_is_read_as_the_gm_says_it(text: str, want: Target) -> None:
    assert parse_target(text, ["party", "Party", "orcs"]) == want


@pytest.mark.parametrize(("text", "said"), [
    ("party should win", 'a target reads like "party wins 75%"'),
    ("elves win 50%", "the target names no side of this encounter: 'elves' (its sides: "
                      "party, orcs)"),
    ("party wins 150%", "a chance to win is 0% to 100%, not 150%"),
])
def test_a_target_that_cannot_be_read_is_one_sentence(text: str, said: str) -> None:
    with pytest.raises(InputError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
        parse_target(text, ["party", "orcs"])


def test_a_proposal_is_one_command_undone_as_one(registry: Registry) -> None:
    state = storage.load(DEMO, registry).state
    rules = registry.get(state.ruleset)
    referee = Referee(state, rules)
    before = storage.encode(referee.state, [])
    pip, mott = state.tokens["pip"], state.tokens["mott"]
    grown = balancing.scaled(state, rules, "bandits", 1.5)
    added = balancing._copy_beside(state, pip, "bandits")
    command = Rebalance(add=(added,), remove=(mott.id,),
                        edit=tuple(t for t in grown.edit if t.id == "barry"))
    events = referee.execute(command)
    assert added.id in referee.state.tokens
    assert mott.id not in referee.state.tokens and referee.state.tokens["barry"].max_hp == 51
    said = sentence(referee.state, command, events)
    assert said == f"GM balances the encounter: adds {added.name}; removes Mott; Barry the " \
        "Guard's maximum hit points changed: 34 → 51 HP"
    # The players read who changed, never the foes' hit points (the log, their report).
    players = PlayerFilter(referee.state).line(said, of=command)
    assert players == f"GM balances the encounter: adds {added.name}; removes Mott; Barry " \
        "the Guard's maximum hit points changed"
    referee.undo()
    assert storage.encode(referee.state, []) == before


def test_the_proposals_come_closer_to_the_target_than_the_fight_as_it_is(
        registry: Registry, quick: None) -> None:
    state = storage.load(DEMO, registry).state
    rules = registry.get(state.ruleset)
    target = parse_target("heroes win 75%", ["heroes", "bandits"])
    side = changed_side(state, target)
    assert side == "bandits"  # the side that is not the party's
    before = storage.encode(state, [])
    found = balance(state, rules, target, side)
    assert storage.encode(state, []) == before, "nothing changes until the GM picks"
    assert 1 <= len(found) <= 3
    start = forecast(state, rules, 32, seed=1)
    assert found[0].miss < target.miss(start)
    for proposal in found:
        assert proposal.result.fights == 32
        Referee(state.copy(), rules).execute(proposal.command)  # each one fits the map


def test_the_command_line_prints_proposals_and_writes_the_one_picked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], quick: None,
        registry: Registry) -> None:
    path = tmp_path / "fight.tacmap"
    path.write_bytes(DEMO.read_bytes())
    out = tmp_path / "tuned.tacmap"
    assert main(["balance", str(path), "--target", "heroes win 75%", "--jobs", "1",
                 "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Balance to: heroes 75% to win (± 5) (changing bandits; the "
                           "forecast's greedy policy plays every side)")
    assert "\n1. " in said and "heroes" in said and f"{out}: written with proposal 1" in said
    assert path.read_bytes() == DEMO.read_bytes(), "FILE itself is never changed"
    tuned = storage.load(out, registry)
    assert sentence(tuned.state, tuned.log[-1].command, tuned.log[-1].events).startswith(
        "GM balances the encounter: ")
    assert main(["balance", str(path), "--target", "heroes win 75%", "--jobs", "1",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["side"] == "bandits" and "greedy" in data["policy"]
    assert data["proposals"] and "losses" in data["proposals"][0]["forecast"]


def test_a_bad_balance_request_is_one_sentence(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["balance", str(DEMO), "--target", "orcs win 50%"]) == 2
    assert "the target names no side of this encounter: 'orcs'" in capsys.readouterr().err
    assert main(["balance", str(DEMO), "--target", "heroes win 50%", "--side", "elves"]) == 2
    assert "--side names no side of this encounter: 'elves'" in capsys.readouterr().err
    assert main(["balance", str(DEMO), "--target", "heroes win 50%", "--like", "Nobody"]) == 2
    assert "--like names no token of this encounter: 'Nobody'" in capsys.readouterr().err


def test_the_roster_and_like_tokens_join_the_changes_tried(
        registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tacmap import balance_cli
    from tacmap.engine.files.roster import Roster
    from tacmap.engine.model.state import Token

    state = storage.load(DEMO, registry).state
    rules = registry.get(state.ruleset)
    monkeypatch.setenv("TACMAP_HOME", str(tmp_path))
    assert main(["balance", str(DEMO), "--target", "heroes win 75%", "--from", "ogre"]) == 2
    assert "--from: there is no roster yet" in capsys.readouterr().err
    with Roster(tmp_path / "roster.sqlite3") as roster:
        roster.add("action_pool", Token("ogre", "Ogre", "monsters", 0, 0, hp=40, max_hp=40),
                   ["brute"])
    assert main(["balance", str(DEMO), "--target", "heroes win 75%", "--from", "dragon"]) == 2
    assert "the roster has no action_pool combatant whose name or tags hold 'dragon'" in \
        capsys.readouterr().err
    pool = balance_cli._from_roster("action_pool", "brute")
    assert [t.name for t in pool] == ["Ogre"]
    tried = [words for words, _ in balancing.moves(state, rules, "bandits", pool)]
    assert "add Ogre" in tried  # a copy joins the bandits, beside them
    ogre = next(c for w, c in balancing.moves(state, rules, "bandits", pool) if w == "add Ogre")
    assert ogre.add[0].side == "bandits" and ogre.add[0].hp == 40


def test_the_bench_times_a_balance_against_its_budget(registry: Registry,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from tacmap import forecast_cli

    row = forecast_cli._balance_row(registry, quick=True)
    assert row["demo"] == "demo.tacmap" and row["target"].startswith("heroes 75% to win")
    assert row["seconds"] > 0 and row["ok"] == (row["seconds"] <= forecast_cli.BALANCE_BUDGET)
    assert row["best"] and 0 <= row["chance"] <= 1
    monkeypatch.setattr(forecast_cli, "BALANCE_BUDGET", 0.0)  # a budget missed is an exit 1
    assert forecast_cli.bench_code([forecast_cli._balance_row(registry, quick=True)]) == 1


def test_the_autopilot_may_play_the_fights_and_the_answer_says_so(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        quick: None) -> None:
    from tacmap.engine.play.autopilot import by_side

    policies = []
    real = balancing.forecast

    def greedy_but_noted(*args: object, **kwargs: object) -> object:
        policies.append(kwargs.pop("policy", None))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    # The fights themselves are greedy's here (the autopilot's take minutes): what is
    # checked is that every forecast of the search is asked of the autopilot.
    monkeypatch.setattr(balancing, "forecast", greedy_but_noted)
    assert main(["balance", str(DEMO), "--target", "heroes win 75%", "--jobs", "1",
                 "--policy", "autopilot"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Balance to: heroes 75% to win (± 5) (changing bandits; the "
                           "autopilot plays every side)")
    assert policies and all(p is by_side for p in policies)
