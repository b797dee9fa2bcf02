"""The fight report of each demo after its shipped script: valid, self-contained, and drawn
by a real browser (headless Chromium from the distribution, when it is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.qt import QImage
from tacmap.ui.report import report_html
from tests.engine.test_narrate_demos import DEMOS, RESOURCES, played
from tests.engine.test_report import checked

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def report_of(registry: Registry, demo: str, script: str, seed: int, gm: bool = False) -> str:
    """The report of ``demo`` after ``script``, as File ▸ Export Fight Report writes it."""
    ref = played(registry, demo, script, seed)
    return report_html(ref.state, ref.log, ref.ruleset, RESOURCES / "images", "1 May 2026", gm)


@pytest.mark.parametrize(("demo", "script", "seed"), DEMOS, ids=[d[0] for d in DEMOS])
def test_each_demos_report_is_valid_and_self_contained(registry: Registry, demo: str,
                                                       script: str, seed: int) -> None:
    ref = played(registry, demo, script, seed)
    page = checked(report_of(registry, demo, script, seed))
    text = " ".join(page.text)
    assert ref.state.name in text and "Round 2" in text
    assert len(page.images) == 2  # the map at the start and at the end
    for token in ref.state.tokens.values():
        assert (token.name in text) == (not token.hidden)


def shot(html_file: Path, png: Path, profile: Path) -> subprocess.CompletedProcess[str]:
    """Headless Chromium's screenshot of a page, offline."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-background-networking", f"--user-data-dir={profile}",
         "--window-size=1200,2400", f"--screenshot={png}", html_file.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


def test_a_browser_draws_the_report(registry: Registry, tmp_path: Path) -> None:
    if CHROMIUM is None:  # skipped where no browser is installed, except under CI
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: .ci/run installs it")
        pytest.skip("no Chromium installed (apt-get install chromium)")
    page = tmp_path / "report.html"
    page.write_text(report_of(registry, *DEMOS[0]))
    png = Path(os.environ.get("TACMAP_SHOTS", tmp_path)) / "report-demo.png"
    result = shot(page, png, tmp_path / "profile")
    assert result.returncode == 0, result.stderr[-2000:]
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1200, 2400)
    # The maps are drawn where the page puts them: their parchment and the dark fog or
    # walls, not one background colour.
    colours = {image.pixel(x, y) for x in range(0, 1200, 7) for y in range(300, 800, 7)}
    assert len(colours) > 50
