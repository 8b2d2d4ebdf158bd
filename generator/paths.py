"""Paths taken from data: the one rule they must pass before anything is read or written with them.

A page path in a module's `pages`, an army list's `page`, a landing page, an erratum's page or patch
file all end up as a file name on disk. Data is untrusted, so each such path must be relative, stay
inside its folder, be made of a small set of characters, and keep every segment short enough for any
file system (most refuse names over 255 bytes; MkDocs adds `.md` and `.html`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from .loader import MAX_NAME_BYTES
from .problems import Location, Problem, error

if TYPE_CHECKING:
    from .catalogue import Project

#: The longest segment (folder or file name) a path from data may have: as long as a file's own name may be.
MAX_SEGMENT = MAX_NAME_BYTES
#: The most segments a path from data may have.
MAX_SEGMENTS = 12

#: A segment of a site page path: a lowercase slug.
_PAGE_SEGMENT = re.compile(r"[a-z0-9][a-z0-9_-]*")
#: A segment of a data file path: letters, digits, '.', '_' and '-', not starting with a dot.
_FILE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

PathKind = Literal["page", "file"]

#: Stands for the data folder when a data file path is judged from the project root.
DATA_FOLDER = "data"

_EXAMPLES = {"page": "my-game/army-lists/raiders", "file": "my-game/army-lists/raiders.yaml"}


def unsafe_reason(path: str, kind: PathKind = "page") -> str | None:
    """Why `path` cannot be used as a relative path inside the site (or data folder), or None.

    `page` paths are site paths without `.md` (lowercase slugs); `file` paths name a project file
    relative to the data folder.
    """
    if not isinstance(path, str) or not path:
        return "it is empty"
    if path.startswith("/") or path.startswith("\\") or re.match(r"^[A-Za-z]:", path):
        return "it is absolute"
    if kind == "file":
        reason, path = _from_project_root(path)
        if reason:
            return reason
    segments = path.split("/")
    if len(segments) > MAX_SEGMENTS:
        return f"it has {len(segments)} folders and names; the limit is {MAX_SEGMENTS}"
    pattern = _PAGE_SEGMENT if kind == "page" else _FILE_SEGMENT
    for segment in segments:
        if segment in ("", ".", ".."):
            return "it has an empty, '.' or '..' segment"
        if len(segment) > MAX_SEGMENT:
            return f"a segment is {len(segment)} characters long; the limit is {MAX_SEGMENT}"
        if not pattern.fullmatch(segment):
            allowed = "lowercase letters, digits, '-' and '_'" if kind == "page" else "letters, digits, '.', '-' and '_'"
            return f"segment {segment!r} may hold only {allowed}"
    return None


def _from_project_root(path: str) -> tuple[str | None, str]:
    """A data file path judged from the project root: it may step up into the project (`../content/page.md`), not out."""
    if "\\" in path or "//" in path:
        return "it has an empty segment or a backslash", path
    path = posixpath.normpath(posixpath.join(DATA_FOLDER, path))
    if path == ".." or path.startswith("../"):
        return "it leads outside the project", path
    return None, path


def check_path(path: str, where: Location, what: str, kind: PathKind = "page") -> Problem | None:
    """A located `unsafe-path` error when a path from data is not safe, else None."""
    reason = unsafe_reason(path, kind)
    if reason is None:
        return None
    shape = "a relative site path of lowercase slugs" if kind == "page" else "a path relative to the data folder"
    return error(
        where,
        "unsafe-path",
        f"{what} {path!r} cannot be used: {reason}",
        f"write {shape}, like '{_EXAMPLES[kind]}'",
    )


def _loc(value: Any, default: Location) -> Location:
    return getattr(value, "loc", default)


def data_paths(project: Project) -> Iterator[tuple[str, Location, str, PathKind]]:
    """Every path the data names, with where it is written, what it is and its kind."""
    system = project.system
    landing = system.landing_pages
    for kind in ("released", "in_development", "changes", "rules_index"):
        page = getattr(landing, kind)
        if page is not None:
            yield page, _loc(page, landing.loc), f"landing page {kind}", "page"
    for module in project.modules.values():
        yield module.id, _loc(module.id, module.loc), "module id (its site folder)", "page"
        for page in module.pages:
            yield page, _loc(page, module.loc), "page path", "page"
        for erratum in module.errata:
            yield erratum.page, _loc(erratum.page, erratum.loc), "erratum page", "page"
            if erratum.as_published is not None:
                patch = erratum.as_published
                yield patch.file, _loc(patch.file, patch.loc), "erratum patch file", "file"
    for entry in project.lists:
        army_list = entry.army_list
        where = _loc(army_list.page, army_list.loc) if army_list.page else _loc(army_list.id, army_list.loc)
        yield entry.page, where, "army list page", "page"


def path_problems(project: Project) -> list[Problem]:
    """An `unsafe-path` error for each path in the data that could leave the site or break a file system."""
    found = (check_path(path, where, what, kind) for path, where, what, kind in data_paths(project))
    return [problem for problem in found if problem is not None]


def is_safe(path: str, kind: PathKind = "page") -> bool:
    return unsafe_reason(path, kind) is None
