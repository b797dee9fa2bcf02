"""The window asks before a user's ruleset folder runs its code, once per folder and content.

A ruleset folder named by ``--rulesets-dir`` or ``TACMAP_RULESETS`` is Python
that runs with the GM's permissions. The command line prints a warning on
stderr; a window started from a menu has no terminal, so it asks, and the
answer is kept in the settings (``trusted_rulesets``, tacmap.ui.settings) under the
folder's path and the hash of its files: a changed folder is asked about again.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.ruleset import TRUST_WARNING, Manifest, content_hash
from tacmap.ui import settings

KEY = "trusted_rulesets"


def window_trust(ask: Callable[[str], bool]) -> Callable[[Manifest], bool]:
    """A ``Registry.trust`` that asks ``ask`` once per folder and content hash, and remembers."""
    asked: dict[str, bool] = {}

    def trust(manifest: Manifest) -> bool:
        folder = manifest.folder.resolve()
        key = f"{folder}\n{content_hash(folder)}"
        if key in asked:
            return asked[key]
        answers = settings.get(KEY, settings.flag_map)
        if key not in answers:
            answers[key] = bool(ask(
                f"The ruleset {manifest.name!r} ({manifest.id}) in {folder} is not part of "
                f"tacmap: {TRUST_WARNING}. Run it?"))
            settings.put(KEY, answers)  # when it cannot be kept, it holds for this run
        asked[key] = answers[key]
        return answers[key]

    return trust
