"""Publishing the built site: every file with the permissions the umask gives, and no moment without a complete site.

The swap is watched from inside a real `cadence build`: an audit hook (`sys.addaudithook`, set by the test's own
wrapper, nothing in the generator) sees each step that touches the output folder (a rename, the exchange (renameat2,
wrapped to be seen), the removal of the old site) just before it runs, and the build SIGKILLs itself there. Killing it before
step 0, 1, 2 … in turn inspects the site after every step of the swap: each is the old site or the new one whole.
A build killed at random moments from outside must leave the same.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from generator.publish import recover_output
from generator.search_index import INDEX, ZENSICAL_INDEX

from .conftest import MINI, copy_project

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

#: Runs `cadence build` with an audit hook that numbers the steps of the swap (each event that names the output
#: folder, and every file-system step after the first), logs each before it runs, and SIGKILLs the build just
#: before step `kill_at`. With `no_exchange`, the two-rename swap that stands in where the exchange is refused.
KILLED_AT_STEP = r"""
import os, signal, sys
project, out, log, kill_at, no_exchange = sys.argv[1:6]
out = os.path.abspath(out)
main, steps = os.getpid(), []
SWAP_EVENTS = ("os.rename", "renameat2", "shutil.rmtree")

def names_output(args):
    for arg in args:
        if isinstance(arg, tuple) and names_output(arg):
            return True
        if isinstance(arg, (str, bytes, os.PathLike)) and os.path.abspath(os.fsdecode(arg)) == out:
            return True
    return False

def hook(event, args):
    if os.getpid() != main or event not in SWAP_EVENTS or not (steps or names_output(args)):
        return
    steps.append(event)
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(event + "\n")
    if len(steps) - 1 == int(kill_at):
        os.kill(main, signal.SIGKILL)

import generator.publish as publish
renameat2 = None if no_exchange == "1" else publish._renameat2()
def exchange(*args):  # a call through ctypes raises no audit event of its own
    sys.audit("renameat2", *args)
    return renameat2(*args)
publish._renameat2 = lambda: exchange if renameat2 else None
sys.addaudithook(hook)
from generator.cli import main as cadence
sys.exit(cadence(["-C", project, "build", "--quiet", "--site-dir", out]))
"""


def _build(project: Path, umask: int | None = None, engine: str = "mkdocs") -> None:
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet", "--engine", engine]
    result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600, umask=-1 if umask is None else umask)
    assert result.returncode == 0, result.stderr


def _modes(site: Path) -> dict[str, tuple[str, int]]:
    """Every entry of the site (the folder itself as ''), as its kind and its permission bits."""
    modes = {"": ("folder", stat.S_IMODE(os.stat(site).st_mode))}
    for path in site.rglob("*"):
        info = os.lstat(path)
        modes[path.relative_to(site).as_posix()] = ("folder" if stat.S_ISDIR(info.st_mode) else "file", stat.S_IMODE(info.st_mode))
    return modes


BUILDS = [
    ("cadence", "mkdocs", 0o022),
    ("cadence", "mkdocs", 0o027),
    ("cadence", "zensical", 0o022),
    ("cadence", "zensical", 0o027),
    ("plugin", "mkdocs", 0o027),
]


@pytest.mark.parametrize(("command", "engine", "umask"), BUILDS, ids=[f"{c}-{e}-{u:03o}" for c, e, u in BUILDS])
def test_every_file_of_the_built_site_has_the_permissions_the_umask_gives(command: str, engine: str, umask: int, tmp_path: Path) -> None:
    """The search index (merged by the generator after the engine) was 0o600 whatever the umask: a web server
    running as another user answered 404 for it, and search and the offline copy did not work."""
    project = copy_project(MINI, tmp_path / "mini")
    site = project / "site"
    if command == "plugin":
        run = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(site)]
        result = subprocess.run(run, cwd=project, capture_output=True, text=True, env=ENV, timeout=600, umask=umask)
        assert result.returncode == 0, result.stderr
    else:
        _build(project, umask, engine)
    modes = _modes(site)
    index = INDEX if engine == "mkdocs" else ZENSICAL_INDEX
    wanted = {"file": 0o666 & ~umask, "folder": 0o777 & ~umask}
    assert f"{modes[index][1]:o} {modes['sw.js'][1]:o}" == f"{wanted['file']:o} {wanted['file']:o}"  # the files the generator writes
    wrong = {path: f"{kind} {mode:o}" for path, (kind, mode) in modes.items() if mode != wanted[kind]}
    print(f"\n{command} {engine} umask {umask:03o}: {len(modes)} entries, {len(wrong)} with other permissions")
    assert wrong == {}


def _snapshot(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _edited(project: Path, marker: str) -> None:
    """A change to the home page, so the new site differs from the old one."""
    page = project / "content/index.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")


def _old_or_new_whole(site: Path, before: dict[str, bytes], marker: str) -> str:
    """'old' or 'new' if the site is the one before the build or the new one whole (every file the old had,
    the change in its home page); fails the test otherwise."""
    assert (site / "index.html").is_file(), "no site"
    after = _snapshot(site)
    if after == before:
        return "old"
    assert sorted(after) == sorted(before), "a site with other files than a whole one"
    assert marker in after["index.html"].decode("utf-8"), "a site changed, but not to the new one"
    return "new"


def _killed_at(project: Path, kill_at: int, *, no_exchange: bool = False) -> tuple[int, list[str]]:
    """A build killed just before step `kill_at` of its swap: its exit code and the steps it began."""
    log = project.parent / f"steps-{kill_at}.log"
    argv = [str(project), str(project / "site"), str(log), str(kill_at), "1" if no_exchange else "0"]
    result = subprocess.run([sys.executable, "-c", KILLED_AT_STEP, *argv], capture_output=True, text=True, env=ENV, timeout=600)
    steps = log.read_text(encoding="utf-8").split() if log.exists() else []
    assert result.returncode in (0, -signal.SIGKILL), result.stderr
    return result.returncode, steps


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's; elsewhere the two-rename swap is tested")
def test_a_build_killed_before_any_step_of_the_swap_leaves_the_old_site_or_the_new_whole(tmp_path: Path) -> None:
    """Each step of the swap, in turn, is the last a build takes: the site after every step is whole. With two
    renames the build killed between them left no site at all until the next build."""
    project = copy_project(MINI, tmp_path / "mini")
    _build(project)
    seen: list[str] = []
    for kill_at in range(6):
        before, marker = _snapshot(project / "site"), f"Published whole, build {kill_at}."
        _edited(project, marker)
        code, steps = _killed_at(project, kill_at)
        seen.append(f"killed before step {kill_at}: {_old_or_new_whole(project / 'site', before, marker)}" if code else "finished")
        if code == 0:
            break
    print(f"\nswap steps {steps}; {seen}")
    assert seen[-1] == "finished" and steps[0] == "renameat2"  # the exchange, one step
    assert not list(project.glob(".site*"))


def test_where_the_folders_cannot_be_exchanged_the_next_build_puts_back_the_site_a_killed_one_took_away(tmp_path: Path) -> None:
    """The two-rename swap: killed between its renames, the output folder is missing; `recover_output` (run at
    the start of the next build) puts the old site back."""
    project = copy_project(MINI, tmp_path / "mini")
    _build(project)
    before = _snapshot(project / "site")
    _edited(project, "Published whole.")
    code, steps = _killed_at(project, 1, no_exchange=True)
    assert code == -signal.SIGKILL and steps == ["os.rename", "os.rename"]
    assert not (project / "site").exists()  # the moment the exchange leaves out
    recover_output(project / "site")
    assert _snapshot(project / "site") == before
    _build(project)
    assert _old_or_new_whole(project / "site", before, "Published whole.") == "new"
    assert not list(project.glob(".site*"))


class _Watcher(threading.Thread):
    """Looks for the site's home page every half millisecond until stopped: how often it looked, and missed it."""

    def __init__(self, site: Path) -> None:
        super().__init__(daemon=True)
        self.page, self.looks, self.missing = site / "index.html", 0, 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            self.looks += 1
            self.missing += not self.page.is_file()
            time.sleep(0.0005)


def test_a_build_killed_at_random_moments_leaves_the_old_site_or_the_new_whole(tmp_path: Path) -> None:
    """Real kills of the whole build (staging, engine, post-build steps, swap) from outside, spread over the
    time a build takes and past its end: after each, the site is the old one or the new one whole, and a
    watcher looking for the home page all along never missed it."""
    project = copy_project(MINI, tmp_path / "mini")
    started = time.monotonic()
    _build(project)
    took = time.monotonic() - started
    chance = random.Random()
    moments = [took * (i + chance.random()) * 0.3 for i in range(5)]  # one in each fifth of 1.5 builds
    seen = []
    watcher = _Watcher(project / "site")
    watcher.start()
    try:
        for i, moment in enumerate(moments):
            before, marker = _snapshot(project / "site"), f"Published whole, build {i}."
            _edited(project, marker)
            code = _killed_after(project, moment)
            seen.append(f"{moment:.2f}s: {'killed' if code else 'finished'}, {_old_or_new_whole(project / 'site', before, marker)}")
    finally:
        watcher.stopped.set()
        watcher.join()
    print(f"\na build takes {took:.2f}s; {seen}; the home page missing at {watcher.missing} of {watcher.looks} looks")
    assert watcher.looks > 1000 and watcher.missing == 0


def _killed_after(project: Path, moment: float) -> int:
    """A build SIGKILLed, with everything it started, `moment` seconds after it starts (unless it ended before)."""
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet"]
    process = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        return process.wait(timeout=moment)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # it may have ended just now
            os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


def test_a_file_system_that_refuses_the_exchange_gets_the_two_renames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """renameat2 answers EINVAL where a file system cannot exchange (some network and FUSE ones): the swap then
    takes the two renames instead of failing the build."""
    import ctypes

    from generator import publish

    def refused(*_: object) -> int:
        ctypes.set_errno(errno.EINVAL)
        return -1

    monkeypatch.setattr(publish, "_renameat2", lambda: refused)
    built, out, aside = tmp_path / "built", tmp_path / "site", tmp_path / ".site-old"
    for folder, text in ((built, "new"), (out, "old")):
        folder.mkdir()
        (folder / "index.html").write_text(text, encoding="utf-8")
    publish.swap_in(built, out, aside)
    assert (out / "index.html").read_text(encoding="utf-8") == "new"
    assert not built.exists() and not aside.exists()
