"""Links to pages of the site written in data: found here for the checks and rewritten by the renderer.

A data text is shown on many pages (its module's, the Rules Index, a content page's directive), so a
relative link in it cannot be read from the page it lands on. It is read from the site's root, the
content folder (`[Cover](core/rules.md#cover)`), checked here once, and the renderer points it right
from every page that shows the text (`Renderer.relink`), with the same patterns, so what is checked is
what is published.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Set
from typing import NamedTuple
from urllib.parse import unquote

from ..problems import Location
from ..untrusted import REFERENCE_DEFINITION
from .refs import PageLink

#: An inline link or image: `](target)` or `](target "title")`.
LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
REFERENCE = re.compile(REFERENCE_DEFINITION, re.MULTILINE)
_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


class Site(NamedTuple):
    """What a link is checked against."""

    pages: Set[str]
    #: The content folder's files other than pages, by path in it (`core/map.png`).
    files: Set[str]
    anchors: Mapping[str, Set[str]]


def may_link(text: str) -> bool:
    """Whether a text could hold a link at all: most data texts cannot, and skip the patterns."""
    return "](" in text or "]:" in text


def elsewhere(target: str) -> bool:
    """Whether a link leaves the site: a URL with a scheme, or one to another host (`//host`)."""
    return _SCHEME.match(target) is not None or target.startswith("//")


def site_relative(target: str) -> tuple[str, str] | None:
    """(path from the site's root, anchor) of a link target written in data; None for a link elsewhere or an
    anchor alone, which mean the same on every page."""
    if elsewhere(target) or target.startswith("#"):
        return None
    path, _, anchor = target.partition("#")
    return posixpath.normpath(path.lstrip("/")), anchor


def is_file_link(path: str) -> bool:
    """Whether a link's path names a file other than a page (`core/map.png`): one MkDocs looks for among the
    content folder's files, and refuses in a strict build when it is not there."""
    name = posixpath.basename(path)
    return "." in name.strip(".") and not name.endswith(".md")


def bind_link(
    page: str, target: str, dest: str, anchor: str, where: Location, site: Site, in_data: bool, offset: int = -1
) -> PageLink | None:
    """One link, its path already read from the site's root (`dest`, '' for an anchor alone): to a page, with
    whether it and its anchor exist, or to a file of the content folder, with whether it exists; None for
    anything else (a folder, a path without a suffix). `offset`: in a data text, where the link is in it."""
    written = target.partition("#")[0]
    if is_file_link(dest):
        exists = unquote(dest) in site.files
        return PageLink(page, target, written, dest, "", where, exists, None, in_data=in_data, to_file=True, offset=offset)
    if dest and not dest.endswith(".md"):
        return None
    dest = dest.removesuffix(".md") if dest else page
    exists = dest in site.pages
    anchor_ok = (anchor in site.anchors[dest]) if anchor and exists and dest in site.anchors else None
    return PageLink(page, target, written, dest, anchor, where, exists, anchor_ok, in_data=in_data, offset=offset)


def data_links(text: str, where: Location, page: str, site: Site) -> Iterator[PageLink]:
    """The links to pages and files in one data text (at `where`, shown first on `page`)."""
    for pattern in (LINK, REFERENCE):
        for match in pattern.finditer(text):
            found = site_relative(match["target"])
            if found is not None and found[0] not in ("", "."):
                link = bind_link(page, match["target"], found[0], found[1], where, site, in_data=True, offset=match.start("target"))
                if link is not None:
                    yield link
