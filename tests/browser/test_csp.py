"""The Content-Security-Policy every page ships, in Chromium, on the site each engine builds (MkDocs, Zensical).

The theme writes the policy and the post-build switches it on with the hashes of the theme's own inline scripts
(generator/final_html.py). Under it every page loads with no violation, and what the site does still works:
search (its worker and index), the rule pop-ups, the army builder and offline reading (the service worker).
What the policy is for is shown too: an event handler or a `javascript:` link put into a page does not run,
and the browser reports it (`securitypolicyviolation`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import Browsing, PageProblems
from .test_builder import PHONE_390, click_legal_army
from .test_search import open_search, open_zensical_search
from .test_site import ARMY_LIST, HEAVY_ARMOUR_TEXT, open_page, rule_link_in_row

#: Each violation the page reports, from its first byte on (an init script runs before the page's own).
_WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", event => window.__violations.push(
    `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`));
"""
ENGINES = {"mkdocs": "site", "zensical": "zensical"}


def _watched(request: pytest.FixtureRequest, engine: str, offline: bool = False) -> tuple[Browsing, Page, PageProblems]:
    """The engine's site, and a watched page on it that records every violation (`offline`: with its worker)."""
    site: Browsing = request.getfixturevalue(ENGINES[engine])
    page, problems = site.new_page(offline=offline)
    page.context.add_init_script(_WATCH_VIOLATIONS)
    return site, page, problems


def _violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__violations || []"))


def _policy(page: Page) -> str:
    return str(page.evaluate("document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]')?.content || ''"))


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_page_loads_under_the_policy_with_no_violation(engine: str, site_dir: Path, request: pytest.FixtureRequest) -> None:
    site, page, problems = _watched(request, engine)
    paths = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html"))
    found: dict[str, list[str]] = {}
    for path in paths:
        page.goto(site.url(path), wait_until="load")
        policy = _policy(page)
        assert "script-src 'self'" in policy and "'unsafe-inline' " not in policy.split("script-src")[1].split(";")[0], (path, policy)
        assert page.evaluate("typeof __md_get") == "function", f"{path}: the theme's own inline script did not run"
        if violations := _violations(page):
            found[path] = violations
    print(f"\n{engine}: {len(paths)} pages loaded under the policy, {sum(map(len, found.values()))} violations")
    assert found == {}
    assert problems.all() == [], "\n".join(problems.all())


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_search_pop_ups_and_the_builder_work_under_the_policy(engine: str, request: pytest.FixtureRequest) -> None:
    site, page, problems = _watched(request, engine)
    # Search: the engine's worker loads its index and answers.
    (open_search if engine == "mkdocs" else open_zensical_search)(page, site.url("index.html"))
    assert _policy(page) and _violations(page) == []
    # A rule's pop-up (tooltip) on an army list.
    open_page(page, site.url(ARMY_LIST))
    link = rule_link_in_row(page, "Argo Transport", "Heavy Armour (1)")
    link.scroll_into_view_if_needed()
    link.hover()
    tooltip = page.locator(".md-tooltip2[role='tooltip'].md-tooltip2--active, .md-tooltip--active")
    expect(tooltip).to_contain_text(HEAVY_ARMOUR_TEXT)
    assert _violations(page) == []
    # The army builder, on a phone: its script builds a legal army.
    phone, phone_problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    phone.context.add_init_script(_WATCH_VIOLATIONS)
    click_legal_army(phone, site.url("fracture/builder.html"))
    assert _policy(phone) and _violations(phone) == []
    assert problems.all() + phone_problems.all() == [], "\n".join(problems.all() + phone_problems.all())


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_offline_reading_works_under_the_policy(engine: str, request: pytest.FixtureRequest) -> None:
    """The service worker registers under the policy (worker-src) and serves pages with the network off."""
    site, page, problems = _watched(request, engine, offline=True)
    page.goto(site.url("index.html"), wait_until="load")
    assert page.evaluate("navigator.serviceWorker.ready.then(registration => Boolean(registration.active))") is True
    page.context.set_offline(True)
    response = page.goto(site.url(ARMY_LIST), wait_until="load")
    assert response is not None and response.ok and response.from_service_worker
    assert _policy(page) and _violations(page) == []
    page.context.set_offline(False)
    assert problems.all() == [], "\n".join(problems.all())


#: What a page would get if something slipped past the sanitiser: an event handler and a `javascript:` link.
_INJECT = """() => {
    document.body.insertAdjacentHTML("beforeend",
        '<img src="data:,not-an-image" onerror="window.__pwned = 1"><a id="injected" href="java&#10;script:window.__pwned = 2">x</a>');
}"""


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_injected_handler_or_script_link_is_blocked_and_reported(engine: str, request: pytest.FixtureRequest) -> None:
    site, page, problems = _watched(request, engine)
    page.goto(site.url("index.html"), wait_until="load")
    page.evaluate(_INJECT)
    page.wait_for_function("window.__violations.length >= 1")
    page.locator("#injected").click()
    page.wait_for_function("window.__violations.length >= 2")
    assert page.evaluate("window.__pwned") is None
    violations = _violations(page)
    assert all(v.startswith("script-src") and " blocked inline " in v for v in violations), violations
    print(f"\n{engine}: {len(violations)} violations reported for the injected handler and link, nothing ran")
    # Chromium also tells the console: those two errors are the ones expected, nothing else went wrong.
    assert [p for p in problems.all() if "Content Security Policy" not in p] == []
