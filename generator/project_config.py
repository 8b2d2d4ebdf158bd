"""Where a project keeps its data and content, read from its mkdocs.yml.

Only the two settings the command needs are read, without loading MkDocs and its plugins (which
would triple the time `cadence check` takes). Tags MkDocs configs use (`!!python/name:`, `!ENV`)
are read as plain values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

PLUGIN_NAME = "rules"


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


def read_folders(root: Path) -> tuple[str, str]:
    """The data and content folders, relative to the project root."""
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
    content = content_folder(config)
    data = "data"
    for plugin in config.get("plugins") or []:
        if isinstance(plugin, dict) and PLUGIN_NAME in plugin:
            data = str((plugin[PLUGIN_NAME] or {}).get("data_dir", "data"))
    return data, content
