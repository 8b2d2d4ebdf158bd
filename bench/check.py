"""What `cadence check` costs: CPU time (user + sys) and peak memory, cold and warm, at 1x and larger sizes.

    python bench/check.py                  # sizes 1,10, five runs each, from the repository root
    python bench/check.py --sizes 1,10,50 --runs 9 --bytecode off

Each run is `cadence check` in a fresh process, exec'd from a small one (`bench/_spawn.py`) so its
peak RSS is its own. CPU time, not wall time: the machine is shared, and other processes stretch
wall time far more than the CPU time a command itself uses. The best and the median run are shown;
the best is the least disturbed by other processes. The larger sizes are `bench/synth.py`'s copies
of the shipped project, written once under `--work`.

Four cache states, in a cache folder of the bench's own (`XDG_CACHE_HOME` under `--work`): *no cache*
is `CADENCE_NO_CACHE=1` (neither read nor written);
*cold* empties the cache of built records, of check results, of the findings by text and of each army
list's problems before each run (the first check of a project, writing them); *records* keeps the data files'
built records, the findings by text and each list's problems but not the result (a check after editing a
content page: no data file is parsed or built again, no text spell-checked again and no list's per-list checks
run again, everything else is done; an edited data file adds the parsing and building of that one file, the
look at its changed texts and the per-list checks of its game's lists); *warm* keeps both (an unchanged
project). The spelling dictionary's word file is written once and kept in every state but *first*: everything
emptied, the word file too (the first check on a machine, or after pyspellchecker is upgraded).

Two bytecode states: *off* is this environment's (`PYTHONDONTWRITEBYTECODE=1`, so the generator's
modules are compiled from source at each start; the libraries' are installed compiled); *on* is a
normal install's: bytecode written on the first run (to a folder under `--work`) and read after.
`load_project` alone (after imports, in a fresh process) is also timed with the record cache empty
and warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


def environment(work: Path, bytecode: str) -> dict[str, str]:
    """The environment of a measured run: the bench's own cache folder, bytecode on or off."""
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}
    env.pop("CADENCE_NO_CACHE", None)
    if bytecode == "on":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


#: Not a folder of the cache: the spelling dictionary's word file, which only a machine's first check writes.
WORD_FILE = "english-*.words"


def empty(work: Path, *kinds: str) -> None:
    for kind in kinds:
        if kind == WORD_FILE:
            for path in (work / "cache" / "cadence-rules").glob(WORD_FILE):
                path.unlink()
        else:
            shutil.rmtree(work / "cache" / "cadence-rules" / kind, ignore_errors=True)


def one_run(root: Path, env: dict[str, str], command: list[str] | None = None) -> dict[str, float]:
    """One `cadence check` (or `command`) in a fresh process: exit code, CPU seconds and peak RSS in MiB."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = command or [cadence(), "--project", str(root), "check"]
        subprocess.run([sys.executable, str(SPAWN), out.name, *command], stdout=subprocess.DEVNULL, check=False, env=env)
        result = json.loads(Path(out.name).read_text())
    return {"code": result["code"], "cpu_s": result["cpu_s"], "rss_mib": result["maxrss_kib"] / 1024}


#: The states of the cache before each run, and what is emptied to get there.
STATES: dict[str, tuple[str, ...]] = {
    "no cache": (),
    "cold": ("built", "parsed", "check", "checks", "texts", "lists"),
    "records": ("check",),
    "warm": (),
    "first": ("built", "parsed", "check", "checks", "texts", "lists", WORD_FILE),  # last: it leaves the word file written
}

_LOAD = """
import sys, time
from pathlib import Path
from generator.pages import load_project
start = time.process_time()
loaded = load_project(Path(sys.argv[1]))
print(time.process_time() - start, len(loaded.problems))
"""


def load_project_cpu(root: Path, env: dict[str, str]) -> float:
    """CPU seconds of `load_project` alone, after imports, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _LOAD, str(root)], capture_output=True, text=True, check=True, env=env, cwd=REPO)
    return float(out.stdout.split()[0])


def row(label: str, runs: list[dict[str, float]]) -> str:
    cpu = [r["cpu_s"] for r in runs]
    rss = [r["rss_mib"] for r in runs]
    codes = sorted({int(r["code"]) for r in runs})
    return (
        f"| {label} | {','.join(map(str, codes))} | {min(cpu):.2f} | {statistics.median(cpu):.2f} "
        f"| {min(rss):.0f} | {statistics.median(rss):.0f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="scale factors (default 1,10)")
    parser.add_argument("--runs", type=int, default=5, help="runs per size and state (default 5)")
    parser.add_argument("--bytecode", choices=("off", "on", "both"), default="both", help="measure with bytecode off, on, or both")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / ".work" / "check", help="synthetic projects, cache and bytecode")
    args = parser.parse_args()
    modes = ("off", "on") if args.bytecode == "both" else (args.bytecode,)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"cadence check, {args.runs} runs a row; CPU seconds (user+sys), peak RSS MiB")
    print("| bytecode, size, cache | exit | CPU s best | CPU s median | peak RSS MiB best | peak RSS MiB median |")
    print("| --- | --- | --- | --- | --- | --- |")
    loads: list[str] = []
    for mode in modes:
        env = environment(args.work, mode)
        for size in sizes:
            root = project(size, args.work)
            one_run(root, env)  # writes the word file (and, bytecode on, the bytecode); not counted
            for state, kinds in STATES.items():
                runs = []
                for _ in range(args.runs):
                    empty(args.work, *kinds)
                    runs.append(one_run(root, {**env, "CADENCE_NO_CACHE": "1"} if state == "no cache" else env))
                print(row(f"{mode}, {size}x, {state}", runs))
            cold, warm = [], []
            for _ in range(max(1, args.runs // 2)):
                empty(args.work, "built", "parsed")
                cold.append(load_project_cpu(root, env))  # reads every file's YAML and writes the records
                warm.append(load_project_cpu(root, env))
            loads.append(f"| {mode}, {size}x | {min(cold):.2f} | {min(warm):.2f} |")
    print("\n`load_project` alone, after imports (best of the runs), CPU s")
    print("| bytecode, size | record cache empty | record cache warm |")
    print("| --- | --- | --- |")
    print("\n".join(loads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
