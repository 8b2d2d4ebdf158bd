"""Value forms: the system's forms and profile columns, and every profile value written in data.

A value form's pattern is data, and data is untrusted: a pattern such as `([0-9+]+)+x` makes a backtracking
engine (Python's `re`) take time exponential in the value's length, so one pull request could stop every check
and build. Patterns are matched with RE2 (`google-re2`), whose time is linear in the text; what RE2 does not
do (lookarounds, backreferences) is reported as an invalid pattern.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from ..catalogue import ListEntry, Project, walk_sections
from ..loader import source_text
from ..model import Column, ProfileValue, Record, Weapon
from ..problems import Problem, did_you_mean, error
from .base import CheckRun, at

NO_COST = ("-", "—")


def _form_names(project: Project, names: Iterable[str], owner: Record, what: str) -> Iterator[Problem]:
    forms = project.system.value_forms
    for form in names:
        if form not in forms:
            yield error(at(form, owner), "unknown-form", f"{what} names unknown value form '{form}'", did_you_mean(form, list(forms)))


def check_value_forms(run: CheckRun) -> Iterator[Problem]:
    """Every form a rule or column names exists, every form's pattern compiles, columns are unique."""
    system = run.project.system
    for module in run.project.modules.values():
        for rule in module.special_rules:
            yield from _form_names(run.project, rule.values, rule, f"rule '{rule.name}'")
    for name, form in system.value_forms.items():
        compiled, why = _compiled(form.pattern)
        if compiled is None:
            yield error(at(form.pattern, form), "pattern", f"value form '{name}' has an invalid pattern: {why}", _PATTERN_HINT)
    for kind in ("model", "weapon"):
        seen: set[str] = set()
        for column in getattr(system.profiles, kind):
            if column.key in seen:
                yield error(column.loc, "duplicate", f"{kind} profile column '{column.key}' is declared twice")
            seen.add(column.key)
            yield from _form_names(run.project, column.forms, column, f"column '{column.key}'")


def usable_forms(project: Project, names: Iterable[str]) -> list[str]:
    """The forms among `names` that judge a value: declared by the system, with a pattern RE2 reads. An unknown
    form (`unknown-form`) or an invalid pattern (`pattern`) is reported once, where it is written, not again at
    every value it would judge."""
    forms = project.system.value_forms
    return [name for name in names if name in forms and _compiled(forms[name].pattern)[0] is not None]


def form_patterns(project: Project, names: Iterable[str]) -> tuple[str, ...]:
    """The patterns of the usable forms among `names`."""
    forms = project.system.value_forms
    return tuple(forms[name].pattern for name in usable_forms(project, names))


def matches_a_form(patterns: tuple[str, ...], text: str) -> bool:
    """Whether a text is written in one of the forms of these `patterns`; any text is, when there is none."""
    return not patterns or any(form_matches(pattern, text) for pattern in patterns)


def written_in(project: Project, names: Iterable[str], text: str) -> bool:
    """Whether a text is written in one of the usable forms among `names`; any text is, when none is usable."""
    return matches_a_form(form_patterns(project, names), text)


def form_examples(project: Project, names: Iterable[str]) -> str:
    """The examples of these forms, as a problem's hint offers them ('6" or 3+'); '' when none has one."""
    forms = project.system.value_forms
    return " or ".join(forms[name].example for name in names if forms[name].example)


@dataclass(frozen=True)
class JudgedColumns:
    """A kind's profile columns by key, each with the patterns of its usable forms (none: any value will do):
    worked out once for an army list's thousands of values."""

    kind: str
    by_key: dict[str, tuple[Column, tuple[str, ...]]]

    @classmethod
    def of(cls, project: Project, kind: str) -> JudgedColumns:
        columns = getattr(project.system.profiles, kind)
        return cls(kind, {c.key: (c, form_patterns(project, c.forms)) for c in columns})


_PATTERN_HINT = "a value form is a regular expression without lookarounds or backreferences (RE2 syntax)"


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple[Any, str]:
    """The pattern compiled by RE2, or None and why not."""
    options = re2.Options()
    options.log_errors = False  # RE2 would also print the error to the terminal, beside our located line
    try:
        return re2.compile(pattern, options), ""
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        return None, reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)


@lru_cache(maxsize=8192)
def form_matches(pattern: str, text: str) -> bool:
    """Whether a value form's pattern matches the whole text, in time linear in its length; an invalid pattern
    (reported once, at the form) matches nothing. Kept per text: the same few values (4+, 6", -) fill every
    profile, and a match through RE2's Python wrapper (about 4 µs) costs forty times a lookup here."""
    compiled = _compiled(pattern)[0]
    return compiled is not None and compiled.fullmatch(text) is not None


def check_profile(
    project: Project,
    profile: dict[str, ProfileValue] | None,
    columns: JudgedColumns,
    owner: Record,
    name: str,
    parameter: str | None = None,
    footnote: bool = False,
    partial: bool = False,
) -> Iterator[Problem]:
    """A profile has every column of its kind (`columns`, unless `partial`), and nothing else, each in its form."""
    if profile is None:
        if not partial:
            yield error(owner.loc, "missing-column", f"{name} has no profile")
        return
    for key, value in profile.items():
        judged = columns.by_key.get(key)
        if judged is None:
            known = list(columns.by_key)
            hint = did_you_mean(key, known) or f"columns: {', '.join(known)}"
            yield error(at(key, owner), "unknown-column", f"{name}: '{key}' is not a {columns.kind} profile column", hint)
        # judged as written: an unquoted +2 is not the 2 YAML read
        elif str(value) != parameter and not (footnote and str(value) == "*") and not matches_a_form(judged[1], source_text(value)):
            yield _value_form(project, judged[0], value, owner, name)
    if not partial:
        for key, (column, _patterns) in columns.by_key.items():
            if key not in profile:
                message = f"{name} has no {column.label} ({column.name or key}) value"
                yield error(owner.loc, "missing-column", message, f"add '{key}:' to its profile")


def _value_form(project: Project, column: Column, value: ProfileValue, owner: Record, name: str) -> Problem:
    known = usable_forms(project, column.forms)
    examples = form_examples(project, known)
    return error(
        at(value, owner),
        "value-form",
        f"{name}: {column.label} value {str(value)!r} is not written as {' or '.join(known)}",
        f"write it like {examples}" if examples else "",
    )


def weapon_profiles(project: Project, weapon: Weapon, columns: JudgedColumns) -> Iterator[Problem]:
    """A weapon's profile, or with firing modes a partial profile and one whole profile per mode."""
    name = f"weapon '{weapon.name}'"
    footnote = bool(weapon.footnote)
    if weapon.modes:
        yield from check_profile(project, weapon.profile, columns, weapon, name, weapon.parameter, footnote, partial=True)
        for mode in weapon.modes:
            yield from check_profile(project, mode.profile, columns, mode, f"{name} ({mode.name})", weapon.parameter, footnote)
    elif not (weapon.pending and weapon.profile is None):
        yield from check_profile(project, weapon.profile, columns, weapon, name, weapon.parameter, footnote)


def check_profiles(run: CheckRun, entry: ListEntry) -> Iterator[Problem]:
    """Every model's and weapon's profile in an army list, every upgrade's changes to one, and upgrade costs."""
    project = run.project
    models, weapons = JudgedColumns.of(project, "model"), JudgedColumns.of(project, "weapon")
    for section in walk_sections(entry.army_list.sections):
        if section.unit is not None:
            for model in section.unit.models:
                yield from check_profile(project, model.profile, models, model, f"model '{model.name}'")
        for weapon in section.weapon_list.weapons if section.weapon_list else ():
            yield from weapon_profiles(project, weapon, weapons)
        for upgrade in section.upgrade_list.upgrades if section.upgrade_list else ():
            if isinstance(upgrade.points, str) and upgrade.points not in NO_COST:
                yield error(
                    at(upgrade.points, upgrade),
                    "value-form",
                    f"upgrade '{upgrade.name}': cost {upgrade.points!r} must be a whole number, or '-' where none is printed",
                )
            yield from check_profile(project, upgrade.sets, models, upgrade, f"upgrade '{upgrade.name}'", partial=True)
