"""What `cadence check` costs: CPU time (user + sys) and peak memory, at 1x and at larger sizes.

    python bench/check.py                  # sizes 1,10, five runs each, from the repository root
    python bench/check.py --sizes 1,10,50 --runs 9

Each run is `cadence check` in a fresh process, exec'd from a small one (`bench/_spawn.py`) so its
peak RSS is its own. CPU time, not wall time: the machine is shared, and other processes stretch
wall time far more than the CPU time a command itself uses. The best and the median run are shown;
the best is the least disturbed by other processes. The larger sizes are `bench/synth.py`'s copies
of the shipped project, written once under `--work`. Nothing is cached between runs except what
`cadence check` itself keeps on disk (the spelling dictionary's word file, written on first use);
a run to warm that is made first and not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPAWN = REPO / "bench" / "_spawn.py"


def cadence() -> str:
    """The `cadence` command next to this interpreter (the project's virtual environment)."""
    return str(Path(sys.executable).with_name("cadence"))


def project(size: int, work: Path) -> Path:
    """The project checked at a size: the repository at 1x, a synthetic copy otherwise."""
    if size == 1:
        return REPO
    out = work / f"{size}x"
    generated = out / "generated"
    if not (generated / "mkdocs.yml").is_file():
        sys.path.insert(0, str(REPO / "bench"))
        from synth import write_generated

        write_generated(REPO, generated, size)
    return generated


def one_run(root: Path) -> dict[str, float]:
    """One `cadence check` in a fresh process: exit code, CPU seconds and peak RSS in MiB."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [sys.executable, str(SPAWN), out.name, cadence(), "--project", str(root), "check"], stdout=subprocess.DEVNULL, check=False
        )
        result = json.loads(Path(out.name).read_text())
    return {"code": result["code"], "cpu_s": result["cpu_s"], "rss_mib": result["maxrss_kib"] / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="scale factors (default 1,10)")
    parser.add_argument("--runs", type=int, default=5, help="runs per size (default 5)")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / ".work" / "check", help="where the synthetic projects go")
    args = parser.parse_args()
    bytecode = "off (every module compiled at each start)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"cadence check, {args.runs} runs a size; bytecode cache {bytecode}")
    print("| size | exit | CPU s best | CPU s median | peak RSS MiB best | peak RSS MiB median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for size in (int(s) for s in args.sizes.split(",")):
        root = project(size, args.work)
        one_run(root)  # warms the spelling dictionary's word file; not counted
        runs = [one_run(root) for _ in range(args.runs)]
        cpu = [r["cpu_s"] for r in runs]
        rss = [r["rss_mib"] for r in runs]
        codes = sorted({int(r["code"]) for r in runs})
        print(
            f"| {size}x | {','.join(map(str, codes))} | {min(cpu):.2f} | {statistics.median(cpu):.2f} "
            f"| {min(rss):.0f} | {statistics.median(rss):.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
