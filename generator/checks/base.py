"""What every check receives, and the small helpers checks share."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..catalogue import Project, Scope
from ..loader import loc_of
from ..model import Module, Record
from ..problems import Location, Problem
from ..resolve import Resolved
from ..schema import nesting_fields
from .lists import ListMemo
from .texts import TextMemo

Problems = Iterable[Problem]


@dataclass(frozen=True)
class CheckRun:
    """One run of the checks: the resolved project and the little context some checks need.

    `words` are the project's own accepted spellings (None skips spelling); `root` is the project
    folder (None skips the errata patches, which read files).
    """

    resolved: Resolved
    words: frozenset[str] | None = None
    root: Path | None = None
    data_dir: str = "data"
    content_dir: str = "content"
    #: What the per-text checks found in each text, from the last run where it holds them.
    texts: TextMemo = field(default_factory=TextMemo)
    #: What the per-list checks found in each army list, from the last run where its files read the same.
    lists: ListMemo = field(default_factory=ListMemo)

    @property
    def project(self) -> Project:
        return self.resolved.project


def at(value: Any, record: Record) -> Location:
    """Where a value of a record was written, else where the record was."""
    return loc_of(value, record.loc)


def scope_names(scope: Scope) -> str:
    """A scope and those it falls back on, by title: where a name was looked for."""
    return ", ".join(s.title for s in scope.chain())


def currency(module: Module) -> str:
    """The name of a module's currency, for messages."""
    return module.currency.name if module.currency else "points"


@cache
def named_fields(cls: type, names: frozenset[str]) -> tuple[tuple[str, bool], ...]:
    """A plan taking the fields of these names, walking into the others that can hold records (but `errata`,
    whose texts are the sources' words): worked out once per class."""
    walked = names | nesting_fields(cls)  # the other fields hold neither what is taken nor records
    return tuple((f.name, f.name in names) for f in dataclasses.fields(cls) if f.name != "errata" and f.name in walked)
