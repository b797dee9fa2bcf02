"""Heavy work beside the window: worker processes that play one job at a time.

The window's own process only draws (issue 36): a forecast played in one of its
threads shared the interpreter lock with the map and made a drag stutter (p95
22 ms → 140 ms on the speed_rank demo). Here the work runs in a process of its
own, started with ``spawn`` (a fork of a process running Qt copies its locks in
whatever state they are), at a lower priority, with its own ruleset instance (so no
cache is shared with the window's). The window hands it a job (the encounter as
file bytes) and takes the newest report when it likes; nothing here blocks it.

This module imports no Qt: the worker process imports it, and only the engine.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import pickle
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.context import SpawnProcess
from typing import Any, Protocol

from tacmap.engine.files import storage
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.ruleset import Registry, Ruleset

#: Seconds between two reports of a forecast under way (the first and last always go).
REPORT_EVERY = 0.2
#: How much lower than the window the worker runs (Unix nice): a drag always comes first.
NICENESS = 10
#: Seconds a worker holds off after the window asks it to (a drag's mouse move), and how
#: often it looks whether it may go on. On a machine whose two "cores" share one, a
#: busy worker slows the window's own work by half, whatever its priority.
HOLD, HOLD_STEP = 0.3, 0.01
#: Seconds a worker waits for a job before it looks whether the window is still there.
IDLE_CHECK = 1.0


class Told(Protocol):
    """How a task reports: ``told(result, first=…, final=…)`` (the first and final always go
    through; the others at most every ``REPORT_EVERY`` seconds)."""

    def __call__(self, result: Any, first: bool = False, final: bool = False) -> None:
        """Report ``result``."""


#: A job's work: ``task(state, ruleset, *args, told=…, stopped=…)`` returns its last word.
Task = Callable[..., Any]


@dataclass(frozen=True)
class Report:
    """What the worker says of a job: fights so far, and whether it is over."""

    job: int
    """The job's number, as ``submit`` returned it."""
    result: Any
    """The task's result so far (None when the job failed)."""
    over: bool
    """The job is done: no more reports of it will come."""
    error: str = ""
    """Why the job failed, in one sentence (empty when it did not)."""


def folders_for(ruleset: Ruleset) -> tuple[str, ...]:
    """The folders a worker loads ``ruleset`` from: none for a built-in."""
    manifest = ruleset.manifest
    return () if manifest.builtin else (str(manifest.folder),)


class Worker:
    """One worker process, started on the first job and kept for the next ones.

    ``pool``: the worker may start processes of its own (a balance plays its fights on
    every core). multiprocessing forbids that to a daemon process, so such a worker is
    not one; it is ended when the window's process exits, however the window closes.
    """

    def __init__(self, pool: bool = False) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self._pool = pool
        self._process: SpawnProcess | None = None
        self._jobs: Any = None
        self._reports: Any = None
        # The job the worker should be playing: it stops between two fights once this
        # moves on (a new job, or a cancel).
        self._wanted: Any = None
        # Until when (time.monotonic, the same clock in every process) the worker waits.
        self._held: Any = None
        # The job the worker is playing now (0 between jobs).
        self._playing: Any = None
        self._serial = 0

    def _start(self) -> None:
        ctx = self._ctx
        self._jobs, self._reports = ctx.Queue(), ctx.Queue()
        self._wanted, self._playing = ctx.RawValue("q", 0), ctx.RawValue("q", 0)
        self._held = ctx.RawValue("d", 0.0)
        self._process = ctx.Process(target=_serve, name="tacmap worker",
                                    daemon=not self._pool,
                                    args=(self._jobs, self._reports, self._wanted,
                                          self._playing, self._held, os.getpid()))
        self._process.start()
        if self._pool:
            # multiprocessing joins a process that is no daemon at exit: it would wait
            # for the search, then for ever for its next job. This runs first.
            atexit.register(self.close)

    def submit(self, task: Task, state: Encounter, ruleset: Ruleset, *args: Any) -> int:
        """Run ``task`` on ``state`` (the job under way stops); returns the job's number.

        ``task(state, ruleset, *args, told=…, stopped=…)`` runs in the worker: a function
        of a module that imports no Qt, which reports through ``told`` and returns its
        last word."""
        if self._process is None or not self._process.is_alive():
            self._start()
        self._serial += 1
        self._wanted.value = self._serial
        self._jobs.put((self._serial, task, storage.encode(state, []), ruleset.id,
                        folders_for(ruleset), args))
        return self._serial

    def hold(self, seconds: float = HOLD) -> None:
        """Let the GM's hands go first: the worker waits between two steps of its job until
        ``seconds`` from now (a drag under way calls this at each mouse move)."""
        if self._held is not None:
            self._held.value = time.monotonic() + seconds

    def cancel(self) -> None:
        """Stop the job under way after the fight it is playing."""
        self._serial += 1
        if self._wanted is not None:
            self._wanted.value = self._serial

    @property
    def pid(self) -> int | None:
        """The worker's process id (None before the first job)."""
        return None if self._process is None else self._process.pid

    def alive(self) -> bool:
        """Whether the worker process is running."""
        return self._process is not None and self._process.is_alive()

    def idle(self) -> bool:
        """Whether the worker is between jobs (a cancelled one has stopped)."""
        return self._playing is None or self._playing.value == 0

    def reports(self) -> list[Report]:
        """Every report that has come in since the last call (never waits)."""
        out: list[Report] = []
        if self._reports is None:
            return out
        while True:
            try:
                raw = self._reports.get_nowait()
            except queue.Empty:
                return out
            out.append(pickle.loads(raw))

    def close(self) -> None:
        """End the worker (it stops at once: nothing it has is worth waiting for)."""
        process, self._process = self._process, None
        if process is None:
            return
        if self._pool:
            atexit.unregister(self.close)
        self.cancel()
        with contextlib.suppress(Exception):
            self._jobs.put(None)
        process.join(0.2)
        if process.is_alive():
            process.kill()
            process.join(1.0)
        for q in (self._jobs, self._reports):
            q.close()
            q.cancel_join_thread()


def _serve(jobs: Any, reports: Any, wanted: Any, playing: Any, held: Any,
           parent: int) -> None:
    """The worker's loop: take a job, play it, report; end with the window."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)
    registries: dict[tuple[str, ...], Registry] = {}
    while os.getppid() == parent:
        try:
            job = jobs.get(timeout=IDLE_CHECK)
        except queue.Empty:
            continue
        if job is None:
            return
        if wanted.value != job[0]:
            continue  # a newer job or a cancel came before this one started
        playing.value = job[0]
        try:
            report = _play(job, registries, reports, wanted, held, parent)
        except Exception as err:  # the window says it; the worker goes on
            report = Report(job[0], None, True, f"{err}")
        finally:
            playing.value = 0
        reports.put(pickle.dumps(report))


def _play(job: tuple[Any, ...], registries: dict[tuple[str, ...], Registry], reports: Any,
          wanted: Any, held: Any, parent: int) -> Report:
    """Run one job, reporting as it goes; its last report."""
    serial, task, raw, ruleset_id, folders, args = job
    last = 0.0

    def told(result: Any, first: bool = False, final: bool = False) -> None:
        nonlocal last
        now = time.monotonic()
        if first or final or now - last >= REPORT_EVERY:
            last = now
            reports.put(pickle.dumps(Report(serial, result, False)))

    registry = registries.get(folders)
    if registry is None:
        registry = registries[folders] = Registry(folders, warn=lambda msg: None)
    state = storage.loads(raw, registry).state
    result = task(state, registry.get(ruleset_id), *args, told=told,
                  stopped=lambda: _waited(held, wanted, serial, parent))
    return Report(serial, result, True)


def _waited(held: Any, wanted: Any, serial: int, parent: int) -> bool:
    """Between two steps: wait while the window holds the worker, then whether to stop."""
    def going() -> bool:
        return wanted.value == serial and os.getppid() == parent

    while held.value > time.monotonic() and going():
        time.sleep(HOLD_STEP)
    return not going()


def forecast_task(state: Encounter, ruleset: Ruleset, fights: int, seed: int,
                  retreat: Any = None, *, told: Told, stopped: Callable[[], bool]) -> Any:
    """The window's forecast of ``state`` (``retreat``: a side that flees), told after the
    first fight and every so often."""
    from tacmap.engine.play.forecast import forecast

    return forecast(state, ruleset, fights, seed, cancelled=stopped, retreat=retreat,
                    progress=lambda result: told(result, first=result.fights == 1,
                                                 final=result.fights == fights))


def decide_task(state: Encounter, ruleset: Ruleset, actor: str, seed: int,
                seen: dict[str, set[str]], *, told: Told, stopped: Callable[[], bool]
                ) -> Any:
    """The autopilot's next command for ``actor``, with what its side has seen since."""
    from tacmap.engine.play.autopilot import Known, decide

    known = Known({side: set(ids) for side, ids in seen.items()})
    return decide(state, ruleset, actor, seed, known), known.seen


def suggest_task(state: Encounter, ruleset: Ruleset, actor: str, seed: int,
                 seen: dict[str, set[str]], *, told: Told, stopped: Callable[[], bool]
                 ) -> Any:
    """The autopilot's three best plans for ``actor``, each priced by fights played on."""
    from tacmap.engine.play.autopilot import Known, suggest

    return suggest(state, ruleset, actor, seed, known=Known(
        {side: set(ids) for side, ids in seen.items()}))


def balance_task(state: Encounter, ruleset: Ruleset, target: Any, side: str,
                 pool: tuple[Any, ...] = (), jobs: int = 1, autopilot: bool = False,
                 sizes: tuple[int, int, int] | None = None, *,
                 told: Told, stopped: Callable[[], bool]) -> Any:
    """Build ▸ Balance Encounter's search (``target`` already read; ``pool``: tokens whose
    copies may join too; ``jobs``: processes of its own, in a ``Worker(pool=True)``);
    progress lines are told as text, the proposals are its last word."""
    from tacmap.engine.play.autopilot import by_side
    from tacmap.engine.play.balance import balance

    return balance(state, ruleset, target, side, pool, jobs=jobs,
                   folders=folders_for(ruleset), told=lambda line: told(line, first=True),
                   cancelled=stopped, sizes=sizes, policy=by_side if autopilot else None)
