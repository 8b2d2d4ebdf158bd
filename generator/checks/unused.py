"""Definitions nothing uses: weapon lists, upgrades, and module or list special rules.

Core rules are a library every module draws from, so an unused core rule is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..catalogue import ListEntry, walk_sections
from ..model import slugify
from ..problems import Problem, warning
from .base import CheckRun


def check_unused(run: CheckRun) -> Iterator[Problem]:
    project = run.project
    used: dict[str, set[int]] = {"weapons": set(), "weapon_lists": set(), "upgrades": set()}
    for ref in run.resolved.names:
        if ref.table in used:
            used[ref.table].update(id(item) for item in ref.items)
    libraries = {key for other in project.lists for key in other.army_list.uses}  # once: not per list
    for entry in project.lists:
        if entry.key not in libraries and _offers_options(entry):
            yield from _unused_blocks(entry, used)
    rules = set(run.resolved.rule_usage)
    for scope in project.scopes.values():
        module = project.modules.get(scope.key)
        if module is not None and module.core:
            continue
        for rule in scope.unique_rules():
            if not rule.optional and (scope.key, slugify(rule.name)) not in rules:
                yield warning(rule.loc, "unused", f"special rule '{rule.name}' is defined in {scope.title} but nothing uses it")


def _offers_options(entry: ListEntry) -> bool:
    """Whether a list's units choose weapons or upgrades at all (lists other lists use are libraries, not asked)."""
    return any(
        (s.unit is not None and (s.unit.weapons is not None or s.unit.upgrades is not None)) or s.built_model is not None
        for s in walk_sections(entry.army_list.sections)
    )


def _unused_blocks(entry: ListEntry, used: dict[str, set[int]]) -> Iterator[Problem]:
    for section in walk_sections(entry.army_list.sections):
        wl = section.weapon_list
        if wl is not None and not (wl.library or id(wl) in used["weapon_lists"] or any(id(w) in used["weapons"] for w in wl.weapons)):
            yield warning(wl.loc, "unused", f"weapon list '{wl.name}' is not offered to any unit")
        for upgrade in section.upgrade_list.upgrades if section.upgrade_list else ():
            if id(upgrade) not in used["upgrades"]:
                yield warning(upgrade.loc, "unused", f"upgrade '{upgrade.name}' is not offered to any unit")
