"""Combat at the table: commands sent to the referee, aiming, the odds card, undo and redo.

Clicking an enemy with a token selected aims its first enabled action at it;
the odds card shows the exact chances before anything is rolled, and Confirm
sends the command. With physical dice on, every roll asks the GM for faces.
"""

from __future__ import annotations

from dataclasses import replace

from tacmap.engine.commands import Attack, Command, describe
from tacmap.engine.dice import ManualDice
from tacmap.engine.errors import RuleError
from tacmap.engine.events import Event, HpChanged
from tacmap.engine.options import command_for
from tacmap.engine.views import ActionOption, Preview
from tacmap.ui.host import Host
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import QMenu, QPoint, Qt


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

    # --- commands ---------------------------------------------------------------------------

    def run(self, command: Command) -> bool:
        """Send a command to the referee; a refusal goes to the status bar."""
        dice = ManualDice(self.host.ask_dice) if self.physical_dice else None
        try:
            events = self.host.session.referee.execute(command, dice)
        except RuleError as err:
            self.host.statusBar().showMessage(f"Refused: {err}", 10000)
            self.host.refresh()  # panels that anticipated the change (a dragged row) go back
            return False
        self._show_results(command, events)
        return True

    def _show_results(self, command: Command, events: tuple[Event, ...]) -> None:
        """Float each hit-point change over its token; a miss says so."""
        scene = self.host.scene
        hurt = False
        for ev in events:
            if isinstance(ev, HpChanged):
                delta = ev.new - ev.old
                scene.float_text(ev.token, f"{delta:+d}".replace("-", "−"),
                                 "#c8312f" if delta < 0 else "#2e9d4f")
                hurt = True
        target = getattr(command, "target", "")
        if isinstance(command, Attack) and not hurt and target:
            scene.float_text(target, "miss", "#555555")

    def set_physical_dice(self, on: bool) -> None:
        """Combat ▸ Roll Physical Dice."""
        self.physical_dice = on
        self.host.statusBar().showMessage(
            "You will be asked for the faces of every roll" if on
            else "Dice come from the encounter's seeded stream", 6000)

    def undo(self) -> None:
        """Edit ▸ Undo."""
        entry = self.host.session.referee.undo()
        if entry is not None:
            self.host.statusBar().showMessage(f"Undone: {describe(entry.command)}", 5000)

    def redo(self) -> None:
        """Edit ▸ Redo (re-applies what happened; dice are not rolled again)."""
        entry = self.host.session.referee.redo()
        if entry is not None:
            self.host.statusBar().showMessage(f"Redone: {describe(entry.command)}", 5000)

    # --- aiming -----------------------------------------------------------------------------

    def aimed_options(self, actor: str, target: str) -> list[ActionOption]:
        """The actions ``actor`` may take against ``target`` now."""
        state, ruleset = self.host.session.referee.state, self.host.session.referee.ruleset
        if actor not in state.tokens or target not in state.tokens:
            return []
        return [o for o in ruleset.actions_for(state, actor) if o.target == "token"]

    def arm(self, actor: str, option: ActionOption) -> None:
        """The Actions panel's button for an aimed action: the next token clicked is its target."""
        state = self.host.session.referee.state
        if actor not in state.tokens:
            return
        name = state.tokens[actor].name
        self.host.select(actor)
        if option.target == "cell":
            self.armed = None
            self.host.statusBar().showMessage(f"Drag {name} on the map to move", 10000)
            return
        self.armed = (actor, option)
        self.host.statusBar().showMessage(
            f"{name}: {option.label} — click the target (a click on empty map cancels)", 15000)

    def token_clicked(self, token_id: str) -> None:
        """Click on a token: aim the armed action or the selected token at it, or select it."""
        state = self.host.session.referee.state
        armed, self.armed = self.armed, None
        if armed is not None and armed[0] != token_id and armed[0] in state.tokens:
            who, picked = armed
            match = [o for o in self.aimed_options(who, token_id)
                     if (o.key, o.detail, o.label) == (picked.key, picked.detail, picked.label)]
            if match:
                self.aim(who, token_id, match[0])
                return
        actor = self.host.actor
        if actor and actor != token_id and actor in state.tokens \
                and state.tokens[actor].side != state.tokens[token_id].side:
            options = [o for o in self.aimed_options(actor, token_id) if o.enabled]
            if options:
                self.aim(actor, token_id, options[0])
                return
        self.host.select(token_id)

    def token_menu(self, token_id: str, at: QPoint) -> None:
        """Right-click on a token: select it, or pick an action of the selected token on it."""
        menu = self.build_token_menu(token_id)
        menu.popup(at)
        self.menu = menu

    def build_token_menu(self, token_id: str) -> QMenu:
        """The context menu for a token."""
        state = self.host.session.referee.state
        menu = QMenu(self.host.window())
        name = state.tokens[token_id].name
        menu.addAction(f"Select {name}").triggered.connect(lambda: self.host.select(token_id))
        actor = self.host.actor
        if actor and actor != token_id and actor in state.tokens:
            menu.addSeparator()
            for option in self.aimed_options(actor, token_id):
                action = menu.addAction(f"{state.tokens[actor].name}: {option.label}")
                action.setEnabled(option.enabled)
                action.setToolTip(option.reason)
                action.triggered.connect(
                    lambda _=False, o=option: self.aim(actor, token_id, o))
        return menu

    def aim(self, actor: str, target: str, option: ActionOption) -> OddsCard:
        """Show the odds card for ``actor`` doing ``option`` to ``target``; confirm runs it."""
        state = self.host.session.referee.state
        command = command_for(actor, option, target)
        preview = self.host.session.referee.preview(command)
        title = f"{state.tokens[actor].name} → {state.tokens[target].name}: {option.label}"
        self.close_card()

        def chosen(detail: str) -> Command:
            return command_for(actor, replace(option, detail=detail), target)

        def repreview(detail: str) -> Preview:
            return self.host.session.referee.preview(chosen(detail))

        card = OddsCard(title, state.tokens[target].name, preview, self.host.window(),
                        choices=option.choices, chosen=option.detail, repreview=repreview)
        card.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        card.finished.connect(lambda _: self._card_done(card))
        card.accepted.connect(
            lambda: self.host.run(chosen(card.detail) if option.choices else command))
        card.setModal(False)
        card.show()
        self.odds_card = card
        return card

    def close_card(self) -> None:
        """Close the odds card (a card aimed in one encounter must not act on another)."""
        if self.odds_card is not None:
            self.odds_card.close()

    def _card_done(self, card: OddsCard) -> None:
        if self.odds_card is card:
            self.odds_card = None
