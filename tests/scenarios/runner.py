"""Scenario files: commands, fixed dice and the events they must produce.

A scenario is a JSON-lines file under ``tests/scenarios/<ruleset id>/``:

* line 1: ``{"encounter": {...}}`` — the ``encounter`` body of a .tacmap file
  (its ``ruleset`` names the ruleset); ``"ruleset_data": {"table": {"key": v}}``
  beside it plays the scenario under those ruleset.toml values instead (a reading
  the GM may choose), the rest of the file as shipped;
* then steps, each one of
  ``{"command": {...}, "dice": [4, 6], "events": [{...}, ...]}`` — run the
  command with exactly these faces (all must be used); each expected event
  must match the produced one field by field (fields left out are not
  checked) and the count must agree;
  ``{"command": {...}, "dice": [...], "error": "words"}`` — the command is
  refused with a reason containing ``words`` and the state is unchanged;
  ``{"state": {"<token id>": {"hp": 3, "x": 4, "values.pool": [..],
  "conditions": [...]}, "round": 2}}`` — state checks;
* ``"note"`` on any line is a comment; lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

from tacmap.engine import records, storage
from tacmap.engine.commands import Command
from tacmap.engine.dice import FixedDice
from tacmap.engine.errors import RuleError
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import Registry
from tacmap.engine.state import Encounter, Token


def load_lines(path: Path) -> list[dict[str, Any]]:
    """The scenario's JSON objects with their line numbers under ``"_line"``."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        obj = json.loads(line)
        obj["_line"] = n
        out.append(obj)
    return out


def build_state(body: dict[str, Any], registry: Registry) -> Encounter:
    """An Encounter from a file-style ``encounter`` body (tokens as a list)."""
    doc = {"format": storage.FORMAT, "version": storage.VERSION,
           "ruleset": {"id": body["ruleset"]}, "encounter": body}
    return storage.loads(json.dumps(doc), registry).state


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it, table by table."""
    out = dict(base)
    for key, value in changes.items():
        old = out.get(key)
        out[key] = _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) \
            else value
    return out


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _subset(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            _subset(e, a) for e, a in zip(expected, actual, strict=True))
    return bool(expected == actual)


def _get(token: Token, key: str) -> Any:
    if key.startswith("values."):
        return token.values.get(key[len("values."):])
    if key.startswith("stats."):
        return token.stats.get(key[len("stats."):])
    return getattr(token, key)


def run(path: Path, registry: Registry) -> Referee:
    """Run one scenario file, failing with the line number on the first mismatch."""
    lines = load_lines(path)
    head = lines[0]
    assert "encounter" in head, f"{path}: line {head['_line']} must hold the encounter"
    state = build_state(head["encounter"], registry)
    rules = registry.get(state.ruleset)
    if "ruleset_data" in head:
        data = _merged(rules.manifest.data, head["ruleset_data"])
        rules = type(rules)(dataclasses.replace(rules.manifest, data=data))
    referee = Referee(state, rules)
    for step in lines[1:]:
        where = f"{path.name}:{step['_line']}"
        if "command" in step:
            cmd = records.convert(step["command"], Command, "command")
            dice = FixedDice(step.get("dice", []))
            if "error" in step:
                before = copy.deepcopy(referee.state)
                try:
                    referee.execute(cmd, dice)
                except RuleError as err:
                    assert step["error"].lower() in str(err).lower(), \
                        f"{where}: refused for {err!r}, expected {step['error']!r}"
                    assert referee.state == before, f"{where}: a refused command changed state"
                    continue
                raise AssertionError(f"{where}: expected refusal {step['error']!r}")
            try:
                events = referee.execute(cmd, dice)
            except RuleError as err:
                raise AssertionError(f"{where}: refused: {err}") from None
            assert dice.used == len(dice.faces), \
                f"{where}: {len(dice.faces) - dice.used} given dice were not used"
            if "events" in step:
                got = records.plain(list(events))
                want = step["events"]
                assert len(got) == len(want) and all(
                    _subset(w, g) for w, g in zip(want, got, strict=True)), \
                    f"{where}: events differ\n want {json.dumps(want)}\n got  {json.dumps(got)}"
        if "state" in step:
            for key, checks in step["state"].items():
                if key == "round":
                    assert referee.state.round == checks, f"{where}: round {referee.state.round}"
                    continue
                token = referee.state.token(key)
                for attr, want in checks.items():
                    got = _get(token, attr)
                    got = records.plain(got)
                    assert got == want, f"{where}: {key}.{attr} is {got!r}, expected {want!r}"
    return referee
