"""Search a built site's index from a terminal, with lunr, the way Material's search does."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lunr import lunr
from lunr.index import Index


@dataclass(frozen=True)
class Result:
    title: str
    location: str
    snippet: str
    score: float


def load_index(path: Path) -> tuple[Index, dict[str, dict[str, Any]]]:
    """Build a lunr index of the site's search entries (title boosted, as Material does)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    docs = [{"location": d["location"], "title": _text(d.get("title", "")), "text": _text(d.get("text", ""))} for d in data["docs"]]
    boosts = [{"boost": d.get("boost", 1)} for d in data["docs"]]
    index = lunr(ref="location", fields=[{"field_name": "title", "boost": 1000}, "text"], documents=list(zip(docs, boosts, strict=True)))
    return index, {d["location"]: d for d in docs}


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup)).strip()


def query_terms(query: str) -> str:
    """A plain query as lunr terms; punctuation such as the parentheses of 'Heavy Armour (X)' dropped."""
    words = re.findall(r"[\w']+", query.lower())
    return " ".join(words)


def search(index: Index, docs: dict[str, dict[str, Any]], query: str, limit: int = 5) -> list[Result]:
    terms = query_terms(query)
    if not terms:
        return []
    results: list[Result] = []
    for hit in index.search(terms)[:limit]:
        doc = docs[hit["ref"]]
        snippet = re.sub(r"\s+", " ", doc["text"])[:160]
        results.append(Result(doc["title"], hit["ref"], snippet, hit["score"]))
    return results


def search_site(index_path: Path, query: str, limit: int = 5) -> list[Result]:
    index, docs = load_index(index_path)
    return search(index, docs, query, limit)
