"""The MkDocs plugin: thin hooks that call the pipeline in `pages.py`, nothing else."""

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

from .config import RulesConfig
from .offline import write_service_worker
from .pages import Generated, Loaded, generate, load_project, navigation
from .problems import Severity
from .report import summary
from .search_entries import install_ranking, merge_search_entries, search_entries
from .serve_errors import error_pages, wait_until_stable

log = logging.getLogger("mkdocs.plugins.rules")

#: Set to "1" by `cadence build/serve --follow-outside-links` for the MkDocs it runs.
FOLLOW_OUTSIDE_LINKS = "CADENCE_FOLLOW_OUTSIDE_LINKS"

#: The generator's own stylesheet (compact rules tables), added to every site; a project may replace it.
STYLESHEET = "assets/stylesheets/rules.css"
#: The generator's page scripts (the reader's game for search, offline registration, rule pop-ups), added like
#: the stylesheet; pages work without them.
SCRIPTS = ("assets/javascripts/search.js", "assets/javascripts/offline.js", "assets/javascripts/rules.js")


class RulesPlugin(BasePlugin[RulesConfig]):
    """Loads, checks and renders the rules data into the MkDocs build."""

    def __init__(self) -> None:
        self.loaded: Loaded | None = None
        self.generated: Generated | None = None
        self.serving = False
        #: While serving with data errors: the error page at every page's path (see serve_errors.py).
        self.broken: dict[str, str] | None = None
        self.last_pages: set[str] = set()

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """`startup` event: remember whether we serve (its presence also keeps this object across rebuilds)."""
        self.serving = command == "serve"

    def _settle(self, root: Path, content_dir: str) -> None:
        """While serving, read nothing an editor is still writing."""
        if self.serving:
            wait_until_stable([root / self.config.data_dir, root / content_dir])

    def _show_errors_while_serving(self, loaded: Loaded) -> bool:
        """While serving, data errors become the error site (serve_errors.py) instead of stopping the server."""
        self.broken = None
        if not self.serving or not (loaded.errors or loaded.project is None):
            return False
        for problem in loaded.errors:
            log.error(str(problem))
        self.broken = error_pages(loaded.problems, [*loaded.content, *self.last_pages])
        return True

    def _root(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path).parent if config.config_file_path else Path.cwd()

    @event_priority(50)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """`config` event, early (50): load and check the data before anything else reads the nav.

        Errors stop the build with one line each; warnings are logged, so `--strict` fails on them.
        """
        if config.strict:
            _count_warnings_when_quiet()
        root = self._root(config)
        content_dir = Path(config.docs_dir).resolve().relative_to(root.resolve()).as_posix()
        outside = self.config.follow_outside_links or os.environ.get(FOLLOW_OUTSIDE_LINKS) == "1"
        self._settle(root, content_dir)
        loaded = load_project(root, self.config.data_dir, content_dir, allow_outside_links=outside)
        for problem in loaded.problems:
            if problem.severity is Severity.WARNING:
                log.warning(str(problem))
        if self._show_errors_while_serving(loaded):
            return config
        if loaded.errors or loaded.project is None:
            lines = [str(p) for p in loaded.errors]
            raise PluginError("\n".join([*lines, f"rules data: {summary(loaded.problems)}"]))
        templates = root / self.config.templates_dir
        self.loaded = loaded
        self.generated = generate(loaded.project, loaded.content, [str(templates)] if templates.is_dir() else [], loaded.resolved)
        self.last_pages = set(self.generated.pages)
        if self.config.nav and not config.nav:
            config.nav = navigation(loaded.project, loaded.content, self.generated.site_map.titles)
        if STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        for script in SCRIPTS:
            if script not in config.extra_javascript:
                config.extra_javascript.append(script)
        theme = str(resources.files("generator").joinpath("theme"))
        if theme not in config.theme.dirs:  # after the project's custom_dir, which may replace these templates
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, theme)
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """`files` event: add every generated page as a generated file (never over a hand-written one).

        While serving broken data, the site is the error page at every page's path, plus the theme's files.
        """
        if self.broken is not None:
            kept = [f for f in files if not f.is_documentation_page() and (f.abs_src_path is None or os.path.isfile(f.abs_src_path))]
            return Files([*kept, *(File.generated(config, f"{page}.md", content=text) for page, text in self.broken.items())])
        assert self.generated is not None
        for page, text in self.generated.pages.items():
            uri = f"{page}.md"
            existing = files.get_file_from_path(uri)
            if existing is not None:
                raise PluginError(f"{config.docs_dir}/{uri}: error[page-collision]: a hand-written page has the path of a generated page")
            files.append(File.generated(config, uri, content=text))
        for path, text in self.generated.files.items():
            if files.get_file_from_path(path) is not None:
                raise PluginError(f"{config.docs_dir}/{path}: error[page-collision]: a hand-written file has the path of a generated file")
            files.append(File.generated(config, path, content=text))
        if files.get_file_from_path(STYLESHEET) is None:
            css = resources.files("generator").joinpath("assets/rules.css").read_text(encoding="utf-8")
            files.append(File.generated(config, STYLESHEET, content=css))
        for script in SCRIPTS:
            if files.get_file_from_path(script) is None:
                js = resources.files("generator").joinpath("assets", script.rsplit("/", 1)[1]).read_text(encoding="utf-8")
                files.append(File.generated(config, script, content=js))
        return files

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """`page_markdown` event: expand directives and [[rule]] links in hand-written pages (checked in `on_config`).

        Pages that define special rules get a search boost, so that a rule's definition outranks the
        tables that merely use its name.
        """
        if self.broken is not None:
            return markdown
        assert self.generated is not None
        path = page.file.src_uri.removesuffix(".md")
        if path in self.generated.site_map.rule_pages.values():
            page.meta.setdefault("search", {}).setdefault("boost", self.config.definitions_boost)
        if page.file.generated_by is not None:
            return markdown
        return self.generated.expand(path, markdown)

    @event_priority(-100)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """`post_build` event, late (-100): after the search plugin has written its index.

        Adds the search entries of units, weapons, upgrades, rules and tables, then writes the
        service worker over every built file (so it is last: it hashes the finished site).
        """
        assert self.loaded is not None and self.loaded.project is not None and self.generated is not None
        site_dir = Path(config.site_dir)
        project = self.loaded.project
        entries = search_entries(project, self.generated.site_map, self.loaded.content)
        merge_search_entries(site_dir, entries, project.system.spelling_variants)
        install_ranking(site_dir)
        write_service_worker(site_dir)

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
