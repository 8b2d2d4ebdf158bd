"""The `unsafe-markup` check: what the restricted Markdown dialect of data (`generator/markup.py`)
removed from each data field, located; and `markdown-limit`, a field Python-Markdown could not read in linear
time (`untrusted.markdown_overload`), which is refused and never rendered.

Most fields are plain words and rule links, which the dialect can never change: they are told apart
by a character test, so a project without markup is checked without importing Markdown at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import partial

from ..catalogue import ListEntry
from ..model import Record
from ..problems import Location, Problem, error, warning
from ..schema import markdown_strings
from ..untrusted import markdown_overload
from .base import CheckRun


def _label(record: Record) -> str:
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(record).__name__).lower()
    name = getattr(record, "name", None) or getattr(record, "title", None) or getattr(record, "id", None)
    return f"{words} '{name}'" if isinstance(name, str) and name else words


#: Where anything the restricted dialect removes must start: raw HTML, comments and autolinks with
#: '<', attribute lists with '{', links, images and reference definitions with '[' or ']', entities
#: with '&'.
_MARKUP_START = re.compile(r"[<{\[\]&]")
#: A `[[Rule]]` link: plain text to python-markdown (a link or image needs a '(' right after the
#: closing bracket; a reference needs a definition, which needs brackets of its own).
_RULE_LINK = re.compile(r"\[\[([^\[\]]*)\]\](?!\()")
#: An inline link or image to an http, https or mailto address, or to a relative one (letters, digits and
#: `_ . / # -` alone: no ':', so no scheme), with no markup in its text and nothing in its address that could
#: end, escape or disguise it: kept by the dialect as written.
_SAFE_LINK = re.compile(r"!?\[[^\[\]<>{}&\n]*\]\((?:(?:https?://|mailto:)[^\s()<>{}&\[\]\\\"']*|[\w./#-]+)\)")


def may_carry_markup(text: str) -> bool:
    """Whether rendering `text` could remove anything: false for the many fields of plain words, rule
    links and plain links to web or mail addresses.

    Only the rule links' brackets and such links are set aside; the rest is looked at.
    """
    return _MARKUP_START.search(_SAFE_LINK.sub("", _RULE_LINK.sub(r"\1", text))) is not None


#: What the dialect removed from a text, each with where it starts in the text (-1: not found as written).
Removals = tuple[tuple[str, int], ...]


def _removed(text: str) -> Removals:
    """What the restricted dialect removes from `text`, and where: Markdown is imported only for such a field.

    The parser reports what it removed, not where; each removal is found again in the text as the parser met it.
    One written otherwise than the parser met it (an address with a backslash escape) is placed at the text's start.
    """
    from ..markup import render

    fragment = render(text)
    return tuple((what, text.find(markup)) for what, markup in zip(fragment.removed, fragment.markup, strict=True))


def _removed_if_any(text: str) -> Removals:
    return _removed(text) if may_carry_markup(text) else ()


def check_unsafe_markup(run: CheckRun) -> list[Problem]:
    """`unsafe_markup` of the system, the modules and the releases (each army list's: `check_list_markup`), with
    what the dialect removes from each text kept from the last check (`TextMemo`)."""
    project = run.project
    roots: list[tuple[Record, str]] = [(project.system, project.system_file)]
    roots += [(module, project.module_files[module.id]) for module in project.modules.values()]
    roots += [(release, release.loc.path) for release in project.releases]
    return unsafe_markup(roots, _kept_removals(run), run.resolved.texts)


def check_list_markup(run: CheckRun, entry: ListEntry) -> list[Problem]:
    """`unsafe_markup` of one army list."""
    return unsafe_markup([(entry.army_list, entry.file)], _kept_removals(run), run.resolved.texts)


def _kept_removals(run: CheckRun) -> Callable[[str], Removals]:
    """What the dialect removes from a text, kept by text from the last check (`TextMemo`)."""
    return partial(run.texts.find, "markup", work=_removed_if_any)


def unsafe_markup(
    roots: list[tuple[Record, str]],
    removed_from: Callable[[str], Removals] = _removed_if_any,
    read: Mapping[int, tuple[tuple[Record, str, str], ...]] | None = None,
) -> list[Problem]:
    """A warning for each Markdown field under these records (each with its file) from which the restricted
    dialect removed something, at the first removal found in the text as written.

    `read`: the texts the resolve stage read under each record (`Resolved.texts`); a record's are walked here only
    when it read none (the system's and the releases' in a project with no page to show them).
    """
    problems: list[Problem] = []
    for root, file in roots:
        texts = read.get(id(root)) if read is not None else None
        for record, name, text in markdown_strings(root) if texts is None else texts:
            loc = getattr(text, "loc", None)
            where = loc or (record.loc if record.loc.path else Location(file, 0, 0))
            overload = markdown_overload(text)
            if overload is not None:  # refused, and never rendered: Markdown would not finish it
                message = f"{_label(record)} {name}: {overload.message}"
                problems.append(error(where, "markdown-limit", message, overload.hint, offset=overload.offset if loc else -1))
                continue
            removed = removed_from(text)
            if removed:
                found = [offset for _what, offset in removed if offset >= 0]
                problems.append(
                    warning(
                        where,
                        "unsafe-markup",
                        f"{_label(record)} {name}: {'; '.join(dict.fromkeys(what for what, _offset in removed))} removed",
                        hint="data Markdown allows no raw HTML, no attribute lists and only http, https, mailto or relative links",
                        offset=min(found) if found and loc else -1,
                    )
                )
    return problems
