"""The roster at work: combatants kept across encounters, saved, dropped on the map, shared.

The roster database opens on first use, so a window that never touches it
never creates the file; ``RosterActions`` owns the Roster panel and its buttons.
"""

from __future__ import annotations

from tacmap.engine.files.roster import Imported, Roster
from tacmap.engine.model.commands import AddToken
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.words import plural
from tacmap.ui.build import free_cell, selected_token
from tacmap.ui.host import Host
from tacmap.ui.panels.roster import RosterPanel
from tacmap.ui.settings import roster_file


class RosterActions:
    """Save to, place from, import, export and remove roster entries."""

    def __init__(self, host: Host) -> None:
        self.host = host
        #: The open database (None until first used, or after it could not be read).
        self.db: Roster | None = None
        self.panel = RosterPanel(self.roster, lambda: host.session.referee.state.ruleset,
                                 self.damaged_rows)
        self.panel.save_button.clicked.connect(self.save_to_roster)
        self.panel.import_button.clicked.connect(self.import_roster)
        self.panel.export_button.clicked.connect(self.export_roster)
        self.panel.remove_button.clicked.connect(self.remove_from_roster)

    def roster(self) -> Roster | None:
        """The roster database, opened on first use (None, with a message, if unreadable)."""
        if self.db is None:
            try:
                self.db = Roster(roster_file())
            except InputError as err:
                self.host.error(str(err))
                return None
        return self.db

    def damaged_rows(self, messages: list[str]) -> None:
        """Tell the GM, once, of the roster rows a listing skipped (they stay in the file)."""
        more = f" (and {len(messages) - 1} more damaged entries)" if len(messages) > 1 else ""
        self.host.error(messages[0] + more)

    def save_to_roster(self) -> None:
        """Keep the selected combatant in the roster, with tags."""
        token = selected_token(self.host)
        roster = self.roster()
        if token is None or roster is None:
            return
        tags = self.host.ask_tags(token.name)
        if tags is None:
            return
        try:
            roster.add(self.host.session.referee.state.ruleset, token,
                       [t.strip() for t in tags.split(",") if t.strip()])
        except InputError as err:
            self.host.error(str(err))
            return
        self.panel.refresh()
        self.host.statusBar().showMessage(f"{token.name} is in the roster", 5000)

    def place_from_roster(self, entry_id: int, x: int, y: int) -> None:
        """A roster entry dropped on the map: a copy of it joins the encounter there."""
        roster = self.roster()
        if roster is None:
            return
        state = self.host.session.referee.state
        try:
            token = roster.copy_for(entry_id, state.tokens)
        except InputError as err:
            self.host.error(str(err))
            return
        token.x, token.y = free_cell(state, (x, y), token.size)
        if self.host.run(AddToken(token)):
            self.host.select(token.id)

    def import_roster(self) -> None:
        """Roster ▸ Import: combatants from a JSON file."""
        roster, path = self.roster(), self.host.ask_file("Import roster", False)
        if roster is None or path is None:
            return
        try:
            done = roster.import_file(path)
        except (InputError, OSError) as err:
            self.host.error(str(err))
            return
        except (UnicodeError, ValueError):
            # Text no file can hold (a lone surrogate): the roster is left as it was.
            self.host.error(f"{path}: cannot import: it holds text that is not valid "
                            "UTF-8 (such as a lone surrogate); nothing was added")
            return
        self.panel.refresh()
        self.host.statusBar().showMessage(imported_words(
            done, self.host.session.referee.state.ruleset), 10000)

    def export_roster(self) -> None:
        """Roster ▸ Export: this ruleset's combatants to a JSON file."""
        roster, path = self.roster(), self.host.ask_file("Export roster", True)
        if roster is None or path is None:
            return
        if path.suffix.lower() != ".json":  # what Import's "*.json" filter lists
            path = path.with_name(path.name + ".json")
        try:
            n = roster.export_json(path, self.host.session.referee.state.ruleset)
        except (InputError, OSError) as err:
            self.host.error(str(err))
            return
        self.host.statusBar().showMessage(f"{n} combatants exported to {path}", 5000)

    def remove_from_roster(self) -> None:
        """Take the highlighted entry out of the roster, once the GM says so (no undo)."""
        entry = self.panel.selected_entry()
        if entry is None:
            self.host.statusBar().showMessage("Select a roster entry first (click it).", 6000)
            return
        roster = self.roster()
        if roster is None:
            return
        try:
            name = roster.get(entry).name
        except InputError:
            name = "this damaged entry"
        if not self.host.ask(f"Remove {name} from the roster? This cannot be undone."):
            return
        try:
            roster.remove(entry)
        except InputError as err:
            self.host.error(str(err))
            self.panel.refresh()
            return
        self.panel.refresh()
        self.host.statusBar().showMessage(f"{name} removed from the roster", 6000)


def imported_words(done: Imported, here: str) -> str:
    """"2 combatants imported; 1 for speed_rank (listed in its encounters); 3 already
    kept": what an import did, for an encounter of ruleset ``here``."""
    if not done.added:
        return ("No combatants imported: " + (f"{plural(done.skipped, 'entry', 'entries')} "
                                              "already kept" if done.skipped
                                              else "the file lists none"))
    others = [(rid, n) for rid, n in sorted(done.added.items()) if rid != here]
    words = [f"{plural(done.added.get(here, 0), 'combatant')} imported"
             + (f" for {here}" if others else "")]
    words += [f"{plural(n, 'combatant')} for {rid} (listed in its encounters)"
              for rid, n in others]
    if done.skipped:
        words.append(f"{plural(done.skipped, 'entry', 'entries')} already kept")
    return "; ".join(words)
