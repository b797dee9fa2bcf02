"""What the GM does to several selected tokens at once: remove, copy and paste them.

Each is one command to the referee (``RemoveTokens``, ``AddTokens``), so one
log entry and one undo, whatever the number of tokens. Dragging the group is
in map/group_drag.py.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from tacmap.engine.files.roster import next_copy
from tacmap.engine.model.commands import AddTokens, RemoveTokens
from tacmap.engine.model.state import Cell, Encounter, Token
from tacmap.engine.play.gm import next_ids, next_names
from tacmap.ui.map.group_drag import selected_ids
from tacmap.ui.map.token_item import CELL

if TYPE_CHECKING:
    from tacmap.ui.host import Host


class GroupActions:
    """Delete, Ctrl+C and Ctrl+V on the tokens selected on the GM's map."""

    def __init__(self, host: Host, remove_one: Callable[[], None]) -> None:
        self.host = host
        #: Build ▸ Remove Combatant, for a Delete with one token selected.
        self.remove_one = remove_one
        #: The tokens last copied, as they were then.
        self.clipboard: list[Token] = []

    def selected(self) -> list[str]:
        """The tokens selected on the map, in the encounter's order."""
        return selected_ids(self.host.scene)

    def remove(self) -> None:
        """Delete: several selected tokens go as one command (asked once); one as ever."""
        ids = self.selected()
        host = self.host
        if len(ids) < 2:
            if ids and ids[0] != host.actor:
                host.select(ids[0])  # the token with the ring is the one removed
            self.remove_one()
            return
        if not host.ask(f"Remove {len(ids)} tokens?"):
            return
        if host.run(RemoveTokens(tuple(ids))) and host.actor in ids:
            host.select(None)

    def copy(self) -> None:
        """Ctrl+C: remember the selected tokens (or the selected combatant)."""
        state = self.host.session.referee.state
        ids = self.selected() or ([self.host.actor] if self.host.actor in state.tokens else [])
        if not ids:
            self.host.statusBar().showMessage("Select tokens to copy first.", 6000)
            return
        self.clipboard = [copy.deepcopy(state.tokens[tid]) for tid in ids if tid]
        count = f"{len(ids)} tokens" if len(ids) > 1 else state.tokens[ids[0]].name
        self.host.statusBar().showMessage(f"Copied {count}: Ctrl+V pastes at the mouse", 6000)

    def paste(self) -> None:
        """Ctrl+V: fresh copies of the copied tokens, the group's corner at the mouse's cell."""
        if not self.clipboard:
            self.host.statusBar().showMessage("Nothing to paste: select tokens and Ctrl+C "
                                              "first.", 6000)
            return
        tokens = pasted(self.host.session.referee.state, self.clipboard, self.mouse_cell())
        if self.host.run(AddTokens(tuple(tokens))):
            scene = self.host.scene
            scene.clearSelection()
            for token in tokens:
                item = scene.items_by_id.get(token.id)
                if item is not None:
                    item.setSelected(True)
            names = ", ".join(t.name for t in tokens[:3]) + (" …" if len(tokens) > 3 else "")
            self.host.statusBar().showMessage(f"Pasted {names}", 6000)

    def mouse_cell(self) -> Cell:
        """The cell under the mouse on the map (where it last was; else the view's centre)."""
        view = self.host.view
        at = view.pointer
        if at is None:
            at = view.mapToScene(view.viewport().rect().center())
        return (math.floor(at.x() / CELL), math.floor(at.y() / CELL))


def pasted(state: Encounter, originals: list[Token], corner: Cell) -> list[Token]:
    """Fresh copies of ``originals`` ("Goblin 2", new ids), their top-left at ``corner``.

    A copy starts unhurt and without conditions, as Build ▸ Duplicate makes one;
    the copies keep their places relative to each other.
    """
    left = min(t.x for t in originals)
    top = min(t.y for t in originals)
    # Each copy's name and id count as taken for the next: a scratch view of the map.
    scratch = copy.copy(state)
    scratch.tokens = dict(state.tokens)
    out = []
    for original in originals:
        token = next_copy(original, scratch.tokens)
        token.id = next_ids(scratch, original.id, 1)[0]
        token.name = next_names(scratch, original.name, 1)[0]
        token.x, token.y = corner[0] + original.x - left, corner[1] + original.y - top
        scratch.tokens[token.id] = token
        out.append(token)
    return out
