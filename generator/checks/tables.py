"""Tables: every row as wide as the header, and roll tables covering their dice exactly once."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..catalogue import walk_sections
from ..model import Table
from ..problems import Problem, error
from .base import CheckRun, at

ROLL = re.compile(r"^\s*(?P<low>\d+)\s*(?:(?P<plus>\+)|(?P<minus>-)|[-–]\s*(?P<high>\d+))?\s*$")
DICE = re.compile(r"^(?P<count>\d*)d(?P<sides>\d+)$")


def all_tables(run: CheckRun) -> Iterator[Table]:
    for module in run.project.modules.values():
        yield from module.tables
    for entry in run.project.lists:
        yield from (s.table for s in walk_sections(entry.army_list.sections) if s.table is not None)


def check_tables(run: CheckRun) -> Iterator[Problem]:
    """Each table's rows, and each roll table's ranges."""
    for table in all_tables(run):
        width = len(table.columns)
        for index, row in enumerate(table.rows):
            if len(row) != width:
                message = f"table '{table.name}' row {index + 1} has {len(row)} values for {width} columns"
                yield error(at(row[0] if row else table.name, table), "table-row", message)
        if table.dice:
            yield from check_roll_ranges(table)


def roll_span(dice: str) -> tuple[int, int] | None:
    """The lowest and highest result of dice written like d6 or 2d6."""
    match = DICE.match(dice.strip().lower())
    if not match:
        return None
    count = int(match["count"] or 1)
    return count, count * int(match["sides"])


def check_roll_ranges(table: Table) -> Iterator[Problem]:
    """The first column of a roll table must cover every result of its dice exactly once."""
    assert table.dice is not None
    span = roll_span(table.dice)
    if span is None:
        yield error(at(table.dice, table), "dice", f"table '{table.name}': dice {table.dice!r} is not written like d6, 2d6 or d10")
        return
    low, high = span
    if table.results is not None:
        low = table.results.min if table.results.min is not None else low
        high = table.results.max if table.results.max is not None else high
    covered: dict[int, int] = {}
    for index, row in enumerate(table.rows):
        if row:
            yield from _roll_row(table, index, row[0], low, high, covered)
    missing = [r for r in range(low, high + 1) if r not in covered]
    if missing:
        yield error(table.loc, "roll-gap", f"table '{table.name}': no row for {_ranges(missing)} on {table.dice}")


def _roll_row(table: Table, index: int, cell: object, low: int, high: int, covered: dict[int, int]) -> Iterator[Problem]:
    """One row's roll: readable, forwards, inside the dice's results, and in no other row."""
    text = str(cell)
    match = ROLL.match(text)
    where = at(cell, table)
    if not match:
        yield error(where, "roll", f"table '{table.name}': {text!r} is not a roll like 3, 1-3, 5+ or 2-")
        return
    start = int(match["low"])
    end = high if match["plus"] else int(match["high"]) if match["high"] else start
    if match["minus"]:
        start, end = low, start
    if start > end:
        yield error(where, "roll", f"table '{table.name}': roll {text!r} runs backwards")
        return
    for result in range(start, end + 1):
        if result < low or result > high:
            yield error(where, "roll-range", f"table '{table.name}': roll {result} is outside the results {low}-{high} of {table.dice}")
            return
        if result in covered:
            yield error(where, "roll-overlap", f"table '{table.name}': roll {result} is in row {covered[result] + 1} and row {index + 1}")
            return
        covered[result] = index


def _ranges(numbers: list[int]) -> str:
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)
