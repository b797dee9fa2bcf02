"""Issue 33 item 16: a forecast with worker processes stops on Ctrl+C, and its workers
never outlive it (the real command line in a subprocess, as a GM runs it)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo.tacmap"
#: How long to wait for an event (a first progress line; a process gone): bounds on a
#: wait, never figures the test asserts.
DEADLINE = 60.0
STOPPED = 20.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc to find the worker processes")


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _started() -> tuple[subprocess.Popen[bytes], set[int]]:
    """``tacmap forecast --jobs 2`` running, its progress bar drawn once, and its workers."""
    leader, follower = pty.openpty()  # the bar is drawn only on a terminal
    proc = subprocess.Popen(
        [sys.executable, "-m", "tacmap", "forecast", str(DEMO), "--fights", "1000000",
         "--jobs", "2"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=follower,
        stdin=subprocess.DEVNULL, start_new_session=True)
    os.close(follower)
    seen = b""
    end = time.monotonic() + DEADLINE
    while b"fights" not in seen and time.monotonic() < end:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if ready:
            try:
                seen += os.read(leader, 4096)
            except OSError:
                break
    workers = _children(proc.pid)
    # The terminal stays open, read, until the process is gone: closed at once, the bar's
    # next write failed (EIO) and ended the run with 1 before the Ctrl+C reached it
    # (seen under load), and unread, a full terminal would block the bar.
    threading.Thread(target=_drain, args=(leader,), daemon=True).start()
    assert b"fights" in seen, seen
    assert len(workers) >= 2, workers
    return proc, workers


def _drain(leader: int) -> None:
    """Read the terminal until its other end is gone, then close it."""
    try:
        while os.read(leader, 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(leader)


def _gone(pids: set[int]) -> set[int]:
    """Wait (boundedly) for ``pids`` to end; those still running."""
    end = time.monotonic() + STOPPED
    while any(_alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.1)
    left = {p for p in pids if _alive(p)}
    for p in left:  # never leave a runaway behind the test
        os.kill(p, signal.SIGKILL)
    return left


def test_ctrl_c_stops_a_forecast_with_workers_and_exits_130() -> None:
    proc, workers = _started()
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C: the whole foreground group
    try:
        code = proc.wait(timeout=STOPPED)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert code == 130
    assert _gone(workers) == set()


def test_workers_die_with_their_parent_when_it_is_terminated() -> None:
    proc, workers = _started()
    proc.terminate()  # SIGTERM to the parent alone
    try:
        proc.wait(timeout=STOPPED)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert _gone(workers) == set()
