"""Issue 22, items 5, 6, 14 and polish: the odds card, the last result, physical dice."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.cli import read_script
from tacmap.engine.model.commands import Act, Attack, EndTurn, FreeMove, StartCombat
from tacmap.engine.model.events import DiceRolled, HpChanged
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import ActionOption, Odds, Preview, Reaction
from tacmap.ui.app import demo_path
from tacmap.ui.dice_sheet import DicePlan, DiceSheet, trial_of
from tacmap.ui.odds_card import OddsCard, beside, whole_ticks
from tacmap.ui.panels.log import LogPanel
from tacmap.ui.qt import QApplication, QRect, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

RESOURCES = demo_path().parent


def open_demo(qtbot: object, registry: Registry, tmp_path: Path, name: str) -> MainWindow:
    """A copy of a shipped demo in a shown window."""
    path = tmp_path / name
    shutil.copy(RESOURCES / name, path)
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    return shown(qtbot, win, (1280, 800))


@pytest.fixture
def demo(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """The action_pool demo, combat started, Ser Aldric beside Barry (who ripostes)."""
    win = open_demo(qtbot, registry, tmp_path, "demo.tacmap")
    win.run(StartCombat())
    win.run(FreeMove("aldric", (13, 9)))
    win.select("aldric")
    QApplication.processEvents()
    yield win


def inside(card: OddsCard, widget: object) -> QRect:
    """``widget``'s rectangle in the card's coordinates."""
    top_left = widget.mapTo(card, widget.rect().topLeft())  # type: ignore[attr-defined]
    return QRect(top_left, widget.size())  # type: ignore[attr-defined]


# --- 5. the odds card -------------------------------------------------------------------


def busy_preview(damage: tuple[tuple[int, float], ...]) -> Preview:
    """A preview as rich as opposed's: chances, small print, a reaction and a plot."""
    odds = Odds(0.625, damage, 0.125,
                chances=(("Chance of a critical (at least double)", 0.05),),
                lines=("attack 2d8 + 5 (Journeyman SL 5, bows)",
                       "damage 2d6 + 2 (Combat Form Novice SL 2)",
                       "armour 1d6 (medium armour, no modifier)", "damage shown is after armour"),
                reactions=(Reaction("Gruk the orc chief may Parry: +2 AC, counted in the odds",
                                    0.8, 0.2),))
    return Preview(True, odds=odds)


def test_the_cards_buttons_are_inside_it_and_below_the_plot(qtbot: object) -> None:
    card = OddsCard("Lio → Gruk the orc chief, warlord of the Red Hand: Attack (bow)",
                    "Gruk the orc chief, warlord of the Red Hand",
                    busy_preview(tuple((d, 1 / 14) for d in range(14))))
    qtbot.addWidget(card)  # type: ignore[attr-defined]
    card.show()
    QApplication.processEvents()
    assert card.plot is not None
    plot, confirm = inside(card, card.plot), inside(card, card.confirm_button)
    cancel = inside(card, card.buttons.button(card.buttons.StandardButton.Cancel))
    for button in (confirm, cancel):
        assert card.rect().contains(button)
        assert not button.intersects(plot) and button.top() >= plot.bottom()
    # The card cannot be made so small that the plot slides over them.
    card.resize(card.width(), 100)
    QApplication.processEvents()
    assert inside(card, card.confirm_button).top() >= inside(card, card.plot).bottom()


def test_the_chance_the_target_drops_keeps_its_value_in_view(qtbot: object) -> None:
    name = "Gruk the orc chief, warlord of the Red Hand"
    card = OddsCard(f"Lio → {name}", name, busy_preview(((5, 1.0),)))
    qtbot.addWidget(card)  # type: ignore[attr-defined]
    card.show()
    QApplication.processEvents()
    summary = card.summary
    assert "drops:&nbsp;<b>12.5%</b>" in summary.text()  # the value never wraps away
    # The label is given the height its wrapped lines need, and lies above the plot.
    assert summary.height() >= summary.heightForWidth(summary.width())
    assert card.plot is not None
    assert inside(card, summary).bottom() < inside(card, card.reactions).top()
    assert inside(card, card.reactions).bottom() < inside(card, card.plot).top()


def test_a_reaction_is_named_with_the_odds_without_it(qtbot: object) -> None:
    card = OddsCard("Lio → Gruk", "Gruk", busy_preview(((5, 1.0),)))
    qtbot.addWidget(card)  # type: ignore[attr-defined]
    card.show()
    assert card.reactions.isVisible()
    text = card.reactions.text()
    assert "may Parry" in text and "without it" in text
    assert "80.0% to succeed" in text and "20.0% that Gruk drops" in text


def test_a_single_damage_value_is_drawn_on_whole_numbers(qtbot: object) -> None:
    card = OddsCard("A → B", "B", busy_preview(((7, 1.0),)))
    qtbot.addWidget(card)  # type: ignore[attr-defined]
    card.show()
    QApplication.processEvents()
    assert card.plot is not None
    ticks = card.plot.getAxis("bottom")._tickLevels  # what setTicks fixed
    values = [v for level in ticks for v, _ in level]
    assert values == [7.0]
    assert whole_ticks(0, 40) == [(float(v), str(v)) for v in range(0, 41, 5)]


@pytest.mark.parametrize("damage", [((4, 0.47), (8, 0.36), (12, 0.15), (16, 0.02)),
                                    ((5, 0.143), (6, 0.6), (7, 0.257))])
def test_no_percent_label_sits_on_the_charts_top_edge(qtbot: object,
                                                      damage: tuple[tuple[int, float], ...]
                                                      ) -> None:
    """reflex's 47% bar put a "50" on the top edge, opposed's 14% a "15": each was cut in
    half. The labels stop at the tallest bar; the chart's top is above it."""
    card = OddsCard("A → B", "B", busy_preview(damage))
    qtbot.addWidget(card)  # type: ignore[attr-defined]
    card.show()
    QApplication.processEvents()
    assert card.plot is not None
    tallest = max(p for _, p in damage) * 100
    top = card.plot.getViewBox().viewRange()[1][1]
    values = [v for level in card.plot.getAxis("left")._tickLevels for v, _ in level]
    assert values and values[0] == 0 and max(values) <= tallest < top


def test_the_card_goes_beside_the_two_tokens_not_over_them(demo: MainWindow) -> None:
    demo.token_clicked("barry")
    card = demo.odds_card
    assert card is not None
    QApplication.processEvents()
    tokens = demo.combat.tokens_on_screen("aldric", "barry")
    assert tokens is not None
    assert not card.frameGeometry().intersects(tokens)
    # Next to them, not across the screen: at most half a card further off than the
    # usual gap (pushed off to clear a third token).
    frame = card.frameGeometry()
    dx = max(0, tokens.left() - frame.right(), frame.left() - tokens.right())
    dy = max(0, tokens.top() - frame.bottom(), frame.top() - tokens.bottom())
    assert max(dx, dy) <= 40 + frame.height() // 2
    screen = QRect(0, 0, 800, 600)
    # No room to the right: the left; none either side: below; always on the screen.
    assert beside(QRect(700, 300, 60, 30), (300, 200), screen).x() + 300 < 700
    spot = beside(QRect(100, 100, 600, 30), (300, 200), screen)
    assert spot.y() > 130 and screen.contains(QRect(spot.x(), spot.y(), 300, 200))


def test_the_card_moves_further_off_to_clear_a_third_token_and_keeps_to_the_map() -> None:
    screen = QRect(0, 0, 1280, 800)
    tokens = QRect(100, 310, 230, 110)  # a shooter and its target
    others = [QRect(530, 280, 32, 32), QRect(386, 460, 32, 32)]  # one above, one below
    spot = beside(tokens, (420, 405), screen, others)
    card = QRect(spot.x(), spot.y(), 420, 405)
    assert not card.intersects(tokens) and not any(card.intersects(r) for r in others)
    # With room on the map beside them, the card keeps off the panels.
    map_rect = QRect(0, 68, 1500, 700)
    wide = QRect(0, 0, 1920, 1080)
    spot = beside(QRect(100, 300, 60, 30), (420, 405), wide, [], map_rect)
    assert map_rect.contains(QRect(spot.x(), spot.y(), 420, 405))


def test_the_demo_card_names_barrys_riposte(demo: MainWindow) -> None:
    demo.token_clicked("barry")
    card = demo.odds_card
    assert card is not None and card.reactions.isVisible()
    assert "Barry the Guard may answer with Riposte" in card.reactions.text()


def test_a_parry_is_named_with_the_chance_without_it(demo: MainWindow) -> None:
    grell = demo.session.referee.state.tokens["grell"]
    assert "parry" in grell.stats["abilities"]
    demo.run(FreeMove("grell", (14, 9)))
    preview = demo.session.referee.preview(Attack("aldric", "grell"))
    assert preview.odds is not None
    parry = preview.odds.reactions[0]
    assert "Parry" in parry.text and parry.success is not None
    assert parry.success > preview.odds.success  # the Parry raises the DT


# --- 6. the last result -----------------------------------------------------------------


def test_the_last_attack_stays_in_view_after_the_turn_ends(demo: MainWindow) -> None:
    demo.token_clicked("barry")
    assert demo.odds_card is not None
    demo.odds_card.confirm_button.click()
    QApplication.processEvents()
    entry = demo.session.referee.log[-1]
    strip = demo.log_panel.result
    text = strip.text()
    assert text.startswith("Last result: Ser Aldric attacks Barry the Guard")
    rolled = [e for e in entry.events if isinstance(e, DiceRolled)]
    assert rolled and all(str(e.roll.faces[0]) in text for e in rolled)
    for hurt in (e for e in entry.events if isinstance(e, HpChanged)):
        assert f"{hurt.old} → {hurt.new} HP" in text  # the damage and the HP left
    assert "Reaction: Barry the Guard reacts with Riposte" in text
    demo.order_panel.end_button.click()  # rolls nothing: the result stays
    assert strip.text() == text
    demo.undo_action.trigger()  # the end of the turn
    demo.undo_action.trigger()  # the attack: the strip goes back to what came before
    assert "Ser Aldric attacks Barry" not in strip.text()


def test_a_fireballs_five_saves_are_all_in_the_last_result(qtbot: object, registry: Registry,
                                                           tmp_path: Path) -> None:
    win = open_demo(qtbot, registry, tmp_path, "speed_rank_demo.tacmap")
    script = read_script(str(RESOURCES / "speed_rank_demo-three-rounds.jsonl"))
    ref = win.session.referee
    for _, command in script:
        win.run(command)
        if any(isinstance(e, HpChanged) for e in ref.log[-1].events) and \
                "Fireball" in win.log_panel.result.text():
            break
    text = win.log_panel.result.text()
    saves = [line for line in text.splitlines() if "for Save vs. Spell" in line]
    assert len(saves) == 3  # the demo's blast holds three tokens: each save is there
    assert text.count("for Fireball on") == 3
    for hurt in (e for e in ref.log[-1].events if isinstance(e, HpChanged)):
        assert f"{hurt.old} → {hurt.new} HP" in text


def test_the_log_keeps_six_lines_in_a_squeezed_dock(qtbot: object) -> None:
    # A dock never shrinks its widget below the widget's minimum size hint; the timeline
    # opening under the docks squeezes them down to it.
    panel = LogPanel()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    line = panel.fontMetrics().lineSpacing()
    assert panel.minimumSizeHint().height() >= 6 * line + panel.result.minimumHeight()
    panel.resize(300, 10)
    panel.show()
    QApplication.processEvents()
    assert panel.lines.height() >= 6 * line
    assert panel.result.height() >= 3 * line  # and the last result keeps its first lines


# --- 14. physical dice --------------------------------------------------------------------


def test_the_dice_sheet_refuses_a_nine_on_a_d8_and_keeps_the_action(demo: MainWindow,
                                                                    qtbot: object) -> None:
    ref = demo.session.referee
    command = Attack("aldric", "barry")
    plan = DicePlan("Ser Aldric attacks Barry the Guard", trial_of(ref, command))
    sheet = DiceSheet(plan, demo)
    qtbot.addWidget(sheet)  # type: ignore[attr-defined]
    sheet.show()
    first = sheet.groups[0]
    assert first.need.sides == 6 and len(first.fields) == first.need.count
    for field in first.fields:
        field.setText("6")  # every die a success: a hit, so damage is asked for too
    assert len(sheet.groups) >= 2  # the damage roll's fields appeared in the same sheet
    damage = sheet.groups[1]
    damage.fields[0].setText(str(damage.need.sides + 1))  # a 9 on a d8
    assert not sheet.ok_button.isEnabled()
    assert f"shows 1 to {damage.need.sides}, not {damage.need.sides + 1}" in \
        sheet.message.text()
    assert damage.fields[0].styleSheet()  # the field is marked
    qtbot.keyClick(damage.fields[0], Qt.Key.Key_Return)  # type: ignore[attr-defined]
    assert sheet.isVisible() and sheet.result() == 0  # Enter neither sends nor closes
    damage.fields[0].setText("1")
    for group in sheet.groups:
        for field in group.fields:
            if not field.text():
                field.setText("1")
    assert sheet.ok_button.isEnabled() and not damage.fields[0].styleSheet()
    before = len(ref.log)
    demo.ask_dice = lambda asked: sheet.faces
    demo.dice_action.trigger()
    assert demo.run(command)
    assert len(ref.log) == before + 1
    rolled = [e.roll.faces for e in ref.log[-1].events if isinstance(e, DiceRolled)]
    assert rolled[0] == (6,) * first.need.count


def test_each_roll_on_the_sheet_names_whose_dice_it_is(qtbot: object, registry: Registry,
                                                     tmp_path: Path) -> None:
    # opposed rolls a Reflex check per token for the turn order: six alike but for the name.
    win = open_demo(qtbot, registry, tmp_path, "opposed_demo.tacmap")
    ref = win.session.referee
    win.run(StartCombat())
    plan = DicePlan("The turn ends", trial_of(ref, EndTurn()))
    sheet = DiceSheet(plan, win)
    qtbot.addWidget(sheet)  # type: ignore[attr-defined]
    for _ in range(12):  # fill each roll as it appears, as the GM does
        for group in sheet.groups:
            for field in group.fields:
                if not field.text():
                    field.setText("3")
    living = sorted(t.name for t in ref.state.tokens.values() if t.hp > 0)
    named = sorted(g.need.why.split("'s ")[0] for g in sheet.groups)
    assert named == living
    assert all("Reflex check for turn order" in g.need.why for g in sheet.groups)


def test_cancelling_the_sheet_sends_nothing_and_says_so(demo: MainWindow) -> None:
    ref = demo.session.referee
    demo.ask_dice = lambda plan: None
    demo.dice_action.trigger()
    before = len(ref.log)
    assert not demo.run(Attack("aldric", "barry"))
    assert len(ref.log) == before
    assert "no dice were typed in" in demo.statusBar().currentMessage()


def test_an_action_that_rolls_nothing_asks_for_nothing(demo: MainWindow) -> None:
    asked: list[DicePlan] = []
    demo.ask_dice = lambda plan: asked.append(plan) or None  # type: ignore[func-returns-value]
    demo.dice_action.trigger()
    assert demo.run(FreeMove("aldric", (12, 9)))
    assert asked == []


# --- polish ---------------------------------------------------------------------------------


def test_a_declared_attack_aims_at_its_target_without_a_click(qtbot: object,
                                                             registry: Registry,
                                                             tmp_path: Path) -> None:
    win = open_demo(qtbot, registry, tmp_path, "reflex_demo.tacmap")
    ref, rules = win.session.referee, registry.get("reflex")
    win.run(StartCombat())
    state = ref.state
    # Each token, in the declaring order, declares an attack on an enemy put beside it.
    declared: dict[str, str] = {}
    for _ in range(20):
        actor = next((t for t in state.tokens if t not in declared and any(
            o.key == "declare:attack" and o.enabled for o in rules.actions_for(state, t))), None)
        if actor is None:
            break
        me = state.tokens[actor]
        foe = next(t for t in state.tokens.values() if t.side != me.side)
        win.run(FreeMove(foe.id, (me.cell[0] + 1, me.cell[1])))
        detail = next(o.detail for o in rules.actions_for(state, actor)
                      if o.key == "declare:attack")
        win.run(Act(actor, "declare:attack", foe.id, detail))
        declared[actor] = foe.id
    due: list[tuple[str, ActionOption]] = []
    for _ in range(20):  # the action phase: pass turns until a declared attack is due
        due = [(t, o) for t in declared for o in rules.actions_for(state, t)
               if o.key == "attack" and o.enabled]
        if due:
            break
        win.order_panel.end_button.click()
    actor, option = due[0]
    assert option.at == declared[actor]
    assert option.label.startswith(f"Attack {state.tokens[option.at].name}")
    win.combat.arm(actor, option)
    assert win.combat.armed is None  # nothing waits for a click on the target
    assert win.odds_card is not None and win.odds_card.target == state.tokens[option.at].name


def test_a_spell_declared_in_six_phase_reads_cast_spell_at_target(registry: Registry) -> None:
    from tests.rulesets.six_phase.test_six_phase import melee_phase

    ref = melee_phase(registry)
    plan = ref.ruleset.plan_for(  # type: ignore[attr-defined]
        ref.state, Act("ana", "cast", "brak", "firebolt/bolt/torso"))
    assert plan.label == "cast Firebolt at Brak (bolt, torso)"


def test_a_burst_of_results_draws_only_the_last(demo: MainWindow) -> None:
    demo.token_clicked("barry")
    assert demo.odds_card is not None
    demo.odds_card.confirm_button.click()
    QApplication.processEvents()
    strip = demo.log_panel.result
    attack = demo.session.referee.log[-1]
    before = strip.label.text()
    state = demo.session.referee.state
    strip.clear()
    strip.show_entry(state, attack)
    strip.show_entry(state, attack)  # again, within the same turn of the event loop
    assert strip.text().startswith("Last result: Ser Aldric attacks Barry the Guard")
    assert strip.label.text() != before  # cleared, not yet drawn anew
    QApplication.processEvents()
    assert strip.label.text() == before  # drawn once, the newest words


def test_the_first_rolls_label_stays_whole_as_more_rolls_appear(demo: MainWindow,
                                                                qtbot: object) -> None:
    """Issue 36 item 15: the sheet clipped the first roll's label once more dice rows
    appeared."""
    from tacmap.ui.qt import QLabel

    ref = demo.session.referee
    plan = DicePlan("Ser Aldric attacks Barry the Guard", trial_of(ref, Attack("aldric", "barry")))
    sheet = DiceSheet(plan, demo)
    qtbot.addWidget(sheet)  # type: ignore[attr-defined]
    sheet.show()
    for field in sheet.groups[0].fields:
        field.setText("6")
    for _ in range(3):
        QApplication.processEvents()
    assert len(sheet.groups) >= 2
    for group in sheet.groups:
        title = group.findChildren(QLabel)[0]
        assert title.height() >= title.heightForWidth(title.width()), title.text()
        assert title.geometry().bottom() < group.fields[0].geometry().top()


def test_a_miss_on_dice_rolled_before_is_the_last_result(qtbot: object, registry: Registry,
                                                         tmp_path: Path) -> None:
    """Issue 36 item 5: reflex rolls a round's pools at once, so a miss rolls nothing new;
    the Last result stayed on the action before ("Kestrel attacks Skulk" while the log
    said Skulk missed)."""
    from tacmap.engine.model.commands import Attack as AttackCommand

    win = open_demo(qtbot, registry, tmp_path, "reflex_demo.tacmap")
    win.session.referee.state.seed = 27
    script = read_script(str(RESOURCES / "reflex_demo-two-rounds.jsonl"))
    for n, command in script:
        assert win.run(command), n
        if n == 17:
            break
    entry = win.session.referee.log[-1]
    assert isinstance(entry.command, AttackCommand) and entry.command.actor == "skulk"
    qtbot.waitUntil(lambda: "Skulk attacks Kestrel" in  # type: ignore[attr-defined]
                    win.log_panel.result.label.text(), timeout=20000)
    assert "misses Kestrel" in win.log_panel.result.label.text()


def test_the_card_keeps_clear_of_a_third_token_where_it_can() -> None:
    """Issue 36 item 8: the card covered a third token, sometimes the target of a
    declared action."""
    screen = QRect(0, 0, 1600, 900)
    tokens = QRect(400, 400, 100, 40)
    plain = beside(tokens, (300, 200), screen)
    third = QRect(plain.x() + 100, plain.y() + 80, 40, 40)  # where the card would go
    moved = beside(tokens, (300, 200), screen, [third])
    card = QRect(moved.x(), moved.y(), 300, 200)
    assert not card.intersects(third) and not card.intersects(tokens)
    assert screen.contains(card)
    # Still next to the two tokens, not across the screen.
    assert max(0, tokens.left() - card.right(), card.left() - tokens.right()) <= 200
    # Tokens everywhere: it covers as few as it must, and never the two.
    crowd = [QRect(x, y, 40, 40) for x in range(0, 1600, 60) for y in range(0, 900, 60)
             if not QRect(x, y, 40, 40).intersects(tokens)]
    spot = beside(tokens, (300, 200), screen, crowd)
    assert not QRect(spot.x(), spot.y(), 300, 200).intersects(tokens)


@pytest.mark.parametrize(("size", "whole"), [((1920, 1080), True), ((1280, 800), False)])
def test_an_opposed_critical_shows_whole_in_the_last_result(
        qtbot: object, registry: Registry, tmp_path: Path, size: tuple[int, int],
        whole: bool) -> None:
    # Issue 36 item 7: the last result grows to show a whole result (a surprise shot's
    # critical, its defence rolled for the critical only: seven lines), taking its room
    # from the tabs below, not from the turn order and its actions. At 1280×800 the turn
    # order and the tabs' six log lines leave it its first lines; the rest scrolls.
    from tacmap.engine.model.commands import SetHouseRule

    path = tmp_path / "opposed_demo.tacmap"
    shutil.copy(RESOURCES / "opposed_demo.tacmap", path)
    win = shown(qtbot, MainWindow(registry, Session.open(registry, path),
                                  ask=lambda q: True, tell=lambda text: None), size)
    order_before = win.order_dock.height()
    win.run(SetHouseRule("surprise_criticals", "allowed"))
    win.run(StartCombat())
    win.run(Attack("lio", "vosk"))
    strip = win.log_panel.result
    qtbot.waitUntil(lambda: "Last result: Lio" in strip.label.text(),  # type: ignore[attr-defined]
                    timeout=20000)
    QApplication.processEvents()
    assert strip.text().count("\n") + 1 >= 5
    if whole:
        qtbot.waitUntil(lambda: strip.verticalScrollBar().maximum() == 0,  # type: ignore[attr-defined]
                        timeout=20000)
    else:  # usable: its first lines in view, the rest a scroll (or a hover) away
        assert strip.height() >= 3 * strip.fontMetrics().lineSpacing()
    assert win.order_dock.height() >= order_before - 2
