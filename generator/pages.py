"""The pipeline from a project folder to generated pages, shared by the MkDocs plugin and the command.

`load_project` reads and checks; `generate` renders every generated page and knows how to expand a
hand-written one. Neither touches MkDocs: the plugin hands their output to it as generated files.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .catalogue import Project, assemble
from .checks import read_words, run_checks
from .layout import SiteMap, landing_pages
from .layout import generated_paths as generated_paths
from .loader import load_directory, read_text
from .problems import Location, Problem, error
from .resolve import Resolved, resolve

if TYPE_CHECKING:
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


def read_content(root: Path, content_dir: str) -> tuple[dict[str, str], list[Problem]]:
    """Hand-written Markdown pages by site path (`core-rules/basic-rules`)."""
    base = root / content_dir
    pages: dict[str, str] = {}
    problems: list[Problem] = []
    if not base.is_dir():
        return pages, [error(Location(content_dir, 0, 0), "missing", f"content folder '{content_dir}' does not exist")]
    for path in sorted(base.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        text, found = read_text(path, rel)
        problems.extend(found)
        if text is not None:
            pages[path.relative_to(base).with_suffix("").as_posix()] = text
    return pages, problems


def load_project(root: Path, data_dir: str = "data", content_dir: str = "content", *, check_patches: bool = True) -> Loaded:
    """Load, model and check a project; every problem is returned, nothing is raised for user data.

    `check_patches` is off when the errata have already been applied (`--as-published`).
    """
    documents, problems = load_directory(root, data_dir)
    content, content_problems = read_content(root, content_dir)
    problems.extend(content_problems)
    project, found = assemble(documents, data_dir)
    problems.extend(found)
    resolved = None
    # Cross-references are checked only on data that read cleanly: a file that failed to parse or
    # to match the schema would otherwise echo as a cascade of "does not exist" errors elsewhere.
    if project is not None and not any(p.severity.value == "error" for p in problems):
        resolved = resolve(project, content, content_dir)
        words = read_words(root / data_dir / "words.txt")
        root_for_patches = root if check_patches else None
        problems.extend(run_checks(resolved, words=words, root=root_for_patches, data_dir=data_dir, content_dir=content_dir))
    return Loaded(root, project, content, sorted(set(problems), key=lambda p: p.sort_key), resolved)


@dataclass
class Generated:
    """Rendered pages by site path, and the renderer that expands hand-written pages."""

    pages: dict[str, str]
    renderer: Renderer
    resolved: Resolved

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
    project: Project, content: dict[str, str], template_dirs: list[str] | None = None, resolved: Resolved | None = None
) -> Generated:
    """Render every generated page. Call only on a project whose check found no errors.

    `resolved` is the result `load_project` already computed; without it the project is resolved here.
    """
    from .render import Renderer  # here, not at the top: `cadence check` never loads Jinja

    resolved = resolved if resolved is not None and resolved.project is project else resolve(project, content)
    renderer = Renderer(resolved, template_dirs or [])
    pages: dict[str, str] = {}
    for module in project.modules.values():
        pages[f"{module.id}/index"] = renderer.module_index(module)
        if module.errata:
            pages[f"{module.id}/errata"] = renderer.errata_page(module)
    for entry in project.lists:
        pages[entry.page] = renderer.army_list_page(entry)
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
    return Generated(pages, renderer, resolved)


def navigation(project: Project, content: dict[str, str], titles: dict[str, str]) -> list[object]:
    """The site navigation from module metadata: home, core rules, games by status, indexes.

    Every title comes from data: module titles, and the system's `labels` for the generator's own words.
    """
    labels = project.system.labels
    nav: list[object] = []
    if "index" in content:
        nav.append({labels.home: "index.md"})
    landing = landing_pages(project)
    by_status: dict[str, list[object]] = defaultdict(list)
    for module in project.ordered_modules():
        section: list[object] = [{labels.overview: f"{module.id}/index.md"}]
        section.extend(f"{page}.md" for page in module.pages)
        if module.errata:
            section.append({labels.errata: f"{module.id}/errata.md"})
        if module.core:
            nav.append({module.title: section})
        else:
            by_status[module.status].append({module.title: section})
    if "released" in landing:
        nav.append({labels.released: [f"{landing['released']}.md", *by_status["released"]]})
    else:
        nav.extend(by_status["released"])
    if "in_development" in landing:
        nav.append({labels.in_development: [f"{landing['in_development']}.md", *by_status["in-development"]]})
    else:
        nav.extend(by_status["in-development"])
    for kind, title in (("rules_index", labels.rules_index), ("changes", labels.changes)):
        if kind in landing:
            nav.append({title: f"{landing[kind]}.md"})
    about = [f"{page}.md" for page in sorted(content) if page.startswith("about/")]
    nav.append({labels.about: [*about, {labels.licences: "licences.md"}]})
    return nav
