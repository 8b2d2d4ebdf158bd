"""What the checks that read each text on its own found in it, kept from one check to the next.

Spelling and unsafe markup look at every text of a project (thousands at 10x) by itself: what they
find in a text depends on the text, the project's word list and the generator, nothing else. So the
findings are kept in the user's cache (`cache.py`), one entry per project folder and word list, and a
check after an edit looks again only at the texts that changed. A text no run has seen for `cache.KEEP_DAYS`
days is dropped (an army list whose problems are kept whole, `checks.lists`, shows none of its texts until
it changes), so the entry holds the texts of a month of edits, not of every edit ever.
"""

from __future__ import annotations

import os
import time
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
        #: By check and text: the day a run last saw the text, and what was found in it.
        self.stored: dict[str, dict[str, tuple[int, Findings]]] = stored if _is_findings(stored) else {}
        self.seen: dict[str, dict[str, Findings]] = {}
        self.today = int(time.time() // _DAY)
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
            kept = self.stored.get(check, {}).get(text)
            if not _is_kept(kept):  # none, or not as `save` writes it
                found, self.new = work(text), True
            else:
                found, self.new = kept[1], self.new or kept[0] != self.today
            seen[str(text)] = found  # a plain str: the cache stores no subclass
        return found

    def save(self) -> None:
        """Keep this run's findings, and those of texts seen within `KEEP_DAYS` days, when they differ from those kept."""
        oldest = self.today - cache.KEEP_DAYS
        kept = {
            check: {text: day_found for text, day_found in texts.items() if _is_kept(day_found) and day_found[0] >= oldest}
            for check, texts in self.stored.items()
        }
        for check, texts in self.seen.items():
            kept.setdefault(check, {}).update((text, (self.today, found)) for text, found in texts.items())
        dropped = any(len(kept.get(check, {})) < len(texts) for check, texts in self.stored.items())
        if self.entry and (self.new or dropped):
            cache.write(KIND, self.entry, kept)


_DAY = 24 * 60 * 60


def _is_findings(value: Any) -> TypeGuard[dict[str, dict[str, tuple[int, Findings]]]]:
    """Findings by check and text, as `save` writes them (each text's are looked at when used: `_is_kept`)."""
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, dict) for k, v in value.items())


def _is_kept(value: Any) -> TypeGuard[tuple[int, Findings]]:
    """One text's (day last seen, findings)."""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], int) and isinstance(value[1], tuple)
