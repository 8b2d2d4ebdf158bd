"""Costs and budgets on real data: figures the sources print, and planted budget mistakes.

Every expected figure here is read off the sources (a squad's size, a model's and a weapon's printed
points), never worked out by a copy of the cost functions; every planted mistake names the exact
`path:line:col` line the checker must print.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalogue import walk_sections
from generator.pages import load_project

from .conftest import MINI, REPO, copy_project

RANGERS = "data/skirmish/army-lists/rangers.yaml"
SKIRMISH = "data/skirmish/module.yaml"
SKIRMISH_TEXT = (MINI / SKIRMISH).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def shipped() -> object:
    loaded = load_project(REPO)
    assert loaded.project is not None
    return loaded.project


def unit_cost_text(project: object, list_key: str, unit_name: str) -> str:
    entry = next(e for e in project.lists if e.key == list_key)  # type: ignore[attr-defined]
    unit = next(s.unit for s in walk_sections(entry.army_list.sections) if s.unit is not None and s.unit.name == unit_name)
    return str(project.unit_cost(unit, project.list_scope(entry)))  # type: ignore[attr-defined]


# Halo: Breakpoint, Covenant list: "3-5 Grunt Infantry Minors" at 7 points, each with a Plasma
# Pistol (0) and Plasma Grenades (0); "any Grunt may replace their Plasma Pistol with a Needler" (1).
# Cheapest: 3 x 7 = 21. Dearest: 5 x 7, and all five take the Needler: 35 + 5 = 40.
@pytest.mark.parametrize(
    ("list_key", "unit", "printed"),
    [("halo-breakpoint/covenant-army-list", "Grunt Infantry", "21–40")],
)
def test_shipped_unit_costs_follow_the_sources(shipped: object, list_key: str, unit: str, printed: str) -> None:
    assert unit_cost_text(shipped, list_key, unit) == printed


def test_shipped_built_models_cost_what_the_sources_print(shipped: object) -> None:
    """Squadrons prices a ship by its upgrades, '*' costs that grow with the other upgrades and
    weapons, and surcharges from five and seven upgrades: each printed figure must come out."""
    priced = {}
    for entry in shipped.lists:  # type: ignore[attr-defined]
        for section in walk_sections(entry.army_list.sections):
            model = section.built_model
            if model is not None and model.printed is not None and model.printed.points is not None:
                built = shipped.build(model, shipped.list_scope(entry))  # type: ignore[attr-defined]
                assert built is not None, model.name
                priced[model.name] = (built.points, model.printed.points)
    assert len(priced) >= 10
    assert priced["Colonial Mk II Viper"] == (48, 48)
    assert {name: built for name, (built, printed) in priced.items() if built != printed} == {}


def problems_after(tmp_path: Path, *edits: tuple[str, str, str]) -> list[str]:
    """The budget and points lines the checker prints for the fixture project with `edits` made."""
    project = copy_project(MINI, tmp_path / "mini")
    for file, find, replace in edits:
        text = (project / file).read_text(encoding="utf-8")
        assert text.count(find) == 1, f"{find!r} must occur once in {file}"
        (project / file).write_text(text.replace(find, replace), encoding="utf-8")
    codes = ("[budget]", "[category-share]", "[points]", "[profile]", "[rules]")
    return [str(p) for p in load_project(project).problems if any(code in str(p) for code in codes)]


def sky_rider_costs(points: int) -> tuple[str, str, str]:
    return (RANGERS, "Stubborn], points: 45}", f"Stubborn], points: {points}}}")


def test_the_fixture_has_no_budget_problems(tmp_path: Path) -> None:
    assert problems_after(tmp_path) == []


def test_a_unit_dearer_than_the_whole_budget(tmp_path: Path) -> None:
    assert "error[budget]" not in " ".join(problems_after(tmp_path / "at", sky_rider_costs(200)))
    assert problems_after(tmp_path / "over", sky_rider_costs(201))[0] == (
        f"{RANGERS}:31:13: error[budget]: unit 'Sky Rider' costs at least 201 points, more than the whole budget of 200"
    )


def test_a_model_dearer_than_one_item_may_cost(tmp_path: Path) -> None:
    cap = "budget: 200\n"
    assert problems_after(tmp_path / "at", (SKIRMISH, cap, cap + "    per_item_budget: 45\n")) == []
    assert problems_after(tmp_path / "over", (SKIRMISH, cap, cap + "    per_item_budget: 44\n")) == [
        f"{RANGERS}:34:107: error[budget]: model 'Sky Rider' costs 45 points, more than the 44 points one may cost"
    ]


def test_weapons_dearer_than_the_spending_cap(tmp_path: Path) -> None:
    """The Ranger Squad's cheapest sidearm, the Pistol, costs 2: a cap of 2 fits, a cap of 1 does not."""
    weapons = "            weapons:\n              text: Each Ranger"
    assert problems_after(tmp_path / "at", (RANGERS, weapons, "            spending_cap: 2\n" + weapons)) == []
    assert problems_after(tmp_path / "over", (RANGERS, weapons, "            spending_cap: 1\n" + weapons)) == [
        f"{RANGERS}:21:27: error[budget]: unit 'Ranger Squad': its cheapest weapons cost 2 points, more than its spending cap of 1"
    ]


def test_fixed_weapons_dearer_than_the_spending_cap(tmp_path: Path) -> None:
    """The Sky Rider always carries its Lance, here made to cost 3; a unit without weapons has no cheapest weapons."""
    lance = (RANGERS, "rules: [Assault], points: 0}", "rules: [Assault], points: 3}")
    rider = "              per_unit: {unit: Ranger Squad, max: 1}\n"
    assert problems_after(tmp_path / "at", lance, (RANGERS, rider, rider + "            spending_cap: 3\n")) == []
    assert problems_after(tmp_path / "over", lance, (RANGERS, rider, rider + "            spending_cap: 2\n")) == [
        f"{RANGERS}:39:27: error[budget]: unit 'Sky Rider': its cheapest weapons cost 3 points, more than its spending cap of 2"
    ]
    unarmed = (RANGERS, "            weapons:\n              fixed: [Lance]\n", "")
    assert problems_after(tmp_path / "unarmed", unarmed, (RANGERS, rider, rider + "            spending_cap: 0\n")) == []


def test_a_category_over_its_share_of_the_largest_game(tmp_path: Path) -> None:
    """Elite may use 50% of the largest game; '150-250' is a range whose largest figure counts."""
    sizes = (
        SKIRMISH,
        "game_sizes: [{name: Standard, points: 200}]",
        "game_sizes: [{name: Small, points: 150-250}, {name: Tiny, points: 100}]",
    )
    assert problems_after(tmp_path / "at", sizes, sky_rider_costs(125)) == []
    assert problems_after(tmp_path / "over", sizes, sky_rider_costs(126)) == [
        f"{RANGERS}:31:13: warning[category-share]: unit 'Sky Rider' costs at least 126 points; "
        "Elite may use at most 50% of the largest game (250), 125 points"
    ]


def test_a_share_rounds_down_to_whole_points(tmp_path: Path) -> None:
    """A third of 200 is 66 whole points: 66 fits, 67 does not."""
    share = (SKIRMISH, "name: Elite, max_share: 50", "name: Elite, max_share: 33")
    assert problems_after(tmp_path / "at", share, sky_rider_costs(66)) == []
    assert problems_after(tmp_path / "over", share, sky_rider_costs(67)) == [
        f"{RANGERS}:31:13: warning[category-share]: unit 'Sky Rider' costs at least 67 points; "
        "Elite may use at most 33% of the largest game (200), 66 points"
    ]


def test_a_category_without_a_share_or_a_game_size_is_not_warned(tmp_path: Path) -> None:
    no_sizes = (SKIRMISH, "    game_sizes: [{name: Standard, points: 200}]\n", "")
    assert problems_after(tmp_path / "sizes", no_sizes, sky_rider_costs(150)) == []
    no_share = (SKIRMISH, "name: Elite, max_share: 50", "name: Elite")
    assert problems_after(tmp_path / "share", no_share, sky_rider_costs(150)) == []


RANGER_SIZE = "models: {min: 3, max: 5}\n"


def test_the_units_every_army_needs_must_fit_the_budget(tmp_path: Path) -> None:
    """A Ranger Squad costs at least 36 (three Rangers at 10, each with a Pistol at 2)."""
    five = (RANGERS, RANGER_SIZE, RANGER_SIZE + "              per_army: {min: 5}\n")
    six = (RANGERS, RANGER_SIZE, RANGER_SIZE + "              per_army: {min: 6}\n")
    assert problems_after(tmp_path / "five", five) == []
    assert problems_after(tmp_path / "exact", six, (SKIRMISH, "budget: 200", "budget: 216")) == []
    assert problems_after(tmp_path / "six", six) == [
        f"{RANGERS}:2:3: error[budget]: the units every army of 'Rangers' must include cost at least 216 points "
        "(6 × Ranger Squad (36)), more than the budget of 200"
    ]


def test_every_required_unit_counts_towards_the_least_army(tmp_path: Path) -> None:
    ranger = (RANGERS, RANGER_SIZE, RANGER_SIZE + "              per_army: {min: 1}\n")
    riders = (RANGERS, "models: {min: 1, max: 1}\n", "models: {min: 1, max: 1}\n              per_army: {min: 4}\n")
    only_max = (RANGERS, RANGER_SIZE, RANGER_SIZE + "              per_army: {max: 9}\n")
    assert problems_after(tmp_path / "both", ranger, riders) == [
        f"{RANGERS}:2:3: error[budget]: the units every army of 'Rangers' must include cost at least 216 points "
        "(1 × Ranger Squad (36), 4 × Sky Rider (45)), more than the budget of 200"
    ]
    assert problems_after(tmp_path / "most", only_max, riders) == []  # 4 x 45 = 180: a maximum alone requires nothing


BUILT = (
    "    - built_model:\n        name: Cloaked Ranger\n        base: Ranger\n        upgrades: [Camo Cloak]\n"
    '        weapons: [Carbine]\n        printed: {{points: {points}, profile: {{mov: 6", skl: {skl}, hp: 1}}, rules: [{rules}]}}\n'
)


def built_model(points: int, skl: str, rules: str) -> tuple[str, str, str]:
    heading = "    - heading: Special Rules\n"
    return (RANGERS, heading, BUILT.format(points=points, skl=skl, rules=rules) + heading)


def test_a_built_model_printed_as_its_setup_gives(tmp_path: Path) -> None:
    """A Ranger (10) with a Camo Cloak (3) and a Carbine (5) costs 18, keeps Skl 4+ and gains Heavy Armour (1)."""
    assert problems_after(tmp_path, built_model(18, "4+", "Pathfinder, Heavy Armour (1)")) == []


def test_a_built_model_printed_wrongly_is_reported_where_printed(tmp_path: Path) -> None:
    assert problems_after(tmp_path, built_model(19, "3+", "Pathfinder, Flying")) == [
        f"{RANGERS}:61:18: error[rules]: 'Cloaked Ranger''s setup gives special rule 'Heavy Armour (1)', which the source does not print",
        f"{RANGERS}:61:27: error[points]: 'Cloaked Ranger' is printed at 19 points, but its setup costs 18",
        f"{RANGERS}:61:55: error[profile]: 'Cloaked Ranger' is printed with Skl 3+, but its setup gives 4+",
        f"{RANGERS}:61:87: error[rules]: 'Cloaked Ranger' is printed with special rule 'Flying', which its setup does not give",
    ]


def printed_as(printed: str) -> tuple[str, str, str]:
    heading = "    - heading: Special Rules\n"
    model = "    - built_model:\n        name: Cloaked Ranger\n        base: Ranger\n        upgrades: [Camo Cloak]\n        weapons: [Carbine]\n"
    return (RANGERS, heading, model + f"        printed: {printed}\n" + heading)


def test_special_rules_are_compared_when_the_source_prints_rules_or_a_profile(tmp_path: Path) -> None:
    """A source that prints only the points says nothing of rules; one that prints a profile and no
    rules says the model has none."""
    assert problems_after(tmp_path / "points", printed_as("{points: 18}")) == []
    assert problems_after(tmp_path / "rules", printed_as("{points: 18, rules: [Pathfinder]}")) == [
        f"{RANGERS}:61:18: error[rules]: 'Cloaked Ranger''s setup gives special rule 'Heavy Armour (1)', which the source does not print"
    ]
    assert problems_after(tmp_path / "profile", printed_as('{points: 18, profile: {mov: 6", skl: 4+, hp: 1}}')) == [
        f"{RANGERS}:61:18: error[rules]: 'Cloaked Ranger''s setup gives special rule 'Heavy Armour (1)', which the source does not print",
        f"{RANGERS}:61:18: error[rules]: 'Cloaked Ranger''s setup gives special rule 'Pathfinder', which the source does not print",
    ]


def test_a_printed_value_in_a_column_the_system_lacks_is_named_by_its_key(tmp_path: Path) -> None:
    """Its own problem (an unknown column) is reported elsewhere; the comparison still names it."""
    base = (RANGERS, '{mov: 6", skl: 4+, hp: 1}', '{mov: 6", skl: 4+, hp: 1, foo: 1}')
    printed = printed_as('{points: 18, profile: {mov: 6", skl: 4+, hp: 1, foo: 2}, rules: [Pathfinder, Heavy Armour (1)]}')
    assert problems_after(tmp_path, base, printed) == [
        f"{RANGERS}:61:71: error[profile]: 'Cloaked Ranger' is printed with foo 2, but its setup gives 1"
    ]


def test_modules_without_the_figures_a_check_needs_are_left_alone(tmp_path: Path) -> None:
    """No budget, no army-building rules, a category the module lacks, a game size without a number:
    each check that needs the missing figure says nothing (other checks report what is wrong)."""
    pricey = sky_rider_costs(500)
    assert problems_after(tmp_path / "budget", (SKIRMISH, "    budget: 200\n", ""), pricey) == [
        f"{RANGERS}:31:13: warning[category-share]: unit 'Sky Rider' costs at least 500 points; "
        "Elite may use at most 50% of the largest game (200), 100 points"
    ]
    building = SKIRMISH_TEXT[SKIRMISH_TEXT.index("  army_building:") : SKIRMISH_TEXT.index("  pages:")]
    no_rules = (SKIRMISH, building, "")
    assert problems_after(tmp_path / "rules", no_rules, pricey) == []
    assert problems_after(tmp_path / "category", (RANGERS, "category: elite", "category: heroes"), pricey) == [
        f"{RANGERS}:31:13: error[budget]: unit 'Sky Rider' costs at least 500 points, more than the whole budget of 200"
    ]
    wordy = (SKIRMISH, "game_sizes: [{name: Standard, points: 200}]", "game_sizes: [{name: Standard, points: agreed}]")
    assert problems_after(tmp_path / "sizes", wordy, sky_rider_costs(150)) == []


def test_a_built_model_on_a_base_that_does_not_exist_is_not_compared(tmp_path: Path) -> None:
    edit = printed_as("{points: 19}")
    assert problems_after(tmp_path, (edit[0], edit[1], edit[2].replace("base: Ranger", "base: Nobody"))) == []
