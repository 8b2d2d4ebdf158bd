"""Render the model into Markdown pages through Jinja templates. No I/O happens here.

Pages come out as Markdown, not HTML, so that MkDocs builds the table of contents, search entries
and link checks from them as it does for hand-written pages. Every heading of a generated page gets
an explicit id computed here in page order, the same way MkDocs numbers repeated headings, so that
links can point at any heading before it is rendered and public anchors stay stable.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from types import MethodType
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.runtime
from markdown.extensions.toc import unique

from . import markup
from .catalogue import Project, Scope, walk_sections
from .checks.design import has_costs, rule_kind_label
from .layout import (
    DIRECTIVE,
    RULE_LINK,
    ListEntry,
    PagePlan,
    find_directives,
    module_terms,
    relative_file,
    relative_link,
    unit_heading,
)
from .markup import outline_text
from .model import ArmyList, BuiltModel, Module, ProfileSummary, ReleaseEntry, Section, SpecialRule, Unit, Weapon, fill, slugify
from .points import BuiltProfile, CostRange
from .releases import TEXT_FIELDS, last_changes, word_segments
from .resolve import DirectiveBinding, Resolved
from .resolve.links import LINK, REFERENCE, may_link, site_relative
from .untrusted import WEB_ADDRESS

# --- escaping ------------------------------------------------------------------------------------


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"} | {ch: f"\\{ch}" for ch in "\\`*_[]|{}#"})
#: Any character `escape_text` changes: most names and values hold none, and a search is a fifth of a translation.
_TO_ESCAPE = re.compile("[" + re.escape("".join(map(chr, _ESCAPES))) + "\r\n]")


#: A line break with the spaces around it: in text that is not Markdown it would end a heading, a table row or
#: a paragraph and start a list or a quote of the data's own.
_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n?|\n)\s*")
#: A list or quote marker at the start of a text, which the page would read as one where the text starts a line.
_BLOCK_MARKER = re.compile(r"(?:[-+>]|[0-9]{1,9}[.)])(?=[ \t]|$)")


#: The characters a list or quote marker starts with: a text that starts with none of them needs no look for one.
_MARKER_STARTS = frozenset("-+>0123456789")


def escape_text(text: Any) -> str:
    """Data text as Markdown that shows it literally, on one line: no HTML from data ever reaches a page, and
    no heading, list or quote of its own. A page calls it for every name and value it shows (some 60,000
    times at 10x the shipped data), so a text is translated only when it holds a character to escape, and the
    marker's pattern runs only on a text that could start one."""
    escaped = text if isinstance(text, str) else str(text)
    if _TO_ESCAPE.search(escaped) is not None:
        if "\n" in escaped or "\r" in escaped:
            escaped = _LINE_BREAK.sub(" ", escaped)
        escaped = escaped.translate(_ESCAPES)
    if not escaped or escaped[0] not in _MARKER_STARTS:
        return escaped
    marker = _BLOCK_MARKER.match(escaped)
    return escaped if marker is None else f"{escaped[: marker.end() - 1]}\\{escaped[marker.end() - 1 :]}"


@lru_cache(maxsize=8192)
def plain(text: str) -> str:
    """Markdown from data as one line of plain text, for tooltips: formatting goes, characters stay."""
    source = str(text)
    source = RULE_LINK.sub(lambda m: m["use"], source) if "[[" in source else source
    if markup.is_plain(source):  # the text of `<p>source</p>`, without parsing it
        return source
    return markup.text_content(markup.render(source).html)


#: A run with none of the characters the restricted Markdown reads as syntax, and no list or quote marker.
_NO_MARKUP = re.compile(r"(?![-+>] |\d+[.)] )[^*_`\[\]<>&\\#!~]*")


def plain_words(text: str) -> str:
    """A run of words cut from Markdown in data (a part of a word diff) as a reader sees it: formatting and
    `[[rule]]` brackets go; the spaces at its ends, which part it from the next run, stay."""
    core = text.strip()
    if not core or _NO_MARKUP.fullmatch(core):  # most runs: words no Markdown reads, shown as they are
        return text
    start = text.index(core[0])
    return text[:start] + plain(core) + text[start + len(core) :]


def heading_text(text: Any) -> str:
    """Data text for a heading: literal, and safe in the menu and table of contents it feeds."""
    return escape_text(outline_text(text))


def page_title(text: Any) -> str:
    """A page title from data for the page's front matter, as a YAML string.

    MkDocs themes write `page.title` into the menu and `<title>` as HTML, so it is escaped here
    once; a title taken from the page's heading instead would reach `<title>` unescaped (Material
    strips its tags and decodes its entities there).
    """
    return json.dumps(html.escape(" ".join(outline_text(text).split()), quote=False))


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


# --- the renderer -------------------------------------------------------------------------------


class Renderer:
    """Renders pages for one project; templates receive this object as `site`."""

    def __init__(self, resolved: Resolved, template_dirs: Iterable[str] = ()) -> None:
        self.resolved = resolved
        self.project: Project = resolved.project
        self.map = resolved.site_map
        self.env = environment(tuple(template_dirs))
        self.page = ""
        self.scope: Scope | None = None
        self.plan: PagePlan | None = None
        self.terms: dict[str, str] = module_terms(None, self.project.system.labels)
        #: Each module's words (None: the system's), made once: every page of a module shows the same.
        self._terms_of: dict[str | None, dict[str, str]] = {None: self.terms}
        #: The rules this page links to, by where they are defined: the page's "rules used" list.
        self.used: dict[tuple[str, str], SpecialRule] = {}
        #: This page's rule links by (use, scope key): what `rule_link` gives, where it points, the rule.
        self._links: dict[tuple[str, str], tuple[str | None, tuple[str, str] | None, Any]] = {}
        self._last_changes: dict[tuple[str, str], Any] | None = None
        self._templates: dict[str, jinja2.Template] = {}
        self._sections: dict[tuple[str, int], Section] | None = None

    def template(self, name: str) -> jinja2.Template:
        """A template, looked up once per rendering (Jinja would check its file for changes on every use)."""
        found = self._templates.get(name)
        if found is None:
            found = self._templates[name] = self.env.get_template(name)
        return found

    # -- pages --

    def _render(self, template: str, page: str, scope: Scope | None, module: Module | None = None, **context: Any) -> str:
        """A page in the words of `module` (its terms over the system's labels), or of the system alone."""
        self.page, self.scope = page, scope
        self.plan = self.map.plans.get(page)
        self.used, self._links = {}, {}
        key = module.id if module else None
        terms = self._terms_of.get(key)
        if terms is None:
            terms = self._terms_of[key] = module_terms(module, self.project.system.labels)
        self.terms = terms
        return tidy(self.template(template).render(site=self, module=module, terms=self.terms, **context))

    def army_list_page(self, entry: ListEntry) -> str:
        module = self.project.modules[entry.module]
        return self._render("army_list.md.j2", entry.page, self.project.scopes[entry.key], module, army_list=entry.army_list)

    def module_index(self, module: Module) -> str:
        pages = [(p, self.map.titles.get(p, p)) for p in module.pages]
        errata_page = f"{module.id}/errata" if module.errata else None
        return self._render(
            "module_index.md.j2", f"{module.id}/index", self.project.scopes[module.id], module, pages=pages, errata_page=errata_page
        )

    def errata_page(self, module: Module) -> str:
        return self._render("errata.md.j2", f"{module.id}/errata", self.project.scopes[module.id], module)

    def modules_page(self, page: str, status: str, title: str) -> str:
        modules = [m for m in self.project.ordered_modules() if m.status == status and not m.core]
        intro = self.project.system.summary if status == "released" else ""
        # the system's summary opens the released games, read in the core rules' scope as the resolve stage bound it
        return self._render("modules.md.j2", page, self.project.core_scope, modules=modules, title=title, intro=intro)

    def changes_page(self, page: str) -> str:
        releases = sorted(self.project.releases, key=lambda r: (r.date, r.name), reverse=True)
        titles = {m.id: m.title for m in self.project.modules.values()}
        return self._render(
            "changes.md.j2",
            page,
            self.project.core_scope,  # the site-wide texts' [[links]] read the core rules, as the resolve stage bound them
            system=self.project.system,
            modules=self.project.ordered_modules(),
            releases=releases,
            titles=titles,
        )

    def rules_index_page(self, page: str) -> str:
        """Every rule by module, with the army-list pages that use it (as the resolve stage found them)."""
        list_pages = frozenset(self.map.list_pages.values())
        usage = {key: [(p, self.title_of(p)) for p in pages] for key, pages in self.resolved.used_on(list_pages).items()}
        groups = []
        for module in self.project.ordered_modules():
            scopes = [self.project.scopes[module.id]] + [self.project.scopes[e.key] for e in self.project.lists if e.module == module.id]
            rules = [(s.key, r) for s in scopes for r in s.unique_rules()]
            if rules:
                groups.append((module, sorted(rules, key=lambda sr: sr[1].name.lower())))
        return self._render("rules_index.md.j2", page, None, groups=groups, usage=usage)

    def licences_page(self, page: str) -> str:
        """Each module's licence, and under it the notice of each of its army lists that carries one (fan-made
        lists keep their own terms: the Licences page is where a reader looks for them)."""
        notices: dict[str, list[tuple[str, str, str]]] = {}
        for entry in self.project.lists:
            if entry.army_list.notice and entry.page in self.map.titles:
                notices.setdefault(entry.module, []).append((entry.key, entry.page, entry.army_list.notice))
        modules = self.project.ordered_modules()
        return self._render("licences.md.j2", page, None, system=self.project.system, modules=modules, notices=notices)

    # -- content directives --

    def expand(self, page: str, text: str) -> str:
        """Replace directives and [[rule]] links in a hand-written page, as the resolve stage bound them."""
        scope_key = self.resolved.page_scopes.get(page)
        scope = self.project.scopes.get(scope_key) if scope_key else None
        self.page, self.scope, self.plan = page, scope, None
        self.used, self._links = {}, {}

        def replace(match: re.Match[str]) -> str:
            found, _ = find_directives(match.group(0), "")
            if not found:
                return match.group(0)
            return self.directive(self.resolved.directive(page, found[0]))

        return self.link_rules(DIRECTIVE.sub(replace, text), scope)

    def directive(self, binding: DirectiveBinding) -> str:
        """What a bound directive shows; one the checker reported shows nothing."""
        if binding.problem:
            return ""
        if binding.table is not None:
            self.scope = binding.scope
            return self.template("table.md.j2").render(site=self, table=binding.table)
        if binding.scope is not None:
            self.scope = binding.scope
            template = self.template("special_rules.md.j2")
            return template.render(site=self, rules=list(binding.rules), level=binding.level, scope_key=binding.scope.key)
        modules = [m for m in self.project.ordered_modules() if m.status == binding.status and not m.core]
        return self.template("module_cards.md.j2").render(site=self, modules=modules)

    def link_rules(self, text: str, scope: Scope | None) -> str:
        if "[[" not in text:  # most data texts link no rule: no substitution to run
            return text

        def replace(match: re.Match[str]) -> str:
            use = match["use"].strip()
            return self.rule_link(use, scope) or escape_text(use)

        return RULE_LINK.sub(replace, text)

    # -- helpers for templates --

    def relink(self, text: str) -> str:
        """Links in data are read from the site's root (`resolve.links`): each is pointed at its page or file
        from the page being rendered."""
        if not may_link(text):
            return text

        def replace(match: re.Match[str]) -> str:
            found = site_relative(match["target"])
            if found is None:
                return match[0]
            path, anchor = found
            if path.endswith(".md"):
                target = relative_link(self.page, path.removesuffix(".md"), anchor or None)
            else:
                target = relative_file(self.page, path) + (f"#{anchor}" if anchor else "")
            start, end = match.span("target")
            return f"{match[0][: start - match.start()]}{target}{match[0][end - match.start() :]}"

        return REFERENCE.sub(replace, LINK.sub(replace, text))

    def _fragment(self, text: str, scope_key: str | None = None) -> str:
        scope = self.project.scopes[scope_key] if scope_key else self.scope
        return markup.render(self.link_rules(self.relink(str(text)), scope)).html

    def md(self, text: str | None, scope_key: str | None = None) -> str:
        """Markdown from data, with [[rule]] links resolved in the current scope, as inert Markdown blocks.

        The fragment is rendered by the restricted dialect and sanitised (generator/markup.py), so
        the page's own Markdown extensions can neither run nor reinterpret anything in it. `scope_key`: the
        module whose text it is, on a page of no module's (the landing pages, Licences).
        """
        if not text:
            return ""
        return markup.embed_block(self._fragment(text, scope_key))

    def cell(self, text: Any, scope_key: str | None = None) -> str:
        """Markdown from data for one table cell: one line, nothing the table could split on."""
        if text is None or text == "":
            return ""
        return markup.embed_inline(self._fragment(str(text), scope_key))

    def value(self, value: Any) -> str:
        return escape_text(value)

    def profile_cells(self, profile: dict[str, Any], columns: Iterable[Any]) -> str:
        """A row's profile values, ` value |` for each column, shown literally: one call for the row."""
        return "".join(f" {escape_text(profile.get(c.key, ''))} |" for c in columns)

    def rule_link(self, use: str, scope: Scope | None = None) -> str | None:
        """A use of a rule as a link to its definition with its text as tooltip (None if it names no rule).

        Memoised per page: a list page names the same few rules in row after row.
        """
        scope = scope or self.scope
        if scope is None:
            return None
        key = (use, scope.key)
        if key in self._links:
            link, place, rule = self._links[key]
            if place is not None:
                self.used.setdefault(place, rule)
            return link
        found = self._links[key] = self._rule_link(use, scope)
        if found[1] is not None:
            self.used.setdefault(found[1], found[2])
        return found[0]

    def _rule_link(self, use: str, scope: Scope) -> tuple[str | None, tuple[str, str] | None, Any]:
        """(link, (page, anchor) the link points at, the rule) for one use in one scope, on this page."""
        found = self.resolved.rule(use, scope.key)
        if found is None:
            return None, None, None
        place = self.map.rule_place(found.scope, found.item)
        if place is None:
            return escape_text(use), None, None
        page, anchor = place
        value = self.project.parse_use(use, scope).value
        # The value a use gives the rule's parameter, for the rule's pop-up; percent-encoded, so no
        # character of it can end the attribute.
        given = f' data-rule-value="{quote(value, safe="")}"' if value and value != found.item.parameter else ""
        attrs = f"{{ .rule-link{given} }}"
        link = f'[{escape_text(use)}]({relative_link(self.page, page, anchor)} "{title_attr(found.item.text)}"){attrs}'
        return link, (page, anchor), found.item

    def rules_used(self) -> list[tuple[SpecialRule, str, str]]:
        """(rule, link to its definition, anchor here) for each rule this page has linked so far, by name.

        Rules defined on this page are left out: their definition is already here.
        """
        taken = set(self.plan.used) if self.plan else set()
        out = []
        for (page, anchor), rule in sorted(self.used.items(), key=lambda item: item[1].name.lower()):
            if page == self.page:
                continue
            here = unique(f"used-{anchor}", taken)
            taken.add(here)
            out.append((rule, relative_link(self.page, page, anchor), here))
        return out

    def unique_anchor(self, anchor: str) -> str:
        """`anchor`, or a numbered form of it when this page's plan already uses it."""
        return unique(anchor, set(self.plan.used)) if self.plan else anchor

    def attr(self, text: str | None) -> str:
        """Data text inside an attr_list attribute: percent-encoded (the page's script decodes it)."""
        return quote(str(text or ""), safe=" ")

    def last_change(self, unit: Unit) -> dict[str, str] | None:
        """The latest recorded release that changed this unit or one of its models, for its section:
        the release's name and link, and what changed as Markdown in the page's words."""
        if self._last_changes is None:
            self._last_changes = last_changes(self.project.releases)
        found = self._last_changes.get((self.page, slugify(unit.name)))
        if found is None:
            return None
        release, entry = found
        what = "; ".join(
            self.say("reworded", what=escape_text(d.what))
            if d.words or d.what in TEXT_FIELDS
            else self.say("value_changed", what=escape_text(d.what), old=escape_text(d.old or "-"), new=escape_text(d.new or "-"))
            for d in entry.details
        )
        changes = self.project.system.landing_pages.changes
        title = f"{release.name} ({release.date})" if release.date else release.name
        return {
            "release": release.name,
            "what": what or self.change_words(entry),
            "link": self.link(changes, slugify(title)) if changes else "",
        }

    def change_words(self, entry: ReleaseEntry) -> str:
        """What a release did to a thing ('added', 'renamed from …'), as Markdown in the site's words."""
        return self.say(entry.change, old_name=escape_text(entry.old_name))

    def thing_word(self, kind: str) -> str:
        """The site's word for a kind of thing a release changed ('weapon list' → label `thing_weapon_list`)."""
        return self.say("thing_" + kind.replace(" ", "_"))

    def say(self, key: str, **values: Any) -> str:
        """A label of this page as Markdown that shows its words literally, with `values` (Markdown the
        caller made safe: links, escaped text, numbers) put in at their `{name}`; one line."""
        return fill(" ".join(self.terms[key].split()), {k: str(v) for k, v in values.items()}, escape_text)

    def kind_label(self, kind: str) -> str:
        return rule_kind_label(self.project, kind)

    def quick_facts(self, module: Module) -> list[tuple[str, str]]:
        """(label, value as Markdown) for each fact the module's data gives, for the table atop its page."""
        building = module.army_building
        currency = f" {escape_text(module.currency.name)}" if module.currency else ""
        facts: list[tuple[str, str | None]] = [
            ("rounds", f"{module.rounds}" if module.rounds else None),
            ("battlefield", escape_text(module.battlefield) if module.battlefield else None),
            ("costs_in", escape_text(module.currency.name) if module.currency and self.has_costs(module) else None),
        ]
        if building is not None:
            facts += [
                ("budget", f"{building.budget}{currency}" if building.budget else None),
                ("max_units", f"{building.max_units}" if building.max_units else None),
                ("per_item_budget", None if building.per_item_budget is None else f"{building.per_item_budget}{currency}"),
                (
                    "pooled_budget_per_item",
                    None if building.pooled_budget_per_item is None else f"{building.pooled_budget_per_item}{currency}",
                ),
                ("typical_size", None if building.typical_size is None else escape_text(building.typical_size)),
            ]
        return [(self.say(key), value) for key, value in facts if value is not None]

    def has_costs(self, module: Module) -> bool:
        return has_costs(self.project, module)

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
        return f"{'#' * min(level, 6)} {heading_text(text)} {{ #{anchor} }}"

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
        if self._sections is None:  # each block's section, found once for every page
            self._sections = {}
            for entry in self.project.lists:
                for section in walk_sections(entry.army_list.sections):
                    if section.block is not None:
                        self._sections.setdefault((entry.page, id(section.block)), section)
        return self._sections.get((page, id(block)))

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
        return self.project.unit_cost(unit, self.scope)

    def built(self, model: BuiltModel) -> BuiltProfile | None:
        """A built model as the resolve stage built it (the same profile the checker compared)."""
        return self.resolved.built.get(id(model))

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
        return url if re.fullmatch(WEB_ADDRESS, str(url)) else "#"  # the schema refuses any other (`web_address`)

    def link(self, page: str, anchor: str | None = None) -> str:
        """A link target for a Markdown link; an anchor from data is percent-encoded so it stays one URL."""
        return relative_link(self.page, page, quote(anchor, safe="-_.~") if anchor else None)

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


def tidy(markdown: str) -> str:
    """At most one blank line in a row, and one newline at the end: pages a reviewer can read.

    Runs of newlines are halved with `str.replace` until none is three long: a regular expression scanning
    every page for them cost a twentieth of rendering the army lists."""
    while "\n\n\n" in markdown:
        markdown = markdown.replace("\n\n\n", "\n\n")
    return markdown.strip() + "\n"


class _Context(jinja2.runtime.Context):
    """Calls the renderer's own methods straight away.

    Jinja's `Context.call` looks every callable over for `pass_context`-style markers first, a fifth of
    an army-list page's rendering; the renderer's methods carry none (checked here per call, cheaply).
    """

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if type(__obj) is MethodType and type(__obj.__self__) is Renderer and "jinja_pass_arg" not in __obj.__func__.__dict__:
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:
                return __self.environment.undefined("value was undefined because a callable raised a StopIteration exception")
        return super().call(__obj, *args, **kwargs)


@lru_cache(maxsize=8)
def environment(template_dirs: tuple[str, ...]) -> jinja2.Environment:
    """One Jinja environment per set of template folders, kept for the process.

    `mkdocs serve` renders again on every save; templates compile once, and their compiled form is
    cached on disk (keyed by the template's source, so an edited override is recompiled).
    """
    loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(list(template_dirs))] if template_dirs else []
    loaders.append(jinja2.PackageLoader("generator", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=False,  # the output is Markdown; every data string goes through a filter in Renderer
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.context_class = _Context
    register_filters(env)
    return env


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    import os
    import tempfile

    folder = os.path.join(tempfile.gettempdir(), f"rules-templates-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if os.stat(folder).st_uid != os.getuid():  # never load compiled code another user could have written
            return None
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(folder)


def register_filters(env: jinja2.Environment) -> None:
    """Every filter templates may use, in one place."""
    env.filters["text"] = escape_text
    env.filters["plain"] = plain
    env.filters["plain_words"] = plain_words
    env.filters["slug"] = slugify
    env.filters["page_title"] = page_title
    env.filters["heading"] = heading_text
    env.filters["word_segments"] = word_segments


# re-exported for templates' type comments and tests
