"""How soon `cadence serve` shows a data edit, at a size: the serve rows of RESULTS.md, on their own.

    python bench/serve.py                                  # 10x, Zensical, 8 runs of each edit
    python bench/serve.py --size 10 --runs 8 --engine mkdocs

Two edits (`run.RULE_TEXT_EDIT`, `run.TITLE_EDIT`), each timed from the write until the served page shows it
(`run.measure_cadence_serve`): a special rule's text, and the Fracture module's title, which changes every
page's navigation. Beside it: when `cadence serve` printed its re-staging line and the time it reports, and
the CPU seconds the server and its engine used from the write until the page was served. The project is
`bench/synth.py`'s copy of the shipped one at that size, written once under `--work`; the generator measured
is the one installed (the working tree, for an editable install). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from build import project
from run import measure_cadence_serve


def spread(values: list[float]) -> str:
    """Median (min–max) of the runs."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})" if values else "–"


def table(found: dict[str, Any]) -> str:
    rows = [
        "| edit | runs | served after (s) | re-staging line after (s) | re-staging reported (s) | CPU (s) | over 5 s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for edit in dict.fromkeys(r["edit"] for r in found["rebuilds"]):
        runs = [r for r in found["rebuilds"] if r["edit"] == edit]
        served = [r["served_s"] for r in runs if r["served_s"] is not None]
        line = [r["restaged_s"] for r in runs if r.get("restaged_s") is not None]
        reported = [r["restaged_reported_s"] for r in runs if r.get("restaged_reported_s") is not None]
        cpu = [r["server_cpu_s"] for r in runs]
        late = sum(1 for r in runs if r["served_s"] is None or r["served_s"] > 5)
        rows.append(f"| {edit} | {len(runs)} | {spread(served)} | {spread(line)} | {spread(reported)} | {spread(cpu)} | {late} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--engine", default="zensical", choices=("mkdocs", "zensical", "properdocs"))
    parser.add_argument("--work", type=Path, default=Path(__file__).resolve().parent / ".work")
    args = parser.parse_args(argv)
    root = project(args.size, args.work)
    found = measure_cadence_serve(root, args.engine, args.runs, args.work)
    print(
        f"`cadence serve --engine {args.engine}` at {args.size}x, {args.runs} runs of each edit; first page served {found['startup_s']:.1f} s after the start\n"
    )
    print(table(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
