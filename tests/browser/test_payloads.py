"""Hostile payloads in every string field, in Chromium: every page loaded, every element hovered and focused.

The sites are the payload suite's (tests/payloads.py): each string field of the model with each
payload in it, three builds. Payloads set `window.__pwned` or call `alert()`; a dialog, the global,
or a link the browser reads as `javascript:`, `data:` or `vbscript:` fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog

from ..payloads import Hostile, built_sites, content_sites
from .conftest import serve

# Every element: the events a pointer and the keyboard send, then what the browser made of each link.
_TOUCH_EVERYTHING = """() => {
    const all = Array.from(document.querySelectorAll("body *"));
    for (const el of all) {
        for (const type of ["mouseover", "mouseenter", "mousemove", "mousedown", "mouseup", "pointerover", "pointerenter"]) {
            el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
        }
        el.dispatchEvent(new FocusEvent("focus"));
        el.dispatchEvent(new FocusEvent("focusin", {bubbles: true}));
        if (typeof el.focus === "function") el.focus();
    }
    const unsafe = Array.from(document.querySelectorAll("[href], [src], [action], [formaction]"))
        .map(el => el.href || el.src || el.action || el.formAction || "")
        .filter(url => /^(javascript|data|vbscript):/i.test(String(url)));
    return {touched: all.length, unsafe};
}"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Hostile, Path]]:
    return built_sites(tmp_path_factory.mktemp("payloads"))[1]


@pytest.mark.browser
def test_no_payload_runs_on_load_hover_or_focus(browser: Browser, sites: list[tuple[Hostile, Path]]) -> None:
    dialogs: list[str] = []
    pages = touched = hovered = 0
    for hostile, site in sites:
        counts = _visit_every_page(browser, site, str(hostile.payloads), dialogs)
        pages, touched, hovered = pages + counts[0], touched + counts[1], hovered + counts[2]
    print(f"\nChromium: {pages} pages, {touched} elements touched, {hovered} tooltips hovered, {len(dialogs)} dialogs")
    assert dialogs == []
    assert pages >= 30


@pytest.mark.browser
@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_no_hostile_link_of_a_content_page_runs(browser: Browser, engine: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every content page with every hostile link and payload, built with the content check off: what the
    sanitiser over the final HTML leaves runs nothing, and no link is one the browser reads as `javascript:`."""
    _, site = content_sites(tmp_path_factory.mktemp("content-payloads")).sites[engine]
    dialogs: list[str] = []
    pages, touched, hovered = _visit_every_page(browser, site, engine, dialogs)
    print(f"\nChromium, {engine}: {pages} pages, {touched} elements touched, {hovered} tooltips hovered, {len(dialogs)} dialogs")
    assert dialogs == []
    assert pages >= 15


def _visit_every_page(browser: Browser, site: Path, what: str, dialogs: list[str]) -> tuple[int, int, int]:
    """Load, touch and hover every page of the site; (pages, elements touched, tooltips hovered)."""
    pages = touched = hovered = 0
    with serve(site) as base:
        context = browser.new_context()
        context.route(lambda url: not url.startswith(base), lambda route: route.abort())  # nothing leaves the test
        try:
            page = context.new_page()
            page.set_default_timeout(15_000)

            def on_dialog(dialog: Dialog) -> None:
                dialogs.append(f"{dialog.type} {dialog.message}")
                dialog.dismiss()

            page.on("dialog", on_dialog)
            for path in sorted(site.rglob("*.html")):
                url = base + path.relative_to(site).as_posix()
                page.goto(url, wait_until="load")
                page.wait_for_timeout(150)  # image errors and autofocus fire just after load
                assert page.evaluate("window.__pwned") is None, f"{what}: ran on load of {url}"
                result = page.evaluate(_TOUCH_EVERYTHING)
                assert page.evaluate("window.__pwned") is None, f"{what}: ran on hover or focus in {url}"
                assert result["unsafe"] == [], f"{what}: {url}: {result['unsafe']}"
                for link in page.locator("article a[title], article [title]").all()[:20]:  # real pointer: tooltips
                    if link.is_visible():
                        link.hover()
                        hovered += 1
                page.wait_for_timeout(100)
                assert page.evaluate("window.__pwned") is None, f"{what}: ran on a tooltip in {url}"
                assert dialogs == [], f"{what}: {url}: {dialogs}"
                pages += 1
                touched += result["touched"]
        finally:
            context.close()
    return pages, touched, hovered
