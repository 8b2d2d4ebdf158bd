"""Accessibility, checked by axe-core (the npm package, injected into the page) in Chromium: no serious or
critical violation on the pages a player uses, in the light and the dark scheme, on both games."""

from __future__ import annotations

import contextlib
import itertools
import json
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import PATIENCE_MS, Browsing, wait_for_search_answers

CADENCE_PAGES = [
    "index.html",
    "fracture/army-lists/sentinels.html",
    "core-rules/special-rules-appendix.html",
    "fracture/errata.html",
    "index.html#search",  # with the search dialog open and showing results
    "fracture/builder.html#roster",  # with a unit in the roster, its weapon choices open
    "fracture/army-lists/marauders.html#popover",  # with a rule's pop-up open
    "fracture/index.html",
    "released-games.html",
    "rules-index.html",
    "recent-changes.html",
    "licences.html",
    "about/about-the-game.html",
    "404.html",
]
WASTELAND_PAGES = [  # the same theme and scripts, in its own colours
    "core-rules/profiles-in-the-rules.html",
    "core-rules/example-battle-group.html#popover",
    "core-rules/builder.html",
]
SEARCH_WORD = "armour"


def violations(page: Page, axe_script: str) -> list[dict[str, object]]:
    """axe-core's violations; `shadow` counts the nodes inside a shadow root (a node there is targeted by a
    list of selectors, host first). axe-core runs through the browser's developer protocol, as a tool does: an
    inline script tag would be refused by the page's Content-Security-Policy, and bypassing the policy would
    check a page that readers never get."""
    page.evaluate(f"() => {{ {axe_script}\n }}")
    found: list[dict[str, object]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations.map(v => ({
            id: v.id, impact: v.impact, count: v.nodes.length,
            shadow: v.nodes.filter(n => Array.isArray(n.target[0])).length,
            where: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary.split("\\n")[1]),
        }))"""
    )
    return found


def open_search(page: Page, word: str) -> None:
    """Type `word` into the site's search and wait for results: Material's search box, or Zensical's dialog
    (its own search button, results in an open shadow root, which axe-core reads too)."""
    material = page.locator("input.md-search__input")
    if material.count():
        material.click()
        page.keyboard.type(word, delay=20)
        wait_for_search_answers(page)
        expect(page.locator("ol.md-search-result__list > li").first).to_be_visible()
    else:
        page.locator("button.md-search__button").click()
        page.keyboard.type(word, delay=20)
        wait_for_search_answers(page)
        expect(page.locator("ol[role=listbox] a[role=option]").first).to_be_visible()


def fill_roster(page: Page) -> None:
    """The army builder as a player has it: a unit of Marauder Grunts in the roster, its weapon choices open
    (a group heading for each choice and swap)."""
    page.wait_for_selector("[data-rules-builder][data-ready=true]")
    page.select_option("#rb-list", label="Marauders")
    page.select_option("#rb-unit", label="Grunts")
    page.click("#rb-add")
    page.locator("details:has(#rb-0-0-w-0) summary").click()
    expect(page.locator(".rb-legend").first).to_be_visible()


def check_pages(browsing: Browsing, pages: list[str], scheme: Literal["light", "dark"], axe_script: str, word: str) -> dict[str, list]:
    page, problems = browsing.new_page(scheme=scheme)
    report: dict[str, list] = {}
    for path in pages:
        page.goto(browsing.url(path.partition("#")[0]), wait_until="load")
        page.wait_for_function(
            "() => !document.querySelector('article table') || document.querySelector('article .md-typeset__scrollwrap')"
        )
        if path.endswith("#search"):
            open_search(page, word)
        if path.endswith("#roster"):
            fill_roster(page)
        if path.endswith("#popover"):
            page.locator("article a.rule-link").first.click()
            expect(page.locator("#rule-popover")).to_be_visible()
            page.mouse.move(1, 1)  # the pop-up as it stays, not its link hovered (Material's hover colours)
        report[path] = violations(page, axe_script)
    assert problems.all() == [], "\n".join(problems.all())
    return report


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violations(
    site: Browsing, wasteland: Browsing, axe_script: str, artifacts: Path, scheme: Literal["light", "dark"]
) -> None:
    report = {
        **{f"cadence/{p}": v for p, v in check_pages(site, CADENCE_PAGES, scheme, axe_script, SEARCH_WORD).items()},
        **{f"wasteland/{p}": v for p, v in check_pages(wasteland, WASTELAND_PAGES, scheme, axe_script, "tough").items()},
    }
    (artifacts / f"axe-{scheme}.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    serious = {path: [v for v in found if v["impact"] in ("serious", "critical")] for path, found in report.items()}
    assert not any(serious.values()), json.dumps({p: v for p, v in serious.items() if v}, indent=2)


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violations_on_the_zensical_site(
    zensical: Browsing, axe_script: str, artifacts: Path, scheme: Literal["light", "dark"]
) -> None:
    """The same pages, search open included, on the site Zensical builds (its own theme and search dialog).

    Zensical's search dialog, in a shadow root no stylesheet of the site reaches, has one serious finding of
    its own (README, Zensical's limits): its list of results scrolls without anything in it taking the focus
    (the input keeps it, as a combobox's does). Its marked words, in the accent colour at 4.2:1, read since
    the site gives the dialog's host an accent of its own (rules.css). Everything else must be free of
    serious violations."""
    report = check_pages(zensical, CADENCE_PAGES, scheme, axe_script, SEARCH_WORD)
    (artifacts / f"axe-zensical-{scheme}.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    serious = {
        path: [v for v in found if v["impact"] in ("serious", "critical") and v["count"] > v["shadow"]] for path, found in report.items()
    }
    assert not any(serious.values()), json.dumps({p: v for p, v in serious.items() if v}, indent=2)
    in_dialog = {v["id"] for found in report.values() for v in found if v["impact"] in ("serious", "critical") and v["shadow"]}
    assert in_dialog <= {"scrollable-region-focusable"}, in_dialog


#: Where the focus and the active option of Zensical's search are, and whether that option lies inside the
#: part of the results list the reader sees (the list scrolls; the focus stays in the input).
ACTIVE_OPTION = """() => {
    const root = document.querySelector('.rules-search-dialog').shadowRoot;
    const options = [...root.querySelectorAll('[role=option]')];
    const active = options.findIndex(o => o.getAttribute('aria-selected') === 'true');
    let scroller = options[0].parentElement;
    while (scroller && scroller.scrollHeight <= scroller.clientHeight) scroller = scroller.parentElement;
    const box = scroller.getBoundingClientRect(), at = active < 0 ? null : options[active].getBoundingClientRect();
    return {active, options: options.length, inView: at !== null && at.top >= box.top - 1 && at.bottom <= box.bottom + 1,
            scrolled: scroller.scrollTop, focusInInput: root.activeElement !== null && root.activeElement.tagName === 'INPUT'};
}"""


@pytest.mark.browser
def test_every_zensical_search_result_is_reached_from_the_keyboard(zensical: Browsing) -> None:
    """What axe-core's one finding in Zensical's dialog (scrollable-region-focusable) asks for, done the
    combobox's way: each Down arrow makes the next result active and scrolls the list to show it, while the
    focus stays in the input. A press past the last result loaded loads ten more (the active one stays while
    they come: how many presses that takes depends on the machine), and the next press goes on."""
    page, problems = zensical.new_page()
    page.goto(zensical.url("index.html"), wait_until="load")
    open_search(page, "Upgrades")
    seen = [page.evaluate(ACTIVE_OPTION)["active"]]  # Zensical makes the first result active as results come
    while seen[-1] < 24 and len(seen) < 80:  # past two loads of ten more
        page.keyboard.press("ArrowDown")
        with contextlib.suppress(PlaywrightTimeout):  # the list may scroll smoothly: give it a moment
            page.wait_for_function(f"() => ({ACTIVE_OPTION})().inView", timeout=PATIENCE_MS)
        state = page.evaluate(ACTIVE_OPTION)
        assert state["inView"] and state["focusInInput"], state
        seen.append(state["active"])
    # Never back, never a result skipped: every one of the first 25 was active and in view in turn.
    assert all(b - a in (0, 1) for a, b in itertools.pairwise(seen)) and seen[-1] == 24, seen
    assert state["scrolled"] > 0 and state["options"] > 25, state
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_links_in_row_names_are_underlined_like_those_in_cells(site: Browsing) -> None:
    """The rules index's names are links in row headers (the script makes a row's first cell its header): they
    are underlined like every link in a cell, so they are told from text by more than colour, script or none."""
    page, problems = site.new_page()
    page.goto(site.url("rules-index.html"), wait_until="load")
    page.wait_for_function("() => document.querySelector('article tbody th[scope=row]')")
    lines = page.evaluate(
        """() => ({
            header: [...document.querySelectorAll("article tbody th a")].map(a => getComputedStyle(a).textDecorationLine),
            cell: [...document.querySelectorAll("article tbody td a")].map(a => getComputedStyle(a).textDecorationLine),
        })"""
    )
    assert len(lines["header"]) >= 20 and lines["cell"], f"too few links to prove anything: {lines}"
    assert set(lines["cell"]) == {"underline"}, set(lines["cell"])
    assert set(lines["header"]) == {"underline"}, f"links in row headers: {sorted(set(lines['header']))}"
    assert problems.all() == [], "\n".join(problems.all())
