"""The second game system: Wasteland Tactics builds from data alone, with the same generator."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.pages import generate, load_project

from .conftest import REPO, mkdocs_build

EXAMPLE = REPO / "examples" / "wasteland-tactics"


@pytest.fixture(scope="module")
def wasteland_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("wasteland-site")
    result = mkdocs_build(EXAMPLE, site)
    assert result.returncode == 0, result.stderr
    return site


def test_example_checks_clean() -> None:
    assert [str(p) for p in load_project(EXAMPLE).problems] == []


def test_example_pages_rule_anchors_and_roll_tables(wasteland_site: Path) -> None:
    loaded = load_project(EXAMPLE)
    assert loaded.project is not None
    assert loaded.project.system.id != "cadence"
    pages = {p.relative_to(wasteland_site).as_posix() for p in wasteland_site.rglob("*.html")}
    assert "index.html" in pages and "rules-index.html" in pages
    for page in loaded.content:
        assert f"{page}.html" in pages, page
    generated = generate(loaded.project, loaded.content)
    for key, scope in loaded.project.scopes.items():
        for rule in scope.unique_rules():
            place = generated.site_map.rule_place(key, rule)
            assert place is not None, rule.name
            html = (wasteland_site / f"{place[0]}.html").read_text(encoding="utf-8")
            assert f'id="{place[1]}"' in html, (rule.name, place)
    rolls = [t for m in loaded.project.modules.values() for t in m.tables if t.dice == "d10"]
    assert len(rolls) >= 6
    shown = "\n".join((wasteland_site / p).read_text(encoding="utf-8") for p in pages)
    for table in rolls:
        first_row = table.rows[0]
        assert re.search(rf"<td[^>]*>\s*{re.escape(str(first_row[0]))}\s*</td>", shown), table.name


def test_example_search_index_has_an_entry_per_rule(wasteland_site: Path) -> None:
    loaded = load_project(EXAMPLE)
    assert loaded.project is not None
    generated = generate(loaded.project, loaded.content)
    locations = {d["location"] for d in json.loads((wasteland_site / "search/search_index.json").read_text())["docs"]}
    count = 0
    for key, scope in loaded.project.scopes.items():
        for rule in scope.unique_rules():
            place = generated.site_map.rule_place(key, rule)
            assert place is not None
            assert f"{place[0]}.html#{place[1]}" in locations, rule.name
            count += 1
    assert count >= 30


def test_nothing_game_specific_in_the_generator() -> None:
    for path in (REPO / "generator").rglob("*"):
        if path.is_file() and path.suffix in (".py", ".j2", ".css"):
            text = path.read_text(encoding="utf-8").lower()
            assert "wasteland" not in text, path
            for word in ("fracture", "sentinel", "devil's bluff", "squadrons"):
                assert word not in text, (path, word)
