"""One `cadence build`, with the CPU time of each of its parts: run as a subprocess by `bench/run.py`.

    python bench/_cadence_build.py OUT.json [cadence build arguments...]

It is `cadence build` itself (`generator.cli.main`), with `cli.run_apart` wrapped so the CPU time (user+sys,
from the children's rusage) of each step it runs apart is recorded: the staging process and the engine. On
Linux both are forks of the command's process, which first imports the libraries both use (Jinja, Markdown,
YAML: `cli.SHARED_LIBRARIES`); that import is counted as the engine's, since a plain MkDocs or Zensical build
imports them too, wherever the command first imports one (it reads mkdocs.yml with YAML before any fork,
so they are imported here first, as their own part). What is left is this process's own CPU: start-up, imports,
the post-build steps and swapping the site in. The generator's own work is everything but the engine.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

#: The interpreter's start-up, before this script's first line: reported on its own, and still counted as the
#: generator's, though a plain MkDocs or Zensical build pays it too.
_STARTUP = resource.getrusage(resource.RUSAGE_SELF)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _children_sys() -> float:
    """The kernel's share (system CPU): on the bench's VM, creating files costs far more of it than elsewhere."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    out, args = Path(sys.argv[1]), sys.argv[2:]
    parts: list[dict[str, Any]] = []
    from generator import cli, postbuild

    c0 = _own_cpu()
    for library in cli.SHARED_LIBRARIES:
        importlib.import_module(library)
    parts.append({"kind": "shared imports", "cpu_s": _own_cpu() - c0, "code": 0})
    run_apart = cli.run_apart

    def measured(command: str, argv: list[str], env: dict[str, str], cwd: Path | None = None, output: Any = None) -> Any:
        c0 = _own_cpu()
        child = run_apart(command, argv, env, cwd, output)
        parts.append({"kind": "shared imports", "cpu_s": _own_cpu() - c0, "code": 0})  # and the fork itself
        wait = child.wait

        def timed_wait(timeout: float | None = None) -> int:
            before, before_sys = _children_cpu(), _children_sys()
            code = wait(timeout)
            kind = "stage" if command.startswith("generator.staging:") else "engine"
            parts.append({"kind": kind, "cpu_s": _children_cpu() - before, "sys_s": _children_sys() - before_sys, "code": code})
            return code

        child.wait = timed_wait
        return child

    cli.run_apart = measured  # type: ignore[assignment]

    steps = postbuild.run
    postbuild_cpu: list[float] = []

    def run_steps(*a: Any, **k: Any) -> None:
        c0 = _own_cpu()
        try:
            steps(*a, **k)
        finally:
            postbuild_cpu.append(_own_cpu() - c0)

    postbuild.run = run_steps  # `cmd_build` imports it when it runs

    t0 = time.perf_counter()
    code = cli.main(["build", *args])
    own = _own_cpu()
    report = {
        "code": code,
        "wall_s": time.perf_counter() - t0,
        "stage_process_cpu_s": sum(p["cpu_s"] for p in parts if p["kind"] == "stage"),
        "stage_process_sys_s": sum(p.get("sys_s", 0.0) for p in parts if p["kind"] == "stage"),
        "engine_sys_s": sum(p.get("sys_s", 0.0) for p in parts if p["kind"] == "engine"),
        # the engine's process, and the libraries it shares with the generator, imported before the forks
        "engine_cpu_s": sum(p["cpu_s"] for p in parts if p["kind"] in ("engine", "shared imports")),
        "shared_imports_cpu_s": sum(p["cpu_s"] for p in parts if p["kind"] == "shared imports"),
        # start-up, imports, post-build steps and the swap, in the `cadence build` process itself
        "parent_cpu_s": own - sum(p["cpu_s"] for p in parts if p["kind"] == "shared imports"),
        "postbuild_cpu_s": sum(postbuild_cpu),
        # the command's own system CPU (its start-up, its reads and the swap; the shared imports' is left in)
        "parent_sys_s": resource.getrusage(resource.RUSAGE_SELF).ru_stime,
        # of the command's own CPU, the interpreter's start-up (counted in it, as the generator's)
        "startup_cpu_s": _STARTUP.ru_utime + _STARTUP.ru_stime,
    }
    out.write_text(json.dumps(report))
    return code


if __name__ == "__main__":
    sys.exit(main())
