"""The window asks before a user's ruleset folder runs its code, once per folder and content.

A ruleset folder named by ``--rulesets-dir`` or ``TACMAP_RULESETS`` is Python
that runs with the GM's permissions. The command line prints a warning on
stderr; a window started from a menu has no terminal, so it asks, and the
answer is kept in the user data folder (``trusted_rulesets.json``) under the
folder's path and the hash of its files: a changed folder is asked about again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tacmap.engine.ruleset import TRUST_WARNING, Manifest, content_hash
from tacmap.engine.storage import write_atomic
from tacmap.ui.session import home

FILE = "trusted_rulesets.json"


def _answers(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bool)}


def window_trust(ask: Callable[[str], bool]) -> Callable[[Manifest], bool]:
    """A ``Registry.trust`` that asks ``ask`` once per folder and content hash, and remembers."""
    asked: dict[str, bool] = {}

    def trust(manifest: Manifest) -> bool:
        folder = manifest.folder.resolve()
        key = f"{folder}\n{content_hash(folder)}"
        if key in asked:
            return asked[key]
        store = home() / FILE
        answers = _answers(store)
        if key not in answers:
            answers[key] = bool(ask(
                f"The ruleset {manifest.name!r} ({manifest.id}) in {folder} is not part of "
                f"tacmap: {TRUST_WARNING}. Run it?"))
            try:
                store.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(store, json.dumps(answers, indent=1).encode() + b"\n")
            except OSError:
                pass  # remembered for this run only
        asked[key] = answers[key]
        return answers[key]

    return trust
