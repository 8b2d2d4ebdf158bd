"""The checker, by example: one planted mistake per check code, each with its exact line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import checks
from generator.errata import apply_as_published
from generator.pages import load_project
from generator.report import format_problems

from .conftest import MINI, REPO, copy_project, mkdocs_build

CASES_FILE = Path(__file__).parent / "checks" / "cases.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
EXPECTED = Path(__file__).parent / "expected"


def plant(project: Path, case: dict[str, Any]) -> None:
    path = project / case["file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if case["find"]:
        assert text.count(case["find"]) == 1, f"case text {case['find']!r} must occur once in {case['file']}"
        text = text.replace(case["find"], case["replace"])
    else:
        text = case["replace"]
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def test_valid_fixture_and_shipped_data_check_clean() -> None:
    assert [str(p) for p in load_project(MINI).problems] == []
    assert [str(p) for p in load_project(REPO).problems] == []


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c['code']}-{i}" for i, c in enumerate(CASES)])
def test_each_planted_mistake_is_reported_exactly(index: int, tmp_path: Path) -> None:
    case = CASES[index]
    project = copy_project(MINI, tmp_path / "mini")
    plant(project, case)
    problems = load_project(project).problems
    lines = [str(p) for p in problems]
    if os.environ.get("UPDATE_CASES"):
        case["expect"] = next((line for line in lines if f"[{case['code']}]" in line), None)
        CASES_FILE.write_text(_dump(CASES), encoding="utf-8")
        return
    assert any(f"[{case['code']}]" in line for line in lines), lines
    assert case["expect"] in lines, "\n".join(lines)
    assert all("Traceback" not in line for line in lines)


@pytest.mark.parametrize(
    ("file", "find", "replace", "expect"),
    [
        ("data/system.yaml", "forms: [target]}", "forms: [targt]}", "data/system.yaml:12:53: error[unknown-form]"),
        (
            "data/core/module.yaml",
            "values: [number], kind: unit",
            "values: [numbr], kind: unit",
            "data/core/module.yaml:9:51: error[unknown-form]",
        ),
        ("data/core/module.yaml", "{name: Flying, kind: unit,", "{name: Flying, kind: unti,", "data/core/module.yaml:10:28: error[value]"),
    ],
    ids=["column form", "rule form", "rule kind"],
)
def test_a_slip_in_a_declaration_is_one_problem_not_one_per_use(file: str, find: str, replace: str, expect: str, tmp_path: Path) -> None:
    """A column or rule naming a value form, or a rule a kind, the system does not declare is reported there, once:
    the values and uses it would judge are not each reported again: they are judged by the declared forms only."""
    project = copy_project(MINI, tmp_path / "mini")
    plant(project, {"file": file, "find": find, "replace": replace})
    lines = [str(p) for p in load_project(project).problems]
    assert len(lines) == 1 and lines[0].startswith(expect), "\n".join(lines)


def _dump(cases: list[dict[str, Any]]) -> str:
    header = "".join(line + "\n" for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.startswith("#"))
    return header + yaml.safe_dump(cases, sort_keys=False, allow_unicode=False, width=200)


def test_every_check_code_has_a_case() -> None:
    """Each code a registered check may report is planted at least once above (the registry lists them)."""
    covered = {c["code"] for c in CASES}
    not_planted = {
        "share",
        "empty-option",
        "unknown-section",
        "unknown-list",
        "page-collision",
        "points",
        "profile",
        "rules",
        "missing",
        "too-large",  # needs a list of over a thousand units
    }
    assert checks.codes() - covered - not_planted == set()
    assert not_planted <= checks.codes(), "a code excused from planting is no longer registered"


def test_a_page_is_read_in_one_scope_by_check_and_build(tmp_path: Path) -> None:
    """A page the core module lists is read in the core rules, by the check as by the build.

    Once the check read it in its folder's module and the build in the core rules, so a link to a
    module rule checked clean and then failed the build.
    """
    project = copy_project(MINI, tmp_path / "mini")
    core, skirmish = project / "data/core/module.yaml", project / "data/skirmish/module.yaml"
    core.write_text(
        core.read_text(encoding="utf-8").replace("pages: [core/rules]", "pages: [core/rules, skirmish/rules]"), encoding="utf-8"
    )
    skirmish.write_text(skirmish.read_text(encoding="utf-8").replace("pages: [skirmish/rules, ", "pages: ["), encoding="utf-8")
    loaded = load_project(project)
    assert loaded.resolved is not None and loaded.resolved.page_scopes["skirmish/rules"] == "core"
    assert [str(p) for p in loaded.errors] == [
        "content/skirmish/rules.md:3:16: error[unknown-rule]: [[Stubborn]] names no special rule in Core Rules"
    ]


DIRECTIVE_CASES = [
    i for i, c in enumerate(CASES) if c["code"] == "directive" and " error[" in c["expect"]
]  # a warning does not stop a build


@pytest.mark.parametrize("index", DIRECTIVE_CASES, ids=[CASES[i]["replace"] for i in DIRECTIVE_CASES])
def test_a_bad_directive_stops_check_and_build_with_the_same_line(index: int, tmp_path: Path) -> None:
    """The build reads the directive the check bound: it fails on the check's line, never in the renderer."""
    case = CASES[index]
    project = copy_project(MINI, tmp_path / "mini")
    plant(project, case)
    check = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
    build = mkdocs_build(project, tmp_path / "site")
    assert check.returncode == 1 and case["expect"] in check.stdout.splitlines()
    assert build.returncode != 0 and any(line.endswith(f" {case['expect']}") for line in build.stderr.splitlines()), build.stderr
    assert "Traceback" not in build.stderr


def errata_with_checks() -> list[tuple[str, int, str]]:
    loaded = load_project(REPO)
    assert loaded.project is not None
    return [
        (module.id, index, erratum.caught_by)
        for module in loaded.project.modules.values()
        for index, erratum in enumerate(module.errata)
        if erratum.caught_by
    ]


@pytest.mark.parametrize(("module", "index", "code"), errata_with_checks())
def test_each_erratum_put_back_alone_is_caught(module: str, index: int, code: str, tmp_path: Path) -> None:
    """Putting back what the source printed, one erratum at a time, is reported with the erratum's code."""
    copy, notes = apply_as_published(REPO, tmp_path, "data", "content", only=(module, index))
    assert notes[-1] == "as-published: applied 1 errata", notes
    problems = load_project(copy, check_patches=False).problems
    assert code in {p.code for p in problems}, [str(p) for p in problems]


def test_as_published_reports_the_sources_mistakes() -> None:
    """`cadence check --as-published`: the expected output is the list of the sources' mistakes."""
    result = subprocess.run([sys.executable, "-m", "generator.cli", "check", "--as-published"], cwd=REPO, capture_output=True, text=True)
    expected = EXPECTED / "as-published.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(result.stdout, encoding="utf-8")
    assert result.returncode == 1
    assert result.stdout == expected.read_text(encoding="utf-8")
    assert "as-published: applied" in result.stderr


def test_output_formats(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    plant(project, CASES[0])
    problems = load_project(project).problems
    text = format_problems(problems, "text").splitlines()
    assert text[-1] == "1 error, 0 warnings"
    import json

    objects = [json.loads(line) for line in format_problems(problems, "json").splitlines()]
    assert objects[0]["code"] == "unknown-key" and objects[0]["path"] == "data/skirmish/army-lists/rangers.yaml"
    github = format_problems(problems, "github")
    assert github.startswith("::error file=data/skirmish/army-lists/rangers.yaml,line=")
    assert "title=unknown-key::" in github


@pytest.mark.parametrize(("args", "code"), [(["check"], 0), (["check", "--format", "nope"], 2), (["frobnicate"], 2)])
def test_exit_codes(args: list[str], code: int) -> None:
    result = subprocess.run([sys.executable, "-m", "generator.cli", *args], cwd=MINI, capture_output=True, text=True)
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_exit_code_for_problems_and_missing_project(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    plant(project, CASES[0])
    result = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
    assert result.returncode == 1
    result = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 2
    assert "no mkdocs.yml" in result.stderr


def test_a_missing_data_folder_is_a_usage_error_for_check_and_build_alike(tmp_path: Path) -> None:
    """Exit 2 (usage or I/O), the same located lines from both commands; before, the build said 1, and the
    folder was located at 0:0."""
    import shutil

    from .conftest import cadence_build

    project = copy_project(MINI, tmp_path / "mini")
    shutil.rmtree(project / "data")
    checked = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
    built = cadence_build(project, tmp_path / "site", "mkdocs")
    lines = [line for line in checked.stdout.splitlines() if "error[" in line]
    assert lines[0] == (
        "mkdocs.yml:1:1: error[missing]: data folder 'data' does not exist "
        "(hint: create it, or name the project's data folder as the rules plugin's data_dir in mkdocs.yml)"
    )
    assert (checked.returncode, built.returncode) == (2, 2), built.stderr
    assert [line for line in built.stderr.splitlines() if "error[" in line] == lines == lines[:1]  # not also "no system file"
    assert not (tmp_path / "site").exists() and "Traceback" not in built.stderr
    # a folder has no line: its error points at the setting that names it, when mkdocs.yml has one
    shutil.rmtree(project / "content")
    checked = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
    assert "mkdocs.yml:2:11: error[missing]: content folder 'content' does not exist" in checked.stdout


def test_a_tab_in_a_module_file_is_one_error_with_a_hint(tmp_path: Path) -> None:
    """A designer's commonest YAML slip: told where, and what it is; the lists of that module's folder are not
    also reported as having no module file (its own error says why it was not read)."""
    project = copy_project(MINI, tmp_path / "mini")
    module = project / "data/skirmish/module.yaml"
    module.write_text(module.read_text(encoding="utf-8").replace("    budget: 200", "\tbudget: 200"), encoding="utf-8")
    assert [str(p) for p in load_project(project).problems] == [
        "data/skirmish/module.yaml:10:1: error[yaml]: invalid YAML: found character that cannot start any token (while scanning for the next token) "
        "(hint: YAML indents with spaces, not tabs: this line has a tab)"
    ]


def test_a_mistyped_uses_is_one_error_and_other_unknown_names_still_show(tmp_path: Path) -> None:
    """Before, one slip in `uses` also reported each of the 69 names the fleet takes from the list it meant."""
    project = copy_project(REPO, tmp_path / "shipped")
    fleet = project / "data/squadrons/fleets/star-wars-fleets.yaml"
    text = fleet.read_text(encoding="utf-8").replace("uses: [squadrons/building-a-squadron]", "uses: [squadrons/building-a-squadrn]")
    fleet.write_text(text.replace("weapons: [Twin Energy Cannons]", "weapons: [Twin Enrgy Cannons]", 1), encoding="utf-8")
    lines = [str(p) for p in load_project(project).problems if p.severity.value == "error"]
    assert len(lines) == 2, "\n".join(lines)
    assert lines[0].startswith(
        "data/squadrons/fleets/star-wars-fleets.yaml:7:10: error[unknown-list]: 'uses' names 'squadrons/building-a-squadrn'"
    )
    assert "names this list could take from 'squadrons/building-a-squadron' are not reported" in lines[0]
    assert "error[unknown-weapon]: 'TIE Interceptor' names weapon 'Twin Enrgy Cannons'" in lines[1]


@pytest.mark.parametrize(
    ("file", "find", "replace", "expected"),
    [
        (
            "data/core/module.yaml",
            "text: This model ignores",
            "text: 'This model ignores",
            "data/core/module.yaml:10:40: error[yaml]: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping) "
            "(hint: this quote is not closed on its line; YAML read on to line 11, column 44)",
        ),
        (
            "data/skirmish/module.yaml",
            "summary: A small test game.",
            'summary: "A small test game.',
            "data/skirmish/module.yaml:5:12: error[yaml]: invalid YAML: did not find expected key (while parsing a block mapping) "
            "(hint: this quote is not closed on its line; YAML read on to line 24, column 69)",
        ),
    ],
)
def test_an_unclosed_quote_is_reported_where_it_opens(file: str, find: str, replace: str, expected: str, tmp_path: Path) -> None:
    """YAML reads on past an unclosed quote and fails lines later; the designer is sent to the quote."""
    project = copy_project(MINI, tmp_path / "mini")
    path = project / file
    path.write_text(path.read_text(encoding="utf-8").replace(find, replace, 1), encoding="utf-8")
    assert [str(p) for p in load_project(project).problems] == [expected]


def test_a_misspelt_army_list_page_is_one_error_at_the_list(tmp_path: Path) -> None:
    """The module's listing and seven errata name the page the list meant: before, each of those eight was the error."""
    project = copy_project(REPO, tmp_path / "shipped")
    fleet = project / "data/squadrons/fleets/fractured-skies.yaml"
    fleet.write_text(
        fleet.read_text(encoding="utf-8").replace("page: squadrons/fleets/fractured-skies", "page: squadrons/fleets/fractured-skys")
    )
    assert [str(p) for p in load_project(project).problems if p.severity.value == "error"] == [
        "data/squadrons/fleets/fractured-skies.yaml:6:9: error[missing-page]: army list 'Fractured Skies' is published at "
        "'squadrons/fleets/fractured-skys', but module 'squadrons' lists it as 'squadrons/fleets/fractured-skies' "
        "(data/squadrons/module.yaml:39:7) and 7 errata point there (hint: did you mean 'squadrons/fleets/fractured-skies'?)"
    ]
    # the module's listing misspelt instead: the list and its errata agree, so the listing is the error
    fleet.write_text(fleet.read_text(encoding="utf-8").replace("fractured-skys", "fractured-skies"))
    module = project / "data/squadrons/module.yaml"
    module.write_text(
        module.read_text(encoding="utf-8").replace("- squadrons/fleets/fractured-skies", "- squadrons/fleets/fractured-skys", 1)
    )
    assert [str(p) for p in load_project(project).problems if p.severity.value == "error"] == [
        "data/squadrons/module.yaml:39:7: error[missing-page]: module 'squadrons' lists page 'squadrons/fleets/fractured-skys', "
        "but there is no content/squadrons/fleets/fractured-skys.md and no data generates it "
        "(hint: did you mean 'squadrons/fleets/fractured-skies'?)"
    ]


def test_spelling_skips_a_tag_whole_and_reads_a_less_than_sign_as_prose(tmp_path: Path) -> None:
    """A '>' inside a quoted attribute value ended the tag, so the rest of the tag was spell-checked as prose;
    and a '<' in prose hid every word up to the next '>' on the page."""
    project = copy_project(MINI, tmp_path / "mini")
    page = project / "content/core/rules.md"
    text = page.read_text(encoding="utf-8").replace(
        "# Core Rules",
        '# Core Rules\n\nRoll <abbr title="higher than 3 > 2 qzxv">high</abbr>.\n\nOn a roll < 3 the unit qzxw falls back; <b>then</b> it rallies.',
        1,
    )
    page.write_text(text, encoding="utf-8")
    lines = [str(p) for p in load_project(project).problems]
    assert [line for line in lines if "qzx" in line] == [
        "content/core/rules.md:5:24: warning[spelling]: 'qzxw' is not a known word (hint: if 'qzxw' is right, add it to data/words.txt)"
    ], lines


def test_a_check_stopped_short_by_unreadable_data_says_so(tmp_path: Path) -> None:
    """Names, points and army-building rules are checked only on data that reads cleanly (else one bad file
    echoes as errors everywhere): while one file does not, `cadence check` and `cadence build` say the other
    checks are still to come, and once it does they run and the note is gone."""
    from generator.report import NOT_CHECKED

    from .conftest import cadence_build

    project = copy_project(MINI, tmp_path / "mini")
    rangers = project / "data/skirmish/army-lists/rangers.yaml"
    published = rangers.read_text()
    misspelt = published.replace("rules: [Flying, Stubborn]", "rules: [Flyng, Stubborn]")
    rangers.write_text(misspelt.replace("points: 45}", "points: 45, extra: 3}"))

    def check() -> list[str]:
        result = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
        assert result.returncode == 1, result.stdout + result.stderr
        return result.stdout.splitlines()

    lines = check()
    assert [line.split(": ")[1] for line in lines[:-1]] == ["error[unknown-key]"], lines
    assert lines[-1] == f"1 error, 0 warnings; {NOT_CHECKED}"
    built = cadence_build(project, tmp_path / "site", "mkdocs")
    assert built.returncode == 1 and f"1 error, 0 warnings; {NOT_CHECKED}" in built.stderr.splitlines(), built.stderr

    rangers.write_text(misspelt)
    lines = check()
    assert any("error[unknown-rule]" in line and "'Flyng'" in line for line in lines), lines
    assert lines[-1].endswith(" warnings") and NOT_CHECKED not in "\n".join(lines), lines
