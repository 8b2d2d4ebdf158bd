"""Pure functions that compute costs and derived profiles.

One cost function serves the site (which prints cost ranges and built profiles) and the checker
(which compares them with what the source printed and with budgets), so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .model import CostRules, Model, ProfileValue, Swap, Unit, UnitUpgrades, UnitWeapons, Upgrade, Weapon, WeaponList


@dataclass(frozen=True)
class CostRange:
    """The cheapest and dearest legal form of something, in the module's currency.

    `high` is None when there is no dearest form: a choice of any number of weapons.
    """

    low: int
    high: int | None

    def __add__(self, other: CostRange) -> CostRange:
        return CostRange(self.low + other.low, None if self.high is None or other.high is None else self.high + other.high)

    def times(self, low: int, high: int) -> CostRange:
        return CostRange(self.low * low, None if self.high is None else self.high * high)

    def __str__(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}–{self.high}"


ZERO = CostRange(0, 0)


@dataclass(frozen=True)
class BuiltProfile:
    """A built model's computed profile, special rules and points."""

    profile: dict[str, ProfileValue]
    rules: tuple[str, ...]
    points: int
    upgrade_count: int


def cost(points: object) -> int:
    """A printed cost as a number: a missing or non-numeric cost ('-') counts as nothing."""
    return points if isinstance(points, int) and not isinstance(points, bool) else 0


def upgrade_cost(upgrade: Upgrade, upgrade_count: int) -> int:
    """An upgrade's cost on a model with `upgrade_count` upgrades in all (itself included)."""
    points = cost(upgrade.points)
    if upgrade.cost_per_other_upgrade:
        return points * max(upgrade_count - 1, 0)
    return points


def surcharge(rules: CostRules | None, upgrade_count: int) -> int:
    """The largest surcharge whose threshold the upgrade count reaches."""
    if rules is None:
        return 0
    applicable = [s.points for s in rules.surcharges if upgrade_count >= s.min_upgrades]
    return max(applicable, default=0)


def build_model(base: Model, upgrades: Iterable[Upgrade], weapons: Iterable[Weapon], rules: CostRules | None) -> BuiltProfile:
    """Apply upgrades to a base model in order: later upgrades override earlier values."""
    upgrades = list(upgrades)
    profile = dict(base.profile)
    granted = list(base.rules)
    for upgrade in upgrades:
        profile.update(upgrade.sets)
        for rule in upgrade.grants:
            if rule not in granted:
                granted.append(rule)
    weapons = list(weapons)
    count = len(upgrades) + (len(weapons) if rules is not None and rules.weapons_count_as_upgrades else 0)
    points = (base.points or 0) + sum(upgrade_cost(u, count) for u in upgrades)
    points += sum(w.points or 0 for w in weapons)
    points += surcharge(rules, count)
    return BuiltProfile(profile, tuple(granted), points, count)


def unit_cost(
    unit: Unit,
    weapon_list: Callable[[str], WeaponList | None],
    weapon: Callable[[str], Weapon | None],
    upgrade: Callable[[str], Upgrade | None],
) -> CostRange | None:
    """The cost of the cheapest and the dearest legal form of a unit.

    The cheapest takes the fewest models of the cheapest kind, the fewest and cheapest weapons and no
    upgrades; the dearest takes the most models of the dearest kind, every weapon choice at its dearest,
    the dearest swaps and every upgrade on every model. Units of several kinds of model are priced by
    the cheapest and the dearest kind.
    """
    costs = [m.points for m in unit.models if m.points is not None]
    if not costs:
        return None
    low_n, high_n = model_count(unit)
    per_model = CostRange(min(costs), max(costs))
    if unit.weapons:
        per_model = per_model + weapon_choices(unit.weapons, weapon_list, weapon)
    total = per_model.times(low_n, high_n)
    if unit.weapons:
        for swap in unit.weapons.swaps:
            total = total + swap_cost(swap, high_n, weapon_list, weapon)
    if unit.upgrades:
        total = total + upgrade_choices(unit.upgrades, low_n, high_n, upgrade)
    if unit.spending_cap_own_cost:
        # No model spends more on its gear than it costs itself.
        most = 2 * max(costs) * high_n
        total = CostRange(total.low, most if total.high is None else min(total.high, most))
    return total


def model_count(unit: Unit) -> tuple[int, int]:
    """The fewest and the most models the unit may have (one, when its size is not given)."""
    composition = unit.composition
    size = composition.models if composition and composition.models else None
    low_n = size.min if size and size.min is not None else 1
    high_n = size.max if size and size.max is not None else low_n
    return low_n, high_n


def _points(weapons: Iterable[Weapon]) -> list[int]:
    return [w.points or 0 for w in weapons]


def weapon_choices(
    weapons: UnitWeapons, weapon_list: Callable[[str], WeaponList | None], weapon: Callable[[str], Weapon | None]
) -> CostRange:
    """What one model's fixed weapons and weapon options cost, cheapest and dearest."""
    fixed = sum(_points(w for name in weapons.fixed if (w := weapon(name)) is not None))
    total = CostRange(fixed, fixed)
    for option in weapons.options:
        costs = [p for name in option.lists if (wl := weapon_list(name)) is not None for p in _points(wl.weapons)]
        costs += _points(w for name in option.weapons if (w := weapon(name)) is not None)
        if costs:
            total = total + CostRange(min(costs) * option.min, None if option.max is None else max(costs) * option.max)
    return total


def swap_cost(
    swap: Swap, high_n: int, weapon_list: Callable[[str], WeaponList | None], weapon: Callable[[str], Weapon | None]
) -> CostRange:
    """What a swap can save (once) or add (on every model that may make it)."""
    alternatives = _swap_alternatives(swap, weapon_list, weapon)
    if not alternatives:
        return ZERO
    given_cost = _swap_given(swap, weapon_list, weapon)
    swappers = 1 if swap.models == "one" else swap.models if isinstance(swap.models, int) else high_n
    return CostRange(min(0, min(alternatives) - given_cost), max(0, max(alternatives) - given_cost) * swappers)


def _swap_given(swap: Swap, weapon_list: Callable[[str], WeaponList | None], weapon: Callable[[str], Weapon | None]) -> int:
    """What the weapons a swap gives up cost: a whole list counts as its cheapest weapon."""
    replaced = (swap.replace,) if isinstance(swap.replace, str) else swap.replace
    given = _points(w for name in replaced if (w := weapon(name)) is not None)
    given += [min(_points(wl.weapons), default=0) for name in replaced if (wl := weapon_list(name)) is not None]
    return sum(given)


def _swap_alternatives(swap: Swap, weapon_list: Callable[[str], WeaponList | None], weapon: Callable[[str], Weapon | None]) -> list[int]:
    """The cost of each weapon a swap may take instead: from its lists, and each weapon or list it names."""
    alternatives = [p for name in swap.lists if (wl := weapon_list(name)) is not None for p in _points(wl.weapons)]
    for name in swap.with_:
        found_list = weapon_list(name)
        if found_list is not None:
            alternatives.extend(_points(found_list.weapons))
        elif (w := weapon(name)) is not None:
            alternatives.append(w.points or 0)
    return alternatives


def upgrade_choices(upgrades: UnitUpgrades, low_n: int, high_n: int, upgrade: Callable[[str], Upgrade | None]) -> CostRange:
    """Upgrades every model has, on every model; optional ones only in the dearest form."""
    fixed = sum(cost(u.points) for name in upgrades.fixed if (u := upgrade(name)) is not None)
    extra = sum(cost(u.points) for name in upgrades.option_names if (u := upgrade(name)) is not None)
    return CostRange(fixed * low_n, fixed * high_n) + CostRange(0, extra * high_n)
