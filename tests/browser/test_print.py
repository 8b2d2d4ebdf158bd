"""Printing an army list gives a compact reference: Chromium's own PDF (A4), its page count, and the print
layout's state (what shows, what is kept together)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import Browsing

ARMY_LIST = "fracture/army-lists/sentinels.html"
MAX_PAGES = 5


def pdf_pages(pdf: bytes) -> int:
    """Pages in a PDF Chromium wrote: its page objects (`/Type /Page`, not the `/Pages` tree)."""
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


@pytest.mark.browser
def test_army_list_prints_on_few_a4_pages(site: Browsing, artifacts: Path) -> None:
    page, problems = site.new_page()
    page.goto(site.url(ARMY_LIST), wait_until="load")
    page.wait_for_selector("article .md-typeset__scrollwrap table")
    pdf = page.pdf(format="A4", print_background=False)
    (artifacts / "sentinels-print.pdf").write_bytes(pdf)
    pages = pdf_pages(pdf)
    assert 1 < pages <= MAX_PAGES, f"Sentinels prints on {pages} A4 pages (at most {MAX_PAGES})"
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_print_layout_keeps_things_together_and_lists_rules_used(site: Browsing, artifacts: Path) -> None:
    # A4's width less the print margins, in CSS pixels.
    page, problems = site.new_page({"width": 718, "height": 1000})
    page.goto(site.url(ARMY_LIST), wait_until="load")
    page.wait_for_selector("article .md-typeset__scrollwrap table")
    page.emulate_media(media="print")

    # Screen-only parts are gone; every table fits the printed column.
    for selector in (".rules-games", ".unit-jump", "header.md-header", ".md-sidebar--primary"):
        assert page.locator(selector).first.is_hidden(), f"{selector} is printed"
    widths = page.evaluate(
        """() => { const col = document.querySelector("article").getBoundingClientRect().width;
                   return [...document.querySelectorAll("article table")].map(t => t.getBoundingClientRect().width - col); }"""
    )
    assert widths and max(widths) <= 1, f"tables wider than the printed column by {max(widths)}px"

    # Headings stay with what follows them, and a profile or weapon table is never split across pages.
    styles = page.evaluate(
        """() => ({
            headings: [...document.querySelectorAll("article h2, article h3, article h4")].map(h => getComputedStyle(h).breakAfter),
            tables: [...document.querySelectorAll("article table")].map(t => getComputedStyle(t).breakInside),
        })"""
    )
    assert set(styles["headings"]) == {"avoid"}, styles["headings"]
    assert set(styles["tables"]) == {"avoid"}, styles["tables"]

    # A row's name (the header cell the script makes of it) is as compact as the cells beside it.
    paddings = page.evaluate(
        """() => [...document.querySelectorAll("article tbody tr")].filter(r => r.cells.length > 1 && r.cells[0].tagName === "TH")
            .map(r => [r.cells[0], r.cells[1]].map(c => { const s = getComputedStyle(c); return s.paddingTop + " " + s.paddingLeft; }))"""
    )
    assert paddings, "no row with a name header: the test proves nothing"
    loose = [p for p in paddings if p[0] != p[1]]
    assert not loose, f"{len(loose)} row names padded otherwise than their rows in print: {loose[:3]}"

    # The rule mentions are followed by the rules used, each with its text.
    used = page.locator("article .rules-used")
    expect(used).to_be_visible()
    mentioned = set(page.eval_on_selector_all("article table a.rule-link", "(links) => links.map(a => a.href)"))
    listed = set(page.eval_on_selector_all("article .rule-def a", "(links) => links.map(a => a.href)"))
    assert mentioned and mentioned <= listed, f"rules mentioned but not listed: {sorted(mentioned - listed)}"
    entry = page.locator("article .rule-def", has_text="Heavy Armour")
    expect(entry).to_be_visible()
    following = entry.evaluate("(h) => h.nextElementSibling.textContent")
    assert "Piercing value lowered by X" in following
    page.screenshot(path=str(artifacts / "sentinels-print-layout.png"), full_page=True)
    assert problems.all() == [], "\n".join(problems.all())


def test_rules_used_stay_out_of_search(site_dir: Path) -> None:
    """The list of rules used repeats each rule's text: search must still lead to the rule's definition."""
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = [doc["location"] for doc in index["docs"]]
    assert any(loc.endswith("#heavy-armour") for loc in locations), "the index has no rule definitions; the test proves nothing"
    copies = [loc for loc in locations if "#used-" in loc or loc.endswith("#rules-used")]
    assert not copies, f"search entries for the rules-used lists: {copies[:5]}"
