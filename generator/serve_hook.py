"""The MkDocs hook `cadence serve` adds to the staged config of MkDocs and ProperDocs.

While serving, the engine builds into a folder of its own after every edit, so `cadence build`'s post-build
step cannot reach it: this hook merges the generator's search entries (the file staging wrote beside the
config) into the index the engine has just built, and puts the site's ranking into its search worker.
Zensical runs no hooks: `cadence serve` merges into the folder Zensical serves (`serve_search.py`).

MkDocs loads a hook from its path, outside the package: the imports are absolute.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from generator.postbuild import merge_search
from generator.search_index import SearchData
from generator.staging import SEARCH_FILE

log = logging.getLogger("mkdocs.hooks.cadence")


def on_post_build(config: Any, **_: Any) -> None:
    """A failed merge leaves the engine's own index and is told, never stopping the server."""
    entries = Path(config["config_file_path"]).parent / SEARCH_FILE
    try:
        if entries.is_file():
            merge_search(Path(config["site_dir"]), SearchData.read(entries))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("cadence: the search entries were not merged (%s)", exc)
