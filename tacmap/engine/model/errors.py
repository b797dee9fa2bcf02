"""The two errors a user can meet: an illegal action and an unreadable input."""

from __future__ import annotations


class RuleError(ValueError):
    """A command the rules do not allow; ``str(err)`` is a sentence the GM can read."""


class InputError(ValueError):
    """Input that cannot be used (a file, a script line, an argument); one clear sentence."""
