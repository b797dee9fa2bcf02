"""The every-action contract (DESIGN §3), run for every built-in ruleset.

Each ruleset's shipped demo is played for at least 20 rounds in the real main
window (offscreen), through the window's own code path: the Actions panel's
buttons, a click on a token (which arms and aims the odds card), the odds
card's Confirm, a drag on the map, Build ▸ Add Combatant mid-combat. At every
step one enabled option is picked at random (seeded), with a target the
referee's preview calls legal. The test fails when

- an enabled option, aimed at a legal target, is refused;
- a disabled option has no reason;
- the Actions panel is empty while a token that can act is acting;
- a token on the map (one added mid-combat included) never gets a turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.model import records
from tacmap.engine.model.commands import Move
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import ActionOption
from tacmap.ui.map.token_item import CELL
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import QApplication, QDialogButtonBox, QPointF, QPushButton, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 20
#: Enough steps for 20 rounds of the busiest demo; more means the round never ends.
MAX_STEPS = 3000


def demos() -> dict[str, Path]:
    """The shipped demo encounter of each ruleset, by ruleset id."""
    found: dict[str, Path] = {}
    for path in sorted((ROOT / "resources").glob("*.tacmap")):
        found.setdefault(records.parse(path.read_bytes())["ruleset"]["id"], path)
    return found


DEMOS = demos()


@pytest.fixture(autouse=True)
def tacmap_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("TACMAP_HOME", str(home))
    return home


def test_every_built_in_ruleset_ships_a_demo() -> None:
    builtin = Registry(warn=lambda msg: None)
    assert set(builtin.ids()) <= set(DEMOS), "a built-in ruleset has no demo in resources/"


class Table:
    """A GM at the window: reads the Actions panel, clicks, drags, confirms."""

    def __init__(self, window: MainWindow, rng: random.Random) -> None:
        self.window = window
        self.rng = rng
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []

    @property
    def state(self):  # type: ignore[no-untyped-def]
        return self.window.session.referee.state

    def buttons(self) -> dict[str, QPushButton]:
        panel = self.window.order_panel
        layout = panel.actions_layout
        found = {}
        for i in range(layout.count()):
            item = layout.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QPushButton):
                found[getattr(widget, "full_text", widget.text())] = widget  # never elided
        return found

    def step(self) -> None:
        """One gesture of the acting token; returns nothing, counts everything."""
        window, state = self.window, self.state
        actor = window.order_panel.active
        if actor is None or actor not in state.tokens:
            self.counts["end turn (nobody acts)"] += 1
            window.order_panel.end_button.click()
            return
        self.counts[f"turn:{actor}"] += 1
        options = window.session.referee.ruleset.actions_for(state, actor)
        for o in options:
            if not o.enabled and not o.reason.strip():
                self.problems.append(f"{o.label!r} of {actor} is disabled with no reason")
        enabled = [o for o in options if o.enabled and o.key != "end_turn"]
        if enabled and not self.buttons():
            self.problems.append(f"the Actions panel is empty while {actor} can act")
        # A ruleset may offer End turn disabled (a declared action still owed): then the
        # button must be greyed too, and the GM takes an action instead.
        end = next((o for o in options if o.key == "end_turn"), None)
        if end is None or not end.enabled:
            if end is not None and window.order_panel.end_button.isEnabled():
                self.problems.append(f"End turn is offered disabled for {actor} "
                                     f"({end.reason}) but its button is enabled")
            if not enabled:
                why = end.reason if end is not None else "End turn is not offered"
                self.problems.append(f"{actor} can neither act nor end the turn: {why}")
                return
        # End the turn now and then, so rounds pass; otherwise take an action.
        elif not enabled or self.rng.random() < 0.3:
            self.counts["end turn"] += 1
            before = len(window.session.referee.log)
            window.order_panel.end_button.click()
            if len(window.session.referee.log) == before:
                self.problems.append(f"End turn was refused for {actor}: "
                                     f"{window.statusBar().currentMessage()}")
            return
        option = self.rng.choice(enabled)
        self.counts["options tried"] += 1
        {"none": self.press, "token": self.aim, "cell": self.drag,
         "area": self.place}[option.target](actor, option)

    def executed(self, action: str, before: int) -> None:
        if len(self.window.session.referee.log) > before:
            self.counts["executed"] += 1
        else:
            self.counts["refusals"] += 1
            said = self.window.statusBar().currentMessage()
            self.problems.append(f"{action} was refused: {said}")

    def press(self, actor: str, option: ActionOption) -> None:
        button = next((b for text, b in self.buttons().items() if text.startswith(option.label)),
                      None)
        if button is None or not button.isEnabled():
            self.problems.append(f"no enabled button for {option.label!r} of {actor}")
            return
        before = len(self.window.session.referee.log)
        button.click()
        self.executed(f"{actor}: {option.label}", before)

    def aim(self, actor: str, option: ActionOption) -> None:
        referee = self.window.session.referee
        targets = [t for t in self.state.tokens if t != actor]
        self.rng.shuffle(targets)
        legal = [t for t in targets
                 if referee.preview(command_for(actor, option, t)).legal]
        if not legal:
            self.counts["enabled, no legal target now"] += 1
            return
        target = legal[0]
        # The panel's button arms the map; the click on the target opens the odds card.
        button = next(b for text, b in self.buttons().items() if text.startswith(option.label))
        button.click()
        self.window.combat.token_clicked(target)
        card = self.window.combat.odds_card
        if not isinstance(card, OddsCard):
            self.problems.append(f"{actor}: {option.label} on {target} opened no odds card")
            return
        before = len(referee.log)
        card.accept()
        QApplication.processEvents()
        self.executed(f"{actor}: {option.label} → {target}", before)

    def place(self, actor: str, option: ActionOption) -> None:
        """An option with an area template: centre it on another token, click to confirm."""
        referee = self.window.session.referee
        assert option.area is not None, f"{option.label} is aimed at an area but has none"
        targets = [t for t in self.state.tokens.values() if t.id != actor]
        self.rng.shuffle(targets)
        legal = [t for t in targets if referee.preview(
            command_for(actor, option, area=option.area.at(t.cell))).legal]
        if not legal:
            self.counts["enabled, no legal target now"] += 1
            return
        cell = legal[0].cell
        button = next(b for text, b in self.buttons().items() if text.startswith(option.label))
        button.click()  # arms the map: the template follows the mouse
        tool = self.window.view.tool
        if tool is None or tool.name != "aim":
            self.problems.append(f"{actor}: {option.label} did not start placing its area")
            return
        at = QPointF((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL)
        tool.move(at)
        before = len(referee.log)
        tool.press(at, Qt.MouseButton.LeftButton)
        self.counts["areas placed"] += 1
        self.executed(f"{actor}: {option.label} at {cell}", before)

    def drag(self, actor: str, option: ActionOption) -> None:
        referee, token = self.window.session.referee, self.state.tokens[actor]
        cells = [(token.x + dx, token.y + dy) for dx in range(-4, 5) for dy in range(-4, 5)
                 if (dx, dy) != (0, 0)]
        self.rng.shuffle(cells)
        cell = next((c for c in cells[:24] if referee.preview(Move(actor, (c,))).legal), None)
        if cell is None:
            self.counts["enabled, no legal target now"] += 1
            return
        controller = self.window.view.controller
        assert controller is not None
        before = len(referee.log)
        controller.begin(actor, (0.5, 0.5))
        controller.move_to((cell[0] + 0.5, cell[1] + 0.5))
        controller.finish()
        self.executed(f"{actor} moves to {cell}", before)


@pytest.fixture
def table(qtbot: object, request: pytest.FixtureRequest) -> Iterator[Table]:
    ruleset_id = request.param
    registry = Registry(warn=lambda msg: None)
    session = Session.open(registry, DEMOS[ruleset_id])
    window = MainWindow(registry, session, ask=lambda question: False, tell=lambda text: None)
    window.ask_words = lambda question, suggested: suggested  # the GM takes the suggestion
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    window.resize(1400, 900)
    window.show()
    QApplication.processEvents()
    yield Table(window, random.Random(f"contract-{ruleset_id}"))


@pytest.mark.parametrize("table", sorted(DEMOS), indirect=True)
def test_every_offered_action_works(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    window = table.window
    window.order_panel.start_button.click()
    state = table.state
    assert state.round >= 1, window.statusBar().currentMessage()
    first_round = state.round
    joined = ""
    steps = 0
    while table.state.round < first_round + ROUNDS and steps < MAX_STEPS:
        steps += 1
        if not joined and table.state.round == first_round + 1:
            # A newcomer mid-combat, on the first side, through Build ▸ Add Combatant.
            form = window.add_combatant()
            joined = form.base.id
            form.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
            assert joined in table.state.tokens, form.problem.text()
        table.step()
    alive = {t.id for t in table.state.tokens.values() if t.alive}
    never = sorted(t for t in alive if not table.counts[f"turn:{t}"])
    with capsys.disabled():
        print(f"\n  contract {window.session.referee.ruleset.id}: {steps} steps, "
              f"{table.state.round - first_round} rounds, "
              f"{table.counts['options tried']} options tried, "
              f"{table.counts['executed']} executed, {table.counts['refusals']} refusals, "
              f"{table.counts['enabled, no legal target now']} with no legal target, "
              f"{table.counts['end turn']} turns ended, "
              f"{table.counts['areas placed']} areas placed")
    assert table.problems == []
    assert table.state.round >= first_round + ROUNDS, f"only {table.state.round} rounds"
    assert never == [], f"never had a turn: {never}"
    assert table.counts[f"turn:{joined}"] > 0, "the combatant added mid-combat never acted"
