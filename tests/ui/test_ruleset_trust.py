"""Issue 17 item 7: the window asks once per ruleset folder and content hash, and remembers."""

from __future__ import annotations

import shutil
from pathlib import Path

from tacmap.engine.ruleset import Registry
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
