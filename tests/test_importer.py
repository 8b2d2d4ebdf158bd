"""`cadence import`: a module written in Markdown becomes data the checker reads, on the older Respawn
module as its author wrote it and on a module of our own in another layout."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from generator.importer import classify, import_markdown, parse_markdown
from generator.pages import load_project

from .conftest import MINI, REPO, copy_project, mkdocs_build

IMPORT = Path(__file__).parent / "fixtures" / "import"
RESPAWN = IMPORT / "respawn-module-older-markdown.md"
RAIDERS = IMPORT / "raiders.md"


def test_tables_are_read_with_their_cells_located() -> None:
    tree = parse_markdown('# Game\n\n## Units\n\n| Name | Mov |\n| :-- | :-: |\n| Scout | 6" |\n\nAfter.\n')
    units = tree.children[0].children[0]
    table = units.tables()[0]
    assert [c.text for c in table.header] == ["Name", "Mov"]
    assert [(c.text, c.line, c.column) for c in table.rows[0]] == [("Scout", 7, 3), ('6"', 7, 11)]
    assert units.prose == "After."


def test_the_older_respawn_module_imports_into_checked_data(tmp_path: Path) -> None:
    """Every table and rule definition of the older Respawn Markdown is placed as data; what the
    checker then reports are the source's own slips (spellings, two different items of one name)."""
    project = copy_project(REPO, tmp_path / "cadence")
    result = import_markdown(project, RESPAWN, module_id="respawn-classic")
    assert result.problems == []
    assert result.tables == 17
    assert result.counts == {"units": 1, "weapon lists": 2, "upgrade lists": 8, "tables": 4, "roll tables": 1, "special rules": 5}
    loaded = load_project(project)
    errors = sorted((p.location.line, p.code, p.message.split("'")[1]) for p in loaded.problems if p.severity.value == "error")
    assert [(code, name) for _, code, name in errors] == [("duplicate-name", "Deployable Barricade"), ("duplicate-name", "Improved Armour")]
    assert {p.code for p in loaded.problems} == {"duplicate-name", "spelling"}
    assert all(p.location.path.startswith(("data/respawn-classic/", "content/respawn-classic/")) for p in loaded.problems)
    assert (result.blocks, result.clean_blocks, result.blocks_without_errors) == (21, 13, 20)
    weapons = (project / "data" / "respawn-classic" / "weapon-summary.yaml").read_text(encoding="utf-8")
    assert '- name: Assault Rifle\n        profile: {rng: 24", att: 4, dmg: 3, prc: 1}\n        rules:\n        - Rapid Fire (1)' in weapons
    rules = (project / "content" / "respawn-classic" / "special-rules.md").read_text(encoding="utf-8")
    assert "[% special-rules respawn-classic %]" in rules


def test_a_module_in_another_layout_and_what_cannot_be_placed(tmp_path: Path) -> None:
    """Full column names, a cost column, a column the system does not have, an undefined rule."""
    project = copy_project(MINI, tmp_path / "mini")
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(project), "import", str(RAIDERS)], capture_output=True, text=True
    )
    assert result.returncode == 1, result.stderr  # the check finds the undefined rule: an error
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "raiders.md:11:42: warning[import-column]: column 'Base Size' of a model table is not a profile column, rules or cost; left out",
        "raiders.md:19:29: warning[import-rule]: a model uses special rule 'Sneaky', which neither this file nor the project's core rules "
        "define (hint: define it in a special rules table, or fix its name)",
    ]
    assert (
        "data/raiders/raider-warbands.yaml:26:11: error[unknown-rule]: model 'Outrider' uses special rule 'Sneaky', "
        "which is not defined in Raider Warbands, Raiders, Core Rules"
    ) in lines
    assert "check: 1 errors, 2 warnings; 4 of 6 tables and rule definitions are data with no problem, 5 with no error" in lines
    chief = (project / "data" / "raiders" / "raider-warbands.yaml").read_text(encoding="utf-8")
    assert 'profile: {mov: 6", skl: 3+, hp: 2}' in chief and "points: 25" in chief
    # with the one undefined rule removed, the imported game checks clean and builds
    (project / "data" / "raiders" / "raider-warbands.yaml").write_text(chief.replace("        - Sneaky\n", ""), encoding="utf-8")
    words = project / "data" / "words.txt"
    words.write_text(words.read_text(encoding="utf-8") + "warband\ncentre\n", encoding="utf-8")
    assert [str(p) for p in load_project(project).problems] == []
    build = mkdocs_build(project, tmp_path / "site")
    assert build.returncode == 0, build.stderr
    page = (tmp_path / "site" / "raiders" / "raider-warbands.html").read_text(encoding="utf-8")
    assert "Raider Chief" in page and "Spare Horse" in page


def test_table_kinds_come_from_the_target_system() -> None:
    """The same headers are a profile in one game and a plain table in another."""
    loaded = load_project(MINI)
    assert loaded.project is not None
    from generator.importer import Vocabulary

    table = parse_markdown('| Name | Mov | Skl | HP |\n| - | - | - | - |\n| A | 6" | 3+ | 1 |\n').tables()[0]
    assert classify(table, Vocabulary.of(loaded.project), "") == "model"
    assert classify(table, Vocabulary.of(None), "") == "table"


def test_importing_into_another_game_reports_instead_of_crashing(tmp_path: Path) -> None:
    """The target system's rule kinds carry source positions; writing them out must still be plain YAML."""
    project = copy_project(REPO / "examples" / "wasteland-tactics", tmp_path / "wasteland")
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(project), "import", str(RESPAWN), "--module", "respawn-classic"],
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 1)
    assert "kind: unit" in (project / "data" / "respawn-classic" / "module.yaml").read_text(encoding="utf-8")


def test_a_column_left_out_is_told_once_not_once_per_row(tmp_path: Path) -> None:
    """Importing into a game whose profiles lack some of the source's columns: each left-out column of a table
    is one warning at its header, however many rows the table has (the older Respawn module's ranged weapon
    table has 19), and no two lines of the report are the same."""
    project = copy_project(MINI, tmp_path / "mini")
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(project), "import", str(RESPAWN), "--module", "respawn-classic"],
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in result.stderr
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "warning[import-column]" in line]
    assert lines, "nothing was left out, so the test proved nothing"
    repeated = [line for line in set(lines) if lines.count(line) > 1]
    assert not repeated, f"{len(lines)} lines, of which told more than once: {repeated[:3]}"
    # and by place in the source, as `cadence check` orders its lines
    told = [line for line in result.stdout.splitlines() if ": warning[import-" in line]
    places = [tuple(int(n) for n in line.split(":")[1:3]) for line in told]
    assert len(told) > len(lines) and places == sorted(places), told


# --- hostile input: `cadence import` run as a user runs it, in a copy of the mini fixture ---------------------

CADENCE = str(Path(sys.executable).with_name("cadence"))
LOCATED = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning)\[(?P<code>[\w-]+)\]: .+$")


def run_import(project: Path, source: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`cadence -C PROJECT import SOURCE`, from the source's folder, as a user would type it."""
    command = [CADENCE, "-C", str(project), "import", source.name, *options]
    return subprocess.run(command, capture_output=True, text=True, cwd=source.parent, timeout=900)


def hashes(folder: Path) -> dict[str, str]:
    """Every file under a folder by its path, with a hash of its bytes: what is on disk, to compare."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def write_source(tmp_path: Path, name: str, body: str | bytes) -> Path:
    source = tmp_path / "sources" / name
    source.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(body, bytes):
        source.write_bytes(body)
    else:
        source.write_text(body, encoding="utf-8")
    return source


def test_a_title_with_no_slug_is_a_located_error_and_writes_nothing(tmp_path: Path) -> None:
    """`# ???` gave an empty module id, so the page path was absolute: the page was written at the root of
    the file system. Now it is one error at the title, naming --id, and nothing is written anywhere."""
    probe = f"cadence-import-probe-{uuid.uuid4().hex[:12]}"
    outside = Path("/") / f"{probe}.md"
    project = copy_project(MINI, tmp_path / "mini")
    source = write_source(tmp_path, "r.md", f"# ???\n\n## {probe}\n\nHello.\n")
    before = hashes(tmp_path)
    try:
        result = run_import(project, source)
        assert not outside.exists(), "the import wrote at the root of the file system"
    finally:
        outside.unlink(missing_ok=True)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    problems = [line for line in result.stdout.splitlines() if LOCATED.match(line)]
    assert problems == [
        "r.md:1:1: error[import-id]: title '???' gives module id '', which cannot name the module's folders: it is empty "
        "(hint: give the module an id with --id, like --id my-module)"
    ]
    assert hashes(tmp_path) == before
    # as the hint says: with an id the same file imports
    named = run_import(project, source, "--id", "probe")
    assert named.returncode == 0, named.stdout + named.stderr
    assert (project / "content" / "probe" / f"{probe}.md").is_file()


def test_a_section_or_id_that_cannot_name_a_page_is_refused(tmp_path: Path) -> None:
    """A section whose heading slugs to nothing, and an id that would climb out of the data folder: each one
    error, located, and nothing written."""
    project = copy_project(MINI, tmp_path / "mini")
    source = write_source(tmp_path, "t.md", "# Title\n\n## ???\n\nx\n\n## Fine\n\ny\n")
    before = hashes(tmp_path)
    result = run_import(project, source)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert [line for line in result.stdout.splitlines() if LOCATED.match(line)] == [
        "t.md:3:1: error[import-page]: section '???' cannot name a page: it is empty (hint: give the heading a few letters or digits)"
    ]
    climbing = run_import(project, source, "--id", "../../evil")
    assert climbing.returncode == 1 and "Traceback" not in climbing.stderr
    assert [line for line in climbing.stdout.splitlines() if LOCATED.match(line)] == [
        "t.md:1:1: error[import-id]: module id '../../evil' cannot name the module's folders: it has an empty, '.' or '..' segment "
        "(hint: give the module an id with --id, like --id my-module)"
    ]
    assert hashes(tmp_path) == before


def test_a_data_folder_that_leads_out_of_the_project_is_refused(tmp_path: Path) -> None:
    """The data folder a link to somewhere else: the files would land outside the project, so none is written."""
    project = copy_project(MINI, tmp_path / "mini")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "data" / "raiders").symlink_to(elsewhere, target_is_directory=True)
    result = run_import(project, RAIDERS)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "raiders.md:1:1: error[import-path]: data/raiders/module.yaml would be written outside the project" in result.stdout
    assert list(elsewhere.iterdir()) == []


def test_a_module_already_there_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    """`# Skirmish` into the mini fixture replaced its module file and rules page without a word."""
    project = copy_project(MINI, tmp_path / "mini")
    source = write_source(tmp_path, "s.md", "# Skirmish\n\n## Rules\n\nNew text.\n")
    before = hashes(project)
    result = run_import(project, source)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stdout.splitlines() if LOCATED.match(line)]
    assert len(lines) == 3, result.stdout
    again = "(hint: give the new module another id with --id, or pass --force to replace the files it writes)"
    assert f"s.md:1:1: error[import-exists]: data/skirmish/module.yaml is already there; importing would replace it {again}" in lines
    assert f"s.md:3:1: error[import-exists]: content/skirmish/rules.md is already there; importing would replace it {again}" in lines
    assert f"s.md:1:1: error[import-exists]: module 'skirmish' is already in the project (data/skirmish/module.yaml) {again}" in lines
    assert hashes(project) == before


def test_hand_edits_to_an_earlier_import_are_kept(tmp_path: Path) -> None:
    """Importing the same file twice: the second import is refused, and the designer's edit stays."""
    project = copy_project(MINI, tmp_path / "mini")
    assert run_import(project, RAIDERS).returncode == 1  # the check's one error (an undefined rule), files written
    edited = project / "data" / "raiders" / "raider-warbands.yaml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("        - Sneaky\n", ""), encoding="utf-8")
    before = hashes(project)
    again = run_import(project, RAIDERS)
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "raiders.md:5:1: error[import-exists]: data/raiders/raider-warbands.yaml is already there" in again.stdout
    assert hashes(project) == before


def test_force_replaces_and_names_each_file_it_replaced(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    source = write_source(tmp_path, "s.md", "# Skirmish\n\n## Rules\n\nNew text.\n")
    kept = hashes(project)["data/skirmish/army-lists/rangers.yaml"]
    result = run_import(project, source, "--force")
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("replaced ")] == [
        "replaced data/skirmish/module.yaml",
        "replaced content/skirmish/rules.md",
    ]
    assert "New text." in (project / "content" / "skirmish" / "rules.md").read_text(encoding="utf-8")
    assert hashes(project)["data/skirmish/army-lists/rangers.yaml"] == kept  # only what the import writes is replaced
    # the old module's list still uses a rule the new module file no longer defines: the check says so, exit 1
    assert result.returncode == 1
    assert any(": error[unknown-rule]: " in line and line.startswith("data/skirmish/army-lists/rangers.yaml:") for line in lines)


def test_the_checks_problems_are_printed_as_cadence_check_prints_them(tmp_path: Path) -> None:
    """An import the check finds errors in exits 1, and shows each problem: the very lines `cadence check` prints."""
    project = copy_project(MINI, tmp_path / "mini")
    result = run_import(project, RAIDERS)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    check = subprocess.run([CADENCE, "-C", str(project), "check"], capture_output=True, text=True)
    assert check.returncode == 1
    told = [line for line in check.stdout.splitlines() if LOCATED.match(line)]
    assert any(": error[" in line for line in told), check.stdout
    assert set(told) <= set(result.stdout.splitlines())


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
            "picture.md:1:1: error[encoding]: byte 0x89 is not valid UTF-8 (hint: save the file as UTF-8 Markdown text)",
        ),
        (
            b"# Title\n\nText\x00\x01\x02 and more\n",
            "picture.md:3:5: error[encoding]: control character U+0000: this is not Markdown text "
            "(hint: a binary file cannot be imported; give the module's Markdown file)",
        ),
        (
            "# Règles\n\n## Armée\n\nTexte.\n".encode("latin-1"),
            "picture.md:1:4: error[encoding]: byte 0xe8 is not valid UTF-8 (hint: save the file as UTF-8 Markdown text)",
        ),
    ],
    ids=["binary", "nul-bytes", "latin-1"],
)
def test_a_file_that_is_not_utf8_text_is_one_located_line(tmp_path: Path, body: bytes, expected: str) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    source = write_source(tmp_path, "picture.md", body)
    before = hashes(project)
    result = run_import(project, source)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if LOCATED.match(line)] == [expected]
    assert hashes(project) == before


def large_module(sections: int) -> str:
    """A module of many sections, each naming its tables as the others do, each rules page with its own rules."""
    parts = ["# Large\n\nA module of many sections.\n"]
    for n in range(sections):
        parts.append(
            f"\n## Band {n}\n\n### Trooper {n}\n\n| Name | Movement | Skill | Hit Points | Special Rules | Points |\n|---|---|---|---|---|---|\n"
            f'| Trooper {n} | 6" | 4+ | 1 | Steady | 10 |\n\n### Weapons\n\n| Weapon | Range | Attacks | Points |\n|---|---|---|---|\n'
            f'| Rifle {n} | 24" | 1 | 2 |\n\n### Gear\n\n| Gear | Cost | Description |\n|---|---|---|\n| Smoke {n} | 2 | Hidden a while. |\n'
            f"\n## Rules {n}\n\n" + "The rules are read in order. " * 20 + "\n\n| Rule | Description |\n|---|---|\n"
            f"| {'Steady' if n == 0 else f'Calm {n}'} | The model ignores its first pin. |\n"
        )
    return "".join(parts)


def test_a_large_module_of_many_sections_imports_with_each_rule_shown_once(tmp_path: Path) -> None:
    """About 2 MB of sections that each repeat the same table names and hold their own rules table. Every rules
    page used to show the whole module's rules (a site whose size grew as the square of the module's); now the
    rules are shown once, where the first table was, and each later table says where its rules went."""
    project = copy_project(MINI, tmp_path / "mini")
    text = large_module(2000)
    assert len(text) > 2_000_000
    source = write_source(tmp_path, "large.md", text)
    result = run_import(project, source)
    assert "Traceback" not in result.stderr, result.stderr
    assert "imported 8000 tables as 2000 special rules, 2000 units, 2000 upgrade lists, 2000 weapon lists;" in result.stdout
    pages = sorted((project / "content" / "large").glob("*.md"))
    assert len(pages) == 2000
    shown = [page.name for page in pages if "[% special-rules large %]" in page.read_text(encoding="utf-8")]
    assert shown == ["rules-0.md"]
    moved = [line for line in result.stdout.splitlines() if "warning[import-rules]" in line]
    assert len(moved) == 1999
    second = [n for n, line in enumerate(text.splitlines(), 1) if line == "| Rule | Description |"][1]
    assert moved[0] == (
        f"large.md:{second}:1: warning[import-rules]: these special rules are shown with the module's others, on page 'large/rules-0'"
    )
    weapons = (project / "data" / "large" / "band-1999.yaml").read_text(encoding="utf-8")
    assert "id: weapons-1999" in weapons  # the 2000th "Weapons" table, numbered as the first 1999 left it
    assert not [line for line in result.stdout.splitlines() if ": error[" in line]
    assert result.returncode == 0


def test_a_module_whose_module_file_the_loader_would_refuse_is_refused_up_front(tmp_path: Path) -> None:
    """A module's special rules and tables all live in its module.yaml: rules whose texts come to more than the
    loader reads in one data file (2 MiB) are refused before anything is written, in one error at the title,
    rather than written as a file that `cadence check` and the build then refuse."""
    project = copy_project(MINI, tmp_path / "mini")
    rows = "".join(f"| Rule {n} | {'The model ignores its first pin and holds. ' * 12} |\n" for n in range(4500))
    text = f"# Huge\n\nA module of very many rules.\n\n## Rules\n\n| Rule | Description |\n|---|---|\n{rows}"
    assert len(text) < 2 * 1024 * 1024 * 1.2  # about the size of the limit: the module file outgrows the source
    source = write_source(tmp_path, "huge.md", text)
    before = hashes(project)
    result = run_import(project, source)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    located = [line for line in result.stdout.splitlines() if LOCATED.match(line) and ": error[" in line]
    assert len(located) == 1, result.stdout  # the import's warnings (each rule's kind) are told as well
    assert re.fullmatch(
        r"huge\.md:1:1: error\[import-too-large\]: data/huge/module\.yaml would hold [\d,]+ bytes; the checker reads a data "
        r"file of at most 2,097,152 bytes \(2 MiB\) \(hint: split the source into several modules, a Markdown file each, "
        r"and import each with its own --id\)",
        located[0],
    ), located[0]
    assert hashes(project) == before
