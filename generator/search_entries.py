"""Search entries for everything a player looks up, merged into the built site's search index.

MkDocs' search plugin makes one entry per heading; a weapon or an upgrade is a table row, so it has
an anchor but no entry, and a heading's entry does not say which game it belongs to. This stage
computes one entry per unit, weapon, weapon list, upgrade, upgrade list, special rule and roll table
from the model and the site map's anchors, titled in plain text with its list and game
("Laser Rifle — Troopers (Some Game)"), and merges them into `search/search_index.json` after the
build (`search_index.py`): an entry at an anchor the index already has takes its title, a new one is
appended.

Each entry also carries `name` (what a player types, for exact-match ranking) and `kind`; the
index's `config` carries the system's spelling variants. `generator/search.py` and the page script
`assets/search.js` rank with both the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from .catalogue import ListEntry, Project, walk_sections
from .layout import HEADING, SiteMap, find_directives, heading_ids
from .model import Section, Table, Unit, UpgradeList, Weapon, WeaponList
from .search_index import DEFINITION, INDEX, SEPARATOR, Entry, SearchData, entry_name, install_ranking, merge_search_entries

__all__ = [
    "INDEX",
    "SEPARATOR",
    "Entry",
    "SearchData",
    "entry_name",
    "install_ranking",
    "merge_search_entries",
    "search_data",
    "search_entries",
]


def plain(text: str) -> str:
    """A Markdown field as the plain text a tooltip shows (`render.plain`). Imported here, not at the top:
    the post-build step that only merges entries never needs Jinja."""
    from .render import plain as rendered

    return rendered(text)


def _where(list_name: str | None, game: str) -> str:
    return f"{list_name} ({game})" if list_name else game


def _profile_text(project: Project, kind: str, profile: dict[str, Any] | None) -> str:
    columns = getattr(project.system.profiles, kind)
    return " ".join(f"{c.label} {profile[c.key]}" for c in columns if profile and c.key in profile)


def _weapon_text(project: Project, weapon: Weapon) -> str:
    parts = [_profile_text(project, "weapon", weapon.profile), ", ".join(weapon.rules)]
    parts += [f"{m.name}: {_profile_text(project, 'weapon', m.profile)} {', '.join(m.rules)}".strip() for m in weapon.modes]
    return ". ".join(p for p in parts if p)


def _unit_text(project: Project, unit: Unit) -> str:
    models = [f"{m.name}: {_profile_text(project, 'model', m.profile)} {', '.join(m.rules)}".strip() for m in unit.models]
    return ". ".join([plain(unit.intro), *models]).strip(". ")


def _table_text(table: Table) -> str:
    return plain(" ".join([table.text, *(str(v) for row in table.rows for v in row)]))[:300]


def list_entries(project: Project, site_map: SiteMap, entry: ListEntry) -> Iterator[Entry]:
    """Entries for the units, lists, rows and tables an army-list page shows."""
    plan = site_map.plans[entry.page]
    game = project.modules[entry.module].title
    where = _where(entry.army_list.name, game)
    url = f"{entry.page}.html"

    def at(anchor: str, name: str, text: str, kind: str) -> Entry:
        return Entry(f"{url}#{anchor}", name, f"{name}{SEPARATOR}{where}", text, kind)

    for section in walk_sections(entry.army_list.sections):
        anchor = plan.ids.get((id(section), "heading"))
        if anchor is None:
            continue
        yield from _section_entries(project, section, anchor, at, plan.ids)


def _section_entries(project: Project, section: Section, anchor: str, at: Any, ids: dict[tuple[int, str], str]) -> Iterator[Entry]:
    if section.unit is not None:
        yield at(anchor, section.unit.name, _unit_text(project, section.unit), "unit")
    if section.built_model is not None:
        yield at(anchor, section.built_model.name, plain(section.built_model.text), "unit")
    if isinstance(section.weapon_list, WeaponList):
        weapons = section.weapon_list.weapons
        yield at(anchor, section.weapon_list.name, ", ".join(w.name for w in weapons), "weapon list")
        for weapon in weapons:
            row = ids.get((id(weapon), "row"))
            if row:
                yield at(row, weapon.name, _weapon_text(project, weapon), "weapon")
    if isinstance(section.upgrade_list, UpgradeList):
        upgrades = section.upgrade_list.upgrades
        yield at(anchor, section.upgrade_list.name, ", ".join(u.name for u in upgrades), "upgrade list")
        for upgrade in upgrades:
            row = ids.get((id(upgrade), "row"))
            if row:
                yield at(row, upgrade.name, plain(upgrade.effect), "upgrade")
    if section.table is not None:
        yield at(anchor, section.table.name, _table_text(section.table), "table")


def rule_entries(project: Project, site_map: SiteMap) -> Iterator[Entry]:
    """An entry per special rule definition, named with the scope that defines it."""
    for key, scope in project.scopes.items():
        game = project.modules[scope.module].title
        where = _where(scope.title if scope.key != scope.module else None, game)
        for rule in scope.unique_rules():
            place = site_map.rule_place(key, rule)
            if place is None:
                continue
            page, anchor = place
            title = project.rule_title(rule)
            yield Entry(f"{page}.html#{anchor}", rule.name, f"{title}{SEPARATOR}{where}", plain(rule.text)[:300], DEFINITION)


def table_entries(project: Project, content: dict[str, str]) -> Iterator[Entry]:
    """An entry per module table a content page inserts, at the heading the table sits under."""
    for page, text in sorted(content.items()):
        directives, _ = find_directives(text, page)
        ids = heading_ids(text)
        starts = [text.count("\n", 0, m.start()) + 1 for m in HEADING.finditer(text)]
        for directive in directives:
            if directive.name != "table" or len(directive.args) != 1 or "/" not in directive.args[0]:
                continue
            module_id, table_id = directive.args[0].split("/", 1)
            scope = project.scopes.get(module_id)
            table = scope.tables.get(table_id) if scope else None
            above = [i for i, line in enumerate(starts) if line < directive.line]
            if table is None or scope is None or not above:
                continue
            game = project.modules[scope.module].title
            yield Entry(f"{page}.html#{ids[above[-1]]}", table.name, f"{table.name}{SEPARATOR}{game}", _table_text(table), "table")


#: An army list's entries, worked out or taken from where they were kept (`incremental.PageCache.rows`).
ListEntries = Callable[[ListEntry], Iterable[Entry]]


def search_data(project: Project, site_map: SiteMap, content: dict[str, str], lists: ListEntries | None = None) -> SearchData:
    """The entries and spelling variants the search post-build step merges into the index."""
    return SearchData(tuple(search_entries(project, site_map, content, lists)), dict(project.system.spelling_variants))


def search_entries(project: Project, site_map: SiteMap, content: dict[str, str], lists: ListEntries | None = None) -> list[Entry]:
    """Every entry the site adds to its search index, one per location (the first wins)."""
    of_list = lists or partial(list_entries, project, site_map)
    entries: dict[str, Entry] = {}
    for item in (
        *(e for entry in project.lists for e in of_list(entry)),
        *rule_entries(project, site_map),
        *table_entries(project, content),
    ):
        entries.setdefault(item.location, item)
    return list(entries.values())
