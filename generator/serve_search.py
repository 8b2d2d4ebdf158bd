"""The search entries of the site `cadence serve` serves.

After each staging the entries are written beside the staged config (`SEARCH_FILE`). An engine that runs
hooks (MkDocs, ProperDocs) merges them after each of its builds (`serve_hook.py`); for one that does not
(Zensical, which builds into the staging's `site/` and serves that folder), the serve loop merges them
whenever the engine has written its index again or the entries changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .postbuild import merge_search
from .publish import write_whole
from .search_index import ZENSICAL_INDEX, SearchData
from .staging import SEARCH_FILE, staged_search

if TYPE_CHECKING:
    from .incremental import PageCache
    from .staging import Staged

#: The hook file the staged config of an engine that runs hooks names.
HOOK = Path(__file__).with_name("serve_hook.py")


class ServedSearch:
    """The entries of the last good staging, and (`merges_here`) the index they were last merged into."""

    def __init__(self, work: Path, merges_here: bool) -> None:
        self.entries = work / SEARCH_FILE
        self.site = work / "site"
        self.merges_here = merges_here
        self._merged: tuple[int, int] | None = None

    @property
    def hooks(self) -> list[str]:
        """The hook files for the staged config: the merge runs in the engine unless it runs here."""
        return [] if self.merges_here else [str(HOOK)]

    def staged(self, staged: Staged, pages: PageCache) -> None:
        """Write the entries of a staging whole: the engine's hook may read them at any moment."""
        write_whole(self.entries, staged_search(staged, pages))

    def merge_if_rebuilt(self) -> None:
        """Merge into the engine's index once it has written it again (or the entries changed). An index
        read half-written is merged on a later call."""
        if not self.merges_here:
            return
        try:
            state = (self._stamp(self.site / ZENSICAL_INDEX), self._stamp(self.entries))
            if state == self._merged:
                return
            merge_search(self.site, SearchData.read(self.entries))
        except (OSError, ValueError, KeyError, TypeError):
            return
        self._merged = (self._stamp(self.site / ZENSICAL_INDEX), state[1])

    @staticmethod
    def _stamp(path: Path) -> int:
        return path.stat().st_mtime_ns
