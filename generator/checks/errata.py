"""Errata: each erratum's as-published patch must still apply to the data it corrects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .. import cache
from ..loader import read_text
from ..paths import is_safe
from ..problems import Problem, did_you_mean, error
from .base import CheckRun, at


def check_errata_patches(run: CheckRun) -> Iterator[Problem]:
    """Each patch's file is in the project, and its `find` text occurs there exactly once."""
    if run.root is None:
        return
    base = run.root / run.data_dir
    read: dict[Path, tuple[str | None, list[Problem]]] = {}  # many errata patch the same file: read it once
    for module in run.project.modules.values():
        for erratum in module.errata:
            patch = erratum.as_published
            if patch is None or not is_safe(patch.file, "file"):
                continue  # an unsafe path is reported by paths.py
            # The path is lexically inside the project; links were vetted when the project was walked,
            # and read_text opens only regular files (a FIFO would block for ever).
            target = base / patch.file
            count = _occurrences(run, target, patch.find, read)
            if count is None:
                _text, unreadable = _read(run.root, target, read)
                why = unreadable[0].message if unreadable else "no such file"
                yield error(at(patch.file, patch), "missing", f"erratum patch file {patch.file!r} cannot be read: {why}")
                continue
            if count != 1:
                yield error(
                    at(patch.find, patch),
                    "erratum-patch",
                    f"erratum text to find occurs {count} times in {patch.file}; it must occur exactly once",
                    "include more of the surrounding line",
                )


def _read(root: Path, target: Path, read: dict[Path, tuple[str | None, list[Problem]]]) -> tuple[str | None, list[Problem]]:
    if target not in read:
        read[target] = read_text(target, target.relative_to(root).as_posix()) if target.exists() else (None, [])
    return read[target]


def _occurrences(run: CheckRun, target: Path, find: str, read: dict[Path, tuple[str | None, list[Problem]]]) -> int | None:
    """How often `find` occurs in a regular file (None if it cannot be read), kept in the text memo under the
    file's digest (`cache.file_digest`: the data files were hashed when the project was read)."""
    assert run.root is not None
    root = run.root
    digest = cache.regular_file_digest(str(target))
    if digest is None:  # not a regular file (never opened here), or unreadable: read_text says why
        return None

    def count(_key: str) -> tuple[int, ...]:
        text, _ = _read(root, target, read)
        return (-1,) if text is None else (text.count(find),)

    found = int(run.texts.find("erratum-patch", f"{digest.hex()}\0{find}", count)[0])
    return None if found < 0 else found


def check_errata_anchors(run: CheckRun) -> Iterator[Problem]:
    """An erratum's anchor must be a heading on its page: the Errata page links to it."""
    for module in run.project.modules.values():
        for erratum in module.errata:
            known = run.resolved.anchors.get(erratum.page)
            if erratum.anchor and known is not None and erratum.anchor not in known:
                yield error(
                    at(erratum.anchor, erratum),
                    "broken-link",
                    f"erratum points at anchor '{erratum.anchor}', which page '{erratum.page}' does not have",
                    did_you_mean(erratum.anchor, sorted(known)),
                )
