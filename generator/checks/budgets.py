"""Budgets: a unit that can never be taken, and an army whose required units cannot fit or cannot be had."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..catalogue import ListEntry, Project, Scope, walk_sections
from ..model import Category, GameSize, Model, Module, ProfileValue, Unit
from ..points import CostRange, unit_cost
from ..problems import Problem, error, warning
from .base import CheckRun, at, currency


def check_budgets(run: CheckRun, entry: ListEntry) -> Iterator[Problem]:
    """Each unit of an army list against its module's caps, and the army's required units against its budget."""
    project = run.project
    module = project.modules[entry.module]
    scope = project.list_scope(entry)
    for section in walk_sections(entry.army_list.sections):
        if section.unit is not None:
            yield from unit_budgets(project, section.unit, scope, module)
    yield from least_army(project, entry)
    yield from required_categories(project, entry)


def unit_budgets(project: Project, unit: Unit, scope: Scope, module: Module) -> Iterator[Problem]:
    """A unit whose cheapest legal form already breaks a cap can never be taken."""
    cost = project.unit_cost(unit, scope)
    if cost is None:
        return
    building = module.army_building
    if building and building.per_item_budget is not None:
        yield from _per_item(unit, building.per_item_budget, currency(module))
    if building and building.budget is not None and cost.low > building.budget:
        message = f"unit '{unit.name}' costs at least {cost.low} {currency(module)}, more than the whole budget of {building.budget}"
        yield error(unit.loc, "budget", message)
    if unit.spending_cap is not None and unit.weapons:
        yield from _spending_cap(project, unit, unit.spending_cap, scope, module)
    yield from _category_share(unit, cost, module)


def _per_item(unit: Unit, cap: int, money: str) -> Iterator[Problem]:
    for model in unit.models:
        if model.points is not None and model.points > cap:
            message = f"model '{model.name}' costs {model.points} {money}, more than the {cap} {money} one may cost"
            yield error(at(model.points, model), "budget", message)


def _spending_cap(project: Project, unit: Unit, cap: int, scope: Scope, module: Module) -> Iterator[Problem]:
    """The cheapest weapons of one model must fit the unit's spending cap."""
    least = unit_cost(
        Unit(
            name=unit.name,
            models=tuple(Model(name=m.name, profile=m.profile, points=0) for m in unit.models[:1]),
            weapons=unit.weapons,
            composition=None,
        ),
        weapon_list=lambda n: project.one("weapon_lists", n, scope),
        weapon=lambda n: project.one("weapons", n, scope),
        upgrade=lambda n: None,
    )
    if least is not None and least.low > cap:
        message = f"unit '{unit.name}': its cheapest weapons cost {least.low} {currency(module)}, more than its spending cap of {cap}"
        yield error(at(cap, unit), "budget", message)


def _category_share(unit: Unit, cost: CostRange, module: Module) -> Iterator[Problem]:
    building = module.army_building
    if not (building and building.categories and unit.category and building.game_sizes):
        return
    category = next((c for c in building.categories if c.id == unit.category), None)
    sizes = [_largest_number(g.points) for g in building.game_sizes]
    largest = max((s for s in sizes if s is not None), default=None)
    if category and category.max_share is not None and largest:
        allowed = largest * category.max_share // 100
        if cost.low > allowed:
            money = currency(module)
            yield warning(
                unit.loc,
                "category-share",
                f"unit '{unit.name}' costs at least {cost.low} {money}; {category.name} may use at most {category.max_share}% of the largest game ({largest}), {allowed} {money}",
            )


def _largest_number(value: ProfileValue) -> int | None:
    numbers = [int(n) for n in re.findall(r"\d+", str(value))]
    return max(numbers) if numbers else None


def least_army(project: Project, entry: ListEntry) -> Iterator[Problem]:
    """The units an army must include, each in its cheapest legal form, must fit the army's budget."""
    module = project.modules[entry.module]
    building = module.army_building
    if building is None or building.budget is None:
        return
    scope = project.list_scope(entry)
    required: list[str] = []
    least = 0
    for section in walk_sections(entry.army_list.sections):
        unit = section.unit
        composition = unit.composition if unit else None
        count = composition.per_army.min if composition and composition.per_army and composition.per_army.min else 0
        cost = project.unit_cost(unit, scope) if unit is not None and count else None
        if unit is not None and cost is not None:
            least += cost.low * count
            required.append(f"{count} × {unit.name} ({cost.low})")
    if least > building.budget:
        yield error(
            entry.army_list.loc,
            "budget",
            f"the units every army of '{entry.army_list.name}' must include cost at least {least} {currency(module)} ({', '.join(required)}), "
            f"more than the budget of {building.budget}",
        )


def required_categories(project: Project, entry: ListEntry) -> Iterator[Problem]:
    """A category every army needs some of (a least share or number of units) must have a unit in the list.

    A page none of whose units has a category (profiles shown in the rules, say) is not one armies are built from."""
    building = project.modules[entry.module].army_building
    offered = {u.category for u in (s.unit for s in walk_sections(entry.army_list.sections)) if u is not None and u.category}
    if building is None or not offered:
        return
    counts_as = {c.id: c.counts_as for c in building.categories}
    offered |= {target for c in offered if (target := counts_as.get(c))}
    for category in building.categories:
        need = _least_need(category, building.game_sizes)
        if need is None or category.id in offered:
            continue
        message = (
            f"no unit of '{entry.army_list.name}' is in category '{category.name}' or counts as it, so no army of it "
            f"can meet {category.name}'s minimum ({need}, {category.loc})"
        )
        yield error(entry.army_list.loc, "required-category", message, f"give a unit 'category: {category.id}', or lower the minimum")


def _least_need(category: Category, game_sizes: tuple[GameSize, ...]) -> str | None:
    """What every army (or every army of some game size) must have of a category, in words; None if nothing."""
    if category.min_share:
        return f"a {category.min_share}% share"
    counts = [category.units, *(g.category_units.get(category.id) for g in game_sizes)]
    least = max((r.min for r in counts if r is not None and r.min), default=0)
    return f"{least} unit{'' if least == 1 else 's'}" if least else None
