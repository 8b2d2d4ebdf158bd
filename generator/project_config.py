"""Where a project keeps its data and content, read from its mkdocs.yml.

Only the two settings the command needs are read, without loading MkDocs and its plugins (which
would triple the time `cadence check` takes). Tags MkDocs configs use (`!!python/name:`, `!ENV`)
are read as plain values.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from .problems import DataError, Location, Problem, error, yaml_error_at

PLUGIN_NAME = "rules"
CONFIG_FILE = "mkdocs.yml"
#: Set to "1" by `cadence check/build/serve --follow-outside-links` for the processes they start (`staging.FOLLOW_OUTSIDE_LINKS`).
FOLLOW_OUTSIDE_LINKS = "CADENCE_FOLLOW_OUTSIDE_LINKS"


class _ConfigLoader(yaml.SafeLoader):
    pass


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_ConfigLoader.add_multi_constructor("", _any_tag)


def content_folder(config: dict[str, Any]) -> str:
    """The project's content folder: MkDocs' `docs_dir`, `docs` unless mkdocs.yml names another."""
    return str(config.get("docs_dir", "docs"))


def load_config(root: Path, loader: type[yaml.SafeLoader]) -> dict[str, Any]:
    """The project's mkdocs.yml as a mapping. A file that cannot be read as one raises `DataError` with its
    one located problem: the commands print it like any problem in the project, never a traceback."""
    raw = (root / CONFIG_FILE).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        where = Location(CONFIG_FILE, line, column)
        raise DataError([error(where, "encoding", f"byte 0x{raw[exc.start]:02x} is not valid UTF-8", "save the file as UTF-8")]) from None
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        where, what = yaml_error_at(exc, CONFIG_FILE)
        raise DataError([error(where, "yaml", f"invalid YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise DataError([error(Location(CONFIG_FILE, 1, 1), "yaml", f"invalid YAML: {exc}")]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        message = f"{CONFIG_FILE} must be a mapping of settings (site_name: ..., docs_dir: ...), not a {type(data).__name__}"
        raise DataError([error(Location(CONFIG_FILE, 1, 1), "config", message)])
    return data


def rules_options(config: dict[str, Any]) -> dict[str, Any]:
    """The `rules` plugin's options as written in mkdocs.yml (none when it has none, or is not listed)."""
    plugins = config.get("plugins") or []
    entries = [{name: value} for name, value in plugins.items()] if isinstance(plugins, dict) else plugins
    options: dict[str, Any] = {}
    for plugin in entries if isinstance(entries, list) else []:
        found = plugin.get(PLUGIN_NAME) if isinstance(plugin, dict) else None
        if isinstance(found, dict):
            options = found
    return options


def read_folders(root: Path, *, follow_outside_links: bool = False) -> tuple[str, str]:
    """The data and content folders, relative to the project root. A folder outside the project raises
    `DataError` (one located error each): the check and the build read and publish every file in them as
    the project's own, and a pull request that moves one out shows none of what it reads.
    `follow_outside_links`: `cadence --follow-outside-links` (the plugin option, and the variable the
    command sets for the processes it starts, count as well)."""
    config = load_config(root, _ConfigLoader)
    options = rules_options(config)
    content, data = content_folder(config), str(options.get("data_dir", "data"))
    follow = follow_outside_links or options.get("follow_outside_links") is True or os.environ.get(FOLLOW_OUTSIDE_LINKS) == "1"
    tree: yaml.MappingNode | None = None
    refused: list[Problem] = []
    for keys, what, folder in ((("docs_dir",), "content", content), (("plugins", PLUGIN_NAME, "data_dir"), "data", data)):
        where = outside(root, folder, follow_links=follow)
        if where:
            tree = tree or config_tree(root)
            found = setting(tree, *keys)
            hint = "keep the project's data and content folders inside the folder of mkdocs.yml"
            if where.startswith("a symbolic link"):
                hint += ", or follow it with --follow-outside-links or with `follow_outside_links: true` under the rules plugin"
            at = node_at(found[0]) if found else Location(CONFIG_FILE, 1, 1)
            refused.append(error(at, "outside-path", f"the {what} folder '{folder}' is {where}", hint))
    if refused:
        raise DataError(refused)
    return data, content


def outside(root: Path, written: str, *, follow_links: bool = False) -> str:
    """How a path named in mkdocs.yml leaves the project ("outside the project" for an absolute path or one
    through `..`, or "a symbolic link that leads outside the project"), or "" when it stays inside."""
    base = os.path.realpath(root)
    written_at = os.path.normpath(os.path.join(base, written))  # an absolute path replaces the base
    if not _within(written_at, base):
        return "outside the project"
    if not follow_links and not _within(os.path.realpath(written_at), base):
        return "a symbolic link that leads outside the project"
    return ""


def _within(path: str, base: str) -> bool:
    return os.path.commonpath([path, base]) == base


def setting_at(root: Path, key: str) -> Location:
    """Where mkdocs.yml sets `key` (its value's first character), else the file's first line: a folder that
    does not exist has no line of its own, so its error points at the setting that names it."""
    try:
        lines = (root / CONFIG_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return Location(CONFIG_FILE, 1, 1)
    setting = re.compile(rf"^\s*{re.escape(key)}\s*:\s*")
    for number, line in enumerate(lines, 1):
        found = setting.match(line)
        if found:
            return Location(CONFIG_FILE, number, found.end() + 1)
    return Location(CONFIG_FILE, 1, 1)


# --- mkdocs.yml as written: nodes that remember where each key and value is ---------------------


def config_tree(root: Path) -> yaml.MappingNode | None:
    """mkdocs.yml as YAML nodes, before any tag is acted on: each keeps its line, column and tag as written.
    None when the file is not a readable mapping (`load_config` reports why)."""
    try:
        tree = yaml.compose((root / CONFIG_FILE).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return tree if isinstance(tree, yaml.MappingNode) else None


def node_at(node: yaml.Node) -> Location:
    """Where a node of mkdocs.yml starts: a key's first character, a value's, or its tag's."""
    return Location(CONFIG_FILE, node.start_mark.line + 1, node.start_mark.column + 1)


def entries(node: yaml.Node | None) -> list[tuple[yaml.ScalarNode, yaml.Node]]:
    """A mapping node's settings whose keys are plain words, in file order (nothing for another node)."""
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)]


def setting(node: yaml.Node | None, *keys: str) -> tuple[yaml.ScalarNode, yaml.Node | None] | None:
    """The key and value nodes of a setting nested under `keys` (`theme`, `custom_dir`), else None. A key may
    name a plugin or an extension in its list (`plugins`, `rules`, `data_dir`)."""
    found: tuple[yaml.ScalarNode, yaml.Node | None] | None = None
    for name in keys:
        found = next(((key, value) for key, value in named_entries(node) if key.value == name), None)
        if found is None:
            return None
        node = found[1]
    return found


def named_entries(node: yaml.Node | None) -> list[tuple[yaml.ScalarNode, yaml.Node | None]]:
    """The entries of a list of named things (`plugins`, `markdown_extensions`) with their options, written
    as a list (`- search`, `- rules: {...}`) or as a mapping (`search: {}`): each name's node and its options."""
    if isinstance(node, yaml.MappingNode):
        return list(entries(node))
    found: list[tuple[yaml.ScalarNode, yaml.Node | None]] = []
    for item in node.value if isinstance(node, yaml.SequenceNode) else []:
        if isinstance(item, yaml.ScalarNode):
            found.append((item, None))
        else:
            found.extend(entries(item))
    return found
