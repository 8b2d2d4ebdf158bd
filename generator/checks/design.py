"""Checks for the slips designers make when they write a page: a name defined twice with different
contents, an upgrade left without a cost, a heading with nothing under it, a value nobody knows.

Each check is a function over the built project that returns its problems, so the checks registry
can list them with their codes. They catch the sources' own mistakes of these kinds (see the errata
whose `caught_by` names these codes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ..catalogue import ListEntry, Project, walk_sections
from ..loader import loc_of
from ..model import DEFAULT_LABELS, PLACEHOLDER, Module, Record, Section, Unit, Upgrade, Weapon, slugify
from ..problems import Location, Problem, did_you_mean, error, warning
from ..schema import field_values
from .base import CheckRun, named_fields

#: The rule value that says "the source prints this rule without its value" (`Rending (?)`).
UNSTATED = "?"

#: The codes these checks report, with what each catches.
CODES = {
    "duplicate-name": "two weapons or upgrades of one name on one page, with different contents",
    "missing-points": "an upgrade without a cost in a list whose other upgrades have one",
    "empty-section": "a heading, or a unit's upgrades or weapons, with nothing under it",
    "unstated-value": "a rule written with the value '?' that no erratum of its module explains",
    "unknown-kind": "a label for a rule kind the system does not declare",
    "label-placeholder": "a {name} in a label that the generator never fills for that label",
}


def check_duplicate_names(project: Project) -> list[Problem]:
    """Two weapons (or upgrades) of one name on one page must be the same thing.

    A reference by name finds the first of them, so a second one that differs is never the one a
    unit gets: the page shows two profiles and the army builder prices one.
    """
    problems: list[Problem] = []
    for entry in project.lists:
        seen: dict[tuple[str, str], tuple[Record, str, int]] = {}
        for section in walk_sections(entry.army_list.sections):
            items: list[tuple[str, Weapon | Upgrade, str, int]] = []
            if section.weapon_list is not None:
                items += [("weapon", w, section.weapon_list.name, id(section)) for w in section.weapon_list.weapons]
            if section.upgrade_list is not None:
                items += [("upgrade", u, section.upgrade_list.name, id(section)) for u in section.upgrade_list.upgrades]
            for kind, item, owner, block in items:
                key = (kind, item.id or slugify(item.name))  # distinct ids: the designer tells them apart on purpose
                first = seen.get(key)
                if first is None:
                    seen[key] = (item, owner, block)
                elif first[2] != block and first[0] != item:
                    problems.append(
                        error(
                            item.loc,
                            "duplicate-name",
                            f"{kind} '{item.name}' in {owner} differs from the {kind} of the same name in {first[1]} "
                            f"(line {first[0].loc.line}); a reference to '{item.name}' finds only the first",
                            f"rename one of them, or make them the same {kind}",
                        )
                    )
    return problems


def check_upgrade_points(project: Project) -> list[Problem]:
    """In a list whose upgrades have costs, one without a cost is a cost the source forgot to print.

    Write '-' where the source prints none on purpose (and record an erratum where it is a gap).
    """
    problems: list[Problem] = []
    for entry in project.lists:
        if project.modules[entry.module].currency is None:
            continue
        for section in walk_sections(entry.army_list.sections):
            upgrades = section.upgrade_list.upgrades if section.upgrade_list else ()
            if not any(u.points is not None for u in upgrades):
                continue
            for upgrade in upgrades:
                if upgrade.points is None:
                    problems.append(
                        warning(
                            upgrade.loc,
                            "missing-points",
                            f"upgrade '{upgrade.name}' has no cost, but the other upgrades of {section.upgrade_list.name} have one",  # type: ignore[union-attr]
                            "give it 'points:', or '-' where no cost is printed",
                        )
                    )
    return problems


def check_empty_sections(project: Project) -> list[Problem]:
    """A heading with nothing under it: text, a block or subsections; and a unit's empty options."""
    problems: list[Problem] = []
    for entry in project.lists:
        for section in walk_sections(entry.army_list.sections):
            if _is_empty(section):
                problems.append(
                    warning(
                        section.loc,
                        "empty-section",
                        f"section '{section.title}' has nothing under its heading",
                        "add its text or remove it",
                    )
                )
            if section.unit is not None:
                problems.extend(_empty_options(section.unit))
    return problems


def _is_empty(section: Section) -> bool:
    return section.block is None and not section.special_rules and not section.sections and not section.text.strip()


def _empty_options(unit: Unit) -> Iterator[Problem]:
    upgrades = unit.upgrades
    if upgrades is not None and not upgrades.text.strip() and not upgrades.options and not upgrades.fixed:
        yield warning(
            upgrades.loc,
            "empty-section",
            f"unit '{unit.name}' has an upgrades section with nothing in it",
            "list its upgrades, say in 'text' that it has none, or remove 'upgrades'",
        )
    weapons = unit.weapons
    if weapons is not None and not weapons.text.strip() and not (weapons.fixed or weapons.options or weapons.swaps or weapons.by_model):
        yield warning(
            weapons.loc,
            "empty-section",
            f"unit '{unit.name}' has a weapons section with nothing in it",
            "list its weapons, say in 'text' that it has none, or remove 'weapons'",
        )


#: The fields that hold rule uses.
RULE_FIELDS = frozenset({"rules", "grants"})


def _rule_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    return named_fields(cls, RULE_FIELDS)


def _are_uses(_name: str, value: Any) -> bool:
    return isinstance(value, tuple)


def _rule_uses(record: Any) -> Iterator[tuple[str, Record]]:
    """Every rule use (`rules`, `grants`) in a record and the records under it."""
    for uses, owner, _name in field_values([record], _rule_fields, _are_uses, mappings=False):
        yield from ((use, owner) for use in uses if isinstance(use, str))


def check_unstated_values(run: CheckRun, entry: ListEntry) -> list[Problem]:
    """`Rending (?)` publishes a rule the source printed without its value; an erratum of the list's game must say so."""
    problems: list[Problem] = []
    project = run.project
    module = project.modules[entry.module]
    scope = project.list_scope(entry)
    for use, owner in _rule_uses(entry.army_list):
        # a use's value is part of its text: one without a '?' cannot be unstated
        if UNSTATED not in use or project.parse_use(use, scope).value != UNSTATED:
            continue
        if not _stated(module, use):
            problems.append(
                error(
                    loc_of(use, owner.loc),
                    "unstated-value",
                    f"'{use}': the value '?' says the source prints no value, but no erratum of {module.title} explains it",
                    f"add an erratum whose 'corrected' is '{use}', saying what the source printed",
                )
            )
    return problems


def _stated(module: Module, use: str) -> bool:
    return any(str(use) in str(erratum.corrected) for erratum in module.errata)


def check_rule_kind_labels(project: Project) -> list[Problem]:
    """Each label in `rule_kind_labels` names a declared rule kind."""
    system = project.system
    return [
        error(
            loc_of(kind, system.loc) if isinstance(kind, str) else Location(project.system_file, 0, 0),
            "unknown-kind",
            f"rule_kind_labels names '{kind}', which is not one of the rule kinds: {', '.join(system.rule_kinds)}",
        )
        for kind in system.rule_kind_labels
        if kind not in system.rule_kinds
    ]


def check_label_placeholders(project: Project) -> list[Problem]:
    """A `{name}` in a label is one its English default takes; any other would be shown as written."""
    labels = project.system.labels
    problems = []
    for f in dataclasses.fields(labels):
        if f.name == "loc":
            continue
        text = getattr(labels, f.name)
        given = list(dict.fromkeys(f"{{{name}}}" for name in PLACEHOLDER.findall(DEFAULT_LABELS[f.name])))  # each once
        for found in PLACEHOLDER.finditer(text):
            if found[0] not in given:
                problems.append(
                    warning(
                        loc_of(text, labels.loc),
                        "label-placeholder",
                        f"label '{f.name}' has '{found[0]}', which the site never fills in (it takes: {', '.join(given) or 'nothing'})",
                        did_you_mean(found[0], given),
                    )
                )
    return problems


def rule_kind_label(project: Project, kind: str) -> str:
    """How the site names a rule kind: its label from the system, else the kind as written."""
    return str(project.system.rule_kind_labels.get(kind, kind))


def has_costs(project: Project, module: Module) -> bool:
    """Whether anything in a module costs something: only then do its pages speak of costs."""
    if module.army_building is not None and module.army_building.budget is not None:
        return True
    for entry in project.lists:
        if entry.module != module.id:
            continue
        for section in walk_sections(entry.army_list.sections):
            if section.unit is not None and any(m.points is not None for m in section.unit.models):
                return True
            if section.weapon_list is not None and any(w.points is not None for w in section.weapon_list.weapons):
                return True
            if section.upgrade_list is not None and any(u.points not in (None, "-") for u in section.upgrade_list.upgrades):
                return True
    return False
