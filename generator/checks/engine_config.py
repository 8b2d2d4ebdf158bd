"""mkdocs.yml is code: what in it runs at build, reads or writes outside the project, or makes pages ask another host.

A pull request that changes data is checked line by line; one that adds a hook to mkdocs.yml runs Python on the
machine that builds the site, and nothing said so. These warnings name each such setting where it is written, so a
maintainer reviews it as code. The file is read as YAML nodes (`project_config.config_tree`), which keep every key's
line and column and every tag as written: the data loader refuses tags outright, which mkdocs.yml may use.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from ..problems import Problem, warning
from ..project_config import PLUGIN_NAME, config_tree, named_entries, node_at, outside, setting
from .base import CheckRun

CODES = ("config-hook", "config-plugin", "config-extension", "config-tag", "outside-path", "outside-request")

#: Plugins that read only the project's pages and write only into the site: MkDocs' search and our rules.
KNOWN_PLUGINS = frozenset({"search", PLUGIN_NAME})
#: Markdown extensions that only change how a page's own text is read: Python-Markdown's own and the PyMdown ones
#: that neither read files (`snippets`, `b64` do) nor take a Python name as an option (`!!python/name:` is warned of).
KNOWN_EXTENSIONS = frozenset(
    {
        *(
            f"{prefix}{name}"
            for prefix in ("", "markdown.extensions.")
            for name in (
                "abbr", "admonition", "attr_list", "codehilite", "def_list", "extra", "fenced_code", "footnotes",
                "legacy_attrs", "legacy_em", "md_in_html", "meta", "nl2br", "sane_lists", "smarty", "tables", "toc",
                "wikilinks",
            )
        ),
        *(
            f"pymdownx.{name}"
            for name in (
                "betterem", "caret", "critic", "details", "emoji", "highlight", "inlinehilite", "keys", "mark",
                "smartsymbols", "superfences", "tabbed", "tasklist", "tilde",
            )
        ),
    }
)  # fmt: skip
#: The tags of plain YAML values: any other (`!!python/name:`, `!ENV`, `!relative`) is acted on by the engine.
PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp"))
#: Settings naming a folder or file the build reads or writes, and what it does there.
PATH_SETTINGS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("site_dir",), "`mkdocs build` empties that folder and writes the site into it"),
    (("theme", "custom_dir"), "the build runs its templates, which no pull request shows"),
    (("plugins", PLUGIN_NAME, "templates_dir"), "the build runs its templates, which no pull request shows"),
    (("INHERIT",), "the build takes settings (hooks, plugins) from a file no pull request shows"),
)
#: Material's setting that sends every page's readers to another host unless the project turns it off.
ANALYTICS = ("extra", "analytics")
REVIEW = "review it as code before merging"
BOOL_TAG = "tag:yaml.org,2002:bool"


def check_engine_config(run: CheckRun) -> list[Problem]:
    """The registered check: `review_config` of the project (nothing without its folder)."""
    return review_config(run.root) if run.root is not None else []


def review_config(root: Path) -> list[Problem]:
    """Every setting of mkdocs.yml that runs code at build, leaves the project or makes pages call another host.
    It reads no data: `load_project` runs it also when the data has errors and the other checks wait."""
    tree = config_tree(root)
    if tree is None:
        return []
    return [*hooks(tree), *plugins(tree), *extensions(tree), *tags(tree), *outside_paths(root, tree), *outside_requests(tree)]


def hooks(tree: yaml.MappingNode) -> Iterator[Problem]:
    found = setting(tree, "hooks")
    for hook in found[1].value if found and isinstance(found[1], yaml.SequenceNode) else []:
        name = hook.value if isinstance(hook, yaml.ScalarNode) else "?"
        yield warning(node_at(hook), "config-hook", f"mkdocs.yml runs the hook '{name}': Python code that runs at every build", REVIEW)


def plugins(tree: yaml.MappingNode) -> Iterator[Problem]:
    found = setting(tree, "plugins")
    for name, _ in named_entries(found[1] if found else None):
        if str(name.value) not in KNOWN_PLUGINS:
            message = f"mkdocs.yml loads the plugin '{name.value}', Python code that runs at every build; the project knows {_listed(KNOWN_PLUGINS)}"
            yield warning(node_at(name), "config-plugin", message, f"{REVIEW}, and the package it comes from")


def extensions(tree: yaml.MappingNode) -> Iterator[Problem]:
    found = setting(tree, "markdown_extensions")
    for name, _ in named_entries(found[1] if found else None):
        if str(name.value) not in KNOWN_EXTENSIONS:
            message = f"mkdocs.yml loads the Markdown extension '{name.value}', Python code that reads every page at build"
            yield warning(
                node_at(name), "config-extension", message, f"{REVIEW}: an extension can import the project's own files or read others"
            )


def tags(tree: yaml.MappingNode) -> Iterator[Problem]:
    for node in _nodes(tree):
        if node.tag in PLAIN_TAGS:
            continue
        tag = node.tag.replace("tag:yaml.org,2002:", "!!")
        if tag.startswith("!!python/"):
            what = "names Python code the engine imports and runs at build"
        elif tag == "!ENV":
            what = "puts an environment variable of the machine that builds the site into its settings: a secret there could be published"
        else:
            what = "is acted on by the engine at build"
        yield warning(node_at(node), "config-tag", f"the tag '{tag}' {what}", REVIEW)


def outside_paths(root: Path, tree: yaml.MappingNode) -> Iterator[Problem]:
    for keys, does in PATH_SETTINGS:
        found = setting(tree, *keys)
        value = found[1] if found else None
        if found and isinstance(value, yaml.ScalarNode) and isinstance(value.value, str) and value.value:
            where = outside(root, value.value)
            if where:
                message = f"{'.'.join(k for k in keys if k != 'plugins')} '{value.value}' is {where}: {does}"
                yield warning(node_at(found[0]), "outside-path", message, "keep it inside the folder of mkdocs.yml")


def outside_requests(tree: yaml.MappingNode) -> Iterator[Problem]:
    yield from _fonts(tree)
    analytics = setting(tree, *ANALYTICS)
    if analytics:
        message = "extra.analytics sends each reader's visits to another host"
        yield warning(node_at(analytics[0]), "outside-request", message, "remove it, or tell the readers and review it as code")
    for key in ("extra_css", "extra_javascript"):
        found = setting(tree, key)
        for item in found[1].value if found and isinstance(found[1], yaml.SequenceNode) else []:
            address = _scalar(item) or _scalar(setting(item, "path"))
            if urlsplit(address.strip()).netloc:  # `https://host/…` or `//host/…`: not a file of the site
                message = f"{key} '{address}' is loaded from another host by every page, which sees each reader's address"
                yield warning(
                    node_at(item), "outside-request", message, "copy the file into the content folder and name it by its path there"
                )


def _fonts(tree: yaml.MappingNode) -> Iterator[Problem]:
    """Material's theme links Google Fonts from every page unless `theme.font` is false."""
    theme = setting(tree, "theme")
    options = theme[1] if theme else None
    named = _scalar(options) if isinstance(options, yaml.ScalarNode) else _scalar(setting(options, "name"))
    font = setting(options, "font")
    off = (
        font is not None
        and isinstance(font[1], yaml.ScalarNode)
        and font[1].tag == BOOL_TAG
        and font[1].value.lower() in ("false", "no", "off")
    )
    if theme and named == "material" and not off:
        message = "theme.font is not false: every page loads its fonts from Google Fonts, which sees each reader's address"
        hint = "write `font: false` under theme: pages use the reader's own fonts"
        yield warning(node_at(font[0] if font else theme[0]), "outside-request", message, hint)


def _nodes(tree: yaml.Node) -> Iterator[yaml.Node]:
    """Every node of the tree once (an alias is the node it names), without recursion."""
    seen: set[int] = set()
    waiting: list[yaml.Node] = [tree]
    while waiting:
        node = waiting.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, yaml.MappingNode):
            waiting.extend(part for pair in reversed(node.value) for part in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            waiting.extend(reversed(node.value))


def _scalar(found: tuple[yaml.ScalarNode, yaml.Node | None] | yaml.Node | None) -> str:
    node = found[1] if isinstance(found, tuple) else found
    return str(node.value) if isinstance(node, yaml.ScalarNode) else ""


def _listed(names: frozenset[str]) -> str:
    return " and ".join(sorted(names))


__all__ = ["CODES", "check_engine_config", "review_config"]
