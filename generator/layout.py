"""Where things are shown: directives in content pages, heading ids, and every page's plan.

This stage decides, before anything is rendered, on which page and under which anchor each rule,
unit, weapon list and upgrade is shown, so that links can point at headings not yet rendered. It is
pure (no I/O, no Jinja); the resolve stage builds the site map once, and the checker and the
renderer both read it.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeVar, overload

from .catalogue import ListEntry, Project, walk_sections
from .model import ArmyList, Labels, Module, Section, SpecialRule, Terms, Unit, UpgradeList, WeaponList, slugify, unique
from .problems import Location, Problem, error, warning

# --- directives in content pages ---------------------------------------------------------------

DIRECTIVE = re.compile(r"^[ \t]*\[%(?P<body>.*?)%\][ \t]*$", re.M)
DIRECTIVE_START = re.compile(r"^[ \t]*\[%", re.M)
#: A line with a directive that does not start it: shown as text, since only a line of its own is one.
_INLINE_LINE = re.compile(r"^(?![ \t]*\[%).*\[%.*%\]", re.M)
_INLINE = re.compile(r"\[%[^\n]*?%\]")
RULE_LINK = re.compile(r"\[\[(?P<use>[^\[\]\n]+?)\]\]")
HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.+?)[ \t#]*(?:\{[^}]*#(?P<id>[\w-]+)[^}]*\})?[ \t]*$", re.M)


@dataclass(frozen=True)
class Directive:
    """`[% name arg key=value %]` on a line of its own in a content page."""

    name: str
    args: tuple[str, ...]
    options: dict[str, str]
    line: int
    text: str


def find_directives(text: str, path: str) -> tuple[list[Directive], list[Problem]]:
    """The directives of a content page and the problems of those it cannot read.

    Read once per page text: resolving, checking, expanding and the search entries all ask.
    """
    directives, problems = _find_directives(text, path)
    return list(directives), list(problems)


@lru_cache(maxsize=4096)
def _find_directives(text: str, path: str) -> tuple[tuple[Directive, ...], tuple[Problem, ...]]:
    directives: list[Directive] = []
    problems: list[Problem] = []
    for match in DIRECTIVE_START.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        end = text.find("\n", match.start())
        whole = text[match.start() : end if end >= 0 else len(text)]
        full = DIRECTIVE.match(whole)
        if not full:
            ended = whole.rstrip()
            ended = f"{ended[:57]}... %]" if len(ended) > 60 else f"{ended} %]"
            problems.append(error(Location(path, line, 1), "directive", "a '[%' line must end with '%]'", hint=f"write {ended}"))
            continue
        try:
            words = shlex.split(full["body"])
        except ValueError as exc:
            problems.append(error(Location(path, line, 1), "directive", f"cannot read directive: {exc}"))
            continue
        if not words:
            problems.append(error(Location(path, line, 1), "directive", "empty directive"))
            continue
        args = tuple(w for w in words[1:] if "=" not in w)
        options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        directives.append(Directive(words[0], args, options, line, whole))
    if _INLINE_LINE.search(text):
        problems.extend(_inline_directives(text, path))
    return tuple(directives), tuple(problems)


def _inline_directives(text: str, path: str) -> Iterator[Problem]:
    """Directives written inside a line of text (not in code): the page would show them as written."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or stripped.startswith(("```", "~~~", "[%")) or line.startswith(("    ", "\t")):
            continue
        for match in _INLINE.finditer(line):
            if line.count("`", 0, match.start()) % 2 == 0:  # not inside inline code
                message = "a directive works only alone on its own line; inside text it is shown as written"
                yield warning(Location(path, number, match.start() + 1), "directive", message, "put it on a line of its own")


def heading_ids(text: str) -> list[str]:
    """The ids MkDocs will give the headings of a hand-written page, in order (worked out once per text)."""
    return list(_heading_ids(text))


@lru_cache(maxsize=4096)
def _heading_ids(text: str) -> tuple[str, ...]:
    used: set[str] = set()
    ids = []
    for match in HEADING.finditer(text):
        ids.append(match["id"] or unique(slugify(re.sub(r"[*_`]", "", match["text"])), used))
    return tuple(ids)


def page_title(text: str, fallback: str) -> str:
    for match in HEADING.finditer(text):
        if len(match["hashes"]) == 1:
            return match["text"].strip()
    return fallback


# --- where things are shown -----------------------------------------------------------------------


@dataclass
class PagePlan:
    """The ids of a generated page's headings and rows, decided before rendering."""

    page: str
    ids: dict[tuple[int, str], str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    #: Sections given an anchor another section of the page was given first: (that section, the first).
    clashes: list[tuple[Section, Section]] = field(default_factory=list)

    def take(self, key: tuple[int, str], name: str, explicit: str | None = None) -> str:
        anchor = explicit or unique(slugify(name) or "section", self.used)
        self.used.add(anchor)
        self.ids[key] = anchor
        return anchor


_T = TypeVar("_T")


class Titles(dict[str, str]):
    """Page titles by site path that can note which titles a render looks up (`get`, `[]`, `in`), so a page
    kept from an earlier staging is taken again only while each title it read is the same: a module's new
    title then renders again only the pages that show it, not every page."""

    reads: dict[str, str | None] | None = None

    @overload
    def get(self, page: str, default: None = None, /) -> str | None: ...
    @overload
    def get(self, page: str, default: str, /) -> str: ...
    @overload
    def get(self, page: str, default: _T, /) -> str | _T: ...
    def get(self, page: str, default: object = None, /) -> object:
        self._note(page)
        return dict.get(self, page, default)

    def __getitem__(self, page: str) -> str:
        self._note(page)
        return dict.__getitem__(self, page)

    def __contains__(self, page: object) -> bool:
        self._note(page)
        return dict.__contains__(self, page)

    def _note(self, page: object) -> None:
        if self.reads is not None and isinstance(page, str):
            self.reads[page] = dict.get(self, page)


@dataclass
class SiteMap:
    """Where every linkable thing is shown: rules by scope and kind, army-list pages, titles."""

    rule_pages: dict[tuple[str, str], str] = field(default_factory=dict)
    rule_anchors: dict[tuple[str, str], str] = field(default_factory=dict)
    plans: dict[str, PagePlan] = field(default_factory=dict)
    list_pages: dict[str, str] = field(default_factory=dict)
    titles: Titles = field(default_factory=Titles)
    object_pages: dict[int, str] = field(default_factory=dict)

    def rule_place(self, scope: str, rule: SpecialRule) -> tuple[str, str] | None:
        page = self.rule_pages.get((scope, rule.kind)) or self.rule_pages.get((scope, "*"))
        if page is None:
            return None
        return page, self.rule_anchors.get((page, slugify(rule.name)), rule.id or slugify(rule.name))


def rule_heading_id(rule: SpecialRule) -> str:
    return rule.id or slugify(rule.name)


UNIT_PARTS = ("composition", "weapons", "upgrades")


def unit_heading(unit: Unit, part: str, terms: dict[str, str]) -> str:
    """A unit's sub-heading: the part's own `heading`, else the module's term for it."""
    return getattr(getattr(unit, part), "heading", None) or terms[f"unit_{part}"]


def plan_list_page(entry: ListEntry, terms: dict[str, str]) -> PagePlan:
    """Give every heading and row of an army-list page its id, in page order."""
    army_list = entry.army_list
    plan = PagePlan(entry.page)
    given: dict[str, Section] = {}
    for section in walk_sections(army_list.sections):
        explicit = section.given_anchor
        if explicit in given:
            plan.clashes.append((section, given[explicit]))
        elif explicit:
            given[explicit] = section
    plan.used.update(given)
    plan.take((id(army_list), "title"), army_list.title or army_list.name)
    _plan_sections(plan, army_list, army_list.sections, terms)
    return plan


def _plan_sections(plan: PagePlan, army_list: ArmyList, sections: tuple[Section, ...], terms: dict[str, str]) -> None:
    for section in sections:
        anchor = plan.take((id(section), "heading"), section.title, section.given_anchor)
        unit = section.unit
        if unit is not None and unit.headings:
            for part in UNIT_PARTS:
                if getattr(unit, part) is not None:
                    plan.take((id(unit), part), unit_heading(unit, part, terms))
        for wl in [section.weapon_list] if section.weapon_list else []:
            for weapon in wl.weapons:
                plan.ids[(id(weapon), "row")] = f"{anchor}--{slugify(weapon.name)}"
        for ul in [section.upgrade_list] if section.upgrade_list else []:
            for upgrade in ul.upgrades:
                plan.ids[(id(upgrade), "row")] = f"{anchor}--{slugify(upgrade.name)}"
        if section.special_rules:
            for rule in army_list.special_rules:
                plan.take((id(rule), "heading"), rule.name, None)
        _plan_sections(plan, army_list, section.sections, terms)


def module_terms(module: Module | None, labels: Labels) -> dict[str, str]:
    """The words of a module's pages: the system's labels, the module's own terms over them, and its currency."""
    terms = (module.terms if module else Terms()).over(labels)
    currency = module.currency if module else None
    terms["cost"] = currency.label if currency else ""
    terms["currency"] = currency.name if currency else ""
    return terms


def build_site_map(project: Project, content_pages: dict[str, str], directives: dict[str, list[Directive]]) -> SiteMap:
    """Find where each rule scope is shown (content directives, list pages) and plan list pages.

    `directives` are each content page's directives, read once by the resolve stage.
    """
    site = SiteMap()
    for page, text in sorted(content_pages.items()):
        site.titles[page] = page_title(text, page)
        _place_content_rules(site, project, page, text, directives.get(page, []))
    for entry in project.lists:
        _place_list(site, project, entry)
    for module in project.modules.values():
        site.titles[f"{module.id}/index"] = module.title
        site.titles[f"{module.id}/errata"] = project.system.labels.of_module(module.title)
    return site


def _place_content_rules(site: SiteMap, project: Project, page: str, text: str, directives: list[Directive]) -> None:
    """Rules a content page shows through its special-rules directives, with their anchors."""
    used = set(heading_ids(text))
    for directive in directives:
        if directive.name != "special-rules" or not directive.args:
            continue
        scope = directive.args[0]
        kind = directive.options.get("kind", "*")
        site.rule_pages.setdefault((scope, kind), page)
        target = project.scopes.get(scope)
        if target is None:
            continue
        for rule in target.unique_rules():
            if kind in ("*", rule.kind):
                anchor = rule_heading_id(rule)
                if anchor in used:
                    anchor = f"rule-{anchor}"
                used.add(anchor)
                site.rule_anchors[(page, slugify(rule.name))] = anchor


def _place_list(site: SiteMap, project: Project, entry: ListEntry) -> None:
    """An army-list page's plan, its rules' anchors, and the page each of its blocks is shown on."""
    module = project.modules[entry.module]
    plan = plan_list_page(entry, module_terms(module, project.system.labels))
    site.plans[entry.page] = plan
    site.list_pages[entry.key] = entry.page
    site.titles[entry.page] = entry.army_list.title or entry.army_list.name
    for section in walk_sections(entry.army_list.sections):
        if section.special_rules:
            site.rule_pages.setdefault((entry.key, "*"), entry.page)
            for rule in entry.army_list.special_rules:
                site.rule_anchors[(entry.page, slugify(rule.name))] = plan.ids[(id(rule), "heading")]
        block = section.block
        if block is not None:
            site.object_pages[id(block)] = entry.page
            site.object_pages[id(section)] = entry.page
            items = block.weapons if isinstance(block, WeaponList) else block.upgrades if isinstance(block, UpgradeList) else ()
            for item in items:
                site.object_pages[id(item)] = entry.page


def in_menu_unlisted(page: str) -> bool:
    """Content pages the navigation shows without a module listing them: the home page and the about folder's."""
    return page == "index" or page.startswith(ABOUT_FOLDER)


#: The folder of content pages the navigation lists under the system's `about` label.
ABOUT_FOLDER = "about/"


def landing_pages(project: Project) -> dict[str, str]:
    """Generated landing pages by kind, from the system's `landing_pages`."""
    landing = project.system.landing_pages
    kinds = {
        "released": landing.released,
        "in_development": landing.in_development,
        "changes": landing.changes,
        "rules_index": landing.rules_index,
    }
    return {kind: page for kind, page in kinds.items() if page}


def generated_paths(project: Project) -> dict[str, str]:
    """Every generated page's path, with what generates it (for collision messages)."""
    paths: dict[str, str] = {}
    for module in project.modules.values():
        paths[f"{module.id}/index"] = project.module_files[module.id]
        if module.errata:
            paths[f"{module.id}/errata"] = project.module_files[module.id]
    for entry in project.lists:
        paths[entry.page] = entry.file
    for page in landing_pages(project).values():
        paths[page] = project.system_file
    paths["licences"] = project.system_file
    return paths


def relative_link(from_page: str, to_page: str, anchor: str | None = None) -> str:
    """A link MkDocs resolves and checks: a relative path to the page's Markdown source."""
    fragment = f"#{anchor}" if anchor else ""
    if from_page == to_page:
        return fragment or "#"
    return f"{_relative_path(f'{to_page}.md', posixpath.dirname(from_page))}{fragment}"


def relative_file(from_page: str, path: str) -> str:
    """A URL from a page (site path without .html) to a file of the site (`core/map.png`); pages are not
    directory URLs."""
    return _relative_path(path, posixpath.dirname(from_page))


@lru_cache(maxsize=65536)
def _relative_path(path: str, from_folder: str) -> str:
    """Cached: a site links between the same few folders thousands of times, and `relpath` is slow."""
    return posixpath.relpath(path, from_folder or ".")


__all__ = ["ListEntry"]
