"""Where a project keeps its data and content, read from its mkdocs.yml by MkDocs itself."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config import load_config

PLUGIN_NAME = "rules"


def read_folders(root: Path) -> tuple[str, str]:
    """The data and content folders, relative to the project root."""
    config = load_config(str(root / "mkdocs.yml"))
    content = Path(config.docs_dir).resolve().relative_to(root.resolve()).as_posix()
    plugin = config.plugins.get(PLUGIN_NAME)
    data = getattr(plugin, "config", {}).get("data_dir", "data") if plugin is not None else "data"
    return str(data), content
