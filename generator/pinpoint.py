"""Problems in a data text, moved from where the text starts to the word or link they are about.

A check sees a text as YAML read it: folded, unindented, unquoted. It reports a problem at the text's
start with an offset into the value (`Problem.offset`); here the file is read once and that offset is
walked back through the scalar as it was written, so an editor lands on the word itself. Done only for
the few problems found, after the checks: the value is never mapped for texts that have none.
"""

from __future__ import annotations

import bisect
import dataclasses
from pathlib import Path

import yaml

from .problems import Location, Problem
from .untrusted import SAFE_LOADER

_SPACE = " \t\r\n"
_BLOCK = "|>"
_QUOTES = "'\""


def pinpoint(root: Path, problems: list[Problem]) -> list[Problem]:
    """`problems` with each one that has an offset located at it; one whose text cannot be walked (an escape
    sequence before the word, an offset past its end, a file that cannot be read) stays at the text's start.
    The offset was found in the file as the check read it, in this same run: the file is the one walked."""
    if not any(p.offset >= 0 for p in problems):
        return problems
    files: dict[str, _Read | None] = {}

    def scalars(path: str) -> _Read | None:
        if path not in files:
            try:
                text = (root / path).read_text(encoding="utf-8")
                files[path] = (text, _scalars(text), line_starts(text))
            except (OSError, UnicodeDecodeError, yaml.YAMLError):
                files[path] = None
        return files[path]

    return [_pinned(p, scalars(p.location.path)) if p.offset >= 0 else p for p in problems]


#: A file as it is walked: its text, each scalar's value by where it is written, and where each line starts.
_Read = tuple[str, dict[tuple[int, int], str], list[int]]


def line_starts(text: str) -> list[int]:
    """The offset each line of `text` starts at: found once per file, so placing each of its many problems
    costs a search, not a walk over the file up to it."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _scalars(text: str) -> dict[tuple[int, int], str]:
    """Each scalar's value by the (line, column) it is written at, as the loader locates it."""
    found: dict[tuple[int, int], str] = {}
    for event in yaml.parse(text, Loader=SAFE_LOADER):
        mark = event.start_mark
        if isinstance(event, yaml.ScalarEvent) and mark is not None:
            found[mark.line + 1, mark.column + 1] = event.value
    return found


def _pinned(problem: Problem, read: _Read | None) -> Problem:
    loc = problem.location
    value = read[1].get((loc.line, loc.column)) if read else None
    found = position_in_scalar(read[0], loc.line, loc.column, value, problem.offset, read[2]) if read and value is not None else None
    where = Location(loc.path, *found) if found else loc
    return dataclasses.replace(problem, location=where, offset=-1)


def position_in_scalar(
    source: str, line: int, column: int, value: str, offset: int, starts: list[int] | None = None
) -> tuple[int, int] | None:
    """(line, column) in `source` of `value[offset]`, `value` being the YAML scalar written at (`line`,
    `column`); None when the walk meets anything it does not read (an escape sequence). `starts` are the
    source's `line_starts`, given by a caller placing many problems in one file."""
    if not 0 <= offset < len(value):
        return None
    starts = line_starts(source) if starts is None else starts
    if not 1 <= line <= len(starts) or column < 1:
        return None
    at = starts[line - 1] + column - 1
    quote = source[at] if at < len(source) and source[at] in _QUOTES else ""
    if at < len(source) and source[at] in _BLOCK:  # `>-` or `|`: the text starts on the next line
        at = source.find("\n", at)
        if at < 0:
            return None
    elif quote:
        at += 1
    walked = _walk(source, at, value, offset, quote)
    if walked is None:
        return None
    row = bisect.bisect_right(starts, walked)  # the line holding `walked`, as problems.position counts it
    return row, walked - starts[row - 1] + 1


def _walk(source: str, at: int, value: str, offset: int, quote: str) -> int | None:
    """The index in `source` of `value[offset]`, the scalar's text starting at `at`.

    A run of whitespace in the value (spaces, or the line break a folded line became) is a run of it in the
    source (line breaks and the indentation after them); `''` in single quotes is one quote."""
    at = _skip_space(source, at)
    index = 0
    while index < offset:
        char = source[at] if at < len(source) else ""
        if value[index] in _SPACE:
            if char not in _SPACE or not char:
                return None
            index, at = _skip_space(value, index), _skip_space(source, at)
        elif char == value[index] and not (quote == "'" and char == "'"):
            index, at = index + 1, at + 1
        elif quote == "'" and char == "'" == value[index] and source[at : at + 2] == "''":
            index, at = index + 1, at + 2
        else:
            return None  # an escape sequence, or the source is not this value
    return at if index == offset and value[offset] == source[at : at + 1] else None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


__all__ = ["pinpoint", "position_in_scalar"]
