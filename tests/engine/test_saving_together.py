"""Saves that meet: two processes on one file, a file reached through a link."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_state

DEMO = Path(__file__).parents[2] / "resources" / "demo.tacmap"

_SAVER = """
import sys
from tacmap.engine.files import storage
from tacmap.engine.rules.ruleset import Registry
path, who, times = sys.argv[1], sys.argv[2], int(sys.argv[3])
loaded = storage.load(path, Registry())
state, failed = loaded.state, 0
print("ready", flush=True)
sys.stdin.readline()
for n in range(1, times + 1):
    state.name = f"{who} {n}"
    try:
        storage.save(path, state, loaded.log)
    except OSError as err:
        failed += 1
        print("failed:", err, flush=True)
print("failed", failed, flush=True)
"""


@pytest.mark.skipif(os.name != "posix", reason="pids in temp names are checked on POSIX")
def test_two_processes_saving_one_file_1000_times_each_never_fail(
        tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "f.tacmap"
    path.write_bytes(DEMO.read_bytes())
    savers = [subprocess.Popen([sys.executable, "-c", _SAVER, str(path), who, "1000"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
              for who in ("A", "B")]
    for saver in savers:
        assert saver.stdout is not None and saver.stdout.readline().strip() == "ready"
    for saver in savers:  # both start together
        assert saver.stdin is not None
        saver.stdin.write("go\n")
        saver.stdin.flush()
    outputs = [saver.communicate(timeout=300)[0] for saver in savers]
    assert [out.splitlines()[-1] for out in outputs] == ["failed 0", "failed 0"], outputs
    # Nothing lost: the file is one writer's last save, whole, and no temp file is left.
    assert storage.load(path, registry).state.name in ("A 1000", "B 1000")
    storage.load(path.with_name("f.tacmap.bak"), registry)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.tacmap", "f.tacmap.bak"]


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_saving_through_a_link_writes_the_linked_file_and_keeps_the_link(
        tmp_path: Path, registry: Registry) -> None:
    real = tmp_path / "campaign" / "fight.tacmap"
    real.parent.mkdir()
    storage.save(real, skirmish_state(), [])
    link = tmp_path / "fight.tacmap"
    link.symlink_to(real)
    state = skirmish_state()
    state.name = "Through the link"
    storage.save(link, state, [])
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert storage.load(real, registry).state.name == "Through the link"
    assert (real.parent / "fight.tacmap.bak").is_file()  # the backup sits by the real file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign", "fight.tacmap"]
