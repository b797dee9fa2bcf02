"""Combat ▸ Autopilot (issue 35): tokens that play their own turns, at a pace the table
can follow, and Suggest, the autopilot's three best plans for the acting token.

The thinking (``tacmap.engine.play.autopilot``) runs in a worker process
(``tacmap.ui.workers``), never in the window's: the window only draws. Each step is an
ordinary command sent through the window (logged, undoable, autosaved, drawn on the
player view), shown first: the path drawn ``PATH_SECONDS`` before a move, the odds card
``CARD_SECONDS`` before a roll. Space pauses and resumes, Right steps one action while
paused, Esc takes the turn over by hand; the autopilot stops at every token not on it.

Which tokens play themselves is the GM's choice for this window (a side, or single
tokens from the turn order's and the token's menus), not saved with the encounter: a
file opened elsewhere plays by hand until the GM says otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tacmap.engine.model.commands import Command, EndTurn, Move
from tacmap.engine.model.state import Encounter, sides_of
from tacmap.engine.play.narrate import sentence
from tacmap.engine.rules.views import OrderRow
from tacmap.ui.combat import Combat
from tacmap.ui.map.drag import Drag
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.panels.initiative import InitiativePanel
from tacmap.ui.plain import label
from tacmap.ui.qt import (
    QAction,
    QBrush,
    QColor,
    QDialog,
    QFont,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsSimpleTextItem,
    QKeySequence,
    QMenu,
    QPen,
    QPoint,
    QPushButton,
    QStatusBar,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
)
from tacmap.ui.session import Session
from tacmap.ui.workers import Report, Worker, decide_task, suggest_task

if TYPE_CHECKING:  # the autopilot's engine loads with its first decision, after the paint
    from tacmap.engine.play.autopilot import Suggestion

#: Seconds the autopilot's path stays drawn before the token moves along it.
PATH_SECONDS = 0.9
#: Seconds the odds card stays up before the dice roll.
CARD_SECONDS = 1.2
#: Seconds between two steps: the last result is read before the next begins.
STEP_SECONDS = 0.5
#: How often the window looks for the worker's answer (ms).
POLL_MS = 50
#: Colours of Suggest's three marks on the map, best first.
MARK_COLOURS = ("#2e7d32", "#1565c0", "#6a1b9a")


class PilotHost(Protocol):
    """What the autopilot needs of the main window."""

    session: Session
    scene: MapScene
    view: MapView
    combat: Combat
    order_panel: InitiativePanel

    actor: str | None

    def run(self, command: Command) -> bool: ...
    def refresh(self) -> None: ...
    def window(self) -> QWidget: ...
    def statusBar(self) -> QStatusBar: ...
    def addAction(self, action: QAction) -> None: ...


class Pilot:
    """Which tokens play themselves, and the paced play of their turns."""

    def __init__(self, window: PilotHost) -> None:
        self.window = window
        self.sides: set[str] = set()
        """Sides whose every token plays itself."""
        self.tokens: dict[str, bool] = {}
        """Single tokens set on (True) or off (False), over their side's setting."""
        self.paused = False
        self.steps = 0
        """Steps the GM allowed while paused (Right arrow)."""
        self.taken: tuple[object, str] | None = None
        """(the turn, the token) the GM took over by hand with Esc."""
        self.known: dict[str, set[str]] = {}
        """What each side has seen under fog, kept from one decision to the next."""
        self.session: Session | None = None
        self.worker: Worker | None = None
        self.job: tuple[int, int, str] | None = None
        """The decision under way: (job, referee version, token)."""
        self.showing: tuple[Command, str, int] | None = None
        """The step drawn on the map or the card, waiting for its moment: (command, token,
        the referee's version it was decided for)."""
        self.card: OddsCard | None = None
        self.poll = QTimer()
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._poll)
        self.later = QTimer()
        self.later.setSingleShot(True)
        self.later.timeout.connect(self._think)
        self.go = QTimer()
        self.go.setSingleShot(True)
        self.go.timeout.connect(self._send)
        self.suggestions = Suggest(self)
        self.pause_action = self._key("&Pause Autopilot", self.toggle_pause, "Space")
        self.pause_action.setCheckable(True)
        self.step_action = self._key("&Step One Action", self.step, "Right")
        self.take_action = self._key("&Take Over This Turn", self.take_over, "Esc")
        self.suggest_action = self._key("S&uggest…", self.suggestions.ask, "S")
        window.combat.menu_extras.append(self.token_menu)
        window.order_panel.row_menu = self.row_menu
        window.order_panel.row_mark = self.row_mark
        window.order_panel.on_suggest = self.suggestions.ask

    def _key(self, text: str, slot: Callable[[], object], key: str) -> QAction:
        action = QAction(text)
        action.setShortcut(QKeySequence(key))
        # A key the map uses otherwise (Space pans, the arrows scroll, Esc drops a tool):
        # enabled only while it means the autopilot's.
        action.setEnabled(False)
        action.triggered.connect(lambda _=False: slot())
        self.window.addAction(action)
        return action

    # --- who plays itself ---------------------------------------------------------------

    def is_on(self, token_id: str) -> bool:
        """Whether the token plays itself."""
        token = self.window.session.referee.state.tokens.get(token_id)
        if token is None:
            return False
        return self.tokens.get(token_id, token.side in self.sides)

    def set_side(self, side: str, on: bool) -> None:
        """A whole side plays itself (or goes back to the GM's hands)."""
        (self.sides.add if on else self.sides.discard)(side)
        state = self.window.session.referee.state
        for t in state.tokens.values():
            if t.side == side:
                self.tokens.pop(t.id, None)
        self._changed()

    def set_token(self, token_id: str, on: bool) -> None:
        """One token plays itself (or not), whatever its side does."""
        self.tokens[token_id] = on
        self._changed()

    def _changed(self) -> None:
        self.taken = None
        self.window.refresh()

    def fill_menu(self, menu: QMenu) -> None:
        """Combat ▸ Autopilot: a toggle per side, then pause, step, take over, suggest."""
        menu.clear()
        state = self.window.session.referee.state
        for side in sides_of(state):
            action = menu.addAction(f"{side} play themselves")
            action.setCheckable(True)
            action.setChecked(side in self.sides)
            action.toggled.connect(lambda on, s=side: self.set_side(s, on))
        if not state.tokens:
            menu.addAction("(no combatants on the map)").setEnabled(False)
        menu.addSeparator()
        for action in (self.pause_action, self.step_action, self.take_action,
                       self.suggest_action):
            menu.addAction(action)

    def token_menu(self, menu: QMenu, token_id: str) -> None:
        """The GM's token menu: "Plays itself (autopilot)"."""
        action = menu.addAction("Plays itself (autopilot)")
        action.setCheckable(True)
        action.setChecked(self.is_on(token_id))
        action.toggled.connect(lambda on: self.set_token(token_id, on))

    def row_menu(self, row: OrderRow) -> QMenu | None:
        """Right-click on a turn-order row: the token's (or the side's) toggle."""
        menu = QMenu()
        state = self.window.session.referee.state
        if row.id in state.tokens:
            self.token_menu(menu, row.id)
        elif any(t.side == row.id for t in state.tokens.values()):
            action = menu.addAction(f"{row.id} play themselves (autopilot)")
            action.setCheckable(True)
            action.setChecked(row.id in self.sides)
            action.toggled.connect(lambda on: self.set_side(row.id, on))
        else:
            return None
        return menu

    def row_mark(self, row: OrderRow) -> str:
        """"⚙ autopilot" after a row that plays itself."""
        on = self.is_on(row.id) or row.id in self.sides
        return "⚙ autopilot" if on else ""

    # --- the paced play -----------------------------------------------------------------

    def tick(self) -> None:
        """The encounter changed (any command, undo, a new file): play on if it is the
        turn of a token that plays itself."""
        window = self.window
        if window.session is not self.session:
            self._reset(window.session)
        self._keys()
        if self.showing is not None and self.showing[2] != window.session.referee.version:
            # The GM's hand moved the encounter on while a step was on show (End turn, a
            # drag): that step was decided for another state; it goes, unsent.
            self.go.stop()
            self.showing = None
            self._clear_shown()
        if self.job is not None or self.showing is not None or self.later.isActive():
            return
        actor = self._actor()
        if actor is None:
            return
        if self.paused and self.steps <= 0:
            self._say(f"Autopilot paused at {self._name(actor)} (Space resumes, "
                      "Right steps one action, Esc takes over)")
            return
        self.later.start(int(STEP_SECONDS * 1000))

    def _actor(self) -> str | None:
        """The token whose turn the autopilot plays now, or None."""
        referee = self.window.session.referee
        state, ruleset = referee.state, referee.ruleset
        if ruleset.turn_order(state) is None:
            return None
        actor = ruleset.whose_turn(state)
        if actor is None or not self.is_on(actor):
            return None
        sides = {t.side for t in state.tokens.values() if not ruleset.out_of_fight(t)}
        if len(sides) <= 1:
            return None  # the fight is over
        if self.taken == (self._turn(state), actor):
            return None
        return actor

    def _turn(self, state: Encounter) -> object:
        order = self.window.session.referee.ruleset.turn_order(state)
        return (state.round, order.title if order is not None else "")

    def _think(self) -> None:
        actor = self._actor()
        if actor is None or (self.paused and self.steps <= 0):
            self._keys()
            return
        referee = self.window.session.referee
        if self.worker is None:
            self.worker = Worker()
        job = self.worker.submit(decide_task, referee.state, referee.ruleset, actor,
                                 referee.state.seed, self.known)
        self.job = (job, referee.version, actor)
        self.poll.start()
        self._say(f"Autopilot: {self._name(actor)} is thinking… (Space pauses, Esc takes over)")
        self._keys()

    def _poll(self) -> None:
        worker = self.worker
        if worker is None or self.job is None:
            self.poll.stop()
            return
        for report in worker.reports():
            if report.job == self.job[0] and report.over:
                self._answered(report)
                return

    def _answered(self, report: Report) -> None:
        _job, version, actor = self.job or (0, 0, "")
        self.job = None
        self.poll.stop()
        referee = self.window.session.referee
        if report.result is None:
            self.paused = True
            self._say(f"Autopilot stopped: {report.error or 'no answer'}")
            self._keys()
            return
        command, seen = report.result
        self.known = {side: set(ids) for side, ids in seen.items()}
        if referee.version != version or self._actor() != actor:
            self.tick()  # the encounter moved on meanwhile (the GM's hand): think again
            return
        self.show(command, actor)

    def show(self, command: Command, actor: str) -> None:
        """Draw ``command`` for the table (the path, the odds card), then send it."""
        if self.steps > 0:
            self.steps -= 1
        referee = self.window.session.referee
        self.showing = (command, actor, referee.version)
        name = self._name(actor)
        wait = STEP_SECONDS
        if isinstance(command, Move):
            drawn = draw_path(self.window, command)
            wait = PATH_SECONDS if drawn else STEP_SECONDS
            self._say(f"Autopilot: {name} moves (Space pauses, Esc takes over)")
        elif not isinstance(command, EndTurn):
            card = self.card = odds_card_for(self.window, command, activate=False)
            if card is not None:
                wait = CARD_SECONDS
                card.finished.connect(lambda _result, c=card: self._card_closed(c))
            self._say(f"Autopilot: {sentence(referee.state, command)} "
                      "(Space pauses, Esc takes over)")
        else:
            self._say(f"Autopilot: {name} ends the turn")
        self._keys()
        self.go.start(int(wait * 1000))

    def _send(self) -> None:
        showing, self.showing = self.showing, None
        self._clear_shown()
        if showing is None:
            return
        command, _actor, version = showing
        if self.window.session.referee.version != version:
            # The GM's hand moved the encounter on while the step was on show (End turn,
            # a drag): the step was decided for another state, so think again.
            self.tick()
            return
        if not self.window.run(command):
            self.paused = True  # refused: the status bar says why; the GM looks first
            self._keys()

    def _card_closed(self, card: OddsCard) -> None:
        """The GM closed the card on show (Cancel): the GM takes this turn over."""
        if self.card is card:
            self.card = None
            self.take_over()

    def _clear_shown(self) -> None:
        self.window.scene.overlay.show_drag(None)
        card, self.card = self.card, None
        if card is not None:
            card.close()

    def _stop_step(self) -> None:
        """Drop the decision under way and the step on show (nothing was sent)."""
        self.later.stop()
        self.go.stop()
        self.poll.stop()
        if self.job is not None and self.worker is not None:
            self.worker.cancel()
        self.job = None
        self.showing = None
        self._clear_shown()

    def toggle_pause(self) -> None:
        """Space: pause (the step on show is not sent) or resume."""
        self.paused = not self.paused
        self.steps = 0
        if self.paused:
            self._stop_step()
            actor = self._actor()
            self._say(f"Autopilot paused{f' at {self._name(actor)}' if actor else ''} "
                      "(Space resumes, Right steps one action)")
        self.pause_action.setChecked(self.paused)
        self.tick()

    def step(self) -> None:
        """Right arrow while paused: one more action, then pause again."""
        if self.paused:
            self.steps = 1
            self.tick()

    def take_over(self) -> None:
        """Esc: the GM plays this turn by hand; the autopilot comes back next turn."""
        actor = self.window.session.referee.ruleset.whose_turn(
            self.window.session.referee.state)
        self._stop_step()
        if actor is not None:
            self.taken = (self._turn(self.window.session.referee.state), actor)
            self._say(f"You play {self._name(actor)} this turn; the autopilot takes the "
                      "next turn of a token on it")
        self._keys()

    def _keys(self) -> None:
        """Enable the keys only while they mean the autopilot's (module docstring)."""
        referee = self.window.session.referee
        combat = referee.ruleset.turn_order(referee.state) is not None
        on = combat and any(self.is_on(t) for t in referee.state.tokens)
        playing = self._actor() is not None or self.job is not None or self.showing is not None
        self.pause_action.setEnabled(on)
        self.step_action.setEnabled(on and self.paused)
        self.take_action.setEnabled(playing and self.window.view.tool is None)
        self.suggest_action.setEnabled(combat and self.window.actor is not None)

    def _reset(self, session: Session) -> None:
        """A new encounter: nobody plays itself in it yet."""
        self._stop_step()
        self.session = session
        self.sides.clear()
        self.tokens.clear()
        self.known.clear()
        self.taken = None
        self.paused = False
        self.suggestions.clear()

    def _name(self, token_id: str | None) -> str:
        state = self.window.session.referee.state
        token = state.tokens.get(token_id or "")
        return token.name if token is not None else "nobody"

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)

    def close(self) -> None:
        """The window closes: end the workers."""
        self._stop_step()
        self.suggestions.clear()
        for worker in (self.worker, self.suggestions.worker):
            if worker is not None:
                worker.close()


def draw_path(window: PilotHost, command: Move) -> bool:
    """The move's path as a drag would draw it (cost, reach left); False if not drawn."""
    controller = window.view.controller
    referee = window.session.referee
    token = referee.state.tokens.get(command.actor)
    if controller is None or token is None:
        return False
    drag = Drag(token.id, token.cell, (0.0, 0.0), list(command.path[:-1]), command.path[-1],
                referee.preview(command))
    if drag.preview is None or not drag.preview.path:
        return False
    window.scene.overlay.show_drag(controller.view_of(drag))
    return True


def odds_card_for(window: PilotHost, command: Command, activate: bool = True
                  ) -> OddsCard | None:
    """The odds card of ``command`` beside its tokens, as the GM's aim shows it (None: the
    command has no odds or no target); ``activate`` False leaves the keys with the window
    (Space, Esc) while the autopilot shows it."""
    referee = window.session.referee
    state = referee.state
    target = getattr(command, "target", "")
    actor = getattr(command, "actor", "")
    if not target or target not in state.tokens or actor not in state.tokens:
        return None
    preview = referee.preview(command)
    if preview.odds is None:
        return None
    card = OddsCard(sentence(state, command), state.tokens[target].name, preview,
                    window.window())
    card.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    card.setModal(False)
    card.confirm_button.setEnabled(False)  # the autopilot rolls, not a click
    if not activate:
        card.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        for button in card.findChildren(QPushButton):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    window.combat.place_card(card, actor, target)
    card.show()
    return card


class Suggest:
    """Suggest: the autopilot's three best plans for the acting token, drawn and listed;
    picking one arms it as if the GM had chosen it."""

    def __init__(self, pilot: Pilot) -> None:
        self.pilot = pilot
        self.worker: Worker | None = None
        self.job: tuple[int, int, str] | None = None
        self.marks: list[QGraphicsItem] = []
        self.dialog: QDialog | None = None
        self.found: list[Suggestion] = []
        self.poll = QTimer()
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._poll)

    def ask(self) -> None:
        """Think about the acting (selected) token's best three plans, in the worker."""
        window = self.pilot.window
        referee = window.session.referee
        actor = window.actor or referee.ruleset.whose_turn(referee.state)
        if actor is None or referee.ruleset.turn_order(referee.state) is None:
            window.statusBar().showMessage("Suggest: start combat first", 8000)
            return
        self.clear()
        if self.worker is None:
            self.worker = Worker()
        job = self.worker.submit(suggest_task, referee.state, referee.ruleset, actor,
                                 referee.state.seed, self.pilot.known)
        self.job = (job, referee.version, actor)
        self.poll.start()
        window.statusBar().showMessage(
            f"Suggest: weighing {self.pilot._name(actor)}'s plans…", 15000)

    def _poll(self) -> None:
        if self.worker is None or self.job is None:
            self.poll.stop()
            return
        for report in self.worker.reports():
            if report.job == self.job[0] and report.over:
                _job, version, actor = self.job
                self.job = None
                self.poll.stop()
                window = self.pilot.window
                if report.result is None:
                    window.statusBar().showMessage(f"Suggest failed: {report.error}", 10000)
                elif window.session.referee.version == version:
                    self.show(actor, list(report.result))
                return

    def show(self, actor: str, found: list[Suggestion]) -> None:
        """List the plans (plain text) and mark them on the map, numbered."""
        self.found = found
        window = self.pilot.window
        state = window.session.referee.state
        dialog = QDialog(window.window())
        dialog.setWindowTitle(f"Suggest — {self.pilot._name(actor)}")
        dialog.setModal(False)
        column = QVBoxLayout(dialog)
        column.addWidget(label("The autopilot's best plans, with the side's chance to win "
                               "after each (fights played on from it):"))
        for i, plan in enumerate(found):
            button = QPushButton(f"{i + 1}. {plan.sentence} ({100 * plan.effect:+.0f}%)")
            button.setObjectName(f"suggestion-{i + 1}")
            button.clicked.connect(lambda _=False, p=plan: self.pick(p))
            column.addWidget(button)
            self._mark(state, actor, plan, i)
        if not found:
            column.addWidget(label("Nothing to suggest: no plan does better than waiting."))
        dialog.finished.connect(lambda _: self._closed(dialog))
        dialog.show()
        # In the map's bottom-left corner, not over its middle where the marks are.
        view = window.view
        dialog.adjustSize()
        corner = view.mapToGlobal(QPoint(12, max(0, view.height() - dialog.height() - 40)))
        dialog.move(corner)
        self.dialog = dialog
        window.statusBar().showMessage(
            f"Suggest: {len(found)} plan{'s' if len(found) != 1 else ''} for "
            f"{self.pilot._name(actor)}, numbered on the map; click one to arm it", 15000)

    def _mark(self, state: Encounter, actor: str, plan: Suggestion, i: int) -> None:
        """A numbered ring where the plan ends (the target, or the move's last cell), and a
        line from the token to it."""
        me = state.tokens[actor]
        first = plan.commands[-1] if plan.commands else None
        target = getattr(first, "target", "")
        if target in state.tokens:
            aim = state.tokens[target]
            x, y, size = aim.x, aim.y, aim.size
        else:
            moves = [c for c in plan.commands if isinstance(c, Move)]
            if not moves:
                return
            (x, y), size = moves[-1].path[-1], me.size
        colour = QColor(MARK_COLOURS[i % len(MARK_COLOURS)])
        pen = QPen(colour, 4)
        centre = ((x + size / 2) * CELL, (y + size / 2) * CELL)
        start = ((me.x + me.size / 2) * CELL, (me.y + me.size / 2) * CELL)
        scene = self.pilot.window.scene
        line = QGraphicsLineItem(*start, *centre)
        line.setPen(QPen(colour, 2, Qt.PenStyle.DashLine))
        r = size * CELL * 0.6 + 4 * i
        ring = QGraphicsEllipseItem(centre[0] - r, centre[1] - r, 2 * r, 2 * r)
        ring.setPen(pen)
        number = QGraphicsSimpleTextItem(str(i + 1))
        font = QFont(number.font())
        font.setPointSizeF(18)
        font.setBold(True)
        number.setFont(font)
        number.setBrush(QBrush(colour))
        # Each plan's number at its own place on the upper half of its ring (top right,
        # top left, top), clear of the name tag below the token: two plans on one target
        # once drew their numbers over each other.
        angle = math.radians((-45, -135, -90)[i % 3])
        box = number.boundingRect()
        number.setPos(centre[0] + (r + 10) * math.cos(angle) - box.width() / 2,
                      centre[1] + (r + 10) * math.sin(angle) - box.height() / 2)
        for item in (line, ring, number):
            item.setZValue(900)
            scene.addItem(item)
            self.marks.append(item)

    def pick(self, plan: Suggestion) -> None:
        """Arm the plan as if the GM had chosen it: a move goes at once, then an attack
        shows its odds card for the GM to confirm."""
        window = self.pilot.window
        self.clear()
        window.statusBar().clearMessage()
        for command in plan.commands:
            if isinstance(command, Move | EndTurn):
                if not window.run(command):
                    return
                continue
            card = odds_card_for(window, command)
            if card is None:
                window.run(command)
                continue
            card.confirm_button.setEnabled(True)
            card.accepted.connect(lambda c=command: window.run(c))
            window.combat.odds_card = card
            return

    def _closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
            self._unmark()

    def _unmark(self) -> None:
        scene = self.pilot.window.scene
        for item in self.marks:
            if item.scene() is scene:
                scene.removeItem(item)
        self.marks.clear()

    def clear(self) -> None:
        """Close the list and wipe the marks."""
        self.job = None
        self.poll.stop()
        dialog, self.dialog = self.dialog, None
        if dialog is not None:
            dialog.close()
        self._unmark()

