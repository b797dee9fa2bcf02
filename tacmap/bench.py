"""``tacmap bench``: the DESIGN §7 figures, each with its budget.

Speed is measured here, never in timed unit tests. Every figure is the time of
one operation, repeated; p50 and p95 are printed in milliseconds.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tacmap.engine.files import storage
from tacmap.engine.model.commands import FreeMove, Move
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Manifest, Registry, Ruleset


@dataclass(frozen=True)
class Figure:
    """One measured figure against its budget."""

    name: str
    """What was timed."""
    p50: float
    """Median, milliseconds."""
    p95: float
    """95th percentile, milliseconds."""
    budget: float
    """Budget in milliseconds, for the statistic named by ``on``."""
    on: str = "p95"
    """Which statistic the budget applies to: "p50", "p95" or "max"."""
    worst: float = 0.0
    """Slowest run, milliseconds."""
    unit: str = "ms"
    """What the numbers count: milliseconds, or "×" for a ratio to a floor."""

    @property
    def ok(self) -> bool:
        """Within budget."""
        value = {"p50": self.p50, "p95": self.p95}.get(self.on, self.worst)
        return value <= self.budget


class Measure(Protocol):
    """``measure(name, samples, budget, on, unit)``: how a figure source hands over one."""

    def __call__(self, name: str, samples: list[float], budget: float, on: str,
                 unit: str = "ms") -> object:
        """Keep one figure."""
#: ``source(registry, ruleset, big_encounter, quick, measure)``: more figures from another
#: layer (the map's come from ``tacmap.ui.bench``). The CLI passes them in, so this module
#: never imports the UI and the UI's bench may import this one.
FigureSource = Callable[[Registry, Ruleset, Callable[..., Encounter], bool, Measure], object]


def time_runs(fn: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds of each of ``runs`` calls of ``fn``."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        kept = fn()
        out.append((time.perf_counter() - t0) * 1000)
        # Freed after the clock stops: freeing a loaded encounter is not loading one.
        del kept
    return out


def p95(samples: Sequence[float]) -> float:
    """The 95th percentile of ``samples`` (the nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _figure(name: str, samples: list[float], budget: float, on: str = "p95",
            unit: str = "ms") -> Figure:
    samples = sorted(samples)
    return Figure(name, statistics.median(samples), p95(samples), budget, on, samples[-1],
                  unit)


def big_encounter(ruleset_id: str, tokens: int = 2000, walls: int = 500,
                  size: int = 200, seed: int = 1) -> Encounter:
    """A crowded map: ``tokens`` 1×1 tokens on two sides and ``walls`` short walls."""
    rnd = random.Random(seed)  # a local generator: the module-level one is never used
    state = Encounter(ruleset=ruleset_id, map=MapSpec(size, size), seed=seed)
    wall_list = []
    for _ in range(walls):
        x, y = rnd.randrange(size - 6), rnd.randrange(size - 6)
        if rnd.random() < 0.5:
            wall_list.append(Wall(((x, y), (x + rnd.randint(2, 6), y))))
        else:
            wall_list.append(Wall(((x, y), (x, y + rnd.randint(2, 6)))))
    state.map.walls = tuple(wall_list)
    taken: set[tuple[int, int]] = set()
    while len(state.tokens) < tokens:
        x, y = rnd.randrange(size), rnd.randrange(size)
        if (x, y) in taken:
            continue
        taken.add((x, y))
        i = len(state.tokens)
        state.tokens[f"t{i}"] = Token(f"t{i}", f"Token {i}", "red" if i % 2 else "blue", x, y)
    return state


def _bench_ruleset(registry: Registry) -> Ruleset:
    for rid in ("action_pool", *registry.ids()):
        if rid in registry.manifests:
            return registry.get(rid)
    return Ruleset(Manifest("bench", "Bench", "0", Path("."), True, "rectilinear"))


SIGHT_FIGURE = ("fog: visible area after a one-cell move (1,000 wall segments in rooms and "
                "doors, 8 viewers, no sight range)")


def sight_samples(reps: int) -> list[float]:
    """Times of the party's sight after one viewer steps to a cell it never stood on.

    The other seven viewers' polygons (and their union) are cached, as they are
    in play; the mover's polygon is dropped from the cache before each step.
    """
    from tacmap.engine.play.benching import dungeon
    from tacmap.engine.space.geometry import Walls
    from tacmap.engine.space.vision import Sight

    sight = Sight(Walls(dungeon()), 120, 120)
    others = tuple((12 + 20 * (k % 4), 12 + 20 * (k // 4 % 2) + 40, 1, None) for k in range(7))
    sight.union(((12, 12, 1, None), *others))
    cells = [(11 + i % 8, 11 + (i // 8) % 8) for i in range(reps)]
    samples = []
    for x, y in cells:
        viewer = (x, y, 1, None)
        sight._cache.pop(viewer, None)
        start = time.perf_counter()
        sight.union((viewer, *others))
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def run(registry: Registry, quick: bool = False,
        sources: Sequence[FigureSource] = ()) -> list[Figure]:
    """Measure every figure: the engine's, each ruleset's, then those of each of ``sources``."""
    figures = []
    ruleset = _bench_ruleset(registry)
    reps = 40 if quick else 400

    # Live preview per mouse move, the window's path: referee.preview(Move) with the
    # caches of one state version (route + cost + reach left + threats).
    state = big_encounter(ruleset.id)
    state.diagonal = ruleset.manifest.diagonal
    referee = Referee(state, ruleset)
    mover = next(iter(state.tokens.values()))
    rnd = random.Random(7)
    cells = [(min(199, max(0, mover.x + rnd.randint(-10, 10))),
              min(199, max(0, mover.y + rnd.randint(-10, 10)))) for _ in range(reps)]
    it = iter(cells)
    referee.preview(Move(mover.id, (cells[0],)))  # the first answer builds the caches
    figures.append(_figure("preview per mouse move (2,000 tokens, 500 walls)",
                           time_runs(lambda: referee.preview(Move(mover.id, (next(it),))), reps),
                           2.0))
    # Before the 10,000-event log below is built: its garbage is no part of sight.
    figures.append(_figure(SIGHT_FIGURE, sight_samples(reps), 3.0))

    # Undo and redo at the end of a 10,000-event log.
    state = big_encounter(ruleset.id, walls=0)
    referee = Referee(state, ruleset)
    ids = list(state.tokens)
    for i in range(10_000):
        t = state.tokens[ids[i % len(ids)]]
        referee.execute(FreeMove(t.id, ((t.x + 1) % 200, t.y)))

    def undo_redo() -> None:
        referee.undo()
        referee.redo()

    figures.append(_figure("undo + redo at the end of a 10,000-event log",
                           time_runs(undo_redo, reps), 50.0, "max"))

    # Save and load of 2,000 tokens and 10,000 events.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.tacmap"
        n = 5 if quick else 60
        figures.append(_figure("save 2,000 tokens + 10,000 events",
                               time_runs(lambda: storage.save(path, referee.state, referee.log), n),
                               50.0))
        registry.manifests.setdefault(ruleset.id, ruleset.manifest)
        registry._loaded.setdefault(ruleset.id, ruleset)
        figures.append(_figure("load 2,000 tokens + 10,000 events",
                               time_runs(lambda: storage.load(path, registry), n), 50.0))
    for rid in registry.ids():
        figures.extend(_ruleset_figures(registry.get(rid), reps))

    def measure(name: str, samples: list[float], budget: float, on: str,
                unit: str = "ms") -> None:
        figures.append(_figure(name, samples, budget, on, unit))

    for source in sources:
        source(registry, ruleset, big_encounter, quick, measure)
    return figures


def _ruleset_figures(ruleset: Ruleset, reps: int) -> list[Figure]:
    """The figures a ruleset measures itself (attack execute, odds), named with its id."""
    return [_figure(f"{ruleset.id}: {name}", time_runs(fn, reps), budget)
            for name, fn, budget in ruleset.bench()]


def main(registry: Registry, as_json: bool = False, quick: bool = False,
         sources: Sequence[FigureSource] = ()) -> int:
    """Print the figures; exit 1 when a figure is over its budget (a script can rely on
    it), else 0."""
    figures = run(registry, quick, sources)
    if as_json:
        # A ratio keeps the same keys (a reader of the JSON checks "unit").
        print(json.dumps([{"name": f.name, "p50_ms": round(f.p50, 3), "p95_ms": round(f.p95, 3),
                           "max_ms": round(f.worst, 3), "budget_ms": f.budget,
                           "budget_on": f.on, "unit": f.unit, "ok": f.ok} for f in figures],
                         indent=2))
    else:
        width = max((len(f.name) for f in figures), default=0)
        for f in figures:
            mark = "ok" if f.ok else "OVER BUDGET"
            u = f.unit
            print(f"{f.name:{width}s} p50 {f.p50:8.3f} {u:2s}  p95 {f.p95:8.3f} {u:2s}"
                  f"  max {f.worst:8.3f} {u:2s}  budget {f.on} ≤ {f.budget:g} {u}  {mark}")
    return 0 if all(f.ok for f in figures) else 1
