"""Issue 33 item 11, by hand: walls that meet or cross, with fog on.

Not a test (pytest does not collect it): it writes the issue's hostile files next to
each other and runs ``tacmap check`` then ``tacmap render --player`` on each under
``/usr/bin/time -v``, capped at 60 s and 3 GB of address space so a bad case cannot
take the machine, and prints the time and peak RSS of each. Run from the repo root:

    python tests/engine/probe_walls.py [CASE ...]
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

DEMO = Path(__file__).parents[2] / "resources" / "demo.tacmap"
LIMIT_S, LIMIT_KB = 60, 3_000_000


def wall(a: tuple[float, float], b: tuple[float, float]) -> dict[str, Any]:
    """A plain wall from ``a`` to ``b`` as a file holds it."""
    return {"type": "wall", "points": [list(a), list(b)]}


def star(n: int, cx: float = 15.0, cy: float = 10.0, r: float = 9.5) -> list[dict[str, Any]]:
    """``n`` walls through one point, evenly turned."""
    out = []
    for i in range(n):
        t = math.pi * i / n
        dx, dy = r * math.cos(t), r * math.sin(t)
        out.append(wall((round(cx - dx, 6), round(cy - dy, 6)),
                        (round(cx + dx, 6), round(cy + dy, 6))))
    return out


def grid(n: int, w: float = 30.0, h: float = 20.0) -> list[dict[str, Any]]:
    """``n`` walls across the map and ``n`` down it: n² crossings."""
    across = [wall((0.0, round(h * (i + 1) / (n + 1), 6)), (w, round(h * (i + 1) / (n + 1), 6)))
              for i in range(n)]
    down = [wall((round(w * (i + 1) / (n + 1), 6), 0.0), (round(w * (i + 1) / (n + 1), 6), h))
            for i in range(n)]
    return across + down


def parallel(n: int, w: float = 30.0, y0: float = 9.0, y1: float = 9.99) -> list[dict[str, Any]]:
    """``n`` walls across the whole map, side by side a hair apart: nothing crosses."""
    return [wall((0.0, round(y0 + (y1 - y0) * i / n, 6)), (w, round(y0 + (y1 - y0) * i / n, 6)))
            for i in range(n)]


def scatter(n: int, w: float = 30.0, h: float = 20.0) -> list[dict[str, Any]]:
    """``n`` short walls in a lattice over the map, none touching."""
    side = math.ceil(math.sqrt(n))
    return [wall((round(w * (i % side + 0.3) / side, 6), round(h * (i // side + 0.5) / side, 6)),
                 (round(w * (i % side + 0.6) / side, 6), round(h * (i // side + 0.5) / side, 6)))
            for i in range(n)]


CASES = {
    "star1000": star(1000),
    "star2000": star(2000),
    "grid2500": grid(2500),
    "grid50": grid(50),
    "grid99": grid(99),
    "star10000": star(10_000),
    "parallel10000": parallel(10_000),
    "spread10000": parallel(10_000, y0=0.001, y1=19.999),
    "spread2000": parallel(2_000, y0=0.001, y1=19.999),
    # Just under the limits: the worst files check accepts of each kind.
    "spread4400": parallel(4_400, y0=0.001, y1=19.999),
    "parallel2000": parallel(2_000),
    "scatter10000": scatter(10_000),
}


def run(args: list[str]) -> tuple[int, float, int, str]:
    """(exit code, seconds, peak RSS kB, last line of stderr) of ``python -m tacmap ARGS``."""
    cmd = (f"ulimit -v {LIMIT_KB}; exec /usr/bin/time -v timeout {LIMIT_S} "
           f"{sys.executable} -m tacmap " + " ".join(args))
    done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, check=False)
    err = done.stderr
    secs = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", err)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    seconds = 0.0
    if secs:
        h, m, s = secs.groups()
        seconds = int(h or 0) * 3600 + int(m) * 60 + float(s)
    said = [ln for ln in err.splitlines() if ln.startswith("tacmap") or "Error" in ln]
    return done.returncode, seconds, int(rss.group(1)) if rss else 0, (said or [""])[-1][:160]


def main(names: list[str]) -> None:
    """Write each case and measure check, render and a set_walls script on it."""
    base = json.loads(DEMO.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or list(CASES):
            walls = CASES[name]
            doc = json.loads(json.dumps(base))
            doc["encounter"]["map"]["walls"] = walls
            file = Path(tmp) / f"{name}.tacmap"
            file.write_text(json.dumps(doc), encoding="utf-8")
            script = Path(tmp) / f"{name}.jsonl"
            script.write_text(json.dumps({"type": "set_walls", "walls": walls}) + "\n",
                              encoding="utf-8")
            for what, args in (
                    ("check", ["check", str(file)]),
                    ("render --player", ["render", "--player", str(file),
                                         str(Path(tmp) / f"{name}.png")]),
                    ("play set_walls", ["play", str(DEMO), "--script", str(script)])):
                code, secs, kb, said = run(args)
                print(f"{name:13} {what:16} exit {code:3}  {secs:6.1f} s  {kb / 1024:7.0f} MB"
                      f"  {said}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
