"""The loaded project, and the catalogue that resolves names through scopes.

A name used in an army list is looked up in that list, then in the lists it `uses`, then in its
module, then in the core rules. References are matched by slug, so spelling differences in case or
punctuation do not matter, but misspellings do.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Generic, TypeVar

from .loader import Document
from .model import (
    ArmyList,
    BuiltModel,
    Model,
    Module,
    Record,
    Release,
    Section,
    SpecialRule,
    System,
    Table,
    Unit,
    Upgrade,
    UpgradeList,
    Weapon,
    WeaponList,
    slugify,
)
from .points import BuiltProfile, CostRange, build_model, unit_cost
from .problems import Location, Problem, error
from .schema import build_document

T = TypeVar("T")

_RULE_USE = re.compile(r"^(?P<name>.*?)\s*(?:\((?P<value>[^()]*)\))?\s*$", re.S)  # a name may hold a newline


@dataclass(frozen=True)
class RuleUse:
    """A special rule as a model, weapon or upgrade names it: 'Heavy Armour (2)'."""

    name: str
    value: str | None

    @classmethod
    def parse(cls, text: str) -> RuleUse:
        match = _RULE_USE.match(text)
        assert match is not None  # the pattern matches every string
        return cls(match["name"], match["value"])

    def __str__(self) -> str:
        return f"{self.name} ({self.value})" if self.value is not None else self.name


def rule_keys(rule: SpecialRule) -> list[str]:
    """The slugs a rule is found by: its name and each alias."""
    return [slugify(rule.name), *(slugify(a) for a in rule.aliases)]


@dataclass(frozen=True)
class Found(Generic[T]):
    """A thing found in a scope, with the key of the scope that defines it."""

    item: T
    scope: str


@dataclass
class Scope:
    """The names one module or army list defines; `parents` are searched after it, in order."""

    key: str
    title: str
    module: str
    rules: dict[str, SpecialRule] = field(default_factory=dict)
    weapon_lists: dict[str, WeaponList] = field(default_factory=dict)
    weapons: dict[str, list[Weapon]] = field(default_factory=dict)
    upgrade_lists: dict[str, UpgradeList] = field(default_factory=dict)
    upgrades: dict[str, list[Upgrade]] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)
    models: dict[str, list[Model]] = field(default_factory=dict)
    built_models: dict[str, BuiltModel] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    parents: list[Scope] = field(default_factory=list)

    def unique_rules(self) -> list[SpecialRule]:
        """This scope's own rules, each once (aliases index a rule more than once)."""
        return list({id(r): r for r in self.rules.values()}.values())

    def chain(self) -> Iterator[Scope]:
        """This scope and every scope it falls back on, nearest first, each once."""
        seen: set[str] = set()
        stack = [self]
        while stack:
            scope = stack.pop(0)
            if scope.key in seen:
                continue
            seen.add(scope.key)
            yield scope
            stack.extend(scope.parents)


@dataclass(frozen=True)
class ListEntry:
    """An army list with the module it belongs to and the file it came from."""

    module: str
    army_list: ArmyList
    file: str

    @property
    def key(self) -> str:
        return f"{self.module}/{self.army_list.id}"

    @property
    def page(self) -> str:
        return self.army_list.page or f"{self.module}/army-lists/{self.army_list.id}"


@dataclass
class Project:
    """Everything loaded from the data folder, built into records, with scopes for name lookups."""

    system: System
    system_file: str
    modules: dict[str, Module]
    module_files: dict[str, str]
    lists: list[ListEntry]
    scopes: dict[str, Scope]
    releases: list[Release] = field(default_factory=list)
    #: What `rule` and `find` found, by table, name and scope key: a project's scopes are complete once it is
    #: made, and resolving, checking and rendering look the same names up in the same scopes thousands of times.
    _found: dict[tuple[str, str, str], Found[Any] | None] = field(default_factory=dict, init=False, repr=False, compare=False)
    #: What `parse_use` made of a use in a scope, and `unit_cost` of a unit (by identity) in a scope: binding,
    #: checking, rendering and the builder's export each ask again for the same uses and units.
    _parsed: dict[tuple[str, str | None], RuleUse] = field(default_factory=dict, init=False, repr=False, compare=False)
    _costs: dict[tuple[int, str], CostRange | None] = field(default_factory=dict, init=False, repr=False, compare=False)

    def list_scope(self, entry: ListEntry) -> Scope:
        return self.scopes[entry.key]

    def module_folders(self, data_dir: str) -> dict[str, str]:
        """Each module's folder under the data folder, by module id: what a thing that reads a module reads."""
        return {module: module_of(path, data_dir) for module, path in self.module_files.items()}

    def module_scope(self, module_id: str) -> Scope:
        return self.scopes[module_id]

    @property
    def core_modules(self) -> list[Module]:
        return [m for m in self.modules.values() if m.core]

    @property
    def core_scope(self) -> Scope | None:
        """The scope of the site's own texts (content pages of no module, the system file, releases): the
        first core module's; None in a project without core rules."""
        return next((self.scopes[m.id] for m in self.core_modules), None)

    def ordered_modules(self) -> list[Module]:
        """Core rules first, then the others by title: the order of navigation and landing pages."""
        return sorted(self.modules.values(), key=lambda m: (not m.core, m.title.lower()))

    def parse_use(self, use: str, scope: Scope | None = None) -> RuleUse:
        """Split a rule use into name and value, as the system writes them.

        With values after a space ('Tough 2', 'Dangerous Terrain 2') the split is the one whose name
        is a rule in scope; a use that names no rule keeps its whole text as the name.
        """
        key = (str(use), scope.key if scope is not None else None)
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = self._parsed[key] = self._parse_use(key[0], scope)
        return parsed

    def _parse_use(self, use: str, scope: Scope | None) -> RuleUse:
        if self.system.rule_values == "brackets":
            return RuleUse.parse(use)
        text = use.strip()
        known = {key for s in scope.chain() for key in s.rules} if scope is not None else set()
        if slugify(text) in known:
            return RuleUse(text, None)
        name, _, value = text.rpartition(" ")
        if name and slugify(name) in known:
            return RuleUse(name, value)
        return RuleUse(text, None)

    def use_text(self, name: str, value: str | None) -> str:
        if value is None:
            return name
        return f"{name} {value}" if self.system.rule_values == "space" else f"{name} ({value})"

    def rule_title(self, rule: SpecialRule) -> str:
        """A rule's heading: its names, its parameter as the system writes values, and its cost."""
        names = " / ".join([rule.name, *rule.aliases])
        title = self.use_text(names, rule.parameter)
        return f"{title} ({rule.cost})" if rule.cost else title

    def rule(self, use: str, scope: Scope) -> Found[SpecialRule] | None:
        key = ("", use, scope.key)
        if key in self._found:
            return self._found[key]
        self._found[key] = found = self.find("rules", self.parse_use(use, scope).name, scope)
        return found

    def find(self, table: str, name: str, scope: Scope) -> Found[Any] | None:
        """Look up a name in one of a scope's tables ('weapon_lists', 'upgrades', 'units', 'rules', ...).

        A weapon may be named with its value, as the system writes values ('Melee Strike (6)' for the weapon
        'Melee Strike', whose profile holds X): the one lookup every stage uses, so the checker, the costs,
        the builder's data and the page's links all find the same weapon.
        """
        key = (table, slugify(name), scope.key)
        if key in self._found:
            return self._found[key]
        found: Found[Any] | None = None
        for s in scope.chain():
            item = getattr(s, table).get(key[1])
            if item:
                found = Found(item, s.key)
                break
        if found is None and table == "weapons":
            bare = self.parse_use(name, scope).name
            if bare != name:
                found = self.find(table, bare, scope)
        self._found[key] = found
        return found

    def one(self, table: str, name: str, scope: Scope) -> Any:
        """The first thing of that name in scope (weapons and upgrades may share a name across lists)."""
        found = self.find(table, name, scope)
        if found is None:
            return None
        return found.item[0] if isinstance(found.item, list) else found.item

    def unit_cost(self, unit: Unit, scope: Scope) -> CostRange | None:
        """The cost range of a unit, its weapon lists, weapons and upgrades looked up in scope."""
        key = (id(unit), scope.key)  # the project holds every unit for as long as it lives
        if key not in self._costs:
            self._costs[key] = unit_cost(
                unit,
                weapon_list=lambda n: self.one("weapon_lists", n, scope),
                weapon=lambda n: self.one("weapons", n, scope),
                upgrade=lambda n: self.one("upgrades", n, scope),
            )
        return self._costs[key]

    def build(self, model: BuiltModel, scope: Scope) -> BuiltProfile | None:
        """A built model's profile and points, or None when its base does not resolve."""
        base = self.one("models", model.base, scope)
        if base is None:
            return None
        upgrades = [u for name in model.upgrades if (u := self.one("upgrades", name, scope)) is not None]
        weapons = [w for name in model.weapons if (w := self.one("weapons", name, scope)) is not None]
        module = self.modules[scope.module]
        return build_model(base, upgrades, weapons, module.army_building.cost if module.army_building else None)

    def names_in_scope(self, table: str, scope: Scope) -> list[str]:
        names: list[str] = []
        for s in scope.chain():
            for value in getattr(s, table).values():
                item = value[0] if isinstance(value, list) else value
                names.append(str(item.name))
        return names


def walk_sections(sections: tuple[Section, ...]) -> Iterator[Section]:
    for section in sections:
        yield section
        yield from walk_sections(section.sections)


def _add(table: dict[str, list[T]], name: str, item: T) -> None:
    table.setdefault(slugify(name), []).append(item)


def _index_block(blocks: dict[str, T], items: dict[str, list[Any]], block: T, entries: tuple[Any, ...]) -> None:
    """Index a weapon or upgrade list by its id and by its name, and its entries by name."""
    name = str(getattr(block, "name", ""))
    for key in {getattr(block, "id", "") or slugify(name), slugify(name)}:
        blocks.setdefault(key, block)
    for entry in entries:
        _add(items, entry.name, entry)


def _index_list(scope: Scope, army_list: ArmyList) -> None:
    for rule in army_list.special_rules:
        for key in rule_keys(rule):
            scope.rules.setdefault(key, rule)
    for section in walk_sections(army_list.sections):
        if section.unit is not None:
            scope.units.setdefault(section.unit.id or slugify(section.unit.name), section.unit)
            for model in section.unit.models:
                _add(scope.models, model.name, model)
        if section.weapon_list is not None:
            _index_block(scope.weapon_lists, scope.weapons, section.weapon_list, section.weapon_list.weapons)
        if section.upgrade_list is not None:
            _index_block(scope.upgrade_lists, scope.upgrades, section.upgrade_list, section.upgrade_list.upgrades)
        if section.built_model is not None:
            scope.built_models.setdefault(slugify(section.built_model.name), section.built_model)
        if section.table is not None:
            scope.tables.setdefault(section.table.id or slugify(section.table.name), section.table)


def module_of(rel: str, data_dir: str) -> str:
    """The module folder a data file sits in: `data/my-game/army-lists/x.yaml` → `my-game`."""
    parts = PurePosixPath(rel).relative_to(data_dir).parts
    return parts[0] if len(parts) > 1 else ""


@dataclass
class Records:
    """The records built from a project's data files, before their scopes are linked."""

    problems: list[Problem] = field(default_factory=list)
    systems: list[tuple[System, str]] = field(default_factory=list)
    modules: dict[str, Module] = field(default_factory=dict)
    module_files: dict[str, str] = field(default_factory=dict)
    folder_module: dict[str, str] = field(default_factory=dict)
    lists: list[tuple[str, ArmyList, str]] = field(default_factory=list)
    releases: list[Release] = field(default_factory=list)  # data/releases/*.yaml: stored diffs for Recent Changes
    #: A document had a top-level 'system' key, even when its record could not be built.
    system_written: bool = False

    def add_module(self, module: Module, path: str, folder: str) -> None:
        """A module, unless its id or its folder already has one."""
        if module.id in self.modules:
            self.problems.append(
                error(_loc(module), "duplicate", f"module '{module.id}' is also defined in {self.module_files[module.id]}")
            )
        elif folder and folder in self.folder_module:
            message = f"folder '{folder}' already has a module file: {self.module_files[self.folder_module[folder]]}"
            self.problems.append(error(_loc(module), "duplicate", message))
        else:
            self.modules[module.id] = module
            self.module_files[module.id] = path
            self.folder_module[folder] = module.id


#: One data file's record as `build_document` makes it: the file, its top-level key, the record (None
#: where it could not be built) and the problems found building it.
Built = tuple[str, str | None, Record | None, list[Problem]]


def build_records(documents: Iterable[Document], data_dir: str) -> Records:
    """Each document's record, built as the document comes (so its raw values can go)."""
    return collect_records(((document.path, *build_document(document.body, document.path)) for document in documents), data_dir)


def collect_records(built: Iterable[Built], data_dir: str) -> Records:
    """The records of a project's data files, built or read back from the cache (`stored.py`), in file order."""
    records = Records()
    for path, kind, record, found in built:
        records.problems.extend(found)
        records.system_written |= kind == "system"
        folder = module_of(path, data_dir)
        if isinstance(record, System):
            records.systems.append((record, path))
        elif isinstance(record, Module):
            records.add_module(record, path, folder)
        elif isinstance(record, ArmyList):
            records.lists.append((folder, record, path))
        elif isinstance(record, Release):
            records.releases.append(record)
    return records


def assemble(documents: Iterable[Document], data_dir: str, unread: Collection[str] = ()) -> tuple[Project | None, list[Problem]]:
    """Build records from loaded documents and link their scopes; returns every problem found.

    `unread` are the data files that could not be read: their own problems already explain them.
    """
    return link_records(build_records(documents, data_dir), data_dir, unread)


def link_records(records: Records, data_dir: str, unread: Collection[str] = ()) -> tuple[Project | None, list[Problem]]:
    """The project of built records, their scopes linked; `unread` as for `assemble`."""
    problems = records.problems
    system_path = f"{data_dir}/system.yaml"
    if not records.systems and (records.system_written or system_path in unread):
        return None, problems  # the system file's own problems say what is wrong with it
    if not records.systems:
        message = "no system file: the data folder needs a file with a top-level 'system' key"
        problems.append(error(Location(system_path, 0, 0), "missing", message))
        return None, problems
    for extra, _path in records.systems[1:]:
        problems.append(error(_loc(extra), "duplicate", f"a second system is defined here; the first is in {records.systems[0][1]}"))
    system, system_file = records.systems[0]
    entries: list[ListEntry] = []
    for folder, army_list, path in records.lists:
        module_id = records.folder_module.get(folder)
        if module_id is None and not any(PurePosixPath(file).parent == PurePosixPath(data_dir, folder) for file in unread):
            message = f"army list '{army_list.id}' is in folder '{folder}', which has no module.yaml"
            problems.append(error(_loc(army_list), "missing", message))
        elif module_id is None:
            continue  # the folder's module file could not be read: its own problem says why
        else:
            entries.append(ListEntry(module_id, army_list, path))
    scopes = _module_scopes(records.modules)
    entries = _list_scopes(scopes, entries, problems)
    return Project(system, system_file, records.modules, records.module_files, entries, scopes, records.releases), problems


def _module_scopes(modules: dict[str, Module]) -> dict[str, Scope]:
    """A scope per module: its rules and tables; modules that are not core fall back on the core ones."""
    scopes: dict[str, Scope] = {}
    for module in modules.values():
        scope = Scope(key=module.id, title=module.title, module=module.id)
        for rule in module.special_rules:
            for key in rule_keys(rule):
                scope.rules.setdefault(key, rule)
        for table in module.tables:
            scope.tables.setdefault(table.id or slugify(table.name), table)
        scopes[module.id] = scope
    core = [scopes[m.id] for m in modules.values() if m.core]
    for module in modules.values():
        if not module.core:
            scopes[module.id].parents.extend(core)
    return scopes


def _list_scopes(scopes: dict[str, Scope], entries: list[ListEntry], problems: list[Problem]) -> list[ListEntry]:
    """A scope per army list, falling back on the lists it uses and then on its module."""
    for entry in entries:
        if entry.key in scopes:
            message = f"army list id '{entry.army_list.id}' is used twice in module '{entry.module}'"
            problems.append(error(_loc(entry.army_list), "duplicate", message))
            continue
        scope = Scope(key=entry.key, title=entry.army_list.name, module=entry.module)
        _index_list(scope, entry.army_list)
        scopes[entry.key] = scope
    for entry in entries:
        scope = scopes[entry.key]
        for used in entry.army_list.uses:
            if used in scopes:
                scope.parents.append(scopes[used])
        scope.parents.append(scopes[entry.module])
    return entries


def _loc(record: Record) -> Location:
    return record.loc
