"""The words scripts write into pages come from the system's labels too, in a real Chromium.

The every-field fixture is built with every label set to a marked value (as in tests/test_labels.py);
the army builder's controls, its printed appendix and a rule's pop-up must show the marked words, and
none of the labels' English defaults.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from generator.export import BUILDER_UI

from ..conftest import copy_project
from ..payloads import EVERY_FIELD
from ..test_labels import Words, build, english_left, mark_every_label, project_sources
from .conftest import Browsing, serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The every-field fixture built with every label marked, served; and the game's own words."""
    project = copy_project(EVERY_FIELD, tmp_path_factory.mktemp("marked") / "project")
    mark_every_label(project)
    sources = project_sources(project)  # the game's own words, the labels marked
    build(project)
    with serve(project / "site") as url:
        yield url, sources


def shown(page_html: str, path: str, sources: str) -> tuple[str, list[str]]:
    """A page as the browser has it now: its words in one string, and the English labels left on it."""
    words = Words(page_html)
    return "\n".join(words.strings), english_left({path: words}, sources)


def test_builder_controls_and_printout_speak_the_labels(browser: Browser, marked: tuple[str, str]) -> None:
    url, sources = marked
    browsing = Browsing(browser, url)
    try:
        page, problems = browsing.new_page()
        page.goto(f"{url}skirmish/builder.html", wait_until="load")
        page.wait_for_selector("[data-rules-builder][data-ready=true]")
        page.select_option("#rb-unit", label="Ranger Squad")
        page.click("#rb-add")
        page.click("#rb-0-more")  # a second group of models: its remove button too
        # the fixture prices every model: one model's cost is taken away in the page's data, as a source that
        # prints none would leave it, so the card says so in the marked words too
        page.evaluate(
            "() => { const b = window.cadenceBuilder; const army = b.army();"
            " army.units.find((u) => u.name === 'Ranger Squad').models[0].points = null; b.change(); }"
        )
        # only what the script wrote counts: the words it was handed in the page go
        page.evaluate("document.querySelector('[data-rules-builder]').removeAttribute('data-ui')")
        # the roster checker's messages are labels too: the problems listed speak the marked words
        problems_shown = page.locator("#rb-problems li").all_inner_texts()
        assert problems_shown and all("⟦roster_" in line for line in problems_shown), problems_shown
        text, english = shown(page.content(), "skirmish/builder.html", sources)
        # the wardens' list: a unit whose weapons a swap offers, headed by the swap's label
        page.select_option("#rb-list", label="Wardens")
        page.select_option("#rb-unit", label="Gate Wardens")
        page.click("#rb-add")
        page.evaluate("document.querySelector('[data-rules-builder]').removeAttribute('data-ui')")
        swap_text, swap_english = shown(page.content(), "skirmish/builder.html", sources)
        assert "⟦builder_swap⟧" in swap_text and "⟦builder_option⟧ Pistol 0\u20131" in swap_text
        # a module with a currency names its points field after it, not with the `limit` label
        expected = {
            f"⟦builder_{key}⟧" for key in BUILDER_UI if key not in ("limit", "copied", "failed")
        }  # the last two: said on an event | {"⟦rules_used⟧", "⟦weapon⟧", "⟦model⟧", "⟦count⟧"}
        assert {word for word in expected if word not in text + swap_text} == set()
        assert english == [] and swap_english == []
        assert problems.all() == []
    finally:
        browsing.close()


def test_rule_popup_speaks_the_labels(browser: Browser, marked: tuple[str, str]) -> None:
    url, sources = marked
    browsing = Browsing(browser, url)
    try:
        page, problems = browsing.new_page()
        page.goto(f"{url}skirmish/army-lists/rangers.html", wait_until="load")
        page.locator("article a.rule-link").first.click()
        popover = page.locator("#rule-popover")
        assert popover.locator(".rule-popover__more").inner_text().startswith("⟦definition⟧")
        assert popover.locator(".rule-popover__close").get_attribute("aria-label") == "⟦close⟧"
        _, english = shown(page.content(), "skirmish/army-lists/rangers.html", sources)
        assert english == []
        assert problems.all() == []
    finally:
        browsing.close()
