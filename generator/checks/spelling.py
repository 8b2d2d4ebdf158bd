"""Spelling: names and prose against the English dictionary and the project's own word list.

Misspelt or oddly cased names are the sources' commonest slip, and one no reference check sees.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from ..catalogue import ListEntry, Project, walk_sections
from ..loader import read_text
from ..model import Record, Section, Table
from ..problems import Location, Problem, position, warning
from ..schema import field_values
from .base import CheckRun, at, named_fields
from .dictionary import WordList, english

SMALL_WORDS = frozenset(["a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "with"])
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
#: The Markdown fields of the data whose words are spell-checked (names are checked by check_names;
#: errata quote the sources' misspellings on purpose and are left out).
PROSE_FIELDS = frozenset({"text", "intro", "notes", "effect", "footnote", "summary", "notice"})
#: A tag is skipped whole, its quoted values too (`alt=">"` does not end it), within its line and a bounded
#: length (data is untrusted: no pattern may take time that grows faster than the text); a `<` not followed
#: by a tag's first character is prose ("a roll < 3").
_MARKUP = re.compile(
    r"""\[\[[^\]]*\]\]|\]\([^)]*\)|\[%.*?%\]|`[^`]*`|<[A-Za-z/!](?:"[^"\n]{0,200}"|'[^'\n]{0,200}'|[^>"'\n]){0,400}>|https?://\S+|\{[^}]*\}"""
)


def named_things(project: Project) -> Iterator[tuple[str, str, Record]]:
    """(kind, name, record) for everything a designer names: the names readers search for."""
    for module in project.modules.values():
        for rule in module.special_rules:
            yield "special rule", rule.name, rule
        for table in module.tables:
            yield "table", table.name, table
    for entry in project.lists:
        for rule in entry.army_list.special_rules:
            yield "special rule", rule.name, rule
        for section in walk_sections(entry.army_list.sections):
            yield from _named_in(section)


def _named_in(section: Section) -> Iterator[tuple[str, str, Record]]:
    if section.heading:
        yield "heading", section.heading, section
    if section.unit is not None:
        yield "unit", section.unit.name, section.unit
        for model in section.unit.models:
            yield "model", model.name, model
    if section.weapon_list is not None:
        yield "weapon list", section.weapon_list.name, section.weapon_list
        for weapon in section.weapon_list.weapons:
            yield "weapon", weapon.name, weapon
    if section.upgrade_list is not None:
        yield "upgrade list", section.upgrade_list.name, section.upgrade_list
        for upgrade in section.upgrade_list.upgrades:
            yield "upgrade", upgrade.name, upgrade
    if section.built_model is not None:
        yield "model", section.built_model.name, section.built_model


@lru_cache(maxsize=1)
def english_words() -> WordList:
    """The English word list that pyspellchecker ships, searched in its sorted word file (see `dictionary`)."""
    return english()


@lru_cache(maxsize=1)
def english_dictionary() -> Any:
    """pyspellchecker itself, only to suggest a correction for a word it does not know."""
    from spellchecker import SpellChecker

    return SpellChecker(distance=1)


def _known(part: str, words: frozenset[str]) -> bool:
    word = part.lower().strip("'")
    return part.isupper() or word in words or word in english_words()


def check_name_spelling(run: CheckRun) -> Iterator[Problem]:
    """A name's words are known (acronyms pass); names are in title case where the system asks for it."""
    if run.words is None:
        return
    title_case = run.project.system.name_case == "title"
    findings = partial(_name_findings, words=run.words)
    for kind, name, record in named_things(run.project):
        unknown, lower = run.texts.find("names", name, findings)
        for token in unknown:
            yield warning(at(name, record), "spelling", f"{kind} '{name}': '{token}' is not a known word", _spelling_hint(token))
        if lower and title_case and kind != "heading":
            yield warning(
                at(name, record),
                "name-case",
                f"{kind} '{name}' is not in title case ('{lower}')",
                "names are written in title case: "
                + " ".join(t if t.lower() in SMALL_WORDS else t[:1].upper() + t[1:] for t in str(name).split(" ")),
            )


def _name_findings(name: str, words: frozenset[str]) -> tuple[tuple[str, ...], str]:
    """A name's words that neither list knows, and its first word in lower case where title case wants a
    capital ('' when it has none, or when another word after the first is capitalised: a phrase, not a slip)."""
    tokens = WORD.findall(str(name))
    unknown = tuple(dict.fromkeys(p for t in tokens for p in t.split("-") if p and not _known(p, words)))
    titled = [t for t in tokens[1:] if t.lower() not in SMALL_WORDS and len(t) > 2]
    if any(t[0].isupper() for t in tokens[1:]):
        return unknown, ""
    return unknown, next((t for t in titled if t[0].islower()), "")


def _unknown_words(text: str, words: frozenset[str]) -> tuple[tuple[int, str], ...]:
    """(offset, word) for each word of some prose that neither the dictionary nor the word list knows."""
    plain = _MARKUP.sub(_blank, text)
    known = _known_tokens(words)
    tokens = set(WORD.findall(plain)).difference(known)
    if not any(_unknown_parts(token, words) for token in tokens):
        known.update(tokens)
        return ()  # the common case, found without walking the text word by word
    return tuple((match.start(), part) for match in WORD.finditer(plain) for part in _unknown_parts(match.group(0), words))


def _blank(match: re.Match[str]) -> str:
    """Markup as spaces: the words after it keep their offsets."""
    return " " * len(match.group(0))


@lru_cache(maxsize=4)
def _known_tokens(words: frozenset[str]) -> set[str]:
    """The words of prose already found known with this word list, grown as texts are checked: most of a
    text's words were in an earlier one, and a set difference drops them before any is looked up."""
    return set()


@lru_cache(maxsize=65536)
def _unknown_parts(token: str, words: frozenset[str]) -> tuple[str, ...]:
    """The parts of a word (split at hyphens) that neither list knows; acronyms pass."""
    if token.isupper() and len(token) > 1:
        return ()
    known = english_words()
    unknown = []
    for part in token.split("-"):
        word = part.lower().strip("'").removesuffix("'s")
        if word and word not in known and word not in words:
            unknown.append(part)
    return tuple(unknown)


def _fields_of(cls: type) -> tuple[tuple[str, bool], ...]:
    """A record class's fields, each with whether it is spell-checked prose; a table's rows are prose too,
    but for their first cells (the rolls)."""
    fields = named_fields(cls, PROSE_FIELDS)
    return (*fields, ("rows", True)) if cls is Table else fields


def _is_prose(name: str, value: Any) -> bool:
    return isinstance(value, str) or name == "rows"


def _prose_of(records: list[Any]) -> Iterator[tuple[str, Record]]:
    """Every Markdown text field of the records and the records under them, and the cells of tables' rows."""
    for value, record, _name in field_values(records, _fields_of, _is_prose, mappings=False):
        if isinstance(value, str):
            yield value, record
        else:
            yield from ((cell, record) for row in value for cell in row[1:] if isinstance(cell, str))


def check_prose_spelling(run: CheckRun) -> Iterator[Problem]:
    """Misspelt words in prose: in content pages (at the word) and in the modules' Markdown fields (each army
    list's: `check_list_spelling`)."""
    if run.words is None:
        return
    unknown = partial(_unknown_words, words=run.words)
    for page, text in sorted(run.resolved.content.items()):
        for offset, word in run.texts.find("spelling", text, unknown):
            where = Location(f"{run.content_dir}/{page}.md", *position(text, offset))
            yield warning(where, "spelling", f"'{word}' is not a known word", _spelling_hint(word))
    yield from _data_spelling(run, list(run.project.modules.values()))


def check_list_spelling(run: CheckRun, entry: ListEntry) -> Iterator[Problem]:
    """Misspelt words in one army list's Markdown fields."""
    if run.words is not None:
        yield from _data_spelling(run, [entry.army_list])


def _data_spelling(run: CheckRun, records: list[Any]) -> Iterator[Problem]:
    assert run.words is not None
    unknown = partial(_unknown_words, words=run.words)
    for text, owner in _prose_of(records):
        for offset, word in run.texts.find("spelling", text, unknown):
            yield warning(at(text, owner), "spelling", f"'{word}' is not a known word", _spelling_hint(word), offset=offset)


@lru_cache(maxsize=4096)
def _spelling_hint(word: str) -> str:
    """The hint for an unknown word, found once per word: a large module repeats one misspelling on every page,
    and each correction is a search of the dictionary (a hundredth of a second)."""
    guess = english_dictionary().correction(word.lower())
    if guess and guess != word.lower():
        return f"did you mean '{guess}'? If '{word}' is right, add it to data/words.txt"
    return f"if '{word}' is right, add it to data/words.txt"


def read_words(path: Path, rel: str = "data/words.txt") -> tuple[frozenset[str] | None, list[Problem]]:
    """The project's word list: one word a line, '#' starts a comment. None, with the located problem, for a
    list that cannot be read (not UTF-8, say): spelling is then not checked, rather than every word the list
    accepts reported."""
    if not os.path.lexists(path):
        return frozenset(), []
    text, problems = read_text(path, rel)
    if text is None:
        return None, problems
    words = set()
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if word:
            words.add(word)
    return frozenset(words), problems
