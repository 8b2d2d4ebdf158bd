"""Rendered pages kept from one staging to the next while serving: an edit re-renders only what it can change.

A module's generated pages (its army lists, its index and errata) read the scopes of their chain
(the list, its module, the modules it uses, the core rules: each a folder of the data), everything
outside those folders (the system, the releases, the project's mkdocs.yml and templates), and the
site map (titles, anchors, where each rule and list is shown: links into other pages). A page's key
is a digest of exactly those, so a page taken from the cache is the page a clean staging renders:
a rule's text edited in one module changes that module's keys only; a module's title changes the
site map, and so every key. Pages about the whole project (indexes, landing pages) are always
rendered again, and nothing is kept unless the files read the same after loading as before. What else
is worked out from a page's inputs alone (an army list's search entries) is kept beside it, under its key.

`cadence build` keeps the pages from one build to the next in the user's cache (`cache.py`, one entry
per project folder, replaced by each build): every key also holds the generator's own hash, so a
page is taken only from a build by the same generator of the same inputs.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import cache as user_cache
from .catalogue import Project, module_of
from .layout import SiteMap

#: The user cache's kind for the pages a build keeps for the next.
SAVED_PAGES = "pages"


@dataclass(frozen=True)
class Digests:
    """What the project's files held when read: one digest per top-level data folder, one for the rest."""

    folders: dict[str, bytes]
    rest: bytes


def _digest_file(digest: hashlib.blake2b, name: str, path: str) -> bool:
    """Add a regular file's name and digest (`cache.file_digest`: a file hashed before in this process and
    unchanged since is not read again; its size and its first 2 MiB: all the loader reads of a data file,
    and two hundred times the generator's largest template); False for anything else (a FIFO is never opened)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return False
        digest.update(f"{name}\0".encode() + user_cache.file_digest(path, info))
    except OSError:
        return False
    return True


def _walk(base: Path) -> Iterable[tuple[str, str]] | None:
    """(path relative to base, path) of every file under base, in a stable order; None if a folder is a link."""
    found: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(base):
        if any(os.path.islink(os.path.join(folder, d)) for d in dirs):
            return None  # files behind a linked folder could change where this walk never looks
        dirs.sort()
        found.extend((os.path.relpath(os.path.join(folder, f), base), os.path.join(folder, f)) for f in sorted(files))
    return found


def read_digests(root: Path, data_dir: str, template_dirs: Iterable[Path]) -> Digests | None:
    """Digests of the project's data, config and templates; None when they cannot all be read."""
    folders: dict[str, hashlib.blake2b] = {}
    rest = hashlib.blake2b()
    if not _digest_file(rest, "mkdocs.yml", str(root / "mkdocs.yml")):
        return None
    files = _walk(root / data_dir)
    if files is None:
        return None
    for relative, path in files:
        top, _, _ = relative.partition(os.sep)
        digest = folders.setdefault(top, hashlib.blake2b()) if os.sep in relative else rest
        if not _digest_file(digest, relative, path) and os.path.exists(path):
            return None
    for number, base in enumerate(template_dirs):
        templates = _walk(base) if base.is_dir() else []
        if templates is None:
            return None
        for relative, path in templates:
            _digest_file(rest, f"{number}:{relative}", path)
    return Digests({name: d.digest() for name, d in folders.items()}, rest.digest())


def _site_map_digest(site_map: SiteMap) -> bytes:
    """Everything of the site map a page links through: titles, rule places and every page's anchors."""
    digest = hashlib.blake2b()
    for table in (site_map.titles, site_map.rule_pages, site_map.rule_anchors, site_map.list_pages):
        digest.update(repr(sorted((str(k), str(v)) for k, v in table.items())).encode())
    for page, plan in site_map.plans.items():
        digest.update(repr((str(page), [str(a) for a in plan.ids.values()], sorted(map(str, plan.used)))).encode())
    digest.update(repr(sorted(map(str, site_map.object_pages.values()))).encode())
    return digest.digest()


#: What is worked out from a page's inputs alone besides its text (its search entries): rows of strings.
Rows = tuple[tuple[str, ...], ...]


def _is_kept_page(value: object) -> bool:
    """A stored page: (key, text)."""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bytes) and isinstance(value[1], str)


def _is_kept_rows(value: object) -> bool:
    """Stored rows of a page: (key, rows)."""
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bytes) and isinstance(value[1], tuple)):
        return False
    return all(isinstance(row, tuple) and all(isinstance(cell, str) for cell in row) for row in value[1])


class PageCache:
    """Pages by site path with the key they were rendered under; `begin` each staging, `end` after it."""

    def __init__(self) -> None:
        self._pages: dict[str, tuple[bytes, str]] = {}
        self._fresh: dict[str, tuple[bytes, str]] = {}
        self._rows: dict[str, tuple[bytes, Rows]] = {}
        self._digests: Digests | None = None
        self._base: bytes | None = None
        self._folders: dict[str, str] = {}
        self._data_dir = "data"
        self.rendered = 0
        self.reused = 0

    def begin(self, digests: Digests | None, data_dir: str) -> None:
        """A staging starts, of files with these digests (None: render everything, keep nothing)."""
        self._digests, self._base, self._fresh, self._data_dir = digests, None, {}, data_dir
        self.rendered = self.reused = 0

    def bind(self, project: Project, site_map: SiteMap) -> None:
        """The loaded project and its site map, complete: what every key of this staging shares."""
        if self._digests is None:
            return
        self._folders = {m: module_of(path, self._data_dir) for m, path in project.module_files.items()}
        owned = set(self._folders.values()) - {""}
        digest = hashlib.blake2b(self._digests.rest)
        digest.update(user_cache.generator_hash())
        for folder, folder_digest in sorted(self._digests.folders.items()):
            if folder not in owned:
                digest.update(f"{folder}\0".encode() + folder_digest)
        digest.update(_site_map_digest(site_map))
        self._base = digest.digest()

    def key(self, project: Project, scope_key: str, what: str) -> bytes | None:
        """The key of a page of `what` kind that reads the scope chain of `scope_key`."""
        if self._digests is None or self._base is None:
            return None
        digest = hashlib.blake2b(self._base)
        digest.update(f"{what}\0{scope_key}\0".encode())
        folders = {self._folders.get(scope.module, "") for scope in project.scopes[scope_key].chain()}
        for folder in sorted(folders - {""}):
            digest.update(f"{folder}\0".encode() + self._digests.folders.get(folder, b"-"))
        return digest.digest()

    def page(self, page: str, key: bytes | None, render: Callable[[], str]) -> str:
        """The page rendered under `key`: from the cache when it was, else rendered now."""
        kept = self._pages.get(page)
        if key is not None and kept is not None and kept[0] == key:
            self.reused += 1
            self._fresh[page] = kept
            return kept[1]
        text = render()
        self.rendered += 1
        if key is not None:
            self._fresh[page] = (key, text)
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
        self._fresh, self._digests, self._base = {}, None, None
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
            pages = {str(page): (key, str(text)) for page, (key, text) in self._pages.items()}
            rows = {str(page): kept for page, kept in self._rows.items() if page in pages and kept[0] == pages[page][0]}
            user_cache.write(SAVED_PAGES, user_cache.key(SAVED_PAGES, str(root.resolve())), (pages, rows))
