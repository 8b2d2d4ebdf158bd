"""One `cadence build`, with the CPU time of each of its parts: run as a subprocess by `bench/run.py`.

    python bench/_cadence_build.py OUT.json [cadence build arguments...]

It is `cadence build` itself (`generator.cli.main`), with `subprocess.Popen.wait` wrapped so the CPU
time (user+sys, from the children's rusage) of each process it waits for is recorded: the staging
process and the engine. What is left is this process's own CPU: start-up, imports, the post-build
steps and swapping the site in. The generator's own work is everything but the engine.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    out, args = Path(sys.argv[1]), sys.argv[2:]
    parts: list[dict[str, Any]] = []
    original = subprocess.Popen.wait

    def wait(self: subprocess.Popen[Any], timeout: float | None = None) -> int:
        before = _children_cpu()
        code = original(self, timeout)
        command = [str(a) for a in self.args] if isinstance(self.args, list) else [str(self.args)]
        kind = "stage" if "generator.staging" in command else "engine"
        parts.append({"kind": kind, "cpu_s": _children_cpu() - before, "code": code})
        return code

    subprocess.Popen.wait = wait  # type: ignore[method-assign]
    from generator import cli, postbuild

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
        "engine_cpu_s": sum(p["cpu_s"] for p in parts if p["kind"] == "engine"),
        # start-up, imports, post-build steps and the swap, in the `cadence build` process itself
        "parent_cpu_s": own,
        "postbuild_cpu_s": sum(postbuild_cpu),
    }
    out.write_text(json.dumps(report))
    return code


if __name__ == "__main__":
    sys.exit(main())
