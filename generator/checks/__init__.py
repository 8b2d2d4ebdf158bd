"""Every check, registered in one place with the codes it may report.

A check is a plain function from a `CheckRun` (the resolved project and a little context) to the
problems it finds; it never stops at the first. The registry below is the one list of checks and of
the codes they report: the test that every code has a planted case reads it. A check written over the
bare `Project` is registered with `over_project(fn)`, one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..cache import Digests
from ..catalogue import ListEntry, Project
from ..paths import path_problems
from ..problems import Problem
from ..resolve import Resolved
from . import (
    army_lists,
    budgets,
    built_models,
    content_safety,
    design,
    engine_config,
    errata,
    front_matter,
    links,
    markup,
    modules,
    rules,
    spelling,
    tables,
    unused,
    values,
)
from .base import CheckRun
from .lists import ListMemo
from .spelling import read_words
from .texts import TextMemo

CheckFunction = Callable[[CheckRun], Iterable[Problem]]


@dataclass(frozen=True)
class Check:
    """One check and every code it may report."""

    run: CheckFunction
    codes: tuple[str, ...]

    @property
    def name(self) -> str:
        return getattr(self.run, "__name__", repr(self.run))


def over_project(check: Callable[[Project], Iterable[Problem]]) -> CheckFunction:
    """A check written over the bare project, as a registered check."""

    def run(checks: CheckRun) -> Iterable[Problem]:
        return check(checks.project)

    run.__name__ = getattr(check, "__name__", "check")
    return run


def per_army_list(check: Callable[[CheckRun, ListEntry], Iterable[Problem]]) -> CheckFunction:
    """A check of one army list at a time, as a registered check: each list's problems are kept from the last
    run whose files they read (`ListMemo`). Such a check reads only its list, the scopes of its chain, the
    system and the word list: files outside the modules' folders, or in those of its chain."""
    name = getattr(check, "__name__", "check")

    def run(checks: CheckRun) -> Iterable[Problem]:
        project = checks.project
        for entry in project.lists:
            yield from checks.lists.find(name, project, entry, lambda: list(check(checks, entry)))  # noqa: B023 (called at once)

    run.__name__ = name
    return run


UNKNOWN_NAMES = ("unknown-weapon", "unknown-weapon-list", "unknown-upgrade", "unknown-unit", "unknown-model")

#: Every check, in the order its problems are found (they are sorted by place before reporting).
CHECKS: tuple[Check, ...] = (
    Check(values.check_value_forms, ("unknown-form", "pattern", "duplicate")),
    Check(per_army_list(values.check_profiles), ("missing-column", "unknown-column", "value-form")),
    Check(rules.check_rule_definitions, ("duplicate", "value", "rule-name", "rules-not-shown")),
    Check(rules.check_rule_uses, ("unknown-rule", "rule-kind", "rule-name", "rule-arity", "value-form")),
    Check(over_project(path_problems), ("unsafe-path",)),
    Check(modules.check_module_pages, ("missing-page", "duplicate")),
    Check(modules.check_module_tables, ("duplicate",)),
    Check(modules.check_categories, ("unknown-category", "share", "range")),
    Check(tables.check_tables, ("table-row", "dice", "roll", "roll-range", "roll-overlap", "roll-gap")),
    Check(
        army_lists.check_army_lists,
        ("unknown-list", "too-large", "section", "duplicate", "range", "empty-option", "unknown-section"),
    ),
    Check(army_lists.check_footnotes, ("footnote",)),
    Check(army_lists.check_anchors, ("duplicate",)),
    Check(army_lists.check_names, UNKNOWN_NAMES),
    Check(per_army_list(budgets.check_budgets), ("budget", "category-share", "required-category")),
    Check(built_models.check_built_models, ("points", "profile", "rules")),
    Check(links.check_page_collisions, ("page-collision",)),
    Check(links.check_directives, ("directive",)),
    Check(front_matter.check_front_matter, ("front-matter", "unsafe-content")),
    Check(content_safety.check_content_markup, ("unsafe-content", "markdown-limit")),
    Check(content_safety.check_content_files, ("unsafe-content",)),
    Check(links.check_page_links, ("broken-link",)),
    Check(links.check_unlisted_pages, ("unlisted-page",)),
    Check(unused.check_unused, ("unused",)),
    Check(spelling.check_name_spelling, ("spelling", "name-case")),
    Check(spelling.check_prose_spelling, ("spelling",)),
    Check(per_army_list(spelling.check_list_spelling), ("spelling",)),
    Check(errata.check_errata_patches, ("missing", "erratum-patch")),
    Check(errata.check_errata_anchors, ("broken-link",)),
    Check(over_project(design.check_duplicate_names), ("duplicate-name",)),
    Check(over_project(design.check_upgrade_points), ("missing-points",)),
    Check(over_project(design.check_empty_sections), ("empty-section",)),
    Check(per_army_list(design.check_unstated_values), ("unstated-value",)),
    Check(over_project(design.check_rule_kind_labels), ("unknown-kind",)),
    Check(over_project(design.check_label_placeholders), ("label-placeholder",)),
    Check(markup.check_unsafe_markup, ("unsafe-markup", "markdown-limit")),
    Check(per_army_list(markup.check_list_markup), ("unsafe-markup", "markdown-limit")),
    Check(engine_config.check_engine_config, engine_config.CODES),
)


def codes() -> set[str]:
    """Every code a registered check may report."""
    return {code for check in CHECKS for code in check.codes}


def run_checks(
    resolved: Resolved,
    *,
    words: frozenset[str] | None = None,
    root: Path | None = None,
    data_dir: str = "data",
    content_dir: str = "content",
    digests: Digests | None = None,
) -> list[Problem]:
    """Run every registered check over a resolved project; all problems at once.

    `words` are the project's accepted spellings (None skips spelling); `root` the project folder
    (None skips the errata patches, which read files); `digests` what its data files held before they were
    read (`cache.read_digests`; None keeps no list's problems).
    """
    texts = TextMemo.of_project(root, data_dir, words or frozenset()) if root is not None else TextMemo()
    lists = ListMemo(root, data_dir, resolved.project, digests)
    run = CheckRun(resolved, words, root, data_dir, content_dir, texts, lists)
    found = [problem for check in CHECKS for problem in check.run(run)]
    texts.save()
    lists.save()
    return found


__all__ = ["CHECKS", "Check", "CheckRun", "codes", "over_project", "per_army_list", "read_words", "run_checks"]
