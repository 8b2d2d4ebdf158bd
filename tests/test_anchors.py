"""The model's anchors are Python-Markdown's: `model.slugify` and `model.unique` give what the table
of contents of an MkDocs page gives (`markdown.extensions.toc`), which they copy so that loading and
checking a project never imports Markdown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown.extensions.toc import slugify as toc_slugify
from markdown.extensions.toc import unique as toc_unique

from generator.loader import load_directory
from generator.model import slugify, unique

from .conftest import REPO

#: Names that exercise each step: accents, other scripts, punctuation, runs of blanks and dashes, numbers.
TRICKY = (
    "Heavy Armour (2)",
    "Žlutý kůň — Ægir's Æther",
    "  Blast  (D3)  ",
    "--Ambush--",
    "A_B c__d",
    "Ω Omega ∞",
    "日本語",
    "x\u00a0y\u2003z",
    "Rule #1: first!",
    "",
    "_1",
    "a_1",
    "a_0",
    "a_01",
    "1_2_3",
)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_slugify_is_the_table_of_contents_on_every_string_of_both_projects() -> None:
    strings = set(TRICKY)
    for root in (REPO, REPO / "examples" / "wasteland-tactics"):
        documents, problems = load_directory(root, "data")
        assert not problems
        for document in documents:
            strings.update(_strings(document.body))
    assert len(strings) > 1000
    assert [s for s in strings if slugify(s) != toc_slugify(s, "-")] == []


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_slugify_is_the_table_of_contents_on_any_text(text: str) -> None:
    assert slugify(text) == toc_slugify(text, "-")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "a_1", "a_2", "a_1_1", "b_0", "b", "_1", "a_x", "c_10", "c_9"]), max_size=12))
def test_unique_is_the_table_of_contents(anchors: list[str]) -> None:
    ours: set[str] = set()
    theirs: set[str] = set()
    assert [unique(a, ours) for a in anchors] == [toc_unique(a, theirs) for a in anchors]
    assert ours == theirs
