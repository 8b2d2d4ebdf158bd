"""Steps that run on the built site folder, whatever engine built it.

The MkDocs plugin calls `run` from `on_post_build`; `cadence build` calls it after any engine. A step
is a function `(site_dir, context) -> None` appended to `STEPS` (e.g. a service-worker writer, a
search-index step); it reads and writes only inside `site_dir` and raises `PostBuildError` for a
problem the user must fix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .pages import Generated, Loaded


class PostBuildError(Exception):
    """A post-build step could not finish; the message is one line for the user."""


class BuildContext:
    """What a step may need besides the site folder: the project root, the engine's name, and the
    project loaded and rendered (`loaded`, `generated`), which `cadence build` computes again only
    when a step asks for them (its staging ran in another process)."""

    def __init__(
        self,
        root: Path,
        engine: str,
        loaded: Loaded | None = None,
        generated: Generated | None = None,
        *,
        follow_outside_links: bool = False,
    ) -> None:
        self.root, self.engine, self.follow_outside_links = root, engine, follow_outside_links
        self._loaded, self._generated = loaded, generated

    def _load(self) -> tuple[Loaded, Generated]:
        if self._loaded is None or self._generated is None:
            from dataclasses import replace

            from .staging import StagingError, load_and_generate, read_config, read_options

            config = read_config(self.root)
            options = read_options(config)
            options = replace(options, follow_outside_links=options.follow_outside_links or self.follow_outside_links)
            try:
                self._loaded, self._generated = load_and_generate(self.root, options, str(config.get("docs_dir", "docs")))
            except StagingError as exc:
                raise PostBuildError(str(exc)) from exc
        return self._loaded, self._generated

    @property
    def loaded(self) -> Loaded:
        return self._load()[0]

    @property
    def generated(self) -> Generated:
        return self._load()[1]


PostBuildStep = Callable[[Path, BuildContext], None]


def add_search_entries(site_dir: Path, context: BuildContext) -> None:
    """Search entries of units, weapons, upgrades, rules and tables, merged into Material's index
    (MkDocs and ProperDocs; Zensical writes its own `search.json`, which this leaves alone)."""
    from .search_entries import install_ranking, merge_search_entries, search_entries

    if not (site_dir / "search" / "search_index.json").is_file():
        return
    project = context.loaded.project
    assert project is not None
    entries = search_entries(project, context.generated.site_map, context.loaded.content)
    merge_search_entries(site_dir, entries, project.system.spelling_variants)
    install_ranking(site_dir)


def add_service_worker(site_dir: Path, context: BuildContext) -> None:
    """The offline service worker, over every built file (so it is last: it hashes the finished site)."""
    from .offline import write_service_worker

    write_service_worker(site_dir)


#: The steps, in order: list a new step here, beside the others.
STEPS: list[PostBuildStep] = [add_search_entries, add_service_worker]


def run(site_dir: Path, context: BuildContext) -> None:
    """Run every step on the built site, in order."""
    for step in STEPS:
        step(site_dir, context)
