"""What the checks that read each text on its own found in it, kept from one check to the next.

Spelling and unsafe markup look at every text of a project (thousands at 10x) by itself: what they
find in a text depends on the text, the project's word list and the generator, nothing else. So the
findings are kept in the user's cache (`cache.py`), one entry per project folder and word list, and a
check after an edit looks again only at the texts that changed. Each run keeps only the texts it saw.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeGuard

from .. import cache

#: The user cache's kind for the findings by text.
KIND = "texts"

Findings = tuple[Any, ...]


class TextMemo:
    """Findings by check and text: from the last run when it saw the text, else worked out now."""

    def __init__(self, entry: str | None = None) -> None:
        self.entry = entry
        stored = cache.read(KIND, entry) if entry else None
        self.stored: dict[str, dict[str, Findings]] = stored if _is_findings(stored) else {}
        self.seen: dict[str, dict[str, Findings]] = {}
        self.new = False

    @classmethod
    def of_project(cls, root: Path, data_dir: str, words: frozenset[str]) -> TextMemo:
        """The memo of a project's last check with the same word list (one kept in memory only without a cache)."""
        if not cache.enabled():
            return cls()
        return cls(cache.key(KIND, os.path.realpath(root), data_dir, "\n".join(sorted(words))))

    def find(self, check: str, text: str, work: Callable[[str], Findings]) -> Findings:
        """What `work` finds in `text` for `check` (a pure function of the text and the word list)."""
        seen = self.seen.setdefault(check, {})
        found = seen.get(text)
        if found is None:
            found = self.stored.get(check, {}).get(text)
            if found is None:
                found, self.new = work(text), True
            seen[str(text)] = found  # a plain str: the cache stores no subclass
        return found

    def save(self) -> None:
        """Keep this run's findings for the next, when they differ from those kept."""
        if self.entry and (
            self.new or self.seen.keys() != self.stored.keys() or any(len(self.seen[c]) != len(v) for c, v in self.stored.items())
        ):
            cache.write(KIND, self.entry, self.seen)


def _is_findings(value: Any) -> TypeGuard[dict[str, dict[str, Findings]]]:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, dict) for k, v in value.items())
