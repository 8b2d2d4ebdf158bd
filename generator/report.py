"""Problems as text lines, JSON objects or GitHub Actions annotations.

Every format shows one problem on one line: paths, messages and hints pass through `one_line`, so a
value quoted from the data (a newline, a line separator, an escape sequence) cannot split or forge one.
"""

from __future__ import annotations

from collections.abc import Iterable

from .problems import Problem, Severity, one_line

FORMATS = ("text", "json", "github")


#: Said after the counts when the data did not read cleanly, so the checks across files did not run: fixing
#: these errors may bring others to light, and the designer should expect it.
NOT_CHECKED = "names, links, points, army-building rules and spelling are checked once these errors are fixed"


def summary(problems: list[Problem], *, checked: bool = True) -> str:
    """The counts; `checked` False when the checks across files were left out (`Loaded.checked`)."""
    errors = sum(1 for p in problems if p.severity is Severity.ERROR)
    warnings = len(problems) - errors
    if not problems:
        return "no problems found"
    counts = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    return counts if checked else f"{counts}; {NOT_CHECKED}"


def _github_escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_problems(problems: Iterable[Problem], fmt: str = "text", *, checked: bool = True) -> str:
    """All problems in one of FORMATS, sorted and stable; text ends with a summary line (see `summary`)."""
    ordered = sorted(problems, key=lambda p: p.sort_key)
    if fmt == "json":
        import json  # here: only this format needs it, and every `cadence check` starts by importing this module

        return "\n".join(
            json.dumps(
                {
                    "path": one_line(p.location.path),
                    "line": p.location.line,
                    "column": p.location.column,
                    "severity": p.severity.value,
                    "code": one_line(p.code),
                    "message": one_line(p.message),
                    "hint": one_line(p.hint),
                },
                ensure_ascii=False,
            )
            for p in ordered
        )
    if fmt == "github":
        lines = []
        for p in ordered:
            level = "error" if p.severity is Severity.ERROR else "warning"
            message = p.text
            lines.append(
                f"::{level} file={_github_escape(one_line(p.location.path), True)},line={p.location.line},col={p.location.column},"
                f"title={_github_escape(p.code, True)}::{_github_escape(message)}"
            )
        return "\n".join(lines)
    return "\n".join([*(str(p) for p in ordered), summary(ordered, checked=checked)])
