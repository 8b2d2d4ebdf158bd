"""Problems found in user data, each tied to a place in a file.

Every stage returns problems as values; only the shells (plugin, command) decide to fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

#: Characters that could split a report line, forge one, or hide text on a terminal: C0 and C1
#: controls (newline, carriage return, escape, NUL...), Unicode line and paragraph separators, and the
#: bidirectional overrides that reorder what a reader sees.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """`text` with every character that could split or forge a report line written as an escape."""

    def escape(match: re.Match[str]) -> str:
        char = match.group(0)
        code = ord(char)
        return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")

    return _UNPRINTABLE.sub(escape, text)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True, slots=True)
class Location:
    """A place in a project file; lines and columns count from 1.

    Every value read from a data file has one, so it has slots: a third of the memory of a dict.
    """

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return f"{one_line(self.path)}:{self.line}:{self.column}"


_new = object.__new__
_set_path, _set_line, _set_column = (getattr(Location, name).__set__ for name in ("path", "line", "column"))  # its slots


def position(text: str, offset: int) -> tuple[int, int]:
    """Line and column (from 1) of an offset into a text, as an editor counts them."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def located(path: str, line: int, column: int) -> Location:
    """A Location as its `__init__` makes it, its slots set directly: 0.3 instead of 0.55 µs here, and
    reading a project at 10x the shipped data makes some two hundred thousand (parsed or read back)."""
    loc = _new(Location)
    _set_path(loc, path)
    _set_line(loc, line)
    _set_column(loc, column)
    return loc


@dataclass(frozen=True, kw_only=True)
class Problem:
    location: Location
    severity: Severity
    code: str
    message: str
    hint: str = ""
    data_path: str = field(default="", compare=False)
    #: Where in the text that starts at `location` the problem is (a word, a link): -1 when `location` is
    #: the place itself. Turned into a line and column once the file is read again (`pinpoint`); not compared,
    #: so the same word twice in a text left at its start is one problem.
    offset: int = field(default=-1, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)

    @property
    def text(self) -> str:
        """The message and hint on one line, as every report format shows them."""
        return one_line(self.message + (f" (hint: {self.hint})" if self.hint else ""))

    def __str__(self) -> str:
        return f"{self.location}: {self.severity.value}[{one_line(self.code)}]: {self.text}"

    def to_plain(self) -> tuple[str, int, int, str, str, str, str, str, int]:
        """The problem as plain values, for the user's cache (`from_plain` reads them back)."""
        loc = self.location
        return (loc.path, loc.line, loc.column, self.severity.value, self.code, self.message, self.hint, self.data_path, self.offset)

    @classmethod
    def from_plain(cls, values: tuple[object, ...]) -> Problem:
        """A problem from `to_plain`'s values; ValueError or TypeError when they are not such values."""
        path, line, column, severity, code, message, hint, data_path, offset = values
        texts = (path, severity, code, message, hint, data_path)
        if not all(isinstance(t, str) for t in texts) or type(line) is not int or type(column) is not int or type(offset) is not int:
            raise TypeError("not a stored problem")
        return cls(
            location=Location(str(path), line, column), severity=Severity(str(severity)), code=str(code),
            message=str(message), hint=str(hint), data_path=str(data_path), offset=offset,
        )  # fmt: skip


def error(location: Location, code: str, message: str, hint: str = "", data_path: str = "", offset: int = -1) -> Problem:
    return Problem(location=location, severity=Severity.ERROR, code=code, message=message, hint=hint, data_path=data_path, offset=offset)


def warning(location: Location, code: str, message: str, hint: str = "", data_path: str = "", offset: int = -1) -> Problem:
    return Problem(location=location, severity=Severity.WARNING, code=code, message=message, hint=hint, data_path=data_path, offset=offset)


def did_you_mean(name: str, choices: list[str] | set[str] | tuple[str, ...]) -> str:
    """A hint naming the closest valid choice, or the empty string when none is close."""
    close = closest(name, choices)
    return f"did you mean '{close}'?" if close else ""


def closest(name: str, choices: list[str] | set[str] | tuple[str, ...]) -> str | None:
    """The valid choice a mistyped name most likely meant: the same but for case, else a close spelling."""
    import difflib

    pool = sorted(set(choices))
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
    if not close:
        close = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.75)]
    return close[0] if close else None


class DataError(Exception):
    """Raised at a shell boundary when problems must stop the work."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def shortened(text: str, limit: int = 40) -> str:
    """A text on one line, cut to `limit` characters: a value quoted in a message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def yaml_error_at(exc: Any, path: str, first_line: int = 1) -> tuple[Location, str]:
    """Where a YAML parser (a `yaml.MarkedYAMLError`) stopped in a file, and what it said there.

    `first_line` is the file's line the parsed text starts on (front matter starts on line 2)."""
    mark = exc.problem_mark or exc.context_mark
    where = Location(path, mark.line + first_line, mark.column + 1) if mark else Location(path, 1, 1)
    what = f"{exc.problem} ({exc.context})" if exc.problem and exc.context else exc.problem or exc.context or "invalid YAML"
    return where, what


def unreadable_project(problems: list[Problem], loaded: bool) -> bool:
    """Whether a project could not be read at all (a folder or its system file missing, a file unreadable):
    a usage or I/O error, exit code 2, rather than problems in its data, exit code 1."""
    return not loaded and any(p.severity is Severity.ERROR and p.code in ("missing", "io") for p in problems)
