"""The resolved model as open, versioned JSON: one document per module.

Other tools (and the army builder in the site) read these documents instead of keeping their own
copy of the data. Every name is resolved here, once, through the same catalogue scopes the checker
uses; the document carries ids, so a reader never repeats the scope rules. Costs are exported as the
inputs of `points.build_model` (model, weapon and upgrade costs and the module's cost rules), and the
roster checker's message templates travel with the data so that every runtime prints the same words.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from .catalogue import ListEntry, Project, Scope, walk_sections
from .layout import relative_file
from .model import (
    BuiltModel,
    Composition,
    CostRules,
    GameSize,
    Labels,
    Model,
    Module,
    Range,
    SpecialRule,
    Swap,
    Terms,
    Unit,
    UnitUpgrades,
    UnitWeapons,
    Upgrade,
    Weapon,
    slugify,
)
from .points import cost

#: Bumped whenever a reader would misread a document of the previous version.
FORMAT_VERSION = 1

#: Where a module's document is published in the site (cannot collide with a page: pages end in .html).
DATA_PATH = "{module}/data.json"
#: Where the JSON Schema of the documents is published.
SCHEMA_PATH = "assets/rules-export.schema.json"

#: The roster checker's problem codes, read from the `Labels` fields that word them (model.roster_message).
#: Placeholders are `{name}`; the Python checker and the builder page fill them from the same values, so
#: both print the same words, in the game's language.
_ROSTER_LABELS = {f.metadata["problem_code"]: f.name for f in dataclasses.fields(Labels) if "problem_code" in f.metadata}
ROSTER_CODES: tuple[str, ...] = tuple(_ROSTER_LABELS)


def roster_messages(labels: Labels) -> dict[str, str]:
    """The message template of every roster problem code, in the game's words."""
    return {code: getattr(labels, name) for code, name in _ROSTER_LABELS.items()}


#: The words `roster-format` problems put in (what a value must be), by the key the checkers ask for.
_ROSTER_WORDS = {f.metadata["roster_word"]: f.name for f in dataclasses.fields(Labels) if "roster_word" in f.metadata}


def roster_words(labels: Labels, terms: Terms | None = None) -> dict[str, str]:
    """The words roster problems put in, in the game's words: those of `roster-format` problems by key ('names':
    'a list of names'), and 'army', what the module's rosters build (its `terms`, else the system's label)."""
    words = {key: getattr(labels, name) for key, name in _ROSTER_WORDS.items()}
    words["army"] = (terms.army if terms is not None else None) or labels.army
    words["did_you_mean"] = labels.roster_did_you_mean
    return words


#: The most a roster may be, stated once: `cadence roster` and the builder page both read these from the
#: module's document (`limits`), for a roster file, a link, and what the page keeps between visits.
ROSTER_LIMITS = {"bytes": 256 * 1024, "units": 200}


@dataclass
class ModuleExport:
    """One module's document, and the model objects behind its ids (for costing in Python)."""

    data: dict[str, Any]
    models: dict[str, Model] = field(default_factory=dict)
    weapons: dict[str, Weapon] = field(default_factory=dict)
    upgrades: dict[str, Upgrade] = field(default_factory=dict)
    cost_rules: CostRules | None = None


def _range(rng: Range | None) -> dict[str, Any] | None:
    if rng is None:
        return None
    return {"min": rng.min, "max": rng.max}


def _number(value: object) -> int | None:
    """The largest whole number written in a game size ('500-1000' → 1000, 'up to 2000' → 2000)."""
    digits = "".join(c if c.isdigit() else " " for c in str(value)).split()
    return max((int(d) for d in digits), default=None)


class _ListExporter:
    """Resolves one army list's units, weapons, upgrades and rules into id-keyed tables."""

    def __init__(self, project: Project, entry: ListEntry, out: ModuleExport, rules: dict[str, Any]) -> None:
        self.project = project
        self.entry = entry
        self.scope: Scope = project.list_scope(entry)
        self.out = out
        self.rules = rules
        self.weapons: dict[str, Any] = {}
        self.upgrades: dict[str, Any] = {}
        self._ids: dict[int, str] = {}
        #: Lookups the list's units repeat (the same weapon list or rule in unit after unit), made once.
        self._named: dict[str, list[str]] = {}
        self._uses: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        # the weapon list each weapon is printed in (by object): its limit per army holds for the weapon
        self._list_of = {id(w): wl for s in self.scope.chain() for wl in s.weapon_lists.values() for w in wl.weapons}

    def _key(self, kind: str, obj: Any) -> str:
        """A stable id for a weapon or upgrade object: its slug, numbered on a clash within the list."""
        if id(obj) in self._ids:
            return self._ids[id(obj)]
        table = self.weapons if kind == "w" else self.upgrades
        base = f"{self.entry.army_list.id}/{slugify(obj.name)}"
        key, n = base, 2
        while key in table:
            key, n = f"{base}-{n}", n + 1
        self._ids[id(obj)] = key
        return key

    def rule_uses(self, uses: tuple[str, ...]) -> list[dict[str, Any]]:
        """Each use as written, with the id of the rule it names (None when it names none)."""
        key = tuple(uses)
        found = self._uses.get(key)
        if found is None:
            found = self._uses[key] = _rule_uses(self.project, self.rules, key, self.scope)
        return [dict(use) for use in found]  # each place its own copy, as if looked up there

    def weapon(self, weapon: Weapon) -> str:
        key = self._key("w", weapon)
        if key not in self.weapons:
            printed_in = self._list_of.get(id(weapon))
            self.weapons[key] = {
                "name": weapon.name,
                "list": printed_in.name if printed_in else None,
                "max_per_army": printed_in.max_per_army if printed_in else None,
                "points": weapon.points,
                "profile": dict(weapon.profile or {}),
                "rules": self.rule_uses(weapon.rules),
                "modes": [{"name": m.name, "profile": dict(m.profile), "rules": self.rule_uses(m.rules)} for m in weapon.modes],
            }
            self.out.weapons[key] = weapon
        return key

    def upgrade(self, upgrade: Upgrade) -> str:
        key = self._key("u", upgrade)
        if key not in self.upgrades:
            self.upgrades[key] = {
                "name": upgrade.name,
                "type": upgrade.type,
                "points": upgrade.points,
                "cost": cost(upgrade.points),
                "cost_per_other_upgrade": upgrade.cost_per_other_upgrade,
                "effect": _plain(upgrade.effect),
                "limit": upgrade.limit,
                "max_per_army": upgrade.max_per_army,
                "max_per_model": upgrade.max_per_model,
                "sets": dict(upgrade.sets),
                "grants": self.rule_uses(upgrade.grants),
            }
            self.out.upgrades[key] = upgrade
        return key

    def weapons_named(self, name: str) -> list[str]:
        """A name in a unit's options: a weapon list (all its weapons) or one weapon."""
        named = self._named.get(name)
        if named is None:
            named = self._named[name] = self._weapons_named(name)
        return list(named)

    def _weapons_named(self, name: str) -> list[str]:
        found_list = self.project.one("weapon_lists", name, self.scope)
        if found_list is not None:
            return [self.weapon(w) for w in found_list.weapons]
        found = self.project.one("weapons", name, self.scope)
        return [self.weapon(found)] if found is not None else []

    def unit(self, unit: Unit, unit_ids: dict[str, str]) -> dict[str, Any]:
        """A unit with its models, what it is made of, and the weapons and upgrades it may take, by id."""
        uid = f"{self.entry.army_list.id}/{unit.id or slugify(unit.name)}"
        models = []
        for index, model in enumerate(unit.models):
            self.out.models[f"{uid}#{index}"] = model
            models.append(
                {"name": model.name, "points": model.points, "profile": dict(model.profile), "rules": self.rule_uses(model.rules)}
            )
        return {
            "id": uid,
            "name": unit.name,
            "category": unit.category,
            "spending_cap": unit.spending_cap,
            "spending_cap_own_cost": unit.spending_cap_own_cost,
            "models": models,
            "composition": _composition(unit.composition, unit_ids),
            "weapons": self.weapon_choices(unit.weapons),
            "upgrades": self.upgrade_choices(unit.upgrades),
        }

    def ready_made(self, model: BuiltModel) -> dict[str, Any] | None:
        """A built model (a fleet's ship) offered as a unit of one: its base, with its upgrades and weapons fixed.

        Its cost is then `build_model` of the same parts, the figure the checker compares with the printed one.
        """
        base = self.project.one("models", model.base, self.scope)
        if base is None:
            return None
        uid = f"{self.entry.army_list.id}/{slugify(model.name)}"
        self.out.models[f"{uid}#0"] = base
        upgrades = [self.upgrade(u) for n in model.upgrades if (u := self.project.one("upgrades", n, self.scope)) is not None]
        return {
            "id": uid,
            "name": model.name,
            "category": None,
            "spending_cap": None,
            "spending_cap_own_cost": False,
            "models": [{"name": model.name, "points": base.points, "profile": dict(base.profile), "rules": self.rule_uses(base.rules)}],
            "composition": _composition(None, {}),
            "weapons": {**self.weapon_choices(None), "fixed": self.weapons_in(model.weapons)},
            "upgrades": {**self.upgrade_choices(None), "fixed": upgrades},
        }

    def weapons_in(self, names: Iterable[str]) -> list[str]:
        """The ids of every weapon the names stand for, in order (a list's name stands for all its weapons)."""
        return [k for n in names for k in self.weapons_named(n)]

    def weapon_choices(self, weapons: UnitWeapons | None) -> dict[str, Any]:
        """What a unit's models carry (`fixed`, `by_model`) and may choose (`options`, `swaps`)."""
        if weapons is None:
            return {"fixed": [], "by_model": {}, "options": [], "swaps": [], "same": False, "total": None}
        carried = {k for names in (weapons.fixed, *(m.fixed for m in weapons.by_model)) for k in self.weapons_in(names)}
        return {
            "fixed": self.weapons_in(weapons.fixed),
            "by_model": {m.model: self.weapons_in(m.fixed) for m in weapons.by_model},
            "options": [
                {
                    "weapons": self.weapons_in((*o.lists, *o.weapons)),
                    "min": o.min,
                    "max": o.max,
                    "models": o.models,
                    "label": _label((*o.lists, *o.weapons)),
                }
                for o in weapons.options
            ],
            "swaps": [self.swap(s, carried) for s in weapons.swaps],
            "same": bool(weapons.same),
            "total": _range(weapons.total),
        }

    def swap(self, swap: Swap, carried: set[str]) -> dict[str, Any]:
        """A swap: what it may take, and what it gives up.

        A name it replaces that models carry (`fixed`) is given up itself, every such name (`gives_up`,
        one group of ids per name); a name of an optional list gives up one choice from that list
        (`in_place_of`), so the new weapon fills that choice's place.
        """
        replaced = (swap.replace,) if isinstance(swap.replace, str) else swap.replace
        groups = [self.weapons_in((name,)) for name in replaced]
        return {
            "with": self.weapons_in((*swap.with_, *swap.lists)),
            "models": swap.models,
            "gives_up": [g for g in groups if carried & set(g)],
            "in_place_of": [k for g in groups if not carried & set(g) for k in g],
            "label": _label(replaced),
        }

    def upgrade_choices(self, upgrades: UnitUpgrades | None) -> dict[str, Any]:
        """The upgrades every model has, those it may take (optionally only some models), and how many."""
        if upgrades is None:
            return {"fixed": [], "options": [], "min": None, "max": None}
        fixed = [self.upgrade(u) for n in upgrades.fixed if (u := self.project.one("upgrades", n, self.scope))]
        options = []
        for option in upgrades.options:
            name, models = (option, []) if isinstance(option, str) else (option.name, list(option.models))
            found = self.project.one("upgrades", name, self.scope)
            if found:
                options.append({"upgrade": self.upgrade(found), "models": models})
        return {"fixed": fixed, "options": options, "min": upgrades.min, "max": upgrades.max}

    def ready_made_units(self) -> list[dict[str, Any]]:
        """The list's own built models, each a unit of one."""
        built = (s.built_model for s in walk_sections(self.entry.army_list.sections) if s.built_model is not None)
        return [unit for model in built if (unit := self.ready_made(model)) is not None]

    def everything_in(self, scopes: list[Scope]) -> None:
        """Every weapon and upgrade in scope, so that a roster naming one the unit may not take is told
        so, rather than told it does not exist."""
        for weapon in (w for s in scopes for found in s.weapons.values() for w in found):
            self.weapon(weapon)
        for upgrade in (u for s in scopes for found in s.upgrades.values() for u in found):
            self.upgrade(upgrade)

    def export(self) -> dict[str, Any]:
        scopes = [s for s in self.scope.chain() if "/" in s.key]
        units = list({id(u): u for s in scopes for u in s.units.values()}.values())
        unit_ids = {slugify(u.id or u.name): f"{self.entry.army_list.id}/{u.id or slugify(u.name)}" for u in units}
        exported = [self.unit(u, unit_ids) for u in units] + self.ready_made_units()
        self.everything_in(scopes)
        return {
            "id": self.entry.army_list.id,
            "name": self.entry.army_list.name,
            "page": self.entry.page,
            "units": exported,
            "weapons": self.weapons,
            "upgrades": self.upgrades,
        }


def _rule_uses(project: Project, rules: dict[str, Any], uses: Iterable[str], scope: Scope) -> list[dict[str, Any]]:
    """Each use (or rule name) as written, with the id of the rule it names in `scope` (None when it names none);
    each rule named is added to the document's `rules` under that id."""
    out = []
    for use in uses:
        found = project.rule(use, scope)
        out.append({"text": str(use), "rule": _rule(project, rules, found.item, found.scope) if found else None})
    return out


def _rule(project: Project, rules: dict[str, Any], rule: SpecialRule, scope_key: str) -> str:
    """The rule's id in the document (`<scope>#<id>`: the same wherever it is named from)."""
    key = f"{scope_key}#{rule.id or slugify(rule.name)}"
    if key not in rules:
        from .render import plain

        rules[key] = {"name": rule.name, "title": project.rule_title(rule), "kind": rule.kind, "text": plain(rule.text)}
    return key


def _game_size(project: Project, module: Module, size: GameSize, rules: dict[str, Any]) -> dict[str, Any]:
    """A game size: its points, and the unit counts and special rules that hold in a game of exactly `limit` points."""
    scope = project.module_scope(module.id)
    return {
        "name": size.name,
        "points": size.points,
        "limit": _number(size.points),
        "category_units": {k: _range(r) for k, r in size.category_units.items()} if size.category_units else None,
        "excluded_rules": _rule_uses(project, rules, size.excluded_rules, scope),
        "rule_ratios": [
            {
                "rule": _rule_uses(project, rules, (ratio.rule,), scope)[0],
                "max": ratio.max,
                "without": _rule_uses(project, rules, ratio.without, scope),
            }
            for ratio in size.rule_ratios
        ],
    }


def _composition(composition: Composition | None, unit_ids: dict[str, str]) -> dict[str, Any]:
    """How many models a unit has and how often an army takes it, with other units named by id."""
    if composition is None:
        return {"models": None, "per_army": None, "shared_with": [], "per_unit": None, "limits": [], "taken_in": None}
    per_army, per_unit = composition.per_army, composition.per_unit
    return {
        "models": _range(composition.models),
        "per_army": _range(per_army),
        "shared_with": [unit_ids.get(slugify(n), n) for n in (per_army.shared_with if per_army else ())],
        "per_unit": {"unit": unit_ids.get(slugify(per_unit.unit), per_unit.unit), "max": per_unit.max} if per_unit else None,
        "limits": [{"model": limit.model, "min": limit.min, "max": limit.max} for limit in composition.limits],
        "taken_in": composition.taken_in,
    }


def _label(names: Iterable[str]) -> str:
    """Names as one label for messages ('Standard Sidearms / Standard Weapons'): data words only."""
    return " / ".join(names)


def _plain(text: str) -> str:
    from .render import plain

    return plain(text) if text else ""


def _module_info(project: Project, module: Module, rules: dict[str, Any]) -> dict[str, Any]:
    building = module.army_building
    terms = module.terms.over(project.system.labels)
    return {
        "id": module.id,
        "title": module.title,
        "currency": {"name": module.currency.name, "label": module.currency.label} if module.currency else None,
        "terms": {k: terms[k] for k in ("model", "weapon", "upgrade", "effect", "rules", "count", "type", "points_unit")},
        "army_building": None
        if building is None
        else {
            "budget": building.budget,
            "max_units": building.max_units,
            "per_item_budget": building.per_item_budget,
            "pooled_budget_per_item": building.pooled_budget_per_item,
            "categories": [
                {
                    "id": c.id,
                    "name": c.name,
                    "min_share": c.min_share,
                    "max_share": c.max_share,
                    "units": _range(c.units),
                    "counts_as": c.counts_as,
                    "min_game_points": c.min_game_points,
                }
                for c in building.categories
            ],
            "reinforcements": {"name": building.reinforcements.name, "points": building.reinforcements.points}
            if building.reinforcements
            else None,
            "game_sizes": [_game_size(project, module, g, rules) for g in building.game_sizes],
            "cost": {
                "surcharges": [{"min_upgrades": s.min_upgrades, "points": s.points} for s in building.cost.surcharges],
                "weapons_count_as_upgrades": building.cost.weapons_count_as_upgrades,
            }
            if building.cost
            else None,
            "text": _plain(building.text),
        },
    }


def buildable_lists(project: Project, module: Module) -> list[ListEntry]:
    """The module's lists a roster can be built from: those with units in scope."""
    return [e for e in project.lists if e.module == module.id and any(s.units for s in project.list_scope(e).chain() if "/" in s.key)]


def export_module(project: Project, module: Module) -> ModuleExport:
    """The module's document: system, module, lists with resolved units, rules used, messages."""
    system = project.system
    rules: dict[str, Any] = {}
    out = ModuleExport(data={}, cost_rules=module.army_building.cost if module.army_building else None)
    lists = [_ListExporter(project, entry, out, rules).export() for entry in buildable_lists(project, module)]
    out.data = {
        "format_version": FORMAT_VERSION,
        "system": {
            "id": system.id,
            "name": system.name,
            "profiles": {
                kind: [{"key": c.key, "label": c.label, "name": c.name} for c in getattr(system.profiles, kind)]
                for kind in ("model", "weapon")
            },
        },
        "module": _module_info(project, module, rules),
        "lists": lists,
        "rules": rules,
        "messages": roster_messages(project.system.labels),
        "roster_words": roster_words(project.system.labels, module.terms),
        "limits": dict(ROSTER_LIMITS),
    }
    return out


def export_project(project: Project) -> dict[str, ModuleExport]:
    """Every module with a list to build from, by module id."""
    return {m.id: export_module(project, m) for m in project.ordered_modules() if buildable_lists(project, m)}


def to_json(data: dict[str, Any]) -> str:
    """Compact, stable JSON: the published file is read by machines and sent to phones."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a module document, shipped as `schemas/export.schema.json`.

    The schema's `format_version` constant is this module's FORMAT_VERSION, so the two cannot drift.
    """
    from importlib import resources

    text = resources.files("generator").joinpath("schemas", "export.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    schema["properties"]["format_version"]["const"] = FORMAT_VERSION
    return schema


# --- publishing in the site ----------------------------------------------------------------------

#: The builder's controls, by the key builder.js asks for: each is the system's label `builder_<key>`.
BUILDER_UI = (
    "list",
    "size",
    "limit",
    "total",
    "unit",
    "add",
    "remove",
    "group",
    "option",
    "swap",
    "copy",
    "export",
    "import",
    "print",
    "unpriced",
    "copied",
    "failed",
)


def builder_words(project: Project, module: Module) -> dict[str, str]:
    """The words of a builder page's controls, from the system's labels (and the module's terms)."""
    labels = project.system.labels
    words = {key: getattr(labels, f"builder_{key}") for key in BUILDER_UI}
    words["rules_used"] = module.terms.over(labels)["rules_used"]
    words["any_number"] = labels.any_number  # an open upper limit, as the at-a-glance table writes it
    words["budget"] = labels.budget  # the points field of a module with a budget and no game sizes
    words["reinforcements"] = labels.reinforcements_points  # a unit held back: the most its module's reinforcements cost
    return words


#: Where the builder's script and stylesheet are published: every file of generator/assets/ lands under
#: assets/rules/ (staging.ASSETS_PREFIX); these two are linked from the builder pages only.
BUILDER_SCRIPT = "assets/rules/builder.js"
BUILDER_STYLESHEET = "assets/rules/builder.css"


def builder_page(module_id: str) -> str:
    return f"{module_id}/builder"


def builder_paths(project: Project) -> dict[str, str]:
    """The builder pages' site paths, with the file that makes each (for collision messages)."""
    return {builder_page(m.id): project.module_files[m.id] for m in project.modules.values() if buildable_lists(project, m)}


class PageCache(Protocol):
    """What the builder asks of `incremental.PageCache` (a later stage: not imported here)."""

    def key(self, project: Project, scope_key: str, what: str) -> bytes | None: ...

    def page(self, page: str, key: bytes | None, render: Callable[[], str]) -> str: ...


def builder_modules(project: Project) -> list[Module]:
    """The modules with a list to build from, in the site's order: each gets a builder page."""
    return [m for m in project.ordered_modules() if buildable_lists(project, m)]


def builder_name(project: Project, module: Module) -> str:
    """What a module's builder page is called in the menu: the system's label, or the module's own word (its `terms`)."""
    return module.terms.over(project.system.labels)["roster"]


def builder_title(project: Project, module: Module) -> str:
    """The title and heading of a module's builder page, in the system's words and the module's name for the page."""
    return project.system.labels.say("module_roster", module=module.title, roster=builder_name(project, module))


def builder_titles(project: Project, renderer: Any) -> None:
    """The builder pages' titles into the site map, before any page is rendered (pages and nav name them)."""
    for module in builder_modules(project):
        renderer.map.titles[builder_page(module.id)] = builder_title(project, module)


def builder_outputs(project: Project, renderer: Any, cache: PageCache | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """The builder pages (Markdown, by site path) and the files they read (JSON, script, style, schema).

    With a bound `incremental.PageCache`, a module's page and document are taken from it while the
    folders its lists read are unchanged (the same inputs as its army-list pages).
    """
    pages: dict[str, str] = {}
    files: dict[str, str] = {}
    for module in builder_modules(project):
        lists = buildable_lists(project, module)
        page, data_path = builder_page(module.id), DATA_PATH.format(module=module.id)
        key = _builder_key(cache, project, lists)
        files[data_path] = _cached(cache, data_path, key, partial(_document, project, module))
        pages[page] = _cached(cache, page, key, partial(_builder_page, project, renderer, module, lists))
    if pages:
        files[SCHEMA_PATH] = json.dumps(json_schema(), indent=2) + "\n"
    return pages, files


def _builder_key(cache: PageCache | None, project: Project, lists: list[ListEntry]) -> bytes | None:
    """What a module's builder reads: the scope chains of its lists (None: nothing is kept)."""
    if cache is None:
        return None
    keys = [cache.key(project, entry.key, "builder") for entry in lists]
    return b"".join(k for k in keys if k is not None) if all(k is not None for k in keys) else None


def _cached(cache: PageCache | None, path: str, key: bytes | None, make: Callable[[], str]) -> str:
    return make() if cache is None else cache.page(path, key, make)


def _document(project: Project, module: Module) -> str:
    return to_json(export_module(project, module).data)


def _builder_page(project: Project, renderer: Any, module: Module, lists: list[ListEntry]) -> str:
    import html

    page, data_path = builder_page(module.id), DATA_PATH.format(module=module.id)
    text: str = renderer._render(
        "builder.md.j2",
        page,
        project.scopes[module.id],
        module=module,
        title=builder_title(project, module),
        lists=lists,
        data_src=html.escape(relative_file(page, data_path), quote=True),
        script=html.escape(relative_file(page, BUILDER_SCRIPT), quote=True),
        stylesheet=html.escape(relative_file(page, BUILDER_STYLESHEET), quote=True),
        ui=html.escape(json.dumps(builder_words(project, module), ensure_ascii=False), quote=True),
    )
    return text
