"""Benchmarks: what generating costs, against plain MkDocs, as the data grows.

    python bench/run.py                 # sizes 1,10,50, up to 3 runs, ~20-minute budget
    python bench/run.py --sizes 1,10 --runs 5
    python bench/run.py --quick         # smoke test: sizes 1,2, one run, no profile or experiments
    python bench/run.py --sizes 1,50 --runs 1 --no-serve --profile-size 0 \\
        --experiments no-prune,games-off-nav --budget-minutes 45 --out bench/results/nav-50x

Writes RESULTS.md, plot.png, results.json and profile-<N>x.txt into --out (default bench/results).
bench/README.md says what each figure means.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import pstats
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from io import StringIO
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
for _path in (REPO, BENCH):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import yaml  # noqa: E402

synth: Any = None  # bench/synth.py, imported in main() once the generator to measure is on sys.path

PY = sys.executable
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONHASHSEED": "0"}


BUILD_TIMEOUT_S = 3600

# Variants of mkdocs.yml the experiments build (a copy next to the project's own mkdocs.yml), each one
# change to the shipped configuration; a variant that changes nothing there is skipped
VARIANTS: dict[str, dict[str, Any]] = {
    "no-prune": {"add": [], "remove": ["navigation.prune"]},
    "prune": {"add": ["navigation.prune"], "remove": []},
    # not a setting: the nav keeps home, core rules, landing pages and indexes but no game's own section
    # (those pages are still built and linked from the landing and module pages): the floor of the nav's cost
    "games-off-nav": {"add": [], "remove": [], "games_off_nav": True},
    "prune-no-sections": {"add": ["navigation.prune"], "remove": ["navigation.sections"]},
}
VARIANT_TEXT = {
    "no-prune": "`navigation.prune` removed from `theme.features`",
    "prune": "`navigation.prune` added to `theme.features`",
    "games-off-nav": "the navigation without the games' own sections (their pages still built, linked from the landing and module pages): not a setting, the floor of what the navigation costs",
    "prune-no-sections": "`navigation.prune` on and `navigation.sections` removed",
}
# (variant, project) in order of interest; run while the budget allows
EXPERIMENTS: list[tuple[str, str]] = [(v, p) for v in VARIANTS for p in ("gen", "plain")]
PROJECT_LABEL = {"gen": "generated", "plain": "plain"}


# --------------------------------------------------------------------------------------------- helpers


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def summarise(values: list[float]) -> dict[str, float] | None:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _cpu_busy() -> float:
    """Busy CPU seconds of the whole machine so far, from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


class Quiet:
    """Before each measurement, wait (bounded) until other processes leave the CPUs alone."""

    def __init__(self) -> None:
        self.per_wait = 0.0
        self.total = 0.0
        self.waited = 0.0

    def wait(self, threshold: float = 0.25) -> None:
        if self.per_wait <= 0 or self.waited >= self.total:
            return
        t0 = time.perf_counter()
        calm = 0
        while time.perf_counter() - t0 < min(self.per_wait, self.total - self.waited):
            busy0 = _cpu_busy()
            time.sleep(0.5)
            calm = calm + 1 if (_cpu_busy() - busy0) / 0.5 < threshold else 0
            if calm >= 2:
                break
        self.waited += time.perf_counter() - t0


QUIET = Quiet()


class Budget:
    """Wall-clock budget: optional measurements run only while their estimate fits."""

    def __init__(self, minutes: float) -> None:
        self.start = time.perf_counter()
        self.limit = minutes * 60

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def fits(self, estimate: float) -> bool:
        return self.elapsed() + estimate <= self.limit


def run_child(command: list[str], cwd: Path, log_file: Path, timeout: float = BUILD_TIMEOUT_S) -> dict[str, float]:
    """Run a command to its end through `_spawn.py`.

    Returns its exit code, wall seconds, CPU seconds (user+sys) and peak RSS KiB (wait4 in the small
    spawner, see `_spawn.py`), and `other_cores`: how many CPUs other processes kept busy meanwhile, on
    average (machine busy time minus the command's own), to flag measurements disturbed by other work.
    """
    report = log_file.with_suffix(".rusage.json")
    report.unlink(missing_ok=True)
    QUIET.wait()
    with open(log_file, "wb") as err:
        busy0 = _cpu_busy()
        t0 = time.perf_counter()
        process = subprocess.Popen(
            [PY, str(BENCH / "_spawn.py"), str(report), *command], cwd=cwd, env=ENV, stdout=err, stderr=subprocess.STDOUT
        )
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise SystemExit(f"timed out after {timeout:.0f} s: {' '.join(command)}") from None
        outer = time.perf_counter() - t0
        busy = _cpu_busy() - busy0
    if not report.is_file():
        raise SystemExit(f"could not run {' '.join(command)}; see {log_file}")
    child = json.loads(report.read_text())
    other = max(0.0, busy - child["cpu_s"] - 0.03) / outer if outer > 0 else 0.0  # 0.03: the spawner itself
    return {**child, "other_cores": other}


def git_revision() -> str:
    """HEAD, and which files that shape the site differ from it (the code under test changes often)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    paths = ["generator", "pyproject.toml", "mkdocs.yml", "data", "content", "overrides"]
    status = subprocess.run(["git", "status", "--porcelain", "--", *paths], cwd=REPO, capture_output=True, text=True).stdout
    dirty = [line[3:] for line in status.splitlines() if line.strip()]
    if not dirty:
        return f"{head} (clean)"
    return f"{head} + {len(dirty)} uncommitted: {', '.join(dirty[:6])}{' …' if len(dirty) > 6 else ''}"


# ------------------------------------------------------------------------------------------ measurements


RUSAGE = ("wall_s", "cpu_s", "maxrss_kib", "other_cores")


def run_checked(command: list[str], cwd: Path, log_file: Path, what: str, timeout: float = BUILD_TIMEOUT_S) -> dict[str, float]:
    """`run_child`, stopping the benchmark with a pointer to the log when the command fails."""
    child = run_child(command, cwd, log_file, timeout)
    if child["code"] != 0:
        raise SystemExit(f"{what} failed in {cwd}; see {log_file}")
    return child


def measure_stages(project: Path, work: Path, tag: str, *flags: str) -> dict[str, Any]:
    out = work / f"stages-{tag}.json"
    child = run_checked(
        [PY, str(BENCH / "_stages.py"), str(project), str(out), *flags], project, work / f"stages-{tag}.log", "stage worker"
    )
    result: dict[str, Any] = json.loads(out.read_text())
    result.update(wall_s=child["wall_s"], maxrss_kib=child["maxrss_kib"], other_cores=child["other_cores"])
    return result


def measure_stage_alone(project: Path, work: Path, tag: str) -> dict[str, Any]:
    """`staging.stage` alone, from the cache state each measured `cadence build` starts from: else it would
    take the checks' problems the last build left in the cache, and look cheaper than a build's staging."""
    forget_builds()
    return measure_stages(project, work, tag, "--stage")


def measure_build(
    project: Path, work: Path, tag: str, config: str = "mkdocs.yml", profile: Path | None = None, keep: bool = False
) -> dict[str, Any]:
    site = work / f"site-{tag}"
    shutil.rmtree(site, ignore_errors=True)
    out = work / f"build-{tag}.json"
    out.unlink(missing_ok=True)
    command = [PY, str(BENCH / "_build.py"), str(project), str(site), str(out), "--config", config]
    if profile is not None:
        command += ["--profile", str(profile)]
    child = run_checked(command, project, work / f"build-{tag}.log", f"mkdocs build ({config})")
    inner = json.loads(out.read_text())
    index = site / "index.html"
    result = {
        **inner,
        **{k: child[k] for k in RUSAGE},
        "index_html_bytes": index.stat().st_size if index.is_file() else None,
        "html_files": sum(1 for _ in site.rglob("*.html")),
    }
    if keep:
        result["site"] = str(site)
    else:
        shutil.rmtree(site, ignore_errors=True)
    return result


def forget_builds() -> None:
    """The generator's cache as every measured `cadence build` finds it: its data files' records cached (as
    after any earlier check or build), nothing else (no checks' problems or findings by text, no pages, staging or kept staging folder to reuse)."""
    for kind in ("check", "checks", "texts", "lists", "pages", "staged", "staged-files", "staging"):
        shutil.rmtree(Path(ENV["XDG_CACHE_HOME"]) / "cadence-rules" / kind, ignore_errors=True)


def measure_cadence_build(project: Path, work: Path, tag: str, engine: str) -> dict[str, Any]:
    """`cadence build --engine ENGINE` through `_cadence_build.py`: the whole command, and the CPU time of its
    parts (staging process, engine, the command's own process with the post-build steps). Peak RSS: the
    largest of its processes."""
    site = work / f"site-{tag}"
    shutil.rmtree(site, ignore_errors=True)
    forget_builds()
    out = work / f"build-{tag}.json"
    command = [PY, str(BENCH / "_cadence_build.py"), str(out), "--strict", "--quiet", "--site-dir", str(site), "--engine", engine]
    child = run_checked(command, project, work / f"build-{tag}.log", f"cadence build --engine {engine}")
    parts = {k: v for k, v in json.loads(out.read_text()).items() if k.endswith(("_cpu_s", "_sys_s"))}
    result = {**{k: child[k] for k in RUSAGE}, **parts, "html_files": sum(1 for _ in site.rglob("*.html"))}
    shutil.rmtree(site, ignore_errors=True)
    return result


def measure_zensical(plain: Path, work: Path, tag: str, clean: bool) -> dict[str, Any]:
    """`zensical build` of the plain (staged) project: `clean` empties Zensical's cache first; else a repeated build."""
    command = [PY, "-m", "zensical", "build", "--config-file", "mkdocs.yml", *(["--clean"] if clean else [])]
    child = run_checked(command, plain, work / f"build-{tag}.log", "zensical build")
    return {k: child[k] for k in RUSAGE}


# --- a server, edits to a data file, and how long each takes to reach the served page ------------


@dataclass(frozen=True)
class Edit:
    """One kind of data edit: `find` in `rel` becomes `replace` (with `{n}`), and `page` then shows `expect`."""

    name: str
    rel: str
    find: str
    replace: str
    page: str
    expect: str


#: A rule's text: the rule's own page and its tooltips change, the navigation (and so the engine config) does not.
RULE_TEXT_EDIT = Edit(
    "rule text",
    "data/fracture/module.yaml",
    "subtracts 1 from every Morale test it takes.",
    "subtracts 1 from every Morale test it takes (rev{n}).",
    "fracture/module-rules.html",
    "it takes (rev{n})",
)
#: A module's title: the navigation of every page changes (in the staged config for MkDocs, in docs/.nav.yml for Zensical).
TITLE_EDIT = Edit(
    "module title",
    "data/fracture/module.yaml",
    "  title: Fracture\n",
    "  title: Fracture rev{n}\n",
    "fracture/index.html",
    "Fracture rev{n}",
)


def served_body(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", "replace"))
    except OSError:
        return ""


def poll_page(url: str, text: str, timeout: float, gone: bool = False) -> float | None:
    """Seconds until the served `url` contains `text` (with `gone`: no longer does), or None after `timeout`."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        body = served_body(url)
        if (text not in body and "</html>" in body) if gone else (text in body):
            return time.perf_counter() - t0
        time.sleep(0.05)
    return None


class ServerLog:
    """A server's output lines with the time each arrived, read on a thread, searchable after a mark."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[tuple[float, str]] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.cond:
                self.lines.append((time.perf_counter(), line.rstrip()))
                self.cond.notify_all()

    def mark(self) -> int:
        with self.cond:
            return len(self.lines)

    def wait_for(self, pattern: str, after: int, timeout: float) -> tuple[float, re.Match[str]] | None:
        """The time and match of the first line after `after` matching `pattern` (None after `timeout`)."""
        deadline = time.perf_counter() + timeout
        with self.cond:
            while True:
                for t, line in self.lines[after:]:
                    found = re.search(pattern, line)
                    if found:
                        return t, found
                remaining = deadline - time.perf_counter()
                if remaining <= 0 or self.process.poll() is not None:
                    return None
                self.cond.wait(remaining)


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user+sys) so far of a process and all its descendants, from /proc."""
    total, todo, tick = 0.0, [pid], os.sysconf("SC_CLK_TCK")
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total


def measure_edits(
    command: list[str], project: Path, port: int, edits: list[Edit], runs: int, log_file: Path, marks: dict[str, str], timeout: float = 120
) -> dict[str, Any]:
    """Start a server, make each edit `runs` times and time each from the write until the page is served.

    `marks` name log lines to time as well (a regex; its first group, if any, is kept as a number, e.g.
    the rebuild time the server reports). Every file is restored and the server stopped in every case.
    """
    originals = {e.rel: (project / e.rel).read_text(encoding="utf-8") for e in edits}
    for e in edits:
        if e.find not in originals[e.rel]:
            raise RuntimeError(f"{e.rel} has no '{e.find.strip()}' to change")
    process = subprocess.Popen(
        command, cwd=project, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, start_new_session=True
    )
    server = ServerLog(process)
    results: list[dict[str, Any]] = []
    try:
        startup = poll_page(f"http://127.0.0.1:{port}/{edits[0].page}", "</html>", 900)
        if startup is None:
            raise RuntimeError(f"{' '.join(command[2:4])} did not serve {edits[0].page}; see {log_file}")
        for e in edits:
            for n in range(1, runs + 1):
                time.sleep(1.5)  # let the watcher settle between edits
                QUIET.wait()
                index = server.mark()
                busy0, tree0 = _cpu_busy(), _tree_cpu(process.pid)
                t_edit = time.perf_counter()
                (project / e.rel).write_text(originals[e.rel].replace(e.find, e.replace.format(n=n), 1), encoding="utf-8")
                served = poll_page(f"http://127.0.0.1:{port}/{e.page}", e.expect.format(n=n), timeout)
                wall = time.perf_counter() - t_edit
                tree = _tree_cpu(process.pid) - tree0
                # the server's own CPU from the write until served (re-staging and engine), and what others used meanwhile
                row: dict[str, Any] = {"edit": e.name, "n": n, "served_s": served, "server_cpu_s": tree}
                row["other_cores"] = max(0.0, _cpu_busy() - busy0 - tree) / wall if wall > 0 else 0.0
                for name, pattern in marks.items():
                    seen = server.wait_for(pattern, index, 0 if served is None else 5)
                    row[f"{name}_s"] = seen[0] - t_edit if seen else None
                    if seen and seen[1].groups():
                        row[f"{name}_reported_s"] = float(seen[1][1])
                results.append(row)
                if served is None:
                    break
            (project / e.rel).write_text(originals[e.rel], encoding="utf-8")
            # the next edit starts once the restored page is served: its rebuild must not overlap the next one's
            poll_page(f"http://127.0.0.1:{port}/{e.page}", e.expect.format(n=n), timeout, gone=True)
    finally:
        for rel, text in originals.items():
            (project / rel).write_text(text, encoding="utf-8")
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
        server.thread.join(timeout=5)
        log_file.write_text("\n".join(f"{t:.3f} {line}" for t, line in server.lines))
    return {"startup_s": startup, "rebuilds": results}


def measure_serve(project: Path, runs: int, work: Path) -> dict[str, Any]:
    """`mkdocs serve` (the plugin) on the generated project: a module title edited; MkDocs rebuilds everything."""
    port = free_port()
    command = [PY, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}", "--livereload"]
    marks = {"detected": r"Detected file changes", "built": r"Documentation built in ([\d.]+) seconds", "reloaded": r"Reloading browsers"}
    found = measure_edits(command, project, port, [TITLE_EDIT], runs, work / "serve.log", marks)
    return {
        "edit": f"`{TITLE_EDIT.rel}`: `{TITLE_EDIT.find.strip()}` → `{TITLE_EDIT.replace.strip()}` (every page's navigation changes)",
        "page": TITLE_EDIT.page,
        **found,
    }


def measure_cadence_serve(project: Path, engine: str, runs: int, work: Path) -> dict[str, Any]:
    """`cadence serve --engine ENGINE`: a rule's text edited, then a module's title (which changes the
    navigation, so the staged engine config). Re-staging time is what `cadence serve` reports; the rest
    until the page is served is the engine noticing the changed files and rebuilding."""
    port = free_port()
    command = [PY, "-m", "generator.cli", "serve", "--engine", engine, "--dev-addr", f"127.0.0.1:{port}"]
    marks = {"restaged": r"re-staged \d+ files in ([\d.]+) s"}
    found = measure_edits(command, project, port, [RULE_TEXT_EDIT, TITLE_EDIT], runs, work / f"serve-{engine}.log", marks)
    return {"engine": engine, **found}


def compare_sites(a: Path, b: Path) -> dict[str, Any]:
    """Are two built sites the same? Every file byte for byte, the search index by its set of entries."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    index = "search/search_index.json"
    common = sorted(f for f in files_a & files_b if f != index)
    differ = [f for f in common if (a / f).read_bytes() != (b / f).read_bytes()]
    same_index = None
    if index in files_a and index in files_b:

        def entries(site: Path) -> list[str]:
            return sorted(json.dumps(d, sort_keys=True) for d in json.loads((site / index).read_text())["docs"])

        same_index = entries(a) == entries(b)
    return {
        "only_in_generated": sorted(files_a - files_b)[:20],
        "only_in_plain": sorted(files_b - files_a)[:20],
        "files_compared": len(common),
        "html_compared": sum(1 for f in common if f.endswith(".html")),
        "differ": differ[:20],
        "differ_count": len(differ),
        "search_index_same_entries": same_index,
    }


def measure_check(runs: int, work: Path, root: Path) -> dict[str, Any]:
    cadence = Path(PY).parent / "cadence"
    command = [str(cadence), "check"] if cadence.is_file() else [PY, "-m", "generator.cli", "check"]
    results = [run_child(command, root, work / f"check-{i}.log", timeout=300) for i in range(runs)]
    bare = [run_child([PY, "-c", "pass"], REPO, work / "bare.log")["wall_s"] for _ in range(runs)]
    imports = [run_child([PY, "-c", "import generator.cli, generator.pages"], root, work / "imports.log")["wall_s"] for _ in range(runs)]
    return {
        "command": "cadence check" if cadence.is_file() else "python -m generator.cli check",
        "wall_s": [r["wall_s"] for r in results],
        "cpu_s": [r["cpu_s"] for r in results],
        "other_cores": [r["other_cores"] for r in results],
        "maxrss_kib": [r["maxrss_kib"] for r in results],
        "exit_codes": [r["code"] for r in results],
        "bare_python_s": bare,
        "python_plus_imports_s": imports,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def games_off_nav(nav: list[Any]) -> list[Any]:
    """The navigation without sub-sections of top-level sections (each game's own section)."""
    result: list[Any] = []
    for item in nav:
        if isinstance(item, dict) and len(item) == 1:
            ((title, value),) = item.items()
            if isinstance(value, list):
                value = [x for x in value if not (isinstance(x, dict) and any(isinstance(v, list) for v in x.values()))]
            result.append({title: value})
        else:
            result.append(item)
    return result


def write_variant(project: Path, name: str, plain: Path) -> str | None:
    """A copy of the project's mkdocs.yml with one variant applied (None: the variant changes nothing).

    `plain` is the plain-MkDocs project, whose mkdocs.yml holds the full navigation.
    """
    config = synth.read_mkdocs_yml(project)
    change = VARIANTS[name]
    before = list(config.get("theme", {}).get("features", []))
    features = [f for f in before if f not in change["remove"]] + [f for f in change["add"] if f not in before]
    if features == before and not change.get("games_off_nav"):
        return None
    config["theme"]["features"] = features
    if change.get("games_off_nav"):
        config["nav"] = games_off_nav(synth.read_mkdocs_yml(plain)["nav"])
    filename = f"mkdocs.{name}.yml"
    synth.write_mkdocs_yml(project / filename, config)
    return filename


# --------------------------------------------------------------------------------------------- profile

# (label, file fragment, function) — the cumulative time of these frames; chosen not to nest in each other,
# except the indented rows, which are parts of the row above
CATEGORIES = [
    ("theme: navigation partial, rendered into every page (material partials/nav.html)", "material/templates/partials/nav.html", "root"),
    ("theme: rest of the page template (base.html without the nav)", "material/templates/base.html", "root"),
    ("Markdown to HTML (markdown.Markdown.convert)", "markdown/core.py", "convert"),
    ("search plugin: index entries per page (parses each page's HTML)", "material/plugins/search/plugin.py", "on_page_context"),
    ("search plugin: writing the index", "material/plugins/search/plugin.py", "on_post_build"),
    ("rules plugin: on_config (load + model + check + render)", "generator/plugin.py", "on_config"),
    ("  of which load_project (read YAML, model, check)", "generator/pages.py", "load_project"),
    ("  of which generate (render the generated pages)", "generator/pages.py", "generate"),
    ("rules plugin: on_page_markdown (expand content pages)", "generator/plugin.py", "on_page_markdown"),
    ("mkdocs: relative links and link validation (_RelativePathTreeprocessor)", "mkdocs/structure/pages.py", "run"),
    ("mkdocs: writing files", "mkdocs/utils/__init__.py", "write_file"),
]


#: The same for a profile of `staging.stage` alone: the generator's whole work in `cadence build`.
STAGE_CATEGORIES = [
    ("load_project (read YAML, model, resolve, check)", "generator/pages.py", "load_project"),
    ("  of which the data files' records, read back from the cache (stored.built_documents)", "generator/stored.py", "built_documents"),
    ("  of which resolving (resolve.resolve)", "generator/resolve/__init__.py", "resolve"),
    ("  of which the checks (checks.run_checks)", "generator/checks/__init__.py", "run_checks"),
    ("  of which unsafe_markup (data Markdown rendered for the check)", "generator/checks/markup.py", "unsafe_markup"),
    ("generate (render every generated page)", "generator/pages.py", "generate"),
    ("  of which Jinja templates of army-list pages", "generator/render.py", "army_list_page"),
    ("  of which the builder's JSON (export.builder_outputs)", "generator/export.py", "builder_outputs"),
    ("content pages expanded, page metadata (staging.site_pages)", "generator/staging.py", "site_pages"),
    ("writing the docs tree (staging.write_tree, theme included)", "generator/staging.py", "write_tree"),
    ("  across all of the above: Python-Markdown of data fields (markup.render)", "generator/markup.py", "render"),
]


def profile_summary(
    prof: Path, out: Path, title: str, categories: list[tuple[str, str, str]] = CATEGORIES
) -> list[tuple[str, float, float]]:
    raw = pstats.Stats(str(prof)).stats  # type: ignore[attr-defined]
    total = max((v[3] for v in raw.values()), default=1.0)
    rows: list[tuple[str, float, float]] = []
    for label, fragment, func in categories:
        cum = sum(v[3] for (file, _line, name), v in raw.items() if fragment in file and name == func)
        rows.append((label, cum, cum / total * 100))
    if categories is CATEGORIES:
        nav = rows[0][1]
        rows[1] = (rows[1][0], rows[1][1] - nav, (rows[1][1] - nav) / total * 100)
    accounted = sum(cum for label, cum, _ in rows if not label.startswith("  "))
    rows.append(
        (
            "everything else (start-up, imports, config, collecting files, nav structure, theme assets)"
            if categories is CATEGORIES
            else "everything else (config, navigation, assets, search entries)",
            total - accounted,
            (total - accounted) / total * 100,
        )
    )
    buffer = StringIO()
    buffer.write(f"{title}\nprofiled total: {total:.1f} s (cProfile slows the build about 2x; read the shares)\n\n")
    buffer.write("Where the time goes (cumulative time of the frames named):\n")
    for label, cum, pct in rows:
        buffer.write(f"  {pct:5.1f}%  {cum:7.2f} s  {label}\n")
    for key, name in (("cumulative", "cumulative time"), ("tottime", "own time")):
        buffer.write(f"\n==== top 30 by {name} ====\n")
        stream = StringIO()
        pstats.Stats(str(prof), stream=stream).strip_dirs().sort_stats(key).print_stats(30)
        buffer.write(stream.getvalue())
    out.write_text(buffer.getvalue())
    return rows


# ------------------------------------------------------------------------------------------ reporting


def versions() -> dict[str, str]:
    found = {}
    for name in (
        "mkdocs",
        "mkdocs-material",
        "zensical",
        "Markdown",
        "pymdown-extensions",
        "Jinja2",
        "PyYAML",
        "pyspellchecker",
        "lunr",
        "matplotlib",
        "cadence-rules",
    ):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["libyaml (yaml.__with_libyaml__)"] = str(yaml.__with_libyaml__)
    return found


def machine() -> dict[str, str]:
    cpu = mem = ""
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")
        )
    with contextlib.suppress(OSError, StopIteration, ValueError):
        kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")))
        mem = f"{kib / 1024 / 1024:.1f} GiB"
    return {
        "uname -a": subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip(),
        "nproc": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(),
        "cpu": cpu,
        "memory": mem,
        "python": f"{platform.python_implementation()} {platform.python_version()} ({PY})",
        "code measured": git_revision(),
    }


def fmt(s: dict[str, float] | None, scale: float = 1.0, digits: int = 2, unit: str = "") -> str:
    if not s:
        return "–"
    med, lo, hi = s["median"] * scale, s["min"] * scale, s["max"] * scale
    if s["n"] == 1:
        return f"{med:.{digits}f}{unit}"
    return f"{med:.{digits}f}{unit} ({lo:.{digits}f}–{hi:.{digits}f})"


def size_summary(entry: dict[str, Any]) -> dict[str, Any]:
    pages = entry["pages"]
    stages, gen, plain = entry["stages"], entry["gen"], entry["plain"]
    pairs = list(zip(gen, plain, strict=True))
    return {
        "runs": len(gen),
        "load": summarise([r["load_s"] for r in stages]),
        "render": summarise([r["render_s"] for r in stages]),
        "load_cpu": summarise([r["load_cpu_s"] for r in stages]),
        "gen": summarise([r["wall_s"] for r in gen]),
        "plain": summarise([r["wall_s"] for r in plain]),
        "gen_cpu": summarise([r["cpu_s"] for r in gen]),
        "plain_cpu": summarise([r["cpu_s"] for r in plain]),
        "ratio": summarise([g["wall_s"] / p["wall_s"] for g, p in pairs]),
        "ratio_cpu": summarise([g["cpu_s"] / p["cpu_s"] for g, p in pairs]),
        "gen_pp": summarise([r["wall_s"] / pages for r in gen]),
        "plain_pp": summarise([r["wall_s"] / pages for r in plain]),
        "gen_cpu_pp": summarise([r["cpu_s"] / pages for r in gen]),
        "plain_cpu_pp": summarise([r["cpu_s"] / pages for r in plain]),
        "load_pp": summarise([r["load_s"] / pages for r in stages]),
        "render_pp": summarise([r["render_s"] / pages for r in stages]),
        "plugin": summarise([r["plugin_s"] for r in gen]),
        "plugin_share": summarise([r["plugin_s"] / r["wall_s"] * 100 for r in gen]),
        "plugin_cpu_share": summarise([r["plugin_cpu_s"] / r["process_cpu_s"] * 100 for r in gen]),
        "overhead_share": summarise([(g["wall_s"] - p["wall_s"]) / g["wall_s"] * 100 for g, p in pairs]),
        "gen_rss": summarise([r["maxrss_kib"] / 1024 for r in gen]),
        "plain_rss": summarise([r["maxrss_kib"] / 1024 for r in plain]),
        "stages_rss": summarise([r["maxrss_kib"] / 1024 for r in stages]),
        "stages_import_rss": summarise([r["hwm_imported_kib"] / 1024 for r in stages]),
        "tracemalloc": entry["trace"]["tracemalloc_peak_kib"] / 1024 if entry.get("trace") else None,
        "other": max(r["other_cores"] for r in [*gen, *plain, *stages]),
        **staging_summary(entry),
    }


def staging_summary(entry: dict[str, Any]) -> dict[str, Any]:
    """The staging build's figures: the generator's work once (stage), then each engine on plain files."""
    if not entry.get("stage"):
        return {}
    stage, cm, cz = entry["stage"], entry["cadence_mkdocs"], entry["cadence_zensical"]
    zc, za, plain = entry["zensical_clean"], entry["zensical_again"], entry["plain"]
    return {
        "stage": summarise([r["stage_s"] for r in stage]),
        "stage_cpu": summarise([r["stage_cpu_s"] for r in stage]),
        "stage_sys": summarise([r.get("stage_sys_s", 0.0) for r in stage]),
        "cadence_mkdocs": summarise([r["wall_s"] for r in cm]),
        "cadence_zensical": summarise([r["wall_s"] for r in cz]),
        "zensical_clean": summarise([r["wall_s"] for r in zc]),
        "zensical_again": summarise([r["wall_s"] for r in za]),
        "zensical_ratio": summarise([z["wall_s"] / p["wall_s"] for z, p in zip(za, plain, strict=True)]),
        "stage_share": summarise([s["stage_s"] / c["wall_s"] * 100 for s, c in zip(stage, cm, strict=True)]),
        "stage_cpu_share": summarise([s["stage_cpu_s"] / c["cpu_s"] * 100 for s, c in zip(stage, cm, strict=True)]),
        # everything `cadence build` does but the engine: the staging process (start-up and imports
        # included), the command's own process and its post-build steps
        "cadence_cpu": summarise([c["cpu_s"] for c in cm]),
        "engine_cpu": summarise([c["engine_cpu_s"] for c in cm]),
        "own_cpu": summarise([c["cpu_s"] - c["engine_cpu_s"] for c in cm]),
        "own_cpu_share": summarise([(c["cpu_s"] - c["engine_cpu_s"]) / c["cpu_s"] * 100 for c in cm]),
        # the same share in user CPU alone: the system CPU of creating files varies tenfold on the bench's VM
        "own_user_share": summarise([_user_share(c) for c in cm]),
        "stage_process_sys": summarise([c.get("stage_process_sys_s", 0.0) for c in cm]),
        "stage_process_cpu": summarise([c["stage_process_cpu_s"] for c in cm]),
        "postbuild_cpu": summarise([c["postbuild_cpu_s"] for c in cm]),
        "zensical_own_cpu_share": summarise([(c["cpu_s"] - c["engine_cpu_s"]) / c["cpu_s"] * 100 for c in cz]),
        "plain_cpu_ratio": summarise([c["cpu_s"] / p["cpu_s"] for c, p in zip(cm, plain, strict=True)]),
        "cadence_mkdocs_rss": summarise([r["maxrss_kib"] / 1024 for r in cm]),
        "cadence_zensical_rss": summarise([r["maxrss_kib"] / 1024 for r in cz]),
        "stage_rss": summarise([r["hwm_end_kib"] / 1024 for r in stage]),
        "rss_ratio": summarise([c["maxrss_kib"] / p["maxrss_kib"] for c, p in zip(cm, plain, strict=True)]),
        "staging_other": max(r["other_cores"] for r in [*stage, *cm, *cz, *zc, *za]),
    }


def _user_share(build: dict[str, Any]) -> float:
    """The generator's share of one `cadence build` in user CPU: each part without its system CPU."""
    system = build.get("stage_process_sys_s", 0.0) + build.get("parent_sys_s", 0.0) + build.get("engine_sys_s", 0.0)
    own_system = build.get("stage_process_sys_s", 0.0) + build.get("parent_sys_s", 0.0)
    return (build["cpu_s"] - build["engine_cpu_s"] - own_system) / (build["cpu_s"] - system) * 100


def targets(data: dict[str, Any]) -> list[dict[str, str]]:
    sizes = data["sizes"]
    summaries = {n: size_summary(e) for n, e in sizes.items()}
    ns = sorted(summaries, key=int)
    rows = []
    goals = {"1": 15.0, "10": 10.0}
    for n in ns:
        s = summaries[n]
        if s.get("own_cpu_share") is None or n not in goals:
            continue
        share, narrow = s["own_cpu_share"]["median"], s["stage_cpu_share"]["median"]
        rows.append(
            {
                "target": f"generator's own work ≤ {goals[n]:.0f}% of `cadence build` at {n}x (CPU)",
                "measured": f"all but the engine {s['own_cpu']['median']:.2f} s of {s['cadence_cpu']['median']:.2f} s = {share:.1f}%;"
                f" `staging.stage()` alone {s['stage_cpu']['median']:.2f} s = {narrow:.1f}%;"
                f" in user CPU alone {s['own_user_share']['median']:.1f}%",
                "met": "yes" if share <= goals[n] else ("**no** (`stage()` alone: yes)" if narrow <= goals[n] else "**no**"),
            }
        )
    if "10" in summaries and summaries["10"].get("rss_ratio"):
        s10 = summaries["10"]
        rows.append(
            {
                "target": "peak memory of a generated build ≤ 1.5× the plain MkDocs build at 10x",
                "measured": f"`cadence build` {s10['cadence_mkdocs_rss']['median']:.0f} MiB (largest process) vs plain {s10['plain_rss']['median']:.0f} MiB"
                f" = {s10['rss_ratio']['median']:.2f}×; plugin build {s10['gen_rss']['median']:.0f} MiB",
                "met": "yes" if s10["rss_ratio"]["median"] <= 1.5 else "**no**",
            }
        )
    zs = data.get("zensical_serve")
    for edit in dict.fromkeys(r["edit"] for r in zs["rebuilds"]) if zs else ():
        served = [r["served_s"] for r in zs["rebuilds"] if r["edit"] == edit and r.get("served_s") is not None]
        med = statistics.median(served) if served else None
        rows.append(
            {
                "target": f"Zensical: one data edit ({edit}) served < 5 s (`cadence serve --engine zensical`, {zs['size']}x)",
                "measured": f"{med:.2f} s edit → new page served (median of {len(served)})"
                if med is not None
                else "not served within 120 s",
                "met": "yes" if med is not None and med < 5 else "**no**",
            }
        )
    check = data.get("check")
    if check:
        med = statistics.median(check["wall_s"])
        rows.append(
            {
                "target": "`cadence check` on the Cadence data ≤ 0.3 s",
                "measured": f"{med:.2f} s wall, median of {len(check['wall_s'])} (CPU {statistics.median(check['cpu_s']):.2f} s)",
                "met": "yes" if med <= 0.3 else "**no**",
            }
        )
    if len(ns) > 1:
        first, last = ns[0], ns[-1]
        for key, label in (("gen_pp", "generated"), ("plain_pp", "plain MkDocs")):
            a, b = summaries[first][key]["median"], summaries[last][key]["median"]
            rows.append(
                {
                    "target": f"per-page cost at {last}x within 20% of {first}x ({label} full build)",
                    "measured": f"{a * 1000:.1f} → {b * 1000:.1f} ms/page ({(b / a - 1) * 100:+.0f}%)",
                    "met": "yes" if b <= a * 1.2 else "**no**",
                }
            )
        exp = data.get("experiments", {})
        for variant, project in EXPERIMENTS:
            ra = exp.get(first, {}).get(project, {}).get(variant)
            rb = exp.get(last, {}).get(project, {}).get(variant)
            if ra and rb and not ra.get("skipped") and not rb.get("skipped"):
                a, b = ra["wall_s"] / sizes[first]["pages"], rb["wall_s"] / sizes[last]["pages"]
                rows.append(
                    {
                        "target": f"… same, {PROJECT_LABEL[project]}, with experiment `{variant}` (one run each)",
                        "measured": f"{a * 1000:.1f} → {b * 1000:.1f} ms/page ({(b / a - 1) * 100:+.0f}%)",
                        "met": "yes" if b <= a * 1.2 else "**no**",
                    }
                )
    return rows


def profile_table(add: Any, prof: dict[str, Any], what: str) -> None:
    add(f"## Profile at {prof['size']}x: {what} (cProfile)")
    add("")
    profiled = f" ({prof['profiled_wall_s']:.0f} s under cProfile)" if prof.get("profiled_wall_s") else ""
    add(f"Full listing: `{prof['file']}`. Shares of the profiled total{profiled}:")
    add("")
    add("| share | profiled s | where |")
    add("| ---: | ---: | --- |")
    for label, cum, pct in prof["rows"]:
        add(f"| {pct:.1f}% | {cum:.2f} | {label.replace('  of which', '↳ of which')} |")
    add("")


def write_results(data: dict[str, Any], out: Path) -> None:
    sizes = data["sizes"]
    summaries = {n: size_summary(e) for n, e in sizes.items()}
    ns = sorted(summaries, key=int)
    lines: list[str] = []
    add = lines.append
    add("# Benchmark results: generated rules site against plain MkDocs")
    add("")
    add(f"Measured {data['date']} with `{data['command']}` ({data['elapsed_s'] / 60:.1f} min; budget {data['budget_min']:g} min).")
    add("")
    add("| machine | |")
    add("| --- | --- |")
    for k, v in data["machine"].items():
        add(f"| {k} | `{v}` |")
    for k, v in data["versions"].items():
        add(f"| {k} | {v} |")
    add("")
    add("Figures are median (min–max) over the runs; a single figure is one run. Times are wall-clock seconds unless")
    add("marked CPU. `Nx` = every non-core module replicated N times (`bench/synth.py`); pages = Markdown pages MkDocs")
    add("builds. Full builds are `mkdocs build --strict` in a fresh process (start-up and imports included); load and")
    add("render are timed in a fresh process after imports. Peak memory is each command's own max RSS.")
    add("")
    eq = data.get("equivalence")
    if eq:
        same = not eq["differ_count"] and not eq["only_in_generated"] and not eq["only_in_plain"] and eq["search_index_same_entries"]
        add(
            f"Equivalence ({eq['size']}x): the generated and the plain site are {'identical' if same else '**different**'} — "
            f"{eq['files_compared']} files compared byte for byte ({eq['html_compared']} HTML pages), {eq['differ_count']} differ"
            f"{' ' + str(eq['differ'][:5]) if eq['differ_count'] else ''}; only in the generated site: {eq['only_in_generated'][:5] or 'none'}; "
            f"only in the plain site: {eq['only_in_plain'][:5] or 'none'}; search index entries the same: {eq['search_index_same_entries']}."
        )
        add("")
    add("## Stages and full builds")
    add("")
    add(
        "| size | pages | runs | load+model+check | render | full build, generated | full build, plain MkDocs | ratio | "
        "generator's work inside the build | (generated − plain) / generated | other load |"
    )
    add("| --- | ---: | ---: | --- | --- | --- | --- | --- | --- | --- | ---: |")
    for n in ns:
        s, e = summaries[n], sizes[n]
        add(
            f"| {n}x | {e['pages']} | {s['runs']} | {fmt(s['load'])} | {fmt(s['render'])} | {fmt(s['gen'])} | {fmt(s['plain'])} | "
            f"{fmt(s['ratio'])} | {fmt(s['plugin'])} s = {fmt(s['plugin_share'], digits=1, unit='%')} | {fmt(s['overhead_share'], digits=1, unit='%')} | "
            f"{s['other']:.2f} |"
        )
    add("")
    add("*other load*: CPUs kept busy by other processes during the size's measurements (worst one; machine busy time")
    add("from /proc/stat minus the measured command's own CPU time, per wall second). Above ~0.3 on this 2-CPU machine")
    add("wall times are disturbed; the CPU times below (user+sys of the measured process) much less so.")
    add("")
    add(
        "| size | CPU load+model+check | CPU full build, generated | CPU full build, plain | CPU ratio | generator's share of the build's CPU |"
    )
    add("| --- | --- | --- | --- | --- | --- |")
    for n in ns:
        s = summaries[n]
        add(
            f"| {n}x | {fmt(s['load_cpu'])} | {fmt(s['gen_cpu'])} | {fmt(s['plain_cpu'])} | {fmt(s['ratio_cpu'])} | {fmt(s['plugin_cpu_share'], digits=1, unit='%')} |"
        )
    add("")
    if any(summaries[n].get("stage") for n in ns):
        add("## The staging build and the engines")
        add("")
        add("`cadence build` stages the whole site once (`generator/staging.py`: load, check, render, expand, write the docs")
        add("tree and engine config), then runs an engine on plain files. *stage* is that step alone in a fresh process; the")
        add("builds are whole commands. Zensical builds the same staged tree (`plain`): *clean* empties its cache first,")
        add("*again* is a repeated build. Ratios are from the same run.")
        add("")
        add("CPU seconds (user+sys) of `cadence build` and its parts, from the same run (`bench/_cadence_build.py`): the engine")
        add("(its process, forked from the command on Linux, and the Jinja, Markdown and YAML imports it shares with staging,")
        add("done once before the forks), and the generator's own work, which is everything else: the staging process (a fork")
        add("that imports the generator), the command's own process (interpreter start-up, imports) and its post-build steps.")
        add("`stage()` is the staging call alone, after imports. *System* is the kernel's CPU in a part: on this VM creating")
        add("a file costs 0.02 to 0.75 ms of it (0.01 ms on tmpfs), so writing the docs tree's files weighs on staging from one")
        add("run to the next; *share in user CPU* leaves every part's system CPU out.")
        add("")
        add(
            "| size | `cadence build` CPU | engine (MkDocs) | generator's own | share | share in user CPU | staging process | … of which system | "
            "`stage()` alone | … of which system | share | post-build steps | plain MkDocs CPU | `cadence build` / plain | share with Zensical |"
        )
        add("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for n in ns:
            s, e = summaries[n], sizes[n]
            if not s.get("own_cpu"):
                continue
            add(
                f"| {n}x | {fmt(s['cadence_cpu'])} | {fmt(s['engine_cpu'])} | {fmt(s['own_cpu'])} | {fmt(s['own_cpu_share'], digits=1, unit='%')} | "
                f"{fmt(s['own_user_share'], digits=1, unit='%')} | {fmt(s['stage_process_cpu'])} | {fmt(s['stage_process_sys'])} | "
                f"{fmt(s['stage_cpu'])} | {fmt(s['stage_sys'])} | {fmt(s['stage_cpu_share'], digits=1, unit='%')} | {fmt(s['postbuild_cpu'])} | "
                f"{fmt(s['plain_cpu'])} | {fmt(s['plain_cpu_ratio'])} | {fmt(s['zensical_own_cpu_share'], digits=1, unit='%')} |"
            )
        add("")
        add(
            "| size | pages | stage | `cadence build` (MkDocs) | stage share | `cadence build --engine zensical` | plain MkDocs | "
            "plain Zensical, clean | plain Zensical, again | Zensical again / MkDocs | other load |"
        )
        add("| --- | ---: | --- | --- | --- | --- | --- | --- | --- | --- | ---: |")
        for n in ns:
            s, e = summaries[n], sizes[n]
            if not s.get("stage"):
                continue
            add(
                f"| {n}x | {e['pages']} | {fmt(s['stage'])} | {fmt(s['cadence_mkdocs'])} | {fmt(s['stage_share'], digits=1, unit='%')} | "
                f"{fmt(s['cadence_zensical'])} | {fmt(s['plain'])} | {fmt(s['zensical_clean'])} | {fmt(s['zensical_again'])} | "
                f"{fmt(s['zensical_ratio'])} | {s['staging_other']:.2f} |"
            )
        add("")
        add(
            "| size | peak RSS MiB: `cadence build` (MkDocs; largest process) | … with Zensical | stage process | plugin build | plain MkDocs | `cadence build` / plain |"
        )
        add("| --- | --- | --- | --- | --- | --- | --- |")
        for n in ns:
            s = summaries[n]
            if not s.get("stage"):
                continue
            add(
                f"| {n}x | {fmt(s['cadence_mkdocs_rss'], digits=0)} | {fmt(s['cadence_zensical_rss'], digits=0)} | {fmt(s['stage_rss'], digits=0)} | "
                f"{fmt(s['gen_rss'], digits=0)} | {fmt(s['plain_rss'], digits=0)} | {fmt(s['rss_ratio'])} |"
            )
        add("")
    zs = data.get("zensical_serve")
    if zs:
        add(f"## `cadence serve --engine zensical`: a data edit at {zs['size']}x")
        add("")
        add(f"Start-up to first page served: {zs['startup_s']:.1f} s. Edits: {RULE_TEXT_EDIT.name} (`{RULE_TEXT_EDIT.page}` polled; the")
        add(f"navigation does not change) and {TITLE_EDIT.name} (`{TITLE_EDIT.page}`; every page's navigation changes, which")
        add(
            "Zensical reads from the staged `docs/.nav.yml`). *re-staging* is what `cadence serve` reports for its staging; *engine* is the rest, until"
        )
        add("the page is served. All wall-clock seconds from the write. *server CPU*: CPU seconds of `cadence serve` and")
        add("its engine from the write until served; *other load*: CPUs other processes kept busy meanwhile.")
        add("")
        add("| edit | run | new page served | re-staging (reported) | engine | server CPU | other load |")
        add("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in zs["rebuilds"]:
            served, staged = r.get("served_s"), r.get("restaged_reported_s")
            engine = f"{served - r['restaged_s']:.2f} s" if served is not None and r.get("restaged_s") is not None else "–"
            cpu, other = r.get("server_cpu_s"), r.get("other_cores")
            add(
                f"| {r['edit']} | {r['n']} | {f'{served:.2f} s' if served is not None else 'not within 120 s'} | "
                f"{f'{staged:.2f} s' if staged is not None else '–'} | {engine} | "
                f"{f'{cpu:.2f} s' if cpu is not None else '–'} | {f'{other:.2f}' if other is not None else '–'} |"
            )
        add("")
    add("## Per-page cost (milliseconds per page)")
    add("")
    add("| size | pages | load+model+check | render | full build, generated | full build, plain MkDocs | CPU, generated | CPU, plain |")
    add("| --- | ---: | --- | --- | --- | --- | --- | --- |")
    for n in ns:
        s, e = summaries[n], sizes[n]
        add(
            f"| {n}x | {e['pages']} | {fmt(s['load_pp'], 1000, 1)} | {fmt(s['render_pp'], 1000, 1)} | {fmt(s['gen_pp'], 1000, 1)} | "
            f"{fmt(s['plain_pp'], 1000, 1)} | {fmt(s['gen_cpu_pp'], 1000, 1)} | {fmt(s['plain_cpu_pp'], 1000, 1)} |"
        )
    add("")
    add("## Peak memory (MiB, max RSS)")
    add("")
    add(
        "| size | full build, generated | full build, plain MkDocs | load+render process (of which after imports) | Python allocations in load+render (tracemalloc peak) |"
    )
    add("| --- | --- | --- | --- | --- |")
    for n in ns:
        s = summaries[n]
        tm = f"{s['tracemalloc']:.0f}" if s["tracemalloc"] else "–"
        add(
            f"| {n}x | {fmt(s['gen_rss'], digits=0)} | {fmt(s['plain_rss'], digits=0)} | {fmt(s['stages_rss'], digits=0)} ({fmt(s['stages_import_rss'], digits=0)}) | {tm} |"
        )
    add("")
    check = data.get("check")
    if check:
        add("## `cadence check` on the shipped data")
        add("")
        add("| what | time |")
        add("| --- | --- |")
        add(
            f"| `{check['command']}` on the shipped project (exit codes {sorted(set(check['exit_codes']))}), wall | {fmt(summarise(check['wall_s']), digits=3)} s |"
        )
        add(f"| … its CPU time (user+sys) | {fmt(summarise(check['cpu_s']), digits=3)} s |")
        add(f"| bare `python -c pass` | {fmt(summarise(check['bare_python_s']), digits=3)} s |")
        add(f"| python + `import generator.cli, generator.pages` | {fmt(summarise(check['python_plus_imports_s']), digits=3)} s |")
        y = data.get("yaml")
        if y:
            add(f"| `load_project` on the shipped data in a fresh process, after imports | {y['load_s']:.3f} s |")
            add(
                f"| … of which reading the YAML with the generator's loader (parse + located values) | {y['yaml_generator_loader_s']:.3f} s |"
            )
            add(f"| … bare libyaml compose of the same files, for scale | {y['yaml_libyaml_compose_s']:.3f} s |")
        add(f"| peak RSS of `cadence check` | {fmt(summarise([r / 1024 for r in check['maxrss_kib']]), digits=0)} MiB |")
        add("")
    serve = data.get("serve")
    if serve:
        add(f"## `mkdocs serve`: rebuild after one YAML file changes ({serve['size']}x generated project)")
        add("")
        add(f"Edit: {serve['edit']}; page polled: `{serve['page']}`. Server start-up with the first build: {serve['startup_s']:.2f} s.")
        add("Times from the moment the file was written. MkDocs polls for changes every 0.5 s, then rebuilds everything.")
        add("")
        add("| edit | change detected | rebuild (`Documentation built in`) | `Reloading browsers` | new page served |")
        add("| ---: | ---: | ---: | ---: | ---: |")
        for i, r in enumerate(serve["rebuilds"], 1):
            cells = [f"{r[k]:.2f} s" if r.get(k) is not None else "–" for k in ("detected_s", "built_reported_s", "reloaded_s", "served_s")]
            add(f"| {i} | " + " | ".join(cells) + " |")
        add("")
        add(f"Edit to new page served: {fmt(summarise([r.get('served_s') for r in serve['rebuilds']]))} s.")
        add("")
    exp = data.get("experiments")
    if exp:
        add("## Experiments (one run each)")
        add("")
        features = ", ".join(f"`{f}`" for f in data.get("features", []))
        add(f"The same projects built with a copy of mkdocs.yml changed in one way. Shipped `theme.features`: {features}.")
        add("Baseline: the shipped configuration (median of the main runs).")
        add("")
        for name in VARIANTS:
            add(f"- *{name}*: {VARIANT_TEXT[name]}")
        add("")
        add(
            "| size | pages | project | variant | full build | CPU | ms/page | CPU ms/page | CPU vs baseline | generator's share | index.html |"
        )
        add("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n in ns:
            e = sizes[n]
            for project in ("gen", "plain"):
                runs = e[project]
                label = PROJECT_LABEL[project]
                base_wall = statistics.median(r["wall_s"] for r in runs)
                base_cpu = statistics.median(r["cpu_s"] for r in runs)
                share = f"{statistics.median(r['plugin_s'] / r['wall_s'] * 100 for r in runs):.0f}%" if project == "gen" else "–"
                add(
                    f"| {n}x | {e['pages']} | {label} | baseline | {base_wall:.2f} s | {base_cpu:.2f} s | {base_wall / e['pages'] * 1000:.1f} | "
                    f"{base_cpu / e['pages'] * 1000:.1f} | – | {share} | {(runs[0]['index_html_bytes'] or 0) / 1024:.0f} KiB |"
                )
                for variant, proj in EXPERIMENTS:
                    r = exp.get(n, {}).get(project, {}).get(variant) if proj == project else None
                    if not r:
                        continue
                    if r.get("skipped") == "same as the shipped configuration":
                        continue
                    if r.get("skipped"):
                        add(f"| {n}x | {e['pages']} | {label} | {variant} | skipped ({r['skipped']}) | | | | | | |")
                        continue
                    share = f"{r['plugin_s'] / r['wall_s'] * 100:.0f}%" if project == "gen" else "–"
                    add(
                        f"| {n}x | {e['pages']} | {label} | {variant} | {r['wall_s']:.2f} s | {r['cpu_s']:.2f} s | {r['wall_s'] / e['pages'] * 1000:.1f} | "
                        f"{r['cpu_s'] / e['pages'] * 1000:.1f} | {(r['cpu_s'] / base_cpu - 1) * 100:+.0f}% | {share} | {(r['index_html_bytes'] or 0) / 1024:.0f} KiB |"
                    )
        add("")
    for key, what in (("stage_profile", "`staging.stage`: what remains of the generator's work"), ("profile", "one plugin build")):
        if data.get(key):
            profile_table(add, data[key], what)
    add("## Targets")
    add("")
    add("| target | measured | met? |")
    add("| --- | --- | --- |")
    for t in data["targets"]:
        add(f"| {t['target']} | {t['measured']} | {t['met']} |")
    add("")
    if data.get("notes"):
        add("## Notes")
        add("")
        for note in data["notes"]:
            add(f"- {note}")
        add("")
    (out / "RESULTS.md").write_text("\n".join(lines), encoding="utf-8")


def plot(data: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = data["sizes"]
    ns = sorted(sizes, key=int)
    pages = [sizes[n]["pages"] for n in ns]
    ticks = [f"{p}\n({n}x)" for n, p in zip(ns, pages, strict=True)]
    exp = data.get("experiments", {})
    fig, axes = plt.subplots(1, 3, figsize=(19, 6))

    def series(key: str, per_page: bool) -> tuple[list[float], list[list[float]]]:
        meds, lo, hi = [], [], []
        for n in ns:
            vals = [r["wall_s"] * (1000 / sizes[n]["pages"] if per_page else 1) for r in sizes[n][key]]
            m = statistics.median(vals)
            meds.append(m)
            lo.append(m - min(vals))
            hi.append(max(vals) - m)
        return meds, [lo, hi]

    def stage(key: str, per_page: bool) -> list[float]:
        return [statistics.median(r[key] for r in sizes[n]["stages"]) * (1000 / sizes[n]["pages"] if per_page else 1) for n in ns]

    def variant_points(project: str, variant: str, per_page: bool) -> tuple[list[int], list[float]]:
        xs, ys = [], []
        for n in ns:
            r = exp.get(n, {}).get(project, {}).get(variant)
            if r and not r.get("skipped"):
                xs.append(sizes[n]["pages"])
                ys.append(r["wall_s"] * (1000 / sizes[n]["pages"] if per_page else 1))
        return xs, ys

    styles = {"no-prune": "--", "prune": "--", "prune-no-sections": "-.", "games-off-nav": (0, (1, 1))}
    for ax, per_page in ((axes[0], False), (axes[1], True)):
        for key, label, color in (
            ("gen", "generated project (rules plugin)", "tab:blue"),
            ("plain", "plain MkDocs, same pages", "tab:orange"),
        ):
            meds, err = series(key, per_page)
            ax.errorbar(pages, meds, yerr=err, marker="o", capsize=4, linewidth=2, color=color, label=f"full build, {label}")
        ax.plot(pages, stage("load_s", per_page), marker="s", linestyle=":", color="tab:green", label="load+model+check")
        ax.plot(pages, stage("render_s", per_page), marker="^", linestyle=":", color="tab:red", label="render")
        for variant, project in EXPERIMENTS:
            xs, ys = variant_points(project, variant, per_page)
            if xs and (per_page or variant in ("prune", "no-prune")):
                color = "tab:blue" if project == "gen" else "tab:orange"
                ax.plot(
                    xs,
                    ys,
                    marker="x",
                    linestyle=styles.get(variant, "--"),
                    color=color,
                    alpha=0.6,
                    label=f"{PROJECT_LABEL[project]} + {variant} (1 run)",
                )
        if per_page and pages[-1] / pages[0] > 8:
            ax.set_xscale("log")
        ax.set_xticks(pages, ticks)
        ax.minorticks_off()
        ax.set_xlabel("pages built (copies of each game)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("seconds (median; bars: min–max)")
    axes[0].set_title("Time against size")
    axes[1].set_ylabel("milliseconds per page")
    axes[1].set_title("Per-page cost")
    shares = [statistics.median(r["plugin_s"] / r["wall_s"] * 100 for r in sizes[n]["gen"]) for n in ns]
    over = [
        statistics.median((g["wall_s"] - p["wall_s"]) / g["wall_s"] * 100 for g, p in zip(sizes[n]["gen"], sizes[n]["plain"], strict=True))
        for n in ns
    ]
    axes[2].plot(pages, shares, marker="o", label="time in the rules plugin's hooks / full build")
    axes[2].plot(pages, over, marker="s", linestyle="--", label="(generated − plain) / generated")
    axes[2].axhline(10, color="red", linestyle=":", label="target: 10%")
    axes[2].set_ylim(bottom=0)
    if pages[-1] / pages[0] > 8:
        axes[2].set_xscale("log")
    axes[2].set_xticks(pages, ticks)
    axes[2].minorticks_off()
    axes[2].set_xlabel("pages built (copies of each game)")
    axes[2].set_ylabel("% of the generated build's wall time")
    axes[2].set_title("Generator's own work")
    axes[2].legend(fontsize=8)
    axes[2].grid(True, alpha=0.3)
    fig.suptitle(
        f"Cadence rules site, generated vs plain MkDocs — {data['machine']['nproc']} CPUs, {data['date'][:16]}, {data['machine']['code measured'].split(':')[0]}"
    )
    fig.tight_layout()
    fig.savefig(out / "plot.png", dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------ main


def main() -> int:
    p = argparse.ArgumentParser(description="Benchmark the rules generator against plain MkDocs as the data grows.")
    p.add_argument("--sizes", default="1,10,50", help="comma-separated scale factors (default 1,10,50)")
    p.add_argument("--runs", type=int, default=3, help="runs per size (default 3; fewer where they do not fit the budget)")
    p.add_argument(
        "--budget-minutes", type=float, default=20, help="optional work (extra runs, profile, experiments) stops past this (default 20)"
    )
    p.add_argument(
        "--quiet-wait",
        type=float,
        default=20,
        help="before each measurement, wait up to this many seconds for other processes to go idle (default 20; 0: never)",
    )
    p.add_argument(
        "--profile-size", type=int, default=10, help="size whose generated build is profiled with cProfile (0: none; default 10)"
    )
    p.add_argument("--experiments", default="", help="comma-separated experiments to run (default all: " + ", ".join(VARIANTS) + ")")
    p.add_argument("--no-experiments", action="store_true", help="skip the experiments")
    p.add_argument("--no-serve", action="store_true", help="skip the mkdocs serve rebuild measurement")
    p.add_argument(
        "--source",
        help="measure a git revision (e.g. HEAD): its generator/, data/, content/ and mkdocs.yml, unaffected by edits to the working tree during the run",
    )
    p.add_argument("--quick", action="store_true", help="smoke test: sizes 1,2, one run, no profile or experiments")
    p.add_argument("--work", type=Path, default=BENCH / ".work", help="scratch folder for the synthetic projects (default bench/.work)")
    p.add_argument("--out", type=Path, default=BENCH / "results", help="results folder (default bench/results)")
    args = p.parse_args()
    if args.quick:
        args.sizes, args.runs, args.profile_size, args.no_experiments = "1,2", 1, 0, True
    sizes = [str(int(s)) for s in args.sizes.split(",") if s.strip()]
    chosen = [x.strip() for x in args.experiments.split(",") if x.strip()] or list(VARIANTS)
    unknown = [x for x in chosen if x not in VARIANTS]
    if unknown:
        p.error(f"unknown experiments: {', '.join(unknown)}")
    budget = Budget(args.budget_minutes)
    QUIET.per_wait, QUIET.total = args.quiet_wait, args.budget_minutes * 60 / 4
    work: Path = args.work.resolve()
    out: Path = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": "python bench/run.py" + "".join(f" {a}" for a in sys.argv[1:]),
        "budget_min": args.budget_minutes,
        "machine": machine(),
        "versions": versions(),
        "sizes": {},
        "notes": [],
    }
    projects: dict[str, tuple[Path, Path]] = {}
    source = REPO
    if args.source:
        # a committed revision: its data, content, mkdocs.yml and generator package, so that edits in the
        # working tree during the run change nothing measured (children get it first on PYTHONPATH)
        source = work / "source"
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        wanted = ("mkdocs.yml", "data", "content", "overrides", "generator")
        tracked = [
            x
            for x in wanted
            if subprocess.run(["git", "cat-file", "-e", f"{args.source}:{x}"], cwd=REPO, capture_output=True).returncode == 0
        ]
        archive = subprocess.run(
            ["git", "archive", "--format=tar", args.source, *tracked], cwd=REPO, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        (source / "overrides").mkdir(exist_ok=True)
        ENV["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [os.environ.get("PYTHONPATH")])])
        sys.path.insert(0, str(source))
        rev = subprocess.run(["git", "rev-parse", "--short", args.source], cwd=REPO, capture_output=True, text=True).stdout.strip()
        data["machine"]["code measured"] = f"{rev} ({args.source}): generator/, data/, content/, mkdocs.yml as committed"
    # The generator's cache: the bench's own, so each `cadence build` starts from the same state (`measure_cadence_build`).
    ENV["XDG_CACHE_HOME"] = str(work / "cache")
    global synth
    import synth as synth_module

    synth = synth_module
    import generator

    log(f"measuring the generator in {Path(generator.__file__).parent}, data from {source}")
    data["features"] = list(synth.read_mkdocs_yml(source).get("theme", {}).get("features", []))

    # 1. the synthetic projects
    for n in sizes:
        t0 = time.perf_counter()
        projects[n] = synth.scale(source, work / f"{n}x", int(n))
        log(f"synthesised {n}x in {time.perf_counter() - t0:.1f} s -> {work / f'{n}x'}")

    def one_run(n: str, i: int) -> None:
        gen, plain = projects[n]
        wk = gen.parent
        st = measure_stages(gen, wk, f"{i}")
        entry = data["sizes"].setdefault(n, {"pages": st["pages"], "stages": [], "gen": [], "plain": []})
        entry["stages"].append(st)
        keep = i == 1 and n == sizes[0]
        g = measure_build(gen, wk, f"gen-{i}", keep=keep)
        pl = measure_build(plain, wk, f"plain-{i}", keep=keep)
        entry["gen"].append(g)
        entry["plain"].append(pl)
        # the staging build: the generator's whole work once, then each engine on plain files
        for key, measure in (
            ("stage", lambda: measure_stage_alone(gen, wk, f"stage-{i}")),
            ("cadence_mkdocs", lambda: measure_cadence_build(gen, wk, f"cadence-mkdocs-{i}", "mkdocs")),
            ("cadence_zensical", lambda: measure_cadence_build(gen, wk, f"cadence-zensical-{i}", "zensical")),
            ("zensical_clean", lambda: measure_zensical(plain, wk, f"zensical-clean-{i}", clean=True)),
            ("zensical_again", lambda: measure_zensical(plain, wk, f"zensical-again-{i}", clean=False)),
        ):
            entry.setdefault(key, []).append(measure())
        if keep:
            data["equivalence"] = {"size": n, **compare_sites(Path(g.pop("site")), Path(pl.pop("site")))}
            shutil.rmtree(wk / f"site-gen-{i}", ignore_errors=True)
            shutil.rmtree(wk / f"site-plain-{i}", ignore_errors=True)
        log(
            f"{n}x run {i}: {st['pages']} pages; load {st['load_s']:.2f} s, render {st['render_s']:.2f} s; "
            f"build generated {g['wall_s']:.1f} s (plugin {g['plugin_s']:.2f} s), plain {pl['wall_s']:.1f} s; "
            f"stage {entry['stage'][-1]['stage_s']:.2f} s, cadence build mkdocs {entry['cadence_mkdocs'][-1]['wall_s']:.1f} s, "
            f"zensical {entry['cadence_zensical'][-1]['wall_s']:.1f} s; plain zensical {entry['zensical_clean'][-1]['wall_s']:.1f} s "
            f"(again {entry['zensical_again'][-1]['wall_s']:.1f} s)"
        )

    def run_cost(n: str) -> float:
        e = data["sizes"][n]
        keys = ("stages", "gen", "plain", "stage", "cadence_mkdocs", "cadence_zensical", "zensical_clean", "zensical_again")
        return float(sum(e[k][-1]["wall_s"] for k in keys))

    # 2. the first run of every size, always
    for n in sizes:
        one_run(n, 1)

    # 3. cadence check on the shipped data, and what its YAML costs
    data["check"] = measure_check(max(args.runs, 5), work, source)
    data["yaml"] = measure_stages(source, work, "repo-yaml", "--yaml")
    log(f"cadence check: {statistics.median(data['check']['wall_s']):.2f} s")

    # 4. mkdocs serve (the plugin) at the smallest size, then cadence serve --engine zensical at the largest up to 10x
    if not args.no_serve:
        for key, n, measure in (
            ("serve", sizes[0], lambda gen: measure_serve(gen, max(args.runs, 3), gen.parent)),
            (
                "zensical_serve",
                max((x for x in sizes if int(x) <= 10), key=int),
                lambda gen: measure_cadence_serve(gen, "zensical", max(args.runs, 2), gen.parent),
            ),
        ):
            try:
                data[key] = {"size": n, **measure(projects[n][0])}
                log(f"{key} at {n}x: {[(r['edit'], round(r['served_s'] or -1, 2)) for r in data[key]['rebuilds']]}")
            except (RuntimeError, OSError) as exc:
                data["notes"].append(f"{key} measurement failed: {exc}")

    # 5. more runs, round robin, while they fit
    for i in range(2, args.runs + 1):
        for n in sizes:
            if budget.fits(run_cost(n)):
                one_run(n, i)
    for n in sizes:
        got = len(data["sizes"][n]["gen"])
        if got < args.runs:
            data["notes"].append(
                f"{n}x: {got} run(s) of {args.runs}: more did not fit the {args.budget_minutes:g}-minute budget on this machine."
            )

    # 6. profile of what remains of the generator's work (staging.stage), then of one plugin build
    n = str(args.profile_size)
    if args.profile_size and n in projects:
        gen, _ = projects[n]
        prof = work / f"profile-stage-{n}x.prof"
        forget_builds()  # the state each `cadence build` starts from
        measure_stages(gen, gen.parent, "profile-stage", "--stage", f"--profile={prof}")
        title = f"cProfile of `staging.stage` (the generator's whole work in `cadence build`) on the {n}x project"
        data["stage_profile"] = {
            "size": n,
            "file": f"{out.relative_to(REPO) if out.is_relative_to(REPO) else out}/profile-stage-{n}x.txt",
            "rows": profile_summary(prof, out / f"profile-stage-{n}x.txt", title, STAGE_CATEGORIES),
        }
        log(f"profiled staging at {n}x")
        if budget.fits(data["sizes"][n]["gen"][0]["wall_s"] * 2.5):
            prof = work / f"profile-{n}x.prof"
            r = measure_build(gen, gen.parent, "profile", profile=prof)
            title = f"cProfile of `mkdocs build --strict` of the {n}x generated project ({data['sizes'][n]['pages']} pages)"
            rows = profile_summary(prof, out / f"profile-{n}x.txt", title)
            data["profile"] = {
                "size": n,
                "file": f"{out.relative_to(REPO) if out.is_relative_to(REPO) else out}/profile-{n}x.txt",
                "rows": rows,
                "profiled_wall_s": r["wall_s"],
            }
            log(f"profiled the {n}x build ({r['wall_s']:.0f} s under cProfile)")
        else:
            data["notes"].append(f"The profile of the {n}x build did not fit the budget.")

    # 7. experiments, one run each: smaller sizes first, in order of interest within a size
    if not args.no_experiments:
        exp: dict[str, Any] = {}
        data["experiments"] = exp
        for n in sizes:
            for variant, project in EXPERIMENTS:
                if variant not in chosen:
                    continue
                root = projects[n][0 if project == "gen" else 1]
                slot = exp.setdefault(n, {}).setdefault(project, {})
                if not budget.fits(statistics.median(r["wall_s"] for r in data["sizes"][n][project])):
                    slot[variant] = {"skipped": "time budget"}
                    continue
                config = write_variant(root, variant, projects[n][1])
                if config is None:
                    slot[variant] = {"skipped": "same as the shipped configuration"}
                    continue
                slot[variant] = measure_build(root, root.parent, f"{project}-{variant}", config=config)
                log(f"{n}x {PROJECT_LABEL[project]} {variant}: {slot[variant]['wall_s']:.1f} s")
        skipped = [
            f"{n}x {PROJECT_LABEL[pr]} {v}"
            for n, by in exp.items()
            for pr, vs in by.items()
            for v, r in vs.items()
            if r.get("skipped") == "time budget"
        ]
        if skipped:
            data["notes"].append(f"Experiments skipped for the time budget: {', '.join(skipped)}.")

    # 8. tracemalloc peak of load+render (slow; only where it fits)
    for n in sizes:
        gen, _ = projects[n]
        if budget.fits(data["sizes"][n]["stages"][0]["wall_s"] * 3):
            data["sizes"][n]["trace"] = measure_stages(gen, gen.parent, "trace", "--tracemalloc")

    data["elapsed_s"] = budget.elapsed()
    if QUIET.waited:
        data["notes"].append(
            f"Waited {QUIET.waited:.0f} s in all for other processes to leave the CPUs idle before measurements (--quiet-wait {args.quiet_wait:g})."
        )
    disturbed = [f"{n}x" for n in sizes if size_summary(data["sizes"][n])["other"] > 0.3]
    if disturbed:
        data["notes"].append(
            f"Other processes were busy during some measurements at {', '.join(disturbed)} (see *other load*); compare CPU times there."
        )
    data["targets"] = targets(data)
    (out / "results.json").write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    write_results(data, out)
    plot(data, out)
    log(f"done in {budget.elapsed() / 60:.1f} min: {out / 'RESULTS.md'}, {out / 'plot.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
