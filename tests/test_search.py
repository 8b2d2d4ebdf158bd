"""Search quality: every special rule's definition is the first result for its name.

Queries run through the built site's own search index with `lunr`, weighted as Material's search
weights it (titles far above text). A name that several scopes define (Leader in two games, say) is
counted correct when the first result is one of that name's definitions, and all its definitions must
then fill the first places (Material shows each under its game's page title, so a reader picks theirs).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from generator.model import slugify
from generator.pages import generate, load_project
from generator.search import load_index, search

from .conftest import REPO


def rule_definitions() -> dict[str, list[tuple[str, str]]]:
    """Rule title → [(location of its definition, module title)], for every rule in the data."""
    loaded = load_project(REPO)
    assert loaded.project is not None
    generated = generate(loaded.project, loaded.content)
    places: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, scope in loaded.project.scopes.items():
        module = loaded.project.modules[scope.module]
        for rule in scope.unique_rules():
            place = generated.site_map.rule_place(key, rule)
            assert place is not None, f"rule {rule.name} of {key} is not shown on any page"
            page, anchor = place
            places[loaded.project.rule_title(rule)].append((f"{page}.html#{anchor}", module.title))
    return places


def test_every_rule_definition_ranks_first(built_site: Path) -> None:
    index, docs = load_index(built_site / "search" / "search_index.json")
    definitions = rule_definitions()
    misses = []
    for title, places in sorted(definitions.items()):
        expected = {location for location, _ in places}
        results = search(index, docs, title, limit=1)
        if not results or results[0].location not in expected:
            misses.append(f"{title}: first result {results[0].location if results else None}, expected {sorted(expected)}")
    shared = {title: places for title, places in definitions.items() if len(places) > 1}
    for title, places in sorted(shared.items()):
        top = {r.location for r in search(index, docs, title, limit=len(places))}
        for location, module_title in places:
            if location not in top:
                misses.append(f"{title} ({module_title}): {location} is not among the first {len(places)} results {sorted(top)}")
    total = len(definitions) + sum(len(p) for p in shared.values())
    precision = (total - len(misses)) / total
    print(f"\nsearch precision at 1 over {len(definitions)} rule names ({total} queries, {len(shared)} shared names): {precision:.3f}")
    assert misses == []


def test_units_and_weapon_lists_have_their_own_search_entries(built_site: Path) -> None:
    import json

    locations = {d["location"] for d in json.loads((built_site / "search/search_index.json").read_text())["docs"]}
    loaded = load_project(REPO)
    assert loaded.project is not None
    for entry in loaded.project.lists:
        scope = loaded.project.list_scope(entry)
        for unit in scope.units.values():
            anchor = unit.anchor or slugify(unit.name)
            assert any(loc.startswith(f"{entry.page}.html#{anchor}") for loc in locations), f"{entry.page}: {unit.name}"
        for weapon_list in {id(w): w for w in scope.weapon_lists.values()}.values():
            assert any(loc.startswith(f"{entry.page}.html#") and slugify(weapon_list.name) in loc for loc in locations), (
                f"{entry.page}: {weapon_list.name}"
            )


def test_cadence_search_answers_from_a_terminal(built_site: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "search", "--site-dir", str(built_site), "Rapid", "Fire"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == "1. Rapid Fire (X)  (core-rules/special-rules-appendix.html#rapid-fire)"
