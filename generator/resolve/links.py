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

from ..problems import Location
from .refs import PageLink

#: An inline link or image: `](target)` or `](target "title")`.
LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: A reference definition: `[id]: target`, at the start of a line.
REFERENCE = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?(?P<target>[^\s>]+)", re.MULTILINE)
_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


def may_link(text: str) -> bool:
    """Whether a text could hold a link at all: most data texts cannot, and skip the patterns."""
    return "](" in text or "]:" in text


def site_relative(target: str) -> tuple[str, str] | None:
    """(path from the site's root, anchor) of a link target written in data; None for a URL with a scheme,
    one to another host (`//host`) or an anchor alone, which mean the same on every page."""
    if _SCHEME.match(target) or target.startswith(("//", "#")):
        return None
    path, _, anchor = target.partition("#")
    return posixpath.normpath(path.lstrip("/")), anchor


def data_links(text: str, where: Location, page: str, pages: Set[str], anchors: Mapping[str, Set[str]]) -> Iterator[PageLink]:
    """The links to Markdown pages in one data text (at `where`, shown first on `page`), each with whether
    its page and anchor exist."""
    for pattern in (LINK, REFERENCE):
        for match in pattern.finditer(text):
            found = site_relative(match["target"])
            if found is None or not found[0].endswith(".md"):
                continue
            path, anchor = found
            dest = path.removesuffix(".md")
            exists = dest in pages
            anchor_ok = (anchor in anchors[dest]) if anchor and exists and dest in anchors else None
            yield PageLink(page, match["target"], path, dest, anchor, where, exists, anchor_ok, in_data=True)
