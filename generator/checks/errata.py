"""Errata: each erratum's as-published patch must still apply to the data it corrects."""

from __future__ import annotations

from collections.abc import Iterator

from ..problems import Problem, error
from .base import CheckRun, at


def check_errata_patches(run: CheckRun) -> Iterator[Problem]:
    """Each patch's file is in the project, and its `find` text occurs there exactly once."""
    if run.root is None:
        return
    base = (run.root / run.data_dir).resolve()
    top = run.root.resolve()
    for module in run.project.modules.values():
        for erratum in module.errata:
            patch = erratum.as_published
            if patch is None:
                continue
            target = (base / patch.file).resolve()
            if top not in target.parents:
                yield error(at(patch.file, patch), "unsafe-path", f"erratum patch file {patch.file!r} is outside the project")
                continue
            try:
                text = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                yield error(at(patch.file, patch), "missing", f"erratum patch file {patch.file!r} cannot be read: {exc}")
                continue
            count = text.count(patch.find)
            if count != 1:
                yield error(
                    at(patch.find, patch),
                    "erratum-patch",
                    f"erratum text to find occurs {count} times in {patch.file}; it must occur exactly once",
                    "include more of the surrounding line",
                )
