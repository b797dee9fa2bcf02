"""Combat at the table: commands sent to the referee, aiming, the odds card, undo and redo.

Clicking an enemy with a token selected aims its first enabled action at it;
the odds card shows the exact chances before anything is rolled, and Confirm
sends the command. With physical dice on, the GM types every die of the action
into one sheet first (``tacmap.ui.dice_sheet``).
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.model.commands import Attack, Command, FreeMove, Move
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import HpChanged
from tacmap.engine.model.state import Template
from tacmap.engine.play.narrate import reactions, sentence
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.options import acting_token, asked_words, command_for, with_words
from tacmap.engine.rules.views import ActionOption, Preview
from tacmap.ui.dice_sheet import DicePlan, trial_of
from tacmap.ui.host import Host
from tacmap.ui.map.area_tools import AimArea
from tacmap.ui.map.look import acting
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.plain import tip
from tacmap.ui.qt import QAction, QMenu, QMouseEvent, QPoint, QRect, Qt, QWidget, Signal

#: Colours of the notes floated over tokens.
HURT, HEALED, MISSED, REACTED, REFUSED = "#c8312f", "#2e9d4f", "#555555", "#7a3db8", "#8a5a00"


class ReasonMenu(QMenu):
    """A menu whose greyed items say why: as a tooltip, and through ``explain`` when hovered.

    Qt's own ``hovered`` signal skips disabled items under most styles, so the
    menu looks for the item under the mouse itself.
    """

    explain = Signal(str)
    """The reason a hovered item is disabled ("" over an enabled one)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTipsVisible(True)
        self.hovered.connect(self._hovered)
        self._last: QAction | None = None

    def _hovered(self, action: QAction) -> None:
        if action is not self._last:
            self._last = action
            self.explain.emit("" if action.isEnabled() else action.toolTip())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        action = self.actionAt(event.position().toPoint())
        if action is not None and not action.isSeparator():
            self._hovered(action)


class Combat:
    """Running commands, aiming actions at tokens, taking them back."""

    def __init__(self, host: Host) -> None:
        self.host = host
        #: The odds card on screen, if any (one at a time).
        self.odds_card: OddsCard | None = None
        #: True: the GM rolls real dice and types the faces in.
        self.physical_dice = False
        #: The token menu on screen, kept referenced while it is open.
        self.menu: QMenu | None = None
        #: An action picked in the Actions panel, waiting for its target: (actor, option).
        self.armed: tuple[str, ActionOption] | None = None
        #: The reason a hovered menu item showed in the status bar, if any.
        self._explained = ""
        #: More entries for the GM's token menu (the autopilot's toggle): each is called
        #: with the menu and the token.
        self.menu_extras: list[Callable[[QMenu, str], None]] = []
        #: The log's length when a turn last began (the window says when).
        self.turned_at = -1
        # Made now: until the window has a status bar, Qt drops the status tips that
        # say why an action button is greyed.
        host.statusBar()

    # --- commands ---------------------------------------------------------------------------

    def run(self, command: Command) -> bool:
        """Send a command to the referee; a refusal goes to the status bar."""
        referee = self.host.session.referee
        dice: FixedDice | None = None
        if self.physical_dice:
            faces = self.physical_faces(command)
            if faces is None:
                self.host.statusBar().showMessage(
                    f"Not sent: {sentence(referee.state, command)} — no dice were typed in",
                    10000)
                return False
            dice = FixedDice(faces)
        # The last command's words ("Kara moves 2 m") are not this one's: what this one
        # says (a turn begun, a reaction, a refusal) comes as it runs.
        self.host.statusBar().clearMessage()
        try:
            referee.execute(command, dice)
        except RuleError as err:
            self.host.statusBar().showMessage(
                f"Refused: {sentence(referee.state, command)} — {err}", 10000)
            self.host.refresh()  # panels that anticipated the change (a dragged row) go back
            return False
        return True

    def physical_faces(self, command: Command) -> list[int] | None:
        """The faces of every die ``command`` rolls, typed in by the GM (None: cancelled).

        Nothing is asked when the command rolls nothing or the rules refuse it
        anyway (the refusal then says why).
        """
        referee = self.host.session.referee
        plan = DicePlan(sentence(referee.state, command), trial_of(referee, command))
        try:
            needs, done = plan.needs([])
        except RuleError:
            return []
        if done and not needs:
            return []
        return self.host.ask_dice(plan)

    def executed(self, entry: Entry) -> None:
        """A command went through (from any gesture): show what happened where it happened.

        Each hit-point change floats over its token, a miss says so, and each
        reaction (an opportunity attack, a riposte …) floats its name over the
        token that reacted and is told in the status bar.
        """
        scene = self.host.scene
        command, events = entry.command, entry.events
        hurt = False
        for ev in events:
            if isinstance(ev, HpChanged):
                delta = ev.new - ev.old
                scene.float_text(ev.token, f"{delta:+d}".replace("-", "−"),
                                 HURT if delta < 0 else HEALED)
                hurt = True
        target = getattr(command, "target", "")
        if isinstance(command, Attack) and not hurt and target:
            scene.float_text(target, "miss", MISSED)
        said = reactions(self.host.session.referee.state, command, events)
        for reaction in said:
            scene.float_text(reaction.token, reaction.short, REACTED)
        if said:
            self.host.statusBar().showMessage("; ".join(r.text for r in said), 15000)

    def set_physical_dice(self, on: bool) -> None:
        """Combat ▸ Roll Physical Dice."""
        self.physical_dice = on
        self.host.statusBar().showMessage(
            "Each action asks for the faces of all its dice, on one sheet" if on
            else "Dice come from the encounter's seeded stream", 6000)

    def undo(self) -> None:
        """Edit ▸ Undo."""
        referee = self.host.session.referee
        entry = referee.undo()
        if entry is not None:
            self.host.statusBar().showMessage(
                f"Undone: {sentence(referee.state, entry.command, entry.events)}", 5000)

    def redo(self) -> None:
        """Edit ▸ Redo (re-applies what happened; dice are not rolled again)."""
        referee = self.host.session.referee
        entry = referee.redo()
        if entry is not None:
            self.host.statusBar().showMessage(
                f"Redone: {sentence(referee.state, entry.command, entry.events)}", 5000)

    # --- aiming -----------------------------------------------------------------------------

    def aimed_options(self, actor: str, target: str) -> list[ActionOption]:
        """The actions ``actor`` may take against ``target`` now."""
        state, ruleset = self.host.session.referee.state, self.host.session.referee.ruleset
        if actor not in state.tokens or target not in state.tokens:
            return []
        return [o for o in ruleset.actions_for(state, actor) if o.target == "token"]

    def arm(self, actor: str, option: ActionOption, at: str = "") -> None:
        """The Actions panel's button for an aimed action: the next token clicked is its target.

        When the target is known already (``at``: the token a menu was opened on,
        or the option's own ``at``, a declared attack's target) the odds card
        opens on it at once instead.
        """
        self.host.end_tool()  # the next click is the action's, never a map tool's
        state = self.host.session.referee.state
        if actor not in state.tokens:
            return
        name = state.tokens[actor].name
        self.host.select(actor)
        if option.target == "cell":
            self.armed = None
            self.host.statusBar().showMessage(f"Drag {name} on the map to move", 10000)
            return
        if option.target == "area" and option.area is not None:
            self.armed = None
            self.aim_area(actor, option)
            return
        target = at or option.at
        if option.target == "token" and target != actor and target in state.tokens:
            self.armed = None
            self.aim(actor, target, option)
            return
        self.armed = (actor, option)
        self.host.statusBar().showMessage(
            f"{name}: {option.label} — click the target (a click on empty map cancels)", 15000)

    def aim_area(self, actor: str, option: ActionOption) -> AimArea | None:
        """Place ``option``'s template with the mouse; a click sends the one Act, Esc cancels.

        The template follows the mouse, naming the tokens inside and, when the
        referee would refuse it there (out of range, out of sight), why.
        """
        spec = option.area
        if spec is None:
            return None
        worded = self.worded(option)
        if worded is None:
            return None
        option = worded
        view = self.host.view
        if view.tool is not None:
            view.tool.cancel()
        referee = self.host.session.referee
        name = referee.state.tokens[actor].name

        def check(template: Template) -> str:
            preview = referee.preview(command_for(actor, option, area=template))
            return "" if preview.legal else preview.reason

        def done() -> None:
            if view.tool is tool:
                view.tool = None
                self.host.statusBar().clearMessage()

        def confirm(template: Template) -> None:
            self.host.run(command_for(actor, option, area=template))

        tool = AimArea(lambda: self.host.session.referee.state, actor, spec,
                       f"{name}: {option.label}", view.area_preview, check, confirm, done)
        view.tool = tool
        # The keyboard goes to the map with the template: the GM clicked the action's
        # button in a dock, and Esc there would not reach the map to cancel.
        view.setFocus(Qt.FocusReason.OtherFocusReason)
        # No time limit: the words stay while the template follows the mouse.
        self.host.statusBar().showMessage(
            f"{name}: {option.label} — click where it goes (Esc cancels)")
        return tool

    def turn_began(self) -> None:
        """A turn has begun: remember at which point of the log."""
        self.turned_at = len(self.host.session.referee.log)

    def dragged(self, token_id: str) -> None:
        """A drag of ``token_id`` ended: it is selected, unless its move began another's
        turn (a declared move in six_phase): whoever acts now stays selected, as after E."""
        log = self.host.session.referee.log
        if log and self.turned_at == len(log):
            command = log[-1].command
            if (isinstance(command, Move) and command.actor == token_id) or \
                    (isinstance(command, FreeMove) and command.token == token_id):
                return
        self.host.select(token_id)

    def token_clicked(self, token_id: str) -> None:
        """Click on a token: aim the armed action or the selected token at it, or select it."""
        state = self.host.session.referee.state
        armed, self.armed = self.armed, None
        if armed is not None and armed[0] != token_id and armed[0] in state.tokens:
            who, picked = armed
            match = [o for o in self.aimed_options(who, token_id)
                     if (o.key, o.detail, o.label) == (picked.key, picked.detail, picked.label)]
            if match:
                self.host.statusBar().clearMessage()  # "click the target" is answered
                self.aim(who, token_id, match[0])
                return
        # With nobody picked, the token whose turn it is does the clicking (the one the
        # Actions panel shows): "click an enemy" works without selecting first.
        ruleset = self.host.session.referee.ruleset
        actor = self.host.actor or acting_token(state, ruleset.turn_order(state),
                                                out=ruleset.out_of_fight)
        if actor and actor != token_id and actor in state.tokens \
                and state.tokens[actor].side != state.tokens[token_id].side:
            offered = self.aimed_options(actor, token_id)
            # A click on an enemy means an attack when the ruleset offers one.
            attacks = [o for o in offered if o.key == "attack"] or offered
            options = [o for o in attacks if o.enabled]
            if options:
                preview = self.host.session.referee.preview(
                    command_for(actor, options[0], token_id))
                if preview.legal:
                    self.aim(actor, token_id, options[0])
                else:  # out of reach, no line of sight …: nothing to weigh up
                    self.refuse(actor, token_id, options[0], preview.reason)
                return
            # Refused only while it is the selected token's turn: otherwise the click
            # picks the next token to act (or one to edit), as a click on anyone does.
            if attacks and actor in acting(state, self.host.session.referee.ruleset):
                self.refuse(actor, token_id, attacks[0])
                return
        self.host.select(token_id)

    def refuse(self, actor: str, target: str, option: ActionOption, reason: str = "") -> None:
        """``actor`` cannot take ``option`` against ``target``: say why; keep ``actor`` selected."""
        state = self.host.session.referee.state
        who, whom = state.tokens[actor].name, state.tokens[target].name
        what = f"attack {whom}" if option.key == "attack" else f"{option.label} on {whom}"
        self.host.statusBar().showMessage(
            f"{who} cannot {what}: {reason or option.reason or 'not now'}", 10000)
        self.host.scene.float_text(target, f"✗ {option.label}", REFUSED)

    def token_menu(self, token_id: str, at: QPoint) -> None:
        """Right-click on a token: select it, or pick an action of the selected token on it."""
        menu = self.build_token_menu(token_id)
        menu.popup(at)
        self.menu = menu

    def build_token_menu(self, token_id: str) -> ReasonMenu:
        """The context menu for a token; a greyed action says why when hovered."""
        state = self.host.session.referee.state
        menu = ReasonMenu(self.host.window())
        menu.explain.connect(self._explain)
        name = state.tokens[token_id].name
        menu.addAction(f"Select {name}").triggered.connect(lambda: self.host.select(token_id))
        for extra in self.menu_extras:
            extra(menu, token_id)
        actor = self.host.actor
        if actor and actor != token_id and actor in state.tokens:
            menu.addSeparator()
            for option in self.aimed_options(actor, token_id):
                action = menu.addAction(f"{state.tokens[actor].name}: {option.label}")
                action.setEnabled(option.enabled)
                action.setToolTip(tip(option.reason))
                action.triggered.connect(
                    lambda _=False, o=option: self.aim(actor, token_id, o))
        return menu

    def _explain(self, reason: str) -> None:
        bar = self.host.statusBar()
        if reason:
            bar.showMessage(reason, 10000)
        elif bar.currentMessage() == self._explained:
            bar.clearMessage()
        self._explained = reason

    def worded(self, option: ActionOption) -> ActionOption | None:
        """``option`` with the GM's words in its detail when it asks for them (None: cancelled)."""
        if not option.prompt:
            return option
        words = self.host.ask_words(option.prompt, asked_words(option))
        return None if words is None else with_words(option, words.strip())

    def take(self, actor: str, option: ActionOption) -> None:
        """The Actions panel's button for an action with no target: ask for words, then run."""
        worded = self.worded(option)
        if worded is not None:
            self.host.run(command_for(actor, worded))

    def aim(self, actor: str, target: str, option: ActionOption) -> OddsCard | None:
        """Show the odds card for ``actor`` doing ``option`` to ``target``; confirm runs it."""
        worded = self.worded(option)
        if worded is None:
            return None
        option = worded
        state = self.host.session.referee.state
        command = command_for(actor, option, target)
        preview = self.host.session.referee.preview(command)
        title = f"{state.tokens[actor].name} → {state.tokens[target].name}: {option.label}"
        self.close_card()

        def chosen(detail: str) -> Command:
            picked = with_words(option, asked_words(option), detail)
            return command_for(actor, picked, target)

        def repreview(detail: str) -> Preview:
            return self.host.session.referee.preview(chosen(detail))

        card = OddsCard(title, state.tokens[target].name, preview, self.host.window(),
                        choices=option.choices, chosen=option.detail, repreview=repreview)
        card.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        card.finished.connect(lambda _: self._card_done(card))
        card.accepted.connect(
            lambda: self.host.run(chosen(card.detail) if option.choices else command))
        card.setModal(False)
        self.place_card(card, actor, target)
        card.show()
        self.odds_card = card
        return card

    def tokens_on_screen(self, *token_ids: str) -> QRect | None:
        """The screen rectangle around the tokens' squares (None: none is drawn)."""
        view, found = self.host.view, self.host.scene.items_by_id
        rects = [found[t].sceneBoundingRect() for t in token_ids if t in found]
        if not rects:
            return None
        scene_rect = rects[0]
        for rect in rects[1:]:
            scene_rect = scene_rect.united(rect)
        on_view = view.mapFromScene(scene_rect).boundingRect()
        return QRect(view.viewport().mapToGlobal(on_view.topLeft()), on_view.size())

    def place_card(self, card: OddsCard, actor: str, target: str) -> None:
        """Put ``card`` beside the two tokens, clear of the others and over the map
        where it can."""
        area = self.tokens_on_screen(actor, target)
        if area is None:
            return
        view = self.host.view.viewport()
        others = (t for t in self.host.session.referee.state.tokens if t not in (actor, target))
        card.place_beside(area, [r for t in others if (r := self.tokens_on_screen(t)) is not None],
                          QRect(view.mapToGlobal(view.rect().topLeft()), view.size()))

    def close_card(self) -> None:
        """Close the odds card (a card aimed in one encounter must not act on another)."""
        if self.odds_card is not None:
            self.odds_card.close()

    def _card_done(self, card: OddsCard) -> None:
        if self.odds_card is card:
            self.odds_card = None
