"""SVG pictures in Chromium: the hostile files the check refuses really run when opened from a site, and the
drawing it lets through shows on its page and runs nothing when opened on its own."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..conftest import MINI, cadence_build, copy_project
from ..svg_cases import DRAWING, HOSTILE, RUNS_ON_OPEN
from .conftest import PATIENCE_MS, Browsing, serve


@pytest.mark.browser
def test_the_refused_svgs_run_script_when_opened_from_a_site(browser: Browser, tmp_path: Path) -> None:
    """Why the check exists: served as files, as an unguarded build publishes them, these run at once."""
    for name in RUNS_ON_OPEN:
        (tmp_path / f"{name}.svg").write_text(HOSTILE[name][0], encoding="utf-8")
    with serve(tmp_path) as url:
        context = browser.new_context()
        page = context.new_page()
        ran: list[str] = []

        def seen(dialog: Dialog) -> None:
            ran.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", seen)
        for name in RUNS_ON_OPEN:
            before = len(ran)
            with contextlib.suppress(PlaywrightTimeout), page.expect_event("dialog", timeout=PATIENCE_MS):  # its alert
                page.goto(f"{url}{name}.svg", wait_until="load")
            assert len(ran) > before, f"{name}.svg ran nothing"
        context.close()


@pytest.mark.browser
def test_a_drawing_shows_on_its_page_and_runs_nothing(browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content/core/blast.svg").write_text(DRAWING, encoding="utf-8")
    page_file = project / "content/core/rules.md"
    text = page_file.read_text(encoding="utf-8").replace("# Core Rules", "# Core Rules\n\n![Blast template](blast.svg)", 1)
    page_file.write_text(text, encoding="utf-8")
    built = cadence_build(project, tmp_path / "site", "mkdocs")
    assert built.returncode == 0, built.stderr
    with serve(tmp_path / "site") as url:
        browsing = Browsing(browser, url)
        page, problems = browsing.new_page()
        dialogs: list[str] = []

        def seen(dialog: Dialog) -> None:
            dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", seen)
        page.goto(browsing.url("core/rules.html"), wait_until="load")
        image = page.locator("article img[src='blast.svg']")
        size = image.evaluate("(img) => img.complete ? [img.naturalWidth, img.naturalHeight] : null")
        assert size == [240, 160], size  # drawn at the size the file gives
        image.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "svg-drawing-on-its-page.png"))
        page.goto(browsing.url("core/blast.svg"), wait_until="load")
        assert page.locator("svg circle#blast").count() == 1
        assert dialogs == [] and problems.all() == [], problems.all()
        browsing.close()
