"""Steps that run on the built site folder, whatever engine built it.

The MkDocs plugin calls `run` from `on_post_build`; `cadence build` calls it after any engine. A step
is a function `(site_dir, context) -> None` appended to `STEPS` (e.g. a service-worker writer, a
search-index step); it reads and writes only inside `site_dir` and raises `PostBuildError` for a
problem the user must fix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: `cadence build` runs the steps without loading the project
    from .pages import Generated, Loaded
    from .search_index import SearchData


class PostBuildError(Exception):
    """A post-build step could not finish; the message is one line for the user."""


class BuildContext:
    """What a step may need besides the site folder: the project root, the engine's name, the search
    entries, and the project loaded and rendered (`loaded`, `generated`).

    The plugin passes what it loaded. `cadence build` staged in another process, which left the search
    entries in `search_file` (see `SearchData`): a step that needs only those never loads the project
    again; `loaded` and `generated` are computed again only when a step asks for them.
    """

    def __init__(
        self,
        root: Path,
        engine: str,
        loaded: Loaded | None = None,
        generated: Generated | None = None,
        *,
        follow_outside_links: bool = False,
        search_file: Path | None = None,
        serving: bool = False,
    ) -> None:
        self.root, self.engine, self.follow_outside_links = root, engine, follow_outside_links
        #: A preview the engine serves (`mkdocs serve`): its live reload is an inline script, so the
        #: Content-Security-Policy stays off (`secure_pages`).
        self.serving = serving
        self._loaded, self._generated = loaded, generated
        self._search_file = search_file

    def _load(self) -> tuple[Loaded, Generated]:
        if self._loaded is None or self._generated is None:
            from dataclasses import replace

            from .project_config import content_folder
            from .staging import StagingError, load_and_generate, read_config, read_options

            config = read_config(self.root)
            options = read_options(config)
            options = replace(options, follow_outside_links=options.follow_outside_links or self.follow_outside_links)
            try:
                self._loaded, self._generated = load_and_generate(self.root, options, content_folder(config))
            except StagingError as exc:
                raise PostBuildError(str(exc)) from exc
        return self._loaded, self._generated

    @property
    def loaded(self) -> Loaded:
        return self._load()[0]

    @property
    def generated(self) -> Generated:
        return self._load()[1]

    def search(self) -> SearchData:
        """The site's own search entries: from the staging process's file when there is one."""
        from .search_index import SearchData

        if self._search_file is not None and self._loaded is None:
            try:
                return SearchData.read(self._search_file)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise PostBuildError(f"{self._search_file}: cannot read the staged search entries ({exc})") from exc
        from .search_entries import search_data

        loaded, generated = self._load()
        assert loaded.project is not None
        return search_data(loaded.project, generated.site_map, loaded.content)


PostBuildStep = Callable[[Path, BuildContext], None]


def add_search_entries(site_dir: Path, context: BuildContext) -> None:
    """Search entries of units, weapons, upgrades, rules and tables, merged into Material's index (MkDocs
    and ProperDocs) or into Zensical's `search.json` (the entries it lacks), and the site's ranking put
    into the engine's search worker."""
    from .search_index import INDEX, ZENSICAL_INDEX

    if (site_dir / INDEX).is_file() or (site_dir / ZENSICAL_INDEX).is_file():
        merge_search(site_dir, context.search())


def merge_search(site_dir: Path, search: SearchData) -> None:
    """`add_search_entries` with the entries at hand (`cadence serve` after each of the engine's builds)."""
    from .search_index import INDEX, ZENSICAL_INDEX, install_ranking, merge_search_entries, merge_zensical_entries

    material, zensical = (site_dir / INDEX).is_file(), (site_dir / ZENSICAL_INDEX).is_file()
    if material:
        merge_search_entries(site_dir, list(search.entries), search.spelling_variants)
    if zensical:
        merge_zensical_entries(site_dir, list(search.entries), search.spelling_variants)
    install_ranking(site_dir)


def secure_pages(site_dir: Path, context: BuildContext) -> None:
    """Every built page made safe as a browser reads it (`final_html`): a hand-written page's article through
    the allow-list sanitiser, no page with an event handler or a URL of a scheme that runs, and the theme's
    Content-Security-Policy switched on (but while serving)."""
    from .final_html import clean_content_page, content_page_files, strip_unsafe_urls, with_policy

    content = set(content_page_files(context.root, site_dir))
    for path in sorted(site_dir.rglob("*.html")):
        try:
            page = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PostBuildError(f"{path}: cannot read the built page ({exc})") from exc
        secured, _ = strip_unsafe_urls(clean_content_page(page) if path in content else page)
        secured = secured if context.serving else with_policy(secured)
        if secured != page:
            path.write_text(secured, encoding="utf-8")


def add_service_worker(site_dir: Path, context: BuildContext) -> None:
    """The offline service worker, over every built file (so it is last: it hashes the finished site)."""
    from .offline import write_service_worker

    write_service_worker(site_dir)


#: The steps, in order: list a new step here, beside the others.
STEPS: list[PostBuildStep] = [add_search_entries, secure_pages, add_service_worker]


def run(site_dir: Path, context: BuildContext) -> None:
    """Run every step on the built site, in order."""
    for step in STEPS:
        step(site_dir, context)
