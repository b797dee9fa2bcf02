"""File ▸ Import Map, Import Walls and Export Fight Report: map files in, fights out.

Import Map makes a new, untitled encounter from a Universal VTT file (its image
in the encounter's image folder, the grid aligned, walls and doors laid, fog on);
Import Walls puts a file's walls and doors on the open encounter's map as one
undoable ``SetWalls``; Export Fight Report writes the players' HTML report.
The reading and the report are the engine's (``tacmap.engine.files.uvtt``,
``tacmap.engine.files.report``); this is the dialogs around them.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from tacmap.engine.files import storage, uvtt
from tacmap.engine.model.commands import SetWalls
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.words import plural
from tacmap.engine.rules.dice import fresh_seed
from tacmap.ui.ask import ok_cancel
from tacmap.ui.files import Files, file_name
from tacmap.ui.host import Host
from tacmap.ui.qt import QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout, QLineEdit
from tacmap.ui.report import fits, report_html
from tacmap.ui.session import Session, work_folder

REPORT_FILTER = "Web page (*.html);;All files (*)"


def import_map(host: Host, files: Files, source: Path | None = None,
               ruleset_id: str | None = None) -> bool:
    """File ▸ Import Map: a new encounter from a Universal VTT file (asks which file and
    which ruleset unless given); False when nothing was imported."""
    if source is None:
        name, _ = QFileDialog.getOpenFileName(host.window(), "Import map",
                                              str(work_folder(host.session)), uvtt.FILTER)
        if not name:
            return False
        source = Path(name)
    try:
        imported = uvtt.read_file(source)
    except InputError as err:
        host.error(str(err))
        return False
    if ruleset_id is None:
        ruleset_id = _pick_ruleset(host, source.stem)
        if ruleset_id is None:
            return False
    if not files.may_leave():
        return False
    registry = host.registry
    image = uvtt.image_name(source.stem, imported) if imported.image is not None else None
    try:
        state = uvtt.encounter(imported, registry.get(ruleset_id), source.stem, fresh_seed(),
                               image)
    except InputError as err:
        host.error(f"{source}: {err}")
        return False
    session = Session(registry, state)
    if image is not None and imported.image is not None:
        try:
            session.image_folder.mkdir(parents=True, exist_ok=True)
            storage.write_atomic(session.image_folder / image, imported.image)
        except OSError as err:
            host.error(f"Could not keep the map image of {source.name}: {err.strerror or err}")
            return False
    uvtt.prepare(session.referee.ruleset, state)
    host.session.discard_autosave()
    host.bind(session)
    notes = "; ".join(imported.notes)
    host.statusBar().showMessage(
        f"Imported {source.name}: {imported.summary()}{'. ' + notes if notes else ''}", 15000)
    return True


def _pick_ruleset(host: Host, stem: str) -> str | None:
    """The ruleset of the imported encounter: the open one's, unless the GM picks another."""
    registry = host.registry
    dialog = QDialog(host.window())
    dialog.setWindowTitle("Import map")
    form = QFormLayout(dialog)
    rulesets = QComboBox()
    for rid in registry.ids():
        rulesets.addItem(f"{registry.manifests[rid].name} ({rid})", rid)
    current = rulesets.findData(host.session.referee.state.ruleset)
    if current >= 0:
        rulesets.setCurrentIndex(current)
    form.addRow("Map", QLineEdit(stem, readOnly=True))
    form.addRow("Ruleset", rulesets)
    form.addRow(ok_cancel(dialog))
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return str(rulesets.currentData())


def import_walls(host: Host, source: Path | None = None) -> bool:
    """File ▸ Import Walls: replace the map's walls and doors with a file's (one undo)."""
    if source is None:
        name, _ = QFileDialog.getOpenFileName(host.window(), "Import walls",
                                              str(work_folder(host.session)), uvtt.FILTER)
        if not name:
            return False
        source = Path(name)
    m = host.session.referee.state.map
    try:
        walls, notes = uvtt.walls_for(uvtt.read_file(source), m.width, m.height)
    except InputError as err:
        host.error(str(err))
        return False
    if not host.run(SetWalls(walls)):
        return False
    doors = sum(1 for w in walls if w.kind == "door")
    host.statusBar().showMessage(
        f"Walls from {source.name}: {plural(len(walls) - doors, 'wall')}, "
        f"{plural(doors, 'door')} (Edit ▸ Undo "
        f"puts the old ones back){'. ' + '; '.join(notes) if notes else ''}", 15000)
    return True


def export_report(host: Host, out: Path | None = None, gm: bool | None = None) -> bool:
    """File ▸ Export Fight Report: the HTML report of the open encounter."""
    session = host.session
    if out is None or gm is None:
        picked = _ask_report(host)
        if picked is None:
            return False
        out, gm = picked
    ruleset = session.referee.ruleset
    try:
        fits(session.referee.state, session.referee.log)
        text = report_html(session.referee.state, session.referee.log, ruleset,
                           session.image_folder, f"{datetime.date.today():%d %B %Y}".lstrip("0"),
                           gm)
        storage.write_atomic(out, text)
    except InputError as err:
        host.error(f"Could not write the fight report: {err}")
        return False
    except OSError as err:
        host.error(f"Could not write {out}: {err.strerror or err}")
        return False
    host.statusBar().showMessage(f"Fight report written to {out}", 8000)
    return True


def _ask_report(host: Host) -> tuple[Path, bool] | None:
    name, _ = QFileDialog.getSaveFileName(
        host.window(), "Export fight report",
        str(work_folder(host.session) / (file_name(host.session.referee.state.name)
                                         .removesuffix(".tacmap") + ".html")),
        REPORT_FILTER)
    if not name:
        return None
    path = Path(name)
    if path.suffix.lower() not in (".html", ".htm"):
        path = path.with_suffix(".html")
    dialog = QDialog(host.window())
    dialog.setWindowTitle("Fight report")
    form = QFormLayout(dialog)
    everything = QCheckBox("GM report: GM-only rolls, hidden tokens and every side's hit points")
    form.addRow(everything)
    form.addRow(ok_cancel(dialog))
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return path, everything.isChecked()
