"""Serving while editing: a broken save shows its located problems in the browser, a fix brings the page back."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from generator import serve_errors
from generator.cli import stop_process
from generator.problems import Location, error
from generator.report import NOT_CHECKED
from generator.serve_errors import error_page, wait_until_stable
from generator.serve_watch import Wakeup

from .conftest import MINI, copy_project


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Seconds a wait for the server may take before the test gives up: only a stuck server takes this long, a server
#: on a busy machine (other tests' builds and browsers beside it) can take a minute to start or to rebuild.
PATIENCE = 300


def _get(url: str) -> tuple[int, str]:
    """One request; a request the server holds for more than a minute fails the test (no hung requests)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def _until(url: str, wanted: str, seconds: float = PATIENCE) -> str:
    deadline = time.monotonic() + seconds
    body = ""
    while time.monotonic() < deadline:
        try:
            status, body = _get(url)
        except (urllib.error.URLError, ConnectionError):
            status = 0
        if status == 200 and wanted in body:
            return body
        time.sleep(0.3)
    raise AssertionError(f"{url} never showed {wanted!r}; last body:\n{body[:2000]}")


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """`mkdocs serve` on an ephemeral port over a copy of the mini project; always stopped."""
    project = copy_project(MINI, tmp_path / "mini")
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    try:
        yield project, f"http://127.0.0.1:{port}"
    finally:
        stop_process(process, timeout=30)
        log.close()


def test_a_broken_save_shows_located_problems_and_a_fix_brings_the_page_back(served: tuple[Path, str]) -> None:
    project, base = served
    page = f"{base}/skirmish/army-lists/rangers.html"
    _until(page, "Ranger Captain")
    data = project / "data/skirmish/army-lists/rangers.yaml"
    good = data.read_text(encoding="utf-8")
    data.write_text(good.replace("lists: [Sidearms]", "lists: [Sidearmz]"), encoding="utf-8")
    broken = _until(page, "error[unknown-weapon-list]")
    assert (
        "<code>data/skirmish/army-lists/rangers.yaml:24:28</code> error[unknown-weapon-list]: unit &#x27;Ranger Squad&#x27; names "
        "weapon list &#x27;Sidearmz&#x27;, which does not exist in Rangers, Skirmish, Core Rules (hint: did you mean &#x27;Sidearms&#x27;?)"
    ) in broken
    assert "livereload" in broken  # the error page reloads by itself once the data is fixed
    assert "Ranger Captain" not in broken
    assert re.search(r"<p>1 error, \d+ warnings?\. Fix them and save", broken), "every check ran: nothing more to come"
    status, other = _get(f"{base}/core/rules.html")  # every page shows the problems, none hangs
    assert status == 200 and "error[unknown-weapon-list]" in other
    data.write_text(good, encoding="utf-8")
    fixed = _until(page, "Ranger Captain")
    assert "rules-problems" not in fixed


def test_an_unparsable_save_is_one_located_problem_in_the_browser(served: tuple[Path, str]) -> None:
    project, base = served
    _until(f"{base}/index.html", "Mini Rules")
    system = project / "data/system.yaml"
    good = system.read_text(encoding="utf-8")
    system.write_text(good.replace("  id: mini\n", "  id: [mini\n"), encoding="utf-8")
    broken = _until(f"{base}/index.html", "error[yaml]")
    assert "<code>data/system.yaml:3:" in broken
    assert f"1 error, 0 warnings; {NOT_CHECKED}. Fix them and save" in broken  # more may come once it reads
    system.write_text(good, encoding="utf-8")
    _until(f"{base}/index.html", "A test project.")


def test_files_still_being_written_are_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that grows between two looks is waited for. The writer adds a line while the wait sleeps before
    each of its next eight looks (its pause between looks, not the clock, paces the writer: the same on a busy
    machine); it must return only after the last line, with the whole file."""
    target = tmp_path / "data" / "list.yaml"
    target.parent.mkdir()
    target.write_text("army_list:\n")
    finished: list[float] = []
    lines = iter(range(8))

    def write_while_it_sleeps(seconds: float) -> None:
        index = next(lines, None)
        if index is None:
            return
        with target.open("a") as handle:
            handle.write(f"  line{index}: {index}\n")
        if index == 7:
            finished.append(time.monotonic())

    monkeypatch.setattr(serve_errors, "time", SimpleNamespace(sleep=write_while_it_sleeps, monotonic=time.monotonic))
    assert wait_until_stable([tmp_path / "data"], settle=0.3, timeout=PATIENCE)
    returned = time.monotonic()
    assert finished and returned >= finished[0]
    assert target.read_text().count("\n") == 9


def test_a_save_wakes_the_serve_loop_and_a_read_does_not(tmp_path: Path) -> None:
    """The loop waits for a file event, not its next look: a write (in a folder made after the start too, and
    mkdocs.yml) ends the wait; the staging reading the data does not."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "system.yaml").write_text("system:\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n")
    with Wakeup(tmp_path, ["data", "content"]) as wakeup:
        assert wakeup.watching
        (data / "system.yaml").read_text()
        assert not wakeup.wait(1.0)
        for write in (
            lambda: (data / "system.yaml").write_text("system:\n  id: x\n"),
            lambda: (data / "army-lists").mkdir(),
            lambda: (data / "army-lists" / "new.yaml").write_text("army_list:\n"),
            lambda: (tmp_path / "mkdocs.yml").write_text("site_name: u\n"),
        ):
            time.sleep(0.2)  # the watch on a new folder is added from its creation event
            threading.Timer(0.1, write).start()
            assert wakeup.wait(30)
            while wakeup.wait(0.3):  # the rest of this write's events
                pass
    assert not wakeup.watching


def test_the_error_page_shows_data_as_text() -> None:
    problem = error(Location("data/a.yaml", 2, 3), "unknown-rule", "rule '<script>alert(1)</script>\n# Forged' does not exist")
    page = error_page([problem])
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\n# Forged" in page
    assert page.count("\n# ") == 0 and page.startswith("# The rules data has problems\n")
