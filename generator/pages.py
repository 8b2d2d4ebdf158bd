"""The pipeline from a project folder to generated pages, shared by the MkDocs plugin and the command.

`load_project` reads and checks; `generate` renders every generated page and knows how to expand a
hand-written one. Neither touches MkDocs: the plugin hands their output to it as generated files.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from . import cache
from .cache import Digests, read_digests
from .catalogue import Project, collect_records, link_records
from .checks import read_words, run_checks
from .checks.engine_config import review_config
from .layout import ABOUT_FOLDER, SiteMap, landing_pages
from .layout import generated_paths as generated_paths
from .loader import collector_paused, project_files, read_text
from .pinpoint import pinpoint
from .problems import Location, Problem, error
from .project_config import setting_at
from .resolve import Resolved, resolve
from .stored import built_documents

if TYPE_CHECKING:
    from .cache import ProjectMemo
    from .incremental import PageCache
    from .render import Renderer


@dataclass
class Loaded:
    """A project read from disk: the model (if it could be built), the content pages and every problem."""

    root: Path
    project: Project | None
    content: dict[str, str]
    problems: list[Problem] = field(default_factory=list)
    resolved: Resolved | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity.value == "error"]

    @property
    def checked(self) -> bool:
        """Whether the checks across files ran: they run only on data that read cleanly (`load_project`)."""
        return self.resolved is not None


def read_content(
    root: Path, content_dir: str, *, allow_outside_links: bool = False, files: set[str] | None = None
) -> tuple[dict[str, str], list[Problem]]:
    """Hand-written Markdown pages by site path (`core-rules/basic-rules`); `files` collects the content
    folder's other files, by path in it (`core/map.png`), for the links that lead to them."""
    base = root / content_dir
    pages: dict[str, str] = {}
    if not base.is_dir():
        hint = "create it, or name the project's content folder as docs_dir in mkdocs.yml"
        return pages, [error(Location(content_dir, 0, 0), "missing", f"content folder '{content_dir}' does not exist", hint)]
    others: list[Path] = []
    paths, problems = project_files(root, content_dir, (".md",), allow_outside_links=allow_outside_links, others=others)
    if files is not None:
        files.update(path.relative_to(base).as_posix() for path in others)
    for path in paths:
        rel = path.relative_to(root).as_posix()
        text, found = read_text(path, rel)
        problems.extend(found)
        if text is not None:
            pages[path.relative_to(base).with_suffix("").as_posix()] = text
    return pages, problems


@collector_paused()
def load_project(
    root: Path,
    data_dir: str = "data",
    content_dir: str = "content",
    *,
    check_patches: bool = True,
    allow_outside_links: bool = False,
    checked: ProjectMemo | None = None,
) -> Loaded:
    """Load, model and check a project; every problem is returned, nothing is raised for user data.

    `check_patches` is off when the errata have already been applied (`--as-published`);
    `allow_outside_links` follows symbolic links that leave the project; `checked` holds the checks'
    problems from the last run over the same files (`cache.checks_memo`), taken instead of checking again.
    """
    if checked is not None:
        checked.start(data_dir, content_dir)
    # what the data files held before they are read: the per-list checks keep their problems under it
    digests = read_digests(root, data_dir) if check_patches and cache.enabled() else None
    problems: list[Problem] = []
    # each file's record is built as the file is read, so one file's raw values are held at a time
    records = collect_records(built_documents(root, data_dir, problems, allow_outside_links=allow_outside_links), data_dir)
    files: set[str] = set()
    content, content_problems = read_content(root, content_dir, allow_outside_links=allow_outside_links, files=files)
    problems.extend(content_problems)
    project, found = link_records(records, data_dir, unread={p.location.path for p in problems})
    problems.extend(found)
    resolved = None
    # Cross-references are checked only on data that read cleanly: a file that failed to parse or
    # to match the schema would otherwise echo as a cascade of "does not exist" errors elsewhere.
    if project is not None and not any(p.severity.value == "error" for p in problems):
        resolved = resolve(project, content, content_dir, frozenset(files))
        words, unread = read_words(root / data_dir / "words.txt", f"{data_dir}/words.txt")
        problems.extend(unread)
        problems.extend(_check(resolved, words, root if check_patches else None, (data_dir, content_dir), checked, digests))
    elif check_patches:  # the registry's review of mkdocs.yml reads no data: a broken config is shown with broken data
        problems.extend(review_config(root))
    problems = _missing_folders_at_settings(root, problems, data_dir, content_dir)
    if check_patches:  # else the texts checked are the errata's published ones, not those in the files
        problems = pinpoint(root, problems)
    return Loaded(root, project, content, sorted(set(problems), key=lambda p: p.sort_key), resolved)


def _missing_folders_at_settings(root: Path, problems: list[Problem], data_dir: str, content_dir: str) -> list[Problem]:
    """A missing data or content folder is located at the mkdocs.yml setting that names it (a folder has no
    line); with no data folder, the system file it lacks goes unsaid."""
    settings = {Location(data_dir, 0, 0): "data_dir", Location(content_dir, 0, 0): "docs_dir"}
    missing = [p for p in problems if p.code == "missing" and p.location in settings]
    if not missing:
        return problems
    placed = {p: dataclasses.replace(p, location=setting_at(root, settings[p.location])) for p in missing}
    no_data = Location(data_dir, 0, 0) in {p.location for p in missing}
    return [placed.get(p, p) for p in problems if not (no_data and p.code == "missing" and p.location.line == 0 and p not in placed)]


def _check(
    resolved: Resolved,
    words: frozenset[str] | None,
    root: Path | None,
    folders: tuple[str, str],
    checked: ProjectMemo | None,
    digests: Digests | None,
) -> list[Problem]:
    """The registered checks' problems: from `checked` when it holds them for these files, else found now."""
    known = checked.answer() if checked is not None else None
    if known is not None:
        with contextlib.suppress(TypeError, ValueError):
            return [Problem.from_plain(values) for values in known]
    data_dir, content_dir = folders
    found = run_checks(resolved, words=words, root=root, data_dir=data_dir, content_dir=content_dir, digests=digests)
    if checked is not None:
        checked.store(data_dir, content_dir, [problem.to_plain() for problem in found])
    return found


@dataclass
class Generated:
    """Rendered pages by site path, and the renderer that expands hand-written pages."""

    pages: dict[str, str]
    renderer: Renderer
    resolved: Resolved
    #: Other generated files by site path (the builder's script and style, the published JSON).
    files: dict[str, str] = field(default_factory=dict)

    @property
    def site_map(self) -> SiteMap:
        return self.resolved.site_map

    @property
    def scope_of_page(self) -> dict[str, str | None]:
        return dict(self.resolved.page_scopes)

    def expand(self, page: str, text: str) -> str:
        """A hand-written page with its directives and [[rule]] links replaced (they were checked)."""
        return self.renderer.expand(page, text)


def generate(
    project: Project,
    content: dict[str, str],
    template_dirs: list[str] | None = None,
    resolved: Resolved | None = None,
    cache: PageCache | None = None,
) -> Generated:
    """Render every generated page. Call only on a project whose check found no errors.

    `resolved` is the result `load_project` already computed; without it the project is resolved here.
    With a `cache` (while serving), a module's pages whose inputs did not change are taken from it.
    """
    from .export import builder_outputs, builder_titles  # here, not at the top: `cadence check` never writes the builder
    from .render import Renderer  # here, not at the top: `cadence check` never loads Jinja

    resolved = resolved if resolved is not None and resolved.project is project else resolve(project, content)
    renderer = Renderer(resolved, template_dirs or [])
    builder_titles(project, renderer)  # the site map is complete before any key or page is made
    if cache is None:
        from .incremental import PageCache

        cache = PageCache()  # keeps nothing: `begin` was never called
    cache.bind(project, renderer.map)
    pages, files = builder_outputs(project, renderer, cache)
    for module in project.modules.values():
        pages[f"{module.id}/index"] = cache.page(
            f"{module.id}/index", cache.key(project, module.id, "index"), partial(renderer.module_index, module)
        )
        if module.errata:
            pages[f"{module.id}/errata"] = cache.page(
                f"{module.id}/errata", cache.key(project, module.id, "errata"), partial(renderer.errata_page, module)
            )
    for entry in project.lists:
        pages[entry.page] = cache.page(entry.page, cache.key(project, entry.key, "list"), partial(renderer.army_list_page, entry))
    landing = landing_pages(project)
    if "released" in landing:
        pages[landing["released"]] = renderer.modules_page(landing["released"], "released", project.system.labels.released)
    if "in_development" in landing:
        pages[landing["in_development"]] = renderer.modules_page(
            landing["in_development"], "in-development", project.system.labels.in_development
        )
    if "changes" in landing:
        pages[landing["changes"]] = renderer.changes_page(landing["changes"])
    if "rules_index" in landing:
        pages[landing["rules_index"]] = renderer.rules_index_page(landing["rules_index"])
    pages["licences"] = renderer.licences_page("licences")
    return Generated(pages, renderer, resolved, files)


def navigation(project: Project, content: dict[str, str], titles: dict[str, str]) -> list[object]:
    """The site navigation from module metadata: home, core rules, games by status, indexes.

    Every title comes from data: module titles, and the system's `labels` for the generator's own words.
    """
    import html

    from .markup import outline_text  # here, not at the top: `cadence check` never imports Markdown

    labels = project.system.labels

    def text(title: str) -> str:
        return html.escape(outline_text(title))  # themes write nav titles into every page as HTML

    nav: list[object] = []
    if "index" in content:
        nav.append({text(labels.home): "index.md"})
    landing = landing_pages(project)
    by_status: dict[str, list[object]] = defaultdict(list)
    for module in project.ordered_modules():
        section: list[object] = [{text(labels.overview): f"{module.id}/index.md"}]
        section.extend(f"{page}.md" for page in module.pages)
        if module.errata:
            section.append({text(labels.errata): f"{module.id}/errata.md"})
        if f"{module.id}/builder" in titles:  # the army builder, where the module has lists to build
            section.append({text(module.terms.over(labels)["roster"]): f"{module.id}/builder.md"})  # export.builder_name
        title = text(module.title)
        if module.core:
            nav.append({title: section})
        else:
            by_status[module.status].append({title: section})
    # A group's landing page is its overview, as a game's index page is: named after the group, it would read
    # twice in a row in the menu ("Released Games" over "Released Games").
    for kind, status, group in (("released", "released", labels.released), ("in_development", "in-development", labels.in_development)):
        if kind in landing:
            nav.append({text(group): [{text(labels.overview): f"{landing[kind]}.md"}, *by_status[status]]})
        else:
            nav.extend(by_status[status])
    for kind, title in (("rules_index", labels.rules_index), ("changes", labels.changes)):
        if kind in landing:
            nav.append({text(title): f"{landing[kind]}.md"})
    about = [f"{page}.md" for page in sorted(content) if page.startswith(ABOUT_FOLDER)]
    nav.append({text(labels.about): [*about, {text(labels.licences): "licences.md"}]})
    return nav
