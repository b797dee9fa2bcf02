"""Small English helpers for the log and the panels, shared by every ruleset.

Rulesets write their own sentences; these only get the little words right
("1 action", "2 actions", "an axe", "the Adventurers' turn").
"""

from __future__ import annotations

from collections.abc import Sequence

#: How the log words a ruleset's own actions, by ruleset id then action key: a ruleset's
#: ``act_words``, put here as it is made (the log's sentences know the state, not the
#: ruleset). A template names ``{actor}``, ``{target}`` and ``{detail}``.
ACT_WORDS: dict[str, dict[str, str]] = {}


def plural(n: int, word: str, many: str = "") -> str:
    """``"1 action"``, ``"2 actions"``; ``many`` for an irregular plural (``"dice"``)."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def article(noun: str) -> str:
    """``"a dagger"``, ``"an axe"``, ``"fists"`` (by the first letter, which is enough for
    weapon names; a plural name such as ``fists`` or ``claws`` takes none)."""
    word = noun.rsplit(" ", 1)[-1].lower()
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return noun
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def possessive(name: str) -> str:
    """``"Blue Company's"``, ``"Adventurers'"``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def faces(values: Sequence[int]) -> str:
    """Dice faces in the order thrown, ``"6 4 1"``, or ``"none"``."""
    return " ".join(map(str, values)) if values else "none"
