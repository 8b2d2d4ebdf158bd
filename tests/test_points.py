"""The cost functions, by property: what must hold for any costs, not only Cadence's."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from generator.model import (
    Composition,
    CostRules,
    Model,
    Range,
    Surcharge,
    Swap,
    Unit,
    UnitUpgrades,
    UnitWeapons,
    Upgrade,
    Weapon,
    WeaponList,
    WeaponOption,
)
from generator.points import CostRange, build_model, cost, model_count, surcharge, unit_cost, upgrade_cost

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


@given(upgrades(), weapons, rules, costs)
def test_a_weapon_adds_its_own_cost_when_weapons_are_not_upgrades(
    ups: list[Upgrade], arms: list[Weapon], cost_rules: CostRules, extra: int
) -> None:
    """Without `weapons_count_as_upgrades` a further weapon changes nothing but the sum."""
    plain = CostRules(surcharges=cost_rules.surcharges)
    before = build_model(BASE, ups, arms, plain)
    after = build_model(BASE, ups, [*arms, Weapon(name="Extra", points=extra, profile={})], plain)
    assert after.points - before.points == extra
    assert after.upgrade_count == before.upgrade_count == len(ups)


@given(weapons, rules)
def test_a_bare_model_costs_its_base_and_weapons(arms: list[Weapon], cost_rules: CostRules) -> None:
    """No upgrades and no surcharge that applies: the base's 15 points and the weapons' costs."""
    built = build_model(BASE, [], arms, None)
    assert built.points == 15 + sum(w.points or 0 for w in arms)
    assert built.upgrade_count == 0
    assert built.profile == BASE.profile
    counted = build_model(BASE, [], arms, CostRules(weapons_count_as_upgrades=True))
    assert counted.upgrade_count == len(arms)


def test_a_base_without_a_cost_costs_nothing() -> None:
    unpriced = Model(name="Base", profile={})
    assert build_model(unpriced, [Upgrade(name="U", effect="-", points=3)], [], None).points == 3


def test_squadrons_surcharges_and_multiplied_costs() -> None:
    """Squadrons' rules: '*' upgrades cost their figure once per other upgrade, weapons count as
    upgrades, and five upgrades add 10, seven add 15 (the larger only)."""
    squadrons = CostRules(
        surcharges=(Surcharge(min_upgrades=5, points=10), Surcharge(min_upgrades=7, points=15)), weapons_count_as_upgrades=True
    )
    command = Upgrade(name="Command 1", effect="-", points=2, cost_per_other_upgrade=True)
    plain = [Upgrade(name=f"U{i}", effect="-", points=1) for i in range(6)]
    gun = Weapon(name="Gun", points=4, profile={})
    # 15 base + 2 x 3 others (two upgrades and the gun) + 2 + 4, four upgrades in all: no surcharge
    assert build_model(BASE, [command, *plain[:2]], [gun], squadrons).points == 15 + 6 + 2 + 4
    # five in all: 15 + 2 x 4 + 3 + 4 + 10
    assert build_model(BASE, [command, *plain[:3]], [gun], squadrons).points == 15 + 8 + 3 + 4 + 10
    # seven in all: 15 + 2 x 6 + 5 + 4 + 15, not 10 + 15
    assert build_model(BASE, [command, *plain[:5]], [gun], squadrons).points == 15 + 12 + 5 + 4 + 15
    # the same seven without weapons counting: six upgrades, so 15 + 2 x 5 + 5 + 4 + 10
    alone = CostRules(surcharges=squadrons.surcharges)
    assert build_model(BASE, [command, *plain[:5]], [gun], alone).points == 15 + 10 + 5 + 4 + 10


@given(upgrades(), weapons, rules, costs)
def test_another_upgrade_never_makes_a_model_cheaper(ups: list[Upgrade], arms: list[Weapon], cost_rules: CostRules, extra: int) -> None:
    before = build_model(BASE, ups, arms, cost_rules).points
    after = build_model(BASE, [*ups, Upgrade(name="Extra", effect="-", points=extra)], arms, cost_rules).points
    assert after >= before


@given(costs, st.integers(1, 12))
def test_multiplied_cost_counts_the_other_upgrades(points: int, count: int) -> None:
    upgrade = Upgrade(name="Command 1", effect="-", points=points, cost_per_other_upgrade=True)
    assert upgrade_cost(upgrade, count) == points * (count - 1)
    assert upgrade_cost(upgrade, 0) == 0, "no upgrades at all never makes a negative cost"
    assert upgrade_cost(Upgrade(name="Plain", effect="-", points=points), count) == points


@given(upgrades(), rules)
def test_later_upgrades_set_the_final_values(ups: list[Upgrade], cost_rules: CostRules) -> None:
    built = build_model(BASE, ups, [], cost_rules)
    for key in ("mov", "skl"):
        setters = [u for u in ups if key in u.sets]
        assert built.profile[key] == (setters[-1].sets[key] if setters else BASE.profile[key])
    for upgrade in ups:
        assert set(upgrade.grants) <= set(built.rules)


@given(st.lists(st.tuples(st.integers(1, 10), costs), min_size=1, max_size=4), st.integers(0, 12))
def test_surcharge_laws(pairs: list[tuple[int, int]], count: int) -> None:
    """Never less for more upgrades; nothing below the lowest threshold; the dearest at or above them all."""
    cost_rules = CostRules(surcharges=tuple(Surcharge(min_upgrades=n, points=p) for n, p in pairs))
    assert surcharge(cost_rules, count) <= surcharge(cost_rules, count + 1)
    assert surcharge(cost_rules, min(n for n, _ in pairs) - 1) == 0
    assert surcharge(cost_rules, max(n for n, _ in pairs)) == max(p for _, p in pairs)
    assert surcharge(cost_rules, count) in {0, *(p for _, p in pairs)}
    assert surcharge(None, count) == 0


def test_surcharge_starts_at_its_threshold() -> None:
    cost_rules = CostRules(surcharges=(Surcharge(min_upgrades=5, points=10), Surcharge(min_upgrades=7, points=15)))
    assert [surcharge(cost_rules, n) for n in range(4, 9)] == [0, 10, 10, 15, 15]


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
def test_unit_cost_laws(case: tuple[Unit, dict[str, WeaponList], dict[str, Upgrade]]) -> None:
    """Cheapest never above dearest; a larger squad never costs less; an upgrade option adds only to the dearest form."""
    unit, lists, extras = case
    span = unit_cost(unit, weapon_list=lists.get, weapon=lambda n: None, upgrade=extras.get)
    assert span is not None
    assert 0 <= span.low <= span.high
    assert unit.composition is not None and unit.composition.models is not None
    size = unit.composition.models
    bigger = replace(unit, composition=Composition(models=Range(min=size.min, max=(size.max or 1) + 1)))
    grown = unit_cost(bigger, weapon_list=lists.get, weapon=lambda n: None, upgrade=extras.get)
    assert grown is not None and grown.low == span.low and grown.high >= span.high
    no_options = replace(unit, upgrades=UnitUpgrades())
    bare = unit_cost(no_options, weapon_list=lists.get, weapon=lambda n: None, upgrade=extras.get)
    assert bare is not None and bare.low == span.low
    assert span.high - bare.high == (size.max or 1) * sum(u.points or 0 for u in extras.values())


ARMOURY = {
    "Pistol": Weapon(name="Pistol", points=0),
    "Needler": Weapon(name="Needler", points=1),
    "Grenade": Weapon(name="Grenade", points=0),
    "Fuel Rod Gun": Weapon(name="Fuel Rod Gun", points=7),
    "Knife": Weapon(name="Knife"),
}
HEAVY = WeaponList(name="Heavy", weapons=(Weapon(name="Cannon", points=5), Weapon(name="Mortar", points=3)))


def squad(*swaps: Swap, low: int = 3, high: int | None = 5, fixed: tuple[str, ...] = ("Pistol", "Grenade")) -> Unit:
    """A squad of 7-point models with fixed weapons and the given swaps (Halo: Breakpoint's Grunts)."""
    return Unit(
        name="Grunts",
        models=(Model(name="Grunt", profile={}, points=7),),
        composition=Composition(models=Range(min=low, max=high)),
        weapons=UnitWeapons(fixed=fixed, swaps=swaps),
    )


LISTS = {"Heavy": HEAVY, "Empty": WeaponList(name="Empty", weapons=())}


def priced(unit: Unit) -> str:
    return str(unit_cost(unit, weapon_list=LISTS.get, weapon=ARMOURY.get, upgrade=lambda n: None))


def test_a_swap_any_model_may_make_is_paid_on_every_model() -> None:
    """3-5 Grunts at 7, any may trade the Pistol (0) for a Needler (1): 21 to 35 + 5."""
    assert priced(squad()) == "21–35"
    assert priced(squad(Swap(replace="Pistol", with_=("Needler",), models="any"))) == "21–40"
    assert priced(squad(Swap(replace="Pistol", with_=("Needler",), models="all"))) == "21–40"
    # one Grunt may take a Fuel Rod Gun (7) instead: paid once
    assert priced(squad(Swap(replace="Pistol", with_=("Fuel Rod Gun",), models="one"))) == "21–42"
    # two may: paid twice
    assert priced(squad(Swap(replace="Pistol", with_=("Fuel Rod Gun",), models=2))) == "21–49"


def test_a_swap_to_something_cheaper_saves_once() -> None:
    """Trading a Fuel Rod Gun (7) for a Needler (1) saves 6 on the cheapest form, never on the dearest."""
    unit = squad(Swap(replace="Fuel Rod Gun", with_=("Needler",)), fixed=("Fuel Rod Gun",))
    assert priced(unit) == f"{3 * 14 - 6}–{5 * 14}"


def test_a_swap_from_a_list_or_of_several_weapons() -> None:
    """A swap may take any weapon of a list (Cannon 5, Mortar 3), named by `lists` or in `with`;
    giving up two weapons gives up both their costs; unknown names count for nothing."""
    by_lists = squad(Swap(replace="Pistol", lists=("Heavy",)), low=1, high=1)
    by_with = squad(Swap(replace="Pistol", with_=("Heavy", "Nothing")), low=1, high=1)
    assert priced(by_lists) == priced(by_with) == "7–12"
    both = squad(Swap(replace=("Pistol", "Fuel Rod Gun"), with_=("Needler",)), low=1, high=1, fixed=("Fuel Rod Gun",))
    assert priced(both) == "8–14"  # 7 + 7, or 7 + 7 - 7 + 1 for the one model that swaps
    gives_a_list = squad(Swap(replace="Heavy", with_=("Fuel Rod Gun",)), low=1, high=1)
    assert priced(gives_a_list) == "7–11"  # the list counts as its cheapest weapon, the Mortar (3): 7 - 3 = 4 more
    assert priced(squad(Swap(replace="Pistol", with_=("Nothing",)), low=1, high=1)) == "7"
    assert priced(squad(Swap(replace="Pistol", with_=("Knife",)), low=1, high=1)) == "7"  # a weapon without a cost is free
    assert priced(squad(Swap(replace="Empty", with_=("Needler",)), low=1, high=1)) == "7–8"  # an empty list gives up nothing


def test_the_size_of_a_unit() -> None:
    """No composition is one model; a minimum alone is also the maximum; a maximum alone starts at one."""
    lone = Unit(name="Hero", models=(Model(name="Hero", profile={}, points=30),))
    assert model_count(lone) == (1, 1)
    assert model_count(squad(low=4, high=None)) == (4, 4)
    assert model_count(replace(lone, composition=Composition(models=Range(max=3)))) == (1, 3)
    assert model_count(replace(lone, composition=Composition(text="Any"))) == (1, 1)
    assert unit_cost(replace(lone, models=(Model(name="Hero", profile={}),)), dict.get, dict.get, dict.get) is None  # type: ignore[arg-type]


def test_weapon_options_and_fixed_upgrades() -> None:
    """One model: 7, a Pistol-or-Needler choice of one or two, and a fixed upgrade of 2 on every model."""
    option = WeaponOption(weapons=("Pistol", "Needler", "Nothing"), lists=("Heavy", "Gone"), min=1, max=2)
    unit = Unit(
        name="Grunts",
        models=(Model(name="Grunt", profile={}, points=7), Model(name="Ultra", profile={}, points=12)),
        composition=Composition(models=Range(min=2, max=3)),
        weapons=UnitWeapons(fixed=("Needler", "Nothing"), options=(option, WeaponOption(weapons=("Nothing",), min=1, max=1))),
        upgrades=UnitUpgrades(fixed=("Shield", "Nothing"), options=("Banner",)),
    )
    upgrades = {"Shield": Upgrade(name="Shield", effect="-", points=2), "Banner": Upgrade(name="Banner", effect="-", points="-")}
    span = unit_cost(unit, weapon_list={"Heavy": HEAVY}.get, weapon=ARMOURY.get, upgrade=upgrades.get)
    # cheapest: 2 x (7 + Needler 1 + one Pistol 0 + Shield 2) = 20; dearest: 3 x (12 + 1 + two Cannons 10 + 2) = 75
    assert str(span) == "20–75"


def test_a_printed_cost_that_is_not_a_number_counts_as_nothing() -> None:
    assert [cost(5), cost("-"), cost(None), cost(True), cost(0)] == [5, 0, 0, 0, 0]


@given(costs, costs, costs, costs)
def test_cost_ranges_add_and_print(a: int, b: int, c: int, d: int) -> None:
    first, second = CostRange(min(a, b), max(a, b)), CostRange(min(c, d), max(c, d))
    total = first + second
    assert (total.low, total.high) == (first.low + second.low, first.high + second.high)
    assert str(CostRange(a, a)) == str(a)
    if a != b:
        assert str(CostRange(min(a, b), max(a, b))) == f"{min(a, b)}–{max(a, b)}"
