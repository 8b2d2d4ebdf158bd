"""Modules: the pages they list, their tables' ids, their army-building categories and shares."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ..catalogue import ListEntry, Project
from ..loader import loc_of
from ..model import Module, Range, slugify
from ..paths import is_safe
from ..problems import Location, Problem, closest, did_you_mean, error
from .base import CheckRun


def check_module_pages(run: CheckRun) -> Iterator[Problem]:
    """Every page a module lists, and every page an erratum points at, exists (unsafe paths: paths.py)."""
    pages = run.resolved.page_paths
    misplaced = _misplaced_lists(run)
    for path, entry in misplaced.items():
        yield _misplaced_list(run, path, entry)
    for ref in run.resolved.pages:
        if not is_safe(ref.path) or ref.exists or ref.path in misplaced:
            continue
        if ref.listed:
            message = f"{ref.owner} lists page '{ref.path}', but there is no content/{ref.path}.md and no data generates it"
        else:
            message = f"erratum points at page '{ref.path}', which does not exist"
        yield error(ref.where, "missing-page", message, did_you_mean(ref.path, pages))
    yield from _listed_twice(run.project)


def _listed_twice(project: Project) -> Iterator[Problem]:
    """A page one module lists more than once: its menu would show the page once per listing. (Two modules may
    both list a page: it is read in the first one's rules, and shown in both menus.)"""
    for module in project.modules.values():
        first: dict[str, Location] = {}
        for path in module.pages:
            where = loc_of(path, module.loc)
            earlier = first.setdefault(path, where)
            if earlier is not where:
                place = f"column {earlier.column} of this line" if earlier.line == where.line else f"line {earlier.line}"
                message = f"module '{module.id}' lists page '{path}' a second time (first at {place})"
                yield error(where, "duplicate", message, "list each page once: the menu shows it once per listing")


def _misplaced_list(run: CheckRun, path: str, entry: ListEntry) -> Problem:
    """One error at the list's `page`, naming where the module lists the page and how many errata point there."""
    listing = next(ref for ref in run.resolved.pages if ref.listed and ref.path == path)
    errata = sum(1 for ref in run.resolved.pages if not ref.listed and ref.path == path)
    also = f" and {errata} {'erratum points' if errata == 1 else 'errata point'} there" if errata else ""
    message = (
        f"army list '{entry.army_list.name}' is published at '{entry.page}', but {listing.owner} lists it as "
        f"'{path}' ({listing.where}){also}"
    )
    return error(loc_of(entry.army_list.page, entry.army_list.loc), "missing-page", message, f"did you mean '{path}'?")


def _misplaced_lists(run: CheckRun) -> dict[str, ListEntry]:
    """Listed pages that are missing because an army list's `page` is misspelt, each with that list.

    The list is the slip when more places (the module's `pages`, errata) name the missing path than name the
    list's own; one error at the list then stands for all of them."""
    refs = run.resolved.pages
    listed = {ref.path for ref in refs if ref.listed}
    unlisted = {entry.page: entry for entry in run.project.lists if entry.page not in listed}
    named = Counter(ref.path for ref in refs)
    misplaced: dict[str, ListEntry] = {}
    for path in sorted({ref.path for ref in refs if ref.listed and not ref.exists and is_safe(ref.path)}):
        meant = closest(path, list(unlisted))
        if meant is not None and named[path] > 1 + named[meant]:
            misplaced[path] = unlisted[meant]
    return misplaced


def check_module_tables(run: CheckRun) -> Iterator[Problem]:
    """A module defines each table id once."""
    for module in run.project.modules.values():
        seen: set[str] = set()
        for table in module.tables:
            key = table.id or slugify(table.name)
            if key in seen:
                yield error(table.loc, "duplicate", f"table '{key}' is defined twice in {module.title}")
            seen.add(key)


def check_categories(run: CheckRun) -> Iterator[Problem]:
    """Categories that name one another exist; shares are possible alone and together; reinforcements arrive in time."""
    for ref in run.resolved.categories:
        if ref.target is not None or ref.module.army_building is None:
            continue
        ids = [c.id for c in ref.module.army_building.categories]
        if ref.role == "counts_as":
            message = f"category '{ref.owner}' counts as unknown category '{ref.name}'"
        elif ref.role == "game_size":
            message = f"{ref.owner} counts the units of category '{ref.name}', which {ref.module.title} does not define"
        else:
            message = f"{ref.owner} is in category '{ref.name}', which {ref.module.title} does not define"
        yield error(ref.where, "unknown-category", message, did_you_mean(ref.name, ids))
    for module in run.project.modules.values():
        yield from _shares(module)
        yield from _late_reinforcements(module)


def _late_reinforcements(module: Module) -> Iterator[Problem]:
    """Reinforcements that may arrive only after a game's last round: they never arrive."""
    arriving = module.army_building.reinforcements if module.army_building else None
    if arriving and arriving.from_round is not None and module.rounds is not None and arriving.from_round > module.rounds:
        message = f"{arriving.name} arrive from round {arriving.from_round}, but a game of {module.title} lasts {module.rounds} rounds"
        yield error(loc_of(arriving.from_round, arriving.loc), "range", message)


def _backwards(units: Range | None, owner: str) -> Iterator[Problem]:
    """A number of units whose least is more than its most."""
    if units is not None and units.min is not None and units.max is not None and units.min > units.max:
        yield error(units.loc, "range", f"{owner}: an army's units of it run from {units.min} down to {units.max}")


def _shares(module: Module) -> Iterator[Problem]:
    if not module.army_building:
        return
    for category in module.army_building.categories:
        if category.min_share is not None and category.max_share is not None and category.min_share > category.max_share:
            message = f"category '{category.id}' needs at least {category.min_share}% but allows at most {category.max_share}%"
            yield error(category.loc, "share", message)
        yield from _backwards(category.units, f"category '{category.id}'")
    for size in module.army_building.game_sizes:
        for category_id, units in size.category_units.items():
            yield from _backwards(units, f"game size '{size.name}', category '{category_id}'")
    minimum = sum(c.min_share or 0 for c in module.army_building.categories)
    if minimum > 100:
        yield error(module.army_building.loc, "share", f"the categories' least shares add up to {minimum}%, more than a whole army")
