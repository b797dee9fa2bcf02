"""What the GM shows without changing the encounter, and files dropped on the window.

The Measure tool's ruler (on the player view too when View ▸ Show Ruler to
Players is ticked), pings, and files dragged from the desktop: an encounter
opens, a picture on the map becomes the map image, a picture on a token its
portrait. Nothing here is logged except what a dropped picture changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from tacmap.engine.model.commands import EditToken
from tacmap.engine.model.state import Token
from tacmap.engine.space.measure import Reading
from tacmap.ui.build import Builder
from tacmap.ui.host import Host
from tacmap.ui.map.drops import ENCOUNTER, dropped_files, named_scale
from tacmap.ui.map.pings import Pinger, ping
from tacmap.ui.map.ruler import Ruler, RulerMark, cell_of
from tacmap.ui.player import PlayerScreen
from tacmap.ui.qt import QDropEvent, QEvent, QImageReader, QMainWindow, QObject, QPointF, QTimer


class WindowDrops(QObject):
    """An encounter file dropped anywhere on the window (a dock, the toolbar) opens it."""

    def __init__(self, window: QMainWindow, open_path: Callable[[Path], object]) -> None:
        super().__init__(window)
        self.open_path = open_path
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        assert isinstance(event, QDropEvent)  # enter and move events are drop events too
        encounters = [p for p in dropped_files(event.mimeData()) if p.suffix.lower() == ENCOUNTER]
        if not encounters:
            return False
        event.acceptProposedAction()
        if event.type() == QEvent.Type.Drop:
            QTimer.singleShot(0, lambda: self.open_path(encounters[0]))
        return True


class Pointing:
    """The ruler, pings and dropped files of the GM's window."""

    def __init__(self, host: Host, window: QMainWindow, players: PlayerScreen,
                 open_path: Callable[[Path], object], build: Builder) -> None:
        self.host, self.players, self.open_path = host, players, open_path
        #: Map tools and images: the ruler is one of its tools, a dropped picture its image.
        self.build = build
        #: View ▸ Show Ruler to Players: the ruler is drawn on the player view too.
        self.to_players = False
        self.reading: Reading | None = None
        self._said = ""
        """The ruler's reading last said in the status bar (taken away with the ruler)."""
        self.mark: RulerMark | None = None
        self.player_mark: RulerMark | None = None
        self.pinger: Pinger | None = None
        self.drops = WindowDrops(window, open_path)
        build.extra_tools["measure"] = self.ruler

    def attach(self) -> None:
        """Get ready on a newly opened encounter's scene and view."""
        self.mark = RulerMark(self.host.scene)
        self.player_mark, self.reading = None, None
        self.pinger = Pinger(self.host.view, self.ping)
        self.host.view.files_dropped.connect(self.dropped)

    # --- the ruler ----------------------------------------------------------------------

    def ruler(self) -> Ruler:
        """A Measure tool on the encounter's diagonal rule (read at each mouse move)."""
        return Ruler(lambda: self.host.session.referee.state.diagonal, self.show_reading)

    def show_reading(self, reading: Reading | None) -> None:
        """Draw the ruler's reading (None: take it away) and say it in the status bar."""
        self.reading = reading
        text = reading.text(self.host.session.referee.ruleset.manifest.units) if reading else ""
        if self.mark is not None:
            self.mark.show(reading, text)
        window = self.players.window
        if window is not None and (self.player_mark is None
                                   or self.player_mark.scene is not window.scene):
            self.player_mark = RulerMark(window.scene)  # the player view was opened anew
        if self.player_mark is not None:
            self.player_mark.show(reading if self.to_players and window else None, text)
        bar = self.host.statusBar()
        if text:
            bar.showMessage(text, 15000)
        elif self._said and bar.currentMessage() == self._said:
            bar.clearMessage()  # the ruler is put down (Esc): its last reading goes with it
        self._said = text

    def set_to_players(self, on: bool) -> None:
        """View ▸ Show Ruler to Players."""
        self.to_players = on
        self.show_reading(self.reading)

    # --- pings ----------------------------------------------------------------------------

    def ping(self, at: QPointF, centre_players: bool = False) -> None:
        """A ring at ``at`` on the GM's map and the player view; Space also centres the latter."""
        ping(self.host.scene, at)
        window = self.players.window
        if window is None:
            if centre_players:
                self.host.statusBar().showMessage(
                    "Space centres the player view on the mouse: open it first (F11).", 6000)
            return
        if centre_players:
            window.view.auto_fit = False  # centred on purpose: no refit on the next resize
            window.view.centerOn(at)
        ping(window.scene, at)

    # --- dropped files ----------------------------------------------------------------------

    def dropped(self, paths: list[Path], at: QPointF) -> None:
        """Files dropped on the map at scene point ``at``."""
        encounters = [p for p in paths if p.suffix.lower() == ENCOUNTER]
        if encounters:
            # Opening replaces the very view the files were dropped on: after the drop.
            QTimer.singleShot(0, lambda: self.open_path(encounters[0]))
            return
        picture = paths[0]
        if not QImageReader(str(picture)).canRead():
            self.host.error(f"{picture.name} is not a picture tacmap can read.")
            return
        token = self.host.scene.token_at(cell_of(at))
        if token is not None:
            self.portrait(token, picture)
        elif self.build.use_image(picture) and named_scale(picture) is None:
            # The grid is not in its name: line it up by two points the GM knows.
            self.build.use_tool("scale")

    def portrait(self, token: Token, picture: Path) -> None:
        """``picture`` becomes ``token``'s portrait, copied beside the encounter."""
        name = self.build.copy_image(picture)
        if name is not None and self.host.run(
                EditToken(msgspec.structs.replace(token, image=name))):
            self.host.statusBar().showMessage(f"{token.name}'s portrait: {name}", 8000)
