"""What `cadence build` costs the generator beside the engine, by the state of the user's cache.

    python bench/build.py                       # sizes 1,10, three runs each, from the repository root
    python bench/build.py --sizes 1,10 --runs 5 --states cold,edit
    python bench/build.py --engine zensical --sizes 10 --states cold,edit,unchanged

Each run is one `cadence build --strict --quiet` through `bench/_cadence_build.py`, which records the
CPU time (user+sys) of the staging process, of the engine (MkDocs, with the Jinja, Markdown and YAML
imports the command makes once before forking both) and of the command's own process (start-up,
imports, post-build steps). The generator's own work is everything but the engine; its
share is that over the whole command's CPU. CPU time, not wall time: the machine is shared.

Cache states (a cache folder of the bench's own, `XDG_CACHE_HOME` under `--work`; the spelling
dictionary's word file is written once and kept):
Every state but *no cache* and *cold* finds the last build's kept staging folder (`cache.staging_dir`), and with
Zensical its cache in it. *no cache*: `CADENCE_NO_CACHE=1` (staging in a new folder). *cold*: the cache emptied before each build (the first build of a
project on a machine, writing the records, pages and staging). *edit*: the last build's cache, then one rule's
text edited in one game (a designer's build after an edit: that file parsed again, the checks run,
that game's pages rendered again). *after check*: the cache emptied, then `cadence check` of the project
(a CI job on a fresh machine that checks, then builds; the check is not counted). *unchanged*: the last
build's cache and no edit (the staging step writes out the last staging again). Bytecode is on (a normal install), written to a folder under `--work`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from check import cadence, empty, environment
from synth import write_generated

REPO = Path(__file__).resolve().parent.parent
CADENCE_BUILD = REPO / "bench" / "_cadence_build.py"
#: Every kind of entry in the user's cache (the spelling dictionary's word file is kept).
KINDS = ("built", "parsed", "check", "checks", "texts", "lists", "pages", "staged", "staged-files", "staging")
#: The edited file (relative to the project) and the two texts it alternates between.
EDIT = ("data/fracture/module.yaml", "subtracts 1 from every Morale test it takes.", "takes every Morale test at 1 less.")


def project(size: int, work: Path) -> Path:
    """A copy of the project at a size (1x too: the bench edits it), written once under `work`."""
    generated = work / f"{size}x" / "generated"
    if not (generated / "mkdocs.yml").is_file():
        write_generated(REPO, generated, size)
    return generated


def build(root: Path, env: dict[str, str], work: Path, engine: str = "mkdocs") -> dict[str, float]:
    """One `cadence build` of `root`: CPU seconds of its parts."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [
            sys.executable,
            str(CADENCE_BUILD),
            out.name,
            "--strict",
            "--quiet",
            "--engine",
            engine,
            "--site-dir",
            str(work / "site"),
        ]
        subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        result = json.loads(Path(out.name).read_text())
    generator = result["stage_process_cpu_s"] + result["parent_cpu_s"]
    return {
        "generator": generator,
        "engine": result["engine_cpu_s"],
        "stage": result["stage_process_cpu_s"],
        "stage_sys": result["stage_process_sys_s"],
        "engine_sys": result["engine_sys_s"],
        "share": generator / (generator + result["engine_cpu_s"]),
    }


def toggle_edit(root: Path) -> None:
    """Edit one rule's text in one game: to the other of the two texts."""
    path = root / EDIT[0]
    text = path.read_text(encoding="utf-8")
    old, new = (EDIT[1], EDIT[2]) if EDIT[1] in text else (EDIT[2], EDIT[1])
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def states(root: Path, env: dict[str, str], work: Path) -> dict[str, tuple[dict[str, str], Callable[[], None]]]:
    """Each state: the environment of its build and what to do before it."""
    check = [cadence(), "--project", str(root), "check"]
    return {
        "no cache": ({**env, "CADENCE_NO_CACHE": "1"}, lambda: None),
        "cold": (env, lambda: empty(work, *KINDS)),
        "edit": (env, lambda: toggle_edit(root)),
        "after check": (env, lambda: (empty(work, *KINDS), subprocess.run(check, stdout=subprocess.DEVNULL, env=env, check=False))),
        "unchanged": (env, lambda: None),
    }


def row(label: str, runs: list[dict[str, float]]) -> str:
    def cell(key: str, scale: float = 1, unit: str = "") -> str:
        values = [r[key] * scale for r in runs]
        return f"{statistics.median(values):.2f}{unit} ({min(values):.2f}–{max(values):.2f})"

    return (
        f"| {label} | {cell('generator')} | {cell('stage')} | {cell('stage_sys')} | {cell('engine')} | {cell('engine_sys')} "
        f"| {cell('share', 100, '%')} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="scale factors (default 1,10)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size and state (default 3)")
    parser.add_argument("--states", default="no cache,cold,edit,after check,unchanged", help="which cache states")
    parser.add_argument("--engine", default="mkdocs", choices=("mkdocs", "zensical"), help="the engine (default mkdocs)")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / ".work" / "build", help="synthetic projects, cache, bytecode")
    args = parser.parse_args()
    wanted = args.states.split(",")
    print(f"cadence build (--engine {args.engine}), {args.runs} runs a row; CPU seconds (user+sys), median (min–max)")
    print("| size, cache | generator's own | staging process | of which system | engine | of which system | generator's share |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for size in (int(s) for s in args.sizes.split(",")):
        root = project(size, args.work)
        env = environment(args.work, "on")
        build(root, env, args.work, args.engine)  # writes the word file and the bytecode; not counted
        for state, (state_env, before) in states(root, env, args.work).items():
            if state not in wanted:
                continue
            runs = []
            for _ in range(args.runs):
                before()
                runs.append(build(root, state_env, args.work, args.engine))
            print(row(f"{size}x, {state}", runs), flush=True)
        if (root / EDIT[0]).read_text(encoding="utf-8").count(EDIT[2]):
            toggle_edit(root)  # the project as it was
    return 0


if __name__ == "__main__":
    sys.exit(main())
