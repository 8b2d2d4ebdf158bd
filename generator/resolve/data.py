"""Bind every name the data uses: rules, weapons, weapon lists, upgrades, units, models, categories.

One walk over the modules and army lists, in the same scopes the catalogue defines; each name is
recorded with where it was written and what it binds to (or nothing), and each built model whose
parts all bind is built once, so that the checker and the site read the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalogue import ListEntry, Project, Scope, walk_sections
from ..layout import RULE_LINK
from ..loader import LocStr, loc_of
from ..model import (
    BuiltModel,
    Model,
    Module,
    Record,
    Section,
    Unit,
    UnitUpgrades,
    UnitWeapons,
    Upgrade,
    Weapon,
)
from ..points import BuiltProfile, build_model
from ..problems import Location
from ..schema import markdown_strings
from .links import Site, data_links, may_link
from .refs import CategoryRef, ModelRef, NameRef, PageLink, PageRef, RuleRef


def at(value: Any, record: Record) -> Location:
    """Where a value of a record was written, else where the record was."""
    return loc_of(value, record.loc)


@dataclass
class DataBindings:
    """Every reference made in data files, in walk order."""

    rules: list[RuleRef] = field(default_factory=list)
    names: list[NameRef] = field(default_factory=list)
    models: list[ModelRef] = field(default_factory=list)
    categories: list[CategoryRef] = field(default_factory=list)
    pages: list[PageRef] = field(default_factory=list)
    page_links: list[PageLink] = field(default_factory=list)
    built: dict[int, BuiltProfile] = field(default_factory=dict)
    #: (record, field name, text) of every Markdown string under each record whose texts were read, by its id.
    texts: dict[int, tuple[tuple[Record, str, str], ...]] = field(default_factory=dict)


@dataclass
class Binder:
    """Walks the data of one project, binding names in the scope of the module or list they are in."""

    project: Project
    site: Site
    out: DataBindings = field(default_factory=DataBindings)

    # -- rules --

    def rule_uses(self, uses: Any, scope: Scope, owner: Record, name: str, page: str, kind: str | None = None) -> None:
        for use in uses:
            self.out.rules.append(self._rule_ref(use, at(use, owner), scope, name, page, kind))

    def _rule_ref(
        self, use: str, where: Location, scope: Scope, name: str, page: str, kind: str | None, named: bool = False, offset: int = -1
    ) -> RuleRef:
        parsed = self.project.parse_use(use, scope)
        return RuleRef(use, where, name, scope, page, kind, parsed, self.project.rule(use, scope), named=named, offset=offset)

    def texts(self, root: Record, scope: Scope | None, page: str) -> None:
        """[[Rule]] links and links to pages in every Markdown field under a record, as the model declares
        them (`markdown=True`): a field added to the model is read here without a line more."""
        found = self.out.texts[id(root)] = tuple(markdown_strings(root))
        for owner, _name, text in found:
            where = at(text, owner)
            if "[[" in text:  # most texts have none: found without the regular expression
                for match in RULE_LINK.finditer(text):
                    self.out.rules.append(self._text_link(match["use"].strip(), where, scope, page, match.start()))
            if may_link(text):
                self.out.page_links += data_links(text, where, page, self.site)

    def _text_link(self, use: str, where: Location, scope: Scope | None, page: str, offset: int) -> RuleRef:
        if scope is None:  # a site-wide text in a project without core rules: no rule to link to
            return RuleRef(use, where, "text link", None, page, None, self.project.parse_use(use), None, offset=offset)
        return self._rule_ref(LocStr(use, where), where, scope, "text link", page, None, offset=offset)

    def rule_names(self, names: Any, scope: Scope, owner: Record, name: str, page: str) -> None:
        """Rules named as themselves, not used with a value (`Transport`, of the rule Transport X)."""
        for use in names:
            self.out.rules.append(self._rule_ref(use, at(use, owner), scope, name, page, "unit", named=True))

    # -- catalogue names --

    def name(self, table: str, name: str, scope: Scope, owner: Record, what: str, context: str) -> tuple[object, ...]:
        found = self.project.find(table, name, scope)
        items: tuple[object, ...] = ()
        if found is not None:
            items = tuple(found.item) if isinstance(found.item, list) else (found.item,)
        self.out.names.append(NameRef(table, what, name, at(name, owner), context, scope, items))
        return items

    def weapon_or_list(self, name: str, scope: Scope, owner: Record, context: str) -> None:
        """Swaps name single weapons or whole weapon lists; a list wins where both exist."""
        if self.project.find("weapon_lists", name, scope) is not None:
            self.name("weapon_lists", name, scope, owner, "weapon list", context)
        else:
            self.name("weapons", name, scope, owner, "weapon", context)

    def model_of(self, unit: Unit, model: str, owner: Record, what: str) -> None:
        self.out.models.append(ModelRef(unit, model, at(model, owner), what))

    # -- modules --

    def module(self, module: Module) -> None:
        scope = self.project.module_scope(module.id)
        page = module.pages[0] if module.pages else f"{module.id}/index"
        self.texts(module, scope, page)
        for path in module.pages:
            self.out.pages.append(PageRef(path, at(path, module), f"module '{module.id}'", path in self.site.pages, True))
        for erratum in module.errata:
            self.out.pages.append(PageRef(erratum.page, at(erratum.page, erratum), "erratum", erratum.page in self.site.pages, False))
        if module.army_building:
            self.game_sizes(module, scope, page)
            ids = {c.id: c for c in module.army_building.categories}
            for category in module.army_building.categories:
                if category.counts_as:
                    target = ids.get(category.counts_as)
                    where = at(category.counts_as, category)
                    self.out.categories.append(CategoryRef(category.counts_as, where, category.id, module, target, "counts_as"))

    def game_sizes(self, module: Module, scope: Scope, page: str) -> None:
        """The categories whose units a game size counts, and the special rules it keeps out of an army or
        limits, named in the module's scope."""
        assert module.army_building is not None
        ids = {c.id: c for c in module.army_building.categories}
        for size in module.army_building.game_sizes:
            where = f"game size '{size.name}'"
            for category in size.category_units:
                self.out.categories.append(CategoryRef(category, at(category, size), where, module, ids.get(category), "game_size"))
            self.rule_names(size.excluded_rules, scope, size, where, page)
            for ratio in size.rule_ratios:
                self.rule_names((ratio.rule, *ratio.without), scope, ratio, where, page)

    # -- army lists --

    def army_list(self, entry: ListEntry) -> None:
        army_list = entry.army_list
        scope = self.project.list_scope(entry)
        module = self.project.modules[entry.module]
        page = entry.page
        self.texts(army_list, scope, page)
        for section in walk_sections(army_list.sections):
            self.section(section, scope, module, page)

    def section(self, section: Section, scope: Scope, module: Module, page: str) -> None:
        if section.unit is not None:
            self.unit(section.unit, scope, module, page)
        if section.weapon_list is not None:
            for weapon in section.weapon_list.weapons:
                self.weapon(weapon, scope, page)
        if section.upgrade_list is not None:
            for upgrade in section.upgrade_list.upgrades:
                self.rule_uses(upgrade.grants, scope, upgrade, f"upgrade '{upgrade.name}'", page)
        if section.built_model is not None:
            self.built_model(section.built_model, scope, module, page)

    def weapon(self, weapon: Weapon, scope: Scope, page: str) -> None:
        name = f"weapon '{weapon.name}'"
        for mode in weapon.modes:
            self.rule_uses(mode.rules, scope, mode, f"{name} ({mode.name})", page, "weapon")
        self.rule_uses(weapon.rules, scope, weapon, name, page, "weapon")

    def unit(self, unit: Unit, scope: Scope, module: Module, page: str) -> None:
        where = f"unit '{unit.name}'"
        if unit.category is not None and module.army_building and module.army_building.categories:
            target = next((c for c in module.army_building.categories if c.id == unit.category), None)
            self.out.categories.append(CategoryRef(unit.category, at(unit.category, unit), where, module, target))
        for model in unit.models:
            self.rule_uses(model.rules, scope, model, f"model '{model.name}'", page, "unit")
        composition = unit.composition
        if composition:
            if composition.per_unit:
                self.name("units", composition.per_unit.unit, scope, composition.per_unit, "unit", where)
            if composition.per_army:
                for other in composition.per_army.shared_with:
                    self.name("units", other, scope, composition.per_army, "unit", where)
            for limit in composition.limits:
                self.model_of(unit, limit.model, limit, f"{where} limits model '{limit.model}'")
        if unit.weapons:
            self.unit_weapons(unit, unit.weapons, scope, page)
        if unit.upgrades:
            self.unit_upgrades(unit, unit.upgrades, scope, page)

    def unit_weapons(self, unit: Unit, weapons: UnitWeapons, scope: Scope, page: str) -> None:
        where = f"unit '{unit.name}'"
        for name in weapons.fixed:
            self.name("weapons", name, scope, weapons, "weapon", where)
        for option in weapons.options:
            for name in option.lists:
                self.name("weapon_lists", name, scope, option, "weapon list", where)
            for name in option.weapons:
                self.name("weapons", name, scope, option, "weapon", where)
        for swap in weapons.swaps:
            for name in (*((swap.replace,) if isinstance(swap.replace, str) else swap.replace), *swap.with_):
                self.weapon_or_list(name, scope, swap, where)
            for name in swap.lists:
                self.name("weapon_lists", name, scope, swap, "weapon list", where)
        for by_model in weapons.by_model:
            self.model_of(unit, by_model.model, by_model, f"{where} gives weapons to model '{by_model.model}'")
            for name in by_model.fixed:
                self.name("weapons", name, scope, by_model, "weapon", where)

    def unit_upgrades(self, unit: Unit, upgrades: UnitUpgrades, scope: Scope, page: str) -> None:
        where = f"unit '{unit.name}'"
        for name in (*upgrades.fixed, *upgrades.option_names):
            self.name("upgrades", name, scope, upgrades, "upgrade", where)
        for offered in upgrades.options:
            if not isinstance(offered, str):
                for model_name in offered.models:
                    self.model_of(unit, model_name, offered, f"{where} offers '{offered.name}' to model '{model_name}'")

    def built_model(self, model: BuiltModel, scope: Scope, module: Module, page: str) -> None:
        """Bind a built model's parts; when all bind, build it once and bind the rules it ends with."""
        where = f"'{model.name}'"
        bases = [b for b in self.name("models", model.base, scope, model, "model", where) if isinstance(b, Model)]
        upgrades = [self.name("upgrades", name, scope, model, "upgrade", where) for name in model.upgrades]
        weapons = [self.name("weapons", name, scope, model, "weapon", where) for name in model.weapons]
        chosen_upgrades = [u[0] for u in upgrades if u and isinstance(u[0], Upgrade)]
        chosen_weapons = [w[0] for w in weapons if w and isinstance(w[0], Weapon)]
        if not bases or len(chosen_upgrades) != len(model.upgrades) or len(chosen_weapons) != len(model.weapons):
            return
        rules = module.army_building.cost if module.army_building else None
        built = build_model(bases[0], chosen_upgrades, chosen_weapons, rules)
        self.out.built[id(model)] = built
        self.rule_uses(built.rules, scope, model, where, page)


def bind_data(project: Project, site: Site) -> DataBindings:
    """Every reference the modules and army lists make, bound in their scopes; `site`: what links may lead to."""
    binder = Binder(project, site)
    for module in project.modules.values():
        binder.module(module)
    for entry in project.lists:
        binder.army_list(entry)
    # the site-wide texts are read in the core rules' scope: the system's on Released Games and Recent Changes,
    # the releases' on Recent Changes
    landing = project.system.landing_pages
    if landing.released or landing.changes:
        binder.texts(project.system, project.core_scope, landing.changes or landing.released or "")
    if landing.changes:
        for release in project.releases:
            binder.texts(release, project.core_scope, landing.changes)
    return binder.out


__all__ = ["DataBindings", "bind_data"]
