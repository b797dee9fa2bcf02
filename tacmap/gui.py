"""``tacmap-gui``: the window, for menus and file managers (no console window on Windows)."""

from __future__ import annotations

import os
import sys

from tacmap import cli


def main() -> int:
    """Run ``tacmap [FILE]`` where there may be no standard streams at all."""
    # A Windows GUI program starts with sys.stdout and sys.stderr set to None: what
    # tacmap would print goes nowhere rather than failing (the log keeps it).
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
    return cli.main()
