"""The built site deployed: served by a web server that runs as another user, search and the offline copy work.

A web server seldom runs as the user who built the site (nor does whoever gets it through `rsync -a`, `tar` or a
Docker `COPY`): a file only its owner may read is a 404 there. The site is built by `cadence build` under umask
022 in a folder any user may enter, and served by `http.server` as `nobody` (the server binds its port, then
drops to that user before it serves a file). Run by a user who cannot switch users, the server stands in for
another user by refusing what the permissions do not let others read or enter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from generator.offline import site_files

from ..conftest import MINI, copy_project
from .conftest import Browsing

#: Serves a folder on 127.0.0.1 (the port it got printed first) as `nobody` when started as root; otherwise it
#: answers 404 for a file others may not read, or one in a folder others may not enter, as such a server would.
SERVER = r"""
import functools, http.server, mimetypes, os, pwd, stat, sys
root = os.path.realpath(sys.argv[1])

class AsOthers(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_head(self):
        if os.getuid() != 0 and not self.others_may_read(self.translate_path(self.path)):
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    @staticmethod
    def others_may_read(path):
        path = os.path.realpath(path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not os.path.exists(path):
            return True  # answered 404 as it is
        if not os.stat(path).st_mode & stat.S_IROTH:
            return False
        folder = os.path.dirname(path)
        while folder.startswith(root):
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
            folder = os.path.dirname(folder)
        return True

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(AsOthers, directory=root))
mimetypes.init()  # read now: nothing is imported or read but the site's files once the server is nobody
if os.getuid() == 0:
    nobody = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)
print(server.server_address[1], flush=True)
server.serve_forever()
"""

ACTIVE = """() => Promise.race([
  navigator.serviceWorker.ready.then(registration => Boolean(registration.active)),
  new Promise(resolve => setTimeout(() => resolve(false), 20000)),
])"""

#: How many files the site's offline cache holds.
CACHED = """() => caches.keys().then(keys => Promise.all(keys.filter(key => key.startsWith("cadence-offline-"))
  .map(key => caches.open(key).then(cache => cache.keys())))).then(lists => lists.reduce((n, list) => n + list.length, 0))"""


@pytest.fixture(params=["mkdocs", "zensical"])
def deployed(request: pytest.FixtureRequest) -> Iterator[tuple[str, Path, str]]:
    """The mini project built by `cadence build --engine …` under umask 022, served as another user: the
    engine, the site folder and its URL."""
    engine = str(request.param)
    # pytest's own temporary folders only their owner may enter; this one (and so the site) anyone may
    folder = Path(tempfile.mkdtemp(prefix="cadence-deployed-"))
    try:
        os.chmod(folder, 0o755)
        project = copy_project(MINI, folder / "mini")
        command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet", "--engine", engine]
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=600, umask=0o022, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        )
        assert result.returncode == 0, result.stderr
        with _Served(project / "site") as url:
            yield engine, project / "site", url
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Served:
    """`SERVER` on a site, as a context: its URL."""

    def __init__(self, site: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", SERVER, str(site)], stdout=subprocess.PIPE, text=True)

    def __enter__(self) -> str:
        assert self.process.stdout is not None
        port = self.process.stdout.readline().strip()
        assert port.isdigit(), "the server did not start"
        return f"http://127.0.0.1:{port}/"

    def __exit__(self, *_: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        assert self.process.stdout is not None
        self.process.stdout.close()


def _searched(page: Page, engine: str, url: str) -> None:
    """Type a unit's name into the engine's search, as a reader does, and wait for its entry."""
    page.goto(url, wait_until="load")
    if engine == "mkdocs":
        box = page.locator("input.md-search__input")
        box.click()
        box.press_sequentially("Ranger Squad", delay=30)
        results = page.locator("ol.md-search-result__list > li.md-search-result__item")
    else:
        page.locator("button.md-search__button").click()
        page.keyboard.type("Ranger Squad", delay=30)
        results = page.locator("ol[role=listbox] a[role=option]")
    expect(results.first).to_contain_text("Ranger Squad", timeout=20_000)


@pytest.mark.browser
def test_search_and_the_offline_copy_work_served_by_another_user(browser: Browser, deployed: tuple[str, Path, str]) -> None:
    """With the search index readable only by its owner the server answered 404 for it: the search box stayed
    on "Initializing search" and the service worker, which caches every file or none, never installed."""
    engine, site, url = deployed
    browsing = Browsing(browser, url)
    try:
        page, problems = browsing.new_page()
        page.goto(browsing.url("index.html"), wait_until="load")
        assert page.evaluate(ACTIVE) is True, f"the service worker did not install: {problems.all()}"
        cached, files = page.evaluate(CACHED), len(site_files(site))
        print(f"\n{engine}: {cached} of {files} files in the offline cache, served as {'nobody' if os.getuid() == 0 else 'others'}")
        assert cached == files
        page.context.set_offline(True)
        response = page.goto(browsing.url("skirmish/army-lists/rangers.html"), wait_until="load")
        assert response is not None and response.ok and response.from_service_worker
        _searched(page, engine, browsing.url("skirmish/army-lists/rangers.html"))  # offline: the index comes from the cache
        page.context.set_offline(False)
        online, online_problems = browsing.new_page(offline=False)  # the index from the server, not the cache
        _searched(online, engine, browsing.url("index.html"))
        assert problems.all() == [] and online_problems.all() == []
    finally:
        browsing.close()
