"""The resolve stage: bind every name, link and directive once, decide each page's scope and plan.

It sits between the model and the checks. Its result, `Resolved`, is read by the checks (which
report what did not bind or does not add up) and by the renderer (which shows what did), so a
project that checks clean is one that builds, and a reference can never be checked one way and
rendered another.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from ..catalogue import Found, Project
from ..layout import Directive, SiteMap, build_site_map, find_directives, generated_paths, heading_ids
from ..model import Record, SpecialRule, slugify
from ..points import BuiltProfile
from ..problems import Location, Problem
from .content import bind_directive, content_links, listed_pages, page_links, page_scope
from .data import bind_data
from .links import Site
from .refs import CategoryRef, DirectiveBinding, ModelRef, NameRef, PageLink, PageRef, RuleRef

#: Where each rule is used: (scope key, rule slug) → (page, place) pairs.
RuleUsage = Mapping[tuple[str, str], tuple[tuple[str, Location], ...]]


@dataclass(frozen=True)
class Resolved:
    """Everything the later stages read, bound once; nothing here is changed after `resolve`."""

    project: Project
    content: Mapping[str, str]
    content_dir: str
    generated: Mapping[str, str]
    page_scopes: Mapping[str, str | None]
    site_map: SiteMap
    anchors: Mapping[str, frozenset[str]]
    directives: Mapping[str, tuple[DirectiveBinding, ...]]
    directive_syntax: tuple[Problem, ...]
    rules: tuple[RuleRef, ...]
    names: tuple[NameRef, ...]
    models: tuple[ModelRef, ...]
    categories: tuple[CategoryRef, ...]
    pages: tuple[PageRef, ...]
    page_links: tuple[PageLink, ...]
    built: Mapping[int, BuiltProfile]
    #: (record, field name, text) of every Markdown string under the system, each module, army list and release,
    #: by the id of that record: read once, here, by every check of data texts.
    texts: Mapping[int, tuple[tuple[Record, str, str], ...]]
    rule_usage: RuleUsage
    rule_bindings: Mapping[tuple[str | None, str], Found[SpecialRule] | None]

    @property
    def page_paths(self) -> list[str]:
        """Every page of the site: hand-written, then generated."""
        return [*self.content, *self.generated]

    def unbound(self) -> list[object]:
        """Every reference that binds to nothing, of every kind."""
        refs: list[object] = [r for r in self.rules if r.found is None]
        refs += [n for n in self.names if not n.bound]
        refs += [m for m in self.models if not m.bound]
        refs += [c for c in self.categories if c.target is None]
        refs += [p for p in self.pages if not p.exists]
        return refs + self._unbound_in_content()

    def _unbound_in_content(self) -> list[object]:
        refs: list[object] = [d for bindings in self.directives.values() for d in bindings if d.problem]
        return refs + [link for link in self.page_links if not link.page_exists or link.anchor_exists is False]

    def directive(self, page: str, directive: Directive) -> DirectiveBinding:
        """The binding of a directive line of a page (matched by its text: front matter may shift lines)."""
        for binding in self.directives.get(page, ()):
            if binding.directive.text.strip() == directive.text.strip():
                return binding
        return bind_directive(self.project, page, directive, Location(f"{self.content_dir}/{page}.md", directive.line, 1))

    def rule(self, use: str, scope_key: str | None) -> Found[SpecialRule] | None:
        """A rule use as the resolve stage bound it in a scope."""
        if (scope_key, use) in self.rule_bindings:
            return self.rule_bindings[(scope_key, use)]
        if scope_key is None:
            return None
        return self.project.rule(use, self.project.scopes[scope_key])

    def used_on(self, pages: set[str] | frozenset[str]) -> dict[tuple[str, str], list[str]]:
        """Each rule's uses on the given pages, as sorted page paths."""
        usage: dict[tuple[str, str], list[str]] = {}
        for key, places in self.rule_usage.items():
            found = sorted({page for page, _ in places if page in pages})
            if found:
                usage[key] = found
        return usage


def resolve(project: Project, content: Mapping[str, str], content_dir: str = "content", files: frozenset[str] = frozenset()) -> Resolved:
    """Bind every reference of a project and its content pages, and plan every page, once. `files`: the content
    folder's files other than pages (`core/map.png`), which links may lead to."""
    generated = generated_paths(project)
    all_pages = frozenset([*content, *generated])
    parsed, syntax = _read_directives(content, content_dir)
    site_map = build_site_map(project, dict(content), {p: list(d) for p, d in parsed.items()})
    anchors = _anchors(content, site_map)
    site = Site(all_pages, files, anchors)
    data = bind_data(project, site)
    listing = listed_pages(project)
    scopes = {page: page_scope(project, page, listing) for page in content}
    directives: dict[str, tuple[DirectiveBinding, ...]] = {}
    rules = list(data.rules)
    links: list[PageLink] = list(data.page_links)
    for page, text in sorted(content.items()):
        path = f"{content_dir}/{page}.md"
        directives[page] = tuple(bind_directive(project, page, d, Location(path, d.line, 1)) for d in parsed[page])
        scope_key = scopes[page]
        rules += content_links(project, page, text, project.scopes[scope_key] if scope_key else None, path)
        links += page_links(page, text, path, site)
    return Resolved(
        project=project,
        content=content,
        content_dir=content_dir,
        generated=generated,
        page_scopes=scopes,
        site_map=site_map,
        anchors={page: frozenset(ids) for page, ids in anchors.items()},
        directives=directives,
        directive_syntax=tuple(syntax),
        rules=tuple(rules),
        names=tuple(data.names),
        models=tuple(data.models),
        categories=tuple(data.categories),
        pages=tuple(data.pages),
        page_links=tuple(links),
        built=data.built,
        texts=data.texts,
        rule_usage=_usage(rules),
        rule_bindings={(r.scope.key if r.scope else None, str(r.use)): r.found for r in rules},
    )


def _read_directives(content: Mapping[str, str], content_dir: str) -> tuple[dict[str, tuple[Directive, ...]], list[Problem]]:
    parsed: dict[str, tuple[Directive, ...]] = {}
    problems: list[Problem] = []
    for page, text in content.items():
        found, bad = find_directives(text, f"{content_dir}/{page}.md")
        parsed[page] = tuple(found)
        problems += bad
    return parsed, problems


def _anchors(content: Mapping[str, str], site_map: SiteMap) -> dict[str, set[str]]:
    """The anchors each page will have: hand-written headings, rules placed on it, planned ids."""
    anchors: dict[str, set[str]] = {page: set(heading_ids(text)) for page, text in content.items()}
    for (page, _rule), anchor in site_map.rule_anchors.items():
        anchors.setdefault(page, set()).add(anchor)
    for page, plan in site_map.plans.items():
        anchors[page] = set(plan.ids.values())
    return anchors


def _usage(rules: list[RuleRef]) -> dict[tuple[str, str], tuple[tuple[str, Location], ...]]:
    usage: dict[tuple[str, str], list[tuple[str, Location]]] = defaultdict(list)
    for ref in rules:
        if ref.found is not None:
            usage[(ref.found.scope, slugify(ref.found.item.name))].append((ref.page, ref.where))
    return {key: tuple(places) for key, places in usage.items()}


__all__ = [
    "CategoryRef",
    "DirectiveBinding",
    "ModelRef",
    "NameRef",
    "PageLink",
    "PageRef",
    "Resolved",
    "RuleRef",
    "page_scope",
    "resolve",
]
