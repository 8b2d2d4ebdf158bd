"""Every check of a built project. Returns all problems at once; never stops at the first.

The checker never renders: where it needs to know how a thing is priced or built it calls the same
functions in `points.py` that the site uses.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from .catalogue import ListEntry, Project, RuleUse, Scope, walk_sections
from .loader import LocStr, loc_of
from .model import (
    ArmyList,
    Column,
    Model,
    Module,
    ProfileValue,
    Record,
    Section,
    SpecialRule,
    Table,
    Unit,
    Weapon,
    slugify,
)
from .points import build_model, unit_cost
from .problems import Location, Problem, did_you_mean, error, warning

if TYPE_CHECKING:
    from .render import SiteMap

NO_COST = ("-", "—")
SAFE_PAGE = re.compile(r"^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*$")
RULE_LINK = re.compile(r"\[\[(?P<use>[^\[\]\n]+?)\]\]")
ROLL = re.compile(r"^\s*(?P<low>\d+)\s*(?:(?P<plus>\+)|(?P<minus>-)|[-–]\s*(?P<high>\d+))?\s*$")
DICE = re.compile(r"^(?P<count>\d*)d(?P<sides>\d+)$")


def _at(value: Any, record: Record) -> Location:
    return loc_of(value, record.loc)


@dataclass
class Context:
    project: Project
    problems: list[Problem]
    used_rules: dict[tuple[str, str], list[tuple[str, Location]]]
    used_lists: set[int]
    used_upgrades: set[int]
    used_weapons: set[int] = field(default_factory=set)

    def err(self, where: Location, code: str, message: str, hint: str = "") -> None:
        self.problems.append(error(where, code, message, hint))

    def warn(self, where: Location, code: str, message: str, hint: str = "") -> None:
        self.problems.append(warning(where, code, message, hint))


def check_project(
    project: Project,
    content: dict[str, str],
    root: Path | None = None,
    data_dir: str = "data",
    content_dir: str = "content",
    words: frozenset[str] | None = None,
) -> list[Problem]:
    """Run every check; `content` maps site paths of hand-written pages to their text.

    `words` are the project's own accepted spellings (data/words.txt); None skips the spelling check.
    """
    ctx = Context(project, [], defaultdict(list), set(), set())
    check_system(ctx)
    generated = _generated_paths(project)
    for module in project.modules.values():
        check_module(ctx, module, content, generated)
    for entry in project.lists:
        check_army_list(ctx, entry)
    check_pages(ctx, content, generated, content_dir)
    check_content_links(ctx, content, content_dir)
    check_unused(ctx)
    if words is not None:
        check_names(ctx, words)
    if root is not None:
        check_errata_patches(ctx, root, data_dir)
    return ctx.problems


def _generated_paths(project: Project) -> dict[str, str]:
    from .pages import generated_paths

    return generated_paths(project)


# --- the system ------------------------------------------------------------------------------------


def check_system(ctx: Context) -> None:
    system = ctx.project.system
    for module in ctx.project.modules.values():
        for rule in module.special_rules:
            for form in rule.values:
                if form not in system.value_forms:
                    ctx.err(
                        _at(form, rule),
                        "unknown-form",
                        f"rule '{rule.name}' names unknown value form '{form}'",
                        did_you_mean(form, list(system.value_forms)),
                    )
    for name, form in system.value_forms.items():
        try:
            re.compile(form.pattern)
        except re.error as exc:
            ctx.err(_at(form.pattern, form), "pattern", f"value form '{name}' has an invalid pattern: {exc}")
    for kind in ("model", "weapon"):
        seen: set[str] = set()
        for column in getattr(system.profiles, kind):
            if column.key in seen:
                ctx.err(column.loc, "duplicate", f"{kind} profile column '{column.key}' is declared twice")
            seen.add(column.key)
            for form in column.forms:
                if form not in system.value_forms:
                    ctx.err(
                        _at(form, column),
                        "unknown-form",
                        f"column '{column.key}' names unknown value form '{form}'",
                        did_you_mean(form, list(system.value_forms)),
                    )


def value_matches(project: Project, column: Column, value: ProfileValue) -> bool:
    text = str(value)
    for form in column.forms:
        vf = project.system.value_forms.get(form)
        if vf is None:
            continue
        try:
            if re.fullmatch(vf.pattern, text):
                return True
        except re.error:
            continue
    return False


def check_profile(
    ctx: Context,
    profile: dict[str, ProfileValue] | None,
    kind: str,
    owner: Record,
    name: str,
    parameter: str | None = None,
    footnote: bool = False,
    partial: bool = False,
) -> None:
    if profile is None:
        if not partial:
            ctx.err(owner.loc, "missing-column", f"{name} has no profile")
        return
    columns = {c.key: c for c in getattr(ctx.project.system.profiles, kind)}
    for key, value in profile.items():
        column = columns.get(key)
        if column is None:
            ctx.err(
                _at(key, owner),
                "unknown-column",
                f"{name}: '{key}' is not a {kind} profile column",
                did_you_mean(key, list(columns)) or f"columns: {', '.join(columns)}",
            )
            continue
        if parameter is not None and str(value) == parameter:
            continue
        if footnote and str(value) == "*":
            continue
        if not value_matches(ctx.project, column, value):
            examples = [ctx.project.system.value_forms[f].example for f in column.forms if f in ctx.project.system.value_forms]
            ctx.err(
                _at(value, owner),
                "value-form",
                f"{name}: {column.label} value {str(value)!r} is not written as {' or '.join(column.forms)}",
                f"write it like {' or '.join(e for e in examples if e)}",
            )
    if not partial:
        for key, column in columns.items():
            if key not in profile:
                ctx.err(
                    owner.loc,
                    "missing-column",
                    f"{name} has no {column.label} ({column.name or key}) value",
                    f"add '{key}:' to its profile",
                )


# --- rules -----------------------------------------------------------------------------------------


def check_rule_uses(
    ctx: Context, uses: Iterable[str], scope: Scope, owner: Record, name: str, page: str, kinds: tuple[str, ...] = ("unit", "weapon")
) -> None:
    for use in uses:
        parsed = RuleUse.parse(use)
        found = ctx.project.rule(use, scope)
        where = _at(use, owner)
        if found is None:
            hint = did_you_mean(parsed.name, [r.name for s in scope.chain() for r in s.rules.values()])
            ctx.err(where, "unknown-rule", f"{name} uses special rule '{use}', which is not defined in {_scope_names(scope)}", hint)
            continue
        rule = found.item
        ctx.used_rules[(found.scope, slugify(rule.name))].append((page, where))
        if rule.name != parsed.name:
            ctx.err(
                where, "rule-name", f"{name} writes '{parsed.name}', but the rule is named '{rule.name}'", f"did you mean '{rule.name}'?"
            )
        if rule.parameter and parsed.value is None:
            ctx.err(
                where, "rule-arity", f"{name} uses '{rule.name}' without a value; the rule is {rule.title}", f"write '{rule.name} (value)'"
            )
        elif not rule.parameter and parsed.value is not None:
            ctx.err(where, "rule-arity", f"{name} gives '{rule.name}' a value ({parsed.value}), but the rule takes none")
        elif rule.parameter and parsed.value is not None and rule.values and parsed.value != rule.parameter:
            forms = ctx.project.system.value_forms
            if not any(f in forms and re.fullmatch(forms[f].pattern, parsed.value) for f in rule.values):
                examples = " or ".join(forms[f].example for f in rule.values if f in forms and forms[f].example)
                ctx.err(
                    where,
                    "value-form",
                    f"{name} gives '{rule.name}' the value {parsed.value!r}, which is not written as {' or '.join(rule.values)}",
                    f"write it like {rule.name} ({examples})" if examples else "",
                )


def _scope_names(scope: Scope) -> str:
    return ", ".join(s.title for s in scope.chain())


def check_special_rules(ctx: Context, rules: Iterable[SpecialRule], scope: Scope, page: str) -> None:
    seen: dict[str, SpecialRule] = {}
    for rule in rules:
        key = slugify(rule.name)
        if key in seen:
            ctx.err(
                rule.loc, "duplicate", f"special rule '{rule.name}' is defined twice in {scope.title} (first at line {seen[key].loc.line})"
            )
        seen[key] = rule
        if "(" in rule.name:
            ctx.err(
                _at(rule.name, rule), "rule-name", f"special rule name '{rule.name}' has a parenthesis; put the parameter in 'parameter:'"
            )
        check_markdown(ctx, rule.text, scope, rule, page)


def check_markdown(ctx: Context, text: str | None, scope: Scope, owner: Record, page: str) -> None:
    """[[Rule]] links in Markdown from data must name a rule in scope."""
    if not text:
        return
    for match in RULE_LINK.finditer(text):
        use = LocStr(match["use"].strip(), _at(text, owner))
        check_rule_uses(ctx, [use], scope, owner, "text link", page)


# --- modules ---------------------------------------------------------------------------------------


def check_module(ctx: Context, module: Module, content: dict[str, str], generated: dict[str, str]) -> None:
    scope = ctx.project.module_scope(module.id)
    page = module.pages[0] if module.pages else f"{module.id}/index"
    check_special_rules(ctx, module.special_rules, scope, page)
    check_markdown(ctx, module.summary, scope, module, page)
    for _index, path in enumerate(module.pages):
        if not SAFE_PAGE.match(path):
            ctx.err(
                _at(path, module),
                "unsafe-path",
                f"page path {path!r} must be a relative site path of lowercase slugs, like 'fracture/missions'",
            )
        elif path not in content and path not in generated:
            ctx.err(
                _at(path, module),
                "missing-page",
                f"module '{module.id}' lists page '{path}', but there is no content/{path}.md and no data generates it",
                did_you_mean(path, [*content, *generated]),
            )
    seen_tables: set[str] = set()
    for table in module.tables:
        key = table.id or slugify(table.name)
        if key in seen_tables:
            ctx.err(table.loc, "duplicate", f"table '{key}' is defined twice in {module.title}")
        seen_tables.add(key)
        check_table(ctx, table, scope, page)
    if module.army_building:
        ids = {c.id for c in module.army_building.categories}
        for category in module.army_building.categories:
            if category.counts_as and category.counts_as not in ids:
                ctx.err(
                    _at(category.counts_as, category),
                    "unknown-category",
                    f"category '{category.id}' counts as unknown category '{category.counts_as}'",
                    did_you_mean(category.counts_as, list(ids)),
                )
            if category.min_share is not None and category.max_share is not None and category.min_share > category.max_share:
                ctx.err(
                    category.loc,
                    "share",
                    f"category '{category.id}' needs at least {category.min_share}% but allows at most {category.max_share}%",
                )
        minimum = sum(c.min_share or 0 for c in module.army_building.categories)
        if minimum > 100:
            ctx.err(module.army_building.loc, "share", f"the categories' least shares add up to {minimum}%, more than a whole army")
    for erratum in module.errata:
        if erratum.page not in content and erratum.page not in generated:
            ctx.err(
                _at(erratum.page, erratum),
                "missing-page",
                f"erratum points at page '{erratum.page}', which does not exist",
                did_you_mean(erratum.page, [*content, *generated]),
            )


def check_table(ctx: Context, table: Table, scope: Scope, page: str) -> None:
    width = len(table.columns)
    for index, row in enumerate(table.rows):
        if len(row) != width:
            ctx.err(
                _at(row[0] if row else table.name, table),
                "table-row",
                f"table '{table.name}' row {index + 1} has {len(row)} values for {width} columns",
            )
        for value in row:
            check_markdown(ctx, str(value), scope, table, page)
    if table.dice:
        check_roll_ranges(ctx, table)


def roll_span(dice: str) -> tuple[int, int] | None:
    match = DICE.match(dice.strip().lower())
    if not match:
        return None
    count = int(match["count"] or 1)
    return count, count * int(match["sides"])


def check_roll_ranges(ctx: Context, table: Table) -> None:
    """The first column of a roll table must cover every result of its dice exactly once."""
    assert table.dice is not None
    span = roll_span(table.dice)
    if span is None:
        ctx.err(_at(table.dice, table), "dice", f"table '{table.name}': dice {table.dice!r} is not written like d6, 2d6 or d10")
        return
    low, high = span
    if table.results is not None:
        low = table.results.min if table.results.min is not None else low
        high = table.results.max if table.results.max is not None else high
    covered: dict[int, int] = {}
    for index, row in enumerate(table.rows):
        if not row:
            continue
        text = str(row[0])
        match = ROLL.match(text)
        where = _at(row[0], table)
        if not match:
            ctx.err(where, "roll", f"table '{table.name}': {text!r} is not a roll like 3, 1-3, 5+ or 2-")
            continue
        start = int(match["low"])
        end = high if match["plus"] else int(match["high"]) if match["high"] else start
        if match["minus"]:
            start, end = low, start
        if start > end:
            ctx.err(where, "roll", f"table '{table.name}': roll {text!r} runs backwards")
            continue
        for result in range(start, end + 1):
            if result < low or result > high:
                ctx.err(where, "roll-range", f"table '{table.name}': roll {result} is outside the results {low}-{high} of {table.dice}")
                break
            if result in covered:
                ctx.err(where, "roll-overlap", f"table '{table.name}': roll {result} is in row {covered[result] + 1} and row {index + 1}")
                break
            covered[result] = index
    missing = [r for r in range(low, high + 1) if r not in covered]
    if missing:
        ctx.err(table.loc, "roll-gap", f"table '{table.name}': no row for {_ranges(missing)} on {table.dice}")


def _ranges(numbers: list[int]) -> str:
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:  # type: ignore[list-item]
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


# --- army lists ------------------------------------------------------------------------------------


def check_army_list(ctx: Context, entry: ListEntry) -> None:
    army_list = entry.army_list
    project = ctx.project
    scope = project.list_scope(entry)
    module = project.modules[entry.module]
    page = entry.page
    if not SAFE_PAGE.match(page):
        ctx.err(
            _at(army_list.page, army_list),
            "unsafe-path",
            f"page path {page!r} must be a relative site path of lowercase slugs, like 'fracture/army-lists/sentinels'",
        )
    for used in army_list.uses:
        if used not in project.scopes or "/" not in used:
            ctx.err(
                _at(used, army_list),
                "unknown-list",
                f"'uses' names '{used}', which is not an army list",
                did_you_mean(used, [e.key for e in project.lists]),
            )
    check_special_rules(ctx, army_list.special_rules, scope, page)
    check_markdown(ctx, army_list.intro, scope, army_list, page)
    check_markdown(ctx, army_list.notice, scope, army_list, page)
    if army_list.special_rules and not any(s.special_rules for s in walk_sections(army_list.sections)):
        ctx.err(
            army_list.loc,
            "rules-not-shown",
            f"army list '{army_list.id}' defines special rules but no section shows them",
            "add a section with 'special_rules: true'",
        )
    categories = {c.id: c for c in module.army_building.categories} if module.army_building else {}
    names: dict[str, dict[str, Record]] = defaultdict(dict)
    for section in walk_sections(army_list.sections):
        blocks = [
            name
            for name in ("unit", "weapon_list", "upgrade_list", "table", "built_model", "profile_summary")
            if getattr(section, name) is not None
        ]
        if len(blocks) > 1:
            ctx.err(section.loc, "section", f"a section holds one block, but this one has {', '.join(blocks)}")
        if not section.title:
            ctx.err(section.loc, "section", "a section needs a heading or a block with a name")
        check_markdown(ctx, section.text, scope, section, page)
        for kind, block in (("unit", section.unit), ("weapon list", section.weapon_list), ("upgrade list", section.upgrade_list)):
            if block is None:
                continue
            key = block.id or slugify(block.name)
            if key in names[kind] and kind != "upgrade list":
                ctx.err(
                    block.loc,
                    "duplicate",
                    f"{kind} '{block.name}' is defined twice in {army_list.name} (first at line {names[kind][key].loc.line})",
                )
            names[kind][key] = block
        if section.unit is not None:
            check_unit(ctx, section.unit, scope, module, page, categories)
        if section.weapon_list is not None:
            seen: set[str] = set()
            for weapon in section.weapon_list.weapons:
                if slugify(weapon.name) in seen:
                    ctx.err(weapon.loc, "duplicate", f"weapon '{weapon.name}' appears twice in {section.weapon_list.name}")
                seen.add(slugify(weapon.name))
                check_weapon(ctx, weapon, scope, page)
        if section.upgrade_list is not None:
            seen = set()
            for upgrade in section.upgrade_list.upgrades:
                if slugify(upgrade.name) in seen:
                    ctx.err(upgrade.loc, "duplicate", f"upgrade '{upgrade.name}' appears twice in {section.upgrade_list.name}")
                seen.add(slugify(upgrade.name))
                check_markdown(ctx, upgrade.effect, scope, upgrade, page)
                if isinstance(upgrade.points, str) and upgrade.points not in NO_COST:
                    ctx.err(
                        _at(upgrade.points, upgrade),
                        "value-form",
                        f"upgrade '{upgrade.name}': cost {upgrade.points!r} must be a whole number, or '-' where none is printed",
                    )
                check_rule_uses(ctx, upgrade.grants, scope, upgrade, f"upgrade '{upgrade.name}'", page)
                check_profile(ctx, upgrade.sets, "model", upgrade, f"upgrade '{upgrade.name}'", partial=True)
        if section.table is not None:
            check_table(ctx, section.table, scope, page)
        if section.built_model is not None:
            check_built_model(ctx, section.built_model, scope, module, page)
        if section.profile_summary is not None:
            summary = section.profile_summary
            if summary.of is not None and not any(s.title == summary.of for s in walk_sections(army_list.sections)):
                ctx.err(
                    _at(summary.of, summary),
                    "unknown-section",
                    f"summary '{summary.name}' sums up section '{summary.of}', which this list does not have",
                    did_you_mean(summary.of, [s.title for s in walk_sections(army_list.sections)]),
                )


def check_weapon(ctx: Context, weapon: Weapon, scope: Scope, page: str) -> None:
    name = f"weapon '{weapon.name}'"
    if weapon.modes:
        check_profile(ctx, weapon.profile, "weapon", weapon, name, weapon.parameter, bool(weapon.footnote), partial=True)
        for mode in weapon.modes:
            check_profile(ctx, mode.profile, "weapon", mode, f"{name} ({mode.name})", weapon.parameter, bool(weapon.footnote))
            check_rule_uses(ctx, mode.rules, scope, mode, f"{name} ({mode.name})", page)
    elif not (weapon.pending and weapon.profile is None):
        check_profile(ctx, weapon.profile, "weapon", weapon, name, weapon.parameter, bool(weapon.footnote))
    check_rule_uses(ctx, weapon.rules, scope, weapon, name, page)
    if weapon.footnote is not None:
        values = [str(v) for v in (weapon.profile or {}).values()] + [str(v) for m in weapon.modes for v in m.profile.values()]
        if "*" not in values:
            ctx.err(weapon.loc, "footnote", f"{name} has a footnote but no '*' value")
        check_markdown(ctx, weapon.footnote, scope, weapon, page)


def _resolve(ctx: Context, table: str, name: str, scope: Scope, owner: Record, what: str, context: str) -> Any:
    found = ctx.project.find(table, name, scope)
    if found is None and table == "weapons":
        found = ctx.project.find(table, RuleUse.parse(name).name, scope)
    if found is None:
        hint = did_you_mean(name, ctx.project.names_in_scope(table, scope))
        ctx.err(
            _at(name, owner),
            f"unknown-{what.replace(' ', '-')}",
            f"{context} names {what} '{name}', which does not exist in {_scope_names(scope)}",
            hint,
        )
        return None
    item = found.item[0] if isinstance(found.item, list) else found.item
    if table == "weapons":
        ctx.used_weapons.update(id(w) for w in found.item)
    if table in ("weapon_lists",):
        ctx.used_lists.add(id(item))
    if table == "upgrades":
        for upgrade in found.item if isinstance(found.item, list) else [found.item]:
            ctx.used_upgrades.add(id(upgrade))
    return item


def check_unit(ctx: Context, unit: Unit, scope: Scope, module: Module, page: str, categories: dict[str, Any]) -> None:
    where = f"unit '{unit.name}'"
    if unit.category is not None and categories and unit.category not in categories:
        ctx.err(
            _at(unit.category, unit),
            "unknown-category",
            f"{where} is in category '{unit.category}', which {module.title} does not define",
            did_you_mean(unit.category, list(categories)),
        )
    check_markdown(ctx, unit.intro, scope, unit, page)
    check_markdown(ctx, unit.notes, scope, unit, page)
    model_names = {slugify(m.name) for m in unit.models}
    for model in unit.models:
        check_profile(ctx, model.profile, "model", model, f"model '{model.name}'")
        check_rule_uses(ctx, model.rules, scope, model, f"model '{model.name}'", page)
    for ability in unit.abilities:
        check_markdown(ctx, ability.text, scope, ability, page)
    composition = unit.composition
    if composition:
        check_markdown(ctx, composition.text, scope, composition, page)
        for rng, label in ((composition.models, "model count"), (composition.per_army, "limit per army")):
            if rng and rng.min is not None and rng.max is not None and rng.min > rng.max:
                ctx.err(rng.loc, "range", f"{where}: {label} runs from {rng.min} down to {rng.max}")
        if composition.per_unit:
            _resolve(ctx, "units", composition.per_unit.unit, scope, composition.per_unit, "unit", where)
        for limit in composition.limits:
            if slugify(limit.model) not in model_names:
                ctx.err(
                    _at(limit.model, limit),
                    "unknown-model",
                    f"{where} limits model '{limit.model}', which the unit does not have",
                    did_you_mean(limit.model, [m.name for m in unit.models]),
                )
    if unit.weapons:
        weapons = unit.weapons
        check_markdown(ctx, weapons.text, scope, weapons, page)
        for name in weapons.fixed:
            _resolve(ctx, "weapons", name, scope, weapons, "weapon", where)
        for option in weapons.options:
            if not option.lists and not option.weapons:
                ctx.err(option.loc, "empty-option", f"{where}: a weapon option needs 'lists' or 'weapons'")
            if option.min > option.max:
                ctx.err(option.loc, "range", f"{where}: a weapon option asks for at least {option.min} but at most {option.max}")
            for name in option.lists:
                _resolve(ctx, "weapon_lists", name, scope, option, "weapon list", where)
            for name in option.weapons:
                _resolve(ctx, "weapons", name, scope, option, "weapon", where)
        for swap in weapons.swaps:
            for name in (swap.replace,) if isinstance(swap.replace, str) else swap.replace:
                if ctx.project.find("weapon_lists", name, scope) is not None:
                    _resolve(ctx, "weapon_lists", name, scope, swap, "weapon list", where)
                else:
                    _resolve(ctx, "weapons", name, scope, swap, "weapon", where)
            for name in swap.lists:
                _resolve(ctx, "weapon_lists", name, scope, swap, "weapon list", where)
            for name in swap.with_:
                if ctx.project.find("weapon_lists", name, scope) is not None:
                    _resolve(ctx, "weapon_lists", name, scope, swap, "weapon list", where)
                else:
                    _resolve(ctx, "weapons", name, scope, swap, "weapon", where)
        for by_model in weapons.by_model:
            if slugify(by_model.model) not in model_names:
                ctx.err(
                    _at(by_model.model, by_model),
                    "unknown-model",
                    f"{where} gives weapons to model '{by_model.model}', which the unit does not have",
                    did_you_mean(by_model.model, [m.name for m in unit.models]),
                )
            for name in by_model.fixed:
                _resolve(ctx, "weapons", name, scope, by_model, "weapon", where)
    if unit.upgrades:
        check_markdown(ctx, unit.upgrades.text, scope, unit.upgrades, page)
        for name in (*unit.upgrades.fixed, *unit.upgrades.option_names):
            _resolve(ctx, "upgrades", name, scope, unit.upgrades, "upgrade", where)
        for option in unit.upgrades.options:
            if not isinstance(option, str):
                for model_name in option.models:
                    if slugify(model_name) not in model_names:
                        ctx.err(
                            _at(model_name, option),
                            "unknown-model",
                            f"{where} offers '{option.name}' to model '{model_name}', which the unit does not have",
                            did_you_mean(model_name, [m.name for m in unit.models]),
                        )
    check_budgets(ctx, unit, scope, module)


def check_budgets(ctx: Context, unit: Unit, scope: Scope, module: Module) -> None:
    """A unit whose cheapest legal form already breaks a cap can never be taken."""
    from .render import cost_of_unit

    cost = cost_of_unit(ctx.project, scope, unit)
    if cost is None:
        return
    building = module.army_building
    currency = module.currency.name if module.currency else "points"
    if building and building.per_item_budget is not None:
        for model in unit.models:
            if model.points is not None and model.points > building.per_item_budget:
                ctx.err(
                    _at(model.points, model),
                    "budget",
                    f"model '{model.name}' costs {model.points} {currency}, more than the {building.per_item_budget} {currency} one may cost",
                )
    if building and building.budget is not None and cost.low > building.budget:
        ctx.err(
            unit.loc, "budget", f"unit '{unit.name}' costs at least {cost.low} {currency}, more than the whole budget of {building.budget}"
        )
    if unit.spending_cap is not None and unit.weapons:
        least = unit_cost(
            Unit(
                name=unit.name,
                models=tuple(Model(name=m.name, profile=m.profile, points=0) for m in unit.models[:1]),
                weapons=unit.weapons,
                composition=None,
            ),
            weapon_list=lambda n: _first(ctx.project.find("weapon_lists", n, scope)),
            weapon=lambda n: _first(ctx.project.find("weapons", n, scope)),
            upgrade=lambda n: None,
        )
        if least is not None and least.low > unit.spending_cap:
            ctx.err(
                _at(unit.spending_cap, unit),
                "budget",
                f"unit '{unit.name}': its cheapest weapons cost {least.low} {currency}, more than its spending cap of {unit.spending_cap}",
            )
    if building and building.categories and unit.category and building.game_sizes:
        category = next((c for c in building.categories if c.id == unit.category), None)
        sizes = [_largest_number(g.points) for g in building.game_sizes]
        largest = max((s for s in sizes if s is not None), default=None)
        if category and category.max_share is not None and largest:
            allowed = largest * category.max_share // 100
            if cost.low > allowed:
                ctx.warn(
                    unit.loc,
                    "category-share",
                    f"unit '{unit.name}' costs at least {cost.low} {currency}; {category.name} may use at most {category.max_share}% of the largest game ({largest}), {allowed} {currency}",
                )


def _first(found: Any) -> Any:
    if found is None:
        return None
    return found.item[0] if isinstance(found.item, list) else found.item


def _largest_number(value: ProfileValue) -> int | None:
    numbers = [int(n) for n in re.findall(r"\d+", str(value))]
    return max(numbers) if numbers else None


def check_built_model(ctx: Context, model: Any, scope: Scope, module: Module, page: str) -> None:
    where = f"'{model.name}'"
    base = _resolve(ctx, "models", model.base, scope, model, "model", where)
    upgrades = [u for name in model.upgrades if (u := _resolve(ctx, "upgrades", name, scope, model, "upgrade", where)) is not None]
    weapons = [w for name in model.weapons if (w := _resolve(ctx, "weapons", name, scope, model, "weapon", where)) is not None]
    check_markdown(ctx, model.text, scope, model, page)
    if base is None or len(upgrades) != len(model.upgrades) or len(weapons) != len(model.weapons):
        return
    for weapon in weapons:
        for wl in scope.chain():
            for candidate in wl.weapon_lists.values():
                if weapon in candidate.weapons:
                    ctx.used_lists.add(id(candidate))
    rules = module.army_building.cost if module.army_building else None
    built = build_model(base, upgrades, weapons, rules)
    printed = model.printed
    check_rule_uses(ctx, built.rules, scope, model, where, page)
    if printed is None:
        return
    if printed.points is not None and printed.points != built.points:
        ctx.err(
            _at(printed.points, printed), "points", f"{where} is printed at {printed.points} points, but its setup costs {built.points}"
        )
    if printed.profile is not None:
        columns = {c.key: c for c in ctx.project.system.profiles.model}
        for key, value in printed.profile.items():
            if key in built.profile and str(built.profile[key]) != str(value):
                label = columns[key].label if key in columns else key
                ctx.err(
                    _at(value, printed), "profile", f"{where} is printed with {label} {value}, but its setup gives {built.profile[key]}"
                )
    if printed.rules or printed.profile is not None:
        printed_rules = {str(r) for r in printed.rules}
        computed = {str(r) for r in built.rules}
        for rule in sorted(printed_rules - computed):
            ctx.err(
                _at(next(r for r in printed.rules if str(r) == rule), printed),
                "rules",
                f"{where} is printed with special rule '{rule}', which its setup does not give",
            )
        for rule in sorted(computed - printed_rules):
            ctx.err(printed.loc, "rules", f"{where}'s setup gives special rule '{rule}', which the source does not print")


# --- pages, links, unused definitions --------------------------------------------------------------


def check_pages(ctx: Context, content: dict[str, str], generated: dict[str, str], content_dir: str) -> None:
    owners: dict[str, str] = {}
    for entry in ctx.project.lists:
        if entry.page in owners:
            ctx.err(
                entry.army_list.loc,
                "page-collision",
                f"army list '{entry.key}' generates page '{entry.page}', which {owners[entry.page]} also generates",
            )
        owners[entry.page] = entry.file
    for page, source in sorted(generated.items()):
        if page in content:
            ctx.err(
                Location(f"{content_dir}/{page}.md", 1, 1),
                "page-collision",
                f"hand-written page {content_dir}/{page}.md has the same path as the page generated from {source}",
                "rename or remove one of them; generated pages never overwrite hand-written ones",
            )


def check_content_links(ctx: Context, content: dict[str, str], content_dir: str) -> None:
    from .render import find_directives

    project = ctx.project
    scope_for: dict[str, Scope] = {}
    core = next((project.scopes[m.id] for m in project.modules.values() if m.core), None)
    for page in content:
        module = PurePosixPath(page).parts[0]
        scope_for[page] = project.scopes.get(module) or core  # type: ignore[assignment]
    for page, text in sorted(content.items()):
        path = f"{content_dir}/{page}.md"
        directives, problems = find_directives(text, path)
        ctx.problems.extend(problems)
        for directive in directives:
            where = Location(path, directive.line, 1)
            if directive.name == "special-rules":
                if len(directive.args) != 1 or directive.args[0] not in project.scopes:
                    name = directive.args[0] if directive.args else ""
                    ctx.err(where, "directive", f"special-rules names unknown scope '{name}'", did_you_mean(name, list(project.scopes)))
                elif directive.options.get("kind", "unit") not in ("unit", "weapon"):
                    ctx.err(where, "directive", f"special-rules kind must be unit or weapon, not '{directive.options['kind']}'")
            elif directive.name == "table":
                target = directive.args[0] if directive.args else ""
                module_id, _, table_id = target.partition("/")
                scope = project.scopes.get(module_id)
                if scope is None or table_id not in scope.tables:
                    ctx.err(
                        where,
                        "directive",
                        f"table '{target}' does not exist",
                        did_you_mean(target, [f"{s.key}/{t}" for s in project.scopes.values() for t in s.tables if "/" not in s.key]),
                    )
            elif directive.name != "modules":
                ctx.err(
                    where,
                    "directive",
                    f"unknown directive '{directive.name}'",
                    did_you_mean(directive.name, ["special-rules", "table", "modules"]) or "expected special-rules, table or modules",
                )
        scope = scope_for.get(page)
        if scope is None:
            continue
        for match in RULE_LINK.finditer(text):
            use = match["use"].strip()
            line = text.count("\n", 0, match.start()) + 1
            column = match.start() - text.rfind("\n", 0, match.start())
            found = project.rule(use, scope)
            if found is None:
                ctx.err(
                    Location(path, line, column),
                    "unknown-rule",
                    f"[[{use}]] names no special rule in {_scope_names(scope)}",
                    did_you_mean(RuleUse.parse(use).name, [r.name for s in scope.chain() for r in s.rules.values()]),
                )
            else:
                ctx.used_rules[(found.scope, slugify(found.item.name))].append((page, Location(path, line, column)))


def check_unused(ctx: Context) -> None:
    """Weapon lists, upgrades and module or list special rules that nothing uses are warnings.

    Core rules are a library every module draws from, so an unused core rule is not reported.
    """
    project = ctx.project
    for entry in project.lists:
        uses_options = any(
            s.unit is not None and (s.unit.weapons is not None or s.unit.upgrades is not None)
            for s in walk_sections(entry.army_list.sections)
        ) or any(s.built_model is not None for s in walk_sections(entry.army_list.sections))
        referenced_by_others = any(entry.key in other.army_list.uses for other in project.lists)
        if not uses_options and not referenced_by_others:
            continue
        if referenced_by_others:
            continue
        for section in walk_sections(entry.army_list.sections):
            wl = section.weapon_list
            if wl is not None and id(wl) not in ctx.used_lists and not any(id(w) in ctx.used_weapons for w in wl.weapons):
                ctx.warn(section.weapon_list.loc, "unused", f"weapon list '{section.weapon_list.name}' is not offered to any unit")
            if section.upgrade_list is not None:
                for upgrade in section.upgrade_list.upgrades:
                    if id(upgrade) not in ctx.used_upgrades:
                        ctx.warn(upgrade.loc, "unused", f"upgrade '{upgrade.name}' is not offered to any unit")
    for scope in project.scopes.values():
        module = project.modules.get(scope.key)
        if module is not None and module.core:
            continue
        for rule in scope.rules.values():
            if not rule.optional and (scope.key, slugify(rule.name)) not in ctx.used_rules:
                ctx.warn(rule.loc, "unused", f"special rule '{rule.name}' is defined in {scope.title} but nothing uses it")


SMALL_WORDS = frozenset(["a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "with"])
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def named_things(project: Project) -> Iterable[tuple[str, str, Record]]:
    """(kind, name, record) for everything a designer names: the names readers search for."""
    for module in project.modules.values():
        for rule in module.special_rules:
            yield "special rule", rule.name, rule
        for table in module.tables:
            yield "table", table.name, table
    for entry in project.lists:
        for rule in entry.army_list.special_rules:
            yield "special rule", rule.name, rule
        for section in walk_sections(entry.army_list.sections):
            if section.heading:
                yield "heading", section.heading, section
            if section.unit is not None:
                yield "unit", section.unit.name, section.unit
                for model in section.unit.models:
                    yield "model", model.name, model
            if section.weapon_list is not None:
                yield "weapon list", section.weapon_list.name, section.weapon_list
                for weapon in section.weapon_list.weapons:
                    yield "weapon", weapon.name, weapon
            if section.upgrade_list is not None:
                yield "upgrade list", section.upgrade_list.name, section.upgrade_list
                for upgrade in section.upgrade_list.upgrades:
                    yield "upgrade", upgrade.name, upgrade
            if section.built_model is not None:
                yield "model", section.built_model.name, section.built_model


def check_names(ctx: Context, words: frozenset[str]) -> None:
    """Misspelt or oddly cased names: the source's commonest slip, and one no reference check sees.

    A word passes when the English dictionary or the project's word list (data/words.txt) knows it;
    acronyms (all capitals) and words with digits are left alone.
    """
    from spellchecker import SpellChecker

    dictionary = SpellChecker(distance=1)
    for kind, name, record in named_things(ctx.project):
        where = _at(name, record)
        tokens = WORD.findall(str(name))
        parts = [p for t in tokens for p in t.split("-") if p]
        unknown = [
            p for p in parts if not p.isupper() and p.lower().strip("'") not in words and not dictionary.known([p.lower().strip("'")])
        ]
        for token in dict.fromkeys(unknown):
            guess = dictionary.correction(token.lower())
            hint = (
                f"did you mean '{guess}'? If '{token}' is right, add it to data/words.txt"
                if guess and guess != token.lower()
                else f"if '{token}' is right, add it to data/words.txt"
            )
            ctx.warn(where, "spelling", f"{kind} '{name}': '{token}' is not a known word", hint)
        titled = [t for t in tokens[1:] if t.lower() not in SMALL_WORDS and len(t) > 2]
        if kind != "heading" and titled and any(t[0].islower() for t in titled) and any(t[0].isupper() for t in tokens[1:]) is False:
            lower = next(t for t in titled if t[0].islower())
            ctx.warn(
                where,
                "name-case",
                f"{kind} '{name}' is not in title case ('{lower}')",
                "names are written in title case: "
                + " ".join(t if t.lower() in SMALL_WORDS else t[:1].upper() + t[1:] for t in str(name).split(" ")),
            )


def read_words(path: Path) -> frozenset[str]:
    """The project's word list: one word a line, '#' starts a comment."""
    if not path.is_file():
        return frozenset()
    words = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if word:
            words.add(word)
    return frozenset(words)


def check_errata_patches(ctx: Context, root: Path, data_dir: str) -> None:
    """Each erratum's as-published patch must apply: its file is in the project and `find` occurs once."""
    base = (root / data_dir).resolve()
    top = root.resolve()
    for module in ctx.project.modules.values():
        for erratum in module.errata:
            patch = erratum.as_published
            if patch is None:
                continue
            target = (base / patch.file).resolve()
            if top not in target.parents:
                ctx.err(_at(patch.file, patch), "unsafe-path", f"erratum patch file {patch.file!r} is outside the project")
                continue
            try:
                text = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                ctx.err(_at(patch.file, patch), "missing", f"erratum patch file {patch.file!r} cannot be read: {exc}")
                continue
            count = text.count(patch.find)
            if count != 1:
                ctx.err(
                    _at(patch.find, patch),
                    "erratum-patch",
                    f"erratum text to find occurs {count} times in {patch.file}; it must occur exactly once",
                    "include more of the surrounding line",
                )


def rule_usage(project: Project, site_map: SiteMap) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Where each rule is used, as (page, page title) pairs, for the rules index."""
    ctx = Context(project, [], defaultdict(list), set(), set())
    for entry in project.lists:
        check_army_list(ctx, entry)
    usage: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key, places in ctx.used_rules.items():
        pages = sorted({page for page, _ in places})
        usage[key] = [(page, site_map.titles.get(page, page)) for page in pages]
    return usage


__all__ = ["ArmyList", "Section", "check_project", "rule_usage", "value_matches"]
