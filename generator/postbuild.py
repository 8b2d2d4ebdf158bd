"""Steps that run on the built site folder, whatever engine built it.

The MkDocs plugin calls `run` from `on_post_build`; `cadence build` calls it after any engine. A step
is a function `(site_dir, context) -> None` appended to `STEPS` (e.g. a service-worker writer, a
search-index step); it reads and writes only inside `site_dir` and raises `PostBuildError` for a
problem the user must fix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .pages import Generated, Loaded


class PostBuildError(Exception):
    """A post-build step could not finish; the message is one line for the user."""


@dataclass(frozen=True)
class BuildContext:
    """What a step may need besides the site folder: the project, its rendered pages, the engine's name."""

    root: Path
    loaded: Loaded
    generated: Generated
    engine: str


PostBuildStep = Callable[[Path, BuildContext], None]

#: The steps, in order: list a new step here, beside the others.
STEPS: list[PostBuildStep] = []


def run(site_dir: Path, context: BuildContext) -> None:
    """Run every step on the built site, in order."""
    for step in STEPS:
        step(site_dir, context)
