"""What a designer of a third game needs: rule order, rule-kind labels, cost wording, weapon-list
libraries, and the design checks, each shown on a copy of the fixture project."""

from __future__ import annotations

import re
from pathlib import Path

from generator.pages import Loaded, generate, load_project

from .conftest import REPO


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _clean(project: Path) -> Loaded:
    loaded = load_project(project)
    assert [str(p) for p in loaded.problems] == []
    assert loaded.project is not None
    return loaded


def _page(project: Path, page: str) -> str:
    loaded = _clean(project)
    assert loaded.project is not None
    generated = generate(loaded.project, loaded.content, resolved=loaded.resolved)
    if page in generated.pages:
        return generated.pages[page]
    return generated.expand(page, loaded.content[page])


def _headings(markdown: str) -> list[str]:
    return re.findall(r"^#{2,6} (.+?) \{ #", markdown, flags=re.M)


def test_rules_are_sorted_by_name_unless_source_order_is_asked_for(mini_copy: Path) -> None:
    page = mini_copy / "content" / "core" / "rules.md"
    assert _headings(_page(mini_copy, "core/rules"))[:2] == ["Flying", "Heavy Armour (X)"]
    _edit(page, "[% special-rules core kind=unit %]", "[% special-rules core kind=unit order=source %]")
    assert _headings(_page(mini_copy, "core/rules"))[:2] == ["Heavy Armour (X)", "Flying"]
    # the module can ask for it for every directive that shows its rules
    _edit(page, "order=source", "")
    _edit(mini_copy / "data" / "core" / "module.yaml", "  pages: [core/rules]", "  pages: [core/rules]\n  rule_order: source")
    assert _headings(_page(mini_copy, "core/rules"))[:2] == ["Heavy Armour (X)", "Flying"]


def test_a_wrong_directive_option_is_a_located_problem(mini_copy: Path) -> None:
    _edit(mini_copy / "content" / "core" / "rules.md", "kind=unit %]", "kind=unit order=alphabetical %]")
    lines = [str(p) for p in load_project(mini_copy).problems]
    assert lines == ["content/core/rules.md:9:1: error[directive]: special-rules order must be one of name, source, not 'alphabetical'"]


def test_rules_index_shows_rule_kind_labels_from_the_system(mini_copy: Path) -> None:
    assert "| unit |" in _page(mini_copy, "rules-index")
    _edit(mini_copy / "data" / "system.yaml", "  landing_pages:", "  rule_kind_labels: {unit: Unit Rule}\n  landing_pages:")
    index = _page(mini_copy, "rules-index")
    assert "| Unit Rule |" in index and "| unit |" not in index
    assert "| weapon |" in index  # a kind without a label is shown as written


def test_no_cost_wording_in_a_game_without_costs(mini_copy: Path) -> None:
    assert "| Costs in | points |" in _page(mini_copy, "skirmish/index")
    rangers = mini_copy / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    rangers.write_text(re.sub(r", points: \d+", "", rangers.read_text(encoding="utf-8")), encoding="utf-8")
    _edit(mini_copy / "data" / "skirmish" / "module.yaml", "    budget: 200\n", "")
    assert "Costs in" not in _page(mini_copy, "skirmish/index")


def test_a_modules_index_shows_its_army_limits_and_reinforcements(mini_copy: Path) -> None:
    """What a player needs before choosing units is on the game's front page: every limit and the reinforcements."""
    index = _page(mini_copy, "skirmish/index")
    assert "| Budget | 200 points |" in index and "Most units" not in index and "Reserves" not in index
    limits = "    budget: 200\n    max_units: 8\n    per_item_budget: 60\n    pooled_budget_per_item: 15\n    typical_size: 3-6\n"
    reserves = "    reinforcements: {name: Reserves, points: 50, from_round: 2, text: 'They march in late, see [[Flying]].'}\n"
    _edit(mini_copy / "data" / "skirmish" / "module.yaml", "    budget: 200\n", limits + reserves)
    index = _page(mini_copy, "skirmish/index")
    rows = ["| Budget | 200 points |", "| Most units | 8 |", "| Most per unit | 60 points |", "| Shared per unit | 15 points |"]
    assert all(row in index for row in [*rows, "| Usual number of units | 3-6 |"]), index
    assert "**Reserves:** up to 50 points, from round 2." in index
    assert "They march in late, see [Flying](../core/rules.md#flying " in index  # its [[link]] read in the module's scope


def test_a_weapon_list_library_is_not_reported_unused(mini_copy: Path) -> None:
    rangers = mini_copy / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    library = '        - weapon_list:\n            name: Spare Arms\n            weapons:\n              - {name: Sling, profile: {rng: 8", att: 1}, points: 1}\n'
    _edit(
        rangers,
        "        - weapon_list:\n            name: Other Weapons\n",
        library + "        - weapon_list:\n            name: Other Weapons\n",
    )
    assert [p.message for p in load_project(mini_copy).problems] == ["weapon list 'Spare Arms' is not offered to any unit"]
    _edit(rangers, "            name: Spare Arms\n", "            name: Spare Arms\n            library: true\n")
    _clean(mini_copy)


def test_an_unstated_value_explained_by_an_erratum_passes(mini_copy: Path) -> None:
    """`Rapid Fire (?)`: the source printed no value; with an erratum saying so, the data checks clean."""
    _edit(mini_copy / "data" / "skirmish" / "army-lists" / "rangers.yaml", "rules: [Rapid Fire (1)]", "rules: [Rapid Fire (?)]")
    assert {p.code for p in load_project(mini_copy).problems} == {"unstated-value"}
    module = mini_copy / "data" / "skirmish" / "module.yaml"
    erratum = (
        "  errata:\n    - page: skirmish/army-lists/rangers\n      published: 'Carbine: Rapid Fire'\n"
        "      corrected: 'Carbine: Rapid Fire (?)'\n      why: The value is not printed.\n"
    )
    _edit(module, "  errata:\n", erratum)
    page = _page(mini_copy, "skirmish/army-lists/rangers")
    assert "Rapid Fire (?)" in page


def test_the_shipped_games_are_clean_and_use_the_new_checks_on_their_errata() -> None:
    loaded = load_project(REPO)
    assert loaded.problems == []
    assert loaded.project is not None
    caught = {e.caught_by for m in loaded.project.modules.values() for e in m.errata}
    assert {"duplicate-name", "missing-points", "empty-section"} <= caught


def test_every_design_check_code_has_a_planted_case() -> None:
    """Each code generator/checks/design.py reports is planted in tests/checks/cases.yaml."""
    import yaml

    from generator.checks.design import CODES

    cases = yaml.safe_load((REPO / "tests" / "checks" / "cases.yaml").read_text(encoding="utf-8"))
    assert set(CODES) - {c["code"] for c in cases} == set()
