"""The `cadence` command: the same pipeline as the plugin, from a terminal.

Exit codes: 0 clean, 1 problems found, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from .problems import DataError, Problem, Severity, unreadable_project
from .publish import alive, aside_name, recover_output, swap_in
from .report import FORMATS, format_problems

if TYPE_CHECKING:
    from .catalogue import Project
    from .incremental import PageCache
    from .serve_search import ServedSearch

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
#: While serving, how often the loop looks for the engine's new search index, and for edits no watcher reported.
LOOK_INTERVAL_S = 0.3


def _project_root(path: str | None) -> Path:
    return Path(path or ".").resolve()


def _data_dir(root: Path, follow_outside_links: bool = False) -> tuple[str, str]:
    """The data and content folders named in the project's mkdocs.yml, or the defaults."""
    from .project_config import read_folders

    return read_folders(root, follow_outside_links=follow_outside_links)


def cmd_check(args: argparse.Namespace) -> int:
    from . import cache

    root = _project_root(args.project)
    if not (root / "mkdocs.yml").is_file():
        print(f"cadence: no mkdocs.yml in {root}; run this in a rules project", file=sys.stderr)
        return EXIT_USAGE
    # An unchanged project is answered from the cache before the parser, model and checks are imported.
    memo = None
    if cache.enabled() and not args.as_published:
        memo = cache.check_memo(root, (args.format, str(args.strict), str(args.follow_outside_links)))
        answer = memo.answer()
        if answer is not None:
            if answer[0]:
                print(answer[0])
            return int(answer[1])
    from .project_config import read_folders

    data_dir, content_dir = read_folders(root, follow_outside_links=args.follow_outside_links)
    if memo is not None:
        memo.start(data_dir, content_dir)
    from .loader import collector_paused

    # Paused over the imports and the whole check, and resumed once `_check` has returned and its
    # project is freed: resumed inside `load_project`, the collector's first pass walks the whole
    # loaded project while it is still alive (a tenth of a check's time at 10x the shipped data).
    with collector_paused():
        output, code = _check(args, root, data_dir, content_dir)
    if memo is not None and code != EXIT_USAGE:
        memo.store(data_dir, content_dir, (output, code))
    return code


def _check(args: argparse.Namespace, root: Path, data_dir: str, content_dir: str) -> tuple[str, int]:
    """Load and check the project; print the problems and return what was printed and the exit code."""
    # Imported by the commands that load a project: `cadence build` and `serve` load it in the staging step.
    from . import cache
    from .errata import apply_as_published
    from .pages import load_project

    notes: list[str] = []
    with contextlib.ExitStack() as scratch:
        check_root = root
        if args.as_published:  # a scratch copy only for this: a plain check makes no folder
            folder = Path(scratch.enter_context(tempfile.TemporaryDirectory(prefix="cadence-check-")))
            check_root, notes = apply_as_published(root, folder, data_dir, content_dir)
        # The checks' problems are kept for `cadence build` of the unchanged project (not those of --as-published).
        checked = None if args.as_published or not cache.enabled() else cache.checks_memo(root, args.follow_outside_links)
        loaded = load_project(
            check_root,
            data_dir,
            content_dir,
            check_patches=not args.as_published,
            allow_outside_links=args.follow_outside_links,
            checked=checked,
        )
    for note in notes:
        print(note, file=sys.stderr)
    problems = loaded.problems
    output = format_problems(problems, args.format, checked=loaded.checked)
    if output:
        print(output)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if unreadable_project(errors, loaded.project is not None):
        return output, EXIT_USAGE
    if errors or (args.strict and problems):
        return output, EXIT_PROBLEMS
    return output, EXIT_CLEAN


def _engine_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment staging and the engine run in: the plugin and staging read `--follow-outside-links` from it."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if getattr(args, "follow_outside_links", False):
        env["CADENCE_FOLLOW_OUTSIDE_LINKS"] = "1"  # staging.FOLLOW_OUTSIDE_LINKS
    return env


#: The engines that build a staged site (MkDocs 1.6, its maintained fork ProperDocs, and Zensical), each
#: with its command's entry point, as its package declares it in `console_scripts`.
ENGINE_COMMANDS = {"mkdocs": "mkdocs.__main__:cli", "properdocs": "properdocs.__main__:cli", "zensical": "zensical.main:cli"}
ENGINES = tuple(ENGINE_COMMANDS)
#: The engines that read the navigation from the docs folder (`staging.NAV_FILE`, Zensical's built-in
#: awesome-nav): a module's new title then leaves the config as it was, and Zensical re-renders each page's
#: navigation instead of every page from its Markdown (at 10x the shipped data 6 s instead of 12).
NAV_IN_DOCS = frozenset({"zensical"})
#: Engines that run the hooks a config names (Zensical runs none).
RUNS_HOOKS = frozenset({"mkdocs", "properdocs"})


def engine_arguments(action: str, config_file: Path, *extra: str) -> list[str]:
    """The engine's own arguments on a staged config (`build -f …`, `serve -f …`), the same for every engine."""
    return [action, "--config-file", str(config_file), *extra]


def engine_command(engine: str, action: str, config_file: Path, *extra: str) -> list[str]:
    """The engine's command in a new interpreter: `cadence serve` runs it beside its own re-staging, as a child
    that ends when this process ends, even killed (`serve_engine`)."""
    return [sys.executable, "-m", "generator.serve_engine", str(os.getpid()), engine, *engine_arguments(action, config_file, *extra)]


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


def _engine_flags(args: argparse.Namespace) -> list[str]:
    return [*(["--strict"] if args.strict else []), *(["--quiet"] if args.quiet and args.engine != "zensical" else [])]


#: In a kept staging folder while a build works in it: found there at the start of the next, the build was
#: killed part way and the folder is emptied (an engine's own cache in it may be half-written).
UNFINISHED = ".unfinished"


@contextlib.contextmanager
def staging_folder(root: Path, out: Path) -> Iterator[Path]:
    """The folder a build stages its site in and runs the engine in.

    One kept in the user's cache from one build of the project to the next (`cache.staging_dir`): staging
    then rewrites only the files that changed, and Zensical finds its own cache there (at 10x its build after
    an edit took two fifths of the time of one in a new folder). A build gets a folder of its own beside the
    output instead, removed when it ends, when another build holds the kept one, when the cache is off or
    on another file system than the output (the built site is moved in place by a rename), or on a system
    without file locks.
    """
    lock = _kept_staging(root, out)
    if lock is None:
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}-building-{os.getpid()}-", dir=out.parent))
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    with lock:
        kept = Path(lock.name).parent
        marker = kept / UNFINISHED
        if marker.exists():  # a build was killed in it: start afresh
            for entry in kept.iterdir():
                if entry.name != ".lock":
                    _remove(entry)
        marker.touch()
        _remove(kept / "site")  # the engine's output of a build that did not swap it in
        yield kept
        marker.unlink()  # not when a signal or an error ended the build: the next one starts afresh


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _kept_staging(root: Path, out: Path) -> IO[str] | None:
    """The lock of the project's kept staging folder, held until closed (forked steps share it); None when
    the build must stage in a folder of its own."""
    from . import cache

    try:
        import fcntl
    except ImportError:  # Windows
        return None
    if not cache.enabled():
        return None
    try:
        kept = cache.staging_dir(root, out)
        kept.mkdir(parents=True, exist_ok=True)
        if os.stat(kept).st_dev != os.stat(out.parent).st_dev:
            return None
        handle = open(kept / ".lock", "a", encoding="utf-8")  # noqa: SIM115 - closed by the caller's `with`
    except OSError:  # no cache folder, or a read-only one
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.utime(handle.name)  # used now: pruned after a month unused
    except OSError:
        handle.close()
        return None
    return handle


def stop_process(process: Child | None, timeout: float) -> None:
    """Stop a child that is still running, politely first: an engine killed at once can leave its files half-written."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Child(Protocol):
    """What `cadence build` needs of a step running apart: `subprocess.Popen`'s poll, wait, terminate and kill."""

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


#: Libraries both the generator and every engine import: a forked step finds them imported already.
SHARED_LIBRARIES = ("jinja2", "markdown", "yaml")


class Forked:
    """A step run as a fork of this process, with Popen's interface: no second interpreter starts and the
    libraries this process imported are not imported again, yet the step's memory still goes back to the
    system when it ends."""

    def __init__(self, command: str, argv: list[str], cwd: Path | None, env: dict[str, str], output: IO[bytes] | None = None) -> None:
        import multiprocessing

        self.args = [command, *argv]
        fork = multiprocessing.get_context("fork")
        self._process = fork.Process(target=_run_command, args=(command, argv, cwd, env, output.fileno() if output else None))
        self._process.start()

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self._process.exitcode

    def terminate(self) -> None:
        self._process.terminate()

    def kill(self) -> None:
        self._process.kill()


def _run_command(command: str, argv: list[str], cwd: Path | None, env: dict[str, str], output: int | None) -> None:
    """In the forked child: the command's entry point on ARGV, in the environment the parent chose; its
    standard output and error go to the file `output` when the parent gave one."""
    if output is not None:  # both what Python prints and what an engine's own code writes to the descriptors
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(output, 1)
        os.dup2(output, 2)
        sys.stdout = sys.stderr = open(output, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115 (the step's for life)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)  # not the parent's handlers: a signal ends the step at once
    if cwd is not None:
        os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = [command.split(".")[0], *argv]  # click names the program after it
    sys.exit(run_entry(command, argv))


def run_entry(command: str, argv: list[str]) -> int:
    """COMMAND's entry point (`module:function`) on ARGV, as a step of `cadence build` runs it: an I/O error
    (a full disk) is one line and exit 2, as in this process, not a traceback."""
    module, _, function = command.partition(":")
    try:
        return int(getattr(importlib.import_module(module), function)(argv) or 0)
    except OSError as exc:
        print(io_error(exc), file=sys.stderr)
        return EXIT_USAGE


#: Errors of a write that found no room: a full disk or quota, or a file larger than the system allows.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def io_error(exc: OSError) -> str:
    """An I/O error as one line; for a write that found no room, the file it was writing."""
    written = exc.filename2 if exc.filename2 is not None else exc.filename  # a copy's target, or the file
    if exc.errno in NO_ROOM and written is not None:
        return f"cadence: cannot write {written}: {exc.strerror}"
    return f"cadence: {exc}"


def run_apart(command: str, argv: list[str], env: dict[str, str], cwd: Path | None = None, output: IO[bytes] | None = None) -> Child:
    """Start COMMAND (an entry point, `module:function`, called with ARGV) in a process of its own: forked
    where the system forks safely (Linux; macOS's system libraries may not survive a fork), else in a new
    interpreter. `output`: a file that takes what it prints, instead of this process's output."""
    if sys.platform.startswith("linux"):
        for library in SHARED_LIBRARIES:
            importlib.import_module(library)
        return Forked(command, argv, cwd, env, output)
    code = f"import sys; from generator.cli import run_entry; sys.exit(run_entry({command!r}, sys.argv[1:]))"
    errors = None if output is None else subprocess.STDOUT  # with its output, or as this process's
    return subprocess.Popen([sys.executable, "-c", code, *argv], cwd=cwd, env=env, stdout=output, stderr=errors)


def cmd_build(args: argparse.Namespace) -> int:
    """Stage the whole site, build it with the chosen engine in the staging folder (`staging_folder`), and
    swap it in only when everything succeeded. A failed or killed build leaves the previous site as it was.
    """
    root = _project_root(args.project)
    if not (root / "mkdocs.yml").is_file():
        print(f"cadence: no mkdocs.yml in {root}; run this in a rules project", file=sys.stderr)
        return EXIT_USAGE
    _data_dir(
        root, args.follow_outside_links
    )  # a mkdocs.yml that cannot be read as settings is told here (DataError), not in the staging step
    out = (root / args.site_dir).resolve() if not Path(args.site_dir).is_absolute() else Path(args.site_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    recover_output(out)
    with staging_folder(root, out) as work:
        return _build_in(args, root, out, work)


def _build_in(args: argparse.Namespace, root: Path, out: Path, work: Path) -> int:
    """Stage into `work`, run the engine there, run the post-build steps and swap the site in."""
    from .postbuild import BuildContext, PostBuildError, run
    from .staging import SEARCH_FILE

    built = work / "site"
    process: Child | None = None

    def stop(signum: int, _frame: object) -> None:
        # No waiting here: the interrupted wait() holds its lock. The finally below reaps the child.
        if process is not None and process.poll() is None:
            process.terminate()
        raise SystemExit(128 + signum)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    failed = "cadence: build failed; the previous site was left as it was"
    env = _engine_env(args)
    try:
        # Staging and the engine each run in a process of their own: the generator's memory is freed
        # before the engine starts, and this process stays as it was for the post-build steps.
        # Left by staging for the post-build step, which adds them to any engine's search index
        # (Material's or Zensical's: `postbuild.add_search_entries`).
        entries = work / SEARCH_FILE
        flags = [*(["--strict"] if args.strict else []), *(["--nav-file"] if args.engine in NAV_IN_DOCS else [])]
        staging = [str(root), str(work), "--search-entries", str(entries), *flags]
        process = run_apart("generator.staging:main_apart", staging, env)
        code = process.wait()
        if code != 0:
            print(failed, file=sys.stderr)
            return EXIT_USAGE if code == EXIT_USAGE else EXIT_PROBLEMS
        with _held_output(args) as held:
            command = engine_arguments("build", work / "mkdocs.yml", *_engine_flags(args))
            process = run_apart(ENGINE_COMMANDS[args.engine], command, env, cwd=work, output=held)
            code = process.wait()
            if code != 0 or not built.is_dir():
                _show(held)
                print(failed, file=sys.stderr)
                return EXIT_USAGE if code == EXIT_USAGE else EXIT_PROBLEMS  # EXIT_USAGE: an I/O error (`run_entry`)
        try:
            context = BuildContext(root, args.engine, follow_outside_links=args.follow_outside_links, search_file=entries)
            run(built, context)
        except PostBuildError as exc:
            print(f"cadence: {exc}", file=sys.stderr)
            print(failed, file=sys.stderr)
            return EXIT_PROBLEMS
        swap_in(built, out, aside_name(out, work))
        if not args.quiet:  # the engine named the staging folder it built in; the site is here
            print(f"cadence: the site is in {_shown(out)}", file=sys.stderr)
        return EXIT_CLEAN
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        stop_process(process, timeout=30)


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to where they are when it is inside, else absolute."""
    try:
        return f"{path.relative_to(Path.cwd())}{os.sep}"
    except ValueError:
        return f"{path}{os.sep}"


@contextlib.contextmanager
def _held_output(args: argparse.Namespace) -> Iterator[IO[bytes] | None]:
    """With `--quiet`, a file that holds what an engine without a quiet option (Zensical) prints: shown
    only if its build fails, as MkDocs' `--quiet` shows only errors. None otherwise: it prints as it goes."""
    if not (args.quiet and args.engine == "zensical"):
        yield None
        return
    with tempfile.TemporaryFile() as held:
        yield held


def _show(held: IO[bytes] | None) -> None:
    if held is not None:
        held.seek(0)
        sys.stderr.write(held.read().decode("utf-8", "replace"))


def _snapshot(root: Path, folders: Sequence[str]) -> dict[str, float]:
    """Modification times of every file under the watched folders (a change adds, removes or retimes one)."""
    times: dict[str, float] = {}
    for folder in folders:
        for path in (root / folder).rglob("*") if (root / folder).is_dir() else ():
            try:
                times[str(path)] = path.stat().st_mtime
            except OSError:
                continue
    times[str(root / "mkdocs.yml")] = (root / "mkdocs.yml").stat().st_mtime
    return times


class Garbage:
    """While serving, each re-staging leaves its project's graph for the cycle collector (paused while
    serving). Collecting each at once (0.12-0.16 s at 10x the shipped data) would take the CPU from the engine's
    rebuild, so it waits until no edit came for a few seconds, or until three stagings' graphs pile up; then
    just after the third re-staging, beside the engine's rebuild, not before the next one, which it would delay."""

    IDLE_S = 5.0
    MOST = 3

    def __init__(self) -> None:
        self.pending = 0
        self.since = 0.0

    def left(self) -> None:
        self.pending += 1
        self.since = time.monotonic()

    def collect_when_idle(self) -> None:
        if self.pending and time.monotonic() - self.since >= self.IDLE_S:
            self._collect()

    def collect_if_piling_up(self) -> None:
        if self.pending >= self.MOST:
            self._collect()

    def _collect(self) -> None:
        gc.collect()
        self.pending = 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Stage the site, let the engine's own server serve the staging tree, and re-stage on every edit
    of data, content or overrides; the engine sees the changed files and reloads the browser.
    """
    from .incremental import PageCache
    from .project_config import content_folder
    from .serve_engine import address_in_use
    from .serve_search import ServedSearch
    from .staging import StagingError, read_config, read_options, stage

    root = _project_root(args.project)
    if not (root / "mkdocs.yml").is_file():
        print(f"cadence: no mkdocs.yml in {root}; run this in a rules project", file=sys.stderr)
        return EXIT_USAGE
    _tidy_serve_folders()
    taken = address_in_use(args.dev_addr)
    if taken:
        print(taken, file=sys.stderr)
        return EXIT_USAGE
    config = read_config(root)
    watched = [read_options(config).data_dir, content_folder(config), "overrides"]
    work = Path(tempfile.mkdtemp(prefix=f"{SERVE_FOLDER}{os.getpid()}-"))  # named after this process, for the next to tidy
    search = ServedSearch(work, merges_here=args.engine not in RUNS_HOOKS)
    nav_file = args.engine in NAV_IN_DOCS
    process: subprocess.Popen[bytes] | None = None
    cache = PageCache()  # the pages of the last staging: an edit re-renders only the pages it can change
    cache.restore(root)  # at the start, the pages of the last build or serve of this project

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # the finally below stops the engine's server and removes the staging tree

    previous = signal.signal(signal.SIGTERM, stop)
    # The collector stays off while serving: the stagings' graphs form no cycles worth an automatic pass
    # in the middle of the engine's rebuild; `Garbage` collects when serving is idle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            staged = stage(root, work, work / "site", cache, nav_file=nav_file, hooks=search.hooks)
            search.staged(staged, cache)
            cache.save(root)
        except StagingError as exc:
            _print_problems(exc.problems)
            return EXIT_PROBLEMS
        env = _engine_env(args)
        process = subprocess.Popen(engine_command(args.engine, "serve", staged.config_file, "--dev-addr", args.dev_addr), cwd=work, env=env)
        del staged  # the first staging's project: collected once serving is idle
        _serve_edits(process, root, watched, work, cache, nav_file, search)
        return EXIT_CLEAN if process.returncode == 0 else EXIT_PROBLEMS
    except KeyboardInterrupt:
        return EXIT_CLEAN
    finally:
        if collecting:
            gc.enable()
        signal.signal(signal.SIGTERM, previous)
        stop_process(process, timeout=10)
        shutil.rmtree(work, ignore_errors=True)


#: The start of the name of `cadence serve`'s staging folder, in the system's temporary folder; its process id follows.
SERVE_FOLDER = "cadence-serve-"


def _tidy_serve_folders() -> None:
    """Remove the staging folders of `cadence serve`s that were killed: those whose process is gone (as
    `recover_output` does for builds)."""
    user = os.getuid() if hasattr(os, "getuid") else 0  # only this user's own folders (Windows has no owners)
    for stale in Path(tempfile.gettempdir()).glob(f"{SERVE_FOLDER}*-*"):
        pid = stale.name.removeprefix(SERVE_FOLDER).split("-", 1)[0]
        with contextlib.suppress(OSError):
            info = stale.lstat()
            if pid.isdigit() and not alive(int(pid)) and stat.S_ISDIR(info.st_mode) and info.st_uid == user:
                shutil.rmtree(stale)


def _serve_edits(
    process: subprocess.Popen[bytes], root: Path, watched: list[str], work: Path, cache: PageCache, nav_file: bool, search: ServedSearch
) -> None:
    """While the engine serves: re-stage after each edit, and merge the search entries into each index it builds."""
    from .serve_errors import wait_until_stable
    from .serve_watch import Wakeup

    with Wakeup(root, watched) as wakeup:
        seen = _snapshot(root, watched)
        garbage = Garbage()
        garbage.left()  # the first staging's graph, collected once serving is idle
        while process.poll() is None:
            wakeup.wait(LOOK_INTERVAL_S)  # at once after an edit; else a look for the engine's new index
            search.merge_if_rebuilt()
            now = _snapshot(root, watched)
            if now == seen:
                garbage.collect_when_idle()
                continue
            wait_until_stable([root / folder for folder in watched])  # never stage a half-written file
            seen = _snapshot(root, watched)
            _restage(root, work, cache, nav_file, search)
            garbage.left()
            garbage.collect_if_piling_up()


def _restage(root: Path, work: Path, cache: PageCache, nav_file: bool, search: ServedSearch) -> None:
    """Stage again after an edit; on errors every staged page shows them. Nothing of the staged project
    but the cache's pages outlives the call, so the caller can have the collector free it (staging
    pauses the collector). The search entries are worked out once the files are written, while the
    engine rebuilds."""
    from .staging import StagingError, show_problems, stage

    started = time.perf_counter()
    try:
        staged = stage(root, work, work / "site", cache, nav_file=nav_file, hooks=search.hooks)
        changed = len(staged.written) + len(staged.removed)
        took = time.perf_counter() - started
        print(f"cadence: re-staged {changed} files in {took:.1f} s ({cache.rendered} pages rendered, {cache.reused} kept)", file=sys.stderr)
        search.staged(staged, cache)
    except (StagingError, DataError) as exc:  # DataError: the edited mkdocs.yml cannot be read as settings
        _print_problems(exc.problems)
        show_problems(work, exc.problems, checked=isinstance(exc, StagingError) and exc.checked)
        print("cadence: every page shows these problems until they are fixed", file=sys.stderr)
    except OSError as exc:  # a full disk, say: serving goes on, and the next save stages again
        print(f"{io_error(exc)}; the site was not re-staged", file=sys.stderr)


def how_many(text: str) -> int:
    """`cadence search --limit`: a whole number of results, at least one (argparse says what is wrong, exit 2)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number}: at least 1 result is shown")
    return number


def cmd_search(args: argparse.Namespace) -> int:
    from .search import query_refused, search_site

    root = _project_root(args.project)
    site = (root / args.site_dir) if not Path(args.site_dir).is_absolute() else Path(args.site_dir)
    index = site / "search" / "search_index.json"
    if not index.is_file():
        print(f"cadence: no search index at {index}; run 'cadence build' first", file=sys.stderr)
        return EXIT_USAGE
    query = " ".join(args.query)
    refused = query_refused(query)
    if refused is not None:
        print(f"cadence: {refused}", file=sys.stderr)
        return EXIT_USAGE
    results = search_site(index, query, limit=args.limit, game=args.game)
    if not results:
        print("no results")
        return EXIT_PROBLEMS
    for number, result in enumerate(results, 1):
        print(f"{number}. {result.title}  ({result.location})")
        if result.snippet:
            print(f"   {result.snippet}")
    return EXIT_CLEAN


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schema of the data files, derived from the model, for editors."""
    from .schema import json_schema_text

    root = _project_root(args.project)
    data_dir, _ = _data_dir(root) if (root / "mkdocs.yml").is_file() else ("data", "content")
    target = root / data_dir / "schema" / "data.schema.json"
    text = json_schema_text()
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            print(f"{target.relative_to(root)}: error[schema-stale]: the schema does not match the model; run 'cadence schema'")
            return EXIT_PROBLEMS
        return EXIT_CLEAN
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(root)}")
    return EXIT_CLEAN


def _checked_project(args: argparse.Namespace) -> Project | None:
    """The project, when its data checks without errors; otherwise its problems are printed and None returned."""
    from .pages import load_project

    root = _project_root(args.project)
    loaded = load_project(root, *_data_dir(root))
    if loaded.errors or loaded.project is None:
        print(format_problems(loaded.problems, checked=loaded.checked))
        return None
    return loaded.project


def cmd_export(args: argparse.Namespace) -> int:
    """Write each module's resolved data as JSON (see data/EXPORT.md), and the JSON Schema."""
    import json

    from .export import SCHEMA_PATH, export_project, json_schema, to_json

    project = _checked_project(args)
    if project is None:
        return EXIT_PROBLEMS
    out = Path(args.out)
    for module_id, exported in export_project(project).items():
        target = out / f"{module_id}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(to_json(exported.data), encoding="utf-8")
        print(f"wrote {target}")
    schema = out / Path(SCHEMA_PATH).name
    schema.write_text(json.dumps(json_schema(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {schema}")
    return EXIT_CLEAN


def cmd_roster(args: argparse.Namespace) -> int:
    """Check a roster file against the project's data: the same verdicts as the builder page."""
    import json

    from .export import export_project
    from .roster import check_roster_file

    project = _checked_project(args)
    if project is None:
        return EXIT_PROBLEMS
    path = Path(args.file)
    if not path.is_file():
        print(f"cadence: no roster file {args.file}", file=sys.stderr)
        return EXIT_USAGE
    verdict, problems, export = check_roster_file(path, args.file, export_project(project))
    if args.format == "json":
        print(json.dumps(verdict.as_json(), ensure_ascii=False))
    else:
        if export is not None:
            currency = export.data["module"]["currency"]
            print(f"{args.file}: total {verdict.total} {currency['name'] if currency else ''}".rstrip())
        print(format_problems(problems, args.format))
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if any(p.code in ("io", "encoding") for p in errors):
        return EXIT_USAGE
    return EXIT_PROBLEMS if errors or (args.strict and problems) else EXIT_CLEAN


def cmd_reference(args: argparse.Namespace) -> int:
    """Write data/REFERENCE.md, every key of the data format, from the model (`--check`: verify it is current)."""
    from .docs import reference_text

    root = _project_root(args.project)
    target = root / "data" / "REFERENCE.md"
    text = reference_text(root)
    if args.check:
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            print(f"{target.relative_to(root)}: error[reference-stale]: the reference does not match the model; run 'cadence reference'")
            return EXIT_PROBLEMS
        return EXIT_CLEAN
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(root)}")
    return EXIT_CLEAN


def cmd_diff(args: argparse.Namespace) -> int:
    """What changed in game terms between two revisions or folders; `--record` stores it as a release."""
    from .diff import DiffError, diff_projects, format_json, format_markdown, format_text, load_side, module_titles

    root = _project_root(args.project)
    with tempfile.TemporaryDirectory(prefix="cadence-diff-") as scratch:
        try:
            old = load_side(root, args.old, Path(scratch))
            new = load_side(root, args.new, Path(scratch))
        except DiffError as exc:
            print(f"cadence: {exc}", file=sys.stderr)
            return EXIT_USAGE
    entries = diff_projects(old, new)
    if args.record:
        return _record_release(root, args, entries)
    titles = module_titles(old, new)
    output = {
        "text": lambda: format_text(entries, titles),
        "markdown": lambda: format_markdown(entries, titles),
        "json": lambda: format_json(entries),
    }
    print(output[args.format]())
    return EXIT_CLEAN


def _record_release(root: Path, args: argparse.Namespace, entries: list[Any]) -> int:
    import datetime

    from .diff import git_revision, release_yaml
    from .model import Release, slugify

    release = Release(
        name=args.record,
        date=args.date or datetime.date.today().isoformat(),
        since=git_revision(root, args.old),
        revision=git_revision(root, args.new),
        entries=tuple(entries),
    )
    data_dir, _ = _data_dir(root)
    target = root / data_dir / "releases" / f"{slugify(args.record)}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(release_yaml(release), encoding="utf-8")
    print(f"wrote {target.relative_to(root)} ({len(entries)} changes)")
    return EXIT_CLEAN


def cmd_import(args: argparse.Namespace) -> int:
    """Read a module written in Markdown and write a YAML skeleton and content pages."""
    from .importer import import_markdown

    root = _project_root(args.project)
    source = Path(args.file)
    if not source.is_file():
        print(f"cadence: {source} is not a file", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out) if args.out else None
    result = import_markdown(root, source, module_id=args.module, out=out, force=args.force)
    for problem in sorted(result.problems, key=lambda p: p.sort_key):  # by place, as `cadence check` prints them
        print(problem)
    for path in result.replaced:
        print(f"replaced {path.relative_to(out or root).as_posix()}")
    for problem in sorted(result.check_problems, key=lambda p: p.sort_key):
        print(problem)
    print(result.summary())
    return EXIT_PROBLEMS if result.failed else EXIT_CLEAN


#: How `--format` prints problems, for every command that reports them.
_FORMAT_HELP = "how problems are printed: text (path:line:col: severity[code]: message), json, or github (workflow annotations)"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cadence", description="Check, build, serve and search a rules reference site.")
    p.add_argument("--project", "-C", help="project folder (default: the current directory)")
    sub = p.add_subparsers(dest="command", required=True)

    def command(name: str, said: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=said, description=f"{said[0].upper()}{said[1:]}.")

    check = command("check", "check the data and content; exit 1 when problems are found")
    check.add_argument("--format", choices=FORMATS, default="text", help=_FORMAT_HELP)
    check.add_argument("--strict", action="store_true", help="warnings count as problems")
    check.add_argument("--as-published", action="store_true", help="put back what the sources printed (from the errata) and check that")
    build = command("build", "build the site atomically into the site folder")
    build.add_argument("--site-dir", default="site", help="the folder the built site replaces, whole (default: site)")
    build.add_argument("--strict", action="store_true", help="warnings count as problems: the build fails on them")
    build.add_argument(
        "--quiet", "-q", action="store_true", help="print only problems; what the engine prints is shown only if its build fails"
    )
    build.add_argument("--engine", choices=ENGINES, default="mkdocs", help="the engine that builds the staged site (default mkdocs)")
    serve = command("serve", "serve the site with live reload")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000", help="address and port to serve on (default 127.0.0.1:8000)")
    serve.add_argument("--engine", choices=ENGINES, default="mkdocs", help="the engine whose server serves the staged site")
    search = command("search", "search the built site's index")
    search.add_argument("query", nargs="+", help="the words to search for")
    search.add_argument("--site-dir", default="site", help="the built site whose index is searched (default: site)")
    search.add_argument("--limit", type=how_many, default=5, help="most results shown, from 1 (default 5)")
    search.add_argument("--game", help="rank as a reader on this module's pages does (a module id: the folder of its pages)")
    for step in (check, build, serve):
        step.add_argument(
            "--follow-outside-links", action="store_true", help="follow symbolic links in data/ and content/ that leave the project"
        )
        step.add_argument("--no-cache", action="store_true", help="neither read nor write the cache of parsed files and check results")
    schema = command("schema", "write the data files' JSON Schema (for editors) from the model")
    schema.add_argument("--check", action="store_true", help="only check that the committed schema is current")
    export = command("export", "write each module's resolved data as versioned JSON, with its JSON Schema")
    export.add_argument("--out", default="export", help="folder to write into (default: export)")
    roster = command("roster", "check a roster (YAML or JSON) against the data; exit 1 when it breaks a rule")
    roster.add_argument("file", help="the roster: a YAML or JSON file, such as the one the army builder saves")
    roster.add_argument("--format", choices=(*FORMATS,), default="text", help=_FORMAT_HELP)
    roster.add_argument("--strict", action="store_true", help="warnings (a model with no price) count as problems too")
    reference = command("reference", "write data/REFERENCE.md, every key of the data format, from the model")
    reference.add_argument("--check", action="store_true", help="only check that the committed reference is current")
    diff = command("diff", "what changed in game terms between two git revisions or folders")
    diff.add_argument("old", help="a git revision (HEAD~30, a tag) or a project folder")
    diff.add_argument("new", nargs="?", default=".", help="a git revision or a project folder (default: the working tree)")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="text, markdown (for release notes) or json")
    diff.add_argument("--record", metavar="NAME", help="store the changes as a release in data/releases/ for Recent Changes")
    diff.add_argument("--date", help="the release's date (default: today)")
    imp = command("import", "turn a module written in Markdown into data files and content pages")
    imp.add_argument("file", help="the Markdown module")
    imp.add_argument("--id", "--module", dest="module", help="the new module's id (default: the slug of its first heading)")
    imp.add_argument("--out", help="project folder to write into (default: the project)")
    imp.add_argument("--force", action="store_true", help="replace files already there (each one replaced is named)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code not in (0, None) else EXIT_CLEAN
    if getattr(args, "no_cache", False):
        os.environ["CADENCE_NO_CACHE"] = "1"  # cache.NO_CACHE_ENV; staging and engine processes inherit it
    commands = {
        "check": cmd_check,
        "build": cmd_build,
        "serve": cmd_serve,
        "search": cmd_search,
        "schema": cmd_schema,
        "export": cmd_export,
        "roster": cmd_roster,
        "reference": cmd_reference,
        "diff": cmd_diff,
        "import": cmd_import,
    }
    try:
        return commands[args.command](args)
    except DataError as exc:  # the project's mkdocs.yml cannot be read as settings
        for problem in exc.problems:
            print(problem)
        return EXIT_PROBLEMS
    except OSError as exc:
        print(io_error(exc), file=sys.stderr)
        return EXIT_USAGE
    finally:
        from . import cache

        cache.prune()  # after the command: never an entry it is about to read


if __name__ == "__main__":
    sys.exit(main())
