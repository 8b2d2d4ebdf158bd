"""Where a project keeps its data and content, read from its mkdocs.yml.

Only the two settings the command needs are read, without loading MkDocs and its plugins (which
would triple the time `cadence check` takes). Tags MkDocs configs use (`!!python/name:`, `!ENV`)
are read as plain values.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .problems import DataError, Location, error, yaml_error_at

PLUGIN_NAME = "rules"
CONFIG_FILE = "mkdocs.yml"


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


def read_folders(root: Path) -> tuple[str, str]:
    """The data and content folders, relative to the project root."""
    config = load_config(root, _ConfigLoader)
    content = content_folder(config)
    data = "data"
    plugins = config.get("plugins") or []
    entries = [{name: value} for name, value in plugins.items()] if isinstance(plugins, dict) else plugins
    for plugin in entries if isinstance(entries, list) else []:
        options = plugin.get(PLUGIN_NAME) if isinstance(plugin, dict) else None
        if isinstance(options, dict):
            data = str(options.get("data_dir", "data"))
    return data, content


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
