"""``tacmap ruleset check DIR``: the checks a ruleset folder must pass, headless.

Three parts, one summary line each, and the details of whatever failed:

* **shape** — the folder has the documented files, ``ruleset.toml`` reads and
  converts to the ruleset's typed tables, the ruleset loads, and no module reads
  its TOML by hand;
* **scenarios** — every scenario file replays to its expected events, refusals
  and state (``tacmap.kit.scenarios``), and its log replays to the same state;
* **contract** — the every-action contract on the demo encounter, through the
  headless driver (``tacmap.engine.play.autoplay``): every offered option for N
  rounds under K seeds, no refusal, a combatant added mid-combat gets turns,
  undo all and redo all restore the state exactly, save and load round-trip.
"""

from __future__ import annotations

import ast
import copy
import difflib
import inspect
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.words import plural
from tacmap.engine.play.autoplay import Crashed, contract
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.ruleset import (
    API_VERSION,
    VIEWS,
    Manifest,
    Registry,
    Ruleset,
    RulesetData,
    read_manifest,
)
from tacmap.kit.difference import first_difference
from tacmap.kit.scenarios import Mismatch, load_lines, run

#: The files every ruleset folder has (rulesets/README.md, "The shape of a ruleset folder").
FILES = ("ruleset.toml", "README.md", "data.py", "rules.py", "views.py")
ROUNDS = 20
SEEDS = 3


@dataclass
class Part:
    """One part of the check: its verdict, its one-line summary, what went wrong."""

    name: str
    """``shape``, ``scenarios`` or ``contract``."""
    ok: bool
    """Whether it passed."""
    summary: str
    """One line: what was checked and how it went."""
    details: list[str] = field(default_factory=list)
    """Each failure, readable on its own (a diff may take several lines)."""
    seconds: float = 0.0
    """How long it took."""

    def line(self) -> str:
        """``shape: ok — …`` or ``contract: FAILED — …``."""
        return f"{self.name}: {'ok' if self.ok else 'FAILED'} — {self.summary}"


def ast_problems(path: Path, door: bool = True) -> list[str]:
    """Where a ruleset module reads its TOML by hand (``tomllib``, ``manifest.data``) or,
    with ``door`` (ruleset API 2 on), imports tacmap other than through ``tacmap.api``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            outside = [n for n in names if n.startswith("tacmap.") and n != "tacmap.api"]
            if outside and door:
                found.append(f"{path.name} line {node.lineno} imports {outside[0]}: import "
                             "from tacmap.api (the engine's own modules may move)")
            if "tomllib" in names:
                found.append(f"{path.name} line {node.lineno} imports tomllib: read "
                             "manifest.tables(Data) instead")
        if isinstance(node, ast.Attribute) and node.attr == "data" \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "manifest":
            found.append(f"{path.name} line {node.lineno} reads manifest.data: read "
                         "manifest.tables(Data) instead")
    return found


def misnamed(folder: Path, ruleset: Ruleset) -> list[str]:
    """A view in views.py or a method of the rules whose name is a near miss of one the
    engine calls (``option`` for ``options``): the engine would never call it."""
    found = []
    views = folder / "views.py"
    if views.is_file():
        tree = ast.parse(views.read_text(encoding="utf-8"), str(views))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name not in VIEWS:
                near = difflib.get_close_matches(node.name, VIEWS, n=1, cutoff=0.8)
                found += [f"views.{node.name}: did you mean {near[0]}? (the engine never "
                          f"calls {node.name})" for _ in near]
    engine = next(c for c in type(ruleset).__mro__ if c.__module__.startswith("tacmap."))
    hooks = [n for n in dir(engine) if not n.startswith("_")]
    for cls in type(ruleset).__mro__:
        if cls.__module__.startswith("tacmap.") or cls is object:
            break
        for name in vars(cls):
            if not name.startswith("_") and name not in hooks:
                # A typo of a hook takes its parameters: a near name that takes others
                # is a method of the rules' own (six_phase's declare, not declared).
                near = [h for h in difflib.get_close_matches(name, hooks, n=1, cutoff=0.85)
                        if arity(getattr(engine, h)) == arity(vars(cls)[name])]
                found += [f"rules.{name}: did you mean {near[0]}? (the engine never calls "
                          f"{name})" for _ in near]
    return found


def arity(thing: object) -> int:
    """How many parameters ``thing`` takes (-1: it is not a function)."""
    try:
        return len(inspect.signature(thing).parameters)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return -1


def user_manifest(folder: Path) -> Manifest | None:
    """The manifest of ``folder`` when it is a user's ruleset folder (its code runs only when
    trusted); None for a built-in's own folder, or one whose ruleset.toml does not read
    (the shape check says why, and nothing of it runs)."""
    try:
        manifest = read_manifest(folder / "ruleset.toml", builtin=False)
    except InputError:
        return None
    known = Registry(warn=lambda message: None).manifests.get(manifest.id)
    if known is not None and known.folder.resolve() == folder.resolve():
        return None
    return manifest


def load(folder: Path, warn: Callable[[str], None]) -> tuple[Registry, Ruleset]:
    """The registry that sees ``folder`` and the ruleset in it (InputError if it will not
    load). A built-in ruleset's own folder is checked as the built-in it is."""
    manifest = read_manifest(folder / "ruleset.toml", builtin=False)
    builtin = Registry(warn=warn)
    known = builtin.manifests.get(manifest.id)
    if known is not None and known.folder.resolve() == folder.resolve():
        return builtin, builtin.get(manifest.id)
    registry = Registry([folder], warn=warn)
    return registry, registry.get(manifest.id)


def check_shape(folder: Path, warn: Callable[[str], None]
                ) -> tuple[Part, tuple[Registry, Ruleset] | None]:
    """The folder's files, its ruleset.toml and whether the ruleset loads."""
    problems = [f"there is no {name} in {folder}" for name in FILES
                if not (folder / name).is_file()]
    if not (folder / "ruleset.toml").is_file():
        return Part("shape", False, "no ruleset.toml", problems), None
    loaded: tuple[Registry, Ruleset] | None = None
    try:
        loaded = load(folder, warn)
    except InputError as err:
        problems.append(str(err))
    except Exception as err:  # a user's rules.py may raise anything as it loads
        problems.append(f"rules.py failed to load: {type(err).__name__}: {err}")
    door = loaded is None or loaded[1].manifest.data.get("api", API_VERSION) != 1
    for path in sorted(folder.glob("*.py")):
        try:
            problems += ast_problems(path, door)
        except SyntaxError as err:
            problems.append(f"{path.name} line {err.lineno}: {err.msg}")
    if loaded is not None:
        problems += misnamed(folder, loaded[1])
        data = getattr(loaded[1], "data", None)
        if not isinstance(data, RulesetData):
            problems.append("the ruleset keeps no typed tables: set self.data = "
                            "manifest.tables(Data) in its __init__")
        elif not type(data).__module__.endswith(".data"):
            problems.append(f"its Data comes from {type(data).__module__}, not data.py")
    if problems or loaded is None:
        return Part("shape", False, f"{len(problems)} problem(s)", problems), loaded
    m = loaded[1].manifest
    return Part("shape", True, f"{m.id} ({m.name}) {m.version}, api {m.data.get('api')}, "
                               f"{len(FILES)} files, ruleset.toml converts"), loaded


def check_scenarios(folder: Path, registry: Registry, ruleset_id: str = "") -> Part:
    """Every ``*.jsonl`` under ``folder`` replays as written (under ``ruleset_id``, if given:
    the ruleset being checked)."""
    files = sorted(folder.rglob("*.jsonl")) if folder.is_dir() else []
    if not files:
        return Part("scenarios", False, f"no scenario files (*.jsonl) under {folder}",
                    ["write at least one: rulesets/README.md, 'Scenario files'"])
    failed: list[str] = []
    steps = 0
    for path in files:
        try:
            referee = run(path, registry, ruleset_id)
            if replay(referee.initial_state(), referee.log) != referee.state:
                raise Mismatch(f"{path.name}: its log does not replay to the same state")
            steps += len(load_lines(path)) - 1
        except Mismatch as err:
            failed.append(str(err))
        except (InputError, RuleError) as err:
            failed.append(f"{path.name}: {err}")
    if failed:
        return Part("scenarios", False, f"{len(failed)} of {len(files)} files failed", failed)
    return Part("scenarios", True, f"{plural(len(files), 'file')}, {steps} steps as written")


def find_scenarios(folder: Path, ruleset_id: str) -> Path:
    """Where the scenario files are: the folder's ``scenarios/``, else, for a built-in ruleset
    in a checkout of tacmap, the project's ``tests/scenarios/<id>/`` (where its tests keep
    them; the wheel carries them in the folder's ``scenarios/``)."""
    own = folder / "scenarios"
    project = folder.resolve().parent.parent / "tests" / "scenarios" / ruleset_id
    return project if not own.is_dir() and project.is_dir() else own


def find_demo(folder: Path, ruleset_id: str) -> Path | None:
    """The demo to play: a .tacmap in the folder, else the built-in demo of that ruleset."""
    own = sorted(folder.glob("*.tacmap"))
    if own:
        return own[0]
    here = Path(__file__).resolve().parent.parent  # tacmap/
    for resources in (here.parent / "resources", here / "_resources"):
        for path in sorted(resources.glob("*.tacmap")):
            try:
                if records.parse(path.read_bytes())["ruleset"]["id"] == ruleset_id:
                    return path
            except (InputError, OSError, KeyError, TypeError):
                continue
    return None


def exact(referee: Referee, start: storage.Loaded, registry: Registry) -> list[str]:
    """Undo all, redo all, and save then load: each must give back the state exactly."""
    problems = []
    final, log = copy.deepcopy(referee.state), list(referee.log)
    encoded = storage.encode(final, log, start.images)
    back = storage.loads(encoded, registry)
    if back.state != final or storage.encode(back.state, back.log, back.images) != encoded:
        where = first_difference(final, back.state)
        problems.append(f"saving and loading changes {where[0]}: {where[1]!r} comes back as "
                        f"{where[2]!r}" if where else
                        "saving and loading the fight does not give back the same encounter")
    if replay(referee.initial_state(), log) != final:
        problems.append("replaying the log does not give the same state")
    while len(referee.log) > len(start.log):
        referee.undo()
    if referee.state != start.state:
        problems.append("undoing every command does not give back the demo as it was loaded")
    while referee.redo_stack:
        referee.redo()
    if referee.state != final:
        problems.append("redoing every command does not give back the fight's end")
    return problems


def frames(error: BaseException, ruleset: Ruleset) -> str:
    """The traceback's last frames inside the ruleset's folder, as Python prints them."""
    folder = str(ruleset.manifest.folder.resolve())
    inside = [f for f in traceback.extract_tb(error.__traceback__)
              if str(Path(f.filename).resolve()).startswith(folder)]
    return ("\n" + "".join(traceback.format_list(inside[-FRAMES:])).rstrip()) if inside else ""


def check_contract(registry: Registry, ruleset: Ruleset, demo: Path | None, rounds: int,
                   seeds: int, strict: bool = False) -> Part:
    """The every-action contract on ``demo`` for ``rounds`` rounds under ``seeds`` seeds;
    options never offered (never enabled) are listed, and fail it when ``strict``."""
    if demo is None:
        return Part("contract", False, "no demo encounter to play",
                    ["put a .tacmap of this ruleset in the folder, or name one with --demo"])
    problems: list[str] = []
    totals: Counter[str] = Counter()
    labels: set[str] = set()
    offered: dict[str, bool] = {}
    keys: set[str] = set()
    aimless: dict[str, str] = {}
    for seed in range(seeds):
        start = storage.load(demo, registry)
        if start.state.ruleset != ruleset.id:
            return Part("contract", False, f"{demo.name} is a {start.state.ruleset} encounter",
                        [f"name a demo of {ruleset.id} with --demo"])
        referee = Referee(copy.deepcopy(start.state), ruleset, list(start.log))
        try:
            tally = contract(referee, seed, rounds)
        except Crashed as crash:
            return Part("contract", False, "the ruleset raised an error",
                        [f"seed {seed}, {crash}" + frames(crash.error, ruleset)])
        problems += [f"seed {seed}: {p}" for p in tally.problems]
        problems += [f"seed {seed}: {p}" for p in exact(referee, start, registry)]
        totals.update(steps=tally.steps, tried=tally.tried, executed=tally.executed,
                      refusals=tally.refusals, joined=int(tally.turns[tally.joined] > 0))
        labels |= set(tally.labels)
        for label, said in tally.aimless.items():
            aimless.setdefault(label, f"seed {seed}: {said}")
        for label, enabled in tally.offered.items():
            offered[label] = offered.get(label, False) or enabled
        keys |= tally.keys
    if not keys - {"move", "end_turn"}:
        # What a misnamed or empty ``options`` view leaves: the machinery's own buttons.
        problems.append("no step offered an action of the ruleset's own, only Move and End "
                        "turn: the Actions panel is empty of your rules (is `options` in "
                        "views.py named so, and does it return the options?)")
    never = sorted(label for label, enabled in offered.items() if not enabled)
    played = 0
    for key, option in ruleset.manifest.options.items():
        # Once more under every value of every house rule (seed 0), the default included.
        for value in option.values:
            start = storage.load(demo, registry)
            start.state.house_rules = {**start.state.house_rules, key: value}
            referee = Referee(copy.deepcopy(start.state), ruleset, list(start.log))
            tally = contract(referee, 0, rounds)
            where = f"house rule {key} = {value}"
            problems += [f"{where}: {p}" for p in tally.problems]
            problems += [f"{where}: {p}" for p in exact(referee, start, registry)]
            played += 1
    summary = (f"{seeds} seed{'' if seeds == 1 else 's'} × {rounds} rounds on {demo.name}"
               + (f" and once under each of {played} house rule values" if played else "")
               + f": {totals['tried']:,} options "
               f"tried ({len(labels)} different), {totals['executed']:,} executed, "
               f"{totals['refusals']} refused; the newcomer acted in {totals['joined']} of "
               f"{seeds}; undo, redo, save and load exact")
    # Shown as offered, never enabled in any game: a rule that cannot happen, or a demo
    # that never leads to it (a note, or a failure under --strict).
    # Enabled with no legal target: the built-ins do so on purpose (the target's preview
    # says why), so a note too.
    notes = [f"never offered: {label}" for label in never] + list(aimless.values())
    if problems:
        # One line for each kind of problem, with the first seed it happened under.
        shown: dict[str, str] = {}
        for p in problems:
            shown.setdefault(p.partition(": ")[2], p)
        return Part("contract", False, summary.rpartition(";")[0],
                    list(shown.values()) + notes)
    return Part("contract", not (strict and notes), summary, notes)


#: Frames of a ruleset's traceback the check shows, the last ones.
FRAMES = 4


def check(folder: Path, *, demo: Path | None = None, scenarios: Path | None = None,
          rounds: int = ROUNDS, seeds: int = SEEDS, strict: bool = False,
          warn: Callable[[str], None] = lambda message: None) -> list[Part]:
    """Every part of the check of the ruleset folder ``folder``, in order."""
    began = time.perf_counter()
    shape, loaded = check_shape(folder, warn)
    shape.seconds = time.perf_counter() - began
    parts = [shape]
    if loaded is None:
        return parts
    registry, ruleset = loaded

    def scenario_part() -> Part:
        return check_scenarios(scenarios or find_scenarios(folder, ruleset.id), registry,
                               ruleset.id)

    def contract_part() -> Part:
        return check_contract(registry, ruleset, demo or find_demo(folder, ruleset.id),
                              rounds, seeds, strict)

    work: Callable[[], Part]
    for name, work in (("scenarios", scenario_part), ("contract", contract_part)):
        began = time.perf_counter()
        try:
            part = work()
        except (InputError, RuleError) as err:
            part = Part(name, False, "stopped", [str(err)])
        except Exception as err:  # the ruleset's code is under test: report, do not crash
            part = Part(name, False, "the ruleset raised an error",
                        [f"{type(err).__name__}: {err}"])
        part.seconds = time.perf_counter() - began
        parts.append(part)
    return parts


def report(parts: list[Part], out: Callable[[str], None] = print) -> int:
    """Print one line per part and the details of failures; the exit code (0 or 2)."""
    for part in parts:
        out(f"{part.line()} ({part.seconds:.1f} s)")
        for detail in part.details:
            out("    " + detail.replace("\n", "\n    "))
    ok = len(parts) == 3 and all(p.ok for p in parts)
    if len(parts) < 3:
        out("scenarios, contract: not run (the ruleset does not load)")
    return 0 if ok else 2


def main(folder: Path, demo: Path | None, scenarios: Path | None, rounds: int, seeds: int,
         warn: Callable[[str], None], strict: bool = False) -> int:
    """``tacmap ruleset check``: run and print the check; the exit code."""
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder")
    if demo is not None and not demo.is_file():
        raise InputError(f"{demo}: no such encounter file")
    code = report(check(folder, demo=demo, scenarios=scenarios, rounds=rounds, seeds=seeds,
                        strict=strict, warn=warn))
    sys.stdout.flush()
    return code
