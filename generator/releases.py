"""Reading recorded releases: the stored word diffs and each unit's latest change.

Pure functions over the model, for the renderer; computing a diff (which runs git) lives in `diff.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .model import Release, ReleaseEntry, slugify

#: The fields whose changes are shown as reworded text rather than old → new.
TEXT_FIELDS = frozenset({"text", "effect", "composition", "weapons", "upgrades", "footnote"})

_WORDS = re.compile(r"\[-(?P<old>.*?)-\]|\{\+(?P<new>.*?)\+\}")


def word_segments(words: str) -> list[tuple[str, str]]:
    """A stored word diff as (kind, text) runs: 'same', 'old' or 'new', for templates to mark up."""
    segments: list[tuple[str, str]] = []
    position = 0
    for match in _WORDS.finditer(words):
        if match.start() > position:
            segments.append(("same", words[position : match.start()]))
        segments.append(("old", match["old"]) if match["old"] is not None else ("new", match["new"]))
        position = match.end()
    if position < len(words):
        segments.append(("same", words[position:]))
    return segments


def last_changes(releases: Iterable[Release]) -> dict[tuple[str, str], tuple[Release, ReleaseEntry]]:
    """(page, unit name slug) → the latest release entry about that unit or one of its models."""
    found: dict[tuple[str, str], tuple[Release, ReleaseEntry]] = {}
    for release in sorted(releases, key=lambda r: (r.date, r.name)):
        for entry in release.entries:
            if entry.kind == "unit":
                found[(entry.page, slugify(entry.name))] = (release, entry)
            elif entry.kind == "model":
                found[(entry.page, slugify(entry.within))] = (release, entry)
    return found
