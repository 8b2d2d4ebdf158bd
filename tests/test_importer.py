"""`cadence import`: a module written in Markdown becomes data the checker reads, on the older Respawn
module as its author wrote it and on a module of our own in another layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
