"""Benchmarks: what generating costs, against plain MkDocs, as the data grows.

    python bench/run.py                       # sizes 1,10,50, 3 runs, ~20 minute budget
    python bench/run.py --sizes 1,10 --runs 5
    python bench/run.py --quick               # sizes 1,2, 1 run, no profile/experiments (smoke test)

Writes bench/results/RESULTS.md, bench/results/plot.png, bench/results/results.json and
bench/results/profile-<N>x.txt. See bench/README.md for what each figure means.
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
from importlib import metadata
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))


import synth  # noqa: E402
import yaml  # noqa: E402

PY = sys.executable
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONHASHSEED": "0"}
BUILD_TIMEOUT_S = 3600

# experiments: (variant, project), in order of interest; each variant is a copy of mkdocs.yml (VARIANTS)
EXPERIMENTS: list[tuple[str, str]] = [
    ("prune", "gen"),
    ("prune", "plain"),
    ("games-off-nav", "gen"),
    ("games-off-nav", "plain"),
    ("prune-no-sections", "gen"),
    ("prune-no-sections", "plain"),
]

# theme-feature variants measured by the experiments (applied to a copy of mkdocs.yml)
VARIANTS: dict[str, dict[str, list[str]]] = {
    "prune": {"add": ["navigation.prune"], "remove": []},
    "prune-no-sections": {"add": ["navigation.prune"], "remove": ["navigation.sections"]},
    # not a theme setting: the nav keeps home, core rules, landing pages and indexes, but no game's pages
    # (still built and linked from the landing and module pages): the floor of what the nav costs per page
    "games-off-nav": {"add": [], "remove": [], "nav": ["games-off"]},
}


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


# --------------------------------------------------------------------------------------------- helpers


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def summarise(values: list[float]) -> dict[str, float] | None:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _cpu_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields) - idle) / tick, sum(fields) / tick


def run_child(command: list[str], cwd: Path, log_file: Path, timeout: float = BUILD_TIMEOUT_S) -> dict[str, float]:
    """Run a command to its end through `_spawn.py`.

    Returns its exit code, wall seconds, CPU seconds (user+sys) and peak RSS KiB of that command alone
    (wait4 in the small spawner, see `_spawn.py`), and `other_cores`: how many CPUs other processes kept
    busy meanwhile, on average (machine busy time from /proc/stat minus the command's own), to flag
    measurements disturbed by other work on the machine.
    """
    report = log_file.with_suffix(".rusage.json")
    report.unlink(missing_ok=True)
    QUIET.wait()
    with open(log_file, "wb") as err:
        busy0, _ = _cpu_busy()
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
        busy1, _ = _cpu_busy()
    if not report.is_file():
        raise SystemExit(f"could not run {' '.join(command)}; see {log_file}")
    child = json.loads(report.read_text())
    other = max(0.0, (busy1 - busy0) - child["cpu_s"] - 0.02) / outer if outer > 0 else 0.0
    return {**child, "other_cores": other}


class Quiet:
    """Before each measurement, wait (bounded) until other processes leave the CPUs alone."""

    def __init__(self, per_wait: float, total: float) -> None:
        self.per_wait = per_wait
        self.total = total
        self.waited = 0.0

    def wait(self, threshold: float = 0.25) -> None:
        if self.per_wait <= 0 or self.waited >= self.total:
            return
        t0 = time.perf_counter()
        calm = 0
        while time.perf_counter() - t0 < min(self.per_wait, self.total - self.waited):
            busy0, _ = _cpu_busy()
            time.sleep(0.5)
            busy1, _ = _cpu_busy()
            calm = calm + 1 if (busy1 - busy0) / 0.5 < threshold else 0
            if calm >= 2:
                break
        self.waited += time.perf_counter() - t0


QUIET = Quiet(0, 0)


class Budget:
    """Wall-clock budget: optional measurements run only while the estimate fits."""

    def __init__(self, minutes: float) -> None:
        self.start = time.perf_counter()
        self.limit = minutes * 60

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def fits(self, estimate: float) -> bool:
        return self.elapsed() + estimate <= self.limit


# ------------------------------------------------------------------------------------------ measurements


def measure_stages(project: Path, work: Path, tag: str, *flags: str) -> dict[str, Any]:
    out = work / f"stages-{tag}.json"
    child = run_child([PY, str(BENCH / "_stages.py"), str(project), str(out), *flags], project, work / f"stages-{tag}.log")
    if child["code"] != 0:
        raise SystemExit(f"stage worker failed for {project}; see {work / f'stages-{tag}.log'}")
    result = json.loads(out.read_text())
    result.update(wall_s=child["wall_s"], maxrss_kib=child["maxrss_kib"], other_cores=child["other_cores"])
    return result


def measure_build(
    project: Path,
    work: Path,
    tag: str,
    config: str = "mkdocs.yml",
    profile: Path | None = None,
    keep: bool = False,
    flags: tuple[str, ...] = (),
) -> dict[str, Any]:
    site = work / f"site-{tag}"
    shutil.rmtree(site, ignore_errors=True)
    out = work / f"build-{tag}.json"
    command = [PY, str(BENCH / "_build.py"), str(project), str(site), str(out)]
    if config != "mkdocs.yml":
        command += ["--config", config]
    if profile is not None:
        command += ["--profile", str(profile)]
    command += list(flags)
    child = run_child(command, project, work / f"build-{tag}.log")
    if child["code"] != 0 or not out.is_file():
        raise SystemExit(f"mkdocs build failed for {project} ({config}); see {work / f'build-{tag}.log'}")
    inner = json.loads(out.read_text())
    index = site / "index.html"
    pages_html = sum(1 for _ in site.rglob("*.html"))
    result = {
        **inner,
        **{k: child[k] for k in ("wall_s", "cpu_s", "maxrss_kib", "other_cores")},
        "index_html_bytes": index.stat().st_size if index.is_file() else None,
        "html_files": pages_html,
    }
    if keep:
        result["site"] = str(site)
    else:
        shutil.rmtree(site, ignore_errors=True)
    return result


def compare_sites(a: Path, b: Path) -> dict[str, Any]:
    """Are two built sites the same? HTML pages byte for byte; the search index by its set of entries."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    html = sorted(f for f in files_a & files_b if f.endswith(".html"))
    differ = [f for f in html if (a / f).read_bytes() != (b / f).read_bytes()]
    index = "search/search_index.json"
    same_index = None
    if index in files_a and index in files_b:
        docs_a = json.loads((a / index).read_text())["docs"]
        docs_b = json.loads((b / index).read_text())["docs"]
        key = lambda d: json.dumps(d, sort_keys=True)  # noqa: E731
        same_index = sorted(map(key, docs_a)) == sorted(map(key, docs_b))
    return {
        "only_in_generated": sorted(files_a - files_b)[:20],
        "only_in_plain": sorted(files_b - files_a)[:20],
        "html_compared": len(html),
        "html_differ": differ[:20],
        "html_differ_count": len(differ),
        "search_index_same_entries": same_index,
    }


def measure_check(runs: int, work: Path) -> dict[str, Any]:
    cadence = Path(PY).parent / "cadence"
    command = [str(cadence), "check"] if cadence.is_file() else [PY, "-m", "generator.cli", "check"]
    walls, cpus, rss, codes, other = [], [], [], [], []
    for i in range(runs):
        child = run_child(command, REPO, work / f"check-{i}.log", timeout=300)
        walls.append(child["wall_s"])
        cpus.append(child["cpu_s"])
        rss.append(child["maxrss_kib"])
        codes.append(child["code"])
        other.append(child["other_cores"])
    # where the time goes: a bare interpreter, and the imports `cadence check` pays before loading
    bare = [run_child([PY, "-c", "pass"], REPO, work / "bare.log")["wall_s"] for _ in range(runs)]
    imports = [
        run_child([PY, "-c", "import generator.cli, generator.pages, generator.project_config"], REPO, work / "imports.log")["wall_s"]
        for _ in range(runs)
    ]
    return {
        "command": " ".join(Path(c).name if i == 0 else c for i, c in enumerate(command)),
        "wall_s": walls,
        "cpu_s": cpus,
        "other_cores": other,
        "maxrss_kib": rss,
        "exit_codes": codes,
        "bare_python_s": bare,
        "python_plus_imports_s": imports,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure_serve(project: Path, runs: int, work: Path, edit: tuple[str, str, str, str, str]) -> dict[str, Any]:
    """Start `mkdocs serve`, change a data file `runs` times, time each rebuild from its log lines.

    edit = (file relative to the project, text to find, replacement format with {n}, page to poll,
    text the served page shows once rebuilt, format with {n}).
    """
    rel, find, replace_fmt, page, expect_fmt = edit
    path = project / rel
    original = path.read_text(encoding="utf-8")
    port = free_port()
    command = [PY, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}", "--livereload"]
    process = subprocess.Popen(command, cwd=project, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines: list[tuple[float, str]] = []
    cond = threading.Condition()

    def reader() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with cond:
                lines.append((time.perf_counter(), line.rstrip()))
                cond.notify_all()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()

    def wait_for(pattern: str, after: int, timeout: float) -> tuple[int, float] | None:
        deadline = time.perf_counter() + timeout
        with cond:
            while True:
                for i in range(after, len(lines)):
                    if re.search(pattern, lines[i][1]):
                        return i, lines[i][0]
                remaining = deadline - time.perf_counter()
                if remaining <= 0 or process.poll() is not None:
                    return None
                cond.wait(remaining)

    results: list[dict[str, Any]] = []
    startup = None
    try:
        t0 = time.perf_counter()
        ready = wait_for(r"Serving on", 0, 300)
        if ready is None:
            raise RuntimeError("mkdocs serve did not start:\n" + "\n".join(line for _, line in lines[-20:]))
        startup = ready[1] - t0
        index = ready[0] + 1
        url = f"http://127.0.0.1:{port}/{page}"
        for n in range(1, runs + 1):
            time.sleep(1.0)  # let the watcher settle between edits
            marker = replace_fmt.format(n=n)
            expect = expect_fmt.format(n=n)
            with cond:
                index = len(lines)
            t_edit = time.perf_counter()
            path.write_text(original.replace(find, marker, 1), encoding="utf-8")
            detected = wait_for(r"Detected file changes", index, 120)
            built = wait_for(r"Documentation built in", index, 600)
            reloaded = wait_for(r"Reloading browsers", index, 600)
            served = None
            if reloaded is not None:
                # confirm from the server that the new page is out
                deadline = time.perf_counter() + 30
                while time.perf_counter() < deadline:
                    try:
                        body = urllib.request.urlopen(url, timeout=5).read().decode("utf-8", "replace")
                    except OSError:
                        body = ""
                    if expect in body:
                        served = time.perf_counter() - t_edit
                        break
                    time.sleep(0.05)
            reported = None
            if built is not None:
                m = re.search(r"built in ([\d.]+) seconds", lines[built[0]][1])
                reported = float(m[1]) if m else None
            results.append(
                {
                    "detected_s": detected[1] - t_edit if detected else None,
                    "reloaded_s": reloaded[1] - t_edit if reloaded else None,
                    "served_s": served,
                    "mkdocs_reported_build_s": reported,
                }
            )
            if reloaded is None:
                break
    finally:
        path.write_text(original, encoding="utf-8")
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        thread.join(timeout=5)
        (work / "serve.log").write_text("\n".join(f"{t:.3f} {line}" for t, line in lines))
    return {
        "command": f"mkdocs serve --dev-addr 127.0.0.1:{port}",
        "edit": f"`{rel}`: `{find.strip()}` → `{replace_fmt.strip()}` (the module title: every page's navigation changes)",
        "page": page,
        "startup_s": startup,
        "rebuilds": results,
    }


def write_variant(project: Path, name: str, plain: Path) -> str:
    """A copy of the project's mkdocs.yml with one variant applied; `plain` holds the full navigation."""
    config = synth.read_mkdocs_yml(project)
    features = list(config.get("theme", {}).get("features", []))
    change = VARIANTS[name]
    features = [f for f in features if f not in change["remove"]] + [f for f in change["add"] if f not in features]
    config["theme"]["features"] = features
    if "games-off" in change.get("nav", []):
        config["nav"] = games_off_nav(synth.read_mkdocs_yml(plain)["nav"])
    filename = f"mkdocs.{name}.yml"
    synth.write_mkdocs_yml(project / filename, config)
    return filename


# --------------------------------------------------------------------------------------------- profile


CATEGORIES = [
    # (label, file fragment, function name) — cumulative time of these frames; chosen not to nest in each other
    ("theme: navigation partial (partials/nav.html, every page)", "material/templates/partials/nav.html", "root"),
    ("theme: rest of page template (base.html minus nav)", "material/templates/main.html", "root"),
    ("Markdown to HTML (markdown.Markdown.convert)", "markdown/core.py", "convert"),
    ("search plugin: index entries per page (HTML parse)", "material/plugins/search/plugin.py", "on_page_context"),
    ("search plugin: writing the index", "material/plugins/search/plugin.py", "on_post_build"),
    ("rules plugin: on_config (load + check + render)", "generator/plugin.py", "on_config"),
    ("  of which YAML parsing (generator.loader.parse_yaml)", "generator/loader.py", "parse_yaml"),
    ("  of which generate() (render pages)", "generator/pages.py", "generate"),
    ("rules plugin: on_page_markdown (expand content pages)", "generator/plugin.py", "on_page_markdown"),
    ("mkdocs: link validation/relative URLs (_RelativePathTreeprocessor)", "mkdocs/structure/pages.py", "run"),
    ("mkdocs: writing files", "mkdocs/utils/__init__.py", "write_file"),
]


def profile_summary(prof: Path, out: Path, title: str) -> list[tuple[str, float, float]]:
    stats = pstats.Stats(str(prof))
    total = max((v[3] for v in stats.stats.values()), default=1.0)  # type: ignore[attr-defined]
    rows: list[tuple[str, float, float]] = []
    raw = stats.stats  # type: ignore[attr-defined]
    for label, fragment, func in CATEGORIES:
        cum = sum(v[3] for (file, _line, name), v in raw.items() if fragment in file and name == func)
        rows.append((label, cum, cum / total * 100))
    nav = next(r[1] for r in rows if r[0].startswith("theme: navigation"))
    main = next(r for r in rows if r[0].startswith("theme: rest"))
    rows[rows.index(main)] = (main[0], main[1] - nav, (main[1] - nav) / total * 100)
    accounted = sum(cum for label, cum, _ in rows if not label.startswith("  "))
    rows.append(
        (
            "everything else (start-up, imports, config, files, nav structure, copying theme assets)",
            total - accounted,
            (total - accounted) / total * 100,
        )
    )
    from io import StringIO

    buffer = StringIO()
    buffer.write(f"{title}\nprofiled total: {total:.1f} s (cProfile roughly doubles run time; use the shares)\n\n")
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
    for name in ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions", "Jinja2", "PyYAML", "lunr", "matplotlib", "cadence-rules"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["libyaml (yaml.__with_libyaml__)"] = str(yaml.__with_libyaml__)
    return found


def machine() -> dict[str, str]:
    cpu = ""
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")
        )
    mem = ""
    try:
        kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")))
        mem = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    return {
        "uname -a": subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip(),
        "nproc": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(),
        "cpu": cpu,
        "memory": mem,
        "python": f"{platform.python_implementation()} {platform.python_version()} ({PY})",
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
    s: dict[str, Any] = {
        "load": summarise([r["load_s"] for r in stages]),
        "render": summarise([r["render_s"] for r in stages]),
        "expand": summarise([r["expand_s"] for r in stages]),
        "gen": summarise([r["wall_s"] for r in gen]),
        "plain": summarise([r["wall_s"] for r in plain]),
        "ratio": summarise([g["wall_s"] / p["wall_s"] for g, p in zip(gen, plain, strict=True)]),
        "gen_cpu": summarise([r["cpu_s"] for r in gen]),
        "plain_cpu": summarise([r["cpu_s"] for r in plain]),
        "gen_cpu_pp": summarise([r["cpu_s"] / pages for r in gen]),
        "plain_cpu_pp": summarise([r["cpu_s"] / pages for r in plain]),
        "load_cpu": summarise([r["load_cpu_s"] for r in stages]),
        "other": max(r["other_cores"] for r in [*gen, *plain, *stages]),
        "gen_pp": summarise([r["wall_s"] / pages for r in gen]),
        "plain_pp": summarise([r["wall_s"] / pages for r in plain]),
        "load_pp": summarise([r["load_s"] / pages for r in stages]),
        "render_pp": summarise([r["render_s"] / pages for r in stages]),
        "plugin": summarise([r["plugin_s"] for r in gen]),
        "plugin_share": summarise([r["plugin_s"] / r["wall_s"] * 100 for r in gen]),
        "plugin_cpu_share": summarise([r["plugin_cpu_s"] / r["process_cpu_s"] * 100 for r in gen]),
        "overhead_share": summarise([(g["wall_s"] - p["wall_s"]) / g["wall_s"] * 100 for g, p in zip(gen, plain, strict=True)]),
        "gen_rss": summarise([r["maxrss_kib"] / 1024 for r in gen]),
        "plain_rss": summarise([r["maxrss_kib"] / 1024 for r in plain]),
        "stages_rss": summarise([r["maxrss_kib"] / 1024 for r in stages]),
        "stages_import_rss": summarise([r["hwm_imported_kib"] / 1024 for r in stages]),
        "runs": len(gen),
    }
    if entry.get("trace"):
        s["tracemalloc"] = entry["trace"]["tracemalloc_peak_kib"] / 1024
    return s


def write_results(data: dict[str, Any], out: Path) -> None:
    sizes = data["sizes"]
    summaries = {n: size_summary(e) for n, e in sizes.items()}
    ns = sorted(summaries, key=int)
    lines: list[str] = []
    add = lines.append
    add("# Benchmark results: generated rules site against plain MkDocs")
    add("")
    add(f"Measured {data['date']} with `{data['command']}` (total {data['elapsed_s'] / 60:.1f} min, budget {data['budget_min']:.0f} min).")
    add("")
    add("| machine | |")
    add("| --- | --- |")
    for k, v in data["machine"].items():
        add(f"| {k} | `{v}` |")
    for k, v in data["versions"].items():
        add(f"| {k} | {v} |")
    add("")
    add("Figures are median (min–max) over the runs; a single figure is one run. Times are wall-clock seconds.")
    add("`Nx` = every non-core module replicated N times (`bench/synth.py`); pages = Markdown pages MkDocs builds.")
    add("Full builds are `mkdocs build --strict` in a fresh process (start-up and imports included); load/render")
    add(
        "are timed in a fresh process after imports. Peak memory is each child's own max RSS (`wait4` in `bench/_spawn.py`; floor ≈ a bare interpreter)."
    )
    add("")
    eq = data.get("equivalence")
    if eq:
        verdict = (
            "identical"
            if not eq["html_differ_count"] and not eq["only_in_generated"] and not eq["only_in_plain"] and eq["search_index_same_entries"]
            else "**different**"
        )
        add(
            f"Equivalence check ({eq['size']}x, run 1): the two sites are {verdict} — {eq['html_compared']} HTML pages compared byte for byte, "
            f"{eq['html_differ_count']} differ {eq['html_differ'][:5]}; files only in the generated site: {eq['only_in_generated'][:5]}, only in the plain "
            f"site: {eq['only_in_plain'][:5]}; search index has the same entries: {eq['search_index_same_entries']}."
        )
        add("")
    add("## Stages and full builds")
    add("")
    add(
        "| size | pages | runs | load+model+check | render | full build, generated | full build, plain MkDocs | ratio gen/plain | generator's work in build (% of build) | (gen−plain)/gen | other load (max) |"
    )
    add("| --- | ---: | ---: | --- | --- | --- | --- | --- | --- | --- | ---: |")
    for n in ns:
        s, e = summaries[n], sizes[n]
        add(
            f"| {n}x | {e['pages']} | {s['runs']} | {fmt(s['load'])} | {fmt(s['render'])} | {fmt(s['gen'])} | {fmt(s['plain'])} | "
            f"{fmt(s['ratio'])} | {fmt(s['plugin'])} s ({fmt(s['plugin_share'], digits=1, unit='%')}) | {fmt(s['overhead_share'], digits=1, unit='%')} | {s['other']:.2f} |"
        )
    add("")
    add("*other load*: CPUs kept busy by other processes during a measurement (machine busy time from /proc/stat minus the")
    add("measured child's own CPU time, per wall second; worst of the size's measurements). Above ~0.3 on this 2-CPU machine the wall")
    add("times are disturbed; the CPU times (user+sys of the build process) below are much less so.")
    add("")
    add(
        "| size | CPU s, load+model+check | CPU s, full build generated | CPU s, full build plain | CPU ms/page generated | CPU ms/page plain | generator's share of the build's CPU |"
    )
    add("| --- | --- | --- | --- | --- | --- | --- |")
    for n in ns:
        s = summaries[n]
        add(
            f"| {n}x | {fmt(s['load_cpu'])} | {fmt(s['gen_cpu'])} | {fmt(s['plain_cpu'])} | {fmt(s['gen_cpu_pp'], 1000, 1)} | {fmt(s['plain_cpu_pp'], 1000, 1)} | "
            f"{fmt(s['plugin_cpu_share'], digits=1, unit='%')} |"
        )
    add("")
    add("## Per-page cost (ms per page)")
    add("")
    add("| size | pages | load+model+check | render | full build, generated | full build, plain MkDocs |")
    add("| --- | ---: | --- | --- | --- | --- |")
    for n in ns:
        s, e = summaries[n], sizes[n]
        add(
            f"| {n}x | {e['pages']} | {fmt(s['load_pp'], 1000, 1)} | {fmt(s['render_pp'], 1000, 1)} | {fmt(s['gen_pp'], 1000, 1)} | {fmt(s['plain_pp'], 1000, 1)} |"
        )
    add("")
    add("## Peak memory (MiB, max RSS)")
    add("")
    add(
        "| size | full build, generated | full build, plain MkDocs | load+render process (after imports) | Python allocations during load+render (tracemalloc peak) |"
    )
    add("| --- | --- | --- | --- | --- |")
    for n in ns:
        s = summaries[n]
        tm = f"{s['tracemalloc']:.0f}" if "tracemalloc" in s else "–"
        add(
            f"| {n}x | {fmt(s['gen_rss'], digits=0)} | {fmt(s['plain_rss'], digits=0)} | {fmt(s['stages_rss'], digits=0)} ({fmt(s['stages_import_rss'], digits=0)}) | {tm} |"
        )
    add("")
    check = data.get("check")
    if check:
        add("## `cadence check` on the shipped data")
        add("")
        add("| what | wall time |")
        add("| --- | --- |")
        add(
            f"| `{check['command']}` (repository root, exit codes {sorted(set(check['exit_codes']))}) | {fmt(summarise(check['wall_s']), digits=3)} s |"
        )
        add(f"| … its CPU time (user+sys) | {fmt(summarise(check['cpu_s']), digits=3)} s |")
        add(f"| bare `python -c pass` | {fmt(summarise(check['bare_python_s']), digits=3)} s |")
        add(f"| python + importing the generator | {fmt(summarise(check['python_plus_imports_s']), digits=3)} s |")
        one = sizes.get("1")
        if one:
            add(f"| `load_project` in process (1x data, after imports) | {fmt(summaries['1']['load'], digits=3)} s |")
        if data.get("yaml"):
            y = data["yaml"]
            add(f"| of which parsing the YAML with the generator's loader (PyYAML pure Python) | {y['yaml_generator_loader_s']:.3f} s |")
            add(
                f"| the same files composed by libyaml (`yaml.compose(..., Loader=yaml.CSafeLoader)`) | {y['yaml_libyaml_compose_s']:.3f} s |"
            )
            add(f"| the same files as libyaml events (enough to refuse anchors/aliases) | {y['yaml_libyaml_events_s']:.3f} s |")
        add(f"| peak RSS of `cadence check` | {fmt(summarise([r / 1024 for r in check['maxrss_kib']]), digits=0)} MiB |")
        add("")
    if data.get("yaml_sizes"):
        add("YAML parsing as the data grows (one run each):")
        add("")
        add("| size | data files | data KiB | generator loader | libyaml compose |")
        add("| --- | ---: | ---: | ---: | ---: |")
        for n, y in sorted(data["yaml_sizes"].items(), key=lambda kv: int(kv[0])):
            add(
                f"| {n}x | {y['data_files']} | {y['data_bytes'] / 1024:.0f} | {y['yaml_generator_loader_s']:.2f} s | {y['yaml_libyaml_compose_s']:.2f} s |"
            )
        add("")
    serve = data.get("serve")
    if serve:
        add("## `mkdocs serve`: rebuild after one YAML file changes (1x generated project)")
        add("")
        add(f"Edit: {serve['edit']}; served page polled: `{serve['page']}`. Server start-up (first build): {serve['startup_s']:.2f} s.")
        add("")
        add("| edit | change detected | `Documentation built in` (mkdocs) | `Reloading browsers` | new page served |")
        add("| ---: | ---: | ---: | ---: | ---: |")
        for i, r in enumerate(serve["rebuilds"], 1):
            cells = [
                f"{r[k]:.2f} s" if r.get(k) is not None else "–"
                for k in ("detected_s", "mkdocs_reported_build_s", "reloaded_s", "served_s")
            ]
            add(f"| {i} | " + " | ".join(cells) + " |")
        rel = summarise([r["reloaded_s"] for r in serve["rebuilds"] if r.get("reloaded_s") is not None])
        add("")
        add(f"Edit to `Reloading browsers`: {fmt(rel)} s (times from the moment the file was written).")
        add("")
    exp = data.get("experiments")
    if exp:
        add("## Experiments (one run each)")
        add("")
        add("Same projects, one change each. *prune*: `navigation.prune` added to `theme.features`; *prune-no-sections*: also")
        add("`navigation.sections` removed; *games-off-nav*: the nav without the games' own sections (pages still built; the")
        add(
            "floor of what the navigation costs per page, not a setting); *libyaml*: the generator parses YAML with libyaml's C parser (`bench/_libyaml.py`,"
        )
        add("a drop-in for `generator.loader._Composer`; same problems and pages on the shipped and 10x data). Baseline = the")
        add("configuration as shipped (median of the main runs). CPU = user+sys of the build process, the fairer comparison")
        add("when other work shares the machine.")
        add("")
        add(
            "| size | pages | project | variant | full build | CPU | ms/page | CPU ms/page | CPU vs baseline | generator's share of the build | index.html |"
        )
        add("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n in ns:
            e = sizes[n]
            for project in ("gen", "plain"):
                runs = e[project]
                label = "generated" if project == "gen" else "plain"
                base_wall = statistics.median(r["wall_s"] for r in runs)
                base_cpu = statistics.median(r["cpu_s"] for r in runs)
                share = f"{statistics.median(r['plugin_s'] / r['wall_s'] * 100 for r in runs):.0f}%" if project == "gen" else "–"
                html = runs[0].get("index_html_bytes")
                add(
                    f"| {n}x | {e['pages']} | {label} | baseline | {base_wall:.2f} s | {base_cpu:.2f} s | {base_wall / e['pages'] * 1000:.1f} | "
                    f"{base_cpu / e['pages'] * 1000:.1f} | – | {share} | {html / 1024:.0f} KiB |"
                )
                for name, proj, _variant, _libyaml in EXPERIMENTS:
                    if proj != project:
                        continue
                    r = exp.get(n, {}).get(project, {}).get(name)
                    if not r:
                        continue
                    if r.get("skipped"):
                        add(f"| {n}x | {e['pages']} | {label} | {name} | skipped ({r['skipped']}) | | | | | | |")
                        continue
                    share = f"{r['plugin_s'] / r['wall_s'] * 100:.0f}%" if project == "gen" else "–"
                    add(
                        f"| {n}x | {e['pages']} | {label} | {name} | {r['wall_s']:.2f} s | {r['cpu_s']:.2f} s | {r['wall_s'] / e['pages'] * 1000:.1f} | "
                        f"{r['cpu_s'] / e['pages'] * 1000:.1f} | {(r['cpu_s'] / base_cpu - 1) * 100:+.0f}% | {share} | {r['index_html_bytes'] / 1024:.0f} KiB |"
                    )
        add("")
        rows = [(n, sizes[n]["stages"], sizes[n].get("stages_libyaml")) for n in ns if sizes[n].get("stages_libyaml")]
        if rows:
            add("load+model+check in a fresh process, generator's loader as shipped against libyaml:")
            add("")
            add("| size | as shipped (median) | libyaml (one run) |")
            add("| --- | ---: | ---: |")
            for n, st, ly in rows:
                add(f"| {n}x | {statistics.median(r['load_s'] for r in st):.2f} s | {ly['load_s']:.2f} s |")
            add("")
    prof = data.get("profile")
    if prof:
        add(f"## Profile of one {prof['size']}x generated build (cProfile)")
        add("")
        add(f"Full listing: `{prof['file']}`. Shares of the profiled build:")
        add("")
        add("| share | profiled s | where |")
        add("| ---: | ---: | --- |")
        for label, cum, pct in prof["rows"]:
            add(f"| {pct:.1f}% | {cum:.2f} | {label} |")
        add("")
    targets = data.get("targets")
    if targets:
        add("## Targets")
        add("")
        add("| target | measured | met? |")
        add("| --- | --- | --- |")
        for t in targets:
            add(f"| {t['target']} | {t['measured']} | {t['met']} |")
        add("")
    notes = data.get("notes") or []
    if notes:
        add("## Notes")
        add("")
        for note in notes:
            add(f"- {note}")
        add("")
    (out / "RESULTS.md").write_text("\n".join(lines), encoding="utf-8")


def targets(data: dict[str, Any]) -> list[dict[str, str]]:
    sizes = data["sizes"]
    summaries = {n: size_summary(e) for n, e in sizes.items()}
    ns = sorted(summaries, key=int)
    rows = []
    worst = max(ns, key=lambda n: summaries[n]["plugin_share"]["median"])
    shares = ", ".join(f"{n}x {summaries[n]['plugin_share']['median']:.0f}%" for n in ns)
    rows.append(
        {
            "target": "generator's own work ≤ 10% of a full build at every size",
            "measured": f"{shares} (plugin hooks' time inside the build / build wall time, medians)",
            "met": "yes" if summaries[worst]["plugin_share"]["median"] <= 10 else "**no**",
        }
    )
    check = data.get("check")
    if check:
        med = statistics.median(check["wall_s"])
        rows.append(
            {
                "target": "`cadence check` on the Cadence data < 0.5 s",
                "measured": f"{med:.2f} s wall (median of {len(check['wall_s'])})",
                "met": "yes" if med < 0.5 else "**no**",
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
        for name in ("prune", "prune + libyaml"):
            ra = exp.get(first, {}).get("gen", {}).get(name)
            rb = exp.get(last, {}).get("gen", {}).get(name)
            if ra and rb and not ra.get("skipped") and not rb.get("skipped"):
                a, b = ra["wall_s"] / sizes[first]["pages"], rb["wall_s"] / sizes[last]["pages"]
                rows.append(
                    {
                        "target": f"… same, generated, experiment `{name}` (one run each)",
                        "measured": f"{a * 1000:.1f} → {b * 1000:.1f} ms/page ({(b / a - 1) * 100:+.0f}%)",
                        "met": "yes" if b <= a * 1.2 else "**no**",
                    }
                )
        shares = []
        for n in ns:
            r = exp.get(n, {}).get("gen", {}).get("prune + libyaml")
            if r and not r.get("skipped"):
                shares.append((n, r["plugin_s"] / r["wall_s"] * 100))
        if shares:
            rows.append(
                {
                    "target": "… generator's own work ≤ 10%, experiment `prune + libyaml`",
                    "measured": ", ".join(f"{n}x {v:.0f}%" for n, v in shares),
                    "met": "yes" if all(v <= 10 for _, v in shares) else "**no**",
                }
            )
    return rows


def plot(data: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = data["sizes"]
    ns = sorted(sizes, key=int)
    pages = [sizes[n]["pages"] for n in ns]
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))

    def series(key: str, per_page: bool = False) -> tuple[list[float], list[list[float]]]:
        meds, lo, hi = [], [], []
        for n in ns:
            vals = [r["wall_s"] / (sizes[n]["pages"] if per_page else 1) * (1000 if per_page else 1) for r in sizes[n][key]]
            m = statistics.median(vals)
            meds.append(m)
            lo.append(m - min(vals))
            hi.append(max(vals) - m)
        return meds, [lo, hi]

    def stage(key: str, per_page: bool = False) -> list[float]:
        return [
            statistics.median(r[key] for r in sizes[n]["stages"]) / (sizes[n]["pages"] if per_page else 1) * (1000 if per_page else 1)
            for n in ns
        ]

    exp = data.get("experiments", {})

    def variant_points(project: str, variant: str, per_page: bool) -> tuple[list[int], list[float]]:
        xs, ys = [], []
        for n in ns:
            r = exp.get(n, {}).get(project, {}).get(variant)
            if r and not r.get("skipped"):
                xs.append(sizes[n]["pages"])
                ys.append(r["wall_s"] / (sizes[n]["pages"] if per_page else 1) * (1000 if per_page else 1))
        return xs, ys

    for ax, per_page in ((axes[0], False), (axes[1], True)):
        for key, label, color in (
            ("gen", "generated project (rules plugin)", "tab:blue"),
            ("plain", "plain MkDocs (same pages)", "tab:orange"),
        ):
            meds, err = series(key, per_page)
            ax.errorbar(pages, meds, yerr=err, marker="o", capsize=4, label=f"full build, {label}", color=color, linewidth=2)
        ax.plot(pages, stage("load_s", per_page), marker="s", linestyle=":", color="tab:green", label="load+model+check (fresh process)")
        ax.plot(pages, stage("render_s", per_page), marker="^", linestyle=":", color="tab:red", label="render (fresh process)")
        styles = {
            "prune": "--",
            "prune-no-sections": "-.",
            "prune + libyaml": (0, (1, 1)),
            "libyaml": (0, (3, 1, 1, 1)),
            "games-off-nav": (0, (5, 2)),
        }
        for name, project, _variant, _libyaml in EXPERIMENTS:
            if not per_page and name not in ("prune", "prune + libyaml"):
                continue
            color = "tab:blue" if project == "gen" else "tab:orange"
            xs, ys = variant_points(project, name, per_page)
            if xs:
                ax.plot(
                    xs,
                    ys,
                    marker="x",
                    linestyle=styles.get(name, "--"),
                    color=color,
                    alpha=0.6,
                    label=f"{'generated' if project == 'gen' else 'plain'}: {name} (1 run)",
                )
        if per_page and len(pages) > 1 and pages[-1] / pages[0] > 8:
            ax.set_xscale("log")
        ax.set_xticks(pages, [f"{p}\n({n}x)" for n, p in zip(ns, pages, strict=True)])
        ax.minorticks_off()
        ax.set_xlabel("pages built (copies of each game)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("seconds (median, bars = min–max)")
    axes[0].set_title("Time against size")
    axes[0].legend(fontsize=7)
    axes[1].set_ylabel("milliseconds per page")
    axes[1].set_title("Per-page cost")
    axes[1].set_ylim(bottom=0)
    axes[1].legend(fontsize=7)
    # share of the generator's work in the generated build
    shares = [statistics.median(r["plugin_s"] / r["wall_s"] * 100 for r in sizes[n]["gen"]) for n in ns]
    over = [
        statistics.median((g["wall_s"] - p["wall_s"]) / g["wall_s"] * 100 for g, p in zip(sizes[n]["gen"], sizes[n]["plain"], strict=True))
        for n in ns
    ]
    axes[2].plot(pages, shares, marker="o", label="rules plugin hooks / full build")
    axes[2].plot(pages, over, marker="s", linestyle="--", label="(generated − plain) / generated")
    axes[2].axhline(10, color="red", linestyle=":", label="target 10%")
    axes[2].set_ylim(bottom=0)
    axes[2].set_xticks(pages, [f"{p}\n({n}x)" for n, p in zip(ns, pages, strict=True)])
    axes[2].set_xlabel("pages built (copies of each game)")
    axes[2].set_ylabel("% of the full generated build")
    axes[2].set_title("Generator's own work")
    axes[2].legend(fontsize=8)
    axes[2].grid(True, alpha=0.3)
    fig.suptitle(f"Cadence rules site: generated vs plain MkDocs ({data['machine']['nproc']} CPUs, {data['date'][:10]})")
    fig.tight_layout()
    fig.savefig(out / "plot.png", dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------ main


def main() -> int:
    p = argparse.ArgumentParser(description="Benchmark the rules generator against plain MkDocs as the data grows.")
    p.add_argument("--sizes", default="1,10,50", help="comma-separated scale factors (default 1,10,50)")
    p.add_argument("--runs", type=int, default=3, help="runs per size (default 3; fewer at a size whose runs do not fit the budget)")
    p.add_argument(
        "--budget-minutes", type=float, default=20, help="stop optional measurements (extra runs, experiments) past this (default 20)"
    )
    p.add_argument("--work", type=Path, default=BENCH / ".work", help="scratch folder for the synthetic projects (default bench/.work)")
    p.add_argument("--out", type=Path, default=BENCH / "results", help="results folder (default bench/results)")
    p.add_argument("--profile-size", type=int, default=10, help="size whose generated build is profiled (0: none; default 10)")
    p.add_argument("--no-experiments", action="store_true", help="skip the experiments")
    p.add_argument(
        "--experiments",
        default="",
        help="comma-separated experiments to run (default all: " + ", ".join(dict.fromkeys(e[0] for e in EXPERIMENTS)) + ")",
    )
    p.add_argument("--no-serve", action="store_true", help="skip the mkdocs serve rebuild measurement")
    p.add_argument(
        "--quiet-wait",
        type=float,
        default=20,
        help="before each measurement wait up to this many seconds for other processes to go idle (default 20; 0: never; at most a quarter of the budget in all)",
    )
    p.add_argument("--quick", action="store_true", help="smoke test: sizes 1,2, 1 run, no profile or experiments")
    args = p.parse_args()
    if args.quick:
        args.sizes, args.runs, args.profile_size, args.no_experiments = "1,2", 1, 0, True
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    budget = Budget(args.budget_minutes)
    QUIET.per_wait, QUIET.total = args.quiet_wait, args.budget_minutes * 60 / 4
    work: Path = args.work.resolve()
    out: Path = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    command = "python bench/run.py" + ("" if len(sys.argv) == 1 else " " + " ".join(sys.argv[1:]))
    data: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": command,
        "budget_min": args.budget_minutes,
        "machine": machine(),
        "versions": versions(),
        "sizes": {},
        "notes": [],
    }
    projects: dict[str, tuple[Path, Path]] = {}

    # 1. synthetic projects
    for n in sizes:
        t0 = time.perf_counter()
        gen, plain = synth.scale(REPO, work / f"{n}x", n)
        projects[str(n)] = (gen, plain)
        log(f"synthesised {n}x in {time.perf_counter() - t0:.1f} s -> {gen.parent}")

    def one_run(n: str, i: int) -> None:
        gen, plain = projects[n]
        wk = gen.parent
        st = measure_stages(gen, wk, f"{i}")
        entry = data["sizes"].setdefault(n, {"pages": st["pages"], "stages": [], "gen": [], "plain": []})
        entry["stages"].append(st)
        keep = i == 1 and n == str(sizes[0])
        g = measure_build(gen, wk, f"gen-{i}", keep=keep)
        entry["gen"].append(g)
        pl = measure_build(plain, wk, f"plain-{i}", keep=keep)
        entry["plain"].append(pl)
        if keep:
            same = compare_sites(Path(g.pop("site")), Path(pl.pop("site")))
            data["equivalence"] = {"size": n, **same}
            shutil.rmtree(wk / f"site-gen-{i}", ignore_errors=True)
            shutil.rmtree(wk / f"site-plain-{i}", ignore_errors=True)
        if g.get("html_files") != pl.get("html_files"):
            data["notes"].append(f"{n}x: generated built {g.get('html_files')} HTML files, plain {pl.get('html_files')}")
        log(
            f"{n}x run {i}: {st['pages']} pages; load {st['load_s']:.2f} s, render {st['render_s']:.2f} s; "
            f"build generated {g['wall_s']:.1f} s (plugin {g['plugin_s']:.2f} s), plain {pl['wall_s']:.1f} s"
        )

    def run_cost(n: str) -> float:
        e = data["sizes"][n]
        return e["stages"][-1]["wall_s"] + e["gen"][-1]["wall_s"] + e["plain"][-1]["wall_s"]

    # 2. first run of every size (always)
    for n in sizes:
        one_run(str(n), 1)

    # 3. cadence check on the shipped data, YAML experiment
    data["check"] = measure_check(max(args.runs, 5), work)
    log(f"cadence check: {statistics.median(data['check']['wall_s']):.2f} s")
    data["yaml"] = measure_stages(REPO, work, "repo-yaml", "--yaml")
    data["yaml_sizes"] = {}
    for n in sizes:
        gen, _ = projects[str(n)]
        if budget.fits(data["sizes"][str(n)]["stages"][0]["wall_s"] * 2):
            data["yaml_sizes"][str(n)] = measure_stages(gen, gen.parent, "yaml", "--yaml")

    # 4. mkdocs serve rebuild on the smallest project
    if not args.no_serve:
        gen, _ = projects[str(sizes[0])]
        module = next(m for m in ("fracture",) if (gen / "data" / m / "module.yaml").is_file())
        try:
            data["serve"] = measure_serve(
                gen,
                args.runs,
                gen.parent,
                (
                    f"data/{module}/module.yaml",
                    "  title: Fracture\n",
                    "  title: Fracture rev{n}\n",
                    f"{module}/index.html",
                    "Fracture rev{n}",
                ),
            )
            log(f"serve rebuilds: {[r.get('reloaded_s') for r in data['serve']['rebuilds']]}")
        except RuntimeError as exc:
            data["notes"].append(f"mkdocs serve measurement failed: {exc}")

    # 5. profile one build
    if args.profile_size and str(args.profile_size) in projects:
        n = str(args.profile_size)
        gen, _ = projects[n]
        prof = out / f"profile-{n}x.prof"
        if budget.fits(data["sizes"][n]["gen"][0]["wall_s"] * 3):
            r = measure_build(gen, gen.parent, "profile", profile=prof)
            rows = profile_summary(
                prof,
                out / f"profile-{n}x.txt",
                f"cProfile of `mkdocs build --strict` of the {n}x generated project ({data['sizes'][n]['pages']} pages)",
            )
            data["profile"] = {"size": n, "file": f"bench/results/profile-{n}x.txt", "rows": rows, "profiled_wall_s": r["wall_s"]}
            prof.unlink(missing_ok=True)
            log(f"profiled {n}x build ({r['wall_s']:.0f} s under cProfile)")
        else:
            data["notes"].append(f"profile of the {n}x build skipped: over the time budget")

    # 6. experiments, one run each, smaller sizes first, in order of interest within a size
    chosen = {x.strip() for x in args.experiments.split(",") if x.strip()}
    if not args.no_experiments:
        exp: dict[str, Any] = {}
        data["experiments"] = exp
        for n in map(str, sizes):
            gen, _ = projects[n]
            if budget.fits(data["sizes"][n]["stages"][0]["wall_s"]):
                data["sizes"][n]["stages_libyaml"] = measure_stages(gen, gen.parent, "libyaml", "--libyaml")
            for name, project, variant, libyaml in EXPERIMENTS:
                if chosen and name not in chosen:
                    continue
                root = projects[n][0 if project == "gen" else 1]
                slot = exp.setdefault(n, {}).setdefault(project, {})
                estimate = statistics.median(r["wall_s"] for r in data["sizes"][n][project])
                if not budget.fits(estimate):
                    slot[name] = {"skipped": "time budget"}
                    log(f"{n}x {project} {name}: skipped (time budget)")
                    continue
                config = write_variant(root, variant, projects[n][1]) if variant else "mkdocs.yml"
                tag = f"{project}-{name.replace(' + ', '-')}"
                slot[name] = measure_build(root, root.parent, tag, config=config, flags=("--libyaml",) if libyaml else ())
                log(f"{n}x {project} {name}: {slot[name]['wall_s']:.1f} s")

    # 7. more runs, round robin, while they fit
    for i in range(2, args.runs + 1):
        for n in map(str, sizes):
            if budget.fits(run_cost(n)):
                one_run(n, i)
            else:
                log(f"{n}x run {i} skipped: would pass the {args.budget_minutes:.0f} min budget")
    for n in map(str, sizes):
        got = len(data["sizes"][n]["gen"])
        if got < args.runs:
            data["notes"].append(
                f"{n}x: {got} run(s) instead of {args.runs} — the remaining runs would not fit the {args.budget_minutes:.0f}-minute budget on this machine"
            )

    # 8. tracemalloc peak per size (slow; one run, only if it fits)
    for n in map(str, sizes):
        gen, _ = projects[n]
        if budget.fits(data["sizes"][n]["stages"][0]["wall_s"] * 3):
            data["sizes"][n]["trace"] = measure_stages(gen, gen.parent, "trace", "--tracemalloc")

    data["elapsed_s"] = budget.elapsed()
    data["quiet_waited_s"] = QUIET.waited
    if QUIET.waited:
        data["notes"].append(
            f"waited {QUIET.waited:.0f} s in all for other processes to leave the CPUs idle before measurements (--quiet-wait {args.quiet_wait:g})"
        )
    data["targets"] = targets(data)
    (out / "results.json").write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    write_results(data, out)
    plot(data, out)
    log(f"done in {budget.elapsed() / 60:.1f} min: {out / 'RESULTS.md'}, {out / 'plot.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
