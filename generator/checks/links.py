"""Pages and links: no two pages at one path, directives that show something, links that land."""

from __future__ import annotations

from collections.abc import Iterator

from ..layout import in_menu_unlisted
from ..model import slugify
from ..problems import Location, Problem, did_you_mean, error, warning
from .base import CheckRun


def check_page_collisions(run: CheckRun) -> Iterator[Problem]:
    """Two army lists, or a hand-written and a generated page, at one path."""
    owners: dict[str, str] = {}
    for entry in run.project.lists:
        if entry.page in owners:
            message = f"army list '{entry.key}' generates page '{entry.page}', which {owners[entry.page]} also generates"
            yield error(entry.army_list.loc, "page-collision", message)
        owners[entry.page] = entry.file
    content = run.resolved.content
    for page, source in sorted(run.resolved.generated.items()):
        if page in content:
            yield error(
                Location(f"{run.content_dir}/{page}.md", 1, 1),
                "page-collision",
                f"hand-written page {run.content_dir}/{page}.md has the same path as the page generated from {source}",
                "rename or remove one of them; generated pages never overwrite hand-written ones",
            )


def check_directives(run: CheckRun) -> Iterator[Problem]:
    """Every [% directive %] reads, and names what it shows, with options it takes; a page shows a rule's
    definition once (a second would repeat its heading's anchor)."""
    yield from run.resolved.directive_syntax
    for page in sorted(run.resolved.directives):
        shown: dict[str, int] = {}
        for binding in run.resolved.directives[page]:
            if binding.problem:
                yield error(binding.where, "directive", binding.problem, binding.hint)
                continue
            again = sorted({rule.name for rule in binding.rules if slugify(rule.name) in shown})
            if again:
                first = shown[slugify(again[0])]
                message = f"special-rules shows '{again[0]}' a second time on this page (first by line {first})"
                yield error(binding.where, "directive", message, "give each directive its own scope or kind=")
            for rule in binding.rules:
                shown.setdefault(slugify(rule.name), binding.where.line)


_FROM_ROOT = "links in data are read from the content folder ('core/rules.md#cover'), whichever page shows them"


def check_page_links(run: CheckRun) -> Iterator[Problem]:
    """Links between pages must reach a page that exists and, where we can know it, an anchor on it."""
    for link in run.resolved.page_links:
        if link.to_file and not link.page_exists:
            message = f"link to '{link.path}': there is no {run.content_dir}/{link.dest}"
            yield error(link.where, "broken-link", message, _FROM_ROOT if link.in_data else "", offset=link.offset)
        elif not link.page_exists:
            hint = did_you_mean(link.dest, run.resolved.page_paths)
            if link.in_data:
                hint = f"{hint} {_FROM_ROOT[0].upper()}{_FROM_ROOT[1:]}." if hint else _FROM_ROOT
            yield error(link.where, "broken-link", f"link to '{link.path}', which is no page of this site", hint, offset=link.offset)
        elif link.anchor_exists is False:
            hint = did_you_mean(link.anchor, sorted(run.resolved.anchors[link.dest]))
            message = f"link to '{link.target}': page '{link.dest}' has no anchor '{link.anchor}'"
            yield error(link.where, "broken-link", message, hint, offset=link.offset)


def check_unlisted_pages(run: CheckRun) -> Iterator[Problem]:
    """A content page no module lists and no other page links to is published where no menu or link leads."""
    listed = {ref.path for ref in run.resolved.pages if ref.listed}
    linked = {link.dest for link in run.resolved.page_links if link.page_exists and link.dest != link.page}
    for page in sorted(run.resolved.content):
        if in_menu_unlisted(page) or page in listed or page in linked:
            continue
        folder = page.split("/")[0]
        module = run.project.modules.get(folder) if "/" in page else None
        hint = f"add '{page}' to the pages of module '{module.id}'" if module else "list it in a module's pages, or link to it from a page"
        message = f"page '{page}' is in no module's pages and no page links to it: it is published, but no menu or link leads there"
        yield warning(Location(f"{run.content_dir}/{page}.md", 1, 1), "unlisted-page", message, hint)
