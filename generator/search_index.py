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

from .publish import write_whole

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
    read = _read_index(site_dir / INDEX, "docs")
    if read is None:
        return 0
    index, docs, by_location = read
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
    index["config"]["spelling_variants"] = _lowered(spelling_variants)
    _write_index(site_dir / INDEX, index)
    return added


def _read_index(path: Path, documents: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, dict[str, Any]]] | None:
    """An engine's search index, its list of documents (under `documents`) and those by location; None without one."""
    if not path.is_file():
        return None
    index = json.loads(path.read_text(encoding="utf-8"))
    docs: list[dict[str, Any]] = index[documents]
    return index, docs, {doc["location"]: doc for doc in docs}


def _write_index(path: Path, index: dict[str, Any]) -> None:
    """Written whole: while serving, the browser may fetch the index at any moment."""
    write_whole(path, json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


#: Where Zensical writes its search index, relative to the site folder.
ZENSICAL_INDEX = "search.json"
#: The kind of entry that is a definition (a special rule): Material's pages of them carry a search boost.
DEFINITION = "rule"


def merge_zensical_entries(site_dir: Path, entries: list[Entry], spelling_variants: dict[str, str]) -> int:
    """Add to Zensical's index the entries it has no item for, and mark where each rule is defined;
    returns how many items were added.

    Zensical indexes headings only, so a unit, weapon or upgrade that is a row of a table is found
    only through its section's text, below any heading that mentions it. Each such entry becomes an
    item of its page: its name as the title (the field Zensical weighs most), its text, and its
    page's breadcrumb path, one level below the section its anchor is in. Zensical has no page
    weights (Material's `search.boost`): instead the item where a rule is defined ends its path with
    the rule's name, a second match in a field weighed above the text, so the definition outranks a
    weapon whose name begins with the rule's and whose text names it. Zensical shows titles, texts
    and paths as HTML but numeric character references as written: every value from the data is
    escaped with named ones only, and the paths Zensical wrote (from menu titles the generator
    escaped, "Devil&#x27;s Bluff") are written so too. The items go shortest title first
    (`_shown_length`). Each entry's item carries its `kind` and `name` (a heading may read otherwise:
    "Rocket Packs") and the index's config the spelling variants, for the ranking `install_ranking` puts
    into Zensical's worker as into Material's.
    Does nothing without an index.
    """
    read = _read_index(site_dir / ZENSICAL_INDEX, "items")
    if read is None:
        return 0
    index, items, by_location = read
    for known in items:
        known["path"] = [html.escape(html.unescape(part), quote=False) for part in known.get("path", [])]
    added = 0
    for entry in entries:
        name = html.escape(entry.name, quote=False)
        item = by_location.get(entry.location)
        if item is None:
            page, _, anchor = entry.location.partition("#")
            home = by_location.get(page, {})
            section = by_location.get(f"{page}#{anchor.split('--', 1)[0]}", home)
            level = int(section.get("level", 1)) + 1
            text = html.escape(entry.text, quote=False)
            item = {"location": entry.location, "level": level, "title": name, "text": text, "path": list(home.get("path", [])), "tags": []}
            items.append(item)
            by_location[entry.location] = item
            added += 1
        if entry.kind == DEFINITION and item["path"][-1:] != [name]:
            item["path"] = [*item["path"], name]
        item["kind"], item["name"] = entry.kind, entry.name
    items.sort(key=_shown_length)  # stable: items whose titles are as long keep Zensical's order
    index["config"]["spelling_variants"] = _lowered(spelling_variants)
    _write_index(site_dir / ZENSICAL_INDEX, index)
    return added


def _lowered(spelling_variants: dict[str, str]) -> dict[str, str]:
    """The variants as the ranking looks them up: lowercase, in a fixed order."""
    return {k.lower(): v.lower() for k, v in sorted(spelling_variants.items())}


def _shown_length(item: dict[str, Any]) -> int:
    """How long an index item's title reads. Zensical ranks a name no higher than a longer one it begins and
    breaks such ties by the index's order (moving "Bow" before "Bowie Knife" puts it first): with the items
    shortest title first, the name typed in full wins."""
    return len(_plain(str(item.get("title", ""))))


def entry_name(title: str) -> str:
    """The name part of an index title (plain or marked up): before the separator, without tags."""
    return _plain(title).split(SEPARATOR, 1)[0].strip()


def _plain(title: str) -> str:
    """An index title as it reads: without tags, its character references resolved."""
    return html.unescape(re.sub(r"<[^>]+>", "", title))


#: The ranking prepended to Material's search worker, and the worker files it goes into.
RANKING = "search_rank.js"
WORKERS = "assets/javascripts/workers/search*.js"


def install_ranking(site_dir: Path) -> int:
    """Put the site's ranking at the head of the engine's search worker (Material's or Zensical's, at the
    same path); returns how many workers.

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
