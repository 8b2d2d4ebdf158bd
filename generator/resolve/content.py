"""Bind what hand-written pages name: directives and their options, [[rule]] links, links to pages.

Each directive is bound here, once, to the rules or table it shows; the renderer only reads the
binding, so an option the checker accepts is one the renderer can use, and the other way round.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath
from typing import get_args

from ..catalogue import Project, Scope
from ..layout import RULE_LINK, Directive
from ..model import Module
from ..problems import Location, did_you_mean, position
from ..schema import type_hints
from .links import LINK, Site, bind_link, elsewhere
from .refs import DirectiveBinding, PageLink, RuleRef

#: The options each directive takes.
DIRECTIVE_OPTIONS = {"special-rules": ("kind", "level", "order"), "table": (), "modules": ("status",)}
#: How `order=` may sort a special-rules directive's rules: by name, or as the data lists them.
RULE_ORDERS = ("name", "source")
HEADING_LEVELS = range(2, 7)  # the page's title is its one level-1 heading


def page_scope(project: Project, page: str, listing: Mapping[str, str] | None = None) -> str | None:
    """The scope a hand-written page's [[links]] and rules are read in, decided in this one place.

    A page listed in a module's `pages` belongs to that module (the first that lists it); else a page in a
    module's folder does; else the page reads the core rules. Only a project without core rules leaves a page
    with none. `listing` is `listed_pages(project)`, given by a caller asking for every page.
    """
    listed = (listing if listing is not None else listed_pages(project)).get(page)
    if listed is not None:
        return listed
    folder = PurePosixPath(page).parts[0]
    if folder in project.modules:
        return folder
    return project.core_scope.key if project.core_scope else None


def listed_pages(project: Project) -> dict[str, str]:
    """Each page a module lists, with the first module that lists it: made once, so placing every page of a
    module of thousands is a look-up each, not a search of every module's pages."""
    listing: dict[str, str] = {}
    for module in project.modules.values():
        for path in module.pages:
            listing.setdefault(path, module.id)
    return listing


def content_links(project: Project, page: str, text: str, scope: Scope | None, path: str) -> Iterator[RuleRef]:
    """[[Rule]] links in a content page, bound in the page's scope."""
    for match in RULE_LINK.finditer(text):
        use = match["use"].strip()
        where = Location(path, *position(text, match.start()))
        parsed = project.parse_use(use, scope)
        found = project.rule(use, scope) if scope is not None else None
        yield RuleRef(use, where, "text link", scope, page, None, parsed, found, in_content=True)


# --- directives ------------------------------------------------------------------------------------


def bind_directive(project: Project, page: str, directive: Directive, where: Location) -> DirectiveBinding:
    """What one directive shows, or why it can show nothing."""
    unknown = [key for key in directive.options if key not in DIRECTIVE_OPTIONS.get(directive.name, directive.options)]
    if unknown:
        allowed = DIRECTIVE_OPTIONS[directive.name]
        return DirectiveBinding(
            page,
            directive,
            where,
            problem=f"{directive.name} has no option '{unknown[0]}'",
            hint=did_you_mean(unknown[0], list(allowed)) or (f"options: {', '.join(allowed)}" if allowed else "it takes no options"),
        )
    if directive.name == "special-rules":
        return _special_rules(project, page, directive, where)
    if directive.name == "table":
        return _table(project, page, directive, where)
    if directive.name == "modules":
        return _modules(page, directive, where)
    return DirectiveBinding(
        page,
        directive,
        where,
        problem=f"unknown directive '{directive.name}'",
        hint=did_you_mean(directive.name, list(DIRECTIVE_OPTIONS)) or "expected special-rules, table or modules",
    )


def _special_rules(project: Project, page: str, directive: Directive, where: Location) -> DirectiveBinding:
    kinds = project.system.rule_kinds
    if len(directive.args) != 1 or directive.args[0] not in project.scopes:
        name = directive.args[0] if directive.args else ""
        problem = f"special-rules names unknown scope '{name}'"
        return DirectiveBinding(page, directive, where, problem=problem, hint=did_you_mean(name, list(project.scopes)))
    kind = directive.options.get("kind", kinds[0])
    if kind not in kinds:
        problem = f"special-rules kind must be one of {', '.join(kinds)}, not '{kind}'"
        return DirectiveBinding(page, directive, where, problem=problem, hint=did_you_mean(kind, list(kinds)))
    level = directive.options.get("level", "3")
    if not level.isdigit() or int(level) not in HEADING_LEVELS:
        problem = f"special-rules level must be a heading level from 2 to 6, not '{level}'"
        return DirectiveBinding(page, directive, where, problem=problem, hint="write level=3")
    scope = project.scopes[directive.args[0]]
    order = directive.options.get("order", project.modules[scope.module].rule_order)
    if order not in RULE_ORDERS:
        problem = f"special-rules order must be one of {', '.join(RULE_ORDERS)}, not '{order}'"
        return DirectiveBinding(page, directive, where, problem=problem, hint=did_you_mean(order, list(RULE_ORDERS)))
    shown = "kind" in directive.options
    rules = [r for r in scope.unique_rules() if not shown or r.kind == kind]
    if order == "name":
        rules.sort(key=lambda r: r.name.lower())
    return DirectiveBinding(page, directive, where, scope=scope, rules=tuple(rules), level=int(level))


def _table(project: Project, page: str, directive: Directive, where: Location) -> DirectiveBinding:
    target = directive.args[0] if directive.args else ""
    module_id, _, table_id = target.partition("/")
    scope = project.scopes.get(module_id)
    table = scope.tables.get(table_id) if scope is not None else None
    if table is None or len(directive.args) != 1:
        choices = [f"{s.key}/{t}" for s in project.scopes.values() for t in s.tables if "/" not in s.key]
        problem = f"table '{target}' does not exist" if table is None else "table takes one MODULE/TABLE"
        return DirectiveBinding(page, directive, where, problem=problem, hint=did_you_mean(target, choices))
    return DirectiveBinding(page, directive, where, scope=scope, table=table)


def _modules(page: str, directive: Directive, where: Location) -> DirectiveBinding:
    statuses: tuple[str, ...] = get_args(type_hints(Module)["status"])
    status = directive.options.get("status", "released")
    if status not in statuses:
        problem = f"modules status must be one of {', '.join(statuses)}, not '{status}'"
        return DirectiveBinding(page, directive, where, problem=problem, hint=did_you_mean(status, list(statuses)))
    return DirectiveBinding(page, directive, where, status=status)


# --- links between pages ---------------------------------------------------------------------------


def page_links(page: str, text: str, path: str, site: Site) -> Iterator[PageLink]:
    """Relative links to pages and files of the site, each with whether its page (or file) and anchor exist."""
    for match in LINK.finditer(text):
        target = match["target"]
        if elsewhere(target):
            continue
        link_path, _, anchor = target.partition("#")
        dest = posixpath.normpath(posixpath.join(posixpath.dirname(page), link_path)) if link_path else ""
        link = bind_link(page, target, dest, anchor, Location(path, *position(text, match.start())), site, in_data=False)
        if link is not None:
            yield link
