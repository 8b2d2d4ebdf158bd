"""Search a built site's index from a terminal, ranked as the site's own search ranks it.

Material's search runs lunr in the browser over `search/search_index.json`: every query word becomes
a prefix (`armour*`), the index keeps words as written (its `pipeline` says which of lunr's filters
run), titles weigh far more than text, and a result is boosted by the share of query words it
matches, and more when it is a whole page. The page script `assets/search.js` then respells words
from the system's `spelling_variants` and puts exact names first, the reader's game first among
them. This module does the same steps with the Python port of lunr, so `cadence search` and the
tests see the order a reader sees.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lunr.builder import Builder
from lunr.index import Index
from lunr.query import Query
from lunr.stop_word_filter import stop_word_filter
from lunr.trimmer import trimmer

from .search_index import entry_name

#: Query words are split as Material's default search `separator` splits them.
SEPARATOR = re.compile(r"[\s\-]+")
WORD = re.compile(r"[^\W_]+|'", re.UNICODE)
_PARAMETER = re.compile(r"\s*\([^()]*\)\s*$")
_TRIM = re.compile(r"^\W+|\W+$", re.ASCII)


#: The longest query searched (README, "Supported sizes"): every word is a prefix lunr expands over the whole
#: index, so a query of thousands of words would search for minutes.
MOST_QUERY_CHARS = 400
MOST_QUERY_WORDS = 40


def query_refused(query: str) -> str | None:
    """Why a query is too long to search, in one line; None when it may be searched."""
    if len(query) > MOST_QUERY_CHARS:
        return f"the query is {len(query)} characters long; at most {MOST_QUERY_CHARS} are searched"
    words = len(query_terms(query))
    if words > MOST_QUERY_WORDS:
        return f"the query has {words} words; at most {MOST_QUERY_WORDS} are searched"
    return None


@dataclass(frozen=True)
class Result:
    title: str
    location: str
    snippet: str
    score: float


@dataclass
class SiteIndex:
    """A site's search entries, its lunr index, and the spelling variants its system declares."""

    index: Index
    docs: dict[str, dict[str, Any]]
    articles: set[str]
    variants: dict[str, str]


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup)).strip()


def load_index(path: Path) -> SiteIndex:
    """Build a lunr index of the site's entries, configured as the index's `config` says."""
    data = json.loads(path.read_text(encoding="utf-8"))
    config = data["config"]
    builder = Builder()
    pipeline = config.get("pipeline", [])
    builder.pipeline.add(*(f for name, f in (("trimmer", trimmer), ("stopWordFilter", stop_word_filter)) if name in pipeline))
    builder.b(0)  # as Material: no penalty for long sections
    builder.ref("location")
    for name, spec in config["fields"].items():
        builder.field(name, boost=spec.get("boost", 1))
    docs: dict[str, dict[str, Any]] = {}
    articles: set[str] = set()
    pages: set[str] = set()
    for doc in data["docs"]:
        page = doc["location"].split("#")[0]
        if page not in pages:  # a page's first entry is its article; the rest are its sections
            pages.add(page)
            articles.add(doc["location"])
        record = {**doc, "title": _text(doc.get("title", "")), "text": _text(doc.get("text", "")), "tags": " ".join(doc.get("tags", []))}
        docs[doc["location"]] = record
        builder.add(record, {"boost": doc.get("boost", 1)})
    return SiteIndex(builder.build(), docs, articles, dict(config.get("spelling_variants", {})))


def respell(text: str, variants: dict[str, str]) -> str:
    """The query with each word a player may spell otherwise in the site's spelling."""
    return WORD.sub(lambda m: variants.get(m[0].lower(), m[0]), text)


def name_key(text: str, variants: dict[str, str]) -> str:
    """A name as exact matches compare it: its words, lowercased, respelled, no trailing '(X)'."""
    return " ".join(WORD.findall(respell(_PARAMETER.sub("", text), variants).lower()))


def query_terms(query: str) -> list[str]:
    """The query's words as the site's search takes them: split at Material's separator, lowercased,
    trimmed of punctuation at their ends as the index's trimmer trims words ("Charge!")."""
    terms = (_TRIM.sub("", t) for t in SEPARATOR.split(query.lower().strip()))
    return [t for t in terms if t]


def _tier(doc: dict[str, Any], wanted: str, game: str | None, variants: dict[str, str]) -> int:
    here = game is not None and doc["location"].split("/")[0] == game
    definition = "kind" in doc
    if wanted and name_key(doc.get("name") or entry_name(doc["title"]), variants) == wanted:
        return 2 + 2 * definition + here
    return 1 if here and definition else 0


def search(site: SiteIndex, query: str, limit: int = 5, game: str | None = None) -> list[Result]:
    """The first `limit` results for `query`, best first; `game` is the module the reader is in."""
    terms = query_terms(respell(query, site.variants))
    if not terms:
        return []
    lunr_query = site.index.create_query()
    for term in terms:
        lunr_query.term(term, use_pipeline=False, wildcard=Query.WILDCARD_TRAILING)
    scored = []
    for hit in site.index.query(lunr_query):
        matched = list(hit["match_data"].metadata)
        found = {t: any(m.startswith(t) for m in matched) for t in terms}
        counted = {t: ok for t, ok in found.items() if ok or stop_word_filter(t) is not None}
        boost = (hit["ref"] in site.articles) + (sum(counted.values()) / len(counted) if counted else 0)
        scored.append((hit["ref"], hit["score"] * (1 + boost**2)))
    wanted = name_key(query, site.variants)
    ranked = sorted(scored, key=lambda s: (-_tier(site.docs[s[0]], wanted, game, site.variants), -s[1]))
    results: list[Result] = []
    for ref, score in ranked[:limit]:
        doc = site.docs[ref]
        results.append(Result(doc["title"], ref, re.sub(r"\s+", " ", doc["text"])[:160], score))
    return results


def search_site(index_path: Path, query: str, limit: int = 5, game: str | None = None) -> list[Result]:
    return search(load_index(index_path), query, limit, game)
