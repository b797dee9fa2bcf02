"""Worker processes beside the window (issue 36): the heavy work never runs in its process."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.ui.demos import demo_path
from tacmap.ui.workers import Report, Worker, forecast_task


def wait_for(worker: Worker, job: int, seconds: float = 60.0) -> list[Report]:
    """Every report of ``job`` until its last one (the worker's own pace, bounded)."""
    got: list[Report] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got += [r for r in worker.reports() if r.job == job]
        if got and got[-1].over:
            return got
        time.sleep(0.01)
    raise AssertionError(f"job {job} never finished: {got}")


def failing_task(state: Encounter, ruleset: Ruleset, *, told: Any,
                 stopped: Callable[[], bool]) -> None:
    """A task that fails as a broken plug-in would."""
    raise KeyError("spear")


@pytest.fixture
def demo() -> tuple[Encounter, Ruleset]:
    registry = Registry()
    state = storage.load(demo_path(), registry).state
    return state, registry.get(state.ruleset)


def test_a_forecast_in_a_worker_gives_what_it_gives_in_process(
        demo: tuple[Encounter, Ruleset]) -> None:
    from tacmap.engine.play.forecast import forecast

    state, ruleset = demo
    worker = Worker()
    try:
        job = worker.submit(forecast_task, state, ruleset, 12, 1)
        reports = wait_for(worker, job)
    finally:
        worker.close()
    last = reports[-1].result
    assert reports[0].result.fights == 1, "the first fight is reported at once"
    here = forecast(state, ruleset, 12, 1)
    assert (last.fights, dict(last.wins), last.drops) == (12, dict(here.wins), here.drops)


def test_a_failing_job_says_why_and_the_worker_goes_on(demo: tuple[Encounter, Ruleset]
                                                       ) -> None:
    state, ruleset = demo
    worker = Worker()
    try:
        failed = wait_for(worker, worker.submit(failing_task, state, ruleset))
        assert failed[-1].result is None and "spear" in failed[-1].error
        pid = worker.pid
        done = wait_for(worker, worker.submit(forecast_task, state, ruleset, 2, 1))
        assert done[-1].result.fights == 2 and worker.pid == pid
    finally:
        worker.close()
    assert not worker.alive()


def test_the_worker_module_imports_no_qt() -> None:
    """The worker process imports this module: it loads the engine, never Qt."""
    code = ("import sys, tacmap.ui.workers; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_held_worker_waits_between_fights_and_goes_on_after(
        demo: tuple[Encounter, Ruleset]) -> None:
    """While the GM drags, the window holds its workers: on a machine whose two cores
    share one, a busy worker slows the drag whatever its priority (issue 36)."""
    state, ruleset = demo
    worker = Worker()
    try:
        job = worker.submit(forecast_task, state, ruleset, 100_000, 1)
        seen: list[Report] = []
        while not seen:
            seen = [r for r in worker.reports() if r.job == job]
            time.sleep(0.01)
        worker.hold(60.0)
        time.sleep(0.5)  # whatever fight was under way ends; no other starts
        before = max(r.result.fights for r in seen + worker.reports() if r.job == job)
        time.sleep(1.0)
        held = [r.result.fights for r in worker.reports() if r.job == job]
        assert all(n <= before + 1 for n in held), (before, held)
        worker.hold(0.0)  # let go: the fights go on
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            more = [r.result.fights for r in worker.reports() if r.job == job]
            if more and max(more) > before + 1:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the worker never went on")
    finally:
        worker.close()
