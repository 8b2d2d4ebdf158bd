"""At the table, on a phone (390x844) and a desktop (1280x800): profiles readable with their names in view,
rules looked up in place, tables that fit, contents by unit, one tap between games. Everything is measured in
Chromium (boxes, scroll positions, focus, the URL), on the Cadence site and on the Wasteland Tactics example."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import DESKTOP, PATIENCE_MS, PHONE, Browsing, wait_for_search_answers

ARMY_LIST = "fracture/army-lists/sentinels.html"
ERRATA = "fracture/errata.html"
WASTELAND_PROFILES = "core-rules/profiles-in-the-rules.html"
WASTELAND_WIDE = "core-rules/advanced-rules.html"  # its one wide table: a roll table

# Geometry of every body row of a table, scrolled so that each cell in turn is in view: the row's name cell and
# the cell, both inside the scrolling wrapper, side by side.
ROW_READING = """(table) => {
    const wrap = table.closest(".md-typeset__scrollwrap");
    const inside = (r, w) => r.left >= w.left - 1 && r.right <= w.right + 1;
    const out = [];
    for (const row of table.tBodies[0].rows) {
        const name = row.cells[0];
        for (const cell of [...row.cells].slice(1)) {
            wrap.scrollLeft = 0;
            const w = wrap.getBoundingClientRect();
            const before = cell.getBoundingClientRect();
            // Scroll just enough that the cell's right edge is at the wrapper's right edge.
            wrap.scrollLeft = Math.max(0, before.right - w.right + 2);
            const n = name.getBoundingClientRect(), c = cell.getBoundingClientRect();
            out.push({
                name: name.textContent.trim(), cell: cell.textContent.trim(), scrolled: wrap.scrollLeft,
                nameInside: inside(n, w), cellInside: inside(c, w), apart: c.left >= n.right - 1,
            });
        }
    }
    wrap.scrollLeft = 0;
    return out;
}"""


def open_page(page: Page, url: str) -> None:
    """Open a page and wait for the theme's script to have wrapped its tables (what the tests measure)."""
    page.goto(url, wait_until="load")
    page.wait_for_function("() => !document.querySelector('article table') || document.querySelector('article .md-typeset__scrollwrap')")


def table_under(page: Page, heading_id: str) -> Locator:
    """The first table after the heading with this id."""
    table = page.locator(f"article [id='{heading_id}'] ~ .md-typeset__scrollwrap table").first
    expect(table).to_be_attached()
    return table


def assert_rows_readable(table: Locator, label: str) -> int:
    """Every cell of every row can be scrolled into view with its row's name still in view beside it."""
    readings = table.evaluate(ROW_READING)
    assert readings, f"{label}: a table without body cells"
    bad = [r for r in readings if not (r["nameInside"] and r["cellInside"] and r["apart"])]
    assert not bad, f"{label}: cells read without their row's name in view: {bad[:3]}"
    return max(int(r["scrolled"]) for r in readings)


# --- 1. profiles readable at phone width ---------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, PHONE["width"]])
def test_profile_weapon_and_upgrade_rows_keep_their_name_in_view(site: Browsing, width: int) -> None:
    page, problems = site.new_page({"width": width, "height": PHONE["height"]}, phone=True)
    open_page(page, site.url(ARMY_LIST))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "the page itself scrolls sideways"
    scrolled = {
        "profile": assert_rows_readable(table_under(page, "vanguard-squad"), "Vanguard Squad profiles"),
        "weapons": assert_rows_readable(table_under(page, "specialist-weapons"), "Specialist Weapons"),
        "upgrades": assert_rows_readable(table_under(page, "upgrades_7"), "Upgrades"),
    }
    # The profile is wider than the phone, so the check above really scrolled it.
    assert scrolled["profile"] > 0, f"the profile table never scrolled at {width}px; the test proved nothing: {scrolled}"
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_every_wide_table_holds_its_name_column(site: Browsing, wasteland: Browsing) -> None:
    """On every army-list table, and the Wasteland table, that scrolls, the first column stays at the left edge."""
    for browsing, path in ((site, ARMY_LIST), (wasteland, WASTELAND_WIDE)):
        page, problems = browsing.new_page(phone=True)
        open_page(page, browsing.url(path))
        held = page.evaluate(
            """() => [...document.querySelectorAll("article table")].map(t => {
                const wrap = t.closest(".md-typeset__scrollwrap");
                if (wrap.scrollWidth <= wrap.clientWidth) return null;
                wrap.scrollLeft = wrap.scrollWidth;
                const w = wrap.getBoundingClientRect();
                const names = [...t.rows].map(r => r.cells[0].getBoundingClientRect());
                const ok = names.every(n => n.left >= w.left - 1 && n.right <= w.right + 1);
                wrap.scrollLeft = 0;
                return {ok, name: t.rows[1].cells[0].textContent.trim()};
            }).filter(Boolean)"""
        )
        assert held, f"{path}: no table scrolls at phone width; the test proved nothing"
        assert all(h["ok"] for h in held), f"{path}: name columns scrolled away: {[h for h in held if not h['ok']]}"
        assert problems.all() == [], "\n".join(problems.all())


# Each body row whose name the script made a row header: its name cell's top border and where its text starts,
# against the next cell's.
ROW_LINES = """() => [...document.querySelectorAll("article table tbody tr")].filter(r => r.cells.length > 1 && r.cells[0].tagName === "TH").map(r => {
    const [name, next] = [r.cells[0], r.cells[1]].map(c => getComputedStyle(c));
    const top = (cell) => { const range = document.createRange(); range.selectNodeContents(cell); return range.getClientRects()[0]?.top ?? null; };
    return {
        name: r.cells[0].textContent.trim(),
        border: [name.borderTopStyle + " " + name.borderTopWidth, next.borderTopStyle + " " + next.borderTopWidth],
        text: [top(r.cells[0]), top(r.cells[1])],
    };
})"""


@pytest.mark.browser
def test_a_row_name_sits_on_its_row_line(site: Browsing, wasteland: Browsing) -> None:
    """A row's name (the header cell the script makes of it) is ruled off like the cells beside it, and its
    text starts level with theirs: a game's quick facts and an army list's profiles read as rows on a phone."""
    for browsing, path in ((site, "fracture/index.html"), (site, ARMY_LIST), (wasteland, WASTELAND_PROFILES)):
        page, problems = browsing.new_page(phone=True)
        open_page(page, browsing.url(path))
        rows = page.evaluate(ROW_LINES)
        assert len(rows) >= 3, f"{path}: too few rows with a name header to prove anything: {rows}"
        unruled = [r for r in rows if r["border"][0] != r["border"][1]]
        assert not unruled, f"{path}: name cells ruled otherwise than their rows: {unruled[:3]}"
        askew = [r for r in rows if None in r["text"] or abs(r["text"][0] - r["text"][1]) > 0.5]
        assert not askew, f"{path}: names not level with their rows' text: {askew[:3]}"
        # Where the header row is hidden (a game's quick facts), the table's own edge is the first row's only line.
        doubled = page.evaluate(
            """() => [...document.querySelectorAll("article table")]
                .filter(t => t.tHead && getComputedStyle(t.tHead).display === "none")
                .flatMap(t => [...t.tBodies[0].rows[0].cells].map(c => getComputedStyle(c).borderTopWidth))"""
        )
        assert all(width == "0px" for width in doubled), f"{path}: a headerless table's first row drawn with a second top line: {doubled}"
        if path == "fracture/index.html":
            assert doubled, f"{path}: no headerless table, so the line under its top edge went unchecked"
        assert problems.all() == [], "\n".join(problems.all())


# --- 2. rule look-up in place ---------------------------------------------------------------------------


def heavy_armour_link(page: Page) -> Locator:
    row = page.locator("article table tbody tr").filter(has=page.locator("th, td", has_text=re.compile(r"^\s*Argo Transport\s*$")))
    link = row.get_by_role("link", name="Heavy Armour (1)", exact=True)
    expect(link).to_have_count(1)
    return link


# Each table's scrolling box: whether it fades at its right edge, and how much of its table is hidden there.
FADES = """(wraps) => wraps.map((w) => ({
    fades: w.classList.contains("rules-more-right"),
    mask: getComputedStyle(w).maskImage || getComputedStyle(w).webkitMaskImage || "none",
    hidden: w.scrollWidth - w.clientWidth - w.scrollLeft,
}))"""


@pytest.mark.browser
def test_a_wide_table_fades_at_the_edge_with_more_of_it(site: Browsing, artifacts: Path) -> None:
    """On a phone a table wider than the screen fades out at its right edge while any of it is hidden there,
    so a reader knows to swipe; scrolled to its end it fades no more. On a desktop, where tables fit, none fades."""
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ARMY_LIST))
    wraps = page.locator("article .md-typeset__scrollwrap")
    page.wait_for_function("() => document.querySelector('article .rules-more-right')")
    readings = wraps.evaluate_all(FADES)
    wide = [i for i, r in enumerate(readings) if r["hidden"] > 1]
    assert len(wide) >= 5, f"{ARMY_LIST}: fewer wide tables on a phone than its profiles: {readings}"
    assert [r for r in readings if (r["hidden"] > 1) != r["fades"] or (r["mask"] == "none") == r["fades"]] == []
    page.screenshot(path=str(artifacts / "phone-wide-table-fades.png"))
    first = wraps.nth(wide[0])
    first.evaluate("(w) => { w.scrollLeft = w.scrollWidth; }")
    first.evaluate("(w) => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    (end,) = first.evaluate_all(FADES)
    assert end["hidden"] <= 1 and not end["fades"] and end["mask"] == "none", end
    first.evaluate("(w) => { w.scrollLeft = 0; }")
    expect(first).to_have_class(re.compile(r"\brules-more-right\b"))
    assert problems.all() == [], "\n".join(problems.all())
    desktop, desktop_problems = site.new_page()
    open_page(desktop, site.url(ARMY_LIST))
    assert desktop.locator("article .rules-more-right").count() == 0
    assert desktop_problems.all() == []


@pytest.mark.browser
def test_tapping_a_rule_shows_it_in_place_with_its_value(site: Browsing, artifacts: Path) -> None:
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ARMY_LIST))
    link = heavy_armour_link(page)
    link.scroll_into_view_if_needed()
    before = page.url
    expect(link).to_have_attribute("aria-expanded", "false")

    link.tap()
    popover = page.get_by_role("dialog", name="Heavy Armour (1)")
    expect(popover).to_be_visible()
    assert page.url == before, "the tap left the page"
    # The parameter's placeholder from the rule's data is replaced by the value this model has.
    expect(popover).to_contain_text("Piercing value lowered by 1, but never below 0")
    expect(popover).not_to_contain_text("lowered by X")
    expect(popover.get_by_role("link", name=re.compile("Full definition"))).to_have_attribute(
        "href", re.compile(r"special-rules-appendix\.html#heavy-armour$")
    )
    expect(link).to_have_attribute("aria-expanded", "true")
    box, view = popover.bounding_box(), page.viewport_size
    assert box is not None and view is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"] and box["y"] >= 0 and box["y"] + box["height"] <= view["height"], box
    page.screenshot(path=str(artifacts / "phone-rule-popover.png"))

    # A tap outside closes it; the page is where it was.
    page.touchscreen.tap(PHONE["width"] // 2, 120)
    expect(popover).to_have_count(0)
    expect(link).to_have_attribute("aria-expanded", "false")
    assert page.url == before
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_rule_popover_by_keyboard_and_mouse_on_desktop(site: Browsing) -> None:
    page, problems = site.new_page()
    open_page(page, site.url(ARMY_LIST))
    link = heavy_armour_link(page)
    link.scroll_into_view_if_needed()
    before = page.url

    # Hover still previews with the theme's tooltip.
    link.hover()
    expect(page.locator(".md-tooltip2--active, .md-tooltip--active")).to_contain_text("lowered by X")

    # Enter opens the pop-up under the link and moves focus into it; Escape closes it and gives focus back.
    link.focus()
    page.keyboard.press("Enter")
    popover = page.get_by_role("dialog", name="Heavy Armour (1)")
    expect(popover).to_be_visible()
    assert page.url == before
    expect(popover).to_be_focused()
    expect(link).to_have_attribute("aria-controls", str(popover.get_attribute("id")))
    link_box, pop_box = link.bounding_box(), popover.bounding_box()
    assert link_box is not None and pop_box is not None
    assert pop_box["y"] >= link_box["y"] + link_box["height"] - 1, "the pop-up is not under its link"
    assert pop_box["x"] + pop_box["width"] <= DESKTOP["width"]
    page.keyboard.press("Tab")
    assert popover.evaluate("(p) => p.contains(document.activeElement)"), "Tab left the pop-up"
    page.keyboard.press("Escape")
    expect(popover).to_have_count(0)
    expect(link).to_be_focused()

    # A click opens it too; its close button closes it.
    link.click()
    expect(popover).to_be_visible()
    popover.get_by_role("button", name="Close").click()
    expect(popover).to_have_count(0)
    assert page.url == before
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_rule_mention_is_a_plain_link_without_javascript(site: Browsing) -> None:
    page, _ = site.new_page(phone=True, javascript=False)
    page.goto(site.url(ARMY_LIST), wait_until="load")
    heavy_armour_link(page).click()
    page.wait_for_url(re.compile(r"/core-rules/special-rules-appendix\.html#heavy-armour$"))


@pytest.mark.browser
def test_rule_popover_on_the_wasteland_example(wasteland: Browsing) -> None:
    """The other game writes values after a space ('Deadly 2'); the pop-up fills them in the same way."""
    page, problems = wasteland.new_page(phone=True)
    open_page(page, wasteland.url(WASTELAND_PROFILES))
    link = page.locator("article a.rule-link", has_text=re.compile(r"^Deadly 2$")).first
    link.scroll_into_view_if_needed()
    before = page.url
    link.tap()
    popover = page.get_by_role("dialog", name="Deadly 2")
    expect(popover).to_be_visible()
    expect(popover).to_contain_text("costs it 2 wounds")
    assert page.url == before
    page.keyboard.press("Escape")
    expect(popover).to_have_count(0)
    assert problems.all() == [], "\n".join(problems.all())


# --- 4. tables fit their column -------------------------------------------------------------------------

TABLE_FIT = """() => {
    const column = document.querySelector("article").getBoundingClientRect();
    return [...document.querySelectorAll("article table")].map(t => {
        const wrap = t.closest(".md-typeset__scrollwrap");
        return {head: t.rows[0].cells[0].textContent.trim(), width: t.getBoundingClientRect().width, column: column.width,
                scrolls: wrap.scrollWidth > wrap.clientWidth + 1};
    });
}"""


@pytest.mark.browser
def test_tables_fit_their_column_on_a_desktop(site: Browsing, wasteland: Browsing) -> None:
    page, problems = site.new_page()
    pages = [(site, p) for p in (ERRATA, ARMY_LIST, "core-rules/errata.html", "squadrons/fleets/fractured-skies.html")]
    for browsing, path in [*pages, (wasteland, WASTELAND_WIDE)]:
        open_page(page, browsing.url(path))
        tables = page.evaluate(TABLE_FIT)
        assert tables, f"{path} has no table"
        wide = [t for t in tables if t["scrolls"] or t["width"] > t["column"] + 1]
        assert not wide, f"{path}: tables wider than their column at {DESKTOP['width']}px: {wide}"
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_errata_read_on_a_phone(site: Browsing) -> None:
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ERRATA))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    table = page.locator("article table").first
    # Text wraps: no cell holds its text on one line wider than the screen, and each row keeps its place in view.
    widest = table.evaluate("(t) => Math.max(...[...t.querySelectorAll('td, th')].map(c => c.getBoundingClientRect().width))")
    assert widest < PHONE["width"] * 0.6, f"a cell {widest}px wide: its text does not wrap"
    assert_rows_readable(table, "errata")
    assert problems.all() == [], "\n".join(problems.all())


# --- 5. contents that help -------------------------------------------------------------------------------


@pytest.mark.browser
def test_army_list_contents_list_units_by_category(site: Browsing) -> None:
    page, problems = site.new_page()
    open_page(page, site.url(ARMY_LIST))
    toc = page.locator(".md-sidebar--secondary nav.md-nav--secondary")
    entries = toc.locator("a.md-nav__link")
    titles = [t.strip() for t in entries.all_inner_texts()]
    assert "Commander" in titles and "Cerberus Tank" in titles, titles
    assert not {"Unit Composition", "Weapons and Equipment"} & set(titles), f"sub-sections in the contents: {titles}"
    assert len(titles) <= 30, f"{len(titles)} entries in the contents: {titles}"
    # Units are grouped under their category.
    command = toc.locator("li.md-nav__item", has=page.locator("> a", has_text="Command Units"))
    expect(command.locator("nav a.md-nav__link")).to_have_text(["Commander", "Lieutenant"])
    # The sub-section headings and their public anchors are all still there.
    expect(page.locator("article h4[id='unit-composition_3']")).to_have_text(re.compile("Unit Composition"))
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_quick_unit_jump_on_a_phone(site: Browsing) -> None:
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ARMY_LIST))
    jump = page.locator("article .unit-jump")
    expect(jump).to_be_in_viewport()
    expect(jump.get_by_role("link")).to_have_count(8)
    jump.get_by_role("link", name="Cerberus Tank", exact=True).tap()
    page.wait_for_url(re.compile(r"#cerberus-tank$"))
    heading = page.locator("article [id='cerberus-tank']")
    expect(heading).to_be_in_viewport()
    box, bar = heading.bounding_box(), page.locator(".rules-games").bounding_box()
    assert box is not None and bar is not None
    assert box["y"] >= bar["y"] + bar["height"] - 1, f"the unit's heading is hidden under the game switcher: {box} {bar}"
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_a_search_result_for_a_table_row_lands_below_the_game_switcher(site: Browsing) -> None:
    """A weapon's or an upgrade's search result leads to its row's anchor in a table, not to a heading:
    on a phone the row lands under the sticky game switcher, in view, like a unit's heading does."""
    page, problems = site.new_page(phone=True)
    for query, anchor in (("Slammer", "standard-weapons--slammer"), ("Big Boss", "upgrades_5--big-boss")):
        open_page(page, site.url("index.html"))  # a page at rest: a tap while one scrolls is not a reader's
        page.locator("label.md-search__icon[for='__search'], label.md-header__button[for='__search']").first.tap()
        box = page.locator("input.md-search__input")
        box.fill("")
        box.press_sequentially(query, delay=20)
        wait_for_search_answers(page)  # the whole query's results, not a first key's, are tapped
        page.locator(f"a.md-search-result__link[href*='#{anchor}']").first.tap()
        page.wait_for_url(re.compile(f"#{anchor}$"))
        row = page.locator(f"article [id='{anchor}']").locator("xpath=ancestor::tr")
        switcher = page.locator(".rules-games")
        with contextlib.suppress(PlaywrightTimeout):  # the page may still be scrolling: give it a moment
            page.wait_for_function(
                "([id]) => { const r = document.getElementById(id).closest('tr').getBoundingClientRect();"
                " const s = document.querySelector('.rules-games').getBoundingClientRect(); return r.top >= s.bottom - 1; }",
                arg=[anchor],
                timeout=PATIENCE_MS,
            )
        at, bar = row.bounding_box(), switcher.bounding_box()
        assert at is not None and bar is not None
        assert at["y"] >= bar["y"] + bar["height"] - 1, f"{query}: its row is hidden under the game switcher: {at} {bar}"
    assert problems.all() == [], "\n".join(problems.all())


# --- 6. moving between games -----------------------------------------------------------------------------


@pytest.mark.browser
def test_one_tap_between_games_and_the_current_game_in_view(site: Browsing, artifacts: Path) -> None:
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ARMY_LIST))
    games = page.get_by_role("navigation", name="Cadence Wargame System")
    expect(games).to_be_visible()
    current = games.locator("a[aria-current='true']")
    expect(current).to_have_text("Fracture")
    expect(current).to_be_in_viewport()
    # The site's name is shown whole in the header at the top of the page.
    title = page.locator(".md-header__topic").first.locator(".md-ellipsis")
    fits = title.evaluate(
        """(e) => { const r = e.getBoundingClientRect(), h = e.closest("header").getBoundingClientRect();
                    return e.scrollWidth <= e.clientWidth + 1 && r.right <= innerWidth && r.top >= h.top && r.bottom <= h.bottom; }"""
    )
    assert fits, "the site name is cut off in the header"

    # Far down the page the switcher is still under the header, and the current game still shown.
    page.evaluate("() => window.scrollTo(0, 6000)")
    page.wait_for_function("() => scrollY > 3000")
    header, bar = page.locator("header.md-header").bounding_box(), games.bounding_box()
    assert header is not None and bar is not None
    assert abs(bar["y"] - (header["y"] + header["height"])) <= 1, f"the switcher is not under the header: {bar} {header}"
    expect(current).to_be_in_viewport()
    page.screenshot(path=str(artifacts / "phone-game-switcher-scrolled.png"))

    # One tap to another game, from anywhere.
    other = games.get_by_role("link", name="Devil's Bluff")
    other.scroll_into_view_if_needed()
    other.tap()
    page.wait_for_url(re.compile(r"/devils-bluff/index\.html$"))
    expect(page.get_by_role("navigation", name="Cadence Wargame System").locator("a[aria-current='true']")).to_have_text("Devil's Bluff")
    assert urlsplit(page.url).path.endswith("/devils-bluff/index.html")
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_the_current_game_is_in_view_in_the_switcher_whichever_game_it_is(site: Browsing, artifacts: Path) -> None:
    """The switcher scrolls sideways on a phone: the games past the screen's edge (Squadrons, Survivors) were
    off to the right on their own pages. The current game is brought into view, and while more games lie
    to either side the bar's last one there fades into its colour."""
    page, problems = site.new_page(phone=True)
    for path, game in (("squadrons/fleets/fractured-skies.html", "Squadrons"), ("survivors/index.html", "Survivors")):
        open_page(page, site.url(path))
        games = page.get_by_role("navigation", name="Cadence Wargame System")
        current = games.locator("a[aria-current='true']")
        expect(current).to_have_text(game)
        box, bar = current.bounding_box(), games.bounding_box()
        assert box is not None and bar is not None
        assert box["x"] >= bar["x"] and box["x"] + box["width"] <= bar["x"] + bar["width"], f"{game} is off the switcher: {box} {bar}"
        expect(games).to_have_class(re.compile(r"\brules-more-left\b"))  # the games before it fade at the left
    page.screenshot(path=str(artifacts / "phone-switcher-last-game.png"), clip={"x": 0, "y": 0, "width": 390, "height": 90})
    open_page(page, site.url("core-rules/index.html"))
    games = page.locator(".rules-games")
    expect(games).to_have_class(re.compile(r"\brules-more-right\b"))
    expect(games).not_to_have_class(re.compile(r"\brules-more-left\b"))  # the first game: nothing before it
    assert games.evaluate("(g) => getComputedStyle(g, '::after').content") != "none"
    # A fade takes no room: were it to move the games, the scroll that shows it would no longer be at the end,
    # and the bar would be stuck faded on both sides (it was, in about half the runs, with the flex gap counted).
    widths = games.evaluate(
        """(g) => {
            const width = () => g.scrollWidth;
            const both = ["rules-more-left", "rules-more-right"], before = [...g.classList];
            const seen = [width()];
            for (const fade of [[], ["rules-more-left"], ["rules-more-right"], both]) {
                g.classList.remove(...both);
                g.classList.add(...fade);
                seen.push(width());
            }
            g.className = before.join(" ");
            return seen;
        }"""
    )
    assert len(set(widths)) == 1, f"the fades move the games: scroll widths {widths}"
    games.evaluate("(g) => { g.scrollLeft = g.scrollWidth; }")
    expect(games).not_to_have_class(re.compile(r"\brules-more-right\b"))
    assert problems.all() == [], "\n".join(problems.all())
