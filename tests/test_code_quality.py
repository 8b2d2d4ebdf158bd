"""The code stays as the house style asks: ruff-clean and fully typed, on the versions CI pins."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .conftest import REPO


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "generator", "tests", "bench"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_json_schema_is_current() -> None:
    """The editors' schema in data/schema is generated from the model; it must match it."""
    result = subprocess.run([sys.executable, "-m", "generator.cli", "schema", "--check"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_shipped_data_file_points_editors_at_the_schema() -> None:
    for path in sorted((REPO / "data").rglob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("$schema=", 1)[1].strip()).resolve()
        assert target == (REPO / "data/schema/data.schema.json").resolve(), path


# --- the shape of the package ----------------------------------------------------------------------

GENERATOR = REPO / "generator"

#: The stages in the order data flows through them; a module may import only from earlier stages
#: (and from inside its own package). Every module of generator/ must be placed here.
STAGES: tuple[frozenset[str], ...] = (
    frozenset({"problems", "cache", "publish", "untrusted"}),
    frozenset({"loader", "model", "report", "project_config", "offline", "search_index"}),
    frozenset({"serve_errors", "pinpoint"}),
    frozenset({"schema", "points"}),
    frozenset({"catalogue", "markup"}),
    frozenset({"layout", "errata", "releases", "docs", "paths", "stored"}),
    frozenset({"resolve"}),
    frozenset({"checks"}),
    frozenset({"render"}),
    frozenset({"search_entries", "export", "incremental"}),
    frozenset({"search"}),
    frozenset({"pages"}),
    frozenset({"staging"}),
    frozenset({"final_html"}),
    frozenset({"postbuild"}),
    frozenset({"serve_search", "serve_hook", "serve_watch", "serve_engine"}),
    frozenset({"importer", "diff", "roster"}),
    frozenset({"config"}),
    frozenset({"plugin", "cli"}),
)

#: Functions over the limits below that belong to a change running in parallel; split them when it
#: lands rather than race it.
OVER_LIMITS_FOR_NOW: set[str] = set()
MAX_COMPLEXITY = 15
MAX_LINES = 60


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """generator module → the generator modules it imports, anywhere in its body (function-level too)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(GENERATOR.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imports: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                imports.add(target)
                imports.update(f"{target}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                imports.update(alias.name for alias in node.names)
        graph[name] = {i for i in imports if i.startswith("generator.")} - {name}
    modules = set(graph)
    return {name: {i for i in deps if i in modules} for name, deps in graph.items()}


def _stage(module: str) -> str:
    """The stage a module belongs to: its first name under generator/ (`generator.checks.rules` → checks)."""
    return module.split(".")[1]


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert "generator.checker" not in graph, "the checker is the generator/checks package now"
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import cycle: " + " → ".join([*path[path.index(module) :], module]))
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_no_stage_imports_a_later_stage() -> None:
    rank = {stage: index for index, stages in enumerate(STAGES) for stage in stages}
    graph = import_graph()
    unplaced = sorted({_stage(m) for m in graph if "." in m} - set(rank))
    assert not unplaced, f"place these modules in STAGES: {unplaced}"
    backwards = [
        f"{module} ({_stage(module)}) imports {imported} ({_stage(imported)})"
        for module, imports in sorted(graph.items())
        if "." in module
        for imported in sorted(imports)
        if _stage(imported) != _stage(module) and rank[_stage(imported)] >= rank[_stage(module)]
    ]
    assert not backwards, "\n".join(backwards)


def _functions() -> list[tuple[str, int, int]]:
    """(file:qualified name, cyclomatic complexity, lines) for every function and method in generator/."""
    from radon.complexity import cc_visit
    from radon.visitors import Function

    found: list[tuple[str, int, int]] = []

    def add(block: Function, path: Path, prefix: str = "") -> None:
        name = f"{path.relative_to(GENERATOR).as_posix()}:{prefix}{block.fullname}"
        found.append((name, block.complexity, block.endline - block.lineno + 1))
        for closure in block.closures:
            add(closure, path, f"{prefix}{block.fullname}.")

    for path in sorted(GENERATOR.rglob("*.py")):
        # radon lists functions, classes and (separately) methods; a class's figure sums its methods'
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if isinstance(block, Function):
                add(block, path)
    return found


def test_functions_are_short_and_simple() -> None:
    """No function in generator/ over 60 lines or of cyclomatic complexity over 15 (radon's measure)."""
    functions = _functions()
    assert len(functions) > 200, "radon found too few functions: is it reading generator/?"
    over = [
        f"{name}: complexity {complexity}, {lines} lines"
        for name, complexity, lines in functions
        if (complexity > MAX_COMPLEXITY or lines > MAX_LINES) and name not in OVER_LIMITS_FOR_NOW
    ]
    assert not over, "\n".join(over)
    still_over = {name for name, complexity, lines in functions if complexity > MAX_COMPLEXITY or lines > MAX_LINES}
    assert still_over >= OVER_LIMITS_FOR_NOW, (
        f"no longer over the limits, drop from OVER_LIMITS_FOR_NOW: {OVER_LIMITS_FOR_NOW - still_over}"
    )


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (REPO / ".ci" / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line!r}"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_dependency_is_pinned_within_its_range() -> None:
    """CI, the README and the publish workflow install the versions `.ci/constraints.txt` names: each
    dependency of the package and of its test extra has one there, inside pyproject.toml's range."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = _pins()
    wanted = [Requirement(text) for text in (*project["dependencies"], *project["optional-dependencies"]["test"])]
    pinned = [(r, pins.get(canonicalize_name(r.name))) for r in wanted]
    unpinned = [str(r) for r, pin in pinned if pin is None]
    outside = [f"{r} (pinned {pin})" for r, pin in pinned if pin is not None and pin not in r.specifier]
    assert unpinned == [] and outside == [], (unpinned, outside)
    for command in (REPO / ".ci" / "run", REPO / ".github" / "workflows" / "publish.yml"):
        assert "-c .ci/constraints.txt" in command.read_text(encoding="utf-8"), command
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    installs = [line for line in readme.splitlines() if "pip install -e" in line]
    assert installs and all("-c .ci/constraints.txt" in line for line in installs), installs
