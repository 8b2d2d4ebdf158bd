"""Pages and links: no two pages at one path, directives that show something, links that land."""

from __future__ import annotations

from collections.abc import Iterator

from ..problems import Location, Problem, did_you_mean, error
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
    """Every [% directive %] reads, and names what it shows, with options it takes."""
    yield from run.resolved.directive_syntax
    for page in sorted(run.resolved.directives):
        for binding in run.resolved.directives[page]:
            if binding.problem:
                yield error(binding.where, "directive", binding.problem, binding.hint)


def check_page_links(run: CheckRun) -> Iterator[Problem]:
    """Links between pages must reach a page that exists and, where we can know it, an anchor on it."""
    for link in run.resolved.page_links:
        if not link.page_exists:
            hint = did_you_mean(link.dest, run.resolved.page_paths)
            yield error(link.where, "broken-link", f"link to '{link.path}', which is no page of this site", hint)
        elif link.anchor_exists is False:
            hint = did_you_mean(link.anchor, sorted(run.resolved.anchors[link.dest]))
            yield error(link.where, "broken-link", f"link to '{link.target}': page '{link.dest}' has no anchor '{link.anchor}'", hint)
