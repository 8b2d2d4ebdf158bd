"""Render the model into Markdown pages through Jinja templates. No I/O happens here.

Pages come out as Markdown, not HTML, so that MkDocs builds the table of contents, search entries
and link checks from them as it does for hand-written pages. Every heading of a generated page gets
an explicit id computed here in page order, the same way MkDocs numbers repeated headings, so that
links can point at any heading before it is rendered and public anchors stay stable.
"""

from __future__ import annotations

import html
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2
import markdown
from markdown.extensions.toc import unique

from .catalogue import ListEntry, Project, RuleUse, Scope, walk_sections
from .model import (
    ArmyList,
    BuiltModel,
    Model,
    Module,
    ProfileSummary,
    Section,
    SpecialRule,
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

# --- directives in content pages ---------------------------------------------------------------

DIRECTIVE = re.compile(r"^[ \t]*\[%(?P<body>.*?)%\][ \t]*$", re.M)
DIRECTIVE_START = re.compile(r"^[ \t]*\[%", re.M)
RULE_LINK = re.compile(r"\[\[(?P<use>[^\[\]\n]+?)\]\]")
HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.+?)[ \t#]*(?:\{[^}]*#(?P<id>[\w-]+)[^}]*\})?[ \t]*$", re.M)
_UNSAFE_LINK = re.compile(r"\]\(\s*(?!https?:|mailto:|#|\.|/|[\w-]+(?:/|\.md|#|\)))[^)]*\)", re.I)
_SCHEME_LINK = re.compile(r"\]\(\s*(?:javascript|data|vbscript|file):[^)]*\)", re.I)


@dataclass(frozen=True)
class Directive:
    """`[% name arg key=value %]` on a line of its own in a content page."""

    name: str
    args: tuple[str, ...]
    options: dict[str, str]
    line: int
    text: str


def find_directives(text: str, path: str) -> tuple[list[Directive], list[Problem]]:
    directives: list[Directive] = []
    problems: list[Problem] = []
    for match in DIRECTIVE_START.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        end = text.find("\n", match.start())
        whole = text[match.start() : end if end >= 0 else len(text)]
        full = DIRECTIVE.match(whole)
        if not full:
            problems.append(
                error(Location(path, line, 1), "directive", "a '[%' line must end with '%]'", hint="write [% table module/id %]")
            )
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
    return directives, problems


def heading_ids(text: str) -> list[str]:
    """The ids MkDocs will give the headings of a hand-written page, in order."""
    used: set[str] = set()
    ids = []
    for match in HEADING.finditer(text):
        ids.append(match["id"] or unique(slugify(re.sub(r"[*_`]", "", match["text"])), used))
    return ids


def page_title(text: str, fallback: str) -> str:
    for match in HEADING.finditer(text):
        if len(match["hashes"]) == 1:
            return match["text"].strip()
    return fallback


# --- escaping ------------------------------------------------------------------------------------


def escape_text(text: Any) -> str:
    """Data text as Markdown that shows it literally: no HTML from data ever reaches a page."""
    s = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]|{}])", r"\\\1", s)


def safe_markdown(text: str) -> str:
    """Markdown written in data: formatting allowed, raw HTML and script links shown as text."""
    s = str(text).replace("&", "&amp;").replace("<", "&lt;")
    return _SCHEME_LINK.sub("](#)", s)


@lru_cache(maxsize=8192)
def plain(text: str) -> str:
    """Markdown from data as one line of plain text, for tooltips: formatting goes, characters stay."""
    rendered = markdown.markdown(safe_markdown(RULE_LINK.sub(lambda m: m["use"], str(text))))
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", rendered))).strip()


def title_attr(text: str, limit: int = 400) -> str:
    """A tooltip as a Markdown link title.

    Escaped twice on purpose: the browser decodes the attribute once, and Material's tooltip then
    inserts it as HTML, so a '<' in a rule's text must still be '&lt;' at that point.
    """
    s = plain(text)
    if len(s) > limit:
        s = s[: limit - 1].rstrip() + "…"
    once = html.escape(s, quote=True)
    return once.replace("&", "&amp;").replace("(", "&#40;").replace(")", "&#41;")


# --- where things are shown -----------------------------------------------------------------------


@dataclass
class PagePlan:
    """The ids of a generated page's headings and rows, decided before rendering."""

    page: str
    ids: dict[tuple[int, str], str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def take(self, key: tuple[int, str], name: str, explicit: str | None = None) -> str:
        anchor = explicit or unique(slugify(name) or "section", self.used)
        self.used.add(anchor)
        self.ids[key] = anchor
        return anchor


@dataclass
class SiteMap:
    """Where every linkable thing is shown: rules by scope and kind, army-list pages, titles."""

    rule_pages: dict[tuple[str, str], str] = field(default_factory=dict)
    rule_anchors: dict[tuple[str, str], str] = field(default_factory=dict)
    plans: dict[str, PagePlan] = field(default_factory=dict)
    list_pages: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
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
    for section in walk_sections(army_list.sections):
        for explicit in (section.anchor, getattr(section.block, "anchor", None)):
            if explicit:
                plan.used.add(explicit)
    plan.take((id(army_list), "title"), army_list.title or army_list.name)
    _plan_sections(plan, army_list, army_list.sections, terms)
    return plan


def _plan_sections(plan: PagePlan, army_list: ArmyList, sections: tuple[Section, ...], terms: dict[str, str]) -> None:
    for section in sections:
        block = section.block
        explicit = section.anchor or getattr(block, "anchor", None)
        anchor = plan.take((id(section), "heading"), section.title, explicit)
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


DEFAULT_TERMS = {
    "unit_composition": "Unit Composition",
    "unit_weapons": "Weapons and Equipment",
    "unit_upgrades": "Upgrades",
}


def module_terms(module: Module) -> dict[str, str]:
    terms = {**DEFAULT_TERMS, **{k: v for k, v in vars(module.terms).items() if k != "loc"}}
    terms["cost"] = module.currency.label if module.currency else ""
    terms["currency"] = module.currency.name if module.currency else ""
    return terms


def build_site_map(project: Project, content_pages: dict[str, str]) -> tuple[SiteMap, list[Problem]]:
    """Find where each rule scope is shown (content directives, list pages) and plan list pages."""
    site = SiteMap()
    problems: list[Problem] = []
    for page, text in sorted(content_pages.items()):
        site.titles[page] = page_title(text, page)
        directives, found = find_directives(text, f"content/{page}.md")
        problems.extend(found)
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
    for entry in project.lists:
        module = project.modules[entry.module]
        plan = plan_list_page(entry, module_terms(module))
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
    return site, problems


def relative_link(from_page: str, to_page: str, anchor: str | None = None) -> str:
    """A link MkDocs resolves and checks: a relative path to the page's Markdown source."""
    fragment = f"#{anchor}" if anchor else ""
    if from_page == to_page:
        return fragment or "#"
    rel = posixpath.relpath(f"{to_page}.md", posixpath.dirname(from_page) or ".")
    return f"{rel}{fragment}"


# --- the renderer -------------------------------------------------------------------------------


class Renderer:
    """Renders pages for one project; templates receive this object as `site`."""

    def __init__(self, project: Project, site_map: SiteMap, template_dirs: Iterable[str] = ()) -> None:
        self.project = project
        self.map = site_map
        loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(list(template_dirs))] if template_dirs else []
        loaders.append(jinja2.PackageLoader("generator", "templates"))
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=False,  # the output is Markdown; every data string goes through a filter below
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        register_filters(self.env)
        self.page = ""
        self.scope: Scope | None = None
        self.plan: PagePlan | None = None
        self.terms: dict[str, str] = dict(DEFAULT_TERMS)

    # -- pages --

    def _render(self, template: str, page: str, scope: Scope | None, **context: Any) -> str:
        self.page, self.scope = page, scope
        self.plan = self.map.plans.get(page)
        return tidy(self.env.get_template(template).render(site=self, **context))

    def army_list_page(self, entry: ListEntry) -> str:
        module = self.project.modules[entry.module]
        self.terms = module_terms(module)
        return self._render(
            "army_list.md.j2",
            entry.page,
            self.project.scopes[entry.key],
            army_list=entry.army_list,
            module=module,
            terms=self.terms,
        )

    def module_index(self, module: Module) -> str:
        pages = [(p, self.map.titles.get(p, p)) for p in module.pages]
        errata_page = f"{module.id}/errata" if module.errata else None
        return self._render(
            "module_index.md.j2", f"{module.id}/index", self.project.scopes[module.id], module=module, pages=pages, errata_page=errata_page
        )

    def errata_page(self, module: Module) -> str:
        return self._render("errata.md.j2", f"{module.id}/errata", self.project.scopes[module.id], module=module)

    def modules_page(self, page: str, status: str, title: str) -> str:
        modules = [m for m in self.project.ordered_modules() if m.status == status and not m.core]
        return self._render("modules.md.j2", page, None, modules=modules, title=title)

    def changes_page(self, page: str) -> str:
        return self._render("changes.md.j2", page, None, system=self.project.system, modules=self.project.ordered_modules())

    def rules_index_page(self, page: str, usage: dict[tuple[str, str], list[tuple[str, str]]]) -> str:
        groups = []
        for module in self.project.ordered_modules():
            scopes = [self.project.scopes[module.id]] + [self.project.scopes[e.key] for e in self.project.lists if e.module == module.id]
            rules = [(s.key, r) for s in scopes for r in s.unique_rules()]
            if rules:
                groups.append((module, sorted(rules, key=lambda sr: sr[1].name.lower())))
        return self._render("rules_index.md.j2", page, None, groups=groups, usage=usage)

    def licences_page(self, page: str) -> str:
        return self._render("licences.md.j2", page, None, system=self.project.system, modules=self.project.ordered_modules())

    # -- content directives --

    def expand(self, page: str, text: str, scope_key: str | None) -> tuple[str, list[Problem]]:
        """Replace directives and [[rule]] links in a hand-written page."""
        problems: list[Problem] = []
        path = f"content/{page}.md"
        scope = self.project.scopes.get(scope_key) if scope_key else None
        self.page, self.scope, self.plan = page, scope, None

        def replace(match: re.Match[str]) -> str:
            found, bad = find_directives(match.group(0), path)
            line = text.count("\n", 0, match.start()) + 1
            if bad or not found:
                return match.group(0)
            directive = found[0]
            rendered, problem = self.directive(directive, page)
            if problem:
                problems.append(error(Location(path, line, 1), "directive", problem))
                return ""
            return rendered

        out = DIRECTIVE.sub(replace, text)
        out, link_problems = self.link_rules(out, scope, path)
        problems.extend(link_problems)
        return out, problems

    def directive(self, directive: Directive, page: str) -> tuple[str, str | None]:
        name = directive.name
        if name == "special-rules":
            if len(directive.args) != 1:
                return "", "special-rules takes one scope: [% special-rules core-rules kind=unit %]"
            scope = self.project.scopes.get(directive.args[0])
            if scope is None:
                return "", f"unknown scope '{directive.args[0]}'"
            kind = directive.options.get("kind", "*")
            kinds = self.project.system.rule_kinds
            if kind != "*" and kind not in kinds:
                return "", f"kind must be one of {', '.join(kinds)}, not '{kind}'"
            rules = sorted((r for r in scope.unique_rules() if kind in ("*", r.kind)), key=lambda r: r.name.lower())
            level = int(directive.options.get("level", "3"))
            self.scope = scope
            return self.env.get_template("special_rules.md.j2").render(site=self, rules=rules, level=level, scope_key=scope.key), None
        if name == "table":
            if len(directive.args) != 1 or "/" not in directive.args[0]:
                return "", "table takes MODULE/TABLE: [% table survivors/zombie-surge %]"
            module_id, table_id = directive.args[0].split("/", 1)
            scope = self.project.scopes.get(module_id)
            table = scope.tables.get(table_id) if scope else None
            if table is None:
                return "", f"unknown table '{directive.args[0]}'"
            self.scope = scope
            return self.env.get_template("table.md.j2").render(site=self, table=table), None
        if name == "modules":
            status = directive.options.get("status", "released")
            modules = [m for m in self.project.ordered_modules() if m.status == status and not m.core]
            return self.env.get_template("module_cards.md.j2").render(site=self, modules=modules), None
        return "", f"unknown directive '{name}'; expected special-rules, table or modules"

    def link_rules(self, text: str, scope: Scope | None, path: str) -> tuple[str, list[Problem]]:
        problems: list[Problem] = []

        def replace(match: re.Match[str]) -> str:
            use = match["use"].strip()
            link = self.rule_link(use, scope)
            if link is None:
                line = text.count("\n", 0, match.start()) + 1
                problems.append(error(Location(path, line, 1), "unknown-rule", f"[[{use}]] names no special rule in scope"))
                return escape_text(use)
            return link

        return RULE_LINK.sub(replace, text), problems

    # -- helpers for templates --

    def md(self, text: str | None) -> str:
        """Markdown from data, made safe, with [[rule]] links resolved in the current scope."""
        if not text:
            return ""
        out, _ = self.link_rules(safe_markdown(text), self.scope, self.page)
        return out.strip()

    def cell(self, text: Any) -> str:
        """Markdown from data for one table cell: one line, pipes escaped."""
        return self.md(str(text)).replace("\n", " ").replace("|", "\\|")

    def value(self, value: Any) -> str:
        return escape_text(value)

    def rule_link(self, use: str, scope: Scope | None = None) -> str | None:
        scope = scope or self.scope
        if scope is None:
            return None
        found = self.project.rule(use, scope)
        if found is None:
            return None
        place = self.map.rule_place(found.scope, found.item)
        if place is None:
            return escape_text(use)
        page, anchor = place
        return f'[{escape_text(use)}]({relative_link(self.page, page, anchor)} "{title_attr(found.item.text)}")'

    def rule_title(self, rule: SpecialRule) -> str:
        return self.project.rule_title(rule)

    def rules(self, uses: Iterable[str]) -> str:
        return ", ".join(self.rule_link(u) or escape_text(u) for u in uses)

    def anchor(self, obj: Any, part: str = "heading") -> str:
        assert self.plan is not None
        return self.plan.ids[(id(obj), part)]

    def unit_heading(self, unit: Unit, part: str) -> str:
        return unit_heading(unit, part, self.terms)

    def heading(self, level: int, text: str, anchor: str) -> str:
        return f"{'#' * min(level, 6)} {escape_text(text)} {{ #{anchor} }}"

    def find_link(self, table: str, name: str, label: str | None = None) -> str:
        """A link to a weapon list, weapon, upgrade or unit in scope, or the escaped name."""
        assert self.scope is not None
        found = self.project.find(table, name, self.scope)
        text = escape_text(label or name)
        if found is None:
            return text
        item = found.item[0] if isinstance(found.item, list) else found.item
        page = self.map.object_pages.get(id(item))
        plan = self.map.plans.get(page or "")
        if page is None or plan is None:
            return text
        anchor = plan.ids.get((id(item), "row"))
        if anchor is None:
            section = self._section_of(item, page)
            anchor = plan.ids.get((id(section), "heading")) if section else None
        return f"[{text}]({relative_link(self.page, page, anchor)})"

    def _section_of(self, block: Any, page: str) -> Section | None:
        for entry in self.project.lists:
            if entry.page == page:
                for section in walk_sections(entry.army_list.sections):
                    if section.block is block:
                        return section
        return None

    def weapon_lists_of(self, unit: Unit) -> list[str]:
        names: list[str] = []
        if unit.weapons:
            for option in unit.weapons.options:
                names.extend(n for n in option.lists if n not in names)
            for swap in unit.weapons.swaps:
                names.extend(n for n in swap.lists if n not in names)
                names.extend(n for n in swap.with_ if n not in names and self.project.find("weapon_lists", n, self.scope) is not None)  # type: ignore[arg-type]
        return names

    def unit_cost(self, unit: Unit) -> CostRange | None:
        assert self.scope is not None
        return cost_of_unit(self.project, self.scope, unit)

    def built(self, model: BuiltModel) -> BuiltProfile | None:
        assert self.scope is not None
        return build(self.project, self.scope, model)

    def built_rules(self, model: BuiltModel, built: BuiltProfile) -> list[str]:
        """A built model's rules, in the order the source printed them where it printed them."""
        printed = [str(r) for r in model.printed.rules] if model.printed else []
        return sorted(built.rules, key=lambda r: printed.index(r) if r in printed else len(printed))

    def built_models_in(self, summary: ProfileSummary, army_list: ArmyList) -> list[BuiltModel]:
        if summary.of is None:
            return [s.built_model for s in walk_sections(army_list.sections) if s.built_model is not None]
        for section in walk_sections(army_list.sections):
            if section.title == summary.of:
                return [s.built_model for s in walk_sections(section.sections) if s.built_model is not None]
        return []

    def url(self, url: str) -> str:
        """An outside address from data, or '#' when it is not a plain web address."""
        return url if re.fullmatch(r"https?://[^\s()<>\"']+", str(url)) else "#"

    def link(self, page: str, anchor: str | None = None) -> str:
        return relative_link(self.page, page, anchor)

    def profile_columns(self, kind: str) -> list[Any]:
        return list(getattr(self.project.system.profiles, kind))

    def has(self, items: Iterable[Any], attr: str) -> bool:
        return any(_present(getattr(i, attr, None)) for i in items)

    def weapon_rows(self, weapon: Weapon) -> Iterator[tuple[str, dict[str, Any], tuple[str, ...], bool]]:
        """(name, profile, rules, first) for each line of a weapon: one, or one per firing mode."""
        name = f"{weapon.name} ({weapon.parameter})" if weapon.parameter else weapon.name
        if weapon.modes:
            yield name, weapon.profile or {}, weapon.rules, True
            for mode in weapon.modes:
                yield f"- {mode.name}", mode.profile, mode.rules, False
        else:
            yield name, weapon.profile or {}, weapon.rules, True

    def title_of(self, page: str) -> str:
        return self.map.titles.get(page, page)


def _present(value: Any) -> bool:
    """Whether a field holds something to show: 0 does, None, False and empty values do not."""
    if value is None or value is False:
        return False
    if isinstance(value, (str, tuple, list, dict)):
        return len(value) > 0
    return True


def cost_of_unit(project: Project, scope: Scope, unit: Unit) -> CostRange | None:
    def one(table: str, name: str) -> Any:
        found = project.find(table, name, scope)
        if found is None:
            return None
        return found.item[0] if isinstance(found.item, list) else found.item

    return unit_cost(
        unit,
        weapon_list=lambda n: one("weapon_lists", n),
        weapon=lambda n: one("weapons", n) or one("weapons", RuleUse.parse(n).name),
        upgrade=lambda n: one("upgrades", n),
    )


def build(project: Project, scope: Scope, model: BuiltModel) -> BuiltProfile | None:
    """A built model's profile and points, or None when its base does not resolve."""
    base_found = project.find("models", model.base, scope)
    if base_found is None:
        return None
    base: Model = base_found.item[0]  # type: ignore[index]
    upgrades: list[Upgrade] = []
    for name in model.upgrades:
        found = project.find("upgrades", name, scope)
        if found is not None:
            upgrades.append(found.item[0])  # type: ignore[index]
    weapons: list[Weapon] = []
    for name in model.weapons:
        found = project.find("weapons", name, scope)
        if found is not None:
            weapons.append(found.item[0])  # type: ignore[index]
    module = project.modules[scope.module]
    rules = module.army_building.cost if module.army_building else None
    return build_model(base, upgrades, weapons, rules)


def tidy(markdown: str) -> str:
    """At most one blank line in a row, and one newline at the end: pages a reviewer can read."""
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"


def register_filters(env: jinja2.Environment) -> None:
    """Every filter templates may use, in one place."""
    env.filters["text"] = escape_text
    env.filters["plain"] = plain
    env.filters["slug"] = slugify


# re-exported for templates' type comments and tests
__all__ = [
    "Directive",
    "PagePlan",
    "Renderer",
    "SiteMap",
    "Table",
    "UpgradeList",
    "WeaponList",
    "build_site_map",
    "escape_text",
    "find_directives",
    "relative_link",
    "safe_markdown",
]
