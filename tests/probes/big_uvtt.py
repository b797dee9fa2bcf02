"""Write a Universal VTT file of about ``--mb`` megabytes of wall points, to measure the
import's peak memory (``/usr/bin/time -v python -m tacmap import``); not part of the tests.

    python tests/probes/big_uvtt.py /tmp/big.uvtt --mb 198
    /usr/bin/time -v python -m tacmap import /tmp/big.uvtt /tmp/big.tacmap --ruleset speed_rank

``--lights`` puts the bulk in ``lights`` instead, ``--portals`` in ``portals``.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    """Write the file, one wall of 10 points at a time, without holding it in memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=55.0)
    parser.add_argument("--lights", action="store_true")
    parser.add_argument("--portals", action="store_true")
    args = parser.parse_args()
    goal = int(args.mb * 1024 * 1024)
    key = "lights" if args.lights else "portals" if args.portals else "line_of_sight"
    with args.out.open("w") as f:
        f.write('{"format": 1.0, "resolution": {"map_origin": {"x": 0, "y": 0}, '
                '"map_size": {"x": 100, "y": 100}, "pixels_per_grid": 50}, '
                f'"{key}": [')
        n = 0
        while f.tell() < goal:
            x, y = (n * 7) % 97 + 0.125, (n * 13) % 89 + 0.375
            if args.lights:
                item = (f'{{"position": {{"x": {x}, "y": {y}}}, "range": 6, '
                        f'"intensity": 1, "color": "ffeccd8b", "shadows": true}}')
            elif args.portals:
                item = (f'{{"position": {{"x": {x + 0.5}, "y": {y}}}, "bounds": '
                        f'[{{"x": {x}, "y": {y}}}, {{"x": {x + 1}, "y": {y}}}], '
                        f'"rotation": 0, "closed": true, "freestanding": false}}')
            else:
                item = "[" + ", ".join(f'{{"x": {x + k * 0.25}, "y": {y}}}'
                                       for k in range(10)) + "]"
            f.write(("," if n else "") + item)
            n += 1
        f.write("]}")


if __name__ == "__main__":
    main()
