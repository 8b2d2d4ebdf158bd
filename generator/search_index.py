"""The built site's search index: the generator's own entries as records, merged into it, and the ranking.

`search_entries.py` computes the entries from the model; this module only reads and writes JSON, so
`cadence build` merges the entries its staging process left (`SearchData`) without importing the model.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

#: Where the search plugin writes its index, relative to the site folder.
INDEX = "search/search_index.json"

#: Joins a thing's name and where it is defined in an entry's title.
SEPARATOR = " — "


@dataclass(frozen=True)
class Entry:
    """One search entry: where it lands, its plain-text title and text, the name a player types."""

    location: str
    name: str
    title: str
    text: str
    kind: str

    def row(self) -> tuple[str, ...]:
        """The entry as plain strings, in field order (`Entry(*row)` makes it again)."""
        return (str(self.location), str(self.name), str(self.title), str(self.text), str(self.kind))

    def as_json(self) -> dict[str, str]:
        """The index record: title and text as escaped HTML (Material inserts both as markup)."""
        return {
            "location": self.location,
            "title": html.escape(self.title, quote=False),
            "text": html.escape(self.text, quote=False),
            "name": self.name,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class SearchData:
    """What the search post-build step merges into the index: the entries and the spelling variants.

    `cadence build` stages in a process of its own; that process writes this (`dumps`) to a file so
    the post-build step reads it (`read`) instead of loading and rendering the project again.
    """

    entries: tuple[Entry, ...]
    spelling_variants: dict[str, str]

    def dumps(self) -> bytes:
        """The entries as the JSON `read` reads (UTF-8)."""
        names = [f.name for f in dataclasses.fields(Entry)]
        entries = [dict(zip(names, e.row(), strict=True)) for e in self.entries]
        variants = {str(k): str(v) for k, v in self.spelling_variants.items()}
        data = {"entries": entries, "spelling_variants": variants}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    @classmethod
    def read(cls, path: Path) -> SearchData:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(tuple(Entry(**e) for e in data["entries"]), dict(data["spelling_variants"]))


def merge_search_entries(site_dir: Path, entries: list[Entry], spelling_variants: dict[str, str]) -> int:
    """Merge `entries` into the built site's search index; returns how many entries were new.

    An entry whose location the index has (a heading) replaces that entry's title and adds its
    name and kind, keeping the text the search plugin took from the page; the others are appended
    (after their page's own entry, which Material needs first). Does nothing without an index.
    """
    path = site_dir / INDEX
    if not path.is_file():
        return 0
    index = json.loads(path.read_text(encoding="utf-8"))
    docs: list[dict[str, Any]] = index["docs"]
    by_location = {d["location"]: d for d in docs}
    added = 0
    for entry in entries:
        record = entry.as_json()
        existing = by_location.get(entry.location)
        if existing is not None:
            existing.update({k: record[k] for k in ("title", "name", "kind")})
            continue
        docs.append(record)
        by_location[entry.location] = record
        added += 1
    index["config"]["spelling_variants"] = {k.lower(): v.lower() for k, v in sorted(spelling_variants.items())}
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return added


def entry_name(title: str) -> str:
    """The name part of an index title (plain or marked up): before the separator, without tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", title)).split(SEPARATOR, 1)[0].strip()


#: The ranking prepended to Material's search worker, and the worker files it goes into.
RANKING = "search_rank.js"
WORKERS = "assets/javascripts/workers/search*.js"


def install_ranking(site_dir: Path) -> int:
    """Put the site's ranking at the head of Material's search worker; returns how many workers.

    Material's page code creates its worker before any extra script runs, so the ranking goes
    into the worker itself: its message listener then runs first, and it wraps `postMessage`.
    Running it twice on one site changes nothing.
    """
    ranking = resources.files("generator").joinpath("assets", RANKING).read_text(encoding="utf-8")
    installed = 0
    for worker in sorted(site_dir.glob(WORKERS)):
        text = worker.read_text(encoding="utf-8")
        if not text.startswith(ranking):
            worker.write_text(ranking + "\n" + text, encoding="utf-8")
        installed += 1
    return installed
