"""The GM's part of a token's right-click menu, and its keys on the selected token.

Below the rules' actions the menu has a GM section: Damage… and Heal… (keys
− and + on the selected token), Set HP…, Conditions (tick to add or take one
off; Other… for free text), Hide from / Reveal to the players, Edit Stat
Block…, Duplicate and Remove. Each is one command to the referee, so each is
one logged sentence, undone by Edit ▸ Undo, and judged by the ruleset where it
has a rule (a token dropping at 0 HP leaves the order as the ruleset says).

No built-in ruleset declares a list of conditions, so the menu offers the
conditions tokens have had in this encounter (on the map or in the log), and
any other as free text.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import msgspec

from tacmap.engine.model.commands import AdjustHp, Command, EditToken, SetCondition, SetHp
from tacmap.engine.model.events import ConditionChanged
from tacmap.engine.model.state import Encounter, Token
from tacmap.engine.play.gm import MAX_HP_CHANGE
from tacmap.ui.build import Builder
from tacmap.ui.host import Host
from tacmap.ui.qt import QAction, QDialog, QInputDialog, QKeySequence, QMenu, QWidget

#: The keys on the selected token: damage, heal.
DAMAGE_KEYS, HEAL_KEYS = ("-",), ("+", "=")
#: The minus sign as the menu shows the key.
MINUS = "−"

AskAmount = Callable[[str, str, int, int, int], int | None]
"""Ask a whole number: (title, label, start, lowest, highest); None when cancelled."""


def amount_dialog(parent: QWidget) -> AskAmount:
    """A small dialog asking one whole number."""
    def ask(title: str, label: str, start: int, low: int, high: int) -> int | None:
        dialog = QInputDialog(parent)
        dialog.setInputMode(QInputDialog.InputMode.IntInput)
        dialog.setWindowTitle(title)
        dialog.setLabelText(label)
        dialog.setIntRange(low, high)
        dialog.setIntValue(start)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.intValue()
    return ask


def known_conditions(state: Encounter, log_conditions: set[str]) -> list[str]:
    """Conditions worth offering: those on any token now and those the log has seen."""
    seen = set(log_conditions)
    for token in state.tokens.values():
        seen.update(token.conditions)
    return sorted(seen, key=str.casefold)


def _item(menu: QMenu, text: str, slot: Callable[[], object]) -> QAction:
    action = menu.addAction(text)
    action.triggered.connect(lambda _=False: slot())
    return action


class TokenGm:
    """The GM section of the token menu and the damage and heal keys."""

    def __init__(self, host: Host, build: Builder) -> None:
        self.host = host
        #: Building the encounter: the stat block form, Duplicate and Remove are its.
        self.build = build
        #: Asks a number (a dialog; tests answer it themselves).
        self.ask_amount: AskAmount = amount_dialog(host.window())

    # --- the menu -----------------------------------------------------------------------

    def add_to(self, menu: QMenu, token_id: str) -> None:
        """Add the GM section for ``token_id`` to ``menu`` (after the rules' actions)."""
        token = self.host.session.referee.state.tokens[token_id]
        menu.addSection("GM")
        # The keys are named, not bound, here: Combat ▸ Damage Selected Token owns them.
        _item(menu, f"Damage…\t{MINUS}", lambda: self.damage(token_id))
        _item(menu, "Heal…\t+", lambda: self.heal(token_id))
        _item(menu, "Set HP…", lambda: self.set_hp(token_id))
        self.fill_conditions(menu.addMenu("Conditions"), token)
        _item(menu, "Reveal to Players" if token.hidden else "Hide from Players",
              lambda: self.toggle_hidden(token_id))
        _item(menu, "Edit Stat Block…",
              lambda: self._on_selected(token_id, self.build.edit_combatant))
        _item(menu, "Duplicate",
              lambda: self._on_selected(token_id, self.build.duplicate_combatant))
        _item(menu, "Remove",
              lambda: self._on_selected(token_id, self.build.remove_combatant))

    def fill_conditions(self, menu: QMenu, token: Token) -> None:
        """Every known condition, ticked where ``token`` has it; Other… adds any by name."""
        for name in known_conditions(self.host.session.referee.state, self._logged()):
            has = name in token.conditions
            action = _item(menu, name, partial(self.set_condition, token.id, name, not has))
            action.setCheckable(True)
            action.setChecked(has)
        menu.addSeparator()
        _item(menu, "Other…", lambda: self.other_condition(token.id))

    def _logged(self) -> set[str]:
        return {e.condition for entry in self.host.session.referee.log for e in entry.events
                if isinstance(e, ConditionChanged)}

    def _on_selected(self, token_id: str, act: Callable[[], object]) -> None:
        """The Build menu's entries act on the selected token: select this one first."""
        self.host.select(token_id)
        act()

    # --- what each entry does -------------------------------------------------------------

    def _token(self, token_id: str | None) -> Token | None:
        tokens = self.host.session.referee.state.tokens
        return tokens.get(token_id) if token_id else None

    def damage(self, token_id: str | None = None) -> bool:
        """Damage…: take a typed amount of hit points off the token (the selected one)."""
        token = self._token(token_id or self.host.actor)
        if token is None:
            return self._nobody("damage")
        amount = self.ask_amount("Damage", f"Damage to {token.name} ({token.hp} HP):", 1, 1,
                                 MAX_HP_CHANGE)
        return amount is not None and self._run(AdjustHp(token.id, -amount))

    def heal(self, token_id: str | None = None) -> bool:
        """Heal…: give a typed amount of hit points back to the token (the selected one)."""
        token = self._token(token_id or self.host.actor)
        if token is None:
            return self._nobody("heal")
        amount = self.ask_amount("Heal", f"Heal {token.name} ({token.hp} of {token.max_hp} HP) "
                                 "by:", max(1, token.max_hp - token.hp), 1, MAX_HP_CHANGE)
        return amount is not None and self._run(AdjustHp(token.id, amount))

    def set_hp(self, token_id: str) -> bool:
        """Set HP…: the token's hit points to a typed number."""
        token = self._token(token_id)
        if token is None:
            return False
        hp = self.ask_amount("Set HP", f"{token.name}'s hit points (of {token.max_hp}):",
                             token.hp, -MAX_HP_CHANGE, MAX_HP_CHANGE)
        return hp is not None and hp != token.hp and self._run(SetHp(token.id, hp))

    def set_condition(self, token_id: str, condition: str, on: bool) -> bool:
        """Give the token ``condition``, or take it off."""
        return self._run(SetCondition(token_id, condition, on))

    def other_condition(self, token_id: str) -> bool:
        """Conditions ▸ Other…: a condition by name (taken off when the token has it)."""
        token = self._token(token_id)
        if token is None:
            return False
        words = self.host.ask_words(f"Condition for {token.name} (one it has is taken off):",
                                    "")
        name = (words or "").strip()
        return bool(name) and self.set_condition(token_id, name, name not in token.conditions)

    def toggle_hidden(self, token_id: str) -> bool:
        """Hide from the players, or reveal to them."""
        token = self._token(token_id)
        if token is None:
            return False
        return self._run(EditToken(msgspec.structs.replace(token, hidden=not token.hidden)))

    def _run(self, command: Command) -> bool:
        return self.host.run(command)

    def _nobody(self, what: str) -> bool:
        self.host.statusBar().showMessage(f"Select a token to {what} first", 6000)
        return False

    # --- the keys -----------------------------------------------------------------------------

    def add_keys(self, menu: QMenu) -> list[QAction]:
        """Combat ▸ Damage Selected… (−) and Heal Selected… (+), for the selected token."""
        actions = []
        for text, keys, slot in (("&Damage Selected Token…", DAMAGE_KEYS, self.damage),
                                 ("&Heal Selected Token…", HEAL_KEYS, self.heal)):
            action = QAction(text, menu)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.triggered.connect(lambda _=False, act=slot: act())
            menu.addAction(action)
            actions.append(action)
        return actions
