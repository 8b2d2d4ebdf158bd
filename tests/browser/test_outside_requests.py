"""No page asks another host for anything: a reader's address goes to the site's own server only.

Each fixture site (the mini and every-field fixtures, the Wasteland Tactics example, the shipped project) is
built by MkDocs and by Zensical and served on 127.0.0.1; a few of its pages are opened in Chromium until the
network is quiet, and every request the context makes (its pages' and the service worker's) is recorded.
Material's Roboto from Google Fonts is what a config without `theme.font: false` adds to every page; the
last test plants that config and checks that the recorder sees it, so the others cannot pass by seeing nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Request

from ..conftest import MINI, REPO, cadence_build, copy_project
from .conftest import build_site, serve

WASTELAND = REPO / "examples" / "wasteland-tactics"
EVERY_FIELD = REPO / "tests" / "fixtures" / "every-field"
PROJECTS = {"mini": MINI, "every-field": EVERY_FIELD, "wasteland-tactics": WASTELAND, "shipped": REPO}
#: Pages opened on each site besides its home page: this many, spread over its pages in file order.
OTHER_PAGES = 4


def built(project: Path, engine: str, out: Path) -> Path:
    """The project's site as `mkdocs build` (its rules plugin) or `cadence build --engine zensical` builds it."""
    if engine == "mkdocs":
        return build_site(project, out)
    result = cadence_build(project, out, engine, strict=False)
    if result.returncode != 0 or not (out / "index.html").is_file():
        pytest.fail(f"cadence build --engine {engine} failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}", pytrace=False)
    return out


def pages_to_open(site: Path) -> list[str]:
    """The home page and a few others spread over the site (the module pages, lists and appendices differ)."""
    others = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html")
    others.remove("index.html")
    step = max(1, len(others) // OTHER_PAGES)
    return ["index.html", *others[::step][:OTHER_PAGES]]


def requests_elsewhere(browser: Browser, site: Path) -> tuple[list[str], int]:
    """Every request off the local server made while the chosen pages of `site` load, as `METHOD URL (page)`,
    and how many requests were seen in all."""
    elsewhere: list[str] = []
    seen = 0
    with serve(site) as base:
        local = urlsplit(base).netloc
        context = browser.new_context()
        try:
            opened = ""

            def record(request: Request) -> None:
                nonlocal seen
                seen += 1
                url = urlsplit(request.url)
                if url.scheme in ("http", "https", "ws", "wss") and url.netloc != local:
                    elsewhere.append(f"{request.method} {request.url} (while opening {opened})")

            context.on("request", record)  # the pages' requests and the service worker's
            page = context.new_page()
            page.set_default_timeout(30_000)
            for path in pages_to_open(site):
                opened = path
                page.goto(base + path, wait_until="networkidle")
        finally:
            context.close()
    return elsewhere, seen


@pytest.mark.browser
@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
@pytest.mark.parametrize("name", list(PROJECTS))
def test_no_page_requests_another_host(browser: Browser, name: str, engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    shared: dict[tuple[str, str], Callable[[], Path]] = {  # the builds other browser tests share, made once a session
        ("shipped", "mkdocs"): lambda: Path(request.getfixturevalue("site_dir")),
        ("wasteland-tactics", "mkdocs"): lambda: Path(request.getfixturevalue("wasteland_dir")),
    }
    make = shared.get((name, engine))
    site = make() if make is not None else built(PROJECTS[name], engine, tmp_path / "site")
    elsewhere, seen = requests_elsewhere(browser, site)
    print(f"\n{name} built by {engine}: {seen} requests over {len(pages_to_open(site))} pages, {len(elsewhere)} to another host")
    assert seen > len(pages_to_open(site)), "the recorder saw no more than the pages themselves"  # their styles, scripts, search
    assert elsewhere == []


@pytest.mark.browser
def test_a_config_with_fonts_on_is_caught(browser: Browser, tmp_path: Path) -> None:
    """The recorder sees what a config without `font: false` adds: the guard the tests above rely on."""
    project = copy_project(MINI, tmp_path / "mini")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "font: false" in text
    config.write_text(text.replace("font: false", "font: {text: Roboto}"), encoding="utf-8")
    elsewhere, _ = requests_elsewhere(browser, built(project, "mkdocs", tmp_path / "site"))
    assert elsewhere and all(urlsplit(line.split()[1]).hostname in {"fonts.googleapis.com", "fonts.gstatic.com"} for line in elsewhere)
