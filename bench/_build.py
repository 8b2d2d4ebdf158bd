"""One `mkdocs build`, timed from the inside: run as a subprocess by `bench/run.py`.

    python bench/_build.py PROJECT SITE_DIR OUT.json [--config mkdocs.variant.yml] [--profile OUT.prof]

It is `mkdocs build --strict --quiet` with the rules plugin's hooks wrapped in timers, so the report can
say how much of a full build is the generator's own work (load + check + render + expand) as measured
inside the very build whose wall time the parent takes. The plain-Markdown site goes through the same
driver (it simply has no rules hooks to time), so both builds pay the same start-up.
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import functools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _wrap_plugin(timings: dict[str, float], cpu: dict[str, float], counts: dict[str, int]) -> None:
    try:
        from generator.plugin import RulesPlugin
    except ImportError:
        return
    for name in [n for n in vars(RulesPlugin) if n.startswith("on_") and callable(vars(RulesPlugin)[n])]:
        original = getattr(RulesPlugin, name)

        @functools.wraps(original)
        def timed(self: Any, *args: Any, __original: Any = original, __name: str = name, **kwargs: Any) -> Any:
            t, c = time.perf_counter(), time.process_time()
            try:
                return __original(self, *args, **kwargs)
            finally:
                timings[__name] += time.perf_counter() - t
                cpu[__name] += time.process_time() - c
                counts[__name] += 1

        setattr(RulesPlugin, name, timed)


def main() -> int:
    args = sys.argv[1:]
    profile = None
    if "--profile" in args:
        i = args.index("--profile")
        profile = args[i + 1]
        del args[i : i + 2]
    config = "mkdocs.yml"
    if "--config" in args:
        i = args.index("--config")
        config = args[i + 1]
        del args[i : i + 2]
    project, site_dir, out = Path(args[0]).resolve(), args[1], Path(args[2]).resolve()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.chdir(project)
    t_import = time.perf_counter()
    timings: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    _wrap_plugin(timings, cpu, counts)
    from mkdocs.__main__ import cli

    t_imported = time.perf_counter()
    argv = ["build", "--strict", "--quiet", "--site-dir", site_dir, "--config-file", str(project / config)]
    code = 0
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t_build = time.perf_counter()
    try:
        cli.main(args=argv, prog_name="mkdocs", standalone_mode=False)
    except SystemExit as exc:
        code = int(exc.code or 0)
    except Exception as exc:  # a failed build is reported, not hidden
        print(f"build failed: {exc}", file=sys.stderr)
        code = 1
    t_end = time.perf_counter()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    out.write_text(
        json.dumps(
            {
                "code": code,
                "startup_s": t_import - T_START,
                "import_s": t_imported - t_import,
                "build_s": t_end - t_build,
                "hooks_s": dict(timings),
                "hook_calls": dict(counts),
                "plugin_s": sum(timings.values()),
                "plugin_cpu_s": sum(cpu.values()),
                "process_cpu_s": time.process_time(),
            }
        )
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
