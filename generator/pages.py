"""The pipeline from a project folder to generated pages, shared by the MkDocs plugin and the command.

`load_project` reads and checks; `generate` renders every generated page and knows how to expand a
hand-written one. Neither touches MkDocs: the plugin hands their output to it as generated files.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .catalogue import Project, assemble
from .checker import check_project, read_words, rule_usage
from .layout import SiteMap, build_site_map
from .loader import load_directory, read_text
from .problems import Location, Problem, error
from .render import Renderer


@dataclass
class Loaded:
    """A project read from disk: the model (if it could be built), the content pages and every problem."""

    root: Path
    project: Project | None
    content: dict[str, str]
    problems: list[Problem] = field(default_factory=list)

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
    # Cross-references are checked only on data that read cleanly: a file that failed to parse or
    # to match the schema would otherwise echo as a cascade of "does not exist" errors elsewhere.
    if project is not None and not any(p.severity.value == "error" for p in problems):
        words = read_words(root / data_dir / "words.txt")
        problems.extend(
            check_project(project, content, root=root if check_patches else None, data_dir=data_dir, content_dir=content_dir, words=words)
        )
    return Loaded(root, project, content, sorted(set(problems), key=lambda p: p.sort_key))


@dataclass
class Generated:
    """Rendered pages by site path, and the renderer that expands hand-written pages."""

    pages: dict[str, str]
    renderer: Renderer
    site_map: SiteMap
    scope_of_page: dict[str, str]

    def expand(self, page: str, text: str) -> tuple[str, list[Problem]]:
        return self.renderer.expand(page, text, self.scope_of_page.get(page))


def landing_pages(project: Project) -> dict[str, str]:
    """Generated landing pages by kind, from the system's `landing_pages`."""
    landing = project.system.landing_pages
    kinds = {
        "released": landing.released,
        "in_development": landing.in_development,
        "changes": landing.changes,
        "rules_index": landing.rules_index,
    }
    return {kind: page for kind, page in kinds.items() if page}


def generated_paths(project: Project) -> dict[str, str]:
    """Every generated page's path, with what generates it (for collision messages)."""
    paths: dict[str, str] = {}
    for module in project.modules.values():
        paths[f"{module.id}/index"] = project.module_files[module.id]
        if module.errata:
            paths[f"{module.id}/errata"] = project.module_files[module.id]
    for entry in project.lists:
        paths[entry.page] = entry.file
    for page in landing_pages(project).values():
        paths[page] = project.system_file
    paths["licences"] = project.system_file
    return paths


def generate(project: Project, content: dict[str, str], template_dirs: list[str] | None = None) -> Generated:
    """Render every generated page. Call only on a project whose check found no errors."""
    site_map, _ = build_site_map(project, content)
    labels = project.system.labels
    for module in project.modules.values():
        site_map.titles[f"{module.id}/index"] = module.title
        site_map.titles[f"{module.id}/errata"] = labels.of_module(module.title)
    renderer = Renderer(project, site_map, template_dirs or [])
    pages: dict[str, str] = {}
    for module in project.modules.values():
        pages[f"{module.id}/index"] = renderer.module_index(module)
        if module.errata:
            pages[f"{module.id}/errata"] = renderer.errata_page(module)
    for entry in project.lists:
        pages[entry.page] = renderer.army_list_page(entry)
    landing = landing_pages(project)
    if "released" in landing:
        pages[landing["released"]] = renderer.modules_page(landing["released"], "released", labels.released)
    if "in_development" in landing:
        pages[landing["in_development"]] = renderer.modules_page(landing["in_development"], "in-development", labels.in_development)
    if "changes" in landing:
        pages[landing["changes"]] = renderer.changes_page(landing["changes"])
    if "rules_index" in landing:
        usage = rule_usage(project, site_map)
        pages[landing["rules_index"]] = renderer.rules_index_page(landing["rules_index"], usage)
    pages["licences"] = renderer.licences_page("licences")
    scope_of_page: dict[str, str] = {}
    for module in project.modules.values():
        for page in module.pages:
            scope_of_page[page] = module.id
        for page in content:
            if PurePosixPath(page).parts[0] == module.id and page not in scope_of_page:
                scope_of_page[page] = module.id
    core = [m.id for m in project.modules.values() if m.core]
    for page in content:
        if page not in scope_of_page and core:
            scope_of_page[page] = core[0]
    return Generated(pages, renderer, site_map, scope_of_page)


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
