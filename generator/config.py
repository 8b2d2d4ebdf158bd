"""The MkDocs plugin's options (their defaults are `staging.Options`, which `cadence build` reads too)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from .staging import Options

DEFAULTS = Options()


class RulesConfig(Config):
    data_dir = c.Type(str, default=DEFAULTS.data_dir)
    """Folder of YAML data, relative to mkdocs.yml."""

    templates_dir = c.Type(str, default=DEFAULTS.templates_dir)
    """Folder whose Jinja templates override the generator's own (same file names)."""

    nav = c.Type(bool, default=DEFAULTS.nav)
    """Build the navigation from module metadata when mkdocs.yml has no `nav`."""

    definitions_boost = c.Type(float, default=DEFAULTS.definitions_boost)
    """Search boost of pages that define special rules, so a definition outranks a table that only uses the name."""

    follow_outside_links = c.Type(bool, default=False)
    """Follow symbolic links under the data and content folders that lead outside the project (refused by default).

    `cadence check/build/serve --follow-outside-links` turns it on for one run."""
