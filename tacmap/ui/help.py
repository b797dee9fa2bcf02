"""The Help menu: Getting Started, Keyboard Shortcuts and About.

Every page is built by a function that returns its HTML or its dialog, so a test
can read it without ``exec()``; ``add_help_menu(window)`` puts the three pages in
a window's menu bar. The pages are plain local HTML: no links are followed and
nothing is fetched (tacmap opens no network connection).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path

# Not (yet) re-exported by tacmap.ui.qt; move them there when that module grows.
import PySide6
from PySide6.QtCore import qVersion
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout

from tacmap import __version__
from tacmap.engine.rules.ruleset import ENV_VAR, Registry
from tacmap.ui import applog, settings
from tacmap.ui.qt import (
    QAction,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QKeySequence,
    QMainWindow,
    QMenu,
    QWidget,
    submenu,
)
from tacmap.ui.session import RECENT_MAX, home
from tacmap.ui.trust import trust_dialog

ICON_SIZES = (16, 32, 48, 64, 128, 256)

#: Object names of the three dialogs (one of each is open at a time).
GETTING_STARTED = "help-getting-started"
SHORTCUTS = "help-shortcuts"
ABOUT = "help-about"

#: What the map does with the mouse and keys outside the menus (tacmap/ui/map/view.py).
MAP_GESTURES: tuple[tuple[str, str], ...] = (
    ("Move a token", "Drag it"),
    ("Drop a waypoint while dragging", "Right-click, or W"),
    ("Cancel the drag", "Esc"),
    ("GM free move: no cost, no rules, logged as an override", "Hold Shift when you release"),
    ("Act on a token (attack …)", "Right-click it"),
    ("Select the tokens in a box", "Drag on the empty map (Shift: add to the selection)"),
    ("Add a token to the selection, or take it out", "Shift+click it"),
    ("Move the selected tokens together (GM free move)", "Drag one of them"),
    ("Finish a wall, obstacle or polygon (tool stays on)", "Enter, or double-click"),
    ("Put a map tool down (Tools bar, Build menu)", "Esc (drops what is half drawn), "
     "or right-click (keeps it)"),
    ("See a token's reach", "Hover over it"),
    ("Zoom around the cursor", "Mouse wheel"),
    ("Pan", "Middle-drag, or hold Space and drag"),
    ("Pan by a step", "Arrow keys"),
    ("Measure a distance (waypoints: right-click or W)", "M, then drag"),
    ("Ping a spot on both maps", "Hold the button still, or Alt+click (which many window "
     "managers keep for moving windows)"),
    ("Centre the player view on the mouse (and ping)", "Tap Space"),
    ("Open an encounter, set the map image or a portrait", "Drop the file on the window, "
     "the map or the token"),
    ("Autopilot (Combat ▸ Autopilot, a turn-order row's or a token's right-click): pause "
     "or resume", "Space (while a token on autopilot is in the fight; Space pans and "
     "pings again once none is)"),
    ("Autopilot paused: play one more action", "Right arrow"),
    ("Autopilot: take this turn over by hand", "Esc, or Cancel on its odds card"),
    ("Suggest: the autopilot's three best plans for the acting token", "S, or Suggest under "
     "the actions"),
)


# --- where things are ---------------------------------------------------------------------


def resource_path(name: str) -> Path | None:
    """A bundled resource (``icons/tacmap.svg``, ``LICENSE``): source tree, wheel or frozen app."""
    here = Path(__file__).resolve().parent.parent  # tacmap/
    roots = [here.parent / "resources", here / "_resources"]
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        roots.append(Path(frozen) / "resources")
    for root in roots:
        candidate = root / name
        if candidate.is_file():
            return candidate
    return None


def app_icon() -> QIcon:
    """The tacmap icon in every size shipped (null when the icons are missing)."""
    icon = QIcon()
    for size in ICON_SIZES:
        path = resource_path(f"icons/tacmap-{size}.png")
        if path is not None:
            icon.addFile(str(path))
    return icon


# --- the pages ----------------------------------------------------------------------------


def _keys(standard: QKeySequence.StandardKey) -> str:
    """The keys a menu action made from ``standard`` answers to here (``Ctrl+Z`` on Linux)."""
    return QKeySequence(standard).toString(QKeySequence.SequenceFormat.NativeText)


def _path(p: Path) -> str:
    return f"<code>{escape(str(p))}</code>"


def getting_started_html() -> str:
    """The Getting Started page: the gestures, the rules' feedback, and where files live."""
    data = home()
    extra = os.environ.get(ENV_VAR, "")
    user_rulesets = (f"now: {_path(Path(extra))}" if extra
                     else "not set now")
    undo, redo = _keys(QKeySequence.StandardKey.Undo), _keys(QKeySequence.StandardKey.Redo)
    return f"""\
<h2>Getting started with tacmap</h2>
<p>tacmap opens on a demo encounter. Every action goes through the encounter's ruleset:
the map tells you what a move costs and what it provokes before you let go, and the
log lists every roll.</p>

<h3>Moving</h3>
<ul>
<li><b>Drag a token</b> to move it. While you drag, the path is drawn with its
<b>cost in metres</b> under the encounter's diagonal rule and the budget left this turn
(<i>7 m of 10 m</i>), coloured by how far it goes: within one action, within the turn,
beyond. Under the cost, the label says what the move spends of the turn and what is
left (<i>second move: no standard action after this</i>).</li>
<li>A <b>warning</b> marks every enemy whose reach the path leaves, at the step where it
leaves it, also when the path only passes by: that move may provoke a reaction.</li>
<li>The path goes <b>round enemies</b>, never through their squares; allies and the
fallen may be passed.</li>
<li><b>Right-click or press W</b> while dragging to drop a <b>waypoint</b>; the path then
goes through it. <b>Esc</b> cancels the drag.</li>
<li>Release to move. A move the rules refuse snaps back, with the reason in the status
bar.</li>
<li><b>Shift-drag</b> (hold Shift when you release) is the <b>GM's free move</b>: no cost
and no rules, but it is logged as an override and can be undone.</li>
</ul>

<h3>Attacking and acting</h3>
<p>Select the combatant whose turn it is, then click an enemy, or right-click a token,
and pick one of the actions the ruleset offers. Before you confirm, the odds card shows
the exact chance to succeed and the damage to expect; the dice and the result land in
the log. <b>E</b> (or the <i>End turn (E)</i> button above the turn order) ends the
turn.</p>

<h3>Undo and redo</h3>
<p><b>{escape(undo)}</b> undoes the last action, whatever it was (GM overrides too);
<b>{escape(redo)}</b> redoes it. Redo replays the dice that were rolled: it never
re-rolls.</p>

<h3>Player view</h3>
<p><b>View ▸ Player View</b> (<b>F11</b>) opens a second window to share with the players:
the map and the turn order, never GM-only data such as hidden tokens or the enemies' hit
points. Move it to the other screen or share that window alone; there <b>F11</b> toggles
full screen. Both maps fit the encounter to their window, and again whenever the window
is resized, until you zoom or pan; <b>Ctrl+0</b> fits it again.</p>

<h3>Where tacmap keeps things</h3>
<ul>
<li><b>Encounters</b> are <code>*.tacmap</code> files wherever you save them (File ▸
Save). Saving is atomic and keeps the previous file as <code>FILE.bak</code>; map images
live in a folder next to the file.</li>
<li><b>Autosaves</b>: after every action, in {_path(data / "autosave")}. If tacmap closed
without saving, it offers to restore the autosave when you open that encounter again.</li>
<li><b>Settings</b>: the recent files (File ▸ Open Recent, the last {RECENT_MAX}), where
the windows were and your answers about rulesets, in {_path(settings.path())}.</li>
<li><b>Log</b>: what tacmap did and any error or crash, in {_path(applog.folder())}
(<code>tacmap.log</code> and <code>crash.log</code>, each kept to a few megabytes; a crash
is headed with its date, tacmap's version and the process). Attach both to a bug report
wherever you got tacmap: its project page, or whoever gave it to you.</li>
<li><b>Your own rulesets</b>: start tacmap with <code>--rulesets-dir DIR</code>, or set
<code>{ENV_VAR}</code> to folders separated by <code>{escape(os.pathsep)}</code>
({user_rulesets}). A ruleset folder is code, like a plugin: load only folders you
trust. The window asks once per folder and content (again when its files change);
<code>--trust-rulesets</code> runs them without asking, for scripts.</li>
<li>The environment variable <code>TACMAP_HOME</code> moves the autosave folder, the
settings and the log elsewhere.</li>
</ul>
<p>tacmap never uses the network.</p>
"""


def _menu_rows(menu: QMenu, path: str) -> list[tuple[str, str]]:
    rows = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        text = text.rstrip("…").rstrip(".")
        sub = submenu(action, menu)
        if isinstance(sub, QMenu):
            rows += _menu_rows(sub, f"{path} ▸ {text}")
            continue
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        # A key named as the action itself ("Redo" for Redo) is a dedicated key few
        # keyboards have: "Ctrl+Shift+Z or Redo or Ctrl+Y" read as if Redo were a key chord.
        keys = [k for k in keys if k and k.lower() != text.lower()]
        if keys:
            rows.append((f"{path} ▸ {text}", " or ".join(keys)))
    return rows


def shortcut_rows(window: QMainWindow | None) -> list[tuple[str, str]]:
    """(what, keys) for every menu action of ``window`` that has a shortcut, then the map's."""
    rows: list[tuple[str, str]] = []
    if window is not None:
        for action in window.menuBar().actions():
            menu = submenu(action, window.menuBar())
            if isinstance(menu, QMenu):
                title = action.text().replace("&", "")
                rows += _menu_rows(menu, title)
    return rows + [(f"Map ▸ {what}", keys) for what, keys in MAP_GESTURES]


def shortcuts_html(rows: Iterable[tuple[str, str]]) -> str:
    """The Keyboard Shortcuts page: one table row per (what, keys)."""
    body = "\n".join(f"<tr><td>{escape(what)}</td><td><b>{escape(keys)}</b></td></tr>"
                     for what, keys in rows)
    return (f"<h2>Keyboard shortcuts</h2>\n"
            f'<table cellspacing="0" cellpadding="4" border="1">\n'
            f"<tr><th align=\"left\">What</th><th align=\"left\">Keys</th></tr>\n{body}\n"
            f"</table>\n")


def versions() -> dict[str, str]:
    """The versions About shows: tacmap, Qt (running), PySide6, Python."""
    return {
        "tacmap": __version__,
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "Python": f"{platform.python_version()} ({platform.python_implementation()})",
    }


def about_html(registry: Registry) -> str:
    """The About page: versions of everything, the rulesets, the licence, the data folder."""
    rows = "\n".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>"
                     for k, v in versions().items())
    manifests = [registry.manifests[i] for i in registry.ids()]
    builtin = "\n".join(f"<tr><td><code>{escape(m.id)}</code></td><td>{escape(m.name)}</td>"
                        f"<td>{escape(m.version)}</td></tr>" for m in manifests if m.builtin)
    added = [m for m in manifests if not m.builtin]
    user = ""
    if added:
        user = ("<h3>Rulesets you added</h3>\n<table cellpadding=\"3\">\n" + "\n".join(
            f"<tr><td><code>{escape(m.id)}</code></td><td>{escape(m.name)}</td>"
            f"<td>{escape(m.version)}</td><td>{_path(m.folder)}</td></tr>" for m in added)
            + "\n</table>\n")
    app = QApplication.instance()
    qpa = QApplication.platformName() if isinstance(app, QApplication) else ""
    running = f"{platform.system()} {platform.machine()}" + (f", Qt platform {qpa}" if qpa
                                                              else "")
    frozen = " (frozen app)" if getattr(sys, "frozen", False) else ""
    return f"""\
<h2>tacmap {escape(__version__)}</h2>
<p>An offline tactical battle map with a rule engine. MIT licence.<br>
tacmap opens no network connection.</p>
<table cellpadding="3">
{rows}
<tr><td>Running on</td><td>{escape(running)}{frozen}</td></tr>
</table>
<h3>Built-in rulesets</h3>
<table cellpadding="3">
{builtin}
</table>
{user}<p>Autosaves and the recent list: {_path(home())}</p>
"""


# --- dialogs and the menu -----------------------------------------------------------------


def page_dialog(parent: QWidget | None, title: str, html: str, name: str,
                size: tuple[int, int] = (640, 560)) -> QDialog:
    """A dialog showing ``html`` with a Close button (built, not shown)."""
    dialog = QDialog(parent)
    dialog.setObjectName(name)
    dialog.setWindowTitle(title)
    layout = QVBoxLayout(dialog)
    browser = QTextBrowser(dialog)
    browser.setObjectName(f"{name}-text")
    browser.setOpenLinks(False)  # nothing to follow, and never anything online
    browser.setHtml(html)
    layout.addWidget(browser)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(*size)
    return dialog


def getting_started_dialog(parent: QWidget | None = None) -> QDialog:
    """Help ▸ Getting Started."""
    return page_dialog(parent, "Getting Started — tacmap", getting_started_html(),
                       GETTING_STARTED, (680, 640))


def shortcuts_dialog(window: QMainWindow | None = None) -> QDialog:
    """Help ▸ Keyboard Shortcuts, read from ``window``'s menus."""
    return page_dialog(window, "Keyboard Shortcuts — tacmap",
                       shortcuts_html(shortcut_rows(window)), SHORTCUTS, (560, 620))


def about_dialog(parent: QWidget | None, registry: Registry) -> QDialog:
    """Help ▸ About tacmap."""
    dialog = page_dialog(parent, "About tacmap", about_html(registry), ABOUT, (520, 460))
    icon = app_icon()
    if not icon.isNull():
        dialog.setWindowIcon(icon)
    return dialog


def _show(window: QMainWindow, name: str, build: Callable[[], QDialog]) -> QDialog:
    """Raise the open dialog called ``name``, or build and show a new one (modeless)."""
    dialog = window.findChild(QDialog, name)
    if not isinstance(dialog, QDialog) or not dialog.isVisible():
        if isinstance(dialog, QDialog):
            dialog.deleteLater()
            dialog.setObjectName("")
        dialog = build()
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def _registry_of(window: QMainWindow) -> Registry:
    registry = getattr(window, "registry", None)
    return registry if isinstance(registry, Registry) else Registry()


def add_help_menu(window: QMainWindow) -> QMenu:
    """Add Help ▸ Getting Started (F1), Keyboard Shortcuts, About tacmap to ``window``."""
    menu = window.menuBar().addMenu("&Help")
    menu.setObjectName("help-menu")

    def action(text: str, name: str, slot: Callable[[], object],
               keys: QKeySequence.StandardKey | None = None) -> QAction:
        act = QAction(text, window)
        act.setObjectName(name)
        if keys is not None:
            act.setShortcut(QKeySequence(keys))
        act.triggered.connect(lambda checked=False: slot())
        menu.addAction(act)
        return act

    action("&Getting Started", f"{GETTING_STARTED}-action",
           lambda: _show(window, GETTING_STARTED, lambda: getting_started_dialog(window)),
           QKeySequence.StandardKey.HelpContents)
    action("&Keyboard Shortcuts", f"{SHORTCUTS}-action",
           lambda: _show(window, SHORTCUTS, lambda: shortcuts_dialog(window)))
    action("&Rulesets You Added…", "trust-dialog-action",
           lambda: _show(window, "trust-dialog", lambda: trust_dialog(window)))
    menu.addSeparator()
    about = action("&About tacmap", f"{ABOUT}-action",
                   lambda: _show(window, ABOUT, lambda: about_dialog(window,
                                                                     _registry_of(window))))
    about.setMenuRole(QAction.MenuRole.AboutRole)
    return menu
