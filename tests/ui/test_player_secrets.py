"""The player view shows no secret: every command and event kind of every ruleset, planted."""

from __future__ import annotations

import msgspec
import pytest

from tacmap.engine.model.state import Encounter
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.player import PlayerView
from tacmap.ui.qt import QApplication, QGraphicsSimpleTextItem, QLabel, QListWidget
from tacmap.ui.session import Session
from tests.engine import planted
from tests.engine.test_players import DEMOS, KINDS, demo


def seen(view: PlayerView) -> str:
    """Every word the player view shows: titles, labels, rows, the timeline, the map's
    tags, badges, tooltips and the hit points it draws."""
    out = [view.windowTitle()]
    out += [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view)]
    for rows in view.findChildren(QListWidget):
        out += [rows.item(i).text() for i in range(rows.count())]
    for item in view.scene.items():
        out.append(item.toolTip())
        if isinstance(item, QGraphicsSimpleTextItem):
            out.append(item.text())
    for look in view.scene._looks:
        out += [look.name, look.tooltip, *look.conditions]
        if look.max_hp:
            out.append(f"{look.hp}/{look.max_hp}")
    plot = view.timeline.plot
    if plot is not None:
        for item in plot.items():
            text = getattr(item, "textItem", None)
            if text is not None:
                out.append(text.toPlainText())
        ticks = plot.getAxis("left")._tickLevels or []
        out += [str(name) for level in ticks for _, name in level]
    return "\n".join(out)


def shown_to_players(qtbot: object, view: PlayerView | None, registry: Registry,
                     state: Encounter, log: list[Entry]) -> tuple[PlayerView, str]:
    """What a player view (``view``, or a new one) following ``state`` after ``log`` shows."""
    session = Session(registry, state, log)
    if view is None:
        view = PlayerView(session)
        qtbot.addWidget(view)  # type: ignore[attr-defined]
        view.show()
    else:
        view.sync(session)
    QApplication.processEvents()
    return view, seen(view)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("ruleset", sorted(DEMOS))
def test_no_secret_reaches_the_player_view(qtbot: object, registry: Registry, ruleset: str,
                                           kind: type, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = registry.get(ruleset)
    secret = rules.secret_conditions() or frozenset({planted.SCHEMING})
    # A ruleset that keeps no condition secret is given one, so each ruleset's view is tried.
    monkeypatch.setattr(rules, "secret_conditions", lambda: secret)
    view = None
    for what in planted.SECRETS:
        start, plant = planted.stage(demo(registry, ruleset), what, secret)
        # Every token in sight: only the filter keeps a secret.
        start.fog = msgspec.structs.replace(start.fog, enabled=False)
        log = list(planted.entries(kind, plant))
        end = planted.played(start, log)
        view, text = shown_to_players(qtbot, view, registry, end, log)
        assert planted.leaks(text, plant) == [], (what, text[-600:])
