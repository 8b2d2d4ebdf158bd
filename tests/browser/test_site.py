"""The built rules site in a real browser: loading, search, rule links, tooltips, mobile, palette, keyboard, escaping."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from playwright.sync_api import Browser, Locator, Page, expect

from .conftest import PHONE, Browsing, build_site, project_copy, serve, wait_for_search_answers

ARMY_LIST = "fracture/army-lists/sentinels.html"
APPENDIX = "core-rules/special-rules-appendix.html"
HEAVY_ARMOUR_TEXT = "Attacks made against this model have their Piercing value lowered by X, but never below 0."
PAYLOAD = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">'


# --- helpers --------------------------------------------------------------------------------------


def open_page(page: Page, url: str) -> None:
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")


def active_element(page: Page) -> dict[str, object]:
    active: dict[str, object] = page.evaluate(
        """() => {
            const e = document.activeElement;
            return {
                tag: e ? e.tagName.toLowerCase() : null,
                cls: e && typeof e.className === "string" ? e.className : "",
                href: e && e.getAttribute("href") || "",
                forId: e && e.getAttribute("for") || "",
                inTable: !!(e && e.closest("article table")),
                text: e ? (e.textContent || "").trim().slice(0, 80) : "",
            };
        }"""
    )
    return active


def assert_heading_shown(page: Page, anchor: str, heading_text: str) -> None:
    """The URL points at `anchor` and its heading is on screen, not hidden under the sticky header."""
    assert urlsplit(page.url).fragment == anchor, page.url
    heading = page.locator(f"article [id='{anchor}']")
    expect(heading).to_have_count(1)
    expect(heading).to_contain_text(heading_text)
    expect(heading).to_be_in_viewport()
    box = heading.bounding_box()
    header = page.locator("header.md-header").bounding_box()
    viewport = page.viewport_size
    assert box is not None and header is not None and viewport is not None
    assert box["y"] >= header["y"] + header["height"] - 1, (
        f"heading #{anchor} at y={box['y']} is under the header (bottom {header['y'] + header['height']})"
    )
    assert box["y"] + box["height"] <= viewport["height"], f"heading #{anchor} at y={box['y']} is below the fold"


def rule_link_in_row(page: Page, model: str, rule: str) -> Locator:
    name = re.compile(rf"^\s*{re.escape(model)}\s*$")
    row = page.locator("article table tbody tr").filter(has=page.locator("th, td", has_text=name))
    expect(row).to_have_count(1)
    link = row.get_by_role("link", name=rule, exact=True)
    expect(link).to_have_count(1)
    return link


def search(page: Page, query: str) -> Locator:
    """Type `query` into Material's search box (key by key: Material listens for key events) and wait for results."""
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query, delay=30)
    wait_for_search_answers(page)  # the whole query's results, not a first key's
    items = page.locator("ol.md-search-result__list > li.md-search-result__item")
    expect(items.first).to_be_visible()
    return items


def best_link(item: Locator) -> dict[str, object]:
    """The best-scored link of a search result group (Material lists the page first, with score 0 when only a section matched)."""
    links: list[dict[str, object]] = item.evaluate(
        """(li) => [...li.querySelectorAll("a.md-search-result__link")].map(a => ({
            href: a.href,
            title: (a.querySelector("h1, h2")?.textContent || "").trim(),
            score: parseFloat(a.querySelector("article")?.dataset.mdScore || "0"),
        }))"""
    )
    assert links, "a search result without links"
    return max(links, key=lambda link: float(str(link["score"])))


# --- 1. pages load cleanly -------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("path", ["index.html", ARMY_LIST], ids=["home", "sentinels"])
def test_page_loads_without_errors(site: Browsing, path: str) -> None:
    page, problems = site.new_page()
    response = page.goto(site.url(path), wait_until="load")
    assert response is not None and response.ok, f"{path}: HTTP {response.status if response else 'no response'}"
    page.wait_for_load_state("networkidle")
    expect(page.locator("article h1").first).to_be_visible()
    # Material's JavaScript ran (it wraps every content table; the search worker is set up).
    if path == ARMY_LIST:
        expect(page.locator("article .md-typeset__scrollwrap table").first).to_be_attached()
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
def test_a_games_quick_facts_show_no_empty_header_row(site: Browsing) -> None:
    """The facts table on a game's page names each row itself; its empty header row showed as a bare bar."""
    page, problems = site.new_page(PHONE)
    page.goto(site.url("scraplands/index.html"))
    facts = page.locator("article table").first
    expect(facts.get_by_role("rowheader", name="Most per unit")).to_be_visible()
    expect(facts.locator("tbody tr").first).to_be_visible()
    expect(facts.locator("thead")).to_be_hidden()
    army_list = page.context.new_page()
    army_list.goto(site.url(ARMY_LIST))
    expect(army_list.locator("article table thead").first).to_be_visible()  # a header that names its columns stays
    assert problems.all() == [], "\n".join(problems.all())


# --- 2. search -------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize(("query", "anchor"), [("Rapid Fire", "rapid-fire"), ("Heavy Armour", "heavy-armour")])
def test_search_finds_rule_definition_first(site: Browsing, query: str, anchor: str) -> None:
    page, problems = site.new_page()
    open_page(page, site.url("index.html"))
    items = search(page, query)

    best = best_link(items.first)
    target = urlsplit(str(best["href"]))
    assert target.path.endswith("/" + APPENDIX) and target.fragment == anchor, (
        f"first search result for {query!r} is {best}, not {APPENDIX}#{anchor}"
    )
    assert str(best["title"]).startswith(query), best

    link = items.first.locator(f"a.md-search-result__link[href$='#{anchor}']")
    expect(link).to_have_count(1)
    link.click()
    page.wait_for_url(re.compile(rf"/{re.escape(APPENDIX)}(\?[^#]*)?#{anchor}$"))
    page.wait_for_load_state("networkidle")
    assert_heading_shown(page, anchor, query)
    assert problems.all() == [], "\n".join(problems.all())


# --- 3. rule links in army-list tables -------------------------------------------------------------


@pytest.mark.browser
def test_rule_link_in_army_list_lands_on_definition(site: Browsing) -> None:
    page, problems = site.new_page()
    open_page(page, site.url(ARMY_LIST))
    link = rule_link_in_row(page, "Argo Transport", "Heavy Armour (1)")
    assert (link.get_attribute("href") or "").endswith(f"{APPENDIX}#heavy-armour")
    # A click shows the rule in place; its pop-up links on to the definition.
    link.click()
    page.get_by_role("dialog", name="Heavy Armour (1)").get_by_role("link", name=re.compile("Full definition")).click()
    page.wait_for_url(re.compile(rf"/{re.escape(APPENDIX)}#heavy-armour$"))
    page.wait_for_load_state("networkidle")
    assert_heading_shown(page, "heavy-armour", "Heavy Armour")
    # The definition under the heading is the rule's text.
    expect(page.locator("article [id='heavy-armour'] + p")).to_contain_text(HEAVY_ARMOUR_TEXT)
    assert problems.all() == [], "\n".join(problems.all())


# --- 4. tooltips ------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("how", ["hover", "focus"])
def test_rule_link_tooltip_shows_rule_text(site: Browsing, how: str) -> None:
    page, _ = site.new_page()
    open_page(page, site.url(ARMY_LIST))
    link = rule_link_in_row(page, "Argo Transport", "Heavy Armour (1)")
    link.scroll_into_view_if_needed()
    if how == "hover":
        link.hover()
    else:
        link.focus()
    tooltip = page.locator(".md-tooltip2[role='tooltip'].md-tooltip2--active, .md-tooltip--active")
    expect(tooltip).to_have_count(1)
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text(HEAVY_ARMOUR_TEXT)
    # It is this link's tooltip, and assistive technology can find it.
    tooltip_id = tooltip.get_attribute("id")
    assert tooltip_id and link.get_attribute("aria-describedby") == tooltip_id


# --- 5. mobile --------------------------------------------------------------------------------------


@pytest.mark.browser
def test_army_list_tables_scroll_inside_their_container_on_phone(site: Browsing) -> None:
    page, problems = site.new_page(phone=True)
    open_page(page, site.url(ARMY_LIST))
    width = page.evaluate("() => ({doc: document.documentElement.scrollWidth, win: window.innerWidth})")
    assert width["win"] == PHONE["width"]
    assert width["doc"] <= width["win"], f"the page scrolls sideways: {width['doc']}px of content in a {width['win']}px window"

    tables = page.evaluate(
        """() => [...document.querySelectorAll("article table")].map((t, i) => {
            const wrap = t.closest(".md-typeset__scrollwrap") || t.parentElement;
            const style = getComputedStyle(wrap);
            const before = wrap.scrollLeft;
            wrap.scrollLeft = 60;
            const moved = wrap.scrollLeft;
            wrap.scrollLeft = before;
            const r = wrap.getBoundingClientRect();
            return {
                i, wrapper: wrap.className, tableWidth: t.getBoundingClientRect().width,
                scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, overflowX: style.overflowX,
                left: r.left, right: r.right, moved,
                fontSize: parseFloat(getComputedStyle(t.querySelector("td") || t).fontSize),
            };
        })"""
    )
    assert tables, "no tables on the army list"
    wide = [t for t in tables if t["scrollWidth"] > t["clientWidth"]]
    assert wide, "no army-list table is wider than a phone screen; the test would prove nothing"
    for t in tables:
        assert t["left"] >= -1 and t["right"] <= width["win"] + 1, f"table {t['i']}'s container sticks out of the screen: {t}"
        assert t["fontSize"] >= 12, f"table {t['i']}'s text is {t['fontSize']}px, too small to read"
        if t["scrollWidth"] > t["clientWidth"]:
            assert t["overflowX"] in ("auto", "scroll"), f"table {t['i']} is wider than its container, which does not scroll: {t}"
            assert t["moved"] > 0, f"table {t['i']}'s container does not scroll sideways: {t}"
    assert problems.all() == [], "\n".join(problems.all())


# --- 6. palette -------------------------------------------------------------------------------------


@pytest.mark.browser
def test_palette_toggle_switches_light_and_dark(site: Browsing) -> None:
    page, problems = site.new_page()
    open_page(page, site.url("index.html"))
    body = page.locator("body")
    toggle = page.locator("form[data-md-component='palette'] label:not([hidden])")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    expect(toggle).to_have_count(1)

    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    expect(toggle).to_have_attribute("for", "__palette_0")  # now offers the way back to light
    # The choice is remembered on the next page.
    open_page(page, site.url(ARMY_LIST))
    expect(body).to_have_attribute("data-md-color-scheme", "slate")

    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    assert problems.all() == [], "\n".join(problems.all())


# --- 7. keyboard ------------------------------------------------------------------------------------


def tab_until(page: Page, wanted: Callable[[dict[str, object]], bool], limit: int) -> list[dict[str, object]]:
    """Press Tab until `wanted(active element)`; returns the focus path (fails if the limit is reached)."""
    path: list[dict[str, object]] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        active = active_element(page)
        path.append(active)
        if wanted(active):
            return path
    shown = "\n".join(f"{a['tag']}.{a['cls']} {a['href'] or a['forId']} {a['text']!r}" for a in path[:40])
    pytest.fail(f"{limit} presses of Tab never reached it; focus went:\n{shown}")


@pytest.mark.browser
def test_keyboard_reaches_search_and_table_rule_links(site: Browsing) -> None:
    page, _ = site.new_page()
    open_page(page, site.url("index.html"))
    path = tab_until(
        page,
        lambda a: (a["tag"] == "input" and "md-search__input" in str(a["cls"])) or a["forId"] == "__search",
        limit=30,
    )
    assert len(path) <= 10, f"the search box is {len(path)} Tab presses from the top"
    # Typing there searches.
    page.keyboard.type("Rapid Fire", delay=30)
    expect(page.locator("ol.md-search-result__list > li.md-search-result__item").first).to_be_visible()

    open_page(page, site.url(ARMY_LIST))
    path = tab_until(
        page,
        lambda a: a["tag"] == "a" and bool(a["inTable"]) and APPENDIX.split("/")[-1] in str(a["href"]),
        limit=600,
    )
    focused = page.locator(":focus")
    expect(focused).to_be_in_viewport()
    # Enter shows the focused rule in place; from its pop-up, Tab and Enter follow it to its definition.
    anchor = str(path[-1]["href"]).rsplit("#", 1)[-1]
    page.keyboard.press("Enter")
    expect(page.locator(".rule-popover[role=dialog]")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{re.escape(APPENDIX)}#{re.escape(anchor)}$"))
    expect(page.locator(f"article [id='{anchor}']")).to_be_in_viewport()


@pytest.mark.browser
def test_keyboard_reaches_search_on_the_zensical_site(zensical: Browsing) -> None:
    """Zensical's search opens from a button in the header: Tab reaches it, Enter opens the dialog, typing searches."""
    page, problems = zensical.new_page()
    open_page(page, zensical.url("index.html"))
    path = tab_until(page, lambda a: a["tag"] == "button" and "md-search__button" in str(a["cls"]), limit=30)
    assert len(path) <= 10, f"the search button is {len(path)} Tab presses from the top"
    page.keyboard.press("Enter")
    page.keyboard.type("Rapid Fire", delay=30)
    first = page.locator("ol[role=listbox] a[role=option]").first
    expect(first).to_have_attribute("href", re.compile(r"/core-rules/special-rules-appendix\.html\?h=[^#]*#rapid-fire$"))
    assert problems.all() == [], "\n".join(problems.all())


# --- 8. escaping ------------------------------------------------------------------------------------


def _inject(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of the project with HTML in an upgrade's effect (shown on the army list) and in a rule's text (shown in the
    appendix and in every tooltip of a link to it), built and served."""
    root = tmp_path_factory.mktemp("hostile")
    project = project_copy(root / "project")

    army = project / "data/fracture/army-lists/sentinels.yaml"
    _inject(army, "inches away, rather than once.\n", f"inches away, rather than once. {PAYLOAD}\n")
    effect = yaml.safe_load(army.read_text(encoding="utf-8"))["army_list"]["sections"]
    upgrades = next(s["upgrade_list"] for s in effect if "upgrade_list" in s)
    assert upgrades["upgrades"][0]["effect"].endswith(PAYLOAD)

    core = project / "data/core-rules/module.yaml"
    _inject(core, "lowered by X, but never below 0.\n", f"lowered by X, but never below 0. {PAYLOAD}\n")
    rules = yaml.safe_load(core.read_text(encoding="utf-8"))["module"]["special_rules"]
    assert next(r for r in rules if r["name"] == "Heavy Armour")["text"].endswith(PAYLOAD)

    site_dir = build_site(project, root / "site")
    with serve(site_dir) as url:
        yield url


@pytest.mark.browser
@pytest.mark.parametrize("path", [ARMY_LIST, APPENDIX], ids=["army-list", "appendix"])
def test_html_in_data_is_shown_as_text(browser: Browser, hostile_site: str, path: str) -> None:
    site = Browsing(browser, hostile_site)
    try:
        page, _ = site.new_page()
        open_page(page, site.url(path))
        page.wait_for_timeout(300)  # an <img onerror> fires after the failed load
        assert page.evaluate("() => typeof window.__pwned") == "undefined", "HTML from data ran as script"
        assert page.locator("article img[src='x'], article script:not([src])").count() == 0, "HTML from data became elements"
        text = page.locator("article").inner_text()
        # data Markdown takes no raw HTML: the tags are removed (and reported by the check), the words stay
        assert "<script>" not in text and "<img src=x onerror=" not in text, "raw HTML from data reached the page"
        assert ("rather than once." if path == ARMY_LIST else "but never below 0.") in text

        if path == ARMY_LIST:
            link = rule_link_in_row(page, "Argo Transport", "Heavy Armour (1)")
            link.scroll_into_view_if_needed()
            link.hover()
            tooltip = page.locator(".md-tooltip2--active, .md-tooltip--active")
            expect(tooltip).to_contain_text(HEAVY_ARMOUR_TEXT)
            # The tooltip is plain text made from the rule's Markdown, whose raw HTML is removed; Material puts the
            # title into the tooltip with innerHTML, so nothing of it may become an element.
            expect(tooltip).to_contain_text("never below 0.")
            assert tooltip.locator("img, script").count() == 0, "HTML in a tooltip became elements"
            page.wait_for_timeout(300)
            ran = page.evaluate("() => [typeof window.__pwned, typeof window.pwned]")
            assert ran == ["undefined", "undefined"], "HTML in a tooltip ran as script"
            # The rule's pop-up shows the same text, its raw HTML removed as on the page.
            link.click()
            popover = page.get_by_role("dialog", name="Heavy Armour (1)")
            expect(popover).to_contain_text("never below 0.")
            assert "<script>" not in popover.inner_text()
            assert popover.locator("img, script").count() == 0, "HTML in a pop-up became elements"
            page.wait_for_timeout(300)
            assert page.evaluate("() => typeof window.__pwned") == "undefined", "HTML in a pop-up ran as script"
    finally:
        site.close()


# --- 9. screenshots ---------------------------------------------------------------------------------


def _shot(page: Page, path: Path, *shown: str) -> None:
    """A screenshot for a person to look at, and the elements it is taken to show, each inside the picture."""
    page.screenshot(path=str(path))
    view = page.viewport_size
    assert view is not None
    for selector in shown:
        box = page.locator(selector).first.bounding_box()
        assert box is not None, f"{path.name}: {selector} is not shown"
        assert box["width"] > 0 and box["height"] > 0, f"{path.name}: {selector} has no size"
        assert box["x"] >= -1 and box["x"] + box["width"] <= view["width"] + 1, f"{path.name}: {selector} is cut off at the side: {box}"
        assert box["y"] >= -1 and box["y"] < view["height"], f"{path.name}: {selector} is off the picture: {box}"


def _under_header(page: Page, selector: str) -> None:
    box = page.locator(selector).first.bounding_box()
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('header.md-header, .rules-games')]"
        ".filter(e => getComputedStyle(e).position === 'sticky' && e.offsetParent !== null)"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert box is not None and box["y"] >= bottom - 1, f"{selector} at y={box and box['y']} is under the header (bottom {bottom})"


@pytest.mark.browser
def test_screenshots(site: Browsing, artifacts: Path) -> None:
    page, problems = site.new_page()
    open_page(page, site.url("index.html"))
    _shot(page, artifacts / "home-desktop.png", "header.md-header", "article h1", ".rules-games a[href]")

    open_page(page, site.url(ARMY_LIST))
    _shot(page, artifacts / "sentinels-desktop.png", "article h1", ".md-sidebar--secondary nav.md-nav--secondary", "article .unit-jump")
    open_page(page, site.url(ARMY_LIST + "#argo-transport"))
    _shot(
        page,
        artifacts / "sentinels-desktop-table.png",
        "article [id='argo-transport']",
        "article [id='argo-transport'] ~ .md-typeset__scrollwrap table",
    )
    _under_header(page, "article [id='argo-transport']")

    open_page(page, site.url("index.html"))
    search(page, "Rapid Fire")
    page.wait_for_timeout(300)
    _shot(page, artifacts / "search-rapid-fire.png", ".md-search__output", "ol.md-search-result__list > li")

    phone, phone_problems = site.new_page(phone=True)
    open_page(phone, site.url("index.html"))
    _shot(phone, artifacts / "home-phone.png", "header.md-header", ".rules-games", "article h1")
    open_page(phone, site.url(ARMY_LIST))
    _shot(phone, artifacts / "sentinels-phone.png", ".rules-games a[aria-current='true']", "article h1", "article .unit-jump")
    open_page(phone, site.url(ARMY_LIST + "#argo-transport"))
    table = "article [id='argo-transport'] ~ .md-typeset__scrollwrap"
    phone.locator(table).first.evaluate("(w) => { w.scrollLeft = w.scrollWidth; }")
    _shot(
        phone,
        artifacts / "sentinels-phone-table.png",
        "article [id='argo-transport']",
        f"{table} tbody tr > :first-child",
        f"{table} tbody tr > :last-child",
    )
    _under_header(phone, "article [id='argo-transport']")

    assert problems.all() == [] and phone_problems.all() == [], "\n".join(problems.all() + phone_problems.all())
