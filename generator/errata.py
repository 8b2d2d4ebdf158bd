"""Put back what the sources printed, from the errata, in a scratch copy of the project.

`cadence check --as-published` checks that copy: every erratum that corrects a mistake must then
show up as a problem, which proves the checker catches the sources' real mistakes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .catalogue import assemble
from .loader import load_directory, resolved


def apply_as_published(
    root: Path, scratch: Path, data_dir: str, content_dir: str, only: tuple[str, int] | None = None
) -> tuple[Path, list[str]]:
    """Copy data and content to `scratch` and apply every erratum's patch; returns the copy and notes.

    `only` = (module id, index in its errata) applies that one erratum alone.
    """
    copy = scratch / "project"
    for folder in (data_dir, content_dir):
        shutil.copytree(root / folder, copy / folder)
    documents, _ = load_directory(root, data_dir)
    project, _ = assemble(documents, data_dir)
    notes: list[str] = []
    if project is None:
        return copy, ["as-published: the data could not be loaded, so no errata were applied"]
    base = (copy / data_dir).resolve()
    applied = 0
    for module in project.modules.values():
        for index, erratum in enumerate(module.errata):
            patch = erratum.as_published
            if patch is None or (only is not None and only != (module.id, index)):
                continue
            target = resolved(base / patch.file)
            if target is None or copy.resolve() not in target.parents or not target.is_file():
                notes.append(f"as-published: skipped an erratum of {module.id}: {patch.file} is not a project file")
                continue
            text = target.read_text(encoding="utf-8")
            if text.count(patch.find) != 1:
                notes.append(f"as-published: skipped an erratum of {module.id}: its text is not found exactly once in {patch.file}")
                continue
            target.write_text(text.replace(patch.find, patch.replace), encoding="utf-8")
            applied += 1
    notes.append(f"as-published: applied {applied} errata")
    return copy, notes
