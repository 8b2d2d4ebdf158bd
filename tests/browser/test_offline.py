"""Offline reading in the real browser: after a first visit, every page and the search work with no network.

The site's service worker (sw.js, written after the build) caches every built file when it installs.
The test visits the home page once, waits until the worker is active, turns the network off and opens
every page of the site, then searches; every page must come from the cache. A second test runs
`mkdocs serve` and checks that no worker is registered there (live reload must reach the server).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from generator.cli import stop_process
from generator.offline import WORKER, site_files, write_service_worker

from .conftest import REPO, Browsing

ACTIVE = "navigator.serviceWorker.ready.then(registration => Boolean(registration.active))"


@pytest.mark.browser
def test_the_whole_site_and_search_work_offline_after_one_visit(site: Browsing, site_dir: Path) -> None:
    pages = [f for f in site_files(site_dir) if f.endswith(".html")]
    assert (site_dir / WORKER).is_file()
    page, problems = site.new_page()
    page.goto(site.url("index.html"), wait_until="load")
    assert page.evaluate(ACTIVE) is True
    page.context.set_offline(True)
    served, failed = 0, []
    for path in pages:
        response = page.goto(site.url(path), wait_until="commit")
        if response is not None and response.ok and response.from_service_worker:
            served += 1
        else:
            failed.append(path)
    print(f"\noffline: {served} of {len(pages)} pages served by the service worker with the network off")
    assert failed == []
    # Search, offline: the index and the worker script come from the cache too.
    page.goto(site.url("fracture/army-lists/sentinels.html"), wait_until="load")
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("Plasma Pistol", delay=30)
    first = page.locator("ol.md-search-result__list > li.md-search-result__item").first
    expect(first).to_contain_text("Plasma Pistol — Sentinels (Fracture)")
    page.context.set_offline(False)
    assert problems.all() == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def dev_server() -> Iterator[str]:
    """`mkdocs serve` of the repository on a free port; stopped after the test."""
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 600  # the whole site is built first: minutes on a busy machine
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"mkdocs serve exited: {proc.stderr.read() if proc.stderr else ''}", pytrace=False)
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop_process(proc, timeout=20)
        if proc.stderr:
            proc.stderr.close()


@pytest.mark.browser
def test_no_service_worker_on_the_dev_server(browser: Browser, dev_server: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(dev_server + "index.html", wait_until="load")
        assert page.evaluate("typeof window.livereload") == "function", "mkdocs serve injects live reload"
        page.wait_for_timeout(500)
        registrations = page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)")
        assert registrations == 0
        assert re.search(r"sw\.js", page.content()) is None
    finally:
        context.close()


def test_the_worker_is_versioned_by_the_built_files(tmp_path: Path) -> None:
    """Same files, same version; any change, a new version (whose worker replaces the old cache)."""
    (tmp_path / "index.html").write_text("<h1>Rules</h1>", encoding="utf-8")
    (tmp_path / "a b").mkdir()
    (tmp_path / "a b" / "page.html").write_text("<h1>Page</h1>", encoding="utf-8")
    (tmp_path / "bundle.js.map").write_text("{}", encoding="utf-8")
    first = write_service_worker(tmp_path)
    worker = (tmp_path / WORKER).read_text(encoding="utf-8")
    assert '"a%20b/page.html"' in worker and '"index.html"' in worker and "bundle.js.map" not in worker
    assert write_service_worker(tmp_path) == first, "the worker file itself is not part of the version"
    (tmp_path / "a b" / "page.html").write_text("<h1>Page, corrected</h1>", encoding="utf-8")
    second = write_service_worker(tmp_path)
    assert second != first
    assert f'const VERSION = "{second}";' in (tmp_path / WORKER).read_text(encoding="utf-8")
