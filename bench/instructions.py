"""How many instructions staging takes, counted by valgrind's callgrind: a figure that does not drift.

    .venv/bin/python bench/instructions.py                    # the working tree, 1x and 10x
    .venv/bin/python bench/instructions.py --base 5b00690     # and a revision's generator/ beside it

CPU seconds on the bench's VM drift by a fifth from one minute to the next (a fixed Python loop took 1.67 to
2.32 s within a minute), and creating a file costs 0.02 to 0.75 ms of system CPU from run to run: a change
that saves a tenth of staging's work cannot be seen in them. Callgrind counts the instructions a process
runs in user space, the same for the same program and input whatever else the machine does (hash seeds are
fixed, `PYTHONHASHSEED=0`). It counts no system CPU: what staging asks of the kernel (writing its files) is
not in these figures, and the CPU benches show it.

Each count is one `staging.stage()` in a fresh interpreter, in the cache state every measured `cadence build`
of `bench/run.py` starts from (the data files' records kept, nothing else), after the imports the command
makes before forking the staging step (Jinja, Markdown, YAML); the same interpreter stopped before `stage()`
is counted too and taken off, so the figure is staging itself, the generator's imports inside it included.
Needs valgrind (Debian's `valgrind`); a run under callgrind is some fifty times slower (about 4 minutes at
10x).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from same_staging import extract, git
from synth import write_generated

REPO = Path(__file__).resolve().parent.parent
#: What each measured run finds in the cache: the records only (`bench/run.py`, `forget_builds`).
FORGOTTEN = ("check", "checks", "texts", "lists", "pages", "staged", "staged-files", "staging")
#: The driver: imports what `cadence build` imports before forking, then stages (unless told to stop before).
DRIVER = """
import gc, os, shutil, sys, tempfile
from pathlib import Path
gc.disable()  # as in the staging step (`staging.main_apart`)
import jinja2, markdown, yaml
if sys.argv[2] == "stage":
    from generator.staging import stage
    target = Path(tempfile.mkdtemp(prefix="instructions-", dir=sys.argv[3]))
    stage(Path(sys.argv[1]), target, target / "site")
    shutil.rmtree(target)
"""


def counted(code: Path, project: Path, work: Path, stage: bool) -> int:
    """Instructions of one run of the driver (staging, or only what comes before it)."""
    out = work / "callgrind.out"
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0", "XDG_CACHE_HOME": str(work / "cache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CADENCE_NO_CACHE", None)
    for kind in FORGOTTEN:
        shutil.rmtree(work / "cache" / "cadence-rules" / kind, ignore_errors=True)
    driver = [sys.executable, "-c", DRIVER, str(project), "stage" if stage else "imports", str(work)]
    # a run outside callgrind first: bytecode and the data files' records written, as on a machine that built before
    subprocess.run(driver, cwd=work, env=env, check=True, capture_output=True)
    for kind in FORGOTTEN:
        shutil.rmtree(work / "cache" / "cadence-rules" / kind, ignore_errors=True)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *driver]
    done = subprocess.run(command, cwd=work, env=env, check=True, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    out.unlink(missing_ok=True)
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,10", help="scale factors (default 1,10)")
    parser.add_argument("--base", help="a git revision whose generator/ is counted beside the working tree's")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temporary one)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("bench/instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    work = Path(args.work or tempfile.mkdtemp(prefix="instructions-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = [("working tree", REPO)]
    if args.base:
        trees.insert(0, (args.base, extract(args.base, work / "base")))
    print(f"Staging's instructions (millions; callgrind, `staging.stage()` after imports), {git('rev-parse', '--short', 'HEAD')}")
    print("| size | " + " | ".join(name for name, _ in trees) + (" | change |" if args.base else " |"))
    print("| --- |" + " --- |" * (len(trees) + (1 if args.base else 0)))
    for size in (int(s) for s in args.sizes.split(",")):
        project = work / f"{size}x"
        if not (project / "mkdocs.yml").is_file():
            write_generated(REPO, project, size)
        counts = []
        for _name, code in trees:
            tree_work = work / f"run-{len(counts)}"
            tree_work.mkdir(exist_ok=True)
            counts.append(counted(code, project, tree_work, True) - counted(code, project, tree_work, False))
        change = f" {100 * (counts[-1] - counts[0]) / counts[0]:+.1f}% |" if args.base else ""
        print(f"| {size}x | " + " | ".join(f"{c / 1e6:,.0f}M" for c in counts) + " |" + change, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
