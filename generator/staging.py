"""The staging build: the whole site as plain files, so any engine builds it without our plugin.

MkDocs 2 drops plugins and Zensical ignores them, so the generator's work happens here, once, before
an engine runs: `stage` writes a docs folder (generated pages, expanded content pages, the content
folder's other files, the generator's assets) and an engine config (the project's mkdocs.yml with the
docs and site folders pointed at the staging tree, the navigation filled in, or for Zensical written
to `docs/.nav.yml`, and the `rules` plugin entry removed). The MkDocs plugin is a thin shell over the
same functions (`page_meta`, `asset_files`, `asset_links`, `site_pages`).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from . import cache as cache_memo
from .problems import Location, Problem, error, unreadable_project
from .project_config import content_folder, load_config
from .untrusted import SAFE_LOADER

if TYPE_CHECKING:  # the rest of the pipeline is imported where it runs: a build of an unchanged project needs none of it
    from .incremental import PageCache
    from .model import Labels
    from .pages import Generated, Loaded

CONFIG_NAME = "mkdocs.yml"
#: Set to "1" by `cadence check/build/serve --follow-outside-links`, for the processes they start.
FOLLOW_OUTSIDE_LINKS = "CADENCE_FOLLOW_OUTSIDE_LINKS"
#: The generator's theme templates (game switcher, contents), staged under the project's own overrides.
THEME_DIR = "theme"
PLUGIN_NAME = "rules"
#: Where the files of `generator/assets/` land in the docs tree (a project's own file there wins).
ASSETS_PREFIX = "assets/rules"
#: Where staging puts the navigation for an engine that reads it from the docs folder (Zensical, through its
#: built-in awesome-nav): in the config, any change to it (a module's title, say) makes Zensical render every
#: page again from its Markdown; in the docs folder, only each page's navigation. No engine publishes it.
NAV_FILE = ".nav.yml"
NAV_PLUGIN = "awesome-nav"
#: The site's search entries, beside the staged config, for the step that merges them into the engine's index
#: (`postbuild.add_search_entries` after `cadence build`, `serve_hook.py` or `serve_search.py` while serving).
SEARCH_FILE = "search-entries.json"


@dataclass(frozen=True)
class Options:
    """The rules plugin's options as written in mkdocs.yml; `config.RulesConfig` documents each."""

    data_dir: str = "data"
    templates_dir: str = "overrides/templates"
    nav: bool = True
    definitions_boost: float = 2.0
    follow_outside_links: bool = False


class StagingError(Exception):
    """The project cannot be staged; carries every located problem found (at least one error)."""

    def __init__(self, problems: list[Problem], loaded: Loaded | None = None) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems
        self.loaded = loaded

    @property
    def checked(self) -> bool:
        """Whether the checks across files ran (`Loaded.checked`)."""
        return self.loaded is not None and self.loaded.checked


# --- the project's engine config, read and written back with its tags ------------------------


class Tagged:
    """A value under a YAML tag the engine resolves itself (`!ENV`, `!!python/name:`): written back as is."""

    def __init__(self, tag: str, node: yaml.Node, value: Any) -> None:
        self.tag, self.node_type, self.value = tag, type(node), value


class _ConfigLoader(yaml.SafeLoader):
    pass


# libyaml's emitter where PyYAML has it: a tenth of the time for a 10x site's navigation, the same text
class _ConfigDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


def _construct_tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Tagged:
    if isinstance(node, yaml.ScalarNode):
        return Tagged(node.tag, node, loader.construct_scalar(node))
    if isinstance(node, yaml.SequenceNode):
        return Tagged(node.tag, node, loader.construct_sequence(node, deep=True))
    return Tagged(node.tag, node, loader.construct_mapping(node, deep=True))  # type: ignore[arg-type]


def _represent_tagged(dumper: yaml.SafeDumper, data: Tagged) -> yaml.Node:
    if data.node_type is yaml.ScalarNode:
        return dumper.represent_scalar(data.tag, data.value)
    if data.node_type is yaml.SequenceNode:
        return dumper.represent_sequence(data.tag, data.value)
    return dumper.represent_mapping(data.tag, data.value)


_ConfigLoader.add_multi_constructor("", _construct_tagged)
_ConfigDumper.add_representer(Tagged, _represent_tagged)


def read_config(root: Path) -> dict[str, Any]:
    """The project's mkdocs.yml as data."""
    return dict(load_config(root, _ConfigLoader))  # a SafeLoader subclass; DataError for a file that is not one


def _plain(value: Any) -> Any:
    """Plain dicts, lists and strings (titles from data are located `str` subclasses)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Tagged):
        value.value = _plain(value.value)
        return value
    if isinstance(value, str):
        return str(value)
    return value


def dump_config(config: dict[str, Any]) -> str:
    return yaml.dump(_plain(config), Dumper=_ConfigDumper, sort_keys=False, allow_unicode=True, width=1000)


def plugin_name(entry: Any) -> str:
    return str(next(iter(entry))) if isinstance(entry, dict) and entry else str(entry)


def read_options(config: dict[str, Any]) -> Options:
    """The `rules` plugin entry's options (defaults for what it leaves out)."""
    for entry in config.get("plugins") or []:
        if isinstance(entry, dict) and PLUGIN_NAME in entry:
            given = entry[PLUGIN_NAME] or {}
            defaults = Options()
            return Options(
                data_dir=str(given.get("data_dir", defaults.data_dir)),
                templates_dir=str(given.get("templates_dir", defaults.templates_dir)),
                nav=bool(given.get("nav", defaults.nav)),
                definitions_boost=float(given.get("definitions_boost", defaults.definitions_boost)),
                follow_outside_links=bool(given.get("follow_outside_links", defaults.follow_outside_links)),
            )
    return Options()


# --- what the generator adds to a site, shared with the plugin --------------------------------


def _walk(folder: Traversable, prefix: PurePosixPath) -> list[tuple[str, Traversable]]:
    found: list[tuple[str, Traversable]] = []
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        if item.name.startswith((".", "__")):
            continue
        if item.is_dir():
            found.extend(_walk(item, prefix / item.name))
        else:
            found.append(((prefix / item.name).as_posix(), item))
    return found


def asset_files() -> dict[str, bytes]:
    """Every file of `generator/assets/`, by its path in the docs tree (`assets/rules/...`)."""
    return {path: item.read_bytes() for path, item in _walk(resources.files("generator").joinpath("assets"), PurePosixPath(ASSETS_PREFIX))}


#: Assets that are not on every page: a post-build step puts `search_rank.js` into Material's search
#: worker, and the army builder's page links its own script and stylesheet.
OWN_PLACE_ASSETS = ("search_rank.js", "builder.js", "builder.css")


def asset_links(paths: list[str]) -> tuple[list[str], list[str]]:
    """The stylesheets and scripts among asset paths: what goes into extra_css and extra_javascript."""
    shared = [p for p in paths if PurePosixPath(p).name not in OWN_PLACE_ASSETS]
    return [p for p in shared if p.endswith(".css")], [p for p in shared if p.endswith((".js", ".mjs"))]


def page_meta(generated: Generated, page: str, options: Options) -> dict[str, Any]:
    """Page metadata the generator adds: pages that define special rules get a search boost, so that a
    rule's definition outranks the tables that merely use its name."""
    if page in generated.site_map.rule_pages.values():
        return {"search": {"boost": options.definitions_boost}}
    return {}


#: libyaml's emitter where PyYAML has it, as for the engine config: a page's front matter is written the
#: same, several times faster (and read with libyaml's loader, `SAFE_LOADER`).
_FrontDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def with_meta(text: str, meta: dict[str, Any]) -> str:
    """`text` with `meta` merged into its YAML front matter (what the page already sets wins)."""
    if not meta:
        return text
    front: dict[str, Any] = {}
    body = text
    match = _FRONT_MATTER.match(text)
    if match:
        loaded = yaml.load(match[1], Loader=SAFE_LOADER)
        front = dict(loaded) if isinstance(loaded, dict) else {}
        body = text[match.end() :]
    for key, value in meta.items():
        if isinstance(value, dict) and isinstance(front.get(key), dict):
            front[key] = {**value, **front[key]}
        else:
            front.setdefault(key, value)
    return (
        "---\n"
        + yaml.dump(_plain(front), Dumper=_FrontDumper, sort_keys=False, allow_unicode=True).rstrip()
        + "\n---\n"
        + ("" if match else "\n")
        + body
    )


def site_pages(loaded: Loaded, generated: Generated, options: Options, content_dir: str) -> dict[str, str]:
    """Every Markdown page of the site by its docs path: generated pages and expanded content pages.

    A generated page never replaces a hand-written one (`page-collision`, also reported by the check).
    """
    problems: list[Problem] = []
    pages: dict[str, str] = {}
    for page, text in generated.pages.items():
        if page in loaded.content:
            location = Location(f"{content_dir}/{page}.md", 1, 1)
            problems.append(error(location, "page-collision", "a hand-written page has the path of a generated page"))
            continue
        pages[f"{page}.md"] = with_meta(text, page_meta(generated, page, options))
    for page, text in loaded.content.items():
        pages[f"{page}.md"] = with_meta(generated.expand(page, text), page_meta(generated, page, options))
    if problems:
        raise StagingError(problems)
    return pages


# --- the staging tree -------------------------------------------------------------------------


@dataclass
class Staged:
    """A staged site: the docs folder, the engine config beside it, and what was written."""

    config_file: Path
    docs_dir: Path
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    loaded: Loaded | None = None
    generated: Generated | None = None


def _inside(base: Path, relative: str) -> Path:
    """`base/relative`, refusing any path that would leave `base`."""
    return Path(_inside_resolved(str(base.resolve()), relative))


def _inside_resolved(base: str, relative: str) -> str:
    """`_inside` for a `base` already resolved: the staging tree is ours, so no link inside it leads out,
    and only `..` or an absolute path in `relative` could leave it."""
    target = os.path.normpath(os.path.join(base, relative))
    if not target.startswith(base + os.sep):
        raise StagingError([error(Location(relative, 0, 0), "unsafe-path", "a page path leaves the site folder")])
    return target


def _unchanged(target: str, data: bytes) -> bool:
    try:
        if os.stat(target).st_size != len(data):
            return False
        with open(target, "rb") as handle:
            return handle.read() == data
    except OSError:
        return False


def write_tree(docs: Path, files: dict[str, bytes]) -> tuple[list[str], list[str]]:
    """Make `docs` hold exactly `files`, touching only what changed, so an engine watching it rebuilds little.

    Each file is replaced atomically (written beside, then renamed): a watcher never reads half a page.
    """
    docs.mkdir(parents=True, exist_ok=True)
    base = str(docs.resolve())
    written: list[str] = []
    made: set[str] = set()
    for relative, data in files.items():
        target = _inside_resolved(base, relative)
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        if _replace(target, data):
            written.append(relative)
    return written, _remove_others(base, files)


def _replace(target: str, data: bytes) -> bool:
    """Write `data` to `target` unless it already holds it, atomically (beside, then renamed); True if written."""
    if _unchanged(target, data):
        return False
    temporary = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
    except OSError as exc:  # a full disk, say: no half-written file left, and the error names the file
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OSError(exc.errno, exc.strerror, target) from None
    os.replace(temporary, target)
    return True


def _remove_others(base: str, files: dict[str, bytes]) -> list[str]:
    """Remove every file under `base` that is not in `files`, then the folders left empty."""
    removed: list[str] = []
    for folder, _dirs, names in sorted(os.walk(base), reverse=True):
        for name in names:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, base).replace(os.sep, "/")
            if relative not in files:
                os.unlink(path)
                removed.append(relative)
        if folder != base and not os.listdir(folder):
            os.rmdir(folder)
    return sorted(removed, reverse=True)


def _content_files(root: Path, content_dir: str) -> dict[str, bytes]:
    """The content folder's files other than Markdown pages (images, downloads, a project's own CSS)."""
    base = root / content_dir
    return {
        path.relative_to(base).as_posix(): path.read_bytes()
        for path in sorted(base.rglob("*"))
        if path.is_file() and not path.is_symlink() and path.suffix != ".md"
    }


def _absolute(root: Path, value: Any) -> Any:
    return str((root / value).resolve()) if isinstance(value, str) else value


def _absolute_paths(staged: dict[str, Any], root: Path) -> None:
    """Paths relative to the project's mkdocs.yml, which the staged config leaves: made absolute."""
    theme = staged.get("theme")
    if isinstance(theme, dict) and theme.get("custom_dir"):
        staged["theme"] = {**theme, "custom_dir": _absolute(root, theme["custom_dir"])}
    for key in ("hooks", "watch"):
        if isinstance(staged.get(key), list):
            staged[key] = [_absolute(root, h) for h in staged[key]]
    if "INHERIT" in staged:
        staged["INHERIT"] = _absolute(root, staged["INHERIT"])


def _extend(values: Any, more: list[str]) -> list[Any]:
    """`values` (a config list, maybe absent) with the items of `more` it lacks, in order."""
    have: list[Any] = list(values or [])
    return have + [m for m in more if m not in have]


def nav_in_docs(config: dict[str, Any], nav: list[object] | None, wanted: bool) -> bool:
    """Whether staging writes our navigation to `NAV_FILE` instead of the config: only where the engine reads
    it there (`wanted`) and the project neither has its own `nav` nor runs awesome-nav itself."""
    plugins = {plugin_name(p) for p in config.get("plugins") or []}
    return wanted and nav is not None and not config.get("nav") and NAV_PLUGIN not in plugins


def nav_file_text(nav: list[object]) -> str:
    """`NAV_FILE` holding `nav`, as the config would. A bare entry there reads as a glob only where no file
    has its very name, and each of ours names a staged page (tests/test_engines.py builds `notes[1]*{x}.md`)."""
    return dump_config({"nav": nav})


#: Under the engine config's `extra`: the words our theme's own templates show (404.html), from the system's labels.
THEME_WORDS = "rules_words"


def theme_words(labels: Labels) -> dict[str, str]:
    """The labels our theme templates show: a template reads only the engine's config, never the project."""
    return {"not_found": labels.not_found, "not_found_text": labels.not_found_text}


def engine_config(
    config: dict[str, Any],
    root: Path,
    config_dir: Path,
    docs_dir: Path,
    site_dir: Path,
    nav: list[object] | None,
    assets: list[str],
    nav_file: bool = False,
    hooks: Sequence[str] = (),
) -> dict[str, Any]:
    """The project's config for an engine that runs no plugin of ours: our folders, our nav (or, with
    `nav_file`, the plugin that reads it from `NAV_FILE`), no `rules`; `hooks` after the project's own."""
    staged = dict(config)
    # Relative to the config file: Zensical 0.0.73 rejects absolute folders.
    staged["docs_dir"] = os.path.relpath(docs_dir, config_dir)
    staged["site_dir"] = os.path.relpath(site_dir, config_dir)
    plugins = [p for p in staged.get("plugins") or [] if plugin_name(p) != PLUGIN_NAME]
    staged["plugins"] = [*(plugins or ["search"]), *([NAV_PLUGIN] if nav_file else [])]
    if nav is not None and not staged.get("nav") and not nav_file:
        staged["nav"] = nav
    _absolute_paths(staged, root)
    css, js = asset_links(assets)
    staged["extra_css"] = _extend(staged.get("extra_css"), css)
    staged["extra_javascript"] = _extend(staged.get("extra_javascript"), js)
    if hooks:
        staged["hooks"] = _extend(staged.get("hooks"), list(hooks))
    return staged


def load_and_generate(root: Path, options: Options, content_dir: str, cache: PageCache | None = None) -> tuple[Loaded, Generated]:
    """Load, check and render a project; raises `StagingError` on any error in its data or content.

    With a `cache` (while serving) pages whose inputs are unchanged since the last staging are reused;
    it keeps this staging's pages only if the files read the same after loading as before.
    """
    from .cache import read_digests
    from .loader import collector_paused
    from .pages import generate, load_project

    outside = _follows_outside_links(options)
    templates = root / options.templates_dir
    watched = [templates, Path(str(resources.files("generator").joinpath("templates")))]
    if cache is not None:
        cache.begin(read_digests(root, options.data_dir, watched), options.data_dir)
    with collector_paused():  # rendering too allocates only what lives on until the site is written
        checked = cache_memo.checks_memo(root, outside) if cache_memo.enabled() else None  # from `cadence check`, say
        loaded = load_project(root, options.data_dir, content_dir, allow_outside_links=outside, checked=checked)
        if loaded.errors or loaded.project is None:
            raise StagingError(loaded.problems, loaded)
        generated = generate(loaded.project, loaded.content, [str(templates)] if templates.is_dir() else [], loaded.resolved, cache)
    if cache is not None:
        cache.end(read_digests(root, options.data_dir, watched))
    return loaded, generated


def stage(
    root: Path,
    target: Path,
    site_dir: Path,
    cache: PageCache | None = None,
    config: dict[str, Any] | None = None,
    nav_file: bool = False,
    hooks: Sequence[str] = (),
) -> Staged:
    """Write the whole site into `target/docs` and its engine config to `target/mkdocs.yml`.

    Warnings in the data are returned on `Staged.loaded`; errors raise `StagingError`. `cache` keeps
    rendered pages for the next staging (`cadence serve`). `config`: the project's mkdocs.yml, if the
    caller has read it (`read_config`). `nav_file`: the engine reads the navigation from `NAV_FILE`.
    `hooks`: MkDocs hook files the staged config adds (`cadence serve`'s `serve_hook.py`).

    The cycle collector stays paused throughout: loading, rendering and writing allocate millions of
    objects that live on until the site is written, and its passes over them (resumed after loading,
    the first ones walk every object loading made) found nothing, a sixth of staging's time at 10x.
    """
    from .loader import collector_paused

    with collector_paused():
        return _stage(root, target, site_dir, cache, read_config(root) if config is None else config, nav_file, hooks)


def _stage(
    root: Path, target: Path, site_dir: Path, cache: PageCache | None, config: dict[str, Any], nav_file: bool, hooks: Sequence[str] = ()
) -> Staged:
    from .pages import navigation

    options = read_options(config)
    content_dir = content_folder(config)
    loaded, generated = load_and_generate(root, options, content_dir, cache)
    assert loaded.project is not None
    files: dict[str, bytes] = {path: text.encode("utf-8") for path, text in site_pages(loaded, generated, options, content_dir).items()}
    assets = asset_files()
    for path, data in _content_files(root, content_dir).items():
        files[path] = data
    for path, data in assets.items():
        files.setdefault(path, data)  # a project's own file at the same path replaces ours
    files.update(generated_files(generated, files, content_dir))
    nav = navigation(loaded.project, loaded.content, generated.site_map.titles) if options.nav else None
    in_docs = nav_in_docs(config, nav, nav_file)
    if in_docs and nav is not None:
        files[NAV_FILE] = nav_file_text(nav).encode("utf-8")  # over a content folder's own, which no engine publishes
    staged_config = engine_config(
        config, root, target.resolve(), (target / "docs").resolve(), site_dir.resolve(), nav, sorted(assets), nav_file=in_docs, hooks=hooks
    )
    staged_config["theme"] = {**(staged_config.get("theme") or {}), "custom_dir": THEME_DIR}
    staged_config["extra"] = {**(staged_config.get("extra") or {}), THEME_WORDS: theme_words(loaded.project.system.labels)}
    staged = {CONFIG_NAME: dump_config(staged_config).encode("utf-8")}
    staged.update({f"{THEME_DIR}/{path}": data for path, data in theme_files(root, config).items()})
    staged.update({f"docs/{path}": data for path, data in files.items()})
    written, removed = write_staged(target, staged)
    return Staged(target / CONFIG_NAME, target / "docs", written, removed, loaded, generated)


def write_staged(target: Path, files: dict[str, bytes]) -> tuple[list[str], list[str]]:
    """Write a staging (its files by path under `target`: the config, `theme/…`, `docs/…`) into `target`;
    returns the docs files written and removed.

    The config first: a serving engine that sees it change reloads and rebuilds every page once, with the
    pages written just after; pages first, it would rebuild them under the old navigation, then all again.
    """
    target.mkdir(parents=True, exist_ok=True)
    _replace(str(target / CONFIG_NAME), files[CONFIG_NAME])
    trees: dict[str, dict[str, bytes]] = {THEME_DIR: {}, "docs": {}}
    for path, data in files.items():
        folder, _, rest = path.partition("/")
        if rest:
            trees[folder][rest] = data
    write_tree(target / THEME_DIR, trees[THEME_DIR])
    return write_tree(target / "docs", trees["docs"])


def generated_files(generated: Generated, files: dict[str, bytes], content_dir: str) -> dict[str, bytes]:
    """Files the generator publishes beside its pages (the open data, the export schema); never over a
    hand-written file (`page-collision`)."""
    taken = [path for path in generated.files if path in files]
    if taken:
        raise StagingError(
            [
                error(Location(f"{content_dir}/{p}", 1, 1), "page-collision", "a hand-written file has the path of a generated file")
                for p in taken
            ]
        )
    return {path: text.encode("utf-8") for path, text in generated.files.items()}


def _custom_dir(config: dict[str, Any]) -> str | None:
    """The project's theme overrides folder (`theme.custom_dir`), if it names one."""
    theme = config.get("theme")
    custom = theme.get("custom_dir") if isinstance(theme, dict) else None
    return custom if isinstance(custom, str) else None


def _follows_outside_links(options: Options) -> bool:
    """Whether links out of the project are followed: the plugin option, or `--follow-outside-links`."""
    return options.follow_outside_links or os.environ.get(FOLLOW_OUTSIDE_LINKS) == "1"


def theme_files(root: Path, config: dict[str, Any]) -> dict[str, bytes]:
    """The generator's theme templates, then the project's custom_dir over them (the project's win)."""
    files = dict(_walk_files(resources.files("generator").joinpath(THEME_DIR)))
    custom = _custom_dir(config)
    if custom is not None and (root / custom).is_dir():
        base = root / custom
        files.update(
            {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file() and not p.is_symlink()}
        )
    # Notes about the overrides are not part of the theme: Zensical would publish them as site files.
    return {path: data for path, data in files.items() if not path.endswith(".md")}


def _walk_files(folder: Traversable) -> list[tuple[str, bytes]]:
    return [(path, item.read_bytes()) for path, item in _walk(folder, PurePosixPath("."))]


def show_problems(target: Path, problems: list[Problem], *, checked: bool = True) -> None:
    """While serving: every staged page becomes the page of located problems, so the open browser tab
    shows them after the engine reloads; the next good staging writes the pages back."""
    from .serve_errors import error_pages

    docs = target / "docs"
    pages = [p.relative_to(docs).with_suffix("").as_posix() for p in docs.rglob("*.md")]
    for page, text in error_pages(problems, pages, checked=checked).items():
        (_inside(docs, f"{page}.md")).write_text(text, encoding="utf-8")


def remove(target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.staging ROOT TARGET [--strict]`: stage in a process of its own.

    `cadence build` runs this before the engine, so the generator's memory is returned to the system
    before the engine starts: the two never hold their peaks at once. With --search-entries it also
    writes the site's search entries there for the post-build step, which then never loads the project
    again. Problems go to stderr, one line each; exit 1 on an error (or a warning with --strict),
    2 when the project cannot be read at all (a folder missing).
    A project unchanged since its last staging (`cache.staged_memo`) gets that staging written out again.
    """
    parser = argparse.ArgumentParser(prog="python -m generator.staging", description="Stage a rules project for an engine.")
    parser.add_argument("root", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--strict", action="store_true", help="warnings count as problems")
    parser.add_argument("--search-entries", type=Path, help="write the site's search entries to this file (JSON)")
    parser.add_argument("--nav-file", action="store_true", help=f"the engine reads the navigation from {NAV_FILE} (Zensical)")
    args = parser.parse_args(argv)
    config = read_config(args.root)
    memo = _staged_memo(args.root, config, args.search_entries is not None, args.nav_file)
    kept = _kept(memo)
    if kept is not None:  # nothing staging reads has changed since the last staging: write it out again
        files, search, problems = kept
        write_staged(args.target, files)
    else:
        try:
            with_search = args.search_entries is not None
            search, problems = _stage_anew(args.root, args.target, config, memo, with_search=with_search, nav_file=args.nav_file)
        except StagingError as exc:
            from .report import summary

            for problem in exc.problems:
                print(problem, file=sys.stderr)
            print(summary(exc.problems, checked=exc.checked), file=sys.stderr)
            return 2 if unreadable_project(exc.problems, exc.loaded is not None and exc.loaded.project is not None) else 1
    if args.search_entries is not None:
        args.search_entries.write_bytes(search)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if args.strict and problems else 0


def _staged_memo(root: Path, config: dict[str, Any], with_search: bool, nav_file: bool) -> cache_memo.ProjectMemo | None:
    """The memo of the last staging, over every folder staging reads whole (content, theme, templates)."""
    if not cache_memo.enabled():
        return None
    options = read_options(config)
    custom = _custom_dir(config)
    whole = [content_folder(config), options.templates_dir, *([custom] if custom is not None else [])]
    return cache_memo.staged_memo(root, (str(_follows_outside_links(options)), str(with_search), str(nav_file)), whole)


def _kept(memo: cache_memo.ProjectMemo | None) -> tuple[dict[str, bytes], bytes, list[Problem]] | None:
    """The last staging, if the memo has one of the project as it is now and its files are kept whole."""
    kept = memo.answer() if memo is not None else None
    if kept is None or memo is None:
        return None
    body = cache_memo.read_body(cache_memo.STAGED_FILES, memo.entry)
    files = unpacked_files(body[cache_memo.TOKEN_BYTES :]) if body is not None and body[: cache_memo.TOKEN_BYTES] == kept[0] else None
    if files is None:  # none, damaged, or the files of another staging than the memo's
        return None
    try:
        return files, kept[1], [Problem.from_plain(p) for p in kept[2]]
    except (TypeError, ValueError):  # not problems as `to_plain` writes them: stage anew
        return None


def packed_files(target: Path, token: bytes) -> Iterator[bytes]:
    """The token, then each staged file under `target` (config, theme, docs) as its path and bytes, each
    length-prefixed: read one file at a time, as `cache.write_parts` writes them."""
    yield token
    staged = [target / CONFIG_NAME, *(p for folder in (THEME_DIR, "docs") for p in sorted((target / folder).rglob("*")) if p.is_file())]
    for path in staged:
        name, data = path.relative_to(target).as_posix().encode("utf-8", "surrogateescape"), path.read_bytes()
        yield len(name).to_bytes(4, "little") + name + len(data).to_bytes(8, "little")
        yield data


def unpacked_files(body: memoryview) -> dict[str, bytes] | None:
    """The files `packed_files` wrote (after its token) by path; None for bytes it never writes."""
    files: dict[str, bytes] = {}
    at, end = 0, len(body)
    while at < end:
        if at + 4 > end:
            return None
        size = int.from_bytes(body[at : at + 4], "little")
        name_end = at + 4 + size
        if name_end + 8 > end:
            return None
        data_end = name_end + 8 + int.from_bytes(body[name_end : name_end + 8], "little")
        if data_end > end:
            return None
        files[bytes(body[at + 4 : name_end]).decode("utf-8", "surrogateescape")] = bytes(body[name_end + 8 : data_end])
        at = data_end
    return files


def _stage_anew(
    root: Path, target: Path, config: dict[str, Any], memo: cache_memo.ProjectMemo | None, *, with_search: bool, nav_file: bool
) -> tuple[bytes, list[Problem]]:
    """Stage the project (reusing the last build's unchanged pages) and keep the result in `memo`."""
    data_dir, content_dir = read_options(config).data_dir, content_folder(config)
    if memo is not None:
        memo.start(data_dir, content_dir)
    search, problems = _staged_with_search(root, target, config, with_search, nav_file)
    # The files read back one at a time and kept in one entry, once the project is freed: nothing adds to
    # the peak. The memo names them by a token of this staging's own. Not when the project's digest cannot
    # be known (a link out of it): no memo of it could answer.
    if memo is not None and memo.before is not None:
        token = os.urandom(cache_memo.TOKEN_BYTES)
        cache_memo.write_parts(cache_memo.STAGED_FILES, memo.entry, packed_files(target, token))
        memo.store(data_dir, content_dir, (token, search, [p.to_plain() for p in problems]))
    return search, problems


def _staged_with_search(root: Path, target: Path, config: dict[str, Any], with_search: bool, nav_file: bool) -> tuple[bytes, list[Problem]]:
    from .incremental import PageCache
    from .loader import collector_paused

    pages = PageCache()  # the last build's pages, kept in the user's cache: a build after an edit renders only what it changes
    with collector_paused():  # as in `stage`: the cache and the search entries too walk only what lives on
        pages.restore(root)
        staged = stage(root, target, target / "site", pages, config, nav_file)
        assert staged.loaded is not None
        search = staged_search(staged, pages) if with_search else b""
        pages.save(root)
    return search, staged.loaded.problems


def staged_search(staged: Staged, pages: PageCache) -> bytes:
    """The staged site's search entries, as the post-build step reads them (`SearchData.read`)."""
    from .catalogue import ListEntry
    from .search_entries import Entry, list_entries, search_data

    loaded, generated = staged.loaded, staged.generated
    assert loaded is not None and loaded.project is not None and generated is not None
    project, site_map = loaded.project, generated.site_map

    def entries(entry: ListEntry) -> list[Entry]:
        """An army list's entries read the inputs of its page: kept with it, like its text."""
        rows = pages.rows(entry.page, lambda: tuple(e.row() for e in list_entries(project, site_map, entry)))
        return [Entry(*row) for row in rows]

    return search_data(project, site_map, loaded.content, entries).dumps()


def main_apart(argv: list[str] | None = None) -> int:
    """`main` in a process that ends when it returns (`cadence build`'s staging step), with the cyclic
    collector off throughout: resumed, its passes would only walk the project still alive, a tenth of
    the step's time at 10x after an edit, and the process's memory goes back to the system as a whole."""
    gc.disable()
    return main(argv)


if __name__ == "__main__":
    code = main_apart()
    # Every file is written and closed: end without freeing the project object by object (a second at 10x).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
