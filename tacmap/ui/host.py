"""What the GM's task controllers (files, building, roster, combat) use of the main window.

The controllers take the window as a ``Host`` rather than as ``MainWindow`` so
that ``window.py`` may import them without them importing it back. Members are
read at the moment they are needed: the window swaps its session, scene and
view when another encounter is opened, and tests replace the questions.
"""

from __future__ import annotations

from typing import Protocol

from tacmap.engine.model.commands import Command
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.ask import (
    Ask,
    AskDice,
    AskFile,
    AskImage,
    AskMetres,
    AskSave,
    AskTags,
    AskWords,
    Tell,
)
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.qt import QStatusBar, QWidget
from tacmap.ui.session import Session


class Host(Protocol):
    """The main window as its task controllers see it."""

    @property
    def registry(self) -> Registry:
        """The rulesets the app knows."""

    @property
    def session(self) -> Session:
        """The encounter open now."""

    @property
    def scene(self) -> MapScene:
        """The GM's map scene of that encounter."""

    @property
    def view(self) -> MapView:
        """The GM's map view."""

    def end_tool(self) -> None:
        """Put the map tool down (when an action is armed, the next click is the action's)."""

    @property
    def actor(self) -> str | None:
        """The selected token: the one that acts, or that Edit and Remove apply to."""

    @property
    def ask(self) -> Ask:
        """Yes/No questions."""

    @property
    def ask_save(self) -> AskSave:
        """Save / Discard / Cancel before the encounter is closed."""

    @property
    def tell(self) -> Tell:
        """Problems the GM must see."""

    @property
    def ask_dice(self) -> AskDice:
        """Faces of physical dice."""

    @property
    def ask_metres(self) -> AskMetres:
        """Real distance between two points of the map image."""

    @property
    def ask_tags(self) -> AskTags:
        """Tags for a roster entry."""

    @property
    def ask_words(self) -> AskWords:
        """The GM's words for an action that asks for them."""

    @property
    def ask_file(self) -> AskFile:
        """A roster file."""

    @property
    def ask_image(self) -> AskImage:
        """A portrait picture."""

    def window(self) -> QWidget:
        """The top-level widget dialogs belong to (``QWidget.window()``)."""

    def statusBar(self) -> QStatusBar:
        """Where short messages go."""

    def run(self, command: Command) -> bool:
        """Send ``command`` to the referee; False (with the reason shown) if refused."""

    def select(self, token_id: str | None) -> None:
        """Make ``token_id`` the selected token."""

    def bind(self, session: Session) -> None:
        """Show ``session`` in the window instead of the current one."""

    def refresh(self) -> None:
        """Redraw the panels and the title from the current state."""

    def error(self, text: str) -> None:
        """A problem: in the status bar and told to the GM."""
