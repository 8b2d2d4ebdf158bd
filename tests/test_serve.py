"""Serving while editing: a broken save shows its located problems in the browser, a fix brings the page back."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
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


# --- `cadence serve` itself: killed, on a taken port, and given names it cannot stage -----------------


def _cadence_serve(project: Path, port: int, temporary: Path, log: Path) -> subprocess.Popen[bytes]:
    """The real `cadence serve` on `port`, in a session of its own (so a test can tell its processes), with its
    temporary folders in `temporary`."""
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=project,
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(temporary)},
            start_new_session=True,
        )


def _group(leader: int) -> list[int]:
    """The live processes of the process group `leader` leads (zombies, which hold nothing, left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, _parent, group = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
            except (OSError, IndexError):
                continue
            if int(group) == leader and state != "Z":
                found.append(int(entry.name))
    return found


def _until_true(test: Callable[[], bool], why: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {seconds} s: {why}")
        time.sleep(0.2)


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def _stopped_at_the_end(*processes: subprocess.Popen[bytes]) -> Iterator[None]:
    """Whatever the test found, every process of the sessions it started is gone when it ends."""
    try:
        yield
    finally:
        for process in processes:
            for pid in [process.pid, *_group(process.pid)]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            process.wait(timeout=30)


def test_a_serve_killed_takes_its_engine_with_it_and_the_next_one_tidies_up(tmp_path: Path) -> None:
    """`kill -9` of `cadence serve` left its engine serving a stale site on the port, and its staging folder; the next
    `cadence serve` then ended with a traceback. Now the engine ends with it, and the next one removes the folder."""
    project = copy_project(MINI, tmp_path / "mini")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    port = _free_port()
    first = _cadence_serve(project, port, temporary, tmp_path / "first.log")
    with _stopped_at_the_end(first):
        _until(f"http://127.0.0.1:{port}/index.html", "A test project.")
        assert [p for p in _group(first.pid) if p != first.pid], "the engine runs in the session"
        left = list(temporary.glob("cadence-serve-*"))
        assert len(left) == 1
        os.kill(first.pid, signal.SIGKILL)  # the command alone, as an out-of-memory killer would
        first.wait(timeout=30)
        _until_true(lambda: not _group(first.pid), f"the engine outlived its parent: {_group(first.pid)}")
        assert not _answers(port)
        assert left[0].is_dir()  # what the killed one could not remove
    second = _cadence_serve(project, port, temporary, tmp_path / "second.log")
    with _stopped_at_the_end(second):
        _until(f"http://127.0.0.1:{port}/index.html", "A test project.")
        assert not left[0].exists()
        assert len(list(temporary.glob("cadence-serve-*"))) == 1
        stop_process(second, timeout=30)
        assert second.returncode is not None
    assert "Traceback" not in (tmp_path / "second.log").read_text(encoding="utf-8", errors="replace")
    assert not list(temporary.glob("cadence-serve-*"))


def test_a_port_in_use_is_one_line_naming_it(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        result = subprocess.run(
            [sys.executable, "-m", "generator.cli", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(tmp_path)},
        )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"cadence: port {port} on 127.0.0.1 is in use (another server, or a 'cadence serve' still running); "
        f"stop it, or serve on another port with --dev-addr 127.0.0.1:{port + 1}\n"
    )
    assert not list(tmp_path.glob("cadence-serve-*"))


def test_a_saved_name_the_site_cannot_carry_shows_in_the_browser_and_serving_goes_on(tmp_path: Path) -> None:
    """A content file named with 250 bytes, or with bytes that are not UTF-8, ended `cadence serve` (ENAMETOOLONG,
    UnicodeEncodeError); now each shows as a located problem on the page, which comes back once it is gone."""
    project = copy_project(MINI, tmp_path / "mini")
    port = _free_port()
    process = _cadence_serve(project, port, tmp_path, tmp_path / "serve.log")
    page = f"http://127.0.0.1:{port}/index.html"
    with _stopped_at_the_end(process):
        _until(page, "A test project.")
        for name, code in ((b"a" * 247 + b".md", "error[unsafe-path]"), (b"caf\xe9.md", "error[encoding]")):
            path = os.fsencode(project / "content") + b"/" + name
            with open(path, "wb") as handle:
                handle.write(b"# A page\n")
            shown = _until(page, code)
            assert "<code>content/" in shown and "A test project." not in shown
            assert process.poll() is None
            os.unlink(path)
            _until(page, "A test project.")
        assert process.poll() is None
    assert "Traceback" not in (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace")
