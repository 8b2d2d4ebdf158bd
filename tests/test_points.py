"""The cost functions, by property: what must hold for any costs, not only Cadence's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.model import (
    Composition,
    CostRules,
    Model,
    Range,
    Surcharge,
    Unit,
    UnitUpgrades,
    UnitWeapons,
    Upgrade,
    Weapon,
    WeaponList,
    WeaponOption,
)
from generator.points import CostRange, build_model, surcharge, unit_cost, upgrade_cost

costs = st.integers(min_value=0, max_value=200)
BASE = Model(name="Base", profile={"mov": '6"', "skl": "4+"}, points=15)


@st.composite
def upgrades(draw: st.DrawFn) -> list[Upgrade]:
    count = draw(st.integers(0, 9))
    return [
        Upgrade(
            name=f"U{i}",
            effect="-",
            points=draw(costs),
            cost_per_other_upgrade=draw(st.booleans()),
            sets=draw(st.sampled_from([{}, {"mov": '7"'}, {"skl": "3+"}])),
            grants=draw(st.sampled_from([(), ("Agile",), ("Shields",)])),
        )
        for i in range(count)
    ]


weapons = st.lists(st.builds(lambda p: Weapon(name="W", points=p, profile={}), costs), max_size=4)
rules = st.builds(
    lambda pairs, count_weapons: CostRules(
        surcharges=tuple(Surcharge(min_upgrades=n, points=p) for n, p in pairs), weapons_count_as_upgrades=count_weapons
    ),
    st.lists(st.tuples(st.integers(1, 10), costs), max_size=3),
    st.booleans(),
)


@given(upgrades(), weapons, rules)
def test_built_points_are_the_sum_of_their_parts(ups: list[Upgrade], arms: list[Weapon], cost_rules: CostRules) -> None:
    built = build_model(BASE, ups, arms, cost_rules)
    count = len(ups) + (len(arms) if cost_rules.weapons_count_as_upgrades else 0)
    expected = 15 + sum(upgrade_cost(u, count) for u in ups) + sum(w.points or 0 for w in arms) + surcharge(cost_rules, count)
    assert built.points == expected
    assert built.upgrade_count == count


@given(upgrades(), weapons, rules, costs)
def test_another_upgrade_never_makes_a_model_cheaper(ups: list[Upgrade], arms: list[Weapon], cost_rules: CostRules, extra: int) -> None:
    before = build_model(BASE, ups, arms, cost_rules).points
    after = build_model(BASE, [*ups, Upgrade(name="Extra", effect="-", points=extra)], arms, cost_rules).points
    assert after >= before


@given(costs, st.integers(1, 12))
def test_multiplied_cost_counts_the_other_upgrades(points: int, count: int) -> None:
    upgrade = Upgrade(name="Command 1", effect="-", points=points, cost_per_other_upgrade=True)
    assert upgrade_cost(upgrade, count) == points * (count - 1)


@given(upgrades(), rules)
def test_later_upgrades_set_the_final_values(ups: list[Upgrade], cost_rules: CostRules) -> None:
    built = build_model(BASE, ups, [], cost_rules)
    for key in ("mov", "skl"):
        setters = [u for u in ups if key in u.sets]
        assert built.profile[key] == (setters[-1].sets[key] if setters else BASE.profile[key])
    for upgrade in ups:
        assert set(upgrade.grants) <= set(built.rules)


@given(st.lists(st.tuples(st.integers(1, 10), costs), min_size=1, max_size=4), st.integers(0, 12))
def test_surcharge_is_the_largest_that_applies(pairs: list[tuple[int, int]], count: int) -> None:
    cost_rules = CostRules(surcharges=tuple(Surcharge(min_upgrades=n, points=p) for n, p in pairs))
    applicable = [p for n, p in pairs if count >= n]
    assert surcharge(cost_rules, count) == (max(applicable) if applicable else 0)


@st.composite
def units(draw: st.DrawFn) -> tuple[Unit, dict[str, WeaponList], dict[str, Upgrade]]:
    low = draw(st.integers(1, 5))
    high = draw(st.integers(low, 10))
    models = tuple(Model(name=f"M{i}", profile={}, points=draw(costs)) for i in range(draw(st.integers(1, 3))))
    arms = WeaponList(name="Arms", weapons=tuple(Weapon(name=f"W{i}", points=draw(costs)) for i in range(draw(st.integers(1, 4)))))
    option_low = draw(st.integers(0, 2))
    extras = {f"U{i}": Upgrade(name=f"U{i}", effect="-", points=draw(costs)) for i in range(draw(st.integers(0, 3)))}
    unit = Unit(
        name="Squad",
        models=models,
        composition=Composition(models=Range(min=low, max=high)),
        weapons=UnitWeapons(options=(WeaponOption(lists=("Arms",), min=option_low, max=draw(st.integers(option_low, 3))),)),
        upgrades=UnitUpgrades(options=tuple(extras)),
    )
    return unit, {"Arms": arms}, extras


@given(units())
def test_unit_cost_range_brackets_every_legal_form(case: tuple[Unit, dict[str, WeaponList], dict[str, Upgrade]]) -> None:
    unit, lists, extras = case
    span = unit_cost(unit, weapon_list=lists.get, weapon=lambda n: None, upgrade=extras.get)
    assert span is not None
    assert 0 <= span.low <= span.high
    # the cheapest legal form: fewest models of the cheapest kind, fewest and cheapest weapons, no upgrades
    composition = unit.composition
    assert composition is not None and composition.models is not None and unit.weapons is not None
    option = unit.weapons.options[0]
    cheapest_model = min(m.points or 0 for m in unit.models)
    cheapest_weapon = min(w.points or 0 for w in lists["Arms"].weapons)
    assert span.low == (composition.models.min or 1) * (cheapest_model + option.min * cheapest_weapon)
    dearest_model = max(m.points or 0 for m in unit.models)
    dearest_weapon = max(w.points or 0 for w in lists["Arms"].weapons)
    every_upgrade = sum(u.points or 0 for u in extras.values())
    high = composition.models.max or 1
    assert span.high == high * (dearest_model + option.max * dearest_weapon) + high * every_upgrade


@given(costs, costs, costs, costs)
def test_cost_ranges_add_and_print(a: int, b: int, c: int, d: int) -> None:
    first, second = CostRange(min(a, b), max(a, b)), CostRange(min(c, d), max(c, d))
    total = first + second
    assert (total.low, total.high) == (first.low + second.low, first.high + second.high)
    assert str(CostRange(a, a)) == str(a)
    if a != b:
        assert str(CostRange(min(a, b), max(a, b))) == f"{min(a, b)}–{max(a, b)}"
