"""Issue 17 item 7: the window asks once per ruleset folder and content hash, and remembers."""

from __future__ import annotations

import shutil
from pathlib import Path

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.settings import FILE
from tacmap.ui.trust import window_trust
from tests.conftest import TEST_RULESETS


def test_the_window_asks_once_per_folder_and_content(tmp_path: Path, tacmap_home: Path) -> None:
    folder = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    questions: list[str] = []

    def yes(question: str) -> bool:
        questions.append(question)
        return True

    manifest = Registry([folder.parent], warn=lambda m: None).manifests["skirmish"]
    assert window_trust(yes)(manifest)
    assert len(questions) == 1 and str(folder.resolve()) in questions[0]
    assert (tacmap_home / FILE).is_file()
    # Remembered across runs: a new window does not ask again.
    assert window_trust(yes)(manifest) and len(questions) == 1
    # A changed folder is asked about again; a "no" is remembered too.
    (folder / "rules.py").write_text((folder / "rules.py").read_text() + "\n# changed\n")
    assert not window_trust(lambda q: False)(manifest)
    assert not window_trust(yes)(manifest) and len(questions) == 1


def test_a_no_can_be_forgotten_from_the_help_menu(qtbot: object, tmp_path: Path,
                                                  tacmap_home: Path) -> None:
    """Help ▸ Rulesets You Added lists the answer; Forget, and the window asks again."""
    from tacmap.engine.model.errors import InputError
    from tacmap.ui.qt import QListWidget, QPushButton
    from tacmap.ui.trust import answers, trust_dialog

    folder = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    registry = Registry([folder.parent], warn=lambda m: None)
    registry.trust = window_trust(lambda q: False)
    try:
        registry.get("skirmish")
        raise AssertionError("an untrusted folder was run")
    except InputError as err:
        assert "Help ▸ Rulesets You Added forgets that answer" in str(err)
    assert answers() == [(folder.resolve(), False)]
    dialog = trust_dialog(None)
    qtbot.addWidget(dialog)  # type: ignore[attr-defined]
    rows = dialog.findChild(QListWidget)
    assert rows is not None and rows.item(0).text() == f"✗ refused — {folder.resolve()}"
    rows.setCurrentRow(0)
    forget = dialog.findChild(QPushButton, "forget")
    assert forget is not None
    forget.click()
    assert answers() == []
    assert rows.item(0).text() == "No ruleset folder has been asked about."
    asked: list[str] = []
    assert window_trust(lambda q: asked.append(q) or True)(registry.manifests["skirmish"])
    assert len(asked) == 1  # asked again, and this time run
