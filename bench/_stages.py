"""The generator's in-process stages, timed in a fresh interpreter: run as a subprocess by `bench/run.py`.

    python bench/_stages.py PROJECT OUT.json [--tracemalloc] [--yaml] [--stage]

Times `load_project` (read + model + check), `generate` (render every generated page) and expanding
every content page, as the plugin and `cadence check` do in a new process. Memory: the process's peak
RSS after imports and at the end (VmHWM), and with --tracemalloc the peak of Python allocations during
the stages (tracemalloc slows them, so its run is not used for time). With --yaml it also times reading
the data files with the generator's loader (parse + located values) against bare parsing with libyaml's
C parser, to show what YAML itself costs. With --stage it times only `staging.stage` (load, check,
render, expand and write the docs tree and engine config): the generator's whole share of `cadence build`;
--profile=OUT.prof then also profiles that call with cProfile.
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402


def _system_cpu() -> float:
    """This process's system CPU: creating the docs tree's files is most of staging's on the bench's VM."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def _hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> int:
    args = sys.argv[1:]
    trace = "--tracemalloc" in args
    yaml_experiment = "--yaml" in args
    only_stage = "--stage" in args
    profile = next((a.split("=", 1)[1] for a in args if a.startswith("--profile=")), None)
    args = [a for a in args if not a.startswith("--")]
    project, out = Path(args[0]).resolve(), Path(args[1])
    if only_stage:
        return stage_only(project, out, profile)
    t0 = time.perf_counter()
    from generator.pages import generate, load_project

    t_import = time.perf_counter() - t0
    hwm_imported = _hwm_kib()
    if trace:
        import tracemalloc

        tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    loaded = load_project(project, "data", "content")
    t_load, c_load = time.perf_counter() - t0, time.process_time() - c0
    if loaded.errors or loaded.project is None:
        print("\n".join(str(p) for p in loaded.errors[:20]), file=sys.stderr)
        return 1
    t0, c0 = time.perf_counter(), time.process_time()
    result = generate(loaded.project, loaded.content)
    t_render, c_render = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    for page, text in loaded.content.items():
        result.expand(page, text)
    t_expand = time.perf_counter() - t0
    report: dict[str, object] = {
        "import_s": t_import,
        "load_s": t_load,
        "render_s": t_render,
        "expand_s": t_expand,
        "load_cpu_s": c_load,
        "render_cpu_s": c_render,
        "generated_pages": len(result.pages),
        "content_pages": len(loaded.content),
        "pages": len(result.pages) + len(loaded.content),
        "data_files": sum(1 for p in (project / "data").rglob("*") if p.suffix in (".yaml", ".yml")),
        "data_bytes": sum(p.stat().st_size for p in (project / "data").rglob("*") if p.suffix in (".yaml", ".yml")),
        "hwm_imported_kib": hwm_imported,
        "hwm_end_kib": _hwm_kib(),
    }
    if trace:
        import tracemalloc

        report["tracemalloc_peak_kib"] = tracemalloc.get_traced_memory()[1] // 1024
        tracemalloc.stop()
    if yaml_experiment:
        import yaml

        from generator.loader import parse_yaml

        files = sorted(p for p in (project / "data").rglob("*") if p.suffix in (".yaml", ".yml"))
        texts = [(p.read_text(encoding="utf-8"), p.relative_to(project).as_posix()) for p in files]
        t0 = time.perf_counter()
        for text, rel in texts:
            parse_yaml(text, rel)
        report["yaml_generator_loader_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for text, _ in texts:
            yaml.compose(text, Loader=yaml.CSafeLoader)
        report["yaml_libyaml_compose_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for text, _ in texts:
            for _event in yaml.parse(text, Loader=yaml.CSafeLoader):
                pass
        report["yaml_libyaml_events_s"] = time.perf_counter() - t0
    report["process_s"] = time.perf_counter() - T_START
    out.write_text(json.dumps(report))
    return 0


def stage_only(project: Path, out: Path, profile: str | None = None) -> int:
    import cProfile
    import shutil
    import tempfile

    t0 = time.perf_counter()
    from generator.staging import stage

    t_import = time.perf_counter() - t0
    target = Path(tempfile.mkdtemp(prefix="bench-stage-", dir=project.parent))
    try:
        profiler = cProfile.Profile() if profile else None
        t0, c0, s0 = time.perf_counter(), time.process_time(), _system_cpu()
        if profiler is not None:
            profiler.enable()
        staged = stage(project, target, target / "site")
        t_stage, c_stage, s_stage = time.perf_counter() - t0, time.process_time() - c0, _system_cpu() - s0
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
    finally:
        shutil.rmtree(target, ignore_errors=True)
    out.write_text(
        json.dumps(
            {
                "import_s": t_import,
                "stage_s": t_stage,
                "stage_cpu_s": c_stage,
                "stage_sys_s": s_stage,
                "files_written": len(staged.written),
                "hwm_end_kib": _hwm_kib(),
                "process_s": time.perf_counter() - T_START,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
