"""Rendered pages kept from one staging to the next while serving: an edit re-renders only what it can change.

A module's generated pages (its army lists, its index and errata) read the scopes of their chain
(the list, its module, the modules it uses, the core rules: each a folder of the data), everything
outside those folders (the system, the releases, the project's mkdocs.yml and templates), and the
site map (anchors, where each rule and list is shown: links into other pages). A page's key is a
digest of exactly those; the other pages' titles it shows are noted as it renders (`layout.Titles`) and
kept beside it. So a page taken from the cache is the page a clean staging renders: a rule's text
edited in one module changes that module's keys only, and a module's new title renders again only its
own pages and those that show its title. Pages about the whole project (indexes, landing pages) are always
rendered again, and nothing is kept unless the files read the same after loading as before. What else
is worked out from a page's inputs alone (an army list's search entries) is kept beside it, under its key.

`cadence build` keeps the pages from one build to the next in the user's cache (`cache.py`, one entry
per project folder, replaced by each build): every key also holds the generator's own hash, so a
page is taken only from a build by the same generator of the same inputs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from . import cache as user_cache
from .cache import Digests, FolderKeys
from .catalogue import Project
from .layout import SiteMap, Titles

#: The user cache's kind for the pages a build keeps for the next.
SAVED_PAGES = "pages"


def _site_map_digest(site_map: SiteMap) -> bytes:
    """Everything of the site map a page links through but titles (noted as read): rule places and every
    page's anchors."""
    digest = hashlib.blake2b()
    for table in (site_map.rule_pages, site_map.rule_anchors, site_map.list_pages):
        digest.update(repr(sorted((str(k), str(v)) for k, v in table.items())).encode())
    for page, plan in site_map.plans.items():
        digest.update(repr((str(page), [str(a) for a in plan.ids.values()], sorted(map(str, plan.used)))).encode())
    digest.update(repr(sorted(map(str, site_map.object_pages.values()))).encode())
    return digest.digest()


#: What is worked out from a page's inputs alone besides its text (its search entries): rows of strings.
Rows = tuple[tuple[str, ...], ...]
#: The titles a page showed as it was rendered: (site path, its title or None), sorted.
TitlesRead = tuple[tuple[str, str | None], ...]
#: A kept page: its key, its text, the titles it showed.
Kept = tuple[bytes, str, TitlesRead]


def _is_kept_page(value: object) -> bool:
    """A stored page: (key, text, titles read)."""
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bytes) and isinstance(value[1], str)):
        return False
    reads = value[2]
    return isinstance(reads, tuple) and all(
        isinstance(read, tuple) and len(read) == 2 and isinstance(read[0], str) and (read[1] is None or isinstance(read[1], str))
        for read in reads
    )


def _is_kept_rows(value: object) -> bool:
    """Stored rows of a page: (key, rows)."""
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bytes) and isinstance(value[1], tuple)):
        return False
    return all(isinstance(row, tuple) and all(isinstance(cell, str) for cell in row) for row in value[1])


class PageCache:
    """Pages by site path with the key they were rendered under; `begin` each staging, `end` after it."""

    def __init__(self) -> None:
        self._pages: dict[str, Kept] = {}
        self._fresh: dict[str, Kept] = {}
        self._titles = Titles()
        self._rows: dict[str, tuple[bytes, Rows]] = {}
        self._digests: Digests | None = None
        self._keys: FolderKeys | None = None
        self._data_dir = "data"
        self.rendered = 0
        self.reused = 0

    def begin(self, digests: Digests | None, data_dir: str) -> None:
        """A staging starts, of files with these digests (None: render everything, keep nothing)."""
        self._digests, self._keys, self._fresh, self._data_dir = digests, None, {}, data_dir
        self.rendered = self.reused = 0

    def bind(self, project: Project, site_map: SiteMap) -> None:
        """The loaded project and its site map, complete: what every key of this staging shares."""
        self._titles = site_map.titles
        if self._digests is None:
            return
        self._keys = FolderKeys(self._digests, project.module_folders(self._data_dir), _site_map_digest(site_map))

    def key(self, project: Project, scope_key: str, what: str) -> bytes | None:
        """The key of a page of `what` kind that reads the scope chain of `scope_key`."""
        if self._digests is None or self._keys is None:
            return None
        return self._keys.key(f"{what}\0{scope_key}", (scope.module for scope in project.scopes[scope_key].chain()))

    def page(self, page: str, key: bytes | None, render: Callable[[], str]) -> str:
        """The page rendered under `key`: from the cache when it was and the titles it showed are the same,
        else rendered now."""
        kept = self._pages.get(page)
        titles = self._titles
        if key is not None and kept is not None and kept[0] == key and all(dict.get(titles, p) == t for p, t in kept[2]):
            self.reused += 1
            self._fresh[page] = kept
            return kept[1]
        reads: dict[str, str | None] = {}
        titles.reads = reads
        try:
            text = render()
        finally:
            titles.reads = None
        self.rendered += 1
        if key is not None:
            self._fresh[page] = (key, text, tuple(sorted(reads.items(), key=lambda read: read[0])))
        return text

    def rows(self, page: str, work: Callable[[], Rows]) -> Rows:
        """What `work` makes of a page's inputs alone (its search entries), kept under the page's key: after `end`,
        worked out again only for a page this staging rendered again (or did not keep)."""
        staged = self._pages.get(page)
        kept = self._rows.get(page)
        if staged is not None and kept is not None and kept[0] == staged[0]:
            return kept[1]
        rows = work()
        if staged is not None:
            self._rows[page] = (staged[0], rows)
        return rows

    def end(self, digests: Digests | None) -> bool:
        """Keep this staging's pages if the files still read as they did at `begin`; True if kept."""
        kept = digests is not None and digests == self._digests
        self._pages = self._fresh if kept else {}
        self._fresh, self._digests, self._keys = {}, None, None
        return kept

    def restore(self, root: Path) -> None:
        """Take the pages the last build of the project at `root` kept (none if the cache is off or damaged)."""
        saved = user_cache.read(SAVED_PAGES, user_cache.key(SAVED_PAGES, str(root.resolve())))
        if isinstance(saved, tuple) and len(saved) == 2 and all(isinstance(part, dict) for part in saved):
            pages, rows = saved
            self._pages = {page: kept for page, kept in pages.items() if isinstance(page, str) and _is_kept_page(kept)}
            self._rows = {page: kept for page, kept in rows.items() if isinstance(page, str) and _is_kept_rows(kept)}

    def save(self, root: Path) -> None:
        """Keep this project's pages, and the rows of each as it is now, for its next build (after `end` kept them)."""
        if self._pages:
            # str() of the names and texts: a located name (loader.LocStr) is not a value marshal writes
            pages = {
                str(page): (key, str(text), tuple((str(p), t if t is None else str(t)) for p, t in reads))
                for page, (key, text, reads) in self._pages.items()
            }
            rows = {str(page): kept for page, kept in self._rows.items() if page in pages and kept[0] == pages[page][0]}
            user_cache.write(SAVED_PAGES, user_cache.key(SAVED_PAGES, str(root.resolve())), (pages, rows))
