"""Problems found in user data, each tied to a place in a file.

Every stage returns problems as values; only the shells (plugin, command) decide to fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Location:
    """A place in a project file; lines and columns count from 1."""

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True, kw_only=True)
class Problem:
    location: Location
    severity: Severity
    code: str
    message: str
    hint: str = ""
    data_path: str = field(default="", compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)

    def __str__(self) -> str:
        text = f"{self.location}: {self.severity.value}[{self.code}]: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


def error(location: Location, code: str, message: str, hint: str = "", data_path: str = "") -> Problem:
    return Problem(location=location, severity=Severity.ERROR, code=code, message=message, hint=hint, data_path=data_path)


def warning(location: Location, code: str, message: str, hint: str = "", data_path: str = "") -> Problem:
    return Problem(location=location, severity=Severity.WARNING, code=code, message=message, hint=hint, data_path=data_path)


def did_you_mean(name: str, choices: list[str] | set[str] | tuple[str, ...]) -> str:
    """A hint naming the closest valid choice, or the empty string when none is close."""
    import difflib

    pool = sorted(set(choices))
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return f"did you mean '{lowered[name.lower()]}'?"
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
    if not close:
        close = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.75)]
    return f"did you mean '{close[0]}'?" if close else ""


class DataError(Exception):
    """Raised at a shell boundary when problems must stop the work."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
