"""The MkDocs plugin: thin hooks over the staging functions `cadence build` uses (`staging.py`), nothing else."""

from __future__ import annotations

import logging
import os
from importlib import resources
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from . import postbuild
from .config import RulesConfig
from .pages import Generated, Loaded, navigation
from .problems import DataError, Location, Problem, Severity, error
from .project_config import CONFIG_FILE, read_folders
from .report import summary
from .serve_errors import error_pages, wait_until_stable
from .staging import (
    THEME_DIR,
    THEME_WORDS,
    Options,
    StagingError,
    asset_files,
    asset_links,
    load_and_generate,
    page_meta,
    theme_words,
    with_meta,
)

log = logging.getLogger("mkdocs.plugins.rules")


class RulesPlugin(BasePlugin[RulesConfig]):
    """Loads, checks and renders the rules data into the MkDocs build, through the staging functions
    `cadence build` uses, so a plain `mkdocs build` gives the same site."""

    def __init__(self) -> None:
        self.loaded: Loaded | None = None
        self.generated: Generated | None = None
        self.assets: dict[str, bytes] = {}
        self.serving = False
        #: While serving with data errors: the error page at every page's path (see serve_errors.py).
        self.broken: dict[str, str] | None = None
        self.last_pages: set[str] = set()

    def _root(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path).parent if config.config_file_path else Path.cwd()

    def _options(self) -> Options:
        return Options(
            data_dir=self.config.data_dir,
            templates_dir=self.config.templates_dir,
            nav=self.config.nav,
            definitions_boost=self.config.definitions_boost,
            follow_outside_links=self.config.follow_outside_links,
        )

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """`startup` event: remember whether we serve (its presence also keeps this object across rebuilds)."""
        self.serving = command == "serve"

    @event_priority(50)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """`config` event, early (50): load and check the data before anything else reads the nav.

        Errors stop the build with one line each (while serving they become the error site instead);
        warnings are logged, so `--strict` fails on them. Every file of `generator/assets/` is listed
        in extra_css or extra_javascript, and the generator's theme templates sit under the project's.
        """
        if config.strict:
            _count_warnings_when_quiet()
        root = self._root(config)
        content_dir = self._content_dir(root, config)
        if self.serving:  # read nothing an editor is still writing
            wait_until_stable([root / self.config.data_dir, root / content_dir])
        self.broken = None
        try:
            loaded, generated = load_and_generate(root, self._options(), content_dir)
        except StagingError as exc:
            self._stop_or_show(exc)
            return config
        for problem in loaded.problems:
            if problem.severity is Severity.WARNING:
                log.warning(str(problem))
        assert loaded.project is not None
        self.loaded, self.generated = loaded, generated
        self.last_pages = set(generated.pages)
        if self.config.nav and not config.nav:
            config.nav = navigation(loaded.project, loaded.content, generated.site_map.titles)
        self.assets = asset_files()
        css, js = asset_links(sorted(self.assets))
        config.extra_css.extend(c for c in css if c not in config.extra_css)
        config.extra_javascript.extend(j for j in js if j not in config.extra_javascript)
        config.extra[THEME_WORDS] = theme_words(loaded.project.system.labels)
        theme = str(resources.files("generator").joinpath(THEME_DIR))
        if theme not in config.theme.dirs:  # after the project's custom_dir, which may replace these templates
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, theme)
        return config

    def _content_dir(self, root: Path, config: MkDocsConfig) -> str:
        """The content folder relative to the project, once `read_folders` has found the data and content
        folders inside it (as `cadence check` does): one located line each, never a traceback."""
        try:
            read_folders(root, follow_outside_links=self.config.follow_outside_links)
        except DataError as exc:
            raise PluginError("\n".join(str(problem) for problem in exc.problems)) from exc
        content_dir = os.path.relpath(config.docs_dir, root)  # through a followed link, not resolving it
        if content_dir == os.pardir or content_dir.startswith(os.pardir + os.sep):  # set where read_folders does not look (INHERIT)
            message = f"the content folder '{config.docs_dir}' is outside the project"
            raise PluginError(
                str(error(Location(CONFIG_FILE, 1, 1), "outside-path", message, f"keep it inside the folder of {CONFIG_FILE}"))
            )
        return Path(content_dir).as_posix()

    def _stop_or_show(self, exc: StagingError) -> None:
        """Data errors stop a build; while serving they become a site whose every page shows them."""
        problems: list[Problem] = exc.problems
        if not self.serving:
            errors = [str(p) for p in problems if p.severity is Severity.ERROR]
            raise PluginError("\n".join([*errors, f"rules data: {summary(problems, checked=exc.checked)}"])) from exc
        for problem in problems:
            if problem.severity is Severity.ERROR:
                log.error(str(problem))
        content = exc.loaded.content if exc.loaded is not None else {}
        self.broken = error_pages(problems, [*content, *self.last_pages], checked=exc.checked)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """`files` event: add every generated page, published file and asset as a generated file (never
        over a hand-written one). While serving broken data, the site is the error page at every page's path."""
        if self.broken is not None:
            kept = [f for f in files if not f.is_documentation_page() and (f.abs_src_path is None or os.path.isfile(f.abs_src_path))]
            return Files([*kept, *(File.generated(config, f"{page}.md", content=text) for page, text in self.broken.items())])
        assert self.generated is not None
        for page, text in self.generated.pages.items():
            uri = f"{page}.md"
            if files.get_file_from_path(uri) is not None:
                raise PluginError(f"{config.docs_dir}/{uri}: error[page-collision]: a hand-written page has the path of a generated page")
            files.append(File.generated(config, uri, content=with_meta(text, page_meta(self.generated, page, self._options()))))
        for path, text in self.generated.files.items():
            if files.get_file_from_path(path) is not None:
                raise PluginError(f"{config.docs_dir}/{path}: error[page-collision]: a hand-written file has the path of a generated file")
            files.append(File.generated(config, path, content=text))
        for uri, data in self.assets.items():
            if files.get_file_from_path(uri) is None:  # a project's own file at the same path replaces ours
                files.append(File.generated(config, uri, content=data))
        return files

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """`page_markdown` event: expand directives and [[rule]] links in hand-written pages, and give
        them the generator's page metadata (the search boost of rule definitions)."""
        if self.broken is not None:
            return markdown
        assert self.generated is not None
        if page.file.generated_by is not None:
            return markdown
        path = page.file.src_uri.removesuffix(".md")
        for key, value in page_meta(self.generated, path, self._options()).items():
            if isinstance(value, dict) and isinstance(page.meta.get(key), dict):
                page.meta[key] = {**value, **page.meta[key]}
            else:
                page.meta.setdefault(key, value)
        return self.generated.expand(path, markdown)

    @event_priority(-100)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """`post_build` event, late (-100): after the search plugin has written its index, the
        post-build steps `cadence build` runs after any engine (search entries, service worker)."""
        if self.broken is not None:
            return
        assert self.loaded is not None and self.generated is not None
        try:
            postbuild.run(
                Path(config.site_dir),
                postbuild.BuildContext(self._root(config), "mkdocs", self.loaded, self.generated, serving=self.serving),
            )
        except postbuild.PostBuildError as exc:
            raise PluginError(str(exc)) from exc

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Any) -> LiveReloadServer:
        """`serve` event: rebuild when a data file or a template override changes."""
        root = self._root(config)
        for folder in (self.config.data_dir, self.config.templates_dir):
            if (root / folder).is_dir():
                server.watch(str(root / folder))
        return server


def _count_warnings_when_quiet() -> None:
    """Make `--strict` count warnings under `--quiet` too.

    `-q` raises the `mkdocs` logger to ERROR, so warnings never reach the handler that `--strict`
    counts, and a strict, quiet build passes with warnings. Under `--strict` a warning fails the build,
    so it is shown like an error: the logger goes back to WARNING (information stays hidden).
    """
    logger = logging.getLogger("mkdocs")
    if logger.getEffectiveLevel() > logging.WARNING:
        logger.setLevel(logging.WARNING)
