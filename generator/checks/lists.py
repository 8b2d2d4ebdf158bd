"""What the checks of one army list at a time found, kept from one check to the next.

A check registered with `per_army_list` reads one army list, the scopes of its chain (the list, the lists
it uses, their modules, the core rules) and the system: nothing of other games. So its problems for a list
are kept in the user's cache under a key of exactly those files (`cache.FolderKeys`: the data folders of
the chain's modules, everything outside the modules' folders, the generator): after a rule's text is edited
in one game, only that game's lists are checked again. The key is of the files as they were before the
project was read, and nothing is kept when they changed before the checks ended.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import cache
from ..catalogue import ListEntry, Project
from ..problems import Problem

#: The user cache's kind for the problems of each list.
LISTS = "lists"

Kept = dict[str, tuple[bytes, tuple[Any, ...]]]


def _valid(stored: Any) -> Kept:
    if not isinstance(stored, dict):
        return {}
    return {
        name: kept
        for name, kept in stored.items()
        if isinstance(name, str)
        and isinstance(kept, tuple)
        and len(kept) == 2
        and isinstance(kept[0], bytes)
        and isinstance(kept[1], tuple)
    }


class ListMemo:
    """The problems of each per-list check for each army list, with the key they were found under."""

    def __init__(
        self, root: Path | None = None, data_dir: str = "data", project: Project | None = None, digests: cache.Digests | None = None
    ) -> None:
        """`digests`: what the data files held before the project was read (a digest taken after could
        describe an edit the project read missed); without them, or `root`, nothing is kept."""
        self._root, self._data_dir, self._digests = root, data_dir, digests
        self._fresh: Kept = {}
        self._kept: Kept = {}
        self._keys: cache.FolderKeys | None = None
        self._list_keys: dict[str, bytes] = {}  # by army list: every per-list check of a list reads the same files
        self._changed = False
        if root is None or project is None or digests is None or not cache.enabled():
            return  # nothing kept: every list is checked
        self._keys = cache.FolderKeys(digests, project.module_folders(data_dir))
        self._entry = cache.key(LISTS, os.path.realpath(root), data_dir)
        self._kept = _valid(cache.read(LISTS, self._entry))

    def find(self, check: str, project: Project, entry: ListEntry, work: Callable[[], list[Problem]]) -> list[Problem]:
        """The problems `check` finds in one list: kept from the last run when its files read the same."""
        if self._keys is None:
            return work()
        key = self._list_keys.get(entry.key)
        if key is None:
            key = self._list_keys[entry.key] = self._keys.key(entry.key, (scope.module for scope in project.list_scope(entry).chain()))
        name = f"{check}\0{entry.key}"
        kept = self._kept.get(name)
        if kept is not None and kept[0] == key:
            try:
                problems = [Problem.from_plain(plain) for plain in kept[1]]
                self._fresh[name] = kept
                return problems
            except (TypeError, ValueError):
                pass
        problems = work()
        self._fresh[name], self._changed = (key, tuple(problem.to_plain() for problem in problems)), True
        return problems

    def save(self) -> None:
        """Keep what this run found, when it differs from what was kept, unless a data file changed while it ran
        (its keys would not be the files')."""
        if self._keys is None or self._root is None or not (self._changed or self._fresh.keys() != self._kept.keys()):
            return
        if cache.read_digests(self._root, self._data_dir) == self._digests:
            cache.write(LISTS, self._entry, self._fresh)
