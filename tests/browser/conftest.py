"""Browser-test fixtures: a real `mkdocs build`, a local HTTP server and Debian's Chromium.

Everything is session-scoped and closed at the end (pytest runs with warnings as errors, so an
unclosed socket or browser would fail the run as a ResourceWarning).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    Route,
    ViewportSize,
    expect,
    sync_playwright,
)

from ..conftest import cadence_build, copy_project, mkdocs_build

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
# How long a page action (a load, a click, a locator or a function waited for) or an `expect` may wait for its
# event or state before the test gives up: only a stuck page takes a minute. Playwright's own bounds (5 s for
# `expect`) end runs on a busy machine, where Chromium beside other tests' builds takes that long to draw a page.
PATIENCE_MS = 60_000
expect.set_options(timeout=PATIENCE_MS)

# Counts the queries a page puts to its search worker and the worker's answers (`window.searchWorkerWatch`), so
# that a test reads a query's results once they are drawn, not after a guess at how long that takes: Material's
# worker and Zensical's answer each query (a message of type 2) with one result (type 3), or fail (type 4), in the
# order asked. Put on every page before its scripts run; the sites' search.js wraps `postMessage` over it.
SEARCH_WORKER_WATCH = """(() => {
  const watch = window.searchWorkerWatch = { asked: 0, answered: 0 };
  const heard = new WeakSet();
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    if (!heard.has(this)) {
      heard.add(this);
      this.addEventListener("message", event => {
        if (event.data && (event.data.type === 3 || event.data.type === 4)) watch.answered += 1;
      });
    }
    if (message && message.type === 2) watch.asked += 1;
    return post.apply(this, arguments);
  };
})();"""


def wait_for_search_answers(page: Page) -> None:
    """Wait until the page's search worker has answered every query typed so far (one at least), and the page
    has had two frames to draw the last answer."""
    page.wait_for_function("() => { const w = window.searchWorkerWatch; return w.asked > 0 && w.answered >= w.asked; }")
    page.evaluate("() => new Promise(drawn => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(drawn, 0))))")


# Material links the Roboto web font from Google Fonts and falls back to system fonts when it cannot
# load. The test machine has no internet, so these (and only these) third-party requests are answered
# with an empty stylesheet; any other request off the local server is left alone and fails loudly.
STUBBED_HOSTS = {"fonts.googleapis.com", "fonts.gstatic.com"}


def project_copy(dest: Path) -> Path:
    """A copy of the repository's site project (data, prose, config) that a test may edit."""
    return copy_project(REPO, dest)


def build_site(project: Path, out: Path) -> Path:
    """Run a real `mkdocs build` of `project` into `out`; fail the test with mkdocs's output if it fails."""
    proc = mkdocs_build(project, out, strict=False)
    if proc.returncode != 0 or not (out / "index.html").is_file():
        pytest.fail(f"mkdocs build failed (exit {proc.returncode}) in {project}:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    """The browser drops a connection whenever a test leaves a page mid-download: not worth a traceback in
    the CI log. Any other error in a request is still printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 (a free port) in a thread; yields the base URL ending in '/'."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=f"http:{directory.name}", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@dataclass
class PageProblems:
    """What went wrong while a page was used: console errors, uncaught exceptions, failed requests."""

    origin: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    bad_responses: list[str] = field(default_factory=list)
    stubbed: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        return [
            *(f"console error: {m}" for m in self.console_errors),
            *(f"uncaught exception: {m}" for m in self.page_errors),
            *(f"request failed: {m}" for m in self.failed_requests),
            *(f"HTTP error: {m}" for m in self.bad_responses),
        ]

    def clear(self) -> None:
        for bucket in (self.console_errors, self.page_errors, self.failed_requests, self.bad_responses, self.stubbed):
            bucket.clear()


_SCROLL_INTERVENTION = "Ignored attempt to cancel a touchstart event with cancelable=false"


def _watch(page: Page, problems: PageProblems) -> None:
    def on_console(msg: ConsoleMessage) -> None:
        # Chromium's note that it let a scroll run on: Material's scroll lock (a touchstart handler on the
        # search results and the drawer) met a tap that landed while the list was still scrolling, as it does
        # on a loaded machine. Nothing a reader sees; any other console error counts.
        if msg.type == "error" and not msg.text.startswith(_SCROLL_INTERVENTION):
            loc = msg.location
            problems.console_errors.append(f"{msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def on_failed(request: Request) -> None:
        # Chromium aborts what is still loading (the favicon, say) when the test opens the next page; a missing
        # file shows as an HTTP error and a refused one as another net:: error, so only this cancel is let pass.
        if request.failure == "net::ERR_ABORTED":
            return
        problems.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

    def on_response(response: Response) -> None:
        if response.status >= 400:
            problems.bad_responses.append(f"{response.status} {response.request.method} {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: problems.page_errors.append(str(exc)))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


def _stub_fonts(problems: PageProblems) -> Callable[[Route], None]:
    def handle(route: Route) -> None:
        problems.stubbed.append(route.request.url)
        body = "/* stubbed by the browser tests: no internet */" if route.request.resource_type == "stylesheet" else ""
        route.fulfill(status=200, body=body, content_type="text/css" if body else "application/octet-stream")

    return handle


@dataclass
class Browsing:
    """Opens watched pages on one served site."""

    browser: Browser
    base_url: str
    _contexts: list[BrowserContext] = field(default_factory=list)

    def url(self, path: str = "") -> str:
        return self.base_url + path.lstrip("/")

    def new_page(
        self,
        viewport: ViewportSize | None = None,
        *,
        phone: bool = False,
        scheme: Literal["light", "dark"] = "light",
        javascript: bool = True,
        offline: bool = True,
    ) -> tuple[Page, PageProblems]:
        """A watched page in a context of its own; `offline=False` blocks the site's service worker (whose
        cache would answer before a test's `page.route`)."""
        workers: Literal["allow", "block"] = "allow" if offline else "block"
        if phone:
            context = self.browser.new_context(
                viewport=viewport or PHONE,
                color_scheme=scheme,
                reduced_motion="reduce",
                is_mobile=True,
                has_touch=True,
                device_scale_factor=2,
                java_script_enabled=javascript,
                service_workers=workers,
            )
        else:
            context = self.browser.new_context(
                viewport=viewport or DESKTOP,
                color_scheme=scheme,
                reduced_motion="reduce",
                java_script_enabled=javascript,
                service_workers=workers,
            )
        self._contexts.append(context)
        problems = PageProblems(origin=self.base_url)
        context.route(lambda url: (urlsplit(url).hostname or "") in STUBBED_HOSTS, _stub_fonts(problems))
        context.add_init_script(SEARCH_WORKER_WATCH)
        page = context.new_page()
        page.set_default_timeout(PATIENCE_MS)
        _watch(page, problems)
        return page, problems

    def close(self) -> None:
        while self._contexts:
            self._contexts.pop().close()


@pytest.fixture(scope="session")
def site_dir(built_site: Path) -> Path:
    """The repository's site: the one strict `mkdocs build` every test of the session reads."""
    return built_site


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    with serve(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium)", pytrace=False)
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=PATIENCE_MS)
    try:
        yield browser
    finally:
        browser.close()


def _browsing(browser: Browser, url: str) -> Iterator[Browsing]:
    browsing = Browsing(browser, url)
    try:
        yield browsing
    finally:
        browsing.close()


@pytest.fixture
def site(browser: Browser, site_url: str) -> Iterator[Browsing]:
    """Pages on the built repository site; every context opened in a test is closed after it."""
    yield from _browsing(browser, site_url)


def _zensical_site(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A project's site as `cadence build --engine zensical` builds it, served."""
    site = tmp_path_factory.mktemp("zensical") / "site"
    result = cadence_build(project, site, "zensical")
    if result.returncode != 0 or not (site / "index.html").is_file():
        pytest.fail(f"cadence build --engine zensical failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}", pytrace=False)
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def zensical_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The repository's site as `cadence build --engine zensical` builds it, served."""
    yield from _zensical_site(REPO, tmp_path_factory)


@pytest.fixture(scope="session")
def wasteland_zensical_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Wasteland Tactics example as `cadence build --engine zensical` builds it, served."""
    yield from _zensical_site(REPO / "examples" / "wasteland-tactics", tmp_path_factory)


@pytest.fixture
def zensical(browser: Browser, zensical_url: str) -> Iterator[Browsing]:
    """Pages on the repository's site built by Zensical."""
    yield from _browsing(browser, zensical_url)


@pytest.fixture
def wasteland_zensical(browser: Browser, wasteland_zensical_url: str) -> Iterator[Browsing]:
    """Pages on the Wasteland Tactics example built by Zensical."""
    yield from _browsing(browser, wasteland_zensical_url)


@pytest.fixture(scope="session")
def wasteland_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Wasteland Tactics example (a second, unrelated game), built once by a real `mkdocs build`."""
    return build_site(REPO / "examples" / "wasteland-tactics", tmp_path_factory.mktemp("wasteland") / "site")


@pytest.fixture(scope="session")
def wasteland_url(wasteland_dir: Path) -> Iterator[str]:
    with serve(wasteland_dir) as url:
        yield url


@pytest.fixture
def wasteland(browser: Browser, wasteland_url: str) -> Iterator[Browsing]:
    """Pages on the built Wasteland Tactics example."""
    yield from _browsing(browser, wasteland_url)


@pytest.fixture(scope="session")
def axe_script() -> str:
    """axe-core's browser build, installed by `npm ci` in tests/browser (package-lock.json pins it)."""
    path = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `npm ci` in tests/browser", pytrace=False)
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
