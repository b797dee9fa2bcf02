"""Scenario files: commands, fixed dice and the events they must produce.

A scenario is a JSON-lines file (``<ruleset>/scenarios/*.jsonl``; the built-in
rulesets keep theirs under ``tests/scenarios/<id>/``):

* line 1: ``{"encounter": {...}}`` — the ``encounter`` body of a .tacmap file
  (its ``ruleset`` names the ruleset); ``"ruleset_data": {"table": {"key": v}}``
  beside it plays the scenario under those ruleset.toml values instead (a reading
  the GM may choose);
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

A mismatch raises ``Mismatch``: the file and line, the command, and a diff of
the events expected and produced, one event a line.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
from pathlib import Path
from typing import Any

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import Command, describe
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.state import Encounter, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.kit.difference import first_difference


class Mismatch(Exception):
    """A scenario step did not go as written; ``str()`` is the readable report."""


def load_lines(path: Path) -> list[dict[str, Any]]:
    """The scenario's JSON objects with their line numbers under ``"_line"``."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise Mismatch(f"{path.name}:{n}: not JSON ({err.msg}, column {err.colno})") \
                from None
        if not isinstance(obj, dict):
            raise Mismatch(f"{path.name}:{n}: each line is one JSON object")
        obj["_line"] = n
        out.append(obj)
    return out


def build_state(body: dict[str, Any], registry: Registry) -> Encounter:
    """An Encounter from a file-style ``encounter`` body (tokens as a list); one that names
    no ``diagonal`` takes the ruleset's ``[grid]`` rule, as a new encounter in play does."""
    manifest = registry.manifests.get(body.get("ruleset", ""))
    if "diagonal" not in body and manifest is not None:
        body = {**body, "diagonal": manifest.diagonal}
    doc = {"format": storage.FORMAT, "version": storage.VERSION,
           "ruleset": {"id": body["ruleset"]}, "encounter": body}
    return storage.loads(json.dumps(doc), registry).state


def subset(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` holds everything ``expected`` says (lists whole, in order)."""
    return not differences(expected, actual)


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Each field where ``actual`` differs from ``expected``, as ``"path: expected X, got Y"``.

    >>> differences({"new": 2, "roll": {"faces": [9]}}, {"new": 1, "roll": {"faces": [9]}})
    ['new: expected 2, got 1']
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where or 'value'}: expected an object, got {_short(actual)}"]
        out = []
        for key, want in expected.items():
            path = f"{where}.{key}" if where else str(key)
            if key not in actual:
                out.append(f"{path}: expected {_short(want)}, got nothing")
            else:
                out += differences(want, actual[key], path)
        return out
    if isinstance(expected, list) and isinstance(actual, list) \
            and len(expected) == len(actual):
        return [d for i, (w, a) in enumerate(zip(expected, actual, strict=True))
                for d in differences(w, a, f"{where}[{i}]")]
    if expected != actual:
        return [f"{where or 'value'}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _kind(event: Any) -> str:
    return str(event.get("type", "?")) if isinstance(event, dict) else "?"


def event_diff(want: list[Any], got: list[Any]) -> list[str]:
    """The expected and produced events side by side, one line each.

    ``=`` matches, ``≠`` the same kind of event with the fields that differ,
    ``-`` expected and not produced, ``+`` produced and not expected. Events
    are paired by kind, so one missing event does not make every later one differ.
    """
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(a=[_kind(w) for w in want], b=[_kind(g) for g in got],
                                      autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for w, g in zip(want[i1:i2], got[j1:j2], strict=True):
                found = differences(w, g)
                lines.append(f"  ≠ {_kind(g)}: {'; '.join(found)}" if found
                             else f"  = {_kind(g)}")
            continue
        lines += [f"  - {_kind(w)} {_short(_fields(w))}   (expected, not produced)"
                  for w in want[i1:i2]]
        lines += [f"  + {_kind(g)} {_short(_fields(g))}   (produced, not expected)"
                  for g in got[j1:j2]]
    return lines


def _fields(event: Any) -> Any:
    return {k: v for k, v in event.items() if k != "type"} if isinstance(event, dict) else event


def _get(token: Token, key: str) -> Any:
    if key.startswith("values."):
        return token.values.get(key[len("values."):])
    if key.startswith("stats."):
        return token.stats.get(key[len("stats."):])
    return getattr(token, key)


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it, table by table."""
    out = dict(base)
    for key, value in changes.items():
        old = out.get(key)
        out[key] = _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) \
            else value
    return out


def run(path: Path, registry: Registry, ruleset_id: str = "") -> Referee:
    """Run one scenario file; ``Mismatch`` on the first step that does not go as written.
    ``ruleset_id``: play it under that ruleset whatever its encounter names (a copy of a
    built-in ruleset under a new id checks the copy, not the original)."""
    lines = load_lines(path)
    if not lines or "encounter" not in lines[0]:
        raise Mismatch(f"{path.name}: the first line must hold the encounter")
    encounter = lines[0]["encounter"]
    if ruleset_id and isinstance(encounter, dict):
        encounter = {**encounter, "ruleset": ruleset_id}
    try:
        state = build_state(encounter, registry)
    except (InputError, KeyError, TypeError) as err:
        raise Mismatch(f"{path.name}:{lines[0]['_line']}: the encounter: {err}") from None
    rules = registry.get(state.ruleset)
    if "ruleset_data" in lines[0]:
        # The scenario plays under other ruleset.toml values: a reading the GM may choose.
        data = _merged(rules.manifest.data, lines[0]["ruleset_data"])
        rules = type(rules)(dataclasses.replace(rules.manifest, data=data))
    referee = Referee(state, rules)
    for step in lines[1:]:
        where = f"{path.name}:{step['_line']}"
        if "command" in step:
            _command(referee, step, where, registry)
        if "state" in step:
            _state(referee, step["state"], where)
    return referee


def _command(referee: Referee, step: dict[str, Any], where: str, registry: Registry) -> None:
    try:
        cmd = records.convert(step["command"], Command, "command")
        dice = FixedDice(step.get("dice", []))
    except (InputError, TypeError, ValueError) as err:
        raise Mismatch(f"{where}: {err}") from None
    said = describe(cmd)
    if "error" in step:
        before = copy.deepcopy(referee.state)
        try:
            referee.execute(cmd, dice)
        except RuleError as err:
            if str(step["error"]).lower() not in str(err).lower():
                raise Mismatch(f"{where}: {said}: refused for {str(err)!r}, expected a "
                               f"refusal saying {step['error']!r}") from None
            if referee.state != before:
                raise Mismatch(f"{where}: {said}: a refused command changed the state") \
                    from None
            return
        raise Mismatch(f"{where}: {said}: expected a refusal saying {step['error']!r}, "
                       "but it was carried out")
    try:
        events = referee.execute(cmd, dice)
    except RuleError as err:
        raise Mismatch(f"{where}: {said}: refused: {err}") from None
    if dice.used != len(dice.faces):
        raise Mismatch(f"{where}: {said}: {len(dice.faces) - dice.used} of the given dice "
                       f"were not used (faces {list(dice.faces)}, {dice.used} used)")
    _survives(referee, registry, where)  # before the events: the cause, not its symptom
    if "events" in step:
        got = records.plain(list(events))
        want = step["events"]
        if len(got) != len(want) or not all(
                subset(w, g) for w, g in zip(want, got, strict=True)):
            raise Mismatch("\n".join([f"{where}: {said}: the events differ "
                                      f"(expected {len(want)}, produced {len(got)})",
                                      *event_diff(want, got)]))


def _survives(referee: Referee, registry: Registry, where: str) -> None:
    """The state after a step comes back the same from its file: a value a rule stored
    that saving and loading changes (a list back as a tuple) is named by its path."""
    state = referee.state
    try:
        back = storage.loads(storage.encode(state, []), registry).state
    except InputError as err:
        raise Mismatch(f"{where}: the state after this step cannot be saved and loaded: "
                       f"{err}") from None
    if back != state:
        found = first_difference(state, back)
        said = (f"{found[0]}: {found[1]!r} comes back as {found[2]!r}" if found else
                "the encounter")
        raise Mismatch(f"{where}: saving and loading changes {said}")


def _state(referee: Referee, checks: dict[str, Any], where: str) -> None:
    for key, wanted in checks.items():
        if key == "round":
            if referee.state.round != wanted:
                raise Mismatch(f"{where}: round: expected {wanted}, got {referee.state.round}")
            continue
        token = referee.state.tokens.get(key)
        if token is None:
            raise Mismatch(f"{where}: there is no token {key!r}")
        for attr, want in wanted.items():
            try:
                got = records.plain(_get(token, attr))
            except AttributeError:
                raise Mismatch(f"{where}: a token has no {attr!r}") from None
            if got != want:
                raise Mismatch(f"{where}: {key}.{attr}: expected {_short(want)}, "
                               f"got {_short(got)}")
