"""What `cadence import` costs on a large module: wall time and peak memory at 1, 5 and 10 MB.

    python bench/import_large.py                 # from the repository root: 1, 5 and 10 MB
    python bench/import_large.py --sizes 1,2 --keep /tmp/import-bench
    python bench/import_large.py --source a62a153 --sizes 1   # a revision's generator (git archive), for before/after

Each size is a generated Markdown module of many sections, written the way designers write them: a
faction section per army list (units with profile tables, a weapon table and a gear table, each faction
repeating the same table names), and a page of prose per rules section with a special rules table and a
roll table. It is imported with the real `cadence import` into a fresh copy of the mini fixture, in a
fresh process exec'd from `bench/_spawn.py`, so the peak RSS is the import's own. A cost linear in the
input shows as a steady time and memory per MB across the sizes. At 10 MB this module's rules and roll tables
would make a module.yaml over the loader's 2 MiB: the import refuses it before writing (exit 1), and that row
measures the refusal. Results: bench/results/import-large.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "fixtures" / "mini"
SPAWN = REPO / "bench" / "_spawn.py"
MB = 1_000_000


def faction(n: int) -> str:
    """An army list section: two units, a weapon table and a gear table, named as every faction names them."""
    units = "".join(
        f"### Trooper {n}-{u}\n\nTroopers of the {n}th band hold the line {u} times over.\n\n"
        "| Name | Movement | Skill | Hit Points | Special Rules | Points |\n"
        "|------|----------|-------|------------|---------------|--------|\n"
        f'| Trooper {n}-{u} | 6" | 4+ | 1 | Steady | {10 + u} |\n'
        f'| Sergeant {n}-{u} | 6" | 3+ | 2 | Steady, Leader | {20 + u} |\n\n'
        for u in range(2)
    )
    return (
        f"## Band {n}\n\nThe band {n} fields troopers, weapons and gear as below.\n\n{units}"
        "### Weapons\n\n| Weapon | Range | Attacks | Special Rules | Points |\n|---|---|---|---|---|\n"
        f'| Rifle {n} | 24" | 1 | - | 2 |\n| Blade {n} | 1" | d6 | - | 1 |\n\n'
        "### Gear\n\n| Gear | Cost | Description |\n|---|---|---|\n"
        f"| Smoke {n} | 2 | Once a game the model is hidden until it next moves. |\n\n"
    )


def rules_page(n: int) -> str:
    """A page of prose with a special rules table and a roll table, its headings the same on every page."""
    return (
        f"## Rules {n}\n\nThese rules hold in the {n}th campaign. " + "The rules are read in order. " * 8 + "\n\n"
        "### Scatter\n\n| 2d6 | Where they land |\n|---|---|\n| 2-6 | Left |\n| 7 | Centre |\n| 8-12 | Right |\n\n"
        "### Special Rules\n\n| Rule | Description |\n|---|---|\n"
        f"| Steady{'' if n == 0 else f' {n}'} | The model ignores its first pin. |\n"
        f'| Leader{"" if n == 0 else f" {n}"} | Friends within 6" of the model may move first. |\n\n'
    )


def module_text(size: int) -> str:
    """A module of about `size` bytes: factions and rules pages in turn, until it is that long."""
    parts = ["# Large Module\n\nA module generated to measure the import.\n\n"]
    length, n = len(parts[0]), 0
    while length < size:
        part = faction(n) + rules_page(n)
        parts.append(part)
        length += len(part)
        n += 1
    return "".join(parts)


def generator_at(revision: str, work: Path) -> Path:
    """A folder holding `generator/` as it was at a git revision, to put first on PYTHONPATH."""
    folder = work / f"generator-{revision}"
    if not folder.is_dir():
        folder.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "generator"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def measure(size_mb: float, work: Path, source: Path | None = None) -> dict[str, float]:
    """Import a generated module of `size_mb` MB into a fresh mini copy: wall and CPU seconds, peak MiB, exit code."""
    folder = work / f"{size_mb:g}mb"
    shutil.rmtree(folder, ignore_errors=True)
    project = folder / "mini"
    shutil.copytree(MINI, project, ignore=shutil.ignore_patterns("expected"))
    markdown = folder / "large.md"
    markdown.write_text(module_text(int(size_mb * MB)), encoding="utf-8")
    report = folder / "spawn.json"
    cadence = [str(Path(sys.executable).with_name("cadence"))] if source is None else [sys.executable, "-m", "generator.cli"]
    command = [sys.executable, str(SPAWN), str(report), *cadence, "-C", str(project), "import", str(markdown)]
    env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache")}  # a first import: no user cache from an earlier run
    if source is not None:
        env["PYTHONPATH"] = str(source)
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=folder)  # cwd: not the working tree's generator
    if "Traceback" in done.stderr or done.returncode == 2:
        raise SystemExit(f"the import of {size_mb:g} MB failed:\n{done.stderr[-2000:]}")
    spawn = json.loads(report.read_text(encoding="utf-8"))
    return {
        "bytes": markdown.stat().st_size,
        "seconds": spawn["wall_s"],
        "cpu": spawn["cpu_s"],
        "peak_mb": spawn["maxrss_kib"] / 1024,
        "exit": done.returncode,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,5,10", help="sizes in MB, comma-separated (default 1,5,10)")
    parser.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    parser.add_argument("--source", metavar="REV", help="measure this git revision's generator (default: the working tree's)")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="import-bench-"))
    try:
        source = generator_at(args.source, work) if args.source else None
        print("| size | bytes | wall s | CPU s | CPU s per MB | peak RSS MiB | exit |\n| --- | --- | --- | --- | --- | --- | --- |")
        for size in (float(s) for s in args.sizes.split(",")):
            row = measure(size, work, source)
            per = row["cpu"] / (row["bytes"] / MB)
            cells = f"{row['seconds']:.1f} | {row['cpu']:.1f} | {per:.1f} | {row['peak_mb']:.0f} | {row['exit']:.0f}"
            print(f"| {size:g} MB | {row['bytes']:,} | {cells} |", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
