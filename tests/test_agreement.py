"""`cadence check` and `mkdocs build --strict` agree on every project.

Small projects are generated from the fixture (tests/fixtures/mini) by mutating its shipped data and
content: keys dropped, renamed and duplicated, values replaced (long names, odd paths, wrong types,
YAML forms that change meaning), directives given odd options, pages moved between modules. For each:

- the check never raises, and prints one line per problem;
- a clean check means the strict build succeeds;
- errors mean the build fails, printing the same error lines; warnings alone mean the strict build
  fails on them.

Each example runs a real MkDocs build (in-process, strict). A build stops at the data check when the
check finds errors, so the time goes to the examples that check clean; the test prints its counts.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from generator.pages import load_project
from generator.problems import Severity
from generator.report import format_problems

from .conftest import MINI, copy_project, mkdocs_build

LINE = re.compile(r"^[^:\n]+:\d+:\d+: (error|warning)\[[a-z-]+\]: [^\n]*$")
DATA_FILES = ("data/system.yaml", "data/core/module.yaml", "data/skirmish/module.yaml", "data/skirmish/army-lists/rangers.yaml")
CONTENT_FILES = ("content/index.md", "content/core/rules.md", "content/skirmish/rules.md")

ODD_VALUES: list[Any] = [
    "",
    "x" * 300,
    "a" * 101,
    "Ranger Squad",
    "../escape",
    "/abs/path",
    "Skirmish/Rules",
    "skirmish/rules",
    "core/rules",
    "a//b",
    0,
    -1,
    10**9,
    True,
    None,
    [],
    {},
    "[[Nope]]",
    "[[Flying]]",
    "[[Heavy Armour (abc)]]",
    '6"',
    "+2",
    "d6",
    "*",
    "X",
    "Heavy Armour (1)",
    "Heavy Armour",
    "<b>bold</b> & <script>x</script>",
    "line\nbreak",
    "a\u2028b",
    "[% table core/scatter %]",
]

DIRECTIVES = [
    "[% special-rules skirmish level=abc %]",
    "[% special-rules skirmish level=0 %]",
    "[% special-rules skirmish level=2 %]",
    "[% special-rules skirmish level=7 %]",
    "[% special-rules core kind=weapon %]",
    "[% special-rules core kind=bogus %]",
    "[% special-rules skirmish/rangers %]",
    "[% special-rules nowhere %]",
    "[% special-rules %]",
    "[% special-rules core foo=bar %]",
    "[% special-rules 'sk irmish' %]",
    '[% special-rules skirmish" %]',
    "[% table core/scatter %]",
    "[% table core/scatter level=2 %]",
    "[% table core/nope %]",
    "[% table %]",
    "[% modules status=released %]",
    "[% modules status=in-development %]",
    "[% modules kind=unit %]",
    "[% bogus %]",
    "[% table core/scatter",
]

EXTRA_LINES = [
    "[x](nope.md)",
    "[x](core/rules.md#nope)",
    "[x](#nope)",
    "[x](core/rules.md#scatter)",
    "[[Stubborn]]",
    "[[Flying]]",
    "[[Heavy Armour (2)]]",
    "## Flying",
    "# Second Title",
    "<script>alert(1)</script>",
]

UNQUOTED = ["+1", "010", "1:30", "yes", "off", "1_0", "0x1", "08", "1e3", "1.50"]

#: Kinds of mutation, the milder ones listed twice: most single changes to the fixture break it, and
#: a project that checks clean (a full build) is where a disagreement can hide.
MUTATIONS = (
    "drop-key", "rename-key", "set-value", "set-value", "duplicate-item", "unquoted", "directive", "directive",
    "content-line", "content-line", "move-page", "page-in-core", "page-in-core", "new-rule", "new-rule",
)  # fmt: skip
NEW_RULES = ["Unused Thing", "R" + "r" * 150, "Ünïcode Rule", "Rule <b>Bold</b>", "Heavy Armour", "Stubborn", "Line\u2028Break"]


# --- mutations ------------------------------------------------------------------------------------


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside a loaded YAML document."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


def _mutate(project: Path, draw: st.DrawFn, kind: str) -> str:
    """Apply one mutation of `kind` to the project; returns a short description."""
    if kind in ("drop-key", "rename-key", "set-value", "duplicate-item"):
        target = draw(st.sampled_from(DATA_FILES))
        path = project / target
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        if kind == "duplicate-item":
            candidates = [p for p in _paths(doc) if p and isinstance(_parent(doc, p), list)]
        elif kind in ("drop-key", "rename-key"):
            candidates = [p for p in _paths(doc) if p and isinstance(_parent(doc, p), dict)]
        else:
            candidates = [p for p in _paths(doc) if p]
        if not candidates:
            return f"{kind} {target}: nothing left to mutate"
        chosen = draw(st.sampled_from(candidates))
        parent = _parent(doc, chosen)
        last = chosen[-1]
        if kind == "drop-key":
            del parent[last]
        elif kind == "rename-key":
            new = draw(st.sampled_from([f"{last}s", str(last)[:-1] or "k", "x" * 120, "name", "id", "page"]))
            parent[new] = parent.pop(last)
        elif kind == "duplicate-item":
            parent.insert(last, parent[last])
        else:
            parent[last] = draw(st.sampled_from(ODD_VALUES))
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
        return f"{kind} {target} {'.'.join(map(str, chosen))}"
    if kind == "unquoted":
        target = "data/skirmish/army-lists/rangers.yaml"
        path = project / target
        text = path.read_text(encoding="utf-8")
        spot = draw(st.sampled_from(["hp: 1}", "hp: 2}", "points: 10}", "max: 5}"]))
        value = draw(st.sampled_from(UNQUOTED))
        path.write_text(text.replace(spot, spot.split(":")[0] + ": " + value + "}", 1), encoding="utf-8")
        return f"unquoted {spot} -> {value}"
    if kind in ("directive", "content-line"):
        target = draw(st.sampled_from(CONTENT_FILES))
        path = project / target
        lines = path.read_text(encoding="utf-8").splitlines()
        new = draw(st.sampled_from(DIRECTIVES if kind == "directive" else EXTRA_LINES))
        at = draw(st.integers(0, len(lines)))
        existing = [i for i, line in enumerate(lines) if line.startswith("[%")]
        if kind == "directive" and existing and draw(st.booleans()):
            at = draw(st.sampled_from(existing))
            lines[at] = new
        else:
            lines[at:at] = ["", new, ""]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return f"{kind} {target}: {new}"
    if kind == "new-rule":
        module = project / "data/skirmish/module.yaml"
        name = draw(st.sampled_from(NEW_RULES))
        rule = f"    - {{name: {json.dumps(name)}, kind: unit, text: 'A rule nothing uses.'}}\n"
        module.write_text(module.read_text(encoding="utf-8").replace("  special_rules:\n", "  special_rules:\n" + rule, 1))
        return f"new-rule {name!r}"
    module = project / "data/core/module.yaml"
    text = module.read_text(encoding="utf-8")
    if kind == "page-in-core":
        page = draw(st.sampled_from(["skirmish/rules", "skirmish/army-lists/rangers", "index", "core/rules"]))
        module.write_text(text.replace("pages: [core/rules]", f"pages: [core/rules, {page}]"), encoding="utf-8")
        other = project / "data/skirmish/module.yaml"
        if draw(st.booleans()):
            other.write_text(other.read_text(encoding="utf-8").replace(f"{page}, ", "").replace(f", {page}]", "]"), encoding="utf-8")
        return f"page-in-core {page}"
    pages = sorted((project / "content").rglob("*.md"))
    if not pages:
        return "move-page: no page left"
    source = draw(st.sampled_from(pages))
    folder = draw(st.sampled_from(["about", "core", "skirmish/deep", "x" * 90, "."]))
    target = project / "content" / folder / f"moved-{source.name}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(source, target)
    return f"move-page {source.relative_to(project)} -> {target.relative_to(project)}"


#: A recipe: 1-2 kinds of mutation, applied in order to a fresh copy of the fixture.
RECIPES = st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=2)


# --- the property ---------------------------------------------------------------------------------


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _mkdocs_log() -> Iterator[_Collect]:
    collect = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    try:
        yield collect
    finally:
        logger.removeHandler(collect)


def build_in_process(project: Path, site: Path) -> tuple[bool, str]:
    """A real, strict MkDocs build in this process: (succeeded, everything it logged).

    Anything other than MkDocs' own abort (a traceback from our code) propagates and fails the test.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    with _mkdocs_log() as log:
        try:
            config = load_config(config_file=str(project / "mkdocs.yml"), site_dir=str(site), strict=True)
            build(config)
        except (Abort, ConfigurationError) as exc:
            return False, "\n".join([*log.messages, str(exc)])
    return True, "\n".join(log.messages)


STATS: Counter[str] = Counter()


@pytest.fixture(autouse=True, scope="module")
def _quiet_mkdocs() -> Iterator[None]:
    """MkDocs' own INFO lines would flood the test log; warnings and errors still reach the collector."""
    import os

    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.setLevel(logging.WARNING)
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    yield
    logger.setLevel(level)


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: each step is a real build
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(RECIPES, st.data())
def test_check_and_strict_build_agree(recipe: list[str], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="agree-") as scratch:
        project = copy_project(MINI, Path(scratch) / "mini")
        applied = [_mutate(project, data.draw, kind) for kind in recipe]
        STATS["projects"] += 1
        STATS["mutations"] += len(applied)
        problems = load_project(project).problems
        report = format_problems(problems)
        assert all(LINE.match(line) for line in report.splitlines()[:-1]), f"{applied}\n{report}"
        errors = [str(p) for p in problems if p.severity is Severity.ERROR]
        warnings = [str(p) for p in problems if p.severity is Severity.WARNING]
        built, log = build_in_process(project, Path(scratch) / "site")
        STATS["real builds"] += 1
        STATS["check clean" if not problems else "check errors" if errors else "check warnings only"] += 1
        assert "Traceback" not in log, f"{applied}\n{log}"
        if not problems:
            assert built, f"check passed but the strict build failed: {applied}\n{log}"
            STATS["full builds"] += 1
        elif errors:
            assert not built, f"check found errors but the build succeeded: {applied}\n{report}"
            missing = [line for line in errors if line not in log]
            assert not missing, f"the build did not report {missing}: {applied}\n{log}"
        else:
            assert not built, f"check warned but the strict build succeeded: {applied}\n{report}"
            missing = [line for line in warnings if line not in log]
            assert not missing, f"the build did not report {missing}: {applied}\n{log}"


def test_report_agreement_counts() -> None:
    """Runs after the property test above: prints what it tried."""
    print(f"\nagreement: {dict(STATS)}")
    assert STATS["real builds"] >= 100
    assert STATS["check clean"] >= 5 and STATS["check errors"] >= 20 and STATS["check warnings only"] >= 3


# --- the cases the issue names ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "find", "replace", "expect"),
    [
        (
            "content/skirmish/rules.md",
            "[% special-rules skirmish %]",
            "[% special-rules skirmish level=abc %]",
            "content/skirmish/rules.md:7:1: error[directive]: special-rules level must be a heading level from 2 to 6, not 'abc'",
        ),
        (
            "data/skirmish/army-lists/rangers.yaml",
            "id: rangers",
            "id: " + "r" * 300,
            "data/skirmish/army-lists/rangers.yaml:2:7: error[unsafe-path]: army list page 'skirmish/army-lists/" + "r" * 300,
        ),
        (
            "data/skirmish/module.yaml",
            "anchor: sidearms",
            "anchor: side-arms",
            "data/skirmish/module.yaml:20:15: error[broken-link]: erratum points at anchor 'side-arms', which page "
            "'skirmish/army-lists/rangers' does not have (hint: did you mean 'sidearms'?)",
        ),
    ],
    ids=["level-abc", "long-page-name", "erratum-anchor"],
)
def test_what_check_refuses_the_build_refuses(file: str, find: str, replace: str, expect: str, tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    path = project / file
    path.write_text(path.read_text().replace(find, replace))
    lines = [str(p) for p in load_project(project).problems]
    assert any(line.startswith(expect) for line in lines), lines
    built, log = build_in_process(project, tmp_path / "site")
    assert not built
    assert any(line.startswith(expect) for line in log.splitlines()), log


def test_a_content_page_listed_by_the_core_module_is_scoped_once(tmp_path: Path) -> None:
    """skirmish/rules links [[Stubborn]], a Skirmish rule, but the core module lists the page.

    Whichever scope the page gets (the resolve stage decides it), check and build must use the same one:
    the check's error is the build's error, never a clean check and a failed build.
    """
    project = copy_project(MINI, tmp_path / "mini")
    core = project / "data/core/module.yaml"
    core.write_text(core.read_text().replace("pages: [core/rules]", "pages: [core/rules, skirmish/rules]"))
    game = project / "data/skirmish/module.yaml"
    game.write_text(game.read_text().replace("pages: [skirmish/rules, ", "pages: ["))
    lines = [str(p) for p in load_project(project).problems]
    built, log = build_in_process(project, tmp_path / "site")
    if not lines:
        assert built, log
    else:
        assert not built and all(line in log for line in lines), (lines, log)
        assert lines == ["content/skirmish/rules.md:3:16: error[unknown-rule]: [[Stubborn]] names no special rule in Core Rules"]


# --- strict means strict --------------------------------------------------------------------------


def test_strict_fails_on_warnings_with_and_without_quiet(tmp_path: Path) -> None:
    import subprocess
    import sys

    project = copy_project(MINI, tmp_path / "mini")
    module = project / "data/skirmish/module.yaml"
    rule = "    - {name: Unused Thing, kind: unit, text: 'Nothing uses it.'}\n"
    module.write_text(module.read_text().replace("  special_rules:\n", "  special_rules:\n" + rule, 1))
    warning = "data/skirmish/module.yaml:17:7: warning[unused]: special rule 'Unused Thing' is defined in Skirmish but nothing uses it"
    env = {**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"}
    plain = mkdocs_build(project, tmp_path / "site", strict=False)
    assert plain.returncode == 0, plain.stderr
    for quiet in ([], ["-q"]):
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", *quiet, "--site-dir", str(tmp_path / "strict")],
            cwd=project,
            capture_output=True,
            text=True,
            env=env,
        )
        assert result.returncode == 1, (quiet, result.stderr)
        assert warning in result.stderr
        cadence = subprocess.run(
            [sys.executable, "-m", "generator.cli", "build", "--strict", *quiet], cwd=project, capture_output=True, text=True, env=env
        )
        assert cadence.returncode == 1, (quiet, cadence.stderr)
        assert warning in cadence.stderr


# --- cadence roster and the builder's script (run by Node) agree -------------------------------------

BUILDER_JS = Path(__file__).resolve().parents[1] / "generator" / "assets" / "builder.js"

#: Reads {document, rosters} on stdin: each roster file's text as the builder reads an opened file (`read`),
#: then checked (`check`); prints each verdict as `cadence roster --format json` prints it.
NODE_READER = """
const roster = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(input.rosters.map((text) => {
  const got = roster.read(input.document, text);
  if (got.raw === null) return { total: 0, unit_costs: [], problems: got.problems };
  const v = roster.check(input.document, got.raw);
  return { total: v.total, unit_costs: v.unit_costs, problems: v.problems };
})));
"""


def builder_verdicts(document: dict[str, Any], rosters: list[str]) -> list[dict[str, Any]]:
    """What the builder page's own script decides about each roster file's text, run by Node."""
    import subprocess

    node = shutil.which("node")
    assert node is not None, "Node.js runs the builder's script in the fast tests"
    done = subprocess.run(
        [node, "-e", NODE_READER, str(BUILDER_JS)],
        input=json.dumps({"document": document, "rosters": rosters}),
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def shipped_exports() -> dict[str, Any]:
    from generator.export import export_project

    from .conftest import REPO

    loaded = load_project(REPO)
    assert loaded.project is not None and not loaded.errors
    return export_project(loaded.project)


def _roster(units: str, head: str = '"format_version": 1, "module": "fracture", "list": "Marauders", "points": 1000') -> str:
    return "{" + head + ', "units": [' + units + "]}\n"


WARLORD = '{"unit": "Warlord", "models": [{"model": "Warlord", "count": 1, "weapons": ["Slammer"]}]}'
QUEEN = '{"unit": "Psionic Queen", "models": [{"model": "Psionic Queen", "weapons": [WEAPONS], "upgrades": ["Psionic Urging", "Psionic Fury"]}]}'
SWARM = '"format_version": 1, "module": "fracture", "list": "The Swarm", "points": 1000'

#: Roster files on which the two runtimes once differed, or which the issue names: keys given twice (Python kept
#: the first value, the builder the last), misspelt names (dropped with a warning), a compulsory weapon listed
#: (refused and charged twice), the empty roster (legal), and rosters over the limits (read whole, slowly).
AGREEMENT_ROSTERS = {
    "duplicate key": '{"module": "fracture", "list": "Marauders", "points": 1000, "points": 50, "units": [' + WARLORD + "]}",
    "nested duplicate key": _roster('{"unit": "Warlord", "models": [{"model": "Warlord", "count": 1, "count": 9}], "unit": "Grunts"}'),
    "escaped duplicate key": '{"list": "Marauders", "l\\u0069st": "Raiders", "units": []}',
    "misspelt unit": _roster(WARLORD + ', {"unit": "Grunst", "models": [{"model": "Grunt", "count": 10}]}'),
    "misspelt model": _roster('{"unit": "Grunts", "models": [{"model": "Grnut", "count": 10}]}'),
    "misspelt weapon": _roster('{"unit": "Warlord", "models": [{"model": "Warlord", "weapons": ["Slamer"]}]}'),
    "misspelt upgrade": _roster('{"unit": "Warlord", "models": [{"model": "Warlord", "weapons": ["Slammer"], "upgrades": ["Big Bos"]}]}'),
    "name near nothing": _roster('{"unit": "Warlord", "models": [{"model": "Warlord", "weapons": ["Retired Blaster"]}]}'),
    "compulsory weapon listed": _roster(QUEEN.replace("WEAPONS", '"Razor Claws", "Neural Blast"'), SWARM),
    "compulsory weapon unlisted": _roster(QUEEN.replace("WEAPONS", '"Neural Blast"'), SWARM),
    "compulsory weapon listed twice": _roster(QUEEN.replace("WEAPONS", '"Razor Claws", "Neural Blast", "Razor Claws"'), SWARM),
    "empty roster": _roster(""),
    "no units key": '{"module": "fracture", "list": "Marauders"}',
    "units at the limit": _roster(", ".join([WARLORD] * 200)),
    "too many units": _roster(", ".join([WARLORD] * 201)),
    "too large": _roster(WARLORD).replace('"points": 1000', '"points": 1000, "notes": "' + "x" * 262144 + '"'),
}


def test_cadence_roster_and_the_builder_script_agree_on_what_the_issue_names(tmp_path: Path, shipped_exports: dict[str, Any]) -> None:
    from generator.roster import check_roster_file

    document = shipped_exports["fracture"].data
    assert document["limits"] == {"bytes": 262144, "units": 200}
    expected = []
    for n, text in enumerate(AGREEMENT_ROSTERS.values()):
        path = tmp_path / f"roster-{n}.json"
        path.write_text(text, encoding="utf-8")
        expected.append(check_roster_file(path, path.name, shipped_exports)[0].as_json())
    got = builder_verdicts(json.loads(json.dumps(document)), list(AGREEMENT_ROSTERS.values()))
    for name, mine, theirs in zip(AGREEMENT_ROSTERS, got, expected, strict=True):
        assert mine == theirs, f"{name}: the builder's script and cadence roster disagree"
    verdicts = dict(zip(AGREEMENT_ROSTERS, expected, strict=True))
    codes = {name: [p["code"] for p in v["problems"]] for name, v in verdicts.items()}
    assert codes["duplicate key"] == ["roster-duplicate-key"] and codes["escaped duplicate key"] == ["roster-duplicate-key"]
    assert [p["path"] for p in verdicts["nested duplicate key"]["problems"]] == ["units[0].models[0].count", "units[0].unit"]
    for name in ("misspelt unit", "misspelt model", "misspelt weapon", "misspelt upgrade"):
        dropped = [p for p in verdicts[name]["problems"] if p["code"] == "roster-dropped"]
        assert len(dropped) == 1 and dropped[0]["severity"] == "error" and dropped[0]["hint"].startswith("did you mean '"), name
    assert "hint" not in verdicts["name near nothing"]["problems"][0]
    listed, unlisted = verdicts["compulsory weapon listed"], verdicts["compulsory weapon unlisted"]
    assert listed == unlisted and "roster-weapon" in codes["compulsory weapon listed twice"]
    assert codes["empty roster"] == ["roster-empty"] and "roster-empty" in codes["no units key"]
    assert "roster-too-many-units" not in codes["units at the limit"]
    assert codes["too many units"] == ["roster-too-many-units"] and codes["too large"] == ["roster-too-large"]
